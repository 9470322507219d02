"""MAP: Measuring Agents in Production (arXiv:2512.04123).

An interview (20 case studies) and survey (306 respondents in arXiv v3; "86 deployed systems
practitioners" in the ICML abstract) study of how LLM agents are built, evaluated and run in
production. There is no system to run and no raw data; what we can compute is honest
uncertainty about the printed percentages: intervals where the denominator is stated, a
granularity (GRIM) check of which stated denominator can produce each percentage, and an
illustrative compounding-reliability table (no verdict).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_SURVEY = ("a survey/interview finding about practitioners we cannot re-survey, with no raw responses "
           "released; shown: what the interval at the stated denominator says about the 'most' reading")

PAPER = Paper(
    slug="map-agents",
    title="Measuring Agents in Production",
    source="arXiv:2512.04123",
    cluster="agents",
    feasibility="C",
    examples="icml26.agents.map_agents.method:EXAMPLES",
    substitution=(
        "Keeps: the paper's printed findings as frozen records (statistic, printed percent, population "
        "survey 306 / survey-deployed 86 / interviews 20 / unknown, version, research question), read from the "
        "arXiv v3 abstract, the ICML abstract and public notes of the v1 text; where versions or notes disagree "
        "both values are kept (task-hours 64% vs 72%; 306 vs 86 respondents). Adds: Wilson and Clopper-Pearson 95% "
        "intervals (statsmodels proportion_confint, checked against scipy binomtest) only where the text states the "
        "denominator (70% and 85% of 20 interview cases); for every finding and every stated denominator a GRIM "
        "check of whether the printed percent can be k/n, and the Wilson lower bound at each consistent n, so a "
        "'most' reading is flagged when it does not clear 50%. Intervals cover binomial sampling noise only, not "
        "the self-selection of respondents. Replaces nothing (there is no system); the compounding-reliability "
        "table (p^k, and human checkpoints every h steps catching errors with probability c) is our illustration, "
        "checked against Monte Carlo in the unit tests and carrying no verdict."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "ks": [1, 2, 5, 10, 20, 50], "ps": [0.95, 0.99], "h": 5, "c": 0.9, "draws": 4000}, timeout_s=60),
        "full": Profile("full", seeds=3, params={
            "ks": [1, 2, 5, 10, 20, 50, 100], "ps": [0.95, 0.98, 0.99], "h": 5, "c": 0.9, "draws": 40000},
            timeout_s=120),
    },
    claims=(
        Claim(id="bounded-steps", kind="headline",
              statement="68% of production agents execute at most 10 steps before human intervention (47% fewer "
                        "than 5).",
              paper_value="68% (v3 abstract; ICML abstract); 47% fewer than 5 steps (v1 text)",
              no_control="a descriptive proportion of a survey, not a comparison", uncheckable=_SURVEY,
              check=C.threshold("steps_le_10/lo@306", at_least=0.5,
                                label="Wilson lower bound of 68% at n=306 (the only stated n that gives 68%)")),
        Claim(id="prompting-off-the-shelf", kind="headline",
              statement="70% of interview cases prompt off-the-shelf models instead of tuning weights.",
              paper_value="70% (14 of 20 interview cases)",
              no_control="a descriptive proportion of interviews, not a comparison", uncheckable=_SURVEY,
              check=C.threshold("off_the_shelf/wilson_lo", at_least=0.5,
                                label="Wilson lower bound of 14/20")),
        Claim(id="human-evaluation", kind="headline",
              statement="74% of deployments depend primarily on human evaluation.",
              paper_value="74% (v3 abstract; denominator not stated)",
              no_control="a descriptive proportion of a survey, not a comparison", uncheckable=_SURVEY,
              check=C.threshold("human_eval/lo@86", at_least=0.5,
                                label="Wilson lower bound of 74% at n=86 (smaller consistent stated n)")),
        Claim(id="reliability-top-challenge", kind="headline",
              statement="Reliability (consistent correct behaviour over time) is the top development challenge, "
                        "addressed through systems-level design.",
              paper_value="qualitative ranking (interviews and survey)",
              no_control="a ranking reported by practitioners, not a comparison we can run",
              uncheckable="a qualitative interview/survey finding with no counts released"),
        Claim(id="intervals-agree", kind="identity",
              statement="Our statsmodels Wilson and Clopper-Pearson intervals equal scipy.stats.binomtest's for "
                        "every k at n in {5, 20, 86, 306}.",
              paper_value="n/a (our tooling)",
              check=C.close("interval_max_diff", to=0.0, tol=1e-8, label="max |statsmodels - scipy| bound")),
        Claim(id="grim-68", kind="identity",
              statement="68% (printed to the integer) is k/n for no integer k at n = 86 and is 207-209/306 at n = 306, "
                        "so the 68% finding cannot describe exactly 86 respondents.",
              paper_value="68% with populations 306 (v3) and 86 (ICML abstract)",
              check=C.all_of(C.threshold("steps_le_10/grim@86", at_most=0.0, label="68% attainable at n=86"),
                             C.threshold("steps_le_10/grim@306", at_least=1.0, label="68% attainable at n=306"))),
    ),
)

_EXPORTS = {
    **{n: ".method" for n in ("proportion_interval", "grim_counts", "grim_consistent", "majority_reading",
                              "chain_success")},
    "simulate_chain": ".setting",
    **{n: ".findings" for n in ("FINDINGS", "Finding", "by_key", "STATED_DENOMINATORS")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
