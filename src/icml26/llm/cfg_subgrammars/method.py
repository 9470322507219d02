"""Probabilistic CFGs, subgrammars and the subgrammar decomposition of the LM loss
(Schulz, Mitropolsky, Poggio, "Unraveling Syntax: Language Modeling and the Substructure of
Grammars"; arXiv:2510.02524).

A PCFG ``G`` maps each nonterminal to weighted right-hand sides. The subgrammar ``G_A`` of a
nonterminal ``A`` is ``A`` together with every rule reachable from it; it defines a distribution
``P_A`` over terminal strings. In the grammars used here every top-level subgrammar span is
delimited by marker terminals ``sA ... eA`` (as in the authors' grammars), so the spans of a
sampled sentence are identifiable.

Loss decomposition (the paper's linear recursion over top-level subgrammars). For a sentence
``x = [bos] ... sA w eA ... [eos]`` and any autoregressive model ``Q``::

    log P_G(x) - log Q(x) = overhead(x) + sum_{spans (A, w)} [log P_A(w) - log Q(w eA | prefix)]

where the overhead collects the top-level choices, start markers and ``eos``. Taking
expectations, ``KL(P_G || Q) = KL_overhead + sum_A E[N_A] KL_A`` with ``N_A`` the number of
top-level occurrences of ``A`` and ``KL_A = E_{w ~ P_A}[log P_A(w) - log Q(w eA | context)]``:
the span contents are independent of their context under ``P_G`` (context-freeness), so ``KL_A``
can be estimated from strings of ``G_A`` alone. Recursing into ``G_A`` decomposes further.

Exact string probabilities need the inside algorithm (the sum over all derivations): the
arithmetic subgrammar ``L2_1`` is ambiguous, and a max-derivation (Viterbi) score underestimates
``P_A(w)`` and inflates the KL. :func:`inside_logprob` sums all derivations.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from icml26.core.validate import as_array, check_int, check_positive

Rules = Mapping[str, Sequence[tuple[Sequence[str], float]]]

#: The authors' KL-decomposition grammar (three marked top-level subgrammars, one ambiguous).
KL_EXAMPLE: dict[str, list[tuple[tuple[str, ...], float]]] = {
    "L1": [(("sL2_1", "L2_1", "eL2_1"), 0.3), (("sL2_2", "L2_2", "eL2_2"), 0.3), (("sL2_3", "L2_3", "eL2_3"), 0.4)],
    "L2_1": [(("NUM",), 0.4), (("L2_1", "*", "L2_1"), 0.15), (("L2_1", "+", "L2_1"), 0.15), (("NUM", "NUM"), 0.3)],
    "NUM": [(("0",), 0.2), (("1",), 0.2), (("2",), 0.2), (("3",), 0.2), (("4",), 0.1), (("5",), 0.1)],
    "L2_2": [(("a", "L2_2", "b"), 0.6), (("c",), 0.4)],
    "L2_3": [(("x", "L2_3"), 0.8), (("x",), 0.2)],
}


class PCFG:
    """A probabilistic CFG without empty rules or unary cycles.

    ``rules``: {lhs: [(rhs symbols, probability), ...]}; symbols that are never a lhs are
    terminals. ``start``: start symbol (default: first lhs).
    """

    def __init__(self, rules: Rules, start: str | None = None, tol: float = 1e-9):
        if not isinstance(rules, dict) or not rules:
            raise ValueError("rules must be a non-empty dict {lhs: [(rhs, probability), ...]}")
        tol = check_positive("tol", tol)
        self.rules = {a: [(tuple(r), float(p)) for r, p in rhs] for a, rhs in rules.items()}
        self.start = start if start is not None else next(iter(self.rules))
        if self.start not in self.rules:
            raise ValueError(f"start symbol {self.start!r} has no rules")
        for a, rhs in self.rules.items():
            if not rhs:
                raise ValueError(f"nonterminal {a!r} has no rules")
            ps = [p for _, p in rhs]
            if any(not (0 < p <= 1) for p in ps) or abs(sum(ps) - 1) > tol:
                raise ValueError(f"rule probabilities of {a!r} must be in (0, 1] and sum to 1, got {ps}")
            if any(len(r) == 0 for r, _ in rhs):
                raise ValueError(f"nonterminal {a!r} has an empty rule (not supported)")
        self.nonterminals = set(self.rules)
        self.terminals = sorted({s for rhs in self.rules.values() for r, _ in rhs for s in r} - self.nonterminals)
        self._check_unary_cycles()

    def _check_unary_cycles(self) -> None:
        unary = {a: {r[0] for r, _ in rhs if len(r) == 1 and r[0] in self.nonterminals} for a, rhs in self.rules.items()}
        for a in unary:
            seen, stack = set(), list(unary[a])
            while stack:
                b = stack.pop()
                if b == a:
                    raise ValueError(f"unary cycle through {a!r} (not supported)")
                if b not in seen:
                    seen.add(b)
                    stack.extend(unary[b])

    def subgrammar(self, A: str) -> "PCFG":
        """``G_A``: A and every rule reachable from it, with A as start symbol."""
        if A not in self.rules:
            raise ValueError(f"{A!r} is not a nonterminal of this grammar")
        keep, stack = [], [A]
        while stack:
            b = stack.pop()
            if b in keep:
                continue
            keep.append(b)
            stack.extend(s for r, _ in self.rules[b] for s in r if s in self.nonterminals)
        return PCFG({b: self.rules[b] for b in keep}, start=A)

    # ------------------------------------------------------------------------- sampling
    def sample(self, rng: np.random.Generator, max_len: int = 64, symbol: str | None = None) -> list[str]:
        """One terminal string from ``symbol`` (default: start); resampled if longer than ``max_len``
        (the truncated mass is negligible for the grammars used here)."""
        sym = self.start if symbol is None else symbol
        if sym not in self.rules:
            raise ValueError(f"symbol {sym!r} is not a nonterminal of this grammar")
        max_len = check_int("max_len", max_len, minimum=1)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
        while True:
            out: list[str] = []
            stack = [sym]
            while stack and len(out) <= max_len:
                s = stack.pop()
                if s not in self.rules:
                    out.append(s)
                    continue
                rhs = self.rules[s]
                r = rhs[rng.choice(len(rhs), p=[p for _, p in rhs])][0]
                stack.extend(reversed(r))
            if not stack and len(out) <= max_len:
                return out

    def sample_with_spans(self, rng: np.random.Generator, max_len: int = 64, symbol: str | None = None
                          ) -> tuple[list[str], list[tuple[str, int, int]]]:
        """One terminal string with its derivation's constituents.

        Returns ``(tokens, spans)``; ``spans`` lists every nonterminal node of the sampled
        derivation as ``(A, start, end)`` with ``A =>* tokens[start:end]`` (the root is
        ``(symbol, 0, len(tokens))``). Resampled if longer than ``max_len``.
        """
        sym = self.start if symbol is None else symbol
        if sym not in self.rules:
            raise ValueError(f"{sym!r} is not a nonterminal of this grammar")
        max_len = check_int("max_len", max_len, minimum=1)
        while True:
            out: list[str] = []
            spans: list[tuple[str, int, int]] = []
            open_nodes: dict[int, tuple[str, int]] = {}
            # stack items: ("sym", s) to expand, or ("close", node id) to end a constituent
            stack: list[tuple[str, object]] = [("sym", sym)]
            nid = 0
            while stack and len(out) <= max_len:
                kind, s = stack.pop()
                if kind == "close":
                    a, start = open_nodes.pop(s)
                    spans.append((a, start, len(out)))
                    continue
                if s not in self.rules:
                    out.append(s)
                    continue
                rhs = self.rules[s]
                r = rhs[rng.choice(len(rhs), p=[p for _, p in rhs])][0]
                open_nodes[nid] = (s, len(out))
                stack.append(("close", nid))
                nid += 1
                stack.extend(("sym", x) for x in reversed(r))
            if not stack and len(out) <= max_len:
                return out, spans

    # ------------------------------------------------------------------------- inside algorithm
    def inside_logprob(self, tokens: Sequence[str], symbol: str | None = None) -> float:
        """log P(symbol =>* tokens), summing over all derivations (inside algorithm).

        Memoised over (symbol, i, j) and (rule, position, i, j); O(n^3 |G|). Returns -inf when
        the string is not derivable.
        """
        sym = self.start if symbol is None else symbol
        if sym not in self.rules:
            raise ValueError(f"{sym!r} is not a nonterminal of this grammar")
        toks = tuple(tokens)
        if not toks:
            return float("-inf")  # no empty rules
        n = len(toks)
        rules = self.rules

        @lru_cache(maxsize=None)
        def inside(a: str, i: int, j: int) -> float:
            if a not in rules:
                return 1.0 if (j == i + 1 and toks[i] == a) else 0.0
            return sum(p * seq(r, 0, i, j) for r, p in rules[a])

        @lru_cache(maxsize=None)
        def seq(r: tuple[str, ...], k: int, i: int, j: int) -> float:
            rest = len(r) - k
            if j - i < rest:  # every symbol derives at least one terminal
                return 0.0
            if rest == 1:
                return inside(r[k], i, j)
            total = 0.0
            for m in range(i + 1, j - rest + 2):
                left = inside(r[k], i, m)
                if left:
                    total += left * seq(r, k + 1, m, j)
            return total

        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20 * n + 1000))  # depth grows linearly with n
        try:
            prob = inside(sym, 0, n)
        finally:
            sys.setrecursionlimit(limit)
        return math.log(prob) if prob > 0 else float("-inf")


# ----------------------------------------------------------------------------- decomposition
def marked_spans(tokens: Sequence[str], names: Sequence[str]) -> list[tuple[str, int, int]]:
    """Top-level spans ``(A, start, end)`` delimited by ``sA`` / ``eA`` (content is tokens[start:end])."""
    out, i, toks = [], 0, list(tokens)
    while i < len(toks):
        t = toks[i]
        if t.startswith("s") and t[1:] in names:
            a = t[1:]
            j = toks.index("e" + a, i + 1)
            out.append((a, i + 1, j))
            i = j
        i += 1
    return out


def decompose_sentence(token_logq: np.ndarray, tokens: Sequence[str], logp_total: float,
                       span_logp: Mapping[tuple[str, int, int], float], names: Sequence[str]
                       ) -> tuple[float, dict[str, float]]:
    """Split one sentence's ``log P - log Q`` into overhead and per-span terms.

    ``token_logq[i]`` = log Q(tokens[i] | bos, tokens[:i]) for i < len(tokens), and the last
    entry the log-prob of eos. A span ``(A, s, e)`` owns the tokens ``s..e`` (content plus its end
    marker); its term is ``log P_A(content) - sum log Q``. The terms add up to
    ``logp_total - sum(token_logq)`` exactly.
    """
    token_logq = as_array("token_logq", token_logq, ndim=1, finite=False)
    if np.isnan(token_logq).any() or np.isposinf(token_logq).any():
        raise ValueError("token_logq contains NaN or +inf (log-probabilities are <= 0)")
    if isinstance(logp_total, bool) or not isinstance(logp_total, (int, float, np.floating)):
        raise TypeError(f"logp_total must be a number, got {type(logp_total).__name__}")
    if np.isnan(logp_total) or logp_total == np.inf:
        raise ValueError(f"logp_total must be a log-probability (<= 0 or -inf), got {logp_total}")
    if len(token_logq) != len(tokens) + 1:
        raise ValueError(f"token_logq must have len(tokens) + 1 = {len(tokens) + 1} entries, got {len(token_logq)}")
    spans = marked_spans(tokens, names)
    owned = np.zeros(len(token_logq), dtype=bool)
    per: dict[str, float] = {}
    span_total_p = 0.0
    for a, s, e in spans:
        lp = span_logp[(a, s, e)]
        span_total_p += lp
        per[a] = per.get(a, 0.0) + lp - float(np.sum(token_logq[s:e + 1]))
        owned[s:e + 1] = True
    overhead = (logp_total - span_total_p) - float(np.sum(token_logq[~owned]))
    return overhead, per


def linear_cka(X: np.ndarray, Y: np.ndarray) -> float:
    """Linear CKA between representations X (n, d1) and Y (n, d2) of the same n items."""
    X = as_array("X", X, ndim=2)
    Y = as_array("Y", Y, ndim=2)
    X = X - X.mean(0)
    Y = Y - Y.mean(0)
    if X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ValueError(f"X and Y need the same number (>= 2) of rows, got {X.shape[0]} and {Y.shape[0]}")
    num = np.linalg.norm(X.T @ Y) ** 2
    den = np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)
    return float(num / den) if den > 0 else 0.0
