"""ConfSMoE: sparse MoE fusion with a confidence-guided gate and two-stage imputation (arXiv:2505.19525).

The model classifies samples made of ``M`` modalities, any subset of which may be missing.

Notation (the paper's symbols where it has them). ``B`` samples, ``M`` modalities, ``L`` tokens
per modality, ``d`` hidden width, ``E`` experts, ``K`` experts chosen per token, ``C`` classes.

1. *Encoders* ``E_m`` map modality ``m``'s raw vector to ``L`` tokens of width ``d``; a learned
   positional embedding is added to the concatenation of all modalities' tokens.
2. *Stage-1 (pre-)imputation*: a sample missing modality ``m`` gets the average of ``n_pool``
   random training inputs of ``m`` (the "modality pool"), encoded by ``E_m``.
3. *Fusion layer*: multi-head self-attention over all ``M*L`` tokens, then a per-modality sparse
   MoE feed-forward block applied to the tokens of the modalities that are present.
4. *Routing* (noisy top-K gate): logits ``u = h W_g + eps * softplus(h W_noise)``,
   ``eps ~ N(0, 1)`` during training; the ``K`` largest logits choose the experts.
   Experts are ``Linear -> GELU -> Linear``.
5. *Confidence-guided gate* (the paper's main proposal): each expert ``i`` has a head
   ``c_i = sigmoid(w_i^T LN_i(e_i(h)) + b_i)`` and the mixture is ``y = sum_{i in TopK} c_i e_i(h)``;
   the softmax routing score is *not* a mixture weight. The heads are trained towards the
   probability that a shared probe ``P`` puts on the true label given that expert's output:
   ``p_i = softmax(P e_i(h))[y_true]``, ``L_conf = MSE(c_i, p_i)`` over tokens and top-K slots.
   The total loss is ``CE + L_conf``; no load-balance loss.
6. *Stage-2 (post-)imputation*: for a sample missing ``m``, queries ``W_q`` (the stage-1 tokens
   of ``m``) attend over keys ``W_k`` (the top-K expert outputs of the other modalities, zero where
   those are missing too); per top-K slot the softmax weights are sparsified by keeping the
   largest quarter of the tokens (the released code's rule; the paper leaves it open), and the
   weighted values are added to ``m``'s tokens with a residual and LayerNorm.
7. *Readout*: mean-pool each modality's tokens, concatenate, ``Linear -> LayerNorm -> Linear``.

How the router learns under the confidence gate is not spelled out in the paper. Two options:

* ``router_grad="straight_through"`` (our reading of the paper): the mixture weight is
  ``c_i * g_i / stopgrad(g_i)``, equal to ``c_i`` in value, so the routing score stays out of the
  mixture but the router still receives the task gradient (through ``d log g_i / d u``).
* ``router_grad="none"`` (the released code): the routing score is computed and discarded, so the
  router weights never receive a gradient and selection is driven by their random initialisation,
  the training noise and the (trained) features that feed them.

Baseline gates in the same block: ``"softmax"`` (mixture weights = softmax over the top-K logits,
Shazeer et al. 2017; optionally with the Switch-Transformer load-balance loss
``L_lb = E * sum_i f_i P_i``, ``f_i`` the share of top-K selections and ``P_i`` the mean router
probability of expert ``i``, the usual remedy for collapse that ConfSMoE claims to make unnecessary) and ``"laplace"`` (FuseMoE's gate, logits ``-||h - w_i||_2``); ``ffn="dense"``
replaces the MoE by one dense feed-forward block (the dense fusion baseline). ``router_kind`` sets the
router's logits apart from the mixture weights, so the confidence gate can also sit on FuseMoE's distance
router (the control that isolates the confidence weights from the router family).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from icml26.core.validate import as_array, as_rng, check_finite, check_int, check_positive
from icml26.nn.mlp import mlp

GATES = ("confidence", "softmax", "laplace")
ROUTER_GRADS = ("straight_through", "none")
IMPUTATIONS = ("two_stage", "pool", "zero")
ROUTER_WEIGHTS = ("topk", "all")
ROUTER_KINDS = ("softmax", "laplace")


_check_finite = check_finite


def _check_pos_int(name: str, v) -> None:
    check_int(name, v, minimum=1)


def _tensor(name: str, x, ndim: int) -> torch.Tensor:
    """``x`` must be a finite float tensor with ``ndim`` dimensions (error names ``name``)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}")
    if x.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {tuple(x.shape)}")
    check_finite(name, x)
    return x


