"""PINNfluence: influence functions over a composite physics-informed loss (arXiv:2409.08958).

A PINN ``u(x; theta)`` is trained on points ``z`` with a loss made of components ``k``
(PDE residual, boundary condition, initial condition):

    L(theta) = sum_k lambda_k / n_k sum_{z in S_k} r_k(z; theta)^2 = sum_z sum_k l_k(z; theta).

Every point ``z`` contributes one term per component that applies to it (all points carry a
PDE residual, boundary points also a BC term, initial points an IC term), as in DeepXDE.
The influence of the term ``l_k(z)`` on a test quantity ``f`` (here the prediction
``u(x)``) is the first-order change of ``f`` when that term is removed from the loss:

    I_k(f, z) = grad_theta f(theta_hat)^T (H + lambda I)^{-1} grad_theta l_k(z; theta_hat),
    H = hess_theta L(theta_hat),

so ``sum_k I_k(f, z)`` predicts ``f(theta_{-z}) - f(theta_hat)`` for leaving ``z`` out (the
sign convention of captum's influence scores, which the authors use). ``H`` is the exact
Hessian of the full composite loss (tiny networks make it cheap); optionally only its
``projection_dim`` eigenpairs of largest magnitude are kept, which is what the Arnoldi
approximation of the paper converges to. The gradient-dot baseline (TracIn with one
checkpoint) drops ``H^{-1}``.

Diagnostics (Sec. 4 of the paper; aggregation details ours where the text was not available):
* component fraction ``frac_k(x) = sum_z |I_k(x,z)| / sum_k sum_z |I_k(x,z)|``;
* cancellation ``kappa = 1 - mean_{x,z} |sum_k I_k(x,z)| / sum_k |I_k(x,z)|`` over points that
  carry several terms (how much a point's loss terms pull the prediction in opposite ways);
* directionality ``U(x) = sum_{z: t_z <= t_x} |I(x,z)| / sum_z |I(x,z)|`` against the share of
  upstream points ``p(x)``; ``U - p > 0`` means information flows forward in time.

The network is a tanh MLP on ``(x, t)`` whose input derivatives ``u_x, u_t, u_xx`` are
propagated layer by layer (forward-mode Taylor terms), so that parameter gradients,
Jacobians and Hessians come from ``torch.func`` without nested autograd.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch.func import hessian, jacrev

from icml26.core.validate import as_array, check_finite, check_int, check_positive
from icml26.science.pinnfluence.setting import (DD_ALPHA, DD_BETA, DD_R, DD_S, DOMAINS, check_problem,
                                                diffusion_source)


# ----------------------------------------------------------------------------- network
def layer_shapes(layers: Sequence[int]) -> list[tuple[int, int]]:
    """Weight shapes ``(out, in)`` of an MLP with widths ``layers`` (e.g. ``[2, 16, 16, 1]``)."""
    if isinstance(layers, (str, bytes)) or not hasattr(layers, "__len__"):
        raise TypeError(f"layers must be a list of widths, got {type(layers).__name__}")
    if len(layers) < 2:
        raise ValueError(f"layers must list >= 2 positive widths, got {list(layers)}")
    ws = [check_int(f"layers[{i}]", w, minimum=1) for i, w in enumerate(layers)]
    return [(ws[i + 1], ws[i]) for i in range(len(ws) - 1)]


def n_params(layers: Sequence[int]) -> int:
    return sum(o * i + o for o, i in layer_shapes(layers))


def init_params(layers: Sequence[int], generator: torch.Generator | None = None) -> torch.Tensor:
    """Glorot-normal weights and zero biases (DeepXDE's default initialiser), flat float64."""
    chunks = []
    for o, i in layer_shapes(layers):
        std = math.sqrt(2.0 / (i + o))
        chunks += [torch.randn(o * i, generator=generator, dtype=torch.float64) * std,
                   torch.zeros(o, dtype=torch.float64)]
    return torch.cat(chunks)


def _unflatten(theta: torch.Tensor, layers: Sequence[int]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    out, pos = [], 0
    for o, i in layer_shapes(layers):
        W = theta[pos:pos + o * i].reshape(o, i)
        pos += o * i
        out.append((W, theta[pos:pos + o]))
        pos += o
    return out


def mlp_derivatives(theta: torch.Tensor, X: torch.Tensor, layers: Sequence[int]
                    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``u, u_x, u_t, u_xx`` of a tanh MLP at ``X: (n, 2)`` (columns x, t); each ``(n,)``.

    The first input column is the space coordinate, the second time (DeepXDE's GeometryXTime
    order). Derivatives are carried forward through the layers exactly.
    """
    if not isinstance(theta, torch.Tensor):
        raise TypeError(f"theta must be a torch tensor, got {type(theta).__name__}")
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch tensor, got {type(X).__name__}")
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n, 2) with columns (x, t), got {tuple(X.shape)}")
    check_finite("X", X)
    check_finite("theta", theta)
    if theta.ndim != 1 or theta.numel() != n_params(layers):
        raise ValueError(f"theta must be a flat vector of {n_params(layers)} parameters, got {tuple(theta.shape)}")
    params = _unflatten(theta, layers)
    W, b = params[0]
    z = X @ W.T + b
    z_x = W[:, 0].expand_as(z)
    z_t = W[:, 1].expand_as(z)
    z_xx = torch.zeros_like(z)
    for W, b in params[1:]:
        a = torch.tanh(z)
        d1 = 1 - a ** 2
        d2 = -2 * a * d1
        h, h_x, h_t, h_xx = a, d1 * z_x, d1 * z_t, d2 * z_x ** 2 + d1 * z_xx
        z, z_x, z_t, z_xx = h @ W.T + b, h_x @ W.T, h_t @ W.T, h_xx @ W.T
    return z[:, 0], z_x[:, 0], z_t[:, 0], z_xx[:, 0]


def solution_derivatives(theta: torch.Tensor, X: torch.Tensor, layers: Sequence[int], problem: str = "diffusion"
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``u, u_x, u_t, u_xx`` in physical coordinates; for drift-diffusion the network sees ``x / (2 pi)``
    (the authors' feature transform), so the x-derivatives are rescaled by the chain rule."""
    if check_problem(problem) == "diffusion":
        return mlp_derivatives(theta, X, layers)
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch tensor, got {type(X).__name__}")
    L = DOMAINS[problem][1] - DOMAINS[problem][0]
    scale = torch.tensor([1.0 / L, 1.0], dtype=X.dtype)
    u, u_x, u_t, u_xx = mlp_derivatives(theta, X * scale, layers)
    return u, u_x / L, u_t, u_xx / L ** 2


# ----------------------------------------------------------------------------- PDE residuals
def residuals(theta: torch.Tensor, X: torch.Tensor, on_bc: torch.Tensor, on_ic: torch.Tensor,
              layers: Sequence[int], problem: str = "diffusion") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Residual vectors: PDE at all ``X``, BC at ``X[on_bc]``, IC at ``X[on_ic]``.

    diffusion: BC ``u = 0`` at ``|x| = 1``, IC ``u = sin(pi x)``. drift_diffusion: periodic BC
    ``u(x, t) - u(x', t)`` with ``x'`` the opposite end (DeepXDE's PeriodicBC on both ends), IC
    ``u = sin(s x + r)``.
    """
    u, u_x, u_t, u_xx = solution_derivatives(theta, X, layers, problem)
    x, t = X[:, 0], X[:, 1]
    if problem == "diffusion":
        r_pde = u_t - u_xx - diffusion_source(x, t)
        r_bc = u[on_bc]
        r_ic = u[on_ic] - torch.sin(math.pi * x[on_ic])
        return r_pde, r_bc, r_ic
    lo, hi = DOMAINS[problem]
    r_pde = u_t - DD_ALPHA * u_xx + DD_BETA * u_x
    Xb = X[on_bc]
    mirror = torch.stack([lo + hi - Xb[:, 0], Xb[:, 1]], 1)
    r_bc = u[on_bc] - solution_derivatives(theta, mirror, layers, problem)[0]
    r_ic = u[on_ic] - torch.sin(DD_S * x[on_ic] + DD_R)
    return r_pde, r_bc, r_ic


class CompositeLoss:
    """The PINN loss ``sum_k lambda_k mean_{S_k} r_k^2`` and its per-term pieces.

    Args:
        X: ``(n, 2)`` float64 training points (x, t); ``on_bc, on_ic``: boolean ``(n,)`` masks.
        layers: MLP widths. ``weights``: ``(lambda_pde, lambda_bc, lambda_ic)``.
        drop: index of a training point whose terms are left out (leave-one-out); the other
            terms keep their weights ``lambda_k / n_k`` so that dropping equals a -1 upweighting.
        problem: ``"diffusion"`` or ``"drift_diffusion"``.
        weight_decay: ``wd`` of an added ``wd / 2 |theta|^2`` (not attributed to any point); a tiny
            value gives the loss an isolated minimum that the optimiser can converge to.
    """

    names = ("pde", "bc", "ic")

    def __init__(self, X: torch.Tensor, on_bc: torch.Tensor, on_ic: torch.Tensor, layers: Sequence[int],
                 weights: Sequence[float] = (1.0, 1.0, 1.0), drop: int | None = None, problem: str = "diffusion",
                 weight_decay: float = 0.0):
        if X.ndim != 2 or X.shape[1] != 2 or X.shape[0] < 1:
            raise ValueError(f"X must be a non-empty (n, 2) array, got {tuple(X.shape)}")
        if not torch.all(torch.isfinite(X)):
            raise ValueError("X contains NaN or inf")
        if on_bc.shape != (X.shape[0],) or on_ic.shape != (X.shape[0],):
            raise ValueError("on_bc and on_ic must be boolean masks of length n")
        if len(weights) != 3 or any(w < 0 for w in weights):
            raise ValueError(f"weights must be three non-negative numbers, got {weights}")
        if drop is not None and not 0 <= drop < X.shape[0]:
            raise ValueError(f"drop must index a training point in [0, {X.shape[0]}), got {drop}")
        self.problem = check_problem(problem)
        self.weight_decay = check_positive("weight_decay", weight_decay, strict=False)
        self.X, self.on_bc, self.on_ic, self.layers = X, on_bc.bool(), on_ic.bool(), list(layers)
        counts = (X.shape[0], int(self.on_bc.sum()), int(self.on_ic.sum()))
        self.w = [lam / max(c, 1) for lam, c in zip(weights, counts)]
        keep = torch.ones(X.shape[0], dtype=torch.float64)
        if drop is not None:
            keep[drop] = 0.0
        self.keep = (keep, keep[self.on_bc], keep[self.on_ic])

    def components(self, theta: torch.Tensor) -> list[torch.Tensor]:
        """Per-term losses ``l_k(z) = lambda_k / n_k r_k(z)^2`` for k = pde, bc, ic."""
        rs = residuals(theta, self.X, self.on_bc, self.on_ic, self.layers, self.problem)
        return [w * m * r ** 2 for w, m, r in zip(self.w, self.keep, rs)]

    def __call__(self, theta: torch.Tensor) -> torch.Tensor:
        total = sum(c.sum() for c in self.components(theta))
        return total + 0.5 * self.weight_decay * (theta @ theta) if self.weight_decay else total

    def component_losses(self, theta: torch.Tensor) -> dict[str, float]:
        """DeepXDE-style component losses ``lambda_k mean r_k^2``."""
        return {n: float(c.sum()) for n, c in zip(self.names, self.components(theta))}


# ----------------------------------------------------------------------------- influence
def damped_inverse(H: torch.Tensor, damping: float, projection_dim: int | None = None,
                   rcond: float = 0.0) -> torch.Tensor:
    """``(H + damping I)^{-1}`` by eigendecomposition; with ``projection_dim`` only the eigenpairs of
    largest ``|eigenvalue|`` are kept (the limit of the Arnoldi approximation the paper uses), and
    eigenpairs with ``|eigenvalue| <= rcond * max|eigenvalue|`` are dropped (numerical null space)."""
    if not isinstance(H, torch.Tensor):
        raise TypeError(f"H must be a torch tensor, got {type(H).__name__}")
    if H.ndim != 2 or H.shape[0] != H.shape[1] or H.shape[0] == 0:
        raise ValueError(f"H must be a non-empty square matrix, got {tuple(H.shape)}")
    check_finite("H", H)
    damping = check_positive("damping", damping, strict=False)
    rcond = check_positive("rcond", rcond, strict=False)
    if rcond >= 1:
        raise ValueError(f"rcond must lie in [0, 1), got {rcond}")
    if projection_dim is not None:
        projection_dim = check_int("projection_dim", projection_dim, minimum=1)
    mu, V = torch.linalg.eigh(0.5 * (H + H.T))
    if rcond > 0:
        keep = mu.abs() > rcond * mu.abs().max()
        mu, V = mu[keep], V[:, keep]
    if projection_dim is not None:
        if not 1 <= projection_dim <= H.shape[0]:
            raise ValueError(f"projection_dim must lie in [1, {H.shape[0]}], got {projection_dim}")
        idx = torch.argsort(mu.abs(), descending=True)[:projection_dim]  # may be fewer after rcond
        mu, V = mu[idx], V[:, idx]
    denom = mu + damping
    if torch.any(denom == 0):
        raise ValueError("H + damping I is singular; increase damping")
    return (V / denom) @ V.T


def train_gradients(loss: CompositeLoss, theta: torch.Tensor) -> dict[str, torch.Tensor]:
    """Per-term parameter gradients ``grad_theta l_k(z)``: ``{k: (n_k, P)}``."""
    def comps(th):
        return tuple(loss.components(th))
    jac = jacrev(comps)(theta)
    return dict(zip(loss.names, jac))


def output_gradients(theta: torch.Tensor, X_test: torch.Tensor, layers: Sequence[int],
                     problem: str = "diffusion") -> torch.Tensor:
    """``grad_theta u(x)`` for test points ``X_test: (T, 2)``; returns ``(T, P)``."""
    return jacrev(lambda th: solution_derivatives(th, X_test, layers, problem)[0])(theta)


def influence_scores(G_test: torch.Tensor, G_train: dict[str, torch.Tensor],
                     H_inv: torch.Tensor | None) -> dict[str, np.ndarray]:
    """``I_k = G_test H_inv G_train[k]^T`` per component, each ``(T, n_k)``; ``H_inv=None`` gives
    the gradient-dot baseline."""
    M = G_test if H_inv is None else G_test @ H_inv
    return {k: (M @ G.T).detach().numpy() for k, G in G_train.items()}


def pinn_influence(loss: CompositeLoss, theta: torch.Tensor, X_test: torch.Tensor, damping: float = 1e-6,
                   projection_dim: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Influence (exact damped Hessian) and grad-dot scores of every loss term on ``u(X_test)``.

    Returns two dicts ``{pde: (T, n), bc: (T, n_bc), ic: (T, n_ic)}``: influences and grad-dot.
    """
    H = hessian(loss)(theta)
    H_inv = damped_inverse(H, damping, projection_dim)
    G_test = output_gradients(theta, X_test, loss.layers, loss.problem)
    G_train = train_gradients(loss, theta)
    return influence_scores(G_test, G_train, H_inv), influence_scores(G_test, G_train, None)


def per_point(I: dict[str, np.ndarray], on_bc: np.ndarray, on_ic: np.ndarray) -> np.ndarray:
    """Scatter component influences onto training points: ``(T, n, 3)`` with zeros where a term is absent."""
    T, n = I["pde"].shape
    out = np.zeros((T, n, 3))
    out[:, :, 0] = I["pde"]
    out[:, np.flatnonzero(on_bc), 1] = I["bc"]
    out[:, np.flatnonzero(on_ic), 2] = I["ic"]
    return out


# ----------------------------------------------------------------------------- diagnostics
def component_fractions(I_pp: np.ndarray) -> np.ndarray:
    """``frac_k(x)``: share of absolute influence on test point x from component k; ``(T, K)``."""
    I_pp = as_array("I_pp", I_pp, ndim=3)
    mass = np.abs(I_pp).sum(axis=1)
    return mass / np.maximum(mass.sum(axis=1, keepdims=True), 1e-300)


def cancellation_score(I_pp: np.ndarray, multi: np.ndarray) -> float:
    """``1 - mean_{x, z in multi} |sum_k I_k(x,z)| / sum_k |I_k(x,z)|`` (0: terms agree, 1: cancel)."""
    I_pp = as_array("I_pp", I_pp, ndim=3)
    multi = np.asarray(multi)
    if multi.dtype != bool or multi.shape != (I_pp.shape[1],):
        raise ValueError(f"multi must be a boolean mask of length n = {I_pp.shape[1]}, got {multi.dtype} {multi.shape}")
    if not multi.any():
        raise ValueError("cancellation needs at least one training point with several loss terms")
    sub = I_pp[:, multi, :]
    ratio = np.abs(sub.sum(axis=2)) / np.maximum(np.abs(sub).sum(axis=2), 1e-300)
    return float(1.0 - ratio.mean())


def directionality(I_total: np.ndarray, t_test: np.ndarray, t_train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Upstream influence share ``U(x)`` and upstream point share ``p(x)`` per test point (each ``(T,)``)."""
    I_total = as_array("I_total", I_total, ndim=2)
    t_test = as_array("t_test", t_test, ndim=1)
    t_train = as_array("t_train", t_train, ndim=1)
    if I_total.shape != (len(t_test), len(t_train)):
        raise ValueError(f"I_total must be (T, n) = ({len(t_test)}, {len(t_train)}), got {I_total.shape}")
    up = t_train[None, :] <= t_test[:, None]
    A = np.abs(I_total)
    return (A * up).sum(1) / np.maximum(A.sum(1), 1e-300), up.mean(1)


# ----------------------------------------------------------------------------- training
def train_pinn(loss: Callable[[torch.Tensor], torch.Tensor], theta0: torch.Tensor, adam_steps: int,
               lbfgs_steps: int, lr: float = 1e-3) -> torch.Tensor:
    """Adam (lr ``lr``) then L-BFGS (strong Wolfe), the schedule of the paper; returns theta.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's Adam-then-L-BFGS schedule
    on a flat parameter vector.
    """
    adam_steps = check_int("adam_steps", adam_steps, minimum=0)
    lbfgs_steps = check_int("lbfgs_steps", lbfgs_steps, minimum=0)
    lr = check_positive("lr", lr)
    if not isinstance(theta0, torch.Tensor):
        raise TypeError(f"theta0 must be a torch tensor, got {type(theta0).__name__}")
    check_finite("theta0", theta0)
    if theta0.ndim != 1 or theta0.numel() == 0:
        raise ValueError(f"theta0 must be a non-empty flat parameter vector, got shape {tuple(theta0.shape)}")
    theta = theta0.detach().clone().requires_grad_(True)
    if adam_steps:
        opt = torch.optim.Adam([theta], lr=lr)
        for _ in range(adam_steps):
            opt.zero_grad()
            L = loss(theta)
            L.backward()
            opt.step()
    if lbfgs_steps:
        opt = torch.optim.LBFGS([theta], lr=1.0, max_iter=lbfgs_steps, history_size=50,
                                tolerance_grad=1e-12, tolerance_change=1e-15, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            L = loss(theta)
            L.backward()
            return L

        opt.step(closure)
    return theta.detach()


def newton_polish(loss: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor, steps: int = 20,
                  grad_tol: float = 1e-10) -> tuple[torch.Tensor, float]:
    """Levenberg-Marquardt steps with the exact Hessian, to converge where L-BFGS stalls.

    ``theta <- theta - (H + mu I)^{-1} grad L`` with ``mu`` kept above ``-lambda_min(H)`` (so the step
    descends even near a saddle), shrunk x0.3 after a step that lowers the loss and grown x10 after
    one that does not. Stops once ``|grad L| <= grad_tol``. Returns ``(theta, |grad L|)``. Tiny
    networks (~150 parameters) make each exact Hessian cheap; a LOO change of the prediction is
    then a property of the minimiser, not of where the optimiser happened to stop.
    """
    steps = check_int("steps", steps, minimum=0)
    grad_tol = check_positive("grad_tol", grad_tol)
    gfun = torch.func.grad(loss)
    theta = theta.detach().clone()
    f, g = float(loss(theta)), gfun(theta)
    mu = None
    for _ in range(steps):
        if float(g.norm()) <= grad_tol:
            break
        lam, V = torch.linalg.eigh(hessian(loss)(theta))
        if mu is None:
            mu = 1e-6 * float(lam.abs().max())
        shift = max(mu, -1.01 * float(lam[0]) + 1e-12 * float(lam.abs().max()))
        cand = theta - V @ ((V.T @ g) / (lam + shift))
        f_new = float(loss(cand))
        if math.isfinite(f_new) and f_new <= f:
            theta, f, g, mu = cand, f_new, gfun(cand), mu * 0.3
        else:
            mu = max(mu, shift) * 10.0
    return theta, float(g.norm())


def trust_region_newton(loss: Callable[[torch.Tensor], torch.Tensor], theta: torch.Tensor, steps: int = 100,
                        grad_tol: float = 1e-10, polish: int = 5) -> tuple[torch.Tensor, float]:
    """Exact-Hessian trust-region Newton (scipy's ``trust-exact``) from ``theta`` until
    ``|grad L| <= grad_tol`` or ``steps`` iterations; returns ``(theta, |grad L|)``.

    Converges quadratically to a local minimum where one exists (it also handles indefinite
    Hessians); the reached gradient norm is what the training gate of the LOO claim reads. Close to a
    minimum the loss decrease of a step can fall below float64 resolution, and trust-exact stops
    ("failure to predict improvement") at |grad L| ~ 1e-8; up to ``polish`` plain Newton steps on the
    gradient (taken only while the Hessian is positive definite and |grad L| shrinks) finish the job.
    """
    from scipy.optimize import minimize

    steps = check_int("steps", steps, minimum=0)
    polish = check_int("polish", polish, minimum=0)
    grad_tol = check_positive("grad_tol", grad_tol)
    if not isinstance(theta, torch.Tensor):
        raise TypeError(f"theta must be a torch tensor, got {type(theta).__name__}")
    check_finite("theta", theta)
    if theta.ndim != 1 or theta.numel() == 0:
        raise ValueError(f"theta must be a non-empty flat parameter vector, got shape {tuple(theta.shape)}")
    gfun, hfun = torch.func.grad(loss), hessian(loss)
    theta = theta.detach().clone()
    if steps and float(gfun(theta).norm()) > grad_tol:
        res = minimize(lambda v: float(loss(torch.from_numpy(v))), theta.numpy(),
                       jac=lambda v: gfun(torch.from_numpy(v)).numpy(),
                       hess=lambda v: hfun(torch.from_numpy(v)).numpy(), method="trust-exact",
                       options={"gtol": grad_tol, "maxiter": steps})
        theta = torch.from_numpy(np.array(res.x))
    g = gfun(theta)
    for _ in range(polish if steps else 0):
        if float(g.norm()) <= grad_tol:
            break
        lam, V = torch.linalg.eigh(hfun(theta))
        if float(lam[0]) <= 0:
            break
        cand = theta - V @ ((V.T @ g) / lam)
        g_new = gfun(cand)
        if not float(g_new.norm()) < float(g.norm()):
            break
        theta, g = cand, g_new
    return theta, float(g.norm())


def train_to_convergence(loss: Callable[[torch.Tensor], torch.Tensor], theta0: torch.Tensor, adam_steps: int,
                         lbfgs_steps: int, newton_steps: int = 100, lr: float = 1e-3,
                         grad_tol: float = 1e-10) -> tuple[torch.Tensor, float]:
    """The paper's schedule (Adam, then L-BFGS with strong-Wolfe line search) continued by exact-Hessian
    trust-region Newton steps until ``|grad L| <= grad_tol`` (at most ``newton_steps``).

    Returns ``(theta, |grad L(theta)|)``. Used for the original fit and, from the same
    initialisation, for every leave-one-out refit (the authors' protocol: retrain from scratch
    with the same seed and one training point removed).
    """
    theta = train_pinn(loss, theta0, adam_steps, lbfgs_steps, lr=lr)
    return trust_region_newton(loss, theta, newton_steps, grad_tol)


def proximal_loo(loss: Callable[[torch.Tensor], torch.Tensor], theta_hat: torch.Tensor,
                 H_damped_inv: torch.Tensor, damping: float, iters: int = 100,
                 grad_tol: float = 1e-11) -> torch.Tensor:
    """Minimiser of ``loss(theta) + damping/2 ||theta - theta_hat||^2`` near ``theta_hat``.

    This proximal retraining is the response that damped influence functions estimate to first
    order (Bae et al., 2022): run it with the full loss (control) and with one point left out,
    and the difference of the two predictions is the ground truth for ``I(x, z)``. Solved by
    chord iterations preconditioned with ``H_damped_inv = (H(theta_hat) + damping I)^{-1}``.
    """
    damping = check_positive("damping", damping)
    theta = theta_hat.detach().clone()
    grad = torch.func.grad(loss)
    for _ in range(iters):
        g = grad(theta) + damping * (theta - theta_hat)
        if float(g.norm()) < grad_tol:
            break
        theta = theta - H_damped_inv @ g
    return theta
