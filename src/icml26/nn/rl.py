"""GRPO / REINFORCE on sequences for small language models.

One step (``grpo_step``) samples ``group_size`` completions per prompt from the current
policy, scores them with a verifiable reward, computes group-normalised advantages

    A_i = (r_i - mean(r_group)) / (std(r_group) + eps)      (``scale_rewards=False``: no division)

and minimises the clipped surrogate with a KL penalty to a frozen reference (GRPO,
Shao et al. 2024; k3 estimator of the KL):

    ratio_t = exp(log pi(y_t) - log pi_old(y_t))
    l_t = -min(ratio_t A, clip(ratio_t, 1 - eps_low, 1 + eps_high) A) + beta * (exp(d_t) - d_t - 1),
    d_t = log pi_ref(y_t) - log pi(y_t)

aggregated per sequence then averaged (``"grpo"``), over all tokens of the batch
(``"token"``, DAPO's token-level loss; also ``"bnpo"``), or summed and divided by
``batch * max_len`` (``"dr_grpo"``). DAPO's clip-higher is ``eps_high > eps_low``; β = 0
removes the KL term (its value is still measured). :func:`grpo_loss` equals TRL's
``GRPOTrainer`` loss on the same batch (tested against TRL).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from icml26.core.validate import check_int, check_positive
from icml26.nn.lm import sample, token_logprobs

AGGREGATIONS = ("grpo", "token", "bnpo", "dr_grpo", "sequence")


def group_advantages(rewards: torch.Tensor, *, scale: bool = True, eps: float = 1e-4) -> torch.Tensor:
    """Group-normalised advantages of rewards (n_prompts, group_size), same shape.

    The standard deviation is the unbiased one (as ``torch.std``), like TRL's GRPO.
    """
    if not isinstance(rewards, torch.Tensor) or rewards.dim() != 2:
        raise ValueError(f"rewards must be a (n_prompts, group_size) tensor, got {getattr(rewards, 'shape', rewards)}")
    if rewards.shape[1] < 2:
        raise ValueError("rewards needs group_size >= 2 (a single sample has no group baseline)")
    if not bool(torch.isfinite(rewards).all()):
        raise ValueError("rewards contains NaN or inf")
    adv = rewards - rewards.mean(1, keepdim=True)
    if scale:
        adv = adv / (rewards.std(1, keepdim=True) + eps)
    return adv


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimate of KL(pi || pi_ref): exp(d) - d - 1 with d = ref - logp (>= 0)."""
    d = ref_logp - logp
    return torch.exp(d) - d - 1


def grpo_loss(logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
              ref_logp: torch.Tensor | None = None, beta: float = 0.0, eps_low: float = 0.2,
              eps_high: float | None = None, aggregation: str = "grpo", max_len: int | None = None,
              importance: str = "token") -> torch.Tensor:
    """The clipped GRPO surrogate (a scalar to minimise). Shapes: (batch, T) and advantages (batch,)."""
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {aggregation!r}")
    if importance not in ("token", "sequence"):
        raise ValueError(f"importance must be 'token' or 'sequence', got {importance!r}")
    if logp.shape != old_logp.shape or logp.shape != mask.shape or logp.dim() != 2:
        raise ValueError(f"logp, old_logp and mask must share one (batch, T) shape, got {tuple(logp.shape)}, "
                         f"{tuple(old_logp.shape)}, {tuple(mask.shape)}")
    if advantages.shape != (logp.shape[0],):
        raise ValueError(f"advantages must be (batch,) = ({logp.shape[0]},), got {tuple(advantages.shape)}")
    if beta < 0:
        raise ValueError(f"beta must be >= 0, got {beta}")
    if beta > 0 and ref_logp is None:
        raise ValueError("beta > 0 needs ref_logp")
    eps_high = eps_low if eps_high is None else eps_high
    m = mask.to(logp.dtype)
    log_ratio = logp - old_logp
    if importance == "sequence":
        log_ratio = ((log_ratio * m).sum(-1) / m.sum(-1).clamp(min=1.0))[:, None]
    ratio = torch.exp(log_ratio)
    a = advantages[:, None]
    per_token = -torch.min(ratio * a, torch.clamp(ratio, 1 - eps_low, 1 + eps_high) * a)
    if beta > 0:
        per_token = per_token + beta * kl_k3(logp, ref_logp)  # type: ignore[arg-type]
    per_token = per_token.expand_as(m) if per_token.shape != m.shape else per_token
    if aggregation in ("grpo", "sequence"):
        return ((per_token * m).sum(-1) / m.sum(-1).clamp(min=1.0)).mean()
    if aggregation in ("token", "bnpo"):
        return (per_token * m).sum() / m.sum().clamp(min=1.0)
    length = max_len if max_len is not None else logp.shape[1]
    return (per_token * m).sum() / (logp.shape[0] * length)


