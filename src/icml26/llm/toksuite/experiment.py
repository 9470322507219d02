"""Small-scale TokSuite (arXiv:2512.20757): eight tiny LMs that differ only in the tokenizer, one perturbation benchmark.

Parts of one seed (``run`` composes them):

* ``suite``: the eight tokenizers fitted on the corpus (the fit shipped in ``fits.json.gz``,
  :func:`method.cached_suite`; a fresh fit of Unigram/WordPiece differs per process), their
  vocabulary sizes and bytes per token, and the super vocabulary;
* ``superset``: one LM over the super vocabulary trained on the corpus as every member
  tokenizes it (TokSuite's phase 1);
* ``members``: one TinyLM per tokenizer, warm-started from the superset (phase 2) and trained
  for the same steps x batch x window tokens (phase 3, the paper's equal token budget; bytes
  seen differ and are reported);
* ``benchmark``: multiple-choice accuracy on clean and perturbed questions, relative drop per
  category, per-item bootstrap interval and per-item Wilcoxon test for bytes vs BPE-large on
  Noise, and the summary numbers the claims read (spreads, top category, NFKC folding).

Claims and the checks that decide them are declared in ``__init__``; the hand-written ones are
below (``check_<id>``, ``contradict_<id>``, ``control_<id>``).
"""

from __future__ import annotations

import copy

import numpy as np

from icml26.core.paper import Profile, Verdict

ALGORITHMS_AT_MID = ("bpe_m", "unigram", "wordpiece")
BPE_SIZES = ("bpe_s", "bpe_m", "bpe_l")
LABELS = {"bytes": "bytes", "chars": "chars", "bpe_s": "BPE-S", "bpe_m": "BPE-M", "bpe_l": "BPE-L",
          "unigram_nfkc": "Unigram+NFKC", "unigram": "Unigram", "wordpiece": "WordPiece"}


# ----------------------------------------------------------------------------- parts
def suite_part(texts, profile: Profile):
    from icml26.llm.toksuite.method import bytes_per_token, cached_suite, super_vocabulary

    sizes = {"small": int(profile["vocab_small"]), "mid": int(profile["vocab_mid"]),
             "large": int(profile["vocab_large"])}
    suite = cached_suite(texts, sizes)
    sv, maps = super_vocabulary(suite)
    metrics = {"sv_size": len(sv)}
    for name, tok in suite.items():
        metrics[f"vocab/{name}"] = tok.vocab_size
        metrics[f"bpt/{name}"] = bytes_per_token(tok, texts)
    return suite, sv, maps, metrics


def _encode_all(tok, texts) -> list[np.ndarray]:
    """Each sentence as <bos> + ids."""
    return [np.asarray(tok.encode(t, bos=True), dtype=np.int64) for t in texts]


def _sampler(sentences: list[list[np.ndarray]], window: int, batch: int, pad_id: int = 0):
    """Rows of ``window`` slots packed with whole random sentences (never cut), padded at the end.

    Every model gets the same steps x batch x window slots: the paper's equal token budget; a
    sentence longer than the window is cut to it. ``sentences`` is one list per tokenization
    (the superset draws a tokenization per row).
    """
    import torch

    def sample(gen):
        x = torch.full((batch, window + 1), pad_id, dtype=torch.long)
        for r in range(batch):
            pool = sentences[int(torch.randint(len(sentences), (1,), generator=gen))]
            pos = 0
            while True:
                s = pool[int(torch.randint(len(pool), (1,), generator=gen))][: window + 1]
                if pos + len(s) > window + 1:
                    break
                x[r, pos:pos + len(s)] = torch.as_tensor(s)
                pos += len(s)
        return x

    return sample


def _config(vocab: int, profile: Profile):
    from icml26.nn.transformer import LMConfig

    return LMConfig(vocab_size=vocab, d_model=int(profile["d_model"]), n_layers=int(profile["n_layers"]),
                    n_heads=4, max_len=int(profile["max_len"]))


