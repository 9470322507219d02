"""InfoReasoner at toy scale: exact IG properties, the reader gate, IG-shaped GRPO against three controls,
and how well Delta IG credits useful searches.

Parts (each a function below; ``run`` composes them):

* :func:`theory` -- claim ``ig-properties`` (identity): non-negativity, telescoping and channel
  monotonicity of the expected information gain, by exact Bayes on random discrete channels.
* :func:`reader_gate` -- the reader answers retrieval-only 1-hop facts with the gold passage and
  without it: the IG reward is only meaningful if the first is high and the second near chance.
  The claims' reader is a copy of the base policy tuned on a mixture of reading, closed-book
  self-distillation and bridge-composition exercises and then frozen
  (:func:`icml26.llm.inforeasoner.setting.tune_reader`); the frozen base policy, the paper's
  choice, is run beside it under ``base_reader/``. :func:`reader_premise` adds the two premise
  gates of the review revision: the reader keeps the base model's closed-book gold mass (within
  0.1) and a bridge passage alone raises its gold mass where the answer fact is memorised.
* :func:`train_arms` -- claim ``beats-search-r1``: GRPO on retrieval-only 2-hop questions (a fact on
  the chain never seen in pretraining) from the same start,
  the same question batches and the same sampling seeds, with four rewards: EM (Search-R1),
  EM + 0.6 Delta IG (InfoReasoner), EM + 0.6 * shuffled Delta IG, and EM + 0.6 * 1[gold alias in
  the retrieved text]; the bonus is paid only to trajectories that retrieved and answered.
  Held-out 2-hop EM (greedy) at the fixed budget decides.
* :func:`credit` -- claim ``credits-useful-searches``: on the base policy's sampled 2-hop
  trajectories that searched, the AUROC of Delta IG for "the bridge fact was retrieved" (the
  passage of the chain's first fact, whether or not the answer passage was retrieved too;
  trajectories that retrieved only the answer passage count as negatives); the AUROC on the
  subset without the answer passage and the number of positives are stored beside it.
* The MiniLM-cosine entailment (issue 20; the labelled substitute for the paper's DeBERTa-MNLI, no NLI
  model ships offline): the same reader samples are also scored with e(a => g) = 1[cos(MiniLM(a),
  MiniLM(g)) >= tau], tau = 0.91: the lowest threshold with the highest answer-level agreement with
  the alias table on development seeds 100-101 (1400 reader answers, 625 in the gold class, all of
  them the primary alias up to case at cosine 1.0; the closest wrong answer at 0.90, 'where <answer>
  locamorland' for Locamorland; agreement 1.000 for tau in [0.91, 1], 0.998 at the card's 0.8)
  (:func:`minilm_embed`). Pre-registered: the alias table stays primary and decides both headline
  claims; under MiniLM the credit AUROCs are stored under ``credit/minilm/`` and a fifth GRPO arm,
  EM + 0.6 Delta IG(MiniLM), is trained last (``eval/inforeasoner_minilm/``), reported beside the
  verdicts, deciding nothing. :func:`entailment_agreement` stores how often the two entailments
  agree on the run's samples. Without the ``minilm`` extra the part is skipped
  (``minilm/available`` = 0) and everything else is unchanged.
"""

from __future__ import annotations

import copy
import zlib

import numpy as np

from icml26.core.paper import Profile
from icml26.llm.inforeasoner.method import (answer_in_context_bonus, auroc, delta_ig, expected_information_gain,
                                            garble, inforeasoner_reward, shuffled_bonus, step_information_gains)

ARMS = ("em_only", "inforeasoner", "shuffled_ig", "alias_bonus")
#: trained after ARMS (so the reader's draws for ARMS do not move) when MiniLM is available; reported, not deciding
MINILM_ARM = "inforeasoner_minilm"


def minilm_embed(enabled: bool = True):
    """MiniLM's ``encode`` (list of texts -> (n, 384) unit vectors) or ``None`` when ``enabled`` is false or the
    ``minilm`` extra is not installed (the MiniLM part is then skipped)."""
    if not isinstance(enabled, (bool, np.bool_)):
        raise TypeError(f"enabled must be a bool, got {type(enabled).__name__}")
    from icml26.nn.sentence import MiniLMEncoder, minilm_available

    if not enabled or not minilm_available():
        return None
    return MiniLMEncoder().encode


