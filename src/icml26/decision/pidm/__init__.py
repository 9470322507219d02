"""When does predictive inverse dynamics outperform behavior cloning? (Schaefer et al.; arXiv:2601.21718).

Behaviour cloning maps a state straight to an action. A predictive inverse dynamics
model (PIDM) first predicts a future state and then asks an inverse dynamics model which
action leads there. The paper explains PIDM's advantage with few demonstrations as a
bias-variance trade-off: conditioning on the future removes the action ambiguity of a
multimodal expert (Theorem 1: the squared-error gap of the Bayes predictors equals
E_s Var(E[a|s,s'])), at the price of the predictor's bias; extra action-free or
non-expert data widen the gap.

Here: BC and PIDM (instance-based closest-reference predictor, as in the paper's 2-D
experiments, plus an MLP IDM), a continuous four-room navigation task with two equally
short routes (gymnasium API), and the bimodal linear-Gaussian toy with Theorem 1's Delta.
"""

import math

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_NAV = {"hidden": 64, "lr": 1e-3, "batch_size": 256, "k": 1, "step_size": 0.03, "max_steps": 120, "route_temp": 0.3,
        "noise_sd": 0.1, "tasks": ["fourroom", "threeroom"], "extra_tasks": ["threeroom"],
        "levels": [0.5, 0.6, 0.7, 0.8, 0.9], "toy_delta": 1.0, "toy_sigma_a": 0.3}

#: the authors' own four-room demonstrations (fifth session): data, dynamics and evaluation as in their repository
#: deciding evaluation: the fork's experiment suite (no noise, 500 steps); reported only: the authors' README protocol
_AUTHORS = {"author_demos": ["four_room_human"], "author_batch_size": 64, "author_eval_noise": 0.0, "author_n_eval": 1,
            "author_eval_max_steps": 500, "author_readme_noise": 0.2, "author_readme_max_steps": 200,
            "author_readme_n_eval": 10}