def superset_part(suite, sv, maps, texts, profile: Profile, seed: int):
    """TokSuite phase 1: an LM over the super vocabulary, trained on every member's tokenization."""
    import torch

    from icml26.nn.train import train_lm
    from icml26.nn.transformer import TinyLM

    window = int(profile["window"])
    sents = [[maps[name][s] for s in _encode_all(tok, texts)] for name, tok in suite.items()]
    pad = int(sents[0][0][0] * 0 + maps[next(iter(suite))][0])  # every member's <pad> is id 0 -> one SV id
    torch.manual_seed(seed)
    model = TinyLM(_config(len(sv), profile))
    losses = train_lm(model, _sampler(sents, window, int(profile["batch"]), pad), steps=int(profile["superset_steps"]),
                      lr=float(profile["lr"]), seed=seed, warmup=10, pad_id=pad)
    return model, {"superset/loss_first": float(np.mean(losses[:5])), "superset/loss_last": float(np.mean(losses[-5:]))}


def members_part(suite, maps, superset, texts, profile: Profile, seed: int):
    """TokSuite phases 2-3: every member warm-started from the superset, trained on an equal token budget."""
    from icml26.llm.toksuite.method import init_from_superset
    from icml26.nn.train import train_lm

    window, batch, steps = int(profile["window"]), int(profile["batch"]), int(profile["steps"])
    models, metrics = {}, {}
    for name, tok in suite.items():
        sents = _encode_all(tok, texts)
        model = init_from_superset(superset, maps[name])
        losses = train_lm(model, _sampler([sents], window, batch, tok.pad_id), steps=steps, lr=float(profile["lr"]),
                          seed=seed + 1, warmup=10, pad_id=tok.pad_id)
        models[name] = model
        metrics[f"loss_first/{name}"] = float(np.mean(losses[:5]))
        metrics[f"loss_last/{name}"] = float(np.mean(losses[-5:]))
        metrics[f"tokens_seen/{name}"] = float(steps * batch * window)
        per_row = window / np.mean([len(x) for x in sents])
        metrics[f"epochs/{name}"] = float(steps * batch * np.floor(per_row) / len(sents)) if per_row >= 1 else 0.0
    return models, metrics


def _correct(model, tok, items, questions) -> np.ndarray:
    from icml26.llm.toksuite.method import score_choices
    from icml26.llm.toksuite.setting import SEP

    scores = score_choices(model, tok, questions, [it.choices for it in items], [SEP[it.lang] for it in items])
    return (scores.argmax(1) == np.array([it.answer for it in items])).astype(float)


