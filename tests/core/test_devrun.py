"""devrun runs development seeds (100 on) unless told otherwise."""

from __future__ import annotations

import sys

import pytest

from icml26.core import devrun


class _FakePaper:
    def __init__(self):
        self.seen = []

    def profile(self, name):
        class P:
            seeds = 3
        return P()

    def run_seed(self, prof, seed):
        self.seen.append(seed)
        return {"x": float(seed)}

    def evaluate(self, ms):
        return {}


@pytest.mark.parametrize("argv,expected", [([], [100, 101, 102]),
                                            (["--seeds", "2", "--first-seed", "0"], [0, 1])])
def test_devrun_seeds(monkeypatch, capsys, argv, expected):
    fake = _FakePaper()
    monkeypatch.setattr(devrun, "get_paper", lambda slug: fake)
    monkeypatch.setattr(devrun, "set_threads", lambda n: None)
    monkeypatch.setattr(sys, "argv", ["devrun", "x", "quick", *argv])
    devrun.main()
    assert fake.seen == expected
    out = capsys.readouterr().out
    assert ("overlap the profile's seeds" in out) == (expected[0] < 3)


@pytest.mark.parametrize("bad", [["--first-seed", "-1"], ["--seeds", "0"], ["--seeds", "-2"]])
def test_devrun_rejects_bad_seeds(monkeypatch, bad):
    monkeypatch.setattr(devrun, "get_paper", lambda slug: _FakePaper())
    monkeypatch.setattr(devrun, "set_threads", lambda n: None)
    monkeypatch.setattr(sys, "argv", ["devrun", "x", "quick", *bad])
    with pytest.raises(SystemExit):
        devrun.main()
