"""The simulated world of the Video-o3 reproduction: symbolic long videos, a global view, a crop tool.

A *video* is ``T = 128`` frames; each frame is one symbol: one of 16 ordinary objects, one of
4 *markers*, or a marker with an object shown beside it. The timeline is a sequence of object
events (2-6 frames each). A question names one or two markers ("which object is shown with
marker A [and with marker B]?"); each named marker is an event of 8 frames, starting on the
global view's grid (frame ``8 g``), inside which the *answer object* is shown beside the marker
for ``ans_len`` consecutive frames (the clue-sparsity knob: shorter is sparser). Zero or one
further marker that the question does not name is a distractor (it also shows an object).
Marker events start at least 16 frames apart.

* ``global_view``: every 8th frame (16 frames), quantised: an object shows only its group
  (object // 4), and every marker frame shows one shared "salient" symbol. The view shows each
  marker event in exactly one global frame, its first: it says *where* salient events are, not
  *which* marker nor the object.
* ``crop``: the tool. ``crop(frames, start_bin, strategy)`` returns the fine symbols of the
  8 frames ``[8 b, 8 b + 8)`` at stride 1/2/4 (fine/medium/coarse), padded with BLANK.
* ``uniform_frames``: the single-pass baseline's input, ``n`` evenly spaced fine frames.
* ``salient_frames``: the salience-guided single pass's input: ``n`` fine frames spent on the
  events of the global frames that show the salient symbol, no seeking and no feedback (the
  control a reviewer asks for). Until the ninth session the targets were the global frames of
  highest novelty (``-log`` frequency of their coarse symbol in the view), which in a 32-frame
  view were the marker frames in ~94% of videos but in a 16-frame view in only ~30%.
* ``oracle_episode``: the reference trajectory (crop every salient event in temporal order until
  every named marker has been seen, then answer), used for SFT. Its think token states which
  named marker is still missing (``NEED m``, or ``NEED_BOTH`` before either is seen): our
  one-token stand-in for the reasoning text that says which clue the next crop must find.

Token layout of one episode (fixed-size turns, so episodes batch without ragged caches)::

    prefix  = BOS Q m1 m2|NONE /Q  G c_0 .. c_15 /G                       (23 tokens)
    tool    = NEED GROUND BIN_b STRAT_s /GROUND   CROP f_1 .. f_8 /CROP    (5 + 10)
    answer  = ANS m1 a1 m2|NONE a2|NONE                                   (5)

(Until the ninth session the videos had 256 frames and the crops 16, with marker events at any
offset: reference episodes of 67-113 tokens instead of 43-73; see the paper's substitution.)

The answer turn names each marker before its object (our stand-in for the reasoning text that
states which clue the answer rests on). Any think token (the bare ``THINK`` or a ``NEED`` token)
opens a well-formed tool turn; its content is not rewarded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_rng, check_int

T = 128            # frames per video
STRIDE = 8         # global view stride (16 global frames) and crop-bin width
CROP_LEN = 8       # frames per crop window (one bin: a marker event is grid-aligned)
N_BINS = (T - CROP_LEN) // STRIDE + 1   # 16 crop start bins, one per global frame
N_OBJ = 16
N_MARK = 4
STRATEGIES = ("fine", "medium", "coarse")
STRATEGY_STRIDE = {"fine": 1, "medium": 2, "coarse": 4}
TURN_LEN = 5
TOOL_LEN = CROP_LEN + 2
UNI_SLOTS = 24

# ---------------------------------------------------------------- vocabulary
PAD, BOS, Q, EQ, G, EG, THINK, GROUND, EGROUND, ANS, EANS, CROP, ECROP, UNI, EUNI, BLANK, NONE = range(17)
STRAT0 = 17
OBJ0 = STRAT0 + len(STRATEGIES)      # 20
MARK0 = OBJ0 + N_OBJ                 # 36
MOBJ0 = MARK0 + N_MARK               # 40: marker m shown with object o
COARSE0 = MOBJ0 + N_MARK * N_OBJ     # 104
SALIENT = COARSE0 + N_OBJ // 4       # the global view's one symbol for every marker frame
BIN0 = SALIENT + 1                   # 109
NEED0 = BIN0 + N_BINS                # 125: think "marker m is still missing"
NEED_BOTH = NEED0 + N_MARK           # 129: think "both named markers are still missing"
VOCAB = NEED_BOTH + 1                # 130
THINKS = (THINK, *range(NEED0, NEED_BOTH + 1))   # tokens that open a tool turn
MARK_LEN = 8                         # frames of a marker event (= STRIDE: one global frame each)
PREFIX_LEN = 5 + 2 + T // STRIDE     # 23


def fine_token(symbol: int) -> int:
    """Frame symbol (0..15 objects, 16..19 markers, 20 + 16 m + o marker m with object o) -> token id."""
    if symbol < N_OBJ:
        return OBJ0 + symbol
    if symbol < N_OBJ + N_MARK:
        return MARK0 + symbol - N_OBJ
    return MOBJ0 + symbol - N_OBJ - N_MARK


def coarse_token(symbol: int) -> int:
    """What the global view shows of a frame symbol: the object's group, or one shared salient symbol."""
    return COARSE0 + (symbol // 4 if symbol < N_OBJ else N_OBJ // 4)


@dataclass(frozen=True)
class Video:
    frames: np.ndarray            # (T,) frame symbols
    asked: tuple[int, ...]        # marker ids named by the question, in question order
    answer: tuple[int, ...]       # answer object per named marker
    clues: tuple[tuple[int, int], ...]   # [start, end) of the marker event, per named marker
    salient: tuple[tuple[int, int], ...]  # [start, end) of every marker event (named or not), in time order
    salient_ids: tuple[int, ...]

    @property
    def hops(self) -> int:
        return len(self.asked)


def make_video(rng: np.random.Generator | int, *, hops: int = 1, distractors: int = 0, ans_len: int = 3) -> Video:
    """Draw one video with ``hops`` named markers, ``distractors`` unnamed ones, answer objects of ``ans_len`` frames."""
    rng = as_rng("rng", rng)
    hops = check_int("hops", hops, minimum=1, maximum=2)
    distractors = check_int("distractors", distractors, minimum=0, maximum=N_MARK - hops)
    ans_len = check_int("ans_len", ans_len, minimum=1, maximum=MARK_LEN)
    k = hops + distractors
    # marker events start on the global-view grid (frame 8 g, g in 1..T/8 - 2), at least two bins apart
    while True:
        starts = STRIDE * np.sort(rng.choice(np.arange(1, T // STRIDE - 1), size=k, replace=False))
        if k == 1 or np.diff(starts).min() >= 2 * STRIDE:
            break
    frames = np.empty(T, dtype=np.int64)
    t, prev = 0, -1
    while t < T:  # background object events
        o = int(rng.integers(N_OBJ))
        while o == prev:
            o = int(rng.integers(N_OBJ))
        d = int(rng.integers(2, 7))
        frames[t:t + d] = o
        t, prev = t + d, o
    ids = rng.permutation(N_MARK)[:k]
    asked_pos = [int(j) for j in rng.permutation(k)[:hops]]   # which of the (time-ordered) events are named
    salient, objs = [], []
    for j, s in enumerate(starts):
        s, m = int(s), int(ids[j])
        frames[s:s + MARK_LEN] = N_OBJ + m
        o = int(rng.integers(N_OBJ))
        p = s + int(rng.integers(0, MARK_LEN - ans_len + 1))
        frames[p:p + ans_len] = N_OBJ + N_MARK + N_OBJ * m + o
        salient.append((s, s + MARK_LEN))
        objs.append(o)
    return Video(frames, tuple(int(ids[j]) for j in asked_pos), tuple(objs[j] for j in asked_pos),
                 tuple(salient[j] for j in asked_pos), tuple(salient), tuple(int(i) for i in ids))


def global_view(frames: np.ndarray) -> list[int]:
    """The coarse global view: every ``STRIDE``-th frame as a coarse token (16 tokens)."""
    return [coarse_token(int(x)) for x in np.asarray(frames)[::STRIDE]]


def crop(frames: np.ndarray, start_bin: int, strategy: str = "fine") -> list[int]:
    """The VideoCrop tool: fine tokens of frames ``[8 b, 8 b + 8)`` at the strategy's stride, BLANK-padded to 8."""
    b = check_int("start_bin", start_bin, minimum=0, maximum=N_BINS - 1)
    if strategy not in STRATEGY_STRIDE:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    seg = np.asarray(frames)[STRIDE * b:STRIDE * b + CROP_LEN:STRATEGY_STRIDE[strategy]]
    toks = [fine_token(int(x)) for x in seg]
    return toks + [BLANK] * (CROP_LEN - len(toks))


def crop_interval(start_bin: int) -> tuple[int, int]:
    return STRIDE * start_bin, STRIDE * start_bin + CROP_LEN


def uniform_frames(frames: np.ndarray, n: int, offset: float = 0.5) -> list[int]:
    """``n`` evenly spaced fine frames (the single-pass baseline), BLANK-padded to ``UNI_SLOTS``."""
    n = check_int("n", n, minimum=1, maximum=UNI_SLOTS)
    if isinstance(offset, bool) or not isinstance(offset, (int, float, np.floating)):
        raise TypeError(f"offset must be a number in [0, 1), got {type(offset).__name__}")
    if not 0.0 <= float(offset) < 1.0:
        raise ValueError(f"offset must lie in [0, 1), got {offset!r}")
    idx = np.floor((np.arange(n) + offset) * T / n).astype(int).clip(0, T - 1)
    toks = [fine_token(int(frames[i])) for i in idx]
    return toks + [BLANK] * (UNI_SLOTS - n)


def salient_indices(frames: np.ndarray, n: int) -> np.ndarray:
    """Frame indices of the salience-guided single pass: ``n`` fine frames chosen before looking at any.

    The global frames that show the salient symbol are the targets (the same location information
    the seeker reads from the global view); an event seen in global frame
    ``g`` starts there (events are grid-aligned) and spans frames ``[8 g, 8 g + 8)``, so each
    target gets ``n // K`` (at most 8) evenly spaced frames of that span (``K`` targets; the remainder goes to the
    first targets); budget left over when every span is covered is spent evenly on the rest of
    the video. Returns ``n`` sorted, distinct indices.
    """
    frames = np.asarray(frames)
    n = check_int("n", n, minimum=1, maximum=UNI_SLOTS)
    if frames.shape != (T,):
        raise ValueError(f"frames must have shape ({T},), got {frames.shape}")
    targets = np.flatnonzero(np.asarray(global_view(frames)) == SALIENT)
    if len(targets) == 0:
        raise ValueError("frames must hold at least one marker event (no global frame shows the salient symbol)")
    spans = [np.arange(STRIDE * g, min(T, STRIDE * g + MARK_LEN)) for g in targets]
    share = [n // len(spans) + (i < n % len(spans)) for i in range(len(spans))]
    chosen: set[int] = set()
    for sp, k in zip(spans, share):
        k = min(k, len(sp))
        if k > 0:
            chosen.update(int(sp[j]) for j in np.floor((np.arange(k) + 0.5) * len(sp) / k).astype(int))
    rest = np.setdiff1d(np.arange(T), np.fromiter(chosen, int, len(chosen)))
    left = n - len(chosen)
    if left > 0:
        chosen.update(int(rest[j]) for j in np.floor((np.arange(left) + 0.5) * len(rest) / left).astype(int))
    return np.array(sorted(chosen), dtype=int)


def salient_frames(frames: np.ndarray, n: int) -> list[int]:
    """Fine tokens of :func:`salient_indices` in time order, BLANK-padded to ``UNI_SLOTS``."""
    idx = salient_indices(frames, n)
    return [fine_token(int(frames[i])) for i in idx] + [BLANK] * (UNI_SLOTS - len(idx))


def prefix_tokens(video: Video) -> list[int]:
    q = [MARK0 + m for m in video.asked] + [NONE] * (2 - video.hops)
    return [BOS, Q, *q, EQ, G, *global_view(video.frames), EG]


def answer_turn(markers: tuple[int, ...], objs: tuple[int, ...]) -> list[int]:
    """``ANS m1 a1 m2 a2`` (``NONE NONE`` for a one-marker question)."""
    if len(markers) != len(objs) or not 1 <= len(objs) <= 2:
        raise ValueError(f"markers and objs must pair up, 1 or 2 of each; got {markers!r} and {objs!r}")
    out = [ANS]
    for m, o in zip(markers, objs):
        out += [MARK0 + m, OBJ0 + o]
    return out + [NONE, NONE] * (2 - len(objs))


def answer_of(video: Video) -> list[int]:
    """The correct answer turn of a video."""
    return answer_turn(video.asked, video.answer)


def tool_turn(start_bin: int, strategy: str = "fine", think: int = THINK) -> list[int]:
    if think not in THINKS:
        raise ValueError(f"think must be one of the think tokens {THINKS}, got {think!r}")
    return [think, GROUND, BIN0 + start_bin, STRAT0 + STRATEGIES.index(strategy), EGROUND]


def missing_think(video: Video, seen) -> int:
    """The think token of a reference tool turn: which named marker(s) the crops so far have not shown."""
    miss = [m for m in video.asked if m not in seen]
    if not miss:
        raise ValueError("seen must leave at least one named marker missing")
    return NEED_BOTH if len(miss) == 2 else NEED0 + miss[0]


def oracle_bins(video: Video) -> list[int]:
    """Crop bins of the reference trajectory: each salient event in time order until all named markers are seen.

    An 8-frame marker event starting at s = 8 g shows in global frame g only, and is exactly the
    crop window of bin g, frames [8 g, 8 g + 8).
    """
    need = set(video.asked)
    bins = []
    for (s, _), mid in zip(video.salient, video.salient_ids):
        bins.append(s // STRIDE)
        need.discard(mid)
        if not need:
            break
    return bins


THINK_MISSING = True   # reference tool turns state the missing marker(s) (False: a bare THINK token)


def oracle_episode(video: Video, think_missing: bool | None = None) -> tuple[list[int], list[int]]:
    """(tokens, kinds) of the reference trajectory; kinds: 0 context, 1 tool-call turn, 2 tool output, 3 answer turn, 4 global.

    With ``think_missing`` (default :data:`THINK_MISSING`) each tool turn opens with the think token
    naming the named marker(s) not yet seen in the crops so far (:func:`missing_think`).
    """
    think_missing = THINK_MISSING if think_missing is None else bool(think_missing)
    toks = prefix_tokens(video)
    kinds = [0] * 5 + [4] * (len(toks) - 5)
    seen: set[int] = set()
    for b, mid in zip(oracle_bins(video), video.salient_ids):
        toks += tool_turn(b, think=missing_think(video, seen) if think_missing else THINK)
        seen.add(mid)
        kinds += [1] * TURN_LEN
        toks += [CROP, *crop(video.frames, b), ECROP]
        kinds += [2] * TOOL_LEN
    toks += answer_of(video)
    kinds += [3] * TURN_LEN
    return toks, kinds


def uniform_episode(video: Video, n: int, offset: float = 0.5, *, salient: bool = False
                    ) -> tuple[list[int], list[int]]:
    """(tokens, kinds) of a single pass: prefix, n fine frames (uniform, or salience-guided), answer turn."""
    frames = salient_frames(video.frames, n) if salient else uniform_frames(video.frames, n, offset)
    toks = prefix_tokens(video) + [UNI, *frames, EUNI]
    kinds = [0] * 5 + [4] * (PREFIX_LEN - 5) + [2] * (UNI_SLOTS + 2)
    toks += answer_of(video)
    kinds += [3] * TURN_LEN
    return toks, kinds


def draw_videos(seed: int, n: int, *, ans_lens=(1, 2, 3), p_two_hop: float = 0.5,
                p_distractor: float = 0.5) -> list[Video]:
    """``n`` videos with hops, distractors and answer lengths drawn per video (deterministic in ``seed``)."""
    rng = as_rng("seed", seed)
    n = check_int("n", n, minimum=1)
    out = []
    for _ in range(n):
        hops = 2 if rng.random() < p_two_hop else 1
        dis = 1 if rng.random() < p_distractor else 0
        out.append(make_video(rng, hops=hops, distractors=dis, ans_len=int(rng.choice(ans_lens))))
    return out
