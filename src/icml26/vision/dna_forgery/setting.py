"""The simulated world of the DNA reproduction: real photo crops, a backbone we pretrain, small fake generators.

* **Real images.** Random 32x32 RGB crops of the photographs that ship with scikit-image
  (``skimage.data``) and scikit-learn (``load_sample_images``: china, flower), each photo first
  resized (anti-aliased) to 128 px on its short side. Grey photos are repeated over 3 channels.
  The source photo is the crop's *semantic* label (``SOURCES``).
* **Backbone** (the "pre-trained model" whose latent knowledge DNA mines). No pretrained vision
  weights can be downloaded here, so we pretrain a small 6-layer CNN from scratch on one task only,
  *which photo does this crop come from* (12 classes); it never sees a fake image. Its unit
  activations are the spatial means of each layer's post-ReLU channels. Weights are cached on disk
  by (config, seed) under ``$ICML26_CACHE/dna_forgery`` (default ``~/.cache/icml26``).
* **Generators** (the "generative models"), trained in-run on real crops to reconstruct them, each
  leaving its own artefact family: ``tconv`` (transposed-convolution decoder: checkerboard),
  ``nearest`` (nearest upsampling + conv), ``bilinear`` (bilinear upsampling + conv: low-pass),
  ``vae`` (a small variational autoencoder: over-smoothing, sampling noise) and ``spectral`` (no
  network: a periodic high-frequency pattern added to a real crop, a spectral peak). ``SEEN`` are
  the two families whose fakes are labelled for the few-shot set; ``UNSEEN`` appear only at test.
* **JPEG** re-compression through Pillow (``jpeg``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml26.core.validate import as_array, as_rng, check_int, check_positive
from icml26.nn.mlp import epoch_batches, fit, steps_per_epoch

SOURCES = ("astronaut", "camera", "coffee", "chelsea", "rocket", "coins", "moon", "immunohistochemistry",
           "brick", "grass", "china", "flower")
GENERATORS = ("tconv", "nearest", "bilinear", "vae", "spectral")
SEEN = ("tconv", "nearest")
UNSEEN = ("bilinear", "vae", "spectral")
CROP = 32


# ----------------------------------------------------------------------------- real images
@lru_cache(maxsize=2)
def load_sources(short_side: int = 128) -> tuple[np.ndarray, ...]:
    """The shipped photos as float32 arrays ``(H, W, 3)`` in [0, 1], resized to ``short_side`` px."""
    import skimage.data
    from skimage.transform import resize
    from sklearn.datasets import load_sample_images

    sample = dict(zip(("china", "flower"), load_sample_images().images))
    out = []
    for name in SOURCES:
        img = sample[name] if name in sample else getattr(skimage.data, name)()
        img = np.asarray(img, dtype=np.float32)
        img = img / 255.0 if img.max() > 1.0 else img
        if img.ndim == 2:
            img = np.repeat(img[..., None], 3, axis=2)
        img = img[..., :3]
        scale = short_side / min(img.shape[:2])
        shape = (max(CROP, round(img.shape[0] * scale)), max(CROP, round(img.shape[1] * scale)), 3)
        out.append(resize(img, shape, anti_aliasing=True).astype(np.float32))
    return tuple(out)


def sample_crops(n: int, seed, *, sources: tuple[np.ndarray, ...] | None = None, flip: bool = True
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``n`` random 32x32 crops: images ``(n, 3, 32, 32)`` float32 in [0, 1] and source labels ``(n,)``."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    imgs = sources if sources is not None else load_sources()
    labels = rng.integers(0, len(imgs), size=n)
    x = np.empty((n, 3, CROP, CROP), dtype=np.float32)
    for i, s in enumerate(labels):
        img = imgs[s]
        r = rng.integers(0, img.shape[0] - CROP + 1)
        c = rng.integers(0, img.shape[1] - CROP + 1)
        crop = img[r:r + CROP, c:c + CROP].transpose(2, 0, 1)
        if flip and rng.random() < 0.5:
            crop = crop[:, :, ::-1]
        x[i] = crop
    return x, labels.astype(np.int64)


def jpeg(x: np.ndarray, quality: int) -> np.ndarray:
    """JPEG re-compression (Pillow) of images ``(n, 3, H, W)`` in [0, 1] at ``quality`` (1..95)."""
    import io

    from PIL import Image

    x = as_array("x", x, ndim=4)
    quality = check_int("quality", quality, minimum=1, maximum=95)
    out = np.empty_like(x, dtype=np.float32)
    for i in range(x.shape[0]):
        arr = (np.clip(x[i].transpose(1, 2, 0), 0, 1) * 255).round().astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="JPEG", quality=quality)
        out[i] = np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGB"), np.float32).transpose(2, 0, 1) / 255
    return out


# ----------------------------------------------------------------------------- backbone
@dataclass(frozen=True)
class BackboneConfig:
    """The small CNN: six 3x3 conv layers (``widths``, stride 2 at layers 2, 4, 6) + linear head."""

    widths: tuple[int, ...] = (16, 32, 32, 64, 64, 64)
    n_crops: int = 8000
    epochs: int = 3
    batch: int = 64
    lr: float = 2e-3
    short_side: int = 128


STRIDES = (1, 2, 1, 2, 1, 2)


class Backbone(nn.Module):
    """Six conv+ReLU layers then global average pooling and a source-classification head.

    ``units(x)`` returns, per layer, the spatial mean of its post-ReLU channels ``(n, C_l)`` and
    the channel-mean spatial map ``(n, H_l, W_l)`` (for the attention-shift statistic).
    ``forward(x, mask=(layer, idx, values))`` replaces channels ``idx`` of ``layer`` by constants.
    """

    def __init__(self, widths: tuple[int, ...], n_classes: int):
        super().__init__()
        if len(widths) != len(STRIDES):
            raise ValueError(f"widths must have {len(STRIDES)} entries, got {len(widths)}")
        chans = (3, *widths)
        self.convs = nn.ModuleList(nn.Conv2d(chans[i], chans[i + 1], 3, stride=STRIDES[i], padding=1)
                                   for i in range(len(widths)))
        self.head = nn.Linear(widths[-1], n_classes)

    @property
    def n_layers(self) -> int:
        return len(self.convs)

    def trunk(self, x: torch.Tensor, mask: tuple | None = None, keep: bool = False):
        maps = []
        for i, conv in enumerate(self.convs):
            x = F.relu(conv(x))
            if mask is not None and mask[0] == i and len(mask[1]):
                x = x.clone()
                x[:, mask[1]] = mask[2].view(1, -1, 1, 1).to(x.dtype)
            if keep:
                maps.append(x)
        return x, maps

    def forward(self, x: torch.Tensor, mask: tuple | None = None) -> torch.Tensor:
        h, _ = self.trunk(x, mask)
        return self.head(h.mean(dim=(2, 3)))

    def features(self, x: torch.Tensor, mask: tuple | None = None) -> torch.Tensor:
        """Final-layer units ``(n, C_last)`` (what a probe on the last layer reads)."""
        h, _ = self.trunk(x, mask)
        return h.mean(dim=(2, 3))

    @torch.no_grad()
    def units(self, x: np.ndarray, batch: int = 256, mask: tuple | None = None
              ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per-layer unit activations ``[(n, C_l)]`` and channel-mean spatial maps ``[(n, H_l, W_l)]``."""
        self.eval()
        acts: list[list[np.ndarray]] = [[] for _ in self.convs]
        spat: list[list[np.ndarray]] = [[] for _ in self.convs]
        for s in range(0, len(x), batch):
            _, maps = self.trunk(torch.from_numpy(np.ascontiguousarray(x[s:s + batch])), mask, keep=True)
            for i, m in enumerate(maps):
                acts[i].append(m.mean(dim=(2, 3)).numpy())
                spat[i].append(m.mean(dim=1).numpy())
        return [np.concatenate(a) for a in acts], [np.concatenate(s) for s in spat]


