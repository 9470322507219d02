"""PerContrast / PerCE reproduction (arXiv:2603.06595) on a TinyLM trained from scratch on synthetic personalised text.

One seed:

1. ``setting.make_world``: users split into training and held-out users; examples of the
   ``recommend`` family (A) for training and testing, and of the ``review`` family (B) for the
   cross-task test; the personal tokens of every response are known. ``profile_dropout`` of
   the training examples come without their profile (``setting.drop_profile``).
2. ``base``: a TinyLM trained with plain CE on A (lr with a cosine decay over ``base_steps``)
   until its validation slot accuracy reaches ``base_target`` (at most ``base_steps`` steps; the shared starting point,
   standing in for the pretrained LLM the paper fine-tunes; also the CE warm-up the bootstrap
   needs). Its held-out loss before and after is the training gate.
3. ``arms``: from a copy of the base, ``steps`` more steps of each scheme at learning rate
   ``lr`` (same batches, same schedule): CE, PerCE (PerContrast weights re-estimated every step,
   profile masked), random weights with PerCE's distribution, loss-ratio weights (Rho-1/focal
   style), oracle weights on the true personal tokens (upper reference), and optionally
   (``perce_delete``) PerCE with the profile deleted instead of masked. The weight-transform
   sweep (``sweep``): PerCE with one unspecified choice changed at a time (log transform
   w = min(1 + log PIR+, w_max); a milder clip w_max = 2; normalisation by the number of tokens
   instead of the sum of the weights; the profile deleted instead of masked), reported as
   ``sweep/<variant>/*`` and a figure panel, with no verdict (the quick profile only since the
   seventh session). CE and PerCE again at ``lr_mult`` x
   ``lr`` (the learning-rate stress) and at each multiplier of ``lr_grid`` (the lr choice on
   validation users); with ``in_domain`` (default on; off in the full profile since the seventh
   session) CE from the base trained on family B (the in-domain reference for transfer).
4. ``evaluate``: teacher-forced personal-slot accuracy on held-out users (the learning curve at
   four checkpoints and the end), generic-token perplexity, held-out loss, slot accuracy on
   family B, and free generation scored by ROUGE-L (``rouge-score``) and METEOR (``nltk``), of
   the arms in ``gen_arms`` (default: every arm; CE and PerCE only in the full profile since the
   seventh session).
5. ``identification``: with the CE-trained model, the AUROC of three token scores for the true
   personal tokens of held-out responses: PerContrast's log PIR, the token loss and the token
   rarity.
6. ``identities``: PerCE with unit weights equals CE; log PIR is 0 when nothing is removed;
   the PerCE gradient equals the weight-scaled CE gradient.

Claims map to metrics: improves-personalisation -> ``slot/*``, ``ppl_ratio``; identifies-personal-
tokens -> ``auroc/*``; lr-robust -> ``lr/*_drop``; cross-task -> ``transfer/*``; free-generation ->
``gen/*``.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
import torch.nn.functional as F

from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything
from icml26.nn.transformer import LMConfig, TinyLM

from .method import personal_influence, response_logprobs, train_weighted, weighted_ce
from .setting import KIND_GENERIC, KIND_PERSONAL, Batch, drop_profile, encode, make_tokenizer, make_world

CONTROLS = ("ce", "random", "loss")


# ----------------------------------------------------------------------------- evaluation parts
@torch.no_grad()
def slot_accuracy(model, data: Batch) -> float:
    """Teacher-forced greedy accuracy at the true personal positions (gold prefix given)."""
    model.eval()
    logits, _ = model(data.ids[:, :-1])
    L = int(data.length.max())
    j = torch.arange(L)
    pos = (data.start[:, None] + j[None, :]).clamp(max=data.ids.shape[1] - 1)
    pred = logits.argmax(-1).gather(1, (pos - 1).clamp(max=logits.shape[1] - 1))
    tgt = data.ids.gather(1, pos)
    return float((pred == tgt)[data.personal].float().mean())


@torch.no_grad()
def token_losses(model, data: Batch) -> dict:
    """Held-out loss over all response tokens and generic-token perplexity (template words and <eos>)."""
    model.eval()
    lp, valid = response_logprobs(model, data.ids, data.start, data.length)
    gen = data.kinds == KIND_GENERIC
    return {"heldout_loss": float(-lp[valid].mean()), "generic_ppl": float(torch.exp(-lp[gen].mean()))}


@torch.no_grad()
def free_generation(model, data: Batch, tok, n: int) -> dict:
    """Greedy responses for the first ``n`` examples, scored against the references by ROUGE-L F and METEOR."""
    from nltk.translate.meteor_score import meteor_score
    from rouge_score import rouge_scorer

    class _NoWordNet:  # exact + stem matching only: the WordNet data cannot be downloaded here
        def synsets(self, *args, **kwargs):
            return []

    model.eval()
    inv = {v: k for k, v in tok.backend.get_vocab().items()}
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    n = min(n, len(data))
    by_len: dict[int, list[int]] = {}
    for i in range(n):
        by_len.setdefault(int(data.start[i]), []).append(i)
    rouge, meteor = [], []
    for start, idx in by_len.items():
        prompt = data.ids[idx, :start]
        out = model.generate_greedy(prompt, int(data.length[idx].max()) + 3)[:, start:]
        for row, i in zip(out.tolist(), idx):
            words = []
            for t in row:
                if t == tok.eos_id:
                    break
                words.append(inv.get(t, "?"))
            ref = data.examples[i].response
            rouge.append(scorer.score(" ".join(ref), " ".join(words))["rougeL"].fmeasure)
            meteor.append(meteor_score([ref], words, wordnet=_NoWordNet()))
    return {"rougeL": float(np.mean(rouge)), "meteor": float(np.mean(meteor))}


def _auroc(scores: np.ndarray, labels: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores))


@torch.no_grad()
def identification(model, data: Batch, rarity: dict[int, float]) -> dict:
    """AUROC for the true personal tokens of three scores: log PIR (mask and delete), token loss, token rarity."""
    valid = data.valid
    lab = data.personal[valid].numpy().astype(int)
    pir_m = personal_influence(model, data.ids, data.start, data.ids_masked, data.start, data.length)
    pir_d = personal_influence(model, data.ids, data.start, data.ids_deleted, data.start_deleted, data.length)
    lp, _ = response_logprobs(model, data.ids, data.start, data.length)
    L = int(data.length.max())
    pos = (data.start[:, None] + torch.arange(L)[None, :]).clamp(max=data.ids.shape[1] - 1)
    tgt = data.ids.gather(1, pos)
    rare = torch.tensor([[rarity.get(int(t), max(rarity.values())) for t in row] for row in tgt.tolist()])
    out = {"pir": _auroc(pir_m[valid].numpy(), lab), "pir_delete": _auroc(pir_d[valid].numpy(), lab),
           "loss": _auroc(-lp[valid].numpy(), lab), "rarity": _auroc(rare[valid].numpy(), lab)}
    out["best_baseline"] = max(out["loss"], out["rarity"])
    return out


def rarity_table(data: Batch) -> dict[int, float]:
    """-log frequency of every token id among the training responses."""
    L = int(data.length.max())
    pos = (data.start[:, None] + torch.arange(L)[None, :]).clamp(max=data.ids.shape[1] - 1)
    toks = data.ids.gather(1, pos)[data.valid].tolist()
    ids, counts = np.unique(toks, return_counts=True)
    freq = counts / counts.sum()
    return {int(i): float(-np.log(f)) for i, f in zip(ids, freq)}


def identities(model, data: Batch) -> dict:
    """Max errors of: unit-weight PerCE = CE; log PIR = 0 without intervention; PerCE gradient = scaled CE gradient."""
    b = data.subset(torch.arange(min(8, len(data))))
    lp, valid = response_logprobs(model, b.ids, b.start, b.length)
    logits, _ = model(b.ids[:, :-1])
    L = int(b.length.max())
    pos = (b.start[:, None] + torch.arange(L)[None, :]).clamp(max=b.ids.shape[1] - 1)
    tgt = b.ids.gather(1, pos).masked_fill(~valid, -100)
    pred_logits = logits.gather(1, (pos - 1)[..., None].expand(-1, -1, logits.shape[-1]))
    ce = F.cross_entropy(pred_logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=-100)
    err = abs(float(weighted_ce(lp, valid.float(), valid).detach()) - float(ce.detach()))
    err = max(err, float(personal_influence(model, b.ids, b.start, b.ids, b.start, b.length).abs().max()))
    g = torch.Generator().manual_seed(0)
    w = (torch.rand(lp.shape, generator=g) * 4 + 1) * valid
    lp_leaf = lp.detach().clone().requires_grad_()
    (grad,) = torch.autograd.grad(weighted_ce(lp_leaf, w, valid, normalise="tokens"), lp_leaf)
    err = max(err, float((grad + w / valid.sum()).abs().max()))
    return {"identity/max_err": err}


# ----------------------------------------------------------------------------- training parts
class _StopBase(Exception):
    pass


def train_base(tok, train: Batch, test: Batch, p: Profile, seed: int, val: Batch | None = None) -> tuple[TinyLM, dict]:
    """The shared starting model: plain CE, its lr decaying along a cosine over ``base_steps`` (with its held-out
    loss before/after).

    The first two sessions asked for a constant lr here, but a shadowed name in ``train_weighted`` gave
    this cosine instead (found and fixed in the third session, which keeps the schedule that was
    actually run, now asked for explicitly, so that the base reads the profile as in the second run).

    With ``base_target`` in the profile (and a validation set of held-out users ``val``, disjoint from
    ``test``), training stops at the first multiple of ``base_check`` steps from ``base_min`` on at which the
    validation personal-slot accuracy reaches ``base_target`` (at most ``base_steps`` steps): the base then
    reads the profile at an intermediate level, as the paper's pretrained LLM does, instead of barely (a fixed
    short budget) or perfectly (a long one), whatever the seed's speed of learning. Otherwise exactly
    ``base_steps`` steps."""
    torch.manual_seed(seed)
    model = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=p["d_model"], n_layers=2, n_heads=4,
                            max_len=int(train.ids.shape[1]) + 8))
    loss0 = token_losses(model, test)["heldout_loss"]
    target = p.get("base_target")
    done = {"steps": p["base_steps"]}

    def on_step(step, m):
        if target is None or val is None or step + 1 < p["base_min"] or (step + 1) % p["base_check"]:
            return
        if slot_accuracy(m, val) >= target:
            done["steps"] = step + 1
            raise _StopBase

    try:
        train_weighted(model, train, scheme="ce", steps=p["base_steps"], batch_size=p["batch"], lr=p["lr"],
                       warmup_steps=0, schedule="cosine", seed=seed, on_step=on_step)
    except _StopBase:
        pass
    model.eval()
    out = {"base/heldout_loss_init": loss0, "base/slot_acc": slot_accuracy(model, test),
           "base/steps": float(done["steps"]), **{f"base/{k}": v for k, v in token_losses(model, test).items()}}
    if val is not None:
        out["base/val_slot_acc"] = slot_accuracy(model, val)
    return model, out


def train_arm(base, data: Batch, curve_data: Batch, scheme: str, p: Profile, seed: int, lr: float,
              removal: str = "mask", *, curve: bool = True, **variant) -> tuple[TinyLM, dict]:
    """One scheme from a copy of the base; slot accuracy on ``curve_data`` at four checkpoints (``curve``)
    or at the end only. ``variant`` overrides the weight transform's options (``transform``, ``w_max``,
    ``gamma``, ``normalise``) for the sweep; the profile's values otherwise."""
    model = copy.deepcopy(base)
    steps = p["steps"]
    marks = {int(round(steps * f)) - 1 for f in (0.25, 0.5, 0.75)} if curve else set()
    points: list[float] = []

    def on_step(step, m):
        if step in marks:
            points.append(slot_accuracy(m, curve_data))

    opts = {"transform": "clip", "w_max": p["w_max"], "gamma": 1.0, "normalise": p["normalise"], **variant}
    hist = train_weighted(model, data, scheme=scheme, steps=steps, batch_size=p["batch"], lr=lr, warmup_steps=0,
                          removal=removal, seed=seed + 1, on_step=on_step, **opts)
    points.append(slot_accuracy(model, curve_data))
    return model, {"curve": points, "mean_weight_personal": hist["mean_weight_by_kind"][KIND_PERSONAL],
                   "mean_weight_generic": hist["mean_weight_by_kind"][KIND_GENERIC]}


