"""SNRFT (ICML 2026 poster 62585), reconstructed from its abstract, and the models it is judged against.

The full text was not found (only the abstract); every equation below is our reconstruction
and is labelled (R1)-(R6).

(R1) Stochastic transport. Along a ray, an attenuation event happens in ``ds`` with
     probability ``mu(x) ds``; the survival probability of a path gamma is
     ``T(gamma) = exp(-int_gamma mu(x(s)) ds)``, so ``mu`` is the material's (power)
     attenuation coefficient: the rate of the survival process. T does not change when
     gamma is reversed (reciprocity, reversibility) and multiplies over concatenated
     segments (composability).
(R2) Implicit neural field: ``mu_theta(x) = softplus(MLP(gamma(x)))`` with Fourier
     features ``gamma``; a surface-interaction field
     ``rho_theta(wall, s_hit, |cos theta|) = sigmoid(MLP(...))`` in (0, 1) gives the power
     kept at each reflection. Only direction-symmetric features (|cos|, the hit point) enter,
     so reciprocity holds by construction.
(R3) Paths: a classical tracer, line of sight plus specular wall reflections up to order K
     by the image method; in a rectangular room the image lattice (m, n), |m|+|n| <= K,
     gives every path exactly once, the straight line from the image of Tx to Rx folded
     back into the room.
(R4) Path power (incoherent, RSSI): ``P_p = g * d_p^{-1} * T(gamma_p) * prod_b rho_b``
     (2-D cylindrical spreading, since the world is 2-D), received
     ``P = sum_p P_p``, predicted ``10 log10 P``; ``g`` is a learned gain.
(R5) Line integrals by the midpoint rule on S stratified samples per path (the symmetric
     sample set makes the integral exactly reversal-invariant).
(R6) Loss: mean squared error in dB against measured local-mean power; Adam.

Controls (same tracer, optimiser, steps and seeds where they learn):
``MaterialTracer`` (hand-engineered rules: one scalar attenuation per known material and one
wall reflection coefficient, fitted to the same data; isolates the neural field),
``NeRF2Lite`` (a NeRF^2-style field: the receiver as a camera, rays marched from Rx, a
direction- and Tx-conditioned attenuation/radiance field rendered by volume rendering; not
reciprocal), ``PairMLP`` ((Tx, Rx) -> dB), and ``log_distance_fit`` (classical path loss).

Shapes: ``tx``, ``rx`` (B, 2) in wavelengths; predictions (B,) in dB.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.mlp import FitResult, fit, mlp

DTYPE = torch.float64


def _points(name: str, x) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    a = as_array(name, x)
    if a.ndim != 2 or a.shape[1] != 2 or a.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty (B, 2) array of positions, got shape {a.shape}")
    return torch.as_tensor(np.asarray(a, dtype=float), dtype=DTYPE)


def image_indices(order: int) -> list[tuple[int, int]]:
    """Image lattice indices (m, n) with |m| + |n| <= order (R3); (0, 0) is line of sight."""
    order = check_int("order", order, minimum=0)
    return [(m, n) for m in range(-order, order + 1) for n in range(-order, order + 1) if abs(m) + abs(n) <= order]


def _fold(u: torch.Tensor, L: float) -> torch.Tensor:
    """Fold an unfolded (image-space) coordinate back into [0, L] (the mirror of R3)."""
    r = torch.remainder(u, 2 * L)
    return torch.where(r > L, 2 * L - r, r)


def _image(x: torch.Tensor, m: torch.Tensor, L: float) -> torch.Tensor:
    odd = torch.remainder(m, 2) == 1
    return torch.where(odd, m * L + (L - x), x + m * L)


def trace_paths(tx, rx, L: float, order: int = 2, n_samples: int = 16) -> dict[str, torch.Tensor]:
    """The image-method paths between each (Tx, Rx) pair (R3, R5).

    Returns ``length`` (B, P), ``points`` (B, P, S, 2) midpoint samples of each folded path,
    ``hit_wall`` (B, P, K) in {0: x=0, 1: x=L, 2: y=0, 3: y=L}, ``hit_pos`` (B, P, K) position
    along the wall in [0, 1], ``hit_cos`` (B, P, K) |cos| of the incidence angle, and
    ``hit_mask`` (B, P, K) (1 for a real bounce, 0 for padding); K = ``order``.
    """
    tx, rx = _points("tx", tx), _points("rx", rx)
    if tx.shape != rx.shape:
        raise ValueError(f"tx and rx must have the same shape, got {tuple(tx.shape)} and {tuple(rx.shape)}")
    L = check_positive("L", L)
    order = check_int("order", order, minimum=0)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    idx = torch.tensor(image_indices(order), dtype=DTYPE)  # (P, 2)
    m, n = idx[:, 0], idx[:, 1]
    img = torch.stack([_image(tx[:, None, 0], m, L), _image(tx[:, None, 1], n, L)], -1)  # (B, P, 2)
    delta = rx[:, None, :] - img
    length = delta.norm(dim=-1)
    t = (torch.arange(n_samples, dtype=DTYPE) + 0.5) / n_samples
    pts = img[:, :, None, :] + t[None, None, :, None] * delta[:, :, None, :]
    pts = _fold(pts, L)
    K = max(order, 1)
    B, P = length.shape
    hit_wall = torch.zeros(B, P, K, dtype=torch.long)
    hit_pos = torch.zeros(B, P, K, dtype=DTYPE)
    hit_cos = torch.zeros(B, P, K, dtype=DTYPE)
    hit_mask = torch.zeros(B, P, K, dtype=DTYPE)
    for p in range(P):
        slot = 0
        for axis, k_img in ((0, int(m[p])), (1, int(n[p]))):
            ks = range(1, k_img + 1) if k_img > 0 else range(k_img + 1, 1)
            other = 1 - axis
            for k in ks:
                tt = (k * L - img[:, p, axis]) / delta[:, p, axis]
                along = _fold(img[:, p, other] + tt * delta[:, p, other], L)
                hit_wall[:, p, slot] = 2 * axis + (k % 2)
                hit_pos[:, p, slot] = along / L
                hit_cos[:, p, slot] = delta[:, p, axis].abs() / length[:, p]
                hit_mask[:, p, slot] = 1.0
                slot += 1
    return {"length": length, "points": pts, "hit_wall": hit_wall, "hit_pos": hit_pos, "hit_cos": hit_cos,
            "hit_mask": hit_mask}


class FourierFeatures(nn.Module):
    """gamma(u) = [u, sin(2^k pi u), cos(2^k pi u)]_k for u = x / L in [0, 1]^d."""

    def __init__(self, L: float, n_freq: int = 5):
        super().__init__()
        self.L = float(L)
        self.register_buffer("freqs", (2.0 ** torch.arange(n_freq, dtype=DTYPE)) * math.pi)

    def out_dim(self, d: int) -> int:
        return d * (1 + 2 * len(self.freqs))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u = x / self.L
        z = u[..., :, None] * self.freqs
        return torch.cat([u, torch.sin(z).flatten(-2), torch.cos(z).flatten(-2)], -1)


class RayTracer(nn.Module):
    """The shared tracer (R3-R5): subclasses give ``mu(points)`` and ``log_rho(features)``."""

    def __init__(self, L: float, order: int = 2, n_samples: int = 16):
        super().__init__()
        self.L = check_positive("L", L)
        self.order = check_int("order", order, minimum=0)
        self.n_samples = check_int("n_samples", n_samples, minimum=1)
        self.log_gain = nn.Parameter(torch.zeros((), dtype=DTYPE))

    def mu(self, pts: torch.Tensor) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def log_rho(self, wall: torch.Tensor, pos: torch.Tensor, cos: torch.Tensor) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError

    def path_log_power(self, paths: dict[str, torch.Tensor]) -> torch.Tensor:
        """(B, P) natural log of each path's power (R4)."""
        d = paths["length"]
        optical = self.mu(paths["points"]).mean(-1) * d  # (R5) midpoint rule
        refl = (self.log_rho(paths["hit_wall"], paths["hit_pos"], paths["hit_cos"]) * paths["hit_mask"]).sum(-1)
        return self.log_gain - torch.log(d) - optical + refl

    def paths(self, tx, rx) -> dict[str, torch.Tensor]:
        """The traced paths of the pairs (geometry only: no parameters, so they can be reused)."""
        return trace_paths(tx, rx, self.L, self.order, self.n_samples)

    def forward(self, tx, rx, paths: dict[str, torch.Tensor] | None = None) -> torch.Tensor:
        if paths is None:
            paths = self.paths(tx, rx)
        return 10 / math.log(10) * torch.logsumexp(self.path_log_power(paths), dim=-1)


