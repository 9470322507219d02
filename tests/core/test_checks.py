"""Known-answer tests of the declarative checks (core/checks.py) and the claim-kind rules of the contract."""

from __future__ import annotations

import numpy as np
import pytest

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile, Verdict


def _ms(n=8, a=1.0, b=2.0, noise=0.1, seed=0, series=False):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        if series:
            out.append({"m": (a + noise * rng.standard_normal(3)).tolist(),
                        "c": (b + noise * rng.standard_normal(3)).tolist(), "loss_ratio": 5.0})
        else:
            out.append({"m": a + noise * rng.standard_normal(), "c": b + noise * rng.standard_normal(),
                        "loss_ratio": 5.0})
    return out


def test_beats_lower_is_better_reproduced_and_reports_control():
    v = C.beats("m", "c", better="lower")(_ms())
    assert v.status == "reproduced" and "c:" in v.control and v.value == pytest.approx(1.0, abs=0.2)


def test_beats_contradiction_and_control_never_pass():
    chk = C.beats("m", "c", better="lower")
    ms = _ms()
    assert chk(chk.contradict(ms)).status == "not-reproduced"
    assert chk(chk.on_control(ms)).status != "reproduced"


def test_beats_higher_and_margin():
    ms = _ms(a=2.0, b=1.0)
    assert C.beats("m", "c", better="higher")(ms).status == "reproduced"
    # an improvement of ~1 does not clear a margin of 3: significantly better, short of the margin
    assert C.beats("m", "c", better="higher", margin=3.0)(ms).status == "partly"
    assert C.beats("c", "m", better="higher", margin=3.0)(ms).status == "not-reproduced"
    # relative margin: (2 - 1) / 1 = 100% improvement clears 50%
    assert C.beats("m", "c", better="higher", margin=0.5, rel_margin=True)(ms).status == "reproduced"


def test_too_few_seeds_is_not_checkable_not_not_reproduced():
    ms = _ms(n=3)
    v = C.beats("m", "c", better="lower", test="sign")(ms)  # 0.5**3 = 0.125 >= 0.05
    assert v.status == "not-checkable" and "too few seeds" in v.evidence
    assert C.beats("m", "c", better="lower", test="t")(ms).status == "reproduced"
    assert C.too_few_seeds(4, "sign") is not None and C.too_few_seeds(5, "sign") is None


def test_beats_noisy_tie_is_not_reproduced():
    """A mean improvement the test cannot tell from noise is not evidence: not-reproduced, not partly."""
    st = [C.beats("m", "c")(_ms(a=1.0, b=1.0, noise=1.0, n=10, seed=seed)).status for seed in range(40)]
    assert "partly" not in st and st.count("reproduced") <= 6  # ~5% false positives at alpha = 0.05


def test_beats_partly_means_significant_but_short_of_the_margin():
    ms = _ms(a=1.0, b=2.0, noise=0.1)  # improvement ~1
    assert C.beats("m", "c", margin=0.5)(ms).status == "reproduced"
    assert C.beats("m", "c", margin=1.5)(ms).status == "partly"


def test_beats_each_point_with_need():
    ms = _ms(series=True)
    assert C.beats("m", "c", at="each")(ms).status == "reproduced"
    for m in ms:  # last point flips
        m["m"][2], m["c"][2] = m["c"][2], m["m"][2]
    assert C.beats("m", "c", at="each")(ms).status == "partly"
    assert C.beats("m", "c", at="each", need=2 / 3)(ms).status == "reproduced"
    assert C.beats("m", "c", at=0)(ms).status == "reproduced"


def test_close_and_contradiction():
    ms = [{"x": 1.0 + 1e-9 * i, "t": 1.0} for i in range(4)]
    chk = C.close("x", to="t", tol=1e-6)
    assert chk(ms).status == "reproduced"
    assert chk(chk.contradict(ms)).status == "not-reproduced"
    rel = C.close("x", to=2.0, tol=0.1, rel=True, partly_tol=0.6)
    assert rel(ms).status == "partly"  # |1-2|/2 = 0.5


def test_threshold_fraction_and_mean():
    ms = [{"h": v} for v in (0.95, 0.92, 0.5, 0.99)]
    assert C.threshold("h", at_least=0.9)(ms).status == "not-reproduced"
    assert C.threshold("h", at_least=0.9, frac=0.75)(ms).status == "reproduced"
    assert C.threshold("h", at_least=0.9, partly_frac=0.5)(ms).status == "partly"
    assert C.threshold("h", at_least=0.8, on="mean")(ms).status == "reproduced"
    chk = C.threshold("h", at_most=0.2)
    assert chk(chk.contradict(ms)).status == "not-reproduced"


