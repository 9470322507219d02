"""TokSuite: Measuring the Impact of Tokenizer Choice on Language Model Behavior (arXiv:2512.20757).

TokSuite trains fourteen 1B LMs that share architecture, data, token budget and initialisation
(a superset model over the union "super vocabulary" whose embedding rows every member copies)
and differ only in the tokenizer, and poses a parallel multilingual multiple-choice benchmark
under realistic perturbations (input medium, diacritics, orthography, morphology, noise, LaTeX,
STEM, Unicode styling), scored as the relative accuracy drop (clean - perturbed) / clean. This
package rebuilds that design at toy scale: eight tiny LMs, tokenizers fitted with Hugging Face
``tokenizers``, a generated CLDR fact benchmark in the same five languages.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_GATE = C.gate("clean_acc_min", at_least=0.6, why="clean accuracy >= 0.6 for every model (relative drops interpretable)")
_COMMON = {"vocab_small": 300, "vocab_mid": 400, "vocab_large": 800, "d_model": 64, "n_layers": 2, "max_len": 256,
           "lr": 1e-2, "noise_rate": 0.1, "n_boot": 500}

PAPER = Paper(
    slug="toksuite",
    title="TokSuite: Measuring the Impact of Tokenizer Choice on Language Model Behavior",
    source="arXiv:2512.20757",
    cluster="llm",
    feasibility="B",
    examples="icml26.llm.toksuite.method:EXAMPLES",
    substitution=(
        "Keeps: the one-factor design (identical TinyLMs -- 2 layers, d = 64, same optimiser, steps, batch and window "
        "-- that differ only in the tokenizer); the super vocabulary keyed by each token's UTF-8 bytes, a superset LM "
        "over it trained for 600 steps (same batch and window) on every member's tokenization, one tokenization per "
        "row (phase 1), and each member warm-started from it with "
        "its embedding/output rows sliced through its map (phase 2); an equal token budget (steps x batch x window "
        "slots, the paper's convention; tokens, bytes and epochs seen are reported); a parallel multiple-choice "
        "benchmark in en/it/tr/fa/zh whose questions are perturbed while the options stay canonical; the relative "
        "drop (clean - perturbed) / clean per category on the same items, a per-item paired bootstrap interval and a "
        "per-item paired Wilcoxon test. Replaces: 14 x 1B models on 100B tokens by 8 tiny LMs trained for seconds; "
        "the off-the-shelf tokenizers by tokenizers fitted on our corpus with `tokenizers` -- raw bytes (ByT5-like), "
        "characters, byte-level BPE at three sizes, Unigram with and without NFKC, WordPiece; the full profile's "
        "corpus holds 112 sentences, ~4.7 kB, so the issue's 1k/4k/8k sizes would saturate and are scaled to "
        "300/400/800 (the 'mid' size 400 is shared by BPE-M, both Unigrams -- whose trainer stops at ~350 -- and "
        "WordPiece); the human-written benchmark by generated facts (currency and "
        "official language of the first n territories with distinct ones in CLDR, names from `babel`, shipped in "
        "facts.json.gz), one template per language, four options; categories input (Farsi/Chinese romanised with "
        "`unidecode`), diacritics (it/tr), noise (typos, OCR confusions, `homoglyphs` confusables, spacing; rate "
        "0.1 per character, >= 1 edit in the entity), unicode (Mathematical Bold, en/it/tr) and stem (English power "
        "facts with superscripts, perturbed with full-width digits); orthographic, morphological and LaTeX "
        "categories are not generated. Options are scored by log-likelihood given the question divided by the "
        "option's UTF-8 length. TokenMonster, tiktoken and the other pretrained vocabularies are not used "
        "(they download at run time). Review notes on the first full runs (40-step phase 1): the clean-accuracy gate "
        "covers the fact items only; on the 32 STEM items chars, BPE-M and bytes were near chance even when clean "
        "(0.25-0.63), so their STEM drops of ~0 reflected facts never learned, not robustness (with the 600-step "
        "phase 1 every non-normalising member reaches 0.75-1.00 on them, the NFKC member its cap of 0.5), and "
        "STEM enters every mean drop (sensitivity "
        "without STEM is printed in the design-over-size and effect-over-noise evidence); many perturbed "
        "accuracies sit at chance (0.25), where the relative drop is 1 - 0.25 / clean and so favours models with "
        "lower clean accuracy (chance-corrected drops are printed in the unicode-top and bytes-resist-noise "
        "evidence). Why verdicts flipped between machines, and the recipe change (issue 21, committed before the "
        "third full run): (i) the Unigram and WordPiece trainers of `tokenizers` are not reproducible across "
        "processes (Rust hash-map order; the same corpus gives other Unigram ids/scores and another WordPiece "
        "vocabulary), so a fresh machine refitted other tokenizers, hence another super vocabulary, superset and "
        "members; given one fit a seed is deterministic across processes (seed 0 rerun in a new process with the "
        "stored run's fit: 0 of 232 metrics differ). The fit is now shipped in fits.json.gz (the stored run's "
        "fit for both profile corpora) and read on every machine. (ii) The gate sat at its edge because phase 1 "
        "was 40 steps: the superset ended near a unigram model (loss 6.7 -> 4.6-4.9), so members started almost "
        "from scratch and the byte, char and BPE-S members -- which read 1-1.4 bytes per token and so see "
        "the fewest facts at the equal token budget -- ended at 0.41-0.66 clean accuracy (dev seeds 100-102: "
        "lowest 0.43, 0.41, 0.44). Recipe change, chosen on dev seeds 100-102 only (profile seeds not looked at): "
        "phase 1 lengthened from 40 to 600 steps for the one shared superset, so the superset ends at loss ~0.9 and "
        "every member starts from a model that already reads the corpus; phase 3 is unchanged (each member 220 steps "
        "x 16 x 96 tokens, same optimiser: the one-factor design and equal token budget are kept; phase 1 draws each "
        "row from one of the eight tokenizations at random, so it too is shared equally); the gate is unchanged (>= "
        "0.6). Lowest clean accuracy on dev seeds 100/101/102: 40 steps 0.43/0.41/0.44, 300 steps 0.75/0.79/0.83, 600"
        " steps 0.91/0.84/0.91 (dev CPU per seed ~87 s under load). Trade-off: the members now share more of what "
        "they know through the superset (phase 1 is 600 x 16 x 96 tokens spread over 8 tokenizations, ~75 steps each,"
        " against 220 own steps), which may narrow differences between them. Full-run outcome (third full run, "
        "2026-12-06; this sentence added after it, text only): the gate is met in 3/3 seeds (lowest clean accuracy "
        "0.95, 0.93, 0.98, against 0.59, 0.61, 0.66 in the second run with the 40-step phase 1, whose seed 0 failed "
        "it, while the first run, on another machine with another Unigram/WordPiece fit, had met it); 239.8 s CPU in "
        "jobs, slowest job 83.2 s. Verdicts not-checkable -> decided: design-over-size not-reproduced (algorithm "
        "spread 0.114 vs size spread 0.147, difference -0.033 [-0.065, -0.016]), effect-over-noise reproduced (spread"
        " 0.321 vs 2 x seed std 0.122; without the NFKC member 0.147 vs 0.122), unicode-top not-reproduced (top in "
        "1/3 seeds; mean drop input 0.75, unicode 0.74), bytes-resist-noise reproduced (Noise drop 0.335 vs BPE-L "
        "0.708, lower in 3/3 seeds, per-item Wilcoxon p < 1e-5 in each) -- the verdicts the first run gave; "
        "normalisers-lose-stem stays not-checkable by construction (its check would now say partly)."),
    profiles={
        "quick": Profile("quick", seeds=2, params={**_COMMON, "n_territories": 4, "window": 64, "batch": 8,
                                                   "steps": 20, "superset_steps": 6, "n_boot": 100},
                         timeout_s=300),
        "full": Profile("full", seeds=3, params={**_COMMON, "n_territories": 8, "window": 96, "batch": 16,
                                                 "steps": 220, "superset_steps": 600}, timeout_s=1800),
    },
    claims=(
        Claim(
            id="design-over-size", kind="headline",
            statement=("Tokenizer design matters more than vocabulary size: the spread of the mean relative drop "
                       "across algorithms at one size (BPE-M, Unigram, WordPiece) exceeds the spread across BPE "
                       "vocabulary sizes (S, M, L)."),
            paper_value=("qualitative: TokenMonster (32k, English-only) most robust, avg drop 0.17, ahead of 100k-256k "
                         "vocabularies (XGLM, Gemma-2); 'design matters more than vocabulary size'"),
            control="the spread across BPE vocabulary sizes S/M/L (the same algorithm, only the size varies)"),
        Claim(
            id="effect-over-noise", kind="headline",
            statement=("The tokenizer effect exceeds seed noise: the spread of the seed-mean mean relative drop across "
                       "the eight tokenizers is more than twice the largest per-tokenizer across-seed std."),
            paper_value="qualitative: behaviour differences attributable to the tokenizer (one model per tokenizer)",
            control="seed noise: 2 x the largest across-seed std of one tokenizer (a suite where the tokenizer does "
                    "not matter has spread ~ 0)"),
        Claim(
            id="unicode-top", kind="headline",
            statement=("Unicode styling hurts non-normalising models most: it is the category with the largest "
                       "relative drop, averaged over the seven non-normalising models, in >= 2/3 of the seeds."),
            paper_value="qualitative: Unicode styling broke almost all models the most (TokenMonster row: Unic. 0.21)",
            control="the NFKC-normalising Unigram, whose normaliser folds the styling away"),
        Claim(
            id="nfkc-folds-styling", kind="identity",
            statement=("NFKC folds Mathematical Bold letters and full-width digits back to plain text: the NFKC "
                       "Unigram's token ids of every styled question equal those of the clean one, so its unicode "
                       "relative drop is exactly 0."),
            paper_value="by construction of NFKC (the mechanism behind normalising tokenizers' Unicode robustness)",
            check=C.all_of(C.threshold("nfkc_folds/unicode", at_least=1.0, label="fraction of styled questions folded"),
                           C.threshold("nfkc_folds/stem", at_least=1.0, label="fraction of full-width questions folded"),
                           C.close("drop/unigram_nfkc/unicode", to=0.0, tol=1e-9, label="NFKC unicode drop"),
                           partly="none")),
        Claim(
            id="normalisers-lose-stem", kind="headline",
            statement=("Normalising tokenizers lose on STEM notation: the NFKC Unigram is worse than the same Unigram "
                       "without NFKC (a) in accuracy on questions written with superscripts (NFKC turns '2³' into "
                       "'23') and (b) in relative drop when digits are written full-width."),
            paper_value="qualitative: LaTeX/STEM formatting caused large drops, especially for normalising tokenizers",
            control="the same Unigram (same size, same corpus) without the NFKC normaliser",
            uncheckable=("decided by construction in our setting (review after the full run; the pre-registered "
                         "rule is kept and its outcome shown): part (b) cannot pass -- full-width digits are a "
                         "perturbation NFKC undoes, so the NFKC drop is exactly 0 (the identity nfkc-folds-styling) "
                         "and the plain Unigram cannot be lower; part (a) is clean accuracy on items built so that "
                         "NFKC turns each superscript question ('2³ equals') into its digit-string twin "
                         "('23 equals'), whose answer is among the options, which caps the NFKC model at 0.5 by "
                         "construction -- it tests whether the control learned the 32 STEM facts, not the paper's relative drop under a "
                         "STEM/LaTeX perturbation. Deciding the paper's claim needs a perturbation that NFKC "
                         "destroys (e.g. clean '2^3' perturbed to '2³')"),
            check=C.all_of(
                C.beats_in_seeds("stem_acc/unigram_nfkc", "stem_acc/unigram", margin=0.05, frac=0.66, better="lower",
                                 label="NFKC Unigram STEM accuracy (superscripts)",
                                 control_label="plain Unigram STEM accuracy"),
                C.beats_in_seeds("drop/unigram/stem", "drop/unigram_nfkc/stem", margin=0.05, frac=0.66,
                                 better="lower", label="plain Unigram full-width drop",
                                 control_label="NFKC Unigram full-width drop"),
                partly="any").gated(_GATE)),
        Claim(
            id="bytes-resist-noise", kind="headline",
            statement=("The byte-level model's relative drop on Noise is below the large byte-level BPE model's. "
                       "(Review probe after the first full run, on its 40-step phase-1 rows, an ad-hoc script "
                       "whose numbers are not stored: at the "
                       "equal token budget the byte model sees 0.34 MB of text to BPE-L's 1.68 MB; retrained for "
                       "1100 steps instead of 220, so that it sees BPE-L's bytes, from the same superset and seeds, "
                       "its clean accuracy rises to 1.00/0.98/0.98 and its Noise drop falls to 0.48/0.26/0.29 "
                       "against BPE-L's then-stored 0.67/0.72/0.59 -- the equal-token budget works against the "
                       "byte model, not for it; its 220-step rerun matched the then-stored seed-0 row exactly. BPE-L "
                       "cut to "
                       "the byte model's bytes, 44 steps, stays at chance, so that direction is uninformative.)"),
            paper_value="qualitative: ByT5 very robust to noise and typos (but least efficient)",
            control="byte-level BPE at the large size (BPE-L), same corpus and budget",
            # the pre-registered count rule lives in experiment.check_util_bytes_noise (unchanged: bytes' Noise drop
            # below BPE-L's by >= 0.01 in >= 2/3 seeds, gated on clean accuracy); check_bytes_resist_noise adds
            # the byte model's place in the whole suite as context
            check=None),
        Claim(
            id="efficiency-order", kind="identity",
            statement="Bytes per token: raw bytes = 1 < BPE-S < BPE-M < BPE-L (more merges compress more).",
            paper_value="ByT5 least efficient (by construction of byte-level tokenization and BPE merges)",
            check=C.threshold("efficiency_order", at_least=1.0, label="bytes = 1 < BPE-S < BPE-M < BPE-L")),
        Claim(
            id="tokenmonster-most-robust", kind="headline",
            statement="TokenMonster (32k, English-only, 'ungreedy') is the most robust tokenizer on average.",
            paper_value="avg relative drop 0.17 (Input 0.23, Diacr 0.33, Orth 0.08, Morph 0.01, Noise -0.07, "
                        "LaTeX 0.10, STEM 0.18, Unic 0.21)",
            reference=0.17,
            no_control="needs TokenMonster's pretrained vocabulary; the most robust member of our suite is shown",
            uncheckable="TokenMonster and tiktoken vocabularies download at run time and the 1B models are not "
                        "available here"),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "SUITE", "train_suite", "train_byte_level", "bytes_per_token", "token_key", "super_vocabulary",
    "init_from_superset", "sequence_logprobs", "score_choices", "relative_drop", "bootstrap_drop")}
_EXPORTS.update({name: ".setting" for name in (
    "LANGS", "CATEGORIES", "Item", "build_facts", "load_facts", "facts", "corpus", "build_items", "perturb",
    "strip_diacritics", "math_bold", "fullwidth_digits", "noise")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
