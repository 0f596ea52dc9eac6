"""Plausible wrong answers to chapter 1's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

_NAIVE_FLIP = """import numpy as np
from scipy.stats import norm


def flip_g_out(y, omega, V, eps):
    u = y * omega / np.sqrt(V)
    Z = eps + (1 - 2 * eps) * norm.cdf(u)
    g = (1 - 2 * eps) * y * norm.pdf(u) / np.sqrt(V) / Z
    return g, -(1 - 2 * eps) * u * norm.pdf(u) / V / Z - g**2
"""

WRONG = {
    "flip_g_out": [
        # phi(u) / Phi(u) from norm.pdf and norm.cdf: 0/0 for a confidently wrong guess (u < -38) at eps = 0
        {"code": _NAIVE_FLIP, "expect": ["eps=0)", "g_out is nan", "V = 0.05"]},
        # the flips forgotten: the sign channel's g_out
        {
            "replace": ("weight = expit(np.log1p(-2 * eps) + log_Phi - log_eps)", "weight = 1.0"),
            "expect": ["eps=0.1", "This is what one gets when the flips are left out"],
        },
        # Z_out = eps + (1 - eps) Phi(u): the flipped labels' probability not taken from the unflipped ones
        {
            "replace": ("np.log1p(-2 * eps)", "np.log1p(-eps)"),
            "expect": ["eps=0.1", "This is what one gets when Z_out does not sum to one"],
        },
        # the weight differentiated as a constant
        {
            "replace": ("-(weight * u * r + (weight * r) ** 2) / V", "-weight * (u * r + r**2) / V"),
            "expect": [
                "dg_out is",
                "This is what one gets when the weight of the unflipped label is held fixed",
            ],
        },
        # the label's sign dropped
        {
            "replace": ("g = weight * y * r / np.sqrt(V)", "g = weight * r / np.sqrt(V)"),
            "expect": ["g_out is", "at y = -1"],
        },
        # a Python error inside the reader's code is reported with its line
        {
            "replace": ("log_Phi = log_ndtr(u)", "log_Phi = log_ndtr(u, 2)"),
            "expect": ["raised TypeError", "line 8 of your cell"],
        },
    ],
    "se_sparse_sign": [
        # the factor exp(-A w^2 / 2) dropped, as it may be for +-1 weights
        {
            "replace": (" - A * value**2 / 2\n", "\n"),
            "expect": [
                "alpha=1, rho=0.2, iterations=1",
                "at iteration 1",
                "This is what one gets when the factor exp(-A w^2 / 2) is left out of Z_w",
            ],
        },
        # the non-zero weights at +-1 (the teacher's second moment is then rho)
        {
            "replace": ("value = 1 / np.sqrt(rho)  #", "value = 1.0  #"),
            "expect": ["at iteration 1", "This is what one gets when the non-zero weights are +-1"],
        },
        # the average over the teacher's weight taken over its non-zero values only
        {
            "replace": ("q[t + 1] = (1 - rho) * zero + rho * nonzero", "q[t + 1] = nonzero"),
            "expect": [
                "at iteration 1",
                "This is what one gets when the teacher's zero weights are left out",
            ],
        },
        # the Gaussian prior's overlap map kept
        {
            "replace": ("q[t + 1] = (1 - rho) * zero + rho * nonzero", "q[t + 1] = mhat / (1 + mhat)"),
            "expect": [
                "at iteration 1",
                "This is what one gets when the prior side is still the Gaussian prior's",
            ],
        },
        # the weight rho of the non-zero teacher values forgotten
        {
            "replace": (
                "q[t + 1] = (1 - rho) * zero + rho * nonzero",
                "q[t + 1] = (1 - rho) * zero + nonzero",
            ),
            "expect": ["at iteration 1"],
        },
        # only the label y = +1 counted on the channel side
        {"replace": ("log_ndtr(u) - log_ndtr(-u))", "log_ndtr(u))"), "expect": ["at iteration 1"]},
        # off by one: the start q^0 left out of the trajectory
        {"replace": ("return q", "return q[1:]"), "expect": ["has shape (1,)", "shape (2,)"]},
        # the start ignored
        {"replace": ("q[0] = q0", "q[0] = 1e-6"), "expect": ["q0=0.5", "at iteration 0"]},
    ],
    "gamp_rademacher_sign": [
        # the output-side Onsager term -V g^{t-1} forgotten (it first matters at the second iteration)
        {
            "replace": ("omega = F @ w - V * g", "omega = F @ w"),
            "expect": [
                "iterations=2",
                "at iteration 2, weight",
                "This is what one gets when the Onsager term -V g^{t-1} is left out of omega",
            ],
        },
        # the input-side Onsager term with the wrong sign, or forgotten
        {
            "replace": ("B = F.T @ g + A * w", "B = F.T @ g - A * w"),
            "expect": ["iterations=1", "at iteration 1, weight"],
        },
        {
            "replace": ("B = F.T @ g + A * w", "B = F.T @ g"),
            "expect": [
                "at iteration 1, weight",
                "This is what one gets when the Onsager term +A w^t is left out of B",
            ],
        },
        # the variance c_w of the Gaussian prior kept for binary weights
        {
            "replace": ("c = 1.0 - w**2", "c = 1 / (1 + A)"),
            "expect": [
                "iterations=2",
                "at iteration 2, weight",
                "This is what one gets when f_w is the binary prior's but c_w is still the Gaussian prior's",
            ],
        },
        # the Gaussian prior's denoiser kept altogether
        {
            "replace": ("w = np.tanh(B)\n        c = 1.0 - w**2", "w, c = B / (1 + A), 1 / (1 + A)"),
            "expect": [
                "at iteration 1, weight",
                "This is what one gets when the Gaussian prior's f_w and c_w are kept",
            ],
        },
        # the start c^0 = 0 instead of the prior variance 1: V = 0, a division by zero
        {"replace": ("np.ones(X.shape[1])", "np.zeros(X.shape[1])"), "expect": ["nan at iteration 1"]},
        # off by one: the start w^0 left out of the iterates
        {"replace": ("    iterates = [w]\n", "    iterates = []\n"), "expect": ["has shape (1, 200)"]},
    ],
    "mmse_linear": [
        {
            "code": "mmse_linear = 0.2",
            "expect": [
                "This is what one gets when your own uncertainty V = 1 - q is left out of the channel's variance"
            ],
        },
        {
            "code": "mmse_linear = 0.7192",
            "expect": ["This is what one gets when the overlap q = 1 - E is given"],
        },
        {"code": "mmse_linear = 0", "expect": ["This is what one gets when the noise Delta is dropped"]},
        {"code": "mmse_linear = -1.781", "expect": ["is -1.781", "the reference 0.280776"]},  # the other root
    ],
    "mhat_q0": [
        {
            "code": "import numpy as np\nmhat_q0 = 1.5 / np.pi",
            "expect": ["This is what one gets when only one label is counted"],
        },
        {
            "code": "import numpy as np\nmhat_q0 = 2 / np.pi",
            "expect": ["This is what one gets when alpha = 1 is used"],
        },
        {
            "code": "import numpy as np\nmhat_q0 = 1.5 / np.sqrt(2 * np.pi) / 0.25",
            "expect": ["This is what one gets when phi(0) is not squared"],
        },
        {"code": "mhat_q0 = 0.0", "expect": ["is 0,", "the reference 0.95493"]},  # the even channel's answer
    ],
    "alpha_c_margin_1": [
        {
            "code": "alpha_c_margin_1 = 0.9586",
            "expect": ["This is what one gets when the integral runs over xi > +gamma"],
        },
        {
            "code": "from scipy.stats import norm\nalpha_c_margin_1 = 1 / (norm.cdf(1) - norm.pdf(1))",
            "expect": ["This is what one gets when the shift is dropped"],
        },
        {
            "code": "alpha_c_margin_1 = 1 / (1 + 1**2)",
            "expect": ["This is what one gets when the large-margin form 1/(1 + gamma^2) is used"],
        },
        {
            "code": "alpha_c_margin_1 = 2.0",
            "expect": ["is 2,", "the reference 0.519572"],
        },  # the zero-margin value
    ],
    "ridge_noise_variance": [
        {
            "code": "import numpy as np\nridge_noise_variance = 1 - np.sqrt(2 / np.pi)",
            "expect": ["This is what one gets when kappa = E[yz] is used where its square belongs"],
        },
        {
            "code": "import numpy as np\nridge_noise_variance = 2 / np.pi",
            "expect": ["This is what one gets when the signal's variance kappa^2 is given"],
        },
        {
            "code": "import numpy as np\nridge_noise_variance = np.pi / 2 - 1",
            "expect": ["This is what one gets when the ratio noise / signal (the penalty) is given"],
        },
    ],
}
