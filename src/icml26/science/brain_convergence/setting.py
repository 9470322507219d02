"""Stand-in stimuli, "brain regions" and a model zoo for the brain-alignment pipeline.

Nothing here is a brain. Stimuli are scikit-learn digits (8x8). Three stand-in regions, each
measured ``reps`` times with Gaussian noise scaled so that the split-half RDM reliability is
about ``reliability`` (0.8):

* ``early``: a fixed Gabor filter bank (4 orientations x 2 wavelengths, quadrature energy)
  with divisive normalisation -- a V1-like model from outside the zoo;
* ``late``: the penultimate layer of a small CNN (a different architecture from the zoo's
  MLPs) trained on a disjoint half of the digits;
* ``category``: one-hot category prototypes -- pure category structure, the control region.

The zoo: MLPs of several widths and depths, trained for several epochs on another disjoint
part with label noise, plus untrained ones; their hidden layers and logits are the layers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_rng, check_int
from icml26.nn.tokenize import check_texts


def digits_split(n_stimuli: int, n_ref: int, seed: int) -> dict[str, np.ndarray]:
    """Disjoint parts of the digits: zoo training set, reference-network training set and stimuli (scaled to [0, 1])."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x, y = d.data / 16.0, d.target
    perm = as_rng("seed", seed).permutation(len(y))
    s, r, z = perm[:n_stimuli], perm[n_stimuli:n_stimuli + n_ref], perm[n_stimuli + n_ref:]
    return {"x_stim": x[s], "y_stim": y[s], "x_ref": x[r], "y_ref": y[r], "x_zoo": x[z], "y_zoo": y[z]}


def gabor_bank(size: int = 5) -> np.ndarray:
    """(8, 2, size, size): 4 orientations x 2 wavelengths, even and odd phase."""
    half = size // 2
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1].astype(float)
    out = []
    for lam in (3.0, 5.0):
        for th in np.arange(4) * np.pi / 4:
            u = xx * np.cos(th) + yy * np.sin(th)
            env = np.exp(-(xx ** 2 + yy ** 2) / (2 * (0.5 * lam) ** 2))
            out.append([env * np.cos(2 * np.pi * u / lam), env * np.sin(2 * np.pi * u / lam)])
    return np.asarray(out)


def early_region(x: np.ndarray, *, sigma: float = 0.1) -> np.ndarray:
    """V1-like responses (stimuli, 8 * 16): quadrature Gabor energy, divisive normalisation, 2x2 pooling."""
    from scipy.signal import correlate2d

    imgs = np.asarray(x, dtype=float).reshape(-1, 8, 8)
    bank = gabor_bank()
    feats = []
    for im in imgs:
        e = np.stack([correlate2d(im, k[0], mode="same") ** 2 + correlate2d(im, k[1], mode="same") ** 2
                      for k in bank])
        e = e / (sigma + e.sum(axis=0, keepdims=True))
        feats.append(e.reshape(len(bank), 4, 2, 4, 2).mean(axis=(2, 4)).reshape(-1))
    return np.asarray(feats)


def late_region(x_ref: np.ndarray, y_ref: np.ndarray, x_stim: np.ndarray, *, seed: int, epochs: int = 60) -> np.ndarray:
    """Penultimate-layer responses (stimuli, 32) of a small CNN trained on the reference part."""
    import torch
    from torch import nn

    from icml26.nn.mlp import fit

    torch.manual_seed(seed)
    net = nn.Sequential(nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(16 * 16, 32), nn.ReLU())
    head = nn.Linear(32, 10)
    X, Y = torch.as_tensor(x_ref, dtype=torch.float32), torch.as_tensor(y_ref)
    if epochs:  # full-batch Adam
        fit(nn.Sequential(net, head), lambda m, b: nn.functional.cross_entropy(m(b[0]), b[1]), [(X, Y)],
            steps=epochs, lr=3e-3)
    with torch.no_grad():
        return net(torch.as_tensor(x_stim, dtype=torch.float32)).numpy().astype(float)


def category_region(y: np.ndarray, *, units: int = 20, seed: int = 0) -> np.ndarray:
    """Category-only responses (stimuli, units): a random prototype per label, nothing else."""
    proto = as_rng("seed", seed).normal(size=(10, units))
    return proto[np.asarray(y)]


def measure(responses: np.ndarray, reps: int, noise_sd: float, seed) -> np.ndarray:
    """(reps, stimuli, units) noisy repeated measurements; noise_sd is relative to the response SD."""
    rng = as_rng("seed", seed)
    r = np.asarray(responses, dtype=float)
    return r[None] + noise_sd * r.std() * rng.normal(size=(check_int("reps", reps, minimum=2), *r.shape))


