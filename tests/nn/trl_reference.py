"""Calls TRL's own GRPO loss (``GRPOTrainer._compute_loss``) on given per-token log-probabilities.

The trainer method is run unbound on a stand-in ``self`` that provides exactly the state the
loss reads (no model, tokenizer or dataset), with the policy's per-token log-probabilities
fixed to the tensor we pass. Test-only: it pins our loss to TRL's implementation.
"""

from __future__ import annotations

from collections import defaultdict
from types import SimpleNamespace

import torch


class _Accelerator:
    num_processes = 1
    sync_gradients = True

    def gather(self, x):
        return x

    gather_for_metrics = gather

    def reduce(self, x, reduction="sum"):
        return x


def trl_grpo_loss(logp, old_logp, ref_logp, advantages, mask, *, beta, epsilon, epsilon_high, loss_type,
                  max_completion_length):
    from trl.trainer.grpo_trainer import GRPOTrainer

    b, t = logp.shape
    fake = SimpleNamespace(
        _get_per_token_logps_and_entropies=lambda *a, **k: (logp, torch.zeros_like(logp), None),
        top_entropy_quantile=1.0, off_policy_mask_threshold=None, importance_sampling_level="token", beta=beta,
        args=SimpleNamespace(use_bias_correction_kl=False, delta=None), loss_type=loss_type,
        epsilon_low=epsilon, epsilon_high=epsilon_high, use_vllm=False, vllm_importance_sampling_correction=False,
        model=SimpleNamespace(training=False), current_gradient_accumulation_steps=1,
        max_completion_length=max_completion_length, _entropy_bonus_enabled=False, aux_loss_enabled=False,
        accelerator=_Accelerator(), _metrics={"train": defaultdict(list), "eval": defaultdict(list)})
    inputs = {"prompt_ids": torch.zeros(b, 1, dtype=torch.long), "prompt_mask": torch.ones(b, 1, dtype=torch.long),
              "completion_ids": torch.zeros(b, t, dtype=torch.long), "completion_mask": mask.long(),
              "advantages": advantages, "old_per_token_logps": old_logp, "ref_per_token_logps": ref_logp,
              "num_items_in_batch": mask.sum()}
    return GRPOTrainer._compute_loss(fake, None, inputs)
