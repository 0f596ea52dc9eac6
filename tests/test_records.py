"""Records (results.record): they never alias the caller's memory, stay frozen through pickle, copy, deepcopy and
joblib's process workers, and never compare wall-clock times."""

import copy
import dataclasses
import inspect
import pickle
import pkgutil
from importlib import import_module

import joblib
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import solvable
from solvable import bsr, ellipsoid, glm, results
from solvable.dataset import Dataset
from solvable.experiments import Run, Sweep


@results.record
class Box:
    """A record with an array, a tuple of arrays and a number (module level, so that it pickles)."""

    a: np.ndarray
    pair: tuple
    x: float = 0.0


dtypes = st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.uint16, np.bool_, np.complex128])
arrays = dtypes.flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
)
quick = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _arrays_of(rec):
    out = []
    for f in dataclasses.fields(rec):
        v = getattr(rec, f.name)
        out += (
            [v]
            if isinstance(v, np.ndarray)
            else [x for x in v if isinstance(x, np.ndarray)]
            if isinstance(v, tuple)
            else []
        )
    return out


def _assert_frozen(rec):
    for a in _arrays_of(rec):
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a.flags.writeable = True  # nor can the flag be set back
        if a.size:
            with pytest.raises(ValueError):
                a[(0,) * a.ndim] = a[(0,) * a.ndim]


def _same(a, b):
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _mutate(a):
    if a.size:
        flat = a.reshape(-1)
        flat[0] = 1 if a.dtype == bool and not flat[0] else (0 if a.dtype == bool else flat[0] + 1)


# --------------------------------------------------------------------------- 1. no aliasing of the caller's memory
@quick
@given(a=arrays, b=arrays, x=st.floats(allow_nan=True))
def test_a_record_keeps_a_private_copy_of_the_callers_arrays(a, b, x):
    a0, b0 = a.copy(), b.copy()
    rec = Box(a, (b, "label"), x)
    _mutate(a)
    _mutate(b)
    assert _same(rec.a, a0) and _same(rec.pair[0], b0) and rec.pair[1] == "label"
    assert rec == Box(a0, (b0, "label"), x)
    _assert_frozen(rec)


def test_a_read_only_array_of_the_caller_is_copied_too():
    # the owner of a read-only array may set it writeable again: a record does not rely on its flag
    a = np.arange(4.0)
    a.flags.writeable = False
    rec, data = Box(a, ()), Dataset(X=np.ones((3, 2)), y=a[:3])
    a.flags.writeable = True
    a[0] = 99.0
    assert rec.a[0] == 0.0 and data.y[0] == 0.0
    # a view of the caller's array is copied as well
    b = np.zeros((3, 2))
    data = Dataset(X=b[:, ::-1], y=b[:, 0])
    b += 1.0
    assert not np.any(data.X) and not np.any(data.y)


def test_arrays_nobody_else_holds_are_not_copied():
    # a record's own array, passed to another record, is shared (it is read-only memory only records hold)
    rec = Box(np.arange(3.0), ())
    other = Box(rec.a, (rec.a,))
    assert np.shares_memory(other.a, rec.a) and np.shares_memory(other.pair[0], rec.a)
    assert np.shares_memory(dataclasses.replace(rec, x=1.0).a, rec.a)
    # an array that __post_init__ made (a conversion to float) is kept without a second copy; adopt hands arrays over
    ints = np.arange(6).reshape(3, 2)
    data = Dataset(X=ints, y=[1, 2, 3])
    ints[0, 0] = 7
    assert data.X[0, 0] == 0.0 and data.X.base is not None and data.X.base.base is None
    X = np.ones((3, 2))
    adopted = Dataset.adopt(X=X, y=np.ones(3))
    assert np.shares_memory(adopted.X, X) and not X.flags.writeable
    # a sampler's data set adopts its fresh arrays: sampling copies nothing
    sample = glm.sample(40, 2.0, rng=0)
    assert sample.X.base is not None and sample.X.base.flags.owndata


