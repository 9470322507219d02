"""The simulated world for PSG-Nav (arXiv:2606.01313): grid houses, a room-object prior, a noisy detector.

A house is a 3 x 3 grid of square rooms (``room_size`` cells a side) joined by doors: a random
spanning tree of the grid's neighbour pairs plus a few extra doors, held as a ``networkx``
graph whose edge weight is the walking distance in cells between room centres. Every room has
a type drawn from ``ROOM_PRIOR`` and ``n_landmarks`` landmark objects drawn from the
room-object prior ``P(c | t)`` (``object_prior``: the ``AFFINITY`` table raised to a
``sharpness`` power and normalised per room type). This table plays the part of the LLM's
commonsense in the paper: the agent scores worlds with the same table the world was drawn from.

Detector (the open-vocabulary detector of the paper, replaced by a confusion model):
* from the next room, a landmark is seen as a categorical distribution: with probability
  ``far_accuracy`` the strong mode is its true class, otherwise mostly its look-alike
  (sofa/bed, toilet/sink, dining table/desk, tv/monitor); the look-alike of the mode gets a
  second bump and every logit gets Gaussian noise, so the output is ambiguous between pairs
  that belong to different room types;
* inside a room the goal instance (hidden from afar) is detected with a confidence;
* persistent false positives: a per-seed library of decoy instances, each with a fixed
  appearance vector, that the detector always calls a given goal category with high
  confidence; they reappear in later houses (the sim-to-real failure the paper's memory is for);
* one-off false positives: an ordinary object misread as the goal with a fresh appearance.

All randomness of an episode is drawn up front from its own generator, so every arm (policy)
meets the same house, goal, detections and decoys: arms are paired episode by episode.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from icml26.core.validate import check_int, check_positive

CATEGORIES: tuple[str, ...] = ("bed", "sofa", "toilet", "bathtub", "sink", "dining_table", "desk", "tv",
                               "monitor", "oven")
ROOM_TYPES: tuple[str, ...] = ("bedroom", "living_room", "bathroom", "kitchen", "office")
ROOM_PRIOR = np.array([0.3, 0.2, 0.2, 0.15, 0.15])
#: commonsense affinity of each category (rows) to each room type (columns), before sharpening
AFFINITY = np.array([
    # bedroom living bath  kitchen office
    [10.0, 0.3, 0.05, 0.05, 0.3],   # bed
    [0.5, 8.0, 0.05, 0.1, 1.0],     # sofa
    [0.05, 0.05, 10.0, 0.05, 0.05],  # toilet
    [0.1, 0.05, 8.0, 0.05, 0.05],   # bathtub
    [0.1, 0.1, 6.0, 6.0, 0.1],      # sink
    [0.1, 3.0, 0.05, 6.0, 0.3],     # dining_table
    [2.0, 0.5, 0.05, 0.2, 8.0],     # desk
    [3.0, 8.0, 0.05, 0.5, 0.5],     # tv
    [1.0, 0.5, 0.05, 0.1, 8.0],     # monitor
    [0.05, 0.1, 0.05, 8.0, 0.1],    # oven
])
#: the detector's look-alike of each category (-1: none)
LOOKALIKE = np.array([1, 0, 4, -1, 2, 6, 5, 8, 7, -1])
#: categories an episode may ask for (each has a clear home room type)
GOAL_CATEGORIES: tuple[int, ...] = (0, 1, 2, 7, 9)
GRID = 3
N_ROOMS = GRID * GRID
APPEARANCE_DIM = 32


def object_prior(sharpness: float = 1.0) -> np.ndarray:
    """``P(c | t)``: (n_categories, n_room_types), columns sum to 1; ``AFFINITY ** sharpness`` normalised."""
    s = check_positive("sharpness", sharpness)
    a = AFFINITY ** s
    return a / a.sum(axis=0, keepdims=True)


def landmark_prior(prior: np.ndarray, goal: int) -> np.ndarray:
    """``P(c | t)`` of landmark objects, which are never of the goal category: the goal's row removed, renormalised."""
    p = np.array(prior, dtype=float)
    p[goal] = 0.0
    return p / p.sum(axis=0, keepdims=True)


@dataclass
class Decoys:
    """A seed's library of persistent false positives: the goal each mimics and its fixed appearance."""

    mimics: np.ndarray       # (n_decoys,) goal category each decoy is mistaken for
    appearance: np.ndarray   # (n_decoys, APPEARANCE_DIM), unit rows


def make_decoys(rng: np.random.Generator, per_goal: int = 2) -> Decoys:
    mimics = np.repeat(np.array(GOAL_CATEGORIES), per_goal)
    app = rng.standard_normal((mimics.size, APPEARANCE_DIM))
    return Decoys(mimics, app / np.linalg.norm(app, axis=1, keepdims=True))


def category_prototypes(rng: np.random.Generator) -> np.ndarray:
    """One unit appearance prototype per category (instances scatter around it)."""
    p = rng.standard_normal((len(CATEGORIES), APPEARANCE_DIM))
    return p / np.linalg.norm(p, axis=1, keepdims=True)


