"""Plausible wrong answers to chapter 1's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

WRONG = {
    "probit_g_out": [
        # the variance of the preactivation forgotten in the derivative's denominator
        {"replace": ("-(u * r + r**2) / W", "-(u * r + r**2)"), "expect": ["dg_out is", "at y = -1, omega = 4, V = 0.05"]},
        # the label's sign dropped
        {"replace": ("return y * r / np.sqrt(W)", "return r / np.sqrt(W)"), "expect": ["g_out is", "at y = -1"]},
        # the noise variance added twice
        {"replace": ("W = V + delta", "W = V + 2 * delta"), "expect": ["delta=0.25"]},
        # a Python error inside the reader's code is reported with its line
        {"replace": ("log_ndtr(u))", "log_ndtr(u, 2))"), "expect": ["raised TypeError", "line 10 of your cell"]},
    ],
    "se_gaussian_sign": [
        # the Gaussian prior's denoiser forgotten: q^{t+1} = mhat^t instead of mhat^t / (1 + mhat^t)
        {"replace": ("q[t + 1] = mhat / (1.0 + mhat)", "q[t + 1] = mhat"),
         "expect": ["alpha=1, iterations=1", "at iteration 1"]},
        # both labels counted twice (a factor 2 in mhat)
        {"replace": ("mhat += alpha * (ratio @ weights)", "mhat += 2 * alpha * (ratio @ weights)"),
         "expect": ["at iteration 1"]},
        # the variance 1 - q of Z_out g_out^2 forgotten (g_out^2 carries 1/V)
        {"replace": (") / V\n", ")\n"), "expect": ["iterations=2", "at iteration 2"]},
        # omega = sqrt(q) xi used in u without dividing by sqrt(V)
        {"replace": ("u = y * np.sqrt(q[t] / V) * xi", "u = y * np.sqrt(q[t]) * xi"), "expect": ["at iteration 2"]},
        # off by one: the start q^0 left out of the trajectory
        {"replace": ("return q", "return q[1:]"), "expect": ["has shape (1,)", "shape (2,)"]},
        # the start ignored
        {"replace": ("q[0] = q0", "q[0] = 1e-6"), "expect": ["q0=0.5", "at iteration 0"]},
    ],
    "gamp_rademacher_sign": [
        # the output-side Onsager term -V g^{t-1} forgotten (it first matters at the second iteration)
        {"replace": ("omega = F @ w - V * g", "omega = F @ w"), "expect": ["iterations=2", "at iteration 2, weight"]},
        # the input-side Onsager term with the wrong sign, or forgotten
        {"replace": ("B = F.T @ g + A * w", "B = F.T @ g - A * w"), "expect": ["iterations=1", "at iteration 1, weight"]},
        {"replace": ("B = F.T @ g + A * w", "B = F.T @ g"), "expect": ["at iteration 1, weight"]},
        # the variance c_w of the Gaussian prior kept for binary weights
        {"replace": ("c = 1.0 - w**2", "c = 1 / (1 + A)"), "expect": ["iterations=2", "at iteration 2, weight"]},
        # the start c^0 = 0 instead of the prior variance 1: V = 0, a division by zero
        {"replace": ("np.ones(X.shape[1])", "np.zeros(X.shape[1])"), "expect": ["nan at iteration 1"]},
        # off by one: the start w^0 left out of the iterates
        {"replace": ("    iterates = [w]\n", "    iterates = []\n"), "expect": ["has shape (1, 200)"]},
    ],
}
