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

_COMMON = {"layers": [2, 10, 10, 1], "points_good": [150, 20, 20], "points_bad": [10, 2, 2], "lr": 1e-3,
           "projection_dim": 50, "rcond": 1e-9, "damping": 1e-3}


#: Pre-registered (the card's original rule, restored): influence vs the real LOO refit has Spearman
#: >= 0.6 in >= 80% of seeds and beats grad-dot (one-sided Wilcoxon over seeds), decided only if the
#: LOO change of u stands 3x above the optimiser-noise floor in >= 80% of seeds.
_LOO_CHECK = C.all_of(
    C.threshold("good/loo_spearman_ifd", at_least=0.6, frac=0.8, label="Spearman(influence, LOO refit)"),
    C.beats("good/loo_spearman_ifd", "good/loo_spearman_gd", better="higher", test="wilcoxon",
            label="influence", control_label="grad-dot"),
).gated(C.gate("good/loo_snr", at_least=3.0, frac=0.8,
               why="the LOO refit moves u at least 3x more than a refit from a 1e-6-perturbed initialisation"))

PAPER = Paper(
    slug="pinnfluence",
    title="PINNfluence: Interpreting PINNs through Influence Functions",
    source="arXiv:2409.08958",
    cluster="science",
    feasibility="A",
    substitution=(
        "Keeps DeepXDE's diffusion ('heat') benchmark (u_t = u_xx - e^{-t}(sin pi x - pi^2 sin pi x), exact "
        "e^{-t} sin pi x) with Hammersley training points from DeepXDE's GeometryXTime, the composite "
        "loss with a PDE term at every point and BC/IC terms at boundary/initial points, float64 tanh "
        "MLPs trained with Adam (lr 1e-3) then L-BFGS, the paper's bad setting (10/2/2 points), "
        "influence of each loss term of each point on the prediction u(x), grad-dot as baseline, the "
        "authors' LOO protocol (retrain from scratch with the same seed and one IC point removed, "
        "Spearman of predicted vs actual change of u over test points), 10 seeds, and the "
        "component-fraction, cancellation and temporal-directionality diagnostics. Replaces the network "
        "[2,32,32,32,1] by [2,10,10,1], the good point counts 1000/100/100 by 150/20/20, 15k Adam + 5k "
        "L-BFGS steps by the profile's schedule (L-BFGS restarted while the loss falls, then a few "
        "exact-Hessian Newton steps), the Arnoldi approximation (projection 50) by the exact Hessian with "
        "damping 1e-3 x its largest eigenvalue (its top-50 eigenprojection is reported as the paper's "
        "variant), and 7 PDEs by one. Adds a measured optimiser-noise floor for LOO (refit from a "
        "1e-6-perturbed initialisation). The diagnostics' aggregations are ours (the paper's definitions "
        "were not available in full)."
    ),
    examples="icml26.science.pinnfluence.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_COMMON, "points_good": [60, 10, 10], "adam_steps": 300, "lbfgs_steps": 150,
            "lbfgs_restarts": 1, "newton_steps": 0, "n_loo": 1, "n_test": 50}),
        "full": Profile("full", seeds=10, timeout_s=1800, params={
            **_COMMON, "adam_steps": 1500, "lbfgs_steps": 500, "lbfgs_restarts": 4, "newton_steps": 3,
            "n_loo": 2, "n_test": 200}),
    },
    claims=(
        Claim(
            id="loo-agreement",
            statement="Influence functions over the composite PINN loss predict how removing a training "
                      "point changes the prediction (validated by leave-one-out retraining from scratch) "
                      "better than gradient similarity.",
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
        "CompositeLoss", "mlp_derivatives", "residuals", "init_params", "train_pinn", "newton_polish",
        "train_to_convergence", "damped_inverse", "train_gradients", "output_gradients", "influence_scores",
        "pinn_influence", "per_point", "component_fractions", "cancellation_score", "directionality",
        "proximal_loo")},
    **{name: ".setting" for name in (
        "diffusion_source", "diffusion_exact", "sample_points", "sample_test_points", "evaluation_grid")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
