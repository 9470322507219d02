"""Gradient Path Matching (GPM) for adaptive testing, with the baselines it is compared to.

Zhuang, Yu, Zhang, Pardos, Wu, Zhang, "Efficient Adaptive Testing via Gradient Path Matching
Subset Selection for AI Education", ICML 2026 (OpenReview XnK6Jr0i8D). Only the abstract is
public; the parts marked *reconstruction* below are ours, built from the abstract, the
predecessor BECAT (Zhuang et al., NeurIPS 2023) and the structure of the authors' public
training code for the gradient-path training (bi-level: soft selection mask, inner gradient
steps on the ability, outer loss on intermediate gradients).

Cognitive model (multidimensional 2PL, slope-intercept; d = 1 is the usual 2PL with
``c_q = -a_q b_q``)::

    P(y_q = 1 | theta) = sigmoid(a_q . theta + c_q)
    l_q(theta) = BCE(y_q, P),    grad l_q(theta) = -(y_q - P) a_q

BECAT frames adaptive testing as data summarisation: pick the subset S whose mean gradient
matches the full bank's, ``g_S(theta) = (1/|S|) sum_{q in S} grad l_q`` vs ``g_Q(theta)``,
over the whole ability space. GPM matches them only along the optimisation path toward the
estimate: with ``theta^{k+1} = theta^k - eta grad L_S(theta^k)`` the path-matching loss is

    L_path(S) = sum_t sum_k || g_S(theta_t^k) - g_Q(theta_t^k) ||^2

and these intermediate gradients supervise a selection policy trained on examinees whose
full responses are known (so g_Q is computable); at test time the policy picks items with
no access to unanswered responses.

*Reconstruction* (not given by the abstract): the policy is a small MLP that scores every
unanswered item from per-item features at the current estimate (logit, P, P(1-P), Fisher
information, D-optimal information gain, ||a||, progress t/T) -- linear in the bank size per
step; selection during training is a straight-through Gumbel-softmax sample so that the soft
mask carries gradients through K inner gradient steps (step eta) into L_path; the inner
objective is the MAP loss (N(0, I) prior) averaged over the answered items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


# ----------------------------------------------------------------------------- IRT
def _check_bank(a: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=float)
    c = np.asarray(c, dtype=float)
    if a.ndim != 2:
        raise ValueError(f"a must have shape (Q, d), got {a.shape}")
    if c.shape != (a.shape[0],):
        raise ValueError(f"c must have shape ({a.shape[0]},), got {c.shape}")
    if a.shape[0] == 0:
        raise ValueError("the item bank is empty")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(c))):
        raise ValueError("item parameters a, c contain NaN or inf")
    return a, c


def prob(theta: np.ndarray, a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """P(correct). theta: (B, d), a: (Q, d), c: (Q,). Returns (B, Q)."""
    a, c = _check_bank(a, c)
    theta = np.asarray(theta, dtype=float)
    if theta.ndim != 2 or theta.shape[1] != a.shape[1]:
        raise ValueError(f"theta must have shape (B, {a.shape[1]}), got {theta.shape}")
    return 1.0 / (1.0 + np.exp(-(theta @ a.T + c)))


def item_gradients(theta: np.ndarray, a: np.ndarray, c: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-item BCE gradients w.r.t. theta: ``-(y - P) a``. y: (B, Q) in {0, 1}. Returns (B, Q, d)."""
    p = prob(theta, a, c)
    y = np.asarray(y, dtype=float)
    if y.shape != p.shape:
        raise ValueError(f"y must have shape {p.shape}, got {y.shape}")
    return -(y - p)[..., None] * np.asarray(a, dtype=float)[None]


