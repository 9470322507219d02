"""ConG: contrastive decoding between a weak model before and after alignment (arXiv:2510.07884).

Implicit reward (the DPO view of an aligned model ``pi_r`` against its pre-alignment
reference ``pi_ref``), per token and per response:

    r_t = log pi_r(y_t | x, y_<t) - log pi_ref(y_t | x, y_<t),        r(x, y) = sum_t r_t.

CD-implicit-reward equivalence (the paper's Sec. 3; the released generator's
``_contrastive_decoding``): decode with the score

    F(v) = log pi_r(v | .) - (1 - alpha) log pi_ref(v | .)
         = (1 - alpha) [log pi_r(v | .) - log pi_ref(v | .)] + alpha log pi_r(v | .)   for v in V_head,
    F(v) = -inf otherwise,   V_head = {v : pi_r(v | .) >= tau * max_w pi_r(w | .)}  (tau = relative_top = 0.1),

so ``alpha = 0`` maximises the token-level implicit reward inside the plausible set and
``alpha = 1`` is plain ``pi_r`` restricted to that set. As in the released code, the score then
passes through Hugging Face's logits processors in their order -- repetition penalty 1.2 over
prompt and generated tokens, temperature 0.8, top-p 0.95 -- and is sampled. The released
scripts sweep alpha over {0, 0.1, ..., 1}; their training data default is alpha = 0.5.

Pipeline (Sec. 4): (1) ``pi_r`` = DPO of the weak model on best-vs-worst of 5 samples scored
by a reward model; (2) CD samples on the training prompts; (3) ConG-S = SFT of the strong model
on them; (4) ConG = DPO of ConG-S with chosen = CD sample, rejected = ConG-S's own sample
(sigmoid loss, beta = 0.5). Baselines: WeakSFT (SFT on naive ``pi_r`` samples), AuxConf (Burns
et al. 2024: cross-entropy to the weak label mixed with cross-entropy to the strong model's own
hardened prediction, weight ramped to ``aux_max``), WSPO (Zhu et al.: the strong model's
log-ratio scaled by beta regresses on the weak log-ratio, token by token, as in the
repository's ``wspo`` trainer).

Shapes: ``prompts`` (n, P) long, ``responses`` (n, L) long; models are
:class:`~icml26.nn.transformer.TinyLM`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from icml26.alignment._dpo import train_loop, train_preference
from icml26.core.validate import as_array, check_finite, check_int, check_positive
from icml26.nn.lm import filter_logits, token_logprobs
from icml26.nn.transformer import TinyLM

RELATIVE_TOP = 0.1
REPETITION_PENALTY = 1.2
TEMPERATURE = 0.8
TOP_P = 0.95


# ----------------------------------------------------------------------------- the CD step
def _logits(name: str, x: Any) -> torch.Tensor:
    t = as_array(name, x, ndim=2)
    t = torch.as_tensor(t, dtype=torch.float32) if not isinstance(t, torch.Tensor) else t.float()
    return t


def _unit(name: str, x: Any) -> float:
    v = check_positive(name, x, strict=False)
    if v > 1:
        raise ValueError(f"{name} must lie in [0, 1], got {x!r}")
    return v


def plausible_head(logits_r: torch.Tensor, relative_top: float = RELATIVE_TOP) -> torch.Tensor:
    """Adaptive plausibility set V_head as a bool mask (batch, vocab): pi_r(v) >= tau * max pi_r.

    The argmax token is always kept (``min_tokens_to_keep = 1``).
    """
    lr = _logits("logits_r", logits_r).log_softmax(-1)
    tau = check_positive("relative_top", relative_top)
    if tau > 1:
        raise ValueError(f"relative_top must lie in (0, 1], got {relative_top!r}")
    thresh = lr.max(-1, keepdim=True).values + float(np.log(tau))
    return lr >= thresh


def cd_scores(logits_r: Any, logits_ref: Any, *, alpha: float = 0.5,
              relative_top: float | None = RELATIVE_TOP) -> torch.Tensor:
    """The CD score F (batch, vocab): ``log pi_r - (1 - alpha) log pi_ref`` on V_head, ``-inf`` elsewhere.

    ``logits_r``, ``logits_ref``: next-token logits of the aligned and the pre-alignment model.
    ``relative_top=None`` drops the plausibility constraint.
    """
    lr = _logits("logits_r", logits_r)
    lref = _logits("logits_ref", logits_ref)
    if lr.shape != lref.shape:
        raise ValueError(f"logits_r and logits_ref must have the same shape, got {tuple(lr.shape)} and "
                         f"{tuple(lref.shape)}")
    alpha = _unit("alpha", alpha)
    lp_r, lp_ref = lr.log_softmax(-1), lref.log_softmax(-1)
    score = lp_r - (1.0 - alpha) * lp_ref
    if relative_top is not None:
        score = score.masked_fill(~plausible_head(lr, relative_top), float("-inf"))
    return score


def repetition_penalty(scores: Any, seen: Any, penalty: float = REPETITION_PENALTY) -> torch.Tensor:
    """Hugging Face's repetition penalty: for every token id in ``seen`` (batch, t), a score s becomes
    ``s * penalty`` if s < 0 and ``s / penalty`` otherwise. ``-inf`` stays ``-inf``."""
    s = as_array("scores", scores, ndim=2, finite=False)
    s = torch.as_tensor(s, dtype=torch.float32) if not isinstance(s, torch.Tensor) else s.float()
    if bool(torch.isnan(s).any()):
        raise ValueError("scores contains NaN")
    ids = torch.as_tensor(as_array("seen", seen, ndim=2, dtype=np.int64), dtype=torch.long)
    if ids.shape[0] != s.shape[0]:
        raise ValueError(f"seen must have one row per score row: {ids.shape[0]} vs {s.shape[0]}")
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= s.shape[1]):
        raise ValueError(f"seen holds token ids outside [0, {s.shape[1]})")
    penalty = check_positive("penalty", penalty)
    got = s.gather(1, ids)
    got = torch.where(got < 0, got * penalty, got / penalty)
    return s.scatter(1, ids, got)


@torch.no_grad()
def decode(model_r: TinyLM, prompts: Any, n_new: int, *, model_ref: TinyLM | None = None, alpha: float = 1.0,
           relative_top: float | None = None, penalty: float = 1.0, temperature: float = 1.0,
           top_p: float | None = None, greedy: bool = False, generator: torch.Generator | None = None
           ) -> torch.Tensor:
    """Decode ``n_new`` tokens per prompt (n, P) -> (n, n_new) with the CD score and HF's processors.

    ``model_ref=None`` (or ``alpha=1``) is decoding from ``pi_r`` alone; ``relative_top=None`` and
    ``penalty=1``, ``temperature=1``, ``top_p=None`` is plain sampling (the naive sampler).
    """
    n_new = check_int("n_new", n_new, minimum=1)
    p = torch.as_tensor(as_array("prompts", prompts, ndim=2, dtype=np.int64), dtype=torch.long)
    alpha = _unit("alpha", alpha)
    if not isinstance(greedy, bool):
        raise TypeError(f"greedy must be a bool, got {type(greedy).__name__}")
    use_ref = model_ref is not None and alpha < 1.0
    models = [model_r] + ([model_ref] if use_ref else [])
    was = [m.training for m in models]
    for m in models:
        m.eval()
    out = p
    lr, cr = model_r(p)
    if use_ref:
        lf, cf = model_ref(p)
    toks = []
    for step in range(n_new):
        a = lr[:, -1].float()
        b = lf[:, -1].float() if use_ref else torch.zeros_like(a)
        s = cd_scores(a, b, alpha=alpha if use_ref else 1.0, relative_top=relative_top)
        if penalty != 1.0:
            s = repetition_penalty(s, out, penalty)
        s = filter_logits(s, temperature=temperature, top_p=top_p)
        nxt = s.argmax(-1) if greedy else torch.multinomial(s.softmax(-1), 1, generator=generator).squeeze(1)
        toks.append(nxt)
        out = torch.cat([out, nxt[:, None]], 1)
        if step < n_new - 1:
            lr, cr = model_r(nxt[:, None], cache=cr, start=out.shape[1] - 1)
            if use_ref:
                lf, cf = model_ref(nxt[:, None], cache=cf, start=out.shape[1] - 1)
    for m, w in zip(models, was):
        m.train(w)
    return torch.stack(toks, 1)


def contrastive_generate(model_r: TinyLM, model_ref: TinyLM, prompts: Any, n_new: int, *, alpha: float = 0.5,
                         generator: torch.Generator | None = None) -> torch.Tensor:
    """ConG's data generator: CD between ``pi_r`` and ``pi_ref`` with the released defaults
    (relative_top 0.1, repetition penalty 1.2, temperature 0.8, top-p 0.95, sampling)."""
    return decode(model_r, prompts, n_new, model_ref=model_ref, alpha=alpha, relative_top=RELATIVE_TOP,
                  penalty=REPETITION_PENALTY, temperature=TEMPERATURE, top_p=TOP_P, generator=generator)


# ----------------------------------------------------------------------------- implicit reward
@torch.no_grad()
def implicit_reward(model_r: TinyLM, model_ref: TinyLM, prompts: Any, responses: Any, *, beta: float = 1.0
                    ) -> torch.Tensor:
    """beta * sum_t [log pi_r(y_t|.) - log pi_ref(y_t|.)] per row (n,)."""
    p = torch.as_tensor(as_array("prompts", prompts, ndim=2, dtype=np.int64), dtype=torch.long)
    r = torch.as_tensor(as_array("responses", responses, ndim=2, dtype=np.int64), dtype=torch.long)
    if r.shape[0] != p.shape[0]:
        raise ValueError(f"responses must have one row per prompt: {r.shape[0]} vs {p.shape[0]}")
    beta = check_positive("beta", beta)
    a, m = token_logprobs(model_r.eval(), p, r)
    b, _ = token_logprobs(model_ref.eval(), p, r)
    return beta * ((a - b) * m).sum(1)


# ----------------------------------------------------------------------------- strong-model training
def _loop(model: TinyLM, n: int, loss_fn: Callable[[torch.Tensor, float], torch.Tensor], *, steps: int, batch: int,
          lr: float, seed: int) -> list[float]:
    """AdamW with 10% warm-up then cosine decay (the paper's schedule); ``loss_fn(idx, progress)``:
    the shared :func:`icml26.alignment._dpo.train_loop` (batches drawn with replacement, norm clipped at 1)."""
    return train_loop(model, n, loss_fn, steps=steps, batch=batch, lr=lr, seed=seed, sampler="replacement",
                      optimizer="adamw", weight_decay=0.0, schedule="warmup_cosine", grad_clip=1.0)


def _pair_tensors(prompts: Any, responses: Any) -> tuple[torch.Tensor, torch.Tensor]:
    p = torch.as_tensor(as_array("prompts", prompts, ndim=2, dtype=np.int64), dtype=torch.long)
    r = torch.as_tensor(as_array("responses", responses, ndim=2, dtype=np.int64), dtype=torch.long)
    if r.shape[0] != p.shape[0]:
        raise ValueError(f"responses must have one row per prompt: {r.shape[0]} vs {p.shape[0]}")
    return p, r


def _response_logits(model: TinyLM, p: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Logits predicting each response token (n, L, vocab), teacher-forced."""
    seq = torch.cat([p, r], 1)
    logits, _ = model(seq[:, :-1])
    return logits[:, p.shape[1] - 1:]


def aux_conf_sft(model: TinyLM, prompts: Any, responses: Any, *, aux_max: float = 0.5, ramp: float = 0.2,
                 steps: int = 200, batch: int = 64, lr: float = 3e-3, seed: int = 0) -> tuple[TinyLM, list[float]]:
    """AuxConf (Burns et al. 2024) on weak labels: a fine-tuned copy of ``model`` and its loss history.

    Token-level loss (1 - a) CE(y_weak) + a CE(argmax of the strong model's own detached prediction),
    ``a`` ramped linearly from 0 to ``aux_max`` over the first ``ramp`` of training.
    """
    p, r = _pair_tensors(prompts, responses)
    aux_max, ramp = _unit("aux_max", aux_max), _unit("ramp", ramp)
    student = copy.deepcopy(model)

    def loss_fn(idx: torch.Tensor, prog: float) -> torch.Tensor:
        a = aux_max * min(1.0, prog / ramp) if ramp > 0 else aux_max
        lg = _response_logits(student, p[idx], r[idx])
        flat = lg.reshape(-1, lg.shape[-1])
        hard = flat.detach().argmax(-1)
        return (1 - a) * F.cross_entropy(flat, r[idx].reshape(-1)) + a * F.cross_entropy(flat, hard)

    hist = _loop(student, len(p), loss_fn, steps=steps, batch=batch, lr=lr, seed=seed)
    return student, hist


def wspo_train(model: TinyLM, weak_r: TinyLM, weak_ref: TinyLM, prompts: Any, responses: Any, *, beta: float = 0.1,
               steps: int = 200, batch: int = 64, lr: float = 1e-3, seed: int = 0) -> tuple[TinyLM, list[float]]:
    """WSPO: fine-tune a copy of the strong ``model`` so that, token by token,
    ``beta * (log pi_s - log pi_s,ref) ~= log pi_r - log pi_ref`` (squared error, mean over tokens)."""
    p, r = _pair_tensors(prompts, responses)
    beta = check_positive("beta", beta)
    with torch.no_grad():
        a, m = token_logprobs(weak_r.eval(), p, r)
        b, _ = token_logprobs(weak_ref.eval(), p, r)
        target = (a - b) * m
        ref, _ = token_logprobs(model.eval(), p, r)
    student = copy.deepcopy(model)

    def loss_fn(idx: torch.Tensor, prog: float) -> torch.Tensor:
        lg = _response_logits(student, p[idx], r[idx]).log_softmax(-1)
        lp = lg.gather(2, r[idx][..., None]).squeeze(2)
        err = beta * (lp - ref[idx]) - target[idx]
        return (err.pow(2) * m[idx]).sum(1).div(m[idx].sum(1)).mean()

    hist = _loop(student, len(p), loss_fn, steps=steps, batch=batch, lr=lr, seed=seed)
    return student, hist


def dpo_train(model: TinyLM, prompts: Any, chosen: Any, rejected: Any, *, beta: float = 0.5, steps: int = 100,
              batch: int = 64, lr: float = 1e-3, seed: int = 0) -> tuple[TinyLM, list[float]]:
    """Sigmoid DPO of a copy of ``model`` against itself as reference (the shared ``_preferences.dpo_loss``),
    trained by the shared preference loop :func:`icml26.alignment._dpo.train_preference` with the schedule of
    :func:`_loop`."""
    p, c = _pair_tensors(prompts, chosen)
    _, rj = _pair_tensors(prompts, rejected)
    if rj.shape != c.shape:
        raise ValueError(f"rejected must have the shape of chosen {tuple(c.shape)}, got {tuple(rj.shape)}")
    beta = check_positive("beta", beta)
    model.eval()
    policy = copy.deepcopy(model)
    hist = train_preference(policy, p, c, rj, reference=model, loss="dpo", beta=beta, steps=steps, batch=batch,
                            lr=lr, seed=seed, sampler="replacement", optimizer="adamw", weight_decay=0.0,
                            schedule="warmup_cosine", grad_clip=1.0)
    return policy, hist


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test."""
    g = torch.Generator().manual_seed(0)
    lr, lf = torch.randn(3, 7, generator=g), torch.randn(3, 7, generator=g)
    return [
        (plausible_head, {"logits_r": lr, "relative_top": 0.1}),
        (cd_scores, {"logits_r": lr, "logits_ref": lf, "alpha": 0.5, "relative_top": 0.1}),
        (repetition_penalty, {"scores": lr, "seen": np.array([[0, 1], [2, 3], [4, 5]]), "penalty": 1.2}),
    ]
