"""SHARP-Q-like post-training quantization (reconstructed), with its baselines on one code path.

Only the abstract of SHARP-Q was found. It fixes: an objective aligned with Fisher geometry
(the local geometry of KL(p_FP || p_Q)); "rectify, then approximate" -- a Hessian-aware
rectification (HAR) that preconditions the landscape, then a dynamic Fisher-subspace
compensation (DFSC) that approximates the rectified Fisher; uniform quantizers. Everything
below beyond that is our reconstruction, built on FIMA-Q (arXiv:2506.11543: BRECQ-order block
reconstruction whose loss is a diagonal-plus-low-rank Fisher quadratic form) and HeRo-Q
(arXiv:2601.21626: reshape the curvature seen by the quantizer before quantizing).

Quantizers
    Weights: per-output-channel grids ``w_q = s_c * q`` with ``q`` a level of a grid ``Q``
    (uniform: the integers ``-2^(b-1) .. 2^(b-1)-1``; power-of-two: ``{0, +-2^-k}``; k-means: a
    per-layer codebook of ``2^b`` centroids of the channel-normalised weights). The channel scale
    ``s_c`` is chosen by a clipping search minimising the rounding MSE. Rounding is learned with
    AdaRound on *any* grid: each weight sits between two neighbouring levels ``lo <= w/s < hi``
    and ``w_q = s (lo + (hi - lo) h(V))``, ``h(V) = clip(1.2 sigmoid(V) - 0.1, 0, 1)``, with the
    regulariser ``sum 1 - |2h - 1|^beta`` (beta annealed 20 -> 2) and hard rounding at the end.
    So uniform and non-uniform designs get exactly the same reconstruction.
    Activations: per-tensor asymmetric uniform, the step learned LSQ-style (straight-through
    rounding), initialised by a clipping search.

Objectives (block output ``z``, error ``dz = z_hat - z``), each divided by its value at the
start of the block's reconstruction, as FIMA-Q does:
    ``mse``    ``E ||dz||^2`` (BRECQ-like);
    ``fisher`` ``E [ sum_j d_j dz_j^2 ] + E || S_r V_r^T dz ||^2``, the diagonal-plus-low-rank
               (DPLR) Fisher: ``d = E[g^2]`` and ``V_r S_r`` the top-``r`` right singular pairs of
               the gradient matrix ``G / sqrt(N)``, rows ``g = d log p(y | z) / dz`` with ``y`` drawn
               from the FP model's predictive distribution (so ``E[g g^T]`` is the Fisher of the
               KL at ``dz = 0``), gradients through the FP downstream blocks.
    FIMA-Q-like = ``fisher`` with the Fisher taken once, at the FP block output on the
    quantized input (static). SHARP-Q-like adds:
    HAR (our reconstruction): before quantizing, every middle layer ``y = W x`` is rewritten as
        ``y = (W diag(s)) (x / s)``, an exact identity in floating point (the division folds into
        the preceding LayerNorm, linear or conv row, through ReLU, and into the V projection or the
        SSM input projection), with ``s_j = (E[x_j^2] / sum_i f_i W_ij^2)^(1/4)``, ``f_i = E[(dl/dy_i)^2]``
        the output Fisher diagonal. This ``s`` minimises the second-order loss proxy
        ``sum_j A E[x_j^2] / s_j^2 + B s_j^2 sum_i f_i W_ij^2`` of weight noise (step ``~1/s_j``
        in the original space) and activation noise (step ``~s_j``); the global constant cancels
        for scale-adaptive grids, so ``s`` is normalised to geometric mean 1.
    DFSC (our reconstruction): the DPLR Fisher is re-estimated ``refresh`` times during the
        block's reconstruction at the *current* quantized block output, and the low-rank term
        compensates the error inside that tracked subspace.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml26.core.validate import as_array, check_int, check_positive

GRIDS = ("uniform", "pot", "kmeans")
OBJECTIVES = ("mse", "fisher")


# ----------------------------------------------------------------------------- grids
def uniform_levels(bits: int) -> torch.Tensor:
    """Signed uniform grid ``-2^(b-1) .. 2^(b-1)-1`` (``2^b`` levels)."""
    b = check_int("bits", bits, minimum=2, maximum=8)
    return torch.arange(-(2 ** (b - 1)), 2 ** (b - 1), dtype=torch.float32)


def pot_levels(bits: int) -> torch.Tensor:
    """Power-of-two grid ``{0, +-1, +-1/2, ..., +-2^-(m-1)}`` with ``m = 2^(b-1) - 1`` (``2^b - 1`` levels)."""
    b = check_int("bits", bits, minimum=2, maximum=8)
    m = 2 ** (b - 1) - 1
    mags = 2.0 ** -torch.arange(m, dtype=torch.float32)
    return torch.sort(torch.cat([-mags, torch.zeros(1), mags])).values


def kmeans_levels(weight: torch.Tensor, bits: int, seed: int = 0) -> torch.Tensor:
    """Per-layer codebook: ``2^b`` 1-D k-means centroids of the channel-normalised weights (in [-1, 1])."""
    from sklearn.cluster import KMeans

    b = check_int("bits", bits, minimum=2, maximum=8)
    w = as_array("weight", weight, ndim=(2, 3, 4))
    w2 = w.detach().reshape(w.shape[0], -1)
    u = (w2 / w2.abs().amax(dim=1, keepdim=True).clamp_min(1e-12)).reshape(-1, 1).numpy().astype(np.float64)
    k = min(2 ** b, len(np.unique(u)))
    km = KMeans(n_clusters=k, n_init=3, random_state=check_int("seed", seed, minimum=0)).fit(u)
    return torch.sort(torch.as_tensor(km.cluster_centers_.ravel(), dtype=torch.float32)).values


def grid_levels(grid: str, bits: int, weight: torch.Tensor | None = None, seed: int = 0) -> torch.Tensor:
    if grid == "uniform":
        return uniform_levels(bits)
    if grid == "pot":
        return pot_levels(bits)
    if grid == "kmeans":
        if weight is None:
            raise ValueError("weight is needed for a k-means grid")
        return kmeans_levels(weight, bits, seed)
    raise ValueError(f"grid must be one of {GRIDS}, got {grid!r}")


def _bracket(u: torch.Tensor, levels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Neighbouring levels ``lo <= u <= hi`` (``u`` clipped to the grid) and the fraction in between."""
    u = u.clamp(float(levels[0]), float(levels[-1]))
    idx = (torch.searchsorted(levels, u.contiguous(), right=True) - 1).clamp(0, len(levels) - 2)
    lo, hi = levels[idx], levels[idx + 1]
    frac = ((u - lo) / (hi - lo).clamp_min(1e-12)).clamp(0, 1)
    return lo, hi, frac


