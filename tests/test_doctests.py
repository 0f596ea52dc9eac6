"""The Examples sections of the library, run as doctests, and the entry points that must have one.

Every ``>>>`` example of every module runs here (one test per module, so that a failure names the module), with
``NORMALIZE_WHITESPACE | ELLIPSIS``, in a copy of the module's namespace (doctest's convention), NumPy's print
options fixed for the run, and warnings raised as errors (an example that stops at a cap or divides by zero is a
wrong example). An example prints rounded numbers (3-4
significant digits, or fewer for a finite-size run), so that its output does not depend on the BLAS build.

The entry points a chapter or a user calls first must carry an Examples section: in each module of ``ENTRY``,
every public function whose name matches one of its patterns (the samplers, the theory functions, the
algorithms). The list is derived from the modules' ``__all__``, so a new sampler, threshold or GAMP is covered
as soon as it is exported. So must every public function or class that a chapter's code uses (read from the
chapters themselves), except in the views and ``config``: a reader who meets it in a chapter finds how to call it
on its own.
"""

from __future__ import annotations

import ast
import doctest
import fnmatch
import importlib
import inspect
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(p.stem for p in (ROOT / "lib" / "solvable").glob("*.py") if p.stem != "__init__")

#: The patterns of a model's entry points: its sampler(s), its theory (state evolutions, Bayes-optimal errors,
#: thresholds) and its algorithms (GAMP, ridge, nuclear norm, gradient descent).
_MODEL = [
    "sample",
    "*_sample",
    "state_evolution",
    "*_state_evolution",
    "bayes_*",
    "*_threshold",
    "*_thresholds",
    "gamp",
    "gamp_rie",
    "*_gamp",
    "fit_ridge",
    "min_nuclear_norm",
    "nuclear_norm_erm",
    "gd",
]

#: Module -> patterns of the public functions that must carry an Examples section.
ENTRY = {
    **{model: _MODEL for model in ("glm", "bsr", "quadratic", "attention", "smi", "matrix_sensing")},
    "erm": ["*state_evolution", "*_gen_error", "fit_*"],
    "gardner": ["*_capacity"],
    "ellipsoid": ["fit", "*threshold", "sample_points"],
    "rie": ["*_rie", "*_rie_mmse*"],
    "spectra": ["*_density"],
    "amp": ["run_*", "iterate_fixed_point"],
    "gd": ["run_*"],
    "experiments": ["sweep", "grid", "repeat", "mean_se", "parallel_map"],
}

#: Entry points whose Examples section is still to be written (their code is being rewritten on the one GD
#: front end of ``gd``). ``test_pending_entry_points_still_lack_examples`` fails once one gains an example, so
#: that it leaves this set.
PENDING: set[str] = set()


def entry_points() -> list[str]:
    """``module.name`` of every public function that ``ENTRY`` selects."""
    names = []
    for module, patterns in ENTRY.items():
        mod = importlib.import_module(f"solvable.{module}")
        names += [
            f"{module}.{name}"
            for name in mod.__all__
            if inspect.isfunction(getattr(mod, name))
            and any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
        ]
    return names


#: Modules whose functions the chapters use without an Examples section of their own: the views draw or format
#: (the chapters' cells are their examples), and config reads the environment (an example's output would depend on
#: how the suite is run).
NO_EXAMPLES_NEEDED = {"plotting", "widgets", "exercises", "quote", "config"}


def _without_magics(cell: str) -> str:
    """A code cell as Python: each line of an IPython magic (``%pip ...``, ``!ls``) becomes ``pass``."""
    lines = cell.splitlines()
    return "\n".join(
        line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
        for line in lines
    )


