"""Known answers for MAP's interval, granularity and reliability helpers."""

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from icml26.agents.map_agents import PAPER
from icml26.agents.map_agents.findings import FINDINGS, by_key
from icml26.agents.map_agents.method import (chain_success, grim_consistent, grim_counts, majority_reading,
                                             proportion_interval)
from icml26.agents.map_agents.setting import simulate_chain


def test_wilson_closed_form_and_scipy():
    k, n, z = 14, 20, 1.959963984540054
    phat = k / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n))
    lo, hi = proportion_interval(k, n, method="wilson")
    assert lo == pytest.approx(centre - half, abs=1e-9) and hi == pytest.approx(centre + half, abs=1e-9)
    assert (round(lo, 2), round(hi, 2)) == (0.48, 0.85)  # the "70% of 20: [48%, 85%]"
    ci = binomtest(k, n).proportion_ci(0.95, method="exact")
    assert proportion_interval(k, n, method="beta") == pytest.approx((ci.low, ci.high), abs=1e-9)


@pytest.mark.parametrize("n", [1, 7, 20, 86])
def test_intervals_contain_estimate_and_shrink(n):
    for k in range(n + 1):
        for meth in ("wilson", "beta"):
            lo, hi = proportion_interval(k, n, method=meth)
            assert lo - 1e-12 <= k / n <= hi + 1e-12
    w_small = np.subtract(*proportion_interval(n // 2, n)[::-1])
    w_big = np.subtract(*proportion_interval(4 * (n // 2), 4 * n)[::-1])
    assert w_big < w_small


def test_grim_examples():
    assert grim_counts(68, 86) == []           # 58/86 = 67.4%, 59/86 = 68.6%
    assert grim_counts(68, 306) == [207, 208, 209]  # 67.6%, 68.0%, 68.3%
    assert grim_counts(70, 20) == [14]
    assert not grim_consistent(68, 20)
    assert grim_counts(67.4, 86, decimals=1) == [58]


def test_grim_brute_force():
    for n in (3, 20, 86):
        for k in range(n + 1):
            assert k in grim_counts(round(100 * k / n), n)


def test_majority_reading_flags_small_samples():
    r = majority_reading(14, 20)
    assert r["rate"] == 0.7 and not r["clears_half"]
    assert majority_reading(208, 306)["clears_half"]


def test_chain_success_closed_forms():
    assert chain_success(0.9, 10) == pytest.approx(0.9 ** 10)
    assert chain_success(0.9, 10, h=5, c=0.0) == pytest.approx(0.9 ** 10)
    assert chain_success(0.9, 10, h=5, c=1.0) == pytest.approx(1.0)
    seg = 0.9 ** 4 + (1 - 0.9 ** 4) * 0.5
    assert chain_success(0.9, 10, h=4, c=0.5) == pytest.approx(seg ** 2 * (0.81 + 0.19 * 0.5))


@pytest.mark.parametrize("p,k,h,c", [(0.95, 10, None, 0.0), (0.9, 20, 5, 0.8), (0.98, 7, 3, 0.5)])
def test_chain_success_matches_monte_carlo(p, k, h, c):
    draws = 100_000
    q = chain_success(p, k, h=h, c=c)
    mc = simulate_chain(p, k, h=h, c=c, draws=draws, seed=1)
    assert abs(mc - q) <= 3 * math.sqrt(q * (1 - q) / draws) + 1e-12


def test_findings_records():
    assert by_key("off_the_shelf").n == 20
    assert len({f.key for f in FINDINGS}) == len(FINDINGS)
    with pytest.raises(ValueError, match="key"):
        by_key("nope")


@pytest.mark.parametrize("bad", [dict(k=21, n=20), dict(k=3, n=0), dict(k=3, n=20, method="wald")])
def test_bad_input(bad):
    with pytest.raises((ValueError, TypeError)):
        proportion_interval(**bad)


def test_quick_verdicts():
    ms = [PAPER.run_seed("quick", s) for s in range(2)]
    v = PAPER.evaluate(ms)
    assert v["intervals-agree"].status == "reproduced"
    assert v["grim-68"].status == "reproduced"
    assert all(v[c].status == "not-checkable" for c in ("bounded-steps", "prompting-off-the-shelf",
                                                      "human-evaluation", "reliability-top-challenge"))
    assert "would say not-reproduced" in v["prompting-off-the-shelf"].evidence
    assert ms[0]["reliability/max_z"] < 5
