"""Known answers for PSG-Nav's multiverse enumeration, world scoring, memory and episode loop."""

import itertools

import numpy as np
import pytest

from icml26.agents.psg_nav import setting as S
from icml26.core.checks import paired_bootstrap
from icml26.agents.psg_nav.method import (EvidentialMemory, hard_utility, marginal_utility, multiverse_topk,
                                          multiverse_utility, navigate, room_combinations, room_goal_score,
                                          sampled_utility)


def _brute(probs):
    return sorted((float(np.prod([p[i] for p, i in zip(probs, idx)])), idx)
                  for idx in itertools.product(*[range(len(p)) for p in probs]))[::-1]


@pytest.mark.parametrize("seed", range(8))
def test_topk_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    probs = [rng.dirichlet(np.ones(s)) for s in rng.integers(1, 6, size=4)]
    total = int(np.prod([len(p) for p in probs]))
    for k in (1, 3, 10, total):
        choices, w, joint = multiverse_topk(probs, k=k, threshold=0.0, min_frac=0.0, normalise=True)
        brute = _brute(probs)[:k]
        assert np.allclose(joint, [b[0] for b in brute], rtol=1e-10)
        assert np.all(np.diff(joint) <= 1e-15), "worlds must come in non-increasing probability"
        assert len({tuple(c) for c in choices}) == len(choices), "no world twice"
        for c, j in zip(choices, joint):
            assert np.isclose(np.prod([p[i] for p, i in zip(probs, c)]), j)
        assert w.sum() == pytest.approx(1.0)


def test_threshold_and_relaxation():
    probs = [np.array([0.5, 0.3, 0.2]), np.array([0.6, 0.4])]  # joints: .30 .20 .18 .12 .12 .08
    _, _, j = multiverse_topk(probs, k=64, threshold=0.15, min_frac=0.0)
    assert np.allclose(j, [0.30, 0.20, 0.18])
    _, _, j = multiverse_topk(probs, k=4, threshold=0.0)
    assert j.size == 4  # capped at K
    # nothing passes: relaxed until K/4 worlds
    _, w, j = multiverse_topk(probs, k=16, threshold=0.9)
    assert j.size == 4 and np.allclose(j, [0.30, 0.20, 0.18, 0.12]) and w.sum() == pytest.approx(1.0)


def test_room_goal_score_matches_pgmpy():
    pgmpy = pytest.importorskip("pgmpy", reason="pgmpy gives the exact posterior")
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

    rng = np.random.default_rng(0)
    c, t = 4, 3
    lp = rng.dirichlet(np.ones(c), size=t).T  # (C, T)
    pi = rng.dirichlet(np.ones(t))
    gp = rng.random(t)
    bn = DiscreteBayesianNetwork([("T", "o0"), ("T", "o1")])
    bn.add_cpds(TabularCPD("T", t, pi.reshape(-1, 1)),
                TabularCPD("o0", c, lp, evidence=["T"], evidence_card=[t]),
                TabularCPD("o1", c, lp, evidence=["T"], evidence_card=[t]))
    ve = VariableElimination(bn)
    for labs in [(0, 1), (2, 2), (3, 0)]:
        post = ve.query(["T"], evidence={"o0": labs[0], "o1": labs[1]}, show_progress=False).values
        assert room_goal_score(np.array(labs), lp, gp, pi) == pytest.approx(float(post @ gp), rel=1e-10)
    assert pgmpy


