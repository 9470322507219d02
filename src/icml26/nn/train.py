"""A plain next-token training loop for :class:`~icml26.nn.transformer.TinyLM` (or any LM with its signature).

:func:`train_lm` is the house's one LM training loop: AdamW, a linear warm-up, then a cosine
decay to 10% (``schedule="cosine"``, the default), a constant lr (``"constant"``) or any
per-step lr factor a paper needs (a callable); the loss is the next-token cross-entropy
(:func:`lm_loss`) unless a ``loss_fn`` hook replaces it (a masked, weighted or otherwise
paper-specific loss on whatever ``sample_batch`` returns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from icml26.core.validate import check_int, check_positive

#: The named lr schedules of :func:`train_lm` (a callable ``step -> factor`` is accepted too).
SCHEDULES = ("cosine", "constant")


def lm_loss(model: nn.Module, batch: torch.Tensor, pad_id: int | None = None,
            target: torch.Tensor | None = None) -> torch.Tensor:
    """Mean next-token cross-entropy of ``batch`` (batch, seq); positions whose target is ``pad_id`` are ignored.

    ``target`` (batch, seq - 1), optional, replaces the shifted batch as the labels; entries -100
    are ignored (e.g. to score only the answer tokens of a recall task).
    """
    logits, _ = model(batch[:, :-1])
    if target is None:
        target = batch[:, 1:]
    elif target.shape != (batch.shape[0], batch.shape[1] - 1):
        raise ValueError(f"target must be (batch, seq - 1) = {(batch.shape[0], batch.shape[1] - 1)}, "
                         f"got {tuple(target.shape)}")
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1),
                           ignore_index=-100 if pad_id is None else pad_id)


def lr_factor(step: int, *, steps: int, warmup: int, schedule: str = "cosine") -> float:
    """The multiplier of the base lr at (0-based) ``step`` under a named schedule of :func:`train_lm`.

    Both schedules warm up linearly, ``(step + 1) / warmup`` for ``step < warmup``; then
    ``"constant"`` stays at 1 and ``"cosine"`` decays along a half cosine from 1 to 0.1 at
    ``steps`` (computed in float32 through ``torch.cos``, as the loop always has: the factor is
    part of every result trained with it, bit for bit).

    The arguments are not validated (:func:`train_lm` validates its own before calling it): the
    factor is meant for ``0 <= step < steps`` and ``warmup >= 0``; past ``steps`` the cosine
    rises again, e.g. ``lr_factor(10, steps=5, warmup=2)`` is 0.325.
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES} or a callable, got {schedule!r}")
    if step < warmup:
        return (step + 1) / warmup
    if schedule == "constant":
        return 1.0
    frac = (step - warmup) / max(1, steps - warmup)
    return 0.5 * (1 + torch.cos(torch.tensor(torch.pi * frac)).item()) * 0.9 + 0.1


