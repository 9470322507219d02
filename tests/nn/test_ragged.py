"""The ragged KV cache: equal to a full forward, per row, under any chunking and after rejections."""

import pytest
import torch

from icml26.nn.ragged import RaggedCache, ragged_forward
from icml26.nn.transformer import LMConfig, TinyLM


@pytest.fixture(scope="module")
def models():
    torch.manual_seed(0)
    tg = TinyLM(LMConfig(vocab_size=12, d_model=32, n_layers=2, n_heads=4, max_len=96)).eval()
    return tg, None


def test_ragged_forward_matches_full_forward(models):
    tg, _ = models
    g = torch.Generator().manual_seed(1)
    seqs = [torch.randint(0, 12, (n,), generator=g).tolist() for n in (9, 13, 7)]
    cache = RaggedCache(tg, 3, 40)
    # feed each row in chunks of different sizes, padded to a common width
    fed = [0, 0, 0]
    for chunk in ((3, 5, 2), (4, 1, 3), (2, 7, 2)):
        t = max(chunk)
        idx = torch.zeros(3, t, dtype=torch.long)
        for i, c in enumerate(chunk):
            idx[i, :c] = torch.tensor(seqs[i][fed[i]:fed[i] + c])
        logits = ragged_forward(tg, cache, idx, torch.arange(3), torch.tensor(chunk))
        for i, c in enumerate(chunk):
            with torch.no_grad():
                full, _ = tg(torch.tensor([seqs[i][:fed[i] + c]]))
            torch.testing.assert_close(logits[i, :c], full[0, fed[i]:fed[i] + c], atol=1e-5, rtol=1e-5)
            fed[i] += c
    assert cache.length.tolist() == fed


def test_ragged_forward_subset_rows_and_stale_entries(models):
    tg, _ = models
    seq = list(range(10))
    cache = RaggedCache(tg, 2, 30)
    ragged_forward(tg, cache, torch.tensor([seq[:6], seq[:6]]), torch.arange(2), torch.tensor([6, 6]))
    cache.length[1] = 4  # "reject" the last two positions of row 1, then append different tokens
    out = ragged_forward(tg, cache, torch.tensor([[7, 8]]), torch.tensor([1]), torch.tensor([2]))
    with torch.no_grad():
        full, _ = tg(torch.tensor([seq[:4] + [7, 8]]))
    torch.testing.assert_close(out[0], full[0, 4:6], atol=1e-5, rtol=1e-5)


def test_ragged_bad_input_and_meter(models):
    tg, _ = models
    with pytest.raises(ValueError, match="batch"):
        RaggedCache(tg, 0, 10)
    with pytest.raises(ValueError, match="max_len"):
        RaggedCache(tg, 1, 1000)
    cache = RaggedCache(tg, 1, 8)
    with pytest.raises(ValueError, match="idx"):
        ragged_forward(tg, cache, torch.zeros(2, 3, dtype=torch.long), torch.arange(1), torch.tensor([3]))
    calls = []

    class M:
        def charge(self, model, n, t, s):
            calls.append((n, t, s))

    ragged_forward(tg, cache, torch.tensor([[1, 2, 3]]), torch.arange(1), torch.tensor([3]), M())
    assert calls == [(1, 3, 3)]
    with pytest.raises(ValueError, match="exceeds"):
        ragged_forward(tg, cache, torch.ones(1, 6, dtype=torch.long), torch.arange(1), torch.tensor([6]))
