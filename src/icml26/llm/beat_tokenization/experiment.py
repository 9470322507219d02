"""Small-scale reproduction of BEAT (arXiv:2604.19532): efficiency, modelling and long-range tests.

Data: the first ``n_pieces`` usable Bach chorales (``setting.load_chorales``), a fixed split by
piece (every 7th piece is test). Tokenizations: BEAT variants C (default; the LM is trained on
it), B and D (efficiency only), MidiTok REMI on the same grid, MidiTok REMI + BPE trained on the
training pieces to BEAT-C's raw vocabulary size (7,138 here: 10 specials + 88 x 81; the authors'
notes count 7,145), the control the issue asks for, and REMI + BPE trained until its training
stream uses as many distinct ids as BEAT-C's (``matched_bpe_size``: the same LM vocabulary, 325
ids on the full set, hence the same parameter count). REMI + BPE trained to a MidiTok size equal to
BEAT-C's used count (323) is reported for sequence length only: MidiTok's 317 base REMI tokens are
mostly unused here, so that size adds only 6 merges.

Parts of one seed (everything but the LMs and the A B A draws is the same in every seed and is built once
by ``prepare`` and cached on disk with ``icml26.core.cache``; BPE fits are cached too):
* ``efficiency``: tokens per bar on the test pieces and round-trip exactness on every piece
  (deterministic; the same in every seed);
* ``language_models``: one ``TinyLM`` (same body, same optimiser, same steps x batch x window
  tokens: equal token budget) per tokenization in ``LMS`` = {BEAT-C, REMI, REMI + BPE (7,138),
  REMI + BPE (BEAT's LM vocabulary)}; each vocabulary is the set of ids its training stream uses
  (plus UNK), so no model carries untrained rows;
* ``bits_per_bar``: summed next-token NLL in bits per bar on every non-overlapping ``eval_bars``-bar
  window of the evaluation pieces, kept only where every tokenization round-trips exactly, fits in
  the LM window and covers the excerpt with its vocabulary; and the same tokens under a unigram model
  (the gate);
* ``aba``: A B A sequences of ``aba_bars``-bar excerpts of two evaluation pieces (drawn by the seed);
  NLL(second A) / NLL(first A), where each span holds exactly the tokens of one A section
  (``aba_spans``: header and EOS excluded, both spans decode to A's notes), the whole sequence in
  every model's window.

The evaluation pieces are the test pieces; the quick profile (a CI smoke test, 2 seeds, whose
verdicts are never decided) measures bits per bar and A B A on three training pieces instead, the
only excerpts its 24-piece vocabularies cover, so that CI runs that code.
"""

from __future__ import annotations

import hashlib
import math
import tempfile
from pathlib import Path

import numpy as np

from icml26.core.paper import Profile, Verdict

LMS = ("beat", "remi", "remi_bpe", "remi_bpe_used")
CONTROLS = LMS[1:]
LABELS = {"beat": "BEAT-C", "remi": "REMI", "remi_bpe": "REMI + BPE (7,138)",
          "remi_bpe_used": "REMI + BPE (BEAT's LM vocab)", "remi_bpe_size": "REMI + BPE (size = BEAT's used count)",
          "beat_b": "BEAT-B", "beat_d": "BEAT-D"}
