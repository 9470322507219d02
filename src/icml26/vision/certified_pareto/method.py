"""Pareto-front evaluation of IBP-based certified training (arXiv:2606.02134, Kaulen, Shavit, Hoos).

The paper's contribution is an evaluation protocol: instead of comparing certified
training methods at one published configuration each, run a multi-objective
hyperparameter search per method that maximises (natural accuracy, certified
accuracy) on held-out data, and compare the resulting Pareto fronts (Sec. 3-4).
This module holds

* the certified-training losses the paper compares (Sec. 2), for a ReLU MLP:
  - IBP (Gowal et al. 2019, with the Shi et al. 2021 initialisation):
    ``L = kappa CE(f(x), y) + (1 - kappa) CE(z_worst(eps_t), y)``;
  - CROWN-IBP (Zhang et al. 2020): the same with ``z_worst`` from
    ``beta * CROWN-IBP + (1 - beta) * IBP`` margin bounds, ``beta`` scheduled 1 -> ``end_beta``;
  - SABR (Mueller et al. 2023): PGD finds a centre ``x'`` in the ``(eps - lambda eps)`` ball,
    IBP bounds the small box of radius ``lambda eps`` around it, ``L = CE(z_worst, y)``;
  - MTL-IBP (De Palma et al. 2024): ``L = (1 - alpha) CE(f(x_adv), y) + alpha CE(z_worst(eps), y)``;
* their shared training schedule (warm-up with eps = 0, smoothed eps ramp, kappa/beta
  schedules, two learning-rate decays, l1 penalty, gradient clipping at 10);
* certification (sound IBP / CROWN-IBP margin bounds, ``bounds.py``) and a PGD attack;
* the multi-objective search: the per-method search spaces of the authors' CTRAIN
  configuration (Sec. 4 / App.), an Optuna multi-objective study, non-dominated
  filtering, 2-D hypervolume and dominance tests.

Shapes: inputs ``x`` ``(B, 64)`` (or ``(B, 1, 8, 8)`` behind a ``Flatten``), labels ``y`` ``(B,)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from icml26.core.validate import as_array, check_positive
from icml26.nn.mlp import mlp
from icml26.vision.certified_pareto.bounds import input_box, margin_lower_bounds, worst_case_logits

METHODS = ("ibp", "crown-ibp", "sabr", "mtl-ibp")


# ---------------------------------------------------------------- model
def make_mlp(widths: Sequence[int] = (64, 128, 128, 10), init: str = "ibp") -> nn.Sequential:
    """ReLU MLP ``widths[0] -> ... -> widths[-1]``.

    ``init="ibp"`` uses the Shi et al. (2021) IBP initialisation ``w ~ N(0, (sqrt(2 pi) / n_in)^2)``,
    zero biases (keeps IBP interval widths stable with depth); ``"default"`` keeps torch's.
    """
    widths = [int(w) for w in widths]
    if len(widths) < 2 or min(widths) < 1:
        raise ValueError(f"widths must list >= 2 positive layer sizes, got {widths}")
    if init not in ("ibp", "default"):
        raise ValueError(f"init must be 'ibp' or 'default', got {init!r}")
    net = mlp(widths, activation="relu")
    if init == "ibp":
        with torch.no_grad():
            for lin in net:
                if isinstance(lin, nn.Linear):
                    lin.weight.normal_(0.0, math.sqrt(2 * math.pi) / lin.in_features)
                    lin.bias.zero_()
    return net


# ---------------------------------------------------------------- schedules
def smoothed_eps(step: float, warm_up: float, ramp_up: float, eps_max: float,
                 mid: float = 0.25, power: float = 4.0) -> float:
    """Smoothed eps schedule (Xu et al. 2020, used by Shi et al. 2021 and CTRAIN).

    ``eps = 0`` during ``warm_up``; over the next ``ramp_up`` units eps grows as ``a t^power``
    up to fraction ``mid`` of the ramp and then linearly to ``eps_max``, with value and slope
    continuous at ``mid``; ``eps_max`` afterwards. ``step`` is in the same units (epochs).
    """
    step = check_positive("step", step, strict=False)
    warm_up = check_positive("warm_up", warm_up, strict=False)
    ramp_up = check_positive("ramp_up", ramp_up, strict=False)
    eps_max = check_positive("eps_max", eps_max, strict=False)
    mid, power = check_positive("mid", mid), check_positive("power", power)
    if not 0 < mid < 1 or power < 1:
        raise ValueError(f"smoothed_eps needs 0 < mid < 1 and power >= 1, got mid={mid}, power={power}")
    if step < warm_up:
        return 0.0
    if ramp_up == 0 or step >= warm_up + ramp_up:
        return float(eps_max)
    t = (step - warm_up) / ramp_up
    e_mid = eps_max * mid / (power * (1 - mid) + mid)
    if t < mid:
        return float(e_mid * (t / mid) ** power)
    return float(e_mid + (eps_max - e_mid) * (t - mid) / (1 - mid))


def ramp_fraction(step: float, warm_up: float, ramp_up: float) -> float:
    """Fraction of the eps ramp completed at ``step`` (0 during warm-up, 1 after the ramp)."""
    if step < warm_up:
        return 0.0
    if ramp_up == 0:
        return 1.0
    return float(min(1.0, (step - warm_up) / ramp_up))


# ---------------------------------------------------------------- attack
def pgd_attack(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, steps: int,
               step_size: float, x_min: float = 0.0, x_max: float = 1.0, random_start: bool = True,
               loss: str = "ce", generator: torch.Generator | None = None,
               return_broken: bool = False):
    """l_inf PGD (Madry et al. 2018) inside ``B(x, eps) ∩ [x_min, x_max]``.

    ``loss="ce"`` ascends cross-entropy, ``"margin"`` the largest wrong logit minus the true one.
    Returns the final adversarial input ``(B, ...)``; with ``return_broken`` also a bool ``(B,)``
    that is True where any iterate (including the start) was misclassified.
    """
    if steps < 0 or step_size < 0 or eps < 0:
        raise ValueError("pgd_attack needs steps >= 0, step_size >= 0 and eps >= 0")
    if loss not in ("ce", "margin"):
        raise ValueError(f"loss must be 'ce' or 'margin', got {loss!r}")
    was_training = model.training
    lo, hi = input_box(x, eps, x_min, x_max)
    if random_start and eps > 0:
        noise = torch.rand(x.shape, generator=generator, dtype=x.dtype) * 2 - 1
        x_adv = (x + eps * noise).clamp(lo, hi)
    else:
        x_adv = x.clone()
    broken = torch.zeros(x.shape[0], dtype=torch.bool)
    for it in range(steps + 1):
        x_adv = x_adv.detach().requires_grad_(True)
        logits = model(x_adv)
        broken |= logits.argmax(1) != y
        if it == steps:
            break
        if loss == "ce":
            obj = F.cross_entropy(logits, y, reduction="sum")
        else:
            true = logits.gather(1, y[:, None]).squeeze(1)
            other = logits.masked_fill(F.one_hot(y, logits.shape[1]).bool(), -1e9).amax(1)
            obj = (other - true).sum()
        (grad,) = torch.autograd.grad(obj, x_adv)
        x_adv = torch.max(torch.min(x_adv + step_size * grad.sign(), hi), lo)
    model.train(was_training)
    x_adv = x_adv.detach()
    return (x_adv, broken) if return_broken else x_adv


# ---------------------------------------------------------------- losses
def ibp_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float) -> torch.Tensor:
    """``CE(z_worst, y)`` with IBP margin bounds over ``B(x, eps) ∩ [0, 1]``."""
    lo, hi = input_box(x, eps)
    return F.cross_entropy(worst_case_logits(margin_lower_bounds(model, lo, hi, y, "ibp")), y)


def crown_ibp_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, beta: float) -> torch.Tensor:
    """``CE(z_worst, y)`` with ``beta * CROWN-IBP + (1 - beta) * IBP`` margin bounds (Zhang et al. 2020)."""
    lo, hi = input_box(x, eps)
    m = margin_lower_bounds(model, lo, hi, y, "crown-ibp", beta=beta)
    return F.cross_entropy(worst_case_logits(m), y)


def sabr_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, subselection_ratio: float,
              pgd_steps: int, pgd_alpha: float, pgd_eps_factor: float = 1.0,
              generator: torch.Generator | None = None) -> torch.Tensor:
    """SABR (Mueller et al. 2023): IBP loss on the box of radius ``lambda eps`` around a PGD point.

    PGD (radius ``pgd_eps_factor * eps``, step ``pgd_alpha * radius``) proposes a centre; it is
    projected into ``B(x, (1 - lambda) eps)`` so that the small box stays inside the eps-ball.
    """
    lam = float(subselection_ratio)
    if not 0 < lam <= 1:
        raise ValueError(f"subselection_ratio must lie in (0, 1], got {lam}")
    tau = lam * eps
    radius = pgd_eps_factor * eps
    x_adv = pgd_attack(model, x, y, radius, pgd_steps, pgd_alpha * radius, generator=generator)
    c_lo, c_hi = input_box(x, (1 - lam) * eps)
    centre = torch.max(torch.min(x_adv, c_hi), c_lo)
    lo, hi = input_box(centre, tau)
    return F.cross_entropy(worst_case_logits(margin_lower_bounds(model, lo, hi, y, "ibp")), y)


def mtl_ibp_loss(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, alpha: float,
                 pgd_steps: int, pgd_alpha: float, pgd_eps_factor: float = 1.0,
                 generator: torch.Generator | None = None) -> torch.Tensor:
    """MTL-IBP (De Palma et al. 2024): ``(1 - alpha) CE(f(x_adv), y) + alpha CE(z_worst^IBP(eps), y)``."""
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    radius = pgd_eps_factor * eps
    x_adv = pgd_attack(model, x, y, radius, pgd_steps, pgd_alpha * radius, generator=generator)
    adv = F.cross_entropy(model(x_adv), y)
    return (1 - alpha) * adv + alpha * ibp_loss(model, x, y, eps)


# ---------------------------------------------------------------- training
@dataclass(frozen=True)
class TrainConfig:
    """One configuration of a certified-training method (names follow the CTRAIN search space)."""

    method: str
    learning_rate: float = 5e-4
    optimizer: str = "adam"
    warm_up_epochs: int = 1
    ramp_up_epochs: int = 10
    lr_decay_factor: float = 0.2
    lr_decay_epoch_1: int = 0
    lr_decay_epoch_2: int = 0
    l1_reg_weight: float = 0.0
    train_eps_factor: float = 1.0
    start_kappa: float = 0.0
    end_kappa: float = 0.0          # fraction of start_kappa reached at the end of the ramp
    end_beta: float = 0.0           # CROWN-IBP only (beta goes 1 -> end_beta)
    subselection_ratio: float = 0.4  # SABR lambda
    mtl_alpha: float = 0.5          # MTL-IBP alpha
    pgd_steps: int = 1
    pgd_alpha: float = 0.5          # PGD step size relative to the attack radius
    pgd_eps_factor: float = 1.0

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.optimizer not in ("adam", "adamw", "radam"):
            raise ValueError(f"optimizer must be adam, adamw or radam, got {self.optimizer!r}")
        if not self.learning_rate > 0 or not 0 < self.lr_decay_factor <= 1:
            raise ValueError("learning_rate must be > 0 and lr_decay_factor in (0, 1]")
        if min(self.warm_up_epochs, self.ramp_up_epochs, self.lr_decay_epoch_1, self.lr_decay_epoch_2) < 0:
            raise ValueError("epoch counts must be >= 0")
        for name in ("start_kappa", "end_kappa", "end_beta", "mtl_alpha"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        if self.train_eps_factor <= 0 or self.pgd_eps_factor <= 0 or self.l1_reg_weight < 0:
            raise ValueError("train_eps_factor, pgd_eps_factor must be > 0 and l1_reg_weight >= 0")
        if not 0 < self.subselection_ratio <= 1 or self.pgd_steps < 1 or self.pgd_alpha <= 0:
            raise ValueError("need 0 < subselection_ratio <= 1, pgd_steps >= 1, pgd_alpha > 0")

    def milestones(self) -> tuple[int, int]:
        """Epochs of the two lr decays: counted from the end of the eps ramp (as in CTRAIN)."""
        m1 = self.warm_up_epochs + self.ramp_up_epochs + self.lr_decay_epoch_1
        return m1, m1 + self.lr_decay_epoch_2


_OPTIMIZERS = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW, "radam": torch.optim.RAdam}


def train_certified(model: nn.Module, x: torch.Tensor, y: torch.Tensor, config: TrainConfig, eps: float,
                    epochs: int, batch_size: int = 128, seed: int = 0, grad_clip: float = 10.0) -> nn.Module:
    """Train ``model`` in place with ``config.method`` for certified robustness at ``eps``; returns it.

    Per batch (``s`` = fractional epoch): ``eps_t = smoothed_eps(s) * train_eps_factor``; ``rho`` the ramp
    fraction; ``kappa = start_kappa * (1 - rho + rho * end_kappa)``; ``beta = 1 - rho (1 - end_beta)``.
    While ``eps_t == 0`` every method trains on clean CE. An l1 penalty on weights is added.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the certified-training schedules
    compared by the paper.
    """
    if not torch.is_tensor(x) or not torch.is_tensor(y) or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ValueError("x and y must be non-empty tensors with the same first dimension")
    if not torch.isfinite(x).all():
        raise ValueError("x contains NaN or inf")
    if eps < 0 or epochs < 1 or batch_size < 1:
        raise ValueError("need eps >= 0, epochs >= 1 and batch_size >= 1")
    gen = torch.Generator().manual_seed(int(seed))
    opt = _OPTIMIZERS[config.optimizer](model.parameters(), lr=config.learning_rate)
    m1, m2 = config.milestones()
    n = x.shape[0]
    n_batches = math.ceil(n / batch_size)
    model.train()
    for epoch in range(epochs):
        lr = config.learning_rate * config.lr_decay_factor ** ((epoch >= m1) + (epoch >= m2))
        for g in opt.param_groups:
            g["lr"] = lr
        perm = torch.randperm(n, generator=gen)
        for b in range(n_batches):
            idx = perm[b * batch_size:(b + 1) * batch_size]
            xb, yb = x[idx], y[idx]
            s = epoch + b / n_batches
            eps_t = smoothed_eps(s, config.warm_up_epochs, config.ramp_up_epochs, eps) * config.train_eps_factor
            rho = ramp_fraction(s, config.warm_up_epochs, config.ramp_up_epochs)
            loss = _method_loss(model, xb, yb, config, eps_t, rho, gen)
            if config.l1_reg_weight > 0:
                loss = loss + config.l1_reg_weight * sum(
                    p.abs().sum() for name, p in model.named_parameters() if name.endswith("weight"))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            opt.step()
    model.eval()
    return model


def _method_loss(model, xb, yb, config: TrainConfig, eps_t: float, rho: float, gen) -> torch.Tensor:
    if eps_t <= 0:
        return F.cross_entropy(model(xb), yb)
    if config.method in ("ibp", "crown-ibp"):
        kappa = config.start_kappa * (1 - rho + rho * config.end_kappa)
        if config.method == "ibp":
            robust = ibp_loss(model, xb, yb, eps_t)
        else:
            robust = crown_ibp_loss(model, xb, yb, eps_t, beta=1 - rho * (1 - config.end_beta))
        if kappa > 0:
            return kappa * F.cross_entropy(model(xb), yb) + (1 - kappa) * robust
        return robust
    if config.method == "sabr":
        return sabr_loss(model, xb, yb, eps_t, config.subselection_ratio, config.pgd_steps, config.pgd_alpha,
                         config.pgd_eps_factor, generator=gen)
    return mtl_ibp_loss(model, xb, yb, eps_t, config.mtl_alpha, config.pgd_steps, config.pgd_alpha,
                        config.pgd_eps_factor, generator=gen)


# ---------------------------------------------------------------- evaluation
@torch.no_grad()
def certify(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, bound: str = "best") -> torch.Tensor:
    """Bool ``(B,)``: every margin lower bound ``z_y - z_j`` (``j != y``) over ``B(x, eps) ∩ [0,1]`` is > 0."""
    lo, hi = input_box(x, eps)
    m = margin_lower_bounds(model, lo, hi, y, bound)
    m = m.masked_fill(F.one_hot(y, m.shape[1]).bool(), float("inf"))
    return (m > 0).all(1)


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor, eps: float, pgd_steps: int = 0,
             pgd_restarts: int = 1, seed: int = 0, return_masks: bool = False) -> dict[str, Any]:
    """Natural accuracy, certified accuracy and (with ``pgd_steps > 0``) PGD accuracy and soundness counts.

    ``unsound`` counts points that are certified yet broken by the attack (must be 0 for sound bounds).
    With ``return_masks``: ``certified`` and ``broken`` (misclassified or attacked successfully), (B,) bool.
    """
    model.eval()
    with torch.no_grad():
        correct = model(x).argmax(1) == y
    cert = certify(model, x, y, eps)
    out: dict[str, Any] = {"nat_acc": float(correct.float().mean()), "cert_acc": float(cert.float().mean()),
                           "n_certified": int(cert.sum())}
    if pgd_steps > 0:
        gen = torch.Generator().manual_seed(int(seed))
        broken = ~correct
        for r in range(pgd_restarts):
            _, b = pgd_attack(model, x, y, eps, pgd_steps, 2.5 * eps / pgd_steps, loss="margin",
                              random_start=r > 0, generator=gen, return_broken=True)
            broken |= b
        out["adv_acc"] = float((~broken).float().mean())
        out["unsound"] = int((cert & broken).sum())
    if return_masks:
        out["certified"] = cert
        out["broken"] = broken if pgd_steps > 0 else ~correct
    return out


# ---------------------------------------------------------------- Pareto utilities
def _points(points, name: str = "points") -> np.ndarray:
    p = as_array(name, points, ndim=2, nonempty=False)
    if p.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got {p.shape}")
    return p


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """``a`` weakly Pareto-dominates ``b`` under maximisation: >= in both objectives, > in at least one."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return bool(np.all(a >= b) and np.any(a > b))


