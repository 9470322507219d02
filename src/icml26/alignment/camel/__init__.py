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
_COMMON = {"levels": [1], "sft_lr": 3e-3, "d_model": 48, "grpo_lr": 2e-4, "rate": 0.3, "sft_schedule": "constant",
           "revise_frac": 0.5, "grpo_beta": 0.0, "grpo_temperature": 1.5, "rm_lr": 3e-3}
# the third session's changes: no KL to the SFT judge (grpo_beta 0.1 -> 0, chosen on development seeds 100-103 by the
# held-out rise of GRPO's objective; see _REVISED3), the held-out reward behind the rise gate (k reflections per item
# and opening) and the scalar BT peer (trl RewardTrainer; 312 steps of 64 pairs = one pass over the 20k items); the
# fourth session's: revise_frac 0.1 -> 0.5 and heldout_k 4 -> 8 in the full profile (development seeds 110-113, see _REVISED4)
_REVISED = ("revised in a second session knowing the first full run's verdicts (gated-frontier and cpa-revisions "
            "not-checkable, 2/5 seeds past the old reward-level gate): ")
_REVISED4 = ("revised in a fourth session before its full run, on development seeds 110-113: with 10% revision traces "
             "the SFT judge's scratchpad after its own opening recomputed the answer right in 0.74 to 0.99 of items "
             "(mean 0.84; 0.52 to 0.99 after a wrong opening: it bends the arithmetic to fit the opening), and "
             "always - never reflecting after CPA GRPO was +0.012, +0.015, +0.007, +0.020; with 50% revision traces "
             "the scratchpad is right in 0.93 to 1.00 whatever the opening and always - never was +0.055, +0.000, "
             "+0.042, +0.138 (same 3/4, mean 0.059 vs 0.014), chosen; 30% (seeds 110-111: -0.008, +0.028) and twice "
             "the SFT (2000 steps of 64, or of 32) were not better. What still limits reflection: the final verdict "
             "names the candidate equal to the scratchpad's value in only 0.70 to 0.80 of items at any share or SFT "
             "length (about chance on offsets 1-3, always right on 10 and 20): matching the value to a candidate, not "
             "the arithmetic, is what this 2-layer judge fails")
_HELPS_GATE = C.gate(
    "reflect/always_gain", at_least=0.01, frac=0.8,
    why="reflecting helps: always-reflect accuracy - never-reflect accuracy >= 0.01 in >= 4/5 seeds (gate "
        + _REVISED + "replaces the CPA reward-level gate; without it 'within 1 point of always-reflect' is met "
        "because always-reflect is no better than never-reflect; unchanged in the fourth session, whose SFT recipe was "
        + _REVISED4 + ")")
_RM_GATE = C.gate("scalar_rm/acc", at_least=0.6, frac=1.0,
                  why="the scalar BT peer learned: its held-out pairwise accuracy is >= 0.6 (the SFT judge's bar)")
_REVISED3 = ("revised in a third session before its full run, on development seeds 100-103 (disclosed): the rise of "
             "the training reward from its first to its last quarter (the second session's gate) passed at lr 1e-3 in "
             "3/4 development seeds (+0.03 to +0.08) while GRPO's objective on held-out items moved by -0.013 to "
             "+0.025: the first quarter sat below the SFT judge's own reward (an early dip that training recovered), "
             "so that gate could open without any learning. Recipes tried on those seeds, GRPO's held-out reward "
             "minus the SFT judge's (>= 0.03 in how many of 4): lr 2e-4, 50 steps, KL 0.1 (the second session's): "
             "+0.011 to +0.027 (0/4); lr 1e-3: -0.013 to +0.025 (0/4); lr 2e-4 or 4e-4 for 100 steps (twice the "
             "cost): 2/4 each; lr 2e-4, 50 steps, no KL: +0.017 to +0.040 (3/4), chosen; lr 4e-4 without KL, lr "
             "3e-3, lr 5e-4 and groups of 16 were worse on the training reward or on held-out. Fourth session, before "
             "its full run: k = 8 reflections per item and opening instead of 4, to halve the measurement's sampling "
             "noise: on development seeds 110-111 (recipe unchanged) the gain's standard deviation over 6 sampling "
             "seeds was 0.016 and 0.012 at k = 4 (the threshold 0.03 sat within one SD of the means 0.031, 0.031) "
             "and 0.007 and 0.004 at k = 16 (means 0.037, 0.034); k = 8 is what the CPU budget allows; the "
             "threshold is unchanged")
