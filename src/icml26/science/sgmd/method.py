"""SGMD (arXiv:2605.30116), beside the DMD2 baseline and the earlier SiD-form reconstruction.

Notation (rectified flow): ``x_t = alpha_t x_g + sigma_t eps`` with ``alpha_t = 1 - t``,
``sigma_t = t``; ``x_g = G_theta(.)`` the generator's sample; ``D_T(x_t, t)`` the frozen
teacher denoiser, ``D_psi(x_t, t)`` the fake denoiser fitted to the generator's own samples
(the "fake score": ``s = (alpha_t D - x_t) / sigma_t^2``). Every network here is a *batched
ensemble*: ``K`` independent MLPs evaluated with one ``bmm`` per layer, so that several
configurations (methods x learning rates) of one seed train in lock-step.

DMD2 (Yin et al. 2024), faithful: the generator moves along the reverse-KL gradient
``w (D_psi - D_T)`` (``w`` = 1 / mean |x_g - D_T|, per sample), implemented as
``0.5 |x_g - sg(x_g - w r)|^2``; the fake denoiser is refitted by denoising score matching
on fresh stop-gradient generator samples, ``n_fake`` updates per generator update (5 in
DMD2's two-time-scale rule).

SGMD (:func:`sgmd_generator_loss`, :func:`rc_fake_loss`), as given by the paper's eq. 21-22 in
the form reported by third-party notes and a third-party implementation (the arXiv text
reachable to us holds only the abstract and introduction)::

    generator:  L_G = 1/2 c(t) |D_psi(x_t) - D_T(sg x_t)|^2 - (lambda/2) |sg(x_g) - D_psi(x_t)|^2,
    fake (RC):  L_psi = (lambda/2) |sg(x_g) - D_psi(x_t)|^2,     c(t) = alpha_t^2 / sigma_t^4,

with lambda = 0.1. The first generator term is the teacher-stop-gradient Fisher divergence
(``|s_psi - s_T|^2 = c(t) |D_psi - D_T|^2``), the second the negative-residual (NR) potential,
the exact negative of the fake's residual-contraction (RC) potential. In the generator step the
fake's parameters are frozen and the gradient reaches ``x_g`` *only* through ``x_t`` and the fake's
input Jacobian: there is no direct ``x_g`` path (``x_g`` is stop-gradient inside ``L_NR``), and the
teacher is evaluated on ``sg(x_t)``, so it is never differentiated. One fake (RC) update per
generator update. Our choices where the sources are silent: the RC step uses a fresh
stop-gradient generator sample like DMD2's fake updates (so the arms differ only in their losses
and update ratio), times ``t ~ U[0.02, 0.98]`` for every arm, Adam for every network.

Not what the authors' released trainer runs (ModelTC/LightX2V, ``lightx2v_train`` SgmdTrainer,
found by the third review after the full run): it weights the Fisher term by DMD's per-sample
``1 / mean |x_g - D_T|`` instead of ``c(t)``, gives the NR term the gradient ``(D_psi - x_g) / sigma``
on the fake's output, samples noise levels uniformly on [0.02, 0.98] and then shifts them
(shift 5), and updates the fake by plain velocity flow matching at a learning rate 5x below
the generator's. :func:`sgmd_generator_loss` and :func:`rc_fake_loss` follow the equations as the
paper notes give them; a later session should add the released recipe as an arm.

The earlier reconstruction (:func:`sid_form_generator_loss`, arm ``"sid-form"``), kept as an
ablation: ``w (|D_psi - sg(D_T)|^2 - 2 (D_psi - D_T)^T (D_psi - x_g))`` with a direct ``x_g`` path
and the teacher's Jacobian in the identity term; the exact gradient of the teacher-stop-gradient
Fisher divergence under ideal tracking via the score identity (SiD's loss at alpha = 1/2 with the
teacher's Jacobian dropped from the path term), with plain DSM at one fake update per step. It is
close to the paper's "TSG-SIM" ablation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from icml26.core.validate import as_array, check_finite, check_int, check_positive

STEP_TIMES = (1.0, 0.75, 0.5, 0.25)  # the 4-step student schedule (re-noising between steps)
T_MIN, T_MAX = 0.02, 0.98


# ----------------------------------------------------------------------------- batched MLP
class Ensemble(torch.nn.Module):
    """``K`` independent denoiser MLPs ``D(x, t) = c_skip(t) x + c_out(t) F_k(x, t)``.

    Input (K, n, d) and times (K, n); output (K, n, d). ``F_k`` is ``d + 3 -> hidden -> hidden
    -> d`` with SiLU; the time enters as ``(t, sin pi t, cos pi t)``. The skip/out scalings are
    those of a unit-variance data distribution under ``x_t = (1-t) x_0 + t eps``.
    """

    def __init__(self, k: int, dim: int, hidden: int = 128, generator: torch.Generator | None = None):
        super().__init__()
        self.k = check_int("k", k, minimum=1)
        self.dim = check_int("dim", dim, minimum=1)
        hidden = check_int("hidden", hidden, minimum=1)
        sizes = [dim + 3, hidden, hidden, dim]
        self.weights = torch.nn.ParameterList()
        self.biases = torch.nn.ParameterList()
        for a, b in zip(sizes[:-1], sizes[1:]):
            w = torch.randn(k, a, b, generator=generator) / math.sqrt(a)
            self.weights.append(torch.nn.Parameter(w))
            self.biases.append(torch.nn.Parameter(torch.zeros(k, 1, b)))
        with torch.no_grad():
            self.weights[-1].mul_(0.1)

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        tt = t[..., None]
        h = torch.cat([x, tt, torch.sin(math.pi * tt), torch.cos(math.pi * tt)], dim=-1)
        n = len(self.weights)
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = torch.baddbmm(b, h, w)
            if i < n - 1:
                h = torch.nn.functional.silu(h)
        a = 1 - tt
        norm = torch.sqrt(a ** 2 + tt ** 2)
        return (a / norm ** 2) * x + (tt / norm) * h

    def copy_from(self, other: Ensemble) -> None:
        """Load member-wise parameters from an ensemble of the same shape."""
        self.load_state_dict(other.state_dict())


class BatchedAdam:
    """Adam over ensemble parameters with one learning rate per member (``lrs``: (K,))."""

    def __init__(self, params: Sequence[torch.nn.Parameter], lrs: Sequence[float], betas=(0.0, 0.99),
                 eps: float = 1e-8):
        self.params = list(params)
        lr = np.asarray(lrs, dtype=float)
        if lr.ndim != 1 or lr.size == 0 or not np.all(np.isfinite(lr)) or np.any(lr <= 0):
            raise ValueError(f"lrs must be a non-empty 1-D array of positive finite rates, got {lrs!r}")
        self.lr = torch.tensor(lr, dtype=torch.float32)
        self.b1, self.b2 = betas
        self.eps = eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    @torch.no_grad()
    def step(self, mask: torch.Tensor | None = None) -> None:
        """One step; ``mask`` (K,) of 0/1 freezes the members with 0 (moments untouched too)."""
        self.t += 1
        c1, c2 = 1 - self.b1 ** self.t, 1 - self.b2 ** self.t
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            g = p.grad
            shape = (-1,) + (1,) * (p.dim() - 1)
            keep = torch.ones(p.shape[0]) if mask is None else mask.to(p.dtype)
            kk = keep.view(shape)
            m.mul_(1 - kk * (1 - self.b1)).add_(kk * (1 - self.b1) * g)
            v.mul_(1 - kk * (1 - self.b2)).add_(kk * (1 - self.b2) * g * g)
            upd = (m / c1) / ((v / c2).sqrt() + self.eps)
            p.sub_(self.lr.view(shape) * kk * upd)
            p.grad = None


# ----------------------------------------------------------------------------- losses
def dsm_loss(fake: Ensemble, x0: torch.Tensor, t: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    """Denoising score matching in denoiser form, summed over members: ``sum_k mean |D(x_t) - x0|^2``.

    ``x0``, ``eps``: (K, n, d); ``t``: (K, n). The inner (RC) update of SGMD and DMD2's fake update.
    """
    _check_batch(x0, t, eps)
    xt = (1 - t[..., None]) * x0 + t[..., None] * eps
    return ((fake(xt, t) - x0) ** 2).sum(-1).mean(-1).sum()


def _weight(x0: torch.Tensor, d_teacher: torch.Tensor) -> torch.Tensor:
    """DMD's per-sample normaliser ``1 / mean |x_g - D_T(x_t)|`` (stop-gradient), (K, n, 1)."""
    return 1.0 / ((x0 - d_teacher).abs().mean(-1, keepdim=True).detach() + 1e-6)


