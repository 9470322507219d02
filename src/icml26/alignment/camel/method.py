"""CAMEL: confidence-gated reflection for a pairwise generative judge (arXiv:2602.20670).

The judge reads (query, response A, response B) and emits one verdict token v0. Its
confidence is the log-probability margin of the two verdict tokens at that position,

    c = | log p(A | x) - log p(B | x) |                                   (the verdict margin)

and reflection is invoked only when c < tau: the judge then continues after v0 with a short
reflection that ends in a final verdict v1 (the gate; tau fixed by hand in the paper, here
traced over the reflection rate it induces). Training is supervised fine-tuning on gold traces
followed by GRPO on the reflection with a binary reward r = 1[v1 correct] and group-normalised
advantages. Counterfactual prefix augmentation (CPA) starts the GRPO rollouts of every item
from both opening verdicts, the correct one and the wrong one, so the reflection is rewarded
for overturning a wrong opening rather than copying it; the control starts them from the
model's own opening verdict only.

Shapes: ``prompts`` a list of token-id lists (``<bos>`` + prompt, optionally + v0); verdicts
are integer arrays with 0 = A and 1 = B; margins are float arrays (n,).

Public: :func:`verdict_logits`, :func:`confidence_gate`, :func:`tau_for_rate`,
:func:`reflect`, :func:`camel_judge`, :func:`sampled_agreement`, :func:`counterfactual_prefixes`,
:func:`sft_judge`, :func:`grpo_judge`, :func:`auroc`, :func:`EXAMPLES`; the scalar Bradley-Terry peer
trained with trl's ``RewardTrainer``: :func:`train_scalar_rm`, :func:`scalar_rm_verdicts`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.lm import sample
from icml26.nn.rl import GRPOConfig, GRPOHistory, grpo_step

from .setting import (MAX_REFLECT, JudgeItem, answer_text, encode_prompts, final_verdict, preference_pairs, sft_batch,
                      tokenizer, verdict_ids)


def _check_prompts(prompts: Sequence[Sequence[int]]) -> list[list[int]]:
    if isinstance(prompts, (str, bytes)) or not isinstance(prompts, (list, tuple)) or not prompts:
        raise ValueError("prompts must be a non-empty list of token-id lists")
    out = []
    for i, p in enumerate(prompts):
        if not isinstance(p, (list, tuple)) or not p or not all(isinstance(t, (int, np.integer)) for t in p):
            raise TypeError(f"prompts[{i}] must be a non-empty list of token ids")
        out.append([int(t) for t in p])
    return out


def _check_items(items: Sequence[JudgeItem]) -> list[JudgeItem]:
    if not isinstance(items, (list, tuple)) or not items:
        raise ValueError("items must be a non-empty list of JudgeItem")
    if not all(isinstance(it, JudgeItem) for it in items):
        raise TypeError("items must contain only JudgeItem")
    return list(items)


# ----------------------------------------------------------------------------- the verdict and its margin
@torch.no_grad()
def verdict_logits(model: torch.nn.Module, prompts: Sequence[Sequence[int]]) -> np.ndarray:
    """log p(A | x) - log p(B | x) at the verdict position of each prompt: (n,).

    The fast verdict is v0 = 0 (A) where this is >= 0, else 1 (B); the margin c is its absolute
    value. Prompts are right-padded into one batch: the model is causal, so the logits at each
    prompt's last position do not see the padding.
    """
    rows = _check_prompts(prompts)
    lengths = torch.tensor([len(r) for r in rows])
    batch = torch.zeros(len(rows), int(lengths.max()), dtype=torch.long)
    for i, r in enumerate(rows):
        batch[i, : len(r)] = torch.tensor(r)
    was = model.training
    model.eval()
    logits, _ = model(batch)
    model.train(was)
    last = torch.log_softmax(logits[torch.arange(len(rows)), lengths - 1].float(), -1)
    a, b = verdict_ids()
    return (last[:, a] - last[:, b]).numpy().astype(float)


def confidence_gate(margin: np.ndarray, tau: float) -> np.ndarray:
    """Boolean (n,): reflect where the verdict margin ``margin`` is below the threshold ``tau``."""
    m = as_array("margin", margin, ndim=1)
    if np.any(m < 0):
        raise ValueError("margin must be >= 0 (an absolute log-probability gap)")
    tau = check_positive("tau", tau, strict=False, finite=False)
    return np.asarray(m < tau)


def tau_for_rate(margin: np.ndarray, rate: float) -> float:
    """The threshold tau at which a fraction ``rate`` of the items (the least confident) reflect."""
    m = as_array("margin", margin, ndim=1)
    rate = check_positive("rate", rate, strict=False)
    if rate > 1:
        raise ValueError(f"rate must lie in [0, 1], got {rate}")
    k = int(round(rate * m.size))
    if k <= 0:
        return 0.0
    if k >= m.size:
        return float("inf")
    s = np.sort(m)
    return float((s[k - 1] + s[k]) / 2) if s[k] > s[k - 1] else float(np.nextafter(s[k - 1], np.inf))


# ----------------------------------------------------------------------------- reflection
@dataclass
class Reflection:
    """Final verdicts (n,) (-1 where no verdict was produced) and reflection lengths in tokens (n,)."""

    verdicts: np.ndarray
    lengths: np.ndarray


@torch.no_grad()
def reflect(model: torch.nn.Module, prompts: Sequence[Sequence[int]], *, greedy: bool = True,
            temperature: float = 1.0, generator: torch.Generator | None = None,
            max_new: int = MAX_REFLECT) -> Reflection:
    """Continue each prompt (which ends with the opening verdict v0) with a reflection and a final verdict."""
    rows = _check_prompts(prompts)
    check_positive("temperature", temperature)
    max_new = check_int("max_new", max_new, minimum=1)
    tok = tokenizer()
    gen = sample(model, rows, max_new, greedy=greedy, temperature=temperature, eos_id=tok.eos_id,
                 pad_id=tok.pad_id, generator=generator)
    comps = gen.as_lists()
    return Reflection(np.array([final_verdict(c) for c in comps], dtype=int),
                      gen.lengths().numpy().astype(float))


@dataclass
class Judgement:
    """CAMEL's output: fast verdicts, margins, which items reflected, final verdicts, tokens used per item."""

    fast: np.ndarray
    margin: np.ndarray
    reflected: np.ndarray
    final: np.ndarray
    tokens: np.ndarray


