"""Box Thirding: Anytime Best Arm Identification under Insufficient Sampling (arXiv:2602.18186).

B3 looks for the best of N arms when the budget T is unknown and too small to sample
every arm: arms climb a hierarchy of boxes where, three at a time, the best is pulled
more and promoted, the median waits for the next comparison at the same level, and the
worst is dropped. The package holds B3 (`BoxThirding`, and `BoxThirdingBatch` for many
repetitions at once) and the baselines it is measured against: Successive Halving with
the budget known, doubling-trick SH and uniform sampling, each on a random subset of the
arms, and the anytime Bracketing SH (SH on random brackets of growing size).
"""

from dataclasses import dataclass

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile, Verdict
from icml26.core.registry import lazy_exports


_RANK = {"not-checkable": 0, "not-reproduced": 1, "partly": 2, "reproduced": 3}


def lower_status(*statuses: str) -> str:
    """The lowest of the verdicts (not-checkable < not-reproduced < partly < reproduced)."""
    if not statuses or any(s not in _RANK for s in statuses):
        raise ValueError(f"statuses must be one or more of {tuple(_RANK)}, got {statuses!r}")
    return min(statuses, key=_RANK.__getitem__)


def deciding_budgets(ms) -> list[int]:
    """Indices of the budgets that decide: those where B3 has not screened every arm (``c0(T) < N`` in
    every seed, the data-poor regime); a budget with ``c0 >= N`` (B3 in method.py's end-game) is only
    reported."""
    ms = list(ms)
    if not ms:
        return []
    for key in ("n_arms", "budgets", "bernoulli/b3/c0"):
        if any(key not in m for m in ms):
            raise ValueError(f"every row of ms must hold {key!r}")
    if any(m["n_arms"] != ms[0]["n_arms"] or list(m["budgets"]) != list(ms[0]["budgets"]) for m in ms):
        raise ValueError("the rows of ms disagree on n_arms or budgets")
    n = float(ms[0]["n_arms"])
    c0 = [m["bernoulli/b3/c0"] for m in ms]
    return [k for k in range(len(ms[0]["budgets"])) if all(float(c[k]) < n for c in c0)]


def at_budgets(ms, idx) -> list[dict]:
    """Copies of the rows keeping, in every per-budget series, only the budgets ``idx``."""
    out = []
    idx = [int(i) for i in idx]
    for m in ms:
        nb = len(m["budgets"])
        if any(not 0 <= i < nb for i in idx):
            raise ValueError(f"idx must index the {nb} budgets (0 <= i < {nb}), got {idx}")
        out.append({k: ([v[i] for i in idx] if isinstance(v, (list, tuple)) and len(v) == nb else v)
                    for k, v in m.items()})
    return out


