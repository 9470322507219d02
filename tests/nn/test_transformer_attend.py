"""The shared attention core ``causal_attend`` changes no bit of either attention layout.

``CausalSelfAttention.forward`` and ``SplitProjAttention.forward`` used to carry their own copy of
the core (KV-cache concat, causal mask, scaled dot product, merge of heads). The two functions
below are those forwards verbatim, kept to check that the refactored layers give exactly equal
(``torch.equal``) outputs, caches and gradients: without a cache, across incremental cached steps,
for several batch/sequence sizes and dtypes, in train mode with dropout, and in greedy generation.
"""

import types

import pytest
import torch
import torch.nn.functional as F

from icml26.nn.transformer import CausalSelfAttention, LMConfig, SplitProjAttention, TinyLM


# ------------------------------------------------------------ verbatim copies of the old forwards
def _old_fused_forward(self, x, past=None):
    b, t, d = x.shape
    q, k, v = self.qkv(x).split(d, dim=-1)
    q, k, v = (z.view(b, t, self.n_heads, self.head_dim).transpose(1, 2) for z in (q, k, v))
    if past is not None:
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
    s = k.shape[2]
    # query i (absolute position s - t + i) sees keys 0 .. s - t + i
    mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(diagonal=s - t)
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                       dropout_p=self.dropout if self.training else 0.0)
    y = y.transpose(1, 2).reshape(b, t, d)
    return self.proj(y), (k, v)


def _old_split_forward(self, x, past=None):
    b, t, d = x.shape
    q, k, v = (p(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
               for p in (self.q_proj, self.k_proj, self.v_proj))
    if past is not None:
        k = torch.cat([past[0], k], dim=2)
        v = torch.cat([past[1], v], dim=2)
    s = k.shape[2]
    mask = torch.ones(t, s, dtype=torch.bool, device=x.device).tril(diagonal=s - t)
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                       dropout_p=self.dropout if self.training else 0.0)
    return self.o_proj(y.transpose(1, 2).reshape(b, t, d)), (k, v)


_LAYOUTS = [(CausalSelfAttention, _old_fused_forward), (SplitProjAttention, _old_split_forward)]


def _layer(cls, d_model=32, n_heads=4, dropout=0.0, dtype=torch.float32, seed=0):
    torch.manual_seed(seed)
    layer = cls(LMConfig(vocab_size=1, d_model=d_model, n_heads=n_heads, dropout=dropout)).to(dtype)
    for p in layer.parameters():  # non-zero biases, so every term of the projections matters
        torch.nn.init.normal_(p, std=0.3)
    return layer


def _assert_same(a, b):
    """``a`` and ``b``: (y, (k, v)) pairs; every tensor must be exactly equal."""
    assert torch.equal(a[0], b[0])
    assert torch.equal(a[1][0], b[1][0])
    assert torch.equal(a[1][1], b[1][1])


