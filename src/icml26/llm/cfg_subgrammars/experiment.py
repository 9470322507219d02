"""Small-scale reproduction of "Unraveling Syntax" (arXiv:2510.02524).

Kept: the authors' KL-decomposition grammar (top level L1 -> sA A eA over the arithmetic,
a^n c b^n and x^n subgrammars, with their rule probabilities), GPT-style decoder models of
the paper's sizes (d = 8..32, 1-2 layers), AdamW (lr 6e-4 scaled up for short runs, wd 0.1,
grad-clip 1), per-subgrammar KL curves over training, subgrammar pretraining on the marked
arithmetic subgrammar followed by training on the full grammar at an equal step budget, and a
sweep over model size.

Replaced / changed: exact string probabilities come from the inside algorithm (the authors'
analysis code scores with the Viterbi parse, which is not the string probability for the
ambiguous arithmetic subgrammar); KL is the exact Monte-Carlo estimate E[log P - log Q] (not
the mean |log P - log Q| proxy of the code); sentences are trained one per row (bos ... eos,
padded) rather than as random windows of a concatenated stream; a few hundred steps with batch
32 instead of tens of epochs; KL_A is estimated on independent strings of G_A placed in their
top-level context (bos sA w eA eos). Representation alignment: every top-level span follows
only its start marker, so "in context" and "in isolation" would coincide; we therefore take an
L2_1 span nested inside a larger arithmetic expression (the right operand of + or *, or the
second part of a longer operand), whose context is the start marker plus the expression to its
left, and compare its states with those of the same span after the start marker alone (linear
CKA of the attention and MLP outputs of every block, averaged), for the scratch and pretrained
models of the size sweep; an untrained model and a row-shuffled pairing are reported as controls.
"""

from __future__ import annotations


import numpy as np
import torch
import torch.nn.functional as F

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_ci, fmt_p, mean_ci, paired_test, seeds_of
from icml26.llm.cfg_subgrammars import method as M

NAMES = ("L2_1", "L2_2", "L2_3")
BOS, EOS, PAD = "<bos>", "<eos>", "<pad>"


