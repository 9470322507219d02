"""What a backend runs: a :class:`Job` ``(paper, profile, seed)``, its :class:`Outcome`, and
:func:`execute_job`, the worker-side call every backend (local pool, Ray) makes.

Also shared by both backends: :class:`Dispatcher` (the queue of jobs, which asks the store
for a lease before a job starts, so concurrent runs share the work), :func:`die_with_parent`
(a worker exits when its driver dies), :func:`quiet` (library noise goes to a log, not to
the terminal) and :func:`missing_extra` (which ``pip install 'icml26[extra]'`` a missing
optional dependency needs).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Job:
    paper: str
    profile: str
    seed: int
    timeout_s: float
    overrides: str = "{}"  # JSON of the --set parameter overrides (part of the row's identity)
    cpus: int = 1
    gpu: bool = False


@dataclass
class Outcome:
    job: Job
    status: str  # ok | error | timeout | crashed | skipped
    metrics: dict[str, Any] | None = None
    error: str | None = None
    duration_s: float = 0.0
    modules: list[str] | None = None
    code_hash: str | None = None
    cpu_s: float | None = None  # user + system CPU of the job's process (local backend), None if unknown


def job_key(job: Job) -> str:
    """The identity of a job before it runs (its lease key): paper, profile, seed and overrides."""
    return f"{job.paper}|{job.profile}|{job.seed}|{job.overrides}"


def fmt_seconds(x: float) -> str:
    """``0.5 s``, ``3 s``, ``120 s``: never rounds a short timeout to ``0 s``."""
    return f"{x:.3g} s" if x < 10 else f"{x:.0f} s"


@dataclass
class RunSummary:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[Job] = field(default_factory=list)  # already stored
    interrupted: bool = False
    by_other: list[Job] = field(default_factory=list)  # run meanwhile by another process on the same store

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status not in ("ok", "skipped")]

    @property
    def not_run(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "skipped"]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.interrupted


def default_jobs() -> int:
    """Parallel workers by default: the cores this process may use."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def job_profile(paper: Any, profile: str, overrides: str = "{}") -> Any:
    """The profile a job runs under: the paper's, with the job's ``--set`` overrides applied."""
    prof = paper.profile(profile)
    ov = json.loads(overrides) if overrides else {}
    return prof.with_overrides(ov) if ov else prof


def execute_job(slug: str, profile: str, seed: int, threads: int,
                overrides: str = "{}") -> tuple[dict[str, Any], list[str], str]:
    """Run one job in this process: (metrics, modules it imported, code fingerprint)."""
    from icml26.core.fingerprint import fingerprint, modified_since, modules_used
    from icml26.core.registry import get_paper
    from icml26.core.seeding import set_threads

    started = time.time()
    set_threads(threads)
    paper = get_paper(slug)
    prof = job_profile(paper, profile, overrides)
    try:
        metrics = paper.run_seed(prof, seed)
    except ModuleNotFoundError as exc:
        hint = missing_extra(exc, paper.cluster)
        if hint:
            raise ModuleNotFoundError(f"{exc}; {hint}", name=exc.name) from exc
        raise
    mods = modules_used(paper.package)
    changed = modified_since(mods, started)
    if changed:  # the fingerprint would name code this job did not run
        raise RuntimeError(f"source of {', '.join(changed)} changed while the job ran; "
                           "its result is not stored as current: run the job again")
    return metrics, mods, fingerprint(mods, prof.params, prof.name)


# -- optional extras ------------------------------------------------------------------------
#: importable module -> the extras of pyproject.toml that install it
EXTRAS: dict[str, tuple[str, ...]] = {
    "torch": ("torch", "alignment", "llm", "agents", "decision", "science", "vision"),
    "sklearn": ("alignment", "decision", "science", "vision"),
    "networkx": ("alignment",), "choix": ("alignment",),
    "lark": ("llm",), "transformers": ("llm",), "nltk": ("llm",),
    "statsmodels": ("decision",), "lifelines": ("decision",), "pyddm": ("decision",), "ddm": ("decision",),
    "causallearn": ("decision",), "lingam": ("decision",), "gymnasium": ("decision",), "pykalman": ("decision",),
    "catsim": ("decision",), "cmaes": ("decision",),
    "deepxde": ("science",), "neuron": ("science",),
    "optuna": ("vision",),
    "ray": ("ray",),
}


def missing_extra(exc: BaseException | str, cluster: str | None = None) -> str:
    """For a missing optional module, the ``pip install`` line that provides it ("" if unknown)."""
    name = exc if isinstance(exc, str) else (getattr(exc, "name", None) or "")
    top = name.split(".")[0]
    extras = EXTRAS.get(top)
    if not extras:
        return ""
    extra = cluster if cluster in extras else extras[0]
    return f"it needs the optional extra {extra!r}: pip install 'icml26[{extra}]'"


# -- dispatch with leases ---------------------------------------------------------------------
Claim = Callable[[Job], str]  # -> "run" (leased to us), "busy" (another process holds it) or "done"


