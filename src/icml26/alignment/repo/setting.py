"""The small world of the RePO reproduction: a char-level TinyLM on verifiable arithmetic.

* :func:`make_tokenizer`, :func:`problems`, :func:`completion`: a character tokenizer
  (``icml26.nn.tokenize``) over ``icml26.tasks.arithmetic`` prompts restricted to + and - (level 1 by
  default, ``"7-3="``, 200 distinct problems) and completions that give any intermediate results, then
  the answer (``"#4"`` + EOS at level 1; ``"19;#16"`` for ``"12+7-3="`` at level 2).
* :func:`pretrain_reference`: pi_ref, a TinyLM trained from scratch on scratchpads of which a
  fraction carry a wrong final answer (so pi_ref is right only part of the time), optionally
  stopped once its greedy success on a calibration set reaches a target.
* :func:`rollouts`: ``k`` sampled completions per prompt from the behaviour policy mu (pi_ref at
  temperature ``tau``), with mu's per-token log-probabilities stored, as the paper's math data
  stores the rollout policy's.
* :func:`math_pairs`: correct vs incorrect rollouts of the same prompt (optionally every
  incorrect rollout of a prompt, each paired with a correct one).
* :func:`human_pairs`: rollouts compared by a latent-utility population
  (``_preferences.population`` / ``pairwise_comparisons``): a response's features are
  (correct, closeness of its answer, brevity); users weight them differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from icml26.alignment._preferences import Population, pairwise_comparisons, population
from icml26.core.validate import as_rng, check_int, check_positive
from icml26.nn.lm import sample, sequence_logprob
from icml26.nn.tokenize import Tokenizer, train_tokenizer
from icml26.nn.train import lm_loss, train_lm
from icml26.nn.transformer import LMConfig, TinyLM
from icml26.tasks.arithmetic import ArithmeticProblem, arithmetic_problems, extract_answer

__all__ = ["make_tokenizer", "all_problems", "answer_logprob", "pretrain_reference", "rollouts", "math_pairs", "human_pairs", "success_rate",
           "response_features", "Rollouts", "problems", "completion", "make_population", "true_utility"]

MAX_NEW = 12


def make_tokenizer() -> Tokenizer:
    alphabet = "0123456789+-*=;#"
    return train_tokenizer([alphabet * 2], kind="char", vocab_size=32, normalizer=None)


def completion(p: ArithmeticProblem) -> str:
    """The target completion: the intermediate results, then the answer (``"19;#16"`` for ``12+7-3=``)."""
    return "".join(f"{r};" for *_, r in p.steps()[:-1]) + f"#{p.answer}"


def problems(n: int, *, level: int = 1, seed: Any = 0) -> list[ArithmeticProblem]:
    """``n`` problems of ``icml26.tasks.arithmetic`` at ``level``, restricted to + and -."""
    rng = as_rng("seed", seed)
    out: list[ArithmeticProblem] = []
    while len(out) < n:
        out += [p for p in arithmetic_problems(2 * n, level=level, seed=rng) if "*" not in p.ops]
    return out[:n]


def all_problems() -> list[ArithmeticProblem]:
    """Every level-1 problem restricted to + and - (operands 0..9): the whole world, 200 problems."""
    return [ArithmeticProblem((a, b), (op,), 1) for a in range(10) for op in ("+", "-") for b in range(10)]


def _noisy_answer(p: ArithmeticProblem, rng: np.random.Generator, noise: float) -> str:
    text = completion(p)
    if rng.random() < noise:
        return text.rsplit("#", 1)[0] + "#" + str(p.answer + int(rng.choice([-2, -1, 1, 2])))
    return text


class _Reached(Exception):
    """Raised inside training when the calibration target is met (stops :func:`train_lm`)."""


def pretrain_reference(tok: Tokenizer, *, steps: int = 300, noise: float = 0.3, d_model: int = 32, level: int = 1,
                       seed: Any = 0, calibration: list[ArithmeticProblem] | None = None, target: float | None = None,
                       check_every: int = 25, min_steps: int = 100) -> tuple[TinyLM, list[float]]:
    """pi_ref: a TinyLM trained on prompts + scratchpads, a fraction ``noise`` with a wrong final answer.

    Returns (model, loss of every step run). Without ``target``: exactly ``steps`` steps. With ``target``
    (a success rate in (0, 1]) and a ``calibration`` problem set (not the test set): training stops at the
    first multiple of ``check_every`` steps from ``min_steps`` on at which pi_ref's greedy success on
    ``calibration`` reaches ``target``, at most ``steps`` steps (the lr schedule always spans ``steps``), so
    that pi_ref starts at a similar, intermediate skill in every seed. ``len(hist)`` is the number of steps run.
    """
    steps = check_int("steps", steps, minimum=1)
    noise = check_positive("noise", noise, strict=False)
    if target is not None:
        target = check_positive("target", target)
        if target > 1:
            raise ValueError(f"target must be a success rate in (0, 1], got {target}")
        if not calibration:
            raise ValueError("target needs a non-empty calibration problem set")
        check_every = check_int("check_every", check_every, minimum=1)
        min_steps = check_int("min_steps", min_steps, minimum=1)
    rng = as_rng("seed", seed)
    torch.manual_seed(int(rng.integers(2**31)))
    model = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=d_model, n_layers=2, n_heads=4, max_len=48))
    pool = problems(4000, level=level, seed=rng)
    texts = [tok.encode(p.prompt + _noisy_answer(p, rng, noise), bos=True, eos=True) for p in pool]

    def batch(gen: torch.Generator) -> torch.Tensor:
        idx = torch.randint(0, len(texts), (64,), generator=gen).tolist()
        return tok.pad([texts[i] for i in idx])[0]

    if target is None:
        hist = train_lm(model, batch, steps=steps, lr=3e-3, pad_id=tok.pad_id, seed=int(rng.integers(2**31)))
        return model, hist
    hist: list[float] = []

    def loss_fn(m: TinyLM, b: torch.Tensor, step: int, gen: torch.Generator) -> torch.Tensor:
        loss = lm_loss(m, b, tok.pad_id)
        hist.append(float(loss.detach()))
        return loss

    def on_step(step: int, m: TinyLM) -> None:
        done = step + 1
        if done >= min_steps and done % check_every == 0 and success_rate(m, tok, calibration) >= target:
            raise _Reached

    try:
        train_lm(model, batch, steps=steps, lr=3e-3, seed=int(rng.integers(2**31)), loss_fn=loss_fn, on_step=on_step)
    except _Reached:
        pass
    model.eval()
    return model, hist


@dataclass
class Rollouts:
    problems: list[ArithmeticProblem]
    prompts: list[list[int]]          # per problem
    responses: list[list[list[int]]]  # per problem, k token lists (EOS included)
    behaviour: list[list[list[float]]]
    texts: list[list[str]]


def _prompt_ids(tok: Tokenizer, p: ArithmeticProblem) -> list[int]:
    return tok.encode(p.prompt, bos=True)


def rollouts(model: TinyLM, tok: Tokenizer, problems: list[ArithmeticProblem], *, k: int = 8, tau: float = 1.2,
             seed: int = 0) -> Rollouts:
    """``k`` samples per problem from mu = model at temperature ``tau``, with mu's per-token log-probs."""
    k = check_int("k", k, minimum=1)
    tau = check_positive("tau", tau)
    gen = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    prompts = [_prompt_ids(tok, p) for p in problems]
    rep = [pr for pr in prompts for _ in range(k)]
    g = sample(model, rep, MAX_NEW, temperature=tau, eos_id=tok.eos_id, pad_id=tok.pad_id, generator=gen)
    resp, beh, texts = [], [], []
    for i in range(len(problems)):
        rr, bb, tt = [], [], []
        for j in range(k):
            row = i * k + j
            n = int(g.mask[row].sum())
            ids = g.tokens[row, :n].tolist()
            rr.append(ids)
            bb.append(g.sample_logprobs[row, :n].tolist())
            tt.append(tok.decode(ids))
        resp.append(rr)
        beh.append(bb)
        texts.append(tt)
    return Rollouts(problems, prompts, resp, beh, texts)


