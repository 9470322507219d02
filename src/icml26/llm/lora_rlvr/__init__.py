"""LoRA-RLPO / LoRA-RLMO: Geometry-Preserving Orthonormal Initialization for Low-Rank Adaptation in RLVR (arXiv:2606.31813).

The paper proposes a LoRA initialisation for RL with verifiable rewards: keep B = 0 (the model
is unchanged at step 0 and the base weight untouched) and set the rows of A to the top
(RLPO) or bottom (RLMO) right singular vectors of the pretrained weight, with no
singular-value scaling; PiSSA/MiLoRA, which scale A and B by the singular values and rewrite
the base weight, are reported to destabilise RLVR. This package holds the initialisations
(:mod:`.method`), the one-step LoRA-vs-full-fine-tuning geometry (our reconstruction: the
paper's text and code were not reachable), and a DAPO reproduction on a tiny arithmetic
policy (:mod:`.setting`, :mod:`.experiment`).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_GRID = [1e-3, 3e-3, 1e-2]  # every LoRA arm; the largest value is the stability lr
_FULL_GRID = [3e-5, 1e-4, 3e-4]  # full fine-tuning's own grid, centred on its best dev-seed lr (see substitution)

PAPER = Paper(
    slug="lora-rlvr",
    title="LoRA-RLPO / LoRA-RLMO: Geometry-Preserving Orthonormal Initialization for Low-Rank Adaptation in RLVR",
    source="arXiv:2606.31813",
    cluster="llm",
    feasibility="B",
    substitution=(
        "Keeps: the initialisations (standard LoRA with Kaiming-uniform A and B = 0; LoRA-RLPO A = top-r right "
        "singular vectors of W, LoRA-RLMO bottom-r, B = 0, unscaled, W untouched; PiSSA/MiLoRA with sqrt(S)-scaled "
        "A and B and residual subtraction, checked against peft's init_lora_weights='pissa'), LoRA through peft with "
        "alpha = r for every arm, and DAPO (clip-higher 0.2/0.28, token-level loss, no KL penalty, KL to the start "
        "measured, through icml26.nn.rl). Replaces: DeepSeek-R1-Distill-Qwen-1.5B on math benchmarks by a 2-layer "
        "TinyLM (d = 32) pretrained per seed on one-step arithmetic with a scratchpad (a+b / a-b, operands 0-9: "
        "only 200 distinct problems, so RL, validation and test problems overlap; the point is RLVR from an "
        "under-trained start, not generalisation), under-trained with the shared recipe of icml26.tasks.policy "
        "(constant lr after warm-up since commit cf6df70; the earlier cosine-decayed base was so sharp that DAPO "
        "lowered its accuracy), to a starting greedy test exact match of 0.66 (seed range 0.61-0.71). LoRA rank 4 "
        "on every linear layer of each block: the attention input/output projections and the MLP's two layers "
        "(dotted target names mlp.0 / mlp.2 in the shared add_lora, matched as peft matches them; the unembedding "
        "head stays frozen; the paper's target modules are not stated in the sources we found, so we follow the "
        "common all-linear-layers practice). 20 DAPO steps of 8 prompts x 6 samples instead of hundreds (the full "
        "profile must fit 3 minutes for 5 seeds; 20 rather than the former 12 because full fine-tuning gained "
        "under 5 points in 2 of 4 dev seeds at 12 steps). Learning rates: every LoRA arm (standard LoRA, the "
        "norm-matched Gaussian A, the random orthonormal A, RLPO, RLMO, PiSSA, MiLoRA) runs on the issue's common "
        "grid {1e-3, 3e-3, 1e-2} and is reported at its best lr on validation; stability is judged at the grid's "
        "largest lr, 1e-2. Full fine-tuning, whose natural lr is lower than LoRA's, runs on its own 3-value grid "
        "{3e-5, 1e-4, 3e-4}, also reported at its best lr on validation: the grid was chosen on dev seeds 100-103 "
        "(12 steps, lrs 1e-5 to 3e-3 tried), where the best validation lr was 1e-4 in 4/4 seeds, 1e-3 lost 19-39 "
        "points and 3e-3 collapsed (2/2 seeds tried), so the grid is centred on 1e-4; at 20 steps on this grid "
        "full fine-tuning gained 7.0, 4.5, 5.0 and 5.0 points on those dev seeds. Collapse = test exact match below half the "
        "start's. Controls: standard LoRA, a Gaussian A rescaled to the orthonormal A's Frobenius norm sqrt(r), and "
        "a random orthonormal A (reported). The one-step gap statement is our reconstruction (no full text or code "
        "was reachable): with B = 0, one SGD step moves W by -lr G A^T A against -lr G for full fine-tuning; it is "
        "checked on the real policy gradients of every adapted layer (attention and MLP). "
        "History: the first full runs used the cosine-decayed base (50 DAPO steps, 3-value grid, then a cut-down "
        "profile); full fine-tuning lost 15 and 18 points, so the training gate left both RL claims not-checkable. "
        "The next 5-seed full run (constant-lr base; 12 steps; LoRA on attention only, because add_lora could not "
        "name the MLP's Sequential children; lr grid {1e-3, 1e-2} for standard LoRA, the Gaussian A, RLPO and RLMO, "
        "PiSSA/MiLoRA/random orthonormal at 1e-2 only, full fine-tuning at 3e-4 only) read: full fine-tuning +7.4 "
        "points, standard LoRA +5.2, Gaussian A +5.1, RLPO +8.0, RLMO +2.1 at their best lr; RLPO above both "
        "controls in 3/5 seeds and its max-KL below LoRA's in 1/5 (rlpo-beats-lora partly under the rule then in "
        "force, not-reproduced under the stricter per-seed rule a review adopted after seeing that run; see the "
        "claim's evidence); at 1e-2 PiSSA "
        "collapsed in 4/5 seeds while MiLoRA and LoRA never did (pissa-unstable partly); under SFT PiSSA's held-out "
        "loss was below LoRA's in 4/5 seeds, MiLoRA's above it in 5/5. "
        "Measured in this protocol's 5-seed full run (starting test EM 0.656; gate met): gains at each arm's best "
        "validation lr, in points: full fine-tuning 11.4 (>= 5 in 4/5 seeds; seed 0 gains 3.0; chosen lr 3e-5 once, "
        "1e-4 twice, 3e-4 twice), standard LoRA 10.4, the norm-matched Gaussian A 11.5, the random orthonormal A "
        "12.0, RLPO 10.5, RLMO 12.4, PiSSA 6.0, MiLoRA 10.8 (test EM RLPO 0.761, LoRA 0.760, Gaussian A 0.771, "
        "RLMO 0.780; RLPO above both controls in 1/5 seeds, its max-KL below LoRA's in 1/5). At lr 1e-2 PiSSA "
        "collapses in 5/5 seeds (max-KL 24-1098) and so does RLPO (5/5, max-KL 3-232), while standard LoRA, the "
        "Gaussian and random orthonormal A, RLMO and MiLoRA never do; MiLoRA's max-KL exceeds LoRA's in 2/5 seeds. "
        "Under SFT (30 steps) PiSSA's held-out loss is below LoRA's in 1/5 seeds (mean 0.0688 vs 0.0673) and "
        "MiLoRA's in 0/5. "
        "Caveats of this protocol (found in review, after the run; nothing re-run): validation and test draw from "
        "the same 200 problems (35-49% of each seed's test items have a validation twin), so choosing each arm's "
        "lr on validation is close to choosing it on test, for every arm alike; RLPO's best validation lr was "
        "the grid's smallest (1e-3) in 4/5 seeds and PiSSA's in 5/5 (standard LoRA's in 3/5, the Gaussian A's "
        "and RLMO's in 0/5), so for RLPO and PiSSA the pre-registered grid does not bracket the best lr and a "
        "lower lr was not tried; the best-lr max-KL comparison can compare different lrs (the same-lr one, at "
        "1e-2, is in rlpo-beats-lora's evidence), and max-KL is the k3 estimate after each step on that step's own "
        "sampled training batch, not on held-out prompts; a full-profile seed took 33-121 s, so 5 seeds exceed the "
        "3 minutes named above unless run side by side."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "d_model": 32, "pretrain_steps": 120, "rank": 4, "n_val": 24, "n_test": 48, "n_random_A": 200,
            "rl_steps": 2, "prompts": 4, "group": 4, "lr_grid": [3e-3], "full_lr_grid": [3e-4],
            "sft_steps": 3, "sft_lr": 3e-3}, timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "d_model": 32, "pretrain_steps": 300, "rank": 4, "n_val": 100, "n_test": 200, "n_random_A": 1000,
            "rl_steps": 20, "prompts": 8, "group": 6, "lr_grid": _GRID,
            "full_lr_grid": _FULL_GRID,
            "sft_steps": 30, "sft_lr": 3e-3}, timeout_s=900),
    },
    claims=(
        Claim(
            id="one-step-gap",
            statement=("With B = 0, one LoRA step moves W by -lr G A^T A; for orthonormal rows of A this step is "
                       "never larger than the full fine-tuning step (A^T A is a projector), and no A (of any "
                       "scale) gets closer to the full step than the orthonormal A spanning G's top-r right "
                       "singular vectors (our reconstruction of the paper's gap theorem)."),
            paper_value="theorem (statement not reachable; reconstructed one-step version)",
            kind="identity",
            check=C.threshold("onestep/violation", at_most=1e-6, label="largest violation on real policy gradients"),
        ),
        Claim(
            id="rlpo-beats-lora",
            statement=("Under RLVR (DAPO), LoRA-RLPO reaches higher accuracy than standard LoRA with lower training "
                       "KL and no collapse; LoRA-RLMO at least matches standard LoRA."),
            paper_value="RLPO 65.03% avg (+2.63 pts over LoRA), RLMO 63.76% (+1.36) on math benchmarks; lower KL",
            kind="headline",
            control=("standard LoRA (Kaiming A) and a Gaussian A rescaled to the orthonormal A's norm, each at "
                     "its best validation lr from the same 3-value grid"),
        ),
        Claim(
            id="pissa-sft",
            statement="Under supervised fine-tuning, PiSSA and MiLoRA fit better than standard LoRA (earlier papers' claim).",
            paper_value="qualitative: PiSSA/MiLoRA better than LoRA under SFT",
            kind="prior-work",
            check=C.all_of(
                C.beats("sft/pissa/loss", "sft/kaiming/loss", better="lower", test="sign", label="PiSSA",
                        control_label="LoRA"),
                C.beats("sft/milora/loss", "sft/kaiming/loss", better="lower", test="sign", label="MiLoRA",
                        control_label="LoRA")),
        ),
        Claim(
            id="pissa-unstable",
            statement=("Under RLVR, PiSSA and MiLoRA are less stable than standard LoRA: they collapse or reach a "
                       "higher KL at the grid's largest learning rate."),
            paper_value="qualitative: PiSSA/MiLoRA underperform standard LoRA and become unstable under RLVR",
            kind="headline",
            control="standard LoRA at the same (largest) learning rate",
        ),
    ),
    examples="icml26.llm.lora_rlvr.experiment:EXAMPLES",
)

_EXPORTS = {"adapter_init": ".method", "one_step_gap": ".method", "optimal_gap": ".method",
            "lora_one_step_delta": ".method", "dapo_config": ".method", "make_arm": ".method",
            "pretrain_policy": ".setting", "problems": ".setting"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
