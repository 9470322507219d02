import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.nn.tokenize import KINDS, SPECIALS, check_texts, gpt2_byte_map, train_byte_level, train_tokenizer

TEXTS = [f"the {a} {b} sat on the mat number {i}" for i, (a, b) in
         enumerate([("big", "cat"), ("small", "dog"), ("red", "fox"), ("old", "owl")] * 20)]


@pytest.mark.parametrize("kind", KINDS)
def test_round_trip_and_specials(kind):
    tok = train_tokenizer(TEXTS, kind=kind, vocab_size=120)
    text = "the big cat sat on the mat number 3"
    ids = tok.encode(text, bos=True, eos=True)
    assert ids[0] == tok.bos_id and ids[-1] == tok.eos_id and tok.pad_id == 0
    assert tok.decode(ids) == text
    assert tok.vocab_size <= 120


def test_bpe_merges_frequent_words():
    tok = train_tokenizer(TEXTS, kind="bpe", vocab_size=200)
    assert len(tok.encode("the mat")) < len("the mat")


def test_nfkc_normaliser():
    tok = train_tokenizer(["ﬁne ﬁsh", "fine fish"], kind="word", vocab_size=20, normalizer="nfkc")
    assert tok.encode("ﬁne") == tok.encode("fine")
    raw = train_tokenizer(["ﬁne ﬁsh", "fine fish"], kind="word", vocab_size=20, normalizer=None)
    assert raw.encode("ﬁne") != raw.encode("fine")


def test_pad_right_and_left():
    tok = train_tokenizer(TEXTS, kind="char", vocab_size=60)
    a, b = tok.encode("the"), tok.encode("t")
    batch, mask = tok.pad([a, b])
    assert batch.shape == (2, 3) and mask.tolist() == [[True] * 3, [True, False, False]]
    left, lmask = tok.pad([a, b], side="left")
    assert left[1, -1].item() == b[0] and lmask[1].tolist() == [False, False, True]


def test_bad_input():
    with pytest.raises(ValueError, match="kind"):
        train_tokenizer(TEXTS, kind="sentencepiece")
    with pytest.raises(ValueError, match="vocab_size"):
        train_tokenizer(TEXTS, vocab_size=2)
    with pytest.raises(TypeError, match="texts"):
        train_tokenizer("one string")
    with pytest.raises(ValueError, match="texts"):
        train_tokenizer([])
    tok = train_tokenizer(TEXTS, kind="word", vocab_size=50)
    with pytest.raises(TypeError, match="text"):
        tok.encode(3)


def test_transformers_wrapper():
    tok = train_tokenizer(TEXTS, kind="bpe", vocab_size=100)
    hf = tok.to_transformers()
    assert hf("the cat")["input_ids"] == tok.encode("the cat") and hf.pad_token_id == 0


# ----------------------------------------------------------------------------- byte level
BYTE_TEXTS = ["the cat sat on the mat", "la valuta di Andorra è l'euro", "安道尔的货币是欧元。", "𝐓𝐡𝐞 ｆｕｌｌ"] * 5


@pytest.fixture(scope="module")
def byte_tokenizers():
    return train_byte_level(BYTE_TEXTS), train_byte_level(BYTE_TEXTS, vocab_size=300)


def test_gpt2_byte_map_known_answers():
    table = gpt2_byte_map()
    assert len(table) == 256 and sorted(table.values()) == list(range(256))
    assert table["a"] == 0x61 and table["!"] == 0x21 and table["ÿ"] == 0xFF  # printable Latin-1 stands for itself
    assert table["Ā"] == 0x00 and table["Ġ"] == 0x20 and table["ġ"] == 0x7F and table["Ń"] == 0xAD
    from tokenizers import pre_tokenizers

    assert set(table) == set(pre_tokenizers.ByteLevel.alphabet())
    table["a"] = -1  # a fresh copy per call
    assert gpt2_byte_map()["a"] == 0x61


