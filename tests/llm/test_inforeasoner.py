"""Known answers for InfoReasoner's information gain and reward (icml26.llm.inforeasoner.method)."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.llm.inforeasoner import method as M


def _rand(rng, k=6, m=4):
    return rng.dirichlet(np.ones(k)), rng.dirichlet(np.full(m, 0.5), size=k)


def test_ig_is_mutual_information_closed_form():
    # a noiseless channel reveals the class: IG = H(prior); an uninformative one gives 0
    prior = np.array([0.5, 0.25, 0.25])
    assert M.expected_information_gain(prior, np.eye(3)) == pytest.approx(M.entropy(prior), abs=1e-12)
    assert M.expected_information_gain(prior, np.full((3, 2), 0.5)) == pytest.approx(0.0, abs=1e-12)
    # binary symmetric channel with a uniform prior: log 2 - h(eps)
    eps = 0.1
    bsc = np.array([[1 - eps, eps], [eps, 1 - eps]])
    h = -(eps * np.log(eps) + (1 - eps) * np.log(1 - eps))
    assert M.expected_information_gain([0.5, 0.5], bsc) == pytest.approx(np.log(2) - h, abs=1e-12)


def test_ig_equals_mutual_information_from_joint():
    rng = np.random.default_rng(1)
    for _ in range(20):
        prior, ch = _rand(rng)
        joint = prior[:, None] * ch
        pc, po = joint.sum(1), joint.sum(0)
        nz = joint > 0
        mi = float((joint[nz] * np.log(joint[nz] / (pc[:, None] * po[None, :])[nz])).sum())
        assert M.expected_information_gain(prior, ch) == pytest.approx(mi, abs=1e-10)


def test_nonnegative_telescoping_and_data_processing():
    rng = np.random.default_rng(2)
    for _ in range(50):
        prior, c1 = _rand(rng)
        _, c2 = _rand(rng, m=3)
        ig, final = M.step_information_gains(prior, [c1, c2])
        assert np.all(ig >= -1e-12)
        assert ig.sum() == pytest.approx(M.entropy(prior) - final, abs=1e-10)
        post = rng.dirichlet(np.ones(5), size=c1.shape[1])
        assert M.expected_information_gain(prior, M.garble(c1, post)) <= M.expected_information_gain(prior, c1) + 1e-12


def test_first_step_of_chain_equals_single_step():
    rng = np.random.default_rng(3)
    prior, c1 = _rand(rng)
    ig, _ = M.step_information_gains(prior, [c1])
    assert ig[0] == pytest.approx(M.expected_information_gain(prior, c1), abs=1e-12)


def test_soft_mass_is_weighted_share_of_gold_class():
    # weights softmax([0, log 3]) = [1/4, 3/4]; only the first answer is (an alias of) gold
    s = M.soft_gold_mass(["NYC", "Boston"], [0.0, np.log(3.0)], ["New York City", "NYC"])
    assert s == pytest.approx(0.25)
    # equal log-probs: the share of gold answers; aliases count as one class
    s = M.soft_gold_mass(["nyc", "new york city", "boston", "paris"], [-1.0] * 4, ["New York City", "NYC"])
    assert s == pytest.approx(0.5)


def test_hard_equals_soft_under_alias_table():
    rng = np.random.default_rng(4)
    pool = ["a", "b", "c", "A", "d"]
    for _ in range(30):
        ans = list(rng.choice(pool, size=6))
        lp = rng.normal(size=6)
        assert M.hard_gold_mass(ans, lp, ["a"]) == pytest.approx(M.soft_gold_mass(ans, lp, ["a"]), abs=1e-12)


def test_soft_with_graded_entailment_takes_max_of_directions_and_best_alias():
    table = {("x", "g1"): 0.9, ("g1", "x"): 0.2, ("x", "g2"): 0.1, ("g2", "x"): 0.3}
    e = lambda a, b: table.get((a, b), 0.0)  # noqa: E731
    assert M.soft_gold_mass(["x"], [0.0], ["g1", "g2"], entail=e) == pytest.approx(0.9)


def test_delta_forms_and_reward():
    d = M.delta_ig([0.8, 0.1], [0.2, 0.1])
    assert d == pytest.approx([0.6, 0.0])
    lr = M.delta_ig([0.8], [0.2], form="log_ratio", eps=1e-12)
    assert lr[0] == pytest.approx(np.log(4.0))
    r = M.inforeasoner_reward([1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [1.0, 1.0, 0.0], coef=0.6)
    assert r == pytest.approx([1.3, 0.3, 0.0])
    with pytest.raises(ValueError, match="form"):
        M.delta_ig([0.5], [0.5], form="ratio")
    with pytest.raises(ValueError, match="s_context"):
        M.delta_ig([1.5], [0.5])


def test_shuffled_bonus_is_permutation_among_retrieving():
    b = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    r = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    s = M.shuffled_bonus(b, r, seed=0)
    assert s[1] == 0.2 and s[4] == 0.5
    assert sorted(s[[0, 2, 3]]) == pytest.approx([0.1, 0.3, 0.4])


def test_alias_bonus_whole_words():
    assert M.answer_in_context_bonus("renton is a city in kamiwenia", ["Kamiwenia", "KAMIWENIA"]) == 1.0
    assert M.answer_in_context_bonus("rentonville is a city", ["Renton"]) == 0.0


def test_auroc_matches_brute_force_and_sklearn():
    rng = np.random.default_rng(5)
    s = rng.integers(0, 4, size=40).astype(float)
    y = (rng.random(40) < 0.4).astype(float)
    pos, neg = s[y == 1], s[y == 0]
    brute = np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg])
    assert M.auroc(s, y) == pytest.approx(brute)
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn cross-check")
    assert M.auroc(s, y) == pytest.approx(metrics.roc_auc_score(y, s))


def test_bad_input_names_argument():
    with pytest.raises(ValueError, match="prior"):
        M.expected_information_gain([0.5, 0.6], np.eye(2))
    with pytest.raises(ValueError, match="channel"):
        M.expected_information_gain([0.5, 0.5], np.eye(3))
    with pytest.raises(TypeError, match="answers"):
        M.soft_gold_mass("abc", [0.0], ["a"])
    with pytest.raises(ValueError, match="labels"):
        M.auroc([0.1, 0.2], [0.0, 2.0])


def test_theory_part_holds():
    from icml26.llm.inforeasoner.experiment import theory

    m = theory(30, 0)
    assert m["theory/min_ig"] >= -1e-9
    assert m["theory/max_telescoping_error"] <= 1e-9
    assert m["theory/max_garbling_excess"] <= 1e-9


def test_counterfactual_reading_answer_is_in_context_and_chain_is_consistent():
    from icml26.llm.inforeasoner.setting import _counterfactual_reading, world_config
    from icml26.tasks.search import make_search_world

    world = make_search_world(0, world_config({"n_people": 8, "n_cities": 4, "n_countries": 2, "n_companies": 3}))
    tok = world.tokenizer
    rng = np.random.default_rng(0)
    for q in world.questions(2)[:5] + world.questions(1)[:5]:
        ctx, ans = _counterfactual_reading(world, q, rng)
        c, a = tok.decode(ctx, skip_special=False).split(), tok.decode(ans, skip_special=False).split()
        answer = a[1:-1]
        assert a[0] == "<answer>" and a[-1] == "</answer>"
        assert " ".join(answer) in " ".join(c)
        assert "<search>" not in c  # the reader sees passages only
        if q.hops == 2:  # the second passage is about the first passage's (invented) object
            infos = " ".join(c).split("<info>")
            first_obj = infos[1].split("</info>")[0].split()[-1]
            assert first_obj in infos[2]


def _small_world():
    from icml26.llm.inforeasoner.setting import world_config
    from icml26.tasks.search import make_search_world

    return make_search_world(0, world_config({"n_people": 8, "n_cities": 4, "n_countries": 2, "n_companies": 3}))


def test_evidence_context_keeps_only_complete_info_blocks():
    from icml26.llm.inforeasoner.setting import evidence_context

    world = _small_world()
    tok = world.tokenizer
    doc = world.documents[0]
    text = f"<search> who </search> <info> {doc} </info> <search> x </search> <info> {doc} </info> <answer> a"
    got = tok.decode(evidence_context(tok.encode(text), world), skip_special=False).split()
    assert got == f"<info> {doc} </info> <info> {doc} </info>".split()
    cut = tok.encode(f"<search> q </search> <info> {doc} </info> <info> {doc}")
    assert tok.decode(evidence_context(cut, world), skip_special=False).split() == f"<info> {doc} </info>".split()
    assert evidence_context(tok.encode("<answer> a </answer>"), world) == []


def test_bridge_composition_answers_with_the_invented_bridge_true_memorised_fact():
    from icml26.llm.inforeasoner.setting import _bridge_composition
    from icml26.tasks.search import norm

    world = _small_world()
    kb, tok = world.kb, world.tokenizer
    rng = np.random.default_rng(1)
    n = 0
    for q in world.questions(2):
        ex = _bridge_composition(world, q, rng)
        if ex is None:
            continue
        n += 1
        ctx, ans = (tok.decode(x, skip_special=False) for x in ex)
        f1, f2 = kb.facts[q.facts[0]], kb.facts[q.facts[1]]
        hits = [x for x in kb.by_type(kb.entities[f1.object]) if f" {norm(x)} " in f" {ctx} "]
        assert len(hits) == 1
        g = kb.lookup(hits[0], f2.relation)
        assert kb.exposures[g.id] > 0 and ans.split()[1:-1] == norm(g.object).split()
    assert n > 0


def test_bonus_is_not_paid_without_an_answer_and_retrieval_only_split():
    from icml26.llm.inforeasoner.experiment import arm_rewards
    from icml26.llm.inforeasoner.setting import split_questions

    sc = {"em": np.zeros(3), "retrieved": np.array([1.0, 1.0, 0.0]), "answered": np.array([1.0, 0.0, 1.0]),
          "dig": np.array([0.5, 0.5, 0.5]), "alias": np.ones(3)}
    assert arm_rewards("inforeasoner", sc, 0, 0.6) == pytest.approx([0.3, 0.0, 0.0])
    assert arm_rewards("alias_bonus", sc, 0, 0.6) == pytest.approx([0.6, 0.0, 0.0])
    world = _small_world()
    tr, te = split_questions(world, 2)
    assert tr and te and all(world.exposures(q) == 0 for q in tr + te)
    assert len(split_questions(world, 2, retrieval_only=False)[0]) >= len(tr)


def test_tune_reader_rejects_bad_mix():
    from icml26.llm.inforeasoner.setting import tune_reader

    with pytest.raises(ValueError, match="mix"):
        tune_reader(None, _small_world(), mix=(1.0, -1.0, 0.0))


def test_soft_mass_equals_reference_array_formula_with_graded_entailment():
    # the IG service's soft score: entail_mass (R, A, 2) = w * [e(r => a), e(a => r)];
    # score = max over aliases A of the sum over responses R of the max over the two directions
    rng = np.random.default_rng(6)
    for _ in range(20):
        ans = [f"r{i}" for i in range(5)]
        gold = ["g0", "g1", "g2"]
        fwd, bwd = rng.random((5, 3)), rng.random((5, 3))
        table = {}
        for i, a in enumerate(ans):
            for j, g in enumerate(gold):
                table[(a, g)], table[(g, a)] = fwd[i, j], bwd[i, j]
        e = lambda x, y: table.get((x, y), 0.0)  # noqa: E731
        lp = rng.normal(size=5)
        w = np.exp(lp - lp.max())
        w /= w.sum()
        mass = np.stack([w[:, None] * fwd, w[:, None] * bwd], axis=-1)
        ref = float(np.max(np.sum(np.max(mass, axis=-1), axis=0)))
        assert M.soft_gold_mass(ans, lp, gold, entail=e) == pytest.approx(min(ref, 1.0), abs=1e-12)


def test_hard_mass_clusters_transitively_and_matches_cluster_by_any_member():
    # a ~ b and b ~ c (but not a ~ c) form one cluster; only c is equivalent to gold, so the whole
    # cluster's mass counts; d is alone and not gold
    eq = {frozenset(p) for p in [("a", "b"), ("b", "c"), ("c", "G")]}
    e = lambda x, y: 1.0 if x == y or frozenset((x, y)) in eq else 0.0  # noqa: E731
    lp = np.log([0.1, 0.2, 0.3, 0.4])
    assert M.hard_gold_mass(["a", "b", "c", "d"], lp, ["G"], entail=e) == pytest.approx(0.6)
    # one-way entailment is not equivalence (threshold 0.5 in both directions)
    one_way = lambda x, y: 0.9 if (x, y) == ("a", "G") else float(x == y)  # noqa: E731
    assert M.hard_gold_mass(["a", "d"], [0.0, 0.0], ["G"], entail=one_way) == 0.0
    assert M.soft_gold_mass(["a", "d"], [0.0, 0.0], ["G"], entail=one_way) == pytest.approx(0.45)


def test_reward_pays_bonus_only_where_something_was_retrieved_and_can_be_negative():
    r = M.inforeasoner_reward([1.0, 0.0, 1.0], [-0.5, -0.5, 0.9], [1.0, 1.0, 0.0], coef=0.6)
    assert r == pytest.approx([0.7, -0.3, 1.0])


def test_credit_labels_bridge_is_first_fact_and_answer_is_in_last():
    # the credit claim labels 'bridge retrieved' by the passage of q.facts[0] and the exploratory
    # 'answer passage retrieved' by q.facts[-1]: check what these passages hold
    from icml26.llm.inforeasoner.setting import world_config
    from icml26.tasks.search import make_search_world, norm

    world = make_search_world(0, world_config({"n_people": 8, "n_cities": 4, "n_countries": 2, "n_companies": 3}))
    for q in world.questions(2):
        first, last = world.documents[q.facts[0]], world.documents[q.facts[-1]]
        assert norm(q.bridge) in first and norm(q.bridge) in last
        assert any(f" {norm(a)} " in f" {last} " for a in q.aliases)
        assert not any(f" {norm(a)} " in f" {first} " for a in q.aliases)


# ----------------------------------------------------------------------------- MiniLM-cosine entailment (issue 20)
_VECS = {"nyc": [1.0, 0.0], "new york city": [0.8, 0.6], "boston": [0.0, 1.0], "york": [0.96, 0.28]}


def _embed(texts):
    return np.array([_VECS[t] for t in texts])


def test_cosine_entailment_thresholds_the_cosine_both_ways():
    e = M.cosine_entailment(_embed, 0.9)
    assert e("nyc", "nyc") == 1.0  # identical strings always entail
    assert e("nyc", "york") == e("york", "nyc") == 1.0  # cos 0.96
    assert e("nyc", "new york city") == 0.0  # cos 0.8 < 0.9
    assert M.cosine_entailment(_embed, 0.8)("nyc", "new york city") == 1.0  # at the threshold counts
    assert e("nyc", "boston") == 0.0  # cos 0
    # soft mass under it: w = softmax(log 1, log 3) = (1/4, 3/4); only 'york' (w 3/4) is within 0.9 of gold 'nyc'
    s = M.soft_gold_mass(["boston", "york"], [0.0, np.log(3.0)], ["nyc"], entail=e)
    assert s == pytest.approx(0.75)
    # scale of the embedding does not matter
    e2 = M.cosine_entailment(lambda t: 7.0 * _embed(t), 0.9)
    assert e2("nyc", "york") == 1.0 and e2("nyc", "new york city") == 0.0


def test_cosine_entailment_rejects_bad_input():
    with pytest.raises(TypeError, match="embed"):
        M.cosine_entailment(np.eye(2), 0.9)
    with pytest.raises(ValueError, match="threshold"):
        M.cosine_entailment(_embed, 1.5)
    with pytest.raises(ValueError, match="threshold"):
        M.cosine_entailment(_embed, float("nan"))
    with pytest.raises(TypeError, match="threshold"):
        M.cosine_entailment(_embed, "0.9")
    with pytest.raises(ValueError, match="embed"):
        M.cosine_entailment(lambda t: np.ones(3), 0.9)("a", "b")


def test_entailment_agreement_counts_answers_against_the_alias_table():
    from types import SimpleNamespace

    from icml26.llm.inforeasoner.experiment import entailment_agreement

    # gold 'nyc' (alias 'new york city'); answers nyc (both say gold), york (MiniLM-like says gold, alias says not),
    # boston (neither), new york city (alias says gold; cosine 0.8 to 'nyc' but 1 to itself -> gold too)
    r = SimpleNamespace(embed=_embed, threshold=0.9,
                        drawn={("q", ()): (["nyc", "york", "boston", "new york city"], np.zeros(4),
                                           ("nyc", "new york city"))})
    m = entailment_agreement(r)
    assert m["minilm/agreement"] == pytest.approx(0.75)
    assert m["minilm/precision"] == pytest.approx(2 / 3)
    assert m["minilm/recall"] == pytest.approx(1.0)
    # soft mass is a max over single aliases: alias table 2/4 (nyc, new york city); cosine 2/4 against 'nyc'
    # (nyc, york) and 2/4 against 'new york city' (york at cos 0.936, itself), so no gap here ...
    assert m["minilm/mean_abs_mass_gap"] == pytest.approx(0.0)
    r.drawn[("q2", ())] = (["york", "boston"], np.zeros(2), ("nyc",))
    # ... and 1/2 (york) vs 0 on a second set: mean gap 1/4
    assert entailment_agreement(r)["minilm/mean_abs_mass_gap"] == pytest.approx(0.25)
    assert entailment_agreement(SimpleNamespace(embed=None, threshold=0.9, drawn={})) == {}


def test_minilm_arm_reward_needs_minilm_scores():
    from icml26.llm.inforeasoner.experiment import MINILM_ARM, arm_rewards

    sc = {"em": np.array([1.0, 0.0]), "retrieved": np.array([1.0, 1.0]), "answered": np.array([1.0, 1.0]),
          "dig": np.array([0.5, 0.5]), "dig_minilm": np.array([0.2, -0.4]), "alias": np.zeros(2)}
    assert np.allclose(arm_rewards(MINILM_ARM, sc, 0, 0.5), [1.1, -0.2])
    assert np.allclose(arm_rewards("inforeasoner", sc, 0, 0.5), [1.25, 0.25])
    with pytest.raises(ValueError, match="MiniLM"):
        arm_rewards(MINILM_ARM, {k: v for k, v in sc.items() if k != "dig_minilm"}, 0, 0.5)


def test_beside_reports_minilm_numbers_without_deciding():
    from icml26.llm.inforeasoner import PAPER

    claim = {c.id: c for c in PAPER.claims}["credits-useful-searches"]
    row = {"credit/auroc_dig": 0.8, "gate/reader_gold_doc": 1.0, "gate/reader_no_doc_excess": 0.0,
           "gate/closed_book_gap": 0.0, "gate/bridge_lift": 0.2, "gate/credit_positives": 10.0,
           "minilm/available": 1.0, "credit/minilm/auroc_dig": 0.1, "minilm/agreement": 1.0}
    v = claim.check([row] * 5)
    assert v.status == "reproduced"  # the alias table decides; a bad MiniLM AUROC does not change it
    assert "AUROC of Delta IG(MiniLM) 0.1" in v.evidence and "not deciding" in v.evidence
    bad = claim.check([{**row, "credit/auroc_dig": 0.5, "credit/minilm/auroc_dig": 0.99}] * 5)
    assert bad.status == "not-reproduced"
    assert claim.check.contradict([row] * 5)[0]["credit/auroc_dig"] < 0.75


def test_minilm_part_is_skipped_cleanly_without_the_package(monkeypatch):
    import icml26.nn.sentence as sentence
    from icml26.llm.inforeasoner import PAPER
    from icml26.llm.inforeasoner.experiment import minilm_embed, run

    monkeypatch.setattr(sentence, "minilm_available", lambda: False)
    assert minilm_embed(True) is None
    assert minilm_embed(False) is None
    m = run(PAPER.profiles["quick"], 0)
    assert m["minilm/available"] == 0.0
    assert not [k for k in m if "minilm" in k and k != "minilm/available"]
    for c in PAPER.claims[1:]:
        v = c.check([m, m])
        assert "MiniLM-cosine entailment" in v.evidence and "skipped" in v.evidence, c.id


@pytest.mark.skipif(not __import__("icml26.nn.sentence", fromlist=["x"]).minilm_available(),
                    reason="the offline MiniLM package (minilm extra) is not installed")
def test_minilm_entailment_on_kb_answers():
    from icml26.llm.inforeasoner import PAPER
    from icml26.llm.inforeasoner.experiment import minilm_embed

    e = M.cosine_entailment(minilm_embed(True), PAPER.profiles["full"].params["minilm_threshold"])
    assert e("morka labs", "Morka Labs") == 1.0  # the encoder is uncased
    assert e("morka labs", "Ruvel Labs") == 0.0
    assert e("where <answer> locamorland", "Locamorland") == 0.0  # the closest miss on the dev seeds (0.90)
