"""Unit tests of the DHS tree solve, its adjoint and the HH simulator (heliox)."""

import math

import numpy as np
import pytest
import scipy.sparse.linalg as spla
import torch

from icml26.science.heliox.setting import random_system
from icml26.science.heliox.method import (Stimulus, ball_and_stick, check_schedule, dhs_schedule,
                                          dhs_solve, hh_rates, hines_matrix, hines_solve,
                                          make_plan, optimal_steps_bruteforce, random_tree,
                                          serial_schedule, simulate, soma_hh_dend_pas,
                                          spike_times, tree_depth, tree_solve, validate_parent,
                                          y_neuron)


def _ref(parent, d, a, b, rhs):
    return spla.spsolve(hines_matrix(parent, d, a, b).tocsc(), rhs)


@pytest.mark.parametrize("n", [1, 2, 7, 200])
@pytest.mark.parametrize("k", [1, 3, 16])
def test_dhs_solve_matches_sparse_lu(n, k):
    rng = np.random.default_rng(n * 31 + k)
    parent = random_tree(n, rng, 0.4)
    d, a, b, rhs = random_system(parent, rng)
    ref = _ref(parent, d, a, b, rhs)
    x = dhs_solve(make_plan(parent, k), d, a, b, rhs)
    np.testing.assert_allclose(x, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(hines_solve(parent, d, a, b, rhs), ref, atol=1e-12 * np.abs(ref).max())


def test_batched_and_torch_solves_agree():
    rng = np.random.default_rng(0)
    parent = random_tree(60, rng, 0.5)
    d, a, b, rhs = random_system(parent, rng, batch=5)
    plan = make_plan(parent, 4)
    x = dhs_solve(plan, d, a, b, rhs)
    for j in range(5):
        np.testing.assert_allclose(x[:, j], _ref(parent, d[:, j], a[:, j], b[:, j], rhs[:, j]), atol=1e-11)
    xt = dhs_solve(plan, *(torch.tensor(v) for v in (d, a, b, rhs)))
    np.testing.assert_allclose(xt.numpy(), x, atol=1e-13)


def test_schedule_known_counts():
    chain = np.arange(-1, 9)  # 10 nodes in a line
    for k in (1, 2, 8):
        assert len(dhs_schedule(chain, k)) == 10
    star = np.array([-1] + [0] * 9)  # root with 9 leaves
    for k in (1, 2, 4, 9):
        assert len(dhs_schedule(star, k)) == math.ceil(9 / k) + 1
    rng = np.random.default_rng(1)
    parent = random_tree(300, rng, 0.3)
    assert len(dhs_schedule(parent, 1)) == 300
    for k in (2, 4, 16):
        steps = dhs_schedule(parent, k)
        check_schedule(parent, steps, k)
        assert len(steps) >= max(math.ceil(300 / k), tree_depth(parent).max() + 1)


def test_dhs_is_optimal_on_small_trees():
    rng = np.random.default_rng(2)
    for _ in range(15):
        parent = random_tree(int(rng.integers(3, 10)), rng, rng.uniform(0.2, 0.9))
        for k in (2, 3):
            assert len(dhs_schedule(parent, k)) == optimal_steps_bruteforce(parent, k)


def test_shallowest_first_can_be_worse():
    # root 0 with a chain 0-1-2-3 and leaves 4, 5: deepest-first needs 4 steps with k=2,
    # the brute force agrees; taking the shallow leaves first costs a step more.
    parent = np.array([-1, 0, 1, 2, 0, 0])
    assert optimal_steps_bruteforce(parent, 2) == len(dhs_schedule(parent, 2)) == 4
    bad = [np.array([4, 5]), np.array([3]), np.array([2]), np.array([1]), np.array([0])]
    check_schedule(parent, bad, 2)
    assert len(bad) == 5


def test_check_schedule_rejects_invalid():
    parent = np.array([-1, 0, 1])
    with pytest.raises(ValueError):
        check_schedule(parent, [np.array([1]), np.array([2]), np.array([0])], 1)
    with pytest.raises(ValueError):
        check_schedule(parent, [np.array([2, 1])], 2)
    with pytest.raises(ValueError):
        check_schedule(parent, [np.array([2]), np.array([1])], 1)
    check_schedule(parent, serial_schedule(parent), 1)


def test_adjoint_gradient_gradcheck_and_tape():
    rng = np.random.default_rng(3)
    parent = random_tree(12, rng, 0.5)
    plan = make_plan(parent, 3)
    sysm = [torch.tensor(v, requires_grad=True) for v in random_system(parent, rng, batch=2)]
    assert torch.autograd.gradcheck(lambda *t: tree_solve(plan, *t), sysm, eps=1e-6, atol=1e-7)
    from icml26.science.heliox.method import _dhs_solve_tensor

    w = torch.tensor(rng.normal(size=(12, 2)))
    g1 = torch.autograd.grad((tree_solve(plan, *sysm) * w).sum(), sysm)
    g2 = torch.autograd.grad((_dhs_solve_tensor(plan, *sysm) * w).sum(), sysm)
    for x, y in zip(g1, g2):
        torch.testing.assert_close(x[1:], y[1:], rtol=1e-10, atol=1e-12)


def test_hh_resting_state():
    minf, mtau, hinf, htau, ninf, ntau = hh_rates(np.array([-65.0]))
    assert minf[0] == pytest.approx(0.0529, abs=1e-4)
    assert hinf[0] == pytest.approx(0.5961, abs=1e-4)
    assert ninf[0] == pytest.approx(0.3177, abs=1e-4)
    # the removable singularity of vtrap at v = -40 (m) and -55 (n) is handled
    vals = hh_rates(np.array([-40.0, -55.0, -40.0 + 1e-9]))
    assert np.all(np.isfinite(np.concatenate(vals)))
    assert vals[0][0] == pytest.approx(vals[0][2], rel=1e-6)


def test_simulator_matches_neuron_short_run():
    from icml26.science.heliox.setting import DT, neuron_ball_and_stick as _neuron_ball_and_stick

    stim = Stimulus(0, 1.0, 10.0, 0.6)
    traces, area, ri, _ = _neuron_ball_and_stick(7, 500.0, stim, 8.0)
    morph = ball_and_stick(7)
    np.testing.assert_allclose(area, morph.area, rtol=1e-12)
    np.testing.assert_allclose(ri, morph.ri[1:], rtol=1e-12)
    v = simulate(morph, soma_hh_dend_pas(morph), stim, 8.0, DT)[:, 0, 0]
    np.testing.assert_allclose(v, traces[0], atol=1e-7)
    assert spike_times(v, DT).size >= 1


def test_numpy_and_torch_backends_agree_on_branched_cell():
    morph = y_neuron(nseg=5, n_dend=3)
    bio = soma_hh_dend_pas(morph)
    stim = Stimulus(0, 0.5, 5.0, 0.5)
    v_np = simulate(morph, bio, stim, 3.0, record=(0, 3, 8))
    v_t = simulate(morph, bio, stim, 3.0, backend="torch", record=(0, 3, 8))
    np.testing.assert_allclose(v_t.detach().numpy(), v_np, atol=1e-10)


def test_spike_times_interpolates():
    v = np.array([-10.0, -5.0, 5.0, 10.0, -10.0, 10.0])
    np.testing.assert_allclose(spike_times(v, 0.1), [0.15, 0.45])


def test_input_validation():
    with pytest.raises(ValueError, match="parent"):
        validate_parent([0, 0])
    with pytest.raises(ValueError, match="parent"):
        validate_parent([-1, 1])
    with pytest.raises(ValueError, match="k"):
        dhs_schedule([-1, 0], 0)
    with pytest.raises(ValueError, match="N <= 16"):
        optimal_steps_bruteforce(np.arange(-1, 19), 2)
    plan = make_plan([-1, 0, 0], 2)
    with pytest.raises(ValueError, match="rhs"):
        dhs_solve(plan, np.ones(3), -np.ones(3), -np.ones(3), np.array([1.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="N=3"):
        dhs_solve(plan, np.ones(4), -np.ones(3), -np.ones(3), np.ones(3))
    morph = ball_and_stick(3)
    with pytest.raises(ValueError, match="dt"):
        simulate(morph, soma_hh_dend_pas(morph), Stimulus(0, 0, 1, 0.1), 1.0, dt=0.0)
    with pytest.raises(ValueError, match="backend"):
        simulate(morph, soma_hh_dend_pas(morph), Stimulus(0, 0, 1, 0.1), 1.0, backend="jax")
    with pytest.raises(ValueError, match="plan"):
        simulate(morph, soma_hh_dend_pas(morph), Stimulus(0, 0, 1, 0.1), 1.0, plan=make_plan([-1, 0], 1))
    with pytest.raises(ValueError, match="n must be >= 1"):
        random_tree(0, np.random.default_rng(0))


# ----------------------------------------------------------------------------- network and validation
def test_network_forward_shapes_and_gradient_reaches_the_hidden_layer():
    from icml26.science.heliox.network import init_weights, make_network, run_network

    spec = make_network(2, (3, 2), nseg=2)
    params = init_weights(spec, 0, scale=2.0)
    x = torch.tensor([[0.9, 0.1], [0.1, 0.9]], dtype=torch.float64)
    logits = run_network(spec, params, x, t_stop=3.0, dt=0.25)
    assert logits.shape == (2, 2) and torch.isfinite(logits).all()
    logits.sum().backward()
    assert params[0].grad is not None and torch.isfinite(params[0].grad).all()
    point = make_network(2, (3, 2), point_neuron=True)
    assert point.morph.n == 1 and point.syn_node == 0


def test_network_gradient_matches_finite_differences():
    """BPTT through the simulator (adjoint tree solves inside) equals central differences."""
    from dataclasses import replace

    from icml26.science.heliox.network import init_weights, make_network, run_network

    spec = replace(make_network(2, (2, 2), nseg=2), v_gap0=-90.0)  # every synapse transmits: no kink
    params = init_weights(spec, 3, scale=1.0)
    x = torch.tensor([[0.8, 0.3], [0.2, 0.7]], dtype=torch.float64)
    w = torch.tensor([[1.0, -0.5], [0.3, 0.7]], dtype=torch.float64)
    (run_network(spec, params, x, t_stop=2.0, dt=0.25) * w).sum().backward()
    eps = 1e-6
    for j, idx in ((0, (1, 0)), (2, (0, 1)), (3, (1,))):
        hi = [p.detach().clone() for p in params]
        lo = [p.detach().clone() for p in params]
        hi[j][idx] += eps
        lo[j][idx] -= eps
        fd = ((run_network(spec, hi, x, 2.0, 0.25) * w).sum() - (run_network(spec, lo, x, 2.0, 0.25) * w).sum()) / (2 * eps)
        assert float(params[j].grad[idx]) == pytest.approx(float(fd), rel=1e-5, abs=1e-9)


def test_silent_synapses_cut_the_hidden_layer_off():
    """With the transmission threshold above any voltage, the hidden layer passes nothing: the logits
    do not depend on the input and the first layer gets exactly zero gradient."""
    from dataclasses import replace

    from icml26.science.heliox.network import init_weights, make_network, run_network

    spec = replace(make_network(2, (3, 2), nseg=2), v_gap0=200.0)
    params = init_weights(spec, 1, scale=2.0)
    x = torch.tensor([[0.9, 0.1], [0.1, 0.9]], dtype=torch.float64)
    logits = run_network(spec, params, x, t_stop=3.0, dt=0.25)
    torch.testing.assert_close(logits[0], logits[1], rtol=0, atol=1e-12)
    logits.sum().backward()
    assert torch.count_nonzero(params[0].grad) == 0 and torch.count_nonzero(params[2].grad) == 0


def test_rate_network_is_a_relu_mlp():
    from icml26.science.heliox.network import init_weights, make_network, rate_network

    spec = make_network(3, (4, 5, 2), nseg=2)
    params = init_weights(spec, 2, scale=1.0)
    x = np.random.default_rng(0).uniform(size=(6, 3))
    W = [p.detach().numpy() for p in params]
    h = np.maximum(x @ W[0] + W[1], 0)
    h = np.maximum(h @ W[2] + W[3], 0)
    np.testing.assert_allclose(rate_network(params, x).detach().numpy(), h @ W[4] + W[5], atol=1e-12)
    with pytest.raises(ValueError, match="x must have 3 columns"):
        rate_network(params, np.ones((2, 4)))
    with pytest.raises(ValueError, match="params"):
        rate_network(params[:3], x)


def test_init_weights_refuses_a_bool_or_bad_bias():
    from icml26.science.heliox.network import init_weights, make_network

    spec = make_network(2, (2,), nseg=1)
    with pytest.raises(TypeError, match="bias"):
        init_weights(spec, 0, bias=True)
    with pytest.raises(TypeError, match="bias"):
        init_weights(spec, 0, bias="0.4")
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="bias"):
            init_weights(spec, 0, bias=bad)
    assert torch.count_nonzero(init_weights(spec, 0, bias=0)[1]) == 0


def _train_private_loop(forward, params, trainable, x, y, batches, lr):
    """experiment._train's own Adam loop before it moved onto icml26.nn.mlp.fit (issue 13), the reference."""
    opt = torch.optim.Adam(trainable, lr=lr)
    xt, yt, losses = torch.as_tensor(x), torch.as_tensor(y), []
    for idx in batches:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(forward(params, xt[idx]), yt[idx])
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return losses


@pytest.mark.parametrize("readout_only", [False, True])
def test_train_on_shared_fit_equals_its_private_loop_bit_for_bit(readout_only):
    from icml26.science.heliox.experiment import _train
    from icml26.science.heliox.network import init_weights, make_network, rate_network

    rng = np.random.default_rng(0)
    spec = make_network(3, (4, 3), nseg=1)
    init = init_weights(spec, rng, scale=1.0)
    x, y = rng.uniform(size=(30, 3)), rng.integers(0, 3, 30)
    batches = [torch.as_tensor(rng.choice(30, 8, replace=False)) for _ in range(12)]
    runs = []
    for train in (_train, _train_private_loop):
        params = [p.detach().clone().requires_grad_() for p in init]
        losses = train(rate_network, params, params[-2:] if readout_only else params, x, y, batches, 0.05)
        runs.append((losses[0] if isinstance(losses, tuple) else losses, params))
    (l_new, p_new), (l_old, p_old) = runs
    assert l_new == l_old and all(torch.equal(a, b) for a, b in zip(p_new, p_old))
    assert torch.equal(p_new[0], init[0]) == readout_only


def test_digits_task_split():
    from icml26.science.heliox.setting import digits_task

    x_tr, y_tr, x_te, y_te = digits_task(100, 50, np.random.default_rng(0))
    assert x_tr.shape == (100, 64) and x_te.shape == (50, 64) and y_tr.shape == (100,)
    assert x_tr.min() >= 0 and x_tr.max() <= 1 and set(np.unique(y_tr)) <= set(range(10))
    rows = {tuple(r) for r in x_tr}
    assert sum(tuple(r) in rows for r in x_te) <= 2  # disjoint indices (a few images are exact duplicates)
    again = digits_task(100, 50, np.random.default_rng(0))
    np.testing.assert_array_equal(again[0], x_tr)
    with pytest.raises(ValueError, match="n_train"):
        digits_task(1700, 200, 0)


def test_bad_inputs_raise_named_errors():
    from icml26.science.heliox.method import Section

    rng = np.random.default_rng(0)
    parent = random_tree(6, rng, 0.3)
    d, a, b, rhs = random_system(parent, rng)
    d0 = d.copy()
    d0[-1] = 0.0
    a0 = a.copy()
    a0[-1] = 0.0  # a zero pivot on a leaf that is also decoupled from the system below it
    with pytest.raises(ValueError, match="pivot"):
        hines_solve(parent, d0, a0, b, rhs)
    with pytest.raises(TypeError, match="k"):
        dhs_schedule(parent, float("inf"))
    with pytest.raises(TypeError, match="d must be a torch tensor"):
        tree_solve(make_plan(parent, 2), d, a, b, rhs)
    with pytest.raises(ValueError, match="L"):
        Section("s", float("nan"), 1.0, 1)
    morph = ball_and_stick(3, dend_L=150.0)
    bio = soma_hh_dend_pas(morph)
    stim = Stimulus(0, 0.5, 1.0, 0.4)
    with pytest.raises(ValueError, match="record"):
        simulate(morph, bio, stim, 1.0, record=(99,))
    bio.cm[:] = 0.0
    with pytest.raises(ValueError, match="cm"):
        simulate(morph, bio, stim, 1.0)
    bio = soma_hh_dend_pas(morph)
    bio.gnabar[0] = np.nan
    with pytest.raises(ValueError, match="gnabar"):
        simulate(morph, bio, stim, 1.0)
    with pytest.raises(ValueError, match="amp"):
        Stimulus(0, 0.5, 1.0, float("nan"))


# ----------------------------------------------------------------------------- training gate (issue 15, fifth session)
def _gate_metrics(bio_acc, bio_loss=(2.3, 0.6, 0.5, 0.45), n=40):
    """Metrics of one seed whose end-to-end arm has the given whole-training-set accuracies and losses
    (start, 1/2, 3/4, end); the two controls trained and levelled off."""
    from icml26.science.heliox.experiment import training_summary

    good = training_summary(np.linspace(2.3, 1.0, n), [2.3, 0.6, 0.5, 0.45], [0.1, 0.8, 0.9, 0.91])
    out = {"net_test_acc_bio": 0.8, "net_test_acc_readout_only": 0.3, "net_test_acc_rate": 0.82}
    for tag in ("bio", "readout_only", "rate"):
        summ = training_summary(np.linspace(2.3, 1.0, n), bio_loss, bio_acc) if tag == "bio" else good
        out.update({f"train/{tag}/{k}": v for k, v in summ.items()})
    return out


def test_training_summary_known_values_and_bad_input():
    from icml26.science.heliox.experiment import training_summary

    s = training_summary([2.0] * 5 + [1.0] * 15, [2.0, 1.5, 1.2, 0.9], [0.1, 0.5, 0.6, 0.7])
    assert s["loss_first"] == 2.0 and s["loss_last"] == 1.0
    assert s["late_drop"] == pytest.approx(0.25) and s["loss_ratio"] == pytest.approx(0.45)
    assert s["late_acc_gain"] == pytest.approx(0.1)
    assert np.isnan(training_summary([1.0] * 8, [2.0, float("nan"), 1.0, 1.0], [0.1] * 4)["late_acc_gain"])
    with pytest.raises(ValueError, match="losses"):
        training_summary([1.0, 2.0], [2.0, 1.5, 1.2, 0.9], [0.1] * 4)
    with pytest.raises(ValueError, match="full_losses"):
        training_summary([1.0] * 8, [2.0, 1.0], [0.1] * 4)
    with pytest.raises(ValueError, match="full_accs"):
        training_summary([1.0] * 8, [2.0, 1.5, 1.2, 0.9], [0.1, 0.2])


def test_training_gate_fails_on_flat_or_still_learning_arm_and_passes_when_converged():
    from icml26.science.heliox.experiment import check_trains_network

    converged = check_trains_network([{**_gate_metrics([0.1, 0.9, 0.95, 0.955]), "net_test_acc_bio": 0.8 + 0.01 * i}
                                      for i in range(4)])
    assert converged.status != "not-checkable" and "levelled off" in converged.evidence
    flat = check_trains_network([_gate_metrics([0.1, 0.1, 0.1, 0.1], (2.3, 2.3, 2.3, 2.29)) for _ in range(4)])
    assert flat.status == "not-checkable" and "trained" in flat.evidence
    learning = check_trains_network([_gate_metrics([0.1, 0.5, 0.65, 0.8]) for _ in range(4)])
    assert learning.status == "not-checkable" and "levelled off" in learning.evidence
    one_seed = check_trains_network([_gate_metrics([0.1, 0.9, 0.95, 0.955])] * 3 + [_gate_metrics([0.1, 0.5, 0.65, 0.8])])
    assert one_seed.status == "not-checkable"
    diverged = check_trains_network([_gate_metrics([0.1, 0.9, 0.95, 0.955], (2.3, 0.5, float("nan"), 0.5))
                                     for _ in range(4)])
    assert diverged.status == "not-checkable"


def test_readout_only_on_recorded_hidden_activity_equals_the_whole_network():
    """The readout-only control drives the output layer with the frozen hidden layers' recorded
    activity; by feed-forwardness that gives the whole network's logits and readout gradient."""
    from icml26.science.heliox.network import init_weights, make_network, run_network, split_readout

    spec = make_network(5, (4, 3, 2), nseg=2)
    params = init_weights(spec, 0, scale=2.0)
    x = torch.as_tensor(np.random.default_rng(1).uniform(size=(3, 5)))
    whole = run_network(spec, params, x, 4.0, 0.25)
    hidden, last = split_readout(spec)
    with torch.no_grad():
        _, act = run_network(hidden, params[:-2], x, 4.0, 0.25, record=True)
    assert act.shape == (3, 16, 3)
    part = run_network(last, params[-2:], act, 4.0, 0.25)
    torch.testing.assert_close(part, whole, rtol=0, atol=1e-12)
    g_whole = torch.autograd.grad(whole.sum(), params[-2:])
    g_part = torch.autograd.grad(part.sum(), params[-2:])
    for a, b in zip(g_whole, g_part):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="shape"):
        run_network(last, params[-2:], act[:, :5], 4.0, 0.25)
    with pytest.raises(ValueError, match="two layers"):
        split_readout(make_network(5, (2,), nseg=1))
