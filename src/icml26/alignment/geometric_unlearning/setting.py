"""The simulated world of the GU reproduction: fictitious biographies, a TinyLM that knows them, and probes.

Stands in for ToFU / UnlearnPII and the ToFU-finetuned Llama-2-7B of arXiv:2605.01735.

* People come from the shared knowledge-base generator (:func:`icml26.tasks.kb.make_knowledge_base`):
  every person has two facts, the city they were born in and the company they work for. The
  ``known`` people are taught to the model; the ``unknown`` people appear in training only with
  the answer "i don't know ." (the model's honest behaviour on names it has no facts about).
* Question templates (``QA_TEMPLATES``): three paraphrases per attribute. All three are trained.
  Paraphrase ``VAL_PARAPHRASE`` (0) is the validation probe (early stopping, as the paper's
  validation sets), ``DATA_PARAPHRASES`` (0, 1) are the forget QA the data-advantaged baselines
  may train on, and ``TEST_PARAPHRASE`` (2) is never used by any unlearning run: every reported
  forget / retain accuracy is measured on it.
* Synthetic "anchor-in-context" prompts (``SYNTHETIC_TEMPLATES``): requests that mention a name
  and nothing else ("tell me about {name} ."). Pretraining answers them with the person's
  one-line biography (known) or with "i don't know ." (unknown). GU and the equal-data controls
  see only these prompts filled with the forget / retain names.
* A world skill: one-digit addition and subtraction (``ArithmeticProblem`` of
  :mod:`icml26.tasks.arithmetic`), all 200 problems trained and probed.

Tokens are whole lower-case words (``icml26.nn.tokenize`` word-level), so a person's name is two
tokens and name matching is exact (the paper matches sub-word token spans fuzzily).

The model is a :class:`~icml26.nn.transformer.TinyLM` whose attention has separate
``q_proj``/``k_proj``/``v_proj``/``o_proj`` projections (the shared
:class:`~icml26.nn.transformer.SplitProjAttention`, through the model's mixer hook) so that LoRA can
sit on the value and output projections as in the paper. The pretrained model is cached on disk per
seed and configuration (:func:`icml26.core.cache.cached`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from icml26.core.validate import check_int, check_positive
from icml26.nn.tokenize import Tokenizer, train_tokenizer
from icml26.nn.transformer import LMConfig, SplitProjAttention, TinyLM
from icml26.tasks.arithmetic import ArithmeticProblem
from icml26.tasks.kb import make_knowledge_base

ATTRIBUTES = ("city", "company")
QA_TEMPLATES: dict[str, tuple[str, ...]] = {
    "city": ("where was {n} born ?", "in which city was {n} born ?", "what is the birthplace of {n} ?"),
    "company": ("which company does {n} work for ?", "who employs {n} ?", "where does {n} work ?"),
}
VAL_PARAPHRASE = 0
DATA_PARAPHRASES = (0, 1)
TEST_PARAPHRASE = 2
SYNTHETIC_TEMPLATES = ("tell me about {n} .", "who is {n} ?", "what do you know about {n} ?",
                       "give me a short bio of {n} .", "i want to learn about {n} .")
REFUSAL = "i don't know ."
REFUSAL_KEYWORDS = ("don't know",)


def _norm(text: str) -> str:
    return " ".join(text.lower().replace(".", " . ").replace("?", " ? ").split())


def bio(name: str, city: str, company: str) -> str:
    return f"{name} was born in {city} and works for {company} ."


@dataclass
class BioWorld:
    """People, their facts, the forget / retain / unknown split and the word-level tokenizer."""

    facts: dict[str, dict[str, str]]  # known name -> {"city": ..., "company": ...}
    forget: list[str]
    retain: list[str]
    unknown: list[str]
    tok: Tokenizer
    arithmetic: list[ArithmeticProblem] = field(default_factory=list)

    # -- text ------------------------------------------------------------------------------
    def qa(self, name: str, attr: str, paraphrase: int) -> tuple[str, str]:
        """(question, answer) for a known or unknown person (unknown: the refusal)."""
        q = QA_TEMPLATES[attr][paraphrase].format(n=name)
        a = f"{self.facts[name][attr]} ." if name in self.facts else REFUSAL
        return q, a

    def synthetic(self, name: str, template: int) -> tuple[str, str]:
        """(synthetic prompt, the pretraining answer: the biography or the refusal)."""
        p = SYNTHETIC_TEMPLATES[template].format(n=name)
        f = self.facts.get(name)
        return p, (bio(name, f["city"], f["company"]) if f else REFUSAL)

    @staticmethod
    def arith(p: ArithmeticProblem) -> tuple[str, str]:
        return f"compute {p.operands[0]} {p.ops[0]} {p.operands[1]} ?", f"{p.answer} ."

    def pretraining_pairs(self) -> list[tuple[str, str]]:
        """Every (prompt, answer) the original model is trained on."""
        out = []
        for name in [*self.facts, *self.unknown]:
            for attr in ATTRIBUTES:
                out += [self.qa(name, attr, k) for k in range(len(QA_TEMPLATES[attr]))]
            out += [self.synthetic(name, t) for t in range(len(SYNTHETIC_TEMPLATES))]
        out += [self.arith(p) for p in self.arithmetic]
        return out

    # -- tokens ----------------------------------------------------------------------------
    def encode_prompt(self, prompt: str) -> list[int]:
        return self.tok.encode(_norm(prompt), bos=True)

    def encode_answer(self, answer: str) -> list[int]:
        return self.tok.encode(_norm(answer), eos=True)

    def name_ids(self, name: str) -> list[int]:
        return self.tok.encode(_norm(name))

    def answer_words(self, answer: str) -> list[str]:
        return _norm(answer).split()


def make_world(*, n_known: int = 24, n_unknown: int = 16, n_forget: int = 5, seed: int = 0) -> BioWorld:
    """Draw people from the knowledge-base generator and split them into forget / retain / unknown."""
    n_known = check_int("n_known", n_known, minimum=2)
    n_unknown = check_int("n_unknown", n_unknown, minimum=1)
    n_forget = check_int("n_forget", n_forget, minimum=1, maximum=n_known - 1)
    seed = check_int("seed", seed, minimum=0)
    kb = make_knowledge_base(n_people=n_known + n_unknown, n_cities=max(6, n_known // 3), n_countries=3,
                             n_companies=max(5, n_known // 4), seed=seed)
    people = kb.by_type("person")
    rng = np.random.default_rng(seed + 1)
    order = [people[i] for i in rng.permutation(len(people))]
    known, unknown = order[:n_known], order[n_known:]
    facts = {}
    for p in known:
        facts[_norm(p)] = {"city": _norm(kb.lookup(p, "born_in").object),
                           "company": _norm(kb.lookup(p, "works_for").object)}
    names = list(facts)
    arithmetic = [ArithmeticProblem((a, b), (op,), 1) for a in range(10) for b in range(10) for op in "+-"]
    world = BioWorld(facts, names[:n_forget], names[n_forget:], [_norm(u) for u in unknown], None,  # type: ignore[arg-type]
                     arithmetic)
    texts = [f"{_norm(p)} {_norm(a)}" for p, a in world.pretraining_pairs()] + [REFUSAL]
    world.tok = train_tokenizer(texts, kind="word", vocab_size=4096, normalizer=None)
    return world


# ----------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class ModelConfig:
    d_model: int = 64
    n_layers: int = 3
    n_heads: int = 4
    max_len: int = 40
    steps: int = 1500
    batch: int = 64
    lr: float = 3e-3


def new_model(world: BioWorld, cfg: ModelConfig) -> TinyLM:
    return TinyLM(LMConfig(vocab_size=world.tok.vocab_size, d_model=cfg.d_model, n_layers=cfg.n_layers,
                           n_heads=cfg.n_heads, max_len=cfg.max_len), mixer=SplitProjAttention)


def pad_pairs(world: BioWorld, pairs: list[tuple[list[int], list[int]]], *, answer_loss: bool = True
              ) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded ``(batch, L)`` ids of prompt + answer, and ``(batch, L - 1)`` next-token targets
    (``-100`` on the prompt when ``answer_loss``, and on padding)."""
    seqs = [p + a for p, a in pairs]
    ids, mask = world.tok.pad(seqs)
    tgt = ids[:, 1:].clone()
    tgt[~mask[:, 1:]] = -100
    if answer_loss:
        for i, (p, _) in enumerate(pairs):
            tgt[i, :len(p) - 1] = -100
    return ids, tgt


