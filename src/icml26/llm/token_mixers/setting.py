"""Synthetic data of the token-mixing reproduction (arXiv:2605.31367): recall and a tiny language.

- :func:`mqar_batch`: multi-query associative recall (key-value pairs, then the keys again as
  queries; the label after each query is its value);
- :func:`copy_language` / :func:`lm_batch`: a small generated language for the language-modelling
  comparison: a sparse order-1 Markov chain in which, now and then, a span of earlier tokens is
  repeated verbatim (as names and phrases recur in text), so that long-range memory lowers the loss.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.core.validate import as_array, check_int, check_positive


def _check_gen(gen) -> None:
    if not isinstance(gen, torch.Generator):
        raise TypeError(f"gen must be a torch Generator, got {type(gen).__name__}")


def mqar_batch(gen: torch.Generator, batch: int, n: int, n_pairs: int, n_keys: int = 32,
               n_values: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    """Multi-query associative recall: ``k1 v1 ... kP vP`` then the P keys again, in random
    order, at random positions among pad tokens (0); the label after each query key is its value.

    Returns tokens (batch, n + 1) and labels (batch, n) with -100 where nothing is scored.
    Tokens: 0 pad, 1..n_keys keys, n_keys+1..n_keys+n_values values.
    """
    _check_gen(gen)
    batch = check_int("batch", batch, minimum=1)
    n = check_int("n", n, minimum=4)
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    n_keys = check_int("n_keys", n_keys, minimum=n_pairs)
    n_values = check_int("n_values", n_values, minimum=1)
    if 4 * n_pairs > n:
        raise ValueError(f"n={n} too short for n_pairs={n_pairs} pairs and queries")
    keys = torch.argsort(torch.rand(batch, n_keys, generator=gen), dim=1)[:, :n_pairs] + 1
    vals = torch.randint(0, n_values, (batch, n_pairs), generator=gen) + n_keys + 1
    seq = torch.zeros(batch, n + 1, dtype=torch.long)
    seq[:, 0:2 * n_pairs:2] = keys
    seq[:, 1:2 * n_pairs:2] = vals
    labels = torch.full((batch, n), -100, dtype=torch.long)
    slots = (n - 2 * n_pairs) // 2  # query slots: positions 2P, 2P + 2, ..., each query followed by a pad
    for i in range(batch):
        pos = 2 * n_pairs + 2 * torch.randperm(slots, generator=gen)[:n_pairs]
        order = torch.randperm(n_pairs, generator=gen)
        seq[i, pos] = keys[i, order]
        labels[i, pos] = vals[i, order]
    return seq, labels


def copy_language(vocab: int, rng: np.random.Generator, n_succ: int = 4) -> np.ndarray:
    """Transition matrix (vocab, vocab) of the base chain: each token has ``n_succ`` successors."""
    vocab = check_int("vocab", vocab, minimum=2)
    n_succ = check_int("n_succ", n_succ, minimum=1, maximum=vocab)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    T = np.zeros((vocab, vocab))
    for a in range(vocab):
        T[a, rng.choice(vocab, size=n_succ, replace=False)] = rng.dirichlet(np.ones(n_succ))
    return T


def lm_batch(T: np.ndarray, gen: torch.Generator, batch: int, n: int, p_copy: float = 0.08,
             copy_len: int = 6) -> torch.Tensor:
    """(batch, n + 1) token ids: the Markov chain ``T``, where at each position after the first
    ``2 copy_len`` tokens a repeat of an earlier span of ``copy_len`` tokens starts with probability
    ``p_copy`` (the span's start drawn uniformly among earlier positions)."""
    T = as_array("T", T, ndim=2)
    if T.ndim != 2 or T.shape[0] != T.shape[1] or not np.allclose(T.sum(1), 1.0):
        raise ValueError(f"T must be a (vocab, vocab) row-stochastic matrix, got shape {T.shape}")
    _check_gen(gen)
    batch = check_int("batch", batch, minimum=1)
    n = check_int("n", n, minimum=2)
    p_copy = check_positive("p_copy", p_copy, strict=False)
    copy_len = check_int("copy_len", copy_len, minimum=1)
    V = T.shape[0]
    Tt = torch.as_tensor(T, dtype=torch.float32)
    x = torch.empty(batch, n + 1, dtype=torch.long)
    x[:, 0] = torch.randint(0, V, (batch,), generator=gen)
    src = torch.full((batch,), -1, dtype=torch.long)  # position being copied, -1 if none
    left = torch.zeros(batch, dtype=torch.long)
    for t in range(1, n + 1):
        nxt = torch.multinomial(Tt[x[:, t - 1]], 1, generator=gen)[:, 0]
        if t >= 2 * copy_len:
            start = (left == 0) & (torch.rand(batch, generator=gen) < p_copy)
            pos = (torch.rand(batch, generator=gen) * (t - copy_len)).long()
            src = torch.where(start, pos, src)
            left = torch.where(start, torch.full_like(left, copy_len), left)
        copying = left > 0
        nxt = torch.where(copying, x[torch.arange(batch), src.clamp(min=0)], nxt)
        src = torch.where(copying, src + 1, src)
        left = (left - 1).clamp(min=0)
        x[:, t] = nxt
    return x
