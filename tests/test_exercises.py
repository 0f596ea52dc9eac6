"""The chapters' build-it-yourself exercises, as a student meets them.

Each exercise is three cells, marked in their metadata (``"exercise": {"id": ..., "role": ...}``): the student's
``stub`` (a signature, a docstring, ``raise NotImplementedError``), the ``check`` that calls
:func:`solvable.exercises.check_function`, and the ``solution``, a markdown dropdown holding the reference code. Each
exercise is run here on its own, in a fresh namespace (as after a kernel restart): unsolved it must report
NOT STARTED, with the solution PASS, and with each plausible wrong answer of ``tests/data/exercises/<chapter>.py``
NOT YET with a message that names where it differs.
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import re
import runpy
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
WRONG_DIR = Path(__file__).parent / "data" / "exercises"
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def _source(cell) -> str:
    return "".join(cell["source"])


def _exercises(path: Path) -> dict[str, dict]:
    """{id: {"stub": cell, "check": cell, "solution": cell}} of one chapter, in page order."""
    found: dict[str, dict] = {}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        mark = cell.get("metadata", {}).get("exercise")
        if mark:
            role = found.setdefault(mark["id"], {})
            assert mark["role"] not in role, (
                f"{path.name}: exercise {mark['id']} has two {mark['role']} cells"
            )
            role[mark["role"]] = cell
    return found


def _solution_code(cell) -> str:
    blocks = FENCE.findall(_source(cell))
    assert len(blocks) == 1, "a solution cell holds exactly one ```python block"
    return blocks[0]


def _stub_name(cell) -> str | None:
    """The name the reader writes: the function a stub defines and leaves raising NotImplementedError, or the variable
    it sets to None (a number worked out on paper)."""
    src = _source(cell)
    if "raise NotImplementedError" in src:
        names = re.findall(r"^def (\w+)\(", src, re.M)
        return names[-1] if names else None
    values = re.findall(r"^(\w+) = None\b", src, re.M)
    return values[-1] if values else None


def _wrong_answers(path: Path) -> dict:
    file = WRONG_DIR / f"{path.stem}.py"
    return runpy.run_path(str(file))["WRONG"] if file.exists() else {}


def _run(*sources: str) -> str:
    """Execute cells in one fresh namespace; return what they printed."""
    namespace: dict = {"__name__": "__exercise__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for k, src in enumerate(sources):
            name = f"<cell {k}>"
            linecache.cache[name] = (len(src), None, src.splitlines(True), name)  # as IPython does for a cell
            exec(compile(src, name, "exec"), namespace)
    plt.close("all")
    return out.getvalue()


def _verdicts(printed: str) -> list[str]:
    return [line for line in printed.splitlines() if line.startswith(("PASS", "NOT YET", "NOT STARTED"))]


ALL = [(path, ex_id) for path in CHAPTERS for ex_id in _exercises(path)]
IDS = [f"{path.stem[:2]}-{ex_id}" for path, ex_id in ALL]
WRONG = [
    (path, ex_id, k, w)
    for path in CHAPTERS
    for ex_id, ws in _wrong_answers(path).items()
    for k, w in enumerate(ws)
]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_exercise_is_a_stub_a_check_and_a_hidden_solution(path):
    exercises = _exercises(path)
    wrong = _wrong_answers(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert not [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and re.search(r"(?i)reference solution", _source(c))
    ], f"{path.name}: a code cell holds a solution"
    for ex_id, roles in exercises.items():
        assert set(roles) == {"stub", "check", "solution"}, f"{path.name} {ex_id}: roles {sorted(roles)}"
        stub, check, solution = roles["stub"], roles["check"], roles["solution"]
        assert stub["cell_type"] == "code" and _stub_name(stub), (
            f"{ex_id}: the stub neither raises NotImplementedError nor sets a name to None"
        )
        assert not set(stub["metadata"].get("tags", [])) & {"hide-input", "remove-cell", "remove-input"}, (
            ex_id
        )
        assert check["cell_type"] == "code" and "check" in _source(check), ex_id
        # its code (the library's answer and the slips it recognises) collapsed on the website, its verdict shown
        assert "hide-input" in check["metadata"].get("tags", []), (
            f"{ex_id}: the check cell is not tagged hide-input"
        )
        assert solution["cell_type"] == "markdown" and ":class: dropdown" in _source(solution), ex_id
        code = _solution_code(solution)
        assert "NotImplementedError" not in code, ex_id
        wide = [line for line in code.splitlines() if len(line) > 80]
        assert not wide, f"{ex_id}: solution lines wider than the dropdown's code box (80 characters): {wide}"
        printed = "".join(
            "".join(o.get("text", "")) for o in check.get("outputs", []) if o.get("name") == "stdout"
        )
        assert _verdicts(printed) and all(v.startswith("NOT STARTED") for v in _verdicts(printed)), (
            f"{path.name} {ex_id}: the committed notebook shows {_verdicts(printed)}, not the unsolved exercise"
        )
        assert wrong.get(ex_id), f"{path.name} {ex_id}: no plausible wrong answer in tests/data/exercises"
    assert set(wrong) <= set(exercises), f"{path.name}: wrong answers for unknown exercises"


@pytest.mark.parametrize(("path", "ex_id"), ALL, ids=IDS)
def test_an_unsolved_exercise_reports_not_started_and_its_solution_passes(path, ex_id):
    roles = _exercises(path)[ex_id]
    verdicts = _verdicts(_run(_source(roles["stub"]), _source(roles["check"])))
    assert verdicts and all(v.startswith("NOT STARTED") for v in verdicts), verdicts
    # the check run before its stub (a reader who skipped a cell): a verdict that says so, not a NameError
    verdicts = _verdicts(_run(_source(roles["check"])))
    name = _stub_name(roles["stub"])
    assert verdicts and all(v.startswith("NOT STARTED") and name in v for v in verdicts), verdicts
    # the stub edited but its cell not run again: the check names the function and says to re-run its cell
    if "raise NotImplementedError" in _source(roles["stub"]):
        verdicts = _verdicts(_run(_source(roles["stub"]), _source(roles["check"]), _source(roles["check"])))
        assert "re-run the cell that defines it" in verdicts[-1] and name in verdicts[-1], verdicts
    verdicts = _verdicts(_run(_solution_code(roles["solution"]), _source(roles["check"])))
    assert verdicts and all(v.startswith("PASS") for v in verdicts), verdicts


@pytest.mark.parametrize(
    ("path", "ex_id", "k", "wrong"), WRONG, ids=[f"{p.stem[:2]}-{e}-{k}" for p, e, k, _ in WRONG]
)
def test_a_wrong_answer_is_told_where_it_differs(path, ex_id, k, wrong):
    roles = _exercises(path)[ex_id]
    if "code" in wrong:
        code = wrong["code"]
    else:
        code = _solution_code(roles["solution"])
        old, new = wrong["replace"]
        assert old in code, f"{ex_id}: {old!r} is not in the solution"
        code = code.replace(old, new)
    verdicts = _verdicts(_run(code, _source(roles["check"])))
    failing = [v for v in verdicts if v.startswith("NOT YET")]
    assert failing, f"{ex_id}: the wrong answer {wrong} was not caught: {verdicts}"
    for words in wrong["expect"]:
        assert any(words in v for v in failing), f"{ex_id}: {words!r} not in {failing}"


EXERCISE = re.compile(r"^(`{3,})\{exercise\}[^\n]*\n.*?^\1\s*$", re.S | re.M)
DROPDOWN = re.compile(r"^(`{3,})\{admonition\} (Hint \d+|Short answer)\s*\n:class: dropdown", re.M)


def _statements(path: Path) -> list[tuple[str, str, bool]]:
    """(label, the markdown that follows the exercise up to the next exercise or solution, whether a stub follows)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    found = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        text = _source(cell)
        for match in EXERCISE.finditer(text):
            label = re.search(r":label: *(\S+)", match.group(0))
            rest = text[match.end() :]
            stop = re.search(r"^`{3,}\{(exercise|solution)\}", rest, re.M)
            after = rest[: stop.start()] if stop else rest
            following = cells[i + 1] if i + 1 < len(cells) else {}
            has_stub = not stop and following.get("metadata", {}).get("exercise", {}).get("role") == "stub"
            found.append((label.group(1) if label else "?", after, has_stub))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_exercise_has_graded_hints_and_every_derivation_a_short_answer(path):
    for label, after, has_stub in _statements(path):
        kinds = DROPDOWN.findall(after)
        hints = [k for _, k in kinds if k.startswith("Hint")]
        assert hints[:2] == ["Hint 1", "Hint 2"], (
            f"{path.name} {label}: graded hints {hints} (at least Hint 1, Hint 2)"
        )
        if not has_stub:
            assert "Short answer" in [k for _, k in kinds], (
                f"{path.name} {label}: a derivation with no short answer"
            )


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_wrong_answers_name_the_likely_slip_and_a_progress_cell_lists_every_exercise(path):
    exercises = _exercises(path)
    wrong = _wrong_answers(path)
    for ex_id in exercises:
        named = [
            w for w in wrong.get(ex_id, []) if any(e.startswith("This is what one gets") for e in w["expect"])
        ]
        assert len(wrong.get(ex_id, [])) >= 3 and len(named) >= 2, (
            f"{path.name} {ex_id}: {len(wrong.get(ex_id, []))} catalogued wrong answers, {len(named)} named slips"
        )
    names = [_stub_name(roles["stub"]) for roles in exercises.values()]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    calls = [_source(c) for c in cells if c["cell_type"] == "code" and "progress(" in _source(c)]
    assert len(calls) == 1, f"{path.name}: {len(calls)} progress cells"
    listed = re.findall(r'"(\w+)"', calls[0].split("progress(", 1)[1])
    assert listed == names, f"{path.name}: the progress cell lists {listed}, the chapter checks {names}"
