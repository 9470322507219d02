"""Search-augmented question answering on the synthetic knowledge base: a tiny policy that knows some facts.

The RL-for-search papers of the ``llm`` cluster (Search-R1-style agents, pay-per-search
rewards, information-gain shaping) start from a base model that already knows part of the
world and knows the tool *format*, but not *when* a search pays. This module builds that
starting point once, for all of them:

* :func:`make_search_world` draws a :class:`~icml26.tasks.kb.KnowledgeBase`, splits its
  facts into memorised ones (seen 1..3 times in pretraining, a graded knowledge boundary)
  and retrieval-only ones (seen 0 times), and indexes one passage per fact with
  :class:`~icml26.tasks.kb.BM25Retriever`.
* The trace format is Search-R1's, in lower-case words::

      question where was kalo mi born <search> kalo mi born </search> <info> kalo mi was born in renton </info> <answer> renton </answer>

  A 2-hop question searches twice (the bridge entity, then its relation).
* :func:`pretrain_search_policy` pretrains a :class:`~icml26.nn.transformer.TinyLM` on a
  word-level Hugging Face tokenizer with three kinds of examples: (1) the memorised facts'
  passages, each written ``exposures`` times; (2) closed-book answers to the questions on
  memorised facts, also ``exposures`` times (so the graded boundary shows in closed-book
  accuracy); (3) format demonstrations: gold search traces on a random ``format_share`` of
  all questions, chosen *independently of what the model knows*, with the retrieved text
  masked from the loss (as RL masks it), so no fact is learned from an ``<info>`` block.
  The weights are cached on disk by seed and config through :func:`icml26.core.cache.cached`.
* :func:`rollout` runs batched multi-turn episodes: the policy writes until ``</search>``
  or ``</answer>``; after ``</search>`` a ``search_fn`` (BM25 top-k by default, or a noisy
  or absent tool) inserts ``<info> ... </info>``, which is excluded from the loss mask that
  :func:`icml26.nn.rl.grpo_update` takes.

Public: :class:`SearchConfig`, :class:`SearchWorld`, :class:`Rollout`, :func:`make_search_world`,
:func:`prompt_text`, :func:`gold_trace`, :func:`pretrain_search_policy`, :func:`rollout`,
:func:`closed_book_answers`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from icml26.core.validate import check_int, check_positive
from icml26.nn.tokenize import Tokenizer, train_tokenizer
from icml26.nn.transformer import LMConfig, TinyLM
from icml26.tasks.kb import TEMPLATES, BM25Retriever, Fact, KnowledgeBase, Question, make_knowledge_base, words

TAGS = ("question", "<search>", "</search>", "<info>", "</info>", "<answer>", "</answer>")
QUERY: dict[str, str] = {"born_in": "{s} born", "located_in": "{s} country", "works_for": "{s} works for",
                         "headquartered_in": "{s} headquartered", "leader_of": "{s} leads"}

SearchFn = Callable[[str], list[str]]


def norm(text: str) -> str:
    """Lower-case alphanumeric words joined by single spaces (the unit of the word tokenizer)."""
    return " ".join(words(text))


@dataclass(frozen=True)
class SearchConfig:
    """The base world and pretraining recipe (the cache key, with the seed)."""

    n_people: int = 24
    n_cities: int = 8
    n_countries: int = 4
    n_companies: int = 6
    memorised: float = 0.5
    max_exposures: int = 3
    format_share: float = 0.5
    d_model: int = 48
    n_layers: int = 2
    n_heads: int = 4
    max_len: int = 64
    steps: int = 250
    batch: int = 32
    lr: float = 3e-3

    def __post_init__(self) -> None:
        for name in ("n_people", "n_cities", "n_countries", "n_companies", "max_exposures", "d_model", "n_layers",
                     "n_heads", "max_len", "steps", "batch"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("memorised", "format_share"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and 0 <= v <= 1):
                raise ValueError(f"{name} must be a fraction in [0, 1], got {v!r}")
        check_positive("lr", self.lr)


@dataclass
class SearchWorld:
    """A knowledge base with its knowledge boundary, retriever and tokenizer."""

    kb: KnowledgeBase
    retriever: BM25Retriever
    tokenizer: Tokenizer
    documents: list[str]

    def exposures(self, q: Question) -> int:
        """How often the *least* seen fact on ``q``'s chain was seen in pretraining (0 = retrieval only)."""
        return min(self.kb.exposures.get(i, 0) for i in q.facts)

    def search(self, query: str, k: int = 1) -> list[str]:
        """The ``k`` best passages for ``query`` (normalised text)."""
        check_int("k", k, minimum=1)
        return [self.documents[i] for i, _ in self.retriever.search(norm(query), k=k)]

    def questions(self, hops: int = 1) -> list[Question]:
        return self.kb.questions(hops)


