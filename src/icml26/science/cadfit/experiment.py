"""Small-scale reproduction of CADFit (arXiv 2605.01171) on procedural CadQuery parts.

Per seed, one part of each family in ``profile["families"]`` (sizes drawn from (seed, index)),
plus noisy re-tessellated copies of the families in ``profile["noisy"]`` (Gaussian vertex noise
``profile["noise"]``; the method sees the noisy mesh, scores are against the clean one). For
every part, the candidates are generated and executed once (``method.prepare``) and shared by:

* ``cadfit``        the full pipeline (greedy IoU selection + pruning + edge refinement);
* ``extrude_only``  CADFit restricted to extrusions (no revolves, no fillets/chamfers): claim 3;
* ``open_union``    open loop: the union of all candidates that execute (no IoU feedback);
* ``open_top3``     open loop: the 3 candidates with the best geometric fit (lowest CD), unexecuted;
* ``best_single``   the single candidate with the highest IoU (feedback, no composition);
* ``bbox``          an extrusion of the mesh's bounding box.

Scores against the clean target: volumetric IoU (manifold3d) and symmetric Chamfer distance
(5,000 surface samples each). Every emitted program of ``cadfit`` and ``open_top3`` is then
re-run in ONE fresh Python process (``method.reexecute_scripts``): a program is invalid unless
its ``result`` is one valid solid. An open-loop program that fails in the kernel scores IoU 0.
The union of all executable candidates is scored as a manifold3d union of the candidates' meshes
(fusing 20-40 overlapping solids in OpenCascade takes seconds per part on our CPUs).

Claims: ``beats-controls`` (claim 1 against the non-learned controls, pooled parts x seeds),
``beats-learned-peers`` (not checkable: CAD-Recode/cadrille weights), ``invalid-ratio``
(fresh-process re-execution by ground-truth op-count tercile), ``in-loop-validity`` (identity),
``richer-ops`` (claim 3 against extrude-only), ``image-to-cad`` (not checkable).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from icml26.core import checks as C
from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import bootstrap_ci, fmt_p, paired_test
from icml26.science._geometry import chamfer, sample_surface
from icml26.science.cadfit import method as M
from icml26.science.cadfit.setting import FAMILIES, make_part, noisy_mesh, part_seed

ARMS = ("cadfit", "extrude_only", "open_union", "open_top3", "best_single", "bbox")
CONTROLS = ("open_union", "open_top3", "best_single", "bbox")
LABELS = {"cadfit": "CADFit", "extrude_only": "CADFit, extrude only", "open_union": "open loop: union of all",
          "open_top3": "open loop: top-3 by fit", "best_single": "best single candidate",
          "bbox": "bounding-box extrusion"}


# --------------------------------------------------------------------------- parts
def parts_for(profile: Profile, seed: int) -> list[tuple[str, Any, Any, bool]]:
    """(name, clean part, input mesh, noisy?) for every part of a seed."""
    out = []
    fams = list(profile["families"])
    for i, fam in enumerate(fams):
        part = make_part(fam, part_seed(seed, i), name=fam)
        out.append((fam, part, part.mesh, False))
    for j, fam in enumerate(profile["noisy"]):
        part = make_part(fam, part_seed(seed, 100 + j), name=f"{fam}+noise")
        mesh = noisy_mesh(part.mesh, float(profile["noise"]), seed=int(part_seed(seed, 200 + j).integers(2**31)))
        out.append((f"{fam}+noise", part, mesh, True))
    return out


def _program_for(cands: list[M.Candidate]) -> str:
    return M.program_script(cands) if cands else "import cadquery as cq\nresult = None\n"


def _bbox_script(bounds: np.ndarray) -> str:
    lo, hi = bounds
    c, s = 0.5 * (lo + hi), hi - lo
    return ("import cadquery as cq\n"
            f"result = cq.Workplane('XY').box({s[0]:.5f}, {s[1]:.5f}, {s[2]:.5f})"
            f".translate(({c[0]:.5f}, {c[1]:.5f}, {c[2]:.5f})).val()\n")


def _score(shape: Any, part: Any, clean_oracle: M.Oracle, n_cd: int, seed: int) -> tuple[float, float]:
    """(IoU, Chamfer) of a program's solid with the clean target; an invalid program: (0, nan)."""
    if not M.valid_solid(shape):
        return 0.0, float("nan")
    iou = clean_oracle.iou(shape)
    try:
        mesh = M.shape_to_mesh(shape, clean_oracle.tess_tol)
        cd = chamfer(sample_surface(mesh, n_cd, seed), sample_surface(part.mesh, n_cd, seed + 1))
    except Exception:  # noqa: BLE001
        cd = float("nan")
    return float(iou), float(cd)


