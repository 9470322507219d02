"""Small-scale reproduction of PINNfluence (arXiv:2409.08958) on DeepXDE's diffusion problem.

Kept from the paper: the diffusion benchmark ``u_t = u_xx - e^{-t}(sin(pi x) - pi^2 sin(pi x))``
on ``[-1, 1] x [0, 1]`` with ``u(x, 0) = sin(pi x)``, ``u(+-1, t) = 0`` (exact ``e^{-t} sin(pi x)``);
training points from DeepXDE's ``GeometryXTime`` with Hammersley sampling (domain, boundary
and initial points; every point carries a PDE term, boundary/initial points also a BC/IC
term); float64 tanh MLP; Adam (lr 1e-3) then L-BFGS; a "good" PINN and a "bad" one trained
on far fewer points (10/2/2 domain/boundary/initial points, the paper's bad diffusion
setting); influence of every loss term of every training point on the prediction ``u(x)``;
grad-dot (TracIn, one checkpoint) as baseline; leave-one-out validation by removing one
initial-condition point and comparing the change of ``u`` on test points with the predicted
one (Spearman over test points); the diagnostics component fraction, cancellation and
temporal directionality, compared between good and bad PINNs.

Replaced: the network ([2,32,32,32,1] -> [2,16,16,1]), the point counts of the good model
(1000/100/100 -> profile value), the training length (15k Adam + 5k L-BFGS -> profile value),
the Arnoldi Hessian approximation (projection 50) by the exact damped Hessian, from-scratch
LOO retraining by warm-started L-BFGS from the trained parameters (compared with a control
run of the same length without removal), and 7 PDEs by one.
"""

from __future__ import annotations

import os

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_p, mean_ci, one_sample_test, paired_test, seeds_of

DIAGNOSTICS = ("frac_ic", "kappa", "dir_excess")


