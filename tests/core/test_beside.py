"""Known answers for C.Beside: numbers reported beside a verdict, deciding nothing."""

from __future__ import annotations

import pytest

from icml26.core import checks as C


def _ms():
    return [{"m": 1.0 + 0.1 * i, "c": 0.5, "side": float(i), "side2": float("nan"), "avail": 1.0} for i in range(5)]


def test_beside_keeps_the_inner_verdict_and_appends_the_numbers():
    inner = C.beats_in_seeds("m", "c", frac=0.8)
    chk = C.beside(inner, [("the side number", "side"), ("an all-NaN one", "side2")], what="a second scorer",
                   requires="avail", missing="its extra is not installed")
    ms = _ms()
    v, w = chk(ms), inner(ms)
    assert (v.status, v.measured, v.value, v.control) == (w.status, w.measured, w.value, w.control)
    assert v.evidence == w.evidence + "; a second scorer (not deciding): the side number 2 (per seed 0/1/2/3/4)"
    assert chk.rule() == inner.rule() + "; reported beside it, not deciding: a second scorer"
    assert chk.comparative and chk.on_control(ms) == inner.on_control(ms)
    assert chk.contradict(ms) == inner.contradict(ms)


def test_beside_says_skipped_when_a_row_lacks_the_required_key():
    ms = _ms()
    ms[2]["avail"] = 0.0
    chk = C.Beside(C.threshold("m", at_least=1.0), (("x", "side"),), "MiniLM", requires="avail", missing="no extra")
    assert chk(ms).evidence.endswith("; MiniLM: skipped (no extra)")
    assert not chk.comparative and chk.on_control(ms) is None
    # without ``requires`` the numbers are always read; with no values at all it says so
    assert C.Beside(C.threshold("m", at_least=1.0), (("x", "nope"),), "W")(ms).evidence.endswith(
        "; W (not deciding): no values")
    assert C.Beside(C.threshold("m", at_least=1.0), (("x", "side"),), "W").note([]) == ""


def test_beside_rejects_bad_arguments():
    inner = C.threshold("m", at_least=1.0)
    with pytest.raises(TypeError, match="inner"):
        C.Beside("not a check", (("a", "b"),))
    with pytest.raises(ValueError, match="keys"):
        C.Beside(inner, ())
    with pytest.raises(ValueError, match="keys"):
        C.Beside(inner, (("a",),))
    with pytest.raises(TypeError, match="keys"):
        C.beside(inner, "ab", what="w")
    with pytest.raises(ValueError, match="requires"):
        C.Beside(inner, (("a", "b"),), requires="")
    with pytest.raises(TypeError, match="what"):
        C.Beside(inner, (("a", "b"),), what=3)


def test_beside_nan_in_requires_counts_as_present_and_partial_keys_show_nan():
    """As documented: only a missing or 0 ``requires`` skips; a key absent in some rows shows nan there."""
    ms = _ms()
    ms[1]["avail"] = float("nan")
    del ms[3]["side"]
    chk = C.Beside(C.threshold("m", at_least=1.0), (("x", "side"),), "W", requires="avail", missing="no extra")
    ev = chk(ms).evidence
    assert ev.endswith("; W (not deciding): x 1.75 (per seed 0/1/2/nan/4)")
    del ms[0]["avail"]
    assert chk(ms).evidence.endswith("; W: skipped (no extra)")