def dmd2_generator_loss(x0: torch.Tensor, d_fake: torch.Tensor, d_teacher: torch.Tensor) -> torch.Tensor:
    """DMD2's distribution-matching loss ``0.5 |x_g - sg(x_g - w (D_psi - D_T))|^2`` (summed over members).

    ``x0``: (K, n, d) generator samples with grad; ``d_fake``, ``d_teacher``: the denoisers at
    ``x_t`` (treated as constants). Its gradient in ``x_g`` is ``w r``.
    """
    _check_triplet(x0, d_fake, d_teacher)
    grad = _weight(x0, d_teacher) * (d_fake - d_teacher)
    target = (x0 - grad).detach()
    return 0.5 * ((x0 - target) ** 2).sum(-1).mean(-1).sum()


def fisher_weight(t: torch.Tensor) -> torch.Tensor:
    """``c(t) = alpha_t^2 / sigma_t^4 = (1 - t)^2 / t^4``: turns ``|D_psi - D_T|^2`` into ``|s_psi - s_T|^2``."""
    return (1 - t) ** 2 / t ** 4


def sgmd_generator_loss(x0: torch.Tensor, d_fake: torch.Tensor, d_teacher: torch.Tensor, t: torch.Tensor,
                        lam: float = 0.1, weight: torch.Tensor | None = None) -> torch.Tensor:
    """SGMD's generator loss (eq. 21): ``1/2 c(t) |D_psi(x_t) - D_T|^2 - (lam/2) |sg(x_g) - D_psi(x_t)|^2``.

    ``x0``: (K, n, d) generator samples; ``d_fake = D_psi(x_t)`` computed from ``x_t = (1-t) x0 + t eps``
    with the fake's parameters frozen (its graph carries the generator's through the fake's input);
    ``d_teacher``: the teacher's denoiser at ``sg(x_t)`` (detached here in any case); ``t``: (K, n) in
    (0, 1); ``lam``: the NR weight (the paper's 0.1). Mean over samples, sum over members. The
    gradient reaches the generator only through ``d_fake``: ``x0`` enters stop-gradient.
    ``weight``: (K, n) replaces ``c(t)`` (a diagnostic ablation only; the paper's loss uses ``c(t)``).
    """
    _check_triplet(x0, d_fake, d_teacher)
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a torch.Tensor, got {type(t).__name__}")
    check_finite("t", t, nonempty=True)
    if t.shape != x0.shape[:2]:
        raise ValueError(f"t must have shape (K, n) = {tuple(x0.shape[:2])}, got {tuple(t.shape)}")
    if bool((t <= 0).any()) or bool((t >= 1).any()):
        raise ValueError("t must lie in (0, 1)")
    lam = check_positive("lam", lam, strict=False)
    if weight is None:
        c = fisher_weight(t.detach())
    else:
        if not isinstance(weight, torch.Tensor):
            raise TypeError(f"weight must be a torch.Tensor or None, got {type(weight).__name__}")
        check_finite("weight", weight, nonempty=True)
        if weight.shape != t.shape:
            raise ValueError(f"weight must have the shape of t {tuple(t.shape)}, got {tuple(weight.shape)}")
        c = weight.detach()
    fisher = 0.5 * c * ((d_fake - d_teacher.detach()) ** 2).sum(-1)
    nr = -0.5 * ((x0.detach() - d_fake) ** 2).sum(-1)
    return (fisher + lam * nr).mean(-1).sum()


