import sqlite3

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
