"""A procedural multi-mouse "widefield" world for the WiCAT reproduction (all of it our construction).

The paper's data (multi-mouse widefield movies registered to the Allen CCF) are not available, so
this module simulates what matters for its claims:

* an **atlas**: ``n_regions`` Voronoi parcels on a ``size x size`` elliptical "dorsal cortex" mask,
  shared by every subject (the stand-in for the CCF);
* a **shared latent** ``z(t) in R^d`` (stable rotational linear dynamics + noise; one dynamics per
  task) and a large **task-irrelevant** factor ``u(t)`` (slow AR(1));
* a **nonlinear per-region map** ``a_r = g_{s,r} softplus(L_r z + M_r u + b_r + delta_{s,r})`` with
  subject gains ``g`` and subject offsets ``delta`` *inside* the softplus (so per-subject z-scoring
  cannot undo them), convolved with an exponential calcium kernel;
* a pixel movie: each region's trace times a smooth within-region profile, blurred (sigma 1 px),
  plus **haemodynamic contamination** (a global slow signal times a subject-specific spatial map)
  and pixel noise;
* a **residual registration error**: the registered frame is the atlas-frame movie shifted by a
  per-session sub-pixel offset in [-2, 2] px, so the atlas is only approximately right;
* **behaviour**: a nonlinear readout of ``z`` (task A: ``tanh`` of one projection plus the square of
  another; task B, the transfer task: other dynamics and ``|w.z|`` plus a sine term).

Both tokenizations are computed on the same registered frame: parcel traces (atlas means, WiCAT's
tokens) and 6x6-pixel grid patches (``WorldConfig.grid_patch``; the control's tokens), so the comparison isolates parcel tokens
from registration. Shapes: movie ``(T, H, W)``; traces ``(T, channels)``; behaviour ``(T,)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_array, check_int

TASKS = ("A", "B")


@dataclass(frozen=True)
class WorldConfig:
    """Every knob of the simulated world."""

    size: int = 32
    n_regions: int = 20
    latent_dim: int = 6
    irrelevant_dim: int = 3
    n_subjects: int = 8
    n_frames: int = 1200
    tau_calcium: float = 3.0      # frames
    gain_sd: float = 0.3          # log-normal subject gains
    offset_sd: float = 0.5        # subject offsets inside the softplus
    irrelevant_scale: float = 1.5  # task-irrelevant drive relative to the latent's
    hemo_scale: float = 0.6
    pixel_noise: float = 0.4
    max_shift: float = 2.0        # residual registration error, px
    grid_patch: int = 6           # px; 6 gives about as many grid tokens as parcels


def _rotation_dynamics(dim: int, rng: np.random.Generator, radius: tuple[float, float],
                       freq: tuple[float, float]) -> np.ndarray:
    """A stable block-rotation matrix (pairs of latent dimensions oscillate and decay)."""
    a = np.zeros((dim, dim))
    for i in range(0, dim - 1, 2):
        r, w = rng.uniform(*radius), rng.uniform(*freq)
        a[i:i + 2, i:i + 2] = r * np.array([[np.cos(w), -np.sin(w)], [np.sin(w), np.cos(w)]])
    if dim % 2:
        a[-1, -1] = rng.uniform(*radius)
    q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    return q @ a @ q.T


def simulate_latent(a: np.ndarray, n_frames: int, rng: np.random.Generator) -> np.ndarray:
    """``z_{t+1} = A z_t + eps``, scaled to unit variance per dimension; ``(n_frames, d)``."""
    d = a.shape[0]
    z = np.zeros((n_frames + 100, d))
    for t in range(1, z.shape[0]):
        z[t] = a @ z[t - 1] + 0.3 * rng.standard_normal(d)
    z = z[100:]
    return (z - z.mean(0)) / (z.std(0) + 1e-9)


def make_atlas(size: int, n_regions: int, rng: np.random.Generator) -> np.ndarray:
    """Voronoi parcels on an elliptical mask: ``(size, size)`` int, -1 outside the cortex."""
    yy, xx = np.mgrid[0:size, 0:size]
    c = (size - 1) / 2
    inside = ((yy - c) / (0.48 * size)) ** 2 + ((xx - c) / (0.45 * size)) ** 2 <= 1.0
    pts = np.argwhere(inside)
    # farthest-point-ish seeds: random draws, keep the most spread of a few tries
    best, best_gap = None, -1.0
    for _ in range(20):
        s = pts[rng.choice(len(pts), n_regions, replace=False)].astype(float)
        gap = min(np.linalg.norm(s[i] - s[j]) for i in range(n_regions) for j in range(i + 1, n_regions))
        if gap > best_gap:
            best, best_gap = s, gap
    d = ((np.stack([yy, xx], -1)[:, :, None, :] - best[None, None]) ** 2).sum(-1)
    atlas = np.argmin(d, axis=-1)
    atlas[~inside] = -1
    return atlas


@dataclass
class World:
    """The shared atlas and physiology plus per-subject traits."""

    cfg: WorldConfig
    atlas: np.ndarray            # (H, W)
    dynamics: dict               # task -> (d, d)
    readout: dict                # task -> dict of weights
    L: np.ndarray                # (R, d)
    M: np.ndarray                # (R, irrelevant_dim)
    b: np.ndarray                # (R,)
    gains: np.ndarray            # (S, R)
    offsets: np.ndarray          # (S, R)
    hemo_maps: np.ndarray        # (S, H, W)
    profiles: np.ndarray         # (H, W) within-region spatial profile


def make_world(cfg: WorldConfig, seed: int) -> World:
    """Draw the atlas, the shared physiology and each subject's traits from ``seed``."""
    from scipy.ndimage import gaussian_filter

    rng = np.random.default_rng([int(seed), 7001])
    atlas = make_atlas(cfg.size, cfg.n_regions, rng)
    d, r, s = cfg.latent_dim, cfg.n_regions, cfg.n_subjects
    dyn = {"A": _rotation_dynamics(d, rng, (0.93, 0.98), (0.05, 0.25)),
           "B": _rotation_dynamics(d, rng, (0.90, 0.97), (0.15, 0.45))}
    w = rng.standard_normal((4, d)) / np.sqrt(d)
    readout = {"A": {"w1": w[0], "w2": w[1]}, "B": {"w1": w[2], "w2": w[3]}}
    L = 1.2 * rng.standard_normal((r, d)) / np.sqrt(d) * 2
    M = cfg.irrelevant_scale * rng.standard_normal((r, cfg.irrelevant_dim)) / np.sqrt(cfg.irrelevant_dim)
    b = rng.normal(-0.5, 0.5, r)
    gains = np.exp(cfg.gain_sd * rng.standard_normal((s, r)))
    offsets = cfg.offset_sd * rng.standard_normal((s, r))
    hemo = np.stack([gaussian_filter(rng.standard_normal((cfg.size, cfg.size)), 4.0) for _ in range(s)])
    hemo = 1.0 + hemo / (hemo.std(axis=(1, 2), keepdims=True) + 1e-9) * 0.5
    prof = 0.75 + 0.25 * gaussian_filter(rng.standard_normal((cfg.size, cfg.size)), 2.0) * 3
    return World(cfg, atlas, dyn, readout, L, M, b, gains, offsets, hemo, np.clip(prof, 0.3, 1.3))


