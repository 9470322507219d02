"""The ``icml26`` command line: list, show, run, report, reproduce, bench.

Start-up stays light (no torch, no experiment imports) so ``icml26 list`` is instant: it
shows what is stored. Verdicts are always computed from the stored metrics with the current
checks when they are shown (``show``, ``run``, ``report``), so these always agree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icml26.core.paper import CLUSTERS, Paper
from icml26.core.registry import UnknownPaper, all_papers, get_paper
from icml26.core.store import Store, StoreError, default_path

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Reference implementations and small-scale reproductions of ICML 2026 papers.")
console = Console()
err = Console(stderr=True)

STATUS_STYLE = {"reproduced": "green", "partly": "yellow", "not-reproduced": "red", "not-checkable": "dim",
                "ok": "green", "error": "red", "timeout": "red", "crashed": "red"}

StoreOpt = Annotated[Optional[Path], typer.Option("--store", help="results file (default runs/results.sqlite "
                                                  "or $ICML26_STORE)")]


def _open_store(path: Path | None, create: bool = True) -> Store:
    try:
        return Store(path or default_path(), create=create)
    except StoreError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


def _resolve(slugs: list[str]) -> list[Paper]:
    papers = []
    for s in slugs:
        try:
            papers.append(get_paper(s))
        except UnknownPaper as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
    return papers


def _verdict_cell(verdicts: dict | None) -> str:
    if not verdicts:
        return "[dim]—[/dim]"
    cells = []
    for claim, v in verdicts.items():
        style = STATUS_STYLE.get(v.status, "")
        cells.append(f"[{style}]{escape(claim)}:{v.status}[/{style}]")
    return " ".join(cells)


def _stored_seeds(path: Path | None) -> dict[str, dict[str, int]]:
    """paper -> profile -> number of ok seeds stored (any code version); cheap, no checks run."""
    path = path or default_path()
    if not path.exists():
        return {}
    with _open_store(path, create=False) as st:
        return st.ok_seed_counts()


@app.command("list")
def list_cmd(cluster: Annotated[Optional[str], typer.Option(help=f"one of {', '.join(CLUSTERS)}")] = None,
             store: StoreOpt = None) -> None:
    """List papers with their cluster, feasibility, claims by kind and what is stored."""
    if cluster is not None and cluster not in CLUSTERS:
        err.print(f"[red]error:[/red] unknown cluster {escape(cluster)!r}; choose one of {', '.join(CLUSTERS)}")
        raise typer.Exit(2)
    papers = all_papers(cluster)
    stored = _stored_seeds(store)
    table = Table(title=f"{len(papers)} papers (verdicts: icml26 show SLUG, or the report)")
    for col in ("slug", "cluster", "feas.", "claims (headline/identity/prior)", "stored seeds"):
        table.add_column(col)
    for p in papers:
        kinds = [sum(c.kind == k for c in p.claims) for k in ("headline", "identity", "prior-work")]
        by_profile = stored.get(p.slug, {})
        cell = ", ".join(f"{n}: {by_profile[n]}" for n in ("full", "quick") if n in by_profile) or "[dim]not run[/dim]"
        table.add_row(p.slug, p.cluster, p.feasibility, "/".join(map(str, kinds)), cell)
    console.print(table)


@app.command()
def show(slug: str, store: StoreOpt = None) -> None:
    """Show a paper: source, substitution, and each claim with the paper's value and our verdict now."""
    (p,) = _resolve([slug])
    e = escape
    console.print(f"[bold]{e(p.slug)}[/bold] — {e(p.title)}")
    console.print(f"source: {e(p.source)} · cluster: {p.cluster} · feasibility: {p.feasibility}")
    console.print("profiles: " + ", ".join(f"{n} ({pr.seeds} seeds)" for n, pr in p.profiles.items()))
    console.print(f"\n[bold]Small-scale setting[/bold]\n{e(p.substitution)}\n")
    verdicts, prof, n = {}, None, 0
    path = store or default_path()
    if path.exists():
        with _open_store(path, create=False) as st:
            for name in ("full", "quick"):
                rows = st.current(p, p.profile(name))
                if rows:
                    prof, n = name, len(rows)
                    verdicts = p.evaluate([r.metrics for r in rows])
                    break
    for c in p.claims:
        console.print(f"[bold]{e(c.id)}[/bold] ({c.kind}): {e(c.statement)}")
        console.print(f"  paper: {e(c.paper_value)}")
        if c.control:
            console.print(f"  control: {e(c.control)}")
        if prof and c.id in verdicts:
            v = verdicts[c.id]
            style = STATUS_STYLE.get(v.status, "")
            console.print(f"  ours ({prof}, {n} seeds): {e(v.measured)}  [{style}]{v.status}[/{style}]")
            if v.control:
                console.print(f"  control's: {e(v.control)}")
        else:
            console.print("  ours: [dim]not run with the current code[/dim]")


