"""Approximation Error Upper and Lower Bounds for Hölder Class with Transformers (arXiv:2605.07463).

Approximation theory: O(eps^{-d0/alpha}) standard Transformer blocks (softmax attention, ReLU
FFN, residuals) suffice to reach sup-error eps on bounded alpha-Hölder functions on [0,1]^{d0},
Omega(eps^{-d0/(4 alpha)}) are necessary, and least squares over such Transformers has a
corresponding excess-risk rate. We implement an explicit construction in that architecture
class with hand-set weights and check its error rate and bound, redo the exponent
bookkeeping in sympy, and measure the excess-risk slope of trained Transformers against a kNN
validity control; the lower bound, a worst case over the class, is not checkable by experiment.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_CONFIGS = ((1, 0.5), (1, 1.0), (2, 0.5), (2, 1.0))

PAPER = Paper(
    slug="transformer-holder",
    title="Approximation Error Upper and Lower Bounds for Hölder Class with Transformers",
    source="arXiv:2605.07463",
    cluster="llm",
    feasibility="C",
    examples="icml26.llm.transformer_holder.method:EXAMPLES",
    substitution=(
        "Keeps: the standard architecture (softmax multi-head attention, ReLU feed-forward, residual connections, "
        "no normalisation), bounded alpha-Hölder targets on [0,1]^{d0} with d0 in {1, 2} and alpha in {0.5, 1}, sup "
        "error against the number of blocks, the exponents alpha/d0 (upper) and 4 alpha/d0 (lower), and least-squares "
        "regression with depth grown with n. Replaces: the paper's own construction (its proof, norm, width/heads and "
        "token embedding were not reachable: the stored text holds the abstract and introduction) by our explicit "
        "construction in the same class -- one token (x, acc, scratch), attention output set to zero (over one token "
        "softmax attention is linear), FFN width 6, one block per grid node for d0 = 1 (hat functions) and two per "
        "node for d0 = 2 (Courant basis of the three-direction triangulation, relu(1 - (|u|+|v|+|u-v|)/2)) -- which "
        "computes the piecewise-linear interpolant, so its sup error is at most H (c/N)^alpha with L ~ N^{d0} blocks; "
        "it checks that the upper-bound rate is attained at constant width, not the paper's proof itself. Targets: a "
        "cusp ||x - c||^alpha at c = 1/3 or 2/3 (exact power-law error on dyadic grids) plus a small smooth wave; slope "
        "fitted on the three largest grids. Regression: Weierstrass target (alpha = 0.5, d0 = 1, 12 octaves), sigma = 1, "
        "n = 128..2048, Transformer with 2 coordinate/readout tokens, width 16, 2 heads, blocks round((n/64)^{1/2}) "
        "capped at 8, minibatch Adam with cosine decay; the paper's excess-risk exponent was not reachable, so the "
        "comparison point is the minimax -2 alpha/(2 alpha + d0) (what balancing the upper bound with a variance "
        "~ L/n gives); kNN at k = n^{2 alpha/(2 alpha + d0)} (scikit-learn) is the validity control of the n-range and "
        "an MLP with as many parameters is reported alongside. Exponents re-derived in sympy; property tests with "
        "hypothesis."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "ns1": [8, 16, 32], "ns2": [4, 8, 16], "eval1": 257, "eval2": 33,
            "ns": [128, 512], "alpha": 0.5, "sigma": 1.0, "steps": 30, "lr": 1e-2, "width": 8, "n_test": 400,
            "batch": 128}, timeout_s=120),
        "full": Profile("full", seeds=4, params={
            "ns1": [8, 16, 32, 64, 128], "ns2": [4, 8, 16], "eval1": 1025, "eval2": 49,
            "ns": [128, 256, 512, 1024, 2048], "alpha": 0.5, "sigma": 1.0, "steps": 200, "lr": 1e-2, "width": 16,
            "n_test": 1000, "batch": 128}, timeout_s=600),
    },
    claims=(
        Claim(id="upper-bound-construction", kind="identity",
              statement="A standard Transformer with L blocks (our explicit construction) approximates bounded "
                        "alpha-Hölder functions with sup error O(L^{-alpha/d0}): on the targets, the log-log slope of "
                        "sup error on blocks is within 0.1 of -alpha/d0 and the error stays under the construction's "
                        "bound H (c/N)^alpha, for d0 in {1, 2} and alpha in {0.5, 1}.",
              paper_value="O(eps^{-d0/alpha}) blocks suffice, i.e. error O(L^{-alpha/d0})",
              check=C.all_of(*(part for d0, a in _CONFIGS for part in (
                  C.slope(f"construct/d{d0}a{a:g}/L_fit", f"construct/d{d0}a{a:g}/err_fit",
                          within=(-a / d0 - 0.1, -a / d0 + 0.1), label=f"slope d0={d0}, alpha={a:g}"),
                  C.threshold(f"construct/d{d0}a{a:g}/bound_ratio_max", at_most=1.0,
                              label=f"max error/bound d0={d0}, alpha={a:g}"))), partly="none")),
        Claim(id="lower-bound", kind="headline",
              statement="At least Omega(eps^{-d0/(4 alpha)}) blocks are necessary (via a VC-dimension upper bound).",
              paper_value="Omega(eps^{-d0/(4 alpha)}) blocks (the ICML page prints O)",
              no_control="a worst-case statement over the class; no experiment on fixed targets can test it",
              uncheckable="a lower bound over the whole Hölder class: a slope on fixed targets cannot test it"),
        Claim(id="excess-risk-rate", kind="headline",
              statement="Least squares over Transformers sized by the upper bound attains an excess-risk rate in n: "
                        "the log-log slope of excess risk on n reaches the rate exponent.",
              paper_value="an excess-risk rate (exponent not reachable in the stored text; compared with the minimax "
                          "-2 alpha/(2 alpha + d0) = -0.5 for alpha = 0.5, d0 = 1)",
              no_control=("a rate, not a comparison: kNN at the minimax neighbour count is a validity gate of the "
                          "n-range (must itself show the exponent), and an equal-parameter MLP is reported alongside")),
        Claim(id="exponent-bookkeeping", kind="identity",
              statement="The exponents used here (alpha/d0, 4 alpha/d0, the factor-4 gap, -2 alpha/(2 alpha + d0) "
                        "from balancing L^{-2 alpha/d0} with L/n) agree with their sympy derivation.",
              paper_value="eps^{-d0/alpha} and eps^{-d0/(4 alpha)}",
              check=C.close("bookkeeping/max_diff", to=0.0, tol=1e-12, label="max |ours - sympy|")),
    ),
)

_EXPORTS = {
    **{n: ".method" for n in ("StandardTransformer", "HolderRegressor", "construct_interpolant",
                              "construction_bound", "blocks_for", "grid_nodes", "sup_error", "error_exponents",
                              "blocks_upper", "blocks_lower", "minimax_exponent", "depth_for", "bookkeeping")},
    **{n: ".setting" for n in ("cusp_target", "random_cusp_target", "thirds_cusp_target", "weierstrass",
                               "regression_data")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
