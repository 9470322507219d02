"""The ``icml26`` command line: list, show, run, report, reproduce, bench, new.

Start-up stays light (no torch, no experiment imports) so ``icml26 list`` is instant: it
shows what is stored. Verdicts are always computed from the stored metrics with the current
checks when they are shown (``show``, ``run``, ``report``), so these always agree.

Every bad input gets one line on stderr and exit code 2; all user and paper text is
escaped before Rich renders it (``[a|s,s']`` in a claim stays as written).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icml26.core.jobs import missing_extra, quiet_environment
from icml26.core.paper import CLUSTERS, Paper
from icml26.core.registry import UnknownPaper, all_papers, get_paper
from icml26.core.store import Store, StoreError, default_path

quiet_environment()
warnings.filterwarnings("ignore", message=r".*malformed row", category=UserWarning)  # the CLI names them itself
app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Reference implementations and small-scale reproductions of ICML 2026 papers.")
console = Console()
err = Console(stderr=True)

STATUS_STYLE = {"reproduced": "green", "partly": "yellow", "not-reproduced": "red", "not-checkable": "dim",
                "ok": "green", "error": "red", "timeout": "red", "crashed": "red", "skipped": "yellow"}

StoreOpt = Annotated[Optional[Path], typer.Option("--store", help="results file (default runs/results.sqlite "
                                                  "or $ICML26_STORE)")]


def _e(value: Any) -> str:
    """Escape any text that is not our own markup (paper text, paths, error messages)."""
    return escape(str(value))


def _fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, then exit (2: bad input or unusable file)."""
    first = " ".join(str(message).split())
    err.print(f"[red]error:[/red] {_e(first)}", soft_wrap=True)
    raise typer.Exit(code)


def _warn(message: str) -> None:
    err.print(f"[yellow]warning:[/yellow] {_e(' '.join(str(message).split()))}", soft_wrap=True)


def _open_store(path: Path | None, create: bool = True, readonly: bool = False) -> Store:
    from icml26.core.jobs import set_log_path

    try:
        st = Store(path or default_path(), create=create, readonly=readonly)
    except StoreError as exc:
        _fail(str(exc))
    set_log_path(st.path.parent / "library.log")  # what libraries print goes beside the store
    return st


def _cpu_total(outcomes: "list[Any]") -> str:
    """`` · 212.3 s CPU in jobs``: the workers' CPU, which a shell's ``time`` misses (they are
    children of the fork server, not of this process); empty when no job reported it."""
    cpus = [o.cpu_s for o in outcomes if getattr(o, "cpu_s", None) is not None]
    return f" · {sum(cpus):.1f} s CPU in jobs (slowest {max(cpus):.1f} s)" if cpus else ""


def _report_skipped(st: Store) -> None:
    for msg in st.skipped_rows:
        _warn(f"{st.path}: {msg}")


def _resolve(slugs: list[str]) -> list[Paper]:
    papers: list[Paper] = []
    for s in slugs:
        try:
            p = get_paper(s)
        except UnknownPaper as exc:
            _fail(str(exc))
        if p in papers:
            _warn(f"{p.slug} given more than once: its jobs run once")
            continue
        papers.append(p)
    return papers


def _papers_of(cluster: str | None) -> list[Paper]:
    if cluster is not None and cluster not in CLUSTERS:
        _fail(f"unknown cluster {cluster!r}; choose one of {', '.join(CLUSTERS)}")
    return all_papers(cluster)


def _check_timeout(timeout: float | None) -> None:
    if timeout is None:
        return
    if not math.isfinite(timeout) or timeout <= 0:
        _fail(f"--timeout must be a finite number of seconds > 0, got {timeout!r}")


def _check_profile(profile: str, papers: list[Paper]) -> None:
    for p in papers:
        if profile not in p.profiles:
            _fail(f"paper {p.slug!r} has no profile {profile!r} (it has {', '.join(p.profiles)})")


def _check_backend(backend: str, address: str | None) -> None:
    if backend not in ("local", "ray"):
        _fail(f"unknown backend {backend!r}; choose 'local' or 'ray'")
    if address is not None and backend != "ray":
        _fail("--address is a Ray cluster address: use it with --backend ray")