def pretrain(world: BioWorld, cfg: ModelConfig, *, seed: int, world_key: dict | None = None,
             cache: bool = True) -> tuple[TinyLM, list[float]]:
    """The "finetuned" original model: answer-only next-token training on every pretraining pair.

    Returns the model (eval mode) and its loss history. With ``cache`` and a ``world_key`` (the
    arguments of :func:`make_world` besides the seed) the trained weights and losses are stored with
    :func:`icml26.core.cache.cached` (namespace ``geometric_unlearning``, keyed by the seed, the world
    key and ``cfg``) and read back on the next call.
    """
    seed = check_int("seed", seed, minimum=0)
    check_positive("cfg.lr", cfg.lr)
    trained: dict[str, TinyLM] = {}

    def build() -> dict:
        from icml26.nn.train import train_lm

        torch.manual_seed(seed)
        model = new_model(world, cfg)
        pairs = [(world.encode_prompt(p), world.encode_answer(a)) for p, a in world.pretraining_pairs()]

        def batch(gen: torch.Generator):
            idx = torch.randint(0, len(pairs), (cfg.batch,), generator=gen).tolist()
            return pad_pairs(world, [pairs[i] for i in idx])

        losses = train_lm(model, batch, steps=cfg.steps, lr=cfg.lr, warmup=30, seed=seed)
        trained["model"] = model
        return {"state": model.state_dict(), "losses": losses}

    if cache and world_key is not None:
        from icml26.core.cache import cached

        blob = cached("geometric_unlearning", "pretrained", build,
                      params={"seed": seed, **world_key, **asdict(cfg)}, fmt="pt")
    else:
        blob = build()
    if "model" in trained:  # trained in this call: the model itself, as it left training
        return trained["model"].eval(), list(blob["losses"])
    model = new_model(world, cfg)
    model.load_state_dict(blob["state"])
    return model.eval(), list(blob["losses"])


