"""GU's small-scale reproduction: one seed = one world, one original model, ten unlearning runs.

Parts of :func:`run`:

1. :func:`original_model` trains (or reads from the cache) the TinyLM that knows the seed's people,
   and measures the gates (QA accuracy on every paraphrase, refusal on unknown names).
2. :func:`unlearning_data` builds what each family of methods may use: the synthetic prompts with
   forget / retain names (plus the original model's own greedy continuations of them, for the
   GA-type equal-data controls and the retain terms), and the real forget / retain QA on the
   data paraphrases (0, 1) for the data-advantaged baselines.
3. :func:`safe_anchors` fills the synthetic templates with unknown names, keeps the prompts the
   model refuses, and fits ``(mu, V, proto)`` on the last two blocks.
4. :func:`run_method` runs GU, its equal-data controls (random subspace, refusal-only, GA /
   GradDiff / NPO on the synthetic prompts) and the data-advantaged GA / GradDiff / NPO / IDK-SFT
   with the same LoRA, optimiser and step budget, evaluating every few steps.
5. :func:`summarise` reads the test paraphrase (2, never used by any run) at GU's early-stop point
   (claim ``suppression``) and, for each control, the best retain accuracy over its checkpoints at
   GU's forget level (``matched_retain``, the pre-registered reading of ``beats-controls``). The check
   ``check_beats_controls`` now reads every method at forget accuracy <= 0.10 instead (changed after
   the full run; see the comment above it).

Review diagnostic (not stored, not part of any verdict): GU alone on the full profile, 500 steps with
no early stop, seeds 0 and 1 at lr 1e-2 and seed 0 at lr 1e-3. GU's own objective is met (seed 0:
L_dir 0.57 -> 0.05, L_energy 0.12 -> 0.007, L_refusal 2.0 -> 0.02; the synthetic prompts are answered
"i don't know .") but forget accuracy on the held-out QA paraphrase plateaus at 0.7 (seed 0, both
learning rates) and 0.8-1.0 (seed 1) from about step 60 to step 500, and the validation paraphrase
behaves the same. So the 120-step budget is not what keeps GU from suppressing: the states move where
GU puts them, and the QA answers do not follow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from icml26.core.paper import Metrics, Profile
from icml26.core.seeding import seed_everything

from . import method as M
from . import setting as S

GU_FAMILY = ("gu", "gu_random", "refusal")
EQUAL_DATA = ("gu_random", "refusal", "ga_syn", "graddiff_syn", "npo_syn")
DATA_ADVANTAGED = ("ga_qa", "graddiff_qa", "npo_qa", "idk_qa")
METHODS = ("gu", *EQUAL_DATA, *DATA_ADVANTAGED)
LABELS = {"gu": "GU", "gu_random": "GU, random subspace", "refusal": "refusal-only", "ga_syn": "GA (synthetic)",
          "graddiff_syn": "GradDiff (synthetic)", "npo_syn": "NPO (synthetic)", "ga_qa": "GA (forget QA)",
          "graddiff_qa": "GradDiff (forget QA)", "npo_qa": "NPO (forget QA)", "idk_qa": "IDK-SFT (forget QA)"}


# ----------------------------------------------------------------------------- part 1
def original_model(p: Profile, seed: int) -> tuple[S.BioWorld, torch.nn.Module, Metrics]:
    world_key = {"n_known": p["n_known"], "n_unknown": p["n_unknown"], "n_forget": p["n_forget"]}
    world = S.make_world(**world_key, seed=seed)
    cfg = S.ModelConfig(d_model=p["d_model"], n_layers=p["n_layers"], steps=p["pretrain_steps"],
                        batch=p["pretrain_batch"])
    model, losses = S.pretrain(world, cfg, seed=seed, world_key=world_key)
    for q in model.parameters():
        q.requires_grad_(False)
    known = list(world.facts)
    m = {"original/qa_acc": float(np.mean([S.qa_accuracy(model, world, known, k) for k in range(3)])),
         "original/unknown_refusal": S.refusal_rate(model, world, world.unknown, S.TEST_PARAPHRASE),
         "original/forget_acc": S.qa_accuracy(model, world, world.forget, S.TEST_PARAPHRASE),
         "original/retain_acc": S.qa_accuracy(model, world, world.retain, S.TEST_PARAPHRASE),
         "original/arith": S.arithmetic_accuracy(model, world),
         "original/pretrain_loss_drop": float(np.mean(losses[:10]) / max(np.mean(losses[-10:]), 1e-9))}
    return world, model, m


# ----------------------------------------------------------------------------- part 2
def _continuations(world: S.BioWorld, model, prompts: list[str]) -> list[list[int]]:
    words = S.greedy_answers(model, world, prompts, n_new=14)
    return [world.tok.encode(" ".join(w), eos=True) for w in words]


def _batch(world: S.BioWorld, prompts: list[str], seqs: list[tuple[list[int], list[int]]],
           retain: list[tuple[list[int], list[int]]], names: list[str]) -> M.UnlearnBatch:
    p_ids, p_valid = world.tok.pad([world.encode_prompt(q) for q in prompts])
    ref = [(world.encode_prompt(q), world.encode_answer(S.REFUSAL)) for q in prompts]
    r_ids, r_tgt = S.pad_pairs(world, ref)
    f_ids, f_tgt = S.pad_pairs(world, seqs)
    k_ids, k_tgt = S.pad_pairs(world, retain)
    _, k_valid = world.tok.pad([a + b for a, b in retain])
    return M.UnlearnBatch(p_ids, p_valid, r_ids, r_tgt, f_ids, f_tgt, k_ids, k_tgt, k_valid,
                          [world.name_ids(n) for n in names], world.tok.unk_id)


def unlearning_data(world: S.BioWorld, model) -> dict[str, M.UnlearnBatch]:
    """``synthetic``: names x synthetic templates only (GU and the equal-data controls); ``qa``: the forget
    and retain QA on the data paraphrases (the data-advantaged baselines)."""
    n_t = len(S.SYNTHETIC_TEMPLATES)
    f_prompts = [S.SYNTHETIC_TEMPLATES[t].format(n=n) for n in world.forget for t in range(n_t)]
    r_prompts = [S.SYNTHETIC_TEMPLATES[t].format(n=n) for n in world.retain for t in range(n_t)]
    f_seq = list(zip([world.encode_prompt(q) for q in f_prompts], _continuations(world, model, f_prompts)))
    r_seq = list(zip([world.encode_prompt(q) for q in r_prompts], _continuations(world, model, r_prompts)))
    synthetic = _batch(world, f_prompts, f_seq, r_seq, world.forget)
    qa_f = [world.qa(n, a, k) for n in world.forget for a in S.ATTRIBUTES for k in S.DATA_PARAPHRASES]
    qa_r = [world.qa(n, a, k) for n in world.retain for a in S.ATTRIBUTES for k in S.DATA_PARAPHRASES]
    enc = lambda pairs: [(world.encode_prompt(q), world.encode_answer(a)) for q, a in pairs]  # noqa: E731
    qa = _batch(world, [q for q, _ in qa_f], enc(qa_f), enc(qa_r), world.forget)
    return {"synthetic": synthetic, "qa": qa}


# ----------------------------------------------------------------------------- part 3
def safe_anchors(world: S.BioWorld, model, cfg: M.GUConfig, n_anchors: int, seed: int
                 ) -> tuple[list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]], Metrics]:
    """(mu, V, proto) per target layer from refused prompts with unknown names."""
    rng = np.random.default_rng(seed + 7)
    cands = [S.SYNTHETIC_TEMPLATES[t].format(n=n) for n in world.unknown for t in range(len(S.SYNTHETIC_TEMPLATES))]
    cands = [cands[i] for i in rng.permutation(len(cands))]
    answers = S.greedy_answers(model, world, cands)
    kept = [c for c, a in zip(cands, answers) if any(k in " ".join(a) for k in S.REFUSAL_KEYWORDS)][:n_anchors]
    ids, valid = world.tok.pad([world.encode_prompt(c) for c in kept])
    hits = M.find_name_hits(ids, [world.name_ids(n) for n in world.unknown])
    states = M.anchor_states(model, ids, valid, hits, window=cfg.anchor_window)
    n_layers = len(states)
    sub, explained = [], []
    for layer in cfg.target_layers:
        a = states[layer % n_layers]
        mu, v, proto = M.safe_subspace(a, cfg.k, cfg.proto_k)
        if cfg.basis == "random":
            v = M.random_subspace(a.shape[1], cfg.k, seed=seed * 100 + layer % n_layers)
        sub.append((mu, v, proto))
        ac = a - mu
        explained.append(float((ac @ v).pow(2).sum() / ac.pow(2).sum().clamp_min(1e-12)))
    return sub, {"anchors/n_kept": float(len(kept)), "anchors/explained_var": float(np.mean(explained))}


# ----------------------------------------------------------------------------- part 4
def evaluator(world: S.BioWorld):
    def evaluate(model) -> dict[str, float]:
        return {"val_forget": S.qa_accuracy(model, world, world.forget, S.VAL_PARAPHRASE),
                "val_retain": S.qa_accuracy(model, world, world.retain, S.VAL_PARAPHRASE),
                "test_forget": S.qa_accuracy(model, world, world.forget, S.TEST_PARAPHRASE),
                "test_retain": S.qa_accuracy(model, world, world.retain, S.TEST_PARAPHRASE)}
    return evaluate


def run_method(name: str, world: S.BioWorld, teacher, data: dict[str, M.UnlearnBatch], p: Profile, seed: int,
               subspaces: dict[str, list]) -> tuple[M.Trace, torch.nn.Module]:
    base = M.GUConfig(lr=p["lr"])
    cfg = M.config_for(name, base) if name in GU_FAMILY else base
    model = M.with_lora(teacher, cfg, seed)
    batch = data["qa" if name.endswith("_qa") else "synthetic"]
    nf, nr = batch.forget_prompts.shape[0], batch.retain_seq.shape[0]
    bf, br = p["forget_batch"], p["retain_batch"]

    def draw(gen):
        return torch.randint(0, nf, (bf,), generator=gen), torch.randint(0, nr, (br,), generator=gen)

    if name in GU_FAMILY:
        sub = subspaces["random" if name == "gu_random" else "safe"]

        def loss_fn(mdl, step, gen):
            fi, ri = draw(gen)
            return M.gu_loss(mdl, teacher, batch, fi, ri, sub, cfg, step)
    else:
        kind = name.split("_")[0]

        def loss_fn(mdl, step, gen):
            fi, ri = draw(gen)
            return M.baseline_loss(kind, mdl, teacher, batch, fi, ri)

    trace = M.unlearn(model, loss_fn, steps=p["steps"], evaluate=evaluator(world), eval_every=p["eval_every"],
                      cfg=cfg, seed=seed * 1000 + METHODS.index(name))
    return trace, model


# ----------------------------------------------------------------------------- part 5
def summarise(name: str, trace: M.Trace, model, world: S.BioWorld, orig: Metrics) -> Metrics:
    last = trace.evals[-1]
    tf = [e["test_forget"] for e in trace.evals]
    tr = [e["test_retain"] for e in trace.evals]
    return {f"{name}/forget_acc": last["test_forget"], f"{name}/retain_acc": last["test_retain"],
            f"{name}/retain_ratio": last["test_retain"] / max(orig["original/retain_acc"], 1e-9),
            f"{name}/forget_refusal": S.refusal_rate(model, world, world.forget, S.TEST_PARAPHRASE),
            f"{name}/unknown_refusal": S.refusal_rate(model, world, world.unknown, S.TEST_PARAPHRASE),
            f"{name}/arith": S.arithmetic_accuracy(model, world),
            f"{name}/stopped_at": float(trace.stopped_at),
            f"{name}/trace_forget": tf, f"{name}/trace_retain": tr, f"{name}/trace_step": [float(s) for s in trace.steps]}


def run(profile: Profile, seed: int) -> Metrics:
    seed_everything(seed)
    torch.manual_seed(seed)
    world, teacher, m = original_model(profile, seed)
    data = unlearning_data(world, teacher)
    cfg = M.GUConfig(lr=profile["lr"])
    safe, info = safe_anchors(world, teacher, cfg, profile["n_anchors"], seed)
    rand, _ = safe_anchors(world, teacher, M.config_for("gu_random", cfg), profile["n_anchors"], seed)
    m.update(info)
    for name in METHODS:
        trace, model = run_method(name, world, teacher, data, profile, seed, {"safe": safe, "random": rand})
        m.update(summarise(name, trace, model, world, m))
    level = m["gu/forget_acc"]
    m["gu/matched_retain"] = m["gu/retain_acc"]
    for name in METHODS[1:]:
        m[f"{name}/matched_retain"] = M.matched_retain(m[f"{name}/trace_forget"], m[f"{name}/trace_retain"],
                                                       level, tol=profile["match_tol"])
    m["gu/joint_margin"] = min(0.10 - m["gu/forget_acc"], m["gu/retain_ratio"] - 0.9)
    return m


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[Metrics]) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax = axes[0]
    for i, name in enumerate(METHODS):
        f = [x[f"{name}/forget_acc"] for x in metrics]
        r = [x[f"{name}/retain_acc"] for x in metrics]
        ax.scatter(f, r, label=LABELS[name], marker="o" if name in ("gu", *EQUAL_DATA) else "x", color=f"C{i}")
    ax.axvline(0.10, color="grey", ls=":", lw=1)
    ax.set_xlabel("forget QA accuracy (held-out paraphrase)")
    ax.set_ylabel("retain QA accuracy (held-out paraphrase)")
    ax.set_title("final point of each run, one marker per seed")
    ax.legend(fontsize=6)
    ax = axes[1]
    for i, name in enumerate(METHODS):
        x = metrics[0]
        ax.plot(x[f"{name}/trace_forget"], x[f"{name}/trace_retain"], "-o", ms=2, label=LABELS[name], color=f"C{i}")
    ax.set_xlabel("forget QA accuracy")
    ax.set_ylabel("retain QA accuracy")
    ax.set_title("checkpoint trajectories (seed 0)")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- claim beats-controls
# Changed after the full run (disclosed in the verdict and the report). The pre-registered rule compared GU's
# final point with each control's best checkpoint whose forget accuracy was <= GU's + 0.05 (0 if none). GU then
# stopped at forget accuracy 0.7-0.9, so the gradient controls (1.0 -> 0.0 within ten steps) were read at a
# far stronger forget level than GU, and controls that never got down to GU's weak level scored 0: the rule
# compared unequal forget levels. The deciding rule now reads every method, GU included, the same way: the
# best retain accuracy over its checkpoints with forget accuracy <= 0.10 (claim suppression's target), 0 if it
# never gets there. The pre-registered rule's verdict is still computed and shown in the evidence.
COMMON_FORGET_LEVEL = 0.10


def _with_common_level(ms: list[Metrics]) -> list[Metrics]:
    import copy

    out = copy.deepcopy(list(ms))
    for m in out:
        for name in ("gu", *EQUAL_DATA):
            m[f"{name}/retain_at_level"] = M.matched_retain(m[f"{name}/trace_forget"], m[f"{name}/trace_retain"],
                                                            COMMON_FORGET_LEVEL, tol=0.0)
    return out


def _rule(key: str):
    from icml26.core import checks as C

    from . import _CONTROLS, _GATES
    from ._checks import no_worse

    return C.all_of(*(no_worse(f"gu/{key}", f"{k}/{key}", frac=0.8, label="GU retain", control_label=label)
                      for k, label in _CONTROLS)).gated(*_GATES)


def check_beats_controls(ms: list[Metrics]):
    from dataclasses import replace

    def _weakest_link(v, ms: list[Metrics], key: str):
        """The issue's rule asks GU to match *each* control: a control that beats GU (its part not reproduced)
        makes the claim not reproduced, whatever the other parts say. ``all_of``'s default would call the
        whole claim partly as soon as one part is partly, and here the partly parts are ties at 0 (neither
        method reaches the forget level), which are evidence of nothing. (Revised after the full run by review.)"""
        from . import _CONTROLS
        from ._checks import no_worse

        if v.status != "partly":
            return v
        lost = [label for k, label in _CONTROLS
                if no_worse(f"gu/{key}", f"{k}/{key}", frac=0.8)(ms).status == "not-reproduced"]
        if not lost:
            return v
        return replace(v, status="not-reproduced",
                       evidence=f"not reproduced: {', '.join(lost)} keep(s) more retain accuracy than GU in more than "
                                f"half of the seeds (weakest link over the controls, rule revised after the full run by "
                                f"review; the other controls' partly verdicts are ties, not wins). {v.evidence}")

    level = _with_common_level(ms)
    v = _weakest_link(_rule("retain_at_level")(level), level, "retain_at_level")
    pre = _weakest_link(_rule("matched_retain")(ms), ms, "matched_retain")
    gu_f = [m["gu/forget_acc"] for m in ms]
    grad_f = [m[f"{k}/forget_acc"] for m in ms for k in ("ga_syn", "graddiff_syn", "npo_syn")]
    return replace(v, measured=f"at forget accuracy <= {COMMON_FORGET_LEVEL:g}: {v.measured}",
                   evidence=(f"decided by a rule changed after the full run: each method (GU too) is read at its best "
                             f"checkpoint with forget accuracy <= {COMMON_FORGET_LEVEL:g} (retain 0 if none); GU must "
                             f"be no worse than every control (weakest link, added by review after the full run). "
                             f"{v.evidence} || The pre-registered rule (GU's final point vs each control's best "
                             f"checkpoint with forget accuracy <= GU's + 0.05, 0 if none) says {pre.status}: "
                             f"{pre.measured}; it compares unequal forget levels (GU's final forget accuracy "
                             f"{min(gu_f):.2f}-{max(gu_f):.2f}, the gradient controls' {min(grad_f):.2f}-"
                             f"{max(grad_f):.2f}), i.e. it credits GU for forgetting less."))


def contradict_beats_controls(ms: list[Metrics]) -> list[Metrics]:
    import copy

    out = copy.deepcopy(list(ms))
    for m in out:
        n = len(m["gu/trace_forget"])
        m["gu/trace_forget"], m["gu/trace_retain"], m["gu/matched_retain"] = [1.0] * n, [0.0] * n, 0.0
        for name in EQUAL_DATA:
            k = len(m[f"{name}/trace_forget"])
            m[f"{name}/trace_forget"], m[f"{name}/trace_retain"] = [0.0] * k, [1.0] * k
            m[f"{name}/matched_retain"] = 1.0
    return out


def control_beats_controls(ms: list[Metrics]) -> list[Metrics]:
    """GU's numbers replaced by those of the random-subspace control (the key idea removed)."""
    import copy

    out = copy.deepcopy(list(ms))
    for m in out:
        for key in ("trace_forget", "trace_retain", "matched_retain", "forget_acc", "retain_acc"):
            m[f"gu/{key}"] = copy.deepcopy(m[f"gu_random/{key}"])
    return out
