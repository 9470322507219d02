"""The simulated world of the PVMC reproduction: random stable linear-Gaussian models and
fixed Gaussian proposals around the exact smoothing marginals.

Everything here is public so that tests and benchmarks can build the same problems as
the experiment without importing its private names.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26.core.validate import as_rng, check_finite, check_int, check_positive
from icml26.decision.pvmc.method import LinearGaussianSSM


def random_stable_model(dx: int, dy: int, rng: np.random.Generator | int | None = None,
                        dtype: torch.dtype = torch.float64) -> LinearGaussianSSM:
    """A random linear-Gaussian SSM: singular values of A in [0.5, 0.9], C ~ N(0, 1/dx),
    process and observation noise sd 0.5, prior N(0, I)."""
    dx = check_int("dx", dx, minimum=1)
    dy = check_int("dy", dy, minimum=1)
    gen = as_rng("rng", rng)
    U, _ = np.linalg.qr(gen.normal(size=(dx, dx)))
    V, _ = np.linalg.qr(gen.normal(size=(dx, dx)))
    A = U @ np.diag(gen.uniform(0.5, 0.9, size=dx)) @ V.T
    C = gen.normal(size=(dy, dx)) / math.sqrt(dx)
    t = lambda a: torch.as_tensor(a, dtype=dtype)  # noqa: E731
    return LinearGaussianSSM.from_matrices(t(A), t(C), q_std=t(np.full(dx, 0.5)), r_std=t(np.full(dy, 0.5)),
                                           m0=t(np.zeros(dx)), s0_std=t(np.ones(dx)))


def perturbed_marginal_proposal(sm: torch.Tensor, sc: torch.Tensor, gen: torch.Generator, inflate: float = 1.5,
                                shift: float = 0.3) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed time-factorised Gaussian proposal around the exact smoothing marginals.

    sm (T+1, dx) RTS means, sc (T+1, dx, dx) RTS covariances -> mean (T+1, dx), std (T+1, dx):
    sd = ``inflate`` x the marginal sd, mean shifted by ``shift`` proposal sds at random, so the
    proposal is good but not exact (the importance weights are not constant).
    """
    for name, v in (("sm", sm), ("sc", sc)):
        if not torch.is_tensor(v):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(v).__name__}")
        check_finite(name, v)
    if sm.dim() != 2 or sc.shape != sm.shape + sm.shape[-1:]:
        raise ValueError(f"sm must be (T+1, dx) and sc (T+1, dx, dx), got sm {tuple(sm.shape)}, sc {tuple(sc.shape)}")
    inflate = check_positive("inflate", inflate)
    shift = check_positive("shift", shift, strict=False)
    std = inflate * torch.sqrt(torch.diagonal(sc, dim1=-2, dim2=-1))
    mean = sm + shift * std * torch.randn(sm.shape, generator=gen, dtype=sm.dtype)
    return mean, std


