"""Fault-injection fixtures for the framework's own tests (not a paper).

``FAKE_PAPERS`` joins the registry when ``ICML26_EXTRA_PAPERS=icml26.core._testing:FAKE_PAPERS``.
Each fake paper's run behaves as its profile says: return metrics, raise, hang, or kill its
own process with ``os._exit``.
"""

from __future__ import annotations

import os
import time

from icml26.core.paper import Claim, Paper, Profile, Verdict


def _threads() -> float:
    """The BLAS threads this job runs with (the runner sets them from ``Profile.cpus``)."""
    try:
        from threadpoolctl import threadpool_info

        counts = [i.get("num_threads", 1) for i in threadpool_info()]
        return float(max(counts)) if counts else float(os.environ.get("OMP_NUM_THREADS", "0") or 0)
    except ImportError:
        return float(os.environ.get("OMP_NUM_THREADS", "0") or 0)


def run(profile: Profile, seed: int) -> dict:
    mode = profile.get("mode", "ok")
    fail_seed = profile.get("fail_seed")
    if fail_seed is not None and seed != fail_seed:
        mode = "ok"
    pid_dir = os.environ.get("ICML26_FAKE_PID_DIR")
    if pid_dir:  # lets a test find (and watch) the worker process
        with open(os.path.join(pid_dir, f"{seed}.pid"), "w") as fh:
            fh.write(str(os.getpid()))
    if mode == "needs":
        import importlib

        importlib.import_module(profile.get("module", "choix"))
    if mode == "raise":
        raise RuntimeError(f"injected failure on seed {seed}")
    if mode == "hang":
        time.sleep(3600)
    if mode == "exit":
        os._exit(3)
    time.sleep(float(profile.get("sleep", 0.0)))
    import numpy as np

    rng = np.random.default_rng(seed)
    return {"value": float(rng.normal(1.0, 0.1)), "curve": rng.normal(size=5).tolist(), "threads": _threads()}


def check_positive(metrics: list[dict]) -> Verdict:
    vals = [m["value"] for m in metrics]
    mean = sum(vals) / len(vals)
    return Verdict("reproduced" if mean > 0 else "not-reproduced", f"mean {mean:.3f}",
                   f"mean over {len(vals)} seeds compared with 0")


def contradict_positive(metrics: list[dict]) -> list[dict]:
    return [{**m, "value": -abs(m["value"])} for m in metrics]


def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    for m in metrics:
        ax.plot(m["curve"])
    ax.set_xlabel("step")
    ax.set_ylabel("value (a.u.)")
    return fig


def _paper(slug: str, mode: str, **extra) -> Paper:
    claim = Claim("positive", "the value is positive [a|s,s'] at [t, p_k(t)]", "> 0 [bold]", kind="headline",
                  no_control="a fixture: an absolute claim with nothing to compare")
    return Paper(slug=slug, title=f"fake paper ({mode})", source="none", cluster="decision", feasibility="A",
                 substitution="not a paper: a framework fixture", claims=(claim,), run=f"{__name__}:run",
                 figure=f"{__name__}:figure",
                 profiles={"quick": Profile("quick", seeds=3, params={"mode": mode, **extra}, timeout_s=20),
                           "full": Profile("full", seeds=4, params={"mode": mode, "sleep": 0.5, **extra},
                                           timeout_s=20)})


FAKE_PAPERS = [
    _paper("fake-ok", "ok"),
    _paper("fake-needs", "needs", module="choix"),
    _paper("fake-raise", "raise", fail_seed=1),
    _paper("fake-hang", "hang", fail_seed=1),
    _paper("fake-exit", "exit", fail_seed=2),
]
# a slow one for interrupt tests
FAKE_PAPERS.append(Paper(**{**FAKE_PAPERS[0].__dict__, "slug": "fake-slow",
                            "profiles": {"quick": Profile("quick", seeds=6, params={"mode": "ok", "sleep": 1.5}),
                                         "full": Profile("full", seeds=6, params={"mode": "ok", "sleep": 1.5})}}))
