"""Exact checks of the RLHF / DPO dichotomy on finite bandits (arXiv:2505.19770).

What is kept from the paper: its setting (one prompt, finite responses, Bradley-Terry
preferences, KL-regularised value ``V = E_pi r* - beta KL(pi || pi_ref)``), its three
learners under exact optimisation (population losses, all pairs enumerated, offline
pairs ``mu = pi_ref ⊗ pi_ref``), its four conditions on the reward class ``F`` and policy
class ``Pi`` (Sec. 3), and the PILAF sampler for online DPO. Each seed draws fresh
random instances; the statements are checked instance by instance.

* E0, no mis-specification (Prop. 1): tabular ``F`` and ``Pi``, K=6.
* E1, policy class mis-specified (Prop. 2 / Condition 2): tabular ``F``, log-linear ``Pi``
  with 1-2 random features; plus a 3-arm strict-gap example built like the paper's
  appendix one (features (1, 0, -1), bad middle arm ``r* = (0, -R, 0)``), over a grid of
  ``R`` and ``beta``. The exact numbers of the paper's example were not recoverable, so
  this instance is ours.
* E2, reward class mis-specified (Prop. 3 / Condition 3): linear ``F`` with 2 random
  features, tabular ``Pi``; plus the same 3-arm example with a 1-feature linear ``F``.
* E3, isomorphic classes, both mis-specified (Condition 4): ``F = {w^T psi}``,
  ``Pi = {pi_ref exp(theta^T psi / beta)}``, ``psi in R^2``, K=8, ``r* ~ N(0, 1)``, beta=1;
  online DPO with the PILAF sampler (exact population gradients, lr 0.5, from ``pi_ref``)
  against RLHF, DPO and the best policy in the class. Control: the same online DPO with
  plain on-policy pairs ``pi_theta x pi_theta`` (the naive online sampler), so that the gain
  of PILAF itself is measured, not only the gain of being online. Also reported: PILAF's
  two pair sources mixed half and half, and a near-class variant ``r* = Psi w + 0.2 xi``
  (E3-local) where PILAF's first-order gradient argument applies.
* E4, sparse reward, finite samples (Sec. 4): rebuilt, not the paper's construction
  (which we could not recover): K=400 responses, reward features ``Psi`` in R^100, a
  3-sparse ``r* = Psi w*``; the policy class is log-linear in ``Phi = [Psi Q, N]`` (``Q`` a random
  rotation, ``N`` 300 Gaussian features that r* does not use), so r* is in the policy class but
  dense there (``theta* = (Q^T w*, 0)``), and the policy class holds every policy over the 400
  responses. ``n`` comparisons drawn from ``pi_ref``. Each learner is fitted with each penalty
  family, chosen by 5-fold CV: RLHF's BT fit on the reward features (then the exact policy step),
  DPO's fit of its implicit reward on the policy features. The verdict needs RLHF ahead under
  the same family for l1 and for l2, and against DPO's better family (the l2-DPO control).
  Metric: ``V(pi*) - V(pi_hat)``.
"""

from __future__ import annotations

import warnings

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_p, sign_test

from .method import (best_policy_in_class, dpo, fit_bt_from_samples, log_linear_policy, online_dpo,
                     optimal_policy, rlhf, value)
from .setting import random_instance, sample_comparisons, sparse_instance, three_arm_example

STRICT = 1e-3   # "strictly better" margin on V (reward units)
EXACT = 1e-6    # tolerance for equalities claimed by the propositions
GATE_GRAD = 1e-6  # online DPO counts as solved when its fixed-point gradient is below this


# ----------------------------------------------------------------------------- experiments
def _e0(rng, n, K, betas):
    dev = {"rlhf": [], "dpo": [], "online": []}
    eye = np.eye(K)
    for i in range(n):
        beta = betas[i % len(betas)]
        r, pr = random_instance(rng, K)
        v_star = value(optimal_policy(r, pr, beta), r, pr, beta)
        dev["rlhf"].append(abs(value(rlhf(r, eye, eye, pr, beta)["pi"], r, pr, beta) - v_star))
        dev["dpo"].append(abs(value(dpo(r, eye, pr, beta)["pi"], r, pr, beta) - v_star))
        dev["online"].append(abs(value(online_dpo(r, eye, pr, beta)["pi"], r, pr, beta) - v_star))
    return {f"e0_dev_{k}": v for k, v in dev.items()}


def _e1(rng, n, K, betas, dims):
    diff, vd, eye = [], [], np.eye(K)
    for i in range(n):
        beta, m = betas[i % len(betas)], dims[i % len(dims)]
        r, pr = random_instance(rng, K)
        Phi = rng.normal(size=(K, m))
        v_rlhf = value(rlhf(r, eye, Phi, pr, beta, rng=rng)["pi"], r, pr, beta)
        v_dpo = value(dpo(r, Phi, pr, beta)["pi"], r, pr, beta)
        diff.append(v_rlhf - v_dpo)
        vd.append(v_dpo)
    return {"e1_rlhf_minus_dpo": diff, "e1_v_dpo": vd}


