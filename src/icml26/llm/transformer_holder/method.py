"""Transformers approximating bounded alpha-Hölder functions (arXiv:2605.07463): bounds and a construction.

The paper (He, Jiao, Lu, Yang) proves, for the standard Transformer (softmax attention, ReLU
feed-forward, residual connections) on inputs in [0,1]^{d0} and alpha in (0,1]:

* upper bound: O(eps^{-d0/alpha}) blocks reach sup-error eps on every bounded alpha-Hölder f,
  i.e. with L blocks the error is O(L^{-alpha/d0});
* lower bound (through a VC-dimension bound): Omega(eps^{-d0/(4 alpha)}) blocks are needed,
  i.e. the worst-case error with L blocks cannot fall faster than L^{-4 alpha/d0};
* an excess-risk rate for least squares over such Transformers.

The stored copy of the paper we could read holds the abstract and introduction only; the
construction, norm, width/heads and embedding of the proof were not reachable. What this
module implements:

* :class:`StandardTransformer`: blocks h <- h + Attn(h); h <- h + W2 relu(W1 h + b1) + b2
  (softmax multi-head attention, ReLU FFN, residuals, no normalisation), on (batch, seq, width).
* :func:`construct_interpolant`: our own explicit construction in that class, with hand-set
  weights, of the piecewise-linear interpolant of f on a grid of N cells per axis. The input
  is one token (x, acc, scratch); attention over a single token is a linear map, so its output
  projection is set to zero and every block's work is done by its FFN:
  - d0 = 1: one block per node g_i adds f(g_i) hat((x - g_i)/h), hat(t) = relu(t+1) - 2 relu(t)
    + relu(t-1), to ``acc`` (N+1 blocks);
  - d0 = 2: the Courant basis of the three-direction triangulation,
    phi(u, v) = relu(1 - max(|u|, |v|, |u - v|)) = relu(1 - (|u| + |v| + |u - v|)/2), takes two
    blocks per node: the first writes s = (|u|+|v|+|u-v|)/2 to ``scratch``, the second adds
    f(g) relu(1 - s) to ``acc`` and clears ``scratch`` (2 (N+1)^2 blocks).
  The interpolant is a convex combination of f at vertices within distance c h of x
  (c = 1 for d0 = 1, sqrt(2) for d0 = 2), so sup |T - f| <= H (c h)^alpha (:func:`construction_bound`),
  with h = 1/N and L proportional to N^{d0}: the error falls as L^{-alpha/d0}, the paper's
  upper-bound rate, at constant width.
* :class:`HolderRegressor`: the trainable model for the regression experiment: d0 coordinate
  tokens (value x weight + position) and one readout token through a StandardTransformer.
* :func:`error_exponents`, :func:`blocks_upper`, :func:`blocks_lower`, :func:`minimax_exponent`,
  :func:`bookkeeping`: the exponents, and their derivation redone in ``sympy``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from icml26.core.validate import as_array, check_int, check_positive


def _alpha(alpha: float) -> float:
    a = check_positive("alpha", alpha)
    if a > 1:
        raise ValueError(f"alpha must lie in (0, 1], got {alpha!r}")
    return a


# ----------------------------------------------------------------------------- exponents
def error_exponents(d0: int, alpha: float) -> tuple[float, float]:
    """(alpha/d0, 4 alpha/d0): error ~ L^{-alpha/d0} is attainable; no faster than L^{-4 alpha/d0} in the worst case."""
    d0 = check_int("d0", d0, minimum=1)
    a = _alpha(alpha)
    return a / d0, 4 * a / d0


def blocks_upper(eps: float, d0: int, alpha: float, c: float = 1.0) -> float:
    """c eps^{-d0/alpha}: blocks that suffice for accuracy ``eps`` (constant ``c`` unknown; 1 by default)."""
    eps = check_positive("eps", eps)
    return check_positive("c", c) * eps ** (-check_int("d0", d0, minimum=1) / _alpha(alpha))


def blocks_lower(eps: float, d0: int, alpha: float, c: float = 1.0) -> float:
    """c eps^{-d0/(4 alpha)}: blocks that are necessary for accuracy ``eps`` (constant unknown)."""
    eps = check_positive("eps", eps)
    return check_positive("c", c) * eps ** (-check_int("d0", d0, minimum=1) / (4 * _alpha(alpha)))


def minimax_exponent(d0: int, alpha: float) -> float:
    """-2 alpha/(2 alpha + d0): the minimax excess-risk exponent in n for alpha-Hölder regression."""
    a = _alpha(alpha)
    return -2 * a / (2 * a + check_int("d0", d0, minimum=1))


def depth_for(n: int, d0: int, alpha: float, *, n0: float = 64.0, cap: int = 8) -> int:
    """Blocks grown with n as the upper bound's bias-variance balance says: L ~ (n/n0)^{d0/(2 alpha + d0)}, in [1, cap]."""
    n = check_int("n", n, minimum=1)
    a = _alpha(alpha)
    d0 = check_int("d0", d0, minimum=1)
    return int(min(max(round((n / check_positive("n0", n0)) ** (d0 / (2 * a + d0))), 1), check_int("cap", cap, minimum=1)))


