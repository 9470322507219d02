"""The Hugging Face port of the shared TinyLM (``icml26.nn.hf.to_gpt2``)."""

import pytest
import torch

from icml26.llm.minedraft.method import generate_sd
from icml26.nn.transformer import LMConfig, TinyLM


@pytest.fixture(scope="module")
def models():
    torch.manual_seed(0)
    tg = TinyLM(LMConfig(vocab_size=12, d_model=32, n_layers=2, n_heads=4, max_len=96)).eval()
    dr = TinyLM(LMConfig(vocab_size=12, d_model=16, n_layers=1, n_heads=2, max_len=96)).eval()
    return tg, dr


def test_hf_assisted_generation_agrees(models):
    """Hugging Face assisted generation (the standard SD most users know) gives the same tokens."""
    transformers = pytest.importorskip("transformers")
    from icml26.nn.hf import to_gpt2

    tg, dr = models
    ht, hd = to_gpt2(tg), to_gpt2(dr)
    prompt = torch.tensor([[3, 1, 4, 1, 5, 9]])
    with torch.no_grad():
        torch.testing.assert_close(ht(prompt).logits, tg(prompt)[0], atol=1e-4, rtol=1e-4)
    hd.generation_config.num_assistant_tokens = 4
    hd.generation_config.num_assistant_tokens_schedule = "constant"
    out = ht.generate(prompt, assistant_model=hd, do_sample=False, max_new_tokens=15, min_new_tokens=15,
                      pad_token_id=0, attention_mask=torch.ones_like(prompt))
    ours = generate_sd(tg, dr, prompt, 15, 4, 1).outputs[0]
    assert out[0, 6:].tolist() == ours


def test_to_gpt2_rejects_other_models():
    pytest.importorskip("transformers")
    from icml26.nn.hf import to_gpt2

    with pytest.raises(ValueError, match="model"):
        to_gpt2(torch.nn.Linear(2, 2))
