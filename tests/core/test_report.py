from html.parser import HTMLParser

from icml26.core.report import README_END, README_START, build
from icml26.core.runner import execute
from icml26.core.store import Store


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.imgs = [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-claim" in a:
            self.rows.append((a["data-paper"], a["data-claim"]))
        if tag == "img" and a.get("src", "").startswith("data:image/png;base64,"):
            self.imgs += 1


def test_report_lists_every_claim(fake_papers, tmp_path):
    papers = [fake_papers["fake-ok"], fake_papers["fake-raise"], fake_papers["fake-slow"]]
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{README_START}\nold\n{README_END}\nrest\n")
    with Store(tmp_path / "r.sqlite") as st:
        execute(papers[:2], "quick", st, workers=2)
        page, md, results = build(papers, st, tmp_path / "report", readme=readme)
    parser = _Rows()
    parser.feed(page.read_text())
    expected = {(p.slug, c.id) for p in papers for c in p.claims}
    assert set(parser.rows) == expected
    assert parser.imgs == 2  # two papers ran; the third is "not run" and has no figure
    text = md.read_text()
    assert "fake-ok" in text and "not run" in text and "injected failure" in text
    assert (tmp_path / "report" / "figures" / "fake-ok.png").exists()
    new = readme.read_text()
    assert "\nold\n" not in new and "| fake-ok" in new.replace("[fake-ok]", "fake-ok") and new.endswith("rest\n")
    by_slug = {r.paper.slug: r for r in results}
    assert by_slug["fake-ok"].verdicts["positive"].status == "reproduced"
    assert by_slug["fake-slow"].profile is None


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_committed_results_are_not_replaced_by_less(fake_papers, tmp_path):
    import json

    import pytest
    from typer.testing import CliRunner

    from icml26.core.cli import app
    from icml26.core.report import CommittedResults

    papers = [fake_papers["fake-ok"]]
    out, readme = tmp_path / "report", tmp_path / "README.md"
    readme.write_text(f"{README_START}\nold\n{README_END}\n")
    with Store(tmp_path / "full.sqlite") as st:
        execute(papers, "full", st, workers=2)
        build(papers, st, out, readme=readme)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["papers"]["fake-ok"] == {"profile": "full", "seeds": 4, "stale": False}
    before, readme_before = _snapshot(out), readme.read_text()
    # quick results, fewer seeds of full, and an empty store: all refused, nothing written
    with Store(tmp_path / "quick.sqlite") as st:
        execute(papers, "quick", st, workers=2)
        with pytest.raises(CommittedResults, match="fake-ok .full · 4 seeds -> quick · 3 seeds"):
            build(papers, st, out, readme=readme)
    with Store(tmp_path / "fewer.sqlite") as st:
        execute(papers, "full", st, workers=2, seeds=2)
        with pytest.raises(CommittedResults, match="replace-committed"):
            build(papers, st, out, readme=readme)
    with Store(tmp_path / "empty.sqlite") as st:
        with pytest.raises(CommittedResults, match="empty"):
            build(papers, st, out, readme=readme)
    res = CliRunner().invoke(app, ["report", "--out", str(out), "--readme", str(readme),
                                   "--store", str(tmp_path / "empty.sqlite")])
    assert res.exit_code == 0 and "warning" in res.output and "empty" in res.output
    res = CliRunner().invoke(app, ["report", "--out", str(out), "--readme", str(readme),
                                   "--store", str(tmp_path / "quick.sqlite")])
    assert res.exit_code == 0 and "Nothing was written" in " ".join(res.output.split())
    assert _snapshot(out) == before and readme.read_text() == readme_before
    # more seeds, or the explicit flag, replace them
    with Store(tmp_path / "quick.sqlite") as st:
        build(papers, st, out, readme=readme, replace_committed=True)
    assert json.loads((out / "manifest.json").read_text())["papers"]["fake-ok"]["profile"] == "quick"


def test_report_shows_profile_bench_ratios_and_progress(fake_papers, tmp_path):
    import json

    from icml26.core.timing import write_bench

    papers = [fake_papers["fake-ok"], fake_papers["fake-raise"]]
    out = tmp_path / "report"
    write_bench("fake_ok", {"paper": "fake-ok", "scan": {"speedup_wall": 2.5, "speedup_cpu": 2.25,
                                                         "baseline": {"wall_min": 1.0}}}, folder=out / "bench")
    (out / "bench" / "broken.json").write_text("{not json")
    steps = []
    with Store(tmp_path / "r.sqlite") as st:
        execute(papers, "quick", st, workers=2)
        page, md, results = build(papers, st, out, progress=lambda i, n, what: steps.append((i, n, what)))
    text = md.read_text()
    assert "scan / speedup_wall = 2.5" in text and "scan / speedup_cpu = 2.25" in text and "wall_min" not in text
    assert "speedup_wall = 2.5" in page.read_text()
    assert "Numbers shown: profile 'quick', 3 seed(s)" in text
    assert "it differs from 'full' in sleep=null (full: 0.5)" in text
    assert (0, 2, "fake-ok") in steps and steps[-1][0] == 2
    assert json.loads((out / "manifest.json").read_text())["papers"]["fake-raise"]["seeds"] == 2


def test_report_of_a_profile_with_only_failed_rows(fake_papers, tmp_path):
    p = fake_papers["fake-raise"]
    with Store(tmp_path / "r.sqlite") as st:
        for seed in range(3):
            st.record(paper=p.slug, profile="quick", seed=seed, status="error", code_hash="not-run",
                      error=f"Traceback ...\nRuntimeError: injected failure on seed {seed}")
        _, md, results = build([p], st, tmp_path / "report")
    assert results[0].profile == "quick" and len(results[0].failed_rows) == 3
    assert md.read_text().count("injected failure") == 3


def test_a_report_without_manifest_is_protected_too(fake_papers, tmp_path):
    """A report committed before manifests existed: its REPORT.md overview says what it holds."""
    import pytest

    from icml26.core.report import CommittedResults, read_manifest

    out = tmp_path / "report"
    out.mkdir()
    (out / "REPORT.md").write_text("| [fake-ok](#fake-ok) — fake paper (ok) | decision | A | full · 4 | 1 | 0 | 0 | 0 |\n")
    assert read_manifest(out) == {"fake-ok": {"profile": "full", "seeds": 4}}
    with Store(tmp_path / "r.sqlite") as st:
        execute([fake_papers["fake-ok"]], "quick", st, workers=2)
        with pytest.raises(CommittedResults):
            build([fake_papers["fake-ok"]], st, out)


def test_committed_runs_rebuild_the_report_on_a_fresh_store(fake_papers, tmp_path):
    """report/runs.jsonl.gz carries the rows behind the report: `icml26 import` on an empty store
    gives back the same verdicts, current (not stale) while the code is unchanged; rows already
    stored are kept; the export is byte-stable; a foreign file is refused with nothing written."""
    import gzip

    import pytest
    from typer.testing import CliRunner

    from icml26.core.cli import app
    from icml26.core.report import RUNS_EXPORT
    from icml26.core.store import StoreError

    papers = [fake_papers["fake-ok"], fake_papers["fake-raise"]]
    out = tmp_path / "report"
    with Store(tmp_path / "a.sqlite") as st:
        execute(papers, "quick", st, workers=2)
        _, _, first = build(papers, st, out)
        exported = (out / RUNS_EXPORT).read_bytes()
        assert st.export_rows([row for r in first for row in r.rows], tmp_path / "again.gz") > 0
        assert (tmp_path / "again.gz").read_bytes() == exported  # byte-stable for the same rows
    res = CliRunner().invoke(app, ["import", str(out / RUNS_EXPORT), "--store", str(tmp_path / "b.sqlite")])
    assert res.exit_code == 0, res.output
    n = len(gzip.decompress(exported).decode().splitlines())
    assert f"imported {n} run(s)" in res.output
    with Store(tmp_path / "b.sqlite") as st:
        _, _, second = build(papers, st, tmp_path / "rebuilt")
        assert st.import_rows(out / RUNS_EXPORT) == (0, n)  # already stored: kept, not duplicated
        assert st.count() == n
    for a, b in zip(first, second):
        assert not b.stale and a.profile == b.profile and a.n_seeds == b.n_seeds
        assert {k: v.status for k, v in a.verdicts.items()} == {k: v.status for k, v in b.verdicts.items()}
    assert any(r.failed_rows for r in second)  # failed jobs travel too, so the report shows them
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(b'{"paper": "x"}\n'))
    with Store(tmp_path / "c.sqlite") as st:
        with pytest.raises(StoreError, match="line 1"):
            st.import_rows(bad)
        with pytest.raises(StoreError, match="not a gzip"):
            st.import_rows(tmp_path / "a.sqlite")
        with pytest.raises(StoreError, match="no exported runs"):
            st.import_rows(tmp_path / "missing.gz")
        assert st.count() == 0
    res = CliRunner().invoke(app, ["import", str(bad), "--store", str(tmp_path / "d.sqlite")])
    assert res.exit_code != 0 and "line 1" in res.output


