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
           "k": 64, "threshold": 0.05, "sharpness": 1.0, "sweep": [0.5, 2.0], "n_sampled": 512,
           "taus": [0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9]}

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
        "only the code's similarity form is implemented. Further deviations: (a) after a failed episode the code "
        "writes every detection of its sliding window to the false-positive memory, we write only the detection the "
        "agent stopped on (a failure by budget writes nothing); (b) the code keeps 32 combinations per room, we keep "
        "16 (immaterial here: every decision of the first full run kept exactly 16 worlds, and the top 16 worlds "
        "never need more than a room's 16 best combinations). Second pass (after a review of the first full run): "
        "the success boost now acts after the STOP decision as in the released code (utils/object_detection.py "
        "verifies an already accepted detection and never compares the boosted confidence with a threshold again), "
        "so it cannot create a STOP; the first pass's boost-before-STOP form is kept only as the labelled arm Eb. "
        "The tuned-threshold arm T now searches STOP levels 0.3-0.9 (the first pass's 0.5-0.9 grid could not go "
        "below D's 0.5, though goal confidences are U(0.45, 0.95) and every false positive is >= 0.5), and the "
        "memory is compared with T at T's own level (ET = T + memory). Supporting arm S: D with 512 worlds sampled "
        "from the full joint instead of the top-K."),
    profiles={
        "quick": Profile("quick", seeds=2, params={**_COMMON, "episodes": 40, "nofp_episodes": 20,
                                                  "tune_episodes": 20, "taus": [0.3, 0.5, 0.7],
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
                       "bootstrap gives the same interval as the pooled one. Second pass: arms B, C and D and this check "
                       "are unchanged.)"),
            paper_value="qualitative: PSG-Nav +12.1 SR over SG-Nav on HM3D (project page); ablations in the paper",
            kind="headline", control="B: argmax-label scene graph with the same scorer, detector and budget",
            check=paired_bootstrap("succ/D", "succ/B", label="D multiverse", control_label="B argmax labels")),
        Claim(
            id="multiverse-beats-marginals",
            statement=("Expected utility over the top-K joint worlds (D) beats plugging the independent marginals "
                       "into the same (non-additive) world score (C). (First full run, not pre-registered: the 0.05 "
                       "threshold on the raw joint probability was never met with several observed rooms, so D "
                       "always kept the K/4 = 16 relaxed worlds, which hold 9% of the joint mass on average; D and C "
                       "were level at all three prior sharpness levels. Second pass, check unchanged: a stored "
                       "supporting arm S, D with 512 worlds sampled from the full joint instead of the top-K "
                       "(sr/S, succ/S), tells whether the tie is an artefact of the relaxation; it decides nothing. "
                       "Second full run: S 0.416 vs C 0.414, +0.002 [-0.012, +0.016], and S vs D +0.004 [-0.011, "
                       "+0.019] over the same 1500 episodes: the full-joint expectation is also level with the "
                       "plug-in, so the tie is not an artefact of the top-K relaxation; the world average does not "
                       "beat the marginals in this setting, hence not-reproduced rather than not-checkable.)"),
            paper_value="qualitative: multiverse decision helps over a single probabilistic estimate (ablation)",
            kind="headline", control="C: independent marginals (soft label counts) in the same score",
            check=paired_bootstrap("succ/D", "succ/C", label="D multiverse", control_label="C marginals")),
        Claim(
            id="memory-cuts-false-stops",
            statement=("The success/failure memory (E = D + memory) cuts premature STOPs on persistent false "
                       "positives and raises SR over D and over a STOP-confidence threshold tuned on separate "
                       "episodes; without persistent false positives it does not lose SR (margin 2 points). "
                       "Second pass, re-registered before the second full run: (i) the memory's x1.1 success boost "
                       "now acts after the STOP decision, as in the released code, so it never turns a "
                       "below-threshold detection into a STOP (in the first pass a remembered goal stopped at "
                       "0.5/1.1 = 0.455, which review found to be about half of E's +0.105 over D); (ii) T's grid is "
                       "0.3-0.9 (was 0.5-0.9, which could not go below D's 0.5 although goal confidences are "
                       "U(0.45, 0.95) and every false positive is >= 0.5), and the tuned-threshold sub-check "
                       "compares ET = T + memory (E at T's tuned level, its own memory) with T, instead of E at 0.5 "
                       "with T. The other three sub-checks (E vs D SR, E vs D premature STOPs, non-inferiority "
                       "without persistent false positives), the gate and the pass rules are unchanged. Stored, "
                       "deciding nothing: Eb, the first pass's boost-before-STOP form; nofp T, ET and Eb. A "
                       "veto-only memory (boost 1) is identical to E episode by episode now that the boost acts "
                       "after the STOP (unit-tested), so it is not run as a separate arm. Second full run: the tuned "
                       "level was the grid's lowest, 0.3, in 5/5 seeds (equivalent to 0.45: no goal or false-positive "
                       "confidence lies below 0.45); ET - T = +0.064 [+0.052, +0.076], premature STOPs 0.145 vs "
                       "0.291; E - D = +0.059 [+0.048, +0.071] (first pass, boost before STOP, now arm Eb: +0.105); "
                       "not pre-registered, reported: the memory at D's level instead of tuning, E - T = +0.009 "
                       "[-0.008, +0.025], is level with the tuned threshold alone, so the memory adds to tuning "
                       "but does not replace it; without persistent false positives E = D and ET = T in every "
                       "episode (the veto never fires on a one-off false positive's fresh appearance), so that "
                       "sub-check passes by construction here.)"),
            paper_value="qualitative: EEC reduces false-positive STOPs (ablation); no number we can match",
            kind="headline", control=("D without memory, and D with a STOP threshold tuned on separate episodes "
                                      "(T; compared with ET = T + memory)"),
            check=C.all_of(
                paired_bootstrap("succ/E", "succ/D", label="E SR", control_label="D SR"),
                paired_bootstrap("succ/ET", "succ/T", label="E at tuned level SR",
                                 control_label="D + tuned threshold SR"),
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
    "marginal_utility", "multiverse_utility", "sampled_utility", "EvidentialMemory", "navigate")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
