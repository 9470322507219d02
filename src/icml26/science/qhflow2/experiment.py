"""QHFlow2's claims at small scale: an MLH on PBE water judged by the energies and forces it yields.

``run`` composes named parts, one per group of claims:

* :func:`size_sweep` (claims ``energy-beats-mlip``, ``nequip-level-forces``, ``flow-vs-direct`` and the
  data half of ``scaling-transfer``): at each train size the residual flow MLH, its direct-regression
  ablation (both under :func:`_rule`: Adam, reduce-on-plateau to convergence on held-out validation
  geometries), an MLIP (energy MLP, autograd forces, energy + force loss) and a Delta-MLIP (energy MLP
  correcting ``E[D_minao]``, energies only) under :func:`_mlip_rule` (L-BFGS, early stopping); a polynomial E+F fit (:func:`polynomial`)
  and the mean-residual predictor (:func:`mean_residual`) are the naive controls; the MLH's Hamiltonian
  goes through the paper's protocol (eigensolve, ``energy_tot``, analytic gradient).
* :func:`width_sweep` (the width and transfer halves of ``scaling-transfer``): at one train size,
  MLHs of several widths, each read at an intermediate checkpoint and at the end; Spearman of H error
  with E and F errors.
* :func:`perturbation` (identity ``perturbation-orders``): ``H* + eps N`` gives energy errors ~ eps^2
  and force errors ~ eps, no learning involved.
* :func:`reference` : the MINAO-guess Fock matrix through the same protocol.

Data are one labelled pool per profile (``setting.water_pool``, seed ``data_seed``); a run's seed picks
the nested training subsets, the initialisations, the flow noise and the sampler's prior draw.
"""

from __future__ import annotations

import copy

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.science.qhflow2.setting import FORCE_EV_PER_A, HARTREE_EV, WaterConfig, make_mf, water_pool

E_UNIT, F_UNIT, H_UNIT = 1000 * HARTREE_EV, 1000 * FORCE_EV_PER_A, 1e6  # meV, meV/Angstrom, micro-Hartree


# ----------------------------------------------------------------------------- data
def _data(profile: Profile) -> dict:
    cfg = WaterConfig(basis=str(profile.get("basis", "sto-3g")), xc=str(profile.get("xc", "pbe")),
                      grid_level=int(profile.get("grid_level", 0)))
    n_pool, n_test = int(profile["n_pool"]), int(profile["n_test"])
    pool = water_pool(n_pool + n_test, int(profile.get("data_seed", 0)), cfg)
    train = {k: v[:n_pool] for k, v in pool.items()}
    test = {k: v[n_pool:] for k, v in pool.items()}
    test["mf"] = [make_mf(c, cfg) for c in test["coords"]]
    return {"train": train, "test": test, "config": cfg}


def _residuals(d: dict) -> np.ndarray:
    from icml26.science.qhflow2.method import triu_vector

    return triu_vector(d["H_star"] - d["H_init"])


# ----------------------------------------------------------------------------- training
def _rule(profile: Profile) -> dict:
    """The training rule of the MLH arms (flow MLH, its direct-regression ablation, the width sweep): full-batch
    Adam at ``lr``, the H MAE of the validation geometries every ``val_every`` steps, and reduce-on-plateau to
    convergence: after ``patience`` steps without a relative improvement of ``tol`` the learning rate is
    multiplied by ``factor``; the run stops at the plateau after ``reductions`` reductions (``steps`` is only a
    safety cap, and whether an arm reached it is recorded); best weights restored. Every MLH arm stops by this
    one criterion, so flow and direct regression are compared converged. (The MLIP arms use :func:`_mlip_rule`.)"""
    return dict(width=int(profile["width"]), steps=int(profile["steps"]), lr=float(profile["lr"]),
                val_every=int(profile.get("val_every", 25)), patience=int(profile.get("patience", 100)),
                factor=float(profile.get("factor", 0.3)), reductions=int(profile.get("reductions", 3)),
                tol=float(profile.get("tol", 1e-3)))


def _mlip_rule(profile: Profile) -> dict:
    """The training rule of the MLIP arms (MLIP, Delta-MLIP): full-batch L-BFGS (strong Wolfe line search) in
    chunks of ``lbfgs_chunk`` iterations up to ``lbfgs_iters``, the arm's own loss on the validation geometries
    after each chunk, early stopping after two chunks without a relative improvement of ``lbfgs_tol``, best
    weights restored. Their losses are deterministic, so a quasi-Newton method converges them far faster than
    Adam (which left the first pass's MLIP ~5x above its converged error); the flow's loss is stochastic and
    stays with Adam."""
    return dict(width=int(profile["width"]), iters=int(profile["lbfgs_iters"]),
                chunk=int(profile.get("lbfgs_chunk", 100)), tol=float(profile.get("lbfgs_tol", 0.0)))