def rc_fake_loss(fake: Ensemble, x0: torch.Tensor, t: torch.Tensor, eps: torch.Tensor,
                 lam: float = 0.1) -> torch.Tensor:
    """SGMD's fake update (eq. 22), the residual-contraction potential ``(lam/2) |sg(x_g) - D_psi(x_t)|^2``.

    x0-space DSM scaled by ``lam / 2`` (summed over members, mean over samples); ``x0`` is detached.
    """
    lam = check_positive("lam", lam)
    _check_batch(x0, t, eps)
    return 0.5 * lam * dsm_loss(fake, x0.detach(), t, eps)


def sid_form_generator_loss(x0: torch.Tensor, d_fake: torch.Tensor, d_teacher: torch.Tensor) -> torch.Tensor:
    """The SiD-form ablation ("TSG-SIM"-like): the teacher-stop-gradient Fisher gradient under ideal tracking.

    The earlier reconstruction, kept as an ablation arm; not the paper's eq. 21 (that is
    :func:`sgmd_generator_loss`).

    ``L = w (|D_psi - sg(D_T)|^2 - 2 (D_psi - D_T)^T (D_psi - x_g))`` at ``x_t``, with ``w`` one
    stop-gradient scalar per member (:func:`batch_weight`). The first (path) term follows the
    teacher-stop-gradient objective; the second is the score-identity form of the gradient through
    the generator's own denoiser, where the residual is a fixed *function* of ``x_t`` and so keeps
    the teacher's input Jacobian (``d_teacher`` should carry the graph of ``x_t``; detached, the
    identity term is biased). ``x0``
    (K, n, d) carries the generator's graph and ``d_fake = D_psi(x_t(x0))`` must be computed from
    it with the fake's parameters frozen, so gradients flow through ``x_g`` and ``x_t``. Its value
    is ~0 under ideal tracking; only its gradient matters.
    """
    _check_triplet(x0, d_fake, d_teacher)
    dt = d_teacher.detach()
    per = ((d_fake - dt) ** 2).sum(-1) - 2 * ((d_fake - d_teacher) * (d_fake - x0)).sum(-1)
    return (batch_weight(x0, dt)[..., 0] * per).mean(-1).sum()


