import subprocess
import sys

from typer.testing import CliRunner

from icml26.core.cli import app

runner = CliRunner()


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
    assert listing.exit_code == 0 and "reproduced" in listing.output


def test_bad_arguments(fake_papers, tmp_path):
    store = str(tmp_path / "r.sqlite")
    assert runner.invoke(app, ["run", "fake-ok", "--seeds", "0", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["run", "fake-ok", "--jobs", "0", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["run", "fake-ok", "--backend", "mpi", "--store", store]).exit_code == 2
    assert runner.invoke(app, ["run", "--store", store]).exit_code == 2  # neither slugs nor --all
    assert runner.invoke(app, ["list", "--cluster", "nope"]).exit_code == 2
    assert runner.invoke(app, ["run", "fake-ok", "--profile", "huge", "--store", store]).exit_code == 2


def test_corrupt_store_is_a_clean_error(fake_papers, tmp_path):
    path = tmp_path / "r.sqlite"
    path.write_bytes(b"not sqlite at all" * 10)
    res = runner.invoke(app, ["run", "fake-ok", "--store", str(path)])
    assert res.exit_code == 2 and path.read_bytes() == b"not sqlite at all" * 10


def test_list_does_not_import_torch():
    code = ("import sys; from typer.testing import CliRunner; from icml26.core.cli import app; "
            "r = CliRunner().invoke(app, ['list', '--store', '/nonexistent/x.sqlite']); "
            "assert r.exit_code == 0, r.output; assert 'torch' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