class PlateauResult:
    """What :func:`fit_plateau` did: training loss per step, validation (step, value), reductions, cap reached."""

    def __init__(self):
        self.history: list[float] = []
        self.val_history: list[tuple[int, float]] = []
        self.reductions = 0
        self.capped = False

    @property
    def steps(self) -> int:
        return len(self.history)


def fit_plateau(model, loss_fn, noise_fn, val_fn, *, steps: int, lr: float, val_every: int, patience: int,
                factor: float, reductions: int, tol: float, seed: int, on_step=None) -> PlateauResult:
    """Full-batch Adam with reduce-on-plateau to convergence (see :func:`_rule`); ``loss_fn(model, batch)`` with
    ``batch = noise_fn(generator)``, ``val_fn(model) -> float``: the shared ``icml26.nn.mlp.fit`` with
    ``schedule="plateau"`` (a cosine schedule anneals to the cap, so every arm would 'improve' until the cap and the
    cap, not convergence, would end training). The validation steps are every ``val_every`` steps and the last
    (the profiles' caps are multiples of ``val_every``)."""
    from icml26.nn.mlp import fit

    fr = fit(model, loss_fn, noise_fn, steps=steps, lr=lr, val_loss=val_fn, val_every=val_every, patience=patience,
             schedule="plateau", plateau_factor=factor, plateau_reductions=reductions, min_rel_improvement=tol,
             seed=seed, on_step=on_step)
    res = PlateauResult()
    res.history, res.val_history = fr.history, fr.val_history
    res.reductions, res.capped = fr.lr_reductions, not fr.stopped_early
    return res


def train_mlh(train: dict, idx: np.ndarray, val_idx: np.ndarray, *, width: int, steps: int, lr: float, seed: int,
              flow: bool = True, val_every: int = 25, patience: int = 100, factor: float = 0.3,
              reductions: int = 3, tol: float = 1e-3, checkpoints: tuple[int, ...] = ()):
    """Train the residual MLH (flow or direct) on ``train[idx]`` under :func:`_rule`, early-stopped on the H MAE of
    ``train[val_idx]`` (the flow sampled with 3 Euler steps, fixed prior draw); returns (model, PlateauResult,
    {step: state} at the ``checkpoints`` it reached)."""
    import torch

    from icml26.science.qhflow2.method import ResidualFlowMLH

    torch.manual_seed(seed)
    res_all = _residuals(train)
    x1 = res_all[idx]
    coords = train["coords"][idx]
    model = ResidualFlowMLH(x1, coords, width=width, flow=flow)
    c_t, x_t = torch.tensor(coords), torch.tensor(x1)
    c_v, x_v = torch.tensor(train["coords"][val_idx]), torch.tensor(res_all[val_idx])

    def batches(gen):
        return model.noise(len(idx), gen) if flow else (None, None)

    def val(m):
        return float((m.sample(c_v, steps=3, seed=seed) - x_v).abs().mean())

    snaps: dict[int, dict] = {}

    def on_step(step, m, loss):
        if step + 1 in checkpoints:
            snaps[step + 1] = copy.deepcopy(m.state_dict())

    res = fit_plateau(model, lambda m, b: m.loss(c_t, x_t, *b), batches, val, steps=steps, lr=lr,
                      val_every=val_every, patience=patience, factor=factor, reductions=reductions, tol=tol,
                      seed=seed, on_step=on_step)
    return model, res, snaps


