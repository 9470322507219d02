"""Small-scale reproduction of PINNfluence (arXiv:2409.08958) on two PDEs of the paper.

Kept from the paper: the diffusion ("heat") benchmark and the drift-diffusion problem of
:mod:`.setting` with DeepXDE's Hammersley training points (every point carries a PDE term,
boundary/initial points also a BC/IC term); float64 tanh MLPs; Adam (lr 1e-3) then L-BFGS; a "good"
PINN and a "bad" one, the bad one trained without L-BFGS (the paper's failure mode for Allen-Cahn and
wave) on the same points from the same initialisation, so that only the training defect differs; the
influence of every loss term of every training point on the prediction ``u(x)``; grad-dot (TracIn,
one checkpoint) as the baseline; leave-one-out validation as in the authors' ``get_leave_one_out_diff``:
the PINN is retrained from scratch with the same seed and one initial-condition point removed, and
the change of ``u`` over the test points is compared with the influence prediction (Spearman); the
diagnostics component fraction, cancellation and temporal directionality, compared between good and
bad PINNs over 10 seeds (the paper's seed count).

Replaced: the network ([2,32,32,32,1] -> [2,6,1]), the point counts (1000/100/100 -> 100/16/16),
the training length (15k Adam + 5k L-BFGS -> the profile's, continued by exact-Hessian trust-region
Newton steps to |grad L| <= 1e-10), a weight decay of 1e-4 added to the loss (so that an isolated
minimum exists and is reached), drift-diffusion's coefficients (beta = 20, s = 2 -> beta = s = 1), the
Arnoldi Hessian approximation by the exact inverse Hessian (the network has fewer than 50 parameters,
so the top-50 eigenprojection is the whole Hessian), 7 PDEs by two, and the heat problem's bad
setting (10/2/2 points) by the no-L-BFGS one (point counts would change the diagnostics by
themselves). A damped variant (``lam = 1e-3 * max eigenvalue``, raised to ``2 |min eigenvalue|`` if
needed) is reported and drives the diagnostics.

Same-minimum reference: a first-order influence estimate describes the minimum of the reduced loss
in the basin of the fitted one. Each LOO point is therefore also refitted warm-started at the fitted
optimum (trust-region Newton on the reduced loss); a refit from scratch whose change of ``u`` differs
from the warm-started one by more than 10% has landed in another minimum and is counted (the rule
reads no attribution score). Pre-registered as the LOO claim's exclusion rule; changed by review after
the full run to reported only (reproduced -> partly): a kept refit equals the warm-started one, whose
agreement with the influence estimate holds by derivation up to second-order terms, so the claim
decides on all refits from scratch.

Parts of ``run``: :func:`fit_pair` (train the good and bad PINN), :func:`attribute` (influence,
grad-dot and the diagnostics), :func:`leave_one_out` (LOO refits and the correlations).

History: the first full run compared influence with warm-started L-BFGS retraining minus a control
run, and the optimiser drift of the control run swamped the removal (Spearman ~0). A second version
replaced the reference by a proximal LOO response, which damped influence estimates by construction;
that comparison is now a unit test only. A third version followed the authors' protocol but training
stopped at |grad L| ~ 1e-2, so a LOO change was optimiser noise. A fourth trained every fit and
refit to convergence (gate met in 7/10 seeds, 80 Newton steps were too few for drift-diffusion) and
found that refits from scratch can land in another minimum (diffusion seeds 4, 5, 8), where the
correlation is ~0; this version adds the same-minimum rule, 300 Newton steps, two LOO points per PDE,
an accuracy gate for the good PINN and the same-points bad PINN.
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


def fit_pair(p: Profile, seed: int, problem: str = "diffusion") -> tuple[Fit, Fit]:
    """Train the good and the bad PINN of ``seed`` on ``problem`` (DeepXDE points, Glorot init).

    Both share the training points and the initialisation; only the training differs. The bad PINN
    stops after the Adam phase (the paper's "no L-BFGS" failure mode); the good one continues with
    L-BFGS and trust-region Newton to convergence. Returns ``(good, bad)``."""
    import torch

    from icml26.science.pinnfluence.method import CompositeLoss, init_params, train_pinn, trust_region_newton

    nd, nb, ni = p["points"]
    Xn, bc, ic = sample_points(nd, nb, ni, seed=seed, problem=problem)
    layers = list(p["layers"])
    loss = CompositeLoss(torch.tensor(Xn), torch.tensor(bc), torch.tensor(ic), layers, problem=problem,
                         weight_decay=float(p["weight_decay"]))
    theta0 = init_params(layers, torch.Generator().manual_seed(1000 * seed))
    theta_adam = train_pinn(loss, theta0, int(p["adam_steps"]), 0, lr=float(p["lr"]))
    bad = Fit(loss, theta_adam, theta0, Xn, bc, ic, float(torch.func.grad(loss)(theta_adam).norm()))
    # continuing from the Adam state equals the whole schedule of train_to_convergence (L-BFGS restarts fresh)
    theta, g = trust_region_newton(loss, train_pinn(loss, theta_adam, 0, int(p["lbfgs_steps"])),
                                   int(p["newton_steps"]), float(p["grad_tol"]))
    return Fit(loss, theta, theta0, Xn, bc, ic, g), bad


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
    """The authors' LOO protocol with a same-minimum reference.

    For each of ``n_loo`` IC points z: (a) the refit from scratch (same initialisation, same schedule,
    z removed), the authors' protocol; (b) the refit warm-started at the full-data optimum (trust-region
    Newton on the loss without z), which converges to the minimum of the reduced loss in the basin of
    ``theta_hat``, the one a first-order influence estimate describes. ``basin_dist = |du_scratch -
    du_warm| / |du_warm|`` (over test points) says whether the refit from scratch reached that same
    minimum; it uses neither influence nor grad-dot scores. Returns per-refit lists: Spearman of each
    attribution with both changes, ``basin_dist``, the sizes of the changes, and the log10 of the
    largest final gradient norm over the fit and all refits."""
    import torch
    from scipy import stats

    from icml26.science.pinnfluence.method import CompositeLoss, trust_region_newton

    u0 = _u(f, f.theta, X_test)
    ic_only = np.flatnonzero(f.on_ic & ~f.on_bc)
    chosen = rng.choice(ic_only, size=min(int(p["n_loo"]), len(ic_only)), replace=False)
    keys = [f"loo_spearman_{t}{ref}" for t in ATTRIBUTIONS for ref in ("", "_warm")]
    out: dict = {k: [] for k in keys + ["loo_basin_dist", "loo_change", "loo_change_warm", "loo_pred_ratio"]}
    grads = [f.grad_norm]
    X, bc, ic = (torch.tensor(a) for a in (f.X, f.on_bc, f.on_ic))
    for j, z in enumerate(chosen):
        loss_z = CompositeLoss(X, bc, ic, f.loss.layers, drop=int(z), problem=f.loss.problem,
                               weight_decay=f.loss.weight_decay)
        th_s, g_s = _train(p, loss_z, f.theta0)
        th_w, g_w = trust_region_newton(loss_z, f.theta, int(p["newton_steps"]), float(p["grad_tol"]))
        du, du_w = _u(f, th_s, X_test) - u0, _u(f, th_w, X_test) - u0
        n_w = max(float(np.linalg.norm(du_w)), 1e-300)
        out["loo_basin_dist"].append(float(np.linalg.norm(du - du_w)) / n_w)
        out["loo_change"].append(float(np.linalg.norm(du)))
        out["loo_change_warm"].append(n_w)
        out["loo_pred_ratio"].append(float(np.linalg.norm(totals["if"][:, z])) / n_w)
        grads += [g_s, g_w]
        for t in ATTRIBUTIONS:
            out[f"loo_spearman_{t}"].append(float(stats.spearmanr(totals[t][:, z], du)[0]))
            out[f"loo_spearman_{t}_warm"].append(float(stats.spearmanr(totals[t][:, z], du_w)[0]))
        if j == 0:
            out["loo_example"] = {"predicted": totals["if"][:, z].tolist(), "actual": du.tolist(),
                                  "actual_warm": du_w.tolist()}
    out["loo_log10_grad_max"] = float(np.log10(max(max(grads), 1e-300)))
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch  # noqa: F401  (seed_everything seeds torch once it is imported)

    rng = seed_everything(seed)
    out: dict = {}
    n_loo = int(profile["n_loo"])
    for problem in profile["problems"]:
        X_test = sample_test_points(int(profile["n_test"]), rng, problem)
        good, bad = fit_pair(profile, seed, problem)
        for which, f in (("good", good), ("bad", bad)):
            diag, totals = attribute(profile, f, X_test)
            out.update({f"{problem}/{which}/{k}": v for k, v in diag.items()})
            if which == "good" and n_loo > 0:
                loo = leave_one_out(profile, f, X_test, totals, rng)
                out.update({f"{problem}/good/{k}": v for k, v in loo.items()})
    if n_loo > 0:  # pooled over the problems (lists over refits): what the LOO claim reads
        qs = profile["problems"]
        for k in [f"loo_spearman_{t}{ref}" for t in ATTRIBUTIONS for ref in ("", "_warm")] + ["loo_basin_dist"]:
            out[f"good/{k}"] = [x for q in qs for x in out[f"{q}/good/{k}"]]
        out["good/loo_log10_grad_max"] = float(max(out[f"{q}/good/loo_log10_grad_max"] for q in qs))
    return out


# ----------------------------------------------------------------------------- claims
def _problems(ms: list[dict]) -> list[str]:
    return [q for q in PROBLEMS if ms and f"{q}/good/rel_l2" in ms[0]]


def _loo_in_basin(ms: list[dict], basin_tol: float) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per seed: mean Spearman of influence and of grad-dot with the refit from scratch over the refits
    that reached the warm-start minimum (``basin_dist <= basin_tol``); NaN where none did. Also the
    per-seed notes of the excluded refits."""
    rho_if, rho_gd, notes = [], [], []
    for i, m in enumerate(ms):
        d = np.asarray(m["good/loo_basin_dist"], float)
        a, b = np.asarray(m["good/loo_spearman_if"], float), np.asarray(m["good/loo_spearman_gd"], float)
        ok = np.isfinite(d) & (d <= basin_tol)
        rho_if.append(float(a[ok].mean()) if ok.any() else float("nan"))
        rho_gd.append(float(b[ok].mean()) if ok.any() else float("nan"))
        if not ok.all():
            notes.append(f"seed #{i}: " + ", ".join(f"{x:.2g}" for x in d[~ok]))
    return np.asarray(rho_if), np.asarray(rho_gd), notes


