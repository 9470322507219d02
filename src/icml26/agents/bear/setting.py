"""The simulated world of the BEAR reproduction: procedural items for the 14 skills and grid episodes.

Every item is rendered with Pillow at ``SIZE`` x ``SIZE`` pixels from a symbolic state, so each item
carries its ground truth twice: as masks/letters for scoring, and as the symbolic state (entity
positions per frame) that the vertical diagnosis needs (``Item.state``).

Skills (BEAR's 14, in its 5 item categories; the 6th category, long-horizon, is :class:`GridEpisodeEnv`):

* pointing / bounding box x {general object, semantic part, spatial relationship}: 3-5 objects
  (colour x shape), each with a dark "cap" part on one side; targets are named by colour and shape;
  the relationship is "the object nearest to the named one";
* trajectory x {gripper, human hand, object}: four coloured arrows (A red, B green, C blue, D yellow)
  drawn from a gripper glyph (long arrows) or a hand (short arrows), or one white arrow drawn from an
  object towards four coloured candidate targets; the answer is the arrow (target) that the extended
  arrow reaches;
* spatial x {object localization (4 frames: in which frame is the object), relative direction (3
  frames, the current observation last: where is B relative to A now), path planning (an 8 x 8 grid
  map: the first move towards the goal)};
* task planning x {next action (2 frames of a pick-and-place: reach / carry / release / done), task
  progress (how many of three objects are already in the bin)}.

Clutter and occlusion (small blobs in object colours, grey bars over the scene, colour jitter,
pixel noise) are knobs of every generator: they make the classical tools of :mod:`.method` fail
sometimes, as the paper's detectors do on real images.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.core.validate import as_rng, check_int

SIZE = 32
COLORS = {"red": (220, 40, 40), "green": (40, 190, 60), "blue": (50, 90, 235), "yellow": (230, 210, 40),
          "magenta": (210, 60, 210), "cyan": (40, 200, 210), "white": (245, 245, 245), "gray": (150, 150, 150),
          "peach": (240, 170, 120)}
COLOR_NAMES = list(COLORS)            # token ids: index in this list
N_OBJ_COLORS = 6                      # red..cyan are object colours
SHAPES = ["square", "circle", "triangle", "gripper", "bin", "hand", "agent", "arrow"]
N_OBJ_SHAPES = 3
NONE_COLOR, NONE_SHAPE = len(COLOR_NAMES), len(SHAPES)
LETTERS = "ABCD"
ARROW_COLORS = ["red", "green", "blue", "yellow"]  # option A..D of the trajectory items
PART_RGB = (15, 15, 15)
BACKGROUND = (70, 62, 55)

CATEGORIES = {
    "pointing": ["point_object", "point_part", "point_relation"],
    "bbox": ["box_object", "box_part", "box_relation"],
    "trajectory": ["traj_gripper", "traj_hand", "traj_object"],
    "spatial": ["spatial_localization", "spatial_direction", "spatial_path"],
    "planning": ["plan_next", "plan_progress"],
}
SKILLS = [s for v in CATEGORIES.values() for s in v]
CATEGORY_OF = {s: c for c, v in CATEGORIES.items() for s in v}
KIND = {s: ("point" if s.startswith("point") else "box" if s.startswith("box") else "mc") for s in SKILLS}
N_FRAMES = {s: 1 for s in SKILLS} | {"spatial_localization": 4, "spatial_direction": 3, "plan_next": 2}
OPTIONS = {
    "spatial_direction": ["left of it", "right of it", "above it", "below it"],
    "spatial_path": ["up", "down", "left", "right"],
    "plan_next": ["move to the object", "carry it to the bin", "release it", "task is done"],
    "plan_progress": ["0", "1", "2", "3"],
    "spatial_localization": ["frame 1", "frame 2", "frame 3", "frame 4"],
    "traj_gripper": [f"{c} arrow" for c in ARROW_COLORS], "traj_hand": [f"{c} arrow" for c in ARROW_COLORS],
    "traj_object": [f"{c} target" for c in ARROW_COLORS],
}
#: the reasoning skills (multiple choice): their answer is a function of entity positions, computed by
#: :func:`answer_from_state`; the vertical diagnosis runs on them
DIAGNOSABLE = ["traj_gripper", "traj_hand", "traj_object", "spatial_localization", "spatial_direction",
               "spatial_path", "plan_next", "plan_progress"]


@dataclass
class Item:
    """One benchmark item.

    ``frames``: (T, H, W, 3) uint8, the current observation last; ``query``: (5,) int tokens
    (skill, colour, shape, colour2, shape2); ``mask``: (H, W) bool ground truth on the last frame
    for point/box skills; ``answer``: option index for multiple choice; ``state``: entity name ->
    list over frames of (x, y) or None (the symbolic scene the answer is computed from);
    ``entities``: entity name -> (colour id, shape id), what a detector is asked for.
    """

    skill: str
    frames: np.ndarray
    query: np.ndarray
    question: str
    mask: np.ndarray | None = None
    answer: int | None = None
    state: dict[str, list[Any]] = field(default_factory=dict)
    entities: dict[str, tuple[int, int]] = field(default_factory=dict)
    present: bool = True

    @property
    def kind(self) -> str:
        return KIND[self.skill]


# ----------------------------------------------------------------------------- rendering
def _jitter(rgb: tuple[int, int, int], rng: np.random.Generator, amount: int) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + rng.integers(-amount, amount + 1), 0, 255)) for c in rgb)  # type: ignore[return-value]


def _shape_xy(shape: str, x: float, y: float, r: float) -> list[tuple[float, float]] | tuple[float, ...]:
    if shape == "triangle":
        return [(x, y - r), (x - r, y + r), (x + r, y + r)]
    return (x - r, y - r, x + r, y + r)


class Canvas:
    """A Pillow canvas with a label map: drawing an entity also writes its id into ``labels``."""

    def __init__(self, rng: np.random.Generator, *, noise: int = 6):
        from PIL import Image, ImageDraw

        self.rng = rng
        self.img = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
        self.lab = Image.new("I", (SIZE, SIZE), 0)
        self.d, self.dl = ImageDraw.Draw(self.img), ImageDraw.Draw(self.lab)
        self.noise = noise

    def shape(self, shape: str, x: float, y: float, r: float, rgb: tuple[int, int, int], label: int) -> None:
        xy = _shape_xy(shape, x, y, r)
        if shape == "circle":
            self.d.ellipse(xy, fill=rgb)
            self.dl.ellipse(xy, fill=label)
        elif shape == "triangle":
            self.d.polygon(xy, fill=rgb)
            self.dl.polygon(xy, fill=label)
        else:
            self.d.rectangle(xy, fill=rgb)
            self.dl.rectangle(xy, fill=label)

    def rect(self, box: tuple[float, float, float, float], rgb: tuple[int, int, int], label: int,
             outline: bool = False) -> None:
        if outline:
            self.d.rectangle(box, outline=rgb, width=1)
            self.dl.rectangle(box, outline=label, width=1)
        else:
            self.d.rectangle(box, fill=rgb)
            self.dl.rectangle(box, fill=label)

    def line(self, p0: tuple[float, float], p1: tuple[float, float], rgb: tuple[int, int, int], label: int,
             width: int = 1) -> None:
        self.d.line([p0, p1], fill=rgb, width=width)
        self.dl.line([p0, p1], fill=label, width=width)

    def gripper(self, x: float, y: float, label: int) -> None:
        rgb = COLORS["white"]
        self.rect((x - 3, y - 3, x - 2, y + 2), rgb, label)
        self.rect((x + 2, y - 3, x + 3, y + 2), rgb, label)
        self.rect((x - 3, y + 2, x + 3, y + 3), rgb, label)

    def clutter(self, n_blobs: int, n_bars: int) -> None:
        rng = self.rng
        for _ in range(n_blobs):
            c = COLOR_NAMES[int(rng.integers(N_OBJ_COLORS))]
            x, y, s = rng.integers(1, SIZE - 3), rng.integers(1, SIZE - 3), int(rng.integers(1, 3))
            self.d.rectangle((x, y, x + s, y + s), fill=_jitter(COLORS[c], rng, 30))
            self.dl.rectangle((x, y, x + s, y + s), fill=0)
        for _ in range(n_bars):
            if rng.random() < 0.5:
                x = int(rng.integers(2, SIZE - 4))
                box = (x, 0, x + int(rng.integers(1, 3)), SIZE)
            else:
                y = int(rng.integers(2, SIZE - 4))
                box = (0, y, SIZE, y + int(rng.integers(1, 3)))
            self.d.rectangle(box, fill=(110, 105, 100))
            self.dl.rectangle(box, fill=0)

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        img = np.asarray(self.img, dtype=np.int16)
        if self.noise:
            img = img + self.rng.integers(-self.noise, self.noise + 1, size=img.shape)
        return np.clip(img, 0, 255).astype(np.uint8), np.asarray(self.lab, dtype=np.int32)


def token(color: str, shape: str) -> tuple[int, int]:
    return COLOR_NAMES.index(color), SHAPES.index(shape)


def _query(skill: str, e1: tuple[int, int] | None = None, e2: tuple[int, int] | None = None) -> np.ndarray:
    e1 = e1 or (NONE_COLOR, NONE_SHAPE)
    e2 = e2 or (NONE_COLOR, NONE_SHAPE)
    return np.array([SKILLS.index(skill), e1[0], e1[1], e2[0], e2[1]], dtype=np.int64)


def _place(rng: np.random.Generator, n: int, *, margin: int = 5, min_dist: float = 9.0,
           tries: int = 2000) -> list[tuple[int, int]]:
    for _ in range(tries):
        pts = rng.integers(margin, SIZE - margin, size=(n, 2))
        d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1)) + np.eye(n) * 99
        if d.min() >= min_dist:
            return [(int(a), int(b)) for a, b in pts]
    raise RuntimeError("could not place objects")


def _distinct_objects(rng: np.random.Generator, n: int, *, colors: int = N_OBJ_COLORS) -> list[tuple[str, str]]:
    combos = [(c, s) for c in COLOR_NAMES[:colors] for s in SHAPES[:N_OBJ_SHAPES]]
    idx = rng.choice(len(combos), size=n, replace=False)
    return [combos[i] for i in idx]


# ----------------------------------------------------------------------------- pointing and boxes
def _object_scene(rng, clutter: float, n: int | None = None):
    """Objects with a cap part each. Returns (image, labels, objects) with objects
    [(colour, shape, x, y, r, part_side)] whose label is k + 1 (body) and 101 + k (cap)."""
    n = n or int(rng.integers(3, 5))
    kinds = _distinct_objects(rng, n)
    pos = _place(rng, n, min_dist=9.0)
    cv = Canvas(rng)
    objs = []
    for k, ((c, s), (x, y)) in enumerate(zip(kinds, pos)):
        r = float(rng.integers(3, 5))
        side = int(rng.integers(4))
        cv.shape(s, x, y, r, _jitter(COLORS[c], rng, 20), k + 1)
        dx, dy = [(0, -1), (1, 0), (0, 1), (-1, 0)][side]
        cx, cy = x + dx * (r + 1), y + dy * (r + 1)
        cv.rect((cx - 1, cy - 1, cx + (0 if dx else 1), cy + (0 if dy else 1)), PART_RGB, 101 + k)
        objs.append((c, s, x, y, r, side))
    cv.clutter(int(rng.poisson(3 * clutter)), int(rng.random() < clutter))
    img, lab = cv.finish()
    return img, lab, objs


def make_object_item(skill: str, rng: np.random.Generator, clutter: float = 0.5, absent: bool = False) -> Item:
    """Pointing / bounding-box items (general object, semantic part, spatial relationship)."""
    for _ in range(100):
        img, lab, objs = _object_scene(rng, clutter)
        k = int(rng.integers(len(objs)))
        c, s = objs[k][:2]
        what = skill.split("_")[1]
        if what == "relation":
            xy = np.array([o[2:4] for o in objs], float)
            d = np.sqrt(((xy - xy[k]) ** 2).sum(1))
            d[k] = np.inf
            order = np.argsort(d)
            if len(objs) > 2 and d[order[1]] - d[order[0]] < 3:
                continue
            mask = lab == order[0] + 1
            q = f"the object nearest to the {c} {s}"
        elif what == "part":
            mask = lab == 101 + k
            q = f"the dark cap of the {c} {s}"
        else:
            mask = lab == k + 1
            q = f"the {c} {s}"
        if mask.sum() < 2:
            continue
        state = {f"obj{j}": [(o[2], o[3])] for j, o in enumerate(objs)}
        ents = {f"obj{j}": token(o[0], o[1]) for j, o in enumerate(objs)}
        e = token(c, s)
        if absent:  # the named object is removed from the scene (presence training only)
            other = [o for o in _distinct_objects(rng, 10) if (o[0], o[1]) not in {(x[0], x[1]) for x in objs}][0]
            e = token(*other)
            q = f"the {other[0]} {other[1]}"
        verb = "Point to" if KIND[skill] == "point" else "Give the bounding box [x, y, w, h] of"
        return Item(skill, img[None], _query(skill, e), f"{verb} {q}.", mask=mask, state=state, entities=ents,
                    present=not absent)
    raise RuntimeError("could not build an object item")


# ----------------------------------------------------------------------------- trajectories
def _ray_dist(p0: np.ndarray, u: np.ndarray, q: np.ndarray) -> float:
    """Distance from q to the ray p0 + t u (t >= 0)."""
    t = max(0.0, float((q - p0) @ u))
    return float(np.linalg.norm(p0 + t * u - q))


def _angles(rng, n: int, sep: float) -> np.ndarray:
    for _ in range(500):
        a = np.sort(rng.uniform(0, 2 * np.pi, n))
        gaps = np.diff(np.r_[a, a[0] + 2 * np.pi])
        if gaps.min() >= sep:
            return rng.permutation(a)
    raise RuntimeError("no angles")


def make_trajectory_item(skill: str, rng: np.random.Generator, clutter: float = 0.5) -> Item:
    """Which arrow, extended, reaches the target (gripper / hand), or which target the object's arrow reaches."""
    for _ in range(300):
        cv = Canvas(rng)
        if skill in ("traj_gripper", "traj_hand"):
            o = np.array(rng.integers(10, SIZE - 10, size=2), float)
            ang = _angles(rng, 4, np.deg2rad(55))
            u = np.stack([np.cos(ang), np.sin(ang)], 1)
            ans = int(rng.integers(4))
            dist = rng.uniform(11, 16)
            tgt = o + u[ans] * dist
            if not (4 <= tgt[0] <= SIZE - 5 and 4 <= tgt[1] <= SIZE - 5):
                continue
            if min(_ray_dist(o, u[j], tgt) for j in range(4) if j != ans) < 5:
                continue
            tc, ts = _distinct_objects(rng, 1, colors=N_OBJ_COLORS)[0]
            if tc in ARROW_COLORS:
                tc = ["magenta", "cyan"][int(rng.integers(2))]
            cv.shape(ts, tgt[0], tgt[1], 3, _jitter(COLORS[tc], rng, 20), 5)
            if skill == "traj_gripper":
                cv.gripper(o[0], o[1], 6)
                start, length = 4.0, rng.uniform(5, 7)
            else:
                cv.shape("circle", o[0], o[1], 2.5, COLORS["peach"], 6)
                start, length = 3.0, rng.uniform(3, 4.5)
            for j in range(4):
                p0, p1 = o + u[j] * start, o + u[j] * (start + length)
                cv.line(tuple(p0), tuple(p1), _jitter(COLORS[ARROW_COLORS[j]], rng, 15), 10 + j)
                cv.rect((p1[0] - 0.5, p1[1] - 0.5, p1[0] + 0.5, p1[1] + 0.5), COLORS[ARROW_COLORS[j]], 10 + j)
            cv.clutter(int(rng.poisson(2 * clutter)), 0)
            img, lab = cv.finish()
            effector = "gripper" if skill == "traj_gripper" else "hand"
            state = {"origin": [tuple(o)], "target": [tuple(tgt)]} | {f"arrow{j}": [tuple(o + u[j] * (start + length / 2))]
                                                                      for j in range(4)}
            ents = ({"origin": token("white" if effector == "gripper" else "peach", effector), "target": token(tc, ts)}
                    | {f"arrow{j}": token(ARROW_COLORS[j], "arrow") for j in range(4)})
            q = (f"The {effector} moves in a straight line. Which arrow brings it to the {tc} {ts}? "
                 + " ".join(f"({L}) {ARROW_COLORS[j]}" for j, L in enumerate(LETTERS)))
            return Item(skill, img[None], _query(skill, token(tc, ts)), q, answer=ans, state=state, entities=ents)
        # object trajectory: one white arrow from an object, four candidate targets
        src = np.array(rng.integers(8, SIZE - 8, size=2), float)
        a = rng.uniform(0, 2 * np.pi)
        u = np.array([np.cos(a), np.sin(a)])
        ans = int(rng.integers(4))
        pts = [None] * 4
        pts[ans] = src + u * rng.uniform(10, 16)
        if not (4 <= pts[ans][0] <= SIZE - 5 and 4 <= pts[ans][1] <= SIZE - 5):
            continue
        ok = True
        for j in range(4):
            if j == ans:
                continue
            for _ in range(50):
                q = rng.uniform(4, SIZE - 5, size=2)
                if (_ray_dist(src, u, q) >= 6 and np.linalg.norm(q - src) >= 8
                        and all(np.linalg.norm(q - p) >= 7 for p in pts if p is not None)):
                    pts[j] = q
                    break
            else:
                ok = False
        if not ok:
            continue
        sc, ss = ["magenta", "cyan"][int(rng.integers(2))], SHAPES[int(rng.integers(N_OBJ_SHAPES))]
        cv.shape(ss, src[0], src[1], 3, _jitter(COLORS[sc], rng, 20), 5)
        for j in range(4):
            cv.shape("circle", pts[j][0], pts[j][1], 2.5, _jitter(COLORS[ARROW_COLORS[j]], rng, 15), 20 + j)
        p0, p1 = src + u * 4, src + u * rng.uniform(8, 9.5)
        cv.line(tuple(p0), tuple(p1), COLORS["white"], 10)
        cv.rect((p1[0] - 0.5, p1[1] - 0.5, p1[0] + 0.5, p1[1] + 0.5), COLORS["white"], 10)
        cv.clutter(int(rng.poisson(2 * clutter)), 0)
        img, lab = cv.finish()
        state = {"origin": [tuple(src)], "arrow": [tuple(src + u * 6)]} | {f"target{j}": [tuple(pts[j])] for j in range(4)}
        ents = ({"origin": token(sc, ss), "arrow": token("white", "arrow")}
                | {f"target{j}": token(ARROW_COLORS[j], "circle") for j in range(4)})
        q = (f"The {sc} {ss} moves along the white arrow. Which target does it reach? "
             + " ".join(f"({L}) {ARROW_COLORS[j]}" for j, L in enumerate(LETTERS)))
        return Item(skill, img[None], _query(skill, token(sc, ss)), q, answer=ans, state=state, entities=ents)
    raise RuntimeError("could not build a trajectory item")


