"""Known answers for the QHFlow2 protocol and its residual flow-matching MLH."""

import numpy as np
import pytest

pytest.importorskip("pyscf", reason="qhflow2 labels geometries with PySCF (science extra)")
torch = pytest.importorskip("torch")

from icml26.science.qhflow2 import method as M  # noqa: E402
from icml26.science.qhflow2 import setting as S  # noqa: E402


@pytest.fixture(scope="module")
def solved():
    """One PBE/STO-3G water solved by PySCF (grid level 0, as the profiles use)."""
    cfg = S.WaterConfig(grid_level=0)
    coords = S.water_geometry(1.02, 0.97, 99.0)
    lab = S.label_geometry(coords, cfg)
    return coords, cfg, lab, S.make_mf(coords, cfg)


def test_triu_round_trip():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5, 5))
    a = a + a.swapaxes(-1, -2)
    v = M.triu_vector(a)
    assert v.shape == (4, 15)
    np.testing.assert_array_equal(M.triu_matrix(v, 5), a)


def test_solve_fock_matches_scipy_generalised_eigh():
    from scipy.linalg import eigh

    rng = np.random.default_rng(1)
    b = rng.standard_normal((6, 6))
    s = b @ b.T + 6 * np.eye(6)
    h = rng.standard_normal((6, 6))
    h = h + h.T
    eps, c = M.solve_fock(h, s)
    np.testing.assert_allclose(eps, eigh(h, s, eigvals_only=True), atol=1e-10)
    np.testing.assert_allclose(c.T @ s @ c, np.eye(6), atol=1e-10)
    np.testing.assert_allclose(h @ c, s @ c * eps, atol=1e-9)


def test_solve_fock_drops_near_singular_overlap():
    s = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # rank 2
    eps, c = M.solve_fock(np.diag([1.0, 1.0, 2.0]), s)
    assert c.shape == (3, 2) and eps.shape == (2,)


def test_density_electron_count():
    rng = np.random.default_rng(2)
    b = rng.standard_normal((5, 5))
    s = b @ b.T + 5 * np.eye(5)
    h = np.diag(np.arange(5.0))
    _, c = M.solve_fock(h, s)
    d = M.density(c, 2)
    assert np.trace(d @ s) == pytest.approx(4.0)


def test_water_geometry_internal_coordinates():
    x = S.water_geometry(1.1, 0.9, 104.0)
    d = M.distances(torch.tensor(x[None]))[0].numpy()
    assert d[0] == pytest.approx(1.1) and d[1] == pytest.approx(0.9)
    cos = x[1] @ x[2] / (1.1 * 0.9)
    assert np.degrees(np.arccos(cos)) == pytest.approx(104.0)


def test_protocol_at_the_converged_fock_returns_scf_energy_and_forces(solved):
    _, _, lab, mf = solved
    e, f = M.energy_and_forces(mf, lab["H_star"], lab["S"])
    assert e == pytest.approx(lab["E_star"], abs=1e-9)
    np.testing.assert_allclose(f, lab["F_star"], atol=1e-6)
    # forces sum to zero (translation invariance of the analytic gradient)
    np.testing.assert_allclose(f.sum(0), 0.0, atol=1e-5)


def test_minao_energy_lies_above_scf(solved):
    _, _, lab, _ = solved
    assert lab["E_minao"] != lab["E_star"]
    assert np.abs(lab["H_init"] - lab["H_star"]).max() > 1e-3


def test_energy_error_second_order_force_error_first_order(solved):
    _, _, lab, mf = solved
    de, df = M.perturbed_errors(mf, lab["H_star"], lab["S"], lab["E_star"], lab["F_star"], [1e-3, 1e-2], seed=3)
    assert 60 < de[1] / de[0] < 160  # ~ 10^2
    assert 6 < df[1] / df[0] < 16  # ~ 10^1


def test_mlip_forces_are_minus_energy_gradient():
    coords = S.sample_geometries(4, 0)
    model = M.EnergyMLIP(np.linspace(-1, 1, 4), coords, width=8)
    c = torch.tensor(coords)
    _, f = model.energy_forces(c)
    h = 1e-6
    for a, k in ((1, 0), (2, 1), (0, 2)):
        cp, cm = c.clone(), c.clone()
        cp[:, a, k] += h
        cm[:, a, k] -= h
        with torch.no_grad():
            fd = -(model.energy(cp) - model.energy(cm)) / (2 * h) * S.BOHR_ANGSTROM
        np.testing.assert_allclose(f[:, a, k].detach().numpy(), fd.numpy(), rtol=1e-5, atol=1e-8)


