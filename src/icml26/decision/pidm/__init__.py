"""When does predictive inverse dynamics outperform behavior cloning? (Schaefer et al.; arXiv:2601.21718).

Behaviour cloning maps a state straight to an action. A predictive inverse dynamics
model (PIDM) first predicts a future state and then asks an inverse dynamics model which
action leads there. The paper explains PIDM's advantage with few demonstrations as a
bias-variance trade-off: conditioning on the future removes the action ambiguity of a
multimodal expert (Theorem 1: the squared-error gap of the Bayes predictors equals
E_s Var(E[a|s,s'])), at the price of the predictor's bias; extra action-free or
non-expert data widen the gap.

Here: BC and PIDM (instance-based closest-reference predictor, as in the paper's 2-D
experiments, plus an MLP IDM), a continuous four-room navigation task with two equally
short routes (gymnasium API), and the bimodal linear-Gaussian toy with Theorem 1's Delta.
"""

from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_E = "icml26.decision.pidm.experiment"

PAPER = Paper(
    slug="pidm",
    title="When does predictive inverse dynamics outperform behavior cloning?",
    source="arXiv:2601.21718",
    cluster="decision",
    feasibility="A",
    substitution=(
        "Kept: BC vs PIDM trained on the same expert demonstrations, PIDM's instance-based "
        "state predictor (closest demonstrated state, its successor k steps later; k = 1 as in the "
        "paper's 2-D configs), an MLP IDM on ground-truth (s_t, s_t+k) pairs, L1 action loss, continuous 2-D "
        "velocity actions, closed-loop success as the metric, sample-efficiency ratio = demonstrations BC "
        "needs to come within 5 points of PIDM's success, extra action-free demonstrations for the "
        "predictor and random-policy transitions for the IDM. Replaced: the paper's four layouts and human / "
        "A* datasets by one generated four-room layout with a scripted expert that picks one of two "
        "equally short routes at random; networks of 2 x 64 units trained 500 full-batch Adam steps "
        "(paper: 512-1024-256 MLPs, 1e5 steps); 2-32 demonstrations; the 3-D video-game experiment is not "
        "run. Theorem 1 is checked on a bimodal linear-Gaussian toy with gradient-boosted predictors."
    ),
    run=f"{_E}:run",
    figure=f"{_E}:figure",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            "n_demos": [2, 8, 32], "steps": 500, "hidden": 64, "lr": 1e-3, "k": 1, "n_eval": 50,
            "step_size": 0.03, "max_steps": 120, "route_temp": 0.3, "noise_sd": 0.1, "match_tol": 0.05,
            "n_extra_free": 8, "n_extra_random": 1000, "bias_n": 8, "bias_sd": [0.0, 0.1, 0.3],
            "toy_delta": 1.0, "toy_sigma_a": 0.3, "toy_sigma_eta": [0.3, 1.0], "toy_n_train": 5000,
            "toy_n_test": 10000, "toy_bias_sd": [0.0, 0.3, 3.0]}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            "n_demos": [2, 4, 8, 16, 32], "steps": 500, "hidden": 64, "lr": 1e-3, "k": 1, "n_eval": 100,
            "step_size": 0.03, "max_steps": 120, "route_temp": 0.3, "noise_sd": 0.1, "match_tol": 0.05,
            "n_extra_free": 16, "n_extra_random": 2000, "bias_n": 4, "bias_sd": [0.0, 0.03, 0.1, 0.3],
            "toy_delta": 1.0, "toy_sigma_a": 0.3, "toy_sigma_eta": [0.3, 1.0, 2.0], "toy_n_train": 20000,
            "toy_n_test": 100000, "toy_bias_sd": [0.0, 0.3, 1.0, 3.0]}),
    },
    claims=(
        Claim(
            id="sample-efficiency",
            statement=("In 2-D navigation BC needs up to 5x and on average 3x more demonstrations than PIDM "
                       "to reach comparable performance."),
            paper_value="BC needs 3x (avg) / up to 5x more demonstrations (four 2-D tasks, human and A* data)",
            reference=3.0,
            check=f"{_E}:check_sample_efficiency", contradict=f"{_E}:contradict_sample_efficiency"),
        Claim(
            id="theorem1",
            statement=("With squared loss, EPE(BC*) - EPE(IDM*; p*) = E_s[Var_{s'~p*}(E[a|s,s'])] >= 0: "
                       "conditioning on the future removes the action variance explained by it."),
            paper_value="Theorem 1 (identity, law of total variance)",
            check=f"{_E}:check_theorem1", contradict=f"{_E}:contradict_theorem1"),
        Claim(
            id="bias-tradeoff",
            statement=("PIDM trades variance for predictor bias: its advantage holds only while the state "
                       "predictor's bias is small enough (Corollary 1) and reverses for a badly biased predictor."),
            paper_value="PIDM better iff Delta > -(delta + beta + gamma) (Corollary 1)",
            check=f"{_E}:check_bias_tradeoff", contradict=f"{_E}:contradict_bias_tradeoff"),
        Claim(
            id="extra-data",
            statement="The gap between PIDM and BC widens when additional (action-free / non-expert) data is available.",
            paper_value="gap widens with additional data sources (qualitative)",
            check=f"{_E}:check_extra_data", contradict=f"{_E}:contradict_extra_data"),
    ),
    summary="BC vs PIDM on a two-route four-room task, Theorem 1 on a linear-Gaussian toy.",
)

__getattr__ = lazy_exports(__name__, {
    **{name: ".method" for name in ("BCPolicy", "PIDMPolicy", "ClosestReferencePredictor", "fit_regressor",
                                     "make_pairs", "linear_gaussian_delta", "linear_gaussian_idm",
                                     "sample_linear_gaussian")},
    **{name: ".env" for name in ("FourRoomsNav", "expert_episode", "rollout_success")},
})

__all__ = ["PAPER", "BCPolicy", "PIDMPolicy", "ClosestReferencePredictor", "fit_regressor", "make_pairs",
           "linear_gaussian_delta", "linear_gaussian_idm", "sample_linear_gaussian", "FourRoomsNav",
           "expert_episode", "rollout_success"]
