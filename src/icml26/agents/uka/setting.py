"""The simulated emotional-support world for UKA (arXiv:2605.29715), replacing LLM user simulators.

The paper trains and tests against GPT-4o / DeepSeek-V3 user simulators on ESConv, ExTES and
Sentient-Eval, with an emotion score from a critic. Here a user is a hidden **need**
(validation, advice, information, distraction, space) drawn given an observable **scenario**;
the assistant answers with one of the eight ESConv support **strategies**; the emotion score
moves by ``delta = M[need, strategy] + N(0, sigma)``, with ``M`` a random compatibility matrix
drawn per seed (two helpful strategies and one harmful one per need). The user's text reply
is one of a few **reply types** whose distribution depends weakly on the need and strongly on
the sign of the emotion change, so a reply is weak evidence of the need (what the LLM reads
from the user's words). The episode ends when the emotion exceeds 0.5 (success) or after 8
assistant turns, as in the paper's protocol.

The assistant's own imperfect Theory of Mind (what an LLM predicts a user with a given profile
would do) is ``M_hat = M + N(0, tom_noise)``; its reply model is the true likelihood (an LLM
reads text well). Its prior over strategies (what an untuned LLM says by default) is a
softmax of random logits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_rng, check_int, check_positive

NEEDS = ("validation", "advice", "information", "distraction", "space")
STRATEGIES = ("question", "restatement or paraphrasing", "reflection of feelings", "self-disclosure",
              "affirmation and reassurance", "providing suggestions", "information", "others")
SCENARIOS = ("job loss", "breakup", "exam stress", "family conflict", "loneliness", "health worry",
             "money trouble", "grief")
REPLIES = ("vents more", "asks what to do", "asks for facts", "changes the subject", "short answer",
           "says thanks", "pushes back", "goes quiet", "shares a detail", "laughs a little",
           "repeats the worry", "agrees")
REACTIONS = ("negative", "nochange", "positive")  # index = sign(delta) + 1

SUCCESS_EMOTION = 0.5
START_EMOTION = -0.5
NOCHANGE_BAND = 0.05  # |delta| below this reads as "no change"


@dataclass(frozen=True)
class World:
    """One seed's world. Shapes: ``M``, ``M_hat`` (needs, strategies); ``need_given_scenario``
    (scenarios, needs); ``reply_logp`` (needs, 3 reactions, replies) log-probabilities;
    ``open_logp`` (needs, replies); ``reply_emb`` (replies, d); ``prior`` (strategies,)."""

    M: np.ndarray
    M_hat: np.ndarray
    need_given_scenario: np.ndarray
    reply_logp: np.ndarray
    open_logp: np.ndarray
    reply_emb: np.ndarray
    prior: np.ndarray
    sigma: float

    @property
    def n_needs(self) -> int:
        return self.M.shape[0]

    @property
    def n_strategies(self) -> int:
        return self.M.shape[1]

    @property
    def n_scenarios(self) -> int:
        return self.need_given_scenario.shape[0]


def _log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    x = x - x.max(axis=axis, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=axis, keepdims=True))


def make_world(seed: int | np.random.Generator, *, evidence: float = 0.8, tom_noise: float = 0.15,
               sigma: float = 0.1, emb_dim: int = 8) -> World:
    """Draw a world: compatibility ``M`` (2 helpful strategies at +0.22..0.32 and one harmful at
    -0.2 per need, the rest N(-0.05, 0.08)), scenario-to-need prior Dirichlet(0.7), reply model
    ``log p(reply | need, reaction) = log softmax(evidence * A[need] + 2 B[reaction])``."""
    rng = as_rng("seed", seed)
    check_positive("evidence", evidence, strict=False)
    check_positive("tom_noise", tom_noise, strict=False)
    check_positive("sigma", sigma, strict=False)
    check_int("emb_dim", emb_dim, minimum=1)
    n_need, n_strat, n_scen, n_rep = len(NEEDS), len(STRATEGIES), len(SCENARIOS), len(REPLIES)
    M = rng.normal(-0.05, 0.08, size=(n_need, n_strat))
    for n in range(n_need):
        s = rng.permutation(n_strat)
        M[n, s[:2]] = rng.uniform(0.22, 0.32, size=2)
        M[n, s[2]] = -0.2
    M_hat = M + rng.normal(0.0, tom_noise, size=M.shape)
    need_given_scenario = rng.dirichlet(np.full(n_need, 0.7), size=n_scen)
    A = rng.normal(size=(n_need, n_rep))
    B = rng.normal(size=(3, n_rep))
    reply_logp = _log_softmax(evidence * A[:, None, :] + 2.0 * B[None, :, :])
    open_logp = _log_softmax(evidence * A + 2.0 * B[1][None, :])
    reply_emb = rng.normal(size=(n_rep, emb_dim))
    reply_emb /= np.linalg.norm(reply_emb, axis=1, keepdims=True)
    prior = np.exp(_log_softmax(rng.normal(0.0, 0.5, size=n_strat)))
    return World(M, M_hat, need_given_scenario, reply_logp, open_logp, reply_emb, prior, float(sigma))


def reaction_of(delta: float) -> int:
    """0 negative, 1 no change, 2 positive (the code's < negative > / < nochange > / < positive >)."""
    return 1 if abs(delta) < NOCHANGE_BAND else (2 if delta > 0 else 0)


class SimulatedUser:
    """A user with a hidden need; ``opening()`` gives the first utterance, ``respond(s)`` the
    emotion change and the reply type after the assistant plays strategy ``s``."""

    def __init__(self, world: World, scenario: int, need: int, rng: np.random.Generator):
        self.world, self.scenario, self.need, self.rng = world, int(scenario), int(need), rng
        self.emotion = START_EMOTION + float(rng.normal(0.0, 0.05))

    @classmethod
    def draw(cls, world: World, rng: np.random.Generator) -> SimulatedUser:
        scenario = int(rng.integers(world.n_scenarios))
        need = int(rng.choice(world.n_needs, p=world.need_given_scenario[scenario]))
        return cls(world, scenario, need, rng)

    def opening(self) -> int:
        return int(self.rng.choice(self.world.open_logp.shape[1], p=np.exp(self.world.open_logp[self.need])))

    def respond(self, strategy: int, *, commit: bool = True) -> tuple[float, int]:
        """``(delta, reply)``; with ``commit=False`` the emotion is left unchanged (a retried turn)."""
        delta = float(self.world.M[self.need, strategy] + self.rng.normal(0.0, self.world.sigma))
        new = float(np.clip(self.emotion + delta, -1.0, 1.0))
        delta = new - self.emotion
        if commit:
            self.emotion = new
        p = np.exp(self.world.reply_logp[self.need, reaction_of(delta)])
        return delta, int(self.rng.choice(p.size, p=p))

    @property
    def satisfied(self) -> bool:
        return self.emotion > SUCCESS_EMOTION
