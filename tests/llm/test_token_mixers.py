"""Unit tests for the unified token-mixing solve, index patterns, caches and the multi-state layer."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from icml26.llm.token_mixers import method as M


def _rand_system(n=20, d=3, pattern="fenwick", seed=0):
    g = torch.Generator().manual_seed(seed)
    P, valid = M.parent_table(n, pattern)
    lam = (torch.rand(2, n, P.shape[1], generator=g, dtype=torch.float64) * 2 - 1) / P.shape[1]
    B = M.build_B(lam, P, valid)
    A = torch.randn(2, n, n, generator=g, dtype=torch.float64).tril()
    X = torch.randn(2, n, d, generator=g, dtype=torch.float64)
    return A, B, X


@pytest.mark.parametrize("pattern", M.PATTERNS)
def test_solve_equals_step_by_step_recurrence(pattern):
    A, B, X = _rand_system(pattern=pattern)
    torch.testing.assert_close(M.unified_mix(A, B, X), M.recurrent_scan(A, B, X), atol=1e-12, rtol=0)


def test_solve_matches_scipy_triangular_solve():
    from scipy.sparse import csr_matrix
    from scipy.sparse.linalg import spsolve_triangular

    A, B, X = _rand_system(n=30, pattern="quadratic")
    ref = spsolve_triangular(csr_matrix(np.eye(30) - B[0].numpy()), (A[0] @ X[0]).numpy(), lower=True)
    np.testing.assert_allclose(M.unified_mix(A, B, X)[0].numpy(), ref, atol=1e-12)


def test_softmax_attention_is_B_zero():
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 3, 17, 8, generator=g, dtype=torch.float64) for _ in range(3))
    A, B = M.softmax_attention_unified(q, k)
    assert torch.all(B == 0)
    torch.testing.assert_close(M.unified_mix(A, B, v), F.scaled_dot_product_attention(q, k, v, is_causal=True))


def test_diagonal_ssm_is_first_order_pattern():
    g = torch.Generator().manual_seed(2)
    n = 25
    lam = torch.rand(n, generator=g, dtype=torch.float64)
    b = torch.rand(n, generator=g, dtype=torch.float64)
    x = torch.randn(n, 4, generator=g, dtype=torch.float64)
    P, valid = M.parent_table(n, "first-order")
    B = M.build_B(lam[:, None], P, valid)
    y = M.unified_mix(torch.diag(b), B, x)
    h = torch.zeros(4, dtype=torch.float64)
    for t in range(n):  # y_t = lam_t y_{t-1} + b_t x_t (lam_0 is unused: no predecessor)
        h = (lam[t] * h if t else 0 * h) + b[t] * x[t]
        torch.testing.assert_close(y[t], h)


def test_patterns_known_rows():
    assert M.parents(13, "dyadic") == [12, 11, 9, 5]
    assert M.parents(13, "quadratic") == [12, 11, 8, 3]
    assert M.parents(13, "fenwick") == [12, 11, 7]
    assert M.parents(13, "sqrt-blocks") == [12, 9, 5, 2, 0]
    assert M.parents(0, "dense") == [] and M.parents(3, "first-order") == [2]


def test_live_states_brute_force_and_laws():
    for pat in M.PATTERNS:
        n = 40
        needs = [set(M.parents(t, pat)) for t in range(n)]
        brute = [len({s for s in range(t) if any(s in needs[u] for u in range(t, n))}) for t in range(n)]
        assert list(M.live_states(n, pat)) == brute, pat
    for n in (64, 256, 1024):
        assert M.live_states(n, "first-order").max() == 1
        assert M.live_states(n, "fenwick").max() <= np.log2(n) + 1
        assert M.live_states(n, "dense").max() == n - 1
        assert M.live_states(n, "dyadic").max() == n // 2  # translation-invariant offsets keep O(n)
    assert M.recurrence_nnz(1024, "dyadic") == sum(int(np.log2(t)) + 1 for t in range(1, 1024))


def test_state_readout_equals_explicit_matrix_states_and_live_decoder():
    g = torch.Generator().manual_seed(3)
    n, dk, dv = 33, 4, 5
    for pat in ("first-order", "fenwick", "sqrt-blocks", "dyadic"):
        P, valid = M.parent_table(n, pat)
        lam = torch.rand(2, n, P.shape[1], generator=g, dtype=torch.float64) / P.shape[1]
        q, k = (torch.randn(2, n, dk, generator=g, dtype=torch.float64) for _ in range(2))
        v = torch.randn(2, n, dv, generator=g, dtype=torch.float64)
        B = M.build_B(lam, P, valid)
        Mx = torch.linalg.inv(torch.eye(n, dtype=torch.float64) - B)
        o = M.masked_state_readout(Mx, q, k, v)
        o_all, _ = M.state_recurrence_reference(lam, P, valid, q, k, v, keep_only_live=False)
        o_live, cache = M.state_recurrence_reference(lam, P, valid, q, k, v, keep_only_live=True)
        torch.testing.assert_close(o, o_all)
        torch.testing.assert_close(o, o_live)
        assert cache == list(M.live_states(n, pat))


def test_layer_is_causal_and_gradients_flow():
    torch.manual_seed(0)
    layer = M.MultiStateMixer(16, 2, "fenwick", max_len=24)
    x = torch.randn(2, 20, 16, requires_grad=True)
    y, _ = layer(x)
    x2 = x.detach().clone()
    x2[:, 12:] += 1.0
    y2, _ = layer(x2)
    torch.testing.assert_close(y[:, :12], y2[:, :12])
    y.sum().backward()
    assert torch.isfinite(x.grad).all() and layer.gate.weight.grad.abs().sum() > 0
    lam = layer.coefficients(x.detach())[3]
    assert (lam.sum(-1) < 1).all() and (lam >= 0).all()


def test_layer_gradcheck_small():
    torch.manual_seed(0)
    layer = M.MultiStateMixer(4, 1, "quadratic", max_len=8).double()
    x = torch.randn(1, 7, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda z: layer(z)[0], (x,))


def test_mqar_batch_labels_point_to_values():
    from icml26.llm.token_mixers.setting import mqar_batch

    seq, lab = mqar_batch(torch.Generator().manual_seed(0), 4, 40, 5)
    for i in range(4):
        pairs = {int(seq[i, 2 * j]): int(seq[i, 2 * j + 1]) for j in range(5)}
        pos = (lab[i] != -100).nonzero().flatten()
        assert len(pos) == 5
        for p in pos:
            assert pairs[int(seq[i, p])] == int(lab[i, p])


def test_validation():
    with pytest.raises(ValueError, match="pattern"):
        M.parents(3, "cubic")
    A, B, X = _rand_system(n=6)
    with pytest.raises(ValueError, match="strictly lower"):
        M.unified_mix(A, B + torch.eye(6, dtype=torch.float64), X)
    with pytest.raises(ValueError, match="lower-triangular"):
        M.unified_mix(A.transpose(-1, -2), B, X)
    with pytest.raises(ValueError, match="X must be"):
        M.unified_mix(A, B, X[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        M.unified_mix(A, B, X * float("nan"))
    with pytest.raises(ValueError, match="n must be"):
        M.live_states(0, "dense")
    with pytest.raises(ValueError, match="divisible"):
        M.MultiStateMixer(10, 3, "fenwick", 8)


def test_lm_batch_repeats_are_verbatim_copies():
    """With p_copy = 1 every token after the warm-up belongs to a copied span of earlier tokens."""
    from icml26.llm.token_mixers.setting import copy_language, lm_batch

    T = copy_language(6, np.random.default_rng(0), n_succ=2)
    np.testing.assert_allclose(T.sum(1), 1.0)
    x = lm_batch(T, torch.Generator().manual_seed(0), 3, 30, p_copy=0.0)
    # no copies: every transition is allowed by the chain
    assert all(T[a, b] > 0 for row in x.tolist() for a, b in zip(row, row[1:]))
    y = lm_batch(T, torch.Generator().manual_seed(0), 3, 30, p_copy=1.0, copy_len=4)
    # the span starting at position 8 (= 2 copy_len) repeats 4 earlier tokens
    for row in y.tolist():
        assert any(row[8:12] == row[s:s + 4] for s in range(0, 8))


def test_translation_invariant_offsets_keep_linear_cache():
    """The paper's 2^k offsets read y_{t-2^k} for every k, so about half of all past outputs stay live."""
    for n in (64, 256):
        assert M.live_states(n, "dyadic").max() >= n // 2 - 1
        assert M.live_states(n, "fenwick").max() <= int(np.log2(n)) + 1