def entailment_agreement(reader) -> dict[str, float]:
    """How the MiniLM entailment compares with the alias table on every answer the reader drew in the run:
    the share of answers on which 'is in the gold class' agrees, its precision and recall against the alias table,
    and the mean |S_minilm - S_alias| over the drawn (question, context) sets."""
    from icml26.llm.inforeasoner.method import alias_entailment, cosine_entailment, soft_gold_mass

    if reader.embed is None or not reader.drawn:
        return {}
    e_m = cosine_entailment(reader.embed, reader.threshold)
    ref, got, gap = [], [], []
    for ans, lp, aliases in reader.drawn.values():
        e_a = alias_entailment(list(aliases))
        ref += [any(e_a(a, g) for g in aliases) for a in ans]
        got += [any(e_m(a, g) for g in aliases) for a in ans]
        gap.append(abs(soft_gold_mass(ans, lp, list(aliases), entail=e_m) - soft_gold_mass(ans, lp, list(aliases))))
    ref, got = np.asarray(ref), np.asarray(got)
    return {"minilm/agreement": float(np.mean(ref == got)),
            "minilm/precision": float(ref[got].mean()) if got.any() else float("nan"),
            "minilm/recall": float(got[ref].mean()) if ref.any() else float("nan"),
            "minilm/mean_abs_mass_gap": float(np.mean(gap)), "minilm/n_answers": float(ref.size)}


# ----------------------------------------------------------------------------- part 1: exact theory
def theory(n_instances: int, seed: int) -> dict[str, float]:
    """Worst cases over random priors (K = 8 classes) and channels of the three IG properties."""
    rng = np.random.default_rng(seed)
    min_ig, tele, garb = np.inf, 0.0, -np.inf
    for _ in range(n_instances):
        k = 8
        prior = rng.dirichlet(np.full(k, 0.5))
        chs = [rng.dirichlet(np.full(int(rng.integers(2, 6)), 0.5), size=k) for _ in range(2)]
        ig, final = step_information_gains(prior, chs)
        h0 = -(prior[prior > 0] * np.log(prior[prior > 0])).sum()
        min_ig = min(min_ig, float(ig.min()), expected_information_gain(prior, chs[0]))
        tele = max(tele, abs(float(ig.sum()) - (h0 - final)))
        post = rng.dirichlet(np.full(int(rng.integers(2, 6)), 0.5), size=chs[0].shape[1])
        garb = max(garb, expected_information_gain(prior, garble(chs[0], post)) - expected_information_gain(prior, chs[0]))
    return {"theory/min_ig": min_ig, "theory/max_telescoping_error": tele, "theory/max_garbling_excess": garb}


# ----------------------------------------------------------------------------- part 2: the reader gate
def reader_gate(reader, world) -> dict[str, float]:
    qs = [q for q in world.questions(1) if world.exposures(q) == 0]
    acc = reader_accuracy_fn()(reader, world, qs)
    return {"gate/reader_gold_doc": acc["gold_doc"], "gate/reader_no_doc": acc["no_doc"],
            "gate/reader_chance": acc["chance"], "gate/reader_no_doc_excess": acc["no_doc"] - acc["chance"]}


def reader_premise(reader, base_reader, world) -> dict[str, float]:
    """Does the reader keep the base model's closed-book knowledge, and does a bridge passage alone help it?

    ``closed_book_gap``: |mean S(empty) of the reader - that of the base model| over all 2-hop questions.
    ``bridge_lift``: mean S(bridge passage only) - mean S(empty) of the reader over the 2-hop questions whose
    answer fact (second hop) is memorised, so a reader that combines the passage with what it recalls can answer."""
    from icml26.llm.inforeasoner.setting import passage_context

    qs = world.questions(2)
    mem = [q for q in qs if world.kb.exposures.get(q.facts[1], 0) > 0]
    cb = float(np.mean([reader.gold_mass(q, []) for q in qs]))
    cb0 = float(np.mean([base_reader.gold_mass(q, []) for q in qs]))
    out = {"premise/closed_book_mass": cb, "premise/base_closed_book_mass": cb0, "gate/closed_book_gap": abs(cb - cb0),
           "premise/n_memorised_answer": float(len(mem))}
    for tag, r in (("", reader), ("base_", base_reader)):
        sb = float(np.mean([r.gold_mass(q, passage_context(world, q.facts[:1])) for q in mem])) if mem else float("nan")
        s0 = float(np.mean([r.gold_mass(q, []) for q in mem])) if mem else float("nan")
        out[f"premise/{tag}bridge_only_mass"] = sb
        out[f"premise/{tag}memorised_closed_book_mass"] = s0
        out[f"{'gate' if not tag else 'premise'}/{tag}bridge_lift"] = sb - s0
    return out


def reader_accuracy_fn():
    from icml26.llm.inforeasoner.setting import reader_accuracy

    return reader_accuracy


