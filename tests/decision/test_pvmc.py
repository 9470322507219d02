"""Unit tests for PVMC (arXiv:2605.21108): exact identities on tiny instances, Kalman references,
statistical unbiasedness, gradients and input validation."""

import itertools
import math

import numpy as np
import pytest
import torch

from icml26.decision.pvmc.kalman import kalman_filter, rts_smoother
from icml26.decision.pvmc.method import (
    GaussianWindowProposal,
    LinearGaussianSSM,
    associative_reduce,
    associative_scan,
    diagonal_log_weights,
    dsmc_objective,
    dsmc_smoother,
    forward_backward_sequential,
    iwae_log_bound,
    log_kernels,
    log_matmul_exp,
    pvmc_log_likelihood,
    pvmc_objective,
    pvmc_smoothing,
    smoothing_mean,
    soft_resampling_pf,
    vae_bound,
)

from icml26.decision.pvmc.setting import draw_gaussian_particles, perturbed_marginal_proposal, random_stable_model

D = torch.float64


def _model(seed=0, dx=2, dy=2):
    return random_stable_model(dx, dy, np.random.default_rng(seed))


def _brute(l0, K):
    """Enumerate all N^(T+1) index paths: log L_hat and marginal smoothing weights."""
    B, N = l0.shape
    T = K.shape[1]
    logs, paths = [], list(itertools.product(range(N), repeat=T + 1))
    for path in paths:
        v = l0[:, path[0]].clone()
        for t in range(T):
            v = v + K[:, t, path[t], path[t + 1]]
        logs.append(v)
    logs = torch.stack(logs, -1)                                # (B, P)
    log_l = torch.logsumexp(logs, -1) - (T + 1) * math.log(N)
    w = torch.softmax(logs, -1)
    idx = torch.tensor(paths)                                    # (P, T+1)
    marg = torch.zeros(B, T + 1, N, dtype=l0.dtype)
    for t in range(T + 1):
        marg[:, t].index_add_(1, idx[:, t], w)
    return log_l, marg


def test_log_matmul_exp_matches_logsumexp_and_handles_minus_inf():
    g = torch.Generator().manual_seed(0)
    a = 50 * torch.randn(3, 4, 5, generator=g, dtype=D)
    b = 50 * torch.randn(3, 5, 6, generator=g, dtype=D)
    ref = torch.logsumexp(a.unsqueeze(-1) + b.unsqueeze(-3), dim=-2)
    assert torch.allclose(log_matmul_exp(a, b), ref, atol=1e-10)
    a[0, 1] = -float("inf")
    out = log_matmul_exp(a, b)
    assert torch.isneginf(out[0, 1]).all() and torch.isfinite(out[1]).all()


def test_log_matmul_exp_gradcheck():
    g = torch.Generator().manual_seed(1)
    a = torch.randn(2, 3, 4, generator=g, dtype=D, requires_grad=True)
    b = torch.randn(2, 4, 3, generator=g, dtype=D, requires_grad=True)
    assert torch.autograd.gradcheck(log_matmul_exp, (a, b))


@pytest.mark.parametrize("L", [1, 2, 3, 4, 5, 8, 9, 13])
def test_associative_scan_and_reduce_match_sequential(L):
    g = torch.Generator().manual_seed(L)
    mats = torch.randn(L, 3, 3, generator=g, dtype=D)
    scan = associative_scan(torch.matmul, mats)
    ref = [mats[0]]
    for i in range(1, L):
        ref.append(ref[-1] @ mats[i])
    assert torch.allclose(scan, torch.stack(ref), atol=1e-9)
    assert torch.allclose(associative_reduce(torch.matmul, mats), ref[-1], atol=1e-9)
    x = torch.arange(L, dtype=D)
    assert torch.equal(associative_scan(torch.add, x), torch.cumsum(x, 0))


@pytest.mark.parametrize("T,N", [(0, 3), (1, 2), (3, 3), (4, 2)])
def test_pvmc_equals_brute_force_enumeration(T, N):
    g = torch.Generator().manual_seed(10 * T + N)
    l0 = 3 * torch.randn(2, N, generator=g, dtype=D)
    K = 3 * torch.randn(2, T, N, N, generator=g, dtype=D)
    log_l, marg = _brute(l0, K)
    assert torch.allclose(pvmc_log_likelihood(l0, K), log_l, atol=1e-10)
    ls, lw = pvmc_smoothing(l0, K)
    assert torch.allclose(ls, log_l, atol=1e-10)
    assert torch.allclose(lw.exp(), marg, atol=1e-10)
    lq, lwq = forward_backward_sequential(l0, K)
    assert torch.allclose(lq, log_l, atol=1e-10) and torch.allclose(lwq.exp(), marg, atol=1e-10)


