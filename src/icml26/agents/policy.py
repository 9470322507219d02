"""One policy interface, three kinds of policy.

A policy has ``act(observation, history) -> ToolCall | str`` (``history``: the list of
``(action, observation)`` pairs so far) and an optional ``reset()``.

* :class:`ScriptedPolicy` wraps a solver (a function of the same signature) and injects
  capability deficits: ``perception_noise`` (each observed word is lost with this probability),
  ``memory_limit`` (the solver sees only the last k steps) and ``decision_error`` (with this
  probability the action is replaced by a random one from ``random_action``).
* :class:`TinyLMPolicy` prompts an :mod:`icml26.nn` language model with the episode so far and
  parses its sampled reply with :func:`icml26.agents.env.parse_action`.
* :class:`ChatPolicy` does the same through :class:`ChatClient`, a client for any
  OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, ...) built on the ``openai`` package:
  ``ChatClient(base_url="http://localhost:8000/v1", model="...")``. Timeouts and retries
  (5xx, 429, dropped connections) are the ``openai`` client's; a reply without a message is
  a :class:`ChatError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.agents.env import ToolCall, parse_action
from icml26.core.validate import as_rng, check_int, check_positive

Action = ToolCall | str
History = list[tuple[Action, str]]
Solver = Callable[[str, History], Action]


def _prob(name: str, p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    return float(p)


@dataclass
class ScriptedPolicy:
    solver: Solver
    perception_noise: float = 0.0
    memory_limit: int | None = None
    decision_error: float = 0.0
    random_action: Callable[[np.random.Generator], Action] | None = None
    seed: Any = 0
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not callable(self.solver):
            raise TypeError("solver must be callable: (observation, history) -> action")
        self.perception_noise = _prob("perception_noise", self.perception_noise)
        self.decision_error = _prob("decision_error", self.decision_error)
        if self.memory_limit is not None:
            check_int("memory_limit", self.memory_limit, minimum=0)
        if self.decision_error > 0 and self.random_action is None:
            raise ValueError("decision_error > 0 needs random_action (what a wrong decision looks like)")
        self.rng = as_rng("seed", self.seed)

    def reset(self) -> None:
        pass

    def perceive(self, text: str) -> str:
        if self.perception_noise == 0:
            return text
        return " ".join(w if self.rng.random() >= self.perception_noise else "<?>" for w in text.split())

    def act(self, observation: str, history: History) -> Action:
        seen = [(a, self.perceive(o)) for a, o in history]
        if self.memory_limit is not None:
            seen = seen[len(seen) - self.memory_limit:] if self.memory_limit else []
        action = self.solver(self.perceive(observation), seen)
        if self.decision_error and self.rng.random() < self.decision_error:
            action = self.random_action(self.rng)  # type: ignore[misc]
        return action


def render_episode(observation: str, history: History, *, system: str = "", last: int | None = None) -> str:
    """The episode as text, for a language-model policy."""
    lines = [system] if system else []
    hist = history if last is None else history[-last:]
    for a, o in hist:
        lines.append("ACTION: " + (str(a.to_json()) if isinstance(a, ToolCall) else f"ANSWER: {a}"))
        lines.append("OBSERVATION: " + o)
    lines.append("OBSERVATION: " + observation if not hist else "")
    lines.append("ACTION:")
    return "\n".join(x for x in lines if x)


@dataclass
class TinyLMPolicy:
    """A policy that samples a reply from a tiny LM and parses it into an action."""

    model: Any
    tokenizer: Any
    max_new: int = 32
    temperature: float = 1.0
    last: int | None = 4
    seed: int = 0

    def __post_init__(self) -> None:
        import torch

        check_int("max_new", self.max_new, minimum=1)
        check_positive("temperature", self.temperature)
        self._gen = torch.Generator().manual_seed(int(self.seed))

    def act(self, observation: str, history: History) -> Action:
        from icml26.nn.lm import sample

        ids = self.tokenizer.encode(render_episode(observation, history, last=self.last), bos=True)
        ids = ids[-(self.model.cfg.max_len - self.max_new):]
        out = sample(self.model, [ids], self.max_new, temperature=self.temperature, eos_id=self.tokenizer.eos_id,
                     generator=self._gen)
        return parse_action(self.tokenizer.decode(out.as_lists()[0]))


class ChatError(RuntimeError):
    """The endpoint answered, but not with a usable chat message."""


@dataclass
class ChatClient:
    """Chat completions from an OpenAI-compatible endpoint (a local vLLM, llama.cpp or Ollama server)."""

    base_url: str
    model: str
    api_key: str = "not-needed"
    timeout_s: float = 60.0
    max_retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 512

    def __post_init__(self) -> None:
        from openai import OpenAI

        if not isinstance(self.base_url, str) or not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL such as http://localhost:8000/v1, got {self.base_url!r}")
        if not isinstance(self.model, str) or not self.model:
            raise ValueError("model must name the served model")
        check_positive("timeout_s", self.timeout_s)
        check_int("max_retries", self.max_retries, minimum=0)
        self._client = OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_s,
                              max_retries=self.max_retries)

    def complete(self, messages: Sequence[dict[str, str]], **kw: Any) -> str:
        """The assistant's reply text; raises :class:`ChatError` on a reply without one."""
        import openai

        try:
            resp = self._client.chat.completions.create(model=self.model, messages=list(messages),
                                                        temperature=kw.get("temperature", self.temperature),
                                                        max_tokens=kw.get("max_tokens", self.max_tokens))
        except openai.APITimeoutError as exc:
            raise TimeoutError(f"{self.base_url} did not answer within {self.timeout_s} s") from exc
        except openai.APIConnectionError as exc:
            raise ConnectionError(f"cannot reach {self.base_url}: {exc}") from exc
        except openai.APIStatusError as exc:
            raise ChatError(f"{self.base_url} answered HTTP {exc.status_code}: {exc.message}") from exc
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ChatError(f"{self.base_url} sent a malformed reply: {exc}") from exc
        choices = getattr(resp, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None or choices[0].message.content is None:
            raise ChatError(f"{self.base_url} sent a reply without a message: {str(resp)[:200]}")
        return str(choices[0].message.content)


@dataclass
class ChatPolicy:
    client: ChatClient
    system: str = ("You are an agent. Reply with one JSON tool call {\"tool\": name, \"arguments\": {...}} "
                   "or with ANSWER: <final answer>.")
    last: int | None = 8

    def act(self, observation: str, history: History) -> Action:
        msgs = [{"role": "system", "content": self.system}]
        hist = history if self.last is None else history[-self.last:]
        for a, o in hist:
            msgs.append({"role": "assistant", "content": str(a.to_json()) if isinstance(a, ToolCall) else f"ANSWER: {a}"})
            msgs.append({"role": "user", "content": o})
        if not hist:
            msgs.append({"role": "user", "content": observation})
        return parse_action(self.client.complete(msgs))


def file_search_solver(observation: str, history: History) -> Action:
    """The oracle for :class:`~icml26.agents.env.FileSearchEnv`: list, read every file, answer."""
    for _, o in reversed(history):
        if "code word is" in o:
            return o.split("code word is", 1)[1].split()[0]
    listed = [(a, o) for a, o in history if isinstance(a, ToolCall) and a.name == "list_dir"]
    read = {a.arguments["path"] for a, _ in history if isinstance(a, ToolCall) and a.name == "read_file"}
    if not listed:
        return ToolCall("list_dir", {"path": "/"})
    dirs = listed[0][1].split()
    listed_dirs = {a.arguments["path"]: o for a, o in listed[1:]}
    for d in dirs:
        if d not in listed_dirs:
            return ToolCall("list_dir", {"path": d})
        for f in listed_dirs[d].split():
            if f"{d}/{f}" not in read:
                return ToolCall("read_file", {"path": f"{d}/{f}"})
    return "unknown"