# ----------------------------------------------------------------------------- part 3: GRPO arms
def _gen(seed: int, *tag: int):
    import torch

    return torch.Generator().manual_seed(zlib.crc32(repr((seed, *tag)).encode()))


def trajectory_scores(reader, world, questions, rollouts) -> dict[str, np.ndarray]:
    """EM, retrieved flag, Delta IG (difference and log-ratio) and the alias bonus per trajectory."""
    from icml26.llm.inforeasoner.setting import evidence_context
    from icml26.tasks.kb import answer_matches

    em, ret, ans, s_c, s_0, alias = [], [], [], [], [], []
    for q, r in zip(questions, rollouts):
        em.append(float(answer_matches(r.answer or "", q)))
        got = bool(r.retrieved)
        ret.append(float(got))
        ans.append(float(r.answer is not None))
        s_0.append(reader.gold_mass(q, []))
        s_c.append(reader.gold_mass(q, evidence_context(r.completion, world)) if got else s_0[-1])
        alias.append(answer_in_context_bonus(" ".join(p for ps in r.retrieved for p in ps), list(q.aliases)))
    s_c, s_0 = np.asarray(s_c), np.asarray(s_0)
    out = {"em": np.asarray(em), "retrieved": np.asarray(ret), "answered": np.asarray(ans),
           "dig": delta_ig(s_c, s_0),
           "dig_log": delta_ig(s_c, s_0, form="log_ratio"), "alias": np.asarray(alias)}
    if reader.embed is not None:
        # the same samples, scored with MiniLM-cosine entailment (no new draws)
        m_0 = np.array([reader.gold_mass(q, [], entail="minilm") for q in questions])
        m_c = np.array([reader.gold_mass(q, evidence_context(r.completion, world), entail="minilm") if r.retrieved
                        else m0 for q, r, m0 in zip(questions, rollouts, m_0)])
        out["dig_minilm"] = delta_ig(m_c, m_0)
        out["dig_log_minilm"] = delta_ig(m_c, m_0, form="log_ratio")
    return out


def arm_rewards(arm: str, sc: dict[str, np.ndarray], seed: int, coef: float) -> np.ndarray:
    """The arm's reward; the bonus is paid only to trajectories that retrieved something and wrote an answer."""
    paid = sc["retrieved"] * sc["answered"]
    if arm == "em_only":
        return sc["em"].copy()
    if arm == "inforeasoner":
        return inforeasoner_reward(sc["em"], sc["dig"], paid, coef=coef)
    if arm == "shuffled_ig":
        return inforeasoner_reward(sc["em"], shuffled_bonus(sc["dig"], paid, seed), paid, coef=coef)
    if arm == "alias_bonus":
        return inforeasoner_reward(sc["em"], sc["alias"], paid, coef=coef)
    if arm == MINILM_ARM:
        if "dig_minilm" not in sc:
            raise ValueError(f"arm {MINILM_ARM!r} needs MiniLM scores (a reader built with embed=)")
        return inforeasoner_reward(sc["em"], sc["dig_minilm"], paid, coef=coef)
    raise ValueError(f"arm must be one of {ARMS + (MINILM_ARM,)}, got {arm!r}")


def greedy_em(policy, world, questions) -> tuple[float, float]:
    """Greedy 2-hop EM and mean number of searches on ``questions``."""
    from icml26.tasks.kb import answer_matches
    from icml26.tasks.search import rollout

    rs = rollout(policy, world, questions, greedy=True)
    return (float(np.mean([answer_matches(r.answer or "", q) for r, q in zip(rs, questions)])),
            float(np.mean([r.n_searches for r in rs])))


def train_arm(arm: str, base, world, reader, train_qs, p: dict, seed: int):
    """GRPO from the base policy with ``arm``'s reward; question batches and sampling seeds shared by all arms."""
    import torch

    from icml26.nn.rl import GRPOConfig, grpo_update
    from icml26.tasks.search import rollout

    policy = copy.deepcopy(base)
    for prm in policy.parameters():
        prm.requires_grad_(True)
    g = p["group"]
    cfg = GRPOConfig(group_size=g, lr=p["lr"], beta=p["beta"], pad_id=world.tokenizer.pad_id)
    opt = torch.optim.Adam(policy.parameters(), lr=p["lr"])
    rewards, ems = [], []
    for step in range(p["steps"]):
        pick = np.random.default_rng([seed, step]).choice(len(train_qs), p["batch"], replace=False)
        qs = [train_qs[i] for i in pick for _ in range(g)]
        rs = rollout(policy, world, qs, generator=_gen(seed, step))
        sc = trajectory_scores(reader, world, qs, rs)
        r = arm_rewards(arm, sc, seed * 1000 + step, p["coef"])
        rewards.append(float(r.mean()))
        ems.append(float(sc["em"].mean()))
        grpo_update(policy, base, opt, [x.prompt for x in rs], [x.completion for x in rs],
                    torch.tensor(r, dtype=torch.float32), cfg, loss_mask=[x.loss_mask for x in rs])
    return policy.eval(), rewards, ems


