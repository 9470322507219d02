"""PSG-Nav's decision machinery (arXiv:2606.01313), on a probabilistic scene graph of rooms and landmarks.

1. Probabilistic scene graph. Each landmark object ``o_i`` keeps its detector distribution
   ``p_i(c)``; a room's objects are a group. Room-level combinations are joint labelings
   ``l = (c_1, ..., c_M)`` of a room's objects with probability ``P_r(l) = prod_i p_i(c_i)``,
   kept sorted (``room_combinations``).
2. Multiverse enumeration (``multiverse_topk``). A world picks one combination per room;
   ``log P(w) = sum_r log P_r(l_r)``. Best-first search over index tuples with a max-heap:
   pop the best tuple, push its children (increment one room's index, reset the later rooms'
   indices to 0; this child rule reaches every tuple once through a parent that is at least as
   probable, so pops come in non-increasing probability). Keep worlds with ``P(w) >= threshold``
   (0.05) up to ``K`` (64); when fewer than ``K/4`` pass, keep the next best worlds regardless of
   the threshold until there are ``K/4``; renormalise the kept weights to sum to 1.
3. Landmark utility over worlds (``multiverse_utility``). In a world every observed room has hard
   labels, hence a room-type posterior ``P(t | l_r) ∝ pi(t) prod_i P(c_i | t)`` and a goal score
   ``q_r(w) = sum_t P(t | l_r) P(g | t)``. There is one goal instance, so a world's score of a
   candidate room is ``q_r(w) / sum_{r'} q_{r'}(w)``; ``U(r) = sum_w P(w) score_w(r)``. This score
   is not additive over objects, so the world average differs from plugging in the marginals
   (``marginal_utility``, the control C) and from the argmax labels (``hard_utility``, control B,
   the SG-Nav analogue). The paper asks an LLM for ``P(goal near landmark | w)``; the prior table
   ``P(c | t)``, ``P(g | t)`` takes its place here.
4. Evidential Experience Calibrator (``EvidentialMemory``), in the form of the released code
   (``utils/rag_manager.py``): per goal category at most 20 success and 20 false-positive
   appearance vectors (a new one within cosine 0.97 of a stored one is skipped; over the limit,
   the vector with the highest mean cosine to the others is dropped). Verification: cosine >= 0.95
   to a stored false positive rejects the detection (confidence 0); otherwise a caption-matched
   success within cosine 0.7 multiplies the confidence by 1.1 (capped at 1); otherwise the
   detection passes unchanged. Memories are written after each episode. As in the released code
   (``utils/object_detection.py``), ``navigate`` verifies a detection the detector has already
   accepted: the STOP decision compares the raw confidence with the STOP level and the boosted
   confidence is never compared with a threshold again, so the boost cannot turn a
   below-threshold detection into a STOP (with the memory's veto only, the episode is the same).
   The first pass of this reproduction compared the boosted confidence with the STOP level (a
   remembered goal stopped at 0.5/1.1); that form survives only as the labelled variant
   ``boost_before_stop=True`` (arm ``Eb`` of the experiment), not as the method.
5. Sampled worlds (``sampled_utility``): the full expectation over all joint labelings, estimated
   from ``n`` worlds drawn from the product of the detector distributions. A supporting arm, not
   the paper's method: it separates "the top-K relaxation loses mass" from "the world average
   does not beat the plug-in".

``navigate`` runs one episode of any arm in a :class:`~icml26.agents.psg_nav.setting.House`.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from icml26.core.validate import as_array, check_finite, check_int, check_positive

ARMS = ("B", "C", "D", "E", "S")


# ----------------------------------------------------------------------------- multiverse enumeration
def _as_prob_vector(name: str, p) -> np.ndarray:
    if isinstance(p, (str, bytes)):
        raise TypeError(f"{name} must be an array of probabilities, got {type(p).__name__}")
    v = np.asarray(p, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of probabilities, got shape {v.shape}")
    check_finite(name, v)
    if np.any(v < 0):
        raise ValueError(f"{name} must be non-negative")
    return v


def multiverse_topk(probs: Sequence, k: int = 64, threshold: float = 0.05, min_frac: float = 0.25,
                    normalise: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best-first top-``k`` joint choices of independent groups (worlds from room combinations).

    probs: list of G 1-D arrays, ``probs[r][j]`` = probability of group r's option j.
    Returns ``(choices, weights, joint)``: ``choices`` (n, G) option indices into ``probs``,
    ``joint`` (n,) raw products in non-increasing order, ``weights`` = ``joint`` renormalised
    (or raw if ``normalise=False``). Worlds with ``joint >= threshold`` are kept up to ``k``; when
    fewer than ``max(1, floor(min_frac * k))`` pass, the next best are kept until that many
    (worlds of probability exactly 0 are never kept, except the best one).
    """
    if isinstance(probs, np.ndarray) and probs.ndim == 2:
        probs = list(probs)
    if not isinstance(probs, (list, tuple)) or len(probs) == 0:
        raise ValueError(f"probs must be a non-empty list of 1-D probability arrays, got {type(probs).__name__}")
    lists = [_as_prob_vector(f"probs[{i}]", p) for i, p in enumerate(probs)]
    k = check_int("k", k, minimum=1)
    threshold = check_positive("threshold", threshold, strict=False)
    min_frac = check_positive("min_frac", min_frac, strict=False)
    if min_frac > 1:
        raise ValueError(f"min_frac must lie in [0, 1], got {min_frac!r}")
    min_keep = max(1, int(min_frac * k))
    order = [np.argsort(-p, kind="stable") for p in lists]
    with np.errstate(divide="ignore"):
        logs = [np.log(p[o]) for p, o in zip(lists, order)]  # log 0 = -inf: impossible options stay impossible
    g = len(logs)
    start = (0,) * g
    heap = [(-float(sum(lg[0] for lg in logs)), start)]
    seen = {start}
    kept: list[tuple[tuple[int, ...], float]] = []
    while heap and len(kept) < k:
        neg, idx = heapq.heappop(heap)
        joint = float(np.exp(-neg))
        if (joint < threshold and len(kept) >= min_keep) or (joint <= 0.0 and kept):
            break  # pops are non-increasing: nothing later passes the threshold (or is possible at all)
        kept.append((idx, joint))
        for p in range(g):
            if idx[p] + 1 >= logs[p].size:
                continue
            child = idx[:p] + (idx[p] + 1,) + (0,) * (g - p - 1)
            if child in seen:
                continue
            seen.add(child)
            clp = float(sum(logs[q][child[q]] for q in range(g)))
            heapq.heappush(heap, (-clp, child))
    choices = np.array([[order[r][i] for r, i in enumerate(idx)] for idx, _ in kept], dtype=int).reshape(-1, g)
    joint = np.array([j for _, j in kept])
    w = joint / joint.sum() if normalise and joint.sum() > 0 else joint.copy()
    return choices, w, joint


