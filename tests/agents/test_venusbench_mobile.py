"""VenusBench-Mobile: schema, categories, diagnostics, SPR and the simulated phone."""

import numpy as np
import pytest

from icml26.agents.env import replay, run_episode
from icml26.agents.policy import ScriptedPolicy
from icml26.agents.venusbench_mobile import method as M
from icml26.agents.venusbench_mobile import setting as S


def test_released_metadata_validates_and_reproduces_category_counts():
    tasks = M.validate_tasks(S.main_pool())
    assert len(tasks) == 149 and len(S.load_metadata()) == 189 and len(S.load_metadata_aw()) == 115
    counts = {c: sum(M.category_of(t) == c for t in tasks) for c in M.CATEGORIES}
    assert counts == {"fa": 22, "cf": 22, "va": 16, "mr": 10, "gsa": 10, "guim": 9, "hgb": 34, "nr": 16, "bc": 10}
    sizes = M.band_sizes(tasks)
    assert sizes["p"] == {"l12": 99, "l34": 50} and sizes["a"] == {"l12": 134, "l34": 15}


def test_schema_rejects_bad_level():
    bad = dict(S.main_pool()[0], ability={"p": 5, "u": 2, "d": 2, "a": 2, "m": 2})
    with pytest.raises(ValueError, match="tasks\\[0\\]"):
        M.validate_tasks([bad])


def _toy():
    return [{"task_name": f"t{i}", "tags": [tag], "ability": dict(zip("pudam", lv))}
            for i, (tag, lv) in enumerate([("vague", (1, 2, 2, 2, 4)), ("vague", (3, 2, 2, 2, 1)),
                                           ("GSA", (4, 3, 2, 2, 2)), ("GSA", (2, 4, 2, 2, 3))])]


def test_diagnose_known_answer_and_category_control():
    tasks = _toy()
    d = M.diagnose([1, 0, 0, 1], tasks)
    assert d["p"] == {"l12": 1.0, "l34": 0.0} and d["m"] == {"l12": 0.0, "l34": 1.0} and d["d"]["l34"] != d["d"]["l34"]  # NaN
    assert M.category_success([1, 0, 0, 1], tasks) == {"va": 0.5, "gsa": 0.5}
    # when success equals the category rate task by task, the control equals the diagnosis
    ctrl = M.bands_from_categories({"va": 0.25, "gsa": 0.75}, tasks)
    want = M.diagnose([0.25, 0.25, 0.75, 0.75], tasks)
    for c in M.CAPABILITIES:
        np.testing.assert_equal([ctrl[c][b] for b in M.BANDS], [want[c][b] for b in M.BANDS])
    assert M.drops(M.diagnose({"t0": 1, "t1": 0, "t2": 0, "t3": 1}, tasks))["p"] == 1.0


def test_grim_and_spr():
    assert M.grim_consistent(43, 99) and not M.grim_consistent(50, 3) and M.grim_consistent(33.3, 3, decimals=1)
    r = M.stability_pass_rate({"a": {"original": True, "pad": False}, "b": {"original": True, "pad": True}})
    assert r == {"original": 1.0, "pad": 0.5, "min": 0.5, "max": 1.0, "spr": 0.5}


def test_released_band_rates_average_back_to_totals():
    tasks = S.main_pool()
    sizes = M.band_sizes(tasks)
    for m in S.load_leaderboard():
        if "diagnostics" not in m:
            continue
        for c in M.CAPABILITIES:
            est = (sizes[c]["l12"] * m["diagnostics"][f"{c}_l12"] + sizes[c]["l34"] * m["diagnostics"][f"{c}_l34"]) / 149
            assert abs(est - m["scores"]["total"]) < 1.5, (m["name"], c)


def test_oracle_solves_every_task_in_every_mode_and_logs_replay():
    for task in S.build_tasks(seed=3):
        for v in M.VARIANTS:
            env = S.PhoneEnv(task, variant=v)
            r = run_episode(env, ScriptedPolicy(S.oracle_solver(task)), seed=1)
            assert r["reward"] == 1.0, (task.name, v)
        assert replay(S.PhoneEnv(task, variant="pad"), r["log"])


def test_brittle_agents_fail_where_built_to():
    tasks = S.build_tasks(seed=0)
    zh = [run_episode(S.PhoneEnv(t, variant="chinese"), ScriptedPolicy(S.oracle_solver(t, by_label=True)))["reward"]
          for t in tasks]
    assert np.mean(zh) == 0.0
    guim = next(t for t in tasks if t.category == "guim")
    rec = run_episode(S.PhoneEnv(guim), ScriptedPolicy(S.oracle_solver(guim)))
    from icml26.agents.env import ToolCall
    acts = [ToolCall(e["action"]["tool"], e["action"]["arguments"]) if isinstance(e["action"], dict) else e["action"]
            for e in rec["log"][1:]]
    assert run_episode(S.PhoneEnv(guim), S.ReplayPolicy(acts))["reward"] == 1.0
    assert run_episode(S.PhoneEnv(guim, variant="pad"), S.ReplayPolicy(acts))["reward"] == 0.0


