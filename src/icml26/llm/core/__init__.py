"""CoRe: Collaborative Reasoning via Cross Teaching (arXiv:2601.21600).

Two different policies are RL-trained together on the same questions: each attempts a
question cold; a model that failed retries with a hint distilled from a peer's correct trace
(answer stripped); rewards add a diversity bonus and a rescue bonus, and advantages are
z-scored jointly over both models and both rounds. The aim is a team whose members fail on
different questions (oracle Team Pass@k). This package holds the reward, hint and team
evaluation (:mod:`.method`), the training protocol with its controls (:mod:`.protocol`) and a
reproduction on two tiny arithmetic policies (:mod:`.setting`, :mod:`.experiment`).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

PAPER = Paper(
    slug="core",
    title="CoRe: Collaborative Reasoning via Cross Teaching",
    source="arXiv:2601.21600",
    cluster="llm",
    feasibility="B",
    substitution=(
        "Keeps: the two-round protocol (K = 2 cold traces per model, K' = 1 rescue trace for a model with no "
        "correct cold trace, hint given with probability 0.75), the teacher (a correct cold trace; highest "
        "exploitation reward, ties in model order) and hint stripping (answer and the step that states it removed; "
        "an empty hint allows no rescue), the combined reward with the authors' reference weights (exploit 1, "
        "DPP-lite exploration 0.1 taken literally, with how often it is all zero reported; rescue bonus 0.15; "
        "cross-model term 0.1, margins 0.15), joint z-scored advantages (population std) over both models and "
        "rounds, a GRPO surrogate with KL beta = 0.04, temperature 0.7 and top-p 0.9, and the reference "
        "evaluator's Team Pass@k with k samples per model (v2 and core/evaluation.py; the card's one-sample-per-"
        "model reading is not used). Replaces: the 3B+4B LLM pair by two TinyLMs from the shared arithmetic "
        "recipe (P: 2 layers, width 48; Q: 3 layers, width 32 on another data stream; 1,200 pretraining steps "
        "each at the shared recipe's constant lr after warm-up (icml26.tasks.policy since commit cf6df70; the "
        "first runs used its cosine-decayed base, which RL could not improve), which puts them near 45% / 39% "
        "sampled pass@1 and the starting team near 0.55 Team Pass@2 on the level 1-2 mix, almost all of it on "
        "one-step problems; the members never see a hinted prompt in pretraining), GSM8K/MATH by one- and two-step scratchpad "
        "arithmetic (hints exist only for two-step problems: a peer's first step; a one-step trace strips to the "
        "empty hint), LoRA r = 16 by full fine-tuning of the tiny models (Adam, lr 1e-4, one step per batch: on "
        "seed 0 of the cosine-decayed base, lr 1e-3, 6e-4 and 3e-4 each lowered both members' pass@1 by 5-35 points "
        "within 10-20 steps under every arm, including independent GRPO; 1e-4 left them unchanged, so it was chosen "
        "before the full runs and not re-tuned on the constant-lr base), "
        "two epochs over 1,000 questions by 20 batches of 16 questions, the annealed w_explore and eta schedules "
        "by their reference constants, and the MiniLM encoder in the distance by hashed character 1-3-gram "
        "vectors in the profiles (the shipped all-MiniLM-L6-v2 through sentence-transformers is implemented "
        "and tested, but one encoder call costs seconds on 2 shared cores; set encoder=minilm to use it). "
        "'Single-model training' is read as each model RL-trained alone (GRPO, correctness reward) with the "
        "same K + K' = 3 samples per question and the same steps. Sampling and the shared exact_match allow 28 new "
        "tokens (the longest two-step scratchpad and <eos>). "
        "The first stored full run (one seed, 400/300 pretraining steps, widths 32/24) had both members at the "
        "floor (pass@1 0.03), no rescue and every claim not-checkable; it was replaced by the recipe above. "
        "A 5-seed full run on the cosine-decayed base failed the training gate (independent GRPO lowered model P's "
        "pass@1 in 4/5 seeds). Measured in the 5-seed full run on the constant-lr base (decorrelates' rule revised by "
        "review after this run, disclosed in its evidence): start Team Pass@2 0.553 (pass@1 P 0.45, Q 0.39); after "
        "20 batches CoRe 0.573 vs independent GRPO 0.568 and wrong-question hints 0.568 (CoRe above both in 2/5 "
        "seeds, tied with independent GRPO in 2; every per-seed item bootstrap interval against independent GRPO "
        "spans 0, against wrong-question hints one of five excludes it); every arm raised "
        "both members' pass@1 (independent GRPO: P +3.0, Q +7.2 points, positive in 5/5 seeds, gates met). "
        "P(both wrong) 0.467 under CoRe vs 0.470 independent and 0.471 wrong-hint. The hint channel was nearly "
        "idle: 68 hinted CoRe retries over 5 seeds (about 14 per 320 questions) rescued 3 failures (in 3/5 seeds), "
        "wrong-question hints 1 in 44, and the literal DPP-lite term was zero on every question. Oracle minus "
        "majority vote: CoRe 0.072, independent 0.064, wrong-hint 0.062, start 0.072 (two members with two samples "
        "each, against the paper's three-model AIME gap of 1.4 points)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "steps_p": 100, "steps_q": 100, "n_test": 32, "steps": 2, "batch": 4, "lr": 1e-4,
            "encoder": "ngram"}, timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "steps_p": 1200, "steps_q": 1200, "n_test": 200, "steps": 20, "batch": 16, "lr": 1e-4,
            "encoder": "ngram"}, timeout_s=1200),
    },
    claims=(
        Claim(
            id="team-pass",
            statement="CoRe raises oracle Team Pass@2 over training each model alone.",
            paper_value="Team Pass@2 99.54% GSM8K / 92.08% MATH vs 82.50% / 74.82% for single-model training (3B+4B)",
            kind="headline",
            control=("independent GRPO on the same pair with the same samples per model and steps; and the same "
                     "two-round protocol with the hint taken from a different question"),
        ),
        Claim(
            id="decorrelates",
            statement=("CoRe de-correlates the two models' errors: P(both wrong) falls, and hinted retries rescue failures. "
                       "(Eighth session, a timing re-run of the same code on the machine that replaced the stored run's "
                       "(scratch store, not in the report): every metric moved at float level, the premise was met "
                       "(rescues in 5/5 seeds, 8 in 77 hinted retries) and the rule read not-reproduced (CoRe 0.473 vs "
                       "control 0.467, below it in 2/5 seeds); the stored run reads not-checkable (premise 3/5). Both "
                       "readings are negative; which one a run gives depends on float-level differences between "
                       "machines.)"),
            paper_value="qualitative: errors de-correlate; rescue bonus active",
            kind="headline",
            control="independent GRPO on the same pair",
        ),
        Claim(
            id="majority-close",
            statement="A non-oracle majority vote over the team's answers comes close to the oracle Team Pass@k.",
            paper_value="three-model AIME: majority 81.20% vs oracle 82.60%",
            kind="headline",
            no_control="a comparison of two aggregations of the same samples, not of a method with a baseline",
            check=C.threshold("core/oracle_minus_majority", at_most=0.05, on="mean",
                              label="oracle Team Pass@2 minus majority vote (CoRe)").gated(
                C.gate("independent/P/gain", at_least=1e-9, frac=0.8,
                       why="model P's pass@1 rises under the independent control (gate added after the first "
                           "full seed, where both models sat at the floor)"),
                C.gate("base/team_pass", at_least=0.2, why="the starting team solves >= 20% (something to vote on)")),
        ),
    ),
    examples="icml26.llm.core.experiment:EXAMPLES",
)

_EXPORTS = {"strip_answer": ".method", "hybrid_distances": ".method", "dpp_lite": ".method",
            "score_question": ".method", "team_metrics": ".method", "train_team": ".protocol",
            "pretrain_pair": ".setting"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
