"""Eating for a Sustainable Planet: constraint-aware personalised diet recommendation (SusDiet, arXiv:2608.24274).

SusDiet ranks recipes for a user by ``F = y_hat - alpha_u^T (s_r - lambda_u)``: a learned
preference score minus a Lagrangian-style penalty with learnable per-user trade-offs
alpha_u and thresholds lambda_u, on indicators (nutrition, environment, cost, animal
welfare) predicted by a multi-task MoE encoder. As written, ``alpha_u^T lambda_u`` is one
number per user, so lambda_u changes no ranking; the package implements that form and a
hinge ``alpha_u^T max(0, s_r - lambda_u)`` in which the threshold matters, and applies the
penalty to the predicted indicators s_hat_r and to the embedding z_r.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"n_test": 3, "tol_strength": 0.75, "lr": 1e-3, "beta1": 0.5, "beta2": 1.0, "beta3": 1e-4, }

PAPER = Paper(
    slug="susdiet",
    title=("Eating for a Sustainable Planet: Personalized Sustainable Diet Recommendation via Constraint-Aware "
           "Decision-Making Modeling"),
    source="arXiv:2608.24274",
    cluster="decision",
    feasibility="B",
    examples="icml26.decision.susdiet.experiment:EXAMPLES",
    substitution=(
        "Keeps: the task (max preference s.t. per-user indicator thresholds, Eq. 1) and its relaxation F = y_hat - "
        "alpha_u^T(s_r - lambda_u) (Eq. 2) with learnable per-user alpha_u, lambda_u; the recipe encoder "
        "(ingredient-quantity fusion, 4 Transformer experts with masked mean pooling and a softmax gate, LayerNorm "
        "embedding z_r, 4 regression heads, signed-log/quantile-clip/z-score targets with nutrition negated, "
        "uncertainty-weighted multi-task loss Eq. 5); the multi-interest preference model (history embeddings + "
        "positions, MLP and self-attention; id/ingredient/region views of the target with self-attention among "
        "them, each querying the history; y_hat = <e_u, e_r>); the joint loss Eq. 12 (rating MSE on normalised "
        "ratings + beta1 BPR + beta2 penalty + beta3 l2 on the constraint parameters, Adam lr 1e-3 from the "
        "paper's grid, beta1 0.5, beta2 1.0, beta3 1e-4 from its ranges); NDCG/Recall@10 and top-10 indicator "
        "means. Replaces: the SusDiet data (149k recipes, GPT-derived indicators, 180k users) by a generator of "
        "ingredients (taste clusters, animal products with high CO2e and welfare cost), recipes (region-biased "
        "ingredients with gram amounts; indicators per 100 g as mass-weighted means) and users with a hidden, "
        "heterogeneous tolerance vector tau_u that lowers the utility of recipes above it; sequential rated picks, "
        "last 3 held out; the tolerance's pull gamma_u = 0.75 x LogNormal(0, 0.3) per unit of excess (half the "
        "spread of tastes; fixed before the full run). The indicator encoder also trains on an extra pool of "
        "generated recipes (2,000 quick / 3,000 full; the catalog is 250 / 500), standing in for the paper's 149k "
        "recipes; its R^2 is measured on held-out catalog recipes. Smaller models: d = 24/32, single-head attention, one layer per expert. Our readings: "
        "the encoder is trained first on Eq. 5 and frozen (Eq. 12 has no L_task term), so the penalty never "
        "reaches y_hat and ranking by y_hat is exactly the beta2 = 0 control of the same run; alpha_u = "
        "softplus(a_u) initialised at 0.5 (the paper's 'alpha = 0.5'); BPR negatives drawn uniformly from all "
        "recipes; the GRAPE baseline is a green loss (BPR preferring the recipe with the lower uniform mean of "
        "normalised indicators) added to the same model, at weights 1, 3, 10, 30 (full; 3, 30 quick), trained "
        "beside the main model from the same initialisation on the same batches (one vmapped loop); controls are "
        "read at our NDCG along their Pareto front (NDCG vs violations); claim 3's level-matched controls reuse "
        "the hinge form's learned alpha_u with lambda = the users' mean lambda_u, or the 80th percentile of the "
        "user's history's s_hat shifted to that mean; the preference model trains 200 steps of batch 128 in full "
        "(about 4.5 epochs; cut from 400 x 256 after review so that 5 seeds fit 3 minutes), so lambda_u, which "
        "only drifts up, is read at that step budget; the 'violation' metric is the fraction of recommended "
        "(recipe, dimension) pairs above the hidden tau_u. As written, alpha_u^T lambda_u is constant per user, "
        "so lambda_u changes no ranking, and the penalty loss pushes lambda_u up without bound (held only by the "
        "l2 term); we run the written form and a hinge alpha_u^T max(0, s_r - lambda_u), each on s_hat_r (N = 4; "
        "decides claims 1-2) and on z_r (D-dim, Eq. 8 as printed; reported); claim 3 is decided with the hinge. "
        "Peers: cornac BPR and ItemKNN; reference: the exact constrained top-10 on the true utilities (HiGHS)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params=_COMMON | {
            "n_ingredients": 40, "n_recipes": 250, "n_users": 150, "n_inter": 18, "hist_len": 10, "d": 24,
            "enc_steps": 250, "enc_batch": 64, "n_pool": 2000, "steps": 150, "batch": 128,
            "grape_weights": [3.0, 30.0], "oracle_users": 20, "peers": False}, timeout_s=120),
        "full": Profile("full", seeds=5, params=_COMMON | {
            "n_ingredients": 80, "n_recipes": 500, "n_users": 300, "n_inter": 23, "hist_len": 20, "d": 32,
            "enc_steps": 300, "enc_batch": 128, "n_pool": 3000, "steps": 200, "batch": 128,
            "grape_weights": [1.0, 3.0, 10.0, 30.0], "oracle_users": 60, "peers": True}, timeout_s=600),
    },
    claims=(
        Claim(
            id="more-sustainable",
            statement=("Ranking by the constraint-aware score makes the top-10 more sustainable without losing "
                       "preference accuracy: NDCG@10 at least 0.9x that of the same model ranked by preference "
                       "alone, and the top-10 indicator means better on at least 3 of 4 dimensions, in >= 80% of "
                       "seeds (decided with the written form on s_hat). Revised after review of the first full run "
                       "(before the re-run): global re-ranking by one alpha, the naive alternative, read off its alpha "
                       "grid at our NDCG, is added as a second control; reproduced only if our top-10 is also better "
                       "than its on >= 3 of 4 indicators in >= 80% of seeds, partly if only the first rule holds. "
                       "(First full run, before review: the written form kept only 0.75x the preference-only NDCG, "
                       "0/5 seeds; the hinge on s_hat passed in 5/5 and the written form on z_r in 4/5; the learned "
                       "alpha_u were ~0.58 for every user, sd 0.03.) (Revised full run, noted after it: the written form keeps "
                       ">= 0.9x the NDCG in 1/5 seeds (0.044 vs 0.055) and beats global re-ranking at its NDCG on >= 3 "
                       "of 4 indicators in 2/5: its top-10 indicator means are those of global re-ranking to the second "
                       "decimal (alpha_u 0.52, sd across users 0.013). The hinge on s_hat passes the first rule in 5/5.)"),
            paper_value=("Table 4 (top-20): removing the constraint raises NDCG 0.0159 -> 0.0173 and worsens all four "
                         "indicators (nutrition 37.59 -> 34.25, environment 66.29 -> 70.86, economy 4.94 -> 7.23, "
                         "welfare 3.03 -> 5.96)"),
            kind="headline", control=("preference-only ranking (beta2 = 0, no penalty at ranking), same run; global "
                                      "re-ranking with one alpha at matched NDCG")),
        Claim(
            id="beats-preference",
            statement=("Sustainability as learnable constraints beats sustainability as a preference: at matched "
                       "NDCG@10, fewer violations of the users' (hidden) tolerances than a GRAPE-style green loss and "
                       "than global re-ranking with one trade-off weight (written form on s_hat). Revised after review "
                       "of the first full run (before the re-run): the GRAPE-style model is trained at weights 1, 3, 10 "
                       "and 30 (weight 0 = preference-only) so that its NDCG range covers ours; a control counts only "
                       "where our NDCG lies inside its range (>= 80% of seeds, else not checkable); the 4/5 count is "
                       "replaced by a one-sided Wilcoxon test over the matched seeds (p < 0.05; 5 seeds is the fewest "
                       "that can reach it) on the relative violation reduction beyond a 5% margin fixed in advance. "
                       "Reproduced if both controls are beaten; partly if one is, or one is not checkable. (First full "
                       "run: one untuned GRAPE weight 1.0 never reached our NDCG, 0/5 seeds; global re-ranking beaten "
                       "by +0.0017 on average, 4/5 seeds, no paired test.) (Revised full run, noted after it: NDCG matched for "
                       "both controls in 5/5 seeds; GRAPE-style beaten, violations 0.019 vs 0.036, relative -39%, "
                       "Wilcoxon p = 0.031; global re-ranking not beaten, 0.019 vs 0.018, relative +2% more, 2/5 seeds "
                       "lower: the learned per-user trade-off adds nothing over one global alpha.) (Changed by "
                       "review after the full run: partly -> not-reproduced, the control put in the method's place "
                       "reads the same partly (global re-ranking at our NDCG beats the GRAPE-style model by +42.2%, "
                       "Wilcoxon p = 0.031, as we do by +39.4%, p = 0.031, and we do not beat it, -2.0%, p = 1): "
                       "the one part we pass does not tell the learnable constraints from one global alpha. partly "
                       "now needs the beaten control not to be beaten equally by the other.)"),
            paper_value=("Table 2 (top-10): Ours NDCG 0.0136, economy 4.87, welfare 2.92 vs GRAPE NDCG 0.0115, "
                         "economy 5.15, welfare 5.25 (environment 67.87 vs 69.58)"),
            kind="headline", control="GRAPE-style green loss (4 weights) and global re-ranking with one alpha (grid), at matched NDCG"),
        Claim(
            id="personal-thresholds",
            statement=("The learned thresholds are personalised: per-user lambda_u give fewer tolerance violations "
                       "than a non-personalised threshold and track the users' tolerances (Spearman > 0.2 in >= 80% "
                       "of seeds). Decided with the hinge form, since in the written form lambda_u changes no ranking. "
                       "Revised after review of the first full run (before the re-run): the jointly trained global "
                       "lambda drifted to another level (0.34 vs 0.15), so two level-matched controls, with the same "
                       "learned alpha_u, are added: one global lambda equal to the users' mean lambda_u, and a naive "
                       "per-user threshold (80th percentile of the user's history's s_hat, shifted to the same mean "
                       "level); each of the three controls must be beaten by a one-sided Wilcoxon test over seeds "
                       "beyond a 5% relative margin. (First full run: 0.079 vs 0.092 against the drifted global lambda, "
                       "reproduced under the first rule; a naive history quantile tracked tau better, Spearman 0.50 vs "
                       "0.45.) (Revised full run, noted after it: per-user lambda_u beat the level-matched global "
                       "lambda in 5/5 seeds but by 0.8% (below the 5% margin), the drifted trained global lambda by "
                       "9% (p = 0.031, not beyond the margin: p = 0.16), and lost to the level-matched history "
                       "quantile by 30% (0.067 vs 0.051); Spearman 0.41 vs the quantile's 0.48. lambda_u moved only "
                       "from 0 to 0.058 in 200 steps (sd 0.019 across users): its level is set by the step budget.)"),
            paper_value="Table 6: lambda_u spread across users, e.g. environment P10-P90 46.11-92.83",
            kind="headline", control=("one global lambda at the users' mean lambda_u; a per-user history-quantile "
                                      "threshold at the same level; the jointly trained global lambda (all hinge)")),
        Claim(
            id="written-lambda-inert",
            statement=("In the written score F = y_hat - alpha_u^T(s_r - lambda_u) the term alpha_u^T lambda_u is one "
                       "number per user, so every user's top-10 is the same with the learned lambda_u, with lambda = 0 "
                       "and with a random lambda."),
            paper_value="implied by Eq. 2 (the paper does not discuss it)",
            kind="identity",
            check=C.threshold("identity/written_same_topk", at_least=1.0,
                              label="fraction of users with an identical top-10")),
        Claim(
            id="susdiet-benchmark",
            statement="SusDiet's benchmark numbers on the SusDiet dataset (top-10 NDCG 0.0136, Recall 0.0223).",
            paper_value="Table 2: NDCG@10 0.0136, Recall@10 0.0223, nutrition 39.14, environment 67.87",
            kind="headline", no_control="numbers on a dataset we do not have",
            uncheckable="the SusDiet dataset (recipes, GPT-derived indicators, HUMMUS/Food.com users) is not available",
            check=C.threshold("written_s/ndcg10", at_least=0.0136, label="NDCG@10 (synthetic world, not comparable)"),
            reference=0.0136),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "RecipeEncoder", "PreferenceModel", "ConstraintParams", "penalty", "decision_score", "uncertainty_weighted_loss",
    "train_susdiet", "constrained_topk", "ndcg_at_k", "recall_at_k", "violation_rate", "topk", "green_loss")}
_EXPORTS |= {"make_world": ".setting", "normalise_indicators": ".setting"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