class Dispatcher:
    """The jobs still to start. ``claim`` (optional) leases a job before it starts; a job another
    process holds is retried every ``poll_s`` until that process stores it ("done") or lets it go."""

    def __init__(self, jobs: Sequence[Job], claim: Claim | None = None, poll_s: float = 0.5,
                 on_other: Callable[[Job], None] | None = None):
        self.pending: deque[Job] = deque(jobs)
        self.waiting: list[list[Any]] = []  # [job, next check time]
        self.claim = claim
        self.poll_s = poll_s
        self.on_other = on_other

    def __bool__(self) -> bool:
        return bool(self.pending or self.waiting)

    def _ask(self, job: Job) -> str:
        return self.claim(job) if self.claim is not None else "run"

    def next(self) -> Job | None:
        """A job leased to us, or None when none can start now."""
        while self.pending:
            job = self.pending.popleft()
            answer = self._ask(job)
            if answer == "run":
                return job
            if answer == "busy":
                self.waiting.append([job, time.monotonic() + self.poll_s])
            elif self.on_other:
                self.on_other(job)
        now = time.monotonic()
        for item in list(self.waiting):
            if item[1] > now:
                continue
            answer = self._ask(item[0])
            if answer == "busy":
                item[1] = now + self.poll_s
                continue
            self.waiting.remove(item)
            if answer == "run":
                return item[0]
            if self.on_other:
                self.on_other(item[0])
        return None

    def drain(self) -> list[Job]:
        """Everything not started (after an interrupt)."""
        out = list(self.pending) + [w[0] for w in self.waiting]
        self.pending.clear()
        self.waiting.clear()
        return out


# -- workers die with their driver ------------------------------------------------------------
def die_with_parent(driver_pid: int | None, poll_s: float = 0.5) -> None:
    """Make this worker exit when its driver dies (``kill -9`` included).

    On Linux the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``); in any
    case a daemon thread polls the driver's pid and exits the process when it has gone.
    """
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if not driver_pid:
        return
    from icml26.core.store import _pid_alive

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if not _pid_alive(driver_pid):
                os._exit(1)

    threading.Thread(target=watch, name="icml26-driver-watch", daemon=True).start()


# -- library noise -----------------------------------------------------------------------------
_LOG: list[Path] = []


def set_log_path(path: str | Path | None) -> None:
    """Send library noise to ``path`` from now on (the CLI uses ``library.log`` beside the store it opened)."""
    _LOG[:] = [Path(path)] if path is not None else []


def log_path() -> Path:
    """Where library noise goes: ``$ICML26_LOG``, else :func:`set_log_path`'s, else ``library.log``
    beside the default results store."""
    if os.environ.get("ICML26_LOG"):
        return Path(os.environ["ICML26_LOG"])
    if _LOG:
        return _LOG[0]
    from icml26.core.store import default_path

    return default_path().parent / "library.log"


def _open_log(path: Path | None) -> Any:
    path = path or log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "a", encoding="utf-8", errors="replace", buffering=1)
    except OSError:
        import tempfile

        try:
            return open(Path(tempfile.gettempdir()) / f"icml26-library-{os.getuid()}.log", "a", encoding="utf-8",
                        errors="replace", buffering=1)
        except OSError:
            return open(os.devnull, "w", encoding="utf-8")


def quiet_environment() -> None:
    """Environment settings that stop known libraries from printing at import (set once, early)."""
    os.environ.setdefault("NEURON_MODULE_OPTIONS", "-nogui")  # NEURON: no "no DISPLAY" complaint
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    os.environ.setdefault("RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO", "0")


def _fd_of(stream: Any) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


_TERMINAL: list[Any] = []  # one stream on a copy of the terminal's fd 2, made once and never closed


def _terminal_stderr(fd: int, encoding: str | None) -> Any:
    """A stream to the terminal for Python-level stderr while fd 2 points to the log (kept open: a
    library may hold on to ``sys.stderr``)."""
    if not _TERMINAL:
        _TERMINAL.append(os.fdopen(os.dup(fd), "w", buffering=1, encoding=encoding, errors="replace"))
    return _TERMINAL[0]


@contextlib.contextmanager
def quiet(path: Path | None = None) -> Iterator[Any]:
    """Send what libraries print (C-level stdout/stderr, ``print``, warnings) to the log.

    The process's file descriptors 1 and 2 point to the log meanwhile; Python's
    ``sys.stderr`` keeps the terminal (so progress bars still show), ``sys.stdout`` and
    warnings go to the log.
    """
    quiet_environment()
    log = _open_log(path)
    saved: dict[int, int] = {}
    old_out, old_err, old_show = sys.stdout, sys.stderr, warnings.showwarning
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    for fd in (1, 2):
        try:
            saved[fd] = os.dup(fd)
            os.dup2(log.fileno(), fd)
        except OSError:
            saved.pop(fd, None)
    try:
        if _fd_of(old_err) == 2 and 2 in saved:
            sys.stderr = _terminal_stderr(saved[2], getattr(old_err, "encoding", None))
        sys.stdout = log

        def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
            log.write(warnings.formatwarning(message, category, filename, lineno, line))

        with warnings.catch_warnings():
            warnings.showwarning = show
            yield log
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = old_out, old_err
        warnings.showwarning = old_show
        for fd, dup in saved.items():
            with contextlib.suppress(OSError):
                os.dup2(dup, fd)
            os.close(dup)
        with contextlib.suppress(Exception):
            _TERMINAL[0].flush() if _TERMINAL else None
        log.close()


def to_log_for_good(path: Path | None = None) -> None:
    """In a worker process: everything it prints goes to the log from now on."""
    quiet_environment()
    log = _open_log(path)
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            os.dup2(log.fileno(), fd)
    sys.stdout = sys.stderr = log
    warnings.showwarning = lambda m, c, f, n, file=None, line=None: log.write(warnings.formatwarning(m, c, f, n, line))


def finite_timeout(value: float | None) -> float | None:
    """None, or a finite number of seconds > 0 (ValueError otherwise: nan and inf included)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"timeout must be a finite number of seconds > 0, got {value!r}")
    return float(value)
