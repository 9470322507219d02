"""Structured generalised linear token mixing (Fagnou, Caillon, Delattre, Allauzen; arXiv:2605.31367).

The paper writes every causal linear token mixer as one equation that separates (i) the direct
influence of the inputs on an output, a lower-triangular matrix ``A``, from (ii) the recurrent
propagation of information through previously computed outputs, a strictly lower-triangular
matrix ``B``::

    y_t = sum_{s <= t} A[t, s] x_s + sum_{s < t} B[t, s] y_s      <=>      Y = (I - B)^{-1} A X.

Computing ``Y`` is a forward substitution through a triangular system, whose cost is
O(nnz(A) + nnz(B)) per channel. Special cases:

- causal softmax attention: ``B = 0``, ``A[t, s] = softmax_s(q_t . k_s / sqrt(d))``;
- a diagonal SSM / gated linear RNN: ``A = diag(b_t)``, ``B[t, t-1] = lambda_t``;
- the paper's generalisation, a state that reads several past states:
  ``B[t, t - f(k)] = lambda_{t,k}`` for a fixed index pattern ``f``. The translation-invariant
  patterns ``f(k) = 2^k`` and ``f(k) = k^2 + 1`` cost O(n log n) and O(n sqrt n) time.

Which past outputs a decoder must keep (its cache) depends on the index pattern, not only on
the number of parents per row. With translation-invariant offsets every past output is read
again later, so the cache is O(n); an index pattern anchored on the binary representation
of ``t`` (Fenwick-tree parents, as in log-linear attention) keeps O(log n) live states, and
anchors at the ends of blocks of growing length 1, 2, 3, ... keep O(sqrt n). The paper
states O(log n) / O(sqrt n) caches for its structured patterns; its exact construction was
not available to us, so the anchored patterns here are our instantiation (named
``"fenwick"`` and ``"sqrt-blocks"``), and ``live_states`` measures every pattern's cache.

With matrix-valued states (linear attention, Mamba-2, GLA), the "outputs" of the unified
equation are the states ``S_t`` and the inputs are ``x_s = k_s v_s^T``; a read-out
``o_t = S_t^T q_t`` then gives ``o = (M * (Q K^T)) V`` with ``M = (I - B)^{-1}``
(:func:`masked_state_readout`). :class:`MultiStateMixer` is a token-mixing layer of that form.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml26.core.validate import check_finite, check_int

PATTERNS = ("first-order", "dyadic", "quadratic", "fenwick", "sqrt-blocks", "dense")


# ----------------------------------------------------------------------------- index patterns
def _block_ends(t: int) -> list[int]:
    """Last positions e_j = j(j+1)/2 - 1 of the completed blocks (lengths 1, 2, 3, ...) before t - 1."""
    out, j = [], 1
    while j * (j + 1) // 2 - 1 < t - 1:
        out.append(j * (j + 1) // 2 - 1)
        j += 1
    return out


def _check_pattern(pattern: str) -> None:
    if pattern not in PATTERNS:
        raise ValueError(f"pattern must be one of {PATTERNS}, got {pattern!r}")


def _tensor(name: str, x) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")
    return x


def parents(t: int, pattern: str) -> list[int]:
    """Past positions s < t whose outputs y_s enter y_t (the non-zeros of row t of ``B``).

    - ``first-order``: {t-1} (SSM, linear RNN);
    - ``dyadic``: {t - 2^k : k >= 0} (translation-invariant, f(k) = 2^k);
    - ``quadratic``: {t - (k^2 + 1) : k >= 0} (translation-invariant, f(k) = k^2 + 1);
    - ``fenwick``: t-1 and the ends m-1 of the binary prefixes m of t (m = t, t - lowbit(t), ...);
    - ``sqrt-blocks``: t-1 and the ends of all completed blocks of lengths 1, 2, 3, ...;
    - ``dense``: every s < t.
    """
    _check_pattern(pattern)
    t = check_int("t", t, minimum=0)
    if t == 0:
        return []
    if pattern == "first-order":
        return [t - 1]
    if pattern == "dense":
        return list(range(t - 1, -1, -1))
    if pattern == "dyadic":
        return [t - 2 ** k for k in range(int(math.log2(t)) + 1) if t - 2 ** k >= 0]
    if pattern == "quadratic":
        out, k = [], 0
        while t - (k * k + 1) >= 0:
            out.append(t - (k * k + 1))
            k += 1
        return out
    if pattern == "fenwick":
        out, m = [], t
        while m > 0:
            if m - 1 not in out:
                out.append(m - 1)
            m -= m & -m
        return out
    # sqrt-blocks
    return [t - 1] + [e for e in reversed(_block_ends(t)) if e != t - 1]


def parent_table(n: int, pattern: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded parent indices ``P`` (n, K) and validity mask (n, K); K = max parents per row (>= 1)."""
    n = check_int("n", n, minimum=1)
    _check_pattern(pattern)
    rows = [parents(t, pattern) for t in range(n)]
    K = max(1, max(len(r) for r in rows))
    P = torch.full((n, K), -1, dtype=torch.long)
    for t, r in enumerate(rows):
        P[t, :len(r)] = torch.tensor(r, dtype=torch.long)
    return P, P >= 0


