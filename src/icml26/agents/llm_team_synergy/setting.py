"""Tasks, scripted team members and a DeGroot-style opinion model for the team-synergy harness.

* :data:`MOON_SURVIVAL`, :data:`LOST_AT_SEA`: the two human-teamwork ranking tasks with their
  published reference rankings (NASA's for Moon Survival, the US Coast Guard's for Lost at Sea),
  best item first. :func:`briefs` induces expertise as the paper does: one member is given the
  whole reference ranking (concentrated) or several members each get the reference order of a
  disjoint part of the items (distributed); the others get no information.
* :func:`qa_tasks`: offline stand-ins for the ML benchmarks: verifiable questions from
  :mod:`icml26.tasks.arithmetic`.
* :class:`ScriptedMember`: a member with planted behaviour (stubborn, deferring, averaging,
  adversarial) speaking the harness's message format; :class:`PlantedReporter` names the
  expert with probability ``q_id`` and, when it names the right one, adopts its answer with
  probability ``q_lev`` (else it averages) -- so identification and leveraging are known.
* :func:`degroot_sweep` (a model of the paper's explanation, not evidence about LLMs): n
  agents hold item scores, the expert near the truth; in each round x_i <- (1-s) x_i + s W x
  with W = (1-d)/n + d 1[j = perceived expert]; the perceived expert is right w.p. q. The
  pattern it shows is fixed by its parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from icml26.core.validate import as_rng, check_int

from .method import Message, borda, format_message, parse_message

MOON_SURVIVAL: tuple[str, ...] = (
    "two 100-lb tanks of oxygen", "5 gallons of water", "stellar map", "food concentrate",
    "solar-powered FM receiver-transmitter", "50 feet of nylon rope", "first aid kit with injection needles",
    "parachute silk", "self-inflating life raft", "signal flares", "two .45 calibre pistols",
    "one case of dehydrated milk", "portable heating unit", "magnetic compass", "box of matches")
LOST_AT_SEA: tuple[str, ...] = (
    "shaving mirror", "two-gallon can of oil-petrol mixture", "25 litres of water", "case of army rations",
    "20 square feet of opaque plastic", "two boxes of chocolate bars", "fishing kit", "15 feet of nylon rope",
    "floating seat cushion", "can of shark repellent", "bottle of 160-proof rum", "small transistor radio",
    "maps of the Pacific Ocean", "mosquito netting", "sextant")
TASKS = {"moon": MOON_SURVIVAL, "sea": LOST_AT_SEA}


def briefs(truth: tuple[str, ...], n_members: int, *, expertise: str = "concentrated", experts: int = 1,
           seed: int | np.random.Generator = 0) -> list[list[str] | None]:
    """Private information per member: the reference order of some items (``None``: nothing).

    ``concentrated``: member 0 gets the whole ranking. ``distributed``: members 0..experts-1
    each get the reference order of a disjoint random part of the items.
    """
    n_members = check_int("n_members", n_members, minimum=1)
    experts = check_int("experts", experts, minimum=1, maximum=n_members)
    if expertise not in ("concentrated", "distributed"):
        raise ValueError(f"expertise must be 'concentrated' or 'distributed', got {expertise!r}")
    out: list[list[str] | None] = [None] * n_members
    if expertise == "concentrated":
        out[0] = list(truth)
        return out
    rng = as_rng("seed", seed)
    parts = np.array_split(rng.permutation(len(truth)), experts)
    for i, part in enumerate(parts):
        keep = set(int(j) for j in part)
        out[i] = [t for j, t in enumerate(truth) if j in keep]
    return out


@dataclass(frozen=True)
class QATask:
    question: str
    answer: str


def qa_tasks(n: int, *, seed: int = 0, level: int = 2) -> list[QATask]:
    """``n`` verifiable questions (arithmetic) as offline stand-ins for MMLU-Pro/GPQA/MATH-500."""
    from icml26.tasks.arithmetic import arithmetic_problems

    return [QATask(f"Compute {p.prompt[:-1]}.", str(p.answer)) for p in arithmetic_problems(n, level=level, seed=seed)]


@dataclass
class ScriptedMember:
    """A member with planted behaviour, speaking the harness's message format.

    ``behaviour``: ``stubborn`` (repeats its own ranking), ``defer`` (adopts the first stated
    ranking of the named expert, or of the first member claiming expertise), ``average``
    (states the Borda aggregate of every member's first stated ranking), ``adversary``
    (repeats its own, typically reversed, ranking and claims expertise).
    """

    name: str
    ranking: list[str]
    behaviour: str = "stubborn"
    claims_expert: bool = False

    def __post_init__(self) -> None:
        if self.behaviour not in ("stubborn", "defer", "average", "adversary"):
            raise ValueError(f"behaviour must be stubborn, defer, average or adversary, got {self.behaviour!r}")
        if self.behaviour == "adversary":
            self.claims_expert = True

    def _answer(self, transcript: list[Message], named_expert: str | None) -> list[str]:
        firsts: dict[str, list[str]] = {}
        claimants: list[str] = []
        for who, text in transcript:
            msg = parse_message(text)
            if msg["ranking"] and who not in firsts:
                firsts[who] = msg["ranking"]
            if msg["claims_expert"] and who not in claimants:
                claimants.append(who)
        if self.behaviour == "defer":
            target = named_expert if named_expert is not None else (claimants[0] if claimants else None)
            if target is not None and target in firsts:
                return list(firsts[target])
            return list(self.ranking)
        if self.behaviour == "average" and self.name in firsts:  # opens with its own view, then averages
            return borda(list(firsts.values()))
        return list(self.ranking)

    def speak(self, task: str, transcript: list[Message], named_expert: str | None = None) -> str:
        return format_message(self._answer(transcript, named_expert), claims_expert=self.claims_expert)

    def report(self, task: str, transcript: list[Message], named_expert: str | None = None) -> str:
        claim = named_expert or next((w for w, t in transcript if parse_message(t)["claims_expert"]), None)
        return format_message(self._answer(transcript, named_expert), expert=claim)


@dataclass
class PlantedReporter:
    """The member who writes the team answer, with planted identification and leveraging rates."""

    name: str
    ranking: list[str]
    true_expert: str
    q_id: float
    q_lev: float
    seed: int | np.random.Generator = 0
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = as_rng("seed", self.seed)

    def speak(self, task: str, transcript: list[Message], named_expert: str | None = None) -> str:
        return format_message(self.ranking)

    def report(self, task: str, transcript: list[Message], named_expert: str | None = None) -> str:
        firsts: dict[str, list[str]] = {}
        for who, text in transcript:
            r = parse_message(text)["ranking"]
            if r and who not in firsts:
                firsts[who] = r
        others = [w for w in firsts if w != self.true_expert]
        right = named_expert == self.true_expert if named_expert is not None else self.rng.random() < self.q_id
        named = self.true_expert if right else str(self.rng.choice(others))
        if right and self.rng.random() < self.q_lev:
            return format_message(firsts[named], expert=named)
        return format_message(borda(list(firsts.values())), expert=named)


def degroot_sweep(*, ns=(2, 3, 4, 6, 8), ds=(0.0, 0.3, 0.7, 1.0), qs=(0.5, 1.0), items: int = 15,
                  instances: int = 200, rounds: int = 4, s: float = 0.5, expert_sd: float = 0.5,
                  other_sd: float = 3.0, adversary: bool = False, seed: int | np.random.Generator = 0) -> dict:
    """Mean ranking L1 of the team (and of the expert) for each (n, d, q) cell of the opinion model.

    Returns ``{"team": array (len(ns), len(ds), len(qs)), "expert": same}``. With ``adversary``
    the last agent reports the reversed truth and is perceived as the expert w.p. 1/2 when the
    perception is wrong.
    """
    from .method import ranking_l1

    rng = as_rng("seed", seed)
    team = np.zeros((len(ns), len(ds), len(qs)))
    expert = np.zeros_like(team)
    for a, n in enumerate(ns):
        for c, q in enumerate(qs):
            for _ in range(instances):
                truth = rng.normal(size=items)
                x = truth[None, :] + other_sd * rng.normal(size=(n, items))
                x[0] = truth + expert_sd * rng.normal(size=items)
                if adversary and n >= 2:
                    x[-1] = -truth
                right = rng.random() < q
                wrong = [j for j in range(1, n)]
                if adversary and n >= 2 and not right:
                    perceived = n - 1 if rng.random() < 0.5 else int(rng.choice(wrong))
                else:
                    perceived = 0 if right else (int(rng.choice(wrong)) if wrong else 0)
                order_true = list(np.argsort(-truth))
                expert_l1 = ranking_l1(list(np.argsort(-x[0])), order_true)
                for b, d in enumerate(ds):
                    W = np.full((n, n), (1 - d) / n)
                    W[:, perceived] += d
                    y = x.copy()
                    for _ in range(rounds):
                        y = (1 - s) * y + s * W @ y
                        if adversary and n >= 2:
                            y[-1] = -truth  # the adversary does not move
                    team[a, b, c] += ranking_l1(list(np.argsort(-y.mean(axis=0))), order_true) / instances
                    expert[a, b, c] += expert_l1 / instances
    return {"team": team, "expert": expert}