def train_lm(model: nn.Module, sample_batch: Callable[[torch.Generator], Any], *, steps: int,
             lr: float = 3e-3, weight_decay: float = 0.01, warmup: int = 20, grad_clip: float | None = 1.0,
             pad_id: int | None = None, seed: int = 0, log_every: int = 0,
             on_step: Callable[[int, nn.Module], None] | None = None,
             schedule: str | Callable[[int], float] = "cosine",
             loss_fn: Callable[[nn.Module, Any, int, torch.Generator], torch.Tensor] | None = None,
             params: Iterable[torch.Tensor] | Iterable[dict[str, Any]] | None = None,
             betas: tuple[float, float] = (0.9, 0.999),
             generator: torch.Generator | None = None) -> list[float]:
    """Train with AdamW and a warm-up + decay lr schedule; returns the loss of every step.

    ``sample_batch(generator) -> (batch, seq)`` long tensor draws one training batch; it may also
    return ``(batch, target)`` with ``target`` (batch, seq - 1) labels, -100 where ignored.
    ``generator`` is one ``torch.Generator`` for the whole run (seeded with ``seed``, or the caller's
    ``generator=``, below).

    ``schedule``: ``"cosine"`` (linear warm-up over ``warmup`` steps, then a cosine decay to 0.1
    lr at ``steps``), ``"constant"`` (the same warm-up, then lr; ``warmup=0``: lr throughout),
    or a callable ``step -> factor`` (0-based step; the lr is ``lr * factor``, ``warmup`` is then
    unused) for a paper's own schedule (see :func:`lr_factor`).

    ``loss_fn(model, batch, step, generator) -> scalar tensor``, optional, replaces
    :func:`lm_loss`: it receives whatever ``sample_batch`` returned (any object), the 0-based
    step and the same generator ``sample_batch`` draws from (so a loss that samples, such as an
    E-step, continues the one stream); ``pad_id`` is then unused.

    ``on_step(step, model)``, optional, runs after every optimiser step (e.g. to evaluate
    checkpoints); the model is back in training mode afterwards.

    ``params``, optional: what AdamW trains, either tensors (e.g. only a new adapter, the rest
    left as it is) or AdamW parameter groups, dicts with a ``"params"`` list and their own
    options (e.g. weight decay on matrices only: ``[{"params": mats, "weight_decay": 0.1},
    {"params": rest, "weight_decay": 0.0}]``; a group's ``"params"`` may be any iterable, a
    generator such as ``model.parameters()`` included, and its options are checked: ``lr``,
    ``betas``, ``eps``, ``weight_decay``, ``amsgrad``); default all of ``model.parameters()`` (those
    without a gradient, such as a LoRA model's frozen base, are skipped by AdamW). ``betas`` are
    AdamW's. Gradients of the trained tensors are clipped together to norm ``grad_clip`` (0 or
    None: no clipping), taken in ``model.parameters()`` order (tensors outside the model last).

    ``generator``, optional: an existing ``torch.Generator`` to draw batches from (the caller's
    stream continues, and ``seed`` is unused); default a fresh one seeded with ``seed``.
    ``seed`` and ``log_every`` are not validated. The model is left in eval mode.
    """
    # validated, never converted: the values feed the lr factor as given (bit-identical results)
    check_int("steps", steps, minimum=1)
    check_positive("lr", lr)
    check_int("warmup", warmup, minimum=0)
    check_positive("weight_decay", weight_decay, strict=False)
    if grad_clip is not None:
        check_positive("grad_clip", grad_clip, strict=False)
    if not callable(sample_batch):
        raise TypeError(f"sample_batch must be callable, got {type(sample_batch).__name__}")
    for name, fn in (("on_step", on_step), ("loss_fn", loss_fn)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name} must be callable or None, got {type(fn).__name__}")
    if callable(schedule):
        factor = schedule
    elif isinstance(schedule, str) and schedule in SCHEDULES:
        def factor(step: int) -> float:
            return lr_factor(step, steps=steps, warmup=warmup, schedule=schedule)
    else:
        raise ValueError(f"schedule must be one of {SCHEDULES} or a callable step -> factor, got {schedule!r}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    if (not isinstance(betas, (tuple, list)) or len(betas) != 2
            or not all(isinstance(b, (int, float)) and not isinstance(b, bool) and 0 <= b < 1 for b in betas)):
        raise ValueError(f"betas must be two numbers in [0, 1), got {betas!r}")
    groups, trained = _param_groups(model, params)
    gen = torch.Generator().manual_seed(seed) if generator is None else generator
    opt = torch.optim.AdamW(groups, lr=lr, weight_decay=weight_decay, betas=(float(betas[0]), float(betas[1])))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    model.train()
    losses = []
    for step in range(steps):
        batch = sample_batch(gen)
        if loss_fn is not None:
            loss = loss_fn(model, batch, step, gen)
        elif isinstance(batch, tuple):
            loss = lm_loss(model, batch[0], pad_id, target=batch[1])
        else:
            loss = lm_loss(model, batch, pad_id)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip:
            nn.utils.clip_grad_norm_(trained, grad_clip)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if on_step is not None:
            on_step(step, model)
            model.train()
        if log_every and step % log_every == 0:
            print(f"step {step}: loss {losses[-1]:.4f}")
    model.eval()
    return losses


#: The options an AdamW parameter group of :func:`train_lm`'s ``params=`` may set.
_GROUP_KEYS = frozenset({"params", "lr", "betas", "eps", "weight_decay", "amsgrad"})


def _param_groups(model: nn.Module, params: Any) -> tuple[Any, list[torch.Tensor]]:
    """(what AdamW gets, the trained tensors in clipping order) for :func:`train_lm`'s ``params``."""
    if params is None:
        return model.parameters(), list(model.parameters())
    if isinstance(params, (torch.Tensor, dict)) or not isinstance(params, Iterable):
        raise TypeError(f"params must be an iterable of tensors or of parameter-group dicts, got {type(params).__name__}")
    items = list(params)
    if not items:
        raise ValueError("params is empty (nothing to train)")
    if all(isinstance(g, dict) for g in items):
        flat = []
        groups: Any = []
        for i, g in enumerate(items):
            if "params" not in g:
                raise ValueError(f"params[{i}] is a parameter group without a 'params' entry")
            unknown = set(g) - _GROUP_KEYS
            if unknown:
                raise ValueError(f"params[{i}]: unknown AdamW group option(s) {sorted(unknown)}; "
                                 f"allowed {sorted(_GROUP_KEYS)}")
            for key in ("lr", "weight_decay", "eps"):
                if key in g:
                    check_positive(f"params[{i}]['{key}']", g[key], strict=key != "weight_decay")
            ts = [g["params"]] if isinstance(g["params"], torch.Tensor) else list(g["params"])
            flat += ts
            groups.append({**g, "params": ts})  # the list just read: a generator given there is used up
    elif any(isinstance(g, dict) for g in items):
        raise TypeError("params must be all tensors or all parameter-group dicts, not a mix")
    else:
        flat = groups = items
    for i, t in enumerate(flat):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"params: entry {i} must be a torch tensor, got {type(t).__name__}")
        if not (t.requires_grad and t.is_leaf):
            raise ValueError(f"params: entry {i} must be a leaf tensor with requires_grad=True")
    ids = {id(t) for t in flat}
    in_model = [q for q in model.parameters() if id(q) in ids]
    seen = {id(q) for q in in_model}
    return groups, in_model + [t for t in flat if id(t) not in seen]
