"""A synthetic knowledge base: entities, relations, facts with paraphrases, questions, and BM25 retrieval.

Entities have invented names (so no pretrained model knows them) and types; relations
connect types (``born_in``: person -> city, ``located_in``: city -> country, ``works_for``:
person -> company, ``headquartered_in``: company -> city, ``leader_of``: person -> country).
Every fact can be written in several paraphrases and every entity has aliases, so a reader
must match meaning, not strings. Questions are 1-hop (one fact) or 2-hop chains through a
bridge entity (``born_in`` then ``located_in``: "In which country was X born?").

``kb.split(memorised=0.5, max_exposures=3, seed=...)`` marks which facts a model sees in
pretraining and how often (0..max_exposures: a graded knowledge boundary), and which it can
only get by retrieval. ``kb.documents()`` is one short passage per fact, the corpus of
:class:`BM25Retriever` (``rank_bm25``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from icml26.core.validate import as_rng, check_int

TYPES = ("person", "city", "country", "company")
RELATIONS: dict[str, tuple[str, str]] = {
    "born_in": ("person", "city"), "located_in": ("city", "country"), "works_for": ("person", "company"),
    "headquartered_in": ("company", "city"), "leader_of": ("person", "country"),
}
TEMPLATES: dict[str, tuple[str, ...]] = {
    "born_in": ("{s} was born in {o}.", "{s} is a native of {o}.", "The birthplace of {s} is {o}."),
    "located_in": ("{s} is a city in {o}.", "{s} lies in {o}.", "The city of {s} belongs to {o}."),
    "works_for": ("{s} works for {o}.", "{s} is employed by {o}.", "{o} employs {s}."),
    "headquartered_in": ("{s} is headquartered in {o}.", "The head office of {s} is in {o}.",
                         "{s} has its base in {o}."),
    "leader_of": ("{s} leads {o}.", "{s} is the leader of {o}.", "{o} is led by {s}."),
}
QUESTIONS: dict[str, str] = {
    "born_in": "Where was {s} born?", "located_in": "In which country is {s}?",
    "works_for": "Which company does {s} work for?", "headquartered_in": "Where is {s} headquartered?",
    "leader_of": "Which country does {s} lead?",
}
TWO_HOP: dict[tuple[str, str], str] = {
    ("born_in", "located_in"): "In which country was {s} born?",
    ("works_for", "headquartered_in"): "In which city is the employer of {s} based?",
}
_SYLLABLES = ("ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "qui", "ban", "el", "ru", "zan", "fi", "mor",
              "tal", "ne", "pri", "gus", "ol", "wen", "ix", "ca", "bre")
_SUFFIX = {"person": ("",), "city": ("ville", "burg", "ton", ""), "country": ("ia", "land", "stan"),
           "company": (" Corp", " Labs", " Works")}


@dataclass(frozen=True)
class Fact:
    subject: str
    relation: str
    object: str
    id: int

    def text(self, paraphrase: int = 0) -> str:
        tpl = TEMPLATES[self.relation]
        return tpl[paraphrase % len(tpl)].format(s=self.subject, o=self.object)


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    aliases: tuple[str, ...]
    hops: int
    facts: tuple[int, ...]  # ids of the facts on the chain
    bridge: str | None = None


@dataclass
class KnowledgeBase:
    entities: dict[str, str]  # name -> type
    aliases: dict[str, tuple[str, ...]]
    facts: list[Fact]
    exposures: dict[int, int] = field(default_factory=dict)  # fact id -> times seen in pretraining

    # -- structure ----------------------------------------------------------------------
    def by_type(self, kind: str) -> list[str]:
        return [e for e, t in self.entities.items() if t == kind]

    def lookup(self, subject: str, relation: str) -> Fact | None:
        for f in self.facts:
            if f.subject == subject and f.relation == relation:
                return f
        return None

    def documents(self, paraphrase: int = 0) -> list[str]:
        """One passage per fact (fact ``i`` is document ``i``)."""
        return [f.text(paraphrase) for f in self.facts]

    # -- knowledge boundary ---------------------------------------------------------------
    def split(self, *, memorised: float = 0.5, max_exposures: int = 3, seed: int | np.random.Generator = 0
              ) -> dict[int, int]:
        """Assign each fact a number of pretraining exposures: 0 for the retrieval-only share, else
        uniform on 1..max_exposures. Stored in ``self.exposures`` and returned."""
        if not (isinstance(memorised, (int, float)) and 0 <= memorised <= 1):
            raise ValueError(f"memorised must be a fraction in [0, 1], got {memorised!r}")
        max_exposures = check_int("max_exposures", max_exposures, minimum=1)
        rng = as_rng("seed", seed)
        seen = rng.random(len(self.facts)) < memorised
        counts = rng.integers(1, max_exposures + 1, size=len(self.facts))
        self.exposures = {f.id: int(c) if s else 0 for f, s, c in zip(self.facts, seen, counts)}
        return dict(self.exposures)

    def pretraining_corpus(self, seed: int | np.random.Generator = 0) -> list[str]:
        """Each memorised fact written ``exposures`` times, in random paraphrases, shuffled."""
        if not self.exposures:
            raise ValueError("call split() first: no fact has exposures yet")
        rng = as_rng("seed", seed)
        out = [f.text(int(rng.integers(0, 3))) for f in self.facts for _ in range(self.exposures.get(f.id, 0))]
        order = rng.permutation(len(out))
        return [out[i] for i in order]

    # -- questions ------------------------------------------------------------------------
    def question(self, fact: Fact) -> Question:
        return Question(QUESTIONS[fact.relation].format(s=fact.subject), fact.object, self.aliases[fact.object], 1,
                        (fact.id,))

    def questions(self, hops: int = 1) -> list[Question]:
        """Every 1-hop question, or every 2-hop chain question (``hops=2``)."""
        hops = check_int("hops", hops, minimum=1, maximum=2)
        if hops == 1:
            return [self.question(f) for f in self.facts]
        out = []
        for (r1, r2), tpl in TWO_HOP.items():
            for f1 in self.facts:
                if f1.relation != r1:
                    continue
                f2 = self.lookup(f1.object, r2)
                if f2 is not None:
                    out.append(Question(tpl.format(s=f1.subject), f2.object, self.aliases[f2.object], 2,
                                        (f1.id, f2.id), bridge=f1.object))
        return out


def _name(rng: np.random.Generator, kind: str, taken: set[str]) -> str:
    for _ in range(1000):
        n = int(rng.integers(2, 4))
        base = "".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), size=n))
        suf = _SUFFIX[kind][int(rng.integers(0, len(_SUFFIX[kind])))]
        name = (base.capitalize() + suf) if kind != "person" else (
            base.capitalize() + " " + "".join(_SYLLABLES[int(i)] for i in rng.integers(0, len(_SYLLABLES), 2)).capitalize())
        if name not in taken:
            return name
    raise RuntimeError("could not draw a fresh entity name; lower the entity counts")


def make_knowledge_base(*, n_people: int = 40, n_cities: int = 12, n_countries: int = 4, n_companies: int = 8,
                        seed: int | np.random.Generator = 0) -> KnowledgeBase:
    """Draw a knowledge base: every person is born in a city and works for a company, every city
    lies in a country, every company is headquartered in a city, each country has one leader."""
    counts = {"person": n_people, "city": n_cities, "country": n_countries, "company": n_companies}
    arg = {"person": "n_people", "city": "n_cities", "country": "n_countries", "company": "n_companies"}
    for k, v in counts.items():
        check_int(arg[k], v, minimum=1)
    if n_countries > n_people:
        raise ValueError(f"n_countries ({n_countries}) must not exceed n_people ({n_people}): each country has a leader")
    rng = as_rng("seed", seed)
    entities: dict[str, str] = {}
    for kind in TYPES:
        for _ in range(counts[kind]):
            entities[_name(rng, kind, set(entities))] = kind
    aliases: dict[str, tuple[str, ...]] = {}
    for e, kind in entities.items():
        if kind == "person":
            first, last = e.split(" ", 1)
            aliases[e] = (e, last, f"{first[0]}. {last}")
        elif kind == "company":
            aliases[e] = (e, e.split(" ")[0])
        else:
            aliases[e] = (e, e.upper())
    people, cities = [e for e in entities if entities[e] == "person"], [e for e in entities if entities[e] == "city"]
    countries, companies = ([e for e in entities if entities[e] == "country"],
                            [e for e in entities if entities[e] == "company"])
    triples = []
    for c in cities:
        triples.append((c, "located_in", countries[int(rng.integers(0, len(countries)))]))
    for co in companies:
        triples.append((co, "headquartered_in", cities[int(rng.integers(0, len(cities)))]))
    for p in people:
        triples.append((p, "born_in", cities[int(rng.integers(0, len(cities)))]))
        triples.append((p, "works_for", companies[int(rng.integers(0, len(companies)))]))
    leaders = rng.choice(len(people), size=len(countries), replace=False)
    for li, c in zip(leaders, countries):
        triples.append((people[int(li)], "leader_of", c))
    facts = [Fact(s, r, o, i) for i, (s, r, o) in enumerate(triples)]
    return KnowledgeBase(entities, aliases, facts)


_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-case alphanumeric words (the retriever's and the matcher's tokenisation)."""
    return _WORD.findall(text.lower())


