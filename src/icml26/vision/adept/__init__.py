"""ADEPT: RL-Aligned Agentic Decoding of Emotion via Evidence Probing Tools (arXiv:2602.12714).

Speech emotion recognition as a multi-turn inquiry: an agent keeps a candidate set of emotions,
calls semantic and acoustic probing tools, and adjudicates a primary emotion plus co-occurring
minor emotions; minority annotator votes are targets, not noise; GRPO with an Evidence Trust
Gate couples tool use to prediction quality. Here on synthesised speech with real tools
(parselmouth, librosa, opensmile), a small torch policy in place of the speech LLM, and the
GRPO loss of :mod:`icml26.nn.rl`.
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_GRPO_GATES = (
    C.gate("grpo/adept/rise", at_least=0.2, frac=0.8, why="ADEPT's mean GRPO reward rose by >= 20%"),
    C.gate("grpo/adept/reward_minus_random", at_least=0.0, frac=0.8,
           why="the trained ADEPT policy's test reward is above the random-tool policy's"),
)
_ENCODER_GATE = C.gate("encoder/loss_drop", at_least=1.5, frac=0.8,
                       why="the log-mel encoder's training loss fell 1.5x (the control trained)")

PAPER = Paper(
    slug="adept",
    title=("ADEPT: RL-Aligned Agentic Decoding of Emotion via Evidence Probing Tools - From Consensus Learning "
           "to Ambiguity-Driven Emotion Reasoning"),
    source="arXiv:2602.12714",
    cluster="vision",
    feasibility="B",
    examples="icml26.vision.adept.experiment:EXAMPLES",
    substitution=(
        "Keeps: emotion recognition as an inquiry (candidate distribution -> tool calls -> adjudication of a primary "
        "emotion plus a minor-emotion set), semantic and acoustic probing tools run by the field's libraries "
        "(Praat F0 and jitter/shimmer through parselmouth, librosa RMS energy and onset rate, openSMILE eGeMAPSv02 "
        "functionals, a lexicon probe on the transcript), minority annotator votes as targets, GRPO (group-normalised "
        "advantages, clipped surrogate, k3 KL to the starting policy; icml26.nn.rl.grpo_loss) with an Evidence Trust "
        "Gate, a text-only and an opaque audio-encoder baseline, and a zero-shot shifted-speaker test. "
        "Replaces: MSP-Podcast and IEMOCAP (licensed) by synthesised 0.5 s clips at 16 kHz (source-filter model; "
        "four emotions blended with 0-2 minor emotions, overlapping speaker-dependent prosody, a 5-7.5 kHz breath cue "
        "that no tool targets (it is not untooled: a review measured that it moves eGeMAPS MFCC1-4, HNR and loudness "
        "and Praat jitter, so the always-called eGeMAPS tool reads it), transcripts that on ~30% of items carry an "
        "emotion absent from the voice) voted on by "
        "seven simulated annotators who weigh words as well as voice; the shifted set has higher-pitched, "
        "shorter-tract, faster and noisier speakers. The speech LLM by a small torch policy (adjudicator MLP over the "
        "collected evidence + controller MLP over the candidate distribution, called tools and turn), warm-started "
        "on consensus labels with random tool subsets (standing in for the SLLM's prior ability) and then trained by "
        "GRPO; a TinyLM would not learn tool use and adjudication in a per-seed budget of seconds. WavLM by an MLP "
        "on log-mel statistics. Tool outputs become per-emotion support through logistic probes on vote "
        "distributions (out-of-fold). The paper's method section was not retrievable (abstract and introduction "
        "only): the tool list, reward weights (lambda_m = 1, r_tool = 0.3, per-call bonus 0.1), the gate (tool "
        "reward = r_tool * 1[correct] * fraction of called tools whose own top emotion is the prediction), the "
        "minority rule (any emotion with >= 1 of 7 votes that is not the plurality) and the turn limit (each tool "
        "at most once) are our readings. Natural-language explanations are not reproduced; the evidence trace is "
        "the gymnasium tool env's log. "
        "Measured after the full run (not pre-registered claims): the supervised warm start with every tool called "
        "is more accurate than any GRPO agent (0.710 vs ADEPT 0.667; conflict items 0.519 vs 0.353); the gated agent "
        "always calls the lexicon and eGeMAPS and rarely anything else, so on conflict items it leans on the words "
        "(under our reading the agreement term rewards self-consistent evidence); the no-minority agent's best "
        "consensus threshold sat at the grid floor (0.001) in 3/5 seeds. "
        "Review (a one-off scratch run of the same pipeline on the 5 full-profile seeds; not stored rows, not a "
        "verdict): GRPO with no tool term at all (no gate, no bonus) reaches accuracy 0.700 and conflict accuracy "
        "0.485 (ADEPT 0.667 / 0.353), so the gate lowers both; the constant rule 'every emotion except the warm "
        "start's primary is minor' has minor macro-F1 0.360 and the warm start thresholded on consensus 0.31-0.39, "
        "both above ADEPT (0.298) in every seed; the warm start's shifted-set drop is 0.035 (ADEPT 0.032, encoder "
        "0.142)."),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_train": 40, "n_test": 24, "n_shift": 24, "dur": 0.5, "conflict_rate": 0.3, "encoder_steps": 100,
            "sft_steps": 80, "grpo_steps": 20, "batch": 8, "group": 4, "inner": 1, "hidden": 32, "env_items": 4},
            timeout_s=300),
        "full": Profile("full", seeds=5, params={
            "n_train": 250, "n_test": 120, "n_shift": 120, "dur": 0.5, "conflict_rate": 0.3, "encoder_steps": 400,
            "sft_steps": 300, "grpo_steps": 150, "batch": 24, "group": 8, "inner": 1, "hidden": 64, "env_items": 20},
            timeout_s=900),
    },
    claims=(
        Claim(
            id="primary-accuracy",
            statement=("ADEPT's primary-emotion accuracy is at least the opaque encoder's minus one point, and on "
                       "conflict items (words contradict voice) it beats the text-only classifier by >= 20 points. "
                       "Rule revised after the full run by review: also compared with the supervised warm start "
                       "with every tool (the same pipeline without GRPO, the inquiry or the gate); a loss there "
                       "caps the verdict at partly, so partly says only that the tool pipeline beats the audio-only "
                       "encoder, not that GRPO or the gate helps. (Changed by review after the full run: partly "
                       "-> not-reproduced, the control put in the method's place reads the same partly (the "
                       "declarative substitution had put a mix there, the warm start's accuracy with the text-only "
                       "model's conflict accuracy; the supervised warm start wholly in ADEPT's place passes every "
                       "part: accuracy 0.710 vs the encoder's 0.527, conflict items above text-only by >= 0.2 in "
                       "5/5 seeds, 0.519 vs 0.085, where ADEPT has 0.667, 3/5 seeds at 0.353, and -0.043 "
                       "[-0.077, -0.009] against the warm start): what ADEPT passes is the tool pipeline's, "
                       "not GRPO's. The check is now hand-written (check_primary_accuracy: the same rule, needing a "
                       "part each control, wholly in ADEPT's place, fails) and the common test puts the warm start "
                       "there. Against the log-mel encoder wholly in ADEPT's place no part reads better for ADEPT "
                       "either: the encoder is above text-only on conflict items by >= 0.2 in 5/5 seeds, 0.466, and "
                       "non-inferior to itself, though ADEPT's accuracy is above it by +0.14.)"),
            paper_value="qualitative: 'improves in most cases the primary emotion accuracy' over SLLM and SSL baselines",
            kind="headline",
            control=("log-mel MLP on consensus labels (SSL-encoder analogue), a text-only classifier (SLLM text "
                     "bias), and the supervised warm start with every tool (added by review)"),
            # the pre-registered rule, unchanged, is check_primary_accuracy_rule in experiment.py
            check=None),
        Claim(
            id="minor-emotions",
            statement=("With minority votes as reward, ADEPT's minor-emotion macro-F1 exceeds both ADEPT trained without "
                       "the minority reward and the encoder trained on full vote distributions with a tuned "
                       "threshold, by >= 0.05 in >= 4/5 seeds. Rule revised after the full run by review: "
                       "'exceeds both' is pass/fail (all_of with partly='none'); the builder's all_of(partly='any') "
                       "called a 0/5 loss to the vote-distribution encoder 'partly'. The no-minority agent is a weak "
                       "control: GRPO without the minor term collapses its primary distribution, so its best "
                       "consensus threshold sits at the grid floor."),
            paper_value="qualitative: 'substantially improving minor emotion characterization' on MSP-Podcast",
            kind="headline",
            control="ADEPT without the minority reward; log-mel MLP on vote distributions, thresholded",
            check=C.all_of(
                C.beats_in_seeds("test/adept/minor_f1", "test/nominority/minor_f1", margin=0.05, frac=0.8,
                                 label="ADEPT minor F1", control_label="no-minority-reward minor F1"),
                C.beats_in_seeds("test/adept/minor_f1", "test/encoder_soft/minor_f1", margin=0.05, frac=0.8,
                                 label="ADEPT minor F1", control_label="vote-distribution encoder minor F1"),
                partly="none",
            ).gated(*_GRPO_GATES, _ENCODER_GATE)),
        Claim(
            id="gate-curbs-hacking",
            statement=("The Evidence Trust Gate curbs reward hacking: against an ungated per-call tool bonus, ADEPT "
                       "calls fewer tools (by >= 0.5 per utterance), its called tools agree more often with its "
                       "prediction (by >= 0.05), and its accuracy is not lower (seed mean within one point). "
                       "Review note: the first two parts are favoured by construction (the control is paid 0.1 per "
                       "call for free, informative tools, so it calls all six; agreement is the gate's own reward "
                       "term, and dropping dissenting tools raises it); only the accuracy part is informative. The "
                       "naive control a reviewer asks for, GRPO with no tool term, was not run in the stored rows."),
            paper_value="qualitative: the gate 'couples tool-usage behaviors with prediction quality' and mitigates "
                        "reward hacking",
            kind="headline",
            control="the same GRPO agent with a per-call tool bonus and no gate",
            check=C.all_of(
                C.beats_in_seeds("test/adept/calls", "test/nogate/calls", better="lower", margin=0.5, frac=0.8,
                                 label="ADEPT tool calls", control_label="ungated tool calls"),
                C.beats_in_seeds("test/adept/agree", "test/nogate/agree", margin=0.05, frac=0.8,
                                 label="ADEPT evidence agreement", control_label="ungated evidence agreement"),
                C.non_inferior("test/adept/acc", "test/nogate/acc", margin=0.01, by="mean", partly_margin=0.03,
                               label="ADEPT accuracy", control_label="ungated accuracy"),
            ).gated(*_GRPO_GATES)),
        Claim(
            id="zero-shot-transfer",
            statement=("On a shifted-speaker set never trained on, ADEPT's accuracy drop is smaller than the log-mel "
                       "encoder's (by >= 1 point, in >= 4/5 seeds). "
                       "Review note: the tools are not normalised per speaker, but the synthesiser shifts only F0 "
                       "level, formants, loudness, rate and SNR, which the log-mel encoder sees and jitter/shimmer "
                       "(apart from the added noise) and the transcript (identically distributed in both sets) do "
                       "not; the no-gate and "
                       "no-minority agents drop less than ADEPT (0.010, 0.018), so the robustness is the tool "
                       "pipeline's, not GRPO's or the gate's."),
            paper_value="qualitative: robust zero-shot generalisation from MSP-Podcast to IEMOCAP",
            kind="headline", control="log-mel MLP on consensus labels",
            check=C.beats_in_seeds("shift/adept/drop", "shift/encoder/drop", better="lower", margin=0.01, frac=0.8,
                                   label="ADEPT accuracy drop", control_label="encoder accuracy drop"
                                   ).gated(*_GRPO_GATES, _ENCODER_GATE)),
        Claim(
            id="benchmark-numbers",
            statement=("ADEPT's accuracy and minor-emotion F1 on MSP-Podcast, and zero-shot on IEMOCAP, with a speech "
                       "LLM agent (our synthetic-speech accuracy is shown)."),
            paper_value="MSP-Podcast / IEMOCAP tables (not retrieved)",
            kind="headline", no_control="benchmark numbers on licensed corpora with a speech LLM",
            uncheckable="needs MSP-Podcast and IEMOCAP (licensed) and a speech LLM",
            check=C.threshold("test/adept/acc", at_least=0.0, label="ADEPT accuracy on synthetic speech")),
        Claim(
            id="env-trace-replay",
            statement=("The trained agent run step by step as an icml26.agents policy in the gymnasium tool env, "
                       "reading each tool's evidence back from the text trace, makes the same calls, answer and "
                       "reward as the batched rollout (the trace is complete evidence for the decision)."),
            paper_value="auditable evidence traces (qualitative)",
            kind="identity",
            check=C.threshold("env/match", at_least=1.0, label="fraction of episodes equal to the batched rollout")),
    ),
)

__all__ = ["PAPER"]
