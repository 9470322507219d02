"""What Does Preference Learning Recover from Pairwise Comparison Data? (arXiv:2602.10286).

Pukdee, Balcan and Ravikumar start from the triplet distribution ``(x, y+, y-)`` rather than
from an assumed Bradley-Terry model. The preference information in such data is the
conditional preference distribution (CPRD): the probability that ``a`` is recorded as the
winner given that the pair ``{a, b}`` was compared in context ``x``. A BT score represents the
CPRD exactly when its log-odds are cycle-consistent, which positive/negative conditional
independence of the triplet law guarantees (``s = log P+ - log P-``). Otherwise BT training
converges to the BT distribution closest in pair-frequency-weighted KL. How many triplets
recovery needs depends on the margin (distance of the CPRD from 1/2) and on the connectivity
of the comparison graph.

Public API: ``cprd``, ``bt_cprd``, ``cycle_inconsistency``, ``is_bt_representable``,
``ci_scores``, ``fit_bt``, ``fit_bt_pairs``, ``kl_projection``, ``fit_generative_bt``,
``algebraic_connectivity``, ``greedy_connectivity_design`` (method) and the triplet and
graph generators in ``setting``.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {
    "t1_items": 10, "t1_sizes": [2000, 20000, 200000],
    "t2_items": 8, "t2_p_cycle": 0.8, "t2_sizes": [1000, 10000, 100000],
    "items": 20, "budget": 2000, "l2": 0.01, "kappas": [0.25, 0.5, 1.0, 2.0], "design_pairs": 30,
}

PAPER = Paper(
    slug="bt-cprd",
    title="What Does Preference Learning Recover from Pairwise Comparison Data?",
    source="arXiv:2602.10286",
    cluster="alignment",
    feasibility="C",
    substitution=(
        "Theory paper: every statement is checked on finite response sets (8-20 responses, one "
        "context at a time, tabular scores) instead of neural reward models on LLM data. Kept: the "
        "CPRD definition, BT representability, positive/negative conditional independence, the "
        "discriminative BT log-loss (own Newton MLE, with choix as the peer), the weighted-KL "
        "projection, margin (score scale) and connectivity (Laplacian lambda_2 via networkx). "
        "Reconstructed: the generative BT objective, as the product family D ∝ exp(u_a + v_b) read "
        "as s = u - v (the paper's exact generative objective was not recoverable); it recovers the "
        "CPRD under conditional independence but is biased otherwise, so the KL-projection claim is "
        "restricted to the discriminative objective. Replaced: the paper's exact bound constants and "
        "its synthetic-experiment settings (not available to us) by our own instances; finite-sample "
        "fits on sparse graphs use a ridge of 0.01 (sum-of-losses scale)."
    ),
    examples="icml26.alignment.bt_cprd.method:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=3, params={**_COMMON, "t1_contexts": 2, "t2_reps": 3, "reps": 8},
                         timeout_s=60),
        "full": Profile("full", seeds=8, params={**_COMMON, "t1_contexts": 3, "t2_reps": 5, "reps": 30},
                        timeout_s=300),
    },
    claims=(
        Claim(
            id="ci-implies-bt", kind="identity",
            statement=("Under positive/negative conditional independence the CPRD is BT with "
                       "s = log P+ - log P-, and both BT objectives (discriminative, generative) recover it."),
            paper_value="theorem (exact); synthetic recovery shown qualitatively",
        ),
        Claim(
            id="kl-projection", kind="identity",
            statement=("When the CPRD is not BT-representable, discriminative BT training converges to the "
                       "pair-frequency-weighted KL projection of the CPRD onto the BT family."),
            paper_value="theorem (exact; stated for both objectives, checked here for the discriminative one)",
        ),
        Claim(
            id="margin", kind="headline",
            no_control="a dose-response claim about the data (error across margins, same graph and budget, "
                       "measured in one run); there is no method component to remove",
            statement="A larger margin (CPRD further from 1/2) makes recovery from a fixed budget easier.",
            paper_value="finite-sample bound improving with margin; synthetic margin amplification helps",
        ),
        Claim(
            id="connectivity", kind="headline",
            no_control="a dose-response claim about the data (error across comparison graphs, same scores and "
                       "budget, measured in one run); there is no method component to remove",
            statement="Better-connected comparison graphs give smaller estimation error at a fixed budget.",
            paper_value="finite-sample bound improving with connectivity; synthetic connectivity enhancement helps",
        ),
        Claim(
            id="design", kind="headline",
            control="the same number of pairs added at random to the same spanning tree",
            statement="Choosing which pairs to collect (raising connectivity) removes the bottleneck.",
            paper_value="optimising data collection improves recovery (synthetic, qualitative)",
            check=C.beats("t5_err_greedy", "t5_err_random", better="lower", test="t",
                          label="greedy lambda_2 design (RMS score error)", control_label="random pairs"),
        ),
    ),
)

_API = ["algebraic_connectivity", "bt_cprd", "ci_scores", "comparison_counts", "cprd", "cprd_error",
        "cycle_inconsistency", "fit_bt", "fit_bt_pairs", "fit_generative_bt",
        "greedy_connectivity_design", "is_bt_representable", "kl_projection", "pair_weights",
        "weighted_kl"]
_SETTING = ["bt_triplets", "cyclic_triplets", "dirichlet_triplets", "edges_to_weights", "graph_edges",
            "product_triplets", "random_tree", "sample_triplets"]

__getattr__ = lazy_exports(__name__, {**{k: ".method" for k in _API}, **{k: ".setting" for k in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
