"""Run one paper's profile in-process and print its verdicts (a development aid, no store).

    python -m icml26.core.devrun SLUG [quick|full] [--seeds N] [--first-seed S]

Seeds start at ``DEV_SEED0`` (100) by default, so that tuning never looks at the seeds 0..n-1 that
the stored profile runs decide verdicts on. ``--first-seed 0`` reproduces the profile's own seeds
(for debugging a stored run, not for choosing settings).
"""

from __future__ import annotations

import argparse
import json
import time

from icml26.core.registry import get_paper
from icml26.core.seeding import set_threads

DEV_SEED0 = 100  # development seeds start here; profiles decide on seeds 0..n-1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("slug")
    ap.add_argument("profile", nargs="?", default="quick")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--first-seed", type=int, default=DEV_SEED0,
                    help=f"first seed (default {DEV_SEED0}: development seeds, disjoint from the profile's)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--show-metrics", action="store_true")
    a = ap.parse_args()
    set_threads(a.threads)
    paper = get_paper(a.slug)
    prof = paper.profile(a.profile)
    n = prof.seeds if a.seeds is None else a.seeds
    if n < 1:
        ap.error("--seeds must be >= 1")
    if a.first_seed < 0:
        ap.error("--first-seed must be >= 0")
    if a.first_seed < prof.seeds:
        print(f"note: seeds from {a.first_seed} overlap the profile's seeds 0..{prof.seeds - 1}; "
              "do not choose settings on them")
    ms = []
    for s in range(a.first_seed, a.first_seed + n):
        t = time.perf_counter()
        ms.append(paper.run_seed(prof, s))
        print(f"seed {s}: {time.perf_counter() - t:.1f}s")
        if a.show_metrics:
            print(json.dumps(ms[-1])[:2000])
    for cid, v in paper.evaluate(ms).items():
        print(f"[{v.status}] {cid}: {v.measured}\n    {v.evidence}")


if __name__ == "__main__":
    main()
