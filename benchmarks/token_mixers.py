"""Decoding cost of structured token-mixing patterns (arXiv:2605.31367), measured.

For each index pattern and sequence length n, decode a random single-head matrix-state
recurrence step by step (``state_recurrence_reference``, dropping dead states) and report:
peak cache in floats (live states x d_k x d_v; for softmax attention the KV cache n x (d_k + d_v)),
recurrence reads nnz(B), and wall time per decoded token; then the log-log slopes of cache and
nnz(B) against n, next to the paper's stated orders.

    python benchmarks/token_mixers.py [--ns 128 256 512 1024] [--dk 16]
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from icml26.core.stats import loglog_slope
from icml26.core.timing import measure, write_bench
from icml26.llm.token_mixers import method as M

STATED = {"first-order": "O(1) cache, O(n) time", "fenwick": "O(log n) cache, O(n log n) time",
          "sqrt-blocks": "O(sqrt n) cache, O(n sqrt n) time", "dyadic": "time O(n log n)",
          "quadratic": "time O(n sqrt n)", "attention": "O(n) cache, O(n^2) time"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ns", type=int, nargs="+", default=[128, 256, 512, 1024])
    ap.add_argument("--dk", type=int, default=16)
    a = ap.parse_args()
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    rows = {}
    for pat in ("first-order", "fenwick", "sqrt-blocks", "dyadic", "quadratic"):
        for n in a.ns:
            P, valid = M.parent_table(n, pat)
            lam = torch.rand(n, P.shape[1], generator=g) / P.shape[1]
            q, k, v = (torch.randn(n, a.dk, generator=g) for _ in range(3))
            box = {}
            t = measure(lambda: box.__setitem__("cache", M.state_recurrence_reference(lam, P, valid, q, k, v)[1]),
                        repeats=1, warmup=0)
            cache, dt = box["cache"], t.wall_min / n
            rows[(pat, n)] = (max(cache) * a.dk * a.dk, M.recurrence_nnz(n, pat), dt)
    for n in a.ns:  # softmax attention: KV cache grows with n, every step reads all of it
        rows[("attention", n)] = (n * 2 * a.dk, n * (n - 1) // 2, float("nan"))
    print(f"{'pattern':12s} {'n':>6s} {'cache floats':>13s} {'nnz(B)':>10s} {'us/token':>9s}")
    for (pat, n), (c, z, dt) in rows.items():
        print(f"{pat:12s} {n:6d} {c:13.0f} {z:10d} {1e6 * dt:9.1f}")
    print("\nlog-log slopes vs n (cache, nnz) and the stated orders")
    for pat in STATED:
        cs = [rows[(pat, n)][0] for n in a.ns]
        zs = [rows[(pat, n)][1] for n in a.ns]
        sc = loglog_slope(a.ns, cs)[0] if len(set(cs)) > 1 else 0.0
        print(f"{pat:12s} cache slope {sc:5.2f}  nnz slope {loglog_slope(a.ns, zs)[0]:5.2f}   stated: {STATED[pat]}")
    n = a.ns[-1]
    write_bench("token_mixers", {"ns": a.ns, "dk": a.dk, "rows": {f"{pat}/{n}": {"cache_floats": c, "nnz": z,
                                                                                "s_per_token": dt}
                                                                 for (pat, n), (c, z, dt) in rows.items()}})
    print(f"\ncache ratio at n={n}: attention / fenwick = {rows[('attention', n)][0] / rows[('fenwick', n)][0]:.1f}, "
          f"fenwick / first-order = {rows[('fenwick', n)][0] / rows[('first-order', n)][0]:.1f}")


if __name__ == "__main__":
    main()