class SNRFT(RayTracer):
    """SNRFT: neural attenuation field mu_theta (R2) and neural surface interaction rho_theta (R2)."""

    def __init__(self, L: float, order: int = 2, n_samples: int = 16, width: int = 64, n_freq: int = 5):
        super().__init__(L, order, n_samples)
        width = check_int("width", width, minimum=1)
        self.ff = FourierFeatures(self.L, check_int("n_freq", n_freq, minimum=0))
        self.mu_net = mlp([self.ff.out_dim(2), width, width, 1], activation="silu", dtype=DTYPE)
        self.rho_net = mlp([6, width, 1], activation="silu", dtype=DTYPE)
        with torch.no_grad():
            self.mu_net[-1].bias.fill_(-4.0)  # start near free space
            self.rho_net[-1].bias.fill_(0.0)

    def mu(self, pts: torch.Tensor) -> torch.Tensor:
        return nn.functional.softplus(self.mu_net(self.ff(pts))).squeeze(-1)

    def log_rho(self, wall, pos, cos):
        feat = torch.cat([nn.functional.one_hot(wall, 4).to(DTYPE), pos[..., None], cos[..., None]], -1)
        return nn.functional.logsigmoid(self.rho_net(feat)).squeeze(-1)


class MaterialTracer(RayTracer):
    """Hand-engineered rules: mu(x) = sum_k mu_k 1[x in material k] on the known obstacle boxes,
    one scalar reflection coefficient for the walls; the scalars are fitted to the data."""

    def __init__(self, L: float, boxes: Sequence[Sequence[float]], order: int = 2, n_samples: int = 16,
                 n_materials: int = 2):
        super().__init__(L, order, n_samples)
        b = np.asarray(boxes, dtype=float).reshape(-1, 5)
        if not np.all(np.isfinite(b)):
            raise ValueError("boxes must be finite (x0, y0, x1, y1, material) rows")
        self.register_buffer("boxes", torch.as_tensor(b[:, :4], dtype=DTYPE))
        self.register_buffer("mat", torch.as_tensor(b[:, 4], dtype=torch.long))
        self.n_materials = check_int("n_materials", n_materials, minimum=1)
        # a few scalars spanning 0-4 Np per wavelength: scaled so that Adam's per-step move (~lr) covers
        # that range within the shared step budget (unscaled, 200 steps at lr 0.01 left them under-fitted)
        self.raw_mu = nn.Parameter(torch.full((self.n_materials,), -2.0 / self.SCALE, dtype=DTYPE))
        self.raw_rho = nn.Parameter(torch.zeros((), dtype=DTYPE))

    SCALE = 10.0

    def mu(self, pts: torch.Tensor) -> torch.Tensor:
        rates = nn.functional.softplus(self.SCALE * self.raw_mu)
        out = torch.zeros(pts.shape[:-1], dtype=DTYPE)
        for (x0, y0, x1, y1), k in zip(self.boxes, self.mat):
            inside = (pts[..., 0] >= x0) & (pts[..., 0] <= x1) & (pts[..., 1] >= y0) & (pts[..., 1] <= y1)
            out = out + inside.to(DTYPE) * rates[k]
        return out

    def log_rho(self, wall, pos, cos):
        return nn.functional.logsigmoid(self.SCALE * self.raw_rho).expand(wall.shape)


