"""The team-discussion harness and metrics of "Multi-Agent Teams Hold Experts Back" (arXiv:2602.01011).

Protocol (Sec. 3 of the paper, as far as it is public): heterogeneous members discuss a task
freely for several rounds with no roles or aggregation rule, then the team gives one answer.
Conditions: expert unknown vs named; team size; one adversarial member. Here:

* :func:`run_discussion`: members speak in turn for ``rounds`` rounds (round 0 = each
  member's own position), then the first member writes the team's answer and names the
  member whose information the team relied on. Members are anything with
  ``speak(task, transcript, named_expert) -> str`` and ``report(...) -> str``: scripted members
  with planted behaviour (:mod:`.setting`) or :class:`ChatMember` on any OpenAI-compatible
  endpoint (:class:`icml26.agents.policy.ChatClient`), mixed freely.
* Messages carry the answer on one line, ``RANKING: a > b > ...`` (or ``ANSWER: x``), an
  optional ``EXPERT: name`` and ``CLAIM: I hold reference information``.

Metrics:

* :func:`ranking_l1`: sum over items of |position in the answer - position in the reference|
  (the paper's L1 error). A uniformly random ranking of m items has mean L1 (m^2 - 1)/3.
* :func:`synergy_gap`: strong synergy means team >= best member. For accuracy the gap is
  (best - team)/best (the paper's relative gap). For a loss such as L1 the paper's
  normalisation was not reachable; ours is (team - best)/(chance - best), the share of the best
  member's advantage over a random answer that the team gives away (0: matches the expert,
  1: no better than chance).
* :func:`at_least_one_correct`: the oracle upper bound (a question counts if any member is right).
* :func:`identification_leveraging`: identification = P(the team names the true expert);
  leveraging = P(the team's answer is the expert's | the expert was named).
* :data:`RUBRIC`, :func:`code_discussion`, :func:`rule_coder`, :func:`agreement`: coding each
  discussion as epistemic deference vs integrative compromise (by an LLM judge with the
  rubric, or by the rule coder for scripted teams) and Krippendorff's alpha between coders
  (``krippendorff``). The rubric is our wording of the paper's two categories.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.core.validate import check_int

Message = tuple[str, str]  # (speaker, text)

_RANK = re.compile(r"^\s*RANKING\s*:\s*(.+)$", re.I | re.M)
_ANS = re.compile(r"^\s*ANSWER\s*:\s*(.+)$", re.I | re.M)
_EXP = re.compile(r"^\s*EXPERT\s*:\s*(.+)$", re.I | re.M)
_CLAIM = re.compile(r"^\s*CLAIM\s*:", re.I | re.M)


# ----------------------------------------------------------------------------- message format
def format_message(ranking: Sequence[str] | None = None, *, answer: str | None = None, expert: str | None = None,
                   claims_expert: bool = False, text: str = "") -> str:
    """A message in the harness format (free text first, then the tagged lines)."""
    lines = [text] if text else []
    if ranking is not None:
        lines.append("RANKING: " + " > ".join(ranking))
    if answer is not None:
        lines.append(f"ANSWER: {answer}")
    if expert is not None:
        lines.append(f"EXPERT: {expert}")
    if claims_expert:
        lines.append("CLAIM: I hold reference information")
    return "\n".join(lines)


def parse_message(text: str) -> dict[str, Any]:
    """``{"ranking": list|None, "answer": str|None, "expert": str|None, "claims_expert": bool}`` (last tags win)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    r = _RANK.findall(text)
    a = _ANS.findall(text)
    e = _EXP.findall(text)
    return {"ranking": [s.strip() for s in r[-1].split(">") if s.strip()] if r else None,
            "answer": a[-1].strip() if a else None,
            "expert": e[-1].strip() if e else None,
            "claims_expert": bool(_CLAIM.search(text))}


def complete_ranking(ranking: Sequence[str] | None, items: Sequence[str]) -> list[str]:
    """A stated ranking made a permutation of ``items``: unknown names dropped, repeats kept once,
    missing items appended in ``items`` order (a lenient reading of an LLM's answer)."""
    known = {s.lower(): s for s in items}
    out: list[str] = []
    for s in ranking or []:
        s2 = known.get(s.strip().lower())
        if s2 is not None and s2 not in out:
            out.append(s2)
    return out + [s for s in items if s not in out]


# ----------------------------------------------------------------------------- metrics
def ranking_l1(ranking: Sequence[Any], truth: Sequence[Any]) -> int:
    """Sum over items of |position in ``ranking`` - position in ``truth``| (both permutations of the same items)."""
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, Sequence):
        raise TypeError(f"ranking must be a sequence of items, got {type(ranking).__name__}")
    if isinstance(truth, (str, bytes)) or not isinstance(truth, Sequence):
        raise TypeError(f"truth must be a sequence of items, got {type(truth).__name__}")
    if len(truth) == 0:
        raise ValueError("truth is empty")
    if sorted(map(str, ranking)) != sorted(map(str, truth)) or len(set(map(str, ranking))) != len(ranking):
        raise ValueError("ranking must be a permutation of the items of truth")
    pos = {str(x): i for i, x in enumerate(truth)}
    return int(sum(abs(i - pos[str(x)]) for i, x in enumerate(ranking)))