def round_to_grid(x: torch.Tensor, levels: torch.Tensor) -> torch.Tensor:
    """Nearest level of the sorted grid ``levels`` for every element of ``x`` (clipping outside)."""
    x = as_array("x", x, ndim=(1, 2))
    levels = as_array("levels", levels, ndim=1)
    if len(levels) < 2:
        raise ValueError(f"levels must hold at least 2 values, got {len(levels)}")
    lo, hi, frac = _bracket(torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(levels, dtype=torch.float32))
    return torch.where(frac >= 0.5, hi, lo)


def search_channel_scale(weight: torch.Tensor, levels: torch.Tensor,
                         ratios: Sequence[float] = tuple(np.linspace(0.3, 1.2, 19))) -> torch.Tensor:
    """Per-output-channel scale ``s_c = r max|w_c| / max|Q|`` with ``r`` minimising the rounding MSE; (out,)."""
    w = as_array("weight", weight, ndim=(2, 3, 4))
    levels = as_array("levels", levels, ndim=1)
    w2 = w.detach().reshape(w.shape[0], -1)
    base = w2.abs().amax(dim=1).clamp_min(1e-8) / levels.abs().max()
    best_err = torch.full((w2.shape[0],), float("inf"))
    best = base.clone()
    for r in ratios:
        s = base * float(r)
        err = ((round_to_grid(w2 / s[:, None], levels) * s[:, None] - w2) ** 2).sum(dim=1)
        better = err < best_err
        best_err, best = torch.where(better, err, best_err), torch.where(better, s, best)
    return best


