"""Box Thirding (B3) and the fixed-budget baselines it is compared with.

Paper: S. Hwang and J. Park, "Box Thirding: Anytime Best Arm Identification under
Insufficient Sampling", arXiv:2602.18186 (2026).

B3 (Sec. 3 of the paper) looks for the best of ``N`` arms when the budget ``T`` is
unknown and may be too small to pull every arm once. Arms enter a hierarchy of
*boxes*, one per level ``l = 0, 1, 2, ...``; an arm waiting at level ``l`` has been
pulled ``n_l = ceil(t0 * r**l)`` times in total (samples are reused when it climbs).
Whenever three arms wait at the same level they are ranked by empirical mean and

* LIFT:    the best is pulled ``n_{l+1} - n_l`` more times and moves to level ``l+1``;
* SHIFT:   the median stays at level ``l`` and meets the next two arrivals;
* DISCARD: the worst is dropped for good.

When no box is full the next unseen arm (in a random order) is pulled ``n_0`` times
and enters level 0. A winner is lifted with probability 1/3 + 1/9 + ... = 1/2, so the
occupancy of the levels halves from one level to the next, as in Successive Halving,
and with ``r < 2`` the expected cost per screened arm is finite, so the number of
arms screened by time ``T`` is ``c0 = Theta(T)``. The default growth ratio is the
root ``r0 ~= 1.728`` of ``4 - r - r**1.5 = 0`` (the paper's balance between the
error exponent and the per-arm cost).

What the paper does not pin down in the parts we could read, and what we chose:

* recommendation at an arbitrary time (switchable, ``recommend(rule=...)``): by default
  the waiting arm at the highest level, ties broken by empirical mean, then by queue
  order (the arm deferred earliest); since ``n_l`` strictly increases with ``l`` this is exactly
  the most-played-arm rule (Bubeck, Munos and Stoltz 2009), a standard rule; ``rule="mean"`` takes the best empirical mean over
  every alive arm instead. With deterministic rewards the best screened arm is never
  discarded, so only ``"mean"`` makes B3's error pure screening, as the paper's
  deterministic-reward study (its Fig. 4, as reviewers describe it) implies; the claims are
  decided under ``"mean"`` since the sixth session (``"level"`` is reported beside them);
* ties inside a box are broken uniformly at random;
* an action is only started if its pulls fit in the budget, so stopping at ``T1``
  and resuming to ``T2`` executes exactly the same actions as running to ``T2``;
* once every arm has been screened (outside the data-poor regime the paper is
  about) the lowest occupied level is resolved with what it holds: two arms duel
  (the winner is lifted, the loser dropped), a lone arm is lifted; this ends with a
  single survivor.

The order of actions (admit, or resolve level ``l``) depends only on how many arms
wait at each level, never on the rewards, so it is the same for every repetition of
an experiment. :class:`BoxThirdingBatch` uses this to run ``R`` independent
repetitions in lock-step with array operations; :class:`BoxThirding` is the
single-run interface (``R = 1``).

Baselines (all with a random subset of the arms when ``N`` is too large):

* :func:`successive_halving`: SH of Karnin, Koren and Somekh (2013) with the budget
  known, on a random subset of the largest size ``n`` with ``n * ceil(log2 n) <= T``
  (every arm gets at least one pull in the first round), see :func:`fit_subset_size`;
* :func:`doubling_successive_halving`: the doubling trick, runs of SH with budgets
  ``B0, 2 B0, 4 B0, ...`` on fresh subsets, recommending the last completed run;
* :func:`uniform_sampling`: equal pulls on a random subset, best empirical mean.
* :func:`bracketing_successive_halving` (:class:`BracketingSHBatch`): the anytime
  Bracketing SH of Zhao, Stephens, Szepesvari and Jun (ICML 2023, arXiv:2210.16913):
  doubling-trick SH on random brackets of 2, 4, 8, ... arms sharing the budget; the
  bracket bookkeeping is our reconstruction, documented on the class.

Every function comes in a single-run form taking ``pull(arm, n) -> (n,) rewards`` and
a batched form taking ``pull_sum(arms, n) -> sums`` (``arms`` of any shape, the sum
of ``n`` fresh rewards of each arm, same shape) for ``R`` repetitions at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from icml26.core.validate import as_rng, check_int

#: Default growth ratio: the root of 4 - r - r**1.5 = 0 in (1, 2).
R0 = 1.7281632013323833

#: Anytime recommendation rules: "level" (ours: highest-level arm) and "mean" (best mean over alive arms)
RULES = ("level", "mean")

Pull = Callable[[int, int], np.ndarray]
PullSum = Callable[[np.ndarray, int], np.ndarray]


# --------------------------------------------------------------------------- validation
def _check_int(name: str, value, minimum: int) -> int:
    return check_int(name, value, minimum=minimum)


def _check_pull(pull) -> None:
    if not callable(pull):
        raise ValueError(f"pull must be a callable pull(arm, n) -> array of n rewards, got {pull!r}")


def _rng(seed) -> np.random.Generator:
    return as_rng("seed", seed)


def _single_pull_sum(pull: Pull) -> PullSum:
    """Adapt a one-arm ``pull(arm, n) -> (n,) rewards`` to the batched ``pull_sum`` form."""

    def pull_sum(arms: np.ndarray, n: int) -> np.ndarray:
        arms = np.asarray(arms)
        out = np.empty(arms.shape, dtype=float)
        for idx, arm in np.ndenumerate(arms):
            x = np.asarray(pull(int(arm), int(n)), dtype=float)
            if x.shape != (n,):
                raise ValueError(f"pull(arm, n) must return an array of shape ({n},), got shape {x.shape}")
            if not np.all(np.isfinite(x)):
                raise ValueError(f"pull(arm={int(arm)}, n={n}) returned NaN or inf rewards")
            out[idx] = x.sum()
        return out

    return pull_sum


def _checked_sums(pull_sum: PullSum, arms: np.ndarray, n: int) -> np.ndarray:
    s = np.asarray(pull_sum(arms, n), dtype=float)
    if s.shape != arms.shape:
        raise ValueError(f"pull_sum must return sums of shape {arms.shape}, got {s.shape}")
    if not np.all(np.isfinite(s)):
        raise ValueError("pull_sum returned NaN or inf")
    return s


def _rank_desc(sums: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Column order of each row of ``sums`` (R, m) from largest to smallest, random tie-break."""
    return np.lexsort((rng.random(sums.shape), -sums), axis=-1)


