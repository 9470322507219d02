"""RePO: A Regret Minimization Framework on Preference Learning in Large Language Models (arXiv:2606.09124).

RePO is a DPO-compatible offline preference loss that scores a response by a token-level regret:
the policy's log-probability minus a running mean of the behaviour/policy log-ratio over the rest
of the response (the future term), mean-normalised, against the reference, with an asymmetric
weight lambda on the rejected side. RePO_det drops the behaviour log-probabilities. The package
holds both losses with both window conventions of the released code (``method``), a char-level
TinyLM arithmetic world (``setting``) and the comparison with DPO, IPO, SimPO and RePO without
its future term (``experiment``).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"pretrain_check": 25, "noise": 0.3, "tau": 1.2, "batch": 32, "alpha": 1.0, "simpo_gamma": 0.3, "pairs_per_prompt": 7,
           "dpo_betas": [2.0], "ipo_betas": [0.5], "simpo_betas": [2.5]}

PAPER = Paper(
    slug="repo",
    title="RePO: A Regret Minimization Framework on Preference Learning in Large Language Models",
    source="arXiv:2606.09124",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.repo.method:EXAMPLES",
    substitution=(
        "Kept: the exact token-level RePO and RePO_det losses of the released code (per-step score l_t minus the "
        "running mean of b - l over the rest of the response, both window conventions, the vectorised one by "
        "default; mean normalisation; g = alpha (S - c_ref S_ref); -log sigmoid(g+ - lambda g-), lambda = 0.5, "
        "c_ref = 1), offline pairs from a behaviour policy mu whose per-token log-probabilities are stored, "
        "math pairs = correct vs incorrect rollouts of the same prompt, DPO/IPO/SimPO baselines (the "
        "_preferences losses). Replaced: Qwen3 / Llama-3.1 with LoRA by a 2-layer char-level TinyLM (d = 32) "
        "pretrained per seed on icml26.tasks level-1 arithmetic restricted to + and - (answers wrong in 30% of "
        "its training data, so pi_ref is right about a third of the time); the completion is '#<answer>' plus "
        "EOS (3-4 tokens: a longer scratchpad that copies the operands made the tiny model's correct rollouts "
        "mostly garbled and was dropped); mu = pi_ref at temperature 1.2; MetaMathQA by 400 training prompts x 8 "
        "rollouts, every incorrect rollout of a prompt paired with a correct one (up to 7 pairs per prompt); "
        "UltraFeedback by one pair of distinct rollouts per prompt labelled by a two-type latent-utility "
        "population over (correct, closeness of the answer, brevity); benchmarks by greedy success on the "
        "test problems (since the third session all 200 problems of the world; see (2) below) and the "
        "true-utility win rate against pi_ref. One recipe and one tuning protocol "
        "for every arm: full fine-tuning with Adam, 60 steps of 32 pairs, the learning rate chosen per arm, "
        "seed and setting on validation from the common grid {1e-4, 3e-4}; the loss scale is fixed per arm "
        "(DPO beta 2, IPO beta 0.5, SimPO beta 2.5 with gamma 0.3, RePO and its variants alpha 1), not tuned. "
        "Revised (second session, pre-registered on dev seeds 100-103) after the first full run, in which DPO "
        "(beta from {0.5, 2, 8}, lr 3e-4, 40 steps, one pair per prompt) raised pi_ref's greedy success by only "
        "+0.003 (0.394 -> 0.397) and both headline claims were not-checkable: on dev seeds lr 3e-4 with one "
        "pair per prompt moved DPO by -0.10 to +0.04; pairing every incorrect rollout with a correct one (the "
        "rejected side then covers pi_ref's own likely mistakes, not one random sample) and a learning rate "
        "chosen on validation gave DPO +0.055 to +0.13. The beta grid was replaced by the common lr grid to "
        "keep the tuning the same for every arm within the CPU budget. Measured in the second full run (no "
        "check or gate changed): DPO's gain over pi_ref is +0.017 (seed mean; 0.394 -> 0.411; per seed -0.080 "
        "to +0.165, >= 0.03 in 5/10), so the gate (>= 3 points) still fails and both headline claims stay "
        "not-checkable. On these numbers RePO (0.457 math, 0.505 human win rate) passes all 8 comparisons "
        "(wins 7-10/10, every 90% CI lower end >= 0; against RePO without the future term only just: 7/10, "
        "+0.006 and +0.001) and RePO_det (0.449, 0.510) is above DPO and within 1 point of RePO in both "
        "settings: both claims would read reproduced. The seed-to-seed spread of pi_ref itself (greedy "
        "success 0.225 to 0.570 after 300 pretraining steps) dominates the noise of the DPO gain: DPO lowers "
        "success in every seed where pi_ref starts at >= 0.44 (4 profile seeds, 1 dev seed). A post-run probe on "
        "dev seeds 104-111 (DPO alone, nothing re-run on the profile seeds) gave mean gains of +0.026 (beta 2, "
        "lr 1e-4, 60 steps), +0.029 (120 steps), -0.011 (lr 3e-4), -0.011 (beta 8) and -0.012 (beta 0.5): no "
        "simple change of lr, beta or steps clears the gate reliably in this world. "
        "Revised (third session, pre-registered on dev seeds 112-151 before the third full run; chosen by pi_ref's "
        "spread and DPO's gain over pi_ref, never by RePO against a control). (1) Calibrated pi_ref: pretraining "
        "(cosine lr schedule over a cap of 600 steps) stops at the first multiple of 25 steps from step 100 at which "
        "pi_ref's greedy success on 100 calibration problems reaches 0.30, so that no seed starts near the top. "
        "A DPO-only probe (dev seeds 112-123) gave DPO +0.079 on average (-0.010 to +0.180; pi_ref 0.275-0.43) "
        "with this stop, against -0.02 to +0.065 with a stop at 0.20 (seeds 113-116); noise 0.5 instead of 0.3 "
        "(seeds 136-141) gave +0.062 against +0.081 and was not taken. (2) The level-1 world has only 200 "
        "problems (operands 0-9, + or -), all seen in pretraining and about 86% of them in a seed's preference "
        "prompts (400 draws), so 'held-out' never meant unseen; the test set is now all 200 problems once (success on the whole world) instead of "
        "200 draws with replacement, which removes the test-sampling part of the noise; validation (60 draws) "
        "and calibration (100 draws) are separate draws from the same world. With (1) on 200 draws (seeds "
        "124-141) DPO gained +0.047 on average (> 0 in 14/18); with (1) and (2), the recipe run here, on seeds "
        "142-151: +0.066 (-0.025 to +0.145, > 0 in 8/10), pi_ref 0.275-0.465. (3) Diagnosis of the seeds where "
        "DPO lowers greedy success (3 dev seeds, re-run with other pairs): DPO raises log pi(correct answer) on "
        "75-79% of the 200 problems (mean +0.10 to +0.15 nats), no output is malformed, and greedy success moves "
        "by the balance of answers flipping to right and to wrong (8 vs 23, 20 vs 13, 40 vs 15): no displacement "
        "of the correct answer, a small shift read out through a noisy argmax. (4) Checks, made per seed: the "
        "gate now also needs a premise, pi_ref's success in [0.2, 0.5] in >= 8/10 seeds, and a per-seed sign "
        "that training works, DPO raising the mean log-prob of the correct answer (new metric) in >= 7/10 seeds, "
        "besides the unchanged seed-mean gain >= 3 points; det-competitive now needs RePO_det above DPO in >= "
        "7/10 seeds with the paired-bootstrap 90% CI not below 0 and the mean and median over seeds of RePO_det - "
        "RePO >= -0.01 (it decided on seed means only). Metric, arms, losses, grids and steps are unchanged; "
        "pretraining now stops after 175-275 steps instead of 300, which pays for the calibration checks. "
        "Measured in the third full run (nothing changed after it): pi_ref's success 0.255-0.435 (mean 0.330, "
        "pretraining stopped after 175-250 steps); DPO +0.070 over pi_ref (-0.030 to +0.150, > 0 in 8/10) and "
        "the log-prob of the correct answer +0.145 nats (up in 9/10): premise and gate met, so both headline "
        "claims are decided. beats-dpo-style is partly (5/8): in math RePO (0.417) beats DPO (0.400; 7/10, CI lo "
        "+0.001), IPO (0.361) and SimPO (0.343) but not RePO without the future term (0.414; 5/10), so the "
        "regret term itself adds nothing measurable here; in the human setting RePO (0.511) beats SimPO and the "
        "no-future variant but not DPO (0.514; 5/10) or IPO (0.498; 5/10). det-competitive is partly: in math "
        "RePO_det (0.430) beats DPO in 7/10 seeds (CI lo +0.003) and is above RePO (+0.014); in the human setting "
        "it is above RePO (+0.010) but beats DPO (0.514) in 5/10 seeds only. "
        "Review after the third full run (text only; no check, metric or verdict changed): (a) since the "
        "behaviour log-probs b carry no gradient, RePO's score is RePO_det's minus a per-pair offset that "
        "depends on b only (checked numerically for both windows: the offset does not depend on the policy and "
        "the score gradients are identical), so the future term splits into a policy-only reweighting, which "
        "RePO_det keeps, and a b-dependent shift of each pair's margin; here RePO_det is at or above RePO "
        "(human 0.521 vs 0.511, 8/10; math 0.430 vs 0.417, 7/10), so the b-dependent part adds nothing "
        "measurable. (b) The one part of beats-dpo-style the key-idea control cannot pass is the direct "
        "comparison in the human setting (RePO - no-future +0.0065 win rate, 7 wins, 2 ties, 1 loss, 90% CI lo "
        "+0.003); math vs DPO passes for RePO (7/10, CI lo +0.0015) and not for the no-future variant (6/10) by "
        "one seed, and RePO - no-future in math is +0.003 (5/10): within noise. The partly rests on a small "
        "effect. (c) IPO and SimPO run at one fixed, untuned beta (the issue asked for a 3-value grid; the CPU "
        "budget bought the common lr grid instead), and gain only +0.031 and +0.013 over pi_ref in math against "
        "DPO's +0.070: weak baselines, so RePO's wins over them say little. (d) The premise band [0.2, 0.5] is "
        "nearly guaranteed by the calibration stop at 0.30 (it can fail only at the 600-step cap or by an "
        "overshoot). (e) The human setting has no training gate of its own; every arm's win rate against pi_ref "
        "lies in 0.477-0.521 (DPO 0.514, above 0.5 in 7/10 seeds), so its comparisons are read close to zero "
        "effect. (f) Validation (60 draws) and calibration (100 draws) cover about 26% and 40% of the test "
        "problems, for every arm alike."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "pretrain_steps": 80, "pretrain_target": 0.3, "pretrain_min": 50, "n_cal": 20, "n_prompts": 60, "n_val": 16, "n_test": 40, "steps": 3,
            "lrs": [1e-4]}),
        "full": Profile("full", seeds=10, timeout_s=900, params={
            **_COMMON, "pretrain_steps": 600, "pretrain_target": 0.3, "pretrain_min": 100, "n_cal": 100,
            "n_prompts": 400, "n_val": 60, "test_all": True, "steps": 60,
            "lrs": [1e-4, 3e-4]}),
    },
    claims=(
        Claim(id="beats-dpo-style", kind="headline",
              statement="RePO beats DPO-style losses on mathematical reasoning and on human preference data.",
              paper_value="qualitative: consistent gains over DPO-style baselines on math benchmarks and "
                          "human-annotated preference data across backbones (numbers not retrieved)",
              control="DPO, IPO and SimPO (fixed beta, lr validated from the grid common to every arm) and RePO "
                      "without the future term (lambda, alpha, normalisation kept)"),
        Claim(id="det-competitive", kind="headline",
              statement="RePO_det, which needs no behaviour log-probabilities, stays competitive: at least DPO "
                        "and within 1 point of RePO.",
              paper_value="qualitative: RePO_det competitive with RePO",
              control="DPO (fixed beta, validated lr); decided per seed since the third session"),
        Claim(id="loss-identities", kind="identity",
              statement="With on-policy data (b = l) the future term vanishes; both windows and RePO_det match "
                        "hand-computed values; the loss raises chosen and lowers rejected token log-probs.",
              paper_value="by construction of the loss",
              check=C.all_of(C.close("identity/max_err", to=0.0, tol=1e-5, label="max identity error"),
                             C.close("identity/wrong_sign_frac", to=0.0, tol=0.0,
                                     label="fraction of gradients with the wrong sign"))),
    ),
)

_API = ("regret_scores", "repo_loss", "repo_det_loss", "train_preference", "LOSSES")
_SETTING = ("make_tokenizer", "pretrain_reference", "rollouts", "math_pairs", "human_pairs", "success_rate",
            "problems", "completion")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
