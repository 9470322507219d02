"""UKA against a real model: the loop of :mod:`icml26.agents.uka.method` with an LLM policy, an LLM
user simulator and critic, all through an OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama).

Use: ``icml26 run uka --set endpoint=http://localhost:8000/v1 --set model=<served name>`` adds
``llm/*`` metrics (a few training and test dialogues) to every seed; no verdict reads them.

What runs for real, as in the paper's code (Xmuffins/UKA):

* hypothesis scoring = mean token log-probability of the user's latest reply under
  "you are playing a user whose profile is <z>" (:func:`reply_logprob`, the completions API with
  ``echo=True, logprobs=1``: the endpoint must return prompt log-probabilities, which vLLM does);
  posterior, entropy and the drop/refine rule are :func:`method.hypothesis_posterior` and the
  same update rule as :class:`method.UserModel`, with the policy writing the refined profile;
* the summary query, three candidates at T = 0.8 / top-p 0.9 conditioned on retrieved
  principles, three simulated user replies per (candidate, hypothesis) embedded with the
  offline MiniLM encoder (:mod:`icml26.nn.sentence`), :func:`method.tom_uncertainty`,
  :func:`method.kb_novelty`, :func:`method.select_candidate`;
* the principle in the When/should/rather-than/because format, keyed by the summary.

The user simulator plays a persona; a critic prompt rates the user's emotion in [-1, 1]; a
dialogue ends at emotion > 0.5 or after ``max_turns`` assistant turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from icml26.agents.uka.method import hypothesis_posterior, kb_novelty, select_candidate, tom_uncertainty

PERSONAS = (
    ("job loss", "wants to feel understood before hearing any advice"),
    ("breakup", "wants concrete next steps, not sympathy"),
    ("exam stress", "wants facts about how to study under pressure"),
    ("loneliness", "wants to talk about something else for a while"),
    ("family conflict", "wants space and short, calm replies"),
)

POLICY = ("As a psychotherapist with ten years of experience, reply to the user with a short, supportive message. "
          "Some experiences are:\n{principles}")
REFINE = ("You are a psychotherapist with ten years of counseling experience. Based on the user's latest dialogue, "
          "concisely refine and extend the user description.\n\nUser dialogue:\n{dialogue}\n\nUser description:\n"
          "{profiles}\n\nOutput only the updated user description in a single short sentence.")
SUMMARY = ("You are a psychotherapist. In one sentence, describe the user's current dialogue behaviour and the user "
           "characteristics it suggests.\n\nUser profile:\n{profiles}\n\nConversation history:\n{dialogue}")
PRINCIPLE = ("Summarise the assistant's last decision as a reusable principle for the assistant, in this format:\n"
             "When [situation tied to the user's last utterance], you should [strategy] rather than [what to avoid, "
             "if the emotion did not improve] because [reason].\n\nDialogue:\n{dialogue}\n\nUser's emotional change: "
             "{mood}\nOutput only the principle.")
USER = ("You are a person seeking emotional support about {scenario}. Privately, you {need}. Reply as that person "
        "in one or two sentences; say goodbye if you feel much better.")
CRITIC = ("Rate the emotional state of the user in this dialogue from -1 (very distressed) to 1 (relieved). "
          "Output only the number.\n\n{dialogue}")


def _dialogue(history: list[dict], last: int | None = None) -> str:
    h = history if last is None else history[-last:]
    return "\n".join(f"{m['role']}: {m['content']}" for m in h)


def reply_logprob(client, profile: str, reply: str) -> float:
    """Mean token log-probability of ``reply`` when the model plays a user with ``profile``.

    client: :class:`icml26.agents.policy.ChatClient`; uses its OpenAI client's completions API
    with ``echo=True`` so that the prompt's own tokens are scored.
    """
    if not isinstance(profile, str) or not profile:
        raise ValueError("profile must be a non-empty string")
    if not isinstance(reply, str) or not reply:
        raise ValueError("reply must be a non-empty string")
    prefix = f"You are going to play 'user' in a conversation; your basic character is: {profile}\nuser: "
    resp = client._client.completions.create(model=client.model, prompt=prefix + reply, max_tokens=1, echo=True,
                                             logprobs=1, temperature=0.0)
    lp = resp.choices[0].logprobs
    if lp is None or not lp.token_logprobs:
        raise RuntimeError("the endpoint returned no prompt log-probabilities (UKA's scoring needs echo + logprobs)")
    vals = [v for v, off in zip(lp.token_logprobs, lp.text_offset) if v is not None and off >= len(prefix)]
    vals = vals[:-1] if len(vals) > 1 else vals  # drop the generated token
    return float(np.mean(vals)) if vals else float("-inf")


@dataclass
class TextKB:
    """Principles keyed by the embedding of their summary query (the code's Chroma collections)."""

    encoder: object
    keys: list = field(default_factory=list)
    texts: list = field(default_factory=list)
    known: list = field(default_factory=list)

    def add(self, query: str, principle: str) -> None:
        k, p = self.encoder.encode([query, principle])
        self.keys.append(k), self.texts.append(principle), self.known.append(p)

    def retrieve(self, query: str, k: int = 5) -> list[str]:
        if not self.texts:
            return []
        q = self.encoder.encode([query])[0]
        sims = np.asarray(self.keys) @ q
        return [self.texts[i] for i in np.argsort(-sims)[:k]]


@dataclass
class LLMUKA:
    """The UKA assistant on an endpoint. ``client``: ChatClient; ``encoder``: MiniLMEncoder."""

    client: object
    encoder: object
    kb: TextKB
    n_candidates: int = 3
    n_sim: int = 3
    hyps: list = field(default_factory=lambda: ["A person who is upset and needs support."])
    scores: list = field(default_factory=list)
    entropy: float = 0.0

    def _chat(self, prompt: str, temperature: float = 0.8, system: str | None = None, history=None) -> str:
        msgs = ([{"role": "system", "content": system}] if system else []) + list(history or [])
        if prompt:
            msgs.append({"role": "user", "content": prompt})
        return re.sub(r"(?s).*</think>", "", self.client.complete(msgs, temperature=temperature)).strip()

    def update_user_model(self, history: list[dict]) -> None:
        last = history[-1]["content"]
        scores = [reply_logprob(self.client, z, last) for z in self.hyps]
        probs, ent = hypothesis_posterior(scores)
        if not self.scores or max(scores) > max(self.scores) or ent > self.entropy:
            if len(self.hyps) == 2:
                i = int(np.argmin(probs))
                self.hyps.pop(i), scores.pop(i)
            new = self._chat(REFINE.format(dialogue=_dialogue(history, 3), profiles="\n".join(self.hyps)))
            self.hyps.append(new)
            scores.append(reply_logprob(self.client, new, last))
            probs, ent = hypothesis_posterior(scores)
        self.scores, self.entropy = scores, ent

    def respond(self, history: list[dict], *, training: bool, rule: str = "intent") -> tuple[str, str]:
        """One turn: returns (summary query, chosen reply)."""
        self.update_user_model(history)
        query = self._chat(SUMMARY.format(profiles="\n".join(self.hyps), dialogue=_dialogue(history)), 0.7)
        principles = "\n".join(self.kb.retrieve(query)) or "(none yet)"
        cands = [self._chat("", 0.8, POLICY.format(principles=principles), history) for _ in range(self.n_candidates)]
        u = []
        for c in cands:
            E = []
            for z in self.hyps:
                sims = [self._chat("", 0.8, f"You are going to play 'user'; your basic character is: {z}",
                                   [*history, {"role": "assistant", "content": c}][-6:]) for _ in range(self.n_sim)]
                E.append(self.encoder.encode(sims).mean(axis=0))
            u.append(tom_uncertainty(np.asarray(E)))
        known = np.asarray(self.kb.known) if self.kb.known else np.zeros((0, 384))
        nov = kb_novelty(self.encoder.encode(cands), known, 5)
        i = select_candidate(np.asarray(u), nov, "explore" if training else rule)
        return query, cands[i]


def _emotion(client, history: list[dict]) -> float:
    text = client.complete([{"role": "user", "content": CRITIC.format(dialogue=_dialogue(history))}], temperature=0.0)
    m = re.search(r"-?\d+(\.\d+)?", text)
    return float(np.clip(float(m.group()), -1, 1)) if m else 0.0


def run_dialogue(agent: LLMUKA, client, persona: tuple[str, str], *, training: bool, max_turns: int = 8) -> dict:
    """One dialogue with the LLM user simulator; at training each turn writes a principle."""
    system = USER.format(scenario=persona[0], need=persona[1])
    user_msgs = [{"role": "user", "content": "Start the conversation: say what is bothering you."}]
    history = [{"role": "user", "content": client.complete([{"role": "system", "content": system}, *user_msgs],
                                                           temperature=0.8)}]
    agent.hyps, agent.scores, agent.entropy = ["A person who is upset and needs support."], [], 0.0
    emotion = _emotion(client, history)
    turns = 0
    for _ in range(max_turns):
        query, reply = agent.respond(history, training=training)
        history.append({"role": "assistant", "content": reply})
        flipped = [{"role": "assistant" if m["role"] == "user" else "user", "content": m["content"]} for m in history]
        history.append({"role": "user", "content": client.complete([{"role": "system", "content": system}, *flipped],
                                                                   temperature=0.8)})
        new = _emotion(client, history)
        turns += 1
        if training:
            mood = "positive" if new > emotion else ("negative" if new < emotion else "nochange")
            agent.kb.add(query, agent._chat(PRINCIPLE.format(dialogue=_dialogue(history), mood=mood), 1.0))
        emotion = new
        if emotion > 0.5:
            break
    return {"success": float(emotion > 0.5), "turns": float(turns), "final_emotion": emotion}


def endpoint_part(base_url: str, model: str, seed: int, n_train: int = 2, n_test: int = 2) -> dict:
    """A few training then test dialogues on the endpoint; ``llm/*`` metrics (never used by a verdict)."""
    from icml26.agents.policy import ChatClient
    from icml26.nn.sentence import MiniLMEncoder

    client = ChatClient(base_url=base_url, model=model, max_tokens=256)
    enc = MiniLMEncoder()
    agent = LLMUKA(client, enc, TextKB(enc))
    rng = np.random.default_rng([seed, 7])
    for _ in range(n_train):
        run_dialogue(agent, client, PERSONAS[int(rng.integers(len(PERSONAS)))], training=True)
    rows = [run_dialogue(agent, client, PERSONAS[int(rng.integers(len(PERSONAS)))], training=False)
            for _ in range(n_test)]
    return {"llm/test_success": float(np.mean([r["success"] for r in rows])),
            "llm/test_final_emotion": float(np.mean([r["final_emotion"] for r in rows])),
            "llm/kb_size": float(len(agent.kb.texts))}
