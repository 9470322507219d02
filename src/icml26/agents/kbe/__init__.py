"""KBE: Dynamic Multimodal Evaluation via Knowledge-Enhanced Benchmark Evolution (arXiv:2510.21182).

KBE writes a knowledge-VQA sample as a graph (visual triplets from the image plus knowledge
triplets; the question is a path ending at the answer) and evolves a static benchmark by
Re-selection (other visual evidence in the same image) and Expansion (more knowledge hops),
with the exploration degree as a difficulty knob. Here the images are exact scene graphs, the
knowledge is the invented KB of ``icml26.tasks``, questions are verbalised from templates (or
by an LLM through an OpenAI-compatible endpoint), and the evaluated "MLLMs" are tiny decoders
trained here (a capability ladder and a contaminated twin) plus a BM25 + MiniLM retrieval reader.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_WORLD = {"n_people": 16, "n_cities": 6, "n_countries": 6, "n_companies": 6, "max_objects": 4}

_GATE_CLEAN = C.gate("gate/clean_margin", at_least=0.30, why="every clean ladder model >= chance + 30 pts on 1-hop probes")
_GATE_TWIN = C.gate("gate/twin_memorised", at_least=0.90, why="the contaminated twin memorised the static test pairs (>= 90%)")

PAPER = Paper(
    slug="kbe",
    title="Dynamic Multimodal Evaluation via Knowledge-Enhanced Benchmark Evolution (KBE-DME)",
    source="arXiv:2510.21182",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.kbe.experiment:EXAMPLES",
    substitution=(
        "Keeps: the graph formulation of a VQA sample (visual triplets colour/shape/shows/left_of plus knowledge "
        "triplets, question = path from visual evidence to the answer, built with networkx), the two evolution "
        "operators (visual Re-selection of another object, optionally through a spatial relation; knowledge "
        "Expansion by extra hops after the answer), the exploration degree (extra visual triplets + extra hops) as "
        "the difficulty knob, answer-uniqueness validation, and the contamination / saturation / difficulty "
        "analyses. Replaces: OK-VQA/A-OKVQA images by scenes given as exact scene-graph tokens (3-4 objects that "
        "show KB entities), Wikidata-style knowledge by the invented KB of icml26.tasks, LLM verbalisation by two "
        "templates (an LLMVerbaliser uses any OpenAI-compatible endpoint instead), and MLLMs by models trained "
        "here: a ladder of tiny decoders (third pass: one width, 2 step budgets: a base run and its clean fork, "
        "i.e. the base trained further), a contaminated twin (a second fork of the same base, also trained on the "
        "static test triples; compared with the clean fork, which differs from it only by those rows), and a retrieval "
        "reader (exact perception, BM25 via rank_bm25 + MiniLM cosine per hop). The true ranking is accuracy on "
        "fresh, never-published questions of every kind on fresh scenes. Reconstructed (the paper's method section "
        "was not retrievable): degree schedule, validation rules, templates, evaluation sizes. "
        "Ours, not the paper's: an answer-balance rule in benchmark building (param balance=0.5: while a degree's "
        "questions are built, an answer already holding half of them is avoided, so Expansion must reach another "
        "answer or the item is dropped at that degree); the sweep evolved without it is reported beside "
        "(diff/*_unbalanced, valid/coverage_unbalanced) and decides nothing. "
        "History: the first full run (batch 32, 450/900 steps, no balance rule) failed the pre-registered training "
        "gate in all 5 seeds (weakest clean rung at chance + 0.11 to 0.29 on 1-hop probes, needs 0.30), so the "
        "three comparative claims were not-checkable; at degree 3 the most frequent answer then covered 33-76% of "
        "questions (Expansion funnels chains into hub entities of the small KB). Second pass (registered before "
        "its full run; checks and gates unchanged): training recipe retuned on dev seed 100 (not a full-profile "
        "seed): batch 64 instead of 32, 375/750 steps instead of 450/900, all-padding columns trimmed per batch, one thread per job, plus the "
        "balance rule above. Second full run (measured after it; no check or gate changed): the gate passed in 1/5 "
        "seeds only (weakest clean rung at chance + 0.16 to 0.32; the weakest is now often the d64 snapshot), so the "
        "three comparative claims stay not-checkable; what the checks would say: contamination reproduced (gap "
        "shrink 0.37-0.67 under KBE vs 0.00-0.17 under paraphrase), saturation not-reproduced (mean tau 0.35 KBE vs "
        "0.52 static), difficulty not-reproduced (worst per-model Spearman 0.0-0.8; the ladder's mean accuracy falls "
        "from degree 0 to 2 but not to 3; the retrieval reader falls 0.85-0.97 -> 0.02-0.15). Balance rule: degree-3 "
        "modal answer share 0.32-0.54 (0.34-0.86 unbalanced) at degree-3 coverage 0.16-0.54. Cost: about 100 s CPU "
        "per seed with a cold cache (twice the first pass); the first attempt hit the 900 s per-seed timeout at load "
        "15-23 and was rerun from the disk cache (273 s wall, 5 jobs, load 2-7). "
        "Third pass (budget; registered before its full run; checks and gates unchanged): the second pass cost about "
        "125 s CPU per seed from a cold cache (over the 60 s per-seed budget), almost all of it training three "
        "750-step runs. Retuned on dev seeds 100 and 101 (not full-profile seeds): lr 2e-3 instead of 6e-3 and a "
        "quarter (not half) of each batch on KB fact probes (facts are still all memorised by step ~400); one width "
        "(d48) instead of two; the short rung is a 400-step base run (its own full cosine schedule) instead of a "
        "mid-run snapshot, the long rung is its clean fork (100 more steps from its weights), and the twin is a "
        "second fork of the same base with half of each batch on the static test triples (it was a separate "
        "750-step run with a quarter): its clean sibling now differs from it only by those rows. Training cost: 600 "
        "steps per seed instead of 2250; retrieval hops memoised (same answers). On the dev seeds the weakest rung "
        "(the base) was at chance + 0.23 and + 0.30, so the gate is expected to fail in some full-profile seeds; "
        "the gate is kept as registered. Third full run (measured after it; no check or gate changed): the clean "
        "gate passed in 2/5 seeds (weakest rung, always the base, at chance + 0.25 to 0.35) and the twin gate failed "
        "in seed 0 (memorised 0.88 < 0.90), so the three comparative claims stay not-checkable; what the checks "
        "would say: gap shrink 0.41-0.66 under KBE vs 0.05-0.17 under paraphrase; mean tau 0.50 KBE vs 0.33 static "
        "and 0.30 paraphrase, but with four models no pair is within 2 points on static, so the spread part is "
        "NaN in every seed (undecidable); worst per-model Spearman -0.8 to 0.8 (difficulty not reproduced for the "
        "tiny decoders; the retrieval reader falls 0.85-0.97 -> 0.02-0.15). Cost: seed 0 from a cold cache "
        "42.9 s CPU (user+sys, whole process, load 14); the 5-seed cold run took 704 s wall with 2 jobs at load "
        "14-18; on a quiet machine (load 1.5) the cold 5-seed run took 99 s wall and 161 s CPU in jobs. "
        "Fourth pass (2026-12-01, decided AFTER seeing the third full run's gate failures; registered before its "
        "full run; no check or gate changed): the quiet timing left room in the 3-minute budget, so the training "
        "is 1.5 times longer -- a 600-step base run and 150-step clean and contaminated forks (was 400 and 100), "
        "the length the third pass's dev seeds suggested the weakest rung needs; nothing else changed. Outcome "
        "(measured after the run): the clean gate is met in 4/5 seeds (weakest rung at chance + 0.43, 0.41, 0.28, "
        "0.46, 0.45; seed 2 misses by 0.02) and the twin gate in 5/5, so the comparative claims stay not-checkable. "
        "What the checks would say: contamination reproduced (gap shrink under KBE exceeds the paraphrase's by "
        "0.46 [0.41, 0.50]), saturation partly, difficulty not-reproduced (worst per-model Spearman <= -0.8 in 0/5 "
        "seeds). Cold full run on a quiet machine: 123 s wall, 206 s CPU in jobs (slowest seed 46 s)."),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            **_WORLD, "n_train_scenes": 40, "n_static": 16, "n_fresh": 16, "d_small": 16, "d_large": 0,
            "steps": 30, "fork_steps": 10, "batch": 32, "lr": 6e-3, "fact_frac": 0.25, "contam_frac": 0.25, "balance": 0.5, "reader": True, "minilm": False,
            "endpoint": "", "model": "", "endpoint_n": 16},
            timeout_s=120),
        "full": Profile("full", seeds=5, params={
            **_WORLD, "n_train_scenes": 300, "n_static": 80, "n_fresh": 120, "d_small": 48, "d_large": 0,
            "steps": 600, "fork_steps": 150, "batch": 64, "lr": 2e-3, "fact_frac": 0.25, "contam_frac": 0.5, "balance": 0.5, "reader": True, "minilm": True,
            "endpoint": "", "model": "", "endpoint_n": 40},
            timeout_s=900),
    },
    claims=(
        Claim(
            id="defeats-contamination",
            statement=("Evolving the benchmark defeats contamination: the accuracy gap between a model trained on "
                       "the static test pairs and its clean twin shrinks more on KBE's re-selected questions than on "
                       "paraphrases of the static questions (same answers)."),
            paper_value="qualitative: KBE alleviates the risk of data contamination (no number in the sources we found)",
            kind="headline", control="paraphrased static questions (same paths and answers, second wording)",
            check=C.beats("contam/shrink_kbe", "contam/shrink_para", better="higher", test="t", alpha=0.025,
                          label="gap shrink under KBE", control_label="gap shrink under paraphrase"
                          ).gated(_GATE_CLEAN, _GATE_TWIN)),
        Claim(
            id="mitigates-saturation",
            statement=("KBE mitigates saturation: its model ranking agrees better with the true ranking (Kendall tau) "
                       "than the static benchmark's and the paraphrase's, and models within 2 points on the static "
                       "benchmark differ by >= 5 points on KBE. (Review of the budget passes; no check changed: "
                       "the ranked set shrank from six models to four (base, clean fork, twin, reader), so Kendall "
                       "tau takes only a few values and the 'within 2 points on static' set is empty (spread NaN) "
                       "in 5/5 third-pass and 4/5 fourth-pass seeds; a NaN spread counts as a failed seed, so at "
                       "this ladder size the claim can be at most partly.)"),
            paper_value="qualitative: KBE alleviates data saturation and separates models (no number found)",
            kind="headline", control="the static benchmark and its paraphrase (same number of questions)",
            check=C.all_of(
                C.beats("rank/tau_kbe", "rank/tau_static", better="higher", label="tau KBE", control_label="tau static"),
                C.beats("rank/tau_kbe", "rank/tau_para", better="higher", label="tau KBE", control_label="tau paraphrase"),
                C.threshold("sat/spread_kbe", at_least=0.05, frac=0.8,
                            label="largest KBE gap among models tied (<= 2 pts) on static"),
            ).gated(_GATE_CLEAN)),
        Claim(
            id="controllable-difficulty",
            statement=("Difficulty is controllable by the exploration degree: every model's accuracy falls with the "
                       "degree (Spearman rho <= -0.8 between degree 0-3 and accuracy, for every model)."),
            paper_value="qualitative: difficulty-controllable evaluation by the degree of question exploration",
            kind="headline", no_control="a property of the generator's knob across models, not a comparison",
            check=C.threshold("diff/spearman_worst", at_most=-0.8, frac=0.8,
                              label="largest (worst) per-model Spearman(degree, accuracy)").gated(_GATE_CLEAN)),
        Claim(
            id="unique-answers",
            statement=("Every evolved question has exactly one answer: a brute-force walk of the sample graph "
                       "G_v ∪ G_k from the referring expression reaches exactly the question's answer."),
            paper_value="the paper validates evolved questions (criteria unspecified in the sources we found)",
            kind="identity", check=C.threshold("valid/unique_frac", at_least=1.0)),
        Claim(
            id="mllm-results",
            statement=("On evolved OK-VQA / A-OKVQA, real MLLMs lose accuracy relative to the static benchmarks and "
                       "are spread out by the exploration degree."),
            paper_value="per-model MLLM accuracies on the evolved benchmarks (tables of the paper)",
            kind="headline", no_control="needs real MLLMs and the original images",
            check=C.threshold("diff/ladder_static_minus_kbe", at_least=0.0,
                              label="what we can show: ladder accuracy static - KBE (mixed degrees)"),
            uncheckable=("needs the OK-VQA/A-OKVQA images and real MLLMs; the protocol runs with a real verbaliser/"
                         "evaluated model through --set endpoint=... but verdicts use the tiny models above")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "Reference", "QuestionPath", "sample_graph", "resolve", "follow", "validate", "static_question", "reselect",
    "expand", "exploration_degree", "evolve", "verbalise", "LLMVerbaliser")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
