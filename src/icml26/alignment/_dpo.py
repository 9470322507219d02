"""One preference-training loop: DPO / IPO / SimPO (or a paper's own pair loss) on TinyLM sequence log-probs.

Several papers fine-tune a small language model on (prompt, chosen, rejected) token-id triples
against a frozen reference: RePO (its regret losses and the DPO-style controls), ConG (sigmoid
DPO of the weak and of the strong model), MASH (DPO on knowledge-boundary labels). They share
this module's two pieces:

* :func:`train_loop` -- the minibatch loop itself: draw ``batch`` indices of ``n`` examples from
  a seeded ``torch.Generator`` (with replacement, ``torch.randint``; or the first ``batch`` of a
  fresh permutation, ``torch.randperm``), call ``batch_loss(idx, progress)``, average it if it is
  per example, ``zero_grad`` / ``backward`` / clip the gradient norm / step Adam or AdamW (with an
  optional 10% linear warm-up then cosine decay), and record the loss. It returns the loss
  history, so a training gate can read whether the loss fell. Any minibatch objective fits
  (ConG's SFT baselines use it too).
* :func:`train_preference` -- the pair trainer on top of it: the reference's per-token
  log-probabilities (:func:`icml26.nn.lm.token_logprobs`, no gradient) once for all pairs or per
  batch, the policy's on each batch, optional per-token loss masks (tool-inserted text), and the
  loss: ``"dpo"``, ``"ipo"``, ``"simpo"`` (the summed log-probabilities of
  :mod:`icml26.alignment._preferences`' losses: :func:`~icml26.alignment._preferences.dpo_loss`
  and :func:`~icml26.alignment._preferences.ipo_loss` equal TRL's) or a callable that receives a
  :class:`PairBatch` of token-level tensors and returns the per-pair loss (a paper's own loss,
  such as RePO's, which needs the behaviour policy's log-probabilities).

At step 0, with the policy equal to the reference, the DPO loss is ``log 2`` and the IPO loss
``(1 / (2 beta))^2`` -- for a model without dropout: the loop runs the policy in training mode
and the default reference in eval mode.

The house has three such loops, each kept bit-identical to the papers that moved onto it, and
their schedules do not mean the same thing: here ``schedule="warmup_cosine"`` (10% warm-up,
cosine to 0); :func:`icml26.nn.train.train_lm` has ``"cosine"`` (a warm-up of ``warmup`` steps,
cosine to 0.1); :func:`icml26.nn.mlp.fit` has ``"cosine"`` (``CosineAnnealingLR`` to 0, no
warm-up). Gradient clipping is ``grad_clip`` in all three, with the same meaning: the bound on
the global gradient norm, ``None`` or 0 for no clipping, a negative bound refused.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from icml26.alignment._preferences import dpo_loss, ipo_loss, simpo_loss
from icml26.core.validate import check_int, check_positive

__all__ = ["LOSSES", "SAMPLERS", "OPTIMIZERS", "SCHEDULES", "PairBatch", "pair_sums", "train_loop",
           "train_preference"]

#: the named pair losses of :func:`train_preference`
LOSSES = ("dpo", "ipo", "simpo")
#: how :func:`train_loop` draws a batch: ``torch.randint`` (with replacement) or ``torch.randperm``'s first ``batch``
SAMPLERS = ("replacement", "permutation")
OPTIMIZERS = ("adam", "adamw")
#: ``constant`` lr, or ``warmup_cosine``: linear warm-up over ``max(1, steps // 10)`` steps, then cosine decay to 0
SCHEDULES = ("constant", "warmup_cosine")


@dataclass(frozen=True)
class PairBatch:
    """One batch of pairs at token level, as a callable loss of :func:`train_preference` receives it.

    ``idx`` (b,): the pairs' indices; ``policy_*`` (b, T): per-token log-probabilities of the
    chosen / rejected response under the policy (differentiable); ``ref_*`` (b, T): the same
    under the reference (no gradient); ``mask_*`` (b, T) bool: the tokens that count (the
    response's tokens, less any masked by a loss mask); ``progress``: step / steps.
    """

    idx: torch.Tensor
    policy_chosen: torch.Tensor
    policy_rejected: torch.Tensor
    ref_chosen: torch.Tensor
    ref_rejected: torch.Tensor
    mask_chosen: torch.Tensor
    mask_rejected: torch.Tensor
    progress: float = 0.0


def pair_sums(b: PairBatch) -> tuple[torch.Tensor, ...]:
    """Masked sequence sums of a batch: (policy chosen, policy rejected, ref chosen, ref rejected,
    |chosen|, |rejected|), each (b,), the lengths counting only unmasked tokens."""
    if not isinstance(b, PairBatch):
        raise TypeError(f"b must be a PairBatch, got {type(b).__name__}")
    mc, mr = b.mask_chosen.float(), b.mask_rejected.float()
    return ((b.policy_chosen * mc).sum(1), (b.policy_rejected * mr).sum(1), (b.ref_chosen * mc).sum(1),
            (b.ref_rejected * mr).sum(1), mc.sum(1), mr.sum(1))


def _named_loss(kind: str, b: PairBatch, beta: float, gamma: float) -> torch.Tensor:
    pc, pr, rc, rr, lc, lr = pair_sums(b)
    if kind == "dpo":
        return dpo_loss(pc, pr, rc, rr, beta=beta)
    if kind == "ipo":
        return ipo_loss(pc, pr, rc, rr, lc, lr, beta=beta)
    return simpo_loss(pc, pr, lc, lr, beta=beta, gamma=gamma)


def _grad_clip(grad_clip: Any) -> float | None:
    """``grad_clip`` checked: a float norm bound, or ``None`` for no clipping (given as ``None`` or 0,
    as in :func:`icml26.nn.train.train_lm` and :func:`icml26.nn.mlp.fit`); negative is refused."""
    if grad_clip is None:
        return None
    bound = check_positive("grad_clip", grad_clip, strict=False)
    return bound if bound > 0 else None


def _settings(steps: Any, batch: Any, lr: Any, seed: Any, sampler: Any, optimizer: Any, weight_decay: Any,
              schedule: Any, grad_clip: Any) -> dict:
    out = {"steps": check_int("steps", steps, minimum=1), "batch": check_int("batch", batch, minimum=1),
           "lr": check_positive("lr", lr), "seed": check_int("seed", seed, minimum=0),
           "weight_decay": check_positive("weight_decay", weight_decay, strict=False),
           "grad_clip": _grad_clip(grad_clip)}
    for name, value, allowed in (("sampler", sampler, SAMPLERS), ("optimizer", optimizer, OPTIMIZERS),
                                 ("schedule", schedule, SCHEDULES)):
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        out[name] = value
    return out


def _run(model: torch.nn.Module, n: int, batch_loss: Callable, s: dict) -> list[float]:
    steps, batch = s["steps"], s["batch"]
    gen = torch.Generator().manual_seed(s["seed"])
    if s["optimizer"] == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=s["lr"], weight_decay=s["weight_decay"])
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=s["lr"], weight_decay=s["weight_decay"])
    sched = None
    if s["schedule"] == "warmup_cosine":
        warm = max(1, steps // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda t: (t + 1) / warm if t < warm
            else 0.5 * (1 + np.cos(np.pi * (t - warm) / max(1, steps - warm))))
    model.train()
    hist = []
    for step in range(steps):
        if s["sampler"] == "replacement":
            idx = torch.randint(0, n, (min(batch, n),), generator=gen)
        else:
            idx = torch.randperm(n, generator=gen)[:min(batch, n)]
        out = batch_loss(idx, step / steps)
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"batch_loss must return a tensor, got {type(out).__name__}")
        loss = out.mean() if out.dim() > 0 else out
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if s["grad_clip"] is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), s["grad_clip"])
        opt.step()
        if sched is not None:
            sched.step()
        hist.append(float(loss.detach()))
    model.eval()
    return hist


def train_loop(model: torch.nn.Module, n: int, batch_loss: Callable[[torch.Tensor, float], torch.Tensor], *,
               steps: int, batch: int, lr: float, seed: int = 0, sampler: str = "replacement",
               optimizer: str = "adam", weight_decay: float = 0.0, schedule: str = "constant",
               grad_clip: float | None = 1.0) -> list[float]:
    """Train ``model`` in place for ``steps`` minibatch steps; returns the loss of every step.

    ``batch_loss(idx, progress)`` gets the batch's indices into the ``n`` examples (a long
    tensor of ``min(batch, n)`` entries, drawn per ``sampler`` from a generator seeded with
    ``seed``) and ``step / steps``, and returns a scalar loss or a per-example loss (averaged).
    ``optimizer``: ``adam`` or ``adamw`` with ``weight_decay``; ``schedule``: ``constant`` or
    ``warmup_cosine``; ``grad_clip``: the gradient-norm bound (``None`` or 0: no clipping). The model is
    put in training mode for the loop and in eval mode after it.
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    n = check_int("n", n, minimum=1)
    if not callable(batch_loss):
        raise TypeError(f"batch_loss must be callable, got {type(batch_loss).__name__}")
    s = _settings(steps, batch, lr, seed, sampler, optimizer, weight_decay, schedule, grad_clip)
    return _run(model, n, batch_loss, s)


