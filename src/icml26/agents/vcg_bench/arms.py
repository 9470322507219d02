"""The two learned Task-2 editors compared on the same triples, steps and batch size.

* Code arm (Diagram-as-Code): :class:`PatchDecoder` reads the XML (each vertex's label and fill,
  extracted by the parser) and the instruction tokens, and emits the patch's fields in one step: a
  pointer to the target cell and the new fill colour. :func:`compile_patch` turns them into the
  authors' JSON patch (the original line of that cell and the same line with the new ``fillColor``),
  which :func:`~icml26.agents.vcg_bench.method.apply_patch` applies and the renderer draws.
  It is not an autoregressive character decoder: a decoder that writes the fragment text
  character by character needs far more than the seconds of CPU training we can give each arm.
* Pixel arm (the control): :class:`PixelEditor`, a small conditional image-to-image CNN (FiLM on the
  same instruction tokens) that predicts a residual on the render, trained on MSE to the target render.

Both use Adam, the same learning rate, the same number of steps and the same batch size, on the
same training triples.
"""

from __future__ import annotations

import re

import numpy as np

from icml26.agents.vcg_bench import setting as S

MAX_CELLS = 5


def cell_tokens(xml: str) -> tuple[list[str], np.ndarray]:
    """Vertex ids and (label token, colour token) pairs read from the XML; unknown -> 0."""
    cells = [c for c in S.parse_cells(xml) if c.vertex]
    ids, toks = [], []
    for c in cells[:MAX_CELLS]:
        ids.append(c.id)
        lab = S.TOK.get(S.label_text(c.value), 0)
        try:
            col = S.TOK[S.colour_name(c.style.get("fillColor", ""))]
        except KeyError:
            col = 0
        toks.append((lab, col))
    return ids, np.array(toks, dtype=np.int64).reshape(-1, 2)


def _torch():
    import torch

    return torch


def make_patch_decoder(dim: int = 32, seed: int = 0):
    torch = _torch()
    nn = torch.nn

    class PatchDecoder(nn.Module):
        """Pointer over the XML's cells + a head over colours, from instruction tokens (3,)."""

        def __init__(self) -> None:
            super().__init__()
            V = len(S.VOCAB)
            self.tok = nn.Embedding(V, dim)
            self.mode = nn.Embedding(2, dim)
            self.score = nn.Sequential(nn.Linear(4 * dim, dim), nn.ReLU(), nn.Linear(dim, 1))
            self.value = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, len(S.COLOURS)))

        def forward(self, instr, cells, mask):
            """instr: (B, 3) tokens; cells: (B, N, 2) tokens; mask: (B, N) bool -> pointer logits (B, N),
            colour logits (B, n_colours)."""
            m = self.mode(instr[:, 0].clamp(0, 1))
            q = self.tok(instr[:, 1]) + m
            c = self.tok(cells[:, :, 0]) + self.tok(cells[:, :, 1])
            qq = q[:, None].expand_as(c)
            logits = self.score(torch.cat([qq, c, qq * c, m[:, None].expand_as(c)], -1)).squeeze(-1)
            logits = logits.masked_fill(~mask, -1e9)
            return logits, self.value(self.tok(instr[:, 2]))

    torch.manual_seed(seed)
    return PatchDecoder()


def make_pixel_editor(channels: int = 12, seed: int = 0):
    torch = _torch()
    nn = torch.nn

    class PixelEditor(nn.Module):
        """Conditional residual CNN: image (B, 3, H, W) in [0, 1] + instruction (B, 3) -> image."""

        def __init__(self) -> None:
            super().__init__()
            C = channels
            self.tok = nn.Embedding(len(S.VOCAB), 16)
            self.convs = nn.ModuleList([nn.Conv2d(3, C, 3, padding=1), nn.Conv2d(C, C, 3, padding=2, dilation=2),
                                        nn.Conv2d(C, C, 1)])
            self.film = nn.Linear(48, 2 * C * len(self.convs))
            self.out = nn.Conv2d(C, 3, 1)

        def forward(self, img, instr):
            e = self.tok(instr).flatten(1)  # (B, 48)
            fb = self.film(e).view(img.shape[0], len(self.convs), 2, -1)
            h = img
            for k, conv in enumerate(self.convs):
                h = torch.relu(conv(h)) * (1 + fb[:, k, 0, :, None, None]) + fb[:, k, 1, :, None, None]
            return (img + self.out(h)).clamp(0, 1)

    torch.manual_seed(seed)
    return PixelEditor()


def n_params(model) -> int:
    return int(sum(p.numel() for p in model.parameters()))


