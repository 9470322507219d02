"""MTNL as a parameter-efficient fine-tuning (PEFT) adapter, and its LoRA control (third pass).

The abstract says MTNL is "effective on parameter-efficient fine-tuning" and gives no recipe;
ours (reconstruction R5): the update of a frozen linear layer's weight ``W: (out, in)`` is a
fused gated TN (R1-R3 of :mod:`.method`) of a higher-order reshaping of ``W``,

    W_eff = W + reshape(X(G, lambda) - X(G_0, lambda_0)),   X = TR + FCTN,

so the adapter starts at zero (as LoRA's ``B = 0`` does) and trains the cores with Adam and
the gates with the clipped proximal steps of :func:`.method.fit_mtnl` (Laplace prior ``tau``),
one Bernoulli gate mask (rate ``p``) per step (R3). Because the zero start subtracts the
*unmasked* ``X(G_0)``, whose size is that of ``W`` (``build_mtnl`` at the level of ``|W|``), a
training mask perturbs the frozen weight by a sizeable fraction of its norm (13-62% at step 0
with p 0.05 in seed 0 of the full profile; review note): the masks act as strong weight noise
that LoRA, without dropout, does not get. The control is ``peft``'s LoRA through
:mod:`icml26.nn.lora` on the same layers at the smallest rank whose parameter count is at
least the adapter's (``experiment.peft``: rank 3, 990 vs 892); both train with the same
optimiser, steps and data, each with its learning rate picked from the same grid on a
validation split.

Task: scikit-learn digits through :mod:`icml26.vision._data` (its fixed split): a 64-128-10
ReLU MLP pretrained on the digits 0-4, then adapted (base frozen, adapters on both layers) to
the digits 5-9 of the same 10-way head.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from icml26.core.validate import as_array, check_int, check_positive
from icml26.science.mtnl.method import GATE_CLIP, MixedTN, build_mtnl


class TNAdapterLinear(nn.Module):
    """A frozen ``nn.Linear`` plus an MTNL weight update on ``tensor_shape`` (``prod == out * in``)."""

    def __init__(self, base: nn.Linear, tensor_shape: Sequence[int], spec: Sequence[tuple[str, int]],
                 seed: int = 0) -> None:
        super().__init__()
        if not isinstance(base, nn.Linear):
            raise TypeError(f"base must be an nn.Linear, got {type(base).__name__}")
        shape = tuple(check_int(f"tensor_shape[{i}]", s, minimum=1) for i, s in enumerate(tensor_shape))
        if math.prod(shape) != base.weight.numel():
            raise ValueError(f"tensor_shape {shape} must hold out * in = {base.weight.numel()} entries")
        self.base = base
        for q in self.base.parameters():
            q.requires_grad_(False)
        level = max(float(base.weight.detach().abs().mean()), 1e-6)
        self.tn: MixedTN = build_mtnl(shape, list(spec), seed, level)
        with torch.no_grad():
            self.register_buffer("x0", self.tn(0.0).detach().clone())
        self.p = 0.0
        self.generator: torch.Generator | None = None

    def delta(self, p: float = 0.0) -> torch.Tensor:
        d = self.tn(p, self.generator) - self.x0
        return d.reshape(self.base.weight.shape).to(self.base.weight.dtype)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.p if self.training else 0.0
        return nn.functional.linear(x, self.base.weight + self.delta(p), self.base.bias)

    def n_params(self) -> int:
        """Trainable parameters: the cores and the gates (every one trains, as every LoRA entry does)."""
        return self.tn.n_params() + int(sum(g.numel() for g in self.tn.gate_params()))


def pretrain_base(x, y, *, hidden: int = 128, steps: int = 300, lr: float = 0.01, seed: int = 0) -> nn.Sequential:
    """A ``64 -> hidden -> 10`` ReLU MLP trained full-batch (Adam, cross-entropy; :func:`icml26.nn.mlp.fit`)
    on ``x: (n, 64)``, ``y: (n,)``; returned in eval mode."""
    from icml26.nn.mlp import fit, mlp

    x = as_array("x", x, ndim=2)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(x):
        raise ValueError(f"y must hold one label per row of x ({len(x)}), got shape {y.shape}")
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    torch.manual_seed(check_int("seed", seed, minimum=0))
    net = mlp([x.shape[1], check_int("hidden", hidden, minimum=1), 10])
    xt, yt = torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.long)
    fit(net, lambda m, b: nn.functional.cross_entropy(m(b[0]), b[1]), [(xt, yt)], steps=steps, lr=lr)
    return net


def add_tn_adapters(base: nn.Sequential, shapes: dict[str, Sequence[int]], spec: Sequence[tuple[str, int]],
                    seed: int = 0, p: float = 0.0) -> nn.Sequential:
    """A copy of ``base`` with every linear layer named in ``shapes`` wrapped in a :class:`TNAdapterLinear`."""
    if not isinstance(base, nn.Sequential):
        raise TypeError(f"base must be an nn.Sequential, got {type(base).__name__}")
    if not isinstance(shapes, dict) or not shapes:
        raise ValueError("shapes must be a non-empty dict {layer name: tensor shape}")
    p = check_positive("p", p, strict=False)
    if p >= 1:
        raise ValueError(f"p must lie in [0, 1), got {p}")
    net = copy.deepcopy(base)
    for q in net.parameters():
        q.requires_grad_(False)
    for k, (name, shp) in enumerate(shapes.items()):
        if name not in net._modules:
            raise ValueError(f"shapes names layer {name!r}, not in the model ({list(net._modules)})")
        layer = TNAdapterLinear(net._modules[name], shp, spec, seed=seed + 101 * k)
        layer.p = float(p)
        layer.generator = torch.Generator().manual_seed(int(seed) + 7919 + k)
        net._modules[name] = layer
    return net


def tn_adapter_params(net: nn.Module) -> int:
    return int(sum(m.n_params() for m in net.modules() if isinstance(m, TNAdapterLinear)))


def lora_params(base: nn.Sequential, names: Sequence[str], r: int) -> int:
    return int(sum(r * (base._modules[n].in_features + base._modules[n].out_features) for n in names))


@dataclass
class AdaptResult:
    net: nn.Module
    history: list[float]
    n_params: int


def train_adapters(net: nn.Module, x, y, *, steps: int = 300, lr: float = 0.01, tau: float = 0.0,
                   gate_lr: float = 0.1) -> AdaptResult:
    """Full-batch Adam on the trainable parameters of ``net`` (cross-entropy); TN gates take clipped
    proximal steps with L1 weight ``tau`` (as in :func:`.method.fit_mtnl`). Returns the loss history.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: the paper's gated tensor-network
    adapters, whose gates are clipped after every step.
    """
    x = as_array("x", x, ndim=2)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(x):
        raise ValueError(f"y must hold one label per row of x ({len(x)}), got shape {y.shape}")
    steps = check_int("steps", steps, minimum=1)
    lr = check_positive("lr", lr)
    tau = check_positive("tau", tau, strict=False)
    gate_lr = check_positive("gate_lr", gate_lr)
    tn_layers = [m for m in net.modules() if isinstance(m, TNAdapterLinear)]
    gates = [g for m in tn_layers for g in m.tn.gate_params()]
    gate_ids = {id(g) for g in gates}
    others = [q for q in net.parameters() if q.requires_grad and id(q) not in gate_ids]
    if not others:
        raise ValueError("net has no trainable parameters")
    opt = torch.optim.Adam(others, lr=lr)
    gate_opt = torch.optim.SGD(gates, lr=gate_lr) if gates else None
    xt, yt = torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.long)
    net.train()
    hist = []
    for _ in range(steps):
        opt.zero_grad()
        if gate_opt is not None:
            gate_opt.zero_grad()
        loss = nn.functional.cross_entropy(net(xt), yt)
        loss.backward()
        opt.step()
        if gate_opt is not None:
            torch.nn.utils.clip_grad_norm_(gates, GATE_CLIP)
            gate_opt.step()
            with torch.no_grad():
                for g in gates:
                    g.copy_(torch.sign(g) * torch.clamp(g.abs() - gate_lr * tau, min=0.0))
        hist.append(float(loss.detach()))
    net.eval()
    n = tn_adapter_params(net) if tn_layers else int(sum(q.numel() for q in others))
    return AdaptResult(net, hist, n)


def accuracy(net: nn.Module, x, y) -> float:
    """Top-1 accuracy of ``net`` on ``x: (n, d)`` with labels ``y: (n,)``."""
    x = as_array("x", x, ndim=2)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(x):
        raise ValueError(f"y must hold one label per row of x ({len(x)}), got shape {y.shape}")
    net.eval()
    with torch.no_grad():
        pred = net(torch.as_tensor(x, dtype=torch.float32)).argmax(1).numpy()
    return float(np.mean(pred == y))