def _as_ids(name: str, rows: Any) -> list[torch.Tensor]:
    """Token-id rows (a 2-D integer tensor/array or a sequence of integer sequences) as 1-D long tensors."""
    if isinstance(rows, (str, bytes)) or rows is None:
        raise TypeError(f"{name} must be a sequence of token-id sequences, got {type(rows).__name__}")
    if isinstance(rows, (torch.Tensor, np.ndarray)) and np.ndim(rows) != 2:
        raise ValueError(f"{name} must be 2-D (pairs, length) or a list of sequences, got {np.ndim(rows)}-D")
    if not isinstance(rows, (torch.Tensor, np.ndarray, Sequence)):
        raise TypeError(f"{name} must be a sequence of token-id sequences, got {type(rows).__name__}")
    if len(rows) == 0:
        raise ValueError(f"{name} is empty")
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, (str, bytes)):
            raise TypeError(f"{name}[{i}] must be token ids, got {type(r).__name__}")
        try:
            t = torch.as_tensor(r)
        except (TypeError, ValueError, RuntimeError) as e:
            raise TypeError(f"{name}[{i}] must be a sequence of token ids: {e}") from None
        if t.dim() != 1 or t.numel() == 0:
            raise ValueError(f"{name}[{i}] must be a non-empty 1-D sequence of token ids")
        if t.dtype == torch.bool or t.is_floating_point() or t.is_complex():
            raise TypeError(f"{name}[{i}] must hold integer token ids, got dtype {t.dtype}")
        if bool((t < 0).any()):
            raise ValueError(f"{name}[{i}] holds negative token ids")
        out.append(t.long())
    return out


