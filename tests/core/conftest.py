"""Fixtures for the framework tests: the fault-injection papers join the registry."""

import pytest

from icml26.core import registry

EXTRA = "icml26.core._testing:FAKE_PAPERS"


@pytest.fixture
def fake_papers(monkeypatch):
    monkeypatch.setenv("ICML26_EXTRA_PAPERS", EXTRA)
    registry.refresh()
    yield {p.slug: p for p in registry.all_papers() if p.slug.startswith("fake-")}
    monkeypatch.delenv("ICML26_EXTRA_PAPERS")
    registry.refresh()
