"""LightAVSeg: Lightweight Audio-Visual Segmentation (arXiv:2605.08805).

Audio-visual segmentation predicts the mask of the objects that sound in a frame. LightAVSeg
replaces dense cross-modal attention (cost quadratic in the number of visual tokens) by a
decoupled interaction: the audio embedding gates the visual channels (semantic filtering,
"what") and an audio query scores every position of the filtered features (spatial grounding,
"where"), both linear in H*W; a training-only alignment loss pulls audio and visual semantics
together at no inference cost. The package holds the model and its controls (`method`: dense
attention, concat fusion, no audio on the same backbone), the generated sounding-object scenes
(`setting`) and the experiment (`experiment`).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_AUDIO_ARMS = {"light": "LightAVSeg", "light_align": "LightAVSeg + alignment loss", "attention": "dense attention",
               "concat": "concat fusion"}
#: Pre-registered gates. The audio gate (issue 26): every audio-conditioned arm beats the audio-free
#: model by >= 15 mIoU points on distractor frames (in >= 4/5 of the seeds); training gates: the
#: segmentation loss of each arm fell >= 1.5x from the first to the last tenth of training.
_AUDIO_GATES = tuple(C.gate(f"gap/{a}", at_least=15.0, frac=0.8,
                            why=f"{name} uses the audio (>= 15 mIoU points over audio-free on distractor frames)")
                     for a, name in _AUDIO_ARMS.items())
_TRAINED = tuple(C.gate(f"train/{a}/loss_drop", at_least=1.5, frac=1.0, why=f"{a} trained (segmentation loss fell 1.5x)")
                 for a in ("light", "light_align", "attention", "concat", "none"))

_COMMON = {"size": 32, "batch": 32, "lr": 3e-3, "align_weight": 0.1,
           "arms": ["light", "light_align", "attention", "concat", "none"]}

PAPER = Paper(
    slug="lightavseg",
    title="LightAVSeg: Lightweight Audio-Visual Segmentation",
    source="arXiv:2605.08805",
    cluster="vision",
    feasibility="B",
    examples="icml26.vision.lightavseg.experiment:EXAMPLES",
    substitution=(
        "Keeps: the decoupled interaction (audio embedding -> sigmoid channel gate on the visual features, "
        "'what'; audio query dot product with a 1x1-conv key map, fused back by a 1x1 conv, 'where'), linear in "
        "H*W, applied at the stride-4 and stride-8 scales of a multi-scale encoder with an FPN-style decoder; BCE + "
        "Dice loss; a training-only audio-visual alignment loss whose projection heads are not deployed; the "
        "comparison with dense attention fusion (AVSegFormer-like: visual self-attention + cross-attention to "
        "audio frame tokens) and with naive concat fusion (tiled audio embedding concatenated, per-pixel MLP; a "
        "development run on a separate data seed showed that a single 1x1 conv after the concatenation did not "
        "use the audio at all, so the control got a hidden ReLU layer before any claim was run) on the same "
        "backbone; mIoU (mean per-frame IoU, "
        "AVSBench's M_J) on a multi-source (MS3-like) test set; cost against resolution. "
        "Replaces: AVSBench videos by generated 32x32 frames with 2-4 objects of six look-alike classes (3 shapes "
        "x 2 colours), 1-3 of them sounding and the rest silent distractors (20% of frames without "
        "distractors), audio = mixture of the sounding classes' harmonic tones (fundamentals 1-2 semitones apart, "
        "overlapping spectra) plus white noise at 10 dB SNR, 0.25 s at 8 kHz, 32-band log-mel through librosa's "
        "filterbank; SeaFormer and VGGish (pretrained) by a from-scratch 3-stage CNN (~80k parameters) and a "
        "small audio CNN; training by 250 Adam steps (lr 3e-3) of batch 32 on 1,200 scenes, every arm from the same "
        "initialisation and batch order; the Snapdragon 8 Elite by a CPU core, timing only the interaction "
        "module at 64-256 px (batch 1). Readings (the formulas are not in the text we could retrieve): sigmoid "
        "gating rather than FiLM, grounding at both fused scales, the alignment loss as a symmetric InfoNCE "
        "(temperature 0.1) between visual features pooled inside the ground-truth mask (stride 4, before the "
        "gating) and the audio embedding, weight lambda = 0.1."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={**_COMMON, "n_train": 160, "n_test": 60, "steps": 12,
                                                    "batch": 16, "cost_px": [64, 128, 256],
                                                    "timing_px": [64, 96, 128], "timing_repeats": 2},
                         timeout_s=120),
        "full": Profile("full", seeds=5, params={**_COMMON, "n_train": 1200, "n_test": 400, "steps": 250,
                                                  "cost_px": [64, 96, 128, 192, 256],
                                                  "timing_px": [64, 128, 192, 256], "timing_repeats": 3},
                        timeout_s=1200),
    },
    claims=(
        Claim(
            id="accuracy-linear-cost",
            statement=("The linear-cost interaction segments the sounding objects as well as dense cross-modal "
                       "attention on the same backbone (mIoU difference: lower end of the 95% t interval over "
                       "seeds > -2 points) and better than naive concat fusion (in >= 4/5 seeds), on the "
                       "multi-source set. Decided, as pre-registered, for the interaction trained without the "
                       "alignment loss. (Measured after the full run, not pre-registered: with the alignment loss, "
                       "as the paper deploys it, LightAVSeg reaches 74.6 mIoU against dense attention's 68.5 "
                       "without it, higher in 4/5 seeds; the attention arm was not given the alignment loss, which "
                       "acts on the encoder only and could have been.) Review after the full run: the 'partly' "
                       "comes from the concat half alone (above concat in 3/5 seeds, mean +0.9 points: a tie); "
                       "the attention half failed for lack of power, not because LightAVSeg was shown worse: the "
                       "paired difference varies by 5.8 points (sd) over seeds, so the 95% interval is +-7.2 "
                       "points and equal accuracy could not have met the -2 margin with 5 seeds. Our runs do not "
                       "separate the three fusions (66.5 / 68.5 / 65.6). Rule revised after the full run by "
                       "review: 'above concat' needs a difference > 0.01 points (margin 0 counted exact ties as "
                       "wins, so the control put in the method's place passed that half); no verdict changed."),
            paper_value=("qualitative: accuracy comparable to R50-based attention models while replacing their "
                         "O(N^2) interaction; 50.4 MS3 mIoU, new state of the art among lightweight AVS methods"),
            kind="headline",
            control="dense attention fusion (AVSegFormer-like) and concat fusion, same backbone, decoder, loss",
            check=C.all_of(
                C.non_inferior("ms3/light/miou", "ms3/attention/miou", margin=2.0, label="LightAVSeg mIoU",
                             control_label="dense attention"),
                C.beats_in_seeds("ms3/light/miou", "ms3/concat/miou", margin=0.01, frac=0.8, label="LightAVSeg mIoU",
                                 control_label="concat fusion"),
            ).gated(*_AUDIO_GATES, *_TRAINED)),
        Claim(
            id="linear-flops",
            statement=("The interaction's FLOPs grow linearly with the number of pixels (log-log slope in "
                       "[0.9, 1.1]), dense attention's quadratically (slope in [1.7, 2.1]); counted by fvcore "
                       "at 64-256 px."),
            paper_value="interaction cost O(H W) for LightAVSeg vs O((H W)^2) for dense attention",
            kind="identity",
            check=C.all_of(C.slope("cost/pixels", "cost/flops/light", within=(0.9, 1.1),
                                   label="LightAVSeg FLOP exponent"),
                           C.slope("cost/pixels", "cost/flops/attention", within=(1.7, 2.1),
                                   label="dense attention FLOP exponent"))),
        Claim(
            id="wallclock-ratio-grows",
            statement=("On a CPU core the wall-clock advantage of the light interaction over dense attention grows "
                       "with resolution (64-256 px): the log-log slope of its time on the pixel count is lower "
                       "than attention's by more than 0.25."),
            paper_value="linear vs quadratic scaling of the interaction (no CPU timing in the paper)",
            kind="headline", control="the dense-attention module timed in the same run",
            check=C.beats("timing/slope/light", "timing/slope/attention", better="lower", margin=0.25,
                          test="wilcoxon", label="LightAVSeg time exponent", control_label="dense attention")),
        Claim(
            id="phone-latency",
            statement=("163.4 ms per frame on a Snapdragon 8 Elite, about 8x faster than AVSegFormer-R50 "
                       "(1271 ms). We show the CPU time of the interaction modules at 256 px instead."),
            paper_value="163.4 ms/frame (Snapdragon 8 Elite) vs 1271 ms for AVSegFormer-R50, ~8x",
            kind="headline", control="the dense-attention module at 256 px on the same CPU core",
            uncheckable="hardware: a mobile SoC and the full models we do not have",
            check=C.beats("timing/light_s_max", "timing/attention_s_max", better="lower", test="wilcoxon",
                          label="LightAVSeg module s @256px", control_label="dense attention")),
        Claim(
            id="alignment-helps",
            statement=("Adding the training-only alignment loss raises mIoU on the multi-source set over the same "
                       "model trained without it (paired over seeds: same initialisation and batches; one-sided "
                       "Wilcoxon). Review note: the loss pools the encoder's stride-4 features inside the "
                       "ground-truth mask, so it is an extra, mask-derived training signal on the encoder and audio "
                       "branch (independent of the interaction module); the control has no auxiliary loss of equal "
                       "weight, so this shows that this auxiliary loss helps at our scale (250 steps, from-scratch "
                       "encoders; it also lowers the training segmentation loss), not that audio-visual alignment "
                       "as such is the cause (an equal-weight auxiliary mask loss or a shuffled-pair InfoNCE was "
                       "not run). With 5 seeds the test's smallest attainable p, 1/32, is the one reached."),
            paper_value="qualitative: the auxiliary alignment loss improves accuracy (ablation values not retrievable)",
            kind="headline", control="the same model and training without the alignment loss",
            check=C.beats("ms3/light_align/miou", "ms3/light/miou", better="higher", test="wilcoxon",
                          label="with L_align", control_label="without L_align").gated(*_AUDIO_GATES, *_TRAINED)),
        Claim(
            id="zero-overhead",
            statement=("The alignment loss costs nothing at inference: the deployed model has the same parameters "
                       "and FLOPs with and without it (its projection heads are training-only). True by "
                       "construction: the heads live outside the deployed AVSegModel, so both arms deploy the same "
                       "class."),
            paper_value="zero inference overhead",
            kind="identity",
            check=C.all_of(C.close("cost/inference_params/light_align", to="cost/inference_params/light", tol=0.0),
                           C.close("cost/inference_flops/light_align", to="cost/inference_flops/light", tol=0.0))),
        Claim(
            id="ms3-benchmark",
            statement="50.4 mIoU on AVSBench MS3 with 20.5M parameters (about 1/7 of AVSegFormer).",
            paper_value="MS3 50.4 mIoU, 20.5M parameters (S4 75.6, AVSS 30.6 per aggregator pages)",
            kind="headline", no_control="a benchmark number, not a comparison",
            uncheckable="benchmark: AVSBench and pretrained SeaFormer/VGGish backbones are not available here; "
                        "our number is on generated scenes with an ~80k-parameter model",
            check=C.threshold("ms3/light/miou", at_least=50.4, label="our generated-scene mIoU (not comparable)")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "AVSegModel", "SemanticFilterGrounding", "DenseAttentionFusion", "ConcatFusion", "NoAudio", "AlignmentHeads",
    "make_interaction", "seg_loss", "alignment_loss", "masked_pool", "frame_iou", "train_model", "predict",
    "interaction_flops", "count_parameters", "INTERACTIONS")}
_EXPORTS.update({name: ".setting" for name in ("make_scenes", "log_mel", "Scenes", "N_CLASSES")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