def _as_masks(name: str, masks: Any, responses: list[torch.Tensor]) -> torch.Tensor | None:
    """Per-response loss masks -> (n, T) bool (False beyond a mask's end), or None."""
    if masks is None:
        return None
    if isinstance(masks, (str, bytes)) or not isinstance(masks, (Sequence, np.ndarray, torch.Tensor)):
        raise TypeError(f"{name} must be a sequence of per-token bool sequences, got {type(masks).__name__}")
    if len(masks) != len(responses):
        raise ValueError(f"{name} must have one mask per response: {len(masks)} vs {len(responses)}")
    out = torch.zeros(len(responses), max(len(r) for r in responses), dtype=torch.bool)
    for i, (m, r) in enumerate(zip(masks, responses)):
        if isinstance(m, (str, bytes)):
            raise TypeError(f"{name}[{i}] must be a 1-D sequence of bools, got {type(m).__name__}")
        t = torch.as_tensor(m)
        if t.dim() != 1:
            raise ValueError(f"{name}[{i}] must be a 1-D sequence of bools, got {t.dim()}-D")
        if t.numel() == 0:
            continue
        if t.dtype not in (torch.bool, torch.uint8, torch.int64, torch.int32):
            raise TypeError(f"{name}[{i}] must be a 1-D sequence of bools")
        if bool(((t != 0) & (t != 1)).any()):
            raise ValueError(f"{name}[{i}] must hold 0/1 (bool) values")
        if t.numel() > len(r):
            raise ValueError(f"{name}[{i}] is longer than its response ({t.numel()} > {len(r)})")
        out[i, :t.numel()] = t.bool()
    return out


