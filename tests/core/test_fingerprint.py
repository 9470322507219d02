"""The run fingerprint: which code changes invalidate a stored row, and which do not."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from icml26.core import fingerprint as F


@pytest.fixture()
def pkg(tmp_path, monkeypatch):
    """A throwaway package ``fpkg`` with an experiment, a method and a shared helper."""
    root = tmp_path / "fpkg"
    root.mkdir()
    (root / "__init__.py").write_text("PAPER = 1\n")
    (root / "shared.py").write_text("def helper():\n    return 1\n")
    (root / "experiment.py").write_text(textwrap.dedent('''
        """Docstring."""
        from fpkg.shared import helper

        def run(profile, seed):
            # a comment
            return {"x": helper() + seed}

        def check_claim(ms):
            return ms[0]["x"] > 0

        def figure(ms):
            return None
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    F.forget()
    yield root
    for name in [m for m in sys.modules if m.startswith("fpkg")]:
        del sys.modules[name]
    F.forget()


def _fp(mods, params=None):
    F.forget()
    return F.fingerprint(mods, params or {"a": 1}, "quick")


MODS = ["fpkg", "fpkg.experiment", "fpkg.shared"]


def test_stable_and_param_sensitive(pkg):
    assert _fp(MODS) == _fp(MODS)
    assert _fp(MODS) != _fp(MODS, {"a": 2})


def test_claim_code_comments_and_docstrings_do_not_count(pkg):
    base = _fp(MODS)
    exp = pkg / "experiment.py"
    text = exp.read_text()
    exp.write_text(text.replace("ms[0][\"x\"] > 0", "ms[0][\"x\"] > 5").replace("# a comment", "# other")
                   .replace('"""Docstring."""', '"""Another docstring."""'))
    assert _fp(MODS) == base
    (pkg / "__init__.py").write_text("PAPER = 2  # claims and thresholds live here\n")
    assert _fp(MODS) == base


def test_run_code_and_shared_code_count(pkg):
    base = _fp(MODS)
    exp = pkg / "experiment.py"
    exp.write_text(exp.read_text().replace("helper() + seed", "helper() + 2 * seed"))
    changed = _fp(MODS)
    assert changed != base
    (pkg / "shared.py").write_text("def helper():\n    return 2\n")
    assert _fp(MODS) != changed
    # a row that did not import the shared module is not invalidated by it
    assert _fp(["fpkg.experiment"]) == _fp(["fpkg.experiment"])


def test_modules_used_keeps_own_paper_and_shared_code_only():
    loaded = ["icml26", "icml26.core.runner", "icml26.core.stats", "icml26.core.checks", "icml26.decision",
              "icml26.decision.b3", "icml26.decision.b3.experiment", "icml26.decision.pidm",
              "icml26.decision.pidm.method", "icml26.nn.transformer", "icml26.alignment._data", "numpy",
              "icml26.tasks.kb", "icml26.decision.b3._checks"]
    got = F.modules_used("icml26.decision.b3", loaded)
    # the loaded modules that count, and (statically) what their source imports
    assert {"icml26.alignment._data", "icml26.core.stats", "icml26.decision.b3", "icml26.decision.b3.experiment",
            "icml26.nn.transformer", "icml26.tasks.kb"} <= set(got)
    assert got == sorted(got) and got == F.modules_used("icml26.decision.b3", F.static_imports(got, "icml26.decision.b3"))
    for name in got:  # never the framework, a cluster package, another paper or a claim-only module
        assert name not in F.FRAMEWORK and not name.endswith("._checks") and name != "icml26.decision"
        assert not name.startswith("icml26.decision.pidm")


def test_static_imports_count_a_module_imported_only_inside_a_function():
    # geometric-unlearning's setting imports nn.train and core.cache only where it builds its cached model
    top = ["icml26.alignment.geometric_unlearning.setting"]
    got = F.static_imports(top, "icml26.alignment.geometric_unlearning")
    assert {"icml26.nn.train", "icml26.core.cache", "icml26.nn.tokenize", "icml26.tasks.kb"} <= got
    # relative imports are resolved; another paper's package is never followed into
    sg = F.static_imports(["icml26.science.sgmd.experiment"], "icml26.science.sgmd")
    assert "icml26.science.sgmd.method" in sg or "icml26.science.sgmd.setting" in sg
    assert not any(F._paper_package(m) not in (None, "icml26.science.sgmd") for m in sg)
    assert F.static_imports(["numpy", "icml26.core.runner"]) == set()


def test_code_digest_names_the_code_a_build_can_run():
    import functools

    from icml26.tasks import policy

    d = F.code_digest(policy.pretrain_policy)
    assert len(d) == 16 and d == F.code_digest("icml26.tasks.policy") == F.code_digest(functools.partial(policy.decode))
    assert F.code_digest(lambda: 1) == ""  # defined outside icml26: keyed by parameters only
    assert F.code_digest(len) == ""
    assert F.code_digest("icml26.tasks.kb") != d


def test_missing_module_changes_the_fingerprint(pkg):
    assert _fp(MODS) != _fp(MODS + ["fpkg.gone"])
    importlib.invalidate_caches()


def test_modified_since_names_modules_edited_after_a_time(pkg):
    import os
    import time

    importlib.import_module("fpkg.shared")
    t = time.time() + 60  # the files were written before this instant
    assert F.modified_since(MODS + ["no_such_module_xyz"], t) == []
    os.utime(pkg / "shared.py", (t + 5, t + 5))
    assert F.modified_since(MODS, t) == ["fpkg.shared"]


def test_a_job_whose_code_changed_while_it_ran_is_refused(fake_papers, monkeypatch):
    from icml26.core.jobs import execute_job

    metrics, mods, fp = execute_job("fake-ok", "quick", 0, 1)  # unchanged code: stored as usual
    assert isinstance(fp, str) and len(fp) == 16
    monkeypatch.setattr(F, "modified_since", lambda modules, since: ["icml26.fake_edited"])
    with pytest.raises(RuntimeError, match="changed while the job ran"):
        execute_job("fake-ok", "quick", 0, 1)


def test_code_digest_is_empty_for_framework_and_cluster_modules_and_ignores_the_cache_module():
    assert F.code_digest("icml26.core.runner") == "" and F.code_digest("icml26.decision") == ""
    d = F.code_digest("icml26.tasks.policy")
    assert d and "icml26.core.cache" in F.static_imports({"icml26.tasks.policy"})
    real = F._module_digest
    try:  # an edit of core.cache alone does not rebuild every artefact
        F._module_digest = lambda name: real(name) + ("x" if name == "icml26.core.cache" else "")
        assert F.code_digest("icml26.tasks.policy") == d
        F._module_digest = lambda name: real(name) + ("x" if name == "icml26.nn.train" else "")
        assert F.code_digest("icml26.tasks.policy") != d
    finally:
        F._module_digest = real
