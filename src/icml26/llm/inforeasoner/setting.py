"""The small-scale world of the InfoReasoner reproduction: the shared search policy and its frozen reader.

* The agent is the shared search policy of :mod:`icml26.tasks.search` (a word-level TinyLM
  that knows part of a synthetic knowledge base closed-book and the Search-R1 format
  ``<search> q </search> <info> passage </info> <answer> a </answer>``), searching a BM25
  index over one passage per fact. Questions are 2-hop chains (``In which country was X
  born?``), whose answers have aliases (``Brecanestan`` / ``BRECANESTAN``).
* The *reader* of the information-gain reward is a frozen copy of the starting policy (the paper
  uses the frozen base model), tuned by :func:`tune_reader`: it is prompted with the question,
  the trajectory's retrieved passages only (its ``<info>`` blocks) and then ``<answer>``, and
  samples N short answers at temperature 1 with their mean token log-probabilities; without
  context it is prompted with the question and ``<answer>`` alone (closed book).
* Entailment between answers and gold is the alias table (exact semantic equivalence; the
  primary, which decides the claims) or, as a labelled substitute for the paper's DeBERTa-MNLI
  (no NLI model ships offline), MiniLM cosine >= a threshold chosen on development seeds
  against the alias table (``entail="minilm"``; needs the ``minilm`` extra). Both score the
  same reader samples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from icml26.llm.inforeasoner.method import cosine_entailment, hard_gold_mass, soft_gold_mass
from icml26.tasks.kb import Question, answer_matches
from icml26.tasks.search import (SearchConfig, SearchWorld, gold_trace, pretrain_search_policy, prompt_text)

#: The substrate's recipe at the time of writing, spelt out so that a change of the substrate's defaults
#: does not silently change our world (the cache key is this config and the seed).
WORLD = dict(n_people=24, n_cities=8, n_countries=4, n_companies=6, memorised=0.5, max_exposures=3,
             format_share=0.5, d_model=48, n_layers=2, n_heads=4, max_len=64, steps=250, batch=32, lr=3e-3)


def world_config(params: dict | None = None) -> SearchConfig:
    """A :class:`SearchConfig` from a profile's ``world`` dict (defaults: :data:`WORLD`)."""
    return SearchConfig(**{**WORLD, **(params or {})})


def load(seed: int, cfg: SearchConfig):
    """(base policy, world) for the seed: pretrained once and cached on disk by the substrate."""
    model, world = pretrain_search_policy(seed, cfg)
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval(), world


def split_questions(world: SearchWorld, hops: int = 2, *, retrieval_only: bool = True
                    ) -> tuple[list[Question], list[Question]]:
    """Alternate questions into a training and a held-out half (the order of ``world.questions``); with
    ``retrieval_only`` only chains with a fact never seen in pretraining (``exposures == 0``: must be retrieved)."""
    qs = [q for q in world.questions(hops) if not retrieval_only or world.exposures(q) == 0]
    return qs[0::2], qs[1::2]


@dataclass
class Reader:
    """The frozen reader: N sampled answers per context, scored against gold with the alias table or, if
    ``embed`` is given (a sentence encoder: list of texts -> (n, d)), also by embedding cosine >= ``threshold``.
    The samples are drawn once per (question, context) and shared by both entailments."""

    model: torch.nn.Module
    world: SearchWorld
    n: int = 8
    max_answer: int = 6
    seed: int = 0
    cache: dict = field(default_factory=dict)
    embed: Callable[[Sequence[str]], np.ndarray] | None = None
    threshold: float = 0.91
    drawn: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._gen = torch.Generator().manual_seed(int(self.seed))
        tok = self.world.tokenizer
        self._open = tok.encode("<answer>")
        self._close = tok.encode("</answer>")[0]

    def _prompt(self, q: Question, context: Sequence[int]) -> list[int]:
        return self.world.tokenizer.encode(prompt_text(q), bos=True) + list(context) + self._open

    def samples(self, q: Question, context: Sequence[int]) -> tuple[list[str], np.ndarray]:
        """N answers (text) and their mean token log-probs (answer tokens and ``</answer>``)."""
        from icml26.nn.lm import sample

        tok = self.world.tokenizer
        p = self._prompt(q, context)
        room = min(self.max_answer, self.model.cfg.max_len - len(p))
        if room < 1:
            return [""] * self.n, np.zeros(self.n)
        g = sample(self.model, [p] * self.n, room, eos_id=self._close, pad_id=tok.pad_id, generator=self._gen)
        texts, lps = [], []
        for row, lp, m in zip(g.tokens, g.logprobs, g.mask):
            ids = row[m].tolist()
            cut = ids.index(self._close) if self._close in ids else len(ids)
            texts.append(tok.decode(ids[:cut], skip_special=False))
            lps.append(float(lp[m].mean()))
        return texts, np.asarray(lps)

    def drawn_samples(self, q: Question, context: Sequence[int]) -> tuple[list[str], np.ndarray]:
        """:meth:`samples`, drawn once per (question, context) and memoised (the reader is frozen)."""
        key = (q.text, tuple(context))
        if key not in self.drawn:
            self.drawn[key] = (*self.samples(q, context), tuple(q.aliases))
        ans, lp, _ = self.drawn[key]
        return ans, lp

    def gold_mass(self, q: Question, context: Sequence[int], *, hard: bool = False, entail: str = "alias") -> float:
        """S(context) for question ``q`` under the alias table (``entail="alias"``) or embedding cosine
        (``entail="minilm"``, needs ``embed``); memoised per question, context and scorer."""
        if entail not in ("alias", "minilm"):
            raise ValueError(f"entail must be 'alias' or 'minilm', got {entail!r}")
        if entail == "minilm" and self.embed is None:
            raise ValueError("entail='minilm' needs a reader built with embed=")
        key = (q.text, tuple(context), hard, entail)
        if key not in self.cache:
            ans, lp = self.drawn_samples(q, context)
            fn = hard_gold_mass if hard else soft_gold_mass
            e = cosine_entailment(self.embed, self.threshold) if entail == "minilm" else None
            self.cache[key] = fn(ans, lp, list(q.aliases), entail=e)
        return self.cache[key]

    def greedy_answer(self, q: Question, context: Sequence[int]) -> str:
        from icml26.nn.lm import sample

        tok = self.world.tokenizer
        p = self._prompt(q, context)
        g = sample(self.model, [p], min(self.max_answer, self.model.cfg.max_len - len(p)), eos_id=self._close,
                   pad_id=tok.pad_id, greedy=True)
        ids = g.as_lists()[0]
        cut = ids.index(self._close) if self._close in ids else len(ids)
        return tok.decode(ids[:cut], skip_special=False)


