"""The reproduction report: ``report/index.html`` (self-contained) and its Markdown twin ``REPORT.md``.

Verdicts are recomputed here from the stored metrics, so the report always says what the
stored runs support. Per paper the report uses the largest profile that has successful
runs (``full`` before ``quick``, :data:`PROFILE_PREFERENCE`) and says which one it used.

One view model (:func:`collect` -> a list of :class:`PaperResult`) is rendered by the
Markdown and the HTML renderer. Each paper's benchmark ratios come from
``report/bench/*.json`` (written by :func:`icml26.core.timing.write_bench`).

Committed results are protected: ``report/manifest.json`` records, per paper, the profile
and number of seeds its committed section was built from. :func:`build` refuses to
replace them with a smaller profile or fewer seeds (or with nothing, from an empty store)
unless ``replace_committed=True``, and then writes nothing at all. A paper of which the store
holds no run at all keeps its committed section (:func:`kept_sections`), marked as kept, so
re-running one paper on a fresh clone updates that paper and leaves the others as committed.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from icml26.core.paper import Claim, Paper, Verdict
from icml26.core.store import Row, Store

PROFILE_PREFERENCE = ("full", "quick")  # the one place that says "full before quick"
MANIFEST = "manifest.json"
KEPT_NOTE = ("Kept from the committed report generated {when}: this results store holds no run of this paper, "
             "so its verdicts, numbers and figure are shown as committed (re-run it, or `icml26 import` the "
             "committed runs, to recompute them).")
RUNS_EXPORT = "runs.jsonl.gz"  # the stored rows behind the report, for `icml26 import` on another machine


def preferred_profiles(paper: Paper, profile: str | None = None) -> list[str]:
    """The profiles to look at for ``paper``, best first (or just ``profile`` when one is forced)."""
    if profile:
        return [profile] if profile in paper.profiles else []
    return [p for p in PROFILE_PREFERENCE if p in paper.profiles] + \
        [p for p in paper.profiles if p not in PROFILE_PREFERENCE]


class CommittedResults(RuntimeError):
    """The report folder holds committed results that these results would replace with less."""

    def __init__(self, message: str, papers: Sequence[str] = ()):
        super().__init__(message)
        self.papers = list(papers)
COLOURS = {"reproduced": "#1a7f37", "partly": "#b08800", "not-reproduced": "#cf222e",
           "not-checkable": "#6e7781", "not run": "#6e7781", "error": "#cf222e"}
BADGE = {"reproduced": "✅ reproduced", "partly": "🟡 partly", "not-reproduced": "❌ not-reproduced",
         "not-checkable": "⚪ not-checkable", "not run": "⚪ not run",
         "verified": "✔️ verified", "partly verified": "🟡 partly verified", "not verified": "❌ not verified"}
COLOURS.update({"verified": "#1a7f37", "partly verified": "#b08800", "not verified": "#cf222e"})
_NON_HEADLINE = {"reproduced": "verified", "partly": "partly verified", "not-reproduced": "not verified"}


def display_status(claim: Claim, status: str) -> str:
    """What the report calls a status: identity and prior-work claims are verified, not reproduced."""
    if claim.kind == "headline":
        return status
    return _NON_HEADLINE.get(status, status)
README_START = "<!-- verdicts:start -->"
README_END = "<!-- verdicts:end -->"


@dataclass
class PaperResult:
    paper: Paper
    profile: str | None
    rows: list[Row] = field(default_factory=list)
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    figure_png: bytes | None = None
    figure_error: str | None = None
    stale: bool = False
    bench: list[tuple[str, float]] = field(default_factory=list)  # (label, ratio) from report/bench/*.json
    bench_files: list[str] = field(default_factory=list)
    kept_from: str | None = None  # set when the section is the committed one (this store has no run of it)

    @property
    def n_seeds(self) -> int:
        return len({r.seed for r in self.ok_rows})

    @property
    def profile_note(self) -> str:
        """Which profile's numbers are shown, and how it differs from the other profiles (plain text)."""
        if self.profile is None:
            return ""
        prof = self.paper.profiles[self.profile]
        failed = len(self.failed_rows)
        note = (f"Numbers shown: profile {self.profile!r}, {self.n_seeds} seed(s)"
                + (f" ({failed} failed)" if failed else ""))
        diffs = []
        for name, other in self.paper.profiles.items():
            if name == self.profile:
                continue
            keys = sorted(k for k in set(prof.params) | set(other.params) if prof.get(k) != other.get(k))
            if keys:
                diffs.append(f"it differs from {name!r} in " + "; ".join(
                    f"{k}={_short(prof.get(k))} ({name}: {_short(other.get(k))})" for k in keys[:6])
                    + (" …" if len(keys) > 6 else ""))
        if diffs:
            note += ". Where the setting above gives sizes, " + ". ".join(diffs)
        return note + "."

    @property
    def ok_rows(self) -> list[Row]:
        return [r for r in self.rows if r.status == "ok" and r.metrics is not None]

    @property
    def failed_rows(self) -> list[Row]:
        return [r for r in self.rows if r.status != "ok"]

    @property
    def runtime_s(self) -> float:
        return float(sum(r.duration_s or 0.0 for r in self.rows))

    @property
    def cpu_note(self) -> str:
        """``", X s CPU"`` summed over the rows (``" in k of n jobs"`` when only some measured it), or ``""``."""
        measured = [r.cpu_s for r in self.rows if r.cpu_s is not None]
        if not measured:
            return ""
        part = "" if len(measured) == len(self.rows) else f" in {len(measured)} of {len(self.rows)} jobs"
        return f", {sum(measured):.1f} s CPU{part}"


