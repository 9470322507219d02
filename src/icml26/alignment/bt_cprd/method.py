"""What a Bradley-Terry fit recovers from triplet data (Pukdee, Balcan, Ravikumar; arXiv:2602.10286).

The data are triplets ``(x, y+, y-)`` drawn from a distribution ``D``. For one context ``x``
and a finite response set ``{0, ..., n-1}`` we hold ``D`` as an ``(n, n)`` matrix
``D[a, b] = P(y+ = a, y- = b | x)`` (zero diagonal). With a tabular score ``s(x, .)`` the BT
objectives decouple across contexts, so every function here works on one context; a
multi-context problem is a loop over contexts.

Objects, in the paper's order (Sections 2-5):

* **CPRD** (conditional preference distribution), the preference information that triplet
  data carry, with no model assumed::

      omega(a > b | x) = D(x, a, b) / (D(x, a, b) + D(x, b, a)),

  defined on the compared pairs, i.e. the edges of the comparison graph with weights
  ``w_ab = D(a, b) + D(b, a)`` (how often the unordered pair is shown).
* **BT family**: ``omega_s(a > b) = sigma(s_a - s_b)``. A CPRD is BT-representable iff its
  log-odds ``l_ab = log omega_ab / omega_ba`` sum to zero around every cycle of the
  comparison graph, i.e. ``l`` is a potential difference (checked here as the residual of the
  least-squares potential, :func:`cycle_inconsistency`).
* **Positive/negative conditional independence**: if ``D(a, b) ∝ P+(a) P-(b)`` on ``a != b``
  then the CPRD is BT with ``s = log P+ - log P-`` (:func:`ci_scores`).
* **Discriminative BT objective**: ``min_s E_D[-log sigma(s(y+) - s(y-))]``. Since the
  expected log-loss equals ``sum_{a<b} w_ab KL(omega_ab || omega_s,ab)`` plus a constant,
  its population minimiser is the pair-frequency-weighted KL projection of the CPRD onto the
  BT family (:func:`fit_bt` on population masses == :func:`kl_projection`). It recovers the
  CPRD exactly when the CPRD is BT-representable.
* **Generative BT objective**: fit the triplet distribution itself with the product family
  ``D_theta(a, b) ∝ exp(u_a + v_b)`` on ``a != b`` and read ``s = u - v``
  (:func:`fit_generative_bt`); under conditional independence it recovers the CPRD.
* **Sample efficiency** depends on the margin (how far the CPRD is from 1/2) and on the
  connectivity of the comparison graph, measured here by its algebraic connectivity
  ``lambda_2`` of the (pair-weighted) graph Laplacian (:func:`algebraic_connectivity`);
  :func:`greedy_connectivity_design` chooses which pairs to collect so as to raise it.

Scores are identified only up to an additive constant; every fit returns mean-zero scores.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, check_int, check_positive

__all__ = [
    "algebraic_connectivity",
    "bt_cprd",
    "ci_scores",
    "comparison_counts",
    "cprd",
    "cprd_error",
    "cycle_inconsistency",
    "fit_bt",
    "fit_bt_pairs",
    "fit_generative_bt",
    "greedy_connectivity_design",
    "is_bt_representable",
    "kl_projection",
    "pair_weights",
    "weighted_kl",
]


# --------------------------------------------------------------------------- validation
def _square(name: str, M: np.ndarray, nonneg: bool = True) -> np.ndarray:
    M = as_array(name, M, ndim=2, nonempty=False, finite=False)
    if M.shape[0] != M.shape[1] or M.shape[0] < 2:
        raise ValueError(f"{name} must be a square (n, n) matrix with n >= 2, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} contains NaN or inf")
    if nonneg and np.any(M < 0):
        raise ValueError(f"{name} must be non-negative")
    return M


def _scores(name: str, s: np.ndarray, n: int | None = None) -> np.ndarray:
    s = as_array(name, s, ndim=1, nonempty=False, finite=False)
    if s.size < 2:
        raise ValueError(f"{name} must be a 1-D array of at least 2 scores, got shape {s.shape}")
    if n is not None and s.size != n:
        raise ValueError(f"{name} must have length {n}, got {s.size}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{name} contains NaN or inf")
    return s


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


# --------------------------------------------------------------------------- the CPRD
def pair_weights(D: np.ndarray) -> np.ndarray:
    """Symmetric pair weights ``w_ab = D(a, b) + D(b, a)`` with zero diagonal. ``D: (n, n)``."""
    D = _square("D", D)
    W = D + D.T
    np.fill_diagonal(W, 0.0)
    return W


def cprd(D: np.ndarray) -> np.ndarray:
    """The conditional preference distribution of a triplet matrix.

    ``D: (n, n)`` with ``D[a, b]`` the probability (or count) of the triplet ``(a preferred, b
    rejected)``. Returns ``omega: (n, n)`` with ``omega[a, b] = D[a, b] / (D[a, b] + D[b, a])``
    on compared pairs and NaN on pairs never compared (and on the diagonal).
    """
    D = _square("D", D)
    if D.sum() <= 0:
        raise ValueError("D has no mass: no pair was ever compared")
    W = D + D.T
    with np.errstate(invalid="ignore", divide="ignore"):
        omega = np.where(W > 0, D / np.where(W > 0, W, 1.0), np.nan)
    np.fill_diagonal(omega, np.nan)
    return omega


def bt_cprd(s: np.ndarray) -> np.ndarray:
    """The BT CPRD ``omega_s[a, b] = sigma(s_a - s_b)`` of scores ``s: (n,)``; NaN diagonal."""
    s = _scores("s", s)
    omega = _sigmoid(s[:, None] - s[None, :])
    np.fill_diagonal(omega, np.nan)
    return omega


def ci_scores(P_plus: np.ndarray, P_minus: np.ndarray) -> np.ndarray:
    """BT scores ``s = log P+ - log P-`` (mean zero) implied by positive/negative independence.

    If ``D(a, b) ∝ P+(a) P-(b)`` for ``a != b`` then ``omega(a > b) = sigma(s_a - s_b)`` exactly.
    ``P_plus, P_minus: (n,)`` strictly positive.
    """
    P_plus = _scores("P_plus", P_plus)
    P_minus = _scores("P_minus", P_minus, P_plus.size)
    if np.any(P_plus <= 0) or np.any(P_minus <= 0):
        raise ValueError("P_plus and P_minus must be strictly positive")
    s = np.log(P_plus) - np.log(P_minus)
    return s - s.mean()


def _compared(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    iu, ju = np.triu_indices(W.shape[0], k=1)
    keep = W[iu, ju] > 0
    return iu[keep], ju[keep]


def cycle_inconsistency(omega: np.ndarray, W: np.ndarray | None = None) -> float:
    """How far a CPRD is from BT-representable: the RMS cyclic part of its log-odds.

    Fits the potential ``s`` minimising ``sum_{a<b compared} (s_a - s_b - l_ab)^2`` with
    ``l_ab = logit(omega_ab)`` and returns the RMS residual; it is zero iff the log-odds sum
    to zero around every cycle, i.e. iff some BT score reproduces ``omega`` on every compared
    pair. ``omega: (n, n)`` (NaN = not compared), ``W`` optional pair weights (> 0 marks
    compared pairs; defaults to the non-NaN pattern of ``omega``).
    """
    omega = as_array("omega", omega, ndim=2, finite=False)
    if omega.shape[0] != omega.shape[1]:
        raise ValueError(f"omega must be a square (n, n) matrix, got shape {omega.shape}")
    n = omega.shape[0]
    if W is None:
        W = np.where(np.isfinite(omega), 1.0, 0.0)
        np.fill_diagonal(W, 0.0)
    W = _square("W", W)
    i, j = _compared(W)
    if i.size == 0:
        raise ValueError("no compared pair: the comparison graph has no edge")
    p = omega[i, j]
    if not np.all(np.isfinite(p)) or np.any((p <= 0) | (p >= 1)):
        raise ValueError("omega must lie strictly in (0, 1) on every compared pair")
    ell = np.log(p) - np.log1p(-p)
    A = np.zeros((i.size, n))
    A[np.arange(i.size), i] = 1.0
    A[np.arange(i.size), j] = -1.0
    s, *_ = np.linalg.lstsq(A, ell, rcond=None)
    return float(np.sqrt(np.mean((A @ s - ell) ** 2)))


def is_bt_representable(omega: np.ndarray, W: np.ndarray | None = None, tol: float = 1e-8) -> bool:
    """True iff the CPRD's log-odds are cycle-consistent (see :func:`cycle_inconsistency`)."""
    tol = check_positive("tol", tol)
    return cycle_inconsistency(omega, W) <= tol