def camel_judge(model: torch.nn.Module, prompts: Sequence[Sequence[int]], tau: float) -> Judgement:
    """The CAMEL inference procedure: one verdict token, then a reflection only where the margin is below tau.

    A reflection that ends without a verdict keeps the fast verdict. ``tokens`` counts the
    verdict token plus the reflection's tokens.
    """
    rows = _check_prompts(prompts)
    logit = verdict_logits(model, rows)
    fast = (logit < 0).astype(int)
    margin = np.abs(logit)
    gate = confidence_gate(margin, tau)
    final, tokens = fast.copy(), np.ones(len(rows))
    idx = np.flatnonzero(gate)
    if idx.size:
        a, b = verdict_ids()
        ref = reflect(model, [rows[i] + [(a, b)[fast[i]]] for i in idx])
        final[idx] = np.where(ref.verdicts >= 0, ref.verdicts, fast[idx])
        tokens[idx] += ref.lengths
    return Judgement(fast, margin, gate, final, tokens)


@torch.no_grad()
def sampled_agreement(model: torch.nn.Module, prompts: Sequence[Sequence[int]], fast: np.ndarray, *, k: int = 8,
                      generator: torch.Generator | None = None) -> np.ndarray:
    """A costly confidence proxy: the fraction of ``k`` sampled full judgements whose final verdict equals ``fast``.

    Each sample draws v0 at temperature 1 and then a reflection; a sample without a final
    verdict counts its sampled v0. Costs ``k`` reflections per item against the margin's one
    forward pass.
    """
    rows = _check_prompts(prompts)
    f = as_array("fast", fast, ndim=1)
    if f.size != len(rows):
        raise ValueError(f"fast must have one entry per prompt: {f.size} vs {len(rows)}")
    k = check_int("k", k, minimum=1)
    tok = tokenizer()
    a, b = verdict_ids()
    rep = [r for r in rows for _ in range(k)]
    gen = sample(model, rep, MAX_REFLECT + 1, eos_id=tok.eos_id, pad_id=tok.pad_id, generator=generator)
    votes = []
    for c in gen.as_lists():
        v = final_verdict(c[1:])
        votes.append(v if v >= 0 else (0 if c[0] == a else 1 if c[0] == b else -1))
    votes = np.array(votes).reshape(len(rows), k)
    return (votes == f.astype(int)[:, None]).mean(1)