def _split_users(examples: list, users) -> tuple[list, list]:
    """Examples about ``users`` and the rest."""
    keep = {int(u) for u in users}
    return [e for e in examples if e.user in keep], [e for e in examples if e.user not in keep]


def run(profile: Profile, seed: int) -> dict:
    p = profile
    torch.set_num_threads(max(1, int(p.get("threads", 1))))
    rng = seed_everything(seed)
    tok = make_tokenizer()
    world = make_world(p["n_users"], p["n_train"], p["n_test"], family="recommend", seed=rng,
                       distractor=p["distractor"])
    train = drop_profile(encode(world["train"], tok), p["profile_dropout"], rng)
    train_b = drop_profile(encode(world["transfer_train"], tok), p["profile_dropout"], rng)
    val = None
    if p.get("val_users", False):  # half of the held-out users validate (base stop, lr choice), half test
        val_users = world["test_users"][::2]
        val_ex, test_ex = _split_users(world["test"], val_users)
        _, test_b_ex = _split_users(world["transfer_test"], val_users)
        val, test, test_b = encode(val_ex, tok), encode(test_ex, tok), encode(test_b_ex, tok)
    else:
        test, test_b = encode(world["test"], tok), encode(world["transfer_test"], tok)
    m: dict = {"data/personal_frac": float(train.personal.sum() / train.valid.sum())}
    base, info = train_base(tok, train, test, p, seed, val)
    m.update(info)
    models = {}
    for arm in p["arms"]:
        scheme, removal = ("perce", "delete") if arm == "perce_delete" else (arm, "mask")
        model, info = train_arm(base, train, test, scheme, p, seed, p["lr"], removal)
        models[arm] = model
        m[f"curve/{arm}"] = info["curve"]
        m[f"slot/{arm}"] = info["curve"][-1]
        if val is not None:
            m[f"val/{arm}"] = slot_accuracy(model, val)
        m[f"weight_personal/{arm}"] = info["mean_weight_personal"]
        m[f"weight_generic/{arm}"] = info["mean_weight_generic"]
        for k, v in token_losses(model, test).items():
            m[f"{k}/{arm}"] = v
        m[f"transfer/{arm}"] = slot_accuracy(model, test_b)
        if arm in p.get("gen_arms", p["arms"]):  # free generation of the arms the claims read (or of all)
            for k, v in free_generation(model, test, tok, p["n_gen"]).items():
                m[f"gen/{k}/{arm}"] = v
    m["ppl_ratio"] = m["generic_ppl/perce"] / m["generic_ppl/ce"]
    m["gate/ce_loss_ratio"] = m["base/heldout_loss_init"] / m["heldout_loss/ce"]
    m["gate/oracle_gain"] = m["slot/oracle"] - m["slot/ce"]
    for name, variant in p.get("sweep", {}).items():  # the weight-transform sweep (reported, no verdict)
        variant = dict(variant)
        model, info = train_arm(base, train, test, "perce", p, seed, p["lr"], variant.pop("removal", "mask"),
                                curve=False, **variant)
        m[f"sweep/{name}/slot"] = info["curve"][-1]
        m[f"sweep/{name}/generic_ppl"] = token_losses(model, test)["generic_ppl"]
        m[f"sweep/{name}/weight_personal"] = info["mean_weight_personal"]
        m[f"sweep/{name}/weight_generic"] = info["mean_weight_generic"]
    for arm in ("ce", "perce"):  # learning-rate stress
        model, info = train_arm(base, train, test, arm, p, seed, p["lr"] * p["lr_mult"], curve=False)
        m[f"lr/{arm}_high"] = info["curve"][-1]
        m[f"lr/{arm}_drop"] = m[f"slot/{arm}"] - info["curve"][-1]
        if val is not None:
            m[f"lr/{arm}_high_val"] = slot_accuracy(model, val)
    for arm in ("ce", "perce") if val is not None else ():  # per-arm lr choice on the validation users
        cands = {1.0: (m[f"val/{arm}"], m[f"slot/{arm}"])}
        for mult in p.get("lr_grid", ()):
            if float(mult) == float(p["lr_mult"]):  # trained above as the stress arm
                cands[float(mult)] = (m[f"lr/{arm}_high_val"], m[f"lr/{arm}_high"])
                continue
            model, info = train_arm(base, train, test, arm, p, seed, p["lr"] * mult, curve=False)
            cands[float(mult)] = (slot_accuracy(model, val), info["curve"][-1])
        best = max(cands, key=lambda k: (cands[k][0], -k))  # ties: the smaller lr
        m[f"tuned/{arm}_lr_mult"] = best
        m[f"slot/{arm}_tuned"] = cands[best][1]
        for mult, (v, t) in cands.items():
            m[f"lr_grid/{arm}/{mult:g}/val"], m[f"lr_grid/{arm}/{mult:g}/test"] = v, t
    if p.get("in_domain", True):  # CE in-domain on family B (reported beside the cross-task claim, no verdict)
        _, info = train_arm(base, train_b, test_b, "ce", p, seed, p["lr"], curve=False)
        m["transfer/ce_in_domain"] = info["curve"][-1]
    for k, v in identification(models["ce"], test, rarity_table(train)).items():
        m[f"auroc/{k}"] = v
    m.update(identities(base, test))
    return m


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sweep = sorted({k.split("/")[1] for k in metrics[0] if k.startswith("sweep/")})
    fig, axes = plt.subplots(1, 4 if sweep else 3, figsize=(17 if sweep else 13, 3.8))
    arms = [a for a in ("ce", "perce", "random", "loss", "oracle", "perce_delete") if f"curve/{a}" in metrics[0]]
    ax = axes[0]
    for a in arms:
        c = np.mean([mm[f"curve/{a}"] for mm in metrics], axis=0)
        ax.plot([0.25, 0.5, 0.75, 1.0], c, marker="o", label=a)
    ax.axhline(np.mean([mm["base/slot_acc"] for mm in metrics]), ls=":", c="gray", label="base (CE warm-up)")
    ax.set_xlabel("fraction of the fine-tuning budget")
    ax.set_ylabel("personal-slot accuracy (held-out users)")
    ax.legend(fontsize=7)
    ax = axes[1]
    keys = ["pir", "pir_delete", "loss", "rarity"]
    ax.bar(keys, [np.mean([mm[f"auroc/{k}"] for mm in metrics]) for k in keys])
    ax.axhline(0.5, ls=":", c="gray")
    ax.set_ylabel("AUROC for the true personal tokens")
    ax.set_xlabel("token score (CE-trained model)")
    ax = axes[2]
    gen_arms = [a for a in arms if f"gen/rougeL/{a}" in metrics[0]]
    x = np.arange(len(gen_arms))
    for off, key in ((-0.2, "gen/rougeL"), (0.2, "gen/meteor")):
        ax.bar(x + off, [np.mean([mm[f"{key}/{a}"] for mm in metrics]) for a in gen_arms], width=0.4,
               label=key.split("/")[1])
    ax.set_xticks(x, gen_arms, rotation=30, fontsize=7)
    ax.set_ylabel("free-generation score vs reference")
    ax.set_xlabel("training scheme")
    ax.legend(fontsize=7)
    if sweep:  # the weight-transform sweep: slot accuracy of each variant (seed mean, min-max bars)
        ax = axes[3]
        names = ["CE", "PerCE (clip 5, mask, /sum w)", *sweep]
        vals = [[mm["slot/ce"] for mm in metrics], [mm["slot/perce"] for mm in metrics],
                *[[mm[f"sweep/{n}/slot"] for mm in metrics] for n in sweep]]
        mean = np.array([np.mean(v) for v in vals])
        err = np.array([[mu - np.min(v) for mu, v in zip(mean, vals)], [np.max(v) - mu for mu, v in zip(mean, vals)]])
        ax.bar(np.arange(len(names)), mean, yerr=err, capsize=3, color=["gray", "C1"] + ["C0"] * len(sweep))
        ax.axhline(mean[0], ls=":", c="gray")
        ax.set_xticks(np.arange(len(names)), names, rotation=30, fontsize=7, ha="right")
        ax.set_ylabel("personal-slot accuracy (held-out users)")
        ax.set_xlabel("PerCE weight variant (sweep, reported)")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- hand-written checks