def chapter_uses() -> dict[str, set[str]]:
    """``module.name`` of every public callable of the library that a chapter's code uses -> those chapters.

    Read from the chapters' code cells (IPython magics read as ``pass``): ``from solvable import m [as a]`` and
    ``from solvable.m import f [as g]`` bind names, and every ``a.f`` or ``g`` that is public in ``m`` counts.
    """
    uses: dict[str, set[str]] = {}
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        trees = [ast.parse(_without_magics("".join(c["source"]))) for c in cells if c["cell_type"] == "code"]
        nodes = [node for tree in trees for node in ast.walk(tree)]
        modules, names = {}, {}
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module == "solvable":
                modules.update({a.asname or a.name: a.name for a in node.names})
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("solvable."):
                names.update({a.asname or a.name: (node.module.split(".")[1], a.name) for a in node.names})
        for node in nodes:
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
            ):
                found = (modules[node.value.id], node.attr)
            elif isinstance(node, ast.Name) and node.id in names:
                found = names[node.id]
            else:
                continue
            mod = importlib.import_module(f"solvable.{found[0]}")
            if found[1] in getattr(mod, "__all__", ()) and callable(getattr(mod, found[1])):
                uses.setdefault(".".join(found), set()).add(path.stem)
    return uses


def _has_examples(qualified: str) -> bool:
    module, name = qualified.split(".")
    doc = inspect.getdoc(getattr(importlib.import_module(f"solvable.{module}"), name)) or ""
    return "\nExamples\n--------\n" in doc and ">>> " in doc.split("\nExamples\n--------\n", 1)[1]


def test_entry_points_are_found():
    # the derivation itself: a pattern that stops matching (a renamed module or function) must not pass silently
    names = set(entry_points())
    assert len(names) >= 65
    for expected in [
        "glm.sample",
        "glm.gamp",
        "bsr.gamp_rie",
        "quadratic.perfect_recovery_threshold",
        "attention.hardmax_state_evolution",
        "smi.two_layer_gamp",
        "matrix_sensing.state_evolution",
        "erm.fit_logistic",
        "gardner.binary_capacity",
        "ellipsoid.fit",
        "rie.symmetric_rie_mmse",
        "spectra.semicircle_density",
        "amp.run_gamp",
        "gd.run_gd",
        "experiments.sweep",
    ]:
        assert expected in names, expected
    assert PENDING <= names


def test_the_chapters_uses_are_found():
    # the derivation itself: a chapter that stops being read (a renamed folder, an import written another way)
    # must not pass silently
    uses = chapter_uses()
    assert len(uses) >= 140
    for expected in [
        "glm.gamp",
        "rie.symmetric_rie_mmse",
        "experiments.grid",
        "attention.gamp_rie",
        "glm.gamp_iterates",
    ]:
        assert expected in uses, expected
    assert {"01_perceptron", "05_attention_indexed_models"} <= uses["experiments.mean_se"]


def test_every_callable_a_chapter_uses_has_an_example():
    # a reader who meets a function in a chapter finds, in its reference page, how to call it on its own
    missing = sorted(
        f"{name} ({', '.join(sorted(chapters))})"
        for name, chapters in chapter_uses().items()
        if name.split(".")[0] not in NO_EXAMPLES_NEEDED and not _has_examples(name)
    )
    assert not missing, f"used by a chapter without an Examples section: {missing}"


def test_every_entry_point_has_an_example():
    missing = [name for name in entry_points() if name not in PENDING and not _has_examples(name)]
    assert not missing, f"entry points without an Examples section: {missing}"


def test_pending_entry_points_still_lack_examples():
    done = sorted(name for name in PENDING if _has_examples(name))
    assert not done, f"these now have an Examples section: remove them from PENDING: {done}"


@pytest.mark.parametrize("module", MODULES)
def test_examples_run(module):
    mod = importlib.import_module(f"solvable.{module}")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    tests = [t for t in finder.find(mod, f"solvable.{module}") if t.examples]
    if not tests:
        pytest.skip(f"solvable.{module} has no examples")
    failures = []
    with (
        np.printoptions(precision=4, suppress=True, floatmode="maxprec", legacy=False),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("error")
        for test in tests:
            out = []
            result = runner.run(test, out=out.append, clear_globs=True)
            if result.failed:
                failures.append("".join(out))
    assert not failures, "\n".join(failures)