def _cache_params(cfg: BackboneConfig, seed: int) -> dict:
    """Everything that determines a pretrained backbone: the key of its :mod:`icml26.core.cache` entry."""
    return {"seed": int(seed), **asdict(cfg), "sources": SOURCES, "v": 1}


def pretrain_backbone(cfg: BackboneConfig | None = None, seed: int = 0, *, cache: bool = True
                      ) -> tuple[Backbone, dict]:
    """The pretrained backbone and its training record ``{"val_acc", "loss_first", "loss_last"}``.

    Trained with Adam on ``n_crops`` random crops (source-photo labels, random flips), evaluated on
    1,000 fresh crops; cached by (config, seed), so every seed of a profile reuses one backbone.
    """
    cfg = cfg or BackboneConfig()
    if not isinstance(cfg, BackboneConfig):
        raise TypeError(f"cfg must be a BackboneConfig, got {type(cfg).__name__}")
    seed = check_int("seed", seed, minimum=0)
    model = Backbone(cfg.widths, len(SOURCES))  # built on both paths (the global RNG moves as it always has)

    def build() -> dict:
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            fresh = Backbone(cfg.widths, len(SOURCES))
        srcs = load_sources(cfg.short_side)
        x, y = sample_crops(cfg.n_crops, np.random.default_rng([seed, 1]), sources=srcs)
        xv, yv = sample_crops(1000, np.random.default_rng([seed, 2]), sources=srcs)
        xt, yt = torch.from_numpy(x), torch.from_numpy(y)

        def loss_fn(m: nn.Module, idx: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(m(xt[idx]), yt[idx])

        # epochs of shuffled minibatches; fit's generator is torch.Generator().manual_seed(seed)
        losses = fit(fresh, loss_fn, epoch_batches(len(xt), cfg.batch),
                     steps=cfg.epochs * steps_per_epoch(len(xt), cfg.batch), lr=cfg.lr, seed=seed).history
        with torch.no_grad():
            acc = float((fresh(torch.from_numpy(xv)).argmax(1) == torch.from_numpy(yv)).float().mean())
        k = max(1, len(losses) // 10)
        return {"state": fresh.state_dict(),
                "record": {"val_acc": acc, "loss_first": float(np.mean(losses[:k])),
                           "loss_last": float(np.mean(losses[-k:]))}}

    if cache:
        from icml26.core.cache import cached

        blob = cached("dna_forgery", "backbone", build, params=_cache_params(cfg, seed), fmt="pt")
    else:
        blob = build()
    model.load_state_dict(blob["state"])
    return model.eval(), {k: float(v) for k, v in blob["record"].items()}


# ----------------------------------------------------------------------------- generators
class _AutoEncoder(nn.Module):
    """Conv encoder with ``levels`` stride-2 stages to a (C, 32 / 2^levels) latent; the decoder's
    upsampling is the artefact family (one upsampling stage per level)."""

    def __init__(self, kind: str, width: int = 16, levels: int = 2):
        super().__init__()
        self.kind = kind
        w = width
        enc: list[nn.Module] = []
        chans = [3] + [w * 2 ** min(i, 1) for i in range(levels)]
        for i in range(levels):
            enc += [nn.Conv2d(chans[i], chans[i + 1], 3, 2, 1), nn.ReLU()]
        self.enc = nn.Sequential(*enc)
        lat = chans[-1]
        if kind == "vae":
            self.mu, self.logvar = nn.Conv2d(lat, 8, 1), nn.Conv2d(lat, 8, 1)
            lat = 8
        dec: list[nn.Module] = []
        outs = [w] * (levels - 1) + [3]
        cin = lat
        for i, cout in enumerate(outs):
            if kind == "tconv":
                dec.append(nn.ConvTranspose2d(cin, cout, 4, 2, 1))
            else:
                dec.append(nn.Upsample(scale_factor=2, mode="nearest") if kind == "nearest" else
                           nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False))
                dec.append(nn.Conv2d(cin, cout, 3, 1, 1))
            if i < len(outs) - 1:
                dec.append(nn.ReLU())
            cin = cout
        self.dec = nn.Sequential(*dec)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = self.enc(x)
        kl = torch.zeros(())
        if self.kind == "vae":
            mu, logvar = self.mu(z), self.logvar(z).clamp(-8, 8)
            z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
            kl = -0.5 * torch.mean(1 + logvar - mu ** 2 - logvar.exp())
        return torch.sigmoid(self.dec(z)), kl


@dataclass
class Generator:
    """A trained fake generator: ``generate(real) -> fake`` (same shape) and its loss record."""

    kind: str
    model: _AutoEncoder | None
    loss_first: float
    loss_last: float
    amplitude: float = 0.0
    seed: int = 0

    def generate(self, x: np.ndarray, seed=None) -> np.ndarray:
        x = as_array("x", x, ndim=4)
        rng = as_rng("seed", self.seed if seed is None else seed)
        if self.kind == "spectral":
            n, _, h, w = x.shape
            u, v = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
            out = np.empty_like(x, dtype=np.float32)
            for i in range(n):  # a periodic pattern at a random high frequency (a peak in the spectrum)
                fy, fx = rng.uniform(0.25, 0.5, size=2) * rng.choice([-1, 1], size=2)
                phase = rng.uniform(0, 2 * np.pi)
                pat = np.cos(2 * np.pi * (fy * u + fx * v) + phase).astype(np.float32)
                out[i] = np.clip(x[i] + self.amplitude * pat[None], 0, 1)
            return out
        torch.manual_seed(int(rng.integers(2**31)))
        with torch.no_grad():
            return self.model(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)))[0].numpy()