def batch_weight(x0: torch.Tensor, d_teacher: torch.Tensor) -> torch.Tensor:
    """SGMD's normaliser: DMD's ``1 / mean |x_g - D_T|`` averaged over the whole batch (one scalar per member).

    A per-sample weight that depends on ``x_g`` would bias the score-identity term (the identity
    needs weights that are functions of ``x_t`` alone); a batch-wide constant keeps it exact
    while giving the step the same scale as DMD2's. Shape (K, 1, 1), no gradient.
    """
    return 1.0 / ((x0 - d_teacher).abs().mean(dim=(-1, -2), keepdim=True).detach() + 1e-6)


def _check_batch(x0, t, eps) -> None:
    for name, v in (("x0", x0), ("t", t), ("eps", eps)):
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(v).__name__}")
        check_finite(name, v, nonempty=True)
    if x0.dim() != 3 or eps.shape != x0.shape:
        raise ValueError(f"x0 and eps must both have shape (K, n, d), got {tuple(x0.shape)} and {tuple(eps.shape)}")
    if t.shape != x0.shape[:2]:
        raise ValueError(f"t must have shape (K, n) = {tuple(x0.shape[:2])}, got {tuple(t.shape)}")


def _check_triplet(x0, d_fake, d_teacher) -> None:
    for name, v in (("x0", x0), ("d_fake", d_fake), ("d_teacher", d_teacher)):
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(v).__name__}")
        check_finite(name, v, nonempty=True)
        if v.dim() != 3:
            raise ValueError(f"{name} must have shape (K, n, d), got {tuple(v.shape)}")
    if not (x0.shape == d_fake.shape == d_teacher.shape):
        raise ValueError(f"x0, d_fake and d_teacher must share one shape, got {tuple(x0.shape)}, "
                         f"{tuple(d_fake.shape)}, {tuple(d_teacher.shape)}")


