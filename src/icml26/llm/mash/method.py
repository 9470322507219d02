"""MASH: pay-per-search rewards, the historical-minimum tracker, warm start and tool-less abstention.

MASH (Gul, Cardie & Goyal, arXiv:2510.01152) trains a search agent with GRPO on a reward that
pays for a correct answer and charges for every search beyond the cheapest correct trajectory
seen for that question; at inference the tool is removed and a search request is read as
"I don't know" (an abstention). This module is the algorithm, in the order of the paper's
pipeline; the simulated world lives in :mod:`.setting`.

Rewards (one GRPO group of G rollouts of one question; ``c_i`` exact match, ``n_i`` searches):

* ``m = min(min{n_i : c_i = 1}, m_hist)``, with ``m_hist`` the per-question minimum over all
  earlier groups (:class:`SearchMinTracker`, the authors' ``optimal_tool_call_tracker``);
  ``m = inf`` when nothing was ever correct (then every reward is 0).
* MASH, exponential penalty:     ``r_i = c_i * lambda ** (n_i - m)``  (lambda 0.5 single-hop, 0.8 multi-hop).
* OTC-GRPO (the efficient-search baseline):  ``f = 0`` if ``n = m = 0``; ``f = n`` if ``m = 0``;
  else ``f = 2 n m / (n + m)``; penalty 1 if ``f = 0``; ``cos(n pi / (2 n + N_max))`` if ``m = 0``;
  else ``sin(f pi / (2 m))``; ``r_i = c_i * penalty``.
* Search-R1: ``r_i = c_i`` (no search cost).

Warm start (paper Sec. 3, "synthetic data curation"): sample trajectories with diverse search
counts from the base model with the (noisy) tool, keep the correct ones, balance 0/1/2
searches per question, and fine-tune on them with retrieved tokens masked from the loss; no
knowledge-boundary labels are used. Abstention metrics: each question's answerability is the
number of correct answers among 10 closed-book samples of the base model; ``Abs(k)`` is the
abstention rate among questions with answerability ``k``; ``Delta = Abs(0) - Abs(10)``.

The abstention baselines that *do* need boundary labels (AFH-style SFT and DPO) are here too,
as :func:`label_sft` and :func:`label_dpo`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from icml26.core.validate import as_vector, check_int, check_positive

PENALTIES = ("mash", "otc", "none")


# ----------------------------------------------------------------------------- rewards
def _group(correct, n_searches) -> tuple[np.ndarray, np.ndarray]:
    c = as_vector("correct", correct)
    n = as_vector("n_searches", n_searches, length=c.size)
    if not np.all((c == 0) | (c == 1)):
        raise ValueError("correct must hold 0/1 values")
    if np.any(n < 0) or np.any(n != np.round(n)):
        raise ValueError("n_searches must hold non-negative integers")
    return c, n


def group_minimum(correct, n_searches, m_hist: float = math.inf) -> float:
    """``m``: the fewest searches of a correct rollout in the group, min-ed with the historical minimum."""
    c, n = _group(correct, n_searches)
    if not (isinstance(m_hist, (int, float)) and not math.isnan(m_hist) and m_hist >= 0):
        raise ValueError(f"m_hist must be a number >= 0 (inf for none), got {m_hist!r}")
    m = float(n[c == 1].min()) if (c == 1).any() else math.inf
    return min(m, float(m_hist))


def exponential_penalty(correct, n_searches, *, lam: float, m_hist: float = math.inf) -> np.ndarray:
    """MASH's reward ``c * lam ** (n - m)`` for one group (G,), 0 for incorrect rollouts."""
    lam = check_positive("lam", lam)
    if lam > 1:
        raise ValueError(f"lam must lie in (0, 1], got {lam}")
    c, n = _group(correct, n_searches)
    m = group_minimum(c, n, m_hist)
    if math.isinf(m):
        return np.zeros_like(c)
    return c * lam ** np.maximum(n - m, 0.0)


