"""The reported findings of MAP (arXiv:2512.04123), as frozen, typed records.

Nothing here is measured by us: each record is a number the paper prints, with the
population it is stated (or likely) to describe, the version it was read from and where.
Populations: ``survey`` (306 respondents, arXiv v3 abstract), ``survey-deployed`` (86
practitioners with deployed systems, the ICML/earlier abstract), ``interviews`` (20 case
studies), ``unknown``. ``n`` is set only where the text states the denominator (the
"of interview cases" / "of detailed case studies" findings); otherwise it is ``None`` and
no interval is computed, only the granularity check of which stated denominators can give
the printed percentage.

Sources read: the arXiv v3 HTML abstract (306 respondents, 20 case studies, 26 domains;
68 / 70 / 74 %), the ICML-listing abstract (the same three numbers with "86 deployed
systems practitioners"), and the RQ2/RQ3 summary text of the paper as quoted by public
paper notes (79 %, 85 %, 47 %, 80 %, 52 %, 75 %, 73 %, 64-72 %, 66 %, 93 %). Section labels
are the research question the number answers; page/figure numbers were not reachable.
"""

from __future__ import annotations

from dataclasses import dataclass

POPULATIONS: dict[str, int | None] = {"survey": 306, "survey-deployed": 86, "interviews": 20, "unknown": None}
#: the denominators the paper states anywhere; the granularity check tries each
STATED_DENOMINATORS: tuple[int, ...] = (306, 86, 20)


@dataclass(frozen=True)
class Finding:
    """One printed statistic. ``percent`` is as printed (integer percent unless stated)."""

    key: str
    statistic: str
    percent: float
    population: str
    n: int | None
    version: str
    section: str
    alt_percent: float | None = None  # the other version's / summary's number where they disagree
    most: bool = False  # the paper reads it as "most"/a majority

    def __post_init__(self) -> None:
        if self.population not in POPULATIONS:
            raise ValueError(f"population must be one of {sorted(POPULATIONS)}, got {self.population!r}")
        if not 0 <= self.percent <= 100:
            raise ValueError(f"percent must lie in [0, 100], got {self.percent!r}")
        if self.n is not None and self.n < 1:
            raise ValueError(f"n must be >= 1 or None, got {self.n!r}")


FINDINGS: tuple[Finding, ...] = (
    Finding("steps_le_10", "production agents executing at most 10 steps before human intervention", 68,
            "unknown", None, "v3 abstract; ICML abstract", "RQ2 (how agents are built)", most=True),
    Finding("steps_lt_5", "production agents executing fewer than 5 steps before human intervention", 47,
            "unknown", None, "v1 text via paper notes", "RQ2"),
    Finding("off_the_shelf", "interview cases prompting off-the-shelf models without weight tuning", 70,
            "interviews", 20, "v3 abstract; 'of interview cases' in the RQ2 text", "RQ2 (Figure 6)", most=True),
    Finding("human_eval", "deployments depending primarily on human (in-the-loop) evaluation", 74,
            "unknown", None, "v3 abstract; ICML abstract", "RQ3 (evaluation)", most=True),
    Finding("manual_prompts", "surveyed deployed agents relying heavily on manual prompt construction", 79,
            "survey-deployed", None, "v1 text via paper notes ('surveyed deployed agents')", "RQ2 (Figure 7)",
            most=True),
    Finding("custom_build", "detailed case studies building in-house instead of on third-party agent frameworks", 85,
            "interviews", 20, "v1 text via paper notes ('of detailed case studies')", "RQ2", most=True),
    Finding("structured_workflows", "deployments using predefined structured workflows", 80,
            "unknown", None, "paper notes", "RQ2", most=True),
    Finding("llm_judge", "deployments using LLM-as-judge (almost always with human verification)", 52,
            "unknown", None, "paper notes", "RQ3", most=True),
    Finding("no_benchmarks", "deployments forgoing formal benchmarks", 75, "unknown", None, "paper notes", "RQ3",
            most=True),
    Finding("productivity", "practitioners citing productivity / faster task completion as motivation", 73,
            "survey", None, "paper notes (Figure 1)", "RQ1 (why agents)", most=True),
    Finding("task_hours", "practitioners citing reduced human task-hours as motivation", 64,
            "survey", None, "paper notes disagree: 64% and 72%", "RQ1", alt_percent=72, most=True),
    Finding("minute_latency", "deployments tolerating minute-scale latency or longer", 66,
            "unknown", None, "paper notes", "RQ2", most=True),
    Finding("human_users", "agents serving human users", 93, "unknown", None, "paper notes", "RQ1", most=True),
)


def by_key(key: str) -> Finding:
    """The finding with this ``key`` (ValueError naming ``key`` otherwise)."""
    for f in FINDINGS:
        if f.key == key:
            return f
    raise ValueError(f"key must be one of {[f.key for f in FINDINGS]}, got {key!r}")
