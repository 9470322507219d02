"""Known-answer tests for bt-cprd (arXiv:2602.10286): CPRD, BT representability, projections."""

import itertools

import numpy as np
import pytest

from icml26.alignment.bt_cprd.setting import (bt_triplets, cyclic_triplets, dirichlet_triplets,
                                           edges_to_weights, product_triplets, sample_triplets)
from icml26.alignment.bt_cprd.method import (algebraic_connectivity, bt_cprd, ci_scores,
                                             comparison_counts, cprd, cycle_inconsistency, fit_bt,
                                             fit_bt_pairs, fit_generative_bt,
                                             greedy_connectivity_design, is_bt_representable,
                                             kl_projection, pair_weights, weighted_kl)


@pytest.fixture
def rng():
    return np.random.default_rng(123)


def test_cprd_by_hand():
    D = np.array([[0, 0.3, 0.1], [0.1, 0, 0.0], [0.3, 0.0, 0]])
    om = cprd(D)
    assert om[0, 1] == pytest.approx(0.75)
    assert om[1, 0] == pytest.approx(0.25)
    assert om[0, 2] == pytest.approx(0.25)
    assert np.isnan(om[1, 2]) and np.isnan(om[0, 0])


def test_ci_gives_exact_bt(rng):
    Pp, Pm = rng.dirichlet(np.ones(7)), rng.dirichlet(np.ones(7))
    D = product_triplets(Pp, Pm)
    s = ci_scores(Pp, Pm)
    assert np.nanmax(np.abs(cprd(D) - bt_cprd(s))) < 1e-14
    assert is_bt_representable(cprd(D))


def test_bt_not_ci_is_representable_but_generative_biased(rng):
    s = rng.normal(size=6)
    W = np.triu(rng.random((6, 6)), 1)
    D = bt_triplets(s, W + W.T)
    assert cycle_inconsistency(cprd(D)) < 1e-10
    s_fit = fit_bt(D)
    assert np.max(np.abs(s_fit - (s - s.mean()))) < 1e-9
    s_gen = fit_generative_bt(D)[0]
    assert np.max(np.abs(s_gen - (s - s.mean()))) > 1e-3


def test_cycle_is_not_representable_and_brute_force_cycle_sum(rng):
    D, om = cyclic_triplets(5, 0.8, rng)
    assert not is_bt_representable(om)
    ell = np.log(om[0, 1] / om[1, 0]) + np.log(om[1, 2] / om[2, 1]) + np.log(om[2, 0] / om[0, 2])
    assert ell == pytest.approx(3 * np.log(4))
    # unstructured law: some triangle has a non-zero log-odds sum
    om2 = cprd(dirichlet_triplets(5, rng))
    sums = [np.log(om2[a, b] / om2[b, a]) + np.log(om2[b, c] / om2[c, b]) + np.log(om2[c, a] / om2[a, c])
            for a, b, c in itertools.combinations(range(5), 3)]
    assert max(abs(x) for x in sums) > 1e-3 and cycle_inconsistency(om2) > 1e-3


def test_population_mle_is_kl_projection_and_matches_choix(rng):
    import choix

    D, om = cyclic_triplets(7, 0.85, rng)
    W = pair_weights(D)
    s_mle, s_kl = fit_bt(D), kl_projection(om, W)
    s_ch = choix.ilsr_pairwise_dense(D * 1e4, tol=1e-13, max_iter=10000)
    assert np.max(np.abs(s_mle - s_kl)) < 1e-6
    assert np.max(np.abs(s_mle - (s_ch - s_ch.mean()))) < 1e-6
    # projection property: KL at the projection is below KL at random perturbations
    base = weighted_kl(om, W, s_kl)
    for _ in range(20):
        assert weighted_kl(om, W, s_kl + 0.05 * rng.normal(size=7)) > base
    # exponential-family moment matching: expected wins of every item are preserved
    R = D - W * np.nan_to_num(bt_cprd(s_mle))
    assert np.max(np.abs(R.sum(axis=1))) < 1e-9


def test_finite_sample_mle_agrees_with_choix_opt(rng):
    import choix

    s = rng.normal(size=6)
    D = bt_triplets(s, np.ones((6, 6)) - np.eye(6))
    w, l = sample_triplets(D, 600, rng)
    for l2 in (0.0, 0.5):
        ours = fit_bt_pairs(w, l, 6, l2=l2)
        ref = choix.opt_pairwise(6, list(zip(w.tolist(), l.tolist())), alpha=max(l2, 1e-12),
                                 method="Newton-CG", tol=1e-10)
        if l2 == 0.0:
            ref = ref - ref.mean()
        assert np.max(np.abs(ours - ref)) < 1e-5