def calibrate_noise(responses: np.ndarray, reliability: float, *, seed: int = 0, reps: int = 2) -> float:
    """Noise SD (relative) giving split-half RDM reliability (Spearman between the two halves' RDMs) ~ target."""
    from .method import rdm_fast, rsa

    lo, hi = 0.0, 20.0
    for _ in range(18):
        mid = (lo + hi) / 2
        m = measure(responses, 2, mid, np.random.default_rng([seed, 1]))
        rel = rsa(rdm_fast(m[0]), rdm_fast(m[1]))
        lo, hi = (mid, hi) if rel > reliability else (lo, mid)
    return (lo + hi) / 2


@dataclass(frozen=True)
class ZooSpec:
    width: int
    depth: int
    epochs: int
    label_noise: float


def zoo_specs(n_models: int, seed) -> list[ZooSpec]:
    """``n_models`` random MLP configurations; about one in six untrained (epochs 0)."""
    rng = as_rng("seed", seed)
    out = []
    for i in range(check_int("n_models", n_models, minimum=1)):
        out.append(ZooSpec(int(rng.choice([8, 16, 32, 64, 128])), int(rng.choice([1, 2, 3])),
                           0 if i % 6 == 0 else int(rng.choice([1, 2, 4, 8, 16, 32])),
                           float(rng.choice([0.0, 0.2, 0.5]))))
    return out


def make_mlp(spec: ZooSpec, seed: int):
    """The zoo's MLP ``64 -> width x depth (ReLU) -> 10``, initialised from ``torch.manual_seed(seed)``."""
    import torch

    from icml26.nn.mlp import mlp

    torch.manual_seed(seed)
    return mlp([64, *[spec.width] * spec.depth, 10], activation="relu")


def train_epochs(net, x: np.ndarray, y: np.ndarray, epochs: int, label_noise: float, seed: int,
                 callback=None, batch: int = 64) -> None:
    """Minibatch Adam for ``epochs`` epochs on labels corrupted at rate ``label_noise``; callback(epoch) after each
    (the shared ``icml26.nn.mlp.fit`` over the epochs' minibatches, drawn up front from ``seed``)."""
    import torch
    from torch import nn

    from icml26.nn.mlp import fit

    rng = np.random.default_rng(seed)
    yy = np.where(rng.random(len(y)) < label_noise, rng.integers(0, 10, len(y)), y)
    X, Y = torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(yy)
    n_split = max(1, len(Y) // batch)
    batches = [idx for _ in range(epochs) for idx in np.array_split(rng.permutation(len(Y)), n_split)]
    if not batches:  # epochs == 0: the untrained members of the zoo
        return

    def on_step(step, _net, _loss):
        if callback is not None and (step + 1) % n_split == 0:
            callback((step + 1) // n_split)

    fit(net, lambda m, idx: nn.functional.cross_entropy(m(X[idx]), Y[idx]), batches, steps=len(batches), lr=2e-3,
        on_step=on_step)


def layer_features(net, x: np.ndarray) -> list[np.ndarray]:
    """Activations of every hidden ReLU layer and the logits: list of (stimuli, units)."""
    import torch
    from torch import nn

    out, h = [], torch.as_tensor(x, dtype=torch.float32)
    with torch.no_grad():
        for m in net:
            h = m(h)
            if isinstance(m, nn.ReLU):
                out.append(h.numpy().astype(float))
        out.append(h.numpy().astype(float))
    return out


# ----------------------------------------------------------------------------- the language arm
CAPTION_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    # category: (nouns, verbs, places)
    "animal": (("dog", "cat", "horse", "fox", "goat"), ("runs", "sleeps", "eats", "jumps"),
               ("in the field", "by the barn", "near the river")),
    "vehicle": (("car", "truck", "bus", "train", "bike"), ("stops", "turns", "speeds", "waits"),
                ("on the road", "at the station", "by the bridge")),
    "food": (("soup", "bread", "cake", "salad", "pie"), ("cools", "bakes", "steams", "sits"),
             ("on the table", "in the oven", "at the market")),
    "weather": (("storm", "rain", "wind", "fog", "snow"), ("falls", "blows", "drifts", "clears"),
                ("over the hills", "across the town", "above the sea")),
    "music": (("song", "drum", "choir", "violin", "band"), ("plays", "echoes", "fades", "starts"),
              ("in the hall", "at the club", "through the park")),
    "tool": (("hammer", "saw", "drill", "rope", "ladder"), ("hangs", "breaks", "rusts", "lies"),
             ("in the shed", "on the wall", "by the door")),
}
ADJECTIVES = ("small", "big", "red", "old", "new", "dark", "loud", "quiet")
CATEGORIES = tuple(CAPTION_WORDS)


def captions(n: int, seed) -> tuple[list[str], np.ndarray]:
    """``n`` generated captions ``"the {adj} {noun} {verb} {place}"`` and their category labels (0..5)."""
    rng = as_rng("seed", seed)
    n = check_int("n", n, minimum=1)
    texts, labels = [], []
    for _ in range(n):
        c = int(rng.integers(0, len(CATEGORIES)))
        nouns, verbs, places = CAPTION_WORDS[CATEGORIES[c]]
        texts.append(f"the {ADJECTIVES[rng.integers(0, len(ADJECTIVES))]} {nouns[rng.integers(0, len(nouns))]} "
                     f"{verbs[rng.integers(0, len(verbs))]} {places[rng.integers(0, len(places))]}")
        labels.append(c)
    return texts, np.asarray(labels)


def orthographic_region(texts) -> np.ndarray:
    """Early language stand-in (texts, features): normalised character-trigram counts (hashed to 256 bins)."""
    import zlib

    texts = check_texts(texts)
    out = np.zeros((len(texts), 256))
    for i, t in enumerate(texts):
        s = f" {t} "
        for j in range(len(s) - 2):
            out[i, zlib.crc32(s[j:j + 3].encode()) % 256] += 1.0
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def semantic_region(texts) -> np.ndarray:
    """Late language stand-in (texts, 384): MiniLM sentence embeddings (a model from outside the zoo)."""
    from icml26.nn.sentence import MiniLMEncoder

    return MiniLMEncoder().encode(list(texts))


@dataclass(frozen=True)
class LMSpec:
    width: int
    depth: int
    steps: int
    corruption: float  # share of training characters replaced at random (the analogue of label noise)


def lm_specs(n_models: int, seed) -> list[LMSpec]:
    """``n_models`` random char-LM configurations; about one in six untrained (steps 0)."""
    rng = as_rng("seed", seed)
    out = []
    for i in range(check_int("n_models", n_models, minimum=1)):
        out.append(LMSpec(int(rng.choice([16, 32, 48])), int(rng.choice([1, 2])),
                          0 if i % 6 == 0 else int(rng.choice([20, 50, 100, 200, 300])),
                          float(rng.choice([0.0, 0.2, 0.5]))))
    return out


def char_tokenizer():
    from icml26.nn.tokenize import train_tokenizer

    alphabet = sorted(set("".join(w for ws in CAPTION_WORDS.values() for part in ws for w in part) + " ".join(ADJECTIVES)
                          + " the"))
    return train_tokenizer(["".join(alphabet)], kind="char", vocab_size=64, normalizer=None)


def make_char_lm(spec: LMSpec, seed: int, max_len: int = 48):
    import torch

    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(seed)
    tok = char_tokenizer()
    return TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=spec.width, n_layers=spec.depth, n_heads=4,
                           max_len=max_len))


