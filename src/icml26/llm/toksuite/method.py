"""TokSuite's method (arXiv:2512.20757, Sections 3-4): a model suite that differs only in the tokenizer, and its metric.

1. **The tokenizer suite** (:func:`train_suite`). Every member is a Hugging Face ``tokenizers``
   tokenizer fitted on the same corpus: raw UTF-8 bytes (ByT5-like), characters, byte-level BPE
   at three vocabulary sizes (GPT-2 style), Unigram with and without an NFKC normaliser, and
   WordPiece (mBERT-like). Every member comes from :mod:`icml26.nn.tokenize`: the byte and
   byte-level BPE members from its :func:`~icml26.nn.tokenize.train_byte_level`, the others from
   :func:`~icml26.nn.tokenize.train_tokenizer`.
2. **The super vocabulary** (:func:`super_vocabulary`). Each member's tokens are keyed by the UTF-8
   bytes they stand for (a leading-space marker ``▁`` or a WordPiece word start becomes a space,
   ``##`` continuation marks are dropped, GPT-2's byte alphabet is mapped back to bytes); the
   super vocabulary SV is the union of the keys, sorted by bytes, and each member gets a map
   ``V_i -> SV``.
3. **Shared initialisation** (:func:`init_from_superset`). One *superset* LM with an embedding table
   over SV is trained on the corpus as tokenized by every member (TokSuite's phase 1);
   every member model then starts from that checkpoint, its embedding (and tied output) rows
   sliced through its map (phase 2), so shared tokens start from the same vector and the
   non-embedding weights are identical across members.
4. **Equal token budget**: every member trains for the same steps x batch x window tokens
   (the experiment does this with :func:`icml26.nn.train.train_lm`).
5. **Multiple-choice scoring and relative drop** (:func:`score_choices`, :func:`relative_drop`):
   each option's log-likelihood given the question, divided by the option's UTF-8 length
   (a tokenizer-agnostic normalisation), argmax is the answer; a category's relative drop is
   ``(acc_clean - acc_perturbed) / acc_clean`` on the same items; :func:`bootstrap_drop` gives a
   per-item (paired) bootstrap interval.

Shapes: token ids are lists of ints; a model maps (batch, seq) ids to (batch, seq, vocab) logits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from icml26.core.validate import as_rng, check_int
from icml26.nn.tokenize import (SPECIALS, Tokenizer, check_texts, gpt2_byte_map, train_byte_level,
                                train_tokenizer)

#: The members of the suite: name -> (kind, vocabulary-size key, normaliser).
SUITE = {
    "bytes": ("bytes", None, None),
    "chars": ("char", None, None),
    "bpe_s": ("byte_bpe", "small", None),
    "bpe_m": ("byte_bpe", "mid", None),
    "bpe_l": ("byte_bpe", "large", None),
    "unigram_nfkc": ("unigram", "mid", "nfkc"),
    "unigram": ("unigram", "mid", None),
    "wordpiece": ("wordpiece", "mid", None),
}
NORMALISING = ("unigram_nfkc",)


# ----------------------------------------------------------------------------- 1. the tokenizer suite
def _sizes(sizes) -> dict[str, int]:
    """``sizes`` checked: exactly the keys small / mid / large, each an int vocabulary size (>= 6)."""
    if not isinstance(sizes, Mapping):
        raise TypeError(f"sizes must be a mapping small/mid/large -> int, got {type(sizes).__name__}")
    extra = sorted(set(sizes) - {"small", "mid", "large"}, key=str)
    if extra:
        raise ValueError(f"sizes: unknown keys {extra}; give exactly small, mid and large")
    return {key: check_int(f"sizes[{key!r}]", sizes.get(key), minimum=len(SPECIALS) + 2)
            for key in ("small", "mid", "large")}


def train_suite(texts: Sequence[str], sizes: Mapping[str, int], members: Sequence[str] | None = None
                ) -> dict[str, Tokenizer]:
    """Fit every member of :data:`SUITE` (or ``members``) on ``texts``; ``sizes`` maps small/mid/large to vocab sizes."""
    texts = check_texts(texts)
    sizes = _sizes(sizes)
    names = list(SUITE) if members is None else list(members)
    out = {}
    for name in names:
        if name not in SUITE:
            raise ValueError(f"members: unknown member {name!r}; choose from {list(SUITE)}")
        kind, size_key, norm = SUITE[name]
        if kind == "bytes":
            out[name] = train_byte_level(texts, None)
        elif kind == "byte_bpe":
            out[name] = train_byte_level(texts, int(sizes[size_key]))
        elif kind == "char":
            out[name] = train_tokenizer(texts, kind="char", vocab_size=100_000, normalizer=norm)
        else:
            out[name] = train_tokenizer(texts, kind=kind, vocab_size=int(sizes[size_key]), normalizer=norm)
    return out


#: Fitted suites shipped with the package: {suite_key: {member: tokenizer JSON}}. The Unigram and
#: WordPiece trainers of ``tokenizers`` are not reproducible across processes (Rust hash-map order
#: breaks ties: the same corpus gives different Unigram ids and scores and a different WordPiece
#: vocabulary in each process), so a fit made on one machine differs from a fit made on another and
#: with it the super vocabulary, the superset and every member. Shipping one fit per profile corpus
#: (like the paper's off-the-shelf tokenizers) makes a seed's metrics the same on every machine.
FITS = Path(__file__).with_name("fits.json.gz")


def suite_key(texts: Sequence[str], sizes: Mapping[str, int]) -> str:
    """The key of a fitted suite: a hash of the corpus, the vocabulary sizes and :data:`SUITE`.

    ``sizes`` is checked as in :func:`train_suite` (exactly small / mid / large, ints >= 6).
    """
    import hashlib

    texts = check_texts(texts)
    sizes = _sizes(sizes)
    blob = json_dumps([texts, sizes, sorted(SUITE.items())])
    return hashlib.sha1(blob.encode()).hexdigest()[:16]


@lru_cache(maxsize=1)
def _load_fits(path: str) -> dict:
    import gzip
    import json

    with gzip.open(Path(path), "rt", encoding="utf-8") as f:
        return json.load(f)


def shipped_suite(texts: Sequence[str], sizes: Mapping[str, int], path=None) -> dict[str, Tokenizer] | None:
    """The fitted suite stored in a fits file for this corpus and sizes, or ``None`` if it holds none.

    ``path=None`` reads the package's :data:`FITS` (``fits.json.gz``; ``None`` too when a build
    ships without it); a ``path`` you give must exist (``FileNotFoundError`` otherwise).
    """
    import os

    import tokenizers

    if path is None:
        if not FITS.exists():
            return None
        path = FITS
    elif not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or os.PathLike), got {type(path).__name__}")
    elif not Path(path).is_file():
        raise FileNotFoundError(f"path: no fits file at {str(path)!r}")
    entry = _load_fits(str(path)).get(suite_key(texts, sizes))
    if entry is None or set(entry) != set(SUITE):
        return None
    return {name: Tokenizer(tokenizers.Tokenizer.from_str(entry[name]), kind) for name, (kind, _, _) in SUITE.items()}


def write_fits(suites: Sequence[tuple[Sequence[str], Mapping[str, int], Mapping[str, Tokenizer]]],
               path=FITS) -> None:
    """Write ``fits.json.gz``: one entry per (texts, sizes, fitted suite), keyed by :func:`suite_key`."""
    import gzip
    import json

    out = {}
    for texts, sizes, suite in suites:
        if set(suite) != set(SUITE):
            raise ValueError(f"suites: each fitted suite must hold exactly the members {list(SUITE)}")
        out[suite_key(texts, sizes)] = {name: suite[name].backend.to_str() for name in SUITE}
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(json.dumps(out, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    _load_fits.cache_clear()


def cached_suite(texts: Sequence[str], sizes: Mapping[str, int], cache_dir=None, *, shipped: bool = True
                 ) -> dict[str, Tokenizer]:
    """The shipped fit of :func:`train_suite` (:func:`shipped_suite`), else a fit stored on disk once and read back.

    The Unigram and WordPiece trainers of ``tokenizers`` are not bit-for-bit reproducible (hash-map
    order decides ties and float sums), so a seed re-run must reuse one fit: the shipped one where
    the corpus and sizes are a profile's, otherwise the first fit written to disk. The file lives
    where :func:`icml26.core.cache.cache_path` puts namespace ``toksuite``, name ``suite`` (under
    ``$ICML26_CACHE``, keyed by :func:`suite_key`, the ``tokenizers`` version and the code of this
    module and what it imports), or in
    ``cache_dir`` if given. Unlike :func:`icml26.core.cache.cached` (the last writer wins, and each
    builder keeps its own value), the first writer wins here (an atomic hard link) and every caller
    reads the stored fit back, so parallel workers fitting at once still agree on one fit (it
    still differs between machines). ``ICML26_NO_CACHE=1`` fits afresh and writes nothing.
    """
    import json
    import os
    import tempfile

    import tokenizers

    from icml26.core.cache import cache_path

    texts = check_texts(texts)
    sizes = _sizes(sizes)
    if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
        raise TypeError(f"cache_dir must be a folder path (str or os.PathLike), got {type(cache_dir).__name__}")
    if shipped:
        fit = shipped_suite(texts, sizes)
        if fit is not None:
            return fit
    if os.environ.get("ICML26_NO_CACHE") == "1":
        return train_suite(texts, sizes)
    path = cache_path("toksuite", "suite", {"suite_key": suite_key(texts, sizes),
                                            "tokenizers": tokenizers.__version__}, fmt="json", code=__name__)
    if cache_dir is not None:
        path = Path(cache_dir) / path.name

    def read():
        entry = json.loads(path.read_text(encoding="utf-8"))
        return {name: Tokenizer(tokenizers.Tokenizer.from_str(entry[name]), kind)
                for name, (kind, _, _) in SUITE.items()}

    if path.exists():
        try:
            return read()
        except Exception:  # noqa: BLE001 - an unreadable file (older format) is refitted and replaced
            path.unlink(missing_ok=True)
    fitted = train_suite(texts, sizes)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps({name: fitted[name].backend.to_str() for name in SUITE}, ensure_ascii=False))
        os.link(tmp, path)  # first writer wins: a fit already there (another worker's) is kept
    except FileExistsError:
        pass
    finally:
        Path(tmp).unlink(missing_ok=True)
    return read()


def json_dumps(obj) -> str:
    import json

    return json.dumps(obj, ensure_ascii=False, sort_keys=True, default=str)


def bytes_per_token(tok: Tokenizer, texts: Sequence[str]) -> float:
    """UTF-8 bytes of ``texts`` divided by the number of tokens ``tok`` makes of them (compression)."""
    texts = check_texts(texts)
    n_bytes = sum(len(t.encode("utf-8")) for t in texts)
    n_tok = sum(len(tok.encode(t)) for t in texts)
    return n_bytes / max(1, n_tok)


# ----------------------------------------------------------------------------- 2. the super vocabulary
def token_key(tok: Tokenizer, token: str) -> bytes:
    """The UTF-8 bytes a vocabulary entry stands for, the key of the super vocabulary.

    Specials keep their name (prefixed by a NUL byte, so no text token can collide with them).
    """
    if token in SPECIALS:
        return b"\x00" + token.encode()
    if tok.kind in ("bytes", "byte_bpe"):
        table = _BYTE_MAP or _byte_map()
        return bytes(table[c] for c in token)
    if tok.kind == "wordpiece":
        return token[2:].encode() if token.startswith("##") else b" " + token.encode()
    if tok.kind in ("bpe", "unigram"):
        return token.replace("▁", " ").encode()
    return token.encode()


_BYTE_MAP: dict[str, int] = {}


def _byte_map() -> dict[str, int]:
    _BYTE_MAP.update(gpt2_byte_map())
    return _BYTE_MAP


def super_vocabulary(suite: Mapping[str, Tokenizer]) -> tuple[list[bytes], dict[str, np.ndarray]]:
    """(SV keys sorted by bytes, {member: (vocab_i,) int array mapping its ids into SV})."""
    if not isinstance(suite, Mapping) or not suite:
        raise ValueError("suite must be a non-empty mapping name -> Tokenizer")
    keys: dict[str, list[bytes]] = {}
    for name, tok in suite.items():
        if not isinstance(tok, Tokenizer):
            raise TypeError(f"suite[{name!r}] must be an icml26.nn.tokenize.Tokenizer, got {type(tok).__name__}")
        vocab = tok.backend.get_vocab()
        ks = [b""] * tok.vocab_size
        for token, i in vocab.items():
            ks[i] = token_key(tok, token)
        keys[name] = ks
    sv = sorted(set().union(*map(set, keys.values())))
    index = {k: i for i, k in enumerate(sv)}
    return sv, {name: np.array([index[k] for k in ks], dtype=np.int64) for name, ks in keys.items()}


# ----------------------------------------------------------------------------- 3. shared initialisation
def init_from_superset(superset, mapping: np.ndarray):
    """A member TinyLM warm-started from the superset LM: same body, embedding rows ``superset.tok[mapping]``.

    ``mapping``: (vocab_i,) ids into the superset's vocabulary. The output head is tied, so it is
    sliced too (TokSuite slices both ``tok_embeddings`` and ``output``).
    """
    import dataclasses

    import torch

    from icml26.nn.transformer import TinyLM

    m = np.asarray(mapping)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(f"mapping must be a non-empty 1-D array of super-vocabulary ids, got shape {m.shape}")
    if m.dtype.kind not in "iu":
        raise TypeError(f"mapping must hold integer ids, got dtype {m.dtype}")
    if m.min() < 0 or m.max() >= superset.cfg.vocab_size:
        raise ValueError(f"mapping ids must lie in [0, {superset.cfg.vocab_size}), got [{m.min()}, {m.max()}]")
    cfg = dataclasses.replace(superset.cfg, vocab_size=int(m.size))
    model = TinyLM(cfg)
    state = {k: v for k, v in superset.state_dict().items() if k not in ("tok.weight", "head.weight")}
    state["tok.weight"] = superset.tok.weight.detach()[torch.as_tensor(m)].clone()
    state["head.weight"] = state["tok.weight"]
    model.load_state_dict(state)
    return model


# ----------------------------------------------------------------------------- 5. scoring and the metric
def sequence_logprobs(model, seqs: Sequence[Sequence[int]], chunk: int = 128) -> np.ndarray:
    """Sum of log p(token_t | tokens_<t) over t >= 1 for each id list (the first id is the conditioning BOS)."""
    import torch

    if not seqs:
        raise ValueError("seqs is empty")
    max_len = model.cfg.max_len
    seqs = [list(s)[-max_len:] for s in seqs]  # keep the end (the option) when too long
    order = np.argsort([len(s) for s in seqs])
    out = np.zeros(len(seqs))
    with torch.no_grad():
        for lo in range(0, len(seqs), chunk):
            idx = order[lo:lo + chunk]
            n = max(len(seqs[i]) for i in idx)
            x = torch.zeros(len(idx), n, dtype=torch.long)
            mask = torch.zeros(len(idx), n - 1, dtype=torch.bool)
            for r, i in enumerate(idx):
                s = seqs[i]
                x[r, :len(s)] = torch.tensor(s)
                mask[r, :len(s) - 1] = True
            logits, _ = model(x[:, :-1])
            lp = torch.log_softmax(logits.float(), -1).gather(-1, x[:, 1:, None])[..., 0]
            out[idx] = (lp * mask).sum(1).numpy()
    return out


def score_choices(model, tok: Tokenizer, questions: Sequence[str], choices: Sequence[Sequence[str]],
                  sep: Sequence[str]) -> np.ndarray:
    """(n_items, n_choices) scores: [log p(question + sep + option) - log p(question)] / bytes(sep + option).

    The whole string is tokenized once per option (so a tokenizer that merges across the question
    / option boundary is scored on its own segmentation) and the question's own log-likelihood is
    subtracted; dividing by the option's UTF-8 length puts every tokenizer on the same scale.
    """
    questions, choices, sep = list(questions), [list(c) for c in choices], list(sep)
    if not questions:
        raise ValueError("questions is empty")
    if len(choices) != len(questions) or len(sep) != len(questions):
        raise ValueError(f"choices and sep must have one entry per question ({len(questions)}), "
                         f"got {len(choices)} and {len(sep)}")
    k = len(choices[0])
    if k < 2 or any(len(c) != k for c in choices):
        raise ValueError("choices must give every question the same number (>= 2) of options")
    if not all(isinstance(q, str) for q in questions):
        raise TypeError("questions must be strings")
    seqs = [tok.encode(q, bos=True) for q in questions]
    for q, cs, s in zip(questions, choices, sep):
        seqs += [tok.encode(q + s + c, bos=True) for c in cs]
    lp = sequence_logprobs(model, seqs)
    n = len(questions)
    base, full = lp[:n], lp[n:].reshape(n, k)
    lengths = np.array([[len((s + c).encode("utf-8")) for c in cs] for cs, s in zip(choices, sep)], dtype=float)
    return (full - base[:, None]) / lengths


def relative_drop(acc_clean: float, acc_perturbed: float) -> float:
    """TokSuite's robustness metric (acc_clean - acc_perturbed) / acc_clean; lower is more robust."""
    for name, v in (("acc_clean", acc_clean), ("acc_perturbed", acc_perturbed)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)):
            raise TypeError(f"{name} must be a number, got {type(v).__name__}")
        if not (0.0 <= float(v) <= 1.0):
            raise ValueError(f"{name} must be an accuracy in [0, 1], got {v!r}")
    if acc_clean <= 0:
        return float("nan")
    return (float(acc_clean) - float(acc_perturbed)) / float(acc_clean)