@dataclass(frozen=True, repr=False)
class LowerOfRules(C.Check):
    """A claim about B3 that must hold whichever standard recommendation rule the paper uses (its rule is
    not stated anywhere we could read): ``mean`` is the check on B3 under the best-mean rule (empirical
    best arm), ``level`` the same check under the highest-level rule, which is the most-played-arm rule.
    Both are evaluated on the deciding budgets only (:func:`deciding_budgets`); the verdict is the lower
    of the two. Both, and both on every budget (those with ``c0 = N`` included), are reported."""

    mean: C.Check
    level: C.Check

    def __post_init__(self) -> None:
        for name in ("mean", "level"):
            if not isinstance(getattr(self, name), C.Check):
                raise TypeError(f"{name} must be a Check, got {type(getattr(self, name)).__name__}")

    @property
    def comparative(self) -> bool:  # type: ignore[override]
        """Comparative as the best-mean check is (both rules' checks have the same shape)."""
        return self.mean.comparative

    def rule(self) -> str:
        """The pass rule, stated once for both recommendation rules."""
        return ("the lower of the verdicts with B3 under the best-mean and under the most-played (highest-level) "
                "recommendation rule, each on the budgets where B3 has not screened every arm (c0 < N): "
                + self.mean.rule() + "; every budget (c0 = N included) reported, not deciding")

    def __call__(self, ms):
        ms = list(ms)
        idx = deciding_budgets(ms)
        if not idx:
            return Verdict("not-checkable", "no budget with c0 < N",
                           "every budget has B3 screen all arms; nothing in the data-poor regime decides",
                           control="not compared (no deciding budget)")
        sub = at_budgets(ms, idx)
        vm, vl = self.mean(sub), self.level(sub)
        status = lower_status(vm.status, vl.status)
        low = vm if _RANK[vm.status] <= _RANK[vl.status] else vl
        ts = [int(ms[0]["budgets"][k]) for k in idx]
        rest = [int(t) for k, t in enumerate(ms[0]["budgets"]) if k not in idx]
        extra = ""
        if rest:
            am, al = self.mean(ms), self.level(ms)
            extra = (f" || every budget, T = {rest} (c0 = N) included, reported, not deciding: best-mean "
                     f"[{am.status}], most-played [{al.status}]")
        return Verdict(
            status,
            f"deciding budgets T = {ts}: best-mean rule [{vm.status}] {vm.measured} || most-played rule "
            f"[{vl.status}] {vl.measured}",
            f"rule: {self.rule()}; lower of best-mean [{vm.status}] and most-played [{vl.status}] || best-mean: "
            f"{vm.evidence} || most-played: {vl.evidence}{extra}",
            value=low.value, ci=low.ci, control=vm.control)

    def contradict(self, ms):
        """Rows that must not pass: built from the best-mean rule only, since failing under one rule
        fails the lower of the two."""
        # failing under one rule suffices; built on the deciding budgets (idempotent under at_budgets)
        return self.mean.contradict(at_budgets(list(ms), deciding_budgets(ms)))

    def on_control(self, ms):
        """The rows with the control put in B3's place under both rules (None if the check has no control)."""
        out = self.mean.on_control(list(ms))
        return self.level.on_control(out) if out is not None else None


def _by_rule(make) -> LowerOfRules:
    """``make(key)`` builds the check for B3's metric prefix ``key``: ``b3_mean`` (best-mean rule) and ``b3``
    (most-played / highest-level rule); the lower verdict decides."""
    return LowerOfRules(make("b3_mean"), make("b3"))

_RULE = {"b3_mean": "best-mean rule", "b3": "most-played rule"}