class NeRF2Lite(nn.Module):
    """A NeRF^2-style radiance field (reconstruction of the neural peer): the receiver is a camera.

    ``n_dirs`` rays leave Rx, each marched to the room's edge with ``n_samples`` points; an MLP
    of (gamma(point), ray direction, gamma(Tx)) gives attenuation delta >= 0 and radiated power
    s >= 0, rendered as ``P = sum_rays sum_i s_i exp(-sum_{j<i} delta_j dt) (1 - exp(-delta_i dt))``.
    Tx and Rx play different roles, so it is not reciprocal.
    """

    def __init__(self, L: float, n_dirs: int = 12, n_samples: int = 12, width: int = 64, n_freq: int = 5):
        super().__init__()
        self.L = check_positive("L", L)
        self.n_dirs = check_int("n_dirs", n_dirs, minimum=1)
        self.n_samples = check_int("n_samples", n_samples, minimum=1)
        width = check_int("width", width, minimum=1)
        self.ff = FourierFeatures(self.L, check_int("n_freq", n_freq, minimum=0))
        self.net = mlp([2 * self.ff.out_dim(2) + 2, width, width, 2], activation="silu", dtype=DTYPE)
        self.log_gain = nn.Parameter(torch.zeros((), dtype=DTYPE))

    def forward(self, tx, rx) -> torch.Tensor:
        tx, rx = _points("tx", tx), _points("rx", rx)
        ang = (torch.arange(self.n_dirs, dtype=DTYPE) + 0.5) * 2 * math.pi / self.n_dirs
        dirs = torch.stack([torch.cos(ang), torch.sin(ang)], -1)  # (D, 2)
        # distance from rx to the room's edge along each direction
        with torch.no_grad():
            lim = torch.where(dirs[None] > 0, (self.L - rx[:, None, :]) / dirs[None].clamp(min=1e-9),
                              rx[:, None, :] / (-dirs[None]).clamp(min=1e-9))
            reach = lim.min(-1).values.clamp(min=1e-3)  # (B, D)
        t = (torch.arange(self.n_samples, dtype=DTYPE) + 0.5) / self.n_samples
        pts = rx[:, None, None, :] + (reach[..., None, None] * t[:, None]) * dirs[None, :, None, :]  # (B, D, S, 2)
        B, D, S, _ = pts.shape
        feats = torch.cat([self.ff(pts), dirs[None, :, None, :].expand(B, D, S, 2),
                           self.ff(tx)[:, None, None, :].expand(B, D, S, -1)], -1)
        out = self.net(feats)
        delta = nn.functional.softplus(out[..., 0] - 2.0)
        s = nn.functional.softplus(out[..., 1])
        dt = (reach / S)[..., None]
        tau = delta * dt
        trans = torch.exp(-(torch.cumsum(tau, -1) - tau))
        P = (s * trans * (1 - torch.exp(-tau))).sum((-1, -2))
        return 10 / math.log(10) * (torch.log(P + 1e-12) + self.log_gain)


