"""Small-scale reproduction of BEAT (arXiv:2604.19532): efficiency, modelling and long-range tests.

Data: the first ``n_pieces`` usable Bach chorales (``setting.load_chorales``), a fixed split by
piece (every 7th piece is test). Tokenizations: BEAT variants C (default; the LM is trained on
it), B and D (efficiency only), MidiTok REMI on the same grid, and MidiTok REMI + BPE trained on
the training pieces to BEAT-C's raw vocabulary size (7,145), the control the issue asks for;
REMI + BPE trained to the number of BEAT-C tokens the training set actually uses is reported.

Parts of one seed (everything but the LMs and the A B A draws is the same in every seed and is built once
by ``prepare`` and cached on disk with ``icml26.core.cache``; BPE fits are cached too):
* ``efficiency``: tokens per bar on the test pieces and round-trip exactness on every piece
  (deterministic; the same in every seed);
* ``language_models``: one ``TinyLM`` (same body, same optimiser, same steps x batch x window
  tokens: equal token budget) per tokenization in {BEAT-C, REMI, REMI + BPE}; each vocabulary is
  the set of ids its training stream uses (plus UNK), so no model carries untrained rows;
* ``bits_per_bar``: summed next-token NLL in bits per bar on every non-overlapping ``eval_bars``-bar
  window of the test pieces, kept only where every tokenization round-trips exactly, fits in the
  LM window and covers the excerpt with its vocabulary; and the same tokens under a unigram model
  (the gate);
* ``aba``: A B A sequences of ``aba_bars``-bar excerpts of two test pieces (drawn by the seed);
  NLL(second A) / NLL(first A), the whole sequence in every model's window.
"""

from __future__ import annotations

import hashlib
import math
import tempfile
from pathlib import Path

import numpy as np

from icml26.core.paper import Profile, Verdict

LMS = ("beat", "remi", "remi_bpe")
LABELS = {"beat": "BEAT-C", "remi": "REMI", "remi_bpe": "REMI + BPE (7,145)",
          "remi_bpe_used": "REMI + BPE (BEAT's used vocab)", "beat_b": "BEAT-B", "beat_d": "BEAT-D"}
GATE_RATIO = 0.8
PREPARED_VERSION = 1  # bump when what prepare() stores changes


# ----------------------------------------------------------------------------- tokenizers
def _bpe(train, vocab_size: int):
    """MidiTok REMI + BPE, trained once per (training set, size) and cached on disk."""
    import miditok

    from icml26.llm.beat_tokenization.method import train_remi_bpe
    from icml26.llm.beat_tokenization.setting import _cache_dir

    key = hashlib.sha1(repr([(p.name, p.notes) for p in train]).encode()).hexdigest()[:12]
    path = _cache_dir() / f"remi_bpe_{key}_{vocab_size}.json"
    if path.exists():
        return miditok.REMI(params=path)
    with tempfile.TemporaryDirectory() as d:
        tok = train_remi_bpe(train, vocab_size, d)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.json")
    tok.save(tmp)
    tmp.replace(path)
    return tok


class Codec:
    """One tokenization as ``encode(piece) -> raw ids`` / ``decode(ids) -> piece`` with BOS/EOS."""

    def __init__(self, name: str, tokenizer=None, variant: str = "C"):
        self.name, self.tok, self.variant = name, tokenizer, variant

    def encode(self, piece) -> list[int]:
        from icml26.llm.beat_tokenization.method import encode, remi_encode

        if self.tok is None:
            return encode(piece, self.variant)
        return [1] + remi_encode(self.tok, piece) + [2]  # MidiTok's BOS_None / EOS_None

    def decode(self, ids):
        from icml26.llm.beat_tokenization.method import decode, remi_decode

        if self.tok is None:
            return decode(ids, self.variant)
        return remi_decode(self.tok, ids[1:-1])


