"""The simulated world of the ADEPT reproduction: emotional speech with annotator votes.

ADEPT (arXiv:2602.12714) trains on MSP-Podcast and tests zero-shot on IEMOCAP; both are
licensed corpora we cannot ship. This module synthesises a stand-in with the properties the
paper's claims are about:

* **Blended, co-occurring emotions.** Each utterance draws a mixture ``w`` over the four
  emotions (``EMOTIONS``; IEMOCAP's usual four classes): a primary weight in [0.5, 0.85] and
  zero to two minor emotions sharing the rest. Prosody is the ``w``-weighted blend of emotion
  profiles (``PROFILES``: F0 level and range, loudness, syllable rate, jitter and shimmer,
  spectral tilt, formant shift), plus per-utterance scatter, so the profiles overlap.
* **Speakers.** Every utterance has its own speaker (F0 baseline, vocal-tract length, loudness,
  speaking-rate baseline, noise level); the shifted set (``shifted=True``, the "IEMOCAP-like"
  zero-shot set) draws speakers from other ranges (higher F0, shorter vocal tract, faster speech,
  more noise).
* **A cue no tool targets.** A breathy noise band at 5 - 7.5 kHz whose level depends on the
  emotion (strong in sad, absent in angry speech). No tool was built to measure it, but it is not
  invisible to them: raising the breath level moves eGeMAPS MFCC1-4, HNR and loudness, librosa RMS
  (about 0.5 dB) and Praat jitter (a review's measurement), so the eGeMAPS tool reads it. A log-mel
  encoder sees it directly. This is where the opaque encoder was meant to win.
* **Text.** A short transcript from emotion lexicons (``LEXICON``) and filler words. The words
  usually carry the primary emotion, sometimes a minor one, and on *conflict* items an emotion
  absent from the voice (the text-bias trap for a speech LLM).
* **Annotators.** ``n_annotators`` raters each perceive a blend of the voice's mixture and the
  transcript's emotion (a personal text weight up to ``text_weight``) with noise, and vote for
  one emotion. Primary label = plurality; minor labels = every other emotion with at least one
  vote (the paper keeps minority annotations as targets; its exact rule is not in the text we
  could retrieve, so this is our reading).

Audio is synthesised by a source-filter model at 16 kHz: a jittered, shimmered glottal pulse
train following an F0 contour, a one-pole spectral tilt, three formant resonators, a syllable
envelope at the speaking rate, the breath band, and background noise at the speaker's SNR.

:class:`EmotionProbeEnv` is the episode the agent acts in, on the :mod:`icml26.agents` tool
protocol: the observation is the candidate set, each tool call returns the tool's evidence as
text (the auditable trace), and the answer ``"primary; minor1, minor2"`` ends the episode.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.signal import butter, lfilter, sosfilt

from icml26.core.validate import as_array, as_rng, check_int, check_positive

EMOTIONS: tuple[str, ...] = ("neutral", "happy", "sad", "angry")
C = len(EMOTIONS)

#: per-emotion prosody relative to the speaker: F0 ratio, F0 range (semitones), level (dB),
#: syllable rate (per s, multiplied by the speaker's rate), jitter (fraction), shimmer (fraction),
#: tilt (one-pole coefficient: higher is darker), formant scale, breath level (no tool targets it; eGeMAPS reads it)
PROFILES: dict[str, dict[str, float]] = {
    "neutral": dict(f0=1.00, f0_range=1.2, level=0.0, rate=4.0, jitter=0.006, shimmer=0.04, tilt=0.90,
                    formant=1.00, breath=0.25),
    "happy": dict(f0=1.22, f0_range=3.5, level=3.0, rate=4.6, jitter=0.006, shimmer=0.04, tilt=0.86,
                  formant=1.06, breath=0.25),
    "sad": dict(f0=0.92, f0_range=0.8, level=-4.0, rate=3.2, jitter=0.015, shimmer=0.08, tilt=0.94,
                formant=0.97, breath=1.0),
    "angry": dict(f0=1.15, f0_range=2.4, level=6.0, rate=5.0, jitter=0.020, shimmer=0.10, tilt=0.80,
                  formant=1.00, breath=0.0),
}
#: per-utterance scatter of each blended parameter (std; multiplicative for f0, rate, jitter, shimmer)
SCATTER: dict[str, float] = dict(f0=0.06, f0_range=0.8, level=2.5, rate=0.12, jitter=0.35, shimmer=0.30,
                                 tilt=0.02, formant=0.02, breath=0.15)

LEXICON: dict[str, tuple[str, ...]] = {
    "neutral": ("meeting", "tuesday", "report", "schedule", "office", "table", "number", "morning"),
    "happy": ("great", "wonderful", "love", "glad", "amazing", "fun", "excited", "perfect"),
    "sad": ("miss", "lost", "alone", "sorry", "tired", "cried", "gone", "empty"),
    "angry": ("unfair", "hate", "ridiculous", "enough", "stupid", "furious", "never", "liar"),
}
FILLERS: tuple[str, ...] = ("i", "you", "the", "it", "was", "that", "we", "so", "and", "really", "just", "this")
VOWELS: tuple[tuple[float, float, float], ...] = ((730, 1090, 2440), (530, 1840, 2480), (270, 2290, 3010),
                                                  (570, 840, 2410), (300, 870, 2240), (660, 1720, 2410))


@dataclass
class Corpus:
    """One split: audio clips, transcripts and labels (``n`` utterances, ``C`` emotions)."""

    audio: list[np.ndarray]          # n clips of float32 samples
    transcripts: list[str]           # n transcripts
    mixture: np.ndarray              # (n, C) the voice's emotion mixture
    text_emotion: np.ndarray         # (n,) the emotion the words carry
    conflict: np.ndarray             # (n,) bool: the words' emotion is absent from the voice
    votes: np.ndarray                # (n, C) annotator vote counts
    primary: np.ndarray              # (n,) plurality label
    minor: np.ndarray                # (n, C) bool: minority labels (>= 1 vote, not the primary)
    sr: int = 16000
    info: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.audio)

    @property
    def vote_dist(self) -> np.ndarray:
        return self.votes / self.votes.sum(1, keepdims=True)


def sample_mixture(rng: np.random.Generator) -> np.ndarray:
    """A mixture over ``EMOTIONS``: primary weight U(0.5, 0.85), 0-2 minor emotions share the rest."""
    w = np.zeros(C)
    order = rng.permutation(C)
    n_minor = int(rng.choice([0, 1, 2], p=[0.3, 0.45, 0.25]))
    prim = rng.uniform(0.5, 0.85) if n_minor else 1.0
    w[order[0]] = prim
    if n_minor:
        share = rng.dirichlet(np.ones(n_minor))
        w[order[1:1 + n_minor]] = (1 - prim) * share
    return w


def sample_speaker(rng: np.random.Generator, shifted: bool = False) -> dict[str, float]:
    """A speaker's baselines; ``shifted`` draws from the zero-shot set's ranges."""
    if shifted:
        return dict(f0=rng.uniform(190, 290), formant=rng.uniform(1.06, 1.18), level=rng.uniform(-4, 4),
                    rate=rng.uniform(1.0, 1.3), snr=rng.uniform(12, 20))
    return dict(f0=rng.uniform(100, 220), formant=rng.uniform(0.92, 1.06), level=rng.uniform(-4, 4),
                rate=rng.uniform(0.8, 1.1), snr=rng.uniform(22, 32))


def prosody(mixture: np.ndarray, speaker: dict[str, float], rng: np.random.Generator) -> dict[str, float]:
    """Blend the emotion profiles by ``mixture`` (C,), add scatter and the speaker's baselines."""
    w = as_array("mixture", mixture, ndim=1)
    if w.shape != (C,) or (w < 0).any() or abs(w.sum() - 1) > 1e-6:
        raise ValueError(f"mixture must be {C} non-negative weights summing to 1, got {w}")
    blend = {k: float(sum(w[i] * PROFILES[e][k] for i, e in enumerate(EMOTIONS))) for k in PROFILES["neutral"]}
    s = SCATTER
    return dict(
        f0=speaker["f0"] * blend["f0"] * np.exp(s["f0"] * rng.standard_normal()),
        f0_range=max(0.2, blend["f0_range"] + s["f0_range"] * rng.standard_normal()),
        level=speaker["level"] + blend["level"] + s["level"] * rng.standard_normal(),
        rate=speaker["rate"] * blend["rate"] * np.exp(s["rate"] * rng.standard_normal()),
        jitter=blend["jitter"] * np.exp(s["jitter"] * rng.standard_normal()),
        shimmer=blend["shimmer"] * np.exp(s["shimmer"] * rng.standard_normal()),
        tilt=float(np.clip(blend["tilt"] + s["tilt"] * rng.standard_normal(), 0.6, 0.98)),
        formant=speaker["formant"] * blend["formant"] * np.exp(s["formant"] * rng.standard_normal()),
        breath=max(0.0, blend["breath"] + s["breath"] * rng.standard_normal()),
        snr=speaker["snr"],
    )


