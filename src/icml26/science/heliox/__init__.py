"""HelioX: A GPU-Native Framework for Simulation and Training of Biophysically Detailed Networks.

ICML 2026 (https://icml.cc/virtual/2026/poster/63365; no arXiv text was available, only the
abstract). Multi-compartment neurons are simulated with implicit Euler, so every time step
solves a linear system whose matrix has the shape of the dendritic tree (a Hines matrix).
HelioX runs that solve with Dendritic Hierarchical Scheduling (DHS, from its predecessor
DeepDendrite, Zhang et al., Nat. Commun. 2023): at each parallel step the k deepest nodes whose
children are already eliminated are processed together, which is an optimal schedule for a
tree. Gradients flow back through the solve by a hand-written adjoint (the transposed tree
system, solved with the same schedule) rather than a generic autodiff tape, which lets HelioX
train biophysically detailed networks. Here: the Hines/DHS solve and its adjoint, a
Hodgkin-Huxley compartmental simulator following NEURON's fixed-step scheme, and gradient-based
fitting of channel densities, on CPU.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_EXP = "icml26.science.heliox.experiment"

_COMMON = {"solve_threads": [1, 4, 32], "small_threads": [2, 3, 4], "bound_threads": [1, 4, 16],
           "grad_n": 25, "fit_nseg": 3, "fit_lr": 0.05, "fit_init_sd": 0.3,
           "overhead_k": 8, "overhead_batch": 8, "overhead_repeats": 3, "trace_stride": 4}

PAPER = Paper(
    slug="heliox",
    title="HelioX: A GPU-Native Framework for Simulation and Training of Biophysically Detailed Networks",
    source="https://icml.cc/virtual/2026/poster/63365",
    cluster="science",
    feasibility="B",
    substitution=(
        "Keeps the compartmental cable model with NEURON's fixed-step backward-Euler scheme "
        "(staggered cnexp gate updates), the Hines tree solve ordered by the DHS schedule "
        "(k deepest ready nodes per step; DeepDendrite 2023), the adjoint (transposed) tree solve "
        "as hand-written backward pass, NEURON's hh and pas mechanisms and an IClamp, "
        "gradient-based fitting through the simulator, and NEURON itself as reference. Replaces "
        "the fused CUDA kernels and multi-stream concurrency by vectorised numpy/torch on one CPU "
        "thread (parallel steps are counted instead of GPU time), the BAAIWorm network and deep "
        "biophysical MLPs by fitting gNa, gK and g_pas of a small ball-and-stick cell to a target "
        "trace (Adam, 2 replicas per seed), and the GPU speed-up over NEURON by a CPU throughput "
        "comparison that is not the paper's setting."
    ),
    run=f"{_EXP}:run",
    figure=f"{_EXP}:figure",
    profiles={
        "quick": Profile("quick", seeds=3, timeout_s=120, params={
            **_COMMON, "n_systems": 20, "solve_sizes": [50, 200], "n_small_trees": 6,
            "small_n": [4, 9], "bound_sizes": [50, 200], "grad_t": 2.0, "neuron_nseg": 11,
            "neuron_t": 20.0, "fit_replicas": 2, "fit_t": 3.0, "fit_iters": 8,
            "overhead_n": 100, "speed_cells": 16, "speed_t": 5.0, "timing": False}),
        "full": Profile("full", seeds=4, timeout_s=900, params={
            **_COMMON, "n_systems": 100, "solve_sizes": [50, 200, 1000], "n_small_trees": 12,
            "small_n": [5, 12], "bound_sizes": [50, 200, 1000], "grad_t": 3.0, "neuron_nseg": 51,
            "neuron_t": 50.0, "fit_replicas": 2, "fit_t": 4.0, "fit_iters": 25,
            "overhead_n": 300, "speed_cells": 64, "speed_t": 10.0, "timing": True}),
    },
    claims=(
        Claim(id="exact-solve",
              statement="The DHS-parallelised Hines solve is exact: it returns the same solution as "
                        "a serial/direct solve of the tree system.",
              paper_value="DHS 'computationally optimal and accurate' (DeepDendrite); HelioX runs DHS "
                          "as its solver (no error figure read)",
              check=f"{_EXP}:check_exact_solve", contradict=f"{_EXP}:contradict_exact_solve"),
        Claim(id="optimal-schedule",
              statement="The DHS schedule needs the fewest possible parallel steps for a given number "
                        "of threads per neuron.",
              paper_value="proved optimal (DeepDendrite); example tree: 5 steps with 4 threads vs 14 serial",
              check=f"{_EXP}:check_optimal_schedule", contradict=f"{_EXP}:contradict_optimal_schedule"),
        Claim(id="exact-gradient",
              statement="Gradients propagated through the tree solve by the custom DHS backward "
                        "(adjoint) are exact.",
              paper_value="custom fused gradient kernels for DHS (abstract; no accuracy figure read)",
              check=f"{_EXP}:check_exact_gradient", contradict=f"{_EXP}:contradict_exact_gradient"),
        Claim(id="matches-neuron",
              statement="The simulator reproduces NEURON's dynamics (NEURON is the front end and "
                        "reference).",
              paper_value="not stated numerically in the abstract; card criterion < 0.2 ms spike times",
              check=f"{_EXP}:check_matches_neuron", contradict=f"{_EXP}:contradict_matches_neuron"),
        Claim(id="trains",
              statement="Biophysically detailed models can be trained by gradient descent through "
                        "the simulator.",
              paper_value="trains deep biophysical MLPs and BAAIWorm on one consumer GPU (no numbers read)",
              check=f"{_EXP}:check_trains", contradict=f"{_EXP}:contradict_trains"),
        Claim(id="no-autodiff-overhead",
              statement="A hand-written DHS backward avoids the runtime overhead of generic "
                        "automatic differentiation.",
              paper_value="stated qualitatively (abstract)",
              check=f"{_EXP}:check_no_autodiff_overhead",
              contradict=f"{_EXP}:contradict_no_autodiff_overhead", reference=1.0),
        Claim(id="faster-than-neuron",
              statement="HelioX outperforms NEURON by orders of magnitude.",
              paper_value="'orders of magnitude' faster than NEURON on a GPU (abstract; no number read); "
                          "not judged on CPU",
              check=f"{_EXP}:check_faster_than_neuron",
              contradict=f"{_EXP}:contradict_faster_than_neuron", reference=100.0),
    ),
)

__getattr__ = lazy_exports(__name__, {
    "dhs_schedule": ".method", "serial_schedule": ".method", "check_schedule": ".method",
    "optimal_steps_bruteforce": ".method", "hines_solve": ".method", "make_plan": ".method",
    "dhs_solve": ".method", "tree_solve": ".method", "hines_matrix": ".method",
    "Section": ".method", "Morphology": ".method", "build_morphology": ".method",
    "ball_and_stick": ".method", "y_neuron": ".method", "hh_rates": ".method",
    "Biophysics": ".method", "soma_hh_dend_pas": ".method", "Stimulus": ".method",
    "simulate": ".method", "spike_times": ".method", "random_tree": ".method",
    "tree_depth": ".method",
})
__all__ = ["PAPER", "dhs_schedule", "serial_schedule", "check_schedule", "optimal_steps_bruteforce",
           "hines_solve", "make_plan", "dhs_solve", "tree_solve", "hines_matrix", "Section",
           "Morphology", "build_morphology", "ball_and_stick", "y_neuron", "hh_rates", "Biophysics",
           "soma_hh_dend_pas", "Stimulus", "simulate", "spike_times", "random_tree", "tree_depth"]