def _parse_sets(sets: list[str] | None) -> dict:
    import json

    out: dict = {}
    for item in sets or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            err.print(f"[red]error:[/red] --set expects key=value, got {escape(item)!r}")
            raise typer.Exit(2)
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _run(papers: list[Paper], profile: str, seeds: int | None, jobs: int | None, force: bool, store_path: Path | None,
         backend: str, address: str | None, timeout: float | None, overrides: dict | None = None) -> bool:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from icml26.core.runner import execute

    if seeds is not None and seeds < 1:
        err.print(f"[red]error:[/red] --seeds must be >= 1, got {seeds}")
        raise typer.Exit(2)
    if jobs is not None and jobs < 1:
        err.print(f"[red]error:[/red] --jobs must be >= 1, got {jobs}")
        raise typer.Exit(2)
    if backend not in ("local", "ray"):
        err.print(f"[red]error:[/red] unknown backend {backend!r}; choose 'local' or 'ray'")
        raise typer.Exit(2)
    for p in papers:
        if profile not in p.profiles:
            err.print(f"[red]error:[/red] paper {p.slug!r} has no profile {profile!r} "
                      f"(it has {', '.join(p.profiles)})")
            raise typer.Exit(2)
    st = _open_store(store_path)
    t0 = time.perf_counter()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=False)
    task = None

    def on_plan(todo: list, skipped: list) -> None:
        nonlocal task
        if skipped:
            err.print(f"{len(skipped)} job(s) already stored for this code version: skipped (use --force to redo)")
        task = progress.add_task(f"{profile}: {len(todo)} jobs", total=len(todo))

    def on_done(out) -> None:  # noqa: ANN001
        j = out.job
        style = STATUS_STYLE.get(out.status, "")
        progress.console.print(f"  {j.paper:<22} {j.profile:<6} seed {j.seed:<3} [{style}]{out.status:<8}[/{style}] "
                               f"{out.duration_s:6.1f} s")
        progress.advance(task)

    try:
        with progress:
            summary = execute(papers, profile, st, seeds=seeds, workers=jobs, force=force, backend=backend,
                              address=address, timeout_s=timeout, overrides=overrides, on_plan=on_plan,
                              on_done=on_done)
    except (ValueError, ConnectionError, RuntimeError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        st.close()
        raise typer.Exit(2) from None
    elapsed = time.perf_counter() - t0
    from icml26.core.jobs import job_profile
    import json as _json

    verdicts, used = {}, {}
    for p in papers:
        rows = st.current(p, job_profile(p, profile, _json.dumps(overrides or {}, sort_keys=True)))
        used[p.slug] = len(rows)
        verdicts[p.slug] = p.evaluate([r.metrics for r in rows]) if rows else {}
    st.close()
    table = Table(title=f"{profile} profile · {len(summary.outcomes)} jobs run, {len(summary.skipped)} skipped · "
                        f"{elapsed:.1f} s")
    for col in ("paper", "jobs ok", "failed", "verdicts from", "verdicts"):
        table.add_column(col)
    for p in papers:
        outs = [o for o in summary.outcomes if o.job.paper == p.slug]
        ok = sum(o.status == "ok" for o in outs) + sum(j.paper == p.slug for j in summary.skipped)
        bad = [o for o in outs if o.status != "ok"]
        table.add_row(p.slug, str(ok), f"[red]{len(bad)}[/red]" if bad else "0", f"{used[p.slug]} stored seeds",
                      _verdict_cell(verdicts.get(p.slug)))
    console.print(table)
    for o in summary.failed:
        last = (o.error or "").strip().splitlines()[-1:] or [""]
        err.print(f"[red]{o.status}[/red] {o.job.paper}/{o.job.profile}/seed {o.job.seed}: {last[0][:300]}")
    for o in summary.not_run:
        err.print(f"[yellow]skipped[/yellow] {o.job.paper}/{o.job.profile}/seed {o.job.seed}: {o.error}")
    if summary.interrupted:
        err.print("[yellow]interrupted:[/yellow] finished jobs are stored; re-run to complete the rest")
    return summary.ok


@app.command()
def run(slugs: Annotated[Optional[list[str]], typer.Argument(help="paper slugs")] = None,
        all_: Annotated[bool, typer.Option("--all", help="run every registered paper")] = False,
        profile: Annotated[str, typer.Option(help="quick or full")] = "quick",
        seeds: Annotated[Optional[int], typer.Option(help="number of seeds (default: the profile's)")] = None,
        jobs: Annotated[Optional[int], typer.Option(help="parallel workers (default: number of cores)")] = None,
        force: Annotated[bool, typer.Option(help="recompute jobs already stored")] = False,
        backend: Annotated[str, typer.Option(help="local or ray")] = "local",
        address: Annotated[Optional[str], typer.Option(help="Ray cluster address (ray backend)")] = None,
        timeout: Annotated[Optional[float], typer.Option(help="per-job timeout in seconds (default: profile's)")] = None,
        cluster: Annotated[Optional[str], typer.Option(help="with --all: only this cluster")] = None,
        set_: Annotated[Optional[list[str]], typer.Option("--set", help="override a profile parameter: key=value "
                                                                        "(JSON value); stored with the rows")] = None,
        store: StoreOpt = None) -> None:
    """Run reproductions; exits non-zero if any job failed or timed out."""
    if all_ == bool(slugs):
        err.print("[red]error:[/red] give paper slugs or --all (not both)")
        raise typer.Exit(2)
    papers = all_papers(cluster) if all_ else _resolve(slugs or [])
    overrides = _parse_sets(set_)
    if overrides:
        for p in papers:
            try:
                p.profile(profile).with_overrides(overrides)
            except ValueError as exc:
                err.print(f"[red]error:[/red] {p.slug}: {escape(str(exc))}")
                raise typer.Exit(2) from None
    if not _run(papers, profile, seeds, jobs, force, store, backend, address, timeout, overrides):
        raise typer.Exit(1)


@app.command()
def report(out: Annotated[Path, typer.Option(help="output folder")] = Path("report"),
           profile: Annotated[Optional[str], typer.Option(help="force one profile (default: full, else quick)")] = None,
           readme: Annotated[Optional[Path], typer.Option(help="README whose verdict table to refresh")] = None,
           store: StoreOpt = None) -> None:
    """Write report/index.html and report/REPORT.md from the stored runs."""
    from icml26.core.report import build

    st = _open_store(store)
    page, md, results = build(all_papers(), st, out, profile=profile, readme=readme)
    st.close()
    console.print(f"wrote {page} and {md} ({len(results)} papers)")


@app.command()
def reproduce(profile: Annotated[str, typer.Option(help="quick or full")] = "full",
              seeds: Annotated[Optional[int], typer.Option(help="number of seeds (default: the profile's)")] = None,
              jobs: Annotated[Optional[int], typer.Option(help="parallel workers")] = None,
              force: Annotated[bool, typer.Option(help="recompute jobs already stored")] = False,
              out: Annotated[Path, typer.Option(help="report folder")] = Path("report"),
              readme: Annotated[Optional[Path], typer.Option(help="README whose verdict table to refresh")] = None,
              store: StoreOpt = None) -> None:
    """Run every reproduction, then write the report (= run --all, then report)."""
    from icml26.core.report import build

    ok = _run(all_papers(), profile, seeds, jobs, force, store, "local", None, None)
    st = _open_store(store)
    page, md, _ = build(all_papers(), st, out, profile=profile, readme=readme)
    st.close()
    console.print(f"wrote {page} and {md}")
    if not ok:
        raise typer.Exit(1)


@app.command()
def bench(names: Annotated[Optional[list[str]], typer.Argument(help="benchmark names (default: all)")] = None,
          folder: Annotated[Path, typer.Option(help="benchmarks folder")] = Path("benchmarks")) -> None:
    """Run the speed/memory benchmarks in benchmarks/ (each prints its measured ratios)."""
    if not folder.is_dir():
        err.print(f"[red]error:[/red] no benchmarks folder at {folder}")
        raise typer.Exit(2)
    scripts = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if names:
        wanted = {n.replace("-", "_").removesuffix(".py") for n in names}
        missing = wanted - {p.stem for p in scripts}
        if missing:
            err.print(f"[red]error:[/red] no benchmark named {', '.join(sorted(missing))}; "
                      f"have {', '.join(p.stem for p in scripts)}")
            raise typer.Exit(2)
        scripts = [p for p in scripts if p.stem in wanted]
    failed = []
    for script in scripts:
        console.rule(script.stem)
        if subprocess.run([sys.executable, str(script)]).returncode != 0:
            failed.append(script.stem)
    if failed:
        err.print(f"[red]failed:[/red] {', '.join(failed)}")
        raise typer.Exit(1)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
