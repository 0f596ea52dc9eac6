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
