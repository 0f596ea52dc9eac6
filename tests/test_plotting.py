"""Figure helpers: the histogram of a spectrum is drawn on the scale of its limiting law."""

import matplotlib.pyplot as plt
import numpy as np

from solvable import plotting as plot


def test_spectrum_histogram_carries_the_fraction_of_values_it_shows():
    fig, ax = plot.new_axes()
    values = np.random.default_rng(0).uniform(0, 2, 300)
    edges = plot.spectrum_histogram(values, total=600, bins=20, ax=ax)
    heights = np.array([patch.get_height() for patch in ax.patches])
    assert abs(np.sum(heights * np.diff(edges)) - 0.5) < 1e-12  # 300 of 600 values
    plt.close(fig)


# One figure style that prints (issue: legends at 9 pt or more at print width). The PDF includes a figure at its
# pixel size (75 bp per inch of figure at 100 dpi) or shrunk to the text block (plotting.PRINT_WIDTH_IN).

import io
import json
import re
from pathlib import Path

import matplotlib.text
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _code(path):
    return [
        c["source"] if isinstance(c["source"], str) else "".join(c["source"])
        for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "code"
    ]


def _figure_shapes() -> set[tuple[int, float, float]]:
    """(ncols, width, height) of every plot.new_axes call of the chapters, with the library's defaults."""
    shapes = {(1, 6.4, 4.0)}
    for path in CHAPTERS:
        for source in _code(path):
            for call in re.findall(r"new_axes\(([^)]*)\)", source):
                args = dict(re.findall(r"(ncols|width|height)\s*=\s*([\d.]+)", call))
                shapes.add(
                    (int(args.get("ncols", 1)), float(args.get("width", 6.4)), float(args.get("height", 4.0)))
                )
    return shapes


@pytest.mark.parametrize("ncols, width, height", sorted(_figure_shapes()))
def test_every_text_of_a_figure_prints_at_9_pt_or_more(ncols, width, height):
    """A figure of each shape the chapters draw, with a legend, title, labels and ticks, saved as a notebook saves it
    (tight bounding box): its smallest text prints at plotting.MIN_PRINTED_PT or more in the PDF."""
    fig, axes = plot.new_axes(ncols=ncols, width=width, height=height)
    for ax in np.atleast_1d(axes):
        plot.theory_curve([0, 1], [0, 1], "theory", ax=ax)
        plot.experiment_points([0.5], [0.5], [0.1], "GAMP", ax=ax)
        plot.finish(ax, r"$\alpha$", "error", title="a title", loc="upper left")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    from PIL import Image

    saved_width = Image.open(io.BytesIO(buffer.getvalue())).size[0] / 100
    sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip()]
    plt.close(fig)
    printed = plot.printed_size(min(sizes), saved_width)
    assert printed >= plot.MIN_PRINTED_PT, (
        f"{ncols} x {width} in: text of {min(sizes)} pt prints at {printed:.1f} pt in a {saved_width:.1f} in figure"
    )


def test_font_size_grows_with_the_width_of_the_figure():
    assert plot.font_size(6.0) == plot.BASE_PT
    for width in (8.0, 10.4, 12.6, 16.0):
        assert plot.printed_size(plot.font_size(width), width) >= plot.MIN_PRINTED_PT
    with pytest.raises(ValueError, match="width"):
        plot.font_size(0.0)
    with pytest.raises(ValueError, match="width"):
        plot.printed_size(10.0, -1.0)


#: Calls that would set a text size or make a figure outside plot.new_axes (which sizes the text from the width).
TEXT_SIZE_OVERRIDES = re.compile(
    r"\b(fontsize|labelsize|titlesize|prop)\s*=|\bsize\s*=\s*\d|"
    r"\bplt\.(subplots|figure|subplot)\(|set_size\(|\brcParams\b"
)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapters_leave_text_size_to_the_style(path):
    """The chapters draw every figure with plot.new_axes and never set a text size themselves."""
    found = [
        line.strip()
        for source in _code(path)
        for line in source.splitlines()
        if TEXT_SIZE_OVERRIDES.search(line)
    ]
    assert not found, f"{path.name}: text sizes or figures outside plot.new_axes: {found[:5]}"
    widgets = (ROOT / "lib" / "solvable" / "widgets.py").read_text(encoding="utf-8")
    assert "plt.subplots(" not in widgets, "the explorers make figures outside plot.new_axes"


REPRODUCTIONS = sorted((ROOT / "reproductions").glob("*/reproduce.py"))


@pytest.mark.parametrize("path", REPRODUCTIONS, ids=lambda p: p.parent.name)
def test_reproductions_leave_text_size_to_the_style(path):
    """The Reproductions pages' scripts, like the chapters, draw every figure with plot.new_axes and never set a text
    size themselves (their figures are printed in the PDF too)."""
    found = [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if TEXT_SIZE_OVERRIDES.search(line)
    ]
    assert not found, (
        f"{path.parent.name}/reproduce.py: text sizes or figures outside plot.new_axes: {found[:5]}"
    )


# Figures that a greyscale print keeps apart: legend entries that differ by colour only are named (and `finish`
# warns, so that a chapter drawing one prints a warning and fails its notebook test).