def make_search_world(seed: int, cfg: SearchConfig | None = None) -> SearchWorld:
    """The seed's knowledge base, exposures (``cfg.memorised`` of the facts seen 1..``max_exposures`` times)
    and BM25 index over one passage per fact (paraphrase 0)."""
    seed = check_int("seed", seed, minimum=0)
    cfg = _config(cfg)
    kb = make_knowledge_base(n_people=cfg.n_people, n_cities=cfg.n_cities, n_countries=cfg.n_countries,
                             n_companies=cfg.n_companies, seed=seed)
    kb.split(memorised=cfg.memorised, max_exposures=cfg.max_exposures, seed=seed + 1)
    docs = [norm(d) for d in kb.documents()]
    texts = [norm(f.text(p)) for f in kb.facts for p in range(len(TEMPLATES[f.relation]))]
    texts += [prompt_text(q) for h in (1, 2) for q in kb.questions(h)]
    texts += [norm(QUERY[r].format(s="x")) for r in QUERY] + [norm(a) for al in kb.aliases.values() for a in al]
    texts.append(" ".join(TAGS))
    tok = train_tokenizer(texts, kind="word", vocab_size=4096, normalizer=None)
    return SearchWorld(kb, BM25Retriever(docs), tok, docs)


def _config(cfg: SearchConfig | None) -> SearchConfig:
    cfg = cfg or SearchConfig()
    if not isinstance(cfg, SearchConfig):
        raise TypeError(f"cfg must be a SearchConfig, got {type(cfg).__name__}")
    return cfg


def prompt_text(q: Question) -> str:
    """The prompt: ``question`` + the question's words."""
    return "question " + norm(q.text)


def _query(fact: Fact) -> str:
    return norm(QUERY[fact.relation].format(s=fact.subject))


def gold_trace(world: SearchWorld, q: Question, *, search: bool = True) -> list[tuple[str, bool]]:
    """The gold completion as ``(text, trained)`` segments: one search per fact on the chain, then the answer
    (``search=False``: the closed-book answer alone). ``trained=False`` marks retrieved text."""
    segs: list[tuple[str, bool]] = []
    if search:
        for fid in q.facts:
            fact = world.kb.facts[fid]
            segs.append((f"<search> {_query(fact)} </search>", True))
            segs.append((f"<info> {world.documents[fid]} </info>", False))
    segs.append((f"<answer> {norm(q.answer)} </answer>", True))
    return segs


def _encode_segments(tok: Tokenizer, segs: Sequence[tuple[str, bool]]) -> tuple[list[int], list[bool]]:
    ids: list[int] = []
    mask: list[bool] = []
    for text, trained in segs:
        e = tok.encode(text)
        ids += e
        mask += [trained] * len(e)
    return ids, mask


def _examples(world: SearchWorld, cfg: SearchConfig, rng: np.random.Generator) -> list[tuple[list[int], list[int]]]:
    """(ids, targets) pretraining rows; targets are -100 where the loss is off."""
    tok = world.tokenizer
    rows: list[tuple[list[int], list[int]]] = []

    def add(prompt: str, segs: Sequence[tuple[str, bool]]) -> None:
        p = tok.encode(prompt, bos=True)
        c, m = _encode_segments(tok, list(segs))
        c, m = c + [tok.eos_id], m + [True]
        ids = (p + c)[: cfg.max_len]
        tgt = ([-100] * (len(p) - 1) + [t if keep else -100 for t, keep in zip(c, m)])[: len(ids) - 1]
        rows.append((ids, tgt))

    for f in world.kb.facts:  # passages, each seen `exposures` times in a random paraphrase
        for _ in range(world.kb.exposures.get(f.id, 0)):
            text = norm(f.text(int(rng.integers(0, len(TEMPLATES[f.relation])))))
            ids = tok.encode(text, bos=True, eos=True)[: cfg.max_len]
            rows.append((ids, ids[1:]))
    for hops in (1, 2):
        for q in world.questions(hops):
            for _ in range(world.exposures(q)):  # closed-book answers on what is memorised
                add(prompt_text(q), gold_trace(world, q, search=False))
            if rng.random() < cfg.format_share:  # the tool format, independent of knowledge
                add(prompt_text(q), gold_trace(world, q, search=True))
    return rows