def check_loo_agreement(ms: list[dict]) -> Verdict:
    """Reference: the authors' LOO protocol, the refit from scratch (same initialisation, one IC point
    removed), over ALL refits. Per seed, the mean over its refits (both PDEs) of Spearman(influence,
    du_scratch) and of Spearman(grad-dot, du_scratch). Reproduced if influence reaches Spearman >= 0.6
    in >= 80% of the seeds AND beats grad-dot (one-sided Wilcoxon over seeds, p < 0.05); partly if one
    of the two; not-reproduced if neither. Not decided (not-checkable) unless the fit and every refit
    (scratch and warm) reached |grad L| <= 1e-8 (log10 <= -8) in >= 80% of the seeds.

    Changed by review after the full run (old outcome reproduced, new outcome partly). The pre-registered
    rule (8d39101) counted only the refits from scratch that reached the minimum of the refit
    warm-started at the fitted optimum (``|du_scratch - du_warm| / |du_warm| <= 0.1``). In the full run
    every kept refit equals its warm-started refit to <= 1.2e-7 (every excluded one differs by >= 0.28),
    so the deciding number was Spearman(influence, warm-started refit) on a subset, the number the same
    rule had declared "not decisive". That number holds by derivation up to second-order terms: the
    influence function is the
    first-order change of the local minimiser of the reduced loss, the Newton refit from theta_hat
    converges to that minimiser, and the remaining difference after removing one of 16 IC points is
    mostly a common scale (predicted/actual norm 0.62-0.94), which a rank correlation ignores; Spearman
    with the warm-started refit is >= 0.96 in all 40 refits, the 22 excluded ones included. It verifies
    the implementation (an identity-type check) and is still reported, with the exclusion counts per PDE;
    the headline decides on the protocol the paper's claim is about."""
    from icml26.core import checks as C

    basin_tol, frac, at_least = 0.1, 0.8, 0.6
    qs = [q for q in PROBLEMS if ms and f"{q}/good/loo_basin_dist" in ms[0]]
    rho_if = np.asarray([np.mean(m["good/loo_spearman_if"]) for m in ms], float)
    rho_gd = np.asarray([np.mean(m["good/loo_spearman_gd"]) for m in ms], float)
    rho_ifd = np.asarray([np.mean(m["good/loo_spearman_ifd"]) for m in ms], float) \
        if ms and "good/loo_spearman_ifd" in ms[0] else None
    have = np.isfinite(rho_if) & np.isfinite(rho_gd)
    a, b = rho_if[have], rho_gd[have]
    n = int(have.sum())
    hit = int(np.sum(a >= at_least))
    p = paired_test(a, b, alternative="greater", method="wilcoxon") if n else 1.0
    part_a, part_b = n > 0 and hit >= frac * n, p < 0.05
    status = "reproduced" if part_a and part_b else ("partly" if part_a or part_b else "not-reproduced")
    mean_if = float(np.mean(a)) if n else float("nan")
    mean_gd = float(np.mean(b)) if n else float("nan")
    # the same-minimum view (reported, not deciding)
    in_if, in_gd, notes = _loo_in_basin(ms, basin_tol)
    n_in = int(np.isfinite(in_if).sum())
    n_ref = sum(len(m["good/loo_basin_dist"]) for m in ms)
    n_out = sum(int(np.sum(~(np.asarray(m["good/loo_basin_dist"], float) <= basin_tol))) for m in ms)
    per_pde = []
    for q in qs:
        d = np.concatenate([np.asarray(m[f"{q}/good/loo_basin_dist"], float) for m in ms])
        s_if = np.concatenate([np.asarray(m[f"{q}/good/loo_spearman_if"], float) for m in ms])
        s_gd = np.concatenate([np.asarray(m[f"{q}/good/loo_spearman_gd"], float) for m in ms])
        ok = d <= basin_tol
        per_pde.append(f"{q}: {int((~ok).sum())}/{len(d)} refits left the basin; mean Spearman over all its "
                       f"refits influence {np.mean(s_if):.2f} vs grad-dot {np.mean(s_gd):.2f}"
                       + (f", over the excluded ones {np.mean(s_if[~ok]):.2f} vs {np.mean(s_gd[~ok]):.2f}"
                          if (~ok).any() else ""))
    warm = np.concatenate([np.asarray(m["good/loo_spearman_if_warm"], float) for m in ms])
    warm_gd = float(np.nanmean(np.concatenate([np.asarray(m["good/loo_spearman_gd_warm"], float) for m in ms])))
    measured = (f"Spearman(influence, LOO refit from scratch) {mean_if:.3g} vs grad-dot {mean_gd:.3g} "
                f"(per-seed means over all {n_ref} refits, {n} seeds)")
    evidence = (f"rule: Spearman >= {at_least} in >= {frac:.0%} of seeds AND influence > grad-dot (one-sided "
                f"Wilcoxon p < 0.05), over all refits from scratch (the authors' protocol); influence >= "
                f"{at_least} in {hit}/{n} seeds, {fmt_p(p)}; per seed influence "
                + ", ".join(f"{x:.2f}" for x in rho_if) + "; grad-dot " + ", ".join(f"{x:.2f}" for x in rho_gd)
                + (f"; damped influence {np.nanmean(rho_ifd):.3g}" if rho_ifd is not None else "")
                + "; " + "; ".join(per_pde)
                + f". Same-minimum view (pre-registered as the decider; changed by review after the full run to "
                f"reported, not deciding: old outcome reproduced, new partly): {n_out}/{n_ref} refits from "
                f"scratch left the warm-started refit's basin (|du_scratch - du_warm|/|du_warm| > {basin_tol})"
                + (f" ({'; '.join(notes)})" if notes else "")
                + (f"; on the {n_ref - n_out} kept refits ({n_in} seeds) influence {np.nanmean(in_if):.3g} vs "
                   f"grad-dot {np.nanmean(in_gd):.3g}" if n_in else "; no refit was kept")
                + "; a kept refit is the warm-started one, and Spearman(influence, "
                f"warm-started refit) is >= {np.nanmin(warm):.2f} over all {len(warm)} refits (grad-dot "
                f"{warm_gd:.2f}): the first-order estimate against the local minimiser it is the derivative of, "
                "true by derivation up to second-order terms once the fit has converged (identity-type; it "
                "separates the exact inverse "
                "from damping and from grad-dot, not influence from the LOO retraining of the claim)")
    v = Verdict(status, measured, evidence, value=mean_if, control=f"grad-dot: {mean_gd:.3g}")
    return C.apply_gates(v, ms, [C.gate("good/loo_log10_grad_max", at_most=-8.0, frac=0.8,
                                        why="the good PINN and all its LOO refits converged to |grad L| <= 1e-8 "
                                            "(log10, float64)")])