def train_mlip(train: dict, idx: np.ndarray, val_idx: np.ndarray, *, width: int, iters: int, seed: int,
               delta: bool = False, chunk: int = 100, tol: float = 0.0):
    """The MLIP control (energy + force loss) or, with ``delta``, the Delta-MLIP on E* - E[D_minao] (energies
    only), fit by L-BFGS and early-stopped on its own loss on ``train[val_idx]`` (see :func:`_mlip_rule`).
    Returns (model, {"history": training loss per chunk, "steps": L-BFGS iterations run})."""
    import torch

    from icml26.science.qhflow2.method import EnergyMLIP

    torch.manual_seed(seed)
    target = train["E_star"] - (train["E_minao"] if delta else 0.0)
    coords, e, f = train["coords"][idx], target[idx], train["F_star"][idx]
    model = EnergyMLIP(e, coords, width=width, force_weight=0.0 if delta else 1.0,
                       force_scale=float(f.std()))
    c_t, e_t, f_t = torch.tensor(coords), torch.tensor(e), torch.tensor(f)
    c_v, e_v, f_v = (torch.tensor(train["coords"][val_idx]), torch.tensor(target[val_idx]),
                     torch.tensor(train["F_star"][val_idx]))
    opt = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=chunk, max_eval=int(1.25 * chunk),
                            history_size=50, tolerance_grad=1e-14, tolerance_change=1e-16,
                            line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad(set_to_none=True)
        loss = model.loss(c_t, e_t, None if delta else f_t)
        loss.backward()
        return loss

    history = [float(closure().detach())]
    best, best_state, since, done = float("inf"), None, 0, 0
    while done < iters:
        opt.step(closure)
        done += chunk
        history.append(float(closure().detach()))
        v = float(model.loss(c_v, e_v, None if delta else f_v).detach())
        if v < best * (1 - tol):
            best, best_state, since = v, copy.deepcopy(model.state_dict()), 0
        else:
            since += 1
            if since >= 2:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return model, {"history": history, "steps": done}


# ----------------------------------------------------------------------------- evaluation
def evaluate_mlh(model, test: dict, *, seed: int, forces: bool = True, limit: int | None = None,
                 n_forces: int | None = None) -> dict:
    """H MAE (micro-Hartree), and through the paper's protocol E MAE (meV) on the first ``limit`` test geometries and
    F MAE (meV/Angstrom) on the first ``n_forces`` of them (a force evaluation costs ~9 energy evaluations)."""
    import torch

    from icml26.science.qhflow2.method import triu_matrix

    n = len(test["coords"]) if limit is None else min(limit, len(test["coords"]))
    x1 = model.sample(torch.tensor(test["coords"][:n]), steps=3, seed=seed).numpy()
    nao = test["H_star"].shape[-1]
    h_pred = test["H_init"][:n] + triu_matrix(x1, nao)
    out = {"h_mae": float(np.abs(h_pred - test["H_star"][:n]).mean() * H_UNIT)}
    if forces:
        out.update(_protocol_errors(h_pred, test, n, n_forces))
    return out


def _protocol_errors(h: np.ndarray, test: dict, n: int, n_forces: int | None = None) -> dict:
    """Energy MAE (meV) over the first ``n`` geometries, force MAE (meV/A) over the first ``n_forces`` (default n)."""
    from icml26.science.qhflow2.method import energy_and_forces

    n_forces = n if n_forces is None else min(int(n_forces), n)
    de, df = [], []
    for i in range(n):
        e, f = energy_and_forces(test["mf"][i], h[i], test["S"][i], forces=i < n_forces)
        de.append(abs(e - test["E_star"][i]))
        if f is not None:
            df.append(np.abs(f - test["F_star"][i]).mean())
    return {"e_mae": float(np.mean(de) * E_UNIT), "f_mae": float(np.mean(df) * F_UNIT)}


def evaluate_mlip(model, test: dict, *, delta: bool = False) -> dict:
    import torch

    c = torch.tensor(test["coords"])
    if delta:
        with torch.no_grad():
            e = model.energy(c).numpy() + test["E_minao"]
        return {"e_mae": float(np.abs(e - test["E_star"]).mean() * E_UNIT)}
    e, f = model.energy_forces(c)
    e, f = e.detach().numpy(), f.detach().numpy()
    return {"e_mae": float(np.abs(e - test["E_star"]).mean() * E_UNIT),
            "f_mae": float(np.abs(f - test["F_star"]).mean() * F_UNIT)}


# ----------------------------------------------------------------------------- parts
def reference(data: dict) -> dict:
    """The MINAO-guess Fock matrix through the protocol, and the mean-energy predictor's MAE."""
    test, train = data["test"], data["train"]
    n = len(test["coords"])
    out = {"h_init/h_mae": float(np.abs(test["H_init"] - test["H_star"]).mean() * H_UNIT)}
    out.update({f"h_init/{k}": v for k, v in _protocol_errors(test["H_init"], test, n, data.get("n_forces")).items()})
    out["mean/e_mae"] = float(np.abs(test["E_star"] - train["E_star"].mean()).mean() * E_UNIT)
    return out