def _correct(text: str, p: ArithmeticProblem) -> bool:
    return extract_answer(text) == p.answer


def math_pairs(ro: Rollouts, *, seed: Any = 0, per_prompt: int = 1) -> dict:
    """(correct, incorrect) pairs where mu produced both: up to ``per_prompt`` pairs per problem, each with a
    different incorrect rollout (in random order) and a correct one drawn at random."""
    rng = as_rng("seed", seed)
    per_prompt = check_int("per_prompt", per_prompt, minimum=1)
    out = {"prompts": [], "chosen": [], "rejected": [], "beh_c": [], "beh_r": []}
    for i, p in enumerate(ro.problems):
        ok = [j for j, t in enumerate(ro.texts[i]) if _correct(t, p)]
        bad = [j for j, t in enumerate(ro.texts[i]) if not _correct(t, p)]
        if not (ok and bad):
            continue
        rejected = [int(rng.choice(bad))] if per_prompt == 1 else [int(b) for b in rng.permutation(bad)[:per_prompt]]
        for b in rejected:
            a = int(rng.choice(ok))
            out["prompts"].append(ro.prompts[i])
            out["chosen"].append(ro.responses[i][a])
            out["rejected"].append(ro.responses[i][b])
            out["beh_c"].append(ro.behaviour[i][a])
            out["beh_r"].append(ro.behaviour[i][b])
    return out