def _score_union(cands: list[M.Candidate], part: Any, clean_oracle: M.Oracle, n_cd: int,
                 seed: int) -> tuple[float, float]:
    """(IoU, Chamfer) of the union of candidate solids, built with manifold3d from their meshes."""
    import manifold3d
    import trimesh

    u = manifold3d.Manifold.batch_boolean([c.manifold for c in cands], manifold3d.OpType.Add)
    iou = clean_oracle.iou_manifold(u)
    m = u.to_mesh()
    mesh = trimesh.Trimesh(np.asarray(m.vert_properties)[:, :3], np.asarray(m.tri_verts), process=False)
    cd = chamfer(sample_surface(mesh, n_cd, seed), sample_surface(part.mesh, n_cd, seed + 1))
    return float(iou), float(cd)


def fit_part(part: Any, mesh: Any, cfg: M.Config, seed: int, n_cd: int) -> tuple[dict, dict[str, str]]:
    """Every arm on one part: (per-arm numbers, emitted scripts to re-execute)."""
    t0 = time.perf_counter()
    prep = M.prepare(mesh, cfg, seed)
    t_prep = time.perf_counter() - t0
    full = M.fit(prep, cfg)
    ext = M.fit(prep, M.with_ops(cfg, ("extrude",)))
    t_fit = time.perf_counter() - t0
    good = [c for c in prep.candidates if c.valid]
    shapes: dict[str, Any] = {"cadfit": full.shape, "extrude_only": ext.shape}
    scripts: dict[str, str] = {"cadfit": full.script}
    # open loop, no IoU feedback. Top-3 by geometric fit: the programs go in unexecuted (so they may fail).
    # Union of all: every candidate the kernel can execute (a validity filter, still no IoU feedback),
    # scored as a manifold3d union of their meshes (fusing 20-40 overlapping solids in OpenCascade takes
    # seconds per part on our CPUs).
    allc = list(prep.candidates)
    top3 = sorted(allc, key=lambda c: c.fit_cd)[:3]
    scripts["open_top3"] = _program_for(top3)
    shapes["open_top3"] = M.run_script(scripts["open_top3"])
    union_ok = bool(good)
    best = max(good, key=lambda c: c.iou) if good else None
    shapes["best_single"] = best.shape if best is not None else None
    shapes["bbox"] = M.run_script(_bbox_script(prep.bounds))
    clean = M.Oracle(part.mesh, cfg.tess_tol)
    out: dict[str, Any] = {}
    for arm in ARMS:
        if arm != "open_union":
            out[f"iou/{arm}"], out[f"cd/{arm}"] = _score(shapes[arm], part, clean, n_cd, seed)
    out["iou/open_union"], out["cd/open_union"] = _score_union(good, part, clean, n_cd, seed) if union_ok \
        else (0.0, float("nan"))
    out["all_execute"] = float(all(c.executed for c in allc))
    out["iou_search/cadfit"] = full.iou
    out["iou_greedy/cadfit"] = full.iou_greedy
    out["in_loop_valid/cadfit"] = float(full.in_loop_valid)
    out["n_ops/cadfit"] = float(len(full.ops))
    out["n_edge_ops/cadfit"] = float(sum(o in ("fillet", "chamfer") for o in full.ops))
    out["n_revolve/cadfit"] = float(sum(o == "revolve" for o in full.ops))
    out["n_candidates"] = float(len(prep.candidates))
    out["n_candidates_valid"] = float(len(good))
    out["evals/cadfit"] = float(full.evals)
    out["timing/prepare_s"] = t_prep
    out["timing/fit_s"] = t_fit
    return out, scripts


