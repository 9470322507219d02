"""Knowledge-enhanced Benchmark Evolution (KBE): graph formulation, Re-selection, Expansion, validation.

A knowledge-VQA sample (image, question, answer) is a graph ``G = G_v ∪ G_k``: visual triplets
grounded in the image (``obj --colour--> red``, ``obj --shape--> circle``, ``obj --shows--> entity``,
``obj --left_of--> obj'``) and knowledge triplets about the entities shown (``entity --relation-->
entity'``). The question is a path through G that starts at visual evidence and ends at the
answer (:class:`QuestionPath`): a referring expression picks one object (its colour and shape, or
"the object left of" such an object), the object shows an entity, and a chain of knowledge
relations leads to the answer.

KBE evolves a static sample in two ways:

* **Re-selection** (:func:`reselect`): pick other visual evidence in the same image (another
  object, optionally reached through a spatial relation) and rebuild a path to a new answer.
* **Expansion** (:func:`expand`): append knowledge hops after the answer, so the answer becomes
  an entity further away in the knowledge graph.

The **exploration degree** (:func:`exploration_degree`) is the number of visual triplets and
knowledge hops the evolved path adds over the static one; it is the difficulty knob.
:func:`evolve` combines both operators at a requested degree, and every evolved question passes
:func:`validate` (the reference picks exactly one object, every hop has exactly one answer, the
answer is not visible in the scene and differs from the question's entities). :func:`verbalise`
writes a path as text from templates; :class:`LLMVerbaliser` asks an LLM behind an
OpenAI-compatible endpoint to do it instead, as the paper does.

Reconstructed (the paper's method section was not available to us): the exact degree schedule,
the validation rules and the verbalisation prompts are our choices, documented here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

import numpy as np

from icml26.agents.kbe.setting import COLOURS, SHAPES, Scene, entity_token
from icml26.core.validate import as_rng, check_int

SPATIAL = ("left_of", "right_of")

# two verbalisation styles: style 0 is the static benchmark's wording, style 1 its paraphrase
ROLE = (
    {"born_in": "birthplace", "works_for": "employer", "headquartered_in": "headquarters",
     "located_in": "country", "leader_of": "nation led"},
    {"born_in": "home town", "works_for": "company", "headquartered_in": "base city",
     "located_in": "nation", "leader_of": "land ruled"},
)
SPATIAL_WORDS = ({"left_of": "thing left of the", "right_of": "thing right of the"},
                 {"left_of": "item just left of the", "right_of": "item just right of the"})


@dataclass(frozen=True)
class Reference:
    """A referring expression: the object with ``colour`` and ``shape``, or (``spatial`` set) the object
    immediately ``left_of``/``right_of`` that object."""

    colour: str
    shape: str
    spatial: str | None = None

    @property
    def visual_triplets(self) -> int:
        return 1 + (self.spatial is not None)


@dataclass(frozen=True)
class QuestionPath:
    """A question as a path: reference -> object ``anchor`` -> shown entity -> ``relations`` -> answer."""

    scene_id: int
    ref: Reference
    anchor: int
    relations: tuple[str, ...]
    entities: tuple[str, ...]  # shown entity, then one entity per hop; the last is the answer

    @property
    def answer(self) -> str:
        return self.entities[-1]

    @property
    def hops(self) -> int:
        return len(self.relations)


# ----------------------------------------------------------------------------- graph formulation
def _check_scene(scene: Scene) -> Scene:
    if not isinstance(scene, Scene):
        raise TypeError(f"scene must be a Scene, got {type(scene).__name__}")
    if not scene.objects:
        raise ValueError("scene has no objects")
    return scene


def _check_kg(kg):
    import networkx as nx

    if not isinstance(kg, nx.MultiDiGraph):
        raise TypeError(f"kg must be a networkx.MultiDiGraph (setting.knowledge_graph), got {type(kg).__name__}")
    if kg.number_of_edges() == 0:
        raise ValueError("kg has no facts")
    return kg


def sample_graph(scene: Scene, kg, *, max_hops: int = 3):
    """The sample's graph ``G_v ∪ G_k`` (a ``networkx.MultiDiGraph``): visual triplets of ``scene`` plus the
    knowledge triplets within ``max_hops`` of the shown entities. Edge attribute ``kind`` is
    ``"visual"`` or ``"knowledge"``."""
    import networkx as nx

    _check_scene(scene)
    _check_kg(kg)
    max_hops = check_int("max_hops", max_hops, minimum=0)
    g = nx.MultiDiGraph()
    for i, o in enumerate(scene.objects):
        node = f"obj{i}"
        g.add_edge(node, o.colour, key="colour", kind="visual")
        g.add_edge(node, o.shape, key="shape", kind="visual")
        g.add_edge(node, o.entity, key="shows", kind="visual")
        if i > 0:
            g.add_edge(f"obj{i - 1}", node, key="left_of", kind="visual")
    frontier = {o.entity for o in scene.objects}
    seen = set(frontier)
    for _ in range(max_hops):
        nxt = set()
        for e in frontier:
            if e not in kg:
                continue
            for _, o, rel in kg.out_edges(e, keys=True):
                g.add_edge(e, o, key=rel, kind="knowledge")
                if o not in seen:
                    nxt.add(o)
        seen |= nxt
        frontier = nxt
    return g


def resolve(scene: Scene, ref: Reference) -> list[int]:
    """Indices of the objects ``ref`` can denote in ``scene`` (exactly one for a valid reference)."""
    _check_scene(scene)
    if not isinstance(ref, Reference):
        raise TypeError(f"ref must be a Reference, got {type(ref).__name__}")
    base = [i for i, o in enumerate(scene.objects) if o.colour == ref.colour and o.shape == ref.shape]
    if ref.spatial is None:
        return base
    if ref.spatial not in SPATIAL:
        raise ValueError(f"ref.spatial must be one of {SPATIAL} or None, got {ref.spatial!r}")
    step = -1 if ref.spatial == "left_of" else 1
    return sorted({i + step for i in base if 0 <= i + step < len(scene.objects)})


def follow(kg, entity: str, relations: Sequence[str]) -> list[tuple[str, ...]]:
    """Every entity chain that follows ``relations`` from ``entity`` in ``kg`` (one for a unique answer)."""
    _check_kg(kg)
    if not isinstance(entity, str):
        raise TypeError(f"entity must be a str, got {type(entity).__name__}")
    chains: list[tuple[str, ...]] = [(entity,)]
    for r in relations:
        nxt = []
        for c in chains:
            if c[-1] in kg:
                nxt += [c + (o,) for _, o, k in kg.out_edges(c[-1], keys=True) if k == r]
        chains = nxt
    return chains


def validate(scene: Scene, kg, path: QuestionPath) -> bool:
    """Answer-uniqueness validation: the reference denotes exactly ``path.anchor``; the relation chain from
    the shown entity has exactly one answer (and it is ``path.answer``); the answer is not visible in
    the scene; the path visits no entity twice (no trivial round trips)."""
    _check_scene(scene)
    if not isinstance(path, QuestionPath):
        raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
    if path.hops < 1 or not 0 <= path.anchor < len(scene.objects):
        return False
    if resolve(scene, path.ref) != [path.anchor]:
        return False
    if scene.objects[path.anchor].entity != path.entities[0]:
        return False
    chains = follow(kg, path.entities[0], path.relations)
    if len(chains) != 1 or chains[0] != path.entities:
        return False
    if path.answer in {o.entity for o in scene.objects}:
        return False
    return len(set(path.entities)) == len(path.entities)


# ----------------------------------------------------------------------------- operators
def _references(scene: Scene, i: int, spatial: bool) -> list[Reference]:
    """The valid (unique) references to object ``i``: direct, or through a spatial relation."""
    out = []
    o = scene.objects[i]
    if not spatial:
        r = Reference(o.colour, o.shape)
        if resolve(scene, r) == [i]:
            out.append(r)
        return out
    for rel, j in (("left_of", i + 1), ("right_of", i - 1)):
        if 0 <= j < len(scene.objects):
            oj = scene.objects[j]
            r = Reference(oj.colour, oj.shape, rel)
            if resolve(scene, Reference(oj.colour, oj.shape)) == [j] and resolve(scene, r) == [i]:
                out.append(r)
    return out


def _chains(kg, entity: str, hops: int) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """All (relations, entities) chains of exactly ``hops`` hops from ``entity``."""
    out: list[tuple[tuple[str, ...], tuple[str, ...]]] = [((), (entity,))]
    for _ in range(hops):
        out = [(rels + (k,), ents + (o,)) for rels, ents in out if ents[-1] in kg
               for _, o, k in kg.out_edges(ents[-1], keys=True)]
    return out


def static_question(scene: Scene, kg, *, seed: int | np.random.Generator = 0) -> QuestionPath | None:
    """A static-benchmark question for ``scene``: a direct reference and one knowledge hop (``None`` if the
    scene admits no valid one)."""
    _check_scene(scene)
    _check_kg(kg)
    rng = as_rng("seed", seed)
    for i in rng.permutation(len(scene.objects)):
        refs = _references(scene, int(i), spatial=False)
        chains = _chains(kg, scene.objects[int(i)].entity, 1)
        rng.shuffle(chains)
        for rels, ents in chains:
            p = QuestionPath(scene.id, refs[0], int(i), rels, ents) if refs else None
            if p is not None and validate(scene, kg, p):
                return p
    return None


def reselect(scene: Scene, kg, path: QuestionPath, *, spatial: bool = False, hops: int | None = None,
             seed: int | np.random.Generator = 0) -> QuestionPath | None:
    """Re-selection: a valid path from other visual evidence in the same scene (another object; reached
    through a spatial relation with ``spatial``), with ``hops`` knowledge hops (default: as ``path``)."""
    _check_scene(scene)
    _check_kg(kg)
    if not isinstance(path, QuestionPath):
        raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
    hops = path.hops if hops is None else check_int("hops", hops, minimum=1)
    rng = as_rng("seed", seed)
    for i in rng.permutation(len(scene.objects)):
        i = int(i)
        if i == path.anchor:
            continue
        refs = _references(scene, i, spatial)
        if not refs:
            continue
        chains = _chains(kg, scene.objects[i].entity, hops)
        order = rng.permutation(len(chains))
        for c in order:
            rels, ents = chains[int(c)]
            p = QuestionPath(scene.id, refs[int(rng.integers(0, len(refs)))], i, rels, ents)
            if p.answer != path.answer and validate(scene, kg, p):
                return p
    return None


def expand(scene: Scene, kg, path: QuestionPath, k: int, *, seed: int | np.random.Generator = 0
           ) -> QuestionPath | None:
    """Expansion: append ``k`` knowledge hops after the answer of ``path`` (``None`` if no valid chain)."""
    _check_scene(scene)
    _check_kg(kg)
    if not isinstance(path, QuestionPath):
        raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
    k = check_int("k", k, minimum=0)
    return _expand(scene, kg, path, k, as_rng("seed", seed), frozenset())


def _expand(scene: Scene, kg, path: QuestionPath, k: int, rng: np.random.Generator, avoid) -> QuestionPath | None:
    if k == 0:
        return path if path.answer not in avoid and validate(scene, kg, path) else None
    chains = _chains(kg, path.answer, k)
    for c in rng.permutation(len(chains)):
        rels, ents = chains[int(c)]
        if ents[-1] in avoid:
            continue
        p = replace(path, relations=path.relations + rels, entities=path.entities + ents[1:])
        if validate(scene, kg, p):
            return p
    return None


def exploration_degree(path: QuestionPath, base_hops: int = 1) -> int:
    """Visual triplets beyond the first plus knowledge hops beyond the static question's ``base_hops``."""
    if not isinstance(path, QuestionPath):
        raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
    base_hops = check_int("base_hops", base_hops, minimum=1)
    return (path.ref.visual_triplets - 1) + (path.hops - base_hops)


