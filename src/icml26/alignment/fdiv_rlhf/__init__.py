"""f-Divergence Regularized RLHF: Two Tales of Sampling and Unified Analyses (arXiv:2605.06977).

Wu, Shi, Yang and Shen study online RLHF as a contextual dueling bandit whose objective is
the expected reward minus ``1/eta`` times an f-divergence to the reference policy (reverse
KL, forward KL, chi-squared, alpha- and Jensen-Shannon divergences in one class). The
regularised optimum has the closed form ``pi0 * h(eta (r - lambda))`` with ``h = (f')^{-1}``.
They give two ways to choose the responses to compare: optimism with an exploration bonus
(Algorithm 1) and sampling the second response in proportion to how sensitive the optimal
policy is to each response's reward, ``pi0 * h'(eta (r_hat - lambda))`` (Algorithm 2), and
prove ``O(log T)`` regret and ``O(1/T)`` suboptimality for both across the f-class.

Public API (``method``): ``divergence`` (with the TRL ``DPOConfig.f_divergence_type`` each
divergence corresponds to), ``optimal_policy``, ``objective``, ``sensitivity_sampler``,
``exploration_bonus``, ``optimistic_reward``, ``fit_linear_bt``, ``suboptimality``,
``online_rlhf``.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_EXP = "icml26.alignment.fdiv_rlhf.experiment"

_COMMON = {"contexts": 200, "actions": 20, "dim": 6, "theta_norm": 2.0, "eta": 2.0,
           "beta": 1.0, "ridge": 1.0, "refit_every": 10}

PAPER = Paper(
    slug="fdiv-rlhf",
    title="f-Divergence Regularized RLHF: Two Tales of Sampling and Unified Analyses",
    source="arXiv:2605.06977",
    cluster="alignment",
    feasibility="C",
    substitution=(
        "Theory paper without experiments: both algorithms run on a linear contextual dueling "
        "bandit (200 contexts, 20 responses, d = 6, ||theta*|| = 2, uniform pi0, eta = 2) instead "
        "of LLM post-training. Kept: the f-regularised objective and its closed-form optimum, BT "
        "preferences, logistic MLE, optimism with an elliptical bonus (Alg. 1), sensitivity "
        "sampling pi0 h'(eta (r_hat - lambda)) (Alg. 2), exact regret and suboptimality. Replaced: "
        "general function classes by linear rewards; the theoretical bonus radius by a constant "
        "beta = 1; the bonus form and Alg. 2's sampler are reconstructed from the paper's description. "
        "Divergences: reverse KL, forward KL, chi-squared (+ alpha = 0.5 in the full profile)."
    ),
    run=f"{_EXP}:run",
    figure=f"{_EXP}:figure",
    profiles={
        "quick": Profile("quick", seeds=2, params={**_COMMON, "horizon": 2000,
                                                   "divergences": ["reverse_kl", "chi2"]}, timeout_s=60),
        "full": Profile("full", seeds=5, params={**_COMMON, "horizon": 2000,
                                                 "divergences": ["reverse_kl", "forward_kl", "chi2", "alpha0.5"]},
                        timeout_s=400),
    },
    claims=(
        Claim(
            id="log-regret",
            statement="Both algorithms have O(log T) regret for every f-divergence in the class.",
            paper_value="O(log T) regret bound (theorem; no experiment)",
            check=f"{_EXP}:check_log_regret",
            contradict=f"{_EXP}:contradict_log_regret",
        ),
        Claim(
            id="subopt-rate",
            statement="The output policy's suboptimality gap decays as O(1/T) for both algorithms.",
            paper_value="O(1/T) suboptimality, i.e. O(1/epsilon) sample complexity (theorem)",
            check=f"{_EXP}:check_subopt_rate",
            contradict=f"{_EXP}:contradict_subopt_rate",
            reference=-1.0,
        ),
        Claim(
            id="beats-uniform",
            statement="Both sampling principles explore efficiently: far less regret than uniform exploration.",
            paper_value="implied by the log T regret vs linear regret of non-adaptive sampling",
            check=f"{_EXP}:check_beats_uniform",
            contradict=f"{_EXP}:contradict_beats_uniform",
        ),
    ),
)

_API = ["FDivergence", "divergence", "exploration_bonus", "fit_linear_bt", "objective", "online_rlhf",
        "optimal_policy", "optimistic_reward", "sensitivity_sampler", "suboptimality"]

__getattr__ = lazy_exports(__name__, {k: ".method" for k in _API})
__all__ = ["PAPER", *_API]