# --------------------------------------------------------------------------- discriminative BT
def comparison_counts(winners: np.ndarray, losers: np.ndarray, n_items: int) -> np.ndarray:
    """Win-count matrix ``C[a, b]`` = number of triplets with ``y+ = a, y- = b``."""
    n_items = check_int("n_items", n_items, minimum=2)
    winners = np.asarray(winners)
    losers = np.asarray(losers)
    if winners.shape != losers.shape or winners.ndim != 1 or winners.size == 0:
        raise ValueError(f"winners and losers must be non-empty 1-D arrays of equal length, "
                         f"got {winners.shape} and {losers.shape}")
    if not (np.issubdtype(winners.dtype, np.integer) and np.issubdtype(losers.dtype, np.integer)):
        raise ValueError("winners and losers must be integer item indices")
    if winners.min() < 0 or losers.min() < 0 or max(winners.max(), losers.max()) >= n_items:
        raise ValueError(f"item indices must lie in [0, {n_items})")
    if np.any(winners == losers):
        raise ValueError("a triplet compares an item with itself (winners == losers)")
    C = np.zeros((n_items, n_items))
    np.add.at(C, (winners, losers), 1.0)
    return C


def _bt_nll(s: np.ndarray, C: np.ndarray, l2: float) -> tuple[float, np.ndarray, np.ndarray]:
    """Negative log-likelihood sum_{a,b} C_ab log(1 + e^{-(s_a - s_b)}) + l2 ||s||^2, grad, Hessian."""
    diff = s[:, None] - s[None, :]
    nll = float(np.sum(C * np.logaddexp(0.0, -diff))) + l2 * float(s @ s)
    q = _sigmoid(-diff)  # P(b beats a) under the model, per ordered pair (a, b)
    G = C * q
    grad = -(G.sum(axis=1) - G.sum(axis=0)) + 2.0 * l2 * s
    W = (C + C.T) * q * (1.0 - q)
    H = np.diag(W.sum(axis=1)) - W + 2.0 * l2 * np.eye(s.size)
    return nll, grad, H


