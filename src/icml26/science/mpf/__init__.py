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
    "rho": 0.25, "lr_final": 1.0, "fit_band_cells": 5.0, "fit_gate_cells": 1.5,
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
        "exact forward-mode spatial gradients, Adam per network) for a few hundred steps of small batches (below; "
        "the card's plan: 1000 steps, batch 2048, lr 1e-3). MPF's loss weights were tuned on the quick "
        "profile; the SDF (surface 10, eikonal 0.1; IGR uses 1 and 0.1) and the UDF (MPF's metric terms) got no "
        "separate tuning. Revised after review of the first full run: every arm's phase/signed head starts at "
        "the sphere |x| = 0.25 (before 0.5, exactly the hemisphere; 0.25 is at least 0.15 from every shape's "
        "radius); a trimmed-SDF extraction (the SDF's zero set kept within 2.5 cells of the input points, the "
        "distance of MPF's gate) is claim 1's deciding control, the untrimmed SDF reported beside it; the metric "
        "pull of the arms with an r head gets extra samples per step (256 in 2-D, 1024 in 3-D, evaluated without "
        "spatial gradients) and a stored distance-fit metric (mean |r - d_X| on grid points within 5 cells of "
        "the input, in cells) gates claims 1 and 2 at 1.5 cells; MPF and the SDF train at the same fixed "
        "learning rate 3e-3 (claim 1 compares them there; the sweep over 1e-3, 3e-3, 1e-2 serves claim 2 and "
        "covers MPF and the UDF on the 2-D shapes); 2-D trains 400 steps, 3-D 900 steps, batch 64 scan points "
        "and 64 off-surface samples; the fixed-beta sweep (1, 10, 100) runs on plate2d, halfcircle and rings "
        "(3-D: base arms only, for time). Scanned shapes are not available."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "shapes_2d": ["plate2d", "halfcircle", "circle"], "shapes_3d": ["plates3d"],
            "beta_shapes": ["plate2d", "halfcircle"], "steps_2d": 120, "steps_3d": 120, "batch_2d": 64,
            "batch_3d": 64, "batch_r_2d": 128, "batch_r_3d": 256, "sweep_3d": False, "n_points_3d": 3000,
            "res_3d": 40}),
        "full": Profile("full", seeds=5, timeout_s=1200, params={
            **_COMMON, "shapes_2d": ["plate2d", "halfcircle", "tjunction", "circle", "rings"],
            "shapes_3d": ["plates3d", "cylinder", "hemisphere"], "beta_shapes": ["plate2d", "halfcircle", "rings"],
            "steps_2d": 400, "steps_3d": 900, "batch_2d": 64, "batch_3d": 64, "batch_r_2d": 256,
            "batch_r_3d": 1024, "sweep_3d": False}),
    },
    claims=(
        Claim(
            id="thin-open-layered",
            statement=("MPF preserves thin, open and layered structures more faithfully than an SDF trained on the "
                       "same points with the same network, and does not lose accuracy on a closed shape. Revised "
                       "after review of the first full run (pre-registered before the second): the deciding control "
                       "is now the same SDF with its zero set trimmed to within 2.5 cells of the input points (the "
                       "usual post-process, the same distance as MPF's r gate; the untrimmed SDF is still reported), "
                       "since in the first run most of MPF's gain on open shapes was the untrimmed SDF closing them "
                       "up; the claim is decided only if MPF's metric head learned a distance near the input (seed-"
                       "mean |r - d_X| <= 1.5 cells on every shape); the phase/signed head of every arm now starts at "
                       "the sphere |x| = 0.25 (before: 0.5, exactly the hemisphere); MPF and the SDF train at the same "
                       "fixed learning rate (3e-3). Changed after seeing the second full run: the closed-shape "
                       "precondition now gates the SDF only (MPF failed it in 2 of 5 seeds because its r gate cuts "
                       "the circle, a method failure now counted in the closed-shape criterion; under the "
                       "pre-registered gate the verdict was not-checkable). First full run, old rule: partly (lower seed-mean Chamfer than "
                       "the untrimmed SDF on all seven shapes, right piece count in 43% of runs)."),
            paper_value="qualitative: better than recent SDF methods on thin shells/plates (no numbers available)",
            kind="headline",
            control=("the same network with one signed head trained IGR-style (on-surface + eikonal), its zero set "
                     "trimmed to within 2.5 cells of the input points (deciding); untrimmed (reported)"),
        ),
        Claim(
            id="robust-vs-udf",
            statement=("MPF trains more robustly and extracts more reliably than a UDF: fewer failed extractions "
                       "over three learning rates and a smaller Chamfer spread across seeds (exact one-sided McNemar "
                       "test on failures and a sign test over shapes on the spread, both p < 0.05; rule revised by "
                       "the first review, the raw counts decided before). Revised again after review of the first "
                       "full run (pre-registered before the second): decided only if the metric head r of every "
                       "MPF and UDF network learned a distance near the input (seed-mean |r - d_X| <= 1.5 cells on "
                       "every shape, at every learning rate), since in a review diagnostic of the first run r was far from a distance (mean |r - d_X| "
                       "over the whole grid 0.13-0.17 in 3-D, 0.05-0.14 in 2-D) and the UDF's 3-D failures were "
                       "mostly an under-trained control; r now gets 256 (2-D) / 1024 (3-D) extra "
                       "metric-pull samples per step, and 2-D trains 400, 3-D 900 steps. First full run: partly (failures "
                       "55/90 vs 58/90, McNemar p = 0.39). Merging the two 2-D plates into one piece does not count "
                       "as a failure, per the issue's 'spurious components'."),
            paper_value="qualitative: more robust training and extraction than UDF methods (no numbers available)",
            kind="headline",
            control="the metric head r alone (UDF), level-set + projection extraction",
        ),
        Claim(
            id="learnable-beta",
            statement=("A learnable beta adapts the sharpness of the phase transition: it does as well as the "
                       "best fixed beta on every shape. (Changed by review after the full run: partly -> "
                       "not-reproduced, the control put in the method's place reads the same partly (beta fixed at "
                       "its start, 10, is within 10% of the best fixed beta on 2/3 shapes, plate2d 0.0093 and "
                       "halfcircle 0.0083, as the learnable beta is, on halfcircle 0.0067 and rings 0.0138; the "
                       "learnable arm misses plate2d, 0.0109 vs 0.0089, and its one extra shape, rings, rests on "
                       "seed means, 0.0138 vs 0.0154, with the learnable arm below beta = 10 in only 2/5 seeds). "
                       "partly now needs a shape where only the learnable arm is within 10% and it is below beta0 "
                       "in >= 80% of seeds.)"),
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
