"""Geometric Unlearning (GU), arXiv:2605.01735, and the unlearning baselines it is compared with.

GU removes what a model knows about target names with a LoRA adapter trained on synthetic
prompts that mention the names (no forget QA). Hidden states around each name are pushed into
the low-rank subspace that hidden states occupy when the model does not know a name.

1. Safe anchors. Fill synthetic templates with names the model does not know; keep prompts whose
   greedy answer refuses. Mean-pool each layer's hidden states over +-16 tokens around the name:
   ``a_i^l`` (N, H). Per target layer l (the last two blocks): ``mu = mean_i a_i``, ``V`` (H, k) =
   top-k principal directions of ``a_i - mu`` (k = 4), ``proto`` = mean of the ``proto_k`` anchors
   nearest to ``mu`` (:func:`safe_subspace`).
2. Token mask around each name hit ``p`` (the name's last token): ``m_j = exp(-|j - p| / decay)`` for
   ``|j - p| <= W`` (W = 8, both sides), and ``m_j = 1`` from ``p`` to the end of the sequence
   (``tail_to_eos``) (:func:`forget_token_mask`).
3. Per target layer, ``z = sum_j m_j h_j / sum_j m_j``, ``zc = z - mu``, ``z_safe = V V^T zc``,
   ``z_danger = zc - z_safe``:
   ``L_energy = ||z_danger||^2 / H``, ``L_dir = 1 - cos(zc, z_safe)``, ``L_proto = mean((z - proto)^2)``
   (:func:`geometric_losses`); ``L_refusal`` = CE of "i don't know ." + EOS appended to the prompt;
   ``L_cf`` = MSE between the pooled post-name states of the prompt and of the prompt with the name
   tokens replaced by ``<unk>`` (no gradient through the masked branch).
   ``L_forget = w_dir L_dir + a_E L_energy + w_proto L_proto + w_ref L_refusal + w_cf L_cf``, times
   ``min(4, B / #sequences with a hit)``, switched off after ``forget_end_step``.
4. Keep terms: ``L_bg`` = KL(teacher || student) at temperature T on forget-prompt tokens outside the
   mask (weight ``1 - m_j``); ``L_retain`` = KL at T = 3 on retain prompts; ``w_reg ||LoRA||^2``.
   ``L = L_forget + 0.05 L_bg + 0.6 L_retain + 2e-5 ||LoRA||^2`` (:func:`gu_loss`).

Weights, windows and the early-stop rule are those of the authors' ``configs/example.json``
(``GUConfig``). The learning rate is ours (see ``GUConfig.lr``).

Baselines, written after OpenUnlearning's trainers (locuslab/open-unlearning, not on PyPI):
gradient ascent (GA: ``-NLL(forget)``), GradDiff (``-NLL(forget) + NLL(retain)``), NPO
(``-(2/beta) E log sigmoid(-beta (log pi - log pi_ref)) + NLL(retain)``, beta = 0.1) and IDK-SFT
(``NLL("i don't know ." | forget question) + NLL(retain)``) (:func:`baseline_loss`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml26.core.validate import as_array, check_finite, check_int, check_positive

BASELINES = ("ga", "graddiff", "npo", "idk")


# ----------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class GUConfig:
    """GU's knobs; defaults from the authors' example config (``configs/example.json``) unless marked."""

    k: int = 4                      # fuzzy_rank
    proto_k: int = 16               # anchors averaged into the prototype
    anchor_window: int = 16         # +- tokens pooled around the name for anchors
    target_layers: tuple[int, ...] = (-2, -1)   # the last two blocks
    forget_window: int = 8
    mask_decay: float = 2.0
    tail_to_eos: bool = True
    w_dir: float = 0.5
    alpha_energy: float = 0.1
    w_proto: float = 0.2            # w_proto_safe (code default; not in the example config)
    w_refusal: float = 0.1
    w_cf: float = 0.1
    lambda_bg: float = 0.05
    w_retain: float = 0.6
    retain_T: float = 3.0
    bg_T: float = 3.0               # bg_keep_temperature defaults to the retain temperature
    w_lora_reg: float = 2e-5
    hit_boost_max: float = 4.0
    forget_end_step: int = 500
    basis: str = "safe"             # "safe" (anchor PCA) or "random" (the random-subspace control)
    lora_r: int = 8
    lora_alpha: float = 16.0
    lora_dropout: float = 0.1
    lr: float = 1e-2                # ours (the paper's 1e-4 is for a 7B model); one value for every method
    betas: tuple[float, float] = (0.9, 0.98)
    weight_decay: float = 0.01
    grad_clip: float = 1.0

    def __post_init__(self) -> None:
        for name in ("k", "proto_k", "anchor_window", "forget_window", "lora_r"):
            check_int(f"GUConfig.{name}", getattr(self, name), minimum=1)
        for name in ("w_dir", "alpha_energy", "w_proto", "w_refusal", "w_cf", "lambda_bg", "w_retain",
                     "w_lora_reg"):
            check_positive(f"GUConfig.{name}", getattr(self, name), strict=False)
        for name in ("mask_decay", "retain_T", "bg_T", "lr", "lora_alpha", "hit_boost_max"):
            check_positive(f"GUConfig.{name}", getattr(self, name))
        if self.basis not in ("safe", "random"):
            raise ValueError(f"GUConfig.basis must be 'safe' or 'random', got {self.basis!r}")


# ----------------------------------------------------------------------------- model access
def base_lm(model: nn.Module) -> nn.Module:
    """The TinyLM inside a peft wrapper (or the model itself)."""
    return model.get_base_model() if hasattr(model, "get_base_model") else model


def forward_with_states(model: nn.Module, ids: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Logits (B, L, V) and the residual stream after every block, a list of (B, L, H).

    Runs the blocks of a :class:`~icml26.nn.transformer.TinyLM` (LoRA layers, if any, are inside them).
    """
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        raise ValueError(f"ids must be a (batch, seq) tensor, got {type(ids).__name__}")
    lm = base_lm(model)
    x = lm.tok(ids) + lm.pos(torch.arange(ids.shape[1], device=ids.device))
    states = []
    for blk in lm.blocks:
        x, _ = blk(x)
        states.append(x)
    return lm.head(lm.ln_f(x)), states


