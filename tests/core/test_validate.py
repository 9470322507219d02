import numpy as np
import pytest
import torch

from icml26.core.validate import as_vector, check_finite


@pytest.mark.parametrize("bad", [np.array([1.0, np.nan]), np.array([np.inf]), torch.tensor([0.0, -np.inf])])
def test_check_finite_rejects_nan_and_inf(bad):
    with pytest.raises(ValueError, match="weights contains NaN or inf"):
        check_finite("weights", bad)


def test_check_finite_accepts_and_empty():
    check_finite("x", np.zeros(3))
    check_finite("x", torch.zeros(2, 2))
    check_finite("x", np.zeros(0))
    with pytest.raises(ValueError, match="x is empty"):
        check_finite("x", np.zeros(0), nonempty=True)


def test_as_vector():
    assert as_vector("v", [1, 2]).dtype == float
    with pytest.raises(ValueError, match="v must be a non-empty 1-D"):
        as_vector("v", np.zeros((2, 2)))
    with pytest.raises(ValueError, match="length 3"):
        as_vector("v", [1.0, 2.0], length=3)
    with pytest.raises(ValueError, match="NaN"):
        as_vector("v", [np.nan])