class Corpus:
    """Vocabulary and tensor encoding of sentences for a grammar."""

    def __init__(self, grammar: M.PCFG):
        self.itos = [PAD, BOS, EOS] + list(grammar.terminals)
        self.stoi = {s: i for i, s in enumerate(self.itos)}

    def encode(self, sents: list[list[str]]) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, L + 2) ids [bos] w [eos] [pad...] and (batch, L + 1) targets (-100 on pad)."""
        L = max(len(s) for s in sents)
        ids = torch.zeros(len(sents), L + 2, dtype=torch.long)
        for i, s in enumerate(sents):
            ids[i, :len(s) + 2] = torch.tensor([1] + [self.stoi[t] for t in s] + [2])
        tgt = ids[:, 1:].clone()
        tgt[tgt == 0] = -100
        return ids, tgt


@torch.no_grad()
def token_logq(model, corpus: Corpus, sents: list[list[str]], chunk: int = 256) -> list[np.ndarray]:
    """log Q of every token of each sentence and of its eos: list of arrays (len(s) + 1,)."""
    model.eval()
    out = []
    for c in range(0, len(sents), chunk):
        part = sents[c:c + chunk]
        ids, tgt = corpus.encode(part)
        logits, _ = model(ids[:, :-1])
        lp = F.log_softmax(logits.double(), -1).gather(-1, tgt.clamp(min=0)[..., None])[..., 0].numpy()
        out += [lp[i, :len(s) + 1] for i, s in enumerate(part)]
    return out


def make_model(vocab: int, d: int, layers: int, heads: int, max_len: int):
    from icml26.nn import LMConfig, TinyLM

    return TinyLM(LMConfig(vocab_size=vocab, d_model=d, n_layers=layers, n_heads=heads, max_len=max_len))


class Evaluator:
    """Fixed evaluation sets of one seed: full sentences, and per-subgrammar in-context strings."""

    def __init__(self, G: M.PCFG, corpus: Corpus, rng: np.random.Generator, n_eval: int, max_len: int):
        self.G, self.corpus = G, corpus
        self.full = [G.sample(rng, max_len) for _ in range(n_eval)]
        self.full_logp = np.array([G.inside_logprob(s) for s in self.full])
        self.span_logp = []
        for s in self.full:
            self.span_logp.append({(a, i, j): G.inside_logprob(s[i:j], a) for a, i, j in M.marked_spans(s, NAMES)})
        self.sub = {}
        for a in NAMES:
            ws = [G.sample(rng, max_len - 2, symbol=a) for _ in range(n_eval)]
            self.sub[a] = ([["s" + a] + w + ["e" + a] for w in ws], np.array([G.inside_logprob(w, a) for w in ws]))
        # E[N_A] for a non-recursive start symbol: rule probability times occurrences of sA
        self.occ = {a: sum(p * r.count("s" + a) for r, p in G.rules[G.start]) for a in NAMES}

    def evaluate(self, model) -> dict[str, float]:
        out: dict[str, float] = {}
        lq = token_logq(model, self.corpus, self.full)
        d = self.full_logp - np.array([x.sum() for x in lq])
        out["kl"], out["kl_se"] = float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))
        over, span_part = [], []
        for s, q, sp, lp in zip(self.full, lq, self.span_logp, self.full_logp):
            o, per = M.decompose_sentence(q, s, lp, sp, NAMES)
            over.append(o)
            span_part.append(sum(per.values()))
        over, span_part = np.array(over), np.array(span_part)
        out["kl_overhead"] = float(over.mean())
        out["kl_spans_insample"] = float(span_part.mean())
        rhs, var = 0.0, span_part.var(ddof=1) / len(span_part)
        for a in NAMES:
            strings, lpa = self.sub[a]
            q = token_logq(model, self.corpus, strings)
            # the span owns its content and the end marker eA; prefix bos sA is context
            terms = lpa - np.array([x[1:len(s)].sum() for x, s in zip(q, strings)])
            out[f"kl_{a}"] = float(terms.mean())
            rhs += self.occ[a] * terms.mean()
            var += self.occ[a] ** 2 * terms.var(ddof=1) / len(terms)
        out["decomp_gap"] = float(span_part.mean() - rhs)
        out["decomp_se"] = float(np.sqrt(var))
        return out


def alignment_pairs(G: M.PCFG, rng: np.random.Generator, n: int, max_len: int, A: str = "L2_1"
                    ) -> list[tuple[list[str], list[str]]]:
    """``n`` (context, span) pairs for the representation-alignment analysis.

    Each pair comes from a string ``w`` of ``G_A`` with a derivation node of ``A`` that does not
    start at the beginning of ``w`` (e.g. the right operand of ``L2_1 + L2_1``): ``span`` is its
    yield and ``context`` the tokens before it inside the marked sentence (``sA`` and the part of
    ``w`` left of the span; never just the start marker). The longest such node is used. In
    isolation the span is fed as ``[bos] sA span`` -- the same start marker, no other prefix.
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    out = []
    while len(out) < n:
        w, spans = G.sample_with_spans(rng, max_len, symbol=A)
        inner = [(e - s, s, e) for a, s, e in spans if a == A and s >= 1]
        if not inner:
            continue
        _, s, e = max(inner)
        out.append((["s" + A] + w[:s], w[s:e]))
    return out


@torch.no_grad()
def span_reps(model, corpus: Corpus, prefixes: list[list[str]], spans: list[list[str]]) -> dict[str, np.ndarray]:
    """Sublayer outputs (attention and MLP of every block) at the span tokens of ``[bos] prefix span``.

    Returns {"attn_i" / "mlp_i": (total span tokens, d_model)}, rows in the order of the spans.
    """
    if len(prefixes) != len(spans) or not spans:
        raise ValueError(f"prefixes and spans must be non-empty and of equal length, got {len(prefixes)} and {len(spans)}")
    model.eval()
    rows = [[1] + [corpus.stoi[t] for t in p + w] for p, w in zip(prefixes, spans)]
    L = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), L, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(r)
    acts: dict[str, torch.Tensor] = {}
    hooks = []
    for i, blk in enumerate(model.blocks):
        hooks.append(blk.attn.register_forward_hook(
            lambda m, inp, out, k=f"attn_{i}": acts.__setitem__(k, (out[0] if isinstance(out, tuple) else out))))
        hooks.append(blk.mlp.register_forward_hook(lambda m, inp, out, k=f"mlp_{i}": acts.__setitem__(k, out)))
    try:
        model(ids)  # causal: padding after a row never changes its earlier positions
    finally:
        for h in hooks:
            h.remove()
    idx_b = np.concatenate([[i] * len(w) for i, w in enumerate(spans)])
    idx_t = np.concatenate([np.arange(1 + len(p), 1 + len(p) + len(w)) for p, w in zip(prefixes, spans)])
    return {k: v[idx_b, idx_t].double().numpy() for k, v in acts.items()}


