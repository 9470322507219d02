"""The small-scale world of the SHARP-Q-like reproduction: digits, three tiny classifiers, FP training.

The paper quantizes ImageNet CNNs, ViTs and state-space models. Here the data are the vision
cluster's 8x8 digits (:mod:`icml26.vision._data`, a fixed stratified split) and the three
families are kept at toy size. Every model is a ``Sequential`` of *blocks* (the units of
BRECQ-order reconstruction): block 0 is the stem and the last block is the head (both kept at
8 bits, the usual practice), the blocks in between are reconstructed at the target width.

* ``TinyCNN``: stem conv 1->16; block conv 16->32 (stride 2) + conv 32->32; a residual block of
  two 32->32 convs; head linear 512->10. ReLU everywhere.
* ``TinyViT``: 2x2 patches -> 16 tokens, linear patch embedding (d = 32) + positions; two pre-LN
  transformer blocks (2 heads, ReLU MLP 32->64->32); head LayerNorm + mean pool + linear.
* ``TinySSM``: the same 16 patch tokens in raster order; two residual diagonal state-space blocks
  (LayerNorm, input projection to a state input u and a gate, the diagonal recurrence
  ``h_t = a * h_{t-1} + (1 - a) * u_t`` with learned ``a`` in (0, 1) per channel, SiLU gate, output
  projection); head LayerNorm + mean pool + linear. The state itself stays in floating point.

Every quantizable layer is an ``nn.Linear`` or ``nn.Conv2d``; attention matmuls and the SSM
recurrence stay in floating point (design choice, stated in the paper's substitution).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.mlp import epoch_batches, epoch_means, fit, steps_per_epoch

ARCHS = ("cnn", "vit", "ssm")


class Residual(nn.Module):
    """``x + body(x)`` followed by an optional activation."""

    def __init__(self, body: nn.Module, act: nn.Module | None = None):
        super().__init__()
        self.body, self.act = body, act if act is not None else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(x + self.body(x))


class Patchify(nn.Module):
    """(B, 1, 8, 8) -> (B, 8, 8): one token per image row (a 1x8 patch), top to bottom."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(x.shape[0], 8, 8)


class PatchEmbed(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.patch = Patchify()
        self.proj = nn.Linear(8, d)
        self.pos = nn.Parameter(torch.zeros(1, 8, d))
        nn.init.normal_(self.pos, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(self.patch(x)) + self.pos


class Attention(nn.Module):
    """Multi-head self-attention; the q/k/v and output projections are the quantizable layers."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.heads), dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, d))


class ViTBlock(nn.Module):
    def __init__(self, d: int, heads: int, hidden: int):
        super().__init__()
        self.ln1, self.attn = nn.LayerNorm(d), Attention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.fc2(F.relu(self.fc1(self.ln2(x))))


class DiagonalSSMBlock(nn.Module):
    """Residual diagonal SSM: ``y = x + W_out (h * silu(g))``, ``h_t = a h_{t-1} + (1 - a) u_t``.

    The recurrence is evaluated in closed form, ``h_t = sum_{k<=t} a^(t-k) (1 - a) u_k``, as one
    (t, k) kernel per channel: shapes ``x: (B, T, d)``.
    """

    def __init__(self, d: int):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.in_proj = nn.Linear(d, 2 * d)
        self.out_proj = nn.Linear(d, d)
        self.log_a = nn.Parameter(torch.linspace(-1.0, 2.5, d))  # sigmoid -> decays 0.27..0.92

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[1]
        u, g = self.in_proj(self.ln(x)).chunk(2, dim=-1)
        a = torch.sigmoid(self.log_a)  # (d,)
        steps = torch.arange(t, dtype=x.dtype)
        lag = steps[:, None] - steps[None, :]  # (t, k)
        mask = (lag >= 0).to(x.dtype)
        kern = torch.exp(lag.clamp(min=0)[..., None] * torch.log(a)) * mask[..., None] * (1 - a)  # (t, k, d)
        h = torch.einsum("tkd,bkd->btd", kern, u)
        return x + self.out_proj(h * F.silu(g))


class MeanPoolHead(nn.Module):
    def __init__(self, d: int, n_classes: int = 10):
        super().__init__()
        self.ln, self.fc = nn.LayerNorm(d), nn.Linear(d, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.ln(x).mean(dim=1))


def build_model(arch: str, width: int = 32) -> nn.Sequential:
    """One of the three tiny families as a ``Sequential`` of blocks (stem, middle blocks, head)."""
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {ARCHS}, got {arch!r}")
    d = check_int("width", width, minimum=8)
    if d % 2:
        raise ValueError(f"width must be even, got {d}")
    if arch == "cnn":
        return nn.Sequential(
            nn.Sequential(nn.Conv2d(1, d // 2, 3, padding=1), nn.ReLU()),
            nn.Sequential(nn.Conv2d(d // 2, d, 3, stride=2, padding=1), nn.ReLU(),
                          nn.Conv2d(d, d, 3, padding=1), nn.ReLU()),
            Residual(nn.Sequential(nn.Conv2d(d, d, 3, padding=1), nn.ReLU(), nn.Conv2d(d, d, 3, padding=1)),
                     nn.ReLU()),
            nn.Sequential(nn.Flatten(), nn.Linear(d * 16, 10)),
        )
    if arch == "vit":
        return nn.Sequential(PatchEmbed(d), ViTBlock(d, 2, 2 * d), ViTBlock(d, 2, 2 * d), MeanPoolHead(d))
    stem = nn.Sequential(Patchify(), nn.Linear(8, d))
    return nn.Sequential(stem, DiagonalSSMBlock(d), DiagonalSSMBlock(d), MeanPoolHead(d))


def digits(split_seed: int = 0) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """The vision cluster's fixed digits split as torch images ``(n, 1, 8, 8)`` and labels."""
    from icml26.vision._data import load_digits_split

    split = load_digits_split(split_seed)
    return {part: split.images(part, as_torch=True) for part in ("train", "val", "test")}


def calibration_set(x_train: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    """``n`` training images drawn without replacement by ``seed`` (unlabelled calibration data)."""
    x_train = as_array("x_train", x_train, ndim=4)
    n = check_int("n", n, minimum=1, maximum=int(x_train.shape[0]))
    idx = np.random.default_rng(check_int("seed", seed, minimum=0)).choice(x_train.shape[0], n, replace=False)
    return x_train[torch.as_tensor(np.sort(idx))]


def train_fp(model: nn.Module, x: torch.Tensor, y: torch.Tensor, *, epochs: int = 40, lr: float = 3e-3,
             batch: int = 64, seed: int = 0) -> list[float]:
    """Train the FP32 model with AdamW + one-cycle schedule (the shared ``icml26.nn.mlp.fit``); returns the
    per-epoch mean loss."""
    epochs, batch = check_int("epochs", epochs, minimum=1), check_int("batch", batch, minimum=1)
    lr = check_positive("lr", lr)
    seed = check_int("seed", seed, minimum=0)
    steps = epochs * steps_per_epoch(len(x), batch)  # each epoch a fresh permutation from Generator(seed)
    res = fit(model, lambda m, idx: F.cross_entropy(m(x[idx]), y[idx]), epoch_batches(len(x), batch), steps=steps,
              lr=lr, optimizer="adamw", weight_decay=1e-4, schedule="onecycle", seed=seed)
    return epoch_means(res.history, len(x), batch)


@torch.no_grad()
def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    """Top-1 accuracy of ``model`` on ``(x, y)``."""
    model.eval()
    return float((model(x).argmax(-1) == y).float().mean())
