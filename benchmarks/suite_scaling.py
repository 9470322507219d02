"""Wall time of the quick suite: local pool with 1 and 2 workers, and Ray with 2 CPUs.

Prints the times and the ratios (speed-up of 2 workers over 1; Ray's overhead over the local
pool at equal workers). Each configuration writes to its own temporary store and forces
recomputation, so all three do the same work. It reruns the whole quick suite three times
(minutes), so ``icml26 bench`` runs it only when named: ``icml26 bench suite_scaling``.
Results also go to ``report/bench/suite_scaling.json``.

    python benchmarks/suite_scaling.py [--papers b3 sign-estimator ...] [--seeds N] [--no-ray]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from icml26.core.registry import all_papers, get_paper
from icml26.core.runner import execute
from icml26.core.store import Store
from icml26.core.timing import write_bench


def timed(papers, backend: str, workers: int, seeds: int | None, folder: Path) -> float:
    with Store(folder / f"{backend}-{workers}.sqlite") as st:
        t0 = time.perf_counter()
        summary = execute(papers, "quick", st, seeds=seeds, workers=workers, backend=backend, force=True)
        dt = time.perf_counter() - t0
    failed = len(summary.failed)
    print(f"{backend:>5} x{workers}: {dt:7.1f} s  ({len(summary.outcomes)} jobs, {failed} failed)", flush=True)
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--papers", nargs="*", default=None, help="slugs (default: every paper)")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--no-ray", action="store_true")
    a = ap.parse_args()
    papers = [get_paper(s) for s in a.papers] if a.papers else all_papers()
    results: dict = {"papers": [p.slug for p in papers], "seeds": a.seeds}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"timing the quick suite of {len(papers)} papers: local x1, local x2"
              f"{'' if a.no_ray else ', ray x2'} (this takes minutes)", flush=True)
        t1 = timed(papers, "local", 1, a.seeds, folder)
        t2 = timed(papers, "local", 2, a.seeds, folder)
        results.update(local_1_s=t1, local_2_s=t2, speedup_2_over_1=t1 / t2)
        print(f"speed-up of 2 local workers over 1: {t1 / t2:.2f}x")
        if not a.no_ray:
            try:
                import ray  # noqa: F401
            except ImportError:
                print("ray not installed: pip install 'icml26[ray]'")
            else:
                tr = timed(papers, "ray", 2, a.seeds, folder)
                results.update(ray_2_s=tr, ray_over_local_ratio=tr / t2)
                print(f"Ray (2 CPUs) / local (2 workers) wall time: {tr / t2:.2f}x")
    print(f"wrote {write_bench('suite_scaling', results, folder=Path(__file__).resolve().parents[1] / 'report' / 'bench')}")


if __name__ == "__main__":
    main()
