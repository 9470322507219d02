"""PVMC vs d-SMC vs a sequential soft-resampling PF: CPU seconds per training epoch.

The paper (arXiv:2605.21108) reports ~10x faster training than the fastest SMC-based
competitor on a GPU, where the associative scan over time runs in O(log T) parallel
rounds. Here everything runs on CPU, so the scan's extra work (N x N matrix-matrix
products instead of vector-matrix ones) is not hidden by parallel hardware; this script
measures the ratios with the shared timing helper and does not assert the GPU factor.

    OMP_NUM_THREADS=1 python benchmarks/pvmc.py [--T 50 200] [--N 16 32 50]

Columns: PVMC with the associative scans (the paper's method), the same PVMC estimator by
a sequential forward-backward (T sequential steps), d-SMC on the same proposal (the
paper's competitor, a tree over time with N^2 pairings per merge) and a bootstrap particle
filter with soft resampling (sequential). Time is CPU time of one training step
(forward + backward), scaled to an epoch; results go to report/bench/pvmc.json.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import torch

from icml26.core.timing import measure, write_bench
from icml26.decision.pvmc.method import (
    GaussianWindowProposal,
    LinearGaussianSSM,
    dsmc_objective,
    forward_backward_sequential,
    log_kernels,
    pvmc_objective,
    smoothing_mean,
    soft_resampling_pf,
)
from icml26.decision.pvmc.setting import random_stable_model

KINDS = ("pvmc-scan", "pvmc-sequential", "d-smc", "soft-pf")


def _step(kind: str, ssm, prop, y, x, N: int) -> None:
    if kind == "pvmc-scan":
        loss = pvmc_objective(ssm, prop, y, N, x_true=x)["loss"]
    elif kind == "pvmc-sequential":
        X, log_v = prop(y, N)
        l0, K = log_kernels(ssm, y, X, log_v)
        ll, lw = forward_backward_sequential(l0, K)
        loss = -ll.mean() / y.shape[1] + ((smoothing_mean(lw, X) - x) ** 2).sum(-1).mean()
    elif kind == "d-smc":
        loss = dsmc_objective(ssm, prop, y, N, x_true=x)["loss"]
    else:
        out = soft_resampling_pf(ssm, y, N, alpha=0.5)
        loss = -out["log_Z"].mean() / y.shape[1] + ((out["smooth_mean"] - x) ** 2).sum(-1).mean()
    loss.backward()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--T", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--N", type=int, nargs="+", default=[16, 32, 50])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--n-train", type=int, default=160)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    true = random_stable_model(2, 2, np.random.default_rng(0), dtype=torch.float32)
    steps = math.ceil(a.n_train / a.batch)
    print(f"CPU seconds per epoch ({steps} steps of batch {a.batch}), median of {a.reps} timed steps")
    print(f"{'T':>5} {'N':>4} " + " ".join(f"{k:>16}" for k in KINDS) + f" {'d-smc/scan':>11}")
    rows = []
    for T in a.T:
        x, y = true.simulate(a.batch, T)
        for N in a.N:
            sec = {}
            for kind in KINDS:
                ssm = LinearGaussianSSM(2, 2, generator=torch.Generator().manual_seed(0))
                prop = GaussianWindowProposal(2, 2)
                t = measure(lambda: _step(kind, ssm, prop, y, x, N), repeats=a.reps, warmup=1)  # noqa: B023
                sec[kind] = t.cpu_median * steps
            rows.append({"T": T, "N": N, **{f"sec_per_epoch/{k}": v for k, v in sec.items()},
                         "speedup_vs_dsmc": sec["d-smc"] / sec["pvmc-scan"],
                         "speedup_vs_soft_pf": sec["soft-pf"] / sec["pvmc-scan"]})
            print(f"{T:>5} {N:>4} " + " ".join(f"{sec[k]:>16.3f}" for k in KINDS)
                  + f" {sec['d-smc'] / sec['pvmc-scan']:>10.2f}x")
    write_bench("pvmc", {"clock": "cpu_median", "batch": a.batch, "steps_per_epoch": steps, "rows": rows})


if __name__ == "__main__":
    main()