GATE_RATIO = 0.8
PREPARED_VERSION = 3  # bump when what prepare() stores changes


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
    """One tokenization as ``encode(piece) -> raw ids`` / ``decode(ids) -> piece`` with BOS/EOS.

    ``header`` is the number of leading tokens that carry no music (BEAT: BOS TS TEMPO; MidiTok: BOS);
    every sequence ends with one EOS token.
    """

    def __init__(self, name: str, tokenizer=None, variant: str = "C"):
        from icml26.llm.beat_tokenization.method import SP

        self.name, self.tok, self.variant = name, tokenizer, variant
        if tokenizer is None:
            self.head, self.eos = [SP["BOS"], SP["TS_4/4"], SP["TEMPO_unk"]], SP["EOS"]
        else:
            self.head, self.eos = [1], 2
        self.header = len(self.head)

    def decode_body(self, body):
        """The piece a run of music tokens (no header, no EOS) encodes, read as if it started a piece."""
        return self.decode(self.head + [int(t) for t in body] + [self.eos])

    def encode(self, piece) -> list[int]:
        from icml26.llm.beat_tokenization.method import encode, remi_encode

        if self.tok is None:
            return encode(piece, self.variant)
        return [1] + remi_encode(self.tok, piece) + [2]  # MidiTok's BOS_None / EOS_None

    def base_encode(self, piece) -> list[int]:
        """The ids before BPE (equal to ``encode`` for an untrained tokenizer and for BEAT)."""
        from icml26.llm.beat_tokenization.method import remi_encode

        if self.tok is None or not self.tok.is_trained:
            return self.encode(piece)
        return [1] + remi_encode(self.tok, piece, encode_ids=False) + [2]

    def base_length(self, token_id: int) -> int:
        """How many base tokens one id stands for (1 unless it is a learned BPE token)."""
        if self.tok is None or not self.tok.is_trained:
            return 1
        return len(self.tok._vocab_learned_bytes_to_tokens[self.tok._model.id_to_token(int(token_id))])

    def decode(self, ids):
        from icml26.llm.beat_tokenization.method import decode, remi_decode

        if self.tok is None:
            return decode(ids, self.variant)
        return remi_decode(self.tok, ids[1:-1])


def aba_spans(codec: Codec, a, b):
    """Token spans of the two A sections of ``A B A`` in one tokenization.

    Returns ``(ids, (s1, e1), (s2, e2))``: ``ids[s1:e1]`` are the tokens of the first A (after the header, up to
    the first token of B) and ``ids[s2:e2]`` those of the second A (from the first token after B, EOS excluded).
    Section boundaries are found in the base sequence (BEAT, or REMI before BPE), where the encodings of ``A``
    and ``A B`` are prefixes of that of ``A B A``, and carried to the ids through the number of base tokens each
    id covers. ``None`` when a boundary is not defined (no prefix match, or a BPE token straddles it) or a span
    does not decode to exactly A's notes.
    """
    from icml26.llm.beat_tokenization.method import same_music
    from icml26.llm.beat_tokenization.setting import concat

    aba_piece, ab = concat([a, b, a]), concat([a, b])
    base = codec.base_encode(aba_piece)
    p1, p2 = codec.base_encode(a)[:-1], codec.base_encode(ab)[:-1]
    if base[:len(p1)] != p1 or base[:len(p2)] != p2 or len(p2) >= len(base) - 1:
        return None
    ids = codec.encode(aba_piece)
    where = {0: 0}  # base position -> id position, at id boundaries
    pos = 0
    for k, i in enumerate(ids):
        pos += codec.base_length(i)
        where[pos] = k + 1
    if pos != len(base):
        return None
    cuts = [codec.header, len(p1), len(p2), len(base) - 1]
    if any(c not in where for c in cuts):
        return None
    s1, e1, s2, e2 = (where[c] for c in cuts)
    for s, e in ((s1, e1), (s2, e2)):
        try:
            ok = same_music(codec.decode_body(ids[s:e]), a)
        except ValueError:
            ok = False
        if not ok:
            return None
    return ids, (s1, e1), (s2, e2)


def matched_bpe_size(train, tries: int = 8) -> int:
    """The MidiTok BPE vocabulary size at which the REMI + BPE training stream uses as many distinct ids as
    BEAT-C's (specials included), i.e. the same LM vocabulary and embedding size; the closest size reached in
    ``tries`` fits (each cached on disk) if none is exact. MidiTok's 317 base REMI tokens are mostly unused on
    the chorales (77 used), so a BPE vocabulary *size* equal to BEAT's used count would add only 6 merges."""
    from icml26.llm.beat_tokenization.method import Vocabulary, encode, remi_tokenizer

    target = len(Vocabulary([encode(p, "C") for p in train]))
    base = Codec("remi", remi_tokenizer())
    size = len(base.tok) + target - len(Vocabulary([base.encode(p) for p in train]))
    best, seen = None, set()
    for _ in range(tries):
        if size in seen:
            break
        seen.add(size)
        codec = Codec("remi_bpe_used", _bpe(train, size))
        used = len(Vocabulary([codec.encode(p) for p in train]))
        if best is None or (abs(used - target), size) < (abs(best[1] - target), best[0]):
            best = (size, used)
        if used == target:
            break
        size += target - used
    return best[0]