# ----------------------------------------------------------------------------- training
def counterfactual_prefixes(labels: np.ndarray, own: np.ndarray, *, cpa: bool) -> tuple[np.ndarray, np.ndarray]:
    """(item index, opening verdict) of the GRPO groups built from a batch with gold ``labels`` and own verdicts ``own``.

    With ``cpa`` every item appears twice, once with the correct and once with the wrong
    opening verdict; without it every item appears once, opening with the model's own verdict.
    """
    if not isinstance(cpa, bool):
        raise TypeError(f"cpa must be a bool, got {type(cpa).__name__}")
    y = as_array("labels", labels, ndim=1)
    o = as_array("own", own, ndim=1)
    if y.size != o.size:
        raise ValueError(f"labels and own must have the same length, got {y.size} and {o.size}")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("labels must be 0 (A) or 1 (B)")
    if not np.all(np.isin(o, (0, 1))):
        raise ValueError("own must be 0 (A) or 1 (B)")
    n = y.size
    if cpa:
        return np.repeat(np.arange(n), 2), np.stack([y, 1 - y], 1).reshape(-1).astype(int)
    return np.arange(n), o.astype(int)


SCHEDULES = ("cosine", "constant")


def sft_judge(model: torch.nn.Module, items: Sequence[JudgeItem], *, steps: int, batch: int = 64, lr: float = 3e-3,
              seed: int = 0, schedule: str = "cosine", revise_frac: float = 0.0) -> list[float]:
    """Supervised fine-tuning on gold traces (prompt, gold verdict, reflection); returns the loss per step.

    A fraction ``revise_frac`` of the traces open with the wrong verdict, unscored, followed by
    the gold reflection (:func:`~.setting.sft_batch`'s revision traces).

    :func:`icml26.nn.train.train_lm` (AdamW, weight decay 0.01, grad clip 1) with a linear
    warm-up of min(20, steps) steps and then, with ``schedule="cosine"``, a cosine decay to 0.1
    lr, or with ``"constant"``, a constant lr, which leaves the judge less sharp for GRPO (the
    shared arithmetic policy's finding, ``icml26.tasks.policy``).
    """
    from icml26.nn.train import train_lm

    pool = _check_items(items)
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    lr = check_positive("lr", lr)
    revise_frac = check_positive("revise_frac", revise_frac, strict=False)
    if revise_frac > 1:
        raise ValueError(f"revise_frac must lie in [0, 1], got {revise_frac}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    max_len = model.cfg.max_len

    def draw(gen: torch.Generator):
        idx = torch.randint(0, len(pool), (batch,), generator=gen).tolist()
        if revise_frac == 0:  # the first recipe draws nothing more (same batches as before)
            return sft_batch([pool[i] for i in idx], max_len)
        rev = (torch.rand(batch, generator=gen) < revise_frac).tolist()
        return sft_batch([pool[i] for i in idx], max_len, rev)

    return train_lm(model, draw, steps=steps, lr=lr, warmup=min(20, steps), seed=int(seed), schedule=schedule)


def grpo_judge(model: torch.nn.Module, items: Sequence[JudgeItem], *, steps: int, cpa: bool, batch: int = 16,
               group: int = 8, lr: float = 5e-4, beta: float = 0.0, temperature: float = 1.0,
               seed: int = 0) -> GRPOHistory:
    """GRPO on the reflection after a fixed opening verdict, reward 1[final verdict correct].

    Each step draws ``batch`` items (``batch // 2`` with ``cpa``, each then used with both
    openings, so both arms sample the same number of rollouts), computes the model's own
    greedy verdicts, builds the groups with :func:`counterfactual_prefixes`, and takes one
    GRPO step (:func:`icml26.nn.rl.grpo_step`, one epoch per batch; ``beta`` > 0 adds the k3 KL
    penalty to a frozen copy of the starting judge; rollouts are sampled at ``temperature``).
    """
    pool = _check_items(items)
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=2)
    group = check_int("group", group, minimum=2)
    lr = check_positive("lr", lr)
    beta = check_positive("beta", beta, strict=False)
    temperature = check_positive("temperature", temperature)
    if not isinstance(cpa, bool):
        raise TypeError(f"cpa must be a bool, got {type(cpa).__name__}")
    tok = tokenizer()
    cfg = GRPOConfig(group_size=group, max_new=MAX_REFLECT, lr=lr, beta=beta, temperature=temperature,
                     eos_id=tok.eos_id, pad_id=tok.pad_id)
    ref = None
    if beta > 0:
        ref = copy.deepcopy(model).eval()
        for q in ref.parameters():
            q.requires_grad_(False)
    gen = torch.Generator().manual_seed(int(seed))
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    hist = GRPOHistory()

    def reward(info, comps):
        return [float(final_verdict(c) == lab) for lab, c in zip(info, comps)]

    n_items = batch // 2 if cpa else batch
    for _ in range(steps):
        idx = torch.randint(0, len(pool), (n_items,), generator=gen).tolist()
        chosen = [pool[i] for i in idx]
        base = encode_prompts(chosen)
        own = (verdict_logits(model, base) < 0).astype(int)
        labels = np.array([it.label for it in chosen])
        which, prefix = counterfactual_prefixes(labels, own, cpa=cpa)
        prompts = encode_prompts([chosen[i] for i in which], prefix)
        hist.steps.append(grpo_step(model, ref, opt, prompts, reward, cfg,
                                    prompt_info=[int(labels[i]) for i in which], generator=gen))
    model.eval()
    return hist