def test_distances_are_rotation_invariant():
    x = torch.tensor(S.sample_geometries(3, 1))
    q, _ = torch.linalg.qr(torch.randn(3, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0)))
    torch.testing.assert_close(M.distances(x @ q.T + 0.3), M.distances(x))


def test_euler_sampler_reaches_a_perfect_endpoint_in_three_steps():
    """With f(R, t, x_t) = z1 exactly, 3 Euler steps of dx/dt = (z1 - x)/(1 - t) land on z1 from any x0."""
    coords = S.sample_geometries(5, 2)
    x1 = np.random.default_rng(0).standard_normal((5, 6))
    model = M.ResidualFlowMLH(x1, coords, width=8)
    target = torch.tensor(model.x_std.fwd(torch.tensor(x1)).numpy())
    seen = []

    def endpoint(c, t=None, x_t=None):
        seen.append(x_t.clone())
        return target

    model.endpoint = endpoint
    out = model.sample(torch.tensor(coords), steps=3, seed=4)
    np.testing.assert_allclose(out.numpy(), x1, atol=1e-12)
    # the intermediate states are the straight-line interpolants at t = 1/3 and 2/3
    x0 = seen[0]
    torch.testing.assert_close(seen[1], 2 / 3 * x0 + 1 / 3 * target)
    torch.testing.assert_close(seen[2], 1 / 3 * x0 + 2 / 3 * target)


def test_flow_loss_is_paper_loss_and_needs_noise():
    coords = S.sample_geometries(6, 3)
    x1 = np.random.default_rng(1).standard_normal((6, 3)) * 0.01
    model = M.ResidualFlowMLH(x1, coords, width=8)
    with pytest.raises(ValueError, match="x0"):
        model.loss(torch.tensor(coords), torch.tensor(x1))
    direct = M.ResidualFlowMLH(x1, coords, width=8, flow=False)
    with torch.no_grad():
        pred = direct.x_std.inv(direct.endpoint(torch.tensor(coords)))
        err = pred - torch.tensor(x1)
        want = 10 * (err.abs().mean() + err.pow(2).mean())
        assert float(direct.loss(torch.tensor(coords), torch.tensor(x1))) == pytest.approx(float(want))


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="theta_deg"):
        S.water_geometry(1.0, 1.0, 190.0)
    with pytest.raises(ValueError, match="coords"):
        S.make_mf(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="h and s"):
        M.solve_fock(np.eye(3), np.eye(4))
    with pytest.raises(ValueError, match="n_occ"):
        M.density(np.eye(3), 4)
    with pytest.raises(TypeError, match="mf"):
        M.energy_and_forces(object(), np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="eps"):
        M.perturbed_errors(None, np.eye(2), np.eye(2), 0.0, np.zeros((3, 3)), [-1.0])


def test_grid_response_forces_are_minus_the_energy_gradient(solved):
    """The labels' forces (grid response on, grid level 0) are -dE/dR of the SCF energy: central differences."""
    coords, cfg, lab, _ = solved
    h = 1e-3  # Angstrom
    for atom, k in ((1, 0), (2, 1)):
        e = []
        for sign in (1, -1):
            c = coords.copy()
            c[atom, k] += sign * h
            mf = S.make_mf(c, cfg)
            e.append(mf.kernel(dm0=mf.get_init_guess(key="minao")))
        fd = -(e[0] - e[1]) / (2 * h) * S.BOHR_ANGSTROM  # Hartree/Bohr
        assert lab["F_star"][atom, k] == pytest.approx(fd, abs=2e-5)


def test_energy_at_a_perturbed_hamiltonian_lies_above_the_scf_energy(solved):
    """The SCF density minimises the KS functional over idempotent densities: any predicted H gives E >= E*."""
    _, _, lab, mf = solved
    rng = np.random.default_rng(5)
    for eps in (1e-3, 1e-2, 5e-2):
        n = rng.standard_normal(lab["H_star"].shape)
        e, _ = M.energy_and_forces(mf, lab["H_star"] + eps * (n + n.T) / 2, lab["S"], forces=False)
        assert e >= lab["E_star"] - 1e-9


