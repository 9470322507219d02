"""The search substrate: world, gold traces, pretraining rows, and the multi-turn rollout mechanics."""

import pytest
import torch

import icml26.nn.lm as lm
from icml26.nn.lm import Generation
from icml26.nn.transformer import LMConfig, TinyLM
from icml26.tasks import search as S
from icml26.tasks.kb import answer_matches

CFG = S.SearchConfig(n_people=6, n_cities=3, n_countries=2, n_companies=2, d_model=16, n_layers=1, n_heads=2,
                     steps=2, batch=4)


@pytest.fixture(scope="module")
def world():
    return S.make_search_world(0, CFG)


def test_world_boundary_and_retrieval(world):
    assert set(world.kb.exposures.values()) <= {0, 1, 2, 3}
    q = world.questions(2)[0]
    assert world.exposures(q) == min(world.kb.exposures[i] for i in q.facts)
    for f in world.kb.facts:  # the gold query finds its own passage
        assert world.search(S._query(f), k=1)[0] == world.documents[f.id]


def test_gold_trace_masks_only_the_retrieved_text(world):
    q = world.questions(2)[0]
    segs = S.gold_trace(world, q)
    assert [t for _, t in segs] == [True, False, True, False, True]
    ids, mask = S._encode_segments(world.tokenizer, segs)
    text = world.tokenizer.decode([i for i, m in zip(ids, mask) if not m], skip_special=False).split()
    assert text[0] == "<info>" and text[-1] == "</info>"
    assert "<unk>" not in world.tokenizer.decode(ids, skip_special=False)
    assert S.gold_trace(world, q, search=False) == [(f"<answer> {S.norm(q.answer)} </answer>", True)]


def test_pretraining_rows_never_train_on_info_and_follow_exposures(world):
    import numpy as np

    rows = S._examples(world, S.SearchConfig(**{**CFG.__dict__, "format_share": 1.0}), np.random.default_rng(0))
    info = world.tokenizer.encode("<info>")[0], world.tokenizer.encode("</info>")[0]
    for ids, tgt in rows:
        assert len(tgt) == len(ids) - 1
        inside = False
        for t_in, t_out in zip(ids[1:], tgt):
            if t_in == info[0]:
                inside = True
            if inside:
                assert t_out == -100
            if t_in == info[1]:
                inside = False
    n_passages = sum(world.kb.exposures.values())
    n_closed = sum(world.exposures(q) for h in (1, 2) for q in world.questions(h))
    n_traces = len(world.questions(1)) + len(world.questions(2))
    assert len(rows) == n_passages + n_closed + n_traces


def _scripted(monkeypatch, world, turns):
    """Make nn.lm.sample emit the given texts, one per turn, for every row."""
    calls = {"n": 0}

    def fake(model, prompts, n_new, **kw):
        ids = world.tokenizer.encode(turns[calls["n"]])
        calls["n"] += 1
        b = len(prompts)
        toks = torch.tensor([ids] * b)
        return Generation(toks, torch.zeros(b, len(ids)), torch.zeros(b, len(ids)), torch.ones(b, len(ids), dtype=bool))

    monkeypatch.setattr(lm, "sample", fake)
    return calls


def test_rollout_inserts_retrieval_and_masks_it(monkeypatch, world):
    q = world.questions(1)[0]
    fact = world.kb.facts[q.facts[0]]
    model = TinyLM(LMConfig(vocab_size=world.tokenizer.vocab_size, d_model=16, n_layers=1, n_heads=2, max_len=64))
    _scripted(monkeypatch, world, [f"<search> {S._query(fact)} </search> junk",
                                   f"<answer> {S.norm(q.answer)} </answer> more"])
    (ep,) = S.rollout(model, world, [q], max_searches=2)
    assert ep.queries == [S._query(fact)] and ep.retrieved == [[world.documents[fact.id]]]
    assert answer_matches(ep.answer, q) and len(ep.loss_mask) == len(ep.completion)
    masked = world.tokenizer.decode([t for t, m in zip(ep.completion, ep.loss_mask) if not m], skip_special=False)
    assert masked.split() == ["<info>", *world.documents[fact.id].split(), "</info>"]
    assert "junk" not in world.tokenizer.decode(ep.completion, skip_special=False)  # cut after </search>


def test_rollout_without_tool_is_an_abstention_and_search_budget_ends_episodes(monkeypatch, world):
    q = world.questions(1)[0]
    model = TinyLM(LMConfig(vocab_size=world.tokenizer.vocab_size, d_model=16, n_layers=1, n_heads=2, max_len=64))
    _scripted(monkeypatch, world, ["<search> x born </search>"])
    (ep,) = S.rollout(model, world, [q], tool=False)
    assert ep.searched_without_tool and ep.answer is None and all(ep.loss_mask)
    _scripted(monkeypatch, world, ["<search> x born </search>"] * 3)
    (ep,) = S.rollout(model, world, [q], max_searches=1)
    assert ep.n_searches == 1 and ep.answer is None


def test_pretrain_is_cached_and_bad_input(tmp_path, monkeypatch, world):
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    a, _ = S.pretrain_search_policy(1, CFG)
    b, _ = S.pretrain_search_policy(1, CFG)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    answers = S.closed_book_answers(a, world, world.questions(1)[:2], n=3)
    assert len(answers) == 2 and all(len(x) == 3 for x in answers)
    with pytest.raises(ValueError, match="seed"):
        S.make_search_world(-1)
    with pytest.raises(TypeError, match="cfg"):
        S.pretrain_search_policy(0, {"steps": 1})
    with pytest.raises(ValueError, match="memorised"):
        S.SearchConfig(memorised=1.5)
    with pytest.raises(ValueError, match="questions"):
        S.rollout(a, world, [])
    with pytest.raises(TypeError, match="world"):
        S.rollout(a, "world", world.questions(1)[:1])
    with pytest.raises(ValueError, match="max_searches"):
        S.rollout(a, world, world.questions(1)[:1], max_searches=-1)


def test_pretrain_cache_is_core_cache_and_rebuilds_bad_entries(tmp_path, monkeypatch):
    from icml26.core.cache import cache_path

    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    fresh, _ = S.pretrain_search_policy(2, CFG, cache=False)
    assert not (tmp_path / "search_policy").exists()
    built, _ = S.pretrain_search_policy(2, CFG)
    path = cache_path("search_policy", "policy", S._cache_params(2, CFG), "pt", code="icml26.tasks.search")
    assert path.exists() and list((tmp_path / "search_policy").iterdir()) == [path]
    read, _ = S.pretrain_search_policy(2, CFG)
    for m in (built, read):
        assert not m.training
        assert all(torch.equal(x, y) for x, y in zip(fresh.state_dict().values(), m.state_dict().values()))
    for junk in (b"not a checkpoint", None):  # unreadable, then readable but of another shape: rebuilt
        if junk is None:
            torch.save({"w": torch.zeros(1)}, path)
        else:
            path.write_bytes(junk)
        again, _ = S.pretrain_search_policy(2, CFG)
        assert all(torch.equal(x, y) for x, y in zip(fresh.state_dict().values(), again.state_dict().values()))
        assert torch.load(path, weights_only=True).keys() == fresh.state_dict().keys()