def fit_bt(C: np.ndarray, l2: float = 0.0, tol: float = 1e-12, max_iter: int = 200) -> np.ndarray:
    """Discriminative BT maximum likelihood from a (possibly fractional) win matrix.

    Minimises ``sum_{a,b} C[a, b] * -log sigma(s_a - s_b) + l2 * ||s||^2`` by damped Newton
    steps (the Hessian is the pair-weighted graph Laplacian of the comparison graph; the
    constant direction is projected out when ``l2 = 0``). The same penalty convention as
    ``choix.opt_pairwise(alpha=l2)``. Feeding population masses ``C = D`` gives the population
    minimiser, i.e. the KL projection of the CPRD onto the BT family.

    ``C: (n, n)`` non-negative; returns mean-zero scores ``(n,)`` (exactly mean-zero for
    ``l2 = 0``). With ``l2 = 0`` the MLE exists iff the win digraph is strongly connected;
    otherwise a ``ValueError`` is raised (use ``l2 > 0``).
    """
    C = _square("C", C)
    l2 = check_positive("l2", l2, strict=False)
    tol = check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    C = C.copy()
    np.fill_diagonal(C, 0.0)
    if C.sum() <= 0:
        raise ValueError("C has no comparisons")
    n = C.shape[0]
    if l2 == 0.0:
        # Ford (1957): the MLE exists iff the "a beat b" digraph is strongly connected.
        from scipy.sparse.csgraph import connected_components

        n_comp, _ = connected_components(C > 0, directed=True, connection="strong")
        if n_comp > 1:
            raise ValueError("BT MLE diverges: the win graph is not strongly connected "
                             "(some group of items never loses to the rest); use l2 > 0")
    s = np.zeros(n)
    P = np.eye(n) - 1.0 / n  # projector onto mean-zero scores
    nll, grad, H = _bt_nll(s, C, l2)
    for _ in range(max_iter):
        if l2 == 0.0:
            step = -P @ np.linalg.lstsq(P @ H @ P, P @ grad, rcond=None)[0]
        else:
            step = -np.linalg.solve(H, grad)
        t = 1.0
        while True:
            s_new = s + t * step
            nll_new, grad_new, H_new = _bt_nll(s_new, C, l2)
            if nll_new <= nll + 1e-4 * t * float(grad @ step) or t < 1e-10:
                break
            t *= 0.5
        s, nll, grad, H = s_new, nll_new, grad_new, H_new
        if np.max(np.abs(t * step)) < tol or np.max(np.abs(P @ grad)) < tol * max(1.0, C.sum()):
            break
    return s - s.mean() if l2 == 0.0 else s


