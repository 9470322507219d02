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
    assert "old" not in new and "| fake-ok" in new.replace("[fake-ok]", "fake-ok") and new.endswith("rest\n")
    by_slug = {r.paper.slug: r for r in results}
    assert by_slug["fake-ok"].verdicts["positive"].status == "reproduced"
    assert by_slug["fake-slow"].profile is None
