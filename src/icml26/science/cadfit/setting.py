"""The simulated world of the CADFit reproduction: procedural CadQuery parts and their meshes.

The paper (arXiv 2605.01171) reconstructs meshes of real CAD models (DeepCAD, Fusion 360,
...). Those benchmarks are not shipped here, so each seed draws random dimensions for a set of
part *families* built with CadQuery, whose construction (the ground-truth operations) we know:

=================  ===========  ===========================================================
family             kind         construction (ground-truth operations)
=================  ===========  ===========================================================
plate_holes        extrude      box + 2-4 through holes
bracket            extrude      base plate with 1-2 holes + an upright plate (two extrusions)
boss_plate         extrude      plate + cylindrical boss + a bore through both
turned_shaft       revolve      one revolve of a stepped profile with a conical taper
pulley             revolve      one revolve of a V-grooved wheel profile with a bore
filleted_block     edge         box + a hole + fillets on the top edges
chamfered_block    edge         box + a hole + chamfers on the top edges
loft               oov          loft from a rectangle to a circle (outside CADFit's op set)
draft              oov          tapered (drafted) extrusion of a rectangle (outside the op set)
=================  ===========  ===========================================================

Every part is translated and scaled so that its bounding box is centred at the origin with
longest side 2 (the paper's [-1, 1]^3 normalisation), so CADFit's thresholds (Chamfer 0.05,
probe size 0.02, fillet sweep 0.16 -> 0.02) apply in the same units. A part's mesh is the
CadQuery tessellation; a *noisy* input adds Gaussian noise to the vertices of that mesh
(``noisy_mesh``), the method then sees only the noisy mesh and is scored against the clean one.

CadQuery is imported inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.core.validate import as_rng, check_positive

#: family -> (kind, in CADFit's vocabulary)
FAMILIES: dict[str, tuple[str, bool]] = {
    "plate_holes": ("extrude", True),
    "bracket": ("extrude", True),
    "boss_plate": ("extrude", True),
    "turned_shaft": ("revolve", True),
    "pulley": ("revolve", True),
    "filleted_block": ("edge", True),
    "chamfered_block": ("edge", True),
    "loft": ("oov", False),
    "draft": ("oov", False),
}


@dataclass
class Part:
    """A normalised procedural part: its CadQuery solid, its construction and its mesh."""

    name: str
    family: str
    kind: str
    in_vocab: bool
    gt_ops: list[str]
    solid: Any = field(repr=False)
    mesh: Any = field(default=None, repr=False)

    @property
    def n_ops(self) -> int:
        return len(self.gt_ops)


def _normalise(shape: Any) -> Any:
    """Centre the bounding box at 0 and scale its longest side to 2."""
    import cadquery as cq

    bb = shape.BoundingBox()
    c = cq.Vector((bb.xmin + bb.xmax) / 2, (bb.ymin + bb.ymax) / 2, (bb.zmin + bb.zmax) / 2)
    size = max(bb.xlen, bb.ylen, bb.zlen)
    return shape.translate(-c).scale(2.0 / size)


def _holes(rng: np.random.Generator, n: int, w: float, d: float, r: float, margin: float) -> list[tuple[float, float]]:
    """``n`` hole centres in a w x d rectangle, at least ``margin`` from the border, apart by 3r."""
    pts: list[tuple[float, float]] = []
    for _ in range(200):
        if len(pts) == n:
            break
        p = (rng.uniform(-w / 2 + margin, w / 2 - margin), rng.uniform(-d / 2 + margin, d / 2 - margin))
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 3 * r for q in pts):
            pts.append(p)
    return pts


def build_family(family: str, rng: np.random.Generator) -> tuple[Any, list[str]]:
    """(un-normalised CadQuery solid, ground-truth operation list) of one family with random sizes."""
    import cadquery as cq

    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}, got {family!r}")
    u = rng.uniform
    if family == "plate_holes":
        w, d, t = 2.0, u(1.0, 1.6), u(0.2, 0.35)
        n = int(rng.integers(2, 5))
        r = u(0.08, 0.14)
        wp = cq.Workplane("XY").box(w, d, t)
        pts = _holes(rng, n, w, d, r, margin=2 * r)
        solid = wp.faces(">Z").workplane().pushPoints(pts).hole(2 * r).val()
        return solid, ["extrude"] + ["hole"] * len(pts)
    if family == "bracket":
        w, d, t = 2.0, u(1.0, 1.4), u(0.18, 0.3)
        h, w2 = u(0.8, 1.4), u(0.8, 1.4)
        n = int(rng.integers(1, 3))
        r = u(0.08, 0.12)
        base = cq.Workplane("XY").box(w, d, t)
        pts = _holes(rng, n, w * 0.6, d * 0.6, r, margin=2 * r)
        pts = [(p[0] - 0.2 * w, p[1]) for p in pts]
        base = base.faces(">Z").workplane().pushPoints(pts).hole(2 * r)
        up = cq.Workplane("XY").box(w2, t, h).translate((w / 2 - w2 / 2, d / 2 - t / 2, t / 2 + h / 2))
        return base.union(up).val(), ["extrude", "extrude"] + ["hole"] * len(pts)
    if family == "boss_plate":
        w, d, t = 2.0, u(1.2, 1.8), u(0.18, 0.3)
        rb, hb, rr = u(0.3, 0.5), u(0.3, 0.6), u(0.08, 0.15)
        plate = cq.Workplane("XY").box(w, d, t)
        boss = cq.Workplane("XY").circle(rb).extrude(hb).translate((0, 0, t / 2))
        solid = plate.union(boss).faces(">Z").workplane().hole(2 * rr)
        return solid.val(), ["extrude", "extrude", "hole"]
    if family == "turned_shaft":
        r1, r2, r3 = u(0.25, 0.4), u(0.45, 0.6), u(0.2, 0.3)
        l1, l2, l3, l4 = u(0.3, 0.6), u(0.3, 0.6), u(0.3, 0.5), u(0.3, 0.6)
        z = np.cumsum([0, l1, l2, l3, l4])
        prof = [(0, z[0]), (r1, z[0]), (r1, z[1]), (r2, z[1]), (r2, z[2]), (r3, z[3]), (r3, z[4]), (0, z[4])]
        solid = cq.Workplane("XZ").polyline(prof).close().revolve(360, (0, 0, 0), (0, 1, 0)).val()
        return solid, ["revolve"]
    if family == "pulley":
        ro, ri, rb = u(0.9, 1.0), u(0.55, 0.7), u(0.15, 0.25)
        wdt, g = u(0.35, 0.6), u(0.1, 0.16)
        prof = [(rb, 0), (ro, 0), (ro, wdt / 2 - g), (ri + 0.05, wdt / 2), (ro, wdt / 2 + g), (ro, wdt), (rb, wdt)]
        solid = cq.Workplane("XZ").polyline(prof).close().revolve(360, (0, 0, 0), (0, 1, 0)).val()
        return solid, ["revolve"]
    if family in ("filleted_block", "chamfered_block"):
        w, d, h = 2.0, u(1.0, 1.6), u(0.5, 0.9)
        r_norm = u(0.06, 0.15)  # in the normalised frame (longest side 2)
        rh = u(0.1, 0.18)
        wp = cq.Workplane("XY").box(w, d, h).faces(">Z").workplane().hole(2 * rh)
        size = r_norm * max(w, d, h) / 2
        wp = wp.edges("|X or |Y").edges(">Z")
        solid = (wp.fillet(size) if family == "filleted_block" else wp.chamfer(size)).val()
        return solid, ["extrude", "hole", "fillet" if family == "filleted_block" else "chamfer"]
    if family == "loft":
        w, d, h, r = 2.0, u(1.2, 1.8), u(0.8, 1.5), u(0.3, 0.5)
        solid = cq.Workplane("XY").rect(w, d).workplane(offset=h).circle(r).loft().val()
        return solid, ["loft"]
    # draft
    w, d, h, ang = 2.0, u(1.0, 1.6), u(0.6, 1.0), u(6.0, 12.0)
    solid = cq.Workplane("XY").rect(w, d).extrude(h, taper=ang).val()
    return solid, ["extrude-draft"]


def make_part(family: str, seed: Any = 0, name: str = "") -> Part:
    """One normalised part of ``family`` with random sizes drawn from ``seed``; mesh attached."""
    if not isinstance(family, str):
        raise TypeError(f"family must be a str, got {type(family).__name__}")
    rng = as_rng("seed", seed)
    solid, ops = build_family(family, rng)
    solid = _normalise(solid)
    kind, vocab = FAMILIES[family]
    from icml26.science.cadfit.method import shape_to_mesh

    return Part(name or family, family, kind, vocab, ops, solid, shape_to_mesh(solid, 0.003, 0.15))


def noisy_mesh(mesh: Any, sigma: float, seed: Any = 0) -> Any:
    """A copy of ``mesh`` with i.i.d. Gaussian noise of std ``sigma`` on every vertex (a scan-like input)."""
    import trimesh

    if not isinstance(mesh, trimesh.Trimesh):
        raise TypeError(f"mesh must be a trimesh.Trimesh, got {type(mesh).__name__}")
    sigma = check_positive("sigma", sigma, strict=False)
    rng = as_rng("seed", seed)
    out = mesh.copy()
    out.vertices = np.asarray(mesh.vertices) + sigma * rng.standard_normal(mesh.vertices.shape)
    return out


def part_seed(seed: int, index: int) -> np.random.Generator:
    """The generator of the ``index``-th part of a seed (a part's sizes depend on (seed, index) only)."""
    return np.random.default_rng([int(seed), int(index), 2605])
