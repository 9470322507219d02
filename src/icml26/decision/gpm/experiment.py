"""Small-scale reproduction of GPM (ICML 2026, OpenReview XnK6Jr0i8D) on synthetic item banks.

Kept from the paper and the authors' training code: adaptive testing as subset selection; a
policy that reads the examinee's responses over the whole bank and scores every item; the
selection layer (Gumbel-softmax over squared distances to the policy's target difficulty);
one unrolled inner gradient step per selection and the gradient-path loss (selected vs full
bank gradients at the stepped ability) driving the policy; item difficulties and the start
ability learned jointly; ACC/AUC on held-out responses; baselines Random, maximum Fisher
information (MFI), KL information (KLI) and BECAT (the BECAT paper's label-pair weights, the first
item at random as in EduCAT's test script); ``becat_educat`` (reported only) is BECAT with the
label-pair weights of the EduCAT code.

Each seed, for each bank (``setting``), runs:

* ``train``: GPM on 80/20 candidate/held-out splits of the training examinees, and the
  training gate (the trained policy's path loss on the test examinees, averaged over 4 paired
  evaluation passes, is below an untrained policy's by a stated factor); reported beside it
  (deciding nothing): the same ratio for a greedy oracle that knows the responses, asking its item
  directly and through GPM's selection layer (``train/gate_oracle_exact``, ``train/gate_oracle``:
  a greedy reference for what the layer lets a policy reach, not a strict bound), and the gate of
  a GPM trained under the released code's protocol (``profile["protocol_report"]``, ``train/gate_protocol``;
  since the seventh session the quick profile runs it and the full profile does not);
* ``known_parameter_protocol``: every selector with the true item parameters and MAP
  estimates; MSE to the true ability at every length; questions GPM needs to reach a
  baseline's length-L accuracy vs the questions that baseline needs itself (the control);
* ``heldout_protocol`` (the authors' protocol): every selector on the test examinees'
  candidate items, with GPM's learned intercepts and start ability and the code's 10-step
  gradient estimator; ACC and AUC on the held-out responses at length L.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile
from icml26.core.stats import series_of
from icml26.decision.gpm.setting import make_bank, questions_to_reach, simulate, split_heldout

METHODS = ("random", "mfi", "kli", "becat", "gpm", "gpm_code", "becat_educat")
BASELINES = ("random", "mfi", "kli", "becat")  # becat_educat (EduCAT's label-pair weights) is reported only
SETTINGS = {"irt1d": 1, "mirt3d": 3}
GATE_DRAWS = 4  # evaluation passes (Gumbel streams) averaged by the training gate


def _selectors(M, model, a, c, y, sel_rng, gen):
    return {
        "random": lambda th, av, info, S, t: M.select_random(av, sel_rng),
        "mfi": lambda th, av, info, S, t: M.select_mfi(th, a, c, av, info),
        "kli": lambda th, av, info, S, t: M.select_kli(th, a, c, av, t),
        "becat": lambda th, av, info, S, t: M.select_becat(th, a, c, av, S, sel_rng),
        "gpm": lambda th, av, info, S, t: M.select_gpm(model["nearest"], a, y, S, av, gen),
        "gpm_code": lambda th, av, info, S, t: M.select_gpm(model["farthest"], a, y, S, av, gen),
        # last, so the other methods' random streams do not move
        "becat_educat": lambda th, av, info, S, t: M.select_becat(th, a, c, av, S, sel_rng, weights="educat"),
    }


def train(profile: Profile, a, Y_train, Y_test, rng, seed: int, choice: str, protocol: str | None = None,
          oracle: bool = False):
    """GPM on the training examinees, and the gate's numbers on the test examinees.

    ``protocol`` (default: the profile's ``protocol``) is ``train_gpm``'s training protocol; with
    ``oracle`` the greedy oracle's path loss (``oracle_path_loss``, through the selection layer and
    not) is measured on the same Gumbel draws and reported as untrained / oracle (decides nothing)."""
    import torch

    from icml26.decision.gpm import method as M

    cand, held = split_heldout(Y_train.shape[0], a.shape[0], rng)
    L = int(profile["test_length"])
    iters = int(profile["train_iters"] if choice == "nearest" else profile["train_iters_code"])
    model = M.train_gpm(a, Y_train, cand, held, T=L, iters=iters,
                        batch=int(profile["batch"]), eta=float(profile["eta_inner"]),
                        policy_lr=float(profile["policy_lr"]), model_lr=float(profile["model_lr"]),
                        hidden=int(profile["hidden"]), seed=seed, choice=choice,
                        protocol=str(protocol if protocol is not None else profile.get("protocol", "ours")))
    cand_t, _ = split_heldout(Y_test.shape[0], a.shape[0], np.random.default_rng([seed, 99]))
    torch.manual_seed(seed + 1)
    untrained = M.make_policy(a.shape[0], int(profile["hidden"]))
    kw = dict(a=a, c=model.c, theta0=model.theta0, Y=Y_test, cand=cand_t, T=L, eta=float(profile["eta_inner"]),
              choice=choice)
    # The path loss of one pass is a noisy number (the Gumbel draws decide most picks): the gate
    # averages both policies over GATE_DRAWS paired draws; the first draw alone (the old gate) is kept.
    pl_un = [M.path_loss_of(untrained, seed=seed + e, **kw) for e in range(GATE_DRAWS)]
    pl_tr = [M.path_loss_of(model.policy, seed=seed + e, **kw) for e in range(GATE_DRAWS)]
    out = {"gate": float(np.mean(pl_un) / np.mean(pl_tr)), "gate_single": pl_un[0] / pl_tr[0],
           "loss_ratio": model.loss_ratio, "losses": model.losses,
           "bce_first": model.heldout_bce[0], "bce_last": model.heldout_bce[-1]}
    if oracle:
        okw = {k: v for k, v in kw.items() if k != "choice"}
        for key, through in (("gate_oracle", True), ("gate_oracle_exact", False)):
            if through:
                pl_or = [M.oracle_path_loss(seed=seed + e, through_layer=True, **okw) for e in range(GATE_DRAWS)]
            else:
                # the seed only draws the selection layer's Gumbel noise, which the direct oracle never uses:
                # its GATE_DRAWS passes are one and the same number, computed once
                pl_or = [M.oracle_path_loss(seed=seed, through_layer=False, **okw)] * GATE_DRAWS
            out[key] = float(np.mean(pl_un) / np.mean(pl_or))
    return model, out


def known_parameter_protocol(profile: Profile, model, a, c, theta_star, Y_test, seed: int, d: int) -> dict:
    """MSE to the true ability with the true item parameters and MAP estimates."""
    import torch

    from icml26.decision.gpm import method as M

    L = int(profile["test_length"])
    sel_rng = np.random.default_rng([seed, d, 1])
    gen = torch.Generator().manual_seed(seed * 7 + d)
    out = {}
    for meth, fn in _selectors(M, model, a, c, Y_test, sel_rng, gen).items():
        est = M.run_cat(fn, Y_test, a, c, L)
        out[meth] = ((est - theta_star[:, None]) ** 2).mean(axis=(0, 2))
    return out


def heldout_protocol(profile: Profile, model, a, Y_test, seed: int, d: int) -> dict:
    """The authors' protocol: learned model, 10-step gradient estimator, ACC/AUC on held-out items."""
    import torch

    from icml26.decision.gpm import method as M

    L = int(profile["test_length"])
    cand, held = split_heldout(Y_test.shape[0], a.shape[0], np.random.default_rng([seed, d, 2]))
    c_hat = model["nearest"].c
    sel_rng = np.random.default_rng([seed, d, 3])
    gen = torch.Generator().manual_seed(seed * 11 + d)
    eta = float(profile["eta_inner"])

    def estimator(y, mask):
        return M.gd_estimate(y, mask, a, c_hat, model["nearest"].theta0, eta=eta, steps=10)

    out = {}
    for meth, fn in _selectors(M, model, a, c_hat, Y_test, sel_rng, gen).items():
        est = M.run_cat(fn, Y_test, a, c_hat, L, avail0=cand, estimator=estimator)
        out[meth] = M.heldout_scores(est[:, -1], Y_test, held, a, c_hat)
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch

    from icml26.core.seeding import seed_everything

    seed_everything(seed)
    torch.set_num_threads(1)
    L = int(profile["test_length"])
    out: dict = {}
    for name, d in SETTINGS.items():
        rng = np.random.default_rng([seed, d])
        a, c = make_bank(int(profile["n_items"]), d, rng)
        _, Y_train = simulate(a, c, int(profile["n_train"]), rng)
        theta_star, Y_test = simulate(a, c, int(profile["n_test"]), rng)
        model = {}
        for choice, tag in (("nearest", ""), ("farthest", "_code")):
            model[choice], tr = train(profile, a, Y_train, Y_test, np.random.default_rng([seed, d, 5]), seed, choice,
                                      oracle=choice == "nearest")
            for k, v in tr.items():
                out[f"train/{k}{tag}_{name}"] = v
        # the released code's training protocol (soft mask, held-out loss, finite-difference term), reported only
        report = profile.get("protocol_report")
        if report:
            _, tr = train(profile, a, Y_train, Y_test, np.random.default_rng([seed, d, 5]), seed, "nearest",
                          protocol=str(report))
            for k in ("gate", "loss_ratio"):
                out[f"train/{k}_protocol_{name}"] = tr[k]
        mse = known_parameter_protocol(profile, model, a, c, theta_star, Y_test, seed, d)
        for meth, curve in mse.items():
            out[f"mse_{meth}_{name}"] = curve.tolist()
        scores = heldout_protocol(profile, model, a, Y_test, seed, d)
        for meth, (acc, auc) in scores.items():
            out[f"acc_{meth}_{name}"], out[f"auc_{meth}_{name}"] = acc, auc
        target_becat = float(mse["becat"][-1])
        best = min(BASELINES, key=lambda b: float(mse[b][-1]))
        target_best = float(mse[best][-1])
        out[f"q_gpm_to_becat_{name}"] = questions_to_reach(mse["gpm"], target_becat) / L
        out[f"q_becat_to_becat_{name}"] = questions_to_reach(mse["becat"], target_becat) / L
        out[f"q_gpm_to_best_{name}"] = questions_to_reach(mse["gpm"], target_best) / L
        out[f"q_best_to_best_{name}"] = questions_to_reach(mse[best], target_best) / L
    # series over the two banks, for the declarative checks
    names = list(SETTINGS)
    for key in ("q_gpm_to_becat", "q_becat_to_becat", "q_gpm_to_best", "q_best_to_best", "train/gate",
                "train/gate_code", "train/gate_single", "train/gate_single_code", "train/gate_oracle",
                "train/gate_oracle_exact", "train/gate_protocol"):
        if f"{key}_{names[0]}" in out:
            out[f"{key}"] = [out[f"{key}_{n}"] for n in names]
    for meth in METHODS:
        out[f"auc/{meth}"] = [out[f"auc_{meth}_{n}"] for n in names]
        out[f"acc/{meth}"] = [out[f"acc_{meth}_{n}"] for n in names]
        out[f"mse_tail/{meth}"] = [v for n in names for v in out[f"mse_{meth}_{n}"][2:]]
    return out


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 4))
    for j, name in enumerate(SETTINGS):
        ax = fig.add_subplot(1, 3, j + 1)
        for meth in METHODS:
            s = series_of(metrics, f"mse_{meth}_{name}")
            x = np.arange(1, s.shape[1] + 1)
            ax.plot(x, s.mean(0), marker="o", ms=3, label=meth.upper() if meth != "random" else "Random")
        ax.set_yscale("log")
        ax.set_xlabel("test length (questions)")
        ax.set_ylabel("MSE of ability estimate vs true ability (logit units^2)")
        ax.set_title(f"{'1-D 2PL' if name == 'irt1d' else '3-D MIRT'} bank, true parameters (seed mean)")
        ax.legend(fontsize=7)
    ax = fig.add_subplot(1, 3, 3)
    x = np.arange(len(SETTINGS))
    width = 0.8 / len(METHODS)
    for k, meth in enumerate(METHODS):
        auc = series_of(metrics, f"auc/{meth}")
        ax.bar(x + k * width, auc.mean(0), width, label=meth.upper() if meth != "random" else "Random")
    ax.set_xticks(x + 0.4 - width / 2)
    ax.set_xticklabels(list(SETTINGS))
    lo = min(float(series_of(metrics, f"auc/{m}").min()) for m in METHODS)
    ax.set_ylim(max(0.5, lo - 0.02), None)
    ax.set_ylabel("held-out AUC at test length L")
    ax.set_xlabel("bank")
    ax.set_title("authors' protocol: learned model, held-out responses")
    ax.legend(fontsize=7)
    return fig