class PairMLP(nn.Module):
    """The black-box surrogate: MLP(gamma(Tx), gamma(Rx)) -> dB."""

    def __init__(self, L: float, width: int = 64, n_freq: int = 5):
        super().__init__()
        self.ff = FourierFeatures(check_positive("L", L), check_int("n_freq", n_freq, minimum=0))
        self.net = mlp([2 * self.ff.out_dim(2), check_int("width", width, minimum=1), width, 1], activation="silu",
                       dtype=DTYPE)
        self.log_gain = nn.Parameter(torch.zeros((), dtype=DTYPE))

    def forward(self, tx, rx) -> torch.Tensor:
        tx, rx = _points("tx", tx), _points("rx", rx)
        return self.net(torch.cat([self.ff(tx), self.ff(rx)], -1)).squeeze(-1) + 10 / math.log(10) * self.log_gain


def log_distance_fit(tx, rx, db) -> tuple[float, float]:
    """Least-squares log-distance path loss ``dB = a - 10 n log10(d)``; returns (a, n)."""
    tx, rx = _points("tx", tx), _points("rx", rx)
    y = as_array("db", db)
    if y.ndim != 1 or len(y) != len(tx):
        raise ValueError(f"db must be a vector of length {len(tx)}, got shape {y.shape}")
    d = (tx - rx).norm(dim=-1).clamp(min=1e-6).numpy()
    X = np.stack([np.ones_like(d), -10 * np.log10(d)], 1)
    (a, n), *_ = np.linalg.lstsq(X, np.asarray(y, float), rcond=None)
    return float(a), float(n)