_REVISED7 = (
    "Seventh session, before its re-run (for the CPU budget of the full profile, <= ~50 s CPU per seed cold; no "
    "gate, check or rule changed; chosen on development seeds 100-103 by the SFT, peer and reflection gates and CPU "
    "cost only, never by the claims' comparisons; CPU = user + sys of one cold seed in a fresh process on this "
    "shared machine, the timings vary by ~20% with its load): the judge's width 48 -> 32, the SFT batch 64 -> 32 "
    "(1000 steps kept), GRPO 50 -> 25 steps in both arms (128 rollouts a step kept, so the own-opening arm keeps "
    "the CPA arm's budget) and the scalar BT peer's batch 64 -> 32 (312 steps kept: it sees half the pairs, as SFT "
    "sees half the traces; its width follows the judge's). Options measured (seed 100 unless said; SFT gate "
    "= held-out fast accuracy >= 0.6, peer gate >= 0.6, reflection gate = always - never >= 0.01): the old recipe "
    "82.8 s, SFT 0.588 (its gate fails on this seed), peer 0.773, reflection +0.168, rise +0.032; width 32 alone "
    "69.1 s (the layers are too small for d^2 to dominate: per-op overhead does), SFT 0.655, peer 0.903, "
    "reflection +0.050; width 32 with 500 SFT steps of 64 and 25 GRPO steps 48.9 s, but SFT 0.503 (chance) and "
    "reflection +0.000, rejected: the fast verdict stays at chance for the first 500 to 800 SFT steps (accuracy "
    "every 100 steps on seeds 100-101), so the SFT keeps its 1000 steps and halves the batch (at 1000 steps of 32: "
    "0.638, 0.643); halving the GRPO batch instead of its steps cost 16.3 s of GRPO against 9.1 s (58.4 s in all), "
    "rejected on cost. Chosen recipe, seeds 100-103: SFT 0.638, 0.643, 0.635, 0.698 (4/4), peer 0.680, 0.753, "
    "0.683, 0.690 (4/4), reflection +0.065, +0.085, +0.068, +0.035 (4/4), CPU 53.0, 43.7, 46.2, 50.9 s (mean "
    "48.4; 82.8 s for the old recipe). The rise gate of cpa-revisions (held-out CPA reward gain >= 0.03) was "
    "+0.024, +0.024, +0.014, +0.016 (0/4) with half the GRPO steps, so cpa-revisions (not-checkable in the last run "
    "at 2/5) is expected to stay not-checkable; accepted for the budget, not chosen on it. Bit-identical engineering "
    "in the same session: the training items are made once per seed (SFT reused the run's), and the CAMEL judge's "
    "greedy reflection after its own opening is generated once for the frontier and the scratchpad diagnostics "
    "(every metric of development seed 100 at the old recipe equal before and after, compared as JSON)")
