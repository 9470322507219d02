"""The PDE problem of the PINNfluence reproduction (arXiv:2409.08958): DeepXDE's diffusion example.

``u_t = u_xx - e^{-t}(sin(pi x) - pi^2 sin(pi x))`` on ``[-1, 1] x [0, 1]``, ``u(x, 0) = sin(pi x)``,
``u(+-1, t) = 0``, exact solution ``u = e^{-t} sin(pi x)`` (the paper calls it "heat"). Training
points are DeepXDE's ``GeometryXTime`` Hammersley points; test points are uniform in the domain.
"""

from __future__ import annotations

import math
import os

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int

#: (domain, boundary, initial) point counts
PointCounts = tuple[int, int, int]


def diffusion_source(x, t):
    """Forcing of DeepXDE's diffusion example (torch tensors): the PDE is ``u_t = u_xx + source``."""
    import torch

    return -torch.exp(-t) * (torch.sin(math.pi * x) - math.pi ** 2 * torch.sin(math.pi * x))


def diffusion_exact(X) -> np.ndarray:
    """Exact solution ``u = e^{-t} sin(pi x)`` at ``X: (n, 2)`` (columns x, t); returns ``(n,)``."""
    X = as_array("X", X, ndim=2)
    if X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2) with columns (x, t), got {X.shape}")
    return np.exp(-X[:, 1]) * np.sin(np.pi * X[:, 0])


def sample_points(num_domain: int, num_boundary: int, num_initial: int, seed: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training points of DeepXDE's TimePDE with Hammersley sampling: ``X (n, 2)``, ``on_bc``, ``on_ic``.

    DeepXDE permutes the boundary times with numpy's global generator; it is seeded with ``seed``
    here and restored afterwards, so the points equal ``dde.data.TimePDE(...).train_x_all`` built
    right after ``np.random.seed(seed)``.
    """
    num_domain = check_int("num_domain", num_domain, minimum=1)
    num_boundary = check_int("num_boundary", num_boundary, minimum=0)
    num_initial = check_int("num_initial", num_initial, minimum=0)
    seed = check_int("seed", seed, minimum=0)
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    import deepxde as dde

    state = np.random.get_state()
    np.random.seed(seed)
    try:
        geom = dde.geometry.GeometryXTime(dde.geometry.Interval(-1, 1), dde.geometry.TimeDomain(0, 1))
        parts = [geom.random_points(num_domain, random="Hammersley")]
        if num_boundary:
            parts.append(geom.random_boundary_points(num_boundary, random="Hammersley"))
        if num_initial:
            parts.append(geom.random_initial_points(num_initial, random="Hammersley"))
    finally:
        np.random.set_state(state)
    X = np.vstack(parts[::-1]).astype(np.float64)  # DeepXDE's order: initial, boundary, domain points
    return X, np.asarray(geom.on_boundary(X)), np.asarray(geom.on_initial(X))


def sample_test_points(n: int, rng) -> np.ndarray:
    """``n`` test points uniform in ``[-1, 1] x [0.02, 1]`` (away from the initial line): ``(n, 2)``."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    return np.column_stack([rng.uniform(-1, 1, n), rng.uniform(0.02, 1, n)])


def evaluation_grid(n: int = 41) -> np.ndarray:
    """A regular ``n x n`` grid over the space-time domain, ``(n*n, 2)``, for the relative L2 error."""
    n = check_int("n", n, minimum=2)
    g = np.stack(np.meshgrid(np.linspace(-1, 1, n), np.linspace(0, 1, n)), -1)
    return g.reshape(-1, 2)
