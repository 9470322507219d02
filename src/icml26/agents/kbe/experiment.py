"""KBE at small scale: evolve a static knowledge-VQA benchmark and measure what it reveals about trained models.

One seed:

1. ``world``: an invented KB (``icml26.tasks.kb``) as a ``networkx`` graph; training scenes, the
   static benchmark's scenes and fresh (never published) scenes.
2. ``benchmarks``: the static benchmark (one direct-reference, one-hop question per scene), its
   paraphrase (the same paths in the second wording: the control), and KBE's evolution of every
   static item at exploration degrees 0-3 (Re-selection, then Expansion; answer-uniqueness
   validated). The KBE benchmark used for contamination is degree 0 (Re-selection only: same
   hop count as the static questions); the one used for ranking takes degree ``i mod 4`` for item
   ``i`` (as many questions as the static set).
3. ``models``: a capability ladder of tiny decoders (per width: a base run of ``steps`` steps and its
   clean fork, trained ``fork_steps`` more steps from the base's weights; ``d_large`` 0 = one width), a
   contaminated twin (a second fork of the small base, also trained on the static test triples; its
   clean sibling is the clean fork, same init, steps and sampler seed), and a retrieval reader (exact
   perception, BM25 + MiniLM hop retrieval).
4. ``evaluate``: accuracies on every set; the true ranking is the accuracy on fresh questions of
   every kind on fresh scenes.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile

DEGREES = (0, 1, 2, 3)


def _p(profile, key, default=None):
    return profile.get(key, default) if isinstance(profile, Profile) else profile.get(key, default)


# ----------------------------------------------------------------------------- parts
def world(params: dict, seed: int) -> dict:
    from icml26.agents.kbe.setting import knowledge_graph, make_scenes, make_world

    kb = make_world(seed, n_people=params["n_people"], n_cities=params["n_cities"], n_countries=params["n_countries"],
                    n_companies=params["n_companies"])
    kg = knowledge_graph(kb)
    ss = np.random.SeedSequence([seed, 18])
    r_train, r_static, r_fresh, r_q, r_report = (np.random.default_rng(s) for s in ss.spawn(5))
    mx = params["max_objects"]
    return {"kb": kb, "kg": kg, "rng": r_q, "rng_report": r_report, "balance": float(params.get("balance", 0.0)),
            "train": make_scenes(kb, params["n_train_scenes"], seed=r_train, min_objects=min(3, mx), max_objects=mx, first_id=0),
            "static": make_scenes(kb, params["n_static"], seed=r_static, min_objects=min(3, mx), max_objects=mx, first_id=100_000),
            "fresh": make_scenes(kb, params["n_fresh"], seed=r_fresh, min_objects=min(3, mx), max_objects=mx, first_id=200_000)}


def _evolve_all(static, kg, rng, balance: float = 0.0) -> dict[int, list]:
    """Per degree, the KBE evolution of each static item (index-aligned; None where impossible).

    ``balance`` > 0 is our answer-balance rule (not the paper's): while a degree's questions are built in
    order, an answer that already has ``max(1, balance * (n + 1))`` of the ``n`` questions accepted so far
    at that degree is avoided, so Re-selection/Expansion must reach another answer (or the item is dropped
    at that degree); no answer then holds much more than a ``balance`` share of a degree."""
    from collections import Counter

    from icml26.agents.kbe.method import evolve

    counts = {d: Counter() for d in DEGREES}
    evolved: dict[int, list] = {d: [] for d in DEGREES}
    for s, p in static:
        for d in DEGREES:
            n = sum(counts[d].values())
            avoid = {a for a, c in counts[d].items() if c >= max(1.0, balance * (n + 1))} if balance > 0 else ()
            q = evolve(s, kg, p, d, seed=rng, avoid_answers=avoid)
            evolved[d].append(None if q is None else (s, q))
            if q is not None:
                counts[d][q.answer] += 1
    return evolved


def _family(scenes, kg, rng, balance: float = 0.0) -> tuple[list, dict[int, list]]:
    """Static items and, per degree, the KBE evolution of each (index-aligned; None where impossible)."""
    from icml26.agents.kbe.method import static_question

    static = []
    for s in scenes:
        p = static_question(s, kg, seed=rng)
        if p is not None:
            static.append((s, p))
    return static, _evolve_all(static, kg, rng, balance)


def benchmarks(w: dict) -> dict:
    kg, rng, bal = w["kg"], w["rng"], w.get("balance", 0.0)
    tr_static, tr_evolved = _family(w["train"], kg, rng, bal)
    train = tr_static + [x for d in DEGREES for x in tr_evolved[d] if x is not None]
    static, evolved = _family(w["static"], kg, rng, bal)
    # reported beside the balanced sweep: the same static items evolved without the balance rule
    raw = _evolve_all(static, kg, w["rng_report"], 0.0) if bal > 0 else evolved
    sweep_raw = {d: [x for x in raw[d] if x is not None] for d in DEGREES}
    kbe0 = [x for x in evolved[0] if x is not None]
    kbe_mixed = [evolved[i % 4][i] for i in range(len(static)) if evolved[i % 4][i] is not None]
    sweep = {d: [x for x in evolved[d] if x is not None] for d in DEGREES}
    fr_static, fr_evolved = _family(w["fresh"], kg, rng, bal)
    fresh = fr_static + [x for d in DEGREES for x in fr_evolved[d] if x is not None]
    return {"train": train, "static": static, "kbe0": kbe0, "kbe": kbe_mixed, "sweep": sweep, "fresh": fresh,
            "probe1": fr_static, "sweep_raw": sweep_raw}


def _vocab(kb) -> list[str]:
    from icml26.agents.kbe.method import ROLE, SPATIAL_WORDS
    from icml26.agents.kbe.setting import COLOURS, SHAPES, entity_token

    words = ["fact", "?", "=", ",", "what", "is", "the", "of", "'s", "shown", "by", *COLOURS, *SHAPES]
    for style in ROLE:
        words += [w for v in style.values() for w in v.split()]
    for style in SPATIAL_WORDS:
        words += [w for v in style.values() for w in v.split()]
    return [" ".join(words), " ".join(entity_token(e) for e in kb.entities)]


def models(w: dict, b: dict, params: dict, seed: int) -> dict:
    """name -> answer function over a list of (scene, path) in a given style."""
    from icml26.agents.kbe.method import verbalise
    from icml26.agents.kbe.models import ReaderConfig, RetrievalReader, prompt, train_reader

    import torch

    torch.set_num_threads(1)  # one core per job: the full profile runs seeds in parallel jobs
    kb = w["kb"]
    vocab = _vocab(kb)
    from dataclasses import replace

    steps = params["steps"]  # the base run's budget (cosine schedule over it)
    fork = params["fork_steps"]  # continued training from the base run, clean and contaminated
    big = steps + fork
    common = dict(kb=kb, train_items=b["train"], static_items=b["static"], vocab_texts=vocab, seed=seed,
                  key_extra=repr(sorted(params.items())))
    out: dict = {}
    losses = {}
    widths = [("small", params["d_small"])] + ([("large", params["d_large"])] if params.get("d_large") else [])
    bases = {}
    for tag, d in widths:
        cfg = ReaderConfig(d_model=d, n_layers=params.get("n_layers", 2), steps=steps, batch=params["batch"],
                           lr=params["lr"], fact_frac=params.get("fact_frac", 0.5),
                           percept_frac=params.get("percept_frac", 0.0))
        (base,) = train_reader(cfg, **common)
        (clean,) = train_reader(replace(cfg, steps=fork), init_from=base, **common)
        out[f"{tag}-{steps}"], out[f"{tag}-{big}"] = base, clean
        losses[tag] = clean.losses
        bases[tag] = (cfg, base)
    # the contaminated twin: the same fork of the small base run, also trained on the static test triples
    cfg, base = bases["small"]
    (twin,) = train_reader(replace(cfg, steps=fork, contaminated=True, contam_frac=params["contam_frac"]),
                           init_from=base, **common)
    out["twin"] = twin
    losses["twin"] = twin.losses

    def tiny(reader):
        return lambda items, style: reader.answer([prompt(s, verbalise(p, style)) for s, p in items])

    fns = {k: tiny(v) for k, v in out.items()}
    if params["reader"]:
        rr = RetrievalReader(kb, paraphrase_seed=seed, use_minilm=params["minilm"])
        fns["retrieval"] = lambda items, style: rr.answer(items)
    return {"fns": fns, "losses": losses, "twin_of": f"small-{big}",
            "ladder": [f"{tag}-{n}" for tag, _ in widths for n in (steps, big)]}


def _acc(fn, items, style=0) -> float:
    from icml26.agents.kbe.setting import entity_token

    if not items:
        return float("nan")
    ans = fn(items, style)
    return float(np.mean([a == entity_token(p.answer) for a, (_, p) in zip(ans, items)]))


def _chance(kb, items) -> float:
    counts = {}
    for t in kb.entities.values():
        counts[t] = counts.get(t, 0) + 1
    return float(np.mean([1.0 / counts[kb.entities[p.answer]] for _, p in items]))


def _tau(x, y) -> float:
    from scipy.stats import kendalltau

    t = kendalltau(x, y).statistic
    return float(t) if np.isfinite(t) else 0.0


def _spearman_deg(accs) -> float:
    from scipy.stats import spearmanr

    a = np.asarray(accs, float)
    ok = np.isfinite(a)
    if ok.sum() < 3 or np.ptp(a[ok]) == 0:
        return 0.0  # flat: not decreasing
    return float(spearmanr(np.asarray(DEGREES)[ok], a[ok]).statistic)


def _unique_by_graph(w, items) -> float:
    """Independent brute-force recheck on the sample graph (G_v ∪ G_k) that each question has one answer."""
    from icml26.agents.kbe.method import sample_graph

    ok = []
    for s, p in items:
        g = sample_graph(s, w["kg"], max_hops=p.hops)
        objs = [n for n in g if isinstance(n, str) and n.startswith("obj")
                and g.has_edge(n, p.ref.colour, key="colour") and g.has_edge(n, p.ref.shape, key="shape")]
        if p.ref.spatial == "left_of":  # the object left of X: edge obj -> X
            objs = [u for x in objs for u, _, k in g.in_edges(x, keys=True) if k == "left_of"]
        elif p.ref.spatial == "right_of":
            objs = [v for x in objs for _, v, k in g.out_edges(x, keys=True) if k == "left_of"]
        frontier = [v for o in objs for _, v, k in g.out_edges(o, keys=True) if k == "shows"]
        for r in p.relations:
            frontier = [v for e in frontier for _, v, k in g.out_edges(e, keys=True) if k == r]
        ok.append(len(set(frontier)) == 1 and frontier[0] == p.answer)
    return float(np.mean(ok)) if ok else float("nan")


def evaluate(w: dict, b: dict, m: dict) -> dict:
    fns = m["fns"]
    names = list(fns)
    met: dict = {"models": names}
    acc = {}
    for n in names:
        f = fns[n]
        acc[n] = {"static": _acc(f, b["static"], 0), "para": _acc(f, b["static"], 1), "kbe0": _acc(f, b["kbe0"], 0),
                  "kbe": _acc(f, b["kbe"], 0), "fresh": _acc(f, b["fresh"], 0), "probe1": _acc(f, b["probe1"], 0),
                  "degree": [_acc(f, b["sweep"][d], 0) for d in DEGREES],
                  "degree_unbalanced": [_acc(f, b["sweep_raw"][d], 0) for d in DEGREES]}
        for k, v in acc[n].items():
            met[f"acc/{n}/{k}"] = v
    chance = _chance(w["kb"], b["probe1"])
    met["gate/chance_probe1"] = chance
    met["gate/clean_margin"] = min(acc[n]["probe1"] for n in m["ladder"]) - chance
    met["gate/twin_memorised"] = acc["twin"]["static"]
    for tag, ls in m["losses"].items():
        k = max(1, len(ls) // 20)
        met[f"train/{tag}/loss_drop"] = float(np.mean(ls[:k]) / max(np.mean(ls[-k:]), 1e-9))
    clean = m["twin_of"]
    for k in ("static", "para", "kbe0", "kbe"):
        met[f"contam/gap_{k}"] = acc["twin"][k] - acc[clean][k]
    met["contam/shrink_kbe"] = met["contam/gap_static"] - met["contam/gap_kbe0"]
    met["contam/shrink_para"] = met["contam/gap_static"] - met["contam/gap_para"]
    met["contam/shrink_kbe_mixed"] = met["contam/gap_static"] - met["contam/gap_kbe"]
    truth = [acc[n]["fresh"] for n in names]
    for k in ("static", "para", "kbe"):
        met[f"rank/tau_{k}"] = _tau([acc[n][k] for n in names], truth)
    # saturation: pairs within 2 points on static, their largest gap on KBE (and on the paraphrase)
    pairs = [(a, c) for i, a in enumerate(names) for c in names[i + 1:] if abs(acc[a]["static"] - acc[c]["static"]) <= 0.02]
    met["sat/n_tied_static"] = len(pairs)
    met["sat/spread_kbe"] = max((abs(acc[a]["kbe"] - acc[c]["kbe"]) for a, c in pairs), default=float("nan"))
    met["sat/spread_para"] = max((abs(acc[a]["para"] - acc[c]["para"]) for a, c in pairs), default=float("nan"))
    rhos = {n: _spearman_deg(acc[n]["degree"]) for n in names}
    for n, r in rhos.items():
        met[f"diff/{n}/spearman"] = r
    met["diff/spearman_worst"] = max(rhos.values())
    # the same on the sweep evolved without our answer-balance rule (reported, decides nothing)
    met["diff/spearman_worst_unbalanced"] = max(_spearman_deg(acc[n]["degree_unbalanced"]) for n in names)
    met["diff/mean_degree_acc"] = [float(np.nanmean([acc[n]["degree"][d] for n in names])) for d in DEGREES]
    met["diff/mean_degree_acc_unbalanced"] = [float(np.nanmean([acc[n]["degree_unbalanced"][d] for n in names]))
                                              for d in DEGREES]
    met["diff/degree"] = list(DEGREES)
    # the share of the most frequent answer per degree: what guessing the modal answer would score
    from collections import Counter

    def modal(sw):
        return [(Counter(p.answer for _, p in sw[d]).most_common(1)[0][1] / len(sw[d])) if sw[d] else float("nan")
                for d in DEGREES]

    met["diff/modal_answer_share"] = modal(b["sweep"])
    met["diff/modal_answer_share_unbalanced"] = modal(b["sweep_raw"])
    met["valid/coverage_unbalanced"] = [len(b["sweep_raw"][d]) / max(1, len(b["static"])) for d in DEGREES]
    met["diff/ladder_static_minus_kbe"] = float(np.mean([acc[n]["static"] - acc[n]["kbe"] for n in m["ladder"]]))
    evolved = b["kbe0"] + [x for d in DEGREES for x in b["sweep"][d]]
    met["valid/unique_frac"] = _unique_by_graph(w, evolved)
    met["valid/n_evolved"] = len(evolved)
    met["valid/coverage"] = [len(b["sweep"][d]) / max(1, len(b["static"])) for d in DEGREES]
    met["n/static"], met["n/kbe"], met["n/fresh"] = len(b["static"]), len(b["kbe"]), len(b["fresh"])
    return met


def run(profile, seed: int) -> dict:
    params = dict(profile.params) if isinstance(profile, Profile) else dict(profile)
    w = world(params, seed)
    b = benchmarks(w)
    m = models(w, b, params, seed)
    met = evaluate(w, b, m)
    met["models"] = ",".join(met["models"])
    if params.get("endpoint"):
        met.update(endpoint_part(w, b, params))
    return met


def endpoint_part(w: dict, b: dict, params: dict) -> dict:
    """With ``--set endpoint=URL --set model=NAME``: an LLM verbalises evolved questions and the served model is
    evaluated on the static, paraphrased and evolved questions (reported, never used by a verdict)."""
    from icml26.agents.kbe.method import LLMVerbaliser
    from icml26.agents.kbe.models import EndpointModel
    from icml26.agents.policy import ChatClient

    client = ChatClient(params["endpoint"], params["model"])
    n = params["endpoint_n"]
    verb = LLMVerbaliser(client)
    texts = [verb(p) for _, p in b["kbe"][:n]]
    em = EndpointModel(client, w["kb"])
    fn = em.answer
    out = {"endpoint/verbaliser_fallbacks": verb.fallbacks, "endpoint/n": len(texts),
           "endpoint/example_question": texts[0] if texts else ""}
    for k, items, style in (("static", b["static"][:n], 0), ("para", b["static"][:n], 1), ("kbe", b["kbe"][:n], 0)):
        out[f"endpoint/acc_{k}"] = _acc(fn, items, style)
    return out


# ----------------------------------------------------------------------------- figure
def figure(metrics):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ms = list(metrics)
    names = ms[0]["models"].split(",")
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.8))
    for n in names:
        y = np.nanmean([m[f"acc/{n}/degree"] for m in ms], axis=0)
        ax[0].plot(DEGREES, y, marker="o", label=n)
    ax[0].set_xlabel("exploration degree")
    ax[0].set_ylabel("accuracy")
    ax[0].legend(fontsize=7)
    kinds = ["static", "para", "kbe0"]
    x = np.arange(len(kinds))
    ax[1].bar(x, [np.mean([m[f"contam/gap_{k}"] for m in ms]) for k in kinds])
    ax[1].set_xticks(x, ["static", "paraphrase", "KBE (re-selection)"])
    ax[1].set_xlabel("benchmark")
    ax[1].set_ylabel("contaminated - clean accuracy")
    kinds = ["static", "para", "kbe"]
    ax[2].bar(x, [np.mean([m[f"rank/tau_{k}"] for m in ms]) for k in kinds])
    ax[2].set_xticks(x, kinds)
    ax[2].set_xlabel("benchmark")
    ax[2].set_ylabel("Kendall tau with true ranking")
    fig.tight_layout()
    return fig


def EXAMPLES():
    from icml26.agents.kbe.method import EXAMPLES as method_examples

    return method_examples()