def _random_subsets(rng: np.random.Generator, n_reps: int, n_arms: int, size: int) -> np.ndarray:
    """(n_reps, size) arms drawn without replacement, independently per repetition."""
    return np.argsort(rng.random((n_reps, n_arms)), axis=1)[:, :size]


# --------------------------------------------------------------------------- B3
class BoxThirdingBatch:
    """B3 for ``n_reps`` independent repetitions in lock-step (see module docstring).

    Parameters
    ----------
    n_arms: N >= 1.
    n_reps: R >= 1 repetitions (each with its own random arm order and tie-breaks).
    t0: pulls of an arm on entering level 0 (integer >= 1).
    ratio: growth ratio r of the cumulative pulls per level, 1 <= r < 2.
    seed: int, None or a numpy Generator.

    State: ``pulls_used`` (per repetition, the same for all), ``n_screened`` (arms that
    entered level 0), ``levels[l]`` = list of waiting (arms (R,), sums (R,)) pairs.
    """

    def __init__(self, n_arms: int, n_reps: int = 1, *, t0: int = 1, ratio: float = R0, seed=None):
        self.n_arms = _check_int("n_arms", n_arms, 1)
        self.n_reps = _check_int("n_reps", n_reps, 1)
        self.t0 = _check_int("t0", t0, 1)
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(ratio)) or not 1.0 <= float(ratio) < 2.0:
            raise ValueError(f"ratio must be a finite number in [1, 2), got {ratio!r}")
        self.ratio = float(ratio)
        self.rng = _rng(seed)
        # random screening order of the arms, one per repetition: (R, N)
        self.order = np.argsort(self.rng.random((self.n_reps, self.n_arms)), axis=1)
        self.levels: list[list[tuple[np.ndarray, np.ndarray]]] = []
        self.n_screened = 0
        self.pulls_used = 0
        self._full: int | None = None  # the level holding three arms, if any

    # n_l = ceil(t0 * r^l): cumulative pulls of an arm waiting at level l
    def n_pulls(self, level: int) -> int:
        return max(self.t0, math.ceil(self.t0 * self.ratio ** level - 1e-9))

    def _next_action(self) -> tuple[str, int, int] | None:
        """(kind, level, cost) of the next action; depends only on queue lengths."""
        if self._full is not None:
            lvl = self._full
            return "resolve", lvl, self.n_pulls(lvl + 1) - self.n_pulls(lvl)
        if self.n_screened < self.n_arms:
            return "admit", 0, self.n_pulls(0)
        alive = sum(len(q) for q in self.levels)
        if alive <= 1:
            return None
        lvl = next(i for i, q in enumerate(self.levels) if q)
        kind = "duel" if len(self.levels[lvl]) == 2 else "lift"
        return kind, lvl, self.n_pulls(lvl + 1) - self.n_pulls(lvl)

    def _push(self, level: int, arms: np.ndarray, sums: np.ndarray) -> None:
        while len(self.levels) <= level:
            self.levels.append([])
        self.levels[level].append((arms, sums))
        if len(self.levels[level]) == 3:
            self._full = level

    def _lift(self, level: int, arms: np.ndarray, sums: np.ndarray, cost: int, pull_sum: PullSum) -> None:
        if cost > 0:
            sums = sums + _checked_sums(pull_sum, arms, cost)
        self._push(level + 1, arms, sums)

    def run(self, pull_sum: PullSum, budget: int) -> "BoxThirdingBatch":
        """Continue until the next action would exceed ``budget`` total pulls (cumulative).

        ``pull_sum(arms, n)`` gets arms of shape (R,) and returns the (R,) sums of ``n``
        fresh rewards of each. Calling ``run`` again with a larger budget continues.
        """
        budget = _check_int("budget", budget, 1)
        if budget < self.pulls_used:
            raise ValueError(f"budget ({budget}) is smaller than the pulls already used ({self.pulls_used})")
        if not callable(pull_sum):
            raise ValueError("pull_sum must be callable: pull_sum(arms, n) -> sums")
        while True:
            action = self._next_action()
            if action is None:
                break
            kind, lvl, cost = action
            if self.pulls_used + cost > budget:
                break
            if kind == "admit":
                arms = self.order[:, self.n_screened]
                sums = _checked_sums(pull_sum, arms, cost)
                self.n_screened += 1
                self._push(0, arms, sums)
            elif kind == "resolve":
                self._full = None
                box = self.levels[lvl]
                arms = np.stack([a for a, _ in box], axis=1)  # (R, 3)
                sums = np.stack([s for _, s in box], axis=1)  # all with n_l pulls: sums order as means
                rank = _rank_desc(sums, self.rng)
                best, median = rank[:, :1], rank[:, 1:2]
                take = np.take_along_axis
                self.levels[lvl] = [(take(arms, median, 1)[:, 0], take(sums, median, 1)[:, 0])]  # SHIFT
                # the worst, rank[:, 2], is DISCARDed
                self._lift(lvl, take(arms, best, 1)[:, 0], take(sums, best, 1)[:, 0], cost, pull_sum)  # LIFT
            elif kind == "duel":
                box = self.levels[lvl]
                arms = np.stack([a for a, _ in box], axis=1)
                sums = np.stack([s for _, s in box], axis=1)
                best = _rank_desc(sums, self.rng)[:, :1]
                self.levels[lvl] = []
                self._lift(lvl, np.take_along_axis(arms, best, 1)[:, 0],
                           np.take_along_axis(sums, best, 1)[:, 0], cost, pull_sum)
            else:  # lone arm once every arm has been screened
                arms, sums = self.levels[lvl].pop()
                self._lift(lvl, arms, sums, cost, pull_sum)
            self.pulls_used += cost
        return self

    def recommend(self, rule: str = "level") -> np.ndarray:
        """(R,) recommended arms under a recommendation ``rule`` (see :data:`RULES`).

        ``"level"`` (our default): the waiting arm at the highest level, then the best empirical
        mean, then queue order. ``"mean"``: the best empirical mean over every alive (waiting) arm,
        whatever its level (then the lowest level, then queue order).
        """
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
        if rule == "mean":
            return self._recommend_mean()
        for lvl in range(len(self.levels) - 1, -1, -1):
            box = self.levels[lvl]
            if box:
                arms = np.stack([a for a, _ in box], axis=1)
                sums = np.stack([s for _, s in box], axis=1)
                return arms[np.arange(self.n_reps), np.argmax(sums, axis=1)]
        return self.order[:, 0].copy()  # nothing pulled yet: the first arm of the random order

    def _recommend_mean(self) -> np.ndarray:
        arms, means = [], []
        for lvl, box in enumerate(self.levels):
            for a, sm in box:
                arms.append(a)
                means.append(sm / self.n_pulls(lvl))
        if not arms:
            return self.order[:, 0].copy()
        arms_, means_ = np.stack(arms, axis=1), np.stack(means, axis=1)
        return arms_[np.arange(self.n_reps), np.argmax(means_, axis=1)]  # first maximum: lowest level, earliest

    def alive(self) -> np.ndarray:
        """(R, n_alive) arms waiting in the boxes (screened and not discarded), level by level."""
        arms = [a for box in self.levels for a, _ in box]
        return np.stack(arms, axis=1) if arms else np.zeros((self.n_reps, 0), dtype=int)

    def screened(self) -> np.ndarray:
        """(R, n_screened) arms that have entered the boxes so far."""
        return self.order[:, : self.n_screened]

    def state(self) -> dict:
        """A comparable snapshot: pulls, screened count and each level's (arm, mean) per repetition."""
        return {
            "pulls_used": self.pulls_used,
            "n_screened": self.n_screened,
            "levels": [[(a.tolist(), (s / self.n_pulls(lvl)).tolist()) for a, s in q]
                       for lvl, q in enumerate(self.levels)],
        }


