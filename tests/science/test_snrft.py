"""Unit tests for snrft (ICML 2026 poster 62585) on cases with known answers."""

import math

import numpy as np
import pytest
import torch

from icml26.science.snrft import method as M
from icml26.science.snrft.setting import make_scene, sample_points, solve_fields

L = 8.0
TX = np.array([[1.0, 2.0], [3.0, 5.5], [6.5, 1.2]])
RX = np.array([[5.0, 1.5], [2.0, 6.0], [4.0, 7.0]])


def test_image_paths_known_lengths_and_bounces():
    p = M.trace_paths(TX, RX, L, order=2, n_samples=4)
    idx = M.image_indices(2)
    assert len(idx) == 13 and p["length"].shape == (3, 13)
    los = idx.index((0, 0))
    np.testing.assert_allclose(p["length"][:, los].numpy(), np.linalg.norm(TX - RX, axis=1))
    left = idx.index((-1, 0))  # reflection off x = 0: image (-x, y)
    img = TX * np.array([-1.0, 1.0])
    np.testing.assert_allclose(p["length"][:, left].numpy(), np.linalg.norm(img - RX, axis=1))
    corner = idx.index((1, 1))  # x = L then y = L: image (2L - x, 2L - y)
    np.testing.assert_allclose(p["length"][:, corner].numpy(), np.linalg.norm(2 * L - TX - RX, axis=1))
    bounces = p["hit_mask"].sum(-1).numpy()
    np.testing.assert_array_equal(bounces[0], [abs(m) + abs(n) for m, n in idx])
    pts = p["points"].numpy()
    assert pts.min() >= 0 and pts.max() <= L
    # the reflection point off x = 0 is on that wall, where the straight image line crosses it
    assert int(p["hit_wall"][0, left, 0]) == 0
    t = (0 - img[0, 0]) / (RX[0, 0] - img[0, 0])
    assert float(p["hit_pos"][0, left, 0]) * L == pytest.approx(img[0, 1] + t * (RX[0, 1] - img[0, 1]))


def test_free_space_tracer_is_the_closed_form():
    # no obstacles, reflection coefficient ~1: P = g * sum_p 1 / d_p
    model = M.MaterialTracer(L, [], order=2, n_samples=4)
    with torch.no_grad():
        model.raw_rho.fill_(6.0)
    d = M.trace_paths(TX, RX, L, 2, 4)["length"].numpy()
    np.testing.assert_allclose(M.predict(model, TX, RX), 10 * np.log10((1 / d).sum(1)), atol=1e-9)


def test_attenuation_integral_is_rate_times_chord():
    box = [(3.0, 0.0, 5.0, 8.0, 0)]  # a vertical slab 2 wavelengths thick
    model = M.MaterialTracer(L, box, order=0, n_samples=4000)
    rate = float(torch.nn.functional.softplus(model.SCALE * model.raw_mu[0].detach()))
    tx, rx = np.array([[1.0, 2.0]]), np.array([[7.0, 4.0]])
    chord = 2.0 * math.hypot(6.0, 2.0) / 6.0
    free = M.MaterialTracer(L, [], order=0, n_samples=4000)
    diff = M.predict(free, tx, rx) - M.predict(model, tx, rx)
    assert diff[0] == pytest.approx(10 / math.log(10) * rate * chord, rel=1e-3)


def test_snrft_is_reciprocal_and_the_controls_are_not():
    torch.manual_seed(0)
    snrft = M.SNRFT(L, order=2, n_samples=8, width=16)
    with torch.no_grad():
        snrft.mu_net[-1].bias.fill_(0.0)  # a non-trivial field
    assert M.reciprocity_gap(snrft, TX, RX) < 1e-9
    assert M.reciprocity_gap(M.NeRF2Lite(L, width=16), TX, RX) > 1e-6
    assert M.reciprocity_gap(M.PairMLP(L, width=16), TX, RX) > 1e-6


def test_snrft_gradients_match_finite_differences():
    torch.manual_seed(1)
    snrft = M.SNRFT(L, order=1, n_samples=4, width=4, n_freq=1)
    paths = snrft.paths(TX[:2], RX[:2])
    w = snrft.mu_net[0].weight

    def f(weight):
        with torch.no_grad():
            old = w.clone()
            w.copy_(weight)
        out = snrft(TX[:2], RX[:2], paths=paths).sum()
        with torch.no_grad():
            w.copy_(old)
        return out

    snrft.zero_grad()
    snrft(TX[:2], RX[:2], paths=paths).sum().backward()
    g = w.grad.clone()
    eps = 1e-6
    num = torch.zeros_like(w)
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            e = torch.zeros_like(w)
            e[i, j] = eps
            num[i, j] = (f(w.detach() + e) - f(w.detach() - e)) / (2 * eps)
    torch.testing.assert_close(g, num, rtol=1e-5, atol=1e-7)


