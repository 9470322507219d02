"""VenusBench-Mobile's evaluation protocol: task schema, category and capability-band success rates,
stability pass rate, and the consistency checks we run on released numbers.

The benchmark annotates every task with a level 1-4 for five capabilities -- perception (p),
understanding (u), decision (d), action (a) and memory (m) -- and diagnoses an agent by its success
rate on the tasks whose level for capability c is basic (L1-2) or advanced (L3-4). A capability is
a bottleneck when success falls sharply from L1-2 to L3-4. Stability: the same tasks run in five
modes (original, Chinese, question variation, dark mode, pad layout); SPR is the share of tasks
passed in every mode. The exact diagnostic and SPR formulas are not printed in what we could read of
arXiv 2604.06182; both are inferred from the leaderboard's fields and checked below against the
released numbers (a band success rate is k/n for an integer k, and the two bands of every capability
average back to the total).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.core.validate import check_int

CAPABILITIES = ("p", "u", "d", "a", "m")
BANDS = ("l12", "l34")
#: Leaderboard category key of each metadata tag (a task's first tag is its category).
CATEGORY_OF_TAG = {"func_assist": "fa", "refusal": "cf", "vague": "va", "multiround": "mr", "GSA": "gsa",
                   "GUIM": "guim", "guibrowsing": "hgb", "noise_resist": "nr", "browsecomplike": "bc"}
#: Category of an untagged task, by its name's prefix (six GUIBrowsingWatchVideo tasks, one Vague task).
_PREFIX = {"GUIBrowsing": "hgb", "Vague": "va", "FuncAssist": "fa", "Refusal": "cf", "MultiRound": "mr",
           "GSA": "gsa", "GUIM": "guim", "NoiseResist": "nr", "Browsecomp": "bc"}
CATEGORIES = ("fa", "cf", "va", "mr", "gsa", "guim", "hgb", "nr", "bc")
VARIANTS = ("original", "chinese", "variation", "dark", "pad")

#: JSON schema of one main-pool task record (``android_world/task_metadata.json``).
TASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["task_name", "app", "evaluation_method", "tags", "difficulty", "optimal_steps", "ability"],
    "properties": {
        "task_name": {"type": "string", "minLength": 1},
        "app": {"type": "array", "items": {"type": "string"}},
        "evaluation_method": {"enum": ["p", "m", ""]},  # "" on the seven untagged tasks
        "useExternalFile": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "difficulty": {"enum": ["easy", "hard", "challenging"]},
        "task_template": {"type": "string"},
        "optimal_steps": {"type": "string", "pattern": "^[0-9]*$"},  # "" on the untagged tasks
        "ability": {"type": "object", "required": list(CAPABILITIES), "additionalProperties": False,
                    "properties": {c: {"type": "integer", "minimum": 1, "maximum": 4} for c in CAPABILITIES}},
    },
}


def _tasks(tasks: Any) -> list[Mapping[str, Any]]:
    if isinstance(tasks, (str, bytes)) or not isinstance(tasks, Sequence) or not tasks:
        raise TypeError(f"tasks must be a non-empty sequence of task records, got {type(tasks).__name__}")
    for t in tasks:
        if not isinstance(t, Mapping) or "ability" not in t or "task_name" not in t:
            raise ValueError("tasks: every record needs 'task_name' and 'ability' (use main_pool() to drop variants)")
    return list(tasks)


def validate_tasks(tasks: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Validate main-pool task records against :data:`TASK_SCHEMA` (``jsonschema``); returns them.

    Raises ``ValueError`` naming the first bad record."""
    import jsonschema

    out = _tasks(tasks)
    validator = jsonschema.Draft202012Validator(TASK_SCHEMA)
    for i, t in enumerate(out):
        err = next(iter(validator.iter_errors(t)), None)
        if err is not None:
            raise ValueError(f"tasks[{i}] ({t.get('task_name')!r}): {err.message}")
    return out


def category_of(task: Mapping[str, Any]) -> str:
    """The leaderboard category of a task: its first tag, or its name's prefix when untagged."""
    if not isinstance(task, Mapping) or "task_name" not in task:
        raise TypeError("task must be a task record with a 'task_name'")
    tags = task.get("tags") or []
    if tags:
        if tags[0] not in CATEGORY_OF_TAG:
            raise ValueError(f"task {task['task_name']!r}: unknown tag {tags[0]!r}")
        return CATEGORY_OF_TAG[tags[0]]
    for prefix, cat in _PREFIX.items():
        if str(task["task_name"]).startswith(prefix):
            return cat
    raise ValueError(f"task {task['task_name']!r} has no tag and no known name prefix")


def band_of(level: int) -> str:
    """``'l12'`` for levels 1-2, ``'l34'`` for 3-4."""
    return "l12" if check_int("level", level, minimum=1, maximum=4) <= 2 else "l34"