def contradict_loo_agreement(ms: list[dict]) -> list[dict]:
    out = copy.deepcopy(list(ms))
    for m in out:
        m["good/loo_spearman_if"], m["good/loo_spearman_gd"] = m["good/loo_spearman_gd"], m["good/loo_spearman_if"]
    return out


def control_loo_agreement(ms: list[dict]) -> list[dict]:
    out = copy.deepcopy(list(ms))
    for m in out:
        m["good/loo_spearman_if"] = list(m["good/loo_spearman_gd"])
        m["good/loo_spearman_if_warm"] = list(m["good/loo_spearman_gd_warm"])
    return out


def _n_separating(ms: list[dict], tag: str, problem: str) -> tuple[int, list[str]]:
    parts, n_sep = [], 0
    for d in DIAGNOSTICS:
        g, b = seeds_of(ms, f"{problem}/good/{tag}_{d}"), seeds_of(ms, f"{problem}/bad/{tag}_{d}")
        p = paired_test(g, b, alternative="two-sided", method="t")
        n_sep += p < 0.05
        parts.append(f"{d}: good {np.mean(g):.3f} vs bad {np.mean(b):.3f} ({fmt_p(p)})")
    return n_sep, parts


def _diagnostics_one(ms: list[dict], problem: str, good_rel_l2: float = 0.25) -> tuple[str, str, str, str]:
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
    good_ok = int(np.sum(eg <= good_rel_l2))
    evidence += f"; good PINN rel. L2 <= {good_rel_l2} in {good_ok}/{n} seeds"
    if n < 3:
        status, evidence = "not-checkable", f"{problem}: too few seeds ({n}) for a paired t-test; " + evidence
    elif good_ok < 0.8 * n:
        status, evidence = "not-checkable", (f"{problem}: precondition failed (the good PINN reaches a relative "
                                             f"L2 error <= {good_rel_l2} in fewer than 80% of seeds), so it "
                                             "does not decide; " + evidence)
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
    decides only if its good PINN is accurate (relative L2 error <= 0.25 on the evaluation grid in >= 80%
    of seeds) and its bad PINN is worse (larger relative L2 error, one-sided paired t-test p < 0.05).
    Good and bad PINNs share training points and initialisation; the bad one stops after Adam. Overall: reproduced if every deciding PDE reproduces, not-reproduced if every one does not, partly
    otherwise; not-checkable if no PDE decides."""
    per = [_diagnostics_one(ms, q) for q in _problems(ms)]
    # changed by review after the full run (partly -> not-reproduced): a PDE's 'partly' needs a part the
    # control fails, i.e. a diagnostic that the influence scores separate and the grad-dot scores do not.
    # Full run: influence separates 2/3 on diffusion and 3/3 on drift-diffusion, grad-dot 3/3 on both, so
    # grad-dot in influence's place read the same partly (better on diffusion).
    if len(ms) >= 3:
        def _sep(tag: str, q: str) -> dict[str, bool]:
            return {d: paired_test(seeds_of(ms, f"{q}/good/{tag}_{d}"), seeds_of(ms, f"{q}/bad/{tag}_{d}"),
                                   alternative="two-sided", method="t") < 0.05 for d in DIAGNOSTICS}

        revised = []
        for q, r in zip(_problems(ms), per):
            if r[0] == "partly":
                si, sg = _sep("ifd", q), _sep("gd", q)
                only = [d for d in DIAGNOSTICS if si[d] and not sg[d]]
                note = (f"; partly needs a diagnostic influence separates and grad-dot does not: "
                        f"{', '.join(only) if only else 'none'} (changed by review after the full run: partly -> "
                        "not-reproduced)")
                r = ("partly" if only else "not-reproduced", r[1], r[2] + note, r[3])
            revised.append(r)
        per = revised
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
    # say when the control separates at least as many diagnostics, i.e. when the separation does not
    # need H^-1 (the status rule already makes that at most 'partly')
    if len(ms) >= 3:
        tied = [q for q in _problems(ms)
                if _n_separating(ms, "gd", q)[0] >= _n_separating(ms, "ifd", q)[0] > 0]
        if tied:
            evidence += (f" | grad-dot (no H^-1) separates at least as many diagnostics on {', '.join(tied)}: "
                         "the separation does not need the inverse Hessian (the literal statement holds; the "
                         "comparison with the control does not: not-reproduced where no diagnostic separates "
                         "with influence alone)")
    # what the accuracy gate separates from (added by review after the full run; reported, not deciding)
    refs = []
    for q in _problems(ms):
        grid = evaluation_grid(41, q)
        exact = exact_solution(q, grid)
        frozen = exact_solution(q, np.column_stack([grid[:, 0], np.zeros(len(grid))]))
        refs.append(f"{q} {np.linalg.norm(frozen - exact) / np.linalg.norm(exact):.2f}")
    if refs:
        evidence += (" | accuracy gate's reference points (review, reported): relative L2 of the initial "
                     "condition frozen in time " + ", ".join(refs) + ", of u = 0 1.0; the gate (0.25, set "
                     "from dev seeds at 0.12-0.22) tells a PINN that learned the dynamics from one that did "
                     "not, not a well-trained PINN in the paper's sense (about 1e-2)")
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
        ax.scatter(ex["predicted"], ex["actual"], s=8, label="refit from scratch")
        ax.scatter(ex["predicted"], ex["actual_warm"], s=8, marker="x", label="refit warm-started at the optimum")
        lim = max(np.abs(ex["predicted"]).max(), np.abs(ex["actual_warm"]).max())
        ax.plot([-lim, lim], [-lim, lim], "k--", lw=0.8, label="y = x")
        ax.set_xlim(-1.5 * lim, 1.5 * lim)
        ax.legend(fontsize=8)
    ax.set_xlabel("predicted change of u (influence)")
    ax.set_ylabel("actual change of u (LOO refit)")
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
