"""The simulated world of the TokSuite reproduction: a parallel multiple-choice fact benchmark in five languages.

TokSuite (arXiv:2512.20757) poses the same canonical question in English, Italian, Turkish, Farsi
and Chinese and re-poses it under surface perturbations (input medium, diacritics, noise, Unicode
styling, STEM notation, ...). Its questions were written by native speakers; ours are generated
from CLDR data (the ``babel`` package): for each of ``n_territories`` territories with a distinct
currency and a distinct official language, two facts ("the currency of X is Y", "the official
language of X is Y") rendered with one template per language. The same sentences are the training
corpus, so every LM can in principle know every answer; the benchmark then asks whether it can
still retrieve the answer from a perturbed question.

The CLDR names (and the ``unidecode`` romanisations and ``homoglyphs`` confusables the
perturbations use) are shipped pre-extracted in ``facts.json.gz``; :func:`build_facts` rebuilds
that file from the libraries (tested to agree when they are installed).

A STEM sub-benchmark (English) holds power facts written with superscripts ("2³ equals 8") beside
digit-string facts ("23 equals 23"): NFKC folds "2³" into "23", so a normalising tokenizer cannot
tell the two questions apart -- the paper's "normalisers lose structure on STEM text" at toy scale.

Perturbation categories (applied to the question, never to the choices):

* ``input``: romanisation of Farsi and Chinese (``unidecode``), the paper's input-medium category;
* ``diacritics``: optional diacritics dropped (Italian, Turkish);
* ``noise``: typos (adjacent swap, drop, keyboard neighbour), OCR confusions, homoglyphs and
  spacing errors at a per-character rate, with at least one edit inside the entity name;
* ``unicode``: Latin letters in Mathematical Bold (English, Italian, Turkish);
* ``stem``: ASCII digits written as full-width digits (STEM items).
"""

from __future__ import annotations

import gzip
import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from icml26.core.validate import as_rng, check_int

LANGS = ("en", "it", "tr", "fa", "zh")
RELATIONS = ("currency", "language")
CATEGORIES = ("input", "diacritics", "noise", "unicode", "stem")
APPLIES = {"input": ("fa", "zh"), "diacritics": ("it", "tr"), "noise": LANGS, "unicode": ("en", "it", "tr"),
           "stem": ("stem",)}
DATA = Path(__file__).with_name("facts.json.gz")

# Question prefixes (our own renderings); the answer follows after SEP[lang] and the sentence ends with END[lang].
TEMPLATES = {
    "en": {"currency": "The currency of {t} is", "language": "The official language of {t} is"},
    "it": {"currency": "La valuta di {t} è", "language": "La lingua ufficiale di {t} è"},
    "tr": {"currency": "{t} ülkesinin para birimi", "language": "{t} ülkesinin resmî dili"},
    "fa": {"currency": "واحد پول {t} عبارت است از", "language": "زبان رسمی {t} عبارت است از"},
    "zh": {"currency": "{t}的货币是", "language": "{t}的官方语言是"},
}
SEP = {"en": " ", "it": " ", "tr": " ", "fa": " ", "zh": "", "stem": " "}
END = {"en": ".", "it": ".", "tr": ".", "fa": ".", "zh": "。", "stem": "."}
SUPERSCRIPT = {"2": "²", "3": "³"}
STEM_BASES = tuple(range(2, 10))
STEM_EXPONENTS = (2, 3)

KEYBOARD = {  # QWERTY neighbours (Latin letters only)
    "q": "wa", "w": "qes", "e": "wrd", "r": "etf", "t": "ryg", "y": "tuh", "u": "yij", "i": "uok", "o": "ipl",
    "p": "ol", "a": "qsz", "s": "adw", "d": "sfe", "f": "dgr", "g": "fht", "h": "gjy", "j": "hku", "k": "jli",
    "l": "ko", "z": "xa", "x": "zcs", "c": "xvd", "v": "cbf", "b": "vng", "n": "bmh", "m": "nj"}
OCR = {"m": "rn", "l": "1", "o": "0", "i": "1", "e": "c", "a": "o", "s": "5", "b": "6", "g": "9", "u": "v",
       "n": "ri", "d": "cl", "O": "0", "I": "l", "S": "5", "B": "8"}
TURKISH_FOLD = {"ı": "i", "İ": "I", "ş": "s", "Ş": "S", "ğ": "g", "Ğ": "G"}
CLDR_DATE = (2024, 1, 1)


