"""SNRFT: Stochastic Neural Ray Tracing for Radio Frequency Channel Modeling (ICML 2026 poster 62585).

SNRFT treats RF energy along a traced path as a survival process whose rate is a learned,
material-dependent attenuation field mu(x) (an implicit neural representation), plus learned
surface-interaction terms, composed along classical ray-tracing paths; reciprocity holds by
construction. Only the abstract is public: the equations in ``method.py`` are our
reconstruction, labelled (R1)-(R6). Ground truth comes from a different physics, a 2-D FDFD
Maxwell solve with ceviche (``setting.py``), so the ray model does not win by construction.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

# The gates' wording shown in the report is revised after the full run by review (bounds, keys and seeds
# unchanged): see the gates written inside PAPER (the definitions below are what the stored rows were run with).
_NEURAL_GATES = tuple(
    C.gate(f"train_ratio/{a}", at_most=0.5, at="each",
           why=f"{name} trained: its training MAE <= half the log-distance fit's at every n")
    for a, name in (("snrft", "SNRFT"), ("nerf2", "NeRF2-lite"), ("mlp", "the pair MLP")))
_MATERIAL_GATE = C.gate("train_ratio/material", at_most=1.0, at="each",
                        why="the per-material tracer fitted: training MAE <= the log-distance fit's at every n")


def _beats(control: str, label: str) -> C.Beats:
    return C.beats("mae/snrft", f"mae/{control}", better="lower", at="each", test="wilcoxon",
                   label="SNRFT", control_label=label)


PAPER = Paper(
    slug="snrft",
    title="SNRFT: Stochastic Neural Ray Tracing for Radio Frequency Channel Modeling",
    source="ICML 2026 poster 62585 (https://icml.cc/virtual/2026/poster/62585; abstract only)",
    cluster="science",
    feasibility="B",
    substitution=(
        "Keeps (reconstructed from the abstract; the full text and code were not found): transport along traced "
        "paths as a survival process with a learned attenuation rate field, T = exp(-int mu ds) (R1); mu_theta an "
        "implicit neural field (softplus MLP on Fourier features) and a learned surface-interaction field "
        "rho_theta(wall, hit point, |cos incidence|) in (0, 1) (R2); paths from a classical image-method tracer, "
        "line of sight plus wall reflections up to order 2 (13 paths) (R3); incoherent path power g d^-1 T prod rho "
        "(2-D spreading) summed into received power in dB (R4); midpoint quadrature (R5); MSE in dB with Adam (R6). "
        "Replaces: the real communication and sensing testbeds by a 2-D room solved with ceviche's FDFD Maxwell "
        "solver at 2.4 GHz (E_z, PML; lossy dielectric walls eps = 4 - 1.0j, obstacles of two lossy materials eps = "
        "3 - 0.3j (light) and 4 - 1.2j (heavy) at random per seed), so the data carry diffraction, multiple bounces beyond order 2 "
        "and interference that no model here represents; target = |E_z|^2 averaged over a one-wavelength box, in "
        "dB; transmitters and receivers at random free-space positions. The room is 14 wavelengths (8 cells per "
        "wavelength) in full and 8 wavelengths (6 cells) in quick, not the ~30 suggested, to keep one sparse LU "
        "per seed within the 2-core budget. Controls, all reconstructions: the same tracer with one fitted scalar "
        "attenuation per known material and one wall reflection coefficient (hand-engineered rules; it is given "
        "the obstacle geometry, SNRFT is not); a NeRF^2-style field (receiver as camera, rays marched from Rx, "
        "direction- and Tx-conditioned attenuation/radiance, volume rendering); an MLP (Tx, Rx) -> dB; a "
        "log-distance fit. All learned arms share width, Adam, learning rate, cosine schedule, step budget and "
        "seeds. Sensing and CIR/phase prediction are not reproduced (incoherent power only). Deviations: the "
        "per-material tracer's gate is 'training MAE <= the log-distance fit's' (not <= half: it is a 4-scalar "
        "calibration, not a neural arm); after the first full run its gate failed (scalars under-fitted by the "
        "shared 200-step Adam budget), so its scalars were rescaled (x10) and the full profile re-run; no check or "
        "gate was changed. Card vs issue: the card's ray-generated data and 1500-step budget are replaced as the "
        "issue asks (FDFD data; 200 steps to fit the 2-core budget); the sample-efficiency control is NeRF2-lite at "
        "4n (issue), not the pair MLP at 800 (card). "
        "Review after the full run (stored rows unchanged; only gate wording revised): (i) SNRFT's failed gate "
        "(seed 2, n = 200, ratio 0.567) is under-optimisation, not capacity: the same fit reaches 0.37 with 400 "
        "steps and 0.33 with lr 0.03 at 200 steps (same init), but its test MAE then is 3.65 / 3.28 dB vs 3.36 "
        "stored (more training overfits; 1000 steps: ratio ~0.2, test ~3.8 from another init), still above "
        "NeRF2-lite's 2.88 and the pair MLP's 2.99 in that seed; SNRFT's lr was not tuned. (ii) the per-material "
        "tracer is still under-fitted after its x10 rescale: 1000 steps lower its training loss (seed 2, n = 50: "
        "13.6 -> 7.6 dB^2) and its test MAE by up to 0.6 dB (seed 2: 3.46 -> 2.81 at n = 50, 3.39 -> 2.75 at n = "
        "200; seed 4 n = 200: 3.55 -> 3.01; not in every seed: seed 0 n = 50 2.04 -> 2.13), so the stored control"
        " is weaker than a converged one (favours SNRFT); its gate (<= 1x log-distance, not the issue's 1/2) does"
        " not detect this. (iii) the rescale gave the control's scalars an effective 10x step after the first "
        "run; SNRFT got no such adjustment. Ungated, the rows point negative: SNRFT loses to the per-material "
        "tracer at n = 50 in 4/5 seeds (where its own gate passed in every seed) and to NeRF2-lite at 4n in 9/10 "
        "seed x size pairs. "
        "Third run (2026-12-01; decided AFTER the review above, registered before its full run; no check or gate "
        "changed): every learned arm (SNRFT, the per-material tracer, NeRF2-lite, the pair MLP) trains 400 steps "
        "instead of 200 at the same lr, the review's remedy for the under-training that made SNRFT's gate fail; "
        "the quiet cold timing (84 s wall for 200 steps) left room for it. It is the same budget for every arm, "
        "not a per-arm tuning on held-out data (still open). Outcome (measured after the run): every gate met in "
        "5/5 seeds (SNRFT's training ratio 0.17 / 0.29), so beats-baselines and fewer-samples are decided: "
        "not-reproduced. Test MAE at n = 50 / 200: SNRFT 4.29 / 3.05 dB, per-material tracer 2.86 / 2.76, "
        "NeRF2-lite 4.65 / 2.90, pair MLP 5.20 / 2.88, log-distance 4.23 / 4.25; NeRF2-lite at 4n 2.92 / 1.54. "
        "SNRFT now overfits at n = 50 (3.72 dB at 200 steps): the step count should be chosen on held-out data "
        "per arm (open). Cold full run on a quiet machine: 162 s wall, 268 s CPU in jobs (slowest seed 56 s)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "L": 8.0, "ppw": 6, "n_obstacles": 2, "n_tx": 4, "sizes": [20, 40], "n_test": 200, "steps": 40,
            "lr": 0.01, "batch": 128, "width": 32, "order": 2, "n_samples": 8, "nerf_dirs": 8,
            "nerf_samples": 6}, timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "L": 14.0, "ppw": 8, "n_obstacles": 4, "n_tx": 10, "sizes": [50, 200], "n_test": 600, "steps": 400,
            "lr": 0.01, "batch": 256, "width": 32, "order": 2, "n_samples": 12, "nerf_dirs": 8,
            "nerf_samples": 8}, timeout_s=900),
    },
    claims=(
        Claim(
            id="beats-baselines",
            statement=("SNRFT predicts received power more accurately than hand-engineered ray tracing and "
                       "black-box neural surrogates: lower test MAE than every control at n = 50 and n = 200 "
                       "training pairs."),
            paper_value="qualitative: consistently outperforms existing methods on real testbeds (no number in the abstract)",
            kind="headline",
            control=("per-material scalar tracer, NeRF2-lite, pair MLP and log-distance fit (same data, optimiser, "
                     "steps, seeds)"),
            check=C.all_of(_beats("material", "per-material tracer"), _beats("nerf2", "NeRF2-lite"),
                           _beats("mlp", "pair MLP"), _beats("logdist", "log-distance"),
                           ).gated(
                # rule unchanged; wording revised after the full run by review (see substitution)
                C.gate("train_ratio/snrft", at_most=0.5, at="each",
                       why="SNRFT trained: its training MAE <= half the log-distance fit's at every n (a miss "
                           "here is under-optimisation at the shared lr 0.01 and 200 steps (400 since the third run), not a capacity "
                           "limit: review, see substitution)"),
                *_NEURAL_GATES[1:],
                C.gate("train_ratio/material", at_most=1.0, at="each",
                       why="the per-material tracer fitted at least as well as the log-distance fit at every n "
                           "(weak: met while its scalars were still under-fitted at 200 steps: review, see "
                           "substitution)")),
        ),
        Claim(
            id="fewer-samples",
            statement=("SNRFT needs fewer training samples than the neural baseline: its MAE at n is below "
                       "NeRF2-lite's at 4n, in >= 4/5 seeds, for n = 50 and n = 200."),
            paper_value="qualitative: significantly fewer training samples",
            kind="headline",
            control="NeRF2-lite trained on 4x the pairs",
            check=C.all_of(
                C.beats_in_seeds("sample/snrft_n0", "sample/nerf2_4n0", better="lower", frac=0.8,
                                 label="SNRFT at n0", control_label="NeRF2-lite at 4 n0"),
                C.beats_in_seeds("sample/snrft_n1", "sample/nerf2_4n1", better="lower", frac=0.8,
                                 label="SNRFT at n1", control_label="NeRF2-lite at 4 n1"),
            ).gated(
                C.gate("train_ratio/snrft", at_most=0.5, at="each",
                       why="SNRFT trained: its training MAE <= half the log-distance fit's at every n (a miss "
                           "here is under-optimisation at the shared lr 0.01 and 200 steps (400 since the third run), not a capacity "
                           "limit: review, see substitution)"),
                _NEURAL_GATES[1]),
        ),
        Claim(
            id="reciprocity",
            statement=("Reciprocity and reversibility hold by construction: swapping Tx and Rx changes SNRFT's "
                       "prediction by < 1e-4 dB (the controls' gaps are reported beside it)."),
            paper_value="qualitative: inherently satisfies reciprocity and reversibility",
            kind="identity",
        ),
        Claim(
            id="real-testbeds",
            statement="Outperforms existing methods on real-world communication and sensing testbeds.",
            paper_value="qualitative (testbed tables not available to us)",
            kind="headline",
            no_control="needs the paper's measured testbed data and sensing tasks",
            uncheckable="real RF measurements and sensing testbeds are not available; see beats-baselines for the simulated analogue",
        ),
    ),
    examples="icml26.science.snrft.experiment:EXAMPLES",
)

_EXPORTS = {"SNRFT": ".method", "trace_paths": ".method", "make_scene": ".setting", "make_dataset": ".setting"}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
