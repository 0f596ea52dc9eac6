"""Time the hot paths of bilinear sequence regression and print tables (a benchmark, not a test).

    python benchmarks/bench_bsr.py

Single-threaded on purpose (the thread variables are set before numpy is imported), so that the numbers
mean the same thing on a laptop, on CI and on the 2-core machine the lecture preset is sized for.

(a) A 50-point Bayes-optimal curve (one Brent solve of the scalar fixed point per point). Target < 5 s.
(b) GAMP-RIE: time per iteration against the time of its two passes over the data (one forward and one
    adjoint product with the (n, dL) design) at the same size, for growing d = L (alpha = 0.3, rho = 0.2).
    Target ratio < 2: the data passes should dominate. The rest of an iteration (one d x L SVD, one rectangular
    spectral law and its MMSE, a few ms) does not grow with n, so the ratio falls with d.
(c) Gradient descent on (U, V): time per step against the number K of initialisations run as one batch
    (d = L = 40, rho = 0.2, alpha = 0.2: the lecture size of science/bsr.md, Sec. 6).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import time
import warnings

import numpy as np
from solvable import bsr

from _timing import best_of


def bench_bayes_curve():
    print("(a) Bayes-optimal MMSE curve, 50 points (beta = 1, rho = 0.2)")
    print(f"{'delta':>6} {'alpha range':>14} {'time [s]':>9} {'per point [ms]':>15}")
    for delta, top in ((0.0, 0.5), (0.1, 2.0)):
        alphas = np.linspace(0.0, top, 50)
        t0 = time.perf_counter()
        for a in alphas:
            bsr.bayes_optimal_mmse(a, 1.0, 0.2, delta)
        dt = time.perf_counter() - t0
        print(f"{delta:>6.2f} {f'[0, {top}]':>14} {dt:>9.2f} {dt / 50 * 1e3:>15.1f}")
    alphas = np.linspace(0.0, 0.5, 50)
    t0 = time.perf_counter()
    for a in alphas:
        bsr.bayes_optimal_mmse(a, np.inf, 0.2)
    print(f"{'beta=inf':>6} {'[0, 0.5]':>14} {time.perf_counter() - t0:>9.3f}")


def bench_gamp(sizes=(30, 50, 80, 100), iterations=20):
    print("\n(b) GAMP-RIE per iteration vs its two data passes (alpha = 0.3, rho = 0.2, d = L; ms)")
    print(f"{'d':>4} {'n':>6} {'data MB':>8} {'iteration':>10} {'fwd+adj':>9} {'ratio':>6}")
    for d in sizes:
        data = bsr.sample(d, 0.3, beta=1.0, rho=max(1, d // 5) / d, rng=0)
        M = bsr.BilinearMap(data.X)
        S = np.random.default_rng(1).standard_normal((d, d))
        g = np.random.default_rng(2).standard_normal(data.n)
        passes = best_of(lambda M=M, S=S, g=g: (M.forward(S), M.adjoint(g)), repeat=5, number=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per_iter = best_of(
                lambda data=data: bsr.gamp_rie(data, tol=0.0, max_iter=iterations, rng=0), repeat=2
            )
        per_iter /= iterations
        print(
            f"{d:>4d} {data.n:>6d} {data.X.nbytes / 2**20:>8.1f} {per_iter * 1e3:>10.2f} {passes * 1e3:>9.2f} "
            f"{per_iter / passes:>6.2f}"
        )


def bench_gd(Ks=(1, 4, 16, 32, 64), steps=200):
    print("\n(c) Gradient descent per step vs number of initialisations K (d = L = 40, r = 8, alpha = 0.2)")
    print(f"{'K':>4} {'per step [ms]':>14} {'per step per init [ms]':>23}")
    data = bsr.sample(40, 0.2, beta=1.0, rho=0.2, rng=0)
    for K in Ks:
        t = best_of(lambda K=K: bsr.gd(data, n_inits=K, lr=0.4, tol=0.0, max_steps=steps, rng=0), repeat=3)
        print(f"{K:>4d} {t / steps * 1e3:>14.3f} {t / steps / K * 1e3:>23.3f}")


if __name__ == "__main__":
    bench_bayes_curve()
    bench_gamp()
    bench_gd()
