"""Less is More: Geometric Unlearning for LLMs with Minimal Data Disclosure (GU, arXiv:2605.01735).

GU forgets named people with a LoRA adapter trained on synthetic prompts that only mention the
names: hidden states around each name are pulled into the low-rank subspace the model's states
occupy when it meets a name it does not know ("I don't know" anchors), with a refusal term, a
counterfactual-invariance term, and teacher-KL terms that keep everything else. ``method`` holds
the losses, the safe subspace and the training loop, plus GA / GradDiff / NPO / IDK-SFT written
after OpenUnlearning; ``setting`` the fictitious-biography world and its TinyLM; ``experiment``
the runs and matched comparisons.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports


_COMMON = {"lr": 1e-2, "match_tol": 0.05, "n_anchors": 20}

_GATES = (C.gate("original/qa_acc", at_least=0.95, why="the original model answers >= 95% of the QA (all paraphrases)"),
          C.gate("original/unknown_refusal", at_least=0.9,
                 why="the original model says 'i don't know' on >= 90% of unknown-name questions"))

_CONTROLS = (("gu_random", "GU with a random 4-dim subspace"), ("refusal", "refusal-only tuning"),
             ("ga_syn", "GA on the synthetic prompts"), ("graddiff_syn", "GradDiff on the synthetic prompts"),
             ("npo_syn", "NPO on the synthetic prompts"))

PAPER = Paper(
    slug="geometric-unlearning",
    title="Less is More: Geometric Unlearning for LLMs with Minimal Data Disclosure",
    source="arXiv:2605.01735",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.geometric_unlearning.method:EXAMPLES",
    substitution=(
        "Kept: GU as in the authors' code and example config: safe anchors from refused prompts with unknown "
        "names, PCA with k = 4 on the last two blocks, prototype of the 16 nearest anchors; the windowed (8 "
        "tokens, both sides, decay exp(-d/2)) plus tail-to-EOS token mask; L_dir (0.5), L_energy (0.1), L_proto "
        "(0.2), L_refusal (0.1), L_cf (0.1) with the hit boost min(4, B/hits) and forget_end_step 500; teacher "
        "KL on background tokens (0.05, T = 3) and on retain prompts (0.6, T = 3); 2e-5 ||LoRA||^2; LoRA r = 8, "
        "alpha 16, dropout 0.1 on v_proj/o_proj through peft; Adam betas (0.9, 0.98), wd 0.01, clip 1; the "
        "early-stop rule (target acc <= 0.03 and non-target acc >= 0.7 for 3 evaluations, on a validation "
        "paraphrase). Replaced: the ToFU-finetuned Llama-2-7B and ToFU/UnlearnPII by a word-level TinyLM "
        "(attention with split q/k/v/o projections) trained to 100% QA on fictitious people from the shared "
        "knowledge-base generator (two facts each: birth city, employer), answering 'i don't know .' for "
        "unknown names, plus one-digit arithmetic as a world skill; the synthetic prompts are five request "
        "templates ('tell me about {name} .') that the model answers with a one-line biography; learning rate "
        "1e-2 for every method (the paper's 1e-4 is for a 7B model; picked from 1e-3, 3e-3, 1e-2 before the full "
        "run by looking at GU, refusal-only, the random subspace, GradDiff and NPO on development seed 9 and on "
        "seed 0, which is also a reported seed); batches of 16 forget + 16 retain rows instead of an effective 64; 120 steps at most (evaluated every 10); "
        "exact name matching on word tokens (the authors' forget-side matching is exact by default too, "
        "allow_fuzzy_match_forget = False; only their anchor script matches fuzzily); the last target layer "
        "is the last block's output before the final norm (the authors' hidden_states[-1] is after it). Baselines written after "
        "OpenUnlearning (not on PyPI): GA, GradDiff, NPO (beta 0.1, retain NLL), IDK-SFT. Every accuracy is "
        "read on a question paraphrase that no run trains or early-stops on. Changed after the full run: the matched-forget rule of "
        "beats-controls, and (by review) its combination over controls, now a weakest link (see the claim). "
        "Review diagnostic, not stored: GU run to 500 steps (seeds 0, 1; lr 1e-2 and 1e-3) meets its own "
        "objective (L_dir 0.57 -> 0.05, L_refusal 2.0 -> 0.02) yet its forget accuracy plateaus at 0.7-1.0 "
        "from step ~60 on, so the 120-step budget does not explain suppression's result (experiment.py)."),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "n_known": 10, "n_unknown": 6, "n_forget": 3, "d_model": 48, "n_layers": 2,
            "pretrain_steps": 300, "pretrain_batch": 32, "steps": 20, "eval_every": 10,
            "forget_batch": 8, "retain_batch": 8}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            **_COMMON, "n_known": 20, "n_unknown": 12, "n_forget": 5, "d_model": 64, "n_layers": 3,
            "pretrain_steps": 500, "pretrain_batch": 64, "steps": 120, "eval_every": 10,
            "forget_batch": 16, "retain_batch": 16}),
    },
    claims=(
        Claim(id="suppression", kind="headline",
              statement="GU strongly suppresses the target people's facts while non-target performance stays close "
                        "to the original, from synthetic prompts alone (asked on a held-out question paraphrase).",
              paper_value="qualitative: near-zero target knowledge with non-target utility close to the original on "
                          "ToFU and UnlearnPII (table numbers not retrieved)",
              no_control="absolute targets on GU's own result; the comparison with controls is beats-controls",
              check=C.all_of(
                  C.threshold("gu/joint_margin", at_least=0.0, frac=0.8,
                              label="min(0.10 - forget acc, retain ratio - 0.9) (both conditions in one seed)"),
                  C.threshold("gu/forget_acc", at_most=0.10, frac=0.8, label="GU forget accuracy"),
                  C.threshold("gu/retain_ratio", at_least=0.9, frac=0.8, label="GU retain accuracy / original"),
                  partly="none").gated(*_GATES)),
        Claim(id="beats-controls", kind="headline",
              statement="At matched forget accuracy GU keeps at least as much retain accuracy as refusal tuning and "
                        "gradient-based unlearning given the same synthetic prompts, and as GU with a random "
                        "subspace.",
              paper_value="qualitative: GU resolves the strength / preservation / data-availability tension better "
                          "than output-level refusal tuning and GA/GradDiff/NPO-type methods",
              control="; ".join(label for _, label in _CONTROLS) + " (same LoRA, optimiser, step budget). "
                      "Matched forget accuracy: every method, GU too, read at its best checkpoint with forget "
                      "accuracy <= 0.10 (retain 0 if it never gets there); this rule replaced the pre-registered "
                      "one (GU's final point vs each control's best checkpoint with forget <= GU's + 0.05) after "
                      "the full run, whose verdict is still shown in the evidence. GU must be no worse than every control "
                      "(weakest link; the default all_of made one partly part, e.g. a tie at 0 where neither "
                      "method reaches the level, turn two 5/5 losses into partly: revised after the full run by "
                      "review)",
              check=None),
    ),
)

_API = ("GUConfig", "safe_subspace", "random_subspace", "geometric_losses", "forget_token_mask", "find_name_hits",
        "gu_loss", "baseline_loss", "unlearn", "matched_retain", "early_stop_met")
_SETTING = ("BioWorld", "make_world", "pretrain", "qa_accuracy", "refusal_rate")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
