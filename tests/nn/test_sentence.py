import numpy as np
import pytest

from icml26.nn.sentence import MiniLMEncoder, minilm_available


def test_bad_input_is_rejected_before_loading():
    e = MiniLMEncoder()
    with pytest.raises(TypeError, match="texts"):
        e.encode("one string")
    with pytest.raises(ValueError, match="texts"):
        e.encode([])
    with pytest.raises(TypeError, match="texts"):
        e.encode(["ok", 3])
    with pytest.raises(TypeError, match="texts"):
        e.encode(5)


@pytest.mark.skipif(not minilm_available(), reason="the offline MiniLM package (minilm extra) is not installed")
def test_minilm_embeds_offline_and_caches():
    e = MiniLMEncoder()
    x = e.encode(["a dog runs in the park", "a dog runs in the park", "the stock market fell"])
    assert x.shape == (3, 384) and np.allclose(x[0], x[1])
    assert np.allclose(np.linalg.norm(x, axis=1), 1.0, atol=1e-4)
    sim = x @ x.T
    assert sim[0, 1] > sim[0, 2]
    assert len(e._cache) == 2
