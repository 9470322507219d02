import math

import pytest
import torch

from icml26.nn.lm import filter_logits, sample, sequence_logprob, to_gpt2, token_logprobs
from icml26.nn.transformer import LMConfig, TinyLM


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return TinyLM(LMConfig(vocab_size=11, d_model=32, n_layers=2, n_heads=4, max_len=40)).eval()


def test_filter_top_k_and_top_p():
    logits = torch.log(torch.tensor([[0.5, 0.3, 0.15, 0.05]]))
    k2 = filter_logits(logits, top_k=2).softmax(-1)
    assert torch.allclose(k2, torch.tensor([[0.625, 0.375, 0.0, 0.0]]))
    p = filter_logits(logits, top_p=0.7).softmax(-1)  # 0.5 + 0.3 reaches 0.7
    assert torch.allclose(p, torch.tensor([[0.625, 0.375, 0.0, 0.0]]))
    assert torch.allclose(filter_logits(logits, top_p=1.0).softmax(-1), logits.exp())
    t = filter_logits(logits, temperature=0.5).softmax(-1)
    assert torch.allclose(t, (logits * 2).softmax(-1))
    for bad in (dict(temperature=0.0), dict(top_k=0), dict(top_p=1.5), dict(temperature=math.nan)):
        with pytest.raises((ValueError, TypeError)):
            filter_logits(logits, **bad)


def test_sampled_logprobs_match_scoring(model):
    gen = torch.Generator().manual_seed(1)
    prompts = [[1, 2, 3], [4, 5], [6, 7, 8]]
    out = sample(model, prompts, 6, generator=gen)
    assert out.tokens.shape == (3, 6) and bool(out.mask.all())
    lp, m = token_logprobs(model, prompts, out.as_lists())
    assert torch.allclose(lp[m], out.logprobs[out.mask], atol=1e-5)
    # at temperature 1 without truncation the sampling law is the model
    assert torch.allclose(out.sample_logprobs, out.logprobs, atol=1e-5)
    seq = sequence_logprob(model, prompts, out.as_lists())
    assert torch.allclose(seq, out.logprobs.sum(1), atol=1e-4)


def test_greedy_equals_generate_greedy_and_eos_stops(model):
    prompt = torch.tensor([[1, 2, 3, 4]])
    g = sample(model, prompt, 5, greedy=True)
    ref = model.generate_greedy(prompt, 5)[:, 4:]
    assert torch.equal(g.tokens, ref)
    eos = int(ref[0, 0])
    g2 = sample(model, prompt, 5, greedy=True, eos_id=eos)
    assert g2.mask[0].tolist() == [True, False, False, False, False] and int(g2.tokens[0, 0]) == eos


def test_sampling_frequencies_follow_the_model(model):
    gen = torch.Generator().manual_seed(0)
    prompt = torch.tensor([[1, 2]]).repeat(4000, 1)
    out = sample(model, prompt, 1, generator=gen, top_k=3)
    logits, _ = model(torch.tensor([[1, 2]]))
    want = filter_logits(logits[0, -1], top_k=3).softmax(-1)
    freq = torch.bincount(out.tokens[:, 0], minlength=11).float() / 4000
    assert float((freq - want.detach()).abs().max()) < 0.03


def test_token_logprobs_is_differentiable(model):
    lp, m = token_logprobs(model, [[1, 2]], [[3, 4, 5]])
    lp.sum().backward()
    assert model.tok.weight.grad is not None
    model.zero_grad()


def test_bad_input(model):
    with pytest.raises(ValueError, match="n_new"):
        sample(model, [[1]], 0)
    with pytest.raises(ValueError, match="prompts"):
        sample(model, [], 2)
    with pytest.raises(ValueError, match="outside"):
        sample(model, [[99]], 2)
    with pytest.raises(ValueError, match="max_len"):
        sample(model, [[1] * 39], 5)
    with pytest.raises(ValueError, match="one row per prompt"):
        token_logprobs(model, [[1]], [[2], [3]])


def test_gpt2_conversion_gives_the_same_logits(model):
    hf = to_gpt2(model)
    idx = torch.randint(0, 11, (2, 9))
    ours, _ = model(idx)
    with torch.no_grad():
        theirs = hf(idx).logits
    assert torch.allclose(ours, theirs, atol=1e-5)
