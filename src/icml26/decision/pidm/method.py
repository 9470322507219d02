"""Predictive inverse dynamics models (PIDM) vs behaviour cloning (BC).

Implements the objects of "When does predictive inverse dynamics outperform behavior
cloning?" (Schaefer et al.; arXiv:2601.21718):

- BC: a policy ``pi_mu(s_t) -> a_t`` fitted by supervised regression on
  expert (state, action) pairs.
- PIDM: a state predictor ``p(s_t) -> s_{t+k}`` and an inverse dynamics model
  (IDM) ``pi_xi(s_t, s_{t+k}) -> a_t`` trained on ground-truth futures; at test time
  ``a_t = pi_xi(s_t, p(s_t))``.  In the paper's 2D navigation experiments the state
  predictor is instance based: it finds the demonstrated state closest (L2) to ``s_t``
  and returns the state ``k`` steps later in that same demonstration
  (:class:`ClosestReferencePredictor`). It never averages two routes, because it always
  returns a state that one demonstration actually visited.
- Theorem 1 (squared loss): with Bayes-optimal predictors
  ``f*_bc(s) = E[a|s]`` and ``f*_idm(s, s') = E[a|s, s']``,
  ``Delta = EPE(f*_bc) - EPE(f*_idm; p*) = E_s[ Var_{s'~p*(.|s)}( E[a|s,s'] ) ] >= 0``
  (law of total variance). :func:`linear_gaussian_delta` evaluates it for a
  bimodal linear-Gaussian toy where it reduces to a one-dimensional integral.

Networks are small MLPs (torch) trained with Adam (:func:`fit_regressor`; :func:`fit_regressors`
trains many independent ones as one batched computation).

The sample-efficiency measure of the paper's Fig. 2 ("BC needs up to 5x, on average 3x
more demonstrations for comparable performance") is :func:`matched_level_ratios`: at a
success level L, the demonstrations BC needs to reach L divided by those the other policy
needs to reach L (:func:`demos_needed`, log-interpolated between the evaluated budgets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from icml26.core.validate import as_array, as_rng, check_int, check_positive
from icml26.nn.mlp import fit, mlp


def _finite(name: str, x) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__} {x!r}")
    if not np.isfinite(float(x)):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return float(x)


def _as_2d(name: str, x, width: int | None = None) -> np.ndarray:
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a 2-D numeric array, got {type(x).__name__}")
    try:
        x = np.asarray(x, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 2-D numeric array: {exc}") from None
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (n, d), got shape {x.shape}")
    if width is not None and x.shape[1] != width:
        raise ValueError(f"{name} must have {width} columns, got {x.shape[1]}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains NaN or inf")
    return x


@dataclass
class Regressor:
    """A fitted MLP with input standardisation: ``predict(X) -> Y``."""

    net: nn.Sequential
    x_mean: np.ndarray
    x_std: np.ndarray

    def predict(self, X) -> np.ndarray:
        X = _as_2d("X", X, self.x_mean.shape[0])
        with torch.no_grad():
            Z = torch.from_numpy((X - self.x_mean) / self.x_std)
            return self.net(Z).numpy()


def fit_regressor(X, Y, loss: str = "l1", hidden: int = 128, depth: int = 2, steps: int = 1000,
                  lr: float = 1e-3, batch_size: int | None = None, seed: int = 0) -> Regressor:
    """Fit an MLP ``X -> Y`` with Adam (full batch unless ``batch_size`` is given).

    X: (n, d_in), Y: (n, d_out). ``loss`` is ``"l1"`` (the paper's code uses L1 for
    continuous actions) or ``"mse"`` (the loss of the theory section).
    """
    X = _as_2d("X", X)
    Y = _as_2d("Y", Y)
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have the same number of rows, got {X.shape[0]} and {Y.shape[0]}")
    if loss not in ("l1", "mse"):
        raise ValueError(f"loss must be 'l1' or 'mse', got {loss!r}")
    steps, lr = check_int("steps", steps, minimum=1), check_positive("lr", lr)
    hidden, depth = check_int("hidden", hidden, minimum=1), check_int("depth", depth, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    if batch_size is not None:
        batch_size = check_int("batch_size", batch_size, minimum=1)
    torch.manual_seed(int(seed))
    x_mean, x_std = X.mean(0), X.std(0) + 1e-6
    net = mlp([X.shape[1], *[hidden] * depth, Y.shape[1]], activation="relu")
    Xt = torch.from_numpy((X - x_mean) / x_std)
    Yt = torch.from_numpy(Y)
    crit = nn.L1Loss() if loss == "l1" else nn.MSELoss()
    n = X.shape[0]

    def draw(g: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:  # g: torch.Generator().manual_seed(seed)
        idx = torch.randint(0, n, (batch_size,), generator=g)
        return Xt[idx], Yt[idx]

    full = batch_size is None or batch_size >= n
    fit(net, lambda m, b: crit(m(b[0]), b[1]), [(Xt, Yt)] if full else draw, steps=steps, lr=lr, seed=seed)
    return Regressor(net, x_mean, x_std)


@dataclass
class RegressorStack:
    """``M`` MLPs of one architecture fitted side by side (:func:`fit_regressors`).

    ``weights[l]``: (M, out, in) and ``biases[l]``: (M, out) per layer; inputs narrower than
    the stack's width are zero-padded (their padded first-layer weights are zero and stay
    zero). ``predict`` maps (M, m, d) -> (M, m, d_out), model i on slice i.
    """

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    x_mean: np.ndarray  # (M, d)
    x_std: np.ndarray  # (M, d)
    d_in: list[int]

    def __len__(self) -> int:
        return len(self.d_in)

    def predict(self, X) -> np.ndarray:
        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"X must be a 3-D numeric array, got {type(X).__name__}")
        try:
            X = np.asarray(X, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"X must be a 3-D numeric array: {exc}") from None
        if X.ndim != 3 or X.shape[0] != len(self) or X.shape[1] == 0 or X.shape[2] != self.x_mean.shape[1]:
            raise ValueError(f"X must have shape ({len(self)}, m >= 1, {self.x_mean.shape[1]}), got {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or inf")
        with torch.no_grad():
            return _stack_forward(self.weights, self.biases,
                                  torch.from_numpy((X - self.x_mean[:, None]) / self.x_std[:, None])).numpy()

    def regressor(self, i: int) -> Regressor:
        """Model ``i`` as a stand-alone :class:`Regressor` (its own input width, no padding)."""
        i = check_int("i", i, minimum=0, maximum=len(self) - 1)
        d = self.d_in[i]
        sizes = [d, *[w.shape[1] for w in self.weights]]
        net = mlp(sizes, activation="relu")
        lins = [m for m in net if isinstance(m, nn.Linear)]
        with torch.no_grad():
            for j, (lin, w, b) in enumerate(zip(lins, self.weights, self.biases)):
                lin.weight.copy_(w[i, :, :d] if j == 0 else w[i])
                lin.bias.copy_(b[i])
        net.eval()
        return Regressor(net, self.x_mean[i, :d].copy(), self.x_std[i, :d].copy())


def _stack_forward(weights, biases, h: torch.Tensor) -> torch.Tensor:
    for j, (w, b) in enumerate(zip(weights, biases)):
        h = torch.baddbmm(b.unsqueeze(1), h, w.transpose(1, 2))
        if j < len(weights) - 1:
            h = torch.relu(h)
    return h


def fit_regressors(Xs, Ys, seeds, loss: str = "l1", hidden: int = 128, depth: int = 2, steps: int = 1000,
                   lr: float = 1e-3, batch_size: int | None = None) -> RegressorStack:
    """:func:`fit_regressor` for several independent problems at once, as batched computations.

    Xs[i]: (n_i, d_i), Ys[i]: (n_i, d_out), seeds[i]: problem i's seed. Model i gets exactly
    the initial weights and the minibatch indices :func:`fit_regressor` would give it with
    ``seed=seeds[i]`` (full batch when ``batch_size`` is None or >= n_i); the summed loss has
    block-diagonal gradients and Adam is elementwise, so each model follows its own
    fit_regressor trajectory up to float rounding of the batched matrix products. Inputs narrower
    than the widest are zero-padded; the returned :class:`RegressorStack` keeps the order of Xs.
    """
    if not isinstance(Xs, (list, tuple)) or not Xs:
        raise ValueError("Xs must be a non-empty list of (n_i, d_i) arrays")
    if not isinstance(Ys, (list, tuple)) or len(Ys) != len(Xs):
        raise ValueError(f"Ys must be a list with one array per entry of Xs ({len(Xs)})")
    if not isinstance(seeds, (list, tuple)) or len(seeds) != len(Xs):
        raise ValueError(f"seeds must be a list with one seed per entry of Xs ({len(Xs)})")
    Xs = [_as_2d(f"Xs[{i}]", x) for i, x in enumerate(Xs)]
    Ys = [_as_2d(f"Ys[{i}]", y) for i, y in enumerate(Ys)]
    for i, y in enumerate(Ys):
        if y.shape[1] != Ys[0].shape[1]:
            raise ValueError(f"Ys[{i}] must have {Ys[0].shape[1]} columns like Ys[0], got {y.shape[1]}")
    for i, (x, y) in enumerate(zip(Xs, Ys)):
        if x.shape[0] != y.shape[0]:
            raise ValueError(f"Xs[{i}] and Ys[{i}] must have the same number of rows, got {x.shape[0]} and {y.shape[0]}")
    if loss not in ("l1", "mse"):
        raise ValueError(f"loss must be 'l1' or 'mse', got {loss!r}")
    steps, lr = check_int("steps", steps, minimum=1), check_positive("lr", lr)
    hidden, depth = check_int("hidden", hidden, minimum=1), check_int("depth", depth, minimum=1)
    seeds = [check_int(f"seeds[{i}]", s, minimum=0) for i, s in enumerate(seeds)]
    if batch_size is not None:
        batch_size = check_int("batch_size", batch_size, minimum=1)
    d = max(x.shape[1] for x in Xs)
    rows = [n if batch_size is None or batch_size >= n else batch_size for n in (x.shape[0] for x in Xs)]
    # models are padded to the largest batch of their group: small full-batch problems (at most
    # half the largest batch) form a group of their own, so they do not pay for the large batches
    small = [i for i, r in enumerate(rows) if 2 * r <= max(rows)]
    groups = [g for g in (small, [i for i in range(len(Xs)) if i not in small]) if g]
    parts = [_fit_group([Xs[i] for i in g], [Ys[i] for i in g], [seeds[i] for i in g], d, loss, hidden, depth,
                        steps, lr, batch_size) for g in groups]
    order = np.argsort(np.concatenate([np.asarray(g) for g in groups]), kind="stable")
    take = torch.from_numpy(order)
    return RegressorStack([torch.cat([pt.weights[j] for pt in parts])[take] for j in range(depth + 1)],
                          [torch.cat([pt.biases[j] for pt in parts])[take] for j in range(depth + 1)],
                          np.concatenate([pt.x_mean for pt in parts])[order],
                          np.concatenate([pt.x_std for pt in parts])[order], [x.shape[1] for x in Xs])


def _fit_group(Xs, Ys, seeds, d, loss, hidden, depth, steps, lr, batch_size) -> RegressorStack:
    """One batched training run of :func:`fit_regressors` (inputs already validated; width d).

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: one batched run trains a whole
    ensemble at once.
    """
    M, d_out = len(Xs), Ys[0].shape[1]
    ns = [x.shape[0] for x in Xs]
    full = [batch_size is None or batch_size >= n for n in ns]
    rows = [n if f else batch_size for n, f in zip(ns, full)]
    B, N = max(rows), max(ns)
    x_mean, x_std = np.zeros((M, d), np.float32), np.ones((M, d), np.float32)
    Xp, Yp = torch.zeros(M, N, d), torch.zeros(M, N, d_out)
    idx = torch.zeros(steps, M, B, dtype=torch.long)
    mask = torch.zeros(M, B)
    layers: list[list[tuple[torch.Tensor, torch.Tensor]]] = []
    for i, (x, y, s) in enumerate(zip(Xs, Ys, seeds)):
        g = torch.Generator().manual_seed(int(s))
        torch.manual_seed(int(s))
        net = mlp([x.shape[1], *[hidden] * depth, d_out], activation="relu")
        layers.append([(m.weight.detach(), m.bias.detach()) for m in net if isinstance(m, nn.Linear)])
        mu, sd = x.mean(0), x.std(0) + 1e-6
        x_mean[i, :x.shape[1]], x_std[i, :x.shape[1]] = mu, sd
        Xp[i, :ns[i], :x.shape[1]] = torch.from_numpy((x - mu) / sd)
        Yp[i, :ns[i]] = torch.from_numpy(y)
        if full[i]:
            idx[:, i, :ns[i]] = torch.arange(ns[i])
        else:
            idx[:, i, :batch_size] = torch.randint(0, ns[i], (steps, batch_size), generator=g)
        mask[i, :rows[i]] = 1.0
    weights, biases = [], []
    for j in range(depth + 1):
        ws = [lay[j][0] for lay in layers]
        if j == 0:
            ws = [torch.nn.functional.pad(w, (0, d - w.shape[1])) for w in ws]
        weights.append(torch.stack(ws).clone().requires_grad_(True))
        biases.append(torch.stack([lay[j][1] for lay in layers]).clone().requires_grad_(True))
    opt = torch.optim.Adam([*weights, *biases], lr=lr)
    denom = torch.tensor(rows, dtype=torch.float32) * d_out
    ar = torch.arange(M)[:, None]
    for t in range(steps):
        xb, yb = Xp[ar, idx[t]], Yp[ar, idx[t]]
        err = _stack_forward(weights, biases, xb) - yb
        err = err.abs() if loss == "l1" else err ** 2
        total = ((err.sum(-1) * mask).sum(-1) / denom).sum()
        opt.zero_grad()
        total.backward()
        opt.step()
    return RegressorStack([w.detach() for w in weights], [b.detach() for b in biases], x_mean, x_std,
                          [x.shape[1] for x in Xs])


def make_pairs(trajectories: list[np.ndarray], actions: list[np.ndarray] | None, k: int = 1):
    """Training tuples from trajectories.

    trajectories: list of (T_i + 1, d_s) state arrays; actions: list of (T_i, d_a) arrays or None.
    Returns (S_t, S_{t+k}, A_t) stacked over all t with t + k <= T_i (the future is clipped
    to the final state, as the paper's data loader pads by repetition).
    """
    k = check_int("k", k, minimum=1)
    if not isinstance(trajectories, (list, tuple)) or not trajectories:
        raise ValueError("trajectories must be a non-empty list of (T_i + 1, d) arrays")
    if actions is not None and (not isinstance(actions, (list, tuple)) or len(actions) != len(trajectories)):
        raise ValueError("actions must be a list with one (T_i, d_a) array per trajectory")
    S, F, A = [], [], []
    for i, tr in enumerate(trajectories):
        tr = _as_2d(f"trajectories[{i}]", tr)
        T = tr.shape[0] - 1
        if T < 1:
            continue
        idx = np.arange(T)
        S.append(tr[idx])
        F.append(tr[np.minimum(idx + k, T)])
        if actions is not None:
            a = _as_2d(f"actions[{i}]", actions[i])
            if a.shape[0] != T:
                raise ValueError(f"actions[{i}] must have {T} rows (one per transition), got {a.shape[0]}")
            A.append(a)
    if not S:
        raise ValueError("all trajectories are shorter than one transition")
    return np.concatenate(S), np.concatenate(F), (np.concatenate(A) if actions is not None else None)


class BCPolicy:
    """Behaviour cloning: ``a = pi_mu(s)``."""

    def __init__(self, **fit_kwargs):
        self.fit_kwargs = fit_kwargs
        self.model: Regressor | None = None

    def fit(self, states, actions) -> "BCPolicy":
        states, actions = _as_2d("states", states), _as_2d("actions", actions)
        if states.shape[0] != actions.shape[0]:
            raise ValueError(f"states and actions must have the same number of rows, got {states.shape[0]} "
                             f"and {actions.shape[0]}")
        self.model = fit_regressor(states, actions, **self.fit_kwargs)
        return self

    def act(self, s) -> np.ndarray:
        if self.model is None:
            raise RuntimeError("fit the policy first")
        return self.model.predict(s)


class ClosestReferencePredictor:
    """Instance-based state predictor: the demonstrated state ``k`` steps after the nearest one.

    Keeps every state of the reference trajectories (action-free data suffices). For a
    query ``s`` it finds the closest stored state (L2) and returns the state ``k`` steps
    later in the same trajectory (the last state if the trajectory ends first). With
    ``match_cols`` only stored states whose columns ``match_cols`` equal the query's are
    candidates (all states if none does), and the distance uses the other columns: the
    authors' "same goal" mask on the goal-reached flags of their goal-sequence tasks.
    """

    def __init__(self, trajectories: list[np.ndarray], k: int = 1, match_cols: tuple[int, ...] = ()):
        k = check_int("k", k, minimum=1)
        if not isinstance(match_cols, (tuple, list)):
            raise TypeError(f"match_cols must be a tuple of column indices, got {type(match_cols).__name__}")
        self.match_cols = tuple(check_int("match_cols[i]", c, minimum=0) for c in match_cols)
        if not isinstance(trajectories, (list, tuple)) or not trajectories:
            raise ValueError("trajectories must be a non-empty list of (T_i + 1, d) arrays")
        states, futures = [], []
        for tr in trajectories:
            tr = _as_2d("trajectory", tr)
            T = tr.shape[0] - 1
            idx = np.arange(tr.shape[0])
            states.append(tr)
            futures.append(tr[np.minimum(idx + k, T)])
        self.states = np.concatenate(states)
        self.futures = np.concatenate(futures)
        self.k = k
        if self.match_cols and max(self.match_cols) >= self.states.shape[1]:
            raise ValueError(f"match_cols {self.match_cols} out of range for states of width {self.states.shape[1]}")

    def predict(self, s) -> np.ndarray:
        s = _as_2d("s", s, self.states.shape[1])
        cols = [j for j in range(s.shape[1]) if j not in self.match_cols]
        # sum of squared coordinate differences, accumulated coordinate by coordinate (the same
        # float operations as ((s[:, None] - states[None]) ** 2).sum(-1), without the 3-D array)
        d2 = (s[:, cols[0]:cols[0] + 1] - self.states[:, cols[0]]) ** 2
        for j in cols[1:]:
            d2 += (s[:, j:j + 1] - self.states[:, j]) ** 2
        if self.match_cols:  # the authors' "same goal" mask: only stored states with equal match columns
            same = np.ones(d2.shape, dtype=bool)
            for j in self.match_cols:
                same &= s[:, j:j + 1] == self.states[:, j]
            d2 = np.where(same | ~same.any(1, keepdims=True), d2, np.inf)
        return self.futures[np.argmin(d2, axis=1)]


class PIDMPolicy:
    """PIDM: ``a = pi_xi(s, p(s))`` with an IDM fitted on ground-truth (s_t, s_{t+k}) pairs.

    ``bias_sd`` adds Gaussian noise of that standard deviation to the predicted future
    state (a controlled predictor bias for the bias sweep of Corollary 1).
    """

    def __init__(self, k: int = 1, **fit_kwargs):
        self.k = check_int("k", k, minimum=1)
        self.fit_kwargs = fit_kwargs
        self.idm: Regressor | None = None
        self.predictor: ClosestReferencePredictor | None = None
        self.bias_sd = 0.0
        self.rng = np.random.default_rng(0)

    def fit(self, trajectories, actions, extra_state_trajectories=None, extra_transitions=None) -> "PIDMPolicy":
        """trajectories/actions: expert demos. extra_state_trajectories: action-free demos for the
        predictor. extra_transitions: (S, S_next, A) non-expert one-step data for the IDM (k = 1 only)."""
        X, Y = self.idm_data(trajectories, actions, extra_transitions)
        self.idm = fit_regressor(X, Y, **self.fit_kwargs)
        refs = list(trajectories) + list(extra_state_trajectories or [])
        self.predictor = ClosestReferencePredictor(refs, self.k)
        return self

    def idm_data(self, trajectories, actions, extra_transitions=None) -> tuple[np.ndarray, np.ndarray]:
        """The IDM's training set: inputs (s_t, s_t+k) and actions a_t, plus the extra transitions."""
        S, F, A = make_pairs(trajectories, actions, self.k)
        X = np.concatenate([S, F], 1)
        Y = A
        if extra_transitions is not None:
            Se, Fe, Ae = (_as_2d(n, v) for n, v in zip(("S", "S_next", "A"), extra_transitions))
            X = np.concatenate([X, np.concatenate([Se, Fe], 1)])
            Y = np.concatenate([Y, Ae])
        return X, Y

    def act(self, s) -> np.ndarray:
        if self.idm is None or self.predictor is None:
            raise RuntimeError("fit the policy first")
        s = _as_2d("s", s)
        f = self.predictor.predict(s)
        if self.bias_sd > 0:
            f = f + self.rng.normal(0.0, self.bias_sd, size=f.shape).astype(np.float32)
        return self.idm.predict(np.concatenate([s, f], 1))


# ---------------------------------------------------------------------------
# Theorem 1 on a bimodal linear-Gaussian toy
# ---------------------------------------------------------------------------

def sample_linear_gaussian(rng: np.random.Generator, n: int, c: float = 0.5, delta: float = 1.0,
                           sigma_a: float = 0.3, sigma_eta: float = 0.3):
    """s ~ N(0,1); a = c s + z delta + eps, z = +-1 w.p. 1/2, eps ~ N(0, sigma_a^2);
    s' = s + a + eta, eta ~ N(0, sigma_eta^2). Returns (s, a, s') each of shape (n,)."""
    rng, n = as_rng("rng", rng), check_int("n", n, minimum=1)
    c, delta = _finite("c", c), _finite("delta", delta)
    sigma_a, sigma_eta = check_positive("sigma_a", sigma_a), check_positive("sigma_eta", sigma_eta)
    s = rng.normal(size=n)
    z = rng.choice([-1.0, 1.0], size=n)
    a = c * s + z * delta + rng.normal(0, sigma_a, n)
    sp = s + a + rng.normal(0, sigma_eta, n)
    return s, a, sp


def linear_gaussian_idm(s, sp, c: float = 0.5, delta: float = 1.0, sigma_a: float = 0.3, sigma_eta: float = 0.3):
    """Bayes IDM E[a | s, s'] for the toy: c s + rho d + (1 - rho) delta tanh(d delta / v), d = s' - s - c s."""
    s = as_array("s", s, ndim=1)
    sp = as_array("sp", sp, ndim=1)
    if sp.shape != s.shape:
        raise ValueError(f"sp must have the shape of s {s.shape}, got {sp.shape}")
    c, delta = _finite("c", c), _finite("delta", delta)
    sigma_a, sigma_eta = check_positive("sigma_a", sigma_a), check_positive("sigma_eta", sigma_eta)
    v = sigma_a ** 2 + sigma_eta ** 2
    rho = sigma_a ** 2 / v
    d = np.asarray(sp) - np.asarray(s) - c * np.asarray(s)
    return c * np.asarray(s) + rho * d + (1 - rho) * delta * np.tanh(d * delta / v)


def linear_gaussian_delta(delta: float = 1.0, sigma_a: float = 0.3, sigma_eta: float = 0.3, n_grid: int = 20001) -> float:
    """Theorem 1's Delta = E_s Var_{s'|s}(E[a|s,s']) for the toy, by quadrature over d = s' - s - c s.

    d given s is the mixture 1/2 N(delta, v) + 1/2 N(-delta, v), v = sigma_a^2 + sigma_eta^2,
    independent of s, so Delta = Var_d(g(d)) with g the IDM minus c s.
    """
    delta = _finite("delta", delta)
    sigma_a, sigma_eta = check_positive("sigma_a", sigma_a), check_positive("sigma_eta", sigma_eta)
    n_grid = check_int("n_grid", n_grid, minimum=3)
    v = sigma_a ** 2 + sigma_eta ** 2
    rho = sigma_a ** 2 / v
    lim = abs(delta) + 12 * np.sqrt(v)
    d = np.linspace(-lim, lim, n_grid)
    dens = 0.5 * (np.exp(-(d - delta) ** 2 / (2 * v)) + np.exp(-(d + delta) ** 2 / (2 * v))) / np.sqrt(2 * np.pi * v)
    w = dens / dens.sum()
    g = rho * d + (1 - rho) * delta * np.tanh(d * delta / v)
    m = (w * g).sum()
    return float((w * (g - m) ** 2).sum())


# ---------------------------------------------------------------------------
# Sample efficiency at matched success levels
# ---------------------------------------------------------------------------

def _curve(ns, success, name: str = "success") -> tuple[np.ndarray, np.ndarray]:
    ns = as_array("ns", ns, ndim=1)
    success = as_array(name, success, ndim=1)
    if success.shape != ns.shape:
        raise ValueError(f"{name} must have one value per budget in ns ({ns.size}), got {success.size}")
    if np.any(ns <= 0) or np.any(np.diff(ns) <= 0):
        raise ValueError(f"ns must be positive and increasing, got {ns}")
    return ns, success


def demos_needed(ns, success, level: float) -> tuple[float, bool]:
    """Demonstrations needed to reach success ``level``: (n, censored).

    ns: (K,) increasing budgets; success: (K,) success at each budget. On the running maximum
    of the curve, the first budget at or above ``level``, log-linearly interpolated from the
    budget before it (the first budget if it is reached there). ``censored`` = never reached,
    then n = the largest budget.
    """
    ns, success = _curve(ns, success)
    level = _finite("level", level)
    env = np.maximum.accumulate(success)
    hit = np.flatnonzero(env >= level)
    if hit.size == 0:
        return float(ns[-1]), True
    j = int(hit[0])
    if j == 0:
        return float(ns[0]), False
    lo, hi = env[j - 1], env[j]
    frac = (level - lo) / max(hi - lo, 1e-12)
    return float(np.exp(np.log(ns[j - 1]) + frac * (np.log(ns[j]) - np.log(ns[j - 1])))), False


def matched_level_ratios(ns, success_bc, success_method, levels) -> tuple[list[float], list[bool]]:
    """BC demonstrations / method demonstrations needed to reach each success level.

    Returns (ratios, censored) per level; ``censored`` marks levels BC never reaches, where
    the ratio is a lower bound (BC's need is set to the largest budget).
    """
    ns, success_bc = _curve(ns, success_bc, "success_bc")
    _, success_method = _curve(ns, success_method, "success_method")
    levels = as_array("levels", levels, ndim=1)
    ratios, cens = [], []
    for L in levels:
        n_m, _ = demos_needed(ns, success_method, L)
        n_b, c = demos_needed(ns, success_bc, L)
        ratios.append(n_b / n_m)
        cens.append(c)
    return ratios, cens


def EXAMPLES() -> list:
    """Good calls of the public API, for the common bad-input test."""
    from icml26.decision.pidm import setting as E

    rng = np.random.default_rng(0)
    tr = [np.cumsum(np.full((6, 2), 0.05, dtype=np.float32), 0) + 0.1]
    ac = [np.full((5, 2), 0.5, dtype=np.float32)]
    X, Y = rng.normal(size=(20, 2)), rng.normal(size=(20, 1))
    ns, s_bc, s_m = np.array([1.0, 2.0, 5.0]), np.array([0.2, 0.5, 0.8]), np.array([0.6, 0.9, 0.9])
    env = E.FourRoomsNav()
    fit = {"hidden": 8, "steps": 2}
    stack = fit_regressors([X], [Y], [0], hidden=4, depth=1, steps=1)
    layout = "WWWWWWWWWW\nW  G     W\nW A  W   W\nW    W G W\nWWWWWWWWWW"
    world = E.parse_layout(layout, [0, 1], room=(100, 100), box=4, velocity_scale=5.0, max_steps=20)
    return [
        (fit_regressor, {"X": X, "Y": Y, "hidden": 8, "depth": 1, "steps": 2, "lr": 1e-3, "seed": 0}),
        (fit_regressors, {"Xs": [X], "Ys": [Y], "seeds": [0], "hidden": 4, "depth": 1, "steps": 2, "lr": 1e-3,
                          "batch_size": 8}),
        (stack.predict, {"X": np.zeros((1, 3, 2))}),
        (stack.regressor, {"i": 0}),
        (make_pairs, {"trajectories": tr, "actions": ac, "k": 1}),
        (BCPolicy(**fit).fit, {"states": X, "actions": Y}),
        (ClosestReferencePredictor, {"trajectories": tr, "k": 1}),
        (ClosestReferencePredictor(tr).predict, {"s": np.array([[0.2, 0.2]])}),
        (ClosestReferencePredictor(tr, 1, match_cols=(1,)).predict, {"s": np.array([[0.2, 0.2]])}),
        (PIDMPolicy, {"k": 1}),
        (linear_gaussian_delta, {"delta": 1.0, "sigma_a": 0.3, "sigma_eta": 0.3, "n_grid": 101}),
        (linear_gaussian_idm, {"s": np.zeros(3), "sp": np.ones(3), "c": 0.5, "delta": 1.0, "sigma_a": 0.3,
                               "sigma_eta": 0.3}, {"c": {"negative"}, "delta": {"negative"}}),
        (sample_linear_gaussian, {"rng": rng, "n": 5, "c": 0.5, "delta": 1.0, "sigma_a": 0.3, "sigma_eta": 0.3}),
        (demos_needed, {"ns": ns, "success": s_bc, "level": 0.5}, {"level": {"negative"}}),
        (matched_level_ratios, {"ns": ns, "success_bc": s_bc, "success_method": s_m, "levels": np.array([0.5, 0.8])}),
        (E.in_wall, {"p": np.array([[0.2, 0.2], [0.5, 0.1]])}),
        (E.step_positions, {"pos": np.array([[0.2, 0.2]]), "act": np.array([[1.0, 0.0]]), "step_size": 0.03,
                            "n_sub": 4}),
        (E.sample_starts, {"rng": rng, "n": 3, "task": "threeroom"}),
        (E.sample_free, {"rng": rng, "n": 3}),
        (E.FourRoomsNav, {"step_size": 0.03, "goal_radius": 0.05, "max_steps": 10}),
        (E.expert_episode, {"env": env, "rng": rng, "start": np.array([0.2, 0.3]), "route_temp": 0.3,
                            "noise_sd": 0.1}),
        (E.rollout_success, {"policy_act": lambda s: np.ones_like(s), "starts": np.array([[0.2, 0.2]]),
                             "step_size": 0.03, "goal_radius": 0.05, "max_steps": 5}),
        (E.parse_layout, {"layout": layout, "goal_order": [1, 0], "room": (100, 100), "box": 4, "velocity_scale": 5.0,
                          "deadzone": 0.1, "noise_sd": 0.2, "max_steps": 20}, {"deadzone": {"negative"}}),
        (E.goal_step, {"world": world, "pos": np.array([[30.0, 50.0]]), "action": np.array([[1.0, 0.0]]),
                       "noise": np.zeros((1, 2))}),
        (E.goal_touch, {"world": world, "pos": np.array([[30.0, 50.0]]), "progress": np.array([0.0])}),
        (E.goal_features, {"world": world, "pos": np.array([[30.0, 50.0]]), "progress": np.array([1.0])}),
        (E.goal_replay, {"world": world, "actions": np.ones((3, 2)), "noise": np.zeros((3, 2)),
                         "start": np.array([30.0, 50.0])}),
        (E.goal_rollouts, {"world": world, "policy_act": lambda f, live: np.ones(f.shape[:2] + (2,)), "n_policies": 2,
                           "n_episodes": 2, "rng": rng}),
        (E.rollout_successes, {"policy_act": lambda s, live: np.ones_like(s), "starts": np.array([[0.2, 0.2]]),
                               "n_policies": 2, "step_size": 0.03, "goal_radius": 0.05, "max_steps": 5}),
    ]