def train_generator(kind: str, x: np.ndarray, *, steps: int = 200, batch: int = 32, lr: float = 3e-3,
                    width: int = 16, levels: int = 2, beta: float = 0.05, amplitude: float = 0.04,
                    seed: int = 0) -> Generator:
    """Train one generator family to reconstruct real crops ``x`` ``(n, 3, 32, 32)`` (MSE, + ``beta`` KL for the VAE).

    ``spectral`` has no network: its fakes are real crops plus a cosine pattern of ``amplitude``.
    """
    if not isinstance(kind, str) or kind not in GENERATORS:
        raise ValueError(f"kind must be one of {GENERATORS}, got {kind!r}")
    x = as_array("x", x, ndim=4)
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    check_positive("lr", lr)
    check_positive("amplitude", amplitude)
    seed = check_int("seed", seed, minimum=0)
    levels = check_int("levels", levels, minimum=1, maximum=4)
    if kind == "spectral":
        return Generator(kind, None, float("nan"), float("nan"), amplitude=float(amplitude), seed=seed)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = _AutoEncoder(kind, width, levels)
        xt = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
        losses: list[float] = []  # the recorded loss is the MSE, not the optimised MSE + beta KL

        def loss_fn(m: nn.Module, idx: torch.Tensor) -> torch.Tensor:
            rec, kl = m(xt[idx])
            mse = F.mse_loss(rec, xt[idx])
            losses.append(mse.item())
            return mse + beta * kl

        # batches drawn with replacement from fit's generator, torch.Generator().manual_seed(seed)
        fit(model, loss_fn, lambda g: torch.randint(0, len(xt), (batch,), generator=g),
            steps=steps, lr=lr, seed=seed)
    k = max(1, steps // 10)
    return Generator(kind, model, float(np.mean(losses[:k])), float(np.mean(losses[-k:])), seed=seed)
