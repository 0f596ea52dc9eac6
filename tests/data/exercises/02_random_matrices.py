"""Plausible wrong answers to chapter 2's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

SLIP = "This is what one gets when "

WRONG = {
    "mmse_semicircle": [
        {
            "code": "mmse_semicircle = 0.8",
            "expect": [SLIP + "the Wiener factor varsigma/(varsigma + s) is taken"],
        },
        {"code": "mmse_semicircle = 0.1", "expect": [SLIP + "only the subtracted term is kept"]},
        {"code": "mmse_semicircle = 0.5", "expect": [SLIP + "nothing is denoised"]},
        # s varsigma/(s + varsigma)^2: a square too many
        {"code": "mmse_semicircle = 0.16", "expect": ["is 0.16", "the reference 0.4"]},
    ],
    "theta_hat_deterministic": [
        {"code": "theta_hat_deterministic = 2.3", "expect": [SLIP + "the eigenvalue is left as it is"]},
        {
            "code": "theta_hat_deterministic = 0.0",
            "expect": [SLIP + "Re G_Y is taken for a semicircle centred at 0"],
        },
        {
            "code": "theta_hat_deterministic = 2.15",
            "expect": [SLIP + "the factor 2 of the RIE map is forgotten"],
        },
        # lambda/2: the eigenvalue shrunk halfway to zero
        {"code": "theta_hat_deterministic = 1.15", "expect": ["is 1.15", "the reference 2"]},
    ],
    "fraction_small_noise": [
        {"code": "fraction_small_noise = 0.6", "expect": [SLIP + "the rotations W -> QW are not subtracted"]},
        {"code": "fraction_small_noise = 0.255", "expect": [SLIP + "the count is divided by d^2"]},
        {"code": "fraction_small_noise = 0.3", "expect": [SLIP + "the fraction is taken as the rank ratio"]},
        # 1 - kappa^2
        {"code": "fraction_small_noise = 0.91", "expect": ["is 0.91", "the reference 0.51"]},
    ],
    "top_eigenvalue_subcritical": [
        {
            "code": "top_eigenvalue_subcritical = 2.5",
            "expect": [SLIP + "the outlier's position theta + s/theta"],
        },
        {
            "code": "top_eigenvalue_subcritical = 0.5",
            "expect": [SLIP + "the spike's own eigenvalue theta is kept"],
        },
        {
            "code": "top_eigenvalue_subcritical = 1.0",
            "expect": [SLIP + "the edge of the semicircle is put at sqrt(s)"],
        },
        # the edge of a semicircle of variance theta^2 + s
        {"code": "top_eigenvalue_subcritical = 2.236", "expect": ["is 2.236", "the reference 2"]},
    ],
    "mp_r_transform": [
        # the inverse function G^{-1}, pole kept
        {
            "replace": ("return kappa / (np.sqrt(kappa) - g)", "return kappa / (np.sqrt(kappa) - g) + 1 / g"),
            "expect": [SLIP + "the pole 1/g is not removed", "kappa=0.5"],
        },
        # the mean-one normalisation W^T W/m
        {
            "replace": ("return kappa / (np.sqrt(kappa) - g)", "return 1 / (1 - g / kappa)"),
            "expect": [SLIP + "S is normalised as W^T W/m"],
        },
        # a sign slip in g
        {
            "replace": ("return kappa / (np.sqrt(kappa) - g)", "return kappa / (np.sqrt(kappa) + g)"),
            "expect": [SLIP + "the sign of g is flipped"],
        },
        # sqrt(kappa) in the numerator: R_S(0) = 1 instead of the mean
        {
            "replace": (
                "return kappa / (np.sqrt(kappa) - g)",
                "return np.sqrt(kappa) / (np.sqrt(kappa) - g)",
            ),
            "expect": ["kappa=0.5", "times the reference"],
        },
    ],
    "wishart_rie_map": [
        # the factor 2 of the map forgotten
        {
            "replace": ("lam - 2 * s * G.real", "lam - s * G.real"),
            "expect": [SLIP + "the factor 2 of the RIE map is forgotten"],
        },
        # the noise left out of the equation: the Marchenko-Pastur quadratic alone
        {
            "replace": (
                "roots = np.roots([s, -(z + a * s), 1 - kappa + a * z, -a])",
                "roots = np.roots([z, -(1 - kappa + a * z), a])",
            ),
            "expect": [SLIP + "the noise's R-transform is left out"],
        },
        # the mean-one normalisation: a = kappa in the cubic
        {
            "replace": ("a, s = np.sqrt(kappa), noise", "a, s = kappa, noise"),
            "expect": [SLIP + "S is normalised as W^T W/m"],
        },
        # the wrong root outside the support: the one with the smallest imaginary part
        {
            "replace": ("G = roots[np.argmax(roots.imag)]", "G = roots[np.argmin(roots.imag)]"),
            "expect": ["lams=", "at lams = "],
        },
        # the root taken in np.roots' order, whatever its branch
        {"replace": ("G = roots[np.argmax(roots.imag)]", "G = roots[0]"), "expect": ["at lams = "]},
    ],
    "wishart_spike": [
        # the semicircle's formulas shifted by the mean
        {
            "replace": (
                "outlier = theta + kappa * theta / (a * theta - 1)",
                "outlier = theta + a + 1 / theta",
            ),
            "expect": ["outlier is", "at theta = "],
        },
        # u_out not normalised
        {
            "replace": ("overlap = 1 - kappa / (a * theta - 1) ** 2", "overlap = 1 / theta**2"),
            "expect": [SLIP + "u_out is not normalised", "overlap"],
        },
        # the square of (a theta - 1) forgotten in the overlap
        {
            "replace": (
                "overlap = 1 - kappa / (a * theta - 1) ** 2",
                "overlap = 1 - kappa / (a * theta - 1)",
            ),
            "expect": ["overlap is", "at theta = "],
        },
        # the outlier of the semicircle with the spectral variance 1: theta + 1/theta, overlap 1 - 1/theta^2
        {
            "code": (
                "import numpy as np\n\n\ndef wishart_spike(theta, kappa):\n"
                "    theta = np.asarray(theta, dtype=float)\n"
                "    return theta + np.sqrt(kappa) + 1 / theta, 1 - 1 / theta**2\n"
            ),
            "expect": [SLIP + "R_S is cut after its first two free cumulants", "outlier"],
        },
    ],
    "threshold_wishart_spike": [
        {
            "code": "threshold_wishart_spike = 1.0",
            "expect": [SLIP + "the semicircle's threshold sqrt(variance)"],
        },
        {
            "code": "threshold_wishart_spike = 1.5",
            "expect": [SLIP + "the semicircle's threshold is shifted by the mean"],
        },
        {
            "code": "threshold_wishart_spike = 4.5",
            "expect": [SLIP + "the spike has to reach the edge of the bulk"],
        },
        # 1/sqrt(kappa) alone
        {"code": "threshold_wishart_spike = 2.0", "expect": ["is 2", "the reference 3"]},
    ],
}