def _char_batch(texts, tok, max_len: int):
    import torch

    ids = [tok.encode(t, bos=True, eos=True)[:max_len] for t in texts]
    n = max(len(r) for r in ids)
    out = torch.full((len(ids), n), tok.pad_id, dtype=torch.long)
    for i, r in enumerate(ids):
        out[i, :len(r)] = torch.tensor(r)
    return out


def train_char_lm(model, texts, spec: LMSpec, seed: int, batch: int = 32) -> None:
    """Train on ``texts`` with a share ``spec.corruption`` of characters replaced at random (no-op if steps = 0)."""
    import torch

    from icml26.nn.train import train_lm

    texts = check_texts(texts)
    if spec.steps == 0:
        return
    tok = char_tokenizer()
    rng = np.random.default_rng(seed)
    letters = "abcdefghijklmnopqrstuvwxyz "
    noisy = ["".join(letters[rng.integers(0, 27)] if rng.random() < spec.corruption else ch for ch in t)
             for t in texts]
    data = _char_batch(noisy, tok, model.cfg.max_len)

    def sample(gen: torch.Generator):
        return data[torch.randint(0, len(data), (batch,), generator=gen)]

    train_lm(model, sample, steps=spec.steps, lr=3e-3, warmup=5, pad_id=tok.pad_id, seed=seed)


def lm_layer_features(model, texts) -> list[np.ndarray]:
    """Mean-pooled (over real characters) outputs of the embedding and of every block: list of (texts, width)."""
    import torch

    texts = check_texts(texts)
    tok = char_tokenizer()
    ids = _char_batch(texts, tok, model.cfg.max_len)
    keep = (ids != tok.pad_id).float()[..., None]
    acts: list[torch.Tensor] = []
    hooks = [b.register_forward_hook(lambda _m, _i, o: acts.append(o[0] if isinstance(o, tuple) else o))
             for b in model.blocks]
    try:
        with torch.no_grad():
            model.eval()
            pos = torch.arange(ids.shape[1])
            emb = model.tok(ids) + model.pos(pos)
            model(ids)
    finally:
        for h in hooks:
            h.remove()
    pool = lambda h: ((h * keep).sum(1) / keep.sum(1)).numpy().astype(float)  # noqa: E731
    return [pool(emb)] + [pool(a) for a in acts]


def lm_performance(model, texts) -> float:
    """Held-out performance: minus the mean next-character cross-entropy (nats) on clean ``texts``."""
    import torch

    from icml26.nn.train import lm_loss

    texts = check_texts(texts)
    tok = char_tokenizer()
    with torch.no_grad():
        model.eval()
        return -float(lm_loss(model, _char_batch(texts, tok, model.cfg.max_len), tok.pad_id))