def test_scan_equals_sequential_long_chain_and_extreme_values():
    g = torch.Generator().manual_seed(3)
    l0 = 30 * torch.randn(3, 7, generator=g, dtype=D)
    K = 30 * torch.randn(3, 37, 7, 7, generator=g, dtype=D)
    ls, lw = pvmc_smoothing(l0, K)
    lq, lwq = forward_backward_sequential(l0, K)
    assert (ls - lq).abs().max() < 1e-8
    assert (lw.exp() - lwq.exp()).abs().max() < 1e-8
    assert torch.allclose(lw.exp().sum(-1), torch.ones(3, 38, dtype=D))
    assert (pvmc_log_likelihood(l0, K) - lq).abs().max() < 1e-8


def test_gradients_of_scan_match_sequential():
    g = torch.Generator().manual_seed(4)
    l0 = torch.randn(2, 4, generator=g, dtype=D, requires_grad=True)
    K = torch.randn(2, 6, 4, 4, generator=g, dtype=D, requires_grad=True)
    X = torch.randn(2, 7, 4, generator=g, dtype=D)
    f1 = pvmc_smoothing(l0, K)
    v1 = f1[0].sum() + (f1[1].exp() * X).sum()
    g1 = torch.autograd.grad(v1, (l0, K))
    f2 = forward_backward_sequential(l0, K)
    v2 = f2[0].sum() + (f2[1].exp() * X).sum()
    g2 = torch.autograd.grad(v2, (l0, K))
    for a, b in zip(g1, g2):
        assert torch.allclose(a, b, atol=1e-9)


def test_iwae_is_diagonal_subset_and_vae_below_iwae_pointwise():
    g = torch.Generator().manual_seed(5)
    l0 = torch.randn(50, 6, generator=g, dtype=D)
    K = torch.randn(50, 4, 6, 6, generator=g, dtype=D)
    diag = diagonal_log_weights(l0, K)
    manual = l0 + sum(K[:, t, torch.arange(6), torch.arange(6)] for t in range(4))
    assert torch.allclose(diag, manual)
    assert (vae_bound(l0, K) <= iwae_log_bound(l0, K) + 1e-12).all()


def test_kalman_matches_pykalman():
    pykalman = pytest.importorskip("pykalman")
    model = _model(1)
    torch.manual_seed(0)
    _, y = model.simulate(1, 15)
    A, Q, C, R, m0, P0 = [m.detach() for m in model.matrices()]
    kf = pykalman.KalmanFilter(transition_matrices=A.numpy(), observation_matrices=C.numpy(),
                               transition_covariance=Q.numpy(), observation_covariance=R.numpy(),
                               initial_state_mean=m0.numpy(), initial_state_covariance=P0.numpy())
    sm_ref, sc_ref = kf.smooth(y[0].numpy())
    ll_ref = kf.loglikelihood(y[0].numpy())
    with torch.no_grad():
        sm, sc, ll = rts_smoother(y, A, Q, C, R, m0, P0)
    assert np.allclose(sm[0].numpy(), sm_ref, atol=1e-8)
    assert np.allclose(sc.numpy(), sc_ref, atol=1e-8)
    assert abs(float(ll[0]) - ll_ref) < 1e-8


