"""MTNL: A Unified Modeling Perspective for Enhancing Tensor Network Learning (ICML 2026 poster 62604).

MTNL brings habits of supervised tensor-network (TN) learning to unsupervised TN problems:
several TNs of different topologies are fused into one model (more expressive than any single
TN), a sparsity prior on the edge ranks of every TN acts as a structure search over all of
them, and a Bernoulli-mask variational posterior over that prior's gates gives uncertainty at
the cost of a few extra forward passes (the dropout connection). Only the abstract is public;
the fusion, the prior and the mask posterior are our reconstructions (``method`` R1-R4).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_IMAGES = ["astronaut", "coffee", "chelsea", "china"]
_FIT = {"lr": 0.02, "tau": 1e-4, "wd": 1e-5, "p_drop": 0.1, "missing": 0.8, "val_frac": 0.1, "equal_rse_tol": 0.05}

#: Gate shared by the photo claims (pre-registered in the issue): MTNL's RSE on the missing entries is at
#: most half of mean imputation's, in >= 75% of the (photo, replicate) seeds.
_RSE_GATE = C.gate("recovery/rse_ratio_vs_mean", at_most=0.5, frac=0.75,
                   why="MTNL's RSE on the missing entries <= 0.5x mean imputation's (the fit recovers the photo)")
# Review (after the full run): the two photo claims below use this gate with its wording extended inline in PAPER
# (threshold, metric and frac unchanged; kept out of module-level code so the stored rows' fingerprint holds). The
# gate is read on MTNL's own test RSE, so it mixes "the photo is recoverable at this size" with "MTNL was fit"; the
# review's re-fits of seeds 0, 2, 6, 7 found MTNL's deterministic RSE on its own training entries (0.25-0.43) about
# equal to its test RSE although it has more parameters (864) than training entries (553): an under-trained fit.

_ARM_LABEL = {"tr": "single TR", "fctn": "single FCTN", "tucker": "single Tucker", "trtr": "TR + TR fusion",
              "cp_tl": "tensorly masked CP", "tucker_tl": "tensorly masked Tucker"}

PAPER = Paper(
    slug="mtnl",
    title="MTNL: A Unified Modeling Perspective for Enhancing Tensor Network Learning",
    source="ICML 2026 poster 62604 (https://icml.cc/virtual/2026/poster/62604; abstract only, no code)",
    cluster="science",
    feasibility="B",
    examples="icml26.science.mtnl.experiment:EXAMPLES",
    substitution=(
        "Keeps the three ingredients the abstract names, each reconstructed (no full text or code exists): "
        "(R1) several TNs of different topologies fused into one model, here a sum of a gated tensor ring (TR) "
        "and a gated fully-connected TN (FCTN); (R2) a structure-search prior, here a diagonal gate on every "
        "edge with a Laplace (L1, proximal soft-threshold) prior and a Gaussian prior on the cores, so edge "
        "ranks (and whole components) are learned by exact zeros; (R3) a Bernoulli-mask variational posterior "
        "on the gates, trained as masked-gate dropout and read out with T Monte-Carlo masks; (R4) the MC mean "
        "is unbiased for the deterministic prediction because every TN is multilinear in its gates. Replaces "
        "the paper's image/video benchmarks by shipped colour photos (scikit-image astronaut, coffee, chelsea; "
        "scikit-learn china), centre-cropped and downsampled to 32x32x3 and tensorized coarse-to-fine to "
        "4x4x8x8x3, 80% of entries missing uniformly at random (90% not run: budget); one seed = one (photo, "
        "replicate) pair, so tests over seeds are over photos x replicates (8 seeds: 2 replicates per photo, "
        "not the issue's 5: the full profile must fit the shared machine). Controls on the same training "
        "entries: the same gated recipe with one structure (TR, FCTN, Tucker) at the largest rank(s) whose "
        "parameter count fits MTNL's (rank picked on a 10% validation split of the observed entries), a "
        "fusion of two TRs (no structural diversity), tensorly's masked CP (ALS) and Tucker (EM) with rank "
        "picked on the same split; for uncertainty a distance-to-observed heuristic and a 5-member deep "
        "ensemble of the same model. Structure search is tested on a planted tensor ring (5^5, bond ranks "
        "2-4-2-4-2, 30 dB, half observed) with one gated TR, not a planted mixture of structures. Adam "
        "on the cores (lr 0.02; 250 steps on the photos), proximal gradient on the gates (step 0.1), tau 1e-4, "
        "wd 1e-5, p 0.1, T 50 on the photos (our choices, not tuned on the photos); on the planted tensor tau 0.05 "
        "and wd 1e-3 (tuned on the planted tensor before the full run), 600 search steps then 300 debiasing steps "
        "with the found structure frozen. Tensor regression: scikit-learn digits 3 vs 8 "
        "(8x8 tensorized to 2x2x4x4, 150 training images per seed, least squares on +-1 labels, inputs centred), "
        "MTNL (TR rank 2 + FCTN rank 2 weight tensor, same recipe, wd 1e-3) against tensorly's CPRegressor and "
        "TuckerRegressor at ranks within its parameter budget. The paper's PEFT experiment and its theoretical "
        "guarantees are not built. Measured after the full run (no check changed): at 32x32 "
        "the recovery gate fails (MTNL RSE / mean imputation's = 0.79 on average, <= 0.5 in 1 of 8 seeds), so the "
        "two photo claims are not decided; their numbers still show MTNL (0.376) behind single TR (0.306), TR + TR "
        "(0.312) and tensorly CP (0.260), ahead only of single FCTN (0.620), while the mask posterior's Spearman "
        "(0.44) exceeds the ensemble's (0.24) and the heuristic's (0.04) at about one fit's cost (1.1x; ensemble "
        "5.0x). Planted ranks: exact in 5 of 8 seeds, a rank-4 edge learned as 3 in the other three (both rank-4 "
        "edges in seed 0; corrected by review). Tensor regression "
        "accuracy 0.984 vs best tensorly regressor 0.982. Full run: 948 s wall at load average 10-12 on 2 cores "
        "(the issue asks for <= 3 min). "
        "Review notes after the full run (stored rows unchanged; only wording and one ungated reading revised): "
        "(a) the recovery gate is read on MTNL's own test RSE; re-fitting seeds 0, 2, 6, 7 with the stored recipe "
        "reproduced the stored RSEs and showed that every gated-recipe arm under-fits its own training entries "
        "(deterministic training RSE: MTNL 0.25-0.43, TR + TR 0.17-0.35, single TR 0.15-0.28, single FCTN up to "
        "0.98), about equal to the test RSE, although MTNL has 864 parameters for 553 training entries; the masked "
        "training loss reaches 0.02-0.06 and ends about 4-8x higher (constant lr 0.02, 250 steps, masks on from "
        "step one). "
        "So the photo claims fail a training premise, not only a difficulty one, and stay not-checkable; the direction "
        "is nevertheless consistently against fusion (MTNL behind TR + TR, the same recipe and parameter count "
        "without structural diversity, in 8/8 seeds, and behind tensorly CP in 8/8). fusion-beats-single's ungated "
        "reading now needs every control (partly='none'). (b) lightweight-uq's ungated pass is confounded: each std "
        "is scored against its own model's errors, and MTNL's (RSE 0.38) are larger than the ensemble mean's (0.30); "
        "the distance heuristic carries little signal under a uniform mask (Spearman 0.04). (c) structure-prior: "
        "+-1 is met by a "
        "constant rank-3 guess; the parameter part carries the claim and its 2.2x size is set by the planted ring. "
        "(d) tensor regression: no rank binds (144 parameters for 64 weights), so the claim shows only that the "
        "fused parametrisation trains, not a benefit of tensor structure."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_FIT, "images": ["china"], "side": 16, "factors": [4, 4], "steps": 60,
            "mtnl": [["tr", 3], ["fctn", 2]], "ranks_tr": [3, 4], "ranks_fctn": [2], "ranks_tucker": [2, 3],
            "ranks_trtr": [2, 3], "n_cand": 1, "ranks_cp_tl": [5], "ranks_tucker_tl": [2], "als_iter": 20,
            "n_ensemble": 3, "T": 10, "T_identity": 200,
            "planted_dims": [4, 4, 4, 4], "planted_ranks": [2, 3, 2, 3], "planted_snr_db": 30.0,
            "planted_missing": 0.5, "planted_rmax": 4, "planted_tau": 0.05, "planted_wd": 1e-3, "planted_steps": 60, "planted_refit_steps": 30,
            "ungated_ranks": [2, 3],
            "reg_pair": [3, 8], "reg_train": 100, "reg_mtnl": [["tr", 2], ["fctn", 2]], "reg_steps": 60,
            "reg_wd": 1e-3}),
        "full": Profile("full", seeds=8, timeout_s=1800, params={
            **_FIT, "images": _IMAGES, "side": 32, "factors": [4, 8], "steps": 250,
            "mtnl": [["tr", 4], ["fctn", 2]], "ranks_tr": [4, 5], "ranks_fctn": [2], "ranks_tucker": [3],
            "ranks_trtr": [4], "n_cand": 2, "ranks_cp_tl": [5, 10], "ranks_tucker_tl": [2, 3],
            "als_iter": 100, "n_ensemble": 5, "T": 50, "T_identity": 500,
            "planted_dims": [5, 5, 5, 5, 5], "planted_ranks": [2, 4, 2, 4, 2], "planted_snr_db": 30.0,
            "planted_missing": 0.5, "planted_rmax": 6, "planted_tau": 0.05, "planted_wd": 1e-3,
            "planted_steps": 600, "planted_refit_steps": 300, "ungated_ranks": [3, 4, 5],
            "reg_pair": [3, 8], "reg_train": 150, "reg_mtnl": [["tr", 2], ["fctn", 2]], "reg_steps": 300,
            "reg_wd": 1e-3}),
    },
    claims=(
        Claim(
            id="fusion-beats-single",
            statement=("Fusing TNs of different topologies (MTNL: TR + FCTN) recovers a partially observed "
                       "tensor better than any single TN, a fusion of two copies of one structure, and "
                       "tensorly's masked CP and Tucker, at no more parameters."),
            paper_value="qualitative: MTNL improves tensor recovery over single-TN models (no numbers found)",
            kind="headline",
            control=("same gated recipe with a single TR / FCTN / Tucker, a TR + TR fusion, tensorly masked CP "
                     "and Tucker, each within MTNL's parameter budget (rank picked on validation)"),
            # partly="none" set after the full run by review (verdict unchanged, not-checkable by the gate): the
            # issue's pass is "below every control", and beating only the weakest arm (single FCTN, itself
            # under-trained) while losing to the other five is not a partial reproduction.
            check=C.all_of(*(C.beats("recovery/mtnl/rse", f"recovery/{a}/rse", better="lower", test="wilcoxon",
                                     label="MTNL", control_label=lab) for a, lab in _ARM_LABEL.items()),
                           partly="none").gated(C.gate(
                "recovery/rse_ratio_vs_mean", at_most=0.5, frac=0.75,
                why=("MTNL's RSE on the missing entries <= 0.5x mean imputation's (the issue's recovery gate: the fit "
                     "recovers the photo; wording revised after the full run by review: at 32x32 it fails both "
                     "because the setting is hard, tensorly CP meets it in 2/8 seeds only, and because the gated "
                     "recipe under-fits, MTNL's RSE on its own training entries about equal to its test RSE in the "
                     "review's re-fits; the ungated reading below was changed by review after the full run from "
                     "partly to "
                     "not-reproduced: the issue's pass is below every control, and MTNL beats only the "
                     "under-trained single FCTN)"))),
        ),
        Claim(
            id="lightweight-uq",
            statement=("MTNL's Bernoulli-mask posterior gives uncertainty that ranks errors better than a "
                       "missingness heuristic, within 0.05 Spearman of a 5-member ensemble, at <= 1.5x the "
                       "cost of one fit."),
            paper_value=("qualitative: lightweight UQ, justified by its connection to dropout, as a scalable "
                         "alternative (no numbers found)"),
            kind="headline",
            control="distance to the nearest observed entry (heuristic); 5-member deep ensemble of the same model",
            check=C.all_of(
                C.beats("uq/mc/spearman", "uq/heuristic/spearman", better="higher", test="wilcoxon",
                        label="MC-mask std", control_label="distance heuristic"),
                C.threshold("uq/gap_vs_ensemble", at_least=-0.05, on="mean",
                            label="Spearman(MC) - Spearman(ensemble)"),
                C.threshold("timing/uq/mc_cost_ratio", at_most=1.5, on="mean",
                            label="(fit + T MC passes) / one fit, wall clock"),
            ).gated(C.gate(
                "recovery/rse_ratio_vs_mean", at_most=0.5, frac=0.75,
                why=("MTNL's RSE on the missing entries <= 0.5x mean imputation's (the issue's recovery gate: the fit "
                     "recovers the photo; wording revised after the full run by review: at 32x32 it fails both "
                     "because the setting is hard, tensorly CP meets it in 2/8 seeds only, and because the gated "
                     "recipe under-fits, MTNL's RSE on its own training entries about equal to its test RSE in the "
                     "review's re-fits)"))),
        ),
        Claim(
            id="structure-prior",
            statement=("The gate prior recovers planted TN edge ranks (within +-1 on every edge) and, at equal "
                       "RSE, the ungated model needs >= 1.5x the parameters."),
            paper_value="qualitative: a more flexible TN structure search prior (no numbers found)",
            kind="headline",
            control="ungated TR at uniform ranks (no prior), smallest rank reaching the gated model's RSE (+5%)",
            check=C.all_of(
                # label extended after the full run by review (rule unchanged): what the +-1 part can and cannot show
                C.threshold("structure/rank_hit_frac", at_least=1.0, frac=0.8,
                            label=("fraction of edges with learned rank within +-1 of the planted rank (review note: "
                                   "with planted ranks 2 and 4 a constant guess of 3 also meets +-1, so the parameter "
                                   "part below carries the claim; exact ranks in 5/8 seeds)")),
                C.beats("structure/gated/params", "structure/ungated/params_at_equal_rse", better="lower",
                        margin=1 / 3, rel_margin=True, test="wilcoxon",
                        label=("gated TR parameters (review note: with exact ranks the 2.2x ratio, 180 vs uniform "
                               "rank 4's 400, is set by the planted 2-4-2-4-2 ring; the test is that search finds a "
                               "structure that small which also reaches the ungated RSE)"),
                        control_label="ungated TR parameters at equal RSE"),
            ),
        ),
        Claim(
            id="structure-prior-guarantees",
            statement="The multi-structure search prior has theoretical guarantees.",
            paper_value="theoretical guarantees (content not public)",
            kind="headline",
            no_control="a theorem, not a measurement",
            uncheckable="the paper's theorem is not public; nothing at our scale decides it",
        ),
        Claim(
            id="mc-mean-unbiased",
            statement=("Every TN is multilinear in its edge gates and each gate sits on one edge, so the mean over "
                       "Bernoulli masks z/(1-p) equals the deterministic prediction; the MC mean converges to it."),
            paper_value="the dropout connection of the UQ mechanism (reconstructed as R4)",
            kind="identity",
            # The bound was 1.5 in the builder's quick runs and set to 3 before the first commit and the full run:
            # when a few gate directions dominate the MC variance the ratio is about |N(0, 1)|, which exceeds 1.5 in
            # 13% of unbiased seeds (all 8 pass with probability 0.32) and 3 in 0.3%. Exactness itself is tested by
            # enumerating every mask of small models (tests/science/test_mtnl.py).
            check=C.threshold("identity/mc_dev_over_se", at_most=3.0,
                              label=("||MC mean - X(lambda)|| in MC standard errors sqrt(sum Var / T) (3-sigma bound; "
                                     "1.5 in the builder's quick runs, set to 3 before the full run, disclosed by "
                                     "review)")),
        ),
        Claim(
            id="tensor-regression",
            statement=("MTNL as the weight tensor of a tensor regression (digits 3 vs 8, least squares on +-1 labels) "
                       "is non-inferior (within 1 accuracy point) to the better of tensorly's CP and Tucker "
                       "regressors at no more parameters, and beats the majority class."),
            paper_value="qualitative: MTNL is effective on tensor regression (no numbers found)",
            kind="headline",
            control="tensorly CPRegressor / TuckerRegressor (better of the two per seed) within MTNL's parameter budget",
            check=C.all_of(
                C.non_inferior("regression/mtnl/acc", "regression/best_tl/acc", margin=0.01, by="ci",
                               label=("MTNL regression accuracy (review note after the full run, rule unchanged: "
                                      "no rank binds here, MTNL's 144 parameters exceed the 64 weights, tensorly "
                                      "Tucker at rank 4 is full, and plain ridge on the 64 pixels scores 0.978-0.986 "
                                      "on the same splits, alpha 1e-3 to 1)"),
                               control_label="best tensorly regressor"),
                C.beats("regression/mtnl/acc", "regression/majority/acc", better="higher", test="wilcoxon",
                        label="MTNL regression accuracy", control_label="majority class"),
            ).gated(C.gate("regression/mtnl/train_acc", at_least=0.9, frac=0.8,
                           why="the MTNL regressor fits its training set (accuracy >= 0.9)")),
        ),
        Claim(
            id="peft",
            statement="A TN adapter built from MTNL is non-inferior (within 1 point) to LoRA at equal parameters.",
            paper_value="qualitative: MTNL is effective on parameter-efficient fine-tuning (no numbers found)",
            kind="headline",
            no_control="not built: the planned control is peft LoRA at equal parameters",
            uncheckable="not built at this scale yet",
        ),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "TensorRing", "FCTN", "Tucker", "MixedTN", "make_tn", "build_mtnl", "fit_mtnl", "predict", "predict_mc",
    "rse", "tensorly_complete")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
