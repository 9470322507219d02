"""Sound output bounds of a ReLU MLP over an l_inf box: IBP and CROWN-IBP, in plain torch.

Used by the certified-training methods compared in arXiv:2606.02134 (Sec. 2): interval
bound propagation (IBP; Gowal et al. 2019) and CROWN-IBP (Zhang et al. 2020), which
takes the intermediate pre-activation bounds from IBP and runs one CROWN backward
pass from the final specification to the input.

Networks are ``torch.nn.Sequential`` stacks of ``Linear``, ``ReLU`` and ``Flatten``
(the last layer ``Linear``). Inputs are boxes ``[x_lo, x_hi]`` of shape ``(B, d)``
(images are flattened by a leading ``Flatten``).

Specification. For a label ``y`` the margin matrix ``C`` (``margin_spec``) has rows
``e_y - e_j``; ``C z`` are the margins ``z_y - z_j`` and the sample is certified when
every lower bound of ``C z`` with ``j != y`` is positive. As in both papers, ``C`` is
fused with the last linear layer (``W_C = C W``, ``b_C = C b``) before bounding, which
is exact for that layer.

CROWN relaxation of an unstable ReLU (``l < 0 < u``): upper line ``u (z - l) / (u - l)``;
lower line ``a z`` with ``a = 1`` if ``u > -l`` else ``0`` (``"adaptive"``, the CROWN-IBP
default) or always ``a = 0`` (``"zero"``). With ``"zero"`` the relaxed set of every
hidden layer lies inside its IBP box, so the CROWN-IBP margin bound is provably never
looser than the (fused) IBP bound; ``"adaptive"`` is usually tighter but carries no
such guarantee. Both are sound.
"""

from __future__ import annotations

from typing import Literal

import torch
from torch import nn

LowerSlope = Literal["adaptive", "zero"]


def _check_model(model: nn.Module) -> list[nn.Module]:
    if not isinstance(model, nn.Sequential):
        raise ValueError(f"model must be an nn.Sequential of Linear/ReLU/Flatten, got {type(model).__name__}")
    layers = list(model)
    if not layers or not isinstance(layers[-1], nn.Linear):
        raise ValueError("model must end with an nn.Linear layer")
    for layer in layers:
        if not isinstance(layer, (nn.Linear, nn.ReLU, nn.Flatten)):
            raise ValueError(f"model may only hold Linear, ReLU and Flatten layers, found {type(layer).__name__}")
    return layers


def _check_box(x_lo: torch.Tensor, x_hi: torch.Tensor) -> None:
    if not (torch.is_tensor(x_lo) and torch.is_tensor(x_hi)):
        raise ValueError("x_lo and x_hi must be torch tensors")
    if x_lo.shape != x_hi.shape or x_lo.ndim < 2 or x_lo.shape[0] == 0:
        raise ValueError(f"x_lo and x_hi must have the same shape (B, ...), B >= 1; got {tuple(x_lo.shape)} "
                         f"and {tuple(x_hi.shape)}")
    if not (torch.isfinite(x_lo).all() and torch.isfinite(x_hi).all()):
        raise ValueError("x_lo / x_hi contain NaN or inf")
    if (x_lo > x_hi).any():
        raise ValueError("x_lo must be <= x_hi elementwise")