def alignment(model, corpus: Corpus, pairs: list[tuple[list[str], list[str]]], seed: int) -> dict[str, float]:
    """Mean over sublayers of linear CKA between the span's states in context and in isolation,
    and the same with the isolation rows shuffled (a control with no correspondence)."""
    ctx = span_reps(model, corpus, [c for c, _ in pairs], [w for _, w in pairs])
    iso = span_reps(model, corpus, [c[:1] for c, _ in pairs], [w for _, w in pairs])
    perm = np.random.default_rng(seed).permutation(next(iter(ctx.values())).shape[0])
    cka = [M.linear_cka(ctx[k], iso[k]) for k in ctx]
    shuf = [M.linear_cka(ctx[k], iso[k][perm]) for k in ctx]
    return {"cka": float(np.mean(cka)), "cka_shuffled": float(np.mean(shuf))}


def _sampler(G: M.PCFG, corpus: Corpus, batch: int, max_len: int, seed: int):
    rng = np.random.default_rng(seed)

    def sample(_gen):
        return corpus.encode([G.sample(rng, max_len) for _ in range(batch)])
    return sample


def run(profile: Profile, seed: int) -> dict:
    torch.manual_seed(seed)
    rng = seed_everything(seed)
    p = profile.params
    from icml26.nn import train_lm

    G = M.PCFG(M.KL_EXAMPLE)
    G_pre = M.PCFG({"L1": [(("sL2_1", "L2_1", "eL2_1"), 1.0)], **G.subgrammar("L2_1").rules})
    corpus = Corpus(G)
    ev = Evaluator(G, corpus, rng, p["n_eval"], p["max_len"])
    V, T = len(corpus.itos), p["max_len"] + 2
    metrics: dict = {"occ": [ev.occ[a] for a in NAMES]}

    # 1 + 2: learning curves of every subgrammar, and the decomposition at every checkpoint
    d, L, H = p["curve_model"]  # (d_model, layers, heads)
    torch.manual_seed(seed)
    model = make_model(V, d, L, H, T)
    curve: dict[str, list[float]] = {k: [] for k in ("step", "kl", "kl_se", "decomp_gap", "decomp_se",
                                                    "kl_overhead", *[f"kl_{a}" for a in NAMES])}

    def record(step, m):
        if step == -1 or (step + 1) in eval_steps:
            e = ev.evaluate(m)
            curve["step"].append(float(step + 1))
            for k in curve:
                if k != "step":
                    curve[k].append(e[k])

    eval_steps = set(p["eval_steps"])
    record(-1, model)
    train_lm(model, _sampler(G, corpus, p["batch"], p["max_len"], seed), steps=p["steps"], lr=p["lr"],
             weight_decay=0.1, warmup=p["warmup"], seed=seed, on_step=record)
    metrics["curve"] = curve

    # 3: subgrammar pretraining vs scratch at equal steps, per model size
    n_pre = int(round(p["pretrain_frac"] * p["steps"]))
    pairs = alignment_pairs(G, np.random.default_rng(seed + 1000), p["n_align"], p["max_len"] - 4)
    for name, (d, L, H) in p["sizes"].items():
        torch.manual_seed(seed + 1)
        scratch = make_model(V, d, L, H, T)
        metrics[f"params_{name}"] = float(scratch.num_parameters())
        train_lm(scratch, _sampler(G, corpus, p["batch"], p["max_len"], seed + 2), steps=p["steps"], lr=p["lr"],
                 weight_decay=0.1, warmup=p["warmup"], seed=seed)
        torch.manual_seed(seed + 1)
        pre = make_model(V, d, L, H, T)
        train_lm(pre, _sampler(G_pre, corpus, p["batch"], p["max_len"], seed + 3), steps=n_pre, lr=p["lr"],
                 weight_decay=0.1, warmup=p["warmup"], seed=seed)
        train_lm(pre, _sampler(G, corpus, p["batch"], p["max_len"], seed + 2), steps=p["steps"] - n_pre,
                 lr=p["lr"], weight_decay=0.1, warmup=p["warmup"], seed=seed)
        metrics[f"kl_scratch_{name}"] = ev.evaluate(scratch)["kl"]
        metrics[f"kl_pretrained_{name}"] = ev.evaluate(pre)["kl"]
        # 4: representation alignment of an L2_1 span in context vs in isolation (same models)
        torch.manual_seed(seed + 1)
        untrained = make_model(V, d, L, H, T)
        for kind, m in (("scratch", scratch), ("pretrained", pre), ("untrained", untrained)):
            for k, v in alignment(m, corpus, pairs, seed).items():
                metrics[f"{k}_{kind}_{name}"] = v
    return metrics


