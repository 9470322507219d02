"""PINNfluence: Interpreting PINNs through Influence Functions.

arXiv:2409.08958 (v3, ICML 2026). A post-hoc training-data attribution tool for
physics-informed neural networks: influence functions are extended to the composite PINN
loss, so that a prediction (or a loss term, or a derived quantity) is attributed to every
training point and, at each point, to each loss component (PDE residual, boundary and
initial condition) through ``-grad f^T H^{-1} grad l_k(z)``. Aggregating these scores gives
diagnostics (which component drives a prediction, whether a point's terms cancel, whether
influence flows forward in time) meant to tell well-trained PINNs from failed ones.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"layers": [2, 6, 1], "points_good": [100, 16, 16], "points_bad": [10, 2, 2], "lr": 1e-3,
           "projection_dim": 50, "rcond": 1e-9, "damping": 1e-3, "weight_decay": 1e-4, "grad_tol": 1e-10,
           "problems": ["diffusion", "drift_diffusion"]}


#: Pre-registered (the card's original rule): influence (the paper's estimator: the inverse Hessian,
#: here exact since the network has fewer than 50 parameters) vs the real LOO refit from scratch has
#: Spearman >= 0.6 in >= 80% of seeds (mean over both PDEs' refits) and beats grad-dot (one-sided
#: Wilcoxon over seeds), decided only if every fit and refit converged (|grad L| <= 1e-8) in >= 80%
#: of seeds.
_LOO_CHECK = C.all_of(
    C.threshold("good/loo_spearman_if", at_least=0.6, frac=0.8, label="Spearman(influence, LOO refit)"),
    C.beats("good/loo_spearman_if", "good/loo_spearman_gd", better="higher", test="wilcoxon",
            label="influence", control_label="grad-dot"),
).gated(C.gate("good/loo_grad_max", at_most=1e-8, frac=0.8,
               why="the good PINN and all its LOO refits converged to |grad L| <= 1e-8 (float64)"))

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
        "the paper's bad setting (10/2/2 points), influence of each loss term of each point on the "
        "prediction u(x), grad-dot as baseline, the authors' LOO protocol (retrain from scratch with the "
        "same seed and one IC point removed, Spearman of predicted vs actual change of u over test points), "
        "10 seeds, and the component-fraction, cancellation and temporal-directionality diagnostics. "
        "Replaces the network [2,32,32,32,1] by [2,6,1] (25 parameters), the good point counts "
        "1000/100/100 by 100/16/16, 15k Adam + 5k L-BFGS steps by 800 Adam + 300 L-BFGS steps continued by "
        "exact-Hessian trust-region Newton steps until |grad L| <= 1e-10 (so that a LOO change is a "
        "property of the minimiser, not optimiser noise), adds a weight decay of 1e-4 to the training loss "
        "(without it the tanh PINN loss has no reachable isolated minimum: its weights drift along a "
        "valley and no optimiser reaches |grad L| <= 1e-8; 1e-6 and 1e-5 were too weak on dev seeds; the "
        "influence uses the Hessian of the same regularised loss; it costs accuracy: the good PINNs reach "
        "a relative L2 error of about 0.2-0.4 on dev seeds), replaces drift-diffusion's beta = 20, s = 2 by "
        "beta = s = 1 (a 25-parameter network cannot fit 6 travelling periods), uses 1 LOO refit per PDE "
        "and seed (20 in all, for the CPU budget), and replaces 7 PDEs by two. The Arnoldi approximation "
        "(projection 50) is "
        "the exact inverse Hessian here (fewer than 50 parameters); a damped variant (1e-3 x the largest "
        "eigenvalue) is reported and drives the diagnostics. The diagnostics' aggregations are ours (the "
        "paper's definitions were not available in full). Outcome of the full run (10 seeds, checks "
        "committed before it): the convergence gate held in 7/10 seeds (every diffusion fit and refit "
        "reached |grad L| <= 1.7e-8; three drift-diffusion fits stopped at 1.8e-5 to 5.6e-2 within the "
        "80 Newton steps), so loo-agreement stays not-checkable; on the numbers it would be partly "
        "(influence beats grad-dot, 0.61 vs 0.01 mean Spearman, Wilcoxon p=0.001, but reaches 0.6 in only "
        "5/10 seeds). On diffusion, where all refits converged, influence reaches Spearman 0.98-1.0 in 7/10 "
        "seeds; in the other 3 the refit from scratch lands in a different minimum (|du| 0.3-0.9 against "
        "0.01-0.04, predicted/actual size 0.01-0.04) and the correlation is about 0: the first-order "
        "estimate describes the nearby minimum, which the from-scratch protocol does not always reach. "
        "Revised after the full run by review (text only; verdicts unchanged): (a) the gate compares "
        "with the house slack of 5e-7 on bounds, so its '7/10' counts seed 6 (1.7e-8); strictly "
        "<= 1e-8 it holds in 6/10; not-checkable either way. (b) A passed gradient gate does not mean "
        "the refit is in the same basin (diffusion seeds 4, 5, 8 above), which a local first-order "
        "estimate needs; the gate guards stationarity only. (c) The LOO decider changed from the damped "
        "to the undamped inverse in the pre-registration commit (before this full run, after the "
        "previous run with another protocol): the undamped one is the paper's estimator; with the "
        "weight decay in both fit and refit it equals (H_data + 1e-4 I)^-1, so the regulariser plays "
        "the damping's role (the good fits' smallest Hessian eigenvalue is 1e-4 to 7e-4), and the claim "
        "is tested on the regularised objective, not the paper's unregularised one; the damped variant "
        "reaches a mean Spearman of 0.51, >= 0.6 in 4/10 seeds. (d) The LOO loss leaves the other "
        "points' weights lambda_k / n_k unchanged (an exact -1 upweighting); DeepXDE's mean in the "
        "authors' protocol would also rescale the 15 remaining IC terms by 16/15. Each LOO Spearman "
        "ranks 200 test points for one removed IC point per PDE and seed (as in the authors' "
        "get_leave_one_out_diff); the test over seeds is what decides. (e) Diagnostics: grad-dot "
        "separates 3/3 diagnostics on both PDEs against 2/3 for damped influence (3/3 undamped), so "
        "the separation does not need H^-1: 'partly' holds for the literal statement only, and the "
        "paper's key idea adds nothing over the control here; the good-minus-bad sign of the IC "
        "fraction and of the directionality excess flips between the PDEs, and good and bad PINNs "
        "differ in their point sets (100/16/16 vs 10/2/2) and the good ones are not well trained "
        "(relative L2 0.17 on both PDEs), so no diagnostic here is a PDE-independent sign of failure."
    ),
    examples="icml26.science.pinnfluence.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_COMMON, "points_good": [60, 10, 10], "adam_steps": 200, "lbfgs_steps": 50,
            "newton_steps": 10, "n_loo": 1, "n_test": 50}),
        "full": Profile("full", seeds=10, timeout_s=1800, params={
            **_COMMON, "adam_steps": 800, "lbfgs_steps": 300, "newton_steps": 80,
            "n_loo": 1, "n_test": 200}),
    },
    claims=(
        Claim(
            id="loo-agreement",
            statement="Influence functions over the composite PINN loss predict how removing a training "
                      "point changes the prediction (validated by leave-one-out retraining from scratch, on "
                      "two PDEs) better than gradient similarity.",
            paper_value="LOO correlation reported per problem (values not retrieved from the text read)",
            kind="headline",
            control="grad-dot (TracIn with one checkpoint): the same scores without H^{-1}",
            check=_LOO_CHECK,
        ),
        Claim(
            id="diagnostics-separate",
            statement="Influence-based diagnostics (loss-component fractions, cancellation, temporal "
                      "directionality) distinguish well-trained from poorly-trained PINNs.",
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