def evolve(scene: Scene, kg, path: QuestionPath, degree: int, *, seed: int | np.random.Generator = 0,
           tries: int = 8, avoid_answers: Collection[str] = ()) -> QuestionPath | None:
    """One KBE question of exploration ``degree`` evolved from the static ``path``: Re-selection (always a
    different object, through a spatial relation when the degree's split asks for it) followed by
    Expansion. Splits of the degree into visual and knowledge parts are tried in random order.

    ``avoid_answers`` (our addition, not the paper's): answers an evolved question must not have; the
    benchmark builder uses it for an answer-balance rule (no answer may dominate a degree)."""
    degree = check_int("degree", degree, minimum=0)
    tries = check_int("tries", tries, minimum=1)
    if not isinstance(path, QuestionPath):
        raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
    if isinstance(avoid_answers, str) or not isinstance(avoid_answers, Collection):
        raise TypeError(f"avoid_answers must be a collection of entity names, got {type(avoid_answers).__name__}")
    avoid = set(avoid_answers)
    rng = as_rng("seed", seed)
    splits = [(v, degree - v) for v in (0, 1) if degree - v >= 0]
    for _ in range(tries):
        v, h = splits[int(rng.integers(0, len(splits)))]
        base = reselect(scene, kg, path, spatial=bool(v), hops=path.hops, seed=rng)
        if base is None:
            continue
        out = _expand(scene, kg, base, h, rng, avoid)
        if out is not None and exploration_degree(out, path.hops) == degree:
            return out
    return None


