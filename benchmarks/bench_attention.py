"""Time GAMP-RIE of the attention-indexed model against d and T, measure its memory (a benchmark, not a test).

    python benchmarks/bench_attention.py            # d up to 200
    python benchmarks/bench_attention.py --large    # adds d = 300, 400

Single-threaded on purpose (the thread variables are set before numpy is imported; ``science/attention.md``,
Sec. 3: BLAS threads only add overhead to the small d x d eigendecompositions). Each row: ``rho = 0.5`` and
``alpha = alpha_PR/2`` (the informative regime, where ``alpha K`` and so the number of equations ``n K`` are
the same for every ``T``); 10 iterations with ``tol = 0``.

Columns: the data (``n``, the tokens' size in MB), ms per iteration (best of 2 runs) split into the sensing
map (forward + adjoint, the O(n T d^2) BLAS products), the denoiser (eigendecomposition, RIE eigenvalue map
and its MMSE) and the rest (channel, Onsager terms), and the peak memory traced by ``tracemalloc`` during the
run, in MB and as a multiple of the tokens' size (it stays O(n T d): no per-sample d x d tensor is ever
built). A last table times one Adam step of 32 batched students: the loss and gradient alone
(``student_loss_and_gradient``) and a full step of ``attention.gd`` (``solvable.gd.run_gd`` with
``attention.StudentLoss`` and ``gd.Adam``, recording every 50 steps), whose difference is the optimiser loop's
overhead.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import sys
import time
import tracemalloc

import numpy as np

from solvable import attention as at
from solvable import channels, rie

RHO = 0.5
ITERATIONS = 10


class _Timed:
    """Wrap an object's methods to accumulate their wall time in ``self.seconds``."""

    def __init__(self, inner, methods):
        self._inner = inner
        self.seconds = 0.0
        for name in methods:
            setattr(self, name, self._wrap(getattr(inner, name)))

    def _wrap(self, f):
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            out = f(*args, **kwargs)
            self.seconds += time.perf_counter() - t0
            return out

        return timed

    def __getattr__(self, name):
        return getattr(self._inner, name)


def run_once(data):
    """One GAMP-RIE run of ITERATIONS iterations: (total s, sensing-map s, denoiser s)."""
    from solvable.amp import run_gamp

    rng = np.random.default_rng(1)
    M = _Timed(at.AttentionSensingMap(data.X), ("forward", "adjoint", "forward_variance", "adjoint_variance"))
    den = _Timed(rie.WishartRIEDenoiser(data.rho), ("denoise",))
    ch = channels.SoftmaxChannel(data.T)
    y = ch.observe(data.y)
    W0 = rng.standard_normal((data.d, data.r))
    S0 = W0 @ W0.T / np.sqrt(data.r * data.d)
    t0 = time.perf_counter()
    run_gamp(
        M,
        ch,
        den,
        y,
        S0,
        10.0,
        damping=0.5,
        tol=0.0,
        max_iter=ITERATIONS,
        damp="output",
        precision="empirical",
        omega0=np.full(y.shape, 10.0),
        V0=10.0,
    )
    return time.perf_counter() - t0, M.seconds, den.seconds


def peak_memory(data):
    """Peak traced allocation (bytes) of a full gamp_rie call (same ITERATIONS)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    at.gamp_rie(data, tol=0.0, max_iter=ITERATIONS, rng=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def bench_gamp(ds, Ts):
    print(f"GAMP-RIE, rho = {RHO}, alpha = alpha_PR/2, {ITERATIONS} iterations (ms per iteration, best of 2)")
    print(
        f"{'d':>4} {'T':>2} {'alpha':>7} {'n':>6} {'X [MB]':>7} {'total':>7} {'map':>7} {'denoise':>8} "
        f"{'rest':>6} {'peak [MB]':>10} {'peak/X':>7}"
    )
    for d in ds:
        for T in Ts:
            alpha = at.perfect_recovery_threshold(RHO, T) / 2
            data = at.sample(d, alpha, rho=RHO, T=T, rng=np.random.default_rng(0))
            runs = [run_once(data) for _ in range(2)]
            total, t_map, t_den = min(runs)
            peak = peak_memory(data)
            xmb = data.X.nbytes / 2**20
            per = 1e3 / ITERATIONS
            print(
                f"{d:>4d} {T:>2d} {alpha:>7.4f} {data.n:>6d} {xmb:>7.2f} {total * per:>7.1f} "
                f"{t_map * per:>7.1f} {t_den * per:>8.1f} {(total - t_map - t_den) * per:>6.1f} "
                f"{peak / 2**20:>10.2f} "
                f"{peak / data.X.nbytes:>7.1f}",
                flush=True,
            )


def bench_adam(ds, T=2, K=32, steps=20):
    print(
        f"\nOne Adam step of K = {K} batched tied students (T = {T}, rho = {RHO}, alpha = 0.1; "
        f"ms, best of 5; attention.gd: {steps} steps, best of 3)"
    )
    print(f"{'d':>4} {'n':>6} {'loss+grad [ms]':>15} {'attention.gd [ms/step]':>25} {'1500 steps [s]':>15}")
    for d in ds:
        data = at.sample(d, 0.1, rho=RHO, T=T, rng=np.random.default_rng(0))
        W = np.random.default_rng(1).standard_normal((K, d, data.r))
        best = np.inf
        for _ in range(5):
            t0 = time.perf_counter()
            at.student_loss_and_gradient(W, data.X, data.y)
            best = min(best, time.perf_counter() - t0)
        full = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            at.gd(data, n_inits=K, max_steps=steps, rng=1)
            full = min(full, (time.perf_counter() - t0) / (steps + 1))  # steps + 1 loss evaluations
        print(
            f"{d:>4d} {data.n:>6d} {best * 1e3:>15.1f} {full * 1e3:>25.1f} {full * 1500:>15.1f}", flush=True
        )


if __name__ == "__main__":
    ds = [50, 100, 150, 200] + ([300, 400] if "--large" in sys.argv else [])
    bench_gamp(ds, [2, 3, 4, 6])
    bench_adam([30, 60, 100] + ([200] if "--large" in sys.argv else []))
