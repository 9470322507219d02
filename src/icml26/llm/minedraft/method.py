"""Batch parallel speculative decoding (PSD), as in MineDraft (arXiv:2603.18016).

Standard speculative decoding (SD, Leviathan et al. 2023) alternates two stages on one device:
the drafter proposes ``k`` tokens autoregressively, then the target verifies them in one pass of
``k + 1`` positions and keeps the longest accepted prefix plus one corrected/bonus token. While the
drafter runs, the target is idle. MineDraft (Sec. 3-4 of the paper) gives the drafter its own device
and keeps **two batches** of requests, P and Q: while the target verifies P's drafts, the drafter
drafts for Q (whose verification has just returned), then the roles swap. A batch's next drafting
must wait for its own verification (data dependency), which is why two batches are needed to keep
both devices busy. Verification is unchanged, so the outputs are those of the target.

This module holds the algorithm:

- :class:`~icml26.nn.ragged.RaggedCache` and :func:`~icml26.nn.ragged.ragged_forward` (shared, in
  :mod:`icml26.nn.ragged`): a KV cache with one length per row, so every request of a batch can
  accept a different number of tokens (what vLLM's paged cache gives);
- :func:`verify_greedy` / :func:`verify_sampling`: the acceptance rules (exact match for greedy,
  the rejection sampler of Leviathan et al. for temperature sampling);
- :class:`TargetSide` / :class:`DraftSide`: the per-batch state of each device;
- :func:`generate_target_only`, :func:`generate_sd`, :func:`generate_psd`: the three decoders.
  ``generate_psd`` runs the two-batch pipeline against a drafter *endpoint*: in-process
  (:class:`InlineDrafter`, which records every stage's duration so that the two-device timeline can
  be replayed) or in a second OS process (``endpoints.ProcessDrafter``);
- :func:`expected_tokens`, :func:`psd_speedup_model`: the first-order throughput model.

The simulated world (the Markov language, the trained pair, the per-forward cost model used as a
clock) is in ``setting.py``; the second-process drafter in ``endpoints.py``.

Throughput model (our derivation; the paper's theorem body was not available to us). With per-token
acceptance alpha (i.i.d.), a round yields E = (1 - alpha^(k+1)) / (1 - alpha) tokens per request. SD
spends k t_d + t_v per round and batch; PSD spends max(k t_d, t_v) per half-cycle and batch, so

    speedup = (k t_d + t_v) / max(k t_d, t_v)   (<= 2, maximal at k t_d = t_v).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from icml26.core.validate import check_finite, check_int, check_positive
from icml26.nn.ragged import RaggedCache, ragged_forward  # noqa: F401
from icml26.nn.transformer import TinyLM

if TYPE_CHECKING:
    from icml26.llm.minedraft.setting import CostModel


# ----------------------------------------------------------------------------- model substrate
# RaggedCache and ragged_forward live in icml26.nn.ragged (shared); re-exported here.


def _pending_batch(seqs: Sequence[list[int]], cache: RaggedCache, rows: list[int]):
    """Tokens of each row not yet in the cache, right-padded: (idx (n, t), rows, n_real)."""
    pend = [seqs[r][int(cache.length[r]):] for r in rows]
    lens = [len(p) for p in pend]
    if min(lens) < 1:
        raise ValueError("every row needs at least one pending token")
    t = max(lens)
    idx = torch.tensor([p + [0] * (t - len(p)) for p in pend], dtype=torch.long)
    return idx, torch.tensor(rows, dtype=torch.long), torch.tensor(lens, dtype=torch.long)


# ----------------------------------------------------------------------------- acceptance rules


def verify_greedy(drafts: torch.Tensor, target_logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Greedy verification. ``drafts`` (n, k), ``target_logits`` (n, k + 1, V) at the pending token
    and the k drafts. Returns (n_accepted (n,), next_token (n,)): the longest prefix with
    ``drafts[:, j] == argmax target_logits[:, j]`` and the target's argmax after it."""
    _check_tensor("drafts", drafts)
    _check_tensor("target_logits", target_logits)
    check_finite("target_logits", target_logits)
    if drafts.dim() != 2 or target_logits.dim() != 3 or target_logits.shape[:2] != (drafts.shape[0], drafts.shape[1] + 1):
        raise ValueError(f"need drafts (n, k) and target_logits (n, k+1, V), got {tuple(drafts.shape)}, "
                         f"{tuple(target_logits.shape)}")
    y = target_logits.argmax(-1)
    match = (drafts == y[:, :-1]).long()
    n_acc = match.cumprod(dim=1).sum(dim=1)
    return n_acc, y.gather(1, n_acc[:, None])[:, 0]