def build_codecs(train, names=None) -> dict:
    """Every tokenization (or those in ``names``); BPE fits are cached on disk."""
    from icml26.llm.beat_tokenization.method import Vocabulary, encode, raw_vocab_size, remi_tokenizer

    makers = {
        "beat": lambda: Codec("beat", None, "C"), "beat_b": lambda: Codec("beat_b", None, "B"),
        "beat_d": lambda: Codec("beat_d", None, "D"), "remi": lambda: Codec("remi", remi_tokenizer()),
        "remi_bpe": lambda: Codec("remi_bpe", _bpe(train, raw_vocab_size("C"))),
        "remi_bpe_used": lambda: Codec("remi_bpe_used",
                                       _bpe(train, len(Vocabulary([encode(p, "C") for p in train])) - 2)),
    }
    return {name: makers[name]() for name in (makers if names is None else names)}


# ----------------------------------------------------------------------------- parts
def efficiency(codecs: dict, pieces, test) -> dict:
    from icml26.llm.beat_tokenization.method import same_music, tokens_per_bar

    out = {}
    for name, c in codecs.items():
        out[f"tpb/{name}"] = tokens_per_bar([c.encode(p) for p in test], test)
    for name in ("beat", "beat_b", "beat_d", "remi"):
        c = codecs[name]
        out[f"roundtrip/{name}"] = float(np.mean([same_music(c.decode(c.encode(p)), p) for p in pieces]))
    return out


def train_lm(stream: list[int], vocab: int, profile: Profile, seed: int):
    import torch

    from icml26.nn.train import train_lm as _train
    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(seed)
    window, batch = int(profile["window"]), int(profile["batch"])
    cfg = LMConfig(vocab_size=vocab, d_model=int(profile["d_model"]), n_layers=int(profile["n_layers"]),
                   n_heads=4, max_len=window)
    model = TinyLM(cfg)
    data = torch.tensor(stream, dtype=torch.long)

    def sample(gen):
        starts = torch.randint(0, len(data) - window - 1, (batch,), generator=gen)
        return torch.stack([data[s:s + window] for s in starts.tolist()])

    losses = _train(model, sample, steps=int(profile["steps"]), lr=3e-3, warmup=20, seed=seed)
    return model, losses


def _token_nll(model, ids: list[int]) -> np.ndarray:
    """Next-token NLL in bits at positions 1..len-1 of one sequence."""
    import torch

    with torch.no_grad():
        x = torch.tensor([ids], dtype=torch.long)
        logits, _ = model(x[:, :-1])
        lp = torch.log_softmax(logits[0], -1).gather(1, x[0, 1:, None])[:, 0]
    return (-lp / math.log(2)).numpy()


def _excerpts(test, bars: int):
    """Every non-overlapping ``bars``-bar window of every test piece (windows without notes dropped)."""
    out = [p.crop(k, bars) for p in test for k in range(0, p.n_bars - bars + 1, bars)]
    return [e for e in out if e.notes]


def eval_excerpts(codecs: dict, vocabs: dict, test, profile: Profile) -> dict:
    """Per LM the raw ids of the ``eval_bars``-bar test excerpts every tokenization handles exactly (and their bars)."""
    from icml26.llm.beat_tokenization.method import same_music

    window = int(profile["window"])
    keep: dict = {name: [] for name in LMS}
    bars = []
    for pc in _excerpts(test, int(profile["eval_bars"])):
        enc = {name: codecs[name].encode(pc) for name in LMS}
        if all(len(ids) <= window and vocabs[name].covers(ids) and same_music(codecs[name].decode(ids), pc)
               for name, ids in enc.items()):
            for name in LMS:
                keep[name].append(enc[name])
            bars.append(pc.n_bars)
    return {"ids": keep, "bars": bars}


def prepare(profile: Profile) -> dict:
    """The seed-independent part of a run (the same in every seed), cached on disk: efficiency metrics, each LM's
    encoded training pieces and the encoded evaluation excerpts."""
    from icml26.core.cache import cached
    from icml26.llm.beat_tokenization.method import Vocabulary
    from icml26.llm.beat_tokenization.setting import load_chorales, split

    def build():
        pieces = load_chorales(int(profile["n_pieces"]))
        train, test = split(pieces)
        codecs = build_codecs(train)
        seqs = {name: [codecs[name].encode(p) for p in train] for name in LMS}
        vocabs = {name: Vocabulary(s) for name, s in seqs.items()}
        return {"efficiency": efficiency(codecs, pieces, test), "seqs": seqs,
                "bars": [p.n_bars for p in train], "eval": eval_excerpts(codecs, vocabs, test, profile)}

    params = {"version": PREPARED_VERSION, "n_pieces": int(profile["n_pieces"]), "window": int(profile["window"]),
              "eval_bars": int(profile["eval_bars"])}
    return cached("beat-tokenization", "prepared", build, params=params, fmt="pkl")


