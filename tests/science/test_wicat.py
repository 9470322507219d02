"""Known-answer tests for the WiCAT reproduction (tokenization, masking, encoder invariances, heads)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from icml26.science.wicat import method as M  # noqa: E402
from icml26.science.wicat import setting as S  # noqa: E402


def test_parcel_traces_recover_region_constants():
    rng = np.random.default_rng(0)
    atlas = S.make_atlas(16, 5, rng)
    vals = rng.standard_normal((7, 5))
    frames = np.where(atlas[None] >= 0, vals[:, np.maximum(atlas, 0)], 99.0)
    np.testing.assert_allclose(S.parcel_traces(frames, atlas), vals, atol=1e-12)


def test_atlas_is_a_partition_of_the_mask():
    atlas = S.make_atlas(32, 20, np.random.default_rng(1))
    assert set(np.unique(atlas)) == set(range(-1, 20))


def test_grid_traces_are_block_means():
    frames = np.arange(2 * 8 * 8, dtype=float).reshape(2, 8, 8)
    out = S.grid_traces(frames, np.ones((8, 8), bool), patch=4)
    assert out.shape == (2, 4)
    np.testing.assert_allclose(out[0, 0], frames[0, :4, :4].mean())
    np.testing.assert_allclose(out[1, 3], frames[1, 4:, 4:].mean())


def test_windows_and_targets_align():
    t = np.arange(32, dtype=float)
    traces = np.stack([t, 100 + t], 1)
    w = M.make_windows(traces, n_patches=2, patch_len=4)           # (4, 2, 2, 4)
    assert w.shape == (4, 2, 2, 4)
    np.testing.assert_array_equal(w[1, 0, 1], [12, 13, 14, 15])
    np.testing.assert_array_equal(w[1, 1, 0], [108, 109, 110, 111])
    y = M.patch_targets(t, 2, 4)
    np.testing.assert_allclose(y, t.reshape(-1, 4).mean(1))
    ws = M.make_windows(traces, 2, 4, stride=4)
    assert ws.shape[0] == 7 and M.patch_targets(t, 2, 4, stride=4).shape == (14,)


def test_zscore():
    x = np.random.default_rng(0).normal(3, 2, (500, 3))
    z = S.zscore(x)
    np.testing.assert_allclose(z.mean(0), 0, atol=1e-9)
    np.testing.assert_allclose(z.std(0), 1, atol=1e-4)


def test_sample_mask_whole_region_and_ratio():
    gen = torch.Generator().manual_seed(0)
    m = M.sample_mask(400, 6, 5, 0.0, 1.0, gen)
    assert torch.all(m.sum((1, 2)) == 5)                            # exactly one whole channel each
    m = M.sample_mask(400, 6, 5, 0.5, 0.0, gen)
    assert abs(float(m.float().mean()) - 0.5) < 0.03


def test_masked_mse_counts_masked_tokens_only():
    x = torch.zeros(1, 2, 2, 3)
    rec = torch.ones(1, 2, 2, 3)
    rec[0, 1, 1] = 3.0
    mask = torch.tensor([[[True, False], [False, True]]])
    assert float(M.masked_mse(rec, x, mask)) == pytest.approx((1 + 9) / 2)


def _cfg(**kw):
    base = dict(n_channels=4, n_patches=3, patch_len=4, d_model=8, n_layers=1, n_heads=2)
    return M.EncoderConfig(**{**base, **kw})


def test_masked_inputs_do_not_leak():
    """A hidden token's value must not influence any output (it is replaced by the mask vector)."""
    torch.manual_seed(0)
    enc = M.TokenEncoder(_cfg()).eval()
    x = torch.randn(2, 4, 3, 4)
    mask = torch.zeros(2, 4, 3, dtype=torch.bool)
    mask[:, 1] = True
    x2 = x.clone()
    x2[:, 1] = 100 * torch.randn(2, 3, 4)
    h1, r1 = enc(x, mask)
    h2, r2 = enc(x2, mask)
    torch.testing.assert_close(h1, h2)
    torch.testing.assert_close(r1, r2)
    h3, _ = enc(x2, None)
    assert not torch.allclose(h1, h3)


