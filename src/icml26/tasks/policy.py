"""A shared, deliberately under-trained tiny policy on verifiable arithmetic.

The RL papers of the ``llm`` cluster fine-tune a reasoning model with verifiable rewards
(DAPO, GRPO). Here the "base model" is a :class:`~icml26.nn.transformer.TinyLM` pretrained
from scratch (per seed) on :mod:`icml26.tasks.arithmetic` problems with scratchpads (by
default levels 1 and 2: two operands below 10 with + and -, three operands below 20 with
+ - *), stopped early so that greedy exact match sits well below its ceiling: RL with a
binary verifiable reward then has room to raise it. Pretraining uses AdamW with a short
warm-up and then a constant lr (``PolicyConfig.schedule="constant"``): the earlier cosine
decay to 0.1 lr (``"cosine"``, kept for comparison) leaves the under-trained policy so sharp
along the policy gradient that GRPO/DAPO steps lowered its reward (measured on level-1
problems, d = 32, 300 steps, 3 seeds: DAPO full fine-tuning for 12 steps moved greedy exact
match by -12 to -38 points from a cosine base and by +1 to +7 from a constant-lr base).
Greedy decoding allows ``MAX_NEW = 28`` new tokens, the longest level-2 scratchpad plus eos.

Prompt: ``<bos>12*7-3=``; completion: ``12*7=84;84-3=81;#81<eos>``. The pretrained weights
are cached on disk by (seed, config) with :func:`icml26.core.cache.cached` (namespace
``arith_policy`` under ``ICML26_CACHE``, default ``~/.cache/icml26``), so several papers or
profiles share one pretraining; a cached model is bit-identical to a fresh one (same seed,
same deterministic CPU training). Both schedules are :func:`icml26.nn.train.train_lm`'s.

Public: :class:`PolicyConfig`, :func:`tokenizer`, :func:`problems`, :func:`encode_prompts`,
:func:`training_batch`, :func:`pretrain_policy`, :func:`decode`, :func:`exact_match`,
:func:`reward_fn`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from icml26.core.validate import check_int, check_positive
from icml26.nn.tokenize import Tokenizer, train_tokenizer
from icml26.nn.transformer import LMConfig, TinyLM
from icml26.tasks.arithmetic import ArithmeticProblem, arithmetic_problems, is_correct

ALPHABET = "0123456789+-*=;#"
MAX_NEW = 28  # the longest level-2 scratchpad (27 characters) plus <eos>
SCHEDULES = ("constant", "cosine")
WARMUP = 20


@dataclass(frozen=True)
class PolicyConfig:
    """How the shared base policy is pretrained (the cache key, with the seed)."""

    d_model: int = 48
    n_layers: int = 2
    n_heads: int = 4
    levels: tuple[int, ...] = (1, 2)
    steps: int = 300
    batch: int = 64
    lr: float = 3e-3
    max_len: int = 48
    # "constant": linear warm-up then a constant lr (the default; the policy ends in a flat
    # enough spot for RL to improve it); "cosine": train_lm's cosine decay to 0.1 lr, which
    # leaves the under-trained policy so sharp along the policy gradient that RL steps lower
    # the reward (measured: see tests/tasks/test_tasks.py).
    schedule: str = "constant"

    def __post_init__(self) -> None:
        for name in ("d_model", "n_layers", "n_heads", "steps", "batch", "max_len"):
            check_int(name, getattr(self, name), minimum=1)
        check_positive("lr", self.lr)
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        for lv in self.levels:
            check_int("levels", lv, minimum=1, maximum=4)


@lru_cache(maxsize=1)
def tokenizer() -> Tokenizer:
    """The character tokenizer over digits, operators and the scratchpad marks."""
    return train_tokenizer([ALPHABET], kind="char", vocab_size=32, normalizer=None)


def problems(n: int, *, levels: tuple[int, ...] = (1, 2), seed: int = 0) -> list[ArithmeticProblem]:
    """``n`` arithmetic problems spread over ``levels`` (a fixed stream per ``seed``)."""
    return arithmetic_problems(check_int("n", n, minimum=1), level=tuple(levels), seed=int(seed))


def encode_prompts(items: list[ArithmeticProblem]) -> list[list[int]]:
    """Token ids of ``<bos>`` + each problem's prompt."""
    tok = tokenizer()
    return [tok.encode(p.prompt, bos=True) for p in items]


