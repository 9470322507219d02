"""Ray backend: the same jobs as the local pool, scheduled as Ray tasks.

``icml26 run ... --backend ray [--address HOST:PORT]``. With no address a local Ray
instance is started (and stopped afterwards). Workers only compute: each task returns its
metrics to the driver, which writes the store as results arrive, so the SQLite file is
never touched from a worker node.

Resources per task come from the paper's profile (``Profile.cpus``, ``Profile.gpu``). A job
that needs a GPU on a cluster without one is skipped with a message and stored as a
``skipped`` row; it is never run on the CPU under a GPU label. At most as many tasks as the
cluster has CPUs (or ``--jobs``) are in flight, so a task's timeout counts from its start.
Every node needs the same ``icml26`` installed (``pip install icml26[all,ray]``).
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from icml26.core.jobs import Job, Outcome


def _task(slug: str, profile: str, seed: int, threads: int, overrides: str = "{}") -> tuple[Any, ...]:
    from icml26.core.jobs import execute_job

    t0 = time.perf_counter()
    try:
        metrics, mods, h = execute_job(slug, profile, seed, threads, overrides)
        return "ok", metrics, None, time.perf_counter() - t0, mods, h
    except BaseException:  # noqa: BLE001 - every failure becomes an error row
        return "error", None, traceback.format_exc(), time.perf_counter() - t0, None, None


def check_address(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast (``ConnectionError``) when a ``host:port`` Ray address does not answer."""
    if address in ("auto", "local"):
        return
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"Ray address must look like HOST:PORT (or ray://HOST:PORT, auto), got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        raise ConnectionError(f"cannot reach a Ray head at {address}: {exc}") from None


def _init(address: str | None, workers: int | None) -> bool:
    """Connect to (or start) Ray; returns True when this call started it."""
    import ray

    if ray.is_initialized():
        return False
    env = {k: os.environ[k] for k in ("ICML26_EXTRA_PAPERS",) if k in os.environ}
    kwargs: dict[str, Any] = {"runtime_env": {"env_vars": env} if env else None, "log_to_driver": False,
                              "configure_logging": False}
    if address:
        check_address(address)
        ray.init(address=address, **kwargs)
    else:
        from icml26.core.jobs import default_jobs

        ray.init(num_cpus=workers or default_jobs(), include_dashboard=False, **kwargs)
    return True


def run_ray(jobs: Sequence[Job], *, address: str | None = None, workers: int | None = None,
            on_start: Callable[[Job], None] | None = None, on_done: Callable[[Outcome], None] | None = None,
            poll_s: float = 0.2) -> tuple[list[Outcome], bool]:
    """Run jobs as Ray tasks; returns (outcomes, interrupted) like :func:`icml26.core.runner.run_local`."""
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("the ray backend needs Ray: pip install 'icml26[ray]'") from exc
    if workers is not None and workers < 1:
        raise ValueError(f"jobs must be >= 1, got {workers}")
    started = _init(address, workers)
    outcomes: list[Outcome] = []

    def finish(out: Outcome) -> None:
        outcomes.append(out)
        if on_done:
            on_done(out)

    try:
        resources = ray.cluster_resources()
        n_gpu = float(resources.get("GPU", 0))
        capacity = max(1, int(workers or resources.get("CPU", 1)))
        remote = ray.remote(_task)
        pending = deque()
        for job in jobs:
            if job.gpu and n_gpu < 1:
                finish(Outcome(job, "skipped", error="the profile needs a GPU and this Ray cluster has none; "
                                                     "not run (it would not be the paper's setting on CPU)"))
            else:
                pending.append(job)
        running: dict[Any, tuple[Job, float]] = {}
        try:
            while pending or running:
                while pending and len(running) < capacity:
                    job = pending.popleft()
                    ref = remote.options(num_cpus=job.cpus, num_gpus=1 if job.gpu else 0, max_retries=0,
                                         name=f"{job.paper}:{job.profile}:{job.seed}").remote(
                        job.paper, job.profile, job.seed, job.cpus, job.overrides)
                    running[ref] = (job, time.monotonic())
                    if on_start:
                        on_start(job)
                ready, _ = ray.wait(list(running), num_returns=1, timeout=poll_s)
                for ref in ready:
                    job, t0 = running.pop(ref)
                    try:
                        status, metrics, error, dur, mods, h = ray.get(ref)
                        finish(Outcome(job, status, metrics, error, dur, mods, h))
                    except ray.exceptions.TaskCancelledError:
                        finish(Outcome(job, "timeout", error=f"timed out after {job.timeout_s:.0f} s; task cancelled",
                                       duration_s=time.monotonic() - t0))
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.RayError) as exc:
                        finish(Outcome(job, "crashed", error=f"Ray worker died: {type(exc).__name__}: {exc}",
                                       duration_s=time.monotonic() - t0))
                now = time.monotonic()
                for ref, (job, t0) in list(running.items()):
                    if now - t0 > job.timeout_s:
                        ray.cancel(ref, force=True)
                        running.pop(ref)
                        finish(Outcome(job, "timeout", error=f"timed out after {job.timeout_s:.0f} s; task cancelled",
                                       duration_s=now - t0))
            return outcomes, False
        except KeyboardInterrupt:
            for ref in running:
                ray.cancel(ref, force=True)
            return outcomes, True
    finally:
        if started:
            ray.shutdown()