def test_all_worlds_equal_exact_pgmpy_expectation():
    """With every world kept, D's utility is the exact expectation over the joint of independent nodes (pgmpy)."""
    pytest.importorskip("pgmpy", reason="pgmpy computes the exact joint")
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.inference import VariableElimination
    from pgmpy.models import DiscreteBayesianNetwork

    rng = np.random.default_rng(3)
    c, t, r, m = 3, 3, 2, 2
    far = rng.dirichlet(np.ones(c), size=(r, m))
    lp = rng.dirichlet(np.ones(c), size=t).T
    pi, gp = rng.dirichlet(np.ones(t)), rng.random(t)
    names = [f"o{i}{j}" for i in range(r) for j in range(m)]
    bn = DiscreteBayesianNetwork()
    bn.add_nodes_from(names)
    bn.add_cpds(*[TabularCPD(n, c, far[i, j].reshape(-1, 1)) for (i, j), n in
                  zip(itertools.product(range(r), range(m)), names)])
    joint = VariableElimination(bn).query(names, joint=True, show_progress=False)
    joint = joint.values.transpose([joint.variables.index(n) for n in names])
    exact = np.zeros(r + 1)
    q_un = np.array([0.25])
    for labs in itertools.product(range(c), repeat=r * m):
        q = np.concatenate([room_goal_score(np.array(labs).reshape(r, m), lp, gp, pi), q_un])
        exact += joint[labs] * q / q.sum()
    u, nw = multiverse_utility(far, lp, gp, pi, q_unobserved=q_un, k=c ** (r * m), threshold=0.0,
                               n_room_combos=c ** m)
    assert nw == c ** (r * m)
    assert np.allclose(u, exact, atol=1e-12)
    assert u.sum() == pytest.approx(1.0)


def test_certain_detections_make_the_arms_agree():
    rng = np.random.default_rng(1)
    prior = S.object_prior(1.0)
    lp = S.landmark_prior(prior, 0)
    labels = rng.integers(1, 10, size=(3, 3))
    onehot = np.eye(10)[labels]
    hard = hard_utility(onehot, lp, prior[0], S.ROOM_PRIOR)
    marg = marginal_utility(onehot, lp, prior[0], S.ROOM_PRIOR)
    u, nw = multiverse_utility(onehot, lp, prior[0], S.ROOM_PRIOR)
    assert nw == 1
    assert np.allclose(hard, marg)
    assert np.allclose(u, hard / hard.sum())


def test_world_average_differs_from_plugin():
    """The score is not additive over objects: a 50/50 sofa/bed is not a 'compromise' room."""
    prior = S.object_prior(1.0)
    lp = S.landmark_prior(prior, 7)  # goal: tv
    p = np.full((1, 1, 10), 1e-6)
    p[0, 0, [0, 1]] = 0.5
    p /= p.sum(-1, keepdims=True)
    combos = room_combinations(p[0], 10)
    exact = sum(pr * room_goal_score(lab, lp, prior[7], S.ROOM_PRIOR) for lab, pr in zip(*combos))
    assert not np.isclose(exact, marginal_utility(p, lp, prior[7], S.ROOM_PRIOR)[0], rtol=1e-3)


def test_memory_rejects_known_false_positive_and_boosts_successes():
    rng = np.random.default_rng(0)
    mem = EvidentialMemory()
    fp = rng.standard_normal(32)
    assert mem.verify(1, fp, "sofa", 0.8) == (True, 0.8)
    assert mem.add_false_positive(1, fp, "sofa")
    ok, conf = mem.verify(1, fp + 0.01 * rng.standard_normal(32), "sofa", 0.8)
    assert not ok and conf == 0.0
    assert mem.verify(2, fp, "tv", 0.8) == (True, 0.8)  # memories are per goal category
    good = rng.standard_normal(32)
    mem.add_success(1, good, "sofa")
    assert mem.verify(1, good, "sofa", 0.5)[1] == pytest.approx(0.55)
    assert mem.verify(1, good, "bed", 0.5)[1] == pytest.approx(0.5)  # caption must match
    assert mem.verify(1, good, "sofa", 0.95)[1] == pytest.approx(1.0)  # capped
    assert not mem.add_success(1, good * 2.0, "sofa")  # near-duplicate skipped (cosine 1 >= 0.97)


def test_memory_keeps_at_most_max_docs_and_drops_the_most_redundant():
    mem = EvidentialMemory(max_docs=3)
    e = np.eye(8)
    for v in (e[0], e[1], e[2]):
        mem.add_false_positive(0, v, "bed")
    mem.add_false_positive(0, e[0] + 0.9 * e[1], "bed")  # near e0 and e1: the most redundant
    feats = np.stack([d[0] for d in mem.failure[0]])
    assert len(feats) == 3
    assert not any(np.allclose(f, e[0] + 0.9 * e[1]) for f in feats)