def test_mle_gradient_matches_finite_differences(rng):
    from icml26.alignment.bt_cprd.method import _bt_nll

    C = rng.integers(0, 5, size=(5, 5)).astype(float)
    np.fill_diagonal(C, 0)
    s = rng.normal(size=5)
    _, g, H = _bt_nll(s, C, 0.3)
    eps = 1e-6
    for k in range(5):
        e = np.zeros(5)
        e[k] = eps
        fd = (_bt_nll(s + e, C, 0.3)[0] - _bt_nll(s - e, C, 0.3)[0]) / (2 * eps)
        assert fd == pytest.approx(g[k], rel=1e-6, abs=1e-7)
        gd = (_bt_nll(s + e, C, 0.3)[1] - _bt_nll(s - e, C, 0.3)[1]) / (2 * eps)
        assert np.allclose(gd, H[:, k], atol=1e-5)


def test_generative_recovers_ci_scores(rng):
    Pp, Pm = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    s_gen, u, v = fit_generative_bt(product_triplets(Pp, Pm))
    assert np.max(np.abs(s_gen - ci_scores(Pp, Pm))) < 1e-6


def test_algebraic_connectivity_closed_forms():
    n = 6
    path = edges_to_weights(n, [(k, k + 1) for k in range(n - 1)]) * (n - 1)
    cyc = edges_to_weights(n, [(k, (k + 1) % n) for k in range(n)]) * n
    comp = edges_to_weights(n, list(itertools.combinations(range(n), 2))) * (n * (n - 1) / 2)
    assert algebraic_connectivity(path) == pytest.approx(2 - 2 * np.cos(np.pi / n))
    assert algebraic_connectivity(cyc) == pytest.approx(2 - 2 * np.cos(2 * np.pi / n))
    assert algebraic_connectivity(comp) == pytest.approx(n)
    assert algebraic_connectivity(edges_to_weights(4, [(0, 1), (2, 3)])) == 0.0


def test_greedy_design_raises_lambda2():
    n = 10
    path = [(k, k + 1) for k in range(n - 1)]
    e = greedy_connectivity_design(n, 14, base_edges=path)
    assert len(e) == 14 and len({tuple(sorted(x)) for x in e}) == 14
    base = algebraic_connectivity(edges_to_weights(n, path) * len(path))
    assert algebraic_connectivity(edges_to_weights(n, e) * len(e)) > 3 * base


def test_validation():
    with pytest.raises(ValueError, match="D must have 2 dimension"):
        cprd(np.ones(3))
    with pytest.raises(ValueError, match="D must be a square"):
        cprd(np.ones((3, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        cprd(-np.ones((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        fit_bt(np.full((3, 3), np.nan))
    with pytest.raises(ValueError, match="l2"):
        fit_bt(np.ones((3, 3)), l2=-1)
    with pytest.raises(ValueError, match="itself"):
        comparison_counts(np.array([0, 1]), np.array([0, 2]), 3)
    with pytest.raises(ValueError, match="n_items"):
        comparison_counts(np.array([0]), np.array([1]), 1)
    with pytest.raises(ValueError, match="P_plus"):
        ci_scores(np.array([0.5, 0.0]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="diverges"):
        fit_bt(np.array([[0, 3.0], [0, 0]]))
    with pytest.raises(ValueError, match="p_cycle"):
        cyclic_triplets(4, 0.3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_pairs"):
        greedy_connectivity_design(4, 100)
    with pytest.raises(ValueError, match="tol"):
        is_bt_representable(bt_cprd(np.zeros(3)), tol=0)
    # issue 14: a NaN tolerance used to be accepted silently
    with pytest.raises(ValueError, match="tol"):
        fit_bt(np.ones((3, 3)), tol=float("nan"))
    with pytest.raises(TypeError, match="max_iter"):
        fit_bt(np.ones((3, 3)), max_iter=2.5)


def test_generative_fit_recovers_ci_scores_but_not_the_kl_projection():
    """Our product-family generative fit equals log P+ - log P- under independence, and is not the
    weighted-KL projection on cyclic data (why the KL-projection claim is discriminative only)."""
    rng = np.random.default_rng(3)
    Pp, Pm = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    s_gen = fit_generative_bt(product_triplets(Pp, Pm))[0]
    assert np.allclose(s_gen, ci_scores(Pp, Pm), atol=1e-6)
    D, omega = cyclic_triplets(6, 0.85, rng)
    s_kl = kl_projection(omega, pair_weights(D))
    assert np.allclose(fit_bt(D), s_kl, atol=1e-6)
    assert np.max(np.abs(fit_generative_bt(D)[0] - s_kl)) > 0.05
