"""LightAVSeg (arXiv:2605.08805): audio-visual segmentation with a linear-cost interaction.

Audio-visual segmentation (AVS) predicts the pixel mask of the objects that sound, given a
frame and its audio. Strong AVS models fuse the modalities with dense attention over visual
tokens, whose cost grows with N^2 for N = H*W tokens. LightAVSeg keeps "audio for *what*,
vision for *where*" and replaces that attention with two linear-cost steps at each fused scale
l (visual features F_l: (B, C_l, H_l, W_l), audio embedding a: (B, D)):

1. **semantic filtering** (channel modulation): g_l = sigmoid(W_g a) in R^{C_l},
   F~_l = g_l * F_l (broadcast over space)                         cost O(C_l H_l W_l);
2. **spatial grounding**: q = W_q a in R^d, K_l = W_k F~_l (1x1 conv to d channels),
   S_l(x) = <q, K_l(x)> / sqrt(d); the response map is fused back by a 1x1 conv,
   out_l = F~_l + W_o [F~_l ; S_l]                                   cost O((C_l + d) C_l H_l W_l).

No pixel-to-pixel or pixel-to-audio-token affinity matrix is formed. An FPN-style decoder turns
the fused features into mask logits; the loss is BCE + Dice. A training-only **alignment loss**
pulls the visual features pooled inside the ground-truth mask towards the audio embedding
(symmetric InfoNCE over the batch through two projection heads that are dropped at inference,
so the deployed model has the same parameters and FLOPs).

The paper's text available to us (abstract, introduction, third-party summaries) names these
pieces but not their formulas: gating by a sigmoid (not FiLM), grounding by a dot product with an
audio query at every fused scale, the InfoNCE form of the alignment loss on pre-gating visual
features and lambda = 0.1 are our readings.

Controls, on the same backbone, decoder and loss (``INTERACTIONS``):

* ``attention``: AVSegFormer-like dense fusion: pre-norm self-attention over the visual tokens
  (O(N^2)), cross-attention from the visual tokens to the audio frame tokens, an MLP;
* ``concat``: naive fusion, the audio embedding tiled over space, concatenated, a per-pixel MLP;
* ``none``: no audio at all (the same per-pixel MLP on the visual features alone).

Attention is written with explicit matrix products so that FLOP counters see every term.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml26.core.validate import as_array, check_finite, check_int, check_positive
from icml26.nn.mlp import fit

INTERACTIONS = ("light", "attention", "concat", "none")


def _check_tensor(name: str, x, ndim: int) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise ValueError(f"{name} is empty")
    if x.is_floating_point():
        check_finite(name, x)
    return x


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1), nn.BatchNorm2d(cout), nn.ReLU())


# ----------------------------------------------------------------------------- encoders
class VisualEncoder(nn.Module):
    """A 3-stage CNN: image (B, 3, S, S) -> features at strides 2, 4, 8 with ``widths`` channels."""

    def __init__(self, widths: tuple[int, int, int] = (16, 32, 48)):
        super().__init__()
        c1, c2, c3 = widths
        self.stages = nn.ModuleList([nn.Sequential(_conv(3, c1, 2)),
                                     nn.Sequential(_conv(c1, c2, 2), _conv(c2, c2)),
                                     nn.Sequential(_conv(c2, c3, 2), _conv(c3, c3))])

    def forward(self, x: torch.Tensor) -> list[torch.Tensor]:
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        return feats


class AudioEncoder(nn.Module):
    """Log-mel (B, 1, T, M) -> embedding a (B, D) and frame tokens (B, T', D)."""

    def __init__(self, dim: int = 64, n_mels: int = 32):
        super().__init__()
        self.convs = nn.Sequential(_conv(1, 8), nn.MaxPool2d((1, 2)), _conv(8, 16), nn.MaxPool2d((1, 2)),
                                   _conv(16, 16))
        self.proj = nn.Linear(16 * (n_mels // 4), dim)
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, spec: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.convs(spec)  # (B, 16, T, M/4)
        tokens = self.proj(h.permute(0, 2, 1, 3).flatten(2))  # (B, T, D)
        return self.out(tokens.mean(1)), tokens


# ----------------------------------------------------------------------------- interactions
class SemanticFilterGrounding(nn.Module):
    """LightAVSeg's interaction at one scale: channel gating by audio, then audio-query grounding.

    ``forward(feat (B, C, H, W), audio (B, D), tokens) -> (B, C, H, W)``; linear in H*W.
    """

    def __init__(self, channels: int, audio_dim: int, d: int = 16):
        super().__init__()
        self.gate = nn.Linear(audio_dim, channels)
        self.query = nn.Linear(audio_dim, d)
        self.key = nn.Conv2d(channels, d, 1)
        self.fuse = nn.Conv2d(channels + 1, channels, 1)
        self.d = d

    def forward(self, feat: torch.Tensor, audio: torch.Tensor, tokens: torch.Tensor | None = None) -> torch.Tensor:
        filtered = torch.sigmoid(self.gate(audio))[:, :, None, None] * feat  # semantic filtering ("what")
        k = self.key(filtered)  # (B, d, H, W)
        response = torch.einsum("bd,bdhw->bhw", self.query(audio), k)[:, None] / math.sqrt(self.d)  # "where"
        return filtered + self.fuse(torch.cat([filtered, response], 1))


class DenseAttentionFusion(nn.Module):
    """AVSegFormer-like dense fusion at one scale: visual self-attention (O(N^2)) + cross-attention
    to the audio frame tokens + MLP, pre-norm residual, ``heads`` heads.

    ``forward(feat (B, C, H, W), audio (B, D), tokens (B, T, D)) -> (B, C, H, W)``.
    """

    def __init__(self, channels: int, audio_dim: int, heads: int = 2):
        super().__init__()
        if channels % heads:
            raise ValueError(f"channels ({channels}) must be divisible by heads ({heads})")
        self.h = heads
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(channels) for _ in range(3))
        self.qkv = nn.Linear(channels, 3 * channels)
        self.o1 = nn.Linear(channels, channels)
        self.q2 = nn.Linear(channels, channels)
        self.kv2 = nn.Linear(audio_dim, 2 * channels)
        self.o2 = nn.Linear(channels, channels)
        self.mlp = nn.Sequential(nn.Linear(channels, 2 * channels), nn.GELU(), nn.Linear(2 * channels, channels))

    def _attend(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        b, n, c = q.shape
        dh = c // self.h
        q, k, v = (t.reshape(b, t.shape[1], self.h, dh).transpose(1, 2) for t in (q, k, v))
        w = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh), dim=-1)  # (B, h, N, M)
        return torch.matmul(w, v).transpose(1, 2).reshape(b, n, c)

    def forward(self, feat: torch.Tensor, audio: torch.Tensor, tokens: torch.Tensor | None = None) -> torch.Tensor:
        b, c, hh, ww = feat.shape
        x = feat.flatten(2).transpose(1, 2)  # (B, N, C)
        if tokens is None:
            tokens = audio[:, None]
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        x = x + self.o1(self._attend(q, k, v))
        ka, va = self.kv2(tokens).chunk(2, dim=-1)
        x = x + self.o2(self._attend(self.q2(self.norm2(x)), ka, va))
        x = x + self.mlp(self.norm3(x))
        return x.transpose(1, 2).reshape(b, c, hh, ww)


class ConcatFusion(nn.Module):
    """Naive fusion: the audio embedding tiled over space and concatenated with the visual features, then a
    per-pixel MLP (1x1 conv, ReLU, 1x1 conv) added back to the features."""

    def __init__(self, channels: int, audio_dim: int):
        super().__init__()
        self.fuse = nn.Sequential(nn.Conv2d(channels + audio_dim, channels, 1), nn.ReLU(),
                                  nn.Conv2d(channels, channels, 1))

    def forward(self, feat: torch.Tensor, audio: torch.Tensor, tokens: torch.Tensor | None = None) -> torch.Tensor:
        tiled = audio[:, :, None, None].expand(-1, -1, feat.shape[2], feat.shape[3])
        return feat + self.fuse(torch.cat([feat, tiled], 1))


class NoAudio(nn.Module):
    """The audio-free arm: the same residual per-pixel MLP on the visual features alone."""

    def __init__(self, channels: int, audio_dim: int):
        super().__init__()
        self.fuse = nn.Sequential(nn.Conv2d(channels, channels, 1), nn.ReLU(), nn.Conv2d(channels, channels, 1))

    def forward(self, feat: torch.Tensor, audio: torch.Tensor, tokens: torch.Tensor | None = None) -> torch.Tensor:
        return feat + self.fuse(feat)


def make_interaction(kind: str, channels: int, audio_dim: int) -> nn.Module:
    """The interaction module ``kind`` (one of ``INTERACTIONS``) for ``channels`` visual channels."""
    if not isinstance(kind, str):
        raise TypeError(f"kind must be a string, got {type(kind).__name__}")
    if kind not in INTERACTIONS:
        raise ValueError(f"kind must be one of {INTERACTIONS}, got {kind!r}")
    channels = check_int("channels", channels, minimum=2)
    audio_dim = check_int("audio_dim", audio_dim, minimum=1)
    return {"light": SemanticFilterGrounding, "attention": DenseAttentionFusion, "concat": ConcatFusion,
            "none": NoAudio}[kind](channels, audio_dim)


# ----------------------------------------------------------------------------- the model
class AVSegModel(nn.Module):
    """Backbone + interaction at strides 4 and 8 + FPN decoder -> mask logits (B, S, S).

    ``forward(image (B, 3, S, S), spec (B, 1, T, M))`` returns ``(logits, visual_feats)``;
    ``visual_feats`` are the pre-interaction encoder features (used by the alignment loss).
    """

    def __init__(self, interaction: str = "light", widths: tuple[int, int, int] = (16, 32, 48),
                 audio_dim: int = 64, n_mels: int = 32, dec: int = 16):
        super().__init__()
        self.kind = interaction
        self.visual = VisualEncoder(widths)
        self.audio = AudioEncoder(audio_dim, n_mels)
        self.inter = nn.ModuleList([make_interaction(interaction, c, audio_dim) for c in widths[1:]])
        self.lat = nn.ModuleList([nn.Conv2d(c, dec, 1) for c in widths])
        self.head = nn.Sequential(_conv(dec, dec), nn.Conv2d(dec, 1, 1))

    def forward(self, image: torch.Tensor, spec: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        f1, f2, f3 = self.visual(image)
        a, tokens = self.audio(spec)
        g2, g3 = (m(f, a, tokens) for m, f in zip(self.inter, (f2, f3)))
        p = self.lat[2](g3)
        p = self.lat[1](g2) + F.interpolate(p, size=g2.shape[-2:], mode="nearest")
        p = self.lat[0](f1) + F.interpolate(p, size=f1.shape[-2:], mode="nearest")
        logits = F.interpolate(self.head(p), size=image.shape[-2:], mode="bilinear", align_corners=False)
        return logits[:, 0], [f1, f2, f3]

    def audio_embedding(self, spec: torch.Tensor) -> torch.Tensor:
        return self.audio(spec)[0]


class AlignmentHeads(nn.Module):
    """Training-only projection heads P_v, P_a of the alignment loss (dropped at inference)."""

    def __init__(self, visual_dim: int, audio_dim: int, dim: int = 32):
        super().__init__()
        self.pv = nn.Linear(visual_dim, dim)
        self.pa = nn.Linear(audio_dim, dim)


def count_parameters(model: nn.Module) -> int:
    """Number of parameters of ``model``."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    return int(sum(p.numel() for p in model.parameters()))


# ----------------------------------------------------------------------------- losses and metrics
def seg_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """BCE + soft Dice between mask logits (B, H, W) and a {0, 1} target (B, H, W); a scalar."""
    _check_tensor("logits", logits, 3)
    _check_tensor("target", target, 3)
    if logits.shape != target.shape:
        raise ValueError(f"target shape {tuple(target.shape)} must equal logits shape {tuple(logits.shape)}")
    target = target.to(logits.dtype)
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits).flatten(1)
    t = target.flatten(1)
    dice = 1 - (2 * (p * t).sum(1) + 1) / (p.sum(1) + t.sum(1) + 1)
    return bce + dice.mean()


def masked_pool(feat: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Average of ``feat`` (B, C, h, w) inside ``mask`` (B, H, W) resized to (h, w): (B, C)."""
    _check_tensor("feat", feat, 4)
    _check_tensor("mask", mask, 3)
    if mask.shape[0] != feat.shape[0]:
        raise ValueError(f"mask batch {mask.shape[0]} must equal feat batch {feat.shape[0]}")
    m = F.adaptive_avg_pool2d(mask.float()[:, None], feat.shape[-2:])  # soft coverage per cell
    return (feat * m).sum((2, 3)) / m.sum((2, 3)).clamp_min(1e-6)


def alignment_loss(visual: torch.Tensor, audio: torch.Tensor, temperature: float = 0.1) -> torch.Tensor:
    """Symmetric InfoNCE between matched rows of ``visual`` (B, d) and ``audio`` (B, d).

    Row i of each is a positive pair; the other rows of the batch are negatives:
    L = (CE(sim, I) + CE(sim^T, I)) / 2 with sim = cos(v_i, a_j) / temperature.
    """
    _check_tensor("visual", visual, 2)
    _check_tensor("audio", audio, 2)
    if visual.shape != audio.shape:
        raise ValueError(f"audio shape {tuple(audio.shape)} must equal visual shape {tuple(visual.shape)}")
    temperature = check_positive("temperature", temperature)
    sim = F.normalize(visual, dim=1) @ F.normalize(audio, dim=1).T / temperature
    labels = torch.arange(sim.shape[0])
    return 0.5 * (F.cross_entropy(sim, labels) + F.cross_entropy(sim.T, labels))


def frame_iou(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-frame IoU (B,) of the mask ``logits > 0`` with ``target`` (B, H, W); an empty union gives 1.

    The AVSBench M_J metric is the mean of this over frames; each frame's value equals
    torchmetrics' ``binary_jaccard_index`` on that frame (tested).
    """
    _check_tensor("logits", logits, 3)
    _check_tensor("target", target, 3)
    if logits.shape != target.shape:
        raise ValueError(f"target shape {tuple(target.shape)} must equal logits shape {tuple(logits.shape)}")
    p, t = (logits > 0).flatten(1), (target > 0.5).flatten(1)
    inter, union = (p & t).sum(1).float(), (p | t).sum(1).float()
    return torch.where(union > 0, inter / union.clamp_min(1), torch.ones_like(union))


# ----------------------------------------------------------------------------- training
def train_model(model: AVSegModel, images, masks, specs, *, steps: int, batch: int = 32, lr: float = 2e-3,
                align_weight: float = 0.0, temperature: float = 0.1, seed: int = 0) -> dict:
    """Adam on BCE + Dice (+ ``align_weight`` x alignment loss, with its own training-only heads).

    Trained with the shared loop ``nn.mlp.fit`` (issue 13): the model's and the heads' parameters,
    random minibatches drawn from a generator seeded with ``seed``.

    ``images`` (n, 3, S, S), ``masks`` (n, S, S), ``specs`` (n, 1, T, M), numpy or torch. Returns
    ``{"loss": [per-step total loss], "seg": [per-step segmentation loss], "loss_drop": ratio of the
    first to the last tenth's mean segmentation loss}``.
    """
    if not isinstance(model, AVSegModel):
        raise TypeError(f"model must be an AVSegModel, got {type(model).__name__}")
    images = torch.as_tensor(as_array("images", images, ndim=4), dtype=torch.float32)
    masks = torch.as_tensor(as_array("masks", masks, ndim=3), dtype=torch.float32)
    specs = torch.as_tensor(as_array("specs", specs, ndim=4), dtype=torch.float32)
    if not images.shape[0] == masks.shape[0] == specs.shape[0]:
        raise ValueError("images, masks and specs must have the same number of samples")
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    lr = check_positive("lr", lr)
    align_weight = check_positive("align_weight", align_weight, strict=False)
    temperature = check_positive("temperature", temperature)
    seed = check_int("seed", seed, minimum=0)
    heads = AlignmentHeads(model.visual.stages[1][0][0].out_channels, model.audio.out[1].out_features) \
        if align_weight > 0 else None
    params = list(model.parameters()) + (list(heads.parameters()) if heads is not None else [])
    n = images.shape[0]
    segs: list[float] = []

    def draw(gen: torch.Generator) -> torch.Tensor:
        return torch.randint(0, n, (min(batch, n),), generator=gen)

    def loss_fn(model: AVSegModel, idx: torch.Tensor) -> torch.Tensor:
        x, y, s = images[idx], masks[idx], specs[idx]
        logits, feats = model(x, s)
        seg = seg_loss(logits, y)
        segs.append(float(seg.detach()))          # the segmentation part, per step
        if heads is None:
            return seg
        a = model.audio_embedding(s)
        v = masked_pool(feats[1], y)
        return seg + align_weight * alignment_loss(heads.pv(v), heads.pa(a), temperature)

    losses = fit(model, loss_fn, draw, steps=steps, lr=lr, optimizer="adam", params=params, seed=seed).history
    k = max(1, steps // 10)
    drop = float(np.mean(segs[:k]) / max(np.mean(segs[-k:]), 1e-12))
    return {"loss": losses, "seg": segs, "loss_drop": drop}


@torch.no_grad()
def predict(model: AVSegModel, images, specs, batch: int = 256) -> torch.Tensor:
    """Mask logits (n, S, S) of ``model`` in eval mode on ``images`` (n, 3, S, S), ``specs`` (n, 1, T, M)."""
    if not isinstance(model, AVSegModel):
        raise TypeError(f"model must be an AVSegModel, got {type(model).__name__}")
    images = torch.as_tensor(as_array("images", images, ndim=4), dtype=torch.float32)
    specs = torch.as_tensor(as_array("specs", specs, ndim=4), dtype=torch.float32)
    if images.shape[0] != specs.shape[0]:
        raise ValueError(f"specs must have as many samples as images ({images.shape[0]}), got {specs.shape[0]}")
    batch = check_int("batch", batch, minimum=1)
    model.eval()
    return torch.cat([model(images[i:i + batch], specs[i:i + batch])[0] for i in range(0, len(images), batch)])


# ----------------------------------------------------------------------------- cost
def interaction_flops(kind: str, channels: int, side: int, audio_dim: int = 64, n_tokens: int = 16) -> float:
    """fvcore's FLOP count (multiply-adds) of one interaction module on a (1, channels, side, side) map."""
    from fvcore.nn import FlopCountAnalysis

    channels = check_int("channels", channels, minimum=2)
    side = check_int("side", side, minimum=1)
    audio_dim = check_int("audio_dim", audio_dim, minimum=1)
    n_tokens = check_int("n_tokens", n_tokens, minimum=1)
    module = make_interaction(kind, channels, audio_dim).eval()
    inputs = (torch.zeros(1, channels, side, side), torch.zeros(1, audio_dim), torch.zeros(1, n_tokens, audio_dim))
    counter = FlopCountAnalysis(module, inputs)
    counter.unsupported_ops_warnings(False)
    counter.uncalled_modules_warnings(False)
    return float(counter.total())