class BoxThirding:
    """Anytime best-arm identification by Box Thirding (B3), arXiv:2602.18186.

    >>> b3 = BoxThirding(1000, seed=0)
    >>> b3.run(pull, 5000)        # pull(arm, n) -> ndarray of n rewards
    >>> b3.run(pull, 20000)       # continue: same state as running to 20000 at once
    >>> b3.recommend(), b3.pulls_used

    Parameters
    ----------
    n_arms: N >= 1 arms, indexed 0..N-1.
    t0: pulls of an arm on entering level 0 (integer >= 1); default 1.
    ratio: growth ratio r, 1 <= r < 2; cumulative pulls at level l are ceil(t0 r^l);
        default r0 = 1.728..., the root of 4 - r - r^1.5 = 0.
    seed: int, None or numpy Generator for the screening order and tie-breaks.
    """

    def __init__(self, n_arms: int, *, t0: int = 1, ratio: float = R0, seed=None):
        self._b = BoxThirdingBatch(n_arms, 1, t0=t0, ratio=ratio, seed=seed)

    @property
    def n_arms(self) -> int:
        return self._b.n_arms

    @property
    def pulls_used(self) -> int:
        return self._b.pulls_used

    @property
    def n_screened(self) -> int:
        return self._b.n_screened

    def run(self, pull: Pull, budget: int) -> "BoxThirding":
        """Pull arms until ``budget`` total pulls (cumulative over calls) would be exceeded."""
        _check_pull(pull)
        self._b.run(_single_pull_sum(pull), budget)
        return self

    def recommend(self, rule: str = "level") -> int:
        """The recommended arm under ``rule`` ("level": highest level; "mean": best mean of the alive arms)."""
        return int(self._b.recommend(rule)[0])

    def screened(self) -> np.ndarray:
        """(n_screened,) arms that have entered the boxes so far, in screening order."""
        return self._b.screened()[0].copy()

    def state(self) -> dict:
        return self._b.state()