def test_layer_rejects_bad_input():
    with pytest.raises(ValueError, match="n_heads"):
        M.MultiStateMixer(8, 0, "fenwick", 16)
    layer = M.MultiStateMixer(8, 2, "fenwick", 16)
    with pytest.raises(ValueError, match="x must be"):
        layer(torch.randn(5, 8))
    with pytest.raises(ValueError, match="x must be"):
        layer(torch.randn(1, 5, 6))
    with pytest.raises(TypeError, match="A must be a torch tensor"):
        M.unified_mix(np.eye(3), torch.zeros(3, 3), torch.ones(3, 1))


def test_short_conv_is_causal_depthwise_and_matches_explicit_sum():
    torch.manual_seed(0)
    wrap = M.ShortConv(torch.nn.Identity(), 6, kernel=3)
    x = torch.randn(2, 10, 6)
    h = wrap.mix_input(x)
    w, b = wrap.conv.weight[:, 0], wrap.conv.bias  # (d, kernel): tap kernel-1 is the current position
    ref = torch.stack([b + sum(w[:, 2 - j] * (x[:, t - j] if t - j >= 0 else 0) for j in range(3))
                       for t in range(10)], dim=1)
    torch.testing.assert_close(h, ref)
    x2 = x.clone()
    x2[:, 7:] += 1.0
    torch.testing.assert_close(wrap.mix_input(x2)[:, :7], h[:, :7])


