"""Unit tests for PCFG sampling, the inside algorithm, subgrammars and the KL decomposition."""

import math
from collections import Counter

import numpy as np
import pytest

from icml26.llm.cfg_subgrammars import method as M

G = M.PCFG(M.KL_EXAMPLE)


def test_inside_hand_computed_values():
    assert G.inside_logprob(["sL2_1", "5", "eL2_1"]) == pytest.approx(math.log(0.3 * 0.4 * 0.1))
    assert G.inside_logprob(["a", "a", "c", "b", "b"], "L2_2") == pytest.approx(math.log(0.6 * 0.6 * 0.4))
    assert G.inside_logprob(["x"] * 4, "L2_3") == pytest.approx(math.log(0.8 ** 3 * 0.2))
    # "1 2": NUM NUM (0.3 * 0.2 * 0.2) -- the only derivation
    assert G.inside_logprob(["1", "2"], "L2_1") == pytest.approx(math.log(0.3 * 0.04))
    assert G.inside_logprob(["a", "c"], "L2_2") == float("-inf")


def test_inside_sums_all_derivations_of_an_ambiguous_string():
    # "1 + 2 + 3" has two bracketings; the inside probability is their sum, Viterbi their max
    one = 0.4 * 0.2
    leaf = {"1": one, "2": one, "3": one}
    bracket = 0.15 * (0.15 * leaf["1"] * leaf["2"]) * leaf["3"]
    assert G.inside_logprob(["1", "+", "2", "+", "3"], "L2_1") == pytest.approx(math.log(2 * bracket))


def test_inside_matches_nltk_sum_over_all_parses():
    import nltk

    lines = []
    for a, rhs in M.KL_EXAMPLE.items():
        for r, p in rhs:
            syms = " ".join(s if s in M.KL_EXAMPLE else f"'{s}'" for s in r)
            lines.append(f"{a} -> {syms} [{p}]")
    grammar = nltk.PCFG.fromstring("\n".join(lines))
    probs = {(p.lhs(), p.rhs()): p.prob() for p in grammar.productions()}

    def tree_prob(t):
        if isinstance(t, str):
            return 1.0
        rhs = tuple(c.label() if not isinstance(c, str) else c for c in t)
        rhs = tuple(nltk.Nonterminal(s) if not isinstance(c, str) else s for s, c in zip(rhs, t))
        return probs[(nltk.Nonterminal(t.label()), rhs)] * math.prod(tree_prob(c) for c in t)

    rng = np.random.default_rng(0)
    for _ in range(15):
        s = G.sample(rng, max_len=9, symbol="L2_1")
        trees = [t for t in nltk.ChartParser(nltk.PCFG(nltk.Nonterminal("L2_1"), grammar.productions())).parse(s)]
        total = sum(tree_prob(t) for t in trees)
        assert G.inside_logprob(s, "L2_1") == pytest.approx(math.log(total), rel=1e-10)


def test_sampling_frequencies_match_inside_probabilities():
    rng = np.random.default_rng(1)
    n = 20000
    counts = Counter(tuple(G.sample(rng, symbol="L2_2")) for _ in range(n))
    for s, c in counts.most_common(3):
        p = math.exp(G.inside_logprob(list(s), "L2_2"))
        assert abs(c / n - p) < 4 * math.sqrt(p * (1 - p) / n)


def test_total_probability_of_short_strings_is_consistent():
    # P(length of L2_3 string = k) = 0.8^(k-1) 0.2; summing the inside probability over k recovers it
    tot = sum(math.exp(G.inside_logprob(["x"] * k, "L2_3")) for k in range(1, 130))
    assert tot == pytest.approx(1.0, abs=1e-11)


def test_subgrammar_is_closed_and_marked_spans():
    sub = G.subgrammar("L2_1")
    assert set(sub.rules) == {"L2_1", "NUM"} and sub.start == "L2_1"
    toks = ["sL2_2", "a", "c", "b", "eL2_2"]
    assert M.marked_spans(toks, ("L2_1", "L2_2", "L2_3")) == [("L2_2", 1, 4)]


def test_decomposition_is_exact_per_sentence():
    rng = np.random.default_rng(2)
    names = ("L2_1", "L2_2", "L2_3")
    for _ in range(20):
        s = G.sample(rng)
        lp = G.inside_logprob(s)
        spans = {(a, i, j): G.inside_logprob(s[i:j], a) for a, i, j in M.marked_spans(s, names)}
        q = rng.normal(-1.0, 0.3, size=len(s) + 1)
        over, per = M.decompose_sentence(q, s, lp, spans, names)
        assert over + sum(per.values()) == pytest.approx(lp - q.sum())
        # full log P = log(top-level rule prob) + log P_A(span): overhead with a perfect model is 0
        (a, i, j), = spans
        assert lp == pytest.approx(math.log({"L2_1": 0.3, "L2_2": 0.3, "L2_3": 0.4}[a]) + spans[(a, i, j)])