def benchmark_part(suite, models, items, profile: Profile, seed: int) -> dict:
    from scipy.stats import wilcoxon

    from icml26.llm.toksuite.method import bootstrap_drop, relative_drop
    from icml26.llm.toksuite.setting import CATEGORIES

    out: dict = {}
    fact = [it for it in items if it.lang != "stem"]
    stem = [it for it in items if it.lang == "stem"]
    per_item: dict = {}
    for name, tok in suite.items():
        model = models[name]
        clean = _correct(model, tok, items, [it.question for it in items])
        clean_of = dict(zip((it.id for it in items), clean))
        out[f"clean_acc/{name}"] = float(np.mean([clean_of[it.id] for it in fact]))
        out[f"stem_acc/{name}"] = float(np.mean([clean_of[it.id] for it in stem]))
        drops = []
        for cat in CATEGORIES:
            sub = [it for it in items if cat in it.perturbed]
            c = np.array([clean_of[it.id] for it in sub])
            p = _correct(model, tok, sub, [it.perturbed[cat] for it in sub])
            per_item[(name, cat)] = (c, p)
            out[f"acc_clean/{name}/{cat}"] = float(c.mean())
            out[f"acc/{name}/{cat}"] = float(p.mean())
            d = relative_drop(float(c.mean()), float(p.mean()))
            out[f"drop/{name}/{cat}"] = d
            drops.append(d)
        out[f"mean_drop/{name}"] = float(np.nanmean(drops))
        out[f"n_items/{name}"] = len(items)
    names = list(suite)
    out["clean_acc_min"] = min(out[f"clean_acc/{n}"] for n in names)
    md = {n: out[f"mean_drop/{n}"] for n in names}
    out["spread/algorithms"] = max(md[n] for n in ALGORITHMS_AT_MID) - min(md[n] for n in ALGORITHMS_AT_MID)
    out["spread/bpe_sizes"] = max(md[n] for n in BPE_SIZES) - min(md[n] for n in BPE_SIZES)
    out["spread/all"] = max(md.values()) - min(md.values())
    # the category that hurts most, averaged over the non-normalising members and for the NFKC member
    plain = [n for n in names if n != "unigram_nfkc"]
    avg = {cat: float(np.nanmean([out[f"drop/{n}/{cat}"] for n in plain])) for cat in CATEGORIES}
    out.update({f"avg_drop_plain/{cat}": v for cat, v in avg.items()})
    out["unicode_top/plain"] = float(max(avg, key=avg.get) == "unicode")
    out["unicode_top_frac/plain"] = float(np.mean([
        max(CATEGORIES, key=lambda c, n=n: out[f"drop/{n}/{c}"]) == "unicode" for n in plain]))
    nf = {cat: out[f"drop/unigram_nfkc/{cat}"] for cat in CATEGORIES}
    out["unicode_top/unigram_nfkc"] = float(max(nf, key=nf.get) == "unicode")
    # Noise: bytes vs BPE-L, per-item paired bootstrap interval of the drop difference, and a Wilcoxon test
    (ca, pa), (cb, pb) = per_item[("bytes", "noise")], per_item[("bpe_l", "noise")]
    lo, hi = bootstrap_drop(ca, pa, cb, pb, n_boot=int(profile["n_boot"]), seed=seed)
    out["noise_diff_ci/lo"], out["noise_diff_ci/hi"] = lo, hi
    da, db = ca - pa, cb - pb
    out["noise_wilcoxon_p"] = float(wilcoxon(db, da, alternative="greater").pvalue) if np.any(da != db) else 1.0
    return out


def folding_part(suite, items) -> dict:
    """NFKC folds styled and full-width text back: the normalising member's token ids do not change."""
    tok = suite["unigram_nfkc"]
    out = {}
    for cat in ("unicode", "stem"):
        sub = [it for it in items if cat in it.perturbed]
        same = [tok.encode(it.perturbed[cat]) == tok.encode(it.question) for it in sub]
        out[f"nfkc_folds/{cat}"] = float(np.mean(same))
        plain = suite["unigram"]
        out[f"plain_unchanged/{cat}"] = float(np.mean([plain.encode(it.perturbed[cat]) == plain.encode(it.question)
                                                       for it in sub]))
    # the collision that costs the NFKC member on STEM: "2³" and "23" tokenize the same
    stem = [it for it in items if it.lang == "stem"]
    keys = {}
    for it in stem:
        keys.setdefault(tuple(tok.encode(it.question)), set()).add(it.id)
    out["nfkc_stem_collisions"] = float(np.mean([len(v) > 1 for v in keys.values()]))
    return out


def efficiency_part(metrics: dict) -> dict:
    b = [metrics[f"bpt/{n}"] for n in ("bytes", *BPE_SIZES)]
    return {"efficiency_order": float(b[0] == 1.0 and b[0] < b[1] < b[2] < b[3])}


def run(profile: Profile, seed: int) -> dict:
    import torch

    from icml26.llm.toksuite.setting import build_items, corpus, perturb

    torch.set_num_threads(max(1, profile.cpus))
    n = int(profile["n_territories"])
    texts = corpus(n)
    items = perturb(build_items(n, seed), n, seed, rate=float(profile["noise_rate"]))
    suite, sv, maps, metrics = suite_part(texts, profile)
    superset, m = superset_part(suite, sv, maps, texts, profile, seed)
    metrics.update(m)
    models, m = members_part(suite, maps, superset, texts, profile, seed)
    metrics.update(m)
    metrics.update({f"bytes_seen/{k}": metrics[f"tokens_seen/{k}"] * metrics[f"bpt/{k}"] for k in suite})
    metrics.update(benchmark_part(suite, models, items, profile, seed))
    metrics.update(folding_part(suite, items))
    metrics.update(efficiency_part(metrics))
    return metrics


