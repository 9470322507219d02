"""Which code a stored result depends on: the ``icml26`` modules its job actually imported.

After a job runs, :func:`modules_used` lists the ``icml26`` modules loaded in the worker,
together with every ``icml26`` module their source imports anywhere, a function body included
(:func:`static_imports`: a module imported only on a cache miss, say, counts even when the
cache was warm), less the framework's own machinery (runner, store, report, CLI, checks) and
less every *other* paper's package. :func:`fingerprint` hashes those modules' source, normalised so
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


def _keep(name: str, own_package: str | None) -> bool:
    """Whether module ``name`` counts for a job of the paper ``own_package`` (None: no paper's own)."""
    if not (name == "icml26" or name.startswith("icml26.")) or name in FRAMEWORK:
        return False
    if name in {f"icml26.{c}" for c in CLUSTERS}:
        return False
    pkg = _paper_package(name)
    if pkg is not None and pkg != own_package:
        return False
    return not name.endswith("._checks")  # a paper's claim-only module: like check_* functions, never run code


def modules_used(own_package: str, loaded: Iterable[str] | None = None) -> list[str]:
    """The ``icml26`` modules a job of the paper ``own_package`` depends on (sorted): the loaded
    ones (default ``sys.modules``) and, through :func:`static_imports`, those their code can import."""
    names = list(sys.modules) if loaded is None else list(loaded)
    kept = {name for name in names if _keep(name, own_package)}
    return sorted(static_imports(kept, own_package))


def _source_path(name: str) -> Path | None:
    """The source file of the ``icml26`` module ``name``, found on disk without importing anything."""
    import icml26

    root = Path(icml26.__file__).parent
    rel = name.split(".")[1:]
    base = root.joinpath(*rel) if rel else root
    for cand in (base.with_suffix(".py") if rel else None, base / "__init__.py"):
        if cand is not None and cand.is_file():
            return cand
    return None


@lru_cache(maxsize=1024)
def _lazy_map(package: str) -> dict[str, str]:
    """Public name -> absolute module of the ``lazy_exports`` of package ``package`` (its ``__init__``):
    every dict literal, and dict comprehension over a literal tuple of names, whose values are module
    paths (``".method"``, ``"icml26.x.y"``), as :func:`icml26.core.registry.lazy_exports` takes them."""
    path = _source_path(package)
    if path is None or path.name != "__init__.py":
        return {}
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {}

    def absolute(target: str) -> str:
        if not target.startswith("."):
            return target
        level = len(target) - len(target.lstrip("."))
        up = package.split(".")[:len(package.split(".")) - level + 1]
        rest = target.lstrip(".")
        return ".".join(up + ([rest] if rest else []))

    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Constant) \
                        and isinstance(v.value, str) and (v.value.startswith(".") or v.value.startswith("icml26.")):
                    out[k.value] = absolute(v.value)
        elif isinstance(node, ast.DictComp) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str) and len(node.generators) == 1 \
                and isinstance(node.generators[0].iter, (ast.Tuple, ast.List)):
            for elt in node.generators[0].iter.elts:
                if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                    out[elt.value] = absolute(node.value.value)
    return out


@lru_cache(maxsize=4096)
def _imports_of(name: str) -> tuple[str, ...]:
    """The existing ``icml26`` modules named by any import statement of module ``name`` (at any
    depth: function bodies and branches included; relative imports resolved)."""
    path = _source_path(name)
    if path is None:
        return ()
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package.split(".")
                if node.level > 1:
                    up = up[:len(up) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            parts = base.split(".")
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            found.update(f"{base}.{alias.name}" for alias in node.names)
            if base.startswith("icml26"):  # a name the package exports lazily counts its defining module
                lazy = _lazy_map(base)
                found.update(lazy[alias.name] for alias in node.names if alias.name in lazy)
    return tuple(sorted(m for m in found if (m == "icml26" or m.startswith("icml26.")) and _source_path(m)))


def static_imports(modules: Iterable[str], own_package: str | None = None) -> set[str]:
    """``modules`` and, transitively, every ``icml26`` module their source imports anywhere (see
    :func:`_imports_of`), less what a job's fingerprint never counts (framework modules, cluster
    packages, other papers' packages, claim-only modules); framework modules are not followed."""
    out: set[str] = set()
    todo = [m for m in modules if _keep(m, own_package)]
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        todo.extend(m for m in _imports_of(name) if m not in out and _keep(m, own_package))
    return out


def code_digest(build: Any) -> str:
    """A short hash of the code that a callable ``build`` can run: its ``icml26`` module (or
    ``build`` itself, a module's name) and what that module imports (:func:`static_imports`),
    normalised as in :func:`fingerprint`; "" for a callable defined outside ``icml26`` (a test's,
    a user's). :func:`icml26.core.cache.cached` keys
    artefacts by it, so an artefact built by older code is rebuilt, not reused."""
    if isinstance(build, str):
        module = build
    else:
        fn = build
        while hasattr(fn, "func"):  # functools.partial
            fn = fn.func
        module = getattr(fn, "__module__", None) or ""
    own = _paper_package(module)
    if not _keep(module, own):  # outside icml26, or a framework or cluster module: parameters only
        return ""
    mods = static_imports({module}, own) - {"icml26.core.cache"}  # the cache's own code builds nothing
    return fingerprint(mods, {}, "")


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
    _imports_of.cache_clear()
    _lazy_map.cache_clear()
