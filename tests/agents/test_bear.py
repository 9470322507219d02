"""Known answers for the BEAR reproduction: scoring rules, letter parsing, tools, item geometry, diagnosis."""

import numpy as np
import pytest

from icml26.agents.bear import method as M
from icml26.agents.bear import setting as S


# ----------------------------------------------------------------------------- scoring
def test_point_in_mask_known_cases():
    mask = np.zeros((10, 10), bool)
    mask[2:4, 5:8] = True                       # rows 2-3, columns 5-7
    assert M.point_in_mask([0.55, 0.25], mask) == 1.0
    assert M.point_in_mask([0.45, 0.25], mask) == 0.0
    assert M.point_in_mask([0.79, 0.39], mask) == 1.0
    assert M.point_in_mask([0.80, 0.39], mask) == 0.0  # x = 8 is outside
    assert M.point_in_mask([1.5, 0.2], mask) == 0.0


def test_box_iou_closed_forms():
    mask = np.zeros((10, 10), bool)
    mask[0:5, 0:5] = True                        # box [0, 0, 0.5, 0.5]
    assert M.box_iou([0, 0, 0.5, 0.5], mask) == pytest.approx(1.0)
    assert M.box_iou([0.25, 0, 0.5, 0.5], mask) == pytest.approx(12.5 / 37.5)
    assert M.box_iou([0.6, 0.6, 0.2, 0.2], mask) == 0.0
    assert M.box_iou([0, 0, 1.0, 1.0], mask) == pytest.approx(0.25)


@pytest.mark.parametrize("text,want", [("THOUGHT ... ANSWER: (B) TERMINATE", 1), ("ANSWER: C", 2),
                                       ("the answer is (A)", 0), ("ANSWER: (E) or maybe", None),
                                       ("ANSWER: I am not sure", None), ("ANSWER: D.", 3)])
def test_parse_choice_exact(text, want):
    assert M.parse_choice(text) == want


def test_parse_point_and_box():
    assert M.parse_point("ANSWER: (0.41, 0.62) TERMINATE") == pytest.approx((0.41, 0.62))
    assert M.parse_box("x ANSWER: [0.1, 0.2, 0.3, 0.4]") == pytest.approx([0.1, 0.2, 0.3, 0.4])
    assert M.parse_point("ANSWER: left") is None


def test_score_reply_uses_the_skill_rule():
    it = S.make_item("box_object", 3, clutter=0.0)
    b = M.mask_box(it.mask) / S.SIZE
    exact = f"ANSWER: [{b[0]}, {b[1]}, {b[2] - b[0]}, {b[3] - b[1]}]"
    assert M.score_reply(it, exact) == pytest.approx(1.0)
    mc = S.make_item("spatial_path", 1)
    assert M.score_reply(mc, f"ANSWER: ({S.LETTERS[mc.answer]})") == 1.0
    assert M.score_reply(mc, f"ANSWER: ({S.LETTERS[(mc.answer + 1) % 4]})") == 0.0
    assert M.chance_score("spatial_path", [mc]) == 0.25


def test_horizontal_profile_means():
    prof = M.horizontal_profile({"point_object": [1, 0], "point_part": [1, 1], "spatial_path": [0, 0]})
    assert prof["skill/point_object"] == 0.5
    assert prof["category/pointing"] == 0.75
    assert prof["category/spatial"] == 0.0
    assert prof["mean"] == pytest.approx(0.5)


# ----------------------------------------------------------------------------- items
@pytest.mark.parametrize("skill", S.SKILLS)
def test_every_skill_renders_with_ground_truth(skill):
    its = S.make_items(skill, 4, seed=5)
    for it in its:
        assert it.frames.shape == (S.N_FRAMES[skill], S.SIZE, S.SIZE, 3) and it.frames.dtype == np.uint8
        if it.kind == "mc":
            assert it.answer in range(4)
        else:
            assert it.mask.shape == (S.SIZE, S.SIZE) and it.mask.any()


def test_trajectory_answer_is_the_arrow_that_reaches_the_target():
    for seed in range(10):
        it = S.make_item("traj_gripper", seed)
        o, tgt = np.array(it.state["origin"][0]), np.array(it.state["target"][0])
        dists = []
        for j in range(4):
            u = np.array(it.state[f"arrow{j}"][0]) - o
            dists.append(S._ray_dist(o, u / np.linalg.norm(u), tgt))
        assert int(np.argmin(dists)) == it.answer and dists[it.answer] < 1e-6


