"""A small decoder-only transformer with a KV cache, shared by the language-model papers.

Pre-norm blocks (LayerNorm -> causal multi-head attention -> residual; LayerNorm -> MLP ->
residual), learned absolute positions, tied input/output embeddings. Shapes:

- ``idx``: (batch, seq) token ids, ``logits``: (batch, seq, vocab)
- the cache is one ``(k, v)`` pair per layer, each (batch, heads, cached_len, head_dim)

``forward(idx, cache=cache, start=len_so_far)`` appends the new keys/values to the cache, so
incremental decoding gives the same logits as a full forward pass (tested).

``TinyLM(cfg, mixer=factory)`` swaps the attention of every block for another token mixer:
``factory(cfg)`` returns a module with ``forward(x, past) -> (y, new_past)`` (``x, y``:
(batch, seq, d_model)); the default is causal softmax attention. ``mixer=SplitProjAttention``
gives the same attention with separate ``q_proj``/``k_proj``/``v_proj``/``o_proj`` projections
(the Llama/GPT-NeoX layout that LoRA recipes target by name); :meth:`SplitProjAttention.from_fused`
and :meth:`SplitProjAttention.to_fused` convert one layout into the other with the same outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

KVCache = list[tuple[torch.Tensor, torch.Tensor]]


@dataclass(frozen=True)
class LMConfig:
    vocab_size: int
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    max_len: int = 256
    mlp_ratio: int = 4
    dropout: float = 0.0

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_layers", "n_heads", "max_len", "mlp_ratio"):
            if getattr(self, name) < 1:
                raise ValueError(f"LMConfig.{name} must be >= 1, got {getattr(self, name)}")
        if self.d_model % self.n_heads:
            raise ValueError(f"LMConfig.d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"LMConfig.dropout must be in [0, 1), got {self.dropout}")


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: LMConfig):
        super().__init__()
        self.n_heads = cfg.n_heads
        self.head_dim = cfg.d_model // cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.dropout = cfg.dropout

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None
                ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.n_heads, self.head_dim).transpose(1, 2) for z in (q, k, v))
        y, kv = causal_attend(q, k, v, past, self.dropout if self.training else 0.0)
        return self.proj(y), kv


def causal_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   past: tuple[torch.Tensor, torch.Tensor] | None, dropout_p: float,
                   extra: torch.Tensor | None = None) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """The attention core shared by :class:`CausalSelfAttention` and :class:`SplitProjAttention`.

    ``q, k, v``: the new positions' heads, (batch, heads, t, head_dim). The cached ``past = (k, v)``
    (batch, heads, cached_len, head_dim), if any, is put in front of ``k`` and ``v``; query ``i``
    (absolute position ``s - t + i``, ``s`` = cached_len + t) then attends to keys ``0 .. s - t + i``
    by scaled dot product with dropout ``dropout_p`` on the weights (pass 0.0 in eval mode).
    ``extra``, optional, a boolean (batch, >= t, >= s) allow-mask whose last ``t`` rows and ``s``
    columns further restrict what each query sees (and-ed with the causal mask; a subclass's
    attention pattern, such as video-o3's TDAM). Returns the heads merged back to (batch, t, heads * head_dim), before the output projection,
    and the extended ``(k, v)`` to cache.
    """
    b, h, t, hd = q.shape
    if past is not None:
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
    s = k.shape[2]
    # query i (absolute position s - t + i) sees keys 0 .. s - t + i
    mask = torch.ones(t, s, dtype=torch.bool, device=q.device).tril(diagonal=s - t)
    if extra is not None:
        mask = (mask[None] & extra[:, -t:, -s:])[:, None]
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
    return y.transpose(1, 2).reshape(b, t, h * hd), (k, v)


def _attention_config(d_model: int, n_heads: int, dropout: float) -> LMConfig:
    return LMConfig(vocab_size=1, d_model=d_model, n_heads=n_heads, dropout=dropout)


class SplitProjAttention(nn.Module):
    """Causal multi-head attention with separate q/k/v/o projections (the layout LoRA targets by name).

    The computation of :class:`CausalSelfAttention` with its fused ``qkv`` split into three
    ``nn.Linear`` (``q_proj``, ``k_proj``, ``v_proj``: rows ``[0, d)``, ``[d, 2d)``, ``[2d, 3d)`` of
    ``qkv``) and ``proj`` named ``o_proj``; ``forward(x, past) -> (y, (k, v))`` with the same KV
    cache. Use it as ``TinyLM(cfg, mixer=SplitProjAttention)``. Given the same weights
    (:meth:`from_fused`, :meth:`to_fused`) both layouts give the same outputs up to float rounding
    of the fused versus the separate matrix products.
    """

    def __init__(self, cfg: LMConfig):
        super().__init__()
        if not isinstance(cfg, LMConfig):
            raise TypeError(f"cfg must be an LMConfig, got {type(cfg).__name__}")
        self.n_heads, self.head_dim = cfg.n_heads, cfg.d_model // cfg.n_heads
        self.q_proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.k_proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.v_proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.o_proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.dropout = cfg.dropout

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None
                ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        b, t, _ = x.shape
        q, k, v = (p(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
                   for p in (self.q_proj, self.k_proj, self.v_proj))
        y, kv = causal_attend(q, k, v, past, self.dropout if self.training else 0.0)
        return self.o_proj(y), kv

    @classmethod
    def from_fused(cls, attn: CausalSelfAttention) -> SplitProjAttention:
        """A :class:`SplitProjAttention` holding copies of ``attn``'s weights (same device, dtype, train/eval mode).

        Does not touch the global random state (the new layers' own initialisation is overwritten).
        """
        if not isinstance(attn, CausalSelfAttention):
            raise TypeError(f"attn must be a CausalSelfAttention, got {type(attn).__name__}")
        d = attn.proj.in_features
        w = attn.qkv.weight
        with torch.random.fork_rng(devices=[]):
            new = cls(_attention_config(d, attn.n_heads, attn.dropout)).to(device=w.device, dtype=w.dtype)
        with torch.no_grad():
            for lin, wp, bp in zip((new.q_proj, new.k_proj, new.v_proj), w.split(d, dim=0),
                                   attn.qkv.bias.split(d, dim=0)):
                lin.weight.copy_(wp)
                lin.bias.copy_(bp)
            new.o_proj.weight.copy_(attn.proj.weight)
            new.o_proj.bias.copy_(attn.proj.bias)
        return new.train(attn.training)

    def to_fused(self) -> CausalSelfAttention:
        """The :class:`CausalSelfAttention` with these weights (``qkv`` = rows q, k, v stacked; ``proj`` = ``o_proj``).

        ``SplitProjAttention.from_fused(a.to_fused())`` holds exactly ``a``'s weights again.
        """
        d = self.o_proj.in_features
        w = self.q_proj.weight
        with torch.random.fork_rng(devices=[]):
            new = CausalSelfAttention(_attention_config(d, self.n_heads, self.dropout)).to(device=w.device,
                                                                                           dtype=w.dtype)
        with torch.no_grad():
            new.qkv.weight.copy_(torch.cat([self.q_proj.weight, self.k_proj.weight, self.v_proj.weight], dim=0))
            new.qkv.bias.copy_(torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias], dim=0))
            new.proj.weight.copy_(self.o_proj.weight)
            new.proj.bias.copy_(self.o_proj.bias)
        return new.train(self.training)


class Block(nn.Module):
    def __init__(self, cfg: LMConfig, mixer: Callable[[LMConfig], nn.Module] | None = None):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg) if mixer is None else mixer(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, cfg.mlp_ratio * cfg.d_model), nn.GELU(),
                                 nn.Linear(cfg.mlp_ratio * cfg.d_model, cfg.d_model), nn.Dropout(cfg.dropout))

    def forward(self, x: torch.Tensor, past=None):
        a, kv = self.attn(self.ln1(x), past)
        x = x + a
        return x + self.mlp(self.ln2(x)), kv


class TinyLM(nn.Module):
    """Decoder-only language model; ``forward(idx, cache, start) -> (logits, new_cache)``."""

    def __init__(self, cfg: LMConfig, mixer: Callable[[LMConfig], nn.Module] | None = None):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg, mixer) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.head.weight = self.tok.weight  # tied embeddings
        self.apply(self._init)

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx: torch.Tensor, cache: KVCache | None = None, start: int = 0
                ) -> tuple[torch.Tensor, KVCache]:
        if idx.dim() != 2:
            raise ValueError(f"idx must be (batch, seq), got shape {tuple(idx.shape)}")
        t = idx.shape[1]
        if start + t > self.cfg.max_len:
            raise ValueError(f"sequence end {start + t} exceeds max_len {self.cfg.max_len}")
        if cache is not None and len(cache) != len(self.blocks):
            raise ValueError(f"cache has {len(cache)} layers, model has {len(self.blocks)}")
        pos = torch.arange(start, start + t, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        new_cache: KVCache = []
        for i, blk in enumerate(self.blocks):
            x, kv = blk(x, cache[i] if cache is not None else None)
            new_cache.append(kv)
        return self.head(self.ln_f(x)), new_cache

    @torch.no_grad()
    def generate_greedy(self, prompt: torch.Tensor, n_new: int) -> torch.Tensor:
        """Greedy continuation with the KV cache: (batch, len) -> (batch, len + n_new)."""
        if n_new < 0:
            raise ValueError(f"n_new must be >= 0, got {n_new}")
        out = prompt
        logits, cache = self(prompt)
        for _ in range(n_new):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            out = torch.cat([out, nxt], dim=1)
            logits, cache = self(nxt, cache=cache, start=out.shape[1] - 1)
        return out


def cache_len(cache: KVCache) -> int:
    return 0 if not cache else int(cache[0][0].shape[2])


def crop_cache(cache: KVCache, length: int) -> KVCache:
    """Drop cached positions >= ``length`` (after rejected speculative tokens)."""
    return [(k[:, :, :length], v[:, :, :length]) for k, v in cache]
