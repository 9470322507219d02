"""Dendritic Hierarchical Scheduling (DHS) of the Hines tree solve, its adjoint, and a
differentiable Hodgkin-Huxley compartmental simulator built on them.

HelioX (ICML 2026, https://icml.cc/virtual/2026/poster/63365) runs the tree-structured
linear solve of every implicit-Euler step of a multi-compartment neuron with the DHS
schedule of DeepDendrite (Zhang et al., Nat. Commun. 14:5798, 2023,
doi:10.1038/s41467-023-41553-7) and back-propagates through it with a hand-written
adjoint (transposed) tree solve instead of a generic autodiff tape. This module holds the
numerical core in our own words:

* the Hines matrix of a tree (nodes numbered so that ``parent[i] < i``, root 0):
  ``A[i, i] = d[i]``, ``A[i, parent[i]] = b[i]`` (effect of the parent on node i) and
  ``A[parent[i], i] = a[i]`` (effect of node i on its parent) -- NEURON's convention;
* :func:`hines_solve`: the serial O(N) solve (triangularise leaves-to-root, then
  back-substitute root-to-leaves; card eq. of step 2);
* :func:`dhs_schedule`: DHS -- at every step the candidates are the unprocessed nodes
  whose children are all processed; the ``k`` deepest candidates are processed together
  (highest-level-first list scheduling, which is optimal for unit-time in-trees);
* :func:`dhs_solve`: the solve replayed step by step over that schedule, vectorised over
  the nodes of one step (siblings that update the same parent are accumulated with a
  scatter-add, the CPU analogue of an atomic add) and over a batch of cells;
* :func:`tree_solve`: a ``torch.autograd.Function`` whose backward is the adjoint solve
  ``lambda = A^{-T} g`` on the same tree and schedule, ``dl/drhs = lambda``,
  ``dl/dd_i = -lambda_i x_i``, ``dl/da_i = -lambda_p x_i``, ``dl/db_i = -lambda_i x_p``;
* :func:`simulate`: NEURON's fixed-step scheme (backward Euler for V with the currents
  linearised at V^n, then exponential-Euler ``cnexp`` gate updates at V^{n+1}; the
  ``hh`` and ``pas`` mechanisms, an ``IClamp``), differentiable with respect to the
  channel densities.

Units follow NEURON: um, ms, mV, uF/cm2, mA/cm2 (densities), S/cm2, nA, MOhm, Ohm cm.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from icml26.core.validate import as_array, as_rng, check_int, check_positive

# --------------------------------------------------------------------------- trees


def validate_parent(parent: Sequence[int] | np.ndarray) -> np.ndarray:
    """Check a parent array (``parent[0] == -1``, ``0 <= parent[i] < i``) and return it as int64."""
    p = np.asarray(parent)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"parent must be a non-empty 1-D array, got shape {p.shape}")
    if not np.issubdtype(p.dtype, np.integer):
        raise ValueError(f"parent must hold integers, got dtype {p.dtype}")
    p = p.astype(np.int64)
    if p[0] != -1:
        raise ValueError(f"parent[0] must be -1 (node 0 is the root), got {p[0]}")
    idx = np.arange(1, p.size)
    if np.any(p[1:] < 0) or np.any(p[1:] >= idx):
        raise ValueError("parent must satisfy 0 <= parent[i] < i for every i >= 1 "
                         "(number the nodes so that parents precede children)")
    return p


def tree_depth(parent: Sequence[int] | np.ndarray) -> np.ndarray:
    """Distance of every node from the root: ``(N,)`` int array."""
    p = validate_parent(parent)
    depth = np.zeros(p.size, dtype=np.int64)
    for i in range(1, p.size):
        depth[i] = depth[p[i]] + 1
    return depth


def random_tree(n: int, rng: np.random.Generator, branchiness: float = 0.3) -> np.ndarray:
    """A random tree of ``n`` nodes with ``parent[i] < i``.

    With probability ``1 - branchiness`` node i continues the previous node (a cable),
    otherwise it branches off a uniformly chosen earlier node, so that the trees look like
    dendrites (long unbranched runs with occasional branch points).
    """
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    branchiness = check_positive("branchiness", branchiness, strict=False)
    if branchiness > 1.0:
        raise ValueError(f"branchiness must lie in [0, 1], got {branchiness}")
    parent = np.full(n, -1, dtype=np.int64)
    for i in range(1, n):
        parent[i] = i - 1 if rng.random() > branchiness else rng.integers(0, i)
    return parent


# ----------------------------------------------------------------------- schedules


def dhs_schedule(parent: Sequence[int] | np.ndarray, k: int) -> list[np.ndarray]:
    """DHS triangularisation schedule with ``k`` parallel threads per tree.

    Returns the list of steps; step ``s`` is the array of nodes eliminated together
    (each into its parent; the root, last, is only divided by its pivot). Candidates
    are the unprocessed nodes all of whose children are processed; each step takes the
    ``k`` deepest candidates (ties: larger index first, a deterministic choice).
    Back-substitution replays the steps in reverse order.
    """
    p = validate_parent(parent)
    k = check_int("k", k, minimum=1)
    n = p.size
    depth = tree_depth(p)
    pending = np.bincount(p[1:], minlength=n)  # unprocessed children per node
    # candidates kept as a heap keyed by (-depth, -index)
    import heapq

    heap = [(-int(depth[i]), -i) for i in range(n) if pending[i] == 0]
    heapq.heapify(heap)
    steps: list[np.ndarray] = []
    while heap:
        take = [heapq.heappop(heap) for _ in range(min(k, len(heap)))]
        nodes = np.array([-t[1] for t in take], dtype=np.int64)
        steps.append(nodes)
        for i in nodes:  # parents become candidates only for the next step
            if i > 0:
                q = p[i]
                pending[q] -= 1
                if pending[q] == 0:
                    heapq.heappush(heap, (-int(depth[q]), -int(q)))
    return steps


def serial_schedule(parent: Sequence[int] | np.ndarray) -> list[np.ndarray]:
    """The classic Hines order: one node per step, N-1 down to 0."""
    p = validate_parent(parent)
    return [np.array([i], dtype=np.int64) for i in range(p.size - 1, -1, -1)]


def check_schedule(parent: Sequence[int] | np.ndarray, steps: Sequence[np.ndarray], k: int) -> None:
    """Raise ``ValueError`` unless ``steps`` processes every node once, at most ``k`` per step,
    each node after all its children."""
    p = validate_parent(parent)
    done = np.zeros(p.size, dtype=bool)
    pending = np.bincount(p[1:], minlength=p.size)
    for s, nodes in enumerate(steps):
        nodes = np.asarray(nodes, dtype=np.int64)
        if nodes.size == 0 or nodes.size > k:
            raise ValueError(f"step {s} holds {nodes.size} nodes; need 1..{k}")
        if np.any(done[nodes]) or np.unique(nodes).size != nodes.size:
            raise ValueError(f"step {s} repeats a node")
        if np.any(pending[nodes] > 0):
            raise ValueError(f"step {s} processes a node before its children")
        done[nodes] = True
        for i in nodes:
            if i > 0:
                pending[p[i]] -= 1
    if not done.all():
        raise ValueError(f"schedule misses nodes {np.flatnonzero(~done).tolist()}")


def optimal_steps_bruteforce(parent: Sequence[int] | np.ndarray, k: int) -> int:
    """Fewest steps of any valid schedule with ``k`` threads, by exhaustive search.

    Breadth-first search over the sets of processed nodes (bit masks); from each set every
    non-empty subset of at most ``k`` ready nodes is tried. Exponential: ``N <= 16``.
    """
    from itertools import combinations

    p = validate_parent(parent)
    n = p.size
    if n > 16:
        raise ValueError(f"brute force is limited to N <= 16 nodes, got {n}")
    k = check_int("k", k, minimum=1)
    child_mask = np.zeros(n, dtype=np.int64)
    for i in range(1, n):
        child_mask[p[i]] |= 1 << i
    full = (1 << n) - 1
    frontier = {0}
    seen = {0}
    steps = 0
    while full not in frontier:
        steps += 1
        nxt = set()
        for done in frontier:
            ready = [i for i in range(n) if not (done >> i) & 1 and (child_mask[i] & done) == child_mask[i]]
            for r in range(1, min(k, len(ready)) + 1):
                for sub in combinations(ready, r):
                    m = done
                    for i in sub:
                        m |= 1 << i
                    if m not in seen:
                        seen.add(m)
                        nxt.add(m)
        frontier = nxt
    return steps


# --------------------------------------------------------------------------- solves


def _check_system(parent: np.ndarray, d, a, b, rhs) -> None:
    n = parent.size
    shape = tuple(rhs.shape)
    for name, x in (("d", d), ("a", a), ("b", b), ("rhs", rhs)):
        if x.ndim not in (1, 2) or x.shape[0] != n:
            raise ValueError(f"{name} must be (N,) or (N, B) with N={n} (nodes first), got shape {tuple(x.shape)}")
        if tuple(x.shape) != shape:
            raise ValueError(f"{name} must have the shape of rhs {shape}, got {tuple(x.shape)}")
        bad = ~torch.isfinite(x) if isinstance(x, torch.Tensor) else ~np.isfinite(x)
        if bad.any():
            raise ValueError(f"{name} holds NaN or inf")


def _check_solution(x) -> None:
    ok = bool(torch.isfinite(x).all()) if isinstance(x, torch.Tensor) else bool(np.all(np.isfinite(x)))
    if not ok:
        raise ValueError("the system is singular or badly scaled: a pivot of d vanished during elimination "
                         "(the solution is not finite)")


def hines_solve(parent, d, a, b, rhs) -> np.ndarray:
    """Serial Hines solve of ``A x = rhs`` (reference implementation, one node at a time).

    parent: (N,); d, a, b: (N,) or (N, B); rhs: (N,) or (N, B). ``a[0]``, ``b[0]`` unused.
    """
    p = validate_parent(parent)
    d = np.array(as_array("d", d), dtype=float)
    rhs = np.array(as_array("rhs", rhs), dtype=float)
    a = as_array("a", a)
    b = as_array("b", b)
    _check_system(p, d, a, b, rhs)
    n = p.size
    for i in range(n - 1, 0, -1):
        f = a[i] / d[i]
        d[p[i]] -= f * b[i]
        rhs[p[i]] -= f * rhs[i]
    x = np.empty_like(rhs)
    x[0] = rhs[0] / d[0]
    for i in range(1, n):
        x[i] = (rhs[i] - b[i] * x[p[i]]) / d[i]
    _check_solution(x)
    return x


@dataclass(frozen=True)
class Plan:
    """A DHS schedule turned into index arrays for the vectorised solve.

    ``nodes[s]`` (torch) / ``np_nodes[s]`` (numpy): the nodes of step s without the root;
    ``parents[s]`` / ``np_parents[s]``: their parents; ``unique[s]``: whether no two of them
    share a parent (then a plain fancy-index update is safe, else a scatter-add is used).
    """

    parent: np.ndarray
    k: int
    nodes: tuple[torch.Tensor, ...]
    parents: tuple[torch.Tensor, ...]
    np_nodes: tuple[np.ndarray, ...]
    np_parents: tuple[np.ndarray, ...]
    unique: tuple[bool, ...]

    @property
    def steps(self) -> int:
        """Number of parallel steps of the triangularisation (root included)."""
        return len(self.nodes)


def make_plan(parent, k: int, device: str | torch.device = "cpu") -> Plan:
    """Compute the DHS schedule for ``k`` threads and store it as index arrays."""
    p = validate_parent(parent)
    steps = dhs_schedule(p, k)
    nodes, parents, np_nodes, np_parents, unique = [], [], [], [], []
    for s in steps:
        s = np.sort(s[s != 0])
        np_nodes.append(s)
        np_parents.append(p[s])
        unique.append(bool(np.unique(p[s]).size == s.size))
        nodes.append(torch.as_tensor(s, dtype=torch.long, device=device))
        parents.append(torch.as_tensor(p[s], dtype=torch.long, device=device))
    return Plan(p, int(k), tuple(nodes), tuple(parents), tuple(np_nodes), tuple(np_parents),
                tuple(unique))


def _dhs_solve_numpy(plan: Plan, d: np.ndarray, a: np.ndarray, b: np.ndarray,
                     rhs: np.ndarray) -> np.ndarray:
    """The DHS-ordered solve on numpy arrays laid out nodes-first ``(N, ...)``."""
    d = d.copy()
    rhs = rhs.copy()
    for idx, par, uniq in zip(plan.np_nodes, plan.np_parents, plan.unique):
        if idx.size == 0:
            continue
        if idx.size == 1:  # one node this step: integer (view) indexing, the same arithmetic, less overhead
            i, p = idx.item(), par.item()
            f = a[i] / d[i]
            d[p] -= f * b[i]
            rhs[p] -= f * rhs[i]
            continue
        f = a[idx] / d[idx]
        if uniq:
            d[par] -= f * b[idx]
            rhs[par] -= f * rhs[idx]
        else:  # siblings sharing a parent: accumulate (the atomic add of a GPU kernel)
            np.subtract.at(d, par, f * b[idx])
            np.subtract.at(rhs, par, f * rhs[idx])
    x = np.empty_like(rhs)
    x[0] = rhs[0] / d[0]
    for idx, par in zip(reversed(plan.np_nodes), reversed(plan.np_parents)):
        if idx.size == 1:
            i, p = idx.item(), par.item()
            x[i] = (rhs[i] - b[i] * x[p]) / d[i]
        elif idx.size:
            x[idx] = (rhs[idx] - b[idx] * x[par]) / d[idx]
    return x


def _dhs_solve_tensor(plan: Plan, d: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
                      rhs: torch.Tensor) -> torch.Tensor:
    """The DHS-ordered solve on tensors laid out nodes-first: ``(N, ...)``. Pure torch ops
    (differentiable by autograd as well; :func:`tree_solve` replaces that tape by the adjoint)."""
    d = d.clone()
    rhs = rhs.clone()
    for idx, par in zip(plan.nodes, plan.parents):
        if idx.numel() == 0:
            continue
        f = a[idx] / d[idx]
        # siblings in one step may share a parent: accumulate with a scatter-add
        d = d.index_add(0, par, -f * b[idx])
        rhs = rhs.index_add(0, par, -f * rhs[idx])
    x = torch.empty_like(rhs)
    x[0] = rhs[0] / d[0]
    for idx, par in zip(reversed(plan.nodes), reversed(plan.parents)):
        if idx.numel() == 0:
            continue
        x[idx] = (rhs[idx] - b[idx] * x[par]) / d[idx]
    return x


def dhs_solve_autograd(plan: Plan, d: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
                       rhs: torch.Tensor) -> torch.Tensor:
    """The DHS solve recorded op by op on autograd's tape: the generic-autodiff baseline that
    :func:`tree_solve`'s hand-written adjoint replaces. Tensors nodes-first ``(N,)`` or ``(N, B)``."""
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a Plan from make_plan, got {type(plan).__name__}")
    for name, x in (("d", d), ("a", a), ("b", b), ("rhs", rhs)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")
    _check_system(plan.parent, d, a, b, rhs)
    return _dhs_solve_tensor(plan, d, a, b, rhs)


def dhs_solve(plan: Plan, d, a, b, rhs):
    """Solve the Hines system ``A x = rhs`` over the DHS schedule in ``plan``.

    d, a, b, rhs: ``(N,)`` or ``(N, B)`` numpy arrays or tensors (B cells of one
    morphology, nodes first). Returns x with the shape and type of ``rhs``.
    """
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a Plan from make_plan, got {type(plan).__name__}")
    if isinstance(rhs, torch.Tensor):
        t = [torch.as_tensor(as_array(n, x), dtype=rhs.dtype, device=rhs.device)
             for n, x in (("d", d), ("a", a), ("b", b), ("rhs", rhs))]
        _check_system(plan.parent, *t)
        with torch.no_grad():
            x = _dhs_solve_tensor(plan, *t)
    else:
        t = [as_array(n, x) for n, x in (("d", d), ("a", a), ("b", b), ("rhs", rhs))]
        _check_system(plan.parent, *t)
        x = _dhs_solve_numpy(plan, *t)
    _check_solution(x)
    return x


class _TreeSolve(torch.autograd.Function):
    """``x = A^{-1} rhs`` with a hand-written adjoint tree solve as backward."""

    @staticmethod
    def forward(ctx, d, a, b, rhs, plan):  # noqa: D401
        with torch.no_grad():
            x = _dhs_solve_tensor(plan, d, a, b, rhs)
        ctx.plan = plan
        ctx.save_for_backward(d, a, b, x)
        return x

    @staticmethod
    def backward(ctx, g):
        d, a, b, x = ctx.saved_tensors
        plan = ctx.plan
        with torch.no_grad():
            # A^T has the same pattern with the two off-diagonals swapped
            lam = _dhs_solve_tensor(plan, d, b, a, g)
            par = torch.as_tensor(np.maximum(plan.parent, 0), device=x.device)
            grad_d = -lam * x
            grad_a = -lam[par] * x      # dl/dA[p,i] = -lambda_p x_i
            grad_b = -lam * x[par]      # dl/dA[i,p] = -lambda_i x_p
            grad_a[0] = 0.0
            grad_b[0] = 0.0
        return grad_d, grad_a, grad_b, lam, None


def tree_solve(plan: Plan, d: torch.Tensor, a: torch.Tensor, b: torch.Tensor,
               rhs: torch.Tensor) -> torch.Tensor:
    """Differentiable DHS solve: forward over the schedule, backward = adjoint DHS solve.

    Tensors are nodes-first ``(N,)`` or ``(N, B)``; broadcasting of ``a``/``b`` across
    cells is not done here (pass full shapes).
    """
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a Plan from make_plan, got {type(plan).__name__}")
    for name, x in (("d", d), ("a", a), ("b", b), ("rhs", rhs)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"{name} must be a torch tensor (use dhs_solve for numpy arrays), got {type(x).__name__}")
        if not x.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    _check_system(plan.parent, d, a, b, rhs)
    x = _TreeSolve.apply(d, a, b, rhs, plan)
    _check_solution(x.detach())
    return x


def hines_matrix(parent, d, a, b):
    """The dense-pattern sparse matrix ``A`` (scipy CSR) of one tree system (for checks)."""
    import scipy.sparse as sp

    p = validate_parent(parent)
    n = p.size
    i = np.arange(1, n)
    rows = np.concatenate([np.arange(n), i, p[1:]])
    cols = np.concatenate([np.arange(n), p[1:], i])
    vals = np.concatenate([np.asarray(d, float), np.asarray(b, float)[1:], np.asarray(a, float)[1:]])
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


# ---------------------------------------------------------------------- morphology


@dataclass(frozen=True)
class Section:
    """An unbranched cylinder: ``nseg`` compartments, attached with its 0-end to the centre of
    segment ``parent_seg`` of section ``parent`` (``parent=-1`` for the root section)."""

    name: str
    L: float       # um
    diam: float    # um
    nseg: int
    parent: int = -1
    parent_seg: int = 0

    def __post_init__(self) -> None:
        check_positive("L", self.L)
        check_positive("diam", self.diam)
        check_int("nseg", self.nseg, minimum=1)
        check_int("parent", self.parent, minimum=-1)
        check_int("parent_seg", self.parent_seg, minimum=0)


@dataclass(frozen=True)
class Morphology:
    """Compartments of a cell: ``parent`` (N,), ``area`` (N,) um^2, ``ri`` (N,) MOhm between a
    node and its parent (``ri[0]`` unused), ``section`` (N,) section index of each node,
    and ``first`` (S,) node index of each section's segment 0."""

    sections: tuple[Section, ...]
    parent: np.ndarray
    area: np.ndarray
    ri: np.ndarray
    section: np.ndarray
    first: np.ndarray

    @property
    def n(self) -> int:
        return self.parent.size


def build_morphology(sections: Sequence[Section], Ra: float = 100.0) -> Morphology:
    """Discretise sections into compartments the way NEURON places nodes at segment centres.

    Axial resistance between adjacent centres of one section is ``Ra * (L/nseg) / (pi r^2)``;
    the first segment of a child is half a segment away from its attachment point (the centre
    of the parent's segment), as NEURON's ``seg.ri()`` reports.
    """
    if not sections:
        raise ValueError("sections must not be empty")
    Ra = check_positive("Ra", Ra)
    parent, area, ri, sec_of, first = [], [], [], [], []
    for s_idx, s in enumerate(sections):
        if s.nseg < 1 or s.L <= 0 or s.diam <= 0:
            raise ValueError(f"section {s.name!r} needs nseg >= 1, L > 0, diam > 0")
        if s_idx == 0 and s.parent != -1:
            raise ValueError("the first section must be the root (parent=-1)")
        if s_idx > 0 and not 0 <= s.parent < s_idx:
            raise ValueError(f"section {s.name!r}: parent must be an earlier section index")
        if s_idx > 0 and not 0 <= s.parent_seg < sections[s.parent].nseg:
            raise ValueError(f"section {s.name!r}: parent_seg out of range")
        seg_len = s.L / s.nseg
        r_seg = Ra * seg_len / (np.pi * (s.diam / 2.0) ** 2) * 1e-2  # MOhm
        first.append(len(parent))
        for j in range(s.nseg):
            node = len(parent)
            if j == 0:
                parent.append(-1 if s_idx == 0 else first[s.parent] + s.parent_seg)
                ri.append(0.5 * r_seg if s_idx > 0 else 0.0)
            else:
                parent.append(node - 1)
                ri.append(r_seg)
            area.append(np.pi * s.diam * seg_len)
            sec_of.append(s_idx)
    return Morphology(tuple(sections), validate_parent(np.array(parent)), np.array(area),
                      np.array(ri), np.array(sec_of), np.array(first))


def ball_and_stick(nseg: int = 51, soma_L: float = 20.0, soma_diam: float = 20.0,
                   dend_L: float = 500.0, dend_diam: float = 2.0, Ra: float = 100.0) -> Morphology:
    """Soma (one compartment) with one dendrite of ``nseg`` compartments attached at soma(0.5)."""
    for name, v in (("soma_L", soma_L), ("soma_diam", soma_diam), ("dend_L", dend_L), ("dend_diam", dend_diam),
                    ("Ra", Ra)):
        check_positive(name, v)
    check_int("nseg", nseg, minimum=1)
    return build_morphology([Section("soma", soma_L, soma_diam, 1),
                             Section("dend", dend_L, dend_diam, nseg, parent=0, parent_seg=0)], Ra)


def y_neuron(nseg: int = 50, n_dend: int = 3, Ra: float = 100.0) -> Morphology:
    """Soma with ``n_dend`` dendrites of ``nseg`` compartments each (star-shaped cell)."""
    secs = [Section("soma", 20.0, 20.0, 1)]
    secs += [Section(f"dend{i}", 300.0, 1.5, nseg, parent=0, parent_seg=0) for i in range(n_dend)]
    return build_morphology(secs, Ra)


# ----------------------------------------------------------------------- mechanisms


class _NumpyOps:
    exp, expm1, where, abs = np.exp, np.expm1, np.where, np.abs

    @staticmethod
    def full_like(x, value):
        return np.full_like(x, value)

    @staticmethod
    def index_add(x, idx, val):
        out = x.copy()
        np.add.at(out, idx, val)
        return out


class _TorchOps:
    exp, expm1, where, abs = torch.exp, torch.expm1, torch.where, torch.abs

    @staticmethod
    def full_like(x, value):
        return torch.full_like(x, value)

    @staticmethod
    def index_add(x, idx, val):
        return x.index_add(0, idx, val)


def _ops(x):
    return _TorchOps if isinstance(x, torch.Tensor) else _NumpyOps


def _vtrap(x, y: float):
    """``x / (exp(x/y) - 1)`` with its limit ``y (1 - x/y/2)`` near 0, as in ``hh.mod``."""
    xp = _ops(x)
    small = xp.abs(x / y) < 1e-6
    xs = xp.where(small, xp.full_like(x, y), x)  # keeps the unused branch finite
    return xp.where(small, y * (1 - x / y / 2), xs / xp.expm1(xs / y))


def hh_rates(v, celsius: float = 6.3):
    """Steady states and time constants (ms) of the HH gates m, h, n at membrane voltage v (mV),
    as in NEURON's ``hh.mod`` (q10 = 3^((celsius - 6.3)/10)). Works on arrays or tensors.

    Returns ``(minf, mtau, hinf, htau, ninf, ntau)``.
    """
    xp = _ops(v)
    q10 = 3.0 ** ((celsius - 6.3) / 10.0)
    am = 0.1 * _vtrap(-(v + 40.0), 10.0)
    bm = 4.0 * xp.exp(-(v + 65.0) / 18.0)
    ah = 0.07 * xp.exp(-(v + 65.0) / 20.0)
    bh = 1.0 / (xp.exp(-(v + 35.0) / 10.0) + 1.0)
    an = 0.01 * _vtrap(-(v + 55.0), 10.0)
    bn = 0.125 * xp.exp(-(v + 65.0) / 80.0)
    out = []
    for al, be in ((am, bm), (ah, bh), (an, bn)):
        tot = al + be
        out += [al / tot, 1.0 / (q10 * tot)]
    return tuple(out)


@dataclass
class Biophysics:
    """Per-node membrane parameters, arrays/tensors ``(N,)`` or ``(N, B)``: capacitance ``cm``
    (uF/cm2), HH densities ``gnabar``, ``gkbar``, ``gl`` (S/cm2) and the passive leak
    ``g_pas`` (S/cm2) with reversal ``e_pas`` (mV). Reversals ena=50, ek=-77, el=-54.3 mV
    (NEURON's defaults for ``hh``)."""

    cm: object
    gnabar: object
    gkbar: object
    gl: object
    g_pas: object
    e_pas: object
    ena: float = 50.0
    ek: float = -77.0
    el: float = -54.3


def soma_hh_dend_pas(morph: "Morphology", gnabar: float = 0.12, gkbar: float = 0.036,
                     gl: float = 0.0003, g_pas: float = 0.001, e_pas: float = -65.0,
                     cm: float = 1.0) -> Biophysics:
    """HH channels in the root section (soma), a passive leak everywhere else (numpy arrays)."""
    soma = (morph.section == 0).astype(float)
    return Biophysics(cm=np.full(morph.n, cm), gnabar=gnabar * soma, gkbar=gkbar * soma,
                      gl=gl * soma, g_pas=g_pas * (1 - soma), e_pas=np.full(morph.n, e_pas))


@dataclass(frozen=True)
class Stimulus:
    """IClamp: ``amp`` nA into node ``node`` while ``delay <= t < delay + dur`` (ms), t taken at
    the middle of the step as NEURON's fixed-step integrator does."""

    node: int
    delay: float
    dur: float
    amp: float

    def __post_init__(self) -> None:
        check_int("node", self.node, minimum=0)
        check_positive("delay", self.delay, strict=False)
        check_positive("dur", self.dur, strict=False)
        if isinstance(self.amp, bool) or not isinstance(self.amp, (int, float, np.integer, np.floating)):
            raise TypeError(f"amp must be a number, got {type(self.amp).__name__}")
        if not np.isfinite(self.amp):
            raise ValueError(f"amp must be finite, got {self.amp}")


def axial_conductances(morph: "Morphology") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The cable's axial coupling of ``morph`` as the Hines matrix needs it: ``(parent, g_own, g_par,
    axial_d)``, with ``parent`` the parent index (the root mapped to 0), ``g_own[i]`` / ``g_par[i]`` the
    axial conductance density (mA/cm2 per mV) between node ``i`` and its parent seen in ``i``'s row and in
    the parent's row (0 at the root), and ``axial_d`` their sum on the diagonal of every row."""
    if not isinstance(morph, Morphology):
        raise TypeError(f"morph must be a Morphology, got {type(morph).__name__}")
    par_np = np.maximum(morph.parent, 0)
    ri = morph.ri
    with np.errstate(divide="ignore"):
        g_own = np.where(ri > 0, 100.0 / (np.where(ri > 0, ri, 1.0) * morph.area), 0.0)
        g_par = np.where(ri > 0, 100.0 / (np.where(ri > 0, ri, 1.0) * morph.area[par_np]), 0.0)
    g_own[0] = g_par[0] = 0.0
    axial_d = g_own.copy()
    np.add.at(axial_d, par_np[1:], g_par[1:])
    return par_np, g_own, g_par, axial_d