def language_models(codecs: dict, prep: dict, test, profile: Profile, seed: int) -> dict:
    from icml26.llm.beat_tokenization.method import Vocabulary

    window = int(profile["window"])
    out: dict = {}
    vocabs, models = {}, {}
    for k, name in enumerate(LMS):
        seqs = prep["seqs"][name]
        vocabs[name] = Vocabulary(seqs)
        stream = [i for s in seqs for i in vocabs[name].ids(s)]
        models[name], losses = train_lm(stream, len(vocabs[name]), profile, 7919 * seed + k)
        out[f"lm/{name}/vocab"] = len(vocabs[name])
        out[f"lm/{name}/params"] = int(sum(p.numel() for p in models[name].parameters()))
        out[f"lm/{name}/loss_first"] = float(np.mean(losses[:10]))
        out[f"lm/{name}/loss_last"] = float(np.mean(losses[-10:]))
        out[f"lm/{name}/bars_per_window"] = window / float(np.mean([len(s) / b for s, b in zip(seqs, prep["bars"])]))

    # bits per bar on excerpts every tokenization handles exactly
    out["eval/n_excerpts"] = len(prep["eval"]["bars"])
    bars = sum(prep["eval"]["bars"])
    for name in LMS:
        v = vocabs[name]
        bits, uni = 0.0, 0.0
        counts = np.array([v.counts.get(t, 0) for t in v.raw], dtype=float)
        p_uni = (counts + 1) / (counts.sum() + len(counts) + 2)
        uni_of = dict(zip(v.raw, -np.log2(p_uni)))
        for raw in prep["eval"]["ids"][name]:
            bits += float(_token_nll(models[name], v.ids(raw)).sum())
            uni += float(sum(uni_of[t] for t in raw[1:]))
        out[f"bpb/{name}"] = bits / bars if bars else float("nan")
        out[f"nll_ratio_unigram/{name}"] = bits / uni if uni > 0 else float("nan")
    out.update(aba(codecs, vocabs, models, test, profile, seed))
    return out


def aba(codecs: dict, vocabs: dict, models: dict, test, profile: Profile, seed: int) -> dict:
    """NLL(second A) / NLL(first A) on A B A sequences; spans found from prefix encodings."""
    from icml26.llm.beat_tokenization.setting import concat

    bars, n_items, window = int(profile["aba_bars"]), int(profile["aba_items"]), int(profile["window"])
    rng = np.random.default_rng(10_000 + seed)
    pool = [p for p in test if p.n_bars >= 2 * bars + 2]
    ratios = {name: [] for name in LMS}
    tries = 0
    while len(ratios[LMS[0]]) < n_items and tries < 20 * n_items and len(pool) >= 2:
        tries += 1
        i, j = rng.choice(len(pool), 2, replace=False)
        a = pool[i].crop(int(rng.integers(0, pool[i].n_bars - bars + 1)), bars)
        b = pool[j].crop(int(rng.integers(0, pool[j].n_bars - bars + 1)), bars)
        if not a.notes or not b.notes:
            continue
        spans, ok = {}, True
        for name in LMS:
            c = codecs[name]
            full = c.encode(concat([a, b, a]))
            p1, p2 = c.encode(a)[:-1], c.encode(concat([a, b]))[:-1]
            ok &= (len(full) <= window and full[:len(p1)] == p1 and full[:len(p2)] == p2
                   and vocabs[name].covers(full))
            spans[name] = (full, len(p1), len(p2))
        if not ok:
            continue
        for name in LMS:
            full, e1, e2 = spans[name]
            nll = _token_nll(models[name], vocabs[name].ids(full))  # nll[k] predicts token k + 1
            first, second = nll[:e1 - 1].sum(), nll[e2 - 1:e2 - 1 + (e1 - 1)].sum()
            ratios[name].append(float(second / max(first, 1e-9)))
    out = {"aba/n_items": len(ratios[LMS[0]])}
    for name in LMS:
        out[f"aba/{name}"] = float(np.mean(ratios[name])) if ratios[name] else float("nan")
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch  # noqa: F401  (seeded below with everything else)

    from icml26.core.seeding import seed_everything
    from icml26.llm.beat_tokenization.setting import load_chorales, split

    seed_everything(seed)
    pieces = load_chorales(int(profile["n_pieces"]))
    train, test = split(pieces)
    prep = prepare(profile)
    codecs = build_codecs(train, names=LMS)
    metrics = {"n_train": len(train), "n_test": len(test)}
    metrics.update(prep["efficiency"])
    metrics.update(language_models(codecs, prep, test, profile, seed))
    return metrics


