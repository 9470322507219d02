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
    env = {**os.environ, "ICML26_EXTRA_PAPERS": EXTRA, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "icml26.core.cli", "run", "fake-slow", "--jobs", "2", "--store", str(store)]
    # restore SIGINT's default in the child: pytest-xdist workers ignore SIGINT, and an ignored signal is inherited
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # interrupt as soon as the run reports its first finished job (polling the store raced with the
    # writer on a loaded machine: the run could finish before a poll saw a row)
    head = []
    for line in proc.stdout:  # type: ignore[union-attr]
        head.append(line)
        if "fake-slow" in line and " ok " in line:
            break
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    out = "".join(head) + out
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


def test_metrics_do_not_depend_on_jobs(tmp_path, fake_papers):
    """Threads per job come from Profile.cpus, not from --jobs: same metrics (thread count included)."""
    with Store(tmp_path / "a.sqlite") as a, Store(tmp_path / "b.sqlite") as b:
        execute([fake_papers["fake-ok"]], "quick", a, workers=1)
        execute([fake_papers["fake-ok"]], "quick", b, workers=2)
        ma, mb = [r.metrics for r in a.rows()], [r.metrics for r in b.rows()]
        assert ma == mb and {m["threads"] for m in ma} == {float(fake_papers["fake-ok"].profile("quick").cpus)}


def _worker_lines(out):
    return [line.split() for line in out.splitlines() if line.strip().startswith("fake-slow ")]


def test_two_concurrent_runs_share_the_work(tmp_path):
    """Two `icml26 run` processes on one store: each job runs once, and both finish with every seed stored."""
    store = tmp_path / "r.sqlite"
    env = {**os.environ, "ICML26_EXTRA_PAPERS": EXTRA}
    cmd = [sys.executable, "-m", "icml26.core.cli", "run", "fake-slow", "--jobs", "2", "--store", str(store)]
    with Store(store):
        pass  # create it first, so both processes open the same file
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    ran = [int(words[3]) for out in outs for words in _worker_lines(out)]
    assert sorted(ran) == list(range(6)), outs  # each seed computed by exactly one of the two
    assert all("6 stored seeds" in out for out in outs), outs
    with Store(store) as st:
        assert sorted(r.seed for r in st.rows("fake-slow")) == list(range(6)) and st.leases() == []


