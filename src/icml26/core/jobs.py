"""What a backend runs: a :class:`Job` ``(paper, profile, seed)``, its :class:`Outcome`, and
:func:`execute_job`, the worker-side call every backend (local pool, Ray) makes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
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


@dataclass
class RunSummary:
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: list[Job] = field(default_factory=list)  # already stored
    interrupted: bool = False

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
    from icml26.core.fingerprint import fingerprint, modules_used
    from icml26.core.registry import get_paper
    from icml26.core.seeding import set_threads

    set_threads(threads)
    paper = get_paper(slug)
    prof = job_profile(paper, profile, overrides)
    metrics = paper.run_seed(prof, seed)
    mods = modules_used(paper.package)
    return metrics, mods, fingerprint(mods, prof.params, prof.name)
