"""Logged implicit feedback with missing negatives and a response-dependent action propensity.

The world of the ImplicitRM reproduction (arXiv:2603.23184). Each logged interaction is one
response with

* content features ``c: (d_c,)``: what a reward model judges; the true preference
  probability is ``p*(c) = sigmoid(u(c))`` with ``u`` the utility of a homogeneous
  ``_preferences.population`` user (rescaled to norm ``scale``), and ``R ~ Bernoulli(p*)``;
* presentation covariates ``s: (d_s,)`` (length, formatting, code blocks...), logged with the
  interaction and correlated with the content (``s_k = rho * sign_k * c_k + noise``);
* an action ``F`` (click / copy / like) or its absence.

Two generators of the action, reported side by side:

``separable`` (the assumptions the fitted ImplicitRM model makes): the action needs a
truly preferred response, ``F = R * A`` with ``A ~ Bernoulli(e*(s))`` and
``e*(s) = 0.05 + 0.85 sigmoid(w_e . s + b)``; ``w_e`` points so that the presentation that
draws actions goes with worse content (verbose answers get copied more), so a classifier of
``F`` ranks by ``p* e*`` and is biased.

``entangled`` (a world the model does not match): the propensity also depends on the content
direction that drives preference (``e*(s, c)``), and bad responses draw actions too, with
probability ``eps * e*`` (``F = R A + (1 - R) A'``).

Every sample also carries its true ``R`` and ``p*`` for evaluation only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import expit

from icml26.alignment._preferences import population
from icml26.core.validate import as_rng, check_int, check_positive

__all__ = ["ImplicitWorld", "make_world", "draw_feedback", "GENERATORS"]

GENERATORS = ("separable", "entangled")


@dataclass(frozen=True)
class ImplicitWorld:
    """The fixed parameters of one world: utility weights, propensity weights, correlations."""

    w_r: np.ndarray        # (d_c,) utility weights, norm ``scale``
    w_e: np.ndarray        # (d_s,) propensity weights on the presentation covariates
    b_e: float             # propensity offset
    signs: np.ndarray      # (d_s,) sign of the content -> presentation correlation
    rho: float             # content -> presentation correlation
    generator: str
    entangle: float        # weight of the content direction in the propensity (entangled only)
    eps: float             # action rate on bad responses, relative to e* (entangled only)

    @property
    def d_c(self) -> int:
        return len(self.w_r)

    @property
    def d_s(self) -> int:
        return len(self.w_e)

    def preference(self, c: np.ndarray) -> np.ndarray:
        """True P(R=1 | c): (n,)."""
        return expit(np.asarray(c, float) @ self.w_r)

    def propensity(self, s: np.ndarray, c: np.ndarray) -> np.ndarray:
        """True action propensity e*(s[, c]) in [0.05, 0.9]: (n,)."""
        z = np.asarray(s, float) @ self.w_e + self.b_e
        if self.generator == "entangled":
            z = z - self.entangle * (np.asarray(c, float) @ self.w_r) / np.linalg.norm(self.w_r)
        return 0.05 + 0.85 * expit(z)


def make_world(generator: str = "separable", *, d_c: int = 4, d_s: int = 3, scale: float = 3.0,
               rho: float = 0.6, tilt: float = 1.5, entangle: float = 1.0, eps: float = 0.15,
               seed: Any = 0) -> ImplicitWorld:
    """Draw a world. ``tilt`` sets how strongly action-drawing presentation goes with worse content."""
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {GENERATORS}, got {generator!r}")
    d_c = check_int("d_c", d_c, minimum=2)
    d_s = check_int("d_s", d_s, minimum=1, maximum=d_c)
    scale = check_positive("scale", scale)
    tilt = check_positive("tilt", tilt, strict=False)
    entangle = check_positive("entangle", entangle, strict=False)
    eps = check_positive("eps", eps, strict=False)
    if not (isinstance(rho, (int, float)) and 0 <= rho < 1):
        raise ValueError(f"rho must lie in [0, 1), got {rho!r}")
    rng = as_rng("seed", seed)
    pop = population(2, d_c, kind="homogeneous", seed=rng)  # the substrate's utility vector
    w_r = pop.users[0] / np.linalg.norm(pop.users[0]) * scale
    signs = rng.choice([-1.0, 1.0], size=d_s)
    # presentation that predicts worse content draws more actions: w_e ~ -(sign * w_r) + noise
    w_e = -tilt * signs * w_r[:d_s] / np.linalg.norm(w_r[:d_s]) + 0.3 * rng.standard_normal(d_s)
    return ImplicitWorld(w_r, w_e, -0.5, signs, float(rho), generator, float(entangle), float(eps))


def draw_feedback(world: ImplicitWorld, n: int, *, seed: Any = 0) -> dict[str, np.ndarray]:
    """``n`` logged interactions: c (n, d_c), s (n, d_s), F (n,), and for evaluation R, p_star, e_star."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    c = rng.standard_normal((n, world.d_c))
    s = world.rho * world.signs * c[:, :world.d_s] + np.sqrt(1 - world.rho ** 2) * rng.standard_normal((n, world.d_s))
    p = world.preference(c)
    e = world.propensity(s, c)
    R = (rng.random(n) < p).astype(float)
    A = (rng.random(n) < e).astype(float)
    F = R * A
    if world.generator == "entangled":
        F = np.maximum(F, (1 - R) * (rng.random(n) < world.eps * e))
    return {"c": c, "s": s, "F": F, "R": R, "p_star": p, "e_star": e}
