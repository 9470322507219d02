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

GPM's training, as in the structure of the authors' public training code (bigdata-ustc/BEAT):
the policy (``make_policy``) maps the signed responses over the whole bank to one logit per
item; the selection layer (``gpm_choice``) turns the policy's soft-max into a target
difficulty and draws the item by Gumbel-softmax over squared distances to it (straight-through,
so the soft mask carries gradients); per selection, one unrolled gradient step from the start
ability on the selected items gives theta', and the policy descends the gradient-path loss
``||g_S(theta') - g_Q(theta')||`` (``gradient_gap``); after each episode the item intercepts
and the start ability are updated (held-out BCE and path loss at the end of the inner path).
Where we depart from that code (the sign of the distance, the straight-through one-hot mask
instead of its soft Gumbel-softmax mask, the sets compared by the loss, its extra
finite-difference term) is said at each function and in the paper's substitution note; the
code's three training pieces are available through ``train_gpm(protocol=...)`` (``"ours"``,
``"code"`` or a subset, see ``protocol_pieces``), and ``oracle_path_loss`` measures what the
selection layer lets any policy reach on the training gate's path loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_array, check_int, check_positive


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
    theta = as_array("theta", theta, ndim=2)
    if theta.shape[1] != a.shape[1]:
        raise ValueError(f"theta must have shape (B, {a.shape[1]}), got {theta.shape}")
    return 1.0 / (1.0 + np.exp(-(theta @ a.T + c)))


def _matching(name: str, x, shape: tuple) -> np.ndarray:
    x = as_array(name, x, ndim=2)
    if x.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {x.shape}")
    return x


