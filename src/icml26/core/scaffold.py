"""``icml26 new <cluster> <slug>``: a new paper package in the house style, ready to fill in.

Writes ``src/icml26/<cluster>/<pkg>/`` with the four files of the contract
(:mod:`icml26.core.paper`) and ``tests/<cluster>/test_<pkg>.py``:

* ``__init__.py``   ``PAPER = Paper(...)``: quick and full profiles, one headline claim with its
  control and a declarative check (:mod:`icml26.core.checks`), lazily re-exported API;
* ``setting.py``    the simulated world (here: a toy data generator), public;
* ``method.py``     the paper's algorithm with validated inputs, and ``examples()`` for the
  common bad-input test;
* ``experiment.py`` ``run(profile, seed)`` as a composition of named parts, and ``figure``.

The generated paper runs as it is (a robust-mean toy: the median beats the mean under
outliers) so ``make test`` stays green while the TODOs are replaced. Existing files are
never overwritten.
"""

from __future__ import annotations

import re
from pathlib import Path

from icml26.core.paper import CLUSTERS

SLUG = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class ScaffoldError(ValueError):
    """The scaffold cannot be written (bad cluster or slug, or it would overwrite something)."""


def default_root() -> Path:
    """The repository that holds the installed ``icml26`` sources (editable install), else ``.``."""
    import icml26

    here = Path(icml26.__file__).resolve().parents[2]
    if (here / "src" / "icml26").is_dir() and (here / "pyproject.toml").exists():
        return here
    return Path.cwd()