def room_combinations(p_objects, n_max: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_max`` most probable joint labelings of one room's objects.

    p_objects: (M, C) detector distributions. Returns ``(labels (n, M), probs (n,))`` with
    ``probs = prod_i p_i(label_i)`` (not renormalised), sorted non-increasing.
    """
    p = as_array("p_objects", p_objects, ndim=2)
    n_max = check_int("n_max", n_max, minimum=1)
    labels, _, joint = multiverse_topk(list(p), k=n_max, threshold=0.0, min_frac=0.0, normalise=False)
    return labels, joint


# ----------------------------------------------------------------------------- scoring
def _priors(landmark_prior, goal_prior, room_prior) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``P(c | t)`` (C, T), ``P(g | t)`` (T,) and ``pi(t)`` (T,)."""
    lp = as_array("landmark_prior", landmark_prior, ndim=2)
    gp = as_array("goal_prior", goal_prior, ndim=1)
    pi = as_array("room_prior", room_prior, ndim=1)
    t = lp.shape[1]
    if gp.size != t:
        raise ValueError(f"goal_prior must have one entry per room type ({t}), got {gp.size}")
    if pi.size != t:
        raise ValueError(f"room_prior must have one entry per room type ({t}), got {pi.size}")
    for name, v in (("landmark_prior", lp), ("goal_prior", gp), ("room_prior", pi)):
        if np.any(v < 0):
            raise ValueError(f"{name} must be non-negative")
    return lp, gp, pi


def room_goal_score(labels, landmark_prior, goal_prior, room_prior) -> np.ndarray:
    """``q = sum_t P(t | labels) P(g | t)``, ``P(t | labels) ∝ pi(t) prod_i P(c_i | t)``.

    labels: (..., M) integer classes; landmark_prior: (C, T) ``P(c | t)`` of landmarks;
    goal_prior: (T,) ``P(g | t)``; room_prior: (T,). Returns q of shape labels.shape[:-1].
    """
    lab = np.asarray(labels)
    if lab.ndim < 1 or not np.issubdtype(lab.dtype, np.integer):
        raise TypeError("labels must be an integer array (..., M)")
    lp, gp, pi = _priors(landmark_prior, goal_prior, room_prior)
    if lab.size and (lab.min() < 0 or lab.max() >= lp.shape[0]):
        raise ValueError(f"labels must lie in [0, {lp.shape[0]})")
    loglik = np.log(np.maximum(lp, 1e-300))[lab].sum(axis=-2) + np.log(pi)  # (..., T)
    post = np.exp(loglik - loglik.max(-1, keepdims=True))
    post /= post.sum(-1, keepdims=True)
    return post @ gp


def plugin_goal_score(p_objects, landmark_prior, goal_prior, room_prior) -> np.ndarray:
    """Control C: the marginals plugged into the same score (soft counts, no joint worlds).

    ``log P(t | p) = log pi(t) + sum_i sum_c p_i(c) log P(c | t) + const``. p_objects: (..., M, C).
    """
    p = as_array("p_objects", p_objects, ndim=(2, 3, 4))
    lp, gp, pi = _priors(landmark_prior, goal_prior, room_prior)
    if p.shape[-1] != lp.shape[0]:
        raise ValueError(f"p_objects must have {lp.shape[0]} classes in its last axis, got {p.shape[-1]}")
    loglik = np.einsum("...mc,ct->...t", p, np.log(np.maximum(lp, 1e-300))) + np.log(pi)
    post = np.exp(loglik - loglik.max(-1, keepdims=True))
    post /= post.sum(-1, keepdims=True)
    return post @ gp


def _check_classes(p: np.ndarray, landmark_prior) -> None:
    lp = as_array("landmark_prior", landmark_prior, ndim=2)
    if p.shape[-1] != lp.shape[0]:
        raise ValueError(f"far_probs must have {lp.shape[0]} classes in its last axis, got {p.shape[-1]}")


def hard_utility(far_probs, landmark_prior, goal_prior, room_prior) -> np.ndarray:
    """Control B (SG-Nav analogue): each object written into the graph as its argmax label.

    far_probs: (R, M, C) for the observed candidate rooms. Returns the goal score per room (R,).
    """
    p = as_array("far_probs", far_probs, ndim=3)
    _check_classes(p, landmark_prior)
    return room_goal_score(p.argmax(-1), landmark_prior, goal_prior, room_prior)


def marginal_utility(far_probs, landmark_prior, goal_prior, room_prior) -> np.ndarray:
    """Control C: independent marginals plugged into the score. Returns (R,)."""
    p = as_array("far_probs", far_probs, ndim=3)
    _check_classes(p, landmark_prior)
    return plugin_goal_score(p, landmark_prior, goal_prior, room_prior)


def multiverse_utility(far_probs, landmark_prior, goal_prior, room_prior, *, q_unobserved: np.ndarray | None = None,
                       k: int = 64, threshold: float = 0.05, n_room_combos: int = 16,
                       combos: Sequence | None = None, room_scores: Sequence | None = None) -> tuple[np.ndarray, int]:
    """Method D: expected share of the goal over the top-K worlds.

    far_probs: (R, M, C) for the observed candidate rooms; q_unobserved: (U,) fixed scores of
    candidate rooms not yet observed (they enter every world's normaliser). Returns
    ``(U_observed (R,) followed by U_unobserved (U,), number of worlds kept)``.
    ``combos`` may pass precomputed ``room_combinations`` per room, and ``room_scores`` the matching
    ``room_goal_score`` of each room's combinations (a cache; the result is the same).
    """
    p = as_array("far_probs", far_probs, ndim=3, nonempty=False)
    _priors(landmark_prior, goal_prior, room_prior)
    _check_classes(p, landmark_prior)
    qu = np.zeros(0) if q_unobserved is None else np.asarray(q_unobserved, dtype=float).reshape(-1)
    if p.shape[0] == 0:
        return (qu / qu.sum() if qu.size else qu), 0
    if combos is None:
        combos = [room_combinations(p[r], n_room_combos) for r in range(p.shape[0])]
    if room_scores is None:
        q_rooms = [room_goal_score(lab, landmark_prior, goal_prior, room_prior) for lab, _ in combos]  # (n_r,)
    else:
        q_rooms = [np.asarray(q, dtype=float).reshape(-1) for q in room_scores]
        if len(q_rooms) != len(combos) or any(q.size != pr.size for q, (_, pr) in zip(q_rooms, combos)):
            raise ValueError("room_scores must hold one score per combination of each room")
    choices, w, _ = multiverse_topk([pr for _, pr in combos], k=k, threshold=threshold)
    q = np.stack([q_rooms[r][choices[:, r]] for r in range(p.shape[0])], axis=1)  # (W, R)
    if qu.size:
        q = np.concatenate([q, np.broadcast_to(qu, (q.shape[0], qu.size))], axis=1)
    share = q / q.sum(axis=1, keepdims=True)
    return w @ share, int(w.size)


def sampled_utility(far_probs, landmark_prior, goal_prior, room_prior, *, q_unobserved: np.ndarray | None = None,
                    n: int = 512, rng=0) -> tuple[np.ndarray, int]:
    """The full-joint expectation ``E_w[score_w(r)]`` estimated from ``n`` sampled worlds.

    Each world draws every observed object's label independently from its detector distribution
    ``far_probs`` (R, M, C); the score is the same as in :func:`multiverse_utility`. Returns
    ``(U (R + U,), n)``. A supporting arm (no top-K truncation, no threshold), not the paper's rule.
    """
    from icml26.core.validate import as_rng

    p = as_array("far_probs", far_probs, ndim=3)
    _priors(landmark_prior, goal_prior, room_prior)
    _check_classes(p, landmark_prior)
    if np.any(p < 0) or np.any(p.sum(-1) <= 0):
        raise ValueError("far_probs must be non-negative with a positive sum per object")
    n = check_int("n", n, minimum=1)
    gen = as_rng("rng", rng)
    qu = np.zeros(0) if q_unobserved is None else np.asarray(q_unobserved, dtype=float).reshape(-1)
    cdf = np.cumsum(p / p.sum(-1, keepdims=True), axis=-1)
    u = gen.random((n,) + p.shape[:2] + (1,))
    lab = np.minimum((u > cdf[None]).sum(-1), p.shape[-1] - 1)  # (n, R, M)
    q = room_goal_score(lab, landmark_prior, goal_prior, room_prior)  # (n, R)
    if qu.size:
        q = np.concatenate([q, np.broadcast_to(qu, (n, qu.size))], axis=1)
    return (q / q.sum(axis=1, keepdims=True)).mean(axis=0), n


# ----------------------------------------------------------------------------- the memory
def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (b @ a) / (np.linalg.norm(b, axis=-1) * np.linalg.norm(a) + 1e-12)


@dataclass
class EvidentialMemory:
    """Success / false-positive memory per goal category (the released code's form; see module docstring)."""

    max_docs: int = 20
    fp_threshold: float = 0.95
    success_threshold: float = 0.7
    diversity: float = 0.97
    boost: float = 1.1
    success: dict = field(default_factory=dict)   # category -> list[(feature, caption)]
    failure: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_int("max_docs", self.max_docs, minimum=1)
        for name in ("fp_threshold", "success_threshold", "diversity", "boost"):
            check_positive(name, getattr(self, name))

    def _add(self, store: dict, category: int, feature, caption: str) -> bool:
        f = as_array("feature", feature, ndim=1)
        docs = store.setdefault(int(category), [])
        if docs and float(_cos(f, np.stack([d[0] for d in docs])).max()) >= self.diversity:
            return False
        docs.append((f, caption))
        if len(docs) > self.max_docs:
            feats = np.stack([d[0] for d in docs])
            feats = feats / np.linalg.norm(feats, axis=1, keepdims=True)
            sim = feats @ feats.T
            np.fill_diagonal(sim, 0.0)
            docs.pop(int(np.argmax(sim.sum(1) / (len(docs) - 1))))
        return True

    def add_success(self, category: int, feature, caption: str) -> bool:
        """Store a verified goal instance after a successful episode (False if a near-duplicate)."""
        return self._add(self.success, category, feature, caption)

    def add_false_positive(self, category: int, feature, caption: str) -> bool:
        """Store the detection that made a failed episode stop."""
        return self._add(self.failure, category, feature, caption)

    def verify(self, category: int, feature, caption: str, confidence: float) -> tuple[bool, float]:
        """``(accepted, adjusted confidence)`` of a goal detection."""
        f = as_array("feature", feature, ndim=1)
        conf = check_positive("confidence", confidence, strict=False)
        fps = self.failure.get(int(category), [])
        if fps and float(_cos(f, np.stack([d[0] for d in fps])).max()) >= self.fp_threshold:
            return False, 0.0
        docs = [d for d in self.success.get(int(category), []) if d[1] == caption]
        if docs and float(_cos(f, np.stack([d[0] for d in docs])).max()) >= self.success_threshold:
            return True, min(1.0, conf * self.boost)
        return True, conf


# ----------------------------------------------------------------------------- one episode
@dataclass
class EpisodeResult:
    success: bool
    false_stop: bool
    path: float
    shortest: float
    worlds: float  # mean number of worlds kept per decision (D/E), 0 otherwise


def navigate(house, arm: str, *, prior: np.ndarray, budget: float = 60.0, search_cost: float = 4.0,
             stop_conf: float = 0.5, gamma: float = 0.7, memory: EvidentialMemory | None = None,
             k: int = 64, threshold: float = 0.05, n_room_combos: int = 16, view_hops: int = 1,
             boost_before_stop: bool = False, n_sampled: int = 512, sample_seed=0,
             world_cache: dict | None = None) -> EpisodeResult:
    """Run one episode of ``arm`` ('B', 'C', 'D', 'E', 'S') in ``house``.

    The agent searches its room (``search_cost`` steps), stops on the most confident goal
    detection whose confidence is ``>= stop_conf`` (arm E: among detections the memory does not
    veto; the success boost acts only after acceptance, as in the released code, unless
    ``boost_before_stop=True``, the first pass's non-code variant), else sees the landmarks of
    the rooms within ``view_hops`` doors (walking distance; 1 = next door), picks the unvisited room maximising ``U(r) * gamma ** (d(r) / room_size)``
    and walks there; it fails when the steps exceed ``budget`` or it stops at a false positive.
    Arm E (D + memory) writes its memory after the episode. Arm S is D with the top-K worlds
    replaced by ``n_sampled`` worlds drawn from the full joint (:func:`sampled_utility`; its
    generator is seeded by ``sample_seed``). ``world_cache``: an optional dict shared by the arms
    run on the same house (same goal, prior, ``n_room_combos``) that holds each room's
    combinations and their scores; it changes no result.
    """
    from icml26.agents.psg_nav.setting import CATEGORIES, ROOM_PRIOR, landmark_prior

    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    if arm == "E" and memory is None:
        raise ValueError("memory is required for arm 'E'")
    budget = check_positive("budget", budget)
    stop_conf = check_positive("stop_conf", stop_conf, strict=False)
    if not isinstance(boost_before_stop, (bool, np.bool_)):
        raise TypeError(f"boost_before_stop must be a bool, got {type(boost_before_stop).__name__}")
    sample_rng = np.random.default_rng(sample_seed) if arm == "S" else None
    h = house
    lp = landmark_prior(prior, h.goal)
    gp = prior[h.goal]
    q0 = float(ROOM_PRIOR @ gp)  # score of a room whose landmarks are unseen
    caption = CATEGORIES[h.goal]
    n = h.dist.shape[0]
    unit = float(min(d["weight"] for _, _, d in h.graph.edges(data=True)))
    visited = np.zeros(n, bool)
    observed = np.zeros(n, bool)
    combos: dict = {} if world_cache is None else world_cache
    cur, steps, worlds = h.start, 0.0, []
    shortest = float(h.dist[h.start, h.goal_room])
    stopped_on = None
    while True:
        steps += search_cost
        if steps > budget:
            break
        visited[cur] = True
        # candidate goal detections in this room: the goal instance and/or a false positive
        cands = []
        if cur == h.goal_room:
            cands.append((h.goal_conf, h.goal_app, True))
        if h.fp_conf[cur] > 0:
            cands.append((float(h.fp_conf[cur]), h.fp_app[cur], False))
        for conf, app, real in sorted(cands, key=lambda c: -c[0]):
            if arm == "E":
                ok, boosted = memory.verify(h.goal, app, caption, conf)
                if not ok:
                    continue
                if boost_before_stop:  # labelled variant only: the boosted confidence meets the STOP level
                    conf = boosted
            if conf >= stop_conf:
                stopped_on = (app, real)
                break
        if stopped_on is not None:
            break
        observed[h.dist[cur] <= view_hops * unit + 1e-9] = True
        cand = np.flatnonzero(~visited)
        if cand.size == 0:
            break
        obs = cand[observed[cand]]
        uno = cand[~observed[cand]]
        if arm == "B":
            u = np.concatenate([hard_utility(h.far_probs[obs], lp, gp, ROOM_PRIOR), np.full(uno.size, q0)])
        elif arm == "C":
            u = np.concatenate([marginal_utility(h.far_probs[obs], lp, gp, ROOM_PRIOR), np.full(uno.size, q0)])
        elif arm == "S" and obs.size == 0:
            u = np.full(uno.size, q0)
        elif arm == "S":
            u, nw = sampled_utility(h.far_probs[obs], lp, gp, ROOM_PRIOR, q_unobserved=np.full(uno.size, q0),
                                    n=n_sampled, rng=sample_rng)
            worlds.append(nw)
        else:
            for r in obs:
                if int(r) not in combos:
                    lab, pr = room_combinations(h.far_probs[r], n_room_combos)
                    combos[int(r)] = (lab, pr, room_goal_score(lab, lp, gp, ROOM_PRIOR))
            u, nw = multiverse_utility(h.far_probs[obs], lp, gp, ROOM_PRIOR, q_unobserved=np.full(uno.size, q0),
                                       k=k, threshold=threshold, combos=[combos[int(r)][:2] for r in obs],
                                       room_scores=[combos[int(r)][2] for r in obs])
            worlds.append(nw)
        order = np.concatenate([obs, uno])
        d = h.dist[cur, order]
        nxt = int(order[int(np.argmax(u * gamma ** (d / unit)))])
        steps += float(h.dist[cur, nxt])
        cur = nxt
    success = stopped_on is not None and stopped_on[1]
    false_stop = stopped_on is not None and not stopped_on[1]
    if arm == "E":
        if success:
            memory.add_success(h.goal, stopped_on[0], caption)
        elif false_stop:
            memory.add_false_positive(h.goal, stopped_on[0], caption)
    return EpisodeResult(bool(success), bool(false_stop), steps, shortest, float(np.mean(worlds)) if worlds else 0.0)


def EXAMPLES():
    """(public function, good kwargs) pairs for the common bad-input test."""
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(4), size=3)
    lp = rng.dirichlet(np.ones(4), size=3).T  # (C=4, T=3)
    return [
        (multiverse_topk, {"probs": [p[0], p[1]], "k": 4, "threshold": 0.05}),
        (room_combinations, {"p_objects": p, "n_max": 5}),
        (marginal_utility, {"far_probs": p[None], "landmark_prior": lp, "goal_prior": np.array([0.2, 0.5, 0.3]),
                            "room_prior": np.array([0.3, 0.3, 0.4])}),
        (sampled_utility, {"far_probs": p[None], "landmark_prior": lp, "goal_prior": np.array([0.2, 0.5, 0.3]),
                           "room_prior": np.array([0.3, 0.3, 0.4]), "n": 64, "rng": 0}),
        (hard_utility, {"far_probs": p[None], "landmark_prior": lp, "goal_prior": np.array([0.2, 0.5, 0.3]),
                        "room_prior": np.array([0.3, 0.3, 0.4])}),
    ]
