"""The simulated world of the ESE reproduction (arXiv:2606.13285): interacting systems and per-series models.

``generate`` draws n systems that satisfy the paper's model (Sec. 3): the equilibrium share
of system i is linear in its normalised attributes,

    pi_{i,t} = 1/n + (1/m) sum_k psi_k alpha'_{i,k,t}        (alpha' = normalise_attributes(A))

(the same form ESE's estimator fits), the observed shares revert towards it at rate kappa,

    gamma_{t+1} = normalise( gamma_t + kappa (pi_t - gamma_t) + sigma_share gamma_t eps_t ),

attributes are slow random walks, and the log total is AR(1) around a small drift. With
kappa near 1 the shares scatter around the equilibrium; with small kappa they persist, and
the last observed share is hard to beat.

The reproduction also hides ``hidden`` of the equilibrium's attributes from the forecaster
(static ones: a per-system level the observed attributes cannot explain, the paper's
missing-attribute condition). Without them the attribute-only estimate ES0 is nearly exact
and already passes the cointegration test, so ESE's refinement never runs; with them ES0's
gap to the shares has a non-zero level, the no-constant Dickey-Fuller test fails at most
origins, and the refinement against recent history has something to correct. The per-series models are what a practitioner runs
on a CPU instead of the paper's deep predictors: ARIMA(1,1,0) (statsmodels) and a ridge
regression on 20 lags (scikit-learn, DLinear-like).
"""

from __future__ import annotations

import warnings

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive
from icml26.decision.ese.method import normalise_attributes

BASES = ("arima", "ridge")


def generate(n: int, m: int, T: int, rng, kappa: float = 0.5, sigma_attr: float = 0.03,
             sigma_share: float = 0.05, spread: float = 0.6, phi_total: float = 0.9,
             sigma_total: float = 0.03, drift: float = 0.001, hidden: int = 0,
             hidden_weight: float = 0.0, attr_phi: float = 1.0,
             return_equilibrium: bool = False) -> tuple[np.ndarray, ...]:
    """Synthetic interacting systems following ESE's model.

    ``spread`` bounds the equilibrium's deviation from 1/n: |pi_i - 1/n| <= spread / n.
    ``hidden`` attributes enter the equilibrium (it stays linear in all m + hidden normalised
    attributes) but are not returned, the paper's missing-attribute condition: they carry a
    fraction ``hidden_weight`` of the influence weights (sum |w_hidden| / sum |w|) and are
    static, so the attribute-only ES0 misses a per-system level that the refinement against
    recent history can recover. With ``hidden = 0`` the forecaster sees every attribute.
    ``attr_phi`` = 1 makes the observed attributes random walks (step sd ``sigma_attr``); below 1
    they are AR(1) around their starting values, ``A_t = A_0 + attr_phi (A_{t-1} - A_0) + sigma_attr
    eps_t`` (stationary sd sigma_attr / sqrt(1 - attr_phi^2)), so that they, and the equilibrium,
    move over much of their range within a forecast window (the "moving" regime).
    Returns S (T, n) positive states and A (T, n, m) observed attributes, and with
    ``return_equilibrium`` also the true equilibrium share path pi (T, n).
    """
    n = check_int("n", n, minimum=2)
    m = check_int("m", m, minimum=1)
    T = check_int("T", T, minimum=10)
    rng = as_rng("rng", rng)
    kappa = check_positive("kappa", kappa)
    if kappa > 1:
        raise ValueError(f"kappa must be in (0, 1], got {kappa}")
    for name, v in (("sigma_attr", sigma_attr), ("sigma_share", sigma_share), ("sigma_total", sigma_total)):
        check_positive(name, v, strict=False)
    spread = check_positive("spread", spread)
    if spread >= 1:
        raise ValueError(f"spread must be < 1 so that every equilibrium share is positive, got {spread}")
    attr_phi = check_positive("attr_phi", attr_phi, strict=False)
    if attr_phi > 1:
        raise ValueError(f"attr_phi must be in [0, 1], got {attr_phi}")
    hidden = check_int("hidden", hidden, minimum=0)
    hidden_weight = check_positive("hidden_weight", hidden_weight, strict=False)
    if hidden_weight >= 1 or (hidden == 0 and hidden_weight > 0) or (hidden > 0 and hidden_weight == 0):
        raise ValueError(f"hidden_weight must be in (0, 1) when hidden > 0 and 0 when hidden = 0, "
                         f"got hidden_weight={hidden_weight} with hidden={hidden}")
    A = np.empty((T, n, m))
    A[0] = rng.normal(size=(n, m))
    for t in range(1, T):
        if attr_phi == 1.0:
            A[t] = A[t - 1] + sigma_attr * rng.normal(size=(n, m))
        else:
            A[t] = A[0] + attr_phi * (A[t - 1] - A[0]) + sigma_attr * rng.normal(size=(n, m))
    w = rng.normal(size=m)
    w = (1.0 - hidden_weight) * w / np.abs(w).sum()
    if hidden:
        H = np.broadcast_to(rng.normal(size=(n, hidden)), (T, n, hidden))
        wh = rng.normal(size=hidden)
        A_all = np.concatenate([A, H], axis=-1)
        w = np.concatenate([w, hidden_weight * wh / np.abs(wh).sum()])
    else:
        A_all = A
    m_all = m + hidden
    An = normalise_attributes(A_all)                   # |alpha'| <= 1
    psi = spread * m_all / n * w                       # sum |w| = 1, so |A' psi / m_all| <= spread / n
    pi = 1.0 / n + An @ psi / m_all                    # (T, n), rows sum to 1, all > 0
    gamma = np.empty((T, n))
    gamma[0] = pi[0]
    for t in range(T - 1):
        g = gamma[t] + kappa * (pi[t] - gamma[t]) + gamma[t] * sigma_share * rng.normal(size=n)
        g = np.clip(g, 1e-6, None)
        gamma[t + 1] = g / g.sum()
    u = np.zeros(T)
    for t in range(1, T):
        u[t] = phi_total * u[t - 1] + sigma_total * rng.normal()
    MS = n * np.exp(drift * np.arange(T) + u)
    if return_equilibrium:
        return MS[:, None] * gamma, A, pi
    return MS[:, None] * gamma, A