def _resonator(x: np.ndarray, freq: float, bw: float, sr: int) -> np.ndarray:
    r = np.exp(-np.pi * bw / sr)
    theta = 2 * np.pi * freq / sr
    return lfilter([1 - r], [1.0, -2 * r * np.cos(theta), r * r], x)


def synthesize(params: dict[str, float], rng: np.random.Generator, *, sr: int = 16000, dur: float = 0.5) -> np.ndarray:
    """Source-filter synthesis of one clip from :func:`prosody` parameters; float32, peak-safe."""
    sr = check_int("sr", sr, minimum=4000)
    dur = check_positive("dur", dur)
    n = int(round(sr * dur))
    t = np.arange(n) / sr
    phase = rng.uniform(0, 2 * np.pi)
    contour = np.sin(2 * np.pi * rng.uniform(1.0, 2.5) * t + phase)
    f0 = params["f0"] * 2 ** (params["f0_range"] / 12 * contour)
    # glottal pulses with period (jitter) and amplitude (shimmer) perturbation
    src = np.zeros(n)
    pos = rng.uniform(0, 1 / params["f0"])
    while pos < dur:
        k = int(pos * sr)
        src[k] += 1.0 + params["shimmer"] * rng.standard_normal()
        period = 1.0 / f0[min(k, n - 1)]
        pos += period * (1.0 + params["jitter"] * rng.standard_normal())
    src = lfilter([1.0], [1.0, -params["tilt"]], src)  # spectral tilt
    formants = np.array(VOWELS[int(rng.integers(len(VOWELS)))]) * params["formant"]
    voiced = sum(_resonator(src, f, bw, sr) * g for f, bw, g in zip(formants, (80, 100, 140), (1.0, 0.6, 0.3)))
    # syllable envelope at the speaking rate
    env = np.zeros(n)
    width = 0.75 / params["rate"]
    c = rng.uniform(0, 1 / params["rate"])
    while c < dur + width:
        d = np.abs(t - c) / (width / 2)
        env += np.where(d < 1, 0.5 * (1 + np.cos(np.pi * np.minimum(d, 1))), 0.0) * rng.uniform(0.7, 1.0)
        c += (1 / params["rate"]) * np.exp(0.15 * rng.standard_normal())
    voiced = voiced * env
    voiced = voiced / (np.sqrt(np.mean(voiced ** 2)) + 1e-9)
    sos = butter(4, [5000, 7500], btype="bandpass", fs=sr, output="sos")
    breath = sosfilt(sos, rng.standard_normal(n)) * env
    breath = breath / (np.sqrt(np.mean(breath ** 2)) + 1e-9)
    x = voiced + 0.35 * params["breath"] * breath
    x = x * 0.05 * 10 ** (params["level"] / 20)
    noise_rms = np.sqrt(np.mean(x ** 2)) * 10 ** (-params["snr"] / 20)
    x = x + noise_rms * rng.standard_normal(n)
    peak = np.abs(x).max()
    if peak > 0.99:
        x = x * (0.99 / peak)
    return x.astype(np.float32)


