"""SusDiet (arXiv:2608.24274): constraint-aware diet recommendation, Sec. 3-4 and Appendix A.

Task (Eq. 1): for user u, ``max_r y_hat_{u,r}  s.t.  s_r^n <= lambda_u^n``, relaxed (Eq. 2) to
ranking by the decision score

    F(u, r) = y_hat_{u,r} - alpha_u^T (s_r - lambda_u)                          (written form)

with learnable per-user thresholds ``lambda_u`` and trade-off weights ``alpha_u``. As
written, ``alpha_u^T lambda_u`` is the same for every recipe of user u, so lambda_u changes
no ranking (:func:`decision_score` with ``form="written"``; the unit tests show the
invariance), and the penalty loss (Eq. 9) ``E alpha_u^T (s_r - lambda_u)`` decreases without
bound as lambda_u grows (with alpha_u > 0), held only by the l2 term: with
``beta3 < 1/2`` the written objective in (alpha, lambda) is even unbounded below along
alpha = lambda. We therefore also implement the hinge

    F(u, r) = y_hat_{u,r} - alpha_u^T max(0, s_r - lambda_u)                    (hinge form)

where lambda_u is a real threshold. The penalty is applied either to the predicted
indicators ``s_hat_r`` (N = 4, the task formulation) or to the learned D-dim recipe
embedding ``z_r`` (Eq. 8 as written); the text is ambiguous, both are provided.

Components:

* :class:`RecipeEncoder` (Sec. 4.1, Eq. 3-5, App. A.1): ingredient-quantity fusion
  ``x_j = W_in [Embed(t_j); W_q q_j + b_q] + b_in``, E Transformer experts with masked mean
  pooling, a softmax gate on the mean input, ``z_r = LayerNorm(W_g sum_e g_e p^(e) + b_g)``
  and K regression heads trained with the uncertainty-weighted loss
  ``sum_k exp(-v_k) MSE_k + v_k`` (:func:`uncertainty_weighted_loss`).
* :class:`PreferenceModel` (Sec. 4.2, Eq. 6-7, App. A.2): history embeddings plus positions,
  an MLP and self-attention over the history; the target recipe's id / ingredient / region
  views (with self-attention among the views) each query the history (multi-interest
  attention); ``e_u = MLP([e_id; e_ing; e_reg])``, ``y_hat = <e_u, e_r>``.
* :class:`ConstraintParams`: ``alpha_u = softplus(a_u)`` (positivity is unspecified in the
  paper; our choice) and ``lambda_u`` (per user, or one global vector for the control).
* Losses (Eq. 9-12): :func:`penalty`, rating MSE on normalised ratings, BPR
  (:func:`bpr_loss`), and l2 on the constraint parameters. The GRAPE-style baseline's
  green loss (:func:`green_loss`) treats sustainability as a preference instead.
* Evaluation: :func:`topk`, :func:`ndcg_at_k`, :func:`recall_at_k`, :func:`violation_rate`,
  and the exact constrained top-K on true utilities with HiGHS (:func:`constrained_topk`).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as Fn
from torch import nn

from icml26.core.validate import as_array, check_int, check_positive
from icml26.nn.mlp import fit, mlp

FORMS = ("written", "hinge")


# ----------------------------------------------------------------------------- recipe encoder (Sec. 4.1)
def _masked_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, pad: torch.Tensor | None) -> torch.Tensor:
    """Single-head scaled dot-product attention. ``q, k, v``: (..., L, d); ``pad``: (B, L) True at padding,
    broadcast over the leading dimensions after the batch one."""
    logit = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if pad is not None:
        shape = (pad.shape[0],) + (1,) * (logit.dim() - 3) + (1, pad.shape[1])
        logit = logit.masked_fill(pad.view(shape), -1e9)
    return torch.softmax(logit, -1) @ v


class ExpertTransformers(nn.Module):
    """E independent one-layer Transformer encoders (single-head attention + FFN, post-norm as in
    ``nn.TransformerEncoderLayer``), with their weights stacked so all experts run in one pass.

    ``forward(x (B, L, d), pad (B, L)) -> (B, E, L, d)``."""

    def __init__(self, n_experts: int, d: int):
        super().__init__()
        scale = 1.0 / math.sqrt(d)
        self.qkv = nn.Parameter(torch.randn(n_experts, d, 3 * d) * scale)
        self.out = nn.Parameter(torch.randn(n_experts, d, d) * scale)
        self.ff1 = nn.Parameter(torch.randn(n_experts, d, 2 * d) * scale)
        self.ff2 = nn.Parameter(torch.randn(n_experts, 2 * d, d) * scale / math.sqrt(2))
        self.b1 = nn.Parameter(torch.zeros(n_experts, 1, 2 * d))
        self.norm1 = nn.LayerNorm(d)
        self.norm2 = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        q, k, v = torch.einsum("bld,edf->belf", x, self.qkv).chunk(3, -1)
        h = self.norm1(x.unsqueeze(1) + torch.einsum("beld,edf->belf", _masked_attention(q, k, v, pad), self.out))
        ff = torch.einsum("belf,efd->beld", torch.relu(torch.einsum("beld,edf->belf", h, self.ff1) + self.b1), self.ff2)
        return self.norm2(h + ff)


class RecipeEncoder(nn.Module):
    """MoE Transformer encoder of a recipe's (ingredient, grams) sequence, with K indicator heads.

    ``forward(tokens (B, L) int [0 = padding], grams (B, L))`` returns ``(z (B, D), s_hat (B, K))``.
    Grams enter as ``q / 100`` (our scaling).
    """

    def __init__(self, n_ingredients: int, d: int = 32, d_q: int = 8, n_experts: int = 4, n_tasks: int = 4):
        super().__init__()
        n_ingredients = check_int("n_ingredients", n_ingredients, minimum=1)
        d = check_int("d", d, minimum=2)
        self.embed = nn.Embedding(n_ingredients + 1, d, padding_idx=0)
        self.w_q = nn.Linear(1, d_q)
        self.w_in = nn.Linear(d + d_q, d)
        self.experts = ExpertTransformers(check_int("n_experts", n_experts, minimum=1), d)
        self.gate = mlp([d, d, n_experts])
        self.w_g = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.heads = nn.ModuleList(mlp([d, d, 1]) for _ in range(check_int("n_tasks", n_tasks, minimum=1)))
        self.log_var = nn.Parameter(torch.zeros(n_tasks))  # v_k of Eq. 5

    def forward(self, tokens: torch.Tensor, grams: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pad = tokens == 0
        mask = (~pad).float()  # (B, L)
        x = self.w_in(torch.cat([self.embed(tokens), self.w_q(grams.unsqueeze(-1) / 100.0)], -1))
        denom = mask.sum(1, keepdim=True) + 1e-6
        x_bar = (x * mask.unsqueeze(-1)).sum(1) / denom
        g = torch.softmax(self.gate(x_bar), -1)  # (B, E)
        H = self.experts(x, pad)  # (B, E, L, D)
        pooled = (H * mask[:, None, :, None]).sum(2) / denom.unsqueeze(-1)  # masked mean pooling: (B, E, D)
        z = self.norm(self.w_g((g.unsqueeze(-1) * pooled).sum(1)))
        s_hat = torch.cat([h(z) for h in self.heads], -1)
        return z, s_hat


def uncertainty_weighted_loss(s_hat: torch.Tensor, s: torch.Tensor, log_var: torch.Tensor) -> torch.Tensor:
    """Eq. 5: ``sum_k exp(-v_k) * MSE_k + v_k``. ``s_hat, s``: (B, K); ``log_var``: (K,)."""
    s_hat = as_array("s_hat", s_hat, ndim=2)
    s = as_array("s", s, ndim=2)
    log_var = as_array("log_var", log_var, ndim=1)
    if s_hat.shape != s.shape or log_var.shape[0] != s.shape[1]:
        raise ValueError(f"s_hat {tuple(s_hat.shape)}, s {tuple(s.shape)} and log_var {tuple(log_var.shape)} disagree")
    mse = ((s_hat - s) ** 2).mean(0)
    return (torch.exp(-log_var) * mse + log_var).sum()


def r_squared(pred: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per-column coefficient of determination. ``pred, target``: (M, K) -> (K,)."""
    pred = as_array("pred", pred, ndim=2)
    target = as_array("target", target, ndim=2)
    if pred.shape != target.shape:
        raise ValueError(f"pred {pred.shape} and target {target.shape} must have the same shape")
    ss_res = ((pred - target) ** 2).sum(0)
    ss_tot = ((target - target.mean(0)) ** 2).sum(0)
    return 1.0 - ss_res / np.maximum(ss_tot, 1e-12)


