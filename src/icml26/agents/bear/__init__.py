"""BEAR: Dissecting Embodied Abilities in Multimodal Language Models through Skill-level Evaluation and
Diagnosis (arXiv 2510.08759; v2 is the ICML 2026 version; v1 was titled "BEAR: Benchmarking and
Enhancing Multimodal Language Models for Atomic Embodied Capabilities").

The benchmark harness (14 skills in 6 categories, per-skill scoring, hierarchical diagnosis) and the
BEAR-Agent loop (skill prompts choosing tools, tool outputs fed back, <= 10 replies) are in
:mod:`.method`; procedural items and grid episodes in :mod:`.setting`; the tiny CNN + transformer base
model in :mod:`.model`. A real VLM runs through the same harness with
``icml26 run bear --set endpoint=http://localhost:8000/v1 --set model=<served model>``.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_SKILLS_ALL = ["point_object", "point_part", "point_relation", "box_object", "box_part", "box_relation",
               "traj_gripper", "traj_hand", "traj_object", "spatial_localization", "spatial_direction",
               "spatial_path", "plan_next", "plan_progress"]

#: the skills of the profiles, chosen on dev seed 100 (which no profile runs) before any profile run: first
#: with all 14 trained at the full budget, the six with margins over chance < 0.25 (point_part 0.24, box_part
#: 0.15, box_relation 0.18, traj_object 0.03, plan_next 0.10, plan_progress 0.22) do not reach the gate; then,
#: with the remaining 8, point_relation fell to 0.23 (0.48 before), so it is out as well
_SKILLS_IN = ["point_object", "box_object", "traj_gripper", "traj_hand", "spatial_localization",
              "spatial_direction", "spatial_path"]

_GATE = C.gate("gate/min_margin", at_least=0.25,
               why=("training worked: the base model's held-out score is >= chance + 25 points on every skill of "
                    "the profile (chance: 1/4 for multiple choice, mean mask area for pointing, mean IoU of a "
                    "random box of the mean true size for boxes)"))

PAPER = Paper(
    slug="bear",
    title=("BEAR: Dissecting Embodied Abilities in Multimodal Language Models through Skill-level Evaluation "
           "and Diagnosis"),
    source="arXiv:2510.08759",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.bear.experiment:EXAMPLES",
    summary=("Skill-level embodied benchmark (14 skills, 6 categories), a perception-vs-reasoning diagnosis, and "
             "BEAR-Agent, which gives an MLLM visual tools in a multi-turn loop."),
    substitution=(
        "Keeps: the 14-skill / 6-category taxonomy (pointing and bounding box x general object, semantic part, "
        "spatial relationship; trajectory x gripper, human hand, object; spatial x object localization, "
        "relative direction, path planning; task planning x next action, task progress; long-horizon episodes "
        "that chain them) with a generator for every skill; the scoring rules (point inside the ground-truth "
        "mask, mean IoU of boxes, multiple-choice letter, parsed exactly instead of by gpt-3.5-turbo); the "
        "horizontal per-skill/per-category profile; the BEAR-Agent loop of yqi19/BEAR-official (skill-specific "
        "prompts Perception / Traj / ObjTraj / ObjectLocalization / RelativeDirection / NextActionPrediction / "
        "TaskProgressReasoning choosing tools, tool outputs fed back as text and annotated image, at most 10 "
        "replies), runnable with a real VLM through the OpenAI-compatible client (method.chat_agent). "
        "Replaces: the 4,469 image/video items by procedural 32 x 32 Pillow scenes with ground-truth masks, "
        "arrow-trajectory items and 2-4-frame sequences (setting.py); the 35 AI2-THOR long-horizon episodes by "
        "gymnasium grid episodes (walk to the named object among distractors; minigrid is not installed); the "
        "20 MLLMs and GPT-5 by one tiny model trained per seed on generated items, in two learned halves: a "
        "CNN + transformer perception net (d = 48, 2 layers: pointing and box heads, and a percept head that "
        "answers 'where is entity e in frame t' with a presence logit) and a transformer reasoner over percept "
        "tokens (trained on ground-truth item states, positions jittered by 1 px) that answers the "
        "multiple-choice reasoning skills from the net's percepts. An end-to-end pixel-to-option head stayed "
        "at chance on every reasoning skill after 1,500 steps in a pilot, so the split is what makes reasoning "
        "learnable in the 3-minute budget (it also gives the vertical diagnosis its two halves); answers are "
        "text that the harness parses. GroundingDINO / Semantic-SAM / trajectory extension / crop-and-zoom "
        "become classical tools (colour threshold + scikit-image connected components with a fill-ratio shape "
        "test, foreground segmentation, least-squares line fit of an arrow's pixels, Pillow crop-and-zoom with "
        "a dark-part search) that fail under clutter and occlusion; their standalone scores are reported "
        "(skill/<s>/tool). Depth estimation is not used (flat scenes). The tiny model cannot write code, so the "
        "tool choice per skill is the fixed plan its skill prompt prescribes; tool outputs are fed back for "
        "pointing/boxes as a sketch layer the net reads (it was trained with tool sketches on half of its "
        "training items, our stand-in for a VLM's ability to read annotated images, which GPT-5 never was) and "
        "for reasoning skills as percepts that replace the net's own where the tools found the entity. The "
        "repo's ObjectLocalizationPrompt and PlanningPrompt (which BEAR-Agent/agent/main.py uses for path "
        "planning, next action and task progress) offer no tool, and its ObjTrajPrompt lists none; our plans "
        "use detection for all of them (and extend_arrow for traj_object), and PROMPT_OF gives path planning "
        "the Perception prompt. With a real VLM (chat_agent) a tool call is one JSON object per reply, not "
        "Python code run in the repo's AutoGen Jupyter kernel; there is no depth, overlay or sliding-window "
        "tool. Skills in the "
        "profiles: 7 of 14 (point_object, box_object, traj_gripper, traj_hand, spatial_localization, "
        "spatial_direction, spatial_path) plus the long-horizon episodes, chosen on dev seed 100 (no profile "
        "runs it) before any profile run: with all 14 trained at the full budget six stayed below the gate "
        "(margins over chance: point_part 0.24, box_part 0.15, box_relation 0.18, traj_object 0.03, plan_next "
        "0.10, plan_progress 0.22), and with the remaining 8 point_relation fell to 0.23 (0.48 before). So the "
        "semantic-part, spatial-relationship and task-planning skills are not covered and no claim speaks for "
        "them (they run with --set skills=[...]). The vertical diagnosis, which the paper "
        "describes only qualitatively, is our operationalisation: for each failed reasoning item, the model's "
        "reasoner on ground-truth percepts vs an exact reasoner on the model's own percepts. "
        "Review notes (after the full run; no rule, parameter or skill changed): the training gate failed in "
        "3/5 seeds (seed 0: traj_hand margin 0.15; seed 2: spatial_localization 0.22; seed 4: traj_hand 0.12; "
        "every other skill of every seed >= 0.25), so agent-gain and perception-bottleneck are not-checkable "
        "by their pre-registered gate although the agent-gain check itself passes in 5/5 seeds (agent - "
        "test-time scaling +0.07 to +0.14, each 95% CI above 0). The gain comes from tools that are better "
        "perceivers than the model: the tools alone (exact reasoner on tool percepts, box of the tool sketch) "
        "score 0.925 on average over the 7 atomic skills against the agent's 0.78 (base 0.70), so the loop "
        "with our learned model loses part of what its tools find. "
        "Second review (after the full run; no rule, parameter, metric or skill changed; numbers from the "
        "stored rows and from read-only re-analysis of the cached seed models): (1) the reasoning-skill tools "
        "are near-oracles, so for those skills the gain is close to true by construction: on seed 0's test "
        "items the detection step finds 96-99% of the present entities per frame and puts 99.6-100% of them "
        "within 3 px of the truth, unchanged at clutter 1.0 (errors: 9 false detections in 120 absent frames "
        "of object localization, and the arrow line fits), against 83-91% for the model's own percepts "
        "(diag/percept_acc); these tool percepts replace the model's by a harness rule, which the model never "
        "weighs (the repo's prompts tell the model to double-check tool outputs). Only pointing/boxes use a "
        "learned reading of the tool sketch, and only their tools degrade with clutter (tools alone 0.93 -> "
        "0.77 at clutter 1.0). (2) Two profile skills and the long-horizon episodes use tools the repo's "
        "agent does not offer (object localization; path planning, which drives every long-horizon step); "
        "restricted to the five skills whose repo prompt offers tools (point_object, box_object, "
        "traj_gripper, traj_hand, spatial_direction), agent - test-time scaling is still +0.065, +0.079, "
        "+0.110, +0.174, +0.086 by seed, each 95% bootstrap CI above 0; long-horizon alone +0.03 to +0.23. "
        "(3) The test-time-scaling control is not starved of calls: at 10 calls (the repo's reply cap) "
        "instead of 2 it scores 0.667 and 0.726 on the atomic skills of seeds 0 and 3 (2 calls: 0.664, "
        "0.708; agent: 0.721, 0.847). (4) The shuffled-output control (0.24) sits far below the base "
        "model (0.65): the model follows whatever the tools say, so it shows that the tool content is "
        "used, not that the agent beats a competitive alternative; the decision rests on test-time scaling "
        "in every seed. (5) perception-bottleneck on our model: ground-truth perception fixes 0.65 of the "
        "reasoning failures vs 0.48 for a perfect reasoner, but the order is reversed in seeds 0 (0.41 vs "
        "0.62) and 4 (0.53 vs 0.62), Wilcoxon p = 0.31: without the gate and the uncheckable label the check "
        "would say not-reproduced, i.e. our model's failures are not clearly perception-driven. "
        "Re-run (2026-12-01, read-through): the hand-written encoder block became torch's pre-norm "
        "TransformerEncoderLayer (same architecture, torch's initialisation), so the stored numbers moved and "
        "the figures above are the previous run's: gate met in 3/5 seeds (was 2/5); agent over base +0.074 "
        "(+11.8% relative); agent minus test-time scaling +0.034 to +0.131, CI above 0 in 4/5 seeds (would say "
        "reproduced); perception-bottleneck improvement 0.04 [-0.11, 0.22] (would say not-reproduced). "
        "Cold full run on a quiet machine: 156 s, 264 s CPU in jobs (slowest seed 60 s)."),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "skills": _SKILLS_IN, "n_pool": 12, "steps": 30, "r_steps": 30, "batch": 16, "lr": 3e-3, "d": 32,
            "n_test": 6, "n_episodes": 6, "clutter": 0.5, "n_tts": 2, "endpoint": "", "model": "",
            "n_endpoint": 2}, timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "skills": _SKILLS_IN, "n_pool": 120, "steps": 750, "r_steps": 400, "batch": 32, "lr": 3e-3, "d": 48,
            "n_test": 40, "n_episodes": 30, "clutter": 0.5, "n_tts": 2, "endpoint": "", "model": "",
            "n_endpoint": 10}, timeout_s=900),
    },
    claims=(
        Claim(
            id="perception-bottleneck", kind="headline",
            statement=("Perception is the main bottleneck behind reasoning failures (here: of our tiny base model, "
                       "not of the paper's MLLMs): among the base model's failed reasoning items (the trajectory "
                       "and spatial skills of the profile), its reasoner given "
                       "ground-truth percepts fixes a larger share than an exact reasoner given the model's own "
                       "percepts."),
            paper_value="qualitative: perceptual capabilities are major bottlenecks behind reasoning failures (20 MLLMs)",
            control="a perfect (exact) reasoner on the model's own percepts: the share of failures that are reasoning failures",
            uncheckable=("the paper's finding is about 20 MLLMs; our numbers describe our tiny base model only, "
                         "whose bottleneck depends on how it was trained, so they cannot confirm or refute it"),
            check=C.beats("diag/gt_fix", "diag/reasoner_fix", better="higher", test="wilcoxon",
                          label="fixed by ground-truth perception", control_label="fixed by a perfect reasoner"
                          ).gated(_GATE)),
        Claim(
            id="agent-gain", kind="headline",
            statement=("BEAR-Agent (the same model with skill-chosen tools whose outputs are fed back) scores higher "
                       "than the model with test-time scaling at equal model calls and than the same loop fed "
                       "shuffled tool outputs."),
            paper_value="GPT-5: +9.12 points absolute, 17.5% relative (about 52.1 -> 61.2 mean over BEAR)",
            reference=0.0912,
            control=("the better (per seed) of: test-time scaling at equal model calls (2 calls, photometric "
                     "augmentation, soft vote) and the agent loop with tool outputs shuffled across items"),
            check=None),
        Claim(
            id="model-zoo-and-robot", kind="headline",
            statement=("20 MLLMs show persistent limits in every skill (proprietary above open; CoT and test-time "
                       "scaling give little), and BEAR-Agent improves real-robot tabletop grasping by 20.17%."),
            paper_value="20 MLLMs on 4,469 items; +20.17% real-robot grasping",
            no_control="findings about a model zoo and a robot we do not have",
            uncheckable=("needs the 20 MLLMs (or an endpoint per model) and a robot; our single model's best skill "
                         "score is shown"),
            check=C.threshold("profile/max_skill_base", at_most=0.9)),
    ),
)
