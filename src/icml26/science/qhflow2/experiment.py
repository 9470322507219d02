"""QHFlow2's claims at small scale: an MLH on PBE water judged by the energies and forces it yields.

``run`` composes four named parts, one per group of claims:

* :func:`size_sweep` (claims ``energy-beats-mlip``, ``nequip-level-forces``, ``flow-vs-direct`` and the
  data half of ``scaling-transfer``): at each train size the residual flow MLH, its direct-regression
  ablation, an MLIP (energy MLP, autograd forces, energy + force loss) and a Delta-MLIP (energy MLP
  correcting ``E[D_minao]``) train with one width, optimiser, step budget and seed; the MLH's
  Hamiltonian goes through the paper's protocol (eigensolve, ``energy_tot``, analytic gradient).
* :func:`width_sweep` (the width and transfer halves of ``scaling-transfer``): at one train size,
  MLHs of several widths, each read at several checkpoints; Spearman of H error with E and F errors.
* :func:`perturbation` (identity ``perturbation-orders``): ``H* + eps N`` gives energy errors ~ eps^2
  and force errors ~ eps, no learning involved.
* :func:`reference` : the MINAO-guess Fock matrix through the same protocol (the gate's yardstick).

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
def train_mlh(train: dict, idx: np.ndarray, *, width: int, steps: int, lr: float, seed: int, flow: bool = True,
              checkpoints: tuple[int, ...] = ()):
    """Train the residual MLH (flow or direct) on ``train[idx]``; returns (model, fit result, {step: state})."""
    import torch

    from icml26.nn.mlp import fit
    from icml26.science.qhflow2.method import ResidualFlowMLH

    torch.manual_seed(seed)
    x1 = _residuals(train)[idx]
    coords = train["coords"][idx]
    model = ResidualFlowMLH(x1, coords, width=width, flow=flow)
    c_t, x_t = torch.tensor(coords), torch.tensor(x1)

    def batches(gen):
        return model.noise(len(idx), gen) if flow else (None, None)

    snaps: dict[int, dict] = {}

    def on_step(step, m, loss):
        if step + 1 in checkpoints:
            snaps[step + 1] = copy.deepcopy(m.state_dict())

    res = fit(model, lambda m, b: m.loss(c_t, x_t, *b), batches, steps=steps, lr=lr, seed=seed,
              schedule="cosine", on_step=on_step)
    return model, res, snaps


def train_mlip(train: dict, idx: np.ndarray, *, width: int, steps: int, lr: float, seed: int, delta: bool = False):
    """The MLIP control (energy + force loss) or, with ``delta``, the Delta-MLIP on E* - E[D_minao] (energies only)."""
    import torch

    from icml26.nn.mlp import fit
    from icml26.science.qhflow2.method import EnergyMLIP

    torch.manual_seed(seed)
    coords = train["coords"][idx]
    e = train["E_star"][idx] - (train["E_minao"][idx] if delta else 0.0)
    f = train["F_star"][idx]
    model = EnergyMLIP(e, coords, width=width, force_weight=0.0 if delta else 1.0,
                       force_scale=float(f.std()))
    c_t, e_t, f_t = torch.tensor(coords), torch.tensor(e), torch.tensor(f)
    res = fit(model, lambda m, b: m.loss(c_t, e_t, None if delta else f_t), [None], steps=steps, lr=lr,
              seed=seed, schedule="cosine")
    return model, res


# ----------------------------------------------------------------------------- evaluation
def evaluate_mlh(model, test: dict, *, seed: int, forces: bool = True, limit: int | None = None) -> dict:
    """H MAE (micro-Hartree), and through the paper's protocol E MAE (meV) and F MAE (meV/Angstrom)."""
    import torch

    from icml26.science.qhflow2.method import energy_and_forces, triu_matrix

    n = len(test["coords"]) if limit is None else min(limit, len(test["coords"]))
    x1 = model.sample(torch.tensor(test["coords"][:n]), steps=3, seed=seed).numpy()
    nao = test["H_star"].shape[-1]
    h_pred = test["H_init"][:n] + triu_matrix(x1, nao)
    out = {"h_mae": float(np.abs(h_pred - test["H_star"][:n]).mean() * H_UNIT)}
    if forces:
        out.update(_protocol_errors(h_pred, test, n))
    return out


def _protocol_errors(h: np.ndarray, test: dict, n: int) -> dict:
    from icml26.science.qhflow2.method import energy_and_forces

    de, df = [], []
    for i in range(n):
        e, f = energy_and_forces(test["mf"][i], h[i], test["S"][i])
        de.append(abs(e - test["E_star"][i]))
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
    out.update({f"h_init/{k}": v for k, v in _protocol_errors(test["H_init"], test, n).items()})
    out["mean/e_mae"] = float(np.abs(test["E_star"] - train["E_star"].mean()).mean() * E_UNIT)
    return out


