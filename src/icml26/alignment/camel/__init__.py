"""CAMEL: Confidence-Gated Reflection for Reward Modeling (arXiv:2602.20670).

A pairwise generative judge emits one verdict token; the log-probability margin of the two
verdict tokens is its confidence, and only below a threshold tau does it continue with a
reflection that ends in a final verdict. It is trained by SFT and then GRPO with a binary
correctness reward, with counterfactual prefix augmentation (CPA: rollouts opened with both the
correct and the wrong verdict). Here the judge is a char-level TinyLM choosing between two
answers to an ``icml26.tasks`` arithmetic problem (one correct), and the reflection is a
scratchpad that recomputes the answer before the final verdict (``setting``); the method
(margin, gate, reflection, CPA, SFT and GRPO on ``icml26.nn.rl``) is in ``method`` and the
claims' measurements in ``experiment``.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_SFT_GATE = C.gate("gate/sft_acc", at_least=0.6, frac=1.0, why="the SFT judge's verdict accuracy is >= 0.6")
_COMMON = {"levels": [1], "sft_lr": 3e-3, "d_model": 48, "grpo_lr": 2e-4, "rate": 0.3}

PAPER = Paper(
    slug="camel",
    title="CAMEL: Confidence-Gated Reflection for Reward Modeling",
    source="arXiv:2602.20670",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.camel.experiment:EXAMPLES",
    substitution=(
        "Kept: the single verdict token and its log-probability margin |log p(A) - log p(B)| as confidence; the "
        "threshold gate (reflect iff margin < tau; tau traced over the reflection rate it induces, and an operating "
        "tau fixed on validation items at a 30% rate); SFT then GRPO on the reflection with a binary reward "
        "1[final verdict correct], group-normalised advantages (icml26.nn.rl, TRL's loss), no KL; counterfactual "
        "prefix augmentation = every training item opened once with the correct and once with the wrong verdict "
        "(the paper's CPA ratio is not given; 1:1 is our choice), against the control opened with the model's own "
        "greedy verdict, with the same number of rollouts per step. Replaced: the 14B judge and RewardBench / "
        "RM-Bench / JudgeBench by a 2-layer char-level TinyLM (d = 48) judging which of two answers to a level-1 "
        "icml26.tasks arithmetic problem (two operands below 10, + or -) is correct; the distractor is the answer "
        "+- 1, 2, 3, 10 or 20 (small offsets are the hard items); the free-text reflection by the task's scratchpad "
        "('3+4=7;#7') followed by '>' and the final verdict, written with its own tokens 'a'/'b' (the opening uses "
        "'A'/'B'; with shared tokens, whose embedding rows TinyLM ties to its output head, GRPO on the final verdict "
        "moved the opening verdict in our trials); the SFT traces (1000 steps of 64 on 20k items) always "
        "open with the gold verdict, as traces distilled from a correct teacher would, so revision is never shown "
        "in SFT; GRPO is 50 steps of 128 rollouts (16 items x 8, or 8 items x 2 openings x 8) at lr 2e-4 from the "
        "same SFT judge in both arms; the benchmarks' accuracies by held-out accuracy on 400 items per seed. The "
        "costly confidence proxy is the agreement of 8 sampled full judgements (verdict + reflection at "
        "temperature 1) with the fast verdict, on 200 of the test items. The SFT judge is cached on disk by "
        "(seed, config). The paper's own SFT data, tau, GRPO hyperparameters and CPA ratio were not found in the "
        "sources we could read (the arXiv HTML's method section was not retrievable; summaries only). Measured in "
        "the full run (5 seeds; "
        "checks unchanged after it): the SFT judge's fast verdict is right 0.786 of the time (seed mean) and the CAMEL "
        "judge's margin AUROC is 0.81 (0.78 to 0.85), at or above the 8-sample proxy in 3 seeds and at most 0.024 "
        "below it in the other 2; the CPA GRPO reward rose only in seeds 2 and 3 (0.58 -> 0.64, 0.52 -> 0.58) and "
        "stayed near the copying level 0.5 in seeds 0, 1 and 4 (in seeds 0 and 4 the reflection copies every "
        "opening, so gated = random = never = always); reflecting on every item helps in one seed (0.74 vs 0.69) "
        "and hurts in two (0.69 "
        "vs 0.74, 0.62 vs 0.73), so 'within 1 point of always-reflect' is met mostly because always-reflect is not "
        "better than never-reflect here. A trial outside the stored runs (seed 0 only, after the full run) that mixed "
        "reasoning-first traces into SFT gave CPA P(correct | wrong opening) 0.49 vs 0.00 for own openings, but 0.25 "
        "flips of correct openings and a reflection less accurate than the fast verdict (0.64 vs 0.69); it was not "
        "adopted. Review after the full run (stored rows unchanged): GRPO lowered the fast verdict in both arms (seed "
        "mean 0.786 after SFT, 0.747 after CPA GRPO, 0.749 after own-opening GRPO; -0.10 and -0.09 in CPA seeds 2 "
        "and 3), and the own-opening arm's GRPO reward fell in seeds 2, 3 and 4 (e.g. 0.86 -> 0.73), so the "
        "separate final-verdict tokens did not keep the reflection's training off the opening verdict; CAMEL's "
        "held-out accuracy at the operating tau (0.752) is below the SFT judge's fast verdict alone in 4 of 5 seeds. "
        "The SFT judge's scratchpad (checked by review on seeds 0 and 3, 400 test items) computes the right answer "
        "after every correct opening but rationalises a wrong one (right on 22% and 34%, e.g. '0+2=3;#3>b'), so "
        "overturning needs GRPO to unlearn this, which is what CPA is for; the best seed's reflection is 0.74 "
        "accurate from its own openings. "
        "gated-frontier and cpa-revisions are therefore gated (by review) on the CPA reflection beating the copying "
        "level of the GRPO reward (0.5), met in 2/5 seeds, and are not-checkable."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "n_train": 2000, "n_val": 50, "n_test": 100, "sft_steps": 120, "sft_batch": 32,
            "grpo_steps": 2, "grpo_batch": 8, "group": 4, "n_proxy": 40, "proxy_k": 4}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            **_COMMON, "n_train": 20000, "n_val": 200, "n_test": 400, "sft_steps": 1000, "sft_batch": 64,
            "grpo_steps": 50, "grpo_batch": 16, "group": 8, "n_proxy": 200, "proxy_k": 8}),
    },
    claims=(
        Claim(id="margin-predicts", kind="headline",
              statement="The verdict-token log-probability margin predicts whether the verdict is correct: AUROC "
                        ">= 0.75 in every seed and no more than 0.05 below a costly proxy (agreement of 8 sampled "
                        "judgements).",
              paper_value="qualitative: the margin 'strongly correlates' with correctness (no AUROC retrieved)",
              no_control="a rate against a fixed bound; the costly 8-sample proxy is measured in the same run and "
                         "enters the rule as a bound on the gap. Review note (after the full run; rule unchanged): "
                         "the margin's AUROC is a property of the SFT-trained verdict head, not of GRPO or CPA (SFT "
                         "judge 0.84, own-opening arm 0.82, CAMEL 0.81, seed means), i.e. the maximum-softmax error "
                         "detector any trained classifier offers; and the proxy samples the CPA reflection, so where "
                         "that reflection flips correct openings (seeds 1 and 3) the proxy's AUROC drops to 0.60 and "
                         "0.50 and the gap bound is met trivially; where the proxy works (seeds 0, 2, 4: 0.80 to 0.81) "
                         "the margin is within 0.025 of it or above it",
              check=C.all_of(C.threshold("margin/auroc", at_least=0.75, frac=1.0, label="margin AUROC (CAMEL judge)"),
                             C.threshold("margin/proxy_gap", at_most=0.05, frac=1.0,
                                         label="proxy AUROC - margin AUROC")).gated(_SFT_GATE)),
        Claim(id="gated-frontier", kind="headline",
              statement="Confidence-gated reflection dominates the accuracy-cost frontier: above random gating at "
                        "30% and 50% reflection, and within 1 point of always reflecting at <= 50% reflection.",
              paper_value="qualitative: a strictly better accuracy-efficiency Pareto frontier; a summary reports "
                          "+2.3 / +9.4 / +6.4 points over ungated variants (baselines unconfirmed)",
              control="random gating at the same reflection rate (never and always reflecting reported)",
              check=C.all_of(
                  C.beats_in_seeds("gated/acc30", "random/acc30", margin=0.0025, frac=0.8,
                                   label="gated @30%", control_label="random @30%"),
                  C.beats_in_seeds("gated/acc50", "random/acc50", margin=0.0025, frac=0.8,
                                   label="gated @50%", control_label="random @50%"),
                  C.threshold("gated/gap_to_always_le50", at_most=0.01, frac=0.8,
                              label="always-reflect acc - best gated acc at <= 50%")).gated(_SFT_GATE, C.gate(
                  "cpa/grpo_reward_last", at_least=0.55, frac=0.8,
                  why="the CPA-trained reflection beats copying its opening (last-quarter CPA GRPO reward >= 0.55, "
                      "where a reflection that copies every opening earns exactly 0.5) in >= 4/5 seeds; gate added by "
                      "review after the full run: the pre-registered SFT gate is passed by a reflection that copies "
                      "every opening, as SFT never shows a revision"))),
        Claim(id="cpa-revisions", kind="headline",
              statement="Counterfactual prefix augmentation produces genuine revisions: opened with the wrong "
                        "verdict, the reflection ends correct more often than after GRPO from own openings (by >= "
                        "0.1), while flipping at most 10% of correct openings.",
              paper_value="qualitative: CPA induces genuine revision rather than copying the opening (ablation "
                          "numbers not retrieved)",
              control="GRPO from the model's own opening verdicts only (same SFT judge, same rollouts per step)",
              check=C.all_of(
                  C.beats_in_seeds("cpa/p_correct_wrong_prefix", "own/p_correct_wrong_prefix", margin=0.1, frac=0.8,
                                   label="P(correct | wrong opening), CPA",
                                   control_label="P(correct | wrong opening), own openings"),
                  C.threshold("cpa/flip_correct_prefix", at_most=0.1, frac=0.8,
                              label="P(flip | correct opening), CPA")).gated(_SFT_GATE, C.gate(
                  "cpa/grpo_reward_last", at_least=0.55, frac=0.8,
                  why="the CPA-trained reflection beats copying its opening (last-quarter CPA GRPO reward >= 0.55, "
                      "where a reflection that copies every opening earns exactly 0.5) in >= 4/5 seeds; gate added by "
                      "review after the full run: the pre-registered SFT gate is passed by a reflection that copies "
                      "every opening, as SFT never shows a revision"))),
        Claim(id="benchmarks-82-9", kind="headline",
              statement="82.9% average accuracy over RewardBench, RM-Bench and JudgeBench with a 14B judge, 3.2 "
                        "points above the best prior model.",
              paper_value="82.9% average (RewardBench 92.8, JudgeBench 71.6)",
              no_control="a benchmark score of a 14B model on data we cannot download",
              uncheckable="a 14B judge on RewardBench, RM-Bench and JudgeBench, none of which we can run; shown: "
                          "our TinyLM CAMEL's held-out accuracy at the validation-fixed tau",
              reference=0.829,
              check=C.threshold("camel/acc", at_least=0.829, label="TinyLM CAMEL held-out accuracy")),
        Claim(id="gate-identities", kind="identity",
              statement="The rate-matched threshold reflects exactly the requested fraction, tau = 0 never and "
                        "tau = inf always reflects; CPA opens every item once with each verdict (half of the "
                        "openings wrong) and the control with the model's own verdict.",
              paper_value="by construction",
              check=C.close("identity/max_err", to=0.0, tol=1e-9, label="max identity error")),
    ),
)

_API = ("verdict_logits", "confidence_gate", "tau_for_rate", "reflect", "camel_judge", "sampled_agreement",
        "counterfactual_prefixes", "sft_judge", "grpo_judge", "auroc")
_SETTING = ("JudgeItem", "tokenizer", "make_items", "prompt_text", "reflection_text", "encode_prompts", "sft_batch",
            "final_verdict", "new_judge")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
