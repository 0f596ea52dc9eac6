"""Figure helpers shared by the chapters: one look for theory curves, experiments and thresholds.

Theory is a line, an algorithm at finite size is a marker with error bars, a threshold is a dotted
vertical line. Figures get an opaque white background so that they stay legible in the website's
dark mode. Nothing in the science modules imports this one.

Every figure is drawn by :func:`new_axes`, which sets its text size from its width: the PDF prints a
figure wider than the text block shrunk to the text block, so a wide multi-panel figure needs larger
type to print, legends included, at :data:`MIN_PRINTED_PT` or more (:func:`font_size`).
"""

from __future__ import annotations

import math
import numbers

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from .domains import Domain, array, declare, flag, instance, integer, optional, real
from .errors import InvalidParameterError
from .errors import warn as warn_user
from .validation import check_int

__all__ = [
    "BASE_PT",
    "GREY_LEVEL_GAP",
    "MIN_PRINTED_PT",
    "PHASE_STYLE",
    "PRINT_WIDTH_IN",
    "experiment_points",
    "finish",
    "font_size",
    "greyscale_twins",
    "new_axes",
    "phase_map",
    "phase_map_rows",
    "printed_size",
    "spectrum_histogram",
    "sweep_points",
    "theory_curve",
    "threshold_line",
    "use_course_style",
]


# --------------------------------------------------------------------------- the domains of the parameters
def _check_text(name, value):
    if not isinstance(value, str):
        raise InvalidParameterError(f"{name} must be a string, got {type(value).__name__} {value!r:.60}")
    return value


#: A size in inches (or in points, for text): a finite number > 0.
_LENGTH = real(0.0, low_open=True)
#: The width or height of one panel, in inches (a figure larger than 100 in could not be drawn: Agg stops at
#: 2**16 pixels).
_INCHES = real(0.0, 100.0, low_open=True)
#: An axes to draw on; None is the current axes.
_AXES = optional(instance(Axes, "a matplotlib.axes.Axes"), "the current axes")
#: A legend entry, an axis label or a title.
_TEXT = Domain("a string", _check_text, "any")
_LABEL = optional(_TEXT, "no legend entry")
#: The points of a curve or of measurements: NaN is a gap (a curve undefined there, a bin without a measurement).
_POINTS = array(finite=False, nonempty=False)

#: The most bins a histogram draws (more would allocate without bound, and print as a grey block).
_MAX_BINS = 10**6
#: The most rows or columns of axes in one figure.
_MAX_PANELS = 64
_ESTIMATORS = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


def _check_bins(name, value):
    if isinstance(value, str):
        if value not in _ESTIMATORS:
            raise InvalidParameterError(
                f"{name} must be an integer in [1, {_MAX_BINS}], an increasing 1-d array of "
                f"bin edges or one of {', '.join(map(repr, _ESTIMATORS))}; got {value!r:.60}"
            )
        return value
    if isinstance(value, (numbers.Integral, np.integer)) or (
        isinstance(value, np.ndarray) and value.ndim == 0
    ):
        k = check_int(name, value, minimum=1)
        if k > _MAX_BINS:
            raise InvalidParameterError(f"{name} must be an integer in [1, {_MAX_BINS}], got {k}")
        return k
    edges = array(1)(name, value)
    if edges.size < 2 or not np.all(np.diff(edges) > 0):
        raise InvalidParameterError(
            f"{name} must be at least two strictly increasing bin edges, got {edges!r:.60}"
        )
    return edges


_BINS = Domain(
    f"an integer in [1, {_MAX_BINS}], an increasing 1-d array of bin edges or the name of one of "
    "numpy.histogram_bin_edges' estimators",
    _check_bins,
    "int",
    (1, _MAX_BINS, False, False),
)


def _check_sweep(name, value):
    if isinstance(value, type) or not all(hasattr(value, field) for field in ("values", "mean", "sem")):
        raise InvalidParameterError(
            f"{name} must be a solvable.experiments.Sweep (values, mean and sem), got "
            f"{type(value).__name__} {value!r:.60}"
        )
    return value


_SWEEP = Domain("a solvable.experiments.Sweep (an object with values, mean and sem)", _check_sweep, "object")


