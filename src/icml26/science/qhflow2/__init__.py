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

_SIZES_FULL = [20, 50, 100]

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
        "and an energy + force loss (each term normalised by the training spread, weight 1), a Delta-MLIP "
        "(same MLP) correcting E[D_minao] trained on energies only (the MINAO functional's own forces have no "
        "analytic gradient in PySCF and finite differences would cost 18 extra evaluations per geometry), and, "
        "as the naive control, a least-squares quartic polynomial of the three distances fit to energies and "
        "forces (scikit-learn PolynomialFeatures + Ridge, alpha 1e-10). Train sizes 20/50/100 (MD17 uses "
        "~1000), 20 further pool geometries for early stopping (never trained or tested on), 30 test "
        "geometries (energies and H on all 30, forces on the first 20), 5 seeds. Every learned arm is trained "
        "to convergence under early stopping on those validation geometries; the MLH arms (flow, direct "
        "regression, width sweep) by one reduce-on-plateau rule: full-batch Adam lr 1e-2, validation H MAE "
        "every 25 steps, lr x0.3 after 100 steps without a 1% relative improvement, stop at the plateau after "
        "3 reductions, best weights restored, a 3000-step safety cap whose reaching is recorded (mlh/capped, "
        "direct/capped); the MLIP arms with full-batch L-BFGS (strong Wolfe) in 50-iteration chunks up to "
        "1000, stopping after two chunks without a 0.1% relative validation improvement (their losses are "
        "deterministic; Adam left the first pass's 400-step MLIP at 1.9 meV / 46 meV/A, ~15x above its "
        "converged error). The width/checkpoint sweep of the transfer claim: widths 16/32/64 x (a checkpoint "
        "at 150 steps, the converged end) at n = 50 (the width-64 arm is the size sweep's flow MLH at n = 50), "
        "evaluated on 10 test geometries. Forces use PySCF's grid response (our grid is coarse; without it the analytic forces "
        "are not the gradient of the grid energy and net forces reach 0.9 eV/A). The orbital-energy "
        "fine-tuning stage and the eigenvalue 'filtering' of the paper are not used. "
        "Third pass (budget; re-registered before its full run, checks unchanged): the second pass cost ~55-70 s "
        "of CPU per seed plus ~38 s of PySCF labels (240 geometries, labelled twice when two cold workers raced), "
        "over the house budget, and its cosine schedule annealed every MLH arm to its 1500-step cap, so the flow "
        "was 'still improving' at the cap (and so, unrecorded, was direct regression). It now has sizes "
        "25/75/180 -> 20/50/100, 240 -> 150 labelled geometries behind a file lock (one labeller per pool), "
        "forces on 20 of the test geometries, the width sweep reusing the size sweep's width-64 model, L-BFGS "
        "chunks of 50 with a 0.1% tolerance, and the reduce-on-plateau rule above in place of cosine-to-cap, "
        "under which flow and direct regression both stop at a validation plateau (tuned on dev seeds 7 and 8). "
        "History (first pass, superseded): a 400-step Adam budget for every arm gave a ~900x energy gap that "
        "review traced to an under-trained MLIP (6000 Adam steps: 0.11 meV, 4.8 meV/A at n = 200), and its "
        "gates (MLH H error <= 0.2x MINAO's; MLIP <= 0.5x the mean-energy predictor's) could not catch that: "
        "a mean-residual predictor passes the first at 0.056x. The second pass gates the MLH at <= 0.2x the "
        "mean-residual predictor's H error and the MLIP at <= 2x the polynomial fit's energy error. "
        "Why the energy gap is large at this scale regardless of training: the energy error is second order "
        "in the H error (perturbation-orders), and a 7-orbital residual on a 3-D geometry space is learned to "
        "micro-Hartree precision (a quadratic polynomial regression of the residual already gives ~18 "
        "micro-Ha), a property of the setting, not of QHFlow2's network. "
        "Measured after the second-pass full run (sizes 25/75/180, cosine rule; decides nothing, not "
        "pre-registered): at n = 180 the MLH has "
        "0.00033 meV and 0.58 meV/A against the converged MLIP's 0.084 meV and 3.4 meV/A (gate: MLIP/polynomial "
        "energy ratio 0.60; at n = 25 the MLIP is 2.5x the polynomial, the gate reads the largest size only), the "
        "polynomial's 0.14 meV and 3.6 meV/A and the Delta-MLIP's 0.62 meV; the energy gap is ~250x the MLIP's "
        "(the paper reports up to 20x) and it is not an optimisation artefact any more. The flow MLH ran to its "
        "1500-step cap in every seed and size (validation still improving), the MLIPs early-stopped at 600-1000 "
        "L-BFGS iterations; the flow MLH's H error is ~1.6x that of direct regression. The 5-seed full run took "
        "20.5 min wall with --jobs 1 under a load average of 12-18 on 2 cores; one seed costs ~55 s of CPU, "
        "so about 3 min for 5 seeds with 2 jobs on an idle machine. "
        "Third-pass full run (review of the budget pass, after it; no check changed): the verdicts are those of "
        "the second pass (energy, forces, scaling reproduced; flow-vs-direct not reproduced, flow H error "
        "~1.8-2.2x direct regression's). At n = 100 the MLH has 0.0007 meV and 0.91 meV/A against the MLIP's "
        "0.106 meV and 2.6 meV/A (MLIP/polynomial energy gate ratio 0.43-1.06, met in 5/5). The reduce-on-plateau "
        "rule stopped every flow and direct fit before the cap (725-1950 steps). The MLIP arms, though, are less "
        "clearly converged than the text above says: the MLIP's energy MAE is no lower at n = 100 than at "
        "n = 50 (0.106 vs 0.088 meV; 2.63 vs 2.65 meV/A), and the L-BFGS loop ended exactly at its 1000-iteration "
        "cap in 4/15 MLIP fits and 6/15 Delta-MLIP fits (cap reaching is not recorded for these arms, unlike "
        "mlh/capped). At a ~150x energy gap this cannot change the energy verdict, but the force ratio "
        "(0.36) is measured against a reference that may be a little under-trained. "
        "Eighth session (budget, engineering only; recipe, checks and gates unchanged): the SCF no longer writes a "
        "checkpoint file at every iteration (nothing read it), PySCF's basis files (the MINAO guess's large ANO file "
        "for every molecule) are parsed once per labelled pool, the MINAO Fock matrix and energy share one veff, the "
        "MLPs' fixed standardised inputs are memoised and their forward calls the same functional kernels (tests "
        "check each bit for bit; a copy of scikit-learn's Ridge cholesky path, tried to save its ~1.8 s import, was "
        "taken out again in review: the polynomial control keeps scikit-learn). Dev seed 100: all 45 metrics bit-identical; "
        "70.2 -> 66.3 s of CPU, old and new code back to back. The stored full run (2026-12-07, cold, ICML26_NO_CACHE=1, "
        "--jobs 2, another helper on the machine) reproduced every metric of all 5 seeds bit for bit against the "
        "previous rows and against this session's survey of the old code; 299.2 s CPU in jobs (57.5-62.8 s a seed: "
        "62.8, 57.5, 58.1, 59.4, 61.4 for seeds 0-4) and 181 s wall, against 382.9 s (67.9-89.2 s a seed) and 245 s "
        "wall in the survey of the old code earlier the same evening. After the review's change (scikit-learn back) the "
        "profile was re-run on otherwise idle cores: every metric of all 5 seeds bit-identical again, 179.9 s wall, "
        "290.5 s CPU in jobs (50.6-63.1 s a seed), just inside the 3-minute budget. Most of the rest is torch's L-BFGS and Adam "
        "loops with autograd (MLIP and MLH training) and PySCF's SCF and analytic gradients, which this paper's code "
        "cannot make cheaper without moving numbers."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_pool": 16, "n_test": 8, "n_val": 4, "sizes": [6, 12], "width": 32, "steps": 150, "lr": 1e-2,
            "val_every": 10, "patience": 20, "factor": 0.3, "reductions": 1, "tol": 1e-3, "lbfgs_iters": 60,
            "lbfgs_chunk": 20, "lbfgs_tol": 1e-3, "poly_degree": 2, "widths": [16, 32], "ckpt_steps": [20],
            "sweep_size": 12, "sweep_test": 4, "n_forces": 4, "pert_eps": [1e-3, 1e-2], "pert_geoms": 1,
            "grid_level": 0, "data_seed": 0},
            timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "n_pool": _SIZES_FULL[-1] + 20, "n_test": 30, "n_val": 20, "sizes": _SIZES_FULL, "width": 64,
            "steps": 3000, "lr": 1e-2, "val_every": 25, "patience": 100, "factor": 0.3, "reductions": 3,
            "tol": 1e-2, "lbfgs_iters": 1000, "lbfgs_chunk": 50, "lbfgs_tol": 1e-3, "poly_degree": 4,
            "widths": [16, 32, 64], "ckpt_steps": [150], "sweep_size": _SIZES_FULL[1], "sweep_test": 10,
            "n_forces": 20, "pert_eps": [3e-4, 1e-3, 3e-3, 1e-2], "pert_geoms": 2, "grid_level": 0,
            "data_seed": 0},
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
            control=("an MLIP of the same width (energy MLP, autograd forces, NequIP-style E+F loss, L-BFGS to "
                     "early-stopping convergence), a Delta-MLIP learning E* - E[D_minao] (the same physics prior, "
                     "no Hamiltonian; energies only) and a quartic polynomial of the distances fit to energies "
                     "and forces (the naive control); the MLH must beat all three")),
        Claim(
            id="nequip-level-forces",
            statement=("Forces from the MLH's Hamiltonian (analytic gradient at the predicted orbitals) reach "
                       "the accuracy of an MLIP trained on energies and forces."),
            paper_value="first MLH reaching NequIP-level force accuracy on MD17/rMD17 (abstract)",
            kind="headline",
            no_control=("a non-inferiority ratio against the MLIP: the MLIP is the reference in the ratio's "
                        "denominator (its own ratio is 1 by construction), reported in the measurement; such a "
                        "test is only as strong as its reference, so the MLIP is trained to early-stopping "
                        "convergence by L-BFGS and gated at <= 2x the polynomial E+F fit's energy error; the "
                        "ratio against the polynomial fit is reported too")),
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
                       "the residual with the same network and training rule (QHFlow's ablation). "
                       "(First pass, 400 steps, measured after its full run: direct regression had about half the "
                       "flow's H error at every size. The target is a deterministic function of the geometry, so "
                       "the flow must learn to ignore its 28 noise inputs.)"),
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
                                    "ResidualFlowMLH", "EnergyMLIP", "perturbed_errors", "distances",
                                    "PolynomialEF", "fit_polynomial")},
    **{name: ".setting" for name in ("WaterConfig", "water_geometry", "sample_geometries", "make_mf",
                                     "label_geometry", "water_pool")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
