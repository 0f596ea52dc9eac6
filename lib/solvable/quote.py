"""Numbers a chapter computes, quoted in its prose.

A chapter's text says "we train 16 students", not the name of the size preset field that holds 16: the number
depends on the preset (``SOLVABLE_SIZE``), so it is computed in a cell and the prose quotes it. :func:`quote`
stores values under names with myst-nb's ``glue``; the Markdown writes ``{glue:text}`name``` (or
``{glue:text}`name:.3g``` with a format), and the website and the PDF print the value the cell computed. In a
notebook opened outside the book (Jupyter, Binder, Colab without myst-nb) the call does nothing, and the reader
sees the values in the code cell.

References
----------
myst-nb, "Embedding outputs as variables": https://myst-nb.readthedocs.io/en/latest/render/glue.html
"""

from __future__ import annotations

import numbers

__all__ = ["quote"]


def quote(**values) -> None:
    """Store numbers (or short strings) under names, for the prose of the page to quote.

    Parameters
    ----------
    **values : int, float or str
        The name the prose uses and its value (e.g. ``gd_students=SIZES.attention_gd_students``).

    Returns
    -------
    None
        Nothing is displayed: under myst-nb each value is saved as a hidden output of the cell.

    Raises
    ------
    TypeError
        If a value is not a real number or a string (a bool is refused too).
    ValueError
        If no value is given.

    Notes
    -----
    The Markdown of the page quotes a value with the role ``{glue:text}`name``` (``{glue:text}`name:.2f```
    formats a number), resolved when the book is built from the notebook's saved outputs.
    """
    if not values:
        raise ValueError("values: give at least one name=value to quote")
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
            raise TypeError(f"{name} must be a real number or a string, got {type(value).__name__}")
    try:
        from myst_nb import glue
    except ImportError:  # outside the book's toolchain: nothing to store values for
        return
    for name, value in values.items():
        glue(name, value, display=False)
