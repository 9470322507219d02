"""The simulated world of the VCG-Bench reproduction: procedural mxGraph diagrams, a Pillow renderer
for an mxGraph subset, a colour-component parser, and Task-2 editing triples.

VCG-Bench (arXiv 2605.15677) renders every diagram with the Draw.io desktop app, which is on neither
PyPI nor Debian. We render the subset of mxGraph our diagrams (and the released example) use:

* vertices: rectangles (``rounded``), ``ellipse``, ``rhombus`` and ``text`` cells, with ``fillColor``,
  ``strokeColor`` (``none`` allowed), ``fontColor`` (``dashed`` is accepted and drawn solid); HTML labels are reduced to their text;
  children of a vertex are placed relative to it (Draw.io's group/swimlane convention);
* edges: a straight segment between the centres of ``source`` and ``target``, or between the
  geometry's ``sourcePoint``/``targetPoint``; an arrow head unless ``endArrow=none``.

The renderer is strict where Draw.io would refuse a file (unknown parent, source or target, a
vertex without geometry, non-finite or negative sizes, duplicate ids): it raises ``DiagramError``,
which the execution-success rate counts as a failure. Drawing happens in page units scaled by
``scale``; our diagrams use a 160 x 120 page, rendered at ``scale=0.5`` (80 x 60 pixels) for the
learned editing arms.

Task 2 triples: a diagram, an instruction ("make the box labelled 'Billing' red" or "make the green
box red": one recolouring edit, reference by label or by current colour), and the target diagram.
Instructions are also given as three tokens (reference mode, reference, new colour), which both
learned arms read, and as XML-checkable requirements (the deterministic stand-in for XDRFR's
judge-decomposed questions).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

PAGE = (160, 120)  # page width, height in mxGraph units

#: the fill palette: name -> hex; distinct fills within a diagram make colour references unambiguous
PALETTE: dict[str, str] = {
    "red": "#ff6666", "green": "#66cc66", "blue": "#6699ff", "yellow": "#ffdd44",
    "orange": "#ff9933", "purple": "#b366e6", "grey": "#999999", "teal": "#33cccc",
}
COLOURS = tuple(PALETTE)
LABELS = ("Start", "Billing", "Users", "Audit", "Cache", "Query", "Report", "Login", "Store", "Sync",
          "Plan", "Ship")
FAMILIES = ("flowchart", "org", "gantt", "architecture")


class DiagramError(ValueError):
    """The XML is not an executable mxGraph diagram of the supported subset."""


# ----------------------------------------------------------------------------- diagrams as data
@dataclass
class Cell:
    """One mxCell. ``geom`` is (x, y, w, h) for a vertex; an edge uses source/target or ``points``."""

    id: str
    value: str = ""
    style: dict[str, str] = field(default_factory=dict)
    vertex: bool = False
    edge: bool = False
    parent: str = "1"
    geom: tuple[float, float, float, float] | None = None
    source: str | None = None
    target: str | None = None
    points: tuple[tuple[float, float], tuple[float, float]] | None = None


def style_to_str(style: dict[str, str]) -> str:
    """``{'rounded': '1', 'ellipse': ''}`` -> ``'rounded=1;ellipse;'`` (Draw.io's style string)."""
    return "".join(f"{k}={v};" if v != "" else f"{k};" for k, v in style.items())


def parse_style(text: str) -> dict[str, str]:
    """The inverse of :func:`style_to_str`; bare flags map to ``''``."""
    out: dict[str, str] = {}
    for part in (text or "").split(";"):
        part = part.strip()
        if not part:
            continue
        k, eq, v = part.partition("=")
        out[k.strip()] = v.strip() if eq else ""
    return out


def _q(s: str) -> str:
    return html.escape(str(s), quote=True)


def cell_line(c: Cell) -> str:
    """One cell as one line of XML (so a Task-2 fragment is exactly one line)."""
    attrs = [f'id="{_q(c.id)}"']
    if c.id != "0":
        attrs.append(f'value="{_q(c.value)}"')
        attrs.append(f'style="{_q(style_to_str(c.style))}"')
    if c.vertex:
        attrs.append('vertex="1"')
    if c.edge:
        attrs.append('edge="1"')
    if c.id != "0":
        attrs.append(f'parent="{_q(c.parent)}"')
    if c.source is not None:
        attrs.append(f'source="{_q(c.source)}"')
    if c.target is not None:
        attrs.append(f'target="{_q(c.target)}"')
    head = "<mxCell " + " ".join(attrs)
    if c.vertex and c.geom is not None:
        x, y, w, h = c.geom
        return head + f'><mxGeometry x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" as="geometry" /></mxCell>'
    if c.edge:
        inner = '<mxGeometry relative="1" as="geometry"'
        if c.points is not None:
            (sx, sy), (tx, ty) = c.points
            inner += (f'><mxPoint x="{sx:g}" y="{sy:g}" as="sourcePoint" /><mxPoint x="{tx:g}" y="{ty:g}" '
                      'as="targetPoint" /></mxGeometry>')
        else:
            inner += " />"
        return head + ">" + inner + "</mxCell>"
    return head + " />"


def to_xml(cells: list[Cell]) -> str:
    """A diagram as mxGraphModel XML, one cell per line, root cells 0 and 1 first."""
    w, h = PAGE
    lines = [f'<mxGraphModel dx="{w}" dy="{h}" grid="1" gridSize="10" page="1" pageWidth="{w}" pageHeight="{h}">',
             "  <root>", '    <mxCell id="0" />', '    <mxCell id="1" parent="0" />']
    lines += ["    " + cell_line(c) for c in cells if c.id not in ("0", "1")]
    lines += ["  </root>", "</mxGraphModel>"]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- parsing and validation
def _num(name: str, v: str | None, default: float = 0.0) -> float:
    if v is None or v == "":
        return default
    try:
        x = float(v)
    except ValueError:
        raise DiagramError(f"{name}={v!r} is not a number") from None
    if not math.isfinite(x):
        raise DiagramError(f"{name}={v!r} is not finite")
    return x


def parse_cells(xml: str) -> list[Cell]:
    """Parse and validate mxGraph XML (untrusted: parsed with ``defusedxml``).

    Accepts ``<mxGraphModel>`` or ``<mxfile><diagram><mxGraphModel>`` (uncompressed). Raises
    :class:`DiagramError` for anything our renderer (standing in for Draw.io) cannot execute.
    """
    from defusedxml import ElementTree as DET

    if not isinstance(xml, str):
        raise TypeError(f"xml must be a str, got {type(xml).__name__}")
    try:
        root = DET.fromstring(xml)
    except Exception as exc:  # ParseError, defusedxml's entity errors
        raise DiagramError(f"XML does not parse: {exc}") from None
    model = root if root.tag == "mxGraphModel" else root.find(".//mxGraphModel")
    if model is None:
        raise DiagramError("no <mxGraphModel> (compressed diagrams are not supported)")
    r = model.find("root")
    if r is None:
        raise DiagramError("<mxGraphModel> has no <root>")
    cells: list[Cell] = []
    for el in r.iter("mxCell"):
        cid = el.get("id")
        if not cid:
            raise DiagramError("an mxCell has no id")
        c = Cell(id=cid, value=el.get("value", ""), style=parse_style(el.get("style", "")),
                 vertex=el.get("vertex") == "1", edge=el.get("edge") == "1", parent=el.get("parent", ""),
                 source=el.get("source"), target=el.get("target"))
        g = el.find("mxGeometry")
        if c.vertex:
            if g is None:
                raise DiagramError(f"vertex {cid!r} has no mxGeometry")
            x, y = _num("x", g.get("x")), _num("y", g.get("y"))
            w, h = _num("width", g.get("width")), _num("height", g.get("height"))
            if w < 0 or h < 0:
                raise DiagramError(f"vertex {cid!r} has a negative size")
            c.geom = (x, y, w, h)
        elif c.edge and g is not None:
            pts = {p.get("as"): (_num("x", p.get("x")), _num("y", p.get("y"))) for p in g.iter("mxPoint")}
            if "sourcePoint" in pts and "targetPoint" in pts:
                c.points = (pts["sourcePoint"], pts["targetPoint"])
        cells.append(c)
    ids = [c.id for c in cells]
    if len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise DiagramError(f"duplicate cell ids {dup[:5]}")
    known = set(ids)
    if "0" not in known:
        raise DiagramError("root cell id='0' is missing")
    for c in cells:
        if c.id == "0":
            continue
        if c.parent not in known:
            raise DiagramError(f"cell {c.id!r} has unknown parent {c.parent!r}")
        for end in (c.source, c.target):
            if end is not None and end not in known:
                raise DiagramError(f"edge {c.id!r} points to unknown cell {end!r}")
        if c.edge and c.points is None and (c.source is None or c.target is None):
            raise DiagramError(f"edge {c.id!r} has neither source/target nor sourcePoint/targetPoint")
    return cells


# ----------------------------------------------------------------------------- rendering
_TAG = re.compile(r"<[^>]+>")


def label_text(value: str) -> str:
    """An HTML label reduced to its text."""
    return html.unescape(_TAG.sub(" ", html.unescape(value or ""))).replace("\xa0", " ").strip()


def _colour(v: str | None, default: str | None) -> tuple[int, int, int] | None:
    if v is None or v == "" or v == "default":
        v = default
    if v is None or v.lower() == "none":
        return None
    v = v.strip()
    if re.fullmatch(r"#[0-9a-fA-F]{6}", v):
        return tuple(int(v[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    if re.fullmatch(r"#[0-9a-fA-F]{3}", v):
        return tuple(int(ch * 2, 16) for ch in v[1:])  # type: ignore[return-value]
    named = {"white": (255, 255, 255), "black": (0, 0, 0)}
    if v.lower() in named:
        return named[v.lower()]
    raise DiagramError(f"colour {v!r} is not #rrggbb")


def absolute_boxes(cells: list[Cell]) -> dict[str, tuple[float, float, float, float]]:
    """Page-unit boxes (x, y, w, h) of every vertex, with children offset by their vertex ancestors."""
    by_id = {c.id: c for c in cells}
    out: dict[str, tuple[float, float, float, float]] = {}

    def box(cid: str, depth: int = 0) -> tuple[float, float, float, float]:
        if cid in out:
            return out[cid]
        if depth > len(cells):
            raise DiagramError("cyclic parent chain")
        c = by_id[cid]
        x, y, w, h = c.geom  # type: ignore[misc]
        p = by_id.get(c.parent)
        if p is not None and p.vertex:
            px, py, _, _ = box(p.id, depth + 1)
            x, y = x + px, y + py
        out[cid] = (x, y, w, h)
        return out[cid]

    for c in cells:
        if c.vertex:
            box(c.id)
    return out


def render(xml: str, scale: float = 0.5, size: tuple[int, int] | None = None) -> np.ndarray:
    """Render mxGraph XML to an RGB image ``(H, W, 3) uint8``; raises :class:`DiagramError`.

    ``size`` (width, height) in page units defaults to the model's ``pageWidth``/``pageHeight``
    (or the diagram's extent).
    """
    from PIL import Image, ImageDraw, ImageFont

    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not (0 < scale < 50):
        raise ValueError(f"scale must be a number in (0, 50), got {scale!r}")
    cells = parse_cells(xml)
    boxes = absolute_boxes(cells)
    if size is None:
        m = re.search(r'pageWidth="([\d.]+)"[^>]*pageHeight="([\d.]+)"', xml[:2000])
        if m:
            size = (int(float(m.group(1))), int(float(m.group(2))))
        else:
            ext = [(x + w, y + h) for x, y, w, h in boxes.values()] or [(100, 100)]
            size = (int(max(e[0] for e in ext)) + 10, int(max(e[1] for e in ext)) + 10)
    W, H = max(1, round(size[0] * scale)), max(1, round(size[1] * scale))
    if W * H > 4096 * 4096:
        raise DiagramError(f"page {size} too large to render")
    img = Image.new("RGB", (W, H), (255, 255, 255))
    d = ImageDraw.Draw(img)
    fonts: dict[int, Any] = {}

    def font(px: int):
        if px not in fonts:
            fonts[px] = ImageFont.load_default(size=px)
        return fonts[px]

    def centre(cid: str) -> tuple[float, float]:
        x, y, w, h = boxes[cid]
        return (x + w / 2) * scale, (y + h / 2) * scale

    for c in cells:
        s = c.style
        if c.vertex:
            x, y, w, h = boxes[c.id]
            rect = [x * scale, y * scale, (x + w) * scale - 1, (y + h) * scale - 1]
            is_text = "text" in s
            fill = _colour(s.get("fillColor"), None if is_text else "#ffffff")
            stroke = _colour(s.get("strokeColor"), None if is_text else "#000000")
            sw = max(1, round(_num("strokeWidth", s.get("strokeWidth"), 1.0) * scale))
            if rect[2] >= rect[0] and rect[3] >= rect[1] and (fill or stroke):
                if "ellipse" in s or s.get("shape") == "ellipse":
                    d.ellipse(rect, fill=fill, outline=stroke, width=sw)
                elif "rhombus" in s or s.get("shape") == "rhombus":
                    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
                    d.polygon([(cx, rect[1]), (rect[2], cy), (cx, rect[3]), (rect[0], cy)], fill=fill,
                              outline=stroke)
                else:
                    d.rectangle(rect, fill=fill, outline=stroke, width=sw)
            text = label_text(c.value)
            if text:
                fc = _colour(s.get("fontColor"), "#000000") or (0, 0, 0)
                px = max(4, round(_num("fontSize", s.get("fontSize"), 12.0) * scale * 0.8))
                d.text(((x + w / 2) * scale, (y + h / 2) * scale), text[:40], fill=fc, font=font(px), anchor="mm")
        elif c.edge:
            if c.points is not None and (c.source is None or c.target is None):
                (sx, sy), (tx, ty) = c.points
                p0, p1 = (sx * scale, sy * scale), (tx * scale, ty * scale)
            else:
                if c.source not in boxes or c.target not in boxes:
                    raise DiagramError(f"edge {c.id!r} connects a non-vertex")
                p0, p1 = centre(c.source), centre(c.target)  # type: ignore[arg-type]
            col = _colour(s.get("strokeColor"), "#000000")
            if col is None:
                continue
            d.line([p0, p1], fill=col, width=max(1, round(scale)))
            if s.get("endArrow", "classic") != "none":
                ang = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
                a = 4 * max(scale, 0.5)
                tip = p1
                d.polygon([tip, (tip[0] - a * math.cos(ang - 0.5), tip[1] - a * math.sin(ang - 0.5)),
                           (tip[0] - a * math.cos(ang + 0.5), tip[1] - a * math.sin(ang + 0.5))], fill=col)
    return np.asarray(img, dtype=np.uint8)


# ----------------------------------------------------------------------------- procedural diagrams
def make_diagram(rng: np.random.Generator, family: str | None = None) -> list[Cell]:
    """A random diagram of one of four families, vertices clipped to the 160 x 120 page.

    Vertices carry distinct labels and distinct fill colours; edges connect them (the Gantt family
    has none). Edges come first in the list (drawn under the boxes), then vertices in reading order.
    """
    fam = family if family is not None else FAMILIES[int(rng.integers(len(FAMILIES)))]
    if fam not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    n = int(rng.integers(3, 6))
    labels = [LABELS[i] for i in rng.choice(len(LABELS), n, replace=False)]
    colours = [COLOURS[i] for i in rng.choice(len(COLOURS), n, replace=False)]
    W, H = PAGE
    geoms: list[tuple[float, float, float, float]] = []
    edges: list[tuple[int, int]] = []
    shapes = ["rect"] * n
    if fam == "flowchart":  # a vertical chain, maybe one decision
        h = 18
        gap = (H - 10 - n * h) / max(n - 1, 1)
        x0 = float(rng.integers(20, 70))
        for i in range(n):
            geoms.append((x0 + float(rng.integers(-8, 9)), 5 + i * (h + gap), 60, h))
        edges = [(i, i + 1) for i in range(n - 1)]
        shapes[0] = "ellipse"
        if n > 3:
            shapes[int(rng.integers(1, n - 1))] = "rhombus"
    elif fam == "org":  # a root and a row of children
        geoms.append((50 + float(rng.integers(-10, 11)), 10, 60, 22))
        k = n - 1
        w = min(44, (W - 10) / k - 6)
        for i in range(k):
            geoms.append((5 + i * (W - 10) / k + 2, 70 + float(rng.integers(-6, 7)), w, 22))
        edges = [(0, i) for i in range(1, n)]
    elif fam == "gantt":  # bars on rows, no edges
        rowh = (H - 10) / n
        for i in range(n):
            start = float(rng.integers(5, 70))
            length = float(rng.integers(40, W - 5 - int(start) + 1))
            geoms.append((start, 5 + i * rowh + 2, length, rowh - 6))
    else:  # architecture: boxes on a 3 x 2 grid, a few links
        slots = rng.choice(6, n, replace=False)
        for s in slots:
            cx, cy = int(s) % 3, int(s) // 3
            geoms.append((8 + cx * 52 + float(rng.integers(0, 6)), 15 + cy * 55 + float(rng.integers(0, 8)), 42, 28))
        order = rng.permutation(n)
        edges = [(int(order[i]), int(order[i + 1])) for i in range(n - 1)]
        for i in range(n):
            if rng.random() < 0.4:
                shapes[i] = "rounded"
    # vertices in reading order (top to bottom, then left to right)
    idx = sorted(range(n), key=lambda i: (round(geoms[i][1] / 10), geoms[i][0]))
    remap = {old: new for new, old in enumerate(idx)}
    # edges first in document order, so that Draw.io's z-order (document order) puts them under the boxes
    cells: list[Cell] = []
    for j, (a, b) in enumerate(edges):
        st = {"endArrow": "classic", "html": "1", "strokeColor": "#333333"}
        if rng.random() < 0.25:
            st["dashed"] = "1"
        cells.append(Cell(id=f"e{j}", style=st, edge=True, source=f"v{remap[a]}", target=f"v{remap[b]}"))
    for new, old in enumerate(idx):
        st: dict[str, str] = {}
        if shapes[old] == "ellipse":
            st["ellipse"] = ""
        elif shapes[old] == "rhombus":
            st["rhombus"] = ""
        st.update({"whiteSpace": "wrap", "html": "1"})
        if shapes[old] == "rounded":
            st["rounded"] = "1"
        st.update({"fillColor": PALETTE[colours[old]], "strokeColor": "#000000", "fontSize": "12"})
        cells.append(Cell(id=f"v{new}", value=labels[old], style=st, vertex=True, geom=geoms[old]))
    return cells


# ----------------------------------------------------------------------------- Task-2 triples
#: instruction tokens: reference mode, reference (a label or a colour), new colour
VOCAB: tuple[str, ...] = ("<by-label>", "<by-colour>") + LABELS + COLOURS
TOK = {t: i for i, t in enumerate(VOCAB)}


@dataclass
class EditTriple:
    """One Task-2 item: source diagram, instruction (text, tokens, requirements), target diagram."""

    cells: list[Cell]
    target_cells: list[Cell]
    target_id: str
    old_colour: str
    new_colour: str
    text: str
    tokens: tuple[int, int, int]
    requirements: list[tuple[str, ...]]

    @property
    def xml(self) -> str:
        return to_xml(self.cells)

    @property
    def target_xml(self) -> str:
        return to_xml(self.target_cells)


def colour_name(hex_value: str) -> str:
    for k, v in PALETTE.items():
        if v.lower() == hex_value.lower():
            return k
    raise KeyError(hex_value)


def make_triple(rng: np.random.Generator, family: str | None = None) -> EditTriple:
    """A diagram and one recolouring instruction (reference by label or by colour, 50/50)."""
    cells = make_diagram(rng, family)
    verts = [c for c in cells if c.vertex]
    t = verts[int(rng.integers(len(verts)))]
    old = colour_name(t.style["fillColor"])
    used = {colour_name(v.style["fillColor"]) for v in verts}
    free = [c for c in COLOURS if c not in used]
    new = free[int(rng.integers(len(free)))]
    by_label = bool(rng.random() < 0.5)
    if by_label:
        text = f"Change the fill of the box labelled '{t.value}' to {new}."
        tokens = (TOK["<by-label>"], TOK[t.value], TOK[new])
    else:
        text = f"Make the {old} box {new}."
        tokens = (TOK["<by-colour>"], TOK[old], TOK[new])
    target = [replace(c, style=dict(c.style)) for c in cells]
    for c in target:
        if c.id == t.id:
            c.style["fillColor"] = PALETTE[new]
    reqs: list[tuple[str, ...]] = [("style", t.id, "fillColor", PALETTE[new]),
                                   ("value", t.id, t.value)]
    reqs += [("unchanged", c.id) for c in cells if c.id != t.id]
    return EditTriple(cells, target, t.id, old, new, text, tokens, reqs)


def make_triples(n: int, seed: int) -> list[EditTriple]:
    """``n`` triples drawn from ``seed`` alone."""
    rng = np.random.default_rng(seed)
    return [make_triple(rng) for _ in range(n)]


# ----------------------------------------------------------------------------- colour-component parser
def colour_masks(img: np.ndarray, *, tol: float = 30.0, min_area: int = 6,
                 palette: dict[str, str] | None = None) -> dict[str, np.ndarray]:
    """Per palette colour, the (H, W) mask of its connected components of >= ``min_area`` pixels.

    A pixel belongs to colour k when its RGB distance to k is below ``tol`` (palette colours lie
    more than 2 ``tol`` apart). This is the parser that scores both editing arms and, through
    :func:`colour_components`, the vision-to-code analogue's "detector".
    """
    from skimage.measure import label

    from icml26.core.validate import as_array

    pal = palette or PALETTE
    arr = as_array("img", img, ndim=3)
    if arr.shape[2] != 3:
        raise ValueError(f"img must have shape (H, W, 3), got {arr.shape}")
    out = {}
    for name, hx in pal.items():
        rgb = np.array([int(hx[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
        mask = np.linalg.norm(arr - rgb, axis=2) < tol
        if not mask.any():
            continue
        lab = label(mask, connectivity=1)
        sizes = np.bincount(lab.ravel())
        keep = sizes >= min_area
        keep[0] = False
        if keep.any():
            out[name] = keep[lab]
    return out


def colour_components(img: np.ndarray, *, tol: float = 30.0, min_area: int = 6,
                      palette: dict[str, str] | None = None) -> list[tuple[str, tuple[int, int, int, int], int]]:
    """Connected components of each palette colour: (colour name, (x0, y0, x1, y1) inclusive, area)."""
    from skimage.measure import label, regionprops

    out = []
    for name, mask in colour_masks(img, tol=tol, min_area=min_area, palette=palette).items():
        for r in regionprops(label(mask, connectivity=1)):
            y0, x0, y1, x1 = r.bbox
            out.append((name, (int(x0), int(y0), int(x1) - 1, int(y1) - 1), int(r.area)))
    return out


def pixel_box(geom: tuple[float, float, float, float], scale: float) -> tuple[int, int, int, int]:
    """A page-unit (x, y, w, h) as the inclusive pixel box (x0, y0, x1, y1) the renderer fills."""
    x, y, w, h = geom
    return (int(round(x * scale)), int(round(y * scale)), int(round((x + w) * scale)) - 1,
            int(round((y + h) * scale)) - 1)
