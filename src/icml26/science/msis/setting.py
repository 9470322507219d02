"""Toy multi-state systems of the MSIS reproduction (arXiv:2603.14515): exact eigenstates on a grid,
trial states with known overlaps, and exact draws from each state's density.

The paper's molecules (C2, Be) and Excited Pfaffians are out of reach on CPU; here the states
are vectors on a finite-difference grid (1-D double well ``V = x^4/4 - x^2``, 2-D anisotropic
oscillator ``V = (x^2 + 2 y^2)/2``), the grid measure is the probability space, and every
reference (overlaps, normalisers, energies) is an exact sum. Sampling chains are replaced by
exact i.i.d. draws from ``psi_s^2`` (inverse CDF on the grid).
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

SYSTEMS = ("double_well_1d", "oscillator_2d")


# ----------------------------------------------------------------------------- exact systems
def _fd_eigs(x: np.ndarray, V: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Lowest ``k`` eigenpairs of -1/2 d^2/dx^2 + V on a uniform grid (orthonormal vectors)."""
    from scipy.linalg import eigh_tridiagonal

    h = x[1] - x[0]
    d = 1.0 / h ** 2 + V
    e = np.full(len(x) - 1, -0.5 / h ** 2)
    w, v = eigh_tridiagonal(d, e, select="i", select_range=(0, k - 1))
    v = v * np.sign(v[np.argmax(np.abs(v), axis=0), np.arange(k)])  # deterministic signs
    return w, v


def eigenbasis(system: str, k: int, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact lowest-``k`` energies ``(k,)`` and orthonormal eigenvectors ``(n_points, k)`` on the grid."""
    k = check_int("k", k, minimum=1)
    grid = check_int("grid", grid, minimum=max(k + 2, 3))
    if system == "double_well_1d":
        x = np.linspace(-6.0, 6.0, grid)
        return _fd_eigs(x, x ** 4 / 4 - x ** 2, k)
    if system == "oscillator_2d":
        x = np.linspace(-7.0, 7.0, grid)
        ex, vx = _fd_eigs(x, 0.5 * x ** 2, k)
        ey, vy = _fd_eigs(x, 1.0 * x ** 2, k)  # omega_y = sqrt(2)
        E = ex[:, None] + ey[None, :]
        order = np.argsort(E, axis=None, kind="stable")[:k]
        ix, iy = np.unravel_index(order, E.shape)
        phi = np.einsum("ak,bk->abk", vx[:, ix], vy[:, iy]).reshape(grid * grid, k)
        return E.ravel()[order], phi
    raise ValueError(f"unknown system {system!r}; choose one of {SYSTEMS}")


def trial_states(n_states: int, k: int, eps: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients ``A: (Ns, k)`` of unnormalised trial states in the eigenbasis and their
    exact overlaps ``S: (Ns, Ns)``: state s = scale_s (e_s + eps * unit random vector over the others)."""
    n_states = check_int("n_states", n_states, minimum=1)
    k = check_int("k", k, minimum=n_states + 1)
    eps = check_positive("eps", eps, strict=False)
    rng = as_rng("rng", rng)
    A = np.zeros((n_states, k))
    for s in range(n_states):
        v = rng.normal(size=k)
        v[s] = 0.0
        A[s] = np.eye(k)[s] + eps * v / np.linalg.norm(v)
        A[s] *= np.exp(rng.uniform(-2.0, 2.0))
    G = A @ A.T
    d = np.sqrt(np.diag(G))
    return A, G / np.outer(d, d)


def draw_samples(A: np.ndarray, phi: np.ndarray, n: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` exact draws per state from psi_s^2 on the grid; returns ``log|psi|, sign: (Ns, n, Ns)``
    and the exact ``log c: (Ns,)``."""
    A, phi = as_array("A", A, ndim=2), as_array("phi", phi, ndim=2)
    if A.shape[1] != phi.shape[1]:
        raise ValueError(f"A has {A.shape[1]} basis coefficients but phi has {phi.shape[1]} basis vectors")
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    psi = phi @ A.T  # (points, Ns)
    if np.any((psi ** 2).sum(axis=0) == 0):
        raise ValueError("A describes a state that is zero on the grid")
    idx = sample_grid(psi, n, rng)  # (Ns, n)
    vals = psi[idx]  # (Ns, n, Ns)
    c = (psi ** 2).sum(axis=0)
    tiny = np.finfo(float).tiny
    return np.log(np.maximum(np.abs(vals), tiny)), np.where(vals < 0, -1.0, 1.0), np.log(c)


def sample_grid(psi: np.ndarray, n: int, rng) -> np.ndarray:
    """``n`` exact i.i.d. grid indices per state from ``psi_s^2`` (normalised): ``(Ns, n)`` ints.

    psi: ``(points, Ns)`` state values on the grid (a state must not vanish everywhere)."""
    psi = as_array("psi", psi, ndim=2)
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    p = psi ** 2
    c = p.sum(axis=0)
    if np.any(c == 0):
        raise ValueError("psi holds a state that is zero everywhere on the grid")
    cdf = np.cumsum(p / c, axis=0)
    return np.stack([np.minimum(np.searchsorted(cdf[:, s], rng.random(n)), len(cdf) - 1)
                     for s in range(psi.shape[1])])


def pair_rmse(est: np.ndarray, exact: np.ndarray) -> float:
    """Root mean squared error over repeats and the pairs i < j. ``est: (reps, Ns, Ns)``."""
    est, exact = as_array("est", est, ndim=3), as_array("exact", exact, ndim=2)
    if est.shape[1:] != exact.shape or exact.shape[0] != exact.shape[1]:
        raise ValueError(f"est must be (reps, Ns, Ns) matching exact {exact.shape}, got {est.shape}")
    iu = np.triu_indices(exact.shape[0], k=1)
    return float(np.sqrt(np.mean((est[:, iu[0], iu[1]] - exact[iu]) ** 2)))