# ----------------------------------------------------------------------------- the CLDR facts
def build_facts(n_max: int = 80) -> dict:
    """Extract the fact table from CLDR with ``babel`` (plus ``unidecode``, ``homoglyphs``); the shipped file's source.

    Territories are taken in code order, keeping one whose current currency and first official
    language are both new and named in all five locales.
    """
    import datetime

    import homoglyphs
    from babel import Locale
    from babel.languages import get_official_languages
    from babel.numbers import get_territory_currencies
    from unidecode import unidecode

    n_max = check_int("n_max", n_max, minimum=1)
    locs = {lang: Locale.parse(lang) for lang in LANGS}
    rows, seen_c, seen_l = [], set(), set()
    for code in sorted(locs["en"].territories):
        if len(code) != 2 or not code.isalpha():
            continue
        cur = get_territory_currencies(code, start_date=datetime.date(*CLDR_DATE))
        langs = get_official_languages(code, de_facto=True)
        if not cur or not langs or cur[0] in seen_c or langs[0] in seen_l:
            continue
        c, lang_code = cur[0], langs[0]
        names = {}
        for lang, loc in locs.items():
            t, cn, ln = loc.territories.get(code), loc.currencies.get(c), loc.languages.get(lang_code)
            if not (t and cn and ln):
                break
            names[lang] = {"territory": t, "currency": cn, "language": ln}
        else:
            seen_c.add(c)
            seen_l.add(lang_code)
            roman = {lang: {k: unidecode(v) for k, v in names[lang].items()} for lang in ("fa", "zh")}
            rows.append({"code": code, "currency": c, "language": lang_code, "names": names, "roman": roman})
        if len(rows) >= n_max:
            break
    roman_templates = {lang: {r: unidecode(TEMPLATES[lang][r]) for r in RELATIONS} for lang in ("fa", "zh")}
    hg = homoglyphs.Homoglyphs(categories=("LATIN", "CYRILLIC", "GREEK"))
    glyphs = {}
    for ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ":
        alts = sorted(a for a in hg.get_combinations(ch)
                      if len(a) == 1 and a != ch and not a.isascii() and unicodedata.normalize("NFKC", a) != ch)
        if alts:
            glyphs[ch] = alts[:3]
    return {"cldr_date": list(CLDR_DATE), "rows": rows, "roman_templates": roman_templates, "homoglyphs": glyphs}


@lru_cache(maxsize=1)
def load_facts() -> dict:
    """The shipped fact table (see :func:`build_facts`)."""
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        return json.load(f)


def write_facts(path: Path = DATA) -> None:
    """Rebuild ``facts.json.gz`` from the libraries (needs babel, unidecode, homoglyphs)."""
    data = build_facts()
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8"))


# ----------------------------------------------------------------------------- items and corpus
@dataclass
class Item:
    """One multiple-choice question: the answer is ``choices[answer]``; ``span`` locates the entity in ``question``."""

    id: str
    lang: str
    relation: str
    question: str
    choices: list[str]
    answer: int
    span: tuple[int, int]
    perturbed: dict[str, str] = field(default_factory=dict)


def _stem_facts() -> list[tuple[str, str, str, str]]:
    """(id, question, answer, entity) of the STEM facts: powers with superscripts and digit strings."""
    out = []
    for a in STEM_BASES:
        for b in STEM_EXPONENTS:
            out.append((f"pow{a}{b}", f"{a}{SUPERSCRIPT[str(b)]} equals", str(a ** b), f"{a}{SUPERSCRIPT[str(b)]}"))
            out.append((f"cat{a}{b}", f"{a}{b} equals", f"{a}{b}", f"{a}{b}"))
    return out


def facts(n_territories: int) -> list[tuple[str, str, str, str, str]]:
    """(id, lang, relation, question, answer) for the first ``n_territories`` territories, all languages."""
    n = check_int("n_territories", n_territories, minimum=4)
    rows = load_facts()["rows"]
    if n > len(rows):
        raise ValueError(f"n_territories must be <= {len(rows)} (the shipped CLDR table), got {n}")
    out = []
    for row in rows[:n]:
        for lang in LANGS:
            names = row["names"][lang]
            for rel in RELATIONS:
                q = TEMPLATES[lang][rel].format(t=names["territory"])
                out.append((f"{row['code']}-{rel}-{lang}", lang, rel, q, names[rel]))
    return out


def corpus(n_territories: int) -> list[str]:
    """The training sentences: every fact of every language, and the STEM facts (deterministic order)."""
    sents = [q + SEP[lang] + a + END[lang] for _, lang, _, q, a in facts(n_territories)]
    sents += [q + SEP["stem"] + a + END["stem"] for _, q, a, _ in _stem_facts()]
    return sents


