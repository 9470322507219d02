"""The one contract every paper fulfils: ``Paper``, ``Claim``, ``Verdict``, ``Profile``, ``Metrics``.

A paper package ``icml26.<cluster>.<slug>`` defines ``PAPER = Paper(...)`` in its
``__init__.py``. To keep ``icml26 list`` fast, heavy code (torch, the experiment) is
referenced by a ``"module:attribute"`` string and only imported when it is needed::

    PAPER = Paper(
        slug="b3", title="...", source="arXiv:2602.18186", cluster="decision",
        feasibility="A", substitution="...",
        run="icml26.decision.b3.experiment:run",
        figure="icml26.decision.b3.experiment:figure",
        profiles={"quick": Profile("quick", seeds=3, params={...}),
                  "full": Profile("full", seeds=5, params={...})},
        claims=(Claim(id="matches-sh", statement="...", paper_value="...",
                      check="icml26.decision.b3.experiment:check_matches_sh",
                      contradict="icml26.decision.b3.experiment:contradict_matches_sh"),),
    )

``run(profile, seed) -> Metrics`` measures one seed. ``Claim.check(list[Metrics]) -> Verdict``
decides a claim from the metrics of all seeds of one profile. ``Claim.contradict`` maps
real metrics to metrics that contradict the claim; the common tests feed them to the check
and require a verdict other than ``reproduced``, so no check can pass unconditionally.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union

Status = Literal["reproduced", "partly", "not-reproduced", "not-checkable"]
STATUSES: tuple[str, ...] = ("reproduced", "partly", "not-reproduced", "not-checkable")
CLUSTERS: tuple[str, ...] = ("alignment", "llm", "agents", "decision", "science", "vision")

#: One seed's measurements: named floats, and named series (lists of floats, or a
#: mapping of lists for x/y curves). Must be JSON-serialisable; NaN is allowed.
Metrics = dict[str, Any]

Ref = Union[str, Callable[..., Any]]


def resolve(ref: Ref) -> Callable[..., Any]:
    """Turn a ``"package.module:attr"`` string into the object it names (callables pass through)."""
    if callable(ref):
        return ref
    if not isinstance(ref, str) or ":" not in ref:
        raise ValueError(f"expected a callable or 'module:attribute' string, got {ref!r}")
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Verdict:
    """The outcome of one claim's check on measured metrics.

    ``measured`` is our number(s) as text, ``evidence`` says how the verdict was decided
    (test, number of seeds, p-value or CI). ``value``/``ci`` optionally carry the headline
    measured number and its confidence interval for tables and figures.
    """

    status: Status
    measured: str
    evidence: str
    value: float | None = None
    ci: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if not self.measured or not self.evidence:
            raise ValueError("a Verdict needs both `measured` and `evidence` text")

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "measured": self.measured, "evidence": self.evidence,
                "value": self.value, "ci": list(self.ci) if self.ci else None}


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper and the pre-registered check that decides it."""

    id: str
    statement: str
    paper_value: str
    check: Ref
    contradict: Ref
    reference: float | None = None  # the paper's number, drawn as a reference line only

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"claim id must be a short slug, got {self.id!r}")

    def evaluate(self, metrics: Sequence[Metrics]) -> Verdict:
        """Run the check on the metrics of all seeds; a crash in a check is itself a verdict."""
        if not metrics:
            return Verdict("not-checkable", "no runs", "no successful seed was stored for this profile")
        verdict = resolve(self.check)(list(metrics))
        if not isinstance(verdict, Verdict):
            raise TypeError(f"check of claim {self.id!r} returned {type(verdict).__name__}, not Verdict")
        return verdict


@dataclass(frozen=True)
class Profile:
    """A named experiment size. Every knob of a reproduction sits in ``params``."""

    name: str
    seeds: int
    params: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float = 600.0
    cpus: int = 1
    gpu: bool = False

    def __post_init__(self) -> None:
        if self.seeds < 1:
            raise ValueError(f"Profile.seeds must be >= 1, got {self.seeds}")
        if self.timeout_s <= 0:
            raise ValueError(f"Profile.timeout_s must be > 0, got {self.timeout_s}")

    def __getitem__(self, key: str) -> Any:
        try:
            return self.params[key]
        except KeyError:
            raise KeyError(f"profile {self.name!r} has no parameter {key!r}; "
                           f"it has {sorted(self.params)}") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)


@dataclass(frozen=True)
class Paper:
    """A paper: its source, its small-scale setting, its claims and how to run one seed."""

    slug: str
    title: str
    source: str
    cluster: str
    feasibility: Literal["A", "B", "C"]
    substitution: str
    claims: tuple[Claim, ...]
    run: Ref
    profiles: Mapping[str, Profile]
    figure: Ref | None = None  # figure(list[Metrics]) -> matplotlib Figure (or list of them)
    summary: str = ""

    def __post_init__(self) -> None:
        if self.cluster not in CLUSTERS:
            raise ValueError(f"cluster must be one of {CLUSTERS}, got {self.cluster!r}")
        if self.feasibility not in ("A", "B", "C"):
            raise ValueError(f"feasibility must be A, B or C, got {self.feasibility!r}")
        for name in ("quick", "full"):
            if name not in self.profiles:
                raise ValueError(f"paper {self.slug!r} needs a {name!r} profile")
        for name, prof in self.profiles.items():
            if prof.name != name:
                raise ValueError(f"profile key {name!r} != Profile.name {prof.name!r}")
        if not self.claims:
            raise ValueError(f"paper {self.slug!r} has no claims")
        ids = [c.id for c in self.claims]
        if len(set(ids)) != len(ids):
            raise ValueError(f"paper {self.slug!r} has duplicate claim ids: {ids}")

    @property
    def package(self) -> str:
        return f"icml26.{self.cluster}.{self.slug.replace('-', '_')}"

    def profile(self, name: str) -> Profile:
        try:
            return self.profiles[name]
        except KeyError:
            raise ValueError(f"paper {self.slug!r} has no profile {name!r}; "
                             f"choose one of {sorted(self.profiles)}") from None

    def run_seed(self, profile: str | Profile, seed: int) -> Metrics:
        """Run one seed of one profile and return validated metrics."""
        prof = self.profile(profile) if isinstance(profile, str) else profile
        metrics = resolve(self.run)(prof, int(seed))
        return validate_metrics(metrics, where=f"{self.slug}/{prof.name}/seed={seed}")

    def evaluate(self, metrics: Sequence[Metrics]) -> dict[str, Verdict]:
        return {c.id: c.evaluate(metrics) for c in self.claims}


def _clean(value: Any, path: str) -> Any:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy / torch scalars
        return float(value.item())
    if hasattr(value, "tolist"):
        return _clean(value.tolist(), path)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return {str(k): _clean(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if value is None:
        return None
    raise TypeError(f"metric {path!r} has unsupported type {type(value).__name__}")


def validate_metrics(metrics: Any, where: str = "metrics") -> Metrics:
    """Check that ``metrics`` is a flat-ish JSON-able mapping and convert numpy types to floats."""
    if not isinstance(metrics, Mapping):
        raise TypeError(f"{where}: run() must return a mapping of metrics, got {type(metrics).__name__}")
    if not metrics:
        raise ValueError(f"{where}: run() returned no metrics")
    return {str(k): _clean(v, str(k)) for k, v in metrics.items()}


def finite(x: float) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)