def _house_with_decoy():
    rng = np.random.default_rng(5)
    dec = S.make_decoys(np.random.default_rng(1))
    protos = S.category_prototypes(np.random.default_rng(2))
    h = S.make_house(rng, prior=S.object_prior(1.0), decoys=dec, prototypes=protos, decoy_rate=0.0,
                     random_fp_rate=0.0)
    h.goal_conf = 0.9
    h.fp_conf[h.start] = 0.9  # a decoy in the starting room
    h.fp_app[h.start] = dec.appearance[0]
    h.fp_persistent[h.start] = True
    return h


def test_memory_turns_a_repeated_false_stop_into_search():
    h = _house_with_decoy()
    prior = S.object_prior(1.0)
    assert navigate(h, "D", prior=prior).false_stop
    mem = EvidentialMemory()
    first = navigate(h, "E", prior=prior, memory=mem)
    assert first.false_stop and len(mem.failure[h.goal]) == 1
    second = navigate(h, "E", prior=prior, memory=mem, budget=1e6)
    assert not second.false_stop and second.success


def test_detector_and_house_shapes():
    rng = np.random.default_rng(0)
    p = S.far_detection(rng, np.array([[0, 1, 2]]), accuracy=1.0, noise=0.0)
    assert p.shape == (1, 3, 10) and np.allclose(p.sum(-1), 1)
    assert np.all(p.argmax(-1) == [[0, 1, 2]])
    assert np.all(S.object_prior(2.0).sum(0) == pytest.approx(1.0))
    h = S.make_house(rng, prior=S.object_prior(1.0), decoys=S.make_decoys(rng), prototypes=S.category_prototypes(rng))
    assert h.dist.shape == (9, 9) and np.all(np.isfinite(h.dist)) and h.start != h.goal_room


def test_paired_bootstrap_check():
    ms = [{"a": [1, 1, 0, 1] * 20, "b": [0, 1, 0, 0] * 20} for _ in range(2)]
    chk = paired_bootstrap("a", "b")
    assert chk(ms).status == "reproduced"
    assert chk(chk.on_control(ms)).status == "not-reproduced"
    assert chk(chk.contradict(ms)).status == "not-reproduced"
    ni = paired_bootstrap("a", "b", mode="noninferior", margin=0.02)
    assert ni(ni.contradict(ms)).status == "not-reproduced"


@pytest.mark.parametrize("bad, exc", [({"k": 0}, ValueError), ({"threshold": float("nan")}, ValueError),
                                      ({"probs": []}, ValueError), ({"probs": ["ab"]}, TypeError),
                                      ({"probs": [np.array([0.5, -0.1])]}, ValueError)])
def test_bad_input(bad, exc):
    kwargs = {"probs": [np.array([0.6, 0.4])], "k": 4, "threshold": 0.05, **bad}
    with pytest.raises(exc):
        multiverse_topk(**kwargs)
    with pytest.raises(ValueError, match="arm"):
        navigate(_house_with_decoy(), "Z", prior=S.object_prior(1.0))
    with pytest.raises(ValueError, match="memory"):
        navigate(_house_with_decoy(), "E", prior=S.object_prior(1.0))


def _plain_houses(n=12):
    dec = S.make_decoys(np.random.default_rng(1))
    protos = S.category_prototypes(np.random.default_rng(2))
    return [S.make_house(np.random.default_rng([9, i]), prior=S.object_prior(1.0), decoys=dec, prototypes=protos,
                         decoy_rate=0.0, random_fp_rate=0.0) for i in range(n)]


