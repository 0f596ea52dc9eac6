"""Figure helpers shared by the chapters: one look for theory curves, experiments and thresholds.

Theory is a line, an algorithm at finite size is a marker with error bars, a threshold is a dotted
vertical line. Figures get an opaque white background so that they stay legible in the website's
dark mode. Nothing in the science modules imports this one.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

__all__ = [
    "use_course_style",
    "new_axes",
    "theory_curve",
    "experiment_points",
    "threshold_line",
    "spectrum_histogram",
    "finish",
]

COURSE_STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.transparent": False,
    "figure.dpi": 100,
    "figure.figsize": (6.4, 4.0),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "font.size": 11,
    "lines.linewidth": 2.0,
}


def use_course_style() -> None:
    """Apply the course's matplotlib style (opaque white figures, light grid, no top/right spines).

    In a notebook, inline figures are also saved at twice their pixel size ("retina" PNGs, shown at their nominal
    size), so that they stay sharp on high-density screens and when a reader zooms in.
    """
    mpl.rcParams.update(COURSE_STYLE)
    _inline_figures_at_double_resolution()


def _inline_figures_at_double_resolution() -> None:
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: no inline figures
        return
    shell = get_ipython()
    if shell is None or "IPKernelApp" not in getattr(shell, "config", {}):
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    set_matplotlib_formats("retina")


def new_axes(ncols: int = 1, nrows: int = 1, width: float = 6.4, height: float = 4.0, **kwargs):
    """A figure with ``nrows x ncols`` axes in the course style; returns ``(fig, axes)``."""
    use_course_style()
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), layout="constrained", **kwargs)
    return fig, axes


def theory_curve(x, y, label=None, ax=None, **kwargs):
    """A theory prediction: a solid line."""
    ax = ax if ax is not None else plt.gca()
    return ax.plot(np.asarray(x), np.asarray(y), label=label, **kwargs)[0]


def experiment_points(x, y, yerr=None, label=None, ax=None, **kwargs):
    """Finite-size measurements: markers, with error bars if ``yerr`` is given."""
    ax = ax if ax is not None else plt.gca()
    kwargs.setdefault("fmt", "o")
    kwargs.setdefault("markersize", 5)
    kwargs.setdefault("capsize", 3)
    return ax.errorbar(np.asarray(x), np.asarray(y), yerr=yerr, label=label, **kwargs)


def threshold_line(x, label=None, ax=None, **kwargs):
    """A threshold: a dotted vertical line."""
    ax = ax if ax is not None else plt.gca()
    kwargs.setdefault("linestyle", ":")
    kwargs.setdefault("color", "0.3")
    kwargs.setdefault("linewidth", 1.5)
    return ax.axvline(x, label=label, **kwargs)


def spectrum_histogram(values, total=None, bins=60, ax=None, **kwargs):
    """Finite-size eigenvalues (or singular values): a light histogram normalised as a density of ``total``
    values (default ``len(values)``), so that it is drawn on the scale of the limiting law.

    With ``total`` larger than ``len(values)`` the bars carry mass ``len(values)/total``: e.g. the non-zero
    eigenvalues of a rank-deficient Wishart matrix against the continuous part of Marchenko-Pastur.
    Returns the bin edges.
    """
    ax = ax if ax is not None else plt.gca()
    values = np.asarray(values, dtype=float).ravel()
    total = values.size if total is None else total
    edges = np.histogram_bin_edges(values, bins=bins)
    kwargs.setdefault("color", "0.75")
    ax.hist(values, bins=edges, weights=np.full(values.size, 1.0 / (total * np.diff(edges)[0])), **kwargs)
    return edges


def finish(ax, xlabel=None, ylabel=None, title=None, legend=True, **legend_kwargs) -> None:
    """Label the axes and add a legend.

    Returns ``None`` on purpose: as the last line of a notebook cell it prints nothing, also under nbval
    (which does not honour a trailing ``;``).
    """
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(**legend_kwargs)
