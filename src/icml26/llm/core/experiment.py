"""Small-scale reproduction of CoRe: two tiny policies trained together with peer hints vs trained alone.

``run`` composes named parts:

* ``_pair``: the seed's two base models (P, Q) and held-out problems; the starting team;
* ``_train_arms``: CoRe, the wrong-hint control and independent GRPO from the same start on the
  same question stream and the same number of steps and samples per model;
* ``_evaluate``: cold evaluation with k = 2 samples per model (the reference evaluator's
  protocol): oracle Team Pass@2, per-model pass@1, P(both wrong), majority vote; a per-item
  paired bootstrap of CoRe minus each control within the seed.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import sign_test
from icml26.llm.core.method import CharNgramEncoder, MiniLMEncoder, team_metrics
from icml26.llm.core.protocol import ARMS, TeamConfig, evaluate_team, train_team
from icml26.llm.core.setting import LEVELS, pretrain_pair, problems


def _pair(profile: Profile, seed: int):
    models = pretrain_pair(seed, int(profile["steps_p"]), int(profile["steps_q"]))
    test = problems(int(profile["n_test"]), levels=LEVELS, seed=40_000 + seed)
    pool = problems(4000, levels=LEVELS, seed=41_000 + seed)
    return models, test, pool


def _evaluate(models: dict, test: list, seed: int, cfg: TeamConfig) -> tuple[dict, np.ndarray]:
    correct, answers = evaluate_team(models, test, k=2, seed=7_000 + seed, cfg=cfg)
    met = team_metrics(correct, answers, [p.answer for p in test])
    team_items = np.zeros(len(test), dtype=bool)
    for c in correct.values():
        team_items |= c.any(1)
    return met, team_items.astype(float)


def _bootstrap(d: np.ndarray, seed: int, n: int = 2000) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    boots = d[rng.integers(0, d.size, size=(n, d.size))].mean(1)
    return float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))


def run(profile: Profile, seed: int) -> dict:
    seed_everything(seed)
    models, test, pool = _pair(profile, seed)
    cfg = TeamConfig(batch=int(profile["batch"]), lr=float(profile["lr"]))
    encoder = MiniLMEncoder() if profile["encoder"] == "minilm" else CharNgramEncoder()
    out: dict = {}
    base, _ = _evaluate(models, test, seed, cfg)
    for k, v in base.items():
        out[f"base/{k}"] = v
    items = {}
    for arm in ARMS:
        trained, stats = train_team(models, pool, arm=arm, steps=int(profile["steps"]), seed=seed, encoder=encoder,
                                    cfg=cfg)
        met, items[arm] = _evaluate(trained, test, seed, cfg)
        for k, v in met.items():
            out[f"{arm}/{k}"] = v
        for m in models:
            out[f"{arm}/{m}/gain"] = met[f"{m}/pass1"] - base[f"{m}/pass1"]
        out[f"{arm}/oracle_minus_majority"] = met["team_pass"] - met["majority"]
        out[f"{arm}/train_reward"] = stats["reward"]
        if arm != "independent":
            out[f"{arm}/rescue_rate"] = stats["rescues"] / max(1, stats["hinted"])
            out[f"{arm}/rescues"] = stats["rescues"]
            out[f"{arm}/hinted"] = stats["hinted"]
            out[f"{arm}/explore_all_zero_frac"] = stats["explore_zero"] / max(1, stats["questions"])
    for ctl in ("independent", "wrong_hint"):
        lo, hi = _bootstrap(items["core"] - items[ctl], seed)
        out[f"boot/core_vs_{ctl}/lo"], out[f"boot/core_vs_{ctl}/hi"] = lo, hi
    return out


# ----------------------------------------------------------------------------- hand-written checks
def _gates(ms) -> str | None:
    from icml26.core import checks as C

    gates = (C.gate("independent/P/gain", at_least=1e-9, frac=0.8, why="model P's pass@1 rises under the independent control"),
             C.gate("independent/Q/gain", at_least=1e-9, frac=0.8, why="model Q's pass@1 rises under the independent control"),
             C.gate("base/team_pass", at_most=0.8, frac=1.0, why="starting team Pass@2 <= 0.8 (room to improve)"))
    for g in gates:
        ok, text = g.evaluate(ms)
        if not ok:
            return text
    return None


def _count_rule(ms, ok: np.ndarray, measured: str, control: str, evidence: str, value: float) -> Verdict:
    n, k = len(ms), int(ok.sum())
    gate = _gates(ms)
    if gate is not None:
        return Verdict("not-checkable", measured, f"training gate failed: {gate}; {evidence}", control=control)
    if n < 5:
        return Verdict("not-checkable", measured, f"too few seeds ({n} < 5) for the 4-of-5 rule; {evidence}",
                       control=control)
    status = "reproduced" if k / n >= 0.8 else "partly" if k / n >= 0.6 else "not-reproduced"
    return Verdict(status, measured, evidence, value=value, control=control)


def check_team_pass(ms) -> Verdict:
    ms = list(ms)
    n = len(ms)
    core = np.array([m["core/team_pass"] for m in ms])
    ind = np.array([m["independent/team_pass"] for m in ms])
    wh = np.array([m["wrong_hint/team_pass"] for m in ms])
    ok = (core > ind) & (core > wh)
    boots = "; ".join(f"vs ind [{m['boot/core_vs_independent/lo']:+.3f}, {m['boot/core_vs_independent/hi']:+.3f}], "
                      f"vs wrong-hint [{m['boot/core_vs_wrong_hint/lo']:+.3f}, {m['boot/core_vs_wrong_hint/hi']:+.3f}]"
                      for m in ms)
    measured = f"CoRe Team Pass@2 {core.mean():.3f} (start {np.mean([m['base/team_pass'] for m in ms]):.3f}); above both controls in {int(ok.sum())}/{n} seeds"
    control = f"independent GRPO {ind.mean():.3f}; wrong-question hints {wh.mean():.3f}"
    evidence = (f"rule: paired per seed, CoRe above independent GRPO and above the wrong-hint control; reproduced in "
                f">= 80% of >= 5 seeds, partly >= 60%; sign test vs independent {int((core > ind).sum())}/{n} "
                f"p = {sign_test(core - ind, alternative='greater'):.3g}, vs wrong-hint {int((core > wh).sum())}/{n} "
                f"p = {sign_test(core - wh, alternative='greater'):.3g} (ties dropped; smallest attainable {0.5 ** n:.3g}); per-seed "
                f"item bootstrap 95% CIs: {boots}; mechanism activity (context, not part of the rule): "
                f"{int(sum(m.get('core/rescues', 0) for m in ms))} rescues in "
                f"{int(sum(m.get('core/hinted', 0) for m in ms))} hinted CoRe retries over all seeds, so CoRe's peer "
                f"hints barely reached training and the comparison tests the protocol with an almost idle hint channel")
    return _count_rule(ms, ok, measured, control, evidence, float(core.mean()))


def contradict_team_pass(ms):
    out = [dict(m) for m in ms]
    for m in out:
        m["core/team_pass"] = min(m["independent/team_pass"], m["wrong_hint/team_pass"]) - 0.05
    return out


def control_team_pass(ms):
    out = [dict(m) for m in ms]
    for m in out:
        m["core/team_pass"] = m["independent/team_pass"]
    return out


def check_decorrelates(ms) -> Verdict:
    ms = list(ms)
    n = len(ms)
    core = np.array([m["core/both_wrong"] for m in ms])
    ind = np.array([m["independent/both_wrong"] for m in ms])
    rescue = np.array([m["core/rescue_rate"] for m in ms])
    ok = core < ind
    hinted = int(sum(m.get("core/hinted", 0) for m in ms))
    rescues = int(sum(m["core/rescues"] for m in ms))
    wh = (f"; wrong-question hints rescued {int(sum(m.get('wrong_hint/rescues', 0) for m in ms))} in "
          f"{int(sum(m.get('wrong_hint/hinted', 0) for m in ms))}") if "wrong_hint/hinted" in ms[0] else ""
    measured = (f"P(both wrong) CoRe {core.mean():.3f}, below the control in {int(ok.sum())}/{n} seeds; rescue rate "
                f"{rescue.mean():.3f} of hinted retries ({rescues} rescues in {hinted} hinted retries over all seeds, "
                f"rescues in {int((rescue > 0).sum())}/{n} seeds{wh}); literal DPP-lite term all zero on "
                f"{np.mean([m['core/explore_all_zero_frac'] for m in ms]):.0%} of questions")
    control = f"independent GRPO P(both wrong) {ind.mean():.3f}"
    evidence = (f"rule: per seed, P(both first samples wrong) under CoRe below independent GRPO's; reproduced in "
                f">= 80% of >= 5 seeds, partly >= 60%; premise: the hint channel is active (rescue rate > 0 in >= 80% "
                f"of seeds), else not-checkable; rule revised after the full run by review: the pre-registered "
                f"'rescue rate > 0' (the card's 'mechanism active') was a per-seed conjunct and is now this premise "
                f"gate (hints exist only on two-step problems, where both members are weak, and the members never "
                f"saw a hinted prompt in pretraining); under the former rule this run read not-reproduced; sign test "
                f"{int((core < ind).sum())}/{n} p = {sign_test(core - ind, alternative='less'):.3g} (ties dropped)")
    gate = _gates(ms)
    if gate is None and n >= 5 and (rescue > 0).mean() < 0.8 - 5e-7:
        return Verdict("not-checkable", measured,
                       f"premise failed: hinted retries rescued a failure in only {int((rescue > 0).sum())}/{n} seeds "
                       f"(the mechanism CoRe relies on is inactive at this scale); {evidence}", control=control)
    return _count_rule(ms, ok, measured, control, evidence, float(core.mean()))


def contradict_decorrelates(ms):
    out = [dict(m) for m in ms]
    for m in out:
        m["core/both_wrong"] = m["independent/both_wrong"] + 0.05
    return out


def control_decorrelates(ms):
    out = [dict(m) for m in ms]
    for m in out:
        m["core/both_wrong"] = m["independent/both_wrong"]
    return out


# ----------------------------------------------------------------------------- figure and examples
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 3.2))
    ax1, ax2 = fig.subplots(1, 2)
    names = ["base", *ARMS]
    ax1.boxplot([[m[f"{a}/team_pass"] for m in metrics] for a in names])
    ax1.set_xticks(range(1, len(names) + 1), names, rotation=30, fontsize=8)
    ax1.set_xlabel("training arm")
    ax1.set_ylabel("oracle Team Pass@2 (k = 2 per model)")
    ax2.boxplot([[m[f"{a}/both_wrong"] for m in metrics] for a in names])
    ax2.set_xticks(range(1, len(names) + 1), names, rotation=30, fontsize=8)
    ax2.set_xlabel("training arm")
    ax2.set_ylabel("P(both models wrong)")
    fig.suptitle(f"core: {len(metrics)} seeds", fontsize=9)
    fig.tight_layout()
    return fig


def EXAMPLES():
    from icml26.llm.core.method import dpp_lite, hybrid_distances, strip_answer

    emb = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    d = hybrid_distances(["1+2=3", "4*5=20", "1-1=0"], emb)
    return [
        (hybrid_distances, {"texts": ["1+2=3", "4*5=20", "1-1=0"], "embeddings": emb}),
        (dpp_lite, {"distances": d, "exploit": np.array([1.0, 0.0, 1.0])}),
        (strip_answer, {"trace": "2*3=6;6+1=7;#7"}),
        (TeamConfig, {"p_hint": 0.75, "lr": 3e-4}),
    ]