def _verdict_cell(verdicts: dict | None) -> str:
    if not verdicts:
        return "[dim]—[/dim]"
    cells = []
    for claim, v in verdicts.items():
        style = STATUS_STYLE.get(v.status, "")
        cells.append(f"[{style}]{_e(claim)}:{_e(v.status)}[/{style}]")
    return " ".join(cells)


def _stored_seeds(path: Path | None) -> dict[str, dict[str, int]]:
    """paper -> profile -> number of ok seeds stored (any code version); cheap, no checks run."""
    path = path or default_path()
    if not path.exists():
        return {}
    with _open_store(path, create=False, readonly=True) as st:
        return st.ok_seed_counts()


def _extra_hint(paper: Paper) -> str:
    """If the paper's experiment cannot be imported for a missing optional library: what to install."""
    import importlib

    try:
        importlib.import_module(paper.experiment)
    except ModuleNotFoundError as exc:
        return missing_extra(exc, paper.cluster)
    except Exception:  # noqa: BLE001 - other import errors show up where the experiment is used
        return ""
    return ""


@app.command("list")
def list_cmd(cluster: Annotated[Optional[str], typer.Option(help=f"one of {', '.join(CLUSTERS)}")] = None,
             store: StoreOpt = None) -> None:
    """List papers with their cluster, feasibility, claims by kind and what is stored."""
    papers = _papers_of(cluster)
    stored = _stored_seeds(store)
    table = Table(title=f"{len(papers)} papers (verdicts: icml26 show SLUG, or the report)")
    for col in ("slug", "cluster", "feas.", "claims (headline/identity/prior)", "stored seeds"):
        table.add_column(col)
    from icml26.core.report import PROFILE_PREFERENCE

    for p in papers:
        kinds = [sum(c.kind == k for c in p.claims) for k in ("headline", "identity", "prior-work")]
        by_profile = stored.get(p.slug, {})
        names = [n for n in PROFILE_PREFERENCE if n in by_profile] + sorted(set(by_profile) - set(PROFILE_PREFERENCE))
        cell = ", ".join(f"{_e(n)}: {by_profile[n]}" for n in names) or "[dim]not run[/dim]"
        table.add_row(_e(p.slug), _e(p.cluster), _e(p.feasibility), "/".join(map(str, kinds)), cell)
    console.print(table)


@app.command()
def show(slug: str, store: StoreOpt = None) -> None:
    """Show a paper: source, substitution, and each claim with the paper's value and our verdict now."""
    from icml26.core.jobs import quiet
    from icml26.core.report import preferred_profiles

    (p,) = _resolve([slug])
    e = _e
    console.print(f"[bold]{e(p.slug)}[/bold] — {e(p.title)}")
    console.print(f"source: {e(p.source)} · cluster: {e(p.cluster)} · feasibility: {e(p.feasibility)}")
    console.print("profiles: " + ", ".join(f"{e(n)} ({pr.seeds} seeds)" for n, pr in p.profiles.items()))
    console.print(f"\n[bold]Small-scale setting[/bold]\n{e(p.substitution)}\n")
    verdicts, prof, n = {}, None, 0
    path = store or default_path()
    if path.exists():
        with _open_store(path, create=False, readonly=True) as st:
            for name in preferred_profiles(p):
                rows = st.current(p, p.profile(name))
                if rows:
                    prof, n = name, len(rows)
                    with quiet():
                        verdicts = p.evaluate([r.metrics for r in rows])
                    break
            _report_skipped(st)
    for c in p.claims:
        console.print(f"[bold]{e(c.id)}[/bold] ({e(c.kind)}): {e(c.statement)}")
        console.print(f"  paper: {e(c.paper_value)}")
        if c.control:
            console.print(f"  control: {e(c.control)}")
        if prof and c.id in verdicts:
            v = verdicts[c.id]
            style = STATUS_STYLE.get(v.status, "")
            console.print(f"  ours ({e(prof)}, verdict from {n} stored seeds): {e(v.measured)}  "
                          f"[{style}]{e(v.status)}[/{style}]")
            if v.control:
                console.print(f"  control's: {e(v.control)}")
        else:
            console.print("  ours: [dim]not run with the current code[/dim]")
    hint = _extra_hint(p) if prof else ""
    if hint:
        _warn(f"{p.slug}: {hint}")