def training_batch(items: list[ArithmeticProblem], max_len: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(batch, seq) ids of prompt + scratchpad + eos and (batch, seq - 1) targets scoring the completion only."""
    tok = tokenizer()
    rows, tgts = [], []
    for p in items:
        pr = tok.encode(p.prompt, bos=True)
        co = tok.encode(p.scratchpad) + [tok.eos_id]
        seq = (pr + co)[:max_len]
        tgt = ([-100] * (len(pr) - 1) + co)[: len(seq) - 1]
        rows.append(seq)
        tgts.append(tgt)
    n = max(len(r) for r in rows)
    ids = torch.full((len(rows), n), tok.pad_id, dtype=torch.long)
    target = torch.full((len(rows), n - 1), -100, dtype=torch.long)
    for i, (r, t) in enumerate(zip(rows, tgts)):
        ids[i, : len(r)] = torch.tensor(r)
        target[i, : len(t)] = torch.tensor(t)
    return ids, target


def _cache_params(seed: int, cfg: PolicyConfig) -> dict:
    """Everything that determines the pretrained weights: the cache key of :func:`pretrain_policy`."""
    return {"seed": int(seed), **asdict(cfg), "alphabet": ALPHABET, "v": 2}


def cache_path(seed: int, cfg: PolicyConfig) -> Path:
    """Where :func:`pretrain_policy` caches the seed's weights (:mod:`icml26.core.cache`, namespace ``arith_policy``)."""
    from icml26.core.cache import cache_path as _cache_path

    return _cache_path("arith_policy", "policy", _cache_params(check_int("seed", seed, minimum=0), cfg), fmt="pt",
                       code=__name__)


def pretrain_policy(seed: int, cfg: PolicyConfig | None = None, *, cache: bool = True) -> TinyLM:
    """The seed's under-trained base policy (pretrained once, then read from the disk cache).

    :func:`icml26.nn.train.train_lm` with ``cfg.schedule`` and a warm-up of ``WARMUP`` steps
    (AdamW, weight decay 0.01, grad clip 1), on batches of ``cfg.batch`` problems drawn from a
    fixed pool of the seed's. ``cache=False`` always trains and never writes; a readable cache entry
    that does not fit the model (another shape) is rebuilt and overwritten.
    """
    from icml26.core.cache import cached
    from icml26.nn.train import train_lm

    seed = check_int("seed", seed, minimum=0)
    cfg = cfg or PolicyConfig()
    if not isinstance(cfg, PolicyConfig):
        raise TypeError(f"cfg must be a PolicyConfig, got {type(cfg).__name__}")
    tok = tokenizer()
    lm_cfg = LMConfig(vocab_size=tok.vocab_size, d_model=cfg.d_model, n_layers=cfg.n_layers, n_heads=cfg.n_heads,
                      max_len=cfg.max_len)
    model = TinyLM(lm_cfg)  # built before seeding on both paths (the global RNG moves as it always has)

    def build() -> dict:
        torch.manual_seed(seed)
        fresh = TinyLM(lm_cfg)
        pool = problems(20000, levels=cfg.levels, seed=10_000 + seed)

        def batch(gen: torch.Generator):
            idx = torch.randint(0, len(pool), (cfg.batch,), generator=gen).tolist()
            return training_batch([pool[i] for i in idx], cfg.max_len)

        train_lm(fresh, batch, steps=cfg.steps, lr=cfg.lr, warmup=WARMUP, seed=seed, schedule=cfg.schedule)
        return fresh.state_dict()

    if not cache:
        model.load_state_dict(build())
        return model.eval()
    state = cached("arith_policy", "policy", build, params=_cache_params(seed, cfg), fmt="pt")
    try:
        model.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError, AttributeError):  # a readable entry of another shape is rebuilt
        model.load_state_dict(cached("arith_policy", "policy", build, params=_cache_params(seed, cfg), fmt="pt",
                                     refresh=True))
    return model.eval()


def decode(ids: list[int]) -> str:
    """Text of token ids (special tokens dropped)."""
    return tokenizer().decode(ids)


def reward_fn(items: list[ArithmeticProblem], completions: list[list[int]]) -> list[float]:
    """Binary verifiable reward: 1 if the completion's final answer is exact, else 0."""
    tok = tokenizer()
    return [float(is_correct(tok.decode(c), p)) for p, c in zip(items, completions)]


@torch.no_grad()
def exact_match(model: torch.nn.Module, items: list[ArithmeticProblem]) -> np.ndarray:
    """Per-item 0/1 greedy exact match of ``model`` on ``items``."""
    from icml26.nn.lm import sample

    if not items:
        raise ValueError("items is empty")
    tok = tokenizer()
    prompts = encode_prompts(items)
    n_new = min(MAX_NEW, model.cfg.max_len - max(len(p) for p in prompts))
    gen = sample(model, prompts, n_new, greedy=True, eos_id=tok.eos_id, pad_id=tok.pad_id)
    return np.asarray(reward_fn(items, gen.as_lists()), dtype=float)