def test_no_session_parameters():
    """The WiCAT encoder's parameter count does not depend on the number of sessions; the stitcher's does."""
    cfg = _cfg()
    n = sum(p.numel() for p in M.TokenEncoder(cfg).parameters())
    st2 = sum(p.numel() for p in M.StitchedEncoder(cfg, 4, 2).parameters())
    st5 = sum(p.numel() for p in M.StitchedEncoder(cfg, 4, 5).parameters())
    assert st5 - st2 == 3 * 2 * 16 and st2 == n + 2 * 2 * 16


def test_identity_stitcher_equals_encoder():
    torch.manual_seed(0)
    cfg = _cfg()
    st = M.StitchedEncoder(cfg, 4, 1, init_noise=0.0).eval()
    x = torch.randn(3, 4, 3, 4)
    h_st, r_st = st(x, 0)
    h, r = st.enc(x)
    torch.testing.assert_close(h_st, h)
    torch.testing.assert_close(r_st, r)


def test_pretraining_learns_low_rank_structure():
    rng = np.random.default_rng(0)
    t = np.arange(600)
    z = np.stack([np.sin(0.11 * t), np.cos(0.07 * t)], 1)          # slow latents: context predicts masks
    traces = S.zscore(np.tanh(z @ rng.standard_normal((2, 4))) + 0.05 * rng.standard_normal((600, 4)))
    w = M.make_windows(traces, 3, 4, stride=4)
    cfg = _cfg()
    model, hist = M.pretrain(w, cfg, steps=300, batch=16, lr=3e-3, seed=0)
    assert np.mean(hist[-10:]) < 0.6 * np.mean(hist[:10])
    assert M.masked_mse_ratio(model, w) < 0.5
    assert M.encode(model, w).shape == (w.shape[0] * 3, 4 * 8)
    assert M.reconstruct_region(model, w, 2).shape == (w.shape[0], 12)


def test_ridge_recovers_linear_map_and_r2():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 5))
    y = x @ np.arange(1.0, 6.0)
    for folds in (0, 5):
        head = M.ridge_fit(x, y, folds=folds)
        assert M.r2(y, head.predict(x)) > 0.999
    assert M.r2(y, y) == 1.0
    assert M.r2(y, np.full_like(y, y.mean())) == pytest.approx(0.0)


def test_simulated_session_properties():
    cfg = S.WorldConfig(n_subjects=2, n_frames=200)
    world = S.make_world(cfg, 0)
    sess = S.simulate_session(world, 1, "B", 0)
    assert sess.frames.shape == (200, 32, 32) and sess.behaviour.shape == (200,)
    assert abs(sess.behaviour.mean()) < 1e-6 and sess.behaviour.std() == pytest.approx(1, abs=1e-3)
    assert max(abs(v) for v in sess.shift) <= cfg.max_shift
    # subject offsets sit inside the softplus: z-scoring cannot make two subjects' maps identical
    assert not np.allclose(world.offsets[0], world.offsets[1])
    again = S.simulate_session(world, 1, "B", 0)
    np.testing.assert_array_equal(sess.frames, again.frames)


@pytest.mark.parametrize("bad", [{"subject": 5}, {"task": "C"}, {"subject": 1.0}])
def test_simulate_session_rejects_bad_input(bad):
    world = S.make_world(S.WorldConfig(n_subjects=2, n_frames=50), 0)
    kw = {"subject": 0, "task": "A", "seed": 0, **bad}
    with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
        S.simulate_session(world, **kw)


