"""Complete verification of small ReLU MLPs by mixed-integer linear programming (HiGHS via scipy).

The paper re-certifies the networks on its Pareto fronts with complete verifiers, because incomplete
bounds (IBP, CROWN-IBP) penalise methods such as SABR and MTL-IBP whose networks are only tight under
stronger verification. Our 64-64-64-10 MLPs are small enough for the exact MILP encoding of
Tjeng et al. (2019): for a test point ``x`` with label ``y`` and each class ``j != y``, is there

    x' in B(x, eps) ∩ [0, 1]^d  with  z_y(x') - z_j(x') <= 0 ?

Every unstable ReLU ``a = max(z, 0)``, ``l < z < u``, is encoded by a binary ``delta``:
``a >= 0, a >= z, a <= u delta, a <= z - l (1 - delta)``; stable ReLUs are linear. The bounds ``l, u``
are the tighter of IBP and layer-wise CROWN (:func:`.bounds.crown_intermediate_bounds`), and classes
whose CROWN margin bound is already positive are not solved. The margin condition is a constraint
(the objective, the margin itself, only guides the search), so any node whose relaxation has a
positive minimum is pruned, and the solve stops at the first counterexample: infeasible means the
class is safe, a feasible point is a counterexample. The point is ``certified`` iff every class is
safe, ``falsified`` if one has a counterexample, else ``unknown`` (a solve stopped by its node limit
or its time limit), counted as not certified, so :func:`exact_certify` is a sound lower bound on
certified accuracy that equals the exact value whenever no point is left unknown.

Determinism: a solve is limited by ``node_limit`` (a count, the same on every machine); ``time_limit``
is only a safety cap, and solves that hit it are counted (``n_time_capped``) so a reader knows when
a result could depend on the machine's speed.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn

from icml26.core.validate import check_finite, check_int, check_positive
from icml26.vision.certified_pareto.bounds import (
    _check_model,
    crown_ibp_lower,
    crown_intermediate_bounds,
    input_box,
    margin_spec,
)

CERTIFIED, FALSIFIED, UNKNOWN = "certified", "falsified", "unknown"
#: a class whose CROWN lower margin bound exceeds this is proven safe without a solve (float64 bounds)
_SAFE_MARGIN = 1e-7


def _affine_layers(model: nn.Module) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(m.weight.detach().double().numpy(), m.bias.detach().double().numpy())
            for m in _check_model(model) if isinstance(m, nn.Linear)]


def _encode(layers, pre, lo_in: np.ndarray, hi_in: np.ndarray):
    """Variables, bounds, integrality and the constraint matrix of the network's MILP encoding.

    Variable blocks: ``x'`` (d), then per hidden layer ``(z, a, delta)``; returns the indices of the
    last hidden layer's outputs ``a`` too.
    """
    from scipy.sparse import coo_matrix

    d0 = len(lo_in)
    sizes = [d0] + [3 * len(l) for l, _ in pre]
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    nvar = int(offs[-1])
    lb, ub, integ = np.zeros(nvar), np.zeros(nvar), np.zeros(nvar)
    lb[:d0], ub[:d0] = lo_in, hi_in
    rows, cols, vals, rlo, rhi = [], [], [], [], []
    r = 0

    def add(block_rows, block_cols, block_vals):
        rows.append(np.asarray(block_rows, dtype=np.int64).ravel())
        cols.append(np.asarray(block_cols, dtype=np.int64).ravel())
        vals.append(np.asarray(block_vals, dtype=float).ravel())

    prev = np.arange(d0)
    for k, ((W, b), (l, u)) in enumerate(zip(layers[:-1], pre)):
        n = len(l)
        z, a, dl = offs[k + 1] + np.arange(n), offs[k + 1] + n + np.arange(n), offs[k + 1] + 2 * n + np.arange(n)
        lb[z], ub[z] = l, u
        lb[a], ub[a] = 0.0, np.maximum(u, 0.0)
        # z - W a_prev = b
        ri, ci = np.nonzero(W)
        add(r + np.arange(n), z, np.ones(n))
        add(r + ri, prev[ci], -W[ri, ci])
        rlo.append(b); rhi.append(b); r += n
        inactive, active = u <= 0, (l >= 0) & ~(u <= 0)
        unstable = ~(inactive | active)
        ub[a[inactive]] = 0.0
        ia = np.flatnonzero(active)                      # a - z = 0
        add(r + np.arange(len(ia)), a[ia], np.ones(len(ia)))
        add(r + np.arange(len(ia)), z[ia], -np.ones(len(ia)))
        rlo.append(np.zeros(len(ia))); rhi.append(np.zeros(len(ia))); r += len(ia)
        iu = np.flatnonzero(unstable)
        m = len(iu)
        integ[dl[iu]], ub[dl[iu]] = 1, 1.0
        add(r + np.arange(m), a[iu], np.ones(m))          # a - z >= 0
        add(r + np.arange(m), z[iu], -np.ones(m))
        rlo.append(np.zeros(m)); rhi.append(np.full(m, np.inf)); r += m
        add(r + np.arange(m), a[iu], np.ones(m))          # a - u delta <= 0
        add(r + np.arange(m), dl[iu], -u[iu])
        rlo.append(np.full(m, -np.inf)); rhi.append(np.zeros(m)); r += m
        add(r + np.arange(m), a[iu], np.ones(m))          # a - z - l delta <= -l
        add(r + np.arange(m), z[iu], -np.ones(m))
        add(r + np.arange(m), dl[iu], -l[iu])
        rlo.append(np.full(m, -np.inf)); rhi.append(-l[iu]); r += m
        prev = a
    A = coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, nvar)).tocsr()
    return lb, ub, integ, A, np.concatenate(rlo), np.concatenate(rhi), prev


def milp_verify(model: nn.Module, x: torch.Tensor, y: int, eps: float, time_limit: float = 5.0,
                skip: np.ndarray | None = None, node_limit: int | None = None, return_info: bool = False):
    """Decide the robustness of one point exactly: ``"certified"``, ``"falsified"`` or ``"unknown"``.

    ``x``: (d,) input in [0, 1]; ``y``: its label; ``time_limit``: safety cap in seconds per class solve;
    ``node_limit``: branch-and-bound nodes per class solve (None: no limit); ``skip``: (n_classes,) bool,
    classes already proven safe, not re-solved. With ``return_info`` returns ``(status, info)`` where
    ``info`` holds ``n_solves`` and ``time_capped`` (a solve stopped by the time cap rather than by its
    node limit or a decision).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    if not torch.is_tensor(x):
        raise TypeError(f"x must be a torch tensor, got {type(x).__name__}")
    if x.ndim != 1:
        raise ValueError(f"x must be a 1-D tensor, got {type(x).__name__} {tuple(getattr(x, 'shape', ()))}")
    eps = check_positive("eps", eps, strict=False)
    time_limit = check_positive("time_limit", time_limit)
    if node_limit is not None:
        node_limit = check_int("node_limit", node_limit, minimum=1)
    check_finite("x", x)
    layers = _affine_layers(model)
    y = check_int("y", y, minimum=0, maximum=layers[-1][0].shape[0] - 1)
    n_cls = layers[-1][0].shape[0]
    net64 = copy.deepcopy(model).double()
    with torch.no_grad():
        lo_in, hi_in = input_box(x[None, :].detach().double(), eps)
        pre = crown_intermediate_bounds(net64, lo_in, hi_in)
        margin_lo = crown_ibp_lower(net64, lo_in, hi_in, margin_spec(torch.tensor([y]), n_cls).double(),
                                    intermediate=pre)[0].numpy()
    # widen slightly so that floating-point rounding in the bounds cannot cut off feasible points
    pre = [(l[0].numpy() - 1e-6 * (1 + np.abs(l[0].numpy())), u[0].numpy() + 1e-6 * (1 + np.abs(u[0].numpy())))
           for l, u in pre]
    lb, ub, integ, A, rlo, rhi, last = _encode(layers, pre, lo_in[0].numpy(), hi_in[0].numpy())
    cons = LinearConstraint(A, rlo, rhi)
    W, b = layers[-1]
    todo = [j for j in range(n_cls) if j != y and not (skip is not None and skip[j]) and margin_lo[j] <= _SAFE_MARGIN]
    todo.sort(key=lambda j: margin_lo[j])            # the most likely counterexample first
    info = {"n_solves": 0, "time_capped": False}
    status = CERTIFIED
    # stop at the first incumbent (any feasible point is a counterexample); presolve off: faster on these small models
    options = {"time_limit": float(time_limit), "disp": False, "mip_rel_gap": 1e9, "presolve": False}
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    for j in todo:
        c = np.zeros(len(lb))
        c[last] = W[y] - W[j]
        const = b[y] - b[j]
        margin_row = LinearConstraint(c[None, :], -np.inf, -const)   # z_y - z_j <= 0
        res = milp(c, integrality=integ, bounds=Bounds(lb, ub), constraints=[cons, margin_row], options=dict(options))
        info["n_solves"] += 1
        if res.x is not None:
            status = FALSIFIED   # a feasible point with a non-positive margin: a counterexample
            break
        if res.status == 2:      # infeasible: no counterexample for this class
            continue
        status = UNKNOWN         # node limit or time cap reached without a decision
        if "time" in str(res.message).lower():
            info["time_capped"] = True
    return (status, info) if return_info else status


