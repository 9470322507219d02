"""Run jobs ``(paper, profile, seed)`` and store each result as soon as it finishes.

Backends
--------
``local`` (default): one fresh worker process per job from a fork server (so a crash,
hang or ``os._exit`` in one job cannot take another down), at most ``jobs`` at once, a
per-job timeout after which the worker is killed, and BLAS/torch threads limited per
worker. ``ray``: the same jobs as Ray tasks (see :mod:`icml26.core.ray_backend`).

Whatever the backend, only the driver writes the store, one row per finished job, so an
interrupted run (Ctrl-C) keeps every finished job exactly once and a re-run completes
only the missing ones. Before a job starts the driver leases it in the store, so two
``icml26 run`` processes on one store share the work (a dead process's lease expires).
Workers exit when their driver dies, and what libraries print goes to the log
(:func:`icml26.core.jobs.log_path`), not to the terminal. Jobs start longest first, by the
cost of the same seed's last stored run (:func:`longest_first`), so a slow seed does not
start last and run alone.
"""

from __future__ import annotations

import functools
import math
import multiprocessing as mp
import os
import resource
import signal
import time
import traceback
from pathlib import Path
from collections.abc import Callable, Sequence
import json
from multiprocessing.connection import Connection, wait
from typing import Any

from icml26.core.jobs import (Claim, Dispatcher, Job, Outcome, RunSummary, default_jobs, die_with_parent,
                              execute_job, finite_timeout, fmt_seconds, job_key, job_profile, to_log_for_good)
from icml26.core.paper import Paper, Profile
from icml26.core.store import Store

__all__ = ["Job", "Outcome", "RunSummary", "execute", "execute_job", "plan", "run_jobs", "run_local"]


def plan(papers: Sequence[Paper], profile: str, *, seeds: int | None = None, store: Store | None = None,
         force: bool = False, timeout_s: float | None = None,
         overrides: dict[str, Any] | None = None) -> tuple[list[Job], list[Job]]:
    """Jobs to run, and jobs skipped because the store has them for unchanged code and settings."""
    if seeds is not None and (isinstance(seeds, bool) or seeds < 1):
        raise ValueError(f"seeds must be >= 1, got {seeds}")
    timeout_s = finite_timeout(timeout_s)
    ov = json.dumps(overrides or {}, sort_keys=True)
    todo: list[Job] = []
    skipped: list[Job] = []
    seen: set[str] = set()
    for paper in papers:
        if paper.slug in seen:
            continue
        seen.add(paper.slug)
        prof: Profile = job_profile(paper, profile, ov)
        n = seeds if seeds is not None else prof.seeds
        done = {r.seed for r in store.current(paper, prof)} if (store is not None and not force) else set()
        for s in range(n):
            job = Job(paper.slug, prof.name, s, float(timeout_s or prof.timeout_s), ov, prof.cpus, prof.gpu)
            (skipped if s in done else todo).append(job)
    return longest_first(todo, store), skipped


#: The rows shipped with the report (``icml26 report`` writes them): the cost history of a fresh clone.
SHIPPED_RUNS = Path(__file__).resolve().parents[3] / "report" / "runs.jsonl.gz"


def _shipped_costs(path: Path) -> dict[tuple[str, str], dict[int, float]]:
    """Per (paper, profile), each seed's cost (CPU seconds, else wall) in the ``ok`` rows of a runs export, the
    last row of a seed winning; empty if the file is missing or unreadable (the estimate is only a hint)."""
    try:
        st = path.stat()
    except OSError:
        return {}
    return _read_costs(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4)
def _read_costs(path: str, mtime_ns: int, size: int) -> dict[tuple[str, str], dict[int, float]]:
    import gzip

    out: dict[tuple[str, str], dict[int, float]] = {}
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                cost = rec.get("cpu_s") if rec.get("cpu_s") is not None else rec.get("duration_s")
                if rec.get("status") == "ok" and isinstance(cost, (int, float)) and math.isfinite(cost):
                    out.setdefault((rec["paper"], rec["profile"]), {})[int(rec["seed"])] = float(cost)
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return {}
    return out


