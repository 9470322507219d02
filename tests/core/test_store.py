import os
import sqlite3
from pathlib import Path

import pytest

from icml26.core.store import Store, StoreError


def test_record_replace_and_done(tmp_path):
    with Store(tmp_path / "r.sqlite") as st:
        st.record(paper="p", profile="quick", seed=0, status="error", code_hash="h1", error="boom")
        assert st.done("p", "quick", "h1") == set()
        st.record(paper="p", profile="quick", seed=0, status="ok", code_hash="h1", metrics={"a": 1.0})
        st.record(paper="p", profile="quick", seed=1, status="ok", code_hash="h1", metrics={"a": float("nan")})
        assert st.done("p", "quick", "h1") == {0, 1}
        assert st.count() == 2  # the error row was replaced, not duplicated
        rows = st.latest("p", "quick", "h1")
        assert [r.seed for r in rows] == [0, 1] and rows[0].metrics == {"a": 1.0}
        assert rows[0].version and rows[0].host
        # a new code version gets rows of its own; latest() prefers the asked-for version
        st.record(paper="p", profile="quick", seed=0, status="ok", code_hash="h2", metrics={"a": 2.0})
        assert st.done("p", "quick", "h2") == {0}
        assert st.latest("p", "quick", "h2")[0].metrics == {"a": 2.0}
        assert st.latest("p", "quick", "nope")[0].code_hash == "h2"


def test_wal_mode(tmp_path):
    with Store(tmp_path / "r.sqlite") as st:
        assert st.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_bad_status_rejected(tmp_path):
    with Store(tmp_path / "r.sqlite") as st, pytest.raises(ValueError, match="status"):
        st.record(paper="p", profile="quick", seed=0, status="weird", code_hash="h")


def test_corrupt_file_is_refused_and_untouched(tmp_path):
    path = tmp_path / "r.sqlite"
    junk = b"this is not a database" * 100
    path.write_bytes(junk)
    with pytest.raises(StoreError, match="not an SQLite file"):
        Store(path)
    assert path.read_bytes() == junk


def test_truncated_sqlite_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path) as st:
        for s in range(50):
            st.record(paper="p", profile="quick", seed=s, status="ok", code_hash="h", metrics={"x": [0.0] * 200})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3] + b"\x00garbage" * 500)
    before = path.read_bytes()
    with pytest.raises(StoreError):
        Store(path)
    assert path.read_bytes() == before


def test_foreign_sqlite_is_refused_and_untouched(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users(id INTEGER)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="did not write"):
        Store(path)
    assert path.read_bytes() == before


def test_missing_store_without_create(tmp_path):
    with pytest.raises(StoreError):
        Store(tmp_path / "none.sqlite", create=False)


def test_code_hash_tracks_profile_and_paper():
    from dataclasses import replace

    from icml26.core.registry import get_paper
    from icml26.core.store import code_hash

    p = get_paper("b3")
    q = p.profile("quick")
    assert code_hash(p, q) == code_hash(p, q)
    assert code_hash(p, q) != code_hash(p, replace(q, params={**q.params, "reps": 1}))
    assert code_hash(p, q) != code_hash(get_paper("sign-estimator"), q)


@pytest.mark.parametrize("name", ["a%20b.sqlite", "q?x=1.sqlite", "h#frag.sqlite", "with space.sqlite",
                                  "naïve-日本.sqlite", "all %3F?#é .sqlite"])
