"""GPM: Efficient Adaptive Testing via Gradient Path Matching Subset Selection for AI Education.

ICML 2026 (OpenReview XnK6Jr0i8D; only the abstract is public). Adaptive testing picks,
one at a time, the questions that let a short test estimate an examinee's ability as well as
the whole bank would. BECAT matched the selected subset's loss gradient to the full bank's
over the entire ability space; GPM matches them only along the optimisation path that leads
to the estimate, and uses these intermediate gradients, on training examinees whose full
responses are known, to learn an explicit selection policy that is then applied to new
examinees. The policy and its training follow the structure of the authors' public training
code (bigdata-ustc/BEAT); ``setting`` holds the banks, ``method`` GPM and the baselines.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

_COMMON = {"eta_inner": 0.1, "policy_lr": 2e-3, "model_lr": 2e-2, "hidden": 64, "protocol": "ours",
           "protocol_report": "code"}

#: Training gate: on the test examinees, the trained policy's one-step gradient-path loss is
#: at least 5% below that of an untrained policy of the same shape, in both banks. Both losses
#: are means over 4 paired evaluation passes (Gumbel streams); the single-pass ratio of the
#: first gate (train/gate_single) is reported beside it and decides nothing.
_GATE = C.gate("train/gate", at_least=1.05, frac=0.8, at="each",
               why="the trained policy's path loss (mean of 4 passes) is >= 5% below an untrained policy's "
                   "(both banks)")

PAPER = Paper(
    slug="gpm",
    title="Efficient Adaptive Testing via Gradient Path Matching Subset Selection for AI Education",
    source="https://openreview.net/forum?id=XnK6Jr0i8D",
    cluster="decision",
    feasibility="A",
    substitution=(
        "Only the abstract of the paper is public; GPM follows the authors' public training code "
        "(bigdata-ustc/BEAT): the policy reads the signed responses over the whole bank (MLP Q -> H -> H "
        "-> Q), selects by Gumbel-softmax over squared distances to its target difficulty, takes one "
        "unrolled inner gradient step (eta 0.1) per selection and is updated by the gradient-path loss "
        "||g_S - g_Q|| at the stepped ability; intercepts and the start ability are learned jointly; "
        "the code scores items by the squared distance to the policy's target difficulty and takes the "
        "largest, which can only pick an extreme item, so GPM is run with the nearest item (our reading, "
        "the claims' GPM) and with the code's sign (reported as gpm_code); "
        "ACC/AUC on 20% held-out responses; at test time GPM's choice keeps the Gumbel noise (the code's "
        "forward pass always adds it, under no_grad too). Ours differs from the code in: the claims' GPM is "
        "trained with a straight-through one-hot mask (the code's Gumbel-softmax has hard=False, so its "
        "training mask, its policy state and its final ability estimate use soft weights, which at test "
        "time would mix in responses never asked: we estimate from the asked items only); the path loss "
        "compares the selected set with the examinee's candidate set (the code's compute_seq_loss compares "
        "the held-out set with all bank items, the non-held-out ones counted with label 0); the policy "
        "gradient is the exact one-step unrolled gradient (the code takes the same exact gradient, its inner "
        "step keeps the graph, and subtracts a further finite-difference term whose norm is 1e-7 to 1e-6 of "
        "the exact gradient's at our scale, measured in review on the full profile's banks); the code's three pieces are implemented (train_gpm protocol='code' or any of soft, heldout, "
        "fd) and a GPM trained with all three is reported (train/gate_protocol), deciding nothing (since the "
        "seventh session in the quick profile only, see the end of this text); the "
        "code's IRT is 1PL (logit theta - b), ours 2PL/MIRT with slopes given and intercepts learned; "
        "policy width 64 (the code's policy has 256; 256 was worse on dev seeds); T = L selections (the "
        "code's loop makes n_query + 1); no decay of the inner step or of the finite-difference weight (the code "
        "multiplies inner_lr and arch_lr by 0.95 every 5 epochs; its StepLR schedulers are created but never "
        "stepped), no weight decay (code: 1e-8 on intercepts, 2e-6 on the start ability) and no early stopping "
        "on validation accuracy; intercept lr 2e-2 (code 2e-3, over thousands of epochs); sizes (banks of 40-80 items, "
        "6-10 questions, 25-150 iterations of 64-256 examinees; batch 256 chosen on dev seeds because it "
        "lowers the policy-gradient noise). The training gate (path loss >= 5% below an untrained "
        "policy's in both banks) is not met: the selection layer's Gumbel noise is as large as the spread "
        "of squared difficulty distances; a greedy oracle that knows every response lowers the gate's path "
        "loss 8-14x when it asks its item directly, but only 1.10 (3-D) to 1.19-1.27 (1-D) times when its "
        "item is the target of GPM's selection layer (dev seeds 100-101; reported as train/gate_oracle), "
        "and trained policies reach 1.02-1.05 on the 3-D bank; none of the code's pieces (soft mask, its "
        "held-out loss, its finite-difference term, width 256, the learned intercept as the distance "
        "feature) lifted the 3-D gate on dev seeds 100-103 (0.95-1.04). Earlier full run (seeds 0-4, stored "
        "at 02:57 with code hash 202634f, before the BECAT fix below; this text written after it, its numbers "
        "kept as that run's; the current run's are at the end of this text): gate 1-D 1.018-1.069 (3 of 5 seeds "
        ">= 1.05), 3-D 1.028-1.048 (0 of 5), so "
        "0/5 seeds pass in both banks; the oracle through the selection layer reaches 1.14-1.24 (1-D) and "
        "1.08-1.17 (3-D), asking its item directly 11-13x and 8.7-9.6x; a GPM trained under the code's "
        "protocol gets 0.997-1.10 (1-D) and 0.98-1.03 (3-D), and its own training loss (the code's "
        "held-out loss) changes by 0.98-1.03x over training. "
        "Reading of these numbers (review, after the run; still holds in the current run): the oracle through "
        "the selection layer clears the gate's 1.05 in every seed of both banks (lowest 1.08, 3-D; current "
        "run 1.09), so the gate is not out of reach by construction at this setting; trained policies get "
        "13-47% of the oracle's gain (gate - 1 over oracle - 1, per seed and bank; current run 11-41%), so the "
        "layer's noise explains why the margin is small, not why it is missed; "
        "and the greedy oracle is a reference, not a strict upper bound (a non-greedy sequence of picks, or a "
        "target between two items, could do better). "
        "Real datasets (ASSISTments, Eedi, EXAM) are replaced by "
        "simulated 1-D 2PL and 3-D MIRT banks; baselines Random, MFI (D-optimal for MIRT; checked against "
        "catsim in 1-D), KLI and BECAT (from its paper; same gain as EduCAT's up to a constant, with the "
        "label-pair weights of the BECAT paper). Accuracy: MSE to the true ability with the true item "
        "parameters, and held-out ACC/AUC with the learned model. "
        "Sixth session (BECAT checked against EduCAT, bigdata-ustc/EduCAT: BECAT_strategy.py, IRT.py "
        "get_BE_weights / F_s_func / delta_q_S_t, scripts/test.ipynb): a test (test_gpm_becat_educat) "
        "computes EduCAT's score F(S+q) - F(S) by brute force from its definition and finds our gain equal "
        "to it plus 100 - D (the same for every candidate; EduCAT's constant is 100, ours D) and the same "
        "pick, on 6 random banks each for d = 1 and 3 and both label weightings. Two differences were found. "
        "(1) EduCAT's code weights each label's gradient by the probability of the other label (the pair of "
        "correct answers by (1-P_i)(1-P_j), ...); ours keeps the BECAT paper's expectation (label y weighted "
        "by P(y)); EduCAT's weighting is now reported as becat_educat (deciding nothing). "
        "(2) For an empty S EduCAT's gain is +inf for every item and its test script asks a random first "
        "item (its strategy class alone would take untested_questions[0] on these all-+inf scores); ours scored "
        "the first item by the gain with an empty S covering nothing, which picked "
        "uninformative items (stored full run before this change: BECAT's 1-D MSE after one question 0.952 "
        "vs Random's 0.844). Fixed: BECAT's first item is now uniform at random (select_becat first='random'), "
        "the EduCAT protocol; decided from the code, before the re-run. Still different: EduCAT draws the "
        "|S| + 5 reference items with replacement (keeping the distinct ones), ours without; its ability "
        "update is Adam on the answered items, ours MAP. The random first item weakens BECAT at L >= 5 (full "
        "run, seed means: 1-D MSE at L = 10 0.190 -> 0.199, 3-D 0.544 -> 0.548; the dev numbers below, in "
        "the pre-registration commit, already showed it), so BECAT as now run is a slightly weaker control "
        "for fewer-than-becat; if the gate is ever met, that claim should be decided against the stronger of "
        "first='random' and first='gain' (needs a re-run). "
        "Why BECAT trails MFI and KLI here. Unrecorded development measurements (ad-hoc runs, no committed "
        "script reproduces them; dev seeds 100-104, known-parameter protocol, MSE at L = 1, 5, 10): 1-D MFI "
        "0.690/0.308/0.202, KLI 0.700/0.310/0.204, BECAT before the fix 0.952/0.352/0.217, after "
        "0.856/0.375/0.220, with EduCAT's weights 0.841/0.542/0.294, with the whole unanswered bank as "
        "reference set 0.868/0.421/0.237, Random 0.858/0.509/0.338; 3-D MFI 0.541, KLI 0.564, BECAT 0.584 "
        "before and 0.585 after, EduCAT's weights 0.646, whole-bank reference 0.594 (L = 10). So neither the "
        "first item, the sampled reference set nor our weighting causes the gap in these measurements, longer "
        "tests narrow the 1-D gap "
        "but BECAT does not overtake (seeds 100-102, L = 30: MFI 0.107, BECAT 0.111; 3-D 0.411 vs 0.449), "
        "and it stays when the target is BECAT's own (the full-bank MAP ability instead of the true one: 1-D L = 10 MFI 0.133, "
        "BECAT 0.156; 3-D 0.179 vs 0.227; same dev seeds and caveat). Our reading: with known item "
        "parameters, a correctly specified 2PL/MIRT and a MAP estimate, greedy MFI is the D-optimal rule: "
        "it greedily maximises the posterior precision that sets the MSE, so it is the rule to beat on this "
        "metric, while BECAT optimises a surrogate (the expected gradient distance to a random reference "
        "set). BECAT's reported advantage came from real data with learned models, judged mostly by ACC/AUC; "
        "that real data or a misspecified model would favour BECAT is untested here, and under our own "
        "held-out protocol (learned model) BECAT trails too (full run after the fix, seed means: 1-D AUC "
        "0.7798 vs MFI 0.7847 and KLI 0.7836, 3-D 0.8005 vs 0.8047 and 0.8039, 1-D ACC 0.708 vs MFI 0.715; "
        "the 1-D AUC gap to MFI was 0.0032 in the earlier run and is 0.005 now). A BECAT "
        "behind MFI is therefore a weaker control for fewer-than-becat, and fewer-than-best already uses the "
        "best baseline (MFI or KLI). "
        "Full run after the fix (seeds 0-4, written after it; seed means, MSE at L = 1/5/10): 1-D BECAT "
        "0.858/0.343/0.199 (before 0.952/0.326/0.190), MFI 0.703/0.282/0.182, KLI 0.700/0.274/0.182, "
        "becat_educat 0.852/0.521/0.270, Random 0.844/0.523/0.348; 3-D BECAT 0.898/0.669/0.548 (before "
        "0.941/0.658/0.544), MFI 0.839/0.596/0.488, KLI 0.845/0.623/0.517, becat_educat 0.890/0.731/0.596; "
        "held-out AUC 1-D BECAT 0.780 (before 0.781), MFI 0.785, KLI 0.784, becat_educat 0.777, GPM 0.768; "
        "3-D 0.801 (0.803), 0.805, 0.804, 0.792, 0.790. The random first item helps BECAT after one "
        "question and costs it a little at L = 5-10 (as on dev seeds); EduCAT's weighting is near Random at "
        "L = 5 in 1-D. GPM's own numbers moved slightly against the earlier stored run although no gpm or core "
        "file changed in between except BECAT (GPM is bit-identical across these commits on the quick "
        "profile). Likely cause: the VM was replaced between the two runs (booted 04:49, .venv rebuilt "
        "04:49-04:52, between the 02:57 and 14:02 runs), with the same torch 2.13.0+cpu and numpy 2.2.6; only "
        "torch-trained quantities moved (GPM, and through its learned intercepts the oracle and the held-out "
        "AUC of every method: seed means by at most 1.2e-4, single seeds by up to 8e-4), the numpy-only "
        "known-parameter MSE of Random, MFI and KLI agree up to last-bit differences (<= 2.2e-16), and a "
        "training of 150 iterations of 10 argmax item picks each diverges after a last-bit difference such "
        "as a different CPU kernel choice; no nondeterminism in the code was found. Current run: gate 1-D "
        "1.014-1.065 (3 of 5 seeds >= 1.05), 3-D 1.018-1.057 (1 of 5), "
        "1 of 5 seeds in both banks, so the gate is still not met and every claim stays not-checkable; oracle "
        "through the layer 1.13-1.23 (1-D) and 1.09-1.17 (3-D), directly 11-13x and 8.75-9.6x; trained "
        "policies get 11-41% of the oracle's gain; code-protocol gate 0.994-1.11 (1-D), 0.976-1.03 (3-D). "
        "Seventh session (run time only; no recipe, gate or check changed): the full profile cost about 92 s "
        "CPU per seed (dev seed 100), over the 3-minute budget. (1) The code-protocol training "
        "(train/gate_protocol, train/loss_ratio_protocol: report-only, read by no check, gate or premise) no "
        "longer runs in the full profile (protocol_report '' there) and runs in the quick profile instead, so "
        "its code stays exercised; its last full-profile numbers are those of the 14:02 run above "
        "(code-protocol gate 0.994-1.11 1-D, 0.976-1.03 3-D). (2) Bit-identical engineering: oracle_path_loss "
        "computes the start-ability residuals once instead of at every step, and the direct oracle "
        "(train/gate_oracle_exact), whose seed only draws Gumbel noise it never uses, is computed once instead "
        "of 4 times. select_becat now checks its weights before the random first item returns (changes no "
        "value). On dev seed 100 (full profile) every remaining metric equals the old code's bit for bit, and "
        "the quick profile's (seeds 0, 1) too apart from the added code-protocol keys; CPU per seed 92 -> 38-40 s (two measurements). "
        "Stored full run (seeds 0-4, 17:25, written after it): every metric of every seed equals the 14:02 "
        "rows bit for bit except the five dropped code-protocol keys; verdicts unchanged (gate met in 1 of 5 "
        "seeds, every claim not-checkable); 200 s CPU in jobs, 36.2-43.8 s per seed."
    ),
    examples="icml26.decision.gpm.method:examples",
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=120, params={
            "n_items": 40, "n_train": 200, "n_test": 100, "test_length": 6, "train_iters": 25,
            "train_iters_code": 25, "batch": 64, **_COMMON}),
        "full": Profile("full", seeds=5, timeout_s=900, params={
            "n_items": 80, "n_train": 600, "n_test": 200, "test_length": 10, "train_iters": 150,
            "train_iters_code": 40, "batch": 256, **_COMMON,
            # seventh session: the code-protocol training (report-only, decides nothing) runs in quick only
            "protocol_report": ""}),
    },
    claims=(
        Claim(
            id="fewer-than-becat",
            kind="headline",
            statement="GPM reaches the estimation accuracy of global gradient matching (BECAT) "
                      "with fewer questions.",
            paper_value="same accuracy with on average 20% fewer questions (real and synthetic data)",
            control=("BECAT: the questions BECAT itself needs to reach its length-L accuracy (sixth session: "
                     "BECAT's first item is at random, as in EduCAT's test script; review: this weakens BECAT "
                     "at L >= 5, full run 1-D MSE at L = 10 0.190 -> 0.199, 3-D 0.544 -> 0.548, as the dev "
                     "numbers of the pre-registration commit already showed; if the gate is ever met, decide "
                     "this claim against the stronger of first='random' and first='gain', which needs a "
                     "re-run)"),
            check=C.beats("q_gpm_to_becat", "q_becat_to_becat", better="lower", at="each", margin=0.1,
                          label="GPM questions / L", control_label="BECAT questions / L").gated(_GATE),
            reference=0.8,
        ),
        Claim(
            id="fewer-than-best",
            kind="headline",
            statement="GPM reaches the accuracy of the best existing selection method with ~20% "
                      "fewer questions.",
            paper_value="on average 20% fewer questions than prior methods for the same accuracy",
            control="the best of Random, MFI, KLI and BECAT at length L, and the questions it needs",
            check=C.beats("q_gpm_to_best", "q_best_to_best", better="lower", at="each", margin=0.1,
                          label="GPM questions / L", control_label="best baseline questions / L").gated(_GATE),
            reference=0.8,
        ),
        Claim(
            id="beats-random",
            kind="headline",
            statement="The learned GPM policy estimates ability more accurately than random selection.",
            paper_value="GPM outperforms all baselines, random included, at every test length",
            control="random selection",
            check=C.beats("mse_tail/gpm", "mse_tail/random", better="lower", at="each", need=0.9,
                          label="GPM MSE", control_label="Random MSE").gated(_GATE),
        ),
        Claim(
            id="heldout-auc",
            kind="headline",
            statement=("Under the authors' protocol (learned model, held-out responses) GPM's tests predict "
                       "held-out responses better than BECAT's."),
            paper_value="GPM above BECAT in ACC/AUC on ASSIST, Eedi and EXAM (table values not public)",
            control=("BECAT under the same learned model and estimator (sixth session: its first item at "
                     "random, as in EduCAT's test script)"),
            check=C.beats("auc/gpm", "auc/becat", better="higher", at="each",
                          label="GPM AUC", control_label="BECAT AUC").gated(_GATE),
        ),
    ),
)

_EXPORTS = {name: ".method" for name in (
    "prob", "item_gradients", "map_estimate", "information", "select_random", "select_mfi", "select_kli",
    "select_becat", "becat_gains", "becat_expected_distance", "item_difficulty", "make_policy", "gpm_choice",
    "gradient_gap", "inner_step", "gd_estimate", "GPMModel", "train_gpm", "path_loss_of", "select_gpm",
    "heldout_gap", "code_fd_term", "protocol_pieces", "selection_feature", "oracle_path_loss",
    "heldout_scores", "run_cat")}
_EXPORTS.update({name: ".setting" for name in ("make_bank", "simulate", "split_heldout", "questions_to_reach")})
__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["PAPER", *_EXPORTS]