def otc_penalty(correct, n_searches, *, n_max: int, m_hist: float = math.inf) -> np.ndarray:
    """OTC-GRPO's reward ``c * penalty(n, m)`` for one group (G,) (the efficient-search baseline)."""
    n_max = check_int("n_max", n_max, minimum=1)
    c, n = _group(correct, n_searches)
    m = group_minimum(c, n, m_hist)
    if math.isinf(m):
        return np.zeros_like(c)
    out = np.zeros_like(c)
    for i, (ci, ni) in enumerate(zip(c, n)):
        if ci == 0:
            continue
        if ni == 0 and m == 0:
            f = 0.0
        elif m == 0:
            f = ni
        else:
            f = 2 * ni * m / (ni + m)
        if f == 0:
            pen = 1.0
        elif m == 0:
            pen = math.cos(ni * math.pi / (2 * ni + n_max))
        else:
            pen = math.sin(f * math.pi / (2 * m))
        out[i] = pen
    return out


def no_penalty(correct, n_searches) -> np.ndarray:
    """Search-R1's outcome reward: exact match, searches free."""
    c, _ = _group(correct, n_searches)
    return c.copy()


@dataclass
class SearchMinTracker:
    """Per-question running minimum of the searches a correct rollout needed (``inf`` before any)."""

    best: dict = field(default_factory=dict)

    def get(self, key) -> float:
        return self.best.get(key, math.inf)

    def update(self, key, correct, n_searches) -> float:
        m = group_minimum(correct, n_searches, self.get(key))
        if not math.isinf(m):
            self.best[key] = m
        return m


def group_rewards(penalty: str, correct, n_searches, *, lam: float = 0.5, n_max: int = 3,
                  m_hist: float = math.inf) -> np.ndarray:
    """Dispatch to the three rewards (``penalty`` in ``PENALTIES``)."""
    if penalty not in PENALTIES:
        raise ValueError(f"penalty must be one of {PENALTIES}, got {penalty!r}")
    if penalty == "mash":
        return exponential_penalty(correct, n_searches, lam=lam, m_hist=m_hist)
    if penalty == "otc":
        return otc_penalty(correct, n_searches, n_max=n_max, m_hist=m_hist)
    return no_penalty(correct, n_searches)


# ----------------------------------------------------------------------------- abstention metrics
def abstention_metrics(abstained, answerability, *, n_samples: int = 10) -> dict[str, float]:
    """Abstention rates by answerability bucket and Delta.

    ``abstained`` (Q,) 0/1; ``answerability`` (Q,) integers in 0..n_samples. Returns ``abs0``
    (rate on questions with answerability 0), ``abs_full`` (rate on n_samples/n_samples),
    ``delta = abs0 - abs_full`` (NaN when a bucket is empty), and ``delta_fit``: the same
    difference read off a least-squares line of abstention on answerability / n_samples
    (uses every question; the estimate we decide on, since the end buckets are small here).
    """
    n_samples = check_int("n_samples", n_samples, minimum=1)
    a = as_vector("abstained", abstained)
    k = as_vector("answerability", answerability, length=a.size)
    if np.any((k < 0) | (k > n_samples)):
        raise ValueError(f"answerability must lie in 0..{n_samples}")
    lo, hi = a[k == 0], a[k == n_samples]
    abs0 = float(lo.mean()) if lo.size else float("nan")
    abs_full = float(hi.mean()) if hi.size else float("nan")
    x = k / n_samples
    slope = float(np.polyfit(x, a, 1)[0]) if np.ptp(x) > 0 else float("nan")
    return {"abs0": abs0, "abs_full": abs_full, "delta": abs0 - abs_full, "delta_fit": -slope,
            "abstain_rate": float(a.mean()), "n0": float(lo.size), "n_full": float(hi.size)}


def search_profile(n_searches, *, n_max: int = 3) -> dict[str, float]:
    """Share of each search count, the modal share (>= 0.9: a degenerate always/never-search policy) and entropy."""
    n_max = check_int("n_max", n_max, minimum=1)
    n = as_vector("n_searches", n_searches)
    share = np.array([(n == j).mean() for j in range(n_max + 1)])
    p = share[share > 0]
    return {"modal_share": float(share.max()), "entropy": float(-(p * np.log(p)).sum()),
            **{f"share{j}": float(share[j]) for j in range(n_max + 1)}}


# ----------------------------------------------------------------------------- warm start and SFT
@dataclass(frozen=True)
class Trace:
    """One training sequence: prompt ids, completion ids and the completion's loss mask."""

    prompt: tuple[int, ...]
    completion: tuple[int, ...]
    mask: tuple[bool, ...]
    n_searches: int = 0