def input_box(x: torch.Tensor, eps: float | torch.Tensor, x_min: float = 0.0,
              x_max: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """The l_inf ball of radius ``eps`` around ``x`` intersected with the pixel domain ``[x_min, x_max]``."""
    if not torch.is_tensor(x) or x.ndim < 2 or x.shape[0] == 0:
        raise ValueError("x must be a non-empty tensor of shape (B, ...)")
    if not torch.isfinite(x).all():
        raise ValueError("x contains NaN or inf")
    eps_t = torch.as_tensor(eps, dtype=x.dtype)
    if (eps_t < 0).any() or not torch.isfinite(eps_t).all():
        raise ValueError(f"eps must be finite and >= 0, got {eps!r}")
    return (x - eps_t).clamp(x_min, x_max), (x + eps_t).clamp(x_min, x_max)


def margin_spec(y: torch.Tensor, n_classes: int) -> torch.Tensor:
    """``C`` of shape ``(B, K, K)`` with row ``j`` = ``e_y - e_j`` (row ``y`` is zero)."""
    if not torch.is_tensor(y) or y.ndim != 1 or y.numel() == 0:
        raise ValueError("y must be a non-empty 1-D tensor of labels")
    if n_classes < 2 or int(y.min()) < 0 or int(y.max()) >= n_classes:
        raise ValueError(f"labels must lie in 0..{n_classes - 1} and n_classes >= 2")
    eye = torch.eye(n_classes)
    return eye[y].unsqueeze(1) - eye.unsqueeze(0)


def _affine_interval(lo, hi, w, b):
    mid, rad = (hi + lo) / 2, (hi - lo) / 2
    mid = mid @ w.T + b
    rad = rad @ w.abs().T
    return mid - rad, mid + rad


def _fused_last(w: torch.Tensor, b: torch.Tensor, C: torch.Tensor | None):
    """Last-layer weights ``(B, K, h)`` and bias ``(B, K)`` with the specification fused in."""
    if C is None:
        return None
    if C.ndim != 3 or C.shape[2] != w.shape[0]:
        raise ValueError(f"C must have shape (B, K, {w.shape[0]}), got {tuple(C.shape)}")
    return C @ w, C @ b


def ibp_bounds(model: nn.Module, x_lo: torch.Tensor, x_hi: torch.Tensor, C: torch.Tensor | None = None,
               return_intermediate: bool = False):
    """Interval bound propagation.

    Returns ``(lo, hi)`` of the output ``(B, n_out)``, or of ``C z`` ``(B, K)`` when ``C`` is given
    (``C`` fused with the last layer). With ``return_intermediate`` also the list of ``(l, u)``
    pre-activation bounds at the input of every ReLU, in order.
    """
    layers = _check_model(model)
    _check_box(x_lo, x_hi)
    lo, hi = x_lo, x_hi
    pre: list[tuple[torch.Tensor, torch.Tensor]] = []
    for i, layer in enumerate(layers):
        if isinstance(layer, nn.Flatten):
            lo, hi = layer(lo), layer(hi)
        elif isinstance(layer, nn.ReLU):
            pre.append((lo, hi))
            lo, hi = lo.clamp_min(0), hi.clamp_min(0)
        elif i == len(layers) - 1 and C is not None:
            w_c, b_c = _fused_last(layer.weight, layer.bias, C)
            mid, rad = (hi + lo) / 2, (hi - lo) / 2
            centre = torch.einsum("bkh,bh->bk", w_c, mid) + b_c
            radius = torch.einsum("bkh,bh->bk", w_c.abs(), rad)
            lo, hi = centre - radius, centre + radius
        else:
            lo, hi = _affine_interval(lo, hi, layer.weight, layer.bias)
    return (lo, hi, pre) if return_intermediate else (lo, hi)


def crown_ibp_lower(model: nn.Module, x_lo: torch.Tensor, x_hi: torch.Tensor, C: torch.Tensor,
                    lower_slope: LowerSlope = "adaptive",
                    intermediate: list[tuple[torch.Tensor, torch.Tensor]] | None = None) -> torch.Tensor:
    """CROWN-IBP lower bound of ``C z`` over the box, shape ``(B, K)``.

    Intermediate ReLU input bounds come from IBP (pass ``intermediate`` from
    ``ibp_bounds(..., return_intermediate=True)`` to reuse them); the backward pass starts
    at ``C W_last`` and substitutes each ReLU by its linear relaxation (upper line where the
    running coefficient is negative, lower line where it is positive) and each Linear exactly.
    """
    layers = _check_model(model)
    _check_box(x_lo, x_hi)
    if lower_slope not in ("adaptive", "zero"):
        raise ValueError(f"lower_slope must be 'adaptive' or 'zero', got {lower_slope!r}")
    if intermediate is None:
        _, _, intermediate = ibp_bounds(model, x_lo, x_hi, return_intermediate=True)
    last = layers[-1]
    A, bias = _fused_last(last.weight, last.bias, C)  # (B, K, h), (B, K)
    relu_idx = len(intermediate)
    flat_lo, flat_hi = x_lo.flatten(1), x_hi.flatten(1)
    for layer in reversed(layers[:-1]):
        if isinstance(layer, nn.Flatten):
            continue
        if isinstance(layer, nn.ReLU):
            relu_idx -= 1
            l, u = intermediate[relu_idx]
            active, inactive = l >= 0, u <= 0
            unstable = ~(active | inactive)
            denom = torch.where(unstable, u - l, torch.ones_like(u))
            up_slope = torch.where(active, torch.ones_like(u), torch.where(unstable, u / denom, torch.zeros_like(u)))
            up_icpt = torch.where(unstable, -up_slope * l, torch.zeros_like(u))
            if lower_slope == "adaptive":
                lo_unst = (u > -l).to(u.dtype)
            else:
                lo_unst = torch.zeros_like(u)
            lo_slope = torch.where(active, torch.ones_like(u), torch.where(unstable, lo_unst, torch.zeros_like(u)))
            A_pos, A_neg = A.clamp_min(0), A.clamp_max(0)
            bias = bias + torch.einsum("bkh,bh->bk", A_neg, up_icpt)
            A = A_pos * lo_slope.unsqueeze(1) + A_neg * up_slope.unsqueeze(1)
        else:  # Linear
            bias = bias + A @ layer.bias
            A = A @ layer.weight
    A_pos, A_neg = A.clamp_min(0), A.clamp_max(0)
    return (torch.einsum("bkd,bd->bk", A_pos, flat_lo) + torch.einsum("bkd,bd->bk", A_neg, flat_hi) + bias)


def margin_lower_bounds(model: nn.Module, x_lo: torch.Tensor, x_hi: torch.Tensor, y: torch.Tensor,
                        method: Literal["ibp", "crown-ibp", "best"] = "ibp", beta: float = 1.0,
                        lower_slope: LowerSlope = "adaptive") -> torch.Tensor:
    """Lower bounds ``(B, K)`` of the margins ``z_y - z_j`` (column ``y`` is 0).

    ``"ibp"``: fused IBP; ``"crown-ibp"``: ``beta * CROWN-IBP + (1 - beta) * IBP`` (the
    CROWN-IBP training mix; ``beta`` in [0, 1]); ``"best"``: elementwise max of the two
    (both are sound, so their max is too; used to certify).
    """
    n_out = _check_model(model)[-1].out_features
    C = margin_spec(y, n_out)
    if method == "ibp":
        return ibp_bounds(model, x_lo, x_hi, C)[0]
    if method not in ("crown-ibp", "best"):
        raise ValueError(f"method must be 'ibp', 'crown-ibp' or 'best', got {method!r}")
    if not 0.0 <= float(beta) <= 1.0:
        raise ValueError(f"beta must lie in [0, 1], got {beta!r}")
    ibp_lo, _, pre = ibp_bounds(model, x_lo, x_hi, C, return_intermediate=True)
    if method == "crown-ibp" and float(beta) == 0.0:
        return ibp_lo
    crown_lo = crown_ibp_lower(model, x_lo, x_hi, C, lower_slope=lower_slope, intermediate=pre)
    if method == "best":
        return torch.maximum(crown_lo, ibp_lo)
    return beta * crown_lo + (1.0 - beta) * ibp_lo


def worst_case_logits(margin_lo: torch.Tensor) -> torch.Tensor:
    """Logits whose cross-entropy upper-bounds the worst-case CE: ``-margin_lo`` (entry ``y`` is 0)."""
    return -margin_lo


def crown_intermediate_bounds(model: nn.Module, x_lo: torch.Tensor,
                              x_hi: torch.Tensor) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Pre-activation bounds ``(l, u)`` at the input of every ReLU, layer by layer by full CROWN.

    Each layer's bounds are the intersection of IBP (from the previous layer's tightened box) and a
    CROWN backward pass from that layer to the input that relaxes the earlier ReLUs with their own
    tightened bounds (adaptive lower slope). Both are sound, so the intersection is. Used to tighten
    the big-M constants of the exact verifier (fewer unstable ReLUs, tighter relaxations).
    """
    layers = _check_model(model)
    _check_box(x_lo, x_hi)
    lo, hi = x_lo, x_hi
    pre: list[tuple[torch.Tensor, torch.Tensor]] = []
    for i, layer in enumerate(layers):
        if isinstance(layer, nn.Flatten):
            lo, hi = layer(lo), layer(hi)
        elif isinstance(layer, nn.ReLU):
            pre.append((lo, hi))
            lo, hi = lo.clamp_min(0), hi.clamp_min(0)
        else:
            lo, hi = _affine_interval(lo, hi, layer.weight, layer.bias)
            if i + 1 < len(layers) and pre:          # a hidden pre-activation behind at least one ReLU
                n = layer.out_features
                eye = torch.eye(n, dtype=lo.dtype)
                C = torch.cat([eye, -eye]).unsqueeze(0).expand(lo.shape[0], -1, -1)
                cr = crown_ibp_lower(nn.Sequential(*layers[:i + 1]), x_lo, x_hi, C, intermediate=pre)
                lo, hi = torch.maximum(lo, cr[:, :n]), torch.minimum(hi, -cr[:, n:])
                hi = torch.maximum(hi, lo)           # guard against rounding crossing the two
    return pre
