"""MTNL, mixed tensor network learning (ICML 2026 poster 62604), as we reconstruct it.

Only the abstract is public (no arXiv full text, no code), so every equation below is a
**reconstruction** from the abstract's three ingredients, labelled R1-R4:

* **R1 fusion.** ``K`` tensor networks with different topologies are summed into one model,
  ``X = sum_k TN_k(G^(k), lambda^(k))`` (a width-``K`` "layer" of TNs; the abstract's
  "deep-network style" fusion). Components: tensor ring (TR), fully-connected TN (FCTN),
  Tucker.
* **R2 structure prior.** Every edge ``e`` of every TN carries a diagonal gate
  ``lambda_e in R^{R_max}`` inserted between the two cores it joins (SVDinsTN-style). A
  Laplace prior on the gates and a Gaussian prior on the cores give the MAP objective

      L = 1/|Omega| sum_{i in Omega} (Y_i - X_i)^2 + tau sum_e ||lambda_e||_1 + wd sum ||G||^2,

  minimised by Adam on the cores and proximal gradient (soft-threshold) steps on the gates, so
  gate entries reach exact zeros: the effective rank of edge ``e`` is ``#{r: lambda_e[r] != 0}``,
  and a TN whose gates on one edge all vanish is switched off (structure search over the
  component set as well as the ranks).
* **R3 Bernoulli-mask posterior.** The variational family ``q(lambda_e) = lambda_hat_e * z_e /
  (1 - p)``, ``z_e ~ Bernoulli(1 - p)`` entrywise, turns the ELBO into the training loss above
  evaluated under random masks (the MC-dropout argument of Gal & Ghahramani, 2016): each
  step draws one mask; prediction draws ``T`` masks and reports their mean and standard
  deviation. Cost: one fit plus ``T`` forward passes.
* **R4 unbiasedness.** Every TN is multilinear in its gates and each gate appears on one
  edge only, so with independent masks ``E_z[X(lambda * z/(1-p))] = X(lambda)`` exactly; the
  MC mean is an unbiased estimate of the deterministic prediction (checked in the tests by
  enumerating every mask of a tiny model).

Shapes: a model of a tensor with mode sizes ``shape = (I_1, ..., I_N)`` returns ``(I_1, ..., I_N)``.
Masked completion baselines (CP and Tucker with missing values) come from ``tensorly``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from icml26.core.validate import as_array, check_int, check_positive

STRUCTURES = ("tr", "fctn", "tucker")
INIT_NOISE = 0.3  # relative size of the random part of the initial cores
GATE_CLIP = 1.0  # largest norm of the gates' gradient per step (proximal steps stay bounded)


def _check_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (str, bytes)) or not isinstance(shape, (list, tuple)):
        raise TypeError(f"shape must be a list or tuple of mode sizes, got {type(shape).__name__}")
    if len(shape) < 2:
        raise ValueError(f"shape must have at least two modes, got {shape!r}")
    return tuple(check_int(f"shape[{i}]", s, minimum=1) for i, s in enumerate(shape))


def _check_rank(rank) -> int:
    return check_int("rank", rank, minimum=1, maximum=64)


def _expression(eq: str, shapes: list[tuple[int, ...]]):
    """A contraction with its path found once (``opt_einsum``), not on every forward pass."""
    import opt_einsum

    return opt_einsum.contract_expression(eq, *shapes, optimize="greedy")


class GatedTN(nn.Module):
    """A tensor network whose every edge carries a gate vector (R2) that Bernoulli masks drop (R3).

    Subclasses define ``edges`` (one rank per edge, ``self.gates[e]`` of that length) and
    ``contract(gates) -> (I_1, ..., I_N)``.
    """

    structure = ""

    def __init__(self, shape: Sequence[int], rank: int) -> None:
        super().__init__()
        self.shape = _check_shape(shape)
        self.rank = _check_rank(rank)
        self.gates = nn.ParameterList()
        self.cores = nn.ParameterList()

    def masked_gates(self, p: float = 0.0, generator: torch.Generator | None = None) -> list[torch.Tensor]:
        """Gates times inverted-dropout masks ``z / (1 - p)``, ``z ~ Bernoulli(1 - p)`` entrywise (R3)."""
        if p <= 0.0:
            return list(self.gates)
        out = []
        for g in self.gates:
            z = (torch.rand(g.shape, generator=generator, dtype=g.dtype) >= p).to(g.dtype)
            out.append(g * z / (1.0 - p))
        return out

    def forward(self, p: float = 0.0, generator: torch.Generator | None = None) -> torch.Tensor:
        return self.contract(self.masked_gates(p, generator))

    def contract(self, gates: list[torch.Tensor]) -> torch.Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def effective_ranks(self) -> list[int]:
        """Number of non-zero gate entries on each edge (R2)."""
        return [int((g.detach() != 0).sum()) for g in self.gates]

    def n_params(self, ranks: Sequence[int] | None = None) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


class TensorRing(GatedTN):
    """Tensor ring: ``X[i_1..i_N] = Tr(G_1[:, i_1, :] diag(l_1) G_2[:, i_2, :] diag(l_2) ... diag(l_N))``.

    Cores ``G_k: (R, I_k, R)``; edge ``k`` joins core ``k`` to core ``k+1 (mod N)``.
    """

    structure = "tr"

    def __init__(self, shape: Sequence[int], rank: int, generator: torch.Generator | None = None,
                 level: float = 1.0) -> None:
        super().__init__(shape, rank)
        level = check_positive("level", level)
        n, r = len(self.shape), self.rank
        # near-identity slices: the ring product starts at r * a^N = level everywhere, well conditioned in depth
        a = (level / r) ** (1.0 / n)
        eye = torch.eye(r, dtype=torch.float64)[:, None, :]
        for k, size in enumerate(self.shape):
            noise = torch.randn(r, size, r, generator=generator, dtype=torch.float64)
            self.cores.append(nn.Parameter(a * (eye + INIT_NOISE * noise)))
            self.gates.append(nn.Parameter(torch.ones(r, dtype=torch.float64)))

    def contract(self, gates: list[torch.Tensor]) -> torch.Tensor:
        r0 = self.cores[0].shape[0]
        m = self.cores[0] * gates[0]  # (R, I_1, R)
        for k in range(1, len(self.shape)):
            m = torch.einsum("apb,bic->apic", m, self.cores[k] * gates[k]).reshape(r0, -1, self.cores[k].shape[2])
        return torch.einsum("apa->p", m).reshape(self.shape)

    def n_params(self, ranks: Sequence[int] | None = None) -> int:
        rk = list(ranks) if ranks is not None else [self.rank] * len(self.shape)
        n = len(self.shape)
        return int(sum(rk[k - 1] * self.shape[k] * rk[k] for k in range(n)))


def _fctn_edges(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


class FCTN(GatedTN):
    """Fully-connected TN: every pair of cores ``(i, j)`` shares an edge with gate ``l_ij``.

    Core ``G_k: (I_k, R, ..., R)`` with one rank axis per other core, in increasing order.
    """

    structure = "fctn"

    def __init__(self, shape: Sequence[int], rank: int, generator: torch.Generator | None = None,
                 level: float = 1.0) -> None:
        super().__init__(shape, rank)
        level = check_positive("level", level)
        n, r = len(self.shape), self.rank
        if n > 8:
            raise ValueError(f"shape: FCTN supports at most 8 modes here, got {n}")
        self.edges = _fctn_edges(n)
        # every core starts at a * (the all-zero bond configuration) + noise: X starts at a^N = level
        a = level ** (1.0 / n)
        for k, size in enumerate(self.shape):
            c = INIT_NOISE * torch.randn(size, *([r] * (n - 1)), generator=generator, dtype=torch.float64)
            c[(slice(None),) + (0,) * (n - 1)] += 1.0
            self.cores.append(nn.Parameter(a * c))
        for _ in self.edges:
            self.gates.append(nn.Parameter(torch.ones(r, dtype=torch.float64)))
        letters = iter(string.ascii_letters)
        modes = [next(letters) for _ in range(n)]
        bond = {e: next(letters) for e in self.edges}
        terms = []
        for k in range(n):
            terms.append(modes[k] + "".join(bond[(min(k, j), max(k, j))] for j in range(n) if j != k))
        gterms = [bond[e] for e in self.edges]
        self._expr = _expression(",".join(terms + gterms) + "->" + "".join(modes),
                                 [tuple(c.shape) for c in self.cores] + [(r,)] * len(self.edges))

    def contract(self, gates: list[torch.Tensor]) -> torch.Tensor:
        return self._expr(*self.cores, *gates, backend="torch")

    def n_params(self, ranks: Sequence[int] | None = None) -> int:
        rk = dict(zip(self.edges, ranks if ranks is not None else [self.rank] * len(self.edges)))
        n = len(self.shape)
        return int(sum(self.shape[k] * math.prod(rk[(min(k, j), max(k, j))] for j in range(n) if j != k)
                       for k in range(n)))


class Tucker(GatedTN):
    """Tucker: ``X = C x_1 (U_1 diag(l_1)) x_2 ... x_N (U_N diag(l_N))``; ``C: (R,)*N``, ``U_k: (I_k, R)``."""

    structure = "tucker"

    def __init__(self, shape: Sequence[int], rank: int, generator: torch.Generator | None = None,
                 level: float = 1.0) -> None:
        super().__init__(shape, rank)
        level = check_positive("level", level)
        n, r = len(self.shape), self.rank
        # core and factors start at the rank-1 constant `level` plus noise
        a = level ** (1.0 / (n + 1))
        core = INIT_NOISE * torch.randn(*([r] * n), generator=generator, dtype=torch.float64)
        core[(0,) * n] += 1.0
        self.cores.append(nn.Parameter(a * core))
        for size in self.shape:
            f = INIT_NOISE * torch.randn(size, r, generator=generator, dtype=torch.float64)
            f[:, 0] += 1.0
            self.cores.append(nn.Parameter(a * f))
            self.gates.append(nn.Parameter(torch.ones(r, dtype=torch.float64)))
        letters = string.ascii_letters
        ranks, modes = letters[:n], letters[n:2 * n]
        self._expr = _expression(",".join([ranks] + [modes[k] + ranks[k] for k in range(n)] + list(ranks)) + "->"
                                 + modes, [tuple(c.shape) for c in self.cores] + [(r,)] * n)

    def contract(self, gates: list[torch.Tensor]) -> torch.Tensor:
        return self._expr(self.cores[0], *self.cores[1:], *gates, backend="torch")

    def n_params(self, ranks: Sequence[int] | None = None) -> int:
        rk = list(ranks) if ranks is not None else [self.rank] * len(self.shape)
        return int(math.prod(rk) + sum(i * r for i, r in zip(self.shape, rk)))


_CLASSES = {"tr": TensorRing, "fctn": FCTN, "tucker": Tucker}


def make_tn(structure: str, shape: Sequence[int], rank: int, generator: torch.Generator | None = None,
            level: float = 1.0) -> GatedTN:
    """One gated TN of ``structure`` in ``('tr', 'fctn', 'tucker')`` whose output starts near ``level``."""
    if not isinstance(structure, str):
        raise TypeError(f"structure must be a string, got {type(structure).__name__}")
    if structure not in _CLASSES:
        raise ValueError(f"structure must be one of {STRUCTURES}, got {structure!r}")
    return _CLASSES[structure](shape, rank, generator, level)


class MixedTN(nn.Module):
    """The fused model of R1: ``X = sum_k TN_k``; each component keeps its own gates and cores."""

    def __init__(self, components: Sequence[GatedTN]) -> None:
        super().__init__()
        if not components:
            raise ValueError("components must hold at least one tensor network")
        shapes = {c.shape for c in components}
        if len(shapes) != 1:
            raise ValueError(f"components must share one shape, got {sorted(shapes)}")
        self.components = nn.ModuleList(components)
        self.shape = components[0].shape

    def forward(self, p: float = 0.0, generator: torch.Generator | None = None) -> torch.Tensor:
        return sum(c(p, generator) for c in self.components)

    def gate_params(self) -> list[nn.Parameter]:
        return [g for c in self.components for g in c.gates]

    def core_params(self) -> list[nn.Parameter]:
        return [g for c in self.components for g in c.cores]

    def n_params(self, effective: bool = False) -> int:
        """Cores at ``R_max`` (default), or at the learned effective ranks (``effective=True``).

        A component whose gates on some edge all vanish contributes nothing and counts zero.
        """
        total = 0
        for c in self.components:
            if not effective:
                total += c.n_params()
            else:
                rk = c.effective_ranks()
                total += 0 if min(rk) == 0 else c.n_params(rk)
        return int(total)

    def effective_ranks(self) -> list[list[int]]:
        return [c.effective_ranks() for c in self.components]


def build_mtnl(shape: Sequence[int], spec: Sequence[tuple[str, int]], seed: int = 0, level: float = 1.0) -> MixedTN:
    """A :class:`MixedTN` from ``spec = [(structure, R_max), ...]`` with reproducible initial cores.

    The ``K`` components share the initial output ``level`` (each starts near ``level / K``).
    """
    if isinstance(spec, (str, bytes)) or not isinstance(spec, (list, tuple)) or not spec:
        raise TypeError(f"spec must be a non-empty list of (structure, rank) pairs, got {spec!r}")
    check_int("seed", seed, minimum=0)
    level = check_positive("level", level)
    gen = torch.Generator().manual_seed(int(seed))
    comps = []
    for item in spec:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise TypeError(f"spec items must be (structure, rank) pairs, got {item!r}")
        comps.append(make_tn(item[0], shape, item[1], gen, level / len(spec)))
    return MixedTN(comps)


@dataclass
class Fit:
    """A fitted model, its per-step training loss and the settings it was trained with."""

    model: MixedTN
    loss_history: list[float] = field(default_factory=list)
    p: float = 0.0
    val_history: list[tuple[int, float]] = field(default_factory=list)
    best_step: int = -1


def _check_data(Y, mask) -> tuple[torch.Tensor, torch.Tensor]:
    Y = as_array("Y", Y, ndim=tuple(range(2, 9)))
    mask = as_array("mask", mask, ndim=tuple(range(2, 9)), dtype=bool)
    if tuple(np.shape(Y)) != tuple(np.shape(mask)):
        raise ValueError(f"mask must have Y's shape {tuple(np.shape(Y))}, got {tuple(np.shape(mask))}")
    m = torch.as_tensor(np.asarray(mask, dtype=bool))
    if not bool(m.any()):
        raise ValueError("mask observes no entry")
    return torch.as_tensor(np.asarray(Y, dtype=np.float64)), m


def fit_mtnl(Y, mask, spec: Sequence[tuple[str, int]], *, steps: int = 500, lr: float = 0.01, tau: float = 1e-3,
             wd: float = 1e-4, p: float = 0.1, gated: bool = True, gate_lr: float = 0.1, refit_steps: int = 0,
             warmup: float = 0.0, schedule: str = "constant", val_mask=None, eval_every: int = 10,
             seed: int = 0) -> Fit:
    """Fit a fused gated TN to the entries of ``Y`` where ``mask`` is true (R1-R3).

    ``Y, mask: (I_1, ..., I_N)``. ``spec = [(structure, R_max), ...]``; ``tau`` is the Laplace
    (L1) weight on the gates, ``wd`` the Gaussian (L2) weight on the cores, ``p`` the mask
    drop rate (``p = 0``: a deterministic fit). Cores take Adam steps (``lr``); gates take
    proximal-gradient steps, ``lambda <- soft(lambda - gate_lr * grad, gate_lr * tau)`` (gradient
    norm clipped at ``GATE_CLIP``), which
    reach exact zeros (Adam's normalised steps would keep unneeded gates oscillating around
    zero). ``gated=False`` freezes every gate at 1 and drops the prior (the ungated control).
    ``refit_steps > 0`` then debiases: the zero gates stay zero (the structure found is kept)
    and everything else trains ``refit_steps`` more steps without the L1 prior.
    The data term is the mean squared error over observed entries divided by their mean square.

    ``warmup`` (a fraction of ``steps`` in [0, 1)) trains the first ``warmup * steps`` steps as a
    plain deterministic fit: no masks, no L1 prior, gates frozen at 1; the masks and the prior then
    switch on. ``schedule='cosine'`` decays both learning rates from their start to 2% of it
    over ``steps`` (half-cosine); ``'constant'`` keeps them fixed. The debiasing phase uses the
    final (smallest) rate.

    ``val_mask`` (entries of ``Y`` held out of training, e.g. a validation split of the observed
    ones) turns on checkpoint selection: every ``eval_every`` steps the deterministic prediction's
    RSE on ``val_mask`` is measured after the warm-up (so the masks have trained the returned
    state) and the best state is returned (early stopping; the returned
    ``Fit.val_history`` holds ``(step, val RSE)`` pairs). The debiasing phase is not selected over.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's gated tensor-network fit,
    with the gates' prior and clipping applied around every step.
    """
    Yt, m = _check_data(Y, mask)
    if val_mask is not None:
        _, vm = _check_data(Y, val_mask)
        if bool((vm & m).any()):
            raise ValueError("val_mask must not overlap mask (validation entries are held out of training)")
    else:
        vm = None
    eval_every = check_int("eval_every", eval_every, minimum=1)
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    gate_lr = check_positive("gate_lr", gate_lr)
    tau = check_positive("tau", tau, strict=False)
    wd = check_positive("wd", wd, strict=False)
    p = check_positive("p", p, strict=False)
    if p >= 1:
        raise ValueError(f"p must lie in [0, 1), got {p}")
    if not isinstance(gated, bool):
        raise TypeError(f"gated must be a bool, got {type(gated).__name__}")
    refit_steps = check_int("refit_steps", refit_steps, minimum=0)
    warmup = check_positive("warmup", warmup, strict=False)
    if warmup >= 1:
        raise ValueError(f"warmup must lie in [0, 1), got {warmup}")
    if not isinstance(schedule, str):
        raise TypeError(f"schedule must be a string, got {type(schedule).__name__}")
    if schedule not in ("constant", "cosine"):
        raise ValueError(f"schedule must be 'constant' or 'cosine', got {schedule!r}")
    n_warm = int(warmup * steps)
    level = max(float(Yt[m].abs().mean()), 1e-6)
    model = build_mtnl(tuple(Yt.shape), spec, seed, level)
    gates, cores = model.gate_params(), model.core_params()
    if not gated:
        for g in gates:
            g.requires_grad_(False)
    opt = torch.optim.Adam(cores, lr=lr)
    gate_opt = torch.optim.SGD(gates, lr=gate_lr) if gated else None
    gen = torch.Generator().manual_seed(int(seed) + 7919)
    scale = float((Yt[m] ** 2).mean()) or 1.0  # loss in units of the data's power, so tau means the same for every image
    y_obs = Yt[m]
    hist = []
    keep = None
    tau0 = tau
    best = (math.inf, None, -1)
    vhist: list[tuple[int, float]] = []
    y_val = Yt[vm] if vm is not None else None
    vnorm = float(y_val.norm()) if vm is not None else 1.0
    for step in range(steps + (refit_steps if gated else 0)):
        if schedule == "cosine":
            f = _cosine(min(step, steps - 1), steps)
            for o, base in ((opt, lr), (gate_opt, gate_lr)):
                if o is not None:
                    for grp in o.param_groups:
                        grp["lr"] = base * f
        warm = step < n_warm
        tau = 0.0 if warm else tau0
        if step == steps and vm is not None and best[1] is not None:  # restore the best checkpoint
            model.load_state_dict(best[1])
        if step == steps:  # debiasing phase: freeze the structure, drop the prior
            keep = [(g.detach() != 0).to(g.dtype) for g in gates]
            tau0 = tau = 0.0
        opt.zero_grad()
        if gate_opt is not None:
            gate_opt.zero_grad()
        X = model(0.0 if warm else p, gen)
        fit_term = ((X[m] - y_obs) ** 2).mean() / scale
        loss = fit_term + wd * sum((c ** 2).sum() for c in cores)
        loss.backward()
        opt.step()
        if gate_opt is not None and not warm:
            if keep is not None:
                for g, k in zip(gates, keep):
                    g.grad.mul_(k)
            # plain gradient steps on a multilinear model can run away; cap each step at gate_lr * GATE_CLIP
            torch.nn.utils.clip_grad_norm_(gates, GATE_CLIP)
            gate_opt.step()
            step_lr = gate_opt.param_groups[0]["lr"]
            with torch.no_grad():
                for g in gates:
                    g.copy_(torch.sign(g) * torch.clamp(g.abs() - step_lr * tau, min=0.0))
        hist.append(float(fit_term.detach()))
        if vm is not None and n_warm <= step < steps and ((step + 1) % eval_every == 0 or step == steps - 1):
            with torch.no_grad():
                v = float((model(0.0)[vm] - y_val).norm()) / max(vnorm, 1e-300)
            vhist.append((step + 1, v))
            if v < best[0]:
                best = (v, {k: t.detach().clone() for k, t in model.state_dict().items()}, step + 1)
    if vm is not None and best[1] is not None and (refit_steps == 0 or not gated):
        model.load_state_dict(best[1])
    return Fit(model, hist, p, vhist, best[2])


def _cosine(step: int, steps: int, floor: float = 0.02) -> float:
    """Half-cosine decay factor from 1 at step 0 to ``floor`` at the last step."""
    if steps <= 1:
        return 1.0
    return floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * step / (steps - 1)))


def predict(fit: Fit) -> np.ndarray:
    """The deterministic prediction ``X(lambda)`` (the MC mean's expectation, R4)."""
    if not isinstance(fit, Fit):
        raise TypeError(f"fit must be a Fit, got {type(fit).__name__}")
    with torch.no_grad():
        return fit.model(0.0).numpy()


def predict_mc(fit: Fit, T: int = 50, seed: int = 0, p: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Monte-Carlo prediction under ``T`` Bernoulli gate masks (R3): ``(mean, std)``, each ``(I_1, ..., I_N)``."""
    if not isinstance(fit, Fit):
        raise TypeError(f"fit must be a Fit, got {type(fit).__name__}")
    T = check_int("T", T, minimum=2)
    check_int("seed", seed, minimum=0)
    p = fit.p if p is None else check_positive("p", p)
    if not 0 < p < 1:
        raise ValueError(f"p must lie in (0, 1) for Monte-Carlo prediction, got {p}")
    gen = torch.Generator().manual_seed(int(seed))
    with torch.no_grad():
        s1 = torch.zeros(fit.model.shape, dtype=torch.float64)
        s2 = torch.zeros_like(s1)
        for _ in range(T):
            x = fit.model(p, gen)
            s1 += x
            s2 += x * x
    mean = s1 / T
    var = torch.clamp(s2 / T - mean ** 2, min=0.0) * T / (T - 1)
    return mean.numpy(), var.sqrt().numpy()


def rse(X_hat, X, mask=None) -> float:
    """Relative squared error ``||X_hat - X||_F / ||X||_F`` over the entries where ``mask`` is true."""
    X_hat = np.asarray(as_array("X_hat", X_hat), float)
    X = np.asarray(as_array("X", X), float)
    if X_hat.shape != X.shape:
        raise ValueError(f"X_hat must have X's shape {X.shape}, got {X_hat.shape}")
    if mask is None:
        sel = np.ones(X.shape, bool)
    else:
        sel = np.asarray(as_array("mask", mask, dtype=bool), bool)
        if sel.shape != X.shape:
            raise ValueError(f"mask must have X's shape {X.shape}, got {sel.shape}")
    den = float(np.linalg.norm(X[sel]))
    if den == 0:
        raise ValueError("X is zero on the selected entries")
    return float(np.linalg.norm(X_hat[sel] - X[sel]) / den)


# ----------------------------------------------------------------------------- tensorly baselines
def tensorly_complete(Y, mask, method: str, rank: int, n_iter: int = 100, seed: int = 0) -> np.ndarray:
    """Masked CP (``parafac``, masked ALS) or Tucker (``tucker``, EM imputation) completion from ``tensorly``."""
    import tensorly as tl
    from tensorly.decomposition import parafac, tucker

    Yt, m = _check_data(Y, mask)
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if method not in ("cp", "tucker"):
        raise ValueError(f"method must be 'cp' or 'tucker', got {method!r}")
    rank = _check_rank(rank)
    n_iter = check_int("n_iter", n_iter, minimum=1)
    check_int("seed", seed, minimum=0)
    tl.set_backend("numpy")
    Yn, mn = Yt.numpy(), m.numpy().astype(float)
    Y0 = np.where(mn > 0, Yn, Yn[mn > 0].mean())
    if method == "cp":
        cp = parafac(Y0, rank, mask=mn, n_iter_max=n_iter, init="random", random_state=int(seed), tol=1e-8)
        return tl.cp_to_tensor(cp)
    ranks = [min(rank, s) for s in Yn.shape]
    tk = tucker(Y0, ranks, mask=mn, n_iter_max=n_iter, init="svd", random_state=int(seed), tol=1e-8)
    return tl.tucker_to_tensor(tk)


# ----------------------------------------------------------------------------- tensor regression
@dataclass
class RegressionFit:
    """``y_hat = <X, W> + b`` with ``W`` a fused gated TN (R1-R3 applied to the weight tensor)."""

    model: MixedTN
    bias: float
    loss_history: list[float] = field(default_factory=list)


def fit_tn_regression(X, y, spec: Sequence[tuple[str, int]], *, steps: int = 300, lr: float = 0.02,
                      tau: float = 1e-4, wd: float = 1e-4, p: float = 0.1, gate_lr: float = 0.1,
                      seed: int = 0) -> RegressionFit:
    """Fit ``y ~ <X_n, W> + b`` (least squares, gate prior, masked gates) with ``W`` an MTNL of ``X``'s mode sizes.

    ``X: (n, I_1, ..., I_N)``, ``y: (n,)``. The same recipe as :func:`fit_mtnl`: Adam on the
    cores and the bias, clipped proximal-gradient steps on the gates, one Bernoulli mask per step.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's gated tensor-network
    regression, with the gates' prior and masks applied around every step.
    """
    X = as_array("X", X, ndim=tuple(range(3, 10)))
    y = as_array("y", y, ndim=1)
    if np.shape(X)[0] != np.shape(y)[0]:
        raise ValueError(f"y must have one target per row of X ({np.shape(X)[0]}), got {np.shape(y)[0]}")
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    gate_lr = check_positive("gate_lr", gate_lr)
    tau = check_positive("tau", tau, strict=False)
    wd = check_positive("wd", wd, strict=False)
    p = check_positive("p", p, strict=False)
    if p >= 1:
        raise ValueError(f"p must lie in [0, 1), got {p}")
    Xt = torch.as_tensor(np.asarray(X, dtype=np.float64))
    yt = torch.as_tensor(np.asarray(y, dtype=np.float64))
    model = build_mtnl(tuple(Xt.shape[1:]), spec, seed, level=1e-3)
    bias = nn.Parameter(yt.mean().clone())
    gates, cores = model.gate_params(), model.core_params()
    opt = torch.optim.Adam(cores + [bias], lr=lr)
    gate_opt = torch.optim.SGD(gates, lr=gate_lr)
    gen = torch.Generator().manual_seed(int(seed) + 7919)
    scale = float(yt.var()) or 1.0
    Xf = Xt.reshape(Xt.shape[0], -1)
    hist = []
    for _ in range(steps):
        opt.zero_grad()
        gate_opt.zero_grad()
        W = model(p, gen).reshape(-1)
        fit_term = ((Xf @ W + bias - yt) ** 2).mean() / scale
        (fit_term + wd * sum((c ** 2).sum() for c in cores)).backward()
        opt.step()
        torch.nn.utils.clip_grad_norm_(gates, GATE_CLIP)
        gate_opt.step()
        with torch.no_grad():
            for g in gates:
                g.copy_(torch.sign(g) * torch.clamp(g.abs() - gate_lr * tau, min=0.0))
        hist.append(float(fit_term.detach()))
    return RegressionFit(model, float(bias.detach()), hist)


def predict_regression(fit: RegressionFit, X) -> np.ndarray:
    """``(n,)`` predictions ``<X_n, W> + b`` of a :class:`RegressionFit` (deterministic gates)."""
    if not isinstance(fit, RegressionFit):
        raise TypeError(f"fit must be a RegressionFit, got {type(fit).__name__}")
    X = as_array("X", X, ndim=len(fit.model.shape) + 1)
    if tuple(np.shape(X)[1:]) != tuple(fit.model.shape):
        raise ValueError(f"X must have rows of shape {fit.model.shape}, got {tuple(np.shape(X)[1:])}")
    with torch.no_grad():
        W = fit.model(0.0).reshape(-1).numpy()
    return np.asarray(X, float).reshape(np.shape(X)[0], -1) @ W + fit.bias


def tensorly_regression(X, y, X_test, method: str, rank: int, seed: int = 0) -> np.ndarray:
    """``tensorly``'s CP or Tucker tensor regressor (ridge ALS, no intercept: ``y`` is centred here)."""
    from tensorly.regression import CPRegressor, TuckerRegressor

    X = as_array("X", X, ndim=tuple(range(3, 10)))
    y = as_array("y", y, ndim=1)
    X_test = as_array("X_test", X_test, ndim=np.ndim(X))
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    if method not in ("cp", "tucker"):
        raise ValueError(f"method must be 'cp' or 'tucker', got {method!r}")
    rank = _check_rank(rank)
    check_int("seed", seed, minimum=0)
    mu = float(np.mean(y))
    dims = np.shape(X)[1:]
    if method == "cp":
        reg = CPRegressor(weight_rank=rank, n_iter_max=100, random_state=int(seed), verbose=0)
    else:
        reg = TuckerRegressor(weight_ranks=[min(rank, d) for d in dims], n_iter_max=100, random_state=int(seed),
                              verbose=0)
    reg.fit(np.asarray(X, float), np.asarray(y, float) - mu)
    return np.asarray(reg.predict(np.asarray(X_test, float))) + mu