# ----------------------------------------------------------------------------- hand-written checks
GATE_ACC = 0.6


def _gate(ms) -> str | None:
    v = [m["clean_acc_min"] for m in ms]
    if min(v) < GATE_ACC:
        return (f"precondition failed: clean accuracy >= {GATE_ACC} for every model in every seed is not met "
                f"(lowest per seed: {', '.join(f'{x:.2f}' for x in v)}), so relative drops are not interpreted")
    return None


def _nc(v: Verdict, why: str) -> Verdict:
    return Verdict("not-checkable", v.measured, f"{why}. (On these numbers the check would say {v.status}.) "
                   + v.evidence, value=v.value, ci=v.ci, control=v.control)


# Review helpers: named check_util_* so that, like the checks, they stay out of the run fingerprint.
def check_util_subsets() -> dict:
    """Category subsets for the review's sensitivity lines.

    All five; without STEM (the clean-accuracy gate covers the fact items only, and chars / BPE-M /
    bytes are near chance on clean STEM items, so their STEM "drop" of ~0 says nothing about
    robustness); the three categories no member's normaliser folds.
    """
    return {"all": ("input", "diacritics", "noise", "unicode", "stem"),
            "no STEM": ("input", "diacritics", "noise", "unicode"),
            "input/diacritics/noise": ("input", "diacritics", "noise")}


def check_util_mean_drop(m, name: str, cats) -> float:
    return float(np.nanmean([m[f"drop/{name}/{c}"] for c in cats]))


def check_util_chance_corrected(m, name: str, cat: str, chance: float = 0.25) -> float:
    """(clean - perturbed) / (clean - chance) for 4-way items: 1 = perturbed accuracy at chance, whatever the clean."""
    c, p = m[f"acc_clean/{name}/{cat}"], m[f"acc/{name}/{cat}"]
    return (c - p) / (c - chance) if c > chance + 0.05 else float("nan")


def check_design_over_size(ms) -> Verdict:
    """Spread of mean drop across algorithms at the mid size minus spread across BPE sizes; seed-bootstrap CI > 0."""
    from icml26.core.stats import bootstrap_ci

    a = np.array([m["spread/algorithms"] for m in ms])
    b = np.array([m["spread/bpe_sizes"] for m in ms])
    d = a - b
    lo, hi = bootstrap_ci(d) if len(d) > 1 else (float("nan"), float("nan"))
    mean = float(d.mean())
    if len(d) < 2:
        status = "not-checkable"
    elif lo > 0:
        status = "reproduced"
    elif mean > 0:
        status = "partly"
    else:
        status = "not-reproduced"
    sens = []
    for label, cats in list(check_util_subsets().items())[1:]:
        if all(f"drop/{n}/{c}" in ms[0] for n in (*ALGORITHMS_AT_MID, *BPE_SIZES) for c in cats):
            ds = [np.ptp([check_util_mean_drop(m, n, cats) for n in ALGORITHMS_AT_MID])
                  - np.ptp([check_util_mean_drop(m, n, cats) for n in BPE_SIZES]) for m in ms]
            sens.append(f"{label}: {', '.join(f'{x:+.3f}' for x in ds)}")
    bpt = {n: float(np.mean([m[f"bpt/{n}"] for m in ms])) for n in BPE_SIZES if f"bpt/{n}" in ms[0]}
    v = Verdict(status, f"spread across algorithms (BPE-M, Unigram, WordPiece) {a.mean():.3f} vs across BPE sizes "
                        f"(S, M, L) {b.mean():.3f}",
                f"rule: mean over seeds of (spread_algorithms - spread_sizes) with a 95% seed-bootstrap CI whose lower "
                f"end is > 0; partly if the mean is > 0 but the CI reaches 0; difference {mean:.3f} [{lo:.3f}, {hi:.3f}]"
                f", per seed {', '.join(f'{x:+.3f}' for x in d)}; {len(d)} seeds. Review context (not part of the "
                f"rule): the same per-seed difference over category subsets, {'; '.join(sens)}; our size axis spans "
                f"{', '.join(f'{LABELS[n]} {x:.2f}' for n, x in bpt.items())} bytes per token on a corpus of a few kB "
                f"(the largest BPE nearly whole phrases), a far wider compression range than the paper's 32k-256k "
                f"vocabularies",
                value=mean, ci=(lo, hi), control=f"spread across BPE sizes: {b.mean():.3f}")
    why = _gate(ms) or ("a bootstrap over one seed has no width" if len(d) < 2 else None)
    return _nc(v, why) if why and status != "not-checkable" else v