def select_warm_start(rollouts: Sequence, correct: Sequence[bool], keys: Sequence, *, counts=(0, 1, 2)) -> list[Trace]:
    """The warm-start set: per question, at most one *correct* rollout of each search count in ``counts``.

    ``rollouts`` are :class:`icml26.tasks.search.Rollout`; ``keys`` name each rollout's question.
    Balancing search counts per question (not by knowledge) is what gives RL its exploration.
    """
    if len(rollouts) != len(correct) or len(rollouts) != len(keys):
        raise ValueError("rollouts, correct and keys must have the same length")
    if not rollouts:
        raise ValueError("rollouts is empty")
    seen: set = set()
    out: list[Trace] = []
    for r, ok, key in zip(rollouts, correct, keys):
        if not ok or r.n_searches not in counts or (key, r.n_searches) in seen:
            continue
        seen.add((key, r.n_searches))
        out.append(Trace(tuple(r.prompt), tuple(r.completion), tuple(bool(b) for b in r.loss_mask), r.n_searches))
    return out


def _masked_logprob(model, traces: Sequence[Trace]) -> tuple[torch.Tensor, torch.Tensor]:
    from icml26.nn.lm import token_logprobs

    lp, m = token_logprobs(model, [list(t.prompt) for t in traces], [list(t.completion) for t in traces])
    extra = torch.zeros_like(m)
    for i, t in enumerate(traces):
        extra[i, :len(t.mask)] = torch.as_tensor(t.mask, dtype=torch.bool)
    return lp, m & extra


def sft(model, traces: Sequence[Trace], *, steps: int, lr: float = 1e-3, batch: int = 16, seed: int = 0) -> list[float]:
    """Supervised fine-tuning on ``traces`` (masked tokens excluded); returns the loss per step. In place.

    The loop is the shared :func:`icml26.alignment._dpo.train_loop` (batches drawn with replacement,
    Adam, gradient norm clipped at 1)."""
    from icml26.alignment._dpo import train_loop

    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    lr = check_positive("lr", lr)
    if not traces:
        raise ValueError("traces is empty")

    def loss_fn(idx: torch.Tensor, progress: float) -> torch.Tensor:
        lp, m = _masked_logprob(model, [traces[i] for i in idx.tolist()])
        return -(lp * m).sum() / m.sum().clamp(min=1)

    return train_loop(model, len(traces), loss_fn, steps=steps, batch=batch, lr=lr, seed=seed, sampler="replacement",
                      optimizer="adam", grad_clip=1.0)


# ----------------------------------------------------------------------------- abstention baselines with labels
def label_sft(model, answer_traces: Sequence[Trace], abstain_traces: Sequence[Trace], known: Sequence[bool], *,
              steps: int, lr: float = 1e-3, batch: int = 16, seed: int = 0) -> list[float]:
    """AFH-style SFT: answer where the (estimated) boundary label says known, emit the abstain action elsewhere."""
    if not (len(answer_traces) == len(abstain_traces) == len(known)):
        raise ValueError("answer_traces, abstain_traces and known must have the same length")
    targets = [a if k else b for a, b, k in zip(answer_traces, abstain_traces, known)]
    return sft(model, targets, steps=steps, lr=lr, batch=batch, seed=seed)


def label_dpo(model, answer_traces: Sequence[Trace], abstain_traces: Sequence[Trace], known: Sequence[bool], *,
              steps: int, lr: float = 1e-3, beta: float = 0.1, batch: int = 16, seed: int = 0) -> list[float]:
    """DPO on boundary labels: chosen = answer if known else abstain, rejected = the other; reference = the start.

    The shared :func:`icml26.alignment._dpo.train_preference` (reference log-probabilities per batch,
    the traces' loss masks applied, batches drawn with replacement, Adam, norm clipped at 1). In place."""
    from icml26.alignment._dpo import train_preference

    steps = check_int("steps", steps, minimum=1)
    beta = check_positive("beta", beta)
    if not (len(answer_traces) == len(abstain_traces) == len(known)) or not known:
        raise ValueError("answer_traces, abstain_traces and known must be non-empty and of the same length")
    ref = copy.deepcopy(model).eval()
    chosen = [a if k else b for a, b, k in zip(answer_traces, abstain_traces, known)]
    rejected = [b if k else a for a, b, k in zip(answer_traces, abstain_traces, known)]
    return train_preference(model, [t.prompt for t in chosen], [t.completion for t in chosen],
                            [t.completion for t in rejected], rejected_prompts=[t.prompt for t in rejected],
                            chosen_masks=[t.mask for t in chosen], rejected_masks=[t.mask for t in rejected],
                            reference=ref, reference_per_batch=True, loss="dpo", beta=beta, steps=steps, batch=batch,
                            lr=check_positive("lr", lr), seed=seed, sampler="replacement", optimizer="adam",
                            grad_clip=1.0)


