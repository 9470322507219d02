"""PSG-Nav's pass rule, the per-episode paired bootstrap pooled over seeds, lives in the core checks
(:func:`icml26.core.checks.paired_bootstrap`); this name is kept so the package's imports stay stable."""

from icml26.core.checks import PairedBootstrap, paired_bootstrap

__all__ = ["PairedBootstrap", "paired_bootstrap"]
