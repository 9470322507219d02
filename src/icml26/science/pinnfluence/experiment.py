"""Small-scale reproduction of PINNfluence (arXiv:2409.08958) on two PDEs of the paper.

Kept from the paper: the diffusion ("heat") benchmark and the drift-diffusion problem of
:mod:`.setting` with DeepXDE's Hammersley training points (every point carries a PDE term,
boundary/initial points also a BC/IC term); float64 tanh MLPs; Adam (lr 1e-3) then L-BFGS; a "good"
PINN and a "bad" one trained on far fewer points (10/2/2 domain/boundary/initial points, the paper's
bad heat setting); the influence of every loss term of every training point on the prediction
``u(x)``; grad-dot (TracIn, one checkpoint) as the baseline; leave-one-out validation as in the
authors' ``get_leave_one_out_diff``: the PINN is retrained from scratch with the same seed and one
initial-condition point removed, and the change of ``u`` over the test points is compared with the
influence prediction (Spearman); the diagnostics component fraction, cancellation and temporal
directionality, compared between good and bad PINNs over 10 seeds (the paper's seed count).

Replaced: the network ([2,32,32,32,1] -> [2,6,1]), the good point counts (1000/100/100 ->
100/16/16), the training length (15k Adam + 5k L-BFGS -> the profile's, continued by exact-Hessian
trust-region Newton steps to |grad L| <= 1e-10), a weight decay of 1e-4 added to the loss (so that
an isolated minimum exists and is reached), drift-diffusion's coefficients (beta = 20, s = 2 ->
beta = s = 1), the Arnoldi Hessian approximation by the exact inverse Hessian (the network has fewer
than 50 parameters, so the top-50 eigenprojection is the whole Hessian), 7 PDEs by two. A damped
variant (``lam = 1e-3 * max eigenvalue``, raised to ``2 |min eigenvalue|`` if needed) is reported and
drives the diagnostics, as before.

Parts of ``run``: :func:`fit` (train one PINN), :func:`attribute` (influence, grad-dot and the
diagnostics), :func:`leave_one_out` (LOO refits from scratch and the correlations).

History: the first full run compared influence with warm-started L-BFGS retraining minus a control
run, and the optimiser drift of the control run swamped the removal (Spearman ~0). A second version
replaced the reference by a proximal LOO response, which damped influence estimates by construction;
that comparison is now a unit test only. A third version followed the authors' protocol but training
stopped at |grad L| ~ 1e-2, so a LOO change was optimiser noise (a noise-floor gate held in 2/10
seeds). This version trains every fit and refit to convergence and gates the claim on the reached
gradient norm (<= 1e-8 in >= 80% of seeds), with the original threshold (Spearman >= 0.6 in >= 80%
of seeds, and influence above grad-dot).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_p, paired_test, seeds_of
from icml26.science.pinnfluence.setting import (PROBLEMS, evaluation_grid, exact_solution, sample_points,
                                                sample_test_points)

DIAGNOSTICS = ("frac_ic", "kappa", "dir_excess")
ATTRIBUTIONS = ("if", "ifd", "gd")  # exact inverse / top-50 eigenprojection (paper's), damped, grad-dot


@dataclass
class Fit:
    """A trained PINN and its training problem."""

    loss: object  # CompositeLoss
    theta: object  # torch.Tensor (P,)
    theta0: object  # initialisation, reused by the LOO refits
    X: np.ndarray
    on_bc: np.ndarray
    on_ic: np.ndarray
    grad_norm: float


def _train(p: Profile, loss, theta0):
    from icml26.science.pinnfluence.method import train_to_convergence

    return train_to_convergence(loss, theta0, int(p["adam_steps"]), int(p["lbfgs_steps"]),
                                newton_steps=int(p["newton_steps"]), lr=float(p["lr"]),
                                grad_tol=float(p["grad_tol"]))


def fit(p: Profile, which: str, seed: int, problem: str = "diffusion") -> Fit:
    """Train the ``which`` ("good" or "bad") PINN of ``seed`` on ``problem``: DeepXDE points, Glorot
    init, Adam + L-BFGS + trust-region Newton."""
    import torch

    from icml26.science.pinnfluence.method import CompositeLoss, init_params

    nd, nb, ni = p[f"points_{which}"]
    Xn, bc, ic = sample_points(nd, nb, ni, seed=seed, problem=problem)
    layers = list(p["layers"])
    loss = CompositeLoss(torch.tensor(Xn), torch.tensor(bc), torch.tensor(ic), layers, problem=problem,
                         weight_decay=float(p["weight_decay"]))
    theta0 = init_params(layers, torch.Generator().manual_seed(1000 * seed + (0 if which == "good" else 1)))
    theta, g = _train(p, loss, theta0)
    return Fit(loss, theta, theta0, Xn, bc, ic, g)


def _u(f: Fit, theta, X_test: np.ndarray) -> np.ndarray:
    import torch

    from icml26.science.pinnfluence.method import solution_derivatives

    with torch.no_grad():
        return solution_derivatives(theta, torch.tensor(X_test), f.loss.layers, f.loss.problem)[0].numpy()


def attribute(p: Profile, f: Fit, X_test: np.ndarray) -> tuple[dict, dict[str, np.ndarray]]:
    """Influence (exact inverse, i.e. the top-50 eigenprojection when P <= 50; damped) and grad-dot
    scores of every training point on ``u(X_test)``, and the three diagnostics of each. Returns
    (metrics, per-point total scores (T, n))."""
    import torch
    from torch.func import hessian

    from icml26.science.pinnfluence.method import (cancellation_score, component_fractions, damped_inverse,
                                                   directionality, influence_scores, output_gradients,
                                                   per_point, train_gradients)

    grid = evaluation_grid(41, f.loss.problem)
    exact = exact_solution(f.loss.problem, grid)
    out = {"rel_l2": float(np.linalg.norm(_u(f, f.theta, grid) - exact) / np.linalg.norm(exact)),
           "train_loss": float(f.loss(f.theta)), "grad_norm": f.grad_norm}
    H = hessian(f.loss)(f.theta)
    mu = torch.linalg.eigvalsh(H)
    # damping relative to the largest curvature, raised if needed to make H + lam I positive definite
    lam = max(float(p["damping"]) * float(mu[-1]), -2.0 * float(mu[0]))
    out["hessian_min_eig"], out["damping_used"] = float(mu[0]), lam
    G_test = output_gradients(f.theta, torch.tensor(X_test), f.loss.layers, f.loss.problem)
    G_train = train_gradients(f.loss, f.theta)
    proj = min(int(p["projection_dim"]), H.shape[0])
    inverses = {"if": damped_inverse(H, 0.0, proj, rcond=float(p["rcond"])),
                "ifd": damped_inverse(H, lam), "gd": None}
    totals, multi = {}, f.on_bc | f.on_ic
    for tag, H_inv in inverses.items():
        pp = per_point(influence_scores(G_test, G_train, H_inv), f.on_bc, f.on_ic)
        frac = component_fractions(pp).mean(0)
        U, up = directionality(pp.sum(2), X_test[:, 1], f.X[:, 1])
        out[f"{tag}_frac_pde"], out[f"{tag}_frac_bc"], out[f"{tag}_frac_ic"] = map(float, frac)
        out[f"{tag}_kappa"] = cancellation_score(pp, multi)
        out[f"{tag}_dir_excess"] = float(np.mean(U - up))
        totals[tag] = pp.sum(2)
    return out, totals


def leave_one_out(p: Profile, f: Fit, X_test: np.ndarray, totals: dict[str, np.ndarray],
                  rng: np.random.Generator) -> dict:
    """The authors' LOO protocol: refit from scratch (same initialisation, same schedule) with one
    IC point removed; Spearman correlation over test points of each attribution with the actual
    change of ``u``. Returns per-fit means, the median LOO change ``|du|_2`` and its ratio to the
    predicted change, and the largest final gradient norm of the fit and its refits."""
    import torch
    from scipy import stats

    from icml26.science.pinnfluence.method import CompositeLoss

    u0 = _u(f, f.theta, X_test)
    ic_only = np.flatnonzero(f.on_ic & ~f.on_bc)
    chosen = rng.choice(ic_only, size=min(int(p["n_loo"]), len(ic_only)), replace=False)
    rho = {t: [] for t in ATTRIBUTIONS}
    changes, ratios, grads = [], [], [f.grad_norm]
    X, bc, ic = (torch.tensor(a) for a in (f.X, f.on_bc, f.on_ic))
    out: dict = {}
    for j, z in enumerate(chosen):
        loss_z = CompositeLoss(X, bc, ic, f.loss.layers, drop=int(z), problem=f.loss.problem,
                               weight_decay=f.loss.weight_decay)
        th_z, g_z = _train(p, loss_z, f.theta0)
        du = _u(f, th_z, X_test) - u0
        changes.append(float(np.linalg.norm(du)))
        ratios.append(float(np.linalg.norm(totals["if"][:, z]) / max(np.linalg.norm(du), 1e-300)))
        grads.append(g_z)
        for t in ATTRIBUTIONS:
            rho[t].append(float(stats.spearmanr(totals[t][:, z], du)[0]))
        if j == 0:
            out["loo_example"] = {"predicted": totals["if"][:, z].tolist(), "actual": du.tolist()}
    for t in ATTRIBUTIONS:
        out[f"loo_spearman_{t}"] = float(np.nanmean(rho[t]))
    out["loo_change"], out["loo_pred_ratio"] = float(np.median(changes)), float(np.median(ratios))
    out["loo_grad_max"] = float(max(grads))
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch  # noqa: F401  (seed_everything seeds torch once it is imported)

    rng = seed_everything(seed)
    out: dict = {}
    for problem in profile["problems"]:
        X_test = sample_test_points(int(profile["n_test"]), rng, problem)
        for which in ("good", "bad"):
            f = fit(profile, which, seed, problem)
            diag, totals = attribute(profile, f, X_test)
            out.update({f"{problem}/{which}/{k}": v for k, v in diag.items()})
            if which == "good" and int(profile["n_loo"]) > 0:
                loo = leave_one_out(profile, f, X_test, totals, rng)
                out.update({f"{problem}/good/{k}": v for k, v in loo.items()})
    if int(profile["n_loo"]) > 0:  # pooled over the problems: what the LOO claim reads
        for t in ATTRIBUTIONS:
            out[f"good/loo_spearman_{t}"] = float(np.mean([out[f"{q}/good/loo_spearman_{t}"]
                                                           for q in profile["problems"]]))
        out["good/loo_grad_max"] = float(max(out[f"{q}/good/loo_grad_max"] for q in profile["problems"]))
    return out


# ----------------------------------------------------------------------------- claims
def _problems(ms: list[dict]) -> list[str]:
    return [q for q in PROBLEMS if ms and f"{q}/good/rel_l2" in ms[0]]


def _n_separating(ms: list[dict], tag: str, problem: str) -> tuple[int, list[str]]:
    parts, n_sep = [], 0
    for d in DIAGNOSTICS:
        g, b = seeds_of(ms, f"{problem}/good/{tag}_{d}"), seeds_of(ms, f"{problem}/bad/{tag}_{d}")
        p = paired_test(g, b, alternative="two-sided", method="t")
        n_sep += p < 0.05
        parts.append(f"{d}: good {np.mean(g):.3f} vs bad {np.mean(b):.3f} ({fmt_p(p)})")
    return n_sep, parts


def _diagnostics_one(ms: list[dict], problem: str) -> tuple[str, str, str, str]:
    n = len(ms)
    n_sep, parts = _n_separating(ms, "ifd", problem)
    n_gd, parts_gd = _n_separating(ms, "gd", problem)
    n_top, _ = _n_separating(ms, "if", problem)
    eg, eb = seeds_of(ms, f"{problem}/good/rel_l2"), seeds_of(ms, f"{problem}/bad/rel_l2")
    p_err = paired_test(eg, eb, alternative="less", method="t") if n >= 2 else 1.0
    if n_sep >= 2:
        status = "reproduced" if n_sep > n_gd else "partly"
    else:
        status = "partly" if n_sep == 1 else "not-reproduced"
    evidence = (f"{problem}: {n_sep}/3 diagnostics differ with influence, {n_gd}/3 with grad-dot, {n_top}/3 "
                f"with the undamped inverse (two-sided paired t-test p<0.05, {n} seeds); bad PINN worse: "
                f"one-sided paired t-test {fmt_p(p_err)}")
    if n < 3:
        status, evidence = "not-checkable", f"{problem}: too few seeds ({n}) for a paired t-test; " + evidence
    elif p_err >= 0.05:
        status, evidence = "not-checkable", (f"{problem}: precondition failed (the bad PINN is not measurably "
                                             "worse), so it does not decide; " + evidence)
    value = f"{problem}: " + "; ".join(parts) + f"; rel. L2 good {np.mean(eg):.3g} vs bad {np.mean(eb):.3g}"
    return status, value, evidence, f"{problem} grad-dot: {n_gd}/3 separate; " + "; ".join(parts_gd)


def check_diagnostics_separate(ms: list[dict]) -> Verdict:
    """Pre-registered, per PDE: a diagnostic separates good from bad PINNs if its paired per-seed
    difference is non-zero (two-sided paired t-test, p < 0.05); a PDE reproduces if >= 2 of the 3
    diagnostics (IC influence fraction, cancellation, directionality excess) of the damped-Hessian
    influence separate AND more of them than of the same diagnostics from grad-dot scores (the control
    without H^{-1}); partly if >= 2 separate but grad-dot separates as many, or if 1 separates; a PDE
    decides only if its bad PINN is worse (larger relative L2 error, one-sided paired t-test p < 0.05).
    Overall: reproduced if every deciding PDE reproduces, not-reproduced if every one does not, partly
    otherwise; not-checkable if no PDE decides."""
    per = [_diagnostics_one(ms, q) for q in _problems(ms)]
    deciding = [r[0] for r in per if r[0] != "not-checkable"]
    if not deciding:
        status = "not-checkable"
    elif all(s == "reproduced" for s in deciding):
        status = "reproduced"
    elif all(s == "not-reproduced" for s in deciding):
        status = "not-reproduced"
    else:
        status = "partly"
    n_sep = sum(_n_separating(ms, "ifd", q)[0] for q in _problems(ms)) if len(ms) >= 3 else 0
    evidence = " | ".join(f"[{r[0]}] {r[2]}" for r in per)
    # revised after the full run by review (text only, status unchanged): say when the control
    # separates at least as many diagnostics, i.e. when the separation does not need H^-1
    if len(ms) >= 3:
        tied = [q for q in _problems(ms)
                if _n_separating(ms, "gd", q)[0] >= _n_separating(ms, "ifd", q)[0] > 0]
        if tied:
            evidence += (f" | grad-dot (no H^-1) separates at least as many diagnostics on {', '.join(tied)}: "
                         "the separation does not need the inverse Hessian, so 'partly' holds for the "
                         "literal statement only")
    return Verdict(status, " | ".join(r[1] for r in per), evidence,
                   value=float(n_sep), control=" | ".join(r[3] for r in per))


def contradict_diagnostics_separate(ms: list[dict]) -> list[dict]:
    out = copy.deepcopy(list(ms))
    for m in out:
        for q in _problems(ms):
            for d in DIAGNOSTICS:
                m[f"{q}/bad/ifd_{d}"] = m[f"{q}/good/ifd_{d}"]
    return out


def control_diagnostics_separate(ms: list[dict]) -> list[dict]:
    out = copy.deepcopy(list(ms))
    for m in out:
        for q in _problems(ms):
            for which in ("good", "bad"):
                for d in DIAGNOSTICS:
                    m[f"{q}/{which}/ifd_{d}"] = m[f"{q}/{which}/gd_{d}"]
    return out


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    probs = _problems(metrics)
    fig = Figure(figsize=(5 * (1 + len(probs)), 3.8))
    ax = fig.add_subplot(1, 1 + len(probs), 1)
    ex = metrics[0].get("diffusion/good/loo_example")
    if ex:
        ax.scatter(ex["predicted"], ex["actual"], s=8)
        lim = max(np.abs(ex["predicted"]).max(), np.abs(ex["actual"]).max())
        ax.plot([-lim, lim], [-lim, lim], "k--", lw=0.8, label="y = x")
        ax.legend(fontsize=8)
    ax.set_xlabel("predicted change of u (influence)")
    ax.set_ylabel("actual change of u (LOO refit from scratch)")
    ax.set_title("diffusion: leave one IC point out (seed 0)")
    for k, q in enumerate(probs):
        ax = fig.add_subplot(1, 1 + len(probs), 2 + k)
        w = 0.35
        for i, (which, c) in enumerate((("good", "tab:green"), ("bad", "tab:red"))):
            vals = np.array([[m[f"{q}/{which}/ifd_{d}"] for d in DIAGNOSTICS] for m in metrics])
            ax.bar(np.arange(3) + (i - 0.5) * w, vals.mean(0), w, yerr=vals.std(0), color=c,
                   label=f"{which} PINN", capsize=3)
        ax.set_xticks(np.arange(3), ["IC fraction", "cancellation", "direction excess"])
        ax.set_ylabel("diagnostic value (dimensionless)")
        ax.set_title(q)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def EXAMPLES() -> list:
    """Public calls with good arguments, for the common bad-input test."""
    import torch

    from icml26.science.pinnfluence import method as M
    from icml26.science.pinnfluence import setting as S

    layers = [2, 3, 1]
    theta = M.init_params(layers, torch.Generator().manual_seed(0))
    X = torch.tensor(S.sample_test_points(4, 0))
    H = torch.eye(3, dtype=torch.float64) * 2.0
    pp = np.abs(np.random.default_rng(0).normal(size=(2, 3, 3)))
    return [
        (S.diffusion_exact, {"X": np.array([[0.1, 0.2], [0.3, 0.4]])}),
        (S.drift_diffusion_exact, {"X": np.array([[0.1, 0.2], [0.3, 0.4]])}),
        (S.exact_solution, {"problem": "drift_diffusion", "X": np.array([[0.1, 0.2]])}),
        (M.solution_derivatives, {"theta": theta, "X": X, "layers": layers, "problem": "drift_diffusion"}),
        (M.trust_region_newton, {"loss": lambda th: (th ** 2).sum(), "theta": torch.ones(3, dtype=torch.float64),
                                 "steps": 3, "grad_tol": 1e-8}),
        (S.sample_points, {"num_domain": 4, "num_boundary": 2, "num_initial": 2, "seed": 0}),
        (S.sample_test_points, {"n": 3, "rng": 0}),
        (S.evaluation_grid, {"n": 3}),
        (M.mlp_derivatives, {"theta": theta, "X": X, "layers": layers}),
        (M.damped_inverse, {"H": H, "damping": 0.1, "projection_dim": 2, "rcond": 0.0}),
        (M.component_fractions, {"I_pp": pp}),
        (M.cancellation_score, {"I_pp": pp, "multi": np.array([True, False, True])}),
        (M.directionality, {"I_total": pp[:, :, 0], "t_test": np.array([0.2, 0.5]),
                            "t_train": np.array([0.1, 0.3, 0.9])}),
        (M.train_pinn, {"loss": lambda th: (th ** 2).sum(), "theta0": torch.ones(3, dtype=torch.float64),
                        "adam_steps": 2, "lbfgs_steps": 2, "lr": 1e-3}),
    ]
