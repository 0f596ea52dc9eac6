"""Timing helper shared by the benchmark scripts (run them as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import time


def best_of(f, repeat: int = 5, number: int = 1) -> float:
    """Best wall time of ``number`` calls of ``f`` over ``repeat`` repetitions (seconds per call)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        times.append((time.perf_counter() - t0) / number)
    return min(times)
