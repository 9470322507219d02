"""Common checks every registered paper must pass (in the spirit of scikit-learn's check_estimator).

For each paper: the contract is complete (every claim has a kind; every comparative
headline claim names a control and its check reports the control's number); the package
imports without heavy dependencies; the quick profile runs, returns JSON-able metrics and
is deterministic for a given seed, whatever the number of seeds asked for; every claim
yields a Verdict; each check returns something other than ``reproduced`` on metrics that
contradict its claim and on metrics in which the method is replaced by its control (no
check can pass unconditionally, and none passes for the control); the figure renders;
and the public API rejects bad input with an error naming the argument.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from icml26.core.paper import KINDS, STATUSES, Verdict
from icml26.core.registry import all_papers

PAPERS = all_papers()
IDS = [p.slug for p in PAPERS]
# one xdist group per paper: its quick profile runs once per worker, papers spread over workers
PARAMS = [pytest.param(p, id=p.slug, marks=pytest.mark.xdist_group(p.slug)) for p in PAPERS]
_QUICK: dict[str, list[dict]] = {}
#: metrics measured on the wall clock (through icml26.core.timing) live under this prefix; they
#: are exempt from the determinism comparison, and a speed claim reads them as same-run ratios
TIMING_PREFIX = "timing/"


def _deterministic_part(m: dict) -> str:
    return json.dumps({k: v for k, v in m.items() if not k.startswith(TIMING_PREFIX)}, sort_keys=True)


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
            "exp = [m for m in sys.modules if m.endswith(('.experiment', '.method', '.setting'))]; "
            "print(heavy, exp); assert not heavy and not exp, (heavy, exp)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("paper", PARAMS)
def test_contract(paper):
    assert paper.title and paper.source and len(paper.substitution) > 40
    assert paper.profiles["quick"].seeds >= 2, "verdicts need several seeds, even in the quick profile"
    assert paper.profiles["full"].seeds >= paper.profiles["quick"].seeds
    assert callable(paper.run_fn())
    assert paper.figure_fn() is None or callable(paper.figure_fn())
    assert any(c.kind == "headline" for c in paper.claims), "a paper needs at least one headline claim"
    for claim in paper.claims:
        assert claim.kind in KINDS
        assert claim.statement and claim.paper_value
        assert callable(paper.check_fn(claim)) and callable(paper.contradict_fn(claim))
        if claim.kind == "headline":
            assert claim.control or claim.no_control, f"{claim.id}: name the control or say why there is none"
        if claim.comparative:
            assert paper.control_fn(claim) is not None, \
                f"{claim.id}: a comparative claim needs a way to put the control in the method's place " \
                f"(a declarative check, or control_{claim.id.replace('-', '_')} in the experiment)"
    assert paper.package.endswith(paper.slug.replace("-", "_"))


@pytest.mark.parametrize("paper", PARAMS)
def test_quick_profile_runs_and_is_deterministic(paper):
    ms = quick_metrics(paper)
    for m in ms:
        assert m, "empty metrics"
        json.dumps(m)  # storable
    # same seed again, under a profile that asks for more seeds: a seed's work depends on the seed alone
    more = dataclasses.replace(paper.profile("quick"), seeds=paper.profile("quick").seeds + 7)
    again = paper.run_seed(more, 0)
    assert _deterministic_part(again) == _deterministic_part(ms[0]), \
        "same (profile, seed) gave different metrics (or they depend on the number of seeds)"
    assert len(ms) < 2 or _deterministic_part(ms[0]) != _deterministic_part(ms[1]), \
        "different seeds gave identical metrics: is the seed used?"


@pytest.mark.parametrize("paper", PARAMS)
def test_every_claim_yields_a_verdict(paper):
    ms = quick_metrics(paper)
    for claim in paper.claims:
        v = paper.verdict(claim, ms)
        assert isinstance(v, Verdict) and v.status in STATUSES
        assert v.measured.strip() and v.evidence.strip()
        if claim.comparative:
            assert v.control.strip(), f"{claim.id}: a comparative claim's verdict must report the control's number"


@pytest.mark.parametrize("paper", PARAMS)
def test_checks_can_fail(paper):
    ms = quick_metrics(paper)
    for claim in paper.claims:
        bad = paper.contradict_fn(claim)(copy.deepcopy(ms))
        assert isinstance(bad, list) and len(bad) == len(ms)
        v = paper.verdict(claim, bad)
        assert v.status != "reproduced", f"claim {claim.id!r} is 'reproduced' on contradicting metrics: {v}"


@pytest.mark.parametrize("paper", PARAMS)
def test_checks_never_pass_on_the_control(paper):
    """With the method's numbers replaced by the control's, a comparative claim is not reproduced."""
    ms = quick_metrics(paper)
    for claim in paper.claims:
        if not claim.comparative:
            continue
        ctl = paper.control_fn(claim)(copy.deepcopy(ms))
        assert isinstance(ctl, list) and len(ctl) == len(ms)
        v = paper.verdict(claim, ctl)
        assert v.status != "reproduced", f"claim {claim.id!r} passes for the control itself: {v}"


@pytest.mark.parametrize("paper", PARAMS)
def test_figure_renders(paper):
    fn = paper.figure_fn()
    if fn is None:
        pytest.skip("paper declares no figure")
    import io

    fig = fn(quick_metrics(paper))
    figs = fig if isinstance(fig, (list, tuple)) else [fig]
    for f in figs:
        assert f.axes, "figure has no axes"
        for ax in f.axes:
            if ax.has_data():
                assert ax.get_xlabel() or ax.get_ylabel() or ax.get_title(), "axes need labels"
        f.savefig(io.BytesIO(), format="png")


# ----------------------------------------------------------------------------- bad input
def _bad_values(value):
    """Bad replacements for one good argument value: NaN, empty, wrong shape, wrong type."""
    out = []
    if isinstance(value, bool):
        return [("wrong type", "yes")]
    if isinstance(value, (int, np.integer)):
        out += [("negative", -1), ("wrong type", "3"), ("NaN", math.nan)]
    elif isinstance(value, (float, np.floating)):
        out += [("NaN", math.nan), ("inf", math.inf), ("wrong type", "0.5")]
    elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
        nan = value.copy()
        if nan.size:
            nan.flat[0] = np.nan
            out.append(("NaN", nan))
        out += [("empty", value[:0]), ("wrong shape", value[..., None, None]), ("wrong type", "array")]
    elif hasattr(value, "detach") and hasattr(value, "dtype") and getattr(value.dtype, "is_floating_point", False):
        nan = value.clone()
        if nan.numel():
            nan.view(-1)[0] = float("nan")
            out.append(("NaN", nan))
        out += [("wrong shape", value[..., None, None]), ("wrong type", "tensor")]
    return out


@pytest.mark.parametrize("paper", PARAMS)
def test_public_api_rejects_bad_input(paper):
    """Each example call (the paper's EXAMPLES hook) works, and each bad argument raises ValueError/TypeError
    naming the argument."""
    if paper.examples is None:
        pytest.skip("paper declares no EXAMPLES for the bad-input test yet")
    from icml26.core.paper import resolve

    examples = resolve(paper.examples)()
    assert examples, "EXAMPLES is empty"
    for example in examples:
        fn, kwargs = example[0], example[1]
        skip = example[2] if len(example) > 2 else {}  # {arg: {"negative", ...}} bad kinds that are valid there
        fn(**copy.deepcopy(kwargs))  # the good call works
        for name, value in kwargs.items():
            for what, bad in _bad_values(value):
                if what in skip.get(name, ()):
                    continue
                args = {**copy.deepcopy(kwargs), name: bad}
                with pytest.raises((ValueError, TypeError)) as info:
                    fn(**args)
                assert name in str(info.value), \
                    f"{fn.__name__}({name}={what}) raised {info.value!r}, which does not name {name!r}"
