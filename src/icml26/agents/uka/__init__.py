"""UKA: User-Aware Active Knowledge Acquisition for emotional-support dialogue (arXiv:2605.29715).

A gradient-free assistant: while training against simulated users it keeps at most two user
hypotheses (softmax of reply log-probabilities, entropy-triggered refinement), retrieves
principles from a knowledge base with a one-sentence summary query, samples three candidate
replies, and plays the one whose predicted user reaction is most uncertain across hypotheses
and most novel with respect to the knowledge base; the outcome becomes a When/should/rather-
than/because principle (a warning also recommends the strategy the agent's ToM rates best). At test it retrieves principles and plays the safe, KB-consistent
candidate. ``method.py`` holds the loop, ``setting.py`` the simulated users, ``llm.py`` the same
loop against an OpenAI-compatible endpoint (policy + user simulator, logprob scoring).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_GATE = C.gate("belief/need_gain", at_least=0.05, frac=0.7,
               why="the user model updates: its end-of-dialogue top hypothesis names the hidden need in >= 5 "
                   "points more test dialogues than the opening utterance alone does, in >= 70% of seeds")

_CONTROLS = ("the best per seed of: random selection at training, greedy (test-rule) selection at training, the "
             "code's critic-retry 'principle' mode, no knowledge base, LinUCB (mabwiser) on the same context")

PAPER = Paper(
    slug="uka",
    title="UKA: User-Aware Active Knowledge Acquisition for Emotional Support Dialogue",
    source="arXiv:2605.29715",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.uka.experiment:EXAMPLES",
    substitution=(
        "Keeps the gradient-free loop of the paper and its code (Xmuffins/UKA): at most two user hypotheses scored "
        "by the log-likelihood of the user's latest reply, softmax posterior and entropy, drop-the-least-likely and "
        "refine-from-the-last-three-turns when the best score or the entropy rises; a summary query; top-5 "
        "principle retrieval by cosine; three candidates sampled conditioned on the retrieved principles; ToM "
        "uncertainty u(c) = 1 - mean cosine of per-hypothesis mean simulated-reaction embeddings (3 simulated "
        "replies each) to their centroid; z-scored KB novelty 1 - mean cosine to the top-5 known entries; argmax "
        "of minmax(u) + minmax(nov) at training; a principle per turn from the sign of the emotion change; 8-turn "
        "dialogues ending at emotion > 0.5; the code's 'principle' baseline (no user model, one candidate, up to "
        "3 retries of a turn on non-positive self-judged feedback, failed trials in a 'rather than' clause). "
        "Replaces: the LLM policy and GPT-4o/DeepSeek user simulator and critic by a simulated user with a hidden "
        "need (5 types) given an observable scenario (8), a per-seed random need x strategy compatibility matrix "
        "(8 ESConv strategies), and reply types that are weak evidence of the need; LLM log-probabilities by the "
        "assistant's predictive reply likelihood under its imperfect ToM (M + N(0, 0.15)); MiniLM/embeddinggemma "
        "and ChromaDB by a numpy cosine index over numpy embeddings (strategy one-hots, random reply-type vectors; "
        "MiniLM is used only on the endpoint path); candidate texts by strategy labels, principles by (query, "
        "advice vector, When/should/rather-than/because text). Test rule: the paper's stated intent (argmin "
        "minmax(u) + minmax(nov): low uncertainty, KB-consistent) decides the claims; the released code's argmin "
        "of minmax(1-u) + minmax(nov), and the Chroma-distance reading of it (equal to the training rule), are "
        "reported beside it, and so is an exploratory arm added after trial runs (deciding nothing): novelty against a "
        "negation-blind KB. The endpoint path (llm.py; --set endpoint=... --set model=...) runs the same loop with an "
        "LLM policy, LLM user simulator and critic, logprob hypothesis scoring and MiniLM embeddings; no verdict "
        "uses it. ESConv/ExTES/Sentient-Eval and their dialogue-quality scores are not used. "
        "Test success over 60 shared test users (the card's 150 cut for the 3-minute budget), 50 training "
        "sessions, 10 seeds. "
        "Second pass (after a review; every change below was committed before its full run): (1) a negative or "
        "no-change principle now also recommends an alternative, as the released code's principle prompt asks "
        "('you should [better strategies] rather than [ineffective ones]'): the untried strategy with the highest "
        "P(positive) under the agent's own ToM averaged over its need hypotheses (+1 on it, -1/-0.5 on the strategy "
        "played); the 'principle' mode, which has no user model, uses a uniform need; every arm writes principles "
        "this way; the first pass's warning-only design is kept as a stored arm (uka_warn); (2) stored arms that "
        "decide nothing: the code's training rule read literally with Chroma distances (uka_literal: argmax "
        "minmax(u) + minmax(-novelty), uncertain and KB-consistent; tested with the paper's rule and, as "
        "uka_literal_codetest, with the code's test rule under the same reading), and the ablations uka_unc "
        "(argmax u) and uka_nov (argmax novelty); (3) the user-model gate was need_acc >= 0.3 (chance 20%), which "
        "the opening utterance alone meets (first pass: opening-only 0.37 mean); it is now need_acc minus the "
        "opening-only accuracy on the same test dialogues >= 0.05 in >= 70% of seeds, which tests the updating; "
        "(4) efficient-acquisition's target is now the best control other than random-trained selection (with "
        "random in the target its ratio was 1.0 by construction in seeds where it was the best control), so both "
        "parts compare against the same, independent target. "
        "Remaining deviations from the released code: the principle mode stores the true sign of the emotion change "
        "where the code stores its self-judged feedback (a stronger control); UKA holds two need hypotheses from "
        "the first turn, where the code starts from one (u = 0 on the first turn); the recommended alternative is "
        "the ToM-best one, where an LLM writes whatever it judges better. "
        "First pass (warning-only principles, the old gate; full run of 10 seeds): UKA test success 0.375, "
        "beats-baselines and efficient-acquisition not reproduced, kb-helps reproduced; UKA's explore-trained KB held "
        "34% recommending principles against 62% greedy-trained and 46% random-trained. "
        "Second pass, measured after its full run (10 seeds; diagnostics, no check changed): test success UKA 0.552, "
        "random-trained 0.633, greedy-trained 0.627, LinUCB 0.557, principle mode 0.440, no KB 0.107; stored arms: "
        "uka_literal 0.602 (0.062 with the code's test rule under the same reading), uka_unc 0.620, uka_nov 0.542, "
        "uka_warn 0.375 (equal seed by seed to the first pass's UKA, as it should be); UKA with the explore rule at "
        "test 0.090, the code's test rule 0.565. Recommending principles narrow UKA's gap to the best control from "
        "-0.30 to -0.11 (UKA below it in 10/10 seeds); uncertainty-only training matches the random- and "
        "greedy-trained controls and novelty-only training matches UKA, so the remaining loss comes from the "
        "KB-novelty term (it fills the KB with principles from failed turns: 38% positive-outcome principles for "
        "UKA and 32% for novelty-only, against 48% uncertainty-only, 50% random, 65% greedy). The user-model gate "
        "holds in 10/10 seeds (need accuracy 0.542 vs opening-only 0.367, gain 0.07-0.27)."),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_train": 20, "n_test": 20, "checkpoints": [10], "evidence": 0.8, "tom_noise": 0.15,
            "bandit": False, "endpoint": "", "model": ""}, timeout_s=120),
        "full": Profile("full", seeds=10, params={
            "n_train": 50, "n_test": 60, "checkpoints": [10, 20, 30], "evidence": 0.8, "tom_noise": 0.15,
            "bandit": True, "endpoint": "", "model": ""}, timeout_s=600),
    },
    claims=(
        Claim(
            id="beats-baselines",
            statement=("UKA (uncertainty-driven exploration at training, robust selection at test) reaches a higher "
                       "test success rate than the strongest baseline: UKA - best control >= 0.05 in >= 7/10 seeds, "
                       "and UKA above the best control in a one-sided paired sign test over seeds."),
            paper_value="qualitative: UKA beats strong baselines on ESConv, ExTES and Sentient-Eval; no numbers found",
            kind="headline", control=_CONTROLS,
            check=C.all_of(
                C.beats_in_seeds("test/uka/success", "test/best_control/success", margin=0.05, frac=0.7,
                                 label="UKA success", control_label="best control success"),
                C.beats("test/uka/success", "test/best_control/success", better="higher", test="sign",
                        label="UKA success", control_label="best control success"),
            ).gated(_GATE)),
        Claim(
            id="efficient-acquisition",
            statement=("Uncertainty-driven selection acquires knowledge efficiently: UKA needs <= 0.6x the training "
                       "sessions (<= 30 of 50) to reach the 50-session test success of the best control other than "
                       "random-trained selection, in >= 7/10 seeds, and fewer sessions than random exploration "
                       "needs for the same target in >= 7/10 seeds (ratio 1.2 = not reached within 50 sessions, a "
                       "censoring code: both censored is a tie, not a win). Second pass: random-trained selection "
                       "is left out of the target (before, where it was the best control, its ratio was 1.0 by "
                       "construction)."),
            paper_value="qualitative: efficient acquisition of user-aligned knowledge; no numbers found",
            kind="headline", control="random selection at training (its sessions to reach the same target)",
            check=C.all_of(
                C.threshold("eff/uka_ratio", at_most=0.6, frac=0.7, partly_frac=0.5,
                            label="UKA sessions / 50 to match the best control"),
                C.beats_in_seeds("eff/uka_ratio", "eff/random_ratio", better="lower", frac=0.7,
                                 label="UKA sessions ratio", control_label="random-exploration sessions ratio"),
            ).gated(_GATE)),
        Claim(
            id="kb-helps",
            statement="The acquired knowledge base helps: UKA's test success is above the same pipeline without a KB "
                      "in every seed (the card's pass rule). Review note (after the first pass's full run, rule unchanged): the random-, "
                      "greedy- and principle-trained KBs and LinUCB also beat the no-KB arm in 10/10 seeds, so this "
                      "shows that memory helps, not that uncertainty-driven acquisition does; it can still fail "
                      "(UKA's own KB read with the explore rule at test is below no-KB in 7/10 seeds; second pass: "
                      "the same holds, all four other KB/bandit arms above no-KB in 10/10 seeds, the explore rule "
                      "at test below no-KB in 5/10).",
            paper_value="qualitative (ablations without memory); no numbers found",
            kind="headline", control="the UKA test pipeline with an empty knowledge base",
            check=C.beats_in_seeds("test/uka/success", "test/nokb/success", frac=1.0,
                                   label="UKA success", control_label="no-KB success").gated(_GATE)),
        Claim(
            id="dialogue-quality",
            statement="UKA improves dialogue-quality and user-alignment scores on ESConv, ExTES and Sentient-Eval "
                      "across policy models (Qwen-32B, Seed-36B, GPT-OSS-120B, Qwen3-235B).",
            paper_value="reported in the paper's tables (numbers not reachable from the sources found)",
            kind="headline", no_control="not measurable here",
            uncheckable=("needs the LLM policies, GPT-4o/DeepSeek-V3 simulators and critics on ESConv/ExTES/"
                         "Sentient-Eval; llm.py runs the loop against any OpenAI-compatible endpoint but no "
                         "verdict uses it")),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "hypothesis_posterior", "tom_uncertainty", "kb_novelty", "minmax", "select_candidate", "write_principle",
    "candidate_weights", "PrincipleKB", "UserModel", "Belief", "Agent", "run_session", "RULES")}
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
