"""The simulated world of CoRe: two differently pretrained tiny policies on verifiable arithmetic.

Both models come from the shared recipe of :mod:`icml26.tasks.policy` (a TinyLM
pretrained per seed on :mod:`icml26.tasks.arithmetic` scratchpads, deliberately
under-trained, cached on disk by seed and config): model P is 2 layers of width 48, model Q 3
layers of width 32 trained on a different stream (seed offset) of the same levels, so the two
differ in size and in their errors. At 1,200 pretraining steps each they sit near 50% / 40%
sampled pass@1 on the level 1-2 mix (almost all of it on level 1). Problems are a mix of
level 1 (``a±b``) and level 2 (``a op b op c`` with operands below 20 and ``*``), so a peer's
first scratchpad step is a real hint for a two-step problem.

Prompts: cold ``<bos>12*7-3=``; contexted ``<bos>{hint};12*7-3=`` where the hint is a peer's
correct trace with the answer stripped (:func:`icml26.llm.core.method.strip_answer`).
"""

from __future__ import annotations

from icml26.core.validate import check_int
from icml26.tasks.policy import (PolicyConfig, exact_match, pretrain_policy, problems,  # noqa: F401
                                 reward_fn, tokenizer)

LEVELS = (1, 2)


MAX_LEN = 56  # room for a hinted prompt (<= 20 tokens for a one-step hint) and the longest scratchpad (28)


def model_configs(steps_p: int = 1200, steps_q: int = 1200) -> dict[str, PolicyConfig]:
    """The two members' pretraining recipes (another size and another data stream for Q)."""
    steps_p = check_int("steps_p", steps_p, minimum=1)
    steps_q = check_int("steps_q", steps_q, minimum=1)
    return {"P": PolicyConfig(d_model=48, n_layers=2, n_heads=4, levels=LEVELS, steps=steps_p, batch=32,
                              max_len=MAX_LEN),
            "Q": PolicyConfig(d_model=32, n_layers=3, n_heads=4, levels=LEVELS, steps=steps_q, batch=32,
                              max_len=MAX_LEN)}


def pretrain_pair(seed: int, steps_p: int = 1200, steps_q: int = 1200) -> dict:
    """``{"P": model, "Q": model}`` for ``seed`` (Q on the data stream of seed + 500)."""
    seed = check_int("seed", seed, minimum=0)
    cfgs = model_configs(steps_p, steps_q)
    return {"P": pretrain_policy(seed, cfgs["P"]), "Q": pretrain_policy(seed + 500, cfgs["Q"])}


def encode(text: str) -> list[int]:
    """``<bos>`` + the characters of ``text``."""
    return tokenizer().encode(text, bos=True)


def cold_prompt(problem) -> str:
    return problem.prompt


def hinted_prompt(problem, hint: str) -> str:
    """The contexted prompt: the hint, a separator, then the question."""
    return f"{hint};{problem.prompt}" if hint else problem.prompt
