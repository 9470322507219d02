"""A plain next-token training loop for :class:`~icml26.nn.transformer.TinyLM` (or any LM with its signature)."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn


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


def train_lm(model: nn.Module, sample_batch: Callable[[torch.Generator], torch.Tensor], *, steps: int,
             lr: float = 3e-3, weight_decay: float = 0.01, warmup: int = 20, grad_clip: float = 1.0,
             pad_id: int | None = None, seed: int = 0, log_every: int = 0,
             on_step: Callable[[int, nn.Module], None] | None = None) -> list[float]:
    """Train with AdamW, linear warm-up then cosine decay; returns the loss of every step.

    ``sample_batch(generator) -> (batch, seq)`` long tensor draws one training batch; it may also
    return ``(batch, target)`` with ``target`` (batch, seq - 1) labels, -100 where ignored.
    ``on_step(step, model)``, optional, runs after every optimiser step (e.g. to evaluate
    checkpoints); the model is back in training mode afterwards.
    """
    if steps < 1:
        raise ValueError(f"steps must be >= 1, got {steps}")
    if lr <= 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)

    def schedule(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        frac = (step - warmup) / max(1, steps - warmup)
        return 0.5 * (1 + torch.cos(torch.tensor(torch.pi * frac)).item()) * 0.9 + 0.1

    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)
    model.train()
    losses = []
    for step in range(steps):
        batch = sample_batch(gen)
        if isinstance(batch, tuple):
            loss = lm_loss(model, batch[0], pad_id, target=batch[1])
        else:
            loss = lm_loss(model, batch, pad_id)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip:
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
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
