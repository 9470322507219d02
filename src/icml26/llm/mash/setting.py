"""The simulated world for MASH: the shared search policy, a noisy search helper, splits and answerability.

The base model and knowledge base are :func:`icml26.tasks.search.pretrain_search_policy`: a
TinyLM that memorised about half of the facts (each seen 1..3 times, a graded boundary) and
knows the Search-R1 trace format from demonstrations chosen independently of its knowledge.
What this module adds:

* :func:`noisy_helper`: the search tool of the paper's setting made noisy at will: BM25 top-1
  for the model's query, replaced by a uniformly random passage with probability ``1 - p``
  (``p = 1`` is noise-free BM25, which still misses the asked fact for ~15% of queries);
* :func:`oracle_helper`: the paper's oracle (always-correct) helper: the knowledge base's own
  passage for the fact the query asks about (an exact lookup of the query ``"<subject> <relation
  words>"``; a malformed query is read as the nearest such query by BM25), so a search on a
  question's chain always returns that question's gold fact;
* :func:`make_helper`: one of the two by name (``"noisy"`` with ``p``, or ``"oracle"``);
* :func:`split_questions`: a seeded train/test split of the 1-hop and 2-hop questions;
* :func:`answerability`: correct answers among ``n`` closed-book samples of the base model
  (the paper's knowledge-boundary estimate, used only for evaluation and for the label-based
  baselines);
* :func:`evaluate_with_tool`, :func:`evaluate_abstention`: greedy episodes with the tool
  (accuracy, searches, tool productivity) and without it (a search request = abstention).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from icml26.core.validate import as_rng, check_int
from icml26.tasks.kb import Question, answer_matches
from icml26.tasks.search import (SearchConfig, SearchWorld, closed_book_answers, make_search_world,
                                 pretrain_search_policy, rollout)

__all__ = ["SearchConfig", "SearchWorld", "make_search_world", "pretrain_search_policy", "noisy_helper",
           "oracle_helper", "make_helper", "HELPERS", "split_questions", "answerability", "evaluate_with_tool", "evaluate_abstention", "question_key"]


def question_key(q: Question) -> tuple:
    return (q.hops, q.facts)


def noisy_helper(world: SearchWorld, p: float, seed) -> callable:
    """A search function: BM25 top-1 for the query with probability ``p``, else a random passage."""
    if not isinstance(world, SearchWorld):
        raise TypeError(f"world must be a SearchWorld, got {type(world).__name__}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0 <= p <= 1):
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    rng = as_rng("seed", seed)

    def search(query: str) -> list[str]:
        if rng.random() < p:
            return world.search(query, k=1)
        return [world.documents[int(rng.integers(0, len(world.documents)))]]

    return search


def oracle_helper(world: SearchWorld) -> callable:
    """The always-correct helper: the passage of the fact the query names, looked up in the knowledge base.

    A query equal (after normalisation) to a fact's canonical query ``"<subject> <relation words>"``
    (the form the policy learned from the format demonstrations) returns that fact's passage; any
    other query is mapped to the fact whose canonical query is nearest by BM25. No noise, no
    retrieval error: every returned passage is a true fact, and the gold fact of the question when
    the query names one of its chain's facts.
    """
    from icml26.tasks.kb import BM25Retriever
    from icml26.tasks.search import _query, norm

    if not isinstance(world, SearchWorld):
        raise TypeError(f"world must be a SearchWorld, got {type(world).__name__}")
    canon = [_query(f) for f in world.kb.facts]
    exact = {c: i for i, c in enumerate(canon)}
    index = BM25Retriever(canon)

    def search(query: str) -> list[str]:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        q = norm(query)
        i = exact.get(q)
        if i is None:
            i = index.search(q, k=1)[0][0]
        return [world.documents[i]]  # one passage per fact, indexed by fact id

    return search


HELPERS = ("noisy", "oracle")


def make_helper(world: SearchWorld, kind: str, p: float, seed) -> callable:
    """``"noisy"``: :func:`noisy_helper` with ``p`` and ``seed``; ``"oracle"``: :func:`oracle_helper` (``p`` unused)."""
    if kind not in HELPERS:
        raise ValueError(f"kind must be one of {HELPERS}, got {kind!r}")
    return noisy_helper(world, p, seed) if kind == "noisy" else oracle_helper(world)


def split_questions(world: SearchWorld, seed: int, *, test_frac: float = 0.5) -> tuple[list[Question], list[Question]]:
    """Seeded split of all 1-hop and 2-hop questions into (train, test), stratified by hops."""
    seed = check_int("seed", seed, minimum=0)
    if not (isinstance(test_frac, (int, float)) and 0 < test_frac < 1):
        raise ValueError(f"test_frac must lie in (0, 1), got {test_frac!r}")
    rng = np.random.default_rng(10_000 + seed)
    train, test = [], []
    for hops in (1, 2):
        qs = world.questions(hops)
        order = rng.permutation(len(qs))
        cut = int(round(len(qs) * test_frac))
        test += [qs[i] for i in order[:cut]]
        train += [qs[i] for i in order[cut:]]
    return train, test


def answerability(model, world: SearchWorld, questions: Sequence[Question], *, n: int = 10, seed: int = 0) -> np.ndarray:
    """(Q,) number of correct answers among ``n`` closed-book samples (temperature 1) per question."""
    n = check_int("n", n, minimum=1)
    gen = torch.Generator().manual_seed(int(seed))
    ans = closed_book_answers(model, world, list(questions), n=n, generator=gen)
    return np.array([sum(answer_matches(a, q) for a in al) for al, q in zip(ans, questions)], dtype=int)


def evaluate_with_tool(model, world: SearchWorld, questions: Sequence[Question], *, p: float, seed: int,
                       max_searches: int = 3, helper: str = "noisy") -> dict[str, np.ndarray]:
    """Greedy episodes with the tool (``helper``: "noisy" with ``p``, or "oracle"): per question correct (0/1),
    searches, and format_ok."""
    rs = rollout(model, world, list(questions), search_fn=make_helper(world, helper, p, 20_000 + seed), greedy=True,
                 max_searches=max_searches)
    correct = np.array([answer_matches(r.answer or "", q) for r, q in zip(rs, questions)], dtype=float)
    n = np.array([r.n_searches for r in rs], dtype=float)
    ok = np.array([r.answer is not None for r in rs], dtype=float)
    return {"correct": correct, "n_searches": n, "format_ok": ok,
            "hops": np.array([q.hops for q in questions])}


def evaluate_abstention(model, world: SearchWorld, questions: Sequence[Question]) -> dict[str, np.ndarray]:
    """Greedy episodes without the tool: abstained (a search request), answered, and correct among answered."""
    rs = rollout(model, world, list(questions), tool=False, greedy=True)
    abst = np.array([r.searched_without_tool for r in rs], dtype=float)
    correct = np.array([answer_matches(r.answer or "", q) for r, q in zip(rs, questions)], dtype=float)
    return {"abstained": abst, "correct": correct}
