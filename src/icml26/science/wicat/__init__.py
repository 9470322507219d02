"""WiCAT: Cross-Subject Modeling for Widefield Calcium Imaging via Atlas-Aligned Spatiotemporal Tokenization
(ICML 2026 poster 61497; abstract only, no arXiv version or code found).

WiCAT pretrains one transformer, self-supervised, on widefield recordings of many mice. Tokens are
indexed by atlas region and time, so no session-specific input layer is needed; a light head on the
frozen encoder decodes behaviour, zero-shot on unseen subjects, and the model reconstructs left-out
regions. Tokenization, masking, architecture and decoder here are our guesses (labelled G1-G4 in
``method``); the world is a procedural simulator (``setting``).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_GATE = C.gate("gate/wicat_mse_ratio", at_most=0.7, frac=0.8,
               why="WiCAT's masked-token MSE on unseen subjects <= 0.7x the mean predictor's (pretraining worked)")
_GATE_GRID = C.gate("gate/grid_mse_ratio", at_most=0.7, frac=0.8,
                    why="the grid-token control's masked-token MSE <= 0.7x the mean predictor's")


def _stitch_gate(task: str):
    return C.gate(f"gate/stitch_mse_ratio_{task}", at_most=0.7, frac=0.8,
                  why="the stitcher control's masked-patch MSE on the adapted unseen session <= 0.7x the mean "
                      "predictor's")


def _zero_shot(task: str):
    return C.all_of(
        C.threshold(f"zeroshot/{task}/wicat/r2", at_least=0.3, on="mean", label=f"WiCAT zero-shot R2 (task {task})"),
        C.beats(f"zeroshot/{task}/wicat/r2", f"zeroshot/{task}/raw/r2", better="higher", test="wilcoxon",
                label="WiCAT", control_label="pooled ridge on traces"),
        C.beats(f"zeroshot/{task}/wicat/r2", f"zeroshot/{task}/grid/r2", better="higher", test="wilcoxon",
                label="WiCAT", control_label="grid-token model"),
        C.beats(f"zeroshot/{task}/wicat/r2", f"zeroshot/{task}/stitch/r2", better="higher", test="wilcoxon",
                label="WiCAT", control_label="stitcher model (300 frames)"),
    ).gated(_GATE, _GATE_GRID, _stitch_gate(task))


_MODEL = {"n_patches": 4, "patch_len": 8, "n_heads": 4, "lr": 2e-3, "n_pcs": 6, "n_regions": 20}

PAPER = Paper(
    slug="wicat",
    title=("WiCAT: Cross-Subject Modeling for Widefield Calcium Imaging via Atlas-Aligned Spatiotemporal "
           "Tokenization"),
    source="ICML 2026 poster 61497 (https://icml.cc/virtual/2026/poster/61497; abstract only)",
    cluster="science",
    feasibility="B",
    examples="icml26.science.wicat.experiment:EXAMPLES",
    substitution=(
        "Keeps (from the abstract): atlas-grounded region x time tokens with no session- or subject-specific "
        "parameter, self-supervised pretraining across subjects, a frozen encoder with a light (ridge) decoder, "
        "zero-shot continuous-behaviour decoding and left-out-region reconstruction on unseen subjects, transfer to "
        "another task. Guessed (full text not found; labelled G1-G4 in method.py): tokens = z-scored parcel-mean "
        "traces cut into K = 4 patches of P = 8 frames, linear patch embedding + shared region embedding + time "
        "embedding; a pre-norm bidirectional transformer (torch.nn.TransformerEncoder, joint space-time attention; "
        "the shared icml26.nn.transformer is a causal decoder only); SimMIM-style masking (50% random tokens plus, in "
        "30% of windows, one whole region) with MSE on masked tokens; features = concatenated region outputs per "
        "time patch, ridge head (alpha by blocked cross-validation), behaviour decoded at patch (8-frame) resolution. Replaced: the real multi-mouse "
        "Allen-CCF-registered datasets by a procedural world (setting.py): 20 Voronoi parcels on a 32x32 elliptical "
        "cortex, a 6-d latent with rotational dynamics, a large task-irrelevant factor, a nonlinear per-region map "
        "(softplus) with subject gains and subject offsets inside the nonlinearity, a calcium kernel, spatial blur, "
        "haemodynamic contamination with a subject-specific map, pixel noise, and a residual registration error "
        "(sub-pixel shift in [-2, 2] px per session); behaviour is a nonlinear readout of the latent (task B: other "
        "dynamics, other readout). Both the parcel tokens and the grid-patch control's tokens (6x6-px patches, about "
        "as many tokens as parcels) are computed on the same registered frame. Model size d = 32, 1 layer (2 layers "
        "until the budget revision below), 400 pretraining steps of 32 windows (peak lr 1.5e-2) from 6 training mice (vs a large model on many mice); every "
        "pretrained arm (WiCAT, grid tokens, stitcher) gets the same width, optimiser, lr, steps and seed; the "
        "from-scratch single-session control keeps lr 2e-3. cebra (optional peer) is not installed and not run; real "
        "data (pynwb, allensdk) would need downloads. "
        "Run history (not hidden): the first full run (300 steps of 16 windows, lr 2e-3) and the second (600 steps) "
        "both failed the pre-registered training gate (masked-token MSE <= 0.7x the mean predictor's in >= 4/5 "
        "seeds): met in 2/5 seeds both times (600 steps: 0.66, 0.67, 0.77, 0.72, 0.73), so every claim was "
        "not-checkable. Reachable bound, measured on dev seeds 100-102 only (never on the full profile's seeds 0-4): "
        "an oracle that knows the simulator's latents (z, u, haemodynamics, shift) and misses only pixel noise has "
        "ratio 0.011, so the world's unpredictable noise is far below the bar and was left unchanged; the same model "
        "trained 2400 steps x 16 windows at lr 2e-3 reaches 0.35 on seed 100 (600 steps: 0.575), i.e. the bar "
        "measured under-training. At 400 steps x 32 windows the ratio on dev seed 101 was 0.85 / 0.78 / 0.63 / 0.60 "
        "at lr 2e-3 / 5e-3 / 1e-2 / 1.5e-2; at lr 1e-2 seeds 100 and 102 gave 0.45 and 0.81 (the gate is not met "
        "on every dev world). The third run therefore uses 400 steps x 32 windows at lr 1.5e-2 for all three "
        "pretrained arms; checks, gates and thresholds are unchanged. The simulator's code was made faster (blur and "
        "shift applied once to each region's footprint, AR(1) loops as filters) with bit-identical movies. The third full run (16 min wall, "
        "2 jobs, load 14-19 on 2 cores) meets the gate in 5/5 seeds (0.49, 0.65, 0.62, 0.69, 0.59; grid and stitcher "
        "gates also met), so the claims are decided: WiCAT + ridge loses to the same transformer trained from scratch "
        "at 150 and 300 labelled frames (it wins at 600, which no check uses), zero-shot R2 0.41 is above 0.3 and "
        "above the grid and stitcher models but level with pooled ridge on raw traces (0.41), left-out-region 0.30 "
        "vs ridge 0.63, task-B transfer R2 0.24 < 0.3. "
        "Rule revised after the full run by the lead engineer on this review's finding (no run code changed): the "
        "issue's pass rules for beats-single-session and cross-task define no partial pass, so both now read "
        "all-or-nothing (partly='none'); they were partly under the house default (partly if any part passes), "
        "resting on the weaker controls only (session PCA + ridge; the grid model). "
        "Review notes (after the full run; no check changed): per part, beats-single-session loses to the same transformer from scratch in 4/5 seeds at 150 and at 300 frames and beats only session PCA + ridge (4/5 at 150, 3/5 at 300), so its partly rests on the weaker, linear control; zero-shot passes the R2 bar and beats the stitcher (Wilcoxon p = 0.031), ties pooled ridge (p = 1) and is not significantly above the grid model (p = 0.16); cross-task fails the R2 bar and is below pooled ridge in 5/5 seeds, and its partly rests only on beating the grid model (the house all_of rule: partly if any part passes). The frozen features are C x d = 640 numbers per time patch and the ridge head sees about 60 (150 frames) or 140 (300 frames) rows; on dev seed 100 a random-init frozen encoder + the same ridge gave R2 -0.27 / -0.29 at 150 / 300 frames vs -1.60 / -1.22 for the pretrained one, so the single-session comparison mixes the head with pretraining. On dev seeds 100-101 the readout is strongly nonlinear in the latent (ridge on the true latent 0.72-0.82 vs cubic features 0.96-0.98 on task A; 0.04-0.07 vs 0.55-0.60 on task B), but an MLP on the pooled raw trace windows does not beat pooled ridge (0.64 vs 0.64, 0.43 vs 0.52 on task A), so at this data size the bottleneck is recovering the latent from the traces, not the linear readout. The stitcher control cannot gain anything in this world (parcels are already aligned across subjects) and adapts its new session for 40 steps at lr 5e-3 from identity + noise, so beating it is close to built in. The gate (0.7 x the mean predictor) is met while the encoder still reconstructs a whole hidden region worse than instantaneous ridge from the other regions (R2 0.30 vs 0.63); the dev runs show it far from converged (ratio 0.35 on seed 100 after 2400 x 16 windows, 3x the full profile's windows), so left-out-region is not-reproduced at this training budget. Runtime: the full profile did not meet the issue's 3-minute target (seed 4 alone 105 s at low load). "
        "Budget revision (after the review; decided on dev seeds 100-102 only, never seeds 0-4): a cold full seed cost "
        "about 88 s of CPU (pretraining 53 s: 3 models x 400 steps x 32 windows at about 40 ms a step; the rest mostly "
        "RidgeCV's 8 alphas x k folds refits and the budget-600 arms). Changes: (1) the blocked-CV ridge now picks the "
        "same alpha as RidgeCV(cv=KFold) with one eigendecomposition per fold (tested against RidgeCV; on dev seed "
        "100 every metric agrees to 1e-12); (2) the encoder has 1 layer instead of 2 for every arm (same d, steps, "
        "windows, lr; a step costs about 25 ms instead of 40): on the hardest dev seed 101 its gate ratio is 0.575 "
        "(2 layers: 0.60), whereas cutting the 2-layer model to 250 steps failed the gate on seeds 101 and 102 "
        "(0.76, 0.83) and 300 steps at lr 2.5e-2 cost more CPU than the 1-layer model; (3) the 600-frame budget, "
        "reported only and used by no check, is dropped. Checks, gates and thresholds are unchanged. Added as "
        "reported arms outside every pass rule (what pretraining buys): the pretrained encoder fine-tuned end to end "
        "with the from-scratch control's recipe (same steps, lr, seed, batches), and a random-init frozen encoder + "
        "the same ridge head (single-session and zero-shot). "
        "Fourth full run (1 layer; written after it, no check changed): gates met in 5/5 seeds (WiCAT 0.46-0.64, "
        "grid 0.42-0.60, stitcher A 0.54-0.67). beats-single-session not-reproduced: WiCAT + ridge beats scratch in "
        "4/5 and PCA in 5/5 seeds at 150 frames (R2 0.07 vs 0.04 / -0.11) but only 2/5 and 3/5 at 300 (0.12 vs "
        "0.15 / 0.10). zero-shot partly: R2 0.42 > 0.3, above grid (0.33) and stitcher (0.31) in 5/5 seeds "
        "(Wilcoxon p = 0.031 each), level with pooled ridge (0.41, p = 0.22). left-out-region not-reproduced "
        "(0.33 vs 0.63). cross-task not-reproduced (0.24 < 0.3; below pooled ridge 0.27 in 5/5 seeds). "
        "Reported arms: the random-init frozen encoder + ridge is about as good as the pretrained one (single "
        "session 0.10 vs 0.07 at 150 frames, 0.04 vs 0.12 at 300; zero-shot A 0.39 vs 0.42, p = 0.16; task B "
        "0.28 vs 0.24), i.e. pretraining buys little over random 640-d features at this scale; fine-tuning the "
        "pretrained encoder with the scratch recipe is worse than training from scratch (-0.09 vs 0.04 at 150, "
        "-0.03 vs 0.15 at 300; better in 2/5 seeds each). "
        "Cost from a cold cache, one seed per process with one thread, imports included: 53.8, 49.6, 48.2, 54.5, "
        "47.0 s of CPU for seeds 0-4 (253 s in all; load average 2-19 on the shared 2 cores); the runner's cold "
        "full run (2 jobs) took 820 s wall at load 13-18."),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_MODEL, "n_subjects": 4, "n_train": 3, "n_frames": 600, "d_model": 16, "n_layers": 1,
            "steps": 40, "batch": 16, "pretrain_lr": 1.5e-2, "sup_steps": 10, "adapt_steps": 10, "stitch_frames": 300,
            "budgets": [150, 300]}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            **_MODEL, "n_subjects": 8, "n_train": 6, "n_frames": 1200, "d_model": 32, "n_layers": 1,
            "steps": 400, "batch": 32, "pretrain_lr": 1.5e-2, "sup_steps": 40, "adapt_steps": 40,
            "stitch_frames": 300,
            "budgets": [150, 300]}),
    },
    claims=(
        Claim(
            id="beats-single-session",
            statement=("On an unseen subject's session with 150 or 300 labelled frames, the frozen pretrained "
                       "encoder + ridge decodes behaviour better than single-session models: the same transformer "
                       "trained from scratch on those frames, and session PCA + ridge. (Rule revised after the "
                       "third full run, disclosed here by the budget-pass review: all parts must hold "
                       "(partly='none', the issue's rule); under the house default the third run was partly on the PCA "
                       "control alone, and the fourth would be partly on the 150-frame parts.)"),
            paper_value="qualitative (abstract): WiCAT outperforms single-session models; no number public",
            kind="headline",
            control=("same transformer from scratch on the target session; session PCA + ridge (reported outside "
                     "the rule: pretrained encoder fine-tuned, single/finetune/r2_*; random-init frozen encoder + "
                     "ridge, single/randinit/r2_*)"),
            check=C.all_of(*(C.beats_in_seeds(f"single/wicat/r2_{n}", f"single/{a}/r2_{n}", frac=0.8,
                                              label=f"WiCAT+ridge ({n} frames)", control_label=f"{a} ({n} frames)")
                             for n in (150, 300) for a in ("scratch", "pca")), partly="none").gated(_GATE)),
        Claim(
            id="zero-shot",
            statement=("A ridge head fit on training subjects, applied with no update to unseen subjects, decodes "
                       "continuous behaviour with R^2 > 0.3 and better than pooled ridge on raw parcel traces, the "
                       "grid-token model and a per-session-stitcher model given 300 unlabelled frames. (Changed by "
                       "review after the full run: partly -> not-reproduced, the control put in the method's place "
                       "reads the same partly (pooled ridge on raw traces in WiCAT's place: R^2 0.408 >= 0.3, above "
                       "the grid-token model, p=0.0312, and above the stitcher, p=0.0312 -- every part WiCAT passes; "
                       "WiCAT 0.420 vs ridge 0.408, +0.0126 [-0.0078, 0.0332], p=0.219, higher in 3/5 seeds). The "
                       "check is now hand-written (check_zero_shot: the same declarative rule, partly needing a part "
                       "each control fails) and the common test puts the pooled ridge, not the stitcher, in WiCAT's "
                       "place.)"),
            paper_value="qualitative (abstract): robust zero-shot continuous behaviour decoding on unseen subjects",
            kind="headline",
            control=("pooled ridge on raw traces; grid-patch-token model; per-session stitcher model (300 frames) "
                     "(reported outside the rule: random-init frozen encoder + pooled ridge, zeroshot/A/randinit/r2)"),
            check=None),
        Claim(
            id="left-out-region",
            statement=("With every token of one atlas region hidden, the pretrained model reconstructs that region "
                       "on unseen subjects better than ridge from the other regions fit on training subjects "
                       "(R^2 averaged over regions)."),
            paper_value="qualitative (abstract): left-out brain region reconstruction on unseen subjects",
            kind="headline",
            control="ridge from the other regions, fit on training subjects",
            check=C.beats_in_seeds("region/wicat/r2", "region/ridge/r2", frac=0.8, label="WiCAT",
                                   control_label="ridge from other regions").gated(_GATE)),
        Claim(
            id="cross-task",
            statement=("The encoder pretrained on task A transfers to task B (other latent dynamics, other "
                       "behaviour): zero-shot decoding on unseen subjects with R^2 > 0.3 and above each control. "
                       "(Rule revised after the third full run, disclosed here by the budget-pass review: all parts "
                       "must hold (partly='none', the issue's rule); under the house default it was partly on the "
                       "grid-token control alone.)"),
            paper_value="qualitative (abstract): transfers across subjects, tasks and datasets",
            kind="headline",
            control="pooled ridge on raw traces; grid-patch-token model; per-session stitcher model (300 frames)",
            check=C.all_of(_zero_shot("B"), partly="none")),
        Claim(
            id="cross-dataset",
            statement="The pretrained model transfers across widefield datasets (labs, rigs, indicators).",
            paper_value="qualitative (abstract): transfers across datasets and outperforms baseline models",
            kind="headline", no_control="not decidable here",
            check=C.threshold("zeroshot/B/wicat/r2", at_least=0.3, on="mean",
                              label="what we can show: zero-shot R2 on the simulated transfer task"),
            uncheckable="needs several real widefield datasets; one simulated world cannot stand in for them"),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "EncoderConfig", "TokenEncoder", "make_windows", "patch_targets", "pretrain", "encode", "reconstruct_region",
    "ridge_fit", "StitchedEncoder", "pretrain_stitched", "adapt_stitcher", "train_supervised")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
