"""The simulated world of the subgrammar reproduction (arXiv:2510.02524): grammars, corpora, models.

- :func:`pretraining_grammar`: the marked subgrammar ``L1 -> sA A eA`` used for subgrammar
  pretraining (the authors pretrain on strings of G_A with its markers, then continue on G);
- :func:`stage_grammar`: the full grammar restricted to one top-level subgrammar, the stages of
  the sequential (curriculum) control learner;
- :class:`Corpus`: vocabulary and tensor encoding ([bos] w [eos], padded) of sentences;
- :func:`sampler`: a training-batch sampler for ``train_lm``;
- :func:`make_model`: the GPT-style decoder (shared TinyLM) of a given size;
- :func:`alignment_pairs`: (context, span) pairs of a nested L2_1 span for the alignment analysis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from icml26.core.validate import as_rng, check_int
from icml26.llm.cfg_subgrammars.method import PCFG

BOS, EOS, PAD = "<bos>", "<eos>", "<pad>"


def pretraining_grammar(G: PCFG, A: str) -> PCFG:
    """``L -> sA A eA`` with the rules of ``G_A``: strings of the subgrammar in their top-level markers."""
    if A not in G.rules:
        raise ValueError(f"A={A!r} is not a nonterminal of the grammar")
    return PCFG({G.start: [(("s" + A, A, "e" + A), 1.0)], **G.subgrammar(A).rules})


def stage_grammar(G: PCFG, A: str) -> PCFG:
    """The full grammar with its start symbol restricted to the top-level rule(s) that contain ``sA``."""
    keep = [(r, p) for r, p in G.rules[G.start] if "s" + A in r]
    if not keep:
        raise ValueError(f"A={A!r} is not a top-level subgrammar of the grammar")
    z = sum(p for _, p in keep)
    return PCFG({G.start: [(r, p / z) for r, p in keep], **{a: rhs for a, rhs in G.rules.items() if a != G.start}},
                start=G.start)


class Corpus:
    """Vocabulary and tensor encoding of sentences for a grammar."""

    def __init__(self, grammar: PCFG):
        if not isinstance(grammar, PCFG):
            raise TypeError(f"grammar must be a PCFG, got {type(grammar).__name__}")
        self.itos = [PAD, BOS, EOS] + list(grammar.terminals)
        self.stoi = {s: i for i, s in enumerate(self.itos)}

    def encode(self, sents: Sequence[Sequence[str]]) -> tuple[torch.Tensor, torch.Tensor]:
        """(batch, L + 2) ids [bos] w [eos] [pad...] and (batch, L + 1) targets (-100 on pad)."""
        if not sents:
            raise ValueError("sents is empty")
        L = max(len(s) for s in sents)
        ids = torch.zeros(len(sents), L + 2, dtype=torch.long)
        for i, s in enumerate(sents):
            try:
                ids[i, :len(s) + 2] = torch.tensor([1] + [self.stoi[t] for t in s] + [2])
            except KeyError as exc:
                raise ValueError(f"sents[{i}] holds a token outside the vocabulary: {exc}") from None
        tgt = ids[:, 1:].clone()
        tgt[tgt == 0] = -100
        return ids, tgt


def sampler(G: PCFG, corpus: Corpus, batch: int, max_len: int, seed: int) -> Callable:
    """``sample(generator) -> (ids, targets)``: ``batch`` fresh sentences of ``G`` per call."""
    batch = check_int("batch", batch, minimum=1)
    max_len = check_int("max_len", max_len, minimum=1)
    rng = as_rng("seed", seed)

    def sample(_gen):
        return corpus.encode([G.sample(rng, max_len) for _ in range(batch)])
    return sample


class Pool:
    """A fixed training corpus of ``n`` sentences of ``G``, encoded once (the authors train on a fixed
    sampled dataset); ``sampler(batch, seed)`` draws batches of it uniformly with replacement."""

    def __init__(self, G: PCFG, corpus: Corpus, n: int, max_len: int, rng: np.random.Generator):
        n = check_int("n", n, minimum=1)
        max_len = check_int("max_len", max_len, minimum=1)
        sents = [G.sample(rng, max_len) for _ in range(n)]
        self.ids, self.tgt = corpus.encode(sents)
        self.lengths = torch.tensor([len(s) + 2 for s in sents])

    def sampler(self, batch: int, seed: int) -> Callable:
        """``sample(generator) -> (ids, targets)``: ``batch`` pool sentences, trimmed to the longest."""
        batch = check_int("batch", batch, minimum=1)
        gen = torch.Generator().manual_seed(seed)

        def sample(_gen):
            idx = torch.randint(len(self.ids), (batch,), generator=gen)
            L = int(self.lengths[idx].max())
            return self.ids[idx, :L], self.tgt[idx, :L - 1]
        return sample


def make_model(vocab: int, d: int, layers: int, heads: int, max_len: int):
    """The shared pre-LN decoder (tied embeddings, learned positions) of width ``d``."""
    from icml26.nn import LMConfig, TinyLM

    return TinyLM(LMConfig(vocab_size=vocab, d_model=d, n_layers=layers, n_heads=heads, max_len=max_len))


def alignment_pairs(G: PCFG, rng: np.random.Generator, n: int, max_len: int, A: str = "L2_1"
                    ) -> list[tuple[list[str], list[str]]]:
    """``n`` (context, span) pairs for the representation-alignment analysis.

    Each pair comes from a string ``w`` of ``G_A`` with a derivation node of ``A`` that does not
    start at the beginning of ``w`` (e.g. the right operand of ``L2_1 + L2_1``): ``span`` is its
    yield and ``context`` the tokens before it inside the marked sentence (``sA`` and the part of
    ``w`` left of the span; never just the start marker). The longest such node is used. In
    isolation the span is fed as ``[bos] sA span`` -- the same start marker, no other prefix.
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    out = []
    while len(out) < n:
        w, spans = G.sample_with_spans(rng, max_len, symbol=A)
        inner = [(e - s, s, e) for a, s, e in spans if a == A and s >= 1]
        if not inner:
            continue
        _, s, e = max(inner)
        out.append((["s" + A] + w[:s], w[s:e]))
    return out
