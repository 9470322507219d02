"""Known answers for the shared geometry (Chamfer, Hausdorff, IoU, components)."""

import numpy as np
import pytest

trimesh = pytest.importorskip("trimesh", reason="trimesh is in the science extra")
pytest.importorskip("manifold3d", reason="manifold3d is in the science extra")

from icml26.science import _geometry as g  # noqa: E402


def test_chamfer_and_hausdorff_of_shifted_sets():
    a = np.array([[0.0, 0.0], [1.0, 0.0]])
    b = a + [0.0, 0.25]
    assert g.chamfer(a, b) == pytest.approx(0.25)
    assert g.chamfer(a, b, squared=True) == pytest.approx(0.0625)
    assert g.hausdorff(a, b) == pytest.approx(0.25)
    # an outlier moves Hausdorff to its distance but Chamfer only by its share
    c = np.vstack([b, [[0.0, 3.0]]])
    assert g.hausdorff(a, c) == pytest.approx(3.0)
    assert g.chamfer(a, c) == pytest.approx(0.5 * (0.25 + (0.25 + 0.25 + 3.0) / 3))


def test_chamfer_is_symmetric_and_zero_on_itself():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 3)), rng.normal(size=(70, 3))
    assert g.chamfer(a, b) == pytest.approx(g.chamfer(b, a))
    assert g.chamfer(a, a) == 0.0


def test_volume_iou_of_half_overlapping_boxes():
    a = trimesh.creation.box((1, 1, 1))
    b = trimesh.creation.box((1, 1, 1))
    b.apply_translation((0.5, 0, 0))
    assert g.volume_iou(a, b) == pytest.approx(1 / 3)
    assert g.volume_iou(a, a) == pytest.approx(1.0)


def test_open_mesh_is_refused_by_iou():
    a = trimesh.creation.box((1, 1, 1))
    open_mesh = trimesh.Trimesh(a.vertices, a.faces[:-2])
    with pytest.raises(ValueError, match="manifold"):
        g.volume_iou(a, open_mesh)


def test_components_samples_and_normalisation():
    a = trimesh.creation.box((1, 1, 1))
    two = trimesh.util.concatenate([a, trimesh.creation.box((1, 1, 1)).apply_translation((3, 0, 0))])
    assert g.component_count(two) == 2
    p = g.sample_surface(a, 500, seed=1)
    assert p.shape == (500, 3) and np.allclose(np.abs(p).max(axis=1), 0.5)
    assert np.array_equal(p, g.sample_surface(a, 500, seed=1))
    y, centre, scale = g.normalize_unit_box(two)
    assert scale == pytest.approx(4.0) and np.allclose(centre, [1.5, 0, 0])
    assert np.ptp(y.vertices, axis=0).max() == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [np.zeros((0, 3)), np.zeros(3), [[np.nan, 0, 0]]])
def test_bad_points(bad):
    with pytest.raises(ValueError):
        g.chamfer(bad, np.zeros((2, 3)))


def test_bad_arguments():
    with pytest.raises(ValueError, match="dimension"):
        g.chamfer(np.zeros((2, 2)), np.zeros((2, 3)))
    with pytest.raises(TypeError, match="mesh"):
        g.sample_surface(np.zeros((3, 3)), 10)
    with pytest.raises(ValueError, match="n"):
        g.sample_surface(trimesh.creation.box(), 0)
    with pytest.raises(TypeError, match="squared"):
        g.chamfer(np.zeros((2, 2)), np.zeros((2, 2)), squared=1)
