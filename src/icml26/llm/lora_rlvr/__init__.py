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

_GRID = [1e-3, 1e-2]  # the largest value is the stability lr; 3e-3 dropped for time (see substitution)

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
        "under-trained start, not generalisation), under-trained with the shared recipe of icml26.tasks.policy, which "
        "since commit cf6df70 pretrains at a constant lr after warm-up (the earlier cosine-decayed base was so sharp "
        "that DAPO lowered its accuracy; see below), to a starting greedy test exact match of 0.66 (seed range "
        "0.61-0.71); LoRA rank 4 on the "
        "attention input/output projections only (the shared add_lora matches module names by their last "
        "component, which cannot single out the MLP's Sequential children); 12 DAPO steps of 8 prompts x 6 samples instead of "
        "hundreds (the full profile had to fit 3 minutes for 5 seeds); a 2-value lr grid {1e-3, 1e-2} (the issue's "
        "3-value grid lost 3e-3 for time) on which standard LoRA, the norm-matched Gaussian A, RLPO and RLMO are each "
        "reported at their best lr on validation, while PiSSA, MiLoRA and the random orthonormal A run at the "
        "grid's largest lr only (where stability is judged; full fine-tuning at one lower lr); collapse = test exact match below half the start's. Controls: standard "
        "LoRA, a Gaussian A rescaled to the orthonormal A's Frobenius norm sqrt(r), and a random orthonormal A "
        "(reported). The one-step gap statement is our reconstruction (no full text or code was reachable): with "
        "B = 0, one SGD step moves W by -lr G A^T A against -lr G for full fine-tuning. "
        "Earlier full runs used the cosine-decayed base: 50 DAPO steps with a 3-value grid, then the cut-down profile "
        "above; full fine-tuning lost 15 and 18 points on average, so the training gate left both RL claims "
        "not-checkable. Measured in the 5-seed full run on the constant-lr base (profile above; the rlpo-beats-lora "
        "partly tier revised by review after this run, disclosed in its evidence): full fine-tuning with DAPO at lr "
        "3e-4 gains 7.4 points on average (>= 5 points in 4/5 seeds: gate met; seed 0 gains 0.5), standard LoRA "
        "5.2, the norm-matched Gaussian A 5.1, RLPO 8.0 and RLMO 2.1 at their best lr (test EM RLPO 0.736, LoRA "
        "0.708, Gaussian A 0.707, RLMO 0.677; RLPO above both controls in 3/5 seeds). RLPO's KL to the start is "
        "higher than standard LoRA's, not lower: its max-KL is below LoRA's in 1/5 seeds at the best lr and above it "
        "in 5/5 at lr 1e-2 (mean 2.0 vs 0.12), where RLPO loses 22 points on average and collapses in 1/5 seeds. "
        "At lr 1e-2 PiSSA collapses in 4/5 seeds (max-KL 12-364) while MiLoRA (max-KL 0.05, below LoRA's in 5/5) and "
        "standard LoRA never do; under SFT (30 steps) PiSSA's held-out loss is below LoRA's in 4/5 seeds (mean "
        "0.0688 vs 0.0719; sign-test p = 0.19) and MiLoRA's above it in 5/5."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "d_model": 32, "pretrain_steps": 120, "rank": 4, "n_val": 24, "n_test": 48, "n_random_A": 200,
            "rl_steps": 2, "prompts": 4, "group": 4, "lr_grid": [3e-3], "grid_arms": [], "full_lr": 3e-4,
            "sft_steps": 3, "sft_lr": 3e-3}, timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "d_model": 32, "pretrain_steps": 300, "rank": 4, "n_val": 100, "n_test": 200, "n_random_A": 1000,
            "rl_steps": 12, "prompts": 8, "group": 6, "lr_grid": _GRID,
            "grid_arms": ["kaiming", "gaussian_scaled", "rlpo", "rlmo"], "full_lr": 3e-4,
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
                     "its best lr from the same grid"),
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