def test_bad_input_names_argument():
    with pytest.raises(ValueError, match="traces"):
        M.make_windows(np.zeros((5, 2)), 2, 4)
    with pytest.raises(ValueError, match="mask_ratio"):
        M.pretrain(np.zeros((2, 4, 3, 4)), _cfg(), steps=1, mask_ratio=1.5)
    with pytest.raises(ValueError, match="windows"):
        M.pretrain(np.zeros((2, 5, 3, 4)), _cfg(), steps=1)
    with pytest.raises(ValueError, match="d_model"):
        _cfg(d_model=7)
    with pytest.raises(ValueError, match="folds"):
        M.ridge_fit(np.zeros((4, 2)), np.zeros(4), folds=1)


def test_simulated_movie_equals_blurring_and_shifting_the_frame_stack():
    """The simulator applies blur and shift to each region's footprint once; it must equal doing it per frame."""
    from scipy.ndimage import gaussian_filter, shift as nd_shift
    from scipy.signal import lfilter

    cfg = S.WorldConfig(size=16, n_regions=5, n_subjects=2, n_frames=40, pixel_noise=0.0)
    world = S.make_world(cfg, 4)
    sess = S.simulate_session(world, 1, "A", 9)
    rng = np.random.default_rng([9, 7002, 1, 0])
    z = S.simulate_latent(world.dynamics["A"], cfg.n_frames, rng)
    u = np.zeros((cfg.n_frames, cfg.irrelevant_dim))
    for t in range(1, cfg.n_frames):
        u[t] = 0.97 * u[t - 1] + np.sqrt(1 - 0.97 ** 2) * rng.standard_normal(cfg.irrelevant_dim)
    drive = z @ world.L.T + u @ world.M.T + world.b + world.offsets[1]
    act = world.gains[1] * np.logaddexp(0.0, 2.0 * drive) / 2.0
    k = np.exp(-1.0 / cfg.tau_calcium)
    act = lfilter([1 - k], [1, -k], act, axis=0)
    h = np.zeros(cfg.n_frames)
    for t in range(1, cfg.n_frames):
        h[t] = 0.99 * h[t - 1] + np.sqrt(1 - 0.99 ** 2) * rng.standard_normal()
    inside = world.atlas >= 0
    movie = act[:, np.where(inside, world.atlas, 0)] * world.profiles[None] * inside[None]
    movie = gaussian_filter(movie, sigma=(0, 1.0, 1.0))
    movie += cfg.hemo_scale * h[:, None, None] * world.hemo_maps[1][None] * inside[None]
    shift = tuple(rng.uniform(-cfg.max_shift, cfg.max_shift, 2))
    movie = nd_shift(movie, (0.0, *shift), order=1, mode="nearest")
    assert sess.shift == pytest.approx(shift)
    np.testing.assert_allclose(sess.frames, movie, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sess.latent, z)


@pytest.mark.parametrize("n, p, folds", [(60, 80, 5), (200, 30, 6)])
def test_blocked_ridge_picks_ridgecv_alpha(n, p, folds):
    """The fast blocked-CV alpha (one eigendecomposition per block) equals RidgeCV(cv=KFold)'s choice and fit."""
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, p)) + 0.3 * rng.standard_normal((n, 1))
    alphas = np.logspace(-2, 5, 8)
    for y in (x[:, :3].sum(1) + 2 * rng.standard_normal(n), np.stack([x[:, 0], x[:, 1] - x[:, 2]], 1)):
        ref = make_pipeline(StandardScaler(), RidgeCV(alphas=alphas, cv=KFold(folds))).fit(x, y)
        ours = M.ridge_fit(x, y, folds=folds)
        assert ours[-1].alpha == ref[-1].alpha_
        np.testing.assert_allclose(ours.predict(x), ref.predict(x), atol=1e-8)