PAPER = Paper(
    slug="pidm",
    title="When does predictive inverse dynamics outperform behavior cloning?",
    source="arXiv:2601.21718",
    cluster="decision",
    feasibility="A",
    substitution=(
        "Kept: BC vs PIDM trained on the same expert demonstrations, PIDM's instance-based "
        "state predictor (closest demonstrated state, its successor k steps later; k = 1 as in the "
        "paper's 2-D configs), an MLP IDM on ground-truth (s_t, s_t+k) pairs, L1 action loss, continuous 2-D "
        "velocity actions, closed-loop success as the metric, the authors' demonstration budgets 1, 2, 5, 10, "
        "20, 30, 40, 50 and 20 seeds, sample efficiency as the ratio of demonstrations BC needs to those PIDM "
        "needs to reach the same success level (levels 0.5-0.9), extra action-free demonstrations for the "
        "predictor and random-policy transitions for the IDM. Replaced: the paper's four layouts and "
        "human / A* datasets (public in the authors' repository, but defined by their pygame simulator, "
        "which we have not ported) by one generated four-room layout with a scripted expert that picks one "
        "of two equally short routes at random, as two tasks: starts in one room (bimodal) and starts in "
        "any of three rooms (poorer coverage, PIDM below its ceiling); networks of 2 x 64 units trained "
        "500 Adam steps on minibatches of 256 (full batch below that; paper: 512-1024-256 MLPs, batch 4096, "
        "1e5 steps); the 3-D video-game experiment is "
        "not run. Theorem 1 is checked on a bimodal linear-Gaussian toy with gradient-boosted predictors. "
        "Full profile resized on 2026-12-01 to fit the 3-minute budget: the toy's held-out EPE set went from "
        "100000 to 20000 samples per noise level (the toy's training sets, 20000, are unchanged; the 20-seed "
        "Delta estimates were within 1% of the quadrature value against a 10% tolerance); the navigation "
        "computes the same numbers as before, faster (all networks of a task trained as one batched computation "
        "with the initial weights and minibatches of the one-at-a-time fits, all policies rolled out in one "
        "batched loop: seed 0's navigation metrics are identical to the earlier run's); seeds, budgets, "
        "training steps and evaluation starts are unchanged. "
        "Fifth session (issue 15), before its re-run (written before the stored full run; recipe chosen on dev seeds "
        ">= 100 by the BC training gate only): the authors' code and data are public (github.com/projectavi/"
        "pidm_warm_start_rl, commit 4e415f6; data under CDLA-Permissive-2.0), so the 'not ported' above no longer "
        "holds for their four-room task. Their pygame simulator is re-implemented in numpy (setting.parse_layout / "
        "goal_step: an ASCII layout stretched over 800 x 800 pixels, 20-pixel agent and goal boxes, dead zone 0.1, "
        "Gaussian transition noise, velocity x 20, positions rounded to 3 decimals, their push-out-of-walls rule, goals "
        "visited in a fixed order, 200 steps) and checked against their recordings: replaying the recorded actions of "
        "each of the 100 four-room episodes with the recorder's noise (one normal stream seeded 42, continued across "
        "the 50 episodes of a set) reproduces every recorded position to 0.002 pixels and every goal event (the zigzag "
        "and maze sets also replay exactly; the multiroom human set does not, and is not ported). The four-room A* and "
        "human demonstrations are vendored (positions, goal progress, actions; data/ with DATA_LICENSE.txt and "
        "PROVENANCE.md). New claim authors-four-room on the human set (the set of the authors' experiment suite): per "
        "seed a shuffled order of the 50 episodes; BC, BC' (second initialisation, the control) and PIDM (closest "
        "demonstrated state with the same goal-reached flags, the authors' 'same goal' mask, and its successor, k = 1; "
        "MLP IDM on the two states) trained on the first n in {1, 2, 5, 10, 20, 50} (authors: also 30 and 40) with the "
        "position and the goal flags as input, 2 x 64 units, 1000 Adam steps on minibatches of 64, L1 loss (authors: "
        "512-1024-256 units, 1e5 steps, batch 4096); evaluated as in the authors' evaluation config, without "
        "transition noise from the fixed start, so one episode decides each policy (success 0 or 1), averaged over "
        "the 20 seeds; the matched-level ratio (levels 0.5-0.9) is taken on the seed-mean curves, its p and interval "
        "from a bootstrap over seeds; gate: seed-mean BC success at 50 demonstrations >= 0.5. On dev seeds BC's "
        "seed-mean success at 50 demonstrations was 0.6 with 500 steps on minibatches of 256 (seeds 100-104, 6.3 s "
        "CPU per seed), 0.33 with 500 steps on minibatches of 128 (seeds 100-105), 0.83 "
        "with 1000 steps (minibatches of 128 or 64, seeds 100-105) and 0.6 with the chosen recipe on seeds 100-109; "
        "under the recorded noise (sd 0.2) instead of the authors' noise-free evaluation BC reached 0.45 at 50 "
        "demonstrations (seed 100, 500 steps, 20 episodes). The A* set is vendored and replay-tested but not run: "
        "with 500 steps neither BC nor PIDM passed the first goal on dev seeds (its recorder idles one step in three), "
        "and the CPU budget does not allow a second set (the human set costs about 4.3 s CPU per seed). The "
        "generated tasks and the other claims are unchanged. "
        "Fifth session full run (20 seeds, pre-registered in commit 253faac; 474.8 s CPU in jobs for the whole "
        "profile, 863 s wall on a loaded machine): authors-four-room is not-checkable, its gate failed: BC's seed-mean "
        "success at 50 demonstrations was 0.45 < 0.5 (0.6 on dev seeds 100-109). Seed-mean success at n = 1, 2, 5, 10, "
        "20, 50: BC 0.1, 0.05, 0.35, 0.3, 0.45, 0.45; BC' 0, 0.15, 0.4, 0.3, 0.2, 0.35; PIDM 0, 0.05, 0.2, 0.25, 0.4, "
        "0.25. At this scale (2 x 64 units, 1000 steps) neither policy learns the four-goal tour reliably (in the "
        "dev-seed traces the failures were agents pressed against the wall beside a doorway that leaves 15 pixels of "
        "play), and PIDM's success is at "
        "or below BC's at every budget; the paper's 2.8-3x on this data is neither confirmed nor refuted here. The "
        "other claims keep their verdicts; their numbers differ slightly from the earlier stored rows although their "
        "code did not change (sample-efficiency 0.638 -> 0.643 vs control -0.046 -> -0.040, extra-data 0.555 -> 0.552, "
        "seed 1's bias-sweep success 0.48 -> 0.38; a before/after comparison of dev seed 100 in this session was "
        "identical). A review found the same code fingerprint and identical toy metrics in the 03:00 and 10:51 rows; "
        "the .venv was reinstalled at 04:48-04:52, possibly on a different CPU (now an AMD EPYC, family 25). Inferred, "
        "not proven: floating-point rounding of the linear algebra library differs and flips 1-3 of 100 closed-loop "
        "episodes; the bias sweep moves most because its noise stream is shared across agents (method.py, "
        "PIDMPolicy.act), so one flipped episode shifts the draws of every later one. "
        "Fifth session, review fix, before its re-run (issue 15; a bug fix found in review after the stored run of "
        "commit 253faac, written before the re-run): authors-four-room's evaluation mixed two sources. The paper "
        "authors' README (Microsoft, commit 6d79520) evaluates with the recording's env config "
        "(four_room_human_00_env_config.yaml: transition noise sd 0.2, max_steps 200, --episodes 10); the fork "
        "owner's experiment suite (projectavi, commit e0d4891 of 2026-04-07: oss_configs/experiment_suite.yaml, "
        "experiments/runner.py, 50 episodes by default) evaluates with configs/toy_env/toy_env_four_room.yaml "
        "(add_transition_noise false, fixed start, max_steps 500). The stored run took the fork's noise-free "
        "evaluation with the recording's 200 steps, and the text above called this 'the authors' evaluation config'; "
        "the human episodes last 103-154 steps, so 200 steps is much stricter than the fork's 500. Now the deciding "
        "protocol is the fork's experiment suite throughout (no noise, fixed start, 500 steps; one episode stands "
        "for its 50 identical ones), and the authors' README protocol (noise sd 0.2, 200 steps, 10 episodes per policy "
        "and seed, success = fraction of episodes) is reported beside it, deciding nothing; also reported, deciding "
        "nothing: PIDM with an uninformative predictor (s' = s, the same IDMs, budgets and seeds). The gate (seed-mean "
        "BC success at 50 demonstrations >= 0.5), recipe, budgets, seeds and pass bars are unchanged. On dev seeds "
        "100-104 (full profile, 25 s CPU per seed; the fix was set by the review, not by these numbers) seed-mean "
        "success at n = 1, 2, 5, 10, 20, 50 under the fork's protocol: BC 0, 0, 0, 0.4, 0.2, 1.0; BC' 0, 0, 0.2, 0.2, "
        "0.4, 0.2; PIDM 0, 0, 0.2, 0, 0.2, 0.2; PIDM with s' = s 0, 0, 0, 0.2, 0.2, 0.2; under the README protocol BC "
        "0.04, 0.06, 0.1, 0.52, 0.32, 0.56, BC' 0.02, 0.02, 0.28, 0.28, 0.28, 0.22, PIDM 0.06, 0.1, 0.2, 0.32, 0.14, "
        "0.32. Our recipe also differs from the authors' templates (the fork's oss_configs/templates/"
        "toy_bc_four_room.yaml and toy_idm_closest_ref.yaml): their PIDM's IDM trains with Adam at lr 1e-5 and no "
        "schedule; their BC with lr 1e-3, LinearLR from 1x to 0.001x (total_iters 50000) and gradient-norm clipping "
        "at 1.0; both networks end their encoder with batch-norm; for n < 50 the suite holds out 10 further episodes "
        "for validation (none at n = 50); they evaluate last.ckpt. Ours: lr 1e-3 for both, no schedule, no clipping, "
        "no batch-norm, all n episodes for training, the final weights evaluated (as last.ckpt would be). The '>= 2x' "
        "pass bar of sample-efficiency and authors-four-room (log 2 on the mean log ratio) is ours, not the paper's: "
        "a rounding down of the paper's 2.8-3x average, so that an advantage somewhat smaller than reported still "
        "counts while one within noise of 1x does not; it is unchanged. "
        "Review-fix full run (20 seeds, pre-registered in commit 6c6b194; 551.4 s CPU in jobs, was 474.8 s, above the "
        "~330 s target as before; 347 s wall): authors-four-room stays not-checkable, its gate failed again: BC's "
        "seed-mean success at 50 demonstrations 0.45 < 0.5. Under the fork's 500 steps every deciding curve is "
        "identical to the 200-step run's (BC 0.1, 0.05, 0.35, 0.3, 0.45, 0.45; BC' 0, 0.15, 0.4, 0.3, 0.2, 0.35; PIDM "
        "0, 0.05, 0.2, 0.25, 0.4, 0.25 at n = 1, 2, 5, 10, 20, 50): every policy that finished the tour did so within "
        "200 steps and none of the others finished in 500, so the step limit was not why BC failed its gate. PIDM "
        "with s' = s: 0, 0, 0.15, 0.25, 0.45, 0.3, at or above PIDM from n = 5 on, so at this scale the closest-"
        "reference predictor adds nothing measurable to the IDM. Not deciding, the authors' README protocol (noise "
        "sd 0.2, 200 steps, 10 episodes): BC 0.12, 0.11, 0.16, 0.24, 0.36, 0.34; BC' 0.05, 0.16, 0.29, 0.26, 0.34, "
        "0.38; PIDM 0.1, 0.1, 0.18, 0.2, 0.27, 0.21; PIDM at or below both BCs from n = 2 on. Every metric the "
        "earlier rows (10:51, commit 253faac) hold is bit-identical in all 20 seeds, the authors' deciding curves "
        "included (sample-efficiency 0.643 vs control -0.040, extra-data 1.40 vs 0.552, seed 1's bias-sweep "
        "success 0.38); the other claims' verdicts are unchanged. Nothing was changed after this run but text."
    ),
    examples="icml26.decision.pidm.method:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_NAV, "n_demos": [1, 2, 5], "steps": 150, "n_eval": 30,
            "n_extra_free": 8, "n_extra_random": 500, "bias_n": 2, "bias_sd": [0.0, 0.1, 0.3],
            "toy_sigma_eta": [0.3, 1.0], "toy_n_train": 5000, "toy_n_test": 10000, "toy_bias_sd": [0.0, 0.3, 3.0],
            **_AUTHORS, "author_n_demos": [1, 5], "author_steps": 100}),
        "full": Profile("full", seeds=20, timeout_s=1800, params={
            **_NAV, "n_demos": [1, 2, 5, 10, 20, 30, 40, 50], "steps": 500, "n_eval": 100,
            "n_extra_free": 16, "n_extra_random": 2000, "bias_n": 5, "bias_sd": [0.0, 0.03, 0.1, 0.3],
            "toy_sigma_eta": [0.3, 1.0, 2.0], "toy_n_train": 20000, "toy_n_test": 20000,
            "toy_bias_sd": [0.0, 0.3, 1.0, 3.0], **_AUTHORS, "author_n_demos": [1, 2, 5, 10, 20, 50],
            "author_steps": 1000}),
    },
    claims=(
        Claim(
            id="sample-efficiency", kind="headline",
            statement=("In 2-D navigation BC needs up to 5x and on average 3x more demonstrations than PIDM "
                       "to reach comparable performance."),
            paper_value="BC needs 3x (avg) / up to 5x more demonstrations (four 2-D tasks, human and A* data)",
            reference=3.0,
            control=("the same matched-level ratio with a second BC (another initialisation, same demonstrations) "
                     "in PIDM's place: the value the metric takes when there is no difference"),
            check=C.all_of(
                C.beats("log_ratio/pidm", "log_ratio/bc_control", better="higher", test="wilcoxon",
                        label="mean log(BC demos / PIDM demos)", control_label="mean log(BC demos / BC' demos)"),
                C.threshold("log_ratio/pidm", at_least=math.log(2.0), on="mean",
                            label="mean log(BC demos / PIDM demos) (log 2 = 0.693: BC needs 2x)"),
            ).gated(C.gate("bc_final_success", at_least=0.5, frac=0.8,
                           why="BC learned the task (success >= 0.5 at the largest budget, task mean)"))),
        Claim(
            id="authors-four-room", kind="headline",
            statement=("On the authors' own four-room task and human demonstrations (their repository's data, "
                       "replayed in our re-implementation of their simulator), BC needs at least 2x as many "
                       "demonstrations as PIDM to reach the same success rate. Fifth session, review fix, before "
                       "its re-run: evaluated as in the fork's experiment suite (no transition noise, fixed start, "
                       "500 steps; the stored run of 253faac used 200 steps, a bug found in review); the authors' "
                       "README protocol (noise sd 0.2, 200 steps, 10 episodes) and PIDM with s' = s are reported, "
                       "deciding nothing; gate, recipe, budgets and seeds unchanged. Its full run (6c6b194): "
                       "not-checkable again, BC 0.45 at 50 demonstrations < 0.5, every curve identical to the "
                       "200-step run's."),
            paper_value=("BC needs 3x (avg) / up to 5x more demonstrations over four 2-D tasks; 2.8x with human "
                         "data (ICLR version)"),
            reference=3.0,
            control=("the same matched-level ratio with a second BC (another initialisation, same demonstrations) "
                     "in PIDM's place, at the same success levels")),
        Claim(
            id="theorem1", kind="identity",
            statement=("With squared loss, EPE(BC*) - EPE(IDM*; p*) = E_s[Var_{s'~p*}(E[a|s,s'])] >= 0: "
                       "conditioning on the future removes the action variance explained by it."),
            paper_value="Theorem 1 (identity, law of total variance)"),
        Claim(
            id="bias-tradeoff", kind="headline",
            statement=("PIDM trades variance for predictor bias: its advantage holds only while the state "
                       "predictor's bias is small enough (Corollary 1) and reverses for a badly biased predictor."),
            paper_value="PIDM better iff Delta > -(delta + beta + gamma) (Corollary 1)",
            control="BC on the same demonstrations (navigation) and the Bayes BC predictor (toy)"),
        Claim(
            id="extra-data", kind="headline",
            statement="The gap between PIDM and BC widens when additional (action-free / non-expert) data is available.",
            paper_value="gap widens with additional data sources (qualitative)",
            control="PIDM on the same demonstrations without the extra data",
            check=C.beats("threeroom/log_ratio/pidm_extra", "threeroom/log_ratio/pidm", better="higher",
                          test="wilcoxon", label="log(BC/PIDM+extra demos)", control_label="log(BC/PIDM demos)"
                          ).gated(C.gate("threeroom/pidm_headroom", at_least=0.1, frac=0.8,
                                         why="PIDM is below its ceiling at 1-2 demonstrations (success <= 0.9)"))),
    ),
    summary="BC vs PIDM on two four-room navigation tasks, Theorem 1 on a linear-Gaussian toy.",
)

