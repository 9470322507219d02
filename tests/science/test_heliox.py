"""Unit tests of the DHS tree solve, its adjoint and the HH simulator (heliox)."""

import math

import numpy as np
import pytest
import scipy.sparse.linalg as spla
import torch

from icml26.science.heliox.setting import random_system
from icml26.science.heliox.method import (Stimulus, axial_conductances, ball_and_stick, check_schedule, dhs_schedule,
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


# ----------------------------------------------------------------------------- training gate (issue 15, sixth session)
_STEPS = [0, 25, 30, 35, 40]   # checkpoint_steps(40, 2): start, two in each of the last two quarters


def _gate_metrics(bio_acc, bio_loss=(2.3, 0.6, 0.55, 0.5, 0.45), n=40):
    """Metrics of one seed whose end-to-end arm has the given whole-training-set accuracies and losses
    at the checkpoints _STEPS; the two controls trained, levelled off and stable."""
    from icml26.science.heliox.experiment import training_summary

    good = training_summary(np.linspace(2.3, 1.0, n), _STEPS, [2.3, 0.6, 0.55, 0.5, 0.45], [0.1, 0.9, 0.91, 0.91, 0.92])
    out = {"net_test_acc_bio": 0.8, "net_test_acc_readout_only": 0.3, "net_test_acc_rate": 0.82}
    for tag in ("bio", "readout_only", "rate"):
        summ = training_summary(np.linspace(2.3, 1.0, n), _STEPS, bio_loss, bio_acc) if tag == "bio" else good
        out.update({f"train/{tag}/{k}": v for k, v in summ.items()})
    return out


def test_checkpoint_steps():
    from icml26.science.heliox.experiment import checkpoint_steps

    assert checkpoint_steps(40, 2) == _STEPS
    assert checkpoint_steps(320, 5) == [0] + list(range(176, 321, 16))
    assert checkpoint_steps(8, 2) == [0, 5, 6, 7, 8]
    with pytest.raises(ValueError, match="n"):
        checkpoint_steps(3, 1)


def test_training_summary_known_values_and_bad_input():
    from icml26.science.heliox.experiment import training_summary

    s = training_summary([2.0] * 5 + [1.0] * 15, [0, 12, 15, 18, 20], [2.0, 1.5, 1.2, 1.0, 0.9],
                         [0.1, 0.5, 0.6, 0.7, 0.8], batch_accs=[0.0] * 10 + [0.5] * 5 + [0.7] * 5)
    assert s["loss_first"] == 2.0 and s["loss_last"] == 1.0
    assert s["loss_ratio"] == pytest.approx(0.45) and s["end_over_min_loss"] == pytest.approx(1.0)
    assert s["late_acc_shift"] == pytest.approx(0.75 - 0.55) and s["late_acc_shift_abs"] == pytest.approx(0.2)
    assert s["late_loss_ratio"] == pytest.approx(0.95 / 1.35) and s["batch_acc_shift"] == pytest.approx(0.2)
    falling = training_summary([1.0] * 20, [0, 12, 15, 18, 20], [2.0, 0.5, 0.6, 1.0, 1.2], [0.1, 0.8, 0.8, 0.6, 0.5])
    assert falling["late_acc_shift"] == pytest.approx(-0.25) and falling["late_acc_shift_abs"] == pytest.approx(0.25)
    assert falling["end_over_min_loss"] == pytest.approx(2.4)
    assert np.isnan(training_summary([1.0] * 8, [0, 5, 8], [2.0, float("nan"), 1.0], [0.1] * 3)["late_acc_shift"])
    with pytest.raises(ValueError, match="losses"):
        training_summary([1.0, 2.0], [0, 1, 2], [2.0, 1.5, 1.2], [0.1] * 3)
    with pytest.raises(ValueError, match="steps"):
        training_summary([1.0] * 8, [0, 5, 7], [2.0, 1.0, 1.0], [0.1] * 3)
    with pytest.raises(ValueError, match="both"):
        training_summary([1.0] * 8, [0, 7, 8], [2.0, 1.0, 1.0], [0.1] * 3)
    with pytest.raises(ValueError, match="full_losses"):
        training_summary([1.0] * 8, [0, 5, 8], [2.0, 1.0], [0.1] * 3)
    with pytest.raises(ValueError, match="batch_accs"):
        training_summary([1.0] * 8, [0, 5, 8], [2.0, 1.0, 1.0], [0.1] * 3, batch_accs=[0.1] * 7)


def test_training_gate_fails_on_flat_still_learning_falling_or_unstable_arm_and_passes_when_converged():
    from icml26.science.heliox.experiment import check_trains_network

    converged = check_trains_network([{**_gate_metrics([0.1, 0.93, 0.95, 0.95, 0.96]),
                                       "net_test_acc_bio": 0.8 + 0.01 * i} for i in range(4)])
    assert converged.status != "not-checkable" and "levelled off" in converged.evidence
    flat = check_trains_network([_gate_metrics([0.1] * 5, (2.3, 2.3, 2.3, 2.3, 2.29)) for _ in range(4)])
    assert flat.status == "not-checkable" and "trained" in flat.evidence
    learning = check_trains_network([_gate_metrics([0.1, 0.5, 0.6, 0.7, 0.8]) for _ in range(4)])
    assert learning.status == "not-checkable" and "levelled off" in learning.evidence
    falling = check_trains_network([_gate_metrics([0.1, 0.9, 0.9, 0.8, 0.8]) for _ in range(4)])
    assert falling.status == "not-checkable" and "levelled off" in falling.evidence
    blowup = check_trains_network([_gate_metrics([0.1, 0.9, 0.9, 0.9, 0.9], (2.3, 0.5, 0.5, 0.5, 0.8))
                                   for _ in range(4)])
    assert blowup.status == "not-checkable" and "stable" in blowup.evidence
    one_seed = check_trains_network([_gate_metrics([0.1, 0.93, 0.95, 0.95, 0.96])] * 3
                                    + [_gate_metrics([0.1, 0.5, 0.6, 0.7, 0.8])])
    assert one_seed.status == "not-checkable"
    diverged = check_trains_network([_gate_metrics([0.1, 0.93, 0.95, 0.95, 0.96], (2.3, 0.5, float("nan"), 0.5, 0.5))
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


# ----------------------------------------------------------------------------- faster network step (sixth session)
def _run_network_before_s6(spec, params, x, t_stop, dt, record=False):
    """run_network as it was before the sixth session (HH gates on every node, checked tree_solve):
    the reference the faster step must equal."""
    from icml26.science.heliox.network import ENA, EK, EL
    from icml26.science.heliox.method import hh_rates, make_plan, tree_solve

    x = torch.as_tensor(x, dtype=torch.float64)
    n_steps = int(round(t_stop / dt))
    morph, n = spec.morph, spec.morph.n
    S, L = x.shape[0], len(spec.sizes)
    B = S * sum(spec.sizes)
    offs = np.cumsum((0,) + spec.sizes)
    plan = make_plan(morph.parent, k=8)
    par_np, g_own, g_par, axial_d = axial_conductances(morph)
    T = torch.float64
    a_off = torch.as_tensor(np.repeat(-g_par[:, None], B, axis=1), dtype=T)
    b_off = torch.as_tensor(np.repeat(-g_own[:, None], B, axis=1), dtype=T)
    g_own_c = torch.as_tensor(g_own[:, None], dtype=T)
    g_par_c = torch.as_tensor(g_par[1:, None], dtype=T)
    par, par1 = torch.as_tensor(par_np), torch.as_tensor(par_np[1:])
    soma = torch.as_tensor((morph.section == 0).astype(float)[:, None], dtype=T)
    gna, gk, gl, gp = 0.12 * soma, 0.036 * soma, 0.0003 * soma, 0.001 * (1 - soma)
    d_cap = torch.as_tensor(1e-3 / dt + axial_d[:, None], dtype=T)
    inj = torch.zeros((n, 1), dtype=T)
    inj[spec.syn_node] = 100.0 / morph.area[spec.syn_node]
    v = torch.full((n, B), spec.v_rest, dtype=T)
    m, _, h, _, ng, _ = hh_rates(v)
    s = torch.zeros((S, offs[-1]), dtype=T)
    drive0 = x @ params[0] + params[1]
    readout, count, trace = 0.0, 0, []
    for step in range(n_steps):
        if record:
            trace.append(s[:, offs[-2]:])
        currents = [drive0 if x.ndim == 2 else drive0[:, step]]
        currents += [s[:, offs[l - 1]:offs[l]] @ params[2 * l] + params[2 * l + 1] for l in range(1, L)]
        i_syn = torch.cat(currents, dim=1).reshape(1, B)
        g_na, g_k = gna * m ** 3 * h, gk * ng ** 4
        i_ion = g_na * (v - ENA) + g_k * (v - EK) + gl * (v - EL) + gp * (v - spec.v_rest)
        i_ax = g_own_c * (v[par] - v)
        i_ax = i_ax.index_add(0, par1, g_par_c * (v[1:] - v[par1]))
        rhs = i_ax - i_ion + inj * i_syn
        v = v + tree_solve(plan, d_cap + g_na + g_k + gl + gp, a_off, b_off, rhs)
        m_inf, m_tau, h_inf, h_tau, n_inf, n_tau = hh_rates(v)
        m = m + (1.0 - torch.exp(-dt / m_tau)) * (m_inf - m)
        h = h + (1.0 - torch.exp(-dt / h_tau)) * (h_inf - h)
        ng = ng + (1.0 - torch.exp(-dt / n_tau)) * (n_inf - ng)
        v_soma = v[0].reshape(S, offs[-1])
        s = torch.relu(v_soma - spec.v_gap0) / 10.0
        if step >= n_steps // 2:
            readout = readout + v_soma[:, offs[-2]:]
            count += 1
    logits = (readout / count - spec.v_rest) / 10.0
    return (logits, torch.stack(trace, dim=1)) if record else logits


@pytest.mark.parametrize("kind", ["bas3", "bas1", "point", "timevarying", "branched"])
def test_faster_network_step_equals_the_earlier_one(kind):
    """The sixth session's run_network (HH gates on the soma rows only, no per-step input checks) gives
    bit-identical logits and recorded activity, and gradients equal to the earlier step's within 1e-12
    (relative; autograd may sum the same terms in another order)."""
    from icml26.science.heliox.network import init_weights, make_network, run_network

    rng = np.random.default_rng(7)
    spec = make_network(6, (5, 4, 3), nseg={"bas3": 3, "bas1": 1}.get(kind, 3), dend_L=150.0,
                        point_neuron=kind == "point")
    if kind == "branched":  # a tree, not a chain: the general solve path (review, sixth session)
        from icml26.science.heliox.method import y_neuron
        from icml26.science.heliox.network import NetworkSpec

        morph = y_neuron(nseg=2, n_dend=3)
        spec = NetworkSpec(spec.sizes, spec.n_in, morph, syn_node=morph.n - 1)
    params = init_weights(spec, rng, scale=3.0, bias=0.4)  # strong enough to make the cells spike
    x = rng.uniform(size=(4, 24, 6) if kind == "timevarying" else (4, 6))
    w = torch.as_tensor(rng.normal(size=(4, 3)))
    outs = []
    for f in (run_network, _run_network_before_s6):
        logits, act = f(spec, params, torch.as_tensor(x), 6.0, 0.25, record=True)
        grads = torch.autograd.grad((logits * w).sum(), params)
        outs.append((logits.detach(), act.detach(), grads))
    (l1, a1, g1), (l0, a0, g0) = outs
    assert torch.equal(l1, l0) and torch.equal(a1, a0)
    assert (a0 > 1.0).any()  # some cell depolarised well above the synaptic threshold (spiking regime)
    for new, old in zip(g1, g0):
        torch.testing.assert_close(new, old, rtol=1e-12, atol=1e-12 * float(old.abs().max()))



# ----------------------------------------------------------------------------- cheaper solves (seventh session)
def test_chain_paths_are_bit_identical_to_the_general_solves(monkeypatch):
    """Seventh session: the chain solve's row operations in numpy, the one-node steps of the numpy DHS
    solve by integer indexing, and simulate's chain path (torch backend) give the same bits as the
    general code: solutions, traces and gradients."""
    from icml26.science.heliox import method, network
    from icml26.science.heliox.experiment import _fit_bio

    rng = np.random.default_rng(3)
    for n, batch in ((40, None), (40, 3)):
        parent = np.arange(-1, n - 1)  # a chain: every DHS step eliminates one node
        d, a, b, rhs = random_system(parent, rng, batch=batch) if batch else random_system(parent, rng)
        x = dhs_solve(make_plan(parent, 4), d, a, b, rhs)
        assert np.array_equal(x, hines_solve(parent, d, a, b, rhs))
        t = [torch.tensor(v) for v in (d, a, b, rhs)]
        order = network._chain_order(make_plan(parent, 4))
        assert torch.equal(network._chain_solve(order, *t), method._dhs_solve_tensor(make_plan(parent, 4), *t))
    morph = ball_and_stick(3, dend_L=150.0)
    stim = Stimulus(0, 0.5, 20.0, 0.4)

    def run():
        logs = torch.tensor(np.random.default_rng(1).normal(0, 0.3, size=(3, 2))).requires_grad_()
        v = simulate(morph, _fit_bio(morph, logs, 2), stim, 2.0, 0.025, backend="torch", batch=2)
        ((v + 60.0) ** 2).mean().backward()
        return v.detach(), logs.grad

    v_fast, g_fast = run()
    monkeypatch.setattr(network, "_chain_order", lambda plan: None)  # forces the checked tree_solve
    v_ref, g_ref = run()
    assert torch.equal(v_fast, v_ref) and torch.equal(g_fast, g_ref)


def test_axial_conductances_sum_on_the_diagonal_and_reject_a_non_morphology():
    morph = y_neuron(nseg=5, n_dend=2)
    par, g_own, g_par, axial_d = axial_conductances(morph)
    assert g_own[0] == g_par[0] == 0.0 and par[0] == 0
    expect = g_own.copy()
    for i in range(1, morph.n):
        expect[par[i]] += g_par[i]
    np.testing.assert_allclose(axial_d, expect, rtol=1e-14)
    with pytest.raises(TypeError, match="morph"):
        axial_conductances(np.zeros(3))