def _e2(rng, n, K, betas, dim):
    diff, dpo_dev, rl_dev, eye = [], [], [], np.eye(K)
    for i in range(n):
        beta = betas[i % len(betas)]
        r, pr = random_instance(rng, K)
        Psi = rng.normal(size=(K, dim))
        v_rlhf = value(rlhf(r, Psi, None, pr, beta)["pi"], r, pr, beta)  # tabular Pi: closed form
        v_dpo = value(dpo(r, eye, pr, beta)["pi"], r, pr, beta)
        v_star = value(optimal_policy(r, pr, beta), r, pr, beta)
        diff.append(v_dpo - v_rlhf)
        dpo_dev.append(abs(v_dpo - v_star))
        rl_dev.append(abs(v_rlhf - v_star))
    return {"e2_dpo_minus_rlhf": diff, "e2_dev_dpo": dpo_dev, "e2_dev_rlhf": rl_dev}


def _three_arm(Rs, betas):
    """The 3-arm strict-gap example: features (1, 0, -1), r* = (0, -R, 0), pi_ref uniform."""
    out = {"ex_R": [], "ex_beta": [], "ex1_dpo_theta": [], "ex1_rlhf_bad_mass": [],
           "ex1_rlhf_minus_dpo": [], "ex2_rlhf_w": [], "ex2_dpo_minus_rlhf": []}
    for R in Rs:
        for beta in betas:
            rs, psi, pu = three_arm_example(R)
            d = dpo(rs, psi, pu, beta)
            rl = rlhf(rs, np.eye(3), psi, pu, beta, rng=np.random.default_rng(0))
            out["ex_R"].append(R)
            out["ex_beta"].append(beta)
            out["ex1_dpo_theta"].append(float(abs(d["theta"][0])))
            out["ex1_rlhf_bad_mass"].append(float(rl["pi"][1]))
            out["ex1_rlhf_minus_dpo"].append(value(rl["pi"], rs, pu, beta) - value(d["pi"], rs, pu, beta))
            # Condition 3 version: 1-feature linear reward class, tabular policy class
            rl2 = rlhf(rs, psi, None, pu, beta)
            d2 = dpo(rs, np.eye(3), pu, beta)
            out["ex2_rlhf_w"].append(float(abs(rl2["w"][0])))
            out["ex2_dpo_minus_rlhf"].append(value(d2["pi"], rs, pu, beta) - value(rl2["pi"], rs, pu, beta))
    return out


def _e3(rng, n, K, dim, beta, lr, steps):
    out = {k: [] for k in ("e3_rlhf_minus_dpo", "e3_online_minus_best_offline",
                           "e3_half_minus_best_offline", "e3_onpolicy_minus_best_offline",
                           "e3_pilaf_minus_onpolicy", "e3_inclass_minus_best_offline",
                           "e3_v_rlhf", "e3_v_dpo", "e3_v_online", "e3_v_inclass", "e3_grad_norm")}
    pu = np.ones(K) / K
    for _ in range(n):
        r = rng.normal(size=K)
        Psi = rng.normal(size=(K, dim))
        V = lambda p: value(p, r, pu, beta)  # noqa: E731
        v_rlhf = V(rlhf(r, Psi, Psi, pu, beta, rng=rng)["pi"])
        v_dpo = V(dpo(r, Psi, pu, beta)["pi"])
        on = online_dpo(r, Psi, pu, beta, sampler="pilaf", lr=lr, steps=steps)
        hf = online_dpo(r, Psi, pu, beta, sampler="pilaf-half", lr=lr, steps=steps)
        op = online_dpo(r, Psi, pu, beta, sampler="on-policy", lr=lr, steps=steps)
        v_in = V(log_linear_policy(best_policy_in_class(r, Psi, pu, beta, rng=rng), Psi, pu, beta))
        best_off = max(v_rlhf, v_dpo)
        out["e3_rlhf_minus_dpo"].append(v_rlhf - v_dpo)
        out["e3_online_minus_best_offline"].append(V(on["pi"]) - best_off)
        out["e3_half_minus_best_offline"].append(V(hf["pi"]) - best_off)
        out["e3_onpolicy_minus_best_offline"].append(V(op["pi"]) - best_off)
        out["e3_pilaf_minus_onpolicy"].append(V(on["pi"]) - V(op["pi"]))
        out["e3_inclass_minus_best_offline"].append(v_in - best_off)
        out["e3_v_rlhf"].append(v_rlhf)
        out["e3_v_dpo"].append(v_dpo)
        out["e3_v_online"].append(V(on["pi"]))
        out["e3_v_inclass"].append(v_in)
        out["e3_grad_norm"].append(max(on["grad_norm"], hf["grad_norm"], op["grad_norm"]))
    return out