def crown_certify(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float) -> torch.Tensor:
    """Bool ``(B,)``: certified by full CROWN (layer-wise CROWN intermediate bounds, float64), batched.

    Sound and never weaker than the CROWN-IBP final pass on the same box; a cheap filter before MILP.
    """
    from torch.nn import functional as F

    net64 = copy.deepcopy(model).double()
    with torch.no_grad():
        lo, hi = input_box(x.detach().double(), eps)
        pre = crown_intermediate_bounds(net64, lo, hi)
        m = crown_ibp_lower(net64, lo, hi, margin_spec(y, net64[-1].out_features).double(), intermediate=pre)
    m = m.masked_fill(F.one_hot(y, m.shape[1]).bool(), float("inf"))
    return (m > _SAFE_MARGIN).all(1)


def exact_certify(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, bound_certified: torch.Tensor,
                  broken: torch.Tensor, max_points: int | None = None, node_limit: int | None = None,
                  time_limit: float = 60.0, order: np.ndarray | None = None, attack_restarts: int = 0,
                  attack_steps: int = 50, seed: int = 0) -> dict:
    """Certified accuracy by bounds plus MILP on the points the bounds and the attack left open.

    ``bound_certified``/``broken``: (B,) bool from the bounds and from PGD (or a wrong prediction).
    The open points are first bounded by full CROWN (:func:`crown_certify`) and attacked by
    ``attack_restarts`` random-start margin PGD runs of ``attack_steps`` steps (a success is a
    counterexample); then the first ``max_points`` still-open points in ``order`` (all if None) are
    solved by MILP, each class solve limited to ``node_limit`` nodes and capped at ``time_limit``
    seconds. Unsolved or ``unknown`` points count as not certified. Returns ``cert_acc`` (sound),
    ``open_frac`` (share of points still undecided), ``n_crown`` (certified by full CROWN),
    ``n_attacked`` (broken by the extra attack), ``n_milp``, ``n_falsified_milp``, ``n_unknown_milp``,
    ``n_time_capped`` (solves that hit the time cap) and ``certified``.
    """
    from icml26.vision.certified_pareto.method import pgd_attack

    if max_points is not None:
        max_points = check_int("max_points", max_points, minimum=0)
    attack_restarts = check_int("attack_restarts", attack_restarts, minimum=0)
    cert = bound_certified.clone().bool()
    is_open = ~bound_certified.bool() & ~broken.bool()
    n_crown = n_attacked = 0
    idx = torch.from_numpy(np.flatnonzero(is_open.numpy()))
    if len(idx):
        by_crown = crown_certify(model, x[idx], y[idx], eps)
        cert[idx[by_crown]] = True
        is_open[idx[by_crown]] = False
        n_crown = int(by_crown.sum())
    idx = torch.from_numpy(np.flatnonzero(is_open.numpy()))
    if len(idx) and attack_restarts:
        gen = torch.Generator().manual_seed(int(seed))
        hit = torch.zeros(len(idx), dtype=torch.bool)
        for _ in range(attack_restarts):
            _, b = pgd_attack(model, x[idx], y[idx], eps, attack_steps, 2.5 * eps / attack_steps, loss="margin",
                              random_start=True, generator=gen, return_broken=True)
            hit |= b
        is_open[idx[hit]] = False
        n_attacked = int(hit.sum())
    open_idx = np.flatnonzero(is_open.numpy())
    if order is not None:
        rank = {int(i): k for k, i in enumerate(order)}
        open_idx = np.array(sorted(open_idx, key=lambda i: rank.get(int(i), len(rank))), dtype=int)
    n_milp, n_fals, n_unknown, n_capped, still_open = 0, 0, 0, 0, 0
    for k, i in enumerate(open_idx):
        if max_points is not None and k >= max_points:
            still_open += 1
            continue
        st, info = milp_verify(model, x[i], int(y[i]), eps, time_limit=time_limit, node_limit=node_limit,
                               return_info=True)
        n_milp += 1
        n_capped += int(info["time_capped"])
        if st == CERTIFIED:
            cert[i] = True
        elif st == FALSIFIED:
            n_fals += 1
        else:
            n_unknown += 1
            still_open += 1
    n = len(y)
    return {"cert_acc": float(cert.float().mean()), "open_frac": still_open / n, "n_crown": n_crown,
            "n_attacked": n_attacked, "n_milp": n_milp, "n_falsified_milp": n_fals, "n_unknown_milp": n_unknown,
            "n_time_capped": n_capped, "certified": cert}