def test_fine_tune_starts_from_init_and_sees_the_same_batches():
    rng = np.random.default_rng(0)
    cfg = _cfg()
    w = rng.standard_normal((12, 4, 3, 4)).astype(np.float32)
    t = rng.standard_normal((12, 3)).astype(np.float32)
    torch.manual_seed(5)
    init = M.TokenEncoder(cfg)
    one = M.train_supervised(w, t, cfg, steps=1, lr=1e-12, seed=3, init=init)
    for a, b in zip(one.enc.state_dict().values(), init.state_dict().values()):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=0)
    scratch = M.train_supervised(w, t, cfg, steps=1, lr=1e-12, seed=3)
    torch.testing.assert_close(one.out.weight, scratch.out.weight, atol=1e-6, rtol=0)   # same head init
    with pytest.raises(TypeError, match="init"):
        M.train_supervised(w, t, cfg, steps=1, init="weights")
    with pytest.raises(ValueError, match="init"):
        M.train_supervised(w, t, cfg, steps=1, init=M.TokenEncoder(_cfg(d_model=16)))


# --- issue 13: pretrain / train_supervised moved onto nn.train.train_lm; copies of the old loops
def _old_pretrain(windows, cfg, *, steps, batch=32, lr=2e-3, mask_ratio=0.5, region_mask_prob=0.3, seed=0):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = M.TokenEncoder(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, M._warmup_cosine(steps))  # the old private _schedule
    data = torch.as_tensor(windows, dtype=torch.float32)
    hist = []
    for _ in range(steps):
        idx = torch.randint(0, data.shape[0], (batch,), generator=gen)
        x = data[idx]
        m = M.sample_mask(batch, cfg.n_channels, cfg.n_patches, mask_ratio, region_mask_prob, gen)
        _, rec = model(x, m)
        loss = M.masked_mse(rec, x, m)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        hist.append(float(loss.detach()))
    return model.eval(), hist


def _old_train_supervised(windows, targets, cfg, *, steps, batch=32, lr=2e-3, weight_decay=1e-2, seed=0,
                          init=None):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = M.SupervisedEncoder(cfg)
    if init is not None:
        model.enc.load_state_dict(init.state_dict())
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, M._warmup_cosine(steps))  # the old private _schedule
    x, y = torch.as_tensor(windows, dtype=torch.float32), torch.as_tensor(targets, dtype=torch.float32)
    for _ in range(steps):
        idx = torch.randint(0, x.shape[0], (min(batch, x.shape[0]),), generator=gen)
        loss = ((model(x[idx]) - y[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return model.eval()


def _same_weights(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    for k in sa:
        assert torch.equal(sa[k], sb[k]), k


def test_pretrain_on_train_lm_is_bit_identical_to_the_old_loop():
    rng = np.random.default_rng(101)
    cfg = _cfg()
    w = rng.standard_normal((20, 4, 3, 4)).astype(np.float32)
    new, hist_new = M.pretrain(w, cfg, steps=25, batch=6, lr=3e-3, seed=101)
    after_new = torch.rand(3)                       # the global RNG is left where the old loop left it
    old, hist_old = _old_pretrain(w, cfg, steps=25, batch=6, lr=3e-3, seed=101)
    after_old = torch.rand(3)
    assert hist_new == hist_old
    _same_weights(new, old)
    assert torch.equal(after_new, after_old)
    assert not new.training


@pytest.mark.parametrize("with_init", [False, True])
def test_train_supervised_on_train_lm_is_bit_identical_to_the_old_loop(with_init):
    rng = np.random.default_rng(102)
    cfg = _cfg()
    w = rng.standard_normal((15, 4, 3, 4)).astype(np.float32)
    t = rng.standard_normal((15, 3)).astype(np.float32)
    torch.manual_seed(103)
    init = M.TokenEncoder(cfg) if with_init else None
    new = M.train_supervised(w, t, cfg, steps=22, batch=8, lr=2e-3, weight_decay=1e-2, seed=104, init=init)
    old = _old_train_supervised(w, t, cfg, steps=22, batch=8, lr=2e-3, weight_decay=1e-2, seed=104, init=init)
    _same_weights(new, old)
    assert not new.training
