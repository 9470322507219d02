"""Example calls of the subgrammar public API for the common bad-input test (``Paper.examples``)."""

from __future__ import annotations


def EXAMPLES() -> list:
    import numpy as np

    from icml26.llm.cfg_subgrammars import method as M
    from icml26.llm.cfg_subgrammars import setting as S

    G = M.PCFG(M.KL_EXAMPLE)
    sent = ["sL2_2", "a", "c", "b", "eL2_2"]
    spans = {("L2_2", 1, 4): G.inside_logprob(["a", "c", "b"], "L2_2")}
    rng = np.random.default_rng(0)
    return [
        (M.PCFG, {"rules": M.KL_EXAMPLE, "start": "L1", "tol": 1e-9}),
        (G.sample, {"rng": np.random.default_rng(1), "max_len": 20, "symbol": "L2_3"}),
        (G.sample_with_spans, {"rng": np.random.default_rng(2), "max_len": 20, "symbol": "L2_1"}),
        (M.decompose_sentence, {"token_logq": np.full(len(sent) + 1, -0.5), "tokens": sent,
                                "logp_total": float(np.log(0.3)) + spans[("L2_2", 1, 4)], "span_logp": spans,
                                "names": ("L2_1", "L2_2", "L2_3")}),
        (M.linear_cka, {"X": rng.normal(size=(10, 3)), "Y": rng.normal(size=(10, 4))}),
        (S.sampler, {"G": G, "corpus": S.Corpus(G), "batch": 4, "max_len": 20, "seed": 0}),
        (S.pretraining_grammar, {"G": G, "A": "L2_1"}),
        (S.stage_grammar, {"G": G, "A": "L2_3"}),
    ]
