"""Harness checks with planted behaviour, and the DeGroot illustration (arXiv:2602.01011).

The paper's four findings are about frontier-LLM teams; without endpoints, transcripts or
released results they are ``not-checkable``. What :func:`run` does:

* :func:`planted_part`: scripted teams on Moon Survival and Lost at Sea (expert = member 0
  given the reference ranking; the others hold random rankings). A deferring team must have
  gap 0; an averaging team's answer must be the Borda aggregate of the opening positions, so
  its gap has a closed form; a reporter with planted identification/leveraging rates must be
  recovered by :func:`identification_leveraging` (z-scores against the planted rates); the
  rule coder and a noisy copy of it give Krippendorff's alpha; at-least-one-correct on the
  arithmetic stand-ins for members of planted accuracy.
* :func:`degroot_part`: the opinion-model sweep over team size, deference and identification,
  with and without an adversary: a labelled figure, no verdict (its parameters fix its pattern).
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict

from .method import (at_least_one_correct, agreement, borda, identification_leveraging, random_l1_mean,
                     ranking_l1, rule_coder, run_discussion, synergy_gap)
from .setting import TASKS, PlantedReporter, ScriptedMember, briefs, degroot_sweep, qa_tasks


def _team(truth, n, rng, behaviour):
    b = briefs(truth, n)
    members = []
    for i in range(n):
        own = b[i] if b[i] is not None else [truth[j] for j in rng.permutation(len(truth))]
        members.append(ScriptedMember(f"member{i}", own, "stubborn" if i == 0 else behaviour, claims_expert=i == 0))
    if behaviour == "average":
        members[0] = ScriptedMember("member0", list(truth), "average", claims_expert=True)
    return [members[1], members[0], *members[2:]]  # a non-expert writes the team answer


def planted_part(tasks: int, n: int, rounds: int, q_id: float, q_lev: float, coder_noise: float, seed: int) -> dict:
    rng = np.random.default_rng([seed, 2602])
    out: dict = {}
    defer_gap, avg_gap, avg_closed, avg_mismatch = [], [], [], 0
    named, followed, codes_a = [], [], []
    for t in range(tasks):
        name = ("moon", "sea")[t % 2]
        truth = list(TASKS[name])
        chance = random_l1_mean(len(truth))
        # deferring team: everyone adopts the claimant's (the expert's) ranking
        r = run_discussion(_team(truth, n, rng, "defer"), name, rounds=rounds)
        defer_gap.append(synergy_gap(ranking_l1(r["team"]["ranking"], truth), 0.0, kind="loss", chance=chance))
        codes_a.append(rule_coder(r))
        # averaging team: the answer is the Borda aggregate of the opening rankings
        members = _team(truth, n, rng, "average")
        r = run_discussion(members, name, rounds=rounds)
        closed = borda([m.ranking for m in members])
        avg_mismatch += int(r["team"]["ranking"] != closed)
        avg_gap.append(synergy_gap(ranking_l1(r["team"]["ranking"], truth), 0.0, kind="loss", chance=chance))
        avg_closed.append(synergy_gap(ranking_l1(closed, truth), 0.0, kind="loss", chance=chance))
        codes_a.append(rule_coder(r))
        # planted identification / leveraging (expert unknown to the team)
        members = _team(truth, n, rng, "stubborn")
        members[1] = ScriptedMember("member0", list(truth), "stubborn", claims_expert=False)
        members[0] = PlantedReporter("member1", members[0].ranking, "member0", q_id, q_lev, seed=rng)
        r = run_discussion(members, name, rounds=rounds)
        named.append(r["team"]["expert"])
        followed.append(r["team"]["ranking"] == truth)
    il = identification_leveraging(named, ["member0"] * tasks, followed)
    se_id = np.sqrt(q_id * (1 - q_id) / tasks) or 1e-12
    se_lev = np.sqrt(q_lev * (1 - q_lev) / max(il["n_identified"], 1)) or 1e-12
    flip = rng.random(len(codes_a)) < coder_noise
    codes_b = [("OTHER" if c != "OTHER" else "DEFERENCE") if f else c for c, f in zip(codes_a, flip)]
    out.update({
        "harness/defer/gap_max": float(np.max(np.abs(defer_gap))),
        "harness/average/gap": float(np.mean(avg_gap)), "harness/average/gap_closed": float(np.mean(avg_closed)),
        "harness/average/mismatches": float(avg_mismatch),
        "harness/planted/identification": il["identification"], "harness/planted/leveraging": il["leveraging"],
        "harness/planted/q_id": q_id, "harness/planted/q_lev": q_lev,
        "harness/planted/id_z": abs(il["identification"] - q_id) / se_id,
        "harness/planted/lev_z": abs(il["leveraging"] - q_lev) / se_lev,
        "coding/alpha_same": agreement([codes_a, codes_a]), "coding/alpha_noisy": agreement([codes_a, codes_b]),
        "coding/deference_share": float(np.mean([c == "DEFERENCE" for c in codes_a])),
    })
    # at-least-one-correct on arithmetic stand-ins, members of planted accuracy
    qs = qa_tasks(tasks, seed=seed)
    acc = np.linspace(0.3, 0.7, n)
    correct = rng.random((n, len(qs))) < acc[:, None]
    out["qa/best_member"] = float(correct.mean(axis=1).max())
    out["qa/at_least_one"] = at_least_one_correct(correct)
    return out


def degroot_part(ns, ds, qs, instances: int, seed: int) -> dict:
    out: dict = {"degroot/n": [float(n) for n in ns], "degroot/d": [float(d) for d in ds],
                 "degroot/q": [float(q) for q in qs]}
    for adv in (False, True):
        res = degroot_sweep(ns=ns, ds=ds, qs=qs, instances=instances, adversary=adv,
                           seed=np.random.default_rng([seed, int(adv)]))
        tag = "adversary" if adv else "clean"
        for b, d in enumerate(ds):
            for c, q in enumerate(qs):
                out[f"degroot/{tag}/team_l1/d{d}/q{q}"] = res["team"][:, b, c].tolist()
        out[f"degroot/{tag}/expert_l1"] = res["expert"][:, 0, 0].tolist()
    return out


def run(profile: Profile, seed: int) -> dict:
    return {**planted_part(profile["tasks"], profile["n"], profile["rounds"], profile["q_id"], profile["q_lev"],
                           profile["coder_noise"], seed),
            **degroot_part(profile["ns"], profile["ds"], profile["qs"], profile["instances"], seed)}


# ----------------------------------------------------------------------------- the four findings
def _llm(what: str, ms: list[dict], sim: str) -> Verdict:
    return Verdict("not-checkable", f"no LLM team was run; {sim}",
                   f"{what} is a finding about frontier-LLM teams (GPT/Claude/Gemini-class members); no endpoint, "
                   "transcript or released result is within reach. The harness (run_discussion with ChatMember on "
                   "any OpenAI-compatible endpoints) can measure it; the DeGroot sweep in the figure reproduces the "
                   "pattern only because its parameters are chosen to.")


def _cell(ms, tag, d, q, i):
    i = min(i, len(ms[0]["degroot/n"]) - 1)
    return float(np.mean([m[f"degroot/{tag}/team_l1/d{d}/q{q}"][i] for m in ms]))


def check_no_strong_synergy(ms):
    return _llm("No strong synergy (gaps up to 37.6% in v1, 41.1% in the final version)", ms,
                f"DeGroot model, d=0, q=1, n=4: team L1 {_cell(ms, 'clean', 0.0, 1.0, 2):.1f} vs expert "
                f"{ms[0]['degroot/clean/expert_l1'][2]:.1f}")


def check_leveraging_bottleneck(ms):
    return _llm("Leveraging, not identification, is the bottleneck", ms,
                f"DeGroot model, n=4, q=1: team L1 {_cell(ms, 'clean', 0.0, 1.0, 2):.1f} at d=0 vs "
                f"{_cell(ms, 'clean', 1.0, 1.0, 2):.1f} at d=1")


def check_compromise_grows(ms):
    return _llm("Integrative compromise grows with team size and hurts", ms,
                "DeGroot model, d=0, q=1: team L1 by n " + ", ".join(
                    f"{_cell(ms, 'clean', 0.0, 1.0, i):.1f}" for i in range(len(ms[0]['degroot/n']))))


def check_adversarial_robustness(ms):
    return _llm("Consensus seeking buys robustness to an adversarial member", ms,
                f"DeGroot model with adversary, n=4, q=0.5: team L1 {_cell(ms, 'adversary', 0.0, 0.5, 2):.1f} at "
                f"d=0 vs {_cell(ms, 'adversary', 1.0, 0.5, 2):.1f} at d=1")


def _same(ms):
    return [dict(m) for m in ms]


contradict_no_strong_synergy = contradict_leveraging_bottleneck = _same
contradict_compromise_grows = contradict_adversarial_robustness = _same


# ----------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m0 = ms[0]
    ns, ds, qs = m0["degroot/n"], m0["degroot/d"], m0["degroot/q"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, tag, q in ((axes[0], "clean", qs[-1]), (axes[1], "clean", qs[0]), (axes[2], "adversary", qs[0])):
        for d in ds:
            ax.plot(ns, np.mean([m[f"degroot/{tag}/team_l1/d{d}/q{q}"] for m in ms], axis=0), "o-", label=f"d={d:g}")
        ax.plot(ns, np.mean([m[f"degroot/{tag}/expert_l1"] for m in ms], axis=0), "k--", label="expert alone")
        ax.set_xlabel("team size n")
        ax.set_ylabel("team ranking L1 error (lower is better)")
        ax.set_title(f"DeGroot model ({tag}, expert perceived w.p. q={q:g}); illustration, no verdict", fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
