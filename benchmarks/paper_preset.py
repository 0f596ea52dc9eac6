"""Execute every chapter at the ``paper`` size preset and print each chapter's wall time.

The test suite runs the chapters at the ``lecture`` preset (nbval); this script checks that the ``paper`` preset
(``SOLVABLE_SIZE=paper``, the sizes of the original figures) also runs end to end, without an error and with every
assertion of the chapters passing. It is too slow for the test suite: run it by hand before a release, or after
changing a chapter or the sizes in ``solvable.config``::

    python benchmarks/paper_preset.py                 # all chapters, one after the other
    python benchmarks/paper_preset.py --jobs 2 03 04  # chapters 3 and 4, two at a time

The executed notebooks are written to ``--output`` (default ``benchmarks/output/paper/``, ignored by git); the
committed notebooks are never touched (they hold the lecture-size outputs that nbval compares against). Each
notebook runs in its own kernel with ``SOLVABLE_SIZE=paper`` and ``--threads`` BLAS threads. The exit status is 0
only if every chapter ran without an error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _chapters(selection: list[str]) -> list[Path]:
    every = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
    if not selection:
        return every
    chosen = [p for p in every if any(p.name.startswith(s.zfill(2)) for s in selection)]
    unknown = [s for s in selection if not any(p.name.startswith(s.zfill(2)) for p in every)]
    if unknown:
        raise SystemExit(f"unknown chapter(s): {', '.join(unknown)} (have: {', '.join(p.name for p in every)})")
    return chosen


def _run(path: Path, output: Path, threads: int, timeout: int) -> tuple[str, float, int, str]:
    """Execute ``path`` in a fresh kernel (``python -m nbclient`` in a child process, so that each chapter has
    its own environment) and write the executed copy to ``output``; return (name, seconds, exit code, error)."""
    env = dict(os.environ, SOLVABLE_SIZE="paper")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
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
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    tail = "\n".join((proc.stderr or "").strip().splitlines()[-15:])
    return path.name, elapsed, proc.returncode, tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: all), e.g. 01 3")
    parser.add_argument("--jobs", type=int, default=1, help="chapters executed at the same time (default 1)")
    parser.add_argument("--threads", type=int, default=0,
                        help="BLAS threads per chapter (default: CPU count divided by --jobs)")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds allowed per cell (default 3600)")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "output" / "paper",
                        help="folder for the executed notebooks")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be >= 1")
    if args.timeout < 1:
        parser.error("--timeout must be >= 1")
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.jobs)
    chapters = _chapters(args.chapters)
    args.output.mkdir(parents=True, exist_ok=True)
    print(f"paper preset: {len(chapters)} chapter(s), {args.jobs} at a time, {threads} BLAS thread(s) each, "
          f"{os.cpu_count()} CPUs; executed notebooks in {args.output}", flush=True)
    t0 = time.perf_counter()
    failures = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(_run, p, args.output, threads, args.timeout) for p in chapters]
        for fut in futures:
            name, elapsed, code, tail = fut.result()
            status = "ok" if code == 0 else f"FAILED (exit {code})"
            print(f"{name:<48s} {elapsed:8.1f} s  {status}", flush=True)
            if code:
                failures += 1
                print("    " + tail.replace("\n", "\n    "), flush=True)
    print(f"{'total wall time':<48s} {time.perf_counter() - t0:8.1f} s  "
          f"{'all chapters ran' if not failures else f'{failures} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
