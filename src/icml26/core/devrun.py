"""Run one paper's profile in-process and print its verdicts (a development aid, no store).

    python -m icml26.core.devrun SLUG [quick|full] [--seeds N]
"""

from __future__ import annotations

import argparse
import json
import time

from icml26.core.registry import get_paper
from icml26.core.seeding import set_threads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("slug")
    ap.add_argument("profile", nargs="?", default="quick")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--show-metrics", action="store_true")
    a = ap.parse_args()
    set_threads(a.threads)
    paper = get_paper(a.slug)
    prof = paper.profile(a.profile)
    n = a.seeds or prof.seeds
    ms = []
    for s in range(n):
        t = time.perf_counter()
        ms.append(paper.run_seed(prof, s))
        print(f"seed {s}: {time.perf_counter() - t:.1f}s")
        if a.show_metrics:
            print(json.dumps(ms[-1])[:2000])
    for cid, v in paper.evaluate(ms).items():
        print(f"[{v.status}] {cid}: {v.measured}\n    {v.evidence}")


if __name__ == "__main__":
    main()
