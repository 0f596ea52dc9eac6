"""The contributors' re-execution command (tools/execute_notebook.py, CONTRIBUTING.md): it executes a notebook in
place through nbclient, and a cell that hangs ends the run with an error within its time limit instead of waiting for
ever. Run on small notebooks (a chapter takes minutes; nbval re-executes the chapters themselves)."""

from __future__ import annotations

import subprocess
import sys
import time

import nbformat
import pytest
from _book import ROOT

SCRIPT = ROOT / "tools" / "execute_notebook.py"


def _notebook(path, *sources):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    return path


def _run(*args, timeout=240):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_it_executes_a_notebook_in_place_in_its_folder(tmp_path):
    (tmp_path / "data.txt").write_text("42")
    path = _notebook(
        tmp_path / "small.ipynb",
        "import os\nprint(open('data.txt').read())",
        "print(os.environ['OMP_NUM_THREADS'])",
        "import solvable\nprint(solvable.__version__)",
    )
    proc = _run(path)
    assert proc.returncode == 0, proc.stderr
    cells = nbformat.read(path, as_version=4).cells
    outputs = ["".join(o.get("text", "") for o in cell.outputs).strip() for cell in cells]
    assert outputs[:2] == ["42", "1"] and outputs[2], outputs
    assert all(cell.execution_count for cell in cells)


def test_a_hanging_cell_fails_within_its_limit(tmp_path):
    path = _notebook(tmp_path / "hangs.ipynb", "print('before')", "import time\ntime.sleep(600)")
    before = path.read_text()
    start = time.perf_counter()
    proc = _run("--timeout", 3, path)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 1 and "FAILED" in proc.stderr, proc.stderr
    assert elapsed < 120, f"a cell over a 3 s limit took {elapsed:.0f} s to stop the run"
    assert path.read_text() == before, "a notebook whose run failed was written back"


@pytest.mark.parametrize("flag", ["--help"])
def test_it_documents_itself(flag):
    proc = _run(flag)
    assert proc.returncode == 0 and "--timeout" in proc.stdout
