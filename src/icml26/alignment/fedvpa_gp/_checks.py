"""FedVPA-GP's pass rule ("above the control by >= m in >= 4/5 seeds") is the shared count rule
:func:`icml26.core.checks.beats_in_seeds`; kept under its old name for the paper's declaration."""

from __future__ import annotations

from icml26.core.checks import beats_in_seeds as seeds_beat

__all__ = ["seeds_beat"]
