"""A small on-disk cache for expensive, deterministic artefacts (a pretrained backbone, solver output).

Several reproductions build something once per (config, seed) and reuse it across runs: a tiny
language model pretrained on generated text, a Maxwell or SCF solve, downsampled photos. They all
follow the same rules, written once here:

- the root is ``$ICML26_CACHE`` (default ``~/.cache/icml26``), one folder per namespace (a paper's
  slug or a shared substrate's name);
- a file's name carries a short hash of every parameter that determines its content, so a change
  of config never reads a stale artefact;
- writes are atomic (a temporary file in the same folder, then :func:`os.replace`), so two workers
  building the same artefact at once never leave a half-written file;
- a file that cannot be read back (truncated, from an older format) is rebuilt, not trusted.

- the name also carries a hash of the code ``build`` can run (:func:`icml26.core.fingerprint.code_digest`:
  its ``icml26`` module and every ``icml26`` module that one imports, normalised as a result's code
  fingerprint is), so after a change to, say, ``nn.train.train_lm`` a warm cache is not read: the
  artefact is rebuilt by the code that is there now (a ``build`` defined outside ``icml26``, such
  as a test's, is keyed by its parameters only; a version entry in ``params``, as
  :mod:`icml26.tasks.policy`'s ``"v"``, still works for anything else the artefact depends on).
A file that loads but does not fit (a state dict of another shape) is the caller's to detect:
:func:`icml26.tasks.search.pretrain_search_policy` rebuilds it with ``refresh=True``.

Example::

    from icml26.core.cache import cached

    def build():
        return expensive_solve(grid=64, seed=3)

    field = cached("snrft", "field", build, params={"grid": 64, "seed": 3}, fmt="npy")
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from icml26.core.fingerprint import code_digest

#: The formats :func:`cached` can write: file suffix and (save, load) pair.
FORMATS = ("pkl", "npy", "npz", "json", "pt")


def cache_root() -> Path:
    """The cache's root folder: ``$ICML26_CACHE`` if set, else ``~/.cache/icml26``."""
    return Path(os.environ.get("ICML26_CACHE", Path.home() / ".cache" / "icml26"))


def _canonical(value: Any) -> Any:
    """A JSON-able, order-independent form of ``value`` (numpy scalars and arrays included)."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "tolist"):  # numpy arrays and scalars, torch tensors
        return _canonical(value.tolist())
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"params: cannot key the cache on a value of type {type(value).__name__}")


def cache_key(params: Mapping[str, Any] | None = None, length: int = 16) -> str:
    """A short, stable hex digest of ``params`` (the same dict gives the same key in any process).

    Keys are order-independent (``{"a": 1, "b": 2}`` and ``{"b": 2, "a": 1}`` agree); ints and
    floats that compare equal may differ (``1`` vs ``1.0``), so pass parameters with stable types.
    """
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping, got {type(params).__name__}")
    if not isinstance(length, int) or not 4 <= length <= 64:
        raise ValueError(f"length must be an int in [4, 64], got {length!r}")
    text = json.dumps(_canonical(dict(params or {})), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:length]


def cache_path(namespace: str, name: str, params: Mapping[str, Any] | None = None, fmt: str = "pkl",
               code: Any = None) -> Path:
    """Where :func:`cached` keeps ``name`` of ``namespace`` for these ``params``, built by ``code``
    (the ``build`` callable, or the name of the ``icml26`` module that defines it; None: a key of
    the parameters only, as for a ``build`` defined outside ``icml26``)."""
    for arg, value in (("namespace", namespace), ("name", name)):
        if not isinstance(value, str) or not value or any(c in value for c in "/\\") or value.startswith("."):
            raise ValueError(f"{arg} must be a non-empty file-name-safe string, got {value!r}")
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {FORMATS}, got {fmt!r}")
    digest = code_digest(code)[:8] if code is not None else ""
    return cache_root() / namespace / f"{name}{'-' + digest if digest else ''}_{cache_key(params)}.{fmt}"


def _save(obj: Any, handle, fmt: str) -> None:
    if fmt == "pkl":
        pickle.dump(obj, handle, protocol=pickle.HIGHEST_PROTOCOL)
    elif fmt == "npy":
        import numpy as np
        np.save(handle, obj, allow_pickle=False)
    elif fmt == "npz":
        import numpy as np
        if not isinstance(obj, Mapping):
            raise TypeError("fmt='npz' needs build() to return a mapping of arrays")
        np.savez(handle, **obj)
    elif fmt == "json":
        handle.write(json.dumps(obj).encode())
    else:  # pt
        import torch
        torch.save(obj, handle)


def _load(path: Path, fmt: str) -> Any:
    if fmt == "pkl":
        with open(path, "rb") as f:
            return pickle.load(f)
    if fmt == "npy":
        import numpy as np
        return np.load(path, allow_pickle=False)
    if fmt == "npz":
        import numpy as np
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    if fmt == "json":
        return json.loads(path.read_text())
    import torch
    return torch.load(path, weights_only=False)


def cached(namespace: str, name: str, build: Callable[[], Any], *, params: Mapping[str, Any] | None = None,
           fmt: str = "pkl", refresh: bool = False) -> Any:
    """Return ``build()``'s value, read from disk when an earlier call stored it for these ``params``.

    ``params`` must hold everything that determines the value (config and seed); ``fmt`` picks the
    file format (``pkl``, ``npy`` for one array, ``npz`` for a dict of arrays, ``json``, ``pt`` for
    torch objects such as a ``state_dict``). The file is also keyed by the code ``build`` can run
    (see the module docstring). ``refresh=True`` rebuilds and overwrites. Setting the
    environment variable ``ICML26_NO_CACHE=1`` bypasses the disk entirely (always builds, never writes).
    """
    if not callable(build):
        raise TypeError(f"build must be callable, got {type(build).__name__}")
    path = cache_path(namespace, name, params, fmt, code=build)
    if os.environ.get("ICML26_NO_CACHE") == "1":
        return build()
    if path.exists() and not refresh:
        try:
            return _load(path, fmt)
        except Exception:  # noqa: BLE001 - a truncated or stale file is rebuilt, never trusted
            pass
    value = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            _save(value, handle, fmt)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return value
