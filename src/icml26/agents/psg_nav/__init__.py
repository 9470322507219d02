"""PSG-Nav: Probabilistic Scene Graph Navigation via Multiverse Decision Making (arXiv:2606.01313).

Object-goal navigation that keeps each detection's full class distribution in the scene graph,
enumerates the top-K jointly most probable labelings of the graph ("multiverse": best-first search
over per-room joint labelings, K = 64, threshold 0.05 relaxed until K/4 worlds, renormalised),
picks the exploration landmark by its expected utility over those worlds, and verifies goal
detections against a lifelong memory of past successes and false positives before stopping.
Here: numpy/networkx grid houses with a room-object prior, a confusion-matrix detector with
persistent look-alike decoys, and the prior table in place of the LLM scorer (see ``setting``).
"""

from icml26.agents.psg_nav._checks import paired_bootstrap
from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"n_landmarks": 3, "far_accuracy": 0.65, "random_fp_rate": 0.05, "decoy_rate": 0.3, "budget": 60.0,
           "k": 64, "threshold": 0.05, "sharpness": 1.0, "sweep": [0.5, 2.0], "taus": [0.5, 0.6, 0.7, 0.8, 0.9]}

PAPER = Paper(
    slug="psg-nav",
    title="PSG-Nav: Probabilistic Scene Graph Navigation via Multiverse Decision Making",
    source="arXiv:2606.01313",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.psg_nav.experiment:EXAMPLES",
    substitution=(
        "Keeps, from the paper and the released code (graph/scenegraph_combinations.py, utils/rag_manager.py): "
        "categorical class distributions on landmark nodes; per-room joint labelings with probability the product "
        "of node probabilities (top 16 kept per room); best-first top-K world enumeration over rooms with a max-heap "
        "(child = one room's index incremented, later rooms reset), K = 64, joint-probability threshold 0.05 relaxed "
        "until K/4 worlds, weights renormalised; landmark choice by expected utility over worlds; the success/"
        "false-positive memory (<= 20 appearance vectors each per goal category, diversity skip at cosine 0.97, "
        "reject at cosine >= 0.95 to a stored false positive, confidence x1.1 on a caption match within cosine "
        "0.7), written after each of the episodes run in sequence. Replaces: Habitat scenes (HM3D/MP3D/HSSD) by 3x3 "
        "grid houses of 8-cell rooms (doors: random spanning tree + extra doors, networkx shortest paths), 5 room "
        "types and 10 object categories with a hand-set room-object affinity table raised to a sharpness power; "
        "GLIP/Grounded-SAM by a confusion detector (landmarks seen from the next room as a noisy distribution, "
        "top-1 accuracy 0.65, look-alike pairs sofa/bed, toilet/sink, table/desk, tv/monitor; goal instance seen "
        "only inside its room with confidence U(0.45, 0.95)); persistent false positives by a per-seed library of "
        "two decoys per goal category with fixed appearance vectors (each present with prob. 0.3, confidence "
        "U(0.6, 0.95)), plus one-off false positives (rate 0.05 per room, fresh appearance); the LLM's "
        "P(goal near landmark | world) by the prior table: a world's score of a room is the goal probability given "
        "the room type its labels imply, q_r = sum_t P(t | labels) P(g | t), normalised over the candidate rooms "
        "(one goal instance), so it is not additive over objects; FMM planning by walking room to room on the door "
        "graph with a budget of 60 cells and 4 cells to search a room; the LLM's pairwise landmark comparisons, win "
        "counts and semantic-entropy term are omitted (expected utility only). Deviation from the released code: "
        "its threshold loop keeps popping below-threshold worlds until the heap is empty, which leaves its K/4 "
        "relaxation step nothing to pop; we implement the stated intent (stop at the threshold once K/4 worlds are "
        "kept). The paper's evidential form of the memory was not recoverable from the text we could reach, so "
        "only the code's similarity form is implemented. Further deviations (disclosed by review after the full "
        "run): (a) the memory's x1.1 confidence boost is applied before the STOP comparison, so for a goal that "
        "matches a stored success E stops at confidence >= 0.5/1.1 = 0.455 while D needs 0.5; in the released code "
        "verification runs on a detection the detector has already accepted and a verified detection's adjusted "
        "confidence is not compared with a threshold again, so there the boost never creates a STOP; (b) after a "
        "failed episode the code writes every detection of its sliding window to the false-positive memory, we "
        "write only the detection the agent stopped on (a failure by budget writes nothing); (c) the code keeps "
        "32 combinations per room, we keep 16 (immaterial here: every decision of the full run kept exactly 16 "
        "worlds, and the top 16 worlds never need more than a room's 16 best combinations); "
        "(d) the tuned-threshold arm T searches STOP levels 0.5-0.9, all at or above D's 0.5, while goal "
        "confidences are U(0.45, 0.95) and every false positive's is >= 0.5, so T could not take the free "
        "lowering to 0.45."),
    profiles={
        "quick": Profile("quick", seeds=2, params={**_COMMON, "episodes": 40, "nofp_episodes": 20,
                                                  "tune_episodes": 20, "taus": [0.5, 0.7, 0.9],
                                                  "sweep_episodes": 10}, timeout_s=120),
        "full": Profile("full", seeds=5, params={**_COMMON, "episodes": 300, "nofp_episodes": 150,
                                                "tune_episodes": 60, "sweep_episodes": 100}, timeout_s=600),
    },
    claims=(
        Claim(
            id="distributions-beat-hard-labels",
            statement=("Keeping full class distributions and reasoning over worlds (D) gives a higher success rate "
                       "than writing each detection into the scene graph as its argmax label (B, SG-Nav analogue), "
                       "with the same detector and budget. (Review note after the full run, check unchanged: C, "
                       "distributions without worlds, gains as much over B, +0.021 [+0.004, +0.038], so the gain is "
                       "from keeping distributions; D > B holds in 5/5 seeds, +0.01 to +0.05, and a seed-stratified "
                       "bootstrap gives the same interval as the pooled one.)"),
            paper_value="qualitative: PSG-Nav +12.1 SR over SG-Nav on HM3D (project page); ablations in the paper",
            kind="headline", control="B: argmax-label scene graph with the same scorer, detector and budget",
            check=paired_bootstrap("succ/D", "succ/B", label="D multiverse", control_label="B argmax labels")),
        Claim(
            id="multiverse-beats-marginals",
            statement=("Expected utility over the top-K joint worlds (D) beats plugging the independent marginals "
                       "into the same (non-additive) world score (C). (Measured after the full run, not "
                       "pre-registered: the 0.05 threshold on the raw joint probability was never met with several "
                       "observed rooms, so D always kept the K/4 = 16 relaxed worlds; D and C are level at all three "
                       "prior sharpness levels. Review diagnostic after the full run, not stored, check unchanged: "
                       "the 16 worlds hold 9% of the joint mass on average (median 2.5%), yet D with the full "
                       "expectation estimated from 512 sampled worlds is also level with C, +0.011 [-0.002, +0.025] "
                       "over the same 1500 episodes, so the tie is not an artefact of the relaxation: the paper's "
                       "rule ran as specified and the world average does not beat the plug-in here, hence "
                       "not-reproduced rather than not-checkable.)"),
            paper_value="qualitative: multiverse decision helps over a single probabilistic estimate (ablation)",
            kind="headline", control="C: independent marginals (soft label counts) in the same score",
            check=paired_bootstrap("succ/D", "succ/C", label="D multiverse", control_label="C marginals")),
        Claim(
            id="memory-cuts-false-stops",
            statement=("The success/failure memory (E = D + memory) cuts premature STOPs on persistent false "
                       "positives and raises SR over D and over D with a tuned STOP-confidence threshold; without "
                       "persistent false positives it does not lose SR (margin 2 points). "
                       "(Measured after the full run, not pre-registered: the threshold tuned on separate episodes "
                       "was the lowest, 0.5, in every seed, because decoy confidences overlap the goal's, so the "
                       "tuned-threshold arm equals D; without persistent false positives E is ahead of D, "
                       "from the success memory's x1.1 boost, which lifts goal detections just under the 0.5 STOP "
                       "level. Review after the full run, check unchanged: T's grid 0.5-0.9 never went below D's "
                       "0.5, though a STOP level of 0.45 costs nothing here (all false positives are >= 0.5), so "
                       "the stored T equals D and its sub-check repeats E vs D; and the boost acting before the STOP "
                       "level is not in the released code (see substitution). Diagnostic rerun of the same 5 x 300 "
                       "episodes, not stored: D at 0.45 reaches SR 0.463; E - D@0.45 = +0.055 [+0.042, +0.068]; "
                       "the memory at the same 0.45 level, E@0.45 - D@0.45 = +0.064 [+0.052, +0.077], premature "
                       "STOPs 0.145 vs 0.291; a code-faithful memory (boost not creating STOPs) at 0.5: E - D = "
                       "+0.059, and E = D exactly without persistent false positives; E (as stored) - D@0.45 "
                       "without persistent false positives = -0.011, inside the 2-point margin. So about half of "
                       "the stored +0.105 over D is the boost's lower STOP level and half the false-positive veto; "
                       "the claim survives a fairly tuned threshold.)"),
            paper_value="qualitative: EEC reduces false-positive STOPs (ablation); no number we can match",
            kind="headline", control="D without memory, and D with a STOP threshold tuned on separate episodes",
            check=C.all_of(
                paired_bootstrap("succ/E", "succ/D", label="E SR", control_label="D SR"),
                paired_bootstrap("succ/E", "succ/T", label="E SR", control_label="D + tuned threshold SR"),
                paired_bootstrap("fstop/E", "fstop/D", better="lower", label="E premature STOPs",
                                 control_label="D premature STOPs"),
                paired_bootstrap("nofp/succ/E", "nofp/succ/D", mode="noninferior", margin=0.02,
                                 label="E SR (no persistent FPs)", control_label="D SR (no persistent FPs)"),
                partly="any",
            ).gated(C.gate("false_stop/D", at_least=0.05,
                           why="persistent false positives made D stop prematurely in >= 5% of episodes"))),
        Claim(
            id="benchmark-sr",
            statement="Success rates of 66.1% (HM3D), 44.8% (MP3D) and 67.9% (HSSD) on ObjectNav.",
            paper_value="SR 66.1 / 44.8 / 67.9 (abstract lists MP3D, HM3D, HSSD in that order; the project page's "
                        "+12.1 over SG-Nav on HM3D implies 66.1 is HM3D)",
            kind="headline", no_control="absolute benchmark numbers",
            uncheckable=("Habitat benchmarks, GLIP/Grounded-SAM and Qwen2.5 are not available here; shown: our "
                         "grid-house SR of arm E, which is not comparable"),
            check=C.threshold("sr/E", at_least=0.661, label="grid-house SR of E")),
        Claim(
            id="topk-is-exact",
            statement=("The best-first enumeration returns exactly the K most probable worlds in non-increasing "
                       "order (checked against brute force on random small instances)."),
            paper_value="the code's heap search (graph/scenegraph_combinations.py)",
            kind="identity", check=C.threshold("identity/topk_mismatch", at_most=0.0, label="mismatching instances")),
        Claim(
            id="all-worlds-exact",
            statement=("With every world kept (threshold 0, K = all), the multiverse utility equals the exact "
                       "expectation of the world score over all joint labelings."),
            paper_value="definition of U(l) = sum_w P(w) score_w(l)",
            kind="identity", check=C.threshold("identity/allworlds_err", at_most=1e-9, label="max abs error")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "multiverse_topk", "room_combinations", "room_goal_score", "plugin_goal_score", "hard_utility",
    "marginal_utility", "multiverse_utility", "EvidentialMemory", "navigate")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
