"""The simulated world of the ConG reproduction: a sorting task with a hidden programmatic reward.

A prompt ``x`` is ``k`` digits (0..D-1) followed by a separator token ``SEP = D``; the ideal
response is the ``L = k`` digits of ``x`` in ascending order. The hidden explicit reward
(our stand-in for ArmoRM / the AlpacaEval judge) is

    R(x, y) = (1/L) * sum_t 1[y_t == sorted(x)_t]            in [0, 1].

The "pretraining" corpus that both the weak and the strong base models learn is *sloppy*,
as instruction-tuned models are before preference alignment: a response is the sorted copy
with probability ``p_sorted``, the prompt copied unsorted (a common, partly-right mistake)
with ``p_copy``, and uniform random digits otherwise. Base models therefore put most of their
mass on the copy and leave room for alignment to move it to the sorted answer.

Token layout of one sequence: ``x_1..x_k SEP y_1..y_L`` (length ``2k + 1``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from icml26.core.validate import as_array, as_rng, check_int, check_positive
from icml26.nn.train import train_lm
from icml26.nn.transformer import LMConfig, TinyLM


@dataclass(frozen=True)
class SortTask:
    """Digits ``0..n_digits-1``, prompts of ``k`` digits, responses of ``k`` tokens."""

    n_digits: int = 6
    k: int = 4

    def __post_init__(self) -> None:
        check_int("n_digits", self.n_digits, minimum=2)
        check_int("k", self.k, minimum=1)

    @property
    def sep(self) -> int:
        return self.n_digits

    @property
    def vocab_size(self) -> int:
        return self.n_digits + 1

    @property
    def prompt_len(self) -> int:
        return self.k + 1

    @property
    def seq_len(self) -> int:
        return 2 * self.k + 1


def make_prompts(task: SortTask, n: int, *, seed: Any = 0) -> np.ndarray:
    """(n, k + 1) int prompts: ``k`` uniform digits and the separator."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    x = rng.integers(0, task.n_digits, size=(n, task.k))
    return np.concatenate([x, np.full((n, 1), task.sep)], axis=1).astype(np.int64)


def _check_pair(task: SortTask, prompts: Any, responses: Any) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(as_array("prompts", prompts, ndim=2), dtype=np.int64)
    r = np.asarray(as_array("responses", responses, ndim=2), dtype=np.int64)
    if p.shape[1] != task.prompt_len:
        raise ValueError(f"prompts must be (n, {task.prompt_len}), got {p.shape}")
    if r.shape != (p.shape[0], task.k):
        raise ValueError(f"responses must be (n, {task.k}) = one per prompt, got {r.shape}")
    return p, r


def hidden_reward(task: SortTask, prompts: Any, responses: Any) -> np.ndarray:
    """R(x, y) per row (n,): the fraction of positions where ``y`` equals ``sorted(x)``."""
    p, r = _check_pair(task, prompts, responses)
    target = np.sort(p[:, :task.k], axis=1)
    return (r == target).mean(axis=1)


def sloppy_responses(task: SortTask, prompts: Any, *, p_sorted: float = 0.3, p_copy: float = 0.5,
                     seed: Any = 0) -> np.ndarray:
    """(n, k) responses of the sloppy base corpus (sorted / copied / random, see module docstring)."""
    p = np.asarray(as_array("prompts", prompts, ndim=2), dtype=np.int64)
    p_sorted = check_positive("p_sorted", p_sorted, strict=False)
    p_copy = check_positive("p_copy", p_copy, strict=False)
    if p_sorted + p_copy > 1:
        raise ValueError(f"p_sorted + p_copy must be <= 1, got {p_sorted + p_copy}")
    rng = as_rng("seed", seed)
    x = p[:, :task.k]
    u = rng.random(len(p))
    out = rng.integers(0, task.n_digits, size=x.shape)
    out[u < p_sorted] = np.sort(x[u < p_sorted], axis=1)
    copy = (u >= p_sorted) & (u < p_sorted + p_copy)
    out[copy] = x[copy]
    return out.astype(np.int64)


def make_lm(task: SortTask, *, d_model: int, n_layers: int, n_heads: int = 2, seed: int = 0) -> TinyLM:
    """A TinyLM sized for the task (weights drawn from ``seed``)."""
    torch.manual_seed(check_int("seed", seed, minimum=0))
    return TinyLM(LMConfig(vocab_size=task.vocab_size, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                           max_len=task.seq_len + 1))


def sequences(prompts: np.ndarray, responses: np.ndarray) -> torch.Tensor:
    """(n, 2k + 1) long tensor ``prompt + response``."""
    return torch.as_tensor(np.concatenate([prompts, responses], axis=1), dtype=torch.long)


def response_targets(task: SortTask, seqs: torch.Tensor) -> torch.Tensor:
    """Next-token targets (n, 2k) with the prompt positions ignored (-100): the loss sees the response only."""
    tgt = seqs[:, 1:].clone()
    tgt[:, :task.prompt_len - 1] = -100
    return tgt


def train_on_responses(model: TinyLM, task: SortTask, prompts: np.ndarray, responses: np.ndarray, *, steps: int,
                       batch: int = 64, lr: float = 3e-3, seed: int = 0) -> list[float]:
    """Supervised fine-tuning on (prompt, response) pairs, loss on the response tokens; returns the loss history."""
    seqs = sequences(prompts, responses)
    tgt = response_targets(task, seqs)
    n = len(seqs)

    def draw(gen: torch.Generator):
        idx = torch.randint(0, n, (min(batch, n),), generator=gen)
        return seqs[idx], tgt[idx]

    return train_lm(model, draw, steps=steps, lr=lr, warmup=max(1, steps // 10), seed=seed)