def contradict_design_over_size(ms):
    out = copy.deepcopy(list(ms))
    for m in out:
        m["spread/algorithms"], m["spread/bpe_sizes"] = m["spread/bpe_sizes"], m["spread/algorithms"] + 0.1
    return out


def control_design_over_size(ms):
    out = copy.deepcopy(list(ms))
    for m in out:
        m["spread/algorithms"] = m["spread/bpe_sizes"]
    return out


def _members(m) -> list[str]:
    return sorted(k.split("/", 1)[1] for k in m if k.startswith("mean_drop/"))


def check_effect_over_noise(ms) -> Verdict:
    """Spread (max - min) of the seed-mean mean drop across tokenizers > 2 x the largest per-tokenizer seed std."""
    names = _members(ms[0])
    x = np.array([[m[f"mean_drop/{n}"] for n in names] for m in ms])  # (seeds, tokenizers)
    means = x.mean(0)
    spread = float(means.max() - means.min())
    noise = float(x.std(0, ddof=1).max()) if len(ms) > 1 else float("nan")
    ok = len(ms) > 1 and spread > 2 * noise
    status = "not-checkable" if len(ms) < 2 else ("reproduced" if ok else "not-reproduced")
    sens = []
    if len(ms) > 1:
        variants = [("without Unigram+NFKC (2 of its 5 drops are 0 by construction)",
                     [n for n in names if n != "unigram_nfkc"], check_util_subsets()["all"]),
                    ("no STEM", names, check_util_subsets()["no STEM"]),
                    ("input/diacritics/noise only", names, check_util_subsets()["input/diacritics/noise"])]
        for label, ns, cats in variants:
            if all(f"drop/{n}/{c}" in ms[0] for n in ns for c in cats):
                y = np.array([[check_util_mean_drop(m, n, cats) for n in ns] for m in ms])
                sens.append(f"{label}: spread {np.ptp(y.mean(0)):.3f} vs 2 x std {2 * y.std(0, ddof=1).max():.3f}")
    worst = names[int(np.argmax(means))]
    best = names[int(np.argmin(means))]
    v = Verdict(status, f"spread of mean relative drop across the {len(names)} tokenizers {spread:.3f} (most robust "
                        f"{LABELS.get(best, best)} {means.min():.3f}, least {LABELS.get(worst, worst)} "
                        f"{means.max():.3f}) vs 2 x largest seed std {2 * noise:.3f}",
                f"rule: spread > 2 x the largest per-tokenizer across-seed std (ddof=1), the issue's rule; {len(ms)} "
                f"seeds (rule revised after the full run by review: a 'partly if spread > 1 x' tier was removed -- "
                f"it is not in the issue's rule, and with 8 exchangeable tokenizers and 3 seeds it fires about half "
                f"the time, the 2 x rule about 3%; the stored verdict is unchanged). Review context: "
                f"{'; '.join(sens) or 'n/a'}; the claim is a premise of the paper (tokenizers differ) rather than "
                f"one of its specific findings", value=spread / noise if noise and np.isfinite(noise) else None,
                control=f"2 x seed std: {2 * noise:.3f}")
    why = _gate(ms) or ("one seed has no seed noise" if len(ms) < 2 else None)
    return _nc(v, why) if why and status != "not-checkable" else v


