"""Known answers for the team-synergy harness: brute force, closed forms and planted behaviour."""

import itertools

import numpy as np
import pytest

from icml26.agents.llm_team_synergy.method import (agreement, at_least_one_correct, borda, complete_ranking,
                                                   format_message, identification_leveraging, parse_message,
                                                   random_l1_mean, ranking_l1, rule_coder, run_discussion,
                                                   synergy_gap, ChatMember)
from icml26.agents.llm_team_synergy.setting import (LOST_AT_SEA, MOON_SURVIVAL, ScriptedMember, briefs,
                                                    degroot_sweep)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_random_l1_mean_brute_force(m):
    truth = list(range(m))
    mean = np.mean([ranking_l1(list(p), truth) for p in itertools.permutations(truth)])
    assert mean == pytest.approx(random_l1_mean(m))


def test_ranking_l1_known():
    assert ranking_l1(["a", "b", "c"], ["a", "b", "c"]) == 0
    assert ranking_l1(["c", "b", "a"], ["a", "b", "c"]) == 4
    with pytest.raises(ValueError, match="ranking"):
        ranking_l1(["a", "b"], ["a", "b", "c"])


def test_synergy_gap():
    assert synergy_gap(0.6, 0.8) == pytest.approx(0.25)
    assert synergy_gap(2.0, 2.0, kind="loss", chance=10.0) == 0.0
    assert synergy_gap(10.0, 2.0, kind="loss", chance=10.0) == 1.0
    with pytest.raises(ValueError, match="chance"):
        synergy_gap(1.0, 0.0, kind="loss")


def test_at_least_one_correct_and_borda():
    c = np.array([[1, 0, 0], [0, 0, 1]])
    assert at_least_one_correct(c) == pytest.approx(2 / 3)
    assert borda([["a", "b", "c"], ["a", "b", "c"]]) == ["a", "b", "c"]
    assert borda([["a", "b", "c"], ["c", "b", "a"]]) == ["a", "b", "c"]  # all tied: first ranking's order
    assert borda([["a", "b", "c"], ["b", "a", "c"], ["b", "c", "a"]]) == ["b", "a", "c"]


def test_message_roundtrip_and_lenient_parse():
    text = format_message(["x", "y"], expert="m1", claims_expert=True, text="I think so.")
    p = parse_message(text)
    assert p["ranking"] == ["x", "y"] and p["expert"] == "m1" and p["claims_expert"]
    assert complete_ranking(["Y", "zzz", "y"], ["x", "y", "w"]) == ["y", "x", "w"]


def test_published_reference_rankings():
    assert len(MOON_SURVIVAL) == 15 and MOON_SURVIVAL[0].startswith("two 100-lb tanks of oxygen")
    assert len(LOST_AT_SEA) == 15 and LOST_AT_SEA[0] == "shaving mirror" and LOST_AT_SEA[-1] == "sextant"


def test_briefs_distributed_parts_are_disjoint_and_ordered():
    b = briefs(MOON_SURVIVAL, 4, expertise="distributed", experts=3, seed=0)
    parts = [set(x) for x in b[:3]]
    assert b[3] is None and set().union(*parts) == set(MOON_SURVIVAL)
    assert sum(len(p) for p in parts) == 15
    for part in b[:3]:
        assert part == [t for t in MOON_SURVIVAL if t in part]


def _team(truth, behaviour, rng, n=4):
    others = [ScriptedMember(f"m{i}", [truth[j] for j in rng.permutation(len(truth))], behaviour) for i in range(1, n)]
    return [others[0], ScriptedMember("m0", list(truth), "stubborn", claims_expert=True), *others[1:]]


def test_deferring_team_has_gap_zero():
    rng = np.random.default_rng(0)
    truth = list(LOST_AT_SEA)
    r = run_discussion(_team(truth, "defer", rng), "rank", rounds=2)
    assert ranking_l1(r["team"]["ranking"], truth) == 0
    assert r["team"]["expert"] == "m0" and rule_coder(r) == "DEFERENCE"


def test_named_expert_is_followed_by_deferring_team():
    rng = np.random.default_rng(1)
    truth = list(MOON_SURVIVAL)
    team = _team(truth, "defer", rng)
    team[1].claims_expert = False
    r = run_discussion(team, "rank", rounds=2, named_expert="m0")
    assert r["team"]["ranking"] == truth


def test_averaging_team_answers_borda():
    rng = np.random.default_rng(2)
    truth = list(MOON_SURVIVAL)
    team = [ScriptedMember(f"m{i}", [truth[j] for j in rng.permutation(15)], "average") for i in range(3)]
    r = run_discussion(team, "rank", rounds=3)
    assert r["team"]["ranking"] == borda([m.ranking for m in team])
    assert rule_coder(r) == "COMPROMISE"


def test_identification_leveraging_known():
    il = identification_leveraging(["a", "b", "a", "a"], ["a"] * 4, [True, True, False, True])
    assert il["identification"] == 0.75 and il["leveraging"] == pytest.approx(2 / 3)


def test_krippendorff_agreement():
    a = ["DEFERENCE", "COMPROMISE", "OTHER", "COMPROMISE"]
    assert agreement([a, a]) == pytest.approx(1.0)
    assert agreement([a, ["COMPROMISE", "DEFERENCE", "DEFERENCE", "OTHER"]]) < 0.5


class _EchoClient:
    def __init__(self):
        self.calls = []

    def complete(self, messages, **kw):
        self.calls.append(messages)
        return "We agree.\nRANKING: b > a\nEXPERT: x"


def test_chat_members_run_through_the_harness():
    client = _EchoClient()
    team = [ChatMember("x", client, brief="ref: b > a"), ChatMember("y", client)]
    r = run_discussion(team, "rank a and b", rounds=2)
    assert r["team"]["ranking"] == ["b", "a"] and len(client.calls) == 5
    assert "Private information" in client.calls[0][1]["content"]


def test_degroot_full_deference_follows_expert():
    res = degroot_sweep(ns=(3,), ds=(1.0,), qs=(1.0,), instances=20, rounds=30, s=1.0, seed=0)
    assert res["team"][0, 0, 0] == pytest.approx(res["expert"][0, 0, 0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="named_expert"):
        run_discussion([ScriptedMember("a", ["x"])], "t", named_expert="zz")
    with pytest.raises(ValueError, match="behaviour"):
        ScriptedMember("a", ["x"], "sulk")
