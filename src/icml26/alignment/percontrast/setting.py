"""A synthetic personalised-writing world with known personal tokens (the PerContrast substitute for LongLaMP).

Each user has three attributes (a colour, an item, a tone, 8 values each). An example is

    <bos> history | query | response <eos>

* history (the user profile u): three short phrases, in random order, that each leak one
  attribute ("likes red .", "owns a lamp .", "seems calm ."), optionally plus a distractor
  phrase that names a colour that is *not* the user's ("hates blue .");
* query (x): one of five templates of a task family, naming a topic (desk, kitchen, ...);
* response (y): one of five templates of the same family, about 22 words, with four kinds of
  position, known by construction:

  - personal (kind 1): the user's colour, item and tone, predictable only from u (3 tokens,
    about 14% of the response);
  - query copy (kind 2): the topic, predictable from x;
  - noise (kind 3): a weekday drawn uniformly at random, predictable from nothing;
  - generic (kind 0): template words.

Two task families share the attributes but not the wording: ``recommend`` (suggest a
purchase) and ``review`` (write a short review); training on one and testing on the other is
the cross-task transfer. Users are split into training and held-out users, so a test example
is always about a user the model never saw.

The profile is removed for the causal intervention either by deleting it (``ids_deleted``:
``<bos> | query | response``; positions shift) or by masking it (``ids_masked``: every
history word replaced by the placeholder ``_``; positions kept).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml26.core.validate import as_rng, check_int

COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "black", "white")
ITEMS = ("lamp", "chair", "mug", "rug", "clock", "vase", "pillow", "poster")
TONES = ("calm", "bold", "playful", "formal", "cheerful", "quiet", "curious", "practical")
TOPICS = ("desk", "kitchen", "garden", "studio", "office", "bedroom", "hallway", "balcony")
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SEP, MASK = "|", "_"
FAMILIES = ("recommend", "review")
KIND_GENERIC, KIND_PERSONAL, KIND_QUERY, KIND_NOISE = 0, 1, 2, 3

HISTORY = {
    "colour": ("likes {colour} .", "wears {colour} .", "paints {colour} ."),
    "item": ("owns a {item} .", "wants a {item} .", "broke a {item} ."),
    "tone": ("is {tone} .", "seems {tone} .", "acts {tone} ."),
}
DISTRACTOR = ("hates {other} .", "avoids {other} .")

QUERIES = {
    "recommend": ("can you suggest something for my {topic} ?", "what should i buy for the {topic} ?",
                  "i need an idea for my {topic} .", "help me improve the {topic} .",
                  "any tips to decorate my {topic} ?"),
    "review": ("write a short review of my {topic} setup .", "describe how the {topic} looks now .",
               "tell me what you think of the {topic} .", "give feedback on my new {topic} .",
               "review the changes to my {topic} ."),
}
RESPONSES = {
    "recommend": (
        "sure . for your {topic} i would pick the {colour} {item} . it fits a {tone} style and it can arrive on {day} .",
        "a good choice for the {topic} is a {colour} {item} . it suits someone {tone} like you . order it by {day} .",
        "try adding a {colour} {item} to the {topic} . the look is {tone} and simple . the shop opens on {day} .",
        "i suggest the {colour} {item} for your {topic} . many {tone} people like it . it ships on {day} .",
        "for the {topic} get the {colour} {item} . it matches a {tone} taste well . delivery is on {day} .",
    ),
    "review": (
        "your {topic} looks great with the {colour} {item} . as a {tone} person you will enjoy it . it came on {day} .",
        "the {topic} feels {tone} now and the {colour} {item} stands out . i checked it on {day} .",
        "nice work on the {topic} . the {colour} {item} gives it a {tone} mood . it was finished on {day} .",
        "the new {colour} {item} makes the {topic} feel {tone} . a fine result for {day} .",
        "i like how the {topic} turned out . that {colour} {item} keeps it {tone} . seen on {day} .",
    ),
}
_SLOTS = {"colour": KIND_PERSONAL, "item": KIND_PERSONAL, "tone": KIND_PERSONAL, "topic": KIND_QUERY,
          "day": KIND_NOISE}


def vocabulary() -> list[str]:
    """Every word of the world (about 150), for the word-level tokenizer."""
    words: set[str] = {SEP, MASK}
    fill = {"colour": "", "item": "", "tone": "", "topic": "", "day": "", "other": ""}
    for group in (*HISTORY.values(), DISTRACTOR, *QUERIES.values(), *RESPONSES.values()):
        for t in group:
            words.update(w for w in t.format(**fill).split() if w)
    for vals in (COLOURS, ITEMS, TONES, TOPICS, DAYS):
        words.update(vals)
    return sorted(words)


def make_tokenizer():
    """A word-level Hugging Face tokenizer over :func:`vocabulary` (``<pad>`` = 0, ``<bos>``, ``<eos>``)."""
    from icml26.nn.tokenize import train_tokenizer

    words = vocabulary()
    return train_tokenizer([" ".join(words)], kind="word", vocab_size=len(words) + 8, normalizer=None)


def make_users(n: int, seed=None) -> np.ndarray:
    """(n, 3) attribute indices (colour, item, tone), drawn uniformly."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    return np.stack([rng.integers(len(v), size=n) for v in (COLOURS, ITEMS, TONES)], axis=1)


