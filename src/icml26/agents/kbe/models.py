"""The evaluated "models": tiny decoders trained on the KB and on scene questions, and a retrieval reader.

* :func:`train_reader` trains a :class:`icml26.nn.transformer.TinyLM` (word-level tokenizer from
  :mod:`icml26.nn.tokenize`, loop from :mod:`icml26.nn.train`, loss on the answer token only) on
  KB facts asked as questions about an entity and on questions about *training* scenes of every
  exploration degree, in both verbalisation styles. A contaminated twin sees, in addition, the
  static benchmark's own (scene, question, answer) triples. Trained weights are cached on disk
  under ``~/.cache/icml26/kbe/`` keyed by every parameter and the seed.
* :class:`RetrievalReader` perceives the scene exactly and answers hop by hop, retrieving one KB
  passage per hop with ``rank_bm25`` plus MiniLM cosine similarity (``icml26.nn.sentence``) and
  reading the other entity named in the passage.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from icml26.agents.kbe.method import ROLE, QuestionPath, reference_text, verbalise
from icml26.agents.kbe.setting import Scene, entity_token, scene_text


@dataclass(frozen=True)
class ReaderConfig:
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    steps: int = 1000
    batch: int = 64
    lr: float = 3e-3
    contaminated: bool = False
    contam_frac: float = 0.15  # share of scene-question rows drawn from the static test pairs (twin only)
    fact_frac: float = 0.5  # share of each batch drawn from the KB fact probes
    percept_frac: float = 0.0  # share drawn from perception probes on training scenes ("what is shown by ...")


def prompt(scene: Scene | None, question: str, subject: str | None = None) -> str:
    """Model input: ``<scene tokens> ? <question> =`` (a KB fact probe uses the entity in place of the scene)."""
    if scene is None:
        return f"fact {entity_token(subject or '')} ? {question} ="
    return f"{scene_text(scene)} ? {question} ="


def fact_questions(kb) -> list[tuple[str, str]]:
    """Every KB fact as (prompt, answer token), in both styles: ``what is the employer of kalo_tosa ?``."""
    out = []
    for f in kb.facts:
        s = entity_token(f.subject)
        for st in (0, 1):
            q = (f"what is the {ROLE[0][f.relation]} of {s} ?" if st == 0 else f"{s} 's {ROLE[1][f.relation]} is what ?")
            out.append((prompt(None, q, f.subject), entity_token(f.object)))
    return out


def perception_questions(scenes: Sequence[Scene]) -> list[tuple[str, str]]:
    """Perception probes on (training) scenes: ``what is shown by the red circle ?`` -> the entity it shows,
    for every object whose colour and shape are unique in its scene (our training aid, not the paper's)."""
    out = []
    for s in scenes:
        for o in s.objects:
            if sum(q.colour == o.colour and q.shape == o.shape for q in s.objects) == 1:
                out.append((prompt(s, f"what is shown by the {o.colour} {o.shape} ?"), entity_token(o.entity)))
    return out


def scene_questions(items: Sequence[tuple[Scene, QuestionPath]], styles: Sequence[int] = (0, 1)
                    ) -> list[tuple[str, str]]:
    return [(prompt(s, verbalise(p, st)), entity_token(p.answer)) for s, p in items for st in styles]


def _cache_dir() -> Path:
    d = Path(os.environ.get("ICML26_CACHE", Path.home() / ".cache" / "icml26")) / "kbe"
    d.mkdir(parents=True, exist_ok=True)
    return d


class TinyReader:
    """A trained tiny decoder that answers a prompt with the most likely entity token."""

    def __init__(self, model, tokenizer, entity_ids: Sequence[int], losses: Sequence[float]):
        self.model, self.tok = model, tokenizer
        self.entity_ids = list(entity_ids)
        self.losses = list(losses)

    def answer(self, prompts: Sequence[str], batch: int = 256) -> list[str]:
        import torch

        out: list[str] = []
        ids_all = [self.tok.encode(p, bos=True) for p in prompts]
        ent = torch.tensor(self.entity_ids)
        with torch.no_grad():
            for b in range(0, len(ids_all), batch):
                chunk = ids_all[b:b + batch]
                L = max(len(x) for x in chunk)
                x = torch.full((len(chunk), L), self.tok.pad_id, dtype=torch.long)
                for i, s in enumerate(chunk):
                    x[i, :len(s)] = torch.tensor(s)
                logits, _ = self.model(x)
                last = torch.tensor([len(s) - 1 for s in chunk])
                lg = logits[torch.arange(len(chunk)), last][:, ent]
                out += [self.tok.decode([int(ent[j])]) for j in lg.argmax(-1)]
        return out


def train_reader(cfg: ReaderConfig, *, kb, train_items: Sequence[tuple[Scene, QuestionPath]],
                 static_items: Sequence[tuple[Scene, QuestionPath]], vocab_texts: Sequence[str], seed: int,
                 key_extra: str = "", cache: bool = True, checkpoints: Sequence[int] = (),
                 init_from: TinyReader | None = None) -> list[TinyReader]:
    """Train (or load from the disk cache) one tiny decoder reader; returns the readers after each of
    ``checkpoints`` steps (snapshots of the same run: a smaller step budget) and after ``cfg.steps``.

    ``init_from``, optional, a trained reader of the same width and depth: training continues from its
    weights (a fork; fresh optimiser and schedule over ``cfg.steps``), and the returned losses are its
    losses followed by the fork's."""
    import torch

    from icml26.nn.tokenize import train_tokenizer
    from icml26.nn.train import train_lm
    from icml26.nn.transformer import LMConfig, TinyLM

    tok = train_tokenizer(list(vocab_texts), kind="word", vocab_size=4096, normalizer=None)
    facts = fact_questions(kb)
    scenes = scene_questions(train_items)
    contam = scene_questions(static_items, styles=(0,)) if cfg.contaminated else []
    train_scenes = list({s.id: s for s, _ in train_items}.values())
    percept = perception_questions(train_scenes) if cfg.percept_frac > 0 else []
    ent_tokens = sorted({entity_token(e) for e in kb.entities})
    ent_ids = [tok.encode(t)[0] for t in ent_tokens]

    def encode(rows):
        seqs = [tok.encode(p, bos=True) + tok.encode(a) for p, a in rows]
        L = max(len(s) for s in seqs)
        x = torch.full((len(seqs), L), tok.pad_id, dtype=torch.long)
        y = torch.full((len(seqs), L - 1), -100, dtype=torch.long)
        for i, s in enumerate(seqs):
            x[i, :len(s)] = torch.tensor(s)
            y[i, len(s) - 2] = s[-1]  # only the answer token is scored
        return x, y

    pools = [encode(facts), encode(scenes), encode(contam) if contam else None, encode(percept) if percept else None]
    pools = [p for p in pools if p is not None]
    max_len = max(p[0].shape[1] for p in pools)
    init_key = ""
    if init_from is not None:
        if not isinstance(init_from, TinyReader):
            raise TypeError(f"init_from must be a TinyReader, got {type(init_from).__name__}")
        h = hashlib.sha1()
        for v in init_from.model.state_dict().values():
            h.update(v.detach().cpu().numpy().tobytes())
        init_key = h.hexdigest()[:16]
    prior = list(init_from.losses) if init_from is not None else []
    key = hashlib.sha1(json.dumps([asdict(cfg), seed, key_extra, list(checkpoints), len(facts), len(scenes), len(contam), len(percept),
                                   tok.vocab_size] + ([init_key] if init_key else []), sort_keys=True).encode()).hexdigest()[:16]
    path = _cache_dir() / f"reader-{key}.pt"
    torch.manual_seed(seed)
    model = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=cfg.d_model, n_layers=cfg.n_layers,
                            n_heads=cfg.n_heads, max_len=max_len + 2))
    def readers(states, losses):
        out = []
        for st, n in zip(states, list(checkpoints) + [cfg.steps]):
            m = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=cfg.d_model, n_layers=cfg.n_layers,
                                n_heads=cfg.n_heads, max_len=max_len + 2))
            m.load_state_dict(st)
            m.eval()
            out.append(TinyReader(m, tok, ent_ids, prior + list(losses[:n])))
        return out

    if cache and path.exists():
        blob = torch.load(path, weights_only=False)
        return readers(blob["states"], blob["losses"])
    if init_from is not None:
        model.load_state_dict(init_from.model.state_dict())

    n_f = int(round(cfg.batch * cfg.fact_frac))
    n_c = int(round(cfg.batch * cfg.contam_frac)) if contam else 0
    n_p = int(round(cfg.batch * cfg.percept_frac)) if percept else 0
    n_s = cfg.batch - n_f - n_c - n_p
    if n_s < 1:
        raise ValueError("fact_frac + contam_frac + percept_frac leave no scene-question rows in a batch")

    def pad_to(x, y):
        if x.shape[1] < max_len:
            x = torch.nn.functional.pad(x, (0, max_len - x.shape[1]), value=tok.pad_id)
            y = torch.nn.functional.pad(y, (0, max_len - 1 - y.shape[1]), value=-100)
        return x, y

    pools = [pad_to(*p) for p in pools]

    def sample(gen):
        xs, ys = [], []
        for (x, y), n in zip(pools, [n_f, n_s] + ([n_c] if contam else []) + ([n_p] if percept else [])):
            if n:
                idx = torch.randint(0, x.shape[0], (n,), generator=gen)
                xs.append(x[idx])
                ys.append(y[idx])
        x, y = torch.cat(xs), torch.cat(ys)
        keep = int((x != tok.pad_id).any(0).nonzero().max()) + 1  # drop all-padding columns (causal: no effect)
        return x[:, :keep], y[:, :keep - 1]

    snaps: list[dict] = []
    marks = {int(c) - 1 for c in checkpoints}

    def on_step(step, m):
        if step in marks:
            snaps.append({k: v.detach().clone() for k, v in m.state_dict().items()})

    losses = train_lm(model, sample, steps=cfg.steps, lr=cfg.lr, warmup=min(50, cfg.steps // 10), seed=seed,
                      on_step=on_step if marks else None)
    states = snaps + [model.state_dict()]
    if cache:
        torch.save({"states": states, "losses": losses}, path)
    return readers(states, losses)


class RetrievalReader:
    """Exact perception plus hop-by-hop passage retrieval (BM25 + MiniLM cosine, summed after z-scoring).

    The reader parses the templated question (reference, then the role words of each hop), finds the
    referenced object in the scene, and for each hop retrieves the top passage for
    ``"<current entity> <role words>"`` and moves to the other entity the passage names. Retrieval
    mistakes compound over hops."""

    def __init__(self, kb, *, paraphrase_seed: int = 0, use_minilm: bool = True):
        from icml26.tasks.kb import BM25Retriever

        rng = np.random.default_rng(paraphrase_seed)
        self.facts = list(kb.facts)
        self.docs = [f.text(int(rng.integers(0, 3))) for f in self.facts]
        self.bm25 = BM25Retriever(self.docs)
        self.names = {entity_token(e): e for e in kb.entities}
        self.encoder = None
        self.doc_emb = None
        self._hops: dict[tuple[str, str], str | None] = {}  # a hop depends only on (entity, role): memoised
        if use_minilm:
            from icml26.nn.sentence import MiniLMEncoder, minilm_available

            if minilm_available():
                self.encoder = MiniLMEncoder()
                self.doc_emb = self.encoder.encode(self.docs)

    def _hop(self, entity: str, role: str) -> str | None:
        if (entity, role) not in self._hops:
            self._hops[entity, role] = self._hop_uncached(entity, role)
        return self._hops[entity, role]

    def _hop_uncached(self, entity: str, role: str) -> str | None:
        q = f"{entity} {role}"
        s = self.bm25.scores(q)
        s = (s - s.mean()) / (s.std() + 1e-9)
        if self.encoder is not None:
            c = self.doc_emb @ self.encoder.encode([q])[0]
            s = s + (c - c.mean()) / (c.std() + 1e-9)
        f = self.facts[int(np.argmax(s))]
        if f.subject == entity:
            return f.object
        if f.object == entity:
            return f.subject
        return f.object  # a passage about something else: read its object anyway (a wrong hop)

    def answer_one(self, scene: Scene, path_text: str) -> str:
        """Answer the style-0 question text about ``scene``."""
        body = path_text[len("what is the "):-len(" ?")]
        parts = body.split(" of the ")
        ref_words = parts[-1]
        roles = parts[:-1][::-1]  # innermost role first
        toks = ref_words.split()
        colour, shape = toks[-2], toks[-1]
        idx = [i for i, o in enumerate(scene.objects) if o.colour == colour and o.shape == shape]
        if not idx:
            return ""
        i = idx[0]
        if "left" in toks:
            i -= 1
        elif "right" in toks:
            i += 1
        if not 0 <= i < len(scene.objects):
            return ""
        ent = scene.objects[i].entity
        for r in roles:
            nxt = self._hop(ent, r)
            if nxt is None:
                return ""
            ent = nxt
        return entity_token(ent)

    def answer(self, items: Sequence[tuple[Scene, QuestionPath]]) -> list[str]:
        return [self.answer_one(s, verbalise(p, 0)) for s, p in items]


__all__ = ["ReaderConfig", "TinyReader", "train_reader", "RetrievalReader", "prompt", "fact_questions",
           "scene_questions", "reference_text"]


class EndpointModel:
    """A real (M)LLM behind an OpenAI-compatible endpoint, shown the scene as its scene graph.

    ``client`` is an :class:`icml26.agents.policy.ChatClient`; the reply is mapped to an entity token
    (the first KB entity whose name or token occurs in it). Not used by any verdict."""

    def __init__(self, client, kb):
        self.client = client
        self.names = sorted(((entity_token(e), e) for e in kb.entities), key=lambda x: -len(x[1]))

    def answer_one(self, scene: Scene, question: str) -> str:
        objs = "; ".join(f"{o.colour} {o.shape} showing {o.entity}" for o in scene.objects)
        msg = [{"role": "system", "content": "Answer with the entity name only."},
               {"role": "user", "content": f"Image, objects from left to right: {objs}.\nQuestion: {question}"}]
        try:
            text = self.client.complete(msg).lower()
        except (ConnectionError, TimeoutError, RuntimeError):
            return ""
        for tok, name in self.names:
            if name.lower() in text or tok in text:
                return tok
        return ""

    def answer(self, items: Sequence[tuple[Scene, QuestionPath]], style: int = 0) -> list[str]:
        return [self.answer_one(s, verbalise(p, style)) for s, p in items]
