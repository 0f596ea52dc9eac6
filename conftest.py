"""Repository-wide pytest configuration.

Everything here runs when pytest imports this file (in the controller and in every pytest-xdist worker), before nbval
starts a kernel, so the kernels inherit the environment set below.

1. One BLAS/OpenMP thread per process: xdist already runs one worker per core, and oversubscribed BLAS threads make
   the run slower and its timings noisy. `setdefault` keeps any value the caller exported.

2. Matplotlib: the pytest process itself (unit tests) uses the non-interactive Agg backend. We deliberately do NOT
   export MPLBACKEND=Agg: ipykernel only selects its inline backend when MPLBACKEND is unset, so exporting Agg would make
   every nbval kernel drop the figures that the committed notebooks show (`<Figure size ... with 1 Axes>` outputs go
   missing and `plt.show()` warns), and nbval would fail on every plotting cell.

3. nbval executes cells with `store_history=False`, and IPython then does not honour a trailing `;` (nbval issue #194,
   IPython issue #14162): `plt.plot(x, y);` shows `[<Line2D at 0x...>]` under nbval only. The chapters therefore end
   plotting cells with a call that returns None (`plot.finish(...)`) rather than relying on `;`.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def pytest_configure(config):
    try:
        import matplotlib
    except ImportError:  # matplotlib is only needed by the chapters and the plotting helpers
        return
    matplotlib.use("Agg")