# ----------------------------------------------------------------------------- name hits and masks
def find_name_hits(ids: torch.Tensor, names: Sequence[Sequence[int]]) -> list[list[tuple[int, int]]]:
    """Spans ``(start, end)`` (inclusive) of every exact occurrence of a name's token ids, per row.

    Word-level tokens make the match exact; the paper allows one mismatched sub-word token.
    """
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        raise ValueError(f"ids must be a (batch, seq) tensor, got {type(ids).__name__}")
    if isinstance(names, (str, bytes)) or not len(names) or any(len(n) == 0 for n in names):
        raise ValueError("names must be a non-empty list of non-empty token-id lists")
    rows = ids.tolist()
    out = []
    for row in rows:
        spans = set()
        for pat in names:
            pat = list(pat)
            for j in range(len(row) - len(pat) + 1):
                if row[j:j + len(pat)] == pat:
                    spans.add((j, j + len(pat) - 1))
        out.append(sorted(spans))
    return out


def forget_token_mask(hits: Sequence[Sequence[tuple[int, int]]], valid: torch.Tensor, *, window: int = 8,
                      decay: float = 2.0, tail_to_eos: bool = True) -> torch.Tensor:
    """(B, L) weights: ``exp(-dist / decay)`` within ``window`` tokens of each hit's last token (both sides,
    1 at the hit), and 1 from the first hit to the end of the sequence when ``tail_to_eos``.
    ``valid`` (B, L) bool marks real (non-pad) tokens."""
    valid = torch.as_tensor(valid, dtype=torch.bool)
    if valid.dim() != 2 or len(hits) != valid.shape[0]:
        raise ValueError(f"valid must be (batch, seq) with batch = len(hits) = {len(hits)}")
    window = check_int("window", window, minimum=0)
    decay = check_positive("decay", decay)
    b, n = valid.shape
    m = torch.zeros(b, n)
    for i, spans in enumerate(hits):
        for _, p in spans:
            for j in range(max(0, p - window), min(n, p + window + 1)):
                m[i, j] = max(float(m[i, j]), math.exp(-abs(j - p) / decay))
        if tail_to_eos and spans:
            start = min(p for _, p in spans)
            m[i, start:] = 1.0
    return m * valid.float()


