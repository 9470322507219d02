"""Known-answer tests for the BEAT codec (patch values, exact round trip, variants) and its baselines."""

import numpy as np
import pytest

from icml26.llm.beat_tokenization.method import (
    N_SPECIAL,
    SP,
    VARIANTS,
    Vocabulary,
    decode,
    encode,
    patch_digits,
    patch_value,
    raw_vocab_size,
    same_music,
)
from icml26.llm.beat_tokenization.setting import STEPS_PER_BAR, Piece, concat, load_chorales, split


def test_patch_values_of_the_spec():
    assert patch_value((1, 2, 2, 2)) == 53  # quarter note
    assert patch_value((1, 2, 1, 2)) == 50  # two eighths
    assert patch_value((1, 0, 0, 0)) == 27  # staccato 16th
    assert patch_value((2, 2, 2, 2)) == 80  # tied in from the previous beat
    for v in range(81):
        assert patch_value(patch_digits(v)) == v


def test_vocabulary_sizes():
    assert raw_vocab_size("C") == raw_vocab_size("D") == N_SPECIAL + 88 * 81
    assert raw_vocab_size("B") == N_SPECIAL + 88 + 81


def test_encoding_of_a_small_piece_by_hand():
    # track 0: C4 quarter at beat 0 and E4 half note from beat 0; track 1 empty; one bar
    pc = Piece("t", ((0, 60, 0, 4), (0, 64, 0, 8)), 1)
    toks = encode(pc, "C")
    c4, e4 = 60 - 21, 64 - 21
    expected = [SP["BOS"], SP["TS_4/4"], SP["TEMPO_unk"], SP["BAR"],
                SP["TRACK_0"], N_SPECIAL + c4 * 81 + 53, N_SPECIAL + (e4 - c4) * 81 + 53, SP["TRACK_1"],
                SP["TRACK_0"], N_SPECIAL + e4 * 81 + 80, SP["TRACK_1"],
                SP["TRACK_0"], SP["TRACK_1"], SP["TRACK_0"], SP["TRACK_1"], SP["EOS"]]
    assert toks == expected
    d = encode(pc, "D")
    assert d[6] == N_SPECIAL + e4 * 81 + 53  # absolute pitch for the second note
    b = encode(pc, "B")
    assert b[4:9] == [N_SPECIAL + c4, N_SPECIAL + 88 + 53, N_SPECIAL + (e4 - c4), N_SPECIAL + 88 + 53, SP["END"]]
    assert b[9] == SP["EMPTY"]


def _random_piece(rng, n_bars=3):
    notes = []
    for tr in (0, 1):
        for p in rng.choice(np.arange(21, 109), size=6, replace=False):
            t = int(rng.integers(0, 4))
            while t < n_bars * STEPS_PER_BAR - 1:
                e = min(n_bars * STEPS_PER_BAR, t + int(rng.integers(1, 12)))
                notes.append((tr, int(p), t, e))
                t = e + int(rng.integers(0, 6))
    return Piece("r", tuple(sorted(notes)), n_bars)


@pytest.mark.parametrize("variant", VARIANTS)
def test_round_trip_is_exact_on_random_grid_music(variant):
    rng = np.random.default_rng(0)
    for _ in range(30):
        pc = _random_piece(rng)
        assert decode(encode(pc, variant), variant).notes == pc.notes


def test_repeated_onsets_and_ties_across_beats_survive():
    pc = Piece("t", ((0, 60, 0, 1), (0, 60, 1, 2), (0, 60, 2, 9), (1, 40, 3, 16)), 1)
    for v in VARIANTS:
        assert same_music(decode(encode(pc, v), v), pc)


def test_one_token_per_active_pitch_per_beat():
    rng = np.random.default_rng(1)
    pc = _random_piece(rng, 2)
    toks = encode(pc, "C")
    n_notes = sum(t >= N_SPECIAL for t in toks)
    active = 0
    for tr in (0, 1):
        for beat in range(pc.n_bars * 4):
            lo, hi = 4 * beat, 4 * beat + 4
            active += len({p for t, p, s, e in pc.notes if t == tr and s < hi and e > lo})
    assert n_notes == active


