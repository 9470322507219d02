import json
import socket
import subprocess
import sys
import threading
import time

import pytest
from typer.testing import CliRunner

from icml26.core import cli
from icml26.core.cli import app
from icml26.core.store import Store

runner = CliRunner()


def _lines(text):
    return [line for line in text.strip().splitlines() if line.strip()]


def test_unknown_slug_suggests(fake_papers, tmp_path):
    res = runner.invoke(app, ["run", "fake-okk", "--store", str(tmp_path / "r.sqlite")])
    assert res.exit_code == 2
    assert "fake-ok" in res.output


def test_show_unknown_and_known(fake_papers):
    assert runner.invoke(app, ["show", "nonexistent-paper"]).exit_code == 2
    res = runner.invoke(app, ["show", "fake-ok"])
    assert res.exit_code == 0 and "positive" in res.output


def test_run_exit_codes_and_list(fake_papers, tmp_path):
    store = str(tmp_path / "r.sqlite")
    ok = runner.invoke(app, ["run", "fake-ok", "--store", store, "--jobs", "2"])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(app, ["run", "fake-raise", "--store", store, "--jobs", "2"])
    assert bad.exit_code == 1
    listing = runner.invoke(app, ["list", "--store", store])
    assert listing.exit_code == 0, listing.output
    rows = {line.split()[1]: line for line in listing.stdout.splitlines() if "fake-" in line}
    assert "quick: 3" in rows["fake-ok"] and "quick: 2" in rows["fake-raise"]  # stored ok seeds, not verdicts
    assert "not run" in rows["fake-exit"]
    shown = runner.invoke(app, ["show", "fake-ok", "--store", store])
    assert shown.exit_code == 0 and "reproduced" in shown.output and "3 stored seeds" in shown.output


