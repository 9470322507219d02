"""Small-scale reproduction of MSIS (arXiv:2603.14515): pooled vs per-state overlap estimates, their
sample and evaluation cost in the number of states, and multi-state penalty VMC with each.

Kept from the paper: unnormalised states ``psi_s`` with one sampling chain each (``N``
samples per state, equal for all states), every state evaluated on every sample, the
symmetrised overlap ``S_ij = sign(R_ij) sqrt(R_ij R_ji)``, the per-state ratio estimator as
the control, MSIS exactly as the authors' code computes it (pooled samples, mixture
reweighting, normaliser ratios from 10 bridge-sampling linear solves with a 1e-8 ridge), and
the penalty VMC objective ``sum_s E_s + sum_{i>j} alpha S_ij^2``.

Replaced: molecules and Excited Pfaffians by toy Hamiltonians solved exactly on a grid
(:mod:`icml26.science.msis.setting`); Metropolis chains by exact i.i.d. draws from
``psi_s^2``; the network by a linear ansatz in a harmonic-oscillator basis
(:mod:`icml26.science.msis.vmc`).

Named parts of one seed:

1. :func:`measure_overlap_errors` -- per-pair overlap RMSE of MSIS and of the per-state
   estimator on trial states with known overlaps, for each ``Ns`` (lower-overlap-error);
2. :func:`cost_to_target` -- the cost of reaching a target per-pair RMSE, from the measured
   RMSE and the Monte Carlo law RMSE ~ N^{-1/2} (the only modelling step): counted in samples
   (``Ns N_needed``; near-constant-samples) and in wave-function evaluations (``Ns^2
   N_needed``: every state on every sample, which is what a CPU pays and what the paper's GPU
   batches; near-constant-cost, a GPU-time claim reported but not decided here);
3. :func:`compare_penalty_vmc` -- penalty VMC on the double well with ``Ns = 6`` states, the
   same samples per state (hence the same evaluations) for both estimators, judged by the exact
   energy error against the basis' Ritz values (vmc-energies).
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything
from icml26.core.stats import loglog_slope
from icml26.science.msis.method import msis_ratio, normalizer_ratios, overlap_from_ratio, per_state_ratio
from icml26.science.msis.setting import SYSTEMS, draw_samples, eigenbasis, pair_rmse, trial_states


# ----------------------------------------------------------------------------- parts
def measure_overlap_errors(system: str, profile: Profile, rng) -> dict:
    ns_list = [int(v) for v in profile["n_states"]]
    n, reps, eps = int(profile["n_per_state"]), int(profile["repeats"]), float(profile["eps"])
    k = max(ns_list) + int(profile["extra_basis"])
    _, phi = eigenbasis(system, k, int(profile["grid"][system]))
    rmse = {"per_state": [], "msis": [], "msis_exact_c": []}
    logc_err = []
    for ns in ns_list:
        A, S_exact = trial_states(ns, k, eps, rng)
        est = {key: [] for key in rmse}
        errs = []
        for _ in range(reps):
            lp, sg, log_c = draw_samples(A, phi, n, rng)
            est["per_state"].append(overlap_from_ratio(per_state_ratio(lp, sg)))
            log_c_hat = normalizer_ratios(lp, iterations=int(profile["ratio_iterations"]))
            est["msis"].append(overlap_from_ratio(msis_ratio(lp, sg, log_c=log_c_hat)))
            est["msis_exact_c"].append(overlap_from_ratio(msis_ratio(lp, sg, log_c=log_c)))
            errs.append(np.sqrt(np.mean((log_c_hat - (log_c - log_c[0])) ** 2)))
        for key in rmse:
            rmse[key].append(pair_rmse(np.asarray(est[key]), S_exact))
        logc_err.append(float(np.mean(errs)))
    out = {f"{system}/rmse_{key}": vals for key, vals in rmse.items()}
    out[f"{system}/log_c_rmse"] = logc_err
    big = [i for i, v in enumerate(ns_list) if v >= int(profile["min_states_for_gain"])]
    for key in ("per_state", "msis"):
        out[f"{system}/rmse_{key}_large"] = [rmse[key][i] for i in big]
    return out


def cost_to_target(system: str, m: dict, profile: Profile) -> dict:
    ns = np.asarray([int(v) for v in profile["n_states"]], dtype=float)
    n, target = int(profile["n_per_state"]), float(profile["target_rmse"])
    out = {}
    for key in ("per_state", "msis"):
        n_needed = n * (np.asarray(m[f"{system}/rmse_{key}"]) / target) ** 2   # samples per state
        samples, evals = ns * n_needed, ns ** 2 * n_needed
        out[f"{system}/cost_{key}"] = samples.tolist()
        out[f"{system}/evals_{key}"] = evals.tolist()
        out[f"{system}/cost_slope_{key}"] = loglog_slope(ns, samples)[0]
        out[f"{system}/eval_slope_{key}"] = loglog_slope(ns, evals)[0]
    return out


def compare_penalty_vmc(profile: Profile, rng) -> dict:
    from icml26.science.msis.vmc import double_well_problem, penalty_vmc

    problem = double_well_problem(int(profile["vmc_basis"]))
    seed = int(rng.integers(0, 2**31 - 1))  # both estimators start from the same states and draws
    out = {}
    for est in ("per_state", "msis"):
        r = penalty_vmc(problem, int(profile["vmc_states"]), est, int(profile["vmc_per_state"]),
                        int(profile["vmc_iters"]), np.random.default_rng(seed), lr=float(profile["vmc_lr"]),
                        penalty=float(profile["vmc_penalty"]))
        out[f"vmc/energy_err_{est}"] = r["err_end"]
        out[f"vmc/err_drop_{est}"] = r["err_start"] / r["err_end"]
        out[f"vmc/max_overlap_{est}"] = r["max_overlap"]
        out[f"vmc/energies_{est}"] = r["energies"]
        out[f"vmc/curve_{est}"] = r["curve"]
    out["vmc/target"] = r["target"]
    return out


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    out: dict = {"n_states": [int(v) for v in profile["n_states"]]}
    for system in profile["systems"]:
        m = measure_overlap_errors(system, profile, rng)
        out.update(m)
        out.update(cost_to_target(system, m, profile))
    out.update(compare_penalty_vmc(profile, rng))
    return out


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    systems = [s for s in SYSTEMS if f"{s}/rmse_msis" in metrics[0]]
    fig = Figure(figsize=(5.0 * (len(systems) + 1), 3.8))
    ns = np.asarray(metrics[0]["n_states"], dtype=float)
    for col, s in enumerate(systems):
        ax = fig.add_subplot(1, len(systems) + 1, col + 1)
        for key, label, c in (("per_state", "per-state", "tab:red"), ("msis", "MSIS (estimated c)", "tab:blue"),
                              ("msis_exact_c", "MSIS (exact c)", "tab:cyan")):
            y = np.asarray([m[f"{s}/rmse_{key}"] for m in metrics])
            ax.errorbar(ns, y.mean(0), yerr=y.std(0), marker="o", capsize=3, label=label, color=c)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("number of states Ns")
        ax.set_ylabel("overlap RMSE per pair (dimensionless)")
        ax.set_title(s.replace("_", " "))
        ax.legend(fontsize=8)
    ax = fig.add_subplot(1, len(systems) + 1, len(systems) + 1)
    for key, label, c in (("per_state", "per-state overlaps", "tab:red"), ("msis", "MSIS overlaps", "tab:blue")):
        for i, m in enumerate(metrics):
            y = np.asarray(m[f"vmc/curve_{key}"])
            ax.plot(np.arange(y.size) * 10, y, color=c, alpha=0.7, label=label if i == 0 else None)
    ax.set_yscale("log")
    ax.set_xlabel("VMC iteration")
    ax.set_ylabel("mean |E_s - E_Ritz| (hartree)")
    ax.set_title(f"penalty VMC, double well, Ns={len(metrics[0]['vmc/target'])}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- examples
def EXAMPLES():
    """Public API calls with good arguments, for the common bad-input test."""
    from icml26.science.msis import method, setting, vmc

    rng = np.random.default_rng(0)
    _, phi = setting.eigenbasis("double_well_1d", 6, 200)
    A, S = setting.trial_states(3, 6, 0.3, rng)
    lp, sg, log_c = setting.draw_samples(A, phi, 8, rng)
    R = method.per_state_ratio(lp, sg)
    problem = vmc.double_well_problem(6, 200)
    return [
        (setting.eigenbasis, dict(system="double_well_1d", k=4, grid=100)),
        (setting.trial_states, dict(n_states=3, k=6, eps=0.3, rng=1)),
        (setting.draw_samples, dict(A=A, phi=phi, n=4, rng=1)),
        (setting.pair_rmse, dict(est=S[None], exact=S)),
        (method.per_state_ratio, dict(log_abs_psi=lp, sign=sg)),
        (method.per_state_ratio, dict(log_abs_psi=lp)),
        (method.msis_ratio, dict(log_abs_psi=lp, log_c=log_c)),
        (method.normalizer_ratios, dict(log_abs_psi=lp, iterations=3, ridge=1e-8)),
        (method.overlap_from_ratio, dict(R=R)),
        (method.overlap_penalty, dict(S=S, alpha=method.triangular_alpha(3))),
        (method.triangular_alpha, dict(n_states=3, penalty_scale=4.0)),
        (vmc.double_well_problem, dict(n_basis=6, grid=200)),
        (vmc.penalty_vmc, dict(problem=problem, n_states=3, estimator="msis", n_per_state=4, iters=2, rng=1,
                               lr=0.02, penalty=10.0)),
    ]
