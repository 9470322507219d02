"""DNA, Discriminative Neural Anchors (arXiv:2601.22515): forgery detection from a few units of a frozen backbone.

DNA never updates the backbone. From a small labelled set of real and fake images it

1. **localises a layer** (coarse step): for every layer l it measures *feature decoupling*, how
   much better the layer separates real from fake than it decodes image semantics, and the
   *attention-distribution shift*, how differently the layer spreads its activation over the image
   for fakes than for reals; the chosen layer l* maximises the sum of the two (min-max normalised
   over layers): the point where the model's focus moves from global semantics to local anomalies;
2. **scores every unit** of l* with a *triadic fusion* score (fine step),
   ``S_j = disc_j * stab_j * sem_j``, with ``disc_j = |d_j| / max_i |d_i|`` (|Cohen's d| of unit j
   between real and fake), ``stab_j = 1 / (1 + CV_j)`` (CV of d_j over bootstrap resamples of the
   few shots: a unit whose separation holds on every subset is stable) and
   ``sem_j = 1 - max_c |corr(a_j, 1[y = c])|`` (a penalty for units that encode image semantics,
   the source photo here);
3. **truncates at the curvature knee**: units sorted by S, k* = the knee of the decreasing score
   curve (Kneedle, ``kneed.KneeLocator``); the top k* units are the forgery-discriminative units
   (FDUs, the anchors);
4. **detects** with a standardised logistic regression on the FDU activations alone.

The paper's method section was not retrievable (abstract and third-party summaries only), so the
statistics behind "feature decoupling", "attention shift", the three score terms and their fusion
are our readings of those names, as the reproduction's issue and card describe them; one
third-party summary instead names the three terms "activation, gradient and probe weight"; we did
not implement that reading. Everything here works on unit activations (numpy), so it applies to
any backbone; :mod:`.setting` holds the CNN we pretrained.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, as_vector, check_int, check_positive


# ----------------------------------------------------------------------------- unit statistics
def cohens_d(real: np.ndarray, fake: np.ndarray) -> np.ndarray:
    """Per-unit standardised mean difference (fake - real) / pooled sd; ``real (n, C)``, ``fake (m, C)`` -> ``(C,)``."""
    real = as_array("real", real, ndim=2)
    fake = as_array("fake", fake, ndim=2)
    if real.shape[1] != fake.shape[1]:
        raise ValueError(f"fake must have {real.shape[1]} units like real, got {fake.shape[1]}")
    if len(real) < 2 or len(fake) < 2:
        raise ValueError("real and fake need at least 2 rows each")
    var = ((len(real) - 1) * real.var(0, ddof=1) + (len(fake) - 1) * fake.var(0, ddof=1)) / (len(real) + len(fake) - 2)
    return (fake.mean(0) - real.mean(0)) / np.sqrt(var + 1e-12)


def semantic_redundancy(acts: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``max_c |corr(acts[:, j], 1[labels == c])|`` per unit; ``acts (n, C)``, integer ``labels (n,)`` -> ``(C,)``."""
    acts = as_array("acts", acts, ndim=2)
    labels = np.asarray(labels)
    if labels.ndim != 1 or len(labels) != len(acts) or labels.dtype.kind not in "iu":
        raise ValueError(f"labels must be {len(acts)} integers, got shape {labels.shape} dtype {labels.dtype}")
    z = (acts - acts.mean(0)) / (acts.std(0) + 1e-12)
    out = np.zeros(acts.shape[1])
    for c in np.unique(labels):
        ind = (labels == c).astype(float)
        if ind.std() == 0:
            continue
        ind = (ind - ind.mean()) / ind.std()
        out = np.maximum(out, np.abs(z.T @ ind) / len(ind))
    return np.clip(out, 0.0, 1.0)


def triadic_scores(real: np.ndarray, fake: np.ndarray, sem_acts: np.ndarray, sem_labels: np.ndarray, *,
                   n_boot: int = 30, seed=0) -> dict[str, np.ndarray]:
    """The three terms and their fusion for every unit of one layer (step 2).

    ``real (n, C)`` / ``fake (m, C)``: activations on the labelled few shots; ``sem_acts (k, C)`` with
    ``sem_labels (k,)``: activations on real images with semantic labels. Returns ``disc``, ``stab``,
    ``sem`` and ``fused = disc * stab * sem``, each ``(C,)`` in [0, 1].
    """
    real = as_array("real", real, ndim=2)
    fake = as_array("fake", fake, ndim=2)
    sem_acts = as_array("sem_acts", sem_acts, ndim=2)
    if sem_acts.shape[1] != real.shape[1]:
        raise ValueError(f"sem_acts must have {real.shape[1]} units like real, got {sem_acts.shape[1]}")
    n_boot = check_int("n_boot", n_boot, minimum=2)
    rng = as_rng("seed", seed)
    d = np.abs(cohens_d(real, fake))
    disc = d / max(d.max(), 1e-12)
    boots = np.empty((n_boot, real.shape[1]))
    for b in range(n_boot):
        r = real[rng.integers(0, len(real), len(real))]
        f = fake[rng.integers(0, len(fake), len(fake))]
        boots[b] = cohens_d(r, f)
    cv = boots.std(0) / (np.abs(boots.mean(0)) + 1e-12)
    stab = 1.0 / (1.0 + cv)
    sem = 1.0 - semantic_redundancy(sem_acts, sem_labels)
    return {"disc": disc, "stab": stab, "sem": sem, "fused": disc * stab * sem}


