"""solvable.exercises: the verdicts a student reads (see tests/test_exercises.py for the chapters' exercises)."""

import numpy as np
import pytest

from solvable import exercises
from solvable.errors import InvalidParameterError


def reference(x, a):
    return a * np.sin(x), np.cos(x)


CASES = [dict(x=np.linspace(0.1, 1.0, 5), a=2.0)]


def test_a_correct_function_passes_and_is_handed_on(capsys):
    def mine(x, a):
        return a * np.sin(x), np.cos(x)

    verdict = exercises.check_function("sin and cos", mine, reference, CASES, outputs=("f", "df"))
    assert verdict.passed and verdict.function is mine
    assert (
        capsys.readouterr().out.strip()
        == "PASS: sin and cos: mine agrees with the reference on 1 case (to 1e-08 relative)"
    )


def test_a_stub_is_not_started_and_the_library_stands_in(capsys):
    def mine(x, a):
        raise NotImplementedError

    verdict = exercises.check_function("sin and cos", mine, reference, CASES, outputs=("f", "df"))
    assert verdict.status == "not started" and not verdict
    assert capsys.readouterr().out.startswith("NOT STARTED: mine still raises NotImplementedError")
    np.testing.assert_array_equal(verdict.function(**CASES[0])[0], reference(**CASES[0])[0])
    again = exercises.check_function("sin and cos", verdict.function, reference, CASES, outputs=("f", "df"))
    assert again.status == "not started", "an emptied cell must not pass on the library's stand-in"


@pytest.mark.parametrize(
    ("mistake", "words"),
    [
        (
            lambda x, a: (2 * a * np.sin(x), np.cos(x)),
            ["f is", "2 times the reference: a factor 2 too large"],
        ),
        (lambda x, a: (a * np.sin(x), -np.cos(x)), ["df is", "the sign is flipped"]),
        (lambda x, a: (a * np.sin(x) + 0.5, np.cos(x)), ["off by the same +0.5"]),
        (lambda x, a: (a * np.sin(x), np.cos(x)[:-1]), ["df has shape (4,); the reference has shape (5,)"]),
        (lambda x, a: (a * np.sin(x), np.cos(x) / 0 * 0), ["df is nan at x = 0.1"]),
        (lambda x, a: a * np.sin(x), ["returned a ndarray; expected the tuple (f, df)"]),
        (lambda x, a: (a * np.sin(x), np.cos(x), 0), ["returned a tuple of 3"]),
        (
            lambda x, a: (a * np.sin(x) + (x > 0.9), np.cos(x)),
            ["f is 2.68294 at x = 1, the reference 1.68294 (1 of 5 entries differ)"],
        ),
    ],
)
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
    # a check never raises: faults of the check itself are printed as CHECK ERROR
    assert exercises.check_function("x", 3, reference, CASES).status == "not yet"
    assert exercises.check_function("x", reference, reference, []).status == "check error"
    assert "cases must be a non-empty sequence" in capsys.readouterr().out


def test_a_name_is_looked_up_in_the_calling_cell(capsys):
    verdict = exercises.check_function(
        "sin and cos", "not_written_yet", reference, CASES, outputs=("f", "df")
    )
    out = capsys.readouterr().out
    assert (
        verdict.status == "not started"
        and "not_written_yet is not defined yet. Run the cell that defines" in out
    )
    assert verdict.function.__name__ == "not_written_yet"  # the stand-in carries the reader's name

    def mine(x, a):
        return a * np.sin(x), np.cos(x)

    assert exercises.check_function("sin and cos", "mine", reference, CASES, outputs=("f", "df")).passed
    assert "PASS: sin and cos: mine agrees" in capsys.readouterr().out


def test_a_stale_stub_is_told_to_rerun_its_cell(capsys):
    def mine(x, a):
        raise NotImplementedError

    first = exercises.check_function("sin and cos", "mine", reference, CASES, outputs=("f", "df"))
    assert "if you have, run that cell again" in capsys.readouterr().out
    mine = first.function  # noqa: F811, F841 - what the chapter's check cell does; the reader then edits the stub only
    again = exercises.check_function("sin and cos", "mine", reference, CASES, outputs=("f", "df"))
    out = capsys.readouterr().out
    assert again.status == "not started"
    assert "mine is still solvable's stand-in" in out and "re-run the cell that defines it" in out
    assert "<lambda>" not in out and "stand_in" not in out


def test_patterns_only_when_every_entry_shows_them(capsys):
    exercises.check("one number", 0.9167, 1.0)  # a single number: no factor to speak of
    exercises.check("near one", [1.0, 2.0, 3.001], [1.0, 2.0, 3.0])  # entry 0 matches: no "0.999 times"
    exercises.check("half off", [2.0, 1.0], [1.0, 1.0])
    out = capsys.readouterr().out
    assert "times the reference" not in out and "off by the same" not in out
    exercises.check("doubled", [2.0, 4.0], [1.0, 2.0], hint="look at the prefactor")
    out = capsys.readouterr().out
    assert out.count("Hint:") == 1 and "Every entry is 2 times the reference" in out


def test_trajectories_name_the_first_iteration_that_goes_wrong(capsys):
    def ref(T):
        return np.arange(T, dtype=float)[:, None] * np.ones(3)

    def mine(T):
        out = ref(T)
        out[1, 2] += 1e-3
        out[3:] += 10.0  # deviates most later
        return out

    exercises.check_function("a trajectory", mine, ref, [dict(T=5)], axes=("iteration", "entry"))
    assert "at iteration 1, entry 2" in capsys.readouterr().out