def test_memory_limit_breaks_multi_round():
    mr = next(t for t in S.build_tasks(seed=0) if t.category == "mr")
    assert run_episode(S.PhoneEnv(mr), ScriptedPolicy(S.oracle_solver(mr), memory_limit=1))["reward"] == 0.0


def test_render_modes():
    task = S.build_tasks(seed=0)[0]
    env = S.PhoneEnv(task, variant="dark")
    env.reset(seed=0)
    img = S.render(env)
    assert img.size == (S.W_PHONE, S.H_PHONE) and img.getpixel((1, 1))[0] < 50
    pad = S.PhoneEnv(task, variant="pad")
    pad.reset(seed=0)
    assert S.render(pad).size == (S.W_PAD, S.H_PAD)


@pytest.mark.parametrize("call,err", [
    (lambda: S.PhoneEnv("task"), TypeError),
    (lambda: S.PhoneEnv(S.build_tasks(0)[0], variant="tablet"), ValueError),
    (lambda: S.build_tasks(seed=-1), ValueError),
    (lambda: M.validate_tasks([]), TypeError),
    (lambda: M.diagnose([1, 0], _toy()), ValueError),
    (lambda: M.diagnose([2, 0, 0, 0], _toy()), ValueError),
    (lambda: M.band_of(5), ValueError),
    (lambda: M.grim_consistent(120, 10), ValueError),
    (lambda: M.stability_pass_rate({"a": {"x": True}, "b": {"y": True}}), ValueError),
    (lambda: M.bands_from_categories({"va": 0.5}, _toy()), ValueError),
])
def test_bad_input(call, err):
    with pytest.raises(err):
        call()


def test_category_rule_agrees_with_name_prefix_and_leaderboard_rates():
    """Review: the first-tag rule equals the name-prefix rule on all 149 tasks, and every leaderboard
    category rate is 100 k / n at those counts (one decimal, allowing the leaderboard's double rounding)."""
    tasks = S.main_pool()
    for t in tasks:
        pref = next(c for p, c in M._PREFIX.items() if t["task_name"].startswith(p))
        assert M.category_of(t) == pref, t["task_name"]
    counts = {c: sum(M.category_of(t) == c for t in tasks) for c in M.CATEGORIES}
    for m in S.load_leaderboard():
        for c, n in counts.items():
            k = np.arange(n + 1)
            assert np.min(np.abs(100 * k / n - m["scores"][c])) <= 0.06, (m["name"], c)


def test_bottleneck_verdict_follows_the_control():
    """The released re-analysis is reproduced; it becomes partly when the control passes the same rule,
    and not reproduced when the paired test fails."""
    from icml26.agents.venusbench_mobile import experiment as E

    m = E.released_part()
    assert E.check_perception_memory_bottleneck([m]).status == "reproduced"
    both = {**m, **{k.replace("diag/", "ctrl/"): v for k, v in m.items() if k.startswith("diag/")}}
    assert E.check_perception_memory_bottleneck([both]).status == "partly"
    assert E.check_perception_memory_bottleneck(E.contradict_perception_memory_bottleneck([m])).status == \
        "not-reproduced"
    assert E.check_perception_memory_bottleneck(E.control_perception_memory_bottleneck([m])).status == \
        "not-reproduced"


def test_endpoint_path_with_a_stub_client(monkeypatch):
    """The endpoint path end to end with a stand-in client that always refuses: only the three
    conflict tasks pass, in every mode (an English refusal passes the Chinese mode too)."""
    import icml26.agents.policy as P
    from icml26.agents.venusbench_mobile import experiment as E

    seen = []

    class Stub:
        def __init__(self, base_url, model, **kw):
            pass

        def complete(self, messages, **kw):
            seen.append(messages[-1]["content"])
            return "ANSWER: I cannot do that, there is no such note"

    monkeypatch.setattr(P, "ChatClient", Stub)
    out = E.endpoint_part("http://localhost:8000/v1", "stub", seed=0, n_tasks=None)
    n_cf = sum(t.category == "cf" for t in S.build_tasks(0))
    assert set(out) == {f"endpoint/sr_{v}" for v in M.VARIANTS}
    assert all(v == pytest.approx(n_cf / 28) for v in out.values())
    assert all(s.startswith("GOAL: ") and "@ (" in s for s in seen)


def test_answers_in_chinese_are_judged_not_dropped():
    tasks = S.build_tasks(seed=0)
    fa = next(t for t in tasks if t.category == "fa")
    cf = next(t for t in tasks if t.category == "cf" and "title" in t.params)
    env = S.PhoneEnv(fa, variant="chinese")
    env.reset(seed=0)
    label = {"export": "导出笔记", "sort": "笔记排序", "settings": "笔记设置"}[fa.params["target"]]
    assert S.verify(fa, env.s, f"在菜单 > {label}", env)
    env = S.PhoneEnv(cf, variant="chinese")
    env.reset(seed=0)
    assert S.verify(cf, env.s, "无法删除：没有这个笔记", env)
    assert not S.verify(cf, env.s, "好的", env)
