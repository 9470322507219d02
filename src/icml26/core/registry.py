"""Find every ``PAPER`` in ``icml26.<cluster>.<paper>`` without importing heavy dependencies.

Paper packages keep their ``__init__.py`` light (the experiment and any torch code are
referenced by ``"module:attr"`` strings, and the public API is re-exported lazily with
:func:`lazy_exports`), so importing all of them costs milliseconds.
"""

from __future__ import annotations

import difflib
import os
import importlib
import pkgutil
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from icml26.core.paper import CLUSTERS, Paper


class UnknownPaper(KeyError):
    """Raised for a slug that names no registered paper; carries close matches."""

    def __init__(self, slug: str, suggestions: list[str]):
        self.slug = slug
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"no paper with slug {slug!r}{hint}")

    def __str__(self) -> str:  # KeyError quotes its message otherwise
        return self.args[0]


@lru_cache(maxsize=1)
def _discover() -> dict[str, Paper]:
    papers: dict[str, Paper] = {}
    for cluster in CLUSTERS:
        pkg = importlib.import_module(f"icml26.{cluster}")
        for info in pkgutil.iter_modules(pkg.__path__):
            if not info.ispkg or info.name.startswith("_"):
                continue
            mod = importlib.import_module(f"icml26.{cluster}.{info.name}")
            paper = getattr(mod, "PAPER", None)
            if paper is None:
                continue
            if not isinstance(paper, Paper):
                raise TypeError(f"icml26.{cluster}.{info.name}.PAPER is not a Paper")
            if paper.cluster != cluster:
                raise ValueError(f"{paper.slug}: declared cluster {paper.cluster!r} but lives in {cluster!r}")
            if paper.slug.replace("-", "_") != info.name:
                raise ValueError(f"package {info.name!r} must hold the paper with slug "
                                 f"{info.name.replace('_', '-')!r}, found {paper.slug!r}")
            papers[paper.slug] = paper
    papers.update(_extra_papers())
    return dict(sorted(papers.items(), key=lambda kv: (CLUSTERS.index(kv[1].cluster), kv[0])))


def _extra_papers() -> dict[str, Paper]:
    """Papers named by ``$ICML26_EXTRA_PAPERS`` ("module:attr" of a Paper or a list of them, comma-separated).

    This is how code outside the package (a user's own paper, or the framework's fault-injection
    fixtures in tests) joins the registry without living under ``icml26.<cluster>``.
    """
    from icml26.core.paper import resolve

    out: dict[str, Paper] = {}
    for ref in filter(None, (r.strip() for r in os.environ.get("ICML26_EXTRA_PAPERS", "").split(","))):
        obj = resolve(ref) if ":" in ref else None
        if obj is None:
            raise ValueError(f"ICML26_EXTRA_PAPERS entry {ref!r} must be 'module:attr'")
        items = obj if isinstance(obj, (list, tuple)) else [obj]
        for p in items:
            if not isinstance(p, Paper):
                raise TypeError(f"{ref} holds {type(p).__name__}, not Paper")
            out[p.slug] = p
    return out


def all_papers(cluster: str | None = None) -> list[Paper]:
    """Every registered paper, ordered by cluster then slug; optionally one cluster only."""
    if cluster is not None and cluster not in CLUSTERS:
        raise ValueError(f"unknown cluster {cluster!r}; choose one of {', '.join(CLUSTERS)}")
    return [p for p in _discover().values() if cluster is None or p.cluster == cluster]


def refresh() -> None:
    """Forget the discovered papers (after changing ``$ICML26_EXTRA_PAPERS``)."""
    _discover.cache_clear()


def get_paper(slug: str) -> Paper:
    """The paper with this slug (``_`` and ``-`` are interchangeable)."""
    papers = _discover()
    key = slug.replace("_", "-")
    if key in papers:
        return papers[key]
    raise UnknownPaper(slug, difflib.get_close_matches(key, list(papers), n=3, cutoff=0.5))


def lazy_exports(module_name: str, exports: dict[str, str]) -> Callable[[str], Any]:
    """Build a module ``__getattr__`` that imports public names on first access.

    ``exports`` maps a public name to the submodule that defines it (relative, e.g. ``".method"``)::

        __getattr__ = lazy_exports(__name__, {"BoxThirding": ".method"})
    """

    def __getattr__(name: str) -> Any:
        if name in exports:
            mod = importlib.import_module(exports[name], module_name)
            return getattr(mod, name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__
