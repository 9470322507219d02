"""Trading Complexity for Expressivity Through Structured Generalized Linear Token Mixing
(Fagnou, Caillon, Delattre, Allauzen; ICML 2026; arXiv:2605.31367).

One equation, Y = (I - B)^{-1} A X, describes causal linear token mixers: the lower-triangular
A carries the direct influence of the inputs on each output, the strictly lower-triangular B
the recurrent propagation through earlier outputs. Attention is B = 0; an SSM or gated linear
RNN is a diagonal A with B on the first sub-diagonal. Letting a state read several earlier
states (B[t, t - f(k)] != 0) gives recurrences between the two, whose index pattern fixes the
time (nnz(B)) and the decoding cache.

Here: the unified solve and its step-by-step reference, index patterns (first-order,
translation-invariant 2^k and k^2+1 offsets, Fenwick-anchored O(log n) cache, block-anchored
O(sqrt n) cache, dense), a multi-head matrix-state mixer built on them, and a reproduction on
multi-query associative recall with cache and time measurements.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"d_model": 64, "n_layers": 2, "n_heads": 2, "gate_bias": 3.0, "conv_kernel": 3, "normalize_qk": True,
           "batch": 32, "warmup": 20,
           "lm_vocab": 32, "lm_lr": 3e-3}
_MIXERS = ["first-order", "dyadic", "quadratic", "fenwick", "attention"]
#: recall task and per-mixer learning rates, chosen on dev seeds 100-105 (never the profile's seeds) before the
#: full run: 6 pairs over 12 keys / 12 values at length 32 keeps the first-order control below the ceiling
#: while attention reaches >= 90%; each recurrence gets the rate in {1e-3, 3e-3, 1e-2} with the best mean
#: accuracy on dev seeds 100-101 at 300 steps; attention, the gate, keeps 3e-3 (1e-3 and 1e-2 stayed at 17-32%);
#: 300 steps left attention at 32% / 76% / 80% on dev seeds 102-104, so the full profile trains 400 steps
_RECALL = {"seq_len": 32, "n_pairs": 6, "n_keys": 12, "n_values": 12, "lr": 3e-3,
           "lr_by_mixer": {"first-order": 1e-3, "dyadic": 3e-3, "quadratic": 1e-3, "fenwick": 1e-3}}
_LM_MIXERS = ["first-order", "dyadic", "attention"]


def _beats_first_order(pattern: str) -> C.Check:
    return C.beats(f"acc_{pattern}", "acc_first-order", better="higher", margin=0.05, test="t",
                   label=f"MQAR accuracy, {pattern}", control_label="first-order")


_BINDING = C.gate("acc_attention", at_least=0.9,
                  why="attention, trained the same way, reaches >= 90% MQAR accuracy (the task is learned as "
                      "key-value binding, not a bag of values)")

PAPER = Paper(
    slug="token-mixers",
    title="Trading Complexity for Expressivity Through Structured Generalized Linear Token Mixing",
    source="arXiv:2605.31367",
    cluster="llm",
    feasibility="A",
    substitution=(
        "Kept: the unified equation Y = (I - B)^{-1} A X computed as one triangular solve; attention "
        "(B = 0, softmax A) and first-order recurrences as special cases; multi-state recurrences "
        "B[t, p_k(t)] = lambda_{t,k} with the paper's translation-invariant offsets f(k) = 2^k and k^2 + 1 (time "
        "O(n log n), O(n sqrt n)); synthetic associative recall and language modelling comparing first-order and "
        "multi-state recurrences with attention. Replaced: the paper's layer parametrisation (not available) by a "
        "multi-head matrix-state mixer, lambda_{t,k} = sigmoid(g_t) softmax_k(h_{t,k}), with L2-normalised queries "
        "and keys, inside a 2-layer d = 64 pre-LN transformer; every mixer (attention included) sits behind a "
        "depthwise causal convolution of kernel 3, the short convolution of Mamba / H3 / GLA / Based layers; the "
        "paper's O(log n) / O(sqrt n)-cache structured patterns (not "
        "available; its translation-invariant offsets keep O(n) states live) by our anchored instantiations "
        "(Fenwick binary prefixes; ends of blocks of length 1, 2, 3, ...); the paper's synthetic suite by "
        "multi-query associative recall (MQAR in the Zoology form: keys and values from disjoint vocabularies, "
        "queries after the context; 6 pairs, 12 keys, 12 values, length 32) and its language modelling "
        "by a generated language (a sparse Markov chain over 32 tokens with verbatim repeats of earlier spans); CPU "
        "training, 400 recall steps at batch 32 with a learning rate per mixer chosen on dev seeds (first-order, k^2+1 "
        "and Fenwick 1e-3, 2^k offsets and attention 3e-3). The full profile does not train the language model "
        "(lm_mixers = [], budget; --set lm_mixers brings it back), so that claim is not decided there. "
        "The recall comparison is decided only if attention learns "
        "the task (>= 90% in every seed). Recipe history: without the short convolution and the q/k "
        "normalisation, 300 steps left every mixer, attention included, at 40-43% (a bag of values: an in-context "
        "value 99.5% of the time); the convolution and the normalisation were chosen on dev seeds 100-101 and "
        "apply to every mixer, so the comparison stays at equal width and training. First full run (4 pairs, 8 keys, "
        "8 values, 400 steps, lr 3e-3 for all): attention 100% in every seed; 2^k, k^2+1 and Fenwick 97-100%; "
        "first-order 93 / 42 / 97 / 99% (paired t p = 0.22, not reproduced), two seeds at the ceiling, so the test "
        "had no room; it cost 433 s CPU in jobs (slowest 110 s), over the 300 / 75 s budget. Second regime, "
        "registered before its full run on dev seeds 100-105 only: 6 pairs over 12 keys / 12 values; learning rates "
        "from {1e-3, 3e-3, 1e-2} by the best mean accuracy on dev seeds 100-101 at 300 steps (first-order 36 / 33 / "
        "30%, 2^k 73 / 86 / 26%, k^2+1 67 / 58 / 28%, Fenwick 67 / 66 / 47%); attention kept 3e-3 (1e-3 and 1e-2 "
        "stayed at 17-32%) but at 300 steps reached only 32 / 76 / 80% on dev seeds 102-104, so 400 steps "
        "(attention 100% on dev seeds 100-104); at 400 steps first-order reached 57 / 97 / 99 / 50% on dev seeds "
        "100, 101, 103, 104, so the control is below the ceiling on average but still bistable (7 pairs did not "
        "help: 83 / 97%). The short convolution feeds every mixer the same 2-token input window and leaves B (the "
        "recurrence pattern) unchanged, so first-order stays first-order, but it removes the key-to-value shift "
        "from the recurrence's work, which helps make the task easy. Second full run (this regime, 4 seeds, "
        "273.6 s CPU in jobs, slowest seed 72.4 s, within the 300 / 75 s budget): attention 100% in every seed (gate "
        "met 4/4); first-order 78 / 32 / 90 / 100%; Fenwick 100% in all four seeds, k^2+1 100 / 82 / 100 / 93%, 2^k "
        "offsets 99 / 95 / 93 / 33% (stalled in the seed where first-order reached 100%). Mean paired gains over "
        "first-order: Fenwick +25 points (one-sided t p = 0.14), k^2+1 +19 (p = 0.17), 2^k +4.9 (below the 5-point "
        "margin), so the pre-registered rule (each pattern > 5 points with p < 0.05) says not reproduced: every "
        "multi-state pattern has the higher mean, but first-order is bistable (one seed at 32%, one at 100%) and four "
        "seeds cannot separate the gains from that spread; not shown rather than refuted. Changed by review after "
        "the full run (not-reproduced -> not-checkable; rule and rows unchanged): with this run's first-order "
        "accuracies a pattern at 100% in every seed gives the same p = 0.14 as Fenwick did, so the test had no room "
        "to show the claim whatever the patterns did (power at the observed gains about 0.2-0.3; a gain of about 55 "
        "points would be needed for 80% power with four seeds at this spread, more than the control's mean room of "
        "25 points)."),
    examples="icml26.llm.token_mixers.examples:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, **_RECALL, "n_test": 128, "steps": 20,
            "mixers": _MIXERS, "lm_mixers": _LM_MIXERS, "lm_len": 32, "lm_steps": 20,
            "cache_ns": [64, 128, 256, 512]}),
        # the full profile leaves the language model out (lm_mixers = []) to stay within its CPU budget;
        # --set lm_mixers=... (e.g. first-order, dyadic, attention; lm_len 48, lm_steps 100) brings it back
        "full": Profile("full", seeds=4, timeout_s=1800, params={
            **_COMMON, **_RECALL, "n_test": 256, "steps": 400,
            "mixers": _MIXERS, "lm_mixers": [], "lm_len": 48, "lm_steps": 100,
            "cache_ns": [64, 128, 256, 512, 1024]}),
    },
    claims=(
        Claim(id="unifies", kind="identity",
              statement=("The unified equation Y = (I - B)^{-1} A X covers causal attention (B = 0) and "
                         "recurrences, including multi-state ones, exactly."),
              paper_value="framework encompasses attention, SSMs, linear RNNs and higher-order recurrences (theory)"),
        Claim(id="multistate-recall", kind="headline",
              statement=("Letting each state depend on several past states (the paper's 2^k and k^2+1 offsets, and "
                         "our O(log n)-cache Fenwick pattern) improves associative recall over a first-order "
                         "recurrence by >= 5 points. (Changed by review after the full run: not-reproduced -> "
                         "not-checkable, the test had no room: a pattern at 100% in every seed would fail the "
                         "pre-registered rule too, p = 0.14.)"),
              paper_value="multi-state patterns more expressive than first-order (synthetic tasks; numbers not read)",
              control="a first-order recurrence (gated linear attention / SSM layer) of the same layer, width and training"),
        Claim(id="cache-complexity", kind="identity",
              statement=("Counted over index patterns: O(n log n) / O(n sqrt n) time (nnz(B)) for the 2^k / k^2+1 "
                         "offsets; decoding caches of O(1) for first-order, O(log n) and O(sqrt n) for our anchored "
                         "patterns (Fenwick prefixes, growing blocks), O(n) for attention; trained layers decode "
                         "within those caches. (By construction of the patterns: whether the paper's own "
                         "construction reaches O(log n) / O(sqrt n) caches is not tested. Kind revised by review "
                         "after the first full run, where it was a headline claim judged 'partly': headline -> "
                         "identity.)"),
              paper_value="O(n log n) time with O(log n) cache; O(n sqrt n) with O(sqrt n) cache (proofs)"),
        Claim(id="language-modelling", kind="headline",
              statement=("On language modelling, a multi-state recurrence (the paper's 2^k offsets) reaches a lower "
                         "held-out loss than a first-order recurrence at equal width (parameters within 2%)."),
              paper_value="empirical validation on language modelling (numbers not read)",
              control="a first-order recurrence of the same layer, width and training"),
    ),
    summary="Unified A/B token-mixing solve, multi-state recurrences, MQAR, a tiny language model and cache scaling.",
)

_EXPORTS = {name: ".method" for name in (
    "PATTERNS", "parents", "parent_table", "recurrence_nnz", "live_states", "unified_mix", "recurrent_scan",
    "build_B", "softmax_attention_unified", "masked_state_readout", "state_recurrence_reference",
    "MultiStateMixer", "ShortConv", "mixer_factory")}
_EXPORTS.update({name: ".setting" for name in ("mqar_batch", "copy_language", "lm_batch")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