# --------------------------------------------------------------------------- baselines
def fit_subset_size(n_arms: int, budget: int) -> int:
    """Largest n <= N with n * ceil(log2 n) <= budget (so SH pulls every arm at least once)."""
    n_arms = _check_int("n_arms", n_arms, 1)
    budget = _check_int("budget", budget, 1)
    best = 1
    for n in range(2, n_arms + 1):
        if n * math.ceil(math.log2(n)) <= budget:
            best = n
        else:
            break
    return best


def _subset_size(subset_size, n_arms: int, budget: int) -> int:
    if subset_size is None:
        return fit_subset_size(n_arms, budget)
    size = _check_int("subset_size", subset_size, 1)
    if size > n_arms:
        raise ValueError(f"subset_size must be <= n_arms ({n_arms}), got {size}")
    return size


def successive_halving_batch(pull_sum: PullSum, n_arms: int, budget: int, n_reps: int = 1, *,
                             subset_size: int | None = None, seed=None) -> np.ndarray:
    """Successive Halving with known budget (Karnin et al. 2013) for R repetitions.

    A random subset of ``subset_size`` arms (default :func:`fit_subset_size`) is halved
    over ``ceil(log2 n)`` rounds; in a round with ``m`` survivors each gets
    ``floor(T / (m ceil(log2 n)))`` more pulls and the better half (by cumulative
    empirical mean, random ties) survives. Never uses more than ``budget`` pulls.
    Returns the (R,) recommended arms.
    """
    n_arms = _check_int("n_arms", n_arms, 1)
    budget = _check_int("budget", budget, 1)
    n_reps = _check_int("n_reps", n_reps, 1)
    rng = _rng(seed)
    n = _subset_size(subset_size, n_arms, budget)
    arms = _random_subsets(rng, n_reps, n_arms, n)
    sums = np.zeros(arms.shape)
    rounds = max(1, math.ceil(math.log2(n))) if n > 1 else 1
    for _ in range(rounds):
        m = arms.shape[1]
        if m == 1:
            break
        t = budget // (m * rounds)
        if t > 0:
            sums = sums + _checked_sums(pull_sum, arms, t)
        keep = np.sort(_rank_desc(sums, rng)[:, : math.ceil(m / 2)], axis=1)
        arms = np.take_along_axis(arms, keep, 1)
        sums = np.take_along_axis(sums, keep, 1)
    best = _rank_desc(sums, rng)[:, :1]
    return np.take_along_axis(arms, best, 1)[:, 0]


def successive_halving(pull: Pull, n_arms: int, budget: int, *, subset_size: int | None = None,
                       seed=None) -> int:
    """Single-run Successive Halving with known budget; see :func:`successive_halving_batch`."""
    _check_pull(pull)
    return int(successive_halving_batch(_single_pull_sum(pull), n_arms, budget, 1,
                                        subset_size=subset_size, seed=seed)[0])