# ----------------------------------------------------------------------------- quantizers
def _round_ste(x: torch.Tensor) -> torch.Tensor:
    return (x.round() - x).detach() + x


class WeightQuantizer(nn.Module):
    """Per-channel grid quantizer with AdaRound-learned rounding (``soft`` during reconstruction)."""

    def __init__(self, weight: torch.Tensor, levels: torch.Tensor):
        super().__init__()
        self.register_buffer("levels", levels.clone())
        scale = search_channel_scale(weight, levels)
        self.register_buffer("scale", scale)
        shape = (-1,) + (1,) * (weight.dim() - 1)
        lo, hi, frac = _bracket(weight.detach() / scale.reshape(shape), levels)
        self.register_buffer("lo", lo)
        self.register_buffer("gap", hi - lo)
        self.shape = shape
        p = ((frac + 0.1) / 1.2).clamp(1e-4, 1 - 1e-4)
        self.v = nn.Parameter(torch.log(p / (1 - p)))  # h(v) = frac: starts at the FP weight
        self.mode = "nearest"  # 'nearest' (RTN) | 'soft' | 'hard'

    def h(self) -> torch.Tensor:
        return (torch.sigmoid(self.v) * 1.2 - 0.1).clamp(0, 1)

    def forward(self) -> torch.Tensor:
        if self.mode == "soft":
            r = self.h()
        elif self.mode == "hard":
            r = (self.v >= 0).float()
        else:
            p = torch.sigmoid(self.v) * 1.2 - 0.1
            r = (p >= 0.5).float()
        return self.scale.reshape(self.shape) * (self.lo + self.gap * r)

    def regulariser(self, beta: float) -> torch.Tensor:
        return (1 - (2 * self.h() - 1).abs().pow(beta)).mean()


class ActQuantizer(nn.Module):
    """Per-tensor asymmetric uniform activation quantizer; the step is learned (LSQ, straight-through)."""

    def __init__(self, bits: int):
        super().__init__()
        self.bits = check_int("bits", bits, minimum=2, maximum=16)
        self.log_step = nn.Parameter(torch.zeros(()))
        self.register_buffer("zero", torch.zeros(()))
        self.enabled = False
        self.observed: list[torch.Tensor] = []
        self.observe = False

    @property
    def qmax(self) -> int:
        return 2 ** self.bits - 1

    def init_from(self, x: torch.Tensor, ratios: Sequence[float] = tuple(np.linspace(0.4, 1.0, 13))) -> None:
        """Pick the clipping range ``r [min, max]`` minimising the quantization MSE on ``x``."""
        x = x.detach().reshape(-1)
        lo_all, hi_all = float(x.min().clamp(max=0)), float(x.max().clamp(min=0))
        best = (float("inf"), 1.0, 0.0)
        for r in ratios:
            lo, hi = r * lo_all, r * hi_all
            step = max(hi - lo, 1e-8) / self.qmax
            zero = round(-lo / step)
            q = ((x / step).round() + zero).clamp(0, self.qmax)
            err = float(((q - zero) * step - x).pow(2).mean())
            if err < best[0]:
                best = (err, step, zero)
        with torch.no_grad():
            self.log_step.fill_(float(np.log(best[1])))
            self.zero.fill_(best[2])
        self.enabled = True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.observe:
            self.observed.append(x.detach())
        if not self.enabled:
            return x
        step = self.log_step.exp()
        q = (_round_ste(x / step) + self.zero).clamp(0, self.qmax)
        return (q - self.zero) * step


