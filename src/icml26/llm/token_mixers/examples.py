"""Example calls of the token-mixing public API for the common bad-input test (``Paper.examples``)."""

from __future__ import annotations


def EXAMPLES() -> list:
    import numpy as np
    import torch

    from icml26.llm.token_mixers import method as M
    from icml26.llm.token_mixers import setting as S

    g = torch.Generator().manual_seed(0)
    n, d = 6, 3
    A = torch.randn(n, n, generator=g, dtype=torch.float64).tril()
    P, valid = M.parent_table(n, "dyadic")
    lam = torch.rand(n, P.shape[1], generator=g, dtype=torch.float64) / P.shape[1]
    B = M.build_B(lam, P, valid)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    q, k = (torch.randn(2, n, d, generator=g) for _ in range(2))
    T = S.copy_language(5, np.random.default_rng(0))
    return [
        (M.unified_mix, {"A": A, "B": B, "X": X}),
        (M.recurrent_scan, {"A": A, "B": B, "X": X}),
        (M.build_B, {"lam": lam, "P": P, "valid": valid}),
        (M.softmax_attention_unified, {"q": q, "k": k}),
        (M.masked_state_readout, {"M": torch.eye(n), "q": q, "k": k, "v": torch.randn(2, n, 2, generator=g)}),
        (M.parents, {"t": 5, "pattern": "fenwick"}),
        (M.parent_table, {"n": 8, "pattern": "quadratic"}),
        (M.recurrence_nnz, {"n": 8, "pattern": "dyadic"}),
        (M.live_states, {"n": 8, "pattern": "sqrt-blocks"}),
        (M.MultiStateMixer, {"d_model": 8, "n_heads": 2, "pattern": "fenwick", "max_len": 16, "gate_bias": 3.0},
         {"gate_bias": {"negative"}}),
        (M.mixer_factory, {"pattern": "dyadic", "gate_bias": 3.0, "conv_kernel": 3, "normalize_qk": True},
         {"gate_bias": {"negative"}}),
        (M.ShortConv(M.MultiStateMixer(8, 2, "fenwick", 16), 8, 3).forward, {"x": torch.randn(2, 5, 8, generator=g)}),
        (M.MultiStateMixer(8, 2, "dyadic", 16).forward, {"x": torch.randn(2, 5, 8, generator=g)}),
        (S.mqar_batch, {"gen": torch.Generator().manual_seed(1), "batch": 2, "n": 16, "n_pairs": 2, "n_keys": 4,
                        "n_values": 4}),
        (S.copy_language, {"vocab": 5, "rng": np.random.default_rng(1), "n_succ": 2}),
        (S.lm_batch, {"T": T, "gen": torch.Generator().manual_seed(2), "batch": 2, "n": 20, "p_copy": 0.1,
                      "copy_len": 3}, {"p_copy": {"negative"}}),
    ]
