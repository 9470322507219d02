"""Triplet distributions ``D: (n, n)`` for one context, comparison graphs, and sampling.

``D[a, b]`` is the probability of the triplet ``(y+ = a, y- = b)``; the diagonal is zero and
``D`` sums to one. The generators cover the cases that arXiv:2602.10286 separates:
positive/negative conditional independence (:func:`product_triplets`), BT-representable
but not independent (:func:`bt_triplets`), cyclic and hence not BT-representable
(:func:`cyclic_triplets`), and an unstructured triplet law (:func:`dirichlet_triplets`).
Comparison graphs for the margin / connectivity / design experiments come from
:func:`graph_edges` and :func:`random_tree`.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

__all__ = ["bt_triplets", "cyclic_triplets", "dirichlet_triplets", "edges_to_weights",
           "graph_edges", "product_triplets", "random_tree", "sample_triplets"]

GRAPHS = ("path", "cycle", "regular4", "complete")


def _normalise(D: np.ndarray) -> np.ndarray:
    D = np.asarray(D, dtype=float).copy()
    np.fill_diagonal(D, 0.0)
    total = D.sum()
    if total <= 0:
        raise ValueError("triplet distribution has no mass")
    return D / total


def product_triplets(P_plus: np.ndarray, P_minus: np.ndarray) -> np.ndarray:
    """``D(a, b) ∝ P+(a) P-(b)`` for ``a != b``: independent draws of the preferred and the
    rejected response, redrawn when they coincide. ``P_plus, P_minus: (n,)`` positive."""
    P_plus = as_array("P_plus", P_plus, ndim=1)
    P_minus = as_array("P_minus", P_minus, ndim=1)
    if P_plus.shape != P_minus.shape or P_plus.size < 2:
        raise ValueError(f"P_plus and P_minus must be 1-D of equal length >= 2, got "
                         f"{P_plus.shape} and {P_minus.shape}")
    if np.any(~np.isfinite(P_plus)) or np.any(~np.isfinite(P_minus)) or np.any(P_plus <= 0) or np.any(P_minus <= 0):
        raise ValueError("P_plus and P_minus must be finite and strictly positive")
    return _normalise(np.outer(P_plus, P_minus))


def edges_to_weights(n_items: int, edges, weights=None) -> np.ndarray:
    """Symmetric pair-frequency matrix ``W: (n, n)`` (sums to one over unordered pairs)."""
    n_items = check_int("n_items", n_items, minimum=2)
    edges = list(edges)
    if not edges:
        raise ValueError("edges must be non-empty")
    weights = np.ones(len(edges)) if weights is None else as_array("weights", weights, ndim=1)
    if weights.shape != (len(edges),) or np.any(weights <= 0):
        raise ValueError("weights must be positive, one per edge")
    W = np.zeros((n_items, n_items))
    for (a, b), w in zip(edges, weights):
        if a == b or not (0 <= a < n_items and 0 <= b < n_items):
            raise ValueError(f"edge {(a, b)} is not a pair of distinct items in [0, {n_items})")
        W[a, b] += w
        W[b, a] += w
    return W / W[np.triu_indices(n_items, 1)].sum()


def bt_triplets(s: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``D(a, b) = W_ab sigma(s_a - s_b)``: the pair {a, b} is shown with frequency ``W_ab``
    and the BT model with scores ``s: (n,)`` picks the winner. ``W: (n, n)`` symmetric."""
    s = as_array("s", s, ndim=1)
    W = as_array("W", W, ndim=2)
    if W.shape != (s.size, s.size):
        raise ValueError(f"s must be (n,) and W (n, n); got {s.shape} and {W.shape}")
    if not np.allclose(W, W.T) or np.any(W < 0):
        raise ValueError("W must be symmetric and non-negative")
    return _normalise(W / (1.0 + np.exp(-(s[:, None] - s[None, :]))))


