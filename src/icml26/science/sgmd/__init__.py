"""SGMD: Score Gradient Matching Distillation for Few-Step Video Diffusion Distillation (arXiv:2605.30116).

DMD-style distillation trains a few-step generator with the gap between a "fake" score,
refitted to the generator's own samples, and the teacher's score; the fake must keep up with
a moving generator (DMD2 refits it 5 times per generator step), and reverse-KL matching is
mode-seeking, which in video damps motion. SGMD takes the fake score's point of view: the
matching objective is a Fisher divergence between the generator's (fake-represented) score
and a stop-gradient teacher score, split into a negative-residual (NR) outer potential for
the generator and a residual-contraction (RC) inner potential for the fake, run at one fake
update per generator step. The paper reports ~3x faster training than DMD2 and stronger motion.

The builder read only the abstract and introduction. Our reconstruction (``method.py``)
derives the generator loss as the exact gradient of the teacher-stop-gradient Fisher divergence
under ideal tracking, through the score identity: that is Score identity Distillation's loss
(alpha = 1/2) with the teacher's Jacobian dropped from the path term. The comparisons therefore
test the SiD-family objective at a 1:1 update ratio, and are marked ``prior-work``.

Review note (after the full run): the paper's method section is reachable through third-party
paper notes (eq. 13, Algorithm 1, the lambda ablation) and a third-party Self-Forcing-based
implementation citing eq. 21-22. SGMD's generator loss is ``L_Fisher + lambda L_NR`` with
``L_Fisher = 1/2 c(t) |D_psi(x_t) - D_T(sg x_t)|^2``, ``c(t) = alpha_t^2 / sigma_t^4``, and
``L_NR = -1/2 |sg(x_g) - D_psi(x_t)|^2``, both reaching the generator *only* through the fake's
input Jacobian (no direct ``x_g`` path, teacher fully stop-gradient); the fake's RC step is
``lambda/2 |sg(x_g) - D_psi(x_t)|^2`` (x0-space DSM), once per generator step; lambda = 0.1.
Our arm is not that loss: it adds SiD's direct ``x_g`` path and the teacher's Jacobian in the
identity term, which makes it closer to the paper's own "TSG-SIM" ablation (teacher
stop-gradient with an exact implicit/identity gradient, 1 fake update) than to SGMD. The
paper's speed and motion headlines are therefore not tested by this package.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_PREFIT_GATE = C.gate("prefit/excess_drop", at_least=5, why="fake pre-fit excess DSM error fell >= 5x")

PAPER = Paper(
    slug="sgmd",
    title="SGMD: Score Gradient Matching Distillation for Few-Step Video Diffusion Distillation",
    source="arXiv:2605.30116",
    cluster="science",
    feasibility="B",
    examples="icml26.science.sgmd.experiment:EXAMPLES",
    substitution=(
        "Keeps: a 4-step student generator (t = 1, 0.75, 0.5, 0.25, x0-prediction with re-noising, "
        "gradient at one random step per update as in DMD2 / self-forcing pipelines), a frozen teacher, a fake "
        "denoiser initialised from a teacher fit (both generator and fake start from it), DMD2 as the baseline "
        "(reverse-KL gradient w (D_fake - D_teacher) with DMD's 1/mean|x - D_T| weighting, 5 fake DSM updates "
        "per generator step) and DMD2 at SGMD's 1:1 ratio, and SGMD's teacher-stop-gradient Fisher objective "
        "under ideal tracking at one fake update per generator step. Replaces: the Wan-class video teacher by "
        "an analytic Gaussian-mixture 'video' teacher (8 frames of a 2-D point, static / slow / fast linear "
        "motion with per-frame jitter; static modes narrow and heavy) with exact rectified-flow score and "
        "denoiser; video quality metrics by sliced W2 (POT) to exact teacher samples, motion by the W1 "
        "distance between per-sample speed distributions and temporal consistency by jerk energy; networks by "
        "batched 2-hidden-layer MLPs; training budget by a count of network passes (forward 1, backward 2, "
        "teacher forward 1) with CPU time per step measured through the shared timing helper. "
        "Reconstructed (the builder found only the abstract and introduction): the NR generator loss "
        "w(|D_fake - sg(D_T)|^2 - 2 (D_fake - D_T).(D_fake(x_t) - x_g)), the exact gradient of the "
        "teacher-stop-gradient Fisher divergence under ideal tracking by the score identity (unit-tested against "
        "autograd on Gaussian generators); with the teacher differentiated in both terms it is SiD's loss at "
        "alpha = 1/2, and the RC inner step is plain DSM on fresh samples; so the speed and motion comparisons "
        "are marked prior-work (they test the SiD-family Fisher gradient at a 1:1 ratio, not the paper's exact "
        "potentials). SGMD's weight is DMD's 1/mean|x_g - D_T| averaged over the batch (a per-sample weight "
        "depending on x_g would bias the identity term). Threshold: halfway between the SW2 of exact teacher "
        "samples of the same size (the teacher sampler's floor) and the 4-step generator's SW2 at the start, "
        "reached when two consecutive evaluations are below it; chosen on dev seeds 0-2, 100 and 101 (not among the "
        "profile's seeds 200-204) because the card's 1.5x the floor was rarely reached at our scale and 1.75x the "
        "floor was reached at the first evaluation (the floor's sampling noise is large at 1,000 samples). "
        "Pre-fit gate: the card's 'DSM loss falls 5x' read as the excess DSM error E|D_fake - D_T|^2, exact "
        "here (the raw DSM loss has an irreducible posterior-variance part). "
        "Human study: not checkable. "
        "Measured in the full run (5 seeds; not part of any rule): SGMD reached the threshold with fewer passes "
        "than DMD2(5) in 5/5 seeds but than DMD2(1) in only 3/5, and DMD2(1) did not end worse than DMD2(5) "
        "(2/5 seeds), so at this scale the 1:1 ratio, not the Fisher objective, carries the saving; every "
        "generator's jerk energy is ~10x the teacher's (per-frame errors of the small networks), and all three "
        "overstate mean speed (0.33-0.36 vs 0.18 per frame) for the same reason. "
        "Added by review after the full run (no stored metric changed): the paper's method is reachable through "
        "third-party paper notes (eq. 13, Algorithm 1, lambda ablation) and a third-party Self-Forcing-based "
        "implementation citing eq. 21-22. SGMD's generator loss is L_Fisher + lambda L_NR, L_Fisher = "
        "1/2 c(t)|D_fake(x_t) - D_T(sg x_t)|^2 with c(t) = alpha_t^2/sigma_t^4 and L_NR = -1/2|sg(x_g) - "
        "D_fake(x_t)|^2, both reaching the generator only through the fake's input Jacobian (no direct x_g path, "
        "teacher fully stop-gradient); the RC fake step is lambda/2 |sg(x_g) - D_fake(x_t)|^2 once per generator "
        "step; lambda = 0.1 (0.5 degrades). Our 'SGMD' arm is therefore not the paper's loss: its direct x_g "
        "path (which carries DMD's own w(D_fake - D_T) term) and the teacher Jacobian in the identity term make "
        "it a SiD/SIM-form objective, close to the paper's own 'TSG-SIM' ablation, not to SGMD. The two "
        "comparative claims stay prior-work for that reason; the paper's speed and motion headlines are not "
        "tested here. Also: the motion metrics are dominated by per-frame jitter (every arm's jerk ~9x and mean "
        "speed ~1.85x the teacher's; DMD2(5) shows no motion damping), and the best DMD2(5) learning rate is the "
        "top of the grid (3e-4) in 5/5 seeds, so the control may be under-tuned."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            "hidden": 32, "batch": 64, "steps": 30, "eval_every": 10, "n_eval": 300, "prefit_steps": 100,
            "prefit_lr": 2e-3, "lr_grid": [3e-4], "lr_fake": 1e-3, "thr_frac": 0.5, "seed_offset": 200,
            "timing_steps": 2}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            "hidden": 64, "batch": 192, "steps": 500, "eval_every": 25, "n_eval": 1000, "prefit_steps": 1500,
            "prefit_lr": 2e-3, "lr_grid": [1e-4, 3e-4], "lr_fake": 1e-3, "thr_frac": 0.5, "seed_offset": 200,
            "timing_steps": 5}),
    },
    claims=(
        Claim(
            id="faster-than-dmd2",
            statement=("SGMD reaches a fixed quality (sliced W2 to the teacher halfway from the 4-step start to the "
                       "teacher sampler's floor, two evaluations in a row) with fewer network passes than DMD2: the ratio of the best DMD2 "
                       "configuration's passes to SGMD's is >= 2 with a bootstrap CI above 1 (partly: CI above 1 "
                       "only). Tests our SiD-form reconstruction at a 1:1 fake-update ratio, not the paper's eq. 21-22 "
                       "(see substitution)."),
            paper_value="~3x training speed-up over DMD2 (4-step Wan video distillation)",
            kind="prior-work",
            control=("DMD2 with 5 and with 1 fake updates per generator step, each at the best generator learning "
                     "rate of the same grid as SGMD"),
            reference=3.0),
        Claim(
            id="stronger-motion",
            statement=("SGMD's per-sample speed distribution is closer (W1) to the teacher's than DMD2's in >= 4/5 "
                       "seeds, with its jerk energy within 10% of the teacher's in >= 80% of seeds (temporal "
                       "consistency kept). Tests our SiD-form reconstruction, not the paper's eq. 21-22 (see "
                       "substitution). 'Closer' is strict: a tie is not a win (margin 1e-6, set by review after the "
                       "full run; no seed is within it, verdict unchanged)."),
            paper_value="substantially stronger motion dynamics than DMD2, temporal consistency preserved (no number)",
            kind="prior-work",
            control="DMD2 with 5 fake updates, at its best learning rate (end SW2)",
            check=C.all_of(
                C.beats_in_seeds("sgmd/speed_w1", "dmd5/speed_w1", better="lower", frac=0.8, margin=1e-6,
                                 label="SGMD speed W1 (strictly; tie rule set by review after the full run)",
                                 control_label="DMD2(5) speed W1"),
                C.threshold("sgmd/jerk_rel_err", at_most=0.1, frac=0.8, label="SGMD |jerk / teacher jerk - 1|"),
            ).gated(_PREFIT_GATE)),
        Claim(
            id="human-preference",
            statement=("Human raters prefer SGMD for motion quality and overall, with visual quality and text "
                       "alignment comparable. Shown instead: the fraction of fast-moving samples (mean speed "
                       "> 0.35 per frame) of SGMD against the teacher's."),
            paper_value="human study: SGMD preferred in motion quality and overall preference",
            kind="headline",
            no_control="a human study; we have no raters",
            uncheckable="a human preference study on generated videos: no raters and no video model here",
            check=C.close("sgmd/fast_frac", to="teacher/fast_frac", tol=0.05, label="SGMD fast-motion fraction")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "Ensemble", "Arm", "distill", "prefit_fake", "sgmd_generator_loss", "dmd2_generator_loss", "dsm_loss",
    "sliced_w2", "generate", "pass_cost")}
_EXPORTS.update({name: ".setting" for name in ("TrajectoryTeacher", "speeds", "jerk_energy", "default_modes")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
