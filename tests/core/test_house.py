"""The house: no import cycle in core, the scaffold of `icml26 new`, packaging and the newcomer path."""

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import icml26.core
from icml26.core.cli import app

CORE = Path(icml26.core.__file__).parent
ROOT = CORE.parents[2]


def _top_level_core_imports(path: Path) -> set[str]:
    """Core modules imported at module level (imports inside functions are lazy and cannot cycle at import)."""
    out = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("icml26.core."):
            out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("icml26.core.")}
    return out


def test_no_import_cycle_in_core():
    graph = {p.stem: _top_level_core_imports(p) for p in CORE.glob("*.py")}
    state: dict[str, int] = {}

    def visit(node, path):
        if state.get(node) == 1:
            raise AssertionError(f"import cycle in icml26.core: {' -> '.join(path + [node])}")
        if state.get(node) == 2:
            return
        state[node] = 1
        for dep in graph.get(node, ()):
            visit(dep, path + [node])
        state[node] = 2

    for mod in graph:
        visit(mod, [])
    assert "ray_backend" not in graph["runner"] and "runner" not in graph["ray_backend"]
    assert {"jobs"} <= graph["runner"] and {"jobs"} <= graph["ray_backend"]


def test_profile_preference_lives_once():
    hits = [p.name for p in CORE.glob("*.py") if '("full", "quick")' in p.read_text()]
    assert hits == ["report.py"], hits


def test_new_scaffolds_a_working_paper(tmp_path):
    res = CliRunner().invoke(app, ["new", "decision", "toy-robust", "--root", str(tmp_path),
                                   "--title", "A [bold] toy", "--source", "arXiv:0000.00000"])
    assert res.exit_code == 0, res.output
    pkg = tmp_path / "src" / "icml26" / "decision" / "toy_robust"
    test_file = tmp_path / "tests" / "decision" / "test_toy_robust.py"
    assert sorted(p.name for p in pkg.iterdir()) == ["__init__.py", "experiment.py", "method.py", "setting.py"]
    assert test_file.exists()
    # refuses to overwrite, changes nothing
    before = (pkg / "method.py").read_text()
    again = CliRunner().invoke(app, ["new", "decision", "toy-robust", "--root", str(tmp_path)])
    assert again.exit_code == 2 and "never overwrites" in again.output
    assert (pkg / "method.py").read_text() == before
    assert CliRunner().invoke(app, ["new", "decision", "b3", "--root", str(tmp_path / "x")]).exit_code == 2
    # the scaffold is a registered paper that runs, decides its claim, draws its figure and passes its test
    code = f"""
import sys
import icml26.decision as d
d.__path__.append({str(pkg.parent)!r})
from icml26.core.registry import get_paper
p = get_paper("toy-robust")
assert p.claims[0].kind == "headline" and p.claims[0].control and p.claims[0].check is not None
ms = [p.run_seed("quick", s) for s in range(p.profile("quick").seeds)]
v = p.evaluate(ms)["beats-control"]
assert v.status == "reproduced", v
assert p.figure_fn()(ms) is not None
assert p.contradict_fn(p.claims[0])(ms) and p.evaluate(p.contradict_fn(p.claims[0])(ms))
sys.path.insert(0, {str(test_file.parent)!r})
import test_toy_robust as t
for name in dir(t):
    if name.startswith("test_"):
        getattr(t, name)()
from icml26.core.paper import resolve
for fn, kwargs in resolve(p.examples)():
    fn(**kwargs)
print("OK")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "OK" in out.stdout, out.stdout + out.stderr


def test_pyproject_build_requirements():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "MIT"
    assert any(r.replace(" ", "").startswith("setuptools>=") and int(r.split(">=")[1].split(".")[0]) >= 77
               for r in data["build-system"]["requires"])  # license = "MIT" (SPDX string) needs setuptools >= 77
    extras = data["project"]["optional-dependencies"]
    from icml26.core.jobs import EXTRAS

    for module, names in EXTRAS.items():  # every extra the hints name exists
        assert all(n in extras for n in names), (module, names)


def test_readme_newcomer_path():
    text = (ROOT / "README.md").read_text()
    assert "source .venv/bin/activate" in text
    assert "pip install" in text and "icml26[" in text
    for letter in ("**A**", "**B**", "**C**"):
        assert letter in text, f"feasibility {letter} is not defined in the README"