def _e3_local(rng, n, K, dim, beta, eps, lr, steps):
    """E3 near the class: ``r* = Psi w + eps xi``, where PILAF's first-order argument applies.

    Reports the share of the in-class headroom ``V(best in class) - V_RLHF`` that online DPO
    captures with PILAF and with on-policy pairs."""
    out = {k: [] for k in ("e3l_headroom", "e3l_share_pilaf", "e3l_share_onpolicy", "e3l_pilaf_minus_onpolicy",
                           "e3l_grad_norm")}
    pu = np.ones(K) / K
    for _ in range(n):
        Psi = rng.normal(size=(K, dim))
        r = Psi @ rng.normal(size=dim) + eps * rng.normal(size=K)
        V = lambda p: value(p, r, pu, beta)  # noqa: E731
        v_rlhf = V(rlhf(r, Psi, Psi, pu, beta, rng=rng)["pi"])
        v_in = V(log_linear_policy(best_policy_in_class(r, Psi, pu, beta, rng=rng), Psi, pu, beta))
        on = online_dpo(r, Psi, pu, beta, sampler="pilaf", lr=lr, steps=steps)
        op = online_dpo(r, Psi, pu, beta, sampler="on-policy", lr=lr, steps=steps)
        v_on, v_op = V(on["pi"]), V(op["pi"])
        head = max(v_in - v_rlhf, 1e-300)
        out["e3l_headroom"].append(v_in - v_rlhf)
        out["e3l_share_pilaf"].append((v_on - v_rlhf) / head)
        out["e3l_share_onpolicy"].append((v_op - v_rlhf) / head)
        out["e3l_pilaf_minus_onpolicy"].append(v_on - v_op)
        out["e3l_grad_norm"].append(max(on["grad_norm"], op["grad_norm"]))
    return out


def _e4(rng, ns, K, d, k, beta, extra):
    inst = sparse_instance(rng, K, d, k, extra)
    Psi, Phi, r = inst["Psi"], inst["Phi"], inst["r_star"]
    pr = np.ones(K) / K
    v_star = value(optimal_policy(r, pr, beta), r, pr, beta)
    learners = {  # key: (features, penalty); scores of the learned policy are features @ coef
        "e4_gap_rlhf": (Psi, "l1"),     # sparse reward model on the reward features, exact policy step
        "e4_gap_dpo": (Phi, "l1"),      # the same l1 fit of DPO's implicit reward on the policy features
        "e4_gap_rlhf_l2": (Psi, "l2"),  # both learners again with the l2 penalty (same family for both)
        "e4_gap_dpo_l2": (Phi, "l2"),
    }
    gaps = {m: [] for m in learners}
    for n in ns:
        a, b, y = sample_comparisons(rng, r, n)
        for m, (F, pen) in learners.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # liblinear/lbfgs convergence chatter at extreme C
                coef = fit_bt_from_samples(F[a] - F[b], y, pen)
            gaps[m].append(v_star - value(optimal_policy(F @ coef, pr, beta), r, pr, beta))
    return {"e4_n": list(ns), **gaps}


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    p = profile
    betas = list(p["betas"])
    m: dict = {}
    m.update(_e0(rng, p["n_e0"], p["K"], betas))
    m.update(_e1(rng, p["n_e1"], p["K"], betas, list(p["policy_dims"])))
    m.update(_e2(rng, p["n_e2"], p["K"], betas, p["reward_dim"]))
    m.update(_three_arm(list(p["ex_R"]), list(p["ex_betas"])))
    m.update(_e3(rng, p["n_e3"], p["K_iso"], p["iso_dim"], p["iso_beta"], p["lr"], p["steps"]))
    m.update(_e4(rng, list(p["sparse_n"]), p["sparse_K"], p["sparse_d"], p["sparse_k"], p["sparse_beta"],
                 p["sparse_extra"]))
    m.update(_e3_local(rng, p["n_e3_local"], p["K_iso"], p["iso_dim"], p["iso_beta"], p["local_eps"],
                       p["lr"], p["steps"]))
    return m


# ----------------------------------------------------------------------------- checks
def _pool(ms, key) -> np.ndarray:
    return np.concatenate([np.asarray(m[key], dtype=float) for m in ms])


def check_well_specified_equal(ms) -> Verdict:
    """Prop. 1 (identity): tabular F and Pi -> RLHF and DPO both reach V(pi*) (|dev| < 1e-6 everywhere)."""
    dr, dd, do = _pool(ms, "e0_dev_rlhf"), _pool(ms, "e0_dev_dpo"), _pool(ms, "e0_dev_online")
    ok = dr.max() < EXACT and dd.max() < EXACT
    return Verdict("reproduced" if ok else "not-reproduced",
                   f"max |V-V*|: RLHF {dr.max():.1e}, DPO {dd.max():.1e} (online DPO {do.max():.1e})",
                   f"{dr.size} random instances over {len(ms)} seeds (K=6, beta in {{0.3,1}}); "
                   f"pass iff both maxima < {EXACT:g}", value=float(max(dr.max(), dd.max())))


def contradict_well_specified_equal(ms):
    return [{**m, "e0_dev_dpo": [x + 0.1 for x in m["e0_dev_dpo"]]} for m in ms]


def _example_ok(ms, which):
    m = ms[0]
    beta = np.asarray(m["ex_beta"])
    bmin = beta == beta.min()
    if which == 1:
        th = np.asarray(m["ex1_dpo_theta"])
        gap = np.asarray(m["ex1_rlhf_minus_dpo"])
        bad = np.asarray(m["ex1_rlhf_bad_mass"])
        ok = th.max() < EXACT and gap.min() > -EXACT and gap[bmin].min() > STRICT and bad[bmin].max() < 0.05
        txt = (f"3-arm example: max|theta_DPO|={th.max():.1e} over {th.size} (R,beta); RLHF-DPO gap "
               f"min {gap.min():.2g}, at beta={beta.min():g} min {gap[bmin].min():.3g}; "
               f"RLHF mass on bad arm at beta={beta.min():g} <= {bad[bmin].max():.2g} (DPO: 1/3)")
    else:
        w = np.asarray(m["ex2_rlhf_w"])
        gap = np.asarray(m["ex2_dpo_minus_rlhf"])
        ok = w.max() < EXACT and gap.min() > STRICT
        txt = (f"3-arm example: max|w_RLHF|={w.max():.1e} (RLHF stays at pi_ref), DPO-RLHF gap "
               f"min {gap.min():.3g} over {gap.size} (R,beta)")
    return ok, txt


