"""BEAT tokenization (arXiv:2604.19532): one token per active pitch per beat, grouped beat by beat.

Time is cut into beats of ``STEPS_PER_BEAT = 4`` sixteenth-note steps. Within one beat, every
pitch that is active in a track gets four ternary digits, one per step: 0 silent, 1 onset,
2 sounding but not struck (held over). The four digits form the *patch value*
``v = 27 d0 + 9 d1 + 3 d2 + d3`` in ``1..80`` (0, silence, is never emitted): ``(1,2,2,2) = 53``
is a quarter note, ``(1,2,1,2) = 50`` two eighths, ``(2,2,2,2) = 80`` a note tied in from the
previous beat. A beat of one track lists its active pitches in ascending order; the sequence is
``BOS TS_4/4 TEMPO_unk`` then per bar ``BAR`` followed by the beats of both tracks interleaved
(``T0 b0, T1 b0, T0 b1, ...``), then ``EOS``. Three layouts of a (beat, track) group, following
the authors' encoding notes for their follow-up code (variants B, C, D of ``ENCODING_SPEC.md``;
which one the ICML paper uses is not stated in the text we could read -- the abstract's "one
token per pitch per step" matches the bundled C and D):

* ``C`` (default): ``TRACK_k`` then one bundled token ``rel * 81 + v`` per note, ``rel`` the pitch
  index (A0 = 0) minus the previous note's index in the group (the first note relative to 0);
* ``D``: as C with the absolute pitch index instead of ``rel``;
* ``B``: per note two tokens ``REL_rel``, ``VAL_v``; the group ends with ``END`` (``EMPTY`` if silent).

``encode``/``decode`` are exact inverses for every piece on the 16th grid (tested, and verified
on the corpus as the identity claim). :class:`Vocabulary` maps the raw token ids a training set
uses to compact ids for the language model (unseen tokens -> ``UNK``). REMI and REMI + BPE come
from MidiTok (:func:`remi_tokenizer`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from icml26.core.validate import check_int
from icml26.llm.beat_tokenization.setting import (
    BEATS_PER_BAR,
    STEPS_PER_BAR,
    STEPS_PER_BEAT,
    Piece,
    from_score,
    to_score,
)

PITCH_LOW, N_PITCH = 21, 88  # A0 .. C8
N_VALUE = 3 ** STEPS_PER_BEAT  # 81 patch values (0 never emitted)
VARIANTS = ("B", "C", "D")
SPECIALS = ("PAD", "BOS", "EOS", "BAR", "TS_4/4", "TEMPO_unk", "TRACK_0", "TRACK_1", "END", "EMPTY")
SP = {name: i for i, name in enumerate(SPECIALS)}
N_SPECIAL = len(SPECIALS)


def _check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return variant


def raw_vocab_size(variant: str = "C") -> int:
    """Size of the full (uncompacted) vocabulary: 10 specials + 88 x 81 bundled tokens (C, D) or 88 + 81 (B)."""
    _check_variant(variant)
    return N_SPECIAL + (N_PITCH + N_VALUE if variant == "B" else N_PITCH * N_VALUE)


def patch_value(digits: Sequence[int]) -> int:
    """Base-3 number of the four step digits (0 silent, 1 onset, 2 held)."""
    if len(digits) != STEPS_PER_BEAT or any(d not in (0, 1, 2) for d in digits):
        raise ValueError(f"digits must be {STEPS_PER_BEAT} values in {{0, 1, 2}}, got {list(digits)!r}")
    v = 0
    for d in digits:
        v = 3 * v + int(d)
    return v


def patch_digits(value: int) -> tuple[int, ...]:
    """Inverse of :func:`patch_value`."""
    value = check_int("value", value, minimum=0, maximum=N_VALUE - 1)
    out = []
    for _ in range(STEPS_PER_BEAT):
        out.append(value % 3)
        value //= 3
    return tuple(reversed(out))


def _grid(piece: Piece) -> dict[tuple[int, int], np.ndarray]:
    """Per (track, pitch index): the step digits over the whole piece (int8, length n_bars * 16)."""
    n = piece.n_bars * STEPS_PER_BAR
    rolls: dict[tuple[int, int], np.ndarray] = {}
    for tr, p, s, e in piece.notes:
        if not PITCH_LOW <= p < PITCH_LOW + N_PITCH:
            raise ValueError(f"pitch {p} outside the 88 piano keys")
        if not 0 <= s < e <= n:
            raise ValueError(f"note {(tr, p, s, e)} outside the piece's {piece.n_bars} bars")
        row = rolls.setdefault((tr, p - PITCH_LOW), np.zeros(n, dtype=np.int8))
        if row[s:e].any():
            raise ValueError(f"overlapping notes on track {tr}, pitch {p}")
        row[s] = 1
        row[s + 1:e] = 2
    return rolls


def encode(piece: Piece, variant: str = "C") -> list[int]:
    """BEAT token ids (raw vocabulary) of a piece; lossless on the 16th grid."""
    if not isinstance(piece, Piece):
        raise TypeError(f"piece must be a Piece, got {type(piece).__name__}")
    _check_variant(variant)
    rolls = _grid(piece)
    n_beats = piece.n_bars * BEATS_PER_BAR
    weights = 3 ** np.arange(STEPS_PER_BEAT - 1, -1, -1)  # base-3 place values, as in patch_value
    # per track: active pitch indices (ascending) and their patch values, shape (n_pitches, n_beats)
    values = {}
    for tr in (0, 1):
        pitches = sorted(k[1] for k in rolls if k[0] == tr)
        if pitches:
            grid = np.stack([rolls[(tr, pi)] for pi in pitches]).reshape(len(pitches), n_beats, STEPS_PER_BEAT)
            values[tr] = (pitches, (grid.astype(np.int64) @ weights).tolist())
        else:
            values[tr] = ([], [])
    out = [SP["BOS"], SP["TS_4/4"], SP["TEMPO_unk"]]
    for beat in range(n_beats):
        if beat % BEATS_PER_BAR == 0:
            out.append(SP["BAR"])
        for tr in (0, 1):
            pitches, vals = values[tr]
            group = [(pi, row[beat]) for pi, row in zip(pitches, vals) if row[beat]]
            out += _group_tokens(tr, group, variant)
    out.append(SP["EOS"])
    return out


def _group_tokens(track: int, group: list[tuple[int, int]], variant: str) -> list[int]:
    toks = [] if variant == "B" else [SP[f"TRACK_{track}"]]
    prev = 0
    for pi, v in group:
        rel = pi - prev
        prev = pi
        if variant == "C":
            toks.append(N_SPECIAL + rel * N_VALUE + v)
        elif variant == "D":
            toks.append(N_SPECIAL + pi * N_VALUE + v)
        else:
            toks += [N_SPECIAL + rel, N_SPECIAL + N_PITCH + v]
    if variant == "B":
        toks.append(SP["END"] if group else SP["EMPTY"])
    return toks


def decode(tokens: Sequence[int], variant: str = "C", name: str = "decoded") -> Piece:
    """Inverse of :func:`encode`; raises ``ValueError`` on a malformed sequence."""
    _check_variant(variant)
    toks = [int(t) for t in tokens]
    if toks[:3] != [SP["BOS"], SP["TS_4/4"], SP["TEMPO_unk"]]:
        raise ValueError("tokens must start with BOS TS_4/4 TEMPO_unk")
    groups: list[list[tuple[int, int]]] = []  # in order bar, beat, track
    i, n_bars = 3, 0
    while i < len(toks) and toks[i] != SP["EOS"]:
        if toks[i] != SP["BAR"]:
            raise ValueError(f"expected BAR at position {i}, got {toks[i]}")
        i += 1
        n_bars += 1
        for _ in range(BEATS_PER_BAR * 2):
            group, i = _read_group(toks, i, variant, len(groups) % 2)
            groups.append(group)
    rolls: dict[tuple[int, int], np.ndarray] = {}
    n = n_bars * STEPS_PER_BAR
    for gi, group in enumerate(groups):
        beat, tr = divmod(gi, 2)
        for pi, v in group:
            row = rolls.setdefault((tr, pi), np.zeros(n, dtype=np.int8))
            row[beat * STEPS_PER_BEAT:(beat + 1) * STEPS_PER_BEAT] = patch_digits(v)
    notes = []
    for (tr, pi), row in rolls.items():
        start = None
        for t in range(n + 1):
            d = row[t] if t < n else 0
            if start is not None and d != 2:
                notes.append((tr, pi + PITCH_LOW, start, t))
                start = None
            if d == 1:
                start = t
            elif d == 2 and start is None:
                raise ValueError(f"held step without an onset at step {t} (track {tr}, pitch {pi + PITCH_LOW})")
    return Piece(name, tuple(sorted(notes)), n_bars)


def _read_group(toks: list[int], i: int, variant: str, track: int) -> tuple[list[tuple[int, int]], int]:
    group, prev = [], 0
    if variant == "B":
        if i < len(toks) and toks[i] == SP["EMPTY"]:
            return group, i + 1
        while i < len(toks) and toks[i] != SP["END"]:
            r, v = toks[i] - N_SPECIAL, toks[i + 1] - N_SPECIAL - N_PITCH if i + 1 < len(toks) else -1
            if not (0 <= r < N_PITCH and 1 <= v < N_VALUE):
                raise ValueError(f"malformed note pair at position {i}")
            prev += r
            group.append((prev, v))
            i += 2
        if i >= len(toks):
            raise ValueError("group not closed by END")
        return group, i + 1
    if i >= len(toks) or toks[i] != SP[f"TRACK_{track}"]:
        raise ValueError(f"expected TRACK_{track} at position {i}")
    i += 1
    while i < len(toks) and toks[i] >= N_SPECIAL:
        r, v = divmod(toks[i] - N_SPECIAL, N_VALUE)
        if v == 0 or r >= N_PITCH:
            raise ValueError(f"malformed note token {toks[i]} at position {i}")
        prev = prev + r if variant == "C" else r
        if prev >= N_PITCH:
            raise ValueError(f"pitch index {prev} out of range at position {i}")
        group.append((prev, v))
        i += 1
    return group, i


def tokens_per_bar(sequences: Iterable[Sequence[int]], pieces: Iterable[Piece]) -> float:
    """Mean over pieces of (tokens / bars)."""
    vals = [len(s) / max(1, p.n_bars) for s, p in zip(sequences, pieces)]
    if not vals:
        raise ValueError("sequences must not be empty")
    return float(np.mean(vals))


class Vocabulary:
    """Compact ids for the raw tokens a training set uses: 0 = PAD, 1 = UNK, then tokens by first appearance."""

    def __init__(self, sequences: Iterable[Sequence[int]]):
        counts: Counter[int] = Counter()
        for s in sequences:
            counts.update(int(t) for t in s)
        if not counts:
            raise ValueError("sequences must hold at least one token")
        self.raw = sorted(counts)
        self.to_id = {t: i + 2 for i, t in enumerate(self.raw)}
        self.counts = counts

    def __len__(self) -> int:
        return len(self.raw) + 2

    def ids(self, seq: Sequence[int]) -> list[int]:
        return [self.to_id.get(int(t), 1) for t in seq]

    def covers(self, seq: Sequence[int]) -> bool:
        return all(int(t) in self.to_id for t in seq)


# ----------------------------------------------------------------------------- MidiTok baselines
def remi_tokenizer():
    """MidiTok REMI on the same grid: 16th positions, two programs in one stream, no velocity or tempo."""
    import miditok

    cfg = miditok.TokenizerConfig(pitch_range=(PITCH_LOW, PITCH_LOW + N_PITCH), beat_res={(0, 4): STEPS_PER_BEAT},
                                  use_velocities=False, use_tempos=False, use_time_signatures=False,
                                  use_programs=True, one_token_stream_for_programs=True, num_velocities=1)
    return miditok.REMI(cfg)


def train_remi_bpe(pieces: Sequence[Piece], vocab_size: int, workdir) -> object:
    """REMI + BPE trained with MidiTok to ``vocab_size`` on ``pieces`` (written as MIDI under ``workdir``)."""
    from pathlib import Path

    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    tok = remi_tokenizer()
    paths = []
    for i, pc in enumerate(pieces):
        path = Path(workdir) / f"{i:04d}.mid"
        to_score(pc).dump_midi(str(path))
        paths.append(path)
    tok.train(vocab_size=max(vocab_size, len(tok) + 1), model="BPE", files_paths=paths)
    return tok


def remi_encode(tokenizer, piece: Piece, encode_ids: bool = True) -> list[int]:
    """MidiTok ids of ``piece``; ``encode_ids=False`` gives a trained (BPE) tokenizer's base REMI ids."""
    seq = tokenizer.encode(to_score(piece), encode_ids=encode_ids)
    seq = seq[0] if isinstance(seq, list) else seq
    return list(seq.ids)


def remi_decode(tokenizer, ids: Sequence[int], name: str = "decoded") -> Piece:
    score = tokenizer.decode([int(i) for i in ids])
    pc = from_score(score, name)
    return pc


def same_music(a: Piece, b: Piece) -> bool:
    """Equal notes (bar counts may differ by trailing silence)."""
    return a.notes == b.notes


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test."""
    pc = Piece("x", ((0, 60, 0, 4), (0, 64, 2, 8), (1, 48, 0, 16)), 1)
    return [
        (encode, {"piece": pc, "variant": "C"}),
        (decode, {"tokens": encode(pc, "B"), "variant": "B"}),
        (patch_digits, {"value": 53}),
        (raw_vocab_size, {"variant": "D"}),
    ]
