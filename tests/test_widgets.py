"""The explorers' outputs: the static explorer carries its HTML player (website) and a printed frame (PDF); the live
explorer's text form says it needs a kernel, whole (ipywidgets cuts a widget's text form at 110 characters)."""

from __future__ import annotations

import base64

import matplotlib
import pytest

matplotlib.use("Agg")

from solvable import widgets  # noqa: E402
from solvable.errors import InvalidParameterError  # noqa: E402


def draw_line(ax, slope):
    ax.plot([0, 1], [0, slope])


def test_static_explorer_carries_the_player_and_a_printed_frame():
    explorer = widgets.static_slider(draw_line, [0.5, 1.0, 2.0], figsize=(2, 1.5))
    bundle = explorer._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert "anim-slider" in bundle["text/html"] or "<input" in bundle["text/html"]
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert explorer.frames == 3 and explorer.shown == 1  # the middle frame by default
    assert "3 frames" in bundle["text/plain"] and "frame 2" in bundle["text/plain"]


def test_printed_frame_is_the_one_asked_for():
    first = widgets.static_slider(draw_line, [0.5, 2.0], figsize=(2, 1.5), printed_frame=0)
    last = widgets.static_slider(draw_line, [0.5, 2.0], figsize=(2, 1.5), printed_frame=1)
    assert first.shown == 0 and last.shown == 1 and first.png != last.png


@pytest.mark.parametrize("bad", [-1, 2, 1.0, True, "0"])
def test_printed_frame_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match="printed_frame"):
        widgets.static_slider(draw_line, [0.5, 2.0], printed_frame=bad)


def test_a_static_explorer_needs_a_frame():
    with pytest.raises(ValueError, match="values"):
        widgets.static_slider(draw_line, [])


def test_live_explorer_says_it_needs_a_kernel_in_full():
    ipywidgets = pytest.importorskip("ipywidgets")
    explorer = widgets.interactive_explorer(
        lambda ax, a: ax.plot([0, a]), a=ipywidgets.FloatSlider(value=1.0)
    )
    text = explorer._repr_mimebundle_()["text/plain"]
    assert text == widgets.LIVE_EXPLORER_TEXT and len(text) <= 110


def test_live_explorer_sliders_update_on_release():
    """A redraw takes about a second (chapters 3 and 5): a slider that updated while dragged would queue redraws."""
    ipywidgets = pytest.importorskip("ipywidgets")
    controls = dict(
        a=ipywidgets.FloatSlider(value=1.0),
        n=ipywidgets.IntSlider(value=2, continuous_update=True),
        r=ipywidgets.FloatRangeSlider(value=(0.0, 1.0)),
        s=ipywidgets.SelectionSlider(options=["x", "y"]),
        kind=ipywidgets.Dropdown(options=["p", "q"]),
    )
    widgets.interactive_explorer(lambda ax, **values: ax.plot([0, 1]), **controls)
    sliders = [c for c in controls.values() if c.has_trait("continuous_update")]
    assert len(sliders) == 4 and not any(c.continuous_update for c in sliders)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(draw="draw_line"), "draw"),
        (dict(values="abc"), "values"),
        (dict(values=[]), "values"),
        (dict(values=range(201)), "values"),
        (dict(figsize=(7.0,)), "figsize"),
        (dict(figsize=(7.0, 0.0)), "figsize"),
        (dict(interval=0), "interval"),
        (dict(interval=1.5), "interval"),
        (dict(printed_frame=True), "printed_frame"),
    ],
)
def test_static_explorer_arguments_are_declared(kwargs, name):
    """Each argument is checked before a frame is drawn (interval 0 divided by zero in matplotlib, 1.5 passed)."""
    call = dict(draw=draw_line, values=[1.0, 2.0]) | kwargs
    with pytest.raises(InvalidParameterError, match=name):
        widgets.static_slider(**call)


def test_a_live_explorer_control_must_be_a_widget():
    with pytest.raises(InvalidParameterError, match="slope"):
        widgets.interactive_explorer(draw_line, slope=1.0)  # was an AttributeError (has_trait) from inside
