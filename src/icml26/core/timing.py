"""The one timing helper: repeated CPU and wall time, min and median, and JSON results.

Speed claims are ratios against a baseline measured in the same process with the same
helper. Benchmarks write their results under ``report/bench/<name>.json`` with
:func:`write_bench`, and the report shows them beside the paper's verdicts.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path("report") / "bench"


@dataclass(frozen=True)
class Timing:
    """Seconds per call over ``repeats`` calls (after ``warmup`` untimed ones)."""

    wall_min: float
    wall_median: float
    cpu_min: float
    cpu_median: float
    repeats: int

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def measure(fn: Callable[[], Any], *, repeats: int = 5, warmup: int = 1) -> Timing:
    """Time ``fn()`` ``repeats`` times (wall clock and process CPU time)."""
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an integer >= 1, got {repeats!r}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0, got {warmup!r}")
    for _ in range(warmup):
        fn()
    walls, cpus = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    return Timing(min(walls), statistics.median(walls), min(cpus), statistics.median(cpus), repeats)


def ratio(baseline: Timing, method: Timing, *, clock: str = "wall_min") -> float:
    """Speed-up of ``method`` over ``baseline`` (> 1: the method is faster) on one clock."""
    b, m = getattr(baseline, clock), getattr(method, clock)
    return float(b / m) if m > 0 else float("inf")


def compare(baseline: Callable[[], Any], method: Callable[[], Any], *, repeats: int = 5, warmup: int = 1,
            interleave: bool = True) -> dict[str, Any]:
    """Time a baseline and a method in one run (interleaved repeats), and their speed-up ratios."""
    if interleave:
        tb, tm = [], []
        for _ in range(warmup):
            baseline()
            method()
        for _ in range(repeats):
            tb.append(measure(baseline, repeats=1, warmup=0))
            tm.append(measure(method, repeats=1, warmup=0))
        b = Timing(min(t.wall_min for t in tb), statistics.median(t.wall_min for t in tb),
                   min(t.cpu_min for t in tb), statistics.median(t.cpu_min for t in tb), repeats)
        m = Timing(min(t.wall_min for t in tm), statistics.median(t.wall_min for t in tm),
                   min(t.cpu_min for t in tm), statistics.median(t.cpu_min for t in tm), repeats)
    else:
        b, m = measure(baseline, repeats=repeats, warmup=warmup), measure(method, repeats=repeats, warmup=warmup)
    return {"baseline": b.to_dict(), "method": m.to_dict(), "speedup_wall": ratio(b, m, clock="wall_median"),
            "speedup_cpu": ratio(b, m, clock="cpu_median")}


def write_bench(name: str, results: dict[str, Any], folder: str | Path = BENCH_DIR) -> Path:
    """Write a benchmark's results as ``<folder>/<name>.json`` (creating the folder)."""
    if not name or "/" in name:
        raise ValueError(f"name must be a plain file stem, got {name!r}")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(results, indent=2, sort_keys=True, default=str), encoding="utf-8")
    return path
