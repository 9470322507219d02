"""Known answers for lora-rlvr: the initialisations, the one-step closed form, the Eckart-Young floor."""

import math

import pytest
import torch
from torch import nn

from icml26.llm.lora_rlvr.method import (INITS, adapter_init, dapo_config, lora_init_hook, lora_one_step_delta,
                                         one_step_gap, optimal_gap)


def _w(out=12, inn=8, seed=0):
    return torch.randn(out, inn, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("kind", ["rlpo", "rlmo", "random_orthonormal"])
def test_orthonormal_inits_have_orthonormal_rows_and_zero_b(kind):
    W = _w()
    A, B, W_new = adapter_init(W, 3, kind)
    assert torch.allclose(A @ A.T, torch.eye(3, dtype=A.dtype), atol=1e-10)
    assert torch.count_nonzero(B) == 0 and W_new is None


def test_rlpo_and_rlmo_are_top_and_bottom_right_singular_vectors():
    W = _w()
    _, _, vh = torch.linalg.svd(W, full_matrices=False)
    A_top, _, _ = adapter_init(W, 2, "rlpo")
    A_bot, _, _ = adapter_init(W, 2, "rlmo")
    assert torch.allclose(A_top, vh[:2])
    assert torch.allclose(A_bot, vh[-2:])


def test_gaussian_scaled_has_the_orthonormal_frobenius_norm():
    A, _, _ = adapter_init(_w(), 4, "gaussian_scaled", seed=3)
    assert math.isclose(float(A.norm()), 2.0, rel_tol=1e-12)


def test_kaiming_matches_peft_default_bound():
    A, B, _ = adapter_init(_w(12, 64), 4, "kaiming")
    assert float(A.abs().max()) <= 1 / 8 and torch.count_nonzero(B) == 0


@pytest.mark.parametrize("kind", ["pissa", "milora"])
def test_pissa_and_milora_keep_the_weight(kind):
    W = _w()
    A, B, W_new = adapter_init(W, 3, kind, scale=0.5)
    assert torch.allclose(W_new + 0.5 * B @ A, W, atol=1e-10)


def _tiny_lm():
    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(0)
    return TinyLM(LMConfig(vocab_size=11, d_model=16, n_layers=1, n_heads=2, max_len=8))


def test_pissa_hook_matches_peft_pissa():
    from icml26.nn.lora import add_lora, lora_layers

    from icml26.llm.lora_rlvr.method import TARGETS  # attention and the MLP, as in the experiment

    ours = add_lora(_tiny_lm(), r=2, alpha=2, target_modules=list(TARGETS), init=lora_init_hook("pissa", 2))
    ref = add_lora(_tiny_lm(), r=2, alpha=2, target_modules=list(TARGETS), init="pissa")
    assert len(lora_layers(ours)) == len(lora_layers(ref)) == 4
    for a, b in zip(lora_layers(ours), lora_layers(ref)):
        da = a.get_delta_weight("default")
        db = b.get_delta_weight("default")
        assert torch.allclose(da, db, atol=1e-4)  # B A is sign-free
        assert torch.allclose(a.get_base_layer().weight, b.get_base_layer().weight, atol=1e-4)


def test_one_sgd_step_from_b_zero_matches_the_closed_form():
    from icml26.nn.lora import add_lora, delta_weights

    class One(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 5, bias=False)

        def forward(self, x):
            return self.lin(x)

    torch.manual_seed(1)
    model = One()
    W = model.lin.weight.detach().clone()
    peft = add_lora(model, r=2, alpha=2, target_modules=["lin"], init=lora_init_hook("rlpo", 2))
    G = torch.randn(5, 6, generator=torch.Generator().manual_seed(2))
    x = torch.eye(6)
    opt = torch.optim.SGD([p for p in peft.parameters() if p.requires_grad], lr=0.1)
    loss = (peft(x) * G.T).sum()  # d loss / d W_eff = G
    opt.zero_grad()
    loss.backward()
    opt.step()
    delta = next(iter(delta_weights(peft).values()))
    A, _, _ = adapter_init(W, 2, "rlpo")
    assert torch.allclose(delta.double(), lora_one_step_delta(G.double(), A.double(), 0.1), atol=1e-6)


def test_orthonormal_steps_never_exceed_the_full_step_and_pissa_can():
    W = _w(16, 10) * 3  # top singular value > 1
    G = _w(16, 10, seed=5)
    for kind in ("rlpo", "rlmo", "random_orthonormal"):
        A, _, _ = adapter_init(W, 3, kind, seed=1)
        assert one_step_gap(G, A)["norm_ratio"] <= 1 + 1e-12
    A, _, _ = adapter_init(W, 3, "pissa")
    assert one_step_gap(G, A)["norm_ratio"] > 1


def test_eckart_young_floor_by_brute_force():
    G = _w(9, 7, seed=7)
    r = 2
    floor = optimal_gap(G, r)
    _, _, vh = torch.linalg.svd(G, full_matrices=False)
    assert math.isclose(one_step_gap(G, vh[:r])["gap"], floor, rel_tol=1e-10)
    gen = torch.Generator().manual_seed(0)
    for _ in range(1000):
        A = torch.randn(r, 7, generator=gen, dtype=torch.float64)
        A = A * (math.sqrt(r) / A.norm()) * float(torch.rand(1, generator=gen) * 2)
        assert one_step_gap(G, A)["gap"] >= floor - 1e-12


def test_floor_is_zero_at_full_rank_and_gap_is_one_for_orthogonal_complement():
    G = _w(6, 4, seed=2)
    assert optimal_gap(G, 4) < 1e-12
    _, _, vh = torch.linalg.svd(G, full_matrices=True)
    assert math.isclose(one_step_gap(G[:, :], torch.zeros(1, 4, dtype=G.dtype))["gap"], 1.0)
    assert one_step_gap(G, vh)["gap"] < 1e-12


def test_dapo_config_is_token_level_clip_higher_without_kl():
    cfg = dapo_config(1e-3)
    assert cfg.aggregation == "token" and cfg.beta == 0 and cfg.eps_high > cfg.eps_low


@pytest.mark.parametrize("bad", [dict(kind="lora"), dict(r=0), dict(r=99), dict(kind=3)])
def test_adapter_init_rejects_bad_input(bad):
    args = dict(W=_w(), r=2, kind="rlpo", **{})
    args.update(bad)
    name = next(iter(bad))
    with pytest.raises((ValueError, TypeError), match=name):
        adapter_init(**args)


def test_every_init_is_listed():
    assert set(INITS) == {"kaiming", "gaussian_scaled", "random_orthonormal", "rlpo", "rlmo", "pissa", "milora"}


def test_shared_sign_test_gives_the_former_one_sided_p_values():
    """core.stats.sign_test on +-1 indicators and tie-free differences equals binomtest(wins, n, 'greater')."""
    import numpy as np
    from scipy.stats import binomtest

    from icml26.core.stats import sign_test

    for n in (5, 7):
        for wins in range(n + 1):
            ind = np.r_[np.ones(wins, dtype=bool), np.zeros(n - wins, dtype=bool)]
            want = binomtest(wins, n, 0.5, alternative="greater").pvalue
            assert sign_test(2.0 * ind - 1, alternative="greater") == pytest.approx(want, rel=1e-12)
    assert sign_test(np.array([0.1, 0.2, -0.05, 0.3, 0.4]), alternative="greater") == pytest.approx(6 / 32)


def _rl_rows(rlpo, kaiming, gauss, rlmo, kl_rlpo, kl_lora, n=5):
    return [{"rl/full/gain": 0.08, "rl/kaiming/gain": 0.05,
             "rl/rlpo/test": rlpo[i], "rl/kaiming/test": kaiming[i], "rl/gaussian_scaled/test": gauss[i],
             "rl/rlmo/test": rlmo[i], "rl/rlpo/max_kl": kl_rlpo[i], "rl/kaiming/max_kl": kl_lora[i],
             "rl/rlpo/hi_lr/max_kl": kl_rlpo[i] * 10, "rl/kaiming/hi_lr/max_kl": kl_lora[i] * 10,
             "rl/rlpo_vs_lora/boot_lo": -0.01, "rl/rlpo_vs_lora/boot_hi": 0.05} for i in range(n)]


def test_rlpo_rule_gives_no_partly_for_a_mean_win_alone():
    """Review rule: a higher mean EM with the per-seed conditions failing is not-reproduced (was partly)."""
    from icml26.llm.lora_rlvr.experiment import check_rlpo_beats_lora

    rows = _rl_rows([0.90, 0.80, 0.60, 0.60, 0.60], [0.70] * 5, [0.70] * 5, [0.60] * 5, [0.05] * 5, [0.01] * 5)
    v = check_rlpo_beats_lora(rows)
    assert v.status == "not-reproduced" and "revised by review after" in v.evidence
    assert "under the former rule these rows read partly" in v.evidence  # the mean win alone made it partly


def test_rlpo_rule_tiers():
    from icml26.llm.lora_rlvr.experiment import check_rlpo_beats_lora

    acc4 = [0.8, 0.8, 0.8, 0.8, 0.6]
    # accuracy half in 4/5 seeds, KL higher everywhere: partly
    assert check_rlpo_beats_lora(_rl_rows(acc4, [0.7] * 5, [0.7] * 5, [0.7] * 5, [0.05] * 5,
                                          [0.01] * 5)).status == "partly"
    # every condition in 4/5 seeds: reproduced
    assert check_rlpo_beats_lora(_rl_rows(acc4, [0.7] * 5, [0.7] * 5, [0.7] * 5, [0.005] * 5,
                                          [0.01] * 5)).status == "reproduced"


def test_best_on_grid_picks_the_best_validation_lr_and_the_smaller_on_ties(monkeypatch):
    """Every arm (full fine-tuning on its own grid too) is reported at its best validation lr."""
    from icml26.llm.lora_rlvr import experiment as E

    vals = {1e-3: 0.70, 3e-3: 0.75, 1e-2: 0.75}
    calls = []

    def fake(base, arm, lr, profile, seed, val, test):
        calls.append((arm, lr))
        return {"val": vals[lr], "test": 0.0}

    monkeypatch.setattr(E, "_train_arm", fake)
    best, runs = E._best_on_grid(None, "rlpo", [1e-3, 3e-3, 1e-2], None, 0, None, None)
    assert best == 3e-3 and set(runs) == set(vals) and calls == [("rlpo", lr) for lr in (1e-3, 3e-3, 1e-2)]


def test_every_linear_layer_of_a_block_is_adapted():
    """TARGETS reach attention and the MLP's Sequential children (dotted names), never the head."""
    from icml26.llm.lora_rlvr.method import TARGETS, make_arm
    from icml26.nn.lora import lora_layers

    model, params = make_arm(_tiny_lm(), "rlpo", 2)
    assert len(lora_layers(model)) == 4 and set(TARGETS) == {"qkv", "proj", "mlp.0", "mlp.2"}
    # trainable: A (2, in) and B (out, 2) per layer: qkv 16->48, proj 16->16, mlp.0 16->64, mlp.2 64->16
    assert sum(p.numel() for p in params) == sum(2 * i + o * 2 for i, o in ((16, 48), (16, 16), (16, 64), (64, 16)))


def _old_sft(base, profile, seed):
    """Copy of ``experiment._sft``'s private loop before issue 13 (kept to pin the port to nn.mlp.fit)."""
    from icml26.llm.lora_rlvr.method import make_arm
    from icml26.llm.lora_rlvr.setting import problems, training_batch
    from icml26.nn.train import lm_loss

    train_items = problems(4000, levels=(1,), seed=90_000 + seed)
    held = problems(256, levels=(1,), seed=91_000 + seed)
    held_ids, held_tgt = training_batch(held, 24)
    out, models = {}, {}
    for arm in ("kaiming", "pissa", "milora"):
        model, params = make_arm(base, arm, int(profile["rank"]), seed=seed)
        opt = torch.optim.Adam(params, lr=float(profile["sft_lr"]))
        gen = torch.Generator().manual_seed(seed)
        model.train()
        for _ in range(int(profile["sft_steps"])):
            idx = torch.randint(0, len(train_items), (32,), generator=gen).tolist()
            ids, tgt = training_batch([train_items[i] for i in idx], 24)
            loss = lm_loss(model, ids, target=tgt)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            out[f"sft/{arm}/loss"] = float(lm_loss(model, held_ids, target=held_tgt))
        models[arm] = model
    return out, models


def test_sft_on_the_shared_fit_is_bit_identical_to_its_former_private_loop(monkeypatch):
    """_sft now trains with nn.mlp.fit: same held-out losses and same weights, bit for bit."""
    from icml26.llm.lora_rlvr import experiment as E
    from icml26.llm.lora_rlvr.method import make_arm
    from icml26.llm.lora_rlvr.setting import tokenizer
    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(3)
    base = TinyLM(LMConfig(vocab_size=tokenizer().vocab_size, d_model=16, n_layers=1, n_heads=2, max_len=32))
    profile = {"rank": 2, "sft_steps": 4, "sft_lr": 3e-3}
    seed = 101
    old, old_models = _old_sft(base, profile, seed)
    new_models = []

    def spy(*a, **k):
        model, params = make_arm(*a, **k)
        new_models.append(model)
        return model, params

    monkeypatch.setattr(E, "make_arm", spy)
    new = E._sft(base, profile, seed)
    assert new == old
    assert len(new_models) == 3
    for model, arm in zip(new_models, ("kaiming", "pissa", "milora")):
        a, b = model.state_dict(), old_models[arm].state_dict()
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        assert not model.training
