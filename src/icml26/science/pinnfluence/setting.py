"""The PDE problems of the PINNfluence reproduction (arXiv:2409.08958).

* ``diffusion`` (the paper's "heat"; DeepXDE's diffusion example):
  ``u_t = u_xx - e^{-t}(sin(pi x) - pi^2 sin(pi x))`` on ``[-1, 1] x [0, 1]``, ``u(x, 0) = sin(pi x)``,
  ``u(+-1, t) = 0``, exact solution ``u = e^{-t} sin(pi x)``.
* ``drift_diffusion`` (the paper's drift-diffusion problem, with smaller coefficients):
  ``u_t - alpha u_xx + beta u_x = 0`` on ``[0, 2 pi] x [0, 1]``, periodic in x, ``u(x, 0) = sin(s x + r)``,
  exact solution ``u = sin(r + s (x - beta t)) e^{-alpha s^2 t}``; the network sees ``x / (2 pi)``
  (the authors' feature transform). The paper uses ``beta = 20, s = 2``; here ``beta = s = 1`` so that a
  25-parameter network can fit it.

Training points are DeepXDE's ``GeometryXTime`` Hammersley points; test points are uniform in the domain.
"""

from __future__ import annotations

import math
import os

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int

#: (domain, boundary, initial) point counts
PointCounts = tuple[int, int, int]

#: drift-diffusion coefficients: diffusivity, velocity, frequency, phase
DD_ALPHA, DD_BETA, DD_S, DD_R = 1.0, 1.0, 1.0, math.pi / 4
#: space interval of each problem (time is [0, 1] for both)
DOMAINS = {"diffusion": (-1.0, 1.0), "drift_diffusion": (0.0, 2 * math.pi)}
PROBLEMS = tuple(DOMAINS)


def check_problem(problem: str) -> str:
    if not isinstance(problem, str):
        raise TypeError(f"problem must be a string, got {type(problem).__name__}")
    if problem not in DOMAINS:
        raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")
    return problem


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


def drift_diffusion_exact(X) -> np.ndarray:
    """Exact drift-diffusion solution ``sin(r + s (x - beta t)) e^{-alpha s^2 t}`` at ``X: (n, 2)``."""
    X = as_array("X", X, ndim=2)
    if X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2) with columns (x, t), got {X.shape}")
    x, t = X[:, 0], X[:, 1]
    return np.sin(DD_R + DD_S * (x - DD_BETA * t)) * np.exp(-DD_ALPHA * DD_S ** 2 * t)


def exact_solution(problem: str, X) -> np.ndarray:
    """Exact solution of ``problem`` at ``X: (n, 2)``."""
    return {"diffusion": diffusion_exact, "drift_diffusion": drift_diffusion_exact}[check_problem(problem)](X)


def sample_points(num_domain: int, num_boundary: int, num_initial: int, seed: int = 0,
                  problem: str = "diffusion") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training points of DeepXDE's TimePDE with Hammersley sampling: ``X (n, 2)``, ``on_bc``, ``on_ic``.

    DeepXDE permutes the boundary times with numpy's global generator; it is seeded with ``seed``
    here and restored afterwards, so the points equal ``dde.data.TimePDE(...).train_x_all`` built
    right after ``np.random.seed(seed)``.
    """
    num_domain = check_int("num_domain", num_domain, minimum=1)
    num_boundary = check_int("num_boundary", num_boundary, minimum=0)
    num_initial = check_int("num_initial", num_initial, minimum=0)
    seed = check_int("seed", seed, minimum=0)
    lo, hi = DOMAINS[check_problem(problem)]
    os.environ.setdefault("DDE_BACKEND", "pytorch")
    import deepxde as dde

    state = np.random.get_state()
    np.random.seed(seed)
    try:
        geom = dde.geometry.GeometryXTime(dde.geometry.Interval(lo, hi), dde.geometry.TimeDomain(0, 1))
        parts = [geom.random_points(num_domain, random="Hammersley")]
        if num_boundary:
            parts.append(geom.random_boundary_points(num_boundary, random="Hammersley"))
        if num_initial:
            parts.append(geom.random_initial_points(num_initial, random="Hammersley"))
    finally:
        np.random.set_state(state)
    X = np.vstack(parts[::-1]).astype(np.float64)  # DeepXDE's order: initial, boundary, domain points
    on_bc, on_ic = np.asarray(geom.on_boundary(X)), np.asarray(geom.on_initial(X))
    # DeepXDE stores points in float32: put boundary points exactly on the ends (matters for periodic BCs)
    X[on_bc, 0] = np.where(np.abs(X[on_bc, 0] - lo) < np.abs(X[on_bc, 0] - hi), lo, hi)
    return X, on_bc, on_ic


def sample_test_points(n: int, rng, problem: str = "diffusion") -> np.ndarray:
    """``n`` test points uniform in ``[lo, hi] x [0.02, 1]`` (away from the initial line): ``(n, 2)``."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    lo, hi = DOMAINS[check_problem(problem)]
    return np.column_stack([rng.uniform(lo, hi, n), rng.uniform(0.02, 1, n)])


def evaluation_grid(n: int = 41, problem: str = "diffusion") -> np.ndarray:
    """A regular ``n x n`` grid over the space-time domain, ``(n*n, 2)``, for the relative L2 error."""
    n = check_int("n", n, minimum=2)
    lo, hi = DOMAINS[check_problem(problem)]
    g = np.stack(np.meshgrid(np.linspace(lo, hi, n), np.linspace(0, 1, n)), -1)
    return g.reshape(-1, 2)