def run(profile: Profile, seed: int) -> dict:
    seed_everything(seed)
    cfg = M.Config(n_surface=int(profile["n_surface"]), max_edges=int(profile["max_edges"]))
    n_cd = int(profile["n_chamfer"])
    rows: list[dict] = []
    scripts: dict[str, str] = {}
    meta: dict[str, list] = {"part": [], "family": [], "kind": [], "in_vocab": [], "noisy": [], "gt_ops": []}
    for k, (name, part, mesh, noisy) in enumerate(parts_for(profile, seed)):
        row, sc = fit_part(part, mesh, cfg, seed, n_cd)
        rows.append(row)
        for arm, text in sc.items():
            scripts[f"p{k:02d}_{arm}"] = text
        meta["part"].append(name)
        meta["family"].append(part.family)
        meta["kind"].append(part.kind)
        meta["in_vocab"].append(float(part.in_vocab))
        meta["noisy"].append(float(noisy))
        meta["gt_ops"].append(float(part.n_ops))
    t0 = time.perf_counter()
    fresh = M.reexecute_scripts(scripts)
    t_fresh = time.perf_counter() - t0
    out: dict[str, Any] = dict(meta)
    for key in rows[0]:
        out[key] = [r[key] for r in rows]
    for arm in ("cadfit", "open_top3"):
        out[f"invalid/{arm}"] = [0.0 if fresh.get(f"p{k:02d}_{arm}", {}).get("valid") else 1.0
                                 for k in range(len(rows))]
    out["all_candidates_execute"] = [r["all_execute"] for r in rows]
    out["timing/fresh_process_s"] = t_fresh
    iou = np.asarray(out["iou/cadfit"], dtype=float)
    noisy = np.asarray(meta["noisy"]) > 0.5
    out["iou_mean/cadfit"] = float(iou.mean())
    out["iou_noisy/cadfit"] = float(iou[noisy].mean()) if noisy.any() else float("nan")
    return out


# --------------------------------------------------------------------------- pooled helpers
def _pool(ms: list[dict], key: str) -> np.ndarray:
    return np.concatenate([np.asarray(m[key], dtype=float) for m in ms]) if ms else np.zeros(0)


def _pool_str(ms: list[dict], key: str) -> list[str]:
    return [x for m in ms for x in m[key]]


def _n_seeds_reason(ms: list[dict], need: int) -> str | None:
    if len(ms) < need:
        return f"too few seeds: {len(ms)} < {need} (the pooled part-level tests are run only with >= {need} seeds)"
    return None


# --------------------------------------------------------------------------- claim 1
BEAT_FRAC, BEAT_ALPHA, INVOCAB_IOU = 0.8, 0.05, 0.95


