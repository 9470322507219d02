"""The simulated world of the MineDraft reproduction (arXiv:2603.18016): language, models, clock.

- :func:`markov_language` / :func:`sample_sequences`: a sparse random order-2 Markov chain over
  ``vocab`` tokens (each pair of previous tokens has ``n_succ`` possible successors with
  Dirichlet(``conc``) weights) and sequences drawn from it; prompts and training text.
- :func:`train_pair`: a target TinyLM and a smaller drafter TinyLM trained on that language for a
  few hundred steps, so the drafter agrees with the target's greedy choice often but not always.
- :class:`CostModel`: a deterministic per-forward duration (call + per-layer overhead + FLOPs /
  rate) used as a clock, so a replayed schedule is a function of its work alone. It is a
  simulation: a speed claim decided on it is decided on the model, not on hardware.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.train import train_lm
from icml26.nn.transformer import LMConfig, TinyLM


def markov_language(vocab: int, rng: np.random.Generator, n_succ: int = 3, conc: float = 0.5) -> np.ndarray:
    """Transition table T (vocab, vocab, vocab): T[a, b] = distribution of the token after (a, b)."""
    vocab = check_int("vocab", vocab, minimum=2)
    n_succ = check_int("n_succ", n_succ, minimum=1, maximum=vocab)
    conc = check_positive("conc", conc)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    T = np.zeros((vocab, vocab, vocab))
    for a in range(vocab):
        for b in range(vocab):
            succ = rng.choice(vocab, size=n_succ, replace=False)
            T[a, b, succ] = rng.dirichlet(np.full(n_succ, conc))
    return T


def sample_sequences(T: np.ndarray, n: int, length: int, gen: torch.Generator) -> torch.Tensor:
    """(n, length) token ids drawn from the chain ``T`` (vocab, vocab, vocab); first two tokens uniform."""
    T = as_array("T", T, ndim=3)
    V = T.shape[0]
    if T.shape != (V, V, V) or (T < 0).any() or not np.allclose(T.sum(-1), 1.0):
        raise ValueError(f"T must be (vocab, vocab, vocab) with rows summing to 1, got shape {T.shape}")
    n = check_int("n", n, minimum=1)
    length = check_int("length", length, minimum=2)
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch Generator, got {type(gen).__name__}")
    Tt = torch.as_tensor(T.reshape(V * V, V), dtype=torch.float32)
    x = torch.empty(n, length, dtype=torch.long)
    x[:, :2] = torch.randint(0, V, (n, 2), generator=gen)
    for t in range(2, length):
        x[:, t] = torch.multinomial(Tt[x[:, t - 2] * V + x[:, t - 1]], 1, generator=gen)[:, 0]
    return x


def train_pair(p: Mapping[str, Any], seed: int, T: np.ndarray) -> tuple[TinyLM, TinyLM]:
    """Target and drafter trained on sequences of ``T``; ``p`` holds ``{target,drafter}_arch``
    ([d_model, layers, heads]), ``{target,drafter}_steps``, ``prompt_len``, ``n_new``, ``k``,
    ``train_batch``, ``train_len`` and ``lr``. Returns both models in eval mode."""
    V = T.shape[0]
    max_len = p["prompt_len"] + p["n_new"] + 3 * p["k"] + 4
    models = []
    for name in ("target", "drafter"):
        d, L, H = p[f"{name}_arch"]
        m = TinyLM(LMConfig(vocab_size=V, d_model=d, n_layers=L, n_heads=H, max_len=max(max_len, p["train_len"])))

        def batch(g, _T=T):
            return sample_sequences(_T, p["train_batch"], p["train_len"], g)

        losses = train_lm(m, batch, steps=p[f"{name}_steps"], lr=p["lr"], seed=seed * 7 + len(models))
        m.train_losses = losses  # type: ignore[attr-defined]  # kept for the training gate
        models.append(m.eval())
    return models[0], models[1]


def chain_entropy(T: np.ndarray) -> float:
    """Mean next-token entropy (nats) of the chain under uniform pairs of previous tokens:
    the loss floor a perfect model reaches (up to the stationary weighting)."""
    T = as_array("T", T, ndim=3)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(T > 0, T * np.log(T), 0.0).sum(-1)
    return float(h.mean())


class CostModel:
    """Deterministic stage durations for replays: each model forward costs
    ``c_call + c_layer * n_layers + flops / flops_per_s`` seconds (flops of the projections, MLP,
    attention over the cached context and the output head). Used as a clock (``cost()`` returns the
    modelled seconds spent so far), it makes a run's timings a function of its work alone.
    """

    def __init__(self, c_call: float, c_layer: float, flops_per_s: float):
        self.c_call = check_positive("c_call", c_call, strict=False)
        self.c_layer = check_positive("c_layer", c_layer, strict=False)
        self.flops_per_s = check_positive("flops_per_s", flops_per_s)
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def charge(self, model: TinyLM, n: int, t: int, S: int) -> None:
        c = model.cfg
        d = c.d_model
        per_layer = 2 * n * t * d * (3 * d + d + 2 * c.mlp_ratio * d) + 4 * n * t * S * d
        flops = c.n_layers * per_layer + 2 * n * t * d * c.vocab_size
        self.t += self.c_call + self.c_layer * c.n_layers + flops / self.flops_per_s
