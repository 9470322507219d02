"""The paper-agnostic framework: contract, registry, runner, store, statistics, report, CLI."""

from icml26.core.paper import Claim, Metrics, Paper, Profile, Verdict, resolve

__all__ = ["Claim", "Metrics", "Paper", "Profile", "Verdict", "resolve"]
