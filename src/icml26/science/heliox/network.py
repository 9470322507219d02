"""A small multi-layer network of biophysically detailed neurons, trainable by gradient through
the simulator (the HelioX use case of "training deep biophysical MLPs", ICML 2026), and the
rate-model network of the same size used as its control.

Every neuron is the same multi-compartment cell (:func:`~icml26.science.heliox.method.ball_and_stick`
by default: an HH soma and a passive dendrite). Layer ``l`` has ``sizes[l]`` neurons; the input
``x`` (features in [0, 1], e.g. pixel intensities) drives layer 0 and layer ``l`` drives layer
``l + 1`` through fully connected current synapses onto the distal dendritic compartment:

    I_0(t) = W_0^T x + b_0                                  (nA, constant over the trial)
    I_l(t) = W_l^T s_{l-1}(t) + b_l,  s(t) = max(V_soma(t) - v_gap0, 0) / 10 mV

i.e. graded transmission of the presynaptic depolarisation, rectified at ``v_gap0`` (the form of
HelioX's fully connected learning synapse, whose current is ``g w v_gap`` for ``v_gap > 0``;
spikes pass as large, brief depolarisations). The readout of the last layer is
``(mean_t V_soma - v_rest) / 10`` over the second half of the trial, one logit per output neuron.
Each step integrates every neuron's cable equation exactly as
:func:`~icml26.science.heliox.method.simulate` does (NEURON's backward-Euler voltage step solved
over the DHS schedule with the adjoint :func:`~icml26.science.heliox.method.tree_solve`, then
cnexp gate updates), for a batch of trials at once; the gradient of a loss on the logits with
respect to every ``W_l, b_l`` is exact back-propagation through time through the simulator
(HelioX's own fully connected synapses accumulate a time-local gradient instead: the error is
passed back through the weights at every step, not through the membrane dynamics).

``point_neuron=True`` gives one-compartment (point) neurons: the soma alone, input injected there.
:func:`rate_network` is the rate model of the same shapes: ``h_l = relu(h_{l-1} W_l + b_l)``,
linear last layer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml26.core.validate import as_array, as_rng, check_int, check_positive
from icml26.science.heliox.method import (Morphology, Section, _TreeSolve, axial_conductances, ball_and_stick,
                                          build_morphology, hh_rates, make_plan)

ENA, EK, EL = 50.0, -77.0, -54.3


@dataclass
class NetworkSpec:
    """Shapes and constants of a layered biophysical network.

    sizes: neurons per layer (the last layer is the readout, one neuron per class); n_in:
    input features; morph: the cell shared by every neuron; syn_node: the compartment receiving
    synaptic current; v_gap0 (mV): the presynaptic voltage above which a synapse transmits.
    """

    sizes: tuple[int, ...]
    n_in: int
    morph: Morphology
    syn_node: int
    v_gap0: float = -65.0
    v_rest: float = -65.0


def make_network(n_in: int, sizes, nseg: int = 3, dend_L: float = 150.0, point_neuron: bool = False
                 ) -> NetworkSpec:
    """A layered network of ball-and-stick cells (or of point neurons with ``point_neuron``)."""
    n_in = check_int("n_in", n_in, minimum=1)
    sizes = tuple(check_int("sizes", s, minimum=1) for s in np.atleast_1d(np.asarray(sizes, dtype=object)))
    if not sizes:
        raise ValueError("sizes must name at least one layer")
    if point_neuron:
        morph = build_morphology([Section("soma", 20.0, 20.0, 1)])
        return NetworkSpec(sizes, n_in, morph, syn_node=0)
    nseg = check_int("nseg", nseg, minimum=1)
    morph = ball_and_stick(nseg, dend_L=check_positive("dend_L", dend_L))
    return NetworkSpec(sizes, n_in, morph, syn_node=morph.n - 1)


def init_weights(spec: NetworkSpec, rng, scale: float = 1.0, bias: float = 0.4) -> list[torch.Tensor]:
    """[W_0, b_0, W_1, b_1, ...] as float64 leaf tensors (W_l: (fan_in, sizes[l]), nA).

    ``W_l ~ N(0, scale^2 / fan_in)``, ``b_l ~ U(0, bias)`` (``bias = 0``: zero biases, every cell
    starts at rest without input)."""
    rng = as_rng("rng", rng)
    scale = check_positive("scale", scale)
    bias = check_positive("bias", bias, strict=False)  # a number >= 0 (True is refused, not read as 1.0)
    params, fan_in = [], spec.n_in
    for size in spec.sizes:
        params.append(torch.tensor(rng.normal(0.0, scale / np.sqrt(fan_in), (fan_in, size))))
        params.append(torch.tensor(rng.uniform(0.0, bias, size)))
        fan_in = size
    return [p.requires_grad_() for p in params]


def _chain_order(plan) -> list[tuple[int, int]] | None:
    """``(node, parent)`` in the plan's elimination order when every step of the plan eliminates one
    node (a chain, such as a ball-and-stick cell: its DHS schedule is serial), else None."""
    if not all(idx.size == 1 for idx in plan.np_nodes if idx.size) or any(idx.size == 0 for idx in plan.np_nodes[:-1]):
        return None
    return [(int(i[0]), int(p[0])) for i, p in zip(plan.np_nodes, plan.np_parents) if i.size]


def _chain_solve(order, d, a, b, rhs):
    """The DHS-ordered solve of :func:`~icml26.science.heliox.method.tree_solve` for a plan of one node
    per step, written with integer (view) indexing and in-place updates of copies: the same
    arithmetic, operation for operation, as the general solve (bit-identical), in fewer tensor
    operations. No autograd (used inside :class:`_ChainSolve`). The row operations run in numpy on
    the tensors' memory (each is one IEEE-rounded division, product or difference per element, as in
    torch: the same bits, with less per-call overhead)."""
    dn, an, bn, rn = (t.detach().numpy() for t in (d, a, b, rhs))
    dn, rn = dn.copy(), rn.copy()
    for i, p in order:
        f = an[i] / dn[i]
        dn[p] -= f * bn[i]
        rn[p] -= f * rn[i]
    x = np.empty_like(rn)
    x[0] = rn[0] / dn[0]
    for i, p in reversed(order):
        x[i] = (rn[i] - bn[i] * x[p]) / dn[i]
    return torch.from_numpy(x)


class _ChainSolve(torch.autograd.Function):
    """``x = A^{-1} rhs`` for a chain-shaped cell with the adjoint (transposed) solve as backward, as
    :class:`~icml26.science.heliox.method._TreeSolve` (the off-diagonals ``a``, ``b`` are constants of
    the cell here: no gradient is formed for them)."""

    @staticmethod
    def forward(ctx, d, a, b, rhs, order):  # noqa: D401
        with torch.no_grad():
            x = _chain_solve(order, d, a, b, rhs)
        ctx.order = order
        ctx.save_for_backward(d, a, b, x)
        return x

    @staticmethod
    def backward(ctx, g):
        d, a, b, x = ctx.saved_tensors
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            raise RuntimeError("_ChainSolve has no gradient for the off-diagonals a, b (use method.tree_solve)")
        with torch.no_grad():
            lam = _chain_solve(ctx.order, d, b, a, g)   # A^T: the two off-diagonals swapped
            grad_d = -lam * x
        return grad_d, None, None, lam, None


def run_network(spec: NetworkSpec, params, x, t_stop: float = 15.0, dt: float = 0.1,
                record: bool = False):
    """Simulate a batch of trials and return the readout logits ``(batch, sizes[-1])``.

    x: ``(batch, n_in)`` inputs, constant over the trial, or ``(batch, n_steps, n_in)`` inputs that
    change with the time step (``x[:, k]`` drives layer 0 at step ``k``, as a presynaptic
    layer's activation does); params: ``[W_0, b_0, ...]`` as from :func:`init_weights`.
    Differentiable in ``params`` by exact back-propagation through time through the simulator
    (adjoint tree solves inside). ``record``: also return the last layer's synaptic activation
    at the start of every step, ``(batch, n_steps, sizes[-1])`` (what that layer sends on to a
    next layer at that step), so a frozen network's activity can be computed once and fed to
    the layer after it as a time-varying ``x`` (:func:`split_readout`).
    """
    x = as_array("x", x, ndim=(2, 3))
    x = x if isinstance(x, torch.Tensor) else torch.as_tensor(x, dtype=torch.float64)
    t_stop, dt = check_positive("t_stop", t_stop), check_positive("dt", dt)
    n_steps = int(round(t_stop / dt))
    if x.ndim not in (2, 3) or x.shape[-1] != spec.n_in or (x.ndim == 3 and x.shape[1] != n_steps):
        raise ValueError(f"x must have shape (batch, {spec.n_in}) or (batch, {n_steps}, {spec.n_in}) "
                         f"(n_in = {spec.n_in}, n_steps = {n_steps}), got shape {tuple(x.shape)}")
    if len(params) != 2 * len(spec.sizes):
        raise ValueError(f"params must hold {2 * len(spec.sizes)} tensors (W, b per layer), got {len(params)}")
    morph, n = spec.morph, spec.morph.n
    S, L = x.shape[0], len(spec.sizes)
    B = S * sum(spec.sizes)                       # every neuron of every trial is one cell column
    offs = np.cumsum((0,) + spec.sizes)           # neuron index range of each layer
    plan = make_plan(morph.parent, k=8)
    par_np, g_own, g_par, axial_d = axial_conductances(morph)
    T = torch.float64
    a_off = torch.as_tensor(np.repeat(-g_par[:, None], B, axis=1), dtype=T)
    b_off = torch.as_tensor(np.repeat(-g_own[:, None], B, axis=1), dtype=T)
    g_own_c = torch.as_tensor(g_own[:, None], dtype=T)
    g_par_c = torch.as_tensor(g_par[1:, None], dtype=T)
    par, par1 = torch.as_tensor(par_np), torch.as_tensor(par_np[1:])
    # The HH channels sit on the soma only (the soma's nodes come first in a Morphology): gates and
    # channel currents are computed on those ns rows alone, the passive rest once; the diagonal and
    # the ionic current equal the all-node expressions term by term (the dropped terms are exact
    # zeros), so the simulation is unchanged (tests: equal logits, gradients within rounding).
    soma_np = morph.section == 0
    ns = int(soma_np.sum())
    if not soma_np[:ns].all():
        raise ValueError("the soma's nodes must come first in the morphology")
    d_cap_np = 1e-3 / dt + axial_d[:, None]
    d_soma = torch.as_tensor(d_cap_np[:ns], dtype=T)
    gna, gk, gl = 0.12, 0.036, 0.0003
    gp = 0.001
    d_rest = torch.as_tensor(d_cap_np[ns:], dtype=T).expand(n - ns, B) + gp   # passive nodes: d_cap + g_pas
    inj = torch.zeros((n, 1), dtype=T)
    inj[spec.syn_node] = 100.0 / morph.area[spec.syn_node]   # nA -> mA/cm2 at the synaptic node
    order = _chain_order(plan)
    if order is None:  # a branched cell: the general DHS solve (tree_solve without its per-call input checks)
        def solve(d, a, b, rhs):
            return _TreeSolve.apply(d, a, b, rhs, plan)
    else:              # one node per step (ball-and-stick, point neuron): the same solve in fewer operations
        def solve(d, a, b, rhs):
            return _ChainSolve.apply(d, a, b, rhs, order)

    v = torch.full((n, B), spec.v_rest, dtype=T)
    m, _, h, _, ng, _ = hh_rates(v[:ns])
    s = torch.zeros((S, offs[-1]), dtype=T)                    # synaptic activation per neuron
    drive0 = x @ params[0] + params[1]            # (S, sizes[0]) constant or (S, n_steps, sizes[0]) input current
    readout, count, trace = 0.0, 0, []
    for step in range(n_steps):
        if record:
            trace.append(s[:, offs[-2]:])
        currents = [drive0 if x.ndim == 2 else drive0[:, step]]
        currents += [s[:, offs[l - 1]:offs[l]] @ params[2 * l] + params[2 * l + 1] for l in range(1, L)]
        i_syn = torch.cat(currents, dim=1).reshape(1, B)      # (1, B) nA, cells ordered (trial, neuron)
        vs, vr = v[:ns], v[ns:]
        g_na, g_k = gna * m ** 3 * h, gk * ng ** 4
        i_ion = torch.cat([g_na * (vs - ENA) + g_k * (vs - EK) + gl * (vs - EL), gp * (vr - spec.v_rest)])
        i_ax = g_own_c * (v[par] - v)
        i_ax = i_ax.index_add(0, par1, g_par_c * (v[1:] - v[par1]))
        rhs = i_ax - i_ion + inj * i_syn
        diag = torch.cat([d_soma + g_na + g_k + gl, d_rest])
        v = v + solve(diag, a_off, b_off, rhs)
        m_inf, m_tau, h_inf, h_tau, n_inf, n_tau = hh_rates(v[:ns])
        m = m + (1.0 - torch.exp(-dt / m_tau)) * (m_inf - m)
        h = h + (1.0 - torch.exp(-dt / h_tau)) * (h_inf - h)
        ng = ng + (1.0 - torch.exp(-dt / n_tau)) * (n_inf - ng)
        v_soma = v[0].reshape(S, offs[-1])
        s = torch.relu(v_soma - spec.v_gap0) / 10.0
        if step >= n_steps // 2:
            readout = readout + v_soma[:, offs[-2]:]
            count += 1
    logits = (readout / count - spec.v_rest) / 10.0
    return (logits, torch.stack(trace, dim=1)) if record else logits


def split_readout(spec: NetworkSpec) -> tuple[NetworkSpec, NetworkSpec]:
    """The network without its last layer, and its last layer alone as a one-layer network whose
    input is the activation of the layer before (use with ``run_network(..., record=True)``).

    The layers are feed-forward (no feedback onto earlier cells), so with the earlier layers
    frozen, driving the last layer alone with their recorded activation gives the same logits as
    the whole network (this is how the readout-only control is trained: the frozen hidden layers
    are simulated once per image, not at every step)."""
    if len(spec.sizes) < 2:
        raise ValueError(f"split_readout needs at least two layers, got sizes {spec.sizes}")
    hidden = NetworkSpec(spec.sizes[:-1], spec.n_in, spec.morph, spec.syn_node, spec.v_gap0, spec.v_rest)
    last = NetworkSpec(spec.sizes[-1:], spec.sizes[-2], spec.morph, spec.syn_node, spec.v_gap0, spec.v_rest)
    return hidden, last


def rate_network(params, x) -> torch.Tensor:
    """The rate-model network of the same shapes: logits ``(batch, n_out)`` of a ReLU MLP.

    params: ``[W_0, b_0, ...]`` as from :func:`init_weights` (so the two networks have the same
    parameters and can start from the same values); x: ``(batch, n_in)``.
    """
    if not isinstance(params, (list, tuple)) or len(params) < 2 or len(params) % 2:
        raise ValueError("params must be a list [W_0, b_0, W_1, b_1, ...] of an even length >= 2")
    x = as_array("x", x, ndim=2)
    h = x if isinstance(x, torch.Tensor) else torch.as_tensor(x, dtype=torch.float64)
    if h.shape[1] != params[0].shape[0]:
        raise ValueError(f"x must have {params[0].shape[0]} columns (the rows of W_0), got shape {tuple(h.shape)}")
    n_layers = len(params) // 2
    for layer in range(n_layers):
        h = h @ params[2 * layer] + params[2 * layer + 1]
        if layer < n_layers - 1:
            h = torch.relu(h)
    return h