def map_estimate(y: np.ndarray, mask: np.ndarray, a: np.ndarray, c: np.ndarray,
                 prior_var: float = 1.0, iters: int = 50, max_step: float = 1.0) -> np.ndarray:
    """MAP ability under an N(0, prior_var I) prior from the answered items (batched Newton,
    steps capped at ``max_step`` in norm).

    y, mask: (B, Q) responses and 0/1 answered mask. Returns theta (B, d).
    """
    a, c = _check_bank(a, c)
    y = np.asarray(y, dtype=float)
    mask = np.asarray(mask, dtype=float)
    if y.shape != mask.shape or y.ndim != 2 or y.shape[1] != a.shape[0]:
        raise ValueError(f"y and mask must both have shape (B, {a.shape[0]}), got {y.shape}, {mask.shape}")
    if prior_var <= 0:
        raise ValueError(f"prior_var must be > 0, got {prior_var}")
    B, d = y.shape[0], a.shape[1]
    theta = np.zeros((B, d))
    eye = np.eye(d) / prior_var
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(theta @ a.T + c)))
        g = -((mask * (y - p)) @ a) + theta / prior_var                    # (B, d)
        w = mask * p * (1 - p)                                              # (B, Q)
        H = np.einsum("bq,qi,qj->bij", w, a, a) + eye                       # (B, d, d)
        step = np.linalg.solve(H, g[..., None])[..., 0]
        # damped Newton: a full step can overshoot far from the optimum (the objective is
        # strictly convex, so capping the step length keeps every iterate a descent path)
        norm = np.linalg.norm(step, axis=1, keepdims=True)
        step = step * np.minimum(1.0, max_step / np.maximum(norm, 1e-300))
        theta = theta - step
        if np.max(np.abs(step)) < 1e-8:
            break
    return theta


def information(theta: np.ndarray, a: np.ndarray, c: np.ndarray, mask: np.ndarray,
                prior_var: float = 1.0) -> np.ndarray:
    """Posterior precision at theta: prior + sum over answered items of P(1-P) a a^T. Returns (B, d, d)."""
    p = prob(theta, a, c)
    w = np.asarray(mask, dtype=float) * p * (1 - p)
    return np.einsum("bq,qi,qj->bij", w, a, a) + np.eye(a.shape[1]) / prior_var


# ----------------------------------------------------------------------------- baselines
def _masked_argmax(score: np.ndarray, avail: np.ndarray) -> np.ndarray:
    return np.argmax(np.where(avail > 0, score, -np.inf), axis=1)


