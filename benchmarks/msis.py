"""MSIS cost scaling in the number of states (arXiv:2603.14515, Fig. 1: O(Ns^0.14) vs superlinear).

For each Ns the script (1) measures the per-pair overlap RMSE of the per-state and the MSIS
estimator on the 1-D double-well trial states of the reproduction, (2) converts it into the
samples per state each estimator needs for a target RMSE (RMSE ~ N^-1/2), and (3) times one
VMC-like step at that sample size with a small shared-trunk network that evaluates every state
on every sample (the role Excited Pfaffians play): all-state forward pass, local energies of
each chain's own state (autograd Laplacian), the overlap estimate and the backward pass of
energy + penalty. It prints CPU seconds per step and the log-log slopes of cost in Ns.

    OMP_NUM_THREADS=1 python benchmarks/msis.py [--ns 2 4 8 16] [--target 0.01]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from icml26.core.stats import loglog_slope
from icml26.core.timing import measure, write_bench
from icml26.science.msis.setting import draw_samples, eigenbasis, trial_states
from icml26.science.msis.setting import pair_rmse as _pair_rmse
from icml26.science.msis.method import (msis_ratio, normalizer_ratios, overlap_from_ratio,
                                        per_state_ratio, triangular_alpha)


class SharedTrunk(torch.nn.Module):
    """psi_s(x) = head_s(trunk(x)) * exp(-x^2 / 2): one trunk for all states, one linear head each."""

    def __init__(self, n_states: int, width: int = 64):
        super().__init__()
        self.trunk = torch.nn.Sequential(torch.nn.Linear(1, width), torch.nn.Tanh(),
                                         torch.nn.Linear(width, width), torch.nn.Tanh())
        self.heads = torch.nn.Linear(width, n_states)

    def forward(self, x):  # x: (M, 1) -> (M, Ns)
        return self.heads(self.trunk(x)) * torch.exp(-0.5 * x ** 2)


def vmc_step(net: SharedTrunk, x: torch.Tensor, ns: int, n: int, estimator: str) -> None:
    """One energy + overlap-penalty evaluation and backward pass (timed by the caller)."""
    x = x.clone().requires_grad_(True)
    psi = net(x)  # (Ns*n, Ns): every state on every sample
    own = psi.reshape(ns, n, ns).diagonal(dim1=0, dim2=2).T.reshape(-1)  # psi_s on chain s
    d1 = torch.autograd.grad(own.sum(), x, create_graph=True)[0]
    d2 = torch.autograd.grad(d1.sum(), x, create_graph=True)[0]
    xs = x.reshape(-1)
    e_loc = -0.5 * d2.reshape(-1) / own + xs ** 4 / 4 - xs ** 2
    lp = torch.log(psi.abs() + 1e-300).reshape(ns, n, ns)
    lp_np, sg_np = lp.detach().numpy(), np.sign(psi.detach().numpy()).reshape(ns, n, ns)
    sg_np[sg_np == 0] = 1.0
    if estimator == "msis":
        R = msis_ratio(lp_np, sg_np, log_c=normalizer_ratios(lp_np))
    else:
        R = per_state_ratio(lp_np, sg_np)
    S = overlap_from_ratio(R)
    penalty = float((triangular_alpha(ns) * S ** 2).sum())
    # surrogate whose gradient has the energy + penalty structure (cost is what is measured)
    loss = (e_loc.detach() * torch.log(own.abs())).mean() + penalty * lp.mean()
    loss.backward()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--target", type=float, default=0.01)
    ap.add_argument("--n0", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    k = max(a.ns) + 4
    _, phi = eigenbasis("double_well_1d", k, 1200)
    rows = []
    for ns in a.ns:
        A, S_exact = trial_states(ns, k, 0.3, rng)
        est = {"per_state": [], "msis": []}
        for _ in range(a.repeats):
            lp, sg, _ = draw_samples(A, phi, a.n0, rng)
            est["per_state"].append(overlap_from_ratio(per_state_ratio(lp, sg)))
            est["msis"].append(overlap_from_ratio(msis_ratio(lp, sg)))
        net = SharedTrunk(ns)
        row = {"ns": ns}
        for key in est:
            rmse = _pair_rmse(np.asarray(est[key]), S_exact)
            n_need = max(8, int(np.ceil(a.n0 * (rmse / a.target) ** 2)))
            x = torch.randn(ns * n_need, 1)
            t = measure(lambda: vmc_step(net, x, ns, n_need, key), repeats=3, warmup=1)
            row[key] = (rmse, n_need, t.cpu_median)
        rows.append(row)
        print(f"Ns={ns:3d}  per-state: RMSE@{a.n0}={row['per_state'][0]:.4f} N/state={row['per_state'][1]:6d} "
              f"step={row['per_state'][2]:.3f}s | MSIS: RMSE@{a.n0}={row['msis'][0]:.4f} "
              f"N/state={row['msis'][1]:6d} step={row['msis'][2]:.3f}s", flush=True)
    ns_arr = np.array([r["ns"] for r in rows], dtype=float)
    for key in ("per_state", "msis"):
        samples = ns_arr * np.array([r[key][1] for r in rows])
        secs = np.array([r[key][2] for r in rows])
        print(f"{key:9s}: total samples ~ Ns^{loglog_slope(ns_arr, samples)[0]:.2f}, "
              f"CPU time per step ~ Ns^{loglog_slope(ns_arr, secs)[0]:.2f}  (paper: MSIS O(Ns^0.14))")
    print("time ratio per-state / MSIS at the largest Ns: "
          f"{rows[-1]['per_state'][2] / rows[-1]['msis'][2]:.1f}x")
    print("wrote", write_bench("msis", {"rows": rows, "target_rmse": a.target, "n0": a.n0}))


if __name__ == "__main__":
    main()
