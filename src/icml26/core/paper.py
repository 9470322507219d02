"""The one contract every paper fulfils: ``Paper``, ``Claim``, ``Verdict``, ``Profile``, ``Metrics``.

A paper package ``icml26.<cluster>.<slug>`` defines ``PAPER = Paper(...)`` in its
``__init__.py`` and keeps the heavy code in submodules found by convention, so that
``icml26 list`` imports neither torch nor any experiment:

* ``setting.py``    the simulated world (generators, simulators, environments); public;
* ``method.py``     the paper's algorithm, an importable, validated API;
* ``experiment.py`` ``run(profile, seed) -> Metrics``, ``figure(list[Metrics])``, and any
  hand-written check ``check_<claim_id>`` (with ``contradict_<claim_id>`` and, for a
  comparative claim, ``control_<claim_id>``); ``-`` in a claim id becomes ``_``.

Most claims need no hand-written check: a declarative check from :mod:`icml26.core.checks`
decides the claim and derives its own contradiction and control substitution::

    from icml26.core import checks as C
    PAPER = Paper(
        slug="b3", title="...", source="arXiv:2602.18186", cluster="decision",
        feasibility="A", substitution="...",
        profiles={"quick": Profile("quick", seeds=3, params={...}),
                  "full": Profile("full", seeds=6, params={...})},
        claims=(Claim(id="beats-uniform", kind="headline", statement="...", paper_value="...",
                      control="uniform sampling on the same budget",
                      check=C.beats("regret/b3", "regret/uniform", better="lower")),),
    )

Claim kinds: ``headline`` (the paper's own result; only these are counted as reproduced
or not), ``identity`` (true by construction or by a derivation we implemented: reported
as verified), ``prior-work`` (a component the paper builds on). Every headline claim names
its ``control`` (the same pipeline without the paper's key idea) or says in ``no_control``
why it has none. A claim made for hardware we lack (``gpu=True``) or only decidable on a
simulated clock (``uncheckable="..."``) is reported ``not-checkable`` with our numbers shown.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Union

Status = Literal["reproduced", "partly", "not-reproduced", "not-checkable"]
STATUSES: tuple[str, ...] = ("reproduced", "partly", "not-reproduced", "not-checkable")
Kind = Literal["headline", "identity", "prior-work"]
KINDS: tuple[str, ...] = ("headline", "identity", "prior-work")
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
    (test, number of seeds, p-value or CI), ``control`` is the control's number(s) as
    text for a comparative claim. ``value``/``ci`` optionally carry the headline measured
    number and its confidence interval for tables and figures.
    """

    status: Status
    measured: str
    evidence: str
    value: float | None = None
    ci: tuple[float, float] | None = None
    control: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if not self.measured or not self.evidence:
            raise ValueError("a Verdict needs both `measured` and `evidence` text")

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "measured": self.measured, "evidence": self.evidence,
                "value": self.value, "ci": list(self.ci) if self.ci else None, "control": self.control}