def train_preference(policy: torch.nn.Module, prompts: Any, chosen: Any, rejected: Any, *,
                     reference: torch.nn.Module | None = None, loss: str | Callable[[PairBatch], torch.Tensor] = "dpo",
                     beta: float = 0.1, gamma: float = 0.5, rejected_prompts: Any = None,
                     chosen_masks: Any = None, rejected_masks: Any = None, reference_per_batch: bool = False,
                     steps: int = 100, batch: int = 32, lr: float = 1e-3, seed: int = 0,
                     sampler: str = "replacement", optimizer: str = "adam", weight_decay: float = 0.0,
                     schedule: str = "constant", grad_clip: float | None = 1.0) -> list[float]:
    """Fine-tune ``policy`` in place on preference pairs against a frozen ``reference``; returns the loss history.

    ``prompts``, ``chosen``, ``rejected``: one token-id sequence per pair (lists of any lengths,
    or 2-D integer tensors); ``rejected_prompts``: the rejected responses' prompts where they
    differ (default ``prompts``). ``reference``: the frozen model (default: a copy of ``policy``
    in eval mode taken before training; it is never trained, and its mode is left as given: a
    reference passed in training mode runs with its dropout on; call ``.eval()`` on it first).
    ``loss``: ``"dpo"``, ``"ipo"``, ``"simpo"`` (with ``beta``, and ``gamma`` for SimPO) on the
    masked summed log-probabilities, or a callable ``loss(PairBatch) -> (b,)`` per-pair loss.
    ``gamma`` is validated but used only by ``"simpo"``, and neither is passed to a callable
    ``loss`` (it carries its own).
    ``chosen_masks``, ``rejected_masks``: optional per-token 0/1 masks of the responses (tokens
    with 0, such as tool-inserted text, do not count; missing tail entries count as 0).
    ``reference_per_batch``: compute the reference's log-probabilities on each batch rather than
    once for all pairs before training. The loop's settings (``steps``, ``batch``, ``lr``, ``seed``,
    ``sampler``, ``optimizer``, ``weight_decay``, ``schedule``, ``grad_clip``) are :func:`train_loop`'s.
    """
    from icml26.nn.lm import token_logprobs

    if not isinstance(policy, torch.nn.Module):
        raise TypeError(f"policy must be a torch.nn.Module, got {type(policy).__name__}")
    if reference is not None and not isinstance(reference, torch.nn.Module):
        raise TypeError(f"reference must be a torch.nn.Module or None, got {type(reference).__name__}")
    if reference is policy:
        raise ValueError("reference must be a frozen model other than policy (pass None for a frozen copy)")
    if not (callable(loss) or (isinstance(loss, str) and loss in LOSSES)):
        raise ValueError(f"loss must be one of {LOSSES} or a callable, got {loss!r}")
    beta = check_positive("beta", beta)
    gamma = check_positive("gamma", gamma, strict=False)
    if not isinstance(reference_per_batch, bool):
        raise TypeError(f"reference_per_batch must be a bool, got {type(reference_per_batch).__name__}")
    s = _settings(steps, batch, lr, seed, sampler, optimizer, weight_decay, schedule, grad_clip)
    p = _as_ids("prompts", prompts)
    c = _as_ids("chosen", chosen)
    r = _as_ids("rejected", rejected)
    rp = p if rejected_prompts is None else _as_ids("rejected_prompts", rejected_prompts)
    n = len(p)
    if not (len(c) == len(r) == len(rp) == n):
        raise ValueError(f"prompts, chosen, rejected (and rejected_prompts) must be equally long, got {n}, {len(c)}, "
                         f"{len(r)}, {len(rp)}")
    extra_c, extra_r = _as_masks("chosen_masks", chosen_masks, c), _as_masks("rejected_masks", rejected_masks, r)
    ref = copy.deepcopy(policy).eval() if reference is None else reference

    def masked(m: torch.Tensor, extra: torch.Tensor | None, sel: torch.Tensor) -> torch.Tensor:
        return m if extra is None else m & extra[sel, :m.shape[1]]

    if not reference_per_batch:
        with torch.no_grad():
            ref_c, m_c = token_logprobs(ref, p, c)
            ref_r, m_r = token_logprobs(ref, rp, r)
        all_rows = torch.arange(n)
        m_c, m_r = masked(m_c, extra_c, all_rows), masked(m_r, extra_r, all_rows)

    def batch_loss(idx: torch.Tensor, progress: float) -> torch.Tensor:
        ids = idx.tolist()
        bp, bc, brp, br = ([x[i] for i in ids] for x in (p, c, rp, r))
        if reference_per_batch:
            with torch.no_grad():
                rc, mc = token_logprobs(ref, bp, bc)
                rr, mr = token_logprobs(ref, brp, br)
            mc, mr = masked(mc, extra_c, idx), masked(mr, extra_r, idx)
        lp_c, _ = token_logprobs(policy, bp, bc)
        lp_r, _ = token_logprobs(policy, brp, br)
        tc, tr = lp_c.shape[1], lp_r.shape[1]
        if not reference_per_batch:
            rc, rr, mc, mr = ref_c[idx, :tc], ref_r[idx, :tr], m_c[idx, :tc], m_r[idx, :tr]
        b = PairBatch(idx, lp_c, lp_r, rc, rr, mc, mr, progress)
        return loss(b) if callable(loss) else _named_loss(loss, b, beta, gamma)

    return _run(policy, n, batch_loss, s)
