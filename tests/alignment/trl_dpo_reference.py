"""Calls TRL's own DPO loss (``DPOTrainer._compute_loss``) on given per-token log-probabilities.

The trainer method runs unbound on a stand-in ``self`` with a stand-in model whose outputs
carry exactly the per-token log-probabilities we pass. Test-only.
"""

from __future__ import annotations

from collections import defaultdict
from types import SimpleNamespace

import torch


class _Accelerator:
    device = torch.device("cpu")

    def gather(self, x):
        return x

    gather_for_metrics = gather


def trl_dpo_loss(tok_c, tok_r, ref_c, ref_r, mask_c, mask_r, *, beta, loss_type):
    """tok_*: (B, T) per-token log-probs (0 where masked); ref_*: (B,) reference sequence log-probs."""
    from trl.trainer.dpo_trainer import DPOTrainer

    b, t = tok_c.shape
    log_probs = torch.cat([tok_c, tok_r], 0)
    mask = torch.cat([mask_c, mask_r], 0).long()
    completion_mask = torch.cat([torch.zeros(2 * b, 1, dtype=torch.long), mask], 1)  # prompt token first
    outputs = SimpleNamespace(log_probs=log_probs, entropy=torch.zeros(2 * b, t), mean_logits=torch.zeros(2 * b, t),
                              is_top1=torch.zeros(2 * b, t, dtype=torch.bool), aux_loss=None,
                              log_sum_sq_probs=torch.zeros(2 * b, t))
    fake = SimpleNamespace(model=SimpleNamespace(training=False), accelerator=_Accelerator(), aux_loss_enabled=False,
                           ld_alpha=None, precompute_ref_logps=True, f_divergence_type="reverse_kl",
                           loss_types=[loss_type], loss_weights=[1.0], beta=beta, use_weighting=False,
                           _metrics={"train": defaultdict(list), "eval": defaultdict(list)}, _total_train_tokens=0,
                           _tp_size=1)
    inputs = {"input_ids": torch.zeros(2 * b, t + 1, dtype=torch.long), "attention_mask": torch.ones(2 * b, t + 1),
              "completion_mask": completion_mask, "ref_chosen_logps": ref_c, "ref_rejected_logps": ref_r}
    out = DPOTrainer._compute_loss(fake, lambda **kw: outputs, inputs, False)
    return out[0] if isinstance(out, tuple) else out