def bookkeeping() -> dict[str, object]:
    """The exponents re-derived in sympy: eps(L) from both bounds, their gap, and the balanced excess risk.

    Balancing the squared approximation error L^{-2 alpha/d0} against an estimation error of
    order L/n (parameters proportional to blocks at constant width) gives L ~ n^{d0/(2 alpha+d0)}
    and excess risk n^{-2 alpha/(2 alpha + d0)}.
    """
    import sympy as sp

    eps, L, n, a, d = sp.symbols("epsilon L n alpha d_0", positive=True)
    up = sp.solve(sp.Eq(L, eps ** (-d / a)), eps)[0]
    low = sp.solve(sp.Eq(L, eps ** (-d / (4 * a))), eps)[0]
    Lstar = sp.solve(sp.Eq(L ** (-2 * a / d), L / n), L)[0]
    risk = sp.simplify(sp.expand_log(sp.log(Lstar / n), force=True) / sp.log(n))
    return {"upper_error_exponent": sp.simplify(sp.log(up) / sp.log(L)),
            "lower_error_exponent": sp.simplify(sp.log(low) / sp.log(L)),
            "gap_factor": sp.simplify((d / a) / (d / (4 * a))),
            "depth_exponent": sp.simplify(sp.log(Lstar) / sp.log(n)),
            "risk_exponent": sp.simplify(risk), "symbols": (a, d)}


# ----------------------------------------------------------------------------- the architecture
class StandardTransformer(nn.Module):
    """``blocks`` standard blocks of the same width, parameters stacked over blocks (no normalisation layers).

    Block b: h <- h + Attn_b(h), Attn_b = concat_heads softmax(Q K^T / sqrt(dh)) V, then W_O;
    h <- h + W2_b relu(W1_b h + b1_b) + b2_b. Shapes: h (batch, seq, width).
    """

    def __init__(self, width: int, hidden: int, blocks: int, heads: int = 1, *, init_scale: float = 1.0):
        super().__init__()
        for name, v in (("width", width), ("hidden", hidden), ("heads", heads)):
            check_int(name, v, minimum=1)
        self.n_blocks = check_int("blocks", blocks, minimum=0)
        if width % heads:
            raise ValueError(f"width ({width}) must be divisible by heads ({heads})")
        self.heads, self.dh = heads, width // heads
        B, w, k = blocks, width, hidden
        r = lambda *shape, fan: nn.Parameter(torch.randn(*shape) * init_scale / math.sqrt(fan))  # noqa: E731
        self.wq, self.wk, self.wv, self.wo = (r(B, w, w, fan=w) for _ in range(4))
        self.w1, self.b1 = r(B, k, w, fan=w), nn.Parameter(torch.zeros(B, k))
        self.w2, self.b2 = r(B, w, k, fan=k), nn.Parameter(torch.zeros(B, w))

    def block(self, h: torch.Tensor, i: int) -> torch.Tensor:
        b, t, w = h.shape
        split = lambda z: z.view(b, t, self.heads, self.dh).transpose(1, 2)  # noqa: E731
        q, k, v = split(h @ self.wq[i].T), split(h @ self.wk[i].T), split(h @ self.wv[i].T)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.dh), dim=-1)
        h = h + (att @ v).transpose(1, 2).reshape(b, t, w) @ self.wo[i].T
        return h + torch.relu(h @ self.w1[i].T + self.b1[i]) @ self.w2[i].T + self.b2[i]

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        for i in range(self.n_blocks):
            h = self.block(h, i)
        return h


