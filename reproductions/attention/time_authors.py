"""Time the authors' state-evolution scripts (Boncoraglio et al., arXiv:2506.01582) here, wall time capped.

    python reproductions/attention/time_authors.py --repo PATH [--python PY] [--cap-softmax 180] [--cap-hardmax 120]
        [--only softmax|hardmax]

``PATH`` is a local copy of <https://github.com/FabrizioBoncoraglio/BO_ExtensiveRankAttention> at commit
``529536f`` (this script fetches nothing). Their scripts are run unmodified, each in a scratch folder, single-threaded
(``OMP_NUM_THREADS=1``), with the Python given by ``--python`` (it needs numpy, scipy, pandas and matplotlib), and
stopped after a cap of wall time if they have not finished: nothing in them is reduced.

- ``SE_softmax.py`` (no arguments) solves the softmax state evolution (T = 2, rho = 0.5) on its grid of 256 alphas,
  printing one line per iteration and "Convergence reached." per alpha: we time every alpha it finishes in the cap.
- ``SE_hardmax.py IDX 0.5`` runs the hardmax state evolution at one alpha of its grid (25,000 Monte-Carlo draws per
  iteration, at least 151 iterations) and appends its history to a CSV after every iteration: we time every
  iteration it finishes in the cap.

Writes ``authors_timing.json`` next to this file; ``reproduce.py`` copies it into ``results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from itertools import pairwise
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMIT = "529536f488374d32eb888b85c5ef412dd5076590"
HARDMAX_IDX = 127  # the last alpha of their committed grid logspace(-3, log10(0.02), 128): alpha = 0.02


def _env():
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    env["MPLBACKEND"] = "Agg"
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _stop(proc, cpu0):
    """Kill the process we started if it still runs, reap it, and return its CPU time (user + system, seconds)."""
    finished = proc.poll() is not None
    if not finished:
        proc.kill()
    proc.wait()
    return finished, _children_cpu() - cpu0


def time_se_softmax(repo: Path, python: str, cap: float) -> dict:
    work = Path(tempfile.mkdtemp(prefix="se_softmax_"))
    shutil.copy(repo / "SE_softmax.py", work)
    cpu0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        [python, "SE_softmax.py"],
        cwd=work,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    done, iters = [], [0]

    def read():
        for line in proc.stdout:
            if line.startswith("Alpha="):
                iters[-1] += 1
            elif line.startswith("Convergence reached."):
                done.append((time.perf_counter() - t0, iters[-1]))
                iters.append(0)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while proc.poll() is None and time.perf_counter() - t0 < cap:
        time.sleep(0.2)
    wall = time.perf_counter() - t0
    finished, cpu = _stop(proc, cpu0)
    reader.join(timeout=5)
    shutil.rmtree(work, ignore_errors=True)
    ends = [0.0] + [t for t, _ in done]
    return {
        "script": "SE_softmax.py",
        "command": f"{Path(python).name} SE_softmax.py",
        "cap_s": cap,
        "finished": finished,
        "exit_code": proc.returncode if finished else None,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "grid_size": 256,
        "alphas_finished": len(done),
        "iterations_per_alpha": [n for _, n in done],
        "seconds_per_alpha": [round(b - a, 3) for a, b in pairwise(ends)],
        "note": "the first of the 256 alphas includes the interpreter's start and the imports",
    }


def time_se_hardmax(repo: Path, python: str, cap: float, idx: int = HARDMAX_IDX) -> dict:
    import numpy as np

    alpha = float(np.logspace(-3, np.log10(0.02), 128)[idx])
    work = Path(tempfile.mkdtemp(prefix="se_hardmax_"))
    shutil.copy(repo / "SE_hardmax.py", work)
    (work / "SE_hardmax_0.5").mkdir()
    cpu0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.Popen(
        [python, "SE_hardmax.py", str(idx), "0.5"],
        cwd=work,
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen, stamps = 0, []
    while proc.poll() is None and time.perf_counter() - t0 < cap:
        time.sleep(0.05)
        files = list((work / "SE_hardmax_0.5").glob("*.csv"))
        if files:
            try:
                rows = len(files[0].read_text().strip().splitlines()) - 2  # header and the starting q
            except OSError:
                continue
            while seen < rows:
                seen += 1
                stamps.append(time.perf_counter() - t0)
    wall = time.perf_counter() - t0
    finished, cpu = _stop(proc, cpu0)
    shutil.rmtree(work, ignore_errors=True)
    per_iter = [round(b - a, 3) for a, b in pairwise(stamps)]
    return {
        "script": "SE_hardmax.py",
        "command": f"{Path(python).name} SE_hardmax.py {idx} 0.5",
        "alpha": alpha,
        "cap_s": cap,
        "finished": finished,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "mc_draws_per_iteration": 25000,
        "min_iterations": 151,
        "iterations_finished": len(stamps),
        "first_iteration_s": round(stamps[0], 3) if stamps else None,
        "seconds_per_iteration": per_iter,
        "note": "the first iteration includes the interpreter's start and the imports",
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repo", required=True, type=Path, help="local copy of their repository (commit 529536f)"
    )
    parser.add_argument("--python", default=sys.executable, help="the Python that runs their scripts")
    parser.add_argument(
        "--cap-softmax", type=float, default=180.0, help="wall-time cap of SE_softmax.py, seconds"
    )
    parser.add_argument(
        "--cap-hardmax", type=float, default=120.0, help="wall-time cap of SE_hardmax.py, seconds"
    )
    parser.add_argument(
        "--only", choices=("softmax", "hardmax"), help="time one script, keep the other's entry"
    )
    args = parser.parse_args(argv)
    load0 = os.getloadavg()
    old = json.loads((HERE / "authors_timing.json").read_text())["runs"] if args.only else None
    runs = [
        time_se_softmax(args.repo, args.python, args.cap_softmax) if args.only != "hardmax" else old[0],
        time_se_hardmax(args.repo, args.python, args.cap_hardmax) if args.only != "softmax" else old[1],
    ]
    probe = (
        "import numpy, scipy, pandas, sys; "
        "print(sys.version.split()[0], numpy.__version__, scipy.__version__, pandas.__version__)"
    )
    versions = subprocess.run(
        [args.python, "-c", probe], capture_output=True, text=True, check=False
    ).stdout.split()
    out = {
        "repository": "FabrizioBoncoraglio/BO_ExtensiveRankAttention",
        "commit": COMMIT,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, one thread per script",
        "load_average_before": [round(x, 2) for x in load0],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "versions": dict(zip(("python", "numpy", "scipy", "pandas"), versions)),
        "date": time.strftime("%Y-%m-%d"),
        "runs": runs,
    }
    (HERE / "authors_timing.json").write_text(json.dumps(out, indent=2) + "\n")
    for r in runs:
        print({k: v for k, v in r.items() if not isinstance(v, list)})


if __name__ == "__main__":
    main()