def evidence_context(completion: Sequence[int], world: SearchWorld) -> list[int]:
    """The retrieved passages of a trajectory: its ``<info> ... </info>`` blocks, in order, and nothing else
    (no search queries, no model text; empty if none), as the authors' IG service passes only the retrieved
    information blocks to the reader."""
    tok = world.tokenizer
    open_, close = tok.encode("<info>")[0], tok.encode("</info>")[0]
    out: list[int] = []
    block: list[int] | None = None
    for t in completion:
        t = int(t)
        if t == open_:
            block = []
        if block is not None:
            block.append(t)
            if t == close:
                out += block
                block = None
    return out


def passage_context(world: SearchWorld, fact_ids: Sequence[int]) -> list[int]:
    """The ``<info>`` blocks of the passages of ``fact_ids`` (e.g. the bridge passage alone)."""
    return world.tokenizer.encode(" ".join(f"<info> {world.documents[i]} </info>" for i in fact_ids))


def gold_document_context(world: SearchWorld, q: Question) -> list[int]:
    """The gold passage(s) of ``q``'s chain as ``<info>`` blocks, without the answer (reader gate)."""
    return passage_context(world, q.facts)


def reader_accuracy(reader: Reader, world: SearchWorld, questions: Sequence[Question]) -> dict[str, float]:
    """Greedy reader EM with the gold passage and without any context, and the chance level (1 / #entities of
    the answer's type)."""
    kb = world.kb
    with_doc = [answer_matches(reader.greedy_answer(q, gold_document_context(world, q)), q) for q in questions]
    without = [answer_matches(reader.greedy_answer(q, []), q) for q in questions]
    chance = [1.0 / len(kb.by_type(kb.entities[q.answer])) for q in questions]
    return {"gold_doc": float(np.mean(with_doc)), "no_doc": float(np.mean(without)), "chance": float(np.mean(chance))}