def test_byte_level_members(byte_tokenizers):
    raw, bpe = byte_tokenizers
    assert raw.kind == "bytes" and raw.vocab_size == 256 + len(SPECIALS) and raw.pad_id == 0
    assert bpe.kind == "byte_bpe" and bpe.vocab_size == 300
    table = gpt2_byte_map()
    for text in BYTE_TEXTS[:4]:
        assert len(raw.encode(text)) == len(text.encode("utf-8"))  # one token per byte
        assert len(bpe.encode(text)) < len(text.encode("utf-8"))  # merges shorten it
        for tok in (raw, bpe):  # the tokens spell the text's bytes
            assert b"".join(bytes(table[c] for c in t) for t in tok.tokens(text)) == text.encode("utf-8")
    assert raw.tokens("é") == ["Ã", "©"]  # U+00E9 is the bytes C3 A9


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_byte_level_round_trips_any_unicode(byte_tokenizers, text):
    """No <unk>, and decode(encode(s)) == s for any string (surrogates cannot be UTF-8 encoded)."""
    for tok in byte_tokenizers:
        ids = tok.encode(text)
        assert tok.unk_id not in ids or "<unk>" in text
        if not any(s in text for s in SPECIALS):
            assert tok.decode(ids) == text


def test_byte_level_bad_input():
    with pytest.raises(ValueError, match="vocab_size"):
        train_byte_level(BYTE_TEXTS, vocab_size=259)
    with pytest.raises(TypeError, match="vocab_size"):
        train_byte_level(BYTE_TEXTS, vocab_size=300.0)
    with pytest.raises(TypeError, match="texts"):
        train_byte_level("one string")
    with pytest.raises(TypeError, match="texts"):
        train_byte_level(3)
    with pytest.raises(ValueError, match="texts"):
        train_byte_level([])
    with pytest.raises(TypeError, match="texts"):   # a non-str item: a type error since the shared check_texts
        train_byte_level(["ok", 3])


def test_train_tokenizer_names_texts_for_a_non_iterable():
    with pytest.raises(TypeError, match="texts"):
        train_tokenizer(5, kind="char")
    with pytest.raises(TypeError, match="texts"):
        train_tokenizer(["ok", None], kind="char")


def _old_texts(texts):
    """train_byte_level's (and toksuite's _texts') check before issue 13, verbatim: the reference for valid input."""
    from collections.abc import Iterable

    if isinstance(texts, str):
        raise TypeError("texts must be a list of strings, not one string")
    if not isinstance(texts, Iterable):
        raise TypeError(f"texts must be a list of strings, got {type(texts).__name__}")
    texts = list(texts)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a non-empty list of strings")
    return texts


def test_check_texts_matches_the_old_check_on_valid_input():
    for make in (lambda: ["a b", "c"], lambda: ("x",), lambda: (t for t in ["p", "q q", ""]),
                 lambda: iter(["é", "z"]), lambda: {"k": 1, "l": 2}.keys()):
        assert check_texts(make()) == _old_texts(make())
    gen = (t for t in ["one", "two"])
    assert check_texts(gen) == ["one", "two"] and list(gen) == []    # an iterator is read once, as before
    src = ["a", "b"]
    out = check_texts(src)
    assert out == src and out is not src                               # a fresh list, as list(texts) gave
    for kind in ("char", "bpe"):                                       # a generator still trains the same tokenizer
        a = train_tokenizer((t for t in TEXTS), kind=kind, vocab_size=60)
        b = train_tokenizer(list(TEXTS), kind=kind, vocab_size=60)
        assert a.backend.to_str() == b.backend.to_str()


@pytest.mark.parametrize("texts, exc", [("one string", TypeError), (5, TypeError), (None, TypeError),
                                        ([], ValueError), ((t for t in []), ValueError),
                                        (["ok", 3], TypeError), ([b"bytes"], TypeError)])
def test_check_texts_names_the_argument(texts, exc):
    with pytest.raises(exc, match="corpus"):
        check_texts(texts, name="corpus")