def files_for(cluster: str, slug: str, *, title: str = "TODO: the paper's title",
              source: str = "TODO: arXiv id") -> dict[str, str]:
    """Relative path -> text of every file of the scaffold."""
    pkg = slug.replace("-", "_")
    module = f"icml26.{cluster}.{pkg}"
    q = repr
    init = f'''"""{title} ({source}).

TODO: two or three sentences on what the paper proposes and what this package holds.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

PAPER = Paper(
    slug={q(slug)},
    title={q(title)},
    source={q(source)},
    cluster={q(cluster)},
    feasibility="A",  # A: runs as the paper states it on a laptop; B: scaled down; C: theory/proxy only
    substitution=(
        "Keeps: TODO (what of the paper's setting is kept). "
        "Replaces: TODO (what is simulated or scaled down, and why)."
    ),
    profiles={{
        "quick": Profile("quick", seeds=5, params={{"n": 200, "outlier_frac": 0.1, "reps": 20}}, timeout_s=60),
        "full": Profile("full", seeds=8, params={{"n": 1000, "outlier_frac": 0.1, "reps": 100}}, timeout_s=300),
    }},
    claims=(
        Claim(
            id="beats-control",
            statement="TODO: the paper's headline claim, as the paper states it.",
            paper_value="TODO: the paper's number (table/figure), or 'qualitative'",
            kind="headline",
            control="TODO: the same pipeline without the paper's key idea (here: the plain mean)",
            check=C.beats("error/method", "error/control", better="lower", label="method",
                          control_label="control"),
        ),
    ),
    examples="{module}.method:examples",
)

_EXPORTS = {{"robust_location": ".method", "make_samples": ".setting"}}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
'''
    setting = f'''"""The simulated world of {slug}: TODO (generators, simulators, environments).

Public: benchmarks and tests import from here, never an experiment's private names.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_rng, check_int, check_positive


def make_samples(n: int, outlier_frac: float, rng: np.random.Generator | int | None = 0,
                 loc: float = 0.0, outlier_shift: float = 20.0) -> np.ndarray:
    """``n`` draws of Normal(loc, 1), a fraction ``outlier_frac`` of them shifted by ``outlier_shift``."""
    n = check_int("n", n, minimum=1)
    outlier_frac = check_positive("outlier_frac", outlier_frac, strict=False)
    if outlier_frac >= 0.5:
        raise ValueError(f"outlier_frac must be < 0.5, got {{outlier_frac}}")
    rng = as_rng("rng", rng)
    x = loc + rng.standard_normal(n)
    bad = rng.random(n) < outlier_frac
    x[bad] += outlier_shift
    return x
'''
    method = f'''"""The algorithm of {slug}: TODO (as the paper states it; cite the equation or algorithm number).

Inputs are validated: a bad argument raises ``ValueError``/``TypeError`` naming it.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_vector


def robust_location(x: np.ndarray, trim: float = 0.5) -> float:
    """TODO: the paper's estimator. Here: the ``trim``-trimmed mean (0.5 = the median)."""
    x = as_vector("x", x)
    if not isinstance(trim, (int, float)) or isinstance(trim, bool) or not 0.0 <= trim <= 0.5:
        raise ValueError(f"trim must be a number in [0, 0.5], got {{trim!r}}")
    if trim >= 0.5:
        return float(np.median(x))
    k = int(trim * x.size)
    xs = np.sort(x)
    return float(xs[k:x.size - k].mean())


def examples() -> list[tuple]:
    """Good calls of the public API, for the common bad-input test (tests/test_every_paper.py)."""
    return [(robust_location, {{"x": np.array([0.1, -0.3, 2.0, 0.4])}})]
'''
    experiment = f'''"""Small-scale reproduction of {slug}: TODO (which experiment of the paper, and how it is shrunk).

``run`` composes named parts (draw the setting, apply the method and the control, measure);
claims are decided over seeds by the declarative checks in ``__init__.py``.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything
from {module}.method import robust_location
from {module}.setting import make_samples


def _errors(profile: Profile, rng: np.random.Generator) -> dict[str, float]:
    """Absolute error of the method and of the control on ``reps`` fresh samples."""
    err_m, err_c = [], []
    for _ in range(int(profile["reps"])):
        x = make_samples(int(profile["n"]), float(profile["outlier_frac"]), rng)
        err_m.append(abs(robust_location(x)))
        err_c.append(abs(float(np.mean(x))))  # the control: the plain mean
    return {{"error/method": float(np.mean(err_m)), "error/control": float(np.mean(err_c))}}


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    return {{**_errors(profile, rng), "n": int(profile["n"])}}


def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    names = ["method", "control"]
    vals = [[m[f"error/{{k}}"] for m in metrics] for k in names]
    ax.boxplot(vals)
    ax.set_xticks([1, 2], names)
    ax.set_ylabel("absolute error of the location estimate")
    ax.set_title(f"{slug}: {{len(metrics)}} seeds")
    return fig
'''
    test = f'''"""Unit tests for {slug} ({source}) on cases with known answers."""

import numpy as np
import pytest

from {module} import PAPER, make_samples, robust_location


def test_median_and_mean_are_known_answers():
    x = np.array([3.0, 1.0, 2.0, 100.0, 0.0])
    assert robust_location(x) == 2.0
    assert robust_location(x, trim=0.0) == pytest.approx(x.mean())


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="x"):
        robust_location(np.array([np.nan, 1.0]))
    with pytest.raises(ValueError, match="trim"):
        robust_location(np.ones(3), trim=0.7)
    with pytest.raises(ValueError, match="outlier_frac"):
        make_samples(10, 0.9)


def test_quick_profile_seed_runs():
    metrics = PAPER.run_seed("quick", 0)
    assert metrics["error/method"] < metrics["error/control"]
'''
    return {
        f"src/icml26/{cluster}/{pkg}/__init__.py": init,
        f"src/icml26/{cluster}/{pkg}/setting.py": setting,
        f"src/icml26/{cluster}/{pkg}/method.py": method,
        f"src/icml26/{cluster}/{pkg}/experiment.py": experiment,
        f"tests/{cluster}/test_{pkg}.py": test,
    }


def scaffold(cluster: str, slug: str, *, root: str | Path | None = None, title: str = "TODO: the paper's title",
             source: str = "TODO: arXiv id") -> list[Path]:
    """Write the scaffold under ``root``; returns the files written. Refuses to overwrite anything."""
    if cluster not in CLUSTERS:
        raise ScaffoldError(f"unknown cluster {cluster!r}; choose one of {', '.join(CLUSTERS)}")
    if not isinstance(slug, str) or not SLUG.match(slug) or len(slug) > 40:
        raise ScaffoldError(f"slug must be lowercase letters and digits in words joined by '-', starting with a "
                            f"letter (e.g. my-paper), got {slug!r}")
    root = Path(root) if root is not None else default_root()
    pkg_dir = root / "src" / "icml26" / cluster / slug.replace("-", "_")
    files = {root / rel: text for rel, text in files_for(cluster, slug, title=title, source=source).items()}
    existing = [p for p in [pkg_dir, *files] if p.exists()]
    if existing:
        raise ScaffoldError(f"{existing[0]} already exists; icml26 new never overwrites (choose another slug or "
                            "remove it)")
    try:
        from icml26.core.registry import get_paper

        get_paper(slug)
    except KeyError:
        pass
    else:
        raise ScaffoldError(f"a paper with slug {slug!r} is already registered")
    written = []
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as fh:  # "x": fail rather than overwrite
            fh.write(text)
        written.append(path)
    return written
