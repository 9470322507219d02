"""FedVPA-GP: federated variational preference learning with a federated mixture prior and an
orthogonal-prototype loss (arXiv:2605.30873, Sec. 3; reference repository wkqls0829/ppfl).

Each client ``i`` holds pairs ``(chosen, rejected)`` with frozen features ``h``. The model:

* **Inference network.** ``Delta h = h_chosen - h_rejected`` (or, as an option, the pair's base
  choice logits) goes through a feature MLP; features are mean-pooled over the client's pairs
  and mapped to ``(mu_i, log sigma_i^2)``, so ``q(z | D_i) = N(mu_i, sigma_i^2 I)`` (latent ``d = 32``);
  ``z = mu_i + sigma_i * eps``.
* **Latent-conditioned choice logits.** ``logits(A, B | z) = (r(A, z), r(B, z))`` with
  ``r(x, z) = w^T h(x) + (B^T h(x))^T z``; the reconstruction term is the cross-entropy of the
  chosen answer, ``-log sigmoid(w^T Delta h + (B^T Delta h)^T z)``.
* **Prior.** FedVPL: ``N(0, I)`` with the closed-form KL (Eq. VPL). FedVPA-GP: the mixture
  ``p(z) = sum_j w_j N(z; mu_j, sigma_j^2 I)`` over the posteriors the previous round's clients
  sent, with ``KL ~= log q(z) - logsumexp_j [log w_j + log N(z; mu_j, sigma_j^2)]`` on the one
  sample ``z`` (Eq. mixture-KL). Weights: ``"size"`` (``w_j`` proportional to sample size, the
  code's Algorithm 1) or ``"gumbel"`` (learnable logits relaxed with Gumbel-softmax at
  temperature 1, the paper's text); the client's own last component is kept or excluded
  (``include_self``).
* **Orthogonal loss.** Two prototypes ``P`` (2 x d), orthonormalised by QR at every forward pass
  and scaled to norm 5; the server runs k-means (k = 2) on the latest client means and
  broadcasts a label per client; ``L_pull = ||z - P_label||^2`` and ``L_orth = ||P_u P_u^T - I||_F^2``
  on the unit prototypes ``P_u``. Loss: ``CE + beta KL + lambda (L_pull + gamma L_orth)`` with
  ``beta = 0.1``, ``lambda = 10``, ``gamma = 0.1``.
* **Server.** FedAvg of every parameter, weighted by sample size.

All sampled clients are trained at once: parameters carry a leading client axis and the
loss is the sum of the clients' losses, so Adam (elementwise) is exactly one optimiser per
client. The monolithic baseline (``model="bt"``) is the same pipeline with ``B``, the encoder
and the prior removed: a FedAvg Bradley-Terry reward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.mlp import fit

__all__ = ["FedConfig", "gaussian_kl_standard", "mixture_kl_mc", "log_normal_diag", "orthonormal_prototypes",
           "orthogonal_loss", "fedavg", "assign_labels", "kmeans_purity", "collapse_index",
           "train_federated", "client_posteriors", "pair_margins", "local_finetune", "EXAMPLES"]

MODELS = ("bt", "vpl", "gp")


@dataclass(frozen=True)
class FedConfig:
    """Every knob of one federated training run (defaults: the paper's values where it gives them)."""

    model: str = "gp"                 # "bt" (FedAvg BT reward), "vpl" (N(0, I) prior), "gp" (mixture prior)
    orth: bool = True                 # orthogonal-prototype loss (gp only)
    prior_weights: str = "size"       # "size" (code) or "gumbel" (paper text)
    include_self: bool = True         # keep the client's own last component in its prior
    feature: str = "delta_h"          # "delta_h" or "choice_logits"
    labels: str = "kmeans"            # prototype labels: server k-means (the paper) or "oracle" (true types)
    latent: int = 32
    hidden: int = 64
    kl_weight: float = 0.1
    pull_weight: float = 10.0
    orth_gamma: float = 0.1
    proto_scale: float = 5.0
    tau: float = 1.0
    rounds: int = 60
    clients_per_round: int = 10
    local_epochs: int = 5
    lr: float = 0.01

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {self.model!r}")
        if self.prior_weights not in ("size", "gumbel"):
            raise ValueError(f"prior_weights must be 'size' or 'gumbel', got {self.prior_weights!r}")
        if self.labels not in ("kmeans", "oracle"):
            raise ValueError(f"labels must be 'kmeans' or 'oracle', got {self.labels!r}")
        if self.feature not in ("delta_h", "choice_logits"):
            raise ValueError(f"feature must be 'delta_h' or 'choice_logits', got {self.feature!r}")
        for name in ("latent", "hidden", "rounds", "clients_per_round", "local_epochs"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("kl_weight", "pull_weight", "orth_gamma", "proto_scale", "tau", "lr"):
            check_positive(name, getattr(self, name), strict=name in ("proto_scale", "tau", "lr"))


# ----------------------------------------------------------------------------- the pieces (Sec. 3)
def gaussian_kl_standard(mu, logvar):
    """``KL(N(mu, diag e^logvar) || N(0, I))``, summed over the last axis: ``(..., d) -> (...)``."""
    mu = as_array("mu", mu, nonempty=True)
    logvar = as_array("logvar", logvar, nonempty=True)
    mu, logvar = torch.as_tensor(mu), torch.as_tensor(logvar)
    if mu.shape != logvar.shape:
        raise ValueError(f"mu and logvar must have the same shape, got {tuple(mu.shape)} and {tuple(logvar.shape)}")
    return 0.5 * (mu ** 2 + logvar.exp() - logvar - 1).sum(-1)


def log_normal_diag(z, mu, logvar):
    """``log N(z; mu, diag e^logvar)`` summed over the last axis (broadcasting)."""
    return -0.5 * (((z - mu) ** 2) / logvar.exp() + logvar + math.log(2 * math.pi)).sum(-1)


def mixture_kl_mc(z, mu_q, logvar_q, mu_p, logvar_p, log_w):
    """One-sample estimate of ``KL(q || sum_j w_j N(mu_j, sigma_j^2))`` at ``z ~ q``.

    Shapes: ``z, mu_q, logvar_q: (C, d)``; ``mu_p, logvar_p: (J, d)`` or ``(C, J, d)``;
    ``log_w: (J,)`` or ``(C, J)`` (log mixture weights, ``-inf`` removes a component). Returns ``(C,)``.
    """
    z = as_array("z", z, ndim=2)
    mu_q = as_array("mu_q", mu_q, ndim=2)
    logvar_q = as_array("logvar_q", logvar_q, ndim=2)
    mu_p = as_array("mu_p", mu_p, ndim=(2, 3))
    logvar_p = as_array("logvar_p", logvar_p, ndim=(2, 3))
    log_w = as_array("log_w", log_w, ndim=(1, 2), finite=False)
    z, mu_q, logvar_q, mu_p, logvar_p, log_w = (torch.as_tensor(t) for t in (z, mu_q, logvar_q, mu_p, logvar_p,
                                                                             log_w))
    if torch.isnan(log_w).any():
        raise ValueError("log_w contains NaN")
    if z.shape != mu_q.shape or z.shape != logvar_q.shape:
        raise ValueError(f"z, mu_q and logvar_q must share shape (C, d), got {tuple(z.shape)}, "
                         f"{tuple(mu_q.shape)}, {tuple(logvar_q.shape)}")
    if mu_p.shape != logvar_p.shape or mu_p.shape[-1] != z.shape[-1]:
        raise ValueError(f"mu_p and logvar_p must be (J, d) or (C, J, d) with d = {z.shape[-1]}, got "
                         f"{tuple(mu_p.shape)} and {tuple(logvar_p.shape)}")
    if log_w.shape[-1] != mu_p.shape[-2]:
        raise ValueError(f"log_w must have J = {mu_p.shape[-2]} entries, got shape {tuple(log_w.shape)}")
    log_q = log_normal_diag(z, mu_q, logvar_q)                                  # (C,)
    comp = log_normal_diag(z[:, None, :], mu_p, logvar_p)                       # (C, J)
    log_p = torch.logsumexp(log_w + comp, dim=-1)
    return log_q - log_p


def orthonormal_prototypes(P, scale: float = 5.0):
    """QR-orthonormalise the rows of ``P: (K, d)`` (K <= d) and scale them to norm ``scale``."""
    P = as_array("P", P, ndim=2)
    scale = check_positive("scale", scale)
    P = torch.as_tensor(P)
    if P.shape[0] > P.shape[1]:
        raise ValueError(f"P needs at most d rows, got shape {tuple(P.shape)}")
    Q, R = torch.linalg.qr(P.T)                   # (d, K)
    Q = Q * torch.sign(torch.diagonal(R)).where(torch.diagonal(R) != 0, torch.ones(()))  # keep orientation
    return Q.T * scale


def orthogonal_loss(z, P_unit, labels, *, scale: float = 5.0, gamma: float = 0.1):
    """``||z - scale * P_unit[label]||^2 + gamma ||P_unit P_unit^T - I||_F^2`` per row of ``z: (C, d)``."""
    z = torch.as_tensor(as_array("z", z, ndim=2))
    P_unit = torch.as_tensor(as_array("P_unit", P_unit, ndim=2))
    labels = torch.as_tensor(np.asarray(labels), dtype=torch.long)
    if labels.shape != (z.shape[0],):
        raise ValueError(f"labels must have shape ({z.shape[0]},), got {tuple(labels.shape)}")
    scale = check_positive("scale", scale)
    gamma = check_positive("gamma", gamma, strict=False)
    pull = ((z - scale * P_unit[labels]) ** 2).sum(-1)
    eye = torch.eye(P_unit.shape[0], dtype=P_unit.dtype)
    return pull + gamma * ((P_unit @ P_unit.T - eye) ** 2).sum()


def fedavg(states: list[dict], weights) -> dict:
    """FedAvg: ``sum_i n_i theta_i / sum_i n_i`` for each named array (numpy or torch)."""
    if not isinstance(states, list) or not states:
        raise ValueError("states must be a non-empty list of parameter dicts")
    w = as_array("weights", weights, ndim=1)
    if len(w) != len(states) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be {len(states)} non-negative numbers with a positive sum")
    w = np.asarray(w, dtype=float) / float(np.sum(w))
    out = {}
    for k in states[0]:
        out[k] = sum(float(wi) * s[k] for wi, s in zip(w, states))
    return out


def assign_labels(means, P, *, seed: int = 0) -> np.ndarray:
    """Server step: k-means (k = #prototypes) on client means ``(n, d)``; each cluster takes the
    prototype its centroid is nearest to, under the best one-to-one matching. Returns ``(n,)`` labels."""
    from itertools import permutations

    from sklearn.cluster import KMeans

    means = np.asarray(as_array("means", means, ndim=2), dtype=float)
    P = np.asarray(as_array("P", P, ndim=2), dtype=float)
    k = P.shape[0]
    if len(means) < k:
        return np.argmin(((means[:, None] - P[None]) ** 2).sum(-1), axis=1)
    km = KMeans(n_clusters=k, n_init=4, random_state=check_int("seed", seed, minimum=0)).fit(means)
    cost = ((km.cluster_centers_[:, None] - P[None]) ** 2).sum(-1)            # (cluster, proto)
    best = min(permutations(range(k)), key=lambda perm: sum(cost[c, perm[c]] for c in range(k)))
    return np.asarray(best)[km.labels_]


def kmeans_purity(means, kinds, *, seed: int = 0) -> float:
    """Purity of k-means (k = number of true types) on client means against the true types."""
    from sklearn.cluster import KMeans

    means = np.asarray(as_array("means", means, ndim=2), dtype=float)
    kinds = np.asarray(kinds, dtype=int)
    if kinds.shape != (len(means),):
        raise ValueError(f"kinds must have shape ({len(means)},), got {kinds.shape}")
    k = len(np.unique(kinds))
    lab = KMeans(n_clusters=k, n_init=4, random_state=check_int("seed", seed, minimum=0)).fit(means).labels_
    return float(sum(np.bincount(kinds[lab == c]).max() for c in np.unique(lab)) / len(kinds))


def collapse_index(mu, logvar) -> float:
    """Between-client variance of ``mu_i`` (summed over dims) over the mean within-client variance
    (summed over dims): near 0 when every posterior is the same (collapsed)."""
    mu = np.asarray(as_array("mu", mu, ndim=2), dtype=float)
    logvar = np.asarray(as_array("logvar", logvar, ndim=2), dtype=float)
    if mu.shape != logvar.shape:
        raise ValueError(f"mu and logvar must have the same shape, got {mu.shape} and {logvar.shape}")
    return float(mu.var(axis=0).sum() / max(np.exp(logvar).sum(-1).mean(), 1e-12))


# ----------------------------------------------------------------------------- the model
def _init_params(cfg: FedConfig, hdim: int, gen: torch.Generator) -> dict[str, torch.Tensor]:
    def lin(i, o):
        return torch.randn(i, o, generator=gen) / math.sqrt(i)

    fin = hdim if cfg.feature == "delta_h" else 2
    p = {"w": lin(hdim, 1)[:, 0] * 0.1}
    if cfg.model != "bt":
        H, d = cfg.hidden, cfg.latent
        p.update(W1=lin(fin, H), b1=torch.zeros(H), W2=lin(H, H), b2=torch.zeros(H),
                 Wmu=lin(H, d), bmu=torch.zeros(d), Wlv=lin(H, d) * 0.1, blv=torch.zeros(d),
                 B=lin(hdim, d) * 0.1, P=torch.randn(2, d, generator=gen))
    return p


def _encode(p: dict, cfg: FedConfig, dh: torch.Tensor, dh_logit: torch.Tensor):
    """``dh: (C, n, h)`` -> ``mu, logvar: (C, d)`` (features mean-pooled over the client's pairs)."""
    x = dh if cfg.feature == "delta_h" else dh_logit
    f = torch.relu(torch.einsum("cnh,chk->cnk", x, p["W1"]) + p["b1"][:, None])
    f = torch.relu(torch.einsum("cnh,chk->cnk", f, p["W2"]) + p["b2"][:, None])
    g = f.mean(1)
    mu = torch.einsum("ch,chd->cd", g, p["Wmu"]) + p["bmu"]
    logvar = (torch.einsum("ch,chd->cd", g, p["Wlv"]) + p["blv"]).clamp(-8.0, 4.0)
    return mu, logvar


def _margin(p: dict, dh: torch.Tensor, z: torch.Tensor | None) -> torch.Tensor:
    """``r(chosen, z) - r(rejected, z)``: ``dh (C, n, h)``, ``z (C, d)`` -> ``(C, n)``."""
    m = torch.einsum("cnh,ch->cn", dh, p["w"])
    if z is not None:
        m = m + torch.einsum("cnh,chd,cd->cn", dh, p["B"], z)
    return m


def _base_logits(p: dict, H: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    """The base choice logits ``(w^T h_c, w^T h_r)`` per pair: ``(C, n, 2)`` (detached)."""
    w = p["w"].detach()
    return torch.einsum("cnkh,ch->cnk", H[pairs], w)


def _stack(glob: dict, C: int) -> dict:
    return {k: v.detach().clone().unsqueeze(0).repeat(C, *([1] * v.dim())).requires_grad_(True)
            for k, v in glob.items()}


@dataclass
class _Server:
    """What the server keeps between rounds: the latest posterior of every client seen."""

    mu: dict = field(default_factory=dict)
    logvar: dict = field(default_factory=dict)
    n: dict = field(default_factory=dict)
    last: list = field(default_factory=list)   # clients of the previous round (prior components)


def _client_losses(p, cfg, H, pairs, server: _Server, ids, labels, gen, log_w_param):
    """Per-client loss terms for one local step on stacked parameters."""
    dh = H[pairs[..., 0]] - H[pairs[..., 1]]                    # (C, n, h)
    if cfg.model == "bt":
        ce = F.softplus(-_margin(p, dh, None)).mean(1)
        return ce, {"ce": ce}
    dh_logit = _base_logits(p, H, pairs) if cfg.feature == "choice_logits" else None
    mu, logvar = _encode(p, cfg, dh, dh_logit)
    eps = torch.randn(mu.shape, generator=gen)
    z = mu + (0.5 * logvar).exp() * eps
    ce = F.softplus(-_margin(p, dh, z)).mean(1)
    if cfg.model == "vpl" or not server.last:
        kl = gaussian_kl_standard(mu, logvar)
    else:
        comps = server.last
        mu_p = torch.stack([server.mu[j] for j in comps])
        lv_p = torch.stack([server.logvar[j] for j in comps])
        if cfg.prior_weights == "size":
            base = torch.log(torch.tensor([float(server.n[j]) for j in comps]))
            log_w = (base - torch.logsumexp(base, 0)).expand(len(ids), -1).clone()
        else:   # learnable logits, relaxed with Gumbel-softmax (temperature tau)
            u = torch.rand(log_w_param.shape, generator=gen).clamp(1e-9, 1 - 1e-9)
            log_w = F.log_softmax((log_w_param - torch.log(-torch.log(u))) / cfg.tau, dim=-1)
        if not cfg.include_self:
            own = torch.tensor([[j == i for j in comps] for i in ids])
            if own.all(dim=1).any():        # a client alone in the prior keeps its own component
                own = own & ~own.all(dim=1, keepdim=True)
            log_w = log_w.masked_fill(own, float("-inf"))
        kl = mixture_kl_mc(z, mu, logvar, mu_p, lv_p, log_w)
    loss = ce + cfg.kl_weight * kl
    terms = {"ce": ce, "kl": kl}
    if cfg.model == "gp" and cfg.orth:
        P_unit = torch.stack([orthonormal_prototypes(P, 1.0) for P in p["P"]])  # (C, 2, d)
        pull = ((z - cfg.proto_scale * P_unit[torch.arange(len(ids)), labels]) ** 2).sum(-1)
        eye = torch.eye(2)
        orth = ((P_unit @ P_unit.transpose(1, 2) - eye) ** 2).sum((1, 2))
        loss = loss + cfg.pull_weight * (pull + cfg.orth_gamma * orth)
        terms["pull"] = pull
    return loss, {**terms, "mu": mu.detach(), "logvar": logvar.detach()}


def train_federated(H, clients_train, cfg: FedConfig, *, seed: int = 0, kinds=None) -> dict[str, Any]:
    """Run ``cfg.rounds`` FedAvg rounds over clients with training pairs ``clients_train``.

    ``H: (n_items, h)`` frozen item features; ``clients_train: (N, n, 2)`` item indices
    (chosen, rejected) per client. Returns ``{"params": global params, "ce_history": mean local
    CE per round, "ce_init", "ce_final", "label_agreement"}`` (CEs over all clients with ``z = mu_i``).
    ``kinds: (N,)``, optional, the clients' true types: used only to report, per round, how well the
    prototype labels agree with the types (up to relabelling), and as the labels themselves with
    ``cfg.labels == "oracle"`` (a diagnostic, not the paper's method).

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's federated rounds (local
    steps, then aggregation).
    """
    H = as_array("H", H, ndim=2)
    pairs_all = np.asarray(clients_train)
    if pairs_all.ndim != 3 or pairs_all.shape[-1] != 2 or pairs_all.size == 0:
        raise ValueError(f"clients_train must be an (N, n, 2) index array, got shape {pairs_all.shape}")
    if not isinstance(cfg, FedConfig):
        raise TypeError(f"cfg must be a FedConfig, got {type(cfg).__name__}")
    seed = check_int("seed", seed, minimum=0)
    if kinds is not None:
        kinds = np.asarray(kinds, dtype=int)
        if kinds.shape != (len(pairs_all),):
            raise ValueError(f"kinds must have shape ({len(pairs_all)},), got {kinds.shape}")
    if cfg.labels == "oracle" and kinds is None:
        raise ValueError("cfg.labels='oracle' needs kinds")
    H = torch.as_tensor(np.asarray(H), dtype=torch.float32)
    pairs_t = torch.as_tensor(pairs_all, dtype=torch.long)
    N = len(pairs_t)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    glob = _init_params(cfg, H.shape[1], gen)
    server = _Server()
    ce_init = client_ce(H, pairs_all, glob, cfg)
    hist, agreement = [], []
    for rnd in range(cfg.rounds):
        ids = sorted(rng.choice(N, size=min(cfg.clients_per_round, N), replace=False).tolist())
        C = len(ids)
        p = _stack(glob, C)
        labels = torch.zeros(C, dtype=torch.long)
        if cfg.model == "gp" and cfg.orth and cfg.labels == "oracle":
            labels = torch.as_tensor(kinds[ids], dtype=torch.long)
        elif cfg.model == "gp" and cfg.orth:
            P_unit = orthonormal_prototypes(glob["P"], 1.0).numpy()
            known = sorted(server.mu)
            if len(known) >= 2:
                lab = dict(zip(known, assign_labels(torch.stack([server.mu[j] for j in known]).numpy(), P_unit,
                                                    seed=rnd)))
            else:
                lab = {}
            # a client the server has not seen yet takes the prototype nearest its current mean
            mu0, _ = client_posteriors(H, pairs_all[ids], glob, cfg)
            near = np.argmin(((mu0[:, None] - 5 * P_unit[None]) ** 2).sum(-1), axis=1)
            labels = torch.tensor([int(lab.get(i, near[c])) for c, i in enumerate(ids)])
        if cfg.model == "gp" and cfg.orth and kinds is not None:
            same = float(np.mean(labels.numpy() == kinds[ids]))
            agreement.append(max(same, 1.0 - same))
        log_w_param = None
        params = list(p.values())
        if cfg.model == "gp" and cfg.prior_weights == "gumbel" and server.last:
            base = torch.log(torch.tensor([float(server.n[j]) for j in server.last]))
            log_w_param = (base - torch.logsumexp(base, 0)).expand(C, -1).clone().requires_grad_(True)
            params.append(log_w_param)
        opt = torch.optim.Adam(params, lr=cfg.lr)
        ce_round = []
        for _ in range(cfg.local_epochs):
            loss, terms = _client_losses(p, cfg, H, pairs_t[ids], server, ids, labels, gen, log_w_param)
            opt.zero_grad()
            loss.sum().backward()
            opt.step()
            ce_round.append(float(terms["ce"].detach().mean()))
        hist.append(float(np.mean(ce_round)))
        n_i = [float(pairs_all.shape[1])] * C
        glob = {k: v.detach().mean(0) if len(set(n_i)) == 1 else
                sum(w * v.detach()[c] for c, w in enumerate(np.array(n_i) / sum(n_i))) for k, v in p.items()}
        if cfg.model != "bt":
            with torch.no_grad():
                _, terms = _client_losses(p, cfg, H, pairs_t[ids], _Server(), ids, labels, gen, None)
            for c, i in enumerate(ids):
                server.mu[i], server.logvar[i], server.n[i] = terms["mu"][c], terms["logvar"][c], n_i[c]
            server.last = list(ids)
    return {"params": glob, "ce_history": hist, "ce_init": ce_init, "label_agreement": agreement,
            "ce_final": client_ce(H, pairs_all, glob, cfg)}


# ----------------------------------------------------------------------------- inference and evaluation
def client_posteriors(H, pairs, params: dict, cfg: FedConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, logvar)``, each ``(N, d)``: the posterior of each client from its pairs ``(N, n, 2)``."""
    H = torch.as_tensor(np.asarray(H), dtype=torch.float32)
    pairs = torch.as_tensor(np.asarray(pairs), dtype=torch.long)
    if cfg.model == "bt":
        raise ValueError("cfg.model='bt' has no latent posterior")
    N = len(pairs)
    p = {k: v.detach().unsqueeze(0).expand(N, *v.shape) for k, v in params.items()}
    with torch.no_grad():
        dh = H[pairs[..., 0]] - H[pairs[..., 1]]
        dl = _base_logits(p, H, pairs) if cfg.feature == "choice_logits" else None
        mu, logvar = _encode(p, cfg, dh, dl)
    return mu.numpy(), logvar.numpy()


def pair_margins(H, pairs, params: dict, z=None) -> np.ndarray:
    """``r(first, z_i) - r(second, z_i)`` for pairs ``(N, m, 2)`` with per-client ``z: (N, d)`` (or none)."""
    H = torch.as_tensor(np.asarray(as_array("H", H, ndim=2)), dtype=torch.float32)
    pairs_np = np.asarray(pairs)
    if pairs_np.ndim != 3 or pairs_np.shape[-1] != 2 or pairs_np.size == 0:
        raise ValueError(f"pairs must be an (N, m, 2) index array, got shape {pairs_np.shape}")
    pairs = torch.as_tensor(pairs_np, dtype=torch.long)
    N = len(pairs)
    p = {k: v.detach().unsqueeze(0).expand(N, *v.shape) for k, v in params.items()}
    zt = None
    if z is not None:
        zt = torch.as_tensor(np.asarray(as_array("z", z, ndim=2)), dtype=torch.float32)
        if zt.shape[0] != N:
            raise ValueError(f"z must have one row per client ({N}), got shape {tuple(zt.shape)}")
    with torch.no_grad():
        return _margin(p, H[pairs[..., 0]] - H[pairs[..., 1]], zt).numpy()


def client_ce(H, pairs, params: dict, cfg: FedConfig) -> float:
    """Mean training cross-entropy over all clients, with ``z = mu_i`` for the latent models."""
    z = None if cfg.model == "bt" else client_posteriors(H, pairs, params, cfg)[0]
    m = pair_margins(H, pairs, params, z)
    return float(np.mean(np.logaddexp(0.0, -m)))


def local_finetune(H, pairs, params: dict, *, steps: int = 25, lr: float = 0.02) -> np.ndarray:
    """Personalised-FL control: each client fine-tunes the reward head ``w`` from the global one on
    its own pairs ``(N, n, 2)`` (Adam, full batch). Returns per-client heads ``(N, h)``."""
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    H = torch.as_tensor(np.asarray(as_array("H", H, ndim=2)), dtype=torch.float32)
    pairs = torch.as_tensor(np.asarray(pairs), dtype=torch.long)
    w = params["w"].detach().unsqueeze(0).repeat(len(pairs), 1).requires_grad_(True)
    dh = H[pairs[..., 0]] - H[pairs[..., 1]]

    def loss(_model: torch.nn.Module, _batch: None) -> torch.Tensor:
        return F.softplus(-torch.einsum("cnh,ch->cn", dh, w)).mean(1).sum()

    # the shared loop on the bare tensor (an empty holder module; full batch, so one dummy batch)
    fit(torch.nn.Module(), loss, [None], steps=steps, lr=lr, params=[w])
    return w.detach().numpy()


def with_options(cfg: FedConfig, **kw) -> FedConfig:
    return replace(cfg, **kw)


def EXAMPLES() -> list:
    """Public functions with valid arguments, for the common bad-input test."""
    rng = np.random.default_rng(0)
    mu, lv = rng.normal(size=(3, 4)), 0.1 * rng.normal(size=(3, 4))
    return [
        (gaussian_kl_standard, {"mu": mu, "logvar": lv}),
        (mixture_kl_mc, {"z": rng.normal(size=(3, 4)), "mu_q": mu, "logvar_q": lv,
                         "mu_p": rng.normal(size=(2, 4)), "logvar_p": np.zeros((2, 4)),
                         "log_w": np.log(np.array([0.3, 0.7]))}),
        (orthonormal_prototypes, {"P": rng.normal(size=(2, 4)), "scale": 5.0}),
        (collapse_index, {"mu": mu, "logvar": lv}),
        (fedavg, {"states": [{"a": np.ones(2)}, {"a": np.zeros(2)}], "weights": np.array([1.0, 3.0])}),
    ]
