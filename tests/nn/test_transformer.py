import pytest
import torch

from icml26.nn import LMConfig, TinyLM, cache_len, crop_cache, train_lm


def _model(seed=0, **kw):
    torch.manual_seed(seed)
    return TinyLM(LMConfig(vocab_size=17, d_model=32, n_layers=2, n_heads=4, max_len=64, **kw)).eval()


def test_incremental_decoding_matches_full_forward():
    m = _model()
    idx = torch.randint(0, 17, (3, 20))
    full, _ = m(idx)
    logits, cache = m(idx[:, :7])
    parts = [logits]
    for t in range(7, 20, 3):  # chunks of 3, as a verifier would feed drafted tokens
        chunk = idx[:, t:t + 3]
        out, cache = m(chunk, cache=cache, start=t)
        parts.append(out)
    torch.testing.assert_close(torch.cat(parts, 1), full, atol=1e-5, rtol=1e-5)
    assert cache_len(cache) == 20


def test_causality_future_tokens_do_not_change_past_logits():
    m = _model()
    a = torch.randint(0, 17, (2, 12))
    b = a.clone()
    b[:, 8:] = (b[:, 8:] + 1) % 17
    la, _ = m(a)
    lb, _ = m(b)
    torch.testing.assert_close(la[:, :8], lb[:, :8])
    assert not torch.allclose(la[:, 8:], lb[:, 8:])


def test_crop_cache_then_continue_equals_fresh():
    m = _model()
    idx = torch.randint(0, 17, (1, 15))
    _, cache = m(idx)
    cache = crop_cache(cache, 10)
    out, _ = m(idx[:, 10:], cache=cache, start=10)
    full, _ = m(idx)
    torch.testing.assert_close(out, full[:, 10:], atol=1e-5, rtol=1e-5)


def test_greedy_generation_uses_cache_consistently():
    m = _model()
    prompt = torch.randint(0, 17, (2, 5))
    out = m.generate_greedy(prompt, 8)
    # recompute greedily without the cache
    ref = prompt
    for _ in range(8):
        logits, _ = m(ref)
        ref = torch.cat([ref, logits[:, -1].argmax(-1, keepdim=True)], 1)
    assert torch.equal(out, ref)


def test_training_learns_a_periodic_sequence():
    m = _model()
    pattern = torch.arange(17).repeat(4)

    def batch(gen):
        starts = torch.randint(0, 17, (16,), generator=gen)
        return torch.stack([pattern[s:s + 24] for s in starts])

    losses = train_lm(m, batch, steps=120, lr=3e-3, seed=0)
    assert losses[-1] < 0.2 * losses[0]


def test_validation():
    with pytest.raises(ValueError, match="n_heads"):
        LMConfig(vocab_size=10, d_model=30, n_heads=4)
    with pytest.raises(ValueError, match="vocab_size"):
        LMConfig(vocab_size=0)
    m = _model()
    with pytest.raises(ValueError, match="max_len"):
        m(torch.zeros(1, 65, dtype=torch.long))
    with pytest.raises(ValueError, match="idx"):
        m(torch.zeros(5, dtype=torch.long))


