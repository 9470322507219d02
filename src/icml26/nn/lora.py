"""LoRA through ``peft`` on our own modules (``TinyLM``, MLPs) or on a converted GPT-2.

    model = add_lora(TinyLM(cfg), r=4, alpha=4, target_modules=["qkv", "proj"], init="default")
    model = add_lora(TinyLM(cfg), r=4, target_modules=["qkv", "proj", "mlp.0", "mlp.2"])  # + the MLP
    ...train only the adapters...
    merge(model); unmerge(model)

``init`` selects the adapter initialisation: peft's own (``"default"``: Kaiming-uniform A,
B = 0; ``"gaussian"``; ``"pissa"``, ``"olora"`` where peft implements them, which also rewrite
the base weight to the residual) or a hook ``init(W, A, B) -> (A, B, W_new)`` for a paper's
own scheme: ``W`` is the frozen base weight (out, in), ``A`` (r, in), ``B`` (out, r); return
``W_new = None`` to leave the base weight alone. The hook runs under ``torch.no_grad``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from icml26.core.validate import check_int, check_positive

InitHook = Callable[[torch.Tensor, torch.Tensor, torch.Tensor],
                    tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]]
PEFT_INITS = {"default": True, "gaussian": "gaussian", "pissa": "pissa", "olora": "olora"}


def add_lora(model: nn.Module, *, r: int, alpha: float | None = None, target_modules: Sequence[str],
             init: str | InitHook = "default", dropout: float = 0.0, seed: int | None = None) -> nn.Module:
    """Wrap ``model`` with LoRA adapters on the ``nn.Linear`` modules named in ``target_modules``.

    A target names a module by its last component (``"qkv"``: every ``*.qkv``) or by a dotted
    suffix of its full name (``"mlp.0"``: the first child of each block's ``mlp`` Sequential),
    matched as peft matches a list (``name == target or name.endswith("." + target)``); each
    target must match at least one ``nn.Linear`` (checked here, naming the target), and every
    module it matches must be one: a target that also matches a container, such as ``"0"`` on
    TinyLM (``blocks.0`` as well as ``mlp.0``), passes that check and is then refused by peft's own
    ``ValueError`` ("Target module ... is not supported"). A plain ``str`` is refused (peft would
    read it as a regular expression).

    Returns the peft model (a ``torch.nn.Module`` with the same forward). Only adapter
    weights are trainable. ``alpha`` defaults to ``r`` (scale 1).
    """
    from peft import LoraConfig, get_peft_model

    r = check_int("r", r, minimum=1)
    alpha = float(r) if alpha is None else check_positive("alpha", alpha)
    if isinstance(target_modules, str) or not target_modules:
        raise ValueError("target_modules must be a non-empty list of module names")
    if not (isinstance(dropout, (int, float)) and 0 <= dropout < 1):
        raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
    if not callable(init) and init not in PEFT_INITS:
        raise ValueError(f"init must be one of {sorted(PEFT_INITS)} or a callable, got {init!r}")
    linear = [n for n, m in model.named_modules() if isinstance(m, nn.Linear)]
    bad = [t for t in target_modules if not isinstance(t, str) or not t]
    if bad:
        raise TypeError(f"target_modules must hold non-empty module names (str), got {bad!r}")
    missing = [t for t in target_modules if not any(_matches(n, t) for n in linear)]
    if missing:
        have = sorted({n.rsplit(".", 1)[-1] for n in linear})
        raise ValueError(f"target_modules {missing} name no nn.Linear in the model (have {have}, or a dotted "
                         f"suffix of a full name such as {linear[:2]})")
    if seed is not None:
        torch.manual_seed(int(seed))
    cfg = LoraConfig(r=r, lora_alpha=alpha, target_modules=list(target_modules), lora_dropout=float(dropout),
                     init_lora_weights=True if callable(init) else PEFT_INITS[init], bias="none")
    peft_model = get_peft_model(model, cfg)
    if callable(init):
        with torch.no_grad():
            for layer in lora_layers(peft_model):
                a = layer.lora_A["default"].weight
                b = layer.lora_B["default"].weight
                w = layer.get_base_layer().weight
                new_a, new_b, new_w = init(w.detach().clone(), a.detach().clone(), b.detach().clone())
                if new_a.shape != a.shape or new_b.shape != b.shape:
                    raise ValueError(f"init returned A {tuple(new_a.shape)}, B {tuple(new_b.shape)}; expected "
                                     f"{tuple(a.shape)}, {tuple(b.shape)}")
                a.copy_(new_a)
                b.copy_(new_b)
                if new_w is not None:
                    w.copy_(new_w)
    return peft_model


def _matches(name: str, target: str) -> bool:
    """peft's rule for a list of targets: the full module name, or a suffix of it after a dot.

    A last name (``"qkv"``) matches every module ending in ``.qkv``, as before; a dotted name
    (``"mlp.0"``) singles out children of containers such as ``nn.Sequential``.
    """
    return name == target or name.endswith("." + target)


def lora_layers(model: nn.Module) -> list[Any]:
    """The peft LoRA layers of a model, in module order."""
    from peft.tuners.lora import LoraLayer

    return [m for m in model.modules() if isinstance(m, LoraLayer)]


def scaling(model: nn.Module) -> float:
    """The adapter scale alpha / r (one value: every layer shares the configuration)."""
    layers = lora_layers(model)
    if not layers:
        raise ValueError("model has no LoRA layers")
    return float(layers[0].scaling["default"])


def merge(model: nn.Module) -> None:
    """Fold the adapters into the base weights in place (``unmerge`` undoes it)."""
    for layer in lora_layers(model):
        layer.merge()


def unmerge(model: nn.Module) -> None:
    for layer in lora_layers(model):
        layer.unmerge()


def delta_weights(model: nn.Module) -> dict[str, torch.Tensor]:
    """``scale * B A`` per adapted layer: what the adapters add to each base weight."""
    out = {}
    for name, m in model.named_modules():
        if m in lora_layers(model):
            out[name] = m.get_delta_weight("default").detach()
    return out


def trainable_parameters(model: nn.Module) -> list[nn.Parameter]:
    return [p for p in model.parameters() if p.requires_grad]
