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
            assert mark["role"] not in role, f"{path.name}: exercise {mark['id']} has two {mark['role']} cells"
            role[mark["role"]] = cell
    return found


def _solution_code(cell) -> str:
    blocks = FENCE.findall(_source(cell))
    assert len(blocks) == 1, "a solution cell holds exactly one ```python block"
    return blocks[0]


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
WRONG = [(path, ex_id, k, w) for path in CHAPTERS for ex_id, ws in _wrong_answers(path).items()
         for k, w in enumerate(ws)]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_exercise_is_a_stub_a_check_and_a_hidden_solution(path):
    exercises = _exercises(path)
    wrong = _wrong_answers(path)
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert not [i for i, c in enumerate(cells) if c["cell_type"] == "code"
                and re.search(r"(?i)reference solution", _source(c))], f"{path.name}: a code cell holds a solution"
    for ex_id, roles in exercises.items():
        assert set(roles) == {"stub", "check", "solution"}, f"{path.name} {ex_id}: roles {sorted(roles)}"
        stub, check, solution = roles["stub"], roles["check"], roles["solution"]
        assert stub["cell_type"] == "code" and "raise NotImplementedError" in _source(stub), ex_id
        assert not set(stub["metadata"].get("tags", [])) & {"hide-input", "remove-cell", "remove-input"}, ex_id
        assert check["cell_type"] == "code" and "check" in _source(check), ex_id
        assert solution["cell_type"] == "markdown" and ":class: dropdown" in _source(solution), ex_id
        code = _solution_code(solution)
        assert "NotImplementedError" not in code, ex_id
        wide = [line for line in code.splitlines() if len(line) > 80]
        assert not wide, f"{ex_id}: solution lines wider than the dropdown's code box (80 characters): {wide}"
        printed = "".join("".join(o.get("text", "")) for o in check.get("outputs", [])
                          if o.get("name") == "stdout")
        assert _verdicts(printed) and all(v.startswith("NOT STARTED") for v in _verdicts(printed)), (
            f"{path.name} {ex_id}: the committed notebook shows {_verdicts(printed)}, not the unsolved exercise")
        assert wrong.get(ex_id), f"{path.name} {ex_id}: no plausible wrong answer in tests/data/exercises"
    assert set(wrong) <= set(exercises), f"{path.name}: wrong answers for unknown exercises"


@pytest.mark.parametrize(("path", "ex_id"), ALL, ids=IDS)
def test_an_unsolved_exercise_reports_not_started_and_its_solution_passes(path, ex_id):
    roles = _exercises(path)[ex_id]
    verdicts = _verdicts(_run(_source(roles["stub"]), _source(roles["check"])))
    assert verdicts and all(v.startswith("NOT STARTED") for v in verdicts), verdicts
    verdicts = _verdicts(_run(_solution_code(roles["solution"]), _source(roles["check"])))
    assert verdicts and all(v.startswith("PASS") for v in verdicts), verdicts


@pytest.mark.parametrize(("path", "ex_id", "k", "wrong"), WRONG,
                         ids=[f"{p.stem[:2]}-{e}-{k}" for p, e, k, _ in WRONG])
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