def test_log_distance_fit_recovers_the_law():
    rng = np.random.default_rng(0)
    tx, rx = rng.uniform(0, 8, (50, 2)), rng.uniform(0, 8, (50, 2))
    d = np.linalg.norm(tx - rx, axis=1)
    a, n = M.log_distance_fit(tx, rx, -3.0 - 10 * 1.7 * np.log10(d))
    assert a == pytest.approx(-3.0) and n == pytest.approx(1.7)


def test_training_fits_a_tracer_generated_world():
    # data from a known per-material tracer: SNRFT's training loss falls several-fold
    truth = M.MaterialTracer(L, [(3.0, 2.0, 5.0, 6.0, 0)], order=1, n_samples=8)
    with torch.no_grad():
        truth.raw_mu.fill_(0.1)
    rng = np.random.default_rng(0)
    tx, rx = rng.uniform(0.5, 7.5, (60, 2)), rng.uniform(0.5, 7.5, (60, 2))
    y = M.predict(truth, tx, rx)
    res = M.train(M.SNRFT(L, order=1, n_samples=8, width=16), tx, rx, y, steps=150, lr=0.02, seed=0)
    assert res.history[-1] < res.history[0] / 3


def test_fdfd_ground_truth_is_reciprocal(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    scene = make_scene(3, L=8.0, ppw=5, n_obstacles=2)
    a = sample_points(scene, 2, 0)
    P = solve_fields(scene, a)
    ij = (a * scene.ppw).astype(int)
    p01, p10 = P[0, ij[1, 0], ij[1, 1]], P[1, ij[0, 0], ij[0, 1]]
    assert abs(10 * np.log10(p01 / p10)) < 0.05  # Lorentz reciprocity of the Maxwell solve
    again = solve_fields(scene, a)  # read back from icml26.core.cache, exactly
    assert again.dtype == P.dtype == np.float32 and np.array_equal(again, P)
    files = list((tmp_path / "snrft").iterdir())
    assert len(files) == 1 and files[0].name.startswith("fields-") and files[0].suffix == ".npz"


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="tx"):
        M.trace_paths(np.array([[np.nan, 1.0]]), RX[:1], L)
    with pytest.raises(ValueError, match="rx"):
        M.trace_paths(TX, np.ones((3, 3)), L)
    with pytest.raises(ValueError, match="order"):
        M.trace_paths(TX, RX, L, order=-1)
    with pytest.raises(ValueError, match="db"):
        M.log_distance_fit(TX, RX, np.ones(2))
    with pytest.raises(ValueError, match="L"):
        make_scene(0, L=4.0)


def test_nerf2_lite_renders_the_closed_form_for_a_constant_field():
    # constant attenuation delta and radiance s: each ray's volume rendering telescopes to
    # s * (1 - exp(-delta * reach)), reach = distance from Rx to the room's edge along the ray
    model = M.NeRF2Lite(L, n_dirs=6, n_samples=5, width=8)
    with torch.no_grad():
        model.net[-1].weight.zero_()
        model.net[-1].bias.copy_(torch.tensor([1.0, 0.5], dtype=M.DTYPE))
    delta, s = math.log1p(math.exp(1.0 - 2.0)), math.log1p(math.exp(0.5))
    ang = (np.arange(6) + 0.5) * 2 * np.pi / 6
    dirs = np.stack([np.cos(ang), np.sin(ang)], -1)
    want = []
    for r in RX:
        reach = [min(((L - r[a]) / d[a]) if d[a] > 0 else (r[a] / -d[a]) for a in (0, 1)) for d in dirs]
        want.append(10 * np.log10(s * np.sum(1 - np.exp(-delta * np.asarray(reach)))))
    np.testing.assert_allclose(M.predict(model, TX, RX), want, rtol=1e-9)
    # the field does not depend on Tx here, so swapping Tx and Rx moves only the camera
    assert M.reciprocity_gap(model, TX, RX) > 1e-3


def test_material_tracer_rates_are_the_scaled_softplus():
    # the rescaled parameterisation: rate = softplus(SCALE * raw); the initial rate is softplus(-2)
    model = M.MaterialTracer(L, [(3.0, 0.0, 5.0, 8.0, 1)], order=0, n_samples=8)
    pts = torch.tensor([[[4.0, 1.0], [1.0, 1.0]]], dtype=M.DTYPE)
    got = model.mu(pts).detach().numpy()
    np.testing.assert_allclose(got, [[math.log1p(math.exp(-2.0)), 0.0]], rtol=1e-12)
