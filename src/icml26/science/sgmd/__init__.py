"""SGMD: Score Gradient Matching Distillation for Few-Step Video Diffusion Distillation (arXiv:2605.30116).

DMD-style distillation trains a few-step generator with the gap between a "fake" score,
refitted to the generator's own samples, and the teacher's score; the fake must keep up with
a moving generator (DMD2 refits it 5 times per generator step), and reverse-KL matching is
mode-seeking, which in video damps motion. SGMD takes the fake score's point of view: the
generator minimises the teacher-stop-gradient Fisher divergence ``1/2 c(t) |D_fake(x_t) -
D_T(sg x_t)|^2`` (``c = alpha^2 / sigma^4``) plus ``lambda`` times the negative-residual (NR)
potential ``-1/2 |sg(x_g) - D_fake(x_t)|^2``, both reaching the generator only through the fake's
input Jacobian; the fake takes one residual-contraction (RC) step ``lambda/2 |sg(x_g) -
D_fake(x_t)|^2`` per generator step (lambda = 0.1). The paper reports ~3x faster training than
DMD2 and stronger motion.

History: the package was first built from the abstract alone with a Score-identity-Distillation
form loss (kept as the ``sid-form`` ablation arm, close to the paper's TSG-SIM ablation); after a
review located the method (eq. 21-22) through third-party notes and a third-party implementation,
the main arm became the paper's loss and the speed and motion claims became headline again.
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
        "Keeps: a 4-step student generator (t = 1, 0.75, 0.5, 0.25, x0-prediction with re-noising, gradient at "
        "one random step per update as in DMD2 / self-forcing pipelines), a frozen teacher, a fake denoiser "
        "initialised from a teacher fit (both generator and fake start from it); SGMD's losses as eq. 21-22 are "
        "given by third-party notes and a third-party Self-Forcing-based implementation (the arXiv text reachable "
        "to us holds only the abstract and introduction; the build followed a review's reading, and the third review "
        "opened the notes and confirmed it, but found that the authors' released trainer differs: see the end): "
        "generator L = 1/2 c(t)|D_fake(x_t) - D_T(sg x_t)|^2 - (lambda/2)|sg(x_g) - "
        "D_fake(x_t)|^2 with c = alpha_t^2/sigma_t^4, gradient only through the fake's input Jacobian (no direct "
        "x_g path, teacher never differentiated), fake RC step (lambda/2)|sg(x_g) - D_fake(x_t)|^2 once per "
        "generator step, lambda = 0.1; DMD2 as the baseline (reverse-KL gradient w (D_fake - D_teacher) with "
        "DMD's 1/mean|x - D_T| weighting, 5 fake DSM updates per generator step) and DMD2 at SGMD's 1:1 ratio; "
        "the earlier SiD-form reconstruction (direct x_g path, teacher Jacobian in the identity term, batch "
        "weight) as an ablation arm, close to the paper's TSG-SIM variant. Our choices where the sources are "
        "silent: the RC step uses a fresh stop-gradient generator sample like DMD2's fake updates (the arms differ "
        "only in loss and update ratio), t ~ U[0.02, 0.98] for every arm, Adam (beta1 = 0) for every network, "
        "a generator learning-rate grid {1e-4, 3e-4, 1e-3} for every family, each family judged at its best "
        "(grid widened by review before this re-run, since DMD2(5)'s best was the top of the old grid). "
        "Replaces: the Wan-class video teacher by an analytic Gaussian-mixture 'video' teacher (8 frames of a 2-D "
        "point, static / slow / fast linear motion with per-frame jitter; static modes narrow and heavy) with "
        "exact rectified-flow score and denoiser; video quality metrics by sliced W2 (POT) to exact teacher "
        "samples; motion by the W1 distance between per-sample speed distributions, speed = endpoint "
        "displacement / 7 frames (changed by review before the re-run: the former mean per-frame step length "
        "measured jitter, every arm ~1.85x the teacher), and temporal consistency by jerk energy; networks by "
        "batched 2-hidden-layer MLPs; training budget by a count of network passes (forward 1, backward 2, "
        "teacher forward 1) with CPU time per step measured through the shared timing helper. "
        "Threshold: halfway between the SW2 of exact teacher samples of the same size (the teacher sampler's "
        "floor) and the 4-step generator's SW2 at the start, reached when two consecutive evaluations are below "
        "it; chosen on dev seeds 0-2, 100 and 101 (not among the profile's seeds 200-204) in the first build. "
        "Pre-fit gate: the card's 'DSM loss falls 5x' read as the excess DSM error E|D_fake - D_T|^2, exact "
        "here (the raw DSM loss has an irreducible posterior-variance part). Human study: not checkable. "
        "Card vs paper: the card's NR/RC forms (SiD-style Fisher gradient, plain DSM) were guesses; the paper's "
        "eq. 21-22 (as reported) is what the sgmd arm runs. "
        "First build's full run (SiD-form arm as 'SGMD', 2-point grid, old speed metric; not part of any rule): it "
        "reached the threshold with fewer passes than DMD2(5) in 5/5 seeds but than DMD2(1) in 3/5, and DMD2(1) "
        "did not end worse than DMD2(5) (2/5 seeds). "
        "Seen on dev seed 0 before the full run (code and checks unchanged afterwards except the diagnostic "
        "'weight' option, which no profile uses): the eq. 21-22 arm's SW2 rose at every learning rate (0.24 -> "
        "0.32 at 1e-4 in 500 steps) while DMD2 and the SiD form fell to ~0.19; in 200-step probes on that seed the "
        "same arm did not improve with the timestep shift 5 of Self-Forcing pipelines either (0.24 -> 0.25 at "
        "1e-4, -> 0.47 at 3e-4), and with DMD's bounded 1/mean|x_g - D_T| weight in place of c(t) it dipped to "
        "0.21 and rose to 0.26 at 1e-4 (to 0.41 without the NR term, lambda ~ 0), so the route through the fake's "
        "input Jacobian, not only the 1/t^4 weight, fails to train here. "
        "Full run (5 seeds, after the checks were committed; not part of any rule): the eq. 21-22 arm never reached "
        "the threshold (end SW2 0.35-0.49 against a start of 0.25-0.34, worse than the start in 5/5 seeds; its best lr "
        "is 1e-4, the lowest of the grid, in 5/5 seeds), while "
        "DMD2(5) reached it in 5/5, DMD2(1) in 4/5 and the SiD-form ablation in 4/5 (its ratio to the best DMD2 "
        "0.96 on average); the premise held in 3/5 seeds (exactly the 60% bar). The eq. 21-22 arm overstates motion "
        "(mean speed 0.25-0.29 against the teacher's 0.13-0.14; DMD2(5) 0.15-0.17), so its speed W1 is ~3x DMD2(5)'s; "
        "every arm's jerk is 7-11x the teacher's (per-frame errors of the small networks). A unit test shows the "
        "same loss drives a Gaussian generator exactly onto a Gaussian teacher when the fake is the generator's "
        "exact denoiser (ideal tracking), so the failure here is the loss with an imperfect, once-updated MLP fake. "
        "Found by the third review (after the full run): the paper notes that give eq. 21-22 (c(t) = alpha^2/sigma^4, "
        "L_NR = -1/2|r|^2, L_RC = +1/2|r|^2, r = sg(x0) - x_fake, lambda = 0.1, AdamW beta1 = 0, shifted 4-step "
        "timesteps 1000/960/889/727) agree with our sgmd arm, but the authors' released trainer (ModelTC/LightX2V, "
        "lightx2v_train, SgmdTrainer and configs/train/sgmd/*.yaml; the repository the paper names) differs from it: "
        "(a) the Fisher term is weighted by DMD's per-sample 1/mean|x_g - D_T| (stop-gradient), not by c(t), whose "
        "range on our t in [0.02, 0.98] is ~1e10 and lets the lowest noise levels dominate; (b) the NR term is a "
        "stop-gradient pseudo-target whose gradient on D_fake is (D_fake - x_g)/sigma, not (D_fake - x_g); (c) noise "
        "levels are uniform on [0.02, 0.98] then shifted with shift 5 (towards high noise), not uniform; (d) the fake "
        "step is plain velocity flow matching 1/2|v_fake - (eps - x_g)|^2 (x0-space weight 1/sigma^2, no lambda) on a "
        "fresh no-grad generator sample, with a fake learning rate 5x below the generator's (4e-7 vs 2e-6; ours is 10x "
        "above), gradient-norm clipping 10 and AdamW weight decay 0.01; (e) student times 1000/750/500/250 shifted by "
        "5 "
        "(sigma 1, 0.94, 0.83, 0.63; ours 1, 0.75, 0.5, 0.25) and a teacher with CFG 3 (ours is unconditional). Agreed "
        "with ours: the gradient reaches the generator only through the fake's input Jacobian (with its skip term), "
        "the "
        "teacher is never differentiated, one fake update per generator step on a fresh stop-gradient sample. The dev "
        "probes above changed (a) or (c) alone, never the released combination, so the eq. 21-22 arm's failure to "
        "train "
        "is not evidence against SGMD as released; the speed and motion claims are therefore gated on SGMD having "
        "trained (rule revised after the full run by review; on the stored rows both would otherwise read "
        "'not-reproduced')."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            "hidden": 32, "batch": 64, "steps": 30, "eval_every": 10, "n_eval": 300, "prefit_steps": 100,
            "prefit_lr": 2e-3, "lr_grid": [3e-4], "lr_fake": 1e-3, "thr_frac": 0.5, "seed_offset": 200,
            "timing_steps": 2}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            "hidden": 64, "batch": 192, "steps": 500, "eval_every": 25, "n_eval": 1000, "prefit_steps": 1500,
            "prefit_lr": 2e-3, "lr_grid": [1e-4, 3e-4, 1e-3], "lr_fake": 1e-3, "thr_frac": 0.5, "seed_offset": 200,
            "timing_steps": 5}),
    },
    claims=(
        Claim(
            id="faster-than-dmd2",
            statement=("SGMD (eq. 21-22, one RC fake update per generator step) reaches a fixed quality (sliced W2 to "
                       "the teacher halfway from the 4-step start to the teacher sampler's floor, two evaluations in a "
                       "row) with fewer network passes than DMD2: the ratio of the best DMD2 configuration's passes to "
                       "SGMD's is >= 2 with a bootstrap CI above 1 (partly: CI above 1 only). Decided only if the fake "
                       "pre-fit gate passes and DMD2(1) ends worse than DMD2(5) in >= 60% of seeds (the paper's "
                       "premise). Every family gets its best learning rate of {1e-4, 3e-4, 1e-3} (grid widened by "
                       "review before this re-run). Rule revised after the full run by review: also decided only if "
                       "SGMD's "
                       "generator improved on its start (end SW2 below the common start SW2) in >= 60% of seeds; in "
                       "the "
                       "full run it got worse in 5/5 seeds at every learning rate, and our arm differs from the "
                       "authors' "
                       "released trainer in the generator weighting, noise-level sampling and fake loss (see the "
                       "substitution), so the earlier 'not-reproduced' judged a reading of eq. 21-22 that never "
                       "trained, "
                       "not SGMD as its authors run it."),
            paper_value="~3x training speed-up over DMD2 (4-step Wan video distillation)",
            kind="headline",
            control=("DMD2 with 5 and with 1 fake updates per generator step, each at its best generator learning "
                     "rate of the same grid as SGMD"),
            reference=3.0),
        Claim(
            id="stronger-motion",
            statement=("SGMD's per-sample speed distribution (speed = endpoint displacement / 7 frames) is closer (W1) "
                       "to the teacher's than DMD2(5)'s in >= 4/5 seeds, with its jerk energy within 10% of the "
                       "teacher's in >= 80% of seeds (temporal consistency kept). 'Closer' is strict (a tie is not a "
                       "win, margin 1e-6). The speed metric was changed by review before this re-run: the former "
                       "mean per-frame step length measured per-frame jitter, not motion. Gate added after the full "
                       "run "
                       "by review: decided only if SGMD's generator improved on its start in >= 60% of seeds (in the "
                       "full run it got worse in 5/5, and its overstated motion is that of a degraded generator)."),
            paper_value="substantially stronger motion dynamics than DMD2, temporal consistency preserved (no number)",
            kind="headline",
            control="DMD2 with 5 fake updates, at its best learning rate (end SW2)",
            # hand-written since the review after the full run (experiment.check_stronger_motion): the
            # pre-registered W1 and jerk parts, gated on the pre-fit and, since then, on SGMD having trained
            check=None),
        Claim(
            id="human-preference",
            statement=("Human raters prefer SGMD for motion quality and overall, with visual quality and text "
                       "alignment comparable. Shown instead: the fraction of fast-moving samples (speed, endpoint "
                       "displacement / 7, > 0.35 per frame) of SGMD against the teacher's."),
            paper_value="human study: SGMD preferred in motion quality and overall preference",
            kind="headline",
            no_control="a human study; we have no raters",
            uncheckable="a human preference study on generated videos: no raters and no video model here",
            check=C.close("sgmd/fast_frac", to="teacher/fast_frac", tol=0.05, label="SGMD fast-motion fraction")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "Ensemble", "Arm", "distill", "prefit_fake", "sgmd_generator_loss", "rc_fake_loss", "fisher_weight",
    "sid_form_generator_loss", "dmd2_generator_loss", "dsm_loss", "sliced_w2", "generate", "pass_cost")}
_EXPORTS.update({name: ".setting" for name in ("TrajectoryTeacher", "speeds", "step_lengths", "jerk_energy",
                                                 "default_modes")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