def longest_first(jobs: Sequence[Job], store: Store | None, shipped: Path | None = SHIPPED_RUNS) -> list[Job]:
    """``jobs`` ordered by their expected cost, largest first (the classic longest-processing-time rule, which
    keeps a slow seed from starting last and running alone): the CPU seconds (else the wall time) of the
    newest ``ok`` row of the same paper, profile and seed in ``store``, else in the rows ``shipped`` with the
    report (a fresh clone's history), else the mean of that paper's known seeds; jobs with no estimate at all
    go first. Ties keep their order, so with no history the order is unchanged. Only the order changes: each
    job's result does not depend on it."""
    jobs = list(jobs)
    if not all(isinstance(j, Job) for j in jobs):
        raise TypeError("jobs must be a sequence of Job")
    if store is not None and not isinstance(store, Store):
        raise TypeError(f"store must be a Store or None, got {type(store).__name__}")
    if shipped is not None and not isinstance(shipped, (str, os.PathLike)):
        raise TypeError(f"shipped must be a path or None, got {type(shipped).__name__}")
    if store is None or len(jobs) < 2:
        return jobs
    known: dict[tuple[str, str], dict[int, float]] = {}
    ship: dict[tuple[str, str], dict[int, float]] | None = None
    for paper, profile in dict.fromkeys((j.paper, j.profile) for j in jobs):
        est: dict[int, float] = {}
        for r in store.rows(paper, profile):  # oldest first: the newest row of a seed wins
            cost = r.cpu_s if r.cpu_s is not None else r.duration_s
            if r.status == "ok" and cost is not None and math.isfinite(cost):  # a NaN would scramble the sort
                est[r.seed] = float(cost)
        if not est and shipped is not None:
            if ship is None:
                ship = _shipped_costs(Path(shipped))
            est = dict(ship.get((paper, profile), {}))
        known[(paper, profile)] = est

    def cost(j: Job) -> float:
        est = known[(j.paper, j.profile)]
        if j.seed in est:
            return est[j.seed]
        return sum(est.values()) / len(est) if est else float("inf")

    return sorted(jobs, key=cost, reverse=True)


