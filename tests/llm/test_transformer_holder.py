"""Known answers for the Transformer-Hölder construction, targets and exponent bookkeeping."""

import math

import numpy as np
import pytest
import torch

hypothesis = pytest.importorskip("hypothesis", reason="property tests need hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from icml26.llm.transformer_holder.method import (HolderRegressor, StandardTransformer, blocks_for,  # noqa: E402
                                                  blocks_lower, blocks_upper, bookkeeping, construct_interpolant,
                                                  construction_bound, depth_for, error_exponents, grid_nodes,
                                                  minimax_exponent, sup_error)
from icml26.llm.transformer_holder.setting import cusp_target, thirds_cusp_target, weierstrass  # noqa: E402


def test_construction_interpolates_exactly_1d():
    f = lambda x: np.sin(3 * x[:, 0]) + x[:, 0] ** 2  # noqa: E731
    net = construct_interpolant(f, 1, 8)
    nodes = grid_nodes(8, 1)
    with torch.no_grad():
        out = net(torch.as_tensor(nodes, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(out, f(nodes), atol=1e-12)
    x = np.linspace(0, 1, 301)[:, None]
    with torch.no_grad():
        got = net(torch.as_tensor(x, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(got, np.interp(x[:, 0], nodes[:, 0], f(nodes)), atol=1e-12)


def test_construction_2d_reproduces_affine_functions_exactly():
    f = lambda x: 0.3 + 2 * x[:, 0] - 1.5 * x[:, 1]  # noqa: E731  P1 interpolation is exact on affine f
    net = construct_interpolant(f, 2, 4)
    x = np.random.default_rng(0).random((500, 2))
    assert sup_error(net, f, x) < 1e-12
    assert len(net.body.wq) == blocks_for(4, 2) == 50


def test_courant_basis_is_partition_of_unity():
    net = construct_interpolant(lambda x: np.ones(len(x)), 2, 5)
    x = np.random.default_rng(1).random((400, 2))
    assert sup_error(net, lambda x: np.ones(len(x)), x) < 1e-12


@pytest.mark.parametrize("d0,alpha", [(1, 0.5), (1, 1.0), (2, 0.5), (2, 1.0)])
def test_sup_error_under_bound(d0, alpha):
    f, H, c = thirds_cusp_target(d0, alpha, seed=3)
    for n in (4, 8):
        net = construct_interpolant(f, d0, n)
        pts = np.concatenate([np.random.default_rng(2).random((2000, d0)), c])
        assert sup_error(net, f, pts) <= construction_bound(H, alpha, n, d0) + 1e-12


def test_cusp_target_holder_constant():
    rng = np.random.default_rng(4)
    for d0 in (1, 2):
        f, H = cusp_target(d0, 0.5, rng.random((3, d0)), np.array([1.0, -0.5, 0.7]))
        x, y = rng.random((20000, d0)), rng.random((20000, d0))
        q = np.abs(f(x) - f(y)) / np.linalg.norm(x - y, axis=1) ** 0.5
        assert q.max() <= H + 1e-9


def test_weierstrass_values():
    w = weierstrass(0.5, terms=3)
    assert w(np.array([0.0]))[0] == pytest.approx(1 + 2 ** -0.5 + 0.5)


def test_attention_is_real_softmax_attention():
    torch.manual_seed(0)
    m = StandardTransformer(4, 6, 1, heads=2)
    h = torch.randn(2, 3, 4)
    out = m(h)
    q, k, v = h @ m.wq[0].T, h @ m.wk[0].T, h @ m.wv[0].T
    heads = []
    for i in range(2):
        sl = slice(2 * i, 2 * i + 2)
        a = torch.softmax(q[..., sl] @ k[..., sl].transpose(-1, -2) / math.sqrt(2), -1)
        heads.append(a @ v[..., sl])
    h2 = h + torch.cat(heads, -1) @ m.wo[0].T
    ref = h2 + torch.relu(h2 @ m.w1[0].T + m.b1[0]) @ m.w2[0].T + m.b2[0]
    torch.testing.assert_close(out, ref)


def test_regressor_shapes_and_gradient():
    m = HolderRegressor(2, width=8, hidden=8, blocks=2, heads=2)
    x = torch.rand(5, 2, requires_grad=True)
    y = m(x)
    assert y.shape == (5,)
    y.sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad).all()


def test_depth_schedule():
    assert [depth_for(n, 1, 0.5) for n in (128, 256, 1024, 4096, 10 ** 6)] == [1, 2, 4, 8, 8]


@settings(max_examples=60, deadline=None)
@given(d0=st.integers(1, 3), alpha=st.floats(0.05, 1.0), e1=st.floats(1e-4, 0.9), e2=st.floats(1e-4, 0.9))
def test_bounds_properties(d0, alpha, e1, e2):
    lo, hi = sorted((e1, e2))
    assert blocks_upper(lo, d0, alpha) >= blocks_upper(hi, d0, alpha)
    assert blocks_lower(lo, d0, alpha) <= blocks_upper(lo, d0, alpha)
    ratio = blocks_upper(lo, d0, alpha) / blocks_lower(lo, d0, alpha)
    assert math.isclose(math.log(ratio), -3 * d0 / (4 * alpha) * math.log(lo), rel_tol=1e-9)
    up, low = error_exponents(d0, alpha)
    assert low == pytest.approx(4 * up)
    assert -1 < minimax_exponent(d0, alpha) < 0


def test_sympy_bookkeeping():
    bk = bookkeeping()
    a, d = bk["symbols"]
    assert float(bk["risk_exponent"].subs({a: 0.5, d: 1})) == pytest.approx(-0.5)
    assert float(bk["depth_exponent"].subs({a: 1, d: 2})) == pytest.approx(0.5)
    assert float(bk["gap_factor"]) == 4


def test_bad_inputs():
    with pytest.raises(ValueError, match="alpha"):
        error_exponents(1, 1.5)
    with pytest.raises(ValueError, match="d0"):
        construct_interpolant(lambda x: x[:, 0], 3, 4)
    with pytest.raises(ValueError, match="f must return"):
        construct_interpolant(lambda x: np.full(len(x), np.nan), 1, 4)