def test_position_reasoner_brute_force():
    q = np.zeros(5, int)
    assert S.answer_from_state("spatial_direction", {"A": [(10, 10)], "B": [(3, 11)]}, {}, q) == 0
    assert S.answer_from_state("spatial_direction", {"A": [(10, 10)], "B": [(11, 20)]}, {}, q) == 3
    assert S.answer_from_state("spatial_path", {"agent": [(2, 2)], "goal": [(30, 6)]}, {}, q) == 3
    assert S.answer_from_state("spatial_localization", {"target": [None, None, (4, 4), None]}, {}, q) == 2
    st = {"bin": [(10, 10)], "obj0": [(12, 9)], "obj1": [(25, 25)], "obj2": [(8, 16)]}
    assert S.answer_from_state("plan_progress", st, {}, q) == 2
    st = {"bin": [(10, 10)], "object": [(11, 11)], "gripper": [(11, 12)]}
    assert S.answer_from_state("plan_next", st, {}, q) == 2   # over the bin, held: release


def test_long_horizon_env_follows_the_reasoner():
    env = S.GridEpisodeEnv(slack=0, clutter=0.0)
    obs, info = env.reset(seed=3)
    done = False
    while not done:
        a = S.answer_from_state("spatial_path", {"agent": [tuple(env.agent)], "goal": [tuple(env.goal)]}, {}, None)
        obs, r, term, trunc, _ = env.step(a)
        done = term or trunc
    assert r == 1.0 or any((env.agent + d == o).all() for o in env.others for d in [(0, 1), (1, 0), (0, -1), (-1, 0)])


# ----------------------------------------------------------------------------- tools
def test_detect_finds_a_clean_object_exactly():
    it = S.make_item("box_object", 11, clutter=0.0)
    c, s = M._name(tuple(it.query[1:3]))
    d = M.detect(it.frames[-1], c, s)
    assert d, "the object is not detected on a clean scene"
    assert M.box_iou(d[0].box, it.mask) > 0.9


def test_tools_degrade_under_clutter():
    def rate(clutter):
        its = S.make_items("point_object", 60, seed=2, clutter=clutter)
        return np.mean([M.tool_only_answer(it, M.run_tools(it)) for it in its])
    clean, messy = rate(0.0), rate(1.0)
    assert clean >= 0.9 and messy < clean


def test_extend_arrow_recovers_direction():
    img = np.zeros((32, 32, 3)) + np.array(S.BACKGROUND)
    o, u = np.array([8.0, 20.0]), np.array([np.cos(-0.6), np.sin(-0.6)])
    for t in np.arange(3, 10, 0.5):
        x, y = np.round(o + t * u).astype(int)
        img[y, x] = S.COLORS["red"]
    start, v = M.extend_arrow(img, "red", o)
    assert np.allclose(start, o) and v @ u > 0.99


def test_crop_and_zoom_maps_pixels():
    img = np.zeros((32, 32, 3), np.uint8)
    img[10, 12] = 255
    zoom, (x0, y0) = M.crop_and_zoom(img, [0.25, 0.25, 0.25, 0.25], factor=4, padding=0.0)
    assert (x0, y0) == (8, 8) and zoom.shape == (32, 32, 3)
    assert zoom[(10 - y0) * 4, (12 - x0) * 4].max() == 255


@pytest.mark.parametrize("skill", S.DIAGNOSABLE)
def test_exact_reasoner_on_ground_truth_and_on_clean_tool_percepts(skill):
    its = S.make_items(skill, 20, seed=4, clutter=0.0)
    assert all(S.answer_from_state(skill, it.state, it.entities, it.query) == it.answer for it in its)
    tool = np.mean([M.tool_only_answer(it, M.run_tools(it)) for it in its])
    assert tool >= 0.4, f"tools alone score {tool} on clean {skill} items"


def test_merge_percepts_prefers_tools_where_found():
    own = {"A": [(1.0, 1.0), (2.0, 2.0)]}
    tool = {"A": [None, (5.0, 5.0)]}
    assert M.merge_percepts(tool, own) == {"A": [(1.0, 1.0), (5.0, 5.0)]}
    assert M.merge_percepts(None, own) == own


