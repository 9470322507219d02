"""The simulated world of the CAMEL reproduction: a pairwise judge over arithmetic answers.

Each item is a verifiable arithmetic problem from :mod:`icml26.tasks.arithmetic` with two
candidate answers, exactly one of them correct; the judge must say which one (``A`` or
``B``). It stands in for a reward-model benchmark item (query, response A, response B, gold
preference).

Text format (one character per token, :func:`tokenizer`)::

    prompt      <bos>7+5*3=36|37>          expression, candidate A, candidate B, the verdict mark
    verdict     A                          the single verdict token v0 (fast mode stops here)
    reflection  7+5=12;12*3=36;#36>a<eos>  a scratchpad that recomputes the answer, then v1 (a or b)

The distractor is the correct answer plus an offset whose size sets the difficulty (an offset
of 1 cannot be ruled out without doing the arithmetic; an offset of 10 often can be from the
last digit or the magnitude). Supervised traces open with the gold verdict (as traces distilled
from a correct teacher would), except the revision traces of :func:`sft_batch`, which open with
the wrong verdict as unscored context before the gold reflection.

Public: :class:`JudgeItem`, :func:`tokenizer`, :func:`make_items`, :func:`prompt_text`,
:func:`reflection_text`, :func:`encode_prompts`, :func:`sft_batch`, :func:`final_verdict`,
:func:`new_judge`, :func:`answer_text`, :func:`preference_pairs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from icml26.core.validate import as_rng, check_int
from icml26.nn.tokenize import Tokenizer, train_tokenizer
from icml26.nn.transformer import LMConfig, TinyLM
from icml26.tasks.arithmetic import ArithmeticProblem, arithmetic_problems

ALPHABET = "0123456789+-*=;#|>ABab"
VERDICTS = ("A", "B")
FINAL = ("a", "b")  # the final verdict is written with its own tokens (like a closing "[[A]]" tag)
OFFSETS = (1, 2, 3, 10, 20)
MAX_REFLECT = 30  # longest reflection (scratchpad + '>' + verdict + eos) at levels 1-2


@dataclass(frozen=True)
class JudgeItem:
    """One pairwise judgement: ``problem`` with candidates ``(a, b)``; ``label`` 0 if A is correct, 1 if B."""

    problem: ArithmeticProblem
    candidates: tuple[int, int]
    label: int

    @property
    def offset(self) -> int:
        return abs(self.candidates[0] - self.candidates[1])


@lru_cache(maxsize=1)
def tokenizer() -> Tokenizer:
    """Character tokenizer over digits, operators, the scratchpad marks and the two verdict letters."""
    return train_tokenizer([ALPHABET], kind="char", vocab_size=32, normalizer=None)


def verdict_ids() -> tuple[int, int]:
    """Token ids of ``A`` and ``B``."""
    tok = tokenizer()
    return tok.encode("A")[0], tok.encode("B")[0]


def make_items(n: int, *, levels: tuple[int, ...] = (1, 2), offsets: tuple[int, ...] = OFFSETS,
               seed: int | np.random.Generator = 0) -> list[JudgeItem]:
    """``n`` judge items: problems over ``levels``, distractor = answer +- an offset from ``offsets``."""
    n = check_int("n", n, minimum=1)
    if not offsets or any(check_int("offsets", o, minimum=1) < 1 for o in offsets):
        raise ValueError("offsets must be a non-empty tuple of positive integers")
    rng = as_rng("seed", seed)
    probs = arithmetic_problems(n, level=tuple(levels), seed=int(rng.integers(0, 2**31)))
    out = []
    for p in probs:
        off = int(offsets[int(rng.integers(0, len(offsets)))]) * (1 if rng.random() < 0.5 else -1)
        wrong = p.answer + off
        label = int(rng.random() < 0.5)
        cands = (wrong, p.answer) if label else (p.answer, wrong)
        out.append(JudgeItem(p, cands, label))
    return out


def prompt_text(item: JudgeItem) -> str:
    """``expr=a|b>``: the judge's prompt, after which comes the verdict token."""
    return f"{item.problem.prompt}{item.candidates[0]}|{item.candidates[1]}>"


def reflection_text(item: JudgeItem) -> str:
    """The supervised reflection: the scratchpad recomputing the answer, ``>`` and the gold verdict."""
    return f"{item.problem.scratchpad}>{FINAL[item.label]}"