def test_linear_cka_invariances():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 6))
    Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    assert M.linear_cka(X, X @ Q * 3.0) == pytest.approx(1.0)
    assert M.linear_cka(X, rng.normal(size=(50, 4))) < 0.5


def test_validation():
    with pytest.raises(ValueError, match="sum to 1"):
        M.PCFG({"S": [(("a",), 0.5)]})
    with pytest.raises(ValueError, match="unary cycle"):
        M.PCFG({"S": [(("T",), 0.5), (("a",), 0.5)], "T": [(("S",), 1.0)]})
    with pytest.raises(ValueError, match="empty rule"):
        M.PCFG({"S": [((), 1.0)]})
    with pytest.raises(ValueError, match="nonterminal"):
        G.subgrammar("nope")
    with pytest.raises(ValueError, match="token_logq"):
        M.decompose_sentence(np.zeros(2), ["a", "b", "c"], 0.0, {}, ())


def test_sample_with_spans_gives_the_derivation():
    rng = np.random.default_rng(4)
    for _ in range(30):
        toks, spans = G.sample_with_spans(rng, max_len=15, symbol="L2_1")
        assert ("L2_1", 0, len(toks)) in spans
        for a, s, e in spans:
            assert 0 <= s < e <= len(toks)
            assert G.inside_logprob(toks[s:e], a) > float("-inf")  # every node derives its yield
        # leaves: NUM nodes cover exactly the digits
        assert sorted(s for a, s, e in spans if a == "NUM") == [i for i, t in enumerate(toks) if t.isdigit()]
    with pytest.raises(ValueError, match="nonterminal"):
        G.sample_with_spans(rng, symbol="zz")


def test_alignment_pairs_have_a_nontrivial_context():
    from icml26.llm.cfg_subgrammars import setting as S

    pairs = S.alignment_pairs(G, np.random.default_rng(5), 40, 20)
    for ctx, span in pairs:
        assert ctx[0] == "sL2_1" and len(ctx) >= 2 and span
        # the full expression starts with the context and the span is a string of L2_1
        assert G.inside_logprob(span, "L2_1") > float("-inf")
        assert ctx[-1] in "+*" or ctx[-1].isdigit()
    with pytest.raises(ValueError, match="n must"):
        S.alignment_pairs(G, np.random.default_rng(5), 1, 20)


def test_span_reps_are_causal_and_identical_inputs_give_cka_one():
    import torch

    from icml26.llm.cfg_subgrammars import experiment as E
    from icml26.llm.cfg_subgrammars import setting as S

    corpus = S.Corpus(G)
    torch.manual_seed(0)
    model = S.make_model(len(corpus.itos), 16, 2, 2, 32)
    pairs = S.alignment_pairs(G, np.random.default_rng(6), 20, 12)
    ctx = [c for c, _ in pairs]
    spans = [w for _, w in pairs]
    a = E.span_reps(model, corpus, ctx, spans)
    assert set(a) == {"attn_0", "mlp_0", "attn_1", "mlp_1"}
    assert a["mlp_1"].shape == (sum(len(w) for w in spans), 16)
    # one row at a time (no padding) gives the same states: padding after a row is invisible
    one = E.span_reps(model, corpus, ctx[:1], spans[:1])
    np.testing.assert_allclose(one["attn_1"], a["attn_1"][:len(spans[0])], atol=1e-5)
    # the same prefix in both conditions: CKA exactly 1; a different prefix: below 1
    for k in a:
        assert M.linear_cka(a[k], E.span_reps(model, corpus, ctx, spans)[k]) == pytest.approx(1.0)
    out = E.alignment(model, corpus, pairs, seed=0)
    assert 0.0 <= out["cka_shuffled"] < out["cka"] < 1.0


def test_stage_and_pretraining_grammars():
    from icml26.llm.cfg_subgrammars import setting as S

    st = S.stage_grammar(G, "L2_3")
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = st.sample(rng, 30)
        assert s[0] == "sL2_3" and s[-1] == "eL2_3"
    pre = S.pretraining_grammar(G, "L2_1")
    assert pre.rules[pre.start] == [(("sL2_1", "L2_1", "eL2_1"), 1.0)]
    with pytest.raises(ValueError, match="A="):
        S.stage_grammar(G, "NUM")