def mean_residual(train: dict, idx: np.ndarray, test: dict, *, forces: bool, n_forces: int | None = None) -> dict:
    """The naive MLH: ``H_init + mean training residual`` (learns no geometry dependence), through the protocol."""
    from icml26.science.qhflow2.method import triu_matrix

    nao = test["H_star"].shape[-1]
    h = test["H_init"] + triu_matrix(_residuals(train)[idx].mean(0), nao)
    out = {"h_mae": float(np.abs(h - test["H_star"]).mean() * H_UNIT)}
    if forces:
        out.update(_protocol_errors(h, test, len(h), n_forces))
    return out


def polynomial(train: dict, idx: np.ndarray, test: dict, degree: int) -> dict:
    """The naive E+F control: a least-squares polynomial of the distances fit to energies and forces."""
    from icml26.science.qhflow2.method import fit_polynomial

    p = fit_polynomial(train["coords"][idx], train["E_star"][idx], train["F_star"][idx], degree)
    e, f = p.predict(test["coords"])
    return {"e_mae": float(np.abs(e - test["E_star"]).mean() * E_UNIT),
            "f_mae": float(np.abs(f - test["F_star"]).mean() * F_UNIT)}


def size_sweep(profile: Profile, seed: int, data: dict, perm: np.ndarray, val_idx: np.ndarray) -> dict:
    """At each train size: flow MLH, direct regression, MLIP, Delta-MLIP (one training rule), the polynomial E+F
    fit and the mean-residual predictor; errors on the test geometries."""
    sizes = [int(n) for n in profile["sizes"]]
    kw, kw_ip = _rule(profile), _mlip_rule(profile)
    degree = int(profile.get("poly_degree", 4))
    keys = ("mlh/h_mae", "mlh/e_mae", "mlh/f_mae", "mlh/loss_drop", "mlh/steps", "mlh/capped", "direct/h_mae",
            "direct/steps", "direct/capped", "mlip/e_mae",
            "mlip/f_mae", "mlip/loss_drop", "mlip/steps", "dmlip/e_mae", "dmlip/steps", "poly/e_mae", "poly/f_mae",
            "meanres/h_mae", "force_ratio", "force_ratio_poly", "mlh/h_ratio", "mlh/h_ratio_meanres",
            "mlip/e_ratio_poly", "mlip/e_ratio_mean")
    out: dict = {"sizes": sizes, **{k: [] for k in keys}}
    from icml26.nn.mlp import loss_drop
    from icml26.science.qhflow2.method import n_params

    test = data["test"]
    nf = data.get("n_forces")
    mean_mae = float(np.abs(test["E_star"] - data["train"]["E_star"].mean()).mean() * E_UNIT)
    ckpts = _checkpoints(profile)
    for j, n in enumerate(sizes):
        idx = perm[:n]
        s = 1000 * seed + j
        mlh, res, snaps = train_mlh(data["train"], idx, val_idx, seed=s, flow=True, checkpoints=ckpts, **kw)
        if n == int(profile["sweep_size"]):  # the width sweep's arm at the profile's width (same rule, same data)
            data.setdefault("trained", {})[(n, kw["width"])] = (mlh, snaps, s)
        m = evaluate_mlh(mlh, test, seed=s, n_forces=nf)
        direct, res_dir, _ = train_mlh(data["train"], idx, val_idx, seed=s, flow=False, **kw)
        d = evaluate_mlh(direct, test, seed=s, forces=False)
        mlip, res_ip = train_mlip(data["train"], idx, val_idx, seed=s, **kw_ip)
        ip = evaluate_mlip(mlip, test)
        dmlip, res_d = train_mlip(data["train"], idx, val_idx, seed=s, delta=True, **kw_ip)
        dip = evaluate_mlip(dmlip, test, delta=True)
        po = polynomial(data["train"], idx, test, degree)
        last = j == len(sizes) - 1
        mr = mean_residual(data["train"], idx, test, forces=last, n_forces=nf)
        if last:
            out["meanres/e_mae"], out["meanres/f_mae"] = mr["e_mae"], mr["f_mae"]
        for k, v in (("mlh/h_mae", m["h_mae"]), ("mlh/e_mae", m["e_mae"]), ("mlh/f_mae", m["f_mae"]),
                     ("mlh/loss_drop", loss_drop(res.history)), ("mlh/steps", res.steps),
                     ("mlh/capped", res.capped), ("direct/h_mae", d["h_mae"]), ("direct/steps", res_dir.steps),
                     ("direct/capped", res_dir.capped),
                     ("mlip/e_mae", ip["e_mae"]), ("mlip/f_mae", ip["f_mae"]),
                     ("mlip/loss_drop", loss_drop(res_ip["history"], window=1)), ("mlip/steps", res_ip["steps"]),
                     ("dmlip/e_mae", dip["e_mae"]), ("dmlip/steps", res_d["steps"]),
                     ("poly/e_mae", po["e_mae"]), ("poly/f_mae", po["f_mae"]), ("meanres/h_mae", mr["h_mae"]),
                     ("force_ratio", m["f_mae"] / ip["f_mae"]), ("force_ratio_poly", m["f_mae"] / po["f_mae"]),
                     ("mlh/h_ratio", m["h_mae"] / data["h_init_mae"]),
                     ("mlh/h_ratio_meanres", m["h_mae"] / mr["h_mae"]),
                     ("mlip/e_ratio_poly", ip["e_mae"] / po["e_mae"]), ("mlip/e_ratio_mean", ip["e_mae"] / mean_mae)):
            out[k].append(float(v))
    out["params/mlh"], out["params/mlip"] = n_params(mlh), n_params(mlip)
    return out


