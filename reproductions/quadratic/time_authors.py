"""Time the authors' code (Maillard et al. 2024, arXiv:2408.03733) from a local clone, for the timing column only.

    python reproductions/quadratic/time_authors.py --repo PATH [--iterations 10]

``PATH`` is a checkout of https://github.com/SPOC-group/ExtensiveWidthQuadraticSamples (commit 6fff944 was used);
nothing is fetched and nothing of their code is copied into this repository. Two things are run, with one BLAS thread
(set ``OMP_NUM_THREADS=1`` before starting it):

- the GAMP-RIE of their notebook ``AMP.ipynb``: its cells defining the RIE, ``data_generation`` and ``AMP`` are
  written to a temporary module outside the repository and imported; one data set at d = 100, alpha = 0.3,
  kappa = 0.5, Delta = 0 (their ``beta`` is kappa, their global ``noise`` is Delta), then ``--iterations`` AMP
  iterations with the tolerance set to 0 so that none stops early. The data generation (which builds their
  n x d x d tensor) is timed separately.
- their noiseless theory ``Theory_no_noise.theory(alpha, kappa)`` for one point, alpha = 0.3, kappa = 0.5; and,
  as a check rather than a timing, the same function at the kappa = 0.1 alphas kept in
  ``published/theory_noiseless_kappa0.1.csv`` (times kappa, as their plotting notebook does), to see whether their
  committed script reproduces the irregular points of their published curve.

Writes ``reproductions/quadratic/authors_timing.json``, which ``reproduce.py`` reads into ``results.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
D, ALPHA, KAPPA, DELTA = 100, 0.3, 0.5, 0.0
NOTEBOOK_CELLS = ("def solve_poly", "def data_generation", "def AMP(")  # the cells that define what is timed


def _stub_missing(*names):
    """Modules their notebook imports but the timed functions never call (a progress bar, data frames)."""
    for name in names:
        if importlib.util.find_spec(name) is None:
            stub = types.ModuleType(name)
            stub.tqdm = lambda it, *a, **k: it
            sys.modules[name] = stub


def _notebook_module(repo: Path):
    cells = json.loads((repo / "AMP.ipynb").read_text())["cells"]
    chosen = [
        "".join(c["source"])
        for c in cells
        if c["cell_type"] == "code" and any(key in "".join(c["source"]) for key in NOTEBOOK_CELLS)
    ]
    if len(chosen) != len(NOTEBOOK_CELLS):
        raise SystemExit(f"AMP.ipynb: expected {len(NOTEBOOK_CELLS)} defining cells, found {len(chosen)}")
    _stub_missing("tqdm", "pandas")
    tmp = Path(tempfile.mkdtemp(prefix="quadratic_authors_"))
    path = tmp / "authors_amp.py"
    path.write_text("\n\n".join(chosen) + "\n")
    spec = importlib.util.spec_from_file_location("authors_amp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="local clone of their repository")
    parser.add_argument("--iterations", type=int, default=10, help="AMP iterations timed (default 10)")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    out = {
        "repository": "SPOC-group/ExtensiveWidthQuadraticSamples",
        "commit_used": None,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, Python {platform.python_version()}",
        "load_average_1min_at_start": os.getloadavg()[0],
    }
    head = repo / ".git"
    if head.exists():
        import subprocess

        out["commit_used"] = (
            subprocess.run(
                ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
            ).stdout.strip()
            or None
        )

    amp = _notebook_module(repo)
    amp.noise = DELTA  # their AMP reads the label-noise variance from the notebook's global ``noise``
    np.random.seed(0)
    t0 = time.perf_counter()
    X, y, S = amp.data_generation(D, KAPPA, ALPHA, DELTA)
    gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, err = amp.AMP(X, y, S, KAPPA, iterations=args.iterations, damping=0.5, tol=0.0)
    per_iter = (time.perf_counter() - t0) / args.iterations
    out["amp"] = {
        "d": D,
        "alpha": ALPHA,
        "kappa": KAPPA,
        "delta": DELTA,
        "n": int(ALPHA * D * D),
        "iterations": args.iterations,
        "s_per_iteration": per_iter,
        "data_generation_s": gen,
        "tensor_gb": X.nbytes / 1e9,
        "error_after": float(err),
    }
    del X

    sys.path.insert(0, str(repo))
    from Theory_no_noise import theory  # their script, from the clone

    t0 = time.perf_counter()
    value = theory(ALPHA, KAPPA) * KAPPA  # times kappa: their plotting notebook's conversion to the MMSE
    out["theory"] = {
        "alpha": ALPHA,
        "kappa": KAPPA,
        "s_per_point": time.perf_counter() - t0,
        "mmse": float(value),
    }
    alphas = np.genfromtxt(HERE / "published" / "theory_noiseless_kappa0.1.csv", delimiter=",", names=True)[
        "alpha"
    ]
    t0 = time.perf_counter()
    out["theory_kappa0.1"] = {"alpha": alphas.tolist(), "mmse": [float(theory(a, 0.1) * 0.1) for a in alphas]}
    out["theory_kappa0.1"]["s_per_point"] = (time.perf_counter() - t0) / len(alphas)
    (HERE / "authors_timing.json").write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
