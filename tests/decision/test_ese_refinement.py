"""ESE (arXiv:2606.13285), sixth session: the refinement-vs-ES0 claims and their fresh-draw block."""

import numpy as np
import pytest

from icml26.core.paper import Profile


def _profile(**over) -> Profile:
    from icml26.decision.ese import _COMMON, _MOVING

    params = {**_COMMON, "n_systems": [6], "T": 150, "moving": {"n_systems": [6], **_MOVING}, "refine": True,
              "refine_moving_ns": [6]}
    params.update(over)
    return Profile("t", seeds=1, params=params)


@pytest.mark.parametrize("regime", ["slow", "moving"])
def test_without_refinement_steps_ese_is_es0_exactly(regime):
    """Known answer: with the iteration cap at 0 the refinement cannot take a step, so ESE is ES0 under both
    readings of the predictor, to the last bit."""
    from icml26.decision.ese.experiment import refine_cell

    out = refine_cell(_profile(max_iter=0), 0, 0.2, 6, regime)
    assert out["iterated"] == 0.0 and out["iters"] == 0.0
    assert out["rmse/ese"] == out["rmse/es0"]
    assert out["rmse/ese_dev"] == out["rmse/es0_dev"]


def test_refinement_iterates_on_the_slow_generator_and_changes_the_forecast():
    from icml26.decision.ese.experiment import refine_cell

    out = refine_cell(_profile(), 0, 0.2, 6, "slow")
    assert out["iterated"] > 0
    assert out["rmse/ese"] != out["rmse/es0"]
    assert np.isfinite(out["premise"]) and out["premise"] >= 0


def test_fresh_draws_differ_from_the_stored_draws():
    """The refinement block's data sets are new draws: another stream than the stored regimes' (0 and 1)."""
    from icml26.decision.ese.experiment import REFINE_STREAM, one_cell, refine_cell

    assert len(set(REFINE_STREAM.values())) == 2 and not set(REFINE_STREAM.values()) & {0, 1}
    prof = _profile()
    for regime in ("slow", "moving"):
        stored, fresh = one_cell(prof, 0, 0.2, 6, regime), refine_cell(prof, 0, 0.2, 6, regime)
        assert stored["rmse/es0"] != fresh["rmse/es0"]
        again = refine_cell(prof, 0, 0.2, 6, regime)
        assert again == fresh


def test_refine_cell_rejects_an_unknown_regime():
    from icml26.decision.ese.experiment import refine_cell

    with pytest.raises(ValueError, match="regime"):
        refine_cell(_profile(), 0, 0.2, 6, "fast")


def _ms(gain: float, gain_dev: float, p: str = "", iterated: float = 0.5, premise: float = 3.0) -> list[dict]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(6):
        es0, es0_dev = 0.08 + 0.01 * rng.random(), 0.06 + 0.01 * rng.random()
        jit = 1 + 0.001 * rng.standard_normal(2)
        out.append({p + "refine/gm_es0": es0, p + "refine/gm_ese": es0 * (1 - gain) * jit[0],
                    p + "refine/gm_es0_dev": es0_dev, p + "refine/gm_ese_dev": es0_dev * (1 - gain_dev) * jit[1],
                    p + "refine/iterated_mean": iterated, "moving/refine/premise_min": premise})
    return out


@pytest.mark.parametrize("cid,p", [("refinement-beats-es0", ""), ("refinement-beats-es0-moving", "moving/")])
def test_refinement_checks_known_answers(cid, p):
    from icml26.decision.ese import PAPER

    check = next(c for c in PAPER.claims if c.id == cid).check
    assert check(_ms(0.05, 0.05, p)).status == "reproduced"
    assert check(_ms(0.05, 0.0, p)).status == "partly"           # one reading only
    assert check(_ms(0.004, 0.004, p)).status == "partly"        # significant, but below the 1% margin
    assert check(_ms(0.0, 0.0, p)).status == "not-reproduced"    # ESE = ES0 up to noise: the control passes equally
    assert check(_ms(-0.05, -0.05, p)).status == "not-reproduced"
    # gates: the refinement has to run for ESE to differ from ES0
    assert check(_ms(0.05, 0.05, p, iterated=0.05)).status == "not-checkable"
    if p:
        assert check(_ms(0.05, 0.05, p, premise=0.5)).status == "not-checkable"