class HolderRegressor(nn.Module):
    """x: (batch, d0) -> (batch,): d0 coordinate tokens (x_i w + p_i) and a readout token through the blocks."""

    def __init__(self, d0: int, width: int = 16, hidden: int = 32, blocks: int = 2, heads: int = 2):
        super().__init__()
        self.d0 = check_int("d0", d0, minimum=1)
        self.value = nn.Parameter(torch.randn(width) / math.sqrt(width))
        self.pos = nn.Parameter(torch.randn(d0 + 1, width) * 0.1)
        self.body = StandardTransformer(width, hidden, blocks, heads)
        self.out = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tok = x[:, :, None] * self.value + self.pos[: self.d0]
        read = self.pos[self.d0].expand(x.shape[0], 1, -1)
        h = self.body(torch.cat([tok, read], dim=1))
        return self.out(h[:, -1]).squeeze(-1)


# ----------------------------------------------------------------------------- the construction
def grid_nodes(n_cells: int, d0: int) -> np.ndarray:
    """Nodes of the uniform grid with ``n_cells`` cells per axis on [0,1]^{d0}: ((n_cells+1)^{d0}, d0)."""
    n_cells = check_int("n_cells", n_cells, minimum=1)
    d0 = check_int("d0", d0, minimum=1, maximum=2)
    g = np.linspace(0.0, 1.0, n_cells + 1)
    return g[:, None] if d0 == 1 else np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)


def blocks_for(n_cells: int, d0: int) -> int:
    """Blocks the construction uses: N+1 (d0 = 1) or 2 (N+1)^2 (d0 = 2)."""
    n_cells = check_int("n_cells", n_cells, minimum=1)
    return (n_cells + 1) if check_int("d0", d0, minimum=1, maximum=2) == 1 else 2 * (n_cells + 1) ** 2


def construction_bound(holder_constant: float, alpha: float, n_cells: int, d0: int) -> float:
    """H (c h)^alpha with h = 1/N, c = 1 (d0 = 1) or sqrt(2) (d0 = 2): the construction's sup-error bound."""
    H = check_positive("holder_constant", holder_constant, strict=False)
    c = 1.0 if check_int("d0", d0, minimum=1, maximum=2) == 1 else math.sqrt(2.0)
    return H * (c / check_int("n_cells", n_cells, minimum=1)) ** _alpha(alpha)


class ConstructedNet(nn.Module):
    """A StandardTransformer with hand-set weights; x: (batch, d0) -> (batch,) read from the ``acc`` coordinate."""

    def __init__(self, body: StandardTransformer, d0: int):
        super().__init__()
        self.body, self.d0 = body, d0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(x.shape[0], 1, self.d0 + 2, dtype=x.dtype)
        z[:, 0, : self.d0] = x
        return self.body(z)[:, 0, self.d0]