def _check_rows(name, value):
    keys = ("model", "chapter", "ratio", "goal", "thresholds", "phases", "markers")
    if (
        isinstance(value, (str, bytes))
        or not isinstance(value, (list, tuple))
        or not value
        or not all(isinstance(row, dict) and all(k in row for k in keys) for row in value)
    ):
        raise InvalidParameterError(
            f"{name} must be a non-empty list of dicts with the keys {', '.join(keys)} (as "
            f"phase_map_rows returns them), got {type(value).__name__} {value!r:.60}"
        )
    for row in value:
        for start, end, phase in row["phases"]:
            if phase not in PHASE_STYLE:
                raise InvalidParameterError(
                    f"{name}: phase {phase!r} of {row['model']!r} is not one of "
                    f"{', '.join(map(repr, PHASE_STYLE))}"
                )
        for threshold, x in row["thresholds"].items():
            if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x) or x <= 0:
                raise InvalidParameterError(
                    f"{name}: threshold {threshold} of {row['model']!r} must be a finite "
                    f"number > 0 (the axis is logarithmic), got {x!r:.60}"
                )
    return value


_ROWS = optional(
    Domain("a non-empty list of dicts as phase_map_rows returns them", _check_rows, "any"), "phase_map_rows()"
)


def _check_range(name, value):
    try:
        low, high = value
        low, high = _LENGTH(name, low), _LENGTH(name, high)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be a pair (low, high) of finite numbers with 0 < low < high, got {value!r:.60}"
        ) from None
    if not low < high:
        raise InvalidParameterError(f"{name} must be a pair (low, high) with low < high, got {value!r:.60}")
    return (low, high)


_RANGE = Domain("a pair (low, high) of finite numbers with 0 < low < high", _check_range, "any")


#: Width in inches that a figure's type is sized for: A4 paper (8.27 in) less two margins of 1 in. The PDF's text
#: block is wider (margins of 0.85 in, ``_config.yml``), so a figure shrunk to it prints its type slightly larger.
PRINT_WIDTH_IN = 8.27 - 2.0
#: Smallest size, in points, of any text of a figure (tick labels, legends, titles) as printed in the PDF.
MIN_PRINTED_PT = 9.0
#: Base text size in points of a figure narrow enough to print at its own size.
BASE_PT = 11.0
# The PDF includes a notebook figure at its pixel size, one pixel being 0.75 bp (Sphinx's \sphinxpxdimen), at
# figure.dpi = 100 pixels per inch: 1 in of figure is 75 bp = 75/72 in of paper, until the text block caps it.
_PAPER_PER_FIGURE_IN = 75 / 72
# A notebook saves a figure with a tight bounding box padded by savefig.pad_inches (0.1 in) on each side.
_SAVED_PAD_IN = 2 * 0.1


@declare(points=_LENGTH, width=_LENGTH)
def printed_size(points: float, width: float) -> float:
    """The size in points at which text of ``points`` points prints in a figure ``width`` inches wide.

    Parameters
    ----------
    points : float
        Text size in the figure, in points.
    width : float
        Width of the whole figure, in inches.

    Returns
    -------
    float
        ``points * min(75/72, PRINT_WIDTH_IN / width)``: the PDF includes a figure at 75/72 of its size,
        or shrunk to the text block if that is narrower.

    Raises
    ------
    TypeError
        If ``width`` is not a real number.
    ValueError
        If ``width`` is not positive and finite.
    """
    return points * min(_PAPER_PER_FIGURE_IN, PRINT_WIDTH_IN / width)


@declare(width=_LENGTH)
def font_size(width: float) -> float:
    """The text size, in points, of a figure ``width`` inches wide: :data:`BASE_PT`, or larger for a figure
    wider than the text block, so that it prints at :data:`MIN_PRINTED_PT` or more.

    Parameters
    ----------
    width : float
        Width of the whole figure, in inches.

    Returns
    -------
    float
        ``max(BASE_PT, MIN_PRINTED_PT * (width + 0.2) / PRINT_WIDTH_IN)``, rounded up to half a point: the
        notebook saves the figure with a margin of 0.1 in on each side.

    Raises
    ------
    TypeError
        If ``width`` is not a real number.
    ValueError
        If ``width`` is not positive and finite.
    """
    return max(BASE_PT, np.ceil(2 * MIN_PRINTED_PT * (width + _SAVED_PAD_IN) / PRINT_WIDTH_IN) / 2)