def pareto_mask(points) -> np.ndarray:
    """Bool ``(n,)``: True for points no other point dominates (maximisation; duplicates all kept)."""
    p = _points(points)
    n = p.shape[0]
    ge = (p[:, None, :] >= p[None, :, :]).all(-1)   # ge[i, j]: i >= j in both
    gt = (p[:, None, :] > p[None, :, :]).any(-1)
    dominated = (ge & gt).any(0)
    return ~dominated if n else np.zeros(0, bool)


def hypervolume_2d(points, ref: Sequence[float] = (0.0, 0.0)) -> float:
    """Area dominated by ``points`` (maximisation) and bounded below by ``ref``; exact, O(n log n)."""
    p = _points(points) if not hasattr(points, "__len__") or len(points) else np.zeros((0, 2))
    r = as_array("ref", ref, ndim=1)
    p = p[(p > r).all(1)]
    if p.size == 0:
        return 0.0
    p = p[np.argsort(-p[:, 0], kind="stable")]
    area, best_y = 0.0, r[1]
    for px, py in p:
        if py > best_y:
            area += (px - r[0]) * (py - best_y)
            best_y = py
    return float(area)


def nat_gain_at_matched_cert(front, point) -> float:
    """Largest natural-accuracy gain over ``point`` among front points with certified accuracy >= its own.

    Points are ``(nat, cert)``; NaN when no front point reaches ``point``'s certified accuracy.
    """
    f = _points(front, "front")
    pt = as_array("point", point, ndim=1)
    if pt.shape != (2,):
        raise ValueError(f"point must be (nat, cert), got shape {pt.shape}")
    ok = f[:, 1] >= pt[1]
    return float(f[ok, 0].max() - pt[0]) if ok.any() else float("nan")