def cyclic_triplets(n_items: int, p_cycle: float, rng: np.random.Generator,
                    score_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """A CPRD with a preference cycle, so no BT score can represent it.

    Items 0, 1, 2 form a cycle ``omega(0 > 1) = omega(1 > 2) = omega(2 > 0) = p_cycle``; the
    other pairs follow BT with scores ``N(0, score_scale^2)``; every pair is shown, with
    frequencies drawn from Dirichlet(1). Returns ``(D, omega)``.
    """
    n_items = check_int("n_items", n_items, minimum=3)
    p_cycle = check_positive("p_cycle", p_cycle)
    score_scale = check_positive("score_scale", score_scale)
    rng = as_rng("rng", rng)
    if not 0.5 < p_cycle < 1.0:
        raise ValueError(f"p_cycle must lie in (0.5, 1), got {p_cycle}")
    s = rng.normal(0.0, score_scale, size=n_items)
    omega = 1.0 / (1.0 + np.exp(-(s[:, None] - s[None, :])))
    for a, b in ((0, 1), (1, 2), (2, 0)):
        omega[a, b], omega[b, a] = p_cycle, 1.0 - p_cycle
    iu = np.triu_indices(n_items, 1)
    W = np.zeros((n_items, n_items))
    W[iu] = rng.dirichlet(np.ones(iu[0].size))
    W = W + W.T
    D = _normalise(W * omega)
    np.fill_diagonal(omega, np.nan)
    return D, omega


def dirichlet_triplets(n_items: int, rng: np.random.Generator, alpha: float = 1.0) -> np.ndarray:
    """An unstructured triplet law: Dirichlet(alpha) over all ordered pairs ``a != b``."""
    n_items = check_int("n_items", n_items, minimum=2)
    alpha = check_positive("alpha", alpha)
    rng = as_rng("rng", rng)
    off = ~np.eye(n_items, dtype=bool)
    D = np.zeros((n_items, n_items))
    D[off] = rng.dirichlet(np.full(off.sum(), alpha))
    return D


def sample_triplets(D: np.ndarray, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``m`` i.i.d. triplets from ``D``; returns ``(winners, losers)`` index arrays."""
    D = as_array("D", D, ndim=2)
    if D.shape[0] != D.shape[1]:
        raise ValueError(f"D must be square, got shape {D.shape}")
    m = check_int("m", m, minimum=1)
    rng = as_rng("rng", rng)
    if np.any(D < 0) or not np.isclose(D.sum(), 1.0):
        raise ValueError("D must be a probability matrix (non-negative, sums to one)")
    n = D.shape[0]
    idx = rng.choice(n * n, size=m, p=D.ravel() / D.sum())
    return idx // n, idx % n


def graph_edges(kind: str, n: int, rng) -> list[tuple[int, int]]:
    """Edges of a ``path``, ``cycle``, connected random 4-``regular4`` or ``complete`` graph on
    ``n`` items, randomly relabelled so that graph position is unrelated to score."""
    import networkx as nx

    n = check_int("n", n, minimum=5)
    rng = as_rng("rng", rng)
    if kind == "path":
        G = nx.path_graph(n)
    elif kind == "cycle":
        G = nx.cycle_graph(n)
    elif kind == "regular4":
        G = nx.random_regular_graph(4, n, seed=int(rng.integers(2**31)))
        while not nx.is_connected(G):
            G = nx.random_regular_graph(4, n, seed=int(rng.integers(2**31)))
    elif kind == "complete":
        G = nx.complete_graph(n)
    else:
        raise ValueError(f"kind must be one of {GRAPHS}, got {kind!r}")
    perm = rng.permutation(n)
    return [(int(perm[a]), int(perm[b])) for a, b in G.edges()]


def random_tree(n: int, rng) -> list[tuple[int, int]]:
    """A random recursive spanning tree on ``n`` items (item k attaches to a uniform earlier item)."""
    n = check_int("n", n, minimum=2)
    rng = as_rng("rng", rng)
    return [(int(rng.integers(k)), k) for k in range(1, n)]
