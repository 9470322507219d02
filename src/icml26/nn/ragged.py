"""A KV cache with one valid length per row, and the forward pass that appends to it.

Batched speculative decoding accepts a different number of draft tokens in every row, so
each row of the cache must grow at its own pace (what vLLM's paged cache gives). This runs
the weights of :class:`~icml26.nn.transformer.TinyLM` unchanged and equals a full forward
of each row's sequence (tested in ``tests/nn/test_ragged.py``).
"""

from __future__ import annotations

from typing import Protocol

import torch
import torch.nn.functional as F

from icml26.nn.transformer import CausalSelfAttention, TinyLM


class Meter(Protocol):
    def charge(self, model: TinyLM, n: int, t: int, s: int) -> None: ...


class RaggedCache:
    """KV cache with one valid length per row.

    ``k[l], v[l]``: (batch, heads, max_len, head_dim); ``length``: (batch,) long, the number of
    valid positions of each row. Positions >= length may hold stale keys (rejected drafts); they are
    overwritten before any query can see them (a forward writes a contiguous block from ``length``).
    """

    def __init__(self, model: TinyLM, batch: int, max_len: int):
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        if not 1 <= max_len <= model.cfg.max_len:
            raise ValueError(f"max_len must be in [1, model max_len={model.cfg.max_len}], got {max_len}")
        cfg = model.cfg
        hd = cfg.d_model // cfg.n_heads
        self.k = [torch.zeros(batch, cfg.n_heads, max_len, hd) for _ in range(cfg.n_layers)]
        self.v = [torch.zeros(batch, cfg.n_heads, max_len, hd) for _ in range(cfg.n_layers)]
        self.length = torch.zeros(batch, dtype=torch.long)
        self.max_len = max_len


@torch.no_grad()
def ragged_forward(model: TinyLM, cache: RaggedCache, idx: torch.Tensor, rows: torch.Tensor,
                   n_real: torch.Tensor, cost: Meter | None = None) -> torch.Tensor:
    """Append ``idx`` (n, t) to rows ``rows`` (n,) of ``cache``, each at its own position.

    Row ``i`` holds ``n_real[i]`` real tokens (the rest is padding, whose outputs are meaningless);
    its tokens sit at positions ``cache.length[rows[i]] + j``. Returns logits (n, t, vocab) and adds
    ``n_real`` to the lengths. Equals a full forward of each row's sequence (tested). ``cost``, if
    given, is charged for the call: ``cost.charge(model, n, t, S)`` with ``S`` the attended length
    (a simulated clock, as minedraft's cost model).
    """
    if idx.dim() != 2 or rows.dim() != 1 or idx.shape[0] != rows.shape[0] or n_real.shape != rows.shape:
        raise ValueError(f"idx must be (n, t) with rows and n_real (n,), got {tuple(idx.shape)}, "
                         f"{tuple(rows.shape)}, {tuple(n_real.shape)}")
    n, t = idx.shape
    if n == 0 or t == 0:
        raise ValueError("idx must be non-empty")
    pos = cache.length[rows][:, None] + torch.arange(t)
    S = int(pos.max()) + 1
    if S > cache.max_len:
        raise ValueError(f"position {S - 1} exceeds cache max_len {cache.max_len}")
    d = model.cfg.d_model
    x = model.tok(idx) + model.pos(pos)
    mask = (torch.arange(S)[None, None, :] <= pos[:, :, None])[:, None]  # (n, 1, t, S)
    full = n == cache.length.shape[0] and bool((rows == torch.arange(n)).all())
    for layer, blk in enumerate(model.blocks):
        attn = blk.attn
        if not isinstance(attn, CausalSelfAttention):
            raise ValueError("ragged_forward needs the default softmax attention mixer")
        q, k, v = attn.qkv(blk.ln1(x)).split(d, dim=-1)
        k = k.view(n, t, attn.n_heads, attn.head_dim)
        v = v.view(n, t, attn.n_heads, attn.head_dim)
        cache.k[layer][rows[:, None], :, pos] = k
        cache.v[layer][rows[:, None], :, pos] = v
        if full:
            keys, vals = cache.k[layer][:, :, :S], cache.v[layer][:, :, :S]
        else:
            keys, vals = cache.k[layer][rows, :, :S], cache.v[layer][rows, :, :S]
        q = q.view(n, t, attn.n_heads, attn.head_dim).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, keys, vals, attn_mask=mask)
        x = x + attn.proj(y.transpose(1, 2).reshape(n, t, d))
        x = x + blk.mlp(blk.ln2(x))
    cache.length[rows] += n_real
    if cost is not None:
        cost.charge(model, n, t, S)
    return model.head(model.ln_f(x))