def size_sweep(profile: Profile, seed: int, data: dict, perm: np.ndarray, h_init_mae: float) -> dict:
    sizes = [int(n) for n in profile["sizes"]]
    kw = dict(width=int(profile["width"]), steps=int(profile["steps"]), lr=float(profile["lr"]))
    keys = ("mlh/h_mae", "mlh/e_mae", "mlh/f_mae", "mlh/loss_drop", "direct/h_mae", "mlip/e_mae", "mlip/f_mae",
            "mlip/loss_drop", "dmlip/e_mae", "force_ratio", "mlh/h_ratio", "mlip/e_ratio_mean")
    out: dict = {"sizes": sizes, **{k: [] for k in keys}}
    from icml26.nn.mlp import loss_drop
    from icml26.science.qhflow2.method import n_params

    mean_mae = float(np.abs(data["test"]["E_star"] - data["train"]["E_star"].mean()).mean() * E_UNIT)
    for j, n in enumerate(sizes):
        idx = perm[:n]
        s = 1000 * seed + j
        mlh, res, _ = train_mlh(data["train"], idx, seed=s, flow=True, **kw)
        m = evaluate_mlh(mlh, data["test"], seed=s)
        direct, _, _ = train_mlh(data["train"], idx, seed=s, flow=False, **kw)
        d = evaluate_mlh(direct, data["test"], seed=s, forces=False)
        mlip, res_ip = train_mlip(data["train"], idx, seed=s, **kw)
        ip = evaluate_mlip(mlip, data["test"])
        dmlip, _ = train_mlip(data["train"], idx, seed=s, delta=True, **kw)
        dip = evaluate_mlip(dmlip, data["test"], delta=True)
        for k, v in (("mlh/h_mae", m["h_mae"]), ("mlh/e_mae", m["e_mae"]), ("mlh/f_mae", m["f_mae"]),
                     ("mlh/loss_drop", loss_drop(res.history)), ("direct/h_mae", d["h_mae"]),
                     ("mlip/e_mae", ip["e_mae"]), ("mlip/f_mae", ip["f_mae"]),
                     ("mlip/loss_drop", loss_drop(res_ip.history)), ("dmlip/e_mae", dip["e_mae"]),
                     ("force_ratio", m["f_mae"] / ip["f_mae"]), ("mlh/h_ratio", m["h_mae"] / h_init_mae),
                     ("mlip/e_ratio_mean", ip["e_mae"] / mean_mae)):
            out[k].append(float(v))
    out["params/mlh"], out["params/mlip"] = n_params(mlh), n_params(mlip)
    # robustness of the control (reported, decides nothing): the MLIP at the largest size with 3x the budget
    long_kw = dict(kw, steps=int(profile.get("long_factor", 3)) * kw["steps"])
    mlip, _ = train_mlip(data["train"], perm[: sizes[-1]], seed=1000 * seed + 99, **long_kw)
    ip = evaluate_mlip(mlip, data["test"])
    out["mlip_long/e_mae"], out["mlip_long/f_mae"] = ip["e_mae"], ip["f_mae"]
    return out


def width_sweep(profile: Profile, seed: int, data: dict, perm: np.ndarray) -> dict:
    """At train size ``sweep_size``: widths x checkpoints; H error vs E/F errors (Spearman) and H error vs width."""
    from scipy.stats import spearmanr

    widths = [int(w) for w in profile["widths"]]
    steps = int(profile["steps"])
    ckpts = tuple(sorted({max(1, int(round(f * steps))) for f in profile["checkpoints"]}))
    idx = perm[: int(profile["sweep_size"])]
    limit = int(profile.get("sweep_test", len(data["test"]["coords"])))
    h, e, f, w_final = [], [], [], []
    for j, w in enumerate(widths):
        s = 1000 * seed + 100 + j
        model, _, snaps = train_mlh(data["train"], idx, width=w, steps=steps, lr=float(profile["lr"]), seed=s,
                                    checkpoints=ckpts)
        for c in ckpts:
            model.load_state_dict(snaps[c])
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

    lib.num_threads(max(1, torch.get_num_threads()))
    data = _data(profile)
    perm = np.random.default_rng([int(seed), 24]).permutation(int(profile["n_pool"]))
    out = reference(data)
    out.update(size_sweep(profile, seed, data, perm, out["h_init/h_mae"]))
    out.update(width_sweep(profile, seed, data, perm))
    out.update(perturbation(profile, seed, data))
    out["slope/data"] = _slope(out["sizes"], out["mlh/h_mae"])
    out["slope/width"] = _slope(out["widths"], out["width/h_mae"])
    return out


# ----------------------------------------------------------------------------- hand-written checks
def _arr(ms, key) -> np.ndarray:
    return np.array([np.asarray(m[key], float) for m in ms])


def _gates_energy():
    from icml26.core import checks as C

    return (C.gate("mlh/h_ratio", at_most=0.2, at=-1, why="MLH H error <= 0.2x the MINAO guess's at the largest size"),
            C.gate("mlip/e_ratio_mean", at_most=0.5, at=-1,
                   why="MLIP energy error <= 0.5x the mean predictor's at the largest size"))


