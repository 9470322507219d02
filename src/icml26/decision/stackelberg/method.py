"""Stackelberg-Littlestone dimension, SSOA and the tree-following adversary on finite games.

Implements the online part of "Learning in Structured Stackelberg Games"
(Balcan, Fragkia, Harris; arXiv:2504.09006, Section 3).

Setting (Sec. 2). A leader with ``A_L`` pure actions commits to a mixed strategy
``x`` in the simplex; a follower of type ``j`` in ``{0..K-1}`` sees ``x`` and plays a
best response ``b_j(z, x)`` in ``{0..A_F-1}`` (ties broken in the leader's favour).
Before the round a context ``z`` in ``{0..Z-1}`` is revealed and the type is
``h*(z)`` for an unknown ``h*`` in a known finite class ``H`` (realisable,
"structured" setting); the type is revealed after the round. The leader's loss is
the Stackelberg regret

    r(z, x, j) = max_x' u(z, x', b_j(z, x')) - u(z, x, b_j(z, x)).

Stackelberg-Littlestone dimension (Def. of a shattered Stackelberg tree). Each
internal node ``s`` carries a context ``z_s`` and its outgoing edges carry types;
leaves weigh 0 and

    rho_s = inf_x max_{j : child sj exists} ( r(z_s, x, j) + rho_{sj} ),

SLdim(H) = sup of the root weight over trees shattered by ``H``. For a finite
class the supremum is reached by giving every node all the types the version
space still allows (more children can only raise the max), which gives the
recursion over version spaces ``V`` (our computable form of the definition)

    SL(V) = max(0, max_{z : |V(z)| >= 2} min_x max_{j in V(z)} [ r(z, x, j) + SL(V_{z->j}) ]),

with ``V_{z->j} = {h in V : h(z) = j}``. The inner ``min_x`` is solved exactly by
one linear programme per joint best-response profile (``scipy.optimize.linprog``):
inside the closed region where type ``j`` best-responds with ``a_j`` the leader's
utility against ``j`` is at least ``x . U_L[:, a_j]`` (equality unless a tie is
broken upwards), so the minimum over profiles of the LP values equals the infimum.

SSOA (Stackelberg Standard Optimal Algorithm, Alg. 1): given ``V_t`` and ``z_t``, play

    x_t in argmin_x max_{j in V_t(z_t)} [ r(z_t, x, j) + SL(V_t restricted to z_t -> j) ],

observe the type and restrict the version space. Theorem 3.9: its regret on any
realisable sequence is at most SLdim(H). Theorem 3.8: an adversary that walks the
maximising tree (show the context of the best node, then reveal the type that
maximises ``r + SL(child)``) forces every deterministic leader to regret >= SLdim(H).

The classical multiclass Littlestone dimension (for comparison, Sec. 3.1) obeys

    Ld(V) = max_{z} max_{j1 != j2 in V(z)} 1 + min(Ld(V_{z->j1}), Ld(V_{z->j2})),

and SOA predicts the type whose restricted class has the largest Ld; our SOA
leader then commits to that type's Stackelberg strategy.

Version spaces are Python ``int`` bitmasks over the rows of ``H``. The instances the
reproduction uses (Example 3, the Theorem 3.5 class, random games) are in :mod:`.setting`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from icml26.core.validate import as_array, check_finite, check_int, check_positive

#: follower indifference tolerance: near-ties count as ties, broken in the leader's favour
TIE_TOL = 1e-7


@dataclass
class StructuredStackelbergGame:
    """A finite structured Stackelberg game.

    U_L: (Z, A_L, A_F) leader utility of (leader action, follower action) at each context.
    U_F: (Z, K, A_L, A_F) utility of follower type k at each context.
    """

    U_L: np.ndarray
    U_F: np.ndarray
    _inducible: dict = field(default_factory=dict, repr=False)
    _star: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.U_L = np.asarray(as_array("U_L", self.U_L, ndim=3), dtype=float)
        self.U_F = np.asarray(as_array("U_F", self.U_F, ndim=4), dtype=float)
        if min(self.U_L.shape) < 1:
            raise ValueError(f"U_L must be non-empty in every dimension, got shape {self.U_L.shape}")
        if self.U_F.shape[0] != self.U_L.shape[0] or self.U_F.shape[2:] != self.U_L.shape[1:] or self.U_F.shape[1] < 1:
            raise ValueError(f"U_F must have shape (Z, K, A_L, A_F) = (Z, K, {self.U_L.shape[1]}, "
                             f"{self.U_L.shape[2]}) with Z = {self.U_L.shape[0]} and K >= 1, got {self.U_F.shape}")

    @property
    def n_contexts(self) -> int:
        return self.U_L.shape[0]

    @property
    def n_types(self) -> int:
        return self.U_F.shape[1]

    @property
    def n_leader_actions(self) -> int:
        return self.U_L.shape[1]

    def _check_x(self, x: np.ndarray) -> np.ndarray:
        x = as_array("x", x, ndim=1)
        if x.shape != (self.n_leader_actions,):
            raise ValueError(f"x must have shape ({self.n_leader_actions},), got {x.shape}")
        if np.any(x < -1e-9) or abs(x.sum() - 1.0) > 1e-6:
            raise ValueError("x must be a probability vector (non-negative, sums to 1)")
        return x

    def _check_zj(self, z: int, j: int) -> None:
        check_int("z", z, minimum=0, maximum=self.n_contexts - 1)
        check_int("j", j, minimum=0, maximum=self.n_types - 1)

    def best_response(self, z: int, x: np.ndarray, j: int) -> int:
        """b_j(z, x): follower type j's best response, ties (within TIE_TOL) to the leader's favour."""
        self._check_zj(z, j)
        x = self._check_x(x)
        v = x @ self.U_F[z, j]
        ties = np.flatnonzero(v >= v.max() - TIE_TOL)
        return int(ties[np.argmax(x @ self.U_L[z][:, ties])])

    def leader_utility(self, z: int, x: np.ndarray, j: int) -> float:
        """u(z, x, b_j(z, x))."""
        a = self.best_response(z, x, j)
        return float(np.asarray(x, dtype=float) @ self.U_L[z, :, a])

    def _region_lp(self, z: int, profile: Sequence[tuple[int, int]], offsets: Sequence[float] | None):
        """min_x max_j [offset_j - x.U_L[:, a_j]] over the region where each j best-responds a_j.

        profile: pairs (type j, follower action a_j). offsets None -> feasibility only.
        Returns (value, x) or (inf, None) when the region is empty.
        """
        from scipy.optimize import linprog

        m, n_f = self.n_leader_actions, self.U_L.shape[2]
        A_ub, b_ub = [], []
        for j, a in profile:
            for a2 in range(n_f):
                if a2 != a:  # x.(U_F[:, a2] - U_F[:, a]) <= 0
                    A_ub.append(np.append(self.U_F[z, j][:, a2] - self.U_F[z, j][:, a], 0.0))
                    b_ub.append(0.0)
        if offsets is not None:
            for (j, a), c in zip(profile, offsets):  # c - x.U_L[:, a] <= t
                A_ub.append(np.append(-self.U_L[z][:, a], -1.0))
                b_ub.append(-c)
        cost = np.zeros(m + 1)
        cost[-1] = 1.0 if offsets is not None else 0.0
        res = linprog(cost, A_ub=np.array(A_ub) if A_ub else None, b_ub=np.array(b_ub) if b_ub else None,
                      A_eq=np.append(np.ones(m), 0.0)[None, :], b_eq=[1.0],
                      bounds=[(0.0, 1.0)] * m + [(None, None)], method="highs")
        if res.status != 0:
            return float("inf"), None
        x = np.clip(res.x[:m], 0.0, None)
        x /= x.sum()
        return float(res.x[-1]) if offsets is not None else 0.0, x

    def inducible_actions(self, z: int, j: int) -> tuple[int, ...]:
        """Follower actions that type j plays as a best response for some x (non-empty region)."""
        key = (int(z), int(j))
        if key not in self._inducible:
            acts = tuple(a for a in range(self.U_L.shape[2])
                         if self._region_lp(z, [(j, a)], None)[1] is not None)
            self._inducible[key] = acts
        return self._inducible[key]

    def stackelberg(self, z: int, j: int) -> tuple[float, np.ndarray]:
        """Strong Stackelberg commitment against type j (multiple-LP method): (u*_j(z), x*_j(z))."""
        self._check_zj(z, j)
        key = (int(z), int(j))
        if key not in self._star:
            best = (-float("inf"), None)
            for a in self.inducible_actions(z, j):
                val, x = self._region_lp(z, [(j, a)], [0.0])  # min -x.U_L[:, a]
                if x is not None and -val > best[0]:
                    best = (-val, x)
            self._star[key] = best
        u, x = self._star[key]
        return u, x.copy()

    def regret(self, z: int, x: np.ndarray, j: int) -> float:
        """Stackelberg regret r(z, x, j) >= 0 (up to LP tolerance)."""
        return self.stackelberg(z, j)[0] - self.leader_utility(z, x, j)

    def minimax_commitment(self, z: int, types: Sequence[int], offsets: Sequence[float]) -> tuple[float, np.ndarray]:
        """min_x max_{j in types} [ r(z, x, j) + offsets_j ] and a minimiser x.

        Exact: one LP per joint profile of inducible best responses.
        """
        if isinstance(types, (str, bytes)) or not hasattr(types, "__len__"):
            raise TypeError(f"types must be a sequence of follower types, got {type(types).__name__}")
        types = [check_int("types", j) for j in types]
        if not types:
            raise ValueError("types must be non-empty")
        offsets = as_array("offsets", offsets, ndim=1)
        if len(offsets) != len(types):
            raise ValueError(f"offsets must have one entry per type ({len(types)}), got {len(offsets)}")
        for j in types:
            self._check_zj(z, j)
        c = [self.stackelberg(z, j)[0] + float(o) for j, o in zip(types, offsets)]
        best = (float("inf"), None)
        for acts in itertools.product(*(self.inducible_actions(z, j) for j in types)):
            val, x = self._region_lp(z, list(zip(types, acts)), c)
            if x is not None and val < best[0] - 1e-12:
                best = (val, x)
        if best[1] is None:  # cannot happen: profiles of actual best responses cover the simplex
            raise RuntimeError("no feasible best-response profile")
        return best


def _validate_class(game: StructuredStackelbergGame, H: np.ndarray) -> np.ndarray:
    if H is None or isinstance(H, (str, bytes)):
        raise TypeError(f"H must be an integer array of shape (n_hypotheses, Z), got {type(H).__name__}")
    H = np.asarray(H)
    if H.ndim != 2 or H.shape[0] == 0:
        raise ValueError(f"H must be a non-empty (n_hypotheses, Z) integer array, got shape {H.shape}")
    if H.shape[1] != game.n_contexts:
        raise ValueError(f"H must have one column per context ({game.n_contexts}), got {H.shape[1]}")
    if not np.issubdtype(H.dtype, np.integer):
        raise ValueError("H must hold integer follower types")
    if H.min() < 0 or H.max() >= game.n_types:
        raise ValueError(f"H entries must be types in [0, {game.n_types})")
    return H


class StackelbergLittlestone:
    """Memoised SL and Ld recursions over the version spaces of a finite class.

    game: the structured game; H: (n_hypotheses, Z) array, H[h, z] = type of hypothesis h at z.
    Version spaces are bitmasks over the rows of H; ``full`` is the whole class.
    """

    def __init__(self, game: StructuredStackelbergGame, H: np.ndarray):
        if not isinstance(game, StructuredStackelbergGame):
            raise TypeError(f"game must be a StructuredStackelbergGame, got {type(game).__name__}")
        self.game = game
        self.H = _validate_class(game, H)
        n = self.H.shape[0]
        self.full = (1 << n) - 1
        self.mask = [[sum(1 << h for h in range(n) if self.H[h, z] == j) for j in range(game.n_types)]
                     for z in range(game.n_contexts)]
        self._sl: dict[int, float] = {}
        self._node: dict[tuple[int, int], tuple[float, np.ndarray]] = {}
        self._ld: dict[int, int] = {}

    # version-space helpers -------------------------------------------------
    def labels(self, V: int, z: int) -> list[int]:
        """V(z): the types that some h in V assigns to z."""
        return [j for j, m in enumerate(self.mask[z]) if V & m]

    def restrict(self, V: int, z: int, j: int) -> int:
        return V & self.mask[z][j]

    def hypotheses(self, V: int) -> list[int]:
        return [h for h in range(self.H.shape[0]) if V >> h & 1]

    # Stackelberg-Littlestone ------------------------------------------------
    def node(self, V: int, z: int) -> tuple[float, np.ndarray]:
        """min_x max_{j in V(z)} [r(z, x, j) + SL(V_{z->j})] and the SSOA commitment x."""
        key = (V, z)
        if key not in self._node:
            if V == 0:
                raise ValueError("empty version space: the sequence is not realisable by H")
            types = self.labels(V, z)
            self._node[key] = self.game.minimax_commitment(z, types, [self.sl(self.restrict(V, z, j)) for j in types])
        val, x = self._node[key]
        return val, x.copy()

    def sl(self, V: int | None = None) -> float:
        """SLdim of the version space V (default: the whole class)."""
        V = self.full if V is None else V
        if V not in self._sl:
            best = 0.0
            for z in range(self.game.n_contexts):
                if len(self.labels(V, z)) >= 2:
                    best = max(best, self.node(V, z)[0])
            self._sl[V] = best
        return self._sl[V]

    def best_context(self, V: int) -> int | None:
        """Root context of a maximising tree for V (None if SL(V) = 0 with no splitting context)."""
        cands = [z for z in range(self.game.n_contexts) if len(self.labels(V, z)) >= 2]
        if not cands:
            return None
        return max(cands, key=lambda z: (self.node(V, z)[0], -z))

    # Littlestone ------------------------------------------------------------
    def ldim(self, V: int | None = None) -> int:
        """Multiclass Littlestone dimension of V (0 for a single hypothesis)."""
        V = self.full if V is None else V
        if V not in self._ld:
            best = 0
            for z in range(self.game.n_contexts):
                types = self.labels(V, z)
                if len(types) >= 2:
                    sub = sorted((self.ldim(self.restrict(V, z, j)) for j in types), reverse=True)
                    best = max(best, 1 + sub[1])
            self._ld[V] = best
        return self._ld[V]


# ---------------------------------------------------------------------------
# leaders
# ---------------------------------------------------------------------------

class Leader:
    """A deterministic online leader: ``act(z) -> x`` then ``update(z, j)``."""

    def __init__(self, calc: StackelbergLittlestone):
        if not isinstance(calc, StackelbergLittlestone):
            raise TypeError(f"calc must be a StackelbergLittlestone, got {type(calc).__name__}")
        self.calc = calc
        self.V = calc.full

    def reset(self) -> None:
        self.V = self.calc.full

    def commit(self, V: int, z: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def act(self, z: int) -> np.ndarray:
        return self.commit(self.V, z)

    def update(self, z: int, j: int) -> None:
        V = self.calc.restrict(self.V, z, j)
        if V == 0:
            raise ValueError(f"type {j} at context {z} is inconsistent with every remaining hypothesis")
        self.V = V


class SSOA(Leader):
    """Stackelberg Standard Optimal Algorithm (Alg. 1): minimax over r + SL(child)."""

    def commit(self, V: int, z: int) -> np.ndarray:
        types = self.calc.labels(V, z)
        if len(types) == 1:
            return self.calc.game.stackelberg(z, types[0])[1]
        return self.calc.node(V, z)[1]


class SOALeader(Leader):
    """Baseline: classical SOA type prediction (largest Ld of the restricted class), then its Stackelberg commitment."""

    def commit(self, V: int, z: int) -> np.ndarray:
        types = self.calc.labels(V, z)
        j = max(types, key=lambda t: (self.calc.ldim(self.calc.restrict(V, z, t)), -t))
        return self.calc.game.stackelberg(z, j)[1]


class FirstConsistentLeader(Leader):
    """Baseline: best-respond to the type of the lowest-indexed hypothesis still consistent."""

    def commit(self, V: int, z: int) -> np.ndarray:
        h = (V & -V).bit_length() - 1
        return self.calc.game.stackelberg(z, int(self.calc.H[h, z]))[1]


# ---------------------------------------------------------------------------
# playing sequences
# ---------------------------------------------------------------------------

def play_sequence(leader: Leader, contexts: Sequence[int], h_star: int) -> float:
    """Cumulative Stackelberg regret of ``leader`` on contexts labelled by hypothesis ``h_star``."""
    if not isinstance(leader, Leader):
        raise TypeError(f"leader must be a Leader (e.g. SSOA(calc)), got {type(leader).__name__}")
    calc = leader.calc
    h_star = check_int("h_star", h_star, minimum=0, maximum=calc.H.shape[0] - 1)
    contexts = _check_contexts(contexts, calc.game.n_contexts)
    leader.reset()
    total = 0.0
    for z in contexts:
        j = int(calc.H[h_star, int(z)])
        total += calc.game.regret(int(z), leader.act(int(z)), j)
        leader.update(int(z), j)
    return total


def _check_contexts(contexts, n_contexts: int) -> list[int]:
    """A sequence of context indices in [0, n_contexts) as a list of ints (empty is allowed)."""
    if isinstance(contexts, (str, bytes)) or not hasattr(contexts, "__len__"):
        raise TypeError(f"contexts must be a sequence of context indices, got {type(contexts).__name__}")
    arr = np.asarray(contexts)
    if arr.size and (arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"contexts must be a 1-D sequence of integer context indices, got {arr.dtype} "
                         f"of shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() >= n_contexts):
        raise ValueError(f"contexts must lie in [0, {n_contexts}), got values from {arr.min()} to {arr.max()}")
    return [int(z) for z in arr.reshape(-1)]


def tree_adversary(leader: Leader, tol: float = 1e-9) -> tuple[float, list[tuple[int, int]]]:
    """Theorem 3.8's adversary: walk the maximising Stackelberg tree against ``leader``.

    At version space V it shows the best context z, the leader commits x, and it
    reveals j = argmax_{j in V(z)} r(z, x, j) + SL(V_{z->j}). Stops when SL(V) <= tol.
    Returns (total regret, the (z, j) sequence), which stays realisable by construction.
    """
    if not isinstance(leader, Leader):
        raise TypeError(f"leader must be a Leader (e.g. SSOA(calc)), got {type(leader).__name__}")
    tol = check_positive("tol", tol, strict=False)
    calc, game = leader.calc, leader.calc.game
    leader.reset()
    V, total, seq = calc.full, 0.0, []
    while calc.sl(V) > tol:
        z = calc.best_context(V)
        x = leader.act(z)
        j = max(calc.labels(V, z), key=lambda t: (game.regret(z, x, t) + calc.sl(calc.restrict(V, z, t)), -t))
        total += game.regret(z, x, j)
        leader.update(z, j)
        V = calc.restrict(V, z, j)
        seq.append((z, j))
    return total, seq


def worst_case_regret(calc: StackelbergLittlestone, commit: Callable[[int, int], np.ndarray]) -> float:
    """Exact worst-case regret of a deterministic, version-space-driven leader over all realisable sequences.

    W(V) = max(0, max_{z: |V(z)|>=2} max_{j in V(z)} [ r(z, commit(V, z), j) + W(V_{z->j}) ]).
    Contexts whose type is already determined are excluded (leaders here have zero regret there).
    """
    if not isinstance(calc, StackelbergLittlestone):
        raise TypeError(f"calc must be a StackelbergLittlestone, got {type(calc).__name__}")
    if not callable(commit):
        raise TypeError(f"commit must be callable commit(V, z) -> x, got {type(commit).__name__}")
    memo: dict[int, float] = {}

    def W(V: int) -> float:
        if V not in memo:
            best = 0.0
            for z in range(calc.game.n_contexts):
                types = calc.labels(V, z)
                if len(types) >= 2:
                    x = commit(V, z)
                    for j in types:
                        best = max(best, calc.game.regret(z, x, j) + W(calc.restrict(V, z, j)))
            memo[V] = best
        return memo[V]

    return W(calc.full)