def test_pvmc_likelihood_estimate_is_unbiased_on_linear_gaussian():
    model = _model(2)
    torch.manual_seed(1)
    with torch.no_grad():
        _, y = model.simulate(1, 3)
        sm, sc, logp = rts_smoother(y, *model.matrices())
        std = 1.5 * torch.sqrt(torch.diagonal(sc, dim1=-2, dim2=-1))
        draws, N = 4000, 4
        X = sm[0][None, :, None] + std[None, :, None] * torch.randn(draws, 4, N, 2, dtype=D)
        z = (X - sm[0][None, :, None]) / std[None, :, None]
        log_v = -0.5 * (z * z).sum(-1) - torch.log(std).sum(-1)[None, :, None] - math.log(2 * math.pi)
        l0, K = log_kernels(model, y.expand(draws, -1, -1), X, log_v)
        ratio = torch.exp(pvmc_log_likelihood(l0, K) - logp)
        zscore = (ratio.mean() - 1) / (ratio.std() / math.sqrt(draws))
        assert abs(float(zscore)) < 4
        # and the bound sits below log p(y) and above IWAE on average
        ll = pvmc_log_likelihood(l0, K)
        assert ll.mean() < logp[0] and ll.mean() > iwae_log_bound(l0, K).mean()


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_soft_resampling_pf_likelihood_is_unbiased(alpha):
    model = _model(3)
    torch.manual_seed(2)
    with torch.no_grad():
        _, y = model.simulate(1, 3)
        *_, logp = kalman_filter(y, *model.matrices())
        out = soft_resampling_pf(model, y.expand(3000, -1, -1), 8, alpha=alpha)
        ratio = torch.exp(out["log_Z"] - logp)
        zscore = (ratio.mean() - 1) / (ratio.std() / math.sqrt(3000))
    assert abs(float(zscore)) < 4
    assert out["smooth_mean"].shape == (3000, 4, 2) and out["filter_mean"].shape == (3000, 4, 2)
    # at the last step the genealogy smoother and the filter agree
    assert torch.allclose(out["smooth_mean"][:, -1], out["filter_mean"][:, -1], atol=1e-10)


def test_log_kernels_layout():
    model = _model(4)
    g = torch.Generator().manual_seed(0)
    y = torch.randn(1, 3, 2, generator=g, dtype=D)
    X = torch.randn(1, 3, 4, 2, generator=g, dtype=D)
    log_v = torch.randn(1, 3, 4, generator=g, dtype=D)
    with torch.no_grad():
        l0, K = log_kernels(model, y, X, log_v)
        i, j, t = 1, 2, 2
        ref = (model.log_transition(X[0, t - 1, i], X[0, t, j]) + model.log_observation(y[0, t], X[0, t, j])
               - log_v[0, t, j])
        assert torch.allclose(K[0, t - 1, i, j], ref)
        ref0 = model.log_prior(X[0, 0, j]) + model.log_observation(y[0, 0], X[0, 0, j]) - log_v[0, 0, j]
        assert torch.allclose(l0[0, j], ref0)