# ----------------------------------------------------------------------------- checks
def _gate(ms) -> tuple[bool, str]:
    vals = {n: [m[f"nll_ratio_unigram/{n}"] for m in ms] for n in LMS}
    ok = all(v <= GATE_RATIO for vs in vals.values() for v in vs)
    txt = "; ".join(f"{LABELS[n]} {np.mean(v):.3f}" for n, v in vals.items())
    return ok, f"gate: LM NLL / unigram NLL <= {GATE_RATIO} for every model and seed ({txt})"


def _count_rule(ms, key: str, label: str) -> Verdict:
    """BEAT's value is <= both controls' (lower is better) in >= 2/3 of seeds, gated on training."""
    n = len(ms)
    b = np.array([m[f"{key}/beat"] for m in ms])
    r = np.array([m[f"{key}/remi"] for m in ms])
    p = np.array([m[f"{key}/remi_bpe"] for m in ms])
    wins = int(np.sum((b <= r) & (b <= p) & np.isfinite(b)))
    measured = (f"{label}: BEAT-C {np.nanmean(b):.3f} vs REMI {np.nanmean(r):.3f} vs REMI + BPE "
                f"{np.nanmean(p):.3f} (seed means); BEAT lowest in {wins}/{n} seeds")
    control = f"REMI {np.nanmean(r):.3f}; REMI + BPE {np.nanmean(p):.3f}"
    gate_ok, gate_txt = _gate(ms)
    rule = f"rule: BEAT <= REMI and <= REMI + BPE in >= 2/3 of seeds; {n} seeds; {gate_txt}"
    if n < 3:
        return Verdict("not-checkable", measured, "too few seeds: the rule needs 3 seeds; " + rule, control=control)
    status = "reproduced" if wins >= 2 * n / 3 else ("partly" if wins > 0 else "not-reproduced")
    if not gate_ok:
        return Verdict("not-checkable", measured, f"precondition failed (training gate), the check would say "
                       f"{status}; " + rule, control=control)
    return Verdict(status, measured, rule, value=float(wins / n), control=control)


def _swap(ms, key: str, to_control: bool):
    """Contradiction: BEAT worse than both controls. Control: the worse control in BEAT's place (a hair above, so
    a tie is not a win)."""
    out = []
    for m in ms:
        m = dict(m)
        worst = max(m[f"{key}/remi"], m[f"{key}/remi_bpe"])
        m[f"{key}/beat"] = worst + (1e-9 if to_control else 1.0)
        out.append(m)
    return out


def check_better_modelling(ms):
    import dataclasses

    v = _count_rule(ms, "bpb", "bits per bar")
    return dataclasses.replace(v, evidence=v.evidence + (
        "; revised after the full run by review (text only): the full profile was cut from 400 x 8 to 240 x 4 "
        "windows after a first full run (over the time budget) in which REMI + BPE failed the gate (0.817, it "
        "overfits: training loss 1.9 nats, test bits per bar worse than at the smaller size) and the claim was "
        "not-checkable; BEAT was lowest there too, 3/3 seeds (bits per bar 85.8 vs REMI 114.0 vs REMI + BPE 109.0). "
        "Each LM is compared at one fixed budget, without early stopping; the body is shared but the embeddings "
        "are not, so parameters differ (145 k BEAT, 130 k REMI, 325 k REMI + BPE)"))


def contradict_better_modelling(ms):
    return _swap(ms, "bpb", False)


def control_better_modelling(ms):
    return _swap(ms, "bpb", True)