def test_slope_known_rate():
    n = np.array([10, 40, 160, 640], float)
    ms = [{"n": n.tolist(), "err": (3.0 * n ** -0.5 * (1 + 0.01 * s)).tolist()} for s in range(4)]
    chk = C.slope("n", "err", within=(-0.55, -0.45))
    v = chk(ms)
    assert v.status == "reproduced" and v.value == pytest.approx(-0.5, abs=1e-6)
    assert chk(chk.contradict(ms)).status == "not-reproduced"


def test_gate_failure_is_not_checkable_with_reason():
    ms = _ms()
    chk = C.beats("m", "c").gated(C.gate("loss_ratio", at_least=10, why="training loss fell 10x"))
    v = chk(ms)
    assert v.status == "not-checkable" and "training loss fell 10x" in v.evidence
    ok = C.beats("m", "c").gated(C.gate("loss_ratio", at_least=2, why="training loss fell 2x"))(ms)
    assert ok.status == "reproduced" and "gate" in ok.evidence
    with pytest.raises(ValueError, match="why"):
        C.gate("loss_ratio", at_least=1, why="")


def test_all_of_combines():
    ms = _ms()
    both = C.all_of(C.beats("m", "c"), C.threshold("loss_ratio", at_least=1))
    assert both(ms).status == "reproduced" and both.comparative
    assert both(both.contradict(ms)).status == "not-reproduced"
    half = C.all_of(C.beats("m", "c"), C.threshold("loss_ratio", at_least=100))
    assert half(ms).status == "partly"


@pytest.mark.parametrize("bad", [dict(better="down"), dict(test="z"), dict(alpha=0), dict(margin=-1.0),
                                 dict(need=0.0)])
def test_beats_rejects_bad_arguments(bad):
    with pytest.raises(ValueError):
        C.beats("m", "c", **bad)


def test_missing_key_names_the_metric():
    with pytest.raises(KeyError, match="nope"):
        C.beats("nope", "c")(_ms())


def _paper(claim):
    return Paper(slug="t", title="t", source="none", cluster="decision", feasibility="A",
                 substitution="x" * 50, claims=(claim,), run=lambda p, s: {"m": 1.0, "c": 2.0},
                 profiles={"quick": Profile("quick", 2), "full": Profile("full", 2)})


def test_claim_kind_rules():
    with pytest.raises(ValueError, match="kind"):
        Claim("a", "s", "v", kind="headlin")
    with pytest.raises(ValueError, match="control"):
        Claim("a", "s", "v", kind="headline", check=C.threshold("m", at_least=0))
    Claim("a", "s", "v", kind="identity", check=C.threshold("m", at_least=0))


def test_gpu_and_uncheckable_claims_are_not_checkable_on_cpu():
    ms = _ms()
    gpu = Claim("fast", "s", "v", kind="headline", no_control="rate", gpu=True, check=C.threshold("m", at_least=0))
    v = _paper(gpu).verdict(gpu, ms)
    assert v.status == "not-checkable" and "GPU" in v.evidence
    assert _paper(gpu).verdict(gpu, [{**m, "device": "cuda"} for m in ms]).status == "reproduced"
    sim = Claim("sim", "s", "v", kind="headline", no_control="rate", uncheckable="simulated clock",
                check=C.threshold("m", at_least=0))
    assert _paper(sim).verdict(sim, ms).status == "not-checkable"


def test_profile_overrides():
    p = Profile("quick", 2, params={"n": 10, "lr": 0.1, "name": "a", "grid": [1, 2]})
    assert p.with_overrides({"n": 20, "lr": 1})["lr"] == 1.0
    with pytest.raises(ValueError, match="no parameter"):
        p.with_overrides({"m": 1})
    with pytest.raises(ValueError, match="expects int"):
        p.with_overrides({"n": 0.5})
    with pytest.raises(ValueError):
        Profile("quick", 0)
    with pytest.raises(ValueError):
        Profile("quick", 2, timeout_s=float("nan"))


def test_verdict_carries_control():
    v = Verdict("reproduced", "m 1", "rule", control="c 2")
    assert v.to_dict()["control"] == "c 2"


def test_beats_in_seeds_count_rule():
    ms = [{"m": 0.8, "c": 0.7}, {"m": 0.8, "c": 0.7}, {"m": 0.8, "c": 0.7}, {"m": 0.8, "c": 0.7}, {"m": 0.7, "c": 0.7}]
    chk = C.beats_in_seeds("m", "c", margin=0.05, frac=0.8)
    assert chk(ms).status == "reproduced" and "c:" in chk(ms).control
    assert C.beats_in_seeds("m", "c", margin=0.05, frac=1.0)(ms).status == "partly"
    assert chk(chk.contradict(ms)).status == "not-reproduced"
    assert chk(chk.on_control(ms)).status == "not-reproduced"
    assert C.beats_in_seeds("c", "m", better="lower", margin=0.05)(ms).status == "reproduced"
    with pytest.raises(ValueError, match="frac"):
        C.beats_in_seeds("m", "c", frac=0)


