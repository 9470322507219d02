"""Multi-state penalty VMC on a toy Hamiltonian, with the overlap penalty estimated either from each
state's own samples or by MSIS (arXiv:2603.14515, Sec. 3; the card's plan B).

Ansatz: ``Ns`` states in a fixed basis of ``K`` grid functions ``phi_k`` (harmonic-oscillator
eigenfunctions, so the double-well states are not in the basis exactly):
``psi_s(x) = sum_k C[s, k] phi_k(x)``. Every iteration draws ``N`` exact samples per state from
``psi_s^2`` (the Metropolis chain of VMC, made exact on the grid), and minimises

    L = sum_s E_s + sum_{i > j} alpha S_ij^2            (only the higher state i is pushed away)

by Adam, with the sampling density held fixed inside each step (its parameters detached):

    E_s   = sum_{x ~ s} psi_s H psi_s / p_s  /  sum_{x ~ s} psi_s^2 / p_s,     p_s = psi_s^2 (detached)
    per-state:  R_ij = sum_{x ~ i} psi_i psi_j / p_i  /  sum_{x ~ i} psi_i^2 / p_i
    MSIS:       R_ij = sum_{x in pool} psi_i psi_j / Q  /  sum_{x in pool} psi_i^2 / Q,
                Q = sum_k psi_k^2 / c_k (detached; c from the bridge-sampling solve of
                :func:`~icml26.science.msis.method.normalizer_ratios`)
    S_ij^2 = max(R_ij R_ji, 0)      with psi_j (the lower state) detached in the penalty of state i.

The values of ``E_s`` and ``R_ij`` are exactly the estimators of the paper; the gradients are
those of the self-normalised estimators with the sampling distribution fixed. Both variants
evaluate every state on every one of the ``Ns N`` samples, so they cost the same number of
wave-function evaluations. The result is judged on the grid, exactly: the Rayleigh quotient of
each final state against the lowest Ritz values of the basis (the best this ansatz can reach).
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.core.validate import as_array, as_rng, check_int, check_positive
from icml26.science.msis.method import normalizer_ratios
from icml26.science.msis.setting import _fd_eigs, sample_grid


def double_well_problem(n_basis: int, grid: int = 600) -> dict:
    """Grid, basis ``phi: (grid, K)`` (harmonic-oscillator eigenfunctions), ``H phi`` and the Ritz
    values ``(K,)`` of the double well ``V = x^4/4 - x^2`` in that basis."""
    n_basis = check_int("n_basis", n_basis, minimum=2)
    grid = check_int("grid", grid, minimum=n_basis + 2)
    x = np.linspace(-6.0, 6.0, grid)
    h = x[1] - x[0]
    _, phi = _fd_eigs(x, 0.5 * x ** 2, n_basis)
    V = x ** 4 / 4 - x ** 2
    lap = np.zeros_like(phi)  # -1/2 phi'' by the same 3-point stencil as _fd_eigs (zero outside the box)
    lap[1:-1] = -(phi[2:] - 2 * phi[1:-1] + phi[:-2])
    lap[0] = -(phi[1] - 2 * phi[0])
    lap[-1] = -(phi[-2] - 2 * phi[-1])
    h_phi = 0.5 * lap / h ** 2 + V[:, None] * phi
    ritz = np.linalg.eigvalsh(0.5 * (phi.T @ h_phi + h_phi.T @ phi))
    return {"x": x, "phi": phi, "h_phi": h_phi, "ritz": ritz}


def _penalty_sq(a: torch.Tensor, a_det: torch.Tensor, w: torch.Tensor, chains: torch.Tensor | None
                ) -> torch.Tensor:
    """``S_ij^2 = max(R_ij R_ji, 0)`` with gradients through state i only: ``(Ns, Ns)``.

    a: ``(M, Ns)`` live state values at the samples, a_det: the same detached, w: ``(M, Ns)``
    per-sample weights of each state's estimator (``1/p_s`` restricted to its own chain for the
    per-state estimator, ``1/Q`` on the whole pool for MSIS), chains: unused (kept for clarity).
    """
    # R_ij (state i's estimator, live psi_i, detached psi_j) and R_ji (state j's estimator,
    # detached psi_j, live psi_i)
    num_i = (a * w).T @ a_det                        # [i, j] = sum w_i psi_i psi_j
    den_i = (a * a * w).sum(0)                       # [i]    = sum w_i psi_i^2
    num_j = (a_det * w).T @ a                        # [j, i] = sum w_j psi_j psi_i
    den_j = (a_det * a_det * w).sum(0)               # [j]
    r_ij = num_i / den_i[:, None]
    r_ji = num_j.T / den_j[None, :]
    return torch.clamp(r_ij * r_ji, min=0.0)


def penalty_vmc(problem: dict, n_states: int, estimator: str, n_per_state: int, iters: int, rng,
                lr: float = 0.02, penalty: float = 10.0, init_noise: float = 0.3) -> dict:
    """Train ``n_states`` states by penalty VMC with the ``estimator`` ("per_state" or "msis") overlaps.

    Returns the exact energies ``(Ns,)`` of the final states, the target Ritz values, the mean
    absolute energy error at the start and the end, the largest exact overlap between final
    states, and the training curve of the mean energy error (exact, every 10 iterations).

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's penalty VMC, whose
    gradient is a Monte Carlo estimate with the chosen overlap estimator.
    """
    if estimator not in ("per_state", "msis"):
        raise ValueError(f"estimator must be 'per_state' or 'msis', got {estimator!r}")
    n_states = check_int("n_states", n_states, minimum=2)
    n_per_state = check_int("n_per_state", n_per_state, minimum=1)
    iters = check_int("iters", iters, minimum=1)
    lr, penalty = check_positive("lr", lr), check_positive("penalty", penalty)
    init_noise = check_positive("init_noise", init_noise, strict=False)
    rng = as_rng("rng", rng)
    phi, h_phi = as_array("phi", problem["phi"], ndim=2), as_array("h_phi", problem["h_phi"], ndim=2)
    K = phi.shape[1]
    if n_states >= K:
        raise ValueError(f"n_states must be below the basis size {K}, got {n_states}")
    target = np.sort(problem["ritz"])[:n_states]
    C0 = np.eye(n_states, K) + init_noise * rng.normal(size=(n_states, K))
    C = torch.tensor(C0, requires_grad=True)
    opt = torch.optim.Adam([C], lr=lr)
    phi_t, hphi_t = torch.as_tensor(phi), torch.as_tensor(h_phi)
    gram, hmat = phi.T @ phi, 0.5 * (phi.T @ h_phi + h_phi.T @ phi)
    mask = torch.tril(torch.ones(n_states, n_states, dtype=torch.float64), diagonal=-1)

    def exact_energies(c: np.ndarray) -> np.ndarray:
        return np.einsum("sk,kl,sl->s", c, hmat, c) / np.einsum("sk,kl,sl->s", c, gram, c)

    def err(c: np.ndarray) -> float:
        return float(np.mean(np.abs(exact_energies(c) - target)))

    curve = [err(C0)]
    for it in range(iters):
        with torch.no_grad():
            psi_grid = (phi_t @ C.T).numpy()
        idx = sample_grid(psi_grid, n_per_state, rng)               # (Ns, N)
        flat = torch.as_tensor(idx.reshape(-1))
        a = phi_t[flat] @ C.T                                        # (Ns*N, Ns) all states at all samples
        a_det = a.detach()
        own = torch.arange(n_states).repeat_interleave(n_per_state)  # chain of each sample
        own_val = a_det[torch.arange(a.shape[0]), own]
        # energies from each state's own chain
        ha = hphi_t[flat] @ C.T
        w_own = 1.0 / own_val ** 2
        onehot = torch.nn.functional.one_hot(own, n_states).to(a.dtype)
        num_e = (onehot * a * ha * w_own[:, None]).sum(0)
        den_e = (onehot * a * a * w_own[:, None]).sum(0)
        energies = num_e / den_e
        if estimator == "per_state":
            w = onehot * w_own[:, None]                              # state s weighs its own chain only
        else:
            lp = np.log(np.abs(a_det.numpy()) + 1e-300).reshape(n_states, n_per_state, n_states)
            log_c = normalizer_ratios(lp, iterations=10)
            log_q = torch.logsumexp(2 * torch.log(a_det.abs() + 1e-300) - torch.as_tensor(log_c)[None, :], dim=1)
            w = torch.exp(-log_q)[:, None].expand(-1, n_states)
        s2 = _penalty_sq(a, a_det, w, own)
        loss = energies.sum() + penalty * (mask * s2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (it + 1) % 10 == 0 or it + 1 == iters:
            curve.append(err(C.detach().numpy()))
    c_final = C.detach().numpy()
    g = c_final @ gram @ c_final.T
    dn = np.sqrt(np.diag(g))
    s_exact = g / np.outer(dn, dn)
    return {"energies": exact_energies(c_final).tolist(), "target": target.tolist(), "err_start": curve[0],
            "err_end": err(c_final), "max_overlap": float(np.max(np.abs(s_exact[np.triu_indices(n_states, 1)]))),
            "curve": curve}