def build_codecs(train, names=None, matched_size: int | None = None) -> dict:
    """Every tokenization (or those in ``names``); BPE fits are cached on disk. ``matched_size``: the BPE size of
    ``remi_bpe_used`` (found by :func:`matched_bpe_size` when not given)."""
    from icml26.llm.beat_tokenization.method import Vocabulary, encode, raw_vocab_size, remi_tokenizer

    makers = {
        "beat": lambda: Codec("beat", None, "C"), "beat_b": lambda: Codec("beat_b", None, "B"),
        "beat_d": lambda: Codec("beat_d", None, "D"), "remi": lambda: Codec("remi", remi_tokenizer()),
        "remi_bpe": lambda: Codec("remi_bpe", _bpe(train, raw_vocab_size("C"))),
        "remi_bpe_used": lambda: Codec("remi_bpe_used", _bpe(train, matched_size or matched_bpe_size(train))),
        "remi_bpe_size": lambda: Codec("remi_bpe_size",
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


def eval_pieces(profile: Profile, train, test) -> list:
    """The pieces bits per bar and A B A are measured on: the test pieces (full profile), or, in the quick
    profile (a smoke test for CI whose numbers decide nothing), the first ``eval_pieces`` training pieces,
    which every small vocabulary covers."""
    where, k = profile.get("eval_on", "test"), int(profile.get("eval_pieces", 0))
    if where not in ("test", "train"):
        raise ValueError(f"profile parameter eval_on must be 'test' or 'train', got {where!r}")
    pieces = list(test if where == "test" else train)
    return pieces[:k] if k > 0 else pieces


def prepare(profile: Profile) -> dict:
    """The seed-independent part of a run (the same in every seed), cached on disk: efficiency metrics, each LM's
    encoded training pieces and the encoded evaluation excerpts."""
    from icml26.core.cache import cached
    from icml26.llm.beat_tokenization.method import Vocabulary
    from icml26.llm.beat_tokenization.setting import load_chorales, split

    def build():
        pieces = load_chorales(int(profile["n_pieces"]))
        train, test = split(pieces)
        matched = matched_bpe_size(train)
        codecs = build_codecs(train, matched_size=matched)
        seqs = {name: [codecs[name].encode(p) for p in train] for name in LMS}
        vocabs = {name: Vocabulary(s) for name, s in seqs.items()}
        return {"efficiency": {**efficiency(codecs, pieces, test), "bpe_size/remi_bpe_used": matched,
                               "bpe_size/remi_bpe": len(codecs["remi_bpe"].tok),
                               "bpe_size/remi_bpe_size": len(codecs["remi_bpe_size"].tok)},
                "seqs": seqs, "matched_size": matched,
                "bars": [p.n_bars for p in train],
                "eval": eval_excerpts(codecs, vocabs, eval_pieces(profile, train, test), profile)}

    params = {"version": PREPARED_VERSION, "n_pieces": int(profile["n_pieces"]), "window": int(profile["window"]),
              "eval_bars": int(profile["eval_bars"]), "eval_on": profile.get("eval_on", "test"),
              "eval_pieces": int(profile.get("eval_pieces", 0))}
    return cached("beat-tokenization", "prepared", build, params=params, fmt="pkl")


def language_models(codecs: dict, prep: dict, pieces, profile: Profile, seed: int) -> dict:
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
    out.update(aba(codecs, vocabs, models, pieces, profile, seed))
    return out


def aba(codecs: dict, vocabs: dict, models: dict, pieces, profile: Profile, seed: int) -> dict:
    """NLL(second A) / NLL(first A) on A B A sequences of ``aba_bars``-bar excerpts of two different pieces.

    Each span holds exactly the tokens of one A section in each tokenization (:func:`aba_spans`: the header
    and EOS are outside both, and each span decodes to A's notes). An item is kept only if every tokenization
    gives both spans, the whole sequence fits every model's window and every vocabulary covers it.
    """
    bars, n_items, window = int(profile["aba_bars"]), int(profile["aba_items"]), int(profile["window"])
    rng = np.random.default_rng(10_000 + seed)
    pool = [p for p in pieces if p.n_bars >= bars]
    ratios: dict = {name: [] for name in LMS}
    tries = 0
    while len(ratios[LMS[0]]) < n_items and tries < 20 * n_items and len(pool) >= 2:
        tries += 1
        i, j = rng.choice(len(pool), 2, replace=False)
        a = pool[i].crop(int(rng.integers(0, pool[i].n_bars - bars + 1)), bars)
        b = pool[j].crop(int(rng.integers(0, pool[j].n_bars - bars + 1)), bars)
        if not a.notes or not b.notes:
            continue
        spans = {name: aba_spans(codecs[name], a, b) for name in LMS}
        if not all(sp is not None and len(sp[0]) <= window and vocabs[name].covers(sp[0])
                   for name, sp in spans.items()):
            continue
        for name in LMS:
            ids, (s1, e1), (s2, e2) = spans[name]
            nll = _token_nll(models[name], vocabs[name].ids(ids))  # nll[k] is the NLL of token k + 1
            first, second = nll[s1 - 1:e1 - 1].sum(), nll[s2 - 1:e2 - 1].sum()
            ratios[name].append(float(second / max(first, 1e-9)))
    out = {"aba/n_items": len(ratios[LMS[0]]), "aba/n_tries": tries}
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
    codecs = build_codecs(train, names=LMS, matched_size=prep["matched_size"])
    metrics = {"n_train": len(train), "n_test": len(test)}
    metrics.update(prep["efficiency"])
    metrics.update(language_models(codecs, prep, eval_pieces(profile, train, test), profile, seed))
    return metrics


# ----------------------------------------------------------------------------- checks
def _gate(ms) -> tuple[bool, str]:
    vals = {n: [m[f"nll_ratio_unigram/{n}"] for m in ms] for n in LMS}
    ok = all(v <= GATE_RATIO for vs in vals.values() for v in vs)
    txt = "; ".join(f"{LABELS[n]} {np.mean(v):.3f}" for n, v in vals.items())
    return ok, f"gate: LM NLL / unigram NLL <= {GATE_RATIO} for every model and seed ({txt})"


def _count_rule(ms, key: str, label: str) -> Verdict:
    """BEAT's value is <= every control's (lower is better) in >= 2/3 of seeds, gated on training."""
    n = len(ms)
    b = np.array([m[f"{key}/beat"] for m in ms])
    ctl = {c: np.array([m[f"{key}/{c}"] for m in ms]) for c in CONTROLS}
    below = {c: (b <= v) & np.isfinite(b) for c, v in ctl.items()}
    wins = int(np.sum(np.logical_and.reduce(list(below.values()))))
    vs = " vs ".join(f"{LABELS[c]} {np.nanmean(v):.3f}" for c, v in ctl.items())
    per = ", ".join(f"{LABELS[c]} {int(w.sum())}/{n}" for c, w in below.items())
    measured = (f"{label}: BEAT-C {np.nanmean(b):.3f} vs {vs} (seed means); BEAT lowest in {wins}/{n} seeds "
                f"(at or below {per})")
    control = "; ".join(f"{LABELS[c]} {np.nanmean(v):.3f}" for c, v in ctl.items())
    gate_ok, gate_txt = _gate(ms)
    rule = (f"rule (pre-registered): BEAT <= each of {', '.join(LABELS[c] for c in CONTROLS)} in >= 2/3 of seeds; "
            f"{n} seeds; {gate_txt}")
    if n < 3:
        return Verdict("not-checkable", measured, "too few seeds: the rule needs 3 seeds; " + rule, control=control)
    status = "reproduced" if wins >= 2 * n / 3 else ("partly" if wins > 0 else "not-reproduced")
    if not gate_ok:
        return Verdict("not-checkable", measured, f"precondition failed (training gate), the check would say "
                       f"{status}; " + rule, control=control)
    return Verdict(status, measured, rule, value=float(wins / n), control=control)


def _swap(ms, key: str, to_control: bool):
    """Contradiction: BEAT worse than every control. Control: the worst control in BEAT's place (a hair above, so
    a tie is not a win)."""
    out = []
    for m in ms:
        m = dict(m)
        worst = max(m[f"{key}/{c}"] for c in CONTROLS)
        m[f"{key}/beat"] = worst + (1e-9 if to_control else 1.0)
        out.append(m)
    return out


def _sizes(ms) -> str:
    """LM vocabulary and parameter count of each model (the same in every seed)."""
    m = ms[0]
    return ", ".join(f"{LABELS[n]} {int(m[f'lm/{n}/vocab'])} ids / {m[f'lm/{n}/params'] / 1e3:.0f} k"
                     for n in LMS if f"lm/{n}/vocab" in m)


def check_better_modelling(ms):
    import dataclasses

    v = _count_rule(ms, "bpb", "bits per bar")
    allv = {n: np.array([m[f"bpb/{n}"] for m in ms]) for n in LMS}
    lowest = {c: int(np.sum(np.logical_and.reduce([(allv[c] <= w) & np.isfinite(allv[c])
                                                   for o, w in allv.items() if o != c]))) for c in LMS}
    counts = ", ".join(f"{LABELS[c]} {lowest[c]}/{len(ms)}" for c in LMS)
    d = {c: np.array([m[f"bpb/{c}"] - m[f"bpb/beat"] for m in ms]) for c in CONTROLS}
    margins = "per-seed margin (control minus BEAT-C, positive = BEAT lower): " + "; ".join(
        f"{LABELS[c]} {np.nanmin(x):+.3f} to {np.nanmax(x):+.3f}" for c, x in d.items())
    rel = d["remi_bpe_used"] / allv["remi_bpe_used"]
    matched = ", ".join(f"{x:+.2f} ({r:+.1%})" for x, r in zip(d["remi_bpe_used"], rel))
    return dataclasses.replace(v, evidence=v.evidence + (
        f"; LM vocabulary / parameters: {_sizes(ms)} (the body is shared, the embeddings are not; the matched "
        "REMI + BPE has BEAT's vocabulary and so its parameter count). Each LM is compared at one fixed budget, "
        "without early stopping. History: the full profile was cut from 400 x 8 to 240 x 4 windows after a first "
        "full run (over the time budget) in which REMI + BPE (7,138) failed the gate (0.817, it overfits) and the "
        "claim was not-checkable, BEAT lowest there too in 3/3 seeds (bits per bar 85.8 vs REMI 114.0 vs REMI + "
        "BPE 109.0); a second run at 240 x 4 without the matched control gave BEAT lowest in 3/3 seeds (93.6 vs "
        "130.5 vs 102.6); the matched REMI + BPE control was added before this run, at review's request. "
        f"Note added after the full run (text only; rule and verdict unchanged): {margins}. Review after the full run "
        f"(verdict unchanged): no control passes the count equally (lowest in: {counts}); the margin over the matched "
        f"REMI + BPE per seed is {matched} bits per bar (in the full run 0.02 in seed 0, a tie within noise, so 2/3 "
        "seeds carried the verdict); the 22 evaluation excerpts are the same in every seed (seeds vary the LMs only)"))


def contradict_better_modelling(ms):
    return _swap(ms, "bpb", False)


def control_better_modelling(ms):
    return _swap(ms, "bpb", True)


def check_long_range(ms):
    import dataclasses

    v = _count_rule(ms, "aba", "NLL(second A) / NLL(first A)")
    # Changed by review after the full run (the pre-registered count is unchanged): a claim a control passes equally
    # is not reproduced. Each control is counted the way BEAT is (seeds in which it is at or below every other
    # model, BEAT included); if some control is lowest in as many seeds as BEAT, the count does not single BEAT out.
    allv = {n: np.array([m[f"aba/{n}"] for m in ms]) for n in LMS}
    lowest = {c: int(np.sum(np.logical_and.reduce([(allv[c] <= w) & np.isfinite(allv[c])
                                                   for o, w in allv.items() if o != c]))) for c in LMS}
    equal = [c for c in CONTROLS if lowest[c] >= lowest["beat"]]
    counts = ", ".join(f"{LABELS[c]} {lowest[c]}/{len(ms)}" for c in LMS)
    if v.status in ("reproduced", "partly") and equal:
        v = dataclasses.replace(v, status="not-reproduced", evidence=(
            f"changed by review after the full run ({v.status} -> not-reproduced): a control passes the rule's count "
            f"equally: counted the same way, {' and '.join(LABELS[c] for c in equal)} {'is' if len(equal) == 1 else 'are'}"
            f" lowest in as many seeds as BEAT (lowest in: {counts}), so the pre-registered partly band (BEAT lowest "
            f"in >= 1 seed) would be met by a control in BEAT's place and does not single BEAT out; on these numbers "
            f"the pre-registered rule says {v.status}; " + v.evidence))
    else:
        v = dataclasses.replace(v, evidence=v.evidence + f"; lowest in (review's control-equality count): {counts}")
    old_wins = sum(m["aba/beat"] <= min(m["aba/remi"], m["aba/remi_bpe"]) for m in ms)
    d = {c: np.array([m[f"aba/{c}"] - m[f"aba/beat"] for m in ms]) for c in CONTROLS}
    margins = "per-seed margin (control minus BEAT-C, positive = BEAT lower): " + "; ".join(
        f"{LABELS[c]} {np.nanmin(x):+.3f} to {np.nanmax(x):+.3f}" for c, x in d.items())
    items = [int(m.get("aba/n_items", 0)) for m in ms]
    return dataclasses.replace(v, evidence=v.evidence + (
        f"; A B A items per seed: {items}; each A span holds exactly the tokens of one A section in every "
        "tokenization (no header, no EOS; both spans decode to A's notes, checked per item). History: an earlier "
        "run measured the second A as the first A's token count from the end of A B, which put EOS into BEAT's "
        "span and cut REMI + BPE's short, and was not-checkable (review); the spans were fixed before this run. "
        f"Note added after the full run by the run's author (text only; rule unchanged): {margins}; every "
        "model's mean ratio lies within a few percent of 1, i.e. at this scale no model gains much from having "
        "seen A before, and the ordering is decided by small differences; against REMI and REMI + BPE (7,138) "
        f"alone (the earlier controls) BEAT would be lowest in {old_wins}/{len(ms)} seeds"))


def contradict_long_range(ms):
    return _swap(ms, "aba", False)


def control_long_range(ms):
    return _swap(ms, "aba", True)


def check_shorter_sequences(ms):
    b = np.mean([m["tpb/beat"] for m in ms])
    r = np.mean([m["tpb/remi"] for m in ms])
    p = np.mean([m["tpb/remi_bpe"] for m in ms])
    u = np.mean([m["tpb/remi_bpe_used"] for m in ms])
    z = np.mean([m["tpb/remi_bpe_size"] for m in ms])
    su, sz = int(ms[0].get("bpe_size/remi_bpe_used", 0)), int(ms[0].get("bpe_size/remi_bpe_size", 0))
    bb, bd = np.mean([m["tpb/beat_b"] for m in ms]), np.mean([m["tpb/beat_d"] for m in ms])
    measured = (f"tokens per bar (test mean): BEAT-C {b:.2f} (B {bb:.2f}, D {bd:.2f}) vs REMI {r:.2f} vs REMI + BPE "
                f"at 7,138 {p:.2f} (REMI + BPE with BEAT's LM vocabulary, MidiTok size {su}: {u:.2f}; MidiTok size "
                f"{sz} = BEAT's used count: {z:.2f})")
    control = f"REMI {r:.2f}; REMI + BPE (7,138) {p:.2f}"
    # changed by review after the full run (partly -> not-reproduced): 'partly' needs a part the control
    # fails. Before: partly if below one of them; in the full run BEAT-C (27.76) is below REMI (56.62) only,
    # and REMI + BPE (14.12), put in BEAT's place, is below REMI as well: the same partly. Now partly needs
    # BEAT below one baseline that the other baseline does not beat too.
    status = ("reproduced" if (b < r and b < p) else
              ("partly" if ((b < r and p >= r) or (b < p and r >= p)) else "not-reproduced"))
    return Verdict(status, measured, "rule: BEAT-C below REMI and below REMI + BPE trained with MidiTok to BEAT-C's "
                   "vocabulary size, on the test-set mean (deterministic); partly if below one of them and that one "
                   "is not beaten by the other baseline too (changed by review after the full run: partly -> "
                   "not-reproduced; REMI + BPE in BEAT's place read the same partly: it is below REMI too)",
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
    names = ["beat", "beat_b", "beat_d", "remi", "remi_bpe", "remi_bpe_used", "remi_bpe_size"]
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
