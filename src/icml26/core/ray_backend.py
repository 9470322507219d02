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
from collections.abc import Callable, Sequence
from typing import Any

from icml26.core.jobs import Claim, Dispatcher, Job, Outcome, fmt_seconds


def _task(slug: str, profile: str, seed: int, threads: int, overrides: str = "{}",
          driver: tuple[str, int] | None = None) -> tuple[Any, ...]:
    from icml26.core.jobs import execute_job

    if driver is not None and driver[0] == socket.gethostname():
        _watch_driver(driver[1])
    t0 = time.perf_counter()
    try:
        metrics, mods, h = execute_job(slug, profile, seed, threads, overrides)
        return "ok", metrics, None, time.perf_counter() - t0, mods, h
    except BaseException:  # noqa: BLE001 - every failure becomes an error row
        return "error", None, traceback.format_exc(), time.perf_counter() - t0, None, None


_WATCHED: set[int] = set()


def _watch_driver(pid: int) -> None:
    """A task whose driver (same host) has died stops computing (Ray would keep the worker busy)."""
    import threading

    from icml26.core.store import _pid_alive

    if pid in _WATCHED:  # Ray reuses worker processes: one watcher per driver
        return
    _WATCHED.add(pid)

    def watch() -> None:
        while _pid_alive(pid):
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="icml26-driver-watch", daemon=True).start()


_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def check_address(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast (``ConnectionError``) when a ``host:port`` Ray address does not answer as Ray would.

    A Ray head (GCS) or Ray client server speaks gRPC, i.e. HTTP/2: it answers the HTTP/2
    connection preface with a SETTINGS frame at once. A closed port, a port of another
    service, or one that never answers is refused within ``timeout_s``.
    """
    if address in ("auto", "local"):
        return
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"Ray address must look like HOST:PORT (or ray://HOST:PORT, auto), got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s) as sock:
            sock.settimeout(timeout_s)
            sock.sendall(_H2_PREFACE)
            head = b""
            while len(head) < 9:
                chunk = sock.recv(9 - len(head))
                if not chunk:
                    break
                head += chunk
    except socket.timeout:
        raise ConnectionError(f"{address} accepted a connection but did not answer like a Ray head within "
                              f"{timeout_s:g} s (is it a Ray GCS port, e.g. 6379?)") from None
    except OSError as exc:
        raise ConnectionError(f"cannot reach a Ray head at {address}: {exc}") from None
    if len(head) < 9 or head[3] != 0x04:
        raise ConnectionError(f"{address} is open but is not a Ray head (it does not speak gRPC); "
                              "give the Ray GCS address, e.g. HEAD_HOST:6379")


def _init(address: str | None, workers: int | None) -> bool:
    """Connect to (or start) Ray; returns True when this call started it."""
    import ray

    from icml26.core.jobs import quiet

    if ray.is_initialized():
        return False
    env = {k: os.environ[k] for k in ("ICML26_EXTRA_PAPERS", "ICML26_LOG", "NEURON_MODULE_OPTIONS")
           if k in os.environ}
    kwargs: dict[str, Any] = {"runtime_env": {"env_vars": env} if env else None, "log_to_driver": False,
                              "configure_logging": False}
    if address:
        check_address(address)
    with quiet():  # Ray's start-up banner and warnings go to the log
        if address:
            ray.init(address=address, **kwargs)
        else:
            from icml26.core.jobs import default_jobs

            ray.init(num_cpus=workers or default_jobs(), include_dashboard=False, **kwargs)
    return True


def run_ray(jobs: Sequence[Job], *, address: str | None = None, workers: int | None = None,
            on_start: Callable[[Job], None] | None = None, on_done: Callable[[Outcome], None] | None = None,
            poll_s: float = 0.2, claim: Claim | None = None,
            on_other: Callable[[Job], None] | None = None) -> tuple[list[Outcome], bool]:
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
        runnable = []
        for job in jobs:
            if job.gpu and n_gpu < 1:
                finish(Outcome(job, "skipped", error="the profile needs a GPU and this Ray cluster has none; "
                                                     "not run (it would not be the paper's setting on CPU)"))
            else:
                runnable.append(job)
        pending = Dispatcher(runnable, claim, on_other=on_other)
        driver = (socket.gethostname(), os.getpid())
        running: dict[Any, tuple[Job, float]] = {}
        try:
            while pending or running:
                while pending and len(running) < capacity:
                    job = pending.next()
                    if job is None:
                        break
                    ref = remote.options(num_cpus=job.cpus, num_gpus=1 if job.gpu else 0, max_retries=0,
                                         name=f"{job.paper}:{job.profile}:{job.seed}").remote(
                        job.paper, job.profile, job.seed, job.cpus, job.overrides, driver)
                    running[ref] = (job, time.monotonic())
                    if on_start:
                        on_start(job)
                if not running:
                    time.sleep(poll_s)
                    continue
                ready, _ = ray.wait(list(running), num_returns=1, timeout=poll_s)
                for ref in ready:
                    job, t0 = running.pop(ref)
                    try:
                        status, metrics, error, dur, mods, h = ray.get(ref)
                        finish(Outcome(job, status, metrics, error, dur, mods, h))
                    except ray.exceptions.TaskCancelledError:
                        finish(Outcome(job, "timeout", error=f"timed out after {fmt_seconds(job.timeout_s)}; task cancelled",
                                       duration_s=time.monotonic() - t0))
                    except (ray.exceptions.WorkerCrashedError, ray.exceptions.RayError) as exc:
                        finish(Outcome(job, "crashed", error=f"Ray worker died: {type(exc).__name__}: {exc}",
                                       duration_s=time.monotonic() - t0))
                now = time.monotonic()
                for ref, (job, t0) in list(running.items()):
                    if now - t0 > job.timeout_s:
                        ray.cancel(ref, force=True)
                        running.pop(ref)
                        finish(Outcome(job, "timeout", error=f"timed out after {fmt_seconds(job.timeout_s)}; task cancelled",
                                       duration_s=now - t0))
            return outcomes, False
        except KeyboardInterrupt:
            for ref in running:
                ray.cancel(ref, force=True)
            return outcomes, True
    finally:
        if started:
            ray.shutdown()