def _dominance(ms, key, name):
    d = _pool(ms, key)
    never_worse = d.min() > -EXACT
    frac = float(np.mean(d > STRICT))
    return d, never_worse, frac, (f"{name}: min {d.min():.2g}, median {np.median(d):.3g}, "
                                  f"strictly better (>{STRICT:g}) in {frac:.0%} of {d.size}")


def check_rlhf_wins_policy_misspec(ms) -> Verdict:
    """Prop. 2: V_RLHF >= V_DPO - 1e-6 in every instance, > +1e-3 in >= 50%, and the strict example.

    The control is DPO itself on the same classes: substituted for RLHF, every difference is 0.
    """
    d, nw, frac, txt = _dominance(ms, "e1_rlhf_minus_dpo", "V_RLHF - V_DPO")
    ex_ok, ex_txt = _example_ok(ms, 1)
    ok = nw and frac >= 0.5 and ex_ok
    partly = nw and (frac > 0 or ex_ok)
    vd = _pool(ms, "e1_v_dpo")
    return Verdict("reproduced" if ok else ("partly" if partly else "not-reproduced"),
                   f"{txt}; {ex_txt}",
                   f"{d.size} random instances (K=6, tabular F, 1-2 feature log-linear Pi) over "
                   f"{len(ms)} seeds; pass iff never worse (tol {EXACT:g}), strictly better in >= 50%, "
                   "and in the 3-arm example DPO's theta = 0 for all (R,beta) while RLHF beats it by "
                   f">{STRICT:g} and puts < 5% on the bad arm at the smallest beta",
                   value=float(np.median(d)),
                   control=f"DPO on the same classes: median V_DPO {np.median(vd):.3g} (RLHF median "
                           f"{np.median(vd + d):.3g}); bad-arm mass 1/3 in the 3-arm example")


def contradict_rlhf_wins_policy_misspec(ms):
    return [{**m, "e1_rlhf_minus_dpo": [-x for x in m["e1_rlhf_minus_dpo"]],
             "ex1_rlhf_minus_dpo": [-x for x in m["ex1_rlhf_minus_dpo"]]} for m in ms]


def control_rlhf_wins_policy_misspec(ms):
    """RLHF replaced by DPO: every V difference is 0 and the bad arm keeps DPO's 1/3."""
    return [{**m, "e1_rlhf_minus_dpo": [0.0] * len(m["e1_rlhf_minus_dpo"]),
             "ex1_rlhf_minus_dpo": [0.0] * len(m["ex1_rlhf_minus_dpo"]),
             "ex1_rlhf_bad_mass": [1 / 3] * len(m["ex1_rlhf_bad_mass"])} for m in ms]


def check_dpo_wins_reward_misspec(ms) -> Verdict:
    """Prop. 3: V_DPO >= V_RLHF - 1e-6 everywhere, > +1e-3 in >= 50%, DPO reaches V*, strict example.

    The control is RLHF on the same classes: substituted for DPO, every difference is 0.
    """
    d, nw, frac, txt = _dominance(ms, "e2_dpo_minus_rlhf", "V_DPO - V_RLHF")
    dev = _pool(ms, "e2_dev_dpo")
    ex_ok, ex_txt = _example_ok(ms, 2)
    ok = nw and frac >= 0.5 and dev.max() < EXACT and ex_ok
    partly = nw and (frac > 0 or ex_ok)
    rdev = _pool(ms, "e2_dev_rlhf")
    return Verdict("reproduced" if ok else ("partly" if partly else "not-reproduced"),
                   f"{txt}; DPO max |V-V*| {dev.max():.1e}; {ex_txt}",
                   f"{d.size} random instances (K=6, 2-feature linear F, tabular Pi) over {len(ms)} "
                   f"seeds; pass iff never worse (tol {EXACT:g}), strictly better in >= 50%, DPO "
                   f"reaches V* (tol {EXACT:g}), and the 3-arm example shows a gap > {STRICT:g} at every (R,beta)",
                   value=float(np.median(d)),
                   control=f"RLHF on the same classes: median |V_RLHF - V*| {np.median(rdev):.3g}")


def contradict_dpo_wins_reward_misspec(ms):
    return [{**m, "e2_dpo_minus_rlhf": [-x for x in m["e2_dpo_minus_rlhf"]],
             "ex2_dpo_minus_rlhf": [-x for x in m["ex2_dpo_minus_rlhf"]]} for m in ms]


def control_dpo_wins_reward_misspec(ms):
    """DPO replaced by RLHF: every V difference is 0 and DPO's deviation from V* is RLHF's."""
    return [{**m, "e2_dpo_minus_rlhf": [0.0] * len(m["e2_dpo_minus_rlhf"]),
             "ex2_dpo_minus_rlhf": [0.0] * len(m["ex2_dpo_minus_rlhf"]),
             "e2_dev_dpo": list(m["e2_dev_rlhf"])} for m in ms]


