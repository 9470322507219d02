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
#: The collapse-prone setting of relieves-collapse-laplace (pre-registered 2026-12-06, second design, from dev
#: seeds 100-103): a noise-free router at the default initialisation whose learning rate is 300x the model's,
#: mixture weights from the softmax over all experts (the paper's formula); the same model (4 tokens per
#: modality), data, masks and training otherwise. Its arms share one initial draw (same router, experts,
#: encoders and attention at step 0): the Laplace gate, the confidence gate on the same distance router, and
#: the softmax gate (reported). Metric names keep the suffix ``_sharp``.
_SHARP = {"sharp": {"router": {"noisy": False, "init_scale": 1.0, "weights": "all"}, "router_lr_mult": 300.0,
                    "variants": ["laplace", "conf_laplace", "softmax"]}}
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
        "after the run made relieves-collapse-laplace not-checkable: the two arms differed in the router family "
        "(FuseMoE's distance logits -||h - w_i|| vs ConfSMoE's dot-product logits h W_g) as well as in the mixture "
        "weights, and with init x10 the distance router prefers the smallest-norm centroids for every token, so the "
        "Laplace arm's usage entropy before any step was already 0.75 and 0.68 (seeds 0, 1) and 0.59, 0.58 (dev "
        "seeds 100, 101). "
        "Second design of relieves-collapse-laplace (2026-12-06, pre-registered before its full run; it replaces "
        "the first): a new arm, conf_laplace, puts the confidence gate on FuseMoE's distance router (the distance "
        "logits choose the top-2 experts, the confidences weight them, the router learns through the same "
        "straight-through weight as in ConfSMoE), so it differs from the Laplace arm in the mixture weights alone, "
        "and the two arms (plus the softmax gate, reported) share one initial draw. Every run now stores the usage "
        "entropy of the untrained model (eval mode, test split; entropy0, on its own random stream so the training "
        "draws are unchanged) and its fall during training (entdrop). The setting was searched on dev seeds 100-103 "
        "looking at the Laplace arm's initial and final entropy: with one token per modality the distance router "
        "starts unbalanced in some draws (0.73-0.94 at init x1); a logit multiplier of 3-10 at init x1 removed the "
        "collapse (0.84-0.96); with four tokens per modality, init x1, noise-free router, all-expert softmax weights "
        "and a router learning rate x300 the Laplace arm starts at 0.95-0.98 and falls to 0.49-0.66 (x100: 0.79-0.90; "
        "x30: 0.91-0.97). That setting is pre-registered (the old sharp-router arms are no longer run) with three "
        "preconditions on the Laplace arm, each in 4/5 seeds: initial entropy >= 0.9, a fall of >= 0.1, final "
        "entropy <= 0.85. Seen on the same dev seeds: the confidence arm collapsed further than the Laplace arm "
        "(0.33 vs 0.51, 0.66, 0.49 on dev seeds 100-102, and lower in every one of the 11 dev pairs across the "
        "settings tried); the softmax gate stayed at 0.96-0.98; the released code's variant of the confidence arm "
        "(router without gradient) stayed at 0.97-0.98 (dev seeds 100, 101; not in the profile), i.e. balanced "
        "because its router does not learn. "
        "Full run of the second design (2026-12-06, commit 94fe1d0; text added after it, no check changed): the "
        "preconditions held in 5/5 seeds (Laplace arm's initial entropy 0.93-0.97, fall 0.31-0.62, final 0.33-0.66); "
        "the confidence arm ended at 0.397, 0.333, 0.333, 0.333, 0.333 against the Laplace arm's 0.333, 0.662, "
        "0.525, 0.333, 0.333 (seeds 0-4): more balanced in 1/5, less balanced in 2/5, tied in 2/5 where both used "
        "only two experts for every token (0.333 = log 2 / log 8, the floor for top-2 routing; largest share 0.50), "
        "so relieves-collapse-laplace is not-reproduced: on the same distance router the confidence weights do not "
        "prevent the collapse, and tend to make it complete. The softmax gate in this setting did not collapse "
        "(0.94-0.97 at initialisation, 0.95-0.98 at the end). In the main setting every number equals the "
        "previous full run's (the initial-routing measurement runs on its own random stream); the initial "
        "entropies there are 0.86-0.98 for ConfSMoE and 0.91-0.98 for the softmax gate. "
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
            statement=("In a collapse-prone setting (noise-free distance router trained with a fast learning rate) "
                       "where FuseMoE's Laplace gate collapses during training from balanced initial routing, "
                       "weighting the chosen experts by their confidences instead of the Laplace score keeps expert "
                       "usage more balanced."),
            paper_value=("qualitative: the collapse analysis extends to Gaussian and Laplacian gates; ConfSMoE's "
                         "usage stays balanced; no table value"),
            kind="headline",
            control=("the same model, setting and initial draw with FuseMoE's Laplace gate: the same distance router "
                     "(-||h - w_i||) chooses the experts, its softmax score weights them instead of the confidences "
                     "(ConfSMoE's confidence gate on the Laplace router vs the Laplace gate); no load-balance loss. "
                     "Stored full run: the preconditions held in 5/5 seeds (initial entropy 0.93-0.97, fall 0.31-0.62); "
                     "the confidence arm was more balanced in 1/5 seeds, less balanced in 2/5 and tied at the top-2 "
                     "floor 0.333 (two experts for every token) in 2/5; the softmax gate in the same setting stayed "
                     "at 0.95-0.98. Review after the full run (text only, verdict unchanged): 0.333 is complete "
                     "collapse, the worst end of the scale, so the two tied seeds count against the claim (the "
                     "confidence arm had all the room to stay balanced and did not), not as seeds without room; "
                     "without them the differences are +0.064, -0.329, -0.192 and the verdict is the same. The "
                     "verdict is about a router that learns: our straight-through weight c_i g_i / stopgrad(g_i) "
                     "gives the router the gradient c_i grad log g_i, which keeps the softmax's competition term; "
                     "the paper says it detaches the routing score and the released code's router gets no gradient, "
                     "under which usage stays balanced because the router never moves (0.97-0.98 on dev seeds), a "
                     "reading in which the claim holds nearly by construction. The arms share the encoders, "
                     "attention, router and experts at step 0 (usage entropy at initialisation equal within 0.002); "
                     "the confidence heads and probe are drawn after the experts, so the stage-2 imputation, the "
                     "read-out and the training draws differ between the arms"),
            check=C.beats("entropy_conf_laplace_sharp", "entropy_laplace_sharp", better="higher",
                          label="usage entropy, confidence gate on the Laplace router",
                          control_label="Laplace gate").gated(
                C.gate("entropy0_laplace_sharp", at_least=0.9, frac=0.8,
                       why=("precondition: routing is balanced at initialisation (usage entropy / log E of the "
                            "Laplace arm before any step >= 0.9; both arms start from the same router)")),
                C.gate("entdrop_laplace_sharp", at_least=0.1, frac=0.8,
                       why="precondition: the collapse happens in training (the Laplace arm's entropy falls by >= 0.1)"),
                C.gate("entropy_laplace_sharp", at_most=0.85, frac=0.8,
                       why="precondition: the Laplace gate collapses here (final usage entropy / log E <= 0.85)"),
                C.gate("capped_max_sharp", at_most=0.0, frac=0.8,
                       why="training converged: every arm of this setting stopped early before the 100-epoch cap"),
                C.gate("acc_min_sharp", at_least=0.5, frac=1.0, why="every arm of this setting learned: test accuracy >= 0.5"))),
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
