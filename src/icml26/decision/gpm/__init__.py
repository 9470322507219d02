"""GPM: Efficient Adaptive Testing via Gradient Path Matching Subset Selection for AI Education.

ICML 2026 (OpenReview XnK6Jr0i8D; only the abstract is public). Adaptive testing picks,
one at a time, the questions that let a short test estimate an examinee's ability as well as
the whole bank would. BECAT matched the selected subset's loss gradient to the full bank's
over the entire ability space; GPM matches them only along the optimisation path that leads
to the estimate, and uses these intermediate gradients, on training examinees whose full
responses are known, to learn an explicit selection policy that is then applied to new
examinees. The policy, its features and the training schedule are reconstructed here.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_EXP = "icml26.decision.gpm.experiment"

_COMMON = {"K": 10, "eta_inner": 0.5, "policy_lr": 3e-3, "hidden": 32, "batch": 64}

PAPER = Paper(
    slug="gpm",
    title="Efficient Adaptive Testing via Gradient Path Matching Subset Selection for AI Education",
    source="https://openreview.net/forum?id=XnK6Jr0i8D",
    cluster="decision",
    feasibility="A",
    substitution=(
        "Only the abstract is public, so GPM is reconstructed: a per-item MLP scorer (features at "
        "the current estimate: logit, P, P(1-P), Fisher information, D-optimal gain, ||a||, t/T) "
        "trained on examinees with full responses by straight-through Gumbel-softmax selection, "
        "K = 10 inner gradient steps (eta = 0.5) on the MAP loss of the selected items, and the "
        "loss sum_t sum_k ||g_S(theta_t^k) - g_Q(theta_t^k)||^2 (subset vs full-bank mean gradient "
        "along the path). Real datasets (ASSISTments, Eedi, EXAM) are replaced by simulated banks "
        "with known item parameters: a 1-D 2PL bank (where MFI is near-optimal) and a 3-D MIRT "
        "bank; baselines Random, MFI (D-optimal for MIRT; checked against catsim's MaxInfoSelector "
        "in 1-D), KLI and BECAT re-implemented from its paper. Accuracy = MSE to the true ability; "
        "'fewer questions' = shortest GPM test matching a baseline's full-length MSE. Banks of "
        "60-150 items and 8-15 questions instead of the paper's sizes."
    ),
    run=f"{_EXP}:run",
    figure=f"{_EXP}:figure",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            "n_items": 60, "n_train": 300, "n_test": 200, "test_length": 8, "train_iters": 30,
            **_COMMON}),
        "full": Profile("full", seeds=4, timeout_s=600, params={
            "n_items": 150, "n_train": 2000, "n_test": 400, "test_length": 15, "train_iters": 60,
            **_COMMON}),
    },
    claims=(
        Claim(
            id="fewer-than-becat",
            statement="GPM reaches the estimation accuracy of global gradient matching (BECAT) "
                      "with fewer questions.",
            paper_value="same accuracy with on average 20% fewer questions (real and synthetic data)",
            check=f"{_EXP}:check_fewer_than_becat",
            contradict=f"{_EXP}:contradict_fewer_than_becat",
            reference=0.8,
        ),
        Claim(
            id="fewer-than-best",
            statement="GPM reaches the accuracy of the best existing selection method with ~20% "
                      "fewer questions.",
            paper_value="on average 20% fewer questions than prior methods for the same accuracy",
            check=f"{_EXP}:check_fewer_than_best",
            contradict=f"{_EXP}:contradict_fewer_than_best",
            reference=0.8,
        ),
        Claim(
            id="beats-random",
            statement="The learned GPM policy estimates ability more accurately than random selection.",
            paper_value="GPM outperforms all baselines, random included, at every test length",
            check=f"{_EXP}:check_beats_random",
            contradict=f"{_EXP}:contradict_beats_random",
        ),
    ),
)

__getattr__ = lazy_exports(__name__, {
    "prob": ".method", "item_gradients": ".method", "map_estimate": ".method",
    "information": ".method", "select_random": ".method", "select_mfi": ".method",
    "select_kli": ".method", "select_becat": ".method", "becat_gains": ".method", "becat_expected_distance": ".method",
    "gpm_features": ".method", "make_policy": ".method", "select_gpm": ".method",
    "path_matching_loss": ".method", "train_gpm": ".method", "run_cat": ".method",
})
__all__ = ["PAPER", "prob", "item_gradients", "map_estimate", "information", "select_random",
           "select_mfi", "select_kli", "select_becat", "becat_gains", "becat_expected_distance", "gpm_features",
           "make_policy", "select_gpm", "path_matching_loss", "train_gpm", "run_cat"]
