"""The data world of the BEAT reproduction: Bach chorales from ``music21``'s bundled corpus on a 16th grid.

The paper trains on large piano and multitrack sets; here the corpus is the Bach chorales that
ship inside the ``music21`` wheel. Each chorale in 4/4 with Soprano, Alto, Tenor and Bass parts
becomes a :class:`Piece`: two tracks (0 = soprano + alto, 1 = tenor + bass, the card's layout),
notes ``(track, pitch, start, end)`` in 16th-note steps, ties merged, a pickup bar padded so
that every bar starts at a multiple of 16 steps. Pieces with any off-grid onset or duration
(triplets) are dropped. Parsing the MusicXML is slow, so the first 120 pieces ship with the package
(``chorales.json.gz``, produced by this module's parser); larger sets are parsed once and cached as
JSON in ``$ICML26_CACHE`` (default ``~/.cache/icml26``).

``to_score`` / ``from_score`` convert a piece to and from a ``symusic.Score`` (4 ticks per
quarter, programs 0 and 1), the input of MidiTok's tokenizers.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from icml26.core.validate import check_int

STEPS_PER_BEAT = 4
BEATS_PER_BAR = 4
STEPS_PER_BAR = STEPS_PER_BEAT * BEATS_PER_BAR
VOICES = ("Soprano", "Alto", "Tenor", "Bass")
_CACHE_VERSION = 1
#: the first 120 usable chorales, parsed once by :func:`load_chorales` (music21 10.5) and shipped, so that
#: runs need neither music21 nor minutes of MusicXML parsing; ``tests`` re-parse a few and compare
SHIPPED = Path(__file__).with_name("chorales.json.gz")
SHIPPED_PIECES = 120


@dataclass(frozen=True)
class Piece:
    """A two-track piece on a 16th grid: ``notes`` sorted tuples ``(track, pitch, start, end)``, ``n_bars`` bars."""

    name: str
    notes: tuple[tuple[int, int, int, int], ...]
    n_bars: int

    def crop(self, first_bar: int, n_bars: int) -> "Piece":
        """Bars ``first_bar .. first_bar + n_bars - 1``; notes are cut at the window's edges."""
        lo, hi = first_bar * STEPS_PER_BAR, (first_bar + n_bars) * STEPS_PER_BAR
        out = []
        for tr, p, s, e in self.notes:
            s2, e2 = max(s, lo), min(e, hi)
            if s2 < e2:
                out.append((tr, p, s2 - lo, e2 - lo))
        return Piece(f"{self.name}[{first_bar}:{first_bar + n_bars}]", tuple(sorted(out)), n_bars)

    def shifted(self, bars: int) -> "Piece":
        """The piece delayed by ``bars`` bars (for concatenation)."""
        d = bars * STEPS_PER_BAR
        return Piece(self.name, tuple((t, p, s + d, e + d) for t, p, s, e in self.notes), self.n_bars + bars)


def concat(pieces: list[Piece], name: str = "concat") -> Piece:
    """Pieces one after another, bar-aligned."""
    notes, bars = [], 0
    for pc in pieces:
        notes += [(t, p, s + bars * STEPS_PER_BAR, e + bars * STEPS_PER_BAR) for t, p, s, e in pc.notes]
        bars += pc.n_bars
    return Piece(name, tuple(sorted(notes)), bars)


def _cache_dir() -> Path:
    return Path(os.environ.get("ICML26_CACHE", Path.home() / ".cache" / "icml26")) / "beat_tokenization"


