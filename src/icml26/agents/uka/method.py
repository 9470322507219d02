"""UKA: User-aware active Knowledge Acquisition (arXiv:2605.29715), the gradient-free loop.

The assistant learns without gradient updates. In a training phase it talks to simulated
users and, at every turn:

1. **User-model update.** It keeps at most two one-line user hypotheses ``z_j``; each is
   scored by the mean log-probability of the user's latest reply when the policy plays
   "user with profile ``z_j``"; ``p = softmax(scores)``, ``H = -sum p log p``. If there were no
   scores yet, or the best score rose, or ``H`` rose, the least likely hypothesis is dropped
   (when there are two) and a refined one, written from the last three turns, is appended and
   scored (:class:`UserModel`).
2. **Query transfer.** The dialogue and hypotheses are summarised into one query ``q~`` and the
   top-k principles are retrieved from the knowledge base by cosine (:class:`PrincipleKB`).
3. **Candidates.** Three replies are sampled conditioned on the retrieved principles.
4. **ToM uncertainty.** For each candidate ``c`` and hypothesis ``z_j`` three user reactions are
   simulated, embedded and averaged to ``e_j``; ``u(c) = 1 - mean_j cos(e_j, centroid)``
   (:func:`tom_uncertainty`).
5. **KB novelty.** ``nov(c) = 1 - mean cos(c, top-5 known entries)``, z-scored across the
   candidates (:func:`kb_novelty`).
6. **Selection** (:func:`select_candidate`). Training: ``argmax minmax(u) + minmax(nov)``
   (explore). Test, stated intent: prefer low uncertainty and KB-consistent replies,
   ``argmin minmax(u) + minmax(nov)`` (rule ``"intent"``). The released code at test scores
   ``minmax(1 - u) + minmax(nov)`` and takes the argmin (rule ``"code"``). The code's "novelty"
   is ``1 - mean(score)`` where ChromaDB's ``score`` is a cosine *distance*, so read literally it
   is a similarity; with that reading its test rule coincides with the training rule
   (``"explore"``), which we also report.
7. **Memory** (training only). The emotion change's sign (positive / nochange / negative) and
   the exchange become a principle "When <q~>, you should <s> [rather than <failed>] because
   <outcome>", stored keyed by ``q~`` (:func:`write_principle`).

The "principle" baseline of the code: the same KB without a user model, one candidate per
turn, and at training up to three retries of a turn whose self-judged feedback is not
positive, the failed strategies going into the principle's "rather than" clause.

Small-scale substitutes (see ``setting.py``): hypotheses are need types, scored by the
agent's predictive reply likelihood (its imperfect ToM ``M_hat`` and the reply model) in
place of an LLM's log-probabilities; replies are strategy labels; embeddings are numpy
vectors (strategy one-hots, random reply-type vectors), not MiniLM/embeddinggemma. The
same functions serve the endpoint path in :mod:`icml26.agents.uka.llm`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from icml26.agents.uka.setting import NEEDS, REPLIES, SCENARIOS, STRATEGIES, World, reaction_of
from icml26.core.validate import as_array, as_rng, check_int, check_positive

RULES = ("explore", "intent", "code", "random", "first", "literal", "uncertainty", "novelty")


def _vec(name: str, x, length: int) -> np.ndarray:
    v = as_array(name, x, ndim=1)
    if v.size != length:
        raise ValueError(f"{name} must have length {length}, got {v.size}")
    return v


# ----------------------------------------------------------------------------- scoring primitives
def hypothesis_posterior(scores) -> tuple[np.ndarray, float]:
    """``p = softmax(scores)`` and its entropy ``H = -sum p log(p + 1e-12)`` (step 1).

    scores: (k,) mean log-probabilities of the latest user reply under each hypothesis.
    """
    s = as_array("scores", scores, ndim=1)
    e = np.exp(s - s.max())
    p = e / e.sum()
    return p, float(-(p * np.log(p + 1e-12)).sum())


def tom_uncertainty(reactions) -> float:
    """``u = 1 - mean_j cos(e_j, centroid)`` over per-hypothesis mean reaction embeddings (step 4).

    reactions: (n_hypotheses, d). Rows are normalised, the centroid of the normalised rows is
    normalised, and the mean cosine to it is taken; one hypothesis gives 0.
    """
    E = as_array("reactions", reactions, ndim=2)
    norms = np.linalg.norm(E, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("reactions has a zero row; embeddings must be non-zero")
    E = E / norms
    c = E.mean(axis=0)
    nc = np.linalg.norm(c)
    if nc == 0:
        return 1.0
    return float(1.0 - (E @ (c / nc)).mean())


def _cos(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    An = A / np.maximum(np.linalg.norm(A, axis=-1, keepdims=True), 1e-12)
    Bn = B / np.maximum(np.linalg.norm(B, axis=-1, keepdims=True), 1e-12)
    return An @ Bn.T


def kb_novelty(candidates, known, k: int = 5) -> np.ndarray:
    """z-scored ``1 - mean cos(c, top-k known entries)`` across candidates (step 5).

    candidates: (n_c, d); known: (n_k, d) embeddings of stored principles (``n_k`` may be 0:
    an empty KB gives zeros). Zero spread across candidates gives zeros, as in the code.
    """
    C = as_array("candidates", candidates, ndim=2)
    K = as_array("known", known, ndim=2, nonempty=False)
    k = check_int("k", k, minimum=1)
    if K.shape[0] == 0:
        return np.zeros(C.shape[0])
    if K.shape[1] != C.shape[1]:
        raise ValueError(f"known must have {C.shape[1]} columns like candidates, got {K.shape[1]}")
    return _novelty(C, K, k)


def _novelty(C: np.ndarray, K: np.ndarray, k: int) -> np.ndarray:
    sims = _cos(C, K)
    kk = min(k, K.shape[0])
    top = np.partition(sims, sims.shape[1] - kk, axis=1)[:, -kk:]
    nov = 1.0 - top.mean(axis=1)
    sd = nov.std()
    return np.zeros_like(nov) if sd == 0 else (nov - nov.mean()) / sd


def minmax(x) -> np.ndarray:
    """``(x - min) / (max - min + 1e-8)``, the code's normaliser."""
    return _mm(as_array("x", x, ndim=1))