def test_any_valid_path_works(tmp_path, name):
    """The SQLite URI is escaped: the store opens the file it was given and no other."""
    folder = tmp_path / "d %25 ?#"
    folder.mkdir()
    path = folder / name
    with Store(path) as st:
        st.record(paper="p", profile="quick", seed=0, status="ok", code_hash="h", metrics={"a": 1.0})
    with Store(path) as st:  # reopening runs the integrity check on the same file
        assert st.count() == 1 and st.rows()[0].metrics == {"a": 1.0}
    with Store(path, readonly=True) as st:
        assert st.count() == 1
    assert sorted(p.name for p in folder.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d %25 ?#"]


def test_readonly_open_never_writes(tmp_path):
    path = tmp_path / "r.sqlite"
    with Store(path) as st:
        st.record(paper="p", profile="quick", seed=0, status="ok", code_hash="h", metrics={"a": 1.0})
    before = path.read_bytes()
    with Store(path, readonly=True) as st:
        assert st.count() == 1
        with pytest.raises(StoreError, match="read-only"):
            st.record(paper="p", profile="quick", seed=1, status="ok", code_hash="h", metrics={"a": 1.0})
    assert path.read_bytes() == before
    with pytest.raises(StoreError, match="no results store"):
        Store(tmp_path / "absent.sqlite", readonly=True)
    assert not (tmp_path / "absent.sqlite").exists()


_AS_NOBODY = r"""
import os, sys
# import what the commands need first: the interpreter's own files are not readable by 'nobody'
import base64, html, io, json, tempfile, urllib.parse, ctypes, shutil, rich.progress, rich.table
from typer.testing import CliRunner
from icml26.core.cli import app
from icml26.core import report, runner, jobs, fingerprint, checks, stats
from icml26.core.store import Store, StoreError
from icml26.core.registry import all_papers
all_papers()
for warm in (["list", "--store", "/nonexistent/x.sqlite"], ["report", "--store", "/nonexistent/x.sqlite"],
             ["run", "b3", "--seeds", "0"]):
    CliRunner().invoke(app, warm)
os.setgid(65534); os.setuid(65534)
path = sys.argv[1]
r = CliRunner()
res = r.invoke(app, ["list", "--store", path])
assert res.exit_code == 0 and "corrupt" not in res.output and "p" in res.output, res.output
res = r.invoke(app, ["report", "--out", sys.argv[2], "--store", path])
assert res.exit_code == 0, res.output
try:
    Store(path)
except StoreError as exc:
    assert "read-only" in str(exc), exc
else:
    raise AssertionError("a read-only store opened for writing")
res = r.invoke(app, ["run", "b3", "--store", path])
assert res.exit_code == 2 and "read-only" in res.output and len(res.output.strip().splitlines()) == 1, res.output
print("OK")
"""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="drops to uid 'nobody' (needs root)")
@pytest.mark.parametrize("what", ["dir", "file"])
def test_read_only_store_reads_and_refuses_writes(what):
    """A healthy store in a read-only directory (or a read-only file): list and report work; run says read-only."""
    import shutil
    import subprocess
    import sys
    import tempfile

    top = Path(tempfile.mkdtemp(prefix="icml26-ro-"))
    try:
        os.chmod(top, 0o755)
        folder = top / "store"
        folder.mkdir()
        path = folder / "r.sqlite"
        with Store(path) as st:
            st.record(paper="p", profile="quick", seed=0, status="ok", code_hash="h", metrics={"a": 1.0})
        out = top / "out"
        out.mkdir()
        os.chmod(out, 0o777)
        if what == "dir":
            os.chmod(path, 0o644)
            os.chmod(folder, 0o555)
        else:
            os.chmod(folder, 0o777)
            os.chmod(path, 0o444)
        res = subprocess.run([sys.executable, "-c", _AS_NOBODY, str(path), str(out / "rep")], capture_output=True,
                             text=True, timeout=120, cwd=str(top))
        assert res.returncode == 0 and "OK" in res.stdout, res.stdout + res.stderr
    finally:
        os.chmod(top / "store", 0o755)
        shutil.rmtree(top, ignore_errors=True)


