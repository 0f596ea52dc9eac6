"""Time the perceptron's hot paths and print a table (a benchmark, not a test).

    python benchmarks/bench_perceptron.py            # state-evolution curves + GAMP iterations
    OMP_NUM_THREADS=1 python benchmarks/bench_perceptron.py

1. A Bayes-optimal curve: ``glm.state_evolution`` at 50 values of alpha in [0.05, 5], for every
   prior/channel pair (target: under 2 s per curve on 2 cores).
2. The thresholds of the binary perceptron (``perfect_learning_thresholds``).
3. One GAMP iteration against the four matrix-vector products it needs, for growing d (alpha = 2).
"""

from __future__ import annotations


import numpy as np

from solvable import glm

from _timing import best_of

PAIRS = [
    ("gaussian", "sign", 0.0),
    ("gaussian", "probit", 0.1),
    ("gaussian", "linear", 0.1),
    ("rademacher", "sign", 0.0),
    ("rademacher", "probit", 0.1),
    ("rademacher", "linear", 0.1),
]


def bench_state_evolution():
    alphas = np.linspace(0.05, 5.0, 50)
    print("Bayes-optimal curve, 50 values of alpha in [0.05, 5] (best of 3)")
    print(f"{'prior':<11} {'channel':<8} {'delta':>5} {'time [s]':>9} {'max SE iters':>13}")
    for prior, channel, delta in PAIRS:
        iters = []

        def curve():
            iters.clear()
            for a in alphas:
                iters.append(glm.state_evolution(a, prior, channel, delta).iterations)

        t = best_of(curve)
        print(f"{prior:<11} {channel:<8} {delta:>5g} {t:>9.3f} {max(iters):>13d}")
    t = best_of(glm.perfect_learning_thresholds)
    print(f"\nperfect_learning_thresholds(): {t * 1e3:.1f} ms")


def bench_gamp():
    print("\nGAMP at alpha = 2 (Gaussian prior, sign channel): time per iteration vs four mat-vecs")
    print(f"{'d':>6} {'n':>6} {'iter [ms]':>10} {'4 matvec [ms]':>14} {'ratio':>6}")
    for d in [250, 500, 1000, 2000, 4000]:
        rng = np.random.default_rng(0)
        data = glm.sample(d, 2.0, rng=rng)
        X = data.X
        F2 = X * X / d
        v, u = rng.standard_normal(d), rng.standard_normal(X.shape[0])
        t_mv = best_of(lambda: (X @ v, X.T @ u, F2 @ v, F2.T @ u), repeat=5)
        t_gamp = best_of(lambda: glm.gamp(data, max_iter=20, tol=0.0, rng=np.random.default_rng(1)))
        per_iter = t_gamp / 20
        print(f"{d:>6} {X.shape[0]:>6} {per_iter * 1e3:>10.2f} {t_mv * 1e3:>14.2f} {per_iter / t_mv:>6.2f}")


if __name__ == "__main__":
    bench_state_evolution()
    bench_gamp()