# ----------------------------------------------------------------------------- claims
def check_decomposition(ms: list[dict]) -> Verdict:
    """Pre-registered: at every checkpoint of every seed, the full-sentence KL minus the overhead
    equals sum_A E[N_A] KL_A with KL_A estimated on independent strings of G_A, within 3 standard
    errors (reproduced if >= 95% of checkpoints are within 3 SE, partly if >= 80%)."""
    z = np.concatenate([np.abs(np.asarray(m["curve"]["decomp_gap"])) / np.asarray(m["curve"]["decomp_se"])
                        for m in ms])
    gaps = np.concatenate([np.abs(m["curve"]["decomp_gap"]) for m in ms])
    kl = np.concatenate([m["curve"]["kl"] for m in ms])
    frac = float(np.mean(z <= 3))
    return Verdict("reproduced" if frac >= 0.95 else ("partly" if frac >= 0.8 else "not-reproduced"),
                   measured=(f"{frac:.0%} of {len(z)} checkpoints within 3 SE; median |gap| {np.median(gaps):.3f} nats "
                             f"(KL range {kl.min():.2f}-{kl.max():.2f} nats/sentence); median |z| {np.median(z):.2f}"),
                   evidence=f"{len(ms)} seeds, independent Monte-Carlo sets for the full grammar and each subgrammar; "
                            f"pass iff >= 95% of checkpoints have |gap| <= 3 SE",
                   value=frac)