# ----------------------------------------------------------------------------- spatial reasoning
def answer_from_state(skill: str, state: dict[str, list[Any]], entities: dict[str, tuple[int, int]],
                      query: np.ndarray) -> int | None:
    """The exact reasoner: the answer of a diagnosable item from entity positions (None: undecidable).

    Used to generate the items and, in the vertical diagnosis, run on the model's own percepts."""
    def last(name):
        v = state.get(name)
        return None if not v or v[-1] is None else np.asarray(v[-1], float)

    if skill in ("traj_gripper", "traj_hand", "traj_object"):
        o = last("origin")
        if o is None:
            return None
        if skill == "traj_object":
            a = last("arrow")
            cands = [last(f"target{j}") for j in range(4)]
            if a is None or np.linalg.norm(a - o) < 1e-9:
                return None
            u = (a - o) / np.linalg.norm(a - o)
            d = [np.inf if c is None else _ray_dist(o, u, c) for c in cands]
        else:
            tgt = last("target")
            if tgt is None:
                return None
            d = []
            for j in range(4):
                a = last(f"arrow{j}")
                if a is None or np.linalg.norm(a - o) < 1e-9:
                    d.append(np.inf)
                    continue
                d.append(_ray_dist(o, (a - o) / np.linalg.norm(a - o), tgt))
        return None if not np.isfinite(min(d)) else int(np.argmin(d))
    if skill == "spatial_localization":
        frames = [t for t, p in enumerate(state.get("target", [])) if p is not None]
        return frames[0] if len(frames) == 1 else None
    if skill == "spatial_direction":
        a, b = last("A"), last("B")
        if a is None or b is None:
            return None
        dx, dy = b - a
        if abs(dx) >= abs(dy):
            return 0 if dx < 0 else 1
        return 2 if dy < 0 else 3
    if skill == "spatial_path":
        a, g = last("agent"), last("goal")
        if a is None or g is None:
            return None
        dx, dy = g - a
        if abs(dy) >= abs(dx):
            return 0 if dy < 0 else 1
        return 2 if dx < 0 else 3
    if skill in ("plan_next", "plan_progress"):
        b = last("bin")
        if b is None:
            return None
        half = 5.0 if skill == "plan_next" else 7.0

        def inside(p):
            return p is not None and abs(p[0] - b[0]) <= half and abs(p[1] - b[1]) <= half

        if skill == "plan_progress":
            objs = [k for k in state if k.startswith("obj")]
            return int(sum(inside(last(k)) for k in objs))
        o, g = last("object"), last("gripper")
        if o is None or g is None:
            return None
        near = float(np.linalg.norm(o - g)) <= 3.0
        return {(False, False): 0, (False, True): 1, (True, True): 2, (True, False): 3}[(inside(o), near)]
    raise ValueError(f"skill {skill!r} has no position reasoner; choose one of {DIAGNOSABLE}")


