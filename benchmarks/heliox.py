"""HelioX/DHS speed against NEURON on CPU (the paper's 'orders of magnitude' is on a GPU).

For batches of B identical-morphology ball-and-stick cells (soma with hh, a 51-compartment
passive dendrite, IClamp with a different amplitude per cell, dt = 0.025 ms) the script times
(CPU process time, core.timing) NEURON simulating the B cells in process and our simulator
advancing all B cells at once, each time step solving the B Hines systems together over the
DHS schedule (vectorised numpy, one thread). It also prints the number of parallel DHS steps
against the serial Hines count for the same cell and for a branched cell, and the
forward+backward time of the adjoint tree solve against autograd's tape through the same
solve. Results go to report/bench/heliox.json.

    OMP_NUM_THREADS=1 python benchmarks/heliox.py [--cells 1 16 256] [--t-stop 20]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from icml26.core.timing import compare, write_bench
from icml26.science.heliox.method import (Stimulus, ball_and_stick, dhs_schedule, dhs_solve_autograd, make_plan,
                                          random_tree, simulate, soma_hh_dend_pas, tree_solve, y_neuron)
from icml26.science.heliox.setting import DT, neuron_ball_and_stick, random_system


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, nargs="+", default=[1, 16, 256])
    ap.add_argument("--t-stop", type=float, default=20.0)
    ap.add_argument("--nseg", type=int, default=51)
    args = ap.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    morph = ball_and_stick(args.nseg)
    bio = soma_hh_dend_pas(morph)
    results: dict = {"neuron_vs_ours": {}, "steps": {}}
    print(f"ball-and-stick, N={morph.n} compartments, {args.t_stop} ms at dt={DT} ms")
    print(f"{'cells':>6} {'NEURON s':>10} {'DHS-batched s':>14} {'NEURON/ours':>12}")
    for b in args.cells:
        amps = rng.uniform(0.3, 0.8, b)
        stim = Stimulus(0, 2.0, args.t_stop, 0.5)
        r = compare(lambda: neuron_ball_and_stick(args.nseg, 500.0, stim, args.t_stop, amps),
                    lambda: simulate(morph, bio, stim, args.t_stop, DT, batch=b, amp=amps), repeats=2, warmup=0)
        results["neuron_vs_ours"][str(b)] = r
        print(f"{b:>6} {r['baseline']['cpu_median']:>10.3f} {r['method']['cpu_median']:>14.3f} "
              f"{r['speedup_cpu']:>12.3f}")

    print("\nparallel steps of one triangularisation (serial Hines = N)")
    for name, parent in (("ball-and-stick", morph.parent), ("3-dendrite star", y_neuron(50, 3).parent),
                         ("random tree N=1000", random_tree(1000, rng, 0.3))):
        steps = {k: len(dhs_schedule(parent, k)) for k in (1, 4, 16, 64)}
        results["steps"][name] = steps
        print(f"  {name:<20} N={parent.size:<5} " + "  ".join(f"k={k}: {s}" for k, s in steps.items()))

    print("\nforward+backward of one batched tree solve (N=300, B=8, k=8), median of 5")
    parent = random_tree(300, rng, 0.3)
    plan = make_plan(parent, 8)
    sysm = [torch.tensor(x) for x in random_system(parent, rng, batch=8)]

    def fwd_bwd(fn):
        def go():
            leaves = [x.clone().requires_grad_() for x in sysm]
            (fn(plan, *leaves) ** 2).sum().backward()
        return go

    r = compare(fwd_bwd(dhs_solve_autograd), fwd_bwd(tree_solve), repeats=5)
    results["adjoint_vs_tape"] = r
    print(f"  adjoint {r['method']['cpu_median'] * 1e3:8.2f} ms   autograd tape {r['baseline']['cpu_median'] * 1e3:8.2f} ms"
          f"   tape/adjoint {r['speedup_cpu']:.2f}x")
    print("wrote", write_bench("heliox", results))


if __name__ == "__main__":
    main()
