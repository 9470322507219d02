"""Verifiable arithmetic with exact answers, difficulty levels and scratchpads.

Level ``d`` draws an expression of ``d + 1`` operands combined left to right with ``+``,
``-`` and (from level 2) ``*``; operands grow with the level. The scratchpad writes each
intermediate result (``3+4=7;7*2=14``), the answer is the last one. Answers are integers, so
a completion is checked exactly (:func:`is_correct`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_rng, check_int

_NUM = re.compile(r"-?\d+")


@dataclass(frozen=True)
class ArithmeticProblem:
    operands: tuple[int, ...]
    ops: tuple[str, ...]
    level: int

    @property
    def prompt(self) -> str:
        expr = str(self.operands[0]) + "".join(f"{o}{x}" for o, x in zip(self.ops, self.operands[1:]))
        return f"{expr}="

    def steps(self) -> list[tuple[int, str, int, int]]:
        """(left, op, right, result) of each left-to-right step."""
        acc, out = self.operands[0], []
        for o, x in zip(self.ops, self.operands[1:]):
            new = acc + x if o == "+" else acc - x if o == "-" else acc * x
            out.append((acc, o, x, new))
            acc = new
        return out

    @property
    def answer(self) -> int:
        return self.steps()[-1][3] if self.ops else self.operands[0]

    @property
    def scratchpad(self) -> str:
        return ";".join(f"{a}{o}{b}={r}" for a, o, b, r in self.steps()) + f";#{self.answer}"


def arithmetic_problems(n: int, *, level: int | tuple[int, ...] = 1, seed: int | np.random.Generator = 0
                        ) -> list[ArithmeticProblem]:
    """``n`` problems at ``level`` (1..4), or spread over several levels."""
    n = check_int("n", n, minimum=1)
    levels = (level,) if isinstance(level, (int, np.integer)) and not isinstance(level, bool) else tuple(level)
    if not levels:
        raise ValueError("level must name at least one level")
    for lv in levels:
        check_int("level", lv, minimum=1, maximum=4)
    rng = as_rng("seed", seed)
    out = []
    for i in range(n):
        lv = int(levels[i % len(levels)])
        hi = (10, 20, 50, 100)[lv - 1]
        k = lv + 1
        operands = tuple(int(x) for x in rng.integers(0, hi, size=k))
        allowed = ("+", "-") if lv == 1 else ("+", "-", "*")
        ops = tuple(allowed[int(j)] for j in rng.integers(0, len(allowed), size=k - 1))
        out.append(ArithmeticProblem(operands, ops, lv))
    return out


def extract_answer(text: str) -> int | None:
    """The answer a completion gives: the number after the last ``#``, else the last number, else None."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if "#" in text:
        m = _NUM.search(text.rsplit("#", 1)[1])
        if m:
            return int(m.group())
    nums = _NUM.findall(text)
    return int(nums[-1]) if nums else None


def is_correct(text: str, problem: ArithmeticProblem) -> bool:
    return extract_answer(text) == problem.answer
