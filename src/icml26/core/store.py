"""Results store: one embedded SQLite file, one row per job (paper, profile, seed, code version).

Rows are written by the driver as each job finishes, in their own transaction, so an
interrupted run leaves every finished job stored exactly once and nothing half-written.
A row is keyed by ``(paper, profile, seed, code_hash)``: re-running a job under the same
code replaces its row (an error row becomes an ``ok`` row once it succeeds), and a
changed implementation gets fresh rows beside the old ones.

The file is checked on open: a file that is not SQLite, or an SQLite database that was
not written by icml26, raises :class:`StoreError` and is never modified. Any path works
(``%``, ``?``, ``#``, spaces, non-ASCII: the SQLite URI is escaped). Reading commands open
the store with ``readonly=True`` and never write, so a read-only file or directory can be
listed and reported; a writing command on a read-only store gets a :class:`StoreError`
that says so.

Before a job runs, the runner takes a *lease* on it (:meth:`Store.claim`), so two
``icml26 run`` processes on one store share the work; the lease of a dead process expires.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import platform
import socket
import sqlite3
import subprocess
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

APP_ID = "icml26-results"
SCHEMA_VERSION = "3"
DEFAULT_PATH = Path("runs") / "results.sqlite"
JOB_STATUSES = ("ok", "error", "timeout", "crashed", "skipped")
EXPORT_COLUMNS = ("paper", "profile", "seed", "status", "metrics", "error", "duration_s", "code_hash", "version",
                  "git_commit", "python", "torch", "numpy", "host", "backend", "created_at", "modules", "cpu_s")
#: export fields that files written before they existed lack (read as NULL)
OPTIONAL_EXPORT_COLUMNS = frozenset({"cpu_s"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    paper       TEXT NOT NULL,
    profile     TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('ok','error','timeout','crashed','skipped')),
    metrics     TEXT,
    error       TEXT,
    duration_s  REAL,
    code_hash   TEXT NOT NULL,
    version     TEXT,
    git_commit  TEXT,
    python      TEXT,
    torch       TEXT,
    numpy       TEXT,
    host        TEXT,
    backend     TEXT,
    created_at  TEXT NOT NULL,
    modules     TEXT,
    cpu_s       REAL,
    UNIQUE (paper, profile, seed, code_hash)
);
CREATE TABLE IF NOT EXISTS leases (
    job         TEXT PRIMARY KEY,
    pid         INTEGER NOT NULL,
    host        TEXT NOT NULL,
    started_at  REAL NOT NULL,
    expires_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    paper       TEXT NOT NULL,
    profile     TEXT NOT NULL,
    claim       TEXT NOT NULL,
    code_hash   TEXT NOT NULL,
    status      TEXT NOT NULL,
    measured    TEXT NOT NULL,
    evidence    TEXT NOT NULL,
    n_seeds     INTEGER NOT NULL,
    computed_at TEXT NOT NULL,
    PRIMARY KEY (paper, profile, claim)
);
"""


class StoreError(RuntimeError):
    """The results file cannot be used (corrupt, foreign, from a newer schema, or read-only for a write)."""


def _uri(path: Path, **query: str) -> str:
    """An SQLite ``file:`` URI for ``path``, escaped so that ``%``, ``?``, ``#`` and the rest stay in the name."""
    from urllib.parse import quote

    absolute = os.path.abspath(os.fspath(path))
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return "file:" + quote(absolute, safe="/") + (f"?{q}" if q else "")


def _connect_ro(path: Path, timeout: float = 30.0) -> sqlite3.Connection:
    """Open read-only; in a read-only directory (a WAL store cannot make its -shm file) fall back to immutable."""
    conn = sqlite3.connect(_uri(path, mode="ro"), uri=True, timeout=timeout, isolation_level=None)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        if "unable to open" not in str(exc) and "readonly" not in str(exc):
            raise
    conn = sqlite3.connect(_uri(path, mode="ro", immutable="1"), uri=True, timeout=timeout, isolation_level=None)
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return conn


def _is_readonly_error(exc: BaseException) -> bool:
    msg = str(exc).lower()
    return "readonly" in msg or "read-only" in msg or "unable to open database file" in msg


