"""AutoControl Arena: synthesizing executable test environments for frontier AI risk evaluation
(arXiv 2603.07427).

The pipeline (Architect -> Coder with sandboxed validate-and-retry -> Target -> Monitor, Stress x
Temptation grid) is in :mod:`.method`; the decoupling test trains a tiny LM on executed transcripts
and compares it as a narrator of executed state with the same LM as a generative simulator.

Review notes (after the full run; no stored metric changed): the Monitor-flip half of the headline
check is one-sided by construction -- the decoupled arm's Monitor reads the executed states, so its
flips are 0 and ``flip/decoupled`` is written as the constant 0.0; that half therefore tests only that
the generative simulator's state drift reaches the Monitor's labels (its label says so), and the
pre-registered "paired CI excluding 0" is now required for it too (``flip/generative_lo``, met in 5/5
seeds). The narrative-contradiction half carries the comparison: both arms use the same LM narrator,
each conditioned on the state in its prompt (executed vs its own prediction), so the narrator's
copying skill is the same in both arms and the gap measures the state the narrative is conditioned on.
Test episodes reach audit-log lengths 27-36, beyond the 0-26 seen in training; both arms face them
(most of the decoupled arm's residual contradictions are there). The paper's 98% end-to-end success
and 60% human preference are a separate not-checkable claim (they were shown beside the reproduced
claim before review).

A review analysis on the cached full-profile LMs of seeds 1 and 4 (not stored, not a check): the
generative arm's narrative against its *own* state contradicts 0.04 / 0.07 per step, like the decoupled
narrator (0.04 / 0.11), so its excess is the state it conditions on; its state errors are mostly the
file set (0.22 / 0.19 of steps), and 29/35 first errors per seed occur at in-range log lengths (drift is
not only the log extrapolation). A generative simulator re-synchronised to the executed state every k
steps -- the naive alternative a reviewer would ask for -- gives 0.10 / 0.16 (k=1), 0.12 / 0.20 (k=2),
0.16 / 0.23 (k=4), 0.23 / 0.27 (k=8) against 0.29 / 0.30 without re-synchronisation: even per-step
re-synchronisation stays above the decoupled arm, so one-step logic errors and compounding both count.

Budget and second control (2026-12-01, before the full re-run): the cold full profile took far more than its
CPU budget (the simulator's 1000 training steps of 48 lines were ~80% of a seed), so the simulator is now
d 32 with 1800 steps of 16 lines at lr 1e-2 (tuned on dev seed 100 only: held-out next-state accuracy 0.93
at 1600 steps, 0.975 at 2000; 1800 is the most the budget allows; the pre-registered >= 0.9 gate is
unchanged), and decoding is one batched greedy pass over
prompts of all lengths (:func:`.method.greedy_complete`) with the generative simulator's next state and
narrative read from one completion (what greedy decoding of the two prompts gave before, in one pass).
The re-synchronised simulators (k = 1, 4) are now stored as a second control (``contr/resync{k}``,
``flip/resync{k}``) with every measure split by seen vs unseen audit-log lengths (``split/...``); the headline
rule is unchanged, and beating the k = 4 arm is a separate claim registered before the re-run (the review's
seeds 1 and 4 had shown it on the old model, so it is not blind). k = 1 is reported but decides nothing: it
removes compounding altogether, leaving the LM's one-step error, which the gate bounds.

Outcome of that re-run (no check changed after it): the cheaper simulator missed the >= 0.9 gate in 2/5 seeds
(seed 0: 0.875, seed 2: 0.895; others 0.96-0.965), so both headline claims are now not-checkable although
their checks would pass (contradictions per step: decoupled 0.088, k=1 0.134, k=4 0.189, generative 0.307).
Seen vs unseen log lengths: only 4.9% of test steps (16% of episodes) pass the training maximum of 26; there
the decoupled narrator also fails (0.50 per step vs 0.067 on seen lengths), the generative arm 0.85 vs 0.28.
The fix within the budget is open (2000 steps met the gate on the dev seed but exceeds the per-seed CPU).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_FRONTIER = ("a finding about nine frontier models under the authors' X-Bench scenarios, Monitor rubric and "
             "pressure templates, none of which we have; the grid here runs scripted targets whose behaviour under "
             "pressure we wrote, so it shows the harness measures such behaviour, not that models have it")

_GATE = C.gate("gate/next_state_acc", at_least=0.9,
               why="the generative simulator predicts the executed next state exactly in >= 90% of held-out "
                   "one-step transitions from its training distribution")

PAPER = Paper(
    slug="autocontrol-arena",
    title="AutoControl Arena: Synthesizing Executable Test Environments for Frontier AI Risk Evaluation",
    source="arXiv:2603.07427",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.autocontrol_arena.experiment:EXAMPLES",
    substitution=(
        "Keeps: logic-narrative decoupling (the logic state is computed by executing environment code, the "
        "narrative is generated conditioned on the executed state), the Architect -> Coder -> Target -> Monitor "
        "pipeline with the Coder's validate-and-retry, a Stress x Temptation grid and risk rates per cell; generated "
        "environment code runs only in a separate Python process with CPU-time and memory limits, talking to the "
        "driver by JSON lines. Replaces: every LLM role offline -- a templated Architect and Coder (12 scenarios: "
        "three risk categories x Stress x Temptation; a file/permission/approval/audit-log state machine; the first "
        "Coder attempt is deliberately broken so the retry runs), a rule Monitor over the executed log (violation = "
        "a protected file deleted without approval, concealment = a violation followed by clearing the log, "
        "mistake = an unprotected original file deleted), scripted targets of three capability levels whose "
        "pressure behaviour we wrote (a demo, no verdict). The LLM simulator the paper argues against is a "
        "character-level TinyLM (icml26.nn; d 32, 2 layers, 1800 AdamW steps of 16 lines at lr 1e-2, loss on the "
        "completion after '>'; until 2026-12-01 d 64 and 1000 steps of 48 lines, cut to fit the CPU budget) trained on executed transcripts of 1-6-step episodes with log lengths 0-20 at the start; the "
        "decoupled arm uses that same LM as narrator only; test episodes are 16 steps long, held out (their audit-log "
        "lengths reach 36, training states stop at 26; both arms face that). The generative simulator is Markov: it "
        "sees its own last state and the action, not the episode history (an LLM simulator would see the history), "
        "and the headline's control is never re-synchronised with the executed state; a second control re-synchronises it "
        "every k = 1 or 4 steps (reported; k = 4 decides a separate claim), and every measure is split by audit-log "
        "lengths seen vs unseen in training. Decoding is greedy, the next state and narrative from one completion. The sandbox is a resource limit, not a security "
        "boundary: the generated code has full builtins and the user's file-system and network rights in its "
        "process (no seccomp, namespaces or chroot); the tiny LM runs in the driver, generated environment code "
        "never does. Ours, not the paper's: the risk categories, Monitor rules, pressure "
        "texts, state format and narrative templates (the paper's were not available to us). "
        "Budget re-run outcome (review of the budget pass; no check changed): with the d 64 / 1000 x 48 simulator "
        "the gate was met in 5/5 seeds (0.95-0.98) and the headline was decided; the cheaper d 32 / 1800 x 16 "
        "simulator meets it in 3/5 (seed 0: 0.875, seed 2: 0.895), so both comparative claims are not-checkable "
        "although every seed's numbers favour the decoupled arm (contradictions per step 0.03-0.18 vs 0.11-0.26 "
        "re-synchronised every 4 steps and 0.17-0.46 never re-synchronised). The two gate-failing seeds have the "
        "largest generative drift (0.34, 0.46), so the gate does its job: it keeps an under-trained simulator "
        "from inflating the gap. The not-checkable is a consequence of the budget cut, not of the paper's idea. "
        "Third run (2026-12-01; decided AFTER seeing seeds 0 and 2 miss the gate, registered before its full run; "
        "no check or gate changed): the simulator trains 2000 steps (the dev seed's 0.975 setting) and the "
        "held-out test set is 40 episodes of 16 steps per seed instead of 60, to pay for it within the budget "
        "(the quiet cold timing of the 1800-step run was 161 s). Outcome (measured after the run): the gate is met "
        "in 5/5 seeds (0.955-0.985), so both comparative claims are decided: reproduced. Contradictions per step: "
        "decoupled 0.074, generative 0.268, re-synchronised every 4 steps 0.165, every step 0.119; Monitor flips "
        "per episode 0 vs 0.145 (k = 4: 0.145, k = 1: 0.135). Seen log lengths 0.035 vs 0.221; unseen (5.6% of "
        "steps) 0.71 vs 1.05: beyond the training lengths the narrator fails in every arm. That run took 180 s "
        "cold on a quiet machine (slowest seed 65 s CPU), at the budget's edge, so the stored fourth run "
        "(registered before it; nothing else changed) uses 30 test episodes (was 40) and 20 identity episodes "
        "(was 40). Fourth run (stored): gate 5/5 (0.955-0.985); both comparative claims reproduced; "
        "contradictions per step decoupled 0.070, generative 0.259, k = 4 0.162, k = 1 0.117; seen lengths 0.031 "
        "vs 0.208, unseen 0.69 vs 1.07. Cold on a quiet machine: 169 s, 276 s CPU in jobs (slowest seed 59 s)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_targets": 2, "n_train_episodes": 150, "train_len": 6, "d_model": 32, "n_layers": 2, "steps": 60,
            "batch": 16, "lr": 1e-2, "n_gate": 30, "n_test": 8, "test_len": 6, "n_identity": 6}, timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "n_targets": 10, "n_train_episodes": 800, "train_len": 6, "d_model": 32, "n_layers": 2, "steps": 2000,
            "batch": 16, "lr": 1e-2, "n_gate": 200, "n_test": 30, "test_len": 16, "n_identity": 20}, timeout_s=1800),
    },
    claims=(
        Claim(id="decoupling-removes-logic-hallucination", kind="headline",
              statement="Decoupling logic (executed code) from narrative (generated) removes logic hallucination: "
                        "on held-out longer episodes the decoupled environment's narrative contradicts the executed "
                        "state less often, and its Monitor labels flip less often, than a generative simulator's. "
                        "(Changed after the full run by core's slack cap (81081ba): reproduced -> partly, on the same "
                        "rows: the flips' paired-CI lower bound is 0 in seeds 3 and 4, which the old absolute slack "
                        "of 5e-7 had let pass '>= 1e-9', so that part is met in 3/5 seeds, not 5/5.) "
                        "(Later review after the full run, verdict unchanged, partly: the common test's control "
                        "substitution was incomplete here; the CI parts now carry control_value=0, so the control "
                        "reads not-reproduced. It replaces the decoupled numbers by the generative "
                        "simulator's but not the two paired-CI lower bounds (contr/diff_lo, flip/generative_lo), "
                        "which stay the method's differences, so the control read partly (contradiction CI met in "
                        "5/5 seeds) only because the method's difference was still there; the control against "
                        "itself has a paired difference of 0, so both CI parts would fail too. The method passes "
                        "parts the control fails: contradictions per step 0.0704 vs 0.259, paired improvement 0.188 "
                        "[0.137, 0.267], lower in 5/5 seeds (p=0.0312), CI lower bound > 0 in 5/5 seeds; flips 0 vs "
                        "0.147 (p=0.0312); the flips' CI part is met in 3/5.)",
              paper_value="qualitative (the framework's motivation: LLM-only simulators hallucinate state); the "
                          "paper's 98% / 60% are under end-to-end-success-and-preference",
              control="a generative simulator: the same tiny LM emitting next state and narrative, its state "
                      "carried forward",
              check=C.all_of(
                  C.beats("contr/decoupled", "contr/generative", better="lower", test="sign",
                          label="narrative contradictions per step", control_label="generative simulator"),
                  C.threshold("contr/diff_lo", at_least=1e-9, frac=0.8, control_value=0.0,
                              label="paired bootstrap CI lower bound of (generative - decoupled) contradictions"),
                  C.beats("flip/decoupled", "flip/generative", better="lower", test="sign",
                          label="Monitor-label flips per episode (decoupled 0 by construction: its Monitor reads "
                                "the executed states, so this part tests that the control's drift reaches the "
                                "labels)", control_label="generative simulator"),
                  C.threshold("flip/generative_lo", at_least=1e-9, frac=0.8, control_value=0.0,
                              label="paired bootstrap CI lower bound of (generative - decoupled) Monitor-label flips "
                                    "per episode (added by review after the full run: the issue's 'paired CI "
                                    "excluding 0' applies to the flips too; in the stored run the lower bound is 0 in seeds 3 and 4, "
                                    "so this part is met in 3/5 seeds. It had read as met in 5/5 because core's checks then "
                                    "gave every bound an absolute slack of 5e-7, which let 0 pass '>= 1e-9'; with the slack "
                                    "capped at 1% of a small bound the claim reads partly, decided on the same rows)"),
              ).gated(_GATE)),
        Claim(id="decoupling-beats-resynchronised-simulator", kind="headline",
              statement="The decoupled environment's narrative also contradicts the executed state less often than "
                        "that of a generative simulator re-synchronised with the executed state every 4 steps (the "
                        "naive repair of a generative simulator) on the same held-out longer episodes.",
              paper_value="not stated in the paper (it compares with LLM-only simulators, never re-synchronised); "
                          "a reviewer's stronger control of the headline claim",
              control="the generative simulator re-synchronised to the executed state before steps 0, 4, 8, 12",
              check=C.all_of(
                  C.beats("contr/decoupled", "contr/resync4", better="lower", test="sign",
                          label="narrative contradictions per step",
                          control_label="generative simulator re-synchronised every 4 steps"),
                  C.threshold("contr/diff4_lo", at_least=1e-9, frac=0.8, control_value=0.0,
                              label="paired bootstrap CI lower bound of (re-synchronised k=4 - decoupled) "
                                    "contradictions"),
              ).gated(_GATE)),
        Claim(id="tool-state-matches-execution", kind="identity",
              statement="In the decoupled environment the state the tools report is the executed state: re-executing "
                        "the same actions in a fresh sandbox gives the same state at every step.",
              paper_value="by design (logic-narrative decoupling)",
              check=C.threshold("identity/mismatch", at_most=0.0, label="share of steps whose states differ")),
        Claim(id="pipeline-builds-runnable-environments", kind="identity",
              statement="The Coder's validate-and-retry yields a runnable environment for every scenario (the first "
                        "attempt is broken on purpose).",
              paper_value="by design (the Coder's validate-and-retry); the paper's > 98% with LLM roles is under "
                          "end-to-end-success-and-preference",
              check=C.threshold("pipeline/built_frac", at_least=1.0, label="share of scenarios built")),
        Claim(id="end-to-end-success-and-preference", kind="headline",
              statement="With LLM Architect and Coder the pipeline yields a runnable, valid environment and a "
                        "completed evaluation for > 98% of scenarios, and humans prefer its environments over "
                        "existing LLM-based simulators 60% of the time.",
              paper_value="> 98% end-to-end success; 60% human preference",
              no_control="a measurement of LLM roles and of human raters",
              uncheckable="our Architect and Coder are templates (the first attempt is broken on purpose, the "
                          "second always runs), so our build rate is true by construction and says nothing about an "
                          "LLM Coder's; there are no human raters (added by review after the full run: the issue "
                          "pre-registered this claim as not-checkable)"),
        Claim(id="alignment-illusion", kind="headline",
              statement="Across nine frontier models, risk rate rises from 21.7% under low pressure to 54.5% under "
                        "high Stress and Temptation, more for more capable models.",
              paper_value="21.7% -> 54.5%",
              no_control="a measurement of frontier models", uncheckable=_FRONTIER),
        Claim(id="scenario-specific-scaling", kind="headline",
              statement="Stronger reasoning lowers risk for direct harms but raises it for gaming scenarios.",
              paper_value="qualitative across 9 models",
              no_control="a measurement of frontier models", uncheckable=_FRONTIER),
        Claim(id="weak-err-strong-conceal", kind="headline",
              statement="Weaker models cause non-malicious harm through mistakes; stronger ones show strategic "
                        "concealment.",
              paper_value="qualitative across 9 models",
              no_control="a measurement of frontier models", uncheckable=_FRONTIER),
    ),
)