def _text_sizes(points: float) -> dict:
    """Every text of a figure at one size (a legend as large as the tick labels), titles one point larger."""
    return {
        "font.size": points,
        "legend.fontsize": points,
        "legend.title_fontsize": points,
        "xtick.labelsize": points,
        "ytick.labelsize": points,
        "axes.labelsize": points,
        "axes.titlesize": points + 1,
        "figure.titlesize": points + 1,
    }


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
    "lines.linewidth": 2.0,
    **_text_sizes(BASE_PT),
}


@declare()
def use_course_style() -> None:
    """Apply the course's matplotlib style: opaque white figures, light grid, no top or right spines.

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


@declare(ncols=integer(1, _MAX_PANELS), nrows=integer(1, _MAX_PANELS), width=_INCHES, height=_INCHES)
def new_axes(ncols: int = 1, nrows: int = 1, width: float = 6.4, height: float = 4.0, **kwargs):
    """A figure with ``nrows x ncols`` axes in the course style.

    Parameters
    ----------
    ncols : int, default 1
        Number of columns of axes.
    nrows : int, default 1
        Number of rows of axes.
    width : float, default 6.4
        Width of one panel, in inches.
    height : float, default 4.0
        Height of one panel, in inches.
    **kwargs
        Passed to ``matplotlib.pyplot.subplots`` (e.g. ``sharey=True``).

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure, with a constrained layout.
    axes : matplotlib.axes.Axes or array of Axes
        One axes, or an array of them, as ``matplotlib.pyplot.subplots`` returns.

    Raises
    ------
    InvalidParameterError
        If ``ncols`` or ``nrows`` is not an integer in ``[1, 64]``, or ``width`` or ``height`` not a number in
        ``(0, 100]``.

    Notes
    -----
    The text of the figure (and of what is drawn on it until the next call) is set to
    :func:`font_size` of its width ``width * ncols``, so that it prints at :data:`MIN_PRINTED_PT` or more.
    """
    use_course_style()
    mpl.rcParams.update(_text_sizes(font_size(width * ncols)))
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), layout="constrained", **kwargs
    )
    return fig, axes


@declare(x=_POINTS, y=_POINTS, label=_LABEL, ax=_AXES)
def theory_curve(x, y, label=None, ax=None, **kwargs):
    """A theory prediction: a solid line.

    Parameters
    ----------
    x, y : array_like
        The curve's points.
    label : str, optional
        Legend entry.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the current axes).
    **kwargs
        Passed to ``Axes.plot`` (e.g. ``color``).

    Returns
    -------
    matplotlib.lines.Line2D
        The line.
    """
    ax = ax if ax is not None else plt.gca()
    return ax.plot(np.asarray(x), np.asarray(y), label=label, **kwargs)[0]


@declare(x=_POINTS, y=_POINTS, yerr=optional(_POINTS, "no error bars"), label=_LABEL, ax=_AXES)
def experiment_points(x, y, yerr=None, label=None, ax=None, **kwargs):
    """Finite-size measurements: markers, with error bars if ``yerr`` is given.

    Parameters
    ----------
    x, y : array_like
        The measured points (e.g. ``Sweep.values`` and ``Sweep.mean``).
    yerr : array_like, optional
        Error bars (e.g. ``Sweep.sem``).
    label : str, optional
        Legend entry.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the current axes).
    **kwargs
        Passed to ``Axes.errorbar`` (defaults: circles of size 5, caps of size 3).

    Returns
    -------
    matplotlib.container.ErrorbarContainer
        The markers and error bars.
    """
    ax = ax if ax is not None else plt.gca()
    if "marker" in kwargs:  # a marker of one's own, still without a line between the points
        kwargs.setdefault("linestyle", "none")
    else:
        kwargs.setdefault("fmt", "o")
    kwargs.setdefault("markersize", 5)
    kwargs.setdefault("capsize", 3)
    return ax.errorbar(np.asarray(x), np.asarray(y), yerr=yerr, label=label, **kwargs)


@declare(sweep=_SWEEP, label=_LABEL, ax=_AXES)
def sweep_points(sweep, label=None, ax=None, **kwargs):
    """A :class:`~solvable.experiments.Sweep` as points: the mean over seeds with its standard error.

    Parameters
    ----------
    sweep : solvable.experiments.Sweep
        The runs to summarise.
    label : str, optional
        Legend entry.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the current axes).
    **kwargs
        Passed to :func:`experiment_points`.

    Returns
    -------
    matplotlib.container.ErrorbarContainer
        The markers and error bars.

    Raises
    ------
    TypeError
        If ``sweep`` has no ``values``, ``mean`` and ``sem``.
    """
    return experiment_points(sweep.values, sweep.mean, sweep.sem, label=label, ax=ax, **kwargs)


@declare(x=real(), label=_LABEL, ax=_AXES)
def threshold_line(x, label=None, ax=None, **kwargs):
    """A threshold: a dotted vertical line.

    Parameters
    ----------
    x : float
        Position of the threshold (e.g. ``alpha_IT``).
    label : str, optional
        Legend entry.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the current axes).
    **kwargs
        Passed to ``Axes.axvline`` (defaults: dotted, dark grey, width 1.5).

    Returns
    -------
    matplotlib.lines.Line2D
        The line.
    """
    ax = ax if ax is not None else plt.gca()
    kwargs.setdefault("linestyle", ":")
    kwargs.setdefault("color", "0.3")
    kwargs.setdefault("linewidth", 1.5)
    return ax.axvline(x, label=label, **kwargs)


@declare(values=array(), total=optional(integer(1), "len(values)"), bins=_BINS, ax=_AXES)
def spectrum_histogram(values, total=None, bins=60, ax=None, **kwargs):
    """Finite-size eigenvalues (or singular values): a light histogram on the scale of the limiting law.

    The histogram is normalised as a density of ``total`` values, so that with ``total`` larger than
    ``len(values)`` the bars carry mass ``len(values) / total``: e.g. the non-zero eigenvalues of a
    rank-deficient Wishart matrix against the continuous part of the Marchenko-Pastur law.

    Parameters
    ----------
    values : array_like
        The eigenvalues or singular values (flattened).
    total : int, optional
        Number of values the density is normalised by (default ``len(values)``).
    bins : int or sequence, default 60
        Bins, as ``numpy.histogram_bin_edges`` takes them.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the current axes).
    **kwargs
        Passed to ``Axes.hist`` (default colour light grey).

    Returns
    -------
    ndarray
        The bin edges.

    Raises
    ------
    InvalidParameterError
        If ``values`` is not a non-empty array of finite numbers, ``total`` is below ``len(values)``, or ``bins`` is
        neither an integer in ``[1, 10**6]``, nor increasing bin edges, nor the name of an estimator.

    References
    ----------
    Chapter 2, Sec. "Three spectral laws".
    """
    ax = ax if ax is not None else plt.gca()
    values = values.ravel()
    total = values.size if total is None else total
    if total < values.size:
        raise InvalidParameterError(
            f"total must be >= len(values) = {values.size} (the number of values the density "
            f"is normalised by), got {total}"
        )
    edges = np.histogram_bin_edges(values, bins=bins)
    kwargs.setdefault("color", "0.75")
    ax.hist(values, bins=edges, weights=np.full(values.size, 1.0 / (total * np.diff(edges)[0])), **kwargs)
    return edges


@declare(
    ax=instance(Axes, "a matplotlib.axes.Axes"),
    xlabel=optional(_TEXT, "unchanged"),
    ylabel=optional(_TEXT, "unchanged"),
    title=optional(_TEXT, "unchanged"),
    legend=flag(),
)
def finish(ax, xlabel=None, ylabel=None, title=None, legend=True, **legend_kwargs) -> None:
    """Label the axes and add a legend.

    Returns nothing on purpose: as the last line of a notebook cell it prints nothing, also under nbval
    (which does not honour a trailing ``;``).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to finish.
    xlabel, ylabel, title : str, optional
        Axis labels and title (left unchanged when not given).
    legend : bool, default True
        Whether to add a legend.
    **legend_kwargs
        Passed to ``Axes.legend`` (e.g. ``loc``, ``ncol``); its text size is the figure's (:func:`new_axes`).
    """
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(**legend_kwargs)
    for first, second in greyscale_twins(ax):
        warn_user(
            f"the legend entries {first!r} and {second!r} differ by colour only, so a greyscale print "
            "shows them alike: give one its own line style, marker or hatch",
            UserWarning,
        )


#: Two colours closer than this in grey level (0 black, 1 white) print alike in greyscale.
GREY_LEVEL_GAP = 0.25


def _grey(color) -> float:
    r, g, b, _ = mpl.colors.to_rgba(color)
    return 0.299 * r + 0.587 * g + 0.114 * b


def _look(handle):
    """What a legend entry looks like without its colour (its shape), and its grey level; None if unknown."""
    if isinstance(handle, mpl.container.ErrorbarContainer):
        handle = handle[0] if handle[0] is not None else (handle[2][0] if handle[2] else None)
    if isinstance(handle, mpl.container.Container):
        handle = handle[0] if len(handle) else None
    if isinstance(handle, mpl.lines.Line2D):
        style = handle.get_linestyle() if handle.get_linestyle() not in ("None", "", " ") else None
        marker = handle.get_marker() if handle.get_marker() not in ("None", "", " ", None) else None
        colour = handle.get_color() if style else handle.get_markerfacecolor()
        if colour in ("none", "None"):
            colour = handle.get_markeredgecolor()
        return (
            "line",
            style,
            str(marker) if marker is not None else None,
            round(handle.get_linewidth(), 1),
        ), _grey(colour)
    if isinstance(handle, mpl.patches.Patch):
        return ("patch", handle.get_hatch(), handle.get_linestyle()), _grey(handle.get_facecolor())
    if isinstance(handle, mpl.collections.Collection):
        colours = handle.get_facecolor()
        if len(colours) == 0:
            colours = handle.get_edgecolor()
        if len(colours) == 0:
            return None
        kind = type(handle).__name__
        paths = handle.get_paths()
        shape = (
            tuple(np.round(paths[0].vertices, 2).ravel()) if len(paths) and kind == "PathCollection" else None
        )
        return (kind, handle.get_hatch(), shape), _grey(colours[0])
    return None


@declare(ax=instance(Axes, "a matplotlib.axes.Axes"))
def greyscale_twins(ax) -> list[tuple[str, str]]:
    """The pairs of legend entries of ``ax`` that a greyscale print cannot tell apart.

    Two entries are twins when they have the same shape (line style, marker and width of a line; hatch of a patch;
    marker of a scatter) and grey levels closer than :data:`GREY_LEVEL_GAP`: they differ by colour only.
    :func:`finish` warns about each pair, so that a chapter whose figure would lose its meaning in a black-and-white
    copy prints a warning (and fails its notebook test).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes whose legend entries (``ax.get_legend_handles_labels()``) are compared.

    Returns
    -------
    list of (str, str)
        The labels of each pair of twins, in legend order.
    """
    handles, labels = ax.get_legend_handles_labels()
    looks = [(label, _look(handle)) for handle, label in zip(handles, labels)]
    looks = [(label, look) for label, look in looks if look is not None]
    return [
        (a, b)
        for i, (a, (shape_a, grey_a)) in enumerate(looks)
        for b, (shape_b, grey_b) in looks[i + 1 :]
        if shape_a == shape_b and abs(grey_a - grey_b) < GREY_LEVEL_GAP
    ]


#: The phases of the classic picture, as :func:`phase_map` draws them: fill colour and hatch (legible in greyscale).
PHASE_STYLE = {
    "impossible": {"facecolor": "0.82", "hatch": "///", "edgecolor": "0.45"},
    "hard": {"facecolor": "#f2b56b", "hatch": "xx", "edgecolor": "#8a5a1c"},
    "easy": {"facecolor": "#9fd39a", "hatch": "", "edgecolor": "#2f6b2a"},
}


@declare()
def phase_map_rows() -> list[dict]:
    """The five models of the book on the classic phase picture, with the thresholds the chapters compute.

    Each row is one model at the parameters of its chapter's phase figure, on its own sample ratio: where Bayes-optimal
    learning is impossible (to the precision named), hard (possible, but no known efficient algorithm gets there)
    and easy (the chapter's message-passing algorithm gets there). Every number is the library's.

    Returns
    -------
    list of dict
        One per model, top to bottom: ``model``, ``chapter`` (1-5), ``ratio`` (the sample ratio, in words),
        ``goal`` ("perfect recovery", "weak recovery"), ``thresholds`` (name -> value: ``alpha_IT`` and
        ``alpha_alg``, ``alpha_PR``, the convex ``alpha_MNNE``, ``alpha_c``), ``phases`` (``(start, end, phase)``
        with phase one of :data:`PHASE_STYLE`; ``end`` None: unbounded) and ``markers`` (name -> value, thresholds
        drawn as a marker: a convex relaxation's, which is not a phase boundary of the optimal algorithm).

    References
    ----------
    Chapter 1, Sec. "The binary perceptron: a first-order transition and a hard phase"; Chapter 3, Sec. "Perfect
    recovery, and the price of convex relaxation"; Chapter 4, Sec. "The Bayes-optimal error"; Chapter 5, Secs.
    "Why it is solvable: matrix sensing with T(T+1)/2 indices" and "Low-rank attention: the sequence multi-index
    model"; Zdeborova and Krzakala, Adv. Phys. 65, 453 (2016), for the picture.
    """
    from . import attention, bsr, glm, quadratic, smi

    perceptron = glm.perfect_learning_thresholds("rademacher", "sign")  # the chapter's binary perceptron
    alpha_it, alpha_alg = float(perceptron.alpha_it), float(perceptron.alpha_alg)
    beta, rho_bsr = 1.0, 0.5
    bsr_pr, bsr_mnne = (
        bsr.perfect_recovery_threshold(beta, rho_bsr),
        bsr.nuclear_norm_threshold(beta, rho_bsr),
    )
    kappa = 0.5
    qn_pr = quadratic.perfect_recovery_threshold(kappa)
    rho_aim, T = 0.5, 2
    aim_pr = attention.perfect_recovery_threshold(rho_aim, T)
    smi_c, smi_pr = smi.weak_recovery_threshold(T), smi.perfect_recovery_threshold(T)
    return [
        {
            "model": "binary perceptron",
            "chapter": 1,
            "ratio": "n/d",
            "goal": "perfect recovery",
            "thresholds": {"alpha_IT": alpha_it, "alpha_alg": alpha_alg},
            "markers": {},
            "phases": [
                (0.0, alpha_it, "impossible"),
                (alpha_it, alpha_alg, "hard"),
                (alpha_alg, None, "easy"),
            ],
        },
        {
            "model": f"bilinear sequence regression, $\\beta = {beta:g}$, $\\rho = {rho_bsr:g}$",
            "chapter": 3,
            "ratio": "n/(dL)",
            "goal": "perfect recovery",
            "thresholds": {"alpha_PR": bsr_pr, "alpha_MNNE": bsr_mnne},
            "markers": {"alpha_MNNE": bsr_mnne},
            "phases": [(0.0, bsr_pr, "impossible"), (bsr_pr, None, "easy")],
        },
        {
            "model": f"quadratic network, $\\kappa = {kappa:g}$",
            "chapter": 4,
            "ratio": "n/d^2",
            "goal": "perfect recovery",
            "thresholds": {"alpha_PR": qn_pr},
            "markers": {},
            "phases": [(0.0, qn_pr, "impossible"), (qn_pr, None, "easy")],
        },
        {
            "model": f"tied attention layer, $\\rho = {rho_aim:g}$, $T = {T}$",
            "chapter": 5,
            "ratio": "n/d^2",
            "goal": "perfect recovery",
            "thresholds": {"alpha_PR": aim_pr},
            "markers": {},
            "phases": [(0.0, aim_pr, "impossible"), (aim_pr, None, "easy")],
        },
        {
            "model": f"sequence multi-index model, $T = {T}$",
            "chapter": 5,
            "ratio": "n/d",
            "goal": "weak recovery",
            "thresholds": {"alpha_c": smi_c, "alpha_PR": smi_pr},
            "markers": {"alpha_PR": smi_pr},
            "phases": [(0.0, smi_c, "impossible"), (smi_c, None, "easy")],
        },
    ]


_SYMBOL = {
    "alpha_IT": r"$\alpha_{\rm IT}$",
    "alpha_alg": r"$\alpha_{\rm alg}$",
    "alpha_PR": r"$\alpha_{\rm PR}$",
    "alpha_MNNE": r"$\alpha_{\rm MNNE}$",
    "alpha_c": r"$\alpha_c$",
}


@declare(rows=_ROWS, ax=_AXES, alpha_range=_RANGE)
def phase_map(rows=None, ax=None, alpha_range=(0.05, 3.0)):
    """Draw the classic phase picture of :func:`phase_map_rows`: one band per model, on a logarithmic sample ratio.

    Impossible, hard and easy phases are filled as in :data:`PHASE_STYLE` (grey hatched, orange cross-hatched,
    green plain: distinguishable in greyscale); each phase boundary is a black tick labelled under the band with its
    symbol and value (3 decimals), a threshold of another kind (a convex relaxation's, or perfect recovery where the
    band is about weak recovery) a white diamond, labelled likewise.

    Parameters
    ----------
    rows : list of dict, optional
        As :func:`phase_map_rows` returns them (default: its rows).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure of :func:`new_axes`, 8 x 5.6 in).
    alpha_range : tuple of float, default (0.05, 3.0)
        Limits of the sample-ratio axis.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure.
    labels : list of (str, str, float)
        ``(model, threshold name, value)`` of every threshold labelled on the figure, in drawing order: the
        numbers printed on it.
    """
    from matplotlib.patches import Patch

    rows = phase_map_rows() if rows is None else rows
    if ax is None:
        fig, ax = new_axes(width=8.0, height=5.6)
    else:
        fig = ax.figure
    low, high = alpha_range
    labels = []
    for i, row in enumerate(rows):
        y = len(rows) - 1 - i
        for start, end, phase in row["phases"]:
            start, end = max(start, low), high if end is None else min(end, high)
            if end > start:
                ax.barh(y, end - start, left=start, height=0.34, linewidth=0.8, **PHASE_STYLE[phase])
        ax.text(
            low * 1.03,
            y + 0.22,
            f"Ch. {row['chapter']}: {row['model']}; {row['goal']}, $\\alpha = {row['ratio']}$",
            ha="left",
            va="bottom",
        )
        ordered = sorted(row["thresholds"].items(), key=lambda item: item[1])
        for k, (name, value) in enumerate(ordered):
            if name in row["markers"]:
                ax.plot(
                    [value],
                    [y],
                    marker="D",
                    markersize=7,
                    markerfacecolor="white",
                    markeredgecolor="black",
                    linestyle="none",
                    zorder=3,
                )
            else:
                ax.plot([value, value], [y - 0.19, y + 0.19], color="black", linewidth=1.8, zorder=3)
            # two labels close on the log axis: the first ends at its tick, the second starts at its own
            close_before = k > 0 and np.log(value / ordered[k - 1][1]) < 0.8
            close_after = k + 1 < len(ordered) and np.log(ordered[k + 1][1] / value) < 0.8
            ha = "left" if close_before else "right" if close_after else "center"
            ax.text(value, y - 0.21, f"{_SYMBOL.get(name, name)} = {value:.3f}", ha=ha, va="top")
            labels.append((row["model"], name, value))
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    ax.set_ylim(-0.75, len(rows) - 0.45)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.grid(False)
    ax.set_xlabel(r"sample ratio $\alpha$ (each model's own, named above its band)")
    handles = [Patch(label=phase, **PHASE_STYLE[phase]) for phase in ("impossible", "hard", "easy")]
    handles.append(
        ax.plot(
            [],
            [],
            marker="D",
            markerfacecolor="white",
            markeredgecolor="black",
            linestyle="none",
            label="other threshold",
        )[0]
    )
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, frameon=False)
    return fig, labels
