"""Interactive explorers and their static twins.

Each chapter sweeps a parameter in two ways: a live ipywidgets explorer (Jupyter, Binder, Colab) and a
static, kernel-free version of the same sweep for the website (a matplotlib animation rendered to HTML
with its own slider; it works offline). Both call the same ``draw`` function, so they show the same
thing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import matplotlib.pyplot as plt
from matplotlib.animation import FuncAnimation

from .plotting import use_course_style

__all__ = ["interactive_explorer", "static_slider"]


def interactive_explorer(draw: Callable, figsize=(7.0, 4.2), **controls):
    """A live explorer: ``controls`` are ipywidgets (name -> widget); on every change a fresh figure is
    drawn by ``draw(ax, **values)`` inside an Output widget. Returns the ``VBox`` to display."""
    import ipywidgets as widgets


    def update(**values):
        use_course_style()
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
        draw(ax, **values)
        plt.show()

    interactive = widgets.interactive_output(update, controls)
    return widgets.VBox([widgets.HBox(list(controls.values())[:2]), widgets.HBox(list(controls.values())[2:]),
                         interactive])


def static_slider(draw: Callable, values: Sequence, figsize=(7.0, 4.2), interval: int = 600):
    """The static twin: an HTML animation with one frame per value, each drawn by ``draw(ax, value)``.

    Returns an ``IPython.display.HTML`` object (JavaScript player with a slider; no kernel, no network).
    """
    from IPython.display import HTML

    use_course_style()
    fig, ax = plt.subplots(figsize=figsize, layout="constrained")

    def frame(i):
        ax.clear()
        draw(ax, values[i])
        return ()

    anim = FuncAnimation(fig, frame, frames=len(values), interval=interval, blit=False)
    html = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    return HTML(html)