def uniform_sampling_batch(pull_sum: PullSum, n_arms: int, budget: int, n_reps: int = 1, *,
                           subset_size: int | None = None, seed=None) -> np.ndarray:
    """Uniform allocation: ``floor(T / n)`` pulls on each of a random subset of ``n`` arms
    (default :func:`fit_subset_size`), recommend the best empirical mean. Returns (R,) arms."""
    n_arms = _check_int("n_arms", n_arms, 1)
    budget = _check_int("budget", budget, 1)
    n_reps = _check_int("n_reps", n_reps, 1)
    rng = _rng(seed)
    n = _subset_size(subset_size, n_arms, budget)
    arms = _random_subsets(rng, n_reps, n_arms, n)
    t = budget // n
    sums = _checked_sums(pull_sum, arms, t) if t > 0 else np.zeros(arms.shape)
    best = _rank_desc(sums, rng)[:, :1]
    return np.take_along_axis(arms, best, 1)[:, 0]


def uniform_sampling(pull: Pull, n_arms: int, budget: int, *, subset_size: int | None = None,
                     seed=None) -> int:
    """Single-run uniform sampling; see :func:`uniform_sampling_batch`."""
    _check_pull(pull)
    return int(uniform_sampling_batch(_single_pull_sum(pull), n_arms, budget, 1,
                                      subset_size=subset_size, seed=seed)[0])


def doubling_successive_halving_batch(pull_sum: PullSum, n_arms: int, checkpoints: Sequence[int],
                                      n_reps: int = 1, *, first_budget: int = 128,
                                      seed=None) -> np.ndarray:
    """Anytime SH by the doubling trick, read at several budgets.

    Runs SH with budgets ``B0, 2 B0, 4 B0, ...`` one after the other, each on a fresh random
    subset of :func:`fit_subset_size` arms with fresh samples; at a checkpoint ``T`` it
    recommends the output of the last run that finished within ``T`` total pulls (a uniformly
    random arm before the first finishes). Returns (R, len(checkpoints)) arms.
    """
    n_arms = _check_int("n_arms", n_arms, 1)
    n_reps = _check_int("n_reps", n_reps, 1)
    first_budget = _check_int("first_budget", first_budget, 1)
    cps = [_check_int("checkpoints", c, 1) for c in checkpoints]
    if not cps:
        raise ValueError("checkpoints must hold at least one budget")
    rng = _rng(seed)
    out = np.empty((n_reps, len(cps)), dtype=int)
    current = rng.integers(0, n_arms, size=n_reps)
    spent, b = 0, first_budget
    order = np.argsort(cps)
    for j in order:
        while spent + b <= cps[j]:
            current = successive_halving_batch(pull_sum, n_arms, b, n_reps, seed=rng)
            spent += b
            b *= 2
        out[:, j] = current
    return out


def doubling_successive_halving(pull: Pull, n_arms: int, budget: int, *, first_budget: int = 128,
                                seed=None) -> int:
    """Single-run doubling-trick SH stopped at ``budget``; see the batched form."""
    _check_pull(pull)
    budget = _check_int("budget", budget, 1)
    return int(doubling_successive_halving_batch(_single_pull_sum(pull), n_arms, [budget], 1,
                                                 first_budget=first_budget, seed=seed)[0, 0])


