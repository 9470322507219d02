"""ESE speed-up and scaling (arXiv:2606.13285: 10-70x faster when wrapped around a predictor,
linear-time in the number of systems n).

For n systems on the synthetic generator of the reproduction, measures CPU time of
fit + one-step forecasts over the test split for
  * per-system ARIMA(1,1,0) / ridge-on-lags (n models)  vs  the same model on the total + ESE,
  * ESE alone (AR on the total + equilibrium estimation at every origin),
and prints the speed-up ratios and the log-log slope of ESE's time against n.

    OMP_NUM_THREADS=1 python benchmarks/ese.py [--ns 10 40 160 640] [--T 600]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from icml26.core.stats import loglog_slope
from icml26.decision.ese.experiment import generate, per_system, total_forecast
from icml26.decision.ese.method import ar_fit, ar_total_forecast, ese_forecast


def cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns", type=int, nargs="+", default=[10, 40, 160, 640])
    ap.add_argument("--T", type=int, default=600)
    ap.add_argument("--window", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    rows, t_ese = [], []
    S0, A0 = generate(10, 4, 120, rng)  # warm-up: first calls pay for imports and caches
    ese_forecast(S0, A0, np.arange(100, 119), np.ones(19), window=a.window)
    per_system("arima", S0[:, :2], 108), per_system("ridge", S0[:, :2], 108)
    for n in a.ns:
        S, A = generate(n, 4, a.T, rng)
        n_train = int(round(0.9 * a.T))
        origins = np.arange(n_train - 1, a.T - 1)
        MS = S.sum(axis=1)

        def ese_es():
            return ese_forecast(S, A, origins, np.ones(origins.size), window=a.window)[1]

        def ese_alone():
            coef = ar_fit(MS[:n_train], q=2)
            ms = np.array([ar_total_forecast(coef, MS[:t + 1]) for t in origins])
            return ese_forecast(S, A, origins, ms, window=a.window)

        t_es, _ = cpu(ese_es)
        t_alone, _ = cpu(ese_alone)
        t_ese.append(t_alone)
        row = {"n": n, "ese": t_alone}
        for base in ("arima", "ridge"):
            t_per, _ = cpu(lambda: per_system(base, S, n_train))
            t_tot, _ = cpu(lambda: total_forecast(base, MS, n_train))
            row[base] = t_per
            row[f"{base}+ese"] = t_tot + t_es
        rows.append(row)
        print(f"n={n:4d}  ESE {row['ese']:.3f}s | ARIMA {row['arima']:.2f}s vs ARIMA+ESE {row['arima+ese']:.3f}s "
              f"(x{row['arima'] / row['arima+ese']:.1f}) | ridge {row['ridge']:.3f}s vs ridge+ESE "
              f"{row['ridge+ese']:.3f}s (x{row['ridge'] / row['ridge+ese']:.1f})", flush=True)
    slope, se = loglog_slope([r["n"] for r in rows], t_ese)
    slope_ar, se_ar = loglog_slope([r["n"] for r in rows], [r["arima"] for r in rows])
    print(f"log-log slope of time vs n: ESE {slope:.2f} +- {se:.2f} (paper: linear, slope 1); "
          f"per-system ARIMA {slope_ar:.2f} +- {se_ar:.2f}")
    big = rows[-1]
    print(f"speed-up at n={big['n']}: ARIMA+ESE over per-system ARIMA x{big['arima'] / big['arima+ese']:.1f}, "
          f"ESE alone over per-system ARIMA x{big['arima'] / big['ese']:.1f} (paper: 10-70x)")


if __name__ == "__main__":
    main()
