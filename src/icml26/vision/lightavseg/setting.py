"""The simulated audio-visual world of the LightAVSeg reproduction (arXiv:2605.08805).

AVSBench (S4 / MS3 / AVSS) videos cannot be shipped, so each sample is a generated frame
with its audio:

* **frame** ``(3, S, S)``: a smooth noisy background and 2-4 objects of six classes, the
  classes being three shapes (disk, square, triangle) times two colours (red, blue), so every
  object has look-alikes that share its shape or its colour; per-object size, position and
  colour jitter; later objects occlude earlier ones.
* **audio**: 1-3 of the objects sound; each class has a signature harmonic tone (its own
  fundamental, spectral tilt and amplitude-modulation rate, fundamentals a semitone or two
  apart, so the spectra overlap heavily); the audio is the mixture of the sounding objects'
  tones plus white noise, turned into a log-mel spectrogram with librosa's mel filterbank.
* **mask** ``(S, S)``: the union of the visible pixels of the sounding objects (the AVS
  target). The silent objects are distractors of other classes: a model that ignores the
  audio can only guess which objects sound.

``n_sound`` and ``n_silent`` per sample give the evaluation subsets: single-source frames
(S4-like), multi-source (the whole MS3-like set) and distractor frames (at least one silent
object). Everything is drawn from ``numpy`` generators, so a seed fixes a data set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

N_CLASSES = 6
SHAPES = ("disk", "square", "triangle")
COLOURS = np.array([[0.85, 0.30, 0.25], [0.25, 0.40, 0.85]])  # red, blue
#: Class k = shape k % 3, colour k // 3. Fundamentals (Hz) one or two semitones apart.
F0 = np.array([196.0, 220.0, 233.1, 261.6, 277.2, 311.1])
TILT = np.array([0.7, 1.6, 1.0, 2.0, 0.5, 1.3])  # harmonic h has amplitude h**-tilt
AM_RATE = np.array([4.0, 11.0, 7.0, 5.5, 9.0, 13.0])  # amplitude-modulation rate (Hz)
N_HARMONICS = 10


def class_of(shape: int, colour: int) -> int:
    """Class index of a (shape, colour) pair."""
    return int(colour) * len(SHAPES) + int(shape)


def class_tone(k: int, sr: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """One instance of class ``k``'s signature sound: ``(n,)`` samples at ``sr`` Hz.

    A harmonic tone (fundamental ``F0[k]`` jittered by +-3%, ``N_HARMONICS`` harmonics with
    amplitude ``h**-TILT[k]`` and random phases, those above Nyquist dropped) times a slow
    amplitude modulation at ``AM_RATE[k]`` Hz, normalised to unit RMS and a random loudness.
    """
    t = np.arange(n) / sr
    f0 = F0[k] * (1 + rng.uniform(-0.03, 0.03))
    h = np.arange(1, N_HARMONICS + 1)
    h = h[h * f0 < sr / 2]
    phases = rng.uniform(0, 2 * np.pi, size=h.size)
    wave = (h[:, None] ** -TILT[k] * np.sin(2 * np.pi * f0 * h[:, None] * t + phases[:, None])).sum(0)
    env = 1.0 + 0.6 * np.sin(2 * np.pi * AM_RATE[k] * t + rng.uniform(0, 2 * np.pi))
    wave = wave * env
    wave /= np.sqrt(np.mean(wave ** 2)) + 1e-12
    return wave * rng.uniform(0.6, 1.0)


def log_mel(wave, sr: int = 8000, n_fft: int = 256, hop: int = 128, n_mels: int = 32) -> np.ndarray:
    """Log-mel spectrogram ``(n_frames, n_mels)`` of a mono wave ``(n,)``.

    Power STFT (Hann window, zero-padded centred frames, as ``librosa.stft(center=True,
    pad_mode="constant")``) through librosa's Slaney mel filterbank, then ``log(1e-6 + .)``.
    """
    wave = as_array("wave", wave, ndim=1)
    sr = check_int("sr", sr, minimum=1)
    n_fft = check_int("n_fft", n_fft, minimum=8)
    hop = check_int("hop", hop, minimum=1)
    n_mels = check_int("n_mels", n_mels, minimum=1)
    import librosa.filters

    pad = np.pad(np.asarray(wave, dtype=np.float64), n_fft // 2)
    n_frames = 1 + (pad.size - n_fft) // hop
    idx = np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)  # periodic Hann, as scipy/librosa
    power = np.abs(np.fft.rfft(pad[idx] * window, axis=1)) ** 2  # (frames, n_fft//2+1)
    mel = librosa.filters.mel(sr=sr, n_fft=n_fft, n_mels=n_mels)  # (n_mels, n_fft//2+1)
    return np.log(1e-6 + power @ mel.T).astype(np.float32)


def _shape_mask(shape: int, cy: float, cx: float, r: float, size: int) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size] + 0.5
    if shape == 0:
        return (yy - cy) ** 2 + (xx - cx) ** 2 <= r ** 2
    if shape == 1:
        s = r * 0.85
        return (np.abs(yy - cy) <= s) & (np.abs(xx - cx) <= s)
    # triangle pointing up: apex at (cy - r, cx), base at cy + 0.7 r
    top, base = cy - r, cy + 0.7 * r
    half = (yy - top) / (base - top) * r
    return (yy >= top) & (yy <= base) & (np.abs(xx - cx) <= half)


@dataclass(frozen=True)
class Scenes:
    """A generated AVS data set.

    ``images`` (n, 3, S, S) float32 in [0, 1]; ``masks`` (n, S, S) float32 in {0, 1} (union of the
    sounding objects); ``audio`` (n, 1, T, M) float32 log-mel; ``n_sound`` / ``n_silent`` (n,) int;
    ``classes`` (n, 4) int class of each object slot (-1: empty); ``sounding`` (n, 4) bool.
    """

    images: np.ndarray
    masks: np.ndarray
    audio: np.ndarray
    n_sound: np.ndarray
    n_silent: np.ndarray
    classes: np.ndarray
    sounding: np.ndarray

    def __len__(self) -> int:
        return int(self.images.shape[0])


def make_scenes(n: int, size: int = 32, seed=0, *, sr: int = 8000, duration: float = 0.25,
                snr_db: float = 10.0, p_all_sound: float = 0.2, n_mels: int = 32) -> Scenes:
    """Draw ``n`` frames with their audio and sounding-object masks (see the module docstring).

    Each frame has 2-4 objects of distinct classes. With probability ``p_all_sound`` every object
    sounds (at most 3 objects then: a frame without distractors); otherwise 1 to min(3, objects - 1)
    objects sound and the rest are silent distractors. The audio mixture has white noise at
    ``snr_db`` relative to the mixture's power.
    """
    n = check_int("n", n, minimum=1)
    size = check_int("size", size, minimum=8)
    rng = as_rng("seed", seed)
    sr = check_int("sr", sr, minimum=1000)
    duration = check_positive("duration", duration)
    if isinstance(snr_db, bool) or not isinstance(snr_db, (int, float, np.integer, np.floating)):
        raise TypeError(f"snr_db must be a number, got {type(snr_db).__name__}")
    if not np.isfinite(snr_db):
        raise ValueError(f"snr_db must be finite, got {snr_db!r}")
    if not 0 <= float(p_all_sound) <= 1:
        raise ValueError(f"p_all_sound must lie in [0, 1], got {p_all_sound!r}")
    n_samples = int(round(sr * duration))
    images = np.empty((n, 3, size, size), np.float32)
    masks = np.zeros((n, size, size), np.float32)
    classes = -np.ones((n, 4), np.int64)
    sounding = np.zeros((n, 4), bool)
    audio = []
    yy, xx = np.mgrid[0:size, 0:size] / size
    for i in range(n):
        # background: a random smooth gradient plus pixel noise, greyish
        g = rng.uniform(0.35, 0.6) + 0.12 * (rng.uniform(-1, 1) * yy + rng.uniform(-1, 1) * xx)
        img = np.repeat(g[None], 3, 0) + rng.normal(0, 0.04, (3, size, size))
        all_sound = rng.random() < p_all_sound
        n_obj = int(rng.integers(2, 4)) if all_sound else int(rng.integers(2, 5))
        cls = rng.choice(N_CLASSES, size=n_obj, replace=False)
        n_snd = n_obj if all_sound else int(rng.integers(1, min(3, n_obj - 1) + 1))
        snd = np.zeros(n_obj, bool)
        snd[rng.choice(n_obj, size=n_snd, replace=False)] = True
        # place objects: radius ~ 11-19% of the frame, centres not too close (rejection)
        centres: list[tuple[float, float, float]] = []
        owner = -np.ones((size, size), np.int64)
        for j, k in enumerate(cls):
            for _ in range(50):
                r = size * rng.uniform(0.11, 0.19)
                cy, cx = rng.uniform(r, size - r, size=2)
                if all((cy - y) ** 2 + (cx - x) ** 2 >= (0.8 * (r + q)) ** 2 for y, x, q in centres):
                    break
            centres.append((cy, cx, r))
            m = _shape_mask(int(k) % 3, cy, cx, r, size)
            colour = np.clip(COLOURS[int(k) // 3] + rng.uniform(-0.08, 0.08, 3), 0, 1)
            img[:, m] = colour[:, None] + rng.normal(0, 0.03, (3, int(m.sum())))
            owner[m] = j
        images[i] = np.clip(img, 0, 1)
        for j in range(n_obj):
            if snd[j]:
                masks[i][owner == j] = 1.0
        classes[i, :n_obj] = cls
        sounding[i, :n_obj] = snd
        wave = sum(class_tone(int(k), sr, n_samples, rng) for k in cls[snd])
        noise_sd = np.sqrt(np.mean(wave ** 2) / 10 ** (snr_db / 10))
        wave = wave + rng.normal(0, noise_sd, n_samples)
        audio.append(log_mel(wave, sr=sr, n_mels=n_mels))
    n_sound = sounding.sum(1)
    n_silent = (classes >= 0).sum(1) - n_sound
    return Scenes(images, masks, np.stack(audio)[:, None].astype(np.float32), n_sound.astype(np.int64),
                  n_silent.astype(np.int64), classes, sounding)


def EXAMPLES_SETTING():
    """(function, good kwargs) pairs for the common bad-input test."""
    wave = np.sin(np.linspace(0, 200, 2000))
    return [(log_mel, {"wave": wave, "sr": 8000, "n_fft": 256, "hop": 128, "n_mels": 32}),
            (make_scenes, {"n": 2, "size": 16, "seed": 0, "duration": 0.1, "snr_db": 10.0})]