def test_polynomial_forces_are_minus_energy_gradient():
    coords = S.sample_geometries(30, 5)
    rng = np.random.default_rng(0)
    p = M.PolynomialEF(3).fit(coords, rng.standard_normal(30) * 1e-3, rng.standard_normal((30, 3, 3)) * 1e-2)
    c = S.sample_geometries(2, 6)
    _, f = p.predict(c)
    h = 1e-6
    for a, k in ((0, 0), (1, 1), (2, 0)):
        cp, cm = c.copy(), c.copy()
        cp[:, a, k] += h
        cm[:, a, k] -= h
        fd = -(p.predict(cp)[0] - p.predict(cm)[0]) / (2 * h) * S.BOHR_ANGSTROM
        np.testing.assert_allclose(f[:, a, k], fd, rtol=1e-5, atol=1e-10)


def test_polynomial_recovers_an_exact_polynomial_potential():
    """Energies and forces of a quadratic in the distances are fit exactly by a degree-2 (or higher) fit."""
    coords = S.sample_geometries(20, 7)
    r = M.distances(torch.tensor(coords)).numpy()
    w = np.array([0.3, 0.3, 0.1])
    e = ((r - 1.0) ** 2 @ w)
    # F = -dE/dR, by the chain rule through the three distances (Hartree/Bohr with E in Hartree, R in Angstrom)
    f = np.zeros_like(coords)
    for k, (a, b) in enumerate(((0, 1), (0, 2), (1, 2))):
        u = (coords[:, a] - coords[:, b]) / r[:, k, None]
        g = 2 * w[k] * (r[:, k] - 1.0)
        f[:, a] -= g[:, None] * u * S.BOHR_ANGSTROM
        f[:, b] += g[:, None] * u * S.BOHR_ANGSTROM
    test = S.sample_geometries(5, 8)
    rt = M.distances(torch.tensor(test)).numpy()
    for degree in (2, 4):
        pe, _ = M.PolynomialEF(degree).fit(coords, e, f).predict(test)
        np.testing.assert_allclose(pe, (rt - 1.0) ** 2 @ w, atol=1e-9)
    with pytest.raises(ValueError, match="forces"):
        M.PolynomialEF(2).fit(coords, e, f[:3])
    with pytest.raises(ValueError, match="fit"):
        M.PolynomialEF(2).predict(test)


def test_fit_plateau_stops_at_a_plateau_and_restores_the_best():
    """Reduce-on-plateau training: a model that cannot improve stops after (reductions + 1) x patience steps,
    not at the cap, with its learning rate reduced the given number of times; a learnable one is not capped."""
    from icml26.science.qhflow2.experiment import fit_plateau

    lin = torch.nn.Linear(1, 1).double()
    x = torch.linspace(-1, 1, 20, dtype=torch.float64)[:, None]
    y = 3 * x + 1
    loss = lambda m, b: ((m(x) - y) ** 2).mean()  # noqa: E731
    res = fit_plateau(lin, loss, lambda g: None, lambda m: 1.0, steps=10_000, lr=1e-2, val_every=5,
                      patience=10, factor=0.5, reductions=2, tol=1e-3, seed=0)
    assert not res.capped and res.reductions == 2 and res.steps == 5 + 3 * 10
    lin2 = torch.nn.Linear(1, 1).double()
    res2 = fit_plateau(lin2, loss, lambda g: None, lambda m: float(loss(m, None)), steps=20_000, lr=5e-2,
                       val_every=10, patience=50, factor=0.3, reductions=3, tol=1e-3, seed=0)
    assert not res2.capped
    assert loss(lin2, None).item() < 1e-4
    with pytest.raises(ValueError, match="factor"):
        fit_plateau(lin, loss, lambda g: None, lambda m: 1.0, steps=10, lr=1e-2, val_every=1, patience=1,
                    factor=1.5, reductions=1, tol=0.0, seed=0)


def _fit_plateau_private_loop(model, loss_fn, noise_fn, val_fn, *, steps, lr, val_every, patience, factor,
                              reductions, tol, seed):
    """fit_plateau's own loop before it moved onto icml26.nn.mlp.fit (issue 13), kept as the reference:
    (history, val_history, reductions, capped)."""
    import copy

    gen = torch.Generator().manual_seed(int(seed))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    history, val_history, n_red, capped = [], [], 0, False
    best, best_state, since = float("inf"), None, 0
    model.train()
    for step in range(steps):
        loss = loss_fn(model, noise_fn(gen))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        history.append(float(loss.detach()))
        if (step + 1) % val_every:
            continue
        model.eval()
        with torch.no_grad():
            v = float(val_fn(model))
        model.train()
        val_history.append((step, v))
        if v < best * (1 - tol):
            best, best_state, since = v, copy.deepcopy(model.state_dict()), 0
            continue
        since += val_every
        if since >= patience:
            if n_red >= reductions:
                break
            n_red += 1
            since = 0
            for g in opt.param_groups:
                g["lr"] *= factor
    else:
        capped = True
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return history, val_history, n_red, capped


