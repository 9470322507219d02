"""Shared image substrate of the ``vision`` cluster: scikit-learn's bundled 8x8 digits.

``load_digits`` ships with scikit-learn (1,797 greyscale images of the digits 0-9,
pixel values 0..16), so it is real data that needs no download. This module splits
it once, with a fixed seed, into stratified train / validation / test parts and
scales the pixels to [0, 1] (divide by 16; the scaling uses no statistics of any
split, so nothing leaks from validation or test into training).

Views (``part`` is ``"train"``, ``"val"`` or ``"test"``):

* ``split.flat(part)``   -> features ``(n, 64)`` float32, labels ``(n,)`` int64;
* ``split.images(part)`` -> images ``(n, 1, 8, 8)`` float32, labels ``(n,)`` int64;

numpy arrays by default, torch tensors with ``as_torch=True``. Papers that tune
hyperparameters use the validation part and report on the test part.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

N_CLASSES = 10
IMAGE_SHAPE = (1, 8, 8)
PARTS = ("train", "val", "test")


@dataclass(frozen=True)
class DigitsSplit:
    """A fixed train/val/test split of the digits data; features scaled to [0, 1].

    ``x_<part>``: (n, 64) float32 in [0, 1]; ``y_<part>``: (n,) int64 in 0..9.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    split_seed: int

    def _part(self, part: str) -> tuple[np.ndarray, np.ndarray]:
        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, got {part!r}")
        return getattr(self, f"x_{part}"), getattr(self, f"y_{part}")

    def flat(self, part: str, as_torch: bool = False):
        """Features ``(n, 64)`` and labels ``(n,)`` of one part."""
        x, y = self._part(part)
        return _convert(x, y, as_torch)

    def images(self, part: str, as_torch: bool = False):
        """Images ``(n, 1, 8, 8)`` and labels ``(n,)`` of one part."""
        x, y = self._part(part)
        return _convert(x.reshape(-1, *IMAGE_SHAPE), y, as_torch)

    def sizes(self) -> dict[str, int]:
        return {p: int(self._part(p)[1].shape[0]) for p in PARTS}


def _convert(x: np.ndarray, y: np.ndarray, as_torch: bool):
    if not as_torch:
        return x.copy(), y.copy()
    import torch

    return torch.from_numpy(x.copy()), torch.from_numpy(y.copy())


def load_digits_split(split_seed: int = 0, test_size: float = 0.25, val_size: float = 0.2) -> DigitsSplit:
    """Split the digits once: ``test_size`` of all data for test, ``val_size`` of the rest for validation.

    Both splits are stratified by class and deterministic given ``split_seed``; the result is
    cached, so every caller with the same arguments gets the same arrays (copies via the views).
    """
    if not (isinstance(split_seed, (int, np.integer)) and split_seed >= 0):
        raise ValueError(f"split_seed must be a non-negative integer, got {split_seed!r}")
    for name, v in (("test_size", test_size), ("val_size", val_size)):
        if not (isinstance(v, (int, float)) and 0.0 < float(v) < 1.0):
            raise ValueError(f"{name} must be a fraction in (0, 1), got {v!r}")
    return _load(int(split_seed), float(test_size), float(val_size))


@lru_cache(maxsize=8)
def _load(split_seed: int, test_size: float, val_size: float) -> DigitsSplit:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int64)
    x_rest, x_test, y_rest, y_test = train_test_split(
        x, y, test_size=test_size, stratify=y, random_state=split_seed)
    x_train, x_val, y_train, y_val = train_test_split(
        x_rest, y_rest, test_size=val_size, stratify=y_rest, random_state=split_seed + 1)
    for a in (x_train, y_train, x_val, y_val, x_test, y_test):
        a.setflags(write=False)
    return DigitsSplit(x_train, y_train, x_val, y_val, x_test, y_test, split_seed)
