import pytest

from icml26.nn.tokenize import KINDS, train_tokenizer

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
