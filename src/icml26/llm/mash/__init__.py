"""MASH: Modeling Abstention via Selective Help-Seeking (arXiv:2510.01152; v1 "Pay-Per-Search Models are Abstention Models").

A search agent is trained with GRPO on a pay-per-search reward (a correct answer pays, every
search beyond the cheapest correct trajectory of the question costs a factor lambda); once
the tool is removed, its search requests are read as abstentions. This package holds the
rewards (MASH's exponential penalty, OTC-GRPO's, Search-R1's), the historical-minimum tracker,
the synthetic-trace warm start, the label-based abstention baselines (:mod:`.method`), the
noisy-helper world on the shared tiny search policy (:mod:`.setting`) and the reproduction
(:mod:`.experiment`).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_BASE_GATES = (
    C.gate("base/cb_memorised", at_least=0.8, frac=0.8, why="base closed-book accuracy on memorised facts >= 0.8"),
    C.gate("warm/format_ok", at_least=0.95, frac=0.8, why="warm-start format correct >= 0.95"),
)

PAPER = Paper(
    slug="mash",
    title="MASH: Modeling Abstention via Selective Help-Seeking",
    source="arXiv:2510.01152",
    cluster="llm",
    feasibility="B",
    substitution=(
        "Keeps: MASH's exponential pay-per-search reward c * lambda^(n - m) with m the fewest searches of a correct "
        "rollout in the group min-ed with a per-question historical minimum (lambda 0.5 single-hop, 0.8 multi-hop), "
        "OTC-GRPO's penalty and Search-R1's plain EM reward as controls; the warm start (sampled traces with the tool, "
        "correct ones kept, 0/1/2 searches balanced per question, no knowledge-boundary labels, SFT with retrieved "
        "tokens masked); GRPO with group-normalised advantages, PPO clip 0.2, KL coefficient 0, one update per batch, "
        "retrieved tokens masked from the loss; tool-less abstention (a search request = abstain) with answerability "
        "= correct answers among 10 closed-book samples of the base model, Abs(0), Abs(10/10) and Delta. "
        "Replaces: Qwen-scale LLMs, a Wikipedia retriever and NQ/HotpotQA/2Wiki by the shared tiny search policy of "
        "icml26.tasks.search (a 2-layer TinyLM that memorised about half of a synthetic knowledge base's facts, each "
        "seen 1-3 times, and knows the Search-R1 trace format) with BM25 top-1 retrieval made noisy (the retrieved "
        "passage replaced by a random one with probability 0.2); 1-hop and 2-hop questions are split 50/50 into RL "
        "training and test questions, and one policy is trained on both hop counts (lambda by hop count) where the "
        "paper trains per dataset; at most 3 searches (paper 5); G = 8 rollouts, 4 questions per step and 60 steps at lr 1e-4 (third session; "
        "before: 8 questions, 30 steps, lr 1e-3) instead of G = 16, 64 prompts, lr 1e-6 and hundreds of steps; the "
        "oracle-helper arm's tool is always correct (the knowledge base's passage for the fact the query asks about), "
        "the other arms' is the noisy BM25 one; no entropy bonus (the "
        "shared GRPO has none; paper 0.001); the AFH-style SFT and DPO abstention baselines are trained on the RL "
        "training questions with the boundary label 'known' = at least 5 of 10 closed-book samples correct, the "
        "abstain target being the first search request. Delta is decided on a least-squares line of abstention on "
        "answerability (Abs(0) - Abs(10/10) read off the line) because only a handful of test questions sit at "
        "10/10 here; the raw bucket difference is reported beside it. "
        "First full run (5 seeds, ~15 min wall at load average 7-13 on 2 cores, not the 3-minute target): 30 GRPO steps "
        "do not raise any arm's training reward reliably (OTC's fell in 4/5 seeds, so the accuracy claim's gate "
        "fails) and every RL arm ends below the base policy's 2-hop accuracy with the tool; the base policy already "
        "abstains selectively (Delta ~0.45) because its pretraining pairs closed-book answers only with memorised "
        "questions; no arm collapses to always/never searching, with or without warm start or oracle helper. "
        "Until the third session the 'oracle' helper was BM25 top-1 for the policy's own query without the random "
        "replacement, not the paper's always-correct helper: a review probe (not a stored metric; base policy, seeds 0-1, training "
        "questions x 8 samples) found answers after a p = 1 search correct 0.75/0.81 on known questions (>= 8/10 "
        "closed-book) against 1.00/0.97 without a search, and 0.68/0.78 on unknown ones, so searching does not "
        "always pay here and the helper-noise ablation's premise is absent. "
        "Review after the full run: claims abstention, warm-start and oracle-helper had no training gate although "
        "they read RL arms; each is now gated on its RL arms' training reward not falling (second-half minus "
        "first-half mean >= 0 in >= 4/5 seeds, the form of the OTC gate pre-registered for the accuracy claim), "
        "and the 'partly if any part passes' tier of abstention and warm-start (not in the issue's rule) was "
        "removed: the part that passed there is passed equally by the control. "
        "Third session (issue 20; chosen on dev seeds 100-104 by training-gate and health metrics only, committed "
        "before this session's stored run): (1) RL recipe 60 steps x 4 questions x G = 8 at lr 1e-4, the same "
        "number of rollouts as before. On dev seeds the former lr 1e-3 collapsed the search rate (warm start "
        "1.1 searches per question -> 0.3-0.4 after 30 steps, seed 100) with held-out reward flat (+0.005/-0.008 for "
        "MASH/OTC); at lr 3e-4 the held-out reward rose in 13/15 arm-seeds (seeds 100-102), at lr 1e-4 in 20/20 "
        "(seeds 100-103) and, with this session's code, in 24/25 (seeds 100-104; the exception the oracle arm on "
        "seed 100, -0.043), answer format >= 0.98 throughout. (2) Training gate: each RL arm a claim reads (now "
        "MASH, OTC and Search-R1 for the accuracy claim, which gated only OTC) must raise its held-out reward -- "
        "its own reward without the historical minimum, on all training questions x 8 samples, before vs after RL "
        "with the same sampling stream -- in >= 4/5 seeds (gain > 0). The second-half-minus-first-half training "
        "reward (still reported) mostly measures which 4-8 questions a step drew and, for MASH/OTC, the historical "
        "minimum tightening; on dev seed 100 it was negative for MASH, OTC and no-warm-start while their held-out "
        "reward rose by 0.04, 0.07 and 0.02. (3) The oracle helper returns the asked fact's passage (exact lookup of "
        "the canonical query, a malformed query read as the nearest canonical one by BM25). Dev probe (base policy, "
        "seeds 100-101): noise-free BM25 top-1 returned the asked fact for 0.85 of well-formed queries, and "
        "answers given all of a question's gold passages were correct 0.97-1.00; the warm-start policy's held-out "
        "accuracy is 0.84-0.94 with the oracle helper vs 0.75-0.81 with the noisy one (seeds 100-104). "
        "Third session's full run (seeds 0-4; checks, gates and recipe unchanged after it): every RL arm's held-out "
        "reward rose in 5/5 seeds (mean gain MASH 0.055, OTC 0.067, Search-R1 0.083, no warm start 0.049, oracle "
        "0.051; format >= 0.98; the OTC and Search-R1 figures were overstated by the gate bug found by the fourth "
        "session's review, see there), so all four claims were decided. On the test questions RL from the warm start "
        "does not beat the untrained base policy's 2-hop accuracy with the tool (base 0.658, warm start 0.608, MASH "
        "0.567, OTC 0.592, Search-R1 0.567), while the no-warm-start arm (RL from the base) reached 0.683: most of the "
        "drop comes from the warm start, and the held-out gain is on the 57 training questions RL sees. MASH searches less than "
        "Search-R1 (0.55 vs 0.78 per question, 5/5 seeds) but is not as accurate as OTC on 2-hop questions "
        "(2/5 seeds, mean -0.025), so the accuracy claim is partly by its pre-registered rule; Search-R1 abstains "
        "about as selectively as MASH without the tool (Delta 0.42 vs 0.46, and 0.45 for the untrained base); "
        "no arm degenerates with or without warm start (no-warm-start modal share 0.59); with the oracle helper "
        "(warm-start held-out accuracy 0.835 vs 0.749 with the noisy one) MASH searches 0.40 of test questions vs "
        "0.375 with the noisy helper, far from always. Limit of this oracle, found by a probe after the full run "
        "(not a stored metric; base policy, dev seeds 100-101, training questions x 8 samples): it is right about "
        "every fact the policy asks for, but 11-22% of the policy's queries ask for a fact off the question's chain, "
        "so only 0.89/0.78 of the passages it returned were the question's gold facts (noise-free BM25: 0.76/0.61), "
        "and answers after a search with it were correct 0.88/0.76 vs 0.84/0.77 without a search: searching does "
        "not always pay even with it, so the ablation's premise is only partly present. A question-aware oracle "
        "(the gold chain passage whatever the query) needs per-question rollouts and was not pre-registered, so "
        "it was not run. Cross-check with the field's library (a test, deciding no verdict: "
        "tests/llm/test_mash_trl.py): one Search-R1 GRPO step on fixed search episodes of this world through trl's "
        "GRPOTrainer (rollout_func with env_mask marking the retrieved tokens) and through our grpo_update (loss "
        "mask) moves a tiny GPT-2 the same way. The third session's version agreed to 0.3%; the fourth session's review "
        "traced that residual to trl's bf16 default, and the test now runs trl in full precision, with no "
        "gradient-norm clipping on either side (so a global scale error would show), three groups with different "
        "reward patterns, and a variant with two optimiser steps on the same episodes (trl num_iterations=2, our "
        "inner_steps=2; the ratio leaves 1 and the PPO clip acts on 0.69 of the loss tokens): relative difference "
        "of the updates 1.7e-7 (one step) and 1.9e-7 (two), tolerance 1e-5, against 0.19 and 0.31 when our side "
        "drops the retrieved-token mask. It is one update on fixed episodes: Search-R1's whole RL arm was not rerun "
        "through trl. "
        "Fourth session (review of the third session's full run; committed before this session's re-run, whose "
        "only recipe change is the bug fix in (2)): (1) Bug in the training gate: the before-RL held-out value was "
        "computed once per (start, helper) and read as the first arm's (MASH's) reward for every arm, so the third "
        "run's stored OTC and Search-R1 gains were their own reward after RL minus MASH's before (the reviewer's "
        "recomputation from the stored rows: Search-R1 +0.004 to +0.068, mean 0.029, > 0 in 4/5 seeds, not 0.083 in "
        "5/5; OTC mean 0.042, not 0.067); the dev-seed counts behind the third session's pre-registration (20/20, "
        "24/25) were computed with the same bug. Each arm now reads its own penalty's reward before and after RL "
        "(test); the pre-registered gate rule (gain > 0 in >= 4/5 seeds) is unchanged. (2) The noisy helper drew "
        "from the generator that drew the training questions, so after the first step an arm's questions depended "
        "on how many searches it had made; the helper now has its own generator and every arm sees the same question "
        "stream (test). This changes every RL arm's numbers. (3) Revised by review after the third session's full "
        "run: selective-help-seeking has no 'partly if any part passes' tier (as abstention and warm-start since the "
        "second session); that run's partly rested on the search-count part alone, which OTC in MASH's place passes "
        "too (0.60 vs 0.78 searches per question, 5/5 seeds). (4) Revised by review after the third session's full "
        "run (chosen after seeing it): premise gates. Warm-start is decided only if the no-warm-start start does not "
        "already mix search counts (modal search-count share of its sampled held-out episodes >= 0.8 in >= 4/5 "
        "seeds; the third run's base policy had a greedy test modal share of 0.47, and the paper's claim is about "
        "RL from a start that has no such mixture). Oracle-helper is decided only if searching pays with the oracle "
        "before RL (the warm start's held-out accuracy on episodes that searched above that on episodes that did "
        "not, >= 4/5 seeds; a review probe on seeds 0-1 found 0.825/0.884 after a search vs 0.854/0.902 without). "
        "The paper's oracle is not ours: the authors' code answers a help action ('<help> I need help </help>') with "
        "'The answer to the original question is: <gold answer>' and trains that arm its own warm start; ours "
        "returns the knowledge-base passage of whatever fact the query names and starts from the noisy-helper warm "
        "start, so it is always correct about what was asked but does not hand over the answer; the paper's oracle "
        "was not implemented (a help action and a second warm start). (5) The comparative claims' evidence reports "
        "the one-sided sign test's p (smallest attainable at 5 seeds: 0.031) and a 95% bootstrap CI of the mean "
        "per-seed difference; the pre-registered k/5 rules still decide (they count a tie as a loss: 'strictly', "
        "where the issue wrote '>= 0'; kept). With 24 two-hop test questions per seed, one question is 0.042 of "
        "accuracy. Other differences from the authors' code, not changed: their tracker is keyed by (dataset, "
        "question) (ours by question, hop count included); they can add a format reward and thresholded F1 (ours "
        "exact match only); their warm start keeps, for a question with no correct trace, the incorrect trace with "
        "the shortest answer and draws the target search count at random per question (ours keeps correct traces "
        "only, 0/1/2 balanced). The full profile runs ~15 min wall on this loaded 2-core machine (timeout 900 s), "
        "over the 3-minute target; this session adds only a few metrics. "
        "Fourth session's full run (seeds 0-4, 625 s wall, 423 s CPU; no check, gate or recipe changed after it): "
        "training gates met for every arm, now each read off its own reward (held-out gain > 0: MASH 5/5, mean "
        "0.060; OTC 5/5, 0.046; Search-R1 4/5, 0.024, seed 2 -0.015; no warm start 5/5, 0.049; oracle 5/5, 0.051; "
        "MASH format 0.995). Test 2-hop accuracy with the tool: base 0.658, warm start 0.608, MASH 0.533, OTC 0.592, "
        "Search-R1 0.575, no warm start 0.642 (RL from the base; the only RL arm near the base), oracle arm 0.700 "
        "(with the oracle at test). Searches per test question: warm start 0.95, MASH 0.53, OTC 0.56, Search-R1 "
        "0.77. Selective-help-seeking: not reproduced (MASH above OTC on 2-hop accuracy in 0/5 seeds, mean -0.058, "
        "bootstrap CI [-0.092, -0.025]; fewer searches than Search-R1 by >= 0.05 in 5/5, mean 0.24, sign test p = "
        "0.031, but OTC also searches less than Search-R1). Abstention: not reproduced; the untrained base is "
        "already selective (Delta 0.451) and MASH (0.430), Search-R1 (0.430), label SFT (0.446) and DPO (0.426) are "
        "indistinguishable (MASH - Search-R1 mean -0.000, CI [-0.085, +0.084]). Warm-start: not checkable, premise "
        "absent (the no-warm-start start's sampled modal search-count share 0.46, >= 0.8 in 0/5 seeds; neither arm "
        "degenerates: modal shares MASH 0.64, no warm start 0.60). Oracle-helper: not checkable, premise absent "
        "(searching pays with the oracle before RL in 2/5 seeds: warm start's held-out accuracy 0.820 after a "
        "search vs 0.850 without; with the noisy helper 0.681 vs 0.850); on these numbers the rule would have said "
        "not reproduced (oracle arm searches 0.40 of test questions vs 0.36 with the noisy helper)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "search_config": {"n_people": 10, "n_cities": 4, "n_countries": 3, "n_companies": 3, "steps": 80,
                              "d_model": 32},
            "helper_p": 0.8, "warm_samples": 2, "warm_steps": 5, "sft_lr": 1e-3, "rl_steps": 2, "prompts": 4,
            "group": 4, "rl_lr": 1e-4, "label_steps": 5, "dpo_lr": 2e-4}, timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "search_config": {"steps": 600},
            "helper_p": 0.8, "warm_samples": 8, "warm_steps": 60, "sft_lr": 1e-3, "rl_steps": 60, "prompts": 4,
            "group": 8, "rl_lr": 1e-4, "label_steps": 60, "dpo_lr": 2e-4}, timeout_s=900, cpus=1),
    },
    claims=(
        Claim(
            id="selective-help-seeking",
            statement=("With search access, MASH answers multi-hop questions at least as accurately as the efficient-"
                       "search baseline OTC-GRPO, and searches less than Search-R1 (no search penalty)."),
            paper_value="+7.6% answer accuracy over OTC on multi-hop datasets (HotpotQA, 2Wiki); Search-R1-level "
                        "accuracy with fewer searches",
            kind="headline",
            control="OTC-GRPO (same start, questions, steps); Search-R1 for the search count",
            # check: experiment.check_selective_help_seeking (revised by review after the third session's full run:
            # no 'partly if any part passes' tier; the OTC control in MASH's place passed the part that passed); gates (third session, pre-registered before its full
            # run): MASH's, OTC's and Search-R1's held-out RL reward rose in >= 4/5 seeds (was: OTC's training
            # reward, second half vs first half, did not fall)
        ),
        Claim(
            id="abstention",
            statement=("Without the tool, MASH's search requests are an abstention signal competitive with abstention "
                       "training that needs knowledge-boundary labels: Delta = Abs(0) - Abs(10/10) at least the "
                       "label-SFT model's and within 0.1 of the label-DPO model's, while the no-penalty Search-R1 "
                       "model does not abstain selectively (Delta < 0.3)."),
            paper_value="MASH beats AFH SFT variants and is close to DPO on Abs(0)/Delta (Table 3)",
            kind="headline",
            control="AFH-style SFT and DPO on estimated boundary labels; Search-R1 as an abstainer",
            # check: experiment.check_abstention (revised after the full run by review: gates on the RL arms'
            # training reward added, the 'partly if any part passes' tier removed; see its docstring)
        ),
        Claim(
            id="warm-start",
            statement=("Without the warm start, RL with the same reward converges to a degenerate always- or never-"
                       "search policy; with it, MASH keeps a mixture of search counts. (Revised by review after the "
                       "third session's full run: decided only where the start without warm start does not already "
                       "mix search counts, the paper's premise.)"),
            paper_value="qualitative: baselines collapse to always/never search; MASH mixes 0/1/2 searches",
            kind="headline",
            control="MASH without warm start (GRPO from the base policy)",
            # check: experiment.check_warm_start (revised after the full run by review; see its docstring)
        ),
        Claim(
            id="oracle-helper",
            statement=("With an always-correct (oracle) helper, MASH converges to searching on (nearly) every "
                       "question (third session: the helper returns the knowledge base's passage for the asked "
                       "fact, which is the question's gold fact only when the policy asks for a fact on the "
                       "question's chain; until then it was noise-free BM25 top-1, not always correct; see the "
                       "substitution). Revised by review after the third session's full run: decided only where "
                       "searching pays with this oracle before RL, the paper's premise; the paper's oracle hands over "
                       "the gold answer, ours does not."),
            paper_value="qualitative: with an oracle helper every model converges to always searching",
            kind="headline",
            control="MASH with the noisy helper (p = 0.8)",
            # gates (third session, pre-registered): both arms' held-out RL reward rose in >= 4/5 seeds
            # check: experiment.check_oracle_helper (revised after the full run by review; see its docstring)
        ),
    ),
    examples="icml26.llm.mash.experiment:EXAMPLES",
)

_EXPORTS = {"exponential_penalty": ".method", "otc_penalty": ".method", "no_penalty": ".method",
            "SearchMinTracker": ".method", "abstention_metrics": ".method", "train_search_rl": ".method",
            "RLConfig": ".method", "noisy_helper": ".setting", "split_questions": ".setting"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