def _checkpoints(profile: Profile) -> tuple[int, ...]:
    """Intermediate checkpoints of the width sweep, in optimiser steps (``ckpt_steps``)."""
    return tuple(sorted({max(1, int(c)) for c in profile["ckpt_steps"]}))


def width_sweep(profile: Profile, seed: int, data: dict, perm: np.ndarray, val_idx: np.ndarray) -> dict:
    """At train size ``sweep_size``: widths x (checkpoints at ``ckpt_steps`` optimiser steps, and the converged,
    restored model); H error vs E/F errors (Spearman) and H error vs width. The arm at the profile's width is the
    size sweep's flow MLH at that size when the size sweep has it (same rule and data: no second training)."""
    from scipy.stats import spearmanr

    widths = [int(w) for w in profile["widths"]]
    kw = _rule(profile)
    ckpts = _checkpoints(profile)
    n = int(profile["sweep_size"])
    idx = perm[:n]
    limit = int(profile.get("sweep_test", len(data["test"]["coords"])))
    h, e, f, w_final = [], [], [], []
    for j, w in enumerate(widths):
        s = 1000 * seed + 100 + j
        if (n, w) in data.get("trained", {}):
            model, snaps, s = data["trained"][(n, w)]
        else:
            model, _, snaps = train_mlh(data["train"], idx, val_idx, seed=s, checkpoints=ckpts, **(kw | {"width": w}))
        final = copy.deepcopy(model.state_dict())
        states = [snaps[c] for c in ckpts if c in snaps] + [final]
        for st in states:
            model.load_state_dict(st)
            r = evaluate_mlh(model, data["test"], seed=s, limit=limit)
            h.append(r["h_mae"]), e.append(r["e_mae"]), f.append(r["f_mae"])
        w_final.append(h[-1])
    return {"widths": widths, "width/h_mae": w_final, "sweep/h_mae": h, "sweep/e_mae": e, "sweep/f_mae": f,
            "sweep/spearman_e": float(spearmanr(h, e)[0]), "sweep/spearman_f": float(spearmanr(h, f)[0])}


def perturbation(profile: Profile, seed: int, data: dict) -> dict:
    """Energy and force errors of H* + eps N on a few test geometries (no learning)."""
    from icml26.science.qhflow2.method import perturbed_errors

    test = data["test"]
    eps = [float(x) for x in profile["pert_eps"]]
    de, df = [], []
    for i in range(int(profile["pert_geoms"])):
        a, b = perturbed_errors(test["mf"][i], test["H_star"][i], test["S"][i], test["E_star"][i],
                                test["F_star"][i], eps, seed=1000 * seed + i)
        de.append(a), df.append(b)
    return {"pert/eps": eps, "pert/e_err": (np.mean(de, 0) * E_UNIT).tolist(),
            "pert/f_err": (np.mean(df, 0) * F_UNIT).tolist()}


