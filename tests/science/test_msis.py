"""Unit tests for the MSIS overlap estimator (arXiv:2603.14515): known answers, consistency, validation."""

import numpy as np
import pytest

from icml26.science.msis.setting import draw_samples, eigenbasis, trial_states
from icml26.science.msis.method import (msis_ratio, normalizer_ratios, overlap_from_ratio,
                                        overlap_penalty, per_state_ratio, triangular_alpha)


def _scaled_copies(ns=4, n=50, seed=0):
    """All states are the same function times a_k: R_ij = a_j / a_i and c_k ∝ a_k^2 exactly."""
    rng = np.random.default_rng(seed)
    a = np.exp(rng.uniform(-3, 3, size=ns)) * rng.choice([-1.0, 1.0], size=ns)
    f = rng.normal(size=(ns, n))  # shared function values at every sample
    vals = f[:, :, None] * a[None, None, :]
    return np.log(np.abs(vals)), np.sign(vals), a


def test_overlap_from_ratio_symmetrises():
    R = np.array([[1.0, 0.5], [0.2, 1.0]])
    S = overlap_from_ratio(R)
    np.testing.assert_allclose(S, [[1.0, np.sqrt(0.1)], [np.sqrt(0.1), 1.0]])
    S2 = overlap_from_ratio(np.array([[1.0, -0.5], [0.2, 1.0]]))
    assert S2[0, 1] == 0.0 and S2[1, 0] == 0.0  # product < 0 is clipped to 0


def test_estimators_exact_for_scaled_copies():
    lp, sg, a = _scaled_copies()
    expect = a[None, :] / a[:, None]
    np.testing.assert_allclose(per_state_ratio(lp, sg), expect, rtol=1e-10)
    np.testing.assert_allclose(msis_ratio(lp, sg), expect, rtol=1e-10)
    np.testing.assert_allclose(np.abs(overlap_from_ratio(msis_ratio(lp, sg))), 1.0, rtol=1e-10)


def test_normalizer_ratios_exact_for_scaled_copies():
    lp, _, a = _scaled_copies(ns=5)
    exact = 2 * np.log(np.abs(a / a[0]))
    np.testing.assert_allclose(normalizer_ratios(lp, iterations=1, ridge=0.0), exact, atol=1e-8)
    np.testing.assert_allclose(normalizer_ratios(lp), exact, atol=1e-6)  # default ridge, 10 solves


def test_normalizer_ratios_clip_and_shift_invariance():
    lp, _, a = _scaled_copies(ns=3)
    log_c = normalizer_ratios(lp, log_c_init=np.zeros(3), max_update_factor=2.0)
    assert np.all(np.abs(log_c) <= np.log(2.0) + 1e-12)
    # a constant shift of the initial guess changes nothing
    np.testing.assert_allclose(normalizer_ratios(lp, log_c_init=np.full(3, 7.0)), normalizer_ratios(lp))


def _double_well_instance(ns=4, n=4000, seed=1):
    rng = np.random.default_rng(seed)
    _, phi = eigenbasis("double_well_1d", ns + 4, 600)
    A, S = trial_states(ns, ns + 4, 0.3, rng)
    lp, sg, log_c = draw_samples(A, phi, n, rng)
    return lp, sg, log_c, S


def test_msis_is_consistent_and_ratios_match_quadrature():
    lp, sg, log_c, S = _double_well_instance()
    log_c_hat = normalizer_ratios(lp)
    np.testing.assert_allclose(log_c_hat, log_c - log_c[0], atol=0.05)
    np.testing.assert_allclose(overlap_from_ratio(msis_ratio(lp, sg)), S, atol=0.02)
    np.testing.assert_allclose(overlap_from_ratio(per_state_ratio(lp, sg)), S, atol=0.05)


