"""ESE speed-up and scaling (arXiv:2606.13285: 10-70x faster when wrapped around a predictor,
linear-time in the number of systems n).

For n systems on the reproduction's generator, times (``icml26.core.timing``, CPU and wall,
interleaved repeats) fit + one-step forecasts over the test split for
  * per-system ARIMA(1,1,0) (n models)  vs  ARIMA on the total + ESE,
  * per-system ridge on 20 lags         vs  ridge on the total + ESE,
  * ESE alone (AR on the total + the equilibrium at every origin), for the scaling slope,
and writes report/bench/ese.json. Pre-registered rules, printed with the numbers: speed-up of
ARIMA+ESE over per-system ARIMA >= 10x at the largest n; log-log slope of ESE's time in n <= 1.2.

    OMP_NUM_THREADS=1 python benchmarks/ese.py [--ns 10 40 160 640] [--T 500] [--repeats 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from icml26.core.stats import loglog_slope
from icml26.core.timing import compare, measure, write_bench
from icml26.decision.ese.method import ar_fit, ar_total_forecast, ese_forecast
from icml26.decision.ese.setting import generate, per_system, total_forecast


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ns", type=int, nargs="+", default=[10, 40, 160, 640])
    ap.add_argument("--T", type=int, default=500)
    ap.add_argument("--window", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="report/bench", help="folder for ese.json")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    rows = []
    for n in a.ns:
        S, A = generate(n, 4, a.T, rng, kappa=0.8)
        n_train = int(round(0.9 * a.T))
        origins = np.arange(n_train - 1, a.T - 1)
        MS = S.sum(axis=1)

        def ese_alone():
            coef = ar_fit(MS[:n_train], q=2)
            ms = np.array([ar_total_forecast(coef, MS[:t + 1]) for t in origins])
            return ese_forecast(S, A, origins, ms, window=a.window)

        row = {"n": n, "ese_alone": measure(ese_alone, repeats=a.repeats).to_dict()}
        for base in ("arima", "ridge"):
            def wrapped(base=base):
                ms = total_forecast(base, MS, n_train)
                return ese_forecast(S, A, origins, ms, window=a.window)

            row[base] = compare(lambda base=base: per_system(base, S, n_train), wrapped, repeats=a.repeats)
        rows.append(row)
        print(f"n={n:4d}  ESE alone {row['ese_alone']['cpu_median']:.3f}s CPU | per-system ARIMA / ARIMA+ESE "
              f"x{row['arima']['speedup_cpu']:.1f} | per-system ridge / ridge+ESE x{row['ridge']['speedup_cpu']:.1f}",
              flush=True)
    ns = [r["n"] for r in rows]
    slope, se = loglog_slope(ns, [r["ese_alone"]["cpu_median"] for r in rows])
    slope_ar, se_ar = loglog_slope(ns, [r["arima"]["baseline"]["cpu_median"] for r in rows])
    big = rows[-1]
    verdicts = {
        "speed-up": "reproduced" if big["arima"]["speedup_cpu"] >= 10 else "not-reproduced",
        "linear-scaling": "reproduced" if slope <= 1.2 else "not-reproduced",
    }
    print(f"log-log slope of time vs n: ESE {slope:.2f} +- {se:.2f} (paper: linear); per-system ARIMA "
          f"{slope_ar:.2f} +- {se_ar:.2f}")
    print(f"speed-up at n={big['n']}: ARIMA+ESE over per-system ARIMA x{big['arima']['speedup_cpu']:.1f} CPU "
          f"(paper: 10-70x); pre-registered verdicts: {verdicts}")
    path = write_bench("ese", {"rows": rows, "slope_ese": slope, "slope_ese_se": se, "slope_arima": slope_ar,
                               "verdicts": verdicts, "T": a.T, "window": a.window}, folder=a.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
