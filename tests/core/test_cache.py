"""The on-disk cache: keys are stable, builds run once, bad files are rebuilt, writes are atomic."""

import numpy as np
import pytest

from icml26.core import cache as K


@pytest.fixture(autouse=True)
def _root(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    monkeypatch.delenv("ICML26_NO_CACHE", raising=False)


def test_key_is_order_independent_and_param_sensitive():
    assert K.cache_key({"a": 1, "b": [1, 2]}) == K.cache_key({"b": [1, 2], "a": 1})
    assert K.cache_key({"a": 1}) != K.cache_key({"a": 2})
    assert K.cache_key({"x": np.arange(3)}) == K.cache_key({"x": [0, 1, 2]})
    assert len(K.cache_key({"a": 1}, length=8)) == 8


@pytest.mark.parametrize("fmt,value", [("pkl", {"a": (1, 2)}), ("json", {"a": [1, 2]}), ("npy", np.eye(3)),
                                       ("npz", {"h": np.ones(2), "s": np.zeros((2, 2))})])
def test_build_runs_once_and_round_trips(fmt, value):
    calls = []

    def build():
        calls.append(1)
        return value

    first = K.cached("demo", "thing", build, params={"seed": 0}, fmt=fmt)
    second = K.cached("demo", "thing", build, params={"seed": 0}, fmt=fmt)
    assert len(calls) == 1
    for got in (first, second):
        if fmt == "npy":
            np.testing.assert_array_equal(got, value)
        elif fmt == "npz":
            assert set(got) == set(value) and all(np.array_equal(got[k], value[k]) for k in value)
        elif fmt == "pkl":
            assert got == value
    K.cached("demo", "thing", build, params={"seed": 1}, fmt=fmt)
    assert len(calls) == 2  # another key builds again
    K.cached("demo", "thing", build, params={"seed": 0}, fmt=fmt, refresh=True)
    assert len(calls) == 3


def test_torch_state_dict_round_trips():
    torch = pytest.importorskip("torch")
    net = torch.nn.Linear(3, 2)
    sd = K.cached("demo", "net", lambda: net.state_dict(), params={"w": 3}, fmt="pt")
    again = K.cached("demo", "net", lambda: 1 / 0, params={"w": 3}, fmt="pt")
    assert all(torch.equal(sd[k], again[k]) for k in sd)


def test_corrupt_file_is_rebuilt_and_no_temp_files_left():
    path = K.cache_path("demo", "x", {"n": 1}, "pkl")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a pickle")
    assert K.cached("demo", "x", lambda: 42, params={"n": 1}) == 42
    assert K.cached("demo", "x", lambda: 0, params={"n": 1}) == 42
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_failed_build_writes_nothing():
    with pytest.raises(ZeroDivisionError):
        K.cached("demo", "y", lambda: 1 / 0, params={})
    assert not (K.cache_root() / "demo").exists() or not any((K.cache_root() / "demo").iterdir())


def test_no_cache_env_bypasses_disk(monkeypatch):
    monkeypatch.setenv("ICML26_NO_CACHE", "1")
    assert K.cached("demo", "z", lambda: 5) == 5
    assert not K.cache_path("demo", "z").exists()


@pytest.mark.parametrize("kwargs,err", [
    ({"namespace": "", "name": "a"}, ValueError), ({"namespace": "a/b", "name": "a"}, ValueError),
    ({"namespace": "a", "name": ".hidden"}, ValueError), ({"namespace": "a", "name": "b", "fmt": "csv"}, ValueError),
])
def test_bad_paths(kwargs, err):
    with pytest.raises(err):
        K.cache_path(**kwargs)


def test_bad_input():
    with pytest.raises(TypeError, match="build"):
        K.cached("demo", "a", 3)
    with pytest.raises(TypeError, match="params"):
        K.cache_key([1, 2])
    with pytest.raises(TypeError, match="params"):
        K.cache_key({"f": object()})
    with pytest.raises(ValueError, match="length"):
        K.cache_key({}, length=2)


def test_an_icml26_build_is_keyed_by_its_code_and_rebuilt_when_that_changes(monkeypatch):
    import functools

    from icml26.core import fingerprint as F
    from icml26.tasks import kb

    calls = []

    def make(n):  # a build defined in icml26 (kb's module), as a paper's build would be
        calls.append(n)
        return {"n": n}

    build = functools.partial(make, 3)
    build.func.__module__ = "icml26.tasks.kb"  # the digest follows the module that defines the build
    path = K.cache_path("demo", "art", {"n": 3}, "json", code=build)
    assert path.name.startswith("art-") and path != K.cache_path("demo", "art", {"n": 3}, "json")
    assert K.cached("demo", "art", build, params={"n": 3}, fmt="json") == {"n": 3}
    assert K.cached("demo", "art", build, params={"n": 3}, fmt="json") == {"n": 3}
    assert calls == [3] and path.exists()
    # the code of icml26.tasks.kb (or a module it imports) changes: the old file is not read
    real = F._module_digest
    monkeypatch.setattr(F, "_module_digest", lambda name: real(name) + ("x" if name == "icml26.tasks.kb" else ""))
    assert K.cache_path("demo", "art", {"n": 3}, "json", code=build) != path
    assert K.cached("demo", "art", build, params={"n": 3}, fmt="json") == {"n": 3}
    assert calls == [3, 3]
