"""The simulated world for QHFlow2 (arXiv 2602.16897): PBE water geometries labelled by PySCF.

The paper trains on MD17/rMD17/QH9 (Kohn-Sham Hamiltonians, energies and forces from DFT). We
generate the same kind of labels at run time with PySCF for one MD17 molecule, water:

* geometries sample the internal coordinates around equilibrium (both O-H bonds uniform in
  ``r0 +- dr``, the H-O-H angle uniform in ``theta0 +- dtheta``: a box of thermal-scale jitter)
  and are placed in a canonical frame (O at the origin, the bisector along +x, the molecule in the
  xy plane, H1 on the +y side). The canonical frame stands in for the paper's SO(3)-equivariant
  backbone: the Hamiltonian is a function of the three interatomic distances in this frame;
* every geometry is solved with restricted Kohn-Sham PBE (``pyscf.dft.RKS``), giving the overlap
  ``S``, the MINAO initial-guess density ``D_minao`` and its Fock matrix ``H_init = F[D_minao]``, the
  converged Fock matrix ``H*``, the SCF energy ``E*`` and analytic forces ``F*`` (with the grid
  response, so that on our coarse grid the forces are the exact gradient of the energy, which an
  MLIP's autograd forces assume), and the energy of
  the MINAO density ``E_minao = E[D_minao]`` (the physics prior a Delta-MLIP corrects);
* labelled pools are cached on disk (``ICML26_CACHE``, default ``~/.cache/icml26``) under
  ``qhflow2/`` keyed by basis, functional, grid level, pool size and seed, and rebuilt when absent.

Units: energies in Hartree, forces in Hartree/Bohr, coordinates in Angstrom (as PySCF takes them).
"""

from __future__ import annotations

import copy
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

HARTREE_EV = 27.211386245988
BOHR_ANGSTROM = 0.529177210903
FORCE_EV_PER_A = HARTREE_EV / BOHR_ANGSTROM  # Hartree/Bohr -> eV/Angstrom

R0, THETA0 = 1.00, 101.0  # near the PBE/STO-3G minimum of water (Angstrom, degrees)


