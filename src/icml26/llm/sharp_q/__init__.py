"""SHARP-Q: post-training quantization aligned with Fisher geometry (reconstructed).

SHARP-Q quantizes CNNs, ViTs and state-space models to W2A2/W3A3 with uniform quantizers.
Its abstract says: take the change of the output distribution (KL, whose local geometry is
the Fisher information) as the objective; first rectify the landscape with Hessian-aware
rectification (HAR), then approximate the rectified Fisher in a dynamically tracked subspace
(DFSC); with that alignment, uniform grids beat specialised non-uniform ones. Only the abstract
could be found, so the method here is "SHARP-Q-like (reconstructed)": HAR is a closed-form
per-channel rescaling that minimises a second-order loss proxy of weight plus activation noise,
and DFSC is a diagonal-plus-low-rank Fisher re-estimated during block reconstruction at the
current quantized output, on top of a FIMA-Q-like (arXiv:2506.11543) BRECQ-order AdaRound/LSQ
pipeline. See ``method.py`` for the equations.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_W3 = "at W3A3 (weights 3-bit per channel, activations 3-bit per tensor)"
_RULE = ("method - control > 0 in test accuracy at W3A3 in >= 4/5 seeds (80%) for >= 2 of the 3 architectures "
         "whose FP accuracy is >= 95% in every seed (FP gate); fewer than 5 seeds: not-checkable; fewer than 2 "
         "gated architectures: not-checkable; exactly one architecture passing: partly; W2A2 reported, not deciding")

PAPER = Paper(
    slug="sharp-q",
    title=("SHARP-Q: Post-Training Quantization Aligned with Fisher Geometry via Hessian-Aware Rectification "
           "and Dynamic Fisher-Subspace Compensation"),
    source="abstract only (full text not found); method reconstructed from FIMA-Q arXiv:2506.11543 and "
           "HeRo-Q arXiv:2601.21626",
    cluster="llm",
    feasibility="B",
    examples="icml26.llm.sharp_q.method:EXAMPLES",
    substitution=(
        "SHARP-Q-like (reconstructed): only the abstract was found, so HAR and DFSC are our reconstructions, "
        "not the paper's method. Keeps: post-training quantization from a 128-image unlabelled calibration "
        "set; W3A3 (decisive) and W2A2 (reported); per-output-channel uniform weight grids and per-tensor "
        "asymmetric uniform activations with a learned (LSQ) step; block-wise reconstruction in BRECQ order "
        "(quantized input, FP target) with AdaRound rounding; a Fisher/KL objective (diagonal-plus-low-rank "
        "Fisher of log p(y|z) at the block output, labels drawn from the FP model, each term normalised to 1 at "
        "the start as in FIMA-Q); first and last blocks at 8 bits. HAR = per-input-channel rescaling "
        "y = (W diag(s))(x/s), s_j = (E[x_j^2] / sum_i f_i W_ij^2)^(1/4), which minimises a second-order proxy "
        "of weight plus activation noise and is an exact identity in floating point (foldable into the preceding "
        "LayerNorm / linear / conv rows); DFSC = the DPLR Fisher re-estimated 4 times per block at the current "
        "quantized output (FIMA-Q-like control: once, at the FP block output). Replaces: ImageNet CNNs / ViTs / "
        "SSMs by a tiny CNN, a 2-block ViT (row tokens) and a 2-block diagonal SSM (widths 16 / 32 / 32, 30 epochs: enough for the 95% FP gate) trained on the "
        "vision cluster's 8x8 digits (train + validation parts; test part for accuracy); 40-60 Adam steps per "
        "block instead of thousands. Non-uniform baselines (per-layer k-means codebook with sklearn, "
        "power-of-two grid) get the same AdaRound-on-grid reconstruction, HAR, objective and steps. Attention "
        "matmuls and the SSM state stay in floating point. brevitas was not installed (no cross-check)."),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "archs": ["cnn"], "bits": [3], "width": {"cnn": 16}, "epochs": 6, "steps": 8, "n_calib": 64,
            "recipes": ["rtn", "brecq_mse", "fimaq", "sharpq", "kmeans", "pot", "kmeans_mse"]}, timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "archs": ["cnn", "vit", "ssm"], "bits": [3, 2], "width": {"cnn": 16, "vit": 32, "ssm": 32}, "epochs": 30, "steps": 50,
            "n_calib": 128,
            "recipes": ["rtn", "brecq_mse", "fimaq", "sharpq", "kmeans", "pot", "kmeans_mse"]}, timeout_s=2400),
    },
    claims=(
        Claim(
            id="fisher-beats-mse", kind="headline",
            statement=("Aligning the reconstruction objective with Fisher geometry (SHARP-Q-like) gives higher "
                       f"accuracy than output-MSE block reconstruction {_W3}."),
            paper_value="qualitative: state of the art at W2A2/W3A3 on CNNs, ViTs and SSMs (no numbers found)",
            control="the same pipeline with plain output MSE (BRECQ-like), no HAR, static"),
        Claim(
            id="har-dfsc-add", kind="headline",
            statement=("Rectification (HAR) plus the dynamic Fisher subspace (DFSC) add accuracy on top of a "
                       f"FIMA-Q-like static diagonal-plus-low-rank Fisher reconstruction {_W3}."),
            paper_value="qualitative: 'Rectify-then-Approximate' improves on Fisher-based PTQ (no numbers found)",
            control="FIMA-Q-like DPLR Fisher reconstruction without HAR, Fisher estimated once"),
        Claim(
            id="uniform-beats-nonuniform", kind="headline",
            statement=("With the aligned pipeline, uniform quantizers beat specialised non-uniform designs "
                       f"(per-layer k-means codebook, power-of-two grid) given the same reconstruction {_W3}."),
            paper_value="qualitative: uniform quantizers outperform specialised non-uniform quantizers",
            control="the better of k-means and power-of-two grids per seed, same HAR + DFSC pipeline and steps"),
        Claim(
            id="fimaq-beats-mse", kind="prior-work",
            statement=f"FIMA-Q-like DPLR Fisher reconstruction beats BRECQ-like output-MSE reconstruction {_W3}.",
            paper_value="FIMA-Q (CVPR 2025): Fisher DPLR loss beats BRECQ on ImageNet ViTs at W3A3",
            control="BRECQ-like output MSE"),
        Claim(
            id="nonuniform-premise", kind="prior-work",
            statement=("The premise: under plain output-MSE reconstruction a non-uniform (k-means) weight grid "
                       f"beats the uniform grid {_W3}."),
            paper_value="premise of the paper's comparison (non-uniform quantizers fit bell-shaped weights better)",
            control="uniform grid with the same MSE reconstruction"),
        Claim(
            id="har-identity", kind="identity",
            statement=("HAR's rescaling y = (W diag(s))(x/s) leaves the floating-point network unchanged "
                       "(max |logit change| <= 1e-4 on the test set, every architecture)."),
            paper_value="by construction (an equivalent reparametrisation)",
            check=C.threshold("har_identity_err", at_most=1e-4, label="max |logit change| under HAR")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "PTQConfig", "RECIPES", "recipe", "quantize", "rectified_copy", "har_scales", "dplr_fisher",
    "uniform_levels", "pot_levels", "kmeans_levels", "round_to_grid", "search_channel_scale")}
_EXPORTS.update({name: ".setting" for name in ("build_model", "train_fp", "accuracy", "digits", "calibration_set")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
