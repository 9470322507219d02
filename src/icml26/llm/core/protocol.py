"""The CoRe training loop and its two controls, on the shared tiny policies.

``train_team(models, pool, arm=...)``:

* ``"core"``: the two-round protocol with peer hints and the combined reward (:mod:`.method`);
* ``"wrong_hint"``: the same protocol, but each hint comes from a *different* question's
  teacher (extra retries with a hint-shaped prefix, no knowledge of this question's solution);
* ``"independent"``: each model alone, K + K' cold samples per question, correctness reward,
  per-model group z-scores (the "single-model training" baseline, same samples per model).

Every model is updated with full fine-tuning (Adam) on the GRPO surrogate of
:func:`icml26.nn.rl.grpo_loss` (one step per batch, so the ratio is 1 and the clip inactive),
with the k3 KL to its own start (beta = 0.04).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import torch

from icml26.core.validate import check_int, check_positive
from icml26.llm.core.method import RewardConfig, Trace, check_probability, score_question, strip_answer
from icml26.llm.core.setting import encode, hinted_prompt, tokenizer
from icml26.tasks.arithmetic import extract_answer

ARMS = ("core", "wrong_hint", "independent")


@dataclass(frozen=True)
class TeamConfig:
    k_cold: int = 2
    k_rescue: int = 1
    p_hint: float = 0.75
    lr: float = 3e-4
    beta: float = 0.04
    temperature: float = 0.7
    top_p: float = 0.9
    max_new: int = 28  # the longest level-2 scratchpad plus <eos>
    batch: int = 8
    reward: RewardConfig = field(default_factory=RewardConfig)

    def __post_init__(self) -> None:
        check_int("k_cold", self.k_cold, minimum=1)
        check_int("k_rescue", self.k_rescue, minimum=1)
        check_probability("p_hint", self.p_hint)
        check_positive("lr", self.lr)
        check_int("batch", self.batch, minimum=1)


def _sample(model, prompts: list[str], cfg: TeamConfig, gen: torch.Generator) -> list[str]:
    """Sampled completions as text; the token ids are remembered in ``_IDS`` for the update."""
    from icml26.nn.lm import sample

    tok = tokenizer()
    ids = [encode(p) for p in prompts]
    n_new = max(1, min(cfg.max_new, model.cfg.max_len - max(len(i) for i in ids)))  # a long hint shortens the budget
    out = sample(model, ids, n_new, temperature=cfg.temperature, top_p=cfg.top_p,
                 eos_id=tok.eos_id, pad_id=tok.pad_id, generator=gen)
    texts = []
    for ids in out.as_lists():
        text = tok.decode(ids)
        _IDS[text] = ids
        texts.append(text)
    return texts


_IDS: dict[str, list[int]] = {}  # decoded text -> sampled ids (the char tokenizer decodes injectively)


def _update(model, ref, opt, prompts: list[str], texts: list[str], adv: list[float], beta: float) -> None:
    """One policy-gradient step on the given rollouts (``nn.rl.grpo_loss`` against the frozen ``ref``).

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: an RL update on the protocol's own
    rollouts and advantages, one optimiser step per call.
    """
    from icml26.nn.lm import token_logprobs
    from icml26.nn.rl import grpo_loss

    if not prompts:
        return
    tok = tokenizer()
    p_ids = [encode(p) for p in prompts]
    c_ids = [_IDS.get(t) or (tok.encode(t) + [tok.eos_id]) for t in texts]
    c_ids = [c[: model.cfg.max_len - len(p)] for p, c in zip(p_ids, c_ids)]
    with torch.no_grad():
        ref_lp, _ = token_logprobs(ref, p_ids, c_ids, pad_id=tok.pad_id)
    model.train()
    logp, mask = token_logprobs(model, p_ids, c_ids, pad_id=tok.pad_id)
    loss = grpo_loss(logp, logp.detach(), torch.tensor(adv, dtype=torch.float32), mask, ref_logp=ref_lp, beta=beta,
                     aggregation="grpo")
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    model.eval()


def _correct(text: str, problem) -> bool:
    return extract_answer(text) == problem.answer


def train_team(models: dict, pool: list, *, arm: str, steps: int, seed: int, encoder, cfg: TeamConfig | None = None
               ) -> tuple[dict, dict]:
    """Train copies of ``models`` (name -> TinyLM) with ``arm`` for ``steps`` batches; returns (trained, stats)."""
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    steps = check_int("steps", steps, minimum=1)
    cfg = cfg or TeamConfig()
    if not pool:
        raise ValueError("pool is empty")
    names = list(models)
    pols = {m: copy.deepcopy(models[m]).eval() for m in names}
    refs = {m: copy.deepcopy(models[m]).eval() for m in names}
    for r in refs.values():
        r.requires_grad_(False)
    opts = {m: torch.optim.Adam(pols[m].parameters(), lr=cfg.lr) for m in names}
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    stats = {"rescues": 0, "hinted": 0, "explore_zero": 0, "questions": 0, "reward": []}
    for _ in range(steps):
        idx = torch.randint(0, len(pool), (cfg.batch,), generator=gen).tolist()
        items = [pool[i] for i in idx]
        batch: dict[str, tuple[list, list, list]] = {m: ([], [], []) for m in names}  # prompts, texts, advantages
        if arm == "independent":
            k = cfg.k_cold + cfg.k_rescue
            for m in names:
                prompts = [p.prompt for p in items for _ in range(k)]
                texts = _sample(pols[m], prompts, cfg, gen)
                r = np.array([float(_correct(t, items[i // k])) for i, t in enumerate(texts)]).reshape(len(items), k)
                adv = (r - r.mean(1, keepdims=True)) / (r.std(1, keepdims=True) + 1e-8)
                batch[m] = (prompts, texts, adv.reshape(-1).tolist())
                stats["reward"].append(float(r.mean()))
        else:
            cold = {m: _sample(pols[m], [p.prompt for p in items for _ in range(cfg.k_cold)], cfg, gen) for m in names}
            traces: list[list[tuple[Trace, str]]] = [[] for _ in items]
            for m in names:
                for j, t in enumerate(cold[m]):
                    q = j // cfg.k_cold
                    traces[q].append((Trace(m, "A", t, _correct(t, items[q])), items[q].prompt))
            teachers = []
            for q in range(len(items)):
                ok = [tr.text for tr, _ in traces[q] if tr.correct]
                teachers.append(strip_answer(ok[0]) if ok else "")
            if arm == "wrong_hint":
                donors = [h for h in teachers if h]
                hints = []
                for q in range(len(items)):
                    others = [teachers[j] for j in range(len(items)) if j != q and teachers[j]
                              and items[j].prompt != items[q].prompt]
                    hints.append(others[int(rng.integers(len(others)))] if others and teachers[q] else "")
                del donors
            else:
                hints = teachers
            for m in names:
                rb_prompts, rb_meta = [], []
                for q in range(len(items)):
                    if any(tr.correct for tr, _ in traces[q] if tr.model == m):
                        continue
                    give = bool(hints[q]) and rng.random() < cfg.p_hint
                    prompt = hinted_prompt(items[q], hints[q]) if give else items[q].prompt
                    for _ in range(cfg.k_rescue):
                        rb_prompts.append(prompt)
                        rb_meta.append((q, give))
                if rb_prompts:
                    texts = _sample(pols[m], rb_prompts, cfg, gen)
                    for (q, give), t, p in zip(rb_meta, texts, rb_prompts):
                        traces[q].append((Trace(m, "B", t, _correct(t, items[q]), give), p))
            all_texts = [tr.text for q in traces for tr, _ in q]
            emb_all = encoder.encode(all_texts)
            pos = 0
            for q in range(len(items)):
                trs = [tr for tr, _ in traces[q]]
                emb = emb_all[pos:pos + len(trs)]
                pos += len(trs)
                rewards, adv, diag = score_question(trs, emb, cfg.reward)
                stats["rescues"] += diag["rescues"]
                stats["hinted"] += diag["hinted"]
                stats["explore_zero"] += int(diag["explore_all_zero"])
                stats["questions"] += 1
                stats["reward"].append(float(np.mean([t.correct for t in trs])))
                for (tr, prompt), a in zip(traces[q], adv):
                    batch[tr.model][0].append(prompt)
                    batch[tr.model][1].append(tr.text)
                    batch[tr.model][2].append(float(a))
        for m in names:
            _update(pols[m], refs[m], opts[m], *batch[m], beta=cfg.beta)
    return pols, stats


@torch.no_grad()
def evaluate_team(models: dict, items: list, *, k: int = 2, seed: int = 0, cfg: TeamConfig | None = None) -> tuple:
    """Cold samples (k per model) on ``items``: (correct[model] (n, k), answers[model][i] list of k)."""
    cfg = cfg or TeamConfig()
    correct, answers = {}, {}
    for m, model in models.items():
        gen = torch.Generator().manual_seed(seed)
        texts = _sample(model, [p.prompt for p in items for _ in range(k)], cfg, gen)
        ans = [extract_answer(t) for t in texts]
        correct[m] = np.array([a == items[i // k].answer for i, a in enumerate(ans)]).reshape(len(items), k)
        answers[m] = [ans[i * k:(i + 1) * k] for i in range(len(items))]
    return correct, answers