# ----------------------------------------------------------------------------- verbalisation
def reference_text(ref: Reference, style: int = 0) -> str:
    base = f"{ref.colour} {ref.shape}"
    return base if ref.spatial is None else f"{SPATIAL_WORDS[style][ref.spatial]} {base}"


def verbalise(path: QuestionPath, style: int = 0) -> str:
    """Templated question text; style 0 ``what is the country of the employer of the red circle ?``, style 1
    ``the red circle 's company 's nation is what ?``. Intermediate entities are never named."""
    if not isinstance(path, QuestionPath):
        raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
    style = check_int("style", style, minimum=0, maximum=len(ROLE) - 1)
    ref = reference_text(path.ref, style)
    if style == 0:
        roles = " of the ".join(ROLE[0][r] for r in reversed(path.relations))
        return f"what is the {roles} of the {ref} ?"
    roles = " 's ".join(ROLE[1][r] for r in path.relations)
    return f"the {ref} 's {roles} is what ?"


def answer_token(path: QuestionPath) -> str:
    return entity_token(path.answer)


@dataclass
class LLMVerbaliser:
    """Question writing by an LLM behind an OpenAI-compatible endpoint (the paper's verbaliser).

    ``client`` is an :class:`icml26.agents.policy.ChatClient`. The LLM gets the path as triplets and
    must write one question that names no intermediate entity and not the answer; a reply that
    leaks the answer, or is empty, falls back to the template (counted in ``fallbacks``)."""

    client: object
    fallbacks: int = 0

    def __call__(self, path: QuestionPath) -> str:
        if not isinstance(path, QuestionPath):
            raise TypeError(f"path must be a QuestionPath, got {type(path).__name__}")
        chain = " ; ".join(f"({a}, {r}, {b})" for a, r, b in zip(path.entities, path.relations, path.entities[1:]))
        msg = [{"role": "system", "content": "You write one quiz question about an image. Reply with the question only."},
               {"role": "user", "content": (
                   f"The image object is described as '{reference_text(path.ref)}'. Knowledge chain: {chain}. "
                   "Ask for the last entity of the chain, refer to the first one only through the image "
                   "description, and do not name any entity of the chain.")}]
        try:
            text = self.client.complete(msg).strip()  # type: ignore[attr-defined]
        except (ConnectionError, TimeoutError, RuntimeError):
            text = ""
        import re

        leaks = any(re.search(rf"(?<!\w){re.escape(e.lower())}(?!\w)", text.lower()) for e in path.entities)
        if not text or leaks:
            self.fallbacks += 1
            return verbalise(path)
        return text


def EXAMPLES():
    """Public functions and good arguments, for the common bad-input test."""
    from icml26.agents.kbe.setting import knowledge_graph, make_scenes, make_world

    kb = make_world(0)
    kg = knowledge_graph(kb)
    scene = make_scenes(kb, 1, seed=0)[0]
    p = static_question(scene, kg, seed=0)
    return [(make_scenes, {"kb": kb, "n": 2, "seed": 0}),
            (static_question, {"scene": scene, "kg": kg, "seed": 0}),
            (exploration_degree, {"path": p, "base_hops": 1}),
            (verbalise, {"path": p, "style": 1}),
            (evolve, {"scene": scene, "kg": kg, "path": p, "degree": 1, "seed": 0})]


__all__ = ["COLOURS", "SHAPES", "Reference", "QuestionPath", "sample_graph", "resolve", "follow", "validate",
           "static_question", "reselect", "expand", "exploration_degree", "evolve", "verbalise",
           "reference_text", "answer_token", "LLMVerbaliser"]
