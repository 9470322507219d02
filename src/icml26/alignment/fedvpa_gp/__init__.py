"""FedVPA-GP: Federated Variational Preference Alignment with Gumbel-Softmax Prior (arXiv:2605.30873).

Federated variational preference learning: each client encodes its chosen-minus-rejected
features into a posterior over a latent preference vector ``z`` that steers latent-conditioned
choice logits; the prior is a mixture of the posteriors the other clients sent to the server,
and an orthogonal-prototype loss pulls each client's ``z`` to one of two orthonormal
prototypes chosen by server-side k-means. FedAvg aggregates every parameter.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

from ._checks import seeds_beat

_GATE = C.gate("gp/ce_drop", at_least=0.3, why="FedVPA-GP's training cross-entropy fell by >= 30%")

_COMMON = {"n_clients": 40, "n_train": 8, "unseen_every": 8, "clients_per_round": 10, "local_epochs": 5,
           "ft_steps": 25}

PAPER = Paper(
    slug="fedvpa-gp",
    title="Federated Variational Preference Alignment with Gumbel-Softmax Prior for Personalized User Preferences",
    source="arXiv:2605.30873",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.fedvpa_gp.method:EXAMPLES",
    substitution=(
        "Keeps: the client-side variational encoder on Delta h = h_chosen - h_rejected (feature MLP, mean-pooled "
        "over the client's pairs, posterior N(mu_i, sigma_i^2 I), latent d = 32), latent-conditioned choice "
        "logits with cross-entropy reconstruction, KL weight 0.1, the federated mixture prior over the previous "
        "round's client posteriors with a one-sample Monte-Carlo KL, the orthogonal-prototype loss (two "
        "learnable prototypes, QR-orthonormalised every forward pass and scaled to norm 5, pull weight 10, "
        "orthonormality weight 0.1, labels from server k-means over client means: these labels leak the type "
        "structure into training, as in the paper), and FedAvg weighted by sample size (10 of 40 clients per "
        "round, 5 local full-batch epochs, Adam 0.01 reset each round). The two readings of the prior are both "
        "run: the reference code's (weights proportional to sample size, own component kept) and the paper "
        "text's (learnable Gumbel-softmax weights at temperature 1, other clients only); the choice-logit "
        "feature is an option of method.py, not run. Replaces: Gemma-2B/Qwen2-0.5B hidden states on HH-RLHF by "
        "a frozen random 2-layer tanh map of 12-d items to R^64; helpful vs harmless raters by two synthetic "
        "types sharing an agreement direction and conflicting on another (BT scale 3, 60/40 split, 8 noisy "
        "pairs per client); GPT-4o-mini win rates by accuracy against the client's true type on 50 conflict "
        "and 50 random pairs; FedBiscuit/FedDPO by a FedAvg Bradley-Terry reward, plus FedAvg + local "
        "fine-tuning of the reward head (25 Adam steps) as the personalised-FL control. Deviation: the "
        "paper adds f(z) to the frozen LLM's A/B logits, which read both responses; our frozen features do "
        "not, so z enters the score bilinearly, r(x, z) = w.h(x) + (B^T h(x)).z (VPL's latent-conditioned "
        "reward), and the choice logits are (r(A, z), r(B, z)). Hidden sizes 64 instead of 512/256/128. "
        "The RL/DPO alignment stage is not reproduced. Measured after the full run (5 seeds; not a "
        "pre-registered claim, and no check was changed): the server's k-means labels agree with the true types "
        "in only 0.63 of clients in the first rounds and stay there (the 60/40 split's chance level), the "
        "pull term then fixes each client's z at a prototype unrelated to its type and the training CE rises "
        "(0.69 -> 0.80), so every claim's CE gate fails; a diagnostic arm with the true types as prototype "
        "labels (not the paper's method) reaches conflict accuracy 0.775 (FedAvg BT 0.544, local FT 0.688, "
        "FedVPL 0.649) and purity 0.99. FedVPL itself does not collapse at 8+ pairs per client (purity 0.97-1.0); "
        "it drops to 0.73 at 4 pairs. The collapse index rewards spread, not type information: GP's is 50x "
        "VPL's while its purity is lower."),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            **_COMMON, "n_clients": 16, "rounds": 8, "clients_per_round": 6, "sweep_pairs": [4, 8]}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            **_COMMON, "rounds": 40, "sweep_pairs": [4, 8, 16, 32]}),
    },
    claims=(
        Claim(id="beats-monolithic", kind="headline",
              statement=("FedVPA-GP (reference-code prior: sample-size weights) serves conflicting user types "
                         "better than monolithic federated baselines: on conflict pairs its per-client accuracy "
                         "is above the FedAvg BT reward and above FedAvg with local fine-tuning of the head."),
              paper_value=("qualitative: beats FedBiscuit and FedDPO across client counts on HH-RLHF (repo notes, "
                           "one seed, Qwen2-0.5B, N=100: helpful/harmless win rate 39/79 vs FedBiscuit 43/73)"),
              control="FedAvg BT reward, and FedAvg + local fine-tuning of the reward head",
              check=C.all_of(
                  seeds_beat("gp/conflict", "bt/conflict", margin=0.05, frac=0.8,
                             label="FedVPA-GP", control_label="FedAvg BT"),
                  seeds_beat("gp/conflict", "ft/conflict", margin=0.05, frac=0.8,
                             label="FedVPA-GP", control_label="FedAvg + local FT")).gated(_GATE)),
        Claim(id="beats-monolithic-gumbel", kind="headline",
              statement=("The same, for the paper text's prior (learnable Gumbel-softmax weights, other clients' "
                         "components only)."),
              paper_value="as beats-monolithic",
              control="FedAvg BT reward, and FedAvg + local fine-tuning of the reward head",
              check=C.all_of(
                  seeds_beat("gpg/conflict", "bt/conflict", margin=0.05, frac=0.8,
                             label="FedVPA-GP (Gumbel)", control_label="FedAvg BT"),
                  seeds_beat("gpg/conflict", "ft/conflict", margin=0.05, frac=0.8,
                             label="FedVPA-GP (Gumbel)", control_label="FedAvg + local FT")).gated(
                  C.gate("gpg/ce_drop", at_least=0.3, why="the Gumbel variant's training cross-entropy fell by "
                                                          ">= 30%"))),
        Claim(id="prevents-collapse", kind="headline",
              statement=("The mixture prior plus the orthogonal loss prevent the posterior collapse that plain "
                         "federated VPL suffers: wherever FedVPL collapses (pre-registered sweep of 4/8/16/32 "
                         "pairs per client), FedVPA-GP's client means have higher k-means purity and a higher "
                         "collapse index."),
              paper_value="qualitative: FedVPL collapses, FedVPA-GP separates helpful/harmless (t-SNE figures)",
              control="FedVPL (the same pipeline with an N(0, I) prior and no orthogonal loss)",
              check=None),
        Claim(id="unseen-and-switching", kind="headline",
              statement=("Clients never seen in training get a useful z from their own pairs (conflict accuracy "
                         "above the FedAvg BT reward's on them), and setting z to a type's prototype switches "
                         "the model to that type's preferences."),
              paper_value="qualitative: generalises to unseen clients; dynamic helpful/harmless switching",
              control="FedAvg BT reward on the same unseen clients",
              check=C.all_of(
                  seeds_beat("unseen/gp/conflict", "unseen/bt/conflict", margin=0.05, frac=0.8,
                             label="FedVPA-GP on unseen clients", control_label="FedAvg BT"),
                  C.threshold("switch/gp/conflict", at_least=0.75, on="mean",
                              label="conflict accuracy with z = the type's prototype")).gated(_GATE)),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "FedConfig", "train_federated", "mixture_kl_mc", "gaussian_kl_standard", "orthonormal_prototypes",
    "orthogonal_loss", "fedavg", "assign_labels", "kmeans_purity", "collapse_index")}
_EXPORTS.update({name: ".setting" for name in ("make_federation", "embed")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
