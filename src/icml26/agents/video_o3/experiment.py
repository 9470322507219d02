"""Video-o3 at small scale: one run per seed, composed of named parts.

* ``sft_policy``      SFT on reference trajectories (TDAM on ρ = 10% of tool-use samples) and on
                      single-pass uniform-frame samples; cached on disk per (config, seed). Gate:
                      teacher-forced accuracy of the policy's tokens on held-out references.
* ``rl_variants``     GRPO from the SFT policy with three rewards: the full trajectory-guided
                      reward, without S_clue (w_g = 0), without turn decay (γ = 1). Gate: reward rises.
* ``seeking_vs_single``  claim 1: the seeker's accuracy against the same model answering in one
                      pass at the seeker's own mean visual-token budget (the better of the SFT and
                      RL models) from uniformly spaced fine frames and from salience-guided fine
                      frames, over the clue-length sweep; claim ``grpo-gain``: the GRPO seeker
                      against its SFT start on the same videos. GRPO gate: held-out reward of
                      sampled episodes, GRPO policy minus SFT policy, same prompts and stream.
* ``reward_ablation`` claim 2: accuracy and tool calls of the three reward variants.
* ``tdam_ratios``     claim 3 (exploratory): SFT-only seeking accuracy for ρ in {0, 0.1, 0.2, 0.3}.
* ``context_speed``   claim 4: one shared KV-cached context vs re-encoding the context every
                      turn, at the turn cap (timing helper), and that both give the same logits.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile

SWEEP = (1, 2, 3)


def _pool(seed: int, n: int, uniform_frac: float, base: int = 10_000, salient_frac: float = 0.0) -> list:
    """References for every video, plus single-pass samples (uniform frames, then salience-guided frames)."""
    from . import setting as S

    vids = S.draw_videos(base + seed, n)
    rng = np.random.default_rng(base + 10_000 + seed)
    pool = [(*S.oracle_episode(v), True) for v in vids]
    k = int(n * uniform_frac)
    for v in vids[:k]:
        pool.append((*S.uniform_episode(v, int(rng.integers(8, S.UNI_SLOTS + 1)), float(rng.random())), False))
    for v in vids[k:k + int(n * salient_frac)]:
        pool.append((*S.uniform_episode(v, int(rng.integers(8, S.UNI_SLOTS + 1)), salient=True), False))
    return pool


def _held(seed: int) -> list:
    from . import setting as S

    return [S.oracle_episode(v) for v in S.draw_videos(30_000 + seed, 200)]


def _record(model, losses, held) -> dict:
    from . import method as M

    return {"state": {k: v.clone() for k, v in model.state_dict().items()}, "losses": list(losses),
            "token_acc": M.token_accuracy(model, held), "traj_acc": M.trajectory_accuracy(model, held)}


def _stage1_cfg(p: Profile, seed: int, tdam_ratio: float) -> dict:
    return {"d": p["d_model"], "layers": p["n_layers"], "pool": p["n_pool"], "steps": p["sft_steps"],
            "batch": p["sft_batch"], "lr": p["sft_lr"], "tdam": float(tdam_ratio), "seed": int(seed),
            "uniform_frac": p["uniform_frac"], "salient_frac": p.params.get("salient_frac", 0.0),
            "init": p.params.get("init", "default"), "v": 11,
            "val_floor": p.params.get("sft_val_floor", 0.0), "max_restarts": p.params.get("sft_max_restarts", 0)}


def _stage2_cfg(p: Profile, seed: int, tdam_ratio: float, steps: int) -> dict:
    return {**_stage1_cfg(p, seed, tdam_ratio), "stage2_steps": int(steps), "stage2_batch": p["sft2_batch"],
            "stage2_lr": p["sft2_lr"], "stage2_pool": p["n_pool"], "v2": 1}


def build_stage2(p: Profile, seed: int, tdam_ratio: float, steps: int, save_every: int = 0) -> dict:
    """Stage 2 of SFT: constant-lr continuation on a fresh pool of references from the stage-1 policy.

    With ``save_every`` the record after every multiple of it is stored in the cache under its own
    step count (a constant-lr run's state after k steps does not depend on the total).
    """
    from icml26.core.cache import cached

    from . import method as M

    rec1 = _stage1(p, seed, tdam_ratio)
    model = M.make_policy(p["d_model"], p["n_layers"], seed=seed)
    model.load_state_dict(rec1["state"])
    held = _held(seed)
    stage1_losses = list(rec1["losses"])
    losses: list[float] = []

    def hook(k, mdl):
        if save_every and k % save_every == 0 and k < steps:
            r = _record(mdl, stage1_losses + losses[:k], held)
            cached("video_o3", "sft2", lambda: r, params=_stage2_cfg(p, seed, tdam_ratio, k), fmt="pt", refresh=True)

    losses.extend(M.train_sft(model, _pool(seed, p["n_pool"], p["uniform_frac"], base=110_000), steps=steps,
                              batch=p["sft2_batch"], lr=p["sft2_lr"], tdam_ratio=tdam_ratio, seed=seed + 7_777,
                              schedule="constant", on_step=hook))
    return _record(model, stage1_losses + losses, held)


def _stage3_cfg(p: Profile, seed: int, tdam_ratio: float) -> dict:
    return {**_stage2_cfg(p, seed, tdam_ratio, p["sft2_steps"]), "anneal_steps": int(p["sft3_steps"]), "v3": 1}


def build_stage3(p: Profile, seed: int, tdam_ratio: float) -> dict:
    """Stage 3 of SFT: ``sft3_steps`` steps from the stage-2 policy, lr decayed linearly from ``sft2_lr`` to 0."""
    from icml26.core.cache import cached

    from . import method as M

    k2 = int(p["sft2_steps"])
    rec2 = cached("video_o3", "sft2", lambda: build_stage2(p, seed, tdam_ratio, k2),
                  params=_stage2_cfg(p, seed, tdam_ratio, k2), fmt="pt")
    model = M.make_policy(p["d_model"], p["n_layers"], seed=seed)
    model.load_state_dict(rec2["state"])
    losses = M.train_sft(model, _pool(seed, p["n_pool"], p["uniform_frac"], base=210_000), steps=p["sft3_steps"],
                         batch=p["sft2_batch"], lr=p["sft2_lr"], tdam_ratio=tdam_ratio, seed=seed + 8_888,
                         schedule="anneal")
    return _record(model, list(rec2["losses"]) + losses, _held(seed))


#: Validation videos for the SFT restart rule: ``draw_videos(VAL_BASE + seed, n_test)``, a stream no test,
#: pool or GRPO prompt uses.
VAL_BASE = 25_000


def attempt_seed(seed: int, attempt: int) -> int:
    """Seed of SFT attempt ``attempt`` (initialisation and batch order): ``seed`` itself for the first run."""
    return int(seed) + 1_000_000 * int(attempt)


def _stage1(p: Profile, seed: int, tdam_ratio: float) -> dict:
    """Stage-1 SFT with the restart rule (issue 18, fourth pass): a run whose greedy answer accuracy on
    ``n_test`` validation videos is below ``sft_val_floor`` is redone from a new initialisation and batch
    order (:func:`attempt_seed`), at most ``sft_max_restarts`` times (:func:`method.restart_below_floor`)."""
    from icml26.core.cache import cached

    from . import method as M
    from . import setting as S

    pool = _pool(seed, p["n_pool"], p["uniform_frac"], salient_frac=p.params.get("salient_frac", 0.0))
    val = S.draw_videos(VAL_BASE + seed, p["n_test"])

    def attempt(k: int):
        s = attempt_seed(seed, k)
        model = M.make_policy(p["d_model"], p["n_layers"], seed=s, init=p.params.get("init", "default"))
        losses = M.train_sft(model, pool, steps=p["sft_steps"], batch=p["sft_batch"],
                             lr=p["sft_lr"], tdam_ratio=tdam_ratio, seed=s)
        return model, losses

    def build():
        (model, losses), restarts, scores = M.restart_below_floor(
            attempt, lambda r: float(M.evaluate_seeking(r[0], val)["acc"].mean()),
            floor=p.params.get("sft_val_floor", 0.0), max_restarts=p.params.get("sft_max_restarts", 0))
        return {**_record(model, losses, _held(seed)), "restarts": restarts, "val_scores": scores}

    return cached("video_o3", "sft", build, params=_stage1_cfg(p, seed, tdam_ratio), fmt="pt")


def sft_policy(p: Profile, seed: int, tdam_ratio: float = 0.1):
    """The SFT policy (cached on disk per config and seed) and its training record.

    Stage 1: ``sft_steps`` AdamW steps, warm-up then cosine decay. Stage 2 (``sft2_steps`` > 0):
    constant-lr continuation on a fresh pool (see :func:`build_stage2`); stage 3 (``sft3_steps`` > 0):
    linear decay to 0 on another fresh pool (see :func:`build_stage3`).
    """
    import torch

    from icml26.core.cache import cached

    from . import method as M

    k2 = int(p.params.get("sft2_steps", 0))
    if k2 > 0 and int(p.params.get("sft3_steps", 0)) > 0:
        rec = cached("video_o3", "sft3", lambda: build_stage3(p, seed, tdam_ratio),
                     params=_stage3_cfg(p, seed, tdam_ratio), fmt="pt")
    elif k2 > 0:
        rec = cached("video_o3", "sft2", lambda: build_stage2(p, seed, tdam_ratio, k2),
                     params=_stage2_cfg(p, seed, tdam_ratio, k2), fmt="pt")
    else:
        rec = _stage1(p, seed, tdam_ratio)
    model = M.make_policy(p["d_model"], p["n_layers"], seed=seed)
    model.load_state_dict(rec["state"])
    model.eval()
    torch.set_grad_enabled(True)
    return model, rec


def _loss_drop(losses) -> float:
    k = max(1, len(losses) // 10)
    return float(np.mean(losses[:k]) / max(np.mean(losses[-k:]), 1e-9))


def rl_variants(p: Profile, seed: int, sft):
    """GRPO runs from the SFT policy under the rewards named in ``rl_variants``; same prompt stream for each."""
    from . import method as M
    from . import setting as S

    variants = {"vtgr": M.RewardConfig(), "no_clue": M.RewardConfig(use_clue=False),
                "no_decay": M.RewardConfig(use_decay=False)}
    out = {}
    for name in p.params.get("rl_variants", list(variants)):
        rc = variants[name]
        model = M.copy_model(sft)
        hist = M.grpo_train(model, lambda rng: S.draw_videos(int(rng.integers(2**31)), p["rl_prompts"]), rc,
                            steps=p["rl_steps"], prompts=p["rl_prompts"], group=p["rl_group"], lr=p["rl_lr"],
                            seed=40_000 + seed, scale_rewards=bool(p.params.get("rl_scale_rewards", True)))
        out[name] = (model, hist)
    return out


def heldout_reward(model, p: Profile, seed: int) -> float:
    """Mean trajectory-guided reward of sampled (T = 1) episodes on held-out prompts, fixed sampling stream.

    The GRPO gate compares this number for the GRPO policy and its SFT start on the same prompts
    and random stream (a paired measurement, unlike the noisy training-reward curve).
    """
    import torch

    from . import method as M
    from . import setting as S

    vids = [v for v in S.draw_videos(45_000 + seed, p["n_test"]) for _ in range(p["rl_eval_rollouts"])]
    ep = M.rollout(model, vids, generator=torch.Generator().manual_seed(46_000 + seed))
    return float(np.mean([0.0 if o else M.trajectory_reward(t, v)["reward"]
                          for t, v, o in zip(ep.turns, vids, ep.over_turn)]))


def _rise(x) -> float:
    k = max(1, len(x) // 4)
    return float(np.mean(x[-k:]) - np.mean(x[:k]))


def _sees_all(video, idx) -> float:
    """1 if the frames ``idx`` contain every answer symbol of the question (a perfect reader's ceiling)."""
    from . import setting as S

    seen = {int(video.frames[i]) for i in idx}
    return float(all(S.N_OBJ + S.N_MARK + S.N_OBJ * m + o in seen for m, o in zip(video.asked, video.answer)))


def seeking_vs_single(p: Profile, seed: int, sft, rl_model) -> dict:
    """Claim 1: the seeker against two single passes at its own mean visual-token budget, per clue length.

    Controls (each the better of the SFT and the GRPO checkpoint): uniformly spaced fine frames,
    and salience-guided fine frames (the events the global view marks as salient, no interleaving). Also
    the SFT policy as a seeker on the same videos (the GRPO stage's own control) and the
    information ceilings of both single passes (would a perfect reader of those frames answer?).
    """
    from . import method as M
    from . import setting as S

    m: dict = {}
    by: dict[str, list[float]] = {k: [] for k in ("seeker", "sft_seeker", "uniform", "salient", "budget",
                                                   "ceil_uniform", "ceil_salient", "calls")}
    for L in SWEEP:
        vids = S.draw_videos(50_000 + 10 * seed + L, p["n_test"], ans_lens=(L,))
        r = M.evaluate_seeking(rl_model, vids)
        budget = int(np.clip(np.ceil(r["visual"].mean()), 1, S.UNI_SLOTS))
        by["seeker"].append(float(r["acc"].mean()))
        by["calls"].append(float(r["calls"].mean()))
        by["sft_seeker"].append(float(M.evaluate_seeking(sft, vids)["acc"].mean()))
        for name, sal in (("uniform", False), ("salient", True)):
            by[name].append(float(max(M.answer_single_pass(mdl, vids, budget, salient=sal).mean() for mdl in (rl_model, sft))))
        uidx = np.floor((np.arange(budget) + 0.5) * S.T / budget).astype(int).clip(0, S.T - 1)
        by["ceil_uniform"].append(float(np.mean([_sees_all(v, uidx) for v in vids])))
        by["ceil_salient"].append(float(np.mean([_sees_all(v, S.salient_indices(v.frames, budget)) for v in vids])))
        by["budget"].append(float(budget))
    for k, v in by.items():
        m[f"sweep/{k}"] = v
        if k not in ("budget", "calls"):
            m[f"acc/{k}"] = float(np.mean(v))
    m["acc/single_best"] = max(m["acc/uniform"], m["acc/salient"])
    m["rl/acc_gain"] = m["acc/seeker"] - m["acc/sft_seeker"]
    m["sweep/ans_len"] = [float(x) for x in SWEEP]
    return m


def reward_ablation(p: Profile, seed: int, rl: dict) -> dict:
    from . import method as M
    from . import setting as S

    vids = S.draw_videos(70_000 + seed, p["n_test"])
    m: dict = {}
    for name in ("vtgr", "no_clue", "no_decay"):
        if name not in rl:  # variant not run in this profile (budget): reported as missing
            for k in ("acc", "calls", "s_clue"):
                m[f"{k}/{name}"] = float("nan")
            continue
        model, hist = rl[name]
        r = M.evaluate_seeking(model, vids)
        m[f"acc/{name}"] = float(r["acc"].mean())
        m[f"calls/{name}"] = float(r["calls"].mean())
        m[f"s_clue/{name}"] = float(r["s_clue"].mean())
        m[f"rl/{name}/reward"] = [float(x) for x in hist["reward"]]
        m[f"rl/{name}/reward_rise"] = _rise(hist["reward"])
    return m


def tdam_ratios(p: Profile, seed: int, base_sft) -> dict:
    from . import method as M
    from . import setting as S

    vids = S.draw_videos(80_000 + seed, p["n_test"])
    m: dict = {}
    for rho in p["tdam_ratios"]:
        model = base_sft if abs(rho - 0.1) < 1e-9 else sft_policy(p, seed, tdam_ratio=rho)[0]
        m[f"tdam/{int(round(100 * rho))}"] = float(M.evaluate_seeking(model, vids)["acc"].mean())
    others = [v for k, v in m.items() if k != "tdam/10"]
    m["tdam/best_other"] = float(max(others)) if others else float("nan")
    return m


def context_speed(p: Profile, seed: int, model) -> dict:
    """Claim 4: shared KV-cached context vs re-encoding, on cap-length trajectories (4 crops + answer)."""
    import torch

    from icml26.core.timing import compare

    from . import method as M
    from . import setting as S

    rng = np.random.default_rng(90_000 + seed)
    vids = S.draw_videos(90_000 + seed, p["timing_batch"])
    prefix = torch.tensor([S.prefix_tokens(v) for v in vids])
    turns, tools = [], []
    for k in range(5):
        bins = rng.integers(0, S.N_BINS, size=len(vids))
        if k < 4:
            turns.append(torch.tensor([S.tool_turn(int(b)) for b in bins]))
            tools.append(torch.tensor([[S.CROP, *S.crop(v.frames, int(b)), S.ECROP] for v, b in zip(vids, bins)]))
        else:
            turns.append(torch.tensor([S.answer_of(v) for v in vids]))
    a = M.replay_turns(model, prefix, turns, tools, shared_cache=True)
    b = M.replay_turns(model, prefix, turns, tools, shared_cache=False)
    res = compare(lambda: M.replay_turns(model, prefix, turns, tools, shared_cache=False),
                  lambda: M.replay_turns(model, prefix, turns, tools, shared_cache=True),
                  repeats=p["timing_repeats"], warmup=1)
    return {"cache/max_abs_diff": float((a - b).abs().max()),
            "timing/shared_s": float(res["method"]["wall_median"]),
            "timing/reencode_s": float(res["baseline"]["wall_median"]),
            "timing/speedup": float(res["speedup_wall"])}


def run(p: Profile, seed: int) -> dict:
    import torch

    from . import method as M
    from . import setting as S

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    sft, rec = sft_policy(p, seed)
    m: dict = {"sft/token_acc": float(rec["token_acc"]), "sft/traj_acc": float(rec["traj_acc"]),
               "sft/restarts": float(rec.get("restarts", 0)),
               "sft/val_acc": [float(x) for x in rec.get("val_scores", [])],
               "sft/loss_drop": _loss_drop(rec["losses"]),
               "sft/loss": [float(x) for x in rec["losses"][:: max(1, len(rec["losses"]) // 50)]]}
    m["sft/heldout_acc"] = float(M.evaluate_seeking(sft, S.draw_videos(60_000 + seed, p["n_test"]))["acc"].mean())
    rl = rl_variants(p, seed, sft)
    m["rl/reward_rise"] = _rise(rl["vtgr"][1]["reward"])
    m["rl/heldout_reward_sft"] = heldout_reward(sft, p, seed)
    m["rl/heldout_reward_grpo"] = heldout_reward(rl["vtgr"][0], p, seed)
    m["rl/heldout_reward_gain"] = m["rl/heldout_reward_grpo"] - m["rl/heldout_reward_sft"]
    m.update(seeking_vs_single(p, seed, sft, rl["vtgr"][0]))
    m.update(reward_ablation(p, seed, rl))
    m.update(tdam_ratios(p, seed, sft))
    m.update(context_speed(p, seed, rl["vtgr"][0]))
    return m


def figure(metrics: list[dict]):
    import matplotlib.pyplot as plt

    from . import setting as S

    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    x = metrics[0]["sweep/ans_len"]
    for key, lab in (("sweep/seeker", "clue seeking (SFT+GRPO)"), ("sweep/sft_seeker", "clue seeking (SFT only)"),
                     ("sweep/uniform", "uniform single pass, same budget"),
                     ("sweep/salient", "salience-guided single pass, same budget")):
        y = np.array([m[key] for m in metrics])
        ax[0].errorbar(x, y.mean(0), yerr=y.std(0), marker="o", capsize=3, label=lab)
    ax[0].set_xlabel(f"answer-clue length (frames of {S.T})")
    ax[0].set_ylabel("accuracy")
    ax[0].legend(fontsize=7)
    names = [n for n in ("vtgr", "no_clue", "no_decay") if np.isfinite(metrics[0][f"acc/{n}"])]
    acc = np.array([[m["acc/sft_seeker"]] + [m[f"acc/{n}"] for n in names] for m in metrics])
    ax[1].bar(["SFT only"] + [f"GRPO {n}" for n in names], acc.mean(0), yerr=acc.std(0), capsize=3)
    ax[1].set_xlabel("policy")
    ax[1].set_ylabel("accuracy")
    for n in names:
        r = np.array([m[f"rl/{n}/reward"] for m in metrics])
        ax[2].plot(r.mean(0), label=n)
    ax[2].set_xlabel("GRPO step")
    ax[2].set_ylabel("mean reward R")
    ax[2].legend(fontsize=7)
    fig.tight_layout()
    return fig


def EXAMPLES():
    from . import method as M
    from . import setting as S

    v = S.make_video(0, hops=1)
    return [
        (S.make_video, {"rng": 0, "hops": 1, "distractors": 1, "ans_len": 2}),
        (S.crop, {"frames": v.frames, "start_bin": 3, "strategy": "fine"}),
        (S.uniform_frames, {"frames": v.frames, "n": 16, "offset": 0.5}),
        (S.salient_indices, {"frames": v.frames, "n": 16}),
        (M.clue_score, {"crops": [(0.0, 16.0)], "clues": [(4.0, 12.0)]}),
        (M.turn_decay, {"n_calls": 2, "lam": 0.05}),
        (M.trajectory_reward, {"turns": [S.answer_of(v)], "video": v}),
        (M.sinusoidal_positions, {"length": 8, "d_model": 8, "std": 0.02}),
        (M.global_position, {"frame": 3}),
    ]


# ----------------------------------------------------------------------------- claim: seeking-beats-uniform
def check_seeking_beats_uniform_rule():
    """The pre-registered rule (review, before an earlier re-run): the seeker beats each single-pass control
    (uniform and salience-guided fine frames) by >= 10 points in every seed; partly if it beats one; gated on
    the SFT policy."""
    from icml26.agents.video_o3 import _SFT_GATE
    from icml26.core import checks as C

    return C.all_of(
        C.beats_in_seeds("acc/seeker", "acc/uniform", margin=0.10, frac=1.0, better="higher",
                         label="clue seeking", control_label="uniform single pass"),
        C.beats_in_seeds("acc/seeker", "acc/salient", margin=0.10, frac=1.0, better="higher",
                         label="clue seeking", control_label="salience-guided single pass"),
    ).gated(_SFT_GATE)


def control_arm_in_seekers_place(ms: list[dict], arm: str) -> list[dict]:
    return [{**m, "acc/seeker": m[f"acc/{arm}"]} for m in ms]


def check_seeking_beats_uniform(ms: list[dict]):
    """The pre-registered rule (:func:`check_seeking_beats_uniform_rule`) under the house rule: 'partly' or
    'reproduced' needs, against each control put wholly in the seeker's place, a part the seeker passes
    better (changed by review after the fourth session's full run: partly -> not-reproduced). The seeker's
    only passing part, beating uniform frames by >= 10 points, is passed just as well by the salience-guided
    single pass (0.845-0.94 against uniform 0.16-0.19 in that run), which has no interleaving at all."""
    from icml26.core import checks as C

    controls = [(label, lambda m, a=arm: control_arm_in_seekers_place(m, a))
                for arm, label in (("uniform", "uniform single pass"), ("salient", "salience-guided single pass"))]
    return C.part_beyond_controls(check_seeking_beats_uniform_rule(), ms, controls, who="the seeker",
                                  note=" (changed by review after the fourth session's full run: partly -> "
                                       "not-reproduced)")


def contradict_seeking_beats_uniform(ms: list[dict]) -> list[dict]:
    return check_seeking_beats_uniform_rule().contradict(ms)


def control_seeking_beats_uniform(ms: list[dict]) -> list[dict]:
    """The salience-guided single pass (no interleaving) wholly in the seeker's place."""
    return control_arm_in_seekers_place(ms, "salient")