def select_candidate(u, nov, rule: str = "explore", rng=None) -> int:
    """Index of the chosen candidate (step 6).

    u, nov: (n_c,) ToM uncertainty and KB novelty. Rules: ``explore`` (training,
    ``argmax mm(u) + mm(nov)``), ``intent`` (test as the paper states it, ``argmin mm(u) +
    mm(nov)``), ``code`` (the released test rule, ``argmin mm(1 - u) + mm(nov)``), ``random``,
    ``first``; ``literal`` (the released training rule read with Chroma distances: ``argmax mm(u) +
    mm(-nov)``, uncertain and KB-consistent), and the two halves of ``explore`` as ablations:
    ``uncertainty`` (``argmax u``) and ``novelty`` (``argmax nov``).
    """
    u = as_array("u", u, ndim=1)
    nov = as_array("nov", nov, ndim=1)
    if nov.size != u.size:
        raise ValueError(f"nov must have length {u.size} like u, got {nov.size}")
    if not isinstance(rule, str) or rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    return _select(u, nov, rule, as_rng("rng", rng if rng is not None else 0))


def _mm(v: np.ndarray) -> np.ndarray:
    return (v - v.min()) / (v.max() - v.min() + 1e-8)


def _select(u: np.ndarray, nov: np.ndarray, rule: str, rng: np.random.Generator) -> int:
    if rule == "explore":
        return int(np.argmax(_mm(u) + _mm(nov)))
    if rule == "intent":
        return int(np.argmin(_mm(u) + _mm(nov)))
    if rule == "code":
        return int(np.argmin(_mm(1.0 - u) + _mm(nov)))
    if rule == "literal":
        return int(np.argmax(_mm(u) + _mm(-nov)))
    if rule == "uncertainty":
        return int(np.argmax(u))
    if rule == "novelty":
        return int(np.argmax(nov))
    if rule == "random":
        return int(rng.integers(u.size))
    return 0