def contradict_effect_over_noise(ms):
    out = copy.deepcopy(list(ms))
    for i, m in enumerate(out):
        for n in _members(m):
            m[f"mean_drop/{n}"] = 0.3 + (0.2 if i % 2 else -0.2)
    return out


def control_effect_over_noise(ms):
    """A suite in which the tokenizer does not matter: every member gets the byte model's drops."""
    out = copy.deepcopy(list(ms))
    for m in out:
        for n in _members(m):
            m[f"mean_drop/{n}"] = m["mean_drop/bytes"]
    return out


def check_unicode_top(ms) -> Verdict:
    """Unicode styling is the category with the largest mean drop over the non-normalising models in >= 2/3 seeds."""
    from icml26.llm.toksuite.setting import CATEGORIES

    top = np.array([m["unicode_top/plain"] for m in ms])
    frac = float(top.mean())
    status = "reproduced" if frac >= 2 / 3 - 1e-9 else ("partly" if frac >= 0.5 else "not-reproduced")
    avg = {c: float(np.mean([m[f"avg_drop_plain/{c}"] for m in ms])) for c in CATEGORIES}
    nf = {c: float(np.mean([m[f"drop/unigram_nfkc/{c}"] for m in ms])) for c in CATEGORIES}
    plain = [n for n in _members(ms[0]) if n != "unigram_nfkc"]
    cc = {c: float(np.nanmean([check_util_chance_corrected(m, n, c) for m in ms for n in plain]))
          if all(f"acc/{n}/{c}" in ms[0] for n in plain) else float("nan") for c in CATEGORIES}
    v = Verdict(status, "mean drop of non-normalising models by category: "
                + ", ".join(f"{c} {x:.2f}" for c, x in avg.items())
                + f"; unicode is the top category in {int(top.sum())}/{top.size} seeds "
                  f"(per model: {np.mean([m['unicode_top_frac/plain'] for m in ms]):.0%} of models)",
                f"rule: unicode has the largest average relative drop over the 7 non-normalising models in >= 2/3 of "
                f"seeds; partly in >= 1/2; {len(ms)} seeds. Review context (not part of the rule): chance-corrected "
                f"drop (clean - perturbed) / (clean - 0.25) averaged the same way, "
                + ", ".join(f"{c} {x:.2f}" for c, x in cc.items())
                + " (1 = perturbed accuracy at chance): where the top two categories are both near 1, both reduce "
                  "the models to chance and the raw-drop ranking between them is set by per-language clean "
                  "accuracy, not by the perturbation; our romanised (input) questions are entirely outside the "
                  "training corpus, which holds no romanised text", value=frac,
                control="Unigram+NFKC by category: " + ", ".join(f"{c} {x:.2f}" for c, x in nf.items()))
    why = _gate(ms)
    return _nc(v, why) if why else v


def contradict_unicode_top(ms):
    out = copy.deepcopy(list(ms))
    for m in out:
        m["unicode_top/plain"] = 0.0
    return out


def control_unicode_top(ms):
    """The same question asked of the NFKC model, whose normaliser removes the styling."""
    out = copy.deepcopy(list(ms))
    for m in out:
        m["unicode_top/plain"] = m["unicode_top/unigram_nfkc"]
    return out