def test_learning_times_tell_parallel_from_sequential():
    from icml26.llm.cfg_subgrammars import experiment as E

    steps = [0.0, 10, 20, 30, 40, 50, 60]
    parallel = {"step": steps, **{f"kl_{a}": [4.0, 2.0, 1.2, 1.0, 0.9, 0.85, 0.8] for a in E.NAMES}}
    seq = {"step": steps, "kl_L2_1": [4.0, 4, 4, 4, 4, 1.0, 0.5], "kl_L2_2": [4.0, 4, 1, 0.5, 0.5, 0.5, 0.5],
           "kl_L2_3": [4.0, 1, 0.5, 0.5, 0.5, 0.5, 0.5]}
    assert E._ratio(E.learning_times(parallel, 0.9)) == pytest.approx(1.0)
    assert E._ratio(E.learning_times(seq, 0.5)) == pytest.approx(5.0)
    never = {**seq, "kl_L2_1": [4.0] * 7}
    assert E._ratio(E.learning_times(never, 0.5)) == E.RATIO_CAP


def test_max_len_is_validated_instead_of_looping_forever():
    with pytest.raises(ValueError, match="max_len"):
        G.sample(np.random.default_rng(0), -1)
    with pytest.raises(ValueError, match="tol"):
        M.PCFG(M.KL_EXAMPLE, tol=float("nan"))


def test_pool_batches_are_trimmed_pool_rows():
    import torch

    from icml26.llm.cfg_subgrammars import setting as S

    corpus = S.Corpus(G)
    pool = S.Pool(G, corpus, 50, 20, np.random.default_rng(3))
    ids, tgt = pool.sampler(8, seed=1)(None)
    assert ids.shape[0] == 8 and tgt.shape == (8, ids.shape[1] - 1)
    assert int(pool.lengths.max()) <= 22
    rng = np.random.default_rng(3)
    full_ids, _ = corpus.encode([G.sample(rng, 20) for _ in range(50)])
    rows = {tuple(r[r > 0].tolist()) for r in full_ids}
    assert all(tuple(r[r > 0].tolist()) in rows for r in ids)  # every batch row is a pool sentence
    assert torch.equal(pool.sampler(8, seed=1)(None)[0], ids)  # seeded
    with pytest.raises(ValueError, match="n"):
        S.Pool(G, corpus, 0, 20, np.random.default_rng(0))
    with pytest.raises(ValueError, match="batch"):
        pool.sampler(0, seed=1)


def test_bucketed_scoring_matches_one_sentence_at_a_time():
    from icml26.llm.cfg_subgrammars import experiment as E
    from icml26.llm.cfg_subgrammars import setting as S

    corpus = S.Corpus(G)
    model = S.make_model(len(corpus.itos), 16, 1, 2, 42)
    sents = [G.sample(np.random.default_rng(i), 30) for i in range(30)]
    together = E.token_logq(model, corpus, sents, chunk=7)
    for s, q in zip(sents, together):
        assert np.allclose(q, E.token_logq(model, corpus, [s])[0], atol=1e-5)


def test_constant_lr_run_cut_at_a_budget_is_the_shorter_run():
    import torch

    from icml26.llm.cfg_subgrammars import experiment as E
    from icml26.llm.cfg_subgrammars import setting as S

    corpus = S.Corpus(G)
    pool = S.Pool(G, corpus, 200, 20, np.random.default_rng(4))
    ev = E.Evaluator(G, corpus, np.random.default_rng(5), 30, 20, n_val=30)
    runs = {}
    for steps in (12, 30):
        torch.manual_seed(0)
        m = S.make_model(len(corpus.itos), 8, 1, 1, 22)
        runs[steps] = E.train_tracked(m, pool.sampler(8, seed=2), steps=steps, lr=1e-2, warmup=3, seed=0, every=3,
                                      val_kl=ev.val_kl, test_kl=ev.kl)
    short, long_ = runs[12], runs[30]
    assert E.stopped_at(long_, 12)["step"] == E.stopped_at(short, 12)["step"]
    assert E.stopped_at(long_, 12)["test"] == pytest.approx(E.stopped_at(short, 12)["test"], rel=1e-6)
    vals = [v for _, v in long_["curve"]]
    assert E.stopped_at(long_, 30)["val"] == pytest.approx(min(vals))  # early stopping = lowest validation KL
    assert [b["val"] for b in long_["best"]] == sorted([b["val"] for b in long_["best"]], reverse=True)
    with pytest.raises(ValueError, match="every"):
        E.train_tracked(m, pool.sampler(8, seed=2), steps=5, lr=1e-2, warmup=1, seed=0, every=0,
                        val_kl=ev.val_kl, test_kl=ev.kl)