PAPER = Paper(
    slug="b3",
    title="Box Thirding: Anytime Best Arm Identification under Insufficient Sampling",
    source="arXiv:2602.18186",
    cluster="decision",
    feasibility="A",
    examples="icml26.decision.b3.method:EXAMPLES",
    substitution=(
        "Keeps: the B3 algorithm (ternary LIFT/SHIFT/DISCARD boxes, cumulative pulls ceil(t0 r^l) with "
        "t0 = 1 and r0 = 1.728 solving 4 - r - r^1.5 = 0, random screening order), the data-poor regime "
        "(budgets from 500 to 20,000 pulls against 5,000 arms), simple regret as the metric, and the three "
        "noise regimes of the paper's caption-contest study (high noise, moderate noise, deterministic). "
        "Replaces: the New Yorker Caption Contest ratings (not shippable) by synthetic instances with "
        "skewed arm means mu ~ Beta(1, 8) per repetition, rewards Normal(mu, 0.5) / Bernoulli(mu) / mu. "
        "Baselines are SH with known budget, doubling-trick SH and uniform sampling, each on a random "
        "subset of the largest size n with n*ceil(log2 n) <= T, and anytime Bracketing SH (Zhao et al., ICML "
        "2023) reconstructed from its description: brackets of 2, 4, ..., 2^ceil(log2 N) random arms, each "
        "running doubling-trick SH, sharing the budget equally in whole SH runs, recommending the bracket "
        "output with the highest empirical mean; SH with T known is also run on a random subset of B3's own "
        "screened count c0(T), the comparison the paper's theorem makes, and anytime Bayes-UCB (Kaufmann et al. "
        "2012: Beta(1+S, 1+F) posteriors, quantile of order 1 - 1/t, c = 0; most-pulled recommendation, our "
        "choice) in the bernoulli regime on all 50 repetitions per seed (16 before the sixth session; B3 "
        "compared on the same ones). "
        "Unspecified bookkeeping (random tie-breaks, behaviour once every arm is screened) is "
        "our choice, documented in method.py; the anytime recommendation rule is switchable and B3 is reported "
        "under two rules: ours (the highest-level arm) and the best empirical mean over the alive arms. "
        "Fifth session, measured after its full run on seeds 0-5 (not pre-registered; the claims were then "
        "decided with our rule): the best-mean rule is slightly better than ours with deterministic rewards but "
        "much worse under noise (bernoulli regret 0.184 vs 0.086 at T = 5000). "
        "Revised (sixth session, before its full run): the claims are decided under the best-mean rule, with "
        "our highest-level rule reported beside each verdict, deciding nothing. Why: the highest-level rule was taken for "
        "our invention (wrongly, see the review below), and the evidence we have points to best-mean. This session again reached only the "
        "paper's abstract and introduction (the stored copies of the arXiv page and of its public reviews "
        "give their opening only), so the rule is inferred, not read: (i) the reviewers' account of the "
        "deterministic-reward study (Fig. 4), recorded by an earlier session, describes B3's error there as "
        "pure screening, which the best-mean rule gives by construction and ours does not (it picks the best "
        "screened arm in 68-99% of deterministic repetitions); (ii) the main theorem compares B3 with SH on "
        "c0 random arms, which with exact rewards returns the best of them; (iii) the ICML abstract names the "
        "strategy a Remedian, and the remedian of Rousseeuw and Bassett (1990) reads every buffer, not only "
        "the top one, when the sample does not fill the tree. The best-mean numbers on seeds 0-5 had been seen: "
        "on them the best-mean rule gives beats-doubling-sh not-reproduced (2/6 budgets pass; the fifth "
        "session's text said partly), beats-uniform and robust-regimes partly, matches-sh and "
        "beats-bracketing-sh reproduced, all of which were reproduced under our rule (beats-bucb under "
        "best-mean was not computed), so the change moves no verdict towards passing. Because those seeds have "
        "been seen, the full profile now decides on fresh seeds 1000-1005 (seed_offset 1000; development "
        "seeds run as 1100 and up), never run before; the quick profile moved with it. No headline comparison "
        "on development seeds was looked at for this revision (a development seed was run for timing only). "
        "Sixth session's full run (seeds 1000-1005, 195 s CPU in jobs), bernoulli regret at T = 500 / 2000 / "
        "5000 / 10000: best-mean rule 0.334 / 0.252 / 0.185 / 0.117, ours 0.260 / 0.174 / 0.092 / 0.048 "
        "(both 0.017 at T = 20000, where every arm has been screened); deciding verdicts: matches-sh, "
        "beats-bracketing-sh, beats-uniform reproduced, beats-doubling-sh, beats-bucb, robust-regimes partly; "
        "under ours every comparative claim is reproduced. So the headline comparisons depend on the "
        "recommendation rule, which the paper's text we could reach does not fix. "
        "Review of that run (sixth session, text only, rows unchanged): (1) the highest-level rule is not our "
        "invention: the cumulative pulls per level n_l = 1, 2, 3, 6, 9, ... strictly increase, so it is exactly "
        "the most-played-arm rule of Bubeck, Munos and Stoltz (2009; ties by empirical mean), a standard rule "
        "(the one we use for Bayes-UCB); best-mean is the other standard rule (empirical best arm). Nothing we "
        "reached states the paper's rule, and (i)-(iii) fit both about equally (the SH-on-c0 theorem, if "
        "anything, the most-played one), so deciding with best-mean was a guess. (2) At T = 20000 B3 has "
        "screened all 5000 arms (c0 = N, method.py's end-game, outside the data-poor regime) and both rules "
        "give 0.017, winning every comparison there; without T = 20000 the best-mean verdicts become "
        "beats-bracketing-sh partly (3/5), beats-doubling-sh and beats-bucb not-reproduced (2/5), "
        "robust-regimes stays partly, matches-sh and beats-uniform unchanged; under the most-played rule all "
        "stay reproduced. (3) matches-sh separates B3 from its control only weakly (see that claim). (4) SH on "
        "B3's c0 arms is handicapped: with ceil(log2 c0) rounds its first two rounds give 0 pulls per arm "
        "(halving at random), so it uses only 66-82% of the budget (329 of 500 pulls at T = 500); B3/SH-on-c0 "
        "ratios flatter B3 and SH on n(T) arms is the binding comparison. Each comparative verdict of this run "
        "therefore depends on the recommendation rule, and three of them on T = 20000. "
        "Revised (sixth session, second pre-registration, before its run; chosen from the review above, no new "
        "run looked at): (a) only budgets where B3 has not screened every arm (c0(T) < N, read from the rows) "
        "decide; T = 20000 (c0 = N) is still run and reported; (b) since the paper's rule is unknown, each "
        "comparative claim's verdict is the lower of its verdicts under the best-mean and the most-played "
        "(highest-level) rule, both reported: a claim must hold whichever standard rule the paper uses; "
        "(c) matches-sh must also separate B3 from doubling SH (see that claim); (d) recipe, budgets run and "
        "Bayes-UCB on 50 repetitions unchanged. Seeds 0-5 and 1000-1005 have been seen under both rules, so "
        "the full profile decides on fresh seeds 2000-2005 (seed_offset 2000; the quick profile moved with it; "
        "development seeds run as 2100 and up); no development seed was run for this revision. "
        "Second run (seeds 2000-2005, 171 s CPU in jobs; deciding budgets T = 500-10000, c0 = 196-3219 < 5000), "
        "bernoulli regret best-mean / most-played / doubling SH / SH on n(T) arms: 0.313 / 0.250 / 0.338 / 0.281 "
        "at T = 500, 0.241 / 0.160 / 0.225 / 0.175 at 2000, 0.125 / 0.048 / 0.135 / 0.089 at 10000 (0.022 for "
        "both rules at 20000, reported only). Under the most-played rule B3 beats every baseline at 5/5 deciding "
        "budgets; under best-mean it beats doubling SH at 0/5, Bracketing SH and Bayes-UCB at 2/5, uniform at "
        "4/5. Verdicts (lower of the two rules): beats-doubling-sh, beats-bracketing-sh, beats-bucb "
        "not-reproduced; matches-sh, beats-uniform, robust-regimes partly. They are best-mean's verdicts; "
        "which rule the paper uses decides the headline comparisons, and we could not read it."
    ),
    profiles={
        "quick": Profile("quick", seeds=5, params={
            "n_arms": 5000, "reps": 16, "budgets": [1000, 5000], "bucb_reps": 4, "seed_offset": 2000},
            timeout_s=120),
        # seed_offset: the profile's seeds 0..5 run as 2000..2005, fresh seeds (sixth session's second
        # pre-registration; 0..5 and 1000..1005 have been seen, see substitution)
        "full": Profile("full", seeds=6, params={
            "n_arms": 5000, "reps": 50, "budgets": [500, 1000, 2000, 5000, 10000, 20000], "bucb_reps": 50,
            "seed_offset": 2000}, timeout_s=900),
    },
    claims=(
        Claim(
            id="matches-sh",
            statement=("Without knowing T, B3's misidentification is comparable to Successive Halving that is "
                       "told T and runs on a random subset of arms that fits the budget (B3's own c0 arms, and "
                       "the largest subset that gives every arm a pull). "
                       "Revised (sixth session, before its run): decided under the best-mean rule on fresh seeds "
                       "1000-1005, ours reported beside; on the seen seeds 0-5 both rules give reproduced, so "
                       "the change moves no verdict towards passing. Sixth-session run: reproduced; best-mean / "
                       "SH ratios 1.01-1.27 (c0 arms) and 1.08-1.45 (n(T) arms) up to T = 10000, 0.23 and 0.29 at "
                       "20000; ours 0.23-0.91 and 0.29-1.00; the control (doubling SH) also stays within 1.5 at "
                       "4/6 budgets, so the 1.5 bound separates B3 from it only weakly. "
                       "Review (after that run, text only): doubling-SH / SH(n(T)) ratios are 1.11, 1.15, 1.37, "
                       "1.26, 1.56 [1.39, 1.75] at T = 500-10000 and 1.70 at 20000: the control fails the bound "
                       "only at the two largest budgets, not significantly at 10000, and best-mean B3's regret is "
                       "above the control's at T = 500, 2000 and 5000; under the house rule (a claim its control "
                       "passes about equally is not reproduced) this is at best partly. Same verdict under both "
                       "rules and without T = 20000. SH on c0 arms gives 0 pulls in its first two rounds, so the "
                       "c0 ratios flatter B3; SH on n(T) arms is the binding comparison. "
                       "Revised (second pre-registration, before its run on fresh seeds 2000-2005): on the deciding "
                       "budgets (c0 < N), the lower of the two rules; reproduced needs (a) B3 within 1.5x of both SH "
                       "variants at every deciding budget, (b) the bound rejecting the control: doubling SH / SH(n(T)) "
                       "95% bootstrap CI above 1.5 at some deciding budget (n(T) arms: the binding comparison), and (c) "
                       "B3 no worse than doubling SH (paired mean) at >= half the deciding budgets; (a) without (b) or "
                       "(c) is partly. On the seeds 1000-1005 rows this rule gives partly (control CI at T = 10000 "
                       "[1.39, 1.75]); it was taken from the review, not tuned. "
                       "Second run (seeds 2000-2005): partly. Best-mean / SH ratios 1.11, 1.25, 1.38, 1.59, 1.40 (n(T) "
                       "arms; above 1.5 at T = 5000) and 1.00-1.34 (c0 arms), no worse than doubling SH at 2/5 budgets; "
                       "most-played 0.54-0.99 and 0.49-0.89, no worse at 5/5; the bound does not reject the control: "
                       "doubling SH / SH(n(T)) 1.20, 1.23, 1.29, 1.42, 1.52 [1.37, 1.73], so both rules are at most "
                       "partly."),
            paper_value="theoretical (Theorems on c0 = Theta(T) and exp(-Omega(T eps^2 / N)) error); no table value",
            kind="headline", control="doubling-trick SH (the naive way to be anytime)"),
        Claim(
            id="beats-doubling-sh",
            statement=("B3 has lower simple regret than the anytime doubling-trick version of SH under a limited "
                       "budget. "
                       "(Fifth session, seeds 0-5: reproduced with our highest-level rule; the best-mean rule "
                       "gives not-reproduced there, 2/6 budgets, not partly as then written; measured after "
                       "that run.) Revised (sixth session, before its run): decided under the best-mean rule, "
                       "the one the paper's deterministic pure-screening result implies, on fresh seeds "
                       "1000-1005, ours reported beside; the seeds 0-5 numbers under both rules had been seen and "
                       "the change moves no verdict towards passing. Sixth-session run: partly, 3/6 budgets "
                       "(best-mean 0.270 vs 0.288 at T = 1000, 0.117 vs 0.145 at 10000 and 0.017 vs 0.102 at "
                       "20000, but 0.334 vs 0.326, 0.252 vs 0.238, 0.185 vs 0.168 at 500, 2000, 5000); ours "
                       "beats doubling SH at 6/6. Review (after that run, text only): 'ours' is the most-played-arm "
                       "rule, a standard rule, so the verdict depends on which rule the paper uses (unknown), and on "
                       "T = 20000, where c0 = N: without it best-mean passes 2/5 budgets (not-reproduced), "
                       "most-played 5/5. "
                       "Revised (second pre-registration, before its run on fresh seeds 2000-2005): decided on the "
                       "budgets with c0 < N, the lower of the verdicts under the best-mean and most-played rules (each: "
                       "2/3 of those budgets significant). "
                       "Second run (seeds 2000-2005): not-reproduced. Best-mean 0/5 deciding budgets (0.313 vs 0.338 at "
                       "T = 500, p = 0.11; 0.125 vs 0.135 at 10000, p = 0.078; worse at 1000-5000); most-played 5/5 "
                       "(0.250 vs 0.338 down to 0.048 vs 0.135); at T = 20000, reported only, 0.022 vs 0.104."),
            paper_value="qualitative: B3 outperforms existing anytime methods in simple regret on NYCCC",
            kind="headline", control="doubling-trick SH",
            check=_by_rule(lambda k: C.beats(f"bernoulli/{k}/regret", "bernoulli/doubling/regret", better="lower",
                                             at="each", need=2 / 3, label=f"B3 ({_RULE[k]})",
                                             control_label="doubling SH"))),
        Claim(
            id="beats-bracketing-sh",
            statement=("B3 has lower simple regret than Bracketing SH under a limited budget. "
                       "Revised (sixth session, before its run): decided under the best-mean rule on fresh seeds "
                       "1000-1005, ours reported beside; on the seen seeds 0-5 both rules give reproduced, so "
                       "the change moves no verdict towards passing. Sixth-session run: reproduced, 4/6 budgets "
                       "for the best-mean rule (no better than BSH at T = 2000 and 5000: 0.252 vs 0.241, 0.185 "
                       "vs 0.186); ours 6/6. "
                       "Review (after that run, text only): 'ours' is the standard most-played-arm rule, so the "
                       "verdict depends on the paper's (unknown) rule, and on T = 20000, where c0 = N: without it "
                       "best-mean passes 3/5 budgets (partly), most-played 5/5. "
                       "Revised (second pre-registration, before its run on fresh seeds 2000-2005): decided on the "
                       "budgets with c0 < N, the lower of the verdicts under the best-mean and most-played rules (each: "
                       "2/3 of those budgets significant). "
                       "Second run (seeds 2000-2005): not-reproduced. Best-mean 2/5 deciding budgets (T = 500 and 10000; "
                       "0.198 vs 0.181 at 5000); most-played 5/5 (0.250 vs 0.362 down to 0.048 vs 0.168)."),
            paper_value=("qualitative: B3 below BSH (Zhao et al. 2023) in simple regret on NYCCC at limited "
                         "budgets; no table value"),
            kind="headline", control="Bracketing SH",
            check=_by_rule(lambda k: C.beats(f"bernoulli/{k}/regret", "bernoulli/bsh/regret", better="lower",
                                             at="each", need=2 / 3, label=f"B3 ({_RULE[k]})",
                                             control_label="bracketing SH"))),
        Claim(
            id="beats-bucb",
            statement=("B3 has lower simple regret than Bayes-UCB (BUCB) under a limited budget. "
                       "Revised (sixth session, before its run): Bayes-UCB on all 50 repetitions per seed (was "
                       "16); decided under the best-mean rule on fresh seeds 1000-1005, ours reported beside "
                       "(seeds 0-5 gave reproduced with ours; best-mean on the Bayes-UCB repetitions was not "
                       "computed there). Sixth-session run: partly, 3/6 budgets (best-mean 0.185 vs 0.221, "
                       "0.117 vs 0.155, 0.017 vs 0.077 at T = 5000, 10000, 20000; 0.334 vs 0.321, 0.270 vs "
                       "0.280, 0.252 vs 0.252 at 500-2000); ours 6/6. "
                       "Review (after that run, text only): 'ours' is the standard most-played-arm rule, so the "
                       "verdict depends on the paper's (unknown) rule, and on T = 20000, where c0 = N: without it "
                       "best-mean passes 2/5 budgets (not-reproduced), most-played 5/5. "
                       "Revised (second pre-registration, before its run on fresh seeds 2000-2005): decided on the "
                       "budgets with c0 < N, the lower of the verdicts under the best-mean and most-played rules (each: "
                       "2/3 of those budgets significant). "
                       "Second run (seeds 2000-2005): not-reproduced. Best-mean 2/5 deciding budgets (T = 2000 and "
                       "10000; 0.313 vs 0.322 at 500, p = 0.28); most-played 5/5 (0.250 vs 0.322 down to 0.048 vs "
                       "0.152)."),
            paper_value="qualitative: B3 below BUCB in simple regret on NYCCC at limited budgets; no table value",
            kind="headline", control="anytime Bayes-UCB (Beta posteriors) on the same repetitions",
            check=_by_rule(lambda k: C.beats(f"bernoulli/{k}/regret_bucb_reps", "bernoulli/bucb/regret",
                                             better="lower", at="each", need=2 / 3, label=f"B3 ({_RULE[k]})",
                                             control_label="Bayes-UCB"))),
        Claim(
            id="beats-uniform",
            statement=("B3 has lower simple regret than uniform sampling at every budget. "
                       "(Fifth session, seeds 0-5: reproduced with our highest-level rule; partly with the "
                       "best-mean rule, 5/6 budgets; measured after that run.) Revised (sixth session, before its "
                       "run): decided under the best-mean rule on fresh seeds 1000-1005, ours reported beside; "
                       "the seeds 0-5 numbers had been seen and the change moves no verdict towards passing. "
                       "Sixth-session run: reproduced, 6/6 budgets (best-mean 0.334 vs 0.356 at T = 500 down to "
                       "0.017 vs 0.191 at 20000); ours 6/6. "
                       "Review (after that run, text only): reproduced under both standard rules (best-mean and "
                       "most-played, 'ours') with or without T = 20000 (where c0 = N). "
                       "Revised (second pre-registration, before its run on fresh seeds 2000-2005): decided on the "
                       "budgets with c0 < N, the lower of the verdicts under the best-mean and most-played rules (each: "
                       "every such budget significant). "
                       "Second run (seeds 2000-2005): partly. Best-mean 4/5 deciding budgets (0.313 vs 0.341 at T = 500, "
                       "p = 0.078); most-played 5/5 (0.250 vs 0.341 down to 0.048 vs 0.217)."),
            paper_value="qualitative: B3 below Uniform Sampling in simple regret on NYCCC",
            kind="headline", control="uniform sampling",
            check=_by_rule(lambda k: C.beats(f"bernoulli/{k}/regret", "bernoulli/uniform/regret", better="lower",
                                             at="each", label=f"B3 ({_RULE[k]})", control_label="uniform"))),
        Claim(
            id="robust-regimes",
            statement=("B3's advantage holds in the high-noise, moderate-noise and deterministic-reward "
                       "regimes alike. "
                       "(Fifth session, seeds 0-5: reproduced with our highest-level rule; partly with the "
                       "best-mean rule, which beats doubling SH only with deterministic rewards; measured after "
                       "that run.) Revised (sixth session, before its run): decided under the best-mean rule on "
                       "fresh seeds 1000-1005, ours reported beside; the seeds 0-5 numbers had been seen and the "
                       "change moves no verdict towards passing. Sixth-session run: partly; the best-mean rule "
                       "beats doubling SH at 6/6 budgets with deterministic rewards, 3/6 with bernoulli and "
                       "1/6 with gaussian rewards (only T = 20000; 0.329 vs 0.232 at T = 2000); ours passes all "
                       "three regimes. Review (after that run, text only): 'ours' is the standard most-played-arm "
                       "rule, so the verdict depends on the paper's (unknown) rule; without T = 20000 (c0 = N) "
                       "best-mean stays partly (bernoulli 2/5, gaussian 0/5, deterministic 5/5), most-played "
                       "reproduced. "
                       "Revised (second pre-registration, before its run on fresh seeds 2000-2005): decided on the "
                       "budgets with c0 < N, the lower of the verdicts under the best-mean and most-played rules (each: "
                       "2/3 of those budgets significant in every regime). "
                       "Second run (seeds 2000-2005): partly. Best-mean beats doubling SH at 5/5 deciding budgets with "
                       "deterministic rewards, 0/5 with bernoulli and gaussian rewards (gaussian 0.321 vs 0.223 at T = "
                       "2000); most-played 5/5 in all three regimes."),
            paper_value="qualitative: robust performance across high, moderate and deterministic noise on NYCCC",
            kind="headline", control="doubling-trick SH in each regime",
            check=_by_rule(lambda k: C.all_of(*(C.beats(f"{r}/{k}/regret", f"{r}/doubling/regret", better="lower",
                                                        at="each", need=2 / 3, label=f"B3 ({_RULE[k]}, {r})",
                                                        control_label=f"doubling SH ({r})")
                                                for r in ("bernoulli", "gaussian", "deterministic"))))),
        Claim(
            id="deterministic-screening",
            statement=("With deterministic rewards comparisons are exact, so B3's error is pure screening: it "
                       "recommends the best arm among those it has screened (true by construction for the "
                       "best-mean recommendation rule, since the best screened arm is never discarded)."),
            paper_value="decomposition of the error into non-inclusion + within-set misidentification (Sec. 4)",
            kind="identity"),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "BoxThirding", "BoxThirdingBatch", "R0", "fit_subset_size",
    "successive_halving", "successive_halving_batch",
    "doubling_successive_halving", "doubling_successive_halving_batch",
    "uniform_sampling", "uniform_sampling_batch",
    "BracketingSHBatch", "bracketing_successive_halving", "bracketing_successive_halving_batch",
    "bayes_ucb", "bayes_ucb_batch", "RULES")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", "LowerOfRules", "at_budgets", "deciding_budgets", "lower_status", *_EXPORTS]
