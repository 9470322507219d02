"""Rethinking Gating Mechanism in Sparse MoE: Handling Arbitrary Modality Inputs with Confidence-Guided Gate
(ConfSMoE, arXiv:2505.19525).

A sparse mixture-of-experts fusion model for classification when any subset of the input
modalities may be missing. Missing modalities are filled in two stages (the encoded average of
random training inputs of that modality, then a sparse cross-attention read-out of the experts'
outputs on the modalities that are present). Each chosen expert's output is weighted by a learned
confidence, a sigmoid head trained to predict the probability that the expert's output puts on
the true label, instead of the softmax routing score, which the paper links to expert collapse.
The package holds the model (`ConfSMoEClassifier`), its sparse MoE block with confidence, softmax
and Laplace gates (`SparseMoE`), the imputation pieces, the load-balance loss of the baseline and
routing diagnostics; `setting` holds the missing-modality digits.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_MODEL = {"d": 16, "tokens": 4, "n_experts": 8, "top_k": 2, "n_heads": 2, "dropout": 0.1,
          "lr": 3e-3, "batch": 256, "feat_noise": 0.3, "n_perm": 10, "lb_coef": 0.01}
#: Full profile: every variant trains until its validation accuracy has not improved for ``patience``
#: epochs (at most ``epochs``) and is evaluated at its best validation epoch.
_CONVERGE = {"epochs": 100, "patience": 12}
#: The collapse-prone setting of relieves-collapse (pre-registered 2026-12-06 from dev seeds 100 and 101):
#: a sharp, fast, noise-free router whose mixture weights are the softmax over all experts (the paper's
#: formula), one token per modality; the same model, data, masks and training otherwise.
_SHARP = {"sharp": {"tokens": 1, "router": {"noisy": False, "init_scale": 10.0, "weights": "all"},
                    "router_lr_mult": 30.0, "variants": ["confsmoe", "laplace"]}}
#: ``confsmoe_released`` (router without gradient, as in the released code) is implemented and tested but
#: not in the profiles since 2026-12-06 (CPU budget; it decides no claim).
_ALL = ["confsmoe", "softmax", "softmax_lb", "laplace", "conf_zero_fill", "dense"]

#: Training gates, pre-registered: every variant converged (early stopping fired: validation accuracy
#: had not improved for ``patience`` epochs before the cap of ``epochs``) and learned (test accuracy >= 0.5;
#: chance is 0.1). Revised on 2026-12-06 before the full run: the earlier gate (final validation accuracy
#: within 3 pt of the best of a fixed 40 epochs) failed in 3/5 seeds, mostly because ConfSMoE was still
#: improving; training now runs to a validation plateau instead of a fixed length.
_TRAINED = (C.gate("capped_max", at_most=0.0, frac=0.8,
                   why=("training converged: every variant stopped early (validation accuracy flat for 12 "
                        "epochs) before the 100-epoch cap")),
            C.gate("acc_min", at_least=0.5, frac=1.0, why="every variant learned: test accuracy >= 0.5 (chance 0.1)"))


def _f1(a: str, b: str, label: str, control_label: str) -> C.Beats:
    return C.beats(f"f1_{a}", f"f1_{b}", better="higher", label=label, control_label=control_label)


PAPER = Paper(
    slug="confsmoe",
    title=("Rethinking Gating Mechanism in Sparse MoE: Handling Arbitrary Modality Inputs with "
           "Confidence-Guided Gate"),
    source="arXiv:2505.19525",
    cluster="vision",
    feasibility="B",
    substitution=(
        "Keeps: per-modality encoders to tokens, learned positional embedding, one fusion layer "
        "(self-attention + sparse MoE FFN, noisy top-2 router over 8 GELU experts), the confidence-guided "
        "gate (per-expert sigmoid heads on expert outputs, trained by MSE to a shared probe's probability of "
        "the true label; mixture weights = confidences; no load-balance loss), two-stage imputation (average "
        "of 10 random training inputs of the missing modality, encoded; then sparse cross-attention over the "
        "other modalities' top-k expert outputs, top-quarter sparsification as in the released code), loss "
        "CE + L_conf, Adam, random missing modalities at the same rate in training and test, macro-F1. "
        "Replaces: MIMIC-III/IV and CMU-MOSI/MOSEI by scikit-learn's 8x8 digits cut into three complementary "
        "modalities (image rows 0-2, 3-5 and 6-7, the last with Gaussian noise sd 0.3); width 16, 4 tokens per "
        "modality, 2 heads, batch 256, Adam lr 3e-3 (paper: width 128, lr 3e-4); one fusion layer; missing "
        "rate 0.5 per modality; every variant trains with Adam at a constant learning rate until its validation "
        "accuracy has not improved for 12 epochs (cap 100 epochs; a convergence gate requires that the stop "
        "came before the cap) and is evaluated at its best validation epoch (the released code picks the best "
        "test epoch, which we do not do; until 2026-12-06 a fixed 40 epochs and the final epoch were used, and "
        "the training gate of that design, final validation accuracy within 3 pt of the best, failed in 3/5 "
        "seeds of its full run, mostly because ConfSMoE was still improving; the early stopping and its "
        "'stopped before the cap' gate replaced it after that failure and before the present full run). The paper does not say how the "
        "router learns once its score leaves the mixture: the 'paper' variant trains it through a "
        "straight-through weight c_i * g_i / stopgrad(g_i); the released code's behaviour (router never "
        "receives a gradient) is run as a separate variant. Baselines re-implemented: noisy top-k softmax "
        "SMoE with and without the Switch load-balance loss (weight 0.01), FuseMoE-style Laplace gate (same "
        "imputation), confidence gate with zero fill, dense fusion with pool imputation. Attention uses a "
        "standard pre-norm residual (the released code's attention block drops the residual). "
        "Full profile resized on 2026-12-01 to fit the 3-minute budget: no parameter changed (5 seeds, 40 "
        "epochs, every variant); the MoE block now runs only on the present modalities' tokens and each "
        "expert only on the tokens that chose it, the confidence heads only on the chosen experts, and "
        "stage-2 imputation only for the missing (sample, modality) pairs (same model, outputs and gradients "
        "equal to the dense computation up to float rounding, about 1.7x less compute per step); the router's "
        "training noise is now drawn for the present tokens only, so the rows differ from the earlier full run "
        "by their random draws. "
        "Collapse search (2026-12-06, dev seeds 100-102, before the full run, looking at the softmax and "
        "Laplace gates only): in the main setting the softmax gate's usage entropy stays 0.93-0.99 "
        "(precondition <= 0.85), and it stayed 0.83-0.99 with a noise-free router, a 5-30x sharper router "
        "initialisation, mixture weights from the softmax over all 8 experts (the paper's formula) instead of "
        "the released top-2 renormalisation, a 10-100x router learning rate, one token per modality, top-1 "
        "routing, and these combined (0.83 in one dev draw, 0.90-0.97 in the others), so relieves-collapse "
        "(softmax) keeps its precondition on the main setting and stays not-checkable if it fails. The Laplace "
        "gate does collapse (entropy 0.42-0.50 on dev seeds) in the combined 'sharp router' setting: noise-free "
        "router, init x10, router learning rate x30, all-expert softmax weights, one token per modality; "
        "relieves-collapse-laplace is pre-registered there (ConfSMoE with the same router settings vs the "
        "Laplace gate, same data, masks and training). ConfSMoE's usage was not looked at in this search. The first full run of this "
        "design (commit 9701274) stopped with NaN in seeds 0-1: the straight-through weight c_i * g_i / "
        "stopgrad(g_i) is 0/0 when the sharp all-expert softmax underflows g_i; it is now computed in log space "
        "(same value and gradient where g_i > 0), checked once on seed 0's sharp variants (ConfSMoE entropy "
        "0.937, Laplace 0.487), and the full run was repeated from scratch with nothing else changed. "
        "Full run (2026-12-06): the softmax gate did not collapse (entropy 0.972-0.995), so relieves-collapse "
        "stays not-checkable; the Laplace gate collapsed in the sharp-router setting in 5/5 seeds (0.33-0.69, "
        "largest expert share up to 0.50) while ConfSMoE with the same router settings kept 0.875-0.972; review "
        "after the run found that most of this collapse is present at initialisation (see relieves-collapse-laplace, "
        "now not-checkable). "
        "The released-code variant (router without gradient) is implemented and tested but left out of the "
        "profiles since 2026-12-06 (CPU budget; it decides no claim)."
    ),
    examples="icml26.vision.confsmoe.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, params={**_MODEL, **_SHARP, "epochs": 5, "patience": 2, "rates": [0.5],
                                                    "variants": _ALL}, timeout_s=120),
        "full": Profile("full", seeds=5, params={**_MODEL, **_SHARP, **_CONVERGE, "rates": [0.5],
                                                  "variants": _ALL}, timeout_s=2400),
    },
    claims=(
        Claim(
            id="relieves-collapse",
            statement=("Weighting experts by confidence instead of the softmax routing score relieves expert "
                       "collapse without a load-balance loss, where the softmax gate collapses."),
            paper_value=("qualitative: expert-usage plots on MIMIC-IV / CMU-MOSI show balanced usage for ConfSMoE "
                         "and concentration for softmax, Gaussian and Laplace gates; no table value"),
            kind="headline",
            control="the same model with the softmax gate, no load-balance loss",
            check=C.beats("entropy_confsmoe", "entropy_softmax", better="higher", label="usage entropy ConfSMoE",
                          control_label="softmax").gated(
                C.gate("entropy_softmax", at_most=0.85, frac=0.8,
                       why="precondition: the softmax gate collapses here (usage entropy / log E <= 0.85)"),
                *_TRAINED)),
        Claim(
            id="relieves-collapse-laplace",
            statement=("In a collapse-prone setting (sharp, fast, noise-free router; one token per modality), "
                       "where the Laplace gate collapses, the confidence gate keeps expert usage more balanced."),
            paper_value=("qualitative: the collapse analysis extends to Gaussian and Laplacian gates; ConfSMoE's "
                         "usage stays balanced; no table value"),
            kind="headline",
            control="the same model and setting with FuseMoE's Laplace gate, no load-balance loss",
            uncheckable=(
                "revised after the full run by review: not decided, because the control differs from ConfSMoE in "
                "two things, the mixture weights (softmax vs confidence) and the router family (FuseMoE's distance "
                "logits -||h - w_i|| vs ConfSMoE's dot-product logits h W_g), and the Laplace arm's collapse comes "
                "mostly from the sharp setting's initialisation, not from training: with init x10 the distance "
                "router prefers the smallest-norm centroids for every token, so at initialisation (before any "
                "step; review check outside the run, same init seeds and masks) its usage entropy is already "
                "0.75 and 0.68 (seeds 0, 1; largest share 0.38, 0.48) and 0.59, 0.58 on dev seeds 100, 101, "
                "while the dot-product router under the same init x10 starts at 0.79-0.96; training then lowers "
                "the Laplace arm to 0.49. In the main setting (no sharp router) Laplace does not collapse "
                "(0.953-0.987; ConfSMoE 0.907-0.991). The control that isolates the confidence weights (the "
                "confidence gate on the same Laplace router) was not in the run; on dev seeds 100 and 101 it "
                "ended at 0.72 and 0.33 vs Laplace 0.51 and 0.42, so its direction is open"),
            check=C.beats("entropy_confsmoe_sharp", "entropy_laplace_sharp", better="higher",
                          label="usage entropy ConfSMoE (sharp router)", control_label="Laplace (sharp router)").gated(
                C.gate("entropy_laplace_sharp", at_most=0.85, frac=0.8,
                       why="precondition: the Laplace gate collapses in this setting (usage entropy / log E <= 0.85)"),
                C.gate("capped_max_sharp", at_most=0.0, frac=0.8,
                       why="training converged: both variants stopped early before the 100-epoch cap"),
                C.gate("acc_min_sharp", at_least=0.5, frac=1.0, why="both variants learned: test accuracy >= 0.5"))),
        Claim(
            id="specialised-routing",
            statement=("Under the confidence gate routing stays input-dependent (experts specialise) rather than "
                       "balanced by being random."),
            paper_value="qualitative: experts keep diversity and specialisation (expert-usage analysis); no number",
            kind="headline",
            no_control=("tested against the label-permutation null (routing that ignores the input), which is "
                        "the alternative the claim rules out; not a comparison of methods"),
            check=C.beats("mi_confsmoe", "minull_confsmoe", better="higher", label="I(expert; class) ConfSMoE",
                          control_label="label-permutation null").gated(_TRAINED[1])),
        Claim(
            id="beats-smoe-missing",
            statement=("Under randomly missing modalities ConfSMoE reaches higher macro-F1 than sparse-MoE "
                       "baselines with softmax gating and than dense fusion."),
            paper_value=("F1/AUC gains over SMoE baselines (FuseMoE, Flex-MoE) on MIMIC-III/IV and CMU-MOSI/MOSEI "
                         "with missing ratios up to 0.5; table values not retrieved here (a leaderboard lists "
                         "ConfSMoE at CMU-MOSI F1 54.57, CMU-MOSEI F1 61.94)"),
            kind="headline",
            control="softmax-gated SMoE with the same imputation (and dense fusion)",
            check=C.all_of(_f1("confsmoe", "softmax", "ConfSMoE", "softmax SMoE"),
                           _f1("confsmoe", "dense", "ConfSMoE", "dense fusion")).gated(*_TRAINED)),
        Claim(
            id="imputation-helps",
            statement="The two-stage imputation gives higher F1 than filling missing modalities with zeros.",
            paper_value="ablation: removing the imputation stages lowers F1 on the paper's datasets",
            kind="headline",
            control="the same confidence-gated model with missing modalities as zero tokens",
            check=_f1("confsmoe", "conf_zero_fill", "two-stage imputation", "zero fill").gated(*_TRAINED)),
    ),
)

_EXPORTS = {
    **{name: ".method" for name in (
        "ConfSMoEClassifier", "SparseMoE", "NoisyTopKRouter", "MoEOutput", "confidence_loss", "load_balance_loss",
        "pool_impute", "sparse_cross_attention", "routing_statistics", "sample_missing_mask")},
    **{name: ".setting" for name in ("make_modalities", "load_modalities")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