# ----------------------------------------------------------------------------- knowledge base
@dataclass(frozen=True)
class Principle:
    """A stored principle: ``advice`` (n_strategies,) is +1 on the strategy to use, -1 on those to
    avoid (a negative outcome, or the failed trials of a "rather than" clause), -0.5 on a
    no-change one; ``text`` is its When/should/rather-than/because sentence."""

    strategy: int
    mood: int
    failed: tuple[int, ...]
    advice: np.ndarray
    text: str


def write_principle(context: str, strategy: int, mood: int, failed=(), better: int | None = None) -> Principle:
    """The When/should/rather-than/because principle of one exchange (step 7).

    A positive outcome recommends the strategy played (+1). A negative (no-change) one warns
    against it (-1, -0.5) and, when ``better`` is given, recommends that strategy instead (+1),
    as the released code's principle prompt asks: "you should [better strategies] rather than
    [ineffective ones]". ``failed``: earlier trials of the turn, each warned against (-1).
    """
    strategy = check_int("strategy", strategy, minimum=0, maximum=len(STRATEGIES) - 1)
    mood = check_int("mood", mood, minimum=0, maximum=2)
    if not isinstance(context, str) or not context:
        raise ValueError("context must be a non-empty string")
    failed = tuple(check_int("failed", f, minimum=0, maximum=len(STRATEGIES) - 1) for f in failed)
    if better is not None:
        better = check_int("better", better, minimum=0, maximum=len(STRATEGIES) - 1)
        if better == strategy or better in failed:
            raise ValueError("better must differ from strategy and from the failed trials")
    advice = np.zeros(len(STRATEGIES))
    s = STRATEGIES[strategy]
    if mood == 2:
        advice[strategy] = 1.0
        text = f"When {context}, you should use {s}"
        because = "the user felt better"
    else:
        advice[strategy] = -1.0 if mood == 0 else -0.5
        alt = "try another approach" if better is None or mood == 2 else f"use {STRATEGIES[better]}"
        if better is not None:
            advice[better] = 1.0
        text = f"When {context}, you should {alt} rather than {s}"
        because = "the user felt worse" if mood == 0 else "the user's mood did not change"
    for f in failed:
        advice[f] = min(advice[f], -1.0) if f != strategy else advice[f]
    if failed:
        text += " rather than " + ", ".join(STRATEGIES[f] for f in failed)
    return Principle(strategy, mood, failed, advice, f"{text} because {because}.")


