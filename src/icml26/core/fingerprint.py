"""Which code a stored result depends on: the ``icml26`` modules its job actually imported.

After a job runs, :func:`modules_used` lists the ``icml26`` modules loaded in the worker,
less the framework's own machinery (runner, store, report, CLI, checks) and less every
*other* paper's package. :func:`fingerprint` hashes those modules' source, normalised so
that what cannot change a result does not count: comments, formatting, docstrings, the
``PAPER = ...`` declaration (claims and thresholds live there; the profile's parameters
are hashed separately) and the claim code of an experiment (``check_*``, ``contradict_*``,
``control_*``, ``figure*``). Editing a check or a threshold therefore re-runs nothing,
while editing any module a job imported (shared code in ``icml26.nn`` or a cluster's
``_data.py`` included) invalidates exactly the rows that imported it.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import sys
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from icml26.core.paper import CLUSTERS

#: Framework modules that run jobs or judge them; they never change a job's metrics.
FRAMEWORK = {"icml26", "icml26.core", "icml26.core.cli", "icml26.core.runner", "icml26.core.store",
             "icml26.core.report", "icml26.core.registry", "icml26.core.ray_backend", "icml26.core.checks",
             "icml26.core.jobs", "icml26.core.devrun", "icml26.core._testing", "icml26.core.paper",
             "icml26.core.fingerprint", "icml26.core.scaffold", "icml26.core.timing"}
_CLAIM_CODE = ("check_", "contradict_", "control_", "figure", "_figure")


@lru_cache(maxsize=4096)
def _is_package(name: str) -> bool:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.submodule_search_locations is not None


def _paper_package(module: str) -> str | None:
    """``icml26.<cluster>.<paper>`` for a module inside a paper package; shared cluster modules
    (``icml26.agents.env``, ``icml26.alignment._preferences``) are not paper packages."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[0] == "icml26" and parts[1] in CLUSTERS and not parts[2].startswith("_"):
        pkg = ".".join(parts[:3])
        if len(parts) > 3 or _is_package(pkg):
            return pkg
    return None


def modules_used(own_package: str, loaded: Iterable[str] | None = None) -> list[str]:
    """The ``icml26`` modules a job of the paper ``own_package`` depends on (sorted)."""
    names = list(sys.modules) if loaded is None else list(loaded)
    out = []
    for name in names:
        if not (name == "icml26" or name.startswith("icml26.")) or name in FRAMEWORK:
            continue
        if name in {f"icml26.{c}" for c in CLUSTERS}:
            continue
        pkg = _paper_package(name)
        if pkg is not None and pkg != own_package:
            continue
        if name.endswith("._checks"):  # a paper's claim-only module: like check_* functions, never run code
            continue
        out.append(name)
    return sorted(out)


class _Strip(ast.NodeTransformer):
    """Drop docstrings, the PAPER declaration and claim/figure functions."""

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        return body

    def visit_Module(self, node: ast.Module) -> ast.AST:
        keep = []
        for stmt in self._body(node.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith(_CLAIM_CODE):
                continue
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if any(isinstance(t, ast.Name) and t.id == "PAPER" for t in targets):
                    continue
            keep.append(stmt)
        node.body = keep
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.body = self._body(node.body) or [ast.Pass()]
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.body = self._body(node.body) or [ast.Pass()]
        self.generic_visit(node)
        return node


@lru_cache(maxsize=4096)
def _module_digest(name: str) -> str:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return "missing"
    try:
        text = Path(spec.origin).read_text(encoding="utf-8")
        tree = _Strip().visit(ast.parse(text))
        payload = ast.dump(tree, annotate_fields=False, include_attributes=False)
    except (OSError, SyntaxError, UnicodeDecodeError):
        payload = "unreadable"
    return hashlib.sha256(payload.encode()).hexdigest()


def modified_since(modules: Iterable[str], since: float) -> list[str]:
    """The ``modules`` whose source file was modified after the time ``since`` (seconds since the epoch).

    A job's fingerprint is computed from the source on disk when the job ends; a module edited
    while the job ran would stamp the result with code it did not run. The runner refuses such a
    result (see :func:`icml26.core.jobs.execute_job`).
    """
    out = []
    for name in sorted(set(modules)):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        try:
            if Path(spec.origin).stat().st_mtime > since:
                out.append(name)
        except OSError:
            continue
    return out


def fingerprint(modules: Iterable[str], params: Mapping[str, Any], profile: str = "") -> str:
    """Hash of the normalised source of ``modules`` and of the profile's parameters."""
    h = hashlib.sha256()
    for name in sorted(set(modules)):
        if name.endswith("._checks"):  # claim-only modules never change a result
            continue
        h.update(name.encode())
        h.update(_module_digest(name).encode())
    h.update(json.dumps({"name": profile, "params": dict(params)}, sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def forget() -> None:
    """Drop cached module digests (after source files changed in this process)."""
    _module_digest.cache_clear()
