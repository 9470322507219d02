"""Geometry shared by the surface-reconstruction and CAD papers (mpf, cadfit).

Point-set distances use scipy's ``cKDTree``; meshes are ``trimesh.Trimesh``; volumes and
booleans go through ``manifold3d``. Definitions, so that every paper reports the same numbers:

- :func:`chamfer`: ``0.5 * (mean_a d(a, B) + mean_b d(b, A))`` with Euclidean ``d`` (the
  "L1-Chamfer" of the reconstruction literature); ``squared=True`` averages squared distances.
- :func:`hausdorff`: ``max(max_a d(a, B), max_b d(b, A))``.
- :func:`sample_surface`: area-uniform samples on a mesh, reproducible by seed.
- :func:`component_count`: connected pieces of a mesh (faces sharing edges).
- :func:`volume_iou`: ``vol(A ∩ B) / vol(A ∪ B)`` of two closed meshes by exact mesh booleans.
- :func:`normalize_unit_box`: translate and scale a point set or mesh so its bounding box is
  centred at 0 with longest side 1 (the scale is returned, so distances can be mapped back).

trimesh and manifold3d are imported inside the functions that need them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.core.validate import as_rng, check_finite, check_int


def as_points(name: str, x: Any, dim: int | None = None) -> np.ndarray:
    """``x`` as a finite, non-empty ``(n, d)`` float array (``d == dim`` if given)."""
    p = np.asarray(x, dtype=float)
    if p.ndim != 2 or p.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty (n, d) array, got shape {p.shape}")
    if dim is not None and p.shape[1] != dim:
        raise ValueError(f"{name} must have {dim} columns, got {p.shape[1]}")
    check_finite(name, p)
    return p


def nearest_distances(a: Any, b: Any) -> np.ndarray:
    """For every point of ``a`` the Euclidean distance to its nearest point of ``b``."""
    from scipy.spatial import cKDTree

    pa, pb = as_points("a", a), as_points("b", b)
    if pa.shape[1] != pb.shape[1]:
        raise ValueError(f"a and b must have the same dimension, got {pa.shape[1]} and {pb.shape[1]}")
    d, _ = cKDTree(pb).query(pa, k=1)
    return np.asarray(d, dtype=float)


def chamfer(a: Any, b: Any, *, squared: bool = False) -> float:
    """Symmetric Chamfer distance ``0.5 (mean_a d(a,B) + mean_b d(b,A))`` between point sets."""
    if not isinstance(squared, bool):
        raise TypeError(f"squared must be a bool, got {type(squared).__name__}")
    dab, dba = nearest_distances(a, b), nearest_distances(b, a)
    if squared:
        dab, dba = dab**2, dba**2
    return float(0.5 * (dab.mean() + dba.mean()))


def hausdorff(a: Any, b: Any) -> float:
    """Symmetric Hausdorff distance ``max(max_a d(a,B), max_b d(b,A))`` between point sets."""
    return float(max(nearest_distances(a, b).max(), nearest_distances(b, a).max()))


def _check_mesh(name: str, mesh: Any) -> Any:
    import trimesh

    if not isinstance(mesh, trimesh.Trimesh):
        raise TypeError(f"{name} must be a trimesh.Trimesh, got {type(mesh).__name__}")
    if len(mesh.faces) == 0:
        raise ValueError(f"{name} has no faces")
    return mesh


def sample_surface(mesh: Any, n: int, seed: Any = 0) -> np.ndarray:
    """``n`` area-uniform points on the surface of ``mesh`` (reproducible by ``seed``)."""
    import trimesh

    _check_mesh("mesh", mesh)
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    pts, _ = trimesh.sample.sample_surface(mesh, n, seed=int(rng.integers(2**31 - 1)))
    return np.asarray(pts, dtype=float)


def component_count(mesh: Any) -> int:
    """Number of edge-connected pieces of ``mesh`` (0 for an empty mesh)."""
    import trimesh

    if not isinstance(mesh, trimesh.Trimesh):
        raise TypeError(f"mesh must be a trimesh.Trimesh, got {type(mesh).__name__}")
    if len(mesh.faces) == 0:
        return 0
    labels = trimesh.graph.connected_component_labels(mesh.face_adjacency, node_count=len(mesh.faces))
    return int(len(np.unique(labels)))


def to_manifold(mesh: Any) -> Any:
    """``mesh`` as a ``manifold3d.Manifold``; ``ValueError`` if it is not a closed 2-manifold."""
    import manifold3d

    _check_mesh("mesh", mesh)
    m = manifold3d.Manifold(manifold3d.Mesh(vert_properties=np.asarray(mesh.vertices, dtype=np.float32),
                                            tri_verts=np.asarray(mesh.faces, dtype=np.uint32)))
    if m.status() != manifold3d.Error.NoError:
        raise ValueError(f"mesh is not a closed 2-manifold ({m.status()})")
    return m


def volume_iou(a: Any, b: Any) -> float:
    """Volumetric IoU ``vol(A ∩ B) / vol(A ∪ B)`` of two closed meshes (exact booleans)."""
    ma, mb = to_manifold(a), to_manifold(b)
    inter = (ma ^ mb).volume()
    union = (ma + mb).volume()
    return float(inter / union) if union > 0 else 0.0


def normalize_unit_box(x: Any) -> tuple[Any, np.ndarray, float]:
    """Centre the bounding box of a point set or mesh at 0 and scale its longest side to 1.

    Returns ``(normalised copy, centre, scale)`` with ``normalised = (x - centre) / scale``.
    """
    import trimesh

    if isinstance(x, trimesh.Trimesh):
        v = np.asarray(x.vertices, dtype=float)
    else:
        v = as_points("x", x)
    lo, hi = v.min(axis=0), v.max(axis=0)
    centre, scale = 0.5 * (lo + hi), float((hi - lo).max())
    if scale <= 0:
        raise ValueError("x has zero extent")
    if isinstance(x, trimesh.Trimesh):
        y = x.copy()
        y.vertices = (v - centre) / scale
        return y, centre, scale
    return (v - centre) / scale, centre, scale