def verify_sampling(drafts: torch.Tensor, q: torch.Tensor, p: torch.Tensor,
                    generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Speculative sampling (Leviathan et al. 2023, Alg. 1). ``drafts`` (n, k) drawn from the drafter
    probabilities ``q`` (n, k, V); ``p`` (n, k + 1, V) target probabilities. Draft j is accepted with
    probability min(1, p/q); at the first rejection the next token is drawn from norm(max(p - q, 0)),
    after k acceptances from p[:, k]. Returns (n_accepted (n,), next_token (n,)); the emitted tokens
    are distributed exactly as the target's."""
    for name, z in (("drafts", drafts), ("q", q), ("p", p)):
        _check_tensor(name, z)
    if drafts.dim() != 2:
        raise ValueError(f"drafts must be (n, k), got {tuple(drafts.shape)}")
    n, k = drafts.shape
    if q.dim() != 3 or q.shape[:2] != (n, k):
        raise ValueError(f"q must be (n, k, V) = ({n}, {k}, V), got {tuple(q.shape)}")
    if p.dim() != 3 or p.shape[:2] != (n, k + 1) or q.shape[2] != p.shape[2]:
        raise ValueError(f"p must be (n, k + 1, V) = ({n}, {k + 1}, {q.shape[2]}), got {tuple(p.shape)}")
    check_finite("q", q)
    check_finite("p", p)
    pd = p[:, :k].gather(2, drafts[..., None])[..., 0]
    qd = q.gather(2, drafts[..., None])[..., 0]
    u = torch.rand(n, k, generator=generator)
    ok = (u * qd <= pd).long()
    n_acc = ok.cumprod(dim=1).sum(dim=1)
    nxt = torch.empty(n, dtype=torch.long)
    for i in range(n):
        j = int(n_acc[i])
        if j == k:
            dist = p[i, k]
        else:
            dist = (p[i, j] - q[i, j]).clamp_min(0)
            if float(dist.sum()) <= 0:  # p == q at this position: rejection has probability 0
                dist = p[i, j]
        nxt[i] = torch.multinomial(dist / dist.sum(), 1, generator=generator)[0]
    return n_acc, nxt


# ----------------------------------------------------------------------------- per-device state


@dataclass
class Update:
    """What the target tells the drafter after verifying a batch: new tokens per active row."""

    new_tokens: dict[int, list[int]]
    finished: list[int] = field(default_factory=list)


class TargetSide:
    """Target-device state of one batch: sequences, KV cache, progress towards ``n_new`` tokens."""

    def __init__(self, target: TinyLM, prompts: torch.Tensor, n_new: int, k: int,
                 temperature: float = 0.0, generator: torch.Generator | None = None, cost: CostModel | None = None):
        _check_prompts(prompts, n_new, k, temperature)
        self.cost = cost
        self.model, self.n_new, self.k, self.temperature, self.gen = target, n_new, k, temperature, generator
        self.P = prompts.shape[1]
        self.seqs = [list(map(int, r)) for r in prompts]
        self.cache = RaggedCache(target, len(self.seqs), self.P + n_new + k + 2)
        self.active = list(range(len(self.seqs)))
        self.rounds = 0
        self.accepted: list[int] = []  # accepted drafts per (row, round)

    def prefill(self) -> None:
        ragged_forward(self.model, self.cache, torch.tensor([s[:-1] for s in self.seqs]),
                       torch.arange(len(self.seqs)), torch.full((len(self.seqs),), self.P - 1), self.cost)

    @property
    def done(self) -> bool:
        return not self.active

    def generated(self, row: int) -> list[int]:
        return self.seqs[row][self.P:self.P + self.n_new]

    def _emit(self, new: dict[int, list[int]]) -> Update:
        fin = []
        for r, toks in new.items():
            self.seqs[r].extend(toks)
            if len(self.seqs[r]) - self.P >= self.n_new:
                fin.append(r)
        self.active = [r for r in self.active if r not in fin]
        return Update(new, fin)

    def step_autoregressive(self) -> Update:
        """One target-only decoding step for every active row."""
        idx, rows, n_real = _pending_batch(self.seqs, self.cache, self.active)
        logits = ragged_forward(self.model, self.cache, idx, rows, n_real, self.cost)[:, -1]
        nxt = _pick(logits, self.temperature, self.gen)
        return self._emit({r: [int(t)] for r, t in zip(self.active, nxt)})

    def verify(self, rows: list[int], drafts: torch.Tensor, q: torch.Tensor | None) -> Update:
        """Verify ``drafts`` (n, k) of ``rows`` in one target pass of k + 1 positions."""
        if rows != self.active:
            raise ValueError("drafts must cover exactly the active rows")
        pend = torch.tensor([self.seqs[r][-1:] for r in rows], dtype=torch.long)  # 1 pending token
        idx = torch.cat([pend, drafts], dim=1)
        r_t = torch.tensor(rows, dtype=torch.long)
        L = self.cache.length[r_t].clone()
        logits = ragged_forward(self.model, self.cache, idx, r_t, torch.full((len(rows),), idx.shape[1]), self.cost)
        if self.temperature == 0:
            n_acc, nxt = verify_greedy(drafts, logits)
        else:
            n_acc, nxt = verify_sampling(drafts, q, torch.softmax(logits / self.temperature, -1), self.gen)
        self.cache.length[r_t] = L + 1 + n_acc  # pending token and the accepted drafts stay cached
        self.rounds += 1
        self.accepted.extend(int(a) for a in n_acc)
        return self._emit({r: [int(t) for t in drafts[i, :int(n_acc[i])]] + [int(nxt[i])]
                           for i, r in enumerate(rows)})


class DraftSide:
    """Drafter-device state of one batch: its own copy of the sequences and KV cache."""

    def __init__(self, drafter: TinyLM, prompts: torch.Tensor, n_new: int, k: int,
                 temperature: float = 0.0, generator: torch.Generator | None = None, cost: CostModel | None = None):
        _check_prompts(prompts, n_new, k, temperature)
        self.cost = cost
        self.model, self.k, self.temperature, self.gen = drafter, k, temperature, generator
        self.P = prompts.shape[1]
        self.seqs = [list(map(int, r)) for r in prompts]
        self.cache = RaggedCache(drafter, len(self.seqs), self.P + n_new + 2 * k + 2)
        self.active = list(range(len(self.seqs)))

    def prefill(self) -> None:
        ragged_forward(self.model, self.cache, torch.tensor([s[:-1] for s in self.seqs]),
                       torch.arange(len(self.seqs)), torch.full((len(self.seqs),), self.P - 1), self.cost)

    def update(self, upd: Update) -> None:
        """Take the verified tokens; the cache keeps only the drafts that were accepted."""
        for r, toks in upd.new_tokens.items():
            base = len(self.seqs[r])
            self.seqs[r].extend(toks)
            self.cache.length[r] = min(int(self.cache.length[r]), base + len(toks) - 1)
        self.active = [r for r in self.active if r not in upd.finished]

    def draft(self) -> tuple[list[int], torch.Tensor, torch.Tensor | None]:
        """Propose k tokens for every active row: (rows, drafts (n, k), q (n, k, V) or None)."""
        rows = list(self.active)
        ext = [list(self.seqs[r]) for r in range(len(self.seqs))]
        drafts, qs = [], []
        for _ in range(self.k):
            idx, r_t, n_real = _pending_batch(ext, self.cache, rows)
            logits = ragged_forward(self.model, self.cache, idx, r_t, n_real, self.cost)
            last = logits[torch.arange(len(rows)), n_real - 1]
            if self.temperature == 0:
                tok = last.argmax(-1)
            else:
                prob = torch.softmax(last / self.temperature, -1)
                tok = torch.multinomial(prob, 1, generator=self.gen)[:, 0]
                qs.append(prob)
            drafts.append(tok)
            for i, r in enumerate(rows):
                ext[r].append(int(tok[i]))
        return rows, torch.stack(drafts, 1), (torch.stack(qs, 1) if qs else None)


def _check_tensor(name: str, x) -> None:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")


def _check_prompts(prompts: torch.Tensor, n_new: int, k: int, temperature: float = 0.0) -> None:
    _check_tensor("prompts", prompts)
    if prompts.dim() != 2 or prompts.shape[0] < 1 or prompts.shape[1] < 1:
        raise ValueError(f"prompts must be (batch >= 1, len >= 1), got {tuple(prompts.shape)}")
    if prompts.is_floating_point():
        raise TypeError(f"prompts must hold integer token ids, got {prompts.dtype}")
    check_int("n_new", n_new, minimum=1)
    check_int("k", k, minimum=1)
    check_positive("temperature", temperature, strict=False)


def _pick(logits: torch.Tensor, temperature: float, gen: torch.Generator | None) -> torch.Tensor:
    if temperature == 0:
        return logits.argmax(-1)
    return torch.multinomial(torch.softmax(logits / temperature, -1), 1, generator=gen)[:, 0]


# ----------------------------------------------------------------------------- decoders


@dataclass
class RunStats:
    """Outputs and timings of one decoding run over a list of requests.

    ``latency[i]``: completion time of request i since the start (seconds; on the replayed
    two-device clock for ``generate_psd`` with an :class:`InlineDrafter`). ``t_draft``/``t_verify``/
    ``t_step``: measured durations of each drafting round (k drafter steps), verification pass and
    target-only step, with the batch size of each. ``serial_makespan``/``serial_latency``
    (``generate_psd`` only): the same measured stages run one after another on one device, batch P's
    wave before batch Q's, i.e. standard SD on the same work, free of run-to-run timing noise.
    ``critical_path`` (``generate_psd`` only): the two-device makespan implied by the stage durations
    alone (equals ``makespan`` in a replay; with a :class:`ProcessDrafter`, makespan minus this is
    what communication and OS scheduling cost).
    """

    outputs: list[list[int]]
    makespan: float
    latency: list[float]
    rounds: int = 0
    accepted: list[int] = field(default_factory=list)
    t_draft: list[tuple[int, float]] = field(default_factory=list)
    t_verify: list[tuple[int, float]] = field(default_factory=list)
    t_step: list[tuple[int, float]] = field(default_factory=list)
    serial_makespan: float = float("nan")
    serial_latency: list[float] = field(default_factory=list)
    critical_path: float = float("nan")

    @property
    def tokens(self) -> int:
        return sum(len(o) for o in self.outputs)

    @property
    def throughput(self) -> float:
        return self.tokens / self.makespan


def _waves(prompts: torch.Tensor, size: int) -> list[tuple[int, torch.Tensor]]:
    check_int("batch_size", size, minimum=1)
    return [(s, prompts[s:s + size]) for s in range(0, prompts.shape[0], size)]


def generate_target_only(target: TinyLM, prompts: torch.Tensor, n_new: int, batch_size: int,
                         temperature: float = 0.0, generator: torch.Generator | None = None,
                         cost: CostModel | None = None) -> RunStats:
    """Autoregressive decoding with the target alone, static batches of ``batch_size`` requests.

    Stage durations are wall-clock seconds, or modelled seconds when a :class:`CostModel` is given
    (as for the other decoders)."""
    now = cost if cost is not None else time.perf_counter
    outs, lat, clock, steps = [], [], 0.0, []
    for _, pr in _waves(prompts, batch_size):
        t0 = now()
        ts = TargetSide(target, pr, n_new, 1, temperature, generator, cost)
        ts.prefill()
        clock += now() - t0
        fin_at = [0.0] * pr.shape[0]
        while not ts.done:
            b = len(ts.active)
            t0 = now()
            upd = ts.step_autoregressive()
            dt = now() - t0
            clock += dt
            steps.append((b, dt))
            for r in upd.finished:
                fin_at[r] = clock
        outs += [ts.generated(r) for r in range(pr.shape[0])]
        lat += fin_at
    return RunStats(outs, clock, lat, t_step=steps)


def generate_sd(target: TinyLM, drafter: TinyLM, prompts: torch.Tensor, n_new: int, k: int, batch_size: int,
                temperature: float = 0.0, generator: torch.Generator | None = None,
                cost: CostModel | None = None) -> RunStats:
    """Standard speculative decoding on one device: draft k tokens, verify, repeat (static batches)."""
    now = cost if cost is not None else time.perf_counter
    st = RunStats([], 0.0, [])
    clock = 0.0
    for _, pr in _waves(prompts, batch_size):
        t0 = now()
        ts = TargetSide(target, pr, n_new, k, temperature, generator, cost)
        ds = DraftSide(drafter, pr, n_new, k, temperature, generator, cost)
        ts.prefill()
        ds.prefill()
        clock += now() - t0
        fin_at = [0.0] * pr.shape[0]
        while not ts.done:
            b = len(ts.active)
            t0 = now()
            rows, drafts, q = ds.draft()
            t1 = now()
            upd = ts.verify(rows, drafts, q)
            t2 = now()
            ds.update(upd)
            t3 = now()
            clock += t3 - t0
            st.t_draft.append((b, t1 - t0 + t3 - t2))
            st.t_verify.append((b, t2 - t1))
            for r in upd.finished:
                fin_at[r] = clock
        st.outputs += [ts.generated(r) for r in range(pr.shape[0])]
        st.latency += fin_at
        st.rounds += ts.rounds
        st.accepted += ts.accepted
    st.makespan = clock
    return st


class InlineDrafter:
    """Drafter endpoint that runs in this process and records how long each call took.

    ``generate_psd`` replays the recorded durations on a two-device timeline (drafter device and
    target device, each busy with one stage at a time, a batch's drafting after its verification and
    its verification after its drafting) to get the makespan two dedicated devices would reach.
    """

    replay = True

    def __init__(self, drafter: TinyLM, n_new: int, k: int, temperature: float = 0.0,
                 generator: torch.Generator | None = None, cost: CostModel | None = None):
        self.args = (drafter, n_new, k, temperature, generator)
        self.cost = cost
        self.now = cost if cost is not None else time.perf_counter
        self.sides: dict[int, DraftSide] = {}
        self._out: list = []

    def start(self, bid: int, prompts: torch.Tensor) -> None:
        t0 = self.now()
        d, n_new, k, temp, gen = self.args
        self.sides[bid] = DraftSide(d, prompts, n_new, k, temp, gen, self.cost)
        self.sides[bid].prefill()
        self._out.append((bid, *self.sides[bid].draft(), self.now() - t0))

    def submit(self, bid: int, upd: Update) -> None:
        t0 = self.now()
        side = self.sides[bid]
        side.update(upd)
        res = side.draft() if side.active else ([], None, None)
        self._out.append((bid, *res, self.now() - t0))

    def collect(self):
        return self._out.pop(0)

    def close(self) -> None:
        pass


def generate_psd(target: TinyLM, drafter_ep, prompts: torch.Tensor, n_new: int, k: int, batch_size: int,
                 temperature: float = 0.0, generator: torch.Generator | None = None,
                 cost: CostModel | None = None) -> RunStats:
    """MineDraft batch parallel SD: waves of 2 x ``batch_size`` requests split into batches P and Q.

    Pipeline per wave (drafter endpoint ``drafter_ep`` on its own device)::

        drafter: draft(P)   draft(Q)    draft(P)   draft(Q) ...
        target :            verify(P)   verify(Q)  verify(P) ...

    i.e. the target verifies one batch while the drafter drafts for the other; a batch is redrafted
    right after its verification returns. When one batch finishes, the other runs on alone.
    With an :class:`InlineDrafter` the stages run one after another here and the makespan is the
    replayed two-device critical path; with a :class:`ProcessDrafter` it is the wall clock. ``cost``
    (replay only; give the same one to the :class:`InlineDrafter`) replaces measured stage durations
    by modelled ones.
    """
    now = cost if cost is not None else time.perf_counter
    st = RunStats([], 0.0, [])
    replay = getattr(drafter_ep, "replay", False)
    wall0 = time.perf_counter()
    clock = 0.0  # end of the previous wave (replayed clock, or wall clock)
    serial_clock = 0.0
    ideal = 0.0
    for _, pr in _waves(prompts, 2 * batch_size):
        halves = [h for h in (pr[:batch_size], pr[batch_size:]) if h.shape[0] > 0]
        # replay clocks: when each device is next free; when each batch's verification returned
        t_free = d_free = wave_start = clock
        v_end = {bid: clock for bid in range(len(halves))}
        for bid, h in enumerate(halves):
            drafter_ep.start(bid, h)
        outstanding = len(halves)
        tgt: dict[int, TargetSide] = {}
        serial_pre: dict[int, float] = {}
        for bid, h in enumerate(halves):
            t0 = now()
            tgt[bid] = TargetSide(target, h, n_new, k, temperature, generator, cost)
            tgt[bid].prefill()
            serial_pre[bid] = now() - t0
            t_free += serial_pre[bid]
        ready: dict[int, tuple] = {}
        serial = dict(serial_pre)  # each batch's own stage time, run serially
        fin_serial: dict[tuple[int, int], float] = {}

        def pull() -> None:
            nonlocal outstanding, d_free
            rb, rows, drafts, q, dt = drafter_ep.collect()
            outstanding -= 1
            serial[rb] += dt
            d_free = max(d_free, v_end[rb]) + dt  # FIFO drafter; waits for the batch's verification
            if rows:
                ready[rb] = (rows, drafts, q, d_free)
                st.t_draft.append((len(rows), dt))

        fin_at: dict[tuple[int, int], float] = {}
        active = list(range(len(halves)))
        turn = 0
        while active:
            bid = active[turn % len(active)]
            while bid not in ready:
                pull()
            rows, drafts, q, d_end = ready.pop(bid)
            t0 = now()
            upd = tgt[bid].verify(rows, drafts, q)
            dt = now() - t0
            st.t_verify.append((len(rows), dt))
            serial[bid] += dt
            for r in upd.finished:
                fin_serial[(bid, r)] = serial[bid]
            t_free = max(t_free, d_end) + dt
            v_end[bid] = t_free
            t_done = t_free if replay else time.perf_counter() - wall0
            for r in upd.finished:
                fin_at[(bid, r)] = t_done
            drafter_ep.submit(bid, upd)  # the drafter redrafts this batch (or drops it when done)
            outstanding += 1
            if tgt[bid].done:
                active.remove(bid)
            else:
                turn += 1
        while outstanding:
            pull()
        ideal += t_free - wave_start
        clock = t_free if replay else time.perf_counter() - wall0
        for bid, h in enumerate(halves):
            st.serial_latency += [serial_clock + fin_serial[(bid, r)] for r in range(h.shape[0])]
            serial_clock += serial[bid]
            ts = tgt[bid]
            st.outputs += [ts.generated(r) for r in range(h.shape[0])]
            st.latency += [fin_at[(bid, r)] for r in range(h.shape[0])]
            st.rounds += ts.rounds
            st.accepted += ts.accepted
    st.makespan = clock
    st.serial_makespan = serial_clock
    st.critical_path = ideal
    return st


# ----------------------------------------------------------------------------- throughput model


def expected_tokens(alpha: float, k: int) -> float:
    """E = (1 - alpha^(k+1)) / (1 - alpha): tokens per request per round with i.i.d. acceptance."""
    check_positive("alpha", alpha, strict=False)
    if alpha > 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}")
    check_int("k", k, minimum=0)
    return float(k + 1) if alpha == 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


def psd_speedup_model(k: int, t_d: float, t_v: float) -> float:
    """Modelled PSD/SD throughput ratio (k t_d + t_v) / max(k t_d, t_v), in [1, 2]."""
    check_int("k", k, minimum=1)
    check_positive("t_d", t_d)
    check_positive("t_v", t_v)
    return (k * t_d + t_v) / max(k * t_d, t_v)