def recurrence_nnz(n: int, pattern: str) -> int:
    """nnz(B): the time of one forward substitution per channel, up to the O(n) direct part."""
    n = check_int("n", n, minimum=1)
    _check_pattern(pattern)
    return sum(len(parents(t, pattern)) for t in range(n))


def live_states(n: int, pattern: str) -> np.ndarray:
    """Decoding cache of a length-n generation: at each step t, the number of past outputs y_s
    (s < t) that step t or a later step still reads, i.e. what a decoder must keep in memory."""
    n = check_int("n", n, minimum=1)
    _check_pattern(pattern)
    last_use = np.full(n, -1, dtype=np.int64)
    for t in range(n):
        for s in parents(t, pattern):
            last_use[s] = max(last_use[s], t)
    # y_s is live at step t iff s < t <= last_use[s]
    delta = np.zeros(n + 1, dtype=np.int64)
    for s in range(n):
        if last_use[s] > s:
            delta[s + 1] += 1
            delta[last_use[s] + 1] -= 1
    return np.cumsum(delta)[:n]


# ----------------------------------------------------------------------------- the unified equation
def _check_system(A: torch.Tensor, B: torch.Tensor, X: torch.Tensor) -> int:
    for name, z in (("A", A), ("B", B), ("X", X)):
        _tensor(name, z)
    if not (A.dim() == B.dim() == X.dim()) or A.shape[:-2] != B.shape[:-2] or A.shape[:-2] != X.shape[:-2]:
        raise ValueError(f"A {tuple(A.shape)}, B {tuple(B.shape)} and X {tuple(X.shape)} must share their "
                         "leading (batch) dimensions: A, B (..., n, n), X (..., n, d)")
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must be (..., n, n), got {tuple(A.shape)}")
    n = A.shape[-1]
    if B.shape[-2:] != (n, n):
        raise ValueError(f"B must be (..., {n}, {n}), got {tuple(B.shape)}")
    if X.dim() < 2 or X.shape[-2] != n:
        raise ValueError(f"X must be (..., {n}, d), got {tuple(X.shape)}")
    for name, z in (("A", A), ("B", B), ("X", X)):
        if not torch.isfinite(z).all():
            raise ValueError(f"{name} contains NaN or inf")
    if (A.triu(1) != 0).any():
        raise ValueError("A must be lower-triangular (causal direct mixing)")
    if (B.triu(0) != 0).any():
        raise ValueError("B must be strictly lower-triangular (recurrence over past outputs only)")
    return n


