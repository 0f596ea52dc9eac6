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


def test_exercise_check_passes_and_fails_clearly(capsys):
    import numpy as np
    import pytest

    from solvable import exercises

    exercises.check("a sum", np.array([1.0, 2.0]), [1.0, 2.0 + 1e-12])
    assert capsys.readouterr().out.strip() == "PASS: a sum agrees with solvable (to 1e-08 relative)"
    with pytest.raises(AssertionError, match="NOT YET: a sum differs from solvable by up to 0.5"):
        exercises.check("a sum", [1.0, 2.5], [1.0, 2.0])
    with pytest.raises(AssertionError, match="shape"):
        exercises.check("a sum", [1.0], [1.0, 2.0])
    with pytest.raises(AssertionError, match="NaN"):
        exercises.check("a sum", [np.nan], [1.0])