def check_beats_controls(ms: list[dict]) -> Verdict:
    """Pre-registered: pooled over parts x seeds, CADFit's IoU is higher than each control's on
    >= 80% of parts and a one-sided Wilcoxon signed-rank test (CADFit > control) gives p < 0.05,
    and CADFit's mean IoU on in-vocabulary parts (clean and noisy inputs) is >= 0.95. Reproduced
    if all of that holds against all four controls; partly if the IoU bar holds and CADFit passes
    against at least one control (or passes every test but the 80% count against some); else not
    reproduced. Chamfer distances are reported beside.

    Added by review after the full run (reporting only; the rule above and the verdict are
    unchanged): the tests treat the pooled parts as independent pairs. Each part's sizes (and
    noise) come from its own generator, so parts are independent draws, but not identically
    distributed: they come from a few families and the differences are family-driven, so the
    p-values speak for this family mix, not for CAD parts at large. The evidence also repeats
    the open-loop top-3 comparison without the parts where that program re-executed to one valid
    solid but our scorer gave IoU 0 (its tessellation is not a closed 2-manifold for manifold3d;
    the official iou.py would alpha-wrap it), and says on which families CADFit beats the best
    single candidate."""
    # (nested so that it stays claim code, outside the run fingerprint)
    def _review_notes_beats(ms: list[dict], cf: np.ndarray) -> str:
        """Reporting added by review (no effect on the verdict): independence, scorer artefacts, families."""
        fam = np.array(_pool_str(ms, "part"))
        fams = sorted(set(fam), key=list(fam).index)
        out = [f" | review notes (after the full run; verdict rule unchanged): the Wilcoxon tests treat the "
               f"{cf.size} parts ({len(fams)} part types x {len(ms)} seeds) as independent pairs: each part's sizes "
               "and noise come from its own generator, so they are independent but not identically distributed, "
               "and the p-values speak for this mix of part types, not for CAD parts at large"]
        top = _pool(ms, "iou/open_top3")
        try:
            inv = _pool(ms, "invalid/open_top3")
        except KeyError:
            inv = np.ones_like(top)
        art = (top == 0) & (inv < 0.5)
        if art.any():
            keep = ~art
            frac = float(np.mean(cf[keep] > top[keep] + 1e-4))
            p = paired_test(cf[keep], top[keep], alternative="greater", method="wilcoxon")
            where = sorted(set(fam[art]))
            cd_t, cd_c = _pool(ms, "cd/open_top3")[art], _pool(ms, "cd/cadfit")[art]
            out.append(f"open loop top-3 scores IoU 0 on {int(art.sum())} parts ({', '.join(where)}) whose program "
                       "re-executes to one valid solid: our scorer failed there, not the program (checked by review on "
                       "seed 0's pulley: the fused solid's tessellation is not a closed 2-manifold for manifold3d, and "
                       "the union of its candidates' meshes scores IoU 0.998; the official iou.py would alpha-wrap "
                       f"it); its Chamfer distance there is {np.nanmean(cd_t):.4f} vs CADFit's {np.nanmean(cd_c):.4f}, "
                       "so that control is handicapped by our IoU code; without those parts its IoU is "
                       f"{top[keep].mean():.3f} vs CADFit {cf[keep].mean():.3f}, CADFit higher on {frac:.0%} of "
                       f"{int(keep.sum())}, {fmt_p(p)}")
        bs = _pool(ms, "iou/best_single")
        win = cf > bs + 1e-4
        if win.any():
            out.append("CADFit above the best single candidate only on " + ", ".join(
                f"{f} ({int(win[fam == f].sum())}/{int((fam == f).sum())})" for f in fams if win[fam == f].any())
                + f"; equal within 1e-4 or below on the other {int((~win).sum())} parts")
        return "; ".join(out)

    cf = _pool(ms, "iou/cadfit")
    invoc = _pool(ms, "in_vocab") > 0.5
    mean_in = float(cf[invoc].mean()) if invoc.any() else float("nan")
    iou_ok = bool(mean_in >= INVOCAB_IOU)
    parts, full_pass, test_pass = [], [], []
    for arm in CONTROLS:
        ctl = _pool(ms, f"iou/{arm}")
        frac = float(np.mean(cf > ctl + 1e-4))
        p = paired_test(cf, ctl, alternative="greater", method="wilcoxon")
        full_pass.append(frac >= BEAT_FRAC and p < BEAT_ALPHA)
        test_pass.append(p < BEAT_ALPHA)
        parts.append(f"{LABELS[arm]} IoU {ctl.mean():.3f}, CD {np.nanmean(_pool(ms, f'cd/{arm}')):.3f}: "
                     f"CADFit higher on {frac:.0%}, {fmt_p(p)}")
    # changed by review after the full run (partly -> not-reproduced): 'partly' needs a part the strongest
    # control (the best single candidate, put in CADFit's place by control_beats_controls) fails: CADFit
    # passes against a control that the best single candidate does not pass against, or CADFit's Wilcoxon
    # test against the best single candidate itself is met. Full run: CADFit passes against the open-loop
    # union and the bounding box only, and the best single candidate passes against both too (80%,
    # p=0.0034 and 80%, p=0.0004); CADFit vs the best single candidate: higher on 20% of parts, p=0.112.
    bs = _pool(ms, "iou/best_single")
    dist = []
    for arm, fp, tp in zip(CONTROLS, full_pass, test_pass):
        if arm == "best_single":
            if tp:
                dist.append(LABELS[arm])
            continue
        ctl = _pool(ms, f"iou/{arm}")
        bs_pass = (float(np.mean(bs > ctl + 1e-4)) >= BEAT_FRAC
                   and paired_test(bs, ctl, alternative="greater", method="wilcoxon") < BEAT_ALPHA)
        if fp and not bs_pass:
            dist.append(LABELS[arm])
    reason = _n_seeds_reason(ms, 2)
    if reason:
        status = "not-checkable"
    elif iou_ok and all(full_pass):
        status = "reproduced"
    elif iou_ok and (any(full_pass) or all(test_pass)) and dist:
        status = "partly"
    else:
        status = "not-reproduced"
    dist_txt = ("; partly needs a part the best single candidate, in CADFit's place, fails (a control CADFit passes "
                "against and it does not, or CADFit's test against it): " + (", ".join(dist) if dist else "none")
                + " (changed by review after the full run: partly -> not-reproduced)")
    lo, hi = bootstrap_ci(cf)
    notes = _review_notes_beats(ms, cf)
    return Verdict(
        status,
        f"CADFit IoU {cf.mean():.3f} [{lo:.3f}, {hi:.3f}] over {cf.size} parts (in-vocabulary {mean_in:.3f}), "
        f"CD {np.nanmean(_pool(ms, 'cd/cadfit')):.4f}",
        (reason + "; " if reason else "") + "rule: " + (check_beats_controls.__doc__ or "").split("Pre-registered: ")[1]
        .split("\n\n")[0].replace("\n   ", "").replace("  ", " ") + " | " + "; ".join(parts)
        + f"; {len(ms)} seeds; passes all rules against {sum(full_pass)}/{len(CONTROLS)} controls" + dist_txt + notes,
        value=float(cf.mean()), ci=(lo, hi),
        control="; ".join(f"{LABELS[a]}: {_pool(ms, f'iou/{a}').mean():.3f}" for a in CONTROLS))


