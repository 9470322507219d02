"""Finite structured Stackelberg games used by the reproduction of arXiv:2504.09006.

* :func:`permutation_instance` - Example 3 of the paper: ``n`` contexts, ``n`` types, the
  class of all bijections, identity utilities (Ldim = n - 1, SLdim = n - H_n);
* :func:`harmless_instance` - Theorem 3.5 in finite form: all ``2^Z`` maps onto two types
  that share one optimal commitment (Ldim = Z, SLdim = 0);
* :func:`random_instance` - per-context bimatrix games with U[0, 1] utilities and a random
  class of distinct maps from contexts to types (our stand-in for general instances).

The sizes are guarded: the first two enumerate ``n!`` and ``2^Z`` hypotheses, and the
exact recursions of :mod:`.method` run over their version spaces.
"""

from __future__ import annotations

import itertools

import numpy as np

from icml26.core.validate import as_rng, check_int
from icml26.decision.stackelberg.method import StructuredStackelbergGame

#: largest n for Example 3 (n! bijections are enumerated; 8! = 40,320)
MAX_PERMUTATION_N = 8
#: largest Z for the Theorem 3.5 class (2^Z maps are enumerated; 2^16 = 65,536)
MAX_HARMLESS_Z = 16
#: largest n_types ** n_contexts a random class is drawn from
MAX_RANDOM_CODES = 10**6


def permutation_instance(n: int) -> tuple[StructuredStackelbergGame, np.ndarray]:
    """Example 3: n contexts, n types, H = all bijections [n] -> [n], identity utilities.

    Type j has the dominant action j; the leader earns x_j against it, so r(z, x, j) = 1 - x_j.
    Paper: Ldim(H) = n - 1 while SLdim(H) = n - H_n (H_n the n-th harmonic number).
    Returns (game, H) with H of shape (n!, n).
    """
    n = check_int("n", n, minimum=1, maximum=MAX_PERMUTATION_N)
    eye = np.eye(n)
    U_L = np.broadcast_to(eye, (n, n, n)).copy()
    U_F = np.zeros((n, n, n, n))
    for j in range(n):
        U_F[:, j, :, j] = 1.0
    H = np.array(list(itertools.permutations(range(n))), dtype=int)
    return StructuredStackelbergGame(U_L, U_F), H


def harmless_instance(n_contexts: int) -> tuple[StructuredStackelbergGame, np.ndarray]:
    """Theorem 3.5 in finite form: two types that disagree everywhere but share one optimal commitment.

    H = all 2^Z maps Z -> {0, 1} (Ldim = Z, growing without bound), yet committing to
    the leader's first action earns the maximum against both types, so SLdim = 0.
    Returns (game, H) with H of shape (2^Z, Z).
    """
    Z = check_int("n_contexts", n_contexts, minimum=1, maximum=MAX_HARMLESS_Z)
    # two leader actions, two follower actions; leader gets 1 on (0, *) and 0 on (1, *)
    U_L = np.tile(np.array([[1.0, 1.0], [0.0, 0.0]]), (Z, 1, 1))
    U_F = np.zeros((Z, 2, 2, 2))
    U_F[:, 0, :, 0] = 1.0  # type 0 always plays follower action 0
    U_F[:, 1, :, 1] = 1.0  # type 1 always plays follower action 1
    H = np.array(list(itertools.product(range(2), repeat=Z)), dtype=int)
    return StructuredStackelbergGame(U_L, U_F), H


def random_instance(rng, n_contexts: int = 4, n_types: int = 3, n_leader: int = 2, n_follower: int = 2,
                    n_hypotheses: int = 12) -> tuple[StructuredStackelbergGame, np.ndarray]:
    """Random bimatrix games per context (utilities U[0, 1]) and a random class of distinct maps Z -> [K].

    rng: numpy Generator (or a non-negative int seed). Returns (game, H), H of shape (n_hypotheses, n_contexts).
    """
    rng = as_rng("rng", rng)
    n_contexts = check_int("n_contexts", n_contexts, minimum=1)
    n_types = check_int("n_types", n_types, minimum=1)
    n_leader = check_int("n_leader", n_leader, minimum=1)
    n_follower = check_int("n_follower", n_follower, minimum=1)
    n_hypotheses = check_int("n_hypotheses", n_hypotheses, minimum=1)
    total = n_types ** n_contexts
    if total > MAX_RANDOM_CODES:
        raise ValueError(f"n_types ** n_contexts = {total} exceeds {MAX_RANDOM_CODES}: the class is drawn from "
                         f"all maps, so reduce n_types or n_contexts")
    if n_hypotheses > total:
        raise ValueError(f"n_hypotheses must be <= n_types**n_contexts = {total}, got {n_hypotheses}")
    U_L = rng.uniform(size=(n_contexts, n_leader, n_follower))
    U_F = rng.uniform(size=(n_contexts, n_types, n_leader, n_follower))
    codes = rng.choice(total, size=n_hypotheses, replace=False)
    H = np.array([[c // n_types ** z % n_types for z in range(n_contexts)] for c in codes], dtype=int)
    return StructuredStackelbergGame(U_L, U_F), H


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test (``tests/test_every_paper.py``)."""
    from icml26.decision.stackelberg.method import (
        SSOA, StackelbergLittlestone, play_sequence, tree_adversary, worst_case_regret)

    game, H = random_instance(np.random.default_rng(0), n_contexts=2, n_types=2, n_hypotheses=3)
    calc = StackelbergLittlestone(game, H)
    return [
        (permutation_instance, {"n": 3}),
        (harmless_instance, {"n_contexts": 3}),
        (random_instance, {"rng": 0, "n_contexts": 3, "n_types": 2, "n_leader": 2, "n_follower": 2,
                           "n_hypotheses": 4}),
        (StructuredStackelbergGame, {"U_L": game.U_L.copy(), "U_F": game.U_F.copy()}),
        (StackelbergLittlestone, {"game": game, "H": H}),
        (game.regret, {"z": 0, "x": np.array([0.5, 0.5]), "j": 1}),
        (game.minimax_commitment, {"z": 1, "types": [0, 1], "offsets": np.array([0.0, 0.1])}),
        (play_sequence, {"leader": SSOA(calc), "contexts": [0, 1, 0], "h_star": 1}),
        (tree_adversary, {"leader": SSOA(calc), "tol": 1e-9}),
        (worst_case_regret, {"calc": calc, "commit": SSOA(calc).commit}),
    ]