def fit_bt_pairs(winners: np.ndarray, losers: np.ndarray, n_items: int, l2: float = 0.0) -> np.ndarray:
    """Discriminative BT MLE from triplets given as index arrays ``winners, losers: (m,)``."""
    n_items = check_int("n_items", n_items, minimum=2)
    return fit_bt(comparison_counts(winners, losers, n_items), l2=l2)


def weighted_kl(omega: np.ndarray, W: np.ndarray, s: np.ndarray) -> float:
    """``sum_{a<b} W_ab KL(Bern(omega_ab) || Bern(sigma(s_a - s_b)))`` over compared pairs."""
    W = _square("W", W)
    s = _scores("s", s, W.shape[0])
    omega = as_array("omega", omega, ndim=2, finite=False)
    if omega.shape != W.shape:
        raise ValueError(f"omega must have the shape of W {W.shape}, got {omega.shape}")
    i, j = _compared(W)
    p = omega[i, j]
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("omega must lie in [0, 1] on every compared pair")
    d = s[i] - s[j]
    log_q = -np.logaddexp(0.0, -d)
    log_1mq = -np.logaddexp(0.0, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1.0)) - log_q), 0.0)
        t2 = np.where(p < 1, (1 - p) * (np.log(np.where(p < 1, 1 - p, 1.0)) - log_1mq), 0.0)
    return float(np.sum(W[i, j] * (t1 + t2)))


def kl_projection(omega: np.ndarray, W: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """The BT scores closest to a CPRD in pair-frequency-weighted KL (direct minimisation).

    ``argmin_s sum_{a<b} W_ab KL(omega_ab || sigma(s_a - s_b))`` by L-BFGS on the KL itself
    (an independent route to the same point as :func:`fit_bt` on population masses).
    ``omega: (n, n)``, ``W: (n, n)`` symmetric pair weights; returns mean-zero ``(n,)``.
    """
    from scipy.optimize import minimize

    W = _square("W", W)
    tol = check_positive("tol", tol)
    if not np.allclose(W, W.T):
        raise ValueError("W must be symmetric (weights of unordered pairs)")
    omega = as_array("omega", omega, ndim=2, finite=False)
    if omega.shape != W.shape:
        raise ValueError(f"omega must have the shape of W {W.shape}, got {omega.shape}")
    n = W.shape[0]
    i, j = _compared(W)
    if i.size == 0:
        raise ValueError("W has no compared pair")
    p = omega[i, j]
    if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("omega must lie in [0, 1] on every compared pair")
    w = W[i, j]

    def fun(s: np.ndarray) -> tuple[float, np.ndarray]:
        d = s[i] - s[j]
        val = weighted_kl(omega, W, s)
        r = w * (_sigmoid(d) - p)  # d KL / d d
        g = np.zeros(n)
        np.add.at(g, i, r)
        np.add.at(g, j, -r)
        return val, g

    res = minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B",
                   options={"ftol": 0.0, "gtol": tol, "maxiter": 20000, "maxcor": 50})
    s = res.x
    return s - s.mean()


