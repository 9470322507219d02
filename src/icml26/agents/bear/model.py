"""The base "MLLM" of the reproduction: a tiny CNN + transformer trained on generated BEAR items, in two
learned halves: the perception net (:func:`build_model`, below) and a reasoner over percept tokens
(:func:`build_reasoner`) that answers the multiple-choice reasoning skills from the net's percepts.

Input per item: T frames (T, H, W, 3) and a same-sized *sketch* layer (T, H, W, 3), the annotation
canvas on which tools draw (detections, extended arrows, marks), as the paper's agent shows the
model annotated images; a blank sketch is the base model's view. Query tokens: the skill and up to
two named entities (colour, shape).

Shapes: a CNN maps each frame to 8 x 8 tokens (d = ``d``); with 3 query tokens a transformer
encoder mixes (T * 64 + 3) tokens; heads read

* ``heat``: (B, 64) logits over the last frame's cells (pointing, and box centre);
* ``box``: (B, 64, 4) per-cell (dx, dy, w, h) in cell units / image fractions;
* ``mc``: (B, 4) option logits; ``present``: (B,) logit that the named entity is visible.

The model answers in text (``ANSWER: (0.41, 0.63)``, ``ANSWER: [x, y, w, h]``, ``ANSWER: (B)``),
parsed and scored by :mod:`.method` exactly as an endpoint VLM's reply would be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.agents.bear import setting as S

LOCATE = len(S.SKILLS)  # an extra query type: "where is entity e in this frame" (the model's percepts)
CELL = S.SIZE // 8


@dataclass
class BearModel:
    """The base model: ``net`` (perception: pointing, boxes, "where is e") and ``reasoner`` (percepts -> option)."""

    net: Any
    reasoner: Any


@dataclass(frozen=True)
class ModelConfig:
    d: int = 32
    layers: int = 2
    heads: int = 4
    max_frames: int = 4


def encoder_block(d: int, heads: int):
    """One encoder block: torch's pre-norm ``TransformerEncoderLayer`` (x + MHA(LN(x)), then
    x + MLP(LN(x)); MLP width 2d, GELU, no dropout) on (B, N, d) tensors."""
    from torch import nn

    return nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0, activation="gelu", batch_first=True,
                                      norm_first=True)


def build_model(cfg: ModelConfig, seed: int):
    import torch
    from torch import nn

    torch.manual_seed(seed)

    class BearNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            d = cfg.d
            self.cnn = nn.Sequential(nn.Conv2d(8, 24, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv2d(24, d, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv2d(d, d, 1))
            self.pos = nn.Parameter(torch.randn(64, d) * 0.02)
            self.pos16 = nn.Parameter(torch.randn(16, d) * 0.02)
            lin = torch.linspace(-1, 1, S.SIZE)
            self.register_buffer("coords", torch.stack(torch.meshgrid(lin, lin, indexing="xy"))[None], persistent=False)
            self.frame = nn.Parameter(torch.randn(cfg.max_frames, d) * 0.02)
            self.skill = nn.Embedding(LOCATE + 1, d)
            self.color = nn.Embedding(S.NONE_COLOR + 1, d)
            self.shape = nn.Embedding(S.NONE_SHAPE + 1, d)
            self.enc = nn.Sequential(*[encoder_block(d, cfg.heads) for _ in range(cfg.layers)])
            self.norm = nn.LayerNorm(d)
            self.heat = nn.Linear(d, 1)
            self.box = nn.Linear(d, 4)
            self.mc = nn.Linear(d, 4)
            self.present = nn.Linear(d, 1)

        def forward(self, frames, sketch, query):
            """frames, sketch: (B, T, H, W, 3) uint8 tensors; query: (B, 5) long."""
            b, t = frames.shape[:2]
            x = torch.cat([frames, sketch], -1).float().div(255.0).permute(0, 1, 4, 2, 3).reshape(b * t, 6, S.SIZE, S.SIZE)
            x = torch.cat([x, self.coords.expand(b * t, -1, -1, -1)], 1)  # CoordConv: x and y maps
            g = self.cnn(x)                                   # (B*T, d, 8, 8)
            fe = self.frame[torch.arange(t - 1, -1, -1)]      # frame embedding, the current frame first
            last = g.reshape(b, t, *g.shape[1:])[:, -1].flatten(2).transpose(1, 2) + self.pos + fe[-1]
            toks = [last]
            if t > 1:  # earlier frames at 4 x 4 tokens: they carry context, not the pointing target
                early = nn.functional.avg_pool2d(g.reshape(b, t, *g.shape[1:])[:, :-1].flatten(0, 1), 2)
                early = early.flatten(2).transpose(1, 2).reshape(b, t - 1, 16, -1) + self.pos16 + fe[:-1, None]
                toks.append(early.reshape(b, (t - 1) * 16, -1))
            q = torch.stack([self.skill(query[:, 0]), self.color(query[:, 1]) + self.shape(query[:, 2]),
                             self.color(query[:, 3]) + self.shape(query[:, 4])], 1)
            h = self.norm(self.enc(torch.cat([q, *toks], 1)))
            last = h[:, 3:67]
            return {"heat": self.heat(last).squeeze(-1), "box": self.box(last), "mc": self.mc(h[:, 0]),
                    "present": self.present(h[:, 0]).squeeze(-1)}

    return BearNet()


# ----------------------------------------------------------------------------- targets
def cell_of(xy: tuple[float, float]) -> int:
    x, y = (int(np.clip(v // CELL, 0, 7)) for v in xy)
    return y * 8 + x


def mask_target(mask: np.ndarray) -> tuple[int, np.ndarray]:
    """(cell holding the most mask pixels, (dx, dy, w, h) box target at that cell)."""
    ys, xs = np.nonzero(mask)
    counts = np.bincount((ys // CELL) * 8 + xs // CELL, minlength=64)
    c = int(counts.argmax())
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    gx, gy = (c % 8 + 0.5) * CELL, (c // 8 + 0.5) * CELL
    return c, np.array([(cx - gx) / CELL, (cy - gy) / CELL, (x1 - x0) / S.SIZE, (y1 - y0) / S.SIZE], np.float32)


@dataclass
class Batch:
    frames: Any
    sketch: Any
    query: Any
    kind: str
    target: Any = None       # mc: (B,) long; point/box: (B,) cell
    box: Any = None          # (B, 4)
    present: Any = None      # (B,) float, or None


def collate(items: list[S.Item], sketches: list[np.ndarray], kind: str) -> Batch:
    import torch

    fr = torch.from_numpy(np.stack([it.frames for it in items]))
    sk = torch.from_numpy(np.stack(sketches))
    q = torch.from_numpy(np.stack([it.query for it in items]))
    if kind == "mc":
        return Batch(fr, sk, q, kind, torch.tensor([it.answer for it in items]))
    cells, boxes = zip(*[mask_target(it.mask) if it.present else (0, np.zeros(4, np.float32)) for it in items])
    pres = torch.tensor([float(it.present) for it in items])
    return Batch(fr, sk, q, kind, torch.tensor(cells), torch.from_numpy(np.stack(boxes)), pres)


def locate_batch(examples: list[tuple[np.ndarray, np.ndarray, tuple[int, int], Any]]) -> Batch:
    """Percept examples: (frame (H, W, 3), sketch, entity token, (x, y) or None)."""
    import torch

    fr = torch.from_numpy(np.stack([e[0] for e in examples]))[:, None]
    sk = torch.from_numpy(np.stack([e[1] for e in examples]))[:, None]
    q = torch.tensor([[LOCATE, e[2][0], e[2][1], S.NONE_COLOR, S.NONE_SHAPE] for e in examples])
    cells = torch.tensor([cell_of(e[3]) if e[3] is not None else 0 for e in examples])
    pres = torch.tensor([float(e[3] is not None) for e in examples])
    return Batch(fr, sk, q, "locate", cells, None, pres)


def loss_of(model, b: Batch):
    import torch.nn.functional as F

    out = model(b.frames, b.sketch, b.query)
    if b.kind == "mc":
        return F.cross_entropy(out["mc"], b.target)
    loss = 0.0
    if b.present is not None and (b.present < 1).any():
        loss = F.binary_cross_entropy_with_logits(out["present"], b.present)
    keep = b.present > 0.5
    if keep.any():
        loss = loss + F.cross_entropy(out["heat"][keep], b.target[keep])
        if b.kind == "box":
            pred = out["box"][keep, b.target[keep]]
            loss = loss + 4 * F.smooth_l1_loss(pred, b.box[keep], beta=0.1)
    return loss


# ----------------------------------------------------------------------------- answering
def predict(model, frames: np.ndarray, sketch: np.ndarray, query: np.ndarray) -> dict[str, np.ndarray]:
    """Raw outputs for one batch: frames, sketch (B, T, H, W, 3) uint8, query (B, 5)."""
    import torch

    with torch.no_grad():
        out = model(torch.from_numpy(np.ascontiguousarray(frames)), torch.from_numpy(np.ascontiguousarray(sketch)),
                    torch.from_numpy(np.asarray(query, np.int64)))
    return {k: v.numpy() for k, v in out.items()}


def decode(out: dict[str, np.ndarray], i: int, kind: str) -> tuple[str, Any]:
    """(reply text, parsed value) for row ``i`` of ``out``."""
    if kind == "mc":
        k = int(out["mc"][i].argmax())
        return f"THOUGHT: the option that fits best. ANSWER: ({S.LETTERS[k]}) TERMINATE", k
    c = int(out["heat"][i].argmax())
    dx, dy, w, h = out["box"][i, c]
    cx, cy = (c % 8 + 0.5 + dx) * CELL, (c // 8 + 0.5 + dy) * CELL
    if kind == "point":
        p = (float(np.clip(cx / S.SIZE, 0, 1)), float(np.clip(cy / S.SIZE, 0, 1)))
        return f"ANSWER: ({p[0]:.3f}, {p[1]:.3f}) TERMINATE", p
    w, h = float(np.clip(w, 0.02, 1)), float(np.clip(h, 0.02, 1))
    bx = [float(np.clip(cx / S.SIZE - w / 2, 0, 1)), float(np.clip(cy / S.SIZE - h / 2, 0, 1)), w, h]
    return "ANSWER: [" + ", ".join(f"{v:.3f}" for v in bx) + "] TERMINATE", bx


def soft_vote(outs: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Test-time scaling: average the probabilities (heat/mc) and box regressions of several calls."""
    import scipy.special as sp

    return {"mc": np.log(np.mean([sp.softmax(o["mc"], -1) for o in outs], 0) + 1e-12),
            "heat": np.log(np.mean([sp.softmax(o["heat"], -1) for o in outs], 0) + 1e-12),
            "box": np.mean([o["box"] for o in outs], 0),
            "present": np.mean([o["present"] for o in outs], 0)}