def transcript(text_emotion: int, rng: np.random.Generator, *, n_words: int = 7, n_cue: int = 2) -> str:
    """A short transcript: ``n_cue`` words from the emotion's lexicon among filler words."""
    words = [str(w) for w in rng.choice(FILLERS, size=n_words - n_cue)]
    cues = [str(w) for w in rng.choice(LEXICON[EMOTIONS[int(text_emotion)]], size=n_cue, replace=False)]
    for w in cues:
        words.insert(int(rng.integers(len(words) + 1)), w)
    return " ".join(words)


def annotate(mixture: np.ndarray, text_emotion: int, rng: np.random.Generator, *, n_annotators: int = 7,
             text_weight: float = 0.4, noise: float = 0.2) -> np.ndarray:
    """Vote counts (C,): each rater perceives (1 - rho) * mixture + rho * onehot(text) + noise, rho ~ U(0, text_weight)."""
    w = as_array("mixture", mixture, ndim=1)
    n_annotators = check_int("n_annotators", n_annotators, minimum=1)
    votes = np.zeros(C, dtype=int)
    onehot = np.eye(C)[int(text_emotion)]
    for _ in range(n_annotators):
        rho = rng.uniform(0, text_weight)
        perceived = (1 - rho) * w + rho * onehot + noise * rng.gumbel(size=C)
        votes[int(np.argmax(perceived))] += 1
    return votes


def labels_from_votes(votes: np.ndarray, mixture: np.ndarray) -> tuple[int, np.ndarray]:
    """Plurality primary (ties broken by the voice's mixture) and minority labels (>= 1 vote)."""
    v = np.asarray(votes, dtype=float)
    top = np.flatnonzero(v == v.max())
    primary = int(top[np.argmax(np.asarray(mixture)[top])])
    minor = v > 0
    minor[primary] = False
    return primary, minor


