"""One result vocabulary (as SciPy's OptimizeResult): the same names for the same things in every record of the
library, and every result of an iterative computation says why it stopped, with the numbers of its stop."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
import warnings

import numpy as np
import pytest

import solvable
from solvable import amp, bsr, convex, ellipsoid, glm, quadratic
from solvable.errors import ConvergenceWarning

#: Names that once meant what the vocabulary now calls otherwise.
OLD_NAMES = {
    "steps": "iterations",
    "n_iter": "iterations",
    "n_iterations": "iterations",
    "mse": "error",
    "stderr": "sem",
    "se": "sem",
    "center_se": "center_sem",
    "S": "estimate",
    "instances": "n_seeds",
    "n_trials": "n_seeds",
    "status_message": "message",
    "msg": "message",
}


def _records():
    for info in pkgutil.iter_modules(solvable.__path__):
        module = importlib.import_module(f"solvable.{info.name}")
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == module.__name__:
                yield f"{info.name}.{name}", obj


def test_no_record_uses_an_old_name():
    found = {}
    for name, cls in _records():
        names = {f.name for f in dataclasses.fields(cls)}
        names |= {n for n, v in vars(cls).items() if isinstance(v, property)}
        bad = sorted(names & set(OLD_NAMES))
        if bad:
            found[name] = {b: OLD_NAMES[b] for b in bad}
    assert not found, f"records with names outside the vocabulary (old -> new): {found}"


def test_every_iterative_result_says_why_it_stopped():
    """A record with ``iterations`` (and ``converged``) is the result of a loop: it carries a ``message``."""
    missing = [
        name
        for name, cls in _records()
        if {"iterations"} <= {f.name for f in dataclasses.fields(cls)}
        and name not in {"experiments.Run", "experiments.Sweep", "ellipsoid.FeasibilitySweep"}
        and "message" not in {f.name for f in dataclasses.fields(cls)}
    ]
    assert not missing, f"iterative results without a stop message: {missing}"


def _numbers(text):
    return [float(x) for x in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def test_gamp_message_at_convergence_and_at_the_cap():
    data = glm.sample(300, 2.0, rng=1)
    res = glm.gamp(data, rng=2)
    assert res.converged and res.message.startswith("GAMP converged: change ")
    change, tol, its = _numbers(res.message)
    assert its == res.iterations and change < tol
    with pytest.warns(ConvergenceWarning) as caught:
        capped = glm.gamp(data, max_iter=3, rng=2)
    assert not capped.converged and capped.message == str(caught[0].message)
    assert capped.message.startswith("GAMP did not converge in 3 iterations (last change ")


def test_state_evolution_message_carries_its_numbers():
    se = bsr.state_evolution(0.3, 1.0, 0.25)
    assert se.converged and "converged" in se.message and f"after {se.iterations} iterations" in se.message
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        capped = bsr.state_evolution(0.3, 1.0, 0.25, max_iter=2)
    assert not capped.converged and "did not converge in 2 iterations" in capped.message
    assert any(str(w.message) == capped.message for w in caught if issubclass(w.category, ConvergenceWarning))
    fp = amp.iterate_fixed_point(np.cos, [1.0], tol=1e-12, max_iter=200)
    assert fp.converged and fp.message.endswith(
        f"converged: change {fp.change:.2e} < tol 1.0e-12 after {fp.iterations} iterations"
    )


def test_gd_message_at_convergence_and_at_the_cap():
    data = bsr.sample(12, 1.5, beta=1.0, rho=0.25, rng=3)
    res = bsr.gd(data, n_inits=2, max_steps=5000, tol=1e-6, rng=4, warn=False)
    assert res.converged.all()
    assert res.message.startswith("gradient descent converged: all 2 runs below tol 1.0e-06 in ")
    assert f"in {res.iterations.min()} to {res.iterations.max()} steps" in res.message
    assert float(res.message.rsplit("up to ", 1)[1].rstrip(")")) == pytest.approx(res.losses.max(), rel=1e-2)
    capped = bsr.gd(data, n_inits=2, max_steps=3, tol=1e-12, rng=4, warn=False)
    assert not capped.converged.any()
    assert capped.message.startswith(
        "gradient descent stopped at its cap of 3 steps with 2 of 2 runs above tol"
    )
    fixed = bsr.gd(data, n_inits=2, max_steps=4, tol=0.0, rng=4, warn=False)
    assert fixed.message.startswith("gradient descent ran its fixed 4 steps")


def test_convex_message_names_its_residuals():
    d = 6
    rng = np.random.default_rng(5)
    W = rng.standard_normal((2, d))
    S = W.T @ W
    Z = rng.standard_normal((12, d, d))
    Z = (Z + Z.transpose(0, 2, 1)) / 2
    y = np.einsum("mij,ij->m", Z, S)
    res = convex.psd_trace_minimization(Z, y, tol=1e-7, max_iter=20000)
    assert res.converged and res.message.startswith("psd_trace_minimization converged: primal residual ")
    primal, dual, tol, its = _numbers(res.message)
    assert its == res.iterations and max(primal, dual) < tol == 1e-7
    capped = convex.psd_trace_minimization(Z, y, tol=1e-12, max_iter=5, warn=False)
    assert not capped.converged and capped.message.startswith("psd_trace_minimization did not converge in 5 ")
    zero = convex.psd_trace_minimization(Z, 0 * y)
    assert zero.iterations == 0 and "no iteration" in zero.message


def test_ellipsoid_and_erm_messages():
    pts = ellipsoid.sample_points(8, n=10, rng=0)  # n/d^2 ~ 0.16, below the threshold: feasible
    res = ellipsoid.fit(pts)
    assert res.status == "feasible" and res.message.startswith("feasible: a PSD fit with residual ")
    assert f"after {res.iterations} iterations" in res.message
    far = ellipsoid.fit(ellipsoid.sample_points(8, n=60, rng=0))  # n/d^2 ~ 0.94: infeasible
    assert far.status == "infeasible" and far.message.startswith("infeasible: ")
    from solvable import erm

    assert "closed form" in erm.erm_state_evolution(2.0, "ridge", lam=0.1).message
    th = quadratic.nuclear_norm_erm(quadratic.sample(10, 0.5, kappa=0.5, rng=1), lam=0.01, warn=False)
    assert th.message.startswith("nuclear_norm_erm ") and str(th.iterations) in th.message