# ----------------------------------------------------------------------------- training data and loop
@dataclass
class Pool:
    """Training items per skill with their tool sketches, and percept ("locate") examples."""

    items: dict[str, list[S.Item]]
    sketches: dict[str, list[np.ndarray]]
    locate: list[tuple[np.ndarray, np.ndarray, tuple[int, int], Any]]


def build_pool(skills: list[str], n_per_skill: int, seed: int, clutter: float) -> Pool:
    """Generated training items (seeded by ``seed`` and the skill), tool sketches from the skill's tool
    plan, and "where is entity e in frame t" examples from the diagnosable items' frames."""
    from icml26.agents.bear.method import run_tools

    items, sketches, locate = {}, {}, []
    blank = np.zeros((S.SIZE, S.SIZE, 3), np.uint8)
    for s in skills:
        rng = np.random.default_rng([seed, S.SKILLS.index(s), 11])
        its = [S.make_item(s, rng, clutter) for _ in range(n_per_skill)]
        items[s] = its
        sketches[s] = [run_tools(it).sketch for it in its] if S.KIND[s] != "mc" else []
        if s in S.DIAGNOSABLE:
            for it in its:
                for name, tok in it.entities.items():
                    for t in range(len(it.frames)):
                        locate.append((it.frames[t], blank, tok, it.state[name][t] if t < len(it.state[name]) else None))
    return Pool(items, sketches, locate)