def _short(v: Any) -> str:
    text = json.dumps(v) if not isinstance(v, str) else v
    return text if len(text) <= 40 else text[:37] + "…"


def _stale_ok(store: Store, paper: Paper, name: str) -> list[Row]:
    """The ok rows of the newest code version that has ok rows (one per seed, newest)."""
    rows = [r for r in store.rows(paper.slug, name) if r.status == "ok" and r.metrics is not None]
    if not rows:
        return []
    newest = max(rows, key=lambda r: r.created_at).code_hash
    best: dict[int, Row] = {}
    for r in rows:
        if r.code_hash == newest:
            best[r.seed] = r
    return [best[k] for k in sorted(best)]


Progress = Callable[[int, int, str], None]


def collect(papers: Sequence[Paper], store: Store, *, profile: str | None = None,
            figures: bool = True, bench_dir: str | Path | None = None,
            progress: Progress | None = None) -> list[PaperResult]:
    """The report's view model: per paper its rows, verdicts computed now, figure and bench ratios.

    Per paper the first profile of :data:`PROFILE_PREFERENCE` (or ``profile``) with ``ok``
    rows from the current code is used, with the newest failed row of each seed that has
    none; failing that, the newest ``ok`` rows of an older code version, marked stale;
    failing that, a profile that has only failed rows (so failures are shown).
    """
    from icml26.core.jobs import quiet

    bench = read_bench(bench_dir) if bench_dir is not None else {}
    results = []
    for i, paper in enumerate(papers):
        if progress:
            progress(i, len(papers), paper.slug)
        chosen, rows, stale = None, [], False
        names = preferred_profiles(paper, profile)
        for name in names:
            prof = paper.profile(name)
            cur = store.current(paper, prof)
            if cur:
                chosen, rows = name, cur + store.failed_without_ok(paper, prof)
                break
        if chosen is None:
            for name in names:
                old = _stale_ok(store, paper, name)
                if old:
                    chosen, rows, stale = name, old, True
                    break
        if chosen is None:
            for name in names:
                failed = store.failed_without_ok(paper, paper.profile(name))
                if failed:
                    chosen, rows = name, failed
                    break
        res = PaperResult(paper, chosen, rows, stale=stale)
        ms = [r.metrics for r in res.ok_rows]
        with quiet():  # checks may import the experiment (and its libraries' banners)
            res.verdicts = paper.evaluate(ms)
        res.bench, res.bench_files = bench.get(paper.slug, ([], []))
        results.append(res)
    if progress:
        progress(len(papers), len(papers), "")
    if figures:
        render_figures(results, progress=progress)
    return results


def render_figures(results: Sequence[PaperResult], progress: Progress | None = None) -> None:
    """Render each paper's figure from its ok rows (a figure that fails is reported, not fatal)."""
    from icml26.core.jobs import quiet

    for i, res in enumerate(results):
        ms = [r.metrics for r in res.ok_rows]
        if not ms or res.figure_png is not None or res.kept_from:
            continue
        if progress:
            progress(i, len(results), f"{res.paper.slug} (figure)")
        try:
            with quiet():
                res.figure_png = _render(res.paper, ms)
        except Exception:  # noqa: BLE001 - a broken figure must not sink the report
            res.figure_error = traceback.format_exc(limit=3)
    if progress:
        progress(len(results), len(results), "")


