"""The simulated world of lora-rlvr: a deliberately under-trained tiny policy on verifiable arithmetic.

The paper fine-tunes DeepSeek-R1-Distill-Qwen-1.5B with DAPO on math problems. Here the
"base model" is the shared arithmetic policy of :mod:`icml26.tasks.policy`: a
:class:`~icml26.nn.transformer.TinyLM` pretrained per seed on scratchpad arithmetic and
stopped early, so that RL with a binary verifiable reward has room to raise exact match,
as in RLVR on a reasoning model.
"""

from __future__ import annotations

from icml26.tasks.policy import (ALPHABET, MAX_NEW, PolicyConfig, decode, encode_prompts,  # noqa: F401
                                 exact_match, pretrain_policy, problems, reward_fn, tokenizer,
                                 training_batch)