def fit_recipe_encoder(tokens: np.ndarray, grams: np.ndarray, s: np.ndarray, *, n_ingredients: int, d: int = 32,
                       steps: int = 400, batch: int = 128, lr: float = 1e-2, holdout: float = 0.2,
                       extra: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, seed: int = 0) -> dict:
    """Train :class:`RecipeEncoder` on the normalised indicators with Eq. 5; return the model, the R^2 on
    held-out catalog recipes, ``z`` (R, D) and ``s_hat`` (R, K) for every catalog recipe, and the loss history.
    ``extra`` = (tokens, grams, s) of further recipes used for training only."""
    tokens = np.asarray(tokens)
    grams = as_array("grams", grams, ndim=2)
    s = as_array("s", s, ndim=2)
    if tokens.shape != grams.shape or s.shape[0] != tokens.shape[0]:
        raise ValueError(f"tokens {tokens.shape}, grams {grams.shape} and s {s.shape} disagree")
    steps = check_int("steps", steps, minimum=1)
    torch.manual_seed(int(seed))
    n = tokens.shape[0]
    perm = np.random.default_rng([int(seed), 41]).permutation(n)
    n_hold = max(1, int(holdout * n))
    hold, train = perm[:n_hold], perm[n_hold:]
    T, G, S = torch.as_tensor(tokens), torch.as_tensor(grams, dtype=torch.float32), torch.as_tensor(s, dtype=torch.float32)
    if extra is not None and len(extra[0]):
        xt, xg, xs = np.asarray(extra[0]), as_array("extra grams", extra[1], ndim=2), as_array("extra s", extra[2], ndim=2)
        train = np.concatenate([train, n + np.arange(xt.shape[0])])
        T_all = torch.cat([T, torch.as_tensor(xt)])
        G_all = torch.cat([G, torch.as_tensor(xg, dtype=torch.float32)])
        S_all = torch.cat([S, torch.as_tensor(xs, dtype=torch.float32)])
    else:
        T_all, G_all, S_all = T, G, S
    enc = RecipeEncoder(n_ingredients, d=d, n_tasks=s.shape[1])
    tr = torch.as_tensor(train)
    history = []  # the plain MSE of every step (the gate's loss), not the uncertainty-weighted objective

    def draw(g: torch.Generator) -> torch.Tensor:
        return tr[torch.randint(0, len(tr), (min(batch, len(tr)),), generator=g)]

    def loss_fn(model: RecipeEncoder, b: torch.Tensor) -> torch.Tensor:
        _, sh = model(T_all[b], G_all[b])
        history.append(float(((sh - S_all[b]) ** 2).mean().detach()))
        return uncertainty_weighted_loss(sh, S_all[b], model.log_var)

    # Adam with cosine decay (our choice); minibatches from torch.Generator().manual_seed(seed)
    fit(enc, loss_fn, draw, steps=steps, lr=lr, schedule="cosine", seed=seed)
    with torch.no_grad():
        z, sh = enc(T, G)
    sh_np = sh.numpy().astype(float)
    return {"model": enc, "z": z.numpy().astype(float), "s_hat": sh_np, "history": history,
            "r2": r_squared(sh_np[hold], s[hold]), "holdout": hold}


