"""ESE: Once-for-All: Scalable Simultaneous Forecasting via Equilibrium State Estimation.

arXiv:2606.13285 (ICML 2026). Instead of fitting one forecaster per system, ESE rewrites
n interacting systems as shares of their total, estimates an equilibrium share vector from
the systems' attributes (least-squares MLE of attribute influences, then a damped
refinement against recent history that stops once shares and equilibrium are
cointegrated), and forecasts every system in one pass as (forecast of the total) x
(equilibrium shares). ``setting`` holds the synthetic systems and per-series models,
``method`` the estimator and predictor, ``experiment`` the run and the figure. Any single-series model can forecast the total, so ESE wraps
existing predictors and costs one aggregate forecast plus O(n m) arithmetic per step.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"m": 4, "window": 50, "lam": 0.5, "max_iter": 20, "ar_q": 2, "kappas": [0.2, 0.8],
           "sigma_attr": 0.1, "sigma_share": 0.02, "hidden": 1, "hidden_weight": 0.4}
#: The "moving" regime (fifth session, issue 15): AR(1) attributes (phi 0.9, stationary sd 1) with a
#: larger observed influence (spread 0.9, hidden weight 0.2), chosen on dev seeds 100-105 by the premise
#: metric alone (see the substitution text); overrides of the generator's keyword arguments.
_MOVING = {"attr_phi": 0.9, "sigma_attr": 0.4359, "spread": 0.9, "hidden_weight": 0.2}
#: premise gate of the moving regime's claims: the true equilibrium's within-window variance is at least
#: PREMISE_K x the one-step share-noise variance in every (kappa, n) cell of every seed
PREMISE_K = 1.0
_PREMISE = C.gate("moving/premise/eq_var_ratio_min", at_least=PREMISE_K, frac=1.0,
                  why="the attributes move the equilibrium within a window (its within-window variance >= "
                      "the one-step share-noise variance in every cell)")


# the claims' checks; p = "moving/" reads the same metrics on the moving regime
def _check_as_accurate(p: str = ""):
    return C.all_of(
        C.threshold(p + "frac/ese_within_5pct", at_least=1.0, frac=0.8, partly_frac=0.5,
                    label="share of (kappa, n) cells with RMSE(ESE) <= 1.05 x best per-system"),
        C.beats(p + "rmse/ese", p + "rmse/naive", better="lower", at="each", need=2 / 3,
                label="ESE", control_label="last-share allocation"))


def _check_plug_in(p: str = ""):
    return C.all_of(
        C.threshold(p + "frac/plugin_no_worse", at_least=2 / 3, frac=0.8, partly_frac=0.5,
                    label="share of (kappa, n, base) cells with RMSE(base+ESE) <= RMSE(base)"),
        C.beats(p + "rmse/plugin_ese", p + "rmse/plugin_naive", better="lower", at="each", need=2 / 3,
                label="base+ESE", control_label="base + last share"))


def _check_as_accurate_dev(p: str = ""):
    return C.all_of(
        C.threshold(p + "frac/ese_dev_within_5pct", at_least=1.0, frac=0.8, partly_frac=0.5,
                    label="share of (kappa, n) cells with RMSE(ESE, deviation) <= 1.05 x best per-system"),
        C.beats(p + "rmse/ese_dev", p + "rmse/naive", better="lower", at="each", need=2 / 3,
                label="ESE (deviation)", control_label="last-share allocation"),
        C.beats(p + "rmse/ese_dev", p + "rmse/meanrev", better="lower", at="each", need=2 / 3,
                label="ESE (deviation)", control_label="reversion to the window's mean share"),
        partly="none")


def _check_plug_in_dev(p: str = ""):
    return C.all_of(
        C.threshold(p + "frac/plugin_dev_no_worse", at_least=2 / 3, frac=0.8, partly_frac=0.5,
                    label="share of (kappa, n, base) cells with RMSE(base+ESE deviation) <= RMSE(base)"),
        C.beats(p + "rmse/plugin_ese_dev", p + "rmse/plugin_naive", better="lower", at="each", need=2 / 3,
                label="base+ESE (deviation)", control_label="base + last share"),
        C.beats(p + "rmse/plugin_ese_dev", p + "rmse/plugin_meanrev", better="lower", at="each", need=2 / 3,
                label="base+ESE (deviation)", control_label="base + reversion to the mean share"),
        partly="none")


def _check_attributes(p: str = ""):
    return C.all_of(
        C.threshold(p + "capped/noattr_mean", at_least=0.9, label="share of origins hitting the cap "
                    "without attributes"),
        C.beats(p + "converged/ese_mean", p + "converged/noattr_mean", better="higher",
                label="converged with attributes", control_label="converged without"))


#: The refinement claims (sixth session, issue 15): ESE against ES0, the same pipeline with the refinement
#: switched off, on fresh draws (experiment.REFINE_STREAM). Reproduced if the geometric mean over cells of
#: ESE's RMSE is below ES0's by more than REFINE_MARGIN (relative) with a one-sided Wilcoxon p < 0.05 over
#: seeds, under both readings of the predictor; partly if one reading passes, or if ESE is significantly
#: lower but not by the margin.
REFINE_MARGIN = 0.01
#: gate: the refinement took a step at >= REFINE_ITERATED of origins (mean over the regime's cells) in every
#: seed, so that ESE and ES0 differ at all (chosen on dev seeds 100-105, where the moving regime's value was
#: 0.18-0.56 and the slow regime's 0.79-1.00)
REFINE_ITERATED = 0.1


def _refine_runs(p: str = "") -> C.Gate:
    return C.gate(p + "refine/iterated_mean", at_least=REFINE_ITERATED, frac=1.0,
                  why=f"the refinement took a step at >= {REFINE_ITERATED:.0%} of origins (mean over cells) in "
                      "every seed of the fresh draws")


_REFINE_PREMISE = C.gate("moving/refine/premise_min", at_least=PREMISE_K, frac=1.0,
                         why="the attributes move the equilibrium within a window in every cell of the fresh "
                             "draws (within-window variance >= the one-step share-noise variance)")


def _check_refinement(p: str = ""):
    return C.all_of(
        C.beats(p + "refine/gm_ese", p + "refine/gm_es0", better="lower", margin=REFINE_MARGIN, rel_margin=True,
                test="wilcoxon", label="ESE (allocation; geometric mean RMSE over cells)",
                control_label="ES0 (allocation)"),
        C.beats(p + "refine/gm_ese_dev", p + "refine/gm_es0_dev", better="lower", margin=REFINE_MARGIN,
                rel_margin=True, test="wilcoxon", label="ESE (deviation; geometric mean RMSE over cells)",
                control_label="ES0 (deviation)"))


PAPER = Paper(
    slug="ese",
    title="Once-for-All: Scalable Simultaneous Forecasting via Equilibrium State Estimation",
    source="arXiv:2606.13285",
    cluster="decision",
    feasibility="A",
    substitution=(
        "Keeps ESE's estimator and predictor (proportions of the total, least-squares MLE of the "
        "attribute influences on range-normalised attributes, damped refinement lambda = 0.5 with a "
        "cointegration stopping rule, forecast = total forecast x equilibrium shares), the standalone "
        "(AR on the total) and plug-in (base model on the total) uses, a 90:10 split and one-step "
        "forecasts. Replaces the FX and COVID-19 datasets by synthetic systems that follow ESE's model "
        "(equilibrium share 1/n + A'psi/m linear in the normalised attributes, shares reverting toward it "
        "at kappa = 0.2 or 0.8 with 2% share noise, random-walk attributes, AR(1) log total), with one of "
        "the five attributes static and hidden from the forecaster (40% of the influence weight; the "
        "paper's missing-attribute condition): without it the attribute-only ES0 already passes the "
        "cointegration test and the refinement never runs, with it ES0 misses a per-system level and the "
        "refinement took at least one step at 87% of the full run's origins. The deep per-system "
        "predictors by per-system ARIMA(1,1,0) (statsmodels) and ridge on 20 lags (scikit-learn). "
        "The correction vector of Algorithm 1 is not given by the sources we could read; our default "
        "is a level correction against the whole input window (L = mean of gamma_tau - ES_tau), and the "
        "other reading (L = last share - ES, which collapses to the last share) is run beside it. The "
        "cointegration aggregation (Dickey-Fuller on share minus implied equilibrium path, median "
        "p-value) is our stand-in. The predictor is run under two readings: allocation by the equilibrium "
        "(MS_hat x ES, the card's) and the deviation reading (the current share moved towards ES at the "
        "reversion rate fitted on the window, the error-correction forecast; claims *-deviation), "
        "with reversion to the window's mean share as the control that has no equilibrium. Speed (10-70x) and linear scaling are timed on the first seeds of the "
        "full profile with the shared timing helper (process CPU time, per-system ARIMA vs ARIMA + ESE at "
        "n = 10, 40, 160 systems, T = 300) and at larger n in benchmarks/ese.py; the paper's hardware and "
        "deep predictors are not ours, so only the ratio on our CPU is checked. "
        "Fifth session (issue 15), before its re-run: the premise, measured, and a second regime. On dev "
        "seeds 100-103 the generator above ('slow') moves the true equilibrium within a 50-point window by "
        "0.03-0.19 of the one-step share-noise variance (sigma_share gamma)^2 (premise/eq_var_ratio, every "
        "(kappa, n) cell), and the window's mean share lies 0.3-1.0 noise sd from the equilibrium that drives "
        "the next share (premise/rmse_meanshare_vs_eq): the observed attributes barely move it, so the "
        "verdicts above say little about ESE. A 'moving' regime is added beside it in the same run (the slow "
        "one is unchanged and still decides the claims without a suffix): the observed attributes are AR(1) "
        "around their starting values (phi = 0.9, step sd 0.436, stationary sd 1) instead of random walks, the "
        "equilibrium's spread is 0.9 instead of 0.6 and the hidden static attribute carries 20% of the "
        "influence weight instead of 40%; the model is ESE's as before (equilibrium linear in the "
        "range-normalised attributes, shares reverting at kappa = 0.2 or 0.8 with 2% noise); cells n = 10, 40 "
        "(n = 160 left out to keep the profile near 150 s CPU). Chosen on dev seeds 100-105 by the premise "
        "metric alone, from the generator's draws, before any forecast on this regime was run: the premise is "
        "met when the equilibrium's within-window variance is >= k = 1 x the share-noise variance (k = 4 was "
        "tried first, but no setting of the grid reached it); we took the slowest attributes and the smallest "
        "change of the influence weights in the grid phi in {0.98, 0.95, 0.9, 0.8} (stationary sd 1) x spread "
        "in {0.6, 0.9} x hidden weight in {0.4, 0.2} whose smallest dev-cell ratio was >= 2k (a margin for the "
        "profile seeds): smallest 2.03, median 3.49 (with hidden weight 0.4 the best was 1.38). The claims "
        "*-moving apply the unchanged checks to this regime's cells, decided only if the premise holds in "
        "every cell of every seed (not-checkable otherwise). The code was then smoke-tested on the quick "
        "profile's dev seeds 100-101 (two seeds, which cannot decide a paired test); nothing was changed after."
        " Measured after the fifth session's full run (checks unchanged; 6 seeds): the slow regime's premise "
        "ratio is 0.04-0.17 by cell and seed and its window mean lies 0.33-0.89 noise sd from the true "
        "equilibrium (its draws are unchanged, and so are its verdicts); the moving regime's ratio is 2.0-5.8"
        " (smallest per seed 2.00-2.73, so the gate is met in 6/6) and its window mean lies 1.7-3.1 noise sd "
        "from the equilibrium, of which the lag of the window's mean equilibrium is most. There ESE's "
        "deviation reading beats both the last share and reversion to the window's mean share, by 0.5-5.4% "
        "RMSE, while the allocation reading stays 1.2-1.9x the best per-system model. Cost: 216.9 s CPU summed "
        "over the 6 jobs, measured under a load of about 4.6 on 2 shared cores (the previous stored run: "
        "about 90 s of job time); on dev seed 100 under the same load the moving regime's cells took 5.2 s CPU against "
        "20.1 s for the slow regime's, which puts the profile near 150 s CPU plus timing on free cores; the "
        "speed-up ratios (35-47x at n = 160, before 24-39x) were also measured under that oversubscription. "
        "Review after the run (text only): the premise gate is a sanity check of the generator rather than a test "
        "(chosen with a 2x margin, it cannot fail on this generator: per-seed minima 2.00-2.73); measured against "
        "the one-step noise, a ratio of 2 is modest (at kappa = 0.2 the shares' own stationary wander is about "
        "2.8 x the one-step noise variance). The regime departs from the card's 'slow random walks' on purpose: it "
        "is where the paper's mechanism has room, not a stand-in for the paper's FX or COVID-19 attributes, which "
        "are plausibly slow. "
        "Sixth session (issue 15), before its re-run: ES0 as a pre-registered control of the refinement. The "
        "full profile computes a second, fresh draw of every cell (stream tags 2 and 3, see "
        "experiment.REFINE_STREAM) with ESE and ES0 only, under both predictor readings, and the new claims "
        "refinement-beats-es0 (slow) and refinement-beats-es0-moving (moving, n = 10, 40, 160) are decided on "
        "those draws alone, since the stored draws of seeds 0-5 had shown ES0's numbers. The stored draws and "
        "every earlier metric are unchanged (same seeds 0-5, same rng keys), and the earlier claims keep their "
        "checks and keep deciding on them. ES0 is not added to their checks: their statements compare ESE's "
        "equilibrium with rules that have none (last share, window-mean reversion), a comparison ES0 belongs to "
        "the ESE side of, and a new part decided on rows already seen would be post hoc; the refinement's own "
        "share is what the new claims decide. Adding n = 160 to the moving regime's stored claims (step 3 of "
        "the brief) was not done, to leave their checks unchanged; n = 160 enters the moving regime only in "
        "the fresh-draw block. Cost of the block on dev seed 100: about 4 s CPU per seed (both regimes), "
        "against about 40 s for the rest. Measured after the sixth session's full run: every earlier metric of "
        "seeds 0-5 is bit-identical to the previous stored run (timing/ aside), so every earlier verdict stands "
        "on the same numbers; refinement-beats-es0 is reproduced (allocation 20-32% and deviation 1.07-1.31% "
        "below ES0 per seed) and refinement-beats-es0-moving partly (allocation 4-11% below ES0, deviation "
        "0.21-0.80%, below the 1% margin; at kappa = 0.8, n >= 40 the refinement almost never runs). Cost: "
        "312.6 s CPU summed over the 6 jobs (slowest 58.4 s), under a load of about 3 on 2 shared cores."
        " Review after the sixth session's run (text only; rows and verdicts unchanged): the 'about 4 s CPU per "
        "seed' above for the fresh-draw block is wrong: the full run went from 216.9 s to 312.6 s CPU summed over "
        "the jobs, about 16 s more per seed (the moving regime's n = 160 cells are the likely cause; both runs "
        "measured under load). The quick profile's smoke test on dev seeds 100-101 was run after the "
        "pre-registration was written and changed nothing, but it was first mentioned in the text written after "
        "the full run. The refinement claims' 1% margin was set with the stored (seen) draws of seeds 0-5 in "
        "view, and on the registered statistic those draws already separate the regimes around it (see the "
        "claims' texts); the fresh draws guard against reusing rows, not against that preview."
    ),
    examples="icml26.decision.ese.setting:examples",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            "n_systems": [10, 30], "T": 250, "timing_seeds": 0, "timing_ns": [10, 40], "timing_T": 200,
            "timing_repeats": 1, "moving": {"n_systems": [10], **_MOVING}, "refine": True,
            "refine_moving_ns": [10], **_COMMON}),
        "full": Profile("full", seeds=6, timeout_s=600, params={
            "n_systems": [10, 40, 160], "T": 500, "timing_seeds": 3, "timing_ns": [10, 40, 160],
            "timing_T": 300, "timing_repeats": 1, "moving": {"n_systems": [10, 40], **_MOVING},
            "refine": True, "refine_moving_ns": [10, 40, 160], **_COMMON}),
    },
    claims=(
        Claim(
            id="as-accurate",
            kind="headline",
            statement=("ESE alone is at least as accurate as per-system predictors, and its equilibrium "
                       "allocation is what makes it so (it beats allocating by the last observed share). "
                       "Measured after the full run (generator with a hidden static attribute, checks unchanged): "
                       "the refinement took at least one step at 87% of origins (71-100% per seed, 0.7-2.1 steps "
                       "per origin on average by cell), and ESE's RMSE is below the attribute-only ES0's in 35 of "
                       "36 (cell, seed) pairs (0.073-0.083 vs 0.088-0.118 by cell), but 1.21-1.36x the best "
                       "per-system model and above the last-share control in every cell: the damped refinement "
                       "stops as soon as the test passes and leaves part of the level gap. With the previous "
                       "generator the refinement never iterated (ESE = ES0) and this read partly."
                       " Fifth session (issue 15), before its re-run: check unchanged, decided on the slow regime, whose "
                       "premise metric (equilibrium's within-window variance / share-noise variance) is 0.03-0.19 on dev "
                       "seeds; the same check on the moving regime is as-accurate-moving."
                       " Fifth session's full run: unchanged on the slow regime (same draws, same numbers as above); on the "
                       "moving regime see as-accurate-moving: not-reproduced."),
            paper_value=("synthetic 10 systems: ESE RMSE 0.248 vs Informer 0.244; FX 16 currencies: "
                         "6.010 vs DLinear 5.878; COVID-19 320 regions: 4.83 vs PatchTST 5.11"),
            control="the same predictor (AR total) allocated by the last observed share",
            check=_check_as_accurate(),
            reference=1.0,
        ),
        Claim(
            id="plug-in",
            kind="headline",
            statement=("Wrapping a base predictor with ESE (base model forecasts only the total) "
                       "keeps or improves its accuracy, and the equilibrium is what does it. (Measured after the "
                       "full run, generator with a hidden static attribute, checks unchanged: base+ESE is worse "
                       "than the base model and than base + last share in all 12 (kappa, n, base) cells; with the "
                       "previous generator, where the refinement never iterated, this read partly.)"
                       " Fifth session (issue 15), before its re-run: check unchanged, decided on the slow regime, whose "
                       "premise metric (equilibrium's within-window variance / share-noise variance) is 0.03-0.19 on dev "
                       "seeds; the same check on the moving regime is plug-in-moving."
                       " Fifth session's full run: unchanged on the slow regime (same draws, same numbers as above); on the "
                       "moving regime see plug-in-moving: not-reproduced."),
            paper_value=("Informer 0.244 -> Informer+ESE 0.241 (synthetic); DLinear 5.878 -> "
                         "DLinear+ESE 5.461 (FX); FiLM+ESE 4.36 on COVID-19 320 regions"),
            control="the same base model on the total, allocated by the last observed share",
            check=_check_plug_in(),
            reference=1.0,
        ),
        Claim(
            id="as-accurate-deviation",
            kind="headline",
            statement=("The deviation reading of the predictor (pre-registered in issue 15's second pass, before "
                       "its full run): ESE's forecast moves each system's current share towards the estimated "
                       "equilibrium at the reversion rate fitted on the window (the error-correction forecast of "
                       "a cointegrated system; the sources describe forecasts 'based on the difference between "
                       "the current state and the estimated equilibrium'). It is at least as accurate as "
                       "per-system predictors, and the equilibrium is what makes it so: it beats the last share "
                       "and the same error-correction forecast towards the window's mean share (reversion with "
                       "no attributes and no equilibrium estimate). History: this reading was added after the "
                       "allocation reading (as-accurate) came back not-reproduced on these profile seeds; dev seeds "
                       "100-103 (not profile seeds) were looked at before the checks were written: there ESE "
                       "(deviation) beat the last share in every cell and was within 5% of the best per-system "
                       "model in 23 of 24 cells, but the mean-share control was as good or better, most of all at "
                       "kappa = 0.8. All parts must pass (partly='none'): a review before the full run found that "
                       "the last share alone is within 5% of the best per-system model in most cells, so the "
                       "threshold part alone could have read partly for the control itself. Measured after the "
                       "full run (checks unchanged): within 5% of the best per-system model in every cell of every "
                       "seed, and below the last share in every cell (p = 0.016-0.031 per cell), but no better "
                       "than reversion to the window's mean share: a tie at kappa = 0.2 (0.0598-0.0627 vs "
                       "0.0598-0.0626) and 4-5% worse at kappa = 0.8 (0.0596-0.0635 vs 0.0567-0.0608). The "
                       "fitted reversion rate tells why: towards the window's mean share it is 0.76-0.79 at a "
                       "true 0.8, towards the estimated equilibrium 0.29-0.31, so the attribute-based "
                       "equilibrium is a noisier target than the window mean on these systems."
                       " Fifth session (issue 15), before its re-run: check unchanged, decided on the slow regime, whose "
                       "premise metric (equilibrium's within-window variance / share-noise variance) is 0.03-0.19 on dev "
                       "seeds; the same check on the moving regime is as-accurate-deviation-moving."
                       " Fifth session's full run: unchanged on the slow regime (same draws, same numbers as above); on the "
                       "moving regime see as-accurate-deviation-moving: reproduced."),
            paper_value=("synthetic 10 systems: ESE RMSE 0.248 vs Informer 0.244; FX 16 currencies: "
                         "6.010 vs DLinear 5.878; COVID-19 320 regions: 4.83 vs PatchTST 5.11"),
            control=("the same error-correction forecast towards the window's mean share (mean reversion without "
                     "an equilibrium), and the last observed share, each with the AR forecast of the total"),
            check=_check_as_accurate_dev(),
            reference=1.0,
        ),
        Claim(
            id="plug-in-deviation",
            kind="headline",
            statement=("The deviation reading, wrapped around a base predictor that forecasts only the total, keeps "
                       "or improves the base model's accuracy, and the equilibrium is what does it (pre-registered "
                       "in issue 15's second pass, before its full run, after the allocation reading's plug-in "
                       "claim came back not-reproduced; dev seeds 100-103 looked at first: there base + ESE "
                       "(deviation) beat base + last share in every cell, but base + reversion to the mean share "
                       "was as good or better; all parts must pass, partly='none'). Measured after the full run "
                       "(checks unchanged): base + ESE (deviation) is no worse than the base model in 69% of "
                       "(kappa, n, base) cells on average (50-75% by seed) and below base + last share in every "
                       "cell, but no better than base + reversion to the mean share (a tie at kappa = 0.2, 3-5% "
                       "worse at kappa = 0.8)."
                       " Fifth session (issue 15), before its re-run: check unchanged, decided on the slow regime, whose "
                       "premise metric (equilibrium's within-window variance / share-noise variance) is 0.03-0.19 on dev "
                       "seeds; the same check on the moving regime is plug-in-deviation-moving."
                       " Fifth session's full run: unchanged on the slow regime (same draws, same numbers as above); on the "
                       "moving regime see plug-in-deviation-moving: reproduced."),
            paper_value=("Informer 0.244 -> Informer+ESE 0.241 (synthetic); DLinear 5.878 -> "
                         "DLinear+ESE 5.461 (FX); FiLM+ESE 4.36 on COVID-19 320 regions"),
            control=("the same base model on the total, allocated by the last share and by reversion to the "
                     "window's mean share"),
            check=_check_plug_in_dev(),
            reference=1.0,
        ),
        Claim(
            id="attributes-essential",
            kind="headline",
            statement=("Without attribute information (psi = 0) the equilibrium refinement does not converge. "
                       "(Measured after the full run, generator with a hidden static attribute, checks "
                       "unchanged: with attributes the refinement iterates at 87% of origins and converges at "
                       "99.6%; without them (psi = 0) it converges before the cap at every origin, after 1.0-2.6 "
                       "steps on average by cell, since the window mean of the shares passes the no-constant "
                       "Dickey-Fuller test: the observed attributes move the equilibrium little within a "
                       "50-point window relative to the share noise. The previous generator gave the same "
                       "verdict with no iteration at all.)"
                       " Fifth session (issue 15), before its re-run: check unchanged, decided on the slow regime, whose "
                       "premise metric (equilibrium's within-window variance / share-noise variance) is 0.03-0.19 on dev "
                       "seeds; the same check on the moving regime is attributes-essential-moving."
                       " Fifth session's full run: unchanged on the slow regime (same draws, same numbers as above); on the "
                       "moving regime see attributes-essential-moving: partly."),
            paper_value="reported qualitatively: with psi = 0 the iteration does not converge",
            control="the same refinement with the attributes",
            check=_check_attributes(),
        ),
        Claim(
            id="as-accurate-moving",
            kind="headline",
            statement=("as-accurate on the moving regime (Fifth session (issue 15), before its re-run: pre-registered): "
                       "where the observed attributes move the equilibrium within a window, ESE alone (allocation "
                       "by the equilibrium) is within 5% of the best per-system predictor and beats allocating by "
                       "the last share. Same check as as-accurate on the moving regime's cells (kappa = 0.2, 0.8; "
                       "n = 10, 40), decided only if the premise gate holds in every cell of every seed."
                       " Measured after the full run (checks unchanged; premise met in 6/6 seeds, smallest ratio per seed "
                       "2.00-2.73): not-reproduced. ESE (allocation) is 1.16-1.86x the best per-system model (cell means "
                       "0.085-0.098 vs 0.058-0.069) and above the last share in every cell (0.058-0.070): allocating the "
                       "total by the equilibrium throws away the shares' persistent deviation from it. The refinement "
                       "iterated at 26-100% of origins at kappa = 0.2 but at 0-52% at kappa = 0.8 (never at n = 40, where "
                       "ESE = ES0)."),
            paper_value=("synthetic 10 systems: ESE RMSE 0.248 vs Informer 0.244; FX 16 currencies: "
                         "6.010 vs DLinear 5.878; COVID-19 320 regions: 4.83 vs PatchTST 5.11"),
            control="the same predictor (AR total) allocated by the last observed share (moving regime)",
            check=_check_as_accurate("moving/").gated(_PREMISE),
            reference=1.0,
        ),
        Claim(
            id="plug-in-moving",
            kind="headline",
            statement=("plug-in on the moving regime (Fifth session (issue 15), before its re-run: pre-registered): base + "
                       "ESE "
                       "(allocation) is no worse than the base model per system and beats base + last share; same "
                       "check as plug-in, gated on the premise."
                       " Measured after the full run (checks unchanged; premise met in 6/6 seeds): not-reproduced: base + "
                       "ESE is worse than the base model and than base + last share in all 8 (kappa, n, base) cells of every"
                       " seed (cell means 0.085-0.104 vs 0.058-0.077)."),
            paper_value=("Informer 0.244 -> Informer+ESE 0.241 (synthetic); DLinear 5.878 -> "
                         "DLinear+ESE 5.461 (FX); FiLM+ESE 4.36 on COVID-19 320 regions"),
            control="the same base model on the total, allocated by the last observed share (moving regime)",
            check=_check_plug_in("moving/").gated(_PREMISE),
            reference=1.0,
        ),
        Claim(
            id="as-accurate-deviation-moving",
            kind="headline",
            statement=("as-accurate-deviation on the moving regime (Fifth session (issue 15), before its re-run: "
                       "pre-registered): the error-correction forecast towards ESE's equilibrium is within 5% of the best "
                       "per-system model and beats both the last share and the same forecast towards the window's "
                       "mean share (reversion without attributes). This is the comparison the regime was built "
                       "for: when the equilibrium moves within the window, its mean share lags the equilibrium "
                       "that drives the next share. Same check as as-accurate-deviation (all parts must pass), "
                       "gated on the premise."
                       " Measured after the full run (checks unchanged; premise met in 6/6 seeds, smallest ratio per seed "
                       "2.00-2.73): reproduced, narrowly. Within 5% of the best per-system model in every cell of every seed"
                       " (0.95-1.04x), below the last share (0.6-5.4% lower by seed and cell) and below reversion to the "
                       "window's mean share (0.5-3.7% lower; cell means 0.0628 vs 0.0635, 0.0573 vs 0.0580 at kappa = 0.2, n"
                       " = 10, 40; 0.0672 vs 0.0691, 0.0665 vs 0.0682 at kappa = 0.8), in all 4 cells with every seed the "
                       "same sign (p = 0.016, the smallest 6 seeds allow). On the slow regime the same check is a tie at "
                       "kappa = 0.2 and 3-7% worse at 0.8. Caveats: the margins are small next to the total's forecast "
                       "error, which every allocator shares; the reversion rate fitted towards ESE's equilibrium is "
                       "0.13-0.34 (true 0.2 or 0.8), and ESE's equilibrium is closer to the true one than the last share and"
                       " the window mean at kappa = 0.2 (RMSE 0.0031-0.0040 vs 0.0043-0.0050 and 0.0042-0.0063 at n = 10) "
                       "but not at kappa = 0.8 (0.0036-0.0052 vs 0.0028-0.0032 and 0.0036-0.0055), where the gain comes from"
                       " the direction of the correction more than from its target. Review after the run (text only, no check"
                       " changed): the gain is the attribute-only equilibrium's (ES0), not Algorithm 1's refinement. The"
                       " same forecast towards ES0, computed in this run (rmse/es0_dev) but not a control of the"
                       " pre-registered check, gives cell means 0.06307, 0.05751, 0.06744, 0.0665 against ESE's 0.06277,"
                       " 0.05727, 0.06718, 0.0665 (ESE lower in 6/6, 6/6, 3/6 seeds and identical at kappa = 0.8, n = 40,"
                       " where the refinement never iterates): the refinement adds 0-1.4% (mean 0.4%), and ES0 alone beats"
                       " mean-share reversion in 23 of 24 seed-cells, so 'the equilibrium is what makes it so' holds for the"
                       " least-squares equilibrium of the attributes, not for the refinement. The verdict holds only where"
                       " the attributes move the equilibrium within a window (AR(1) attributes that reshuffle the systems'"
                       " order within about 10 steps, with a smaller hidden level than the slow regime's); on the card-like"
                       " slow regime the same check is not reproduced. A read-only probe in review (post hoc, deciding"
                       " nothing) found ESE's deviation forecast also 1.1-2.5% below mean-share reversion over 5-20-point"
                       " windows and 1.3-2.9% below a pooled AR(1) on share differences (24/24 seed-cells), and capturing"
                       " about 45% (kappa = 0.2) and 18% (kappa = 0.8) of the gain an oracle reversion to the true"
                       " equilibrium at the true rate has over mean-share reversion. A refinement-vs-ES0 claim is left for a"
                       " future pre-registration: these rows have been seen and cannot decide it. Sixth session (issue 15), before"
                       " its re-run: check unchanged, still decided on seeds 0-5 (same draws); the refinement-vs-ES0"
                       " question is pre-registered as refinement-beats-es0-moving, decided on fresh draws. Its full run: the"
                       " refinement lowers the deviation forecast's RMSE by 0.21-0.80% per seed (mean 0.42%; below its 1%"
                       " margin), so most of this claim's margin over mean-share reversion is ES0's."),
            paper_value=("synthetic 10 systems: ESE RMSE 0.248 vs Informer 0.244; FX 16 currencies: "
                         "6.010 vs DLinear 5.878; COVID-19 320 regions: 4.83 vs PatchTST 5.11"),
            control=("the same error-correction forecast towards the window's mean share, and the last observed "
                     "share, each with the AR forecast of the total (moving regime)"),
            check=_check_as_accurate_dev("moving/").gated(_PREMISE),
            reference=1.0,
        ),
        Claim(
            id="plug-in-deviation-moving",
            kind="headline",
            statement=("plug-in-deviation on the moving regime (Fifth session (issue 15), before its re-run: pre-"
                       "registered): "
                       "base + ESE (deviation) is no worse than the base model per system and beats base + last "
                       "share and base + reversion to the window's mean share; same check, gated on the premise."
                       " Measured after the full run (checks unchanged; premise met in 6/6 seeds): reproduced: base + ESE "
                       "(deviation) is no worse than the base model in 88-100% of (kappa, n, base) cells per seed (mean 94%)"
                       " and below base + last share and base + reversion to the mean share in all 8 cells (0.4-3.8% below "
                       "the latter; p = 0.016 each). Review after the run (text only): as for as-accurate-deviation-moving,"
                       " the gain rests on the attribute-only equilibrium ES0 rather than on the refinement (the plug-in"
                       " forecast towards ES0 is not computed in this run), and it holds on the moving regime only. Sixth session"
                       " (issue 15), before its re-run: check unchanged, still decided on seeds 0-5 (same draws); the"
                       " refinement's share is decided by refinement-beats-es0-moving on fresh draws (with the AR"
                       " total; the plug-in multiplier is the same for ESE and ES0). Its full run: 0.21-0.80% per seed under"
                       " the deviation reading, below the 1% margin."),
            paper_value=("Informer 0.244 -> Informer+ESE 0.241 (synthetic); DLinear 5.878 -> "
                         "DLinear+ESE 5.461 (FX); FiLM+ESE 4.36 on COVID-19 320 regions"),
            control=("the same base model on the total, allocated by the last share and by reversion to the "
                     "window's mean share (moving regime)"),
            check=_check_plug_in_dev("moving/").gated(_PREMISE),
            reference=1.0,
        ),
        Claim(
            id="attributes-essential-moving",
            kind="headline",
            statement=("attributes-essential on the moving regime (Fifth session (issue 15), before its re-run: "
                       "pre-registered): where the attributes move the equilibrium within a window, the refinement without "
                       "attribute information (psi = 0) does not converge (hits the cap at >= 90% of origins) and "
                       "converges less often than with the attributes; same check, gated on the premise."
                       " Measured after the full run (checks unchanged; premise met in 6/6 seeds): partly, from the weaker "
                       "part only: the cap part fails. Without "
                       "attributes the refinement hits the cap of 20 steps at 3.5-25.5% of origins per seed (mean 16%; the "
                       "check needs >= 90%) and converges less often than with them (0.84 vs 1.00 of origins, p = 0.016): "
                       "when the equilibrium moves, the no-attribute refinement fails at some origins (up to all of them at "
                       "kappa = 0.2, n = 10 in one seed) but converges at most."),
            paper_value="reported qualitatively: with psi = 0 the iteration does not converge",
            control="the same refinement with the attributes (moving regime)",
            check=_check_attributes("moving/").gated(_PREMISE),
        ),
        Claim(
            id="refinement-beats-es0",
            kind="headline",
            statement=("The refinement of the attribute-only equilibrium against recent history (Algorithm 1, the "
                       "paper's key step) makes ESE more accurate than ES0, the same pipeline without it (slow "
                       "regime, cells kappa = 0.2, 0.8 x n = 10, 40, 160). Sixth session (issue 15), pre-registered "
                       "before its full run: a read-only audit found the moving regime's deviation gains come from "
                       "ES0 (the refinement added 0-1.4% there), but ES0 was a control of no check, and those rows "
                       "(seeds 0-5) had been seen. This claim is therefore decided on fresh draws: for each profile "
                       "seed every cell is drawn again from the same generator with a new stream tag (rng key [seed,"
                       " 1000 kappa, n, 2]; the stored claims' draws are untouched), which no session had looked at. "
                       "Rule: the geometric mean over cells of ESE's one-step RMSE is below ES0's by more than 1% "
                       "of ES0's (the smallest gain the paper reports as an improvement is about that size: "
                       "Informer 0.244 -> Informer + ESE 0.241), one-sided Wilcoxon p < 0.05 over the 6 seeds "
                       "(which needs about 5 of 6 seeds to agree), under both readings of the predictor "
                       "(allocation MS_hat x ES and the deviation reading), each with the AR forecast of the "
                       "total; partly if only one reading passes or ESE is significantly lower but by less than "
                       "1%. Gate: the refinement took a step at >= 10% of origins (mean over cells) in every seed "
                       "(not-checkable otherwise: ESE would equal ES0 by construction). The margin was fixed "
                       "knowing the seen seeds' 0-1.4% on the moving regime; the gate's level was chosen on dev "
                       "seeds 100-105 from the share of origins where the refinement iterates (0.79-1.00 here), "
                       "without looking at any RMSE of the fresh-draw block. (The quick profile's dev seeds "
                       "100-101 were run once after the rule was written, as a smoke test; nothing changed after.)"
                       " Measured after the sixth session's full run (checks unchanged; gate met in 6/6 seeds, the "
                       "refinement took a step at 81-100% of origins per seed): reproduced. Allocation reading: ESE's "
                       "geometric-mean RMSE 0.074-0.080 against ES0's 0.092-0.112, 20-32% lower in every seed "
                       "(19-29% by cell mean, every cell in every seed; p = 0.016). Deviation reading: 0.0593-0.0627 "
                       "against 0.0600-0.0635, 1.07-1.31% lower per seed (mean 1.17%), so above the 1% margin in "
                       "every seed but narrowly; by cell 0.45-0.54% at kappa = 0.2 and 1.7-2.1% at kappa = 0.8 "
                       "(ESE lower in 35 of 36 seed-cells). On this regime the refinement does what the paper says "
                       "(it recovers the hidden attribute's level, which ES0 misses), though under the deviation "
                       "reading ESE still loses to reversion to the window's mean share (as-accurate-deviation)."
                       " Review after the sixth session's run (text only; verdict unchanged): on the registered "
                       "statistic (deviation reading, geometric mean over cells) the stored, seen draws of seeds 0-5 "
                       "already gave ESE-vs-ES0 gains of 1.05, 1.33, 1.06, 1.45, 1.28, 1.08% (every seed above 1%; "
                       "the '0-1.4%' quoted above is a per-cell range of the moving regime, whose per-seed gains were "
                       "0.18-0.49%), so the 1% margin lies in the gap between the regimes as the seen rows showed it,"
                       " and the fresh draws replicated that preview rather than testing a threshold set blind. The "
                       "deviation pass is margin-sensitive: fresh gains 1.07-1.31% (mean 1.17%) would read partly at "
                       "a 1.2% margin. The 1% anchor comes from another comparison in the paper (base + ESE vs base), "
                       "not from refinement vs ES0. The source of the gap is planted: the generator's hidden static "
                       "attribute (hidden_weight 0.4) gives each system a level ES0 cannot see, and here the "
                       "equilibrium hardly moves within a window (premise ratio 0.03-0.05 smallest per seed on the "
                       "fresh draws, at most 0.29 by cell), so the 20-32% allocation gain is mostly the refinement "
                       "recovering that planted level. The check could fail, but what it shows is the refinement "
                       "fixing this generator's bias; with hidden_weight = 0 the ESE-ES0 gap would have no source "
                       "(the refinement never ran with that generator)."),
            paper_value=("reported qualitatively: the refinement against recent history corrects the attribute-only "
                         "estimate (no ablation number in the sources we could read)"),
            control="ES0: the same pipeline with the refinement switched off (max_iter = 0), same predictor and total",
            check=_check_refinement().gated(_refine_runs("")),
        ),
        Claim(
            id="refinement-beats-es0-moving",
            kind="headline",
            statement=("refinement-beats-es0 on the moving regime (cells kappa = 0.2, 0.8 x n = 10, 40, 160; n = 160 "
                       "is new to this regime and is drawn only in this claim's fresh-draw block, rng key [seed, "
                       "1000 kappa, n, 3]). Sixth session (issue 15), pre-registered before its full run, same rule "
                       "as refinement-beats-es0 (both readings, 1% margin on the geometric mean RMSE, one-sided "
                       "Wilcoxon over 6 seeds), gated on the refinement running (>= 10% of origins on average in "
                       "every seed; 0.18-0.56 on dev seeds 100-105, where it rarely runs at kappa = 0.8) and on the "
                       "premise of the moving regime measured on the fresh draws (the equilibrium's within-window "
                       "variance >= the share-noise variance in every cell of every seed; 1.88-2.50 smallest per dev"
                       " seed). This is the comparison the audit asked for: whether Algorithm 1's refinement, rather"
                       " than the least-squares equilibrium of the attributes, is what makes the deviation reading "
                       "win on this regime (as-accurate-deviation-moving, decided on the seen seeds 0-5)."
                       " Measured after the sixth session's full run (checks unchanged; both gates met in 6/6 seeds: "
                       "smallest premise ratio 1.83-2.23 per seed, the refinement took a step at 26-58% of origins "
                       "per seed): partly. Allocation reading: reproduced, ESE's geometric-mean RMSE 0.083-0.089 "
                       "against ES0's 0.093-0.100, 4.0-11.3% lower per seed (p = 0.016). Deviation reading, the one "
                       "the reproduced moving claims use: ESE 0.0620-0.0648 against ES0 0.0622-0.0652, lower in every"
                       " seed (p = 0.016) but by 0.21-0.80% (mean 0.42%), below the 1% margin. By cell, the "
                       "refinement takes a step at 76-78% of origins at kappa = 0.2 (deviation gain 0.45-0.47% by "
                       "cell mean) and at 31%, 0.3% and 0% at kappa = 0.8, n = 10, 40, 160 (gain 1.1%, 0.02%, 0: at "
                       "n = 40 and 160 ESE is ES0 in 11 of 12 seed-cells, the cointegration test passing on ES0). So on"
                       " fresh draws the refinement adds well under 1% to the deviation forecast here; the margins of "
                       "as-accurate-deviation-moving over mean-share reversion (0.5-3.7% on the stored seeds) come "
                       "mostly from the least-squares equilibrium of the attributes, not from Algorithm 1's "
                       "refinement."
                       " Review after the sixth session's run (text only; verdict unchanged): the 'partly' rests on "
                       "the allocation reading (4.0-11.3%), the reading under which as-accurate-moving and "
                       "plug-in-moving are not reproduced (ESE is not competitive there). The deviation reading is "
                       "significant on the raw gains (lower in 6/6 seeds, p = 0.016) but 0.21-0.80% is below the "
                       "margin; the evidence line's 'p=1' for that part is the p of the margin test. On the stored, "
                       "seen draws of seeds 0-5 the same statistic was 0.18-0.49% per seed (every seed below 1%, "
                       "while the slow regime's were all above), so the margin sat in the gap the seen rows showed; "
                       "the fresh draws replicated it. The refinement's share of the margin over mean-share reversion"
                       " (mean 0.42% of about 1.9%, so about 22%) mixes draws: the refinement's gain is from the fresh"
                       " draws, the margin over mean-share reversion from the stored ones (mean-share reversion is not"
                       " computed on the fresh draws)."),
            paper_value=("reported qualitatively: the refinement against recent history corrects the attribute-only "
                         "estimate (no ablation number in the sources we could read)"),
            control=("ES0: the same pipeline with the refinement switched off (max_iter = 0), same predictor and total "
                     "(moving regime, fresh draws)"),
            check=_check_refinement("moving/").gated(_REFINE_PREMISE, _refine_runs("moving/")),
        ),
        Claim(
            id="speed-up", kind="headline",
            statement=("Wrapping a base predictor with ESE (the base model forecasts only the total) is 10-70x "
                       "faster than running the predictor on every system."),
            paper_value="10-70x faster than the wrapped per-system predictors (paper's models and hardware)",
            control="the same predictor (ARIMA) fitted per system, timed in the same process"),
        Claim(
            id="linear-scaling", kind="headline",
            statement=("ESE's cost grows at most linearly with the number of systems n (an upper bound on the "
                       "growth rate: the check cannot tell linear from sublinear growth)."),
            paper_value="linear-time in n (complexity argument and timing)",
            no_control=("a growth-rate claim, not a comparison (per-system ARIMA is linear in n too); its "
                        "slope is reported beside ESE's for scale")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "proportions", "normalise_attributes", "fit_influence", "initial_equilibrium", "df_pvalues",
    "estimate_equilibrium", "Equilibrium", "ar_fit", "ar_total_forecast", "ese_predict", "ese_forecast",
    "equilibrium_path", "reversion_rate", "deviation_shares")}
_EXPORTS.update({name: ".setting" for name in ("generate", "per_system", "total_forecast")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
