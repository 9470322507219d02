"""PerContrast and the PerCE loss (arXiv:2603.06595), on any LM with TinyLM's ``forward(idx) -> (logits, cache)``.

PerContrast scores a target token y_t by how much its probability depends on the user
information u, through a causal intervention on the input (u removed), with no gradient:

    log PIR_t = log p_theta(y_t | u, x, y_<t) - log p_theta(y_t | x, y_<t)          (personal influence ratio)

PerCE is the cross-entropy with token weights w_t = g(PIR_t) held fixed (stop-gradient):

    L = - sum_t w_t log p_theta(y_t | u, x, y_<t) / sum_t w_t       (normalise="weights")
    L = - sum_t w_t log p_theta(y_t | u, x, y_<t) / sum_t 1         (normalise="tokens")

and the bootstrap alternates the two: at every step the weights of the batch are estimated
with the current model (E-step) and one gradient step is taken on the weighted loss
(M-step), after a plain-CE warm-up. The paper's full method section could not be read (only its
abstract, introduction and third-party summaries), so the transform g, the clipping, the
normalisation, the warm-up and how u is removed are choices exposed as options:

* ``transform="clip"`` (default): w = clip(PIR, 1, w_max) — tokens that u makes likelier are
  up-weighted up to w_max, no token is down-weighted;
* ``transform="log"``: w = min(1 + gamma * max(0, log PIR), w_max);
* removal ``"mask"`` (history words replaced by a placeholder, positions kept) or ``"delete"``.

Controls for the headline comparison (same loss, same clip and normalisation, the score replaced):
``random`` (PerCE's weights of the batch permuted over its response tokens: same distribution,
random placement), ``loss`` (w = clip(NLL_t / mean NLL, 1, w_max): the hard tokens, Rho-1/focal
style) and ``oracle`` (w_max on the true personal tokens: the upper reference).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from icml26.core.validate import check_finite, check_int, check_positive
from icml26.nn.train import train_lm

TRANSFORMS = ("clip", "log")
REMOVALS = ("mask", "delete")
NORMALISE = ("weights", "tokens")
SCHEMES = ("ce", "perce", "random", "loss", "oracle")


def _check_tensor(name: str, x, ndim: int, dtype=None) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} is empty")
    if dtype == "float":
        if not x.is_floating_point():
            raise TypeError(f"{name} must be a float tensor, got {x.dtype}")
        check_finite(name, x)
    elif dtype == "bool" and x.dtype != torch.bool:
        raise TypeError(f"{name} must be a bool tensor, got {x.dtype}")
    elif dtype == "long" and x.dtype not in (torch.long, torch.int32, torch.int64):
        raise TypeError(f"{name} must be an integer tensor, got {x.dtype}")
    return x


def response_logprobs(model, ids: torch.Tensor, start: torch.Tensor, length: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities of the response tokens.

    ids (N, T) token ids; start (N,) index of the first response token; length (N,) response
    lengths. Returns ``logp`` (N, L) with L = max(length) (0 past the end) and ``valid`` (N, L) bool.
    The token at position p is scored by the logits at p - 1.
    """
    _check_tensor("ids", ids, 2, "long")
    _check_tensor("start", start, 1, "long")
    _check_tensor("length", length, 1, "long")
    n, t = ids.shape
    if start.shape[0] != n or length.shape[0] != n:
        raise ValueError(f"start and length must have {n} entries like ids, got {start.shape[0]} and {length.shape[0]}")
    if bool((start < 1).any()) or bool((start + length > t).any()) or bool((length < 1).any()):
        raise ValueError("start/length must describe response spans with 1 <= start and start + length <= ids.shape[1]")
    L = int(length.max())
    j = torch.arange(L)
    valid = j[None, :] < length[:, None]
    pos = (start[:, None] + j[None, :]).clamp(max=t - 1)  # (N, L) positions of the response tokens
    logits, _ = model(ids[:, :-1])
    pred = (pos - 1).clamp(max=logits.shape[1] - 1)
    tgt = ids.gather(1, pos)
    # the rows that score response tokens first, then the log-softmax over the vocabulary on those rows only
    # (seventh session, for budget: the same numbers, and gradients, as the log-softmax of every position)
    logq = F.log_softmax(logits.gather(1, pred[..., None].expand(-1, -1, logits.shape[-1])).float(), dim=-1)
    lp = logq.gather(2, tgt[..., None])[..., 0]  # (N, L)
    return lp * valid, valid