# ----------------------------------------------------------------------------- GRPO with a pay-per-search reward
@dataclass
class RLConfig:
    """The RL knobs (paper: G = 16, 64 prompts, lr 1e-6, clip 0.2, KL 0, one PPO epoch, <= 5 searches)."""

    penalty: str = "mash"
    steps: int = 20
    prompts: int = 8
    group: int = 8
    lr: float = 5e-4
    lam_single: float = 0.5
    lam_multi: float = 0.8
    helper_p: float = 0.8
    helper: str = "noisy"  # "oracle": the always-correct helper of the helper-noise ablation (helper_p unused)
    max_searches: int = 3
    temperature: float = 1.0

    def __post_init__(self) -> None:
        if self.penalty not in PENALTIES:
            raise ValueError(f"penalty must be one of {PENALTIES}, got {self.penalty!r}")
        for name in ("steps", "prompts", "max_searches"):
            check_int(name, getattr(self, name), minimum=1)
        check_int("group", self.group, minimum=2)
        check_positive("lr", self.lr)
        check_positive("temperature", self.temperature)
        for name in ("lam_single", "lam_multi"):
            v = check_positive(name, getattr(self, name))
            if v > 1:
                raise ValueError(f"{name} must lie in (0, 1], got {v}")
        if not (0 <= self.helper_p <= 1):
            raise ValueError(f"helper_p must lie in [0, 1], got {self.helper_p!r}")
        if self.helper not in ("noisy", "oracle"):
            raise ValueError(f"helper must be 'noisy' or 'oracle', got {self.helper!r}")