def test_a_paper_without_runs_keeps_its_committed_section(fake_papers, tmp_path):
    """Re-running one paper on a store that lacks the others (a fresh clone) updates that paper and
    keeps every other paper's committed verdicts, numbers, failures and figure, marked as kept (also
    on a second regeneration, with the date of the report they came from); --replace-committed or a
    forced profile does not keep them."""
    import json
    import re

    import pytest

    from icml26.core.report import CommittedResults, kept_sections

    ok, raising = fake_papers["fake-ok"], fake_papers["fake-raise"]
    out, readme = tmp_path / "report", tmp_path / "README.md"
    readme.write_text(f"{README_START}\nold\n{README_END}\n")
    with Store(tmp_path / "all.sqlite") as st:
        execute([ok, raising], "quick", st, workers=2)
        _, md, first = build([ok, raising], st, out, readme=readme)
    committed = md.read_text()
    figure = (out / "figures" / "fake-raise.png").read_bytes()
    when = re.search(r"Generated (\S+ \S+ UTC)", committed).group(1)
    with Store(tmp_path / "one.sqlite") as st:
        execute([ok], "quick", st, workers=2)
        _, md, second = build([ok, raising], st, out, readme=readme)
        text = md.read_text()
        kept = {r.paper.slug: r for r in second if r.kept_from}
        assert set(kept) == {"fake-raise"} and kept["fake-raise"].kept_from == when
        before = {r.paper.slug: r for r in first}["fake-raise"]
        k = kept["fake-raise"]
        assert {c: v.status for c, v in k.verdicts.items()} == {c: v.status for c, v in before.verdicts.items()}
        assert [(v.measured, v.evidence, v.control) for v in k.verdicts.values()] == \
               [(v.measured, v.evidence, v.control) for v in before.verdicts.values()]
        assert (k.profile, k.n_seeds, len(k.failed_rows)) == (before.profile, before.n_seeds, len(before.failed_rows))
        assert before.cpu_note.startswith(", ") and " s CPU" in before.cpu_note  # the runner measured CPU time
        assert k.cpu_note == before.cpu_note  # kept with the section
        assert f"Kept from the committed report generated {when}" in text and text.count("Kept from") == 1
        assert "injected failure" in text and (out / "figures" / "fake-raise.png").read_bytes() == figure
        assert json.loads((out / "manifest.json").read_text())["papers"]["fake-raise"]["kept_from"] == when
        assert "fake-raise" in readme.read_text()
        # a second regeneration keeps the date of the report the section came from
        _, md, third = build([ok, raising], st, out)
        assert {r.paper.slug: r.kept_from for r in third}["fake-raise"] == when
        assert md.read_text().count("Kept from") == 1
        # nothing is kept when replacing committed results, or for a forced profile
        _, _, fresh = build([ok, raising], st, tmp_path / "elsewhere")
        assert not any(r.kept_from for r in fresh)
        assert kept_sections([ok, raising], tmp_path / "nowhere") == {}
        with pytest.raises(CommittedResults, match="fake-raise"):  # a forced profile keeps nothing: refused
            build([ok, raising], st, out, profile="quick")
        _, _, replaced = build([ok, raising], st, out, replace_committed=True)
        assert not any(r.kept_from for r in replaced)
