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
Hodgkin-Huxley compartmental simulator following NEURON's fixed-step scheme, gradient-based
fitting of channel densities, and a small 3-layer network of multi-compartment HH neurons trained
end to end through the simulator on 8x8 digits (against a rate-model MLP of the same shapes and
a readout-only control), on CPU.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"solve_threads": [1, 4, 32], "small_threads": [2, 3, 4], "bound_threads": [1, 4, 16],
           "grad_n": 25, "fit_nseg": 3, "fit_lr": 0.05, "fit_init_sd": 0.3,
           "overhead_k": 8, "overhead_batch": 8, "overhead_repeats": 3, "trace_stride": 4,
           "net_hidden": [16, 16], "net_lr": 0.001, "net_readout_lr": 0.03, "net_rate_lr": 0.03, "net_init_scale": 0.1, "net_init_bias": 0.0,
           "net_t": 10.0, "net_dt": 0.25, "net_schedule": "cosine"}

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
        "gradient-based training through the simulator, and NEURON itself as reference. Replaces "
        "the fused CUDA kernels and multi-stream concurrency by vectorised numpy/torch on one CPU "
        "thread (parallel steps are counted instead of GPU time); BAAIWorm and the paper's deep "
        "(3-5 layer) biophysical MLPs on MNIST by a 3-layer network (64 inputs -> 16 -> 16 -> 10 "
        "ball-and-stick HH neurons) on scikit-learn's 8x8 digits (500 training, 300 held-out images "
        "per seed), with pixels as constant input currents (HelioX drives its inputs with spike "
        "trains), graded rectified synapses onto the distal dendrite (current w * max(V_pre + 65 mV, "
        "0) / 10 mV, the form of HelioX's fully connected learning synapse), a readout of the output "
        "cells' mean somatic voltage over the second half of a 10 ms trial (dt = 0.25 ms), and exact "
        "gradients by back-propagation through time over the adjoint tree solves (HelioX's synapses "
        "accumulate a time-local gradient instead), trained by Adam for 100 minibatches of 32 "
        "(lr 0.003, initial weights N(0, 0.1^2/fan-in), zero biases; chosen on dev seeds 100-103); "
        "controls on the same images, minibatches and initial weights: a ReLU MLP of the same shapes "
        "(lr 0.03, tuned on the same dev seeds) and the biophysical network with only its readout "
        "layer trained. Full run (4 seeds): held-out accuracy 0.434 end to end vs 0.314 readout-only "
        "(better in 3/4 seeds, p = 0.088) vs 0.738 for the rate MLP, so trains-network is "
        "not reproduced at this scale and budget. The GPU speed-ups (over NEURON, over autograd) are "
        "replaced by CPU timings that are reported but not decided (GPU claims). No paper text "
        "beyond the abstract and the authors' project page was available. "
        "Revised (fifth session, issue 15), before its re-run: that verdict had no training gate. "
        "Training curves on dev seeds 100-102 (dev streams, never stored): at lr 0.003 the end-to-end "
        "network's minibatch loss (mean of 25 steps) was 2.14, 1.92, 1.67, 1.65, 1.62, 1.70 at steps 25, "
        "50, 100, 200, 300, 400, flat from step ~100 with loss spikes (gradient norms up to ~1800): the "
        "old recipe had stalled, not stopped early; lr 0.01 diverged (2.68 at step 25), lr 0.002 and lr "
        "0.003 with gradient clipping were unstable (whole-training-set loss 1.73 -> 3.15 between half "
        "and 3/4 of 160 steps); lr 0.001 kept falling (1.65, 1.07, 0.59, 0.33 at steps 50, 100, 200, "
        "300). Now: lr 0.001 end to end (the largest stable rate, chosen by the training loss), the "
        "readout-only control at lr 0.03 (lowest whole-training-set loss after 150 steps among 0.001, "
        "0.003, 0.01, 0.03: 2.21, 1.81, 1.75, 1.66), the rate MLP unchanged (lr 0.03), 130 minibatches "
        "for every arm (what the CPU budget allows: about 0.5 s CPU per step for the three arms, whole-set evaluations included, and the "
        "whole full profile took 99 s CPU per seed with 150 on dev seed 102, so 130 keeps the 4 seeds near "
        "360 s; the "
        "readout-only arm now simulates its frozen hidden layers once per image and trains the output "
        "layer on their recorded activity, the same logits), and a pre-registered training gate on "
        "every arm: whole-training-set loss at the end <= 0.9 of its start and whole-training-set "
        "accuracy up by <= 0.02 over the last quarter of training, in every seed, else not-checkable. "
        "On dev seed 101 at 120 steps the gate failed for the end-to-end network (training accuracy "
        "0.67 -> 0.82 over the last quarter) and the rate MLP (0.47 -> 0.77), on dev seed 102 at 150 "
        "steps for the rate MLP (+0.074) and at 130 steps for the end-to-end network (+0.078) and the "
        "rate MLP (+0.052; readout-only +0.002, passing); with minibatch losses "
        "still falling at 300 steps on seed 100, convergence may be out of this budget, and the gate "
        "decides. Chosen before the re-run; held-out accuracy on the dev seeds was printed alongside during the lr "
        "exploration (and one dev run printed the would-be verdict), but the choices follow the training loss "
        "(lr 0.001: loss 0.33 at 300 steps against ~1.62 at 0.003; the readout lr sweep printed no test accuracy). "
        "Fifth session's full run (4 seeds, 361 s CPU summed): trains-network not-checkable, the gate "
        "failed: whole-training-set accuracy over the last quarter changed by +0.04, +0.15, -0.11, +0.03 "
        "end to end (met in 1/4), -0.05, +0.16, +0.03, -0.19 readout-only (2/4) and +0.17, +0.02, +0.06, "
        "+0.03 for the rate MLP (0/4); every arm passed the loss-ratio part (0.32-0.58, 0.74-0.81, "
        "0.10-0.27). On these numbers the check would say partly: held-out accuracy 0.640 end to end vs "
        "0.362 readout-only (higher in 4/4, p = 0.013) vs 0.805 for the rate MLP (paired advantage "
        "-0.165; -0.05, -0.22, -0.29, -0.10 per seed). Seen after the run (not changed): the gate is "
        "one-sided, so it catches an arm still learning but passes one whose training accuracy fell "
        "(end to end, seed 2: whole-training-set loss 0.93 -> 1.35 over the last quarter, lr 0.001 is "
        "not free of the loss spikes), and the readout-only arm's swings of up to 0.19 at lr 0.03 are "
        "noise rather than learning; the 130 minibatches are budget-bound, convergence of the end-to-"
        "end network and of the rate MLP needs more. Review after the run (text only, verdict unchanged): the gate's "
        "statistic is one difference between two single checkpoints (steps 97 and 130) of accuracy on 500 training "
        "images, whose noise is about 0.11-0.14 per seed, several times the 0.02 threshold: no arm-seed landed "
        "within +-0.02, and the 3 passes were all falls (end to end seed 2, readout-only seeds 0 and 3), so the "
        "per-arm pass counts are chance. The not-checkable verdict still stands on a smoothed reading done in "
        "review (information only): the slope of minibatch accuracy over the last 65 steps is clearly positive "
        "for the rate MLP in seeds 1-3 (+0.04 to +0.12 per 32 steps) and for the end-to-end network in seeds 1 "
        "and 3, so both are still learning, and a non-inferiority comparison against an under-trained rate MLP "
        "would favour the claim. The readout-only control is weak (training accuracy 0.28-0.46; its lr 0.03 is "
        "the top of its grid). For the next run: a smoothed two-sided gate (means over the last 10% against the "
        "10% before, or a slope interval inside +-0.02), a stability part (end loss <= 1.1 x the lowest checkpoint "
        "loss), 300-400 steps with a decaying lr, and each arm's lr re-tuned by smoothed training loss, chosen "
        "on dev seeds by the gate only (about 2.5-3x the present CPU). "
        "Revised (sixth session, issue 15), before its re-run: (1) a cheaper network step with the same "
        "results: HH gates and channel currents computed on the soma rows only (the dendrite's channel terms "
        "were exact zeros), the chain-shaped cell's tree solve by integer indexing instead of scatter-adds "
        "(same arithmetic; adjoint backward as before), no per-step input checks; logits and recorded activity "
        "bit-identical to the earlier step, gradients within 1e-12 relative (unit test); a training step of "
        "the end-to-end network about 0.19 s CPU instead of 0.28 s, a whole-training-set evaluation 0.25 s "
        "instead of 0.68 s (dev seed 100, one thread, shared machine). A hand-written backward for the gate "
        "update was tried and dropped (not faster). (2) The gate is replaced as the review recommended: each "
        "arm's whole-training-set cross-entropy and accuracy at the start and at 4 evenly spaced checkpoints in "
        "each of the last two quarters of training; the arm must have trained (end loss <= 0.9 x start), "
        "levelled off (mean accuracy over the last quarter's checkpoints within +-0.03 of the quarter "
        "before's: two-sided, so falling back fails as well as still learning) and stayed stable (end loss "
        "<= 1.1 x its lowest checkpoint), in every seed, else not-checkable. (3) 256 minibatches of 32 "
        "(from 130) with cosine lr decay to 0 for every arm; peak lrs unchanged (0.001 end to end, 0.03 "
        "readout-only, 0.03 rate MLP), confirmed on dev seeds 100-101 (train_network alone, 320 steps) by the "
        "whole-training-set loss at the end only: end to end 0.400/0.732 at 0.001 vs 0.393/0.835 at 0.002; "
        "readout-only 1.667/1.630 at 0.03 vs 1.836/1.770 at 0.1, 0.3 diverged (seed 100); rate MLP "
        "0.078/0.659 at 0.03 vs 0.931/1.726 at 0.01 and 0.450/0.684 at 0.1; the exploration script printed "
        "no held-out accuracy. 320 steps cost about 65 s CPU (end to end) + 53 s (readout-only, as "
        "overhead-bound as the whole network) + 4 s (rate MLP) per seed, about 580 s for the profile, so "
        "the steps were cut to 256 to stay near 500 s; at 320 steps the end-to-end network was still "
        "learning by the new gate on dev seed 101 (quarter shift +0.056; seed 100 +0.012), so the gate may "
        "fail again. On dev seed 102 with the new recipe (256 steps, all arms, 99 s CPU) every arm passed the "
        "gate (quarter shifts +0.013, +0.024, +0.018; loss ratios 0.21, 0.79, 0.05; end at its lowest "
        "checkpoint). The check's pass rule is unchanged. Chosen before the re-run. "
        "Sixth session's full run (4 seeds, 515 s CPU summed over 2 jobs, 270 s wall): trains-network "
        "not-checkable, the end-to-end network's levelling-off gate failed: quarter shifts +0.039, -0.003, "
        "+0.044, +0.047 (met in 1/4); its last-quarter checkpoints were nearly flat (within 0.006 in seeds "
        "0-2, 0.790-0.808 in seed 3) but the third quarter was still rising, so it was still learning at "
        "half to three quarters of the 256 steps. Every other gate part passed in every seed: readout-only "
        "shifts +0.005, -0.023, +0.012, +0.028, rate MLP +0.029, +0.017, +0.015, +0.027; loss ratios 0.16-0.27 "
        "end to end, 0.60-0.85 readout-only, 0.04-0.23 rate MLP; end loss at its lowest checkpoint except end "
        "to end seed 1 (1.06 x). On these numbers the check would say reproduced: held-out accuracy 0.781 end "
        "to end vs 0.361 readout-only (higher in 4/4, p = 0.001) vs 0.832 for the rate MLP (paired advantage "
        "-0.052, 95% t interval [-0.25, +0.14]; +0.11, -0.18, -0.03, -0.11 per seed), against 0.640 / 0.362 / "
        "0.805 after 130 constant-lr steps in the fifth session. "
        "Seventh session (engineering only; recipe, gates, checks and pass rules unchanged): cheaper solves "
        "with the same bits: the network's chain solve does its row operations in numpy, the numpy DHS solve "
        "takes one-node steps by integer indexing, and simulate (torch backend, adjoint) uses the chain "
        "solve and its adjoint for serial schedules without per-step checks (trace checked once at the end). "
        "Every non-timing metric of dev seed 100 and of the stored seeds 0-3 equals the sixth session's rows "
        "bit for bit (only the six timing metrics differ). In-process CPU on dev seed 100: conductance fit "
        "14.0 -> 10.2 s, NEURON comparison 2.7 -> 1.2 s, solve exactness 2.6 -> 2.1 s, network training "
        "step 0.195 -> 0.190 s (about 8 s of ~106 s a seed); the stored run took 428.7 s CPU in jobs "
        "(102.8, 104.6, 111.2, 110.1 s for seeds 0-3, 415 s wall on the shared machine) against 515.2 s "
        "(124-133 s a seed) in the sixth, a difference partly from machine load (whole-seed CPU of dev seed "
        "100 under load: 105.8 s before, 106.0 s after). Still above the ~85 s a seed target: the two "
        "network arms' training (about 80 s a seed) is per-operation overhead of autograd through 40 time "
        "steps, which cannot be rearranged without changing the order in which gradients are summed. The "
        "readout-only arm already simulates its frozen hidden layers once per image (since the fifth "
        "session): its logits equal the whole network's bit for bit, its readout gradients differ from "
        "back-propagation through the whole network by ~1e-16 (rounding), so nothing further is shared. "
        "The faster numpy solve moved the reported (not decided) CPU timing: ours 0.46-0.58 s vs 0.75-1.41 s, "
        "NEURON/ours 0.14 vs 0.06-0.09."
    ),
    examples="icml26.science.heliox.experiment:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=3, timeout_s=120, params={
            **_COMMON, "n_systems": 20, "solve_sizes": [50, 200], "n_small_trees": 6,
            "small_n": [4, 9], "bound_sizes": [50, 200], "grad_t": 2.0, "neuron_nseg": 11,
            "neuron_t": 20.0, "fit_replicas": 2, "fit_t": 3.0, "fit_iters": 8,
            "net_train": 40, "net_test": 20, "net_batch": 8, "net_iters": 8, "net_evals_per_quarter": 2,
            "overhead_n": 100, "speed_cells": 16, "speed_t": 5.0, "timing": False}),
        "full": Profile("full", seeds=4, timeout_s=900, params={
            **_COMMON, "n_systems": 100, "solve_sizes": [50, 200, 1000], "n_small_trees": 12,
            "small_n": [5, 12], "bound_sizes": [50, 200, 1000], "grad_t": 3.0, "neuron_nseg": 51,
            "neuron_t": 50.0, "fit_replicas": 2, "fit_t": 4.0, "fit_iters": 25,
            "net_train": 500, "net_test": 300, "net_batch": 32, "net_iters": 256, "net_evals_per_quarter": 4,
            "overhead_n": 300, "speed_cells": 64, "speed_t": 10.0, "timing": True}),
    },
    claims=(
        Claim(id="trains-network", kind="headline",
              statement="A deep (multi-layer) network of biophysically detailed, multi-compartment Hodgkin-Huxley "
                        "neurons can be trained end to end by gradient through the simulator on an image "
                        "classification task: its held-out accuracy is far above chance, above the same network "
                        "with only its readout trained, and not worse than a rate-model network of the same size "
                        "by more than 0.1. Revised (fifth session, issue 15, before its re-run): decided only if "
                        "every arm (end to end, readout only, rate MLP) trained and levelled off by a pre-registered "
                        "gate (whole-training-set loss at the end <= 0.9 of its start; whole-training-set accuracy "
                        "up by <= 0.02 over the last quarter of training; every seed); lr 0.001 end to end, 0.03 "
                        "for the readout-only control, 130 minibatches for every arm (chosen on dev seeds 100-102 "
                        "by the training loss and the CPU budget). The earlier verdict (not reproduced: 0.434 vs "
                        "readout-only 0.314 vs rate MLP 0.738 after 100 minibatches at lr 0.003) had no gate. "
                        "Fifth session's full run: not-checkable, the gate failed: no arm-seed levelled off within "
                        "+-0.02 in 130 minibatches (the gate's 1/4, 2/4 and 0/4 passes for the end-to-end network, "
                        "the readout-only control and the rate MLP were all accuracy falls; review); "
                        "on these numbers partly (0.640 vs readout-only 0.362, p = 0.013, vs rate MLP 0.805). "
                        "Revised (sixth session, issue 15, before its re-run): a smoothed, two-sided gate (every "
                        "arm and seed: whole-training-set loss at the end <= 0.9 of its start and <= 1.1 x its "
                        "lowest checkpoint; mean whole-training-set accuracy over the last quarter's 4 checkpoints "
                        "within +-0.03 of the quarter before's), 256 minibatches with cosine lr decay (peak lrs "
                        "unchanged, confirmed by the training loss on dev seeds 100-101), a cheaper network step "
                        "with the same results. Sixth session's full run: not-checkable, the end-to-end network "
                        "had not levelled off (quarter shifts +0.039, -0.003, +0.044, +0.047, met in 1/4; the "
                        "controls passed every gate part); on these numbers reproduced (0.781 vs readout-only "
                        "0.361, p = 0.001, vs rate MLP 0.832, paired advantage -0.052). Review after the run "
                        "(text only, verdict unchanged): under cosine decay to 0 the last quarter gets about 2.5% "
                        "of the learning-rate mass and the quarter before about 16%, so this gate mostly reads the "
                        "schedule: a flat last quarter is forced by the vanishing lr (an under-trained arm can "
                        "pass; the controls' passes, readout-only loss ratios 0.60-0.85 and rate MLP seed 0 at "
                        "+0.029, do not show convergence), and a rise over the quarter before can be the annealing "
                        "bump after lr-driven jitter (end to end seed 0: 0.818, 0.850, 0.816, 0.854, then "
                        "0.872-0.874), not learning; 'still learning' and 'annealing gain' cannot be told apart "
                        "here. Even on a pass, the rate-MLP part is within the -0.1 margin on the mean only: its "
                        "interval [-0.25, +0.14] straddles it. Next: pre-register the gate on a constant-lr "
                        "stretch (e.g. constant to 3/4 of training, compare its 2nd and 3rd quarters, then decay), "
                        "or show on dev seeds that training past 256 steps leaves training accuracy within +-0.03. "
                        "The dev script and its log (peak-lr choice by whole-training-set loss, seeds 100-102) "
                        "were not kept; train_network also computes held-out accuracy, so 'no held-out number was "
                        "printed' rests on our word (the lrs are unchanged from the fifth session).",
              paper_value="trains deep (3-5 layer) biophysical MLPs on MNIST 'with stable accuracy' and BAAIWorm "
                          "on one consumer GPU (abstract and the authors' project page; no accuracy read)",
              control="a rate-model MLP of the same shapes (ReLU units in place of the biophysical neurons; the "
                      "same parameters, initial values, minibatches and optimiser), and the same biophysical "
                      "network with only its readout layer trained (no gradient into the hidden layers)"),
        Claim(id="no-autodiff-overhead", kind="headline", gpu=True,
              statement="A hand-written DHS backward avoids the runtime overhead of generic "
                        "automatic differentiation.",
              paper_value="stated qualitatively for fused GPU gradient kernels (abstract)",
              control="autograd's tape through the same DHS solve", reference=1.0),
        Claim(id="faster-than-neuron", kind="headline", gpu=True,
              statement="HelioX outperforms NEURON by orders of magnitude.",
              paper_value="'orders of magnitude' faster than NEURON on a GPU (abstract; no number read)",
              control="NEURON simulating the same cells", reference=100.0),
        Claim(id="exact-solve", kind="prior-work",
              statement="The DHS-parallelised Hines solve is exact: it returns the same solution as "
                        "a serial/direct solve of the tree system.",
              paper_value="DHS 'computationally optimal and accurate' (DeepDendrite, the prior work HelioX runs)"),
        Claim(id="optimal-schedule", kind="prior-work",
              statement="The DHS schedule needs the fewest possible parallel steps for a given number "
                        "of threads per neuron.",
              paper_value="proved optimal (DeepDendrite); example tree: 5 steps with 4 threads vs 14 serial"),
        Claim(id="exact-gradient", kind="identity",
              statement="Gradients propagated through the tree solve by the custom DHS backward "
                        "(adjoint) are exact.",
              paper_value="custom fused gradient kernels for DHS (abstract; no accuracy figure read); exact by "
                          "the adjoint derivation we implemented"),
        Claim(id="matches-neuron", kind="identity",
              statement="The simulator reproduces NEURON's dynamics (NEURON is the front end and "
                        "reference).",
              paper_value="not stated numerically in the abstract; our simulator implements NEURON's own "
                          "fixed-step scheme, so agreement holds by construction"),
        Claim(id="fits-conductances", kind="prior-work",
              statement="Channel densities of a detailed cell can be fitted by gradient descent through "
                        "the simulator.",
              paper_value="gradient-based fitting of single-cell parameters predates HelioX (e.g. Jaxley); "
                          "card criterion: trace MSE down >= 10x"),
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
    "tree_depth": ".method", "make_network": ".network", "init_weights": ".network",
    "run_network": ".network", "rate_network": ".network", "random_system": ".setting",
    "threshold_task": ".setting", "digits_task": ".setting",
    "xor_task": ".setting", "dhs_solve_autograd": ".method",
})
__all__ = ["PAPER", "dhs_schedule", "serial_schedule", "check_schedule", "optimal_steps_bruteforce",
           "hines_solve", "make_plan", "dhs_solve", "tree_solve", "hines_matrix", "Section",
           "Morphology", "build_morphology", "ball_and_stick", "y_neuron", "hh_rates", "Biophysics",
           "soma_hh_dend_pas", "Stimulus", "simulate", "spike_times", "random_tree", "tree_depth",
           "make_network", "init_weights", "run_network", "rate_network", "random_system", "threshold_task",
           "digits_task", "xor_task",
           "dhs_solve_autograd"]