def random_l1_mean(m: int) -> float:
    """Mean L1 of a uniformly random ranking of ``m`` items against a fixed one: (m^2 - 1) / 3."""
    m = check_int("m", m, minimum=1)
    return (m * m - 1) / 3


def borda(rankings: Sequence[Sequence[str]]) -> list[str]:
    """Items ordered by mean position over ``rankings`` (ties: first ranking's order) -- integrative averaging."""
    if not rankings:
        raise ValueError("rankings is empty")
    first = list(rankings[0])
    for r in rankings:
        if sorted(r) != sorted(first):
            raise ValueError("rankings must all be permutations of the same items")
    mean = {x: float(np.mean([list(r).index(x) for r in rankings])) for x in first}
    return sorted(first, key=lambda x: (mean[x], first.index(x)))


def _number(name: str, x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__} {x!r}")
    v = float(x)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return v


def synergy_gap(team: float, best: float, *, kind: str = "accuracy", chance: float | None = None) -> float:
    """Relative shortfall of the team against its best member (0: strong synergy reached; < 0: beyond it).

    ``kind='accuracy'``: (best - team) / best. ``kind='loss'``: (team - best) / (chance - best),
    with ``chance`` the loss of a random answer (see module docstring).
    """
    team, best = _number("team", team), _number("best", best)
    if kind == "accuracy":
        if best <= 0:
            raise ValueError(f"best must be > 0 for an accuracy gap, got {best!r}")
        return (best - team) / best
    if kind == "loss":
        if chance is None:
            raise ValueError("chance is required for kind='loss'")
        chance = _number("chance", chance)
        if chance <= best:
            raise ValueError(f"chance must exceed best for a loss gap, got chance={chance!r}, best={best!r}")
        return (team - best) / (chance - best)
    raise ValueError(f"kind must be 'accuracy' or 'loss', got {kind!r}")


def at_least_one_correct(correct: Any) -> float:
    """Fraction of questions that at least one member answers correctly; ``correct``: (members, questions) bools."""
    c = np.asarray(correct)
    if c.dtype == object or c.ndim != 2 or c.size == 0:
        raise ValueError(f"correct must be a non-empty (members, questions) boolean array, got shape {c.shape}")
    if not np.isin(c, (0, 1)).all():
        raise ValueError("correct must hold only booleans / 0 / 1")
    return float(c.astype(bool).any(axis=0).mean())


def identification_leveraging(named: Sequence[str], expert: Sequence[str], followed: Sequence[bool]
                              ) -> dict[str, float]:
    """Identification rate P(named == expert) and leveraging rate P(followed | named == expert).

    ``followed[t]``: the team's answer on task t equals the true expert's answer.
    """
    if not (len(named) == len(expert) == len(followed)) or len(named) == 0:
        raise ValueError("named, expert and followed must be non-empty and of equal length")
    hit = np.array([a == b for a, b in zip(named, expert)])
    f = np.asarray(followed, dtype=bool)
    return {"identification": float(hit.mean()), "n": float(hit.size), "n_identified": float(hit.sum()),
            "leveraging": float(f[hit].mean()) if hit.any() else float("nan")}


# ----------------------------------------------------------------------------- the discussion
def run_discussion(members: Sequence[Any], task: str, *, rounds: int = 3, named_expert: str | None = None
                   ) -> dict[str, Any]:
    """Free-form discussion: ``rounds`` rounds of every member speaking in turn, then the team answer.

    Returns ``transcript`` (list of (name, text)), ``team`` (the reporter's message parsed),
    ``team_text`` and ``initial`` (each member's round-0 message parsed).
    """
    if not members:
        raise ValueError("members is empty")
    for m in members:
        if not (hasattr(m, "speak") and hasattr(m, "report") and hasattr(m, "name")):
            raise TypeError("members must have name, speak(task, transcript, named_expert) and report(...)")
    if not isinstance(task, str) or not task:
        raise ValueError("task must be a non-empty prompt string")
    rounds = check_int("rounds", rounds, minimum=1)
    names = [m.name for m in members]
    if named_expert is not None and named_expert not in names:
        raise ValueError(f"named_expert must be one of {names}, got {named_expert!r}")
    transcript: list[Message] = []
    for _ in range(rounds):
        for m in members:
            transcript.append((m.name, str(m.speak(task, list(transcript), named_expert))))
    team_text = str(members[0].report(task, list(transcript), named_expert))
    initial = {name: parse_message(text) for name, text in transcript[:len(members)]}
    return {"transcript": transcript, "team": parse_message(team_text), "team_text": team_text, "initial": initial}


