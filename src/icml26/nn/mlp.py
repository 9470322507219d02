"""One MLP builder and one training loop with early stopping and a returned loss history.

The history is what a training gate reads: a claim about a learned component is decided
only if, say, ``history[-1] <= history[0] / 2`` (see :func:`loss_drop`).

    net = mlp([4, 64, 64, 1], activation="tanh")
    res = fit(net, lambda m, b: ((m(b[0]) - b[1]) ** 2).mean(), batches, steps=500, lr=1e-3,
              val_loss=lambda m: float(((m(xv) - yv) ** 2).mean()), patience=50)
    res.history, res.val_history, res.best_step

Options a paper's loop needs, all off by default (the default loop is unchanged for Adam, AdamW
and SGD; ``optimizer="lbfgs"`` now gives its line search an evaluation budget, see :func:`fit`): a
reduce-on-plateau schedule (``schedule="plateau"``) and a one-cycle one (``"onecycle"``), a
relative improvement threshold for validation (``min_rel_improvement``), training only some
tensors (``params``), L-BFGS with several iterations per step (``lbfgs_iters``), and epochs of
shuffled minibatches (:func:`epoch_batches`, with :func:`epoch_means` for per-epoch losses).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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
    lr_reductions: int = 0  # reduce-on-plateau reductions made (schedule='plateau')

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


def epoch_batches(n: int, batch_size: int, *, global_rng: bool = False) -> Callable[[torch.Generator], torch.Tensor]:
    """A ``batches`` function for :func:`fit` that walks through epochs of ``n`` examples.

    At the start of every epoch it draws a permutation of ``range(n)`` (from the generator
    :func:`fit` passes it, i.e. ``torch.Generator().manual_seed(seed)``, or with ``global_rng``
    from torch's global RNG, drawn lazily so that it interleaves with the loss's own draws as
    in a hand-written loop) and returns its consecutive slices of ``batch_size`` indices, the
    last one shorter: ``ceil(n / batch_size)`` steps per epoch (:func:`steps_per_epoch`).

    The returned function keeps its place in the epoch between calls: make a fresh one for
    every :func:`fit` call (reusing one continues mid-epoch, with the old permutation).
    """
    n = check_int("n", n, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    per_epoch = steps_per_epoch(n, batch_size)
    state: dict[str, Any] = {"perm": None, "k": 0}

    def draw(gen: torch.Generator) -> torch.Tensor:
        k = state["k"] % per_epoch
        if k == 0:
            state["perm"] = torch.randperm(n) if global_rng else torch.randperm(n, generator=gen)
        state["k"] += 1
        return state["perm"][k * batch_size:(k + 1) * batch_size]

    return draw


def steps_per_epoch(n: int, batch_size: int) -> int:
    """``ceil(n / batch_size)``: the steps of one epoch of :func:`epoch_batches`."""
    n = check_int("n", n, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    return -(-n // batch_size)


def epoch_means(history: Sequence[float], n: int, batch_size: int) -> list[float]:
    """Per-epoch mean loss of a :func:`fit` history over :func:`epoch_batches`: each step's loss
    weighted by its batch's size (the last batch of an epoch is shorter), summed in step order,
    divided by ``n``. Only complete epochs are reported."""
    per_epoch = steps_per_epoch(n, batch_size)
    out = []
    for e in range(len(history) // per_epoch):
        total = 0.0
        for k, loss in enumerate(history[e * per_epoch:(e + 1) * per_epoch]):
            total += float(loss) * min(batch_size, n - k * batch_size)
        out.append(total / n)
    return out


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
        on_step: Callable[[int, nn.Module, float], None] | None = None,
        params: Iterable[torch.Tensor] | None = None, min_rel_improvement: float = 0.0,
        plateau_factor: float = 0.1, plateau_reductions: int = 3, pct_start: float = 0.3,
        lbfgs_iters: int = 1, lbfgs_options: Mapping[str, Any] | None = None) -> FitResult:
    """Train ``model`` by minimising ``loss_fn(model, batch)`` for ``steps`` optimiser steps.

    ``batches`` is a finite iterable (cycled) or a function ``generator -> batch``; the generator
    is ``torch.Generator().manual_seed(seed)``, drawn from only by that function.
    With ``val_loss`` the model is evaluated (in eval mode, without gradients) every ``val_every``
    steps and at the last step; a validation loss counts as an improvement when it is below the
    best so far (``min_rel_improvement = tol > 0``: below ``best * (1 - tol)``, for losses >= 0).
    With ``patience`` training stops once the validation loss has not improved for ``patience``
    steps. ``restore_best`` (default True): whenever ``val_loss`` is given, with or without
    ``patience``, the model ends with the weights of the best validation step, not the last.

    ``schedule``: ``constant``; ``cosine`` (``CosineAnnealingLR`` to 0 over ``steps``);
    ``onecycle`` (``OneCycleLR`` with ``max_lr = lr`` over ``steps``, rising for the fraction
    ``pct_start`` of them, torch's default 0.3); or ``plateau``
    (reduce-on-plateau, needs ``val_loss`` and ``patience``): when ``patience`` runs out the
    learning rate is multiplied by ``plateau_factor`` and the count restarts, at most
    ``plateau_reductions`` times; the next time it runs out training stops
    (``FitResult.lr_reductions`` counts the reductions made).

    ``params``: the tensors to optimise (leaf tensors with ``requires_grad``), e.g. only a
    readout; default every parameter of ``model`` that requires a gradient. ``grad_clip`` (a
    non-negative norm; None or 0: no clipping) clips their joint norm; a negative value raises
    ``ValueError`` (``clip_grad_norm_`` would scale by it and reverse the gradient).

    ``optimizer``: ``adam``, ``adamw``, ``sgd`` or ``lbfgs``; for ``lbfgs`` each step is one
    ``LBFGS.step`` of ``lbfgs_iters`` iterations (``max_iter``; strong-Wolfe line search) on that
    step's batch, and ``history`` holds the loss at the start of each step; ``grad_clip`` and
    ``weight_decay`` are not used with ``lbfgs`` (accepted and ignored). ``lbfgs_options`` are
    further ``torch.optim.LBFGS`` keyword arguments (``max_eval``, ``history_size``,
    ``tolerance_grad``, ``tolerance_change``, ``line_search_fn``, default ``"strong_wolfe"``);
    ``max_eval`` defaults to ``lbfgs_iters * 5 // 4 + 25`` (torch's own default,
    ``max_iter * 5 // 4``, leaves a step of one iteration no evaluations for its line search: it
    then takes the full quasi-Newton step unchecked and makes little progress; before issue 13
    ``lbfgs`` ran with that budget of one). Returns a :class:`FitResult`; the model is left in
    eval mode.
    """
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    val_every = check_int("val_every", val_every, minimum=1)
    if grad_clip is not None:  # validated, not converted (0 = no clipping)
        check_positive("grad_clip", grad_clip, strict=False)
    if patience is not None:
        patience = check_int("patience", patience, minimum=1)
        if val_loss is None:
            raise ValueError("patience needs val_loss (early stopping watches the validation loss)")
    if optimizer not in ("adam", "adamw", "sgd", "lbfgs"):
        raise ValueError(f"optimizer must be adam, adamw, sgd or lbfgs, got {optimizer!r}")
    if schedule not in _SCHEDULES:
        raise ValueError(f"schedule must be one of {list(_SCHEDULES)}, got {schedule!r}")
    tol = check_positive("min_rel_improvement", min_rel_improvement, strict=False)
    if not tol < 1:
        raise ValueError(f"min_rel_improvement must lie in [0, 1), got {min_rel_improvement!r}")
    if schedule == "plateau":
        if val_loss is None or patience is None:
            raise ValueError("schedule='plateau' needs val_loss and patience (it watches the validation loss)")
        factor = check_positive("plateau_factor", plateau_factor)
        if not factor < 1:
            raise ValueError(f"plateau_factor must lie in (0, 1), got {plateau_factor!r}")
        max_reductions = check_int("plateau_reductions", plateau_reductions, minimum=0)
    lbfgs_iters = check_int("lbfgs_iters", lbfgs_iters, minimum=1)
    if not (isinstance(pct_start, (int, float)) and not isinstance(pct_start, bool) and 0 < pct_start < 1):
        raise ValueError(f"pct_start must be a number in (0, 1), got {pct_start!r}")
    if lbfgs_options is not None:
        if not isinstance(lbfgs_options, Mapping):
            raise TypeError(f"lbfgs_options must be a mapping, got {type(lbfgs_options).__name__}")
        unknown = set(lbfgs_options) - _LBFGS_OPTIONS
        if unknown:
            raise ValueError(f"lbfgs_options: unknown keys {sorted(unknown)}; allowed {sorted(_LBFGS_OPTIONS)}")
        if optimizer != "lbfgs":
            raise ValueError("lbfgs_options are only used with optimizer='lbfgs'")
    gen = torch.Generator().manual_seed(int(seed))
    if params is None:
        params = [p for p in model.parameters() if p.requires_grad]
        if not params:
            raise ValueError("model has no trainable parameters")
    else:
        params = _check_params(params)
    if optimizer == "adam":
        opt: torch.optim.Optimizer = torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)
    elif optimizer == "adamw":
        opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    elif optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=lr, weight_decay=weight_decay)
    else:
        kw = {"max_eval": lbfgs_iters * 5 // 4 + 25, "line_search_fn": "strong_wolfe", **(lbfgs_options or {})}
        opt = torch.optim.LBFGS(params, lr=lr, max_iter=lbfgs_iters, **kw)
    if schedule == "cosine":
        sched: Any = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    elif schedule == "onecycle":
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=pct_start)
    else:
        sched = None
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
            if res.best_val is None or (v < res.best_val * (1 - tol) if tol else v < res.best_val):
                res.best_val, res.best_step, since_best = v, step, 0
                if restore_best:
                    best_state = copy.deepcopy(model.state_dict())
            else:
                since_best += val_every
                if patience is not None and since_best >= patience:
                    if schedule == "plateau" and res.lr_reductions < max_reductions:
                        res.lr_reductions += 1
                        since_best = 0
                        for group in opt.param_groups:
                            group["lr"] *= factor
                        continue
                    res.stopped_early = True
                    break
    if restore_best and best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    return res


_SCHEDULES = ("constant", "cosine", "onecycle", "plateau")
_LBFGS_OPTIONS = frozenset({"max_eval", "history_size", "tolerance_grad", "tolerance_change", "line_search_fn"})


def _check_params(params: Iterable[torch.Tensor]) -> list[torch.Tensor]:
    if isinstance(params, torch.Tensor) or not isinstance(params, Iterable):
        raise TypeError(f"params must be an iterable of tensors, got {type(params).__name__}")
    out = list(params)
    if not out:
        raise ValueError("params is empty (nothing to train)")
    for i, p in enumerate(out):
        if not isinstance(p, torch.Tensor):
            raise TypeError(f"params[{i}] must be a torch tensor, got {type(p).__name__}")
        if not (p.requires_grad and p.is_leaf):
            raise ValueError(f"params[{i}] must be a leaf tensor with requires_grad=True")
    return out