def behaviour(world: World, z: np.ndarray, task: str) -> np.ndarray:
    """Nonlinear behavioural readout of the latent ``z`` (T, d) -> (T,), z-scored."""
    w = world.readout[task]
    if task == "A":
        y = np.tanh(1.5 * z @ w["w1"]) + 0.5 * (z @ w["w2"]) ** 2
    else:
        y = np.abs(z @ w["w1"]) + np.sin(2.0 * z @ w["w2"])
    return (y - y.mean()) / (y.std() + 1e-9)


@dataclass
class Session:
    subject: int
    task: str
    shift: tuple[float, float]
    frames: np.ndarray        # (T, H, W) registered movie
    behaviour: np.ndarray     # (T,)
    latent: np.ndarray        # (T, d)


def simulate_session(world: World, subject: int, task: str, seed: int) -> Session:
    """One recording of ``subject`` doing ``task``: the registered movie, behaviour and latent."""
    from scipy.ndimage import gaussian_filter, shift as nd_shift
    from scipy.signal import lfilter

    cfg = world.cfg
    check_int("subject", subject, minimum=0, maximum=cfg.n_subjects - 1)
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    rng = np.random.default_rng([int(seed), 7002, subject, TASKS.index(task)])
    T = cfg.n_frames
    z = simulate_latent(world.dynamics[task], T, rng)
    # AR(1) recursions as filters (the same draws, in the same order, as a frame-by-frame loop)
    eps = np.concatenate([np.zeros((1, cfg.irrelevant_dim)), rng.standard_normal((T - 1, cfg.irrelevant_dim))])
    u = lfilter([np.sqrt(1 - 0.97 ** 2)], [1, -0.97], eps, axis=0)
    drive = z @ world.L.T + u @ world.M.T + world.b + world.offsets[subject]
    act = world.gains[subject] * np.logaddexp(0.0, 2.0 * drive) / 2.0          # (T, R) softplus
    k = np.exp(-1.0 / cfg.tau_calcium)
    act = lfilter([1 - k], [1, -k], act, axis=0)                                # calcium kernel
    h = lfilter([np.sqrt(1 - 0.99 ** 2)], [1, -0.99], np.concatenate([[0.0], rng.standard_normal(T - 1)]))
    atlas = world.atlas
    inside = atlas >= 0
    shift = tuple(rng.uniform(-cfg.max_shift, cfg.max_shift, 2))
    # blur and shift are the same linear map on every frame, so they are applied once to each region's
    # spatial footprint (and to the haemodynamic map) and the movie is a product of traces and maps:
    # identical, up to rounding, to blurring and shifting the frame stack itself
    def spatial(img: np.ndarray, blur: bool) -> np.ndarray:
        img = gaussian_filter(img, sigma=1.0) if blur else img
        return nd_shift(img, shift, order=1, mode="nearest")

    maps = np.stack([spatial(world.profiles * (atlas == r), True) for r in range(cfg.n_regions)]
                    + [spatial(cfg.hemo_scale * world.hemo_maps[subject] * inside, False)])   # (R + 1, H, W)
    sources = np.concatenate([act, h[:, None]], 1)                                            # (T, R + 1)
    movie = (sources @ maps.reshape(maps.shape[0], -1)).reshape(T, *atlas.shape)
    movie += cfg.pixel_noise * rng.standard_normal(movie.shape)
    return Session(subject, task, (float(shift[0]), float(shift[1])), movie.astype(np.float32),
                   behaviour(world, z, task), z)


