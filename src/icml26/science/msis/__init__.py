"""MSIS: Excited Pfaffians: Generalized Neural Wave Functions Across Structure and State.

arXiv:2603.14515 (ICML 2026). Penalty-based variational Monte Carlo for several electronic
states needs the pairwise overlaps of the states; estimated from each state's own samples,
their noise forces the sample count (and cost) to grow with the number of states.
Multi-State Importance Sampling (MSIS) pools the samples of all states, treats the pool as a
draw from the mixture of the states' densities (with normaliser ratios estimated by bridge
sampling), and reweights it for every pair, so that the sample budget stays nearly constant
in the number of states. Excited Pfaffians (one network that evaluates every state on every
sample) make this affordable; here only the estimator is implemented and reproduced.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_SYSTEMS = ("double_well_1d", "oscillator_2d")
_COMMON = {"systems": list(_SYSTEMS), "eps": 0.3, "extra_basis": 4,
           "ratio_iterations": 10, "target_rmse": 0.01, "min_states_for_gain": 4,
           "grid": {"double_well_1d": 1200, "oscillator_2d": 110},
           "vmc_basis": 12, "vmc_states": 6, "vmc_per_state": 32, "vmc_lr": 0.02, "vmc_penalty": 10.0}


def _near_constant(kind: str) -> C.Check:
    """MSIS's ``kind`` slope ("cost": samples, "eval": wave-function evaluations) in Ns is <= 0.5 and
    below the per-state estimator's, for every system."""
    parts = []
    for s in _SYSTEMS:
        parts.append(C.threshold(f"{s}/{kind}_slope_msis", at_most=0.5, on="mean",
                                 label=f"MSIS {kind} slope in Ns ({s})"))
        parts.append(C.beats(f"{s}/{kind}_slope_msis", f"{s}/{kind}_slope_per_state", better="lower", test="t",
                             label=f"MSIS {kind} slope ({s})", control_label="per-state"))
    return C.all_of(*parts)


