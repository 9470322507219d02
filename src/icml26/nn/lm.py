"""Language-model utilities on :class:`~icml26.nn.transformer.TinyLM`: sampling with log-probabilities,
sequence log-probabilities of given continuations; ``to_gpt2`` (from :mod:`icml26.nn.hf`) converts to Hugging Face GPT-2.

Sampling (``temperature``, ``top_k``, ``top_p``) is batched with the KV cache. Prompts may
have different lengths: they are decoded in groups of equal length (TinyLM has learned
absolute positions and no padding mask, so grouping keeps every row exact). Every sampled
token comes with its log-probability under the *sampling* distribution's base model, i.e.
``log softmax(logits / temperature)`` before top-k/top-p truncation is **not** what RL
needs; we return ``log p_model(token)`` at temperature 1 (``logprobs``) and, separately, the
log-probability under the actual sampling distribution (``sample_logprobs``).

Shapes: ``prompts`` list of 1-D long tensors (or a (batch, len) tensor); results are
right-padded (batch, n_new) tensors with a boolean ``mask`` of real tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from icml26.core.validate import check_int
from icml26.nn.hf import to_gpt2  # noqa: F401 - the one converter, re-exported here
from icml26.nn.transformer import TinyLM


@dataclass
class Generation:
    """Sampled continuations: ``tokens`` (batch, n_new), right-padded with ``pad_id`` where ``mask`` is False."""

    tokens: torch.Tensor
    logprobs: torch.Tensor  # log p_model(token | prefix) at temperature 1, 0 where masked
    sample_logprobs: torch.Tensor  # log-probability under the (temperature, top-k, top-p) sampling law
    mask: torch.Tensor  # (batch, n_new) bool: a real token (eos included)

    def lengths(self) -> torch.Tensor:
        return self.mask.sum(1)

    def as_lists(self) -> list[list[int]]:
        return [row[m].tolist() for row, m in zip(self.tokens, self.mask)]


def filter_logits(logits: torch.Tensor, *, temperature: float = 1.0, top_k: int | None = None,
                  top_p: float | None = None) -> torch.Tensor:
    """Scaled and truncated logits (``-inf`` outside the top-k / nucleus) of shape (..., vocab)."""
    if not (isinstance(temperature, (int, float)) and temperature > 0 and temperature < float("inf")):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    out = logits / float(temperature)
    if top_k is not None:
        top_k = check_int("top_k", top_k, minimum=1)
        k = min(top_k, out.shape[-1])
        kth = out.topk(k, dim=-1).values[..., -1:]
        out = out.masked_fill(out < kth, float("-inf"))
    if top_p is not None:
        if not (isinstance(top_p, (int, float)) and 0 < top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")
        srt, idx = out.sort(dim=-1, descending=True)
        probs = srt.softmax(-1)
        # keep the smallest prefix whose mass reaches top_p (the token that crosses it is kept)
        drop = probs.cumsum(-1) - probs >= top_p
        srt = srt.masked_fill(drop, float("-inf"))
        out = torch.full_like(out, float("-inf")).scatter(-1, idx, srt)
    return out


def _as_prompts(prompts: torch.Tensor | Sequence[Sequence[int]] | Sequence[torch.Tensor]) -> list[torch.Tensor]:
    if isinstance(prompts, torch.Tensor):
        if prompts.dim() != 2 or prompts.shape[1] == 0:
            raise ValueError(f"prompts must be (batch, len) with len >= 1, got shape {tuple(prompts.shape)}")
        return list(prompts.long())
    if isinstance(prompts, (str, bytes)) or not isinstance(prompts, Sequence) or len(prompts) == 0:
        raise ValueError("prompts must be a non-empty list of token-id sequences")
    out = []
    for i, p in enumerate(prompts):
        t = torch.as_tensor(p, dtype=torch.long)
        if t.dim() != 1 or t.numel() == 0:
            raise ValueError(f"prompts[{i}] must be a non-empty 1-D sequence of token ids")
        out.append(t)
    return out


@torch.no_grad()
def sample(model: TinyLM, prompts: torch.Tensor | Sequence[Sequence[int]], n_new: int, *, temperature: float = 1.0,
           top_k: int | None = None, top_p: float | None = None, eos_id: int | None = None, pad_id: int = 0,
           generator: torch.Generator | None = None, greedy: bool = False) -> Generation:
    """Sample up to ``n_new`` tokens per prompt (stopping a row at ``eos_id``), with log-probabilities."""
    n_new = check_int("n_new", n_new, minimum=1)
    rows = _as_prompts(prompts)
    vocab = model.cfg.vocab_size
    for i, r in enumerate(rows):
        if int(r.min()) < 0 or int(r.max()) >= vocab:
            raise ValueError(f"prompts[{i}] has token ids outside [0, {vocab})")
        if len(r) + n_new > model.cfg.max_len:
            raise ValueError(f"prompts[{i}] length {len(r)} + n_new {n_new} exceeds max_len {model.cfg.max_len}")
    b = len(rows)
    tokens = torch.full((b, n_new), int(pad_id), dtype=torch.long)
    lp = torch.zeros(b, n_new)
    slp = torch.zeros(b, n_new)
    mask = torch.zeros(b, n_new, dtype=torch.bool)
    was_training = model.training
    model.eval()
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(len(r), []).append(i)
    for length, idx in sorted(groups.items()):
        batch = torch.stack([rows[i] for i in idx])
        alive = torch.ones(len(idx), dtype=torch.bool)
        logits, cache = model(batch)
        last = logits[:, -1]
        for step in range(n_new):
            logp = F.log_softmax(last.float(), -1)
            filt = filter_logits(last.float(), temperature=temperature, top_k=top_k, top_p=top_p)
            slogp = F.log_softmax(filt, -1)
            if greedy:
                nxt = filt.argmax(-1)
            else:
                nxt = torch.multinomial(slogp.exp(), 1, generator=generator).squeeze(1)
            ii = torch.tensor(idx)[alive]
            tokens[ii, step] = nxt[alive]
            lp[ii, step] = logp.gather(1, nxt[:, None]).squeeze(1)[alive]
            slp[ii, step] = slogp.gather(1, nxt[:, None]).squeeze(1)[alive]
            mask[ii, step] = True
            if eos_id is not None:
                alive = alive & (nxt != eos_id)
            if not bool(alive.any()) or step == n_new - 1:
                break
            logits, cache = model(nxt[:, None], cache=cache, start=length + step)
            last = logits[:, -1]
    model.train(was_training)
    return Generation(tokens, lp, slp, mask)


def token_logprobs(model: TinyLM, prompts: torch.Tensor | Sequence[Sequence[int]],
                   continuations: Sequence[Sequence[int]] | torch.Tensor, *, pad_id: int = 0
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token ``log p(continuation_t | prompt, continuation_<t)``: (batch, max_len) and its mask.

    Differentiable (use it inside a loss); prompts of different lengths are handled by
    grouping equal prompt lengths and right-padding continuations.
    """
    ps = _as_prompts(prompts)
    cs = _as_prompts(continuations) if not isinstance(continuations, torch.Tensor) else list(continuations.long())
    if len(cs) != len(ps):
        raise ValueError(f"continuations must have one row per prompt: {len(cs)} vs {len(ps)}")
    tmax = max(len(c) for c in cs)
    out = torch.zeros(len(ps), tmax)
    mask = torch.zeros(len(ps), tmax, dtype=torch.bool)
    rows_out: list[tuple[int, torch.Tensor]] = []
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(ps):
        groups.setdefault(len(p), []).append(i)
    for length, idx in groups.items():
        tl = max(len(cs[i]) for i in idx)
        seq = torch.full((len(idx), length + tl), int(pad_id), dtype=torch.long)
        m = torch.zeros(len(idx), tl, dtype=torch.bool)
        for j, i in enumerate(idx):
            seq[j, :length] = ps[i]
            seq[j, length:length + len(cs[i])] = cs[i]
            m[j, :len(cs[i])] = True
        logits, _ = model(seq[:, :-1])
        logp = F.log_softmax(logits[:, length - 1:].float(), -1)
        tgt = seq[:, length:]
        got = logp.gather(2, tgt[..., None]).squeeze(2) * m
        for j, i in enumerate(idx):
            rows_out.append((i, got[j]))
            mask[i, :tl] = m[j]
    # assemble without in-place writes into a tensor that carries gradients
    by_row = dict(rows_out)
    out = torch.stack([F.pad(by_row[i], (0, tmax - by_row[i].shape[0])) for i in range(len(ps))])
    return out, mask


def sequence_logprob(model: TinyLM, prompts: torch.Tensor | Sequence[Sequence[int]],
                     continuations: Sequence[Sequence[int]] | torch.Tensor, *, normalize: bool = False) -> torch.Tensor:
    """``log p(continuation | prompt)`` per row (batch,); ``normalize`` divides by the continuation length."""
    lp, mask = token_logprobs(model, prompts, continuations)
    total = (lp * mask).sum(1)
    return total / mask.sum(1).clamp(min=1) if normalize else total
