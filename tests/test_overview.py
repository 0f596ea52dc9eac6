"""The landing page's map of the five models (figures/landing/overview.png, drawn by solvable.plotting.phase_map):
every number on it is the library's, the committed figure is the current one, and its phases are told apart by
their hatching as well as their colour (a greyscale copy keeps them apart)."""

from __future__ import annotations

import importlib.util
import json
import math

import matplotlib
import pytest

matplotlib.use("Agg")

from _book import ROOT  # noqa: E402

from solvable import attention, bsr, glm, plotting, quadratic, smi  # noqa: E402


def _landing():
    spec = importlib.util.spec_from_file_location("landing", ROOT / "figures" / "landing" / "update.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_map_holds_the_thresholds_of_the_library():
    rows = {row["chapter"] * 10 + i: row for i, row in enumerate(plotting.phase_map_rows())}
    perceptron, bsr_row, qn, aim, seq = rows.values()
    expected = glm.perfect_learning_thresholds("rademacher", "sign")
    assert perceptron["thresholds"] == {"alpha_IT": expected.alpha_it, "alpha_alg": expected.alpha_alg}
    assert bsr_row["thresholds"] == {
        "alpha_PR": bsr.perfect_recovery_threshold(1.0, 0.5),
        "alpha_MNNE": bsr.nuclear_norm_threshold(1.0, 0.5),
    }
    assert qn["thresholds"] == {"alpha_PR": quadratic.perfect_recovery_threshold(0.5)}
    assert aim["thresholds"] == {"alpha_PR": attention.perfect_recovery_threshold(0.5, 2)}
    assert seq["thresholds"] == {
        "alpha_c": smi.weak_recovery_threshold(2),
        "alpha_PR": smi.perfect_recovery_threshold(2),
    }
    for row in rows.values():  # the phases tile the axis at the thresholds
        edges = [(start, end) for start, end, _ in row["phases"]]
        assert edges[0][0] == 0 and edges[-1][1] is None
        assert all(a[1] == b[0] for a, b in zip(edges, edges[1:]))
        boundaries = {end for _, end in edges[:-1]}
        assert boundaries <= set(row["thresholds"].values()), row["model"]
    # the hard phase of the binary perceptron lies between its two thresholds
    assert perceptron["phases"][1] == (expected.alpha_it, expected.alpha_alg, "hard")


def test_the_figure_prints_the_library_numbers():
    fig, labels = plotting.phase_map()
    texts = [text.get_text() for text in fig.axes[0].texts]
    rows = plotting.phase_map_rows()
    drawn = [
        (row["model"], name, value)
        for row in rows
        for name, value in sorted(row["thresholds"].items(), key=lambda item: item[1])
    ]
    assert labels == drawn
    for model, name, value in labels:
        assert any(f"= {value:.3f}" in text for text in texts), f"{model}: {name} = {value:.3f} not printed"
    matplotlib.pyplot.close(fig)


def test_the_committed_figure_is_current():
    from PIL import Image

    landing = _landing()
    with Image.open(landing.OVERVIEW) as image:
        stored = json.loads(image.text[landing.OVERVIEW_KEY])
    _, labels = plotting.phase_map()
    matplotlib.pyplot.close("all")
    assert [tuple(entry[:2]) for entry in stored] == [label[:2] for label in labels], (
        "figures/landing/overview.png is stale: python figures/landing/update.py"
    )
    for (_, _, old), (model, name, new) in zip(stored, labels):
        assert math.isclose(old, new, rel_tol=1e-9), f"{model}: {name} drawn at {old}, the library says {new}"


@pytest.mark.parametrize("phase", sorted(plotting.PHASE_STYLE))
def test_the_phases_are_told_apart_in_greyscale(phase):
    """Each phase differs from every other by its hatching, not only by its colour."""
    hatches = {name: style["hatch"] for name, style in plotting.PHASE_STYLE.items()}
    assert list(hatches.values()).count(hatches[phase]) == 1, hatches
