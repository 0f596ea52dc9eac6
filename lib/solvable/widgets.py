"""Interactive explorers and their static twins.

Each chapter sweeps a parameter in two ways: a live ipywidgets explorer (Jupyter, Binder, Colab) and a
static, kernel-free version of the same sweep for the website (a matplotlib animation rendered to HTML
with its own slider; it works offline). Both call the same ``draw`` function, so they show the same
thing.

Printed (the book's PDF), neither can move: the static explorer then shows one of its frames as a PNG (its output
carries both, and each builder picks what it can render: HTML the player, LaTeX the image), and the live explorer
says in its text form that it needs a running kernel.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation

from .domains import Domain, declare, function, integer, optional, real
from .errors import InvalidParameterError
from .plotting import new_axes

__all__ = ["interactive_explorer", "static_slider", "StaticExplorer", "LIVE_EXPLORER_TEXT"]

#: The text form of a live explorer (what a notebook without a kernel, or the PDF, shows in its place). At most 110
#: characters: ipywidgets cuts a widget's text form there.
LIVE_EXPLORER_TEXT = "Live explorer: needs a Python kernel (Jupyter, Binder, Colab). The static explorer below shows the same sweep."


_INCHES = real(0.0, 100.0, low_open=True)


def _check_figsize(name, value):
    try:
        width, height = value
        return (_INCHES(name, width), _INCHES(name, height))
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be a pair (width, height) of numbers in (0, 100] (inches), got {value!r:.60}"
        ) from None


#: A figure's (width, height) in inches.
FIGSIZE = Domain("a pair (width, height) of numbers in (0, 100] (inches)", _check_figsize, "any")


def _check_frames(name, value):
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) and not hasattr(value, "__array__"):
        raise InvalidParameterError(
            f"{name} must be a non-empty sequence of values, one per frame, got "
            f"{type(value).__name__} {value!r:.60}"
        )
    values = list(value)
    if not values:
        raise InvalidParameterError(f"{name}: a static explorer needs at least one frame")
    if len(values) > MAX_FRAMES:
        raise InvalidParameterError(
            f"{name}: at most {MAX_FRAMES} frames (each is drawn and stored in the page), got {len(values)}"
        )
    return values


#: The most frames of a static explorer (each is drawn and embedded in the page as an image).
MAX_FRAMES = 200
FRAMES = Domain(f"a non-empty sequence of at most {MAX_FRAMES} values (one per frame)", _check_frames, "any")


@declare(draw=function(), figsize=FIGSIZE)
def interactive_explorer(draw: Callable, figsize=(7.0, 4.2), **controls):
    """A live explorer: ipywidgets controls that redraw a figure on every change.

    Needs a running kernel (Jupyter, Binder, Colab); its text form, shown without one, is
    :data:`LIVE_EXPLORER_TEXT`.

    Parameters
    ----------
    draw : callable
        ``draw(ax, **values)`` draws the figure for the controls' current values on a fresh axes.
    figsize : tuple of float, default (7.0, 4.2)
        Figure size in inches.
    **controls
        The ipywidgets controls, by the name ``draw`` receives their value under (e.g.
        ``alpha=FloatSlider(...)``); the first two go on the first row, the others on the second.
        Every control that can update while it is dragged (sliders, text boxes) is set to update on
        release (``continuous_update=False``): a redraw takes about a second, and intermediate values
        would queue up behind the hand.

    Returns
    -------
    ipywidgets.VBox
        The controls and the output area, to display.

    Raises
    ------
    InvalidParameterError
        If ``draw`` is not a function, ``figsize`` not a pair of sizes in (0, 100] inches, or a control is not an
        ipywidgets widget.
    """
    import ipywidgets as widgets

    for key, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise InvalidParameterError(
                f"{key} must be an ipywidgets control (a widget with a value, e.g. "
                f"FloatSlider), got {type(control).__name__} {control!r:.60}"
            )
    for control in controls.values():
        if control.has_trait("continuous_update"):
            control.continuous_update = False

    def update(**values):
        _, ax = new_axes(width=figsize[0], height=figsize[1])
        draw(ax, **values)
        plt.show()

    class LiveExplorer(widgets.VBox):
        def __repr__(self) -> str:
            return LIVE_EXPLORER_TEXT

    interactive = widgets.interactive_output(update, controls)
    return LiveExplorer(
        [widgets.HBox(list(controls.values())[:2]), widgets.HBox(list(controls.values())[2:]), interactive]
    )


class StaticExplorer:
    """A static explorer as a notebook output, built by :func:`static_slider`.

    Displayed as the animation's HTML player on the website, one frame as a PNG in print (the PDF), and a line
    of text elsewhere: each builder picks the form it can render.

    Parameters
    ----------
    html : str
        The animation's HTML player (matplotlib's ``to_jshtml``).
    png : bytes
        The printed frame, as a PNG.
    frames : int
        Number of frames.
    shown : int
        Index of the printed frame.
    """

    def __init__(self, html: str, png: bytes, frames: int, shown: int):
        self.html, self.png, self.frames, self.shown = html, png, frames, shown

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            "text/html": self.html,
            "image/png": base64.b64encode(self.png).decode("ascii"),
            "text/plain": f"Static explorer: {self.frames} frames (frame {self.shown + 1} shown in print).",
        }


@declare(
    draw=function(),
    values=FRAMES,
    figsize=FIGSIZE,
    interval=integer(1, 60_000),
    printed_frame=optional(integer(0), "the middle frame"),
)
def static_slider(
    draw: Callable,
    values: Sequence,
    figsize=(7.0, 4.2),
    interval: int = 600,
    printed_frame: int | None = None,
):
    """The static twin of a live explorer: an HTML animation with one frame per value.

    Parameters
    ----------
    draw : callable
        ``draw(ax, value)`` draws one frame on a cleared axes.
    values : sequence
        One frame per value, in order (at least one).
    figsize : tuple of float, default (7.0, 4.2)
        Figure size in inches.
    interval : int, default 600
        Milliseconds between frames when the player runs.
    printed_frame : int, optional
        Index of the frame shown in print (the PDF); the middle frame by default.

    Returns
    -------
    StaticExplorer
        Displayed as the JavaScript player with a slider (no kernel, no network) on the website and as the printed
        frame in the PDF.

    Raises
    ------
    InvalidParameterError
        If ``draw`` is not a function, ``values`` is not a non-empty sequence of at most 200 values, ``figsize`` not
        a pair of sizes in (0, 100] inches, ``interval`` not an integer in [1, 60000], or ``printed_frame`` not a
        frame index.
    """
    shown = len(values) // 2 if printed_frame is None else printed_frame
    if not shown < len(values):
        raise InvalidParameterError(
            f"printed_frame must be an integer frame index in [0, {len(values)}), got {printed_frame!r}"
        )

    fig, ax = new_axes(width=figsize[0], height=figsize[1])

    def frame(i):
        ax.clear()
        draw(ax, values[i])
        return ()

    anim = FuncAnimation(fig, frame, frames=len(values), interval=interval, blit=False)
    html = anim.to_jshtml(default_mode="once")
    frame(shown)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=150)
    plt.close(fig)
    return StaticExplorer(html, buffer.getvalue(), len(values), shown)