def test_trend_fall_reads_the_fitted_slope_and_the_gates():
    from icml26.llm.cfg_subgrammars import experiment as E

    steps = np.arange(0, 101, 10)
    flat = [(s, 0.5) for s in steps]
    assert E.trend_fall(flat, 100) == pytest.approx(0.0, abs=1e-12)
    halving = [(s, 8.0 * 0.5 ** (s / 25)) for s in steps]  # halves every 25 steps = a quarter of 100
    assert E.trend_fall(halving, 100) == pytest.approx(1.0)
    assert E.trend_fall(halving, 60) == pytest.approx(2 ** 0.6 - 1)  # a quarter of 60 is 15 steps
    rising = [(s, 0.1 * 2 ** (s / 25)) for s in steps]
    assert E.trend_fall(rising, 100) == pytest.approx(-0.5)
    # only the last half of the budget counts: an early collapse does not matter
    late_flat = [(s, 10.0 if s < 50 else 1.0) for s in steps]
    assert E.trend_fall(late_flat, 100) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="budget"):
        E.trend_fall(flat, 30)
    with pytest.raises(ValueError, match="> 0"):
        E.trend_fall([(s, 0.0) for s in steps], 100)
    m = {"params_tiny": 1.0, "params_big": 2.0, "kl_scratch_tiny": 1.0, "kl_scratch_big": 1.0,
         "kl_sub_unigram": 2.0, "kl_sub_init_tiny": 6.0, "kl_sub_init_big": 6.0,
         "kl_sub_afterpre_tiny": 0.1, "kl_sub_afterpre_big": 0.2}
    ok = {**m, **{f"trend_{k}_{s}": 0.01 for k in ("scratch", "scratchtotal", "pretrained") for s in ("tiny", "big")}}
    assert E._converged([ok, ok])[0] and E._pretraining_learned([ok, ok])[0] and E._gates([ok, ok])[0]
    bad = {**ok, "trend_pretrained_big": 0.3}
    assert not E._converged([ok, bad])[0]  # mean 15.5% > 5%
    assert not E._gates([ok, bad])[0]
    unlearned = {**ok, "kl_sub_afterpre_big": 0.5}  # 25% of the unigram baseline in one seed
    assert not E._pretraining_learned([ok, unlearned])[0] and not E._gates([ok, unlearned])[0]


def test_average_state_and_unigram_baseline():
    import torch

    from icml26.llm.cfg_subgrammars import experiment as E
    from icml26.llm.cfg_subgrammars import setting as S

    a = {"w": torch.tensor([1.0, 3.0]), "n": torch.tensor(7)}
    b = {"w": torch.tensor([3.0, 5.0]), "n": torch.tensor(9)}
    avg = E.average_state([a, b])
    assert torch.equal(avg["w"], torch.tensor([2.0, 4.0])) and int(avg["n"]) == 7
    with pytest.raises(ValueError, match="states"):
        E.average_state([])
    with pytest.raises(ValueError, match="keys"):
        E.average_state([a, {"w": a["w"]}])
    # unigram KL by hand: corpus of spans "1 eL2_1" and "2 eL2_1" (add-one smoothing over the vocabulary)
    corpus = S.Corpus(G)
    ids, _ = corpus.encode([["sL2_1", "1", "eL2_1"], ["sL2_1", "2", "eL2_1"]])
    lengths = torch.tensor([5, 5])
    V = len(corpus.itos)
    tot = V + 4
    u1, ue = 2 / tot, 3 / tot
    logp = np.array([math.log(0.08)])
    kl = E.unigram_span_kl(ids, lengths, [["sL2_1", "1", "eL2_1"]], logp, corpus)
    assert kl == pytest.approx(math.log(0.08) - math.log(u1) - math.log(ue))


def test_sub_kl_matches_the_evaluator_and_averaging_run():
    import torch

    from icml26.llm.cfg_subgrammars import experiment as E
    from icml26.llm.cfg_subgrammars import setting as S

    corpus = S.Corpus(G)
    ev = E.Evaluator(G, corpus, np.random.default_rng(7), 20, 20, n_val=20)
    torch.manual_seed(0)
    m = S.make_model(len(corpus.itos), 8, 1, 1, 22)
    full = ev.evaluate(m)
    for a in E.NAMES:
        assert ev.sub_kl(m, a) == pytest.approx(full[f"kl_{a}"])
    with pytest.raises(ValueError, match="subgrammars"):
        ev.sub_kl(m, "L1")