def train_arms(base, world, reader, p: dict, seed: int) -> dict:
    from icml26.llm.inforeasoner.setting import split_questions

    train_qs, test_qs = split_questions(world, 2)
    start_em, start_s = greedy_em(base, world, test_qs)
    kb = world.kb
    out = {"gate/start_em2": start_em, "eval/start/searches": start_s, "eval/n_test": float(len(test_qs)),
           "eval/chance_em2": float(np.mean([1.0 / len(kb.by_type(kb.entities[q.answer])) for q in test_qs]))}
    for arm in ARMS + ((MINILM_ARM,) if reader.embed is not None else ()):
        pol, rew, ems = train_arm(arm, base, world, reader, train_qs, p, seed)
        em2, s = greedy_em(pol, world, test_qs)
        out[f"eval/{arm}/em2"] = em2
        out[f"eval/{arm}/searches"] = s
        out[f"train/{arm}/reward"] = rew
        out[f"train/{arm}/em"] = ems
    out["gate/em_only_gain"] = out["eval/em_only/em2"] - start_em
    return out


# ----------------------------------------------------------------------------- part 4: credit assignment
def credit(base, world, reader, n_samples: int, seed: int) -> dict[str, float]:
    """AUROC of Delta IG (both forms) and of the alias bonus for 'bridge fact retrieved', over searching trajectories."""
    from icml26.tasks.search import rollout

    qs = [q for q in world.questions(2) for _ in range(n_samples)]
    rs = rollout(base, world, qs, generator=_gen(seed, -1))
    sc = trajectory_scores(reader, world, qs, rs)
    keep = sc["retrieved"] > 0
    label = np.array([float(any(world.documents[q.facts[0]] in ps for ps in r.retrieved)) for q, r in zip(qs, rs)])
    # exploratory (not a claim): the passage that holds the answer (last fact on the chain) was retrieved
    answer_doc = np.array([float(any(world.documents[q.facts[-1]] in ps for ps in r.retrieved)) for q, r in zip(qs, rs)])
    ya = answer_doc[keep]
    y = label[keep]
    ok = keep.sum() > 0 and 0 < y.sum() < y.size
    f = (lambda s: auroc(s[keep], y)) if ok else (lambda s: float("nan"))
    ok_a = keep.sum() > 0 and 0 < ya.sum() < ya.size
    # bridge-only subset: searching trajectories that did not retrieve the answer passage
    sub = keep & (answer_doc == 0)
    yb = label[sub]
    ok_b = sub.sum() > 0 and 0 < yb.sum() < yb.size
    extra: dict[str, float] = {}
    if "dig_minilm" in sc:
        extra = {"credit/minilm/auroc_dig": f(sc["dig_minilm"]), "credit/minilm/auroc_dig_log": f(sc["dig_log_minilm"]),
                 "credit/minilm/auroc_dig_bridge_only": auroc(sc["dig_minilm"][sub], yb) if ok_b else float("nan"),
                 "credit/minilm/corr_with_alias_dig": (float(np.corrcoef(sc["dig"][keep], sc["dig_minilm"][keep])[0, 1])
                                                       if keep.sum() > 1 and sc["dig"][keep].std() > 0
                                                       and sc["dig_minilm"][keep].std() > 0 else float("nan"))}
    return {**extra, "credit/auroc_dig": f(sc["dig"]), "credit/auroc_dig_log": f(sc["dig_log"]),
            "credit/auroc_alias": f(sc["alias"]), "credit/n": float(keep.sum()),
            "gate/credit_positives": float(y.sum()), "credit/n_negatives": float(y.size - y.sum()),
            "credit/auroc_dig_bridge_only": auroc(sc["dig"][sub], yb) if ok_b else float("nan"),
            "credit/n_bridge_only": float(sub.sum()), "credit/n_bridge_only_positives": float(yb.sum()),
            "credit/bridge_rate": float(y.mean()) if keep.sum() else float("nan"),
            "credit/auroc_dig_answer_doc": auroc(sc["dig"][keep], ya) if ok_a else float("nan"),
            "credit/answer_doc_rate": float(ya.mean()) if keep.sum() else float("nan"),
            "credit/mean_dig_bridge": float(sc["dig"][keep][y == 1].mean()) if ok else float("nan"),
            "credit/mean_dig_no_bridge": float(sc["dig"][keep][y == 0].mean()) if ok else float("nan")}