def check_isomorphic_equal(ms) -> Verdict:
    """Condition 4 (identity): isomorphic classes -> V_RLHF = V_DPO (|diff| < 1e-6), both mis-specified."""
    d = np.abs(_pool(ms, "e3_rlhf_minus_dpo"))
    v_in, v_rl = _pool(ms, "e3_v_inclass"), _pool(ms, "e3_v_rlhf")
    ok = d.max() < EXACT
    return Verdict("reproduced" if ok else "not-reproduced",
                   f"max |V_RLHF - V_DPO| = {d.max():.1e} over {d.size} instances; best-in-class "
                   f"beats them by {np.median(v_in - v_rl):.3g} (median), so both are mis-specified",
                   f"{len(ms)} seeds, K=8, psi in R^2, beta=1; pass iff max |diff| < {EXACT:g}",
                   value=float(d.max()))


def contradict_isomorphic_equal(ms):
    return [{**m, "e3_rlhf_minus_dpo": [x + 0.05 for x in m["e3_rlhf_minus_dpo"]]} for m in ms]


def _beats_offline(d):
    better, worse = float(np.mean(d > STRICT)), float(np.mean(d < -STRICT))
    p = sign_test(np.where(np.abs(d) > 1e-9, d, 0.0), alternative="greater")
    return better, worse, p, (better >= 0.5 and worse <= 0.2 and p < 0.05)


def check_online_dpo_wins(ms) -> Verdict:
    """Online DPO (PILAF) vs max(RLHF, DPO) in the isomorphic, doubly mis-specified setting.

    Pre-registered (rule unchanged since the on-policy control was added; re-run after the
    PILAF sampler was changed to mix its two pair sources 1 : Z+Z-, the mix derived from
    PILAF's first-order gradient property; PILAF's own probability could not be read): PILAF online
    DPO is strictly better (> 1e-3) than max(RLHF, DPO) in >= 50% of instances, worse by
    > 1e-3 in <= 20%, one-sided sign test p < 0.05; AND it beats the control, online DPO
    with on-policy pairs, by a one-sided sign test over the same instances (p < 0.05, ties
    < 1e-9 dropped) with a positive median difference. ``partly`` if PILAF passes the first
    part but not the comparison with the control (the gain is that of being online, not of
    PILAF), or is strictly better than offline in >= 10% of instances. Reported, not
    deciding: the half-and-half PILAF mix, and the near-class regime ``r* = Psi w + 0.2 xi``
    where PILAF's first-order argument applies (share of the in-class headroom captured by
    PILAF vs on-policy). Gate: every online-DPO run (all samplers, both regimes) reached
    its fixed point, |grad| < 1e-6; otherwise ``not-checkable``.

    Revised after the full run by review (text only, the verdict rule is unchanged): the
    measured text also reports the one-sided sign test for PILAF *behind* the control, and,
    for the near-class regime, the headroom and the PILAF - on-policy difference in V units
    (the shares are ratios over a headroom that is often below the 1e-3 margin).

    Changed by review after the full run (partly -> not-reproduced; the house rule that a claim the
    control passes equally is not reproduced): ``partly`` had been "PILAF beats offline, or is strictly
    better in >= 10%", which the on-policy control meets as well (63% better, 8% worse, p<1e-4, against
    PILAF's 64% / 6%), so the control put in PILAF's place read the same partly. ``partly`` now needs a
    part the control fails: PILAF beats on-policy, or PILAF meets the rule against offline and on-policy
    does not. (This rule change first landed in commit b3b1a9c, whose message describes another claim.)
    """
    gmax = float(max(_pool(ms, "e3_grad_norm").max(), _pool(ms, "e3l_grad_norm").max()))
    if not gmax < GATE_GRAD:
        return Verdict("not-checkable", f"online DPO did not reach its fixed point: max |grad| {gmax:.1e}",
                       f"gate: every online-DPO run must reach |grad| < {GATE_GRAD:g}")
    d = _pool(ms, "e3_online_minus_best_offline")
    hf = _pool(ms, "e3_half_minus_best_offline")
    op = _pool(ms, "e3_onpolicy_minus_best_offline")
    pc = _pool(ms, "e3_pilaf_minus_onpolicy")
    up = _pool(ms, "e3_inclass_minus_best_offline")
    better, worse, p, ok_off = _beats_offline(d)
    cb, cw, cp, c_ok = _beats_offline(op)
    nz = np.abs(pc) > 1e-9
    p_ctl = sign_test(np.where(nz, pc, 0.0), alternative="greater") if nz.any() else 1.0
    beats_ctl = p_ctl < 0.05 and float(np.median(pc)) > 0
    ok = ok_off and beats_ctl
    # changed by review after the full run (partly -> not-reproduced): 'partly' needs a part the control
    # fails. Before: partly = ok_off or better >= 0.1, which the on-policy control meets as well (full run:
    # PILAF better than offline in 64%, worse in 6%; on-policy 63% / 8%, both p<1e-4), while PILAF does
    # not beat on-policy (ahead 41%, behind 59%, p=0.986). Now partly = PILAF beats the control, or PILAF
    # passes the comparison with offline and the control does not.
    partly = beats_ctl or (ok_off and not c_ok) or (not ok_off and better >= 0.1 and cb < 0.1)
    share = float(np.median(d[up > STRICT] / up[up > STRICT])) if np.any(up > STRICT) else float("nan")
    sh_op = float(np.median(op[up > STRICT] / up[up > STRICT])) if np.any(up > STRICT) else float("nan")
    lp, lo = _pool(ms, "e3l_share_pilaf"), _pool(ms, "e3l_share_onpolicy")
    ld = _pool(ms, "e3l_pilaf_minus_onpolicy")
    lnz = np.abs(ld) > 1e-9
    p_loc = sign_test(np.where(lnz, ld, 0.0), alternative="greater") if lnz.any() else 1.0
    p_behind = sign_test(np.where(nz, pc, 0.0), alternative="less") if nz.any() else 1.0
    lh = _pool(ms, "e3l_headroom")
    return Verdict("reproduced" if ok else ("partly" if partly else "not-reproduced"),
                   f"V_online(PILAF) - max(V_RLHF,V_DPO): median {np.median(d):.3g}, better in {better:.0%}, "
                   f"worse in {worse:.0%} of {d.size}; median share of the in-class headroom captured "
                   f"{share:.2f} (on-policy {sh_op:.2f}); PILAF - on-policy: median {np.median(pc):.2g}, PILAF "
                   f"ahead in {np.mean(pc > 1e-9):.0%}, behind in {np.mean(pc < -1e-9):.0%} (sign test for "
                   f"PILAF behind the control {fmt_p(p_behind)}, reported); half-and-half "
                   f"PILAF mix median {np.median(hf):.3g}. Near the class (r* = Psi w + eps xi): share of "
                   f"headroom captured, median PILAF {np.median(lp):.3f} vs on-policy {np.median(lo):.3f}, "
                   f"PILAF ahead in {np.mean(ld > 1e-9):.0%} of {ld.size} (sign test {fmt_p(p_loc)}, reported); "
                   f"in V units the headroom is small (median {np.median(lh):.2g}, below {STRICT:g} in "
                   f"{np.mean(lh < STRICT):.0%}) and PILAF - on-policy has median {np.median(ld):.2g} "
                   f"(added by review after the full run)",
                   f"vs offline: sign test (one-sided) {fmt_p(p)}, n={d.size} instances over {len(ms)} seeds, "
                   f"margin {STRICT:g}, needs better >= 50%, worse <= 20%, p < 0.05: "
                   f"{'met' if ok_off else 'not met'}; the on-policy control "
                   f"{'meets' if c_ok else 'does not meet'} the same rule (better {cb:.0%}, worse {cw:.0%}, "
                   f"{fmt_p(cp)}); PILAF vs on-policy: sign test {fmt_p(p_ctl)} "
                   f"({'beats' if beats_ctl else 'does not beat'} the control); partly needs a part the control "
                   f"fails: PILAF beats on-policy, or PILAF meets the rule vs offline and on-policy does not "
                   f"(changed by review after the full run: partly -> not-reproduced); gate: max |grad| of the "
                   f"online-DPO fixed points {gmax:.1e} < {GATE_GRAD:g}",
                   value=float(np.median(d)),
                   control=f"online DPO with on-policy pairs: V - max(V_RLHF,V_DPO) median {np.median(op):.3g}, "
                           f"better in {cb:.0%}")