def unified_mix(A: torch.Tensor, B: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """``Y = (I - B)^{-1} A X`` by one triangular solve. A, B: (..., n, n); X: (..., n, d) -> Y (..., n, d)."""
    _check_system(A, B, X)
    n = A.shape[-1]
    eye = torch.eye(n, dtype=B.dtype, device=B.device)
    return torch.linalg.solve_triangular(eye - B, A @ X, upper=False, unitriangular=True)


def recurrent_scan(A: torch.Tensor, B: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """Step-by-step reference: y_t = sum_{s<=t} A[t,s] x_s + sum_{s<t} B[t,s] y_s (a Python loop)."""
    n = _check_system(A, B, X)
    ys: list[torch.Tensor] = []
    for t in range(n):
        y = torch.einsum("...s,...sd->...d", A[..., t, :t + 1], X[..., :t + 1, :])
        if t:
            y = y + torch.einsum("...s,...sd->...d", B[..., t, :t], torch.stack(ys, dim=-2))
        ys.append(y)
    return torch.stack(ys, dim=-2)


def build_B(lam: torch.Tensor, P: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """Scatter the coefficients ``lam`` (..., n, K) into ``B`` (..., n, n) at ``B[t, P[t, k]]``."""
    for name, z in (("lam", lam), ("P", P), ("valid", valid)):
        _tensor(name, z)
    if P.dim() != 2 or valid.shape != P.shape:
        raise ValueError(f"P and valid must be (n, K) of one shape, got {tuple(P.shape)} and {tuple(valid.shape)}")
    check_finite("lam", lam)
    n, K = P.shape
    if lam.shape[-2:] != (n, K):
        raise ValueError(f"lam must be (..., {n}, {K}), got {tuple(lam.shape)}")
    idx = P.clamp(min=0).expand(*lam.shape[:-2], n, K)
    B = torch.zeros(*lam.shape[:-2], n, n, dtype=lam.dtype, device=lam.device)
    return B.scatter_add(-1, idx, lam * valid.to(lam.dtype))


def softmax_attention_unified(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal softmax attention as (A, B): A[t,s] = softmax_{s<=t}(q_t.k_s/sqrt(d)), B = 0. q, k: (..., n, d)."""
    _tensor("q", q)
    _tensor("k", k)
    if q.shape != k.shape or q.dim() < 2:
        raise ValueError(f"q and k must both be (..., n, d), got {tuple(q.shape)} and {tuple(k.shape)}")
    check_finite("q", q)
    check_finite("k", k)
    n, d = q.shape[-2:]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    causal = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    A = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
    return A, torch.zeros_like(A)


def masked_state_readout(M: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """o_t = S_t^T q_t with S = M X, X_s = k_s v_s^T: o = (M * (Q K^T)) V.

    M: (..., n, n) = (I - B)^{-1} diag(b); q, k: (..., n, d_k); v: (..., n, d_v) -> (..., n, d_v).
    """
    for name, z in (("M", M), ("q", q), ("k", k), ("v", v)):
        _tensor(name, z)
        check_finite(name, z)
    n = M.shape[-1]
    if M.dim() < 2 or M.shape[-2] != n:
        raise ValueError(f"M must be (..., n, n), got {tuple(M.shape)}")
    for name, z in (("q", q), ("k", k), ("v", v)):
        if z.dim() < 2 or z.shape[-2] != n:
            raise ValueError(f"{name} must be (..., {n}, d) like M {tuple(M.shape)}, got {tuple(z.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k, got {tuple(q.shape)} and {tuple(k.shape)}")
    return (M * (q @ k.transpose(-1, -2))) @ v


def state_recurrence_reference(lam: torch.Tensor, P: torch.Tensor, valid: torch.Tensor, q: torch.Tensor,
                               k: torch.Tensor, v: torch.Tensor, keep_only_live: bool = True
                               ) -> tuple[torch.Tensor, list[int]]:
    """Decode with explicit matrix states S_t = sum_k lam[t,k] S_{P[t,k]} + k_t v_t^T, o_t = S_t^T q_t.

    One step at a time, as a generator would; with ``keep_only_live`` a state is dropped after
    the last step that reads it. Returns the outputs (..., n, d_v) and the number of stored
    states at each step (the cache, counted in states of size d_k x d_v).
    """
    n = P.shape[0]
    last_use = [-1] * n
    for t in range(n):
        for j in range(P.shape[1]):
            if valid[t, j]:
                s = int(P[t, j])
                last_use[s] = max(last_use[s], t)
    store: dict[int, torch.Tensor] = {}
    outs, cache = [], []
    for t in range(n):
        cache.append(len(store))
        S = k[..., t, :, None] * v[..., t, None, :]
        for j in range(P.shape[1]):
            if valid[t, j]:
                S = S + lam[..., t, j, None, None] * store[int(P[t, j])]
        outs.append(torch.einsum("...k,...kv->...v", q[..., t, :], S))
        store[t] = S
        if keep_only_live:
            for s in [s for s in store if last_use[s] <= t]:
                del store[s]
    return torch.stack(outs, dim=-2), cache


# ----------------------------------------------------------------------------- the layer
class MultiStateMixer(nn.Module):
    """Multi-head token mixer with matrix states that read several past states.

    S_t = sum_k lambda_{t,k} S_{p_k(t)} + k_t v_t^T,  o_t = S_t^T q_t (per head), then an output
    projection. ``lambda_{t,k} = sigmoid(g_t) * softmax_k(h_{t,k})`` over the valid parents, so
    sum_k lambda_{t,k} < 1 and the recurrence is stable (our parametrisation: the paper's is not
    available to us). ``pattern="first-order"`` is a gated linear-attention / SSM layer.
    With ``normalize_qk`` (default) q and k are L2-normalised per head, as in DeltaNet-style
    linear-attention layers; otherwise q is scaled by 1 / sqrt(head_dim).
    Computed in parallel as ``o = ((I - B)^{-1} * Q K^T) V`` (one triangular solve per head).
    x: (batch, n, d_model) -> (batch, n, d_model).
    """

    def __init__(self, d_model: int, n_heads: int, pattern: str, max_len: int, gate_bias: float = 3.0,
                 normalize_qk: bool = True):
        super().__init__()
        if not isinstance(normalize_qk, bool):
            raise TypeError(f"normalize_qk must be a bool, got {type(normalize_qk).__name__}")
        self.normalize_qk = normalize_qk
        _check_pattern(pattern)
        d_model = check_int("d_model", d_model, minimum=1)
        n_heads = check_int("n_heads", n_heads, minimum=1)
        max_len = check_int("max_len", max_len, minimum=1)
        gate_bias = float(gate_bias) if isinstance(gate_bias, (int, float)) and not isinstance(gate_bias, bool) \
            else gate_bias
        if not isinstance(gate_bias, float) or not np.isfinite(gate_bias):
            raise (TypeError if not isinstance(gate_bias, float) else ValueError)(
                f"gate_bias must be a finite number, got {gate_bias!r}")
        if d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by n_heads ({n_heads})")
        self.pattern, self.n_heads, self.dh = pattern, n_heads, d_model // n_heads
        P, valid = parent_table(max_len, pattern)
        self.register_buffer("P", P, persistent=False)
        self.register_buffer("valid", valid, persistent=False)
        self.K = P.shape[1]
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.gate = nn.Linear(d_model, n_heads * (1 + self.K))
        self.proj = nn.Linear(d_model, d_model)
        self.gate_bias = gate_bias

    def coefficients(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """q, k, v: (batch, heads, n, dh); lam: (batch, heads, n, K) for the first n positions."""
        _tensor("x", x)
        if x.dim() != 3 or x.shape[-1] != self.n_heads * self.dh:
            raise ValueError(f"x must be (batch, n, d_model={self.n_heads * self.dh}), got {tuple(x.shape)}")
        check_finite("x", x)
        b, n, d = x.shape
        if n > self.P.shape[0]:
            raise ValueError(f"sequence length {n} exceeds max_len {self.P.shape[0]}")
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, n, self.n_heads, self.dh).transpose(1, 2) for z in (q, k, v))
        if self.normalize_qk:
            q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)
        else:
            q = q / math.sqrt(self.dh)
        g = self.gate(x).view(b, n, self.n_heads, 1 + self.K).permute(0, 2, 1, 3)
        valid = self.valid[:n]
        mix = torch.softmax(g[..., 1:].masked_fill(~valid, float("-inf")), dim=-1)
        mix = torch.nan_to_num(mix * valid, nan=0.0)  # t = 0 has no parent
        lam = torch.sigmoid(g[..., :1] + self.gate_bias) * mix
        return q, k, v, lam

    def forward(self, x: torch.Tensor, past=None) -> tuple[torch.Tensor, None]:
        if past is not None:
            raise ValueError("MultiStateMixer runs on whole sequences; decode with state_recurrence_reference")
        q, k, v, lam = self.coefficients(x)
        b, n, d = x.shape
        B = build_B(lam, self.P[:n], self.valid[:n])
        eye = torch.eye(n, dtype=x.dtype, device=x.device)
        M = torch.linalg.solve_triangular(eye - B, eye.expand_as(B), upper=False, unitriangular=True)
        o = masked_state_readout(M, q, k, v)
        return self.proj(o.transpose(1, 2).reshape(b, n, d)), None


class ShortConv(nn.Module):
    """A depthwise causal convolution of kernel ``kernel`` over the sequence, then a token mixer.

    The short convolution that Mamba, H3, GLA and Based layers put in front of their mixer: it
    lets a position see its few predecessors directly (e.g. a value its key), so the mixer only
    has to bind and retrieve. ``inner`` is any module with ``forward(x, past) -> (y, new_past)``;
    whole sequences only (no incremental decoding). x: (batch, n, d_model) -> (batch, n, d_model).
    """

    def __init__(self, inner: nn.Module, d_model: int, kernel: int = 3):
        super().__init__()
        if not isinstance(inner, nn.Module):
            raise TypeError(f"inner must be a torch Module, got {type(inner).__name__}")
        d_model = check_int("d_model", d_model, minimum=1)
        kernel = check_int("kernel", kernel, minimum=1)
        self.kernel = kernel
        self.conv = nn.Conv1d(d_model, d_model, kernel, groups=d_model, padding=kernel - 1)
        self.inner = inner

    def mix_input(self, x: torch.Tensor) -> torch.Tensor:
        """The convolved input the inner mixer sees: (batch, n, d_model)."""
        _tensor("x", x)
        if x.dim() != 3 or x.shape[-1] != self.conv.in_channels:
            raise ValueError(f"x must be (batch, n, d_model={self.conv.in_channels}), got {tuple(x.shape)}")
        n = x.shape[1]
        return self.conv(x.transpose(1, 2))[..., :n].transpose(1, 2)

    def forward(self, x: torch.Tensor, past=None):
        if past is not None:
            raise ValueError("ShortConv runs on whole sequences (past must be None)")
        return self.inner(self.mix_input(x), None)


def mixer_factory(pattern: str, gate_bias: float = 3.0, conv_kernel: int = 0, normalize_qk: bool = True) -> Callable:
    """``TinyLM(cfg, mixer=mixer_factory("fenwick"))``: the multi-state mixer in every block.

    ``pattern="attention"`` gives causal softmax attention (the shared ``CausalSelfAttention``);
    ``conv_kernel > 0`` puts a :class:`ShortConv` of that kernel in front of the mixer.
    """
    if pattern != "attention":
        _check_pattern(pattern)
    conv_kernel = check_int("conv_kernel", conv_kernel, minimum=0)
    if isinstance(gate_bias, bool) or not isinstance(gate_bias, (int, float)):
        raise TypeError(f"gate_bias must be a finite number, got {gate_bias!r}")
    if not np.isfinite(gate_bias):
        raise ValueError(f"gate_bias must be a finite number, got {gate_bias!r}")
    if not isinstance(normalize_qk, bool):
        raise TypeError(f"normalize_qk must be a bool, got {type(normalize_qk).__name__}")

    def make(cfg) -> nn.Module:
        if pattern == "attention":
            from icml26.nn.transformer import CausalSelfAttention
            inner = CausalSelfAttention(cfg)
        else:
            inner = MultiStateMixer(cfg.d_model, cfg.n_heads, pattern, cfg.max_len, gate_bias, normalize_qk)
        return ShortConv(inner, cfg.d_model, conv_kernel) if conv_kernel else inner
    return make