def test_spectral_cap_and_training_step_runs():
    ssm = LinearGaussianSSM(2, 2, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        ssm.W.mul_(10)
    assert float(torch.linalg.matrix_norm(ssm.A.detach(), ord=2)) <= 0.98 + 1e-6
    prop = GaussianWindowProposal(2, 2, window=2)
    torch.manual_seed(0)
    x, y = ssm.simulate(4, 6)
    out = pvmc_objective(ssm, prop, y, 5, x_true=x)
    out["loss"].backward()
    assert all(torch.isfinite(p.grad).all() for p in list(ssm.parameters()) + list(prop.parameters()))
    assert out["mean"].shape == (4, 7, 2)
    out = pvmc_objective(ssm, prop, y, 5)        # generative mode
    assert out["mean"] is None and out["bound"].shape == (4,)


def test_stick_the_landing_removes_score_term():
    prop = GaussianWindowProposal(1, 1, window=0)
    y = torch.zeros(1, 1, 1)
    bias = prop.net[-1].bias                    # bias[0] shifts the mean, bias[1] the log-std
    torch.manual_seed(0)
    X, log_v = prop(y, 3, stick_the_landing=False)
    # full derivative of log N(mu + s*eps; mu, s) in mu is exactly zero (path and score cancel)
    assert abs(float(torch.autograd.grad(log_v.sum(), bias)[0][0])) < 1e-6
    torch.manual_seed(0)
    X, log_v = prop(y, 3, stick_the_landing=True)
    mean, log_std = prop.params(y)
    path_term = -((X - mean.unsqueeze(2)) / torch.exp(2 * log_std).unsqueeze(2)).sum()
    # STL keeps only the path term d log V / dX * dX / dmu
    assert torch.allclose(torch.autograd.grad(log_v.sum(), bias)[0][0], path_term.detach(), atol=1e-5)


def test_smoothing_mean_shape_check():
    with pytest.raises(ValueError, match="particles"):
        smoothing_mean(torch.zeros(2, 3, 4), torch.zeros(2, 3, 5, 1))


def test_input_validation():
    l0, K = torch.zeros(2, 3), torch.zeros(2, 4, 3, 3)
    with pytest.raises(ValueError, match="log_kernels"):
        pvmc_log_likelihood(l0, torch.zeros(2, 4, 3, 2))
    with pytest.raises(ValueError, match="l0"):
        pvmc_smoothing(torch.full((2, 3), float("nan")), K)
    with pytest.raises(ValueError, match="batch"):
        forward_backward_sequential(torch.zeros(3, 3), K)
    ssm = LinearGaussianSSM(2, 2)
    prop = GaussianWindowProposal(2, 2)
    y = torch.zeros(1, 5, 2)
    with pytest.raises(ValueError, match="n_particles"):
        pvmc_objective(ssm, prop, y, 0)
    with pytest.raises(ValueError, match="bound"):
        pvmc_objective(ssm, prop, y, 4, bound="elbo")
    with pytest.raises(ValueError, match="beta"):
        pvmc_objective(ssm, prop, y, 4, beta=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        soft_resampling_pf(ssm, y, 4, alpha=0.0)
    with pytest.raises(ValueError, match="y"):
        soft_resampling_pf(ssm, torch.zeros(5, 2), 4)
    with pytest.raises(ValueError, match="dx"):
        LinearGaussianSSM(0, 2)
    with pytest.raises(ValueError, match="y"):
        kalman_filter(torch.zeros(5, 2), *[m.detach() for m in ssm.matrices()])


def test_dsmc_with_one_particle_is_the_single_trajectory_weight():
    model = _model(5)
    g = torch.Generator().manual_seed(0)
    y = torch.randn(3, 6, 2, generator=g, dtype=D)
    X = torch.randn(3, 6, 1, 2, generator=g, dtype=D)
    log_v = torch.randn(3, 6, 1, generator=g, dtype=D)
    with torch.no_grad():
        out = dsmc_smoother(model, y, X, log_v, generator=g)
        l0, K = log_kernels(model, y, X, log_v)
    # N = 1: one trajectory, every pairing is that trajectory, log Z is its importance weight
    assert torch.allclose(out["log_Z"], diagonal_log_weights(l0, K)[:, 0], atol=1e-10)
    assert torch.allclose(out["paths"][:, 0], X[:, :, 0])


def test_dsmc_single_step_is_importance_sampling():
    model = _model(6)
    g = torch.Generator().manual_seed(1)
    y = torch.randn(2, 1, 2, generator=g, dtype=D)
    X = torch.randn(2, 1, 5, 2, generator=g, dtype=D)
    log_v = torch.randn(2, 1, 5, generator=g, dtype=D)
    with torch.no_grad():
        out = dsmc_smoother(model, y, X, log_v, generator=g)
        l0, K = log_kernels(model, y, X, log_v)
    assert torch.allclose(out["log_Z"], pvmc_log_likelihood(l0, K), atol=1e-10)


@pytest.mark.parametrize("T", [4, 6])
def test_dsmc_likelihood_is_unbiased_and_smoother_consistent(T):
    """d-SMC on fixed proposal draws: E exp(log_Z) = p(y); smoothing means approach RTS as N grows."""
    model = _model(3)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        _, y = model.simulate(1, T)
        sm, sc, logp = rts_smoother(y, *model.matrices())
        mean, std = perturbed_marginal_proposal(sm[0], sc, g)
        X, lv = draw_gaussian_particles(mean, std, 3000, 8, g)
        out = dsmc_smoother(model, y.expand(3000, -1, -1), X, lv, generator=g)
        ratio = torch.exp(out["log_Z"] - logp)
        assert abs(float((ratio.mean() - 1) / (ratio.std() / math.sqrt(3000)))) < 4
        err = []
        for N in (8, 128):
            X, lv = draw_gaussian_particles(mean, std, 200, N, g)
            est = dsmc_smoother(model, y.expand(200, -1, -1), X, lv, generator=g)["smooth_mean"]
            err.append(float(((est - sm[0]) ** 2).sum(-1).mean().sqrt()))
    assert err[1] < 0.5 * err[0]


def test_dsmc_objective_has_gradients():
    ssm = LinearGaussianSSM(2, 2, generator=torch.Generator().manual_seed(0))
    prop = GaussianWindowProposal(2, 2, window=2)
    torch.manual_seed(0)
    x, y = ssm.simulate(3, 6)
    out = dsmc_objective(ssm, prop, y, 4, x_true=x)
    out["loss"].backward()
    assert all(torch.isfinite(p.grad).all() for p in list(ssm.parameters()) + list(prop.parameters()))
    assert prop.net[0].weight.grad.abs().sum() > 0 and ssm.W.grad.abs().sum() > 0
    assert out["mean"].shape == (3, 7, 2)