def contradict_decomposition(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        c = dict(m["curve"])
        c["decomp_gap"] = [g + 10 * s + 1.0 for g, s in zip(c["decomp_gap"], c["decomp_se"])]
        out.append({**m, "curve": c})
    return out


def half_times(curve: dict) -> dict[str, float]:
    """Step at which each KL_A first covers half of its total decrease (initial -> final)."""
    steps = np.asarray(curve["step"])
    out = {}
    for a in NAMES:
        k = np.asarray(curve[f"kl_{a}"])
        target = k[-1] + 0.5 * (k[0] - k[-1])
        idx = int(np.argmax(k <= target)) if k[0] > k[-1] else len(k) - 1
        out[a] = float(max(steps[idx], steps[1] if len(steps) > 1 else 1.0))
    return out


def check_parallel(ms: list[dict]) -> Verdict:
    """Pre-registered: subgrammars are learned in parallel: every KL_A decreases (final < initial), and
    the half-learning steps of the subgrammars differ by at most 3x (max/min) in >= 80% of seeds. A
    sequential curriculum (one subgrammar learned before another starts) would give ratios >> 3."""
    ratios, decr = [], []
    for m in ms:
        h = half_times(m["curve"])
        ratios.append(max(h.values()) / min(h.values()))
        decr.append(all(m["curve"][f"kl_{a}"][-1] < m["curve"][f"kl_{a}"][0] for a in NAMES))
    ratios = np.asarray(ratios)
    frac = float(np.mean((ratios <= 3) & np.asarray(decr)))
    h0 = half_times(ms[0]["curve"])
    return Verdict("reproduced" if frac >= 0.8 else ("partly" if frac >= 0.5 else "not-reproduced"),
                   measured=(f"max/min half-learning step ratio: median {np.median(ratios):.2f} (range "
                             f"{ratios.min():.2f}-{ratios.max():.2f}); seed 0 half-steps "
                             + ", ".join(f"{a} {v:.0f}" for a, v in h0.items())),
                   evidence=f"{len(ms)} seeds; all KL_A decrease in {np.mean(decr):.0%}; ratio <= 3 and decreasing in "
                            f"{frac:.0%} of seeds; pass iff >= 80%",
                   value=float(np.median(ratios)))


def contradict_parallel(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        c = {k: list(v) for k, v in m["curve"].items()}
        for a in NAMES:  # a curriculum: L2_2 learned only at the very end, the others at once
            k = c[f"kl_{a}"]
            c[f"kl_{a}"] = ([k[0]] * (len(k) - 1) + [k[0] * 0.5] if a == "L2_2"
                            else [k[0]] + [k[-1]] * (len(k) - 1))
        out.append({**m, "curve": c})
    return out


def check_pretraining(ms: list[dict]) -> Verdict:
    """Pre-registered: subgrammar pretraining lowers the final KL of the tiniest model (paired one-sided
    Wilcoxon over seeds, p < 0.1, and lower in >= 75% of seeds) but not of the largest model (one-sided
    p >= 0.1). Partly: the tiny model improves on average without significance, or both improve."""
    sizes = sorted({k[len("kl_scratch_"):] for k in ms[0] if k.startswith("kl_scratch_")},
                   key=lambda s: seeds_of(ms, f"params_{s}")[0])
    tiny, large = sizes[0], sizes[-1]
    res = {}
    for s in sizes:
        sc, pr = seeds_of(ms, f"kl_scratch_{s}"), seeds_of(ms, f"kl_pretrained_{s}")
        dlt = sc - pr  # > 0: pretraining helps
        res[s] = (dlt, paired_test(pr, sc, alternative="less"), float(np.mean(dlt > 0)))
    dt, pt, ft = res[tiny]
    dl, pl, fl = res[large]
    tiny_ok = pt < 0.1 and ft >= 0.75
    large_ok = pl >= 0.1
    status = "reproduced" if tiny_ok and large_ok else ("partly" if (dt.mean() > 0 and large_ok) or tiny_ok
                                                         else "not-reproduced")
    meas = "; ".join(f"{s} ({seeds_of(ms, f'params_{s}')[0]:.0f} params): KL scratch - pretrained = "
                     f"{fmt_ci(*mean_ci(res[s][0]))} nats" for s in sizes)
    return Verdict(status, measured=meas,
                   evidence=f"{len(ms)} seeds, paired one-sided Wilcoxon: tiny {fmt_p(pt)} (better in {ft:.0%}), "
                            f"largest {fmt_p(pl)} (better in {fl:.0%}); pass iff tiny p < 0.1 and >= 75% better, "
                            f"largest p >= 0.1",
                   value=float(dt.mean()))


def contradict_pretraining(ms: list[dict]) -> list[dict]:
    sizes = sorted({k[len("kl_scratch_"):] for k in ms[0] if k.startswith("kl_scratch_")},
                   key=lambda s: ms[0][f"params_{s}"])
    tiny = sizes[0]
    return [{**m, f"kl_pretrained_{tiny}": m[f"kl_scratch_{tiny}"] + 1.0} for m in ms]


def _sizes(ms: list[dict]) -> list[str]:
    return sorted({k[len("kl_scratch_"):] for k in ms[0] if k.startswith("kl_scratch_")},
                  key=lambda s: ms[0][f"params_{s}"])


def check_alignment(ms: list[dict]) -> Verdict:
    """Pre-registered: subgrammar pretraining makes a span's representation less context-dependent.
    For every (model size, seed), CKA_pre - CKA_scratch is the difference in mean linear CKA (over
    attention and MLP outputs of all blocks) between an L2_1 span's states in context and in
    isolation. Reproduced iff the pooled differences are > 0 by a one-sided Wilcoxon signed-rank
    test (p < 0.05), the mean difference is > 0 for every size (the paper: "consistently"), and the
    measure is meaningful: the matched CKA exceeds the row-shuffled control for >= 80% of the
    trained models. Partly: meaningful and pooled mean > 0 with p < 0.05 or >= 75% positive, but
    not every size. Otherwise not reproduced."""
    sizes = _sizes(ms)
    pre = np.concatenate([seeds_of(ms, f"cka_pretrained_{s}") for s in sizes])
    sc = np.concatenate([seeds_of(ms, f"cka_scratch_{s}") for s in sizes])
    d = pre - sc
    p = paired_test(pre, sc, alternative="greater")
    per_size = {s: float(np.mean(seeds_of(ms, f"cka_pretrained_{s}") - seeds_of(ms, f"cka_scratch_{s}")))
                for s in sizes}
    matched = np.concatenate([seeds_of(ms, f"cka_{k}_{s}") for k in ("scratch", "pretrained") for s in sizes])
    shuf = np.concatenate([seeds_of(ms, f"cka_shuffled_{k}_{s}") for k in ("scratch", "pretrained") for s in sizes])
    sane = float(np.mean(matched > shuf))
    frac_pos = float(np.mean(d > 0))
    all_sizes = all(v > 0 for v in per_size.values())
    if sane >= 0.8 and p < 0.05 and all_sizes:
        status = "reproduced"
    elif sane >= 0.8 and d.mean() > 0 and (p < 0.05 or frac_pos >= 0.75):
        status = "partly"
    else:
        status = "not-reproduced"
    meas = "; ".join(f"{s}: CKA scratch {seeds_of(ms, f'cka_scratch_{s}').mean():.3f}, pretrained "
                     f"{seeds_of(ms, f'cka_pretrained_{s}').mean():.3f}, untrained "
                     f"{seeds_of(ms, f'cka_untrained_{s}').mean():.3f}" for s in sizes)
    return Verdict(status, measured=f"{meas}; pretrained - scratch {fmt_ci(*mean_ci(d))}",
                   evidence=(f"{len(ms)} seeds x {len(sizes)} sizes = {len(d)} paired models, one-sided Wilcoxon "
                             f"{fmt_p(p)}, pretrained higher in {frac_pos:.0%}; per-size mean difference "
                             + ", ".join(f"{s} {v:+.3f}" for s, v in per_size.items())
                             + f"; matched > shuffled control in {sane:.0%} of trained models (shuffled mean "
                             f"{shuf.mean():.3f}); pass iff p < 0.05, every size > 0, control >= 80%"),
                   value=float(d.mean()))


def contradict_alignment(ms: list[dict]) -> list[dict]:
    sizes = _sizes(ms)
    return [{**m, **{f"cka_pretrained_{s}": m[f"cka_scratch_{s}"] - 0.05 for s in sizes}} for m in ms]


def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14.5, 3.6))
    ax1, ax2, ax3, ax4 = fig.subplots(1, 4)
    for i, m in enumerate(ms):
        c = m["curve"]
        for j, a in enumerate(NAMES):
            ax1.plot(c["step"], c[f"kl_{a}"], color=f"C{j}", alpha=0.7, label=a if i == 0 else None)
        ax2.errorbar(c["step"], c["decomp_gap"], yerr=3 * np.asarray(c["decomp_se"]), color=f"C{i}", alpha=0.6,
                     fmt=".-", label=f"seed {i}")
    ax1.set_yscale("log")
    ax1.set_xlabel("training step")
    ax1.set_ylabel("KL_A (nats per span)")
    ax1.legend(fontsize=7)
    ax2.axhline(0.0, color="k", lw=0.8)
    ax2.set_xlabel("training step")
    ax2.set_ylabel("(KL - overhead) - sum E[N_A] KL_A (nats)")
    ax2.set_title("decomposition gap, +-3 SE", fontsize=9)
    sizes = sorted({k[len("kl_scratch_"):] for k in ms[0] if k.startswith("kl_scratch_")},
                   key=lambda s: ms[0][f"params_{s}"])
    x = np.arange(len(sizes))
    for off, kind in ((-0.15, "scratch"), (0.15, "pretrained")):
        vals = [seeds_of(ms, f"kl_{kind}_{s}") for s in sizes]
        ax3.bar(x + off, [v.mean() for v in vals], width=0.3, label=kind, alpha=0.7)
        for xi, v in zip(x, vals):
            ax3.plot([xi + off] * len(v), v, "k.", ms=3)
    ax3.set_xticks(x)
    ax3.set_xticklabels([f"{s}\n{ms[0]['params_' + s]:.0f} p" for s in sizes], fontsize=7)
    ax3.set_ylabel("final KL (nats per sentence)")
    ax3.legend(fontsize=7)
    if f"cka_scratch_{sizes[0]}" in ms[0]:
        for off, kind in ((-0.25, "untrained"), (0.0, "scratch"), (0.25, "pretrained")):
            vals = [seeds_of(ms, f"cka_{kind}_{s}") for s in sizes]
            ax4.bar(x + off, [v.mean() for v in vals], width=0.25, label=kind, alpha=0.7)
            for xi, v in zip(x, vals):
                ax4.plot([xi + off] * len(v), v, "k.", ms=3)
        shuf = np.mean([seeds_of(ms, f"cka_shuffled_scratch_{s}").mean() for s in sizes])
        ax4.axhline(shuf, color="gray", ls=":", lw=1, label="shuffled pairing")
        ax4.set_xticks(x)
        ax4.set_xticklabels(sizes, fontsize=7)
        ax4.set_ylabel("linear CKA, span in context vs isolation")
        ax4.set_ylim(0, 1)
        ax4.legend(fontsize=7)
    fig.tight_layout()
    return fig