def test_decode_rejects_malformed_sequences():
    with pytest.raises(ValueError):
        decode([1, 2, 3])
    pc = Piece("t", ((0, 60, 0, 4),), 1)
    toks = encode(pc, "C")
    with pytest.raises(ValueError):
        decode(toks[:4] + toks[5:], "C")  # a missing TRACK marker
    with pytest.raises(ValueError, match="variant"):
        encode(pc, "A")


def test_vocabulary_maps_unseen_to_unk():
    v = Vocabulary([[5, 6, 7], [7, 8]])
    assert len(v) == 6 and v.ids([5, 99]) == [2, 1] and v.covers([6, 8]) and not v.covers([99])


def test_concat_and_crop():
    a = Piece("a", ((0, 60, 0, 20),), 2)
    b = a.crop(1, 1)
    assert b.notes == ((0, 60, 0, 4),) and b.n_bars == 1
    ab = concat([b, b])
    assert ab.notes == ((0, 60, 0, 4), (0, 60, 16, 20)) and ab.n_bars == 2


def test_shipped_chorales_and_split():
    ps = load_chorales(30)
    assert len(ps) == 30 and all(p.notes for p in ps)
    train, test = split(ps)
    assert len(test) == 30 // 7 and not {p.name for p in train} & {p.name for p in test}
    for p in ps[:10]:
        for v in VARIANTS:
            assert decode(encode(p, v), v).notes == p.notes


def test_shipped_chorale_matches_a_fresh_music21_parse():
    pytest.importorskip("music21", reason="music21 parses the MusicXML corpus")
    from music21 import corpus

    from icml26.llm.beat_tokenization.setting import _parse

    first = load_chorales(1)[0]
    path = [p for p in corpus.getComposer("bach") if p.stem == first.name][0]
    assert _parse(path) == first


def test_remi_round_trip_on_a_chorale():
    pytest.importorskip("miditok", reason="REMI comes from MidiTok")
    from icml26.llm.beat_tokenization.method import remi_decode, remi_encode, remi_tokenizer

    tok = remi_tokenizer()
    pc = load_chorales(3)[2]
    assert same_music(remi_decode(tok, remi_encode(tok, pc)), pc)


def test_vectorised_encode_matches_beat_by_beat_patch_values():
    """encode computes patch values for a whole piece at once; compare with patch_value, beat by beat."""
    from icml26.llm.beat_tokenization.method import _grid, _group_tokens
    from icml26.llm.beat_tokenization.setting import BEATS_PER_BAR, STEPS_PER_BAR, STEPS_PER_BEAT

    pieces = list(load_chorales(6)) + [Piece("x", ((0, 60, 0, 4), (0, 64, 2, 8), (1, 48, 0, 16)), 1),
                                       Piece("empty-track", ((0, 60, 1, 30),), 2)]
    for pc in pieces:
        rolls = _grid(pc)
        for variant in ("B", "C", "D"):
            ref = [SP["BOS"], SP["TS_4/4"], SP["TEMPO_unk"]]
            for bar in range(pc.n_bars):
                ref.append(SP["BAR"])
                for beat in range(BEATS_PER_BAR):
                    lo = bar * STEPS_PER_BAR + beat * STEPS_PER_BEAT
                    for tr in (0, 1):
                        group = [(k[1], patch_value(r[lo:lo + STEPS_PER_BEAT]))
                                 for k, r in sorted(rolls.items()) if k[0] == tr]
                        ref += _group_tokens(tr, [g for g in group if g[1]], variant)
            ref.append(SP["EOS"])
            assert encode(pc, variant) == ref


