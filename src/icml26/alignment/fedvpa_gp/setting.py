"""The simulated federation for FedVPA-GP (arXiv:2605.30873): two conflicting user types.

Stands in for HH-RLHF split over clients (helpful vs harmless raters):

* items ``x ~ N(0, I_p)`` (``p = 12``) are responses; a fixed random two-layer tanh map
  ``phi: R^p -> R^h`` (``h = 64``) stands in for the frozen LLM's hidden state at the
  answer token, so a pair's feature is ``Delta h = phi(x_chosen) - phi(x_rejected)``;
* two user types share an agreement direction ``w_a`` and disagree on a conflict direction
  ``w_c`` (orthogonal, unit norm): ``u_1 = s (w_a + w_c)^T x`` and ``u_2 = s (w_a - w_c)^T x``
  with BT scale ``s = 3``. The types are a two-type mixture ``Population`` of
  :mod:`icml26.alignment._preferences` and labels are drawn by its ``pairwise_comparisons``;
* each client holds one type (60/40 split), ``n_train`` noisy training pairs, and two
  test sets judged against its type's *true* preference (the sign of the utility gap):
  50 random pairs and 50 *conflict* pairs, on which the two types disagree.

A monolithic reward must average the types, so on conflict pairs it is right for one type
and wrong for the other: about 0.6 accuracy at best with a 60/40 split.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.alignment._preferences import Population, pairwise_comparisons
from icml26.core.validate import as_rng, check_int, check_positive

__all__ = ["Federation", "Client", "make_federation", "embed", "type_population"]


@dataclass(frozen=True)
class Client:
    """One client's data. Pairs are item indices ``(n, 2)`` ordered (chosen, rejected) for
    training; test pairs ``(m, 2)`` ordered (preferred, other) by the client's true utility."""

    kind: int            # user type, 0 or 1
    train: np.ndarray    # (n_train, 2) chosen, rejected (noisy BT labels)
    test: np.ndarray     # (n_test, 2) true preferred first, random pairs
    conflict: np.ndarray  # (n_test, 2) true preferred first, pairs on which the types disagree


@dataclass(frozen=True)
class Federation:
    items: np.ndarray     # (n_items, p)
    h: np.ndarray         # (n_items, hdim) frozen embeddings phi(items)
    utilities: np.ndarray  # (2, n_items) true utilities of the two types
    clients: list         # list[Client]

    @property
    def kinds(self) -> np.ndarray:
        return np.array([c.kind for c in self.clients])


def embed(x: np.ndarray, hdim: int = 64, *, seed: int = 0) -> np.ndarray:
    """The frozen random feature map ``phi(x) = tanh(W2 tanh(W1 x + b1))``: ``(n, p) -> (n, hdim)``."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.size == 0:
        raise ValueError(f"x must be a non-empty (n, p) array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or inf")
    hdim = check_int("hdim", hdim, minimum=1)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0) + 7919)
    p = x.shape[1]
    W1 = rng.standard_normal((p, 2 * hdim)) / np.sqrt(p)
    b1 = 0.1 * rng.standard_normal(2 * hdim)
    W2 = rng.standard_normal((2 * hdim, hdim)) / np.sqrt(2 * hdim)
    return np.tanh(np.tanh(x @ W1 + b1) @ W2 * 1.5)


def type_population(items: np.ndarray, w_a: np.ndarray, w_c: np.ndarray, scale: float) -> Population:
    """The two conflicting types as a ``_preferences`` mixture population (users ``s (w_a +- w_c)``)."""
    users = scale * np.stack([w_a + w_c, w_a - w_c])
    return Population(items=items, users=users, weights=np.array([0.5, 0.5]))


def _true_pairs(rng, util: np.ndarray, n: int, mask_pairs: np.ndarray | None = None) -> np.ndarray:
    """``n`` pairs ordered by ``util`` (ties dropped); drawn from ``mask_pairs`` if given."""
    if mask_pairs is None:
        i = rng.integers(0, util.size, size=n)
        j = (i + rng.integers(1, util.size, size=n)) % util.size
    else:
        k = rng.integers(0, len(mask_pairs), size=n)
        i, j = mask_pairs[k, 0], mask_pairs[k, 1]
    swap = util[i] < util[j]
    return np.stack([np.where(swap, j, i), np.where(swap, i, j)], axis=1)


def make_federation(n_clients: int = 40, n_train: int = 8, *, n_test: int = 50, n_items: int = 400,
                    p: int = 12, hdim: int = 64, scale: float = 3.0, frac_type0: float = 0.6,
                    seed: int = 0) -> Federation:
    """Draw a federation: items, the frozen embedding, two types and ``n_clients`` clients.

    Client ``k`` is of type 0 for ``k < round(frac_type0 * n_clients)`` (then 1); every client
    draws ``n_train`` noisy BT comparisons from its type alone, plus clean test sets.
    """
    n_clients = check_int("n_clients", n_clients, minimum=2)
    n_train = check_int("n_train", n_train, minimum=1)
    n_test = check_int("n_test", n_test, minimum=1)
    n_items = check_int("n_items", n_items, minimum=4)
    p = check_int("p", p, minimum=2)
    scale = check_positive("scale", scale)
    frac_type0 = check_positive("frac_type0", frac_type0)
    if frac_type0 >= 1:
        raise ValueError(f"frac_type0 must lie in (0, 1), got {frac_type0}")
    rng = as_rng("seed", seed)
    items = rng.standard_normal((n_items, p))
    q, _ = np.linalg.qr(rng.standard_normal((p, 2)))
    w_a, w_c = q[:, 0], q[:, 1]
    pop = type_population(items, w_a, w_c, scale)
    util = pop.utilities()                                  # (2, n_items)
    gap = util[0][:, None] - util[0][None, :]
    gap2 = util[1][:, None] - util[1][None, :]
    conflict_pairs = np.argwhere((gap * gap2 < 0) & (np.triu(np.ones_like(gap), 1) > 0))
    n0 = int(round(frac_type0 * n_clients))
    clients = []
    for k in range(n_clients):
        kind = 0 if k < n0 else 1
        single = Population(items=items, users=pop.users[kind:kind + 1], weights=np.ones(1))
        i, j, y = pairwise_comparisons(single, n_train, seed=rng)
        train = np.stack([np.where(y > 0, i, j), np.where(y > 0, j, i)], axis=1)
        clients.append(Client(kind=kind, train=train,
                              test=_true_pairs(rng, util[kind], n_test),
                              conflict=_true_pairs(rng, util[kind], n_test, conflict_pairs)))
    return Federation(items=items, h=embed(items, hdim, seed=int(rng.integers(0, 2**31))),
                      utilities=util, clients=clients)