def check_long_range(ms):
    import dataclasses

    v = _count_rule(ms, "aba", "NLL(second A) / NLL(first A)")
    if v.status == "not-checkable":
        return v
    return dataclasses.replace(v, status="not-checkable", evidence=(
        f"revised after the full run by review: the stored ratio does not measure the same music in every "
        f"tokenization, so it cannot decide the claim (the pre-registered rule would say {v.status}). The second-A "
        "span is taken as the first A's token count from the end of the A B prefix: for BEAT it then holds the "
        "A body plus EOS (about 11 bits) against TS, TEMPO and the A body (about 1 bit for the markers), which "
        "raises BEAT's ratio; for REMI + BPE the last A is often split into more tokens than the first (12 of 24 "
        "seed-0 items), so the span stops short of its end, which lowers REMI + BPE's ratio; REMI's spans are "
        "exact. Recomputed by review on seed 0 (same models, same 24 items; the stored values reproduce exactly) "
        "with whole-A spans, EOS excluded: BEAT 0.991 -> 0.938, REMI 1.039 -> 1.039, REMI + BPE 0.888 -> 1.005, "
        "i.e. BEAT lowest on that seed, the opposite of the stored ordering; one seed decides nothing, so a "
        "re-run with corrected spans is needed. ") + v.evidence)


def contradict_long_range(ms):
    return _swap(ms, "aba", False)


def control_long_range(ms):
    return _swap(ms, "aba", True)


def check_shorter_sequences(ms):
    b = np.mean([m["tpb/beat"] for m in ms])
    r = np.mean([m["tpb/remi"] for m in ms])
    p = np.mean([m["tpb/remi_bpe"] for m in ms])
    u = np.mean([m["tpb/remi_bpe_used"] for m in ms])
    bb, bd = np.mean([m["tpb/beat_b"] for m in ms]), np.mean([m["tpb/beat_d"] for m in ms])
    measured = (f"tokens per bar (test mean): BEAT-C {b:.2f} (B {bb:.2f}, D {bd:.2f}) vs REMI {r:.2f} vs REMI + BPE "
                f"at 7,145 {p:.2f} (REMI + BPE at BEAT's used vocabulary {u:.2f})")
    control = f"REMI {r:.2f}; REMI + BPE (7,145) {p:.2f}"
    status = "reproduced" if (b < r and b < p) else ("partly" if (b < r or b < p) else "not-reproduced")
    return Verdict(status, measured, "rule: BEAT-C below REMI and below REMI + BPE trained with MidiTok to BEAT-C's "
                   "vocabulary size, on the test-set mean (deterministic); partly if below one of them",
                   value=float(b), control=control)


def contradict_shorter_sequences(ms):
    return [{**m, "tpb/beat": max(m["tpb/remi"], m["tpb/remi_bpe"]) + 1.0} for m in ms]


def control_shorter_sequences(ms):
    return [{**m, "tpb/beat": min(m["tpb/remi"], m["tpb/remi_bpe"])} for m in ms]


# ----------------------------------------------------------------------------- figure
def figure(metrics: list):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 3.4))
    ax1, ax2, ax3 = fig.subplots(1, 3)
    names = ["beat", "beat_b", "beat_d", "remi", "remi_bpe", "remi_bpe_used"]
    ax1.bar(range(len(names)), [np.mean([m[f"tpb/{n}"] for m in metrics]) for n in names])
    ax1.set_xticks(range(len(names)))
    ax1.set_xticklabels([LABELS[n] for n in names], rotation=40, ha="right", fontsize=7)
    ax1.set_ylabel("tokens per bar (test mean)")
    ax1.set_title("sequence length")
    for ax, key, lab in ((ax2, "bpb", "bits per bar"), (ax3, "aba", "NLL(second A) / NLL(first A)")):
        for k, n in enumerate(LMS):
            vals = [m[f"{key}/{n}"] for m in metrics]
            ax.scatter([k] * len(vals), vals, label=LABELS[n])
        ax.set_xticks(range(len(LMS)))
        ax.set_xticklabels([LABELS[n] for n in LMS], rotation=20, fontsize=7)
        ax.set_ylabel(lab)
        ax.set_xlabel("tokenization (one point per seed)")
    ax2.set_title("modelling (equal steps and tokens)")
    ax3.set_title("A B A repetition")
    fig.tight_layout()
    return fig
