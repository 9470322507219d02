"""Metric–Phase Fields: Decoupling Distance and Sign for Thin-Structure Reconstruction from Unoriented
Point Clouds (arXiv 2605.25503).

MPF reconstructs a surface from unoriented points by learning an unsigned metric field ``r`` and a
smooth phase field ``theta``, a soft sign ``P = tanh(beta theta)`` with learnable ``beta``, and a
signed function from a gated metric with residual phase injection. Only the abstract, the OpenReview
summary and a README (code "coming soon") were available: the coupling formula, the losses and the
extraction gate here are our reconstruction, labelled (R) in ``method.py``.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {
    "n_points_2d": 2000, "n_points_3d": 6000, "noise": 0.002, "lr": 3e-3, "lrs": [1e-3, 3e-3, 1e-2],
    "betas": [1.0, 10.0, 100.0], "beta0": 10.0, "width": 64, "n_freq": 16, "freq_scale": 2.0,
    "res_2d": 256, "res_3d": 56, "level_cells": 2.5, "n_gt": 5000, "n_samples_3d": 8000,
}

PAPER = Paper(
    slug="mpf",
    title=("Metric–Phase Fields: Decoupling Distance and Sign for Thin-Structure Reconstruction from "
           "Unoriented Point Clouds"),
    source="arXiv:2605.25503",
    cluster="science",
    feasibility="B",
    examples="icml26.science.mpf.experiment:EXAMPLES",
    substitution=(
        "Keeps: reconstruction from unoriented noisy points (no normals); two learned fields, an unsigned metric "
        "r >= 0 (softplus head) and a smooth phase theta, on one network; the bounded indicator P = tanh(beta "
        "theta) with learnable beta (init 10); a gated metric with a residual phase injection giving a signed "
        "function; zero-level extraction (scikit-image marching squares/cubes); comparisons with an SDF and a "
        "UDF on thin, open and layered shapes. Reconstructed (R), not in any source we found (abstract, "
        "OpenReview summary, README only; no code released): the coupling f = P r + gamma theta exp(-r/tau) "
        "(gamma 1, tau 0.05), the losses (|r| + |theta| on the points, |r - d_X| metric pull to the distance to "
        "the cloud, (|grad theta| - 1)^2 on the points, small Dirichlet energy and double-well (1 - P^2)^2 away "
        "from the points, (|f| - r)^2 consistency), and the extraction gate r < 2.5 grid cells. Replaces: the "
        "paper's synthetic and scanned thin-shell/plate data by analytic 2-D curves (two segments 0.04 apart, "
        "open half circle, T-junction, closed circle, two circles 0.03 apart; 2000 points, noise 0.002) and "
        "trimesh 3-D shells (two 0.8 x 0.8 plates 0.14 apart, i.e. 5.5 cells of the 56^3 grid, since the issue's "
        "0.02 is below one cell; an open cylinder; a hemisphere; 6000 points); the SDF peers by an IGR-style "
        "SDF (on-surface + eikonal, geometric sphere initialisation) and the UDF peers by the r head alone "
        "extracted at the 2.5-cell level set of r with vertices projected onto r = 0 (capped Newton step); "
        "the paper's networks by 2-layer width-64 Fourier-feature tanh MLPs trained together (stacked weights, "
        "exact forward-mode spatial gradients, Adam per network) for 350 steps of 96 points and 96 off-surface "
        "samples (the card's plan: 1000 steps, batch 2048, lr 1e-3). MPF's loss weights were tuned on the quick "
        "profile; the SDF (surface 10, eikonal 0.1; IGR uses 1 and 0.1) and the UDF (MPF's metric terms) got no "
        "separate tuning, and only MPF and the UDF get the learning-rate sweep. The phase/signed head starts at "
        "the sphere |x| = 0.5 (geometric initialisation), which is exactly the hemisphere's sphere, so the "
        "hemisphere starts solved up to trimming for both MPF and the SDF. No arm trims its output by distance "
        "to the input points except through MPF's learned r gate. The learning-rate "
        "sweep (1e-3, 3e-3, 1e-2) runs on the 2-D shapes, the fixed-beta sweep (1, 10, 100) on the 2-D shapes "
        "(3-D: base arms only, for time). Scanned shapes are not available."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "shapes_2d": ["plate2d", "halfcircle", "circle"], "shapes_3d": ["plates3d"],
            "steps": 120, "batch": 64, "sweep_3d": False, "n_points_3d": 3000, "res_3d": 40}),
        "full": Profile("full", seeds=5, timeout_s=1200, params={
            **_COMMON, "shapes_2d": ["plate2d", "halfcircle", "tjunction", "circle", "rings"],
            "shapes_3d": ["plates3d", "cylinder", "hemisphere"], "steps": 350, "batch": 96, "sweep_3d": False}),
    },
    claims=(
        Claim(
            id="thin-open-layered",
            statement=("MPF preserves thin, open and layered structures more faithfully than an SDF trained on the "
                       "same points with the same network, and does not lose accuracy on a closed shape. (Read after "
                       "the full run, not pre-registered: the seed-mean Chamfer is lower on all seven shapes, on the "
                       "rings in only 2 of 5 seeds, but MPF has the right piece count in only 43% of runs, since the "
                       "r < 2.5-cell gate also cuts the curve where the learned r is not small enough, and it is 1.4x "
                       "the SDF on the closed circle. Review note, not stored and not part of the verdict: the "
                       "control has no trimming, so most of the gain on open shapes is the SDF closing them up; in a "
                       "2-seed review diagnostic the same SDF with its zero set trimmed to within 2.5 cells of the "
                       "input points, the usual post-process, had lower Chamfer than MPF on plate2d, halfcircle, "
                       "tjunction, plates3d and cylinder in both seeds, split on rings, and higher on the hemisphere "
                       "(0.011 vs 0.009); a trimmed-SDF arm is "
                       "the control a reviewer would ask for.)"),
            paper_value="qualitative: better than recent SDF methods on thin shells/plates (no numbers available)",
            kind="headline",
            control="the same network with one signed head trained IGR-style (on-surface + eikonal)",
        ),
        Claim(
            id="robust-vs-udf",
            statement=("MPF trains more robustly and extracts more reliably than a UDF: fewer failed extractions "
                       "over three learning rates and a smaller Chamfer spread across seeds. (Read after the full "
                       "run, not pre-registered: the failure counts are close, 55/90 vs 58/90, McNemar p = 0.39; MPF "
                       "fails mostly by fragmenting thin 2-D shapes where its metric gate cuts the curve, the UDF "
                       "mostly on the 3-D shells, where its level set breaks into many pieces. Rule revised by "
                       "review after the full run: the McNemar test on failures and a sign test over shapes on the "
                       "spread are now required for a pass, as the issue asks for a stated test; before, the raw "
                       "counts decided and the verdict read 'reproduced'. Review note, not stored: in a review "
                       "diagnostic the metric head r of both arms is far from a distance field after 350 steps "
                       "(seed 0: 20-34% of all 3-D grid points lie more than 3 levels from the input yet have r below "
                       "the 2.5-cell level; mean |r - d_X| 0.13-0.17 in 3-D, 0.05-0.14 in 2-D), "
                       "so the UDF's 3-D failures are mostly an under-trained control rather than the UDF's "
                       "gradient problem; no stored metric gates the control's training. Merging the two 2-D plates "
                       "into one piece does not count as a failure, per the issue's 'spurious components'.)"),
            paper_value="qualitative: more robust training and extraction than UDF methods (no numbers available)",
            kind="headline",
            control="the metric head r alone (UDF), level-set + projection extraction",
        ),
        Claim(
            id="learnable-beta",
            statement=("A learnable beta adapts the sharpness of the phase transition: it does as well as the "
                       "best fixed beta on every shape."),
            paper_value="qualitative: learnable beta adapts transition sharpness and saturation (no numbers)",
            kind="headline",
            control="MPF with beta fixed at 1, 10 or 100",
        ),
        Claim(
            id="scanned",
            statement="The advantages hold on scanned thin-shell and thin-plate shapes.",
            paper_value="qualitative, on the paper's scanned data",
            kind="headline",
            no_control="not run: no scanned data here",
            uncheckable="needs the paper's scanned thin-shell/plate data, which we do not have",
        ),
        Claim(
            id="sign-from-phase",
            statement=("In the reconstructed coupling f = P r + gamma theta exp(-r / tau), f has the sign of theta "
                       "everywhere (r >= 0, P and theta share their sign), so f's zero set is the phase's."),
            paper_value="our reconstruction's property (the paper's coupling formula was not available)",
            kind="identity",
            check=C.threshold("identity/sign_agreement_min", at_least=1.0,
                              label="fraction of grid points (theta != 0) where sign f = sign theta, min over nets"),
        ),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "phase_indicator", "metric_phase_field", "StackedFields", "train_stack", "extract", "count_components",
    "resample_polyline", "make_pool", "Spec", "LossWeights")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