def construct_interpolant(f: Callable[[np.ndarray], np.ndarray], d0: int, n_cells: int) -> ConstructedNet:
    """The standard Transformer (width d0+2, FFN width 6, one head) computing the grid interpolant of ``f``.

    ``f`` maps (m, d0) points to (m,) values. See the module docstring for the block recipe.
    """
    if not callable(f):
        raise TypeError("f must be callable: (m, d0) array -> (m,) values")
    d0 = check_int("d0", d0, minimum=1, maximum=2)
    n_cells = check_int("n_cells", n_cells, minimum=1)
    nodes = grid_nodes(n_cells, d0)
    vals = np.asarray(f(nodes), dtype=float).reshape(-1)
    if vals.shape[0] != nodes.shape[0] or not np.all(np.isfinite(vals)):
        raise ValueError("f must return one finite value per grid node")
    width, acc, scr = d0 + 2, d0, d0 + 1
    body = StandardTransformer(width, 6, blocks_for(n_cells, d0), heads=1).double()
    h = 1.0 / n_cells
    W1, B1, W2 = torch.zeros_like(body.w1), torch.zeros_like(body.b1), torch.zeros_like(body.w2)
    if d0 == 1:
        # block i, node g_i: hidden = relu((x - g_i)/h + (1, 0, -1)); acc += f(g_i) (z1 - 2 z2 + z3)
        W1[:, :3, 0] = 1.0 / h
        B1[:, :3] = torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64) - torch.as_tensor(nodes[:, :1] / h)
        W2[:, acc, :3] = torch.as_tensor(vals)[:, None] * torch.tensor([1.0, -2.0, 1.0], dtype=torch.float64)
    else:
        # blocks 2i, 2i+1 for node g: u = (x - gx)/h, v = (y - gy)/h;
        # first: hidden relu(+-u), relu(+-v), relu(+-(u - v)); scratch += (|u| + |v| + |u - v|)/2
        rows = torch.tensor([[1, 0], [-1, 0], [0, 1], [0, -1], [1, -1], [-1, 1]], dtype=torch.float64) / h
        W1[0::2, :6, :2] = rows
        B1[0::2, :6] = -(torch.as_tensor(nodes) @ rows.T)
        W2[0::2, scr, :6] = 0.5
        # second: z0 = relu(1 - s), z1 = relu(s); acc += f(g) z0; scratch -= z1 (back to 0)
        W1[1::2, 0, scr], B1[1::2, 0] = -1.0, 1.0
        W1[1::2, 1, scr] = 1.0
        W2[1::2, acc, 0] = torch.as_tensor(vals)
        W2[1::2, scr, 1] = -1.0
    with torch.no_grad():
        for p in body.parameters():
            p.zero_()  # attention output projections stay 0: over one token softmax attention is linear
        body.w1.copy_(W1)
        body.b1.copy_(B1)
        body.w2.copy_(W2)
    return ConstructedNet(body, d0)


def sup_error(net: nn.Module, f: Callable[[np.ndarray], np.ndarray], points: np.ndarray) -> float:
    """max over ``points`` (m, d0) of |net(x) - f(x)|."""
    pts = as_array("points", points, ndim=2)
    with torch.no_grad():
        out = net(torch.as_tensor(pts, dtype=torch.float64)).numpy()
    return float(np.max(np.abs(out - np.asarray(f(pts), dtype=float))))


def EXAMPLES():
    """(public function, good keyword arguments) pairs for the common bad-input test."""
    return [
        (error_exponents, {"d0": 1, "alpha": 0.5}),
        (blocks_upper, {"eps": 0.1, "d0": 2, "alpha": 1.0, "c": 1.0}),
        (blocks_lower, {"eps": 0.1, "d0": 2, "alpha": 1.0, "c": 1.0}),
        (minimax_exponent, {"d0": 1, "alpha": 0.5}),
        (construction_bound, {"holder_constant": 2.0, "alpha": 0.5, "n_cells": 8, "d0": 1}),
        (depth_for, {"n": 1024, "d0": 1, "alpha": 0.5, "n0": 64.0, "cap": 8}),
    ]