def _slope(x, y) -> float:
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def run(profile: Profile, seed: int) -> dict:
    import torch
    from pyscf import lib

    torch.set_num_threads(1)
    lib.num_threads(1)
    data = _data(profile)
    n_pool, n_val = int(profile["n_pool"]), int(profile["n_val"])
    perm = np.random.default_rng([int(seed), 24]).permutation(n_pool)
    if max(int(n) for n in profile["sizes"]) > n_pool - n_val:
        raise ValueError("profile sizes must leave n_val validation geometries in the pool")
    val_idx = perm[n_pool - n_val:]  # early-stopping geometries, never trained on, never tested on
    data["n_forces"] = int(profile.get("n_forces", len(data["test"]["coords"])))
    out = reference(data)
    data["h_init_mae"] = out["h_init/h_mae"]
    out.update(size_sweep(profile, seed, data, perm, val_idx))
    out.update(width_sweep(profile, seed, data, perm, val_idx))
    out.update(perturbation(profile, seed, data))
    out["slope/data"] = _slope(out["sizes"], out["mlh/h_mae"])
    out["slope/width"] = _slope(out["widths"], out["width/h_mae"])
    return out


# ----------------------------------------------------------------------------- hand-written checks
def _arr(ms, key) -> np.ndarray:
    return np.array([np.asarray(m[key], float) for m in ms])


def _gates_energy():
    from icml26.core import checks as C

    return (C.gate("mlh/h_ratio_meanres", at_most=0.2, at=-1,
                   why="MLH H error <= 0.2x that of the mean-residual predictor (H_init + training-mean residual) "
                       "at the largest size"),
            C.gate("mlip/e_ratio_poly", at_most=2.0, at=-1,
                   why="MLIP energy error <= 2x the polynomial E+F fit's at the largest size (catches an "
                       "under-trained MLIP)"))


_ENERGY_CONTROLS = (("mlip/e_mae", "MLIP"), ("dmlip/e_mae", "Delta-MLIP"), ("poly/e_mae", "polynomial E+F fit"))


def check_energy_beats_mlip(ms: list[dict]) -> Verdict:
    """Pre-registered (second pass): against each control (MLIP, Delta-MLIP, polynomial E+F fit) the MLH's
    seed-mean energy MAE is lower at every train size AND a one-sided Wilcoxon over the pooled (seed, size) pairs
    gives p < 0.05. Reproduced if all three controls are beaten so; partly if one or two are; else
    not-reproduced. Gated (MLH vs the mean-residual predictor, MLIP vs the polynomial)."""
    from icml26.core.checks import apply_gates, min_attainable_p
    from icml26.core.stats import fmt_p, paired_test

    a = _arr(ms, "mlh/e_mae")
    parts, passed = [], []
    for key, name in _ENERGY_CONTROLS:
        b = _arr(ms, key)
        each = bool(np.all(a.mean(0) < b.mean(0)))
        p = paired_test(a.ravel(), b.ravel(), alternative="less")
        passed.append(each and p < 0.05)
        parts.append(f"{name}: " + ", ".join(f"{x:.3g}" for x in b.mean(0)) + f" meV (below at every size: {each}; "
                     f"pooled Wilcoxon {fmt_p(p)}; ratio control/MLH at the largest size "
                     f"{b.mean(0)[-1] / a.mean(0)[-1]:.3g})")
    n = a.size
    if min_attainable_p(n, "wilcoxon") >= 0.05:
        status = "not-checkable"
    else:
        status = "reproduced" if all(passed) else ("partly" if any(passed) else "not-reproduced")
    measured = "MLH energy MAE " + ", ".join(f"{x:.3g}" for x in a.mean(0)) + " meV at sizes " + str(ms[0]["sizes"])
    if "meanres/e_mae" in ms[0]:
        measured += (f"; mean-residual predictor at the largest size {np.mean([m['meanres/e_mae'] for m in ms]):.3g}"
                     " meV")
    v = Verdict(status, measured, "rule: MLH below each control at every size in seed mean and pooled one-sided "
                f"Wilcoxon over {n} (seed, size) pairs p < 0.05; every learned arm trained to convergence under early "
                "stopping on held-out validation geometries (MLH arms: Adam, reduce-on-plateau; MLIP arms: L-BFGS); " + "; ".join(parts),
                value=float(a.mean()), control="; ".join(parts))
    return apply_gates(v, ms, _gates_energy())


def control_energy_beats_mlip(ms: list[dict]) -> list[dict]:
    """The MLIP (energy model, autograd forces) in the MLH's place."""
    return [dict(m) | {"mlh/e_mae": list(m["mlip/e_mae"])} for m in ms]


