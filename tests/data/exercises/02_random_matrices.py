"""Plausible wrong answers to chapter 2's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

WRONG = {
    "semicircle_G_iterates": [
        # the sign of the self-energy v G flipped: G <- 1/(z + v G)
        {"replace": ("1 / (z - v * G)", "1 / (z + v * G)"), "expect": ["at iteration 2"]},
        # the variance forgotten: G <- 1/(z - G) (the semicircle of variance 1)
        {"replace": ("1 / (z - v * G)", "1 / (z - G)"), "expect": ["v=0.7", "at iteration 2"]},
        # off by one: the start G^0 left out
        {"replace": ("out = [G]", "out = []"), "expect": ["has shape (3, 5, 2)", "shape (4, 5, 2)"]},
        # started at 1/z instead of 0 (every iterate is one step ahead)
        {"replace": ("G = np.zeros_like(z)", "G = 1 / z"), "expect": ["iterations=3", "at iteration 1"]},
    ],
    "rie_map_semicircle": [
        # the factor 2 of the map forgotten
        {"replace": ("lams - 2 * noise * G.real", "lams - noise * G.real"), "expect": ["noise=0.5", "at lams = "]},
        # the signal's variance used for G_Y instead of v + s
        {"replace": ("w = v + noise", "w = v"), "expect": ["noise=0.5, v=1", "at lams = "]},
        # sqrt(z^2 - 4w): the wrong branch for Re z < 0
        {"replace": ("np.sqrt(z - 2 * np.sqrt(w)) * np.sqrt(z + 2 * np.sqrt(w))", "np.sqrt(z**2 - 4 * w)"),
         "expect": ["at lams = -6"]},
    ],
    "empirical_rie_map": [
        # the width 1/d instead of d^(-1/2): the nearest neighbours dominate
        {"replace": ("1j / np.sqrt(lam.size)", "1j / lam.size"), "expect": ["eigenvalues=[-1, -0.2, 0.5, 2]",
                                                                         "at eigenvalues = "]},
        # a sum instead of a mean over j (the 1/d of G_d forgotten)
        {"replace": ("np.mean(1 / (z[:, None] - lam[None, :]), axis=1)",
                     "np.sum(1 / (z[:, None] - lam[None, :]), axis=1)"), "expect": ["at eigenvalues = "]},
        # the factor 2 forgotten
        {"replace": ("lam - 2 * noise * G.real", "lam - noise * G.real"), "expect": ["noise=0.5"]},
    ],
}