@dataclass(frozen=True)
class WaterConfig:
    """The electronic-structure level and the sampling box of the geometries."""

    basis: str = "sto-3g"
    xc: str = "pbe"
    grid_level: int = 1
    r0: float = R0
    dr: float = 0.10
    theta0: float = THETA0
    dtheta: float = 10.0
    conv_tol: float = 1e-11
    grid_response: bool = True  # forces = exact gradient of the energy on the (coarse) grid

    def key(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def water_geometry(r1: float, r2: float, theta_deg: float) -> np.ndarray:
    """Cartesian coordinates (3, 3) in Angstrom, rows O, H1, H2, in the canonical frame."""
    r1 = check_positive("r1", r1)
    r2 = check_positive("r2", r2)
    theta_deg = check_positive("theta_deg", theta_deg)
    if theta_deg >= 180:
        raise ValueError(f"theta_deg must lie in (0, 180), got {theta_deg!r}")
    h = np.deg2rad(theta_deg) / 2
    return np.array([[0.0, 0.0, 0.0],
                     [r1 * np.cos(h), r1 * np.sin(h), 0.0],
                     [r2 * np.cos(h), -r2 * np.sin(h), 0.0]])


def sample_geometries(n: int, seed, config: WaterConfig = WaterConfig()) -> np.ndarray:
    """(n, 3, 3) geometries with bonds uniform in r0 +- dr and the angle uniform in theta0 +- dtheta."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    r = config.r0 + config.dr * rng.uniform(-1, 1, size=(n, 2))
    th = config.theta0 + config.dtheta * rng.uniform(-1, 1, size=n)
    return np.stack([water_geometry(a, b, t) for (a, b), t in zip(r, th)])


def make_mf(coords, config: WaterConfig = WaterConfig()):
    """A PySCF restricted Kohn-Sham object for water at ``coords`` (3, 3) Angstrom (not yet solved)."""
    from pyscf import dft, gto

    coords = as_array("coords", coords)
    if coords.shape != (3, 3):
        raise ValueError(f"coords must have shape (3, 3) (O, H, H), got {coords.shape}")
    atom = [("O", coords[0]), ("H", coords[1]), ("H", coords[2])]
    mol = gto.M(atom=atom, basis=config.basis, unit="Angstrom", verbose=0)
    mf = dft.RKS(mol)
    mf.xc = config.xc
    mf.grids.level = config.grid_level
    mf.conv_tol = config.conv_tol
    mf.grid_response = config.grid_response  # read by method.energy_and_forces
    mf.chkfile = None  # nothing reads the SCF checkpoint file; writing it every iteration cost ~3 s a pool
    return mf


def label_geometry(coords, config: WaterConfig = WaterConfig()) -> dict[str, np.ndarray]:
    """Solve one geometry: S, H_init (Fock of the MINAO guess), H* (converged Fock), D*, E*, F*, E_minao."""
    mf = make_mf(coords, config)
    d_minao = mf.get_init_guess(key="minao")
    v_minao = mf.get_veff(mf.mol, d_minao)  # once for both (get_fock and energy_tot would each recompute it)
    h_init = mf.get_fock(dm=d_minao, vhf=v_minao)
    e_minao = mf.energy_tot(d_minao, vhf=v_minao)
    e_star = mf.kernel(dm0=d_minao)
    if not mf.converged:
        raise RuntimeError("SCF did not converge")
    d_star = mf.make_rdm1()
    h_star = mf.get_fock(dm=d_star)
    g = mf.nuc_grad_method()
    g.grid_response = config.grid_response
    grad = g.kernel()
    return {"S": mf.get_ovlp(), "H_init": np.asarray(h_init), "H_star": np.asarray(h_star),
            "D_star": np.asarray(d_star), "E_star": float(e_star), "F_star": -np.asarray(grad),
            "E_minao": float(e_minao)}


def water_pool(n: int, seed: int, config: WaterConfig = WaterConfig()) -> dict[str, np.ndarray]:
    """A labelled pool of ``n`` geometries, cached on disk by (config, n, seed) and by the code of this module
    (``ICML26_NO_CACHE=1`` labels afresh and leaves the disk alone, as :func:`icml26.core.cache.cached` does).

    The file is where :func:`icml26.core.cache.cache_path` puts namespace ``qhflow2`` (keyed by the
    parameters and by this module's code and what it imports); unlike :func:`icml26.core.cache.cached`
    a lock file makes parallel seeds of a cold run wait for one labeller instead of each running the
    SCF solves.

    Returns arrays: coords (n, 3, 3), S/H_init/H_star/D_star (n, nao, nao), E_star/E_minao (n,),
    F_star (n, 3, 3).
    """
    n = check_int("n", n, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    if os.environ.get("ICML26_NO_CACHE") == "1":  # as core.cache.cached: build, never read or write the disk
        return _label_pool(n, seed, config)
    from icml26.core.cache import cache_path

    path = cache_path("qhflow2", f"water_{config.basis}_{config.xc}_n{n}_s{seed}",
                      {"n": n, "seed": seed, **config.key()}, fmt="npz", code=__name__)
    if path.exists():
        return _load(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # One labeller per pool: parallel seeds of a cold run wait on this lock instead of labelling it twice.
    with open(path.with_suffix(".lock"), "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        except (ImportError, OSError):  # no advisory locks here: label independently (correct, only slower)
            pass
        if path.exists():
            return _load(path)
        out = _label_pool(n, seed, config)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, **out)
        os.replace(tmp, path)
    return out


@contextmanager
def _parsed_basis_once():
    """Within the block, PySCF parses each (basis, element) from its basis file once: ``pyscf.gto.basis.load``
    re-reads and regex-splits the whole file at every call, and the MINAO guess loads the large ANO file for
    every molecule (~4 s of a 150-geometry pool). Each call gets its own deep copy of the parsed shells, the
    same nested lists a fresh parse gives; the original function is restored on exit."""
    from pyscf.gto import basis as pyscf_basis

    load, memo = pyscf_basis.load, {}

    def load_once(filename_or_basisname, symb, *args, **kwargs):
        try:
            key = (filename_or_basisname, symb, args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:  # an unhashable basis spec: no memo
            return load(filename_or_basisname, symb, *args, **kwargs)
        if key not in memo:
            memo[key] = load(filename_or_basisname, symb, *args, **kwargs)
        return copy.deepcopy(memo[key])

    pyscf_basis.load = load_once
    try:
        yield
    finally:
        pyscf_basis.load = load


def _label_pool(n: int, seed: int, config: WaterConfig) -> dict[str, np.ndarray]:
    coords = sample_geometries(n, seed, config)
    with _parsed_basis_once():
        rows = [label_geometry(c, config) for c in coords]
    out = {"coords": coords}
    for k in rows[0]:
        out[k] = np.stack([np.asarray(r[k]) for r in rows])
    return out


def _load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}