def control_beats_controls(ms: list[dict]) -> list[dict]:
    """The strongest control (best single candidate) in CADFit's place."""
    return [dict(m) | {"iou/cadfit": list(m["iou/best_single"]), "cd/cadfit": list(m["cd/best_single"])} for m in ms]


def contradict_beats_controls(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"iou/cadfit": [0.5 * x for x in m["iou/bbox"]]} for m in ms]


# --------------------------------------------------------------------------- claim 2
INVALID_MAX = 0.05


def _terciles(ops: np.ndarray) -> np.ndarray:
    """0/1/2 tercile of each part by ground-truth op count (ties share the upper tercile bound)."""
    q1, q2 = np.quantile(ops, [1 / 3, 2 / 3])
    return np.where(ops >= q2, 2, np.where(ops > q1, 1, 0)) if q2 > q1 else np.where(ops > q1, 2, 0)


def check_invalid_ratio(ms: list[dict]) -> Verdict:
    """Pre-registered: re-executed in a fresh Python process, CADFit's emitted programs fail to
    give one valid solid on <= 5% of parts (pooled over seeds), and in the top tercile of
    ground-truth op count its invalid rate is below the open-loop top-3-by-fit program's.
    Reproduced if both; partly if only the 5% bound holds; else not reproduced.

    Wording corrected by review after the full run: this docstring used to name the open-loop
    "union-of-all" program as the control, but the code has always compared with the top-3 program
    (the union of all is scored as a mesh union and never emitted as a program); nothing else
    changed. Note: CADFit's bound is close to true by construction (every emitted program was
    executed in the loop; a fresh process can only differ by kernel state), so the informative half
    is the comparison, and the open-loop programs, fused from 3 single-operation candidates, did
    not fail either."""
    inv = _pool(ms, "invalid/cadfit")
    ctl = _pool(ms, "invalid/open_top3")
    ter = _terciles(_pool(ms, "gt_ops"))
    top = ter == 2
    rate, ctl_rate = float(inv.mean()), float(ctl.mean())
    top_rate = float(inv[top].mean()) if top.any() else float("nan")
    top_ctl = float(ctl[top].mean()) if top.any() else float("nan")
    by = "; ".join(f"tercile {t}: CADFit {inv[ter == t].mean():.0%} vs open loop {ctl[ter == t].mean():.0%} "
                   f"({int((ter == t).sum())} parts)" for t in (0, 1, 2) if (ter == t).any())
    ok_bound = rate <= INVALID_MAX
    ok_top = bool(top.any() and top_rate < top_ctl)
    status = "reproduced" if ok_bound and ok_top else ("partly" if ok_bound else "not-reproduced")
    return Verdict(status, f"invalid ratio (fresh process) CADFit {rate:.1%} over {inv.size} parts; top tercile "
                           f"{top_rate:.0%}",
                   f"rule: <= {INVALID_MAX:.0%} invalid overall and below the open-loop (top-3 by fit) rate in the "
                   f"top op-count tercile; partly if only the bound holds | {by}; {len(ms)} seeds | review note (after "
                   "the first full run, rule unchanged): the bound is close to true by construction (each emitted "
                   "program was already executed in the loop); "
                   + ("the open-loop control (3 single-operation candidates fused) never failed either, so this run "
                      "shows no validity advantage over an open-loop program; " if ctl_rate == 0 else
                      "the open-loop control (3 single-operation candidates fused without execution feedback) fails "
                      "to re-execute to one valid solid in some parts (in the first full run, before tessellations "
                      "were put in a canonical order, it never failed: its top-3 then held other candidates); ")
                   + "the paper's contrast is with learned code generators, which we cannot run",
                   value=rate, control=f"open loop (top-3 by fit, fresh process): {ctl_rate:.1%} overall, {top_ctl:.0%} in the top "
                                       "tercile")