import warnings


def _finished_warnings(ax):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plot.finish(ax)
    return [str(w.message) for w in caught if "differ by colour only" in str(w.message)]


def test_lines_and_markers_that_differ_by_colour_only_are_twins():
    fig, ax = plot.new_axes()
    x = np.linspace(0, 1, 5)
    ax.plot(x, x, color="C0", label="GAMP")
    ax.plot(x, x**2, color="C3", label="GD")  # C0 and C3: grey levels 0.42 and 0.37
    plot.experiment_points(x, x, yerr=0.1 * x, label="d = 50", ax=ax, color="C0")
    plot.experiment_points(x, x, yerr=0.1 * x, label="d = 100", ax=ax, color="C3")
    assert plot.greyscale_twins(ax) == [("GAMP", "GD"), ("d = 50", "d = 100")]
    assert len(_finished_warnings(ax)) == 2 and "'GAMP' and 'GD'" in _finished_warnings(ax)[0]
    plt.close(fig)


def test_a_line_style_a_marker_or_a_far_grey_tells_entries_apart():
    fig, ax = plot.new_axes()
    x = np.linspace(0, 1, 5)
    ax.plot(x, x, color="C0", label="solid")
    ax.plot(x, x**2, color="C3", ls="--", label="dashed")
    ax.plot(x, x**3, color="black", label="black")  # grey 0 against 0.42
    plot.experiment_points(x, x, yerr=0.1 * x, label="circles", ax=ax, color="C0", marker="o")
    plot.experiment_points(x, x, yerr=0.1 * x, label="squares", ax=ax, color="C3", marker="s")
    ax.fill_between(x, x, x + 1, color="C0", alpha=0.3, label="band")
    ax.fill_between(x, x, x + 1, color="C3", alpha=0.3, hatch="//", label="hatched band")
    assert plot.greyscale_twins(ax) == [] and _finished_warnings(ax) == []
    plt.close(fig)


# --------------------------------------------------------------------------- declared domains
from solvable.errors import InvalidParameterError  # noqa: E402


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda ax: plot.spectrum_histogram([1.0, 2.0, 3.0], total=2, ax=ax), "total"),  # mass 3/2 was drawn
        (
            lambda ax: plot.spectrum_histogram([1.0, 2.0], total=np.nan, ax=ax),
            "total",
        ),  # NaN heights were drawn
        (lambda ax: plot.spectrum_histogram([1.0, 2.0], bins=True, ax=ax), "bins"),
        (lambda ax: plot.spectrum_histogram([1.0, 2.0], bins=10**7, ax=ax), "bins"),
        (lambda ax: plot.spectrum_histogram([1.0, 2.0], bins=[0.0, 2.0, 1.0], ax=ax), "bins"),
        (lambda ax: plot.spectrum_histogram([1.0, 2.0], bins="no-such-rule", ax=ax), "bins"),
        (
            lambda ax: plot.spectrum_histogram([1.0 + 1j, 2.0], ax=ax),
            "values",
        ),  # the imaginary part was dropped
        (lambda ax: plot.threshold_line(np.nan, ax=ax), "x"),  # drew nothing, silently
        (lambda ax: plot.threshold_line("1.0", ax=ax), "x"),
        (
            lambda ax: plot.theory_curve([0, 1], np.ma.masked_array([0, 1], [0, 1]), ax=ax),
            "y",
        ),  # mask was dropped
        (lambda ax: plot.theory_curve([0, 1], [0, 1], label=3, ax=ax), "label"),
        (lambda ax: plot.experiment_points([0, 1], [0, 1], [0.1j, 0.1], ax=ax), "yerr"),
        (lambda ax: plot.finish(ax, legend="no"), "legend"),  # "no" was read as True
        (lambda ax: plot.finish(None), "ax"),
        (lambda ax: plot.sweep_points([1.0, 2.0], ax=ax), "sweep"),
        (lambda ax: plot.phase_map([{"model": "m"}], ax=ax), "rows"),
        (lambda ax: plot.phase_map(ax=ax, alpha_range=(3.0, 0.05)), "alpha_range"),
        (lambda ax: plot.new_axes(ncols=0), "ncols"),  # was blamed on the width
        (lambda ax: plot.new_axes(height=0.0), "height"),  # a figure of no height was made
        (lambda ax: plot.printed_size(np.nan, 6.4), "points"),
    ],
)
def test_bad_arguments_are_refused_naming_the_parameter(call, name):
    fig, ax = plot.new_axes()
    with pytest.raises(InvalidParameterError, match=name):
        call(ax)
    plt.close(fig)


def test_curves_keep_their_gaps():
    """NaN in a curve or in measurements is a gap (a formula undefined there, a bin without data): accepted."""
    fig, ax = plot.new_axes()
    line = plot.theory_curve([0.0, 1.0, 2.0], [0.0, np.nan, 1.0], "curve", ax=ax)
    assert np.isnan(line.get_ydata()[1])
    plot.experiment_points([0.0, 1.0], [np.nan, 1.0], [0.1, np.nan], ax=ax)
    plt.close(fig)
