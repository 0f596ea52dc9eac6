"""Milliseconds per full-batch gradient step on the CPU (NumPy) and on a GPU (PyTorch, CuPy): a benchmark, not a test.

    python benchmarks/bench_gpu.py                 # the sizes below, best of 3 blocks of 5 steps
    python benchmarks/bench_gpu.py --repeat 1 --steps 1    # one block of one step (a check that it runs)

One step is what :func:`solvable.gd.run_gd` does per step: the loss and gradient of all ``K`` runs
(``objective.loss_and_gradient``), the optimiser step, and the ``K`` losses brought to the host (for the
stopping rule). The objectives are the library's own, on arrays of each namespace (:mod:`solvable.backend`):

(i)   BSR, ``gd.SquareLoss(bsr.BilinearMap, gd.LowRankProduct)``: d = L = 100, rho = 0.2 (r = 20), alpha = 0.2
      (n = 2000), K = 64 initialisations, plain GD (lr 0.1, the paper's);
(ii)  quadratic network, ``quadratic._FactorisedSquareLoss``: d = 100, kappa = 0.5 (m = 50), alpha = 0.3
      (n = 3000), K = 64, plain GD (``quadratic.gd``'s default step);
(iii) attention, ``attention.StudentLoss``: d = 200, rho = 0.5 (r = 100), T = 2, alpha = 0.1 (n = 4000, the
      authors' averaged-GD point is alpha = 0.103), K = 32 students, Adam (lr 0.1, as reproductions/attention).

Each in float64 and float32, on: NumPy with one BLAS thread (``threadpoolctl.threadpool_limits(1)``) and with
all of them; PyTorch on CUDA and CuPy where they are importable with a GPU (skipped, with the reason printed,
otherwise). The GPU is synchronised before each clock reading (``torch.cuda.synchronize``, CuPy's stream
``synchronize``); one block of steps is run first as a warm-up and not timed. Prints a Markdown table and the
projected time of the authors' BSR protocol (5e4 steps of 64 initialisations per alpha, batched as one run), and
writes ``benchmarks/output/gpu.json`` (rows and the machine: CPU count, GPU name, library versions).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from solvable import attention, backend, bsr, gd, quadratic

OUT = Path(__file__).resolve().parent / "output" / "gpu.json"
PROTOCOL_STEPS = 50_000  # the authors' BSR protocol: 5e4 steps for each of 64 initialisations, per alpha


def problems():
    """Host data of the three problems: name -> (objective builder, initial parameters, optimiser)."""
    out = {}
    data = bsr.sample(100, 0.2, beta=1.0, rho=0.2, rng=0)
    rng = np.random.default_rng(1)
    out["(i) BSR d=L=100, r=20, alpha=0.2, K=64, GD"] = (
        lambda to, data=data: gd.SquareLoss(
            bsr.BilinearMap(to(data.X)), gd.LowRankProduct(data.r), to(data.y, False)
        ),
        (rng.standard_normal((64, 100, data.r)), rng.standard_normal((64, 100, data.r))),
        gd.GradientStep(0.1),
    )
    data = quadratic.sample(100, 0.3, kappa=0.5, rng=0)
    out["(ii) quadratic d=100, kappa=0.5, alpha=0.3, K=64, GD"] = (
        lambda to, data=data: quadratic._FactorisedSquareLoss(to(data.X), to(data.y, False), data.m),
        (np.random.default_rng(2).standard_normal((64, data.m, 100)),),
        gd.GradientStep(min(0.7 / (data.alpha * data.d), 0.15)),
    )
    data = attention.sample(200, 0.1, rho=0.5, T=2, rng=0)
    out["(iii) attention d=200, r=100, T=2, alpha=0.1, K=32, Adam"] = (
        lambda to, data=data: attention.StudentLoss(to(data.X), to(data.y), data.r),
        (np.random.default_rng(3).standard_normal((32, 200, data.r)),),
        gd.Adam(0.1),
    )
    return out


def backends():
    """name -> (xp, device, synchronise) for NumPy and for the importable GPU libraries; name -> reason otherwise."""
    xp, dev = backend.resolve("cpu")
    found = {
        "NumPy, 1 thread": (xp, dev, lambda: None),
        f"NumPy, {os.cpu_count()} threads": (xp, dev, lambda: None),
    }
    try:
        import torch
    except ImportError:
        found["PyTorch CUDA"] = "PyTorch is not installed"
    else:
        if torch.cuda.is_available():
            import array_api_compat.torch as xt

            found["PyTorch CUDA"] = (xt, torch.device("cuda"), torch.cuda.synchronize)
        else:
            found["PyTorch CUDA"] = f"PyTorch {torch.__version__} sees no CUDA device"
    try:
        import cupy
    except ImportError:
        found["CuPy"] = "CuPy is not installed"
    else:
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except RuntimeError as exc:  # CuPy's CUDARuntimeError (a RuntimeError) without a driver
            count, why = 0, type(exc).__name__
        else:
            why = "no GPU"
        if count > 0:
            import array_api_compat.cupy as xc

            found["CuPy"] = (xc, cupy.cuda.Device(0), lambda: cupy.cuda.get_current_stream().synchronize())
        else:
            found["CuPy"] = f"CuPy sees no GPU ({why})"
    return found


def ms_per_step(build, params0, optimiser, xp, dev, sync, dtype, steps, repeat):
    """Best time of ``repeat`` blocks of ``steps`` steps (after one warm-up block), in ms per step."""

    def to(x, cast=True):
        return backend.asarray(x, xp, dev, dtype if cast else None)

    objective = build(to)
    params = tuple(to(p) for p in params0)
    state = tuple(optimiser.init(params))
    best, t = math.inf, 0
    for block in range(repeat + 1):
        sync()
        t0 = time.perf_counter()
        for _ in range(steps):
            loss, grads = objective.loss_and_gradient(params)
            params, state = optimiser.step(params, grads, state, t)
            backend.to_numpy(loss)  # the K losses to the host, as run_gd does every step (a synchronisation)
            t += 1
        sync()
        if block:  # block 0 is the warm-up
            best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e3


def gpu_name():
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except ImportError:
        pass
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except (ImportError, RuntimeError):  # no CuPy, or no GPU (CuPy's CUDARuntimeError)
        return None


def versions():
    out = {"numpy": np.__version__}
    for name in ("torch", "cupy"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            pass
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5, help="steps per timed block (default 5)")
    parser.add_argument("--repeat", type=int, default=3, help="timed blocks, the best is kept (default 3)")
    args = parser.parse_args(argv)
    found = backends()
    for name, what in found.items():
        if isinstance(what, str):
            print(f"skipped {name}: {what}")
    rows = []
    print(
        f"\nms per full-batch step (loss + gradient + optimiser step + K losses to the host), best of "
        f"{args.repeat} x {args.steps} steps\n"
    )
    print("| problem | dtype | backend | ms/step | vs NumPy 1 thread |")
    print("|---|---|---|---:|---:|")
    for problem, (build, params0, optimiser) in problems().items():
        for dtype in (np.float64, np.float32):
            base = None
            for name, what in found.items():
                if isinstance(what, str):
                    continue
                xp, dev, sync = what
                with threadpool_limits(1 if name == "NumPy, 1 thread" else None):
                    ms = ms_per_step(build, params0, optimiser, xp, dev, sync, dtype, args.steps, args.repeat)
                base = ms if base is None else base
                rows.append(
                    {"problem": problem, "dtype": np.dtype(dtype).name, "backend": name, "ms_per_step": ms}
                )
                print(
                    f"| {problem} | {np.dtype(dtype).name} | {name} | {ms:.2f} | {base / ms:.1f}x |",
                    flush=True,
                )
    print(
        f"\nThe authors' BSR protocol ({PROTOCOL_STEPS:.0e} steps of 64 initialisations per alpha, one batched "
        f"run), projected from (i):"
    )
    for row in rows:
        if row["problem"].startswith("(i) "):
            seconds = PROTOCOL_STEPS * row["ms_per_step"] / 1e3
            row["bsr_protocol_s_per_alpha"] = seconds
            print(f"- {row['backend']}, {row['dtype']}: {seconds:.0f} s per alpha ({seconds / 3600:.2f} h)")
    machine = {
        "cpu_count": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "platform": platform.platform(),
        "gpu": gpu_name(),
        "versions": versions(),
        "skipped": {name: what for name, what in found.items() if isinstance(what, str)},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps({"machine": machine, "steps": args.steps, "repeat": args.repeat, "rows": rows}, indent=1)
        + "\n"
    )
    print(f"\nwrote {OUT.relative_to(OUT.parents[2])}")


if __name__ == "__main__":
    main()