@pytest.mark.parametrize("steps,reductions", [(400, 2), (60, 3)])
def test_fit_plateau_on_shared_fit_equals_its_private_loop_bit_for_bit(steps, reductions):
    """A noisy regression (noise drawn from the fit's generator), validated on held-out points: plateaus, lr
    reductions, the stop (or the cap) and the restored weights are those of the private loop."""
    from icml26.nn.mlp import mlp
    from icml26.science.qhflow2.experiment import fit_plateau

    g = torch.Generator().manual_seed(0)
    x, xv = torch.randn(40, 2, generator=g, dtype=torch.float64), torch.randn(20, 2, generator=g, dtype=torch.float64)
    f = lambda z: torch.sin(z[:, :1]) * z[:, 1:]  # noqa: E731
    loss = lambda m, eps: ((m(x) - f(x) - 0.3 * eps) ** 2).mean()  # noqa: E731
    noise = lambda gen: torch.randn(40, 1, generator=gen, dtype=torch.float64)  # noqa: E731
    val = lambda m: float(((m(xv) - f(xv)) ** 2).mean())  # noqa: E731
    kw = dict(steps=steps, lr=3e-2, val_every=10, patience=30, factor=0.3, reductions=reductions, tol=1e-2, seed=3)
    torch.manual_seed(1)
    a = mlp([2, 16, 1], activation="tanh", dtype=torch.float64)
    torch.manual_seed(1)
    b = mlp([2, 16, 1], activation="tanh", dtype=torch.float64)
    res = fit_plateau(a, loss, noise, val, **kw)
    hist, vals, n_red, capped = _fit_plateau_private_loop(b, loss, noise, val, **kw)
    assert (res.history, res.val_history, res.reductions, res.capped) == (hist, vals, n_red, capped)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_water_pool_honours_no_cache(tmp_path, monkeypatch):
    """ICML26_NO_CACHE=1 labels the pool afresh and writes nothing; without it the pool is cached once."""
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    cfg = S.WaterConfig(grid_level=0)
    monkeypatch.setenv("ICML26_NO_CACHE", "1")
    fresh = S.water_pool(1, 5, cfg)
    assert not any(tmp_path.rglob("*"))
    monkeypatch.delenv("ICML26_NO_CACHE")
    kept = S.water_pool(1, 5, cfg)
    assert len(list(tmp_path.rglob("*.npz"))) == 1
    for k in fresh:
        np.testing.assert_allclose(kept[k], fresh[k])


def test_speedups_give_the_library_results_bit_for_bit():
    """Eighth session's engineering (no result may move): the functional forward equals the Sequential's;
    memoised features equal fresh ones and are recomputed after an in-place change; the basis memo builds the
    same molecule and restores PySCF. (The polynomial control keeps scikit-learn's PolynomialFeatures + Ridge.)"""
    from pyscf import gto
    from pyscf.gto import basis as pyscf_basis

    rng = np.random.default_rng(3)
    coords = S.sample_geometries(12, 0)
    torch.manual_seed(0)
    mlh = M.ResidualFlowMLH(rng.standard_normal((12, 28)), coords, width=8)
    z = torch.tensor(rng.standard_normal((12, 32)))
    assert torch.equal(M._forward(mlh.net, z), mlh.net(z))
    c = torch.tensor(coords)
    first = M._geometry_features(mlh, c)
    assert M._geometry_features(mlh, c) is first
    assert torch.equal(first, mlh.r_std.fwd(M.distances(c)))
    with torch.no_grad():
        c[0, 1, 0] += 0.01
    assert torch.equal(M._geometry_features(mlh, c), mlh.r_std.fwd(M.distances(c)))
    assert not torch.equal(M._geometry_features(mlh, c), first)
    assert M._geometry_features(mlh, c.clone().requires_grad_(True)).requires_grad

    load = pyscf_basis.load
    g = coords[0]
    atom = [("O", g[0]), ("H", g[1]), ("H", g[2])]
    plain = gto.M(atom=atom, basis="sto-3g", verbose=0)
    with S._parsed_basis_once():
        assert pyscf_basis.load is not load
        memo = gto.M(atom=atom, basis="sto-3g", verbose=0)
        again = gto.M(atom=atom, basis="sto-3g", verbose=0)
    assert pyscf_basis.load is load
    assert memo._basis == plain._basis == again._basis
    np.testing.assert_array_equal(memo._env, plain._env)