def make_spatial_item(skill: str, rng: np.random.Generator, clutter: float = 0.5) -> Item:
    for _ in range(300):
        if skill == "spatial_localization":
            tgt = _distinct_objects(rng, 1)[0]
            others = [o for o in _distinct_objects(rng, 12) if o != tgt]
            t_in = int(rng.integers(4))
            frames, st = [], []
            for t in range(4):
                n = int(rng.integers(2, 4))
                kinds = others[3 * t: 3 * t + n - (t == t_in)] + ([tgt] if t == t_in else [])
                pos = _place(rng, len(kinds), min_dist=9.0)
                cv = Canvas(rng)
                for k, ((c, s), (x, y)) in enumerate(zip(kinds, pos)):
                    cv.shape(s, x, y, float(rng.integers(3, 5)), _jitter(COLORS[c], rng, 20), k + 1)
                cv.clutter(int(rng.poisson(2 * clutter)), int(rng.random() < clutter / 2))
                frames.append(cv.finish()[0])
                st.append(pos[-1] if t == t_in else None)
            state, ents = {"target": st}, {"target": token(*tgt)}
            q = f"In which frame is the {tgt[0]} {tgt[1]}? " + " ".join(
                f"({L}) frame {j + 1}" for j, L in enumerate(LETTERS))
            e1, e2 = token(*tgt), None
        elif skill == "spatial_direction":
            kinds = _distinct_objects(rng, int(rng.integers(2, 4)))
            frames, st = [], {"A": [], "B": []}
            for t in range(3):
                pos = _place(rng, len(kinds), min_dist=8.0)
                cv = Canvas(rng)
                for k, ((c, s), (x, y)) in enumerate(zip(kinds, pos)):
                    cv.shape(s, x, y, 3, _jitter(COLORS[c], rng, 20), k + 1)
                cv.clutter(int(rng.poisson(2 * clutter)), int(rng.random() < clutter / 2))
                frames.append(cv.finish()[0])
                st["A"].append(pos[0])
                st["B"].append(pos[1])
            d = np.subtract(st["B"][-1], st["A"][-1])
            if abs(abs(d[0]) - abs(d[1])) < 4:
                continue
            state, ents = st, {"A": token(*kinds[0]), "B": token(*kinds[1])}
            (ca, sa), (cb, sb) = kinds[0], kinds[1]
            q = (f"In the current (last) view, where is the {cb} {sb} relative to the {ca} {sa}? "
                 + " ".join(f"({L}) {o}" for L, o in zip(LETTERS, OPTIONS[skill])))
            e1, e2 = token(*kinds[0]), token(*kinds[1])
        else:  # spatial_path on an 8 x 8 grid of 4-pixel cells
            cells = rng.choice(64, size=int(rng.integers(3, 5)), replace=False)
            xy = [(4 * (c % 8) + 2, 4 * (c // 8) + 2) for c in cells]
            d = np.subtract(xy[1], xy[0]) / 4
            if abs(abs(d[0]) - abs(d[1])) < 2:
                continue
            kinds = _distinct_objects(rng, len(cells) - 1)
            cv = Canvas(rng)
            for g in range(0, SIZE, 4):
                cv.d.line([(g, 0), (g, SIZE)], fill=(82, 74, 66))
                cv.d.line([(0, g), (SIZE, g)], fill=(82, 74, 66))
            cv.rect((xy[0][0] - 1, xy[0][1] - 1, xy[0][0] + 1, xy[0][1] + 1), COLORS["white"], 1)
            for k, ((c, s), (x, y)) in enumerate(zip(kinds, xy[1:])):
                cv.shape(s, x, y, 1.5, _jitter(COLORS[c], rng, 20), k + 2)
            cv.clutter(int(rng.poisson(clutter)), 0)
            frames = [cv.finish()[0]]
            state = {"agent": [xy[0]], "goal": [xy[1]]}
            ents = {"agent": token("white", "agent"), "goal": token(*kinds[0])}
            q = (f"You are the white square. Which first move brings you closer to the {kinds[0][0]} "
                 f"{kinds[0][1]} along a shortest path? " + " ".join(f"({L}) {o}" for L, o in zip(LETTERS, OPTIONS[skill])))
            e1, e2 = token(*kinds[0]), None
        ans = answer_from_state(skill, state, ents, _query(skill))
        if ans is None:
            continue
        return Item(skill, np.stack(frames), _query(skill, e1, e2), q, answer=ans, state=state, entities=ents)
    raise RuntimeError("could not build a spatial item")


# ----------------------------------------------------------------------------- task planning
def make_planning_item(skill: str, rng: np.random.Generator, clutter: float = 0.5) -> Item:
    for _ in range(300):
        if skill == "plan_next":
            (c, s), = _distinct_objects(rng, 1)
            bx, by = [(7, 7), (24, 7), (7, 24), (24, 24)][int(rng.integers(4))]
            phase = int(rng.integers(4))
            phases = [max(0, phase - int(rng.integers(0, 2))), phase]
            frames, st = [], {"object": [], "gripper": [], "bin": []}
            home = np.array(_place(rng, 1, margin=6)[0], float)
            for ph in phases:
                far = home + rng.integers(-2, 3, 2)
                if ph == 0:      # object on the table, gripper elsewhere
                    o = home
                    g = np.clip(o + rng.choice([-1, 1], 2) * rng.uniform(7, 12, 2), 4, SIZE - 5)
                elif ph == 1:    # gripper holds the object outside the bin
                    o = far
                    g = o.copy()
                elif ph == 2:    # gripper holds the object over the bin
                    o = np.array([bx, by], float) + rng.integers(-2, 3, 2)
                    g = o.copy()
                else:            # object in the bin, gripper gone
                    o = np.array([bx, by], float) + rng.integers(-2, 3, 2)
                    g = np.clip(o + rng.choice([-1, 1], 2) * rng.uniform(7, 12, 2), 4, SIZE - 5)
                cv = Canvas(rng)
                cv.rect((bx - 6, by - 6, bx + 6, by + 6), COLORS["gray"], 1, outline=True)
                cv.shape(s, o[0], o[1], 2.5, _jitter(COLORS[c], rng, 20), 2)
                cv.gripper(g[0], g[1], 3)
                cv.clutter(int(rng.poisson(2 * clutter)), 0)
                frames.append(cv.finish()[0])
                st["object"].append(tuple(o))
                st["gripper"].append(tuple(g))
                st["bin"].append((bx, by))
            ents = {"object": token(c, s), "gripper": token("white", "gripper"), "bin": token("gray", "bin")}
            q = (f"The robot puts the {c} {s} into the grey bin. What should it do next? "
                 + " ".join(f"({L}) {o}" for L, o in zip(LETTERS, OPTIONS[skill])))
            e1 = token(c, s)
        else:
            kinds = _distinct_objects(rng, 3)
            bx, by = [(9, 9), (22, 9), (9, 22), (22, 22)][int(rng.integers(4))]
            k_in = int(rng.integers(4))
            cv = Canvas(rng)
            cv.rect((bx - 8, by - 8, bx + 8, by + 8), COLORS["gray"], 1, outline=True)
            st = {"bin": [(bx, by)]}
            placed: list[np.ndarray] = []
            for j, (c, s) in enumerate(kinds):
                for _ in range(200):
                    if j < k_in:
                        p = np.array([bx, by], float) + rng.integers(-4, 5, 2)
                    else:
                        p = rng.integers(3, SIZE - 3, 2).astype(float)
                        if abs(p[0] - bx) <= 10 and abs(p[1] - by) <= 10:
                            continue
                    if all(np.linalg.norm(p - z) >= 6 for z in placed):
                        break
                placed.append(p)
                cv.shape(s, p[0], p[1], 2.5, _jitter(COLORS[c], rng, 20), 2 + j)
                st[f"obj{j}"] = [tuple(p)]
            cv.clutter(int(rng.poisson(2 * clutter)), 0)
            frames = [cv.finish()[0]]
            ents = {"bin": token("gray", "bin")} | {f"obj{j}": token(*kinds[j]) for j in range(3)}
            q = ("Three objects are to be put into the grey bin. How many are already in it? "
                 + " ".join(f"({L}) {o}" for L, o in zip(LETTERS, OPTIONS[skill])))
            e1 = None
        ans = answer_from_state(skill, st, ents, _query(skill))
        if ans is None:
            continue
        return Item(skill, np.stack(frames), _query(skill, e1), q, answer=ans, state=st, entities=ents)
    raise RuntimeError("could not build a planning item")


def make_item(skill: str, rng: Any = 0, clutter: float = 0.5, absent: bool = False) -> Item:
    """One item of ``skill`` (one of :data:`SKILLS`); ``clutter`` in [0, 1] scales blobs and bars."""
    if skill not in SKILLS:
        raise ValueError(f"skill must be one of {SKILLS}, got {skill!r}")
    if isinstance(clutter, bool) or not isinstance(clutter, (int, float)) or not 0 <= clutter <= 1:
        raise ValueError(f"clutter must be a number in [0, 1], got {clutter!r}")
    rng = as_rng("rng", rng)
    cat = CATEGORY_OF[skill]
    if cat in ("pointing", "bbox"):
        return make_object_item(skill, rng, clutter, absent=absent)
    if absent:
        raise ValueError("absent items exist only for pointing/bbox skills")
    if cat == "trajectory":
        return make_trajectory_item(skill, rng, clutter)
    if cat == "spatial":
        return make_spatial_item(skill, rng, clutter)
    return make_planning_item(skill, rng, clutter)


def make_items(skill: str, n: int, seed: Any = 0, clutter: float = 0.5) -> list[Item]:
    """``n`` items of ``skill`` from one generator (``seed``: int or numpy Generator)."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    return [make_item(skill, rng, clutter) for _ in range(n)]


# ----------------------------------------------------------------------------- long-horizon episodes
class GridEpisodeEnv:
    """A long-horizon episode on an 8 x 8 grid (gymnasium API): walk to the named object.

    Success needs the same skills chained: find the named object among distractors (general object
    perception) and choose a move towards it at every step (path planning), within
    ``manhattan distance + slack`` steps. The observation is the rendered map (H, W, 3) uint8;
    actions are 0 up, 1 down, 2 left, 3 right (the path-planning options).
    """

    def __init__(self, slack: int = 1, clutter: float = 0.5):
        import gymnasium as gym

        self.slack = check_int("slack", slack, minimum=0)
        self.clutter = float(clutter)
        self.action_space = gym.spaces.Discrete(4)
        self.observation_space = gym.spaces.Box(0, 255, (SIZE, SIZE, 3), np.uint8)

    def reset(self, *, seed: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        self.rng = as_rng("seed", seed)
        while True:
            cells = self.rng.choice(64, size=int(self.rng.integers(4, 6)), replace=False)
            xy = np.array([(c % 8, c // 8) for c in cells])
            if np.abs(xy[1] - xy[0]).sum() >= 5:
                break
        self.agent, self.goal, self.others = xy[0].copy(), xy[1].copy(), xy[2:]
        self.kinds = _distinct_objects(self.rng, len(cells) - 1)
        self.budget = int(np.abs(self.goal - self.agent).sum()) + self.slack
        self.steps = 0
        return self._obs(), {"target": self.kinds[0], "query": _query("spatial_path", token(*self.kinds[0]))}

    def _obs(self) -> np.ndarray:
        cv = Canvas(self.rng)
        for g in range(0, SIZE, 4):
            cv.d.line([(g, 0), (g, SIZE)], fill=(82, 74, 66))
            cv.d.line([(0, g), (SIZE, g)], fill=(82, 74, 66))
        ax, ay = 4 * self.agent + 2
        cv.rect((ax - 1, ay - 1, ax + 1, ay + 1), COLORS["white"], 1)
        for (c, s), p in zip(self.kinds, [self.goal, *self.others]):
            x, y = 4 * p + 2
            cv.shape(s, x, y, 1.5, _jitter(COLORS[c], self.rng, 20), 2)
        cv.clutter(int(self.rng.poisson(self.clutter)), 0)
        return cv.finish()[0]

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_space.contains(int(action)):
            raise ValueError(f"action must be 0..3, got {action!r}")
        d = [(0, -1), (0, 1), (-1, 0), (1, 0)][int(action)]
        nxt = np.clip(self.agent + d, 0, 7)
        if not any((nxt == o).all() for o in self.others):
            self.agent = nxt
        self.steps += 1
        done = bool((self.agent == self.goal).all())
        return self._obs(), float(done), done, self.steps >= self.budget and not done, {}
