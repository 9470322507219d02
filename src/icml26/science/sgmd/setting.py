"""The simulated world for SGMD (arXiv:2605.30116): an analytic Gaussian-mixture "video" teacher.

The paper distils a Wan-class video diffusion model. We replace the video by an 8-frame
trajectory of one 2-D point (a 16-dimensional vector ``x = (x_0, ..., x_7)``, frame-major)
whose distribution is a Gaussian mixture with three kinds of motion:

* static: start ``p0 ~ N(c, s_p^2 I)``, velocity 0; narrow and heavy (most of the mass),
  so a mode-seeking objective has a place to collapse to;
* slow:   velocity ``v ~ N(v_k, s_v^2 I)`` with ``|v_k|`` small;
* fast:   ``|v_k|`` large and a wider velocity spread (broad modes, light weights).

Each frame is ``x_f = p0 + f v + e_f`` with i.i.d. jitter ``e_f ~ N(0, s_j^2 I)``, so each
component is exactly Gaussian: ``x ~ N(A m_k, A S_k A^T + s_j^2 I)`` with ``A`` the linear
map from ``(p0, v)`` to the frames. Data are standardised by one global shift and scale.

Noising is rectified flow, ``x_t = (1 - t) x_0 + t eps``, so component ``k`` at time ``t`` is
``N(a mu_k, a^2 Sigma_k + t^2 I)`` with ``a = 1 - t``; the noised score and the teacher's
denoiser ``D_T(x_t, t) = E[x_0 | x_t] = (x_t + t^2 grad log p_t(x_t)) / (1 - t)`` (Tweedie) are
exact and cheap through each component's eigendecomposition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from icml26.core.validate import as_array, as_rng, check_int, check_positive

N_FRAMES = 8
DIM = 2 * N_FRAMES


@dataclass(frozen=True)
class Mode:
    """One motion mode: start centre, mean velocity per frame, spreads and mixture weight."""

    kind: str
    start: tuple[float, float]
    velocity: tuple[float, float]
    start_sd: float
    velocity_sd: float
    weight: float


def default_modes() -> tuple[Mode, ...]:
    """Two static (narrow, heavy), two slow and two fast modes; weights sum to 1."""
    return (
        Mode("static", (-1.5, 1.0), (0.0, 0.0), 0.06, 0.0, 0.30),
        Mode("static", (1.5, -1.0), (0.0, 0.0), 0.06, 0.0, 0.30),
        Mode("slow", (-1.0, -1.5), (0.15, 0.05), 0.25, 0.03, 0.12),
        Mode("slow", (1.0, 1.5), (-0.15, -0.05), 0.25, 0.03, 0.12),
        Mode("fast", (-2.0, -0.5), (0.55, 0.10), 0.25, 0.08, 0.08),
        Mode("fast", (2.0, 0.5), (-0.55, -0.10), 0.25, 0.08, 0.08),
    )


def frame_map(n_frames: int = N_FRAMES) -> np.ndarray:
    """``A``: (2 n_frames, 4), mapping ``(p0, v)`` to frame-major positions ``p0 + f v``."""
    n_frames = check_int("n_frames", n_frames, minimum=2)
    a = np.zeros((2 * n_frames, 4))
    for f in range(n_frames):
        a[2 * f:2 * f + 2, 0:2] = np.eye(2)
        a[2 * f:2 * f + 2, 2:4] = f * np.eye(2)
    return a


class TrajectoryTeacher:
    """The analytic teacher: exact samples, exact noised score and exact denoiser.

    ``jitter_sd`` is the per-frame jitter; ``modes`` the motion modes. Means and covariances
    are stored in standardised units (``(x - shift) / scale``); :meth:`to_raw` undoes it.
    """

    def __init__(self, modes: tuple[Mode, ...] | None = None, jitter_sd: float = 0.05):
        self.modes = tuple(modes) if modes is not None else default_modes()
        if not self.modes:
            raise ValueError("modes must hold at least one Mode")
        self.jitter_sd = check_positive("jitter_sd", jitter_sd)
        w = np.array([m.weight for m in self.modes], dtype=float)
        if np.any(w <= 0) or not np.all(np.isfinite(w)):
            raise ValueError("modes must have finite positive weights")
        self.weights = w / w.sum()
        a = frame_map(N_FRAMES)
        means, covs = [], []
        for m in self.modes:
            s = np.diag([m.start_sd ** 2] * 2 + [m.velocity_sd ** 2] * 2)
            means.append(a @ np.array([*m.start, *m.velocity]))
            covs.append(a @ s @ a.T + self.jitter_sd ** 2 * np.eye(DIM))
        raw_means, raw_covs = np.array(means), np.array(covs)
        mix_mean = (self.weights[:, None] * raw_means).sum(0)
        second = sum(wk * (c + np.outer(mu - mix_mean, mu - mix_mean))
                     for wk, mu, c in zip(self.weights, raw_means, raw_covs))
        self.shift = mix_mean
        self.scale = float(np.sqrt(np.trace(second) / DIM))  # unit average variance per coordinate
        self.means = (raw_means - self.shift) / self.scale
        self.covs = raw_covs / self.scale ** 2
        lam, vec = np.linalg.eigh(self.covs)
        self._lam = torch.tensor(np.clip(lam, 1e-12, None), dtype=torch.float64)  # (K, D)
        self._vec = torch.tensor(vec, dtype=torch.float64)  # (K, D, D)
        self._mu = torch.tensor(self.means, dtype=torch.float64)  # (K, D)
        self._logw = torch.tensor(np.log(self.weights), dtype=torch.float64)

    # -- samples -------------------------------------------------------------------------
    def sample(self, n: int, seed=None, *, return_modes: bool = False):
        """``n`` exact samples (standardised), shape (n, 16); optionally the mode index of each."""
        n = check_int("n", n, minimum=1)
        rng = as_rng("seed", seed)
        k = rng.choice(len(self.modes), size=n, p=self.weights)
        z = rng.standard_normal((n, DIM))
        chol = np.linalg.cholesky(self.covs + 1e-12 * np.eye(DIM))
        x = self.means[k] + np.einsum("nij,nj->ni", chol[k], z)
        return (x, k) if return_modes else x

    def to_raw(self, x):
        """Standardised samples back to positions in the plane, shape (n, 8, 2)."""
        x = as_array("x", x, ndim=2)
        if x.shape[1] != DIM:
            raise ValueError(f"x must have {DIM} columns, got shape {tuple(x.shape)}")
        return (np.asarray(x) * self.scale + self.shift).reshape(-1, N_FRAMES, 2)

    # -- exact noised score and denoiser ----------------------------------------------------
    def log_density(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """``log p_t(x)`` of the noised mixture; x (n, D), t (n,) in [0, 1)."""
        x, t = x.to(torch.float64), t.to(torch.float64)
        a = (1 - t)[:, None, None]
        var = a ** 2 * self._lam[None] + (t ** 2)[:, None, None]  # (n, K, D)
        diff = x[:, None, :] - a * self._mu[None]  # (n, K, D)
        proj = torch.einsum("nkd,kde->nke", diff, self._vec)
        quad = (proj ** 2 / var).sum(-1)
        logn = -0.5 * (quad + torch.log(var).sum(-1) + DIM * math.log(2 * math.pi))
        return torch.logsumexp(self._logw[None] + logn, dim=1)

    def score(self, x: torch.Tensor, t: torch.Tensor, *, differentiable: bool = False) -> torch.Tensor:
        """Exact ``grad_x log p_t(x)``: (n, D); ``x`` (n, D), ``t`` (n,) with 0 <= t < 1.

        With ``differentiable`` the result carries ``x``'s graph (for losses that use the
        teacher's input Jacobian); otherwise it is a constant.
        """
        check_shapes(x, t)
        dtype = x.dtype
        x, t = (x if differentiable else x.detach()).to(torch.float64), t.detach().to(torch.float64)
        a = (1 - t)[:, None, None]
        var = a ** 2 * self._lam[None] + (t ** 2)[:, None, None]
        diff = x[:, None, :] - a * self._mu[None]
        proj = torch.einsum("nkd,kde->nke", diff, self._vec)
        quad = (proj ** 2 / var).sum(-1)
        logr = self._logw[None] - 0.5 * (quad + torch.log(var).sum(-1))
        resp = torch.softmax(logr, dim=1)  # (n, K)
        comp = -torch.einsum("nke,kde->nkd", proj / var, self._vec)  # each component's score
        return (resp[..., None] * comp).sum(1).to(dtype)

    def denoise(self, x: torch.Tensor, t: torch.Tensor, *, differentiable: bool = False) -> torch.Tensor:
        """Exact ``E[x_0 | x_t = x]`` (Tweedie): ``(x + t^2 score) / (1 - t)``; (n, D)."""
        s = self.score(x, t, differentiable=differentiable)
        tt = t.detach().to(x.dtype)[:, None]
        xx = x if differentiable else x.detach()
        return (xx + tt ** 2 * s) / (1 - tt)


def check_shapes(x, t) -> None:
    """``x``: (n, 16) finite tensor, ``t``: (n,) finite tensor in [0, 1)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a torch.Tensor, got {type(t).__name__}")
    as_array("x", x, ndim=2)
    as_array("t", t, ndim=1)
    if x.shape[1] != DIM:
        raise ValueError(f"x must have {DIM} columns, got shape {tuple(x.shape)}")
    if t.shape[0] != x.shape[0]:
        raise ValueError(f"t must have one time per row of x ({x.shape[0]}), got {t.shape[0]}")
    if bool((t < 0).any()) or bool((t >= 1).any()):
        raise ValueError("t must lie in [0, 1)")