# --------------------------------------------------------------------------- 2. frozen through pickle, copy, joblib
def _round_trips(rec):
    return {"pickle": pickle.loads(pickle.dumps(rec)), "copy": copy.copy(rec), "deepcopy": copy.deepcopy(rec)}


def _real_records():
    data = bsr.sample(12, 0.2, beta=1.0, rho=0.25, rng=0)
    gd_result = bsr.gd(data, n_inits=3, lr=0.1, max_steps=30, tol=0.0, record_every=10, warn=False, rng=1)
    return [
        glm.state_evolution(1.0, "gaussian", "sign"),
        gd_result,
        data,
        glm.sample(30, 2.0, rng=2),
        Sweep(values=np.arange(2.0), runs=np.ones((2, 3))),
        Box(np.arange(3), (np.eye(2), 1)),
    ]


@pytest.mark.parametrize("index", range(6))
def test_records_stay_frozen_through_pickle_copy_and_deepcopy(index):
    rec = _real_records()[index]
    for how, back in _round_trips(rec).items():
        assert type(back) is type(rec) and back == rec, how
        _assert_frozen(back)
        with pytest.raises(dataclasses.FrozenInstanceError):
            back.some_field = 1


@quick
@given(a=arrays, b=arrays)
def test_any_record_stays_frozen_through_pickle_and_deepcopy(a, b):
    rec = Box(a, (b, 2))
    for how, back in _round_trips(rec).items():
        assert back == rec, how
        _assert_frozen(back)


def _in_worker(rec):
    """Runs in a loky worker: the record arrives frozen (arrays memory-mapped read-only when large) and equal."""
    _assert_frozen(rec)
    return rec, [type(a).__name__ for a in _arrays_of(rec)]


def test_records_stay_frozen_through_joblib_workers_and_memory_maps():
    recs = _real_records()
    # max_nbytes=64: every array over 64 bytes goes to the worker as a read-only memory map (joblib's default does
    # the same beyond 1 MB)
    with joblib.parallel_config(backend="loky", inner_max_num_threads=1):
        out = joblib.Parallel(n_jobs=2, max_nbytes=64, mmap_mode="r")(
            joblib.delayed(_in_worker)(r) for r in recs
        )
    assert any("memmap" in kinds for _, kinds in out)  # the memory maps were exercised
    for rec, (back, _) in zip(recs, out, strict=True):
        assert type(back) is type(rec) and back == rec
        _assert_frozen(back)


def test_a_read_only_memory_map_is_kept_without_a_copy(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(6.0).reshape(3, 2))
    X = np.load(path, mmap_mode="r")
    data = Dataset(X=X, y=np.ones(3))
    assert np.shares_memory(data.X, X) and data.X[2, 1] == 5.0
    _assert_frozen(data)


# --------------------------------------------------------------------------- 3. times are not compared
def _records_of_the_library():
    out = []
    for info in pkgutil.iter_modules(solvable.__path__):
        module = import_module(f"solvable.{info.name}")
        out += [
            obj
            for _, obj in inspect.getmembers(module, inspect.isclass)
            if obj.__module__ == module.__name__
            and dataclasses.is_dataclass(obj)
            and getattr(obj, "__reduce__", None) is results._reduce
        ]
    return out


def test_no_record_compares_wall_clock_times():
    classes = _records_of_the_library()
    assert {Run, Sweep, ellipsoid.FeasibilitySweep} <= set(classes) and len(classes) > 20
    timed = [
        (c.__qualname__, f.name)
        for c in classes
        for f in dataclasses.fields(c)
        if any(w in f.name for w in ("second", "elapsed", "wall", "time")) and f.compare
    ]
    assert not timed, f"wall-clock fields compared by ==: {timed}"


def test_a_feasibility_sweep_equals_itself_timed_again():
    a = ellipsoid.feasibility_sweep(6, [0.1], n_seeds=2, max_iter=200, rng=0)
    b = ellipsoid.feasibility_sweep(6, [0.1], n_seeds=2, max_iter=200, rng=0)
    assert a == dataclasses.replace(b, seconds=b.seconds + 1.0)