@torch.no_grad()
def personal_influence(model, ids: torch.Tensor, start: torch.Tensor, ids_without: torch.Tensor,
                       start_without: torch.Tensor, length: torch.Tensor, *,
                       logp_with: torch.Tensor | None = None) -> torch.Tensor:
    """PerContrast: log PIR (N, L) of every response token, with no gradient (0 past the end).

    ``ids``/``start`` hold the input with the user profile, ``ids_without``/``start_without`` the
    same response with the profile removed (masked or deleted). ``logp_with`` (N, L), when given,
    is :func:`response_logprobs` of ``ids`` already computed by the caller (the M-step's forward
    pass in :func:`train_weighted`): it is used instead of a second forward pass with the profile,
    which gives the same numbers for a model without dropout (TinyLM's default).
    """
    was_training = model.training
    model.eval()
    if logp_with is None:
        lp_u, valid = response_logprobs(model, ids, start, length)
    else:
        _check_tensor("logp_with", logp_with, 2, "float")
        valid = torch.arange(logp_with.shape[1])[None, :] < length[:, None]
        if logp_with.shape != (ids.shape[0], int(length.max())):
            raise ValueError(f"logp_with must have shape {(ids.shape[0], int(length.max()))} (N, max length), "
                             f"got {tuple(logp_with.shape)}")
        lp_u = logp_with.detach() * valid
    lp_0, _ = response_logprobs(model, ids_without, start_without, length)
    model.train(was_training)
    return (lp_u - lp_0) * valid


def perce_weights(log_pir: torch.Tensor, valid: torch.Tensor, *, transform: str = "clip", w_max: float = 5.0,
                  gamma: float = 1.0) -> torch.Tensor:
    """Token weights w = g(PIR) (N, L), 0 past the end; see the module docstring for ``transform``."""
    _check_tensor("log_pir", log_pir, 2, "float")
    _check_tensor("valid", valid, 2, "bool")
    if log_pir.shape != valid.shape:
        raise ValueError(f"log_pir {tuple(log_pir.shape)} and valid {tuple(valid.shape)} must have the same shape")
    if transform not in TRANSFORMS:
        raise ValueError(f"transform must be one of {TRANSFORMS}, got {transform!r}")
    w_max = check_positive("w_max", w_max)
    gamma = check_positive("gamma", gamma)
    if w_max < 1:
        raise ValueError(f"w_max must be >= 1, got {w_max}")
    if transform == "clip":
        w = log_pir.clamp(min=0.0, max=float(np.log(w_max))).exp()
    else:
        w = (1.0 + gamma * log_pir.clamp(min=0.0)).clamp(max=w_max)
    return w * valid


def loss_ratio_weights(nll: torch.Tensor, valid: torch.Tensor, *, w_max: float = 5.0) -> torch.Tensor:
    """Control: w = clip(NLL_t / mean NLL of its sequence, 1, w_max) (hard tokens up-weighted, Rho-1/focal style)."""
    _check_tensor("nll", nll, 2, "float")
    _check_tensor("valid", valid, 2, "bool")
    if nll.shape != valid.shape:
        raise ValueError(f"nll {tuple(nll.shape)} and valid {tuple(valid.shape)} must have the same shape")
    w_max = check_positive("w_max", w_max)
    mean = (nll * valid).sum(1, keepdim=True) / valid.sum(1, keepdim=True).clamp(min=1)
    return (nll / mean.clamp(min=1e-8)).clamp(min=1.0, max=w_max) * valid


