"""Common checks every registered paper must pass (in the spirit of scikit-learn's check_estimator).

For each paper: the contract is complete; the package imports without heavy dependencies;
the quick profile runs, returns JSON-able metrics and is deterministic for a given seed;
every claim yields a Verdict computed from those metrics; each check returns something
other than ``reproduced`` on metrics that contradict its claim (no check can pass
unconditionally); and the figure renders.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from icml26.core.paper import STATUSES, Verdict, resolve
from icml26.core.registry import all_papers

PAPERS = all_papers()
IDS = [p.slug for p in PAPERS]
# one xdist group per paper: its quick profile runs once per worker, papers spread over workers
PARAMS = [pytest.param(p, id=p.slug, marks=pytest.mark.xdist_group(p.slug)) for p in PAPERS]
_QUICK: dict[str, list[dict]] = {}


def quick_metrics(paper) -> list[dict]:
    """Run (once per test process) every seed of the paper's quick profile."""
    if paper.slug not in _QUICK:
        prof = paper.profile("quick")
        _QUICK[paper.slug] = [paper.run_seed(prof, s) for s in range(prof.seeds)]
    return _QUICK[paper.slug]


def test_papers_are_registered():
    assert PAPERS, "no paper is registered"
    assert len(set(IDS)) == len(IDS)


def test_registry_import_is_light():
    """Importing every paper package (what `icml26 list` does) must not import torch or the experiments."""
    code = ("import sys; from icml26.core.registry import all_papers; ps = all_papers(); "
            "import icml26.core.cli; "
            "heavy = [m for m in ('torch', 'sklearn', 'scipy', 'pandas', 'matplotlib.pyplot') if m in sys.modules]; "
            "exp = [m for m in sys.modules if m.endswith('.experiment') or m.endswith('.method')]; "
            "print(heavy, exp); assert not heavy and not exp, (heavy, exp)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("paper", PARAMS)
def test_contract(paper):
    assert paper.title and paper.source and len(paper.substitution) > 40
    assert paper.profiles["quick"].seeds >= 2, "verdicts need several seeds, even in the quick profile"
    assert paper.profiles["full"].seeds >= paper.profiles["quick"].seeds
    resolve(paper.run)
    if paper.figure is not None:
        resolve(paper.figure)
    for claim in paper.claims:
        assert claim.statement and claim.paper_value
        assert callable(resolve(claim.check)) and callable(resolve(claim.contradict))
    assert paper.package.endswith(paper.slug.replace("-", "_"))


@pytest.mark.parametrize("paper", PARAMS)
def test_quick_profile_runs_and_is_deterministic(paper):
    ms = quick_metrics(paper)
    for m in ms:
        assert m, "empty metrics"
        json.dumps(m)  # storable
    again = paper.run_seed(paper.profile("quick"), 0)
    assert json.dumps(again, sort_keys=True) == json.dumps(ms[0], sort_keys=True), \
        "same (profile, seed) gave different metrics"
    assert len(ms) < 2 or json.dumps(ms[0], sort_keys=True) != json.dumps(ms[1], sort_keys=True), \
        "different seeds gave identical metrics: is the seed used?"


@pytest.mark.parametrize("paper", PARAMS)
def test_every_claim_yields_a_verdict(paper):
    ms = quick_metrics(paper)
    for claim in paper.claims:
        v = claim.evaluate(ms)
        assert isinstance(v, Verdict) and v.status in STATUSES
        assert v.measured.strip() and v.evidence.strip()


@pytest.mark.parametrize("paper", PARAMS)
def test_checks_can_fail(paper):
    ms = quick_metrics(paper)
    for claim in paper.claims:
        bad = resolve(claim.contradict)(copy.deepcopy(ms))
        assert isinstance(bad, list) and len(bad) == len(ms)
        v = claim.evaluate(bad)
        assert v.status != "reproduced", f"claim {claim.id!r} is 'reproduced' on contradicting metrics: {v}"


@pytest.mark.parametrize("paper", PARAMS)
def test_figure_renders(paper):
    if paper.figure is None:
        pytest.skip("paper declares no figure")
    import io

    fig = resolve(paper.figure)(quick_metrics(paper))
    figs = fig if isinstance(fig, (list, tuple)) else [fig]
    for f in figs:
        assert f.axes, "figure has no axes"
        for ax in f.axes:
            if ax.has_data():
                assert ax.get_xlabel() or ax.get_ylabel() or ax.get_title(), "axes need labels"
        f.savefig(io.BytesIO(), format="png")
