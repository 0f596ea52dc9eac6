"""Plausible wrong answers to chapter 5's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

WRONG = {
    "softmax_rows": [
        # the naive formula: exp(1000) overflows to inf, inf/inf is NaN
        {"replace": ("np.exp(h - h.max(axis=-1, keepdims=True))", "np.exp(h)"),
         "expect": ["the result is nan at h = 1000"]},
        # the maximum of the whole array instead of each row's: the second row underflows to 0/0
        {"replace": ("h.max(axis=-1, keepdims=True)", "h.max()"), "expect": ["the result is nan at h = -1000"]},
        # normalised along the columns
        {"replace": ("e.sum(axis=-1, keepdims=True)", "e.sum(axis=-2, keepdims=True)"),
         "expect": ["softmax_rows(h=<array of shape (2, 3)>)", "at h = 3"]},
        # the row minimum subtracted instead of the maximum: overflow again
        {"replace": ("h.max(axis=-1, keepdims=True)", "h.min(axis=-1, keepdims=True)"),
         "expect": ["the result is nan at h = "]},
    ],
    "alpha_pr": [
        # the shift that the softmax forgets not subtracted: K = T(T+1)/2
        {"replace": ("K = T * (T + 1) // 2 - 1", "K = T * (T + 1) // 2"),
         "expect": ["alpha_pr(rho=0.5, T=2)", "times the reference"]},
        # the unknowns of a rank-r matrix counted as dr - r^2 (the orthogonal group counted twice)
        {"replace": ("(r - r**2 / 2)", "(r - r**2)"), "expect": ["alpha_pr(rho=0.5, T=2)"]},
        # a full-rank teacher (rho >= 1) not capped at rho = 1
        {"replace": ("r = min(rho, 1.0)", "r = rho"), "expect": ["alpha_pr(rho=2, T=3)", "the result is zero"]},
        # the unknowns counted like a symmetric matrix's entries, r(r+1)/2 per d^2 (equal to the right count at
        # rho = 1/2: caught at rho = 1/4)
        {"replace": ("(r - r**2 / 2)", "(r + r**2) / 2"), "expect": ["alpha_pr(rho=0.25, T=3)"]},
    ],
    "smi_state_evolution": [
        # omega drawn independently of the teacher's z (the overlap Q between them forgotten)
        {"replace": ("omega = q[t] * z + np.sqrt(q[t] * V) * xi", "omega = np.sqrt(q[t]) * xi"),
         "expect": ["iterations=1", "at iteration 1"]},
        # the posterior's tanh without the variance V
        {"replace": ("np.sum(z * omega, axis=1) / V)", "np.sum(z * omega, axis=1))"),
         "expect": ["iterations=1", "at iteration 1"]},
        # g_out without its 1/V
        {"replace": ("g = (z * th[:, None] - omega) / V", "g = z * th[:, None] - omega"),
         "expect": ["iterations=1", "at iteration 1"]},
        # a mean over the tokens instead of the sum ||g_out||^2: T times too small
        {"replace": ("np.mean(np.sum(g * g, axis=1))", "np.mean(g * g)"), "expect": ["at iteration 1"]},
        # the Gaussian prior's denominator forgotten: Q = Qhat
        {"replace": ("q[t + 1] = qhat / (1.0 + qhat)", "q[t + 1] = qhat"), "expect": ["at iteration 1"]},
        # off by one: the start Q^0 left out of the trajectory
        {"replace": ("return q", "return q[1:]"), "expect": ["has shape (1,)", "shape (2,)"]},
    ],
}