def test_bounds_allow_float32_rounding_of_counts():
    """18/600 stored as float32 is 0.02999997: a bound of 0.03 must count it as met, one count less must not."""
    import numpy as np

    stored = float(np.float32(18 / 600))
    assert stored < 0.03
    g = C.gate("gain", at_least=0.03, why="oracle gain")
    assert g.evaluate([{"gain": stored}])[0]
    assert not g.evaluate([{"gain": float(np.float32(17 / 600))}])[0]
    th = C.threshold("gain", at_least=0.03)
    assert th([{"gain": stored}] * 3).status == "reproduced"
    b = C.beats_in_seeds("a", "b", margin=0.03)
    assert b([{"a": stored, "b": 0.0}] * 5).status == "reproduced"
    assert b([{"a": float(np.float32(17 / 600)), "b": 0.0}] * 5).status == "not-reproduced"


def test_small_bounds_keep_their_meaning():
    """The float32 slack is capped at 1% of a small non-zero bound: <= 1e-8 is not <= 5e-7, >= 1e-9 is not >= 0."""
    g = C.gate("grad", at_most=1e-8, why="converged")
    assert g.evaluate([{"grad": 1.0e-8}])[0]
    assert not g.evaluate([{"grad": 3e-7}])[0]
    pos = C.threshold("lo", at_least=1e-9)
    assert pos([{"lo": 0.01}] * 3).status == "reproduced"
    assert pos([{"lo": 0.0}] * 3).status == "not-reproduced"
    zero = C.threshold("d", at_least=0.0)  # a bound of 0 keeps the absolute float32 slack
    assert zero([{"d": -1e-8}] * 3).status == "reproduced"
    assert zero([{"d": -1e-5}] * 3).status == "not-reproduced"


def test_non_inferior_by_interval_and_by_mean():
    ms = [{"m": 10.0 + d, "c": 10.0} for d in (-0.5, 0.2, -0.1, 0.3, -0.2)]  # mean advantage -0.06
    ok = C.non_inferior("m", "c", margin=2.0)
    v = ok(ms)
    assert v.status == "reproduced" and v.value == pytest.approx(-0.06) and "c: 10" in v.control
    assert C.non_inferior("m", "c", margin=0.1)(ms).status == "not-reproduced"  # t interval reaches below -0.1
    assert C.non_inferior("m", "c", margin=0.1, by="mean")(ms).status == "reproduced"
    assert C.non_inferior("m", "c", margin=0.01, by="mean", partly_margin=0.1)(ms).status == "partly"
    # lower is better: the same numbers read the other way round
    lower = [{"m": 10.0 - d, "c": 10.0} for d in (-0.5, 0.2, -0.1, 0.3, -0.2)]
    assert C.non_inferior("m", "c", margin=0.1, by="mean", better="lower")(lower).status == "reproduced"
    for chk in (ok, C.non_inferior("m", "c", margin=0.01, by="mean", partly_margin=0.1),
                C.non_inferior("m", "c", margin=0.1, by="mean", better="lower")):
        assert chk(chk.contradict(ms if chk.better == "higher" else lower)).status == "not-reproduced"
    assert C.non_inferior("m", "c", margin=1.0)(ms[:1]).status == "not-checkable"


@pytest.mark.parametrize("bad", [dict(margin=-1.0), dict(margin=0.1, partly_margin=0.05), dict(margin=0.1, by="x"),
                                 dict(margin=0.1, better="down")])
def test_non_inferior_rejects_bad_arguments(bad):
    with pytest.raises(ValueError):
        C.non_inferior("m", "c", **bad)


def test_all_of_contradiction_survives_parts_that_write_the_same_metric():
    ms = [{"m": 10.0 + 0.01 * i, "c": 5.0} for i in range(6)]
    # part 1 contradicts by lowering m; part 2 (a non-inferiority on the same pair) by lowering m further,
    # and a threshold that a lowered m passes again would undo it: the conjunction must still fail
    both = C.all_of(C.beats_in_seeds("m", "c", margin=1.0), C.threshold("m", at_most=100.0))
    assert both(ms).status == "reproduced"
    assert both(both.contradict(ms)).status != "reproduced"