def _cache_params(seed: int, cfg: SearchConfig) -> dict:
    """Everything the pretrained weights depend on: the key of :func:`icml26.core.cache.cached`."""
    return {"seed": int(seed), **asdict(cfg), "tags": TAGS, "v": 1}


def _new_model(world: SearchWorld, cfg: SearchConfig) -> TinyLM:
    return TinyLM(LMConfig(vocab_size=world.tokenizer.vocab_size, d_model=cfg.d_model, n_layers=cfg.n_layers,
                           n_heads=cfg.n_heads, max_len=cfg.max_len))


def pretrain_search_policy(seed: int, cfg: SearchConfig | None = None, *, cache: bool = True
                           ) -> tuple[TinyLM, SearchWorld]:
    """The seed's base policy and its world (pretrained once, then read from the disk cache).

    The weights go through :func:`icml26.core.cache.cached` (namespace ``search_policy``, keyed by
    the seed and the whole config); ``cache=False`` pretrains without touching the disk.
    """
    from icml26.core.cache import cached
    from icml26.nn.train import train_lm

    seed = check_int("seed", seed, minimum=0)
    cfg = _config(cfg)
    world = make_search_world(seed, cfg)
    trained: list[TinyLM] = []

    def build() -> dict:
        torch.manual_seed(seed)
        model = _new_model(world, cfg)
        rows = _examples(world, cfg, np.random.default_rng(seed + 2))
        pad = world.tokenizer.pad_id

        def batch(gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
            idx = torch.randint(0, len(rows), (cfg.batch,), generator=gen).tolist()
            n = max(len(rows[i][0]) for i in idx)
            ids = torch.full((len(idx), n), pad, dtype=torch.long)
            tgt = torch.full((len(idx), n - 1), -100, dtype=torch.long)
            for j, i in enumerate(idx):
                r, t = rows[i]
                ids[j, :len(r)] = torch.tensor(r)
                tgt[j, :len(t)] = torch.tensor(t)
            return ids, tgt

        train_lm(model, batch, steps=cfg.steps, lr=cfg.lr, warmup=20, seed=seed)
        trained.append(model)
        return model.state_dict()

    if not cache:
        build()
        return trained[0].eval(), world
    state = cached("search_policy", "policy", build, params=_cache_params(seed, cfg), fmt="pt")
    if trained:  # built just now: the trained model itself
        return trained[0].eval(), world
    model = _new_model(world, cfg)
    try:
        model.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError, AttributeError):  # an entry of another shape is rebuilt
        cached("search_policy", "policy", build, params=_cache_params(seed, cfg), fmt="pt", refresh=True)
        return trained[0].eval(), world
    return model.eval(), world


@dataclass
class Rollout:
    """One multi-turn episode: the completion (model text and inserted tool text) and its loss mask."""

    prompt: list[int]
    completion: list[int] = field(default_factory=list)
    loss_mask: list[bool] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    retrieved: list[list[str]] = field(default_factory=list)
    answer: str | None = None
    searched_without_tool: bool = False
    done: bool = False

    @property
    def n_searches(self) -> int:
        return len(self.queries)


def _between(tokens: list[str], start: str, end: str) -> str:
    if start in tokens and end in tokens[tokens.index(start):]:
        i = tokens.index(start)
        j = tokens.index(end, i)
        return " ".join(tokens[i + 1:j])
    return ""


