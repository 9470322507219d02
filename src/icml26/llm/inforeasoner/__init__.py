"""InfoReasoner: Optimizing Agentic Reasoning with Retrieval via Synthetic Semantic Information Gain Reward
(arXiv:2602.00845).

A Search-R1 agent is trained with GRPO on EM plus a dense bonus: the gain in the probability
mass that a frozen reader puts on the gold answer's semantic class when it reads the evidence
the trajectory retrieved (Delta IG). This package holds the exact information-gain identities,
the practical soft/hard estimator, the shaped reward and a toy reproduction on the shared
search policy of :mod:`icml26.tasks.search`.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_QUICK_WORLD = dict(n_people=8, n_cities=4, n_countries=2, n_companies=3, d_model=16, n_layers=1, n_heads=2,
                    steps=30, batch=16)

_READER_GATES = (
    C.gate("gate/reader_gold_doc", at_least=0.8, frac=0.8,
           why="the reader answers retrieval-only facts with the gold passage (EM >= 0.8)"),
    C.gate("gate/reader_no_doc_excess", at_most=0.2, frac=0.8,
           why="the reader is near chance without it (EM - chance <= 0.2)"),
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
        "0.6 Delta IG when anything was retrieved, else EM; GRPO with a small KL to the start (beta = 0.001). "
        "Replaces: Qwen2.5-3B/7B by the shared word-level TinyLM search policy (icml26.tasks.search, 2 layers, "
        "d = 48, pretrained on a synthetic KB where half the facts are memorised 1-3 times and the rest are "
        "retrieval-only), E5 over Wikipedia by BM25 top-1 over one passage per fact, NQ/HotpotQA by the KB's "
        "2-hop questions (alternate questions held out for evaluation), DeBERTa-MNLI entailment by the KB's "
        "alias table (exact semantic equivalence; no NLI or MiniLM model ships offline, so the issue's MiniLM "
        "cosine variant is not run), the frozen reader (the paper: the frozen base model) by the starting "
        "policy fine-tuned for 80 steps on counterfactual reading exercises (every fact's object in the gold "
        "passages replaced by a random entity of its type, loss on the answer only, so nothing true is taught) "
        "and then frozen, because the shared base policy copied the answer from a gold passage only ~0.79 of the "
        "time on the two development seeds, below the issue's reader gate of 0.8 (the base model as reader is "
        "still run and reported under base_reader/), N = 4 reader samples "
        "(paper 5-10), group size 4 (code 3), and 1005 steps x 512 prompts by a few steps of 4 prompts. The "
        "information-theoretic properties are checked exactly on random discrete channels (K = 8 classes). "
        "Further differences from the authors' IG service (disclosed by review after the full run): the reader is "
        "prompted with the trajectory up to its last </info>, search queries included, in the policy's own format "
        "(the code passes only the <information> blocks under an 'Answer ... as briefly as possible. Context: ... "
        "Question: ... Answer:' prompt); the bonus is also paid to trajectories that retrieved but never wrote "
        "<answer> (2-5 of 43-77 retrieving base-policy trajectories per seed; the code pays 0 without an answer); "
        "the reader's samples are drawn once per (question, context) and reused across group members, steps and "
        "arms (the code resamples per call). Review probe (not a stored metric): the counterfactual tuning also "
        "erased most of the reader's closed-book knowledge: its gold mass without context on the 2-hop questions "
        "is 0.07-0.13 against the base model's 0.36-0.48 in seeds 0-3 (0.43 vs 0.41 in seed 4), so S(empty) no "
        "longer measures the base model's prior and Delta IG with the tuned reader is close to the naive "
        "answer-in-retrieved-text indicator (mean |Delta IG - indicator| 0.07-0.18, correlation 0.79-0.89 on the "
        "base policy's searching trajectories in seeds 0-3)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "world": _QUICK_WORLD, "theory_instances": 20, "reader_n": 2, "reader_steps": 5, "credit_samples": 1,
            "steps": 1, "batch": 2, "group": 2, "lr": 1e-3, "beta": 0.001, "coef": 0.6}, timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "world": {}, "theory_instances": 500, "reader_n": 4, "reader_steps": 80, "credit_samples": 2,
            "steps": 8, "batch": 4, "group": 4, "lr": 3e-4, "beta": 0.001, "coef": 0.6}, timeout_s=900),
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
                       "(Full run, measured after the checks were committed: the start is far from sparse, "
                       "held-out 2-hop EM 0.575 at step 0, and no arm learns in 8 steps of 4x4 rollouts: EM-only "
                       "0.567, InfoReasoner 0.550, shuffled IG 0.592, alias bonus 0.542; GRPO lr 3e-4 was chosen "
                       "before the full run after lr 1e-3 collapsed one development seed from 0.625 to 0.25.) "
                       "(Review after the full run, check unchanged: not-checkable is right -- both gates fail, the "
                       "start gate in 0/5 seeds (0.46-0.71) and the EM-only gain in 4/5; every arm ends within 3 of "
                       "24 held-out questions of its start, InfoReasoner above EM-only in 1/5 seeds, so this is no "
                       "clean negative either. The start is dense because the 2-hop set mixes memorised chains with "
                       "retrieval-only ones, and with the tuned reader the InfoReasoner reward is close to the "
                       "alias-bonus control's (see substitution), so even a learning run could barely separate them.)"),
            paper_value="up to +5.4 points average EM over Search-R1 and other retrieval baselines on 7 QA sets (3B/7B)",
            control="EM-only GRPO (Search-R1); EM + shuffled Delta IG; EM + answer-in-retrieved-text bonus",
            check=C.all_of(
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
                       why="the EM-only control learns (held-out 2-hop EM rises)"))),
        Claim(
            id="credits-useful-searches", kind="headline",
            statement=("Delta IG credits useful searches: among the base policy's 2-hop trajectories that searched, "
                       "it ranks those that retrieved the bridge fact above those that did not (AUROC >= 0.75). "
                       "(Full run: 0.625 with the tuned reader, 0.628 with the base model as reader; exploratory, "
                       "added after the first full run and not a claim: Delta IG ranks trajectories that retrieved "
                       "the answer-bearing passage at AUROC 0.893, so it credits the final evidence, not the bridge.) "
                       "(Review after the full run, check unchanged; read this not-reproduced as uninformative about "
                       "the paper, not as a clean negative. Per seed, tuned reader 0.695/0.697/0.621/0.736/0.373 "
                       "(seed 4 has 3 bridge-positive trajectories of 45); base-model reader 0.816/0.770/0.518/0.806/"
                       "0.230, i.e. >= 0.75 in 3/5 seeds, exactly those where the base reader reaches or nearly "
                       "reaches the gold-passage gate (0.78-0.83). Review probes (N = 8 reader samples), not stored "
                       "metrics: (i) the premise fails for both readers: on 2-hop questions whose second fact is "
                       "memorised, the gold bridge search and passage alone lower the base reader's gold mass below "
                       "its closed-book mass (0.10-0.38 vs 0.50-0.74) and leave the tuned reader's at 0.01-0.25 "
                       "(0.95-0.99 with both passages), so neither reader turns a bridge into partial credit, the "
                       "mechanism the paper's project page describes; among trajectories without the answer passage "
                       "the tuned reader's bridge AUROC is 0.28-0.62. (ii) The label counts trajectories that skipped "
                       "the bridge search (bridge known closed-book) and retrieved the answer passage as not useful, "
                       "although Delta IG rightly credits them (tuned reader mean 0.53-1.0). (iii) The exploratory "
                       "answer-passage AUROC is close to true by construction: the tuned reader copies the answer "
                       "from its passage (gold-passage EM 1.0) and has lost most closed-book knowledge.)"),
            paper_value="qualitative: IG gives dense credit to informative retrieval steps",
            no_control=("a rank statistic against its chance level 0.5; the AUROC of the answer-in-retrieved-text "
                        "indicator is reported beside it (credit/auroc_alias)"),
            check=C.threshold("credit/auroc_dig", at_least=0.75, frac=0.8, label="AUROC of Delta IG").gated(
                *_READER_GATES)),
    ),
)
