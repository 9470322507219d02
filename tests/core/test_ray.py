"""The Ray backend: same metrics as the local pool, and no result lost to faults (local Ray, 2 CPUs)."""

import os
import signal
import subprocess
import sys
import time

import pytest

ray = pytest.importorskip("ray")

from conftest import EXTRA  # noqa: E402

from icml26.core.registry import get_paper  # noqa: E402
from icml26.core.runner import execute, plan  # noqa: E402
from icml26.core.store import Store  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.xdist_group("ray")]


@pytest.fixture
def local_ray(fake_papers):
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"ICML26_EXTRA_PAPERS": EXTRA}})
    yield fake_papers
    ray.shutdown()


def test_ray_matches_local_pool(tmp_path, local_ray):
    papers = [get_paper("b3"), get_paper("sign-estimator")]
    with Store(tmp_path / "local.sqlite") as a, Store(tmp_path / "ray.sqlite") as b:
        assert execute(papers, "quick", a, seeds=2, workers=2).ok
        assert execute(papers, "quick", b, seeds=2, workers=2, backend="ray").ok
        key = lambda r: (r.paper, r.seed)  # noqa: E731
        ra, rb = sorted(a.rows(), key=key), sorted(b.rows(), key=key)
        assert [key(r) for r in ra] == [key(r) for r in rb] and len(ra) == 4
        assert [r.metrics for r in ra] == [r.metrics for r in rb]
        assert {r.backend for r in rb} == {"ray"}


def test_ray_faults_become_rows(tmp_path, local_ray):
    papers = [local_ray[s] for s in ("fake-ok", "fake-raise", "fake-exit", "fake-hang")]
    with Store(tmp_path / "r.sqlite") as st:
        summary = execute(papers, "quick", st, backend="ray", timeout_s=25)
        assert not summary.ok
        status = {(r.paper, r.seed): r.status for r in st.rows()}
        assert st.count() == 12
        assert status[("fake-raise", 1)] == "error"
        assert status[("fake-exit", 2)] == "crashed"
        assert status[("fake-hang", 1)] == "timeout"
        assert sum(s == "ok" for s in status.values()) == 9
        todo, _ = plan(papers, "quick", store=st)
        assert len(todo) == 3


def test_gpu_profile_is_skipped_without_gpu(tmp_path, local_ray):
    from dataclasses import replace

    p = local_ray["fake-ok"]
    gpu_paper = replace(p, profiles={**p.profiles, "quick": replace(p.profiles["quick"], gpu=True)})
    with Store(tmp_path / "r.sqlite") as st:
        summary = execute([gpu_paper], "quick", st, backend="ray")
        assert {o.status for o in summary.outcomes} == {"skipped"}
        assert all("GPU" in (r.error or "") for r in st.rows())


def test_unreachable_address_is_a_clean_error(tmp_path, fake_papers):
    from typer.testing import CliRunner

    from icml26.core.cli import app

    res = CliRunner().invoke(app, ["run", "fake-ok", "--backend", "ray", "--address", "127.0.0.1:9",
                                   "--store", str(tmp_path / "r.sqlite")])
    assert res.exit_code == 2 and "cannot reach" in res.output


def test_interrupt_on_ray_keeps_finished_jobs_once(tmp_path):
    store = tmp_path / "r.sqlite"
    env = {**os.environ, "ICML26_EXTRA_PAPERS": EXTRA}
    cmd = [sys.executable, "-m", "icml26.core.cli", "run", "fake-slow", "--backend", "ray", "--jobs", "2",
           "--store", str(store)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.5)
        try:
            if store.exists():
                with Store(store) as st:
                    if st.count() >= 1:
                        break
        except Exception:  # noqa: BLE001
            pass
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    with Store(store) as st:
        seeds = [r.seed for r in st.rows("fake-slow")]
    assert len(seeds) == len(set(seeds)) and 1 <= len(seeds) <= 6, out
    rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout[-2000:] + rerun.stderr[-2000:]
    with Store(store) as st:
        assert sorted(r.seed for r in st.rows("fake-slow")) == list(range(6))


def test_address_of_a_real_ray_head_is_accepted(tmp_path, local_ray):
    """The fast protocol probe of --address accepts a real Ray GCS (it speaks gRPC), and the run goes through."""
    from typer.testing import CliRunner

    from icml26.core.cli import app
    from icml26.core.ray_backend import check_address

    gcs = ray.get_runtime_context().gcs_address
    check_address(gcs)
    res = CliRunner().invoke(app, ["run", "fake-ok", "--seeds", "2", "--backend", "ray", "--address", gcs,
                                   "--store", str(tmp_path / "r.sqlite")])
    assert res.exit_code == 0, res.output
    with Store(tmp_path / "r.sqlite") as st:
        assert {r.backend for r in st.rows()} == {"ray"} and st.count() == 2