def select_random(avail: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniformly random unanswered item per examinee. avail: (B, Q) 0/1. Returns (B,) indices."""
    return _masked_argmax(rng.random(avail.shape), avail)


def select_mfi(theta: np.ndarray, a: np.ndarray, c: np.ndarray, avail: np.ndarray,
               info: np.ndarray) -> np.ndarray:
    """Maximum Fisher information. For d = 1 this is argmax P(1-P) a^2; for d > 1 the
    D-optimal rule: argmax det(info + I_q), i.e. argmax P(1-P) a^T info^{-1} a. info: (B, d, d)."""
    p = prob(theta, a, c)
    inv = np.linalg.inv(info)
    quad = np.einsum("qi,bij,qj->bq", a, inv, a)
    return _masked_argmax(p * (1 - p) * quad, avail)


def select_kli(theta: np.ndarray, a: np.ndarray, c: np.ndarray, avail: np.ndarray, t: int,
               n_points: int = 16, seed: int = 0) -> np.ndarray:
    """KL information (Chang & Ying 1996): average over theta' in theta +- delta (delta = 3 /
    sqrt(t + 1), a fixed set of n_points offsets in the d-cube) of KL(P(theta) || P(theta'))."""
    d = a.shape[1]
    offs = np.random.default_rng(seed).uniform(-1, 1, size=(n_points, d)) if d > 1 else \
        np.linspace(-1, 1, n_points)[:, None]
    delta = 3.0 / np.sqrt(t + 1)
    p0 = np.clip(prob(theta, a, c), 1e-9, 1 - 1e-9)
    kl = np.zeros_like(p0)
    for o in offs:
        p1 = np.clip(prob(theta + delta * o, a, c), 1e-9, 1 - 1e-9)
        kl += p0 * np.log(p0 / p1) + (1 - p0) * np.log((1 - p0) / (1 - p1))
    return _masked_argmax(kl / len(offs), avail)


def becat_expected_distance(theta: np.ndarray, a: np.ndarray, c: np.ndarray, rows: np.ndarray,
                            cols: np.ndarray) -> np.ndarray:
    """E_{y_i, y_j ~ model} || grad l_i(theta) - grad l_j(theta) || for item pairs.

    theta: (B, d); rows: (B, R), cols: (B, C) item indices. Returns (B, R, C).
    """
    p = prob(theta, a, c)
    pr = np.take_along_axis(p, rows, 1)
    pc = np.take_along_axis(p, cols, 1)
    ar = a[rows]                                            # (B, R, d)
    ac = a[cols]                                            # (B, C, d)
    out = 0.0
    for yi in (0.0, 1.0):
        gi = -(yi - pr)[..., None] * ar                     # (B, R, d)
        wi = pr if yi else 1 - pr
        for yj in (0.0, 1.0):
            gj = -(yj - pc)[..., None] * ac
            wj = pc if yj else 1 - pc
            dist = np.linalg.norm(gi[:, :, None, :] - gj[:, None, :, :], axis=-1)
            out = out + wi[:, :, None] * wj[:, None, :] * dist
    return out


def becat_gains(theta: np.ndarray, a: np.ndarray, c: np.ndarray, selected: np.ndarray,
                ref: np.ndarray) -> np.ndarray:
    """BECAT's marginal gains ``F(S + q) - F(S)`` for every item q (Zhuang et al. 2023).

    Facility-location surrogate of the expected gradient difference: ``F(S) = sum_{i in V
    minus S} max_{j in S} w_ij`` with ``w_ij = D - E||grad l_i - grad l_j||`` (D a constant
    making w >= 0; an empty S covers nothing), evaluated on the reference set V = S + ref + {q}.
    theta: (B, d); selected: (B, t) answered items (t may be 0); ref: (B, R) unanswered
    reference items. Returns (B, Q).
    """
    B = theta.shape[0]
    Q = a.shape[0]
    t = selected.shape[1]
    V = np.concatenate([selected, ref], axis=1)                      # (B, t + R)
    in_S = np.zeros(V.shape, dtype=bool)
    in_S[:, :t] = True
    cand = np.broadcast_to(np.arange(Q), (B, Q))
    E_vc = becat_expected_distance(theta, a, c, V, cand)            # (B, |V|, Q)
    if t:
        E_vs = becat_expected_distance(theta, a, c, V, selected)    # (B, |V|, t)
        E_qs = becat_expected_distance(theta, a, c, cand, selected)  # (B, Q, t)
        D = max(E_vc.max(), E_vs.max(), E_qs.max())
        m_V = (D - E_vs).max(axis=2)                                 # (B, |V|) coverage by S
        m_q = (D - E_qs).max(axis=2)                                 # (B, Q)
    else:
        D = E_vc.max()
        m_V = np.zeros(V.shape)
        m_q = np.zeros((B, Q))
    gain_terms = np.maximum(0.0, (D - E_vc) - m_V[:, :, None])       # (B, |V|, Q)
    gain_terms = np.where(in_S[:, :, None], 0.0, gain_terms)
    same = V[:, :, None] == np.arange(Q)[None, None, :]              # q leaves V minus S
    # when q lies outside V it joins V for F(S) only, where it is covered by m_q
    return np.where(same, 0.0, gain_terms).sum(axis=1) - m_q


def select_becat(theta: np.ndarray, a: np.ndarray, c: np.ndarray, avail: np.ndarray,
                 selected: np.ndarray, rng: np.random.Generator, extra: int = 5) -> np.ndarray:
    """BECAT greedy step: reference set = |S| + ``extra`` random unanswered items (as in the
    authors' EduCAT implementation); picks the unanswered item with the largest gain. Returns (B,)."""
    B, Q = avail.shape
    n_ref = min(selected.shape[1] + extra, int(avail.sum(axis=1).min()))
    ref = np.argsort(np.where(avail > 0, rng.random((B, Q)), np.inf), axis=1)[:, :n_ref]
    return _masked_argmax(becat_gains(theta, a, c, selected, ref), avail)


# ----------------------------------------------------------------------------- GPM
N_FEATURES = 7


def gpm_features(theta: np.ndarray, a: np.ndarray, c: np.ndarray, info: np.ndarray, t: int,
                 T: int) -> np.ndarray:
    """Per-item policy features at the current estimate. Returns (B, Q, N_FEATURES)."""
    z = np.asarray(theta) @ a.T + c
    p = 1.0 / (1.0 + np.exp(-z))
    v = p * (1 - p)
    inv = np.linalg.inv(info)
    quad = np.einsum("qi,bij,qj->bq", a, inv, a)
    norm_a = np.broadcast_to(np.linalg.norm(a, axis=1), p.shape)
    return np.stack([np.tanh(z / 4), p, v, v * (a ** 2).sum(1), np.log1p(v * quad), norm_a,
                     np.full_like(p, t / max(T, 1))], axis=-1)


def make_policy(hidden: int = 32):
    """The GPM scorer: an MLP mapping an item's features to a selection logit."""
    import torch

    return torch.nn.Sequential(torch.nn.Linear(N_FEATURES, hidden), torch.nn.Tanh(),
                               torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                               torch.nn.Linear(hidden, 1))


def select_gpm(policy, theta: np.ndarray, a: np.ndarray, c: np.ndarray, avail: np.ndarray,
               info: np.ndarray, t: int, T: int) -> np.ndarray:
    """Greedy GPM step: the unanswered item with the highest policy score. Returns (B,)."""
    import torch

    feats = torch.as_tensor(gpm_features(theta, a, c, info, t, T), dtype=torch.float32)
    with torch.no_grad():
        score = policy(feats)[..., 0].double().numpy()
    return _masked_argmax(score, avail)


def path_matching_loss(m, y, a, c, theta0, K: int = 10, eta: float = 0.5, prior_var: float = 1.0):
    """GPM's intermediate-gradient loss for one selection step (torch, differentiable in ``m``).

    m: (B, Q) (soft) selection mask; y: (B, Q) full responses; a: (Q, d), c: (Q,) tensors;
    theta0: (B, d) start of the inner path. Runs K gradient steps of the averaged MAP loss on
    the selected items and returns (sum_k ||g_S(theta^k) - g_Q(theta^k)||^2 averaged over B,
    theta^K).
    """
    import torch

    if K < 1 or eta <= 0:
        raise ValueError(f"need K >= 1 and eta > 0, got K={K}, eta={eta}")
    n_sel = m.sum(1, keepdim=True)                                     # (B, 1)
    theta = theta0
    loss = torch.zeros((), dtype=theta0.dtype)
    for _ in range(K):
        r = y - torch.sigmoid(theta @ a.T + c)                         # (B, Q)
        step = (-(m * r) @ a + theta / prior_var) / (n_sel + 1.0)
        theta = theta - eta * step
        p = torch.sigmoid(theta @ a.T + c)
        r = y - p
        g_S = -(m * r) @ a / n_sel.clamp_min(1e-6)
        g_Q = -(r @ a) / a.shape[0]
        loss = loss + ((g_S - g_Q) ** 2).sum(1).mean()
    return loss, theta


@dataclass
class GPMTrainLog:
    losses: list


def train_gpm(a: np.ndarray, c: np.ndarray, Y: np.ndarray, T: int, iters: int = 300,
              batch: int = 64, K: int = 10, eta: float = 0.5, lr: float = 3e-3, tau: float = 1.0,
              hidden: int = 32, seed: int = 0):
    """Train the GPM policy on examinees with full responses Y (N, Q) over T-step episodes.

    Each iteration samples ``batch`` examinees, rolls out T selections with straight-through
    Gumbel-softmax samples of the policy (features at the detached path estimate), and descends
    the summed path-matching loss with Adam. Returns (policy, GPMTrainLog).
    """
    import torch

    a, c = _check_bank(a, c)
    Y = np.asarray(Y, dtype=float)
    if Y.ndim != 2 or Y.shape[1] != a.shape[0]:
        raise ValueError(f"Y must have shape (N, {a.shape[0]}), got {Y.shape}")
    if not 1 <= T <= a.shape[0]:
        raise ValueError(f"T must be in [1, {a.shape[0]}], got {T}")
    if iters < 1 or batch < 1:
        raise ValueError(f"iters and batch must be >= 1, got {iters}, {batch}")
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    policy = make_policy(hidden)
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    at = torch.as_tensor(a)
    ct = torch.as_tensor(c)
    Q, d = a.shape
    losses = []
    for _ in range(iters):
        idx = rng.choice(Y.shape[0], size=min(batch, Y.shape[0]), replace=False)
        y = torch.as_tensor(Y[idx])
        B = y.shape[0]
        m = torch.zeros(B, Q, dtype=torch.float64)
        avail = np.ones((B, Q))
        theta = torch.zeros(B, d, dtype=torch.float64)
        total = torch.zeros((), dtype=torch.float64)
        for t in range(T):
            th = theta.detach().numpy()
            info = information(th, a, c, (m.detach().numpy() > 0.5).astype(float))
            feats = torch.as_tensor(gpm_features(th, a, c, info, t, T), dtype=torch.float32)
            logits = policy(feats)[..., 0].double()
            logits = logits.masked_fill(torch.as_tensor(avail == 0), -1e9)
            u = torch.rand(B, Q, generator=gen, dtype=torch.float64).clamp(1e-12, 1 - 1e-12)
            gumbel = -torch.log(-torch.log(u))
            soft = torch.softmax((logits + gumbel) / tau, dim=1)
            hard = torch.zeros_like(soft).scatter_(1, soft.argmax(1, keepdim=True), 1.0)
            w = hard - soft.detach() + soft
            m = m + w
            avail[np.arange(B), hard.argmax(1).numpy()] = 0
            loss_t, theta = path_matching_loss(m, y, at, ct, theta, K=K, eta=eta)
            total = total + loss_t
        opt.zero_grad()
        total.backward()
        opt.step()
        losses.append(float(total.detach()) / T)
    return policy, GPMTrainLog(losses)


# ----------------------------------------------------------------------------- testing loop
def run_cat(select, y: np.ndarray, a: np.ndarray, c: np.ndarray, L: int) -> np.ndarray:
    """Adaptive test of length L for every examinee at once.

    ``select(theta, avail, info, selected, t) -> (B,)`` picks the next item; after each answer
    the ability is re-estimated by MAP. Returns estimates after each step, (B, L, d).
    """
    a, c = _check_bank(a, c)
    y = np.asarray(y, dtype=float)
    B, Q = y.shape
    if not 1 <= L <= Q:
        raise ValueError(f"L must be in [1, {Q}], got {L}")
    d = a.shape[1]
    mask = np.zeros((B, Q))
    theta = np.zeros((B, d))
    selected = np.zeros((B, 0), dtype=int)
    out = np.zeros((B, L, d))
    rows = np.arange(B)
    for t in range(L):
        info = information(theta, a, c, mask)
        q = np.asarray(select(theta, 1 - mask, info, selected, t), dtype=int)
        if np.any(mask[rows, q] > 0):
            raise RuntimeError("a selector picked an item that was already answered")
        mask[rows, q] = 1
        selected = np.concatenate([selected, q[:, None]], axis=1)
        theta = map_estimate(y, mask, a, c)
        out[:, t] = theta
    return out