def control_invalid_ratio(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"invalid/cadfit": list(m["invalid/open_top3"])} for m in ms]


def contradict_invalid_ratio(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"invalid/cadfit": [1.0] * len(m["invalid/cadfit"])} for m in ms]


# --------------------------------------------------------------------------- claim 3
RICH_GAIN, RICH_LOSS = 0.05, 0.01
RICH_KINDS = ("revolve", "edge")


def check_richer_ops(ms: list[dict]) -> Verdict:
    """Pre-registered: on revolve and fillet/chamfer parts (pooled over seeds, clean and noisy),
    CADFit's mean IoU gain over extrude-only CADFit is >= 0.05 with a one-sided Wilcoxon p < 0.05,
    and on extrude parts no part loses more than 0.01 IoU. Reproduced if all hold; partly if
    the gain is significant but below 0.05, or per kind the gain holds for one of revolve /
    fillet-chamfer; else not reproduced.

    Rule revised after the full run by review: "reproduced" now also needs a mean gain >= 0.05 in
    each rich kind present (revolve, fillet/chamfer), as the claim's statement asserts a gain on
    both. Under the pooled rule alone a kind with no gain at all can be carried by the other: in
    the full run the pooled gain (+0.065) came entirely from the revolve parts (+0.097) while the
    chamfered blocks gained +0.000, and the pooled rule said reproduced; the revised rule says
    partly. Stored metrics are unchanged."""
    cf, ex = _pool(ms, "iou/cadfit"), _pool(ms, "iou/extrude_only")
    kind = np.array(_pool_str(ms, "kind"))
    rich = np.isin(kind, RICH_KINDS)
    plain = kind == "extrude"
    d = cf - ex
    gain = float(d[rich].mean()) if rich.any() else float("nan")
    p = paired_test(cf[rich], ex[rich], alternative="greater", method="wilcoxon") if rich.any() else 1.0
    worst = float(d[plain].min()) if plain.any() else 0.0
    per = {k: float(d[kind == k].mean()) for k in RICH_KINDS if (kind == k).any()}
    ok_gain = gain >= RICH_GAIN and p < 0.05
    ok_plain = worst >= -RICH_LOSS
    reason = _n_seeds_reason(ms, 2)
    if reason:
        status = "not-checkable"
    elif ok_gain and ok_plain and all(v >= RICH_GAIN for v in per.values()):
        status = "reproduced"
    elif (p < 0.05 and gain > 0) or any(v >= RICH_GAIN for v in per.values()):
        status = "partly"
    else:
        status = "not-reproduced"
    return Verdict(
        status,
        f"IoU gain over extrude-only on revolve/fillet/chamfer parts {gain:+.3f} ({fmt_p(p)}, {int(rich.sum())} parts; "
        + ", ".join(f"{k} {v:+.3f}" for k, v in per.items()) + f"); worst change on extrude parts {worst:+.3f}",
        (reason + "; " if reason else "") + f"rule: mean gain >= {RICH_GAIN} with one-sided Wilcoxon p < 0.05 on "
        f"revolve/edge parts, a mean gain >= {RICH_GAIN} in each of those kinds present, and no extrude part losing "
        f"more than {RICH_LOSS}; partly if the gain is significant but small or holds for one kind (rule revised "
        "after the full run by review: the per-kind condition for 'reproduced' was added, because the claim asserts "
        "a gain on revolved and on filleted/chamfered parts; the pre-registered pooled rule gave reproduced); "
        + ", ".join(f"{k}: {int((d[kind == k] > 1e-4).sum())}/{int((kind == k).sum())} parts gain" for k in per)
        + f"; CADFit {cf[rich].mean():.3f} vs extrude-only {ex[rich].mean():.3f} on the rich parts; {len(ms)} seeds"
        + ("; review note: on the chamfered blocks the extrusions of side sections already carry the chamfers, and "
           "the remaining error is the bore, which a union of extrusions cannot cut (no residual round), so edge "
           "refinement had nothing to add there (checked by review on seed 0 with all 38 edges probed, not only "
           "6: no gain); the part set holds no part whose error edge operations could remove"
           if "edge" in per and per["edge"] < RICH_GAIN else ""),
        value=gain, control=f"extrude-only CADFit: {ex[rich].mean():.3f} on revolve/edge parts, "
                            f"{ex[plain].mean() if plain.any() else float('nan'):.3f} on extrude parts")