def knee_truncate(scores: np.ndarray, *, min_units: int = 2) -> int:
    """k*: the number of top units up to the knee of the sorted (decreasing) score curve (Kneedle).

    Falls back to the units above the mean score when Kneedle finds no knee (a flat or straight curve).
    """
    from kneed import KneeLocator

    s = np.sort(as_array("scores", scores, ndim=1))[::-1]
    min_units = check_int("min_units", min_units, minimum=1)
    if s.size <= min_units:
        return int(s.size)
    x = np.arange(1, s.size + 1)
    knee = None
    if s[0] > s[-1]:
        knee = KneeLocator(x, s, curve="convex", direction="decreasing").knee
    k = int(knee) if knee is not None else int((s > s.mean()).sum())
    return int(np.clip(k, min_units, s.size))


# ----------------------------------------------------------------------------- layer localisation
def spatial_entropy(maps: np.ndarray) -> np.ndarray:
    """Normalised entropy (in [0, 1]) of each non-negative spatial map ``(n, H, W)`` seen as a distribution."""
    maps = as_array("maps", maps, ndim=3)
    p = maps.reshape(len(maps), -1).clip(min=0) + 1e-12
    p = p / p.sum(1, keepdims=True)
    return -(p * np.log(p)).sum(1) / np.log(p.shape[1])


def _cv_auc(x: np.ndarray, y: np.ndarray, seed: int) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    folds = int(min(4, np.bincount(y).min()))
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=500))
    s = cross_val_predict(clf, x, y, cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
                          method="decision_function")
    return float(roc_auc_score(y, s))


def _semantic_acc(x: np.ndarray, y: np.ndarray, seed: int) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(y))
    tr, te = idx[: len(y) // 2], idx[len(y) // 2:]
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=500)).fit(x[tr], y[tr])
    return float((clf.predict(x[te]) == y[te]).mean())


def semantic_decodability(sem_acts: list, sem_labels: np.ndarray, *, seed: int = 0) -> np.ndarray:
    """Per layer: held-out accuracy of a logistic probe on the semantic labels, rescaled (chance 0, perfect 1).

    ``sem_acts[l] (k, C_l)``: activations of real images with integer ``sem_labels (k,)``.
    """
    if not isinstance(sem_acts, (list, tuple)) or not sem_acts:
        raise ValueError("sem_acts must be a non-empty list of arrays (one per layer)")
    sem_labels = np.asarray(sem_labels)
    if sem_labels.ndim != 1 or sem_labels.dtype.kind not in "iu":
        raise ValueError(f"sem_labels must be a 1-D integer array, got shape {sem_labels.shape}")
    n_cls = len(np.unique(sem_labels))
    if n_cls < 2:
        raise ValueError("sem_labels must hold at least two classes")
    out = []
    for l, a in enumerate(sem_acts):
        acc = _semantic_acc(as_array(f"sem_acts[{l}]", a, ndim=2), sem_labels, seed)
        out.append((acc - 1 / n_cls) / (1 - 1 / n_cls))
    return np.asarray(out)


