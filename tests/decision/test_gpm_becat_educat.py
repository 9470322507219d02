"""Our BECAT against an independent brute-force reading of the authors' EduCAT code.

The reference below is written from EduCAT's ``IRTModel.get_BE_weights`` / ``F_s_func`` /
``delta_q_S_t`` and ``BECATstrategy.adaptest_select`` (bigdata-ustc/EduCAT, read, not copied):
plain loops over item ids, one candidate at a time, nothing shared with ``method.py`` except
``prob``. In EduCAT's code:

* per item i, with P_i the model's P(correct): the loss gradient for a correct answer is
  (P_i - 1) a_i and for a wrong one P_i a_i (its ``bce_loss_derivative`` times ``P(1-P) a``);
* the expected distance of items i, j sums the four label pairs' gradient distances, and the
  pair (correct, correct) is weighted by (1 - P_i)(1 - P_j), (correct, wrong) by (1 - P_i) P_j,
  (wrong, correct) by P_i (1 - P_j), (wrong, wrong) by P_i P_j (each label's gradient carries the
  other label's probability; ``weights="educat"`` in ours); the distance is |.| (1-D only in
  EduCAT: ``math.fabs``; the Euclidean norm here for d > 1);
* w_ij = 100 - E_ij; F(S) = sum over the reference items not in S of max_{j in S} w_ij (-inf
  for an empty S); the reference items are the sampled ones, S and the candidate q;
* the score of q is F(S + q) - F(S); the pick is the argmax over unanswered items.
"""

import math

import numpy as np
import pytest

from icml26.decision.gpm import method as M


def _educat_expected_distance(p, a, i, j, swap):
    grad = {1: (p[i] - 1) * a[i], 0: p[i] * a[i]}
    grad_j = {1: (p[j] - 1) * a[j], 0: p[j] * a[j]}
    tot = 0.0
    for yi in (0, 1):
        for yj in (0, 1):
            # probability attached to this label pair: of the labels themselves, or (EduCAT) of the opposite ones
            li, lj = (1 - yi, 1 - yj) if swap else (yi, yj)
            w = (p[i] if li else 1 - p[i]) * (p[j] if lj else 1 - p[j])
            tot += w * math.sqrt(float(np.sum((grad[yi] - grad_j[yj]) ** 2)))
    return tot


def _educat_score(p, a, S, sampled, q, swap=True, d_const=100.0):
    V = sorted(set(sampled) | set(S) | {q})
    w = {(i, j): d_const - _educat_expected_distance(p, a, i, j, swap) for i in V for j in V}

    def F(Sset):
        total = 0.0
        for i in V:
            if i in Sset:
                continue
            total += max((w[i, j] for j in Sset), default=-math.inf)
        return total

    return F(list(S) + [q]) - F(list(S))


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("weights", ["educat", "paper"])
def test_becat_matches_educat_reference(d, weights):
    rng = np.random.default_rng(1000 + d)
    Q = 14
    picks_equal = 0
    for trial in range(6):
        a = rng.lognormal(0, 0.4, size=(Q, d))
        c = rng.normal(size=Q)
        theta = rng.normal(size=(1, d))
        p = M.prob(theta, a, c)[0]
        t = int(rng.integers(1, 5))
        order = rng.permutation(Q)
        S = order[:t]
        ref = order[t:t + t + 5]                          # |S| + 5 distinct unanswered items
        avail = np.ones((1, Q)); avail[0, S] = 0
        ours = M.becat_gains(theta, a, c, S[None], ref[None], weights=weights)[0]
        cand = [q for q in range(Q) if q not in S]
        refs = np.array([_educat_score(p, a, list(S), list(ref), q, swap=weights == "educat") for q in cand])
        diff = ours[cand] - refs
        # equal up to one constant over the candidates (100 - our D)
        np.testing.assert_allclose(diff, diff[0], atol=1e-9)
        picks_equal += cand[int(np.argmax(refs))] == int(np.argmax(np.where(avail[0] > 0, ours, -np.inf)))
    assert picks_equal == 6


def test_becat_constant_is_100_minus_D():
    rng = np.random.default_rng(7)
    Q, d = 10, 1
    a = rng.lognormal(0, 0.4, size=(Q, d)); c = rng.normal(size=Q); theta = rng.normal(size=(1, d))
    p = M.prob(theta, a, c)[0]
    S = np.array([2, 5]); ref = np.array([0, 1, 3, 4, 6, 7, 8])
    ours = M.becat_gains(theta, a, c, S[None], ref[None], weights="educat")[0]
    cand = np.arange(Q)
    V = np.r_[S, ref]
    E = lambda r, k: M.becat_expected_distance(theta, a, c, np.asarray(r)[None], np.asarray(k)[None], "educat")[0]
    D = max(E(V, cand).max(), E(V, S).max(), E(cand, S).max())
    q = 9
    assert ours[q] - _educat_score(p, a, list(S), list(ref), q) == pytest.approx(100.0 - D)


def test_educat_weights_differ_from_paper_weights():
    """The two weightings give different expected distances (so the choice matters)."""
    rng = np.random.default_rng(3)
    a = rng.lognormal(0, 0.4, size=(6, 1)); c = rng.normal(size=6) * 2; theta = np.zeros((1, 1))
    Ep = M.becat_expected_distance(theta, a, c, np.arange(6)[None], np.arange(6)[None], "paper")[0]
    Ee = M.becat_expected_distance(theta, a, c, np.arange(6)[None], np.arange(6)[None], "educat")[0]
    assert not np.allclose(Ep, Ee)
    np.testing.assert_allclose(np.diag(Ep), np.diag(Ee))    # an item against itself: the same
    with pytest.raises(ValueError, match="weights"):
        M.becat_expected_distance(theta, a, c, np.arange(6)[None], np.arange(6)[None], "other")


def test_becat_first_item_random_as_educat_script():
    rng = np.random.default_rng(0)
    Q = 30
    a = rng.lognormal(0, 0.4, size=(Q, 1)); c = rng.normal(size=Q)
    theta = np.zeros((400, 1)); avail = np.ones((400, Q)); avail[:, :3] = 0
    S = np.zeros((400, 0), dtype=int)
    picks = M.select_becat(theta, a, c, avail, S, np.random.default_rng(1))
    assert picks.min() >= 3 and len(np.unique(picks)) > 20        # uniform over the available items
    g = M.select_becat(theta, a, c, avail, S, np.random.default_rng(1), first="gain")
    assert g.min() >= 3
    with pytest.raises(ValueError, match="first"):
        M.select_becat(theta, a, c, avail, S, np.random.default_rng(1), first="other")
    # the weights are checked before the random first item returns (seventh session: order fixed)
    with pytest.raises(ValueError, match="weights"):
        M.select_becat(theta, a, c, avail, S, np.random.default_rng(1), weights="other")
