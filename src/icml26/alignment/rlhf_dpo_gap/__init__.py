"""Understanding the Performance Gap in Preference Learning: A Dichotomy of RLHF and DPO.

Shi, Song, Zhou, Zhang, Fazel, Du (arXiv:2505.19770). The paper compares two-stage RLHF
(fit a Bradley-Terry reward in a class F, then maximise the KL-regularised value inside a
policy class Pi), offline DPO (fit the policy's implicit reward directly) and online DPO
(re-sample pairs from the current policy with the PILAF sampler). Under exact
optimisation, which learner wins depends on which class is mis-specified: RLHF when only
the policy class is, DPO when only the reward class is, online DPO when the classes are
isomorphic and both are. With finite samples and a sparse reward, learning the reward
first needs fewer samples than DPO.

Here the three learners are solved exactly on finite bandits (population losses,
L-BFGS, multi-start where the problem is not concave), each proposition is checked on
random instances and on 3-arm strict-gap examples, and the sparse-reward separation is
checked on a rebuilt construction (the reward sparse in its own features, dense in the
policy's). The instances live in ``setting``, the learners in ``method``.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"K": 6, "betas": (0.3, 1.0), "policy_dims": (1, 2), "reward_dim": 2,
           "ex_R": (1.0, 2.0, 4.0, 8.0), "ex_betas": (0.05, 0.3, 1.0),
           "K_iso": 8, "iso_dim": 2, "iso_beta": 1.0, "lr": 0.5, "steps": 600, "local_eps": 0.2,
           "sparse_K": 400, "sparse_d": 100, "sparse_k": 3, "sparse_beta": 1.0,
           "sparse_extra": 300}

PAPER = Paper(
    slug="rlhf-dpo-gap",
    title="Understanding the Performance Gap in Preference Learning: A Dichotomy of RLHF and DPO",
    source="arXiv:2505.19770",
    cluster="alignment",
    feasibility="C",
    substitution=(
        "Kept: the paper's finite-bandit setting (one prompt, finite responses, Bradley-Terry "
        "preferences, V = E r* - beta KL), its learners under exact optimisation (population "
        "losses with offline pairs from pi_ref x pi_ref), its four reward/policy-class conditions "
        "(tabular, linear and log-linear classes) and the PILAF sampler for online DPO (pairs from "
        "pi_theta x pi_theta or from pi+ x pi-, pi+- ∝ pi_theta exp(+-h_theta) = pi_theta^(1+-beta) "
        "pi_ref^(-+beta), as in PILAF's Table 1 and its interpolated/extrapolated policies), solved "
        "exactly: the Bradley-Terry fits by the shared Newton solver (alignment._preferences."
        "fit_linear_bradley_terry), the non-concave value maximisation by multi-start L-BFGS. Replaced: the "
        "propositions are checked on random instances (K=6 or 8) and on our own 3-arm strict-gap "
        "examples built like the appendix ones (their exact numbers were not recoverable). The "
        "Sec. 4 sparse-reward construction was not recoverable either: it is rebuilt (400 "
        "responses, reward features in R^100 with a 3-sparse reward; the policy class uses the "
        "same features rotated by a random orthogonal matrix, so the reward is dense there, plus "
        "300 features the reward does not use, so the policy class holds every policy; RLHF and "
        "DPO are each fitted with an l1- and an l2-penalised BT fit, 5-fold CV, on their own "
        "features, and compared within each penalty family; the earlier construction, rotation "
        "only, made the two l2 fits identical; full run of that rebuild, 6 seeds: RLHF ahead in >= 5/6 "
        "seeds at every n within both families and against DPO's better penalty, and DPO needs 6.2x "
        "(l1) and 5.9x (better penalty) the samples to match RLHF at n=50, but only 1.6x with l2 for "
        "both, below the pre-registered 2x, so the claim is partly reproduced; review after the full run, "
        "text only, verdict unchanged: the 2x rule reads the smallest n, where the uniform policy's gap is "
        "about 1.47 (1.30-1.66 over 300 fresh instances) and the l2 learners are at 1.25 and 1.34, close to "
        "it; with RLHF's gap at n=100 or 200 as the target, DPO-l2 needs 3.0x and 2.9x the samples; and "
        "with l2 for both the rotation is invisible, so that comparison measures 100 against 400 features, "
        "not sparsity). The "
        "paper's LLM experiments (GPT-2, safe-RLHF) are not run. The probability with which PILAF "
        "mixes its two pair sources could not be read in the stored PILAF text (searched again for "
        "issue 16: PILAF's Table 1 names the two sources, not their probabilities); we mix them 1 : "
        "Z+Z- (Z+- = E_pi exp(+-h)), the only mix under which PILAF's first-order gradient "
        "property (expected DPO gradient = -c grad V) holds exactly, and report the half-and-half "
        "mix (normalised pi+-) that the earlier runs used: both give the same median gain over "
        "offline (0.00295 in the full run); per instance they differ by up to 0.026 in V, where they "
        "settle on different fixed points. Review note: the 1 : Z+Z- property was re-derived and "
        "checked against finite differences of V (its residual from -c grad V shrinks linearly "
        "with |r* - h|, the half-and-half mix keeps a residual that grows with Z+Z- - 1 >= 0), "
        "so the half-and-half mix is the exact one only when Z+Z- = 1."
    ),
    examples="icml26.alignment.rlhf_dpo_gap.method:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=60, params={
            **_COMMON, "n_e0": 4, "n_e1": 10, "n_e2": 10, "n_e3": 10, "n_e3_local": 6, "sparse_n": (100, 400)}),
        "full": Profile("full", seeds=6, timeout_s=400, params={
            **_COMMON, "n_e0": 10, "n_e1": 40, "n_e2": 40, "n_e3": 25, "n_e3_local": 25,
            "sparse_n": (50, 100, 200, 400, 800)}),
    },
    claims=(
        Claim(id="well-specified-equal", kind="identity",
              statement="With realizable reward and policy classes, RLHF and DPO both reach the optimal "
                        "regularised value (Prop. 1).",
              paper_value="Proposition (exact equality V_RLHF = V_DPO = V*)"),
        Claim(id="rlhf-wins-policy-misspec", kind="headline",
              control="DPO on the same reward and policy classes",
              statement="Reward class realizable, policy class mis-specified: RLHF >= DPO, strictly in "
                        "examples where log-linear DPO stays uniform whatever the reward scale and beta.",
              paper_value="Proposition (V_RLHF >= V_DPO; strict 3-action log-linear example, DPO = uniform)"),
        Claim(id="dpo-wins-reward-misspec", kind="headline",
              control="two-stage RLHF on the same reward and policy classes",
              statement="Policy class realizable, reward class mis-specified: DPO recovers pi* and "
                        "DPO >= RLHF, strictly in examples.",
              paper_value="Proposition (V_DPO = V* >= V_RLHF; strict example with a linear reward class)"),
        Claim(id="isomorphic-equal", kind="identity",
              statement="With isomorphic reward and policy classes (both mis-specified), RLHF and DPO "
                        "return the same policy.",
              paper_value="Proposition (V_RLHF = V_DPO under isomorphic classes)"),
        Claim(id="online-dpo-wins", kind="headline",
              control="online DPO with plain on-policy pairs (pi_theta x pi_theta) instead of PILAF",
              statement="With isomorphic, doubly mis-specified classes, online DPO with the PILAF sampler "
                        "can outperform both RLHF and DPO. (Changed by review after the full run: partly -> "
                        "not-reproduced, the control put in the method's place reads the same partly (online DPO "
                        "with on-policy pairs beats max(RLHF, DPO) by > 1e-3 in 63% of 150 instances, worse in 8%, "
                        "p<1e-4, as PILAF does in 64% / 6%; PILAF vs on-policy: ahead in 41%, behind in 59%, "
                        "median -2.6e-05, sign test p=0.986). What holds is that online DPO beats both offline "
                        "learners here with either sampler; what PILAF adds over on-policy sampling is not "
                        "reproduced (near the class, reported only, PILAF captures more of the headroom in 81%, "
                        "but by a median 3.7e-05 in V, below the 1e-3 margin).)",
              paper_value="Theorem (online DPO can be strictly better than RLHF = DPO); no numeric value"),
        Claim(id="sparse-rlhf-fewer-samples", kind="headline",
              control="DPO with the same penalty family (l1, and l2) on the policy's features; "
                      "and DPO with its better penalty per seed",
              statement="With a ground-truth reward that is sparse for the reward model but not for the "
                        "policy's parametrisation, RLHF needs significantly fewer samples than DPO to "
                        "reach a good policy (Sec. 4).",
              paper_value="Theorem: sample-complexity separation in favour of RLHF (rates not recovered); "
                          "LLM check: reward-model vs DPO accuracy at 1k-9k pairs"),
    ),
)

_API = ("bt_preference_matrix", "value", "optimal_policy", "log_linear_policy", "implicit_reward",
        "population_bt_loss", "fit_reward_mle", "best_policy_in_class", "rlhf", "dpo",
        "pair_distribution", "online_dpo", "reference_pairs", "fit_bt_from_samples")
_SETTING = ("random_instance", "three_arm_example", "sparse_instance", "sample_comparisons")
__getattr__ = lazy_exports(__name__, {**{name: ".method" for name in _API},
                                      **{name: ".setting" for name in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