@dataclass
class House:
    """One episode's world (everything an arm may meet, drawn before any arm moves)."""

    types: np.ndarray          # (R,) room types
    graph: nx.Graph            # doors; weight = walking distance in cells
    dist: np.ndarray           # (R, R) shortest walking distances
    landmarks: np.ndarray      # (R, M) true landmark classes
    far_probs: np.ndarray      # (R, M, C) detector distributions seen from a neighbouring room
    goal: int
    goal_room: int
    start: int
    goal_conf: float           # detector confidence on the goal instance at close range
    goal_app: np.ndarray       # (D,) the goal instance's appearance (one view)
    fp_conf: np.ndarray        # (R,) confidence of a false 'goal' detection in each room (0: none)
    fp_app: np.ndarray         # (R, D) its appearance
    fp_persistent: np.ndarray  # (R,) bool: the false positive is a library decoy


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def house_graph(rng: np.random.Generator, room_size: int, extra_doors: float) -> nx.Graph:
    """Doors of a GRID x GRID house: a random spanning tree of grid neighbours plus extra doors."""
    grid = nx.grid_2d_graph(GRID, GRID)
    for u, v in grid.edges:
        grid.edges[u, v]["weight"] = float(rng.random())
    tree = nx.minimum_spanning_tree(grid)  # random weights: a random spanning tree
    g = nx.Graph()
    g.add_nodes_from(range(N_ROOMS))
    for u, v in grid.edges:
        if tree.has_edge(u, v) or rng.random() < extra_doors:
            g.add_edge(u[0] * GRID + u[1], v[0] * GRID + v[1], weight=float(room_size))
    return g


def far_detection(rng: np.random.Generator, true_class: np.ndarray, accuracy: float, peak: float = 2.5,
                  lookalike_bump: float = 1.6, noise: float = 0.6) -> np.ndarray:
    """Detector distributions (..., C) for objects of ``true_class`` seen from afar (see module docstring)."""
    c = len(CATEGORIES)
    tc = np.asarray(true_class)
    seen = tc.copy()
    wrong = rng.random(tc.shape) >= accuracy
    la = LOOKALIKE[tc]
    to_la = wrong & (la >= 0) & (rng.random(tc.shape) < 0.8)
    seen[to_la] = la[to_la]
    rand = wrong & ~to_la
    seen[rand] = (tc[rand] + rng.integers(1, c, size=int(rand.sum()))) % c
    logits = noise * rng.standard_normal(tc.shape + (c,))
    np.put_along_axis(logits, seen[..., None], np.take_along_axis(logits, seen[..., None], -1) + peak, -1)
    la_seen = LOOKALIKE[seen]
    has = la_seen >= 0
    idx = np.where(has, la_seen, seen)[..., None]
    np.put_along_axis(logits, idx, np.take_along_axis(logits, idx, -1) + lookalike_bump * has[..., None], -1)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def make_house(rng: np.random.Generator, *, prior: np.ndarray, decoys: Decoys, prototypes: np.ndarray,
               n_landmarks: int = 3, room_size: int = 8, extra_doors: float = 0.3, far_accuracy: float = 0.65,
               decoy_rate: float = 0.5, random_fp_rate: float = 0.05) -> House:
    """Draw one house and every detection an agent could make in it."""
    m = check_int("n_landmarks", n_landmarks, minimum=1)
    check_int("room_size", room_size, minimum=1)
    for name, v in (("far_accuracy", far_accuracy), ("decoy_rate", decoy_rate), ("random_fp_rate", random_fp_rate),
                    ("extra_doors", extra_doors)):
        check_positive(name, v, strict=False)
        if v > 1:
            raise ValueError(f"{name} must lie in [0, 1], got {v!r}")
    g = house_graph(rng, room_size, extra_doors)
    dist = np.asarray(nx.floyd_warshall_numpy(g, nodelist=range(N_ROOMS)), dtype=float)
    types = rng.choice(len(ROOM_TYPES), size=N_ROOMS, p=ROOM_PRIOR)
    goal = int(rng.choice(GOAL_CATEGORIES))
    lp = landmark_prior(prior, goal)
    u = rng.random((N_ROOMS, m))
    cdf = np.cumsum(lp[:, types].T, axis=1)  # (R, C)
    landmarks = np.minimum((u[..., None] > cdf[:, None, :]).sum(-1), len(CATEGORIES) - 1)
    far = far_detection(rng, landmarks, far_accuracy)
    w = prior[goal, types]
    goal_room = int(rng.choice(N_ROOMS, p=w / w.sum()))
    others = np.array([r for r in range(N_ROOMS) if r != goal_room])
    start = int(rng.choice(others))
    goal_conf = float(rng.uniform(0.45, 0.95))
    goal_app = _unit(_unit(prototypes[goal] + 0.45 * _unit(rng.standard_normal(APPEARANCE_DIM)))
                     + 0.1 * rng.standard_normal(APPEARANCE_DIM) / np.sqrt(APPEARANCE_DIM))
    fp_conf = np.zeros(N_ROOMS)
    fp_app = np.zeros((N_ROOMS, APPEARANCE_DIM))
    fp_persistent = np.zeros(N_ROOMS, bool)
    # one-off false positives: an ordinary object misread as the goal, a fresh appearance
    one_off = (rng.random(N_ROOMS) < random_fp_rate)
    one_off[goal_room] = False
    fp_conf[one_off] = rng.uniform(0.5, 0.9, size=int(one_off.sum()))
    fp_app[one_off] = _unit(rng.standard_normal((int(one_off.sum()), APPEARANCE_DIM)))
    # persistent false positives: the seed's decoys that mimic this goal, each present with decoy_rate
    for k in np.flatnonzero(decoys.mimics == goal):
        present = rng.random() < decoy_rate
        room = int(rng.choice(others))
        conf = float(rng.uniform(0.6, 0.95))
        view = _unit(decoys.appearance[k] + 0.15 * rng.standard_normal(APPEARANCE_DIM) / np.sqrt(APPEARANCE_DIM))
        if present:
            fp_conf[room], fp_app[room], fp_persistent[room] = conf, view, True
    return House(types, g, dist, landmarks, far, goal, goal_room, start, goal_conf, goal_app, fp_conf, fp_app,
                 fp_persistent)
