import math

import pytest
import torch

from icml26.nn.mlp import fit, loss_drop, mlp


def test_mlp_shapes_and_layers():
    net = mlp([3, 8, 8, 2], activation="tanh", out_activation="sigmoid", layer_norm=True, dropout=0.1)
    y = net(torch.randn(5, 3))
    assert y.shape == (5, 2) and bool(((y > 0) & (y < 1)).all())
    assert sum(isinstance(m, torch.nn.Linear) for m in net) == 3


@pytest.mark.parametrize("bad", [[3], "34", [3, 0, 1], [3, 2.5]])
def test_mlp_rejects_bad_sizes(bad):
    with pytest.raises((ValueError, TypeError), match="sizes"):
        mlp(bad)


def test_fit_learns_a_linear_map_and_reports_history():
    torch.manual_seed(0)
    x = torch.randn(256, 2)
    y = x @ torch.tensor([[2.0], [-1.0]]) + 0.5
    net = mlp([2, 1])
    res = fit(net, lambda m, b: ((m(b[0]) - b[1]) ** 2).mean(), [(x, y)], steps=400, lr=0.05)
    assert res.steps == 400 and res.history[-1] < 1e-4
    assert loss_drop(res.history) > 100
    w = net[0].weight.detach()
    assert torch.allclose(w, torch.tensor([[2.0, -1.0]]), atol=1e-2)


def test_fit_early_stops_and_restores_best():
    torch.manual_seed(0)
    x = torch.randn(64, 1)
    net = mlp([1, 1])
    calls = []

    def val(m):  # validation loss that gets worse after step 20
        calls.append(1)
        return abs(len(calls) - 2) + 0.0

    res = fit(net, lambda m, b: (m(b) ** 2).mean(), [x], steps=500, lr=0.01, val_loss=val, val_every=10,
              patience=30)
    assert res.stopped_early and res.best_step == 19 and res.steps < 500


def test_fit_validates_arguments():
    net = mlp([1, 1])
    loss = lambda m, b: m(b).mean()  # noqa: E731
    with pytest.raises(ValueError, match="steps"):
        fit(net, loss, [torch.zeros(1, 1)], steps=0)
    with pytest.raises(ValueError, match="lr"):
        fit(net, loss, [torch.zeros(1, 1)], steps=1, lr=math.nan)
    with pytest.raises(ValueError, match="patience"):
        fit(net, loss, [torch.zeros(1, 1)], steps=1, patience=3)
    with pytest.raises(ValueError, match="batches"):
        fit(net, loss, [], steps=1)
    assert math.isnan(loss_drop([1.0]))
