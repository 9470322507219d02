"""One MLP builder and one training loop with early stopping and a returned loss history.

The history is what a training gate reads: a claim about a learned component is decided
only if, say, ``history[-1] <= history[0] / 2`` (see :func:`loss_drop`).

    net = mlp([4, 64, 64, 1], activation="tanh")
    res = fit(net, lambda m, b: ((m(b[0]) - b[1]) ** 2).mean(), batches, steps=500, lr=1e-3,
              val_loss=lambda m: float(((m(xv) - yv) ** 2).mean()), patience=50)
    res.history, res.val_history, res.best_step
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import cycle
from typing import Any

import torch
from torch import nn

from icml26.core.validate import check_int, check_positive

_ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU, "silu": nn.SiLU, "sigmoid": nn.Sigmoid,
    "softplus": nn.Softplus, "elu": nn.ELU, "identity": nn.Identity,
}


def mlp(sizes: Sequence[int], *, activation: str = "relu", dropout: float = 0.0, out_activation: str | None = None,
        layer_norm: bool = False, bias: bool = True, dtype: torch.dtype | None = None) -> nn.Sequential:
    """A multilayer perceptron ``sizes[0] -> sizes[1] -> ... -> sizes[-1]``.

    Hidden layers are Linear -> (LayerNorm) -> activation -> (Dropout); the last layer is
    Linear, optionally followed by ``out_activation``.
    """
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or len(sizes) < 2:
        raise ValueError(f"sizes must be a sequence of at least two layer widths, got {sizes!r}")
    widths = [check_int(f"sizes[{i}]", s, minimum=1) for i, s in enumerate(sizes)]
    for name, act in (("activation", activation), ("out_activation", out_activation)):
        if act is not None and act not in _ACTIVATIONS:
            raise ValueError(f"{name} must be one of {sorted(_ACTIVATIONS)}, got {act!r}")
    if not (isinstance(dropout, (int, float)) and 0.0 <= dropout < 1.0):
        raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
        layers.append(nn.Linear(a, b, bias=bias, dtype=dtype))
        if i < len(widths) - 2:
            if layer_norm:
                layers.append(nn.LayerNorm(b, dtype=dtype))
            layers.append(_ACTIVATIONS[activation]())
            if dropout:
                layers.append(nn.Dropout(dropout))
    if out_activation is not None:
        layers.append(_ACTIVATIONS[out_activation]())
    return nn.Sequential(*layers)


@dataclass
class FitResult:
    """What :func:`fit` did: the loss of every step, the validation losses, and where it stopped."""

    history: list[float] = field(default_factory=list)
    val_history: list[tuple[int, float]] = field(default_factory=list)  # (step, validation loss)
    best_step: int | None = None
    best_val: float | None = None
    stopped_early: bool = False

    @property
    def steps(self) -> int:
        return len(self.history)


def loss_drop(history: Sequence[float], window: int = 10) -> float:
    """Ratio of the mean loss of the first ``window`` steps to that of the last ``window`` (> 1: it fell)."""
    window = check_int("window", window, minimum=1)
    h = [float(x) for x in history if math.isfinite(float(x))]
    if len(h) < 2:
        return float("nan")
    w = min(window, max(1, len(h) // 2))
    first, last = sum(h[:w]) / w, sum(h[-w:]) / w
    return first / last if last > 0 else float("inf")


def _batches(batches: Iterable[Any] | Callable[[torch.Generator], Any], gen: torch.Generator) -> Iterator[Any]:
    if callable(batches):
        while True:
            yield batches(gen)
    else:
        data = list(batches)
        if not data:
            raise ValueError("batches is empty")
        yield from cycle(data)


def fit(model: nn.Module, loss_fn: Callable[[nn.Module, Any], torch.Tensor],
        batches: Iterable[Any] | Callable[[torch.Generator], Any], *, steps: int, lr: float = 1e-3,
        optimizer: str = "adam", weight_decay: float = 0.0, grad_clip: float | None = None,
        val_loss: Callable[[nn.Module], float] | None = None, val_every: int = 10, patience: int | None = None,
        restore_best: bool = True, seed: int = 0, schedule: str = "constant",
        on_step: Callable[[int, nn.Module, float], None] | None = None) -> FitResult:
    """Train ``model`` by minimising ``loss_fn(model, batch)`` for ``steps`` optimiser steps.

    ``batches`` is a finite iterable (cycled) or a function ``generator -> batch``.
    With ``val_loss`` the model is evaluated every ``val_every`` steps; with ``patience``
    training stops once the validation loss has not improved for ``patience`` steps, and
    (``restore_best``) the best weights are restored. ``schedule``: ``constant`` or
    ``cosine``. Returns a :class:`FitResult`; the model is left in eval mode.
    """
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    val_every = check_int("val_every", val_every, minimum=1)
    if patience is not None:
        patience = check_int("patience", patience, minimum=1)
        if val_loss is None:
            raise ValueError("patience needs val_loss (early stopping watches the validation loss)")
    if optimizer not in ("adam", "adamw", "sgd", "lbfgs"):
        raise ValueError(f"optimizer must be adam, adamw, sgd or lbfgs, got {optimizer!r}")
    if schedule not in ("constant", "cosine"):
        raise ValueError(f"schedule must be 'constant' or 'cosine', got {schedule!r}")
    gen = torch.Generator().manual_seed(int(seed))
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("model has no trainable parameters")
    if optimizer == "adam":
        opt: torch.optim.Optimizer = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    elif optimizer == "adamw":
        opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    elif optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=lr, weight_decay=weight_decay)
    else:
        opt = torch.optim.LBFGS(params, lr=lr, max_iter=1, line_search_fn="strong_wolfe")
    sched = (torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps) if schedule == "cosine" else None)
    res = FitResult()
    best_state: dict[str, torch.Tensor] | None = None
    since_best = 0
    model.train()
    it = _batches(batches, gen)
    for step in range(steps):
        batch = next(it)
        if optimizer == "lbfgs":
            def closure() -> torch.Tensor:
                opt.zero_grad(set_to_none=True)
                loss_ = loss_fn(model, batch)
                loss_.backward()
                return loss_

            loss = opt.step(closure)
        else:
            loss = loss_fn(model, batch)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if grad_clip:
                nn.utils.clip_grad_norm_(params, grad_clip)
            opt.step()
        if sched is not None:
            sched.step()
        res.history.append(float(loss.detach()))
        if on_step is not None:
            on_step(step, model, res.history[-1])
        if val_loss is not None and ((step + 1) % val_every == 0 or step == steps - 1):
            model.eval()
            with torch.no_grad():
                v = float(val_loss(model))
            model.train()
            res.val_history.append((step, v))
            if res.best_val is None or v < res.best_val:
                res.best_val, res.best_step, since_best = v, step, 0
                if restore_best:
                    best_state = copy.deepcopy(model.state_dict())
            else:
                since_best += val_every
                if patience is not None and since_best >= patience:
                    res.stopped_early = True
                    break
    if restore_best and best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return res
