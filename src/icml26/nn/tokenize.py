"""Tokenizers trained in seconds on generated text, built with the Hugging Face ``tokenizers`` library.

    tok = train_tokenizer(texts, kind="bpe", vocab_size=300, normalizer="nfkc")
    ids = tok.encode("the cat")            # list[int]
    tok.decode(ids)                        # "the cat"
    batch, mask = tok.pad([ids, ids[:1]])  # (2, L) long tensor and bool mask

``kind``: ``char`` (one token per character), ``word`` (whitespace words), ``bpe``,
``unigram`` or ``wordpiece``. Special tokens ``<pad>`` (id 0), ``<unk>``, ``<bos>``, ``<eos>``
come first, so ``pad_id`` is always 0. The normaliser (``nfkc``, ``nfc``, ``lowercase``,
``nfkc+lowercase`` or ``None``) runs before pre-tokenisation, as in production tokenizers.

Byte-level tokenizers (:func:`train_byte_level`) work on UTF-8 bytes, so every string encodes
without ``<unk>`` and decodes back exactly:

    raw = train_byte_level(texts)                    # 256 bytes + specials, one token per byte (ByT5-like)
    bpe = train_byte_level(texts, vocab_size=400)    # GPT-2 style byte-level BPE with merges up to 400 ids

Their token strings spell bytes in GPT-2's printable byte alphabet; :func:`gpt2_byte_map` maps
each of those characters back to its byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from icml26.core.validate import check_int

SPECIALS = ("<pad>", "<unk>", "<bos>", "<eos>")
KINDS = ("char", "word", "bpe", "unigram", "wordpiece")
#: The kinds :func:`train_byte_level` makes: raw bytes (no merges) and byte-level BPE.
BYTE_KINDS = ("bytes", "byte_bpe")
NORMALIZERS = (None, "nfkc", "nfc", "lowercase", "nfkc+lowercase")


def check_texts(texts: Any, name: str = "texts") -> list[str]:
    """``texts`` (a list, tuple, generator or any other iterable of strings) checked, as a new list.

    The iterable is read exactly once, so a generator works and is consumed. A single ``str``
    (which would otherwise count as an iterable of characters), a non-iterable and an item that is
    not a ``str`` raise ``TypeError``; an empty corpus raises ``ValueError``. Every message names
    the argument (``name``).
    """
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a list of strings, not one string")
    try:
        items = iter(texts)
    except TypeError:
        raise TypeError(f"{name} must be a list of strings, got {type(texts).__name__}") from None
    out = list(items)
    if not out:
        raise ValueError(f"{name} must be a non-empty list of strings")
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"{name} must be a list of strings, got {type(t).__name__} at index {i}")
    return out


def _normalizer(name: str | None) -> Any:
    from tokenizers import normalizers as N

    if name is None:
        return None
    parts = {"nfkc": N.NFKC(), "nfc": N.NFC(), "lowercase": N.Lowercase()}
    return N.Sequence([parts[p] for p in name.split("+")])


@dataclass
class Tokenizer:
    """A trained ``tokenizers.Tokenizer`` with the few calls our experiments need."""

    backend: Any
    kind: str

    @property
    def vocab_size(self) -> int:
        return int(self.backend.get_vocab_size())

    @property
    def pad_id(self) -> int:
        return int(self.backend.token_to_id("<pad>"))

    @property
    def bos_id(self) -> int:
        return int(self.backend.token_to_id("<bos>"))

    @property
    def eos_id(self) -> int:
        return int(self.backend.token_to_id("<eos>"))

    @property
    def unk_id(self) -> int:
        return int(self.backend.token_to_id("<unk>"))

    def encode(self, text: str, *, bos: bool = False, eos: bool = False) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        ids = list(self.backend.encode(text).ids)
        return ([self.bos_id] if bos else []) + ids + ([self.eos_id] if eos else [])

    def encode_batch(self, texts: Sequence[str], **kw: bool) -> list[list[int]]:
        return [self.encode(t, **kw) for t in texts]

    def tokens(self, text: str) -> list[str]:
        return list(self.backend.encode(text).tokens)

    def decode(self, ids: Sequence[int], *, skip_special: bool = True) -> str:
        ids = [int(i) for i in ids]
        if self.kind == "char":  # tokens are characters: join them as they are
            specials = {self.backend.token_to_id(s) for s in SPECIALS}
            return "".join(self.backend.id_to_token(i) for i in ids if not (skip_special and i in specials))
        return self.backend.decode(ids, skip_special_tokens=skip_special)

    def pad(self, seqs: Sequence[Sequence[int]], *, length: int | None = None, side: str = "right"):
        """Pad id lists into a (batch, length) long tensor and a bool mask of real tokens."""
        import torch

        if side not in ("right", "left"):
            raise ValueError(f"side must be 'right' or 'left', got {side!r}")
        if not seqs:
            raise ValueError("seqs is empty")
        n = max(len(s) for s in seqs) if length is None else check_int("length", length, minimum=1)
        out = torch.full((len(seqs), n), self.pad_id, dtype=torch.long)
        mask = torch.zeros(len(seqs), n, dtype=torch.bool)
        for i, s in enumerate(seqs):
            s = list(s)[:n]
            if side == "right":
                out[i, :len(s)] = torch.tensor(s, dtype=torch.long)
                mask[i, :len(s)] = True
            else:
                out[i, n - len(s):] = torch.tensor(s, dtype=torch.long)
                mask[i, n - len(s):] = True
        return out, mask

    def to_transformers(self):
        """The same tokenizer as a ``transformers.PreTrainedTokenizerFast`` (for TRL/peft pipelines)."""
        from transformers import PreTrainedTokenizerFast

        return PreTrainedTokenizerFast(tokenizer_object=self.backend, pad_token="<pad>", unk_token="<unk>",
                                       bos_token="<bos>", eos_token="<eos>")


def train_tokenizer(texts: Iterable[str], *, kind: str = "bpe", vocab_size: int = 256,
                    normalizer: str | None = "nfkc", min_frequency: int = 1) -> Tokenizer:
    """Train a tokenizer of ``kind`` on ``texts`` (a list of strings)."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if normalizer not in NORMALIZERS:
        raise ValueError(f"normalizer must be one of {NORMALIZERS}, got {normalizer!r}")
    vocab_size = check_int("vocab_size", vocab_size, minimum=len(SPECIALS) + 1)
    min_frequency = check_int("min_frequency", min_frequency, minimum=1)
    texts = check_texts(texts)
    specials = list(SPECIALS)
    if kind in ("char", "word"):
        norm = _normalizer(normalizer)
        seen: dict[str, int] = {}
        for t in texts:
            t2 = norm.normalize_str(t) if norm is not None else t
            units = list(t2) if kind == "char" else t2.split()
            for u in units:
                seen[u] = seen.get(u, 0) + 1
        keep = sorted((u for u, c in seen.items() if c >= min_frequency), key=lambda u: (-seen[u], u))
        vocab = {s: i for i, s in enumerate(specials)}
        for u in keep[: vocab_size - len(specials)]:
            vocab.setdefault(u, len(vocab))
        tok = HFTokenizer(models.WordLevel(vocab, unk_token="<unk>"))
        tok.add_special_tokens(specials)
        if kind == "char":
            tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
        else:
            tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
            tok.decoder = None
    elif kind == "bpe":
        tok = HFTokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=specials)
    elif kind == "unigram":
        tok = HFTokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials, unk_token="<unk>")
    else:
        tok = HFTokenizer(models.WordPiece(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                            special_tokens=specials)
    norm = _normalizer(normalizer)
    if norm is not None:
        tok.normalizer = norm
    if kind in ("bpe", "unigram", "wordpiece"):
        tok.train_from_iterator(texts, trainer=trainer)
    return Tokenizer(tok, kind)


@lru_cache(maxsize=1)
def _gpt2_byte_table() -> tuple[tuple[str, int], ...]:
    from tokenizers import pre_tokenizers

    # GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes
    # (controls, space, NBSP, soft hyphen) take the characters U+0100 onwards, in byte order.
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    table = {chr(c): b for b, c in zip(bs, cs)}
    if set(table) != set(pre_tokenizers.ByteLevel.alphabet()):  # the library's alphabet is the same 256 characters
        raise RuntimeError("tokenizers' ByteLevel alphabet is not GPT-2's byte alphabet")
    return tuple(table.items())


def gpt2_byte_map() -> dict[str, int]:
    """GPT-2's printable stand-in character for each of the 256 bytes, inverted: character -> byte.

    The tokens of a :func:`train_byte_level` tokenizer are strings over this alphabet (the one
    ``tokenizers.pre_tokenizers.ByteLevel`` uses), so ``bytes(gpt2_byte_map()[c] for c in token)``
    is the UTF-8 byte string a token stands for: ``"Ġ"`` is the space byte ``0x20``, ``"a"`` is ``0x61``.
    A fresh dict on each call (the table itself is computed once).
    """
    return dict(_gpt2_byte_table())


def train_byte_level(texts: Iterable[str], vocab_size: int | None = None) -> Tokenizer:
    """A byte-level tokenizer over UTF-8 bytes (GPT-2's byte alphabet), trained on ``texts`` with ``tokenizers``.

    ``vocab_size=None`` (an empty merge budget): pure bytes, one token per UTF-8 byte, no merges and
    no pre-tokenisation (ByT5-like; ``kind="bytes"``, 256 + 4 special ids). An int: GPT-2 style
    byte-level BPE (``kind="byte_bpe"``): GPT-2's pre-tokenisation regex, the 256 byte tokens
    and the specials, then merges until ``vocab_size`` ids (at least 260). Either way every string
    encodes without ``<unk>`` and ``decode(encode(s)) == s`` (except text that spells a special
    token such as ``"<pad>"``, which encodes as that special). Specials come first (``<pad>`` = 0).
    """
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers

    texts = check_texts(texts)
    base = 256 + len(SPECIALS)
    size = base if vocab_size is None else check_int("vocab_size", vocab_size, minimum=base)
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=vocab_size is not None)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=size, special_tokens=list(SPECIALS), min_frequency=1,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    return Tokenizer(tok, "bytes" if vocab_size is None else "byte_bpe")
