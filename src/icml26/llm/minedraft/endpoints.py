"""A drafter endpoint in a second OS process, for wall-clock runs of MineDraft (arXiv:2603.18016).

``generate_psd`` talks to a drafter endpoint through ``start`` / ``submit`` / ``collect``;
:class:`ProcessDrafter` runs an :class:`~icml26.llm.minedraft.method.InlineDrafter` in a spawned
process (one thread, optionally pinned to a core). Only token ids cross the pipe (prompts, the
verified tokens of each update, the drafts back), so the overlap of drafting with verification is
real concurrency. Used by ``benchmarks/minedraft.py``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import torch

from icml26.core.validate import check_int
from icml26.llm.minedraft.method import InlineDrafter
from icml26.nn.transformer import TinyLM

if TYPE_CHECKING:
    from icml26.llm.minedraft.method import Update


def _drafter_process(conn, state, cfg, n_new, k, temperature, seed, core) -> None:
    torch.set_num_threads(1)
    if core is not None and hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {core})
        except OSError:
            pass
    model = TinyLM(cfg)
    model.load_state_dict(state)
    model.eval()
    gen = torch.Generator().manual_seed(seed)
    ep = InlineDrafter(model, n_new, k, temperature, gen)
    while True:
        msg = conn.recv()
        if msg is None:
            break
        kind, bid, payload = msg
        (ep.start if kind == "start" else ep.submit)(bid, payload)
        conn.send(ep.collect())
    conn.close()


class ProcessDrafter:
    """Drafter endpoint in a second OS process (one thread, optionally pinned to ``core``).

    Token ids travel through a pipe; the target keeps working while the drafter drafts, so the
    overlap is real concurrency (torch releases the GIL, and the processes do not share one anyway).
    """

    replay = False

    def __init__(self, drafter: TinyLM, n_new: int, k: int, temperature: float = 0.0, seed: int = 0,
                 core: int | None = None):
        import multiprocessing as mp

        if not isinstance(drafter, TinyLM):
            raise TypeError(f"drafter must be a TinyLM, got {type(drafter).__name__}")
        check_int("n_new", n_new, minimum=1)
        check_int("k", k, minimum=1)
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        state = {n: p.detach().clone() for n, p in drafter.state_dict().items()}
        self.proc = ctx.Process(target=_drafter_process,
                                args=(child, state, drafter.cfg, n_new, k, temperature, seed, core), daemon=True)
        self.proc.start()

    def start(self, bid: int, prompts: torch.Tensor) -> None:
        self.conn.send(("start", bid, prompts))

    def submit(self, bid: int, upd: Update) -> None:
        self.conn.send(("update", bid, upd))

    def collect(self):
        return self.conn.recv()

    def close(self) -> None:
        self.conn.send(None)
        self.proc.join(timeout=10)