def test_mixer_factory_wraps_every_mixer_alike():
    from icml26.nn import LMConfig, TinyLM
    from icml26.nn.transformer import CausalSelfAttention

    cfg = LMConfig(vocab_size=11, d_model=16, n_layers=2, n_heads=2, max_len=20)
    for pat in ("attention", "first-order", "fenwick"):
        model = TinyLM(cfg, mixer=M.mixer_factory(pat, conv_kernel=3))
        layer = model.blocks[0].attn
        assert isinstance(layer, M.ShortConv) and layer.kernel == 3
        assert isinstance(layer.inner, CausalSelfAttention if pat == "attention" else M.MultiStateMixer)
        logits, _ = model(torch.randint(0, 11, (2, 12)))
        assert logits.shape == (2, 12, 11)
    assert isinstance(TinyLM(cfg, mixer=M.mixer_factory("dyadic")).blocks[0].attn, M.MultiStateMixer)
    with pytest.raises(ValueError, match="pattern"):
        M.mixer_factory("cubic")
    with pytest.raises(ValueError, match="conv_kernel"):
        M.mixer_factory("dyadic", conv_kernel=-1)
    with pytest.raises(ValueError, match="past"):
        M.ShortConv(torch.nn.Identity(), 4)(torch.randn(1, 3, 4), past=(1, 2))
    with pytest.raises(TypeError, match="inner"):
        M.ShortConv("attention", 4)


def test_normalize_qk_gives_unit_query_and_key_rows():
    torch.manual_seed(0)
    x = torch.randn(2, 9, 8)
    q, k, _, _ = M.MultiStateMixer(8, 2, "dyadic", 16).coefficients(x)
    torch.testing.assert_close(q.norm(dim=-1), torch.ones(2, 2, 9))
    torch.testing.assert_close(k.norm(dim=-1), torch.ones(2, 2, 9))
    with pytest.raises(TypeError, match="normalize_qk"):
        M.MultiStateMixer(8, 2, "dyadic", 16, normalize_qk=1)