def test_leases_share_jobs_and_expire(tmp_path):
    with Store(tmp_path / "r.sqlite") as st:
        assert st.claim("job-a", ttl_s=60) == (True, "")
        assert st.claim("job-a", ttl_s=60) == (True, "")  # our own lease
        # a lease held by a live process elsewhere on this host (pid 1 is always alive)
        st.conn.execute("UPDATE leases SET pid=1 WHERE job='job-a'")
        ok, holder = st.claim("job-a", ttl_s=60)
        assert not ok and "pid 1" in holder
        # a dead holder: its lease expires at once
        st.conn.execute("UPDATE leases SET pid=999999999 WHERE job='job-a'")
        assert st.claim("job-a", ttl_s=60)[0]
        # an expired time-to-live: taken over even if the holder looks alive
        st.conn.execute("UPDATE leases SET pid=1, expires_at=0 WHERE job='job-a'")
        assert st.claim("job-a", ttl_s=60)[0]
        st.release("job-a")
        assert st.leases() == []


def test_cpu_seconds_are_stored_exported_and_imported(tmp_path):
    with Store(tmp_path / "a.sqlite") as st:
        st.record(paper="p", profile="full", seed=0, status="ok", code_hash="h", metrics={"a": 1.0},
                  duration_s=3.0, cpu_s=2.5)
        st.record(paper="p", profile="full", seed=1, status="ok", code_hash="h", metrics={"a": 1.0}, duration_s=3.0)
        rows = st.rows("p")
        assert [r.cpu_s for r in rows] == [2.5, None]
        assert st.export_rows(rows, tmp_path / "x.jsonl.gz") == 2
        for bad in (-1.0, "2", float("nan"), float("inf"), True):
            with pytest.raises(ValueError, match="cpu_s"):
                st.record(paper="p", profile="full", seed=2, status="ok", code_hash="h", cpu_s=bad)
    with Store(tmp_path / "b.sqlite") as st:
        assert st.import_rows(tmp_path / "x.jsonl.gz") == (2, 0)
        assert [r.cpu_s for r in st.rows("p")] == [2.5, None]


def test_export_without_cpu_seconds_still_imports(tmp_path):
    """Exports written before ``cpu_s`` existed lack the field: their rows import with cpu_s None."""
    import gzip
    import json

    from icml26.core.store import EXPORT_COLUMNS

    rec = {k: None for k in EXPORT_COLUMNS if k != "cpu_s"}
    rec.update(paper="p", profile="full", seed=0, status="ok", metrics='{"a": 1.0}', code_hash="h",
               created_at="2026-01-01T00:00:00+00:00", duration_s=1.0)
    path = tmp_path / "old.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")
    with Store(tmp_path / "s.sqlite") as st:
        assert st.import_rows(path) == (1, 0)
        assert st.rows()[0].cpu_s is None and st.rows()[0].duration_s == 1.0
    rec["cpu_s"] = "fast"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")
    with Store(tmp_path / "t.sqlite") as st, pytest.raises(StoreError, match="cpu_s"):
        st.import_rows(path)


def test_schema_2_store_gains_the_cpu_column(tmp_path):
    """A store written before ``cpu_s`` existed is read as it is (read-only) and migrated when opened to write."""
    path = tmp_path / "old.sqlite"
    with Store(path) as st:
        st.record(paper="p", profile="quick", seed=0, status="ok", code_hash="h", metrics={"a": 1.0})
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE runs DROP COLUMN cpu_s")
    conn.execute("UPDATE meta SET value='2' WHERE key='schema'")
    conn.commit()
    conn.close()
    with Store(path, readonly=True) as st:
        assert st.rows()[0].cpu_s is None and st.rows()[0].metrics == {"a": 1.0}
        st.export_rows(st.rows(), tmp_path / "x.jsonl.gz")  # selects NULL for the missing column
    with Store(path) as st:
        st.record(paper="p", profile="quick", seed=1, status="ok", code_hash="h", metrics={"a": 1.0}, cpu_s=1.5)
        assert [r.cpu_s for r in st.rows()] == [None, 1.5]
        assert st.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == "3"
