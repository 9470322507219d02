"""Multi-Agent Teams Hold Experts Back (arXiv:2602.01011): do self-organising LLM teams match their best member?

A measurement study: heterogeneous frontier-LLM members discuss a task freely and give one
team answer; the team is compared with its best member (strong synergy), with the expert
unknown or named, across team sizes and with an adversarial member. This package holds the
harness (free-form discussion over any mix of OpenAI-compatible endpoints and scripted
members; ranking L1, synergy gap, at-least-one-correct, identification vs leveraging,
deference/compromise coding with Krippendorff's alpha), tested on scripted teams whose
behaviour is planted, and a DeGroot-style opinion model shown as an illustration only.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_LLM = ("frontier-LLM team behaviour: needs the paper's model roster behind live endpoints (or its transcripts), "
        "none within reach")

PAPER = Paper(
    slug="llm-team-synergy",
    title="Multi-Agent Teams Hold Experts Back",
    source="arXiv:2602.01011",
    cluster="agents",
    feasibility="C",
    examples="icml26.agents.llm_team_synergy.method:EXAMPLES",
    substitution=(
        "Keeps: the protocol (free-form multi-round discussion with no roles or aggregation rule, one team answer "
        "written by a member who also names the member the team relied on; expert unknown vs named; team size; one "
        "adversarial member), NASA Moon Survival and Lost at Sea with their published reference rankings and "
        "expertise induced by giving members the reference ranking (whole: concentrated; disjoint parts: "
        "distributed), ranking L1 error, the at-least-one-correct bound, identification vs leveraging, and "
        "deference-vs-compromise coding (LLM judge with a rubric in our words) with Krippendorff's alpha "
        "(krippendorff). Members are ChatMember on any OpenAI-compatible endpoint or scripted members; no LLM was "
        "run here, so the paper's four findings are not-checkable. Replaces: the ML benchmarks (MMLU-Pro, GPQA, "
        "MATH-500, ...) by verifiable arithmetic questions from icml26.tasks as offline stand-ins. Our choice: the "
        "L1 synergy gap is normalised by a random ranking's mean L1 ((m^2-1)/3), since the paper's normalisation "
        "for ranking tasks was not reachable. The harness is verified on scripted teams with planted behaviour "
        "(deferring team: gap 0; averaging team: Borda answer and its closed-form gap; planted identification and "
        "leveraging rates recovered). A DeGroot opinion model (x <- (1-s)x + sWx, W = (1-d)/n + d 1[perceived "
        "expert]) sweeps team size, deference and identification, with and without an adversary: a labelled "
        "figure with no verdict, because its parameters fix its pattern."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "tasks": 24, "n": 4, "rounds": 2, "q_id": 0.8, "q_lev": 0.4, "coder_noise": 0.1,
            "ns": [2, 3, 4, 6], "ds": [0.0, 1.0], "qs": [0.5, 1.0], "instances": 20}, timeout_s=60),
        "full": Profile("full", seeds=5, params={
            "tasks": 200, "n": 4, "rounds": 3, "q_id": 0.8, "q_lev": 0.4, "coder_noise": 0.1,
            "ns": [2, 3, 4, 6, 8], "ds": [0.0, 0.3, 0.7, 1.0], "qs": [0.5, 1.0], "instances": 200}, timeout_s=300),
    },
    claims=(
        Claim(id="no-strong-synergy", kind="headline",
              statement="Self-organising LLM teams do not reach strong synergy: the team falls short of its best "
                        "member on every benchmark, even when told who the expert is.",
              paper_value="relative gaps 8.1% (MMLU-Pro) to 37.6% (HLE) in v1; up to 41.1% in the final version; "
                          "6.3%-41.1% with the expert named",
              no_control=_LLM + "; the control (the best member alone) comes from the same runs",
              uncheckable=_LLM),
        Claim(id="leveraging-bottleneck", kind="headline",
              statement="The bottleneck is leveraging the expert, not identifying it.",
              paper_value="qualitative: teams name the expert but do not follow it",
              no_control=_LLM + "; the control (expert-named condition) comes from the same runs",
              uncheckable=_LLM),
        Claim(id="compromise-grows", kind="headline",
              statement="Integrative compromise increases with team size and correlates negatively with performance.",
              paper_value="p < 0.05 for the dilution and compromise correlations",
              no_control=_LLM + "; needs coded LLM transcripts", uncheckable=_LLM),
        Claim(id="adversarial-robustness", kind="headline",
              statement="Consensus seeking makes teams robust to one adversarial member.",
              paper_value="qualitative: small loss with an adversarial agent",
              no_control=_LLM + "; the control (team without adversary) comes from the same runs",
              uncheckable=_LLM),
        Claim(id="deferring-gap-zero", kind="identity",
              statement="Harness check: a team whose members all defer to the member holding the reference ranking "
                        "answers with that ranking, so its synergy gap is exactly 0.",
              paper_value="n/a (harness test with planted behaviour)",
              check=C.close("harness/defer/gap_max", to=0.0, tol=1e-12, label="max |gap| of deferring teams")),
        Claim(id="averaging-closed-form", kind="identity",
              statement="Harness check: a team whose members average answers with the Borda aggregate of the opening "
                        "rankings, so its gap equals the closed form computed from the briefs alone.",
              paper_value="n/a (harness test with planted behaviour)",
              check=C.all_of(C.close("harness/average/gap", to="harness/average/gap_closed", tol=1e-12,
                                     label="averaging team's mean gap"),
                             C.threshold("harness/average/mismatches", at_most=0.0,
                                         label="tasks where the team answer is not the Borda aggregate"))),
        Claim(id="decomposition-recovers", kind="identity",
              statement="Harness check: with identification and leveraging planted at q_id = 0.8 and q_lev = 0.4, "
                        "the measured rates lie within 4 standard errors of them.",
              paper_value="n/a (harness test with planted behaviour)",
              check=C.all_of(C.threshold("harness/planted/id_z", at_most=4.0, label="|identification - q_id| / se"),
                             C.threshold("harness/planted/lev_z", at_most=4.0, label="|leveraging - q_lev| / se"))),
    ),
)

_EXPORTS = {
    **{n: ".method" for n in ("run_discussion", "ChatMember", "ranking_l1", "random_l1_mean", "borda", "synergy_gap",
                              "at_least_one_correct", "identification_leveraging", "code_discussion", "rule_coder",
                              "agreement", "RUBRIC", "format_message", "parse_message", "complete_ranking")},
    **{n: ".setting" for n in ("MOON_SURVIVAL", "LOST_AT_SEA", "briefs", "qa_tasks", "ScriptedMember",
                               "PlantedReporter", "degroot_sweep")},
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