def sample_points(num_domain: int, num_boundary: int, num_initial: int, seed: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training points of DeepXDE's TimePDE with Hammersley sampling: ``X (n, 2)``, ``on_bc``, ``on_ic``.

    DeepXDE permutes the boundary times with numpy's global generator; it is seeded with ``seed``
    here and restored afterwards, so the points equal ``dde.data.TimePDE(...).train_x_all`` built
    right after ``np.random.seed(seed)``.
    """
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    import deepxde as dde

    state = np.random.get_state()
    np.random.seed(seed)

    geom = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
    parts = [geom.random_points(num_domain, random="Hammersley")]
    if num_boundary:
        parts.append(geom.random_boundary_points(num_boundary, random="Hammersley"))
    if num_initial:
        parts.append(geom.random_initial_points(num_initial, random="Hammersley"))
    np.random.set_state(state)
    X = np.vstack(parts[::-1]).astype(np.float64)  # DeepXDE's order: initial, boundary, domain points
    return X, np.asarray(geom.on_boundary(X)), np.asarray(geom.on_initial(X))


def _fit_and_attribute(p: Profile, which: str, seed: int, X_test, rng: np.random.Generator) -> dict:
    import torch
    from scipy import stats

    from torch.func import hessian

    from icml26.science.pinnfluence.method import (CompositeLoss, cancellation_score, component_fractions,
                                                   damped_inverse, diffusion_exact, directionality,
                                                   influence_scores, init_params, mlp_derivatives,
                                                   output_gradients, per_point, train_gradients, train_pinn)

    nd, nb, ni = p[f"points_{which}"]
    Xn, bc_np, ic_np = sample_points(nd, nb, ni, seed=seed)
    X = torch.tensor(Xn)
    on_bc, on_ic = torch.tensor(bc_np), torch.tensor(ic_np)
    layers = list(p["layers"])
    loss = CompositeLoss(X, on_bc, on_ic, layers)
    gen = torch.Generator().manual_seed(1000 * seed + (0 if which == "good" else 1))
    theta = train_pinn(loss, init_params(layers, gen), int(p["adam_steps"]), int(p["lbfgs_steps"]), lr=float(p["lr"]))

    g = np.linspace(0, 1, 41)
    Xg = np.stack(np.meshgrid(np.linspace(-1, 1, 41), g), -1).reshape(-1, 2)
    with torch.no_grad():
        ug = mlp_derivatives(theta, torch.tensor(Xg), layers)[0].numpy()
    exact = diffusion_exact(Xg)
    out = {"rel_l2": float(np.linalg.norm(ug - exact) / np.linalg.norm(exact)),
           "train_loss": float(loss(theta))}

    Xt = torch.tensor(X_test)
    H = hessian(loss)(theta)
    G_test, G_train = output_gradients(theta, Xt, layers), train_gradients(loss, theta)
    out["hessian_min_eig"] = float(torch.linalg.eigvalsh(H)[0])
    I = influence_scores(G_test, G_train, damped_inverse(H, 0.0, int(p["projection_dim"])))
    ID = influence_scores(G_test, G_train, damped_inverse(H, float(p["damping"])))
    GD = influence_scores(G_test, G_train, None)
    multi = bc_np | ic_np
    for tag, S in (("if", I), ("ifd", ID), ("gd", GD)):
        pp = per_point(S, bc_np, ic_np)
        frac = component_fractions(pp).mean(0)
        U, up = directionality(pp.sum(2), X_test[:, 1], Xn[:, 1])
        out[f"{tag}_frac_pde"], out[f"{tag}_frac_bc"], out[f"{tag}_frac_ic"] = map(float, frac)
        out[f"{tag}_kappa"] = cancellation_score(pp, multi)
        out[f"{tag}_dir_excess"] = float(np.mean(U - up))

    if which == "good" and int(p["n_loo"]) > 0:
        pp_if, pp_gd = per_point(I, bc_np, ic_np).sum(2), per_point(GD, bc_np, ic_np).sum(2)
        pp_ifd = per_point(ID, bc_np, ic_np).sum(2)
        ctrl = train_pinn(loss, theta, 0, int(p["lbfgs_loo"]))
        with torch.no_grad():
            u_ctrl = mlp_derivatives(ctrl, Xt, layers)[0].numpy()
        ic_idx = np.flatnonzero(ic_np & ~bc_np)
        rho_if, rho_gd, r_if, rho_ifd = [], [], [], []
        for j, z in enumerate(rng.choice(ic_idx, size=min(int(p["n_loo"]), len(ic_idx)), replace=False)):
            th_loo = train_pinn(CompositeLoss(X, on_bc, on_ic, layers, drop=int(z)), theta, 0, int(p["lbfgs_loo"]))
            with torch.no_grad():
                actual = mlp_derivatives(th_loo, Xt, layers)[0].numpy() - u_ctrl
            rho_if.append(stats.spearmanr(pp_if[:, z], actual)[0])
            rho_gd.append(stats.spearmanr(pp_gd[:, z], actual)[0])
            rho_ifd.append(stats.spearmanr(pp_ifd[:, z], actual)[0])
            r_if.append(stats.pearsonr(pp_if[:, z], actual)[0])
            if j == 0:
                out["loo_example"] = {"predicted": pp_if[:, z].tolist(), "actual": actual.tolist()}
        out["loo_spearman_if"] = float(np.mean(rho_if))
        out["loo_spearman_gd"] = float(np.mean(rho_gd))
        out["loo_spearman_ifd"] = float(np.mean(rho_ifd))
        out["loo_pearson_if"] = float(np.mean(r_if))
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch  # noqa: F401  (seed_everything seeds torch once it is imported)

    rng = seed_everything(seed)
    X_test = np.column_stack([rng.uniform(-1, 1, int(profile["n_test"])),
                              rng.uniform(0.02, 1, int(profile["n_test"]))])
    out: dict = {}
    for which in ("good", "bad"):
        for k, v in _fit_and_attribute(profile, which, seed, X_test, rng).items():
            out[f"{which}/{k}"] = v
    return out


# ----------------------------------------------------------------------------- claims
def check_loo_agreement(metrics: list[dict]) -> Verdict:
    """Pre-registered: on well-trained PINNs the mean (over seeds) Spearman correlation between
    predicted and actual LOO changes of u is >= 0.6, and influence beats grad-dot (one-sided
    paired t-test p < 0.05). One of the two -> partly."""
    a = seeds_of(metrics, "good/loo_spearman_if")
    b = seeds_of(metrics, "good/loo_spearman_gd")
    m, lo, hi = mean_ci(a)
    p = paired_test(a, b, alternative="greater", method="t")
    high, beats = m >= 0.6, p < 0.05
    status = "reproduced" if high and beats else ("partly" if high or beats else "not-reproduced")
    return Verdict(status,
                   f"LOO Spearman (influence) {m:.2f} [{lo:.2f}, {hi:.2f}] vs grad-dot {np.mean(b):.2f}",
                   f"mean over n={len(metrics)} seeds of the per-seed mean Spearman over removed IC points; "
                   f"threshold 0.6; paired one-sided t-test influence > grad-dot {fmt_p(p)}",
                   value=m, ci=(lo, hi))


def contradict_loo_agreement(metrics: list[dict]) -> list[dict]:
    out = []
    for m in metrics:
        m = dict(m)
        m["good/loo_spearman_if"], m["good/loo_spearman_gd"] = 0.0, 0.5
        out.append(m)
    return out


def check_diagnostics_separate(metrics: list[dict]) -> Verdict:
    """Pre-registered: a diagnostic separates good from bad PINNs if its paired per-seed
    difference (good - bad) is non-zero in a two-sided paired t-test with p < 0.05. Reproduced if
    >= 2 of the 3 diagnostics (IC influence fraction, cancellation, directionality excess)
    separate, partly if 1; also requires the bad PINN to have the larger relative L2 error."""
    parts, n_sep = [], 0
    for d in DIAGNOSTICS:
        g, b = seeds_of(metrics, f"good/if_{d}"), seeds_of(metrics, f"bad/if_{d}")
        p = paired_test(g, b, alternative="two-sided", method="t")
        n_sep += p < 0.05
        parts.append(f"{d}: good {np.mean(g):.3f} vs bad {np.mean(b):.3f} ({fmt_p(p)})")
    eg, eb = seeds_of(metrics, "good/rel_l2"), seeds_of(metrics, "bad/rel_l2")
    p_err = paired_test(eg, eb, alternative="less", method="t")
    valid = p_err < 0.05
    status = ("reproduced" if n_sep >= 2 else "partly" if n_sep == 1 else "not-reproduced") if valid \
        else "not-reproduced"
    return Verdict(status, "; ".join(parts) + f"; rel. L2 good {np.mean(eg):.3g} vs bad {np.mean(eb):.3g}",
                   f"{n_sep}/3 diagnostics differ (two-sided paired t-test p<0.05, n={len(metrics)} seeds); "
                   f"bad PINN worse: one-sided paired t-test {fmt_p(p_err)}", value=float(n_sep))


def contradict_diagnostics_separate(metrics: list[dict]) -> list[dict]:
    out = []
    for m in metrics:
        m = dict(m)
        for d in DIAGNOSTICS:
            m[f"bad/if_{d}"] = m[f"good/if_{d}"]
        out.append(m)
    return out


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 3.8))
    ax = fig.add_subplot(1, 2, 1)
    ex = metrics[0].get("good/loo_example")
    if ex:
        ax.scatter(ex["predicted"], ex["actual"], s=8)
        lim = max(np.abs(ex["predicted"]).max(), np.abs(ex["actual"]).max())
        ax.plot([-lim, lim], [-lim, lim], "k--", lw=0.8, label="y = x")
        ax.legend(fontsize=8)
    ax.set_xlabel("predicted change of u (influence)")
    ax.set_ylabel("actual change of u after LOO retraining")
    ax.set_title("leave one IC point out (seed 0)")
    ax = fig.add_subplot(1, 2, 2)
    w = 0.35
    for i, (which, c) in enumerate((("good", "tab:green"), ("bad", "tab:red"))):
        vals = np.array([[m[f"{which}/if_{d}"] for d in DIAGNOSTICS] for m in metrics])
        ax.bar(np.arange(3) + (i - 0.5) * w, vals.mean(0), w, yerr=vals.std(0), color=c, label=f"{which} PINN",
               capsize=3)
    ax.set_xticks(np.arange(3), ["IC fraction", "cancellation", "directionality excess"])
    ax.set_ylabel("diagnostic value (dimensionless)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