PAPER = Paper(
    slug="msis",
    title="Excited Pfaffians: Generalized Neural Wave Functions Across Structure and State",
    source="arXiv:2603.14515",
    cluster="science",
    feasibility="B",
    substitution=(
        "Keeps the MSIS overlap estimator as the authors' code computes it (all chains pooled, "
        "mixture weights psi_i^2 / sum_k psi_k^2/c_k, self-normalised ratio R_ij, symmetrised "
        "S_ij = sign(R_ij) sqrt(R_ij R_ji), normaliser ratios from 10 bridge-sampling linear solves "
        "with ridge 1e-8), the per-state ratio estimator as the control at an equal number N of samples "
        "per state, and the penalty VMC objective sum_s E_s + sum_{i>j} alpha S_ij^2 (constant "
        "lower-triangular alpha = 10). Replaces the molecules (C2, Be) and the Excited Pfaffian network "
        "(MetaGNN + Moon + Pfaffian, 200k natural-gradient steps on GPUs) by toy Hamiltonians diagonalised "
        "exactly on a grid (1-D double well, 2-D anisotropic oscillator); Metropolis chains by exact i.i.d. "
        "draws from psi^2 on the grid; the network by a linear ansatz in 12 harmonic-oscillator functions "
        "trained by Adam (300 iterations, 6 states, 32 samples per state). Cost is counted, not timed: "
        "samples and wave-function evaluations needed for a fixed per-pair overlap RMSE (RMSE ~ N^-1/2); "
        "the paper's Ns^0.14 is GPU wall time, a GPU claim not decided here (CPU timings in "
        "benchmarks/msis.py)."
    ),
    examples="icml26.science.msis.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=3, timeout_s=60, params={
            **_COMMON, "n_states": [2, 4, 8], "n_per_state": 128, "repeats": 30, "vmc_iters": 30}),
        "full": Profile("full", seeds=6, timeout_s=400, params={
            **_COMMON, "n_states": [2, 4, 8, 16], "n_per_state": 256, "repeats": 60, "vmc_iters": 300}),
    },
    claims=(
        Claim(
            id="lower-overlap-error", kind="headline",
            statement="Pooling the samples of all states (MSIS) estimates pairwise overlaps more "
                      "accurately than each state's own samples at the same samples per state.",
            paper_value="stated qualitatively (motivates MSIS; no RMSE table read)",
            control="the per-state ratio estimator on the same samples",
            check=C.all_of(*(C.beats(f"{s}/rmse_msis_large", f"{s}/rmse_per_state_large", better="lower",
                                     at="each", test="t", label=f"MSIS RMSE ({s}, Ns >= 4)",
                                     control_label="per-state RMSE") for s in _SYSTEMS)),
            reference=1.0,
        ),
        Claim(
            id="near-constant-samples", kind="headline",
            statement="With MSIS the number of samples needed for a given overlap accuracy is nearly "
                      "constant in the number of states, while per-state estimation needs linearly more. "
                      "Sixth session (issue 15 audit, text only): what is and is not by construction here. The "
                      "cost is counted in samples, Ns x N_needed, with N_needed read from the measured per-pair "
                      "RMSE at a fixed N per state through the Monte Carlo law RMSE ~ N^-1/2. The per-state "
                      "slope of about 1 follows from that count (each pair's error does not depend on Ns). "
                      "MSIS's slope near 0 does not: it holds only if the pooled, mixture-reweighted estimate's "
                      "per-pair error falls like (Ns N)^-1/2 as states are added, which depends on how much the "
                      "states' densities overlap, and is what is measured. The unit is the paper's mechanism, "
                      "not its headline number (GPU time, near-constant-cost, which counts evaluations, Ns^2 x "
                      "N_needed, and is not decided on CPU).",
            paper_value="the mechanism behind Fig. 1's O(Ns^0.14) training cost (molecules); the paper reports "
                        "GPU time, not samples, so no number of the paper compares with ours",
            control="the per-state ratio estimator",
            check=_near_constant("cost"),
        ),
        Claim(
            id="near-constant-cost", kind="headline", gpu=True,
            statement="With MSIS the cost of training is nearly constant in the number of states, while "
                      "prior methods scale (super)linearly.",
            paper_value="empirical scaling O(Ns^0.14) of GPU training time vs superlinear for prior methods "
                        "(Fig. 1; molecules)",
            control="the per-state ratio estimator",
            check=_near_constant("eval"),
        ),
        Claim(
            id="vmc-energies", kind="headline",
            statement="In multi-state penalty VMC, overlaps estimated by MSIS give more accurate excited-state "
                      "energies than per-state overlaps at the same samples per state.",
            paper_value="qualitative (MSIS enables many states at near-constant cost); the card's plan B",
            control="the same penalty VMC with per-state overlap estimates (same samples, same evaluations)",
            check=C.beats("vmc/energy_err_msis", "vmc/energy_err_per_state", better="lower", test="t",
                          label="penalty VMC with MSIS: mean |E - E_Ritz|",
                          control_label="with per-state overlaps").gated(
                C.gate("vmc/err_drop_msis", at_least=10.0, why="VMC with MSIS reduced its energy error >= 10x"),
                C.gate("vmc/err_drop_per_state", at_least=10.0,
                       why="VMC with per-state overlaps reduced its energy error >= 10x")),
        ),
    ),
)

__getattr__ = lazy_exports(__name__, {
    "per_state_ratio": ".method", "msis_ratio": ".method", "normalizer_ratios": ".method",
    "overlap_from_ratio": ".method", "overlap_penalty": ".method", "triangular_alpha": ".method",
    "eigenbasis": ".setting", "trial_states": ".setting", "draw_samples": ".setting", "pair_rmse": ".setting",
    "sample_grid": ".setting", "penalty_vmc": ".vmc", "double_well_problem": ".vmc",
})
__all__ = ["PAPER", "per_state_ratio", "msis_ratio", "normalizer_ratios", "overlap_from_ratio",
           "overlap_penalty", "triangular_alpha", "eigenbasis", "trial_states", "draw_samples", "pair_rmse",
           "sample_grid", "penalty_vmc", "double_well_problem"]