# --------------------------------------------------------------------------- bracketing SH
def _sh_on_arms(pull_sum: PullSum, arms: np.ndarray, budget: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """SH with known ``budget`` on given arms (R, n), fresh samples.

    Same rounds as :func:`successive_halving_batch`: ``ceil(log2 n)`` rounds, each of the ``m``
    survivors gets ``floor(budget / (m ceil(log2 n)))`` more pulls, the better half by cumulative
    empirical mean survives (random ties). A lone arm gets all ``budget`` pulls. Returns the (R,)
    winners and their empirical means over the pulls this run gave them.
    """
    n = arms.shape[1]
    if n == 1:
        return arms[:, 0].copy(), _checked_sums(pull_sum, arms[:, 0], budget) / budget
    rounds = math.ceil(math.log2(n))
    sums = np.zeros(arms.shape)
    pulls = 0
    for _ in range(rounds):
        m = arms.shape[1]
        if m == 1:
            break
        t = budget // (m * rounds)
        if t > 0:
            sums = sums + _checked_sums(pull_sum, arms, t)
            pulls += t
        keep = np.sort(_rank_desc(sums, rng)[:, : math.ceil(m / 2)], axis=1)
        arms = np.take_along_axis(arms, keep, 1)
        sums = np.take_along_axis(sums, keep, 1)
    best = _rank_desc(sums, rng)[:, :1]
    win = np.take_along_axis(arms, best, 1)[:, 0]
    mean = np.take_along_axis(sums, best, 1)[:, 0] / max(pulls, 1)
    return win, mean


class BracketingSHBatch:
    """Anytime Bracketing Successive Halving (BSH) for ``n_reps`` repetitions in lock-step.

    BSH is the data-poor-regime method of Zhao, Stephens, Szepesvari and Jun, "Revisiting
    Simple Regret: Fast Rates for Returning a Good Arm" (ICML 2023, arXiv:2210.16913), the
    anytime baseline of the B3 paper. Since the number of good arms is unknown, SH is run on
    *brackets*: random subsets of geometrically growing size, one of which is small enough to be
    explored well and large enough to contain a good arm.

    Bookkeeping (our reconstruction; the parts of the BSH paper we could read do not fix it):

    * bracket ``l = 1 .. L``, ``L = max(1, ceil(log2 N))``, holds ``n_l = min(2**l, N)`` arms drawn
      uniformly without replacement, independently per bracket and per repetition, fixed for the
      bracket's life;
    * each bracket runs SH with known budget on its arms by the doubling trick: its ``j``-th run
      (``j = 0, 1, ...``) has budget ``2**j * n_l * ceil(log2 n_l)`` (the first is the smallest that
      pulls every arm once a round), fresh samples, and the bracket's output is the winner of its
      last completed run together with that winner's empirical mean in that run;
    * interleaving: the brackets share the budget equally with whole runs as atomic jobs; the
      next job is the next run of the bracket whose pulls *after* that run would be smallest
      (ties: smaller bracket). Large brackets thus open once the small ones have spent as much as
      their first run costs. A job only starts if it fits in the budget, so the schedule, which
      depends only on the costs, is the same for every repetition and resuming equals one run;
    * recommendation: among brackets with a completed run, the output with the highest empirical
      mean (random ties); before any run completes, the first arm of bracket 1.

    State: ``pulls_used``, ``bracket_pulls[l-1]`` (pulls spent by bracket ``l``), ``runs_done[l-1]``.
    """

    def __init__(self, n_arms: int, n_reps: int = 1, *, seed=None):
        self.n_arms = _check_int("n_arms", n_arms, 1)
        self.n_reps = _check_int("n_reps", n_reps, 1)
        self.rng = _rng(seed)
        self.n_brackets = max(1, math.ceil(math.log2(self.n_arms))) if self.n_arms > 1 else 1
        self.sizes = [min(2 ** l, self.n_arms) for l in range(1, self.n_brackets + 1)]
        self.brackets = [_random_subsets(self.rng, self.n_reps, self.n_arms, n) for n in self.sizes]
        self.bracket_pulls = [0] * self.n_brackets
        self.runs_done = [0] * self.n_brackets
        self.outputs: list[tuple[np.ndarray, np.ndarray] | None] = [None] * self.n_brackets
        self.pulls_used = 0

    def first_budget(self, bracket: int) -> int:
        """Budget of the first SH run of bracket ``bracket`` (1-based): n_l * ceil(log2 n_l)."""
        n = self.sizes[bracket - 1]
        return n * math.ceil(math.log2(n)) if n > 1 else 1

    def run_budget(self, bracket: int, j: int) -> int:
        return self.first_budget(bracket) * 2 ** j

    def next_job(self) -> tuple[int, int]:
        """(bracket, budget) of the next SH run; depends only on what has been spent."""
        costs = [self.run_budget(l + 1, self.runs_done[l]) for l in range(self.n_brackets)]
        after = [self.bracket_pulls[l] + costs[l] for l in range(self.n_brackets)]
        l = int(np.argmin(after))  # first minimum: the smaller bracket wins ties
        return l + 1, costs[l]

    def run(self, pull_sum: PullSum, budget: int) -> "BracketingSHBatch":
        """Continue until the next SH run would exceed ``budget`` total pulls (cumulative)."""
        budget = _check_int("budget", budget, 1)
        if budget < self.pulls_used:
            raise ValueError(f"budget ({budget}) is smaller than the pulls already used ({self.pulls_used})")
        if not callable(pull_sum):
            raise ValueError("pull_sum must be callable: pull_sum(arms, n) -> sums")
        while True:
            bracket, cost = self.next_job()
            if self.pulls_used + cost > budget:
                break
            l = bracket - 1
            self.outputs[l] = _sh_on_arms(pull_sum, self.brackets[l], cost, self.rng)
            self.runs_done[l] += 1
            self.bracket_pulls[l] += cost
            self.pulls_used += cost
        return self

    def recommend(self) -> np.ndarray:
        """(R,) arms: the bracket output with the highest empirical mean (random ties)."""
        done = [o for o in self.outputs if o is not None]
        if not done:
            return self.brackets[0][:, 0].copy()
        arms = np.stack([a for a, _ in done], axis=1)
        means = np.stack([m for _, m in done], axis=1)
        best = _rank_desc(means, self.rng)[:, :1]
        return np.take_along_axis(arms, best, 1)[:, 0]

    def sampled(self) -> list[np.ndarray]:
        """Per repetition, the sorted arms that some completed SH run has pulled."""
        out = []
        for r in range(self.n_reps):
            arms = [self.brackets[l][r] for l in range(self.n_brackets) if self.runs_done[l] > 0]
            out.append(np.unique(np.concatenate(arms)) if arms else np.zeros(0, dtype=int))
        return out


def bracketing_successive_halving_batch(pull_sum: PullSum, n_arms: int, checkpoints: Sequence[int],
                                        n_reps: int = 1, *, seed=None) -> np.ndarray:
    """Anytime Bracketing SH (:class:`BracketingSHBatch`), run once and read at each checkpoint.

    Returns (R, len(checkpoints)) recommended arms.
    """
    n_arms = _check_int("n_arms", n_arms, 1)
    n_reps = _check_int("n_reps", n_reps, 1)
    cps = [_check_int("checkpoints", c, 1) for c in checkpoints]
    if not cps:
        raise ValueError("checkpoints must hold at least one budget")
    bsh = BracketingSHBatch(n_arms, n_reps, seed=seed)
    out = np.empty((n_reps, len(cps)), dtype=int)
    for j in np.argsort(cps, kind="stable"):
        bsh.run(pull_sum, cps[j])
        out[:, j] = bsh.recommend()
    return out


def bracketing_successive_halving(pull: Pull, n_arms: int, budget: int, *, seed=None) -> int:
    """Single-run anytime Bracketing SH stopped at ``budget``; see :class:`BracketingSHBatch`."""
    _check_pull(pull)
    budget = _check_int("budget", budget, 1)
    return int(bracketing_successive_halving_batch(_single_pull_sum(pull), n_arms, [budget], 1,
                                                   seed=seed)[0, 0])



# --------------------------------------------------------------------------- Bayes-UCB
def bayes_ucb_batch(pull_sum: PullSum, n_arms: int, checkpoints: Sequence[int], n_reps: int = 1, *,
                    seed=None) -> np.ndarray:
    """Anytime Bayes-UCB (Kaufmann, Cappe and Garivier, AISTATS 2012) for rewards in [0, 1], read at
    several budgets. Returns (R, len(checkpoints)) recommended arms.

    Each arm has a Beta(1 + S, 1 + F) posterior (S successes, F failures; a reward in (0, 1) is turned
    into a Bernoulli draw of that mean, the usual binarisation); at step t = 1, 2, ... the arm with the
    largest quantile of order 1 - 1/t is pulled once (c = 0, the setting of the paper's experiments),
    ties broken by a random arm order per repetition. Recommendation at a checkpoint (ours: the B3 paper
    does not say): the most pulled arm, ties by posterior mean, then arm order.

    Exact and fast in the many-armed regime: quantiles are increasing in S and decreasing in F, so only
    the arm with the most successes among the arms with F failures can win, for each F; and an arm with
    F >= 1 can only beat the best failure-free arm (whose quantile p**(1/(S0+1)) is closed-form) if it has
    more successes, S > S0. Only those few cells are evaluated with ``scipy.special.betaincinv``.
    """
    from scipy.special import betaincinv

    n_arms = _check_int("n_arms", n_arms, 1)
    n_reps = _check_int("n_reps", n_reps, 1)
    cps = [_check_int("checkpoints", c, 1) for c in checkpoints]
    if not cps:
        raise ValueError("checkpoints must hold at least one budget")
    if not callable(pull_sum):
        raise ValueError("pull_sum must be callable: pull_sum(arms, n) -> sums")
    rng = _rng(seed)
    R, N, T = n_reps, n_arms, max(cps)
    rows = np.arange(R)
    order = np.argsort(rng.random((R, N)), axis=1)  # position j of repetition r holds arm order[r, j]
    S = np.zeros((R, N), dtype=np.int32)
    F = np.zeros((R, N), dtype=np.int32)
    best_s = np.full((R, T + 2), -1, dtype=np.int64)  # per failure count f: most successes among arms with F = f
    best_pos = np.zeros((R, T + 2), dtype=np.int64)   # ... and the first position reaching it
    best_s[:, 0] = 0
    f_max = 0
    out = np.empty((R, len(cps)), dtype=int)
    want = sorted(set(cps))
    k = 0

    next_new = np.zeros(R, dtype=np.int64)  # unpulled arms are taken in position order: all from here on are new

    def recount(r_idx: np.ndarray, f_idx: np.ndarray) -> None:
        width = int(next_new[r_idx].max())      # positions beyond hold unpulled arms only (S = F = 0)
        sm = np.where(F[r_idx, :width] == f_idx[:, None], S[r_idx, :width], -1)
        j = np.argmax(sm, axis=1) if width else np.zeros(len(r_idx), dtype=np.int64)
        s_best = sm[np.arange(len(r_idx)), j] if width else np.full(len(r_idx), -1)
        # an unpulled arm (S = 0) at the first new position, for the failure-free cell
        new_ok = (f_idx == 0) & (next_new[r_idx] < N) & (s_best < 0)
        best_s[r_idx, f_idx] = np.where(new_ok, 0, s_best)
        best_pos[r_idx, f_idx] = np.where(new_ok, next_new[r_idx], j)

    for t in range(1, T + 1):
        p = 1.0 - 1.0 / t
        s0 = best_s[:, 0]
        # candidates with F >= 1 that may beat the best failure-free arm
        cells = best_s[:, 1:f_max + 1]
        rr, ff = np.nonzero(cells > s0[:, None]) if f_max > 0 else (np.zeros(0, int), np.zeros(0, int))
        pos = best_pos[:, 0].copy()
        has0 = s0 >= 0
        value = np.where(has0, p ** (1.0 / (np.maximum(s0, 0) + 1.0)), -np.inf)
        if rr.size:
            ff = ff + 1
            q = betaincinv(1.0 + best_s[rr, ff], 1.0 + ff, p)
            top = np.full(R, -np.inf)
            np.maximum.at(top, rr, q)
            win = q >= top[rr]  # per repetition, the best candidate cell (first one among equals)
            better = np.zeros(R, dtype=bool)
            cand_pos = np.zeros(R, dtype=np.int64)
            seen = np.zeros(R, dtype=bool)
            for r, f, qq in zip(rr[win].tolist(), ff[win].tolist(), q[win].tolist()):
                if not seen[r]:
                    seen[r] = True
                    if qq > value[r]:
                        better[r], cand_pos[r] = True, best_pos[r, f]
            pos = np.where(better, cand_pos, pos)
        arms = order[rows, pos]
        next_new = np.maximum(next_new, pos + 1)
        x = _checked_sums(pull_sum, arms, 1)
        if np.any((x < 0) | (x > 1)):
            raise ValueError("Bayes-UCB needs rewards in [0, 1]")
        frac = (x > 0) & (x < 1)
        if frac.any():
            x = np.where(frac, (rng.random(R) < x).astype(float), x)
        win_ = x > 0.5
        f_old = F[rows, pos].copy()
        S[rows, pos] += win_
        F[rows, pos] += ~win_
        f_new = F[rows, pos]
        # a failure moves the arm to cell f_new: its old cell may need a recount
        moved = ~win_
        left = moved & (best_pos[rows, f_old] == pos)
        if left.any():
            recount(rows[left], f_old[left])
        s_new = S[rows, pos]
        cur = best_s[rows, f_new]
        upd = (s_new > cur) | ((s_new == cur) & (pos < best_pos[rows, f_new]))
        best_s[rows[upd], f_new[upd]] = s_new[upd]
        best_pos[rows[upd], f_new[upd]] = pos[upd]
        f_max = max(f_max, int(f_new.max()))
        while k < len(want) and want[k] == t:
            n = S + F
            post = (S + 1.0) / (n + 2.0)
            key = n * 4.0 + post  # most pulls first, then posterior mean (< 1 < 4)
            rec = order[rows, np.argmax(key, axis=1)]
            for j, c in enumerate(cps):
                if c == t:
                    out[:, j] = rec
            k += 1
    return out


def bayes_ucb(pull: Pull, n_arms: int, budget: int, *, seed=None) -> int:
    """Single-run anytime Bayes-UCB stopped at ``budget``; see :func:`bayes_ucb_batch`."""
    _check_pull(pull)
    budget = _check_int("budget", budget, 1)
    return int(bayes_ucb_batch(_single_pull_sum(pull), n_arms, [budget], 1, seed=seed)[0, 0])

def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test (``tests/test_every_paper.py``)."""
    mu = np.linspace(0.1, 0.9, 20)

    def pull(arm: int, n: int) -> np.ndarray:
        return np.full(n, mu[arm])

    def pull_sum(arms: np.ndarray, n: int) -> np.ndarray:
        return n * mu[arms]

    return [
        (BoxThirding, {"n_arms": 20, "t0": 1, "ratio": R0, "seed": 0}),
        (BoxThirdingBatch, {"n_arms": 20, "n_reps": 2, "t0": 1, "ratio": R0, "seed": 0}),
        (BoxThirding(20, seed=0).run, {"pull": pull, "budget": 60}),
        (fit_subset_size, {"n_arms": 20, "budget": 50}),
        (successive_halving, {"pull": pull, "n_arms": 20, "budget": 100, "subset_size": 8, "seed": 0}),
        (successive_halving_batch, {"pull_sum": pull_sum, "n_arms": 20, "budget": 100, "n_reps": 2, "seed": 0}),
        (uniform_sampling, {"pull": pull, "n_arms": 20, "budget": 100, "seed": 0}),
        (doubling_successive_halving, {"pull": pull, "n_arms": 20, "budget": 300, "first_budget": 16, "seed": 0}),
        (bracketing_successive_halving, {"pull": pull, "n_arms": 20, "budget": 200, "seed": 0}),
        (BracketingSHBatch, {"n_arms": 20, "n_reps": 2, "seed": 0}),
        (bayes_ucb, {"pull": pull, "n_arms": 20, "budget": 100, "seed": 0}),
    ]
