"""GPM vs BECAT: selection time per test step (GPM claims to be cheaper and more scalable
than global gradient matching).

For banks of Q items (1-D 2PL and 3-D MIRT) and examinees who have answered t questions,
times (``icml26.core.timing``) one selection step of GPM's policy (an untrained policy costs
the same as a trained one), BECAT's greedy gain, MFI and KLI; prints the ratio GPM / BECAT and
the log-log slope of the time against Q, and writes report/bench/gpm.json.

    OMP_NUM_THREADS=1 python benchmarks/gpm.py [--Qs 100 300 1000] [--t 10] [--B 100]
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    import torch

    from icml26.core.stats import loglog_slope
    from icml26.core.timing import measure, write_bench
    from icml26.decision.gpm import method as M
    from icml26.decision.gpm.setting import make_bank, simulate

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--Qs", type=int, nargs="+", default=[100, 300, 1000])
    ap.add_argument("--t", type=int, default=10, help="questions answered before the timed step")
    ap.add_argument("--B", type=int, default=100, help="examinees selected for at once")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default="report/bench", help="folder for gpm.json")
    a_ = ap.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    results = {}
    for d in (1, 3):
        times = {k: [] for k in ("gpm", "becat", "mfi", "kli")}
        for Q in a_.Qs:
            a, c = make_bank(Q, d, rng)
            _, Y = simulate(a, c, a_.B, rng)
            selected = np.stack([rng.choice(Q, a_.t, replace=False) for _ in range(a_.B)])
            mask = np.zeros((a_.B, Q))
            np.put_along_axis(mask, selected, 1, axis=1)
            theta = M.map_estimate(Y, mask, a, c)
            info = M.information(theta, a, c, mask)
            avail = 1 - mask
            model = M.GPMModel(M.make_policy(Q, 64), c, np.zeros(d), [1.0], [1.0])
            gen = torch.Generator().manual_seed(0)
            fns = {
                "gpm": lambda: M.select_gpm(model, a, Y, selected, avail, gen),
                "becat": lambda: M.select_becat(theta, a, c, avail, selected, rng),
                "mfi": lambda: M.select_mfi(theta, a, c, avail, info),
                "kli": lambda: M.select_kli(theta, a, c, avail, a_.t),
            }
            row = []
            for k, fn in fns.items():
                per = measure(fn, repeats=a_.repeats).cpu_median / a_.B
                times[k].append(per)
                row.append(f"{k} {per * 1e3:.3f} ms")
            print(f"d={d} Q={Q:5d} t={a_.t}: " + " | ".join(row)
                  + f" | GPM/BECAT = {times['gpm'][-1] / times['becat'][-1]:.3f}", flush=True)
        slopes = {k: loglog_slope(a_.Qs, times[k])[0] for k in ("gpm", "becat")}
        for k, s in slopes.items():
            print(f"d={d}: log-log slope of {k} time per step vs bank size: {s:.2f}")
        results[f"d{d}"] = {"Qs": a_.Qs, "cpu_s_per_examinee": times, "slopes": slopes}
    print(f"wrote {write_bench('gpm', results, folder=a_.out)}")


if __name__ == "__main__":
    main()
