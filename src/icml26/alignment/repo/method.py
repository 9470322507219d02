"""RePO: preference optimisation that reads a preference as lower regret (arXiv:2606.09124).

RePO replaces DPO's implicit reward with a regret score computed at token level from the
policy's log-probabilities ``l_t = log pi_theta(y_t | x, y_<t)``, the behaviour policy's
``b_t = log mu(y_t | x, y_<t)`` (the policy that generated the response, stored with the
data) and the reference policy's ``l^ref_t``. For a response of ``L`` tokens:

* per-step score (default, the "vectorised" window of the released code)::

      s_t = l_t - (1 / (L - t)) * sum_{k >= t} (b_k - l_k)                      t = 0..L-1

  the second term is a running mean of the behaviour/policy log-ratio over the rest of the
  response (a prospective KL correction, "the future term"). The "loop" window of the
  code's commented-out variant sums over k > t and divides by L - t - 1 (0 at the last step).
* sequence score (mean normalisation) ``S(y) = (1/L) sum_t s_t``; reference score
  ``S_ref(y) = (1/L) sum_t l^ref_t``; scaled score ``g(y) = alpha (S(y) - c_ref S_ref(y))``;
* loss ``-log sigmoid(g(y+) - lambda g(y-))`` with ``lambda = 0.5`` (asymmetric).

RePO_det (:func:`repo_det_loss`) sets ``b_k = 0`` (behaviour log-probability log 1), so it
needs plain preference triples: ``s_t = l_t + mean_{k >= t} l_k``.

:func:`regret_scores` with ``future=False`` drops the future term and keeps lambda, alpha and
the mean normalisation: the key-idea control. The equations are taken from the released code
(``openrlhf/models/loss.py``: ``RePO_Loss``, ``RePO_Loss_deterministic``); the paper's own
derivation was not available to us beyond the project page.

:func:`train_preference` fine-tunes a copy of the reference model on (prompt, chosen,
rejected) triples with RePO, RePO_det, the no-future control, or the DPO/IPO/SimPO losses of
``icml26.alignment._preferences``, through the shared preference loop of ``icml26.alignment._dpo``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from icml26.alignment._dpo import train_preference as train_pairs
from icml26.core.validate import as_array, check_int, check_positive

__all__ = ["regret_scores", "repo_loss", "repo_det_loss", "LOSSES", "train_preference", "EXAMPLES"]

WINDOWS = ("vectorised", "loop")
LOSSES = ("repo", "repo_det", "repo_nofuture", "dpo", "ipo", "simpo")


def _check_tokens(name: str, x: Any, shape: tuple[int, ...] | None = None) -> torch.Tensor:
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a (batch, T) tensor, got {type(x).__name__}")
    t = x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(as_array(name, x, ndim=2)))
    if t.dim() != 2 or t.numel() == 0:
        raise ValueError(f"{name} must be a non-empty (batch, T) tensor, got shape {tuple(t.shape)}")
    if shape is not None and tuple(t.shape) != shape:
        raise ValueError(f"{name} must have shape {shape}, got {tuple(t.shape)}")
    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} contains NaN or inf")
    return t


def regret_scores(logp: torch.Tensor, behaviour: torch.Tensor | None, mask: torch.Tensor, *,
                  window: str = "vectorised", future: bool = True) -> torch.Tensor:
    """Sequence regret score ``S(y) = (1/L) sum_t s_t`` per row: (batch,).

    ``logp``, ``behaviour``: (batch, T) per-token log-probabilities under the policy and the
    behaviour policy (``None`` means RePO_det: b = 0); ``mask``: (batch, T) bool, True on the
    response's tokens (left-aligned). ``future=False`` gives ``s_t = l_t`` (no future term).
    """
    logp = _check_tokens("logp", logp)
    mask = _check_tokens("mask", mask, tuple(logp.shape)).bool()
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {WINDOWS}, got {window!r}")
    m = mask.to(logp.dtype)
    L = m.sum(1)
    if bool((L < 1).any()):
        raise ValueError("mask must mark at least one token per row")
    lp = logp * m
    if not future:
        return lp.sum(1) / L
    b = torch.zeros_like(lp) if behaviour is None else _check_tokens("behaviour", behaviour, tuple(logp.shape)) * m
    diff = (b - lp) * m
    tail = torch.flip(torch.cumsum(torch.flip(diff, [1]), 1), [1])  # sum_{k >= t}
    t_idx = torch.arange(lp.shape[1], dtype=lp.dtype)[None, :]
    if window == "vectorised":
        win = (L[:, None] - t_idx).clamp(min=1)
        fut = tail / win
    else:
        tail = tail - diff  # sum_{k > t}
        win = L[:, None] - t_idx - 1
        fut = torch.where(win > 0, tail / win.clamp(min=1), torch.zeros_like(tail))
    s = (lp - fut) * m
    return s.sum(1) / L


def _pair_loss(g_c: torch.Tensor, g_r: torch.Tensor, lam: float) -> torch.Tensor:
    return -F.logsigmoid(g_c - lam * g_r)


def repo_loss(logp_c, logp_r, beh_c, beh_r, ref_c, ref_r, mask_c, mask_r, *, lam: float = 0.5, alpha: float = 1.0,
              c_ref: float = 1.0, window: str = "vectorised", future: bool = True) -> torch.Tensor:
    """Per-pair RePO loss ``-log sigmoid(g(y+) - lambda g(y-))``: (batch,).

    ``logp_*``, ``beh_*``, ``ref_*``: (batch, T) per-token log-probabilities under the policy,
    the behaviour policy and the reference; ``mask_*``: (batch, T) response-token masks.
    ``future=False`` is the key-idea control (no future term, lambda/alpha/normalisation kept).
    """
    lam = check_positive("lam", lam, strict=False)
    alpha = check_positive("alpha", alpha)
    c_ref = check_positive("c_ref", c_ref, strict=False)
    names = {"logp_c": logp_c, "logp_r": logp_r, "ref_c": ref_c, "ref_r": ref_r, "mask_c": mask_c, "mask_r": mask_r,
             "beh_c": beh_c, "beh_r": beh_r}
    for name, x in names.items():
        if x is not None or not name.startswith("beh"):
            _check_tokens(name, x)
    for side in ("c", "r"):
        shape = tuple(names[f"logp_{side}"].shape)
        for name in (f"ref_{side}", f"mask_{side}", f"beh_{side}"):
            if names[name] is not None and tuple(names[name].shape) != shape:
                raise ValueError(f"{name} must have the shape of logp_{side} {shape}, got {tuple(names[name].shape)}")
    g = {}
    for side, lp, bh, rf, mk in (("c", logp_c, beh_c, ref_c, mask_c), ("r", logp_r, beh_r, ref_r, mask_r)):
        s = regret_scores(lp, bh, mk, window=window, future=future)
        s_ref = regret_scores(rf, None, mk, future=False)
        g[side] = alpha * (s - c_ref * s_ref)
    return _pair_loss(g["c"], g["r"], lam)


def repo_det_loss(logp_c, logp_r, ref_c, ref_r, mask_c, mask_r, *, lam: float = 0.5, alpha: float = 1.0,
                  c_ref: float = 1.0, window: str = "vectorised") -> torch.Tensor:
    """RePO_det: RePO with the behaviour log-probabilities set to 0 (needs no behaviour policy)."""
    return repo_loss(logp_c, logp_r, None, None, ref_c, ref_r, mask_c, mask_r, lam=lam, alpha=alpha, c_ref=c_ref,
                     window=window)


def _batch_loss(kind: str, lp_c, lp_r, m_c, m_r, ref_c, ref_r, beh_c, beh_r, hp: dict) -> torch.Tensor:
    if kind in ("repo", "repo_nofuture"):
        return repo_loss(lp_c, lp_r, beh_c, beh_r, ref_c, ref_r, m_c, m_r, lam=hp["lam"], alpha=hp["alpha"],
                         c_ref=hp["c_ref"], window=hp["window"], future=kind == "repo")
    return repo_det_loss(lp_c, lp_r, ref_c, ref_r, m_c, m_r, lam=hp["lam"], alpha=hp["alpha"], c_ref=hp["c_ref"],
                         window=hp["window"])


def train_preference(ref_model: torch.nn.Module, prompts: Sequence[Sequence[int]], chosen: Sequence[Sequence[int]],
                     rejected: Sequence[Sequence[int]], *, loss: str = "repo",
                     behaviour_chosen: Sequence[Sequence[float]] | None = None,
                     behaviour_rejected: Sequence[Sequence[float]] | None = None, steps: int = 100,
                     batch: int = 32, lr: float = 1e-3, beta: float = 0.1, gamma: float = 0.5, lam: float = 0.5,
                     alpha: float = 1.0, c_ref: float = 1.0, window: str = "vectorised", seed: int = 0
                     ) -> tuple[torch.nn.Module, list[float]]:
    """Fine-tune a copy of ``ref_model`` with ``loss`` (one of :data:`LOSSES`); returns (policy, loss history).

    ``prompts``, ``chosen``, ``rejected``: token-id lists; ``behaviour_*``: per-token behaviour
    log-probabilities aligned with the responses (needed by ``repo``; the others ignore them).
    The loop is the shared :func:`icml26.alignment._dpo.train_preference` (reference
    log-probabilities once, batches from a seeded permutation, Adam, gradient norm clipped at 1);
    the RePO losses enter it as its per-batch loss hook.
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    n = len(prompts)
    if n == 0 or len(chosen) != n or len(rejected) != n:
        raise ValueError(f"prompts, chosen and rejected must be non-empty and equally long, got {n}, "
                         f"{len(chosen)}, {len(rejected)}")
    steps, batch, seed = check_int("steps", steps, minimum=1), check_int("batch", batch, minimum=1), \
        check_int("seed", seed, minimum=0)
    hp = {"beta": check_positive("beta", beta), "gamma": check_positive("gamma", gamma, strict=False),
          "lam": check_positive("lam", lam, strict=False), "alpha": check_positive("alpha", alpha),
          "c_ref": check_positive("c_ref", c_ref, strict=False), "window": window}
    lr = check_positive("lr", lr)
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {WINDOWS}, got {window!r}")
    if loss == "repo" and (behaviour_chosen is None or behaviour_rejected is None):
        raise ValueError("loss='repo' needs behaviour_chosen and behaviour_rejected log-probabilities")

    def pad(rows: Sequence[Sequence[float]], T: int) -> torch.Tensor:
        out = torch.zeros(len(rows), T)
        for i, r in enumerate(rows):
            out[i, :len(r)] = torch.as_tensor(list(r), dtype=torch.float32)
        return out

    beh_c = pad(behaviour_chosen, max(len(c) for c in chosen)) if behaviour_chosen is not None else None
    beh_r = pad(behaviour_rejected, max(len(r) for r in rejected)) if behaviour_rejected is not None else None

    def regret_loss(b) -> torch.Tensor:
        tc, tr = b.policy_chosen.shape[1], b.policy_rejected.shape[1]
        return _batch_loss(loss, b.policy_chosen, b.policy_rejected, b.mask_chosen, b.mask_rejected, b.ref_chosen,
                           b.ref_rejected, beh_c[b.idx, :tc] if beh_c is not None else None,
                           beh_r[b.idx, :tr] if beh_r is not None else None, hp)

    policy = copy.deepcopy(ref_model)
    hist = train_pairs(policy, prompts, chosen, rejected, reference=ref_model,
                       loss=loss if loss in ("dpo", "ipo", "simpo") else regret_loss, beta=hp["beta"],
                       gamma=hp["gamma"], steps=steps, batch=batch, lr=lr, seed=seed, sampler="permutation",
                       optimizer="adam", grad_clip=1.0)
    return policy, hist


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test."""
    g = torch.Generator().manual_seed(0)
    lp = -torch.rand(3, 5, generator=g)
    b = -torch.rand(3, 5, generator=g)
    mask = torch.ones(3, 5, dtype=torch.bool)
    return [
        (regret_scores, {"logp": lp, "behaviour": b, "mask": mask}),
        (repo_loss, {"logp_c": lp, "logp_r": lp * 2, "beh_c": b, "beh_r": b, "ref_c": lp, "ref_r": lp,
                     "mask_c": mask, "mask_r": mask, "lam": 0.5, "alpha": 1.0, "c_ref": 1.0}),
        (repo_det_loss, {"logp_c": lp, "logp_r": lp * 2, "ref_c": lp, "ref_r": lp, "mask_c": mask, "mask_r": mask,
                         "lam": 0.5, "alpha": 1.0, "c_ref": 1.0}),
    ]
