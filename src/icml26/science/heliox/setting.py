"""The simulated world of the HelioX reproduction: random tree systems, the NEURON reference cell,
and the classification task the biophysical network is trained on.

* :func:`random_system`: a random strictly diagonally dominant Hines system on a tree (negative
  off-diagonals, as axial coupling gives), the test bed of the DHS solve and its adjoint;
* :func:`neuron_ball_and_stick`: the same ball-and-stick cell(s) built and run in NEURON (the
  reference simulator HelioX uses as front end), returning soma traces, geometry and CPU time;
* :func:`digits_task`: 8x8 handwritten digits (scikit-learn's copy of the UCI set, shipped with
  the package, no download), pixels scaled to [0, 1], 10 classes: the small stand-in for the
  MNIST task HelioX trains its deep biophysical MLPs on;
* :func:`xor_task` / :func:`threshold_task`: inputs in [0, 1]^2 with labels (unit tests).
"""

from __future__ import annotations

import time

import numpy as np

from icml26.core.validate import as_rng, check_int
from icml26.science.heliox.method import Stimulus, validate_parent

DT = 0.025  # ms, NEURON's default and the card's setting


def random_system(parent, rng, batch: int | None = None):
    """A random strictly diagonally dominant Hines system ``(d, a, b, rhs)`` on ``parent``,
    each ``(N,)`` or ``(N, batch)``."""
    parent = validate_parent(parent)
    rng = as_rng("rng", rng)
    n = parent.size
    if batch is not None:
        batch = check_int("batch", batch, minimum=1)
    shape = (n,) if batch is None else (n, batch)
    a = -rng.uniform(0.1, 2.0, shape)
    b = -rng.uniform(0.1, 2.0, shape)
    a[0] = b[0] = 0.0
    d = rng.uniform(0.05, 1.0, shape) + np.abs(b)
    np.add.at(d, parent[1:], np.abs(a[1:]))
    rhs = rng.normal(size=shape)
    return d, a, b, rhs


def xor_task(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points uniform in [0, 1]^2 labelled by XOR of the two halves: (n, 2) inputs, (n,) labels."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    x = rng.uniform(0.0, 1.0, (n, 2))
    return x, ((x[:, 0] > 0.5) ^ (x[:, 1] > 0.5)).astype(np.int64)


def threshold_task(n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points uniform in [0, 1]^2 labelled 1 where x_0 > x_1: (n, 2) inputs, (n,) labels."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("rng", rng)
    x = rng.uniform(0.0, 1.0, (n, 2))
    return x, (x[:, 0] > x[:, 1]).astype(np.int64)


def digits_task(n_train: int, n_test: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A random disjoint train/test split of the 1797 8x8 digits: ``(x_train, y_train, x_test, y_test)``,
    inputs ``(n, 64)`` in [0, 1] (pixel / 16), labels ``(n,)`` in 0..9."""
    from sklearn.datasets import load_digits

    n_train = check_int("n_train", n_train, minimum=1)
    n_test = check_int("n_test", n_test, minimum=1)
    rng = as_rng("rng", rng)
    data = load_digits()
    if n_train + n_test > data.target.size:
        raise ValueError(f"n_train + n_test must be <= {data.target.size}, got {n_train + n_test}")
    perm = rng.permutation(data.target.size)
    x, y = data.data / 16.0, data.target.astype(np.int64)
    tr, te = perm[:n_train], perm[n_train:n_train + n_test]
    return x[tr], y[tr], x[te], y[te]


def neuron_ball_and_stick(nseg: int, dend_L: float, stim: Stimulus, t_stop: float, batch_amps=None):
    """Build the ball-and-stick cell(s) in NEURON and return (soma traces, areas, ri, cpu seconds)."""
    from neuron import h

    h.load_file("stdrun.hoc")
    amps = [stim.amp] if batch_amps is None else list(batch_amps)
    cells, recs, clamps = [], [], []
    for amp in amps:
        soma = h.Section(name="soma")
        soma.L = soma.diam = 20.0
        soma.nseg = 1
        dend = h.Section(name="dend")
        dend.L, dend.diam, dend.nseg = dend_L, 2.0, nseg
        dend.connect(soma(0.5))
        for sec in (soma, dend):
            sec.Ra = 100.0
            sec.cm = 1.0
        soma.insert("hh")
        dend.insert("pas")
        for seg in dend:
            seg.pas.g = 0.001
            seg.pas.e = -65.0
        ic = h.IClamp(soma(0.5))
        ic.delay, ic.dur, ic.amp = stim.delay, stim.dur, float(amp)
        recs.append(h.Vector().record(soma(0.5)._ref_v))
        cells.append((soma, dend))
        clamps.append(ic)
    h.celsius = 6.3
    h.usetable_hh = 0  # exact rate functions (our simulator evaluates them exactly)
    h.dt = DT
    h.finitialize(-65.0)
    t0 = time.process_time()
    h.continuerun(t_stop)
    cpu = time.process_time() - t0
    area = np.array([seg.area() for seg in cells[0][0]] + [seg.area() for seg in cells[0][1]])
    ri = np.array([seg.ri() for seg in cells[0][1]])
    traces = np.array([np.array(r) for r in recs])
    del cells, recs, clamps
    return traces, area, ri, cpu