def _parse_sets(sets: list[str] | None) -> dict:
    out: dict = {}
    for item in sets or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            _fail(f"--set expects key=value, got {item!r}")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def _run(papers: list[Paper], profile: str, seeds: int | None, jobs: int | None, force: bool, store_path: Path | None,
         backend: str, address: str | None, timeout: float | None, overrides: dict | None = None) -> bool:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from icml26.core.jobs import fmt_seconds, job_profile
    from icml26.core.runner import execute

    if seeds is not None and seeds < 1:
        _fail(f"--seeds must be >= 1, got {seeds}")
    if jobs is not None and jobs < 1:
        _fail(f"--jobs must be >= 1, got {jobs}")
    _check_backend(backend, address)
    _check_timeout(timeout)
    _check_profile(profile, papers)
    if backend == "ray" and address:
        from icml26.core.ray_backend import check_address

        try:
            check_address(address)
        except (ValueError, ConnectionError) as exc:
            _fail(str(exc))
    st = _open_store(store_path)
    t0 = time.perf_counter()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=False)
    task = None

    def on_plan(todo: list, skipped: list) -> None:
        nonlocal task
        if skipped:
            err.print(f"{len(skipped)} job(s) already stored for this code version: skipped (use --force to redo)")
        task = progress.add_task(f"{_e(profile)}: {len(todo)} jobs", total=len(todo))

    def on_done(out) -> None:  # noqa: ANN001
        j = out.job
        style = STATUS_STYLE.get(out.status, "")
        progress.console.print(f"  {_e(j.paper):<22} {_e(j.profile):<6} seed {j.seed:<3} "
                               f"[{style}]{out.status:<8}[/{style}] {out.duration_s:6.1f} s"
                               + (f" ({out.cpu_s:.1f} s CPU)" if out.cpu_s is not None else ""))
        progress.advance(task)

    try:
        with progress:
            summary = execute(papers, profile, st, seeds=seeds, workers=jobs, force=force, backend=backend,
                              address=address, timeout_s=timeout, overrides=overrides, on_plan=on_plan,
                              on_done=on_done)
    except (ValueError, ConnectionError, RuntimeError, StoreError) as exc:
        st.close()
        _fail(str(exc))
    elapsed = time.perf_counter() - t0
    from icml26.core.jobs import quiet

    verdicts, used = {}, {}
    ov = json.dumps(overrides or {}, sort_keys=True)
    for p in papers:
        rows = st.current(p, job_profile(p, profile, ov))
        used[p.slug] = len(rows)
        with quiet():
            verdicts[p.slug] = p.evaluate([r.metrics for r in rows]) if rows else {}
    _report_skipped(st)
    st.close()
    table = Table(title=f"{_e(profile)} profile · {len(summary.outcomes)} jobs run, {len(summary.skipped)} skipped · "
                        f"{elapsed:.1f} s" + _cpu_total(summary.outcomes))
    for col in ("paper", "jobs ok", "failed", "verdicts from", "verdicts"):
        table.add_column(col)
    for p in papers:
        outs = [o for o in summary.outcomes if o.job.paper == p.slug]
        ok = sum(o.status == "ok" for o in outs) + sum(j.paper == p.slug for j in summary.skipped)
        bad = [o for o in outs if o.status != "ok"]
        table.add_row(_e(p.slug), str(ok), f"[red]{len(bad)}[/red]" if bad else "0", f"{used[p.slug]} stored seeds",
                      _verdict_cell(verdicts.get(p.slug)))
    console.print(table)
    if summary.by_other:
        err.print(f"{len(summary.by_other)} job(s) were run by another icml26 process on this store; "
                  "their rows are used")
    for o in summary.failed:
        last = (o.error or "").strip().splitlines()[-1:] or [""]
        err.print(f"[red]{_e(o.status)}[/red] {_e(o.job.paper)}/{_e(o.job.profile)}/seed {o.job.seed}: "
                  f"{_e(last[0][:300])}")
    for o in summary.not_run:
        err.print(f"[yellow]skipped[/yellow] {_e(o.job.paper)}/{_e(o.job.profile)}/seed {o.job.seed}: {_e(o.error)}")
    if summary.interrupted:
        err.print("[yellow]interrupted:[/yellow] finished jobs are stored; re-run to complete the rest")
    return summary.ok


