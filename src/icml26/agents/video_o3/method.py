"""Video-o3 (arXiv 2601.23224): native interleaved clue seeking, TDAM and the trajectory-guided reward.

What is implemented here, in our words:

* **Native tool use in one context** (Sec. 3): one decoder sees ``[question | global view]``,
  emits ``<think> GROUND <bin> <strategy> /GROUND`` (the think token states the named marker
  still missing); the crop tool's fine frames are appended to the
  *same* KV-cached context, and the loop repeats until ``ANS m1 a1 m2 a2`` or the turn cap
  (:func:`rollout`). :func:`replay_turns` runs a fixed trajectory either with the shared cache or
  re-encoding the whole context at every turn (the "decoupled" baseline of the speed claim).
* **Time-aligned crop-bin tokens** (our initialisation, :func:`make_policy` ``init="sin_aligned"``):
  positions start from a sinusoidal code and the embedding of the token that names a crop window
  starts equal to the position code of the global frame at the window's centre, so the time the
  policy writes and the time of what it saw share one code (Qwen2.5-VL aligns position ids with
  absolute time for the same reason); both remain trained parameters.
* **Task-Decoupled Attention Masking** (SFT only): on a fraction ρ of the tool-use samples,
  positions that predict a tool-call token may not attend to crop tokens, and positions that
  predict an answer token may not attend to the global view (:func:`tdam_mask`), realised as an
  extra boolean mask inside attention (:class:`TDAMAttention`, same parameters as the house's).
* **Verifiable Trajectory-Guided Reward** (RL)::

      R = r_a (1 + β) + r_f,      β = (b0 + w_g · S_clue) · γ   (only when r_a = 1, r_f = 1, ≥ 1 tool call)
      S_clue = (2 IoU + IoP + IoG) / 4    over merged crop and clue intervals
      γ = max(0, 1 - 2 λ · n_calls)

  b0 = w_g = 0.5 and the S_clue mix are read from the Qwen3-VL port's reward file
  (``tool_reward = (grounding_score + 1) / 2``, ``grounding = (2 IoU + IoP + IoG) / 4``); the
  linear decay form ``1 - 2 λ n`` from its tool-penalty reward file with λ =
  ``decay_penalty_weight = 0.05`` from its launch scripts. r_f follows the same file: a turn whose
  structure is wrong zeroes the format score; each wrong field costs 1/#turns.
* **GRPO** with the house's TRL-equal loss (:func:`icml26.nn.rl.grpo_update`), tool outputs
  masked from the loss, and over-turn masking (episodes that hit the cap give no gradient).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from icml26.core.validate import check_int, check_positive
from icml26.nn.transformer import CausalSelfAttention, LMConfig, TinyLM, causal_attend

from . import setting as S

B0, W_G, DECAY_LAMBDA = 0.5, 0.5, 0.05


# ---------------------------------------------------------------- the policy with TDAM
class TDAMAttention(CausalSelfAttention):
    """Causal attention with an optional extra (batch, t, s) allow-mask set in ``self.extra``."""

    extra: torch.Tensor | None = None

    def forward(self, x, past=None):
        if self.extra is None:
            return super().forward(x, past)
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.n_heads, self.head_dim).transpose(1, 2) for z in (q, k, v))
        y, kv = causal_attend(q, k, v, past, 0.0, extra=self.extra)  # the TDAM path: no attention dropout
        return self.proj(y), kv


def sinusoidal_positions(length: int, d_model: int, std: float = 0.02) -> torch.Tensor:
    """Sinusoidal position code (length, d_model), sin on even and cos on odd channels, rescaled to ``std``.

    Row p is ``sin(p w_i), cos(p w_i)`` with ``w_i = 10000^(-2i/d)`` (Vaswani et al.); each entry
    of such a code has standard deviation ~ 1/sqrt(2), so it is multiplied by ``std sqrt(2)``.
    """
    length = check_int("length", length, minimum=1)
    d_model = check_int("d_model", d_model, minimum=2)
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    std = check_positive("std", std)
    pos = torch.arange(length, dtype=torch.float32)[:, None]
    w = torch.exp(-np.log(10000.0) * torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(length, d_model)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * w), torch.cos(pos * w)
    return pe * std * np.sqrt(2.0)


def global_position(frame: int) -> int:
    """Context position of global frame ``frame`` (0..15): after ``BOS Q m1 m2 /Q G``."""
    frame = check_int("frame", frame, minimum=0, maximum=S.T // S.STRIDE - 1)
    return 6 + frame


def align_time_tokens(model: TinyLM) -> None:
    """Start each crop-bin token's embedding at the position code of the global frame its window starts on.

    Bin ``b`` (0..15) covers frames ``[8 b, 8 b + 8)``, which start at global frame ``b``, the frame
    where the reference trajectory saw the event it crops (until the ninth session a bin covered 16
    frames and was aligned to global frame ``b + 1``, its centre). The time the model writes in a tool
    call and the time of the global frame it looks at then share one code at the start of
    training (our stand-in for Qwen2.5-VL's absolute-time position ids, under which a written
    timestamp and the frames at that time are aligned); both stay free parameters.
    """
    if not isinstance(model, TinyLM):
        raise TypeError(f"model must be a TinyLM, got {type(model).__name__}")
    if model.cfg.vocab_size < S.BIN0 + S.N_BINS:
        raise ValueError(f"model must have the episode vocabulary (>= {S.BIN0 + S.N_BINS} tokens), "
                         f"got vocab_size {model.cfg.vocab_size}")
    if model.cfg.max_len <= global_position(S.N_BINS - 1):
        raise ValueError(f"model must hold the global view (max_len > {global_position(S.N_BINS - 1)}), "
                         f"got max_len {model.cfg.max_len}")
    with torch.no_grad():
        for b in range(S.N_BINS):
            model.tok.weight[S.BIN0 + b] = model.pos.weight[global_position(b)]


def make_policy(d_model: int = 64, n_layers: int = 2, n_heads: int = 4, seed: int = 0, *,
                init: str = "default") -> TinyLM:
    """The tiny decoder policy over the episode vocabulary, with TDAM-capable attention.

    ``init``: ``"default"`` (the house's normal(0, 0.02) for every embedding), ``"aligned"``
    (crop-bin embeddings start at their global frame's position code, :func:`align_time_tokens`)
    or ``"sin_aligned"`` (sinusoidal position code, :func:`sinusoidal_positions`, then aligned).
    """
    torch.manual_seed(check_int("seed", seed, minimum=0))
    if init not in ("default", "aligned", "sin_aligned"):
        raise ValueError(f"init must be 'default', 'aligned' or 'sin_aligned', got {init!r}")
    cfg = LMConfig(vocab_size=S.VOCAB, d_model=d_model, n_layers=n_layers, n_heads=n_heads,
                   max_len=S.PREFIX_LEN + 4 * (S.TURN_LEN + S.TOOL_LEN) + S.TURN_LEN)
    model = TinyLM(cfg, mixer=TDAMAttention)
    if init == "sin_aligned":
        with torch.no_grad():
            model.pos.weight.copy_(sinusoidal_positions(cfg.max_len, d_model))
    if init != "default":
        align_time_tokens(model)
    return model


def set_extra_mask(model: TinyLM, mask: torch.Tensor | None) -> None:
    for blk in model.blocks:
        blk.attn.extra = mask


def tdam_mask(kinds: torch.Tensor) -> torch.Tensor:
    """TDAM allow-mask (batch, L, L) from token kinds (batch, L).

    Kinds: 0 context, 1 tool-call turn, 2 tool output, 3 answer turn, 4 global view. The query at
    position p predicts token p + 1: when that token belongs to a tool call, keys of kind 2 are
    hidden; when it belongs to the answer turn, keys of kind 4 are hidden.
    """
    if not isinstance(kinds, torch.Tensor) or kinds.dim() != 2:
        raise ValueError(f"kinds must be a (batch, L) tensor, got {getattr(kinds, 'shape', kinds)}")
    nxt = torch.cat([kinds[:, 1:], torch.zeros_like(kinds[:, :1])], 1)
    allow = torch.ones(kinds.shape[0], kinds.shape[1], kinds.shape[1], dtype=torch.bool)
    allow &= ~((nxt == 1)[:, :, None] & (kinds == 2)[:, None, :])
    allow &= ~((nxt == 3)[:, :, None] & (kinds == 4)[:, None, :])
    return allow


# ---------------------------------------------------------------- reward
def merge(intervals: Sequence[tuple[float, float]]) -> list[list[float]]:
    out: list[list[float]] = []
    for a, b in sorted((min(x), max(x)) for x in intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def clue_score(crops: Sequence[tuple[float, float]], clues: Sequence[tuple[float, float]]) -> float:
    """S_clue = (2 IoU + IoP + IoG) / 4 between merged crop intervals and merged clue intervals (0 if either is empty)."""
    for name, iv in (("crops", crops), ("clues", clues)):
        if isinstance(iv, (str, bytes)) or not isinstance(iv, Sequence):
            raise TypeError(f"{name} must be a sequence of (start, end) pairs")
        for x in iv:
            if len(x) != 2 or not all(np.isfinite(float(v)) for v in x):
                raise ValueError(f"{name} must hold finite (start, end) pairs, got {x!r}")
    if not crops or not clues:
        return 0.0
    p, g = merge(crops), merge(clues)
    inter = sum(max(0.0, min(a[1], b[1]) - max(a[0], b[0])) for a in p for b in g)
    lp, lg = sum(b - a for a, b in p), sum(b - a for a, b in g)
    union = lp + lg - inter
    iou = inter / union if union > 1e-9 else 0.0
    iop = inter / lp if lp > 1e-9 else 0.0
    iog = inter / lg if lg > 1e-9 else 0.0
    return (2 * iou + iop + iog) / 4


def turn_decay(n_calls: int, lam: float = DECAY_LAMBDA) -> float:
    """γ = max(0, 1 - 2 λ n_calls): fewer tool calls, larger bonus."""
    n = check_int("n_calls", n_calls, minimum=0)
    check_positive("lam", lam, strict=False)
    return max(0.0, 1.0 - 2.0 * lam * n)


def parse_turn(tokens: Sequence[int]) -> tuple[str, int, dict]:
    """Parse one 5-token turn -> (kind, field errors, fields); kind is 'tool', 'answer' or 'bad'."""
    t = list(tokens)
    if len(t) != S.TURN_LEN:
        raise ValueError(f"tokens must hold {S.TURN_LEN} ids, got {len(t)}")
    if t[0] in S.THINKS and t[1] == S.GROUND and t[4] == S.EGROUND:
        errors, fields = 0, {}
        if S.BIN0 <= t[2] < S.BIN0 + S.N_BINS:
            fields["bin"] = t[2] - S.BIN0
        else:
            errors += 1
        if S.STRAT0 <= t[3] < S.STRAT0 + len(S.STRATEGIES):
            fields["strategy"] = S.STRATEGIES[t[3] - S.STRAT0]
        else:
            errors += 1
        return "tool", errors, fields
    if t[0] == S.ANS:
        errors = int(not S.MARK0 <= t[1] < S.MOBJ0) + int(not S.OBJ0 <= t[2] < S.MARK0)
        second = (t[3] == S.NONE and t[4] == S.NONE) or (S.MARK0 <= t[3] < S.MOBJ0 and S.OBJ0 <= t[4] < S.MARK0)
        return "answer", errors + int(not second), {"answer": tuple(t)}
    return "bad", 0, {}


def format_score(turns: Sequence[Sequence[int]]) -> float:
    """r_f: every non-final turn a tool call and the final turn an answer, else 0; minus 1/#turns per wrong field.

    A tool turn is ``<think> GROUND <bin> <strategy> /GROUND`` (any token of ``setting.THINKS``
    opens it); an answer turn ``ANS m1 a1 m2 a2``.
    """
    if not turns:
        return 0.0
    errors = 0
    for i, tk in enumerate(turns):
        kind, e, _ = parse_turn(tk)
        if kind != ("answer" if i == len(turns) - 1 else "tool"):
            return 0.0
        errors += e
    return max(0.0, 1.0 - errors / len(turns))


@dataclass(frozen=True)
class RewardConfig:
    b0: float = B0
    w_g: float = W_G
    lam: float = DECAY_LAMBDA
    use_clue: bool = True
    use_decay: bool = True


def trajectory_reward(turns: Sequence[Sequence[int]], video: S.Video, cfg: RewardConfig = RewardConfig()
                      ) -> dict[str, float]:
    """The verifiable trajectory-guided reward of one episode: R = r_a (1 + β) + r_f and its parts."""
    if not isinstance(video, S.Video):
        raise TypeError(f"video must be a setting.Video, got {type(video).__name__}")
    r_f = format_score(turns)
    r_a, n_calls, crops = 0.0, 0, []
    for i, tk in enumerate(turns):
        kind, _, f = parse_turn(tk)
        if kind == "tool":
            n_calls += 1
            if "bin" in f:
                crops.append(S.crop_interval(f["bin"]))
        elif kind == "answer" and i == len(turns) - 1:
            r_a = float(tuple(f["answer"]) == tuple(S.answer_of(video)))
    s_clue = clue_score(crops, video.clues) if crops else 0.0
    beta = 0.0
    if r_a == 1.0 and r_f == 1.0 and n_calls > 0:
        gamma = turn_decay(n_calls, cfg.lam) if cfg.use_decay else 1.0
        beta = (cfg.b0 + (cfg.w_g * s_clue if cfg.use_clue else 0.0)) * gamma
    return {"reward": r_a * (1 + beta) + r_f, "r_a": r_a, "r_f": r_f, "beta": beta, "s_clue": s_clue,
            "n_calls": float(n_calls)}


# ---------------------------------------------------------------- rollouts in one shared context
@dataclass
class Episodes:
    tokens: torch.Tensor       # (batch, L) whole episodes (PAD after the end)
    model_mask: torch.Tensor   # (batch, L) True where the policy generated the token
    turns: list[list[list[int]]]
    over_turn: list[bool]
    visual_tokens: list[int]   # fine crop tokens seen (BLANK excluded)


@torch.no_grad()
def rollout(model: TinyLM, videos: Sequence[S.Video], *, max_turns: int = 5, temperature: float = 1.0,
            greedy: bool = False, generator: torch.Generator | None = None) -> Episodes:
    """Run every video's episode in one batch with one KV-cached context per row (turns are fixed-size).

    Rows whose episode has ended (an answer turn) leave the batch and its KV cache (fifth session, a
    saving only: a row's logits do not depend on the other rows, and sampling still draws for every
    row of the batch, so the random stream and each running row's tokens are as before); their later
    positions are PAD.
    """
    max_turns = check_int("max_turns", max_turns, minimum=1, maximum=5)
    if not videos:
        raise ValueError("videos must be a non-empty sequence of setting.Video")
    check_positive("temperature", temperature)
    model.eval()
    set_extra_mask(model, None)
    b = len(videos)
    seq = torch.tensor([S.prefix_tokens(v) for v in videos], dtype=torch.long)
    gen_mask = torch.zeros_like(seq, dtype=torch.bool)
    logits, cache = model(seq)
    last = logits[:, -1]
    act = list(range(b))  # rows still running, in the order of ``cache`` and ``last``
    turns: list[list[list[int]]] = [[] for _ in range(b)]
    vis = [0] * b
    for turn in range(max_turns):
        toks = []
        for _ in range(S.TURN_LEN):
            lg = last.float() / temperature
            if greedy:
                nxt = lg.argmax(-1)
            else:  # every row draws, so the random stream advances as with the whole batch
                full = torch.zeros(b, lg.shape[-1])
                full[act] = lg
                nxt = torch.multinomial(full.softmax(-1), 1, generator=generator).squeeze(1)[act]
            toks.append(nxt)
            logits, cache = model(nxt[:, None], cache=cache, start=seq.shape[1] + len(toks) - 1)
            last = logits[:, -1]
        step = torch.full((b, S.TURN_LEN), S.PAD, dtype=torch.long)
        step[act] = torch.stack(toks, 1)
        running = torch.zeros(b, dtype=torch.bool)
        running[act] = True
        seq = torch.cat([seq, step], 1)
        gen_mask = torch.cat([gen_mask, running[:, None].expand(-1, S.TURN_LEN)], 1)
        if turn == max_turns - 1:
            for i in act:
                turns[i].append(step[i].tolist())
            break
        tool = torch.full((b, S.TOOL_LEN), S.PAD, dtype=torch.long)
        keep = []
        for j, i in enumerate(act):
            tk = step[i].tolist()
            turns[i].append(tk)
            kind, _, f = parse_turn(tk)
            if kind == "answer":
                continue
            keep.append(j)
            if kind == "tool" and "bin" in f:
                c = S.crop(videos[i].frames, f["bin"], f.get("strategy", "fine"))
                vis[i] += sum(x != S.BLANK for x in c)
                tool[i] = torch.tensor([S.CROP, *c, S.ECROP])
            else:  # malformed call: the tool returns nothing
                tool[i] = torch.tensor([S.CROP] + [S.BLANK] * S.CROP_LEN + [S.ECROP])
        if not keep:
            break
        if len(keep) < len(act):
            kt = torch.tensor(keep)
            cache = [(k[kt], v[kt]) for k, v in cache]
            act = [act[j] for j in keep]
        logits, cache = model(tool[act], cache=cache, start=seq.shape[1])
        last = logits[:, -1]
        seq = torch.cat([seq, tool], 1)
        gen_mask = torch.cat([gen_mask, torch.zeros_like(tool, dtype=torch.bool)], 1)
    over = [not (t and parse_turn(t[-1])[0] == "answer") for t in turns]
    return Episodes(seq, gen_mask, turns, over, vis)


@torch.no_grad()
def answer_single_pass(model: TinyLM, videos: Sequence[S.Video], n_frames: int, offset: float = 0.5, *,
                       salient: bool = False) -> np.ndarray:
    """Greedy single-pass answers from ``n_frames`` fine frames; returns correctness (batch,).

    The frames are evenly spaced (``salient=False``) or spent on the events of the salient global
    frames (:func:`setting.salient_indices`); either way one pass, no tool call, no feedback.
    """
    n_frames = check_int("n_frames", n_frames, minimum=1, maximum=S.UNI_SLOTS)
    if not videos or not all(isinstance(v, S.Video) for v in videos):
        raise ValueError("videos must be a non-empty sequence of setting.Video")
    if not isinstance(salient, bool):
        raise TypeError(f"salient must be a bool, got {type(salient).__name__}")
    set_extra_mask(model, None)
    model.eval()
    ctx = torch.tensor([S.uniform_episode(v, n_frames, offset, salient=salient)[0][:-S.TURN_LEN] for v in videos],
                       dtype=torch.long)
    out = model.generate_greedy(ctx, S.TURN_LEN)[:, ctx.shape[1]:]
    ok = []
    for v, row in zip(videos, out.tolist()):
        ok.append(float(row == S.answer_of(v)))
    return np.array(ok)


@torch.no_grad()
def replay_turns(model: TinyLM, prefix: torch.Tensor, turns: Sequence[torch.Tensor], tools: Sequence[torch.Tensor],
                 *, shared_cache: bool = True) -> torch.Tensor:
    """Teacher-forced pass over a fixed multi-turn trajectory; returns the logits of every turn token.

    ``prefix`` (batch, P); ``turns[k]`` (batch, 5) the model tokens of turn k; ``tools[k]`` (batch, 10)
    the tool output after turn k (one fewer than turns). With ``shared_cache`` one KV cache holds the
    whole context (Video-o3); otherwise each turn re-encodes the context from scratch (decoupled).
    Turn tokens are decoded one at a time in both cases.
    """
    if len(tools) != len(turns) - 1:
        raise ValueError(f"tools must hold len(turns) - 1 = {len(turns) - 1} blocks, got {len(tools)}")
    set_extra_mask(model, None)
    ctx = prefix
    logits, cache = model(ctx)
    out = []
    for k, tk in enumerate(turns):
        if not shared_cache and k > 0:
            logits, cache = model(ctx)
        last = logits[:, -1:]
        for j in range(tk.shape[1]):
            out.append(last)
            logits, cache = model(tk[:, j:j + 1], cache=cache, start=ctx.shape[1])
            ctx = torch.cat([ctx, tk[:, j:j + 1]], 1)
            last = logits[:, -1:]
        if k < len(tools):
            if shared_cache:
                logits, cache = model(tools[k], cache=cache, start=ctx.shape[1])
            ctx = torch.cat([ctx, tools[k]], 1)
    return torch.cat(out, 1)


# ---------------------------------------------------------------- SFT with TDAM
def pack(episodes: Sequence[tuple[list[int], list[int]]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad (tokens, kinds) episodes to (batch, L) tensors."""
    L = max(len(t) for t, _ in episodes)
    tok = torch.full((len(episodes), L), S.PAD, dtype=torch.long)
    kin = torch.zeros((len(episodes), L), dtype=torch.long)
    for i, (t, k) in enumerate(episodes):
        tok[i, :len(t)] = torch.tensor(t)
        kin[i, :len(k)] = torch.tensor(k)
    return tok, kin


def sft_loss(model: TinyLM, tok: torch.Tensor, kin: torch.Tensor, tdam_rows: torch.Tensor | None = None
             ) -> tuple[torch.Tensor, torch.Tensor]:
    """Cross-entropy on the policy's own tokens (kinds 1 and 3); TDAM on rows flagged in ``tdam_rows``.

    Returns (loss, per-token correctness of the greedy prediction on those tokens).
    """
    logits, y, tgt, loss = _sft_forward(model, tok, kin, tdam_rows)
    keep = tgt != -100
    correct = (logits.argmax(-1) == y)[keep]
    return loss, correct


def _sft_forward(model: TinyLM, tok: torch.Tensor, kin: torch.Tensor, tdam_rows: torch.Tensor | None = None):
    """(logits, targets, masked targets, loss) of :func:`sft_loss`, without the greedy correctness
    (the training loop needs only the loss; seventh session, a saving only)."""
    x, y, ky = tok[:, :-1], tok[:, 1:], kin[:, 1:]
    if tdam_rows is not None and bool(tdam_rows.any()):
        # built on the full sequence so the last input position knows the kind of its target
        m = tdam_mask(kin)[:, :-1, :-1]
        m[~tdam_rows] = True
        set_extra_mask(model, m)
    logits, _ = model(x)
    set_extra_mask(model, None)
    tgt = torch.where((ky == 1) | (ky == 3), y, torch.full_like(y, -100))
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=-100)
    return logits, y, tgt, loss


def train_sft(model: TinyLM, pool: Sequence[tuple[list[int], list[int], bool]], *, steps: int, batch: int = 64,
              lr: float = 3e-3, tdam_ratio: float = 0.1, seed: int = 0, schedule: str = "cosine",
              on_step=None) -> list[float]:
    """SFT on oracle (and single-pass) episodes; ``pool`` items are (tokens, kinds, is_tool_use).

    TDAM is applied to a random ``tdam_ratio`` of the tool-use samples of each batch.
    The loop is :func:`icml26.nn.train.train_lm` (AdamW, weight decay 0.01, grad clip 1) with
    :func:`sft_loss` as its loss hook; ``schedule="cosine"``: warm-up over ``max(1, steps // 10)``
    steps then cosine decay to 0.1 lr (this paper's own float64 formula); ``"constant"``: lr throughout (a continuation stage, so the
    state after k steps is the same whatever the total); ``"anneal"``: linear decay from lr to 0. ``on_step(k, model)`` is called after step
    k (1-based) when given. Returns the losses.
    """
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    check_positive("lr", lr)
    if schedule not in ("cosine", "constant", "anneal"):
        raise ValueError(f"schedule must be 'cosine', 'constant' or 'anneal', got {schedule!r}")
    if not 0.0 <= float(tdam_ratio) <= 1.0:
        raise ValueError(f"tdam_ratio must lie in [0, 1], got {tdam_ratio!r}")
    if not pool:
        raise ValueError("pool must be non-empty")
    from icml26.nn.train import train_lm

    warm = max(1, steps // 10)
    if schedule == "constant":
        factor = "constant"  # train_lm's constant schedule with warmup=0: lr throughout
    elif schedule == "anneal":
        def factor(s):
            return 1.0 - s / steps
    else:  # this paper's own float64 warm-up + cosine (kept: the bits of every trained policy depend on it)
        def factor(s):
            return (s + 1) / warm if s < warm else 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * (s - warm) / max(1, steps - warm)))

    # the pool as tensors once (seventh session, a saving only: each batch is the same integers
    # :func:`pack` would build from the lists, and the random stream is drawn as before)
    toks = [torch.tensor(t, dtype=torch.long) for t, _, _ in pool]
    kins = [torch.tensor(k, dtype=torch.long) for _, k, _ in pool]
    is_tool = torch.tensor([bool(e[2]) for e in pool])

    def draw(gen: torch.Generator):
        idx = torch.randint(len(pool), (batch,), generator=gen)
        rows = idx.tolist()
        L = max(len(toks[i]) for i in rows)
        tok = torch.full((batch, L), S.PAD, dtype=torch.long)
        kin = torch.zeros((batch, L), dtype=torch.long)
        for r, i in enumerate(rows):
            tok[r, :len(toks[i])] = toks[i]
            kin[r, :len(kins[i])] = kins[i]
        return tok, kin, is_tool[idx] & (torch.rand(batch, generator=gen) < tdam_ratio)

    def loss_fn(mdl, b, step, gen):
        return _sft_forward(mdl, *b)[3]

    hook = None
    if on_step is not None:
        def hook(step, mdl):  # 1-based, on the model in eval mode (train_lm sets training mode again)
            mdl.eval()
            on_step(step + 1, mdl)

    return train_lm(model, draw, steps=steps, lr=lr, weight_decay=0.01, warmup=0, grad_clip=1.0, seed=seed,
                    schedule=factor, loss_fn=loss_fn, on_step=hook)


def restart_below_floor(build, score, *, floor: float, max_restarts: int):
    """Train, and restart from a new initialisation while a validation score stays below ``floor``.

    ``build(attempt)`` trains attempt 0, 1, ... (attempt 0 is the plain run) and ``score(result)``
    is its validation score (a split disjoint from every test). Attempts stop at the first one
    scoring >= ``floor`` or after ``max_restarts`` restarts; the returned result is that first
    passing attempt, else the highest-scoring one (the earliest on ties). Returns
    ``(result, restarts, scores)`` with ``restarts = len(scores) - 1``, the number of restarts made.
    """
    if not callable(build) or not callable(score):
        raise TypeError("build and score must be callables")
    floor = float(floor)
    if not np.isfinite(floor):
        raise ValueError(f"floor must be finite, got {floor!r}")
    max_restarts = check_int("max_restarts", max_restarts, minimum=0)
    results, scores = [], []
    for attempt in range(max_restarts + 1):
        res = build(attempt)
        sc = float(score(res))
        if not np.isfinite(sc):
            raise ValueError(f"score returned a non-finite value {sc!r} for attempt {attempt}")
        results.append(res)
        scores.append(sc)
        if sc >= floor:
            break
    best = len(scores) - 1 if scores[-1] >= floor else int(np.argmax(scores))
    return results[best], len(scores) - 1, scores


@torch.no_grad()
def token_accuracy(model: TinyLM, episodes: Sequence[tuple[list[int], list[int]]]) -> float:
    """Teacher-forced accuracy of the policy's own tokens on held-out reference episodes."""
    tok, kin = pack(episodes)
    model.eval()
    _, correct = sft_loss(model, tok, kin)
    return float(correct.float().mean())


@torch.no_grad()
def trajectory_accuracy(model: TinyLM, episodes: Sequence[tuple[list[int], list[int]]]) -> float:
    """Fraction of held-out reference episodes whose every policy token is the greedy prediction (teacher-forced)."""
    if not episodes:
        raise ValueError("episodes must be non-empty")
    tok, kin = pack(episodes)
    model.eval()
    set_extra_mask(model, None)
    logits, _ = model(tok[:, :-1])
    ky = kin[:, 1:]
    own = (ky == 1) | (ky == 3)
    wrong = (logits.argmax(-1) != tok[:, 1:]) & own
    return float((~wrong.any(1)).float().mean())


# ---------------------------------------------------------------- GRPO with the trajectory-guided reward
def grpo_train(model: TinyLM, videos_fn, reward_cfg: RewardConfig, *, steps: int, prompts: int = 8,
               group: int = 8, lr: float = 3e-4, max_turns: int = 5, seed: int = 0,
               scale_rewards: bool = True) -> dict[str, list[float]]:
    """GRPO on multi-turn episodes; ``videos_fn(rng) -> list[Video]`` draws each step's prompts.

    Tool outputs are masked from the loss; over-turn episodes get an all-False loss mask.
    ``scale_rewards=False`` drops the division of each group's centred rewards by the group's
    standard deviation (Dr. GRPO's first change, Liu et al. 2025): a group whose episodes differ
    only a little in the bonus beta then no longer gets advantages of size 1.
    Returns per-step mean reward, accuracy and tool calls.
    """
    from icml26.nn.rl import GRPOConfig, grpo_update

    steps = check_int("steps", steps, minimum=1)
    if not isinstance(scale_rewards, bool):
        raise TypeError(f"scale_rewards must be a bool, got {type(scale_rewards).__name__}")
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    cfg = GRPOConfig(group_size=group, lr=lr, beta=0.0, pad_id=S.PAD, max_new=200, scale_rewards=scale_rewards)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    hist: dict[str, list[float]] = {"reward": [], "acc": [], "calls": []}
    for _ in range(steps):
        vids = [v for v in videos_fn(rng) for _ in range(group)]
        ep = rollout(model, vids, max_turns=max_turns, generator=gen)
        parts = [trajectory_reward(t, v, reward_cfg) if not o else
                 {"reward": 0.0, "r_a": 0.0, "n_calls": float(len(t))} for t, v, o in zip(ep.turns, vids, ep.over_turn)]
        rewards = torch.tensor([p["reward"] for p in parts])
        P = S.PREFIX_LEN
        comps, masks = [], []
        for i in range(len(vids)):
            m = ep.model_mask[i, P:]
            last = int(m.nonzero().max()) + 1
            comps.append(ep.tokens[i, P:P + last].tolist())
            masks.append([bool(x) and not ep.over_turn[i] for x in m[:last].tolist()])
        prompts_ = [ep.tokens[i, :P].tolist() for i in range(len(vids))]
        if float(rewards.std()) > 0:
            grpo_update(model, None, opt, prompts_, comps, rewards, cfg, loss_mask=masks)
        hist["reward"].append(float(rewards.mean()))
        hist["acc"].append(float(np.mean([p["r_a"] for p in parts])))
        hist["calls"].append(float(np.mean([p["n_calls"] for p in parts])))
    model.eval()
    return hist


def evaluate_seeking(model: TinyLM, videos: Sequence[S.Video], *, max_turns: int = 5) -> dict[str, np.ndarray]:
    """Greedy episodes: per video correctness, tool calls, visual tokens, S_clue, over-turn."""
    ep = rollout(model, videos, max_turns=max_turns, greedy=True)
    parts = [trajectory_reward(t, v) for t, v in zip(ep.turns, videos)]
    return {"acc": np.array([0.0 if o else p["r_a"] for p, o in zip(parts, ep.over_turn)]),
            "calls": np.array([p["n_calls"] for p in parts]),
            "visual": np.array(ep.visual_tokens, dtype=float),
            "s_clue": np.array([p["s_clue"] for p in parts]),
            "over": np.array(ep.over_turn, dtype=float)}


def copy_model(model: TinyLM) -> TinyLM:
    return copy.deepcopy(model)
