"""Execute every chapter at the ``paper`` (or ``full``) size preset and print each chapter's wall time.

The test suite runs the chapters at the ``lecture`` preset (nbval); this script checks that the ``paper`` preset
(``SOLVABLE_SIZE=paper``, the sizes of the original figures) also runs end to end, without an error and with every
assertion of the chapters passing; ``--size full`` does the same for the papers' own protocols (see
``solvable.config.HARDWARE`` for what each preset needs). It is too slow for the test suite: run it by hand before a
release, or after changing a chapter or the sizes in ``solvable.config``::

    python benchmarks/paper_preset.py                    # all chapters, one after the other, each on every core
    python benchmarks/paper_preset.py --jobs 2 03 04     # chapters 3 and 4, each on 2 worker processes
    python benchmarks/paper_preset.py --size full --device cuda   # the papers' protocols, gradient descent on a GPU

The chapters run one after the other, each in its own kernel, and each spreads its own independent runs over
worker processes (``solvable.experiments.parallel_map``): ``--jobs`` is passed as ``SOLVABLE_JOBS`` (without it, the
preset's default: every core, or one process where gradient descent runs on a GPU), ``--size`` as
``SOLVABLE_SIZE`` and ``--device`` as ``SOLVABLE_DEVICE`` (without it, the preset's default: ``cpu`` for ``paper``,
``auto`` for ``full``). No BLAS thread count is forced: joblib gives each worker ``cores / workers`` threads, and an
``OMP_NUM_THREADS`` (or ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``) set in the environment is passed on instead.

The executed notebooks are written to ``--output`` (default ``benchmarks/output/<size>/``, ignored by git); the
committed notebooks are never touched (they hold the lecture-size outputs that nbval compares against). The exit
status is 0 only if every chapter ran without an error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = ("paper", "full")
DEVICES = ("cpu", "cuda", "auto")


def _chapters(selection: list[str]) -> list[Path]:
    every = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
    if not selection:
        return every
    chosen = [p for p in every if any(p.name.startswith(s.zfill(2)) for s in selection)]
    unknown = [s for s in selection if not any(p.name.startswith(s.zfill(2)) for p in every)]
    if unknown:
        raise SystemExit(
            f"unknown chapter(s): {', '.join(unknown)} (have: {', '.join(p.name for p in every)})"
        )
    return chosen


def _environment(size: str, jobs: int | None, device: str | None) -> dict:
    """The chapters' environment: this one, with ``SOLVABLE_SIZE`` and, where given, ``SOLVABLE_JOBS`` and
    ``SOLVABLE_DEVICE``."""
    env = dict(os.environ, SOLVABLE_SIZE=size)
    if jobs is not None:
        env["SOLVABLE_JOBS"] = str(jobs)
    if device is not None:
        env["SOLVABLE_DEVICE"] = device
    return env


def _run(path: Path, output: Path, env: dict, timeout: int) -> tuple[str, float, int, str]:
    """Execute ``path`` in a fresh kernel (``python -m nbclient`` in a child process, so that each chapter has
    its own environment) and write the executed copy to ``output``; return (name, seconds, exit code, error)."""
    code = (
        "import sys, nbformat; from nbclient import NotebookClient\n"
        "src, dst, timeout, cwd = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]\n"
        "nb = nbformat.read(src, as_version=4)\n"
        "try:\n"
        "    NotebookClient(nb, timeout=timeout, resources={'metadata': {'path': cwd}}).execute()\n"
        "finally:\n"
        "    nbformat.write(nb, dst)\n"
    )
    cmd = [sys.executable, "-c", code, str(path), str(output / path.name), str(timeout), str(path.parent)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t0
    tail = "\n".join((proc.stderr or "").strip().splitlines()[-15:])
    return path.name, elapsed, proc.returncode, tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: all), e.g. 01 3")
    parser.add_argument(
        "--size",
        choices=SIZES,
        default="paper",
        help="the size preset, SOLVABLE_SIZE (default paper; full: the papers' protocols)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="worker processes of each chapter's independent runs, SOLVABLE_JOBS (default: the "
        "preset's, every core; -1: every core; 1: one run after the other)",
    )
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default=None,
        help="where gradient descent runs, SOLVABLE_DEVICE (default: the preset's, cpu for paper "
        "and auto for full)",
    )
    parser.add_argument("--timeout", type=int, default=3600, help="seconds allowed per cell (default 3600)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="folder for the executed notebooks (default benchmarks/output/<size>/)",
    )
    args = parser.parse_args(argv)
    if args.jobs == 0:
        parser.error("--jobs must be a positive number of workers or -1 (every core)")
    if args.timeout < 1:
        parser.error("--timeout must be >= 1")
    output = args.output or ROOT / "benchmarks" / "output" / args.size
    chapters = _chapters(args.chapters)
    output.mkdir(parents=True, exist_ok=True)
    env = _environment(args.size, args.jobs, args.device)
    print(
        f"{args.size} preset: {len(chapters)} chapter(s) one after the other, SOLVABLE_JOBS="
        f"{env.get('SOLVABLE_JOBS', '(the preset default)')}, SOLVABLE_DEVICE="
        f"{env.get('SOLVABLE_DEVICE', '(the preset default)')}, {os.cpu_count()} CPUs; executed notebooks in "
        f"{output}",
        flush=True,
    )
    t0 = time.perf_counter()
    failures = 0
    for path in chapters:
        name, elapsed, code, tail = _run(path, output, env, args.timeout)
        status = "ok" if code == 0 else f"FAILED (exit {code})"
        print(f"{name:<48s} {elapsed:8.1f} s  {status}", flush=True)
        if code:
            failures += 1
            print("    " + tail.replace("\n", "\n    "), flush=True)
    print(
        f"{'total wall time':<48s} {time.perf_counter() - t0:8.1f} s  "
        f"{'all chapters ran' if not failures else f'{failures} failed'}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
