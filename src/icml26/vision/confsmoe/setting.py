"""Missing-modality digits: the simulated world of the ConfSMoE reproduction (arXiv:2505.19525).

scikit-learn's 8x8 digits (the ``vision`` cluster's shared split, :mod:`icml26.vision._data`) cut
into three *complementary* modalities, disjoint horizontal bands of the image: rows 0-2 (24 px),
rows 3-5 (24 px) and rows 6-7 (16 px) with Gaussian noise of sd ``feat_noise`` added (a less
informative modality, as clinical or audio channels are). No modality contains another, so a
missing band cannot be read off the others and imputation has something to do. Each modality is
dropped independently with rate ``r``; a sample that lost all keeps one at random.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_positive

BANDS = ((0, 3), (3, 6), (6, 8))  # image rows of each modality


def make_modalities(x, rng, feat_noise: float) -> list[np.ndarray]:
    """``x: (n, 64)`` pixels in [0, 1] -> three bands ``[(n, 24), (n, 24), (n, 16)]`` float32; the last noisy."""
    x = as_array("x", x, ndim=2)
    if x.shape[1] != 64:
        raise ValueError(f"x must have 64 pixel columns (8x8 digits), got shape {x.shape}")
    rng = as_rng("rng", rng)
    feat_noise = check_positive("feat_noise", feat_noise, strict=False)
    img = x.reshape(-1, 8, 8)
    mods = [img[:, a:b].reshape(len(x), -1).astype(np.float32) for a, b in BANDS]
    mods[-1] = (mods[-1] + feat_noise * rng.standard_normal(mods[-1].shape)).astype(np.float32)
    return mods


def load_modalities(seed: int, feat_noise: float) -> dict[str, tuple[list[np.ndarray], np.ndarray]]:
    """Train / val / test modalities and labels of the shared digits split; the noise depends on ``seed``."""
    from icml26.vision._data import load_digits_split

    rng = np.random.default_rng(10_007 * int(seed) + 3)
    split = load_digits_split(0)
    out = {}
    for part in ("train", "val", "test"):
        x, y = split.flat(part)
        out[part] = (make_modalities(x, rng, feat_noise), y)
    return out
