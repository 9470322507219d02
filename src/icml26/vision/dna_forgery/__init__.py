"""DNA: Uncovering Universal Latent Forgery Knowledge (Discriminative Neural Anchors, arXiv:2601.22515).

DNA detects AI-generated images without training the backbone: it finds the intermediate layer
where a frozen pretrained model's focus moves from global semantics to local anomalies, scores
that layer's units with a three-term score, keeps the units above the knee of the sorted score
curve (the forgery-discriminative units, FDUs, or anchors) and fits a linear detector on them
from a few labelled images. The package holds the pipeline (`method`: `localize_layer`,
`triadic_scores`, `knee_truncate`, `AnchorDetector`, `dna_fit`) and the small world it is tested
in (`setting`: shipped photo crops, a CNN we pretrain ourselves, five fake-generator families).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_BACKBONE_QUICK = {"widths": [16, 32, 32, 64, 64, 64], "n_crops": 4000, "epochs": 2, "batch": 64, "lr": 2e-3,
                   "short_side": 128}
_BACKBONE_FULL = {"widths": [16, 32, 32, 64, 64, 64], "n_crops": 8000, "epochs": 3, "batch": 64, "lr": 2e-3,
                  "short_side": 128}
_COMMON = {"backbone_seed": 0, "gen_levels": 3, "shots": [8, 32], "layer_shots": 32, "jpeg_shots": 32, "jpeg_quality": 50,
           "spectral_amp": 0.04, "n_boot": 30, "random_draws": 5, "ft_lr": 1e-3, "mask_points": 5, "mask_random": 3}

#: Preconditions, pre-registered: the backbone learned its pretraining task (source photo of a
#: crop, 12 classes, chance 0.083) and every generator network learned to reconstruct crops.
#: Review after the full run: ``_GENS`` and ``_FT`` as registered required ALL seeds, while every
#: claim's own rule counts 4/5 seeds; each missed marginally in one seed (the VAE's MSE fell
#: 1.476x < 1.5x in seed 4; fine-tuning fitted 57/64 = 0.891 < 0.9 of its 32-shot set in seed 2).
#: The claims now use the same gates in >= 4/5 seeds (``_GENS_45``, ``_FT_45``, defined inside
#: ``PAPER``). The definitions below stay as registered: the run fingerprint hashes this module
#: except the ``PAPER`` declaration, so editing them would orphan the stored rows.
_BACKBONE = C.gate("backbone/val_acc", at_least=0.5, why="the backbone learned its pretraining task "
                   "(held-out source-photo accuracy >= 0.5; chance 0.083)")
_GENS = C.gate("gen/min_loss_drop", at_least=1.5,
                why="every generator network trained (reconstruction MSE fell >= 1.5x)")
_FT = C.gate("finetune/min_train_acc", at_least=0.9, why="fine-tuning fitted its shots (training accuracy >= 0.9)")


def _above(n: int, control: str, label: str, margin: float) -> C.BeatsInSeeds:
    return C.beats_in_seeds(f"n{n}/unseen_auc/dna", f"n{n}/unseen_auc/{control}", margin=margin, frac=0.8,
                            label=f"DNA unseen AUC, {n} shots", control_label=f"{label}, {n} shots")


PAPER = Paper(
    slug="dna-forgery",
    title="DNA: Uncovering Universal Latent Forgery Knowledge",
    source="arXiv:2601.22515",
    cluster="vision",
    feasibility="B",
    examples="icml26.vision.dna_forgery.experiment:EXAMPLES",
    substitution=(
        "Keeps: the training-free coarse-to-fine pipeline (a transition layer chosen from feature decoupling and "
        "an attention-distribution shift; a three-term unit score; Kneedle knee truncation of the sorted scores "
        "with kneed; a linear detector on the selected units only, the backbone frozen), the few-shot protocol "
        "(8 and 32 labelled images per class), testing on generator families never seen in the labelled set, the "
        "unit-masking ablation, full fine-tuning and a final-layer linear probe (UnivFD-style) as baselines, JPEG "
        "re-compression (Pillow, quality 50). Replaces: the large pretrained backbones (CLIP/ViT) by a 6-layer CNN "
        "(16-64 channels) that WE pretrained from scratch on one task, which of 12 shipped photos "
        "(scikit-image's astronaut, camera, coffee, chelsea, rocket, coins, moon, immunohistochemistry, brick, "
        "grass; scikit-learn's china and flower) a 32x32 crop comes from; so the 'latent forgery knowledge' "
        "tested is whatever this small backbone learned, never from fakes. Replaces GenImage/ForenSynths/HIFI-Gen "
        "by fakes from five generator families trained in-run on the same crops (briefly: 60 Adam steps, "
        "a 4x4 latent, so their artefacts are visible to a frozen probe on seen families; this world was changed "
        "after one exploratory full-profile seed, before the stored full run, checks unchanged: the first "
        "generators (8x8 latent, 150 steps, MSE fell 3.6-8.8x) made fakes hard to see for every frozen readout; "
        "a review re-run of that world, seeds 0 and 1 at 32 shots, gave seen-family AUC 0.60/0.56 for DNA and "
        "0.65/0.70 for the final-layer probe, at most 0.73 for any probe, unseen 0.56/0.55 for DNA and "
        "0.55/0.61 for the final-layer probe, fine-tuning 0.60/0.54): "
        "transposed-conv, "
        "nearest-upsampling and bilinear-upsampling autoencoders, a small VAE and a spectral-peak injector "
        "(a cosine pattern added to real crops); seen = transposed-conv and nearest, unseen = bilinear, VAE, "
        "spectral. Readings (the method section was not retrievable): decoupling = cross-validated forensic "
        "probe AUC minus semantic probe accuracy (both rescaled), attention shift = effect size of the spatial "
        "entropy of the channel-mean map, l* = argmax of their min-max normalised sum; unit score = "
        "|Cohen's d| (normalised) x bootstrap stability 1/(1+CV) x (1 - max class correlation); knee by Kneedle "
        "(fallback: units above the mean score). A third-party summary names the three terms activation, "
        "gradient and probe weight; that reading is not implemented. The backbone is pretrained once per "
        "profile (cached on disk); seeds vary the generators, shots and test images. The few shots also serve "
        "for layer localisation and unit scoring; real images with source labels (no forgery labels) serve "
        "for the semantic terms."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_COMMON, "backbone": _BACKBONE_QUICK, "gen_crops": 800, "gen_steps": 60, "gen_width": 8,
            "sem_n": 180, "test_real": 150, "test_per_gen": 50, "mask_shots": 32, "mask_test": 90,
            "ft_steps": 20, "n_boot": 15, "random_draws": 3, "mask_random": 1, "mask_points": 4}),
        "full": Profile("full", seeds=5, timeout_s=600, params={
            **_COMMON, "backbone": _BACKBONE_FULL, "gen_crops": 2000, "gen_steps": 60, "gen_width": 12,
            "sem_n": 360, "test_real": 450, "test_per_gen": 150, "mask_shots": 64, "mask_test": 300,
            "ft_steps": 60}),
    },
    claims=(
        Claim(
            id="anchors-beat-controls",
            statement=("With 8 and 32 labelled shots per class, the detector on the FDUs alone has a higher AUC on "
                       "unseen generator families than k* random units of the same layer, the top-k* units by "
                       "discriminability alone (no stability or semantic term) and a probe on all final-layer "
                       "units (UnivFD analogue). 'Higher' = by at least 0.005 AUC, in >= 4/5 seeds, for each "
                       "control and shot count. ("
                       "Gate revised after the full run by review: all seeds -> 4/5 seeds (it missed marginally in one "
                       "seed: the VAE's reconstruction MSE fell 1.476x < 1.5x in seed 4); the 4 seeds that pass it "
                       "give the same verdict. "
                       "Full run, measured after it: partly. DNA beats random k* units at 8 shots (5/5 seeds) and 32 "
                       "shots (4/5) and the final-layer probe at 32 shots (5/5) but at 8 shots only in 3/5, and does "
                       "not beat |d|-only selection (1/5 and 2/5): at 32 shots the FDUs share 67-83% of their units "
                       "with the top-|d| units, so the stability and semantic terms change one or two units and no "
                       "measurable AUC. Not a pre-registered control, reported by review: the probe on ALL units of "
                       "l* has a higher unseen AUC than the FDUs, 0.693 vs 0.641 at 8 shots and 0.760 vs 0.723 at 32 "
                       "(higher in 5/5 seeds at 32), so DNA's gain over the final-layer probe comes from the layer, "
                       "not from the sparse selection.) (Changed by review after the full run: partly -> "
                       "not-reproduced, the control put in the method's place reads the same partly (the top-k* "
                       "units by |d| alone, put in DNA's place at both shot counts, read exactly DNA's part "
                       "verdicts: above random units at 8 shots and 32 shots, above the final-layer probe at 32 "
                       "shots in >= 4/5 seeds and at 8 shots in 3/5 -- AUC 0.608 and 0.728 against DNA's 0.641 "
                       "and 0.723; the declarative chain had put the final-layer probe there, which read partly "
                       "through beating random units at 8 shots). The check is now hand-written "
                       "(check_anchors_beat_controls: the same rule, needing a part each control, put in DNA's "
                       "place, fails) and the common test puts the |d|-only selection there.)"),
            paper_value="qualitative: superior detection from the anchors alone, also few-shot; ~96.4% accuracy on "
                        "unseen generation architectures (aggregator summary)",
            kind="headline",
            control="random k* units of l*; top-k* by |Cohen's d| only; probe on all final-layer units",
            # the pre-registered rule, unchanged, is check_anchors_beat_controls_rule in experiment.py
            check=None),
        Claim(
            id="beats-fine-tuning",
            statement=("The anchors' detector matches or beats full fine-tuning of the backbone on the same shots: "
                       "unseen-generator AUC >= fine-tuning's (by >= 0.001, so that a tie does not count) at 8 and "
                       "32 shots, in >= 4/5 seeds. ("
                       "Gates revised after the full run by review: all seeds -> 4/5 seeds (each missed marginally "
                       "in one seed: the VAE's MSE fell 1.476x < 1.5x in seed 4; fine-tuning fitted 57/64 = 0.891 "
                       "< 0.9 of its 32-shot set in seed 2, where it still beat DNA by 0.075 AUC, so the miss only "
                       "weakens the control); the 3 seeds that pass both give the same verdict. "
                       "Full run, measured after it: not-reproduced: fine-tuning has the higher unseen AUC in 4/5 "
                       "seeds at both shot counts, 0.693 vs 0.641 at 8 shots and 0.758 vs 0.723 at 32. Fine-tuning "
                       "was not tuned (one learning rate, 60 steps), which can only understate it.)"),
            paper_value="qualitative: 'waking up latent neurons is more effective than extensive fine-tuning'",
            kind="headline",
            control="full fine-tuning of the CNN plus a linear head on the same shots (Adam, BCE)",
            check=C.all_of(_above(8, "finetune", "fine-tuning", 0.001), _above(32, "finetune", "fine-tuning", 0.001)
                           ).gated(_BACKBONE, (_GENS_45 := C.gate(
                               _GENS.key, at_least=_GENS.at_least, frac=0.8,
                               why=_GENS.why + " in >= 4/5 seeds (revised after the full run by review from all "
                                               "seeds)")), (_FT_45 := C.gate(
                               _FT.key, at_least=_FT.at_least, frac=0.8,
                               why=_FT.why + " in >= 4/5 seeds (revised after the full run by review from all "
                                             "seeds)")))),
        Claim(
            id="masking-monotone",
            statement=("Mean-ablating the top-m FDUs of l* in the forward pass lowers the unseen AUC of the "
                       "(refitted) final-layer probe monotonically in m: Spearman(m, AUC) <= -0.8 in >= 4/5 seeds, "
                       "and the drop at m = k* exceeds 3x the drop from masking m random units of l* (by >= 0.01 "
                       "AUC) in >= 4/5 seeds. ("
                       "Gate revised after the full run by review: all seeds -> 4/5 seeds (it missed marginally in one "
                       "seed: the VAE's reconstruction MSE fell 1.476x < 1.5x in seed 4); the 4 seeds that pass it "
                       "give the same verdict. "
                       "Full run, measured after it: not-reproduced: Spearman <= -0.8 in 0/5 seeds (range -0.6 to "
                       "0.7) and the FDU drop beats 3x the random drop in 1/5; on average the final-layer probe "
                       "gains 0.012 AUC when the FDUs are masked. The probe read here is weak (unmasked unseen AUC "
                       "0.57-0.71), so the test has little room, but in the two seeds with the most room (0.66, "
                       "0.71) masking all k* FDUs moved it by +0.069 and -0.012, no more down than masking as many "
                       "random units (+0.045, -0.019).)"),
            paper_value="qualitative: masking FDUs gives a monotonic decline in detection performance",
            kind="headline",
            control="masking the same number of random units of l*",
            check=C.all_of(
                C.threshold("mask/spearman_fdu", at_most=-0.8, frac=0.8, label="Spearman(m, AUC), FDU masking"),
                C.beats_in_seeds("mask/fdu_drop", "mask/random_drop_x3", margin=0.01, frac=0.8,
                                 label="AUC drop, FDUs masked", control_label="3x AUC drop, random units masked"),
                partly="any").gated(_BACKBONE, _GENS_45)),
        Claim(
            id="layer-localisation",
            statement=("The layer DNA localises is (nearly) the best layer for detection: the all-unit probe on l* "
                       "is within 0.02 unseen AUC of the best layer's (oracle, chosen on the test set) in >= 4/5 "
                       "seeds, and closer to it than a random layer is on average (by >= 0.005) in >= 4/5 seeds; "
                       "32 shots. ("
                       "Gate revised after the full run by review: all seeds -> 4/5 seeds (it missed marginally in one "
                       "seed: the VAE's reconstruction MSE fell 1.476x < 1.5x in seed 4); the 4 seeds that pass it "
                       "give the same verdict. "
                       "Full run, measured after it: partly: within 0.02 of the oracle in 3/5 seeds (gaps 0.073 and "
                       "0.059 in the others), closer than a random layer in 4/5 (seed 1 misses the 0.005 margin by "
                       "0.0004). l* is the backbone's second layer in 4/5 seeds and its first in one; the few-shot "
                       "forensic probe term alone (argmax of F_l) picks the same layer in 5/5 seeds, so the "
                       "semantic and attention-shift terms did not change the choice.)"),
            paper_value="qualitative: the critical intermediate layers are where focus moves from global "
                        "semantics to local anomalies",
            kind="headline",
            control="a layer drawn uniformly at random (its expected gap to the oracle layer)",
            check=C.all_of(
                C.threshold("layer/gap_chosen", at_most=0.02, frac=0.8, label="oracle AUC - l* AUC"),
                C.beats_in_seeds("layer/gap_chosen", "layer/gap_random", margin=0.005, frac=0.8, better="lower",
                                 label="gap of l*", control_label="gap of a random layer"),
                partly="any").gated(_BACKBONE, _GENS_45)),
        Claim(
            id="benchmark-numbers",
            statement=("Benchmark accuracies: GenImage average 96.5, ForenSynths mean 97.2, HIFI-Gen SDv2.1 96.2, "
                       "96.4% on unseen architectures, 92.4% under heavy JPEG. Our balanced accuracy on unseen "
                       "families and under JPEG quality 50 (32 shots) are shown for orientation only."),
            paper_value="GenImage 96.5; ForenSynths 97.2; HIFI-Gen SDv2.1 96.2; unseen 96.4%; heavy JPEG 92.4% "
                        "(aggregator summaries)",
            kind="headline",
            no_control="benchmark numbers on data and backbones we do not have",
            uncheckable="needs GenImage, ForenSynths, HIFI-Gen and CLIP-class pretrained backbones, none available",
            check=C.all_of(C.threshold("unseen_acc/dna", at_least=0.9, label="balanced accuracy, unseen families"),
                           C.threshold("jpeg/dna_acc", at_least=0.9, label="balanced accuracy, JPEG q50"))),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "cohens_d", "semantic_redundancy", "triadic_scores", "knee_truncate", "spatial_entropy", "localize_layer",
    "AnchorDetector", "select_anchors", "dna_fit", "auc")}
_EXPORTS.update({name: ".setting" for name in (
    "SOURCES", "GENERATORS", "SEEN", "UNSEEN", "BackboneConfig", "Backbone", "pretrain_backbone",
    "train_generator", "sample_crops", "load_sources", "jpeg")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
