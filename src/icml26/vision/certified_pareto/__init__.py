"""Rethinking Evaluation Paradigms in IBP-based Certified Training (arXiv:2606.02134).

Certified training methods trade natural (clean) accuracy against certified accuracy
under an l_inf ball, and papers usually report one point of that trade-off. The paper
evaluates each method by its Pareto front instead: a multi-objective hyperparameter
search per method maximises (natural accuracy, certified accuracy), and methods are
compared by their fronts (dominance, hypervolume, which method owns which end), with the
front networks re-certified by complete verifiers. This package holds the protocol (search
spaces, Optuna multi-objective study, non-dominated filtering, 2-D hypervolume, dominance),
the four certified-training losses it compares (IBP, CROWN-IBP, SABR, MTL-IBP), our own sound
IBP / CROWN-IBP bounds for ReLU MLPs and an exact MILP verifier; ``setting`` holds the data
and CTRAIN's default recipes.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_METHODS = ["ibp", "crown-ibp", "sabr", "mtl-ibp"]

PAPER = Paper(
    slug="certified-pareto",
    title="Rethinking Evaluation Paradigms in IBP-based Certified Training",
    source="arXiv:2606.02134",
    cluster="vision",
    feasibility="A",
    substitution=(
        "Keeps: the evaluation protocol (one multi-objective HPO study per method maximising natural and "
        "certified accuracy on a validation split, the non-dominated trials as the method's front, front networks "
        "re-certified on test with a complete verifier and compared with each method's default recipe and with "
        "each other), the CTRAIN search spaces (warm-up, ramp-up, lr, optimiser, two lr decays, l1, train-eps "
        "factor; kappa, beta, SABR lambda, MTL-IBP alpha, PGD steps/step/eps factor), CTRAIN's default recipes "
        "(its model wrappers' defaults) and the four methods' losses with the smoothed eps schedule and Shi "
        "initialisation. Replaces: MNIST/CIFAR-10/TinyImageNet and CNN7 by scikit-learn's 8x8 digits (eps = 0.1 "
        "on [0, 1] pixels) and a 64-64-64-10 ReLU MLP trained 10 epochs; 100 BoTorch trials merged over seeds by "
        "12 multivariate-TPE trials per (method, seed), 5 of them random (close to random search; Optuna's GP "
        "sampler costs ~0.4 s per suggestion); alpha-beta-CROWN by full CROWN, a stronger PGD attack and our "
        "own MILP encoding solved with HiGHS (scipy), run on front and default networks after our IBP / CROWN-IBP "
        "bounds and PGD, on a fixed number of open points per network (undecided points count as uncertified, "
        "their share is reported; HPO itself certifies with the bounds); default recipes' epoch counts scaled "
        "to our 10 epochs and their lr 5e-4 "
        "raised tenfold (fixed before any comparison); defaults below 0.5 natural accuracy are reported as "
        "degenerate and left out of the comparisons. The Shi et al. IBP regulariser is not implemented. Every "
        "bound-certified test point is attacked by 50-step PGD to check the bounds. 3 seeds. "
        "Full profile resized on 2026-12-01 to fit the 3-minute budget (the stored run took ~900-1160 s per seed): "
        "the MILP stage was time-budgeted (4 s per network, 1 s per class solve; results depended on the machine's "
        "speed, and it left 8-26% of test points undecided); it is now count-based and deterministic: the open "
        "points are first bounded by full CROWN (layer-wise CROWN intermediate bounds) and attacked by 3 more "
        "random-start 50-step PGD runs, then the first 5 still-open points of a fixed order per network are "
        "solved exactly (tightened big-M bounds, the margin as a constraint so a solve stops at the first "
        "counterexample, classes proven by CROWN skipped, 100 branch-and-bound nodes per class solve; a 30 s time "
        "cap per solve is only a safety net and its hits are reported). Trials, epochs, seeds and the search "
        "spaces are unchanged."
    ),
    examples="icml26.vision.certified_pareto.examples:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "eps": 0.1, "epochs": 5, "methods": _METHODS, "n_trials": 3, "sampler": "tpe",
            "pgd_steps": 20, "pgd_restarts": 1, "default_lr_scale": 10.0,
            # the MILP stage is count-based (points per network, nodes per solve), so it is deterministic;
            # the time cap is only a safety net whose hits are counted (<m>_n_time_capped)
            "milp_points": 1, "milp_node_limit": 100, "milp_time_cap": 30.0, "milp_attack_restarts": 1},
            timeout_s=120),
        # resized on 2026-12-01 to fit the 3-minute budget (see the substitution text)
        "full": Profile("full", seeds=3, params={
            "eps": 0.1, "epochs": 10, "methods": _METHODS, "n_trials": 12, "sampler": "tpe",
            "pgd_steps": 50, "pgd_restarts": 1, "default_lr_scale": 10.0, "milp_points": 5,
            "milp_node_limit": 100, "milp_time_cap": 30.0, "milp_attack_restarts": 3}, timeout_s=900),
    },
    claims=(
        Claim(
            id="undertuned",
            statement=("Default single configurations are under-tuned: the multi-objective search finds "
                       "configurations that dominate them, e.g. more natural accuracy at matched certified "
                       "accuracy."),
            paper_value=("CROWN-IBP gains ~6 pt natural accuracy at matched certified accuracy (CIFAR-10, CNN7); "
                         "MTL-IBP on TinyImageNet gains ~2 pt in both natural and certified accuracy"),
            kind="headline", control="each method's default recipe (CTRAIN defaults), trained and certified in the same run",
            reference=0.06),
        Claim(
            id="front-hv",
            statement=("A method's Pareto front describes its trade-off better than one configuration: its "
                       "hypervolume exceeds that of the single default point."),
            paper_value="qualitative (fronts vs single published points in all settings)",
            kind="headline", control="the default recipe's single point (its hypervolume)"),
        Claim(
            id="complementarity",
            statement=("No single method dominates the whole front: SABR is strongest at high natural accuracy, "
                       "MTL-IBP at high certified accuracy."),
            paper_value="qualitative: SABR vs MTL-IBP fronts cross on CIFAR-10 eps = 2/255 and 8/255",
            kind="headline",
            no_control="a comparison among the four methods' fronts; no method is the paper's own"),
        Claim(
            id="sound",
            statement=("Certificates are sound: no test point certified by the bounds is broken by an "
                       "adversarial attack."),
            paper_value="implicit (certified accuracy <= adversarial accuracy); complete verifiers in the paper",
            kind="identity"),
    ),
)

_EXPORTS = {
    **{name: ".method" for name in (
        "METHODS", "TrainConfig", "make_mlp", "smoothed_eps", "ramp_fraction", "pgd_attack", "ibp_loss",
        "crown_ibp_loss", "sabr_loss", "mtl_ibp_loss", "train_certified", "certify", "evaluate", "dominates",
        "pareto_mask", "hypervolume_2d", "nat_gain_at_matched_cert", "suggest_config", "make_sampler",
        "run_study")},
    **{name: ".bounds" for name in (
        "input_box", "margin_spec", "ibp_bounds", "crown_ibp_lower", "margin_lower_bounds",
        "worst_case_logits")},
    **{name: ".setting" for name in ("PUBLISHED", "published_config", "load_data")},
    **{name: ".verify" for name in ("milp_verify", "exact_certify")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