def test_bad_arguments(fake_papers, tmp_path):
    store = str(tmp_path / "r.sqlite")
    assert runner.invoke(app, ["run", "fake-ok", "--seeds", "0", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["run", "fake-ok", "--jobs", "0", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["run", "fake-ok", "--backend", "mpi", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["run", "--store", store]).exit_code == 2  # neither slugs nor --all
    assert runner.invoke(app, ["list", "--cluster", "nope"]).exit_code == 2
    assert runner.invoke(app, ["run", "fake-ok", "--profile", "huge", "--store", store]).exit_code == 2


@pytest.mark.parametrize("args", [
    ["run", "--all", "--cluster", "bogus"],
    ["report", "--profile", "bogus"],
    ["run", "fake-ok", "--timeout", "nan"],
    ["run", "fake-ok", "--timeout", "inf"],
    ["run", "fake-ok", "--timeout", "-1"],
    ["run", "fake-ok", "--cluster", "decision"],
    ["run", "fake-ok", "--address", "127.0.0.1:6379"],
    ["reproduce", "--address", "127.0.0.1:6379"],
    ["reproduce", "--timeout", "nan"],
    ["run", "fake-ok", "--set", "nokey"],
    ["run", "fake-ok", "--set", "mode=3"],
    ["new", "decision", "Bad Slug"],
    ["new", "bogus", "good-slug"],
])
def test_bad_input_is_one_line_and_exit_2(fake_papers, tmp_path, args):
    res = runner.invoke(app, args + ([] if args[0] == "new" else ["--store", str(tmp_path / "r.sqlite")]))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    assert len(_lines(res.output)) == 1 and res.output.startswith("error:"), res.output
    assert not (tmp_path / "r.sqlite").exists()  # nothing ran


def test_read_only_output_dir_is_one_line(fake_papers, tmp_path):
    store = tmp_path / "r.sqlite"
    assert runner.invoke(app, ["run", "fake-ok", "--store", str(store)]).exit_code == 0
    blocker = tmp_path / "file"
    blocker.write_text("x")  # a file where the report folder's parent should be: unwritable for root too
    res = runner.invoke(app, ["report", "--out", str(blocker / "report"), "--store", str(store)])
    assert res.exit_code == 2 and len(_lines(res.output)) == 1 and "cannot write the report" in res.output


def test_same_slug_twice_runs_once(fake_papers, tmp_path):
    res = runner.invoke(app, ["run", "fake-ok", "fake-ok", "--seeds", "2", "--store", str(tmp_path / "r.sqlite")])
    assert res.exit_code == 0, res.output
    assert "given more than once" in res.output
    assert res.output.count("seed 0 ") == 1 and res.output.count("seed 1 ") == 1
    assert "2 jobs run" in res.output


def test_short_timeout_message(fake_papers, tmp_path):
    store = tmp_path / "r.sqlite"
    res = runner.invoke(app, ["run", "fake-hang", "--seeds", "2", "--timeout", "0.5", "--store", str(store)])
    assert res.exit_code == 1
    assert "timed out after 0.5 s" in res.output and "after 0 s" not in res.output


def test_rich_markup_in_text_and_paths_is_escaped(fake_papers, tmp_path):
    res = runner.invoke(app, ["show", "fake-ok"])
    assert res.exit_code == 0
    assert "[a|s,s']" in res.output and "[t, p_k(t)]" in res.output and "[bold]" in res.output
    odd = tmp_path / "x[/b]y[red]"
    odd.mkdir(parents=True)
    res = runner.invoke(app, ["run", "fake-ok", "--seeds", "1", "--store", str(odd / "r[/b].sqlite")])
    assert res.exit_code == 0, res.output
    bad = odd / "junk[b].sqlite"
    bad.write_bytes(b"junk" * 100)
    res = runner.invoke(app, ["list", "--store", str(bad)])
    assert res.exit_code == 2 and "y[red]/junk[b].sqlite" in res.output and "Traceback" not in res.output


def test_verdicts_say_how_many_stored_seeds_they_use(fake_papers, tmp_path):
    """After a run of 3 seeds, `run --seeds 2` runs nothing new and says the verdicts use all 3 stored seeds."""
    store = str(tmp_path / "r.sqlite")
    assert runner.invoke(app, ["run", "fake-ok", "--seeds", "3", "--store", store]).exit_code == 0
    res = runner.invoke(app, ["run", "fake-ok", "--seeds", "2", "--store", store])
    assert res.exit_code == 0 and "3 stored seeds" in res.output, res.output


def test_malformed_row_is_skipped_and_named(fake_papers, tmp_path):
    store = tmp_path / "r.sqlite"
    assert runner.invoke(app, ["run", "fake-ok", "--store", str(store)]).exit_code == 0
    with Store(store) as st:
        st.conn.execute("UPDATE runs SET metrics='{not json' WHERE seed=1")
    for args in (["report", "--out", str(tmp_path / "rep")], ["show", "fake-ok"], ["run", "fake-ok"]):
        res = runner.invoke(app, args + ["--store", str(store)])
        assert res.exit_code == 0, res.output
        assert "JSONDecodeError" not in res.output and "Traceback" not in res.output
        assert "malformed row fake-ok/quick/seed 1" in " ".join(res.output.split()), res.output


def test_missing_extra_names_the_pip_install(fake_papers, monkeypatch):
    from icml26.core.jobs import execute_job, missing_extra

    assert "icml26[alignment]" in missing_extra("choix")
    assert "icml26[science]" in missing_extra("sklearn", "science")
    assert missing_extra("not_a_known_module") == ""
    monkeypatch.setitem(sys.modules, "choix", None)  # as if choix were not installed
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'icml26\[alignment\]'"):
        execute_job("fake-needs", "quick", 0, 1)


def _serve(reply):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)

    def loop():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            if reply:
                conn.sendall(reply)
            time.sleep(30 if reply is None else 0.5)
            conn.close()

    threading.Thread(target=loop, daemon=True).start()
    return srv


@pytest.mark.parametrize("reply", [b"HTTP/1.1 400 Bad Request\r\n\r\n", b"", None])
def test_address_of_an_open_non_ray_port_fails_fast(fake_papers, tmp_path, reply):
    from icml26.core.ray_backend import check_address

    srv = _serve(reply)
    addr = f"127.0.0.1:{srv.getsockname()[1]}"
    t0 = time.monotonic()
    with pytest.raises(ConnectionError, match="Ray"):
        check_address(addr, timeout_s=2.0)
    res = runner.invoke(app, ["run", "fake-ok", "--backend", "ray", "--address", addr,
                              "--store", str(tmp_path / "r.sqlite")])
    assert res.exit_code == 2 and "Ray" in res.output and len(_lines(res.output)) == 1, res.output
    assert time.monotonic() - t0 < 15
    srv.close()


def test_reproduce_passes_backend_and_address(monkeypatch, tmp_path):
    seen = {}

    def fake_run(papers, profile, seeds, jobs, force, store, backend, address, timeout, overrides=None):
        seen.update(backend=backend, address=address, timeout=timeout, profile=profile)
        return True

    monkeypatch.setattr(cli, "_run", fake_run)
    monkeypatch.setattr(cli, "_write_report", lambda *a, **k: seen.update(report=a))
    res = runner.invoke(app, ["reproduce", "--profile", "quick", "--backend", "ray", "--address", "10.0.0.1:6379",
                              "--timeout", "30", "--store", str(tmp_path / "r.sqlite")])
    assert res.exit_code == 0, res.output
    assert seen["backend"] == "ray" and seen["address"] == "10.0.0.1:6379" and seen["timeout"] == 30.0
    assert "report" in seen


def test_report_from_missing_store_warns_and_writes_nothing(tmp_path):
    out = tmp_path / "report"
    res = runner.invoke(app, ["report", "--out", str(out), "--readme", str(tmp_path / "README.md"),
                              "--store", str(tmp_path / "none.sqlite")])
    assert res.exit_code == 0 and "warning" in res.output and "nothing has been run" in res.output
    assert not out.exists() and not (tmp_path / "none.sqlite").exists()


def test_bench_default_skips_suite_scaling_and_shows_progress(tmp_path, monkeypatch):
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    (folder / "alpha.py").write_text("import pathlib; pathlib.Path('ran_alpha').write_text('x')\n")
    (folder / "suite_scaling.py").write_text("raise SystemExit('must not run by default')\n")
    monkeypatch.chdir(tmp_path / "..")
    res = runner.invoke(app, ["bench", "--folder", str(folder)])
    assert res.exit_code == 0, res.output
    assert "[1/1]" in res.output and "not running suite_scaling" in res.output
    assert (tmp_path / "ran_alpha").exists()  # run from the folder's parent (the repository root)


def test_bench_folder_found_outside_the_repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = cli._bench_folder(None)
    assert folder.is_dir() and (folder / "suite_scaling.py").exists()


def test_list_does_not_import_torch():
    code = ("import sys; from typer.testing import CliRunner; from icml26.core.cli import app; "
            "r = CliRunner().invoke(app, ['list', '--store', '/nonexistent/x.sqlite']); "
            "assert r.exit_code == 0, r.output; assert 'torch' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_corrupt_store_is_a_clean_error(fake_papers, tmp_path):
    path = tmp_path / "r.sqlite"
    path.write_bytes(b"not sqlite at all" * 10)
    res = runner.invoke(app, ["run", "fake-ok", "--store", str(path)])
    assert res.exit_code == 2 and path.read_bytes() == b"not sqlite at all" * 10