# ----------------------------------------------------------------------------- the few-step generator
def generate(gen: Ensemble, noise: Sequence[torch.Tensor], upto: int | None = None) -> torch.Tensor:
    """Run the 4-step sampler: ``x0_k = G(x_{t_k}, t_k)``, ``x_{t_{k+1}} = (1-t_{k+1}) x0_k + t_{k+1} eps_{k+1}``.

    ``noise``: a list of 4 tensors (K, n, d) (the first is the starting noise); ``upto``: return the
    generator's output at step ``upto`` (0-based; default: the last). Gradients flow only if enabled.
    """
    if len(noise) != len(STEP_TIMES):
        raise ValueError(f"noise must hold {len(STEP_TIMES)} tensors, got {len(noise)}")
    upto = len(STEP_TIMES) - 1 if upto is None else check_int("upto", upto, minimum=0, maximum=len(STEP_TIMES) - 1)
    x = noise[0]
    for k, tk in enumerate(STEP_TIMES[:upto + 1]):
        t = torch.full(x.shape[:2], min(tk, T_MAX))
        x0 = gen(x, t)
        if k < upto:
            tn = STEP_TIMES[k + 1]
            x = (1 - tn) * x0 + tn * noise[k + 1]
    return x0


# ----------------------------------------------------------------------------- the trainer
@dataclass
class Arm:
    """One configuration: ``method`` in :data:`METHODS`, learning rates, fake updates per step, SGMD's ``lam``.

    ``"sgmd"``: the paper's eq. 21-22; ``"sid-form"``: the earlier SiD-form reconstruction (ablation);
    ``"dmd2"``: DMD2. ``lam`` is used by ``"sgmd"`` only.
    """

    name: str
    method: str
    n_fake: int
    lr_gen: float
    lr_fake: float
    lam: float = 0.1
    weight: str = "fisher"

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        check_int("n_fake", self.n_fake, minimum=1)
        check_positive("lr_gen", self.lr_gen)
        check_positive("lr_fake", self.lr_fake)
        check_positive("lam", self.lam)
        if self.weight not in ("fisher", "dmd"):
            raise ValueError(f"weight must be 'fisher' (c(t), the paper's) or 'dmd' (diagnostic), got {self.weight!r}")


METHODS = ("sgmd", "sid-form", "dmd2")


def pass_cost(arm: Arm, k: int) -> float:
    """Network passes of one generator step of ``arm`` when the graded generator step is ``k`` (0-3).

    Counting unit: one forward of a student-sized network on the batch = 1, its backward = 2;
    the teacher counts like a student-sized network. Generator: k no-grad unroll forwards + 1
    graded forward + backward (2); teacher and fake in the generator step: forward 1 each for DMD2
    (constants); SGMD: teacher forward 1 (never differentiated) + fake forward and backward to its
    input 3; SiD form: forward + backward to the input 3 for each. Each fake update: a fresh sample
    (k + 1 forwards, no grad) + fake forward and backward (3).
    """
    gen = k + 1 + 2
    nets_in_gen = {"sgmd": 4, "sid-form": 6, "dmd2": 2}[arm.method]
    return float(gen + nets_in_gen + arm.n_fake * (k + 1 + 3))


@dataclass
class TrainResult:
    """Curves per arm: passes and SW2 at each evaluation, and the final samples."""

    arms: list[Arm]
    steps: list[int] = field(default_factory=list)
    passes: list[list[float]] = field(default_factory=list)  # [eval][arm]
    sw2: list[list[float]] = field(default_factory=list)  # [eval][arm]
    final: np.ndarray | None = None  # (K, n_eval, d)