# ----------------------------------------------------------------------------- A B A spans
def _aba_codecs(tmp_path):
    pytest.importorskip("miditok", reason="REMI comes from MidiTok")
    from icml26.llm.beat_tokenization.experiment import Codec
    from icml26.llm.beat_tokenization.method import remi_tokenizer, train_remi_bpe

    train = list(load_chorales(8))
    bpe = train_remi_bpe(train, len(remi_tokenizer()) + 60, tmp_path)
    return {"beat": Codec("beat", None, "C"), "remi": Codec("remi", remi_tokenizer()), "bpe": Codec("bpe", bpe)}


def test_aba_spans_cover_exactly_each_a_section_in_every_tokenization(tmp_path):
    from icml26.llm.beat_tokenization.experiment import aba_spans

    codecs = _aba_codecs(tmp_path)
    assert codecs["bpe"].tok.is_trained
    pieces = load_chorales(12)[8:]  # not seen by the BPE fit
    rng = np.random.default_rng(3)
    for k in range(6):
        pa, pb = pieces[k % 4], pieces[(k + 1) % 4]
        a = pa.crop(int(rng.integers(0, pa.n_bars - 2)), 2)
        b = pb.crop(int(rng.integers(0, pb.n_bars - 2)), 2)
        decoded = {}
        for name, c in codecs.items():
            out = aba_spans(c, a, b)
            assert out is not None, name
            ids, (s1, e1), (s2, e2) = out
            assert c.header <= s1 < e1 <= s2 < e2 == len(ids) - 1  # header before, EOS after, B between
            assert ids[-1] == c.eos and c.eos not in ids[s2:e2]
            first, second = c.decode_body(ids[s1:e1]), c.decode_body(ids[s2:e2])
            assert first.notes == second.notes == a.notes, name
            # B sits between the spans: the tokens in between decode to B
            assert c.decode_body(ids[e1:s2]).notes == b.notes, name
            decoded[name] = first.notes
            if name != "bpe":  # without BPE the two A sections are the very same tokens
                assert ids[s1:e1] == ids[s2:e2] == c.encode(a)[c.header:-1]
        assert decoded["beat"] == decoded["remi"] == decoded["bpe"]


def test_aba_spans_of_a_hand_made_piece():
    from icml26.llm.beat_tokenization.experiment import Codec, aba_spans

    a = Piece("a", ((0, 60, 0, 4), (1, 48, 0, 16)), 1)
    b = Piece("b", ((0, 62, 0, 8),), 1)
    ids, (s1, e1), (s2, e2) = aba_spans(Codec("beat", None, "C"), a, b)
    body_a, body_b = encode(a, "C")[3:-1], encode(b, "C")[3:-1]
    assert ids == encode(a, "C")[:3] + body_a + body_b + body_a + [SP["EOS"]]
    assert (s1, e1) == (3, 3 + len(body_a)) and (s2, e2) == (3 + len(body_a) + len(body_b), len(ids) - 1)


def test_aba_ratio_runs_on_tiny_models():
    pytest.importorskip("torch")
    from icml26.core.paper import Profile
    from icml26.llm.beat_tokenization.experiment import LMS, Codec, aba
    from icml26.nn.transformer import LMConfig, TinyLM

    pieces = list(load_chorales(3))
    codecs = {name: Codec(name, None, "C") for name in LMS}  # one codec under every name: equal spans
    vocab = Vocabulary([encode(p, "C") for p in pieces])
    models = {name: TinyLM(LMConfig(vocab_size=len(vocab), d_model=16, n_layers=1, n_heads=2, max_len=384))
              for name in LMS}
    prof = Profile("t", seeds=1, params={"aba_bars": 2, "aba_items": 3, "window": 384})
    out = aba(codecs, {n: vocab for n in LMS}, models, pieces, prof, seed=0)
    assert out["aba/n_items"] == 3
    assert all(np.isfinite(out[f"aba/{n}"]) and out[f"aba/{n}"] > 0 for n in LMS)
