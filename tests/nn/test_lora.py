import pytest
import torch

from icml26.nn.lora import add_lora, delta_weights, lora_layers, merge, scaling, trainable_parameters, unmerge
from icml26.nn.transformer import LMConfig, TinyLM


def _model():
    torch.manual_seed(0)
    return TinyLM(LMConfig(vocab_size=13, d_model=16, n_layers=2, n_heads=2, max_len=16)).eval()


def test_zero_initialised_adapter_leaves_outputs_unchanged():
    base = _model()
    idx = torch.randint(0, 13, (2, 7))
    ref, _ = base(idx)
    lm = add_lora(_model(), r=4, target_modules=["qkv", "proj"])
    out, _ = lm(idx)
    assert torch.allclose(ref, out, atol=1e-6)
    assert len(lora_layers(lm)) == 4 and scaling(lm) == 1.0
    n_train = sum(p.numel() for p in trainable_parameters(lm))
    assert n_train == 2 * (4 * 16 + 48 * 4) + 2 * (4 * 16 + 16 * 4)


def test_merge_unmerge_round_trip_after_training():
    lm = add_lora(_model(), r=2, alpha=4, target_modules=["qkv"])
    with torch.no_grad():
        for layer in lora_layers(lm):
            layer.lora_B["default"].weight.normal_()
    idx = torch.randint(0, 13, (3, 5))
    before, _ = lm(idx)
    merge(lm)
    merged, _ = lm(idx)
    unmerge(lm)
    after, _ = lm(idx)
    assert torch.allclose(before, merged, atol=1e-5) and torch.allclose(before, after, atol=1e-5)
    d = delta_weights(lm)
    assert len(d) == 2 and all(v.shape == (48, 16) for v in d.values())


def test_custom_init_hook_sets_a_and_b():
    def svd_init(w, a, b):
        _, _, vh = torch.linalg.svd(w, full_matrices=False)
        return vh[: a.shape[0]].clone(), torch.zeros_like(b), None

    lm = add_lora(_model(), r=3, target_modules=["proj"], init=svd_init)
    for layer in lora_layers(lm):
        a = layer.lora_A["default"].weight
        assert torch.allclose(a @ a.T, torch.eye(3), atol=1e-5)


def test_pissa_keeps_the_function():
    base = _model()
    idx = torch.randint(0, 13, (2, 6))
    ref, _ = base(idx)
    lm = add_lora(_model(), r=2, target_modules=["qkv", "proj"], init="pissa")
    out, _ = lm(idx)
    assert torch.allclose(ref, out, atol=1e-4)


def test_bad_input():
    with pytest.raises(ValueError, match="target_modules"):
        add_lora(_model(), r=2, target_modules=["nope"])
    with pytest.raises((ValueError, TypeError), match="r"):
        add_lora(_model(), r=0, target_modules=["qkv"])
    with pytest.raises(ValueError, match="init"):
        add_lora(_model(), r=2, target_modules=["qkv"], init="kaiming")
    with pytest.raises(ValueError, match="alpha"):
        add_lora(_model(), r=2, alpha=float("nan"), target_modules=["qkv"])


def test_dotted_targets_reach_the_mlp_sequential_children():
    lm = add_lora(_model(), r=2, target_modules=["qkv", "proj", "mlp.0", "mlp.2"])
    names = sorted(n[n.index("blocks."):] for n, m in lm.named_modules() if m in lora_layers(lm))
    assert names == [f"blocks.{i}.{s}" for i in range(2) for s in ("attn.proj", "attn.qkv", "mlp.0", "mlp.2")]
    # mlp.0 is (64, 16), mlp.2 is (16, 64): A (2, in), B (out, 2) per layer, on top of the attention adapters
    n_train = sum(p.numel() for p in trainable_parameters(lm))
    assert n_train == 2 * (2 * 16 + 48 * 2) + 2 * (2 * 16 + 16 * 2) + 2 * (2 * 16 + 64 * 2) + 2 * (2 * 64 + 16 * 2)
    idx = torch.randint(0, 13, (2, 7))
    ref, _ = _model()(idx)
    out, _ = lm(idx)
    assert torch.allclose(ref, out, atol=1e-6)  # B = 0: the function is unchanged
    # a full name selects one module only; a dotted name that is not a suffix at a dot boundary matches nothing
    one = add_lora(_model(), r=2, target_modules=["blocks.1.mlp.2"])
    assert len(lora_layers(one)) == 1
    with pytest.raises(ValueError, match="target_modules"):
        add_lora(_model(), r=2, target_modules=["lp.0"])
    with pytest.raises(TypeError, match="target_modules"):
        add_lora(_model(), r=2, target_modules=["qkv", 3])


def test_last_name_targets_select_as_before():
    # the last-name rule is unchanged: "qkv" and "proj" pick the attention layers only, never the MLP
    lm = add_lora(_model(), r=2, target_modules=["qkv", "proj"])
    names = sorted(n.rsplit(".", 1)[-1] for n, m in lm.named_modules() if m in lora_layers(lm))
    assert names == ["proj", "proj", "qkv", "qkv"]
    with pytest.raises(ValueError, match="target_modules"):
        add_lora(_model(), r=2, target_modules=["mlp"])  # a Sequential, not an nn.Linear


def test_a_target_that_also_matches_a_container_is_refused_by_peft():
    # "0" names mlp.0 (a Linear) and blocks.0 (a Block): our check passes, peft refuses the Block (documented)
    with pytest.raises(ValueError, match="not supported"):
        add_lora(_model(), r=2, target_modules=["0"])
    with pytest.raises(ValueError, match="target_modules"):
        add_lora(_model(), r=2, target_modules="qkv")
