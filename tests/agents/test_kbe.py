"""Known answers for KBE: graph formulation, Re-selection, Expansion, degree, uniqueness, verbalisation."""

import itertools

import numpy as np
import pytest

from icml26.agents.kbe.method import (
    LLMVerbaliser, QuestionPath, Reference, evolve, expand, exploration_degree, follow, reselect, resolve,
    sample_graph, static_question, validate, verbalise)
from icml26.agents.kbe.setting import Scene, SceneObject, entity_token, knowledge_graph, make_scenes, make_world


@pytest.fixture(scope="module")
def world():
    kb = make_world(3)
    return kb, knowledge_graph(kb)


def _person_with_chain(kb):
    for e, t in kb.entities.items():
        if t == "person":
            return e
    raise AssertionError


def test_knowledge_graph_is_the_kb(world):
    kb, kg = world
    assert kg.number_of_edges() == len(kb.facts)
    for f in kb.facts:
        assert kg.has_edge(f.subject, f.object, key=f.relation)


def test_follow_matches_brute_force_over_facts(world):
    kb, kg = world
    p = _person_with_chain(kb)
    rels = ("works_for", "headquartered_in", "located_in")
    # brute force: scan the fact list hop by hop
    cur = [p]
    for r in rels:
        cur = [f.object for c in cur for f in kb.facts if f.subject == c and f.relation == r]
    chains = follow(kg, p, rels)
    assert len(chains) == 1 and chains[0][-1] == cur[0] and len(cur) == 1


def test_resolve_and_spatial_reference():
    sc = Scene(0, (SceneObject("red", "circle", "A"), SceneObject("blue", "square", "B"),
                   SceneObject("red", "circle", "C")))
    assert resolve(sc, Reference("red", "circle")) == [0, 2]          # ambiguous
    assert resolve(sc, Reference("blue", "square")) == [1]
    assert resolve(sc, Reference("blue", "square", "left_of")) == [0]
    assert resolve(sc, Reference("blue", "square", "right_of")) == [2]
    assert resolve(sc, Reference("red", "circle", "left_of")) == [1]   # object left of index 2


def test_validate_rejects_ambiguous_reference_and_visible_answer(world):
    kb, kg = world
    person = _person_with_chain(kb)
    city = follow(kg, person, ("born_in",))[0][-1]
    other = next(e for e, t in kb.entities.items() if t == "company")
    good = Scene(0, (SceneObject("red", "circle", person), SceneObject("blue", "square", other)))
    p = QuestionPath(0, Reference("red", "circle"), 0, ("born_in",), (person, city))
    assert validate(good, kg, p)
    ambiguous = Scene(0, (SceneObject("red", "circle", person), SceneObject("red", "circle", other)))
    assert not validate(ambiguous, kg, p)
    visible = Scene(0, (SceneObject("red", "circle", person), SceneObject("blue", "square", city)))
    assert not validate(visible, kg, p)
    wrong = QuestionPath(0, Reference("red", "circle"), 0, ("born_in",), (person, other))
    assert not validate(good, kg, wrong)


def test_operators_and_degree(world):
    kb, kg = world
    rng = np.random.default_rng(0)
    scenes = make_scenes(kb, 60, seed=1)
    seen = set()
    for s in scenes:
        p = static_question(s, kg, seed=rng)
        if p is None:
            continue
        assert p.hops == 1 and p.ref.spatial is None and exploration_degree(p) == 0 and validate(s, kg, p)
        r = reselect(s, kg, p, seed=rng)
        if r is not None:
            assert r.anchor != p.anchor and r.hops == 1 and validate(s, kg, r)
            e = expand(s, kg, r, 1, seed=rng)
            if e is not None:
                assert e.relations[:1] == r.relations and e.hops == 2 and exploration_degree(e) == 1
        for d in range(4):
            q = evolve(s, kg, p, d, seed=rng)
            if q is not None:
                assert exploration_degree(q) == d and validate(s, kg, q) and q.anchor != p.anchor
                seen.add(d)
    assert seen == {0, 1, 2, 3}


def test_sample_graph_holds_visual_and_knowledge_triplets(world):
    kb, kg = world
    s = make_scenes(kb, 1, seed=5)[0]
    g = sample_graph(s, kg, max_hops=3)
    kinds = {d["kind"] for _, _, d in g.edges(data=True)}
    assert kinds == {"visual", "knowledge"}
    for i, o in enumerate(s.objects):
        assert g.has_edge(f"obj{i}", o.entity, key="shows")
    # every 3-hop chain from a shown entity is inside the graph
    for o in s.objects:
        for rels in itertools.product(("works_for", "born_in", "headquartered_in", "located_in"), repeat=2):
            for c in follow(kg, o.entity, rels):
                assert all(g.has_edge(a, b, key=r) for a, r, b in zip(c, rels, c[1:]))


def test_verbalise_names_no_entity(world):
    kb, kg = world
    rng = np.random.default_rng(1)
    for s in make_scenes(kb, 20, seed=2):
        p = static_question(s, kg, seed=rng)
        q = p and evolve(s, kg, p, 3, seed=rng)
        if q:
            for style in (0, 1):
                text = verbalise(q, style)
                assert all(entity_token(e) not in text and e not in text for e in q.entities)
    p = QuestionPath(0, Reference("red", "circle"), 0, ("works_for", "headquartered_in"), ("a", "b", "c"))
    assert verbalise(p, 0) == "what is the headquarters of the employer of the red circle ?"
    assert verbalise(p, 1) == "the red circle 's company 's base city is what ?"