class PrincipleKB:
    """A numpy cosine index of principles keyed by the transferred query ``q~``.

    ``keys`` (n, dq) for retrieval (the code's first Chroma collection), ``known`` (n, dq +
    n_strategies) embeddings of the principles themselves for novelty (its mirrored
    ``new_knowledges`` collection): the key joined with the advice vector, so a reply that
    follows a principle is close to it and a reply it warns against is far from it.
    """

    def __init__(self, query_dim: int, negation_blind: bool = False):
        self.query_dim = check_int("query_dim", query_dim, minimum=1)
        if not isinstance(negation_blind, bool):
            raise TypeError(f"negation_blind must be a bool, got {type(negation_blind).__name__}")
        # negation_blind: the principle's known embedding ignores the advice's sign, as a text encoder
        # that reads "rather than X" as being about X would (an exploratory variant, see experiment.py)
        self.negation_blind = negation_blind
        self._keys = np.zeros((16, self.query_dim))
        self._known = np.zeros((16, self.query_dim + len(STRATEGIES)))
        self._advice = np.zeros((16, len(STRATEGIES)))
        self.principles: list[Principle] = []

    def __len__(self) -> int:
        return len(self.principles)

    @property
    def keys(self) -> np.ndarray:
        return self._keys[:len(self)]

    @property
    def known(self) -> np.ndarray:
        return self._known[:len(self)]

    @property
    def advice(self) -> np.ndarray:
        return self._advice[:len(self)]

    def add(self, query, principle: Principle) -> None:
        q = _vec("query", query, self.query_dim)
        if not isinstance(principle, Principle):
            raise TypeError(f"principle must be a Principle, got {type(principle).__name__}")
        self._append(q, principle)

    def _append(self, q: np.ndarray, principle: Principle) -> None:
        n = len(self)
        if n == self._keys.shape[0]:
            self._keys = np.vstack([self._keys, np.zeros_like(self._keys)])
            self._known = np.vstack([self._known, np.zeros_like(self._known)])
            self._advice = np.vstack([self._advice, np.zeros_like(self._advice)])
        self._keys[n] = q / max(np.linalg.norm(q), 1e-12)  # cosine index: stored normalised
        kn = np.concatenate([q, np.abs(principle.advice) if self.negation_blind else principle.advice])
        self._known[n] = kn / max(np.linalg.norm(kn), 1e-12)
        self._advice[n] = principle.advice
        self.principles.append(principle)

    def retrieve(self, query, k: int = 5) -> tuple[list[Principle], np.ndarray]:
        """Top-k principles by cosine of their keys to ``query``, and those similarities."""
        q = _vec("query", query, self.query_dim)
        k = check_int("k", k, minimum=1)
        idx, sims = self._top(q, k)
        return [self.principles[i] for i in idx], sims

    def _top(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        if not self.principles:
            return np.zeros(0, dtype=int), np.zeros(0)
        sims = self.keys @ (q / max(np.linalg.norm(q), 1e-12))
        idx = np.argsort(-sims, kind="stable")[:k]
        return idx, sims[idx]

    def snapshot(self) -> PrincipleKB:
        kb = PrincipleKB(self.query_dim, self.negation_blind)
        kb._keys, kb._known, kb._advice = self._keys.copy(), self._known.copy(), self._advice.copy()
        kb.principles = list(self.principles)
        return kb


def candidate_weights(prior, advice, sims, beta: float = 2.0) -> np.ndarray:
    """Sampling weights of the strategies given retrieved principles (step 3's conditioning):
    ``w ∝ prior * exp(beta * sum_i max(sim_i, 0) * advice_i)``.

    prior: (S,); advice: (n, S) advice vectors of the retrieved principles (n may be 0); sims: (n,).
    """
    p = as_array("prior", prior, ndim=1)
    A = as_array("advice", advice, ndim=2, nonempty=False)
    s = as_array("sims", sims, ndim=1, nonempty=False)
    beta = check_positive("beta", beta, strict=False)
    if A.shape[0] != s.shape[0] or (A.shape[0] and A.shape[1] != p.size):
        raise ValueError(f"advice must be (len(sims), {p.size}), got {A.shape} with {s.shape[0]} sims")
    return _weights(p, A, s, beta)


def _weights(p: np.ndarray, A: np.ndarray, s: np.ndarray, beta: float) -> np.ndarray:
    logit = np.log(np.maximum(p, 1e-12))
    if A.shape[0]:
        logit = logit + beta * (np.maximum(s, 0) @ A)
    w = np.exp(logit - logit.max())
    return w / w.sum()


# ----------------------------------------------------------------------------- the user model
def _norm_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


@dataclass
class Belief:
    """What the assistant believes about users (its ToM), precomputed from a world.

    ``react`` (needs, strategies, 3): P(reaction | need, strategy) from ``M_hat`` with noise
    ``tom_sd``; ``reply_logp`` (needs, 3, replies); ``pred_logp`` (needs, strategies, replies):
    log P(reply | need, strategy), the analogue of an LLM's log-probability of the user's reply
    when it plays a user with that profile; ``open_logp`` (needs, replies).
    """

    react: np.ndarray
    reply_logp: np.ndarray
    pred_logp: np.ndarray
    open_logp: np.ndarray
    reply_emb: np.ndarray
    prior: np.ndarray

    @property
    def cum_reply(self) -> np.ndarray:
        if not hasattr(self, "_cum_reply"):
            self._cum_reply = np.cumsum(np.exp(self.reply_logp), axis=-1)
        return self._cum_reply

    @classmethod
    def of(cls, world: World, tom_sd: float = 0.15) -> Belief:
        from icml26.agents.uka.setting import NOCHANGE_BAND

        mu = world.M_hat
        lo = _norm_cdf((-NOCHANGE_BAND - mu) / tom_sd)
        hi = _norm_cdf((NOCHANGE_BAND - mu) / tom_sd)
        react = np.stack([lo, hi - lo, 1.0 - hi], axis=-1)
        pred = np.log(np.einsum("nsr,nrk->nsk", react, np.exp(world.reply_logp)))
        return cls(react, world.reply_logp, pred, world.open_logp, world.reply_emb, world.prior)


class UserModel:
    """At most two need hypotheses with the code's update rule (step 1).

    ``hyps`` (list of need indices), ``scores`` (mean log-likelihood of the latest reply under
    each), ``probs``, ``entropy``. ``update(turns)`` takes the dialogue as a list of
    ``(strategy or None, reply)`` pairs (``None`` for the user's opening).
    """

    def __init__(self, belief: Belief, first: int):
        self.belief = belief
        self.hyps: list[int] = [int(first)]
        self.scores: list[float] = []
        self.probs: np.ndarray = np.ones(1)
        self.entropy: float = 0.0

    def _loglik(self, need: int, turn: tuple[int | None, int]) -> float:
        s, r = turn
        return float(self.belief.open_logp[need, r] if s is None else self.belief.pred_logp[need, s, r])

    def update(self, turns: list[tuple[int | None, int]]) -> None:
        last = turns[-1]
        scores = [self._loglik(z, last) for z in self.hyps]
        probs, ent = hypothesis_posterior(scores)
        if not self.scores or max(scores) > max(self.scores) or ent > self.entropy:
            hyps, probs_l = list(self.hyps), list(probs)
            if len(hyps) == 2:
                i = int(np.argmin(probs_l))
                hyps.pop(i)
                scores.pop(i)
            # refinement from the last three turns: the best-explaining need not yet held
            window = turns[-3:]
            fit = [sum(self._loglik(z, t) for t in window) if z not in hyps else -np.inf
                   for z in range(len(NEEDS))]
            new = int(np.argmax(fit))
            hyps.append(new)
            scores.append(self._loglik(new, last))
            self.hyps = hyps
            probs, ent = hypothesis_posterior(scores)
        self.scores, self.probs, self.entropy = list(scores), probs, ent

    def need_vector(self) -> np.ndarray:
        v = np.zeros(len(NEEDS))
        for z, p in zip(self.hyps, self.probs):
            v[z] += p
        return v

    def map_need(self) -> int:
        return int(self.hyps[int(np.argmax(self.probs))])


def simulate_reactions(belief: Belief, hyps, strategies, rng: np.random.Generator, n: int = 3) -> np.ndarray:
    """(len(strategies), len(hyps), d): per candidate strategy and hypothesis, the mean embedding
    of ``n`` simulated user replies (reaction from the ToM belief, then a reply type)."""
    hyps, strategies = np.asarray(hyps, dtype=int), np.asarray(strategies, dtype=int)
    nc, nh = strategies.size, hyps.size
    cum_react = np.cumsum(belief.react[hyps[None, :], strategies[:, None]], axis=-1)  # (nc, nh, 3)
    r = (rng.random((nc, nh, n, 1)) > cum_react[:, :, None, :]).sum(-1).clip(max=2)  # (nc, nh, n)
    cum_rep = belief.cum_reply[hyps[None, :, None], r]  # (nc, nh, n, replies)
    k = (rng.random((nc, nh, n, 1)) > cum_rep).sum(-1).clip(max=cum_rep.shape[-1] - 1)
    return belief.reply_emb[k].mean(axis=2)


def _tom_u_batch(E: np.ndarray) -> np.ndarray:
    """``tom_uncertainty`` for each candidate of E (n_c, n_h, d) at once."""
    E = E / np.maximum(np.linalg.norm(E, axis=-1, keepdims=True), 1e-12)
    c = E.mean(axis=1)
    c = c / np.maximum(np.linalg.norm(c, axis=-1, keepdims=True), 1e-12)
    return 1.0 - np.einsum("chd,cd->ch", E, c).mean(axis=1)


# ----------------------------------------------------------------------------- the agent
def query_dim(belief: Belief) -> int:
    """Length of ``q~``: scenario one-hot, need-hypothesis probabilities, last reply's embedding."""
    return len(SCENARIOS) + len(NEEDS) + belief.reply_emb.shape[1]


@dataclass
class Agent:
    """The UKA assistant, or the code's "principle" mode, around one knowledge base.

    mode: ``"uka"`` (user model, 3 candidates, ToM uncertainty + novelty) or ``"principle"``
    (no user model, one candidate, critic retries at training). ``train_rule`` / ``test_rule``
    name the selection rules (:data:`RULES`); ``use_kb=False`` ignores the KB (the no-KB arm).
    ``recommend``: a negative or no-change principle also recommends the strategy the agent's own
    ToM rates best for the user (:meth:`better_strategy`), as the code's principle prompt asks;
    ``False`` gives warning-only principles (the first pass's design).
    """

    belief: Belief
    kb: PrincipleKB
    mode: str = "uka"
    train_rule: str = "explore"
    test_rule: str = "intent"
    n_candidates: int = 3
    top_k: int = 5
    beta: float = 2.0
    retries: int = 3
    use_kb: bool = True
    recommend: bool = True
    w_scenario: float = 1.0
    w_need: float = 1.5
    _turns: list = field(default_factory=list)
    _scenario: int = 0
    opening_need: int = 0
    user_model: UserModel | None = None

    def query_dim(self) -> int:
        return query_dim(self.belief)

    def begin(self, scenario: int, opening: int) -> None:
        self._scenario, self._turns = int(scenario), [(None, int(opening))]
        # the need the opening utterance alone points to (UKA's first hypothesis; the gate's baseline)
        self.opening_need = int(np.argmax(self.belief.open_logp[:, opening]))
        if self.mode == "uka":
            self.user_model = UserModel(self.belief, self.opening_need)

    def query(self) -> np.ndarray:
        """``q~``: scenario, the need hypotheses' probabilities (UKA only), the last reply's embedding."""
        sc = np.zeros(len(SCENARIOS))
        sc[self._scenario] = self.w_scenario
        need = self.w_need * self.user_model.need_vector() if self.user_model is not None else np.zeros(len(NEEDS))
        return np.concatenate([sc, need, self.belief.reply_emb[self._turns[-1][1]]])

    def summary(self) -> str:
        text = f"a user in a {SCENARIOS[self._scenario]} situation who {REPLIES[self._turns[-1][1]]}"
        if self.user_model is not None:
            text += " and seems to want " + " or ".join(NEEDS[z] for z in self.user_model.hyps)
        return text

    def propose(self, training: bool, rng: np.random.Generator, exclude=()) -> tuple[int, np.ndarray]:
        """One turn's steps 1-6: returns (strategy, q~)."""
        if self.user_model is not None:
            self.user_model.update(self._turns)
        q = self.query()
        if self.use_kb and len(self.kb):
            idx, sims = self.kb._top(q, self.top_k)
            adv = self.kb.advice[idx]
        else:
            sims, adv = np.zeros(0), np.zeros((0, len(STRATEGIES)))
        w = _weights(self.belief.prior, adv, sims, self.beta)
        if exclude:
            w = w.copy()
            w[list(exclude)] = 0.0
            w = w / w.sum()
        n_c = self.n_candidates if self.mode == "uka" else 1
        cands = rng.choice(w.size, size=min(n_c, int((w > 0).sum())), replace=False, p=w)
        if cands.size == 1:
            return int(cands[0]), q
        u = _tom_u_batch(simulate_reactions(self.belief, self.user_model.hyps, cands, rng))
        nov = np.zeros(cands.size)
        if self.use_kb and len(self.kb):
            cand_emb = np.hstack([np.repeat(q[None], cands.size, 0), np.eye(len(STRATEGIES))[cands]])
            nov = _novelty(cand_emb, self.kb.known, 5)
        rule = self.train_rule if training else self.test_rule
        return int(cands[_select(u, nov, rule, rng)]), q

    def better_strategy(self, exclude) -> int:
        """The untried strategy most likely to make the user feel better under the agent's own ToM:
        ``argmax_s sum_z p(z) P(positive | z, s)`` over the user model's need hypotheses (a uniform
        need when there is no user model, the "principle" mode), ``exclude`` left out."""
        nv = (self.user_model.need_vector() if self.user_model is not None
              else np.full(len(NEEDS), 1.0 / len(NEEDS)))
        score = nv @ self.belief.react[:, :, 2]
        score[list(exclude)] = -np.inf
        return int(np.argmax(score))

    def observe(self, strategy: int, reply: int) -> None:
        self._turns.append((int(strategy), int(reply)))

    def self_judge(self, reply: int) -> int:
        """The critic-free feedback of the code: the reaction a reply most likely signals."""
        lik = np.exp(self.belief.reply_logp[:, :, reply]).mean(axis=0)
        return int(np.argmax(lik))


def run_session(agent: Agent, user, *, training: bool, rng: np.random.Generator, max_turns: int = 8) -> dict:
    """One dialogue (the paper's protocol): up to ``max_turns`` assistant turns, ending when the
    user's emotion exceeds the success level. At training every turn writes a principle (UKA),
    or a turn is retried up to ``agent.retries`` times on non-positive self-judged feedback and
    then written with its failed trials ("principle" mode)."""
    agent.begin(user.scenario, user.opening())
    turns = 0
    for _ in range(max_turns):
        s, q = agent.propose(training, rng)
        delta, reply = user.respond(s, commit=False)
        failed: list[int] = []
        if training and agent.mode == "principle":
            while agent.self_judge(reply) != 2 and len(failed) < agent.retries:
                failed.append(s)
                s, _ = agent.propose(training, rng, exclude=failed)
                delta, reply = user.respond(s, commit=False)
        user.emotion = float(np.clip(user.emotion + delta, -1.0, 1.0))
        turns += 1
        if training:
            mood = reaction_of(delta)
            better = agent.better_strategy([s, *failed]) if agent.recommend and mood < 2 else None
            agent.kb._append(q, write_principle(agent.summary(), s, mood, tuple(failed), better))
        agent.observe(s, reply)
        if user.satisfied:
            break
    has_um = agent.user_model is not None
    need_ok = float(agent.user_model.map_need() == user.need) if has_um else float("nan")
    open_ok = float(agent.opening_need == user.need) if has_um else float("nan")
    return {"success": float(user.satisfied), "turns": float(turns), "final_emotion": user.emotion,
            "need_correct": need_ok, "need_opening_correct": open_ok}


def EXAMPLES():
    return [
        (hypothesis_posterior, {"scores": np.array([-1.0, -2.0])}),
        (tom_uncertainty, {"reactions": np.array([[1.0, 0.0], [0.0, 1.0]])}),
        (kb_novelty, {"candidates": np.eye(3), "known": np.eye(3)[:2], "k": 2}, {"known": {"empty"}}),  # empty KB is valid
        (minmax, {"x": np.array([1.0, 2.0, 3.0])}),
        (select_candidate, {"u": np.array([0.1, 0.5, 0.2]), "nov": np.array([0.0, 1.0, -1.0]), "rule": "explore"}),
        (candidate_weights, {"prior": np.ones(8) / 8, "advice": np.eye(8)[:2], "sims": np.array([0.9, 0.5]),
                             "beta": 2.0}),
    ]