def _parse(path) -> Piece | None:
    from music21 import corpus

    score = corpus.parse(path).stripTies()
    sigs = {ts.ratioString for ts in score.recurse().getElementsByClass("TimeSignature")}
    if sigs != {"4/4"}:
        return None
    parts = {}
    for part in score.parts:
        name = (part.partName or "").strip()
        for v in VOICES:
            if name.startswith(v) and v not in parts:
                parts[v] = part
    if len(parts) != 4:
        return None
    measures = parts["Soprano"].getElementsByClass("Measure")
    pickup = 0.0
    if len(measures) and measures[0].duration.quarterLength < BEATS_PER_BAR:
        pickup = BEATS_PER_BAR - float(measures[0].duration.quarterLength)
    notes = []
    for v, part in parts.items():
        track = 0 if v in ("Soprano", "Alto") else 1
        for n in part.flatten().notes:
            start = (float(n.offset) + pickup) * STEPS_PER_BEAT
            dur = float(n.quarterLength) * STEPS_PER_BEAT
            if start != int(start) or dur != int(dur) or dur <= 0:
                return None
            for p in n.pitches:
                notes.append((track, int(p.midi), int(start), int(start + dur)))
    # two voices of a track may sound the same pitch: merge overlapping copies into one note
    merged: dict[tuple[int, int], list[list[int]]] = {}
    for tr, p, s, e in sorted(notes):
        spans = merged.setdefault((tr, p), [])
        if spans and s < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], e)
        elif spans and s == spans[-1][0]:
            spans[-1][1] = max(spans[-1][1], e)
        else:
            spans.append([s, e])
    flat = sorted((tr, p, s, e) for (tr, p), spans in merged.items() for s, e in spans)
    end = max(e for *_, e in flat)
    return Piece(Path(str(path)).stem, tuple(flat), -(-end // STEPS_PER_BAR))


@lru_cache(maxsize=4)
def load_chorales(max_pieces: int = 120) -> tuple[Piece, ...]:
    """The first ``max_pieces`` usable chorales (4/4, SATB, on the 16th grid), in file-name order."""
    max_pieces = check_int("max_pieces", max_pieces, minimum=1)
    if max_pieces <= SHIPPED_PIECES and SHIPPED.exists():
        import gzip

        data = json.loads(gzip.decompress(SHIPPED.read_bytes()))[:max_pieces]
        return tuple(Piece(d["name"], tuple(tuple(n) for n in d["notes"]), d["n_bars"]) for d in data)
    cache = _cache_dir() / f"chorales_v{_CACHE_VERSION}_{max_pieces}.json"
    if cache.exists():
        data = json.loads(cache.read_text())
        return tuple(Piece(d["name"], tuple(tuple(n) for n in d["notes"]), d["n_bars"]) for d in data)
    from music21 import corpus

    pieces = []
    for path in sorted(corpus.getComposer("bach"), key=str):
        if len(pieces) >= max_pieces:
            break
        if not str(path).endswith((".mxl", ".xml", ".krn")):
            continue
        try:
            pc = _parse(path)
        except Exception:  # noqa: BLE001 - a file music21 cannot read is skipped, like an off-grid one
            pc = None
        if pc is not None and pc.notes:
            pieces.append(pc)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps([{"name": p.name, "notes": [list(n) for n in p.notes], "n_bars": p.n_bars}
                               for p in pieces]))
    tmp.replace(cache)
    return tuple(pieces)


def split(pieces: tuple[Piece, ...], test_frac: float = 0.15) -> tuple[list[Piece], list[Piece]]:
    """A fixed split by piece: every k-th piece (in name order) goes to the test part."""
    if not 0 < test_frac < 1:
        raise ValueError(f"test_frac must be in (0, 1), got {test_frac!r}")
    k = max(2, round(1 / test_frac))
    test = [p for i, p in enumerate(pieces) if i % k == k - 1]
    train = [p for i, p in enumerate(pieces) if i % k != k - 1]
    return train, test


def to_score(piece: Piece):
    """A ``symusic.Score`` (4 ticks per quarter = 1 tick per 16th), one track per program 0 / 1."""
    import symusic

    score = symusic.Score(STEPS_PER_BEAT)
    for t in (0, 1):
        track = symusic.Track(f"track{t}", program=t)
        for tr, p, s, e in piece.notes:
            if tr == t:
                track.notes.append(symusic.Note(s, e - s, p, 64))
        score.tracks.append(track)
    return score


def from_score(score, name: str = "decoded") -> Piece:
    """Inverse of :func:`to_score` (ticks rescaled to 16ths; programs other than 0/1 map to track 1)."""
    scale = STEPS_PER_BEAT / score.ticks_per_quarter
    notes = []
    for track in score.tracks:
        t = 0 if track.program == 0 else 1
        for n in track.notes:
            notes.append((t, int(n.pitch), int(round(n.time * scale)), int(round((n.time + n.duration) * scale))))
    notes = sorted(set(notes))
    end = max((e for *_, e in notes), default=0)
    return Piece(name, tuple(notes), -(-end // STEPS_PER_BAR))