class _Leaky:
    def complete(self, messages):
        return "Is it c?"


class _Good:
    def complete(self, messages):
        return "Which city hosts the head office of the firm employing the red circle person?"


def test_llm_verbaliser_falls_back_on_leak():
    p = QuestionPath(0, Reference("red", "circle"), 0, ("works_for", "headquartered_in"), ("a", "b", "c"))
    v = LLMVerbaliser(_Leaky())
    assert v(p) == verbalise(p) and v.fallbacks == 1
    assert LLMVerbaliser(_Good())(p).startswith("Which city")


def test_bad_inputs(world):
    kb, kg = world
    s = make_scenes(kb, 1, seed=0)[0]
    p = static_question(s, kg, seed=0)
    with pytest.raises(TypeError, match="scene"):
        static_question("scene", kg)
    with pytest.raises(TypeError, match="kg"):
        static_question(s, {})
    with pytest.raises(ValueError, match="degree"):
        evolve(s, kg, p, -1)
    with pytest.raises(TypeError, match="degree"):
        evolve(s, kg, p, 1.5)
    with pytest.raises(ValueError, match="style"):
        verbalise(p, 5)
    with pytest.raises(ValueError, match="n"):
        make_scenes(kb, 0)


def test_retrieval_reader_follows_hops(world):
    from icml26.agents.kbe.models import RetrievalReader

    kb, kg = world
    rr = RetrievalReader(kb, paraphrase_seed=0, use_minilm=False)
    rng = np.random.default_rng(4)
    items = []
    for s in make_scenes(kb, 30, seed=7):
        p = static_question(s, kg, seed=rng)
        if p is not None:
            items.append((s, p))
    ans = rr.answer(items)
    acc = np.mean([a == entity_token(p.answer) for a, (_, p) in zip(ans, items)])
    assert acc >= 0.5  # one BM25 hop from the exactly perceived entity is mostly right
    # a spatial reference is parsed: the reader reaches the object's own fact
    s, p = items[0]
    q = evolve(s, kg, p, 1, seed=0)
    if q is not None:
        assert isinstance(rr.answer([(s, q)])[0], str)


def test_evolve_avoid_answers_is_respected(world):
    """Our answer-balance hook: an evolved question never has an avoided answer; without it, same as before."""
    kb, kg = world
    scenes = make_scenes(kb, 30, seed=5)
    seen = 0
    for s in scenes:
        p = static_question(s, kg, seed=1)
        if p is None:
            continue
        for d in (0, 1, 2, 3):
            q = evolve(s, kg, p, d, seed=2)
            if q is None:
                continue
            seen += 1
            assert evolve(s, kg, p, d, seed=2, avoid_answers=()) == q
            r = evolve(s, kg, p, d, seed=2, avoid_answers={q.answer})
            assert r is None or (r.answer != q.answer and validate(s, kg, r) and exploration_degree(r) == d)
    assert seen > 20
    with pytest.raises(TypeError, match="avoid_answers"):
        evolve(scenes[0], kg, static_question(scenes[0], kg, seed=1) or p, 1, avoid_answers="abc")


def test_balance_rule_caps_the_modal_answer():
    from collections import Counter

    from icml26.agents.kbe.experiment import DEGREES, _evolve_all

    kb = make_world(0, n_people=16, n_cities=6, n_countries=6, n_companies=6)
    kg = knowledge_graph(kb)
    static = [(s, p) for s in make_scenes(kb, 60, seed=1, max_objects=4)
              if (p := static_question(s, kg, seed=2)) is not None]
    ev = _evolve_all(static, kg, np.random.default_rng(0), balance=0.5)
    for d in DEGREES:
        items = [x for x in ev[d] if x is not None]
        if len(items) >= 4:
            top = Counter(q.answer for _, q in items).most_common(1)[0][1]
            assert top <= max(1, 0.5 * len(items)) + 1


def test_fork_continues_from_the_base_weights(world, tmp_path, monkeypatch):
    """A fork trained with a negligible learning rate answers exactly as its base; its losses extend the base's."""
    pytest.importorskip("torch")
    from icml26.agents.kbe.experiment import _vocab
    from icml26.agents.kbe.models import ReaderConfig, train_reader

    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    kb, kg = world
    items = [(s, p) for s in make_scenes(kb, 12, seed=3, max_objects=4)
             if (p := static_question(s, kg, seed=1)) is not None]
    common = dict(kb=kb, train_items=items, static_items=items[:3], vocab_texts=_vocab(kb), seed=0, cache=False)
    cfg = ReaderConfig(d_model=16, n_layers=1, n_heads=2, steps=6, batch=8, lr=3e-3, fact_frac=0.25)
    (base,) = train_reader(cfg, **common)
    (fork,) = train_reader(ReaderConfig(d_model=16, n_layers=1, n_heads=2, steps=2, batch=8, lr=1e-12,
                                        fact_frac=0.25), init_from=base, **common)
    prompts = ["fact " + entity_token(f.subject) + " ? what is the employer of " + entity_token(f.subject) + " ? ="
               for f in kb.facts[:10]]
    assert fork.answer(prompts) == base.answer(prompts)
    assert fork.losses[:6] == base.losses and len(fork.losses) == 8
    with pytest.raises(TypeError, match="init_from"):
        train_reader(cfg, init_from="base", **common)
