"""Unraveling Syntax: Language Modeling and the Substructure of Grammars
(Schulz, Mitropolsky, Poggio; ICML 2026; arXiv:2510.02524).

The paper studies how next-token language models learn probabilistic context-free grammars
through their subgrammars (a nonterminal with everything derivable from it). It proves that
the KL divergence of a model to the grammar's distribution splits linearly over the top-level
subgrammars, reports that small transformers lower the loss of all subgrammars in parallel
(unlike children, who master simple parts first), and that pretraining on a subgrammar helps
only models that are tiny relative to the grammar.

Here: a PCFG with sampling and exact string probabilities (inside algorithm), subgrammar
extraction, the per-sentence decomposition of log P - log Q into overhead and span terms,
and a reproduction on the authors' decomposition grammar with tiny decoder-only models.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_E = "icml26.llm.cfg_subgrammars.experiment"

PAPER = Paper(
    slug="cfg-subgrammars",
    title="Unraveling Syntax: Language Modeling and the Substructure of Grammars",
    source="arXiv:2510.02524",
    cluster="llm",
    feasibility="A",
    substitution=(
        "Kept: the authors' KL-decomposition grammar (L1 -> sA A eA over an ambiguous arithmetic "
        "subgrammar, a^n c b^n and x^n, with their rule probabilities), GPT-style pre-LN decoders of the "
        "paper's sizes (about 1k-30k parameters), AdamW with weight decay 0.1 and gradient clipping, "
        "per-subgrammar KL curves, pretraining on the marked arithmetic subgrammar then training on the "
        "full grammar, a model-size sweep, a linear-CKA alignment analysis of subgrammar spans. Changed: "
        "exact KL (E[log P - log Q], string probabilities by "
        "the inside algorithm) instead of the code's mean |log P - log Q| with Viterbi parses; one "
        "sentence per row instead of windows of a concatenated stream; a few hundred steps at lr 3e-3 "
        "(batch 32) instead of epochs at 6e-4; equal total steps for pretrained and scratch models "
        "(30% pretraining); alignment is measured on the same scratch / pretrained models for an L2_1 span that "
        "is the non-initial operand inside a larger arithmetic expression (context = start marker plus the "
        "expression to its left) versus the same span after the start marker alone, on the attention and MLP "
        "outputs of every block (the authors compare such CKA across models on whole test sets). Not reproduced: the deeper-"
        "recursion experiment."),
    run=f"{_E}:run",
    figure=f"{_E}:figure",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            "n_eval": 150, "max_len": 40, "n_align": 150, "curve_model": [16, 1, 1], "eval_steps": [5, 10, 20, 30, 40, 60], "batch": 32,
            "steps": 60, "lr": 3e-3, "warmup": 10, "pretrain_frac": 0.3,
            "sizes": {"tiny": [8, 1, 1], "large": [32, 2, 2]}}),
        "full": Profile("full", seeds=4, timeout_s=900, params={
            "n_eval": 400, "max_len": 40, "n_align": 300, "curve_model": [32, 2, 2],
            "eval_steps": [5, 10, 15, 20, 30, 40, 60, 80, 120, 160, 240, 320, 400, 500, 600], "batch": 32,
            "steps": 600, "lr": 3e-3, "warmup": 20, "pretrain_frac": 0.3,
            "sizes": {"tiny": [8, 1, 1], "small": [16, 1, 2], "large": [32, 2, 2]}}),
    },
    claims=(
        Claim(id="loss-decomposition",
              statement=("The KL of a language model to a PCFG recurses linearly over its top-level "
                         "subgrammars: KL = KL_overhead + sum_A E[N_A] KL_A."),
              paper_value="theorem (exact identity); illustrated on KL_decomposition_example1",
              check=f"{_E}:check_decomposition", contradict=f"{_E}:contradict_decomposition"),
        Claim(id="parallel-learning",
              statement=("Small transformers reduce the loss of all subgrammars in parallel rather than "
                         "mastering simple subgrammars first."),
              paper_value="all subgrammar KL curves fall together from the start of training (figures; no number)",
              check=f"{_E}:check_parallel", contradict=f"{_E}:contradict_parallel"),
        Claim(id="pretraining-tiny-only",
              statement=("Subgrammar pretraining improves the final loss only for models that are tiny "
                         "relative to the grammar."),
              paper_value="lower final KL with pretraining for the smallest models only (no number read)",
              check=f"{_E}:check_pretraining", contradict=f"{_E}:contradict_pretraining"),
        Claim(id="pretraining-alignment",
              statement=("Subgrammar pretraining leads to internal representations that better reflect the "
                         "grammar's substructure: a subgrammar span is represented more alike in context and "
                         "in isolation (linear CKA) by pretrained than by scratch models, at every size."),
              paper_value="pretrained models more aligned with the subgrammar structure in all cases (CKA/cosine; no number read)",
              check=f"{_E}:check_alignment", contradict=f"{_E}:contradict_alignment"),
    ),
    summary="PCFG inside probabilities, subgrammar KL decomposition, per-subgrammar learning curves, pretraining sweep.",
)

__getattr__ = lazy_exports(__name__, {name: ".method" for name in (
    "PCFG", "KL_EXAMPLE", "marked_spans", "decompose_sentence", "linear_cka")})

__all__ = ["PAPER", "PCFG", "KL_EXAMPLE", "marked_spans", "decompose_sentence", "linear_cka"]
