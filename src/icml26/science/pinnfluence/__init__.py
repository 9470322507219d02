"""PINNfluence: Interpreting PINNs through Influence Functions.

arXiv:2409.08958 (v3, ICML 2026). A post-hoc training-data attribution tool for
physics-informed neural networks: influence functions are extended to the composite PINN
loss, so that a prediction (or a loss term, or a derived quantity) is attributed to every
training point and, at each point, to each loss component (PDE residual, boundary and
initial condition) through ``-grad f^T H^{-1} grad l_k(z)``. Aggregating these scores gives
diagnostics (which component drives a prediction, whether a point's terms cancel, whether
influence flows forward in time) meant to tell well-trained PINNs from failed ones.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"layers": [2, 6, 1], "points": [100, 16, 16], "lr": 1e-3,
           "projection_dim": 50, "rcond": 1e-9, "damping": 1e-3, "weight_decay": 1e-4, "grad_tol": 1e-10,
           "problems": ["diffusion", "drift_diffusion"]}

PAPER = Paper(
    slug="pinnfluence",
    title="PINNfluence: Interpreting PINNs through Influence Functions",
    source="arXiv:2409.08958",
    cluster="science",
    feasibility="A",
    substitution=(
        "Keeps DeepXDE's diffusion ('heat') benchmark (u_t = u_xx - e^{-t}(sin pi x - pi^2 sin pi x), exact "
        "e^{-t} sin pi x) and the authors' drift-diffusion problem (u_t - alpha u_xx + beta u_x = 0 on "
        "[0, 2 pi] x [0, 1], periodic BC, IC sin(s x + r), input x / 2 pi) with Hammersley training points "
        "from DeepXDE's GeometryXTime, the composite loss with a PDE term at every point and BC/IC terms at "
        "boundary/initial points, float64 tanh MLPs trained with Adam (lr 1e-3) then L-BFGS (strong Wolfe), "
        "the paper's no-L-BFGS failure mode as the bad PINN, influence of each loss term of each point on "
        "the prediction u(x), grad-dot as baseline, the authors' LOO protocol (retrain from scratch with the "
        "same seed and one IC point removed, Spearman of predicted vs actual change of u over test points), "
        "10 seeds, and the component-fraction, cancellation and temporal-directionality diagnostics. "
        "Replaces the network [2,32,32,32,1] by [2,6,1] (25 parameters), the point counts 1000/100/100 by "
        "100/16/16, 15k Adam + 5k L-BFGS steps by 800 Adam + 300 L-BFGS steps continued by exact-Hessian "
        "trust-region Newton steps (at most 300) until |grad L| <= 1e-10 (so that a LOO change is a "
        "property of the minimiser, not optimiser noise), adds a weight decay of 1e-4 to the training loss "
        "(without it the tanh PINN loss has no reachable isolated minimum: its weights drift along a "
        "valley and no optimiser reaches |grad L| <= 1e-8; 1e-6 and 1e-5 were too weak on dev seeds; the "
        "influence uses the Hessian of the same regularised loss, so the regulariser plays the role of "
        "the damping and the claim is tested on the regularised objective; it costs accuracy: the good "
        "PINNs reach a relative L2 error of about 0.12-0.22 on dev seeds, not the paper's ~1e-2), replaces "
        "drift-diffusion's beta = 20, s = 2 by beta = s = 1 (a 25-parameter network cannot fit 6 travelling "
        "periods), uses 2 LOO refits per PDE and seed (40 in all, for the CPU budget), and replaces 7 PDEs "
        "by two. The bad PINN is the good one stopped after Adam (no L-BFGS, the paper's failure mode for "
        "Allen-Cahn and wave), on the same points from the same initialisation, instead of the paper's "
        "heat setting with 10/2/2 points: with fewer points the diagnostics change by construction (the "
        "IC fraction and the share of upstream points depend on the point counts). The LOO loss leaves the "
        "other points' weights lambda_k / n_k unchanged (an exact -1 upweighting); DeepXDE's mean in the "
        "authors' protocol would also rescale the 15 remaining IC terms by 16/15. The Arnoldi "
        "approximation (projection 50) is the exact inverse Hessian here (fewer than 50 parameters); a "
        "damped variant (1e-3 x the largest eigenvalue) is reported and drives the diagnostics. The "
        "diagnostics' aggregations are ours (the paper's definitions were not available in full). "
        "Same-minimum rule (ours, pre-registered; demoted by review after the full run, see below): an "
        "influence function is a first-order estimate of "
        "the minimiser of the reduced loss near the fitted one, so each LOO point is also refitted "
        "warm-started at the fitted optimum (trust-region Newton on the reduced loss); a refit from scratch "
        "whose change of u differs from the warm-started one by more than 10% (relative L2 over the test "
        "points) has landed in another minimum and was excluded from the LOO claim, and counted; the rule "
        "reads no attribution score. Previous full run (80 Newton steps, bad PINN on 10/2/2 points, 1 LOO "
        "point per PDE): loo-agreement not-checkable (gradient gate met in 7/10 seeds: three "
        "drift-diffusion fits or refits stopped within 80 Newton steps, which dev seeds showed to need "
        "100-150; influence 0.61 vs grad-dot 0.01 mean Spearman, >= 0.6 in 5/10 seeds; on diffusion "
        "seeds 4, 5, 8 the refit from scratch landed in another minimum, |du| 0.3-0.9 against "
        "0.01-0.04, and the correlation was ~0); diagnostics-separate partly (damped influence separated "
        "2/3 diagnostics per PDE, grad-dot 3/3; good and bad PINNs used different point sets; good PINNs' "
        "relative L2 0.17, no accuracy gate). Its gate compared with the house slack of 5e-7 on bounds "
        "(strictly <= 1e-8 it held in 6/10); the gate now reads log10 |grad L| <= -8. "
        "Outcome of this full run (10 seeds, checks committed before it; 168.5 s CPU in jobs, slowest "
        "19.4 s): every fit and refit converged (log10 |grad L| <= -10.1 in every seed). loo-agreement "
        "reproduced under the pre-registered rule (changed by review after the full run to partly, "
        "below): 22/40 refits from scratch left the fitted minimum's basin and are excluded (6/20 on "
        "diffusion, 16/20 on drift-diffusion, whose verdict share is therefore small: 4 in-basin refits in "
        "3 seeds); every seed kept at least one; on the in-basin refits influence reaches Spearman 0.99-1.0 "
        "in 10/10 seeds against grad-dot 0.15 (one-sided Wilcoxon p=0.001). An in-basin refit from "
        "scratch equals the warm-started one, so this measures the first-order estimate against the "
        "minimum it describes; the ranking is near exact, the size is underestimated (predicted/actual "
        "norm 0.77-0.94 on diffusion, 0.62-0.72 on drift-diffusion). With no refit excluded (the bare "
        "official protocol) influence reaches 0.57 on average, >= 0.6 in 6/10 seeds, still above grad-dot "
        "0.10 (p=0.002); the damped variant 0.48. Review after the full run: every kept refit equals its "
        "warm-started refit to <= 1.2e-7 relative (every excluded one differs by >= 0.28), so the "
        "pre-registered decider was Spearman(influence, warm-started refit) on a subset, which the same "
        "rule called not decisive and which holds by derivation up to second-order terms (the influence "
        "function is the derivative "
        "of that local minimiser; the remaining difference is mostly a common scale, which Spearman "
        "ignores; it is >= 0.96 in all 40 refits, the excluded ones included). loo-agreement therefore "
        "decides on all refits from scratch, the protocol of the claim, with the same thresholds and gate: "
        "partly (0.57, >= 0.6 in 6/10 seeds; ahead of grad-dot, p=0.002; diffusion 0.71, drift-diffusion "
        "0.44; on the 22 refits that left the basin influence explains nothing, 0.03 and 0.30 against "
        "grad-dot -0.15 and 0.19); the same-minimum numbers are reported as a verification of the "
        "implementation. diagnostics-separate partly: with the same points and "
        "initialisation the good PINN is accurate (relative L2 <= 0.25 in 9/10 diffusion seeds, 0.334 in "
        "seed 2; 10/10 drift-diffusion; mean 0.17) and the Adam-only bad one is not (0.82 and 0.94); "
        "damped influence separates 2/3 diagnostics on diffusion (cancellation and directionality excess, "
        "not the IC fraction) and 3/3 on drift-diffusion, but grad-dot separates 3/3 on both, so the "
        "separation does not need H^-1. Unlike the previous run, the signs agree across the two PDEs: the "
        "good PINN has more cancellation (0.16 vs 0.12; 0.24 vs 0.11) and a smaller directionality excess "
        "(0.06 vs 0.14; 0.29 vs 0.41) than the bad one."
    ),
    examples="icml26.science.pinnfluence.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_COMMON, "points": [60, 10, 10], "adam_steps": 200, "lbfgs_steps": 50,
            "newton_steps": 10, "n_loo": 1, "n_test": 50}),
        "full": Profile("full", seeds=10, timeout_s=1800, params={
            **_COMMON, "adam_steps": 800, "lbfgs_steps": 300, "newton_steps": 300,
            "n_loo": 2, "n_test": 200}),
    },
    claims=(
        Claim(
            id="loo-agreement",
            statement="Influence functions over the composite PINN loss predict how removing a training "
                      "point changes the prediction (validated by leave-one-out retraining from scratch, on "
                      "two PDEs, over all refits; changed by review after the full run from 'where the "
                      "refit reaches the fitted minimum's basin', reproduced -> partly) better than "
                      "gradient similarity.",
            paper_value="LOO correlation reported per problem (values not retrieved from the text read)",
            kind="headline",
            control="grad-dot (TracIn with one checkpoint): the same scores without H^{-1}",
        ),
        Claim(
            id="diagnostics-separate",
            statement="Influence-based diagnostics (loss-component fractions, cancellation, temporal "
                      "directionality) distinguish well-trained from poorly-trained PINNs. (Changed by review "
                      "after the full run: partly -> not-reproduced, the control put in the method's place reads "
                      "the same partly (the same diagnostics from grad-dot scores, no Hessian, separate good from "
                      "bad PINNs in 3/3 on diffusion and 3/3 on drift-diffusion, two-sided paired t-test p < 0.05 "
                      "over 10 seeds; damped influence in 2/3 and 3/3, and no diagnostic separates with influence "
                      "alone). partly now needs a diagnostic that influence separates and grad-dot does not.)",
            paper_value="qualitative across 5 time-dependent PDEs, 10 seeds (numbers not retrieved)",
            kind="headline",
            control="the same diagnostics computed from grad-dot scores (no Hessian)",
        ),
    ),
)

_EXPORTS = {
    **{name: ".method" for name in (
        "CompositeLoss", "mlp_derivatives", "solution_derivatives", "residuals", "init_params", "train_pinn",
        "newton_polish", "trust_region_newton", "train_to_convergence", "damped_inverse", "train_gradients",
        "output_gradients", "influence_scores",
        "pinn_influence", "per_point", "component_fractions", "cancellation_score", "directionality",
        "proximal_loo")},
    **{name: ".setting" for name in (
        "diffusion_source", "diffusion_exact", "drift_diffusion_exact", "exact_solution", "sample_points",
        "sample_test_points", "evaluation_grid")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