@dataclass(frozen=True)
class Row:
    paper: str
    profile: str
    seed: int
    status: str
    metrics: dict[str, Any] | None
    error: str | None
    duration_s: float | None
    code_hash: str
    created_at: str
    version: str | None = None
    git_commit: str | None = None
    host: str | None = None
    backend: str | None = None
    modules: tuple[str, ...] | None = None
    cpu_s: float | None = None  # user + system CPU seconds of the job's process, None where not measured


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OSError, ValueError):
        return False
    try:  # a zombie is dead for our purpose
        with open(f"/proc/{int(pid)}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def default_path() -> Path:
    return Path(os.environ.get("ICML26_STORE", str(DEFAULT_PATH)))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def environment() -> dict[str, str | None]:
    """Versions and host recorded with every row (torch only if already imported or cheap to find)."""
    from importlib import metadata

    import icml26

    def version_of(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    commit = None
    try:
        here = Path(__file__).resolve().parent
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5)
        if out.returncode == 0:
            commit = out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    return {"version": icml26.__version__, "git_commit": commit, "python": platform.python_version(),
            "torch": version_of("torch"), "numpy": version_of("numpy"), "host": socket.gethostname()}


def code_hash(paper: Any, profile: Any, modules: Any = None) -> str:
    """Fingerprint of a job's code and settings (see :mod:`icml26.core.fingerprint`).

    With ``modules`` (recorded with a row) it hashes exactly those modules; without, the
    paper's own package, which is what a job that has not run yet is known to import.
    """
    from icml26.core.fingerprint import fingerprint

    if modules is None:
        modules = [paper.package, paper.experiment]
    return fingerprint(modules, profile.params, profile.name)


class Store:
    """SQLite-backed results store. Use as a context manager or call :meth:`close`."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, create: bool = True,
                 readonly: bool = False):
        self.path = Path(path) if path is not None else default_path()
        self.readonly = readonly
        self.skipped_rows: list[str] = []  # malformed rows met while reading, named
        if self.path.exists():
            self._check_file()
        elif not create or readonly:
            raise StoreError(f"no results store at {self.path}")
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the results store {self.path}: {exc.strerror or exc} "
                                 "(read-only location? choose another path with --store)") from None
        if readonly:
            try:
                self.conn = _connect_ro(self.path)
                self.conn.execute("PRAGMA busy_timeout = 30000")
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"{self.path} cannot be read: {exc}") from None
            cols = {r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}
            if not cols:  # an empty (new) file: read it as an empty store
                self.conn.close()
                self.conn = sqlite3.connect(":memory:", isolation_level=None)
                self.conn.executescript(_SCHEMA)
                cols = {"modules", "cpu_s"}
            self._has_modules = "modules" in cols
            self._has_cpu = "cpu_s" in cols
            return
        try:
            self.conn = sqlite3.connect(_uri(self.path), uri=True, timeout=30.0, isolation_level=None)
            self.conn.execute("PRAGMA busy_timeout = 30000")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self._init_schema()
        except sqlite3.OperationalError as exc:
            if _is_readonly_error(exc):
                raise StoreError(f"the results store {self.path} is read-only ({exc}): reading commands (list, "
                                 "show, report) work; to run, choose a writable path with --store") from None
            raise StoreError(f"{self.path} is not a usable icml26 results store: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a usable icml26 results store: {exc}") from exc
        self._has_modules = self._has_cpu = True

    # -- opening -------------------------------------------------------------------------
    def _check_file(self) -> None:
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a results file")
        with open(self.path, "rb") as fh:
            head = fh.read(16)
        if head and head != b"SQLite format 3\x00":
            raise StoreError(f"{self.path} is not an SQLite file (corrupt or foreign); "
                             "it was left untouched — choose another path with --store")
        if not head:
            return  # an empty file: treat as new
        try:
            conn = _connect_ro(self.path)
            try:
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                if not tables:
                    return
                if "meta" not in tables:
                    raise StoreError(f"{self.path} is an SQLite database that icml26 did not write "
                                     f"(tables: {sorted(tables)}); it was left untouched")
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
                conn.execute("PRAGMA quick_check").fetchall()
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is corrupt ({exc}); it was left untouched") from exc
        if meta.get("app") != APP_ID:
            raise StoreError(f"{self.path} is an SQLite database of another application; left untouched")
        if meta.get("schema", "0") > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema {meta.get('schema')}, newer than this icml26 "
                             f"({SCHEMA_VERSION}); upgrade icml26")

    def _init_schema(self) -> None:
        self.conn.executescript(_SCHEMA)
        cols = {r[1] for r in self.conn.execute("PRAGMA table_info(runs)")}
        added = False
        if "modules" not in cols:  # a schema-1 store: rows without module lists are treated as stale
            self.conn.execute("ALTER TABLE runs ADD COLUMN modules TEXT")
            added = True
        if "cpu_s" not in cols:  # a schema-2 store: its rows keep cpu_s NULL (not measured)
            self.conn.execute("ALTER TABLE runs ADD COLUMN cpu_s REAL")
            added = True
        if added:
            self.conn.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA_VERSION,))
        self.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('app', ?)", (APP_ID,))
        self.conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        self.conn.close()

    def _write(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        if self.readonly:
            raise StoreError(f"the results store {self.path} was opened read-only; this command cannot write to it")
        try:
            return self.conn.execute(sql, tuple(args))
        except sqlite3.OperationalError as exc:
            if _is_readonly_error(exc):
                raise StoreError(f"the results store {self.path} is read-only ({exc}); choose a writable path "
                                 "with --store") from None
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------
    def record(self, *, paper: str, profile: str, seed: int, status: str, code_hash: str,
               metrics: dict[str, Any] | None = None, error: str | None = None,
               duration_s: float | None = None, backend: str = "local",
               env: dict[str, str | None] | None = None, modules: Sequence[str] | None = None,
               cpu_s: float | None = None) -> None:
        """Store one finished job, replacing an earlier row of the same job and code version.

        ``duration_s`` is the job's wall time, ``cpu_s`` the CPU time (user + system) of its process
        where the backend measures it.
        """
        if status not in JOB_STATUSES:
            raise ValueError(f"status must be one of {JOB_STATUSES}, got {status!r}")
        if cpu_s is not None and (isinstance(cpu_s, bool) or not isinstance(cpu_s, (int, float))
                                  or not 0 <= cpu_s < float("inf")):
            raise ValueError(f"cpu_s must be a finite non-negative number or None, got {cpu_s!r}")
        env = env or environment()
        payload = json.dumps(metrics, allow_nan=True) if metrics is not None else None
        self._write(
            "INSERT OR REPLACE INTO runs(paper, profile, seed, status, metrics, error, duration_s, code_hash,"
            " version, git_commit, python, torch, numpy, host, backend, created_at, modules, cpu_s)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (paper, profile, int(seed), status, payload, error, duration_s, code_hash, env.get("version"),
             env.get("git_commit"), env.get("python"), env.get("torch"), env.get("numpy"), env.get("host"),
             backend, _now(), json.dumps(list(modules)) if modules is not None else None,
             float(cpu_s) if cpu_s is not None else None))

    # -- leases: who is running which job ------------------------------------------------
    def claim(self, job: str, ttl_s: float) -> tuple[bool, str]:
        """Take the lease on ``job`` (a job key) for this process; (True, "") or (False, holder).

        A lease held by a process that has died on this host, or whose time-to-live has
        passed, is taken over.
        """
        import time as _time

        me, host, now = os.getpid(), socket.gethostname(), _time.time()
        self._write("BEGIN IMMEDIATE")
        try:
            r = self.conn.execute("SELECT pid, host, expires_at FROM leases WHERE job=?", (job,)).fetchone()
            if r is not None and not (r[0] == me and r[1] == host):
                alive = _pid_alive(r[0]) if r[1] == host else True
                if alive and r[2] > now:
                    self.conn.execute("COMMIT")
                    return False, f"pid {r[0]} on {r[1]}"
            self.conn.execute("INSERT OR REPLACE INTO leases(job, pid, host, started_at, expires_at) VALUES (?,?,?,?,?)",
                              (job, me, host, now, now + ttl_s))
            self.conn.execute("COMMIT")
            return True, ""
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def release(self, job: str) -> None:
        """Drop this process's lease on ``job``."""
        self._write("DELETE FROM leases WHERE job=? AND pid=? AND host=?", (job, os.getpid(), socket.gethostname()))

    def leases(self) -> list[tuple[str, int, str]]:
        return [(r[0], int(r[1]), r[2]) for r in self.conn.execute("SELECT job, pid, host FROM leases")]

    # -- reading -------------------------------------------------------------------------
    def _rows(self, where: str, args: Sequence[Any]) -> Iterator[Row]:
        """Rows oldest first; a row whose metrics or module list cannot be parsed is skipped and named."""
        mods = "modules" if self._has_modules else "NULL"
        cpu = "cpu_s" if self._has_cpu else "NULL"
        cur = self.conn.execute(
            "SELECT paper, profile, seed, status, metrics, error, duration_s, code_hash, created_at, version,"
            f" git_commit, host, backend, {mods}, id, {cpu} FROM runs WHERE {where} ORDER BY seed, created_at, id",
            tuple(args))
        for r in cur:
            try:
                metrics = json.loads(r[4]) if r[4] else None
                if metrics is not None and not isinstance(metrics, dict):
                    raise ValueError(f"metrics are a JSON {type(metrics).__name__}, not an object")
                modules = tuple(json.loads(r[13])) if r[13] else None
            except (ValueError, TypeError) as exc:
                name = f"{r[0]}/{r[1]}/seed {r[2]} (row id {r[14]}, stored {r[8]})"
                msg = f"malformed row {name} skipped: {exc}"
                if msg not in self.skipped_rows:
                    self.skipped_rows.append(msg)
                    warnings.warn(f"{self.path}: {msg}", stacklevel=2)
                continue
            yield Row(r[0], r[1], r[2], r[3], metrics, r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], modules,
                      r[15])

    def rows(self, paper: str | None = None, profile: str | None = None,
             code_hash: str | None = None) -> list[Row]:
        clauses, args = ["1=1"], []
        for col, val in (("paper", paper), ("profile", profile), ("code_hash", code_hash)):
            if val is not None:
                clauses.append(f"{col}=?")
                args.append(val)
        return list(self._rows(" AND ".join(clauses), args))

    def current(self, paper: Any, profile: Any) -> list[Row]:
        """The newest ``ok`` row per seed whose recorded code is unchanged (same fingerprint now)."""
        best: dict[int, Row] = {}
        for row in self.rows(paper.slug, profile.name):
            if row.status != "ok" or row.metrics is None or row.modules is None:
                continue
            if code_hash(paper, profile, row.modules) != row.code_hash:
                continue
            best[row.seed] = row  # rows come oldest first
        return [best[s] for s in sorted(best)]

    def done(self, paper: str, profile: str, code_hash: str) -> set[int]:
        """Seeds already stored successfully for this code version."""
        cur = self.conn.execute("SELECT seed FROM runs WHERE paper=? AND profile=? AND code_hash=? AND status='ok'",
                                (paper, profile, code_hash))
        return {r[0] for r in cur}

    def latest(self, paper: str, profile: str, code_hash: str | None = None) -> list[Row]:
        """Rows of one (paper, profile): for ``code_hash`` if given and present, else the newest code version."""
        if code_hash is not None:
            rows = self.rows(paper, profile, code_hash)
            if rows:
                return rows
        cur = self.conn.execute("SELECT code_hash FROM runs WHERE paper=? AND profile=? ORDER BY created_at DESC, id DESC"
                                " LIMIT 1", (paper, profile))
        r = cur.fetchone()
        return self.rows(paper, profile, r[0]) if r else []

    def ok_seed_counts(self) -> dict[str, dict[str, int]]:
        """paper -> profile -> distinct seeds with an ok row (any code version)."""
        out: dict[str, dict[str, int]] = {}
        for paper, profile, n in self.conn.execute(
                "SELECT paper, profile, COUNT(DISTINCT seed) FROM runs WHERE status='ok' GROUP BY paper, profile"):
            out.setdefault(paper, {})[profile] = int(n)
        return out

    def failed_without_ok(self, paper: Any, profile: Any) -> list[Row]:
        """The newest failed row of each seed that has no current ``ok`` row (for the report)."""
        ok = {r.seed for r in self.current(paper, profile)}
        newest: dict[int, Row] = {}
        for row in self.rows(paper.slug, profile.name):
            if row.seed in ok:
                continue
            if row.status == "ok":
                newest.pop(row.seed, None)  # an ok row of older code after an older failure: not a failure now
                continue
            newest[row.seed] = row
        return [newest[s] for s in sorted(newest)]

    def profiles_of(self, paper: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT profile FROM runs WHERE paper=?", (paper,))]

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    # -- moving rows between stores (a committed copy of the report's runs) ---------------
    def export_rows(self, rows: Sequence[Row], path: str | os.PathLike[str]) -> int:
        """Write the stored rows behind ``rows`` (every column) to a gzip JSON-lines file; returns how many.

        The file is byte-identical for the same rows (sorted; no timestamp in the gzip header)
        and replaced atomically. :meth:`import_rows` reads it back into any store.
        """
        keys = sorted({(r.paper, r.profile, int(r.seed), r.code_hash) for r in rows})
        lines = []
        for key in keys:
            cols = ", ".join(c if c != "cpu_s" or self._has_cpu else "NULL" for c in EXPORT_COLUMNS)
            cur = self.conn.execute(f"SELECT {cols} FROM runs WHERE paper=? AND profile=? "
                                    "AND seed=? AND code_hash=?", key)
            r = cur.fetchone()
            if r is not None:
                lines.append(json.dumps(dict(zip(EXPORT_COLUMNS, r)), sort_keys=True, allow_nan=True))
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as fh:
            fh.write(("\n".join(lines) + ("\n" if lines else "")).encode("utf-8"))
        os.replace(tmp, path)
        return len(lines)

    def import_rows(self, path: str | os.PathLike[str]) -> tuple[int, int]:
        """Add the rows of a file written by :meth:`export_rows`; returns ``(added, already_stored)``.

        A row whose job (paper, profile, seed, code version) is already stored is left as it is,
        so rows computed here always win over imported ones. Imported rows count like rows run
        here: they are current while the code they were computed with is unchanged, and shown as
        stale once it changes. A file that is not such an export raises :class:`StoreError`
        naming the line, and nothing is written.
        """
        path = Path(path)
        try:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                text = fh.read()
        except FileNotFoundError:
            raise StoreError(f"no exported runs at {path}") from None
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise StoreError(f"{path} is not a gzip file of exported runs: {exc}") from None
        records = []
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict) or not (set(EXPORT_COLUMNS) - OPTIONAL_EXPORT_COLUMNS
                                                     <= set(rec) <= set(EXPORT_COLUMNS)):
                    raise ValueError(f"expected the fields {', '.join(EXPORT_COLUMNS)}")
                for k in OPTIONAL_EXPORT_COLUMNS:
                    rec.setdefault(k, None)
                if rec["cpu_s"] is not None and not isinstance(rec["cpu_s"], (int, float)):
                    raise ValueError("cpu_s must be a number or null")
                if rec["status"] not in JOB_STATUSES:
                    raise ValueError(f"status {rec['status']!r} is not one of {JOB_STATUSES}")
                if not isinstance(rec["seed"], int) or not all(isinstance(rec[k], str) and rec[k] for k in
                                                               ("paper", "profile", "code_hash", "created_at")):
                    raise ValueError("paper, profile, code_hash and created_at must be text, seed an integer")
                for k in ("metrics", "modules"):
                    if rec[k] is not None:
                        json.loads(rec[k])
            except (ValueError, TypeError) as exc:
                raise StoreError(f"{path}, line {i}: not an exported run ({exc}); nothing was imported") from None
            records.append(rec)
        added = 0
        self._write("BEGIN IMMEDIATE")
        try:
            for rec in records:
                cur = self.conn.execute(
                    f"INSERT OR IGNORE INTO runs({', '.join(EXPORT_COLUMNS)}) "
                    f"VALUES ({', '.join('?' * len(EXPORT_COLUMNS))})", tuple(rec[k] for k in EXPORT_COLUMNS))
                added += cur.rowcount
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return added, len(records) - added