def answer_text(item: JudgeItem, k: int) -> str:
    """``expr=answer`` with candidate ``k`` (0 = A, 1 = B): one response as a scalar reward model reads it."""
    if not isinstance(item, JudgeItem):
        raise TypeError(f"item must be a JudgeItem, got {type(item).__name__}")
    if k not in (0, 1) or isinstance(k, bool):
        raise ValueError(f"k must be 0 (A) or 1 (B), got {k!r}")
    return f"{item.problem.prompt}{item.candidates[k]}"


def preference_pairs(items: list[JudgeItem]) -> tuple[list[str], list[str]]:
    """(chosen, rejected) texts of ``items``: the correct and the wrong answer (the pairs as BT preference data)."""
    if not isinstance(items, (list, tuple)) or not items:
        raise ValueError("items must be a non-empty list of JudgeItem")
    return ([answer_text(it, it.label) for it in items], [answer_text(it, 1 - it.label) for it in items])


def encode_prompts(items: list[JudgeItem], prefixes: list[int] | np.ndarray | None = None) -> list[list[int]]:
    """Token ids of ``<bos>`` + prompt, followed by the verdict token ``prefixes[i]`` (0 = A, 1 = B) if given."""
    tok = tokenizer()
    ids = verdict_ids()
    rows = [tok.encode(prompt_text(it), bos=True) for it in items]
    if prefixes is not None:
        if len(prefixes) != len(items):
            raise ValueError(f"prefixes must have one entry per item: {len(prefixes)} vs {len(items)}")
        rows = [r + [ids[int(v)]] for r, v in zip(rows, prefixes)]
    return rows


@lru_cache(maxsize=1 << 16)
def _trace_ids(item: JudgeItem) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Ids of ``<bos>`` + prompt, of gold verdict + reflection + eos and of wrong verdict + reflection + eos.

    Memoised: SFT draws the same items many times (a speed-up only; the ids are those encoded before).
    """
    tok = tokenizer()
    pr = tok.encode(prompt_text(item), bos=True)
    gold, bad = (tok.encode(VERDICTS[v] + reflection_text(item)) + [tok.eos_id] for v in (item.label, 1 - item.label))
    return tuple(pr), tuple(gold), tuple(bad)


def sft_batch(items: list[JudgeItem], max_len: int,
              revise: list[bool] | np.ndarray | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(batch, seq) ids of the gold trace (prompt, gold v0, reflection, eos) and (batch, seq - 1) targets.

    Targets score the verdict token, the reflection and eos; the prompt is context only. Where
    ``revise[i]`` is true the trace opens with the wrong verdict instead, which is context only
    (not scored), and the same gold reflection follows: a revision trace, which teaches the
    scratchpad to recompute the answer whatever the opening, never to open wrongly.
    """
    tok = tokenizer()
    if revise is not None and len(revise) != len(items):
        raise ValueError(f"revise must have one entry per item: {len(revise)} vs {len(items)}")
    rows, tgts = [], []
    for i, it in enumerate(items):
        pr, gold, bad = _trace_ids(it)
        wrong = bool(revise[i]) if revise is not None else False
        co = list(bad if wrong else gold)
        seq = (list(pr) + co)[:max_len]
        rows.append(seq)
        tgt = [-100] * (len(pr) - 1) + co
        if wrong:
            tgt[len(pr) - 1] = -100
        tgts.append(tgt[: len(seq) - 1])
    n = max(len(r) for r in rows)
    ids = np.full((len(rows), n), tok.pad_id, dtype=np.int64)
    target = np.full((len(rows), n - 1), -100, dtype=np.int64)
    for i, (r, t) in enumerate(zip(rows, tgts)):
        ids[i, : len(r)] = r
        target[i, : len(t)] = t
    return torch.from_numpy(ids), torch.from_numpy(target)


def final_verdict(completion: list[int]) -> int:
    """The final verdict of a reflection's token ids: 0 (a) or 1 (b) after the last ``>``, else -1 (no verdict)."""
    text = tokenizer().decode(completion)
    if ">" not in text:
        return -1
    tail = text.rsplit(">", 1)[1]
    return FINAL.index(tail[0]) if tail[:1] in FINAL else -1


def new_judge(*, d_model: int = 48, n_layers: int = 2, n_heads: int = 4, max_len: int = 64, seed: int = 0) -> TinyLM:
    """A fresh TinyLM judge over :func:`tokenizer`'s vocabulary."""
    torch.manual_seed(check_int("seed", seed, minimum=0))
    return TinyLM(LMConfig(vocab_size=tokenizer().vocab_size, d_model=d_model, n_layers=n_layers,
                           n_heads=n_heads, max_len=max_len))