def test_msis_exact_normalisers_on_full_support_is_exact():
    """If the pool is weighted so that every grid point appears in proportion to the mixture,
    the self-normalised MSIS sums are the exact quadrature: check with exact expectations."""
    rng = np.random.default_rng(3)
    _, phi = eigenbasis("double_well_1d", 6, 300)
    A, S = trial_states(3, 6, 0.3, rng)
    psi = phi @ A.T  # (points, Ns)
    c = (psi ** 2).sum(0)
    Q = (psi ** 2 / c).sum(1)
    num = (psi[:, :, None] * psi[:, None, :] / Q[:, None, None] * Q[:, None, None]).sum(0)
    np.testing.assert_allclose(overlap_from_ratio(num / np.diag(num)[:, None]), S, atol=1e-12)


def test_eigenbasis_matches_analytic_oscillator():
    E, phi = eigenbasis("oscillator_2d", 4, 110)
    expect = np.sort([(i + 0.5) + np.sqrt(2) * (j + 0.5) for i in range(4) for j in range(4)])[:4]
    np.testing.assert_allclose(E, expect, atol=2e-2)  # O(h^2) finite-difference error
    np.testing.assert_allclose(phi.T @ phi, np.eye(4), atol=1e-10)


def test_penalty_and_alpha():
    alpha = triangular_alpha(3, 4.0)
    assert alpha[1, 0] == 4.0 and alpha[0, 1] == 0.0 and np.all(np.diag(alpha) == 0)
    S = np.array([[1, 0.1, 0.2], [0.1, 1, 0.3], [0.2, 0.3, 1]])
    assert overlap_penalty(S, alpha) == pytest.approx(4.0 * (0.01 + 0.04 + 0.09))


@pytest.mark.parametrize("call", [
    lambda: per_state_ratio(np.zeros((2, 3, 3))),
    lambda: per_state_ratio(np.full((2, 3, 2), np.nan)),
    lambda: msis_ratio(np.zeros((2, 0, 2))),
    lambda: msis_ratio(np.zeros((2, 3, 2)), sign=np.zeros((2, 3, 2))),
    lambda: msis_ratio(np.zeros((2, 3, 2)), log_c=np.zeros(3)),
    lambda: normalizer_ratios(np.zeros((2, 3, 2)), iterations=0),
    lambda: normalizer_ratios(np.zeros((2, 3, 2)), max_update_factor=1.0),
    lambda: normalizer_ratios(np.zeros((2, 3, 2)), ridge=-1.0),
    lambda: overlap_from_ratio(np.zeros((2, 3))),
    lambda: triangular_alpha(0),
    lambda: eigenbasis("hydrogen", 3, 100),
])
def test_invalid_input_raises(call):
    with pytest.raises(ValueError):
        call()


def test_penalty_vmc_with_exact_overlaps_limit_recovers_ritz_levels():
    """With many samples both estimators drive the states to the basis' lowest Ritz levels."""
    from icml26.science.msis.vmc import double_well_problem, penalty_vmc

    problem = double_well_problem(8, 300)
    for est in ("per_state", "msis"):
        r = penalty_vmc(problem, 3, est, 400, 400, np.random.default_rng(0), lr=0.02, penalty=10.0)
        assert r["err_end"] < 0.1 * r["err_start"]
        assert r["err_end"] < 0.15
        assert r["max_overlap"] < 0.2


def test_double_well_ritz_values_bound_the_exact_levels():
    from icml26.science.msis.vmc import double_well_problem

    exact, _ = eigenbasis("double_well_1d", 4, 300)
    ritz = double_well_problem(12, 300)["ritz"][:4]
    assert np.all(ritz >= exact - 1e-9)           # variational: the basis cannot go below the grid levels
    assert np.all(ritz - exact < 0.2)


def test_bad_inputs_name_the_argument():
    from icml26.science.msis.method import normalizer_ratios, overlap_penalty

    lp = np.zeros((2, 3, 2))
    with pytest.raises(ValueError, match="ridge"):
        normalizer_ratios(lp, ridge=float("nan"))
    with pytest.raises(TypeError, match="ridge"):
        normalizer_ratios(lp, ridge="0.5")
    with pytest.raises(ValueError, match="S"):
        overlap_penalty(np.full((2, 2), np.nan), np.ones((2, 2)))
