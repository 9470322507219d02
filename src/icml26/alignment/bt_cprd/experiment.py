"""Numerical checks of arXiv:2602.10286 on finite response sets (one seed = one draw of every instance).

The paper is theory plus synthetic experiments. Its statements are about finite triplet
distributions, so each one is checked exactly (population quantities) or by simulation:

* T1 ``ci-implies-bt``: ``D(a, b) ∝ P+(a) P-(b)`` (P± ~ Dirichlet(1)) gives a CPRD that equals
  ``sigma(s_a - s_b)`` with ``s = log P+ - log P-`` to machine precision, and both the
  discriminative BT MLE and the generative product-family MLE, fitted to ``m`` sampled
  triplets, converge to it. Controls: an unstructured (Dirichlet over ordered pairs) triplet
  law is *not* BT-representable; a BT CPRD shown with arbitrary pair frequencies is
  representable although not independent (there the generative fit is biased while the
  discriminative one is not).
* T2 ``kl-projection``: a CPRD with a 3-cycle (0>1>2>0 at probability ``p_cycle``) plus BT
  filler items and random pair frequencies. The population BT fit (our Newton MLE and
  ``choix.ilsr_pairwise_dense``) equals the direct minimiser of the pair-weighted KL
  (L-BFGS on the KL formula); finite-sample fits converge to that projection, which is far
  from the true CPRD on the cycle.
* T3 ``margin``: BT scores ``kappa * s0`` on a random 4-regular comparison graph with a fixed
  budget of comparisons; the pairwise ranking error of the BT MLE falls as ``kappa`` (the
  margin) grows.
* T4 ``connectivity``: the same budget on a path, a cycle, a random 4-regular graph and the
  complete graph; the score error falls as the algebraic connectivity ``lambda_2`` rises.
* T5 ``design``: for a fixed number of compared pairs, adding pairs greedily by the Fiedler
  vector (maximising ``lambda_2``) beats adding random pairs.

Substitution: no neural scores, no LLM data; tabular scores over 8-20 responses of one
context (the BT objectives decouple across contexts for tabular scores). The margin and
connectivity quantities are the standard ones (distance of the CPRD from 1/2 via a score
scale; Laplacian ``lambda_2``); the paper's exact constants were not available to us.
Finite-sample fits use a tiny ridge ``l2`` (sum-of-losses convention) so the MLE exists when
a sparse graph has a one-sided edge.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_p, loglog_slope, paired_test, seeds_of

from .setting import (GRAPHS, bt_triplets, cyclic_triplets, dirichlet_triplets, edges_to_weights,
                      graph_edges, product_triplets, random_tree, sample_triplets)
from .method import (algebraic_connectivity, bt_cprd, ci_scores, comparison_counts, cprd,
                     cprd_error, cycle_inconsistency, fit_bt, fit_generative_bt,
                     greedy_connectivity_design, kl_projection, pair_weights)

def _choix_fit(C: np.ndarray) -> np.ndarray:
    import choix

    s = choix.ilsr_pairwise_dense(C, alpha=0.0, tol=1e-12, max_iter=10000)
    return s - s.mean()


def _rms_centered(a: np.ndarray, b: np.ndarray) -> float:
    d = (a - a.mean()) - (b - b.mean())
    return float(np.sqrt(np.mean(d**2)))


def _rank_error(s_hat: np.ndarray, s: np.ndarray) -> float:
    iu = np.triu_indices(s.size, 1)
    dt = (s[:, None] - s[None, :])[iu]
    dh = (s_hat[:, None] - s_hat[None, :])[iu]
    return float(np.mean(np.sign(dt) != np.sign(dh)))


def _fit_sample(D: np.ndarray, m: int, rng: np.random.Generator, l2: float) -> np.ndarray:
    w, l = sample_triplets(D, m, rng)
    return _fit_counts(comparison_counts(w, l, D.shape[0]), l2)


def _fit_counts(C: np.ndarray, l2: float) -> np.ndarray:
    """Plain MLE when requested and it exists; a tiny ridge when the win graph is not strongly connected."""
    try:
        return fit_bt(C, l2=l2)
    except ValueError:
        return fit_bt(C, l2=max(l2, 1e-3))


# --------------------------------------------------------------------------- T1
def _t1(p: Profile, rng: np.random.Generator) -> dict:
    n, grid, n_ctx = int(p["t1_items"]), [int(m) for m in p["t1_sizes"]], int(p["t1_contexts"])
    exact, disc, gen, choix_gap = [], np.zeros((n_ctx, len(grid))), np.zeros((n_ctx, len(grid))), []
    for c in range(n_ctx):
        Pp, Pm = rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n))
        D = product_triplets(Pp, Pm)
        omega, W, s = cprd(D), pair_weights(D), ci_scores(Pp, Pm)
        exact.append(float(np.nanmax(np.abs(omega - bt_cprd(s)))))
        for k, m in enumerate(grid):
            w, l = sample_triplets(D, m, rng)
            C = comparison_counts(w, l, n)
            s_d = _fit_counts(C, 0.0)
            disc[c, k] = cprd_error(bt_cprd(s_d), omega, W)
            if np.all(C.sum(1) > 0) and np.all(C.sum(0) > 0):
                gen[c, k] = cprd_error(bt_cprd(fit_generative_bt(C)[0]), omega, W)
            else:
                gen[c, k] = np.nan
            if k == len(grid) - 1:
                choix_gap.append(float(np.max(np.abs(s_d - _choix_fit(C)))))
    # controls
    D_free = dirichlet_triplets(n, rng)
    s_bt = rng.normal(size=n)
    W_rand = np.triu(rng.dirichlet(np.ones(n * n)).reshape(n, n), 1)
    D_bt = bt_triplets(s_bt, W_rand + W_rand.T)
    s_gen_bt = fit_generative_bt(D_bt)[0]
    return {
        "t1_sizes": [float(m) for m in grid],
        "t1_ci_exact_maxdiff": max(exact),
        "t1_disc_err": np.nanmean(disc, axis=0).tolist(),
        "t1_gen_err": np.nanmean(gen, axis=0).tolist(),
        "t1_disc_err_max_n": float(np.nanmean(disc[:, -1])),
        "t1_gen_err_max_n": float(np.nanmean(gen[:, -1])),
        "t1_choix_maxdiff": max(choix_gap),
        "t1_free_inconsistency": cycle_inconsistency(cprd(D_free)),
        "t1_bt_not_ci_inconsistency": cycle_inconsistency(cprd(D_bt)),
        "t1_bt_not_ci_disc_err": cprd_error(bt_cprd(fit_bt(D_bt)), cprd(D_bt), pair_weights(D_bt)),
        "t1_bt_not_ci_gen_err": cprd_error(bt_cprd(s_gen_bt), cprd(D_bt), pair_weights(D_bt)),
    }


# --------------------------------------------------------------------------- T2
def _t2(p: Profile, rng: np.random.Generator) -> dict:
    n, pc, grid = int(p["t2_items"]), float(p["t2_p_cycle"]), [int(m) for m in p["t2_sizes"]]
    D, omega = cyclic_triplets(n, pc, rng)
    W = pair_weights(D)
    s_mle = fit_bt(D)
    s_kl = kl_projection(omega, W)
    s_ch = _choix_fit(D * 1e4)
    cyc = [(0, 1), (1, 2), (2, 0)]
    omega_proj = bt_cprd(s_kl)
    # a second set of pair frequencies moves the projection: it is frequency-weighted
    D2, _ = cyclic_triplets(n, pc, np.random.default_rng(int(rng.integers(2**31))))
    W2 = pair_weights(D2) * (pair_weights(D2) > 0)
    s_kl_other = kl_projection(omega, W2)
    s_gen = fit_generative_bt(D)[0]  # our product-family reconstruction of the generative objective
    fin = []
    for m in grid:
        reps = [np.max(np.abs(_fit_sample(D, m, rng, 0.0) - s_kl)) for _ in range(int(p["t2_reps"]))]
        fin.append(float(np.mean(reps)))
    return {
        "t2_sizes": [float(m) for m in grid],
        "t2_inconsistency": cycle_inconsistency(omega, W),
        "t2_mle_vs_kl": float(np.max(np.abs(s_mle - s_kl))),
        "t2_choix_vs_kl": float(np.max(np.abs(s_ch - s_kl))),
        "t2_cycle_maxgap": float(max(abs(omega_proj[a, b] - omega[a, b]) for a, b in cyc)),
        "t2_cprd_err_proj": cprd_error(omega_proj, omega, W),
        "t2_weight_shift": float(np.max(np.abs(s_kl_other - s_kl))),
        "t2_gen_vs_kl": float(np.max(np.abs(s_gen - s_kl))),
        "t2_finite_to_proj": fin,
    }


# --------------------------------------------------------------------------- T3-T5
def _t3(p: Profile, rng: np.random.Generator) -> dict:
    n, m, reps, l2 = int(p["items"]), int(p["budget"]), int(p["reps"]), float(p["l2"])
    s0 = rng.normal(size=n)
    W = edges_to_weights(n, graph_edges("regular4", n, rng))
    out_rank, out_rms, margin = [], [], []
    for kappa in p["kappas"]:
        s = float(kappa) * s0
        D = bt_triplets(s, W)
        errs = [(_rank_error(sh, s), _rms_centered(sh, s)) for sh in
                (_fit_sample(D, m, rng, l2) for _ in range(reps))]
        out_rank.append(float(np.mean([e[0] for e in errs])))
        out_rms.append(float(np.mean([e[1] for e in errs])))
        omega = cprd(D)
        margin.append(cprd_error(np.full_like(omega, 0.5), omega, W))
    return {"t3_kappas": [float(k) for k in p["kappas"]], "t3_rank_err": out_rank,
            "t3_rms_err": out_rms, "t3_margin": margin}


def _t4(p: Profile, rng: np.random.Generator) -> dict:
    from scipy.stats import spearmanr

    n, m, reps, l2 = int(p["items"]), int(p["budget"]), int(p["reps"]), float(p["l2"])
    s = rng.normal(size=n)
    lam, err = [], []
    for kind in GRAPHS:
        W = edges_to_weights(n, graph_edges(kind, n, rng))
        lam.append(algebraic_connectivity(W))
        D = bt_triplets(s, W)
        err.append(float(np.mean([_rms_centered(_fit_sample(D, m, rng, l2), s) for _ in range(reps)])))
    rho = float(spearmanr(lam, -np.asarray(err)).statistic)
    out = {"t4_lambda2": lam, "t4_err": err, "t4_spearman": rho}
    for kind, e in zip(GRAPHS, err):
        out[f"t4_err_{kind}"] = e
    return out


def _t5(p: Profile, rng: np.random.Generator) -> dict:
    n, m, reps, l2, n_pairs = (int(p["items"]), int(p["budget"]), int(p["reps"]), float(p["l2"]),
                               int(p["design_pairs"]))
    s = rng.normal(size=n)
    tree = random_tree(n, rng)
    greedy = greedy_connectivity_design(n, n_pairs, base_edges=tree)
    present = {tuple(sorted(e)) for e in tree}
    missing = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in present]
    pick = rng.choice(len(missing), size=n_pairs - len(tree), replace=False)
    rand = tree + [missing[k] for k in pick]
    res = {}
    for name, edges in (("greedy", greedy), ("random", rand)):
        W = edges_to_weights(n, edges)
        D = bt_triplets(s, W)
        res[f"t5_lambda2_{name}"] = algebraic_connectivity(W)
        res[f"t5_err_{name}"] = float(np.mean([_rms_centered(_fit_sample(D, m, rng, l2), s)
                                               for _ in range(reps)]))
    return res


def run(profile: Profile, seed: int) -> dict:
    """One seed: every instance (T1-T5) drawn afresh from ``seed``."""
    rng = seed_everything(seed)
    out: dict = {}
    for part in (_t1, _t2, _t3, _t4, _t5):
        out.update(part(profile, np.random.default_rng(rng.integers(2**63))))
    return out


# --------------------------------------------------------------------------- checks
def check_ci_implies_bt(ms: list[dict]) -> Verdict:
    """Pre-registered: (i) population CPRD under positive/negative independence equals
    sigma(s_a - s_b), s = log P+ - log P-, to 1e-9 in every seed; (ii) both estimators'
    weighted CPRD error at the largest sample < 0.01 in every seed, with mean log-log slope in
    m below -0.3 (consistency); (iii) control: the unstructured triplet law has cycle
    inconsistency > 1e-3 in every seed (the condition is not vacuous)."""
    exact = seeds_of(ms, "t1_ci_exact_maxdiff")
    ed, eg = seeds_of(ms, "t1_disc_err_max_n"), seeds_of(ms, "t1_gen_err_max_n")
    sizes = np.asarray(ms[0]["t1_sizes"])
    sl_d = float(np.mean([loglog_slope(sizes, m["t1_disc_err"])[0] for m in ms]))
    sl_g = float(np.mean([loglog_slope(sizes, m["t1_gen_err"])[0] for m in ms]))
    free = seeds_of(ms, "t1_free_inconsistency")
    ok_exact = bool(np.all(exact < 1e-9))
    ok_fin = bool(np.all(ed < 0.01) and np.all(eg < 0.01) and sl_d < -0.3 and sl_g < -0.3)
    ok_ctrl = bool(np.all(free > 1e-3))
    status = "reproduced" if ok_exact and ok_fin and ok_ctrl else ("partly" if ok_exact else "not-reproduced")
    return Verdict(
        status,
        measured=(f"exact max|omega - sigma(ds)| = {exact.max():.1e}; CPRD error at m={int(sizes[-1])}: "
                  f"discriminative {ed.mean():.4f}, generative {eg.mean():.4f}; slopes {sl_d:.2f}/{sl_g:.2f}; "
                  f"unstructured-law inconsistency {free.min():.2f} (min)"),
        evidence=(f"n={len(ms)} seeds, every seed must pass: exact < 1e-9, errors < 0.01, mean log-log "
                  f"slope < -0.3, control inconsistency > 1e-3. BT-not-CI control: discriminative "
                  f"error {np.mean(seeds_of(ms, 't1_bt_not_ci_disc_err')):.1e}, generative "
                  f"{np.mean(seeds_of(ms, 't1_bt_not_ci_gen_err')):.3f} (reported, not decided)."),
        value=float(ed.mean()),
    )


def contradict_ci_implies_bt(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["t1_ci_exact_maxdiff"] = 0.05
        m["t1_disc_err_max_n"] = 0.2
        m["t1_disc_err"] = [0.2] * len(m["t1_disc_err"])
        out.append(m)
    return out


def check_kl_projection(ms: list[dict]) -> Verdict:
    """Pre-registered: on the cyclic CPRD, (i) population discriminative BT MLE (ours and choix)
    equals the direct weighted-KL minimiser to 1e-6 in every seed; (ii) the projection misses the
    cycle (max gap on a cycle pair > 0.1); (iii) finite-sample fits converge to the projection:
    mean log-log slope of max|s_hat - s_proj| in m below -0.3. The claim is restricted to the
    discriminative objective: our reconstruction of the generative objective (product family)
    does not converge to this projection, and its distance is reported, not decided."""
    a, b = seeds_of(ms, "t2_mle_vs_kl"), seeds_of(ms, "t2_choix_vs_kl")
    gap = seeds_of(ms, "t2_cycle_maxgap")
    sizes = np.asarray(ms[0]["t2_sizes"])
    slope = float(np.mean([loglog_slope(sizes, m["t2_finite_to_proj"])[0] for m in ms]))
    ok = bool(np.all(a < 1e-6) and np.all(b < 1e-6) and np.all(gap > 0.1) and slope < -0.3)
    partly = bool(np.all(a < 1e-6) and np.all(b < 1e-6))
    return Verdict(
        "reproduced" if ok else ("partly" if partly else "not-reproduced"),
        measured=(f"max|s_MLE - s_KL| = {a.max():.1e}, max|s_choix - s_KL| = {b.max():.1e}; cycle gap "
                  f"{gap.mean():.3f}; finite-sample distance to projection slope {slope:.2f}; "
                  f"projection moves by {np.mean(seeds_of(ms, 't2_weight_shift')):.2f} under other pair frequencies"),
        evidence=(f"n={len(ms)} seeds, all seeds must pass the tolerances; slope averaged over seeds. Generative "
                  f"(product-family) fit on the same data: max|s_gen - s_KL| = "
                  f"{np.max(seeds_of(ms, 't2_gen_vs_kl')):.2f} (reported; not the weighted-KL projection)"),
        value=float(a.max()),
    )


def contradict_kl_projection(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["t2_mle_vs_kl"] = 0.3
        m["t2_finite_to_proj"] = [0.3] * len(m["t2_finite_to_proj"])
        out.append(m)
    return out


def _per_seed(ms: list[dict], key: str, idx: int) -> np.ndarray:
    return np.asarray([float(m[key][idx]) for m in ms])


def check_margin(ms: list[dict]) -> Verdict:
    """Pre-registered: the seed-mean pairwise ranking error decreases monotonically over
    kappa = 0.25, 0.5, 1 and error(kappa=1) < error(kappa=0.25) by a paired t-test over seeds
    (p < 0.05). kappa = 2 is reported, not decided; so is the RMS score error, which grows with
    kappa (the logistic loses curvature at large margins)."""
    kap = ms[0]["t3_kappas"]
    i25, i1 = kap.index(0.25), kap.index(1.0)
    mean_curve = np.mean([m["t3_rank_err"] for m in ms], axis=0)
    mono = bool(np.all(np.diff(mean_curve[i25:i1 + 1]) < 0))
    e25, e1 = _per_seed(ms, "t3_rank_err", i25), _per_seed(ms, "t3_rank_err", i1)
    pv = paired_test(e1, e25, alternative="less", method="t")
    ok = mono and pv < 0.05
    return Verdict(
        "reproduced" if ok else ("partly" if mono or pv < 0.05 else "not-reproduced"),
        measured=("ranking error by kappa " + ", ".join(f"{k:g}: {e:.3f}" for k, e in zip(kap, mean_curve))
                  + "; RMS score error " + ", ".join(f"{e:.3f}" for e in np.mean([m["t3_rms_err"] for m in ms], axis=0))),
        evidence=f"monotone on [0.25, 1]: {mono}; paired t-test error(1) < error(0.25) over n={len(ms)} seeds, {fmt_p(pv)}",
        value=float(mean_curve[i1]),
    )


def contradict_margin(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["t3_rank_err"] = list(reversed(m["t3_rank_err"]))
        out.append(m)
    return out


def check_connectivity(ms: list[dict]) -> Verdict:
    """Pre-registered: Spearman(lambda_2, -error) over the four graphs, averaged over seeds,
    >= 0.8, and error(complete) < error(path) in every seed."""
    rho = seeds_of(ms, "t4_spearman")
    ec, ep = seeds_of(ms, "t4_err_complete"), seeds_of(ms, "t4_err_path")
    ok = bool(rho.mean() >= 0.8 and np.all(ec < ep))
    lam = np.mean([m["t4_lambda2"] for m in ms], axis=0)
    err = np.mean([m["t4_err"] for m in ms], axis=0)
    return Verdict(
        "reproduced" if ok else ("partly" if rho.mean() > 0 else "not-reproduced"),
        measured="; ".join(f"{g}: lambda2={l:.3g}, RMS err={e:.3f}" for g, l, e in zip(GRAPHS, lam, err))
        + f"; mean Spearman {rho.mean():.2f}",
        evidence=f"n={len(ms)} seeds; pass needs mean Spearman >= 0.8 and complete < path in every seed",
        value=float(rho.mean()),
    )


def contradict_connectivity(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["t4_spearman"] = -abs(m["t4_spearman"])
        m["t4_err_complete"], m["t4_err_path"] = m["t4_err_path"], m["t4_err_complete"]
        out.append(m)
    return out


# --------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 8))
    ax = fig.subplots(2, 2)
    sizes = ms[0]["t1_sizes"]
    for key, lab in (("t1_disc_err", "discriminative BT"), ("t1_gen_err", "generative BT")):
        ax[0, 0].loglog(sizes, np.mean([m[key] for m in ms], axis=0), "o-", label=lab)
    ax[0, 0].loglog(ms[0]["t2_sizes"], np.mean([m["t2_finite_to_proj"] for m in ms], axis=0), "s--",
                    label="cyclic data: max|s_hat - s_KL|")
    ax[0, 0].set_xlabel("number of triplets m")
    ax[0, 0].set_ylabel("error (CPRD TV / score units)")
    ax[0, 0].set_title("T1/T2: recovery of the CPRD / of the KL projection")
    ax[0, 0].legend(fontsize=8)
    kap = ms[0]["t3_kappas"]
    ax[0, 1].plot(kap, np.mean([m["t3_rank_err"] for m in ms], axis=0), "o-")
    ax[0, 1].set_xlabel("margin scale kappa (scores kappa * s0)")
    ax[0, 1].set_ylabel("pairwise ranking error (fraction)")
    ax[0, 1].set_title("T3: margin")
    for i, g in enumerate(GRAPHS):
        ax[1, 0].scatter([m["t4_lambda2"][i] for m in ms], [m["t4_err"][i] for m in ms], label=g)
    ax[1, 0].set_xscale("log")
    ax[1, 0].set_xlabel("algebraic connectivity lambda_2 (pair-frequency Laplacian)")
    ax[1, 0].set_ylabel("RMS score error")
    ax[1, 0].set_title("T4: connectivity")
    ax[1, 0].legend(fontsize=8)
    g, r = seeds_of(ms, "t5_err_greedy"), seeds_of(ms, "t5_err_random")
    ax[1, 1].bar(["random pairs", "greedy lambda_2"], [r.mean(), g.mean()],
                 yerr=[r.std(), g.std()], color=["grey", "tab:green"])
    ax[1, 1].set_ylabel("RMS score error")
    ax[1, 1].set_title("T5: choosing which pairs to collect")
    fig.tight_layout()
    return fig
