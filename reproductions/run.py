"""Regenerate the reproduction pages of the book, outside the test suite.

Each paper has a folder ``reproductions/<paper>/`` whose ``reproduce.py`` recomputes the paper's key figures at the
paper's sizes and writes the figures, tables and ``results.json`` that its page (``reproductions/<paper>.md``) shows
and that ``tests/`` pin. This script runs them one after the other, each in its own process, prints each one's wall
time and writes the timing table of the Reproductions index page (``reproductions/timings.md``)::

    python reproductions/run.py                       # every paper, each on every core
    python reproductions/run.py --jobs 2 bsr quadratic   # two of them, each on 2 worker processes

Each script spreads its own independent runs (data sets, seeds) over ``--jobs`` worker processes: the variable
``REPRO_JOBS`` of its environment, read by ``_common.run_jobs`` (default -1, one worker per core; 1 runs them one
after the other in the script's process). The numbers do not depend on it: every run carries its own seed. joblib
gives each worker ``cores / workers`` BLAS threads; an ``OMP_NUM_THREADS`` (or ``OPENBLAS_NUM_THREADS``,
``MKL_NUM_THREADS``) set in the environment is passed on to the scripts and their workers instead.

The exit status is 0 only if every selected script ran without an error. Commit what it wrote: the pages are static.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAPERS = ("perceptron", "bsr", "quadratic", "attention")


def _run(name: str, jobs: int, timeout: int) -> tuple[str, float, int, str]:
    """Run ``<name>/reproduce.py`` with ``REPRO_JOBS=jobs``: (name, seconds, exit status, the end of its stderr)."""
    env = dict(os.environ, REPRO_JOBS=str(jobs))
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(HERE / name / "reproduce.py")],
            cwd=HERE.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        code, err = proc.returncode, "\n".join((proc.stderr or "").strip().splitlines()[-15:])
    except subprocess.TimeoutExpired:
        code, err = 124, f"timed out after {timeout} s"
    return name, time.perf_counter() - t0, code, err


def write_timings(path: Path = HERE / "timings.md") -> None:
    """The table of the index page: every figure's wall time here against the authors' code, per paper (a MyST
    ``{table}`` with column widths, written by ``_common.markdown_table`` so that it prints within the margins)."""
    sys.path.insert(0, str(HERE))
    from _common import markdown_table

    rows = []
    for name in PAPERS:
        res_path = HERE / name / "results.json"
        if not res_path.exists():
            continue
        res = json.loads(res_path.read_text())
        for fig in res["figures"]:
            theirs = fig["authors_time"]
            rows.append(
                [
                    f"[{name}]({name}.md)",
                    fig["title"],
                    f"{fig['wall_time_s']:.0f} s",
                    f"**{theirs['kind']}**: {theirs['how']}",
                ]
            )
        rows.append(
            [f"[{name}]({name}.md)", "**whole page**", f"**{res['total_wall_time_s'] / 60:.1f} min**", ""]
        )
    machines = sorted(
        {
            json.loads((HERE / n / "results.json").read_text())["machine"]
            for n in PAPERS
            if (HERE / n / "results.json").exists()
        }
    )
    table = markdown_table(["paper", "figure", "wall time here", "the authors' code"], rows, longtable=True)
    path.write_text(table + "\nMeasured on: " + "; ".join(machines) + ".\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "papers", nargs="*", help=f"papers to regenerate (default: all of {', '.join(PAPERS)})"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=-1,
        help="worker processes of each script, its REPRO_JOBS (default -1: one per core; 1: one run "
        "after the other)",
    )
    parser.add_argument("--timeout", type=int, default=3600, help="seconds allowed per script (default 3600)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.papers) - set(PAPERS))
    if unknown:
        parser.error(f"unknown paper(s) {unknown}; choose from {PAPERS}")
    if args.jobs == 0:
        parser.error("--jobs must be a positive number of workers or -1 (every core)")
    if args.timeout < 1:
        parser.error("--timeout must be positive")
    failed = 0
    for name in args.papers or PAPERS:
        name, seconds, code, err = _run(name, args.jobs, args.timeout)
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        print(f"{name:12s} {seconds:8.1f} s  {status}", flush=True)
        if code:
            failed += 1
            print(err, file=sys.stderr)
    write_timings()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
