"""WiCAT-lite: atlas-grounded region x time tokens, masked pretraining across subjects, frozen features.

WiCAT (ICML 2026 poster 61497; only the abstract is public, no code) pretrains one transformer on
widefield recordings of many mice, with tokens indexed by atlas region and time and no session-
specific component, and decodes behaviour with light heads, zero-shot on unseen subjects. Every
piece below beyond that sentence is **our guess**, labelled (G):

* (G1) tokenization: channel ``c`` (an atlas parcel's mean trace, z-scored per session) is cut into
  windows of ``K`` patches of ``P`` frames; token ``(c, k)`` is ``x[c, kP:(k+1)P]``. Embedding:
  ``h0 = W_in x_{c,k} + e_c + p_k`` with ``e_c`` a learned region embedding shared by all subjects
  and ``p_k`` a learned time embedding. No subject or session embedding.
* (G2) encoder: a pre-norm bidirectional transformer (``torch.nn.TransformerEncoder``; the shared
  ``icml26.nn.transformer`` holds only a causal decoder) with joint space-time attention over the
  ``C x K`` tokens.
* (G3) pretraining: SimMIM-style masked modelling. A masked token's input is a learned mask vector
  (plus its region and time embeddings); the loss is
  ``L = (1/|M|) sum_{(c,k) in M} ||W_out h_{c,k} - x_{c,k}||^2``; masks mix random tokens
  (ratio ``mask_ratio``) and, with probability ``region_mask_prob`` per window, one whole region
  (which is what trains left-out-region reconstruction).
* (G4) downstream: the encoder is frozen; features of time patch ``k`` are the concatenated outputs
  ``[h_{1,k}, ..., h_{C,k}]`` (``C d`` numbers) and a ridge head (alpha by blocked cross-validation) maps them to
  the patch-mean behaviour. Zero-shot: the head is fit on training subjects only.

The grid-token control uses the same classes with grid patches as channels. The per-session
stitcher control (:class:`StitchedEncoder`, NDT2/POYO-style, our construction) maps each session's
parcel traces through its own random-initialised linear stitcher into ``C`` shared channels and
back (initialised near the identity), trained with the same masks, the loss on the session's own channels.

Shapes: ``x``: (batch, C, K, P); masks: (batch, C, K) bool; features: (n_patches, C * d).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.train import train_lm


@dataclass(frozen=True)
class EncoderConfig:
    n_channels: int
    n_patches: int = 8       # K time patches per window
    patch_len: int = 4       # P frames per patch
    d_model: int = 32
    n_layers: int = 2
    n_heads: int = 4

    def __post_init__(self) -> None:
        for name in ("n_channels", "n_patches", "patch_len", "d_model", "n_layers", "n_heads"):
            check_int(f"EncoderConfig.{name}", getattr(self, name), minimum=1)
        if self.d_model % self.n_heads:
            raise ValueError(f"EncoderConfig.d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")

    @property
    def window(self) -> int:
        return self.n_patches * self.patch_len


class TokenEncoder(nn.Module):
    """(G1)-(G2): channel x time tokens -> bidirectional transformer -> per-token outputs and reconstructions."""

    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.d_model
        self.embed = nn.Linear(cfg.patch_len, d)
        self.channel_emb = nn.Parameter(0.02 * torch.randn(cfg.n_channels, d))
        self.time_emb = nn.Parameter(0.02 * torch.randn(cfg.n_patches, d))
        self.mask_token = nn.Parameter(0.02 * torch.randn(d))
        layer = nn.TransformerEncoderLayer(d, cfg.n_heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, cfg.patch_len)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (B, C, K, P); mask: (B, C, K) bool (True = hidden) -> (outputs (B, C, K, d), recon (B, C, K, P))."""
        b, c, k, p = x.shape
        tok = self.embed(x)
        if mask is not None:
            tok = torch.where(mask[..., None], self.mask_token.expand_as(tok), tok)
        tok = tok + self.channel_emb[None, :, None, :] + self.time_emb[None, None, :, :]
        h = self.norm(self.encoder(tok.reshape(b, c * k, -1))).reshape(b, c, k, -1)
        return h, self.head(h)


