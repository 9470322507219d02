"""icml26: reference implementations and small-scale reproductions of ICML 2026 papers."""

__version__ = "0.1.0"