# ----------------------------------------------------------------------------- model and agent
def test_model_shapes_and_text_replies_parse():
    torch = pytest.importorskip("torch")
    from icml26.agents.bear import model as Mo

    net = Mo.build_model(Mo.ModelConfig(d=16), 0)
    for skill in ("point_object", "box_part", "spatial_localization"):
        its = S.make_items(skill, 3, seed=1)
        fr = np.stack([i.frames for i in its])
        out = Mo.predict(net, fr, np.zeros_like(fr), np.stack([i.query for i in its]))
        assert out["heat"].shape == (3, 64) and out["box"].shape == (3, 64, 4) and out["mc"].shape == (3, 4)
        text, val = Mo.decode(out, 0, its[0].kind)
        parsed = {"point": M.parse_point, "box": M.parse_box, "mc": M.parse_choice}[its[0].kind](text)
        assert np.allclose(parsed, val, atol=1e-3)
    assert torch is not None
    reasoner = Mo.build_reasoner(16, 0)
    its = S.make_items("plan_next", 3, seed=2)
    logits = Mo.reasoner_logits(reasoner, its, [it.state for it in its])
    assert logits.shape == (3, 4)
    feats, roles, frames = Mo.percept_tokens("plan_next", its[0].state, list(its[0].entities))
    assert feats.shape == (Mo.MAX_TOK, 3) and feats[:6, 2].all() and not feats[6:, 2].any()


def test_mask_target_cell_and_box():
    from icml26.agents.bear import model as Mo

    mask = np.zeros((32, 32), bool)
    mask[4:8, 8:12] = True
    cell, box = Mo.mask_target(mask)
    assert cell == 1 * 8 + 2
    assert np.allclose(box, [0.0, 0.0, 4 / 32, 4 / 32])


def test_agent_gain_check_decides_and_rejects_control():
    from icml26.agents.bear import experiment as E

    rng = np.random.default_rng(0)
    ms = []
    for _ in range(5):
        base = (rng.random(200) < 0.5).astype(float)
        agent = np.maximum(base, (rng.random(200) < 0.4).astype(float))
        ms.append({"items/agent": agent.tolist(), "items/tts": base.tolist(), "items/shuffled": (base * 0).tolist(),
                   "mean/agent": agent.mean(), "mean/tts": base.mean(), "mean/shuffled": 0.0, "mean/base": base.mean(),
                   "gain/abs": agent.mean() - base.mean(), "gain/rel": 0.1, "gate/min_margin": 0.3})
    assert E.check_agent_gain(ms).status == "reproduced"
    assert E.check_agent_gain(E.control_agent_gain(ms)).status == "not-reproduced"
    assert E.check_agent_gain(E.contradict_agent_gain(ms)).status == "not-reproduced"
    failed_gate = [{**m, "gate/min_margin": 0.1} for m in ms]
    assert E.check_agent_gain(failed_gate).status == "not-checkable"


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="skill"):
        S.make_item("juggling")
    with pytest.raises(ValueError, match="clutter"):
        S.make_item("point_object", 0, clutter=2.0)
    with pytest.raises(ValueError, match="mask"):
        M.box_iou([0, 0, 0.1, 0.1], np.zeros((4, 4), bool))
    with pytest.raises(ValueError, match="color"):
        M.detect(np.zeros((8, 8, 3)), "ultraviolet")


class _ScriptedVLM:
    """A stand-in for ChatClient: replies from a script, records what it was sent."""

    def __init__(self, replies):
        self.replies, self.seen = list(replies), []

    def complete(self, messages, **kw):
        self.seen.append(list(messages))
        return self.replies.pop(0) if self.replies else '{"tool": "segment_and_mark", "arguments": {}}'


def test_chat_agent_feeds_tool_outputs_back_and_caps_replies():
    it = S.make_item("point_object", 8, clutter=0.0)
    c, s = M._name(tuple(it.query[1:3]))
    d = M.detect(it.frames[-1], c, s)[0]
    cx, cy = d.box[0] + d.box[2] / 2, d.box[1] + d.box[3] / 2
    vlm = _ScriptedVLM([f'THOUGHT 0: detect it. {{"tool": "detection", "arguments": {{"color": "{c}", "shape": "{s}"}}}}',
                        f"ANSWER: ({cx:.3f}, {cy:.3f}) TERMINATE"])
    reply, used = M.chat_agent(vlm, it)
    assert used == 2 and M.score_reply(it, reply) == 1.0
    obs = vlm.seen[1][-1]["content"]
    assert obs[0]["text"].startswith("OBSERVATION: detection: 1 boxes") and obs[1]["type"] == "image_url"
    looping = _ScriptedVLM([])
    _, used = M.chat_agent(looping, it, max_replies=10)
    assert used == 10 and len(looping.seen) == 10
    base = _ScriptedVLM(["ANSWER: (0.5, 0.5)"])
    assert M.chat_agent(base, it, tools=False)[1] == 1


