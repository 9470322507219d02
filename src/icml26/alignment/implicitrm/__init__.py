"""ImplicitRM: Unbiased Reward Modeling from Implicit Preference Data for LLM alignment (arXiv:2603.23184).

A reward model learned from implicit feedback (clicks, copies): positive-only, with an
action propensity that depends on the response. ImplicitRM stratifies samples into four
latent groups (preferred / not x active / passive) with a stratification model and maximises
a likelihood over them. The paper's strata, stratification and objective were read second-hand,
from public review notes that quote its source (see ``method``); they match the (R, A)
factorisation the package fits. The package holds that model, its controls (naive BCE, IPS with
an estimated propensity, nnPU, Elkan-Noto) and the simulated logs of ``setting``.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"n_test": 4000, "lr": 1e-2, "batch": 512, "hidden": 32, "beta": 0.5}

PAPER = Paper(
    slug="implicitrm",
    title="ImplicitRM: Unbiased Reward Modeling from Implicit Preference Data for LLM alignment",
    source="arXiv:2603.23184",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.implicitrm.method:EXAMPLES",
    substitution=(
        "Kept: the problem (positive-only implicit feedback, a response-dependent action propensity), a "
        "four-group latent stratification with a stratification model, and a likelihood objective over the "
        "groups; the unbiasedness statement checked by Monte Carlo; downstream use of the reward through the "
        "KL-optimal policy and best-of-8. Replaced: LLM "
        "backbones and the paper's implicit-preference datasets by synthetic logs (content features from a "
        "_preferences homogeneous population's utility, presentation covariates correlated with the content, "
        "a propensity in [0.05, 0.9] that favours worse content), MLP reward models (4 -> 32 -> 1), and RLHF "
        "by the exact KL-optimal policy over 8 candidates per prompt. Two generators are reported: one that "
        "matches the fitted model and one it does not (propensity depends on the preferred content, "
        "bad responses draw actions at 0.15 x the propensity). The response-dependent propensity is ours "
        "(the substrate's implicit_feedback is position-based). Measured after the full run (no check changed): "
        "in the separable world the oracle-label model's AUC is 0.918 and ImplicitRM's 0.917, so the best control "
        "(0.896) leaves little more than the pre-registered 0.02 margin of headroom; IPS with the true propensity "
        "(a reference, not a control) reaches 0.913 / 0.909 AUC on the two generators. "
        "Revised (third session: text, plus one function and an eps option the runs do not call; no recipe, "
        "check or threshold changed): the first "
        "session had to GUESS the method from the abstract and introduction. The method section (Sec. 2.2-3.3, "
        "Table 1, Eq. 6, the objective, Algorithm 1, Theorem 3.2, App. A) is still not readable here (the stored "
        "arXiv HTML / PDF mirrors hold the opening pages only; the code mirror answered 401), but public "
        "koala.science review notes quote its LaTeX source, and by them the guess was right in substance: the "
        "strata are PA/PP/NA/NP = (r*, a) in {1,0}^2 with r* the true preference and a the user's activity, only "
        "PA shows an action; the stratification (Eq. 6) renormalises the masses r a, r(1-a), (1-r)a, (1-r)(1-a) of "
        "a reward model and a separate action model given the observed feedback (+ epsilon smoothing; the printed "
        "Eq. 6 swaps the PP/NA labels, a misprint the reviewers flag, and we follow Table 1 and App. A); the "
        "objective is E_pref + E_prop, cross-entropies of the two models against the soft labels phi_PA + phi_PP "
        "and phi_PA + phi_NA from the current models (an EM/ELBO form, alternated in Algorithm 1); Theorem 3.2 "
        "says E_pref is unbiased for the oracle loss when the posteriors are correct, which is our identity claim. "
        "We still fit the marginal likelihood of F = R*A: its gradient equals that of E_pref + E_prop with "
        "posteriors refreshed every step at epsilon = 0 (Fisher's identity, now a unit test on "
        "method.implicitrm_elbo_loss, the paper's printed form), so the stored runs optimise the paper's objective "
        "up to its unknown epsilon and refresh schedule. Still ours: the heads' inputs (reward on the content c, "
        "propensity on the presentation covariates s; this exclusion restriction identifies the factorised "
        "model here, the paper's heads read (prompt, response)), network sizes and all hyperparameters. The paper's "
        "baselines include IPS and doubly robust estimators and it scores reward models by MAE / R^2 on graded "
        "labels (HelpSteer, UltraFeedback, PKU-SafeRLHF), which we do not. Full re-run after this revision "
        "(committed first): every stored metric within 3e-7 of the previous rows, verdicts unchanged (more-accurate "
        "partly: AUC +0.021 over the best control on the separable generator, >= 0.02 in 2/5 seeds, the other three "
        "comparisons 5/5; unbiased max relative gap 0.0018; better-policy 5/5 on both generators). On dev seed 100 "
        "training the printed E_pref + E_prop instead reproduces the fit at epsilon = 0 and loses 0.005-0.02 "
        "AUC at epsilon = 0.01, so the paper's unknown epsilon could matter at the margin."
    ),
    profiles={
        "quick": Profile("quick", seeds=3, timeout_s=120, params={
            **_COMMON, "n_train": 3000, "steps": 250, "n_prompts": 200, "n_mc": 200000}),
        "full": Profile("full", seeds=5, timeout_s=400, params={
            **_COMMON, "n_train": 20000, "steps": 1000, "n_prompts": 500, "n_mc": 400000}),
    },
    claims=(
        Claim(id="more-accurate", kind="headline",
              statement="ImplicitRM learns more accurate reward models from implicit feedback than methods that "
                        "ignore missing negatives or selection bias.",
              paper_value="qualitative: ImplicitRM best across implicit-preference datasets and backbones "
                          "(benchmark numbers not retrieved)",
              control="best of naive BCE on the action, IPS with an estimated propensity, nnPU with the class "
                      "prior, pulearn Elkan-Noto"),
        Claim(id="unbiased", kind="identity",
              statement="The objective is unbiased: at the true parameters the expected loss equals the loss on "
                        "fully labelled data (the paper's Theorem 3.2, as quoted in review notes: with correct "
                        "group posteriors, E[E_pref] = the oracle cross-entropy; here E[soft-label loss with "
                        "q = phi_PA + phi_PP] = oracle cross-entropy at the true r*, e*, for any candidate reward).",
              paper_value="Theorem 3.2 (unbiasedness of E_pref given correct posterior stratification)",
              check=C.close("separable/unbiased/max_rel_gap", to=0.0, tol=0.01,
                            label="max relative gap, soft-label loss vs oracle loss (Monte Carlo)")),
        Claim(id="better-policy", kind="headline",
              statement="Reward models trained with ImplicitRM lead to better downstream policies.",
              paper_value="qualitative: improved downstream RLHF (numbers not retrieved)",
              control="the KL-optimal policy under each control's reward (the best of them per seed)"),
    ),
)

_API = ("implicitrm_nll", "implicitrm_elbo_loss", "stratum_posteriors", "soft_label_loss", "RewardModel",
        "fit_implicitrm", "fit_naive", "fit_oracle", "fit_ips", "fit_nnpu", "fit_elkan_noto", "estimate_propensity",
        "auc", "pairwise_accuracy")
_SETTING = ("ImplicitWorld", "make_world", "draw_feedback", "GENERATORS")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