def test_custom_mixer_replaces_attention():
    class ZeroMixer(torch.nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.lin = torch.nn.Linear(cfg.d_model, cfg.d_model)

        def forward(self, x, past=None):
            return 0.0 * self.lin(x), None

    torch.manual_seed(0)
    m = TinyLM(LMConfig(vocab_size=17, d_model=32, n_layers=2, n_heads=4, max_len=64), mixer=ZeroMixer).eval()
    assert all(isinstance(b.attn, ZeroMixer) for b in m.blocks)
    a = torch.randint(0, 17, (2, 10))
    b = a.clone()
    b[:, 0] = (b[:, 0] + 1) % 17
    la, _ = m(a)
    lb, _ = m(b)
    torch.testing.assert_close(la[:, 1:], lb[:, 1:])  # no token mixing at all


def test_masked_targets_score_only_the_kept_positions():
    from icml26.nn import lm_loss

    m = _model()
    batch = torch.randint(0, 17, (3, 12))
    target = torch.full((3, 11), -100)
    target[:, 5] = batch[:, 6]
    logits, _ = m(batch[:, :-1])
    ref = torch.nn.functional.cross_entropy(logits[:, 5], batch[:, 6])
    torch.testing.assert_close(lm_loss(m, batch, target=target), ref)
    with pytest.raises(ValueError, match="target"):
        lm_loss(m, batch, target=target[:, :5])
    losses = train_lm(m, lambda g: (batch, target), steps=3, seed=0)
    assert len(losses) == 3


def test_on_step_callback_sees_every_step():
    m = _model()
    seen = []

    def batch(gen):
        return torch.randint(0, 17, (4, 10), generator=gen)

    train_lm(m, batch, steps=5, seed=0, on_step=lambda s, model: seen.append((s, model.training)))
    assert [s for s, _ in seen] == list(range(5))


def _split_copy(fused: TinyLM) -> TinyLM:
    """A TinyLM with SplitProjAttention holding ``fused``'s weights (through ``from_fused``)."""
    from icml26.nn.transformer import SplitProjAttention

    torch.manual_seed(123)
    split = TinyLM(fused.cfg, mixer=SplitProjAttention)
    state = {k: v for k, v in fused.state_dict().items() if ".attn." not in k}
    for i, blk in enumerate(fused.blocks):
        for k, v in SplitProjAttention.from_fused(blk.attn).state_dict().items():
            state[f"blocks.{i}.attn.{k}"] = v
    split.load_state_dict(state)
    return split.train(fused.training)


def test_split_projection_attention_computes_the_fused_attention():
    """Same weights, same logits, full forward and incremental decoding with the KV cache."""
    fused = _model(seed=3)
    split = _split_copy(fused)
    idx = torch.randint(0, 17, (3, 20), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        a, cache_a = fused(idx)
        b, cache_b = split(idx)
        torch.testing.assert_close(b, a, rtol=0, atol=1e-6)
        for (ka, va), (kb, vb) in zip(cache_a, cache_b):
            torch.testing.assert_close(kb, ka, rtol=0, atol=1e-6)
            torch.testing.assert_close(vb, va, rtol=0, atol=1e-6)
        _, cache = split(idx[:, :7])
        parts = []
        for t in range(7, 20, 4):
            out, cache = split(idx[:, t:t + 4], cache=cache, start=t)
            parts.append(out)
        torch.testing.assert_close(torch.cat(parts, 1), a[:, 7:], rtol=0, atol=1e-6)


def test_split_projection_conversion_round_trips():
    from icml26.nn.transformer import CausalSelfAttention, SplitProjAttention

    cfg = LMConfig(vocab_size=5, d_model=12, n_heads=3, dropout=0.1)
    torch.manual_seed(0)
    fused = CausalSelfAttention(cfg).double().eval()
    state = torch.get_rng_state()
    split = SplitProjAttention.from_fused(fused)
    back = split.to_fused()
    assert torch.equal(torch.get_rng_state(), state)  # conversion leaves the global random state alone
    assert not split.training and not back.training and split.dropout == back.dropout == 0.1
    assert split.q_proj.weight.dtype == torch.float64
    for k, v in fused.state_dict().items():
        assert torch.equal(back.state_dict()[k], v)
    d = cfg.d_model
    assert torch.equal(split.k_proj.weight, fused.qkv.weight[d:2 * d])
    assert torch.equal(split.o_proj.bias, fused.proj.bias)
    again = SplitProjAttention.from_fused(back)
    for k, v in split.state_dict().items():
        assert torch.equal(again.state_dict()[k], v)
    x = torch.randn(2, 6, d, dtype=torch.float64)
    with torch.no_grad():
        torch.testing.assert_close(split(x)[0], fused(x)[0], rtol=0, atol=1e-12)
    split.q_proj.weight.data.add_(1.0)  # a copy, not a view
    assert not torch.equal(split.q_proj.weight, fused.qkv.weight[:d])
    with pytest.raises(TypeError, match="attn"):
        SplitProjAttention.from_fused(split)
    with pytest.raises(TypeError, match="cfg"):
        SplitProjAttention({"d_model": 12})
