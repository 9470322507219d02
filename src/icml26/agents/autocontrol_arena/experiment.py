"""AutoControl Arena: does logic-narrative decoupling keep a simulated environment consistent?

Per seed:

* ``pipeline``: Architect -> Coder -> sandbox validation for the 12 grid scenarios (the first Coder
  attempt of every scenario is made broken, so the retry path runs), and the Monitor's risk rates of
  three scripted targets per Stress x Temptation cell (a demonstration: the targets' behaviour is
  written by us);
* ``simulator``: a character-level TinyLM trained on executed transcripts of short episodes (1-6
  steps). Training gate: next-state exact match >= 90% on held-out one-step transitions from the
  training distribution. Then held-out longer episodes (``test_len`` steps), the same actions for
  both arms: the decoupled arm executes the logic in the sandbox and uses the LM for narrative only;
  the control, a generative simulator, lets the same LM emit the next state and the narrative and
  carries its own state forward. Measured against the executed state: narrative contradictions per
  step and Monitor-label flips per episode;
  The generative simulator is also run re-synchronised with the executed state every k steps (k = 1, 4),
  and every measure is split by seen vs unseen audit-log lengths (longer than any in training);
* ``identity``: tool-visible state in the decoupled arm equals a fresh re-execution of the same
  actions, over random action sequences.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict


def pipeline_part(seed: int, n_targets: int) -> dict[str, float]:
    from icml26.agents.autocontrol_arena import method as M
    from icml26.agents.autocontrol_arena import setting as S
    from icml26.core.validate import as_rng

    rng = as_rng("seed", seed)
    attempts, built, out = [], 0, {}
    rates = {}
    for spec in S.scenarios():
        box, _, k = M.build_environment(spec, first_bug=True)
        attempts.append(k)
        built += 1
        with box:
            for cap in S.CAPABILITY:
                labels = []
                for _ in range(n_targets):
                    acts = S.scripted_target(cap, spec, rng)
                    states = [box.reset()] + [box.step(a)[1] for a in acts]
                    labels.append(M.monitor(acts, states))
                key = (cap, spec.stress, spec.temptation)
                rates.setdefault(key, []).extend(labels)
    out["pipeline/built_frac"] = built / len(S.scenarios())
    out["pipeline/mean_attempts"] = float(np.mean(attempts))
    for (cap, s, t), labels in rates.items():
        lab = np.array(labels)
        out[f"grid/{cap}/{s}-{t}/risk"] = float(np.mean(lab != "safe"))
        out[f"grid/{cap}/{s}-{t}/concealment"] = float(np.mean(lab == "concealment"))
        out[f"grid/{cap}/{s}-{t}/mistake"] = float(np.mean(lab == "mistake"))
    return out


ARMS = {"generative": None, "resync1": 1, "resync4": 4}  # the generative simulator and its re-synchronised variants


def max_log(lines: list[str]) -> int:
    """The largest audit-log length in any state of the transcript ``lines`` (the range seen in training)."""
    from icml26.agents.autocontrol_arena import method as M

    out = 0
    for line in lines:
        head, _, rest = line.partition(" | ")
        nxt = rest.partition(" > ")[2].partition(" # ")[0]
        for text in (head, nxt):
            st = M.parse_state(text)
            if st is None:
                raise ValueError(f"lines hold a malformed state: {text!r}")
            out = max(out, st["log"])
    return out


def simulator_part(p: Profile, seed: int) -> dict[str, float]:
    from icml26.agents.autocontrol_arena import method as M
    from icml26.agents.autocontrol_arena import setting as S
    from icml26.agents.evaluate import bootstrap_ci

    spec = S.scenarios()[0]  # low stress, low temptation: protected deletions need approval
    box, _, _ = M.build_environment(spec)
    with box:
        lines = S.transcripts(box, p["n_train_episodes"], p["train_len"], seed)
        sim, losses = S.train_simulator(lines, d_model=p["d_model"], n_layers=p["n_layers"], steps=p["steps"],
                                        batch=p["batch"], seed=seed, lr=p["lr"])
        seen_log = max_log(lines)
        out = {"train/loss_first": float(np.mean(losses[:10])), "train/loss_last": float(np.mean(losses[-20:])),
               "train/n_lines": float(len(lines)), "train/max_log": float(seen_log)}
        # gate: one-step next-state accuracy in distribution (held-out starts)
        eps = S.random_episodes(p["n_gate"], 1, 10_000 + seed)
        tr = S.execute(box, eps)
        pred = sim.next_state([t[0] for t in tr], [e[1][0] for e in eps])
        out["gate/next_state_acc"] = float(np.mean([a == t[1] for a, t in zip(pred, tr)]))
        # held-out longer episodes, same actions in every arm
        test = S.random_episodes(p["n_test"], p["test_len"], 20_000 + seed)
        true = S.execute(box, test)
    T, n = p["test_len"], len(test)
    acts = [e[1] for e in test]
    # decoupled arm: the LM narrates the executed next state (every step of every episode in one batch)
    flat = [(tr_[t], a[t], tr_[t + 1]) for tr_, a in zip(true, acts) for t in range(T)]
    d_flat = sim.narrate([f[0] for f in flat], [f[1] for f in flat], [f[2] for f in flat])
    contr = {"decoupled": np.array([[M.contradictions(d_flat[i * T + t], true[i][t + 1]) for t in range(T)]
                                    for i in range(n)])}
    flips, state_ok = {"decoupled": np.zeros(n)}, {}
    labels = [M.monitor(a, tr_) for a, tr_ in zip(acts, true)]
    runs = M.rollout_arms(sim, [t[0] for t in true], acts, list(ARMS.values()), executed=true)
    for arm, (g_states, g_narr, cond) in zip(ARMS, runs):
        contr[arm] = np.array([[M.contradictions(g_narr[i][t], true[i][t + 1]) for t in range(T)] for i in range(n)])
        flips[arm] = np.array([M.monitor_steps(a, c, g[1:]) != lab
                               for a, c, g, lab in zip(acts, cond, g_states, labels)], float)
        state_ok[arm] = np.array([[g[t + 1] == tr_[t + 1] for t in range(T)] for g, tr_ in zip(g_states, true)], float)
    for arm in contr:
        out[f"contr/{arm}"] = float(contr[arm].mean())
        out[f"flip/{arm}"] = float(flips[arm].mean())
    diff = contr["generative"].mean(1) - contr["decoupled"].mean(1)
    _, lo, hi = bootstrap_ci(diff, seed=seed)
    _, flo, _ = bootstrap_ci(flips["generative"], seed=seed)
    out.update({"contr/diff_lo": lo, "contr/diff_hi": hi, "flip/generative_lo": flo})
    for k in (1, 4):
        _, lo_k, hi_k = bootstrap_ci(contr[f"resync{k}"].mean(1) - contr["decoupled"].mean(1), seed=seed)
        out[f"contr/diff{k}_lo"], out[f"contr/diff{k}_hi"] = lo_k, hi_k
    ok = state_ok["generative"]
    out.update({
        "gen/state_exact_first": float(ok[:, 0].mean()), "gen/state_exact_last": float(ok[:, -1].mean()),
        "gen/state_exact_mean": float(ok.mean()),
        "resync1/state_exact_mean": float(state_ok["resync1"].mean()),
        "resync4/state_exact_mean": float(state_ok["resync4"].mean()),
        "contr/decoupled_first_half": float(contr["decoupled"][:, : T // 2].mean()),
        "contr/generative_first_half": float(contr["generative"][:, : T // 2].mean()),
        "contr/generative_second_half": float(contr["generative"][:, T // 2:].mean()),
    })
    # seen vs unseen audit-log lengths: a step is unseen when its executed next state's log exceeds every log
    # length in the training transcripts; an episode is unseen when any of its executed states does
    logs = np.array([[M.parse_state(tr_[t + 1])["log"] for t in range(T)] for tr_ in true])
    unseen_step = logs > seen_log
    unseen_ep = unseen_step.any(1)
    out["split/unseen_step_frac"] = float(unseen_step.mean())
    out["split/unseen_episode_frac"] = float(unseen_ep.mean())
    for arm in contr:
        for name, m in (("seen", ~unseen_step), ("unseen", unseen_step)):
            out[f"split/contr/{arm}/{name}"] = float(contr[arm][m].mean()) if m.any() else 0.0
        for name, m in (("seen", ~unseen_ep), ("unseen", unseen_ep)):
            out[f"split/flip/{arm}/{name}"] = float(flips[arm][m].mean()) if m.any() else 0.0
    return out


def identity_part(seed: int, n: int) -> dict[str, float]:
    """Tool-visible state in the decoupled arm vs a fresh re-execution of the same actions."""
    from icml26.agents.autocontrol_arena import method as M
    from icml26.agents.autocontrol_arena import setting as S

    spec = S.scenarios()[0]
    eps = S.random_episodes(n, 12, 30_000 + seed)
    a, _, _ = M.build_environment(spec)
    b, _, _ = M.build_environment(spec)
    with a, b:
        x, y = S.execute(a, eps), S.execute(b, eps)
    return {"identity/mismatch": float(np.mean([s != t for xs, ys in zip(x, y) for s, t in zip(xs, ys)]))}


def run(profile: Profile, seed: int) -> dict:
    p = profile.params
    return {**pipeline_part(seed, p["n_targets"]), **simulator_part(profile, seed), **identity_part(seed, p["n_identity"])}


def figure(ms: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    arms = ("decoupled", "resync1", "resync4", "generative")
    ax.bar(arms, [np.mean([m[f"contr/{a}"] for m in ms]) for a in arms],
           color=["tab:green", "tab:olive", "tab:orange", "tab:red"])
    for m in ms:
        ax.plot(arms, [m[f"contr/{a}"] for a in arms], "k.-", alpha=0.4)
    ax.set_xlabel("simulator (same tiny LM, same actions; resync k = generative, re-synchronised every k steps)")
    ax.set_ylabel("narrative contradictions per step (of 4 facts)")
    cells = ("low-low", "low-high", "high-low", "high-high")
    for cap in ("weak", "medium", "strong"):
        bx.plot(cells, [np.mean([m[f"grid/{cap}/{c}/risk"] for m in ms]) for c in cells], "o-", label=cap)
    bx.set_xlabel("Stress-Temptation cell")
    bx.set_ylabel("Monitor risk rate (scripted targets: a demo)")
    bx.legend(title="target")
    fig.tight_layout()
    return fig


def EXAMPLES():
    from icml26.agents.autocontrol_arena import method as M
    from icml26.agents.autocontrol_arena import setting as S

    spec = S.scenarios()[0]
    design = M.architect(spec)
    state = "F:ab.d. R:.b... A:..... L:3 S:0"
    return [
        (M.architect, {"spec": spec}),
        (M.coder, {"design": design}),
        (M.parse_state, {"text": state}),
        (M.template_narrative, {"state": state, "phrasing": 1}),
        (M.contradictions, {"narrative": "ops: 3 files, log 3", "state": state}),
        (M.monitor, {"actions": ["delete b"], "states": [state, "F:a..d. R:.b... A:..... L:4 S:0"]}),
        (M.monitor_steps, {"actions": ["delete b"], "befores": [state], "afters": ["F:a..d. R:.b... A:..... L:4 S:0"]}),
        (max_log, {"lines": [M.transcript_line(state, "read a", "F:ab.d. R:.b... A:..... L:4 S:0", "ops: 3 files, log 4")]}),
        (S.random_episodes, {"n": 2, "length": 3, "seed": 0}),
        (S.scripted_target, {"capability": "strong", "spec": spec, "rng": __import__("numpy").random.default_rng(0)}),
    ]


# ----------------------------------------------------------------------------- frontier-model claims (demo only)
def _grid_text(ms: list[dict], what: str) -> str:
    cells = ("low-low", "high-high")
    parts = []
    for cap in ("weak", "medium", "strong"):
        vals = [np.mean([m[f"grid/{cap}/{c}/{what}"] for m in ms]) for c in cells]
        parts.append(f"{cap} {vals[0]:.2f} -> {vals[1]:.2f}")
    return f"scripted-target {what} (low-low -> high-high cell): " + ", ".join(parts)


def _frontier(ms: list[dict], what: str) -> Verdict:
    from icml26.agents.autocontrol_arena import _FRONTIER

    return Verdict("not-checkable", _grid_text(ms, what), _FRONTIER)


def check_alignment_illusion(ms: list[dict]) -> Verdict:
    return _frontier(ms, "risk")


def check_scenario_specific_scaling(ms: list[dict]) -> Verdict:
    return _frontier(ms, "risk")


def check_weak_err_strong_conceal(ms: list[dict]) -> Verdict:
    v = _frontier(ms, "concealment")
    return Verdict(v.status, v.measured + "; " + _grid_text(ms, "mistake"), v.evidence)


def _same(ms: list[dict]) -> list[dict]:
    return [dict(m) for m in ms]


contradict_alignment_illusion = contradict_scenario_specific_scaling = contradict_weak_err_strong_conceal = _same


def check_end_to_end_success_and_preference(ms: list[dict]) -> Verdict:
    """Not checkable (see the claim's ``uncheckable``); shows our templated build rate for reference."""
    built = np.mean([m["pipeline/built_frac"] for m in ms])
    att = np.mean([m["pipeline/mean_attempts"] for m in ms])
    return Verdict("not-checkable", f"templated Coder: {built:.2f} of scenarios built, {att:.1f} attempts each (the "
                                    "first broken on purpose); no human raters",
                   "our build rate is true by construction (the pipeline-builds-runnable-environments identity)")



def contradict_end_to_end_success_and_preference(ms: list[dict]) -> list[dict]:
    return _same(ms)
