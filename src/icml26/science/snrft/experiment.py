"""Small-scale reproduction of SNRFT: channel prediction in an FDFD-solved 2-D room.

Per seed: a scene (room, walls, obstacles of two materials), transmitters and receivers
drawn in free space, local-mean received power from ceviche's FDFD solve (``setting``).
Each arm is trained on the first n pairs of the same pool (n in ``sizes``; NeRF^2-lite also
on 4n for the sample-efficiency claim) with the same optimiser (Adam, cosine schedule),
learning rate, step budget and seed, and scored by test MAE in dB on held-out pairs.

Parts: ``_world`` (scene and data), ``_fit_arms`` (every model at every size),
``_reciprocity`` (swap Tx and Rx on the test pairs).
"""

from __future__ import annotations

import numpy as np

from icml26.core.checks import threshold
from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.science.snrft import method as M
from icml26.science.snrft.setting import Dataset, make_dataset, make_scene

ARMS = ("snrft", "material", "nerf2", "mlp", "logdist")
LABELS = {"snrft": "SNRFT (neural mu + rho)", "material": "tracer, per-material scalars",
          "nerf2": "NeRF2-lite", "mlp": "MLP (Tx, Rx) -> dB", "logdist": "log-distance fit"}


def _world(profile: Profile, seed: int):
    scene = make_scene(seed, L=float(profile["L"]), ppw=int(profile["ppw"]), n_obstacles=int(profile["n_obstacles"]))
    n_pool = 4 * max(profile["sizes"]) + int(profile["n_test"])
    data = make_dataset(scene, int(profile["n_tx"]), n_pool, seed)
    n_test = int(profile["n_test"])
    return scene, data.take(slice(0, len(data) - n_test)), data.take(slice(len(data) - n_test, None))


def _model(arm: str, scene, profile: Profile):
    w, order, S = int(profile["width"]), int(profile["order"]), int(profile["n_samples"])
    if arm == "snrft":
        return M.SNRFT(scene.L, order=order, n_samples=S, width=w)
    if arm == "material":
        return M.MaterialTracer(scene.L, scene.obstacles, order=order, n_samples=S)
    if arm == "nerf2":
        return M.NeRF2Lite(scene.L, n_dirs=int(profile["nerf_dirs"]), n_samples=int(profile["nerf_samples"]), width=w)
    return M.PairMLP(scene.L, width=w)


def _fit_one(arm: str, scene, train: Dataset, test: Dataset, profile: Profile, seed: int):
    """(test MAE, train MAE, model) of one arm trained on ``train``."""
    if arm == "logdist":
        p = M.log_distance_fit(train.tx, train.rx, train.db)
        return (float(np.mean(np.abs(M.log_distance_predict(p, test.tx, test.rx) - test.db))),
                float(np.mean(np.abs(M.log_distance_predict(p, train.tx, train.rx) - train.db))), None)
    model = _model(arm, scene, profile)
    M.train(model, train.tx, train.rx, train.db, steps=int(profile["steps"]), lr=float(profile["lr"]),
            batch=int(profile["batch"]), seed=seed)
    return (float(np.mean(np.abs(M.predict(model, test.tx, test.rx) - test.db))),
            float(np.mean(np.abs(M.predict(model, train.tx, train.rx) - train.db))), model)


def _fit_arms(scene, pool: Dataset, test: Dataset, profile: Profile, seed: int) -> tuple[dict, dict]:
    out: dict = {f"{k}/{a}": [] for k in ("mae", "train_mae", "train_ratio") for a in ARMS}
    out["mae_4n/nerf2"] = []
    models = {}
    for k, n in enumerate(profile["sizes"]):
        train = pool.take(slice(0, n))
        res = {a: _fit_one(a, scene, train, test, profile, seed * 100 + k) for a in ARMS}
        for a, (mae, tr, model) in res.items():
            out[f"mae/{a}"].append(mae)
            out[f"train_mae/{a}"].append(tr)
            out[f"train_ratio/{a}"].append(tr / res["logdist"][1])
            models[(a, n)] = model
        mae4, _, _ = _fit_one("nerf2", scene, pool.take(slice(0, 4 * n)), test, profile, seed * 100 + k)
        out["mae_4n/nerf2"].append(mae4)
        out[f"sample/snrft_n{k}"] = res["snrft"][0]
        out[f"sample/nerf2_4n{k}"] = mae4
    return out, models


