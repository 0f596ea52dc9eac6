"""solvable.exercises: the verdicts a student reads (see tests/test_exercises.py for the chapters' exercises)."""

import numpy as np
import pytest

from solvable import exercises


def reference(x, a):
    return a * np.sin(x), np.cos(x)


CASES = [dict(x=np.linspace(0.1, 1.0, 5), a=2.0)]


def test_a_correct_function_passes_and_is_handed_on(capsys):
    def mine(x, a):
        return a * np.sin(x), np.cos(x)

    verdict = exercises.check_function("sin and cos", mine, reference, CASES, outputs=("f", "df"))
    assert verdict.passed and verdict.function is mine
    assert capsys.readouterr().out.strip() == "PASS: sin and cos: mine agrees with solvable on 1 case (to 1e-08 relative)"


def test_a_stub_is_not_started_and_the_library_stands_in(capsys):
    def mine(x, a):
        raise NotImplementedError

    verdict = exercises.check_function("sin and cos", mine, reference, CASES, outputs=("f", "df"))
    assert verdict.status == "not started" and not verdict
    assert capsys.readouterr().out.startswith("NOT STARTED: mine still raises NotImplementedError")
    np.testing.assert_array_equal(verdict.function(**CASES[0])[0], reference(**CASES[0])[0])
    again = exercises.check_function("sin and cos", verdict.function, reference, CASES, outputs=("f", "df"))
    assert again.status == "not started", "an emptied cell must not pass on the library's stand-in"


@pytest.mark.parametrize(("mistake", "words"), [
    (lambda x, a: (2 * a * np.sin(x), np.cos(x)), ["f is", "2 times the reference: a factor 2 too large"]),
    (lambda x, a: (a * np.sin(x), -np.cos(x)), ["df is", "the sign is flipped"]),
    (lambda x, a: (a * np.sin(x) + 0.5, np.cos(x)), ["off by the same +0.5"]),
    (lambda x, a: (a * np.sin(x), np.cos(x)[:-1]), ["df has shape (4,); the reference has shape (5,)"]),
    (lambda x, a: (a * np.sin(x), np.cos(x) / 0 * 0), ["df is nan at x = 0.1"]),
    (lambda x, a: a * np.sin(x), ["returned a ndarray; expected the tuple (f, df)"]),
    (lambda x, a: (a * np.sin(x), np.cos(x), 0), ["returned a tuple of 3"]),
    (lambda x, a: (a * np.sin(x) + (x > 0.9), np.cos(x)), ["f is 2.68294 at x = 1, the reference 1.68294 (1 of 5 entries differ)"]),
])
def test_a_wrong_function_is_told_where_and_how_it_differs(mistake, words, capsys):
    with np.errstate(all="ignore"):
        verdict = exercises.check_function("sin and cos", mistake, reference, CASES, outputs=("f", "df"))
    out = capsys.readouterr().out
    assert verdict.status == "not yet" and out.startswith("NOT YET: <lambda>(x=<array of shape (5,)>, a=2)")
    for w in words:
        assert w in out, out


def test_an_error_in_the_readers_code_is_reported_not_raised(capsys):
    def mine(x, a):
        return np.linalg.solve(np.zeros((2, 2)), x[:2])

    verdict = exercises.check_function("sin", mine, reference, CASES, hint="solve nothing")
    assert verdict.status == "not yet"
    out = capsys.readouterr().out
    assert "raised LinAlgError: Singular matrix" in out and out.strip().endswith("Hint: solve nothing")


def test_trajectories_are_named_by_their_axes(capsys):
    def ref(T):
        return np.arange(T, dtype=float)[:, None] * np.ones(3)

    def mine(T):
        out = ref(T)
        out[2, 1] += 1
        return out

    exercises.check_function("a trajectory", mine, ref, [dict(T=4)], axes=("iteration", "entry"))
    assert "at iteration 2, entry 1" in capsys.readouterr().out


def test_values_and_bad_arguments(capsys):
    assert exercises.check("a sum", np.array([1.0, 2.0]), [1.0, 2.0 + 1e-12]).passed
    assert not exercises.check("a sum", None, [1.0])
    assert "NOT STARTED: a sum" in capsys.readouterr().out
    assert exercises.check("a sum", [1.0, 2.5], [1.0, 2.0]).status == "not yet"
    assert "is 2.5 at index 1, the reference 2 (1 of 2 entries differ)" in capsys.readouterr().out
    with pytest.raises(TypeError, match="callable"):
        exercises.check_function("x", 3, reference, CASES)
    with pytest.raises(TypeError, match="cases"):
        exercises.check_function("x", reference, reference, [])