# ----------------------------------------------------------------------------- figure
def figure(ms):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from icml26.llm.toksuite.setting import CATEGORIES

    names = _members(ms[0])
    order = [n for n in LABELS if n in names]
    grid = np.array([[np.nanmean([m[f"drop/{n}/{c}"] for m in ms]) for c in CATEGORIES] for n in order])
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(11, 4))
    im = a0.imshow(grid, cmap="magma_r", vmin=-0.1, vmax=1.0, aspect="auto")
    a0.set_xticks(range(len(CATEGORIES)), CATEGORIES, rotation=30)
    a0.set_yticks(range(len(order)), [LABELS[n] for n in order])
    a0.set_xlabel("perturbation category")
    a0.set_ylabel("tokenizer (one tiny LM each)")
    a0.set_title("relative accuracy drop (clean - perturbed) / clean")
    fig.colorbar(im, ax=a0, label="relative drop (lower = more robust)")
    clean = [np.mean([m[f"clean_acc/{n}"] for m in ms]) for n in order]
    md = [np.mean([m[f"mean_drop/{n}"] for m in ms]) for n in order]
    a1.scatter(clean, md)
    for n, x, y in zip(order, clean, md):
        a1.annotate(LABELS[n], (x, y), fontsize=8)
    a1.axvline(GATE_ACC, ls="--", c="grey", label="clean-accuracy gate")
    a1.set_xlabel("clean accuracy (fraction of 4-way items)")
    a1.set_ylabel("mean relative drop over categories")
    a1.legend()
    fig.tight_layout()
    return fig


def check_tokenmonster_most_robust(ms) -> Verdict:
    """Not decidable here; shows the most robust member of our suite and its mean drop."""
    names = _members(ms[0])
    means = {n: float(np.mean([m[f"mean_drop/{n}"] for m in ms])) for n in names}
    best = min(means, key=means.get)
    return Verdict("not-checkable", f"most robust of our suite: {LABELS.get(best, best)}, mean relative drop "
                                    f"{means[best]:.3f}",
                   "TokenMonster is not in our suite", value=means[best])


def contradict_tokenmonster_most_robust(ms):
    return copy.deepcopy(list(ms))


# ----------------------------------------------------------------------------- bytes-resist-noise
def check_util_bytes_noise():
    """The pre-registered rule (issue: bytes' Noise drop below the largest BPE's in >= 2/3 seeds), gated."""
    from icml26.core import checks as C

    gate = C.gate("clean_acc_min", at_least=GATE_ACC,
                  why=f"clean accuracy >= {GATE_ACC} for every model (relative drops interpretable)")
    return C.beats_in_seeds("drop/bytes/noise", "drop/bpe_l/noise", margin=0.01, frac=0.66, better="lower",
                            label="bytes noise drop", control_label="BPE-L noise drop").gated(gate)


def check_bytes_resist_noise(ms) -> Verdict:
    """The pre-registered count rule, with the byte model's place in the whole suite added as context."""
    import dataclasses

    v = check_util_bytes_noise()(ms)
    names = _members(ms[0])
    keys = ("acc/{}/noise", "acc_clean/{}/noise", "drop/{}/noise")
    if not {"bytes", "bpe_l"} <= set(names) or not all(k.format(n) in ms[0] for n in names for k in keys):
        return v
    raw = {n: float(np.mean([m[f"drop/{n}/noise"] for m in ms])) for n in names}
    cc = {n: float(np.nanmean([check_util_chance_corrected(m, n, "noise") for m in ms])) for n in names}
    rank = sorted(names, key=raw.get).index("bytes") + 1
    acc_b = [m["acc/bytes/noise"] for m in ms]
    acc_l = [m["acc/bpe_l/noise"] for m in ms]
    ctx = (f"Review context (not part of the rule): perturbed Noise accuracy bytes vs BPE-L per seed "
           + ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(acc_b, acc_l))
           + f"; chance-corrected drop bytes {cc['bytes']:.2f} vs BPE-L {cc['bpe_l']:.2f}; but in the whole suite "
           f"the byte model ranks {rank}/{len(names)} on raw Noise drop ("
           + ", ".join(f"{LABELS.get(n, n)} {raw[n]:.2f}" for n in sorted(names, key=raw.get))
           + "), so it beats the pre-registered control (the suite's most fragile member) rather than the suite; "
             "at the equal token budget it sees ~1/5 of BPE-L's bytes (epochs/bytes vs epochs/bpe_l; an equal-bytes "
             "probe is noted in the claim statement)")
    return dataclasses.replace(v, evidence=v.evidence + ". " + ctx)


def contradict_bytes_resist_noise(ms):
    return check_util_bytes_noise().contradict(ms)


def control_bytes_resist_noise(ms):
    return check_util_bytes_noise().on_control(ms)