def train(pool: Pool, cfg: ModelConfig, *, steps: int, batch: int, lr: float, seed: int,
          p_sketch: float = 0.5, locate_weight: int = 3) -> tuple[Any, list[float]]:
    """The perception half: round-robin over the pointing / box skills and the percept task ("where is
    entity e in frame t", ``locate_weight`` turns per round), AdamW with one-cycle lr. Returns (model,
    loss per step); the reasoning skills are answered from percepts by :func:`train_reasoner`'s model.

    With probability ``p_sketch`` an item is shown with its tool sketch, otherwise with a blank one:
    the model learns to read annotated images (our stand-in for a VLM's ability to read tool overlays)."""
    import torch

    from icml26.nn.mlp import fit

    model = build_model(cfg, seed)
    rng = np.random.default_rng(seed + 12345)
    tasks = [s for s in pool.items if S.KIND[s] != "mc"] + (["locate"] * locate_weight if pool.locate else [])
    step = 0

    def draw(_gen: torch.Generator):  # round-robin over the tasks, items drawn from the numpy stream
        nonlocal step
        task = tasks[step % len(tasks)]
        step += 1
        if task == "locate":
            idx = rng.integers(len(pool.locate), size=batch)
            return locate_batch([pool.locate[i] for i in idx])
        its, sks = pool.items[task], pool.sketches[task]
        idx = rng.integers(len(its), size=batch)
        use = rng.random(batch) < p_sketch
        return collate([its[i] for i in idx], [sks[i] if u else np.zeros_like(sks[i]) for i, u in zip(idx, use)],
                       S.KIND[task])

    res = fit(model, loss_of, draw, steps=steps, lr=lr, optimizer="adamw", weight_decay=1e-4, grad_clip=1.0,
              schedule="onecycle", pct_start=0.1)
    return model, res.history