class QuantLayer(nn.Module):
    """A quantized ``nn.Linear`` / ``nn.Conv2d``: ``y = W_q(W diag(s)) . A_q(x / s)``.

    ``s`` (per input channel, default 1) is HAR's rectifying scale; with quantizers off the layer
    computes exactly the original function.
    """

    def __init__(self, layer: nn.Module, w_bits: int, a_bits: int, grid: str = "uniform", seed: int = 0):
        super().__init__()
        if not isinstance(layer, (nn.Linear, nn.Conv2d)):
            raise TypeError(f"layer must be nn.Linear or nn.Conv2d, got {type(layer).__name__}")
        self.layer = layer
        for p in layer.parameters():
            p.requires_grad_(False)
        self.w_bits, self.a_bits, self.grid, self.seed = w_bits, a_bits, grid, seed
        self.register_buffer("s", torch.ones(layer.weight.shape[1]))
        self.act = ActQuantizer(a_bits)
        self.wq: WeightQuantizer | None = None
        self.quant_weight = False

    def _scaled_weight(self) -> torch.Tensor:
        shape = (1, -1) + (1,) * (self.layer.weight.dim() - 2)
        return self.layer.weight * self.s.reshape(shape)

    def build_weight_quantizer(self) -> None:
        w = self._scaled_weight().detach()
        self.wq = WeightQuantizer(w, grid_levels(self.grid, self.w_bits, w, self.seed))
        self.quant_weight = True

    def _divide(self, x: torch.Tensor) -> torch.Tensor:
        shape = (1, -1, 1, 1) if isinstance(self.layer, nn.Conv2d) else (-1,)
        return x / self.s.reshape(shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.act(self._divide(x))
        w = self.wq() if (self.quant_weight and self.wq is not None) else self._scaled_weight()
        if isinstance(self.layer, nn.Conv2d):
            return F.conv2d(x, w, self.layer.bias, self.layer.stride, self.layer.padding)
        return F.linear(x, w, self.layer.bias)


def wrap_layers(block: nn.Module, w_bits: int, a_bits: int, grid: str, seed: int = 0) -> list[QuantLayer]:
    """Replace every Linear/Conv2d inside ``block`` by a :class:`QuantLayer` (in place); return them in order."""
    out = []
    for name, child in list(block.named_children()):
        if isinstance(child, (nn.Linear, nn.Conv2d)):
            q = QuantLayer(child, w_bits, a_bits, grid, seed + len(out))
            setattr(block, name, q)
            out.append(q)
        else:
            out += wrap_layers(child, w_bits, a_bits, grid, seed + 100 * (len(out) + 1))
    return out


# ----------------------------------------------------------------------------- HAR
def har_scales(x_sq: torch.Tensor, weight: torch.Tensor, out_fisher: torch.Tensor,
               clamp: float = 8.0) -> torch.Tensor:
    """Hessian-aware rectifying scales ``s_j = (E[x_j^2] / sum_i f_i W_ij^2)^(1/4)``, geometric mean 1.

    ``x_sq``: (in,) second moment of the layer input per channel; ``weight``: (out, in, ...);
    ``out_fisher``: (out,) mean squared loss gradient at the layer output. ``s`` minimises
    ``sum_j E[x_j^2] / s_j^2 + s_j^2 sum_i f_i W_ij^2`` up to a global factor; clipped to
    ``[1/clamp, clamp]`` after normalisation.
    """
    x_sq = as_array("x_sq", x_sq, ndim=1)
    weight = as_array("weight", weight, ndim=(2, 3, 4))
    out_fisher = as_array("out_fisher", out_fisher, ndim=1)
    clamp = check_positive("clamp", clamp)
    x_sq, weight, out_fisher = (torch.as_tensor(a, dtype=torch.float32) for a in (x_sq, weight, out_fisher))
    if weight.shape[1] != x_sq.shape[0] or weight.shape[0] != out_fisher.shape[0]:
        raise ValueError(f"weight {tuple(weight.shape)} must be (len(out_fisher), len(x_sq), ...), got "
                         f"x_sq {tuple(x_sq.shape)}, out_fisher {tuple(out_fisher.shape)}")
    if bool((x_sq < 0).any()) or bool((out_fisher < 0).any()):
        raise ValueError("x_sq and out_fisher must be non-negative")
    w2 = weight.detach().reshape(weight.shape[0], weight.shape[1], -1).pow(2).sum(-1)  # (out, in)
    b = (out_fisher[:, None] * w2).sum(0)
    eps = 1e-12
    s = ((x_sq + eps) / (b + eps)).pow(0.25)
    s = s / torch.exp(torch.log(s).mean())
    return s.clamp(1.0 / clamp, clamp)


# ----------------------------------------------------------------------------- Fisher
@dataclass
class DPLRFisher:
    """``F ~ diag(d) + V S^2 V^T`` on a flattened block output of size D: ``d`` (D,), ``lr`` = ``V S`` (D, r)."""

    d: torch.Tensor
    lr: torch.Tensor

    def quad_terms(self, dz: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per-batch means of ``sum_j d_j dz_j^2`` and ``||(V S)^T dz||^2``; ``dz``: (n, D)."""
        return (dz.pow(2) * self.d).sum(1).mean(), (dz @ self.lr).pow(2).sum(1).mean()


def dplr_fisher(grads: torch.Tensor, rank: int) -> DPLRFisher:
    """Diagonal-plus-low-rank Fisher from per-sample gradients ``grads`` (N, D).

    ``d = mean(g^2)`` and the low-rank factor is the top-``rank`` right singular vectors of
    ``G / sqrt(N)`` scaled by their singular values. The diagonal is taken from the residual
    ``E[g^2] - diag(V S^2 V^T)`` (floored at 0), so ``diag(F)`` matches ``E[g^2]`` exactly.
    """
    g = as_array("grads", grads, ndim=2)
    g = torch.as_tensor(g, dtype=torch.float32)
    r = check_int("rank", rank, minimum=0, maximum=min(g.shape))
    n = g.shape[0]
    if r == 0:
        return DPLRFisher(g.pow(2).mean(0), torch.zeros(g.shape[1], 0))
    _, svals, vh = torch.linalg.svd(g / np.sqrt(n), full_matrices=False)
    lr = vh[:r].T * svals[:r]
    d = (g.pow(2).mean(0) - lr.pow(2).sum(1)).clamp_min(0)
    return DPLRFisher(d, lr)


def output_gradients(downstream: nn.Module, z: torch.Tensor, probs: torch.Tensor, draws: int,
                     gen: torch.Generator) -> torch.Tensor:
    """Rows ``d log p(y | z) / dz`` with ``y ~ probs`` (``draws`` per input), through ``downstream``; (draws*n, D)."""
    rows = []
    for _ in range(draws):
        y = torch.multinomial(probs, 1, generator=gen).squeeze(1)
        zz = z.detach().clone().requires_grad_(True)
        logp = F.log_softmax(downstream(zz), dim=-1)
        (g,) = torch.autograd.grad(logp.gather(1, y[:, None]).sum(), zz)
        rows.append(g.reshape(g.shape[0], -1))
    return torch.cat(rows)


# ----------------------------------------------------------------------------- the pipeline
@dataclass(frozen=True)
class PTQConfig:
    """One PTQ recipe.

    ``grid``: weight grid (uniform / pot / kmeans); ``objective``: mse or fisher; ``har``: apply
    Hessian-aware rectification; ``refresh``: how many times the Fisher is estimated per block
    (1 = static, FIMA-Q-like; > 1 = dynamic, DFSC); ``reconstruct``: False = round-to-nearest.
    """

    grid: str = "uniform"
    objective: str = "mse"
    har: bool = False
    refresh: int = 1
    reconstruct: bool = True
    rank: int = 8
    draws: int = 4
    steps: int = 100
    lr: float = 2e-2
    act_lr: float = 1e-2
    reg_weight: float = 0.05
    warmup: float = 0.2
    edge_bits: int = 8

    def __post_init__(self) -> None:
        if self.grid not in GRIDS:
            raise ValueError(f"grid must be one of {GRIDS}, got {self.grid!r}")
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}")
        check_int("refresh", self.refresh, minimum=1)
        check_int("rank", self.rank, minimum=0)
        check_int("draws", self.draws, minimum=1)
        check_int("steps", self.steps, minimum=1)
        check_positive("lr", self.lr)
        check_positive("act_lr", self.act_lr)
        check_positive("reg_weight", self.reg_weight, strict=False)


def _collect_layer_stats(model: nn.Sequential, layers: list[nn.Module], x: torch.Tensor,
                         probs: torch.Tensor, draws: int, gen: torch.Generator):
    """Per FP layer: input second moment per channel and output Fisher diagonal per channel."""
    stats: dict[int, dict[str, torch.Tensor]] = {}
    handles = []

    def hook(key):
        def fn(mod, inp, out):
            xin = inp[0].detach()
            dims = [0, 2, 3] if xin.dim() == 4 else list(range(xin.dim() - 1))
            stats.setdefault(key, {})["x_sq"] = xin.pow(2).mean(dim=dims)
            out.retain_grad()
            stats[key]["out"] = out
        return fn

    for key, fp_layer in enumerate(layers):
        handles.append(fp_layer.register_forward_hook(hook(key)))
    fisher = {k: 0.0 for k in range(len(layers))}
    for _ in range(draws):
        y = torch.multinomial(probs, 1, generator=gen).squeeze(1)
        model.zero_grad()
        logp = F.log_softmax(model(x.clone().requires_grad_(True)), dim=-1)
        logp.gather(1, y[:, None]).sum().backward()
        for k in range(len(layers)):
            g = stats[k]["out"].grad
            dims = [0, 2, 3] if g.dim() == 4 else list(range(g.dim() - 1))
            fisher[k] = fisher[k] + g.pow(2).mean(dim=dims) / draws
    for h in handles:
        h.remove()
    model.zero_grad()
    return [(stats[k]["x_sq"], fisher[k]) for k in range(len(layers))]


def _rectify(fp: nn.Sequential, q: nn.Sequential, calib: torch.Tensor, probs: torch.Tensor, draws: int,
             gen: torch.Generator) -> None:
    """HAR: set every middle QuantLayer's scale ``s`` from the FP model's layer statistics."""
    fp_layers = [m for b in range(1, len(fp) - 1) for m in fp[b].modules() if isinstance(m, (nn.Linear, nn.Conv2d))]
    q_layers = [m for b in range(1, len(q) - 1) for m in q[b].modules() if isinstance(m, QuantLayer)]
    with torch.enable_grad():
        stats = _collect_layer_stats(fp, fp_layers, calib, probs, draws, gen)
    with torch.no_grad():
        for ql, fl, (x_sq, f) in zip(q_layers, fp_layers, stats):
            ql.s.copy_(har_scales(x_sq, fl.weight, f))


def rectified_copy(model: nn.Sequential, calib: torch.Tensor, draws: int = 4, seed: int = 0) -> nn.Sequential:
    """A copy of ``model`` with HAR's scales applied and every quantizer off: the same function in FP."""
    if not isinstance(model, nn.Sequential) or len(model) < 3:
        raise TypeError("model must be an nn.Sequential of at least 3 blocks (stem, middle, head)")
    calib = as_array("calib", calib, ndim=4)
    draws = check_int("draws", draws, minimum=1)
    gen = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    fp = model.eval()
    q = copy.deepcopy(fp)
    for b in range(1, len(q) - 1):
        wrap_layers(q[b], 8, 8, "uniform")
    with torch.no_grad():
        probs = torch.softmax(fp(calib), dim=-1)
    _rectify(fp, q, calib, probs, draws, gen)
    return q.eval()


def quantize(model: nn.Sequential, calib: torch.Tensor, w_bits: int, a_bits: int, config: PTQConfig,
             seed: int = 0) -> nn.Sequential:
    """Post-training quantization of a block-sequential FP model on unlabelled ``calib`` images.

    Blocks are processed in order (BRECQ): each middle block's input is the output of the already
    quantized previous blocks, its target the FP block's output on the FP path. The first and last
    blocks are quantized round-to-nearest at ``config.edge_bits``. Returns a new model (the FP
    model is not modified) whose weights are hard-quantized.
    """
    if not isinstance(model, nn.Sequential) or len(model) < 3:
        raise TypeError("model must be an nn.Sequential of at least 3 blocks (stem, middle, head)")
    calib = as_array("calib", calib, ndim=4)
    w_bits = check_int("w_bits", w_bits, minimum=2, maximum=8)
    a_bits = check_int("a_bits", a_bits, minimum=2, maximum=16)
    if not isinstance(config, PTQConfig):
        raise TypeError(f"config must be a PTQConfig, got {type(config).__name__}")
    seed = check_int("seed", seed, minimum=0)
    gen = torch.Generator().manual_seed(seed)
    fp = model.eval()
    for p in fp.parameters():
        p.requires_grad_(False)
    q = copy.deepcopy(fp)
    n_blocks = len(q)
    with torch.no_grad():
        probs = torch.softmax(fp(calib), dim=-1)

    for b in range(n_blocks):
        edge = b in (0, n_blocks - 1)
        wrap_layers(q[b], config.edge_bits if edge else w_bits, config.edge_bits if edge else a_bits,
                    "uniform" if edge else config.grid, seed + 1000 * b)
    if config.har:
        _rectify(fp, q, calib, probs, config.draws, gen)

    x_fp, x_q = calib, calib
    for b in range(n_blocks):
        qb, fb = q[b], fp[b]
        qlayers = [m for m in qb.modules() if isinstance(m, QuantLayer)]
        with torch.no_grad():
            z_fp = fb(x_fp)
            for ql in qlayers:  # observe the inputs each activation quantizer sees (weights at RTN)
                ql.build_weight_quantizer()
                ql.act.observe = True
            qb(x_q)
            for ql in qlayers:
                ql.act.observe = False
                ql.act.init_from(torch.cat(ql.act.observed))
                ql.act.observed = []
        if config.reconstruct and b not in (0, n_blocks - 1):
            _reconstruct_block(qb, qlayers, x_q, z_fp, fp[b + 1:], probs, config, gen)
        with torch.no_grad():
            x_q = qb(x_q)
            x_fp = z_fp
    for p in q.parameters():
        p.requires_grad_(False)
    return q.eval()


def _reconstruct_block(qb: nn.Module, qlayers: list[QuantLayer], x_q: torch.Tensor, z_fp: torch.Tensor,
                       downstream: nn.Module, probs: torch.Tensor, config: PTQConfig, gen: torch.Generator) -> None:
    """AdaRound + LSQ on one block, minimising the configured (normalised) output objective.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: AdaRound and LSQ with two optimizers,
    the quantisation method itself.
    """
    for ql in qlayers:
        ql.wq.mode = "soft"
        ql.act.log_step.requires_grad_(True)
        ql.wq.v.requires_grad_(True)
    opt_w = torch.optim.Adam([ql.wq.v for ql in qlayers], lr=config.lr)
    opt_a = torch.optim.Adam([ql.act.log_step for ql in qlayers], lr=config.act_lr)
    target = z_fp.reshape(z_fp.shape[0], -1)
    steps = config.steps
    refresh_at = set(int(round(k * steps / config.refresh)) for k in range(config.refresh))
    fisher: DPLRFisher | None = None
    norm = (1.0, 1.0)
    for it in range(steps):
        if it in refresh_at:
            with torch.no_grad():
                # static (refresh = 1): the Fisher at the FP block output on the quantized input,
                # FIMA-Q-like; dynamic: at the current quantized block output.
                if it == 0:
                    for ql in qlayers:
                        ql.quant_weight, ql.act.enabled = False, False
                    z_at = qb(x_q)
                    for ql in qlayers:
                        ql.quant_weight, ql.act.enabled = True, True
                else:
                    z_at = qb(x_q)
            if config.objective == "fisher":
                with torch.enable_grad():
                    grads = output_gradients(downstream, z_at, probs, config.draws, gen)
                fisher = dplr_fisher(grads, min(config.rank, *grads.shape))
            with torch.no_grad():
                dz = qb(x_q).reshape(target.shape) - target
                if fisher is None:
                    norm = (float(dz.pow(2).sum(1).mean()), 1.0)
                else:
                    a, c = fisher.quad_terms(dz)
                    norm = (float(a), float(c))
            norm = tuple(max(v, 1e-12) for v in norm)
        dz = qb(x_q).reshape(target.shape) - target
        if fisher is None:
            rec = dz.pow(2).sum(1).mean() / norm[0]
        else:
            a, c = fisher.quad_terms(dz)
            rec = a / norm[0] + (c / norm[1] if fisher.lr.shape[1] else 0.0)
        loss = rec
        if it >= config.warmup * steps:
            frac = (it - config.warmup * steps) / max(1.0, (1 - config.warmup) * steps)
            beta = 2 + (20 - 2) * (1 - frac)
            loss = loss + config.reg_weight * sum(ql.wq.regulariser(beta) for ql in qlayers)
        opt_w.zero_grad()
        opt_a.zero_grad()
        loss.backward()
        opt_w.step()
        opt_a.step()
    for ql in qlayers:
        ql.wq.mode = "hard"
        ql.wq.v.requires_grad_(False)
        ql.act.log_step.requires_grad_(False)


#: the recipes compared in the reproduction (names used in metrics)
RECIPES: dict[str, PTQConfig] = {
    "rtn": PTQConfig(reconstruct=False),
    "brecq_mse": PTQConfig(objective="mse"),
    "fimaq": PTQConfig(objective="fisher", refresh=1),
    "sharpq": PTQConfig(objective="fisher", har=True, refresh=4),
    "kmeans": PTQConfig(grid="kmeans", objective="fisher", har=True, refresh=4),
    "pot": PTQConfig(grid="pot", objective="fisher", har=True, refresh=4),
    "kmeans_mse": PTQConfig(grid="kmeans", objective="mse"),
}


def recipe(name: str, steps: int) -> PTQConfig:
    """A named recipe from :data:`RECIPES` with ``steps`` reconstruction steps per block."""
    if name not in RECIPES:
        raise ValueError(f"name must be one of {sorted(RECIPES)}, got {name!r}")
    from dataclasses import replace

    return replace(RECIPES[name], steps=check_int("steps", steps, minimum=1))


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test."""
    w = torch.randn(4, 3, 2, 2, generator=torch.Generator().manual_seed(0))
    from icml26.llm.sharp_q.setting import build_model, calibration_set

    return [
        (round_to_grid, {"x": np.linspace(-2.0, 2.0, 7), "levels": uniform_levels(3).numpy()}),
        (rectified_copy, {"model": build_model("cnn", 8), "calib": torch.rand(4, 1, 8, 8), "draws": 1, "seed": 0}),
        (search_channel_scale, {"weight": w, "levels": uniform_levels(3)}),
        (har_scales, {"x_sq": np.ones(3), "weight": w.numpy(), "out_fisher": np.ones(4), "clamp": 8.0}),
        (dplr_fisher, {"grads": np.random.default_rng(0).normal(size=(6, 5)), "rank": 2}),
        (kmeans_levels, {"weight": w, "bits": 2, "seed": 0}),
        (quantize, {"model": build_model("cnn", 8), "calib": torch.rand(4, 1, 8, 8), "w_bits": 3, "a_bits": 3,
                    "config": PTQConfig(steps=2), "seed": 0}),
        (calibration_set, {"x_train": torch.rand(10, 1, 8, 8), "n": 4, "seed": 0}),
    ]