def log_distance_predict(params: tuple[float, float], tx, rx) -> np.ndarray:
    """Prediction of :func:`log_distance_fit`'s model."""
    tx, rx = _points("tx", tx), _points("rx", rx)
    d = (tx - rx).norm(dim=-1).clamp(min=1e-6).numpy()
    return params[0] - 10 * params[1] * np.log10(d)


def train(model: nn.Module, tx, rx, db, *, steps: int, lr: float = 1e-2, batch: int = 256, seed: int = 0) -> FitResult:
    """Fit ``model`` by Adam on the MSE in dB (R6); the learned gain starts at the mean residual.

    Minibatches of ``batch`` pairs (all pairs when fewer). Returns :func:`icml26.nn.mlp.fit`'s
    result (loss history for the training gate).
    """
    tx, rx = _points("tx", tx), _points("rx", rx)
    y = torch.as_tensor(np.asarray(as_array("db", db), float), dtype=DTYPE)
    if y.ndim != 1 or len(y) != len(tx) or len(rx) != len(tx):
        raise ValueError(f"db must be a vector of length {len(tx)} matching tx and rx, got shape {tuple(y.shape)}")
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    torch.manual_seed(seed)
    with torch.no_grad():
        model.log_gain.add_((y - model(tx, rx)).mean() * math.log(10) / 10)
    n = len(y)
    # the tracer's paths depend on geometry only: trace once, index per minibatch
    paths = model.paths(tx, rx) if isinstance(model, RayTracer) else None

    def batches(gen: torch.Generator):
        i = torch.arange(n) if n <= batch else torch.randperm(n, generator=gen)[:batch]
        return i

    def loss(mod, i):
        if paths is not None:
            pred = mod(tx[i], rx[i], paths={k: v[i] for k, v in paths.items()})
        else:
            pred = mod(tx[i], rx[i])
        return ((pred - y[i]) ** 2).mean()

    return fit(model, loss, batches, steps=steps, lr=lr, optimizer="adam", seed=seed, schedule="cosine")


@torch.no_grad()
def predict(model: nn.Module, tx, rx) -> np.ndarray:
    """(B,) predicted dB."""
    model.eval()
    return model(_points("tx", tx), _points("rx", rx)).numpy()


def reciprocity_gap(model: nn.Module, tx, rx) -> float:
    """Mean |P(Tx -> Rx) - P(Rx -> Tx)| in dB over the pairs."""
    return float(np.mean(np.abs(predict(model, tx, rx) - predict(model, rx, tx))))


def examples() -> list[tuple]:
    """Good calls of the public API, for the common bad-input test (tests/test_every_paper.py)."""
    tx = np.array([[1.0, 2.0], [3.0, 4.0]])
    rx = np.array([[5.0, 1.5], [2.0, 6.0]])
    return [(trace_paths, {"tx": tx, "rx": rx, "L": 8.0, "order": 2, "n_samples": 4}),
            (log_distance_fit, {"tx": tx, "rx": rx, "db": np.array([-10.0, -20.0])})]