# ----------------------------------------------------------------------------- per-series models
def arima_one_step(y: np.ndarray, n_train: int) -> np.ndarray:
    """ARIMA(1,1,0) fitted on y[:n_train]; one-step forecasts of y[n_train:] with fixed parameters."""
    from statsmodels.tsa.arima.model import ARIMA

    y = as_array("y", y, ndim=1)
    n_train = check_int("n_train", n_train, minimum=5, maximum=y.size - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ARIMA(y[:n_train], order=(1, 1, 0)).fit()
        full = res.apply(y)
        return np.asarray(full.predict(start=n_train, end=len(y) - 1))


def ridge_one_step(y: np.ndarray, n_train: int, lags: int = 20, alpha: float = 1.0) -> np.ndarray:
    """Ridge regression of y_t on its previous ``lags`` values, fitted on the training part."""
    from sklearn.linear_model import Ridge

    y = as_array("y", y, ndim=1)
    lags = check_int("lags", lags, minimum=1)
    n_train = check_int("n_train", n_train, minimum=lags + 2, maximum=y.size - 1)
    alpha = check_positive("alpha", alpha)
    idx = np.arange(lags, len(y))
    X = np.stack([y[i - lags:i] for i in idx])
    scale = float(np.mean(np.abs(y[:n_train]))) or 1.0
    train = idx < n_train
    model = Ridge(alpha=alpha).fit(X[train] / scale, y[idx[train]] / scale)
    return model.predict(X[~train] / scale) * scale


def per_system(base: str, S: np.ndarray, n_train: int) -> np.ndarray:
    """One model per system: one-step forecasts (T - n_train, n)."""
    if base not in BASES:
        raise ValueError(f"base must be one of {BASES}, got {base!r}")
    S = as_array("S", S, ndim=2)
    fn = arima_one_step if base == "arima" else ridge_one_step
    return np.stack([fn(S[:, i], n_train) for i in range(S.shape[1])], axis=1)


def total_forecast(base: str, MS: np.ndarray, n_train: int) -> np.ndarray:
    """The same model on the total only (the plug-in use of ESE): (T - n_train,)."""
    if base not in BASES:
        raise ValueError(f"base must be one of {BASES}, got {base!r}")
    fn = arima_one_step if base == "arima" else ridge_one_step
    return fn(MS, n_train)


def rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def examples() -> list:
    """Public API examples for the common bad-input test (setting and method)."""
    from icml26.decision.ese import method as M

    rng = np.random.default_rng(0)
    S, A = generate(5, 2, 80, 0)
    MS, gamma = M.proportions(S)
    An = M.normalise_attributes(A)
    psi = M.fit_influence(gamma[:50], An[:50])
    coef = M.ar_fit(MS[:60], q=2)
    d = rng.normal(size=(40, 3))
    return [
        (M.proportions, {"S": S}),
        (M.normalise_attributes, {"A": A, "lower": np.full(2, -5.0), "upper": np.full(2, 5.0)}),
        (M.fit_influence, {"gamma": gamma[:50], "A_norm": An[:50]}),
        (M.initial_equilibrium, {"A_norm_t": An[49], "psi": psi}),
        (M.df_pvalues, {"d": d, "lags": 1}),
        (M.estimate_equilibrium, {"gamma": gamma[:50], "A": A[:50], "lam": 0.5, "max_iter": 5, "alpha": 0.05,
                                  "recent": 10}),
        (M.ar_fit, {"y": MS[:60], "q": 2}),
        (M.ar_total_forecast, {"coef": coef, "history": MS[:60], "h": 1}),
        (M.ese_predict, {"MS_hat": np.array([5.0, 6.0]), "ES": np.stack([gamma[10], gamma[20]])}),
        (M.ese_forecast, {"S": S, "A": A, "origins": np.array([60.0, 70.0]), "MS_hat": np.array([5.0, 5.0]),
                          "window": 50}),
        (M.reversion_rate, {"gamma": gamma[:50], "path": gamma[1:51]}),
        (M.deviation_shares, {"gamma_t": gamma[10], "ES": gamma[20], "kappa": 0.3, "h": 2}),
        (M.equilibrium_path, {"eq": M.estimate_equilibrium(gamma[:50], A[:50], max_iter=0), "A": A[:50]}),
        (generate, {"n": 4, "m": 2, "T": 30, "rng": 1, "kappa": 0.5}),
        (ridge_one_step, {"y": MS, "n_train": 60, "lags": 5, "alpha": 1.0}),
    ]