# ----------------------------------------------------------------------------- probes
@torch.no_grad()
def greedy_answers(model: nn.Module, world: BioWorld, prompts: list[str], n_new: int = 5) -> list[list[str]]:
    """Greedy answer words (up to and including the first '.', or EOS) for each prompt.

    Prompts of equal token length are decoded together (right-aligned batches need no padding).
    """
    was = model.training
    model.eval()
    enc = [world.encode_prompt(p) for p in prompts]
    out: list[list[str] | None] = [None] * len(prompts)
    groups: dict[int, list[int]] = {}
    for i, e in enumerate(enc):
        groups.setdefault(len(e), []).append(i)
    eos = world.tok.eos_id
    for length, idx in groups.items():
        x = torch.tensor([enc[i] for i in idx], dtype=torch.long)
        for _ in range(n_new):
            logits = model(x)[0][:, -1]
            x = torch.cat([x, logits.argmax(-1, keepdim=True)], dim=1)
        for row, i in zip(x[:, length:].tolist(), idx):
            words = []
            for t in row:
                if t == eos:
                    break
                words.append(world.tok.backend.id_to_token(t))
                if words[-1] == ".":
                    break
            out[i] = words
    model.train(was)
    return out  # type: ignore[return-value]


def qa_accuracy(model: nn.Module, world: BioWorld, names: list[str], paraphrase: int) -> float:
    """Exact-match accuracy of the greedy answer on both attributes of ``names`` (one paraphrase)."""
    qs = [world.qa(n, a, paraphrase) for n in names for a in ATTRIBUTES]
    got = greedy_answers(model, world, [q for q, _ in qs])
    return float(np.mean([g == world.answer_words(a) for g, (_, a) in zip(got, qs)]))


def refusal_rate(model: nn.Module, world: BioWorld, names: list[str], paraphrase: int) -> float:
    """Share of QA probes on ``names`` answered with a refusal keyword."""
    qs = [world.qa(n, a, paraphrase)[0] for n in names for a in ATTRIBUTES]
    got = greedy_answers(model, world, qs)
    return float(np.mean([any(k in " ".join(g) for k in REFUSAL_KEYWORDS) for g in got]))


def arithmetic_accuracy(model: nn.Module, world: BioWorld) -> float:
    items = [world.arith(p) for p in world.arithmetic]
    got = greedy_answers(model, world, [q for q, _ in items])
    return float(np.mean([g == world.answer_words(a) for g, (_, a) in zip(got, items)]))