def contradict_energy_beats_mlip(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"mlh/e_mae": [2 * max(x, y, z) + 1 for x, y, z in
                                     zip(m["mlip/e_mae"], m["dmlip/e_mae"], m["poly/e_mae"])]} for m in ms]


def check_nequip_level_forces(ms: list[dict]) -> Verdict:
    """Pre-registered (rule unchanged; the MLIP reference is now trained to early-stopping convergence): at the
    largest train size, the per-seed ratio MLH force MAE / MLIP force MAE has seed mean <= 1.2 and 95% bootstrap
    CI upper end <= 1.5 (reproduced); seed mean <= 1.5 otherwise (partly). Gated. The ratio against the
    polynomial E+F fit is reported, decides nothing."""
    from icml26.core.checks import apply_gates
    from icml26.core.stats import bootstrap_ci

    r = _arr(ms, "force_ratio")
    last = r[:, -1]
    mean = float(last.mean())
    lo, hi = bootstrap_ci(last)
    if len(ms) < 3:
        status = "not-checkable"
    else:
        status = "reproduced" if mean <= 1.2 and hi <= 1.5 else ("partly" if mean <= 1.5 else "not-reproduced")
    rp = _arr(ms, "force_ratio_poly")[:, -1]
    v = Verdict(status, f"force MAE ratio MLH/MLIP {mean:.3g} [{lo:.3g}, {hi:.3g}] at n = {ms[0]['sizes'][-1]} "
                f"(per size: " + ", ".join(f"{x:.3g}" for x in r.mean(0)) + ")",
                f"rule: seed-mean ratio <= 1.2 and bootstrap CI upper <= 1.5; MLH {np.mean(_arr(ms, 'mlh/f_mae')[:, -1]):.3g}"
                f" vs MLIP {np.mean(_arr(ms, 'mlip/f_mae')[:, -1]):.3g} meV/A; polynomial E+F fit "
                f"{np.mean(_arr(ms, 'poly/f_mae')[:, -1]):.3g} meV/A (ratio MLH/polynomial {rp.mean():.3g}, reported "
                f"only); {len(ms)} seeds; for scale, the unlearned MINAO-guess Hamiltonian through the same force "
                f"protocol has ratio {np.mean([m['h_init/f_mae'] / m['mlip/f_mae'][-1] for m in ms]):.3g}",
                value=mean, ci=(lo, hi))
    return apply_gates(v, ms, _gates_energy())


def contradict_nequip_level_forces(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"force_ratio": [3.0 + x for x in m["force_ratio"]]} for m in ms]


def check_scaling_transfer(ms: list[dict]) -> Verdict:
    """Pre-registered: (scaling) the log-log slopes of MLH H error on train size and on width (final
    checkpoint, size ``sweep_size``) have 95% bootstrap CIs over seeds entirely below 0; (transfer) across the
    widths x checkpoints at that fixed size, the seed-mean Spearman of H error with E error and with F error are
    both >= 0.8. Reproduced if both halves hold; partly if one does; else not-reproduced. Gated."""
    from icml26.core.checks import apply_gates
    from icml26.core.stats import bootstrap_ci

    sd, sw = _arr(ms, "slope/data"), _arr(ms, "slope/width")
    ci_d, ci_w = bootstrap_ci(sd), bootstrap_ci(sw)
    rho_e, rho_f = float(_arr(ms, "sweep/spearman_e").mean()), float(_arr(ms, "sweep/spearman_f").mean())
    scaling = ci_d[1] < 0 and ci_w[1] < 0
    transfer = rho_e >= 0.8 and rho_f >= 0.8
    if len(ms) < 3:
        status = "not-checkable"
    else:
        status = "reproduced" if scaling and transfer else ("partly" if scaling or transfer else "not-reproduced")
    v = Verdict(status, f"slope vs data {sd.mean():.3g} [{ci_d[0]:.3g}, {ci_d[1]:.3g}], vs width {sw.mean():.3g} "
                f"[{ci_w[0]:.3g}, {ci_w[1]:.3g}]; Spearman(H, E) {rho_e:.3f}, Spearman(H, F) {rho_f:.3f}",
                f"rule: both slope CIs < 0 and both seed-mean Spearman >= 0.8 over {len(ms[0]['sweep/h_mae'])} "
                f"width x checkpoint models at n = fixed; {len(ms)} seeds", value=rho_e, ci=ci_d)
    return apply_gates(v, ms, _gates_energy()[:1])


