"""The simulated radio world of snrft: a 2-D room solved by ceviche's FDFD Maxwell solver.

Ground truth does not come from any ray model: a 2-D frequency-domain Maxwell solve (TM,
E_z polarisation, ``ceviche.fdfd_ez``) of a square room at 2.4 GHz with lossy dielectric
walls (partial reflection, so multiple bounces and standing waves) and rectangular lossy
dielectric obstacles of two materials (so transmission loss, diffraction round edges and
interference). Perfectly matched layers absorb what leaves the room.

One sparse LU factorisation of ceviche's assembled operator serves every transmitter of a
scene (ceviche's own solver would refactorise per source). ceviche's derivative matrices
are periodic; the few wrap-around entries sit behind the PML and are dropped, which keeps
the fill of scipy's SuperLU (symmetric minimum-degree ordering) small and changes the field by ~1e-7
relative (checked in tests).

Target: the local-mean received power in dB, |E_z|^2 averaged over a one-wavelength box
around the receiver (removes fast fading, as a power measurement averaged over a small
area does). Lengths are in wavelengths throughout; the room interior is [0, L] x [0, L].

Field maps are cached under ``~/.cache/icml26/snrft/`` keyed by the scene's parameters and
seed, and rebuilt when absent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from icml26.core.validate import as_rng, check_int, check_positive

FREQ_HZ = 2.4e9
#: Relative permittivities (negative imaginary part = loss in ceviche's convention).
WALL_EPS = 4.0 - 1.0j
MATERIALS = {0: 3.0 - 0.3j, 1: 4.0 - 1.2j}  # 0: light (~4.7 dB/wavelength), 1: heavy (~16 dB/wavelength)


@dataclass(frozen=True)
class Scene:
    """A square room of side ``L`` wavelengths with rectangular obstacles.

    ``obstacles``: tuples ``(x0, y0, x1, y1, material)`` in wavelengths, material in {0, 1}.
    """

    L: float
    ppw: int
    wall: float
    obstacles: tuple[tuple[float, float, float, float, int], ...]
    seed: int

    def material_masks(self, pts: np.ndarray) -> np.ndarray:
        """(..., n_materials) indicator of each material at points ``pts`` (..., 2)."""
        out = np.zeros(pts.shape[:-1] + (len(MATERIALS),))
        for x0, y0, x1, y1, m in self.obstacles:
            inside = (pts[..., 0] >= x0) & (pts[..., 0] <= x1) & (pts[..., 1] >= y0) & (pts[..., 1] <= y1)
            out[..., m] = np.maximum(out[..., m], inside)
        return out

    def free(self, pts: np.ndarray, margin: float = 0.0) -> np.ndarray:
        """Points at least ``margin`` inside the room and ``margin`` away from every obstacle."""
        ok = np.all((pts >= margin) & (pts <= self.L - margin), axis=-1)
        for x0, y0, x1, y1, _ in self.obstacles:
            ok &= ~((pts[..., 0] >= x0 - margin) & (pts[..., 0] <= x1 + margin)
                    & (pts[..., 1] >= y0 - margin) & (pts[..., 1] <= y1 + margin))
        return ok


def make_scene(seed: int, L: float = 14.0, ppw: int = 8, n_obstacles: int = 4, wall: float = 0.5) -> Scene:
    """A room of side ``L`` wavelengths with ``n_obstacles`` random boxes (2 to max(2.5, L/3.5) wavelengths a side),
    alternating between the two materials; boxes keep 1.5 wavelengths from the walls."""
    seed = check_int("seed", seed, minimum=0)
    L = check_positive("L", L)
    ppw = check_int("ppw", ppw, minimum=4)
    n_obstacles = check_int("n_obstacles", n_obstacles, minimum=0)
    wall = check_positive("wall", wall)
    if L < 8:
        raise ValueError(f"L must be at least 8 wavelengths, got {L}")
    rng = np.random.default_rng([seed, 2585])
    obs: list[tuple[float, float, float, float, int]] = []
    tries = 0
    while len(obs) < n_obstacles and tries < 1000:
        tries += 1
        w, h = rng.uniform(2.0, max(2.5, L / 3.5), size=2)
        x0, y0 = rng.uniform(1.5, L - 1.5 - w), rng.uniform(1.5, L - 1.5 - h)
        box = (round(float(x0), 3), round(float(y0), 3), round(float(x0 + w), 3), round(float(y0 + h), 3), len(obs) % 2)
        if all(box[0] > b[2] + 1 or box[2] < b[0] - 1 or box[1] > b[3] + 1 or box[3] < b[1] - 1 for b in obs):
            obs.append(box)
    return Scene(L=float(L), ppw=ppw, wall=float(wall), obstacles=tuple(obs), seed=seed)


def sample_points(scene: Scene, n: int, rng: np.random.Generator | int | None, margin: float = 0.75) -> np.ndarray:
    """(n, 2) uniform points in free space, ``margin`` wavelengths from walls and obstacles."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    out = np.zeros((0, 2))
    while len(out) < n:
        p = rng.uniform(0, scene.L, size=(4 * n, 2))
        out = np.concatenate([out, p[scene.free(p, margin)]])
    return out[:n]


# ----------------------------------------------------------------------------- FDFD ground truth
_PML, _GAP = 10, 2  # PML cells, free cells between the wall and the PML