def shuffled_weights(weights: torch.Tensor, valid: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """Control: the same multiset of weights placed at random response positions of the batch."""
    _check_tensor("weights", weights, 2, "float")
    _check_tensor("valid", valid, 2, "bool")
    if weights.shape != valid.shape:
        raise ValueError(f"weights {tuple(weights.shape)} and valid {tuple(valid.shape)} must have the same shape")
    out = torch.zeros_like(weights)
    vals = weights[valid]
    out[valid] = vals[torch.randperm(vals.numel(), generator=generator)]
    return out


def weighted_ce(logp: torch.Tensor, weights: torch.Tensor, valid: torch.Tensor, *, normalise: str = "weights") -> torch.Tensor:
    """PerCE: - sum w log p / sum w (``normalise="weights"``) or / number of tokens (``"tokens"``); weights detached."""
    _check_tensor("logp", logp, 2, "float")
    _check_tensor("weights", weights, 2, "float")
    _check_tensor("valid", valid, 2, "bool")
    if not (logp.shape == weights.shape == valid.shape):
        raise ValueError(f"logp {tuple(logp.shape)}, weights {tuple(weights.shape)} and valid {tuple(valid.shape)} "
                         "must have the same shape")
    if normalise not in NORMALISE:
        raise ValueError(f"normalise must be one of {NORMALISE}, got {normalise!r}")
    if bool((weights < 0).any()):
        raise ValueError("weights must be >= 0")
    w = weights.detach() * valid
    denom = w.sum() if normalise == "weights" else valid.sum()
    return -(w * logp).sum() / denom.clamp(min=1e-8)


def token_weights(scheme: str, model, batch, *, transform: str = "clip", w_max: float = 5.0, gamma: float = 1.0,
                  removal: str = "mask", generator: torch.Generator | None = None,
                  logp: torch.Tensor | None = None) -> torch.Tensor:
    """The E-step: weights (N, L) of one batch under ``scheme`` (one of :data:`SCHEMES`) with the current model.

    ``logp`` (N, L): the batch's response log-probabilities with the profile, if the caller has them
    (the M-step's forward pass); the loss-ratio and PerContrast weights then reuse them instead of
    running that forward pass again (same numbers without dropout)."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    if removal not in REMOVALS:
        raise ValueError(f"removal must be one of {REMOVALS}, got {removal!r}")
    valid = batch.valid
    if logp is not None:
        _check_tensor("logp", logp, 2, "float")
        if logp.shape != valid.shape:
            raise ValueError(f"logp {tuple(logp.shape)} must have the shape of the batch's responses {tuple(valid.shape)}")
    if scheme == "ce":
        return valid.float()
    if scheme == "oracle":
        return torch.where(batch.personal, float(w_max), 1.0) * valid
    if scheme == "loss":
        if logp is None:
            with torch.no_grad():
                lp, _ = response_logprobs(model, batch.ids, batch.start, batch.length)
        else:
            lp = logp.detach() * valid
        return loss_ratio_weights(-lp, valid, w_max=w_max)
    without, start_wo = ((batch.ids_masked, batch.start) if removal == "mask"
                         else (batch.ids_deleted, batch.start_deleted))
    lpir = personal_influence(model, batch.ids, batch.start, without, start_wo, batch.length, logp_with=logp)
    w = perce_weights(lpir, valid, transform=transform, w_max=w_max, gamma=gamma)
    return shuffled_weights(w, valid, generator) if scheme == "random" else w


def _lr_factor(step: int, *, steps: int, lr_warmup: int, schedule: str) -> float:
    """Multiplier of the base lr at ``step``: linear warm-up over ``lr_warmup`` steps, then constant
    (``schedule="constant"``) or a cosine decay to 10% at ``steps``.

    A module-level function since the third session: it was an inner function named ``schedule``,
    which shadowed the argument of that name, so ``schedule="constant"`` silently gave the cosine
    decay (the shared base was trained with a cosine over its 800-step horizon, stopped early)."""
    if step < lr_warmup:
        return (step + 1) / lr_warmup
    if schedule == "constant":
        return 1.0
    frac = (step - lr_warmup) / max(1, steps - lr_warmup)
    return 0.5 * (1 + float(np.cos(np.pi * frac))) * 0.9 + 0.1


def train_weighted(model, data, *, scheme: str = "perce", steps: int = 300, batch_size: int = 32, lr: float = 3e-3,
                   warmup_steps: int = 50, lr_warmup: int = 20, transform: str = "clip", w_max: float = 5.0,
                   gamma: float = 1.0, removal: str = "mask", normalise: str = "weights", schedule: str = "cosine",
                   seed: int = 0, on_step: Callable[[int, object], None] | None = None) -> dict:
    """Train ``model`` on ``data`` (a :class:`~icml26.alignment.percontrast.setting.Batch`) with one weighting scheme.

    The first ``warmup_steps`` steps are plain CE for every scheme (the paper's bootstrap needs a
    model that already reads u); afterwards each step re-estimates the batch's weights with the
    current model (E-step, drawing the random scheme's shuffle from the batch sampler's
    generator) and takes one AdamW step on :func:`weighted_ce` (M-step): the loop is
    :func:`icml26.nn.train.train_lm` with this loss as its hook (weight decay 0.01, grad clip 1).
    Learning rate: linear warm-up over ``lr_warmup`` steps, then cosine decay to 10% or, with
    ``schedule="constant"``, constant (:func:`_lr_factor`, this paper's float64 cosine, kept so
    that every result stays bit-identical). Returns the loss history and the weight each token
    kind received on average (after the warm-up).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    steps = check_int("steps", steps, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    warmup_steps = check_int("warmup_steps", warmup_steps, minimum=0)
    lr = check_positive("lr", lr)
    if schedule not in ("cosine", "constant"):
        raise ValueError(f"schedule must be 'cosine' or 'constant', got {schedule!r}")
    n = len(data)
    wsum, wcount = torch.zeros(4), torch.zeros(4)

    def draw(gen: torch.Generator):
        return data.subset(torch.randint(n, (min(batch_size, n),), generator=gen))

    def loss_fn(model, b, step: int, gen: torch.Generator) -> torch.Tensor:
        s = "ce" if step < warmup_steps else scheme
        lp, valid = response_logprobs(model, b.ids, b.start, b.length)  # one forward pass serves both steps
        w = token_weights(s, model, b, transform=transform, w_max=w_max, gamma=gamma, removal=removal, generator=gen,
                          logp=lp.detach())
        if step >= warmup_steps:
            for k in range(4):
                m = b.kinds == k
                wsum[k] += float(w[m].sum())
                wcount[k] += float(m.sum())
        return weighted_ce(lp, w, valid, normalise=normalise)

    losses = train_lm(model, draw, steps=steps, lr=lr, weight_decay=0.01, grad_clip=1.0, seed=int(seed),
                      on_step=on_step, loss_fn=loss_fn,
                      schedule=lambda step: _lr_factor(step, steps=steps, lr_warmup=lr_warmup, schedule=schedule))
    return {"loss": losses, "mean_weight_by_kind": (wsum / wcount.clamp(min=1)).tolist()}


def EXAMPLES():
    """(public function, good kwargs) pairs for the common bad-input test."""
    g = torch.Generator().manual_seed(0)
    lpir = torch.randn(3, 5, generator=g)
    valid = torch.ones(3, 5, dtype=torch.bool)
    logp = -torch.rand(3, 5, generator=g)
    w = torch.rand(3, 5, generator=g) + 0.5
    return [
        (perce_weights, {"log_pir": lpir, "valid": valid, "transform": "clip", "w_max": 5.0, "gamma": 1.0}),
        (loss_ratio_weights, {"nll": -logp, "valid": valid, "w_max": 5.0}),
        (weighted_ce, {"logp": logp, "weights": w, "valid": valid, "normalise": "weights"}),
        (shuffled_weights, {"weights": w, "valid": valid}),
    ]
