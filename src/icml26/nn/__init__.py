"""Small shared building blocks: a decoder-only transformer with a KV cache and its training loop.

Imported lazily so that ``import icml26.nn`` does not pull in torch until a name is used.
"""

from icml26.core.registry import lazy_exports

__all__ = ["LMConfig", "TinyLM", "KVCache", "cache_len", "crop_cache", "lm_loss", "train_lm", "to_gpt2"]
__getattr__ = lazy_exports(__name__, {"LMConfig": ".transformer", "TinyLM": ".transformer",
                                      "KVCache": ".transformer", "cache_len": ".transformer",
                                      "crop_cache": ".transformer", "lm_loss": ".train", "train_lm": ".train",
                                      "to_gpt2": ".hf"})
