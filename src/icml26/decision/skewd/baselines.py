"""Prior cause-effect methods that SkewD (arXiv:2511.14441) is compared with, for one pair.

Each function takes a pair ``x, y`` (both (n,), standardised) and returns the decision
``1.0`` for x -> y, ``0.0`` for y -> x and ``0.5`` when it cannot decide.

* :func:`igci` — information-geometric causal inference (Daniusis et al. 2010; Janzing et al.
  2012), slope-based estimator: C_{X->Y} = mean_i log |(y_{i+1} - y_i) / (x_{i+1} - x_i)| over
  the points sorted by x; infer X -> Y when C_{X->Y} < C_{Y->X}. Reference measure Gaussian
  (both variables standardised; the paper's strongest baseline "IGCI_G") or uniform (both
  rescaled to [0, 1]).
* :func:`cam_pair` — CAM (Buehlmann et al. 2014) for two variables: additive noise model with a
  penalised-spline regression and a Gaussian likelihood score, log var(cause) + log var(residual);
  the direction with the smaller score wins.
* :func:`anm`, :func:`resit`, :func:`direct_lingam` — ANM with GP regression and an HSIC
  test (causal-learn), RESIT with a random-forest regressor and DirectLiNGAM (lingam).

LOCI (Immer et al. 2023, the Gaussian-noise LSNM the paper compares with) is not on PyPI; our own
code of its convex spline estimator is :mod:`icml26.decision.skewd.loci` (the control from the sixth
session on); the SkewD pipeline with lambda fixed to 0 (``skewd(..., skew=False)``) stood in before.
"""

from __future__ import annotations

import warnings

import numpy as np

from icml26.core.validate import as_array, check_int


def decide(forward: float, backward: float) -> float:
    """1 if the x -> y score is larger, 0 if smaller, 0.5 on a tie."""
    if forward > backward:
        return 1.0
    if forward < backward:
        return 0.0
    return 0.5


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = as_array("x", x, ndim=1), as_array("y", y, ndim=1)
    if x.size != y.size:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    if x.size < 3:
        raise ValueError(f"x needs at least 3 points, got {x.size}")
    return x, y


def _slope_score(x: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(x, kind="stable")
    dx, dy = np.diff(x[order]), np.diff(y[order])
    ok = (dx != 0) & (dy != 0)
    if not ok.any():
        return 0.0
    return float(np.mean(np.log(np.abs(dy[ok] / dx[ok]))))


def igci(x, y, reference: str = "gaussian") -> float:
    """IGCI decision with the slope estimator and a Gaussian or uniform reference measure."""
    x, y = _pair(x, y)
    if reference == "gaussian":
        sx, sy = x.std(), y.std()
        if not (sx > 0 and sy > 0):
            raise ValueError("x and y must not be constant")
        x, y = (x - x.mean()) / sx, (y - y.mean()) / sy
    elif reference == "uniform":
        rx, ry = np.ptp(x), np.ptp(y)
        if not (rx > 0 and ry > 0):
            raise ValueError("x and y must not be constant")
        x, y = (x - x.min()) / rx, (y - y.min()) / ry
    else:
        raise ValueError(f"reference must be 'gaussian' or 'uniform', got {reference!r}")
    c_xy, c_yx = _slope_score(x, y), _slope_score(y, x)
    return decide(c_yx, c_xy)  # the smaller slope score is the causal direction


def _spline_residual_var(x: np.ndarray, y: np.ndarray, n_knots: int) -> float:
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import SplineTransformer

    model = make_pipeline(SplineTransformer(n_knots=n_knots, degree=3),
                          RidgeCV(alphas=np.logspace(-4, 2, 13)))
    model.fit(x[:, None], y)
    r = y - model.predict(x[:, None])
    return float(np.var(r))


def cam_pair(x, y, n_knots: int = 10) -> float:
    """Bivariate CAM: Gaussian-likelihood score of the additive model in each direction."""
    x, y = _pair(x, y)
    n_knots = check_int("n_knots", n_knots, minimum=2)
    s_xy = np.log(np.var(x)) + np.log(_spline_residual_var(x, y, n_knots))
    s_yx = np.log(np.var(y)) + np.log(_spline_residual_var(y, x, n_knots))
    return decide(s_yx, s_xy)  # the smaller (negative log-likelihood) score wins


def anm(x, y) -> float:
    """ANM (Hoyer et al. 2009) as in causal-learn: GP regression and HSIC p-values both ways."""
    from causallearn.search.FCMBased.ANM.ANM import ANM

    x, y = _pair(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p_fw, p_bw = ANM().cause_or_effect(x[:, None], y[:, None])
    return decide(float(p_fw), float(p_bw))


def direct_lingam(x, y) -> float:
    """DirectLiNGAM (lingam): x -> y when x comes first in the estimated causal order."""
    import lingam

    x, y = _pair(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        order = lingam.DirectLiNGAM().fit(np.c_[x, y]).causal_order_
    return 1.0 if int(order[0]) == 0 else 0.0


def resit(x, y, seed: int = 0) -> float:
    """RESIT (lingam) with a small random-forest regressor."""
    import lingam
    from sklearn.ensemble import RandomForestRegressor

    x, y = _pair(x, y)
    seed = check_int("seed", seed, minimum=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = RandomForestRegressor(n_estimators=50, max_depth=4, random_state=seed)
        order = lingam.RESIT(regressor=reg, random_state=seed).fit(np.c_[x, y]).causal_order_
    return 1.0 if int(order[0]) == 0 else 0.0


#: name -> (label, function(x, y, seed) -> decision)
BASELINES = {
    "igci_g": ("IGCI (Gaussian reference)", lambda x, y, s: igci(x, y, "gaussian")),
    "igci_u": ("IGCI (uniform reference)", lambda x, y, s: igci(x, y, "uniform")),
    "cam": ("CAM (bivariate, splines)", lambda x, y, s: cam_pair(x, y)),
    "anm": ("ANM (causal-learn)", lambda x, y, s: anm(x, y)),
    "resit": ("RESIT (lingam)", lambda x, y, s: resit(x, y, s)),
    "lingam": ("DirectLiNGAM (lingam)", lambda x, y, s: direct_lingam(x, y)),
}