def _fill(template: str, values: dict[str, str]) -> tuple[list[str], list[int]]:
    """Words of a filled template and the kind of each word."""
    words, kinds = [], []
    for w in template.split():
        if w.startswith("{") and w.endswith("}"):
            key = w[1:-1]
            words.append(values[key])
            kinds.append(_SLOTS[key])
        else:
            words.append(w)
            kinds.append(KIND_GENERIC)
    return words, kinds


@dataclass
class Example:
    history: list[str]
    query: list[str]
    response: list[str]
    kinds: list[int]
    user: int


def make_examples(users: np.ndarray, user_ids: np.ndarray, n: int, family: str, seed=None, *,
                  distractor: bool = True) -> list[Example]:
    """``n`` examples of task ``family`` about users drawn from ``user_ids`` (rows of ``users``);
    ``distractor`` adds a history sentence naming a colour that is not the user's."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    user_ids = np.asarray(user_ids)
    if user_ids.ndim != 1 or user_ids.size == 0:
        raise ValueError("user_ids must be a non-empty 1-D array")
    out = []
    for _ in range(n):
        u = int(rng.choice(user_ids))
        c, i, t = users[u]
        vals = {"colour": COLOURS[c], "item": ITEMS[i], "tone": TONES[t],
                "topic": TOPICS[rng.integers(len(TOPICS))], "day": DAYS[rng.integers(len(DAYS))],
                "other": COLOURS[(c + 1 + rng.integers(len(COLOURS) - 1)) % len(COLOURS)]}
        sents = [HISTORY[k][rng.integers(3)].format(**vals) for k in ("colour", "item", "tone")]
        d = DISTRACTOR[rng.integers(len(DISTRACTOR))].format(**vals)  # drawn always: same stream either way
        if distractor:
            sents.append(d)
        order = rng.permutation(len(sents))
        history = " ".join(sents[j] for j in order).split()
        query = QUERIES[family][rng.integers(5)].format(**vals).split()
        response, kinds = _fill(RESPONSES[family][rng.integers(5)], vals)
        out.append(Example(history, query, response, kinds, u))
    return out


@dataclass
class Batch:
    """Token tensors of a set of examples, right-padded with ``<pad>`` (id 0).

    ``ids`` (N, T): ``<bos> history | query | response <eos>``; ``ids_masked`` (N, T): the same
    with every history word replaced by ``_``; ``ids_deleted`` (N, T2): ``<bos> | query |
    response <eos>``. ``start``/``start_deleted`` (N,): index of the first response token in
    ``ids``/``ids_deleted``; ``length`` (N,): response length including ``<eos>``; ``kinds``
    (N, L) with -1 past the end (``<eos>`` counts as generic).
    """

    ids: torch.Tensor
    ids_masked: torch.Tensor
    ids_deleted: torch.Tensor
    start: torch.Tensor
    start_deleted: torch.Tensor
    length: torch.Tensor
    kinds: torch.Tensor
    examples: list[Example]

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def subset(self, idx) -> Batch:
        """The examples at ``idx``, with the padding cropped to the longest of them."""
        idx = torch.as_tensor(idx, dtype=torch.long)
        start, start_d, length = self.start[idx], self.start_deleted[idx], self.length[idx]
        t, t2, L = int((start + length).max()), int((start_d + length).max()), int(length.max())
        return Batch(self.ids[idx, :t], self.ids_masked[idx, :t], self.ids_deleted[idx, :t2], start, start_d,
                     length, self.kinds[idx, :L], [self.examples[int(i)] for i in idx])

    @property
    def personal(self) -> torch.Tensor:
        """(N, L) bool ground-truth personal-token mask."""
        return self.kinds == KIND_PERSONAL

    @property
    def valid(self) -> torch.Tensor:
        """(N, L) bool: response positions (``<eos>`` included)."""
        return self.kinds >= 0


def encode(examples: list[Example], tok) -> Batch:
    """Tokenise examples into a :class:`Batch`."""
    if not examples:
        raise ValueError("examples is empty")
    vocab = tok.backend.get_vocab()
    bos, eos, sep, mask = tok.bos_id, tok.eos_id, vocab[SEP], vocab[MASK]

    def ids_of(words):
        return [vocab[w] for w in words]

    full, masked, deleted, start, start_d, length, kinds = [], [], [], [], [], [], []
    for ex in examples:
        h, q, r = ids_of(ex.history), ids_of(ex.query), ids_of(ex.response) + [eos]
        full.append([bos] + h + [sep] + q + [sep] + r)
        masked.append([bos] + [mask] * len(h) + [sep] + q + [sep] + r)
        deleted.append([bos, sep] + q + [sep] + r)
        start.append(len(h) + len(q) + 3)
        start_d.append(len(q) + 3)
        length.append(len(r))
        kinds.append(list(ex.kinds) + [KIND_GENERIC])
    L = max(length)
    kind_t = torch.full((len(examples), L), -1, dtype=torch.long)
    for i, k in enumerate(kinds):
        kind_t[i, : len(k)] = torch.tensor(k)
    ids, _ = tok.pad(full)
    ids_m, _ = tok.pad(masked)
    ids_d, _ = tok.pad(deleted)
    return Batch(ids.long(), ids_m.long(), ids_d.long(), torch.tensor(start), torch.tensor(start_d),
                 torch.tensor(length), kind_t, list(examples))


def make_world(n_users: int, n_train: int, n_test: int, family: str = "recommend", test_frac: float = 0.2,
               seed=None, *, distractor: bool = True) -> dict:
    """Users split into training and held-out users, with ``n_train``/``n_test`` examples of ``family``
    and ``n_test`` held-out examples of the other family (the transfer test)."""
    rng = as_rng("seed", seed)
    n_users = check_int("n_users", n_users, minimum=5)
    users = make_users(n_users, rng)
    perm = rng.permutation(n_users)
    n_hold = max(1, int(round(test_frac * n_users)))
    test_u, train_u = perm[:n_hold], perm[n_hold:]
    other = FAMILIES[1 - FAMILIES.index(family)]
    return {"users": users, "train_users": train_u, "test_users": test_u,
            "train": make_examples(users, train_u, n_train, family, rng, distractor=distractor),
            "test": make_examples(users, test_u, n_test, family, rng, distractor=distractor),
            "transfer_train": make_examples(users, train_u, n_train, other, rng, distractor=distractor),
            "transfer_test": make_examples(users, test_u, n_test, other, rng, distractor=distractor)}


def drop_profile(data: Batch, frac: float, seed=None) -> Batch:
    """A copy of ``data`` in which a fraction ``frac`` of the examples come without their profile
    (half of them masked, half deleted), so that the inputs of the intervention are in-distribution.

    A pretrained LLM reads a prompt without a user profile as easily as one with it; a model
    trained from scratch only on profiled inputs does not, and its probabilities on masked or
    deleted inputs shift for every token (not only the personal ones). Rows without a profile
    keep their ``kinds``; their ``ids_masked``/``ids_deleted`` equal their ``ids`` (log PIR = 0).
    """
    if not (isinstance(frac, (int, float)) and 0.0 <= frac < 1.0):
        raise ValueError(f"frac must be a number in [0, 1), got {frac!r}")
    rng = as_rng("seed", seed)
    n, t = data.ids.shape
    pick = rng.random(n) < frac
    use_delete = rng.random(n) < 0.5
    ids, ids_m = data.ids.clone(), data.ids_masked.clone()
    ids_d = torch.zeros(n, t, dtype=data.ids.dtype)  # widened: a masked row is as long as its full row
    ids_d[:, : data.ids_deleted.shape[1]] = data.ids_deleted
    start, start_d = data.start.clone(), data.start_deleted.clone()
    for i in np.flatnonzero(pick):
        row = torch.zeros(t, dtype=data.ids.dtype)
        if use_delete[i]:
            row[: data.ids_deleted.shape[1]] = data.ids_deleted[i]
            st = data.start_deleted[i]
        else:
            row = data.ids_masked[i].clone()
            st = data.start[i]
        ids[i], ids_m[i], ids_d[i] = row, row, row
        start[i], start_d[i] = st, st
    t2 = int((start_d + data.length).max())
    return Batch(ids, ids_m, ids_d[:, :t2], start, start_d, data.length.clone(), data.kinds.clone(),
                 list(data.examples))
