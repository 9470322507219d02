"""ConG: Contrastive Weak-to-Strong Generalization (arXiv:2510.07884).

A weak model before (pi_ref) and after (pi_r) preference alignment defines an implicit reward
log pi_r - log pi_ref; contrastive decoding (CD) between them, restricted to the tokens pi_r finds
plausible, approximately maximises it. ConG SFTs a stronger model on CD samples (ConG-S) and then
runs DPO with CD samples as chosen and the strong model's own samples as rejected. The package
holds the CD step and the training arms (``method``), a sorting task with a hidden programmatic
reward (``setting``) and the comparison with WeakSFT, AuxConf, WSPO and a truncation-only control
(``experiment``).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile
from icml26.core.registry import lazy_exports

#: The weak alignment must move the hidden reward, but leave room (issue 23).
GATES = (C.gate("weak/gain", at_least=0.05, frac=0.8, why="weak DPO raised R by >= 0.05"),
         C.gate("weak/gain", at_most=0.2, frac=0.8, why="weak DPO raised R by <= 0.2 (room left)"))
#: A strong model trained on good data can beat the weak aligned model (a ceiling exists).
CEILING = C.gate("gate/ceiling_gap", at_least=0.0, frac=0.8,
                 why="strong SFT on best-of-5 data beats pi_r (a ceiling exists)")

_COMMON = {"n_digits": 6, "k": 4, "p_sorted": 0.3, "p_copy": 0.5, "weak_d": 16, "strong_d": 48, "strong_layers": 2,
           "weak_dpo_lr": 1e-3, "alpha": 0.5, "alpha_sweep": [0.0, 0.3, 0.5, 0.7, 1.0], "aux_max": 0.5,
           "wspo_beta": 0.1, "pref_lr": 1e-3, "dpo_lr_low": 1.8e-4, "threads": 1}


def _beats(arm: str, label: str, frac: float = 0.8) -> C.BeatsInSeeds:
    return C.beats_in_seeds("strong/cong/R", f"strong/{arm}/R", margin=1e-6, frac=frac, label="ConG",
                            control_label=label)


PAPER = Paper(
    slug="cong",
    title="Contrastive Weak-to-Strong Generalization",
    source="arXiv:2510.07884",
    cluster="alignment",
    feasibility="B",
    examples="icml26.alignment.cong.experiment:EXAMPLES",
    substitution=(
        "Kept: the CD score of the released generator, log pi_r - (1 - alpha) log pi_ref on the plausibility set "
        "pi_r >= 0.1 max pi_r, followed by Hugging Face's processors in their order (repetition penalty 1.2 over "
        "prompt and generated tokens, temperature 0.8, top-p 0.95) and sampling; alpha = 0.5 (the released data "
        "default) with a sweep over {0, 0.3, 0.5, 0.7, 1}; pi_r = DPO (beta 0.1) of the weak model on best-vs-worst "
        "of 5 samples (T 0.8, top-p 0.95); ConG-S = SFT of the strong model on CD samples; ConG = DPO of ConG-S "
        "(sigmoid, beta 0.5, 10% warm-up + cosine) with chosen = CD sample, rejected = ConG-S's own sample (T 0.8, "
        "top-p 0.95, the repository's on-policy sampler); naive pi_r samples (the control and WeakSFT's data) use the "
        "same sampler; "
        "baselines WeakSFT, AuxConf (Burns et al.: weak-label CE mixed with CE to the strong model's hardened "
        "prediction, weight ramped to 0.5), WSPO (token-level squared error between beta x strong log-ratio and the "
        "weak log-ratio, beta 0.1, as in the repository's trainer). Added controls: pi_r truncated to the same "
        "plausibility set with the same processors (alpha = 1), and the full SFT + DPO pipeline with those truncated "
        "samples as chosen (the key-idea control). Replaced: Llama-3.2-3B / Qwen2.5 weak and 7-8B strong models by "
        "TinyLMs (weak 1 layer d = 16; strong 2 layers d = 48, about 15x the parameters), trained per seed on a "
        "sloppy corpus for a sorting task (4 digits of 0..5; responses sorted 30%, copied unsorted 50%, random 20%); "
        "UltraFeedback prompts by random digit prompts; ArmoRM and the AlpacaEval2 / Arena-Hard judges by the "
        "hidden reward R = fraction of positions equal to the sorted prompt (mean of 2 T = 1 samples per held-out "
        "prompt; greedy R and the win rate against the untrained strong model reported). Measured in exploration, "
        "before the checks were fixed: on this world CD samples with alpha < 1 had lower R than pi_r truncated to "
        "the plausibility set (alpha = 1), for weak models of width 16 and 48 alike; the world was not changed "
        "after that. Full run (5 seeds, checks unchanged): weak DPO raised R 0.369 -> 0.506; R of naive / truncated / "
        "CD (alpha 0.5) samples 0.576 / 0.595 / 0.549, R rising monotonically with alpha (0.464 at alpha 0, 0.601 at "
        "alpha 1); Spearman(implicit, explicit) 0.002 pooled over naive / truncated / CD samples, 0.066 within naive "
        "samples, so on the samples pi_r and CD produce the implicit reward barely ranks by R; "
        "strong arms (R at T = 1): base 0.447, WeakSFT 0.574, AuxConf "
        "0.615, WSPO 0.591, truncated SFT 0.591 / + DPO 0.498, ConG-S 0.552, ConG 0.436, best-of-5 SFT 0.555. "
        "Added after the first full run and reported only (deciding numbers unchanged): both DPO stages at the "
        "paper's DPO/SFT learning-rate ratio (6e-7 / 1e-5, i.e. 1.8e-4 here instead of 1e-3) give ConG 0.522 and "
        "truncated + DPO 0.567, still below ConG-S and the SFT baselines. "
        "Greedy R and the win rate agree (greedy: ConG "
        "0.582, ConG-S 0.649, WeakSFT 0.654, AuxConf 0.648, WSPO 0.667, truncated + DPO 0.596). "
        "Review diagnostics (full-profile seeds 0 and 1, rerun outside the store, not part of the stored rows): the "
        "weak DPO did learn an implicit reward -- on 5 pi_ref samples per held-out prompt it orders the best-vs-worst "
        "pair correctly 0.78 / 0.77 of the time, pooled Spearman with R 0.53 / 0.49 -- but on pi_r's own samples its "
        "within-prompt pair accuracy is only 0.56 / 0.61, so the near-zero Spearman above is the implicit reward "
        "failing off the distribution it was trained on (the region CD pushes into), not a DPO that never learned; "
        "sampled CD below alpha = 1 holds without the repetition penalty and at T = 1 too; with greedy decoding (not "
        "what the released generator does: it samples) CD at alpha 0.5 is between 0.003 above and 0.022 below "
        "alpha = 1. In the ConG DPO pairs the chosen CD sample has lower R than ConG-S's own sample "
        "(chosen better in 0.26 / 0.25 of pairs, worse in 0.37 / 0.34; the same holds for the truncated control), "
        "because the strong model SFT'd on weak data already exceeds that data: the DPO stage is trained on "
        "inverted preferences here. Training length: SFT 150 and DPO 60 steps of batch 64 on 1,000 prompts "
        "(about 10 and 4 epochs; the paper's DPO runs 1 epoch)."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, timeout_s=300, params={
            **_COMMON, "n_pretrain": 1000, "pretrain_steps": 100, "n_align": 300, "weak_dpo_steps": 20,
            "n_train": 300, "n_sweep": 100, "n_test": 150, "sft_steps": 30, "dpo_steps": 15}),
        "full": Profile("full", seeds=5, timeout_s=600, params={
            **_COMMON, "n_pretrain": 2000, "pretrain_steps": 300, "n_align": 1000, "weak_dpo_steps": 40,
            "n_train": 1000, "n_sweep": 300, "n_test": 500, "sft_steps": 150, "dpo_steps": 60}),
    },
    claims=(
        Claim(id="cd-higher-reward", kind="headline",
              statement="CD samples of the weak pair (alpha = 0.5) carry a higher explicit reward than naive samples "
                        "of the aligned weak model, and implicit and explicit rewards correlate.",
              paper_value="qualitative (Fig. 1b): CD samples above naive samples in ArmoRM reward; implicit and "
                          "explicit reward positively correlated",
              control="plain pi_r sampling (T 0.8, top-p 0.95), and pi_r restricted to the same plausibility set "
                      "with the same processors (alpha = 1)",
              check=C.all_of(
                  C.beats_in_seeds("data/R_cd", "data/R_naive", margin=1e-6, frac=1.0, label="R(CD)",
                                   control_label="R(naive pi_r)"),
                  C.beats_in_seeds("data/R_cd", "data/R_trunc", margin=1e-6, frac=1.0, label="R(CD)",
                                   control_label="R(truncated pi_r, alpha = 1)"),
                  C.threshold("data/spearman", at_least=0.2, on="mean",
                              label="Spearman(implicit, explicit) pooled over the three samplers"),
              ).gated(*GATES)),
        Claim(id="cd-implicit-reward", kind="identity",
              statement="CD samples carry a higher implicit reward log pi_r - log pi_ref than naive pi_r samples "
                        "(near construction: the CD score adds (1 - alpha) x the token log-ratio, so it is an "
                        "identity-kind check of our CD step, not counted as a reproduction).",
              paper_value="qualitative (Fig. 1b): CD samples above naive samples in implicit reward",
              control="plain pi_r sampling, and truncated pi_r (alpha = 1)",
              check=C.all_of(
                  C.beats_in_seeds("data/IR_cd", "data/IR_naive", margin=1e-6, frac=1.0, label="IR(CD)",
                                   control_label="IR(naive pi_r)"),
                  C.beats_in_seeds("data/IR_cd", "data/IR_trunc", margin=1e-6, frac=1.0, label="IR(CD)",
                                   control_label="IR(truncated pi_r)"),
              ).gated(*GATES)),
        Claim(id="beats-baselines", kind="headline",
              statement="ConG beats WeakSFT, AuxConf and WSPO as a weak-to-strong alignment method.",
              paper_value="qualitative: ConG best on AlpacaEval2 and Arena-Hard in and across Llama / Qwen families "
                          "(a summary quotes cross-family averages 51.7 and 42.1; tables not retrieved)",
              control="WeakSFT, AuxConf, WSPO, and the same SFT + DPO pipeline with truncated pi_r samples (alpha = 1) "
                      "as chosen",
              check=C.all_of(_beats("weaksft", "WeakSFT"), _beats("auxconf", "AuxConf"), _beats("wspo", "WSPO"),
                             _beats("trunc_dpo", "truncated-pi_r SFT + DPO")).gated(*GATES, CEILING)),
        Claim(id="cong-beats-cong-s", kind="headline",
              statement="The DPO stage helps: ConG beats ConG-S.",
              paper_value="qualitative: ConG above ConG-S in the main tables",
              control="ConG-S (SFT on CD samples only)"),
    ),
)

_API = ("plausible_head", "cd_scores", "repetition_penalty", "decode", "contrastive_generate", "implicit_reward",
        "aux_conf_sft", "wspo_train", "dpo_train")
_SETTING = ("SortTask", "make_prompts", "hidden_reward", "sloppy_responses", "make_lm", "train_on_responses")
__getattr__ = lazy_exports(__name__, {**{n: ".method" for n in _API}, **{n: ".setting" for n in _SETTING}})
__all__ = ["PAPER", "GATES", "CEILING", *_API, *_SETTING]
