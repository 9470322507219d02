import os
import signal
import subprocess
import sys
import time

import pytest

from icml26.core.runner import execute, plan
from icml26.core.store import Store

from conftest import EXTRA


def test_failures_become_rows_and_others_go_on(tmp_path, fake_papers):
    papers = [fake_papers[s] for s in ("fake-ok", "fake-raise", "fake-exit", "fake-hang")]
    with Store(tmp_path / "r.sqlite") as st:
        summary = execute(papers, "quick", st, workers=2, timeout_s=3)
        assert not summary.ok
        status = {(r.paper, r.seed): r.status for r in st.rows()}
        assert len(status) == 12 and st.count() == 12
        assert status[("fake-raise", 1)] == "error"
        assert status[("fake-exit", 2)] == "crashed"
        assert status[("fake-hang", 1)] == "timeout"
        assert sum(s == "ok" for s in status.values()) == 9
        err = {r.seed: r.error for r in st.rows("fake-raise")}
        assert "injected failure" in err[1]
        # re-run: only the three failed jobs are attempted again
        todo, skipped = plan(papers, "quick", store=st)
        assert sorted((j.paper, j.seed) for j in todo) == [("fake-exit", 2), ("fake-hang", 1), ("fake-raise", 1)]
        assert len(skipped) == 9
        # force recomputes everything, still one row per job
        execute([fake_papers["fake-ok"]], "quick", st, workers=2, force=True)
        assert st.count() == 12


def test_seeds_and_validation(tmp_path, fake_papers):
    with Store(tmp_path / "r.sqlite") as st:
        with pytest.raises(ValueError, match="seeds"):
            plan([fake_papers["fake-ok"]], "quick", seeds=0, store=st)
        summary = execute([fake_papers["fake-ok"]], "quick", st, seeds=5, workers=2)
        assert summary.ok and len(summary.outcomes) == 5
        with pytest.raises(ValueError, match="backend"):
            execute([fake_papers["fake-ok"]], "quick", st, seeds=6, backend="mpi")


def test_same_seed_same_metrics_across_runs(tmp_path, fake_papers):
    with Store(tmp_path / "a.sqlite") as a, Store(tmp_path / "b.sqlite") as b:
        execute([fake_papers["fake-ok"]], "quick", a, workers=1)
        execute([fake_papers["fake-ok"]], "quick", b, workers=2)
        assert [r.metrics for r in a.rows()] == [r.metrics for r in b.rows()]


def test_interrupt_keeps_finished_jobs_once(tmp_path):
    """SIGINT to a running `icml26 run`: finished jobs stay stored once; a re-run does only the rest."""
    store = tmp_path / "r.sqlite"
    env = {**os.environ, "ICML26_EXTRA_PAPERS": EXTRA}
    cmd = [sys.executable, "-m", "icml26.core.cli", "run", "fake-slow", "--jobs", "2", "--store", str(store)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait until at least one job is stored
        time.sleep(0.3)
        if store.exists():
            try:
                with Store(store) as st:
                    if st.count() >= 1:
                        break
            except Exception:  # noqa: BLE001 - the file may be mid-creation
                pass
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode != 0, out
    with Store(store) as st:
        rows = st.rows("fake-slow")
        seeds = [r.seed for r in rows]
        assert len(seeds) == len(set(seeds)) and 1 <= len(seeds) < 6, out
        assert all(r.status == "ok" for r in rows)
        first = set(seeds)
    rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"{len(first)} job(s) already stored" in rerun.stderr
    with Store(store) as st:
        assert sorted(r.seed for r in st.rows("fake-slow")) == list(range(6))