_RATIO_KEY = re.compile(r"speed.?up|ratio|faster", re.I)


def _ratios(obj: Any, path: str = "") -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _ratios(v, f"{path} / {k}" if path else str(k))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool) and _RATIO_KEY.search(path.rsplit(" / ", 1)[-1]):
        if math.isfinite(obj):
            out.append((path, float(obj)))
    return out


def read_bench(folder: str | Path) -> dict[str, tuple[list[tuple[str, float]], list[str]]]:
    """``slug -> (ratios, files)`` from ``<folder>/*.json``; a file names its paper by a ``"paper"``
    key or by its name (``token_mixers.json`` or ``token-mixers-scan.json`` for ``token-mixers``)."""
    from icml26.core.registry import all_papers

    folder = Path(folder)
    if not folder.is_dir():
        return {}
    slugs = sorted((p.slug for p in all_papers()), key=len, reverse=True)
    out: dict[str, tuple[list[tuple[str, float]], list[str]]] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        name = str(data.get("paper")) if isinstance(data, dict) and data.get("paper") else path.stem
        name = name.replace("_", "-")
        slug = next((s for s in slugs if name == s or name.startswith(s + "-")), None)
        if slug is None:
            continue
        ratios, files = out.setdefault(slug, ([], []))
        ratios += [(f"{path.stem}: {label}" if path.stem.replace("_", "-") != slug else label, v)
                   for label, v in _ratios(data)][:12]
        files.append(path.name)
    return out


def _render(paper: Paper, metrics: list[dict[str, Any]]) -> bytes | None:
    import matplotlib

    matplotlib.use("Agg")
    fn = paper.figure_fn()
    if fn is None:
        return None
    fig = fn(metrics)
    if fig is None:
        return None
    if isinstance(fig, (list, tuple)):
        fig = fig[0]
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # noqa: BLE001 - Figure objects not managed by pyplot
        pass
    return buf.getvalue()


def _status_of(res: PaperResult, claim_id: str) -> str:
    if res.profile is None or not res.ok_rows:
        return "not run"
    return res.verdicts[claim_id].status


def _shown(res: PaperResult, claim: Claim) -> str:
    return display_status(claim, _status_of(res, claim.id))


def _paper_counts(res: PaperResult, headline: bool = True) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in res.paper.claims:
        if (c.kind == "headline") != headline:
            continue
        st = _shown(res, c)
        out[st] = out.get(st, 0) + 1
    return out


def _counts(results: Sequence[PaperResult], headline: bool = True) -> dict[str, int]:
    counts: dict[str, int] = {}
    for res in results:
        for k, v in _paper_counts(res, headline).items():
            counts[k] = counts.get(k, 0) + v
    return counts


def overview_rows(results: Sequence[PaperResult]) -> list[tuple[str, str, str, str, str, dict[str, int], dict[str, int]]]:
    """(slug, title, cluster, feasibility, profile/seeds, headline counts, other-claim counts) per paper."""
    return [(r.paper.slug, r.paper.title, r.paper.cluster, r.paper.feasibility,
             (f"{r.profile} · {r.n_seeds}" + (f" ({len(r.failed_rows)} failed)" if r.failed_rows else ""))
             if r.profile else "—", _paper_counts(r, True),
             _paper_counts(r, False)) for r in results]


