"""Time one chapter-sized sweep one run after the other and on joblib's workers (a benchmark, not a test).

    python benchmarks/bench_sweep.py                  # chapter 4's gradient-descent sweep, lecture preset
    python benchmarks/bench_sweep.py --workers 2 16   # the worker counts to time (default: 2 and every core)

The sweep is the one of chapter 4, "Gradient descent: a sampler of the posterior", at the lecture preset: 4 sample
ratios x 6 data sets, each trained from 32 initialisations (``quadratic.gd``, d = 50, kappa = 1/2, float32). It runs
through :func:`solvable.experiments.parallel_map` three ways:

1. one after the other in this process, with every core for BLAS (``n_jobs=None``, the default);
2. the same with one BLAS thread (what each worker gets when there are as many workers as cores);
3. on ``k`` worker processes (``n_jobs=k``; joblib gives each ``cores / k`` BLAS threads), for each ``k`` asked:
   first with workers started for it ("cold": a chapter's first sweep pays this once, joblib then keeps its workers
   for the rest of the session), then with the workers already running ("warm").

Each time is the best of ``--repeat`` runs. It prints the wall times, the ratio of each to the sequential one
(target on 2 cores: at most 0.6 with 2 warm workers) and whether every run's errors are the same bit for bit. On a
machine with many cores, the last line shows one chapter's sweep using them all.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import joblib
import numpy as np
from joblib.externals.loky import get_reusable_executor
from threadpoolctl import threadpool_limits

from solvable import config, quadratic
from solvable.experiments import parallel_map

SIZES = config.PRESETS["lecture"]
ALPHAS, KAPPA = (0.05, 0.1, 0.15, 0.2), 0.5


def gd_run(job):
    """One data set of chapter 4's sweep: K students, their single and averaged errors."""
    alpha, rng = job
    data = quadratic.sample(SIZES.quadratic_gd_d, alpha, kappa=KAPPA, rng=rng)
    res = quadratic.gd(data, n_inits=SIZES.quadratic_gd_inits, rng=rng, warn=False, dtype=np.float32)
    return res.errors, res.average_error


def jobs():
    children = np.random.default_rng(5).spawn(len(ALPHAS) * SIZES.quadratic_gd_datasets)
    return [
        (a, children[i * SIZES.quadratic_gd_datasets + s])
        for i, a in enumerate(ALPHAS)
        for s in range(SIZES.quadratic_gd_datasets)
    ]


def timed(n_jobs):
    t0 = time.perf_counter()
    out = parallel_map(gd_run, jobs(), n_jobs=n_jobs)
    return time.perf_counter() - t0, out


def same(a, b) -> bool:
    return all(np.array_equal(x[0], y[0]) and x[1] == y[1] for x, y in zip(a, b, strict=True))


def main(argv=None) -> None:
    cores = joblib.cpu_count()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=sorted({2, cores}),
        help="worker counts to time (default: 2 and every core)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, the best is kept (default 3)")
    args = parser.parse_args(argv)
    print(
        f"chapter 4 GD sweep, lecture preset: {len(ALPHAS)} alphas x {SIZES.quadratic_gd_datasets} data sets, "
        f"K = {SIZES.quadratic_gd_inits}, d = {SIZES.quadratic_gd_d}; {cores} cores ({platform.processor() or '?'})"
    )
    parallel_map(gd_run, jobs()[:1])  # warm-up: imports, BLAS initialisation

    def best(n_jobs):
        runs = [timed(n_jobs) for _ in range(args.repeat)]
        return min(t for t, _ in runs), runs[0][1]

    seq, reference = best(None)
    with threadpool_limits(1):
        seq1, out1 = best(None)
    print(f"{'how':<48} {'wall [s]':>9} {'/ sequential':>13} {'same bits':>10}")
    print(f"{'one after the other, every core for BLAS':<48} {seq:9.1f} {1.0:13.2f} {'':>10}")
    print(
        f"{'one after the other, one BLAS thread':<48} {seq1:9.1f} {seq1 / seq:13.2f} {str(same(out1, reference)):>10}"
    )
    for k in args.workers:
        get_reusable_executor().shutdown(wait=True)
        cold, out = timed(k)
        warm, _ = best(k)
        for when, t in (("cold", cold), ("warm", warm)):
            label = f"{k} workers ({when}), {max(1, cores // k)} BLAS thread(s) each"
            print(f"{label:<48} {t:9.1f} {t / seq:13.2f} {str(same(out, reference)):>10}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