# ---------------------------------------------------------------- search spaces and the study
def suggest_config(trial, method: str, epochs: int) -> TrainConfig:
    """Sample one configuration from the CTRAIN search space of ``method`` (scaled to ``epochs``).

    Common: warm_up_epochs [0, max(1, E/8)], ramp_up_epochs [ceil(E/4), ceil(3E/4)], lr [1e-5, 0.1] log,
    optimizer {adam, adamw, radam}, lr_decay_factor [1e-5, 0.9] log, lr_decay_epoch_1 [0, ceil(E/2)],
    lr_decay_epoch_2 [0, ceil(E/4)], l1_reg_weight [1e-8, 1e-4] log, train_eps_factor [1, 2].
    IBP / CROWN-IBP: start_kappa, end_kappa in [0, 1] (+ end_beta in [0, 1]).
    SABR: subselection_ratio [1e-3, 0.5] log, pgd_steps [1, 10], pgd_alpha [0.1, 2], pgd_eps_factor [1, 3].
    MTL-IBP: alpha [1e-3, 0.5] log, pgd_steps [1, 10], pgd_alpha [0.1, 2], eps_factor [1, 3].
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if epochs < 4:
        raise ValueError(f"epochs must be >= 4 for the search space, got {epochs}")
    c: dict[str, Any] = dict(
        method=method,
        warm_up_epochs=trial.suggest_int("warm_up_epochs", 0, max(1, epochs // 8)),
        ramp_up_epochs=trial.suggest_int("ramp_up_epochs", math.ceil(epochs / 4), math.ceil(0.75 * epochs)),
        learning_rate=trial.suggest_float("learning_rate", 1e-5, 0.1, log=True),
        optimizer=trial.suggest_categorical("optimizer", ["adam", "adamw", "radam"]),
        lr_decay_factor=trial.suggest_float("lr_decay_factor", 1e-5, 0.9, log=True),
        lr_decay_epoch_1=trial.suggest_int("lr_decay_epoch_1", 0, math.ceil(epochs / 2)),
        lr_decay_epoch_2=trial.suggest_int("lr_decay_epoch_2", 0, math.ceil(epochs / 4)),
        l1_reg_weight=trial.suggest_float("l1_reg_weight", 1e-8, 1e-4, log=True),
        train_eps_factor=trial.suggest_float("train_eps_factor", 1.0, 2.0),
    )
    if method in ("ibp", "crown-ibp"):
        c["start_kappa"] = trial.suggest_float("start_kappa", 0.0, 1.0)
        c["end_kappa"] = trial.suggest_float("end_kappa", 0.0, 1.0)
        if method == "crown-ibp":
            c["end_beta"] = trial.suggest_float("end_beta", 0.0, 1.0)
    else:
        if method == "sabr":
            c["subselection_ratio"] = trial.suggest_float("subselection_ratio", 1e-3, 0.5, log=True)
        else:
            c["mtl_alpha"] = trial.suggest_float("mtl_alpha", 1e-3, 0.5, log=True)
        c["pgd_steps"] = trial.suggest_int("pgd_steps", 1, 10)
        c["pgd_alpha"] = trial.suggest_float("pgd_alpha", 0.1, 2.0)
        c["pgd_eps_factor"] = trial.suggest_float("pgd_eps_factor", 1.0, 3.0)
    return TrainConfig(**c)


def make_sampler(name: str, seed: int):
    """Optuna multi-objective sampler: ``"gp"`` (GP-based BO, the closest to the paper's BoTorch
    sampler), ``"tpe"`` (MOTPE), ``"nsga2"`` (the paper's alternative) or ``"random"``."""
    import optuna

    if name == "gp":
        return optuna.samplers.GPSampler(seed=seed, n_startup_trials=5)
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=5, multivariate=True)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=8)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"sampler must be 'gp', 'tpe', 'nsga2' or 'random', got {name!r}")


def run_study(objective: Callable[[TrainConfig], tuple[float, float]], method: str, epochs: int,
              n_trials: int, sampler: str = "tpe", seed: int = 0,
              enqueue: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """Multi-objective HPO of one method: maximise ``objective(config) = (nat_acc, cert_acc)`` on validation.

    Returns one record per trial: ``{"params", "config", "values": (nat, cert)}``. ``enqueue`` lists
    parameter dicts to evaluate first (e.g. a published configuration).
    """
    import optuna

    if n_trials < 1:
        raise ValueError(f"n_trials must be >= 1, got {n_trials}")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(directions=["maximize", "maximize"], sampler=make_sampler(sampler, seed))
    for params in enqueue:
        study.enqueue_trial(dict(params))
    records: list[dict[str, Any]] = []

    def _obj(trial):
        cfg = suggest_config(trial, method, epochs)
        nat, cert = objective(cfg)
        records.append({"params": dict(trial.params), "config": cfg, "values": (float(nat), float(cert))})
        return float(nat), float(cert)

    study.optimize(_obj, n_trials=n_trials)
    return records