def distill(teacher, fake_init: Ensemble, arms: Sequence[Arm], *, steps: int, batch: int, eval_every: int,
            evaluate, n_eval: int, seed: int) -> TrainResult:
    """Distil ``teacher`` into one 4-step generator per arm, all arms in lock-step.

    ``fake_init``: a 1-member ensemble pre-fitted to the teacher; every arm's fake *and* generator
    start from it (DMD2 initialises both from the teacher). ``evaluate(samples (n, d)) -> SW2``.
    Each generator step draws one graded step index ``k`` (shared by the arms), then:
    generator update (SGMD, SiD-form or DMD2 loss), then ``n_fake`` fake updates on fresh samples
    (DSM; for SGMD the RC potential, (lam/2) DSM; arms with fewer updates are masked for the surplus rounds).

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's distillation step, all
    arms updated in lock-step.
    """
    arms = list(arms)
    if not arms:
        raise ValueError("arms must not be empty")
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=2)
    eval_every = check_int("eval_every", eval_every, minimum=1)
    n_eval = check_int("n_eval", n_eval, minimum=2)
    kk, d = len(arms), fake_init.dim
    hidden = fake_init.weights[0].shape[-1]
    g = torch.Generator().manual_seed(int(seed))
    gen, fake = Ensemble(kk, d, hidden), Ensemble(kk, d, hidden)
    with torch.no_grad():
        for dst in (gen, fake):
            for p, q in zip(dst.parameters(), fake_init.parameters()):
                p.copy_(q.expand_as(p))
    opt_g = BatchedAdam(list(gen.parameters()), [a.lr_gen for a in arms])
    opt_f = BatchedAdam(list(fake.parameters()), [a.lr_fake for a in arms])
    is_sgmd = torch.tensor([a.method == "sgmd" for a in arms])
    is_sid = torch.tensor([a.method == "sid-form" for a in arms])
    is_dmd = torch.tensor([a.method == "dmd2" for a in arms])
    lam = torch.tensor([a.lam for a in arms])
    fake_scale = torch.where(is_sgmd, 0.5 * lam, torch.ones(kk))  # RC potential (lam/2) DSM for SGMD
    n_fake = torch.tensor([a.n_fake for a in arms])
    max_fake = int(n_fake.max())
    eval_noise = [torch.randn(kk, n_eval, d, generator=torch.Generator().manual_seed(int(seed) + 7919 + i))
                  for i in range(len(STEP_TIMES))]
    eval_noise = [e[:1].expand(kk, n_eval, d) for e in eval_noise]  # same evaluation noise for every arm
    res = TrainResult(arms)
    passes = np.zeros(kk)

    def record(step: int) -> None:
        with torch.no_grad():
            out = generate(gen, eval_noise)
        res.steps.append(step)
        res.passes.append(passes.tolist())
        res.sw2.append([float(evaluate(out[i].numpy())) for i in range(kk)])

    def noises(n: int):
        return [torch.randn(kk, n, d, generator=g) for _ in STEP_TIMES]

    record(0)
    for step in range(1, steps + 1):
        k = int(torch.randint(len(STEP_TIMES), (1,), generator=g))
        # generator update
        for p in fake.parameters():
            p.requires_grad_(False)
        x0 = generate(gen, noises(batch), upto=k)
        t = T_MIN + (T_MAX - T_MIN) * torch.rand(kk, batch, generator=g)
        eps = torch.randn(kk, batch, d, generator=g)
        xt = (1 - t[..., None]) * x0 + t[..., None] * eps
        # only the SiD form differentiates the teacher (SGMD evaluates it at sg(x_t), DMD2 uses a constant)
        d_teacher = teacher.denoise(xt.reshape(-1, d), t.reshape(-1),
                                    differentiable=bool(is_sid.any())).reshape(kk, batch, d)
        # SGMD and the SiD form differentiate through the fake's input; DMD2 treats its output as a constant
        d_fake = fake(xt, t)
        loss = _masked(is_sgmd, lambda i: sum(sgmd_generator_loss(x0[j:j + 1], d_fake[j:j + 1],
                                                                  d_teacher[j:j + 1].detach(), t[j:j + 1],
                                                                  lam=arms[j].lam,
                                                                  weight=None if arms[j].weight == "fisher" else
                                                                  _weight(x0[j:j + 1], d_teacher[j:j + 1])[..., 0])
                                                for j in i.tolist()))
        loss = loss + _masked(is_sid, lambda i: sid_form_generator_loss(x0[i], d_fake[i], d_teacher[i]))
        loss = loss + _masked(is_dmd, lambda i: dmd2_generator_loss(x0[i], d_fake[i].detach(), d_teacher[i].detach()))
        loss.backward()
        opt_g.step()
        for p in fake.parameters():
            p.requires_grad_(True)
        # fake (inner) updates on fresh stop-gradient samples
        for j in range(max_fake):
            with torch.no_grad():
                xs = generate(gen, noises(batch), upto=k)
            t = T_MIN + (T_MAX - T_MIN) * torch.rand(kk, batch, generator=g)
            eps = torch.randn(kk, batch, d, generator=g)
            xts = (1 - t[..., None]) * xs + t[..., None] * eps
            per = ((fake(xts, t) - xs) ** 2).sum(-1).mean(-1)  # DSM per member
            (fake_scale * per).sum().backward()
            opt_f.step(mask=(n_fake > j).float())
        passes += np.array([pass_cost(a, k) for a in arms])
        if step % eval_every == 0 or step == steps:
            record(step)
    with torch.no_grad():
        res.final = generate(gen, eval_noise).numpy()
    return res