def _warmup_cosine(steps: int):
    """The lr factor ``step -> factor`` of every WiCAT loop: linear warm-up over the first tenth of the
    steps, then cosine decay to zero (passed to ``train_lm`` as its ``schedule=`` callable)."""
    warm = max(1, steps // 10)

    def factor(i: int) -> float:
        if i < warm:
            return (i + 1) / warm
        return 0.5 * (1 + np.cos(np.pi * min(1.0, (i - warm) / max(1, steps - warm))))

    return factor


# ----------------------------------------------------------------------------- tokenization
def make_windows(traces: np.ndarray, n_patches: int, patch_len: int, stride: int | None = None) -> np.ndarray:
    """Cut ``traces`` (T, C) into windows ``(N, C, K, P)`` of ``K * P`` frames every ``stride`` frames
    (default: non-overlapping)."""
    traces = as_array("traces", traces, ndim=2)
    n_patches = check_int("n_patches", n_patches, minimum=1)
    patch_len = check_int("patch_len", patch_len, minimum=1)
    w = n_patches * patch_len
    stride = w if stride is None else check_int("stride", stride, minimum=1)
    t, c = traces.shape
    if t < w:
        raise ValueError(f"traces has {t} frames, fewer than one window of {w}")
    starts = np.arange(0, t - w + 1, stride)
    out = np.stack([traces[s:s + w].T.reshape(c, n_patches, patch_len) for s in starts])
    return out.astype(np.float32)


def patch_targets(y: np.ndarray, n_patches: int, patch_len: int, stride: int | None = None) -> np.ndarray:
    """The patch-mean of a per-frame signal, aligned with :func:`make_windows`: ``(N * K,)``."""
    y = as_array("y", y, ndim=1)
    w = make_windows(y[:, None], n_patches, patch_len, stride)   # (N, 1, K, P)
    return w[:, 0].mean(-1).reshape(-1)


def sample_mask(batch: int, n_channels: int, n_patches: int, mask_ratio: float, region_mask_prob: float,
                gen: torch.Generator) -> torch.Tensor:
    """(G3) random-token mask plus, per window with probability ``region_mask_prob``, one whole channel."""
    m = torch.rand(batch, n_channels, n_patches, generator=gen) < mask_ratio
    whole = torch.rand(batch, generator=gen) < region_mask_prob
    ch = torch.randint(0, n_channels, (batch,), generator=gen)
    m[whole, ch[whole], :] = True
    return m


def masked_mse(recon: torch.Tensor, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean squared error over masked tokens only: (B, C, K, P), (B, C, K) -> scalar."""
    err = ((recon - x) ** 2).mean(-1)
    return (err * mask).sum() / mask.sum().clamp_min(1)


def pretrain(windows: np.ndarray, cfg: EncoderConfig, *, steps: int, batch: int = 32, lr: float = 2e-3,
             mask_ratio: float = 0.5, region_mask_prob: float = 0.3, seed: int = 0) -> tuple[TokenEncoder, list]:
    """Masked pretraining (G3) of a fresh :class:`TokenEncoder` on pooled windows ``(N, C, K, P)``.

    Returns the model (eval mode) and the per-step loss history.
    """
    windows = as_array("windows", windows, ndim=4)
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    lr = check_positive("lr", lr)
    if not 0 < mask_ratio < 1:
        raise ValueError(f"mask_ratio must lie in (0, 1), got {mask_ratio!r}")
    if tuple(windows.shape[1:]) != (cfg.n_channels, cfg.n_patches, cfg.patch_len):
        raise ValueError(f"windows must have shape (N, {cfg.n_channels}, {cfg.n_patches}, {cfg.patch_len}), "
                         f"got {windows.shape}")
    torch.manual_seed(seed)                     # the init (train_lm's generator, seeded alike, draws the batches)
    model = TokenEncoder(cfg)
    data = torch.as_tensor(windows, dtype=torch.float32)

    def sample(gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        x = data[torch.randint(0, data.shape[0], (batch,), generator=gen)]
        return x, sample_mask(batch, cfg.n_channels, cfg.n_patches, mask_ratio, region_mask_prob, gen)

    def loss_fn(model: TokenEncoder, xm: tuple, step: int, gen: torch.Generator) -> torch.Tensor:
        x, m = xm
        return masked_mse(model(x, m)[1], x, m)

    hist = train_lm(model, sample, steps=steps, lr=lr, weight_decay=1e-4, grad_clip=None, seed=seed,
                    schedule=_warmup_cosine(steps), loss_fn=loss_fn)
    return model.eval(), hist


@torch.no_grad()
def encode(model: TokenEncoder, windows: np.ndarray) -> np.ndarray:
    """(G4) frozen features: windows (N, C, K, P) -> per-patch features (N * K, C * d)."""
    windows = as_array("windows", windows, ndim=4)
    h, _ = model(torch.as_tensor(windows, dtype=torch.float32))
    n, c, k, d = h.shape
    return h.permute(0, 2, 1, 3).reshape(n * k, c * d).numpy().astype(np.float64)


@torch.no_grad()
def masked_mse_ratio(model: TokenEncoder, windows: np.ndarray, *, mask_ratio: float = 0.5, seed: int = 0) -> float:
    """Gate statistic: masked-token MSE over the MSE of the mean predictor (0 on z-scored channels)."""
    x = torch.as_tensor(as_array("windows", windows, ndim=4), dtype=torch.float32)
    gen = torch.Generator().manual_seed(seed)
    m = sample_mask(x.shape[0], x.shape[1], x.shape[2], mask_ratio, 0.0, gen)
    _, rec = model(x, m)
    return float(masked_mse(rec, x, m) / masked_mse(torch.zeros_like(x), x, m))


@torch.no_grad()
def reconstruct_region(model: TokenEncoder, windows: np.ndarray, channel: int) -> np.ndarray:
    """Hide every token of ``channel`` and return its reconstruction ``(N, K * P)`` (left-out region)."""
    windows = as_array("windows", windows, ndim=4)
    channel = check_int("channel", channel, minimum=0, maximum=windows.shape[1] - 1)
    x = torch.as_tensor(windows, dtype=torch.float32)
    m = torch.zeros(x.shape[:3], dtype=torch.bool)
    m[:, channel] = True
    _, rec = model(x, m)
    return rec[:, channel].reshape(x.shape[0], -1).numpy()


def _block_cv_alpha(x: np.ndarray, y: np.ndarray, alphas: np.ndarray, folds: int) -> float:
    """The alpha ``RidgeCV(alphas, cv=KFold(folds, shuffle=False))`` picks (mean held-out R^2 over contiguous
    blocks, first best on ties), computed with one eigendecomposition per fold instead of one solve per
    (fold, alpha)."""
    from sklearn.metrics import r2_score
    from sklearn.model_selection import KFold

    scores = np.zeros((folds, len(alphas)))
    for f, (tr, te) in enumerate(KFold(folds, shuffle=False).split(x)):
        mx, my = x[tr].mean(0), y[tr].mean(0)
        xc, yc = x[tr] - mx, y[tr] - my
        if xc.shape[0] >= xc.shape[1]:                 # eigenbasis of the Gram matrix: X^T X = V diag(lam) V^T
            lam, v = np.linalg.eigh(xc.T @ xc)
            lam = np.clip(lam, 0.0, None)
            rhs, proj = v.T @ (xc.T @ yc), (x[te] - mx) @ v
        else:                                          # thin SVD X = U diag(s) V^T; X^T y = V diag(s) U^T y
            u, sv, vt = np.linalg.svd(xc, full_matrices=False)
            lam, rhs, proj = sv ** 2, sv[:, None] * (u.T @ yc) if yc.ndim == 2 else sv * (u.T @ yc), (x[te] - mx) @ vt.T
        for j, a in enumerate(alphas):                 # coef = V diag(1 / (lam + a)) V^T X^T y
            inv = 1.0 / (lam + a)
            coef = inv[:, None] * rhs if rhs.ndim == 2 else inv * rhs
            scores[f, j] = r2_score(y[te], proj @ coef + my)
    return float(alphas[int(np.argmax(scores.mean(0)))])


def ridge_fit(features: np.ndarray, y: np.ndarray, alphas: np.ndarray | None = None, folds: int = 0):
    """(G4) the lightweight head: standardised features -> ridge with a cross-validated alpha.

    ``folds = 0``: efficient leave-one-out choice of alpha (``RidgeCV``; rows must be distinct samples);
    ``folds = k``: ``k`` contiguous blocks (no shuffling), for time-ordered rows from overlapping windows;
    the alpha is the one ``RidgeCV(cv=KFold(k))`` would pick (mean held-out R^2, first best), found with one
    eigendecomposition per block, and the returned head is ``Ridge(alpha)`` refit on every row.
    """
    from sklearn.linear_model import Ridge, RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    features = as_array("features", features, ndim=2)
    y = as_array("y", y, ndim=(1, 2))
    folds = check_int("folds", folds, minimum=0)
    if features.shape[0] != y.shape[0]:
        raise ValueError(f"features has {features.shape[0]} rows but y has {y.shape[0]}")
    if folds == 1:
        raise ValueError("folds must be 0 (leave-one-out) or >= 2")
    if folds > features.shape[0]:
        raise ValueError(f"folds ({folds}) exceeds the number of rows ({features.shape[0]})")
    alphas = np.logspace(-2, 5, 8) if alphas is None else np.asarray(alphas, dtype=float)
    if not folds:
        return make_pipeline(StandardScaler(), RidgeCV(alphas=alphas)).fit(features, y)
    scaler = StandardScaler().fit(features)
    alpha = _block_cv_alpha(scaler.transform(features), y, alphas, folds)
    return make_pipeline(scaler, Ridge(alpha=alpha)).fit(features, y)


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    """Coefficient of determination, pooled over all entries."""
    y, pred = np.asarray(y, float), np.asarray(pred, float)
    return float(1.0 - ((y - pred) ** 2).sum() / max(((y - y.mean(0)) ** 2).sum(), 1e-12))


# ----------------------------------------------------------------------------- controls
class SupervisedEncoder(nn.Module):
    """The single-session control: the same transformer, from scratch, with a linear head on patch features."""

    def __init__(self, cfg: EncoderConfig):
        super().__init__()
        self.enc = TokenEncoder(cfg)
        self.out = nn.Linear(cfg.n_channels * cfg.d_model, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.enc(x)
        b, c, k, d = h.shape
        return self.out(h.permute(0, 2, 1, 3).reshape(b, k, c * d)).squeeze(-1)   # (B, K)


def train_supervised(windows: np.ndarray, targets: np.ndarray, cfg: EncoderConfig, *, steps: int,
                     batch: int = 32, lr: float = 2e-3, weight_decay: float = 1e-2, seed: int = 0,
                     init: TokenEncoder | None = None) -> SupervisedEncoder:
    """Train :class:`SupervisedEncoder` on one session's labelled windows ``(N, C, K, P)`` and targets ``(N, K)``.

    ``init``: start the encoder from these (pretrained) weights and fine-tune everything; ``None``: from scratch.
    The head and the sampling of minibatches depend on ``seed`` only, so the two starts see the same batches.
    """
    windows = as_array("windows", windows, ndim=4)
    targets = as_array("targets", targets, ndim=2)
    steps = check_int("steps", steps, minimum=1)
    if init is not None and not isinstance(init, TokenEncoder):
        raise TypeError(f"init must be a TokenEncoder or None, got {type(init).__name__}")
    if init is not None and init.cfg != cfg:
        raise ValueError(f"init has config {init.cfg}, not {cfg}")
    torch.manual_seed(seed)                     # the head's init (train_lm's generator draws the batches)
    model = SupervisedEncoder(cfg)
    if init is not None:
        model.enc.load_state_dict(init.state_dict())
    x, y = torch.as_tensor(windows, dtype=torch.float32), torch.as_tensor(targets, dtype=torch.float32)

    def sample(gen: torch.Generator) -> torch.Tensor:
        return torch.randint(0, x.shape[0], (min(batch, x.shape[0]),), generator=gen)

    def loss_fn(model: SupervisedEncoder, idx: torch.Tensor, step: int, gen: torch.Generator) -> torch.Tensor:
        return ((model(x[idx]) - y[idx]) ** 2).mean()

    train_lm(model, sample, steps=steps, lr=lr, weight_decay=weight_decay, grad_clip=None, seed=seed,
             schedule=_warmup_cosine(steps), loss_fn=loss_fn)
    return model.eval()


class StitchedEncoder(nn.Module):
    """Per-session stitcher control: session s's channels -> ``S_s`` -> shared channels -> encoder -> ``U_s``.

    Each stitcher pair starts near the identity (``I + noise``), which favours the control: a new
    session only has to learn a correction, and the shared channels start aligned with the parcels.
    """

    def __init__(self, cfg: EncoderConfig, n_inputs: int, n_sessions: int, init_noise: float = 0.3):
        super().__init__()
        if n_inputs != cfg.n_channels:
            raise ValueError(f"n_inputs ({n_inputs}) must equal cfg.n_channels ({cfg.n_channels})")
        self.enc = TokenEncoder(cfg)
        self.n_inputs = n_inputs
        self.init_noise = init_noise
        self.stitch_in = nn.ParameterList([self._new() for _ in range(n_sessions)])
        self.stitch_out = nn.ParameterList([self._new() for _ in range(n_sessions)])

    def _new(self) -> nn.Parameter:
        r = self.n_inputs
        return nn.Parameter(torch.eye(r) + self.init_noise * torch.randn(r, r) / np.sqrt(r))

    def add_session(self) -> int:
        """A fresh stitcher pair (identity + noise) for a new session; returns its index."""
        self.stitch_in.append(self._new())
        self.stitch_out.append(self._new())
        return len(self.stitch_in) - 1

    def forward(self, x: torch.Tensor, session: int, mask: torch.Tensor | None = None):
        """x: (B, R, K, P) in the session's own channels; mask: (B, R, K) -> (outputs, recon (B, R, K, P))."""
        xs = torch.einsum("cr,brkp->bckp", self.stitch_in[session], x)
        h, rec = self.enc(xs, mask)
        return h, torch.einsum("rc,bckp->brkp", self.stitch_out[session], rec)


def _stitched_steps(model: StitchedEncoder, data: list, params, steps: int, batch: int, lr: float,
                    mask_ratio: float, gen: torch.Generator) -> list:
    """The stitcher control's masked-pretraining steps on ``params`` (all of them, or a new session's stitcher
    pair), drawing the session, the windows and the mask from ``gen``: :func:`icml26.nn.train.train_lm` with
    AdamW (weight decay 1e-4), the warm-up + cosine schedule of :func:`_warmup_cosine`, no clipping, and the
    masked reconstruction loss as its ``loss_fn`` (``params=`` trains only :func:`adapt_stitcher`'s new
    stitcher pair; ``generator=`` continues the caller's stream)."""
    from icml26.nn.train import train_lm

    def draw(g: torch.Generator):
        s = int(torch.randint(0, len(data), (1,), generator=g))
        sess, x_all = data[s]
        x = x_all[torch.randint(0, x_all.shape[0], (batch,), generator=g)]
        return sess, x, sample_mask(batch, x.shape[1], x.shape[2], mask_ratio, 0.3, g)

    def loss(m: StitchedEncoder, b, _step: int, _gen: torch.Generator) -> torch.Tensor:
        sess, x, mask = b
        _, rec = m(x, sess, mask)
        return masked_mse(rec, x, mask)

    return train_lm(model, draw, steps=steps, lr=lr, weight_decay=1e-4, grad_clip=None, params=params,
                    schedule=_warmup_cosine(steps), loss_fn=loss, generator=gen)


def pretrain_stitched(session_windows: list, cfg: EncoderConfig, *, steps: int, batch: int = 32,
                      lr: float = 2e-3, mask_ratio: float = 0.5, seed: int = 0) -> tuple[StitchedEncoder, list]:
    """Pretrain the stitcher control on several sessions' windows (one stitcher pair per session), with the
    same masks (G3) as WiCAT, the loss taken on the session's own channels."""
    if not isinstance(session_windows, (list, tuple)) or not session_windows:
        raise TypeError("session_windows must be a non-empty list of (N, R, K, P) arrays")
    wins = [as_array(f"session_windows[{i}]", w, ndim=4) for i, w in enumerate(session_windows)]
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = StitchedEncoder(cfg, wins[0].shape[1], len(wins))
    data = [(i, torch.as_tensor(w, dtype=torch.float32)) for i, w in enumerate(wins)]
    hist = _stitched_steps(model, data, model.parameters(), steps, batch, lr, mask_ratio, gen)
    return model.eval(), hist


def adapt_stitcher(model: StitchedEncoder, windows: np.ndarray, *, steps: int, batch: int = 32, lr: float = 5e-3,
                   mask_ratio: float = 0.5, seed: int = 0) -> int:
    """Fit a new session's stitcher pair on its unlabelled windows, the shared encoder frozen; returns its index."""
    windows = as_array("windows", windows, ndim=4)
    steps = check_int("steps", steps, minimum=1)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    s = model.add_session()
    for p in model.enc.parameters():
        p.requires_grad_(False)
    _stitched_steps(model, [(s, torch.as_tensor(windows, dtype=torch.float32))],
                    [model.stitch_in[s], model.stitch_out[s]], steps, batch, lr, mask_ratio, gen)
    for p in model.enc.parameters():
        p.requires_grad_(True)
    return s


@torch.no_grad()
def encode_stitched(model: StitchedEncoder, windows: np.ndarray, session: int) -> np.ndarray:
    """Frozen features of the stitcher control: (N, R, K, P) -> (N * K, C * d)."""
    windows = as_array("windows", windows, ndim=4)
    h, _ = model(torch.as_tensor(windows, dtype=torch.float32), session)
    n, c, k, d = h.shape
    return h.permute(0, 2, 1, 3).reshape(n * k, c * d).numpy().astype(np.float64)


def config_dict(cfg: EncoderConfig) -> dict:
    return asdict(cfg)