def band_sizes(tasks: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Number of tasks per capability and band."""
    ts = _tasks(tasks)
    return {c: {b: sum(band_of(t["ability"][c]) == b for t in ts) for b in BANDS} for c in CAPABILITIES}


def _success(success: Any, tasks: list[Mapping[str, Any]]) -> np.ndarray:
    if isinstance(success, Mapping):
        missing = [t["task_name"] for t in tasks if t["task_name"] not in success]
        if missing:
            raise ValueError(f"success has no outcome for {len(missing)} tasks, e.g. {missing[0]!r}")
        success = [success[t["task_name"]] for t in tasks]
    s = np.asarray(success, dtype=float)
    if s.shape != (len(tasks),):
        raise ValueError(f"success must give one outcome per task ({len(tasks)}), got shape {s.shape}")
    if not np.all((s >= 0) & (s <= 1)):
        raise ValueError("success values must lie in [0, 1]")
    return s


def diagnose(success: Any, tasks: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Capability diagnostics: success rate (0-1) on each capability's L1-2 and L3-4 tasks.

    ``success``: per-task outcomes (0/1 or a probability), as a sequence aligned with ``tasks`` or a
    mapping from task name. A band with no task gets NaN."""
    ts = _tasks(tasks)
    s = _success(success, ts)
    out: dict[str, dict[str, float]] = {}
    for c in CAPABILITIES:
        lv = np.array([band_of(t["ability"][c]) for t in ts])
        out[c] = {b: float(s[lv == b].mean()) if np.any(lv == b) else float("nan") for b in BANDS}
    return out


def category_success(success: Any, tasks: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Success rate (0-1) per leaderboard category."""
    ts = _tasks(tasks)
    s = _success(success, ts)
    cats = np.array([category_of(t) for t in ts])
    return {c: float(s[cats == c].mean()) for c in CATEGORIES if np.any(cats == c)}


def bands_from_categories(category_sr: Mapping[str, float], tasks: Sequence[Mapping[str, Any]]
                          ) -> dict[str, dict[str, float]]:
    """The diagnostics implied by per-category success alone: every task is given its category's
    success rate, then averaged per band. This is the control for the capability diagnosis: a
    pattern that it reproduces is carried by which categories sit in which band, not by capability."""
    ts = _tasks(tasks)
    if not isinstance(category_sr, Mapping):
        raise TypeError("category_sr must map category -> success rate")
    missing = sorted({category_of(t) for t in ts} - set(category_sr))
    if missing:
        raise ValueError(f"category_sr lacks categories {missing}")
    return diagnose([float(category_sr[category_of(t)]) for t in ts], ts)


def drops(diag: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Per capability: L1-2 success minus L3-4 success (positive = harder at higher level)."""
    if not isinstance(diag, Mapping) or set(diag) != set(CAPABILITIES):
        raise ValueError(f"diag must map each of {CAPABILITIES} to its band rates")
    return {c: float(diag[c]["l12"]) - float(diag[c]["l34"]) for c in CAPABILITIES}


def grim_consistent(percent: float, n: int, decimals: int = 0) -> bool:
    """True if ``percent`` (rounded to ``decimals``) equals 100 k / n for some integer k in [0, n]."""
    n = check_int("n", n, minimum=1)
    decimals = check_int("decimals", decimals, minimum=0, maximum=3)
    if isinstance(percent, bool) or not isinstance(percent, (int, float)) or not 0 <= percent <= 100:
        raise ValueError(f"percent must be a number in [0, 100], got {percent!r}")
    k = np.arange(n + 1)
    tol = 0.5 * 10.0 ** (-decimals) + 1e-9
    return bool(np.any(np.abs(100.0 * k / n - percent) <= tol))


def stability_pass_rate(results: Mapping[str, Mapping[str, bool]]) -> dict[str, float]:
    """Per-mode success rates, their min and max, and SPR (share of tasks passed in every mode).

    ``results``: task -> {mode: passed}. Every task must have the same modes."""
    from icml26.agents.evaluate import all_variants_pass_rate

    if not isinstance(results, Mapping) or not results:
        raise ValueError("results must be a non-empty mapping task -> {mode: passed}")
    modes = None
    for task, r in results.items():
        if not isinstance(r, Mapping) or not r:
            raise ValueError(f"results[{task!r}] must be a non-empty mapping mode -> passed")
        if modes is None:
            modes = list(r)
        elif set(r) != set(modes):
            raise ValueError(f"results[{task!r}] has modes {sorted(r)}, expected {sorted(modes)}")
    per = {m: float(np.mean([bool(results[t][m]) for t in results])) for m in modes}
    spr = all_variants_pass_rate({t: [bool(v) for v in r.values()] for t, r in results.items()})
    return {**per, "min": min(per.values()), "max": max(per.values()), "spr": spr}


def EXAMPLES():
    from icml26.agents.venusbench_mobile import setting as S

    tasks = S.main_pool()[:12]
    ok = [1.0] * 12
    return [
        (validate_tasks, {"tasks": tasks}),
        (diagnose, {"success": ok, "tasks": tasks}),
        (category_success, {"success": ok, "tasks": tasks}),
        (band_sizes, {"tasks": tasks}),
        (grim_consistent, {"percent": 43.0, "n": 99}),
        (stability_pass_rate, {"results": {"t1": {"original": True, "pad": False}}}),
        (S.PhoneEnv, {"task": S.build_tasks(seed=0)[0]}),
        (S.build_tasks, {"seed": 0}),
    ]