def make_corpus(n: int, seed: Any, *, shifted: bool = False, conflict_rate: float = 0.3, minor_text_rate: float = 0.15,
                n_annotators: int = 7, text_weight: float = 0.4, sr: int = 16000, dur: float = 0.5) -> Corpus:
    """Generate ``n`` utterances (each with its own speaker) with transcripts and annotator votes."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    for name, p in (("conflict_rate", conflict_rate), ("minor_text_rate", minor_text_rate)):
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    audio, texts, mix, temo, conf, votes, prim, minor = [], [], [], [], [], [], [], []
    for _ in range(n):
        w = sample_mixture(rng)
        spk = sample_speaker(rng, shifted)
        audio.append(synthesize(prosody(w, spk, rng), rng, sr=sr, dur=dur))
        u = rng.random()
        absent = np.flatnonzero(w == 0)
        present_minor = np.flatnonzero((w > 0) & (w < w.max()))
        if u < conflict_rate and absent.size:
            te, is_conf = int(rng.choice(absent)), True
        elif u < conflict_rate + minor_text_rate and present_minor.size:
            te, is_conf = int(rng.choice(present_minor)), False
        else:
            te, is_conf = int(np.argmax(w)), False
        texts.append(transcript(te, rng))
        v = annotate(w, te, rng, n_annotators=n_annotators, text_weight=text_weight)
        p, m = labels_from_votes(v, w)
        mix.append(w), temo.append(te), conf.append(is_conf), votes.append(v), prim.append(p), minor.append(m)
    return Corpus(audio, texts, np.array(mix), np.array(temo), np.array(conf, dtype=bool), np.array(votes),
                  np.array(prim), np.array(minor, dtype=bool), sr=sr, info={"shifted": shifted})


# ----------------------------------------------------------------------------- the agent's environment
def _episode_env_base():
    from icml26.agents.env import Tool, ToolEnv

    return Tool, ToolEnv


def make_probe_env(evidence: dict[str, np.ndarray], primary: np.ndarray, minor: np.ndarray, *, max_steps: int = 8):
    """An :class:`icml26.agents.env.ToolEnv` over precomputed per-tool evidence.

    ``evidence[tool]`` is (n, C): the tool's per-emotion support for each utterance; ``reset(seed=i)``
    opens utterance ``i``; tool ``<name>`` (no arguments) returns its evidence as text; the answer
    ``"primary; minor1, minor2"`` ends the episode with reward 1 for a correct primary plus the
    F1 of the minor set (the trace is the env's ``log``).
    """
    Tool, ToolEnv = _episode_env_base()
    if not isinstance(evidence, dict) or not evidence:
        raise ValueError("evidence must be a non-empty dict tool -> (n, C) array")
    n = len(primary)
    for k, v in evidence.items():
        if np.asarray(v).shape != (n, C):
            raise ValueError(f"evidence[{k!r}] must have shape ({n}, {C}), got {np.asarray(v).shape}")

    class EmotionProbeEnv(ToolEnv):
        def __init__(self) -> None:
            super().__init__(max_steps=max_steps, max_tokens=10_000)
            self.i = 0
            self.tools = {name: Tool(name, f"measure {name} evidence", {}, self._make(name)) for name in evidence}

        def _make(self, name: str):
            def fn() -> str:
                e = np.asarray(evidence[name][self.i])
                return f"{name}: " + " ".join(f"{EMOTIONS[c]}={e[c]:+.9f}" for c in range(C))
            return fn

        def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):  # type: ignore[override]
            self.i = int(seed) if seed is not None else 0
            if not 0 <= self.i < n:
                raise ValueError(f"seed indexes an utterance: 0 <= seed < {n}, got {seed}")
            return super().reset(seed=seed, options=options)

        def _reset(self, rng: np.random.Generator) -> str:
            return "candidates: " + ", ".join(EMOTIONS) + "; tools: " + ", ".join(evidence)

        def _answer(self, text: str) -> tuple[str, float]:
            head, _, tail = text.partition(";")
            pred = EMOTIONS.index(head.strip()) if head.strip() in EMOTIONS else -1
            pm = np.zeros(C, dtype=bool)
            for w in tail.split(","):
                if w.strip() in EMOTIONS:
                    pm[EMOTIONS.index(w.strip())] = True
            from icml26.vision.adept.method import set_f1

            r = float(pred == int(primary[self.i])) + float(set_f1(pm[None], np.asarray(minor[self.i])[None])[0])
            return ("correct" if pred == int(primary[self.i]) else "wrong"), r

    return EmotionProbeEnv()