def check_improves_personalisation(ms: list[dict]):
    """Pre-registered (issue 22, committed before the full run): PerCE's held-out personal-slot accuracy
    above each control (plain CE, random weights of PerCE's distribution, loss-ratio weights) by >= 0.03
    in >= 4/5 seeds, and PerCE's generic perplexity <= 1.1 x CE's in >= 4/5 seeds; decided only if CE's
    held-out loss halves and oracle-mask weights beat CE by >= 0.03 in >= 4/5 seeds.

    Revised by review after the full run (no metric changed): the rule was ``C.all_of`` of the four
    parts, whose ``partly`` rule gave *partly* as soon as the perplexity bound alone held, i.e. with
    PerCE behind every control. The perplexity bound is a necessary side condition ("at minimal extra
    cost"), not partial evidence of better personalisation: if it fails the claim is not reproduced,
    otherwise the verdict is that of the three slot-accuracy comparisons (partly if some comparison
    is met in at least half of the seeds). The oracle gate got a 1e-6 float32 tolerance (see
    ``PAPER``).

    Revised in a second session, knowing the verdicts above, before the re-run (pre-registered in the
    commit that introduced it): CE and PerCE each get their learning rate chosen from {1, 3, 10} x lr
    by personal-slot accuracy on validation users (held-out users disjoint from the test users), and
    the CE comparison is between the two tuned arms (CE at 3 x lr had beaten PerCE at 1 x lr); random
    and loss-ratio weights are compared with PerCE at the same (untuned) lr. A premise gate was added:
    the shared base reads the profile at an intermediate level (see ``PAPER``)."""
    from dataclasses import replace

    from icml26.core import checks as C

    from . import _GATES

    comps = C.all_of(
        C.beats_in_seeds("slot/perce_tuned", "slot/ce_tuned", margin=0.03, label="PerCE (lr chosen on validation users)",
                         control_label="CE (lr chosen the same way)"),
        C.beats_in_seeds("slot/perce", "slot/random", margin=0.03, label="PerCE", control_label="random weights"),
        C.beats_in_seeds("slot/perce", "slot/loss", margin=0.03, label="PerCE", control_label="loss-ratio weights"))
    ppl = C.threshold("ppl_ratio", at_most=1.1, frac=0.8, label="PerCE / CE generic perplexity")
    vc, vp = comps(ms), ppl(ms)
    status = vc.status if vp.status == "reproduced" else "not-reproduced"
    v = replace(vc, status=status, measured=f"{vc.measured}; {vp.measured}",
                evidence=(f"rule (revised by review after the full run: the perplexity bound is a necessary "
                          f"condition, not a source of partial credit): slot-accuracy comparisons "
                          f"[{vc.status}] {vc.evidence} | perplexity [{vp.status}] {vp.evidence}"))
    from . import BASE_GATES

    gates = (_GATES[0], *BASE_GATES,
             C.gate("gate/oracle_gain", at_least=0.03 - 1e-6, frac=0.8,
                    why="oracle-mask weights beat CE by >= 0.03 slot accuracy in >= 80% of seeds (float32 "
                        "tolerance 1e-6 added by review after the full run: slot accuracy counts held-out slots, "
                        "and seed 1's gain of exactly 18/600 read as 0.02999997 and failed the gate)"))
    return C.Gated(lambda _ms: v, gates)(ms)  # the verdict above, behind the gates


def contradict_improves_personalisation(ms: list[dict]) -> list[dict]:
    """PerCE's slot accuracy well below every control's."""
    out = []
    for m in ms:
        m = dict(m)
        m["slot/perce"] = min(m["slot/ce"], m["slot/random"], m["slot/loss"]) - 0.1
        m["slot/perce_tuned"] = m["slot/ce_tuned"] - 0.1
        out.append(m)
    return out


def control_improves_personalisation(ms: list[dict]) -> list[dict]:
    """Plain CE in PerCE's place, tuned CE in tuned PerCE's (its generic perplexity ratio to itself is 1)."""
    out = []
    for m in ms:
        m = dict(m)
        m["slot/perce"], m["slot/perce_tuned"], m["ppl_ratio"] = m["slot/ce"], m["slot/ce_tuned"], 1.0
        out.append(m)
    return out