def localize_layer(real: list, fake: list, real_maps: list, fake_maps: list, sem_acts: list,
                   sem_labels: np.ndarray, *, seed: int = 0, semantic: np.ndarray | None = None) -> dict:
    """Step 1: per-layer decoupling and attention shift, and the chosen layer ``l*``.

    ``real[l] (n, C_l)`` / ``fake[l] (m, C_l)``: unit activations of the few shots; ``real_maps[l]``
    / ``fake_maps[l] (n, H_l, W_l)``: channel-mean spatial maps; ``sem_acts[l] (k, C_l)`` with
    ``sem_labels (k,)``: real images with semantic labels.

    * forensic decodability ``F_l = 2 AUC - 1`` of a cross-validated logistic probe, real vs fake;
    * semantic decodability ``S_l`` = held-out accuracy of a probe on the semantic labels, rescaled
      so that chance is 0 and perfect is 1;
    * decoupling ``D_l = F_l - S_l``; attention shift ``A_l`` = |Cohen's d| of the normalised spatial
      entropy between real and fake;
    * ``l* = argmax_l mm(D)_l + mm(A)_l`` (mm: min-max over layers).

    ``semantic`` may pass :func:`semantic_decodability` precomputed (it does not depend on the shots).
    """
    n_layers = len(real)
    for name, v in (("fake", fake), ("real_maps", real_maps), ("fake_maps", fake_maps), ("sem_acts", sem_acts)):
        if not isinstance(v, (list, tuple)) or len(v) != n_layers:
            raise ValueError(f"{name} must be a list of {n_layers} arrays (one per layer)")
    if n_layers < 1:
        raise ValueError("real must hold at least one layer")
    if semantic is None:
        semantic = semantic_decodability(sem_acts, sem_labels, seed=seed)
    S_ = as_vector("semantic", semantic, length=n_layers)
    F_, A_ = [], []
    for l in range(n_layers):
        r, f = as_array(f"real[{l}]", real[l], ndim=2), as_array(f"fake[{l}]", fake[l], ndim=2)
        x = np.concatenate([r, f])
        y = np.r_[np.zeros(len(r), int), np.ones(len(f), int)]
        F_.append(2 * _cv_auc(x, y, seed) - 1)
        er, ef = spatial_entropy(real_maps[l]), spatial_entropy(fake_maps[l])
        A_.append(float(abs(cohens_d(er[:, None], ef[:, None])[0])))
    F_, A_ = np.asarray(F_), np.asarray(A_)
    D_ = F_ - S_

    def mm(v: np.ndarray) -> np.ndarray:
        return (v - v.min()) / (v.max() - v.min()) if v.max() > v.min() else np.zeros_like(v)

    total = mm(D_) + mm(A_)
    return {"layer": int(np.argmax(total)), "forensic": F_, "semantic": S_, "decoupling": D_,
            "attention_shift": A_, "total": total}


# ----------------------------------------------------------------------------- the detector
class AnchorDetector:
    """Standardised logistic regression on a subset of units (the FDUs); label 1 = fake."""

    def __init__(self, units: np.ndarray | None = None, C: float = 1.0):
        self.units = None if units is None else np.asarray(units, dtype=int)
        self.C = check_positive("C", C)

    def fit(self, real: np.ndarray, fake: np.ndarray) -> AnchorDetector:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        real = as_array("real", real, ndim=2)
        fake = as_array("fake", fake, ndim=2)
        x = np.concatenate([real, fake])
        if self.units is not None:
            x = x[:, self.units]
        y = np.r_[np.zeros(len(real), int), np.ones(len(fake), int)]
        self.clf = make_pipeline(StandardScaler(), LogisticRegression(C=self.C, max_iter=1000)).fit(x, y)
        return self

    def score(self, acts: np.ndarray) -> np.ndarray:
        """Fake-ness scores (decision function) ``(n,)`` of activations ``(n, C)``."""
        acts = as_array("acts", acts, ndim=2)
        return self.clf.decision_function(acts[:, self.units] if self.units is not None else acts)

    def predict(self, acts: np.ndarray) -> np.ndarray:
        return (self.score(acts) > 0).astype(int)


def select_anchors(real: np.ndarray, fake: np.ndarray, sem_acts: np.ndarray, sem_labels: np.ndarray, *,
                   n_boot: int = 30, min_units: int = 2, seed=0) -> dict:
    """Steps 2-3 on one layer: triadic scores, knee truncation; returns the scores, ``k`` and the FDU indices."""
    sc = triadic_scores(real, fake, sem_acts, sem_labels, n_boot=n_boot, seed=seed)
    k = knee_truncate(sc["fused"], min_units=min_units)
    order = np.argsort(-sc["fused"], kind="stable")
    return {**sc, "k": k, "order": order, "fdu": order[:k]}


def dna_fit(real: list, fake: list, real_maps: list, fake_maps: list, sem_acts: list, sem_labels: np.ndarray, *,
            n_boot: int = 30, min_units: int = 2, seed: int = 0, semantic: np.ndarray | None = None) -> dict:
    """The whole DNA pipeline on per-layer activations of the few shots: layer, anchors and a fitted detector."""
    seed = check_int("seed", seed, minimum=0)
    loc = localize_layer(real, fake, real_maps, fake_maps, sem_acts, sem_labels, seed=seed, semantic=semantic)
    l = loc["layer"]
    anchors = select_anchors(real[l], fake[l], sem_acts[l], sem_labels, n_boot=n_boot, min_units=min_units,
                             seed=seed)
    det = AnchorDetector(anchors["fdu"]).fit(real[l], fake[l])
    return {"layer": l, "localisation": loc, "anchors": anchors, "detector": det}


def auc(real_scores: np.ndarray, fake_scores: np.ndarray) -> float:
    """ROC AUC of fake-ness scores (fake = positive)."""
    from sklearn.metrics import roc_auc_score

    r = as_array("real_scores", real_scores, ndim=1)
    f = as_array("fake_scores", fake_scores, ndim=1)
    return float(roc_auc_score(np.r_[np.zeros(len(r)), np.ones(len(f))], np.r_[r, f]))