def test_lease_of_a_dead_run_expires(tmp_path, fake_papers):
    from icml26.core.jobs import job_key

    with Store(tmp_path / "r.sqlite") as st:
        todo, _ = plan([fake_papers["fake-ok"]], "quick", store=st)
        for job in todo:  # leases left behind by a run that was killed
            st.conn.execute("INSERT INTO leases(job, pid, host, started_at, expires_at) VALUES (?,?,?,?,?)",
                            (job_key(job), 999999999, __import__("socket").gethostname(), 0, 1e12))
        summary = execute([fake_papers["fake-ok"]], "quick", st, workers=2)
        assert summary.ok and len(summary.outcomes) == 3 and st.leases() == []


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_exit_when_the_driver_is_killed(tmp_path):
    """kill -9 of `icml26 run`: its workers stop within seconds (no orphan keeps computing)."""
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    env = {**os.environ, "ICML26_EXTRA_PAPERS": EXTRA, "ICML26_FAKE_PID_DIR": str(pid_dir)}
    cmd = [sys.executable, "-m", "icml26.core.cli", "run", "fake-hang", "--seeds", "2", "--jobs", "2",
           "--timeout", "120", "--set", "fail_seed=0", "--store", str(tmp_path / "r.sqlite")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and not (pid_dir / "0.pid").exists():
        time.sleep(0.2)
    assert (pid_dir / "0.pid").exists(), "the hanging worker never started"
    time.sleep(0.3)
    worker = int((pid_dir / "0.pid").read_text())
    assert _alive(worker)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.time() + 10
    while time.time() < deadline and _alive(worker):
        time.sleep(0.2)
    assert not _alive(worker), "the worker outlived its driver"


def test_library_noise_goes_to_the_log(tmp_path, capfd):
    import warnings

    from icml26.core.jobs import quiet

    log = tmp_path / "library.log"
    with quiet(log):
        os.write(1, b"C-level banner\n")
        os.write(2, b"NEURON: no DISPLAY\n")
        print("Using backend: pytorch")
        warnings.warn("scipy says something", RuntimeWarning)
    print("after")
    out, err = capfd.readouterr()
    assert "banner" not in out + err and "DISPLAY" not in out + err and "backend" not in out + err
    assert "scipy says" not in out + err and "after" in out
    text = log.read_text()
    assert all(s in text for s in ("C-level banner", "no DISPLAY", "Using backend", "scipy says something"))


def test_timeout_nan_and_inf_are_refused(tmp_path, fake_papers):
    with Store(tmp_path / "r.sqlite") as st:
        for bad in (float("nan"), float("inf"), 0.0, -1.0):
            with pytest.raises(ValueError, match="timeout"):
                plan([fake_papers["fake-ok"]], "quick", store=st, timeout_s=bad)


def test_each_job_reports_its_own_cpu(tmp_path, fake_papers):
    # the workers descend from the fork server, so a shell's `time` on the driver misses their CPU;
    # each outcome carries the CPU its worker process spent on the job
    with Store(tmp_path / "r.sqlite") as st:
        summary = execute([fake_papers["fake-ok"]], "quick", st, workers=2)
    assert summary.ok and summary.outcomes
    for out in summary.outcomes:
        assert out.cpu_s is not None and 0.0 <= out.cpu_s <= out.duration_s * 2 + 1.0


def test_forkserver_preloads_the_optimiser_import_without_touching_random_streams():
    """The server imports torch._dynamo (what a job's first optimiser imports) so that no job pays for it; that is
    safe only because the import draws from no random stream and starts no thread, checked here in a fresh process."""
    pytest.importorskip("torch")
    from icml26.core import runner

    assert runner._preload()[-2:] == ["torch", "torch._dynamo"]
    code = ("import importlib, random, threading, numpy as np, torch\n"
            "def draw(imp):\n"
            "    torch.manual_seed(0); np.random.seed(0); random.seed(0)\n"
            "    if imp:\n"
            "        importlib.import_module('torch._dynamo')\n"
            "    return torch.rand(3).tolist(), np.random.rand(2).tolist(), random.random()\n"
            "a = draw(True); b = draw(False); assert a == b, (a, b)\n"
            "assert threading.active_count() == 1\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_jobs_run_longest_first_by_their_last_cost(tmp_path, fake_papers):
    """A re-run starts the seeds that cost most last time first (longest processing time first), so a slow seed
    does not start last and run alone; unknown seeds get the paper's mean, a paper with no history goes first."""
    from icml26.core.runner import longest_first

    ok, other = fake_papers["fake-ok"], fake_papers["fake-raise"]
    with Store(tmp_path / "r.sqlite") as st:
        todo, _ = plan([ok, other], "quick", seeds=4, store=st, force=True)
        assert [(j.paper, j.seed) for j in todo] == [(p.slug, s) for p in (ok, other) for s in range(4)]  # no history
        for seed, cpu, wall in ((0, 10.0, 11.0), (1, 30.0, 31.0), (2, None, 50.0), (2, 5.0, 6.0)):  # newest row wins
            st.record(paper=ok.slug, profile="quick", seed=seed, status="ok", code_hash=f"h{seed}{cpu}",
                      metrics={"x": 1.0}, duration_s=wall, cpu_s=cpu)
        st.record(paper=ok.slug, profile="quick", seed=3, status="error", code_hash="h", error="boom", duration_s=99.0)
        todo, _ = plan([ok, other], "quick", seeds=4, store=st, force=True)
        # other: no history (inf); ok: seed 1 (30), seed 3 (unknown: mean of 10, 30, 5 = 15), seed 0 (10), seed 2 (5)
        assert [(j.paper, j.seed) for j in todo] == ([(other.slug, s) for s in range(4)]
                                                     + [(ok.slug, s) for s in (1, 3, 0, 2)])
    assert longest_first(todo, None) == todo and longest_first([], None) == []
    with pytest.raises(TypeError, match="jobs"):
        longest_first([("fake-ok", 0)], None)
    with pytest.raises(TypeError, match="store"):
        longest_first(todo, "runs.sqlite")
    with pytest.raises(TypeError, match="shipped"):
        longest_first(todo, None, shipped=3)


def test_a_fresh_store_orders_jobs_by_the_shipped_rows(tmp_path, fake_papers):
    """With no history in the store, the rows shipped with the report give the costs; the store's own history wins."""
    import gzip
    import json

    from icml26.core.runner import longest_first

    ok = fake_papers["fake-ok"]
    ship = tmp_path / "runs.jsonl.gz"
    recs = [{"paper": ok.slug, "profile": "quick", "seed": s, "status": st, "duration_s": d, "cpu_s": c}
            for s, st, d, c in ((0, "ok", 5.0, 4.0), (1, "ok", 9.0, None), (2, "ok", 1.0, 1.0), (2, "error", 90.0, 90.0))]
    with gzip.open(ship, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(json.dumps(r) for r in recs) + "\n")
    with Store(tmp_path / "r.sqlite") as st:
        todo, _ = plan([ok], "quick", seeds=3, store=st, force=True)
        assert [j.seed for j in longest_first(todo, st, ship)] == [1, 0, 2]          # 9 (wall), 4, 1
        assert [j.seed for j in longest_first(todo, st, tmp_path / "none.gz")] == [0, 1, 2]  # no file: order kept
        (tmp_path / "bad.gz").write_bytes(b"not gzip")
        assert [j.seed for j in longest_first(todo, st, tmp_path / "bad.gz")] == [0, 1, 2]
        for seed, cpu in ((2, 50.0), (0, 20.0)):
            st.record(paper=ok.slug, profile="quick", seed=seed, status="ok", code_hash="h", metrics={"x": 1.0},
                      duration_s=cpu, cpu_s=cpu)
        # the store's history wins over the shipped rows: seed 2 (50), seed 1 at the store's mean (35), seed 0 (20)
        assert [j.seed for j in longest_first(todo, st, ship)] == [2, 1, 0]