def _attr_name(claim_id: str) -> str:
    return claim_id.replace("-", "_")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper and the pre-registered check that decides it.

    ``check`` is a declarative check from :mod:`icml26.core.checks`, or ``None`` for a
    hand-written ``check_<id>`` in the paper's ``experiment`` module.
    """

    id: str
    statement: str
    paper_value: str
    kind: Kind
    check: Any = None
    control: str = ""
    no_control: str = ""
    gpu: bool = False
    uncheckable: str = ""
    reference: float | None = None  # the paper's number, drawn as a reference line only

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"claim id must be a short slug, got {self.id!r}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "headline" and not (self.control or self.no_control):
            raise ValueError(f"headline claim {self.id!r} must name its control (control=...) or say why it "
                             "has none (no_control=...)")
        if self.control and self.no_control:
            raise ValueError(f"claim {self.id!r}: give control or no_control, not both")
        if self.check is not None and not callable(self.check):
            raise TypeError(f"claim {self.id!r}: check must be a checks.Check or None, got {type(self.check).__name__}")

    @property
    def comparative(self) -> bool:
        return bool(self.control)

    @property
    def counted(self) -> bool:
        """Only headline claims count as reproductions of the paper."""
        return self.kind == "headline"


@dataclass(frozen=True)
class Profile:
    """A named experiment size. Every knob of a reproduction sits in ``params``.

    ``cpus`` is the number of threads a job of this profile uses, whatever the number of
    parallel workers, so that metrics do not depend on ``--jobs``.
    """

    name: str
    seeds: int
    params: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float = 600.0
    cpus: int = 1
    gpu: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.seeds, bool) or not isinstance(self.seeds, int) or self.seeds < 1:
            raise ValueError(f"Profile.seeds must be an integer >= 1, got {self.seeds!r}")
        if not isinstance(self.timeout_s, (int, float)) or not math.isfinite(self.timeout_s) or self.timeout_s <= 0:
            raise ValueError(f"Profile.timeout_s must be a finite number > 0, got {self.timeout_s!r}")

    def __getitem__(self, key: str) -> Any:
        try:
            return self.params[key]
        except KeyError:
            raise KeyError(f"profile {self.name!r} has no parameter {key!r}; "
                           f"it has {sorted(self.params)}") from None

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)

    def with_overrides(self, overrides: Mapping[str, Any]) -> Profile:
        """A copy with some ``params`` replaced (``icml26 run --set key=value``).

        Only existing keys may be set, and a value must have the type of the default
        (an int where a float is expected is accepted); a mistyped key is an error.
        """
        params = dict(self.params)
        for key, value in overrides.items():
            if key not in params:
                raise ValueError(f"profile {self.name!r} has no parameter {key!r}; it has {sorted(params)}")
            old = params[key]
            if old is not None and not _same_type(old, value):
                raise ValueError(f"parameter {key!r} expects {type(old).__name__} like {old!r}, got {value!r}")
            params[key] = float(value) if isinstance(old, float) and isinstance(value, int) else value
        return replace(self, params=params)


def _same_type(old: Any, new: Any) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, (int, float)):
        return isinstance(new, (int, float)) and (isinstance(old, float) or isinstance(new, int))
    if isinstance(old, (list, tuple)):
        return isinstance(new, (list, tuple))
    return isinstance(new, type(old))


@dataclass(frozen=True)
class Paper:
    """A paper: its source, its small-scale setting, its claims and how to run one seed.

    ``run`` and ``figure`` default to ``experiment.run`` and ``experiment.figure`` of the
    paper's package; a callable (or ``"module:attr"``) may be given for papers that live
    outside ``icml26`` (the framework's test fixtures).
    """

    slug: str
    title: str
    source: str
    cluster: str
    feasibility: Literal["A", "B", "C"]
    substitution: str
    claims: tuple[Claim, ...]
    profiles: Mapping[str, Profile]
    run: Ref | None = None
    figure: Ref | None = None  # figure(list[Metrics]) -> matplotlib Figure (or list of them)
    summary: str = ""
    examples: Ref | None = None  # () -> list of (callable, good kwargs) for the bad-input test

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

    @property
    def experiment(self) -> str:
        """Module holding ``run``, ``figure`` and hand-written checks."""
        return f"{self.package}.experiment"

    def profile(self, name: str) -> Profile:
        try:
            return self.profiles[name]
        except KeyError:
            raise ValueError(f"paper {self.slug!r} has no profile {name!r}; "
                             f"choose one of {sorted(self.profiles)}") from None

    # -- the pieces, found by convention ----------------------------------------------------
    def _experiment_attr(self, name: str) -> Callable[..., Any] | None:
        mod = importlib.import_module(self.experiment)
        return getattr(mod, name, None)

    def run_fn(self) -> Callable[..., Any]:
        if self.run is not None:
            return resolve(self.run)
        fn = self._experiment_attr("run")
        if fn is None:
            raise AttributeError(f"{self.experiment} defines no run(profile, seed)")
        return fn

    def figure_fn(self) -> Callable[..., Any] | None:
        if self.figure is not None:
            return resolve(self.figure)
        try:
            return self._experiment_attr("figure")
        except ModuleNotFoundError as exc:
            if exc.name == self.experiment:
                return None
            raise

    def _hand(self, prefix: str, claim: Claim, required: bool) -> Callable[..., Any] | None:
        name = f"{prefix}_{_attr_name(claim.id)}"
        fn = self._experiment_attr(name) if self.run is None else _module_attr(self.run, name)
        if fn is None and required:
            raise AttributeError(f"claim {claim.id!r} of {self.slug!r} has no declarative check, so "
                                 f"{self.experiment} must define {name}()")
        return fn

    def check_fn(self, claim: Claim) -> Callable[[list[Metrics]], Verdict]:
        return claim.check if claim.check is not None else self._hand("check", claim, True)  # type: ignore[return-value]

    def contradict_fn(self, claim: Claim) -> Callable[[list[Metrics]], list[Metrics]]:
        if claim.check is not None and hasattr(claim.check, "contradict"):
            return claim.check.contradict
        return self._hand("contradict", claim, True)  # type: ignore[return-value]

    def control_fn(self, claim: Claim) -> Callable[[list[Metrics]], list[Metrics]] | None:
        """Metrics in which the method's numbers are replaced by the control's (comparative claims)."""
        if claim.check is not None and hasattr(claim.check, "on_control"):
            return claim.check.on_control
        return self._hand("control", claim, False)

    # -- running and deciding ---------------------------------------------------------------
    def run_seed(self, profile: str | Profile, seed: int) -> Metrics:
        """Run one seed of one profile and return validated metrics."""
        prof = self.profile(profile) if isinstance(profile, str) else profile
        metrics = self.run_fn()(prof, int(seed))
        return validate_metrics(metrics, where=f"{self.slug}/{prof.name}/seed={seed}")

    def verdict(self, claim: Claim, metrics: Sequence[Metrics]) -> Verdict:
        """Decide one claim from the metrics of all seeds, applying the claim's kind rules."""
        if not metrics:
            return Verdict("not-checkable", "no runs", "no successful seed was stored for this profile")
        v = self.check_fn(claim)(list(metrics))
        if not isinstance(v, Verdict):
            raise TypeError(f"check of claim {claim.id!r} returned {type(v).__name__}, not Verdict")
        if claim.gpu and not all(m.get("device", "cpu") == "cuda" for m in metrics):
            v = replace(v, status="not-checkable",
                        evidence=f"a GPU claim measured on CPU: not decided here (check on CPU would say "
                                 f"{v.status}). {v.evidence}")
        elif claim.uncheckable:
            v = replace(v, status="not-checkable",
                        evidence=f"{claim.uncheckable} (the check on these numbers would say {v.status}). "
                                 f"{v.evidence}")
        return v

    def evaluate(self, metrics: Sequence[Metrics]) -> dict[str, Verdict]:
        """Verdicts of every claim; a check that raises becomes a ``not-checkable`` verdict."""
        out = {}
        for c in self.claims:
            try:
                out[c.id] = self.verdict(c, metrics)
            except Exception as exc:  # noqa: BLE001 - a broken check is reported, not hidden
                out[c.id] = Verdict("not-checkable", "check failed",
                                    f"the check raised {type(exc).__name__}: {exc}")
        return out


def _module_attr(ref: Ref, name: str) -> Callable[..., Any] | None:
    """``name`` from the module of a ``"module:attr"`` ref or of a callable."""
    if isinstance(ref, str):
        mod = importlib.import_module(ref.partition(":")[0])
    else:
        mod = importlib.import_module(ref.__module__)
    return getattr(mod, name, None)


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
