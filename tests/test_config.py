"""The declared arguments of solvable.config and solvable.backend (the base of the chapters' runs)."""

from __future__ import annotations

import numpy as np
import pytest

from solvable import backend, config
from solvable.domains import domains_of
from solvable.errors import InvalidParameterError


@pytest.mark.parametrize("default", [5.5, 0, -2, "2", True, 10**6])
def test_the_default_number_of_workers_is_checked(default, monkeypatch):
    """The default of an unset variable was returned as it was (5.5 workers, "2", 10**6 processes)."""
    monkeypatch.delenv("REPRO_JOBS", raising=False)
    with pytest.raises(InvalidParameterError, match="default"):
        config.jobs_from_environment("REPRO_JOBS", default)
    assert config.jobs_from_environment("REPRO_JOBS", None) is None
    assert config.jobs_from_environment("REPRO_JOBS", np.int64(1)) == 1


@pytest.mark.parametrize("variable", [None, 3, ""])
def test_the_variable_is_a_name(variable):
    with pytest.raises(InvalidParameterError, match="variable"):
        config.jobs_from_environment(variable, None)  # None and 3 raised from os.environ


def test_devices_are_declared_once():
    assert config.n_jobs("CPU") == config.n_jobs("cpu")
    for f in (config.n_jobs, backend.resolve):
        assert domains_of(f)["device"].options == ("cpu", "cuda", "auto")
        with pytest.raises(InvalidParameterError, match="device"):
            f("gpu")


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(xp="numpy"), "xp"),
        (dict(dtype="abc"), "dtype"),
        (dict(dtype=np.int64), "dtype"),
        (dict(dtype=np.float16), "dtype"),
    ],
)
def test_asarray_checks_its_namespace_and_type(kwargs, name):
    xp, dev = backend.resolve("cpu")
    call = dict(x=np.ones(3), xp=xp, dev=dev) | kwargs
    with pytest.raises(InvalidParameterError, match=name):
        backend.asarray(**call)
    assert backend.asarray(np.ones(3), xp, dev, "float32").dtype == np.float32
    x = np.arange(3)
    assert backend.asarray(x, xp, dev) is x  # no copy, its type kept