def test_beats_in_seeds_with_zero_margin_does_not_count_ties():
    ms = [{"m": 1.0, "c": 1.0} for _ in range(5)]
    chk = C.beats_in_seeds("m", "c")
    assert chk(ms).status == "not-reproduced" and "strictly" in chk.rule()
    ms[0]["m"] = ms[1]["m"] = ms[2]["m"] = ms[3]["m"] = 1.5
    assert chk(ms).status == "reproduced"
    assert chk(chk.on_control(ms)).status == "not-reproduced"


def test_paired_bootstrap_superiority_noninferiority_and_control():
    from icml26.core.checks import paired_bootstrap

    rng = np.random.default_rng(0)
    ms = [{"a": list((rng.random(200) < 0.6).astype(float)), "b": list((rng.random(200) < 0.4).astype(float))}
          for _ in range(3)]
    sup = paired_bootstrap("a", "b")
    assert sup(ms).status == "reproduced" and sup(sup.on_control(ms)).status == "not-reproduced"
    assert sup(sup.contradict(ms)).status == "not-reproduced"
    assert paired_bootstrap("b", "a", better="lower")(ms).status == "reproduced"
    same = [{"a": m["b"], "b": m["b"]} for m in ms]
    assert paired_bootstrap("a", "b", mode="noninferior", margin=0.02)(same).status == "reproduced"
    with pytest.raises(ValueError):
        paired_bootstrap("a", "b", margin=-1)


def test_part_beyond_controls():
    """A partly verdict stands only if some part reads better for the method than for each control."""
    chk = C.all_of(C.threshold("m", at_least=0.5), C.beats("m", "c", better="higher"))
    ms = [{"m": 0.6 + 0.01 * i, "c": 0.7 + 0.01 * i, "r": 0.55} for i in range(6)]  # passes the bar, loses to c
    put_c = lambda xs: [{**x, "m": x["c"]} for x in xs]  # noqa: E731
    put_r = lambda xs: [{**x, "m": x["r"]} for x in xs]  # noqa: E731
    assert chk(ms).status == "partly"
    # c in the method's place passes the bar too: nothing tells the method from c
    assert C.part_beyond_controls(chk, ms, [("c", put_c)]).status == "not-reproduced"
    # r would pass the bar as well (0.55), so against r too the method has no better part
    assert C.part_beyond_controls(chk, ms, [("r", put_r)]).status == "not-reproduced"
    low = [{**x, "r": 0.1} for x in ms]  # r fails the bar: the method passes a part r fails
    assert C.part_beyond_controls(chk, low, [("r", put_r)]).status == "partly"
    assert "r yes" in C.part_beyond_controls(chk, low, [("r", put_r)], who="X").evidence
    with pytest.raises(ValueError, match="controls"):
        C.part_beyond_controls(chk, ms, [])
    with pytest.raises(TypeError, match="all_of"):
        C.part_beyond_controls(C.threshold("m", at_least=0.5), ms, [("c", put_c)])


def test_threshold_control_value_covers_paired_parts():
    """A paired-difference part takes its control-against-itself value under the control substitution."""
    chk = C.all_of(C.beats("m", "c", better="higher"), C.threshold("d_lo", at_least=1e-9, control_value=0.0))
    ms = [{"m": 0.5 + 0.01 * i, "c": 0.4, "d_lo": 0.05} for i in range(6)]
    assert chk(ms).status == "reproduced"
    ctl = chk.on_control(ms)
    assert all(m["d_lo"] == 0.0 and m["m"] == m["c"] for m in ctl)
    assert chk(ctl).status == "not-reproduced"
    assert ms[0]["d_lo"] == 0.05  # the input is not modified
    assert C.threshold("x", at_least=1.0).on_control(ms) is None
    with pytest.raises(ValueError, match="control_value"):
        C.threshold("x", at_least=1.0, control_value=float("nan"))


def test_contradiction_of_a_lost_comparison_does_not_pass():
    """When the method really loses, swapping it with the control would make it win: the contradiction
    must not read reproduced all the same (also for a 'no worse than' count rule that counts ties)."""
    ms = [{"m": 0.3 + 0.01 * i, "c": 0.6 + 0.01 * i, "s": [0.3, 0.2], "t": [0.6, 0.5]} for i in range(6)]
    for chk in (C.beats("m", "c", better="higher"), C.beats_in_seeds("m", "c"),
                C.BeatsInSeeds("m", "c", ties=True), C.beats("m", "c", better="lower"),
                C.beats("s", "t", better="higher", at=1)):
        assert chk(chk.contradict(ms)).status != "reproduced", chk.rule()
    assert ms[0]["m"] == 0.3  # inputs untouched