@dataclass
class GRPOConfig:
    group_size: int = 8
    max_new: int = 16
    lr: float = 1e-3
    beta: float = 0.0
    eps_low: float = 0.2
    eps_high: float | None = None
    aggregation: str = "grpo"
    scale_rewards: bool = True
    temperature: float = 1.0
    top_k: int | None = None
    eos_id: int | None = None
    pad_id: int = 0
    inner_steps: int = 1  # optimiser steps per sampled batch (ratio != 1 after the first)
    grad_clip: float | None = 1.0

    def __post_init__(self) -> None:
        check_int("group_size", self.group_size, minimum=2)
        check_int("max_new", self.max_new, minimum=1)
        check_positive("lr", self.lr)
        check_int("inner_steps", self.inner_steps, minimum=1)
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {self.aggregation!r}")


@dataclass
class StepStats:
    reward: float
    loss: float
    kl: float
    clip_fraction: float
    length: float


@dataclass
class GRPOHistory:
    steps: list[StepStats] = field(default_factory=list)

    def series(self, name: str) -> list[float]:
        return [getattr(s, name) for s in self.steps]


RewardFn = Callable[[Sequence[Any], list[list[int]]], Sequence[float]]


def grpo_update(policy: nn.Module, ref: nn.Module | None, opt: torch.optim.Optimizer,
                prompts: Sequence[Sequence[int]], completions: Sequence[Sequence[int]], rewards: torch.Tensor,
                cfg: GRPOConfig, *, loss_mask: Sequence[Sequence[bool]] | None = None) -> StepStats:
    """The GRPO update on already sampled groups: ``cfg.inner_steps`` optimiser steps.

    ``prompts`` and ``completions`` hold one row per sample, grouped: rows ``g*i .. g*i+g-1``
    (``g = cfg.group_size``) share a prompt. ``rewards`` is (n_samples,). ``loss_mask`` (one
    bool per completion token) drops tokens from the loss and from the KL, e.g. text a tool
    inserted into a multi-turn completion (Search-R1's masking of retrieved passages);
    by default every completion token counts.
    """
    g = cfg.group_size
    n = len(prompts)
    if len(completions) != n or n % g:
        raise ValueError(f"prompts and completions must hold the same number of rows, a multiple of group_size={g}; "
                         f"got {n} and {len(completions)}")
    rewards = torch.as_tensor(rewards, dtype=torch.float32)
    if rewards.shape != (n,):
        raise ValueError(f"rewards must have one entry per completion ({n}), got {tuple(rewards.shape)}")
    adv = group_advantages(rewards.view(n // g, g), scale=cfg.scale_rewards).view(-1)
    with torch.no_grad():
        old, mask = token_logprobs(policy, prompts, completions, pad_id=cfg.pad_id)
        ref_lp = token_logprobs(ref, prompts, completions, pad_id=cfg.pad_id)[0] if ref is not None else None
    if loss_mask is not None:
        if len(loss_mask) != n or any(len(m) != len(c) for m, c in zip(loss_mask, completions)):
            raise ValueError("loss_mask must hold one bool per completion token")
        extra = torch.zeros_like(mask)
        for i, m in enumerate(loss_mask):
            extra[i, :len(m)] = torch.as_tensor(list(m), dtype=torch.bool)
        mask = mask & extra
    policy.train()
    loss_v, clip = 0.0, 0.0
    for _ in range(cfg.inner_steps):
        logp, _ = token_logprobs(policy, prompts, completions, pad_id=cfg.pad_id)
        loss = grpo_loss(logp, old, adv, mask, ref_logp=ref_lp, beta=cfg.beta, eps_low=cfg.eps_low,
                         eps_high=cfg.eps_high, aggregation=cfg.aggregation, max_len=cfg.max_new)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.grad_clip:
            nn.utils.clip_grad_norm_([p for p in policy.parameters() if p.requires_grad], cfg.grad_clip)
        opt.step()
        loss_v = float(loss.detach())
        with torch.no_grad():
            r = torch.exp(logp.detach() - old)
            hi = cfg.eps_high if cfg.eps_high is not None else cfg.eps_low
            clip = float((((r < 1 - cfg.eps_low) | (r > 1 + hi)) & mask).float().sum() / mask.sum().clamp(min=1))
    policy.eval()
    with torch.no_grad():
        kl = 0.0
        if ref_lp is not None:
            logp, _ = token_logprobs(policy, prompts, completions, pad_id=cfg.pad_id)
            kl = float((kl_k3(logp, ref_lp) * mask).sum() / mask.sum().clamp(min=1))
    length = float(sum(len(c) for c in completions) / max(n, 1))
    return StepStats(float(rewards.mean()), loss_v, kl, clip, length)


def grpo_step(policy: nn.Module, ref: nn.Module | None, opt: torch.optim.Optimizer, prompts: Sequence[Sequence[int]],
              reward_fn: RewardFn, cfg: GRPOConfig, *, prompt_info: Sequence[Any] | None = None,
              generator: torch.Generator | None = None) -> StepStats:
    """One GRPO update on ``prompts``: sample groups, score, and take ``cfg.inner_steps`` optimiser steps.

    ``reward_fn(prompt_info, completions) -> rewards`` receives, per completion, the info of
    its prompt (``prompt_info[i]`` repeated ``group_size`` times, or the prompt ids) and the
    completion token ids.
    """
    g = cfg.group_size
    rep = [list(p) for p in prompts for _ in range(g)]
    info = [x for x in (prompt_info if prompt_info is not None else [list(p) for p in prompts]) for _ in range(g)]
    gen = sample(policy, rep, cfg.max_new, temperature=cfg.temperature, top_k=cfg.top_k, eos_id=cfg.eos_id,
                 pad_id=cfg.pad_id, generator=generator)
    comps = gen.as_lists()
    rewards = torch.tensor([float(r) for r in reward_fn(info, comps)], dtype=torch.float32)
    if rewards.shape != (len(rep),):
        raise ValueError(f"reward_fn returned {tuple(rewards.shape)} rewards for {len(rep)} completions")
    return grpo_update(policy, ref, opt, rep, comps, rewards, cfg)


def train_grpo(policy: nn.Module, prompts_fn: Callable[[torch.Generator], tuple[list[list[int]], list[Any]]],
               reward_fn: RewardFn, cfg: GRPOConfig, *, steps: int, seed: int = 0, ref: nn.Module | None = None,
               keep_reference: bool = True, params: Sequence[nn.Parameter] | None = None) -> GRPOHistory:
    """Run ``steps`` GRPO updates; ``prompts_fn(gen) -> (prompt ids, prompt infos)`` draws each batch.

    The reference is a frozen copy of the starting policy unless ``ref`` is given (or
    ``keep_reference=False`` and β = 0). ``params`` restricts the trainable parameters
    (e.g. LoRA adapters).
    """
    steps = check_int("steps", steps, minimum=1)
    gen = torch.Generator().manual_seed(int(seed))
    if ref is None and (keep_reference or cfg.beta > 0):
        ref = copy.deepcopy(policy).eval()
        for p in ref.parameters():
            p.requires_grad_(False)
    trainable = list(params) if params is not None else [p for p in policy.parameters() if p.requires_grad]
    opt = torch.optim.Adam(trainable, lr=cfg.lr)
    hist = GRPOHistory()
    for _ in range(steps):
        prompts, info = prompts_fn(gen)
        hist.steps.append(grpo_step(policy, ref, opt, prompts, reward_fn, cfg, prompt_info=info, generator=gen))
    return hist