def response_features(text: str, p: ArithmeticProblem) -> np.ndarray:
    """(correct, closeness = -min(|answer error|, 10)/10, brevity = -len/20) of one response."""
    a = extract_answer(text)
    err = 10.0 if a is None else min(abs(a - p.answer), 10)
    return np.array([float(err == 0), -err / 10.0, -len(text) / 20.0])


def make_population(seed: Any = 0) -> Population:
    """Two user types over the 3 response features; both value correctness and closeness (abs weights),
    they disagree on brevity."""
    rng = as_rng("seed", seed)
    base = population(2, 3, kind="mixture", n_types=2, spread=1.0, seed=rng)
    users = base.users.copy()
    users[:, :2] = np.abs(users[:, :2]) * 2.0 + 1.0
    return Population(np.zeros((2, 3)), users, base.weights)


def true_utility(pop: Population, feats: np.ndarray) -> np.ndarray:
    """Population-average utility of response features (n, 3): (n,)."""
    return feats @ (pop.weights @ pop.users)


def human_pairs(ro: Rollouts, pop: Population, *, seed: Any = 0) -> dict:
    """One pair per problem (two distinct rollouts), labelled by a user drawn from the population (BT)."""
    rng = as_rng("seed", seed)
    out = {"prompts": [], "chosen": [], "rejected": [], "beh_c": [], "beh_r": []}
    for i, p in enumerate(ro.problems):
        texts = ro.texts[i]
        distinct = list({t: j for j, t in enumerate(texts)}.values())
        if len(distinct) < 2:
            continue
        a, b = (int(x) for x in rng.choice(distinct, size=2, replace=False))
        feats = np.stack([response_features(texts[a], p), response_features(texts[b], p)])
        _, _, y = pairwise_comparisons(Population(feats, pop.users, pop.weights), 1, seed=rng,
                                       pairs=np.array([[0, 1]]))
        c, r = (a, b) if y[0] == 1 else (b, a)
        out["prompts"].append(ro.prompts[i])
        out["chosen"].append(ro.responses[i][c])
        out["rejected"].append(ro.responses[i][r])
        out["beh_c"].append(ro.behaviour[i][c])
        out["beh_r"].append(ro.behaviour[i][r])
    return out


@torch.no_grad()
def greedy_texts(model: TinyLM, tok: Tokenizer, problems: list[ArithmeticProblem]) -> list[str]:
    g = sample(model, [_prompt_ids(tok, p) for p in problems], MAX_NEW, greedy=True, eos_id=tok.eos_id,
               pad_id=tok.pad_id)
    return [tok.decode(g.tokens[i, :int(g.mask[i].sum())].tolist()) for i in range(len(problems))]


def success_rate(model: TinyLM, tok: Tokenizer, problems: list[ArithmeticProblem]) -> float:
    """Greedy-decoding success rate (exact final answer)."""
    return float(np.mean([_correct(t, p) for t, p in zip(greedy_texts(model, tok, problems), problems)]))


@torch.no_grad()
def answer_logprob(model: TinyLM, tok: Tokenizer, problems: list[ArithmeticProblem]) -> float:
    """Mean over ``problems`` of log pi(correct completion + EOS | prompt): how much probability the model puts
    on the right answer, a smoother read-out than greedy success."""
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    if not problems:
        raise ValueError("problems is empty")
    was_training = model.training
    model.eval()
    try:
        lp = sequence_logprob(model, [_prompt_ids(tok, p) for p in problems],
                              [tok.encode(completion(p), eos=True) for p in problems])
    finally:
        model.train(was_training)
    return float(lp.mean())
