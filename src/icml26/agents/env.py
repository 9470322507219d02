"""A text/tool environment protocol on ``gymnasium``, with budgets and a replayable trajectory log.

An agent sees text observations and acts with a :class:`ToolCall` (a tool name and JSON
arguments) or plain text (a final answer). Every environment derives from :class:`ToolEnv`:

* ``tools``: the tools it offers (name, description, argument names and types);
* ``reset(seed=...)`` -> ``(observation, info)``; ``step(action)`` -> ``(observation, reward,
  terminated, truncated, info)`` (the gymnasium API); an episode is truncated when it runs out
  of steps (``max_steps``) or of observation tokens (``max_tokens``, counted in words);
* ``log``: every reset and step as a JSON-able event; :func:`replay` re-runs a log on a fresh
  environment and checks that every observation and reward comes out the same.

:class:`FileSearchEnv` is the worked example: find which file holds a code word, by listing
directories and reading files, then answer it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from icml26.core.validate import as_rng, check_int


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, str]  # argument -> "str" | "int" | "float" | "bool"
    fn: Callable[..., str]

    def schema(self) -> dict[str, Any]:
        """An OpenAI-style function schema, for chat models with tool calling."""
        kinds = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
        return {"type": "function", "function": {
            "name": self.name, "description": self.description,
            "parameters": {"type": "object", "properties": {k: {"type": kinds[v]} for k, v in self.parameters.items()},
                           "required": list(self.parameters)}}}


_TYPES = {"str": str, "int": int, "float": (int, float), "bool": bool}


class ToolEnv(gym.Env):
    """Base class: subclasses set ``self.tools`` and implement ``_reset(rng) -> str`` and ``_answer(text) -> (obs, reward)``."""

    metadata = {"render_modes": []}

    def __init__(self, *, max_steps: int = 20, max_tokens: int = 2000):
        self.max_steps = check_int("max_steps", max_steps, minimum=1)
        self.max_tokens = check_int("max_tokens", max_tokens, minimum=1)
        self.observation_space = gym.spaces.Text(max_length=100_000)
        self.action_space = gym.spaces.Text(max_length=100_000)
        self.tools: dict[str, Tool] = {}
        self.log: list[dict[str, Any]] = []
        self.steps = 0
        self.tokens = 0
        self.done = True

    # -- subclass hooks --------------------------------------------------------------------
    def _reset(self, rng: np.random.Generator) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _answer(self, text: str) -> tuple[str, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        rng = as_rng("seed", seed if seed is not None else int(self.np_random.integers(0, 2**31)))
        obs = self._reset(rng)
        self.steps, self.tokens, self.done = 0, len(obs.split()), False
        self.log = [{"event": "reset", "seed": seed, "observation": obs}]
        return obs, {"tools": [t.schema() for t in self.tools.values()]}

    def step(self, action: ToolCall | str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.done:
            raise RuntimeError("the episode is over: call reset() first")
        if not isinstance(action, (ToolCall, str)):
            raise TypeError(f"action must be a ToolCall or a str answer, got {type(action).__name__}")
        self.steps += 1
        terminated, reward, error = False, 0.0, None
        if isinstance(action, str):
            obs, reward = self._answer(action)
            terminated = True
        else:
            error = self._validate(action)
            obs = f"error: {error}" if error else self.tools[action.name].fn(**action.arguments)
        self.tokens += len(obs.split())
        truncated = not terminated and (self.steps >= self.max_steps or self.tokens >= self.max_tokens)
        self.done = terminated or truncated
        self.log.append({"event": "step", "action": action.to_json() if isinstance(action, ToolCall) else action,
                         "observation": obs, "reward": reward, "terminated": terminated, "truncated": truncated})
        return obs, reward, terminated, truncated, {"error": error, "steps": self.steps, "tokens": self.tokens}

    def _validate(self, call: ToolCall) -> str | None:
        tool = self.tools.get(call.name)
        if tool is None:
            return f"unknown tool {call.name!r}; tools: {', '.join(sorted(self.tools))}"
        missing = [a for a in tool.parameters if a not in call.arguments]
        extra = [a for a in call.arguments if a not in tool.parameters]
        if missing or extra:
            return f"{call.name} takes {sorted(tool.parameters)}; missing {missing}, unexpected {extra}"
        for arg, kind in tool.parameters.items():
            v = call.arguments[arg]
            if isinstance(v, bool) and kind != "bool" or not isinstance(v, _TYPES[kind]):
                return f"argument {arg!r} of {call.name} must be {kind}, got {type(v).__name__}"
        return None


def parse_action(text: str) -> ToolCall | str:
    """A model's reply as an action: a JSON object ``{"tool": ..., "arguments": {...}}`` anywhere in
    the text is a tool call; ``ANSWER: ...`` (or any other text) is the final answer."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    start = text.find("{")
    while start != -1:
        depth = 0
        for k in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            if depth == 0:
                try:
                    obj = json.loads(text[start:k + 1])
                except ValueError:
                    break
                if isinstance(obj, dict) and isinstance(obj.get("tool"), str):
                    args = obj.get("arguments", {})
                    return ToolCall(obj["tool"], args if isinstance(args, dict) else {})
                break
        start = text.find("{", start + 1)
    if "ANSWER:" in text:
        return text.split("ANSWER:", 1)[1].strip()
    return text.strip()


def replay(env: ToolEnv, log: list[dict[str, Any]]) -> bool:
    """Re-run a trajectory log on ``env``; True if every observation and reward is reproduced."""
    if not log or log[0].get("event") != "reset":
        raise ValueError("log must start with a reset event")
    obs, _ = env.reset(seed=log[0]["seed"])
    if obs != log[0]["observation"]:
        return False
    for ev in log[1:]:
        a = ev["action"]
        action = ToolCall(a["tool"], a["arguments"]) if isinstance(a, dict) else a
        obs, reward, *_ = env.step(action)
        if obs != ev["observation"] or reward != ev["reward"]:
            return False
    return True


class FileSearchEnv(ToolEnv):
    """Find the code word hidden in one of ``n_files`` files spread over ``n_dirs`` directories."""

    def __init__(self, *, n_dirs: int = 3, n_files: int = 4, max_steps: int = 20, max_tokens: int = 2000):
        super().__init__(max_steps=max_steps, max_tokens=max_tokens)
        self.n_dirs = check_int("n_dirs", n_dirs, minimum=1)
        self.n_files = check_int("n_files", n_files, minimum=1)
        self.files: dict[str, dict[str, str]] = {}
        self.secret = ""
        self.tools = {
            "list_dir": Tool("list_dir", "List the files of a directory ('/' lists the directories).",
                             {"path": "str"}, self._list_dir),
            "read_file": Tool("read_file", "Read a file given as dir/name.", {"path": "str"}, self._read_file),
        }

    def _reset(self, rng: np.random.Generator) -> str:
        words = ("apple", "river", "stone", "cloud", "ember", "frost", "maple", "orbit", "prism", "tulip")
        self.files = {f"d{i}": {f"f{j}.txt": "nothing here" for j in range(self.n_files)} for i in range(self.n_dirs)}
        d, f = f"d{int(rng.integers(self.n_dirs))}", f"f{int(rng.integers(self.n_files))}.txt"
        self.secret = words[int(rng.integers(len(words)))]
        self.files[d][f] = f"the code word is {self.secret}"
        return ("Find the code word hidden in one of the files. Tools: list_dir(path), read_file(path). "
                "Answer with the code word.")

    def _list_dir(self, path: str) -> str:
        if path.strip("/") == "":
            return " ".join(sorted(self.files))
        d = self.files.get(path.strip("/"))
        return " ".join(sorted(d)) if d is not None else f"no directory {path}"

    def _read_file(self, path: str) -> str:
        d, _, f = path.strip("/").partition("/")
        return self.files.get(d, {}).get(f, f"no file {path}")

    def _answer(self, text: str) -> tuple[str, float]:
        ok = text.strip().lower() == self.secret
        return ("correct" if ok else "wrong"), float(ok)


def run_episode(env: ToolEnv, policy: Any, *, seed: int | None = None) -> dict[str, Any]:
    """Run one episode of ``policy`` (anything with ``act(observation, history) -> action`` and
    optional ``reset()``) in ``env``; returns the reward, steps, whether it ended by answering, and the log."""
    obs, info = env.reset(seed=seed)
    if hasattr(policy, "reset"):
        policy.reset()
    history: list[tuple[Any, str]] = []
    reward, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        action = policy.act(obs, history)
        obs, reward, terminated, truncated, _ = env.step(action)
        history.append((action, obs))
    return {"reward": reward, "steps": env.steps, "answered": terminated, "log": list(env.log)}


def log_to_json(log: list[dict[str, Any]]) -> str:
    return json.dumps(log, sort_keys=True, default=lambda o: asdict(o) if hasattr(o, "__dataclass_fields__") else str(o))
