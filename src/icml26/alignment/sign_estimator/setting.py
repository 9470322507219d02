"""The simulated world of the sign-estimator reproduction: heterogeneous pairwise preferences.

The generators are shared by the alignment cluster and live in :mod:`icml26.alignment._preferences`;
this module names the ones this paper uses: :func:`sample_preferences` (comparisons labelled
by random users with linear random-coefficient utilities and logit noise, optionally on a
user panel with ids) and :func:`preset` (the populations ``"two"``, ``"two-asym"``, ``"gauss"``
and ``"gauss"`` embedded in ``d`` dimensions for the dimension sweep).
"""

from icml26.alignment._preferences import BETA_BAR_5, PreferenceData, preset, sample_preferences

__all__ = ["BETA_BAR_5", "PreferenceData", "preset", "sample_preferences"]