def _grid(scene: Scene) -> tuple[np.ndarray, int, int]:
    """Relative permittivity grid, number of cells across, and the cell index of the room's x=0 edge."""
    ppw = scene.ppw
    n_in = int(round(scene.L * ppw))
    n_wall = max(1, int(round(scene.wall * ppw)))
    off = _PML + _GAP + n_wall
    n = n_in + 2 * off
    eps = np.ones((n, n), dtype=complex)
    lo, hi = off - n_wall, off + n_in + n_wall
    eps[lo:hi, lo:hi] = WALL_EPS
    eps[off:off + n_in, off:off + n_in] = 1.0
    c = (np.arange(n_in) + 0.5) / ppw  # cell centres in wavelengths
    X, Y = np.meshgrid(c, c, indexing="ij")
    mats = scene.material_masks(np.stack([X, Y], -1))
    for m, e in MATERIALS.items():
        sub = eps[off:off + n_in, off:off + n_in]
        sub[mats[..., m] > 0] = e
    return eps, n, off


def _cache_params(scene: Scene, tx: np.ndarray) -> dict:
    """Everything that determines a field solve: the key of its :mod:`icml26.core.cache` entry.

    The sources are keyed by the grid cells the solve puts them in (``int(x * ppw)``, as
    :func:`solve_fields` does), not by rounded coordinates: two positions a hair apart on either
    side of a cell boundary are different solves."""
    cells = [[int(x * scene.ppw), int(y * scene.ppw)] for x, y in tx]
    return {"scene": asdict(scene), "cells": cells, "f": FREQ_HZ, "wall_eps": str(WALL_EPS),
            "mats": {k: str(v) for k, v in MATERIALS.items()}, "v": 2}


def solve_fields(scene: Scene, tx: np.ndarray) -> np.ndarray:
    """(n_tx, n_in, n_in) |E_z|^2 in the room interior for a unit point current at each transmitter.

    One factorisation of ceviche's E_z operator serves all transmitters; cached on disk.
    """
    tx = np.asarray(tx, dtype=float)
    if tx.ndim != 2 or tx.shape[1] != 2 or not np.all(np.isfinite(tx)):
        raise ValueError(f"tx must be a finite (n_tx, 2) array, got shape {tx.shape}")
    from icml26.core.cache import cached

    def build() -> dict:
        import scipy.sparse as sp
        import scipy.sparse.linalg as spl
        from ceviche import fdfd_ez
        from ceviche.constants import C_0

        lam = C_0 / FREQ_HZ
        eps, n, off = _grid(scene)
        sim = fdfd_ez(2 * np.pi * FREQ_HZ, lam / scene.ppw, eps, [_PML, _PML])
        entries, idx = sim._make_A(sim._grid_to_vec(eps))
        A = sp.coo_matrix((entries, (idx[0], idx[1])), shape=(sim.N, sim.N)).tocsr().tocoo()
        keep = np.abs(A.row - A.col) <= n  # drop the periodic wrap-around behind the PML
        A = sp.csc_matrix((A.data[keep], (A.row[keep], A.col[keep])), shape=A.shape)
        # the operator is structurally symmetric and diagonally dominant enough: symmetric ordering,
        # no partial pivoting (SuperLU's default pivoting makes this factorisation ~20x slower)
        lu = spl.splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        n_in = n - 2 * off
        B = np.zeros((sim.N, len(tx)), dtype=complex)
        for k, (x, y) in enumerate(tx):
            i, j = off + int(x * scene.ppw), off + int(y * scene.ppw)
            B[i * n + j, k] = 1j * 2 * np.pi * FREQ_HZ
        E = lu.solve(B)
        power = (np.abs(E.T.reshape(len(tx), n, n)) ** 2)[:, off:off + n_in, off:off + n_in]
        power = power / power.max()
        return {"power": power.astype(np.float32)}

    return cached("snrft", "fields", build, params=_cache_params(scene, tx), fmt="npz")["power"]


def local_mean_db(power: np.ndarray, ppw: int, window: float = 1.0) -> np.ndarray:
    """10 log10 of |E_z|^2 box-averaged over ``window`` wavelengths (last two axes)."""
    from scipy.ndimage import uniform_filter

    size = max(1, int(round(window * ppw)))
    axes = (power.ndim - 2, power.ndim - 1)
    return 10 * np.log10(uniform_filter(np.asarray(power, float), size=size, axes=axes, mode="nearest") + 1e-30)


@dataclass
class Dataset:
    """Measured (Tx, Rx) -> dB pairs of one scene: ``tx``, ``rx`` (n, 2) in wavelengths, ``db`` (n,)."""

    tx: np.ndarray
    rx: np.ndarray
    db: np.ndarray

    def take(self, idx: np.ndarray | slice) -> Dataset:
        return Dataset(self.tx[idx], self.rx[idx], self.db[idx])

    def __len__(self) -> int:
        return len(self.db)


def make_dataset(scene: Scene, n_tx: int, n_pairs: int, seed: int, noise_db: float = 0.0) -> Dataset:
    """``n_pairs`` random (Tx, Rx) pairs over ``n_tx`` transmitters, labelled by the FDFD local-mean dB.

    Receivers are in free space, 0.75 wavelengths from walls and obstacles and at least 1.5
    wavelengths from their transmitter (the point source's near field is not a channel).
    """
    n_tx = check_int("n_tx", n_tx, minimum=1)
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    rng = np.random.default_rng([seed, 24])
    tx_pts = sample_points(scene, n_tx, rng)
    db_maps = local_mean_db(solve_fields(scene, tx_pts), scene.ppw)
    k = rng.integers(0, n_tx, size=8 * n_pairs)
    rx = sample_points(scene, 8 * n_pairs, rng)
    far = np.linalg.norm(rx - tx_pts[k], axis=1) >= 1.5
    k, rx = k[far][:n_pairs], rx[far][:n_pairs]
    n_in = db_maps.shape[-1]
    ii = np.clip((rx * scene.ppw).astype(int), 0, n_in - 1)
    db = db_maps[k, ii[:, 0], ii[:, 1]] + noise_db * rng.standard_normal(len(k))
    return Dataset(tx_pts[k].copy(), rx, db.astype(float))