__getattr__ = lazy_exports(__name__, {
    **{name: ".method" for name in ("BCPolicy", "PIDMPolicy", "ClosestReferencePredictor", "fit_regressor",
                                     "make_pairs", "linear_gaussian_delta", "linear_gaussian_idm",
                                     "sample_linear_gaussian", "demos_needed", "matched_level_ratios")},
    **{name: ".setting" for name in ("FourRoomsNav", "expert_episode", "rollout_success", "sample_starts",
                                      "sample_free", "step_positions", "in_wall", "GoalLayout", "parse_layout",
                                      "goal_step", "goal_touch", "goal_features", "goal_replay", "goal_rollouts",
                                      "load_author_demos", "author_demo_noise", "AUTHOR_DEMOS")},
})

__all__ = ["PAPER", "BCPolicy", "PIDMPolicy", "ClosestReferencePredictor", "fit_regressor", "make_pairs",
           "linear_gaussian_delta", "linear_gaussian_idm", "sample_linear_gaussian", "demos_needed",
           "matched_level_ratios", "FourRoomsNav", "expert_episode", "rollout_success", "sample_starts",
           "sample_free", "step_positions", "in_wall", "GoalLayout", "parse_layout", "goal_step", "goal_touch",
           "goal_features", "goal_replay", "goal_rollouts", "load_author_demos", "author_demo_noise", "AUTHOR_DEMOS"]
