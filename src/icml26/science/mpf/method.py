"""Metric–Phase Fields (MPF, arXiv 2605.25503): an unsigned metric r, a smooth phase theta, one signed field.

What the paper states (abstract, OpenReview summary; the full text and code were not available):
from an unoriented point cloud learn (i) an unsigned metric field ``r >= 0`` and (ii) a smooth
phase field ``theta``; derive the bounded phase indicator ``P = tanh(beta * theta)`` with a
learnable ``beta``; couple them by a *gated metric with a residual phase injection* into a signed
implicit function with stable near-surface gradients.

What we reconstructed (labelled (R); our design, not the paper's text):

* (R) coupling ``f = P * r + gamma * theta * exp(-r / tau)``. Far from the data ``f ~ +-r``;
  at the data (``r = 0``) ``grad f = gamma * grad theta``, non-zero, unlike a UDF. Because
  ``P``, ``theta`` share their sign and ``r >= 0``, ``sign f = sign theta``: the zero set of
  ``f`` is the zero set of ``theta`` (:func:`metric_phase_field`).
* (R) losses (:func:`mpf_losses`): on data points ``|r| + |theta|``; a metric pull
  ``|r(q) - d_X(q)|`` towards the distance to the point cloud at off-surface samples ``q``; a
  non-degenerate phase at the data ``(|grad theta| - 1)^2`` (this is what forces a sign
  change across the data without normals); a small Dirichlet energy ``|grad theta|^2`` and a
  double-well ``(1 - P^2)^2`` away from the data (phase-transition style, so ``P`` saturates);
  and metric consistency ``(|f| - r)^2``.
* (R) extraction (:func:`extract`): marching squares/cubes of ``f`` at 0, keeping only the
  parts where ``r < tau_r`` (the gate that removes phase boundaries far from the data, e.g.
  beyond open edges).

Baselines, on the same network: an IGR-style SDF (one signed head, ``|s(p)|`` on the data plus
an eikonal term; :func:`sdf_losses`) extracted at its zero level, untrimmed or trimmed to the
neighbourhood of the input points (``sdf_trim``), and a UDF (the ``r`` head
alone with MPF's metric terms; :func:`udf_losses`) extracted by the documented rule of
:func:`extract`: the ``eps``-level set of ``r`` with every vertex projected onto ``r = 0`` by
``x <- x - r(x) grad r(x) / |grad r(x)|^2``.

The networks of one experiment are trained together as a stack of independent MLPs
(:class:`StackedFields`, weights ``(M, in, out)``), with spatial gradients propagated
forward alongside the values (exact, one backward pass for the parameters), and an Adam
with one learning rate per network (:func:`train_stack`). :func:`metric_fit` measures how close a
learned ``r`` is to the distance to the cloud near the input (the training gate of the claims).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from icml26.core.validate import as_array, check_int, check_positive

ARMS = ("mpf", "sdf", "udf")
#: extraction rules: the trained arms plus the SDF trimmed to the input points' neighbourhood
EXTRACT_ARMS = (*ARMS, "sdf_trim")
#: sharpness of the metric head's softplus (r = softplus(k z) / k)
K_SOFTPLUS = 10.0


# ----------------------------------------------------------------------------- the coupling
def phase_indicator(theta: Any, beta: Any) -> Any:
    """``P = tanh(beta * theta)``, the bounded soft sign; ``theta: (n,)`` array or tensor."""
    theta = as_array("theta", theta, ndim=1)
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.floating, np.integer)) and not hasattr(beta, "detach"):
        raise TypeError(f"beta must be a positive number or tensor, got {type(beta).__name__}")
    if not hasattr(beta, "detach"):
        beta = check_positive("beta", beta)
    if hasattr(theta, "detach"):
        return torch.tanh(beta * theta)
    return np.tanh(beta * theta)


def metric_phase_field(r: Any, theta: Any, beta: Any, gamma: float = 1.0, tau: float = 0.05) -> Any:
    """(R) the gated metric with residual phase injection: ``f = P r + gamma theta exp(-r / tau)``.

    ``r, theta: (n,)``, ``r >= 0``. Returns ``f: (n,)``.
    """
    r = as_array("r", r, ndim=1)
    theta = as_array("theta", theta, ndim=1)
    if tuple(r.shape) != tuple(theta.shape):
        raise ValueError(f"r and theta must have the same shape, got {tuple(r.shape)} and {tuple(theta.shape)}")
    gamma = check_positive("gamma", gamma, strict=False)
    tau = check_positive("tau", tau)
    if (r < 0).any():
        raise ValueError("r must be non-negative")
    p = phase_indicator(theta, beta)
    if hasattr(r, "detach"):
        return p * r + gamma * theta * torch.exp(-r / tau)
    return p * r + gamma * theta * np.exp(-r / tau)


# ----------------------------------------------------------------------------- the stacked network
class StackedFields(torch.nn.Module):
    """``M`` independent Fourier-feature MLPs ``R^d -> R^2`` (head 0: metric r, head 1: phase/signed).

    Input ``x: (M, N, d)``; :meth:`forward` returns ``values (M, N, 2)`` and, with ``grad=True``,
    spatial gradients ``(M, N, 2, d)`` propagated forward through the layers (exact).
    Head 0 is ``r = softplus(k z) / k`` (``k = K_SOFTPLUS``); head 1 gets the geometric-initialisation
    skip term ``|x| - rho`` (SAL/IGR's sphere start, written as an explicit term).
    """

    def __init__(self, n_models: int, dim: int, *, width: int = 32, depth: int = 2, n_freq: int = 16,
                 freq_scale: float = 3.0, rho: float = 0.5, beta0: float = 10.0, seed: int = 0) -> None:
        super().__init__()
        n_models = check_int("n_models", n_models, minimum=1)
        dim = check_int("dim", dim, minimum=1, maximum=3)
        width = check_int("width", width, minimum=1)
        depth = check_int("depth", depth, minimum=1)
        n_freq = check_int("n_freq", n_freq, minimum=1)
        freq_scale = check_positive("freq_scale", freq_scale)
        beta0 = check_positive("beta0", beta0)
        g = torch.Generator().manual_seed(int(seed))
        self.dim, self.rho = dim, float(rho)
        self.register_buffer("B", freq_scale * torch.randn(n_models, dim, n_freq, generator=g))
        sizes = [2 * n_freq + dim] + [width] * depth + [2]
        self.weights = torch.nn.ParameterList()
        self.biases = torch.nn.ParameterList()
        for a, b in zip(sizes[:-1], sizes[1:]):
            w = torch.randn(n_models, a, b, generator=g) * math.sqrt(1.0 / a)
            self.weights.append(torch.nn.Parameter(w))
            self.biases.append(torch.nn.Parameter(torch.zeros(n_models, 1, b)))
        with torch.no_grad():
            self.weights[-1].mul_(0.1)
            self.biases[-1][:, :, 0] = 0.3  # r starts positive everywhere
        self.log_beta = torch.nn.Parameter(torch.full((n_models,), math.log(beta0)))

    @property
    def n_models(self) -> int:
        return int(self.B.shape[0])

    def beta(self) -> torch.Tensor:
        return self.log_beta.exp()

    def forward(self, x: torch.Tensor, grad: bool = True) -> tuple[torch.Tensor, torch.Tensor | None]:
        m, n, d = x.shape
        if m != self.n_models or d != self.dim:
            raise ValueError(f"x must have shape ({self.n_models}, N, {self.dim}), got {tuple(x.shape)}")
        z = 2 * math.pi * torch.bmm(x, self.B)  # (M, N, F)
        s, c = torch.sin(z), torch.cos(z)
        h = torch.cat([s, c, x], dim=-1)
        if grad:
            # rows of h: the values, then d blocks of tangents dh/dx_j; all go through one bmm per layer
            bt = (2 * math.pi * self.B).unsqueeze(2)  # (M, d, 1, F)
            eye = torch.eye(d, dtype=x.dtype).view(1, d, 1, d).expand(m, d, n, d)
            t = torch.cat([c.unsqueeze(1) * bt, -s.unsqueeze(1) * bt, eye], dim=-1)  # (M, d, N, C)
            h = torch.cat([h.unsqueeze(1), t], dim=1).reshape(m, (1 + d) * n, -1)
        n_layers = len(self.weights)
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = torch.bmm(h, w)
            if grad:
                h = h.view(m, 1 + d, n, -1)
                val = h[:, :1] + b.unsqueeze(1)
                tan = h[:, 1:]
                if i < n_layers - 1:
                    val = torch.tanh(val)
                    tan = (1 - val * val) * tan
                h = torch.cat([val, tan], dim=1).view(m, (1 + d) * n, -1)
            else:
                h = h + b
                if i < n_layers - 1:
                    h = torch.tanh(h)
        if grad:
            h = h.view(m, 1 + d, n, 2)
            t = h[:, 1:].permute(0, 2, 3, 1)  # (M, N, 2, d)
            h = h[:, 0]
        # heads: r = softplus(k z) / k; phase = z + |x| - rho
        r = torch.nn.functional.softplus(K_SOFTPLUS * h[..., 0]) / K_SOFTPLUS
        norm = x.norm(dim=-1).clamp_min(1e-9)
        ph = h[..., 1] + norm - self.rho
        out = torch.stack([r, ph], dim=-1)
        if not grad:
            return out, None
        gr = torch.sigmoid(K_SOFTPLUS * h[..., 0]).unsqueeze(-1) * t[..., 0, :]
        gp = t[..., 1, :] + x / norm.unsqueeze(-1)
        return out, torch.stack([gr, gp], dim=2)

    @torch.no_grad()
    def evaluate(self, x: torch.Tensor, chunk: int = 16384) -> torch.Tensor:
        """Values ``(M, N, 2)`` at ``x: (M, N, d)`` in chunks, no gradients."""
        outs = [self.forward(x[:, i:i + chunk], grad=False)[0] for i in range(0, x.shape[1], chunk)]
        return torch.cat(outs, dim=1)


# ----------------------------------------------------------------------------- losses
@dataclass(frozen=True)
class LossWeights:
    """Weights of the loss terms (R: our choice, tuned on the quick profile before any full run)."""

    surface: float = 10.0
    r_surface: float = 1.0
    metric: float = 3.0
    phase_grad: float = 0.1
    dirichlet: float = 0.001
    well: float = 0.01
    consistency: float = 1.0
    eikonal: float = 0.1
    gamma: float = 1.0
    tau: float = 0.05


def _metric_terms(v_s, v_q, d_q, w: LossWeights, extra=None) -> torch.Tensor:
    """``|r|`` on the data plus the metric pull ``|r(q) - d_X(q)|``; ``extra = (r_e (M, Ne), d_e (M, Ne))``
    adds more pull samples (evaluated without spatial gradients, so they are cheap)."""
    r_q = v_q[..., 0]
    if extra is not None:
        r_q, d_q = torch.cat([r_q, extra[0]], dim=-1), torch.cat([d_q, extra[1]], dim=-1)
    return w.r_surface * v_s[..., 0].abs().mean(-1) + w.metric * (r_q - d_q).abs().mean(-1)


def mpf_losses(v_s, g_s, v_q, g_q, d_q, beta, w: LossWeights = LossWeights(), extra=None) -> torch.Tensor:
    """(R) MPF loss per network: ``(M,)`` from surface values/grads ``v_s (M,Ns,2), g_s (M,Ns,2,d)``,
    off-surface ``v_q, g_q`` and the distances ``d_q (M,Nq)`` of the off-surface samples to the cloud;
    ``extra``: more metric-pull samples (see :func:`_metric_terms`)."""
    r_q, th_q = v_q[..., 0], v_q[..., 1]
    b = beta.view(-1, 1)
    p_q = torch.tanh(b * th_q)
    f_q = p_q * r_q + w.gamma * th_q * torch.exp(-r_q / w.tau)
    away = (d_q / 0.1).clamp(max=1.0)
    return (_metric_terms(v_s, v_q, d_q, w, extra)
            + w.surface * v_s[..., 1].abs().mean(-1)
            + w.phase_grad * ((g_s[..., 1, :].norm(dim=-1) - 1) ** 2).mean(-1)
            + w.dirichlet * (g_q[..., 1, :] ** 2).sum(-1).mean(-1)
            + w.well * (away * (1 - p_q ** 2) ** 2).mean(-1)
            + w.consistency * ((f_q.abs() - r_q) ** 2).mean(-1))


def sdf_losses(v_s, g_s, v_q, g_q, d_q, beta, w: LossWeights = LossWeights(), extra=None) -> torch.Tensor:
    """IGR without normals: ``surface * mean |s(p)| + eikonal * mean (|grad s(q)| - 1)^2`` on head 1."""
    return w.surface * v_s[..., 1].abs().mean(-1) + w.eikonal * ((g_q[..., 1, :].norm(dim=-1) - 1) ** 2).mean(-1)


def udf_losses(v_s, g_s, v_q, g_q, d_q, beta, w: LossWeights = LossWeights(), extra=None) -> torch.Tensor:
    """The ``r`` head alone with MPF's metric terms (surface + metric pull, the same extra samples)."""
    return _metric_terms(v_s, v_q, d_q, w, extra)


LOSSES = {"mpf": mpf_losses, "sdf": sdf_losses, "udf": udf_losses}


# ----------------------------------------------------------------------------- training
@dataclass
class Pool:
    """One shape's training data: the scan ``points (n, d)``, off-surface samples ``q`` and their
    distances ``d_q`` to the scan."""

    points: torch.Tensor
    q: torch.Tensor
    d_q: torch.Tensor


def make_pool(points: Any, bound: float, n_q: int = 20000, near_sigma: float = 0.05, seed: int = 0) -> Pool:
    """Off-surface samples: a third uniform in ``[-bound, bound]^d``, a third ``points + N(0, near_sigma^2)``
    and a third ``points + N(0, (near_sigma / 5)^2)`` (the valley of r near the data)."""
    from scipy.spatial import cKDTree

    pts = as_array("points", points, ndim=2)
    bound = check_positive("bound", bound)
    n_q = check_int("n_q", n_q, minimum=2)
    near_sigma = check_positive("near_sigma", near_sigma)
    rng = np.random.default_rng(seed)
    d = pts.shape[1]
    k = n_q // 3
    uni = rng.uniform(-bound, bound, size=(n_q - 2 * k, d))
    near = pts[rng.integers(0, len(pts), k)] + near_sigma * rng.standard_normal((k, d))
    close = pts[rng.integers(0, len(pts), k)] + (near_sigma / 5) * rng.standard_normal((k, d))
    q = np.concatenate([uni, near, close])
    dq, _ = cKDTree(pts).query(q)
    f = torch.float32
    return Pool(torch.as_tensor(pts, dtype=f), torch.as_tensor(q, dtype=f), torch.as_tensor(dq, dtype=f))


@dataclass
class Spec:
    """One network of the stack: which pool (shape), which arm, its learning rate, fixed beta or not."""

    pool: int
    arm: str
    lr: float
    beta: float | None = None  # None: learnable (MPF), a number: fixed


@dataclass
class TrainResult:
    model: StackedFields
    history: np.ndarray  # (steps, M) loss per network
    beta: np.ndarray  # (M,) final beta
    loss_drop: np.ndarray = field(default_factory=lambda: np.zeros(0))


def train_stack(pools: Sequence[Pool], specs: Sequence[Spec], *, steps: int, batch: int = 128,
                width: int = 32, depth: int = 2, n_freq: int = 16, freq_scale: float = 3.0, beta0: float = 10.0,
                weights: LossWeights = LossWeights(), seed: int = 0, rho: float = 0.5,
                batch_r: int = 0, lr_final: float = 1.0) -> TrainResult:
    """Train one network per ``Spec`` (all at once) with Adam, one learning rate per network.

    Each step draws ``batch`` scan points and ``batch`` off-surface samples of each network's pool,
    plus ``batch_r`` more off-surface samples used only by the metric pull of the arms with an ``r``
    head (MPF, UDF), evaluated without spatial gradients. ``rho``: radius of the phase/signed head's
    starting sphere (the same for every network). ``lr_final``: every network's learning rate follows a
    cosine from its ``lr`` down to ``lr_final * lr`` at the last step (1: constant).
    """
    if not pools or not specs:
        raise ValueError("pools and specs must be non-empty")
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    batch_r = check_int("batch_r", batch_r, minimum=0)
    rho = check_positive("rho", rho)
    lr_final = check_positive("lr_final", lr_final)
    dim = pools[0].points.shape[1]
    if any(p.points.shape[1] != dim for p in pools):
        raise ValueError("all pools must have the same dimension")
    for s in specs:
        if s.arm not in ARMS:
            raise ValueError(f"arm must be one of {ARMS}, got {s.arm!r}")
        if not 0 <= s.pool < len(pools):
            raise ValueError(f"spec pool index {s.pool} out of range")
    m = len(specs)
    torch.manual_seed(seed)
    model = StackedFields(m, dim, width=width, depth=depth, n_freq=n_freq, freq_scale=freq_scale, beta0=beta0,
                          seed=seed, rho=rho)
    with torch.no_grad():
        for i, s in enumerate(specs):
            if s.beta is not None:
                model.log_beta[i] = math.log(check_positive("beta", s.beta))
    beta_mask = torch.tensor([1.0 if (s.arm == "mpf" and s.beta is None) else 0.0 for s in specs])
    lrs = torch.tensor([check_positive("lr", s.lr) for s in specs])
    arm_idx = {a: torch.tensor([i for i, s in enumerate(specs) if s.arm == a], dtype=torch.long) for a in ARMS}
    params = list(model.parameters())
    state = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    g = torch.Generator().manual_seed(int(seed) + 1)
    pool_of = [s.pool for s in specs]
    hist = np.zeros((steps, m))
    for step in range(steps):
        # the same draw for every network of one pool
        xs, xq, dq, xr, dr = [], [], [], [], []
        draws = {}
        for k, p in enumerate(pools):
            i_s = torch.randint(0, len(p.points), (batch,), generator=g)
            i_q = torch.randint(0, len(p.q), (batch,), generator=g)
            i_r = torch.randint(0, len(p.q), (batch_r,), generator=g)
            draws[k] = (p.points[i_s], p.q[i_q], p.d_q[i_q], p.q[i_r], p.d_q[i_r])
        for k in pool_of:
            xs.append(draws[k][0]); xq.append(draws[k][1]); dq.append(draws[k][2])
            xr.append(draws[k][3]); dr.append(draws[k][4])
        x_s, x_q, d_q = torch.stack(xs), torch.stack(xq), torch.stack(dq)
        v, gr = model(torch.cat([x_s, x_q], dim=1))
        v_s, v_q, g_s, g_q = v[:, :batch], v[:, batch:], gr[:, :batch], gr[:, batch:]
        if batch_r:
            v_r, _ = model(torch.stack(xr), grad=False)
            r_r, d_r = v_r[..., 0], torch.stack(dr)
        beta = model.beta()
        loss = torch.zeros(m)
        for a, idx in arm_idx.items():
            if len(idx):
                extra = (r_r[idx], d_r[idx]) if (batch_r and a != "sdf") else None
                la = LOSSES[a](v_s[idx], g_s[idx], v_q[idx], g_q[idx], d_q[idx], beta[idx], weights, extra)
                loss = loss.index_put((idx,), la)
        hist[step] = loss.detach().numpy()
        for p in params:
            p.grad = None
        loss.sum().backward()
        model.log_beta.grad = model.log_beta.grad * beta_mask
        with torch.no_grad():
            t = step + 1
            sched = lr_final + (1 - lr_final) * 0.5 * (1 + math.cos(math.pi * step / max(1, steps - 1)))
            for p, (mo, ve) in zip(params, state):
                gp = p.grad
                mo.mul_(b1).add_(gp, alpha=1 - b1)
                ve.mul_(b2).addcmul_(gp, gp, value=1 - b2)
                upd = (mo / (1 - b1 ** t)) / ((ve / (1 - b2 ** t)).sqrt() + eps)
                p.sub_(sched * lrs.view(-1, *([1] * (p.dim() - 1))) * upd)
    w = min(10, max(1, steps // 2))
    drop = hist[:w].mean(0) / np.maximum(hist[-w:].mean(0), 1e-12)
    return TrainResult(model, hist, model.beta().detach().numpy().copy(), drop)


# ----------------------------------------------------------------------------- extraction
def grid_points(dim: int, res: int, bound: float) -> tuple[np.ndarray, np.ndarray]:
    """Axis ``(res,)`` and all grid points ``(res^dim, dim)`` of ``[-bound, bound]^dim`` (ij order)."""
    dim = check_int("dim", dim, minimum=2, maximum=3)
    res = check_int("res", res, minimum=2)
    bound = check_positive("bound", bound)
    ax = np.linspace(-bound, bound, res)
    mesh = np.meshgrid(*([ax] * dim), indexing="ij")
    return ax, np.stack([g.ravel() for g in mesh], axis=1)


def _interp(field_: np.ndarray, idx: np.ndarray) -> np.ndarray:
    from scipy.ndimage import map_coordinates

    return map_coordinates(field_, idx.T, order=1, mode="nearest")


def resample_polyline(poly: Any, spacing: float) -> np.ndarray:
    """Points every ``spacing`` along a polyline ``(n, d)`` (both ends included)."""
    p = as_array("poly", poly, ndim=2)
    spacing = check_positive("spacing", spacing)
    if len(p) == 1:
        return p.copy()
    seg = np.linalg.norm(np.diff(p, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if s[-1] == 0:
        return p[:1].copy()
    t = np.linspace(0.0, s[-1], max(2, int(np.ceil(s[-1] / spacing)) + 1))
    return np.stack([np.interp(t, s, p[:, j]) for j in range(p.shape[1])], axis=1)


@dataclass
class Extraction:
    """Sampled points of an extracted curve/surface and its cell size (empty: ``points.shape[0] == 0``)."""

    points: np.ndarray
    h: float


def extract(values: Any, arm: str, *, bound: float, level: float, n_samples: int = 20000, seed: int = 0,
            points: Any = None) -> Extraction:
    """Extract the reconstruction of one network from its grid values ``(res,)*dim + (2,)``.

    * ``mpf``: zero set of ``f`` (head 1 carries ``theta``; ``sign f = sign theta``, so it is
      the zero set of ``theta``), keeping the parts where ``r < level`` (the metric gate).
    * ``sdf``: zero set of head 1, nothing removed.
    * ``sdf_trim``: zero set of head 1, keeping the parts within ``level`` of the input ``points``
      (the usual post-process for SDFs of open shapes; the same distance as MPF's gate, measured
      to the cloud itself rather than through a learned ``r``).
    * ``udf``: the ``level``-set of ``r``, each vertex moved by ``- r grad r / |grad r|^2`` (grid
      gradients, linearly interpolated) onto ``r = 0``.

    Curves are resampled every ``h / 2``; surfaces are sampled with ``n_samples`` area-uniform points.
    """
    from skimage import measure

    v = as_array("values", values)
    if arm not in EXTRACT_ARMS:
        raise ValueError(f"arm must be one of {EXTRACT_ARMS}, got {arm!r}")
    dim = v.ndim - 1
    if dim not in (2, 3) or v.shape[-1] != 2 or len(set(v.shape[:-1])) != 1:
        raise ValueError(f"values must have shape (res,)*dim + (2,) with dim 2 or 3, got {v.shape}")
    bound = check_positive("bound", bound)
    level = check_positive("level", level)
    res = v.shape[0]
    h = 2 * bound / (res - 1)
    r, ph = v[..., 0], v[..., 1]
    if arm == "sdf_trim":
        from scipy.spatial import cKDTree

        if points is None:
            raise ValueError("points must be given for arm 'sdf_trim'")
        cloud = as_array("points", points, ndim=2)
        if cloud.shape[1] != dim or len(cloud) == 0:
            raise ValueError(f"points must be a non-empty (n, {dim}) array, got {cloud.shape}")
        tree = cKDTree(cloud)
        near = lambda idx: tree.query(-bound + h * idx)[0] < level  # noqa: E731
    target, lev = (r, level) if arm == "udf" else (ph, 0.0)
    if not (target.min() < lev < target.max()):
        return Extraction(np.zeros((0, dim)), h)
    to_world = lambda idx: -bound + h * idx  # noqa: E731
    if arm == "udf":
        grads = np.stack(np.gradient(r, h), axis=-1)

        def project(idx: np.ndarray) -> np.ndarray:
            rv = _interp(r, idx)
            gv = np.stack([_interp(grads[..., j], idx) for j in range(dim)], axis=1)
            gn = np.sqrt((gv ** 2).sum(1))
            # a Newton step to r = 0, its length capped at 2 * level (a vertex of the level set lies
            # about `level` from the surface; a near-zero gradient would otherwise throw it anywhere)
            length = np.minimum(rv / np.maximum(gn, 1e-12), 2 * level)
            return to_world(idx) - (length / np.maximum(gn, 1e-12))[:, None] * gv
    if dim == 2:
        pieces = []
        for c in measure.find_contours(target, lev):
            if arm in ("mpf", "sdf_trim"):  # split where the gate is closed
                keep = _interp(r, c) < level if arm == "mpf" else near(c)
                runs = np.split(np.arange(len(c)), np.where(np.diff(keep.astype(int)) != 0)[0] + 1)
                pieces += [to_world(c[run]) for run in runs if keep[run[0]] and len(run) >= 2]
            elif arm == "udf":
                pieces.append(project(c))
            else:
                pieces.append(to_world(c))
        if not pieces:
            return Extraction(np.zeros((0, 2)), h)
        return Extraction(np.concatenate([resample_polyline(p, h / 2) for p in pieces]), h)
    import trimesh

    from icml26.science._geometry import sample_surface

    verts, faces, _, _ = measure.marching_cubes(target, lev)
    if arm in ("mpf", "sdf_trim"):
        ok = _interp(r, verts) < level if arm == "mpf" else near(verts)
        faces = faces[ok[faces].all(1)]
        wv = to_world(verts)
    elif arm == "udf":
        wv = project(verts)
    else:
        wv = to_world(verts)
    if len(faces) == 0:
        return Extraction(np.zeros((0, 3)), h)
    mesh = trimesh.Trimesh(wv, faces, process=False)
    if mesh.area <= 0:
        return Extraction(np.zeros((0, 3)), h)
    return Extraction(sample_surface(mesh, n_samples, seed=seed), h)


def count_components(points: Any, radius: float) -> int:
    """Connected pieces of a point set: points closer than ``radius`` are linked (single linkage)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree

    radius = check_positive("radius", radius)
    p = np.asarray(points, dtype=float) if not isinstance(points, (str, bytes)) else None
    if p is None:
        raise TypeError("points must be an array")
    if p.ndim != 2:
        raise ValueError(f"points must be an (n, d) array, got shape {p.shape}")
    as_array("points", p, ndim=2)
    pairs = cKDTree(p).query_pairs(radius, output_type="ndarray")
    n = len(p)
    adj = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    return int(connected_components(adj, directed=False)[0])


def metric_fit(r: Any, grid: Any, points: Any, band: float, h: float) -> float:
    """How well the metric head learned a distance: mean ``|r - d_X|`` over the grid points within
    ``band`` of the input ``points`` (``d_X``: distance to the cloud), in units of the cell ``h``.

    ``r: (n,)`` values at ``grid: (n, d)``; ``nan`` if no grid point lies within ``band``."""
    from scipy.spatial import cKDTree

    r = as_array("r", r, ndim=1)
    grid = as_array("grid", grid, ndim=2)
    pts = as_array("points", points, ndim=2)
    if len(r) != len(grid):
        raise ValueError(f"r and grid must have the same length, got {len(r)} and {len(grid)}")
    if pts.shape[1] != grid.shape[1] or len(pts) == 0:
        raise ValueError(f"points must be a non-empty (n, {grid.shape[1]}) array, got {pts.shape}")
    band = check_positive("band", band)
    h = check_positive("h", h)
    d = cKDTree(pts).query(grid, distance_upper_bound=band)[0]
    near = d <= band
    if not near.any():
        return float("nan")
    return float(np.abs(r[near] - d[near]).mean() / h)