def item_gradients(theta: np.ndarray, a: np.ndarray, c: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-item BCE gradients w.r.t. theta: ``-(y - P) a``. y: (B, Q) in {0, 1}. Returns (B, Q, d)."""
    p = prob(theta, a, c)
    y = _matching("y", y, p.shape)
    return -(y - p)[..., None] * np.asarray(a, dtype=float)[None]


def map_estimate(y: np.ndarray, mask: np.ndarray, a: np.ndarray, c: np.ndarray,
                 prior_var: float = 1.0, iters: int = 50, max_step: float = 1.0) -> np.ndarray:
    """MAP ability under an N(0, prior_var I) prior from the answered items (batched Newton,
    steps capped at ``max_step`` in norm).

    y, mask: (B, Q) responses and 0/1 answered mask. Returns theta (B, d).
    """
    a, c = _check_bank(a, c)
    y = as_array("y", y, ndim=2)
    if y.shape[1] != a.shape[0]:
        raise ValueError(f"y must have shape (B, {a.shape[0]}), got {y.shape}")
    mask = _matching("mask", mask, y.shape)
    prior_var = check_positive("prior_var", prior_var)
    iters = check_int("iters", iters, minimum=1)
    max_step = check_positive("max_step", max_step)
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
    prior_var = check_positive("prior_var", prior_var)
    w = _matching("mask", mask, p.shape) * p * (1 - p)
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


BECAT_WEIGHTS = ("paper", "educat")


def becat_expected_distance(theta: np.ndarray, a: np.ndarray, c: np.ndarray, rows: np.ndarray,
                            cols: np.ndarray, weights: str = "paper") -> np.ndarray:
    """E_{y_i, y_j ~ model} || grad l_i(theta) - grad l_j(theta) || for item pairs.

    ``weights="paper"`` weights the gradient of label y by its model probability P(y) (the
    expectation as the BECAT paper defines it); ``"educat"`` reproduces the authors' EduCAT code
    (``get_BE_weights``), whose four label pairs are weighted by the probabilities of the
    opposite labels (the y = 1 gradient ``-(1 - P) a`` carries 1 - P, the y = 0 gradient ``P a``
    carries P). theta: (B, d); rows: (B, R), cols: (B, C) item indices. Returns (B, R, C).
    """
    if weights not in BECAT_WEIGHTS:
        raise ValueError(f"weights must be one of {BECAT_WEIGHTS}, got {weights!r}")
    swap = weights == "educat"
    p = prob(theta, a, c)
    pr = np.take_along_axis(p, rows, 1)
    pc = np.take_along_axis(p, cols, 1)
    ar = a[rows]                                            # (B, R, d)
    ac = a[cols]                                            # (B, C, d)
    out = 0.0
    for yi in (0.0, 1.0):
        gi = -(yi - pr)[..., None] * ar                     # (B, R, d)
        wi = pr if bool(yi) != swap else 1 - pr
        for yj in (0.0, 1.0):
            gj = -(yj - pc)[..., None] * ac
            wj = pc if bool(yj) != swap else 1 - pc
            dist = np.linalg.norm(gi[:, :, None, :] - gj[:, None, :, :], axis=-1)
            out = out + wi[:, :, None] * wj[:, None, :] * dist
    return out


def becat_gains(theta: np.ndarray, a: np.ndarray, c: np.ndarray, selected: np.ndarray,
                ref: np.ndarray, weights: str = "paper") -> np.ndarray:
    """BECAT's marginal gains ``F(S + q) - F(S)`` for every item q (Zhuang et al. 2023).

    Facility-location surrogate of the expected gradient difference: ``F(S) = sum_{i in V
    minus S} max_{j in S} w_ij`` with ``w_ij = D - E||grad l_i - grad l_j||`` (D a constant
    making w >= 0; an empty S covers nothing), evaluated on the reference set V = S + ref + {q}.
    theta: (B, d); selected: (B, t) answered items (t may be 0); ref: (B, R) unanswered
    reference items; ``weights`` as in ``becat_expected_distance``. Returns (B, Q).

    For t > 0 these equal EduCAT's ``delta_q_S_t`` (with ``weights="educat"``) plus ``100 - D``,
    the same for every q (EduCAT fixes the constant at 100; ``test_becat_matches_educat_reference``
    checks it against an independent brute-force transcription of its formula). For t = 0 EduCAT's
    F(empty set) is -inf, so every candidate's gain is +inf; its test script never calls it there
    and asks a random first item instead (``select_becat``'s ``first="random"``).
    """
    B = theta.shape[0]
    Q = a.shape[0]
    t = selected.shape[1]
    V = np.concatenate([selected, ref], axis=1)                      # (B, t + R)
    in_S = np.zeros(V.shape, dtype=bool)
    in_S[:, :t] = True
    cand = np.broadcast_to(np.arange(Q), (B, Q))
    E_vc = becat_expected_distance(theta, a, c, V, cand, weights)            # (B, |V|, Q)
    if t:
        E_vs = becat_expected_distance(theta, a, c, V, selected, weights)    # (B, |V|, t)
        E_qs = becat_expected_distance(theta, a, c, cand, selected, weights)  # (B, Q, t)
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
                 selected: np.ndarray, rng: np.random.Generator, extra: int = 5,
                 weights: str = "paper", first: str = "random") -> np.ndarray:
    """BECAT greedy step: reference set = |S| + ``extra`` random unanswered items (as in the
    authors' EduCAT implementation); picks the unanswered item with the largest gain. Returns (B,).

    ``first``: how the first item (empty S) is chosen: ``"random"`` (uniform, as EduCAT's test
    script does: its gain is +inf for every item there) or ``"gain"`` (our earlier convention: the
    facility-location gain with an empty S covering nothing, which favours items whose expected
    gradients lie near the reference items', i.e. uninformative ones). The reference items are
    drawn without replacement (EduCAT draws |S| + 5 with replacement and keeps the distinct ones)."""
    if first not in ("random", "gain"):
        raise ValueError(f"first must be 'random' or 'gain', got {first!r}")
    if weights not in BECAT_WEIGHTS:
        raise ValueError(f"weights must be one of {BECAT_WEIGHTS}, got {weights!r}")
    if selected.shape[1] == 0 and first == "random":
        return select_random(avail, rng)
    B, Q = avail.shape
    n_ref = min(selected.shape[1] + extra, int(avail.sum(axis=1).min()))
    ref = np.argsort(np.where(avail > 0, rng.random((B, Q)), np.inf), axis=1)[:, :n_ref]
    return _masked_argmax(becat_gains(theta, a, c, selected, ref, weights), avail)


# ----------------------------------------------------------------------------- GPM
def item_difficulty(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Item difficulty ``b_q = -c_q / ||a_q||`` (the 2PL's b in 1-D). Returns (Q,)."""
    a, c = _check_bank(a, c)
    return -c / np.linalg.norm(a, axis=1)


FEATURES = ("difficulty", "intercept")


def selection_feature(a: np.ndarray, c: np.ndarray, feature: str = "difficulty") -> np.ndarray:
    """The per-item number GPM's selection layer measures distances on. ``"difficulty"``: ``b_q =
    -c_q / ||a_q||`` (ability units, ``item_difficulty``); ``"intercept"``: ``-c_q``, the learned item
    parameter itself in logit units (the released code's feature: its Rasch model's learned difficulty,
    where slopes are 1 and the two readings coincide). Returns (Q,)."""
    a, c = _check_bank(a, c)
    if feature not in FEATURES:
        raise ValueError(f"feature must be one of {FEATURES}, got {feature!r}")
    return item_difficulty(a, c) if feature == "difficulty" else -c


def make_policy(n_items: int, hidden: int = 64):
    """GPM's policy: the examinee's signed responses over the whole bank -> one logit per item.

    ``state``: (B, Q), +1 / -1 for answered-correct / wrong, 0 for unanswered. Shapes as in the
    authors' training code: Linear(Q, H) -> Linear(H, H) -> tanh -> Linear(H, Q).
    """
    import torch

    from icml26.nn.mlp import mlp

    n_items = _check_count("n_items", n_items)
    hidden = _check_count("hidden", hidden)
    # the authors' first layer has no activation after it; the rest is the shared tanh MLP
    return torch.nn.Sequential(torch.nn.Linear(n_items, hidden), *mlp([hidden, hidden, n_items], activation="tanh")).double()


def _check_count(name: str, x) -> int:

    return check_int(name, x, minimum=1)


CHOICES = ("nearest", "farthest")
#: the released code's training pieces that ``train_gpm`` can take instead of ours (see there)
CODE_PIECES = ("soft", "heldout", "fd")
PROTOCOLS = ("ours", "code")


def protocol_pieces(protocol: str) -> frozenset:
    """The code pieces a training protocol takes: ``"ours"`` none, ``"code"`` all of ``CODE_PIECES``,
    or a ``"+"``-joined subset of them (e.g. ``"soft+fd"``)."""
    if not isinstance(protocol, str):
        raise TypeError(f"protocol must be a str, got {type(protocol).__name__}")
    if protocol == "ours":
        return frozenset()
    if protocol == "code":
        return frozenset(CODE_PIECES)
    parts = protocol.split("+")
    if not parts or any(p not in CODE_PIECES for p in parts) or len(set(parts)) != len(parts):
        raise ValueError(f"protocol must be 'ours', 'code' or a '+'-joined subset of {CODE_PIECES}, got {protocol!r}")
    return frozenset(parts)


def gpm_choice(logits, avail, b, gumbel=None, tau: float = 1.0, choice: str = "nearest", hard: bool = True):
    """GPM's selection layer (torch, differentiable through a straight-through one-hot).

    The policy's softmax over the unanswered items gives a target difficulty
    ``b_bar = sum_q pi_q b_q``; the item scores are the squared distances ``(b_q - b_bar)^2``
    (unanswered items only), negated for ``choice="nearest"`` (the item closest to the target,
    our reading) and kept for ``choice="farthest"`` (the released code's sign, which can only
    ever pick an extreme difficulty), perturbed by ``gumbel`` noise when given; the chosen item
    is their arg-max. logits, avail, gumbel: (B, Q); b: (Q,). Returns (mask (B, Q), index (B,)): with
    ``hard=True`` the mask has value 1 at the chosen item and the soft-max's gradient (straight-through);
    with ``hard=False`` it is the Gumbel soft-max itself, in value and gradient (the released code calls
    its Gumbel-softmax with ``hard=False``, so its training mask is soft).
    """
    import torch

    neg = torch.where(avail > 0, torch.zeros_like(logits), torch.full_like(logits, -1e30))
    pi = torch.softmax(logits + neg, dim=1)
    b_bar = pi @ b                                                   # (B,)
    if choice not in CHOICES:
        raise ValueError(f"choice must be one of {CHOICES}, got {choice!r}")
    dist = (b[None, :] - b_bar[:, None]) ** 2
    score = (-dist if choice == "nearest" else dist) + neg
    if gumbel is not None:
        score = score + gumbel
    soft = torch.softmax(score / tau, dim=1)
    idx = soft.argmax(dim=1)
    if not hard:
        return soft, idx
    one_hot = torch.zeros_like(soft).scatter_(1, idx[:, None], 1.0)
    return one_hot - soft.detach() + soft, idx


def _gumbel(shape, generator):
    import torch

    u = torch.rand(shape, generator=generator, dtype=torch.float64).clamp(1e-12, 1 - 1e-12)
    return -torch.log(-torch.log(u))


def gradient_gap(theta, m, y, full, a, c):
    """``|| g_S(theta) - g_Q(theta) ||_F / B`` with g_X the mean BCE gradient over item set X.

    theta: (B, d); m: (B, Q) (soft) selection mask; y: (B, Q) responses; full: (B, Q) 0/1 mask
    of the examinee's bank Q; a: (Q, d), c: (Q,) tensors.
    """
    import torch

    r = y - torch.sigmoid(theta @ a.T + c)
    g_S = -((m * r) @ a) / m.sum(1, keepdim=True).clamp_min(1e-8)
    g_Q = -((full * r) @ a) / full.sum(1, keepdim=True).clamp_min(1e-8)
    return torch.linalg.norm(g_S - g_Q) / theta.shape[0]


def heldout_gap(theta, y, held, a, c):
    """The released code's path loss (its ``compute_seq_loss``): ``|| g_H(theta) - g_all(theta) || / B``.

    g_H is the mean BCE gradient over the examinee's held-out items H; g_all is the BCE gradient summed
    over all Q items of the bank with the held-out labels (every other item counted with label 0, as
    the code passes the held-out label vector for both sets) and divided by Q. The selected set enters
    only through theta (the stepped ability). theta: (B, d); y, held: (B, Q); a: (Q, d), c: (Q,) tensors.
    """
    import torch

    yh = y * held
    r = yh - torch.sigmoid(theta @ a.T + c)
    g_H = -((held * r) @ a) / (held.sum(1, keepdim=True) + 1e-8)
    g_all = -(r @ a) / a.shape[0]
    return torch.linalg.norm(g_H - g_all) / theta.shape[0]


def code_fd_term(params, loss, theta1, start, m, y, a, c, lw: float):
    """The released code's extra finite-difference term of the policy gradient (its ``MyModel.update``).

    With ``g = d loss / d theta1`` (kept in the graph) and ``epl = ||g||``, the summed BCE of the
    (soft) selected items ``m`` is evaluated at ``start +- epl g``; the term is
    ``lw * (grad_params L(start + epl g) - grad_params L(start - epl g)) / 2 * epl`` (the code's operator
    order: multiplied by epl, not divided). The code subtracts it from the exact gradient of ``loss``
    (which its create_graph inner step already gives). Returns one tensor per parameter.
    """
    import torch

    lw = check_positive("lw", lw)
    params = list(params)
    g, = torch.autograd.grad(loss, theta1, create_graph=True)
    epl = torch.linalg.norm(g)

    def train_loss(th):
        bce = torch.nn.functional.binary_cross_entropy_with_logits(th @ a.T + c, y, reduction="none")
        return (bce * m).sum()

    plus = torch.autograd.grad(train_loss(start + epl * g), params, retain_graph=True, allow_unused=True)
    minus = torch.autograd.grad(train_loss(start - epl * g), params, retain_graph=True, allow_unused=True)
    return [torch.zeros_like(q) if p_ is None or n_ is None else lw * (p_ - n_) / 2.0 * epl
            for q, p_, n_ in zip(params, plus, minus)]


def inner_step(theta, m, y, a, c, eta: float):
    """One gradient step of the summed BCE over the (soft) selected items: theta - eta grad. (B, d)."""
    import torch

    r = y - torch.sigmoid(theta @ a.T + c)
    return theta - eta * (-((m * r) @ a))


def gd_estimate(y: np.ndarray, mask: np.ndarray, a: np.ndarray, c: np.ndarray, theta0: np.ndarray,
                eta: float = 0.1, steps: int = 10) -> np.ndarray:
    """The ability estimator of GPM's training code: ``steps`` gradient steps of the summed BCE of
    the answered items from the learned start ``theta0`` (d,). y, mask: (B, Q). Returns (B, d)."""

    a, c = _check_bank(a, c)
    y = as_array("y", y, ndim=2)
    mask = as_array("mask", mask, ndim=2)
    if y.shape != mask.shape or y.shape[1] != a.shape[0]:
        raise ValueError(f"y and mask must both have shape (B, {a.shape[0]}), got {y.shape}, {mask.shape}")
    theta0 = as_array("theta0", theta0, ndim=1)
    if theta0.shape != (a.shape[1],):
        raise ValueError(f"theta0 must have shape ({a.shape[1]},), got {theta0.shape}")
    eta = check_positive("eta", eta)
    steps = check_int("steps", steps, minimum=0)
    theta = np.broadcast_to(theta0, (y.shape[0], a.shape[1])).copy()
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(theta @ a.T + c)))
        theta = theta + eta * ((mask * (y - p)) @ a)
    return theta


@dataclass
class GPMModel:
    """What GPM learns: the selection policy, the item intercepts c and the start ability theta0."""

    policy: object
    c: np.ndarray            # (Q,) learned intercepts (difficulties), slopes a are given
    theta0: np.ndarray       # (d,) learned initial ability
    losses: list             # mean gradient-path loss of each training iteration
    heldout_bce: list        # held-out BCE of each training iteration
    choice: str = "nearest"  # selection layer's sign (see gpm_choice)
    feature: str = "difficulty"  # what the selection layer measures distances on (see selection_feature)

    @property
    def loss_ratio(self) -> float:
        """Mean path loss over the first tenth of training / over the last tenth (> 1: it fell)."""
        k = max(1, len(self.losses) // 10)
        return float(np.mean(self.losses[:k]) / max(np.mean(self.losses[-k:]), 1e-300))


def train_gpm(a: np.ndarray, Y: np.ndarray, cand: np.ndarray, held: np.ndarray, T: int, iters: int = 200,
              batch: int = 64, eta: float = 0.1, inner_steps: int = 10, policy_lr: float = 2e-3,
              model_lr: float = 2e-2, meta_lr: float = 2e-3, hidden: int = 64, tau: float = 1.0,
              seed: int = 0, choice: str = "nearest", protocol: str = "ours", lw: float = 0.1,
              feature: str = "difficulty") -> GPMModel:
    """Train GPM on examinees with known responses, following the structure of the authors' code.

    a: (Q, d) item slopes; Y: (N, Q) responses; cand, held: (N, Q) 0/1 masks of each examinee's
    candidate items and held-out items. Each iteration samples ``batch`` examinees and runs a
    T-step episode. At step t the policy scores every item from the signed responses so far,
    ``gpm_choice`` draws the next item (Gumbel noise), one unrolled gradient step from the start
    ability on the (straight-through) selected set gives theta', and the policy takes an Adam step
    on the gradient-path loss ``||g_S(theta') - g_Q(theta')||`` (the exact gradient of the
    one-step unrolled problem, which DARTS's finite-difference term approximates). After the
    episode, ``inner_steps`` gradient steps on the selected items give theta_T; the intercepts c
    take an Adam step on the held-out BCE at theta_T, and the start ability theta0 an SGD step on
    the path loss at theta_T.

    ``protocol`` (see ``protocol_pieces``) picks, piece by piece, the released code's training instead
    of ours: ``soft``, the training mask is the soft Gumbel-softmax (``gpm_choice(hard=False)``; the
    answered-set mask and the policy's state accumulate these soft weights, and the item with the
    largest weight leaves the available set) instead of the straight-through one-hot; ``heldout``, the
    path loss is the code's ``heldout_gap`` (held-out set vs all items) at every step and for theta0
    instead of ``gradient_gap`` (selected vs candidate set); ``fd``, the policy gradient is the exact
    one minus the code's finite-difference term (``code_fd_term`` with weight ``lw``, the code's
    arch_lr) instead of the exact one alone. ``"ours"`` takes none, ``"code"`` all three.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the authors' three-optimizer, meta-
    learned training.
    """
    import torch


    a = as_array("a", a, ndim=2)
    Q, d = a.shape
    Y = as_array("Y", Y, ndim=2)
    cand = as_array("cand", cand, ndim=2)
    held = as_array("held", held, ndim=2)
    for name, x in (("Y", Y), ("cand", cand), ("held", held)):
        if x.shape[1] != Q:
            raise ValueError(f"{name} must have shape (N, {Q}), got {x.shape}")
    if choice not in CHOICES:
        raise ValueError(f"choice must be one of {CHOICES}, got {choice!r}")
    pieces = protocol_pieces(protocol)
    if feature not in FEATURES:
        raise ValueError(f"feature must be one of {FEATURES}, got {feature!r}")
    soft, heldout, fd_term = ("soft" in pieces), ("heldout" in pieces), ("fd" in pieces)
    lw = check_positive("lw", lw)
    if not Y.shape == cand.shape == held.shape:
        raise ValueError(f"Y, cand and held must have one shape, got {Y.shape}, {cand.shape}, {held.shape}")
    T = check_int("T", T, minimum=1, maximum=int(cand.sum(1).min()) if cand.size else 0)
    iters = check_int("iters", iters, minimum=1)
    batch = check_int("batch", batch, minimum=1)
    inner_steps = check_int("inner_steps", inner_steps, minimum=1)
    eta, policy_lr, model_lr, meta_lr, tau = (check_positive(n, v) for n, v in (
        ("eta", eta), ("policy_lr", policy_lr), ("model_lr", model_lr), ("meta_lr", meta_lr), ("tau", tau)))
    seed = check_int("seed", seed, minimum=0)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    policy = make_policy(Q, hidden)
    at = torch.as_tensor(a)
    c = torch.zeros(Q, dtype=torch.float64, requires_grad=True)
    theta0 = torch.zeros(d, dtype=torch.float64, requires_grad=True)
    opt_policy = torch.optim.Adam(policy.parameters(), lr=policy_lr)
    opt_model = torch.optim.Adam([c], lr=model_lr)
    opt_meta = torch.optim.SGD([theta0], lr=meta_lr, momentum=0.9)
    losses, bces = [], []
    for _ in range(iters):
        idx = rng.choice(Y.shape[0], size=min(batch, Y.shape[0]), replace=False)
        y, full, out = (torch.as_tensor(x[idx]) for x in (Y, cand, held))
        B = y.shape[0]
        sel = torch.zeros(B, Q, dtype=torch.float64)
        avail = full.clone()
        start = theta0.detach().expand(B, d)
        b = -c.detach() / at.norm(dim=1) if feature == "difficulty" else -c.detach()
        step_losses = []
        params = list(policy.parameters())
        for _t in range(T):
            state = (2 * y - 1) * sel
            w, pick = gpm_choice(policy(state), avail, b, _gumbel((B, Q), gen), tau, choice, hard=not soft)
            m = sel + w
            theta1 = inner_step(start, m, y, at, c.detach(), eta)
            if heldout:
                loss = heldout_gap(theta1, y, out, at, c.detach())
            else:
                loss = gradient_gap(theta1, m, y, full, at, c.detach())
            grads = torch.autograd.grad(loss, params, retain_graph=fd_term)
            if fd_term:
                fd = code_fd_term(params, loss, theta1, start, m, y, at, c.detach(), lw)
                grads = [g_ - f_ for g_, f_ in zip(grads, fd)]
            for q, g_ in zip(params, grads):
                q.grad = g_
            opt_policy.step()
            step_losses.append(float(loss.detach()))
            sel = sel + (w.detach() if soft else torch.zeros_like(sel).scatter_(1, pick[:, None], 1.0))
            avail = avail.scatter(1, pick[:, None], 0.0)
        theta = theta0.expand(B, d)
        for _k in range(inner_steps):                  # first-order: the steps themselves carry no graph
            with torch.no_grad():
                r = y - torch.sigmoid(theta @ at.T + c)
                g = -((sel * r) @ at)
            theta = theta - eta * g
        logits = theta @ at.T + c
        bce = (torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none") * out).sum() \
            / out.sum().clamp_min(1.0)
        meta = heldout_gap(theta, y, out, at, c.detach()) if heldout else gradient_gap(theta, sel, y, full, at, c.detach())
        opt_model.zero_grad()
        opt_meta.zero_grad()
        bce.backward(retain_graph=True)
        theta0.grad = None
        meta.backward()
        opt_model.step()
        opt_meta.step()
        losses.append(float(np.mean(step_losses)))
        bces.append(float(bce.detach()))
    return GPMModel(policy, c.detach().numpy().copy(), theta0.detach().numpy().copy(), losses, bces, choice,
                    feature)


def _setup(a: np.ndarray, c: np.ndarray, theta0: np.ndarray, Y: np.ndarray, cand: np.ndarray, T: int, eta: float,
           seed: int, feature: str) -> tuple:
    """The checked inputs of a gate path loss (:func:`path_loss_of`, :func:`oracle_path_loss`) as tensors.

    Checks the bank (a, c), that ``Y`` and ``cand`` are both (N, Q) for the bank's Q items, that
    ``theta0`` is (d,), that ``T`` is at least 1 and at most the fewest candidates of any examinee
    (a path asks T distinct candidates), ``eta`` > 0 and ``seed`` >= 0. Returns (a, c, Y, cand,
    selection feature b, start abilities (N, d), T, eta, a ``torch.Generator`` seeded with ``seed``).
    """
    import torch

    a, c = _check_bank(a, c)
    Y = as_array("Y", Y, ndim=2)
    cand = as_array("cand", cand, ndim=2)
    if Y.shape != cand.shape or Y.shape[1] != a.shape[0]:
        raise ValueError(f"Y and cand must both have shape (N, {a.shape[0]}), got {Y.shape}, {cand.shape}")
    T = check_int("T", T, minimum=1, maximum=int(cand.sum(1).min()))
    eta = check_positive("eta", eta)
    theta0 = as_array("theta0", theta0, ndim=1)
    if theta0.shape != (a.shape[1],):
        raise ValueError(f"theta0 must have shape ({a.shape[1]},), got {theta0.shape}")
    gen = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    at, ct = torch.as_tensor(a), torch.as_tensor(c)
    y, full = torch.as_tensor(Y), torch.as_tensor(cand)
    b = torch.as_tensor(selection_feature(a, c, feature))
    start = torch.as_tensor(np.asarray(theta0, dtype=float)).expand(y.shape[0], a.shape[1])
    return at, ct, y, full, b, start, T, eta, gen


def path_loss_of(policy, a: np.ndarray, c: np.ndarray, theta0: np.ndarray, Y: np.ndarray, cand: np.ndarray,
                 T: int, eta: float = 0.1, seed: int = 0, choice: str = "nearest",
                 feature: str = "difficulty") -> float:
    """Mean one-step gradient-path loss of ``policy``'s episodes on examinees (Y, cand), no update.

    The training gate compares a trained policy with an untrained one on this number. The inputs
    are checked as :func:`oracle_path_loss` checks them (shapes of ``Y``, ``cand``, ``theta0``;
    ``1 <= T <=`` the fewest candidates of an examinee; ``eta`` > 0).
    """
    import torch

    at, ct, y, full, b, start, T, eta, gen = _setup(a, c, theta0, Y, cand, T, eta, seed, feature)
    B, Q = y.shape
    sel, avail, total = torch.zeros(B, Q, dtype=torch.float64), full.clone(), 0.0
    with torch.no_grad():
        for _t in range(T):
            w, pick = gpm_choice(policy((2 * y - 1) * sel), avail, b, _gumbel((B, Q), gen), choice=choice)
            m = sel + w
            total += float(gradient_gap(inner_step(start, m, y, at, ct, eta), m, y, full, at, ct))
            sel = sel + torch.zeros_like(sel).scatter_(1, pick[:, None], 1.0)
            avail = avail.scatter(1, pick[:, None], 0.0)
    return total / T


def oracle_path_loss(a: np.ndarray, c: np.ndarray, theta0: np.ndarray, Y: np.ndarray, cand: np.ndarray, T: int,
                     eta: float = 0.1, seed: int = 0, through_layer: bool = True,
                     feature: str = "difficulty") -> float:
    """The gate's path loss (as ``path_loss_of``) of a greedy oracle that knows every response.

    At each step the oracle finds the available item whose addition gives the smallest one-step
    path loss. ``through_layer=False``: it asks that item. ``through_layer=True``: that item's feature
    becomes the target of GPM's selection layer (nearest item, the same Gumbel draws as
    ``path_loss_of`` with this seed): what a target-difficulty policy that aims each pick at the
    greedily best item gets from the layer. ``untrained / oracle`` is a reference for the training
    gate's ratio, not a strict upper bound: the oracle is greedy (a different sequence of picks can
    lower later steps' losses) and aims exactly at one item (a target between items can do better
    under the Gumbel noise). Diagnostic only.
    """
    import torch

    at, ct, y, full, b, start, T, eta, gen = _setup(a, c, theta0, Y, cand, T, eta, seed, feature)
    B, Q = y.shape
    sel, avail, total = torch.zeros(B, Q, dtype=torch.float64), full.clone(), 0.0
    eye = torch.eye(Q, dtype=torch.float64)
    with torch.no_grad():
        # residuals at the start abilities: the same at every step (computed once, same operation and shapes)
        r0 = y[:, None, :] - torch.sigmoid(torch.einsum("bkd,qd->bkq", start[:, None, :].expand(B, Q, -1), at) + ct)
        for _t in range(T):
            g = _gumbel((B, Q), gen)
            # every candidate at once: masks (B, Q, Q), item q added on the last axis' row q
            mm = sel[:, None, :] + eye[None]
            th1 = start[:, None, :] + eta * torch.einsum("bkq,bkq,qd->bkd", mm, r0, at)
            r = y[:, None, :] - torch.sigmoid(torch.einsum("bkd,qd->bkq", th1, at) + ct)
            g_S = -torch.einsum("bkq,qd->bkd", mm * r, at) / mm.sum(2, keepdim=True)
            g_Q = -torch.einsum("bkq,qd->bkd", full[:, None, :] * r, at) / full.sum(1)[:, None, None]
            val = torch.linalg.norm(g_S - g_Q, dim=2)
            best = torch.where(avail > 0, val, torch.full_like(val, float("inf"))).argmin(1)
            if through_layer:
                score = -(b[None] - b[best][:, None]) ** 2 + torch.where(avail > 0, 0.0, -1e30) + g
                pick = score.argmax(1)
            else:
                pick = best
            m = sel + torch.zeros_like(sel).scatter_(1, pick[:, None], 1.0)
            total += float(gradient_gap(inner_step(start, m, y, at, ct, eta), m, y, full, at, ct))
            sel = m
            avail = avail.scatter(1, pick[:, None], 0.0)
    return total / T


def select_gpm(model: GPMModel, a: np.ndarray, y: np.ndarray, selected: np.ndarray, avail: np.ndarray,
               generator=None) -> np.ndarray:
    """GPM's next item for every examinee: the policy reads the signed responses on the answered
    items (y (B, Q) responses, selected (B, t) answered indices) and ``gpm_choice`` picks among the
    available items (avail (B, Q) 0/1), with Gumbel noise from ``generator`` if given. Returns (B,)."""
    import torch

    y = np.asarray(y, dtype=float)
    B, Q = y.shape
    state = np.zeros((B, Q))
    if selected.shape[1]:
        rows = np.arange(B)[:, None]
        state[rows, selected] = 2 * y[rows, selected] - 1
    b = torch.as_tensor(selection_feature(a, model.c, model.feature))
    with torch.no_grad():
        logits = model.policy(torch.as_tensor(state))
        g = _gumbel((B, Q), generator) if generator is not None else None
        _, idx = gpm_choice(logits, torch.as_tensor(np.asarray(avail, dtype=float)), b, g, choice=model.choice)
    return idx.numpy()


def heldout_scores(theta: np.ndarray, y: np.ndarray, held: np.ndarray, a: np.ndarray,
                   c: np.ndarray) -> tuple[float, float]:
    """ACC and AUC of ``sigmoid(a . theta + c)`` on the held-out responses (held (B, Q) 0/1)."""
    from scipy.stats import rankdata

    p = prob(theta, a, c)
    y = _matching("y", y, p.shape)
    sel = _matching("held", held, p.shape) > 0
    if not sel.any():
        raise ValueError("held marks no held-out response")
    pv, yv = p[sel], y[sel]
    acc = float(np.mean((pv > 0.5) == (yv > 0.5)))
    n1, n0 = float(yv.sum()), float(yv.size - yv.sum())
    if n1 == 0 or n0 == 0:
        return acc, float("nan")
    ranks = rankdata(pv)
    auc = float((ranks[yv > 0.5].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))
    return acc, auc


# ----------------------------------------------------------------------------- testing loop
def run_cat(select, y: np.ndarray, a: np.ndarray, c: np.ndarray, L: int, avail0: np.ndarray | None = None,
            estimator=None) -> np.ndarray:
    """Adaptive test of length L for every examinee at once.

    ``select(theta, avail, info, selected, t) -> (B,)`` picks the next item; after each answer
    the ability is re-estimated, by ``estimator(y, mask) -> (B, d)`` if given, else by MAP.
    ``avail0`` (B, Q) 0/1 restricts the items a test may use (default: the whole bank).
    Returns estimates after each step, (B, L, d).
    """

    a, c = _check_bank(a, c)
    y = as_array("y", y, ndim=2)
    B, Q = y.shape
    if Q != a.shape[0]:
        raise ValueError(f"y must have shape (B, {a.shape[0]}), got {y.shape}")
    L = check_int("L", L)
    if not 1 <= L <= Q:
        raise ValueError(f"L must be in [1, {Q}], got {L}")
    allowed = np.ones((B, Q)) if avail0 is None else as_array("avail0", avail0, ndim=2)
    if allowed.shape != (B, Q) or allowed.sum(1).min() < L:
        raise ValueError(f"avail0 must have shape {(B, Q)} with at least L = {L} items per examinee")
    d = a.shape[1]
    mask = np.zeros((B, Q))
    selected = np.zeros((B, 0), dtype=int)
    theta = estimator(y, mask) if estimator is not None else np.zeros((B, d))
    out = np.zeros((B, L, d))
    rows = np.arange(B)
    for t in range(L):
        info = information(theta, a, c, mask)
        q = np.asarray(select(theta, allowed * (1 - mask), info, selected, t), dtype=int)
        if np.any(mask[rows, q] > 0) or np.any(allowed[rows, q] == 0):
            raise RuntimeError("a selector picked an item that was already answered or not allowed")
        mask[rows, q] = 1
        selected = np.concatenate([selected, q[:, None]], axis=1)
        theta = estimator(y, mask) if estimator is not None else map_estimate(y, mask, a, c)
        out[:, t] = theta
    return out


def examples() -> list:
    """Public API examples for the common bad-input test."""
    from icml26.decision.gpm.setting import make_bank, simulate, split_heldout

    rng = np.random.default_rng(0)
    a, c = make_bank(8, 1, rng)
    theta, Y = simulate(a, c, 6, rng)
    cand, held = split_heldout(6, 8, rng)
    mask = np.zeros((6, 8))
    mask[:, :3] = 1.0
    return [
        (prob, {"theta": theta, "a": a, "c": c}),
        (item_gradients, {"theta": theta, "a": a, "c": c, "y": Y}),
        (map_estimate, {"y": Y, "mask": mask, "a": a, "c": c, "prior_var": 1.0}),
        (information, {"theta": theta, "a": a, "c": c, "mask": mask, "prior_var": 1.0}),
        (item_difficulty, {"a": a, "c": c}),
        (selection_feature, {"a": a, "c": c, "feature": "intercept"}),
        (protocol_pieces, {"protocol": "soft+fd"}),
        (oracle_path_loss, {"a": a, "c": c, "theta0": np.zeros(1), "Y": Y, "cand": cand, "T": 2, "eta": 0.1,
                            "seed": 0}),
        (gd_estimate, {"y": Y, "mask": mask, "a": a, "c": c, "theta0": np.zeros(1), "eta": 0.1, "steps": 3}),
        (heldout_scores, {"theta": theta, "y": Y, "held": held, "a": a, "c": c}),
        (train_gpm, {"a": a, "Y": Y, "cand": cand, "held": held, "T": 2, "iters": 1, "batch": 4, "eta": 0.1,
                     "seed": 0}),
        (make_bank, {"Q": 5, "d": 2, "rng": 0}),
        (simulate, {"a": a, "c": c, "N": 3, "rng": 0}),
        (split_heldout, {"N": 3, "Q": 8, "rng": 0, "frac": 0.2}),
    ]