# ----------------------------------------------------------------------------- preference model (Sec. 4.2)
class PreferenceModel(nn.Module):
    """Multi-interest preference model (single-head attention throughout).

    ``forward(hist (B, H) int [recipe + 1; 0 = padding], r (B, J)) -> y_hat (B, J)``: J target recipes per
    history (the positive and sampled negatives share one history encoding). ``tokens`` (R, L) and
    ``region`` (R,) describe the recipes (ingredient and region views).
    ``score_all(hist (B, H), items (M,)) -> (B, M)`` scores every pair (target-aware attention).
    """

    def __init__(self, tokens: np.ndarray, region: np.ndarray, n_ingredients: int, n_regions: int, d: int = 32,
                 hist_len: int = 20):
        super().__init__()
        n_rec = int(np.asarray(tokens).shape[0])
        self.d = check_int("d", d, minimum=2)
        self.register_buffer("tokens", torch.as_tensor(np.asarray(tokens), dtype=torch.long))
        self.register_buffer("region", torch.as_tensor(np.asarray(region), dtype=torch.long))
        self.E_u = nn.Embedding(n_rec + 1, d, padding_idx=0)
        self.pos = nn.Embedding(check_int("hist_len", hist_len, minimum=1), d)
        self.hist_mlp = mlp([d, d, d])
        self.hist_qkv = nn.Linear(d, 3 * d)
        self.E_item = nn.Embedding(n_rec, d)
        self.E_ing = nn.Embedding(n_ingredients + 1, d, padding_idx=0)
        self.E_reg = nn.Embedding(n_regions, d)
        self.view_qkv = nn.Linear(d, 3 * d)
        self.item_proj = nn.Linear(3 * d, d)
        self.phi_q = nn.Linear(d, 3 * d)   # one query projection per view (id, ingredients, region)
        self.phi_kv = nn.Linear(d, 6 * d)  # keys and values per view
        self.user_mlp = mlp([3 * d, d, d])
        for emb in (self.E_u, self.E_item, self.E_ing, self.E_reg, self.pos):
            nn.init.normal_(emb.weight, std=0.1)

    def items(self, r: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``r``: (M,) -> views (M, 3, d) after self-attention among them, and ``e_r`` (M, d)."""
        tok = self.tokens[r]
        m = (tok > 0).float().unsqueeze(-1)
        v_ing = (self.E_ing(tok) * m).sum(1) / m.sum(1).clamp_min(1.0)
        v = torch.stack([self.E_item(r), v_ing, self.E_reg(self.region[r])], 1)
        v = v + _masked_attention(*self.view_qkv(v).chunk(3, -1), None)
        return v, self.item_proj(v.flatten(1))

    def history(self, hist: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``h_tilde`` (B, H, d) and the padding mask (B, H)."""
        pad = hist == 0
        h = self.E_u(hist) + self.pos.weight[: hist.shape[1]]
        h = h + self.hist_mlp(h)
        h = h + _masked_attention(*self.hist_qkv(h).chunk(3, -1), pad)
        return h, pad

    def _user(self, h: torch.Tensor, pad: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Multi-interest attention (Eq. 6): ``v`` (B, M, 3, d) target views -> e_u (B, M, d)."""
        B, M = v.shape[:2]
        q = torch.einsum("bmjd,jdf->bmjf", v, self.phi_q.weight.view(3, self.d, self.d).transpose(1, 2)) \
            + self.phi_q.bias.view(3, self.d)
        kv = self.phi_kv(h).view(B, -1, 3, 2, self.d)  # (B, H, 3, 2, d)
        k, val = kv[..., 0, :], kv[..., 1, :]
        logit = torch.einsum("bmjd,bhjd->bmjh", q, k) / math.sqrt(self.d)
        att = torch.softmax(logit.masked_fill(pad[:, None, None, :], -1e9), -1)
        e = torch.einsum("bmjh,bhjd->bmjd", att, val)
        return self.user_mlp(e.flatten(2))

    def forward(self, hist: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        h, pad = self.history(hist)
        B, J = r.shape
        v, e_r = self.items(r.reshape(-1))
        e_u = self._user(h, pad, v.view(B, J, 3, self.d))
        return (e_u * e_r.view(B, J, self.d)).sum(-1)

    @torch.no_grad()
    def score_all(self, hist: torch.Tensor, items: torch.Tensor | None = None, chunk: int = 32) -> torch.Tensor:
        items = torch.arange(self.E_item.num_embeddings) if items is None else items
        v, e_r = self.items(items)
        out = []
        for i in range(0, hist.shape[0], chunk):
            h, pad = self.history(hist[i:i + chunk])
            e_u = self._user(h, pad, v.unsqueeze(0).expand(h.shape[0], -1, -1, -1))
            out.append((e_u * e_r[None]).sum(-1))
        return torch.cat(out, 0)


# ----------------------------------------------------------------------------- constraint-aware trade-off (Sec. 3, 4.3)
class ConstraintParams(nn.Module):
    """``alpha_u = softplus(a_u)`` (U, N) and ``lambda_u`` (U, N), or one shared lambda (``global_lambda``).

    ``alpha0`` is alpha's initial value (the paper's "alpha = 0.5", read as the initial value)."""

    def __init__(self, n_users: int, n_dims: int, *, global_lambda: bool = False, alpha0: float = 0.5):
        super().__init__()
        n_users = check_int("n_users", n_users, minimum=1)
        n_dims = check_int("n_dims", n_dims, minimum=1)
        alpha0 = check_positive("alpha0", alpha0)
        self.a = nn.Parameter(torch.full((n_users, n_dims), math.log(math.expm1(alpha0))))
        self.lam = nn.Parameter(torch.zeros(1 if global_lambda else n_users, n_dims))
        self.global_lambda = bool(global_lambda)

    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        alpha = Fn.softplus(self.a[u])
        lam = self.lam.expand(self.a.shape[0], -1)[u]
        return alpha, lam

    def all(self) -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            alpha, lam = self(torch.arange(self.a.shape[0]))
        return alpha.numpy().astype(float), lam.numpy().astype(float)


def _check_form(form: str) -> str:
    if not isinstance(form, str):
        raise TypeError(f"form must be a string, got {type(form).__name__}")
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    return form


def penalty(alpha, lam, s, form: str = "written"):
    """Eq. 8 per (user, recipe) pair: ``alpha^T (s - lam)`` (written) or ``alpha^T max(0, s - lam)`` (hinge).

    ``alpha, lam, s``: (B, N) arrays or tensors (one row per pair). Returns (B,).
    """
    form = _check_form(form)
    alpha = as_array("alpha", alpha, ndim=2)
    lam = as_array("lam", lam, ndim=2)
    s = as_array("s", s, ndim=2)
    if not (alpha.shape == lam.shape == s.shape):
        raise ValueError(f"alpha {tuple(alpha.shape)}, lam {tuple(lam.shape)} and s {tuple(s.shape)} must match")
    gap = s - lam
    if form == "hinge":
        gap = gap.clamp_min(0.0) if torch.is_tensor(gap) else np.maximum(gap, 0.0)
    return (alpha * gap).sum(-1)


def decision_score(y_hat, alpha, lam, s, form: str = "written") -> np.ndarray:
    """Eq. 2 for every (user, recipe): ``F = y_hat - penalty``. ``y_hat``: (U, R); ``alpha, lam``: (U, N);
    ``s``: (R, N). Returns (U, R)."""
    form = _check_form(form)
    y_hat = as_array("y_hat", y_hat, ndim=2)
    alpha = as_array("alpha", alpha, ndim=2)
    lam = as_array("lam", lam, ndim=2)
    s = as_array("s", s, ndim=2)
    if alpha.shape != lam.shape or alpha.shape[0] != y_hat.shape[0] or s.shape[0] != y_hat.shape[1] \
            or s.shape[1] != alpha.shape[1]:
        raise ValueError(f"shapes disagree: y_hat {y_hat.shape}, alpha {alpha.shape}, lam {lam.shape}, s {s.shape}")
    if form == "written":  # alpha^T s - alpha^T lam: the second term is one number per user
        return y_hat - alpha @ s.T + (alpha * lam).sum(1, keepdims=True)
    out = np.empty_like(y_hat)
    for i in range(0, y_hat.shape[0], 64):  # chunks of users: (64, R, N) at a time
        gap = np.maximum(s[None, :, :] - lam[i:i + 64, None, :], 0.0)
        out[i:i + 64] = y_hat[i:i + 64] - (alpha[i:i + 64, None, :] * gap).sum(-1)
    return out


def bpr_loss(pos: torch.Tensor, neg: torch.Tensor) -> torch.Tensor:
    """Eq. 11: ``mean -log sigmoid(y_pos - y_neg)``."""
    pos = as_array("pos", pos, ndim=1)
    neg = as_array("neg", neg, ndim=1)
    if pos.shape != neg.shape:
        raise ValueError(f"pos {tuple(pos.shape)} and neg {tuple(neg.shape)} must match")
    return -Fn.logsigmoid(pos - neg).mean()


def green_loss(y_green: torch.Tensor, y_brown: torch.Tensor) -> torch.Tensor:
    """GRAPE-style green loss (sustainability as a preference; our reading of arXiv 2508.13870): a BPR term
    that prefers, for the same user, the greener of two recipes (lower mean normalised indicator, uniform
    weights). ``y_green, y_brown``: (B,)."""
    return bpr_loss(y_green, y_brown)


# ----------------------------------------------------------------------------- training (Eq. 12)
def training_examples(train_seq: np.ndarray, train_rating: np.ndarray, hist_len: int) -> dict:
    """Causal examples: for each user and position t >= 1, the previous (up to) ``hist_len`` recipes
    (index + 1, left-padded with 0), the target recipe and its rating."""
    seq = np.asarray(train_seq)
    rat = as_array("train_rating", train_rating, ndim=2)
    hist_len = check_int("hist_len", hist_len, minimum=1)
    U, T = seq.shape
    rows, hists, tgts, ys = [], [], [], []
    for t in range(1, T):
        h = np.zeros((U, hist_len), dtype=np.int64)
        prev = seq[:, max(0, t - hist_len):t] + 1
        h[:, hist_len - prev.shape[1]:] = prev
        rows.append(np.arange(U))
        hists.append(h)
        tgts.append(seq[:, t])
        ys.append(rat[:, t])
    return {"user": np.concatenate(rows), "hist": np.concatenate(hists), "target": np.concatenate(tgts),
            "rating": np.concatenate(ys)}


def user_histories(train_seq: np.ndarray, hist_len: int) -> np.ndarray:
    """The last ``hist_len`` training recipes of each user (index + 1, left-padded): (U, hist_len)."""
    seq = np.asarray(train_seq)
    h = np.zeros((seq.shape[0], hist_len), dtype=np.int64)
    prev = seq[:, -hist_len:] + 1
    h[:, hist_len - prev.shape[1]:] = prev
    return h


def train_susdiet(world, sus: dict[str, np.ndarray], *, d: int = 32, hist_len: int = 20, steps: int = 400,
                  batch: int = 256, lr: float = 1e-3, beta1: float = 0.5, beta2: float = 1.0, beta3: float = 1e-4,
                  green_weight: float = 0.0, green_weights=None,
                  variants: dict[str, tuple[str, str, bool]] | None = None, seed: int = 0) -> dict:
    """Train the preference model with Eq. 12 and, jointly, one set of constraint parameters per variant.

    ``sus`` maps a representation name (``"s_hat"``, ``"z"``) to (R, N_rep) fixed recipe features (the
    encoder is trained first, on Eq. 5, and frozen: Eq. 12 has no L_task term). ``variants`` maps a name to
    ``(representation, form, global_lambda)``. Because the penalty never reaches y_hat (the recipe features
    are fixed), each variant's (alpha, lambda) train independently of y_hat and of each other, so one loop is
    the same as separate runs, and y_hat equals that of the beta2 = 0 control.

    ``green_weights`` (default ``(green_weight,)``): one preference model per weight, each trained with the
    GRAPE-style green loss at that weight added (weight 0: no green loss, the model the constraints rank
    with). The models share their initialisation and every sampled batch (common random numbers) and are
    trained together through ``torch.func.vmap`` over stacked parameters; since the losses are summed and
    Adam is elementwise, each model follows exactly its own training path (our speed-up, not the paper's).
    Returns ``models`` (one per weight), ``model`` (the first), the constraint parameters per variant and
    the loss histories (rating and rank losses of the first model).

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's Eq. 12 with one set of
    constraint parameters per variant, trained jointly.
    """
    from torch.func import functional_call, stack_module_state, vmap

    steps = check_int("steps", steps, minimum=1)
    weights = [float(green_weight)] if green_weights is None else [float(w) for w in green_weights]
    if not weights or any(not math.isfinite(w) or w < 0 for w in weights):
        raise ValueError(f"green_weights must be a non-empty list of finite weights >= 0, got {green_weights!r}")
    variants = variants or {}
    gen = torch.Generator().manual_seed(int(seed))
    ex = training_examples(world.train_seq, world.train_rating, hist_len)
    mu, sd = ex["rating"].mean(), ex["rating"].std() + 1e-9
    U_, H_, R_, Y_ = (torch.as_tensor(ex["user"]), torch.as_tensor(ex["hist"]), torch.as_tensor(ex["target"]),
                      torch.as_tensor((ex["rating"] - mu) / sd, dtype=torch.float32))
    models = []
    for _ in weights:
        torch.manual_seed(int(seed))  # the same initialisation for every weight
        models.append(PreferenceModel(world.tokens, world.region, world.n_ingredients, world.n_regions, d=d,
                                      hist_len=hist_len))
    params, buffers = stack_module_state(models)
    buffers = {k: v[0] for k, v in buffers.items()}  # recipe descriptions: the same for every model
    base = models[0]

    def forward(p, h, r):
        return functional_call(base, (p, buffers), (h, r))

    batched = vmap(forward, in_dims=(0, None, None))
    cons = nn.ModuleDict({name: ConstraintParams(world.n_users, sus[rep].shape[1], global_lambda=glob)
                          for name, (rep, form, glob) in variants.items()})
    feats = {k: torch.as_tensor(v, dtype=torch.float32) for k, v in sus.items()}
    green = torch.as_tensor(world.s.mean(1), dtype=torch.float32)  # uniform-weight "greenness" (lower = greener)
    w_t = torch.as_tensor(weights, dtype=torch.float32)
    use_green = any(w > 0 for w in weights)
    opt = torch.optim.Adam(list(params.values()) + list(cons.parameters()), lr=lr)
    n_rec = world.n_recipes
    hist = {"rating": [], "rank": [], "total": []} | {f"sus/{k}": [] for k in variants}
    hist |= {f"lambda_mean/{k}": [] for k in variants}
    for _ in range(steps):
        b = torch.randint(0, len(U_), (min(batch, len(U_)),), generator=gen)
        u, h, r, y = U_[b], H_[b], R_[b], Y_[b]
        neg = torch.randint(0, n_rec, r.shape, generator=gen)
        targets = [r, neg]
        if use_green:
            other = torch.randint(0, n_rec, r.shape, generator=gen)
            targets.append(other)
        ys = batched(params, h, torch.stack(targets, 1))  # (M, B, J)
        y_pos, y_neg = ys[:, :, 0], ys[:, :, 1]
        l_rating = ((y_pos - y) ** 2).mean(1)
        l_rank = -Fn.logsigmoid(y_pos - y_neg).mean(1)
        per_model = l_rating + beta1 * l_rank
        if use_green:
            y_other = ys[:, :, 2]
            pos_greener = green[r] <= green[other]
            y_g = torch.where(pos_greener, y_pos, y_other)
            y_b = torch.where(pos_greener, y_other, y_pos)
            per_model = per_model + w_t * -Fn.logsigmoid(y_g - y_b).mean(1)  # green_loss per model
        loss = per_model.sum()
        for name, (rep, form, _) in variants.items():
            alpha, lam = cons[name](u)
            l_sus = penalty(alpha, lam, feats[rep][r], form).mean()
            l2 = ((alpha ** 2).sum(-1) + (lam ** 2).sum(-1)).mean()
            loss = loss + beta2 * l_sus + beta3 * l2
            hist[f"sus/{name}"].append(float(l_sus.detach()))
            hist[f"lambda_mean/{name}"].append(float(lam.detach().mean()))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        hist["rating"].append(float(l_rating[0].detach()))
        hist["rank"].append(float(l_rank[0].detach()))
        hist["total"].append(float(per_model[0].detach()))
    with torch.no_grad():
        for i, m in enumerate(models):
            for name, prm in m.named_parameters():
                prm.copy_(params[name][i])
            m.eval()
    return {"models": models, "model": models[0], "green_weights": weights,
            "constraints": {k: cons[k].all() for k in variants}, "history": hist}


# ----------------------------------------------------------------------------- evaluation
def topk(scores, exclude, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores per row, skipping excluded items. ``scores``: (U, R);
    ``exclude``: (U, R) bool. Returns (U, k), best first."""
    scores = as_array("scores", scores, ndim=2)
    exclude = np.asarray(exclude, dtype=bool)
    if exclude.shape != scores.shape:
        raise ValueError(f"exclude must have shape {scores.shape}, got {exclude.shape}")
    k = check_int("k", k, minimum=1, maximum=scores.shape[1])
    sc = np.where(exclude, -np.inf, scores)
    part = np.argpartition(-sc, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(sc, part, 1), axis=1, kind="stable")
    return np.take_along_axis(part, order, 1)


def ndcg_at_k(top: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Binary-relevance NDCG of each user's list. ``top``: (U, K); ``relevant``: (U, T) held-out items."""
    top, relevant = np.asarray(top), np.asarray(relevant)
    if top.ndim != 2 or relevant.ndim != 2 or top.shape[0] != relevant.shape[0]:
        raise ValueError(f"top {top.shape} and relevant {relevant.shape} must be (U, K) and (U, T)")
    hit = (top[:, :, None] == relevant[:, None, :]).any(-1)
    disc = 1.0 / np.log2(np.arange(2, top.shape[1] + 2))
    ideal = np.array([disc[: min(relevant.shape[1], top.shape[1])].sum()])
    return (hit * disc).sum(1) / ideal


def recall_at_k(top: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Fraction of each user's held-out items that appear in the list. Shapes as :func:`ndcg_at_k`."""
    top, relevant = np.asarray(top), np.asarray(relevant)
    if top.ndim != 2 or relevant.ndim != 2 or top.shape[0] != relevant.shape[0]:
        raise ValueError(f"top {top.shape} and relevant {relevant.shape} must be (U, K) and (U, T)")
    return (relevant[:, :, None] == top[:, None, :]).any(-1).mean(1)


def violation_rate(top: np.ndarray, s: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Per user, the fraction of (recommended recipe, dimension) pairs above the user's tolerance (Eq. 1).
    ``top``: (U, K); ``s``: (R, N); ``tau``: (U, N). Returns (U,)."""
    s = as_array("s", s, ndim=2)
    tau = as_array("tau", tau, ndim=2)
    top = np.asarray(top)
    if top.ndim != 2 or tau.shape[0] != top.shape[0] or tau.shape[1] != s.shape[1]:
        raise ValueError(f"top {top.shape}, s {s.shape} and tau {tau.shape} disagree")
    return (s[top] > tau[:, None, :]).mean((1, 2))


def _quiet_highs(highspy):
    """A silent HiGHS instance (the first one in a process prints a banner from C++: stdout is muted at the
    file-descriptor level while it is built)."""
    import os
    import sys

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    return h


def constrained_topk(utility, s, tau, k: int, *, exclude=None, list_mean: bool = False) -> np.ndarray:
    """The exact constrained top-K for one user, solved as a 0/1 program with HiGHS.

    maximise ``sum_r x_r utility_r`` s.t. ``sum_r x_r = k``, ``x_r in {0, 1}``, and either every chosen
    recipe within the tolerance (Eq. 1: ``x_r = 0`` where some ``s_r^n > tau^n``), or (``list_mean``) the
    list's mean indicators within it (``sum_r x_r (s_r^n - tau^n) <= 0``). ``utility``: (R,); ``s``: (R, N);
    ``tau``: (N,). Returns the chosen indices sorted by utility (fewer than k if infeasible: then the best
    feasible ones, padded by the best remaining recipes).
    """
    import highspy

    utility = as_array("utility", utility, ndim=1)
    s = as_array("s", s, ndim=2)
    tau = as_array("tau", tau, ndim=1)
    if s.shape != (utility.shape[0], tau.shape[0]):
        raise ValueError(f"s must have shape ({utility.shape[0]}, {tau.shape[0]}), got {s.shape}")
    k = check_int("k", k, minimum=1, maximum=utility.shape[0])
    excl = np.zeros(utility.shape[0], bool) if exclude is None else np.asarray(exclude, dtype=bool)
    R = utility.shape[0]
    upper = np.where(excl, 0.0, 1.0)
    if not list_mean:
        upper = np.where((s > tau).any(1), 0.0, upper)
        if upper.sum() < k:  # infeasible: keep the feasible ones, fill with the best others
            feas = np.flatnonzero(upper > 0)
            rest = np.flatnonzero((upper == 0) & ~excl)
            fill = rest[np.argsort(-utility[rest])][: k - feas.size]
            chosen = np.concatenate([feas, fill])
            return chosen[np.argsort(-utility[chosen], kind="stable")]
    h = _quiet_highs(highspy)
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_ = R
    lp.col_cost_ = (-utility).tolist()
    lp.col_lower_ = [0.0] * R
    lp.col_upper_ = upper.tolist()
    rows = [np.ones(R)] + ([s[:, n] - tau[n] for n in range(s.shape[1])] if list_mean else [])
    lo = [float(k)] + [-inf] * (len(rows) - 1)
    hi = [float(k)] + [0.0] * (len(rows) - 1)
    A = np.stack(rows)
    lp.num_row_ = A.shape[0]
    lp.row_lower_ = lo
    lp.row_upper_ = hi
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = [int(i * R) for i in range(A.shape[0] + 1)]
    lp.a_matrix_.index_ = list(range(R)) * A.shape[0]
    lp.a_matrix_.value_ = A.ravel().tolist()
    lp.integrality_ = [highspy.HighsVarType.kInteger] * R
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return constrained_topk(utility, s, tau, k, exclude=exclude, list_mean=False)
    x = np.asarray(h.getSolution().col_value)
    chosen = np.flatnonzero(x > 0.5)
    return chosen[np.argsort(-utility[chosen], kind="stable")]


def EXAMPLES():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(12, 4))
    alpha, lam = np.abs(rng.normal(size=(3, 4))), rng.normal(size=(3, 4))
    y_hat = rng.normal(size=(3, 12))
    return [
        (penalty, {"alpha": alpha, "lam": lam, "s": s[:3]}),
        (decision_score, {"y_hat": y_hat, "alpha": alpha, "lam": lam, "s": s}),
        (r_squared, {"pred": s + 0.1, "target": s}),
        (violation_rate, {"top": np.array([[0, 1], [2, 3], [4, 5]]), "s": s, "tau": lam}),
        (constrained_topk, {"utility": y_hat[0], "s": s, "tau": np.full(4, 0.5), "k": 3}),
        (topk, {"scores": y_hat, "exclude": np.zeros((3, 12), bool), "k": 4}),
    ]
