"""BEAR reproduction: train the base model, score every skill, run BEAR-Agent against its controls, diagnose.

Parts per seed (each depends on the seed alone):

* ``base_model``: the tiny CNN + transformer trained on generated items of every profile skill (cached
  under ``$ICML26_CACHE/bear`` by config and seed); ``train/loss_drop`` = first-30-step loss over
  last-30-step loss;
* ``skills``: ``n_test`` held-out items per skill, each answered four ways with text replies scored by
  BEAR's rules: ``base`` (one call, plain image), ``agent`` (BEAR-Agent: skill-chosen tools, outputs fed
  back on the sketch layer, two model calls), ``tts`` (test-time scaling: the same number of calls on
  augmented views, soft vote), ``shuffled`` (the agent loop with another item's tool outputs); plus the
  tools' standalone score and chance; the gate margin (base - chance, minimum over skills);
* ``long_horizon``: ``n_episodes`` grid episodes per arm (success needs perception and planning at every step);
* ``diagnosis``: the horizontal profile and the vertical diagnosis of the base model's reasoning failures;
* ``endpoint`` (only with ``--set endpoint=... --set model=...``): a served VLM through
  :func:`icml26.agents.bear.method.chat_agent`, with and without tools, ``n_endpoint`` items per skill.

Claim ``agent-gain`` is decided per seed by a paired bootstrap over items of agent minus the better
control (:func:`check_agent_gain`), and needs >= 4 of 5 seeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.core import checks as C
from icml26.core.paper import Metrics, Profile, Verdict

ARMS = ("base", "agent", "tts", "shuffled")


def base_model(p: Profile, seed: int) -> tuple[Any, list[float], list[float]]:
    """(model, perception loss per step, reasoner loss per step), cached by config and seed."""
    from icml26.agents.bear import model as Mo
    from icml26.core.cache import cached

    cfg = Mo.ModelConfig(d=int(p["d"]))
    params = {"skills": list(p["skills"]), "n_pool": p["n_pool"], "steps": p["steps"], "batch": p["batch"],
              "lr": p["lr"], "d": p["d"], "clutter": p["clutter"], "r_steps": p["r_steps"], "seed": seed, "version": 2}

    def build():
        pool = Mo.build_pool(list(p["skills"]), int(p["n_pool"]), seed, float(p["clutter"]))
        net, hist = Mo.train(pool, cfg, steps=int(p["steps"]), batch=int(p["batch"]), lr=float(p["lr"]), seed=seed)
        reasoner, rhist = Mo.train_reasoner(pool, int(p["d"]), steps=int(p["r_steps"]), batch=128, lr=float(p["lr"]),
                                            seed=seed)
        return {"net": net.state_dict(), "reasoner": reasoner.state_dict(), "hist": hist, "rhist": rhist}

    art = cached("bear", "base_model", build, params=params, fmt="pt")
    net, reasoner = Mo.build_model(cfg, seed), Mo.build_reasoner(int(p["d"]), seed)
    net.load_state_dict(art["net"])
    reasoner.load_state_dict(art["reasoner"])
    return Mo.BearModel(net.eval(), reasoner.eval()), list(art["hist"]), list(art["rhist"])


def skills_part(model: Any, p: Profile, seed: int) -> tuple[dict[str, Any], dict[str, list], list[Any], list[float]]:
    from icml26.agents.bear import method as M
    from icml26.agents.bear import setting as S

    out: dict[str, Any] = {}
    items_by_arm: dict[str, list[float]] = {a: [] for a in ARMS}
    all_items, base_scores, margins = [], [], []
    for s in p["skills"]:
        its = S.make_items(s, int(p["n_test"]), seed=np.random.default_rng([seed, S.SKILLS.index(s), 77]),
                           clutter=float(p["clutter"]))
        runs = [M.run_tools(it) for it in its]
        first, final = M.agent_answers(model, its, runs)
        perm = np.roll(np.arange(len(its)), 1)
        _, shuffled = M.agent_answers(model, its, runs, shuffled=[runs[k] for k in perm])
        replies = {"base": first, "agent": final, "tts": M.tts_answers(model, its, int(p["n_tts"]), seed), "shuffled": shuffled}
        for arm, rs in replies.items():
            sc = [M.score_reply(it, r) for it, r in zip(its, rs)]
            out[f"skill/{s}/{arm}"] = float(np.mean(sc))
            items_by_arm[arm] += sc
        out[f"skill/{s}/tool"] = float(np.mean([M.tool_only_answer(it, r) for it, r in zip(its, runs)]))
        out[f"skill/{s}/tool_ok"] = float(np.mean([r.ok for r in runs]))
        out[f"chance/{s}"] = M.chance_score(s, its)
        margins.append(out[f"skill/{s}/base"] - out[f"chance/{s}"])
        all_items += its
        base_scores += [M.score_reply(it, r) for it, r in zip(its, first)]
    out["gate/min_margin"] = float(min(margins))
    out["gate/margins"] = [float(m) for m in margins]
    return out, items_by_arm, all_items, base_scores


def long_horizon_part(model: Any, p: Profile, seed: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    from icml26.agents.bear import method as M

    per = {arm: M.run_episodes(model, int(p["n_episodes"]), seed, arm, clutter=float(p["clutter"]),
                               n_calls=int(p["n_tts"])) for arm in ARMS}
    return {f"skill/long_horizon/{a}": float(np.mean(v)) for a, v in per.items()}, per


def diagnosis_part(model: Any, items: list[Any], base_scores: list[float], out: dict[str, Any],
                   skills: list[str]) -> dict[str, Any]:
    from icml26.agents.bear import method as M

    res = {f"diag/{k}": v for k, v in M.vertical_diagnosis(model, items, base_scores).items()}
    prof = M.horizontal_profile({s: [out[f"skill/{s}/base"]] for s in skills})
    res |= {f"profile/{k}": v for k, v in prof.items()}
    res["profile/max_skill_base"] = float(max(out[f"skill/{s}/base"] for s in skills))
    # the model's own percepts: located within 3 px (present entities) on the reasoning items
    hits = []
    reas = [it for it in items if it.skill in M.DIAGNOSABLE]
    for it, per in zip(reas, M.model_percepts(model, reas)):
        for name, seq in it.state.items():
            for t, gt in enumerate(seq):
                if gt is not None and name in per:
                    pr = per[name][t]
                    hits.append(pr is not None and np.hypot(pr[0] - gt[0], pr[1] - gt[1]) <= 3.0)
    res["diag/percept_acc"] = float(np.mean(hits)) if hits else float("nan")
    return res


def endpoint_part(endpoint: str, model_name: str, skills: list[str], n: int, seed: int, clutter: float) -> dict[str, float]:
    """A served VLM with and without BEAR-Agent tools (reported; no verdict rests on it)."""
    from icml26.agents.bear import method as M
    from icml26.agents.bear import setting as S
    from icml26.agents.policy import ChatClient

    client = ChatClient(base_url=endpoint, model=model_name)
    out = {}
    for s in skills:
        its = S.make_items(s, n, seed=np.random.default_rng([seed, S.SKILLS.index(s), 99]), clutter=clutter)
        for tools in (False, True):
            sc = [M.score_reply(it, M.chat_agent(client, it, tools=tools)[0]) for it in its]
            out[f"endpoint/{s}/{'agent' if tools else 'base'}"] = float(np.mean(sc))
    for arm in ("base", "agent"):
        out[f"endpoint/mean/{arm}"] = float(np.mean([v for k, v in out.items() if k.endswith("/" + arm)]))
    return out


def run(p: Profile, seed: int) -> Metrics:
    import torch

    torch.set_num_threads(1)
    model, hist, rhist = base_model(p, seed)
    out: dict[str, Any] = {"train/loss_drop": float(np.mean(hist[:30]) / max(np.mean(hist[-30:]), 1e-9)),
                           "train/loss_first": float(np.mean(hist[:30])), "train/loss_last": float(np.mean(hist[-30:])),
                           "train/reasoner_loss_last": float(np.mean(rhist[-30:])) if rhist else float("nan")}
    sk, items_by_arm, items, base_scores = skills_part(model, p, seed)
    out |= sk
    lh, lh_items = long_horizon_part(model, p, seed)
    out |= lh
    for arm in ARMS:
        out[f"items/{arm}"] = items_by_arm[arm] + lh_items[arm]
        out[f"mean/{arm}"] = float(np.mean([out[f"skill/{s}/{arm}"] for s in [*p["skills"], "long_horizon"]]))
        out[f"mean/{arm}_atomic"] = float(np.mean([out[f"skill/{s}/{arm}"] for s in p["skills"]]))
    out["mean/tool"] = float(np.mean([out[f"skill/{s}/tool"] for s in p["skills"]]))
    out["gain/abs"] = out["mean/agent"] - out["mean/base"]
    out["gain/rel"] = out["gain/abs"] / max(out["mean/base"], 1e-9)
    out |= diagnosis_part(model, items, base_scores, out, list(p["skills"]))
    if p.get("endpoint") and p.get("model"):
        out |= endpoint_part(p["endpoint"], p["model"], list(p["skills"]), int(p["n_endpoint"]), seed, float(p["clutter"]))
    return out


# ----------------------------------------------------------------------------- claim agent-gain
def _best_control(m: Metrics) -> str:
    return "tts" if m["mean/tts"] >= m["mean/shuffled"] else "shuffled"


def _seed_ci(a: np.ndarray, b: np.ndarray, n_boot: int = 2000) -> tuple[float, float, float]:
    d = np.asarray(a, float) - np.asarray(b, float)
    rng = np.random.default_rng(0)
    boot = d[rng.integers(0, d.size, size=(n_boot, d.size))].mean(1)
    return float(d.mean()), float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))


def check_agent_gain(ms: list[Metrics]) -> Verdict:
    """Per seed: paired bootstrap (2000 resamples of items, 95% percentile interval) of agent minus the
    better control (higher mean of test-time scaling and shuffled tool outputs); a seed passes when the
    interval lies above 0. Reproduced if >= 4/5 of the seeds pass (>= 80%), partly if >= half, else not;
    fewer than 5 seeds: not-checkable. Gated on the training gate."""
    rows, ok = [], []
    for m in ms:
        c = _best_control(m)
        mean, lo, hi = _seed_ci(m["items/agent"], m[f"items/{c}"])
        ok.append(lo > 0)
        rows.append(f"{c} {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    n, k = len(ms), int(np.sum(ok))
    frac = k / max(n, 1)
    status = "reproduced" if frac >= 0.8 else ("partly" if frac >= 0.5 else "not-reproduced")
    agent = float(np.mean([m["mean/agent"] for m in ms]))
    base = float(np.mean([m["mean/base"] for m in ms]))
    tts = float(np.mean([m["mean/tts"] for m in ms]))
    shuf = float(np.mean([m["mean/shuffled"] for m in ms]))
    gain = float(np.mean([m["gain/abs"] for m in ms]))
    rel = float(np.mean([m["gain/rel"] for m in ms]))
    evidence = (f"rule: per seed, 95% paired-bootstrap CI of (agent - better control) over items above 0, in >= 80% "
                f"of >= 5 seeds; passes in {k}/{n} seeds; per seed: " + "; ".join(rows)
                + f". Agent over base: {gain:+.3f} absolute ({100 * rel:+.1f}% relative); paper (GPT-5): +0.0912, +17.5%")
    if n < 5:
        evidence = f"too few seeds: the rule needs >= 5 seeds, have {n}; " + evidence
        status = "not-checkable"
    v = Verdict(status, f"agent {agent:.3f} vs base {base:.3f}, test-time scaling {tts:.3f}, shuffled tools {shuf:.3f}",
                evidence, value=gain, control=f"test-time scaling {tts:.3f}; shuffled tool outputs {shuf:.3f}")
    return C.apply_gates(v, ms, [_gate()])


def _gate():
    from icml26.agents.bear import _GATE

    return _GATE


def contradict_agent_gain(ms: list[Metrics]) -> list[Metrics]:
    import copy

    out = copy.deepcopy(list(ms))
    for m in out:
        c = _best_control(m)
        m["items/agent"], m[f"items/{c}"] = m[f"items/{c}"], m["items/agent"]
        m["mean/agent"], m[f"mean/{c}"] = m[f"mean/{c}"], m["mean/agent"]
    return out


def control_agent_gain(ms: list[Metrics]) -> list[Metrics]:
    import copy

    out = copy.deepcopy(list(ms))
    for m in out:
        c = _best_control(m)
        m["items/agent"], m["mean/agent"] = list(m[f"items/{c}"]), m[f"mean/{c}"]
    return out


# ----------------------------------------------------------------------------- figure and examples
def figure(metrics: list[Metrics]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    skills = sorted({k.split("/")[1] for m in metrics for k in m if k.startswith("skill/") and k.endswith("/base")},
                    key=lambda s: (s == "long_horizon", s))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(15, 4.5), gridspec_kw={"width_ratios": [4, 1]})
    x = np.arange(len(skills))
    for j, arm in enumerate((*ARMS, "tool")):
        vals = [np.mean([m.get(f"skill/{s}/{arm}", np.nan) for m in metrics]) for s in skills]
        ax.bar(x + (j - 2) * 0.16, vals, 0.16, label=arm)
    ch = [np.mean([m.get(f"chance/{s}", np.nan) for m in metrics]) for s in skills]
    ax.scatter(x, ch, marker="_", s=200, color="k", label="chance")
    ax.set_xticks(x, skills, rotation=60, ha="right", fontsize=7)
    ax.set_xlabel("skill")
    ax.set_ylabel("score (hit rate / mean IoU / accuracy)")
    ax.set_title("BEAR skills: base model, BEAR-Agent, controls, tools alone")
    ax.legend(fontsize=7, ncol=3)
    keys = ["diag/gt_fix", "diag/reasoner_fix", "diag/both_fix"]
    ax2.bar(range(3), [np.mean([m.get(k, np.nan) for m in metrics]) for k in keys])
    ax2.set_xticks(range(3), ["GT percepts", "perfect reasoner", "both"], rotation=30)
    ax2.set_xlabel("substitution")
    ax2.set_ylabel("share of reasoning failures fixed")
    ax2.set_title("vertical diagnosis")
    fig.tight_layout()
    return fig


def EXAMPLES():
    from icml26.agents.bear import method as M
    from icml26.agents.bear import setting as S

    img = S.make_item("traj_gripper", 0).frames[-1].astype(float)
    mask = np.zeros((8, 8), bool)
    mask[2:5, 2:5] = True
    return [
        (M.point_in_mask, {"point": np.array([0.4, 0.4]), "mask": mask}),
        (M.box_iou, {"box": np.array([0.25, 0.25, 0.4, 0.4]), "mask": mask}),
        (M.detect, {"image": img, "color": "red", "min_area": 3}),
        (M.extend_arrow, {"image": img, "color": "red", "origin": np.array([16.0, 16.0]), "radius": 13.0}),
        (M.crop_and_zoom, {"image": img, "box": np.array([0.2, 0.2, 0.4, 0.4]), "factor": 4, "padding": 0.05}),
        (M.find_part, {"image": img, "box": np.array([0.2, 0.2, 0.4, 0.4]), "factor": 4}),
        (S.make_items, {"skill": "point_object", "n": 2, "seed": 0, "clutter": 0.5}),
        (M.parse_choice, {"text": "ANSWER: (B)", "n_options": 4}),
    ]