# ----------------------------------------------------------------------------- review: diagnosis and control fairness
def test_vertical_diagnosis_known_answers(monkeypatch):
    """Diagnosis sensitivity (the card's plan): with a perfect reasoning half every failure is fixed by
    ground-truth perception (gt_fix = 1); with perfect percepts every failure is fixed by the exact
    reasoner (reasoner_fix = 1); non-reasoning items are never diagnosed; no failures give NaN shares."""
    from icml26.agents.bear import model as Mo

    its = [it for s in ("traj_gripper", "spatial_direction", "spatial_path") for it in S.make_items(s, 4, seed=3)]
    its.append(S.make_item("point_object", 0))          # a perception item: never part of the diagnosis
    answers = np.array([it.answer for it in its if it.kind == "mc"])
    wrong = np.eye(4)[(answers + 1) % 4]
    right = np.eye(4)[answers]

    def logits_for(table):
        pos = {id(it): k for k, it in enumerate(its)}
        return lambda reasoner, items, percepts: table[[pos[id(i)] for i in items]]

    stub = Mo.BearModel(net=None, reasoner=None)
    monkeypatch.setattr(M, "model_percepts", lambda model, items, **kw: [dict(it.state) for it in items])
    monkeypatch.setattr(Mo, "reasoner_logits", logits_for(right))
    d = M.vertical_diagnosis(stub, its, [0.0] * len(its))
    assert d["n_fail"] == len(answers)                   # the point item is excluded
    assert d["gt_fix"] == 1.0 and d["reasoner_fix"] == 1.0 and d["both_fix"] == 1.0
    monkeypatch.setattr(Mo, "reasoner_logits", logits_for(wrong))
    d = M.vertical_diagnosis(stub, its, [0.0] * len(its))
    assert d["gt_fix"] == 0.0 and d["reasoner_fix"] == 1.0 and d["both_fix"] == 0.0
    monkeypatch.setattr(M, "model_percepts", lambda model, items, **kw: [{n: [None] * len(v) for n, v in it.state.items()}
                                                                         for it in items])
    monkeypatch.setattr(Mo, "reasoner_logits", logits_for(right))
    d = M.vertical_diagnosis(stub, its, [0.0] * len(its))
    assert d["gt_fix"] == 1.0 and d["reasoner_fix"] < 1.0
    assert np.isnan(M.vertical_diagnosis(stub, its, [1.0] * len(its))["gt_fix"])


def test_test_time_scaling_gets_as_many_model_calls_as_the_agent(monkeypatch):
    """The agent-gain control is fair in compute: BEAR-Agent makes two model calls per item (one before
    and one after the tools); test-time scaling with n_tts = 2 makes two as well (reasoning skills: two
    reasoner calls, and at least as many perception calls as the agent)."""
    pytest.importorskip("torch")
    from icml26.agents.bear import model as Mo

    model = Mo.BearModel(Mo.build_model(Mo.ModelConfig(d=16), 0).eval(), Mo.build_reasoner(16, 0).eval())
    calls = {"net": 0, "reasoner": 0}
    predict, reasoner_logits = Mo.predict, Mo.reasoner_logits

    def count_predict(*a, **k):
        calls["net"] += 1
        return predict(*a, **k)

    def count_reasoner(*a, **k):
        calls["reasoner"] += 1
        return reasoner_logits(*a, **k)

    monkeypatch.setattr(Mo, "predict", count_predict)
    monkeypatch.setattr(Mo, "reasoner_logits", count_reasoner)
    for skill in ("box_object", "spatial_direction"):
        its = S.make_items(skill, 5, seed=7)
        runs = [M.run_tools(it) for it in its]
        calls.update(net=0, reasoner=0)
        M.agent_answers(model, its, runs)
        agent = dict(calls)
        calls.update(net=0, reasoner=0)
        M.tts_answers(model, its, 2, seed=0)
        tts = dict(calls)
        if S.KIND[skill] == "mc":
            assert agent["reasoner"] == tts["reasoner"] == 2 and tts["net"] >= agent["net"]
        else:
            assert agent["net"] == tts["net"] == 2
