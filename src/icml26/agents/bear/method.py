"""BEAR (arXiv 2510.08759, v2 = ICML 2026): skill-level scoring, hierarchical diagnosis and BEAR-Agent.

What the paper does, in our words, and where each piece sits here:

* **Taxonomy** (Sec. 3): 14 atomic skills in 6 categories: pointing and bounding box (general object,
  semantic part, spatial relationship), trajectory reasoning (gripper, human hand, object), spatial
  reasoning (object localization, relative direction, path planning), task planning (next action,
  task progress), and long-horizon episodes decomposed into those skills. :data:`SKILLS`,
  :data:`CATEGORIES` (from :mod:`.setting`).
* **Scoring**: a predicted point scores when it lies inside the ground-truth mask
  (:func:`point_in_mask`); a bounding box scores its IoU with the ground-truth box (mean IoU,
  :func:`box_iou`); multiple choice scores the extracted letter (the paper extracts it with
  gpt-3.5-turbo; we parse it exactly, :func:`parse_choice`). :func:`score_reply` turns any model's text
  reply into a score.
* **Hierarchical diagnosis** (Sec. 4): horizontal = per-skill / per-category accuracy profile
  (:func:`horizontal_profile`); vertical = trace reasoning failures to perception. The paper states it
  qualitatively; our operationalisation (:func:`vertical_diagnosis`): for every failed reasoning item,
  (i) re-ask the model with ground-truth percepts drawn on its sketch layer (oracle perception) and
  (ii) run an exact reasoner (:func:`icml26.agents.bear.setting.answer_from_state`) on the model's own
  percepts (its answers to "where is entity e in frame t"); the share fixed by (i) against the share
  fixed by (ii) says whether perception or reasoning is the bottleneck.
* **BEAR-Agent** (Sec. 5; repo ``BEAR-Agent/agent/prompt.py``, ``tools.py``): a conversable agent loop
  in which a skill-specific prompt (Perception, Trajectory, Object-trajectory, ObjectLocalization,
  RelativeDirection, NextAction, TaskProgress) steers the model to call visual tools, the tool output
  (text and annotated image) is fed back, and the model answers within ``BEAR_MAX_REPLY = 10`` replies.
  Tools (:data:`TOOLS`): the paper's GroundingDINO / Semantic-SAM / trajectory extension / crop-and-zoom
  become classical scikit-image / numpy tools: colour-threshold detection with connected components and
  a shape test (:func:`detect`), foreground segmentation (:func:`segment_and_mark`), least-squares line fit
  of a coloured arrow (:func:`extend_arrow`), crop-and-zoom (:func:`crop_and_zoom`) with a dark-part search
  (:func:`find_part`). They fail under clutter and occlusion (merged or cut components, wrong shape test),
  but on the reasoning skills they are near-oracles (review after the full run: >= 96% of present entities
  found, >= 99.6% of those within 3 px of the truth, also at clutter 1.0), so there the agent's gain is
  close to the gap between ground-truth and the model's own perception.

Deviations from the repo's prompts (review): its ObjectLocalizationPrompt and PlanningPrompt (used by
``BEAR-Agent/agent/main.py`` for path planning, next action and task progress) offer no tool and its
ObjTrajPrompt lists none, while :data:`TOOL_PLAN` runs detection for all of them; :data:`PROMPT_OF`
gives path planning the Perception prompt. A real VLM calls a tool with one JSON object per reply instead
of writing Python for the repo's AutoGen Jupyter kernel; depth, overlay and sliding-window detection are
not offered.

Two ways to run the agent loop:

* :func:`agent_answers` for the tiny base model of :mod:`.model`, which cannot write code: the tool
  choice is the fixed plan of the skill's prompt (:data:`TOOL_PLAN`, :func:`run_tools`), the outputs are
  drawn on the sketch layer and the model answers again (two model calls per item);
* :func:`chat_agent` for a real VLM behind an OpenAI-compatible endpoint
  (:class:`icml26.agents.policy.ChatClient`): the model itself chooses tools by replying
  ``{"tool": ..., "arguments": {...}}`` (parsed by :func:`icml26.agents.env.parse_action`), receives the
  tool's text and annotated image, and ends with ``ANSWER: ...``. From the command line::

      icml26 run bear --set endpoint=http://localhost:8000/v1 --set model=Qwen2.5-VL-7B-Instruct

  scores the served model with and without tools on ``n_endpoint`` items per skill (reported under
  ``endpoint/``; no verdict rests on it).
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.agents.bear import setting as S
from icml26.agents.bear.setting import CATEGORIES, CATEGORY_OF, DIAGNOSABLE, KIND, SKILLS  # noqa: F401
from icml26.agents.env import ToolCall
from icml26.core.validate import as_array, check_int, check_positive

BEAR_MAX_REPLY = 10
W, B = (245, 245, 245), (150, 150, 150)  # sketch colours: primary and secondary mark


# ----------------------------------------------------------------------------- scoring
_NUM = r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?"


def _after_answer(text: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return text.split("ANSWER:", 1)[1] if "ANSWER:" in text else text


def parse_choice(text: str, n_options: int = 4) -> int | None:
    """The option index of a multiple-choice reply: ``(B)`` after ``ANSWER:``, else a lone capital
    letter; ``None`` when no letter among the first ``n_options`` can be read (scored wrong)."""
    n_options = check_int("n_options", n_options, minimum=1, maximum=26)
    tail = _after_answer(text)
    letters = "".join(chr(65 + i) for i in range(n_options))
    m = re.search(rf"\(([{letters}])\)", tail) or re.search(rf"(?<![A-Za-z])([{letters}])(?![A-Za-z])", tail)
    return None if m is None else ord(m.group(1)) - 65


def parse_point(text: str) -> tuple[float, float] | None:
    """(x, y) in [0, 1] image fractions from ``ANSWER: (x, y)``; ``None`` if unreadable."""
    nums = [float(v) for v in re.findall(_NUM, _after_answer(text))]
    if len(nums) < 2 or not all(np.isfinite(nums[:2])):
        return None
    return nums[0], nums[1]


def parse_box(text: str) -> list[float] | None:
    """[x, y, w, h] in image fractions (the repo's box format) from ``ANSWER: [x, y, w, h]``."""
    nums = [float(v) for v in re.findall(_NUM, _after_answer(text))]
    if len(nums) < 4 or not all(np.isfinite(nums[:4])):
        return None
    return nums[:4]


def point_in_mask(point: Any, mask: Any) -> float:
    """1.0 when the point (x, y in image fractions) falls on a ``True`` pixel of ``mask`` (H, W)."""
    m = as_array("mask", mask, ndim=2).astype(bool)
    p = as_array("point", point, ndim=1)
    if p.shape != (2,):
        raise ValueError(f"point must be (x, y), got shape {p.shape}")
    h, w = m.shape
    x, y = int(np.floor(p[0] * w)), int(np.floor(p[1] * h))
    return float(0 <= x < w and 0 <= y < h and m[y, x])


def mask_box(mask: np.ndarray) -> np.ndarray:
    """[x0, y0, x1, y1] pixel box of a mask (exclusive upper ends)."""
    ys, xs = np.nonzero(mask)
    if xs.size == 0:
        raise ValueError("mask is empty")
    return np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], float)