# ----------------------------------------------------------------------------- the scalar reward-model peer
@dataclass
class ScalarRM:
    """A scalar Bradley-Terry reward model: a tiny ``LlamaForSequenceClassification`` (one output) and its tokenizer.

    ``logs`` holds trl's logged training records (loss, batch accuracy, margin) per logging window.
    """

    model: torch.nn.Module
    tokenizer: object
    logs: list[dict]

    @torch.no_grad()
    def score(self, texts: Sequence[str]) -> np.ndarray:
        """The scalar reward of each text (eos appended, as in training): (n,)."""
        if isinstance(texts, str) or not isinstance(texts, (list, tuple)):
            raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
        if not texts:
            raise ValueError("texts must be a non-empty list of strings")
        if not all(isinstance(t, str) and t for t in texts):
            raise TypeError("texts must contain only non-empty strings")
        was = self.model.training
        self.model.eval()
        eos = self.tokenizer.eos_token  # trl's RewardTrainer ends every training text with eos: score the same way
        texts = [t if t.endswith(eos) else t + eos for t in texts]
        out = []
        for i in range(0, len(texts), 512):
            enc = self.tokenizer(texts[i: i + 512], return_tensors="pt", padding=True)
            out.append(self.model(**enc).logits[:, 0].float().numpy())
        self.model.train(was)
        return np.concatenate(out).astype(float)


def _rm_ids(tok, texts: list[str]) -> list[list[int]]:
    """The ids trl's RewardTrainer would give ``texts`` (eos appended, then tokenised, no bos), in one batched call."""
    return [e.ids for e in tok.backend_tokenizer.encode_batch([t + tok.eos_token for t in texts])]