def draw_gaussian_particles(mean: torch.Tensor, std: torch.Tensor, draws: int, n: int,
                            gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``draws`` independent sets of ``n`` particles per step from N(mean_t, diag(std_t^2)).

    mean, std (T+1, dx) -> X (draws, T+1, n, dx), log V(X) (draws, T+1, n).
    """
    draws = check_int("draws", draws, minimum=1)
    n = check_int("n", n, minimum=1)
    for name, v in (("mean", mean), ("std", std)):
        if not torch.is_tensor(v):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(v).__name__}")
        check_finite(name, v)
        if v.dim() != 2:
            raise ValueError(f"{name} must have shape (T+1, dx), got {tuple(v.shape)}")
    if std.shape != mean.shape or not bool((std > 0).all()):
        raise ValueError(f"std must be positive with the shape of mean {tuple(mean.shape)}, got {tuple(std.shape)}")
    eps = torch.randn(draws, mean.shape[0], n, mean.shape[-1], generator=gen, dtype=mean.dtype)
    X = mean[None, :, None] + std[None, :, None] * eps
    log_v = (-0.5 * (eps * eps).sum(-1) - torch.log(std).sum(-1)[None, :, None]
             - 0.5 * mean.shape[-1] * math.log(2 * math.pi))
    return X, log_v


def EXAMPLES() -> list:
    """Good calls of the public API, for the common bad-input test."""
    from icml26.decision.pvmc import kalman
    from icml26.decision.pvmc import method as M

    g = torch.Generator().manual_seed(0)
    l0 = torch.randn(2, 3, generator=g, dtype=torch.float64)
    K = torch.randn(2, 4, 3, 3, generator=g, dtype=torch.float64)
    model = random_stable_model(2, 2, 0)
    y = torch.randn(2, 5, 2, generator=g, dtype=torch.float64)
    X = torch.randn(2, 5, 3, 2, generator=g, dtype=torch.float64)
    log_v = torch.randn(2, 5, 3, generator=g, dtype=torch.float64)
    A, Q, C, R, m0, P0 = (m.detach() for m in model.matrices())
    lw = torch.log_softmax(torch.randn(2, 5, 3, generator=g, dtype=torch.float64), -1)
    ssm32 = M.LinearGaussianSSM(2, 2, generator=torch.Generator().manual_seed(0))
    prop = M.GaussianWindowProposal(2, 2, window=1)
    y32, x32 = y.float(), torch.zeros(2, 5, 2)
    chain = {"l0": l0, "log_kernels": K}
    return [
        (M.pvmc_log_likelihood, chain), (M.pvmc_smoothing, chain), (M.forward_backward_sequential, chain),
        (M.iwae_log_bound, chain), (M.vae_bound, chain), (M.diagonal_log_weights, chain),
        (M.log_matmul_exp, {"a": K[:, 0], "b": K[:, 1]}),
        (M.smoothing_mean, {"log_weights": lw, "particles": X}),
        (M.log_kernels, {"ssm": model, "y": y, "X": X, "log_v": log_v}),
        (M.dsmc_smoother, {"ssm": model, "y": y, "X": X, "log_v": log_v}),
        (M.pvmc_objective, {"ssm": ssm32, "proposal": prop, "y": y32, "n_particles": 4, "x_true": x32, "beta": 1.0}),
        (M.dsmc_objective, {"ssm": ssm32, "proposal": prop, "y": y32, "n_particles": 4, "x_true": x32, "beta": 1.0}),
        (M.soft_resampling_pf, {"ssm": model, "y": y, "n_particles": 4, "alpha": 0.5}),
        (M.LinearGaussianSSM, {"dx": 2, "dy": 2, "rho_max": 0.98}),
        (M.LinearGaussianSSM.from_matrices, {"A": A, "C": C, "q_std": torch.full((2,), 0.5, dtype=torch.float64),
                                             "r_std": torch.full((2,), 0.5, dtype=torch.float64), "m0": m0,
                                             "s0_std": torch.ones(2, dtype=torch.float64)}),
        (M.GaussianWindowProposal, {"dx": 2, "dy": 2, "window": 2, "hidden": 8}),
        (kalman.kalman_filter, {"y": y, "A": A, "Q": Q, "C": C, "R": R, "m0": m0, "P0": P0}),
        (kalman.rts_smoother, {"y": y, "A": A, "Q": Q, "C": C, "R": R, "m0": m0, "P0": P0}),
        (random_stable_model, {"dx": 2, "dy": 2, "rng": 0}),
        (perturbed_marginal_proposal, {"sm": torch.zeros(3, 2, dtype=torch.float64),
                                       "sc": torch.eye(2, dtype=torch.float64).expand(3, 2, 2).clone(), "gen": g,
                                       "inflate": 1.5, "shift": 0.3}),
        (draw_gaussian_particles, {"mean": torch.zeros(3, 2, dtype=torch.float64),
                                   "std": torch.ones(3, 2, dtype=torch.float64), "draws": 2, "n": 3, "gen": g}),
    ]