def test_memory_without_boost_or_false_positives_equals_D():
    """E differs from D only through the memory: with boost 1 and no stored false positive, episodes match."""
    prior = S.object_prior(1.0)
    mem = EvidentialMemory(boost=1.0)
    for h in _plain_houses():
        d = navigate(h, "D", prior=prior)
        e = navigate(h, "E", prior=prior, memory=mem)
        assert (d.success, d.false_stop, d.path) == (e.success, e.false_stop, e.path)


def test_boost_never_creates_a_stop_as_in_the_released_code():
    """The success boost acts on an accepted detection only: a remembered goal below the STOP level is not a STOP.

    The first pass's form (``boost_before_stop=True``, arm Eb) does stop there, like lowering D's level."""
    prior = S.object_prior(1.0)
    h = _plain_houses(1)[0]
    h.goal_conf = 0.47
    assert not navigate(h, "D", prior=prior, budget=1e6).success  # below D's STOP level 0.5: never stops
    mem = EvidentialMemory()
    mem.add_success(h.goal, h.goal_app, S.CATEGORIES[h.goal])
    assert mem.verify(h.goal, h.goal_app, S.CATEGORIES[h.goal], 0.47)[1] == pytest.approx(0.517)  # boosted
    assert not navigate(h, "E", prior=prior, memory=mem, budget=1e6).success
    assert navigate(h, "E", prior=prior, memory=mem, budget=1e6, boost_before_stop=True).success
    assert navigate(h, "D", prior=prior, budget=1e6, stop_conf=0.45).success  # the same as lowering D's level
    with pytest.raises(TypeError, match="boost_before_stop"):
        navigate(h, "E", prior=prior, memory=mem, boost_before_stop="yes")


def test_veto_only_memory_equals_the_code_faithful_memory():
    """With the boost acting after acceptance, boost 1.1 and boost 1 (veto only) give identical episodes."""
    prior = S.object_prior(1.0)
    dec = S.make_decoys(np.random.default_rng(1))
    protos = S.category_prototypes(np.random.default_rng(2))
    m1, m0 = EvidentialMemory(), EvidentialMemory(boost=1.0)
    for i in range(25):
        h = S.make_house(np.random.default_rng([11, i]), prior=prior, decoys=dec, prototypes=protos, decoy_rate=0.5)
        a = navigate(h, "E", prior=prior, memory=m1)
        b = navigate(h, "E", prior=prior, memory=m0)
        assert (a.success, a.false_stop, a.path) == (b.success, b.false_stop, b.path)


def test_sampled_utility_converges_to_the_exact_expectation():
    rng = np.random.default_rng(3)
    c, t, m, r = 4, 3, 2, 2
    far = rng.dirichlet(np.ones(c), size=(r, m))
    lp = rng.dirichlet(np.ones(c), size=t).T
    gp, pi = rng.random(t), rng.dirichlet(np.ones(t))
    q_un = np.array([0.3])
    exact, _ = multiverse_utility(far, lp, gp, pi, q_unobserved=q_un, k=c ** (m * r), threshold=0.0,
                                  n_room_combos=c ** m)
    est, n = sampled_utility(far, lp, gp, pi, q_unobserved=q_un, n=200_000, rng=0)
    assert n == 200_000 and est.sum() == pytest.approx(1.0)
    assert np.allclose(est, exact, atol=3e-3)
    # certain detections: every sample is the one world, so the estimate is exact
    hard = np.eye(c)[rng.integers(0, c, size=(r, m))]
    assert np.allclose(sampled_utility(hard, lp, gp, pi, n=7)[0], multiverse_utility(hard, lp, gp, pi)[0])
    with pytest.raises(ValueError, match="far_probs"):
        sampled_utility(-far, lp, gp, pi)


def test_sampled_arm_runs_and_is_deterministic_in_its_seed():
    prior = S.object_prior(1.0)
    h = _plain_houses(1)[0]
    a = navigate(h, "S", prior=prior, sample_seed=[1, 2])
    b = navigate(h, "S", prior=prior, sample_seed=[1, 2])
    assert (a.success, a.path, a.worlds) == (b.success, b.path, b.worlds) and a.worlds in (0.0, 512.0)