def _reciprocity(models: dict, test: Dataset, n: int) -> dict:
    return {f"recip/{a}": M.reciprocity_gap(models[(a, n)], test.tx, test.rx)
            for a in ("snrft", "material", "nerf2", "mlp")}


def run(profile: Profile, seed: int) -> dict:
    seed_everything(seed)
    scene, pool, test = _world(profile, seed)
    fits, models = _fit_arms(scene, pool, test, profile, seed)
    return {**fits, **_reciprocity(models, test, int(profile["sizes"][-1])),
            "sizes": [int(n) for n in profile["sizes"]], "test_db_std": float(np.std(test.db)),
            "n_obstacles": len(scene.obstacles)}


# ----------------------------------------------------------------------------- reciprocity (identity)
_RECIP = threshold("recip/snrft", at_most=1e-4, label="SNRFT reciprocity gap (dB)")


def check_reciprocity(ms: list[dict]) -> Verdict:
    v = _RECIP(ms)
    gaps = ", ".join(f"{a} {np.mean([m[f'recip/{a}'] for m in ms]):.3g} dB" for a in ("material", "nerf2", "mlp"))
    return Verdict(v.status, v.measured + f"; controls' mean gaps: {gaps}", v.evidence, value=v.value, ci=v.ci)


def contradict_reciprocity(ms: list[dict]) -> list[dict]:
    return _RECIP.contradict(ms)


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.4))
    ax, bx = fig.subplots(1, 2)
    sizes = metrics[0]["sizes"]
    for a in ARMS:
        v = np.array([m[f"mae/{a}"] for m in metrics])
        ax.errorbar(sizes, v.mean(0), yerr=v.std(0), marker="o", capsize=3, label=LABELS[a])
    v4 = np.array([m["mae_4n/nerf2"] for m in metrics])
    ax.plot([4 * n for n in sizes], v4.mean(0), "k--", marker="x", label="NeRF2-lite at 4n")
    ax.set_xscale("log")
    ax.set_xlabel("training pairs n")
    ax.set_ylabel("test MAE of local-mean power (dB)")
    ax.legend(fontsize=6)
    arms = ("snrft", "material", "nerf2", "mlp")
    gaps = [np.mean([m[f"recip/{a}"] for m in metrics]) for a in arms]
    bx.bar(range(len(arms)), np.maximum(gaps, 1e-12))
    bx.set_yscale("log")
    bx.set_xticks(range(len(arms)), [a for a in arms])
    bx.set_xlabel("model")
    bx.set_ylabel("reciprocity gap |P(a->b) - P(b->a)| (dB)")
    fig.suptitle(f"snrft: FDFD room, {len(metrics)} seeds")
    fig.tight_layout()
    return fig


def EXAMPLES() -> list[tuple]:
    """Good calls of the public API, for the common bad-input test."""
    return M.examples()


# ----------------------------------------------------------------------------- real testbeds (not checkable)
def check_real_testbeds(ms: list[dict]) -> Verdict:
    """Not decidable without the paper's testbeds; shows the simulated analogue (largest n)."""
    mean = {a: float(np.mean([m[f"mae/{a}"][-1] for m in ms])) for a in ARMS}
    best = min((a for a in ARMS if a != "snrft"), key=mean.get)
    return Verdict("not-checkable", f"simulated analogue at the largest n: SNRFT {mean['snrft']:.3g} dB vs best "
                   f"control ({best}) {mean[best]:.3g} dB test MAE",
                   "real RF testbeds and sensing tasks are not available to us")


def contradict_real_testbeds(ms: list[dict]) -> list[dict]:
    return list(ms)
