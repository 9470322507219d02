"""Hugging Face ports of the shared TinyLM (for cross-checks against ``transformers``)."""

from __future__ import annotations

import torch

from icml26.nn.transformer import TinyLM


def to_gpt2(model: TinyLM):
    """The same network as a Hugging Face ``GPT2LMHeadModel`` (weights copied, exact GELU, no dropout).

    TinyLM and GPT-2 share the block layout (pre-norm, learned positions, tied embeddings), so the
    standard assisted generation of ``transformers`` can run our target/drafter pair as a reference.
    """
    from transformers import GPT2Config, GPT2LMHeadModel

    if not isinstance(model, TinyLM):
        raise ValueError(f"model must be a TinyLM, got {type(model).__name__}")
    c = model.cfg
    cfg = GPT2Config(vocab_size=c.vocab_size, n_positions=c.max_len, n_embd=c.d_model, n_layer=c.n_layers,
                     n_head=c.n_heads, n_inner=c.mlp_ratio * c.d_model, activation_function="gelu",
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, layer_norm_epsilon=1e-5,
                     bos_token_id=0, eos_token_id=None, pad_token_id=0, tie_word_embeddings=True)
    hf = GPT2LMHeadModel(cfg).eval()
    sd = {"transformer.wte.weight": model.tok.weight, "transformer.wpe.weight": model.pos.weight,
          "transformer.ln_f.weight": model.ln_f.weight, "transformer.ln_f.bias": model.ln_f.bias}
    for i, blk in enumerate(model.blocks):
        h = f"transformer.h.{i}."
        sd.update({
            h + "ln_1.weight": blk.ln1.weight, h + "ln_1.bias": blk.ln1.bias,
            h + "ln_2.weight": blk.ln2.weight, h + "ln_2.bias": blk.ln2.bias,
            h + "attn.c_attn.weight": blk.attn.qkv.weight.T, h + "attn.c_attn.bias": blk.attn.qkv.bias,
            h + "attn.c_proj.weight": blk.attn.proj.weight.T, h + "attn.c_proj.bias": blk.attn.proj.bias,
            h + "mlp.c_fc.weight": blk.mlp[0].weight.T, h + "mlp.c_fc.bias": blk.mlp[0].bias,
            h + "mlp.c_proj.weight": blk.mlp[2].weight.T, h + "mlp.c_proj.bias": blk.mlp[2].bias})
    with torch.no_grad():
        own = hf.state_dict()
        for name, w in sd.items():
            own[name].copy_(w.detach())
    hf.tie_weights()
    return hf