@pytest.mark.parametrize("cls,old", _LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("b,t,d_model,n_heads", [(1, 1, 8, 1), (2, 7, 32, 4), (3, 16, 48, 6), (5, 3, 16, 8)])
def test_no_cache_outputs_identical(cls, old, dtype, b, t, d_model, n_heads):
    layer = _layer(cls, d_model, n_heads, dtype=dtype).eval()
    x = torch.randn(b, t, d_model, dtype=dtype)
    with torch.no_grad():
        _assert_same(layer(x), old(layer, x))
        _assert_same(layer(x, None), old(layer, x, None))


@pytest.mark.parametrize("cls,old", _LAYOUTS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("b,chunks", [(1, [5, 1, 1, 1]), (3, [4, 3, 2, 1, 6]), (2, [1, 1, 1, 1, 1, 1])])
def test_incremental_cache_steps_identical(cls, old, dtype, b, chunks):
    layer = _layer(cls, dtype=dtype).eval()
    x = torch.randn(b, sum(chunks), 32, dtype=dtype)
    past_new = past_old = None
    start = 0
    with torch.no_grad():
        for c in chunks:
            xs = x[:, start:start + c]
            y_new, past_new = layer(xs, past_new)
            y_old, past_old = old(layer, xs, past_old)
            _assert_same((y_new, past_new), (y_old, past_old))
            start += c
    assert past_new[0].shape[2] == sum(chunks)


@pytest.mark.parametrize("cls,old", _LAYOUTS)
@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_gradients_identical_with_cache_and_dropout(cls, old, dropout):
    """Train mode: same outputs, same gradients (parameters, input and cached k/v), same RNG use."""
    layer = _layer(cls, dropout=dropout).train()
    x = torch.randn(2, 5, 32)
    past = (torch.randn(2, 4, 3, 8), torch.randn(2, 4, 3, 8))
    w = torch.randn(2, 5, 32)

    def run(fn):
        layer.zero_grad(set_to_none=True)
        xi = x.clone().requires_grad_(True)
        pk, pv = (p.clone().requires_grad_(True) for p in past)
        torch.manual_seed(123)
        y, (k, v) = fn(xi, (pk, pv))
        ((y * w).sum() + k.square().sum() + v.sum()).backward()
        grads = [xi.grad, pk.grad, pv.grad] + [p.grad for p in layer.parameters()]
        return y.detach(), k.detach(), v.detach(), grads, torch.get_rng_state()

    new = run(layer)
    ref = run(lambda xi, p: old(layer, xi, p))
    for a, b_ in zip(new[:3], ref[:3]):
        assert torch.equal(a, b_)
    assert len(new[3]) == len(ref[3])
    for a, b_ in zip(new[3], ref[3]):
        assert torch.equal(a, b_)
    assert torch.equal(new[4], ref[4])


def _with_old_forward(model, old):
    """Bind the verbatim old forward onto every attention module of ``model`` (instance attribute)."""
    for blk in model.blocks:
        blk.attn.forward = types.MethodType(old, blk.attn)
    return model


@pytest.mark.parametrize("mixer,old", [(None, _old_fused_forward), (SplitProjAttention, _old_split_forward)])
def test_tinylm_forward_and_generation_identical(mixer, old):
    cfg = LMConfig(vocab_size=23, d_model=32, n_layers=3, n_heads=4, max_len=64)
    torch.manual_seed(1)
    new_model = TinyLM(cfg, mixer=mixer).eval()
    old_model = TinyLM(cfg, mixer=mixer).eval()
    old_model.load_state_dict(new_model.state_dict())
    _with_old_forward(old_model, old)
    prompt = torch.randint(0, 23, (3, 6))
    with torch.no_grad():
        ln, cn = new_model(prompt)
        lo, co = old_model(prompt)
        assert torch.equal(ln, lo)
        for (kn, vn), (ko, vo) in zip(cn, co):
            assert torch.equal(kn, ko) and torch.equal(vn, vo)
        nxt = prompt[:, :2]
        ln, cn = new_model(nxt, cache=cn, start=6)
        lo, co = old_model(nxt, cache=co, start=6)
        assert torch.equal(ln, lo)
    gen_new = new_model.generate_greedy(prompt, 12)
    gen_old = old_model.generate_greedy(prompt, 12)
    assert torch.equal(gen_new, gen_old)


def test_tinylm_training_step_identical():
    """One optimizer step of a TinyLM (dropout on) lands on exactly the same weights either way."""
    cfg = LMConfig(vocab_size=19, d_model=32, n_layers=2, n_heads=4, max_len=32, dropout=0.1)
    torch.manual_seed(2)
    new_model = TinyLM(cfg).train()
    old_model = TinyLM(cfg).train()
    old_model.load_state_dict(new_model.state_dict())
    _with_old_forward(old_model, _old_fused_forward)
    idx = torch.randint(0, 19, (4, 12))
    for model in (new_model, old_model):
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        torch.manual_seed(7)
        for _ in range(3):
            logits, _ = model(idx[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), idx[:, 1:].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
    for (n1, p1), (n2, p2) in zip(new_model.state_dict().items(), old_model.state_dict().items()):
        assert n1 == n2 and torch.equal(p1, p2), n1