def contradict_online_dpo_wins(ms):
    return [{**m, "e3_online_minus_best_offline": [-abs(x) - 0.01 for x in m["e3_online_minus_best_offline"]],
             "e3_pilaf_minus_onpolicy": [-abs(x) - 0.01 for x in m["e3_pilaf_minus_onpolicy"]]}
            for m in ms]


def control_online_dpo_wins(ms):
    """PILAF replaced by on-policy sampling: its gain over offline is the control's, and the
    PILAF-vs-control differences are 0."""
    return [{**m, "e3_online_minus_best_offline": list(m["e3_onpolicy_minus_best_offline"]),
             "e3_pilaf_minus_onpolicy": [0.0] * len(m["e3_pilaf_minus_onpolicy"]),
             "e3l_share_pilaf": list(m["e3l_share_onpolicy"]),
             "e3l_pilaf_minus_onpolicy": [0.0] * len(m["e3l_pilaf_minus_onpolicy"])} for m in ms]


def _n_to_reach(ns, gaps, target):
    """Smallest n (log-linear interpolation on the mean curve) with gap <= target; inf if none."""
    ns, gaps = np.asarray(ns, float), np.asarray(gaps, float)
    if gaps[0] <= target:
        return ns[0]
    for i in range(1, len(ns)):
        if gaps[i] <= target:
            g0, g1 = np.log(gaps[i - 1]), np.log(gaps[i])
            t = (np.log(target) - g0) / (g1 - g0) if g1 != g0 else 1.0
            return float(np.exp(np.log(ns[i - 1]) + t * (np.log(ns[i]) - np.log(ns[i - 1]))))
    return float("inf")


def _family(ns, gr, gd, sel):
    """RLHF (gaps ``gr``: seeds x n) vs DPO (``gd``): per-n win fractions, the sample ratio DPO
    needs to reach RLHF's mean gap at the smallest n, and whether the rule is met."""
    win = (gr < gd).mean(axis=0)
    ratio = _n_to_reach(ns, gd.mean(0), gr.mean(0)[0]) / ns[0]
    ps = [sign_test(gr[:, j] - gd[:, j], alternative="less") for j in range(len(ns))]
    ok = bool(np.all(win[sel] >= 0.8)) and ratio >= 2.0
    rtxt = f">{ns[-1] / ns[0]:.0f}" if not np.isfinite(ratio) else f"{ratio:.1f}"
    return win, ratio, ps, ok, rtxt


