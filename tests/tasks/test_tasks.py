import subprocess
import sys

import pytest

from icml26.tasks.arithmetic import arithmetic_problems, extract_answer, is_correct
from icml26.tasks.kb import BM25Retriever, answer_matches, make_knowledge_base


def test_kb_structure_and_two_hop_chains():
    kb = make_knowledge_base(seed=1)
    assert len(kb.by_type("person")) == 40 and len(kb.facts) == 12 + 8 + 2 * 40 + 4
    two = kb.questions(hops=2)
    assert len(two) == 40 + 40
    for q in two[:10]:
        f1, f2 = (kb.facts[i] for i in q.facts)
        assert f1.object == f2.subject == q.bridge and f2.object == q.answer


def test_kb_is_deterministic_across_processes():
    code = ("from icml26.tasks.kb import make_knowledge_base; kb = make_knowledge_base(seed=7); "
            "print([f.text() for f in kb.facts][:5], kb.split(seed=3))")
    a = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    b = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert a == b and a


def test_split_and_pretraining_corpus():
    kb = make_knowledge_base(seed=0)
    exp = kb.split(memorised=0.5, max_exposures=3, seed=0)
    assert set(exp.values()) <= {0, 1, 2, 3} and 0.3 < sum(v > 0 for v in exp.values()) / len(exp) < 0.7
    assert len(kb.pretraining_corpus(seed=0)) == sum(exp.values())


def test_bm25_finds_the_fact_document():
    kb = make_knowledge_base(seed=2)
    ret = BM25Retriever(kb.documents())
    hits = 0
    qs = kb.questions(hops=1)
    for q in qs:
        hits += q.facts[0] in [i for i, _ in ret.search(q.text, k=3)]
    assert hits / len(qs) > 0.8


def test_alias_matching():
    kb = make_knowledge_base(seed=0)
    q = kb.questions(hops=1)[-1]
    assert answer_matches(q.answer, q) and answer_matches(q.aliases[-1].lower(), q) and not answer_matches("no", q)


def test_arithmetic_exact_answers_and_scratchpad():
    ps = arithmetic_problems(50, level=(1, 2, 3, 4), seed=0)
    for p in ps:
        acc = p.operands[0]
        for o, x in zip(p.ops, p.operands[1:]):
            acc = eval(f"{acc}{o}{x}")
        assert acc == p.answer and p.scratchpad.endswith(f"#{p.answer}")
        if p.level == 1:
            assert eval(p.prompt[:-1]) == p.answer
    p = ps[0]
    assert is_correct(p.scratchpad, p) and extract_answer("so #-12 done") == -12 and extract_answer("x") is None


def test_bad_input():
    with pytest.raises((ValueError, TypeError), match="level"):
        arithmetic_problems(3, level=5)
    with pytest.raises((ValueError, TypeError), match="n_people"):
        make_knowledge_base(n_people=0)
    with pytest.raises(ValueError, match="memorised"):
        make_knowledge_base().split(memorised=1.5)
    with pytest.raises(ValueError, match="docs"):
        BM25Retriever([])
    with pytest.raises(TypeError, match="text"):
        extract_answer(3)


def test_shared_policy_cache_is_bit_identical_and_validates(tmp_path, monkeypatch):
    import pytest
    import torch

    from icml26.tasks.policy import PolicyConfig, exact_match, pretrain_policy, problems, training_batch

    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    cfg = PolicyConfig(d_model=16, n_layers=1, n_heads=2, steps=3, batch=4)
    fresh = pretrain_policy(0, cfg, cache=True)
    cached = pretrain_policy(0, cfg, cache=True)
    for (k, a), b in zip(fresh.state_dict().items(), cached.state_dict().values()):
        assert torch.equal(a, b), k
    items = problems(3, seed=1)
    ids, tgt = training_batch(items, 48)
    assert ids.shape[0] == 3 and tgt.shape == (3, ids.shape[1] - 1)
    assert (tgt != -100).any(dim=1).all()  # every row scores its completion
    em = exact_match(cached, items)
    assert em.shape == (3,) and set(em.tolist()) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="seed"):
        pretrain_policy(-1, cfg)
    with pytest.raises(TypeError, match="cfg"):
        pretrain_policy(0, {"steps": 3})
    with pytest.raises(ValueError, match="steps"):
        PolicyConfig(steps=0)
