"""PVMC vs differentiable SMC: CPU seconds per training epoch (forward + backward).

The paper (arXiv:2605.21108) reports ~10x faster training than the fastest SMC-based
competitor on a GPU, where the associative scan over time runs in O(log T) parallel
rounds. Here everything runs on one CPU thread, so the scan's extra work (N x N
matrix-matrix products instead of vector-matrix ones) is not hidden by parallel
hardware; this script measures the ratio honestly and does not assert the GPU factor.

    OMP_NUM_THREADS=1 python benchmarks/pvmc.py [--T 50 200] [--N 16 32 50]

Columns: PVMC with the associative scans (the paper's method), the same PVMC estimator
by a sequential forward-backward (T sequential steps), and a bootstrap particle filter
with soft resampling (sequential, d-SMC). Time is CPU time (robust to other load).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import torch

from icml26.decision.pvmc.experiment import random_stable_model
from icml26.decision.pvmc.method import (
    GaussianWindowProposal,
    LinearGaussianSSM,
    forward_backward_sequential,
    log_kernels,
    pvmc_objective,
    smoothing_mean,
    soft_resampling_pf,
)


def _step(kind: str, ssm, prop, y, x, N: int) -> None:
    if kind == "pvmc-scan":
        loss = pvmc_objective(ssm, prop, y, N, x_true=x)["loss"]
    elif kind == "pvmc-sequential":
        X, log_v = prop(y, N)
        l0, K = log_kernels(ssm, y, X, log_v)
        ll, lw = forward_backward_sequential(l0, K)
        loss = -ll.mean() / y.shape[1] + ((smoothing_mean(lw, X) - x) ** 2).sum(-1).mean()
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
    kinds = ("pvmc-scan", "pvmc-sequential", "d-smc")
    print(f"CPU seconds per epoch ({steps} steps of batch {a.batch}), median of {a.reps} timed steps")
    print(f"{'T':>5} {'N':>4} " + " ".join(f"{k:>16}" for k in kinds) + f" {'d-smc/scan':>11}")
    for T in a.T:
        x, y = true.simulate(a.batch, T)
        for N in a.N:
            sec = {}
            for kind in kinds:
                ssm = LinearGaussianSSM(2, 2, generator=torch.Generator().manual_seed(0))
                prop = GaussianWindowProposal(2, 2)
                ts = []
                for _ in range(a.reps + 1):
                    t0 = time.process_time()
                    _step(kind, ssm, prop, y, x, N)
                    ts.append(time.process_time() - t0)
                sec[kind] = float(np.median(ts[1:])) * steps
            print(f"{T:>5} {N:>4} " + " ".join(f"{sec[k]:>16.3f}" for k in kinds)
                  + f" {sec['d-smc'] / sec['pvmc-scan']:>10.2f}x")


if __name__ == "__main__":
    main()