# ----------------------------------------------------------------------------- the reasoning half
ROLES = ["target", "A", "B", "agent", "goal", "object", "gripper", "bin", "obj0", "obj1", "obj2", "origin", "arrow",
         "arrow0", "arrow1", "arrow2", "arrow3", "target0", "target1", "target2", "target3"]
MAX_TOK = 8


def percept_tokens(skill: str, percepts: dict[str, list[Any]], names: list[str]) -> tuple[np.ndarray, ...]:
    """Percepts as reasoner input: feats (MAX_TOK, 3) = (x / SIZE, y / SIZE, present), roles, frames
    (counted from the current frame), padded with a pad role."""
    feats = np.zeros((MAX_TOK, 3), np.float32)
    roles = np.full(MAX_TOK, len(ROLES), np.int64)
    frames = np.zeros(MAX_TOK, np.int64)
    k = 0
    for name in names:
        seq = percepts.get(name, [])
        for t, p in enumerate(seq):
            if k >= MAX_TOK:
                raise ValueError(f"too many percept tokens for {skill!r}")
            if p is not None:
                feats[k] = (p[0] / S.SIZE, p[1] / S.SIZE, 1.0)
            roles[k], frames[k] = ROLES.index(name), len(seq) - 1 - t
            k += 1
    return feats, roles, frames


def build_reasoner(d: int, seed: int):
    """A transformer over percept tokens: (skill token, entity tokens) -> 4 option logits."""
    import torch
    from torch import nn

    torch.manual_seed(seed + 1)
    class Reasoner(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.skill = nn.Embedding(len(S.SKILLS), d)
            self.role = nn.Embedding(len(ROLES) + 1, d)
            self.frame = nn.Embedding(4, d)
            self.feat = nn.Sequential(nn.Linear(3, d), nn.GELU(), nn.Linear(d, d))
            self.enc = nn.Sequential(encoder_block(d, 4), encoder_block(d, 4))
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, 4)

        def forward(self, skill, feats, roles, frames):
            """skill (B,), feats (B, K, 3), roles (B, K), frames (B, K) -> (B, 4) logits."""
            x = self.feat(feats) + self.role(roles) + self.frame(frames)
            h = self.enc(torch.cat([self.skill(skill)[:, None], x], 1))
            return self.head(self.norm(h[:, 0]))

    return Reasoner()


def reasoner_logits(reasoner, items: list[S.Item], percepts: list[dict[str, list[Any]]]) -> np.ndarray:
    """(n, 4) option logits of the learned reasoner on the given percepts of ``items``."""
    import torch

    toks = [percept_tokens(it.skill, pc, list(it.entities)) for it, pc in zip(items, percepts)]
    with torch.no_grad():
        out = reasoner(torch.tensor([S.SKILLS.index(it.skill) for it in items]),
                       torch.from_numpy(np.stack([t[0] for t in toks])), torch.from_numpy(np.stack([t[1] for t in toks])),
                       torch.from_numpy(np.stack([t[2] for t in toks])))
    return out.numpy()


def train_reasoner(pool: "Pool", d: int, *, steps: int, batch: int, lr: float, seed: int, jitter: float = 1.0):
    """Train the reasoner on ground-truth states of the pool's reasoning items (positions jittered by
    ``jitter`` px). Returns (reasoner, loss per step)."""
    import torch
    import torch.nn.functional as F

    from icml26.nn.mlp import fit

    its = [it for sk, v in pool.items.items() if sk in S.DIAGNOSABLE for it in v]
    reasoner = build_reasoner(d, seed)
    if not its:
        return reasoner.eval(), []
    toks = [percept_tokens(it.skill, it.state, list(it.entities)) for it in its]
    feats = torch.from_numpy(np.stack([t[0] for t in toks]))
    roles = torch.from_numpy(np.stack([t[1] for t in toks]))
    frames = torch.from_numpy(np.stack([t[2] for t in toks]))
    skill = torch.tensor([S.SKILLS.index(it.skill) for it in its])
    y = torch.tensor([it.answer for it in its])

    def draw(gen: torch.Generator):
        idx = torch.randint(len(its), (batch,), generator=gen)
        f = feats[idx].clone()
        f[..., :2] += torch.randn(f[..., :2].shape, generator=gen) * (jitter / S.SIZE) * f[..., 2:]
        return idx, f

    def loss(m, b) -> torch.Tensor:
        idx, f = b
        return F.cross_entropy(m(skill[idx], f, roles[idx], frames[idx]), y[idx])

    res = fit(reasoner, loss, draw, steps=steps, lr=lr, optimizer="adamw", weight_decay=1e-4,
              schedule="onecycle", pct_start=0.1, seed=seed + 99)
    return reasoner.eval(), res.history