def check_energy_beats_mlip(ms: list[dict]) -> Verdict:
    """Pre-registered: against each control (MLIP, Delta-MLIP) the MLH's seed-mean energy MAE is lower at
    every train size AND a one-sided Wilcoxon over the pooled (seed, size) pairs gives p < 0.05.
    Reproduced if both controls are beaten so; partly if one is; else not-reproduced. Gated."""
    from icml26.core.checks import apply_gates, min_attainable_p
    from icml26.core.stats import fmt_p, paired_test

    a = _arr(ms, "mlh/e_mae")
    parts, passed = [], []
    for key, name in (("mlip/e_mae", "MLIP"), ("dmlip/e_mae", "Delta-MLIP")):
        b = _arr(ms, key)
        each = bool(np.all(a.mean(0) < b.mean(0)))
        p = paired_test(a.ravel(), b.ravel(), alternative="less")
        passed.append(each and p < 0.05)
        parts.append(f"{name}: " + ", ".join(f"{x:.3g}" for x in b.mean(0)) + f" meV (below at every size: {each}; "
                     f"pooled Wilcoxon {fmt_p(p)})")
    n = a.size
    if min_attainable_p(n, "wilcoxon") >= 0.05:
        status = "not-checkable"
    else:
        status = "reproduced" if all(passed) else ("partly" if any(passed) else "not-reproduced")
    measured = "MLH energy MAE " + ", ".join(f"{x:.3g}" for x in a.mean(0)) + " meV at sizes " + str(ms[0]["sizes"])
    measured += f"; MLIP with a longer budget (3x steps in full) at the largest size: {np.mean([m['mlip_long/e_mae'] for m in ms]):.3g} meV"
    v = Verdict(status, measured, "rule: MLH below each control at every size in seed mean and pooled one-sided "
                f"Wilcoxon over {n} (seed, size) pairs p < 0.05; " + "; ".join(parts)
                + "; note added by review after the full run (rule unchanged): the gap's size is not comparable "
                "with the paper's 20x, since the 400-step MLIP is under-converged (a longer-trained MLIP or a "
                "polynomial E+F fit reaches ~0.1 meV at n = 200, still ~50x above the MLH) and a 7-orbital "
                "residual on a 3-D geometry space is learned to micro-Hartree precision (see substitution)",
                value=float(a.mean()), control="; ".join(parts))
    return apply_gates(v, ms, _gates_energy())


def control_energy_beats_mlip(ms: list[dict]) -> list[dict]:
    """The MLIP (energy model, autograd forces) in the MLH's place."""
    return [dict(m) | {"mlh/e_mae": list(m["mlip/e_mae"])} for m in ms]


def contradict_energy_beats_mlip(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"mlh/e_mae": [2 * max(x, y) + 1 for x, y in zip(m["mlip/e_mae"], m["dmlip/e_mae"])]}
            for m in ms]


def check_nequip_level_forces(ms: list[dict]) -> Verdict:
    """Pre-registered: at the largest train size, the per-seed ratio MLH force MAE / MLIP force MAE has seed
    mean <= 1.2 and 95% bootstrap CI upper end <= 1.5 (reproduced); seed mean <= 1.5 otherwise (partly). Gated."""
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
    v = Verdict(status, f"force MAE ratio MLH/MLIP {mean:.3g} [{lo:.3g}, {hi:.3g}] at n = {ms[0]['sizes'][-1]} "
                f"(per size: " + ", ".join(f"{x:.3g}" for x in r.mean(0)) + ")",
                f"rule: seed-mean ratio <= 1.2 and bootstrap CI upper <= 1.5; MLH {np.mean(_arr(ms, 'mlh/f_mae')[:, -1]):.3g}"
                f" vs MLIP {np.mean(_arr(ms, 'mlip/f_mae')[:, -1]):.3g} meV/A (MLIP with a longer budget, 3x in full: "
                f"{np.mean([m['mlip_long/f_mae'] for m in ms]):.3g}, reported only); {len(ms)} seeds; for scale, the "
                f"unlearned MINAO-guess Hamiltonian through the same force protocol has ratio "
                f"{np.mean([m['h_init/f_mae'] / m['mlip/f_mae'][-1] for m in ms]):.3g}; note added by review after "
                "the full run (rule unchanged): the MLIP reference is under-converged at 400 steps; against a "
                "6000-step MLIP or a polynomial E+F fit (~2.6-4.8 meV/A offline, see substitution) the ratio is "
                "~0.3-0.6, still within the rule",
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
        1: (("mlh/e_mae", "MLH"), ("mlip/e_mae", "MLIP (E+F)"), ("dmlip/e_mae", "Delta-MLIP")),
        2: (("mlh/f_mae", "MLH"), ("mlip/f_mae", "MLIP (E+F)")),
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
    ax[0].axhline(0.2 * href, color="0.5", ls="--", label="gate (0.2x guess)")
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
