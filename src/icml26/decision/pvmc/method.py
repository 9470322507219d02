"""Parallel variational Monte Carlo (PVMC): importance smoothing for deep state-space models.

Brady, Nüsken & Li, "Efficient Learning of Deep State Space Models via Importance
Smoothing", ICML 2026, arXiv:2605.21108 (Section 3).

A state-space model has prior ``P(x_0)``, transition kernel ``M_t(x_t | x_{t-1})`` and
observation kernel ``H_t(y_t | x_t)``. PVMC draws ``N`` particles per time step,
independently, from a time-factorised proposal ``V_t(x_t | y_{0:T})`` and weighs *all*
``N^{T+1}`` ways of chaining them into trajectories:

    l_0[j]        = log P(X_0^j) + log H_0(y_0 | X_0^j) - log V_0(X_0^j)
    logK_t[i, j]  = log M_t(X_t^j | X_{t-1}^i) + log H_t(y_t | X_t^j) - log V_t(X_t^j)
    L_hat         = N^-(T+1) * sum_{n_0..n_T} exp(l_0[n_0] + sum_t logK_t[n_{t-1}, n_t])

``L_hat`` is an unbiased estimate of ``p(y_{0:T})`` (Prop. 3.1), so ``E log L_hat`` is
an evidence lower bound; it is tighter than the IWAE bound built from the ``N``
"diagonal" trajectories ``(n, n, ..., n)`` on the same particles, which is tighter than
the VAE bound (Thm. 3.2). The sum is a chain of products in the log semiring,
``l_0 ⊗ K_1 ⊗ ... ⊗ K_T ⊗ 1``, so it is evaluated by an associative (parallel) reduction
over time. Marginal smoothing weights ``w_t^n ∝ alpha_t(n) beta_t(n)`` come from an
inclusive prefix scan (``alpha``) and a suffix scan (``beta``) of the same products;
the smoothing mean is ``sum_n w_t^n X_t^n``. Training maximises ``E log L_hat``
(generative) or minimises ``-ELBO + beta * sum_t ||sum_n w_t^n X_t^n - x_t*||^2``
(supervised).

Shapes: ``B`` batch, ``T+1`` time steps, ``N`` particles, ``dx``/``dy`` state/obs dims.
``l0: (B, N)``, ``log_kernels: (B, T, N, N)`` with ``log_kernels[:, t-1, i, j] = logK_t[i, j]``.

Also here: the sequential forward-backward reference, the IWAE/VAE bounds on the same
particles, a learnable linear-Gaussian SSM, a per-time Gaussian proposal (MLP on a
window of observations) and the two particle baselines:

* :func:`dsmc_smoother`, the paper's d-SMC competitor (de-sequentialised SMC, Corenflos,
  Chopin & Särkkä 2022): the *same* time-factorised proposal particles, merged by a
  parallel tree over time in which two neighbouring blocks of ``N`` partial trajectories
  are joined through all ``N^2`` pairings and ``N`` pairs are kept by multinomial
  resampling; ``log_Z`` is its likelihood estimate, the kept trajectories its smoother;
* :func:`soft_resampling_pf`, a sequential bootstrap particle filter with soft
  resampling (Karkus et al., 2018), a classic differentiable PF.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from icml26.core.validate import check_finite, check_int, check_positive
from icml26.nn.mlp import mlp

# --------------------------------------------------------------------------- validation


def _check_finite(name: str, x: Tensor) -> None:
    """A tensor without NaN or +inf (log weights may be -inf: a zero weight)."""
    if not torch.is_tensor(x):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if torch.isnan(x).any() or torch.isposinf(x).any():
        raise ValueError(f"{name} contains NaN or +inf")


def _check_tensor(name: str, x: Tensor, ndim: int | None = None) -> Tensor:
    """A finite tensor (of ``ndim`` dimensions if given)."""
    if not torch.is_tensor(x):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if ndim is not None and x.dim() != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(x.shape)}")
    check_finite(name, x)
    return x


def _check_chain(l0: Tensor, log_kernels: Tensor) -> None:
    _check_finite("l0", l0)
    _check_finite("log_kernels", log_kernels)
    if l0.dim() < 1 or l0.shape[-1] < 1:
        raise ValueError(f"l0 must have shape (..., N) with N >= 1, got {tuple(l0.shape)}")
    N = l0.shape[-1]
    if log_kernels.dim() != l0.dim() + 2 or log_kernels.shape[-2:] != (N, N):
        raise ValueError(f"log_kernels must have shape (..., T, N, N) = (..., T, {N}, {N}) "
                         f"matching l0 {tuple(l0.shape)}, got {tuple(log_kernels.shape)}")
    if log_kernels.shape[:-3] != l0.shape[:-1]:
        raise ValueError(f"batch shapes differ: l0 {tuple(l0.shape[:-1])} vs log_kernels {tuple(log_kernels.shape[:-3])}")


# ------------------------------------------------------------------ log-semiring algebra


def log_matmul_exp(a: Tensor, b: Tensor) -> Tensor:
    """``log(exp(a) @ exp(b))`` with a max shift per row of ``a`` and per column of ``b``.

    a: (..., n, k), b: (..., k, m) -> (..., n, m). A row of ``a`` (column of ``b``) that is all
    ``-inf`` gives ``-inf``; an underflowing shifted product is floored at ``log(tiny)`` so
    that neither the value nor the gradient becomes NaN.
    """
    _check_finite("a", a)
    _check_finite("b", b)
    if a.dim() < 2 or b.dim() < 2 or a.shape[-1] != b.shape[-2]:
        raise ValueError(f"a (..., n, k) and b (..., k, m) must agree on k, got a {tuple(a.shape)}, b {tuple(b.shape)}")
    a_max = a.amax(dim=-1, keepdim=True).detach()
    b_max = b.amax(dim=-2, keepdim=True).detach()
    a_ok, b_ok = torch.isfinite(a_max), torch.isfinite(b_max)
    a_max = torch.where(a_ok, a_max, torch.zeros_like(a_max))
    b_max = torch.where(b_ok, b_max, torch.zeros_like(b_max))
    prod = torch.exp(a - a_max) @ torch.exp(b - b_max)
    tiny = torch.finfo(prod.dtype).tiny
    out = torch.log(prod.clamp_min(tiny)) + a_max + b_max
    return torch.where(a_ok & b_ok, out, torch.full_like(out, -math.inf))


def associative_scan(op: Callable[[Tensor, Tensor], Tensor], elems: Tensor) -> Tensor:
    """Inclusive prefix scan ``out[i] = elems[0] op ... op elems[i]`` along dim 0.

    Work-efficient odd/even recursion (Blelloch-style): ``O(L)`` applications of ``op``
    in ``O(log L)`` sequential rounds; ``op`` must be associative and batched over dim 0.
    """
    L = elems.shape[0]
    if L < 2:
        return elems
    reduced = op(elems[0:-1:2], elems[1::2])          # prefixes ending at odd positions, recursively
    odd = associative_scan(op, reduced)                 # out[1], out[3], ...
    if L % 2 == 0:
        even = op(odd[:-1], elems[2::2])
    else:
        even = op(odd, elems[2::2])
    even = torch.cat([elems[:1], even], dim=0)          # out[0], out[2], ...
    n_pair = odd.shape[0]
    inter = torch.stack([even[:n_pair], odd], dim=1).reshape(2 * n_pair, *elems.shape[1:])
    if even.shape[0] > n_pair:
        inter = torch.cat([inter, even[n_pair:]], dim=0)
    return inter


def associative_reduce(op: Callable[[Tensor, Tensor], Tensor], elems: Tensor) -> Tensor:
    """``elems[0] op elems[1] op ... op elems[L-1]`` by pairwise tree reduction along dim 0."""
    if elems.shape[0] < 1:
        raise ValueError("associative_reduce needs at least one element")
    while elems.shape[0] > 1:
        L = elems.shape[0]
        paired = op(elems[0:L - 1:2], elems[1::2])
        elems = torch.cat([paired, elems[L - 1:]], dim=0) if L % 2 else paired
    return elems[0]


def _time_first(x: Tensor) -> Tensor:
    return x.movedim(-3, 0)  # (..., T, N, N) -> (T, ..., N, N)


# ------------------------------------------------------------------ PVMC estimators


def pvmc_log_likelihood(l0: Tensor, log_kernels: Tensor) -> Tensor:
    """``log L_hat`` by a parallel tree reduction over time (Prop. 3.1 estimator).

    l0: (..., N), log_kernels: (..., T, N, N) -> (...,).
    """
    _check_chain(l0, log_kernels)
    N = l0.shape[-1]
    T = log_kernels.shape[-3]
    if T == 0:
        return torch.logsumexp(l0, -1) - math.log(N)
    prod = associative_reduce(log_matmul_exp, _time_first(log_kernels))   # (..., N, N)
    return torch.logsumexp(l0.unsqueeze(-1) + prod, dim=(-2, -1)) - (T + 1) * math.log(N)


def pvmc_smoothing(l0: Tensor, log_kernels: Tensor) -> tuple[Tensor, Tensor]:
    """``log L_hat`` and normalised log marginal smoothing weights by prefix/suffix scans.

    Prefix products ``P_t = K_1 ⊗ ... ⊗ K_t`` and suffix products ``S_t = K_t ⊗ ... ⊗ K_T``
    are inclusive associative scans over time (``O(log T)`` rounds of batched ``N x N``
    log-matmuls); ``alpha_t = l_0 ⊗ P_t`` and ``beta_t = S_{t+1} ⊗ 1``.

    Returns log_lik (...,) and log_weights (..., T+1, N) (each time step logsumexp's to 0).
    """
    _check_chain(l0, log_kernels)
    N = l0.shape[-1]
    T = log_kernels.shape[-3]
    if T == 0:
        lw = torch.log_softmax(l0, -1).unsqueeze(-2)
        return torch.logsumexp(l0, -1) - math.log(N), lw
    K = _time_first(log_kernels)                                          # (T, ..., N, N)
    prefix = associative_scan(log_matmul_exp, K)                          # P_1..P_T
    suffix = associative_scan(lambda a, b: log_matmul_exp(b, a), K.flip(0)).flip(0)  # S_1..S_T
    alpha = torch.logsumexp(l0.unsqueeze(-1).unsqueeze(0) + prefix, dim=-2)          # (T, ..., N) for t=1..T
    alpha = torch.cat([l0.unsqueeze(0), alpha], 0)                                    # t=0..T
    beta = torch.logsumexp(suffix, dim=-1)                                            # beta_0..beta_{T-1}
    beta = torch.cat([beta, torch.zeros_like(beta[:1])], 0)                           # beta_T = 0
    joint = (alpha + beta).movedim(0, -2)                                             # (..., T+1, N)
    log_z = torch.logsumexp(joint, -1, keepdim=True)
    log_lik = log_z[..., -1, 0] - (T + 1) * math.log(N)
    return log_lik, joint - log_z


def forward_backward_sequential(l0: Tensor, log_kernels: Tensor) -> tuple[Tensor, Tensor]:
    """Reference: the same quantities as :func:`pvmc_smoothing` by a sequential log-space
    forward-backward recursion (``O(T N^2)`` work, ``T`` sequential steps)."""
    _check_chain(l0, log_kernels)
    N = l0.shape[-1]
    T = log_kernels.shape[-3]
    alphas = [l0]
    for t in range(T):
        alphas.append(torch.logsumexp(alphas[-1].unsqueeze(-1) + log_kernels[..., t, :, :], dim=-2))
    betas = [torch.zeros_like(l0)]
    for t in range(T - 1, -1, -1):
        betas.insert(0, torch.logsumexp(log_kernels[..., t, :, :] + betas[0].unsqueeze(-2), dim=-1))
    joint = torch.stack(alphas, -2) + torch.stack(betas, -2)
    log_z = torch.logsumexp(joint, -1, keepdim=True)
    log_lik = torch.logsumexp(alphas[-1], -1) - (T + 1) * math.log(N)
    return log_lik, joint - log_z


def diagonal_log_weights(l0: Tensor, log_kernels: Tensor) -> Tensor:
    """Log importance weights of the ``N`` diagonal trajectories ``(n, ..., n)``: (..., N)."""
    _check_chain(l0, log_kernels)
    return l0 + torch.diagonal(log_kernels, dim1=-2, dim2=-1).sum(-2)


def iwae_log_bound(l0: Tensor, log_kernels: Tensor) -> Tensor:
    """IWAE estimate ``log (1/N) sum_n exp(diag weight_n)`` on the same particles: (...,)."""
    lw = diagonal_log_weights(l0, log_kernels)
    return torch.logsumexp(lw, -1) - math.log(lw.shape[-1])


def vae_bound(l0: Tensor, log_kernels: Tensor) -> Tensor:
    """VAE (single-sample ELBO) estimate averaged over the ``N`` diagonal trajectories: (...,)."""
    return diagonal_log_weights(l0, log_kernels).mean(-1)


def smoothing_mean(log_weights: Tensor, particles: Tensor) -> Tensor:
    """``sum_n w_t^n X_t^n``. log_weights (..., T+1, N), particles (..., T+1, N, dx) -> (..., T+1, dx)."""
    _check_finite("log_weights", log_weights)
    _check_tensor("particles", particles)
    if particles.shape[:-1] != log_weights.shape:
        raise ValueError(f"particles {tuple(particles.shape)} must be log_weights {tuple(log_weights.shape)} + (dx,)")
    return (torch.exp(log_weights).unsqueeze(-1) * particles).sum(-2)


# ------------------------------------------------------------------ models


def _gauss_logpdf_diag(x: Tensor, mean: Tensor, log_std: Tensor) -> Tensor:
    z = (x - mean) * torch.exp(-log_std)
    return -0.5 * (z * z).sum(-1) - log_std.sum(-1) - 0.5 * x.shape[-1] * math.log(2 * math.pi)


class LinearGaussianSSM(nn.Module):
    """Learnable linear-Gaussian SSM with diagonal noise covariances.

    ``x_0 ~ N(m0, diag(s0^2))``, ``x_t = A x_{t-1} + N(0, diag(q^2))``, ``y_t = C x_t + N(0, diag(r^2))``.
    ``A = W * min(1, rho_max / ||W||_2)`` caps the spectral norm (hence the spectral radius)
    at ``rho_max`` (0.98 in the paper's linear-Gaussian code).
    """

    def __init__(self, dx: int, dy: int, rho_max: float = 0.98, generator: torch.Generator | None = None,
                 dtype: torch.dtype = torch.float32):
        super().__init__()
        dx, dy = check_int("dx", dx, minimum=1), check_int("dy", dy, minimum=1)
        rho_max = check_positive("rho_max", rho_max)
        self.dx, self.dy, self.rho_max = dx, dy, rho_max
        g = generator
        self.W = nn.Parameter(0.5 * torch.eye(dx, dtype=dtype) + 0.1 * torch.randn(dx, dx, generator=g, dtype=dtype))
        self.C = nn.Parameter(torch.randn(dy, dx, generator=g, dtype=dtype) / math.sqrt(dx))
        self.log_q = nn.Parameter(torch.zeros(dx, dtype=dtype))
        self.log_r = nn.Parameter(torch.zeros(dy, dtype=dtype))
        self.m0 = nn.Parameter(torch.zeros(dx, dtype=dtype))
        self.log_s0 = nn.Parameter(torch.zeros(dx, dtype=dtype))

    @classmethod
    def from_matrices(cls, A: Tensor, C: Tensor, q_std: Tensor, r_std: Tensor, m0: Tensor, s0_std: Tensor,
                      rho_max: float = 0.98) -> "LinearGaussianSSM":
        for name, v in (("A", A), ("C", C), ("q_std", q_std), ("r_std", r_std), ("m0", m0), ("s0_std", s0_std)):
            _check_tensor(name, v)
        if A.dim() != 2 or A.shape[0] != A.shape[1] or C.dim() != 2 or C.shape[1] != A.shape[0]:
            raise ValueError(f"A must be (dx, dx) and C (dy, dx), got A {tuple(A.shape)}, C {tuple(C.shape)}")
        dx, dy = A.shape[0], C.shape[0]
        for name, v, d in (("q_std", q_std, dx), ("r_std", r_std, dy), ("m0", m0, dx), ("s0_std", s0_std, dx)):
            if v.shape != (d,):
                raise ValueError(f"{name} must have shape ({d},), got {tuple(v.shape)}")
        for name, v in (("q_std", q_std), ("r_std", r_std), ("s0_std", s0_std)):
            if not bool((v > 0).all()):
                raise ValueError(f"{name} must be > 0")
        if torch.linalg.matrix_norm(A, ord=2) > rho_max:
            raise ValueError(f"A has spectral norm above rho_max={rho_max}")
        m = cls(dx, dy, rho_max=rho_max, dtype=A.dtype)
        with torch.no_grad():
            m.W.copy_(A); m.C.copy_(C); m.log_q.copy_(q_std.log()); m.log_r.copy_(r_std.log())
            m.m0.copy_(m0); m.log_s0.copy_(s0_std.log())
        return m

    @property
    def A(self) -> Tensor:
        norm = torch.linalg.matrix_norm(self.W, ord=2)
        return self.W * torch.clamp(self.rho_max / norm, max=1.0)

    def matrices(self) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
        """(A, Q, C, R, m0, P0) as dense matrices, for the exact Kalman references."""
        return (self.A, torch.diag(torch.exp(2 * self.log_q)), self.C, torch.diag(torch.exp(2 * self.log_r)),
                self.m0, torch.diag(torch.exp(2 * self.log_s0)))

    def log_prior(self, x0: Tensor) -> Tensor:
        return _gauss_logpdf_diag(x0, self.m0, self.log_s0)

    def log_transition(self, x_prev: Tensor, x: Tensor) -> Tensor:
        """log M(x | x_prev), broadcasting over leading dims of the two arguments."""
        return _gauss_logpdf_diag(x, x_prev @ self.A.T, self.log_q)

    def log_observation(self, y: Tensor, x: Tensor) -> Tensor:
        return _gauss_logpdf_diag(y, x @ self.C.T, self.log_r)

    def sample_transition(self, x_prev: Tensor) -> Tensor:
        return x_prev @ self.A.T + torch.exp(self.log_q) * torch.randn_like(x_prev)

    def sample_prior(self, shape: tuple[int, ...]) -> Tensor:
        return self.m0 + torch.exp(self.log_s0) * torch.randn(*shape, self.dx, dtype=self.m0.dtype, device=self.m0.device)

    @torch.no_grad()
    def simulate(self, batch: int, T: int) -> tuple[Tensor, Tensor]:
        """Draw ``batch`` trajectories of ``T+1`` steps: states (B, T+1, dx), observations (B, T+1, dy)."""
        batch, T = check_int("batch", batch, minimum=1), check_int("T", T, minimum=0)
        xs = [self.sample_prior((batch,))]
        for _ in range(T):
            xs.append(self.sample_transition(xs[-1]))
        x = torch.stack(xs, 1)
        y = x @ self.C.T + torch.exp(self.log_r) * torch.randn(batch, T + 1, self.dy, dtype=x.dtype, device=x.device)
        return x, y


class GaussianWindowProposal(nn.Module):
    """Time-factorised Gaussian proposal ``V_t(x_t | y_{t-k..t+k}) = N(mu_t, diag(sigma_t^2))``.

    An MLP maps a zero-padded window of ``2k+1`` observations (plus an in-range mask, so
    the edges are known) to ``mu_t`` and ``log sigma_t``; all time steps are sampled in
    parallel with the reparameterisation trick.
    """

    def __init__(self, dx: int, dy: int, window: int = 5, hidden: int = 32, dtype: torch.dtype = torch.float32):
        super().__init__()
        dx, dy = check_int("dx", dx, minimum=1), check_int("dy", dy, minimum=1)
        window, hidden = check_int("window", window, minimum=0), check_int("hidden", hidden, minimum=1)
        self.dx, self.dy, self.k = dx, dy, window
        width = 2 * window + 1
        self.net = mlp([width * (dy + 1), hidden, 2 * dx], activation="tanh", dtype=dtype)

    def params(self, y: Tensor) -> tuple[Tensor, Tensor]:
        """y (B, T+1, dy) -> mean (B, T+1, dx), log_std (B, T+1, dx)."""
        B, T1, dy = y.shape
        k = self.k
        pad = torch.zeros(B, k, dy, dtype=y.dtype, device=y.device)
        yp = torch.cat([pad, y, pad], 1)
        mask = torch.cat([torch.zeros(B, k, 1), torch.ones(B, T1, 1), torch.zeros(B, k, 1)], 1).to(y)
        feats = torch.cat([yp, mask], -1).unfold(1, 2 * k + 1, 1)   # (B, T+1, dy+1, 2k+1)
        out = self.net(feats.reshape(B, T1, -1))
        mean, log_std = out[..., :self.dx], out[..., self.dx:]
        return mean, log_std.clamp(-5.0, 3.0)

    def forward(self, y: Tensor, n_particles: int, stick_the_landing: bool = True) -> tuple[Tensor, Tensor]:
        """Sample X (B, T+1, N, dx) and log V(X) (B, T+1, N).

        With ``stick_the_landing`` the density is evaluated with detached parameters, so
        the proposal gradient flows only through the reparameterised samples (the paper's
        lower-variance form of the proposal gradient).
        """
        n_particles = check_int("n_particles", n_particles, minimum=1)
        _check_series(y)
        if y.shape[-1] != self.dy:
            raise ValueError(f"y must have {self.dy} observation dims, got shape {tuple(y.shape)}")
        mean, log_std = self.params(y)
        eps = torch.randn(*mean.shape[:2], n_particles, self.dx, dtype=mean.dtype, device=mean.device)
        X = mean.unsqueeze(2) + torch.exp(log_std).unsqueeze(2) * eps
        if stick_the_landing:
            log_v = _gauss_logpdf_diag(X, mean.detach().unsqueeze(2), log_std.detach().unsqueeze(2))
        else:
            log_v = _gauss_logpdf_diag(X, mean.unsqueeze(2), log_std.unsqueeze(2))
        return X, log_v


def _check_series(y: Tensor, name: str = "y") -> None:
    _check_tensor(name, y)
    if y.dim() != 3 or y.shape[1] < 1:
        raise ValueError(f"{name} must have shape (B, T+1, d) with T+1 >= 1, got {tuple(y.shape)}")


def log_kernels(ssm: LinearGaussianSSM, y: Tensor, X: Tensor, log_v: Tensor) -> tuple[Tensor, Tensor]:
    """PVMC log kernels. y (B, T+1, dy), X (B, T+1, N, dx), log_v (B, T+1, N) -> l0 (B, N), logK (B, T, N, N).

    Works with any ``ssm`` exposing ``log_prior``, ``log_transition`` (broadcasting) and
    ``log_observation``; ``logK[:, t-1, i, j] = log M_t(X_t^j|X_{t-1}^i) + log H_t(y_t|X_t^j) - log V_t(X_t^j)``.
    """
    _check_series(y)
    _check_tensor("X", X, ndim=4)
    _check_tensor("log_v", log_v, ndim=3)
    if X.shape[:2] != y.shape[:2] or log_v.shape != X.shape[:3]:
        raise ValueError(f"X must be (B, T+1, N, dx) and log_v (B, T+1, N) matching y {tuple(y.shape)}; "
                         f"got X {tuple(X.shape)}, log_v {tuple(log_v.shape)}")
    obs = ssm.log_observation(y.unsqueeze(2), X) - log_v                      # (B, T+1, N)
    l0 = ssm.log_prior(X[:, 0]) + obs[:, 0]
    trans = ssm.log_transition(X[:, :-1].unsqueeze(3), X[:, 1:].unsqueeze(2))  # (B, T, N_prev, N)
    return l0, trans + obs[:, 1:].unsqueeze(2)


def pvmc_objective(ssm: LinearGaussianSSM, proposal: GaussianWindowProposal, y: Tensor, n_particles: int,
                   x_true: Tensor | None = None, beta: float = 1.0, bound: str = "pvmc") -> dict[str, Tensor]:
    """Training loss on one batch, per time step: ``-bound/(T+1) + beta * mean_t ||x_hat_t - x_t*||^2``.

    ``bound="pvmc"``: the PVMC ELBO with marginal smoothing means (the paper's method);
    ``bound="iwae"``: the P-VAE ablation — same sampler, IWAE bound over the ``N`` diagonal
    trajectories, state estimate = their self-normalised importance-weighted mean.
    Without ``x_true`` the loss is the generative one.
    Returns dict with ``loss`` (scalar), ``bound`` (B,), ``mean`` (B, T+1, dx).
    """
    _check_series(y)
    if bound not in ("pvmc", "iwae"):
        raise ValueError(f"bound must be 'pvmc' or 'iwae', got {bound!r}")
    beta = check_positive("beta", beta, strict=False)
    n_particles = check_int("n_particles", n_particles, minimum=1)
    if x_true is not None:
        _check_tensor("x_true", x_true, ndim=3)
    X, log_v = proposal(y, n_particles)
    l0, logK = log_kernels(ssm, y, X, log_v)
    if bound == "pvmc":
        if x_true is None:
            b = pvmc_log_likelihood(l0, logK)
            mean = None
        else:
            b, lw = pvmc_smoothing(l0, logK)
            mean = smoothing_mean(lw, X)
    else:
        lw_diag = diagonal_log_weights(l0, logK)
        b = torch.logsumexp(lw_diag, -1) - math.log(n_particles)
        w = torch.softmax(lw_diag, -1)                                          # (B, N)
        mean = (w[:, None, :, None] * X).sum(2)
    T1 = y.shape[1]
    loss = -b.mean() / T1
    if x_true is not None:
        if x_true.shape != mean.shape:
            raise ValueError(f"x_true must have shape {tuple(mean.shape)}, got {tuple(x_true.shape)}")
        loss = loss + beta * ((mean - x_true) ** 2).sum(-1).mean()
    return {"loss": loss, "bound": b, "mean": mean}


# ------------------------------------------------------------------ baseline: d-SMC (the paper's competitor)


def _select(x: Tensor, idx: Tensor) -> Tensor:
    """x (G, B, N, ...) indexed along N by idx (G, B, M) -> (G, B, M, ...)."""
    shape = idx.shape + x.shape[3:]
    return torch.gather(x, 2, idx.reshape(idx.shape + (1,) * (x.dim() - 3)).expand(shape))


def _dsmc_merge(ssm, left: Tensor, right: Tensor, lead_left: Tensor, lead_right: Tensor,
                gen: torch.Generator | None) -> tuple[Tensor, Tensor, Tensor]:
    """Join G pairs of neighbouring blocks of N partial trajectories.

    left (G, B, N, s_l, dx) ends at time u, right (G, B, N, s_r, dx) starts at u+1; lead_* (G, B, N)
    are the not-yet-applied log weights of each block's first time step. Every one of the N^2
    pairs (n, m) gets log weight ``log M(right_m[0] | left_n[-1]) + lead_right[m]``; N pairs are
    kept by multinomial resampling (indices carry no gradient). Returns the merged paths
    (G, B, N, s_l + s_r, dx), their lead weights (G, B, N) and the log normaliser (G, B).
    """
    N = left.shape[2]
    logw = ssm.log_transition(left[:, :, :, None, -1], right[:, :, None, :, 0]) + lead_right[:, :, None, :]
    flat = logw.flatten(-2)                                                        # (G, B, N*N)
    log_c = torch.logsumexp(flat, -1) - 2 * math.log(N)
    probs = torch.softmax(flat.detach(), -1).reshape(-1, N * N)
    pick = torch.multinomial(probs, N, replacement=True, generator=gen).reshape(flat.shape[:2] + (N,))
    li, ri = pick // N, pick % N
    merged = torch.cat([_select(left, li), _select(right, ri)], dim=3)
    return merged, _select(lead_left, li), log_c


def dsmc_smoother(ssm: LinearGaussianSSM, y: Tensor, X: Tensor, log_v: Tensor,
                  generator: torch.Generator | None = None) -> dict[str, Tensor]:
    """De-sequentialised SMC (d-SMC) on PVMC's proposal particles: the paper's SMC competitor.

    ``X`` (B, T+1, N, dx) and ``log_v`` (B, T+1, N) are the same time-factorised proposal draws
    that PVMC weighs. Each time step starts as a block of ``N`` one-step trajectories with lead
    weight ``log H_t(y_t|X_t) - log V_t(X_t)`` (plus ``log P(X_0)`` at t = 0). The t = 0 block is
    resampled once by its weights (its weight has no predecessor to be paired with; the
    normaliser enters ``log_Z``), then neighbouring blocks are merged pairwise in a tree over
    time (``ceil(log2(T+1))`` rounds, each batched over all pairs of the round) by
    :func:`_dsmc_merge`. ``exp(log_Z)`` is an unbiased estimate of ``p(y_{0:T})``; the ``N`` kept
    trajectories are equally weighted, so their average is the smoothing mean.

    Returns log_Z (B,), smooth_mean (B, T+1, dx), paths (B, N, T+1, dx).
    """
    _check_series(y)
    _check_tensor("X", X, ndim=4)
    _check_tensor("log_v", log_v, ndim=3)
    if X.shape[:2] != y.shape[:2] or log_v.shape != X.shape[:3]:
        raise ValueError(f"X must be (B, T+1, N, dx) and log_v (B, T+1, N) matching y {tuple(y.shape)}; "
                         f"got X {tuple(X.shape)}, log_v {tuple(log_v.shape)}")
    B, T1, N, _ = X.shape
    lead = ssm.log_observation(y.unsqueeze(2), X) - log_v                           # (B, T+1, N)
    lead = torch.cat([lead[:, :1] + ssm.log_prior(X[:, 0]).unsqueeze(1), lead[:, 1:]], 1)
    log_Z = torch.logsumexp(lead[:, 0], -1) - math.log(N)
    a0 = torch.multinomial(torch.softmax(lead[:, 0].detach(), -1), N, replacement=True, generator=generator)
    x0 = torch.gather(X[:, 0], 1, a0.unsqueeze(-1).expand(-1, -1, X.shape[-1]))
    blocks = [(x0.unsqueeze(2), torch.zeros_like(lead[:, 0]))]                    # (B, N, span, dx), (B, N)
    blocks += [(X[:, t].unsqueeze(2), lead[:, t]) for t in range(1, T1)]
    while len(blocks) > 1:
        pairs = [(blocks[i], blocks[i + 1]) for i in range(0, len(blocks) - 1, 2)]
        merged: list = [None] * len(pairs)
        groups: dict[tuple[int, int], list[int]] = {}
        for k, (lb, rb) in enumerate(pairs):
            groups.setdefault((lb[0].shape[2], rb[0].shape[2]), []).append(k)
        for ks in groups.values():
            stack = lambda j, w: torch.stack([pairs[k][j][w] for k in ks])  # noqa: E731
            paths, lead_new, log_c = _dsmc_merge(ssm, stack(0, 0), stack(1, 0), stack(0, 1), stack(1, 1), generator)
            log_Z = log_Z + log_c.sum(0)
            for g, k in enumerate(ks):
                merged[k] = (paths[g], lead_new[g])
        if len(blocks) % 2:
            merged.append(blocks[-1])
        blocks = merged
    paths = blocks[0][0]                                                            # (B, N, T+1, dx)
    return {"log_Z": log_Z, "smooth_mean": paths.mean(1), "paths": paths}


def dsmc_objective(ssm: LinearGaussianSSM, proposal: GaussianWindowProposal, y: Tensor, n_particles: int,
                   x_true: Tensor | None = None, beta: float = 1.0) -> dict[str, Tensor]:
    """d-SMC training loss on one batch, in the same form as :func:`pvmc_objective`:
    ``-log_Z/(T+1) + beta * mean_t ||x_hat_t - x_t*||^2`` with the d-SMC smoother as ``x_hat``.
    Returns dict with ``loss``, ``bound`` (B,) = log_Z and ``mean`` (B, T+1, dx)."""
    _check_series(y)
    beta = check_positive("beta", beta, strict=False)
    n_particles = check_int("n_particles", n_particles, minimum=1)
    X, log_v = proposal(y, n_particles)
    out = dsmc_smoother(ssm, y, X, log_v)
    loss = -out["log_Z"].mean() / y.shape[1]
    if x_true is not None:
        _check_tensor("x_true", x_true, ndim=3)
        if x_true.shape != out["smooth_mean"].shape:
            raise ValueError(f"x_true must have shape {tuple(out['smooth_mean'].shape)}, got {tuple(x_true.shape)}")
        loss = loss + beta * ((out["smooth_mean"] - x_true) ** 2).sum(-1).mean()
    return {"loss": loss, "bound": out["log_Z"], "mean": out["smooth_mean"]}


# ------------------------------------------------------------------ baseline: soft-resampling PF


def soft_resampling_pf(ssm: LinearGaussianSSM, y: Tensor, n_particles: int, alpha: float = 0.5
                       ) -> dict[str, Tensor]:
    """Bootstrap particle filter with soft resampling (differentiable SMC baseline).

    At each step ancestors are drawn from ``q = alpha * W + (1 - alpha) / N`` and the
    weights corrected by ``W / q`` (gradients flow through the correction and the
    reparameterised transitions). ``log_Z`` is the usual SMC estimate of ``log p(y)``.
    Smoothing means come from the particle genealogy (ancestral paths weighted by the
    final weights); filtering means from the current weights. Sequential in time.
    Returns log_Z (B,), filter_mean (B, T+1, dx), smooth_mean (B, T+1, dx).
    """
    _check_series(y)
    n_particles = check_int("n_particles", n_particles, minimum=1)
    alpha = check_positive("alpha", alpha)
    if alpha > 1.0:
        raise ValueError(f"alpha must be in (0, 1], got {alpha}")
    B, T1, _ = y.shape
    N = n_particles
    x = ssm.sample_prior((B, N))                                                 # (B, N, dx)
    logw = ssm.log_observation(y[:, 0:1], x)                                     # (B, N)
    log_Z = torch.logsumexp(logw, -1) - math.log(N)
    W = torch.softmax(logw, -1)
    filt = [(W.unsqueeze(-1) * x).sum(1)]
    xs, ancestors = [x], []
    for t in range(1, T1):
        # log W and log q in log space: a zero weight must not produce a NaN gradient
        logW = torch.log_softmax(logw, -1)
        log_q = torch.logaddexp(logW + math.log(alpha), torch.full_like(logW, math.log((1 - alpha) / N))) \
            if alpha < 1 else logW
        a = torch.multinomial(torch.exp(log_q.detach()), N, replacement=True)  # (B, N)
        log_pre = torch.gather(logW, 1, a) - torch.gather(log_q, 1, a)
        x = ssm.sample_transition(torch.gather(x, 1, a.unsqueeze(-1).expand(-1, -1, x.shape[-1])))
        logw = log_pre + ssm.log_observation(y[:, t:t + 1], x)
        log_Z = log_Z + torch.logsumexp(logw, -1) - torch.logsumexp(log_pre, -1)
        W = torch.softmax(logw, -1)
        filt.append((W.unsqueeze(-1) * x).sum(1))
        xs.append(x)
        ancestors.append(a)
    # genealogy: trace each final particle's ancestral path backwards (O(T N))
    idx = torch.arange(N, device=y.device).expand(B, N)
    path = [xs[-1]]
    for t in range(T1 - 2, -1, -1):
        idx = torch.gather(ancestors[t], 1, idx)
        path.insert(0, torch.gather(xs[t], 1, idx.unsqueeze(-1).expand(-1, -1, x.shape[-1])))
    paths = torch.stack(path, 2)                                                 # (B, N, T+1, dx)
    smooth = (W[:, :, None, None] * paths).sum(1)
    return {"log_Z": log_Z, "filter_mean": torch.stack(filt, 1), "smooth_mean": smooth}