def simulate(morph: Morphology, bio: Biophysics, stim: Stimulus, t_stop: float, dt: float = 0.025,
             v_init: float = -65.0, plan: Plan | None = None, celsius: float = 6.3,
             batch: int = 1, record: Sequence[int] = (0,), backend: str = "numpy",
             adjoint: bool = True, amp=None):
    """Run NEURON's fixed-step scheme; return voltages ``(n_steps + 1, len(record), B)``.

    Each step: currents and conductances at V^n with the present gates; the Hines system
    ``(1e-3 cm/dt + g_ion) dV - axial(dV) = -i_ion(V^n) + i_axial(V^n) + i_stim`` (mA/cm2) is
    solved for ``dV`` over the DHS schedule; ``V^{n+1} = V^n + dV``; then every HH gate x is
    advanced exactly for fixed V^{n+1}: ``x += (1 - exp(-dt/tau_x)) (x_inf - x)`` (cnexp).

    backend="numpy": forward only. backend="torch": differentiable in the ``Biophysics``
    tensors and ``amp``; ``adjoint=True`` back-propagates through each solve with the
    adjoint tree solve of :func:`tree_solve`, ``adjoint=False`` records the solve's own ops
    on autograd's tape (the generic-autodiff baseline). ``amp``: optional per-cell ``(B,)``
    stimulus amplitudes (nA) replacing ``stim.amp``.
    """
    t_stop, dt = check_positive("t_stop", t_stop), check_positive("dt", dt)
    for name, val in (("v_init", v_init), ("celsius", celsius)):
        if isinstance(val, bool) or not isinstance(val, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number, got {type(val).__name__}")
        if not np.isfinite(val):
            raise ValueError(f"{name} must be finite, got {val}")
    batch = check_int("batch", batch, minimum=1)
    if not isinstance(morph, Morphology):
        raise TypeError(f"morph must be a Morphology, got {type(morph).__name__}")
    if not isinstance(stim, Stimulus):
        raise TypeError(f"stim must be a Stimulus, got {type(stim).__name__}")
    record = [check_int("record", r, minimum=0) for r in record]
    if not record or max(record) >= morph.n:
        raise ValueError(f"record must name compartments in [0, {morph.n}), got {record}")
    if backend not in ("numpy", "torch"):
        raise ValueError(f"backend must be 'numpy' or 'torch', got {backend!r}")
    n = morph.n
    if not 0 <= stim.node < n:
        raise ValueError(f"stim.node must be in [0, {n}), got {stim.node}")
    if plan is None:
        plan = make_plan(morph.parent, k=32)
    elif plan.parent.size != n or np.any(plan.parent != morph.parent):
        raise ValueError("plan was made for a different tree than morph")
    use_torch = backend == "torch"
    xp = _TorchOps if use_torch else _NumpyOps

    def arr(x):
        return torch.as_tensor(x, dtype=torch.float64) if use_torch else np.asarray(x, dtype=float)

    par_np, g_own, g_par, axial_d = axial_conductances(morph)
    stim_col = np.zeros((n, 1))
    stim_col[stim.node] = 100.0 / morph.area[stim.node]
    b_off = arr(np.repeat(-g_own[:, None], batch, axis=1))
    a_off = arr(np.repeat(-g_par[:, None], batch, axis=1))
    g_own_c, g_par_c, axial_c, stim_c = (arr(x) for x in (g_own[:, None], g_par[1:, None],
                                                          axial_d[:, None], stim_col))
    par = torch.as_tensor(par_np) if use_torch else par_np
    par1 = par[1:]

    def col(name, x):
        x = x if (use_torch and isinstance(x, torch.Tensor)) else arr(as_array(f"bio.{name}", x))
        if x.ndim not in (1, 2) or x.shape[0] != n:
            raise ValueError(f"bio.{name} needs N={n} rows, got shape {tuple(x.shape)}")
        bad = not bool(torch.isfinite(x).all()) if isinstance(x, torch.Tensor) else not np.all(np.isfinite(x))
        if bad:
            raise ValueError(f"bio.{name} holds NaN or inf")
        return x[:, None] if x.ndim == 1 else x

    cm, gna, gk, gl, gp, ep = (col(f, getattr(bio, f)) for f in ("cm", "gnabar", "gkbar", "gl", "g_pas", "e_pas"))
    if bool((cm <= 0).any()):
        raise ValueError("bio.cm (membrane capacitance) must be > 0 everywhere")
    for f, g in (("gnabar", gna), ("gkbar", gk), ("gl", gl), ("g_pas", gp)):
        if bool((g < 0).any()):
            raise ValueError(f"bio.{f} must be >= 0")
    if amp is not None:
        a_chk = amp.detach() if isinstance(amp, torch.Tensor) else as_array("amp", amp)
        size = a_chk.numel() if isinstance(a_chk, torch.Tensor) else a_chk.size
        if size != batch:
            raise ValueError(f"amp must hold one amplitude per cell ({batch}), got {size}")
        if not (bool(torch.isfinite(a_chk).all()) if isinstance(a_chk, torch.Tensor) else np.all(np.isfinite(a_chk))):
            raise ValueError("amp holds NaN or inf")
    amp_b = arr(np.full(batch, float(stim.amp))) if amp is None else arr(amp).reshape(batch) \
        if not (use_torch and isinstance(amp, torch.Tensor)) else amp.reshape(batch)

    v = arr(np.full((n, batch), float(v_init)))
    m, _, h, _, ng, _ = hh_rates(v, celsius)
    rec = list(record)
    out = [v[rec]]
    n_steps = int(round(t_stop / dt))
    chain = None
    if use_torch and adjoint:
        from icml26.science.heliox.network import _ChainSolve, _chain_order
        chain = _chain_order(plan)
    if chain is not None:
        # one node per schedule step (a chain such as ball-and-stick, whose DHS schedule is serial):
        # the same forward solve and adjoint, operation for operation, as tree_solve (no gradient is
        # formed for the constant off-diagonals), without its per-step input checks; the trace is
        # checked once at the end instead
        def solve(_plan, d, a, b, rhs):
            return _ChainSolve.apply(d, a, b, rhs, chain)
    elif use_torch:
        solve = tree_solve if adjoint else _dhs_solve_tensor
    else:
        solve = _dhs_solve_numpy
    d_cap = 1e-3 * cm / dt + axial_c
    for step in range(n_steps):
        t_mid = (step + 0.5) * dt
        g_na = gna * m ** 3 * h
        g_k = gk * ng ** 4
        i_ion = g_na * (v - bio.ena) + g_k * (v - bio.ek) + gl * (v - bio.el) + gp * (v - ep)
        i_ax = g_own_c * (v[par] - v)
        i_ax = xp.index_add(i_ax, par1, g_par_c * (v[1:] - v[par1]))
        rhs = i_ax - i_ion
        if stim.delay <= t_mid < stim.delay + stim.dur:
            rhs = rhs + stim_c * amp_b[None, :]
        d = d_cap + (g_na + g_k + gl + gp)
        v = v + solve(plan, d, a_off, b_off, rhs)
        m_inf, m_tau, h_inf, h_tau, n_inf, n_tau = hh_rates(v, celsius)
        m = m + (1.0 - xp.exp(-dt / m_tau)) * (m_inf - m)
        h = h + (1.0 - xp.exp(-dt / h_tau)) * (h_inf - h)
        ng = ng + (1.0 - xp.exp(-dt / n_tau)) * (n_inf - ng)
        out.append(v[rec])
    if chain is not None:
        _check_solution(v.detach())
        _check_solution(torch.stack([o.detach() for o in out]))
    return torch.stack(out) if use_torch else np.stack(out)


def spike_times(v, dt: float, threshold: float = 0.0) -> np.ndarray:
    """Upward threshold crossings of a sampled trace ``v`` (``(T,)``, sample i at ``i*dt``),
    linearly interpolated between samples (ms)."""
    v = as_array("v", v, ndim=1)
    dt = check_positive("dt", dt)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.integer, np.floating)) \
            or not np.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    i = np.flatnonzero((v[:-1] < threshold) & (v[1:] >= threshold))
    frac = (threshold - v[i]) / (v[i + 1] - v[i])
    return (i + frac) * dt