def control_richer_ops(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"iou/cadfit": list(m["iou/extrude_only"])} for m in ms]


def contradict_richer_ops(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"iou/cadfit": [x - 0.2 for x in m["iou/extrude_only"]]} for m in ms]


# --------------------------------------------------------------------------- identity
def check_in_loop_validity(ms: list[dict]) -> Verdict:
    """By construction every program CADFit returns was executed in the loop to one valid solid:
    the in-loop validity flag is 1 on every part (an identity of the algorithm, not a result)."""
    v = _pool(ms, "in_loop_valid/cadfit")
    ok = bool(v.size and (v == 1).all())
    return Verdict("reproduced" if ok else "not-reproduced", f"in-loop valid on {int(v.sum())}/{v.size} parts",
                   f"rule: every returned program executed in the loop to one valid solid; {len(ms)} seeds",
                   value=float(v.mean()) if v.size else None)


def contradict_in_loop_validity(ms: list[dict]) -> list[dict]:
    return [dict(m) | {"in_loop_valid/cadfit": [0.0] * len(m["in_loop_valid/cadfit"])} for m in ms]


# --------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4))
    ax1, ax2 = fig.subplots(1, 2)
    fams = _pool_str(ms, "part")
    names = sorted(set(fams), key=fams.index)
    x = np.arange(len(names))
    w = 0.8 / len(ARMS)
    for k, arm in enumerate(ARMS):
        v = _pool(ms, f"iou/{arm}")
        means = [float(np.mean([v[i] for i, f in enumerate(fams) if f == n])) for n in names]
        ax1.bar(x + (k - len(ARMS) / 2) * w, means, w, label=LABELS[arm])
    ax1.axhline(INVOCAB_IOU, color="k", ls=":", lw=1, label="0.95 bar (in-vocabulary)")
    ax1.set_xticks(x)
    ax1.set_xticklabels(names, rotation=45, ha="right", fontsize=7)
    ax1.set_ylabel("volumetric IoU with the clean target")
    ax1.set_xlabel("part family")
    ax1.set_ylim(0, 1.05)
    ax1.legend(fontsize=6, loc="lower left")
    ax1.set_title(f"IoU by part family, mean over {len(ms)} seeds")
    cf, ex = _pool(ms, "iou/cadfit"), _pool(ms, "iou/extrude_only")
    kind = _pool_str(ms, "kind")
    for kd, c in zip(("extrude", "revolve", "edge", "oov"), ("C0", "C1", "C2", "C3")):
        i = [j for j, k in enumerate(kind) if k == kd]
        ax2.scatter(ex[i], cf[i], s=14, color=c, label=kd)
    ax2.plot([0, 1], [0, 1], "k:", lw=1)
    ax2.set_xlabel("IoU, extrude-only CADFit")
    ax2.set_ylabel("IoU, CADFit (extrude, revolve, fillet, chamfer)")
    ax2.legend(fontsize=7)
    ax2.set_title("richer operation set vs extrude only")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- bad-input examples
def EXAMPLES() -> list[tuple]:
    """Public functions of the method with good arguments, for the common bad-input test."""
    t = np.linspace(-1.0, 1.0, 201)
    cd = np.where(np.abs(t) < 0.5, 0.01, 0.01 + 2 * (np.abs(t) - 0.5))
    sq = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    circ = np.stack([np.cos(np.linspace(0, 2 * np.pi, 40, endpoint=False)),
                     np.sin(np.linspace(0, 2 * np.pi, 40, endpoint=False))], axis=1)
    return [
        (M.extrusion_intervals, {"t": t, "cd": cd, "deriv_max": 0.2, "cd_max": 0.05, "max_intervals": 5}),
        (M.fit_loop, {"points": circ, "rel_tol": 0.01}),
        (M.loop_area, {"points": sq}),
        (M.symmetry_ratio, {"points": circ, "angle_deg": 30.0, "tol": 0.03}),
        (M.refine_axis, {"points": sq, "point": np.array([0.5, 0.5]), "direction": np.array([1.0, 0.0]),
                         "angle_deg": 3.0, "offset_frac": 0.03, "n": 5}),
        (M.plane_frame, {"normal": np.array([0.0, 0.0, 1.0])}),
    ]


_ = (C, FAMILIES)