# ----------------------------------------------------------------------------- tokenization inputs
def parcel_traces(frames: np.ndarray, atlas: np.ndarray) -> np.ndarray:
    """Atlas-grounded channels: the mean of each parcel's pixels per frame. ``(T, H, W) -> (T, R)``."""
    frames = as_array("frames", frames, ndim=3)
    atlas = np.asarray(atlas)
    if atlas.shape != frames.shape[1:]:
        raise ValueError(f"atlas must have shape {frames.shape[1:]}, got {atlas.shape}")
    r = int(atlas.max()) + 1
    flat = frames.reshape(frames.shape[0], -1)
    lab = atlas.reshape(-1)
    out = np.zeros((frames.shape[0], r))
    for i in range(r):
        out[:, i] = flat[:, lab == i].mean(1)
    return out


def grid_traces(frames: np.ndarray, inside: np.ndarray, patch: int = 6, min_cover: float = 0.5) -> np.ndarray:
    """Grid-patch channels on the registered frame: the mean of each ``patch x patch`` block (the grid
    centred in the frame) that is at least ``min_cover`` inside the cortex mask. ``(T, H, W) -> (T, G)``."""
    frames = as_array("frames", frames, ndim=3)
    patch = check_int("patch", patch, minimum=1)
    t, hh, ww = frames.shape
    inside = np.asarray(inside, dtype=bool)
    if inside.shape != (hh, ww):
        raise ValueError(f"inside must have shape {(hh, ww)}, got {inside.shape}")
    oi, oj = (hh % patch) // 2, (ww % patch) // 2
    cols = []
    for i in range(oi, hh - patch + 1, patch):
        for j in range(oj, ww - patch + 1, patch):
            m = inside[i:i + patch, j:j + patch]
            if m.mean() >= min_cover:
                cols.append(frames[:, i:i + patch, j:j + patch][:, m].mean(1))
    return np.stack(cols, 1)


def zscore(x: np.ndarray) -> np.ndarray:
    """Per-session, per-channel z-scoring (the only use of an unseen subject's statistics)."""
    x = as_array("x", x, ndim=2)
    return (x - x.mean(0)) / (x.std(0) + 1e-6)
