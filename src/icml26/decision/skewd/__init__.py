"""SkewD: Skewness-Robust Causal Discovery in Location-Scale Noise Models (arXiv:2511.14441).

Klippert & Marx (ICML 2026). To tell cause from effect for two variables, SkewD fits the
location-scale noise model y = f(x) + g(x) N in both directions with N skew-normal (a Gaussian when the
shape lambda is 0), f and log g^2 as penalised cubic splines, estimated by a CMA-ES search followed by
an expectation-conditional-maximisation (ECM) refinement. The direction whose standardised residuals
are more independent of the putative cause (HSIC, SkewD-IT) or whose conditional likelihood is larger
(SkewD-LL) is returned. Modelling the skew keeps the orientation reliable when the noise is asymmetric,
where estimators that assume symmetric noise lose accuracy.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

#: the symmetric reference and the paper's five pure LS-s skew sets (SN medium/strong, AGN medium/strong/extreme)
_CONFIGS = ("LS_sym", "LS_med", "LS_AGN_med", "LS_strong", "LS_AGN_strong", "LS_extreme")

PAPER = Paper(
    slug="skewd",
    title="Skewness-Robust Causal Discovery in Location-Scale Noise Models",
    source="arXiv:2511.14441",
    cluster="decision",
    feasibility="A",
    substitution=(
        "Keeps the paper's pure LS-s skew-noise pair generator (checked line by line against the authors' R "
        "script: sigmoid mechanism, skew-normal noise with shape -2 = medium and 20 = strong, AGN kappa 0.15 = "
        "medium, -0.31 = strong, -0.5 = extreme: the paper's five pure LS-s sets, plus a symmetric reference), "
        "n = 1000 points per pair as in the paper, the skew-normal LSNM with 12/5-knot P-splines, CMA-ES + ECM "
        "estimation and both decision rules (SkewD-IT and SkewD-LL, each decided). Replaces: 50 pairs per "
        "configuration (10 per seed, 5 seeds) instead of 100, drawn afresh from the same generator (the "
        "authors' stored pairs, data/skew/<configuration>/pair_<k>.txt in causality-lab/skewd, come from R's "
        "random streams, which we do not reproduce, and the repository carries no licence file (checked at "
        "commit 01675de), so its pairs cannot be shipped with this package; no run here reads them); "
        "CMA-ES population 20 "
        "for <= 50 iterations (paper 100 / 5000), ECM <= 80 iterations with an exact convex rho-step "
        "(projected Newton) instead of an inner CMA-ES, restarted also from lambda = -5 and +5 "
        "(moment-matched) to make up for the short search; one fixed (alpha, kappa) = (0.1, 1) chosen by the "
        "paper's CV-likelihood criterion over a 3x3 grid on held-out pairs (at n = 300) instead of per-pair "
        "Bayesian optimisation; no real benchmarks. LOCI (Gaussian LSNM) is not on PyPI: the same pipeline "
        "with lambda fixed to 0 stands in and is the control. Prior methods of the paper's table run on the "
        "same pairs: IGCI (Gaussian and uniform reference, own slope estimator) and bivariate CAM (own spline "
        "version) on every pair, RESIT (lingam, kernel independence test) on every fifth pair (10 per "
        "configuration: about 0.3 s CPU a pair), plus DirectLiNGAM (not in the paper's table); ANM "
        "(causal-learn, GP regression) is implemented but not run at n = 1000 (cubic in n), and QCCD and GRCI "
        "have no Python implementation. The authors' accuracies (their result CSVs) are shown beside ours, "
        "never used to decide. Earlier full runs (n = 300, 12 pairs per configuration) are superseded. "
        "Stored full run (5 seeds, 297 s CPU in jobs, slowest job 61 s), pooled over the five skewed sets "
        "(paper in brackets): SkewD-LL 1.00 on every set (1.00), SkewD-IT 0.96 (0.86), IGCI-Gauss 1.00 "
        "(1.00), IGCI-uniform 0.53 (0.51), CAM 0.60 (0.68), RESIT 0.34 on 50 pairs (0.32), DirectLiNGAM 0.06. "
        "Our lambda = 0 stand-in is much stronger than the paper's LOCI under the IT rule (0.96 vs LOCI-IT "
        "0.71), so the IT-rule claims (robust-strong-skew, gaussian-drops) are not reproduced by the "
        "comparison with it; under the LL rule it does lose accuracy where the paper's LOCI-LL does (AGN "
        "extreme 0.86 vs SkewD-LL 1.00; LOCI-LL 0.66), and SkewD-LL is significantly above it on the "
        "high-skew sets (+0.05, McNemar p = 0.004) but below the pre-registered +0.10 margin (partly). "
        "Revised (sixth session, before its full run): LOCI itself now runs on every pair, our own code of "
        "the LOCI paper's convex spline estimator (Immer et al., ICML 2023: Gaussian LSNM in natural "
        "parameters on a degree-5, 25-knot B-spline basis, w_2 >= 0, ridge 1e-5; maximum likelihood by a "
        "log-barrier Newton method instead of the authors' alternating closed-form / L-BFGS steps, same convex "
        "optimum; both scores, LOCI-LL = conditional log-likelihood difference and LOCI-IT = HSIC of the "
        "standardised residual and the cause; the neural-network LOCI is not run; about 0.1 s CPU a pair), "
        "and it replaces the lambda = 0 stand-in as the control of robust-strong-skew, robust-strong-skew-ll "
        "and gaussian-drops (the stand-in is still reported beside it), because the stand-in is our SkewD "
        "pipeline, not the method the paper compares with. Pre-registered gate on the control: >= 95% of its "
        "fits converge and it orients >= 0.7 of the symmetric reference pairs under the rule in question, "
        "else the claim is not-checkable; partly for robust-strong-skew now also needs a significant lead "
        "(McNemar p < 0.05), as robust-strong-skew-ll's since the fifth session's review. Chosen before the "
        "re-run, from the audit's finding; the gate's thresholds were set before any dev run of the profile. Dev "
        "seeds 100-101 (quick) and 100 (full profile, one seed: LOCI fits all converged, LOCI-IT 0.70 and LOCI-LL "
        "1.00 on the 10 symmetric pairs, about 120 s CPU for the seed under a load of 8 on 2 cores) checked that "
        "it runs; devrun also printed their verdicts, and nothing was changed after them. The AN-s sets stay out: one more configuration "
        "costs about a sixth of the SkewD fitting budget. "
        "Sixth-session full run (5 seeds, 619.9 s CPU in jobs, slowest 139.3 s, under a load of 4-9 on 2 cores; "
        "LOCI itself about 0.16 s CPU a pair, some 50 s of it): LOCI gate passed (all fits converged; LS_sym "
        "LOCI-IT 0.96, LOCI-LL 1.00). On the high-skew sets SkewD-IT 0.95 vs LOCI-IT 0.72 (paper 0.86 vs 0.71; "
        "per set 0.56 / 0.86 / 0.74, paper 0.56 / 0.82 / 0.75): reproduced; SkewD-LL 1.00 vs LOCI-LL 0.90 "
        "(paper 1.00 vs 0.86; AGN extreme 0.74, paper 0.66): partly, at exactly the 0.10 margin (15 more "
        "correct of 150), which the check's floating-point 1.0 - 0.9 < 0.1 reads as short of it; left as "
        "stored, not changed after the run; LOCI-IT drops from 0.96 (symmetric) to 0.75 (skewed LS-s; paper "
        "0.94 -> 0.71): gaussian-drops reproduced, where the stand-in stays at 0.96. The SkewD rows moved a "
        "little against the fifth session's (SkewD-IT 0.95 pooled over the skewed sets, was 0.96; 0.94 on "
        "LS_sym, was 0.98; SkewD-LL 1.00 unchanged): SkewD's code is unchanged and the new rows are "
        "reproducible, so this is the environment rebuilt between the runs (its packages were reinstalled), "
        "not LOCI, which draws no random numbers. "
        "Review after the sixth session's run (the rows unchanged; one evaluation rule added, which can only "
        "lower a verdict): LOCI, the paper's comparison, differs from SkewD in more than the skew idea (a "
        "nearly unpenalised 29-function spline with ridge 1e-5, against SkewD's cross-validated P-splines and "
        "CMA-ES + ECM fit), so beating it does not show that modelling skew helps; the key-idea ablation is "
        "the same SkewD pipeline with lambda fixed to 0. The comparative claims decided against LOCI "
        "(robust-strong-skew, robust-strong-skew-ll) now take the lower of their verdicts against LOCI and "
        "against that ablation, by the same rule (check_ablation_cap in the experiment): robust-strong-skew "
        "reproduced -> not-reproduced (SkewD-IT 0.95 vs the ablation's 0.96 on the same 150 pairs, McNemar "
        "p = 0.81, although 0.95 vs LOCI-IT 0.72); robust-strong-skew-ll stays partly (1.00 vs the ablation's "
        "0.95, p = 0.0039, short of the margin), so its floating-point reading against LOCI (a lead of exactly "
        "0.10 read as 0.0999...) no longer decides it. gaussian-drops is narrowed to LOCI-IT, the estimator "
        "whose drop the paper reports: LOCI-LL drops less (1.00 -> 0.94) and our lambda = 0 Gaussian LSNM not "
        "at all (0.96 -> 0.96), so the drop belongs to LOCI's estimator, not to every estimator that assumes "
        "symmetric noise. The earlier sentences saying the stand-in 'is the control' and that the IT-rule "
        "claims are not reproduced by the comparison with it describe the fifth session. The paper's LOCI-IT "
        "0.94 on symmetric noise is on its LS benchmark, a different generator from our LS_sym; which LOCI "
        "variant produced the authors' loci_acc.csv is not established (their loci() defaults to the neural "
        "network; ours is the convex spline estimator). The SkewD-IT drift against the fifth session: old and "
        "new rows agree pair for pair for every method except SkewD-IT (8 flips of 300), lambda = 0 is "
        "identical everywhere, and the median fitted lambda on LS_sym moved from 0.66 to -0.78, which points to "
        "the multimodal lambda search reacting to last-bit differences; 'reproducible' above means the new "
        "rows repeat on this machine, not that the environment was shown to be the cause. "
        "Seventh session (engineering only; recipe, checks and gates unchanged): three bit-identical speed-ups "
        "in method.py (the CM-2 Newton step reuses the last evaluation's exp(-Z rho) weights and skips the "
        "free-set indexing inside the box; the HSIC bandwidth's median selects within a bracket, np.median's "
        "value exactly; the CMA-ES sampler forms B diag(D) once per eigendecomposition). Dev seed 100: all 145 "
        "metrics identical, 88.6 -> 78.2 s CPU. Stored full run (2026-12-07): every metric of all 5 seeds "
        "identical to the sixth session's rows, verdicts unchanged; 452.6 s CPU in jobs (83.9-95.2 s a seed, "
        "under a load of about 4 on 2 cores; the previous rows 588.4 s, 111.5-123.9 s a seed), 449 s wall, "
        "still above the 3-minute budget."
    ),
    examples="icml26.decision.skewd.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params=dict(
            n=120, pairs_per_config=1, configs=["LS_sym", "LS_strong", "LS_extreme"], cma_population=16,
            cma_iters=25, ecm_iters=25, lambda_starts=[-5.0, 5.0], alpha=0.1, kappa=1.0,
            baselines=["igci_g", "igci_u", "cam", "lingam"], slow_baselines=["resit"], slow_every=5)),
        "full": Profile("full", seeds=5, timeout_s=1800, params=dict(
            n=1000, pairs_per_config=10, configs=list(_CONFIGS), cma_population=20, cma_iters=50,
            ecm_iters=80, lambda_starts=[-5.0, 5.0], alpha=0.1, kappa=1.0,
            baselines=["igci_g", "igci_u", "cam", "lingam"], slow_baselines=["resit"], slow_every=5)),
    },
    claims=(
        Claim(
            id="robust-strong-skew",
            kind="headline",
            statement="Under strong skewness SkewD-IT remains accurate, clearly above the same estimator "
                      "with symmetric (Gaussian) noise. (Revised, sixth session, before its full run: the control "
                      "is LOCI-IT, the paper's, instead of our lambda = 0 stand-in; the partly rule needs a "
                      "significant lead; the control is gated.) (Review after the sixth session's full run, "
                      "evaluation only, lowering the verdict: the 'same estimator with symmetric noise' is the "
                      "key-idea ablation, SkewD with lambda = 0, not LOCI; the verdict is now the lower of the "
                      "verdicts against LOCI-IT and against that ablation. SkewD-IT 0.95 beats LOCI-IT 0.72 "
                      "(+0.23, p < 1e-4; paper 0.86 vs 0.71) but not the ablation (0.96, -0.01, p = 0.81): "
                      "reproduced -> not-reproduced; the lead over LOCI comes from the estimator, not from "
                      "modelling skew.)",
            paper_value="SkewD-IT vs LOCI-IT on pure LS-s (n = 1000, 100 pairs): SN strong 0.73 vs 0.56, AGN "
                        "strong 0.92 vs 0.82, AGN extreme 0.92 vs 0.75 (authors' result CSVs).",
            control="LOCI-IT (our code of LOCI's convex spline estimator, Immer et al. 2023), on the same pairs, "
                    "gated (fits converge, >= 0.7 on the symmetric set); until the fifth session the lambda = 0 "
                    "pipeline stood in, still reported",
        ),
        Claim(
            id="robust-strong-skew-ll",
            kind="headline",
            statement="Under strong skewness SkewD-LL remains accurate, clearly above the same estimator "
                      "with symmetric (Gaussian) noise. (Review after the full run, verdict unchanged, partly: "
                      "the lambda = 0 rule put in SkewD-LL's place read partly too, 0.95 vs 0.95, because the "
                      "pre-registered partly rule was 'acc >= 0.7 and diff >= 0'; SkewD-LL is ahead significantly, "
                      "1.00 vs 0.95 on 150 pairs, +0.05, McNemar p=0.0039, short of the 0.1 margin. Partly now "
                      "needs that significant lead, so the control reads not-reproduced; changed by review after "
                      "the full run, the stored verdict unchanged.) (Revised, sixth session, before its full run: "
                      "the control is LOCI-LL, the paper's, instead of our lambda = 0 stand-in, and is gated.) (Full run, "
                      "sixth session: 1.00 vs LOCI-LL 0.90 on 150 pairs, McNemar p < 1e-4, a lead of exactly 0.10 "
                      "(15 pairs), which the check, comparing 1.0 - 0.9 in floating point, reads as just short of "
                      "the >= 0.10 margin: partly; in exact arithmetic the pre-registered pass rule is met. Not "
                      "changed after the run.) (Review after the sixth session's full run, evaluation only, "
                      "lowering only: the verdict is the lower of those against LOCI-LL and against the key-idea "
                      "ablation, SkewD with lambda = 0: 1.00 vs 0.95, p = 0.0039, short of the margin: partly, "
                      "which the floating-point reading above no longer decides.)",
            paper_value="SkewD-LL vs LOCI-LL on pure LS-s: SN strong 1.00 vs 0.98, AGN strong 1.00 vs 0.94, "
                        "AGN extreme 1.00 vs 0.66 (authors' result CSVs).",
            control="LOCI-LL (our code of LOCI's convex spline estimator, Immer et al. 2023), on the same pairs, "
                    "gated (fits converge, >= 0.7 on the symmetric set); until the fifth session the lambda = 0 "
                    "pipeline stood in, still reported",
        ),
        Claim(
            id="ll-every-set",
            kind="headline",
            statement="SkewD-LL orients (nearly) every pair of every skewed LS-s benchmark set.",
            paper_value="SkewD-LL 1.00 on each of the five pure LS-s sets (SN medium/strong, AGN "
                        "medium/strong/extreme; n = 1000, 100 pairs each; authors' result CSVs).",
            no_control="an absolute accuracy level on each set; the lambda = 0 LL rule on the same pairs is "
                       "reported beside it (and decides robust-strong-skew-ll)",
        ),
        Claim(
            id="gaussian-drops",
            kind="headline",
            statement="When the LSNM noise is skewed, estimators that assume symmetric (Gaussian) noise "
                      "lose orientation accuracy. (Revised, sixth session, before its full run: measured on "
                      "LOCI-IT, the paper's estimator, gated as the comparative claims' control, instead of our "
                      "lambda = 0 stand-in, which is still reported.) (Review after the sixth session's full "
                      "run, text only: narrowed to LOCI-IT, whose drop is the paper's number; LOCI-LL drops "
                      "less, 1.00 -> 0.94, and our lambda = 0 Gaussian LSNM not at all, 0.96 -> 0.96, so the "
                      "drop belongs to LOCI's estimator, not to every estimator that assumes symmetric noise.)",
            paper_value="LOCI-IT 0.94 on the Gaussian LS benchmark vs 0.56-0.82 on pure LS-s skew sets; "
                        "LOCI-LL 1.00 vs 0.66 at AGN extreme (authors' result CSVs).",
            no_control="a statement about the symmetric-noise estimator (LOCI) across noise laws; its "
                       "reference is the same estimator on symmetric noise, measured in the same run",
        ),
        Claim(
            id="no-cost-symmetric",
            kind="headline",
            statement="Modelling skewness costs nothing when the noise is symmetric (lambda = 0 is a "
                      "special case of the skew normal).",
            paper_value="Qualitative: 'reliable inference under symmetric and skewed noise'.",
            no_control="a non-inferiority claim: the lambda = 0 pipeline is the reference SkewD must not fall "
                       "below, not a control it must beat",
        ),
        Claim(
            id="competitive",
            kind="headline",
            statement="SkewD performs strongly compared with prior cause-effect methods on skew-noise "
                      "benchmarks.",
            paper_value="pure LS-s means over 5 skew sets: SkewD-LL 1.00, SkewD-IT 0.86, IGCI-Gauss 1.00, "
                        "LOCI-LL 0.92, CAM 0.68, RESIT 0.32 (authors' result CSVs).",
            no_control="a ranking against the field's methods, which are themselves the comparison (the "
                       "strongest one measured is the bar)",
        ),
    ),
)

__getattr__ = lazy_exports(__name__, {
    "fit_lsnm": ".method", "skewd": ".method", "hsic": ".method", "select_penalties": ".method",
    "LSNMFit": ".method", "SkewDResult": ".method", "sn_logpdf": ".method", "penalized_nll": ".method",
    "spline_design": ".method", "difference_penalty": ".method", "sample_pair": ".setting",
    "standardise": ".setting", "CONFIGS": ".setting", "igci": ".baselines", "cam_pair": ".baselines",
    "loci": ".loci", "fit_loci": ".loci", "LociFit": ".loci",
})
__all__ = ["PAPER", "fit_lsnm", "skewd", "hsic", "select_penalties", "LSNMFit", "SkewDResult",
           "sn_logpdf", "penalized_nll", "spline_design", "difference_penalty", "sample_pair",
           "standardise", "CONFIGS", "igci", "cam_pair", "loci", "fit_loci", "LociFit"]
