"""Re-execute notebooks in place, as the committed outputs are made: `python tools/execute_notebook.py chapters/03_*.ipynb`.

Each notebook runs top to bottom in a fresh `python3` kernel started in the notebook's folder, through nbclient with
a time limit per cell (`--timeout`, default 900 s) and for the kernel's start (`--startup-timeout`, 120 s): a cell
that hangs, or a kernel that stops answering, ends the run with an error naming the cell instead of waiting for
ever (`jupyter execute --inplace` has no limit, and was seen to wait on an idle kernel). One BLAS thread per process
(OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1, as the tests run them), unless already set. The notebook is written back
only when every cell ran, with its widget state saved. Exit status: 0 when every notebook ran, 1 otherwise.

tests/test_execute_notebook.py runs it on a small notebook, and checks that a cell over the limit fails quickly.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DEFAULT_TIMEOUT_S = 900
DEFAULT_STARTUP_TIMEOUT_S = 120


def execute(
    path: Path, timeout: int = DEFAULT_TIMEOUT_S, startup_timeout: int = DEFAULT_STARTUP_TIMEOUT_S
) -> float:
    """Execute the notebook at `path` in place; return the wall time in seconds. Raises on a failing cell."""
    import nbclient
    import nbformat

    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=timeout,
        startup_timeout=startup_timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    start = time.perf_counter()
    client.execute()
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="seconds a cell may run")
    parser.add_argument(
        "--startup-timeout",
        type=int,
        default=DEFAULT_STARTUP_TIMEOUT_S,
        help="seconds the kernel may take to start",
    )
    args = parser.parse_args(argv)
    failed = 0
    for path in args.notebooks:
        try:
            seconds = execute(path, args.timeout, args.startup_timeout)
        except Exception as error:  # noqa: BLE001 - reported, and the exit status says it
            failed += 1
            print(f"{path}: FAILED ({type(error).__name__}): {str(error).strip()[-2000:]}", file=sys.stderr)
        else:
            print(f"{path}: executed in {seconds:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
