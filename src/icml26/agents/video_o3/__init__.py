"""Video-o3: Native Interleaved Clue Seeking for Long Video Multi-Hop Reasoning (arXiv 2601.23224).

A long-video model looks at a coarse global view, reasons, calls a crop tool on a time window
(``<grounding>{"temporal_segment": ..., "sampling_strategy": ...}</grounding>``), receives the fine
frames in the same context, and repeats until it answers. Training: SFT with Task-Decoupled
Attention Masking on 10% of the samples, then GRPO with the Verifiable Trajectory-Guided Reward
R = r_a (1 + β) + r_f, β = (b0 + w_g S_clue) γ. Here the world is symbolic (128-frame videos of
discrete symbols, 1-2 sparse clues) and the policy a tiny decoder; see ``setting`` and ``method``.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_SFT_GATE = C.gate("sft/heldout_acc", at_least=0.8,
                   why=("the SFT policy answers >= 80% of 200 held-out questions on its own (greedy, free-running; "
                        "gate revised after the previous full run, see the substitution; unchanged in the fourth session, "
                        "which added the SFT restart rule on a separate validation split, see the substitution)"))
_RL_GATE = C.gate("rl/heldout_reward_gain", at_least=1e-6,
                  why=("GRPO raised its own objective: mean trajectory-guided reward of sampled episodes on held-out "
                       "prompts above the SFT start's (same prompts and stream; gate revised after the previous full "
                       "run, replacing the training-curve reward rise; unchanged in the fourth session, whose GRPO recipe "
                       "(8 prompts per step, rewards not divided by the group's std) was chosen on this metric on dev seeds)"))

PAPER = Paper(
    slug="video-o3",
    title="Video-o3: Native Interleaved Clue Seeking for Long Video Multi-Hop Reasoning",
    source="arXiv:2601.23224",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.video_o3.experiment:EXAMPLES",
    substitution=(
        "Keeps: the native think -> <grounding>(time window, sampling strategy) -> crop -> ... -> answer loop in "
        "one KV-cached context with a turn cap (5 turns, 4 crops); Task-Decoupled Attention Masking on 10% of "
        "tool-use SFT samples (positions predicting tool-call tokens blind to crop tokens, positions predicting "
        "answer tokens blind to the global view); GRPO (the house's TRL-equal loss, tool output masked from the "
        "loss, over-turn episodes masked) with the Verifiable Trajectory-Guided Reward R = r_a(1 + beta) + r_f, "
        "beta = (b0 + w_g S_clue) gamma only for a correct, well-formed answer after >= 1 tool call. Constants "
        "from the Qwen3-VL port's reward files (ZZQ987/Video-o3-Qwen3VL, RL/verl/utils/reward_score/): b0 = w_g "
        "= 0.5 (tool_reward = (grounding + 1)/2), S_clue = (2 IoU + IoP + IoG)/4 on merged intervals, r_f = 0 "
        "for a malformed turn and -1/#turns per wrong field; gamma = max(0, 1 - 2 lambda n_calls) (the port's "
        "tool-penalty form) with lambda = 0.05 (decay_penalty_weight in its launch scripts); the paper's text "
        "that we could read does not pin gamma's form. "
        "Replaces: Qwen2.5-VL-7B by a 2-layer decoder (d = 64) from icml26.nn.transformer; real long videos by "
        "symbolic 128-frame videos (256 before the ninth session; 16 objects, 4 markers; a question names 1-2 markers "
        "and asks which object is shown with each; the object is shown for 1-3 frames inside an 8-frame marker event "
        "that starts on the global view's grid, at any offset before the ninth session; 0-1 distractor markers); the low-resolution global view by every 8th frame quantised (object group only, every marker "
        "one shared salient symbol); the crop tool by the fine symbols of an 8-frame window (16 frames before the ninth "
        "session) at stride 1/2/4 (fine/medium/coarse); Seeker-173K by reference trajectories that crop each salient event in time order "
        "until every named marker is seen; think text by one think token per tool turn that names the named marker(s) the crops have not yet shown "
        "('NEED m', or 'NEED both' before either is seen; before the SFT-gate pass of issue 18 a bare THINK token), "
        "and the answer turn by "
        "'ANS m1 a1 m2 a2' (naming each marker before its object, our stand-in for reasoning that states its "
        "clue); the single-pass baselines by the same model answering from fine frames at the seeker's own mean "
        "visual-token budget, either evenly spaced (uniform) or spent on the salient events (salience-guided: the "
        "8-frame span starting at each global frame that shows the salient symbol, "
        "where its event lies, budget split evenly, no interleaving; before the ninth session the 15 frames around "
        "each global frame of highest novelty, -log of its coarse symbol's frequency in the video's global view, "
        "which were the marker frames in ~94% of 256-frame videos); its SFT pool holds single-pass samples of both kinds "
        "(12% of the videos each, random budgets 8-24; 8-48 before the ninth session). "
        "Budget pass (issue 18 review, before the re-run; pilots on dev seeds 100 and 101 only, which no profile "
        "runs): the previous three-stage SFT (2400 steps of batch 16) cost ~120-175 s CPU per seed cold, over the "
        "60 s rule, so SFT is now one stage of 1000 AdamW steps of batch 16 (lr 3e-3, warm-up then cosine to "
        "3e-4: the previous stage 1, shortened). Dev pilots (trajectory exact-match / token accuracy): 300 x 32 "
        "0.005/0.79, 600 x 16 0.14/0.89, 1500 x 8 0.61/0.97, 2500 x 4 0.16/0.89 on seed 100; 1400 x 8 gave "
        "0.06/0.87 on seed 101 and the SFT policy answered 10% of questions (answer reading not learned), and a "
        "factorised frame embedding tried on both dev seeds did not help (answers 2-5%) and was dropped. The "
        "1000 x 16 recipe itself was not piloted (time): whether it learns to read answers is left to the SFT "
        "gate. GRPO now runs only the full reward, 40 steps of 4 prompts x 8 rollouts at lr 1e-4 (was 3 variants "
        "x 20 steps at 5e-4; 1e-4 was chosen to limit the drift seen before, not tuned on a working policy). "
        "The TDAM ratio sweep and the reward-variant GRPO runs are not run (budget). "
        "Gates (revised after the previous full run; disclosed in each claim): the SFT gate is the SFT policy's "
        "own greedy answer accuracy on 200 held-out questions >= 80% (our second reading of the issue's 'SFT "
        "accuracy on held-out oracle trajectories'; the trajectory exact-match reading, still reported as "
        "sft/traj_acc, was 0.61 on dev seed 100 after 1500 steps of batch 8 and 0.79-0.98 at the previous 2400 steps of batch 16); the GRPO "
        "gate (only for claims about GRPO) is the held-out reward gain: mean R of sampled episodes on 200 "
        "held-out prompts x 2, GRPO policy minus its SFT start, same prompts and random stream, > 0 (the "
        "previous reward-rise gate, two 5-step means of the training curve, was close to a coin flip). "
        "Earlier history: the trajectory gate had replaced a per-token accuracy before the first full run; the "
        "first SFT recipe's stage-2 length was set after seeing full-profile seeds' gate values (disclosed in the "
        "previous review). MLVU/Video-Holmes numbers are not checkable here. "
        "What the world decides (review): 28 evenly spaced fine frames see a 1-hop answer with probability "
        "~ ans_len * 28 / 256, so the uniform control sits at its information ceiling; the global view marks "
        "every marker event, so the salience-guided pass has the same location information as the seeker and "
        "only lacks the seeker's ability to stop early and to spend its frames on one event at a time. "
        "Outcome of the budget pass (reported, nothing changed after it): the 1000 x 16 SFT took ~60 s CPU per "
        "seed under load 11-18 (~75-80 s per seed in all), still over the 60 s rule, and met the SFT gate in 1/5 "
        "seeds (held-out answer accuracy 0.74, 0.76, 0.905, 0.765, 0.02); the salience-guided pass (0.93-0.94 "
        "where the model reads) matched or beat the seeker (0.71-0.935) in every seed that learned to read. "
        "SFT-gate pass (issue 18, pre-registered before this re-run; gate (0.8) and every claim check unchanged; "
        "pilots on dev seeds 100-108 only, SFT policy's greedy answer accuracy on the gate's 200 held-out questions): "
        "failing seeds had either not learned to read the object from a crop or took the crop-again-or-answer "
        "decision wrongly (0.90-0.93 right even where reading worked), because that decision needs the set of "
        "named markers seen so far. The reference tool turns' think token now states which named marker is still "
        "missing (our change, standing in for the paper's reasoning text; the turn format, the reward and its "
        "format score are unchanged: any think token opens a well-formed tool turn), which makes the decision "
        "local (teacher-forced decision accuracy 0.98-1.0). With the previous 1000 x 16 SFT it met the gate in 5/7 "
        "dev seeds (0.96, 0.955, 0.685, 0.955, 0.03, 0.945, 0.88 on seeds 100-106); answer-turn tokens weighted 3x "
        "in the SFT loss (seeds 100, 101: 0.65, 0.76) and lr 5e-3 (seeds 102, 104: 0.815, 0.305) did not help; "
        "1300 x 12 gave 5/7 (0.945, 0.645, 0.955, 0.78, 0.855, 0.825, 0.92 on seeds 100-102, 104, 105, 107, 108). "
        "The full profile's SFT is now 1600 AdamW steps of batch 10 (same lr 3e-3, warm-up and cosine; about the "
        "CPU of 1000 x 16): 6/6 dev seeds met the gate (0.96, 0.96, 0.98, 0.95, 0.935, 0.82 on seeds 101-105, 107). "
        "To pay for it GRPO runs 30 steps instead of 40 (dev seed 108 with the 1300 x 12 SFT and 40 GRPO steps used "
        "~50 s CPU in all, SFT ~35 s). "
        "Outcome of the SFT-gate pass (reported, nothing changed after it): the budget is met (268.0 s CPU in jobs, "
        "slowest seed 55.8 s, cold cache) but the SFT gate is met in 1/5 profile seeds (held-out answer accuracy "
        "0.945, 0.73, 0.665, 0.735, 0.705 on seeds 0-4), against 6/6 on the dev seeds, so the claims behind it stay "
        "not-checkable. Re-running the experiment's own run() on dev seeds 101 and 107 gave the pilots' values "
        "(0.96, 0.82), so the gap is between seeds, not between pilot and pipeline; the 1600 x 10 length was picked "
        "because it rescued dev seed 104, which favours the dev seeds. A diagnosis of the stored seed 0-4 SFT "
        "policies after the run (teacher-forced on the 200 held-out references, and the free-running gate "
        "episodes): with the missing-marker think the crop-or-answer decision is right in 0.93-1.0 of turns and the "
        "think token in 0.75-1.0; the failures are now mostly the crop bin (next salient event after the previous "
        "crop: 0.80-0.96 of bins right; 11-53 of 200 episodes crop a wrong window), object reading that formed only "
        "partly in seeds 1 and 4 (0.86, 0.83; 30 of 200 episodes crop right and name a wrong object) and early "
        "answers in seed 2 (46 of 200, think 0.75). "
        "Time-aligned initialisation pass (issue 18, pre-registered before this re-run; the gate (0.8), the seeds, every "
        "claim check and the SFT/GRPO recipe (1600 x 10, lr 3e-3, 30 GRPO steps) unchanged; pilots on fresh dev seeds "
        "110-121 only, seeds 0-4 not looked at): with the committed recipe 8 dev seeds gave held-out answer accuracy "
        "0.915, 0.885, 0.97, 0.785, 0.99, 0.89, 0.84, 0.96 (seeds 110-117), and accuracy on the SFT's own training "
        "videos tracked it (0.86-0.99), so the weak seeds underfit rather than overfit. Teacher-forced on the held-out "
        "references, think, crop-or-answer decision, strategy and answer reading were 0.99-1.0 and the first crop's bin "
        "0.98-1.0, but the second crop's bin only 0.69-0.90 in the weak seeds, mostly re-cropping the event already "
        "seen (2-4 bins too early): the relation that fails to form is 'the first salient global frame after the "
        "previous crop', which needs the written bin token and the global frame's position to be compared. Change "
        "(initialisation only, no extra compute): the position embeddings start from a sinusoidal code (as in the "
        "original transformer) and each crop-bin token's embedding starts equal to the position code of the global "
        "frame at its window's centre (bin b <-> global frame b + 1), so a written time and the time of a global frame "
        "share one code from the first step, our stand-in for Qwen2.5-VL's absolute-time position ids; both stay "
        "trained. Dev pilots (SFT policy's held-out answer accuracy on the gate's 200 questions): the alignment alone "
        "(random position code) gave 0.97, 0.955, 0.99, 0.89, 0.99, 0.98, 0.99, 0.985 on seeds 110-117 (above or equal "
        "to the committed recipe in 8/8) but 0.765, 0.75, 0.905, 0.955 on seeds 118-121 (2/12 below the gate, second "
        "crop's bin 0.62-0.72); with the sinusoidal code as well 0.95, 0.955 on seeds 110, 111 and 0.985, 0.96 on "
        "seeds 118, 119 (the two the alignment alone had failed; second crop's bin 0.86-0.97); its pilots on seeds 112-117 were still running when this was committed (the full run was started at once for the deadline; their values are in the outcome note below, whatever they are). "
        "Tried and dropped: the bin tokens' loss weighted 3x with the alignment (seeds 118, 119: 0.07, 0.05; object "
        "reading did not form). "
        "Outcome of the time-aligned pass (reported, nothing changed after it): the pending dev pilots gave 0.94, "
        "0.82, 0.99, 1.0, 0.98, 0.98 on seeds 112-117 (finished during the full run, before its numbers were read), "
        "so 10/10 dev seeds met the gate (0.82-1.0). The full run used 236.9 s CPU in jobs (slowest seed 49.2 s) and "
        "met the SFT gate in 4/5 profile seeds (held-out answer accuracy 0.935, 0.02, 0.98, 0.965, 0.815 on seeds "
        "0-4; before: 0.945, 0.73, 0.665, 0.735, 0.705), so the claims behind the gate stay not-checkable. Seed 1 "
        "failed in the other known way: object reading never formed (teacher-forced answer-object accuracy 0.035, "
        "final SFT loss 0.36 against 0.06-0.09 elsewhere; its bins and thinks were learnt), the collapse also seen "
        "once before (dev seed 104, 0.03; budget-pass seed 4, 0.02) and in none of the 10 dev seeds of this pass; "
        "seed 4 passed narrowly with the second crop's bin at 0.72. On these numbers, not deciding anything: the "
        "seeker 0.94, 0.04, 0.96, 0.96, 0.79 vs uniform single pass 0.19, 0.03, 0.17, 0.16, 0.20 and salience-guided "
        "single pass 0.93, 0.04, 0.90, 0.89, 0.95 (claim 1's check would say partly: far above uniform, never 10 "
        "points above salience-guided); GRPO's held-out reward gain was negative in 4/5 seeds (-0.028 to +0.010), "
        "so the GRPO gate would fail even with the SFT gate met. "
        "Fourth session (issue 18 restart and GRPO pass; pre-registered in this commit before the re-run; the two "
        "gates, the seeds and every claim check unchanged). Seed-1 diagnosis (profile seed 1 run through the SFT "
        "stage alone, to see the failure; no remedy was tried on it): under the present code its SFT policy answered "
        "0.245 of the gate's 200 questions and 0.22 of a separate validation draw, its loss stalled at 0.32-0.37 from "
        "step 1200 (dev seeds 110-117: 0.04-0.09 at the end), the object-reading failure described above. Change 1, "
        "SFT restart rule (a standard model-selection step, chosen because it needs no recipe tuning): after SFT the "
        "policy's greedy answer accuracy on 200 validation videos (draw_videos(25000 + seed), disjoint from every test, "
        "gate and GRPO prompt set) is compared with a floor of 0.8; below it SFT is redone from a new initialisation "
        "and batch order (seed + 10^6 k), at most 2 restarts; the first attempt at or above the floor is kept, else the "
        "best by validation accuracy; sft/restarts and sft/val_acc (every attempt's) are reported. The first attempt "
        "is the previous recipe bit for bit, and every arm (seeker, both single-pass controls, GRPO) starts from this "
        "one SFT policy, so the rule applies to all alike. Dev seeds 110-117 (1600 x 10 SFT): validation 0.95, 0.87, "
        "0.93, 0.90, 0.965, 0.985, 0.98, 0.975 against the gate's held-out 0.965, 0.925, 0.915, 0.93, 0.98, 0.985, "
        "0.98, 0.98 (no restart would fire; no dev seed collapsed, so the restart itself is untested on a collapse "
        "before this run). Cost: one SFT is ~50-70 s CPU on the shared machine; the worst case (every seed restarting "
        "twice) triples it, ~+500 s over the budget; the expected cost is one restart per ~10 seeds. Change 2, GRPO "
        "(chosen by the GRPO gate's metric, the held-out reward gain, on dev seeds 110-117; the accuracy claims were "
        "not looked at): the previous recipe (4 prompts x 8, lr 1e-4, 30 steps, rewards divided by the group's std, "
        "no KL already) gave gains 0.015, 0.033, -0.021, 0.001, -0.028, -0.027, 0.004, -0.008 (4/8 > 0); lr 3e-4 and "
        "1e-3 lowered the reward (seed 110: -0.026, -0.112); without the std division (Dr. GRPO's change; with it a "
        "group whose episodes differ only a little in the bonus gets advantages of size 1) 5/8 > 0; 8 prompts per "
        "step with the division 5/8 (0.014, 0.003, 0.036, 0.048, 0.016, -0.007, -0.014, -0.010); 8 prompts per step without "
        "it 8/8 (0.026, 0.007, 0.032, 0.033, 0.017, 0.0001, 0.005, 0.001), now the full profile's GRPO (+~8 s CPU per "
        "seed). A null run (same recipe, rewards shuffled across the batch) gave 0.022, -0.078, -0.062, -0.041, -0.000, "
        "-0.000, 0.016, -0.022, so the gate measures learning, but the gains are small and near 0 on the dev seeds "
        "whose SFT policy already answers >= 0.98. Also tried: dr_grpo aggregation (5/8), lr 3e-5 (4/5 on seeds 110-114), "
        "over-turn episodes kept in the loss (3/5). The reward-ablation variants and the TDAM ratios stay unrun (budget). "
        "Outcome of the fourth session's full run (reported, nothing changed after it): the SFT gate is met in 5/5 "
        "seeds (held-out answer accuracy 0.85, 0.94, 0.905, 0.965, 0.875 on seeds 0-4); the restart rule fired once, "
        "on seed 1 (validation 0.22, the diagnosed collapse, then 0.93 after one restart; the other seeds' validation "
        "0.835, 0.915, 0.985, 0.945). Correction to 'bit for bit' above: the first attempt is the previous recipe run "
        "by the present shared code, which no longer reproduces the previous stored run's values (seed 0 0.935 -> "
        "0.85, seed 2 0.98 -> 0.905, seed 3 0.965 -> 0.965, seed 4 0.815 -> 0.875; seed 1 0.02 -> 0.245 in the diagnosis). The GRPO gate is "
        "met in 5/5 (held-out reward gain 0.027, 0.013, 0.019, 0.013, 0.074). Verdicts: seeking-beats-uniform partly "
        "(seeker 0.835-0.98 against uniform 0.16-0.19 in 5/5, against salience-guided 0.845-0.94 by -0.038 to +0.097, "
        "never the 0.1 margin); grpo-gain reproduced under its pre-set rule (strictly above SFT in >= 4/5 seeds), "
        "but by +0.003, +0.017, +0.008, -0.002, +0.010 on 600 questions per seed, differences of the size paired "
        "sampling noise can give (our reading, not tested). Cost: 586 s CPU in jobs (100-110 s per seed without a "
        "restart, 166 s for seed 1 with one), about twice the ~300 s target: the shared 2 cores ran at load ~4 "
        "(the dev SFTs alone took 50-73 s CPU here, against ~35 s in the previous notes) and GRPO's batch doubled. "
        "Review after that run (no metric changed): seeking-beats-uniform is judged under the house rule and reads "
        "not-reproduced (the salience-guided single pass, with no interleaving, passes the seeker's one passing "
        "part just as well); grpo-gain's one-sided sign test over seeds gives p = 0.19. "
        "Fifth session (issue 18 budget pass; pre-registered in this commit before its re-run; recipe, gates, seeds "
        "and every check unchanged). Where one seed's CPU goes (dev seed 120, cold, cProfile, machine otherwise idle; "
        "101.8 s in all): SFT 58.9 s (1600 AdamW steps of 10 episodes padded to ~109 tokens, ~37 ms a step, "
        "compute-bound: backward 32 s, linear layers 17 s), its validation and record 1.4 s, the SFT pool 2.1 s, "
        "GRPO 17.7 s (rollouts ~7 s, updates 10.8 s), the held-out reward gate 3.6 s, claim 1's evaluations 9.4 s "
        "(single passes 5.0 s), the timing claim 3.2 s, the rest ~4 s. The ~330 s target for 5 seeds is ~66 s a "
        "seed, so the SFT alone nearly fills it. Shorter SFT (same lr and schedule, no restart; SFT policy's greedy "
        "answer accuracy on the gate's 200 held-out questions; dev seeds 120-123 only): 700 x 10 gave 0.03, 0.055 "
        "(seeds 120, 121), 1000 x 10 0.845, 0.04 (120, 121), 1200 x 10 0.935, 0.025, 0.01, 0.88 (120-123), against "
        "0.99, 0.935, 0.015 (seeds 120-122) with the 1600 x 10 recipe (seed 122 collapses at both lengths tried, "
        "seed 121 only below 1600 steps); an 800-step SFT with each marker-with-object token's "
        "embedding started at the sum of its object's and marker's embeddings (an initialisation tried here) gave "
        "0.045 on seed 121. Shortening the SFT makes the object-reading collapse described above more common (1200 x 10: 2 "
        "of 4 dev seeds; 1600 x 10: 1 of 3 here, 0 of 8 on dev seeds 110-117), and each collapse costs a whole "
        "further SFT under the restart rule, so the recipe stays. Change (a "
        "saving only, every stored metric but the timing claim's expected bit-identical to the fourth session's rows): a row whose episode "
        "has ended leaves the rollout batch and its KV cache; sampling still draws for every row of the batch, so "
        "the random stream is unchanged (checked on a 400-step dev policy: every turn, generated token and visual-token "
        "count equal for greedy and sampled rollouts, the state after 3 GRPO steps equal to the last bit), and "
        "greedy evaluation takes ~30% and a GRPO rollout ~15% less CPU. Computing the output layer only at the "
        "trained positions would save ~6% of an SFT step but changes the bits of every trained policy, so it was "
        "not done. The budget is therefore not met at this recipe; the reward-ablation variants (+~36 s a seed) "
        "and the TDAM ratios (+~177 s a seed) stay unrun, with the measured costs in their texts. "
        "Outcome of the fifth session's full run (reported, nothing changed after it): every stored metric but the "
        "timing claim's equals the fourth session's row to the last bit on all 5 seeds, so every gate value and verdict "
        "is unchanged (SFT gate 5/5 with the restart again on seed 1, GRPO gate 5/5, the same accuracies); the cost "
        "was 517.0 s CPU in jobs (88.6, 148.9 with the restart, 92.7, 92.6, 94.2 s on seeds 0-4) against 586 s, 12% "
        "less, still ~1.6x the ~330 s target (the 2 shared cores ran at load 5-7; 979 s wall). Review after the run "
        "(text only): the profile above puts the change's saving at ~4 s a seed (~20 s over the run, ~4%); the rest "
        "of the 586 -> 517 s difference is CPU time measured under different load, not the change. The cProfile "
        "figures include the profiler's overhead, which inflates Python-heavy parts such as rollouts. The budget: "
        "the issue asks for the full profile within 3 minutes on 2 cores (wall); with 5 jobs on 2 workers that is "
        "~330 s CPU summed over the jobs on free cores, ~66 s a seed (earlier texts' '~300 s' and '60 s a seed' "
        "are the same target, rounded). The bit-identity rests on the stored rows (every GRPO step uses sampled "
        "rollouts, and every metric matched); the committed unit test compares a batched greedy rollout with "
        "single-row ones and does not cover the sampled branch or the code before the change. "
        "Seventh session (issues 18 and 22, budget: each full-profile seed <= 50 s CPU cold; committed before its "
        "re-run; recipe, gates, seeds and every check unchanged). Cost before (dev seed 100, cold, the fifth session's "
        "code, shared cores at load ~2-3): 88.0 s CPU for one seed without a restart; a cProfile of that seed puts ~64% "
        "of it in the SFT (1600 AdamW steps at ~33-41 ms CPU each: matrix products ~17 ms, attention forward and "
        "backward ~12 ms, AdamW ~2.5-5 ms), ~18% in GRPO and ~7% in claim 1's evaluations. Change (a saving only): "
        "the SFT loop turns the pool into tensors once and packs each batch from them (the same integers), and no "
        "longer computes the greedy correctness it threw away. On dev seed 100 (full profile, cold) every metric but "
        "the timing claim's three equals the fifth session's code's to the last bit, and so do the losses and weights "
        "of a 60-step d = 64 SFT; the test against the old loop covers it. It saves ~1-2 s a seed. Recipe knobs tried "
        "(dev seeds 100-102 only; judged by the SFT gate, restarts and CPU): d_model 48 makes an SFT ~20% cheaper "
        "(~45 s CPU against ~55-57 s at d = 64 on seeds 101 and 102, same load), but the object-reading collapse "
        "became the rule: the first attempt collapsed on seeds 100 and 102 (validation 0.03, 0.055) and both "
        "restarts of seed 100 did too (0.02, 0.04; 167 s CPU for that seed); only seed 101 passed (validation 0.98, "
        "held-out 0.915). d = 64 passed at the first attempt on all three (validation 0.825, 0.84, 0.955; held-out "
        "0.845, 0.81, 0.97). A restart costs a whole SFT, so d = 48 is not cheaper and was not adopted; shorter SFT is "
        "ruled out by the fifth session's pilots for the same reason (collapse on 2 of 4 dev seeds at 1200 x 10). "
        "Left as they are: the GRPO steps (the GRPO gate already failed on dev seed 100 at 30 steps, held-out reward "
        "gain -0.022), n_test (halving it would save ~6 s a seed and halve the gates' and claims' samples) and the "
        "timing repeats (~1 s). Dropping the evaluations that decide nothing (the full-reward policy on the "
        "reward-ablation videos, tdam/10) was measured at ~0.8 s a seed and not done. The 50 s target is therefore "
        "not met: at the only recipe that met the SFT gate on the dev seeds the SFT alone costs about that much. "
        "Outcome of the seventh session's full run (reported, nothing changed after it): every stored metric but the "
        "timing claim's three equals the fifth session's row to the last bit on all 5 seeds, so every gate value and "
        "verdict is unchanged (SFT gate 5/5, restart again only on seed 1; GRPO gate 5/5; timing 1.66-2.12x). Cost: "
        "530.7 s CPU in jobs (98.1, 162.1 with the restart, 91.4, 89.1, 90.1 s on seeds 0-4; the cores ran at load "
        "~3.5-5 while seeds 0 and 1 ran) against 517.0 s in the fifth session's run: the ~1-2 s a seed saving is smaller "
        "than the CPU-time variation with load, and the profile stays at ~90 s a seed without a restart, ~1.8x the "
        "50 s target. "
        "Eighth session (measurements only; no code, recipe, check or stored row changed). The budget, in rounds: 5 "
        "seeds on 2 workers take 3 rounds, so the profile fits 3 minutes only if a seed costs <= ~55 s (one restart "
        "then fits in the spare slot of the third round); with 3 or 4 seeds (2 rounds, weaker evidence) a seed may "
        "cost ~85 s, but only with no restart. Cost now (this machine, otherwise idle, one process, cold): dev seed 301 "
        "took ~104 s (SFT with its pool and validation 78.4 s, no restart; GRPO 14.7 s; claim 1's evaluations 5.9 s; "
        "the timing claim 2.4 s; the GRPO gate's held-out rewards 1.8 s; the SFT's held-out accuracy 0.6 s), and dev "
        "seed 200 under cProfile restarted once (two SFTs, 130 s of 169 s). An SFT step (10 episodes padded to ~113 "
        "tokens) costs ~42-46 ms here: matrix products ~13 ms, the attention kernel ~12 ms, AdamW ~5 ms, GELU ~4 ms, "
        "the rest per-op overhead. Engineering that keeps the recipe does not reach the target: the math attention "
        "backend is slower (53 ms a step against 42 ms), as is a hand-written attention in a micro-benchmark (7.7 ms "
        "against 6.0 ms forward and backward per layer); is_causal instead of the boolean mask gives the same bits but "
        "saves ~5% of the attention op only. Cheaper models save little per step because per-token element-wise ops, "
        "attention and the optimiser, not the d-dependent products, dominate: d = 48 is 7% cheaper (43.1 against "
        "46.5 ms) and an MLP ratio of 2 8% (42.9 ms). Shorter SFT fails as before: 800 x 10 gave held-out answer "
        "accuracy 0.615, 0.04, 0.155, 0.095 on dev seeds 120-123 (object reading not formed), and starting each "
        "marker-with-object token's embedding at the sum of its marker's and object's embeddings gave 0.13, 0.30, "
        "0.015, 0.07. Meeting the budget therefore needs roughly half the SFT tokens at the same reliability, which "
        "none of the tried recipes gives. The untried lever is shorter episodes, a redesign of the setting left to a "
        "later pass: 8-frame crops of grid-aligned marker events would cut a reference episode from 67-113 to ~43-73 "
        "tokens (our estimate, not built), and even that would bring a seed near ~55 s only with a somewhat shorter "
        "SFT that still met the gate. "
        "Ninth session (issue 18, budget; pre-registered in this commit before its full run; the gates (SFT 0.8, "
        "GRPO gain > 0), the seeds, the restart rule, the GRPO recipe and every claim check unchanged). Change: the "
        "world is redesigned for shorter episodes: 128-frame videos (16 global frames), marker events that start on "
        "the global view's grid and at least 16 frames apart, and a crop of 8 frames, one bin per global frame (16 "
        "bins; each bin token's embedding starts at the position code of the global frame its window starts on); "
        "the single-pass slots are 24 (three crops' worth, as 48 was). Reference episodes are 43, 58 or 73 tokens "
        "instead of 67, 90 or 113, and an SFT step of 10 episodes costs ~28 ms against ~42 ms here. The SFT is now "
        "1200 x 10 (was 1600 x 10; same lr, warm-up and cosine). Pilots (dev seeds 120-131 only, never run by a "
        "profile; SFT policy's greedy answer accuracy on the gate's 200 held-out questions; two pilots at once): "
        "1000 x 10 gave 0.88, 0.81, 0.805, 0.74, 0.835, 0.645, 0.035, 0.835 on seeds 120-127 (5/8 met 0.8), 1400 x 10 "
        "1.0, 1.0, 0.965, 0.905, 0.925, 0.995, 0.94, 0.94 (8/8), 1200 x 10 0.9, 0.98, 0.995, 0.83, 0.905, 0.93, 0.975, "
        "0.99 (8/8). Two whole dev seeds (130, 131; the experiment's parts timed, two at once, cold): 47.6 s wall "
        "without a restart (SFT with its pool, validation and record 29.6 s; GRPO 7.9 s; claim 1's evaluations 3.4 s; "
        "the timing claim 1.4 s), 76.2 s with one restart (seed 130: validation 0.765, then 0.995), so 5 seeds in 3 "
        "rounds come to ~150 s, ~175 s with one restart. Seen on those two dev seeds before this commit (reported, "
        "deciding nothing): the seeker answered 0.99 and 0.96 against 0.54 and 0.58 for the salience-guided single "
        "pass. The cause was the control's targeting, not the world: with a 16-frame global view the highest-novelty "
        "global frames (rarest coarse symbol) were the marker frames in only ~30% of videos (~94% with 32 frames), so "
        "the control often spent its frames on a rare object group. The control now targets the global frames that "
        "show the salient symbol (the location information the seeker reads; changed after seeing those two dev "
        "seeds, towards a stronger control), which restores its information ceiling at the seeker's budget: a perfect "
        "reader of its frames would answer 0.805, 1.0, 1.0 of the sweep's questions at clue lengths 1, 2, 3 (budgets "
        "14-15, the reference trajectories' mean), against 0.78, 0.98, 0.98 in the old world with its old targeting "
        "(budget 29), measured on the sweep's seed-0 videos (400 a length). Claim 1's check is unchanged and its "
        "verdict is whatever the full run gives. The timing claim's ratio on an untrained policy is about the same in both "
        "geometries (1.95-2.04x against 1.94-2.26x, 3 seeds each, the same machine). "
        "Outcome of the ninth session's full run (reported, nothing changed after it; cold, idle machine, --jobs 2): "
        "165.2 s wall, 255.2 s CPU in jobs (44.1, 46.7, 49.2, 47.2 s and 68.0 s for seed 4, which restarted once: "
        "validation 0.14, then 0.895), so the full profile is now within 3 minutes on 2 cores. SFT gate 5/5 (held-out "
        "answer accuracy 0.90, 0.995, 0.985, 0.83, 0.915 on seeds 0-4). GRPO gate 4/5 (held-out reward gain 0.018, "
        "-0.0003, 0.009, 0.004, 0.028): seed 1's SFT policy already answers 0.995, and GRPO did not raise its reward, "
        "so grpo-gain is not-checkable (it was reproduced, weakly, in the old world); its accuracy differences would "
        "not have passed either (+0.030, -0.002, -0.002, -0.015, -0.005). Claim 1: seeker 0.912, 0.992, 0.982, 0.822, "
        "0.907 against the uniform single pass 0.237, 0.172, 0.183, 0.257, 0.233 and the salience-guided single pass "
        "0.945, 0.937, 0.912, 0.967, 0.933, so not-reproduced as before (the seeker beats uniform frames by far and "
        "never beats the salience-guided pass by 10 points; seeker minus salience-guided -0.033, +0.055, +0.070, "
        "-0.145, -0.026, below it in 3/5 seeds). At clue length 1 the "
        "salience-guided pass answers at its information ceiling (0.84, 0.81, 0.75, 0.90, 0.81 against ceilings "
        "0.845, 0.81, 0.74, 0.885, 0.805; budgets 14-16 frames, the seeker's 1.7-1.9 tool calls). Timing claim "
        "1.60-1.79x in 5/5 (reproduced); cache equivalence max |logit difference| <= 9.8e-6 (tolerance 1e-4) in 5/5. "
        "Review after the run (text and a test only, no metric changed): (1) the salience-guided half of claim 1's "
        "check cannot pass in this world, as it could not in the old one: that pass reads at its information "
        "ceiling, which at the seeker's budget is 0.805, 1.0, 1.0 at clue lengths 1, 2, 3 (0.78, 0.98, 0.98 before), "
        "so even a perfect seeker would beat it by at most 1 - its accuracy, 0.033-0.088 per seed, under the "
        "10-point margin; a test now states this ceiling. The not-reproduced verdict therefore rests on the house "
        "rule, which is measured: the salience-guided pass, put in the seeker's place, beats the uniform pass by the "
        "10-point margin in every seed, as the seeker does. Not deciding anything: at clue length 1, where the "
        "control's budget binds, the seeker answered 0.90, 0.98, 0.98, 0.845, 0.915 against 0.84, 0.81, 0.75, 0.90, "
        "0.81. A world whose single-pass ceiling leaves room (more distractor events, or budgets per question) would "
        "be needed for the salience half to be a real test; that is a further pre-registered redesign, not done. "
        "(2) S_clue is nearly binary in this world: a crop window is exactly one event, so a crop of the right event "
        "scores 1 and an adjacent bin 0, the reference trajectory scores 1.0 in ~70% of videos (0.75 or 0.625 when "
        "it crops a distractor first), and the sampling strategy does not enter it; the graded 'how precisely was "
        "the clue localised' part of the paper's reward is lost (the reward ablation is not run, so no verdict rests "
        "on it). (3) The GRPO gate needs a gain in every seed, which a seed whose SFT policy is near the ceiling "
        "(seed 1, 0.995) can hardly show; the shorter SFT did not make that rarer. Any change to the gate would "
        "need a new pre-registration; none was made."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "d_model": 32, "n_layers": 2, "n_pool": 200, "uniform_frac": 0.12, "salient_frac": 0.12, "sft_steps": 20,
            "sft_batch": 8, "init": "sin_aligned", "sft_lr": 2e-3, "sft_val_floor": 0.8, "sft_max_restarts": 1, "sft2_steps": 0, "sft2_batch": 8, "sft2_lr": 3e-4, "sft3_steps": 0,
            "rl_steps": 2, "rl_prompts": 2, "rl_group": 4, "rl_lr": 1e-4, "rl_scale_rewards": False, "rl_variants": ["vtgr", "no_clue", "no_decay"],
            "rl_eval_rollouts": 1, "n_test": 24, "tdam_ratios": [0.1], "timing_batch": 4, "timing_repeats": 2},
            timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "d_model": 64, "n_layers": 2, "n_pool": 3000, "uniform_frac": 0.12, "salient_frac": 0.12, "sft_steps": 1200,
            "sft_batch": 10, "init": "sin_aligned", "sft_lr": 3e-3, "sft_val_floor": 0.8, "sft_max_restarts": 2, "sft2_steps": 0, "sft2_batch": 8, "sft2_lr": 3e-4, "sft3_steps": 0,
            "rl_steps": 30, "rl_prompts": 8, "rl_group": 8, "rl_lr": 1e-4, "rl_scale_rewards": False, "rl_variants": ["vtgr"],
            "rl_eval_rollouts": 2, "n_test": 200, "tdam_ratios": [0.1], "timing_batch": 32, "timing_repeats": 5},
            timeout_s=1800),
    },
    claims=(
        Claim(
            id="seeking-beats-uniform", kind="headline",
            statement=("Interleaved clue seeking (SFT + GRPO with the trajectory-guided reward) answers more "
                       "questions than the same model answering in one pass at an equal visual-token budget, both "
                       "from uniformly sampled fine frames (the paper's comparison) and from salience-guided fine "
                       "frames (the events the global view marks as salient, no interleaving: the control added in "
                       "review); reported over a clue-sparsity sweep (answer shown 1, 2, 3 frames of 128; of 256 before the ninth "
                       "session, see the substitution). "
                       "Pre-registered (review, before the re-run): reproduced only if the seeker beats the best "
                       "of the two controls by >= 10 points in every seed; partly if it beats only one. Gate "
                       "revised after the previous full run: the SFT gate is now the SFT policy's held-out answer "
                       "accuracy, and the GRPO reward-rise gate no longer guards this claim (GRPO has its own claim, "
                       "grpo-gain). Fourth session, before its re-run: an SFT that stays below 0.8 on a separate "
                       "validation split is restarted (<= 2 times), the same SFT policy feeding the seeker and both "
                       "controls; check and gate unchanged. Changed by review after that run (partly -> "
                       "not-reproduced): under the house rule a part counts only if the control fails it, and the "
                       "seeker's one passing part (beating uniform frames by >= 10 points) is passed just as well "
                       "by the salience-guided single pass, which has no interleaving. Review of the ninth session "
                       "(text only): the salience-guided half of the rule cannot pass in this world, nor could it in "
                       "the old one: at the seeker's budget that pass's information ceiling is 0.805, 1.0, 1.0 at clue "
                       "lengths 1, 2, 3, so no seeker could beat it by 10 points over the sweep (tested); the verdict "
                       "rests on the house-rule part, which is measured."),
            paper_value="qualitative: native clue seeking beats uniform single-pass sampling; MLVU 72.1 vs 70.2 for the base model",
            control="the same model, one pass at the seeker's mean visual-token budget (the better of the SFT and GRPO "
                    "checkpoints) over uniform fine frames, and over salience-guided fine frames",
            check=None),  # experiment.check_seeking_beats_uniform: the rule above under the house rule
        Claim(
            id="grpo-gain", kind="headline",
            statement=("GRPO with the trajectory-guided reward raises the seeker's accuracy over its SFT cold start "
                       "(same test videos, greedy). Added in review so that the GRPO stage's effect, which lowered "
                       "accuracy in all 5 seeds of the previous full run, is decided rather than hidden in claim 1. "
                       "Fourth session, before its re-run: GRPO now takes 8 prompts x 8 rollouts per step and does not "
                       "divide rewards by the group's std, chosen on dev seeds 110-117 by the GRPO gate's metric "
                       "(held-out reward gain), not by this claim's accuracies; check and gates unchanged. Its full "
                       "run: differences +0.003, +0.017, +0.008, -0.002, +0.010 (600 questions per seed), small "
                       "against sampling noise: reproduced by the pre-set rule, but a one-sided sign test over the "
                       "5 seeds gives p = 0.19 (4 of 5 positive; mean +0.007), so the evidence for a GRPO gain is "
                       "weak (noted in review after the run; rule unchanged). Ninth session (new world, 1200 x 10 SFT; see the "
                       "substitution; rule unchanged): the GRPO gate fails in seed 1 (held-out reward gain -0.0003 "
                       "from an SFT policy answering 0.995), so the claim is not-checkable; the differences were "
                       "+0.030, -0.002, -0.002, -0.015, -0.005."),
            paper_value="qualitative: SFT + RL is the paper's final model, reported above SFT alone",
            control="the SFT policy before GRPO, on the same videos",
            check=C.beats_in_seeds("acc/seeker", "acc/sft_seeker", margin=0.0, frac=0.8, better="higher",
                                   label="SFT + GRPO", control_label="SFT only").gated(_SFT_GATE, _RL_GATE)),
        Claim(
            id="reward-ablation", kind="headline",
            statement=("Removing S_clue from the bonus (w_g = 0) or removing the turn decay (gamma = 1) lowers "
                       "accuracy after GRPO (that the decay alone cuts the number of turns is by construction "
                       "and not claimed; tool calls are reported)."),
            paper_value="qualitative ablation: without S_clue fewer tool calls and lower accuracy; without decay more calls, lower accuracy",
            control="GRPO from the same SFT policy with the bonus lacking S_clue, and lacking the turn decay",
            uncheckable=("not run, by our choice for budget, and it would be uninformative at this recipe: full-reward "
                         "GRPO itself moves accuracy over SFT by only -0.015 to +0.030 in the ninth session's run, with "
                         "its gate failing in 1 of 5 seeds (+0.003 to +0.017, sign test p = 0.19, in the runs up to the "
                         "eighth session), "
                         "so 30-step GRPO runs could not separate reward variants whose combined effect is that small "
                         "(the earlier reason, that >= 100 steps per variant would be needed, is the same point). Cost: "
                         "each reward variant is another GRPO run of the full "
                         "reward's recipe (figures up to the ninth session's sentence below are from the old world), 17.7 s CPU per seed measured on dev seed 120 in the fifth session (30 steps "
                         "of 8 prompts x 8 episodes; cProfile, overhead included) plus its own greedy evaluation (~4.4 s), "
                         "so the two variants add ~45 s per seed, ~225 s over the 5 "
                         "seeds, to a profile that already takes ~89-94 s per seed without a restart (fifth session's run; 89-98 s in the "
                         "seventh session's) against a ~66 s target (50 s in the seventh session); the full "
                         "profile trains only the full reward (the quick profile still exercises the variants). "
                         "History: the first runs had 20 "
                         "steps per variant, all three ended below the SFT policy and their order was noise (full "
                         "reward 0.884, no S_clue 0.898, no decay 0.91). Ninth session: a GRPO run now costs ~8 s and its "
                         "evaluation ~1 s a seed, so the two variants would add ~18 s a seed, ~55 s over the 3 rounds, "
                         "to a 165 s profile; GRPO's own effect is -0.015 to +0.030 and its gate fails in 1 of 5 seeds"),
            check=C.all_of(
                C.beats("acc/vtgr", "acc/no_clue", better="higher", label="full reward", control_label="no S_clue"),
                C.beats("acc/vtgr", "acc/no_decay", better="higher", label="full reward", control_label="no decay"),
            ).gated(_SFT_GATE, _RL_GATE)),
        Claim(
            id="tdam-ratio", kind="headline",
            statement="Applying TDAM to 10% of the SFT samples gives higher accuracy than 0%, 20% or 30%.",
            paper_value="ablation: 10% better than 20% and 30% (and than none)",
            control="SFT with TDAM on 0%, 20%, 30% of samples (best of them)",
            uncheckable=("not built: the effect the paper reports for the ratio (fake thinking in language reasoning) "
                         "has no counterpart in our one-token think, so the ablation would not test the paper's "
                         "mechanism; and, by our choice for budget, each further ratio is another full SFT, 58.9 s CPU "
                         "per seed at the 1600 x 10 recipe (dev seed 120, fifth session, cProfile), so the three other "
                         "ratios would add ~177 s per seed, about three times the whole per-seed target; only rho = 10% "
                         "is trained (ninth session: an SFT is now ~30 s a seed, so the three would add ~90 s a seed)"),
            check=C.beats("tdam/10", "tdam/best_other", better="higher", label="TDAM 10%",
                          control_label="best other ratio").gated(_SFT_GATE)),
        Claim(
            id="shared-context-speed", kind="headline",
            statement=("Keeping global view, reasoning and crops in one KV-cached context is faster than "
                       "re-encoding the whole context at every turn: >= 1.5x at the turn cap. (Review of the budget "
                       "pass, no check changed: the timing code replays fixed cap-length trajectories and does not "
                       "depend on training; the previous full run gave 1.65-2.0x in 5/5 seeds, the budget re-run "
                       "1.16-2.6x with shared-context medians 1.1-1.9 s instead of 0.06-0.34 s, measured while the "
                       "5 seeds ran at once on 2 shared cores for ~1060 s each, so this run's partly reflects "
                       "wall-clock contention rather than a change in the method. The SFT-gate pass's re-run, "
                       "timing code unchanged, gave 1.72-1.94x in 5/5 seeds; the time-aligned pass's re-run 1.56-1.93x in 5/5; the fourth session's 1.79-2.10x in 5/5; the fifth session's 1.73-2.17x in 5/5; the seventh session's 1.66-2.12x in 5/5; the ninth session's, in the new world, 1.60-1.79x in 5/5.)"),
            paper_value="10.2 s vs 18.9 s per MLVU sample against decoupled VideoChat-R1.5 (1.85x)",
            control="the same policy re-encoding the whole context at the start of every turn (decoupled)",
            check=C.beats("timing/shared_s", "timing/reencode_s", better="lower", margin=1 / 3, rel_margin=True,
                          label="shared context", control_label="re-encode per turn")),
        Claim(
            id="cache-equivalence", kind="identity",
            statement="The shared KV-cached context and per-turn re-encoding give the same logits for every turn token.",
            paper_value="implied (one context, no approximation)",
            check=C.close("cache/max_abs_diff", to=0.0, tol=1e-4, label="max |logit difference|")),
        Claim(
            id="benchmarks", kind="headline",
            statement="72.1% on MLVU and 46.5% on Video-Holmes with Qwen2.5-VL-7B (SFT + RL).",
            paper_value="MLVU M-Avg 72.1, Video-Holmes 46.5",
            no_control="absolute benchmark scores",
            uncheckable="needs the 7B video model, Seeker-173K and the benchmarks; our symbolic seeker's accuracy is shown",
            check=C.threshold("acc/seeker", at_least=0.5)),
    ),
)