# -- the worker side ------------------------------------------------------------------------
def _cpu_seconds() -> float:
    """User + system CPU of this process and the children it has waited for (a job's CPU cost,
    which the driver cannot see: workers descend from the fork server, not from the driver)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _worker(conn: Connection, slug: str, profile: str, seed: int, threads: int, extra: str | None,
            overrides: str = "{}", driver_pid: int | None = None, log: str | None = None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides what an interrupt means
    die_with_parent(driver_pid)
    to_log_for_good(Path(log) if log else None)
    if extra is not None:  # the fork server may predate the driver's environment
        os.environ["ICML26_EXTRA_PAPERS"] = extra
    t0, c0 = time.perf_counter(), _cpu_seconds()
    try:
        metrics, mods, h = execute_job(slug, profile, seed, threads, overrides)
        msg: tuple[Any, ...] = ("ok", metrics, None, time.perf_counter() - t0, mods, h, _cpu_seconds() - c0)
    except BaseException:  # noqa: BLE001 - every failure becomes an error row
        msg = ("error", None, traceback.format_exc(), time.perf_counter() - t0, None, None, _cpu_seconds() - c0)
    try:
        conn.send(msg)
    except (BrokenPipeError, ConnectionError):  # the driver has gone: nothing to report to
        os._exit(1)
    except Exception:  # noqa: BLE001 - e.g. metrics that cannot be pickled
        try:
            conn.send(("error", None, traceback.format_exc(), time.perf_counter() - t0, None, None,
                       _cpu_seconds() - c0))
        except (BrokenPipeError, ConnectionError):
            os._exit(1)
    conn.close()


_CTX: Any = None


def _preload() -> list[str]:
    """Modules the fork server imports once, so that no job process pays for them."""
    preload = ["numpy", "icml26.core.registry", "icml26.core.paper"]
    try:
        import importlib.util

        if importlib.util.find_spec("torch") is not None:
            # imported, never run, in the server: cheap, fork-safe. torch._dynamo is what the first
            # optimiser a job builds imports (~2 s idle, ~4 s under load, once per job otherwise); it
            # starts no thread and draws from no random stream, so a job's results are unchanged
            preload += ["torch", "torch._dynamo"]
    except (ImportError, ValueError):
        pass
    return preload


def _context() -> Any:
    global _CTX
    if _CTX is None:
        if "forkserver" in mp.get_all_start_methods():
            _CTX = mp.get_context("forkserver")
            _CTX.set_forkserver_preload(_preload())
        else:
            _CTX = mp.get_context("spawn")
    return _CTX


Callback = Callable[[Outcome], None]


def run_local(jobs: Sequence[Job], *, workers: int | None = None, threads: int | None = None,
              on_start: Callable[[Job], None] | None = None, on_done: Callback | None = None,
              poll_s: float = 0.1, claim: Claim | None = None,
              on_other: Callable[[Job], None] | None = None) -> tuple[list[Outcome], bool]:
    """Run jobs in worker processes; returns (outcomes, interrupted).

    ``claim`` (see :class:`icml26.core.jobs.Dispatcher`) leases each job before it starts.
    """
    from icml26.core.jobs import log_path

    workers = workers or default_jobs()
    if workers < 1:
        raise ValueError(f"jobs must be >= 1, got {workers}")
    ctx = _context()
    pending = Dispatcher(jobs, claim, on_other=on_other)
    log = str(log_path())
    running: dict[Any, tuple[Job, Any, Connection, float]] = {}
    outcomes: list[Outcome] = []

    def finish(key: Any, out: Outcome) -> None:
        running.pop(key)
        outcomes.append(out)
        if on_done:
            on_done(out)

    try:
        while pending or running:
            while pending and len(running) < workers:
                job = pending.next()
                if job is None:
                    break
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_worker, args=(child, job.paper, job.profile, job.seed, threads or job.cpus,
                                         os.environ.get("ICML26_EXTRA_PAPERS"), job.overrides, os.getpid(), log),
                                   name=f"icml26:{job.paper}:{job.profile}:{job.seed}", daemon=True)
                proc.start()
                child.close()
                running[proc.sentinel] = (job, proc, parent, time.monotonic())
                if on_start:
                    on_start(job)
            conns = [r[2] for r in running.values()]
            if running:
                wait(conns + list(running), timeout=poll_s)
            else:
                time.sleep(poll_s)
            now = time.monotonic()
            for key, (job, proc, conn, t0) in list(running.items()):
                if conn.poll():
                    try:
                        status, metrics, err, dur, mods, h, *more = conn.recv()
                        cpu = more[0] if more else None  # a worker of an older fork server sends six
                    except (EOFError, OSError):
                        proc.join(1)
                        finish(key, Outcome(job, "crashed", error=f"worker exited with code {proc.exitcode} "
                                                                 "before reporting a result",
                                            duration_s=now - t0))
                        continue
                    proc.join(5)
                    if proc.is_alive():
                        proc.kill()
                    conn.close()
                    finish(key, Outcome(job, status, metrics, err, dur, mods, h, cpu))
                elif not proc.is_alive():
                    proc.join()
                    conn.close()
                    finish(key, Outcome(job, "crashed", error=f"worker process died with exit code "
                                                             f"{proc.exitcode} (killed, os._exit or out of memory)",
                                        duration_s=now - t0))
                elif now - t0 > job.timeout_s:
                    proc.kill()
                    proc.join()
                    conn.close()
                    finish(key, Outcome(job, "timeout", error=f"timed out after {fmt_seconds(job.timeout_s)}; worker killed",
                                        duration_s=now - t0))
        return outcomes, False
    except KeyboardInterrupt:
        for job, proc, conn, _ in running.values():
            proc.kill()
        for job, proc, conn, _ in running.values():
            proc.join()
            conn.close()
        return outcomes, True


def _local_gpu() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except ImportError:
        return False


def run_jobs(jobs: Sequence[Job], *, backend: str = "local", workers: int | None = None,
             address: str | None = None, on_start: Callable[[Job], None] | None = None,
             on_done: Callback | None = None, claim: Claim | None = None,
             on_other: Callable[[Job], None] | None = None) -> tuple[list[Outcome], bool]:
    """Dispatch to a backend; ``on_done`` is called in the driver as each job finishes."""
    if backend == "local":
        skipped: list[Outcome] = []
        if any(j.gpu for j in jobs) and not _local_gpu():
            skipped = [Outcome(j, "skipped", error="the profile needs a GPU and this machine has none; not run "
                                                   "(it would not be the paper's setting on CPU)") for j in jobs if j.gpu]
            jobs = [j for j in jobs if not j.gpu]
            for out in skipped:
                if on_done:
                    on_done(out)
        outcomes, interrupted = run_local(jobs, workers=workers, on_start=on_start, on_done=on_done, claim=claim,
                                          on_other=on_other)
        return skipped + outcomes, interrupted
    if backend == "ray":
        from icml26.core.ray_backend import run_ray

        return run_ray(jobs, address=address, workers=workers, on_start=on_start, on_done=on_done, claim=claim,
                       on_other=on_other)
    raise ValueError(f"unknown backend {backend!r}; choose 'local' or 'ray'")


def evaluate(paper: Paper, profile: str, store: Store) -> dict[str, Any]:
    """The claims' verdicts, computed now from the current stored metrics of one (paper, profile)."""
    rows = store.current(paper, paper.profile(profile))
    return paper.evaluate([r.metrics for r in rows])


