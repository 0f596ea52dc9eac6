"""Time the quadratic-network hot paths and print tables (a benchmark, not a test).

    OMP_NUM_THREADS=1 python benchmarks/bench_quadratic.py

1. A 50-point Bayes-optimal curve (``quadratic.bayes_optimal_mmse``, kappa = 0.5; target under 1 s).
2. GAMP-RIE at alpha = 0.3, kappa = 0.5 for d = 50..200: time per iteration, the time of the matrix products
   one iteration needs (``x^T S x`` for all samples, ``X^T diag(g) X``, one d x d ``eigh``) and their ratio
   (target under 1.5 for d >= 100), and the peak memory of the run measured with tracemalloc against the
   size of the data ``X`` (the n x d x d tensor of the ``Z_mu`` is never stored). The time per iteration is
   the marginal one, ``(t(30 iterations) - t(10 iterations))/20`` (without the start, paid once),
   and the ratio is the median over five rounds, each timing the products and the runs back to back, so that
   a drift of the machine's speed between the two measurements does not enter it.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

from solvable import quadratic as qn  # noqa: E402

from _timing import best_of  # noqa: E402


def bench_curve():
    alphas = np.linspace(0.01, 0.5, 50)
    t = best_of(lambda: [qn.bayes_optimal_mmse(a, 0.5) for a in alphas])
    tn = best_of(lambda: [qn.bayes_optimal_mmse(a, 0.5, 0.25) for a in alphas])
    print(f"50-point Bayes curve, kappa = 0.5: noiseless {t:.3f} s, delta = 0.25 {tn:.3f} s (target < 1 s)\n")


def bench_gamp(rounds: int = 5):
    print("GAMP-RIE, kappa = 0.5, alpha = 0.3 (single-threaded BLAS)")
    print(
        f"{'d':>5} {'n':>7} {'iter [ms]':>10} {'products [ms]':>14} {'ratio':>6} "
        f"{'peak [MB]':>10} {'X [MB]':>7}"
    )
    for d in [50, 80, 100, 150, 200]:
        rng = np.random.default_rng(0)
        data = qn.sample(d, 0.3, kappa=0.5, rng=rng)
        X = data.X
        M = qn.QuadraticSensingMap(X)
        S = data.S_star
        g = rng.standard_normal(data.n)

        def run(iterations):
            return best_of(
                lambda: qn.gamp_rie(data, max_iter=iterations, tol=1e-30, warn=False, rng=1), repeat=3
            )

        measured = []
        for _ in range(rounds):
            t_products = best_of(lambda: (M.forward(S), M.adjoint(g), np.linalg.eigh(S)), repeat=5)
            t10, t30 = run(10), run(30)
            per_iter = (t30 - t10) / 20
            measured.append((per_iter / t_products, per_iter, t_products))
        ratio, per_iter, t_products = sorted(measured)[rounds // 2]
        tracemalloc.start()
        qn.gamp_rie(data, max_iter=3, tol=1e-30, warn=False, rng=1)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"{d:>5} {data.n:>7} {per_iter * 1e3:>10.2f} {t_products * 1e3:>14.2f} {ratio:>6.2f} "
            f"{peak / 2**20:>10.1f} {X.nbytes / 2**20:>7.1f}"
        )


if __name__ == "__main__":
    bench_curve()
    bench_gamp()