# ----------------------------------------------------------------------------- data
def code_batch(triples: list[S.EditTriple]):
    """(instr (B, 3), cells (B, N, 2), mask (B, N), target index (B,), target colour index (B,), ids)."""
    torch = _torch()
    B = len(triples)
    instr = torch.tensor([t.tokens for t in triples], dtype=torch.long)
    cells = torch.zeros(B, MAX_CELLS, 2, dtype=torch.long)
    mask = torch.zeros(B, MAX_CELLS, dtype=torch.bool)
    tgt = torch.zeros(B, dtype=torch.long)
    ids_all = []
    for b, t in enumerate(triples):
        ids, toks = cell_tokens(t.xml)
        cells[b, :len(ids)] = torch.from_numpy(toks)
        mask[b, :len(ids)] = True
        tgt[b] = ids.index(t.target_id) if t.target_id in ids else 0
        ids_all.append(ids)
    col = torch.tensor([S.COLOURS.index(t.new_colour) for t in triples], dtype=torch.long)
    return instr, cells, mask, tgt, col, ids_all


def images(xmls: list[str], scale: float) -> np.ndarray:
    """(B, H, W, 3) uint8 renders."""
    return np.stack([S.render(x, scale=scale) for x in xmls])


def to_tensor(imgs: np.ndarray):
    torch = _torch()
    return torch.from_numpy(imgs.astype(np.float32) / 255.0).permute(0, 3, 1, 2).contiguous()


def to_uint8(t) -> np.ndarray:
    return (t.detach().permute(0, 2, 3, 1).numpy() * 255).round().clip(0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- training
def train_code(triples, steps: int, batch: int, lr: float, seed: int) -> tuple[object, list[float]]:
    """The code arm: Adam on pointer + colour cross-entropy over ``batch`` triples drawn with replacement
    (``nn.mlp.fit``'s generator, seed ``seed``); returns the model and the per-step losses."""
    from icml26.nn.mlp import fit

    torch = _torch()
    F = torch.nn.functional
    model = make_patch_decoder(seed=seed)
    instr, cells, mask, tgt, col, _ = code_batch(triples)

    def loss_fn(m, idx):
        lp, lc = m(instr[idx], cells[idx], mask[idx])
        return F.cross_entropy(lp, tgt[idx]) + F.cross_entropy(lc, col[idx])

    res = fit(model, loss_fn, lambda g: torch.randint(len(triples), (batch,), generator=g), steps=steps, lr=lr,
              seed=seed)
    return model, res.history


def train_pixel(triples, src_imgs: np.ndarray, tgt_imgs: np.ndarray, steps: int, batch: int, lr: float,
                seed: int) -> tuple[object, list[float]]:
    """The pixel arm: Adam on the render MSE over ``batch`` triples drawn with replacement
    (``nn.mlp.fit``'s generator, seed ``seed + 1``); returns the model and the per-step losses."""
    from icml26.nn.mlp import fit

    torch = _torch()
    model = make_pixel_editor(seed=seed)
    x, y = to_tensor(src_imgs), to_tensor(tgt_imgs)
    instr = torch.tensor([t.tokens for t in triples], dtype=torch.long)

    def loss_fn(m, idx):
        return torch.nn.functional.mse_loss(m(x[idx], instr[idx]), y[idx])

    res = fit(model, loss_fn, lambda g: torch.randint(len(triples), (batch,), generator=g), steps=steps, lr=lr,
              seed=seed + 1)
    return model, res.history


# ----------------------------------------------------------------------------- inference
def compile_patch(xml: str, cell_id: str, colour: str) -> dict:
    """The JSON patch that sets ``cell_id``'s fillColor to ``colour``'s hex (empty if the cell is absent)."""
    m = re.search(r'^[ \t]*(<mxCell id="' + re.escape(cell_id) + r'".*)$', xml, re.MULTILINE)
    if m is None:
        return {"changes": []}
    line = m.group(1)
    new = re.sub(r"fillColor=[^;\"]*", "fillColor=" + S.PALETTE[colour], line, count=1)
    return {"changes": [{"original_fragment": line, "modified_fragment": new}]}


def code_edit(model, triples) -> list[dict]:
    """The code arm's patches for ``triples``."""
    torch = _torch()
    instr, cells, mask, _, _, ids = code_batch(triples)
    with torch.no_grad():
        lp, lc = model(instr, cells, mask)
    ptr, col = lp.argmax(1).tolist(), lc.argmax(1).tolist()
    return [compile_patch(t.xml, ids[b][ptr[b]], S.COLOURS[col[b]]) for b, t in enumerate(triples)]


def pixel_edit(model, triples, src_imgs: np.ndarray) -> np.ndarray:
    torch = _torch()
    instr = torch.tensor([t.tokens for t in triples], dtype=torch.long)
    with torch.no_grad():
        return to_uint8(model(to_tensor(src_imgs), instr))