def check_sparse_rlhf_fewer_samples(ms) -> Verdict:
    """Sec. 4 (rebuilt): r* is 3-sparse in the reward model's 100 features; the policy class is
    log-linear in the same features rotated (dense there) plus 300 features r* does not use
    (a full-capacity policy class). Both learners are fitted with each penalty family.

    Pre-registered (rule of the re-run for issue 16, committed before the full run): RLHF needs
    fewer samples than DPO under the SAME penalty family, for each family, and also against DPO's
    better family. For each of (a) l1 for both and (b) l2 for both: RLHF's V-gap < DPO's at every
    n <= 400 in >= 80% of seeds, and DPO needs >= 2x the samples to reach RLHF's mean gap at the
    smallest n (mean curves, log-linear interpolation). (c) The l2-DPO control: RLHF (l1) against
    DPO's better penalty per seed and n (min of its l1 and l2 gaps, a choice in DPO's favour), the
    same rule. ``reproduced`` iff (a), (b) and (c); ``partly`` if one or two of them hold, or RLHF
    wins more than half of the same-family (seed, n) cells; else ``not-reproduced``. Training
    gate: every learner's mean gap at the largest n is below its mean gap at the smallest n
    (each learns from data); otherwise ``not-checkable``."""
    ns = np.asarray(ms[0]["e4_n"], float)
    g = {k: np.asarray([m[k] for m in ms], float)
         for k in ("e4_gap_rlhf", "e4_gap_dpo", "e4_gap_rlhf_l2", "e4_gap_dpo_l2")}
    learns = {k: bool(v.mean(0)[-1] < v.mean(0)[0]) for k, v in g.items()}
    if not all(learns.values()):
        bad = ", ".join(k for k, v in learns.items() if not v)
        return Verdict("not-checkable", f"no learning with n for: {bad}",
                       f"gate: each learner's mean gap at n={int(ns[-1])} must be below that at n={int(ns[0])}")
    sel = ns <= 400
    r1, d1, r2, d2 = g["e4_gap_rlhf"], g["e4_gap_dpo"], g["e4_gap_rlhf_l2"], g["e4_gap_dpo_l2"]
    dbest = np.minimum(d1, d2)
    fa, fb, fc = _family(ns, r1, d1, sel), _family(ns, r2, d2, sel), _family(ns, r1, dbest, sel)
    oks = [fa[3], fb[3], fc[3]]
    same_cells = float(np.mean(np.concatenate([(r1 < d1).ravel(), (r2 < d2).ravel()])))
    ok = all(oks)
    partly = any(oks) or same_cells > 0.5

    def _review_note(ns, r1, d1, r2, d2, dbest) -> str:
        """Added by review after the full run (reported, not deciding): the sample ratio with RLHF's mean gap
        at each n as the target instead of only the smallest n, and the two effects the comparisons mix."""
        def ratios(r, d):
            out = []
            for j, n in enumerate(ns):
                q = _n_to_reach(ns, d.mean(0), r.mean(0)[j]) / n
                out.append(f">{ns[-1] / n:.0f}" if not np.isfinite(q) else f"{q:.1f}")
            return "[" + ", ".join(out) + "]"

        def pair(x, y):
            return ", ".join(f"{a:.2f} vs {b:.2f}" for a, b in zip(x.mean(0), y.mean(0)))

        return ("; review after the full run (reported, not deciding): sample ratio DPO needs to reach RLHF's mean "
                f"gap at n = {', '.join(str(int(n)) for n in ns)}: (a) {ratios(r1, d1)}, (b) {ratios(r2, d2)}, "
                f"(c) {ratios(r1, dbest)} (the pre-registered rule reads the first entry); with l2 for both the "
                "rotation is invisible, so (b) "
                "compares 100 with 400 features (a dimension effect, RLHF l2 vs DPO l2: " + pair(r2, d2) + "), not "
                "sparsity (the sparsity effect, RLHF l1 vs RLHF l2: " + pair(r1, r2) + ")")

    def curve(x, y):
        return ", ".join(f"n={int(n)}: {a:.3f} vs {b:.3f}" for n, a, b in zip(ns, x.mean(0), y.mean(0)))

    def rule(name, f):
        return (f"{name}: RLHF wins per-seed fraction by n {np.round(f[0], 2).tolist()}, per-n sign tests "
                f"{', '.join(fmt_p(p) for p in f[2])}, sample ratio {f[4]} ({'met' if f[3] else 'not met'})")

    return Verdict("reproduced" if ok else ("partly" if partly else "not-reproduced"),
                   f"mean V-gap RLHF vs DPO, both l1 ({curve(r1, d1)}); both l2 ({curve(r2, d2)}); "
                   f"RLHF (l1) vs DPO's better penalty per seed ({curve(r1, dbest)}); DPO needs {fa[4]}x "
                   f"(l1), {fb[4]}x (l2), {fc[4]}x (better of the two) the samples to match RLHF at "
                   f"n={int(ns[0])}",
                   f"{len(ms)} seeds; " + "; ".join([rule("(a) both l1", fa), rule("(b) both l2", fb),
                                                      rule("(c) RLHF l1 vs DPO's better penalty", fc)])
                   + f"; pass iff (a), (b), (c) each have win >= 0.8 at every n <= 400 and sample ratio >= 2 "
                     "(our rebuilt construction: r* sparse in the reward features; policy features are "
                     "those rotated plus 300 unused ones; not the paper's construction); gate: every "
                     "learner's mean gap falls from the smallest to the largest n (met)"
                   + _review_note(ns, r1, d1, r2, d2, dbest),
                   value=float(fa[1]) if np.isfinite(fa[1]) else float(ns[-1] / ns[0]),
                   control="DPO with the same penalty family on the policy features: l1 "
                           + ", ".join(f"{b:.3f}" for b in d1.mean(0)) + "; l2 "
                           + ", ".join(f"{b:.3f}" for b in d2.mean(0)) + f" (n = {', '.join(str(int(n)) for n in ns)})")