def contradict_scaling_transfer(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"slope/data": 0.5, "slope/width": 0.5, "sweep/spearman_e": -0.5, "sweep/spearman_f": -0.5}
            for m in ms]


# ----------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    sizes = np.asarray(ms[0]["sizes"], float)
    fig = Figure(figsize=(15, 4))
    ax = fig.subplots(1, 4)
    series = {
        0: (("mlh/h_mae", "MLH (flow)"), ("direct/h_mae", "direct regression")),
        1: (("mlh/e_mae", "MLH"), ("mlip/e_mae", "MLIP (E+F)"), ("dmlip/e_mae", "Delta-MLIP"),
            ("poly/e_mae", "polynomial E+F fit")),
        2: (("mlh/f_mae", "MLH"), ("mlip/f_mae", "MLIP (E+F)"), ("poly/f_mae", "polynomial E+F fit")),
    }
    ylab = {0: "Hamiltonian MAE (micro-Hartree)", 1: "energy MAE (meV)", 2: "force MAE (meV/Angstrom)"}
    for k, lines in series.items():
        for key, label in lines:
            y = _arr(ms, key)
            ax[k].errorbar(sizes, y.mean(0), yerr=y.std(0), marker="o", capsize=3, label=label)
        ax[k].set_xscale("log"), ax[k].set_yscale("log")
        ax[k].set_xlabel("training geometries"), ax[k].set_ylabel(ylab[k]), ax[k].legend(fontsize=8)
    href = float(np.mean([m["h_init/h_mae"] for m in ms]))
    ax[0].axhline(href, color="0.5", ls=":", label="MINAO guess")
    mref = float(np.mean([m["meanres/h_mae"][-1] for m in ms]))
    ax[0].axhline(0.2 * mref, color="0.5", ls="--", label="gate (0.2x mean-residual predictor)")
    eps = np.asarray(ms[0]["pert/eps"], float)
    ax[3].loglog(eps, _arr(ms, "pert/e_err").mean(0), "o-", label="energy error (meV)")
    ax[3].loglog(eps, _arr(ms, "pert/f_err").mean(0), "s-", label="force error (meV/Angstrom)")
    ax[3].set_xlabel("perturbation eps of H* (Hartree)"), ax[3].set_ylabel("error"), ax[3].legend(fontsize=8)
    fig.suptitle(f"QHFlow2 protocol on PBE/STO-3G water; {len(ms)} seeds (mean +- sd)")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- bad-input hook
def EXAMPLES():
    from icml26.science.qhflow2 import method, setting

    s = np.eye(3) + 0.1 * (np.ones((3, 3)) - np.eye(3))
    h = -np.diag([1.0, 0.5, 0.2]) + 0.05
    return [
        (method.solve_fock, {"h": h, "s": s}),
        (method.density, {"c": np.eye(3), "n_occ": 2}),
        (method.triu_matrix, {"v": np.arange(6.0), "n": 3}),
        (setting.water_geometry, {"r1": 1.0, "r2": 0.95, "theta_deg": 104.0}),
        (setting.sample_geometries, {"n": 2, "seed": 0}),
        (method.fit_polynomial, {"coords": setting.sample_geometries(6, 0), "energies": np.linspace(0, 1e-3, 6),
                                 "forces": np.full((6, 3, 3), 1e-3), "degree": 2}),
    ]


def check_fewer_params_lower_h_error(ms: list[dict]) -> Verdict:
    """What we can show (the claim itself is not-checkable): our MLH's H error and parameter count. There is no
    published MLH at our scale to compare with; flow vs direct regression is the separate ``flow-vs-direct``
    claim (QHFlow2's 40% gain over QHFlow comes from its backbone, not from the flow). Measurement text revised
    by review after the full run (it used to report flow vs direct regression here, and a status)."""
    a = _arr(ms, "mlh/h_mae")[:, -1]
    return Verdict("not-checkable",
                   f"MLH H MAE {a.mean():.4g} micro-Ha at n = {ms[0]['sizes'][-1]:g} with "
                   f"{int(ms[0]['params/mlh'])} parameters (an MLP in a canonical frame, not the eSCN backbone)",
                   "no previous-best MLH (QHNet, QHFlow) trained at our scale to compare with",
                   value=float(a.mean()))


def contradict_fewer_params_lower_h_error(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"mlh/h_mae": [2 * x + 1 for x in m["direct/h_mae"]]} for m in ms]