def _select(slugs: list[str] | None, all_: bool, cluster: str | None) -> list[Paper]:
    if all_ == bool(slugs):
        _fail("give paper slugs or --all (not both)")
    if cluster is not None and not all_:
        _fail("--cluster selects papers with --all; with slugs, leave it out")
    return _papers_of(cluster) if all_ else _resolve(slugs or [])


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
    papers = _select(slugs, all_, cluster)
    _check_backend(backend, address)
    _check_timeout(timeout)
    _check_profile(profile, papers)
    overrides = _parse_sets(set_)
    if overrides:
        for p in papers:
            try:
                p.profile(profile).with_overrides(overrides)
            except ValueError as exc:
                _fail(f"{p.slug}: {exc}")
    if not _run(papers, profile, seeds, jobs, force, store, backend, address, timeout, overrides):
        raise typer.Exit(1)


def _write_report(store: Path | None, out: Path, profile: str | None, readme: Path | None,
                  replace_committed: bool) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from icml26.core.report import CommittedResults, build

    papers = all_papers()
    if profile is not None and not any(profile in p.profiles for p in papers):
        names = sorted({n for p in papers for n in p.profiles})
        _fail(f"no paper has a profile {profile!r}; choose one of {', '.join(names)}")
    path = store or default_path()
    if not path.exists():
        _warn(f"no results store at {path}: nothing has been run yet (icml26 run ...); the report and README "
              "are left as they are")
        return
    st = _open_store(path, create=False, readonly=True)
    progress = Progress(TextColumn("report: {task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=err, transient=True)
    task = progress.add_task("", total=len(papers))

    def step(i: int, n: int, what: str) -> None:
        progress.update(task, completed=i, total=n, description=_e(what))

    try:
        with progress:
            page, md, results = build(papers, st, out, profile=profile, readme=readme,
                                      replace_committed=replace_committed, progress=step)
    except CommittedResults as exc:
        _warn(str(exc))
        return
    except OSError as exc:
        _fail(f"cannot write the report to {out}: {exc.strerror or exc} ({getattr(exc, 'filename', '') or out})")
    finally:
        _report_skipped(st)
        st.close()
    console.print(f"wrote {_e(page)} and {_e(md)} ({len(results)} papers)")


ReplaceOpt = Annotated[bool, typer.Option("--replace-committed",
                                          help="allow replacing committed results with a smaller profile or fewer "
                                               "seeds")]


@app.command()
def report(out: Annotated[Path, typer.Option(help="output folder")] = Path("report"),
           profile: Annotated[Optional[str], typer.Option(help="force one profile (default: full, else quick)")] = None,
           readme: Annotated[Optional[Path], typer.Option(help="README whose verdict table to refresh")] = None,
           replace_committed: ReplaceOpt = False,
           store: StoreOpt = None) -> None:
    """Write report/index.html and report/REPORT.md from the stored runs."""
    _write_report(store, out, profile, readme, replace_committed)


@app.command("import")
def import_cmd(path: Annotated[Path, typer.Argument(help="a runs file written by icml26 report "
                                                        "(report/runs.jsonl.gz)")],
               store: StoreOpt = None) -> None:
    """Restore exported runs into the results store (rows already stored are kept).

    A fresh clone has no results store; importing the committed report's runs lets `icml26 report`
    rebuild the report, and `icml26 run` re-run one paper, without re-running the others.
    Imported rows of code that has changed since are shown as stale.
    """
    with _open_store(store or default_path(), create=True) as st:
        try:
            added, present = st.import_rows(path)
        except StoreError as exc:
            _fail(str(exc))
    console.print(f"imported {added} run(s) into {_e(st.path)}" + (f"; {present} already stored, kept" if present
                                                                   else ""))


@app.command()
def reproduce(profile: Annotated[str, typer.Option(help="quick or full")] = "full",
              seeds: Annotated[Optional[int], typer.Option(help="number of seeds (default: the profile's)")] = None,
              jobs: Annotated[Optional[int], typer.Option(help="parallel workers")] = None,
              force: Annotated[bool, typer.Option(help="recompute jobs already stored")] = False,
              backend: Annotated[str, typer.Option(help="local or ray")] = "local",
              address: Annotated[Optional[str], typer.Option(help="Ray cluster address (ray backend)")] = None,
              timeout: Annotated[Optional[float], typer.Option(help="per-job timeout in seconds")] = None,
              out: Annotated[Path, typer.Option(help="report folder")] = Path("report"),
              readme: Annotated[Optional[Path], typer.Option(help="README whose verdict table to refresh")] = None,
              replace_committed: ReplaceOpt = False,
              store: StoreOpt = None) -> None:
    """Run every reproduction, then write the report (= run --all, then report)."""
    papers = all_papers()
    _check_backend(backend, address)
    _check_timeout(timeout)
    _check_profile(profile, papers)
    ok = _run(papers, profile, seeds, jobs, force, store, backend, address, timeout)
    _write_report(store, out, profile, readme, replace_committed)
    if not ok:
        raise typer.Exit(1)


def _bench_folder(folder: Path | None) -> Path:
    """``benchmarks/`` here, else the one beside the installed source tree (so bench works anywhere)."""
    if folder is not None:
        return folder
    here = Path("benchmarks")
    if here.is_dir():
        return here
    import icml26

    return Path(icml26.__file__).resolve().parents[2] / "benchmarks"


OPT_IN_BENCHMARKS = {"suite_scaling": "reruns the whole quick suite three times (minutes); name it to run it"}


@app.command()
def bench(names: Annotated[Optional[list[str]], typer.Argument(help="benchmark names (default: all but the "
                                                                     "opt-in suite_scaling)")] = None,
          folder: Annotated[Optional[Path], typer.Option(help="benchmarks folder (default: ./benchmarks, else the "
                                                                "repository's)")] = None) -> None:
    """Run the speed/memory benchmarks in benchmarks/ (each prints its measured ratios)."""
    folder = _bench_folder(folder)
    if not folder.is_dir():
        _fail(f"no benchmarks folder at {folder} (run from the repository, or give --folder)")
    scripts = sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if names:
        wanted = {n.replace("-", "_").removesuffix(".py") for n in names}
        missing = wanted - {p.stem for p in scripts}
        if missing:
            _fail(f"no benchmark named {', '.join(sorted(missing))}; have {', '.join(p.stem for p in scripts)}")
        scripts = [p for p in scripts if p.stem in wanted]
    else:
        for p in scripts:
            if p.stem in OPT_IN_BENCHMARKS:
                err.print(f"[dim]not running {_e(p.stem)}: {_e(OPT_IN_BENCHMARKS[p.stem])}[/dim]")
        scripts = [p for p in scripts if p.stem not in OPT_IN_BENCHMARKS]
    failed = []
    cwd = folder.resolve().parent
    for i, script in enumerate(scripts, 1):
        console.rule(f"[{i}/{len(scripts)}] {_e(script.stem)}")
        t0 = time.perf_counter()
        rc = subprocess.run([sys.executable, str(script.resolve())], cwd=cwd).returncode
        status = "[green]ok[/green]" if rc == 0 else f"[red]failed (exit {rc})[/red]"
        err.print(f"[{i}/{len(scripts)}] {_e(script.stem)}: {status} in {time.perf_counter() - t0:.1f} s")
        if rc != 0:
            failed.append(script.stem)
    if failed:
        err.print(f"[red]failed:[/red] {_e(', '.join(failed))}")
        raise typer.Exit(1)


@app.command()
def new(cluster: Annotated[str, typer.Argument(help=f"one of {', '.join(CLUSTERS)}")],
        slug: Annotated[str, typer.Argument(help="short lowercase name, e.g. my-paper")],
        root: Annotated[Optional[Path], typer.Option(help="repository root to write into (default: the one "
                                                           "holding src/icml26, else .)")] = None,
        title: Annotated[str, typer.Option(help="the paper's title")] = "TODO: the paper's title",
        source: Annotated[str, typer.Option(help="arXiv id or URL")] = "TODO: arXiv id") -> None:
    """Scaffold a paper package (__init__, setting, method, experiment) and its test, in the house style."""
    from icml26.core.scaffold import ScaffoldError, scaffold

    try:
        written = scaffold(cluster, slug, root=root, title=title, source=source)
    except ScaffoldError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write the scaffold: {exc.strerror or exc} ({getattr(exc, 'filename', '')})")
    for path in written:
        console.print(f"created {_e(path)}")
    console.print(f"next: fill in the TODOs, then `python -m icml26.core.devrun {_e(slug)} quick`")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