def contradict_sparse_rlhf_fewer_samples(ms):
    return [{**m, "e4_gap_rlhf": m["e4_gap_dpo"], "e4_gap_dpo": m["e4_gap_rlhf"],
             "e4_gap_rlhf_l2": m["e4_gap_dpo_l2"], "e4_gap_dpo_l2": m["e4_gap_rlhf_l2"]} for m in ms]


def control_sparse_rlhf_fewer_samples(ms):
    """RLHF replaced by DPO with the same penalty family: every comparison is a tie."""
    return [{**m, "e4_gap_rlhf": list(m["e4_gap_dpo"]), "e4_gap_rlhf_l2": list(m["e4_gap_dpo_l2"])}
            for m in ms]


# ----------------------------------------------------------------------------- figure
def figure(ms):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(17, 4))
    ax1, ax2, ax4, ax3 = fig.subplots(1, 4)
    m0 = ms[0]
    beta = np.asarray(m0["ex_beta"])
    R = np.asarray(m0["ex_R"])
    for Rv in sorted(set(R.tolist())):
        s = R == Rv
        ax1.plot(beta[s], np.asarray(m0["ex1_rlhf_bad_mass"])[s], "o-", label=f"RLHF, R={Rv:g}")
    ax1.axhline(1 / 3, color="k", ls="--", label="DPO (uniform, all R)")
    ax1.set_xscale("log")
    ax1.set_xlabel("beta (KL weight)")
    ax1.set_ylabel("probability of the bad arm")
    ax1.set_title("Policy class mis-specified (3-arm example)")
    ax1.legend(fontsize=7)

    d = _pool(ms, "e3_online_minus_best_offline")
    up = _pool(ms, "e3_inclass_minus_best_offline")
    ax2.scatter(up, d, s=12)
    lim = max(up.max(), 1e-3) * 1.05
    ax2.plot([0, lim], [0, lim], "k--", lw=1, label="online = best in class")
    ax2.axhline(0, color="grey", lw=1, label="online = RLHF = DPO")
    ax2.set_xscale("symlog", linthresh=1e-3)
    ax2.set_yscale("symlog", linthresh=1e-3)
    ax2.set_xlabel("best-in-class V - V_RLHF (reward units)")
    ax2.set_ylabel("V_online DPO - V_RLHF (reward units)")
    ax2.set_title("Isomorphic, both mis-specified")
    ax2.legend(fontsize=7)

    sp, so = _pool(ms, "e3l_share_pilaf"), _pool(ms, "e3l_share_onpolicy")
    out = (so < 0.5) | (sp < 0.5)
    ax4.scatter(so[~out], sp[~out], s=12)
    ax4.scatter(np.clip(so[out], 0.5, None), np.clip(sp[out], 0.5, None), s=14, marker="<",
                label=f"share < 0.5, drawn at 0.5 ({int(out.sum())})")
    ax4.plot([0.5, 1.02], [0.5, 1.02], "k--", lw=1, label="PILAF = on-policy")
    ax4.set_xlim(0.5, 1.02)
    ax4.set_ylim(0.5, 1.02)
    ax4.axhline(1, color="grey", lw=1, label="best in class")
    ax4.set_xlabel("on-policy online DPO: share of in-class headroom")
    ax4.set_ylabel("PILAF online DPO: share of in-class headroom")
    ax4.set_title("Near the class (r* = Psi w + 0.2 xi)")
    ax4.legend(fontsize=7)

    ns = np.asarray(m0["e4_n"], float)
    for key, lab in (("e4_gap_rlhf", "RLHF (l1, reward features)"), ("e4_gap_dpo", "DPO (l1, policy features)"),
                     ("e4_gap_rlhf_l2", "RLHF (l2, reward features)"), ("e4_gap_dpo_l2", "DPO (l2, policy features)")):
        g = np.asarray([m[key] for m in ms], float)
        ax3.errorbar(ns, g.mean(0), yerr=g.std(0), marker="o", capsize=3, label=lab)
    ax3.set_xscale("log")
    ax3.set_yscale("log")
    ax3.set_xlabel("number of preference pairs n")
    ax3.set_ylabel("V(pi*) - V(pi_hat) (reward units)")
    ax3.set_title("Sparse reward (Sec. 4, rebuilt)")
    ax3.legend(fontsize=7)
    fig.tight_layout()
    return fig
