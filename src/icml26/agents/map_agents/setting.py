"""The simulated world of the illustrative reliability table: agents running step chains.

Not a paper claim. An agent runs ``k`` steps, each right with probability ``p``
independently; a human checkpoint closes every block of ``h`` steps and, if the block holds
an error, catches and repairs it with probability ``c``. :func:`simulate_chain` draws such
runs; :func:`icml26.agents.map_agents.method.chain_success` is the closed form it must match.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_rng, check_int

from .method import _prob


def simulate_chain(p: float, k: int, *, h: int | None = None, c: float = 0.0, draws: int = 10_000,
                   seed: int | np.random.Generator = 0) -> float:
    """Monte Carlo fraction of ``draws`` k-step runs that end correct (see module docstring)."""
    p, c = _prob("p", p), _prob("c", c)
    k = check_int("k", k, minimum=1)
    draws = check_int("draws", draws, minimum=1)
    rng = as_rng("seed", seed)
    ok = rng.random((draws, k)) < p
    if h is None:  # no checkpoints: c plays no part, as in chain_success
        return float(ok.all(axis=1).mean())
    h = check_int("h", h, minimum=1)
    good = np.ones(draws, dtype=bool)
    for start in range(0, k, h):
        clean = ok[:, start:start + h].all(axis=1)
        caught = rng.random(draws) < c if c > 0 else np.zeros(draws, dtype=bool)
        good &= clean | caught
    return float(good.mean())