def execute(papers: Sequence[Paper], profile: str, store: Store, *, seeds: int | None = None,
            workers: int | None = None, force: bool = False, backend: str = "local",
            address: str | None = None, timeout_s: float | None = None, overrides: dict[str, Any] | None = None,
            on_plan: Callable[[list[Job], list[Job]], None] | None = None,
            on_start: Callable[[Job], None] | None = None, on_done: Callback | None = None) -> RunSummary:
    """Plan, run, store and evaluate: the whole of ``icml26 run``."""
    todo, skipped = plan(papers, profile, seeds=seeds, store=store, force=force, timeout_s=timeout_s,
                         overrides=overrides)
    if on_plan:
        on_plan(todo, skipped)
    summary = RunSummary(skipped=skipped)
    env_backend = backend

    def record(out: Outcome) -> None:
        j = out.job
        store.record(paper=j.paper, profile=j.profile, seed=j.seed, status=out.status,
                     code_hash=out.code_hash or "not-run", metrics=out.metrics, error=out.error,
                     duration_s=out.duration_s, backend=env_backend, modules=out.modules,
                     cpu_s=out.cpu_s)
        if on_done:
            on_done(out)

    by_slug = {p.slug: p for p in papers}
    ov = json.dumps(overrides or {}, sort_keys=True)

    def stored(job: Job) -> bool:
        paper = by_slug[job.paper]
        return job.seed in {r.seed for r in store.current(paper, job_profile(paper, job.profile, ov))}

    def claim(job: Job) -> str:
        """Lease the job; "done" if another process has stored it meanwhile."""
        ok, _holder = store.claim(job_key(job), ttl_s=job.timeout_s + 120.0)
        if not ok:
            return "busy"
        if not force and stored(job):
            store.release(job_key(job))
            return "done"
        return "run"

    def other(job: Job) -> None:
        summary.by_other.append(job)

    def record_and_release(out: Outcome) -> None:
        try:
            record(out)
        finally:
            store.release(job_key(out.job))

    try:
        outcomes, interrupted = run_jobs(todo, backend=backend, workers=workers, address=address,
                                         on_start=on_start, on_done=record_and_release, claim=claim, on_other=other)
    finally:
        for job in todo:  # an interrupt or error: let another process take what we had leased
            try:
                store.release(job_key(job))
            except Exception:  # noqa: BLE001 - best effort; a dead process's lease expires anyway
                break
    summary.outcomes = outcomes
    summary.interrupted = interrupted
    return summary
