"""The simulated world of the KBE reproduction: an invented knowledge base and scenes given as exact scene graphs.

* The knowledge base is :func:`icml26.tasks.kb.make_knowledge_base` (invented people, cities,
  countries and companies; relations ``born_in``, ``works_for``, ``located_in``,
  ``headquartered_in``, ``leader_of``), turned into a ``networkx`` multigraph by
  :func:`knowledge_graph`. Every relation is a function of its subject, so a chain of relations
  from an entity has one answer.
* A scene stands for an image: a left-to-right row of 3-5 objects, each with a colour, a shape
  and the KB entity it shows (a person, a company or a city: think of a labelled poster).
  Colours and shapes may repeat inside a scene, so some references are ambiguous; KBE's
  uniqueness validation must reject those. A scene is given to the models as exact scene-graph
  tokens (:func:`scene_text`), which replaces the MLLM's perception.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_rng, check_int

COLOURS = ("red", "blue", "green", "yellow")
SHAPES = ("circle", "square", "triangle")
SHOWN_TYPES = ("person", "company", "city")  # what a scene object may show (countries end every chain)


@dataclass(frozen=True)
class SceneObject:
    colour: str
    shape: str
    entity: str


@dataclass(frozen=True)
class Scene:
    """One "image": objects listed left to right."""

    id: int
    objects: tuple[SceneObject, ...]


def entity_token(name: str) -> str:
    """One whitespace-free lower-case token per KB entity (``"Kalo Tosa"`` -> ``"kalo_tosa"``)."""
    if not isinstance(name, str) or not name:
        raise ValueError("name must be a non-empty str")
    return "_".join(name.lower().replace(".", "").split())


def make_world(seed: int | np.random.Generator = 0, *, n_people: int = 24, n_cities: int = 8,
               n_countries: int = 4, n_companies: int = 6):
    """The knowledge base (``icml26.tasks.kb.KnowledgeBase``) of one seed."""
    from icml26.tasks.kb import make_knowledge_base

    return make_knowledge_base(n_people=n_people, n_cities=n_cities, n_countries=n_countries,
                               n_companies=n_companies, seed=seed)


def knowledge_graph(kb):
    """The KB as a ``networkx.MultiDiGraph``: nodes are entities (attribute ``type``), edges are facts
    (``key`` and attribute ``relation`` = the relation name, ``fact`` = the fact id)."""
    import networkx as nx

    g = nx.MultiDiGraph()
    for e, t in kb.entities.items():
        g.add_node(e, type=t)
    for f in kb.facts:
        g.add_edge(f.subject, f.object, key=f.relation, relation=f.relation, fact=f.id)
    return g


def make_scenes(kb, n: int, *, seed: int | np.random.Generator = 0, min_objects: int = 3, max_objects: int = 5,
                first_id: int = 0) -> list[Scene]:
    """``n`` random scenes; each object shows a distinct person, company or city of ``kb``."""
    n = check_int("n", n, minimum=1)
    min_objects = check_int("min_objects", min_objects, minimum=2)
    max_objects = check_int("max_objects", max_objects, minimum=min_objects)
    first_id = check_int("first_id", first_id, minimum=0)
    rng = as_rng("seed", seed)
    pool = [e for e, t in kb.entities.items() if t in SHOWN_TYPES]
    if len(pool) < max_objects:
        raise ValueError(f"max_objects ({max_objects}) exceeds the {len(pool)} showable entities")
    # persons dominate the KB; draw the type first so companies and cities appear too
    by_type = {t: [e for e in pool if kb.entities[e] == t] for t in SHOWN_TYPES}
    out = []
    for i in range(n):
        k = int(rng.integers(min_objects, max_objects + 1))
        chosen: list[str] = []
        while len(chosen) < k:
            t = SHOWN_TYPES[int(rng.choice(3, p=[0.5, 0.25, 0.25]))]
            e = by_type[t][int(rng.integers(0, len(by_type[t])))]
            if e not in chosen:
                chosen.append(e)
        objs = tuple(SceneObject(COLOURS[int(rng.integers(0, len(COLOURS)))], SHAPES[int(rng.integers(0, len(SHAPES)))],
                                 e) for e in chosen)
        out.append(Scene(first_id + i, objs))
    return out


def scene_text(scene: Scene) -> str:
    """The scene as exact scene-graph tokens, left to right: ``red circle kalo_tosa , blue square ...``."""
    if not isinstance(scene, Scene):
        raise TypeError(f"scene must be a Scene, got {type(scene).__name__}")
    return " , ".join(f"{o.colour} {o.shape} {entity_token(o.entity)}" for o in scene.objects)
