"""Copy one figure of each chapter, as committed in the notebook, to the landing page (figures/landing/).

The landing page (intro.md) shows, for each rung of the ladder, a figure of its chapter: the same PNG as in the
chapter (saved at twice its nominal size), found by the figure's name (cell metadata ``mystnb.figure.name``). Rerun
after re-executing a chapter::

    python figures/landing/update.py

tests/test_notebooks.py checks that each landing figure is byte for byte the chapter's.

It also draws the landing page's map of the five models (``overview.png``) with
:func:`solvable.plotting.phase_map`, which calls the models' threshold functions; the numbers printed on the
figure are stored in the PNG (text chunk ``Thresholds``, JSON), and tests/test_overview.py checks them against the
library.
"""

from __future__ import annotations

import base64
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

#: chapter notebook (without suffix) -> name of the figure shown on the landing page
LANDING_FIGURES = {
    "01_perceptron": "fig-perceptron-binary-transition",
    "02_random_matrices": "fig-rmt-rie-map",
    "03_bilinear_sequence_regression": "fig-bsr-phase-diagram",
    "04_quadratic_networks": "fig-qn-gd",
    "05_attention_indexed_models": "fig-aim-bayes-curves",
}


def figure_png(chapter: str, name: str) -> bytes:
    """The PNG output of the cell of ``chapters/<chapter>.ipynb`` whose figure is called ``name``."""
    notebook = nbformat.read(ROOT / "chapters" / f"{chapter}.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.metadata.get("mystnb", {}).get("figure", {}).get("name") == name:
            images = [
                out["data"]["image/png"]
                for out in cell.get("outputs", [])
                if "image/png" in out.get("data", {})
            ]
            if len(images) != 1:
                raise ValueError(f"{chapter}: figure {name!r} has {len(images)} PNG outputs, expected 1")
            return base64.b64decode(images[0])
    raise ValueError(f"{chapter}: no figure named {name!r}")


OVERVIEW = HERE / "overview.png"
OVERVIEW_KEY = "Thresholds"  # PNG text chunk: the [model, threshold, value] drawn on the map, as JSON


def draw_overview(path: Path = OVERVIEW) -> list:
    """Draw the map of the five models (solvable.plotting.phase_map) to ``path``, at twice its pixel size."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    from solvable import plotting

    fig, labels = plotting.phase_map()
    fig.savefig(path, dpi=200, metadata={OVERVIEW_KEY: json.dumps(labels), "Software": None})
    return labels


def main() -> None:
    draw_overview()
    print(f"{OVERVIEW.relative_to(ROOT)} <- solvable.plotting.phase_map()")
    for chapter, name in LANDING_FIGURES.items():
        target = HERE / f"{chapter}.png"
        target.write_bytes(figure_png(chapter, name))
        print(f"{target.relative_to(ROOT)} <- chapters/{chapter}.ipynb, {name}")


if __name__ == "__main__":
    main()