@pytest.mark.parametrize("expected", [np.nan, [1.0, np.nan]])
def test_a_nan_reference_is_a_fault_of_the_check_not_a_pass(expected, capsys):
    verdict = exercises.check("nan", np.ones(np.shape(expected)), expected)
    assert verdict.status == "check error" and "holds NaN" in capsys.readouterr().out


@pytest.mark.parametrize("tol", [np.nan, np.inf, -1.0, "1e-8", True])
def test_tolerances_are_validated(tol, capsys):
    assert exercises.check("x", 1.0, 1.0, rtol=tol).status == "check error"
    assert exercises.check("x", 1.0, 1.0, atol=tol).status == "check error"
    out = capsys.readouterr().out
    assert out.count("must be a number in [0.0, inf)") == 2 and "rtol" in out and "atol" in out


def test_infinite_references_pass_only_when_equal():
    assert exercises.check("inf", [np.inf, 1.0], [np.inf, 1.0]).passed
    assert not exercises.check("inf", [1e308, 1.0], [np.inf, 1.0])
    assert not exercises.check("inf", [-np.inf, 1.0], [np.inf, 1.0])
    assert not exercises.check("nan answer", [np.nan, 1.0], [np.inf, 1.0])


def test_the_cases_are_copied_for_each_call():
    def mine(x, a):
        x *= 2  # writes into its input
        return a * np.sin(x / 2), np.cos(x / 2)

    x = np.linspace(0.1, 1.0, 5)
    before = x.copy()
    assert exercises.check_function(
        "sin and cos", mine, reference, [dict(x=x, a=2.0)], outputs=("f", "df")
    ).passed
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize(
    "got",
    [
        None,
        "text",
        object(),
        np.ma.masked_array([1.0, 2.0], [0, 1]),
        [1 + 1j, 2.0],
        {"a": 1},
        [[1.0], [2.0, 3.0]],
    ],
    ids=lambda g: type(g).__name__,
)
def test_any_answer_gives_a_verdict_never_an_exception(got, capsys):
    def mine(x, a):
        return got, np.cos(x)

    verdict = exercises.check_function("sin and cos", mine, reference, CASES, outputs=("f", "df"))
    assert verdict.status == "not yet", capsys.readouterr().out


def test_a_known_slip_is_named(capsys):
    def mine(x, a):
        return 2 * a * np.sin(x), np.cos(x)

    slips = {
        "the amplitude is counted twice": lambda x, a: (2 * a * np.sin(x), np.cos(x)),
        "the derivative's sign is flipped": lambda x, a: (a * np.sin(x), -np.cos(x)),
    }
    exercises.check_function("sin and cos", mine, reference, CASES, outputs=("f", "df"), mistakes=slips)
    assert "This is what one gets when the amplitude is counted twice." in capsys.readouterr().out
    exercises.check("a value", 4.0, 2.0, mistakes={"it is squared": 4.0, "it is halved": 1.0})
    assert "when it is squared" in capsys.readouterr().out


def test_memory_beyond_the_cap_is_not_yet(capsys):
    def tensor(x, a):
        big = np.ones((len(x), 400, 400))  # 6.4 MB for 5 inputs
        return a * np.sin(x) * big[:, 0, 0], np.cos(x)

    verdict = exercises.check_function(
        "sin and cos", tensor, reference, CASES, outputs=("f", "df"), max_bytes=1e6
    )
    assert verdict.status == "not yet" and "allocated 6.4 MB at its peak" in capsys.readouterr().out


def test_progress_lists_every_exercise(capsys):
    def mine(x, a):
        return a * np.sin(x), np.cos(x)

    exercises.check_function("sin and cos", "mine", reference, CASES, outputs=("f", "df"))
    capsys.readouterr()
    state = exercises.progress(["mine", "never_checked"])
    out = capsys.readouterr().out
    assert state == {"mine": "pass", "never_checked": "not started"}
    assert out.splitlines() == [
        "Your exercises in this chapter: 1 of 2 pass.",
        "  PASS         mine",
        "  NOT STARTED  never_checked",
    ]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(rtol=10**400), "rtol"),  # raised OverflowError: a check never raises
        (dict(atol=-1.0), "atol"),
        (dict(max_bytes=np.inf), "max_bytes"),
        (dict(max_bytes=0), "max_bytes"),
        (dict(reference="reference"), "reference"),
        (dict(cases=[{1: 2.0}]), "cases"),
        (dict(cases=CASES[0]), "cases"),
        (dict(outputs="f"), "outputs"),
        (dict(axes=[0]), "axes"),
        (dict(hint=3), "hint"),
        (dict(mistakes={"a slip": 2.0}), "mistakes"),
        (dict(name=None), "name"),
    ],
)
def test_a_fault_of_the_check_is_a_check_error_naming_the_argument(kwargs, name, capsys):
    call = (
        dict(name="sin and cos", function=reference, reference=reference, cases=CASES, outputs=("f", "df"))
        | kwargs
    )
    verdict = exercises.check_function(**call)
    out = capsys.readouterr().out
    assert verdict.status == "check error" and out.startswith("CHECK ERROR") and name in verdict.message
    if callable(call["reference"]):  # the cells that follow still run, on the reference
        assert np.array_equal(verdict.function(**CASES[0])[0], reference(**CASES[0])[0])


def test_a_fault_of_a_value_check_is_a_check_error():
    assert exercises.check("x", 1.0, 1.0, mistakes=["a slip"]).status == "check error"
    assert exercises.check(3, 1.0, 1.0).status == "check error"


def test_progress_takes_names():
    assert exercises.progress("never_checked_name") == {"never_checked_name": "not started"}
    with pytest.raises(InvalidParameterError, match="names"):
        exercises.progress([1, 2])
