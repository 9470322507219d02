"""Example calls of the MineDraft public API for the common bad-input test (``Paper.examples``)."""

from __future__ import annotations


def EXAMPLES() -> list:
    import numpy as np
    import torch

    from icml26.llm.minedraft import method as M
    from icml26.llm.minedraft import setting as S
    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(0)
    tg = TinyLM(LMConfig(vocab_size=6, d_model=16, n_layers=1, n_heads=2, max_len=32)).eval()
    dr = TinyLM(LMConfig(vocab_size=6, d_model=8, n_layers=1, n_heads=1, max_len=32)).eval()
    T = S.markov_language(6, np.random.default_rng(0))
    prompts = torch.tensor([[1, 2, 3], [0, 4, 5]])
    drafts = torch.tensor([[1, 2, 3], [0, 0, 1]])
    q = torch.softmax(torch.randn(2, 3, 6), -1)
    p = torch.softmax(torch.randn(2, 4, 6), -1)
    return [
        (M.verify_greedy, {"drafts": drafts, "target_logits": torch.randn(2, 4, 6)}),
        (M.verify_sampling, {"drafts": drafts, "q": q, "p": p}),
        (M.expected_tokens, {"alpha": 0.5, "k": 3}),
        (M.psd_speedup_model, {"k": 5, "t_d": 1.0, "t_v": 5.0}),
        (M.generate_target_only, {"target": tg, "prompts": prompts, "n_new": 4, "batch_size": 1,
                                  "temperature": 0.0}, {"temperature": {"negative"}}),
        (M.generate_sd, {"target": tg, "drafter": dr, "prompts": prompts, "n_new": 4, "k": 2, "batch_size": 2,
                         "temperature": 0.0}),
        (M.generate_psd, {"target": tg, "drafter_ep": M.InlineDrafter(dr, 4, 2), "prompts": prompts, "n_new": 4,
                          "k": 2, "batch_size": 1}),
        (S.markov_language, {"vocab": 6, "rng": np.random.default_rng(1), "n_succ": 3, "conc": 0.5}),
        (S.sample_sequences, {"T": T, "n": 3, "length": 5, "gen": torch.Generator().manual_seed(0)}),
        (S.CostModel, {"c_call": 1e-4, "c_layer": 2e-4, "flops_per_s": 1e10}),
    ]