def box_iou(box: Any, mask: Any) -> float:
    """IoU of a predicted [x, y, w, h] box (image fractions) with the ground-truth box of ``mask``."""
    m = as_array("mask", mask, ndim=2).astype(bool)
    b = as_array("box", box, ndim=1)
    if b.shape != (4,):
        raise ValueError(f"box must be [x, y, w, h], got shape {b.shape}")
    h, w = m.shape
    p = np.array([b[0] * w, b[1] * h, (b[0] + max(b[2], 0)) * w, (b[1] + max(b[3], 0)) * h])
    g = mask_box(m)
    iw = max(0.0, min(p[2], g[2]) - max(p[0], g[0]))
    ih = max(0.0, min(p[3], g[3]) - max(p[1], g[1]))
    inter = iw * ih
    union = (p[2] - p[0]) * (p[3] - p[1]) + (g[2] - g[0]) * (g[3] - g[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def score_reply(item: S.Item, text: str) -> float:
    """BEAR's per-skill score of a text reply to ``item`` (unparsable replies score 0)."""
    if not isinstance(item, S.Item):
        raise TypeError(f"item must be a setting.Item, got {type(item).__name__}")
    if item.kind == "mc":
        k = parse_choice(text)
        return float(k is not None and k == item.answer)
    if item.kind == "point":
        p = parse_point(text)
        return 0.0 if p is None else point_in_mask(p, item.mask)
    b = parse_box(text)
    return 0.0 if b is None else box_iou(b, item.mask)


def chance_score(skill: str, items: list[S.Item]) -> float:
    """What guessing scores: 1/4 for multiple choice, the mean mask area for pointing, and the mean IoU
    of a box of the mean ground-truth size placed uniformly at random (Monte Carlo, fixed seed)."""
    if skill not in SKILLS:
        raise ValueError(f"skill must be one of {SKILLS}, got {skill!r}")
    if KIND[skill] == "mc":
        return 0.25
    if KIND[skill] == "point":
        return float(np.mean([it.mask.mean() for it in items]))
    rng = np.random.default_rng(0)
    wh = np.mean([mask_box(it.mask)[2:] - mask_box(it.mask)[:2] for it in items], 0) / S.SIZE
    return float(np.mean([box_iou([*rng.uniform(0, 1 - wh), *wh], it.mask) for it in items for _ in range(20)]))


# ----------------------------------------------------------------------------- tools
def color_mask(image: np.ndarray, color: str, tol: int = 60) -> np.ndarray:
    """(H, W) bool: pixels within ``tol`` (max abs channel difference) of a palette colour."""
    if color not in S.COLORS:
        raise ValueError(f"color must be one of {list(S.COLORS)}, got {color!r}")
    img = as_array("image", image, ndim=3)
    return np.abs(img.astype(int) - np.array(S.COLORS[color])).max(-1) <= tol


def shape_of(region: Any) -> str:
    """Shape test on a connected component: fill ratio of its bounding box."""
    e = region.extent
    return "square" if e >= 0.86 else "circle" if e >= 0.66 else "triangle"


@dataclass
class Detection:
    mask: np.ndarray
    box: list[float]          # [x, y, w, h] image fractions
    centroid: tuple[float, float]  # pixels (x, y)


def _components(mask: np.ndarray, min_area: int) -> list[Any]:
    from skimage.measure import label, regionprops

    return [r for r in regionprops(label(mask, connectivity=2)) if r.area >= min_area]


def _det(r: Any, shape_hw: tuple[int, int]) -> Detection:
    h, w = shape_hw
    y0, x0, y1, x1 = r.bbox
    m = np.zeros(shape_hw, bool)
    m[r.coords[:, 0], r.coords[:, 1]] = True
    return Detection(m, [x0 / w, y0 / h, (x1 - x0) / w, (y1 - y0) / h], (float(r.centroid[1]), float(r.centroid[0])))


def detect(image: Any, color: str, shape: str | None = None, *, min_area: int = 3) -> list[Detection]:
    """GroundingDINO's stand-in: components of the named colour whose shape test matches, largest first.

    Fails like a detector: a same-coloured blob touching the object merges with it, an occluding bar
    cuts it (changing its fill ratio), and a large blob can pass as a square."""
    img = as_array("image", image, ndim=3)
    min_area = check_int("min_area", min_area, minimum=1)
    regs = _components(color_mask(img, color), min_area)
    if shape in ("square", "circle", "triangle"):
        regs = [r for r in regs if shape_of(r) == shape]
    return [_det(r, img.shape[:2]) for r in sorted(regs, key=lambda r: -r.area)]


def segment_and_mark(image: Any, *, min_area: int = 4) -> list[Detection]:
    """Semantic-SAM's stand-in: every foreground component (pixels far from the table colour)."""
    img = as_array("image", image, ndim=3)
    min_area = check_int("min_area", min_area, minimum=1)
    fg = np.abs(img.astype(int) - np.array(S.BACKGROUND)).max(-1) > 50
    return [_det(r, img.shape[:2]) for r in _components(fg, min_area)]


def extend_arrow(image: Any, color: str, origin: Any, *, radius: float = 13.0) -> tuple[np.ndarray, np.ndarray] | None:
    """Trajectory extension: least-squares line through the ``color`` pixels near ``origin`` (x, y),
    oriented away from it. Returns (start (2,), unit direction (2,)) or ``None`` (too few pixels)."""
    img = as_array("image", image, ndim=3)
    o = as_array("origin", origin, ndim=1)
    if o.shape != (2,):
        raise ValueError(f"origin must be (x, y), got shape {o.shape}")
    radius = check_positive("radius", radius)
    ys, xs = np.nonzero(color_mask(img, color, tol=55))
    pts = np.stack([xs, ys], 1).astype(float)
    d = np.linalg.norm(pts - o, axis=1)
    pts = pts[(d <= radius) & (d >= 2.0)]
    if len(pts) < 2:
        return None
    c = pts.mean(0)
    u = np.linalg.svd(pts - c, full_matrices=False)[2][0]
    if (c - o) @ u < 0:
        u = -u
    return o.copy(), u / np.linalg.norm(u)


def crop_and_zoom(image: Any, box: Any, *, factor: int = 4, padding: float = 0.05) -> tuple[np.ndarray, tuple[int, int]]:
    """Crop ``box`` ([x, y, w, h] fractions, padded) and upsample it ``factor`` times (Pillow, nearest).
    Returns the zoomed crop and its top-left pixel in the original image."""
    from PIL import Image

    img = as_array("image", image, ndim=3).astype(np.uint8)
    b = as_array("box", box, ndim=1)
    factor = check_int("factor", factor, minimum=1)
    padding = check_positive("padding", padding, strict=False)
    if b.shape != (4,):
        raise ValueError(f"box must be [x, y, w, h], got shape {b.shape}")
    h, w = img.shape[:2]
    x0, y0 = int(max(0, np.floor((b[0] - padding) * w))), int(max(0, np.floor((b[1] - padding) * h)))
    x1, y1 = int(min(w, np.ceil((b[0] + b[2] + padding) * w))), int(min(h, np.ceil((b[1] + b[3] + padding) * h)))
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"box {list(b)} is empty inside the image")
    crop = Image.fromarray(img[y0:y1, x0:x1]).resize(((x1 - x0) * factor, (y1 - y0) * factor), Image.NEAREST)
    return np.asarray(crop), (x0, y0)


def find_part(image: Any, box: Any, *, factor: int = 4) -> np.ndarray | None:
    """Semantic-part search in a zoomed crop: the largest dark component, mapped back to a full-size mask."""
    img = as_array("image", image, ndim=3)
    factor = check_int("factor", factor, minimum=1)
    zoom, (x0, y0) = crop_and_zoom(img, box, factor=factor, padding=2.0 / img.shape[1])
    regs = _components(zoom.max(-1) < 55, factor * factor)
    if not regs:
        return None
    r = max(regs, key=lambda r: r.area)
    m = np.zeros(img.shape[:2], bool)
    m[r.coords[:, 0] // factor + y0, r.coords[:, 1] // factor + x0] = True
    return m


TOOLS = {"detection": detect, "segment_and_mark": segment_and_mark, "extend_arrow": extend_arrow,
         "crop_and_zoom": crop_and_zoom, "find_part": find_part}


# ----------------------------------------------------------------------------- skill prompts and tool plans
#: the repo's prompt class per skill (BEAR-Agent/agent/prompt.py), and what our fixed plan calls
PROMPT_OF = {"point_object": "Perception", "point_part": "Perception", "point_relation": "Perception",
             "box_object": "Perception", "box_part": "Perception", "box_relation": "Perception",
             "traj_gripper": "Traj", "traj_hand": "Traj", "traj_object": "ObjTraj",
             "spatial_localization": "ObjectLocalization", "spatial_direction": "RelativeDirection",
             "spatial_path": "Perception", "plan_next": "NextActionPrediction", "plan_progress": "TaskProgressReasoning"}
TOOL_PLAN = {"point_object": ["detection"], "box_object": ["detection"],
             "point_part": ["detection", "crop_and_zoom", "find_part"], "box_part": ["detection", "crop_and_zoom", "find_part"],
             "point_relation": ["detection", "segment_and_mark"], "box_relation": ["detection", "segment_and_mark"],
             "traj_gripper": ["detection", "extend_arrow"], "traj_hand": ["detection", "extend_arrow"],
             "traj_object": ["detection", "extend_arrow"], "spatial_localization": ["detection"],
             "spatial_direction": ["detection"], "spatial_path": ["detection"], "plan_next": ["detection"],
             "plan_progress": ["detection", "segment_and_mark"]}
SYSTEM_PROMPTS = {
    "Perception": ("You locate things in images. You are not good at coordinates: call detection to get boxes, "
                   "segment_and_mark to see every object, crop_and_zoom and find_part to search a part inside an "
                   "object's box. Answer a point as (x, y) and a box as [x, y, w, h], all in [0, 1]."),
    "Traj": ("You judge which arrow a gripper or hand follows. Detect the effector, then call extend_arrow for "
             "each arrow colour and check which extended line meets the target. Answer with the option letter."),
    "ObjTraj": ("You judge where an object moving along its arrow ends up. Extend the arrow (extend_arrow) from "
                "the object and check which target it meets. Answer with the option letter."),
    "ObjectLocalization": "Identify the named object image by image (detection on each frame); answer the frame's letter.",
    "RelativeDirection": ("Look at the current observation (the last image); detect both objects and compare "
                          "their positions. Answer with the option letter."),
    "NextActionPrediction": ("Focus on the last frame, use earlier frames only if they help; locate the object, "
                             "the gripper and the bin. Answer with the option letter."),
    "TaskProgressReasoning": "Look at the image, locate the bin and the objects, count what is done. Answer with the option letter.",
}


@dataclass
class ToolRun:
    """The tool phase of one item: calls made, text observations, the sketch drawn (T, H, W, 3)."""

    sketch: np.ndarray
    calls: list[ToolCall] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    ok: bool = True
    percepts: dict[str, list[Any]] | None = None  # reasoning skills: entity -> per-frame (x, y) or None


def _mark(sk: np.ndarray, xy: Any, rgb: tuple[int, int, int]) -> None:
    x, y = int(round(xy[0])), int(round(xy[1]))
    sk[max(0, y - 1): y + 2, max(0, x - 1): x + 2] = rgb


def _ray(sk: np.ndarray, start: np.ndarray, u: np.ndarray, rgb: tuple[int, int, int]) -> None:
    for t in np.arange(0, 2 * S.SIZE, 0.5):
        x, y = (start + t * u).round().astype(int)
        if 0 <= x < S.SIZE and 0 <= y < S.SIZE:
            sk[y, x] = rgb


def _name(tok: tuple[int, int]) -> tuple[str | None, str | None]:
    c, s = int(tok[0]), int(tok[1])
    return (S.COLOR_NAMES[c] if c < len(S.COLOR_NAMES) else None), (S.SHAPES[s] if s < len(S.SHAPES) else None)


def _first(dets: list[Detection]) -> Detection | None:
    return dets[0] if dets else None


def tool_percepts(item: S.Item, call: Any = None) -> dict[str, list[Any]]:
    """Tool percepts of a reasoning item: each named entity detected by colour and shape in every frame
    (the skill prompts' detection step); an arrow's percept is a point on its least-squares line
    (extend_arrow from the detected origin), as the Traj prompts' extend-the-arrow step. ``None`` where
    the tools find nothing. ``call(name, **kw)`` records the calls (default: run the tool directly)."""
    call = call or (lambda name, **kw: TOOLS[name](**kw))
    out: dict[str, list[Any]] = {}
    T = len(item.frames)
    arrows = [n for n in item.entities if n.startswith("arrow")]
    for name, tok in item.entities.items():
        if name in arrows:
            continue
        c, s_ = _name(tok)
        shape = s_ if s_ in ("square", "circle", "triangle") else None
        out[name] = []
        for t in range(T):
            d = _first(call("detection", image=item.frames[t], color=c, shape=shape, min_area=8 if s_ == "bin" else 3))
            if d is not None and s_ == "bin":  # an outline: its box centre, not its pixel centroid
                out[name].append((d.box[0] * S.SIZE + d.box[2] * S.SIZE / 2, d.box[1] * S.SIZE + d.box[3] * S.SIZE / 2))
            else:
                out[name].append(None if d is None else d.centroid)
    for name in arrows:
        c, _ = _name(item.entities[name])
        o = out.get("origin", [None])[-1]
        ray = None if o is None else call("extend_arrow", image=item.frames[-1], color=c, origin=np.array(o))
        out[name] = [None if ray is None else tuple(ray[0] + 6.0 * ray[1])]
    return out


def run_tools(item: S.Item) -> ToolRun:
    """Execute the skill's tool plan (:data:`TOOL_PLAN`) on ``item`` and draw the outputs on a sketch."""
    if not isinstance(item, S.Item):
        raise TypeError(f"item must be a setting.Item, got {type(item).__name__}")
    sk = np.zeros_like(item.frames)
    run = ToolRun(sk)
    sk_last, img = sk[-1], item.frames[-1]
    c1, s1 = _name(tuple(item.query[1:3]))
    c2, s2 = _name(tuple(item.query[3:5]))

    def call(name: str, **kw) -> Any:
        run.calls.append(ToolCall(name, {k: v for k, v in kw.items() if k != "image"}))
        out = TOOLS[name](**kw)
        run.observations.append(_describe(name, out))
        return out

    sk_ = item.skill
    if sk_.endswith("_object") and KIND[sk_] != "mc" or sk_.endswith("_relation") or sk_.endswith("_part"):
        d = _first(call("detection", image=img, color=c1, shape=s1))
        if d is None:
            run.ok = False
        elif sk_.endswith("_object"):
            sk_last[d.mask] = W
        elif sk_.endswith("_part"):
            call("crop_and_zoom", image=img, box=d.box)
            part = call("find_part", image=img, box=d.box)
            if part is None:
                run.ok = False
            else:
                sk_last[part] = W
        else:
            segs = [g for g in call("segment_and_mark", image=img) if not (g.mask & d.mask).any()]
            if not segs:
                run.ok = False
            else:
                near = min(segs, key=lambda g: np.hypot(g.centroid[0] - d.centroid[0], g.centroid[1] - d.centroid[1]))
                sk_last[near.mask] = W
    else:  # reasoning skills: percepts of every entity from the tools
        run.percepts = tool_percepts(item, call)
        run.ok = any(p is not None for seq in run.percepts.values() for p in seq)
    return run


def _describe(name: str, out: Any) -> str:
    if out is None:
        return f"{name}: nothing found"
    if name in ("detection", "segment_and_mark"):
        return f"{name}: {len(out)} boxes " + str([[round(v, 3) for v in d.box] for d in out[:6]])
    if name == "extend_arrow":
        return f"extend_arrow: line from {np.round(out[0] / S.SIZE, 3).tolist()} along {np.round(out[1], 3).tolist()}"
    if name == "crop_and_zoom":
        return f"crop_and_zoom: {out[0].shape[1]}x{out[0].shape[0]} crop at {out[1]}"
    if name == "find_part":
        return "find_part: part box " + str([round(v, 3) for v in _det_box(out)])
    return f"{name}: done"


def _det_box(mask: np.ndarray) -> list[float]:
    b = mask_box(mask)
    return [b[0] / S.SIZE, b[1] / S.SIZE, (b[2] - b[0]) / S.SIZE, (b[3] - b[1]) / S.SIZE]


def tool_only_answer(item: S.Item, run: ToolRun) -> float:
    """The tools' standalone score, no model: the box of the sketch (pointing / boxes), or the exact
    reasoner on the tool percepts (reasoning skills). Reported, not claimed."""
    if item.kind in ("point", "box"):
        m = run.sketch[-1].max(-1) > 0
        if not m.any():
            return 0.0
        b = _det_box(m)
        return point_in_mask((b[0] + b[2] / 2, b[1] + b[3] / 2), item.mask) if item.kind == "point" else box_iou(b, item.mask)
    ans = S.answer_from_state(item.skill, run.percepts or {}, item.entities, item.query)
    return float(ans is not None and ans == item.answer)


# ----------------------------------------------------------------------------- the model's two halves
def model_percepts(model: Any, items: list[S.Item], *, frames: list[np.ndarray] | None = None,
                   threshold: float = 0.0) -> list[dict[str, list[Any]]]:
    """The model's own percepts (perception half): for every entity of every item and every frame, its
    answer to "where is e in frame t" (position, or None when its presence logit is below ``threshold``).
    One batched model call; ``frames`` replaces the items' frames (augmented views)."""
    from icml26.agents.bear.model import CELL, LOCATE, predict

    rows, fr = [], []
    for i, it in enumerate(items):
        f = it.frames if frames is None else frames[i]
        for n, tok in it.entities.items():
            for t in range(len(f)):
                rows.append((i, n))
                fr.append(f[t][None])
    if not rows:
        return [{} for _ in items]
    q = np.array([[LOCATE, *items[i].entities[n], S.NONE_COLOR, S.NONE_SHAPE] for i, n in rows])
    fr_ = np.stack(fr)
    outs = [predict(model.net, fr_[k:k + 256], np.zeros_like(fr_[k:k + 256]), q[k:k + 256]) for k in range(0, len(rows), 256)]
    out = {key: np.concatenate([o[key] for o in outs]) for key in outs[0]}
    res: list[dict[str, list[Any]]] = [{} for _ in items]
    for r, (i, n) in enumerate(rows):
        c = int(out["heat"][r].argmax())
        dx, dy = out["box"][r, c, :2]
        p = ((c % 8 + 0.5 + dx) * CELL, (c // 8 + 0.5 + dy) * CELL) if out["present"][r] > threshold else None
        res[i].setdefault(n, []).append(p)
    return res


def merge_percepts(tool: dict[str, list[Any]] | None, own: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Tool outputs fed back: a tool percept replaces the model's own wherever the tool found the entity."""
    if not tool:
        return own
    return {n: [tp if tp is not None else op for tp, op in zip(tool.get(n, [None] * len(seq)), seq)]
            for n, seq in own.items()}


def _mc_text(logits: np.ndarray) -> list[str]:
    return [f"THOUGHT: reasoning over what I see. ANSWER: ({S.LETTERS[int(k)]}) TERMINATE" for k in logits.argmax(1)]


def agent_answers(model: Any, items: list[S.Item], runs: list[ToolRun], *, shuffled: list[ToolRun] | None = None,
                  batch: int = 64) -> tuple[list[str], list[str]]:
    """BEAR-Agent with the tiny model on items of one skill; returns (first replies, final replies).

    Call 1 answers without tools (pointing/boxes: plain image; reasoning: the reasoner on the model's own
    percepts). The skill's tool plan runs (``runs``), its outputs are fed back and call 2 answers
    (pointing/boxes: tool outputs drawn on the sketch layer; reasoning: tool percepts replace the model's
    where found). If the tools found nothing, the first answer stands. ``shuffled`` feeds back another
    item's tool outputs instead (the shuffled-output control)."""
    from icml26.agents.bear.model import decode, predict, reasoner_logits

    if len(items) != len(runs):
        raise ValueError(f"items and runs differ in length: {len(items)} != {len(runs)}")
    fed = runs if shuffled is None else shuffled
    if items and items[0].kind == "mc":
        own = model_percepts(model, items)
        first = _mc_text(reasoner_logits(model.reasoner, items, own))
        merged = [merge_percepts(r.percepts, o) for r, o in zip(fed, own)]
        final = _mc_text(reasoner_logits(model.reasoner, items, merged))
        return first, [f2 if r.ok else f1 for f1, f2, r in zip(first, final, fed)]
    first, final = [], []
    for i in range(0, len(items), batch):
        its = items[i:i + batch]
        fr = np.stack([it.frames for it in its])
        q = np.stack([it.query for it in its])
        o1 = predict(model.net, fr, np.zeros_like(fr), q)
        o2 = predict(model.net, fr, np.stack([r.sketch for r in fed[i:i + batch]]), q)
        for j, it in enumerate(its):
            a1 = decode(o1, j, it.kind)[0]
            first.append(a1)
            final.append(decode(o2, j, it.kind)[0] if fed[i + j].ok else a1)
    return first, final


def augment(frames: np.ndarray, rng: np.random.Generator, noise: int = 12) -> np.ndarray:
    """Photometric augmentation for test-time scaling (no geometry, so answers keep their meaning)."""
    f = frames.astype(np.int16) + rng.integers(-noise, noise + 1, size=frames.shape)
    f = f * rng.uniform(0.9, 1.1)
    return np.clip(f, 0, 255).astype(np.uint8)


def tts_answers(model: Any, items: list[S.Item], n_calls: int, seed: int, *, batch: int = 64) -> list[str]:
    """Test-time scaling control: ``n_calls`` model calls per item on augmented views (the first on the
    plain image), probabilities averaged (soft majority vote)."""
    import scipy.special as sp

    from icml26.agents.bear.model import decode, predict, reasoner_logits, soft_vote

    n_calls = check_int("n_calls", n_calls, minimum=1)
    rng = np.random.default_rng(seed)
    if items and items[0].kind == "mc":
        probs = []
        for k in range(n_calls):
            views = None if k == 0 else [augment(it.frames, rng) for it in items]
            own = model_percepts(model, items, frames=views)
            probs.append(sp.softmax(reasoner_logits(model.reasoner, items, own), 1))
        return _mc_text(np.mean(probs, 0))
    out = []
    for i in range(0, len(items), batch):
        its = items[i:i + batch]
        fr = np.stack([it.frames for it in its])
        q = np.stack([it.query for it in its])
        outs = [predict(model.net, fr if k == 0 else augment(fr, rng), np.zeros_like(fr), q) for k in range(n_calls)]
        o = soft_vote(outs)
        out += [decode(o, j, it.kind)[0] for j, it in enumerate(its)]
    return out


def _png_b64(img: np.ndarray, scale: int = 8) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(img).resize((img.shape[1] * scale, img.shape[0] * scale), Image.NEAREST).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def _image_part(img: np.ndarray) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + _png_b64(img)}}


TOOL_HELP = ("Tools (reply with one JSON object to call one): "
             '{"tool": "detection", "arguments": {"frame": t, "color": c, "shape": s}}; '
             '{"tool": "segment_and_mark", "arguments": {"frame": t}}; '
             '{"tool": "extend_arrow", "arguments": {"color": c, "origin": [x, y]}}; '
             '{"tool": "crop_and_zoom", "arguments": {"box": [x, y, w, h]}}; '
             '{"tool": "find_part", "arguments": {"box": [x, y, w, h]}}. Coordinates are fractions of the image '
             f"({S.SIZE} px). Colours: {list(S.COLORS)}. Finish with ANSWER: <answer> TERMINATE.")


def execute_tool(item: S.Item, call: ToolCall) -> tuple[str, np.ndarray | None]:
    """Run a model-chosen tool call on ``item``; (text observation, annotated image or None)."""
    args = dict(call.arguments)
    t = int(args.pop("frame", len(item.frames) - 1))
    if not -len(item.frames) <= t < len(item.frames):
        return f"error: frame must be in 0..{len(item.frames) - 1}", None
    img = item.frames[t]
    ann = img.copy()
    try:
        if call.name in ("detection", "segment_and_mark"):
            out = detect(img, str(args["color"]), args.get("shape")) if call.name == "detection" else segment_and_mark(img)
            for d in out:
                ann[d.mask] = W
        elif call.name == "extend_arrow":
            out = extend_arrow(img, str(args["color"]), np.asarray(args["origin"], float) * S.SIZE)
            if out is not None:
                _ray(ann, out[0], out[1], W)
        elif call.name == "crop_and_zoom":
            out = crop_and_zoom(img, args["box"])
            ann = out[0]
        elif call.name == "find_part":
            out = find_part(img, args["box"])
            if out is not None:
                ann[out] = W
        else:
            return f"error: unknown tool {call.name!r}; tools are {list(TOOLS)}", None
    except (KeyError, ValueError, TypeError) as exc:
        return f"error: {type(exc).__name__}: {exc}", None
    return _describe(call.name, out), ann


def chat_agent(client: Any, item: S.Item, *, tools: bool = True, max_replies: int = BEAR_MAX_REPLY) -> tuple[str, int]:
    """BEAR-Agent with a real VLM (``client``: :class:`icml26.agents.policy.ChatClient`): the skill's
    system prompt, the frames as images, tool calls executed and fed back (text + annotated image),
    at most ``max_replies`` replies. ``tools=False`` is the base model (one reply). Returns
    (final reply, replies used)."""
    from icml26.agents.env import parse_action

    max_replies = check_int("max_replies", max_replies, minimum=1)
    system = SYSTEM_PROMPTS[PROMPT_OF[item.skill]] + (" " + TOOL_HELP if tools else " Answer directly: ANSWER: <answer>.")
    content = [{"type": "text", "text": f"{len(item.frames)} image(s), the current observation last. {item.question}"}]
    content += [_image_part(f) for f in item.frames]
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": content}]
    reply = ""
    for k in range(1, (max_replies if tools else 1) + 1):
        reply = client.complete(msgs)
        action = parse_action(reply)
        if not tools or not isinstance(action, ToolCall):
            return reply, k
        obs, ann = execute_tool(item, action)
        msgs.append({"role": "assistant", "content": reply})
        part = [{"type": "text", "text": "OBSERVATION: " + obs + " Next THOUGHT and ACTION, or ANSWER: ... TERMINATE."}]
        msgs.append({"role": "user", "content": part + ([_image_part(ann)] if ann is not None else [])})
    return reply, max_replies


# ----------------------------------------------------------------------------- diagnosis
def horizontal_profile(scores: dict[str, list[float]]) -> dict[str, float]:
    """Per-skill and per-category mean scores (``skill/<s>``, ``category/<c>``) and their overall mean."""
    if not isinstance(scores, dict) or not scores:
        raise ValueError("scores must be a non-empty dict skill -> list of item scores")
    out = {}
    for s, v in scores.items():
        if s not in SKILLS and s != "long_horizon":
            raise ValueError(f"unknown skill {s!r}")
        if len(v) == 0:
            raise ValueError(f"scores[{s!r}] is empty")
        out[f"skill/{s}"] = float(np.mean(v))
    for c, members in CATEGORIES.items():
        have = [out[f"skill/{s}"] for s in members if f"skill/{s}" in out]
        if have:
            out[f"category/{c}"] = float(np.mean(have))
    out["mean"] = float(np.mean([v for k, v in out.items() if k.startswith("skill/")]))
    return out


def vertical_diagnosis(model: Any, items: list[S.Item], correct: list[float]) -> dict[str, float]:
    """Trace the model's reasoning failures to perception (the reasoning skills, :data:`DIAGNOSABLE`).

    For each failed item: ``gt_fix`` = the model's reasoning half answers right from ground-truth
    percepts (oracle perception); ``reasoner_fix`` = the exact reasoner answers right from the model's
    own percepts (perfect reasoning). Returns the number of failures and the shares fixed."""
    from icml26.agents.bear.model import reasoner_logits

    if len(items) != len(correct):
        raise ValueError(f"items and correct differ in length: {len(items)} != {len(correct)}")
    fails = [it for it, c in zip(items, correct) if it.skill in DIAGNOSABLE and c < 1]
    if not fails:
        return {"n_fail": 0.0, "gt_fix": float("nan"), "reasoner_fix": float("nan"), "both_fix": float("nan")}
    g = reasoner_logits(model.reasoner, fails, [it.state for it in fails]).argmax(1) == np.array([it.answer for it in fails])
    own = model_percepts(model, fails)
    r = np.array([S.answer_from_state(it.skill, pc, it.entities, it.query) == it.answer for it, pc in zip(fails, own)])
    return {"n_fail": float(len(fails)), "gt_fix": float(g.mean()), "reasoner_fix": float(r.mean()),
            "both_fix": float((g & r).mean())}


# ----------------------------------------------------------------------------- long-horizon episodes
def run_episodes(model: Any, n: int, seed: int, arm: str, *, clutter: float = 0.5, n_calls: int = 2) -> list[float]:
    """Success (0/1) of grid episodes driven by the model's path-planning answer at every step.

    Each step is a path-planning item on the current map; ``arm`` answers it as in the atomic skills:
    ``base``, ``agent`` (tool percepts fed back), ``tts`` (``n_calls`` augmented calls, soft vote),
    ``shuffled`` (the tool percepts of another episode's map)."""
    if arm not in ("base", "agent", "tts", "shuffled"):
        raise ValueError(f"arm must be base, agent, tts or shuffled, got {arm!r}")
    n = check_int("n", n, minimum=1)
    envs = [S.GridEpisodeEnv(clutter=clutter) for _ in range(n)]
    obs, infos = zip(*[e.reset(seed=seed * 1000 + k) for k, e in enumerate(envs)])
    obs = list(obs)
    done = np.zeros(n, bool)
    success = np.zeros(n)
    for step in range(max(e.budget for e in envs)):
        live = np.nonzero(~done)[0]
        if live.size == 0:
            break
        its = [S.Item("spatial_path", obs[k][None], infos[k]["query"], "", answer=0,
                      entities={"agent": S.token("white", "agent"), "goal": S.token(*envs[k].kinds[0])}) for k in live]
        if arm == "tts":
            replies = tts_answers(model, its, n_calls, seed * 7919 + step)
        else:
            runs = [ToolRun(np.zeros_like(it.frames), percepts=tool_percepts(it)) for it in its]
            for r in runs:
                r.ok = any(p is not None for seq in r.percepts.values() for p in seq)
            shuffled = [runs[(j + 1) % len(runs)] for j in range(len(runs))] if arm == "shuffled" else None
            first, final = agent_answers(model, its, runs, shuffled=shuffled)
            replies = first if arm == "base" else final
        for j, k in enumerate(live):
            a = parse_choice(replies[j])
            obs[k], r, term, trunc, _ = envs[k].step(0 if a is None else a)
            if term or trunc:
                done[k] = True
                success[k] = r
    return success.tolist()