def _masked(mask: torch.Tensor, fn) -> torch.Tensor:
    """``fn(idx)`` for the members selected by ``mask`` (members are independent); 0 if none."""
    if not bool(mask.any()):
        return torch.zeros(())
    return fn(mask.nonzero().flatten())


def prefit_fake(teacher, *, steps: int, batch: int, lr: float, hidden: int, seed: int) -> tuple[Ensemble, list[float]]:
    """Fit a 1-member denoiser to the teacher by DSM on exact teacher samples; returns it and its loss history.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the fake-score prefit of the
    distillation method (denoising score matching on exact teacher samples, one ensemble member).
    """
    steps = check_int("steps", steps, minimum=1)
    batch = check_int("batch", batch, minimum=2)
    check_positive("lr", lr)
    g = torch.Generator().manual_seed(int(seed))
    net = Ensemble(1, teacher.means.shape[1], hidden, generator=g)
    opt = BatchedAdam(list(net.parameters()), [lr], betas=(0.9, 0.99))
    rng = np.random.default_rng(int(seed))
    hist = []
    for _ in range(steps):
        x0 = torch.tensor(teacher.sample(batch, rng), dtype=torch.float32)[None]
        t = torch.rand(1, batch, generator=g) * (T_MAX - T_MIN) + T_MIN
        eps = torch.randn(1, batch, x0.shape[-1], generator=g)
        loss = dsm_loss(net, x0, t, eps)
        loss.backward()
        opt.step()
        hist.append(float(loss.detach()))
    return net, hist


def sliced_w2(x, y, *, n_projections: int = 64, seed: int = 0) -> float:
    """Sliced Wasserstein-2 between two sample sets (n, d) and (m, d), through POT.

    The projections are drawn from ``seed`` (POT's generator), so two calls with one seed
    use the same directions and their distances are comparable.
    """
    import ot

    x = np.asarray(as_array("x", x, ndim=2), dtype=np.float64)
    y = np.asarray(as_array("y", y, ndim=2), dtype=np.float64)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"x and y must have the same number of columns, got {x.shape[1]} and {y.shape[1]}")
    n_projections = check_int("n_projections", n_projections, minimum=1)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    proj = ot.sliced.get_random_projections(x.shape[1], n_projections, seed=int(seed))
    return float(ot.sliced_wasserstein_distance(x, y, p=2, projections=proj))