def _counterfactual_reading(world: SearchWorld, q: Question, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """(context ids, answer ids) of a reading exercise: ``q``'s gold passages with every fact's object replaced
    by a random entity of the same type, so the answer can only come from the passage (nothing true is taught)."""
    from icml26.tasks.kb import Fact
    from icml26.tasks.search import norm

    kb, tok = world.kb, world.tokenizer
    segs: list[str] = []
    obj: str | None = None
    for fid in q.facts:
        f = kb.facts[fid]
        subject = f.subject if obj is None else obj  # a 2-hop chain continues from the invented bridge
        pool = kb.by_type(kb.entities[f.object])
        obj = pool[int(rng.integers(0, len(pool)))]
        cf = Fact(subject, f.relation, obj, f.id)
        segs.append(f"<info> {norm(cf.text(0))} </info>")
    return tok.encode(" ".join(segs)), tok.encode(f"<answer> {norm(obj)} </answer>")


def _bridge_composition(world: SearchWorld, q: Question, rng: np.random.Generator
                        ) -> tuple[list[int], list[int]] | None:
    """(context ids, answer ids) of a composition exercise for a 2-hop ``q``: the bridge passage with its object
    replaced by a random bridge entity X whose second-hop fact is memorised, answered by that fact's true object
    (recalled closed-book; nothing untrue is taught). ``None`` if no such X exists."""
    from icml26.tasks.kb import Fact
    from icml26.tasks.search import norm

    kb, tok = world.kb, world.tokenizer
    f1, f2 = kb.facts[q.facts[0]], kb.facts[q.facts[1]]
    pool = [x for x in kb.by_type(kb.entities[f1.object])
            if (g := kb.lookup(x, f2.relation)) is not None and kb.exposures.get(g.id, 0) > 0]
    if not pool:
        return None
    x = pool[int(rng.integers(0, len(pool)))]
    cf = Fact(f1.subject, f1.relation, x, f1.id)
    return (tok.encode(f"<info> {norm(cf.text(0))} </info>"),
            tok.encode(f"<answer> {norm(kb.lookup(x, f2.relation).object)} </answer>"))


def closed_book_pool(base: torch.nn.Module, world: SearchWorld, questions: Sequence[Question], *, n: int = 8,
                     seed: int = 0) -> dict[str, list[list[int]]]:
    """``n`` closed-book answers (``<answer> ... </answer>`` ids) sampled at temperature 1 from ``base`` per question:
    the targets that keep the tuned reader's closed-book distribution that of the base model (self-distillation)."""
    from icml26.nn.lm import sample

    tok = world.tokenizer
    open_, close = tok.encode("<answer>"), tok.encode("</answer>")[0]
    gen = torch.Generator().manual_seed(int(seed))
    out: dict[str, list[list[int]]] = {}
    for q in questions:
        p = tok.encode(prompt_text(q), bos=True) + open_
        g = sample(base, [p] * n, 6, eos_id=close, pad_id=tok.pad_id, generator=gen)
        rows = []
        for row, m in zip(g.tokens, g.mask):
            ids = row[m].tolist()
            if close not in ids:
                ids = ids + [close]
            rows.append(open_ + ids[:ids.index(close) + 1])
        out[q.text] = rows
    return out


def tune_reader(base: torch.nn.Module, world: SearchWorld, *, steps: int = 120, batch: int = 32, lr: float = 1e-3,
                seed: int = 0, mix: tuple[float, float, float] = (1.0, 0.0, 0.0)) -> torch.nn.Module:
    """A frozen reader: a copy of ``base`` fine-tuned on a mixture of exercises (loss on the answer only).

    ``mix`` = shares of (counterfactual reading: gold passages with invented objects, answer from the passage;
    closed-book self-distillation: no context, target a closed-book answer sampled from ``base``; bridge
    composition: an invented bridge passage whose bridge's second-hop fact is memorised, answered by that fact's
    true object). Nothing untrue about the world is taught. The paper's reader is the frozen base model itself;
    the shared base policy copies the answer from a gold passage only ~0.8 of the time, so the reproduction also
    builds this reader (our choice, following the card's plan of a tiny reader that answers from context) and
    reports both.
    """
    import copy

    from icml26.nn.train import train_lm

    w = np.asarray(mix, dtype=float)
    if w.shape != (3,) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"mix must be three non-negative shares with a positive sum, got {mix!r}")
    w = w / w.sum()
    model = copy.deepcopy(base)
    for p in model.parameters():
        p.requires_grad_(True)
    qs = world.questions(1) + world.questions(2)
    two = world.questions(2)
    pool = closed_book_pool(base, world, qs, seed=seed) if w[1] > 0 else {}
    tok = world.tokenizer
    limit = model.cfg.max_len

    def sample_batch(gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        rng = np.random.default_rng(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        rows = []
        while len(rows) < batch:
            kind = int(rng.choice(3, p=w))
            q = qs[int(rng.integers(0, len(qs)))] if kind < 2 else two[int(rng.integers(0, len(two)))]
            if kind == 0:
                ex = _counterfactual_reading(world, q, rng)
            elif kind == 1:
                opts = pool[q.text]
                ex = ([], opts[int(rng.integers(0, len(opts)))])
            else:
                ex = _bridge_composition(world, q, rng)
                if ex is None:
                    continue
            p = tok.encode(prompt_text(q), bos=True)
            ctx, ans = ex
            ids = (p + ctx + ans)[:limit]
            tgt = ([-100] * (len(p) + len(ctx) - 1) + ans)[:len(ids) - 1]
            rows.append((ids, tgt))
        n = max(len(r) for r, _ in rows)
        x = torch.full((len(rows), n), tok.pad_id, dtype=torch.long)
        y = torch.full((len(rows), n - 1), -100, dtype=torch.long)
        for j, (r, t) in enumerate(rows):
            x[j, :len(r)] = torch.tensor(r)
            y[j, :len(t)] = torch.tensor(t)
        return x, y

    train_lm(model, sample_batch, steps=steps, lr=lr, warmup=10, seed=seed)
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval()