@dataclass
class RLHistory:
    reward: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    searches: list[float] = field(default_factory=list)

    def gain(self, name: str = "reward") -> float:
        """Mean of the second half of the steps minus mean of the first half (per-step values are noisy)."""
        x = np.asarray(getattr(self, name), dtype=float)
        h = max(1, x.size // 2)
        return float(x[-h:].mean() - x[:h].mean())


def train_search_rl(model, world, questions: Sequence, cfg: RLConfig, *, seed: int = 0) -> RLHistory:
    """GRPO on multi-turn search episodes with the reward ``cfg.penalty`` (in place); retrieved tokens masked.

    Each step draws ``cfg.prompts`` questions, samples ``cfg.group`` episodes each with the
    helper (``cfg.helper``: noisy with ``cfg.helper_p``, or the oracle), scores them with exact match and the group's pay-per-search reward (historical
    minimum tracked per question), and takes one clipped-surrogate step (KL coefficient 0).
    """
    from icml26.llm.mash.setting import make_helper, question_key
    from icml26.nn.rl import GRPOConfig, grpo_update
    from icml26.tasks.kb import answer_matches
    from icml26.tasks.search import rollout

    if not isinstance(cfg, RLConfig):
        raise TypeError(f"cfg must be an RLConfig, got {type(cfg).__name__}")
    if not questions:
        raise ValueError("questions is empty")
    g = cfg.group
    gcfg = GRPOConfig(group_size=g, lr=cfg.lr, beta=0.0, eps_low=0.2, max_new=model.cfg.max_len,
                      pad_id=world.tokenizer.pad_id)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    rng = np.random.default_rng(int(seed))  # question draws only: every arm with this seed sees the same questions
    gen = torch.Generator().manual_seed(int(seed))
    # the noisy helper's own generator (fourth session, review: it shared ``rng`` with the question draws, so an
    # arm's question order after step 1 depended on how many searches it had made)
    helper = make_helper(world, cfg.helper, cfg.helper_p, np.random.default_rng([int(seed), 1]))
    tracker = SearchMinTracker()
    hist = RLHistory()
    for _ in range(cfg.steps):
        batch = [questions[int(i)] for i in rng.choice(len(questions), size=min(cfg.prompts, len(questions)),
                                                        replace=False)]
        rep = [q for q in batch for _ in range(g)]
        rs = rollout(model, world, rep, search_fn=helper, max_searches=cfg.max_searches,
                     temperature=cfg.temperature, generator=gen)
        correct = np.array([answer_matches(r.answer or "", q) for r, q in zip(rs, rep)], dtype=float)
        n = np.array([r.n_searches for r in rs], dtype=float)
        rewards = np.zeros(len(rs))
        for j, q in enumerate(batch):
            sl = slice(j * g, (j + 1) * g)
            key = question_key(q)
            lam = cfg.lam_single if q.hops == 1 else cfg.lam_multi
            rewards[sl] = group_rewards(cfg.penalty, correct[sl], n[sl], lam=lam, n_max=cfg.max_searches,
                                        m_hist=tracker.get(key))
            tracker.update(key, correct[sl], n[sl])
        keep = [i for i, r in enumerate(rs) if r.completion]
        if len(keep) == len(rs):
            grpo_update(model, None, opt, [r.prompt for r in rs], [r.completion for r in rs],
                        torch.as_tensor(rewards, dtype=torch.float32), gcfg, loss_mask=[r.loss_mask for r in rs])
        hist.reward.append(float(rewards.mean()))
        hist.accuracy.append(float(correct.mean()))
        hist.searches.append(float(n.mean()))
    model.eval()
    return hist


@torch.no_grad()
def heldout_reward(model, world, questions: Sequence, cfg: RLConfig, *, seed: int = 0) -> dict[str, float]:
    """The RL objective measured on fixed prompts and a fixed sampling stream (the training gate).

    ``cfg.group`` episodes per question (temperature ``cfg.temperature``, the helper of ``cfg``),
    scored with ``cfg.penalty``'s group reward *without* the historical minimum (it would make
    before/after incomparable). The sampling generator and the helper's noise are seeded by
    ``seed`` alone, so calling this before and after training with the same ``seed`` compares the
    two policies on the same prompts and random stream. Returns the mean reward (``reward``, and
    ``reward_<penalty>`` for each of ``PENALTIES`` on the same episodes), accuracy, searches and
    format rate (an answer was given), and the accuracy of the episodes that searched / did not search
    (``acc_searched``, ``acc_nosearch``, NaN when there are none) with the modal search-count share
    (``modal_share``; fourth session, for the premise gates).
    """
    from icml26.llm.mash.setting import make_helper
    from icml26.tasks.kb import answer_matches
    from icml26.tasks.search import rollout

    if not isinstance(cfg, RLConfig):
        raise TypeError(f"cfg must be an RLConfig, got {type(cfg).__name__}")
    if not questions:
        raise ValueError("questions is empty")
    g = cfg.group
    rep = [q for q in questions for _ in range(g)]
    rs = rollout(model, world, rep, search_fn=make_helper(world, cfg.helper, cfg.helper_p, int(seed) + 1),
                 max_searches=cfg.max_searches, temperature=cfg.temperature,
                 generator=torch.Generator().manual_seed(int(seed)))
    correct = np.array([answer_matches(r.answer or "", q) for r, q in zip(rs, rep)], dtype=float)
    n = np.array([r.n_searches for r in rs], dtype=float)
    out = {}
    for pen in PENALTIES:
        out[f"reward_{pen}"] = float(np.concatenate([
            group_rewards(pen, correct[j * g:(j + 1) * g], n[j * g:(j + 1) * g],
                          lam=cfg.lam_single if q.hops == 1 else cfg.lam_multi, n_max=cfg.max_searches)
            for j, q in enumerate(questions)]).mean())
    searched = n > 0
    return {"reward": out[f"reward_{cfg.penalty}"], **out, "accuracy": float(correct.mean()),
            "searches": float(n.mean()), "format_ok": float(np.mean([r.answer is not None for r in rs])),
            "acc_searched": float(correct[searched].mean()) if searched.any() else float("nan"),
            "acc_nosearch": float(correct[~searched].mean()) if (~searched).any() else float("nan"),
            "modal_share": search_profile(n, n_max=cfg.max_searches)["modal_share"]}
