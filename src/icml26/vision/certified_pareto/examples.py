"""The public-API examples of certified-pareto for the common bad-input test (``Paper.examples``).

Kept out of the modules a run imports, so that editing the examples never invalidates stored
results. ``nat_gain_at_matched_cert`` with an empty front returns NaN by definition (no front point
reaches the default's certified accuracy), so "empty" is not a bad input for ``front``.
"""

from __future__ import annotations


def EXAMPLES() -> list:
    from icml26.vision.certified_pareto.experiment import EXAMPLES as calls
    from icml26.vision.certified_pareto.method import nat_gain_at_matched_cert

    out = []
    for call in calls():
        if call[0] is nat_gain_at_matched_cert:
            call = (call[0], call[1], {"front": {"empty"}})
        out.append(call)
    return out