@dataclass
class ChatMember:
    """A team member served by an OpenAI-compatible endpoint (``client``: :class:`icml26.agents.policy.ChatClient`)."""

    name: str
    client: Any
    brief: str = ""
    style: str = ""

    def _system(self, task: str) -> str:
        return (f"You are {self.name}, one member of a team solving a task together by free discussion. "
                f"{self.style} Task: {task} "
                "Whenever you state your current answer, put it on its own line as 'RANKING: item > item > ...' "
                "(best first, every item, names exactly as given) or 'ANSWER: ...'. If you hold reference "
                "information, you may add a line 'CLAIM: I hold reference information'.")

    def _messages(self, task: str, transcript: list[Message]) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": self._system(task)}]
        if self.brief:
            msgs.append({"role": "user", "content": f"Private information for you only: {self.brief}"})
        conv = "\n\n".join(f"[{w}]: {t}" for w, t in transcript) or "(nobody has spoken yet)"
        msgs.append({"role": "user", "content": f"Discussion so far:\n{conv}"})
        return msgs

    def speak(self, task: str, transcript: list[Message], named_expert: str | None = None) -> str:
        msgs = self._messages(task, transcript)
        if named_expert is not None:
            msgs.append({"role": "user", "content": f"Note: {named_expert} is the team's expert on this task."})
        msgs.append({"role": "user", "content": "Your turn: reply to the team."})
        return self.client.complete(msgs)

    def report(self, task: str, transcript: list[Message], named_expert: str | None = None) -> str:
        msgs = self._messages(task, transcript)
        msgs.append({"role": "user", "content": "The discussion is over. Write the team's final answer as one "
                     "RANKING: or ANSWER: line, then 'EXPERT: <name>' naming the member whose information the "
                     "team relied on most."})
        return self.client.complete(msgs)


# ----------------------------------------------------------------------------- coding conversations
RUBRIC = (
    "Read a team discussion and its final answer. Label it DEFERENCE if the final answer adopts one member's "
    "position because that member is recognised as holding better information (epistemic deference). Label it "
    "COMPROMISE if the final answer blends, averages or splits the difference between members' positions "
    "(integrative compromise). Otherwise label it OTHER. Reply with the one label.")
LABELS = ("DEFERENCE", "COMPROMISE", "OTHER")


def code_discussion(result: dict[str, Any], coder: Callable[[str], str] | Any) -> str:
    """The label a coder gives one discussion; ``coder``: a callable on the prompt, or a ChatClient."""
    conv = "\n\n".join(f"[{w}]: {t}" for w, t in result["transcript"])
    prompt = f"{RUBRIC}\n\nDiscussion:\n{conv}\n\nFinal answer:\n{result['team_text']}"
    if hasattr(coder, "complete"):
        reply = coder.complete([{"role": "user", "content": prompt}])
    elif callable(coder):
        reply = coder(prompt)
    else:
        raise TypeError("coder must be callable or have complete(messages)")
    up = str(reply).upper()
    return next((lab for lab in LABELS if lab in up), "OTHER")


def rule_coder(result: dict[str, Any]) -> str:
    """For ranking tasks: DEFERENCE if the team answer is some member's first ranking, COMPROMISE if it is their
    Borda average and no member's, else OTHER."""
    team = result["team"]["ranking"]
    firsts = [m["ranking"] for m in result["initial"].values() if m["ranking"]]
    if team is None or not firsts:
        return "OTHER"
    if any(list(team) == list(r) for r in firsts):
        return "DEFERENCE"
    if list(team) == borda(firsts):
        return "COMPROMISE"
    return "OTHER"


def agreement(codes: Sequence[Sequence[str]]) -> float:
    """Krippendorff's alpha (nominal) between coders; ``codes``: (coders, units) labels from :data:`LABELS`."""
    import krippendorff

    if len(codes) < 2 or any(len(c) != len(codes[0]) for c in codes) or len(codes[0]) == 0:
        raise ValueError("codes must be (coders >= 2, units >= 1) labels of equal length")
    idx = {lab: i for i, lab in enumerate(LABELS)}
    data = np.array([[idx[c] if c in idx else np.nan for c in row] for row in codes], dtype=float)
    if len(np.unique(data[np.isfinite(data)])) < 2:
        return 1.0 if np.isfinite(data).all() else float("nan")  # one category: perfect agreement by convention
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def EXAMPLES():
    """(public function, good keyword arguments) pairs for the common bad-input test."""
    return [
        (synergy_gap, {"team": 0.6, "best": 0.8}),
        (synergy_gap, {"team": 10.0, "best": 2.0, "kind": "loss", "chance": 74.0}),
        (random_l1_mean, {"m": 15}),
        (at_least_one_correct, {"correct": np.array([[1.0, 0.0], [0.0, 0.0]])}),
    ]
