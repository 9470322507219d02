"""QHFlow2: Machine Learning Hamiltonians are Accurate Energy-Force Predictors (arXiv 2602.16897).

A machine-learning Hamiltonian (MLH) predicts the converged Kohn-Sham matrix of a geometry; the
paper judges MLHs by the energies and forces that matrix implies (eigensolve, DFT functional at the
predicted density, analytic gradient fed the predicted orbitals) and introduces QHFlow2, a
residual flow-matching MLH on an SO(2)-equivariant backbone. Here the protocol and the residual
flow-matching recipe run on PBE water labelled by PySCF, with a small network in a canonical frame
in place of the equivariant backbone, against MLIP and Delta-MLIP controls of the same width.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_SIZES_FULL = [25, 50, 100, 200]

PAPER = Paper(
    slug="qhflow2",
    title="Machine Learning Hamiltonians are Accurate Energy-Force Predictors",
    source="arXiv:2602.16897",
    cluster="science",
    feasibility="B",
    examples="icml26.science.qhflow2.experiment:EXAMPLES",
    substitution=(
        "Keeps exactly: the benchmark protocol (predicted Fock matrix -> canonical-orthogonalisation eigensolve "
        "dropping S eigenvalues < 1e-8 -> D = 2 C_occ C_occ^T -> E = PySCF mf.energy_tot(D) with no SCF -> "
        "forces from PySCF's analytic RKS gradient fed the predicted (eps, C, occ)); the residual target "
        "H* - H_init with H_init = F[D_minao] (PySCF MINAO guess); flow matching with a N(0, I) prior "
        "(on entry-wise standardised residuals), x_t = (1-t) x0 + t x1, t ~ U[0.01, 1], an endpoint-predicting "
        "network, loss 10*(MAE + MSE) on Hamiltonian entries in Hartree, 3 Euler steps at inference. "
        "Replaces: MD17/rMD17/QH9 (not downloadable here, GPU-scale) by PBE water (an MD17 molecule) at STO-3G "
        "(7 orbitals; def2-SVP labelling took ~3x longer per geometry than the cold-cache budget allows), "
        "PySCF grid level 0, geometries uniform in bond 1.00 +- 0.10 A and angle 101 +- 10 deg in a canonical "
        "frame, labelled at run time and cached under ~/.cache/icml26/qhflow2; the SO(2)-equivariant eSCN "
        "backbone with its two-stage edge update by an MLP (2 hidden SiLU layers) of the three interatomic "
        "distances (the canonical frame replaces equivariance; this only works for a molecule this small); "
        "the MLIP baselines (NequIP, MACE) by an energy MLP of the same width and depth with autograd forces "
        "and an energy + force loss (each term normalised by the training spread, weight 1), and a Delta-MLIP "
        "(same MLP) correcting E[D_minao] trained on energies only (the MINAO functional's own forces would "
        "need finite differences). Train sizes 25-200 (MD17 uses ~1000), test 40 geometries, full-batch Adam "
        "with cosine decay and one step budget (400 steps) for every arm, 5 seeds; the width/checkpoint sweep of the transfer claim is sized down to widths 16/32/64 x checkpoints at 50%/100% of training at n = 100, evaluated on 15 test geometries. Forces use PySCF's grid response (our grid is coarse; without it the analytic forces are not the gradient of the grid energy and net forces reach 0.9 eV/A). The orbital-energy fine-tuning stage "
        "and the eigenvalue 'filtering' of the paper are not used. "
        "Measured after the full run (decides nothing, not pre-registered): the MLH's energy error is ~900x below "
        "the MLIP's (the paper reports up to 20x); an MLIP given 3x the step budget has 0.84 meV and "
        "24 meV/A at n = 200 against the MLH's 0.002 meV and 1.5 meV/A. "
        "Review after the full run (offline on the same cached pool, n = 200, seed-0 subsets; decides nothing): "
        "the 400-step MLIP is far from converged, so the SIZE of the gap is not a finding: the same MLIP with "
        "6000 steps reaches 0.11 meV and 4.8 meV/A, with 2000 steps at lr 2e-2 0.24 meV and 7.0 meV/A, and a "
        "least-squares quartic (quintic) polynomial of the three distances fit to energies and forces reaches "
        "0.14 (0.10) meV and 3.5 (2.6) meV/A; the MLH also improves with budget (2000 steps: 0.0003 meV, "
        "0.48 meV/A). The DIRECTION survives every one of these: against the best of them the MLH is still ~50x "
        "lower in energy and ~2-3x lower in force error. Both arms learn to a similar relative precision (MLH H "
        "error ~0.6% of the residual's spread over geometries, MLIP energy error ~0.9% of the energy's spread); "
        "the energy gap is the stationarity of the functional (energy error second order in the H error, see "
        "perturbation-orders), and its size here is a property of a 7-orbital basis and a 3-D geometry space "
        "(a quadratic polynomial regression of the residual already gives 18 micro-Ha, 0.001 meV, 1.3 meV/A), "
        "not of QHFlow2's network. The training gate (H error <= 0.2x the MINAO guess's, as pre-registered) is "
        "loose: the MINAO error is mostly a geometry-independent offset, and a predictor that learned only the "
        "training mean of the residual (H_init + mean residual; 2269 micro-Ha, 19.6 meV, 151 meV/A) already "
        "passes it at 0.056x; the MLH sits at 0.0005x, about 0.01x the mean-residual predictor's H error, so "
        "training did work. The MLIP's gate (<= 0.5x the mean-energy predictor's error; it sits at 0.012x) does "
        "not detect its under-convergence either. The full run took 80-140 s per seed under a load of ~9 "
        "(~105 s CPU per seed: ~4.5 min for 5 seeds on 2 idle cores, above the issue's 3-minute budget)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_pool": 16, "n_test": 8, "sizes": [8, 16], "width": 32, "steps": 100, "lr": 5e-3,
            "widths": [16, 32], "checkpoints": [0.5, 1.0], "sweep_size": 16, "sweep_test": 4,
            "pert_eps": [1e-3, 1e-2], "pert_geoms": 1, "grid_level": 0, "data_seed": 0, "long_factor": 1},
            timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "n_pool": 200, "n_test": 40, "sizes": _SIZES_FULL, "width": 64, "steps": 400, "lr": 5e-3,
            "widths": [16, 32, 64], "checkpoints": [0.5, 1.0], "sweep_size": 100, "sweep_test": 15,
            "pert_eps": [3e-4, 1e-3, 3e-3, 1e-2], "pert_geoms": 2, "grid_level": 0, "data_seed": 0},
            timeout_s=900),
    },
    claims=(
        Claim(
            id="energy-beats-mlip",
            statement=("Energies computed from the MLH's predicted Hamiltonian are more accurate than those of "
                       "MLIPs trained on the same geometries, at every training-set size."),
            paper_value=("MD17/rMD17: up to 20x lower energy MAE than MLIP baselines; QH9: up to 20x lower than "
                         "MACE (abstract)"),
            kind="headline",
            control=("an MLIP of the same width (energy MLP, autograd forces, NequIP-style E+F loss) and a "
                     "Delta-MLIP learning E* - E[D_minao] (the same physics prior, no Hamiltonian)")),
        Claim(
            id="nequip-level-forces",
            statement=("Forces from the MLH's Hamiltonian (analytic gradient at the predicted orbitals) reach "
                       "the accuracy of an MLIP trained on energies and forces."),
            paper_value="first MLH reaching NequIP-level force accuracy on MD17/rMD17 (abstract)",
            kind="headline",
            no_control=("a non-inferiority ratio against the MLIP: the MLIP is the reference in the ratio's "
                        "denominator (its own ratio is 1 by construction), reported in the measurement; such a "
                        "test is only as strong as its reference, and our 400-step MLIP is under-converged "
                        "(see substitution: a 6000-step MLIP or a polynomial E+F fit has ~2.6-4.8 meV/A, "
                        "ratio ~0.3-0.6)")),
        Claim(
            id="scaling-transfer",
            statement=("Hamiltonian error falls with data and with model capacity, and at a fixed training size "
                       "a lower Hamiltonian error goes with lower energy and force errors."),
            paper_value="consistent scaling with model capacity and data; better H accuracy -> better E and F",
            kind="headline",
            no_control=("a scaling and rank-correlation property within one model family; sizes are not pooled "
                        "for the correlation (pooling sizes would make it trivial)")),
        Claim(
            id="fewer-params-lower-h-error",
            statement="About 40% lower Hamiltonian error than the previous best MLH, with fewer parameters.",
            paper_value="~40% lower H MAE than the previous state of the art on MD17/QH9 (abstract)",
            kind="headline", no_control="a comparison with published MLHs on MD17/QH9",
            uncheckable=("needs the MD17/QH9 benchmarks and the published eSCN/QHNet-scale MLHs, which we cannot "
                         "download or train here; our MLH's parameter count and H error are in the metrics")),
        Claim(
            id="flow-vs-direct",
            statement=("Flow matching on the residual gives a lower Hamiltonian error than direct regression of "
                       "the residual with the same network and budget (QHFlow's ablation). "
                       "(Measured after the full run: at our scale direct regression has about half the flow's H "
                       "error at every size; review, offline at n = 200: with 2000 steps the gap narrows to "
                       "8.5 vs 6.0 micro-Ha. The target is a deterministic function of the geometry, so the flow "
                       "must learn to ignore its 28 noise inputs.)"),
            paper_value="QHFlow (prior work): flow matching improves H MAE over regression",
            kind="prior-work", control="direct regression of H* - H_init",
            check=C.beats("mlh/h_mae", "direct/h_mae", better="lower", at="each", need=0.75,
                          label="flow MLH", control_label="direct regression")),
        Claim(
            id="perturbation-orders",
            statement=("The DFT energy is stationary at the SCF density, so perturbing H* by eps N gives an energy "
                       "error of order eps^2 and a force error of order eps (the reason an MLH's energy can be "
                       "much more accurate than its Hamiltonian)."),
            paper_value="not a table value: the variational argument behind the paper's energy results",
            kind="identity",
            check=C.all_of(C.slope("pert/eps", "pert/e_err", within=(1.7, 2.3), label="energy-error slope"),
                           C.slope("pert/eps", "pert/f_err", within=(0.8, 1.3), label="force-error slope"))),
    ),
)

_EXPORTS = {
    **{name: ".method" for name in ("solve_fock", "density", "energy_and_forces", "triu_vector", "triu_matrix",
                                    "ResidualFlowMLH", "EnergyMLIP", "perturbed_errors", "distances")},
    **{name: ".setting" for name in ("WaterConfig", "water_geometry", "sample_geometries", "make_mf",
                                     "label_geometry", "water_pool")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