def build_items(n_territories: int, seed: int, n_choices: int = 4) -> list[Item]:
    """Clean multiple-choice items (facts + STEM); distractors are same-language answers of the same relation."""
    rng = as_rng("seed", seed)
    n_choices = check_int("n_choices", n_choices, minimum=2)
    fs = facts(n_territories)
    rows = load_facts()["rows"][:n_territories]
    items = []
    for (fid, lang, rel, q, a), k in zip(fs, range(len(fs))):
        pool = sorted({r["names"][lang][rel] for r in rows} - {a})
        distract = [str(x) for x in rng.choice(pool, size=n_choices - 1, replace=False)]
        pos = int(rng.integers(n_choices))
        choices = distract[:pos] + [a] + distract[pos:]
        t = rows[k // (len(LANGS) * len(RELATIONS))]["names"][lang]["territory"]
        start = q.index(t)
        items.append(Item(fid, lang, rel, q, choices, pos, (start, start + len(t))))
    stem = _stem_facts()
    values = sorted({a for _, _, a, _ in stem}, key=int)
    for sid, q, a, ent in stem:
        a_, b_ = ent[0], ent[1:]
        partner = str(int(a_) ** int(b_)) if sid.startswith("cat") else a_ + {"²": "2", "³": "3"}[b_]
        pool = [v for v in values if v not in (a, partner)]
        distract = [partner] + [str(x) for x in rng.choice(pool, size=n_choices - 2, replace=False)]
        order = rng.permutation(n_choices - 1)
        distract = [distract[i] for i in order]
        pos = int(rng.integers(n_choices))
        items.append(Item(sid, "stem", "stem", q, distract[:pos] + [a] + distract[pos:], pos, (0, len(ent))))
    return items


# ----------------------------------------------------------------------------- perturbations
def strip_diacritics(text: str) -> str:
    """Drop combining marks after NFD (è -> e, ü -> u) and fold Turkish dotless/cedilla letters."""
    text = "".join(TURKISH_FOLD.get(c, c) for c in text)
    return unicodedata.normalize("NFC", "".join(c for c in unicodedata.normalize("NFD", text)
                                                if not unicodedata.combining(c)))


def math_bold(text: str) -> str:
    """ASCII letters as Mathematical Bold letters (U+1D400...); NFKC maps them back."""
    out = []
    for c in text:
        if "A" <= c <= "Z":
            out.append(chr(0x1D400 + ord(c) - ord("A")))
        elif "a" <= c <= "z":
            out.append(chr(0x1D41A + ord(c) - ord("a")))
        else:
            out.append(c)
    return "".join(out)


def fullwidth_digits(text: str) -> str:
    """ASCII digits as full-width digits (U+FF10...); NFKC maps them back."""
    return "".join(chr(0xFF10 + ord(c) - ord("0")) if "0" <= c <= "9" else c for c in text)


def _edit(c: str, nxt: str | None, lang: str, rng: np.random.Generator, glyphs: dict) -> tuple[str, bool]:
    """One noise edit of character ``c``: (replacement text, whether the next character was consumed)."""
    ops = ["drop", "space"] + (["swap"] if nxt is not None and nxt != " " else [])
    if c.lower() in KEYBOARD:
        ops.append("keyboard")
    if c in OCR:
        ops.append("ocr")
    if c in glyphs:
        ops.append("homoglyph")
    op = ops[int(rng.integers(len(ops)))]
    if op == "drop":
        return "", False
    if op == "space":
        return c + " ", False
    if op == "swap":
        return nxt + c, True
    if op == "keyboard":
        r = KEYBOARD[c.lower()][int(rng.integers(len(KEYBOARD[c.lower()])))]
        return (r.upper() if c.isupper() else r), False
    if op == "ocr":
        return OCR[c], False
    return glyphs[c][int(rng.integers(len(glyphs[c])))], False


def noise(text: str, span: tuple[int, int], lang: str, rng: np.random.Generator, rate: float = 0.1) -> str:
    """Typos, OCR confusions, homoglyphs and spacing errors at ``rate`` per non-space character.

    At least one edit falls inside ``span`` (the entity), so the question is never left intact.
    """
    glyphs = load_facts()["homoglyphs"]
    idx = [i for i, c in enumerate(text) if c != " "]
    hit = {i for i in idx if rng.random() < rate}
    inside = [i for i in idx if span[0] <= i < span[1]]
    if inside and not hit & set(inside):
        hit.add(inside[int(rng.integers(len(inside)))])
    out, i = [], 0
    while i < len(text):
        if i in hit and text[i] != " ":
            nxt = text[i + 1] if i + 1 < len(text) else None
            rep, consumed = _edit(text[i], nxt, lang, rng, glyphs)
            out.append(rep)
            i += 2 if consumed else 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def romanise(item: Item, n_territories: int) -> str:
    """The question as a non-native keyboard user would type it: ``unidecode`` romanisation (shipped)."""
    data = load_facts()
    code = item.id.split("-")[0]
    row = next(r for r in data["rows"][:n_territories] if r["code"] == code)
    return data["roman_templates"][item.lang][item.relation].format(t=row["roman"][item.lang]["territory"])


def perturb(items: list[Item], n_territories: int, seed: int, rate: float = 0.1) -> list[Item]:
    """Fill ``item.perturbed[category]`` for every category that applies to the item's language and changes it."""
    rng = as_rng("seed", seed)
    for it in items:
        out = {}
        if it.lang in APPLIES["input"]:
            out["input"] = romanise(it, n_territories)
        if it.lang in APPLIES["diacritics"]:
            out["diacritics"] = strip_diacritics(it.question)
        if it.lang in APPLIES["noise"]:
            out["noise"] = noise(it.question, it.span, it.lang, rng, rate)
        if it.lang in APPLIES["unicode"]:
            out["unicode"] = math_bold(it.question)
        if it.lang == "stem":
            out["stem"] = fullwidth_digits(it.question)
        it.perturbed = {k: v for k, v in out.items() if v != it.question}
    return items
