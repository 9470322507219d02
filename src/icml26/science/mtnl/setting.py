"""The worlds MTNL is tested in: shipped colour photos with missing entries, and a planted tensor ring.

* **Photos.** scikit-image's ``astronaut``, ``coffee``, ``chelsea`` and scikit-learn's
  ``china.jpg``: centre-cropped to a square, downsampled (anti-aliased) to ``side x side x 3``
  in [0, 1], then tensorized coarse-to-fine: ``side = f_1 * f_2 * ...`` and the image becomes
  the tensor with modes ``(row_1, col_1, row_2, col_2, ..., channel)``, ``row = row_1 f_2 ... +
  row_2 ...`` (the usual "visual data tensorization" for TN completion). Entries are missing
  uniformly at random.
* **Planted tensor.** A tensor ring with heterogeneous bond ranks plus Gaussian noise at a
  given SNR; used only for structure recovery (the photos decide the comparisons).

The downsampled photos are cached on disk with :func:`icml26.core.cache.cached` (namespace ``mtnl``,
under ``$ICML26_CACHE``, default ``~/.cache/icml26``), keyed by name and size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

IMAGES = ("astronaut", "coffee", "chelsea", "china")


def _raw_image(name: str) -> np.ndarray:
    if name == "china":
        from sklearn.datasets import load_sample_image

        return load_sample_image("china.jpg")
    import skimage.data

    return getattr(skimage.data, name)()


def load_image(name: str, side: int = 32) -> np.ndarray:
    """Photo ``name`` as a float array ``(side, side, 3)`` in [0, 1] (centre square crop, anti-aliased resize)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if name not in IMAGES:
        raise ValueError(f"name must be one of {IMAGES}, got {name!r}")
    side = check_int("side", side, minimum=4, maximum=512)

    def build() -> np.ndarray:
        from skimage.transform import resize

        img = _raw_image(name).astype(np.float64) / 255.0
        h, w = img.shape[:2]
        s = min(h, w)
        img = img[(h - s) // 2:(h - s) // 2 + s, (w - s) // 2:(w - s) // 2 + s, :3]
        return np.clip(resize(img, (side, side, 3), anti_aliasing=True, order=1), 0.0, 1.0)

    from icml26.core.cache import cached

    return cached("mtnl", "photo", build, params={"name": name, "side": side}, fmt="npy")


def _factors(factors: Sequence[int]) -> tuple[int, ...]:
    if isinstance(factors, (str, bytes)) or not isinstance(factors, (list, tuple)) or not factors:
        raise TypeError(f"factors must be a non-empty list of integers, got {factors!r}")
    return tuple(check_int(f"factors[{i}]", f, minimum=2) for i, f in enumerate(factors))


def tensorize(img, factors: Sequence[int]) -> np.ndarray:
    """``(side, side, C)`` image to the coarse-to-fine tensor ``(f_1, f_1, f_2, f_2, ..., C)``; ``side = prod(factors)``."""
    img = as_array("img", img, ndim=3)
    fs = _factors(factors)
    side = math.prod(fs)
    if img.shape[0] != side or img.shape[1] != side:
        raise ValueError(f"img must be {side} x {side} x C for factors {fs}, got {img.shape}")
    L = len(fs)
    t = np.asarray(img).reshape(*fs, *fs, img.shape[2])
    order = [a for k in range(L) for a in (k, L + k)] + [2 * L]
    return np.ascontiguousarray(t.transpose(order))


def untensorize(t, factors: Sequence[int]) -> np.ndarray:
    """Inverse of :func:`tensorize`."""
    fs = _factors(factors)
    L = len(fs)
    t = as_array("t", t, ndim=2 * L + 1)
    if tuple(t.shape[:-1]) != tuple(f for f in fs for _ in range(2)):
        raise ValueError(f"t must have shape {tuple(f for f in fs for _ in range(2))} + (C,), got {t.shape}")
    inv = [2 * k for k in range(L)] + [2 * k + 1 for k in range(L)] + [2 * L]
    side = math.prod(fs)
    return np.ascontiguousarray(np.asarray(t).transpose(inv)).reshape(side, side, t.shape[-1])


def random_mask(shape: Sequence[int], missing: float, seed=0) -> np.ndarray:
    """Boolean observation mask: each entry observed independently... exactly ``round((1-missing) n)`` observed."""
    if isinstance(shape, (str, bytes)) or not isinstance(shape, (list, tuple)):
        raise TypeError(f"shape must be a tuple of sizes, got {type(shape).__name__}")
    shape = tuple(check_int(f"shape[{i}]", s, minimum=1) for i, s in enumerate(shape))
    missing = check_positive("missing", missing)
    if not 0 < missing < 1:
        raise ValueError(f"missing must lie in (0, 1), got {missing}")
    rng = as_rng("seed", seed)
    n = math.prod(shape)
    k = max(1, int(round((1 - missing) * n)))
    flat = np.zeros(n, bool)
    flat[rng.choice(n, size=k, replace=False)] = True
    return flat.reshape(shape)


def split_mask(mask, frac: float, seed=0) -> tuple[np.ndarray, np.ndarray]:
    """Split the observed entries of ``mask`` into (train, validation) with ``frac`` of them for validation."""
    mask = np.asarray(as_array("mask", mask, dtype=bool), bool)
    frac = check_positive("frac", frac)
    if not 0 < frac < 1:
        raise ValueError(f"frac must lie in (0, 1), got {frac}")
    rng = as_rng("seed", seed)
    idx = np.flatnonzero(mask)
    val = rng.choice(idx, size=max(1, int(round(frac * idx.size))), replace=False)
    v = np.zeros(mask.size, bool)
    v[val] = True
    v = v.reshape(mask.shape)
    return mask & ~v, v


def distance_to_observed(mask_img) -> np.ndarray:
    """Missingness heuristic: planar distance of each pixel-channel entry to the nearest observed entry of its channel.

    ``mask_img: (H, W, C)`` boolean, observed = True; returns ``(H, W, C)`` distances (0 where observed).
    """
    from scipy.ndimage import distance_transform_edt

    m = np.asarray(as_array("mask_img", mask_img, ndim=3, dtype=bool), bool)
    out = np.empty(m.shape, float)
    for c in range(m.shape[2]):
        out[:, :, c] = distance_transform_edt(~m[:, :, c]) if m[:, :, c].any() else np.inf
    return out


def planted_tensor_ring(dims: Sequence[int], ranks: Sequence[int], snr_db: float = 30.0, seed=0
                        ) -> tuple[np.ndarray, np.ndarray]:
    """A random tensor ring with bond ranks ``ranks`` (edge k joins core k and k+1 mod N), plus noise.

    Returns ``(noisy, clean)``, both ``dims``-shaped; the noise power is ``snr_db`` dB below the signal's.
    """
    if isinstance(dims, (str, bytes)) or not isinstance(dims, (list, tuple)) or len(dims) < 2:
        raise TypeError(f"dims must be a list of at least two mode sizes, got {dims!r}")
    dims = [check_int(f"dims[{i}]", d, minimum=1) for i, d in enumerate(dims)]
    if isinstance(ranks, (str, bytes)) or not isinstance(ranks, (list, tuple)) or len(ranks) != len(dims):
        raise ValueError(f"ranks must be a list with one rank per mode ({len(dims)}), got {ranks!r}")
    ranks = [check_int(f"ranks[{i}]", r, minimum=1) for i, r in enumerate(ranks)]
    snr_db = check_positive("snr_db", snr_db)
    rng = as_rng("seed", seed)
    n = len(dims)
    cores = [rng.standard_normal((ranks[k - 1], dims[k], ranks[k])) for k in range(n)]
    m = cores[0]
    for k in range(1, n):
        m = np.einsum("apb,bic->apic", m, cores[k]).reshape(m.shape[0], -1, cores[k].shape[2])
    clean = np.einsum("apa->p", m).reshape(dims)
    clean = clean / clean.std()
    noise = rng.standard_normal(clean.shape) * 10 ** (-snr_db / 20)
    return clean + noise, clean


def digits_pair(a: int = 3, b: int = 8, factors: Sequence[int] = (2, 4)) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8x8 digits ``a`` (y = -1) and ``b`` (y = +1), pixels in [0, 1], tensorized to ``(f1, f1, f2, f2)``."""
    from sklearn.datasets import load_digits

    a = check_int("a", a, minimum=0, maximum=9)
    b = check_int("b", b, minimum=0, maximum=9)
    if a == b:
        raise ValueError(f"b must differ from a, got {a} twice")
    d = load_digits()
    keep = (d.target == a) | (d.target == b)
    imgs = d.images[keep] / 16.0
    X = np.stack([tensorize(im[:, :, None], list(factors))[..., 0] for im in imgs])
    y = np.where(d.target[keep] == b, 1.0, -1.0)
    return X, y
