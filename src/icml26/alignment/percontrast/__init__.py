"""PerContrast / PerCE: Rethinking Personalization in Large Language Models at the Token Level (arXiv:2603.06595).

PerContrast scores each response token by its personal influence ratio, the model's
probability of the token with the user profile over its probability with the profile removed
(a causal intervention, no gradient); PerCE up-weights the tokens that depend on the profile
in the cross-entropy, re-estimating the weights with the current model as training goes (a
bootstrap, estimate/optimise alternation). The package holds the score, the weight transform,
the loss and the training loop (``method``), a synthetic personalised-writing world with known
personal tokens (``setting``) and the comparison with CE, random weights, loss-based weights
and oracle weights (``experiment``).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

# The weight-transform sweep (third session; reported as a figure panel and metrics, no verdict): one choice
# the sources leave open changed at a time from PerCE's default (clip(PIR, 1, 5), profile masked, / sum w).
SWEEP = {"log": {"transform": "log"}, "wmax2": {"w_max": 2.0}, "tokens": {"normalise": "tokens"},
         "delete": {"removal": "delete"}}
_COMMON = {"n_users": 200, "batch": 32, "lr": 3e-3, "lr_mult": 3.0, "w_max": 5.0, "normalise": "weights",
           "distractor": False, "profile_dropout": 0.15, "threads": 1}
_GATES = (C.gate("gate/ce_loss_ratio", at_least=2.0, why="CE's held-out loss halves"),
          C.gate("gate/oracle_gain", at_least=0.03, frac=0.8,
                 why="oracle-mask weights beat CE by >= 0.03 slot accuracy in >= 80% of seeds"))
# Added in a second session, before its re-run, knowing the first full run's verdicts (disclosed in every
# claim that uses it): the premise that the shared base reads the profile at an intermediate level.
_BASE_WHY = ("premise (pre-registered in the second session, after the first full run had shown a base that "
             "barely read the profile, 0.14-0.25): the shared CE base reads the profile at an intermediate level, "
             "held-out personal-slot accuracy in [0.35, 0.8] (chance 0.125), in >= 80% of seeds")
BASE_GATES = (C.gate("base/slot_acc", at_least=0.35, frac=0.8, why=_BASE_WHY + " (lower bound)"),
              C.gate("base/slot_acc", at_most=0.8, frac=0.8, why=_BASE_WHY + " (upper bound)"))
# Module-level code counts in the run fingerprint (only PAPER is excluded): the gates revised or added by
# review after the full run are therefore written inside PAPER below, and _GATES[1] is no longer used.

PAPER = Paper(
    slug="percontrast",
    title="Rethinking Personalization in Large Language Models at the Token Level",
    source="arXiv:2603.06595",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.percontrast.method:EXAMPLES",
    substitution=(
        "Kept: PerContrast's no-gradient causal intervention (log PIR = log p(y_t | u, x, y_<t) - log p(y_t | x, "
        "y_<t), the profile u masked by a placeholder or deleted: both implemented and both scored, masking used "
        "by PerCE), the PerCE weighted cross-entropy with the weights held fixed, and the bootstrap (weights "
        "re-estimated with the current model at every step, after a plain-CE warm-up). Not in the sources we could "
        "read (the abstract, introduction and third-party summaries; the method section was not reachable) and so "
        "chosen by us: w = clip(PIR, 1, w_max = 5), normalisation by the sum of the weights, re-estimation every "
        "step, and the warm-up (a shared CE base model). Replaced: Qwen3-4B and other LLMs fine-tuned on LongLaMP / "
        "ALOE / LaMP by a 2-layer TinyLM (d = 48, word-level tokenizer of ~150 words) trained from scratch: a shared "
        "base trained with plain CE for 300 steps (constant lr 3e-3), then 120 fine-tuning steps per scheme from "
        "copies of it (same batches, lr 3e-3 with warm-up and cosine decay); that is the first session's recipe: the "
        "current one, described below in (b), (e) and (h), stops the base once its validation slot accuracy reaches "
        "0.45 (at most 800 steps) and fine-tunes each arm for 80 steps. The data are synthetic: 200 users with a "
        "colour, an item and a tone (8 values each), a profile of three short phrases that leak them in random "
        "order, 5 query and 5 response templates per task family (recommend, review); each ~23-word response holds 3 "
        "personal tokens (~13%), a topic copied from the query and a random weekday; 20% of users are held out for "
        "testing. 15% of the training examples come without their profile (masked or deleted) in every arm, so that "
        "the intervention's inputs are in-distribution for a model trained from scratch (an LLM reads a prompt "
        "without a profile natively; without this the masked input shifted every token's probability and PerCE "
        "up-weighted generic tokens as much as personal ones). ROUGE-L (rouge-score) and METEOR (nltk, exact and "
        "stem matches only: the WordNet data cannot be downloaded here) score greedy free generation; the headline "
        "personalisation metric is teacher-forced personal-slot accuracy on held-out users. The paper's LLM-judge "
        "scores and benchmark percentages are not reproduced. Measured after the first full run: the shared "
        "base reads the profile barely above chance (slot accuracy 0.14-0.25, chance 0.125; the CE arm ends at "
        "0.18-0.66), so PerContrast's weights reach personal tokens (mean weight 1.05-2.4 vs 1.006 on generic "
        "tokens) but weakly, less than loss-ratio weights do (3.2-3.8). Review after the full run (no metric "
        "changed, every revision also stated in its check's text): (1) the oracle-weight gate had failed 3/5 only "
        "because seed 1's gain of exactly 18/600 read as 0.02999997 in float32; with a 1e-6 tolerance it is met "
        "4/5, so the personalisation claim is decided: PerCE beats CE, random and loss-ratio weights by >= 0.03 in "
        "only 2/5 seeds each (not reproduced; PerCE leads CE at half of the budget, 0.35 vs 0.30, and ties it at "
        "the end, 0.445 vs 0.430; CE at 3 x lr reaches 0.494); (2) the all-of rule gave 'partly' when only the "
        "perplexity bound held, now that bound is a necessary condition; (3) a premise gate was added to the "
        "identification claim (the scored CE model must read the profile, slot accuracy >= 0.5 in 4/5 seeds; met "
        "2/5), since an unread personal token has a high loss and so favours the loss baseline by construction; "
        "token rarity (AUROC 0.96) separates the personal tokens, which are content words, better than "
        "PerContrast (0.76; 0.83-0.88 in the two seeds whose model reads the profile); (4) a premise gate was "
        "added to the learning-rate claim: CE is not hurt by 3 x lr at this budget (it gains 0.064 on average), "
        "so there is nothing to be robust against; (5) the cross-task rule counts a strict win only (seed 3 was "
        "an exact tie, 204/600 each). Second session (revisions made knowing the first full run's verdicts, "
        "committed before the re-run, chosen on development seeds 98-99 that are not in the profile and on premise "
        "metrics only): (a) the 40 held-out users are split into 20 validation and 20 test users (n_test 400 "
        "examples before the split); (b) the shared base is trained with constant-lr CE until its validation "
        "slot accuracy reaches 0.45 (checked every 25 steps from step 100, at most 800 steps) instead of a fixed 300 "
        "steps, and a premise gate requires its test slot accuracy to lie in [0.35, 0.8] in >= 4/5 seeds (on the "
        "development seeds the slot accuracy climbs from ~0.25 at 200 steps to 0.5-0.86 at 350, at a speed "
        "that differs by seed; the first full run's seeds read only 0.14-0.25 at 300); (c) the learning-rate "
        "stress is 10 x lr (was 3 x, which helped CE), with 'CE degrades' as its pre-registered gate; (d) CE and "
        "PerCE each get their lr chosen from {1, 3, 10} x lr on the validation users, and the CE comparison of "
        "the personalisation claim is between the two tuned arms (random and loss-ratio weights stay at 1 x lr "
        "and are compared with PerCE at 1 x lr). Measured in the second full run (5 seeds; load average ~7, "
        "450 s with --jobs 2, over the 3-min budget because of the two extra lr arms per scheme): the base stops "
        "after 250-350 steps and reads the profile at 0.39-0.56 on the test users (gate met 5/5); the oracle "
        "gate is met 4/5 (gains 0.05, -0.01, 0.11, 0.13, 0.20); the CE-trained model reads the profile at "
        "0.71-0.87. Verdicts: personalisation not reproduced (tuned PerCE 0.802 vs tuned CE 0.832, CE's lr "
        "choice 10/3/3/3/10 x, PerCE's 1/3/3/3/3 x; PerCE at 1 x lr 0.744 vs random weights 0.740 and "
        "loss-ratio weights 0.825; generic perplexity ratio 1.00); identification not reproduced (AUROC 0.914 vs "
        "0.963 for rarity, PerContrast ahead in 2/5 seeds); lr-robust not checkable (10 x lr hurt CE by >= 0.03 "
        "in 3/5 seeds only); cross-task reproduced by the strict-win rule in 4/5 seeds but by a small margin "
        "(0.417 vs 0.401; random weights 0.395, oracle 0.464, CE trained in-domain on review 0.539); free "
        "generation partly (ROUGE-L 0.437 vs 0.435, METEOR 0.466 vs 0.471). Third session (revisions made knowing "
        "the second run's verdicts, committed before the re-run, chosen on development seeds 100-105 from premise "
        "metrics only: CE's and the oracle's slot accuracy, never PerCE's): (e) budget: the E-step reuses the "
        "M-step's forward pass with the profile instead of a second one (the same numbers for a model without "
        "dropout; tested), the stress, lr-grid and in-domain arms skip the intermediate learning-curve evaluations, "
        "the identification on the PerCE-trained model (read by no check) is dropped, and each arm fine-tunes for 80 "
        "steps instead of 120 (on the development seeds the oracle gate holds in 2/6 seeds at 80 steps, gains 0.11, "
        "0.02, 0.02, 0.00, 0.01, 0.14, and in 2/6 at 120, gains 0.04, 0.02, 0.02, 0.00, 0.10, 0.01: it is fragile "
        "at either budget, "
        "and the cut does not weaken it; the gate itself is unchanged); (f) the learning-rate stress is 20 x lr (see "
        "the lr-robust claim); the lr grid of the tuned comparison stays {1, 3, 10} x; (g) the weight-transform "
        "sweep the card asks for, reported as metrics (sweep/<variant>/*) and a figure panel, with no verdict: "
        "PerCE with one open choice changed at a time, the log transform w = min(1 + log PIR+, 5), a milder clip "
        "w_max = 2, normalisation by the number of tokens instead of the sum of the weights, and the profile deleted "
        "instead of masked; (h) a bug found: the shared base was asked for a constant lr, but a shadowed name in "
        "train_weighted gave it a cosine decay over its 800-step horizon (stopped early, at 225-350 steps, lr factor "
        "0.66-0.86 at the stop); the code is fixed and the base now asks for the cosine that was actually run, so the base is "
        "unchanged and 'constant lr' above describes the request, not what ran. Measured in the third full run (5 "
        "seeds; 255.9 s CPU in jobs, slowest job 52.9 s, with --jobs 2 under a load average of ~25; no check "
        "changed after it): the base stops after 250-350 steps and reads the profile at 0.39-0.56 (gate 5/5), CE's "
        "held-out loss falls 14-19 x, but the oracle gate is met in 3/5 seeds only (gains 0.016, -0.006, 0.065, "
        "0.061, 0.052; it had been met 4/5 at 120 steps in the second run, and 2/6 development seeds met it at "
        "either budget; the profile seeds were not re-run at 120 steps), so the four claims behind it are not "
        "checkable. On these numbers: personalisation would be not reproduced (tuned PerCE 0.734 vs tuned CE "
        "0.739, PerCE's lr choice 10/3/3/3/10 x, CE's 1/3/1/3/3 x; PerCE at 1 x lr 0.714 vs CE 0.725, random weights 0.690, "
        "loss-ratio weights 0.725; generic perplexity ratio 1.00); lr-robust partly (20 x lr now hurts CE in 5/5 "
        "seeds, drops 0.27-0.49, mean 0.362, so its premise holds; PerCE's drop, mean 0.318, is lower in 3/5 seeds; "
        "at 20 x both arms fall to 0.19-0.52 slot accuracy); cross-task partly (0.399 vs 0.394, strict win in 3/5; "
        "oracle weights 0.437, CE trained in-domain on review 0.496); free generation not reproduced (ROUGE-L 0.466 "
        "vs 0.448 and METEOR 0.498 vs 0.478, ahead in 2/5 seeds each). Identification is not reproduced (AUROC "
        "0.892, ahead of the best of loss / rarity in 1/5 seeds; rarity 0.963, loss 0.888; the profile deleted "
        "instead of masked 0.893). Weight-transform sweep (reported; slot accuracy on held-out users, seed mean; CE "
        "0.725): PerCE's default 0.714, log transform 0.726, w_max 2 0.738, normalisation by token count 0.715, "
        "profile deleted 0.737; ahead of CE in 2, 3, 4, 2 and 4 of 5 seeds, by the personalisation margin 0.03 in "
        "at most 1/5 (w_max 2); mean weight on personal tokens 2.83, 2.17, 1.59, 2.83, 2.84 against 1.004-1.014 on "
        "generic tokens; generic perplexity 1.10 in every variant. No choice the sources leave open turns PerCE's "
        "weights into a clear gain over CE at this scale. Seventh session (budget only; no check, gate or recipe "
        "changed; no remaining metric's computation changed): one seed of the full profile cost 74-86 s CPU in the "
        "last timing before it (409 s for the five seeds; development seed 100: 77.1 s), so the full profile broke "
        "its 3-minute budget; three changes, each proved on development seed 100 to leave every remaining metric "
        "bit-identical (all 82 common metrics equal, seed cost 77.1 -> 52.3 s CPU, measured cold, one thread): the "
        "log-softmax of response_logprobs runs on the rows that score response tokens only (the same values and "
        "gradients, tested), and the full profile no longer runs three report-only measurements, which the quick "
        "profile keeps: the weight-transform sweep (its numbers above are the third session's), CE trained in-domain "
        "on review (0.496 in the third session's run) and the free generation of the random, loss-ratio and oracle "
        "arms (the free-generation claim reads CE and PerCE only). Stored full run of the seventh session (5 seeds; "
        "296.0 s CPU in jobs, 56.7-62.1 s per seed with --jobs 2 under a load average of ~3-4). Budget: 5 seeds on 2 "
        "workers take about three seeds' wall time, 3 x 52-62 s = ~157-186 s on idle cores, so the budget is met "
        "only at its limit, not with room. Idle-core timing afterwards (the same code, ICML26_NO_CACHE=1, --jobs 2, "
        "nothing else running; these are the stored rows now, every verdict and gate value as in the loaded run): "
        "168.4 s wall for the run (171.8 s with the command's start), 277.2 s CPU in jobs, 53.6-58.4 s per seed: "
        "inside the 3 minutes, by ~5%. The gated verdicts are unchanged. Its "
        "rows are not bit-identical to the previous stored rows (7 Dec 03:51, whose numbers are the third session's "
        "above; before a restart of this machine): float-level differences from the base's training on (seed 0's "
        "base held-out loss 0.4607280 vs 0.4607256, the same stop steps), amplified by training; the code as it was "
        "before this session, run now on seed 0, gives this session's row exactly, so the difference does not come "
        "from this session's changes; its cause was not found. Per-seed readings moved within that noise: the lr "
        "chosen on the validation users changed in 2/5 seeds for CE (1, 3, 1, 3, 3 x -> 3, 10, 1, 3, 3 x) and in 2/5 "
        "for PerCE (10, 3, 3, 3, 10 x -> 1, 3, 1, 3, 10 x); tuned personalisation flipped sign (tuned PerCE 0.734 vs "
        "tuned CE 0.739 before, 0.761 vs 0.752 now); lr-robust's ungated reading moved from partly (3/5) to "
        "reproduced (4/5; seed 2's CE drop minus PerCE drop from -0.018 to +0.053). These readings sit within float "
        "and seed noise; none is decided, because the oracle gate (3/5) blocks them. Numbers of this run: the base "
        "reads the profile at 0.39-0.56 (gate 5/5), CE's held-out loss falls 14-19 x, the oracle gate is met in 3/5 "
        "seeds (gains 0.013, -0.017, 0.076, 0.061, 0.043), so the four claims behind it stay not checkable; on these "
        "numbers personalisation would be not reproduced (tuned PerCE 0.761 vs tuned CE 0.752; PerCE at 1 x lr 0.708 "
        "vs CE 0.728, random weights 0.693, loss-ratio weights 0.724; generic perplexity ratio 1.00), lr-robust "
        "reproduced (PerCE's drop lower in 4/5 seeds, mean 0.351 vs CE's 0.374), cross-task partly (0.402 vs 0.396, "
        "strict win in 3/5), free generation not reproduced (ROUGE-L 0.464 vs 0.452, METEOR 0.494 vs 0.482, ahead in "
        "2/5 seeds each); identification is not reproduced (AUROC 0.892, ahead of the best of loss / rarity in 1/5 "
        "seeds; rarity 0.963, loss 0.888, profile deleted 0.894)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "n_users": 60, "n_train": 300, "n_test": 60, "d_model": 16, "base_steps": 15, "steps": 16,
            "val_users": True, "base_target": 0.45, "base_min": 10, "base_check": 5, "lr_mult": 20.0,
            "lr_grid": [3.0, 10.0],
            "n_gen": 4, "arms": ["ce", "perce", "random", "loss", "oracle"], "sweep": SWEEP}),
        "full": Profile("full", seeds=5, timeout_s=1200, params={
            **_COMMON, "n_train": 3000, "n_test": 400, "d_model": 48, "base_steps": 800, "steps": 80, "n_gen": 20,
            "val_users": True, "base_target": 0.45, "base_min": 100, "base_check": 25, "lr_mult": 20.0,
            "lr_grid": [3.0, 10.0],
            "arms": ["ce", "perce", "random", "loss", "oracle"], "gen_arms": ["ce", "perce"], "in_domain": False}),
    },
    claims=(
        Claim(id="improves-personalisation", kind="headline",
              statement="PerCE improves personalisation over standard CE at minimal extra cost: higher personal-slot "
                        "accuracy on held-out users than CE, random weights of the same distribution and loss-based "
                        "up-weighting, with generic perplexity no worse than 1.1 x CE's.",
              paper_value="average gains above 10% and up to 68.04% (METEOR, personalised review writing, LongLaMP, "
                          "Qwen3-4B) over CE",
              control="plain CE; random weights with PerCE's distribution; loss-ratio weights (Rho-1/focal style)",
              check=None),  # experiment.check_improves_personalisation (the perplexity bound gives no partial credit)
        Claim(id="identifies-personal-tokens", kind="headline",
              statement="PerContrast identifies personal tokens better than token loss and token rarity.",
              paper_value="qualitative: PerContrast best of three methods on personal-token identification (Fig. 4)",
              control="token loss and token rarity as scores (same CE-trained model)",
              check=C.beats_in_seeds("auroc/pir", "auroc/best_baseline", margin=0.0, label="PerContrast AUROC",
                                     control_label="best of loss / rarity AUROC").gated(
                  _GATES[0], *BASE_GATES,
                  C.gate("slot/ce", at_least=0.5, frac=0.8,
                         why="premise, added by review after the full run (not pre-registered): the CE-trained "
                             "model whose PIR is scored reads the profile (held-out personal-slot accuracy >= 0.5, "
                             "chance 0.125) in >= 80% of seeds; PIR can only find tokens the model predicts from "
                             "the profile, and a model that cannot read it gives the unread personal tokens a high "
                             "loss, which favours the loss baseline by construction. Full run of 30 Nov: met in 2/5 "
                             "seeds (0.63, 0.66), and in those two PerContrast still lost to loss (0.88/0.83 vs "
                             "0.89/0.89) and to rarity (0.96/0.95). Second full run (base trained to an "
                             "intermediate reading, see the substitution): met in 5/5 seeds (0.71-0.87), so the "
                             "claim is decided: PerContrast beats the best of loss / rarity in 2/5 seeds (0.997 vs "
                             "0.952, 0.985 vs 0.982) and loses in 3 (0.88/0.83/0.88 vs 0.96/0.95/0.97; mean 0.914 "
                             "vs 0.963): not reproduced"))),
        Claim(id="lr-robust", kind="headline",
              statement="PerCE is robust to the learning rate: at 20 x lr it loses less slot accuracy than CE "
                        "(the multiplier was 3 in the first session and 10 in the second; raised to 20 in the third, "
                        "before its re-run, because 10 x lr hurt CE in only 3/5 seeds of the second run; 20 x was "
                        "chosen on development seeds 100-105 by CE's drop alone: >= 0.03 in 6/6 seeds, against 4/6 "
                        "at 10 x).",
              paper_value="CE degrades at higher learning rates while PerCE stays stable (PAG ROUGE-L 0.226 -> 0.373 "
                          "in that regime, per a third-party summary)",
              control="plain CE at the same two learning rates",
              check=C.beats_in_seeds("lr/perce_drop", "lr/ce_drop", better="lower", label="PerCE's drop",
                                     control_label="CE's drop").gated(
                  _GATES[0], *BASE_GATES,
                  C.gate("gate/oracle_gain", at_least=0.03 - 1e-6, frac=0.8,
                         why="oracle-mask weights beat CE by >= 0.03 slot accuracy in >= 80% of seeds (float32 "
                             "tolerance 1e-6 added by review after the full run: slot accuracy counts held-out "
                             "slots, and seed 1's gain of exactly 18/600 read as 0.02999997 and failed the gate)"),
                  C.gate("lr/ce_drop", at_least=0.03 - 1e-6, frac=0.8,
                         why="premise: the learning-rate stress hurts CE (its slot accuracy falls by >= 0.03 in "
                             ">= 80% of seeds), the regime in which the paper says CE degrades and PerCE stays "
                             "stable. Added by review after the first full run, where 3 x lr did not hurt CE "
                             "(mean +0.064); the second session, before its re-run, raised the multiplier to 10 "
                             "(chosen on development seed 99, not in the profile, by CE's drop alone: 0.38 at 10 x, 0.69 at 30 x; the smaller one that clearly hurts CE) and keeps "
                             "this gate as its pre-registered premise. Second full run: CE's drop at 10 x lr was "
                             "0.010, 0.065, 0.250, 0.308 and -0.104 (met 3/5, mean 0.106), so the stress still "
                             "does not reliably hurt CE at this budget and the claim is not decided (on these "
                             "numbers PerCE's drop, mean 0.035, is lower in 3/5 seeds). Third session, before its "
                             "re-run: the stress is 20 x lr (CE's drop on development seeds 100-105 at the new "
                             "80-step budget: 0.37, 0.46, 0.81, 0.33, 0.14, 0.65; at 10 x: 0.11, -0.02, 0.26, 0.02, "
                             "0.12, 0.09), this gate unchanged"))),
        Claim(id="cross-task", kind="headline",
              statement="PerCE transfers across tasks: trained on the recommend family and tested on the review "
                        "family (held-out users) its slot accuracy beats CE trained on the same family; CE trained "
                        "in-domain on review was reported beside it (0.496 in the third session's run). Since the "
                        "seventh session the full profile does not train it, by decision: its budget is at the "
                        "limit, the arm costs ~3 s a seed, and no check reads it (the quick profile still trains "
                        "it). The paper's own cross-task comparison is against CE trained in-domain, so the full "
                        "profile no longer gives that context.",
              paper_value="qualitative: PerCE trained on one task often beats CE trained in-domain",
              control="CE trained on the same (source) family",
              # margin 1e-6 (revised by review after the full run): a win is strict, an exact tie of
              # slot counts (seed 3: 204/600 each) is not "beats"; one slot is 1/600, so any margin
              # in (0, 1/600) is the strict rule
              check=C.beats_in_seeds("transfer/perce", "transfer/ce", margin=1e-6,
                                     label="PerCE A->B (strict win; ties not counted, revised by review after the "
                                           "full run)",
                                     control_label="CE A->B").gated(
                  _GATES[0], *BASE_GATES,
                  C.gate("gate/oracle_gain", at_least=0.03 - 1e-6, frac=0.8,
                         why="oracle-mask weights beat CE by >= 0.03 slot accuracy in >= 80% of seeds (float32 "
                             "tolerance 1e-6 added by review after the full run: slot accuracy counts held-out "
                             "slots, and seed 1's gain of exactly 18/600 read as 0.02999997 and failed the gate)"))),
        Claim(id="free-generation", kind="headline",
              statement="PerCE's free generations score higher than CE's on ROUGE-L and METEOR.",
              paper_value="ROUGE-L / METEOR gains on LongLaMP, average above 10%, up to 68.04%",
              control="plain CE",
              check=C.all_of(
                  C.beats_in_seeds("gen/rougeL/perce", "gen/rougeL/ce", label="PerCE ROUGE-L", control_label="CE"),
                  C.beats_in_seeds("gen/meteor/perce", "gen/meteor/ce", label="PerCE METEOR", control_label="CE"),
              ).gated(
                  _GATES[0], *BASE_GATES,
                  C.gate("gate/oracle_gain", at_least=0.03 - 1e-6, frac=0.8,
                         why="oracle-mask weights beat CE by >= 0.03 slot accuracy in >= 80% of seeds (float32 "
                             "tolerance 1e-6 added by review after the full run: slot accuracy counts held-out "
                             "slots, and seed 1's gain of exactly 18/600 read as 0.02999997 and failed the gate)"))),
        Claim(id="loss-identities", kind="identity",
              statement="PerCE with unit weights is CE; log PIR is 0 when nothing is removed; the PerCE gradient "
                        "is the weight-scaled CE gradient.",
              paper_value="by construction of the loss",
              check=C.close("identity/max_err", to=0.0, tol=1e-5, label="max identity error")),
    ),
)

_API = ("response_logprobs", "personal_influence", "perce_weights", "loss_ratio_weights", "shuffled_weights",
        "weighted_ce", "token_weights", "train_weighted")
_SETTING = ("make_tokenizer", "make_users", "make_examples", "make_world", "encode", "Batch")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", *_API, *_SETTING]