# -- motion statistics (raw plane units) ------------------------------------------------------
def speeds(traj) -> np.ndarray:
    """Per-trajectory speed, endpoint displacement per frame ``|x_last - x_0| / (frames - 1)``: (n,) from (n, f, 2).

    Robust to per-frame jitter (it enters only through the two endpoints); the mean of per-frame
    step lengths (:func:`step_lengths`) is dominated by jitter when motion is slow.
    """
    traj = np.asarray(as_array("traj", traj, ndim=3))
    if traj.shape[1] < 2:
        raise ValueError(f"traj must hold at least 2 frames, got shape {tuple(traj.shape)}")
    return np.linalg.norm(traj[:, -1] - traj[:, 0], axis=-1) / (traj.shape[1] - 1)


def step_lengths(traj) -> np.ndarray:
    """Mean per-frame displacement ``mean_f |x_{f+1} - x_f|`` of each trajectory (the jitter-sensitive speed)."""
    traj = as_array("traj", traj, ndim=3)
    return np.linalg.norm(np.diff(np.asarray(traj), axis=1), axis=-1).mean(axis=1)


def jerk_energy(traj) -> float:
    """Mean squared third difference ``|x_{f+3} - 3x_{f+2} + 3x_{f+1} - x_f|^2`` over frames and samples."""
    traj = as_array("traj", traj, ndim=3)
    j = np.diff(np.asarray(traj), n=3, axis=1)
    return float((j ** 2).sum(-1).mean())


def nearest_mode(teacher: TrajectoryTeacher, x) -> np.ndarray:
    """Index of the mixture component with the highest responsibility at ``t = 0`` for each row."""
    xt = torch.as_tensor(np.asarray(x, dtype=float))
    diff = xt[:, None, :] - teacher._mu[None]
    proj = torch.einsum("nkd,kde->nke", diff, teacher._vec)
    quad = (proj ** 2 / teacher._lam[None]).sum(-1)
    logr = teacher._logw[None] - 0.5 * (quad + torch.log(teacher._lam).sum(-1)[None])
    return logr.argmax(1).numpy()
