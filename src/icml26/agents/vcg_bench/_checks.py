"""Claim-only code of the VCG-Bench reproduction (never run by ``run``, so editing it re-runs nothing).

Added by the review after the full run. The pre-registered gate of ``code-beats-pixel-editing``
("each arm beats copy-the-input on validation") was implemented on render MSE only. The pixel
arm passes it (11-39% below copy) while meeting *fewer* of the instruction's requirements than
returning the input unchanged (0.47 vs 0.61, 5/5 seeds) and completing no edit in full on any
test item: it learned to approach the identity and tint, not to edit. A comparison against a
control that does worse than doing nothing says nothing about pixel editing, so the claim is also
gated on each arm beating copy-the-input on the claim's own score (requirements met by the one
colour-component parser). Only test-set requirement rates are stored (validation has MSE only),
so this gate reads the test split; it selects nothing, it only checks the premise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from icml26.core import checks as C


@dataclass(frozen=True)
class BeatsCopy(C.Gate):
    """A gate on a difference: ``key - other >= at_least`` (strictly above when ``at_least`` is 0)
    in ``frac`` of seeds."""

    other: str = "copy/req_rate"

    def evaluate(self, ms):
        import numpy as np

        d = np.array([float(m[self.key]) - float(m[self.other]) for m in ms], dtype=float)
        bound = float(self.at_least if self.at_least is not None else 0.0)
        ok = np.isfinite(d) & ((d > 0) if bound == 0 else (d >= bound))
        passed = float(ok.mean()) >= self.frac
        return passed, (f"gate '{self.why}' ({self.key} - {self.other} {'> 0' if bound == 0 else f'>= {bound:g}'} "
                        f"in >= {self.frac:.0%} of seeds): met in {int(ok.sum())}/{len(d)} seeds (differences "
                        + ", ".join(f"{x:+.3f}" for x in d) + ")")


CODE_EDITS = BeatsCopy("code/req_rate", at_least=0.0, frac=0.8,
                       why=("the code arm meets more requirements than copy-the-input (added after the full run by "
                            "review)"))
PIXEL_EDITS = BeatsCopy("pixel/req_rate", at_least=0.0, frac=0.8,
                        why=("the pixel arm meets more requirements than copy-the-input, i.e. it learned to edit "
                             "rather than to approach the identity (added after the full run by review)"))

REVIEW_NOTE = ("rule revised after the full run by review: the pre-registered gate 'each arm beats copy-the-input' "
               "was implemented on render MSE only, which the pixel arm passes while meeting fewer requirements "
               "than copying the input; the gate now also requires each arm to beat copy-the-input on requirements "
               "met (test split, the only one with requirement rates stored). The comparison itself is unchanged. "
               "Note on the SSIM half: copy-the-input also scores 1.0 on SSIM outside the edit, and the code arm's "
               "1.0 follows from the patch format once its pointer is right (a fillColor patch cannot touch pixels "
               "outside its cell's box). ")


def _editing():
    from icml26.agents.vcg_bench import _GATES

    return C.all_of(
        C.beats_in_seeds("code/req_rate", "pixel/req_rate", frac=0.8, label="code arm requirements met",
                         control_label="pixel arm"),
        C.beats_in_seeds("code/ssim_outside", "pixel/ssim_outside", frac=0.8,
                         label="code arm SSIM outside the edit", control_label="pixel arm"),
        C.threshold("paired/req_rate_ci_lo", at_least=1e-4, frac=0.8,
                    label="lower end of the paired bootstrap CI of the requirement-rate gap"),
        C.threshold("paired/ssim_outside_ci_lo", at_least=1e-4, frac=0.8,
                    label="lower end of the paired bootstrap CI of the SSIM gap"),
    ).gated(*_GATES, CODE_EDITS, PIXEL_EDITS)


def check_editing(ms):
    v = _editing()(ms)
    return replace(v, evidence=REVIEW_NOTE + v.evidence)


def contradict_editing(ms):
    return _editing().contradict(ms)


def control_editing(ms):
    return _editing().on_control(ms)