# --------------------------------------------------------------------------- generative BT
def fit_generative_bt(C: np.ndarray, tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generative BT: maximum likelihood of the triplet matrix under ``D ∝ exp(u_a + v_b)``, a != b.

    ``C: (n, n)`` counts or population masses of ordered triplets (diagonal ignored). Returns
    ``(s, u, v)`` with the BT score ``s = u - v`` (mean zero). The fit matches both marginals
    of ``C`` (exponential-family moment matching); under positive/negative conditional
    independence ``s`` equals ``log P+ - log P-`` (up to a constant).
    """
    from scipy.optimize import minimize

    C = _square("C", C).copy()
    tol = check_positive("tol", tol)
    np.fill_diagonal(C, 0.0)
    total = C.sum()
    if total <= 0:
        raise ValueError("C has no comparisons")
    n = C.shape[0]
    F = C / total
    r_emp, c_emp = F.sum(axis=1), F.sum(axis=0)
    if np.any(r_emp <= 0) or np.any(c_emp <= 0):
        raise ValueError("every item must appear at least once as y+ and once as y- "
                         "for the generative fit to exist")
    off = ~np.eye(n, dtype=bool)

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        u, v = theta[:n], theta[n:]
        logits = u[:, None] + v[None, :]
        m = logits[off].max()
        E = np.where(off, np.exp(logits - m), 0.0)
        Z = E.sum()
        M = E / Z
        val = -(r_emp @ u + c_emp @ v) + m + np.log(Z)
        g = np.concatenate([M.sum(axis=1) - r_emp, M.sum(axis=0) - c_emp])
        return float(val), g

    res = minimize(fun, np.zeros(2 * n), jac=True, method="L-BFGS-B",
                   options={"ftol": 0.0, "gtol": tol, "maxiter": 20000, "maxcor": 50})
    u, v = res.x[:n], res.x[n:]
    s = u - v
    return s - s.mean(), u, v


# --------------------------------------------------------------------------- errors and design
def cprd_error(omega_hat: np.ndarray, omega: np.ndarray, W: np.ndarray) -> float:
    """Pair-frequency-weighted mean |omega_hat - omega| over compared pairs (a total variation)."""
    W = _square("W", W)
    omega_hat = as_array("omega_hat", omega_hat, ndim=2, finite=False)
    omega = as_array("omega", omega, ndim=2, finite=False)
    for name, M in (("omega_hat", omega_hat), ("omega", omega)):
        if M.shape != W.shape:
            raise ValueError(f"{name} must have the shape of W {W.shape}, got {M.shape}")
    i, j = _compared(W)
    a, b = omega_hat[i, j], omega[i, j]
    if not np.all(np.isfinite(a)):
        raise ValueError("omega_hat must be defined (finite) on every compared pair")
    if not np.all(np.isfinite(b)):
        raise ValueError("omega must be defined (finite) on every compared pair")
    return float(np.sum(W[i, j] * np.abs(a - b)) / np.sum(W[i, j]))


def algebraic_connectivity(W: np.ndarray) -> float:
    """``lambda_2`` of the Laplacian of the comparison graph with edge weights ``W: (n, n)``.

    Zero iff the graph is disconnected. Computed with networkx (dense eigen-solver path).
    """
    import networkx as nx

    W = _square("W", W)
    if not np.allclose(W, W.T):
        raise ValueError("W must be symmetric")
    G = nx.from_numpy_array(W)
    if not nx.is_connected(G):
        return 0.0
    L = nx.laplacian_matrix(G, weight="weight").toarray().astype(float)
    return float(np.sort(np.linalg.eigvalsh(L))[1])


def greedy_connectivity_design(n_items: int, n_pairs: int, base_edges: list[tuple[int, int]] | None = None
                               ) -> list[tuple[int, int]]:
    """Choose ``n_pairs`` pairs to compare, greedily maximising the algebraic connectivity.

    Starts from ``base_edges`` (default: the path 0-1-...-(n-1), which makes the graph
    connected) and adds, one at a time, the missing pair ``(a, b)`` with the largest Fiedler
    gap ``(v_a - v_b)^2``: the first-order gain in ``lambda_2`` from adding that edge
    (Ghosh & Boyd 2006). Returns the full edge list, ``len == n_pairs``.
    """
    n_items = check_int("n_items", n_items, minimum=2)
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    max_pairs = n_items * (n_items - 1) // 2
    edges = list(base_edges) if base_edges is not None else [(k, k + 1) for k in range(n_items - 1)]
    if not (len(edges) <= n_pairs <= max_pairs):
        raise ValueError(f"n_pairs must lie in [{len(edges)}, {max_pairs}], got {n_pairs}")
    for a, b in edges:
        if not (0 <= a < n_items and 0 <= b < n_items) or a == b:
            raise ValueError(f"base edge {(a, b)} is not a pair of distinct items in [0, {n_items})")
    A = np.zeros((n_items, n_items))
    for a, b in edges:
        A[a, b] = A[b, a] = 1.0
    while len(edges) < n_pairs:
        L = np.diag(A.sum(axis=1)) - A
        _, V = np.linalg.eigh(L)
        v = V[:, 1]
        gain = (v[:, None] - v[None, :]) ** 2
        gain[A > 0] = -np.inf
        np.fill_diagonal(gain, -np.inf)
        a, b = np.unravel_index(int(np.argmax(gain)), gain.shape)
        A[a, b] = A[b, a] = 1.0
        edges.append((int(min(a, b)), int(max(a, b))))
    return edges


def EXAMPLES() -> list:
    """Public functions (``method`` and ``setting``) with valid arguments, for the bad-input test."""
    from .setting import (bt_triplets, cyclic_triplets, dirichlet_triplets, edges_to_weights, graph_edges,
                          product_triplets, random_tree, sample_triplets)

    n = 5
    s = np.array([0.4, -0.3, 1.0, 0.0, -1.1])
    Pp, Pm = np.array([0.1, 0.2, 0.3, 0.25, 0.15]), np.array([0.3, 0.2, 0.1, 0.15, 0.25])
    D = product_triplets(Pp, Pm)
    W = pair_weights(D)
    omega = cprd(D)
    nan_ok = {"omega": {"NaN"}, "omega_hat": {"NaN"}}  # a CPRD is NaN on the diagonal by definition
    return [
        (pair_weights, {"D": D}),
        (cprd, {"D": D}),
        (bt_cprd, {"s": s}),
        (ci_scores, {"P_plus": Pp, "P_minus": Pm}),
        (cycle_inconsistency, {"omega": omega, "W": W}, nan_ok),
        (is_bt_representable, {"omega": omega, "W": W, "tol": 1e-8}, nan_ok),
        (comparison_counts, {"winners": np.array([0, 1, 2]), "losers": np.array([1, 2, 0]), "n_items": 3}),
        (fit_bt, {"C": D * 100, "l2": 0.01, "tol": 1e-10, "max_iter": 50}),
        (fit_bt_pairs, {"winners": np.array([0, 1, 2, 1]), "losers": np.array([1, 2, 0, 0]), "n_items": 3,
                        "l2": 0.01}),
        (weighted_kl, {"omega": omega, "W": W, "s": s}, nan_ok),
        (kl_projection, {"omega": omega, "W": W, "tol": 1e-10}, nan_ok),
        (fit_generative_bt, {"C": D, "tol": 1e-10}),
        (cprd_error, {"omega_hat": bt_cprd(s), "omega": omega, "W": W}, nan_ok),
        (algebraic_connectivity, {"W": W}),
        (greedy_connectivity_design, {"n_items": n, "n_pairs": 6}),
        (product_triplets, {"P_plus": Pp, "P_minus": Pm}),
        (edges_to_weights, {"n_items": n, "edges": [(0, 1), (1, 2)], "weights": np.array([1.0, 2.0])}),
        (bt_triplets, {"s": s, "W": W}),
        (cyclic_triplets, {"n_items": n, "p_cycle": 0.8, "rng": 0, "score_scale": 1.0}),
        (dirichlet_triplets, {"n_items": n, "rng": 0, "alpha": 1.0}),
        (sample_triplets, {"D": D, "m": 20, "rng": 0}),
        (graph_edges, {"kind": "cycle", "n": 8, "rng": 0}),
        (random_tree, {"n": 6, "rng": 0}),
    ]
