"""f-Divergence Regularized RLHF: Two Tales of Sampling and Unified Analyses (arXiv:2605.06977).

Wu, Shi, Yang and Shen study online RLHF as a contextual dueling bandit whose objective is
the expected reward minus ``1/eta`` times an f-divergence to the reference policy (reverse
KL, forward KL, chi-squared, alpha- and Jensen-Shannon divergences in one class). The
regularised optimum has the closed form ``pi0 * h(eta (r - lambda))`` with ``h = (f')^{-1}``.
They give two ways to choose the responses to compare: optimism with an exploration bonus
(Algorithm 1) and sampling the second response in proportion to how sensitive the optimal
policy is to each response's reward, ``pi0 * h'(eta (r_hat - lambda))`` (Algorithm 2), and
prove ``O(log T)`` regret and ``O(1/T)`` suboptimality for both across the f-class.

The instances (linear dueling bandits, uniform or poorly covering reference policies) are in
``setting``. Public API (``method``): ``divergence`` (with the TRL ``DPOConfig.f_divergence_type`` each
divergence corresponds to), ``optimal_policy``, ``objective``, ``sensitivity_sampler``,
``exploration_bonus``, ``optimistic_reward``, ``fit_linear_bt``, ``suboptimality``,
``online_rlhf``.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"contexts": 200, "actions": 20, "dim": 6, "theta_norm": 2.0, "eta": 2.0,
           "beta": 1.0, "ridge": 1.0, "refit_every": 10, "top": 4, "top_mass": 0.05}
_EXPLORE_RUNS = ("poor/reverse_kl", "poor/chi2")

PAPER = Paper(
    slug="fdiv-rlhf",
    title="f-Divergence Regularized RLHF: Two Tales of Sampling and Unified Analyses",
    source="arXiv:2605.06977",
    cluster="alignment",
    feasibility="C",
    substitution=(
        "Theory paper without experiments: both algorithms run on a linear contextual dueling "
        "bandit (200 contexts, 20 responses, d = 6, ||theta*|| = 2, eta = 2) instead of LLM "
        "post-training, with a uniform reference policy and one that covers the optimum poorly "
        "(the 4 best responses of each context share 5% of pi0). Kept: the f-regularised objective "
        "and its closed-form optimum, BT preferences, logistic MLE, optimism with a bonus (Alg. 1), "
        "sensitivity sampling pi0 h'(eta (r_hat - lambda)) (Alg. 2), exact regret and suboptimality. "
        "Replaced: general function classes by linear rewards; the theoretical bonus radius by a "
        "constant beta = 1; the bonus (a generic elliptical bonus, the same for every f) and Alg. 2's "
        "sampler are reconstructed from the paper's description, whose exact bonus we could not "
        "recover. Controls run in the same loop: passive sampling (beta = 0), greedy sampling, uniform "
        "exploration. Divergences: reverse KL, chi-squared (+ forward KL in the full profile); horizon "
        "600 (quick) and 3000 (full) rounds."
    ),
    examples="icml26.alignment.fdiv_rlhf.method:EXAMPLES",
    profiles={
        "quick": Profile("quick", seeds=2, params={**_COMMON, "horizon": 600,
                                                   "runs": {"uniform": ["reverse_kl"],
                                                            "poor": ["reverse_kl", "chi2"]}}, timeout_s=90),
        "full": Profile("full", seeds=5, params={**_COMMON, "horizon": 3000,
                                                 "runs": {"uniform": ["reverse_kl", "chi2", "forward_kl"],
                                                          "poor": ["reverse_kl", "chi2"]}},
                        timeout_s=600),
    },
    claims=(
        Claim(
            id="log-regret", kind="headline",
            control="passive sampling: Alg. 1 with beta = 0 (second response from pi0), no bonus or sensitivity sampler",
            statement=("Both algorithms have O(log T) regret for every f-divergence in the class. "
                       "(Changed by review after the full run: partly -> not-reproduced, the control put in the "
                       "method's place reads the same partly (passive sampling: R(T)/R(T/8) <= 2.2 in >= 4/5 seeds "
                       "in 4 of 5 runs, medians 1.39-1.92; the algorithms pass 9 of 10 run-algorithm cells, failing "
                       "poor/reverse_kl/sensitivity 2/5 where passive passes 4/5; their one extra run, "
                       "uniform/reverse_kl, is one seed over 2.2 for passive (3/5 vs 4/5), with the method's ratio "
                       "below passive's in only 2/5 (optimism, median 2.12 vs 1.92) and 3/5 (sensitivity) seeds). "
                       "partly now needs a run the control fails in which the method is below it in >= 80% of "
                       "seeds.)"),
            paper_value="O(log T) regret bound (theorem; no experiment)",
        ),
        Claim(
            id="subopt-rate", kind="headline",
            control="uniform exploration (both responses from pi0)",
            statement=("The output policy's suboptimality gap decays as O(1/T) for both algorithms. "
                       "(Changed by review after the full run: partly -> not-reproduced, the control put in the "
                       "method's place reads the same partly (uniform exploration's log-log slope is -0.93 to -0.98 "
                       "in all 5 runs, the algorithms' -0.79 to -1.22: every run passes <= -0.6 for both, so no "
                       "part tells the paper's sampling from uniform exploration).)"),
            paper_value="O(1/T) suboptimality, i.e. O(1/epsilon) sample complexity (theorem)",
            reference=-1.0,
        ),
        Claim(
            id="explores-better", kind="headline",
            control="passive sampling (beta = 0: first response from pi_{r_hat}, second from pi0)",
            statement=("The two sampling principles (Alg. 1's optimism bonus, Alg. 2's sensitivity sampler) "
                       "lower the regret of the same learner without them when pi0 covers pi* poorly."),
            paper_value="implied: the sampling principles are the paper's contribution; no experiment",
            # hand-written check_explores_better: the pre-registered all_of, with partly needing one
            # comparison that passes its test (revised after the full run; see its docstring)
        ),
        Claim(
            id="beats-uniform", kind="identity",
            statement=("Both algorithms have far less regret than uniform exploration, whose regret is "
                       "linear by construction (it plays pi0 != pi* in every round)."),
            paper_value="implied by the log T regret vs linear regret of non-adaptive sampling",
        ),
    ),
)

_API = ["FDivergence", "divergence", "exploration_bonus", "fit_linear_bt", "objective", "online_rlhf",
        "optimal_policy", "optimistic_reward", "sensitivity_sampler", "suboptimality"]
_SETTING = ["linear_dueling_bandit", "reference_policy", "concentrability"]

__getattr__ = lazy_exports(__name__, {**{k: ".method" for k in _API}, **{k: ".setting" for k in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