_RISE_GATE = C.gate(
    "cpa/heldout_reward_gain", at_least=0.03, frac=0.8,
    why="GRPO raised its own objective: the CPA reward (both openings, reflections sampled at the GRPO "
        "temperature) on the validation items, after CPA GRPO minus the SFT judge's on the same items and sampling "
        "seed, >= 0.03 in >= 4/5 seeds (gate " + _REVISED3 + ")")

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
        "1[final verdict correct], group-normalised advantages (icml26.nn.rl, TRL's loss); counterfactual prefix "
        "augmentation = every training item opened once with the correct and once with the wrong verdict (the "
        "paper's CPA ratio is not given; 1:1 is our choice), against the control opened with the model's own greedy "
        "verdict, with the same number of rollouts per step. Replaced: the 14B judge and RewardBench / RM-Bench / "
        "JudgeBench by a 2-layer char-level TinyLM (d = 48) judging which of two answers to a level-1 icml26.tasks "
        "arithmetic problem (two operands below 10, + or -) is correct; the distractor is the answer +- 1, 2, 3, 10 "
        "or 20 (small offsets are the hard items); the free-text reflection by the task's scratchpad ('3+4=7;#7') "
        "followed by '>' and the final verdict, written with its own tokens 'a'/'b' (the opening uses 'A'/'B'); "
        "SFT is 1000 steps of 64 on 20k items with AdamW, a 20-step warm-up and then a constant lr 3e-3; half of "
        "the SFT traces open with the gold verdict and half with the wrong one (90% / 10% until the fourth "
        "session), which is context only (never a "
        "target), each followed by the gold scratchpad and gold final verdict (revision traces); GRPO is 50 steps "
        "of 128 rollouts (16 items x 8, or 8 items x 2 openings x 8) sampled at temperature 1.5, lr 2e-4, no KL "
        "term (the second session's k3 KL to the SFT judge, beta 0.1, was dropped in the third), from the same "
        "SFT judge in both arms; the benchmarks' accuracies by "
        "held-out accuracy on 400 items per seed. The costly confidence proxy is the agreement of 8 sampled full "
        "judgements (verdict + reflection at temperature 1) with the fast verdict, on 200 of the test items. The "
        "SFT judge is cached on disk by (seed, config). The paper's own SFT data, tau, GRPO hyperparameters and "
        "CPA ratio were not found in the sources we could read (summaries only). "
        "Revised in a second session, knowing the first full run's verdicts (gated-frontier and cpa-revisions "
        "not-checkable): in that run the SFT traces all opened with the gold verdict and SFT used a cosine-decayed "
        "lr, GRPO sampled at temperature 1 without KL; the reflection copied its opening (a copier earns exactly "
        "0.5 CPA reward with zero spread within a group, so GRPO had no signal; the CPA reward rose in 2/5 seeds), "
        "after a wrong opening the scratchpad bent the arithmetic to fit (e.g. '0+2=3;#3>b'), and GRPO lowered the "
        "fast verdict (seed mean 0.786 after SFT, 0.747 after CPA GRPO). The revised setting (constant SFT lr, as "
        "the shared arithmetic policy's fix; 10% revision traces; rollout temperature 1.5; KL to the SFT judge) was "
        "chosen on a development seed (99) outside the profiles on premise metrics only (SFT reflection after a "
        "wrong opening: 0.03 right with gold-only traces, 0.45 with 10% revision traces; CPA GRPO reward rise: "
        "+0.015 at temperature 1, +0.031 at 1.5 with KL; fast verdict 0.757 after SFT, 0.750 after GRPO), never "
        "on the claims' comparisons. With revision traces SFT itself teaches revising, so cpa-revisions now asks "
        "whether CPA keeps or grows it against own-opening GRPO. The gates were revised with it (see the claims). "
        "A first re-run of the revised setting (stored rows superseded) lost revise_frac on its way to SFT (a bug, "
        "fixed with a test before the second re-run): constant-lr SFT alone left the reflection a copier (CPA "
        "GRPO reward 0.49 to 0.52 at the start, P(correct | wrong opening) after SFT+GRPO 0.00 to 0.18, always = "
        "never in 4/5 seeds). Measured in the second session's full run (5 seeds, revised setting): the SFT "
        "judge's fast "
        "verdict is right 0.748 of the time (0.718 to 0.797) and its reflection overturns 0.45 of wrong openings "
        "(0.41 to 0.51) while flipping 0.01 of correct ones; GRPO barely moves it: the CPA reward rises by 0.027 "
        "(seed mean; -0.021 to +0.084, >= 0.03 in 2/5) and the own-opening reward by 0.012; the fast verdict "
        "after CPA GRPO is 0.748 (no erosion on average; -0.02 to +0.025 per seed); reflecting on every item "
        "beats never reflecting by 0.020 (0.007 to 0.032, >= 0.01 in 3/5 seeds); CAMEL at the validation tau "
        "is 0.757 accurate. Third session (pre-registered before its full run, on development seeds 100-103): "
        "GRPO without the KL term (beta 0.1 -> 0; lr 2e-4, 50 steps, groups of 8 unchanged), the only budget-neutral "
        "recipe of those tried whose held-out objective rose by >= 0.03 in most development seeds (see the "
        "cpa-revisions gate); the rise gate reads that held-out reward instead of the training reward's quarters; "
        "and the issue's scalar peer: a Bradley-Terry reward model, a LlamaForSequenceClassification of the "
        "judge's width and depth (d = 48, 2 layers, 4 heads, built from a config, no download) with the judge's "
        "character tokenizer, trained offline with trl's RewardTrainer (its loss is the shared reward_model_loss, "
        "-log sigmoid(r_chosen - r_rejected)) on the same 20k items as (correct answer, wrong answer) texts "
        "('6+5=11' vs '6+5=13'), one pass (312 steps of 64 pairs, AdamW, lr 3e-3 after a 20-step warm-up); it "
        "enters gated-frontier as a control. Measured in the third session's full run (5 seeds, rows stored; "
        "322.4 s CPU in jobs with a cold cache, i.e. the SFT judges retrained, slowest job 65.1 s; the SFT alone "
        "took 29.8 s CPU on a development seed, and is cached): GRPO's held-out CPA reward rose from the SFT "
        "judge's by +0.037 (seed "
        "mean; +0.042, +0.029, +0.062, +0.016, +0.035 in seeds 0-4, >= 0.03 in 3/5, so the rise gate is not met and "
        "cpa-revisions stays undecided), the training reward's quarter-to-quarter rise was -0.016 to +0.070; the fast "
        "verdict is not eroded (0.748 after SFT, 0.756 after CPA GRPO); reflecting on every item beats never "
        "reflecting by 0.017 (0.000 to 0.032, >= 0.01 in 3/5, so gated-frontier stays undecided); the margin "
        "AUROC of the CAMEL judge is 0.798 (0.780 to 0.829) and the 8-sample proxy's 0.005 above it; the scalar BT "
        "peer reaches 0.774 held-out accuracy (0.708 to 0.810), above CAMEL at 30% reflection (0.764) in 4/5 seeds "
        "and above the SFT judge's fast verdict (0.748): on these pairs one pass of a scalar reward model over the "
        "same data beats the generative judge, reflection included. Before the run, the development script printed "
        "the claims' revision metrics for the chosen recipe on seeds 100-103 (CPA minus own-opening P(correct | "
        "wrong opening): +0.21, +0.11, +0.01, +0.03); the recipe had been chosen on the held-out reward alone and "
        "nothing was changed after. Fourth session (pre-registered before its full run, on development seeds "
        "110-113, chosen on the scratchpad's accuracy and on always - never reflecting, never on the claims' "
        "comparisons): half the SFT traces are revision traces instead of 10%, and the held-out CPA reward behind "
        "the rise gate uses 8 reflections per item and opening instead of 4 (see the gates). Diagnosis: with 10% "
        "revision traces the scratchpad after a wrong opening recomputes the answer right in only 0.52 to 0.99 of "
        "items (it bends the arithmetic to the opening), with 50% in 0.93 to 1.00 whatever the opening; but at "
        "every share and SFT length tried (up to twice the steps) the final verdict names the candidate that equals "
        "the scratchpad's value in only 0.70 to 0.80 of items, about chance on offsets 1-3: the 2-layer judge can "
        "redo the arithmetic but not reliably match its value to a candidate, and that caps what reflection adds. "
        "With half the traces opened wrongly the opening carries no information in SFT, so the SFT reflection "
        "ignores its opening (its verdict is the same after either opening); the experiment now reports the "
        "scratchpad's accuracy and how often the verdict follows it (sft/ and cpa/scratch_acc, verdict_follows). "
        "Measured in the fourth session's full run (5 seeds, rows stored; 843.1 s CPU in jobs with a cold cache on a "
        "shared, loaded machine, slowest job 179.6 s, over the ~330 s budget: timed afterwards on development seed "
        "110, the scalar BT peer's trl training took 94.8 s CPU of a 136.9 s seed and both GRPO arms 31.5 s, the "
        "larger held-out sample about 2 s): the scratchpad recomputes the answer right in 0.952 of items after the "
        "SFT judge's own opening (0.945 to 0.963) but its final verdict follows that value in only 0.756 (0.698 to "
        "0.828); reflecting on every item now beats never reflecting by 0.062 (0.042 to 0.088, >= 0.01 in 5/5), "
        "but partly because the fast verdict got worse: it is trained on half the traces only and is right 0.697 "
        "of the time after SFT (0.625 to 0.765; 0.748 in the third session) and 0.681 after CPA GRPO, while "
        "always reflecting reaches 0.743 (0.773 in the third session): the gate opened by lowering never-reflect "
        "more than by raising always-reflect. The weaker verdict head also has a weaker margin: AUROC 0.750 "
        "(0.671 to 0.808; 0.798 before), so margin-predicts moved from reproduced to not-reproduced, a consequence "
        "of this recipe that the development runs did not measure (the margin AUROC was not a selection "
        "criterion). GRPO's held-out CPA reward (k = 8) rose by 0.026 (+0.024, +0.005, +0.033, +0.029, +0.037, "
        ">= 0.03 in 2/5), so cpa-revisions stays undecided; with an opening-blind SFT reflection CPA and "
        "own-opening GRPO overturn the same share of wrong openings (0.739 vs 0.742; SFT alone 0.756) and flip "
        "0.26 of correct ones. The scalar BT peer reaches 0.799 (0.730 to 0.880), above every variant of the "
        "generative judge here. Nothing was changed after the run." 
        " Review after the run (text and the gated-frontier check's house-rule wrapper; no metric or verdict "
        "changed): by the reflection gate's own count the development seeds did not improve (3/4 at both 10% and "
        "50% revision traces); the choice rested on the mean (0.059 vs 0.014), pulled up by one seed at +0.138; "
        "the fast verdict's accuracy and the margin AUROC were not recorded on the development seeds, and the knob "
        "weakens the fast verdict mechanically, since a revision trace leaves its opening token unscored (the "
        "opening verdict is now supervised in 50% of traces instead of 90%). The paper places counterfactual "
        "prefixes in the RL stage; the SFT revision share is our setting's choice. The 843.1 s is CPU summed over "
        "jobs as printed by the runner; the stored wall-clock durations sum to 949.5 s (slowest 229.6 s)."
        " Fifth session, before its re-run (a speed change plus a numerically different scalar peer, a control of gated-frontier; no recipe, gate or check changed; development seeds 120-122): "
        "the scalar BT peer cost ~95 s CPU per seed because trl's RewardConfig defaults to bf16 autocast and "
        "gradient checkpointing, GPU memory savers: on this CPU its 312 steps took 92 s (seed 120, under the "
        "profiler), 50 s without gradient checkpointing (a recomputation; reported as giving the same losses and held-out "
        "accuracy, but that run's log was not kept), 16 s also in float32, the generative judge's precision; trl's per-example tokenisation "
        "(datasets.map over 2 x 20k texts) is replaced by one batched call of the same tokenizer giving the same "
        "ids (tested): 11.6 s. The float32 peer is a numerically different run of the same model, data, loss and "
        "optimisation (312 steps of 64 pairs, lr, warm-up): on seed 120 its held-out accuracy moved from 0.765 "
        "(bf16) to 0.808 (0.785 on seed 121); chosen for cost, not on that number. It enters gated-frontier as a "
        "control (scalar_rm/acc, and the peer's gate) and runs last in each seed, so nothing else reads it. The "
        "SFT batches are built from memoised token ids (bit-identical: the SFT judge rebuilt for seed 0 equals the "
        "cached one). Every other metric should equal the fourth session's rows: stored seed 0, run once before the "
        "re-run as that identity check (nothing chosen on it), matched its stored row in every metric but the "
        "peer's (0.7775 in bf16, 0.7425 in float32). The rest of a seed is training "
        "in the shared icml26.nn code: a cold seed costs about 80 s CPU in a fresh process on this loaded machine "
        "(seed 121): the SFT judge 26 to 29 s (1000 AdamW steps, most of it the backward pass), both GRPO arms "
        "21 s, the peer 12 s, importing transformers and trl 5 s per job process, the evaluations about 6 s (the "
        "8-sample proxy 0.6 s); so the full profile should cost about 400 s CPU cold, still above the ~330 s "
        "budget; no recipe was shrunk to meet it."
        " Measured in the fifth session's full run (5 seeds, rows stored, run with ICML26_NO_CACHE=1 so that every "
        "SFT judge was retrained): 433.9 s CPU in jobs (82.2 to 90.3 s per seed; 843.1 s in the fourth session), "
        "still above the ~330 s budget on this machine, which two other jobs loaded throughout (wall 853.6 s, "
        "the stored durations sum to 1523.4 s). Every metric except the peer's three equals the fourth session's "
        "rows in all 5 seeds, bit for bit. The float32 peer reaches 0.773 (0.725 to 0.840; 0.799 in bf16, per "
        "seed 0.743, 0.725, 0.840, 0.808, 0.750 against 0.778, 0.785, 0.730, 0.880, 0.825) and still passes its "
        "gate (>= 0.6 in 5/5). Every verdict is unchanged; nothing was changed after the run. "
        + _REVISED7 + "; in passes (added by review after the run), the SFT still makes ~1.6 passes over its 20k "
        "items (32,000 traces) while the peer sees half of its pairs once (9,984), the same ~0.31 ratio of pairs to "
        "traces as before the cut (19,968 to 64,000); the description above (d = 48, SFT batches of 64, GRPO 50 "
        "steps, the peer's 64 pairs a step, one pass) was the recipe before the seventh session and stays as "
        "history. Measured in the seventh session's full run (5 seeds, rows stored, ICML26_NO_CACHE=1 so every SFT "
        "judge was retrained): 260.4 s CPU "
        "in jobs (45.4 to 55.4 s per seed, 52.1 on average; 433.9 s in the fifth session), wall 351.1 s on this "
        "shared machine with other jobs running (stored durations sum to 641.9 s; the seed that ran alone took 45.4 s "
        "CPU; an idle-core re-run afterwards, needed because a review edit staled the rows (the @torch.no_grad() "
        "decorator), gave every metric of the 5 seeds bit-identical and is the stored run now: 142.0 s wall for the "
        "run, 145.3 s with the command's start, 233.9 s CPU in jobs, slowest seed 48.9 s, inside the 3-minute "
        "budget); against the fifth session's rows: the SFT judge's fast verdict 0.634 (0.618 to 0.658; 0.697), gate "
        "5/5 but with little room; the peer 0.746 (0.655 to 0.875; 0.773), gate 5/5; always - never reflecting "
        "+0.083 (+0.040 to +0.110, 5/5; +0.062), the scratchpad right after the CAMEL judge's own opening in 0.897 "
        "and the verdict following it in 0.721; GRPO's held-out CPA reward rose by +0.027 (+0.020, +0.026, +0.039, "
        "+0.018, +0.034, >= 0.03 in 2/5; +0.026 before), so cpa-revisions stays not-checkable as expected; the "
        "margin AUROC fell to 0.681 (0.600 to 0.764; 0.750) with the proxy 0.095 above it; CAMEL at the validation "
        "tau is 0.667 accurate (0.708). Every verdict is the same as in the fifth session's run (margin-predicts "
        "not-reproduced, gated-frontier partly, cpa-revisions and benchmarks not-checkable, gate-identities "
        "reproduced), but gated-frontier's partly now rests on thinner evidence (see the claim). Nothing was changed "
        "after the run. Review after the seventh session's run: gated-frontier gets a cap added knowing these "
        "numbers, which can only lower a verdict (the seed mean of gated - random gating <= 0 at both 30% and 50% "
        "reflection: at most not-reproduced); on these rows it lowers partly to not-reproduced (gated - random "
        "-0.001 at 30%, -0.015 at 50%); the other verdicts are unchanged. In the same review the CAMEL judge's "
        "shared greedy reflection (experiment._own_reflection) was marked torch.no_grad (its calls already ran "
        "without gradients, so its values cannot change); that edit makes the stored rows stale until the full "
        "profile is re-run."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "n_train": 2000, "n_val": 50, "n_test": 100, "sft_steps": 120, "sft_batch": 32,
            "grpo_steps": 2, "grpo_batch": 8, "group": 4, "n_proxy": 40, "proxy_k": 4, "heldout_k": 2, "rm_steps": 10,
            "rm_batch": 16}),
        # seventh session (pre-registered for CPU budget, see _REVISED7): d_model 48 -> 32, sft_batch 64 -> 32,
        # grpo_steps 50 -> 25 (both arms), rm_batch 64 -> 32 (the peer keeps its 312 steps: half the pairs, as SFT)
        "full": Profile("full", seeds=5, timeout_s=900, params={
            **_COMMON, "d_model": 32, "n_train": 20000, "n_val": 200, "n_test": 400, "sft_steps": 1000,
            "sft_batch": 32, "grpo_steps": 25, "grpo_batch": 16, "group": 8, "n_proxy": 200, "proxy_k": 8,
            "heldout_k": 8, "rm_steps": 312, "rm_batch": 32}),
    },
    claims=(
        Claim(id="margin-predicts", kind="headline",
              statement="The verdict-token log-probability margin predicts whether the verdict is correct: AUROC "
                        ">= 0.75 in every seed and no more than 0.05 below a costly proxy (agreement of 8 sampled "
                        "judgements).",
              paper_value="qualitative: the margin 'strongly correlates' with correctness (no AUROC retrieved)",
              no_control="a rate against a fixed bound; the costly 8-sample proxy is measured in the same run and "
                         "enters the rule as a bound on the gap. Fourth session (50% revision traces in SFT, pre-registered for "
                         "the reflection gate, not for this claim): not-reproduced, margin AUROC 0.750 (0.671 to "
                         "0.808, >= 0.75 in 2/5), proxy gap 0.059 (-0.009 to 0.121, <= 0.05 in 2/5): the opening "
                         "verdict is now trained on half the SFT traces (fast accuracy 0.697 after SFT against 0.748) "
                         "and its margin separates right from wrong verdicts less well, while the sampled proxy "
                         "does not lose (0.815, 0.797 before). Third session (GRPO without KL): reproduced, margin "
                         "AUROC 0.798 (0.780 to 0.829, >= 0.75 in 5/5), proxy gap 0.005 (-0.005 to 0.013, <= 0.05 in "
                         "5/5). Second session: rule unchanged; the setting under it was revised in a "
                         "second session (see the substitution), which moved this claim from reproduced to partly: "
                         "the margin AUROC is 0.811 (0.783 to 0.845, >= 0.75 in 5/5) and the proxy's 0.815, now that "
                         "the reflection revises instead of copying, so the proxy is informative in every seed; the "
                         "gap is <= 0.05 in 4/5 seeds (0.060 in seed 2). The margin's AUROC is a property of the "
                         "SFT-trained verdict head (the maximum-softmax error detector any trained classifier offers), "
                         "not of GRPO or CPA, which barely moved the judge here. Seventh session, before its "
                         "re-run: the recipe was shrunk for CPU (width 32, SFT batch 32, GRPO 25 steps; see the "
                         "substitution), chosen without this claim's metrics. Seventh session's full run: "
                         "not-reproduced, margin AUROC 0.681 (0.600 to 0.764, >= 0.75 in 1/5), proxy gap 0.095 "
                         "(-0.033 to 0.168, <= 0.05 in 1/5; the proxy's AUROC 0.792): the narrower judge trained "
                         "on half the SFT traces has a weaker fast verdict (0.642 after CPA GRPO) and margin",
              check=C.all_of(C.threshold("margin/auroc", at_least=0.75, frac=1.0, label="margin AUROC (CAMEL judge)"),
                             C.threshold("margin/proxy_gap", at_most=0.05, frac=1.0,
                                         label="proxy AUROC - margin AUROC")).gated(_SFT_GATE)),
        Claim(id="gated-frontier", kind="headline",
              statement="Confidence-gated reflection dominates the accuracy-cost frontier: above random gating at "
                        "30% and 50% reflection, and within 1 point of always reflecting at <= 50% reflection.",
              paper_value="qualitative: a strictly better accuracy-efficiency Pareto frontier; a summary reports "
                          "+2.3 / +9.4 / +6.4 points over ungated variants (baselines unconfirmed)",
              control="random gating at the same reflection rate, and the plain SFT judge never reflecting "
                      "(added as a named baseline " + _REVISED + "GRPO had lowered the fast verdict below the SFT "
                      "judge's); never and always reflecting (CAMEL judge) reported. Revised setting, second session's "
                      "full "
                      "run: reflecting "
                      "on every item helps by >= 1 point in 3/5 seeds (0.007 and 0.008 in seeds 2 and 4), so the "
                      "claim is not decided; on these numbers gated beats random at 30% in 1/5 seeds (0.755 vs "
                      "0.754) and at 50% in 3/5 (0.763 vs 0.758), beats the plain SFT judge (0.748) at 30% in 3/5, "
                      "and is within 1 point of always-reflect in 5/5: the check would say partly. Added in a third "
                      "session before its full run (the issue's peer): the scalar Bradley-Terry judge, a "
                      "LlamaForSequenceClassification of the judge's width and depth trained with trl's "
                      "RewardTrainer on the same items as (correct, wrong answer) pairs, one pass; it must learn "
                      "(held-out accuracy >= 0.6) for the claim to be decided. Third session's full run: reflecting "
                      "helps by >= 1 point in 3/5 seeds (0.007 and 0.000 in seeds 3 and 4), so still not decided; "
                      "on these numbers gated beats random at 30% in 2/5 (0.764 vs 0.761) and at 50% in 4/5 (0.770 "
                      "vs 0.765), the SFT judge (0.748) at 30% in 4/5, is within 1 point of always-reflect in 5/5, "
                      "and loses to the scalar BT peer (0.774) in 4/5: the check would say partly. Fourth session's full "
                      "run (50% revision traces, pre-registered on development seeds 110-113 by the reflection "
                      "gate's metric and the scratchpad's accuracy): reflecting helps by >= 1 point in 5/5 (mean "
                      "0.062), so the claim is decided: partly. Gated beats random at 30% in 5/5 (0.715 vs 0.699) "
                      "and at 50% in 3/5 (0.715 vs 0.712), beats the SFT judge never reflecting (0.697) in 5/5, is "
                      "within 1 point of always-reflect (0.743) in 1/5 only (gap 0.022 at <= 50%), and loses to the "
                      "scalar BT peer (0.799) in 4/5. Caveat: the gate opened partly because the fast verdict fell "
                      "(0.681 after CPA GRPO, 0.756 in the third session), not only because the "
                      "reflection improved; the accuracies of every gated variant are below the third session's: gated at "
                        "30% (0.715) is below the third session's SFT judge never reflecting (0.748), and always "
                        "reflecting beats every gated point at <= 50% in 4/5 seeds (gap 0.022), so partly means "
                        "that the margin ranks items for reflection better than random gating does for a weaker "
                        "fast verdict, with no frontier gain over the old recipe (review after the run). The check "
                        "is wrapped by the house rule (core.checks.part_beyond_controls; review after the run, "
                        "verdict unchanged): random gating, the SFT judge and the CAMEL judge never reflecting, each "
                        "put wholly in the gated judge's place, fail the part the gated judge passes (above random "
                        "gating at 30% in 5/5 seeds). Fifth session, before its re-run (speed change; the peer below is a control): the scalar "
                        "BT peer is trained in float32 without gradient checkpointing (trl's defaults were bf16 "
                        "autocast and checkpointing; see the substitution), a numerically different run of the same "
                        "recipe (development seed 120: 0.765 in bf16, 0.808 in float32), so its numbers here may "
                        "move; the rule is unchanged. Fifth session's full run: every metric but the peer's equals "
                        "the fourth session's; the float32 peer reaches 0.773 (0.725 to 0.840, 0.799 in bf16) and "
                        "gated at 30% (0.715) still loses to it in 4/5 seeds (beats it by 0.027 in seed 4 only); the "
                        "verdict stays partly. Review after the run (text only): the peer is a control of this rule "
                        "(part 5 and the peer's gate), and the float32 run made it weaker on average (per seed -0.035, "
                        "-0.060, +0.110, -0.073, -0.075): the seed where gated beats it moved from seed 2 (+0.0075) to "
                        "seed 4 (+0.0275), the mean deficit from -0.084 to -0.058, and part 5 stays failed (1/5 in both "
                        "runs). bf16 without checkpointing (~50 s per seed) would have kept the control unchanged; "
                        "float32 was chosen for ~34 s more per seed after stored seed 0's lower peer had been seen. A "
                        "precision change alone moves this single-initialisation peer by up to 0.11 per seed, so part "
                        "5 rests on a noisy control (averaging the peer over 2-3 initialisations would need a re-run). Seventh "
                        "session, before its re-run (CPU budget; see the substitution): the judge and the peer are "
                        "both 32 wide, the peer trains 312 steps of 32 pairs (half the pairs, as the SFT's halved "
                        "batch), GRPO 25 steps; the rule and gates are unchanged. Seventh session's full run: "
                        "gates met (SFT 0.634, 5/5; reflection +0.083, 5/5; peer 0.746, 5/5); partly again, but on "
                        "thinner evidence: gated at 30% 0.665 against random gating 0.666 (above it by >= 0.0025 "
                        "in 3/5 seeds: -0.010, +0.011, -0.030, +0.007, +0.017), at 50% 0.668 against 0.683 (1/5), "
                        "above the SFT judge never reflecting (0.634) in 4/5, within 1 point of always reflecting "
                        "(0.724) in 0/5 (gap 0.053), above the peer (0.746) in 1/5. The house rule passes only "
                        "narrowly: random gating put in the gated judge's place fails the part above random gating "
                        "at 30% (the gated judge's 3/5 reads partly there) but passes the part above the SFT judge "
                        "never reflecting in 5/5 seeds (the gated judge in 4/5). On this run the claim's key "
                        "comparison is not reproduced in substance: gated at 30% is above random gating in 3/5 "
                        "seeds with a mean difference of -0.001 (median +0.007), and at 50% below it in 4/5 (mean "
                        "-0.015); the margin ranks items for reflection no better than random gating at this "
                        "cheaper recipe, whose fast verdict is weaker (0.642 after CPA GRPO, 0.681 in the fifth "
                        "session's run). The pre-registered rule said partly; nothing changed after the run until "
                        "the review below. The budget cut coincides with losing gated's edge over random gating "
                        "(fifth session at 30%: 0.7155 against 0.6994, +0.016), so the change may reflect the "
                        "cheaper recipe rather than the paper; that was not known when the recipe was chosen (on "
                        "the gates and CPU only). Cap (added by review after the seventh session's run, knowing "
                        "its numbers; it can only lower a verdict): if "
                        "the seed mean of gated - random gating is <= 0 at both 30% and 50% reflection, the verdict "
                        "is at most not-reproduced; on this run (-0.001 and -0.015) it lowers partly to "
                        "not-reproduced",
              check=None),  # experiment.check_gated_frontier: the rule, the house rule, the review cap
        Claim(id="cpa-revisions", kind="headline",
              statement="Counterfactual prefix augmentation produces genuine revisions: opened with the wrong "
                        "verdict, the reflection ends correct more often than after GRPO from own openings (by >= "
                        "0.1), while flipping at most 10% of correct openings.",
              paper_value="qualitative: CPA induces genuine revision rather than copying the opening (ablation "
                          "numbers not retrieved)",
              control="GRPO from the model's own opening verdicts only (same SFT judge, same rollouts per step). "
                      "Revised setting, second session's full run: GRPO barely moved the CPA arm (reward rise "
                      ">= 0.03 in "
                      "2/5 seeds, mean 0.027), so the claim is not decided; on these numbers CPA overturns 0.488 of "
                      "wrong openings against 0.454 for own-opening GRPO (differences +0.013 to +0.062, never the "
                      "pre-registered 0.1; the SFT judge alone: 0.451) and flips 0.020 of correct openings: the "
                      "check would say partly (not-reproduced on the revision margin). Third session's full run (GRPO "
                      "without KL): GRPO's held-out objective rose by >= 0.03 in 3/5 seeds (mean +0.037; 0.029 in "
                      "seed 1), so still not decided; on these numbers CPA overturns 0.512 of wrong openings against "
                      "0.449 for own-opening GRPO (differences +0.000 to +0.122, >= 0.1 in 1/5; the SFT judge alone: "
                      "0.451) and flips 0.028 of correct openings: the check would say partly. Fourth session's full run "
                      "(50% revision traces; held-out reward with 8 reflections per item and opening): the rise was "
                      "+0.026 (seed mean; >= 0.03 in 2/5, 0.005 in seed 1), so still not decided; on these numbers "
                      "the SFT reflection ignores its opening (half its traces opened wrongly), CPA overturns 0.739 "
                      "of wrong openings against 0.742 for own-opening GRPO (differences -0.022 to +0.020; the SFT "
                      "judge alone 0.756) and flips 0.261 of correct ones: the check would say not-reproduced. Review after that run: with 50% "
                      "of the SFT traces opened wrongly both GRPO arms start from a judge that was already taught "
                      "to revise (SFT overturns 0.756 of wrong openings, 0.451 in the third session), so the "
                      "own-opening control no longer lacks the key idea and this comparison no longer isolates CPA; "
                      "the would-be not-reproduced says nothing against CPA. Seventh session, before its re-run "
                      "(CPU budget; see the substitution): GRPO 25 steps instead of 50 in both arms; on development "
                      "seeds 100-103 the rise gate's metric was +0.014 to +0.024 (0/4), so this claim is expected "
                      "to stay not-checkable. Seventh session's full run: rise +0.027 (>= 0.03 in 2/5), "
                      "not-checkable; on these numbers CPA overturns 0.729 of wrong openings against 0.728 for "
                      "own-opening GRPO (SFT alone 0.725) and flips 0.279 of correct ones",
              check=C.all_of(
                  C.beats_in_seeds("cpa/p_correct_wrong_prefix", "own/p_correct_wrong_prefix", margin=0.1, frac=0.8,
                                   label="P(correct | wrong opening), CPA",
                                   control_label="P(correct | wrong opening), own openings"),
                  C.threshold("cpa/flip_correct_prefix", at_most=0.1, frac=0.8,
                              label="P(flip | correct opening), CPA")).gated(_SFT_GATE, _RISE_GATE)),
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
        "counterfactual_prefixes", "sft_judge", "grpo_judge", "auroc", "ScalarRM", "train_scalar_rm",
        "scalar_rm_verdicts")
_SETTING = ("JudgeItem", "tokenizer", "make_items", "prompt_text", "reflection_text", "encode_prompts", "sft_batch",
            "answer_text", "preference_pairs",
            "final_verdict", "new_judge")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