def tail_mask(hits: Sequence[Sequence[tuple[int, int]]], valid: torch.Tensor, *, include_hit: bool = False
              ) -> torch.Tensor:
    """(B, L) 1 on the tokens after the first hit's last token (inclusive when ``include_hit``)."""
    valid = torch.as_tensor(valid, dtype=torch.bool)
    m = torch.zeros(valid.shape)
    for i, spans in enumerate(hits):
        if spans:
            start = min(p for _, p in spans) + (0 if include_hit else 1)
            m[i, start:] = 1.0
    return m * valid.float()


def pooled(states: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Weighted mean over positions: (B, L, H), (B, L) -> (B, H)."""
    w = weights.to(states.dtype)
    return (states * w.unsqueeze(-1)).sum(1) / w.sum(1, keepdim=True).clamp_min(1.0)


# ----------------------------------------------------------------------------- the safe subspace
def safe_subspace(anchors: torch.Tensor | np.ndarray, k: int = 4, proto_k: int = 16
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(mu (H,), V (H, k), proto (H,))`` from anchor states (N, H).

    ``V``: the top-k right singular vectors of the centred anchors (principal directions); ``proto``: the
    mean of the ``proto_k`` anchors with the smallest mean squared distance to ``mu``.
    """
    arr = as_array("anchors", anchors.detach().numpy() if isinstance(anchors, torch.Tensor) else anchors, ndim=2)
    check_finite("anchors", arr)
    x = torch.as_tensor(arr, dtype=torch.float32)
    k = check_int("k", k, minimum=1)
    proto_k = check_int("proto_k", proto_k, minimum=1)
    if x.shape[0] < 2:
        raise ValueError(f"anchors needs at least 2 rows, got {x.shape[0]}")
    mu = x.mean(0)
    xc = x - mu
    k = min(k, *xc.shape)
    _, _, vh = torch.linalg.svd(xc, full_matrices=False)
    v = vh[:k].T.contiguous()
    d = (x - mu).pow(2).mean(1)
    near = torch.topk(d, k=min(proto_k, x.shape[0]), largest=False).indices
    return mu, v, x[near].mean(0)


def random_subspace(dim: int, k: int, seed: int) -> torch.Tensor:
    """A uniformly random orthonormal (dim, k) basis (the random-subspace control)."""
    dim, k, seed = check_int("dim", dim, minimum=1), check_int("k", k, minimum=1), check_int("seed", seed, minimum=0)
    g = torch.Generator().manual_seed(seed)
    q, _ = torch.linalg.qr(torch.randn(dim, min(k, dim), generator=g))
    return q


def geometric_losses(z: torch.Tensor, mu: torch.Tensor, v: torch.Tensor, proto: torch.Tensor
                     ) -> dict[str, torch.Tensor]:
    """``L_dir``, ``L_energy``, ``L_proto`` of pooled states ``z`` (B, H) against one layer's subspace."""
    if z.dim() != 2 or v.dim() != 2 or v.shape[0] != z.shape[1]:
        raise ValueError(f"z must be (B, H) and v (H, k); got {tuple(z.shape)} and {tuple(v.shape)}")
    zc = z - mu
    z_safe = zc @ v @ v.T
    z_danger = zc - z_safe
    return {"dir": 1.0 - F.cosine_similarity(zc, z_safe, dim=-1, eps=1e-6).mean(),
            "energy": (z_danger.pow(2).sum(-1) / z.shape[1]).mean(),
            "proto": (z - proto).pow(2).mean()}


def masked_kl(student: torch.Tensor, teacher: torch.Tensor, weights: torch.Tensor, T: float) -> torch.Tensor:
    """``T^2 KL(softmax(teacher/T) || softmax(student/T))`` per token, weighted mean: (B, L, V) x2, (B, L)."""
    kl = F.kl_div(F.log_softmax(student / T, -1), F.softmax(teacher / T, -1), reduction="none").sum(-1) * T * T
    return (kl * weights).sum() / weights.sum().clamp_min(1.0)


@torch.no_grad()
def anchor_states(model: nn.Module, ids: torch.Tensor, valid: torch.Tensor, hits, window: int = 16
                  ) -> list[torch.Tensor]:
    """Per block, the anchors' hidden states mean-pooled over +-``window`` tokens around the name: (N, H)."""
    _, states = forward_with_states(model, ids)
    w = torch.zeros(ids.shape)
    for i, spans in enumerate(hits):
        for s, e in spans:
            w[i, max(0, s - window):min(ids.shape[1], e + window + 1)] = 1.0
    w = w * torch.as_tensor(valid, dtype=torch.bool).float()
    return [pooled(h, w) for h in states]


# ----------------------------------------------------------------------------- data for one run
@dataclass
class UnlearnBatch:
    """Pre-tokenised, right-padded tensors that a method's loss draws rows from.

    ``forget_prompts`` (Nf, Lp) with ``forget_valid``; ``forget_refusal`` (Nf, Lr) prompt + refusal + EOS with
    ``forget_refusal_tgt`` (Nf, Lr - 1) targets on the refusal only; ``forget_seq`` / ``forget_seq_tgt``
    prompt + continuation with targets on the continuation (GA-type losses), ``forget_idk`` /
    ``forget_idk_tgt`` prompt + refusal (IDK-SFT); ``retain_seq`` / ``retain_seq_tgt`` / ``retain_valid``
    retain prompt + continuation.
    """

    forget_prompts: torch.Tensor
    forget_valid: torch.Tensor
    forget_refusal: torch.Tensor
    forget_refusal_tgt: torch.Tensor
    forget_seq: torch.Tensor
    forget_seq_tgt: torch.Tensor
    retain_seq: torch.Tensor
    retain_seq_tgt: torch.Tensor
    retain_valid: torch.Tensor
    names: list[list[int]]
    unk_id: int
    _masks: dict = field(default_factory=dict, repr=False)

    def masks(self, cfg: GUConfig) -> tuple[list, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(hits, forget token mask, post-name tail mask, name-masked ids) of every forget prompt, computed once
        per mask configuration (the prompts are fixed during a run)."""
        key = (cfg.forget_window, cfg.mask_decay, cfg.tail_to_eos)
        if key not in self._masks:
            hits = find_name_hits(self.forget_prompts, self.names)
            m = forget_token_mask(hits, self.forget_valid, window=cfg.forget_window, decay=cfg.mask_decay,
                                  tail_to_eos=cfg.tail_to_eos)
            masked = self.forget_prompts.clone()
            for i, spans in enumerate(hits):
                for s, e in spans:
                    masked[i, s:e + 1] = self.unk_id
            self._masks[key] = (hits, m, tail_mask(hits, self.forget_valid), masked)
        return self._masks[key]

    @torch.no_grad()
    def teacher_logits(self, teacher: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
        """The frozen teacher's logits on every forget prompt and every retain row, computed once."""
        if "teacher" not in self._masks or self._masks["teacher"][0] is not teacher:
            self._masks["teacher"] = (teacher, teacher(self.forget_prompts)[0], teacher(self.retain_seq)[0])
        return self._masks["teacher"][1], self._masks["teacher"][2]


# ----------------------------------------------------------------------------- losses
def _nll(model: nn.Module, ids: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    logits, _ = model(ids[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=-100)


def _seq_logprob(model: nn.Module, ids: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    logits, _ = model(ids[:, :-1])
    lp = torch.log_softmax(logits, -1).gather(-1, tgt.clamp_min(0).unsqueeze(-1)).squeeze(-1)
    return (lp * (tgt != -100)).sum(1)


def gu_loss(model: nn.Module, teacher: nn.Module, batch: UnlearnBatch, fi: torch.Tensor, ri: torch.Tensor,
            subspace: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]], cfg: GUConfig, step: int
            ) -> dict[str, torch.Tensor]:
    """GU's total loss on forget rows ``fi`` and retain rows ``ri`` (indices into ``batch``); the terms too.

    ``subspace[l] = (mu, V, proto)`` for each target layer, in ``cfg.target_layers`` order.
    """
    ids, valid = batch.forget_prompts[fi], batch.forget_valid[fi]
    all_hits, all_m, all_tail, all_masked = batch.masks(cfg)
    m = all_m[fi]
    has = m.sum(1) > 0
    logits, states = forward_with_states(model, ids)
    zero = torch.zeros(())
    out = {"dir": zero, "energy": zero, "proto": zero, "refusal": zero, "cf": zero}
    if has.any():
        hm = m[has]
        terms = [geometric_losses(pooled(states[layer][has], hm), *subspace[j])
                 for j, layer in enumerate(cfg.target_layers)]
        for key in ("dir", "energy", "proto"):
            out[key] = torch.stack([t[key] for t in terms]).mean()
        if cfg.w_refusal > 0:
            out["refusal"] = _nll(model, batch.forget_refusal[fi][has], batch.forget_refusal_tgt[fi][has])
        if cfg.w_cf > 0:
            with torch.no_grad():
                _, cf_states = forward_with_states(model, all_masked[fi])
            tm = all_tail[fi][has]
            out["cf"] = torch.stack([F.mse_loss(pooled(states[layer][has], tm), pooled(cf_states[layer][has], tm))
                                     for layer in cfg.target_layers]).mean()
    forget = (cfg.w_dir * out["dir"] + cfg.alpha_energy * out["energy"] + cfg.w_proto * out["proto"]
              + cfg.w_refusal * out["refusal"] + cfg.w_cf * out["cf"])
    scale = min(cfg.hit_boost_max, len(fi) / max(1.0, float(has.sum()))) if has.any() else 1.0
    forget = forget * scale if step < cfg.forget_end_step else forget * 0.0
    t_forget, t_retain = batch.teacher_logits(teacher)  # teacher is frozen: rows are fixed, so cache
    t_logits, t_r = t_forget[fi], t_retain[ri]
    r_ids, r_valid = batch.retain_seq[ri], batch.retain_valid[ri]
    bg = (valid.float() - m).clamp_min(0.0)
    out["bg"] = masked_kl(logits[:, :-1], t_logits[:, :-1], bg[:, :-1], cfg.bg_T)
    s_r, _ = model(r_ids)
    out["retain"] = masked_kl(s_r, t_r, r_valid.float(), cfg.retain_T)
    reg = sum(p.pow(2).sum() for n, p in model.named_parameters() if p.requires_grad and "lora" in n)
    out["total"] = forget + cfg.lambda_bg * out["bg"] + cfg.w_retain * out["retain"] + cfg.w_lora_reg * reg
    return out


def baseline_loss(kind: str, model: nn.Module, teacher: nn.Module, batch: UnlearnBatch, fi: torch.Tensor,
                  ri: torch.Tensor, *, npo_beta: float = 0.1) -> dict[str, torch.Tensor]:
    """GA / GradDiff / NPO / IDK-SFT loss on forget rows ``fi`` of ``batch.forget_seq`` and retain rows ``ri``.

    For ``idk`` the forget rows are ``batch.forget_refusal`` (the forget prompt followed by the refusal).
    """
    if kind not in BASELINES:
        raise ValueError(f"kind must be one of {BASELINES}, got {kind!r}")
    check_positive("npo_beta", npo_beta)
    f_ids, f_tgt = batch.forget_seq[fi], batch.forget_seq_tgt[fi]
    out: dict[str, torch.Tensor] = {}
    if kind == "ga" or kind == "graddiff":
        out["forget"] = -_nll(model, f_ids, f_tgt)
    elif kind == "npo":
        lp = _seq_logprob(model, f_ids, f_tgt)
        with torch.no_grad():
            lp_ref = _seq_logprob(teacher, f_ids, f_tgt)
        out["forget"] = -(2.0 / npo_beta) * F.logsigmoid(-npo_beta * (lp - lp_ref)).mean()
    else:
        out["forget"] = _nll(model, batch.forget_refusal[fi], batch.forget_refusal_tgt[fi])
    out["retain"] = (torch.zeros(()) if kind == "ga"
                     else _nll(model, batch.retain_seq[ri], batch.retain_seq_tgt[ri]))
    out["total"] = out["forget"] + out["retain"]
    return out


# ----------------------------------------------------------------------------- the training loop
@dataclass
class Trace:
    """Evaluations along one unlearning run: one dict of probe values per checkpoint, and the stop step."""

    steps: list[int]
    evals: list[dict[str, float]]
    stopped_at: int
    losses: list[float]


def early_stop_met(history: Sequence[dict[str, float]], *, target_max: float = 0.03, keep_min: float = 0.7,
                   patience: int = 3) -> bool:
    """The paper's rule: validation target accuracy <= 0.03 and non-target accuracy >= 0.7 for
    ``patience`` evaluations in a row (keys ``val_forget`` and ``val_retain``)."""
    patience = check_int("patience", patience, minimum=1)
    if len(history) < patience:
        return False
    return all(h["val_forget"] <= target_max and h["val_retain"] >= keep_min for h in history[-patience:])


def unlearn(model: nn.Module, loss_fn: Callable[[nn.Module, int, torch.Generator], dict[str, torch.Tensor]], *,
            steps: int, evaluate: Callable[[nn.Module], dict[str, float]], eval_every: int, cfg: GUConfig,
            seed: int, stop: Callable[[list[dict[str, float]]], bool] = early_stop_met) -> Trace:
    """Train the trainable (LoRA) parameters of ``model`` on ``loss_fn(model, step, gen)["total"]`` with Adam
    (``cfg.lr``, ``cfg.betas``, ``cfg.weight_decay``, clipping ``cfg.grad_clip``); evaluate at step 0 and every
    ``eval_every`` steps; stop when ``stop(evaluations)`` holds or after ``steps``.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's unlearning update on the
    LoRA parameters, with its own loss terms per step.
    """
    steps = check_int("steps", steps, minimum=1)
    eval_every = check_int("eval_every", eval_every, minimum=1)
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("model has no trainable parameters (add LoRA first)")
    opt = torch.optim.Adam(params, lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay)
    gen = torch.Generator().manual_seed(int(seed))
    trace = Trace([0], [evaluate(model)], 0, [])
    for step in range(steps):
        model.train()
        loss = loss_fn(model, step, gen)["total"]
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(params, cfg.grad_clip)
        opt.step()
        trace.losses.append(float(loss.detach()))
        if (step + 1) % eval_every == 0:
            model.eval()
            trace.steps.append(step + 1)
            trace.evals.append(evaluate(model))
            trace.stopped_at = step + 1
            if stop(trace.evals):
                break
    model.eval()
    return trace


def with_lora(model: nn.Module, cfg: GUConfig, seed: int) -> nn.Module:
    """A deep copy of ``model`` with LoRA (peft) on ``v_proj`` / ``o_proj``: r, alpha, dropout from ``cfg``."""
    from icml26.nn.lora import add_lora

    return add_lora(copy.deepcopy(model), r=cfg.lora_r, alpha=cfg.lora_alpha, target_modules=["v_proj", "o_proj"],
                    dropout=cfg.lora_dropout, seed=int(seed))


def matched_retain(trace_forget: Sequence[float], trace_retain: Sequence[float], forget_level: float,
                   tol: float = 0.05) -> float:
    """The best retain accuracy over checkpoints whose forget accuracy is <= ``forget_level + tol``;
    0.0 when no checkpoint gets there (the run cannot reach that forget level within its budget)."""
    f = as_array("trace_forget", trace_forget, ndim=1)
    r = as_array("trace_retain", trace_retain, ndim=1)
    check_finite("trace_forget", f)
    check_finite("trace_retain", r)
    if f.shape != r.shape:
        raise ValueError(f"trace_forget and trace_retain differ in length: {f.size} vs {r.size}")
    if not (isinstance(forget_level, (int, float)) and math.isfinite(forget_level)):
        raise ValueError(f"forget_level must be a finite number, got {forget_level!r}")
    check_positive("tol", tol, strict=False)
    ok = f <= forget_level + tol + 1e-12
    return float(r[ok].max()) if ok.any() else 0.0


def config_for(method: str, base: GUConfig | None = None) -> GUConfig:
    """GU's config for GU itself and its two equal-data ablations (``gu``, ``gu_random``, ``refusal``).

    ``refusal``: the refusal term alone at weight 1 (plain refusal tuning on the same prompts) with the
    same keep terms; every geometric weight set to 0.
    """
    base = base or GUConfig()
    if method == "gu":
        return base
    if method == "gu_random":
        return replace(base, basis="random")
    if method == "refusal":
        return replace(base, w_dir=0.0, alpha_energy=0.0, w_proto=0.0, w_cf=0.0, w_refusal=1.0)
    raise ValueError(f"method must be 'gu', 'gu_random' or 'refusal', got {method!r}")


def EXAMPLES():
    """Public functions with good arguments, for the common bad-input test."""
    x = torch.randn(20, 8)
    return [
        (safe_subspace, {"anchors": x.numpy(), "k": 2, "proto_k": 4}),
        (random_subspace, {"dim": 8, "k": 2, "seed": 0}),
        (matched_retain, {"trace_forget": [0.5, 0.1, 0.0], "trace_retain": [1.0, 0.9, 0.8], "forget_level": 0.0}),
        (early_stop_met, {"history": [{"val_forget": 0.0, "val_retain": 1.0}] * 3, "patience": 3}),
    ]
