"""InfoReasoner's information-gain reward (arXiv:2602.00845), in exact and practical form.

**Theory (the paper's Section on semantic information gain).** An agent holds a belief
b_t over semantic answer classes c. An observation o_t (retrieved evidence) drawn from a
channel P(o | c) updates the belief by Bayes; the information gain of step t is the expected
entropy reduction

    IG_t = E_{o_<t} [ H(b_{t-1}) - E_{o_t | o_<t} H(b_t) ]  =  I(C; O_t | O_<t) >= 0,

so (i) it is non-negative, (ii) it telescopes, sum_t IG_t = H(b_0) - E H(b_T), and (iii) a
garbled channel (P(o | c) composed with any stochastic matrix) gives no more IG (the
data-processing inequality). :func:`expected_information_gain`, :func:`step_information_gains`
and :func:`garble` compute these exactly on discrete distributions.

**Practical estimator (the paper's reward; the authors' IG service).** For a question q
with gold aliases, a frozen reader samples N short answers a_i with and without the
retrieved context C. With w_i = softmax_i(mean token log-prob of a_i), the *soft* score is
the probability mass on the gold semantic class,

    S(C) = max_{gold alias g} sum_i w_i * max(e(a_i => g), e(g => a_i)),

where e is an entailment probability (the paper: DeBERTa-MNLI; here an alias table, i.e.
exact semantic equivalence, or a thresholded sentence-embedding cosine,
:func:`cosine_entailment`, the labelled substitute for an NLI model that does not ship offline;
or any callable). The *hard* score clusters the answers by
bidirectional entailment and sums the (normalised) likelihood mass of the clusters that
match gold. The shaped trajectory reward is

    Delta IG = S(C) - S(empty)        (or the log-ratio log S(C) - log S(empty))
    R = EM(answer, gold) + 0.6 * Delta IG   if the trajectory retrieved anything, else EM.

:func:`soft_gold_mass`, :func:`hard_gold_mass`, :func:`delta_ig` and
:func:`inforeasoner_reward` implement these; :func:`shuffled_bonus` and
:func:`answer_in_context_bonus` are the two reward controls of our reproduction, and
:func:`auroc` scores how well a bonus ranks useful searches.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from icml26.core.validate import as_rng, as_vector, check_finite, check_positive


def _vec(name: str, x: object, length: int | None = None) -> np.ndarray:
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array of numbers, got {type(x).__name__}")
    return as_vector(name, x, length)

Entail = Callable[[str, str], float]


# ----------------------------------------------------------------------------- exact theory
def _as_distribution(name: str, p: object) -> np.ndarray:
    v = _vec(name, p)
    if np.any(v < 0) or abs(v.sum() - 1.0) > 1e-8:
        raise ValueError(f"{name} must be a probability vector (non-negative, summing to 1)")
    return v


def _as_channel(name: str, channel: object, k: int | None = None) -> np.ndarray:
    if isinstance(channel, str) or channel is None:
        raise TypeError(f"{name} must be a (classes, observations) array, got {type(channel).__name__}")
    m = np.asarray(channel, dtype=float)
    if m.ndim != 2 or m.size == 0:
        raise ValueError(f"{name} must be a non-empty (classes, observations) matrix, got shape {m.shape}")
    check_finite(name, m)
    if k is not None and m.shape[0] != k:
        raise ValueError(f"{name} must have {k} rows (one per class), got {m.shape[0]}")
    if np.any(m < 0) or np.any(np.abs(m.sum(1) - 1.0) > 1e-8):
        raise ValueError(f"{name} rows must be probability vectors P(o | c)")
    return m


def entropy(p: object) -> float:
    """Shannon entropy in nats of a probability vector (0 log 0 = 0)."""
    v = _as_distribution("p", p)
    nz = v[v > 0]
    return float(-(nz * np.log(nz)).sum())


def _h(v: np.ndarray) -> float:
    nz = v[v > 0]
    return float(-(nz * np.log(nz)).sum())


def expected_information_gain(prior: object, channel: object) -> float:
    """H(b_0) - E_o H(b_1) for prior b_0 (K,) and channel P(o | c) (K, M): the mutual information I(C; O)."""
    b0 = _as_distribution("prior", prior)
    ch = _as_channel("channel", channel, b0.size)
    joint = b0[:, None] * ch
    po = joint.sum(0)
    post = sum(po[o] * _h(joint[:, o] / po[o]) for o in range(ch.shape[1]) if po[o] > 0)
    return _h(b0) - float(post)


def step_information_gains(prior: object, channels: Sequence[object]) -> tuple[np.ndarray, float]:
    """Per-step expected information gains IG_1..IG_T of observations o_t ~ channels[t] (independent given c).

    Enumerates every observation history. Returns ``(ig, expected_final_entropy)`` with ``ig``
    of shape (T,) and E H(b_T) computed directly from the joint law of (c, o_1..o_T), so that
    the telescoping identity sum(ig) = H(b_0) - E H(b_T) is a check, not a tautology.
    """
    b0 = _as_distribution("prior", prior)
    if isinstance(channels, (str, np.ndarray)) or not isinstance(channels, Sequence) or not channels:
        raise ValueError("channels must be a non-empty list of (classes, observations) matrices")
    chs = [_as_channel(f"channels[{t}]", c, b0.size) for t, c in enumerate(channels)]
    ig = np.zeros(len(chs))
    # belief recursion: histories with their probabilities and beliefs
    states = [(1.0, b0)]
    for t, ch in enumerate(chs):
        nxt = []
        for p_hist, b in states:
            gain = _h(b)
            joint = b[:, None] * ch
            po = joint.sum(0)
            for o in range(ch.shape[1]):
                if po[o] <= 0:
                    continue
                b1 = joint[:, o] / po[o]
                gain -= po[o] * _h(b1)
                nxt.append((p_hist * po[o], b1))
            ig[t] += p_hist * gain
        states = nxt
    # E H(b_T) from the joint over full histories (no recursion)
    final = 0.0
    for hist in itertools.product(*[range(c.shape[1]) for c in chs]):
        lik = b0.copy()
        for ch, o in zip(chs, hist):
            lik = lik * ch[:, o]
        z = lik.sum()
        if z > 0:
            final += z * _h(lik / z)
    return ig, float(final)


def garble(channel: object, post: object) -> np.ndarray:
    """The garbled channel P(o' | c) = sum_o P(o | c) M(o, o') for a row-stochastic ``post`` (M, M')."""
    ch = _as_channel("channel", channel)
    m = _as_channel("post", post)
    if m.shape[0] != ch.shape[1]:
        raise ValueError(f"post must have {ch.shape[1]} rows (one per observation), got {m.shape[0]}")
    return ch @ m


# ----------------------------------------------------------------------------- practical estimator
def _norm(text: str) -> str:
    from icml26.tasks.kb import words

    return " ".join(words(text))


def _texts(name: str, xs: object) -> list[str]:
    if isinstance(xs, str) or not isinstance(xs, Sequence) or not all(isinstance(x, str) for x in xs):
        raise TypeError(f"{name} must be a list of strings")
    if not xs:
        raise ValueError(f"{name} is empty")
    return list(xs)


def alias_entailment(gold_aliases: Sequence[str]) -> Entail:
    """Entailment by the alias table: e(x => y) = 1 if x and y name the same gold entity (exact semantic
    equivalence after normalisation), or if they are the same string; 0 otherwise."""
    gold = {_norm(a) for a in _texts("gold_aliases", gold_aliases)}

    def e(x: str, y: str) -> float:
        nx, ny = _norm(x), _norm(y)
        return float(nx == ny or (nx in gold and ny in gold))

    return e


def cosine_entailment(embed: Callable[[Sequence[str]], object], threshold: float) -> Entail:
    """Entailment by embedding cosine: e(x => y) = 1 if cos(embed(x), embed(y)) >= ``threshold``, else 0.

    The substitute for an NLI model (the paper's DeBERTa-MNLI) when only a sentence encoder is available
    offline (here MiniLM through :mod:`icml26.nn.sentence`). Cosine is symmetric, so both directions of the
    paper's max(e(a => g), e(g => a)) agree; identical strings always entail each other. ``embed`` maps a list
    of n strings to an (n, d) array (any scale: vectors are normalised here).
    """
    if not callable(embed):
        raise TypeError(f"embed must be a callable (list of texts) -> (n, d) array, got {type(embed).__name__}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating, np.integer)):
        raise TypeError(f"threshold must be a number, got {type(threshold).__name__}")
    threshold = float(threshold)
    if not np.isfinite(threshold) or not -1.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a cosine in [-1, 1], got {threshold}")

    def e(x: str, y: str) -> float:
        if x == y:
            return 1.0
        v = np.asarray(embed([x, y]), dtype=float)
        if v.ndim != 2 or v.shape[0] != 2:
            raise ValueError(f"embed must return a (2, d) array for two texts, got shape {v.shape}")
        n = np.linalg.norm(v, axis=1)
        if np.any(n == 0):
            return 0.0
        return float(v[0] @ v[1] / (n[0] * n[1]) >= threshold - 1e-12)

    return e


def _weights(answers: object, mean_logprobs: object) -> tuple[list[str], np.ndarray]:
    ans = _texts("answers", answers)
    lp = _vec("mean_logprobs", mean_logprobs, len(ans))
    w = np.exp(lp - lp.max())
    return ans, w / w.sum()


def soft_gold_mass(answers: Sequence[str], mean_logprobs: object, gold_aliases: Sequence[str], *,
                   entail: Entail | None = None) -> float:
    """S = max_g sum_i w_i max(e(a_i => g), e(g => a_i)), w = softmax(mean_logprobs). In [0, 1]."""
    ans, w = _weights(answers, mean_logprobs)
    gold = _texts("gold_aliases", gold_aliases)
    e = entail or alias_entailment(gold)
    if not callable(e):
        raise TypeError("entail must be a callable (text, text) -> probability")
    best = 0.0
    for g in gold:
        s = sum(wi * max(float(e(a, g)), float(e(g, a))) for a, wi in zip(ans, w))
        best = max(best, s)
    return float(min(best, 1.0))


def hard_gold_mass(answers: Sequence[str], mean_logprobs: object, gold_aliases: Sequence[str], *,
                   entail: Entail | None = None, threshold: float = 0.5) -> float:
    """Cluster the answers by bidirectional entailment (> ``threshold`` both ways; connected components)
    and sum the normalised likelihood mass of the clusters that bidirectionally entail a gold alias."""
    ans, w = _weights(answers, mean_logprobs)
    gold = _texts("gold_aliases", gold_aliases)
    threshold = check_positive("threshold", threshold)
    e = entail or alias_entailment(gold)
    if not callable(e):
        raise TypeError("entail must be a callable (text, text) -> probability")
    same = lambda x, y: e(x, y) > threshold and e(y, x) > threshold  # noqa: E731
    ids = [-1] * len(ans)
    nxt = 0
    for i in range(len(ans)):
        if ids[i] >= 0:
            continue
        stack, ids[i] = [i], nxt
        while stack:
            j = stack.pop()
            for k in range(len(ans)):
                if ids[k] < 0 and same(ans[j], ans[k]):
                    ids[k] = nxt
                    stack.append(k)
        nxt += 1
    mass = 0.0
    for c in range(nxt):
        members = [i for i in range(len(ans)) if ids[i] == c]
        if any(same(ans[i], g) for i in members for g in gold):
            mass += float(w[members].sum())
    return float(min(mass, 1.0))


def delta_ig(s_context: object, s_empty: object, *, form: str = "difference", eps: float = 1e-3) -> np.ndarray:
    """Delta IG per trajectory: S(C) - S(empty) (the code's default) or log(S(C)+eps) - log(S(empty)+eps)."""
    sc = _vec("s_context", s_context)
    se = _vec("s_empty", s_empty, sc.size)
    for name, v in (("s_context", sc), ("s_empty", se)):
        if np.any(v < 0) or np.any(v > 1):
            raise ValueError(f"{name} must hold masses in [0, 1]")
    eps = check_positive("eps", eps)
    if form == "difference":
        return sc - se
    if form == "log_ratio":
        return np.log(sc + eps) - np.log(se + eps)
    raise ValueError(f"form must be 'difference' or 'log_ratio', got {form!r}")


def inforeasoner_reward(em: object, bonus: object, retrieved: object, *, coef: float = 0.6) -> np.ndarray:
    """R = EM + coef * bonus where the trajectory retrieved anything, else EM (shapes (n,))."""
    e = _vec("em", em)
    b = _vec("bonus", bonus, e.size)
    r = _vec("retrieved", retrieved, e.size)
    coef = check_positive("coef", coef, strict=False)
    return e + coef * b * (r > 0)


def shuffled_bonus(bonus: object, retrieved: object, seed: int | np.random.Generator = 0) -> np.ndarray:
    """The bonus values permuted among the trajectories that retrieved (same distribution, no information)."""
    b = _vec("bonus", bonus)
    r = _vec("retrieved", retrieved, b.size) > 0
    rng = as_rng("seed", seed)
    out = b.copy()
    idx = np.flatnonzero(r)
    out[idx] = b[idx[rng.permutation(idx.size)]]
    return out


def answer_in_context_bonus(context: str, gold_aliases: Sequence[str]) -> float:
    """The naive dense bonus: 1 if a gold alias appears (as whole words) in the retrieved text, else 0."""
    if not isinstance(context, str):
        raise TypeError(f"context must be a str, got {type(context).__name__}")
    text = f" {_norm(context)} "
    return float(any(f" {_norm(a)} " in text for a in _texts("gold_aliases", gold_aliases) if _norm(a)))


def auroc(scores: object, labels: object) -> float:
    """Area under the ROC curve of ``scores`` for binary ``labels`` (ties count 1/2): P(s+ > s-)."""
    s = _vec("scores", scores)
    y = _vec("labels", labels, s.size)
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("labels must be 0 or 1")
    pos, neg = s[y == 1], s[y == 0]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)