def train_scalar_rm(items: Sequence[JudgeItem], *, steps: int, batch: int = 64, lr: float = 3e-3, d_model: int = 48,
                    n_layers: int = 2, n_heads: int = 4, seed: int = 0) -> ScalarRM:
    """The scalar discriminative judge CAMEL is set against, trained with trl's ``RewardTrainer``.

    Preference data: each item's (correct answer, wrong answer) texts (:func:`~.setting.preference_pairs`),
    the first ``steps * batch`` items of a seeded permutation, one pass, so the RM sees each
    pair once. The model is a ``LlamaForSequenceClassification`` built from a config (no
    download) with the judge's width, depth and heads and its character tokenizer
    (``Tokenizer.to_transformers``); trl's loss is -log sigmoid(r_chosen - r_rejected) (the
    shared ``reward_model_loss``), optimised by the Trainer's AdamW with a 20-step warm-up and
    then a constant ``lr``. The global torch/numpy/random states, which the Trainer reseeds,
    are restored on return. Trained in float32 without gradient checkpointing (trl's RewardConfig
    defaults, bf16 autocast and gradient checkpointing, are GPU memory savers that cost about 6x the
    CPU time here; fifth session), on texts tokenised by :func:`_rm_ids`.
    """
    import random
    import tempfile

    pool = _check_items(items)
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    lr = check_positive("lr", lr)
    d_model = check_int("d_model", d_model, minimum=1)
    n_layers = check_int("n_layers", n_layers, minimum=1)
    n_heads = check_int("n_heads", n_heads, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    if d_model % n_heads:
        raise ValueError(f"d_model must be a multiple of n_heads, got {d_model} and {n_heads}")

    import datasets
    import transformers
    from transformers import LlamaConfig, LlamaForSequenceClassification
    from trl import RewardConfig, RewardTrainer

    datasets.disable_progress_bars()
    transformers.logging.set_verbosity_error()
    order = np.random.default_rng(seed).permutation(len(pool))[: steps * batch]
    chosen, rejected = preference_pairs([pool[i] for i in order])
    tok = tokenizer().to_transformers()
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=d_model, intermediate_size=4 * d_model,
                      num_hidden_layers=n_layers, num_attention_heads=n_heads, num_key_value_heads=n_heads,
                      max_position_embeddings=64, num_labels=1, pad_token_id=tok.pad_token_id,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    # tokenised here (trl skips its own per-example datasets.map when the columns chosen_ids / rejected_ids exist)
    data = datasets.Dataset.from_dict({"chosen_ids": _rm_ids(tok, chosen), "rejected_ids": _rm_ids(tok, rejected)})
    states = (torch.random.get_rng_state(), np.random.get_state(), random.getstate())
    try:
        torch.manual_seed(seed)
        model = LlamaForSequenceClassification(cfg)
        with tempfile.TemporaryDirectory() as out:
            args = RewardConfig(output_dir=out, max_steps=steps, per_device_train_batch_size=batch, learning_rate=lr,
                                lr_scheduler_type="constant_with_warmup", warmup_steps=min(20, steps),
                                logging_steps=max(1, steps // 10), save_strategy="no", report_to=[], seed=seed,
                                data_seed=seed, use_cpu=True, dataloader_num_workers=0, disable_tqdm=True,
                                max_length=64, gradient_checkpointing=False, bf16=False)
            trainer = RewardTrainer(model=model, args=args, processing_class=tok,
                                    train_dataset=data)
            trainer.remove_callback(transformers.trainer_callback.PrinterCallback)  # its logs are kept in ``logs``
            trainer.train()
            logs = [dict(r) for r in trainer.state.log_history if "loss" in r]
    finally:
        torch.random.set_rng_state(states[0])
        np.random.set_state(states[1])
        random.setstate(states[2])
    model.eval()
    return ScalarRM(model, tok, logs)


def scalar_rm_verdicts(rm: ScalarRM, items: Sequence[JudgeItem]) -> np.ndarray:
    """The scalar judge's verdicts (n,): 0 (A) where r(A) >= r(B), else 1 (B)."""
    if not isinstance(rm, ScalarRM):
        raise TypeError(f"rm must be a ScalarRM, got {type(rm).__name__}")
    pool = _check_items(items)
    r = rm.score([answer_text(it, k) for it in pool for k in (0, 1)]).reshape(len(pool), 2)
    return (r[:, 0] < r[:, 1]).astype(int)


# ----------------------------------------------------------------------------- evaluation
def auroc(score: np.ndarray, correct: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for predicting ``correct`` (sklearn's roc_auc_score); NaN if one class."""
    from sklearn.metrics import roc_auc_score

    s = as_array("score", score, ndim=1)
    c = as_array("correct", correct, ndim=1)
    if s.size != c.size:
        raise ValueError(f"score and correct must have the same length, got {s.size} and {c.size}")
    if not np.all(np.isin(c, (0, 1))):
        raise ValueError("correct must hold 0/1 values")
    if c.min() == c.max():
        return float("nan")
    return float(roc_auc_score(c, s))


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test."""
    m = np.array([0.1, 2.0, 0.5, 1.5])
    return [
        (confidence_gate, {"margin": m, "tau": 0.7}, {"tau": {"inf"}}),
        (tau_for_rate, {"margin": m, "rate": 0.5}),
        (auroc, {"score": m, "correct": np.array([0.0, 1.0, 0.0, 1.0])}),
        (counterfactual_prefixes, {"labels": np.array([0.0, 1.0]), "own": np.array([1.0, 1.0]), "cpa": True}),
    ]