@torch.no_grad()
def rollout(model: TinyLM, world: SearchWorld, questions: Sequence[Question], *, search_fn: SearchFn | None = None,
            tool: bool = True, max_searches: int = 2, n_new: int = 16, temperature: float = 1.0,
            greedy: bool = False, generator: torch.Generator | None = None, k: int = 1) -> list[Rollout]:
    """Batched multi-turn episodes, one per question.

    Each turn samples up to ``n_new`` tokens and cuts them after the first ``</search>`` or
    ``</answer>``. After ``</search>`` the query is passed to ``search_fn`` (default: BM25 top
    ``k``), and ``<info> passages </info>`` is appended with ``loss_mask`` False. With
    ``tool=False`` a search request ends the episode unanswered (``searched_without_tool``:
    MASH's abstention signal). An episode also ends at ``<eos>``, at ``max_searches``
    exceeded, or at the model's context length.
    """
    from icml26.nn.lm import sample

    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    if not isinstance(world, SearchWorld):
        raise TypeError(f"world must be a SearchWorld, got {type(world).__name__}")
    if not questions:
        raise ValueError("questions is empty")
    max_searches = check_int("max_searches", max_searches, minimum=0)
    n_new = check_int("n_new", n_new, minimum=1)
    k = check_int("k", k, minimum=1)
    if not greedy:
        check_positive("temperature", temperature)
    tok = world.tokenizer
    search_fn = search_fn or (lambda q: world.search(q, k=k))
    close_s, close_a = tok.encode("</search>")[0], tok.encode("</answer>")[0]
    eps = [Rollout(tok.encode(prompt_text(q), bos=True)) for q in questions]
    limit = model.cfg.max_len
    for _ in range(max_searches + 1):
        live = [i for i, e in enumerate(eps) if not e.done]
        live = [i for i in live if len(eps[i].prompt) + len(eps[i].completion) < limit]
        for i, e in enumerate(eps):
            if not e.done and i not in live:
                e.done = True
        if not live:
            break
        ctx = [eps[i].prompt + eps[i].completion for i in live]
        room = min(n_new, limit - max(len(c) for c in ctx))
        if room < 1:  # the longest context is full: finish those one by one next turn
            for i in live:
                if len(eps[i].prompt) + len(eps[i].completion) + 1 > limit - 0:
                    eps[i].done = True
            continue
        gen = sample(model, ctx, room, temperature=temperature if not greedy else 1.0, eos_id=tok.eos_id,
                     pad_id=tok.pad_id, generator=generator, greedy=greedy)
        for i, new in zip(live, gen.as_lists()):
            e = eps[i]
            cut = next((j for j, t in enumerate(new) if t in (close_s, close_a, tok.eos_id)), None)
            piece = new if cut is None else new[:cut + 1]
            e.completion += piece
            e.loss_mask += [True] * len(piece)
            text = tok.decode(e.completion, skip_special=False).split()
            if cut is None or piece[-1] == tok.eos_id:
                e.done = True
                if piece and piece[-1] != tok.eos_id:
                    continue
            if piece and piece[-1] == close_a:
                e.answer = _between(text, "<answer>", "</answer>")
                e.done = True
            elif piece and piece[-1] == close_s:
                last = text[len(text) - 1 - text[::-1].index("<search>"):] if "<search>" in text else []
                query = " ".join(last[1:-1])
                if not tool:
                    e.queries.append(query)
                    e.searched_without_tool = True
                    e.done = True
                    continue
                if len(e.queries) >= max_searches:
                    e.done = True
                    continue
                passages = [norm(p) for p in search_fn(query)]
                e.queries.append(query)
                e.retrieved.append(passages)
                info = tok.encode("<info> " + " ".join(passages) + " </info>")
                info = info[: max(0, limit - len(e.prompt) - len(e.completion) - 1)]
                e.completion += info
                e.loss_mask += [False] * len(info)
    for e in eps:
        e.done = True
    return eps


@torch.no_grad()
def closed_book_answers(model: TinyLM, world: SearchWorld, questions: Sequence[Question], *, n: int = 1,
                        temperature: float = 1.0, greedy: bool = False, generator: torch.Generator | None = None
                        ) -> list[list[str]]:
    """``n`` answers per question when the model is forced to answer at once (prompt + ``<answer>``)."""
    from icml26.nn.lm import sample

    if not questions:
        raise ValueError("questions is empty")
    n = check_int("n", n, minimum=1)
    tok = world.tokenizer
    close_a = tok.encode("</answer>")[0]
    prompts = [tok.encode(prompt_text(q) + " <answer>", bos=True) for q in questions for _ in range(n)]
    gen = sample(model, prompts, 8, temperature=temperature if not greedy else 1.0, eos_id=close_a,
                 pad_id=tok.pad_id, generator=generator, greedy=greedy)
    texts = [" ".join(w for w in tok.decode(c, skip_special=False).split() if w not in ("</answer>",))
             for c in gen.as_lists()]
    return [texts[i * n:(i + 1) * n] for i in range(len(questions))]
