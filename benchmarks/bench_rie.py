"""Time the random-matrix toolbox's hot paths and print tables (a benchmark, not a test).

    python benchmarks/bench_rie.py

Single-threaded on purpose (the thread variables are set before numpy is imported): GAMP-RIE calls the
MMSE at every iteration, and the matrix chapters run one eigendecomposition per iteration on small
matrices, where BLAS threads only add overhead.

1. Density and Re G of the noisy Wishart (cubic, closed-form roots) and of the rectangular law (quartic,
   batched companion eigenvalues) against the number of evaluation points.
2. One MMSE (law construction: edges from the discriminant, then Gauss-Legendre over the bulks), symmetric
   and rectangular, against the number of nodes per piece, with the error against a 400-node rule.
   Targets: under 2 ms (symmetric), under 20 ms (rectangular). Each MMSE is timed on a fresh parameter value,
   so that the cache of spectral laws does not hide the construction cost.
3. The symmetric and rectangular denoisers on a matrix (eigendecomposition / SVD included).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import itertools
import time

import numpy as np
from _timing import best_of

from solvable import denoising, rie
from solvable.spectra import RectangularPlusNoise, WishartPlusNoise

_fresh = itertools.count(1)


def bench_density():
    print("Density and Re G vs number of points (law built once; ms per call, best of 5)")
    print(f"{'points':>7} {'sym rho':>9} {'sym ReG':>9} {'rect mu':>9} {'rect v':>9}")
    sym = WishartPlusNoise(noise=0.6, kappa=0.5)
    rect = RectangularPlusNoise(noise=0.5, beta=2.0, rho=0.5)
    sym.density(0.0), rect.density(1.0)  # build the supports
    for n in (10, 100, 1000, 10000):
        xs = np.linspace(-3.0, 7.0, n)  # inside and outside the bulk
        xr = np.linspace(0.01, 5.0, n)
        t = [
            best_of(lambda f=f, x=x: f(x), number=3)
            for f, x in (
                (sym.density, xs),
                (sym.stieltjes_real, xs),
                (rect.density, xr),
                (rect.stieltjes_real, xr),
            )
        ]
        print(f"{n:>7d} " + " ".join(f"{v * 1e3:>9.3f}" for v in t))


def bench_mmse():
    print("\nOne MMSE from scratch vs Gauss-Legendre nodes per piece (ms, best of 5; error vs 400 nodes)")
    print(f"{'nodes':>6} {'sym [ms]':>9} {'sym err':>9} {'rect [ms]':>10} {'rect err':>9}")
    ref_sym = rie.symmetric_rie_mmse(0.6, 0.5, n_nodes=400)
    ref_rect = rie.rectangular_rie_mmse(0.5, 2.0, 0.5, n_nodes=400)
    for n in (16, 32, 64, 128, 256):
        t_sym = best_of(
            lambda n=n: rie.symmetric_rie_mmse(0.6 + 1e-9 * next(_fresh), 0.5, n_nodes=n), number=20
        )
        t_rect = best_of(
            lambda n=n: rie.rectangular_rie_mmse(0.5 + 1e-9 * next(_fresh), 2.0, 0.5, n_nodes=n), number=5
        )
        e_sym = abs(rie.symmetric_rie_mmse(0.6, 0.5, n_nodes=n) - ref_sym)
        e_rect = abs(rie.rectangular_rie_mmse(0.5, 2.0, 0.5, n_nodes=n) - ref_rect)
        print(f"{n:>6d} {t_sym * 1e3:>9.3f} {e_sym:>9.1e} {t_rect * 1e3:>10.3f} {e_rect:>9.1e}")
    alphas = np.linspace(0.01, 0.45, 50)
    t0 = time.perf_counter()
    for a in alphas:  # a Bayes curve of the quadratic network needs one MMSE per brentq step
        rie.symmetric_rie_mmse(1.0 / (40 * a), 0.5)
    print(
        f"\n50 symmetric MMSE evaluations at distinct noise (one curve point each): "
        f"{(time.perf_counter() - t0) * 1e3:.1f} ms"
    )


def bench_denoisers():
    print("\nDenoisers on one matrix (ms, best of 3): spectral decomposition + map")
    print(f"{'problem':<30} {'total [ms]':>11} {'map only [ms]':>14}")
    rng = np.random.default_rng(0)
    for d in (100, 200, 500):
        S = denoising.sample_wishart(d, 0.5, rng=rng)
        Y = S + np.sqrt(0.6) * denoising.sample_goe(d, rng=rng)
        lam = np.linalg.eigvalsh(Y)
        total = best_of(lambda Y=Y: rie.symmetric_rie(Y, 0.6 + 1e-9 * next(_fresh), 0.5), repeat=3)
        mapping = best_of(
            lambda lam=lam: rie.symmetric_rie_eigenvalues(lam, 0.6 + 1e-9 * next(_fresh), 0.5), repeat=3
        )
        print(f"{f'symmetric d={d}':<30} {total * 1e3:>11.2f} {mapping * 1e3:>14.2f}")
    for d, L in ((100, 100), (200, 400), (300, 600)):
        S = denoising.sample_rectangular_signal(d, L, d // 2, rng=rng)
        Y = S + np.sqrt(0.5) * denoising.sample_rectangular_noise(d, L, rng=rng)
        sv = np.linalg.svd(Y, compute_uv=False)
        total = best_of(lambda Y=Y: rie.rectangular_rie(Y, 0.5 + 1e-9 * next(_fresh), 0.5), repeat=3)
        mapping = best_of(
            lambda sv=sv, d=d, L=L: rie.rectangular_rie_singular_values(
                sv, 0.5 + 1e-9 * next(_fresh), L / d, 0.5
            ),
            repeat=3,
        )
        print(f"{f'rectangular {d}x{L}':<30} {total * 1e3:>11.2f} {mapping * 1e3:>14.2f}")


if __name__ == "__main__":
    bench_density()
    bench_mmse()
    bench_denoisers()