class BM25Retriever:
    """BM25 (Okapi, ``rank_bm25``) over a list of passages; ``search(query, k)`` -> [(doc index, score)]."""

    def __init__(self, docs: Sequence[str], *, tokenize: Callable[[str], list[str]] = words, k1: float = 1.5,
                 b: float = 0.75):
        from rank_bm25 import BM25Okapi

        if isinstance(docs, str) or not docs:
            raise ValueError("docs must be a non-empty list of passages")
        self.docs = list(docs)
        self.tokenize = tokenize
        self.index = BM25Okapi([tokenize(d) for d in self.docs], k1=k1, b=b)

    def scores(self, query: str) -> np.ndarray:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        return np.asarray(self.index.get_scores(self.tokenize(query)), dtype=float)

    def search(self, query: str, k: int = 3) -> list[tuple[int, float]]:
        k = check_int("k", k, minimum=1)
        s = self.scores(query)
        order = np.lexsort((np.arange(len(s)), -s))[:k]  # ties broken by index: deterministic
        return [(int(i), float(s[i])) for i in order]


def answer_matches(text: str, question: Question) -> bool:
    """Exact match after normalisation against the answer and its aliases (the EM metric)."""
    t = " ".join(words(text))
    return any(t == " ".join(words(a)) for a in question.aliases)
