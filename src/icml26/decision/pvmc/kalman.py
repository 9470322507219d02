"""Exact references for a linear-Gaussian state-space model: Kalman filter, log p(y), RTS smoother.

Model (time steps t = 0..T)::

    x_0 ~ N(m0, P0),   x_t = A x_{t-1} + N(0, Q),   y_t = C x_t + N(0, R)

These closed forms are the ground truth that the PVMC estimator is checked against
(unbiasedness of the likelihood estimate, the bound ordering, smoothing means); the
tests cross-check them against ``pykalman``. All arrays are torch tensors; use float64
for exactness checks.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from icml26.core.validate import check_finite


def _check(y: Tensor, A: Tensor, Q: Tensor, C: Tensor, R: Tensor, m0: Tensor, P0: Tensor) -> None:
    for name, v in (("y", y), ("A", A), ("Q", Q), ("C", C), ("R", R), ("m0", m0), ("P0", P0)):
        if not torch.is_tensor(v):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(v).__name__}")
        check_finite(name, v)
    if y.dim() != 3:
        raise ValueError(f"y must have shape (batch, T+1, dy), got {tuple(y.shape)}")
    if A.dim() != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square (dx, dx) matrix, got {tuple(A.shape)}")
    dx = A.shape[-1]
    dy = y.shape[-1]
    for name, v, shape in (("Q", Q, (dx, dx)), ("P0", P0, (dx, dx)), ("m0", m0, (dx,)), ("C", C, (dy, dx)),
                           ("R", R, (dy, dy))):
        if tuple(v.shape) != shape:
            raise ValueError(f"{name} must have shape {shape}, got {tuple(v.shape)}")
    if y.shape[1] < 1 or y.shape[0] < 1:
        raise ValueError(f"y must hold at least one sequence of one time step, got shape {tuple(y.shape)}")


def kalman_filter(y: Tensor, A: Tensor, Q: Tensor, C: Tensor, R: Tensor, m0: Tensor, P0: Tensor
                  ) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    """Kalman filter over a batch of sequences.

    Args:
        y: (B, T+1, dy) observations.
    Returns:
        filt_mean (B, T+1, dx), filt_cov (T+1, dx, dx), pred_mean (B, T+1, dx),
        pred_cov (T+1, dx, dx), loglik (B,) = log p(y_{0:T}) exactly.
    """
    _check(y, A, Q, C, R, m0, P0)
    B, T1, dy = y.shape
    dx = A.shape[0]
    fm, fc, pm, pc = [], [], [], []
    loglik = torch.zeros(B, dtype=y.dtype, device=y.device)
    m_pred = m0.expand(B, dx)
    P_pred = P0
    for t in range(T1):
        if t > 0:
            m_pred = m_filt @ A.T
            P_pred = A @ P_filt @ A.T + Q
        S = C @ P_pred @ C.T + R
        S = 0.5 * (S + S.T)
        L = torch.linalg.cholesky(S)
        resid = y[:, t] - m_pred @ C.T                       # (B, dy)
        sol = torch.cholesky_solve(resid.T, L).T              # S^-1 r
        logdet = 2.0 * torch.log(torch.diagonal(L)).sum()
        loglik = loglik - 0.5 * ((resid * sol).sum(-1) + logdet + dy * math.log(2 * math.pi))
        K = P_pred @ C.T @ torch.cholesky_inverse(L)          # (dx, dy)
        m_filt = m_pred + resid @ K.T
        P_filt = P_pred - K @ S @ K.T
        P_filt = 0.5 * (P_filt + P_filt.T)
        pm.append(m_pred)
        pc.append(P_pred)
        fm.append(m_filt)
        fc.append(P_filt)
    return (torch.stack(fm, 1), torch.stack(fc, 0), torch.stack(pm, 1), torch.stack(pc, 0), loglik)


def rts_smoother(y: Tensor, A: Tensor, Q: Tensor, C: Tensor, R: Tensor, m0: Tensor, P0: Tensor
                 ) -> tuple[Tensor, Tensor, Tensor]:
    """Rauch-Tung-Striebel smoother: returns smooth_mean (B, T+1, dx), smooth_cov (T+1, dx, dx), loglik (B,)."""
    fm, fc, pm, pc, loglik = kalman_filter(y, A, Q, C, R, m0, P0)
    T1 = y.shape[1]
    sm = [fm[:, -1]]
    sc = [fc[-1]]
    for t in range(T1 - 2, -1, -1):
        G = fc[t] @ A.T @ torch.linalg.inv(pc[t + 1])
        sm.insert(0, fm[:, t] + (sm[0] - pm[:, t + 1]) @ G.T)
        sc.insert(0, fc[t] + G @ (sc[0] - pc[t + 1]) @ G.T)
    return torch.stack(sm, 1), torch.stack(sc, 0), loglik