def bootstrap_drop(clean_a, pert_a, clean_b=None, pert_b=None, *, n_boot: int = 1000, seed: int = 0
                   ) -> tuple[float, float]:
    """95% per-item bootstrap interval of a relative drop, or of drop(a) - drop(b) on the same items (paired).

    Inputs are (n_items,) 0/1 arrays of correctness on the clean and perturbed question.
    """
    n_boot = check_int("n_boot", n_boot, minimum=10)
    rng = as_rng("seed", seed)
    arrs = []
    for name, v in (("clean_a", clean_a), ("pert_a", pert_a), ("clean_b", clean_b), ("pert_b", pert_b)):
        if v is None:
            arrs.append(None)
            continue
        if isinstance(v, (str, bytes)):
            raise TypeError(f"{name} must be a 1-D 0/1 array, got {type(v).__name__}")
        try:
            a = np.asarray(v, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a 1-D 0/1 array: {exc}") from None
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"{name} must be a non-empty 1-D 0/1 array, got shape {a.shape}")
        if not np.all((a == 0) | (a == 1)):
            raise ValueError(f"{name} must hold 0/1 correctness values")
        arrs.append(a)
    if (arrs[2] is None) != (arrs[3] is None):
        raise ValueError("give both clean_b and pert_b, or neither")
    n = arrs[0].size
    if any(a is not None and a.size != n for a in arrs):
        raise ValueError("all correctness arrays must have the same length (paired items)")
    idx = rng.integers(0, n, size=(n_boot, n))

    def drop(c, p):
        cm, pm = c[idx].mean(1), p[idx].mean(1)
        return np.where(cm > 0, (cm - pm) / np.maximum(cm, 1e-12), np.nan)

    stat = drop(arrs[0], arrs[1])
    if arrs[2] is not None:
        stat = stat - drop(arrs[2], arrs[3])
    lo, hi = np.nanpercentile(stat, [2.5, 97.5])
    return float(lo), float(hi)


def EXAMPLES():
    """Public calls with good arguments, for the common bad-input test."""
    texts = ["the cat sat", "la valuta è euro", "货币是欧元"]
    return [
        (relative_drop, {"acc_clean": 0.8, "acc_perturbed": 0.6}),
        (bootstrap_drop, {"clean_a": np.array([1.0, 1.0, 0.0, 1.0]), "pert_a": np.array([1.0, 0.0, 0.0, 1.0]),
                          "n_boot": 50, "seed": 0}),
        (train_byte_level, {"texts": texts, "vocab_size": 300}),
    ]
