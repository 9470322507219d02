"""LoRA initialisations for RLVR (LoRA-RLPO / LoRA-RLMO) and the baselines they are measured against.

LoRA adds ``scale * B A`` to a frozen weight ``W`` (out x in), ``A`` (r x in), ``B`` (out x r),
``scale = alpha / r`` (alpha = r everywhere here, so scale = 1). With ``W = U S V^T``
(singular values descending) the initialisations are (:func:`adapter_init`):

* ``kaiming``: standard LoRA (peft's default): A ~ U(-1/sqrt(in), 1/sqrt(in)), B = 0;
* ``gaussian_scaled``: A Gaussian, rescaled to the orthonormal A's Frobenius norm sqrt(r),
  B = 0 (a control: a gain of RLPO over it is not merely a larger effective step);
* ``random_orthonormal``: rows of A a random orthonormal basis of an r-dim subspace, B = 0;
* ``rlpo``: A = V[:, :r]^T (top-r right singular vectors of W), B = 0, unscaled, W untouched;
* ``rlmo``: A = V[:, -r:]^T (bottom-r right singular vectors), B = 0;
* ``pissa``: A = sqrt(S_r) V_r^T, B = U_r sqrt(S_r) on the top r, W replaced by W - scale B A;
* ``milora``: the same on the r smallest singular triplets.

The one-step analysis (our reconstruction, see the package docstring): with B = 0 the first
gradient of ``A`` vanishes (dL/dA = scale B^T G = 0) and one SGD step of size ``lr`` gives
``B = -lr scale G A^T``, so the weight moves by ``-lr scale^2 G A^T A`` while full fine-tuning
moves it by ``-lr G``. :func:`one_step_gap` measures ``||G (I - A^T A)||_F / ||G||_F`` and the
update-norm ratio ``||G A^T A||_F / ||G||_F``; for orthonormal rows ``A^T A`` is a projector
(ratio <= 1, gap >= the Eckart-Young floor :func:`optimal_gap`, attained by the top-r right
singular vectors of ``G``).

RL runs through :mod:`icml26.nn.rl` with DAPO's settings (:func:`dapo_config`: clip-higher
0.2/0.28, token-level loss, no KL penalty; the KL to the reference is still measured).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from icml26.core.validate import check_finite, check_int, check_positive

INITS = ("kaiming", "gaussian_scaled", "random_orthonormal", "rlpo", "rlmo", "pissa", "milora")
# every linear layer of each TinyLM block: attention in/out and the MLP's two Sequential children
# (dotted names, matched as peft matches them); the unembedding head is left frozen
TARGETS = ("qkv", "proj", "mlp.0", "mlp.2")


def _matrix(name: str, x: object) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() != 2 or x.numel() == 0:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {tuple(x.shape)}")
    check_finite(name, x)
    return x.detach().to(torch.float64)


def adapter_init(W: torch.Tensor, r: int, kind: str, *, scale: float = 1.0, seed: int = 0
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """``(A, B, W_new)`` for a LoRA adapter of rank ``r`` on weight ``W`` (out x in).

    ``W_new`` is ``None`` when the base weight is left untouched (every init but PiSSA/MiLoRA,
    which return the residual ``W - scale B A``). ``seed`` drives the random inits.
    """
    Wd = _matrix("W", W)
    r = check_int("r", r, minimum=1, maximum=min(Wd.shape))
    if not isinstance(kind, str):
        raise TypeError(f"kind must be a str, got {type(kind).__name__}")
    if kind not in INITS:
        raise ValueError(f"kind must be one of {INITS}, got {kind!r}")
    scale = check_positive("scale", scale)
    seed = check_int("seed", seed, minimum=0)
    out_f, in_f = Wd.shape
    gen = torch.Generator().manual_seed(seed)
    B = torch.zeros(out_f, r, dtype=torch.float64)
    W_new = None
    if kind == "kaiming":
        bound = 1.0 / math.sqrt(in_f)
        A = (torch.rand(r, in_f, generator=gen, dtype=torch.float64) * 2 - 1) * bound
    elif kind == "gaussian_scaled":
        A = torch.randn(r, in_f, generator=gen, dtype=torch.float64)
        A = A * (math.sqrt(r) / A.norm())
    elif kind == "random_orthonormal":
        q, _ = torch.linalg.qr(torch.randn(in_f, r, generator=gen, dtype=torch.float64))
        A = q.T.contiguous()
    else:
        U, S, Vh = torch.linalg.svd(Wd, full_matrices=False)
        sl = slice(0, r) if kind in ("rlpo", "pissa") else slice(S.numel() - r, S.numel())
        if kind in ("rlpo", "rlmo"):
            A = Vh[sl].contiguous()
        else:
            root = torch.sqrt(S[sl] / scale)
            A = root[:, None] * Vh[sl]
            B = U[:, sl] * root[None, :]
            W_new = Wd - scale * B @ A
    dt = W.dtype
    return A.to(dt), B.to(dt), (W_new.to(dt) if W_new is not None else None)


def lora_init_hook(kind: str, r: int, *, scale: float = 1.0, seed: int = 0
                   ) -> Callable[[torch.Tensor, torch.Tensor, torch.Tensor], tuple]:
    """An ``init`` hook for :func:`icml26.nn.lora.add_lora` applying :func:`adapter_init` layer by layer.

    Each layer gets its own random stream (``seed`` + layer index) for the random inits.
    """
    if kind not in INITS:
        raise ValueError(f"kind must be one of {INITS}, got {kind!r}")
    check_int("r", r, minimum=1)
    counter = {"i": 0}

    def hook(W: torch.Tensor, A: torch.Tensor, B: torch.Tensor):
        i = counter["i"]
        counter["i"] += 1
        return adapter_init(W, r, kind, scale=scale, seed=seed * 1000 + i)

    return hook


def one_step_gap(G: torch.Tensor, A: torch.Tensor) -> dict[str, float]:
    """One-step LoRA-vs-full geometry for gradient ``G`` (out x in) and adapter ``A`` (r x in) with B = 0.

    ``gap = ||G - G A^T A||_F / ||G||_F`` (distance of the LoRA step direction from the full
    step), ``norm_ratio = ||G A^T A||_F / ||G||_F`` (how much larger or smaller the LoRA step is).
    """
    Gd, Ad = _matrix("G", G), _matrix("A", A)
    if Ad.shape[1] != Gd.shape[1]:
        raise ValueError(f"A has {Ad.shape[1]} columns, G has {Gd.shape[1]}; they must match")
    gn = float(Gd.norm())
    if gn == 0:
        raise ValueError("G is zero: the gap is undefined")
    proj = Gd @ Ad.T @ Ad
    return {"gap": float((Gd - proj).norm()) / gn, "norm_ratio": float(proj.norm()) / gn}


def optimal_gap(G: torch.Tensor, r: int) -> float:
    """The smallest ``||G (I - M)||_F / ||G||_F`` over rank-<= r matrices ``M = A^T A`` (Eckart-Young).

    Equals ``sqrt(sum_{j > r} s_j^2) / ||G||_F`` with ``s`` the singular values of ``G``; attained by
    the orthonormal ``A`` whose rows are the top-r right singular vectors of ``G``.
    """
    Gd = _matrix("G", G)
    r = check_int("r", r, minimum=1)
    s = torch.linalg.svdvals(Gd)
    return float(torch.sqrt((s[r:] ** 2).sum()) / torch.sqrt((s ** 2).sum()))


def lora_one_step_delta(G: torch.Tensor, A: torch.Tensor, lr: float, *, scale: float = 1.0) -> torch.Tensor:
    """The weight change ``-lr scale^2 G A^T A`` of one SGD step from B = 0 (closed form)."""
    Gd, Ad = _matrix("G", G), _matrix("A", A)
    if Ad.shape[1] != Gd.shape[1]:
        raise ValueError(f"A has {Ad.shape[1]} columns, G has {Gd.shape[1]}; they must match")
    lr = check_positive("lr", lr)
    scale = check_positive("scale", scale)
    return -lr * scale ** 2 * Gd @ Ad.T @ Ad


def dapo_config(lr: float, *, group_size: int = 8, max_new: int = 24, eos_id: int | None = None,
                pad_id: int = 0, eps_low: float = 0.2, eps_high: float = 0.28):
    """GRPO settings as in DAPO: clip-higher (eps_high > eps_low), token-level loss, beta = 0."""
    from icml26.nn.rl import GRPOConfig

    lr = check_positive("lr", lr)
    if not 0 < eps_low < 1 or not eps_high >= eps_low:
        raise ValueError(f"eps_low must lie in (0, 1) and eps_high >= eps_low, got {eps_low}, {eps_high}")
    return GRPOConfig(group_size=check_int("group_size", group_size, minimum=2),
                      max_new=check_int("max_new", max_new, minimum=1), lr=lr, beta=0.0, eps_low=eps_low,
                      eps_high=eps_high, aggregation="token", eos_id=eos_id, pad_id=pad_id)


def make_arm(base: torch.nn.Module, arm: str, r: int, *, seed: int = 0) -> tuple[torch.nn.Module, list]:
    """A trainable copy of ``base``: ``arm`` is ``"full"`` (every weight) or one of :data:`INITS` (LoRA, alpha = r).

    Returns ``(model, trainable parameters)``; the LoRA model is a peft model on a deep copy.
    """
    import copy

    from icml26.nn.lora import add_lora, trainable_parameters

    if not isinstance(base, torch.nn.Module):
        raise TypeError(f"base must be a torch.nn.Module, got {type(base).__name__}")
    if arm != "full" and arm not in INITS:
        raise ValueError(f"arm must be 'full' or one of {INITS}, got {arm!r}")
    r = check_int("r", r, minimum=1)
    model = copy.deepcopy(base)
    if arm == "full":
        for p in model.parameters():
            p.requires_grad_(True)
        return model, list(model.parameters())
    peft_model = add_lora(model, r=r, alpha=float(r), target_modules=list(TARGETS),
                          init=lora_init_hook(arm, r, seed=seed))
    return peft_model, trainable_parameters(peft_model)