def markdown_overview(results: Sequence[PaperResult]) -> str:
    lines = ["Headline claims only are counted; identity and prior-work checks are listed under *verified*.", "",
             "| paper | cluster | feas. | profile · seeds | reproduced | partly | not reproduced | not checkable "
             "| verified (identity, prior work) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for slug, title, cluster, feas, prof, cnt, other in overview_rows(results):
        nc = sum(v for k, v in cnt.items() if k not in ("reproduced", "partly", "not-reproduced"))
        ver = f"{other.get('verified', 0)}/{sum(other.values())}" if other else "—"
        lines.append(f"| [{slug}](#{slug}) — {_md(title)} | {cluster} | {feas} | {prof} | {cnt.get('reproduced', 0)} | "
                     f"{cnt.get('partly', 0)} | {cnt.get('not-reproduced', 0)} | {nc} | {ver} |")
    return "\n".join(lines)


def markdown_table(results: Sequence[PaperResult]) -> str:
    """The verdict table (one row per claim), also used for the README."""
    lines = ["| paper | claim | kind | paper's value | ours | control | verdict | profile · seeds |",
             "|---|---|---|---|---|---|---|---|"]
    for res in results:
        for c in res.paper.claims:
            st = _status_of(res, c.id)
            v = res.verdicts.get(c.id)
            ours = v.measured if (v and st != "not run") else "—"
            ctrl = (f"{c.control}: {v.control}" if v and v.control and st != "not run" else c.control) or "—"
            seeds = f"{res.profile} · {len(res.ok_rows)}" if res.profile else "—"
            lines.append(f"| [{res.paper.slug}](#{res.paper.slug}) | {_md(c.statement)} | {c.kind} | "
                         f"{_md(c.paper_value)} | {_md(ours)} | {_md(ctrl)} | {BADGE.get(_shown(res, c), st)} | {seeds} |")
    counts = _counts(results)
    total = sum(counts.values())
    tally = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
    other = _counts(results, headline=False)
    lines.append("")
    lines.append(f"{len(results)} papers, {total} headline claims ({tally}); "
                 f"{sum(other.values())} identity/prior-work checks "
                 f"({', '.join(f'{k}: {v}' for k, v in sorted(other.items()))}).")
    return "\n".join(lines)


def _md(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).replace("|", "\\|")


def write_markdown(results: Sequence[PaperResult], out_dir: Path) -> Path:
    fig_dir = out_dir / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    parts = ["# icml26 reproduction report", "", f"Generated {now}. Each verdict is computed from the "
             "metrics stored for that run; the paper's value is shown for comparison only.", "",
             "## Papers", "", markdown_overview(results), "", "## Claims", "", markdown_table(results), ""]
    for res in results:
        p = res.paper
        parts += [f"## {p.slug}", "", f"**{p.title}** — {p.source} · cluster `{p.cluster}` · "
                  f"feasibility {p.feasibility}", ""]
        if p.summary:
            parts += [p.summary, ""]
        parts += [f"*Small-scale setting.* {p.substitution}", ""]
        if res.profile_note:
            parts += [f"*{res.profile_note}*", ""]
        if res.bench:
            parts += ["Benchmark ratios (" + ", ".join(f"`{f}`" for f in res.bench_files) + "): " +
                      "; ".join(f"{_md(k)} = {v:.3g}" for k, v in res.bench), ""]
        if res.profile is None:
            parts += ["Not run yet.", ""]
            continue
        stale = " (rows from an older code version)" if res.stale else ""
        parts += [f"Profile `{res.profile}`{stale}: {len(res.ok_rows)} seeds ok, {len(res.failed_rows)} failed, "
                  f"{res.runtime_s:.1f} s of compute{res.cpu_note}.", ""]
        if res.kept_from:
            parts += [f"*{KEPT_NOTE.format(when=res.kept_from)}*", ""]
        for c in p.claims:
            v = res.verdicts[c.id]
            parts += [f"- **{c.id}** ({c.kind}) — {BADGE.get(_shown(res, c))}. {_md(c.statement)}",
                      f"  - paper: {_md(c.paper_value)}", f"  - ours: {_md(v.measured)}"]
            if c.control:
                parts.append(f"  - control ({_md(c.control)}): {_md(v.control or 'not reported')}")
            elif c.no_control:
                parts.append(f"  - no control: {_md(c.no_control)}")
            parts.append(f"  - evidence: {_md(v.evidence)}")
        for r in res.failed_rows:
            first = (r.error or "").strip().splitlines()[-1:] or [""]
            parts.append(f"- seed {r.seed}: **{r.status}** — {_md(first[0])[:300]}")
        if res.figure_png:
            name = f"{p.slug}.png"
            (fig_dir / name).write_bytes(res.figure_png)
            parts += ["", f"![{p.slug}](figures/{name})"]
        parts.append("")
    path = out_dir / "REPORT.md"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;
color:#1f2328;line-height:1.45}
table{border-collapse:collapse;width:100%;font-size:0.9em}th,td{border:1px solid #d0d7de;padding:4px 6px;
vertical-align:top;text-align:left}th{background:#f6f8fa}
.v{color:#fff;border-radius:4px;padding:1px 6px;white-space:nowrap;font-weight:600}
section{border-top:2px solid #d0d7de;margin-top:2em}img{max-width:100%}
.sub{background:#f6f8fa;padding:.5em 1em;border-left:4px solid #8c959f}
pre{white-space:pre-wrap;font-size:.8em;background:#fff8f8;padding:.5em}
.muted{color:#6e7781}
"""


def _badge_html(status: str) -> str:
    return f'<span class="v" style="background:{COLOURS.get(status, "#6e7781")}">{html.escape(status)}</span>'


def write_html(results: Sequence[PaperResult], out_dir: Path) -> Path:
    e = html.escape
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    counts = _counts(results)
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           "<title>icml26 reproduction report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>icml26 reproduction report</h1>",
           f"<p class='muted'>Generated {now}. Verdicts are computed from the metrics stored for each run "
           "(several seeds, stated test); the paper's value is shown beside ours for comparison and never "
           "decides a verdict.</p>",
           "<p>Headline claims: " + " ".join(f"{_badge_html(k)} {v}" for k, v in sorted(counts.items())) + "</p>",
           "<p class='muted'>Only headline claims (the paper's own results) are counted. Identity checks (true "
           "by construction or by our derivation) and prior-work checks are shown as verified or not.</p>",
           "<h2>Papers</h2><table id='papers'><thead><tr><th>paper</th><th>cluster</th><th>feas.</th>"
           "<th>profile · seeds</th><th>headline verdicts</th><th>identity / prior work</th></tr></thead><tbody>"]
    for slug, title, cluster, feas, prof, cnt, other in overview_rows(results):
        badges = " ".join(f"{_badge_html(k)}&nbsp;{v}" for k, v in sorted(cnt.items()))
        obadges = " ".join(f"{_badge_html(k)}&nbsp;{v}" for k, v in sorted(other.items())) or "—"
        out.append(f"<tr><td><a href='#{e(slug)}'>{e(slug)}</a> — {e(title)}</td><td>{e(cluster)}</td>"
                   f"<td>{e(feas)}</td><td>{e(prof)}</td><td>{badges}</td><td>{obadges}</td></tr>")
    out += ["</tbody></table>",
           "<h2>Claims</h2><table id='summary'><thead><tr><th>paper</th><th>claim</th><th>kind</th>"
           "<th>paper's value</th><th>ours (CI)</th><th>control</th><th>verdict</th><th>seeds</th>"
           "<th>runtime</th></tr></thead><tbody>"]
    for res in results:
        for c in res.paper.claims:
            st = _status_of(res, c.id)
            v = res.verdicts[c.id]
            ours = v.measured if st != "not run" else "—"
            if v.ci and st != "not run":
                ours += f" (CI {v.ci[0]:.3g} – {v.ci[1]:.3g})"
            seeds = f"{len(res.ok_rows)} ({res.profile})" if res.profile else "—"
            runtime = f"{res.runtime_s:.1f} s" if res.profile else "—"
            ctrl = (f"{c.control}: {v.control}" if v.control and st != "not run" else c.control) or "—"
            out.append(f"<tr data-paper='{e(res.paper.slug)}' data-claim='{e(c.id)}' data-kind='{e(c.kind)}'>"
                       f"<td><a href='#{e(res.paper.slug)}'>{e(res.paper.slug)}</a></td>"
                       f"<td><b>{e(c.id)}</b>: {e(c.statement)}</td><td>{e(c.kind)}</td><td>{e(c.paper_value)}</td>"
                       f"<td>{e(ours)}</td><td>{e(ctrl)}</td>"
                       f"<td>{_badge_html(_shown(res, c))}</td><td>{e(seeds)}</td><td>{e(runtime)}</td></tr>")
    out.append("</tbody></table>")
    for res in results:
        p = res.paper
        out.append(f"<section id='{e(p.slug)}'><h2>{e(p.slug)}: {e(p.title)}</h2>")
        out.append(f"<p class='muted'>{e(p.source)} · cluster <code>{e(p.cluster)}</code> · feasibility "
                   f"{e(p.feasibility)}</p>")
        if p.summary:
            out.append(f"<p>{e(p.summary)}</p>")
        out.append(f"<div class='sub'><b>Small-scale setting.</b> {e(p.substitution)}</div>")
        if res.profile_note:
            out.append(f"<p class='muted'><i>{e(res.profile_note)}</i></p>")
        if res.bench:
            out.append("<p><b>Benchmark ratios</b> <span class='muted'>(" + e(", ".join(res.bench_files)) +
                       ")</span>: " + "; ".join(f"{e(k)} = {v:.3g}" for k, v in res.bench) + "</p>")
        if res.profile is None:
            out.append("<p>Not run yet.</p></section>")
            continue
        stale = " (rows from an older code version)" if res.stale else ""
        out.append(f"<p>Profile <code>{e(res.profile)}</code>{e(stale)}: {len(res.ok_rows)} seeds ok, "
                   f"{len(res.failed_rows)} failed, {res.runtime_s:.1f} s of compute{e(res.cpu_note)}.</p>")
        if res.kept_from:
            out.append(f"<p class='muted'><i>{e(KEPT_NOTE.format(when=res.kept_from))}</i></p>")
        out.append("<ul>")
        for c in p.claims:
            v = res.verdicts[c.id]
            ctl = (f"<i>control</i> ({e(c.control)}): {e(v.control or 'not reported')}<br>" if c.control else
                   (f"<i>no control</i>: {e(c.no_control)}<br>" if c.no_control else ""))
            out.append(f"<li>{_badge_html(_shown(res, c))} <b>{e(c.id)}</b> <span class='muted'>({e(c.kind)})</span>: "
                       f"{e(c.statement)}<br><i>paper</i>: {e(c.paper_value)}<br><i>ours</i>: {e(v.measured)}<br>"
                       f"{ctl}<i>evidence</i>: {e(v.evidence)}</li>")
        out.append("</ul>")
        for r in res.failed_rows:
            out.append(f"<p>seed {r.seed}: <b>{e(r.status)}</b></p><pre>{e((r.error or '')[-1500:])}</pre>")
        if res.figure_png:
            b64 = base64.b64encode(res.figure_png).decode()
            out.append(f"<img alt='figure for {e(p.slug)}' src='data:image/png;base64,{b64}'>")
        elif res.figure_error:
            out.append(f"<pre>figure failed:\n{e(res.figure_error)}</pre>")
        out.append("</section>")
    out.append("</body></html>")
    path = out_dir / "index.html"
    path.write_text("\n".join(out), encoding="utf-8")
    return path


def update_readme(readme: Path, results: Sequence[PaperResult]) -> bool:
    """Replace the verdict table between the README's markers; False if the markers are absent."""
    if not readme.exists():
        return False
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return False
    table = (markdown_overview(results) + "\n\n" + markdown_table(results)).replace("](#", "](report/REPORT.md#")
    new = re.sub(re.escape(README_START) + r".*?" + re.escape(README_END),
                 lambda _: f"{README_START}\n{table}\n{README_END}", text, flags=re.S)
    readme.write_text(new, encoding="utf-8")
    return True


_OVERVIEW_ROW = re.compile(r"^\| \[([a-z0-9-]+)\]\(#\1\)[^|]*\|[^|]*\|[^|]*\| (\w+) · (\d+)[^|]*\|", re.M)


def read_manifest(out_dir: str | Path) -> dict[str, dict[str, Any]]:
    """``slug -> {"profile", "seeds"}`` of the committed report in ``out_dir`` (empty if none).

    A report written before manifests existed is read from its ``REPORT.md`` overview table.
    """
    path = Path(out_dir) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        papers = data.get("papers", {}) if isinstance(data, dict) else {}
        return {k: v for k, v in papers.items() if isinstance(v, dict)}
    except (OSError, ValueError):
        pass
    try:
        text = (Path(out_dir) / "REPORT.md").read_text(encoding="utf-8")
    except OSError:
        return {}
    return {m.group(1): {"profile": m.group(2), "seeds": int(m.group(3))} for m in _OVERVIEW_ROW.finditer(text)}


def manifest_of(results: Sequence[PaperResult]) -> dict[str, Any]:
    return {"note": "what each paper's committed section was built from; icml26 report will not replace it "
                    "with a smaller profile or fewer seeds without --replace-committed",
            "papers": {r.paper.slug: {"profile": r.profile, "seeds": r.n_seeds, "stale": r.stale,
                                      **({"kept_from": r.kept_from} if r.kept_from else {})}
                       for r in results if r.profile is not None and r.ok_rows}}


def _rank(profile: str | None) -> int:
    if profile is None:
        return len(PROFILE_PREFERENCE) + 1
    return PROFILE_PREFERENCE.index(profile) if profile in PROFILE_PREFERENCE else len(PROFILE_PREFERENCE)


def downgrades(results: Sequence[PaperResult], committed: dict[str, dict[str, Any]]) -> list[str]:
    """Papers whose committed section these results would replace with less (text per paper)."""
    out = []
    for r in results:
        old = committed.get(r.paper.slug)
        if not old or not old.get("profile"):
            continue
        new_p, new_n = (r.profile, r.n_seeds) if r.ok_rows else (None, 0)
        old_p, old_n = old.get("profile"), int(old.get("seeds") or 0)
        if _rank(new_p) > _rank(old_p) or (new_p == old_p and new_n < old_n):
            now = f"{new_p} · {new_n} seeds" if new_p else "nothing"
            out.append(f"{r.paper.slug} ({old_p} · {old_n} seeds -> {now})")
    return out


_SECTION = re.compile(r"^## ([a-z0-9-]+)\n(.*?)(?=^## |\Z)", re.M | re.S)
_PROFILE_LINE = re.compile(r"^Profile `([^`]+)`( \(rows from an older code version\))?: (\d+) seeds ok, (\d+) failed, "
                           r"([0-9.]+) s of compute(?:, ([0-9.]+) s CPU(?: in (\d+) of \d+ jobs)?)?\.$", re.M)
_CLAIM_LINE = re.compile(r"^- \*\*([^*]+)\*\* \(([a-z-]+)\) — ([^.]+?)\. ", re.M)
_FAILED_LINE = re.compile(r"^- seed (\d+): \*\*([a-z]+)\*\* — (.*)$", re.M)
_GENERATED = re.compile(r"^Generated ([0-9-]+ [0-9:]+ UTC)\.", re.M)
_KEPT_AGAIN = re.compile(r"^\*Kept from the committed report generated ([0-9-]+ [0-9:]+ UTC):", re.M)
_UNSHOWN = {v: k for k, v in _NON_HEADLINE.items()}


def _unmd(text: str) -> str:
    return text.replace("\\|", "|")


def kept_sections(papers: Sequence[Paper], out_dir: str | Path) -> dict[str, PaperResult]:
    """Per paper, its section of the committed ``REPORT.md`` in ``out_dir`` read back as a result.

    Used for papers of which the store holds no run at all (a fresh clone re-running one paper):
    their committed verdicts, numbers, failures and figure are kept as they were, and the
    report says so (``kept_from``). Claims the committed section lacks are not-checkable here.
    """
    out = Path(out_dir)
    try:
        text = (out / "REPORT.md").read_text(encoding="utf-8")
    except OSError:
        return {}
    m = _GENERATED.search(text)
    when = m.group(1) if m else "an earlier date"
    sections = {g.group(1): g.group(2) for g in _SECTION.finditer(text)}
    kept = {}
    for paper in papers:
        body = sections.get(paper.slug)
        prof = _PROFILE_LINE.search(body) if body else None
        if prof is None or prof.group(1) not in paper.profiles:
            continue
        n_ok, n_failed, runtime = int(prof.group(3)), int(prof.group(4)), float(prof.group(5))
        again = _KEPT_AGAIN.search(body)  # kept once already: keep the date of the report it came from
        lines = body[prof.end():].splitlines()
        claims = {c.id: c for c in paper.claims}
        table = {}  # statement -> control cell of the claims table (the section omits a control the claim lacks)
        for row in re.finditer(rf"^\| \[{re.escape(paper.slug)}\]\(#{re.escape(paper.slug)}\) \| (.*)$", text, re.M):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.group(1))]
            if len(cells) >= 5:
                table[cells[0]] = cells[4]
        verdicts: dict[str, Verdict] = {}
        for i, line in enumerate(lines):
            cm = _CLAIM_LINE.match(line)
            if not cm or cm.group(1) not in claims:
                continue
            claim = claims[cm.group(1)]
            status = next((k for k, v in BADGE.items() if v == cm.group(3)), None)
            status = _UNSHOWN.get(status, status)
            fields = {"ours": "", "evidence": "", "control": ""}
            prefixes = {"  - ours: ": "ours", "  - evidence: ": "evidence",
                        f"  - control ({_md(claim.control)}): ": "control"}
            for sub in lines[i + 1:]:
                if not sub.startswith("  - "):
                    break
                for pre, key in prefixes.items():
                    if sub.startswith(pre):
                        fields[key] = _unmd(sub[len(pre):])
            cell = table.get(_md(claim.statement), "")
            if not claim.control and cell.startswith(": "):
                fields["control"] = _unmd(cell[2:])
            if status in ("reproduced", "partly", "not-reproduced", "not-checkable"):
                verdicts[claim.id] = Verdict(status, fields["ours"], fields["evidence"],
                                             control="" if fields["control"] == "not reported" else fields["control"])
        for c in paper.claims:
            verdicts.setdefault(c.id, Verdict("not-checkable", "—", f"not in the committed report of {when}"))
        per = runtime / max(n_ok + n_failed, 1)
        rows = [Row(paper.slug, prof.group(1), seed, "ok", {}, None, per, "committed", when) for seed in range(n_ok)]
        for fm in _FAILED_LINE.finditer(body):
            rows.append(Row(paper.slug, prof.group(1), int(fm.group(1)), fm.group(2), None, _unmd(fm.group(3)), per,
                            "committed", when))
        if prof.group(6):  # the CPU total, spread evenly over the jobs that measured it
            k = min(int(prof.group(7)) if prof.group(7) else len(rows), len(rows))
            rows = [replace(r, cpu_s=float(prof.group(6)) / k) if i < k else r for i, r in enumerate(rows)]
        res = PaperResult(paper, prof.group(1), rows, verdicts, stale=bool(prof.group(2)),
                          kept_from=again.group(1) if again else when)
        fig = out / "figures" / f"{paper.slug}.png"
        if fig.exists():
            res.figure_png = fig.read_bytes()
        kept[paper.slug] = res
    return kept


def check_writable(out_dir: str | Path) -> None:
    """Raise ``OSError`` (one line) when the report folder cannot be written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".icml26-write-test"
    probe.write_text("", encoding="utf-8")
    probe.unlink()


def build(papers: Sequence[Paper], store: Store, out_dir: str | Path = "report", *,
          profile: str | None = None, readme: str | Path | None = None, replace_committed: bool = False,
          progress: Progress | None = None) -> tuple[Path, Path, list[PaperResult]]:
    """Write ``index.html``, ``REPORT.md``, ``manifest.json`` and the rows behind them (``runs.jsonl.gz``,
    which ``icml26 import`` restores into another store) into ``out_dir``; optionally refresh a README table.

    Raises :class:`CommittedResults` and writes nothing when the store is empty while
    ``out_dir`` holds a committed report, or when some paper's committed section would be
    replaced by a smaller profile or fewer seeds (unless ``replace_committed``).
    """
    out = Path(out_dir)
    committed = read_manifest(out) if not replace_committed else {}
    if committed and store.count() == 0:
        raise CommittedResults(f"the results store {store.path} is empty: {out} keeps its committed report "
                               f"({len(committed)} papers) and the README is left as it is. Run `icml26 run` "
                               f"first, restore the committed runs with `icml26 import {out / RUNS_EXPORT}`, "
                               "or write elsewhere with --out")
    check_writable(out)
    results = collect(papers, store, profile=profile, figures=False, bench_dir=out / "bench", progress=progress)
    if committed and profile is None:
        kept = kept_sections([r.paper for r in results if r.profile is None], out)
        results = [kept.get(r.paper.slug, r) if r.profile is None else r for r in results]
    worse = downgrades(results, committed)
    if worse:
        raise CommittedResults(
            f"{len(worse)} paper(s) in {out} hold committed results that these would replace with a smaller "
            f"profile or fewer seeds: {', '.join(worse[:6])}{' …' if len(worse) > 6 else ''}. Nothing was "
            "written. Write elsewhere with --out, or pass --replace-committed", [w.split(" ")[0] for w in worse])
    render_figures(results, progress=progress)
    md = write_markdown(results, out)
    page = write_html(results, out)
    (out / MANIFEST).write_text(json.dumps(manifest_of(results), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    store.export_rows([row for r in results for row in r.rows], out / RUNS_EXPORT)
    if readme is not None:
        update_readme(Path(readme), results)
    return page, md, results