class NoisyTopKRouter(nn.Module):
    """Noisy top-K router. ``kind="softmax"``: ``u = h W_g``; ``kind="laplace"``: ``u_i = -||h - w_i||_2``.

    Both add ``N(0,1) * softplus(h W_noise)`` to the logits in training mode (``noisy=True``; the
    noise-free gate without). ``W_g`` starts as ``N(0, init_scale^2 / d)``. ``sharpness`` multiplies the
    clean logits (an inverse temperature: the scores get sharper without changing which experts the
    initial router prefers, unlike ``init_scale`` for the distance logits). ``weights="topk"``: ``g`` is
    the softmax over the K chosen logits (released code); ``"all"``: ``g_i`` is the softmax over all E
    logits at the chosen experts (the paper's formula, not renormalised).
    ``forward(h: (N, d)) -> (idx: (N, K) long, g: (N, K))``.
    """

    def __init__(self, d: int, n_experts: int, top_k: int, kind: str = "softmax", noisy: bool = True,
                 init_scale: float = 1.0, weights: str = "topk", sharpness: float = 1.0):
        super().__init__()
        if kind not in ("softmax", "laplace"):
            raise ValueError(f"kind must be 'softmax' or 'laplace', got {kind!r}")
        if not isinstance(noisy, bool):
            raise TypeError(f"noisy must be a bool, got {type(noisy).__name__}")
        init_scale = check_positive("init_scale", init_scale)
        self.sharpness = check_positive("sharpness", sharpness)
        if weights not in ROUTER_WEIGHTS:
            raise ValueError(f"weights must be one of {ROUTER_WEIGHTS}, got {weights!r}")
        self.kind, self.top_k, self.noisy, self.weights = kind, top_k, noisy, weights
        self.w_gate = nn.Parameter(torch.empty(d, n_experts))
        self.w_noise = nn.Parameter(torch.zeros(d, n_experts))
        nn.init.normal_(self.w_gate, std=init_scale / math.sqrt(d))

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        if self.kind == "softmax":
            u = h @ self.w_gate
        else:
            u = -torch.cdist(h, self.w_gate.T)  # FuseMoE's Laplace gate: exp(-||h - w_i||)
        return u if self.sharpness == 1.0 else self.sharpness * u

    def forward(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        idx, g, _ = self.route(h)
        return idx, g

    def route(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(idx (N, K), g (N, K), probs (N, E))``: ``probs`` is the softmax over all E (noisy) logits."""
        idx, log_g, log_probs = self.route_log(h)
        return idx, log_g.exp(), log_probs.exp()

    def route_log(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`route` with ``log g`` and ``log probs`` (finite where ``g`` underflows to 0)."""
        u = self.logits(h)
        if self.training and self.noisy:
            u = u + torch.randn_like(u) * (F.softplus(h @ self.w_noise) + 1e-2)
        top_u, idx = u.topk(self.top_k, dim=-1)
        log_probs = torch.log_softmax(u, dim=-1)
        if self.weights == "all":  # g_i = softmax over all E logits, at the chosen experts (not renormalised)
            return idx, log_probs.gather(1, idx), log_probs
        return idx, torch.log_softmax(top_u, dim=-1), log_probs


@dataclass
class MoEOutput:
    """What one sparse MoE block returns for ``N`` tokens.

    ``y``: (N, d) mixture; ``expert_out``: (N, K, d) outputs of the chosen experts; ``idx``: (N, K);
    ``weight``: (N, K) mixture weights; ``conf``: (N, K) confidences ``c_i`` (confidence gate only);
    ``p_true``: (N, K) probe probabilities of the true label (when labels were given);
    ``probs``: (N, E) router probabilities over all experts (for the load-balance loss).
    """

    y: torch.Tensor
    expert_out: torch.Tensor
    idx: torch.Tensor
    weight: torch.Tensor
    conf: torch.Tensor | None = None
    p_true: torch.Tensor | None = None
    probs: torch.Tensor | None = None


class SparseMoE(nn.Module):
    """Sparse MoE feed-forward block with a softmax, Laplace or confidence-guided gate.

    ``router_kind`` picks the router's logits independently of the mixture weights: ``"softmax"``
    (dot product ``h W_g``) or ``"laplace"`` (distance ``-||h - w_i||``); by default the Laplace gate
    uses the distance router and the other gates the dot-product one. ``gate="confidence"`` with
    ``router_kind="laplace"`` is the confidence gate on FuseMoE's router: the distance logits choose
    the experts, the confidences weight them.

    ``forward(h: (N, d), y: (N,) long or None) -> MoEOutput``. Tokens are dispatched: each expert
    runs only on the tokens that chose it (sorted by expert, one matmul pair per expert), and the
    confidence heads run only on the chosen experts' outputs; :meth:`experts` and
    :meth:`confidence` evaluate every expert densely (the reference the dispatch is tested against).
    """

    def __init__(self, d: int, n_experts: int = 8, top_k: int = 2, n_classes: int = 10,
                 gate: str = "confidence", router_grad: str = "straight_through", router: dict | None = None,
                 router_kind: str | None = None):
        super().__init__()
        for name, v in (("d", d), ("n_experts", n_experts), ("top_k", top_k), ("n_classes", n_classes)):
            _check_pos_int(name, v)
        if top_k > n_experts:
            raise ValueError(f"top_k ({top_k}) must not exceed n_experts ({n_experts})")
        if gate not in GATES:
            raise ValueError(f"gate must be one of {GATES}, got {gate!r}")
        if router_grad not in ROUTER_GRADS:
            raise ValueError(f"router_grad must be one of {ROUTER_GRADS}, got {router_grad!r}")
        self.d, self.n_experts, self.top_k, self.gate, self.router_grad = d, n_experts, top_k, gate, router_grad
        if router is not None and not isinstance(router, dict):
            raise TypeError(f"router must be a dict of NoisyTopKRouter options or None, got {type(router).__name__}")
        if router_kind is None:
            router_kind = "laplace" if gate == "laplace" else "softmax"
        if router_kind not in ROUTER_KINDS:
            raise ValueError(f"router_kind must be one of {ROUTER_KINDS} or None, got {router_kind!r}")
        if gate == "laplace" and router_kind != "laplace":
            raise ValueError(f"router_kind must be 'laplace' (or None) with gate='laplace', got {router_kind!r}")
        self.router = NoisyTopKRouter(d, n_experts, top_k, router_kind, **(router or {}))
        if gate == "confidence" and router_grad == "none":
            self.router.requires_grad_(False)  # released code: the score never reaches the loss
        s = 1.0 / math.sqrt(d)
        self.w1 = nn.Parameter(torch.empty(n_experts, d, d).uniform_(-s, s))
        self.b1 = nn.Parameter(torch.zeros(n_experts, d))
        self.w2 = nn.Parameter(torch.empty(n_experts, d, d).uniform_(-s, s))
        self.b2 = nn.Parameter(torch.zeros(n_experts, d))
        if gate == "confidence":
            # per-expert confidence head LN_i -> Linear(d, 1) -> sigmoid, and the shared probe P
            self.conf_ln_w = nn.Parameter(torch.ones(n_experts, d))
            self.conf_ln_b = nn.Parameter(torch.zeros(n_experts, d))
            self.conf_w = nn.Parameter(torch.empty(n_experts, d).uniform_(-s, s))
            self.conf_b = nn.Parameter(torch.zeros(n_experts))
            self.probe = nn.Linear(d, n_classes)

    def experts(self, h: torch.Tensor) -> torch.Tensor:
        """All experts on all tokens: (N, d) -> (N, E, d)."""
        z = F.gelu(torch.einsum("nd,edf->nef", h, self.w1) + self.b1)
        return torch.einsum("nef,efg->neg", z, self.w2) + self.b2

    def confidence(self, e: torch.Tensor) -> torch.Tensor:
        """``c_i = sigmoid(w_i^T LN_i(e_i) + b_i)`` for every expert: e (N, E, d) -> (N, E)."""
        z = F.layer_norm(e, (self.d,)) * self.conf_ln_w + self.conf_ln_b
        return torch.sigmoid((z * self.conf_w).sum(-1) + self.conf_b)

    def dispatch(self, h: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        """The chosen experts on their tokens: h (N, d), idx (N, K) -> (N, K, d), equal to
        ``experts(h)`` gathered at ``idx`` but with N*K expert evaluations instead of N*E."""
        N, K = idx.shape
        flat = idx.reshape(-1)
        order = torch.argsort(flat, stable=True)  # selections grouped by expert
        counts = torch.bincount(flat, minlength=self.n_experts).tolist()
        hs = h.index_select(0, torch.div(order, K, rounding_mode="floor"))
        outs = [torch.addmm(self.b2[i], F.gelu(torch.addmm(self.b1[i], chunk, self.w1[i])), self.w2[i])
                for i, chunk in enumerate(hs.split(counts)) if counts[i]]
        out = torch.cat(outs) if outs else h.new_zeros(0, self.d)
        inverse = torch.empty_like(order)
        inverse[order] = torch.arange(order.numel())
        return out.index_select(0, inverse).view(N, K, self.d)

    def confidence_chosen(self, e: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        """``c_i`` of the chosen experts only: e (N, K, d) their outputs, idx (N, K) -> (N, K)."""
        z = F.layer_norm(e, (self.d,)) * F.embedding(idx, self.conf_ln_w) + F.embedding(idx, self.conf_ln_b)
        return torch.sigmoid((z * F.embedding(idx, self.conf_w)).sum(-1) + self.conf_b[idx])

    def forward(self, h: torch.Tensor, y: torch.Tensor | None = None) -> MoEOutput:
        if h.ndim != 2 or h.shape[1] != self.d:
            raise ValueError(f"h must have shape (N, {self.d}), got {tuple(h.shape)}")
        _check_finite("h", h)
        if y is not None and (y.ndim != 1 or y.shape[0] != h.shape[0]):
            raise ValueError(f"y must have shape ({h.shape[0]},), got {tuple(y.shape)}")
        idx, log_g, log_probs = self.router.route_log(h)
        g, router_probs = log_g.exp(), log_probs.exp()
        e = self.dispatch(h, idx)  # (N, K, d)
        conf = p_true = None
        if self.gate == "confidence":
            conf = self.confidence_chosen(e, idx)
            # straight-through c_i * g_i / stopgrad(g_i), in log space so that an underflowed g_i stays finite
            weight = conf * torch.exp(log_g - log_g.detach()) if self.router_grad == "straight_through" else conf
            if y is not None:
                probs = torch.softmax(self.probe(e), dim=-1)  # (N, K, C)
                p_true = probs.gather(-1, y.view(-1, 1, 1).expand(-1, self.top_k, 1)).squeeze(-1)
        else:
            weight = g
        return MoEOutput((weight.unsqueeze(-1) * e).sum(1), e, idx, weight, conf, p_true, router_probs)


def load_balance_loss(idx: torch.Tensor, probs: torch.Tensor) -> torch.Tensor:
    """Switch-Transformer auxiliary loss ``E * sum_i f_i P_i`` (1 when routing is uniform).

    idx: (N, K) chosen experts; probs: (N, E) router probabilities. ``f_i`` (share of selections,
    no gradient) times ``P_i`` (mean probability, differentiable) pushes probability away from
    over-used experts.
    """
    if idx.ndim != 2 or probs.ndim != 2 or idx.shape[0] != probs.shape[0]:
        raise ValueError(f"idx must be (N, K) and probs (N, E); got {tuple(idx.shape)}, {tuple(probs.shape)}")
    E = probs.shape[1]
    if idx.shape[0] == 0:
        return probs.sum() * 0.0
    f = torch.bincount(idx.reshape(-1), minlength=E).to(probs.dtype) / idx.numel()
    return E * (f * probs.mean(0)).sum()


def confidence_loss(conf: torch.Tensor, p_true: torch.Tensor) -> torch.Tensor:
    """``L_conf = mean (c_i - p_i)^2`` over tokens and top-K slots; both (N, K). ``p_true`` is not detached."""
    conf, p_true = _tensor("conf", conf, conf.ndim if isinstance(conf, torch.Tensor) else 2), \
        _tensor("p_true", p_true, p_true.ndim if isinstance(p_true, torch.Tensor) else 2)
    if conf.shape != p_true.shape:
        raise ValueError(f"conf {tuple(conf.shape)} and p_true {tuple(p_true.shape)} must have equal shapes")
    if conf.numel() == 0:
        return conf.sum()
    return F.mse_loss(conf, p_true)


def pool_impute(pool: torch.Tensor, n_missing: int, n_draw: int = 10,
                generator: torch.Generator | None = None) -> torch.Tensor:
    """Stage-1 imputation input: mean of ``n_draw`` random rows of ``pool`` (P, f) for each of ``n_missing`` samples.

    Returns (n_missing, f). Rows are drawn with replacement, as in the paper's modality pool.
    """
    pool = _tensor("pool", pool, 2)
    if pool.shape[0] == 0 or pool.shape[1] == 0:
        raise ValueError(f"pool must be a non-empty (P, f) tensor, got shape {tuple(pool.shape)}")
    _check_pos_int("n_draw", n_draw)
    n_missing = check_int("n_missing", n_missing, minimum=0)
    pick = torch.randint(0, pool.shape[0], (int(n_missing), n_draw), generator=generator)
    return pool[pick].mean(1)


def sparse_cross_attention(q: torch.Tensor, kv: torch.Tensor, top_k: int, keep_frac: float = 0.25) -> torch.Tensor:
    """Stage-2 imputation read-out (the released code's sparsification rule).

    q: (B, L, d) projected queries of the missing modality; kv: (B, T, K, d) projected expert outputs
    of the other modalities (T tokens, K top-K slots; used as keys and values). For each query and slot,
    softmax over the T tokens, keep the ``max(1, int(T * keep_frac))`` largest weights (not renormalised)
    and sum weight * value over the kept tokens and the K slots. Returns (B, L, d).
    """
    q, kv = _tensor("q", q, 3), _tensor("kv", kv, 4)
    top_k = check_int("top_k", top_k, minimum=1)
    keep_frac = check_positive("keep_frac", keep_frac)
    if q.numel() == 0 or kv.numel() == 0 or q.shape[0] != kv.shape[0] or q.shape[-1] != kv.shape[-1]:
        raise ValueError(f"q must be (B, L, d) and kv (B, T, K, d) with matching B, d; got {tuple(q.shape)}, {tuple(kv.shape)}")
    if kv.shape[2] != top_k:
        raise ValueError(f"kv must have {top_k} slots in dim 2, got {kv.shape[2]}")
    if not 0.0 < keep_frac <= 1.0:
        raise ValueError(f"keep_frac must be in (0, 1], got {keep_frac}")
    return _sparse_read(q, kv, max(1, int(kv.shape[1] * keep_frac)))


def _sparse_read(q: torch.Tensor, kv: torch.Tensor, keep: int) -> torch.Tensor:
    """:func:`sparse_cross_attention` without validation, keeping ``keep`` tokens per query and slot."""
    logits = torch.einsum("bld,btkd->bltk", q, kv) / math.sqrt(q.shape[-1])
    attn = torch.softmax(logits, dim=2)
    top_w, top_i = attn.topk(keep, dim=2)  # (B, L, keep, K)
    sparse = torch.zeros_like(attn).scatter(2, top_i, top_w)
    return torch.einsum("bltk,btkd->bld", sparse, kv)


class ConfSMoEClassifier(nn.Module):
    """Missing-modality fusion classifier (encoders, imputation, attention + MoE fusion, readout).

    ``forward(xs, present, y=None) -> (logits (B, C), aux)`` where ``xs`` is a list of ``M`` tensors
    (B, f_m) (rows of missing modalities are ignored), ``present`` a (B, M) bool mask with at least one
    True per row, ``y`` (B,) labels for the confidence target (training). ``aux`` holds ``conf_loss``,
    ``present`` and, for sparse blocks, ``idx`` (B, M, L, K) chosen experts, plus ``conf`` and ``p_true``
    (B, M, L, K) for the confidence gate (entries of missing modalities are to be ignored), and
    ``lb_loss``, the load-balance loss of the present tokens' routing (added to the training loss
    only by the ``softmax + load-balance`` baseline).

    ``gate``: ``"confidence"``, ``"softmax"``, ``"laplace"`` (sparse) ; ``ffn="dense"`` for the dense
    baseline. ``imputation``: ``"two_stage"`` (paper), ``"pool"`` (stage 1 only), ``"zero"`` (zero tokens).
    ``router``: options of :class:`NoisyTopKRouter` (``noisy``, ``init_scale``, ``weights``, ``sharpness``);
    ``router_kind``: the router's logits, ``"softmax"`` or ``"laplace"`` (see :class:`SparseMoE`).
    """

    def __init__(self, in_dims: list[int], n_classes: int, d: int = 32, tokens: int = 4, n_experts: int = 8,
                 top_k: int = 2, n_heads: int = 2, dropout: float = 0.1, gate: str = "confidence",
                 router_grad: str = "straight_through", ffn: str = "sparse", imputation: str = "two_stage",
                 n_pool: int = 10, router: dict | None = None, router_kind: str | None = None):
        super().__init__()
        if not in_dims or any(not isinstance(f, (int, np.integer)) or f < 1 for f in in_dims):
            raise ValueError(f"in_dims must be a non-empty list of positive ints, got {in_dims!r}")
        for name, v in (("n_classes", n_classes), ("d", d), ("tokens", tokens), ("n_heads", n_heads),
                        ("n_pool", n_pool)):
            _check_pos_int(name, v)
        if d % n_heads:
            raise ValueError(f"d ({d}) must be divisible by n_heads ({n_heads})")
        if ffn not in ("sparse", "dense"):
            raise ValueError(f"ffn must be 'sparse' or 'dense', got {ffn!r}")
        if imputation not in IMPUTATIONS:
            raise ValueError(f"imputation must be one of {IMPUTATIONS}, got {imputation!r}")
        if ffn == "dense" and imputation == "two_stage":
            raise ValueError("stage-2 imputation reads expert outputs; use imputation='pool' or 'zero' with ffn='dense'")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.in_dims, self.M, self.L, self.d, self.top_k = list(in_dims), len(in_dims), tokens, d, top_k
        self.ffn, self.imputation, self.n_pool, self.gate = ffn, imputation, n_pool, gate
        self.n_classes = n_classes
        self.encoders = nn.ModuleList(nn.Linear(f, tokens * d) for f in in_dims)
        self.pos = nn.Parameter(torch.zeros(1, self.M * tokens, d))
        self.norm_attn = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, n_heads, dropout=dropout, batch_first=True)
        self.norm_ffn = nn.LayerNorm(d)
        self.norm_out = nn.LayerNorm(d)
        if ffn == "sparse":
            self.moe = SparseMoE(d, n_experts, top_k, n_classes, gate, router_grad, router, router_kind)
        else:
            self.dense = mlp([d, d, d], activation="gelu")
        if imputation == "two_stage":
            self.w_q = nn.Linear(d, d)
            self.w_k = nn.Linear(d, d)
            self.norm_imp = nn.LayerNorm(d)
        self.head = mlp([self.M * d, d, n_classes], layer_norm=True, activation="identity")  # Linear-LayerNorm-Linear
        self.pools: list[torch.Tensor] | None = None

    def set_pools(self, pools: list[torch.Tensor]) -> None:
        """The modality pools (training inputs of each modality where present) for stage-1 imputation."""
        if len(pools) != self.M:
            raise ValueError(f"need {self.M} pools, got {len(pools)}")
        for m, p in enumerate(pools):
            if p.ndim != 2 or p.shape[1] != self.in_dims[m] or p.shape[0] == 0:
                raise ValueError(f"pool {m} must be non-empty with shape (P, {self.in_dims[m]}), got {tuple(p.shape)}")
        self.pools = [p.float() for p in pools]

    def _validate(self, xs, present, y):
        if len(xs) != self.M:
            raise ValueError(f"xs must hold {self.M} modalities, got {len(xs)}")
        B = xs[0].shape[0]
        for m, x in enumerate(xs):
            if x.ndim != 2 or x.shape != (B, self.in_dims[m]):
                raise ValueError(f"xs[{m}] must have shape ({B}, {self.in_dims[m]}), got {tuple(x.shape)}")
        if present.dtype != torch.bool or present.shape != (B, self.M):
            raise ValueError(f"present must be a bool tensor of shape ({B}, {self.M}), got {present.dtype} {tuple(present.shape)}")
        if not present.any(1).all():
            raise ValueError("present: every sample needs at least one modality")
        for m, x in enumerate(xs):
            _check_finite(f"xs[{m}] (present rows)", x[present[:, m]])
        if y is not None:
            if not isinstance(y, torch.Tensor) or y.dtype not in (torch.int64, torch.int32):
                raise TypeError(f"y must be an integer tensor of class labels, got {type(y).__name__} "
                                f"{getattr(y, 'dtype', '')}")
            if y.ndim != 1 or y.shape[0] != B:
                raise ValueError(f"y must have shape ({B},), got {tuple(y.shape)}")
            if y.numel() and (int(y.min()) < 0 or int(y.max()) >= self.n_classes):
                raise ValueError(f"y must hold labels in [0, {self.n_classes}), got range "
                                 f"[{int(y.min())}, {int(y.max())}]")

    def encode(self, xs: list[torch.Tensor], present: torch.Tensor) -> torch.Tensor:
        """Encoders with stage-1 imputation (or zero tokens): -> (B, M, L, d)."""
        B = xs[0].shape[0]
        toks = []
        for m, x in enumerate(xs):
            x = torch.where(present[:, m:m + 1], x, torch.zeros_like(x))  # never read a missing row
            t = self.encoders[m](x).view(B, self.L, self.d)
            miss = ~present[:, m]
            if miss.any():
                if self.imputation == "zero":
                    t = torch.where(miss.view(B, 1, 1), torch.zeros_like(t), t)
                else:
                    if self.pools is None:
                        raise ValueError("pool imputation needs set_pools(...) before the forward pass")
                    filled = self.encoders[m](pool_impute(self.pools[m], int(miss.sum()), self.n_pool))
                    t = t.clone()
                    t[miss] = filled.view(-1, self.L, self.d)
            toks.append(t)
        return torch.stack(toks, 1)

    def forward(self, xs: list[torch.Tensor], present: torch.Tensor, y: torch.Tensor | None = None):
        self._validate(xs, present, y)
        B, M, L, d, K = xs[0].shape[0], self.M, self.L, self.d, self.top_k
        x = self.encode(xs, present).reshape(B, M * L, d) + self.pos
        h = self.norm_attn(x)
        x = (x + self.attn(h, h, h, need_weights=False)[0]).view(B, M, L, d)
        z = self.norm_ffn(x)
        # One MoE call on the tokens of the present modalities (the same expert block serves each
        # modality, as in the released code); missing modalities' tokens get no FFN update, zero
        # expert outputs and entries 0 in the routing records (to be ignored).
        tok_present = present.view(B, M, 1).expand(B, M, L)
        aux: dict = {"conf_loss": x.new_zeros(()), "lb_loss": x.new_zeros(()), "present": present}
        if self.ffn == "dense":
            out = self.dense(z) * tok_present.unsqueeze(-1)
            expert_out = None
        else:
            sel = tok_present.reshape(-1).nonzero().squeeze(1)
            ytok = None if y is None else y.view(B, 1).expand(B, M * L).reshape(-1)[sel]
            mo = self.moe(z.reshape(-1, d)[sel], ytok)

            def scatter(v: torch.Tensor) -> torch.Tensor:  # present tokens' rows -> all B*M*L rows
                return v.new_zeros((B * M * L, *v.shape[1:])).index_copy(0, sel, v)

            out = scatter(mo.y).view(B, M, L, d)
            expert_out = scatter(mo.expert_out).view(B, M, L, K, d)
            aux["idx"] = scatter(mo.idx).view(B, M, L, K)
            aux["lb_loss"] = load_balance_loss(mo.idx, mo.probs)
            if mo.conf is not None:
                aux["conf"] = scatter(mo.conf).view(B, M, L, K)
                if mo.p_true is not None:
                    aux["p_true"] = scatter(mo.p_true).view(B, M, L, K)
                    aux["conf_loss"] = confidence_loss(mo.conf, mo.p_true)
        # missing modalities get no FFN update (as in the released code): LN(x + 0)
        x = self.norm_out(x + out)
        if self.imputation == "two_stage":
            x = self._stage2(x, z, expert_out, present)
        return self.head(x.mean(2).reshape(B, M * d)), aux

    def _stage2(self, x, z, expert_out, present):
        """Post-imputation: missing modality tokens attend to the other modalities' expert outputs.

        Computed for the missing (sample, modality) pairs only: the queries of a missing modality m
        see the (M-1)*L tokens of the other modalities, whose expert outputs are zeroed where those
        are missing too (released code); present modalities pass through unchanged.
        """
        B, M, L, d = x.shape
        if M == 1 or present.all():
            return x
        K = self.top_k
        mb, mm = (~present).nonzero(as_tuple=True)  # missing (sample, modality) pairs
        others = torch.tensor([[j for j in range(M) if j != m] for m in range(M)])  # (M, M-1)
        kv = self.w_k((expert_out * present.view(B, M, 1, 1, 1))[mb.unsqueeze(1), others[mm]])
        kv = kv.reshape(-1, (M - 1) * L, K, d)  # (n_missing, T, K, d)
        q = self.w_q(z[mb, mm])  # (n_missing, L, d): stage-1 tokens (their top-k "expert output" mean is themselves)
        read = _sparse_read(q, kv, max(1, ((M - 1) * L) // 4))
        return x.index_put((mb, mm), self.norm_imp(x[mb, mm] + read))


def routing_statistics(idx: np.ndarray, labels: np.ndarray, n_experts: int, n_perm: int = 0,
                       rng: np.random.Generator | None = None) -> dict[str, float]:
    """Collapse and specialisation diagnostics of top-K routing.

    idx: (N, K) chosen experts per token; labels: (N,) a discrete attribute of each token (class or
    modality). Returns ``entropy`` = H(usage)/log E (1 = uniform, 0 = one expert), ``max_share``
    (largest fraction of selections), ``mi`` = I(expert; label) in bits over all selections and,
    when ``n_perm > 0``, ``mi_null`` = its mean under random permutations of the labels.
    """
    if isinstance(idx, (str, bytes)) or isinstance(labels, (str, bytes)):
        raise TypeError("idx and labels must be integer arrays")
    idx = np.asarray(idx)
    labels = np.asarray(labels)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"idx must hold integer expert indices, got dtype {idx.dtype}")
    n_perm = check_int("n_perm", n_perm, minimum=0)
    if idx.ndim != 2 or idx.shape[0] == 0:
        raise ValueError(f"idx must be a non-empty (N, K) array, got shape {idx.shape}")
    if labels.shape != (idx.shape[0],):
        raise ValueError(f"labels must have shape ({idx.shape[0]},), got {labels.shape}")
    _check_pos_int("n_experts", n_experts)
    if idx.min() < 0 or idx.max() >= n_experts:
        raise ValueError(f"idx entries must lie in [0, {n_experts})")
    usage = np.bincount(idx.ravel(), minlength=n_experts) / idx.size
    nz = usage[usage > 0]
    out = {"entropy": float(-(nz * np.log(nz)).sum() / math.log(n_experts)) if n_experts > 1 else 1.0,
           "max_share": float(usage.max())}
    _, lab = np.unique(labels, return_inverse=True)

    def mi(lab_: np.ndarray) -> float:
        joint = np.zeros((n_experts, lab_.max() + 1))
        np.add.at(joint, (idx.ravel(), np.repeat(lab_, idx.shape[1])), 1.0)
        joint /= joint.sum()
        pe, pl = joint.sum(1, keepdims=True), joint.sum(0, keepdims=True)
        ok = joint > 0
        return float((joint[ok] * np.log2(joint[ok] / (pe @ pl)[ok])).sum())

    out["mi"] = mi(lab)
    if n_perm > 0:
        rng = rng or np.random.default_rng(0)
        out["mi_null"] = float(np.mean([mi(rng.permutation(lab)) for _ in range(n_perm)]))
    return out


def sample_missing_mask(n: int, n_modalities: int, rate: float, rng) -> np.ndarray:
    """(n, M) bool mask of *present* modalities: each dropped independently with ``rate``; a sample that
    lost all of them keeps one chosen uniformly at random. ``rng``: a numpy Generator or an int seed."""
    _check_pos_int("n", n)
    _check_pos_int("n_modalities", n_modalities)
    rate = check_positive("rate", rate, strict=False)
    if rate >= 1.0:
        raise ValueError(f"rate must be in [0, 1), got {rate}")
    if rng is None:
        raise TypeError("rng must be a numpy Generator or a non-negative int seed, got None")
    rng = as_rng("rng", rng)
    present = rng.random((n, n_modalities)) >= rate
    empty = ~present.any(1)
    present[np.flatnonzero(empty), rng.integers(0, n_modalities, int(empty.sum()))] = True
    return present