# ----------------------------------------------------------------------------- run
def run(profile: Profile, seed: int) -> dict:
    import torch

    from icml26.llm.inforeasoner.setting import Reader, load, tune_reader, world_config

    torch.set_num_threads(profile.cpus)
    p = dict(profile.params)
    embed = minilm_embed(bool(p.get("minilm", True)))
    m: dict = {"minilm/available": float(embed is not None)}
    m.update(theory(p["theory_instances"], seed))
    base, world = load(seed, world_config(p["world"]))
    # the paper's reader (the frozen base model), reported beside the claims' reader
    plain = Reader(base, world, n=p["reader_n"], seed=seed)
    m.update({k.replace("gate/", "base_reader/"): v for k, v in reader_gate(plain, world).items()})
    m.update({k.replace("credit/", "base_reader/"): v for k, v in credit(base, world, plain, p["credit_samples"], seed).items()
              if k.startswith("credit/auroc")})
    # the claims' reader: the base model tuned to read (counterfactual passages), frozen
    tuned = tune_reader(base, world, steps=p["reader_steps"], seed=seed, mix=tuple(p["reader_mix"]))
    reader = Reader(tuned, world, n=p["reader_n"], seed=seed, embed=embed, threshold=p["minilm_threshold"])
    m.update(reader_gate(reader, world))
    m.update(reader_premise(reader, plain, world))
    m.update(credit(base, world, reader, p["credit_samples"], seed))
    m.update(train_arms(base, world, reader, p, seed))
    m.update(entailment_agreement(reader))
    return m


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(9, 3.5))
    arms = ARMS + ((MINILM_ARM,) if all(f"eval/{MINILM_ARM}/em2" in m for m in metrics) else ())
    xs = np.arange(len(arms))
    vals = np.array([[m[f"eval/{a}/em2"] for a in arms] for m in metrics])
    ax[0].bar(xs, vals.mean(0), yerr=vals.std(0), color=["grey", "C0", "C1", "C2", "C4"][:len(arms)])
    ax[0].axhline(np.mean([m["gate/start_em2"] for m in metrics]), ls="--", c="k", label="start")
    ax[0].set_xticks(xs, arms, rotation=20)
    ax[0].set_xlabel("reward (GRPO arm)")
    ax[0].set_ylabel("held-out 2-hop EM (greedy)")
    ax[0].legend()
    for a in arms:
        r = np.array([m[f"train/{a}/em"] for m in metrics]).mean(0)
        ax[1].plot(np.arange(1, len(r) + 1), r, label=a)
    ax[1].set_xlabel("GRPO step")
    ax[1].set_ylabel("training EM (sampled)")
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- bad-input examples
def EXAMPLES():  # noqa: N802 - the house hook name
    from icml26.llm.inforeasoner import method as M

    rng = np.random.default_rng(0)
    prior = np.full(4, 0.25)
    ch = rng.dirichlet(np.ones(3), size=4)
    return [
        (M.expected_information_gain, {"prior": prior, "channel": ch}),
        (M.step_information_gains, {"prior": prior, "channels": [ch, ch]}),
        (M.garble, {"channel": ch, "post": rng.dirichlet(np.ones(2), size=3)}),
        (M.soft_gold_mass, {"answers": ["a", "b"], "mean_logprobs": np.array([-0.1, -1.0]), "gold_aliases": ["a"]}),
        (M.hard_gold_mass, {"answers": ["a", "b"], "mean_logprobs": np.array([-0.1, -1.0]), "gold_aliases": ["a"],
                            "threshold": 0.5}),
        (M.delta_ig, {"s_context": np.array([0.5, 0.9]), "s_empty": np.array([0.1, 0.2]), "eps": 1e-3}),
        (M.inforeasoner_reward, {"em": np.array([1.0, 0.0]), "bonus": np.array([0.3, -0.1]),
                                 "retrieved": np.array([1.0, 1.0]), "coef": 0.6}),
        (M.shuffled_bonus, {"bonus": np.array([0.3, -0.1, 0.2]), "retrieved": np.array([1.0, 0.0, 1.0]), "seed": 0}),
        (M.auroc, {"scores": np.array([0.1, 0.9, 0.4]), "labels": np.array([0.0, 1.0, 1.0])}),
        (M.cosine_entailment, {"embed": lambda texts: np.ones((len(texts), 2)), "threshold": 0.91}),
    ]
