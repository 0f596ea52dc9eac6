"""Plausible wrong answers to chapter 5's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

SLIP = "This is what one gets when "

WRONG = {
    "softmax_rows": [
        # the naive formula: exp(1000) overflows to inf, inf/inf is NaN
        {
            "replace": ("np.exp(h - h.max(axis=-1, keepdims=True))", "np.exp(h)"),
            "expect": ["the result is nan at h = 1000"],
        },
        # the maximum of the whole array instead of each row's: the second row underflows to 0/0
        {
            "replace": ("h.max(axis=-1, keepdims=True)", "h.max()"),
            "expect": ["the result is nan at h = -1000"],
        },
        # normalised along the columns
        {
            "replace": ("e.sum(axis=-1, keepdims=True)", "e.sum(axis=-2, keepdims=True)"),
            "expect": ["softmax_rows(h=<array of shape (2, 3)>)", "at h = 3"],
        },
        # the row minimum subtracted instead of the maximum: overflow again
        {
            "replace": ("h.max(axis=-1, keepdims=True)", "h.min(axis=-1, keepdims=True)"),
            "expect": ["the result is nan at h = "],
        },
        # each row divided by its largest exponential
        {
            "replace": ("e / e.sum(axis=-1, keepdims=True)", "e / e.max(axis=-1, keepdims=True)"),
            "expect": ["at h = 3", SLIP + "each row is divided by its largest exponential"],
        },
        # no exponentials at all
        {
            "replace": ("e = np.exp(h - h.max(axis=-1, keepdims=True))", "e = h"),
            "expect": [SLIP + "the exponentials are left out"],
        },
    ],
    "alpha_untied": [
        # one shift for the whole matrix, as for a symmetric h: T^2 - 1 equations
        {
            "replace": ("equations = T * T - T", "equations = T * T - 1"),
            "expect": ["alpha_untied(rho=0.5, T=2)", SLIP + "the softmax is taken to forget one shift"],
        },
        # the tied (symmetric) count of unknowns
        {
            "replace": ("unknowns = 2 * r - r**2", "unknowns = r - r**2 / 2"),
            "expect": ["alpha_untied(rho=0.5, T=2)", SLIP + "the unknowns are counted as for the tied"],
        },
        # the GL(r) redundancy not removed: 2dr unknowns
        {
            "replace": ("unknowns = 2 * r - r**2", "unknowns = 2 * r"),
            "expect": [SLIP + "the unknowns are counted as the 2dr entries"],
        },
        # a full-rank teacher (rho >= 1) not capped at rho = 1
        {
            "replace": ("r = min(rho, 1.0)", "r = rho"),
            "expect": ["alpha_untied(rho=2, T=3)", "the result is 0"],
        },
        # the tied equations K = T(T+1)/2 - 1 (equal to T(T-1) at T = 2: caught at T = 3)
        {
            "replace": ("equations = T * T - T", "equations = T * (T + 1) // 2 - 1"),
            "expect": ["alpha_untied(rho=0.25, T=3)"],
        },
    ],
    "softmax_g_out": [
        # the shift not fitted
        {
            "replace": ("g = (tau * (h0 + shift[:, None]) - omega) / V", "g = (tau * h0 - omega) / V"),
            "expect": ["softmax_g_out(T=2", "g_out is", SLIP + "the shift is not fitted"],
        },
        # the derivative without the fitted shift's dependence on omega
        {
            "replace": ("(tau**2 / T**2 - 1) / V", "-1 / V"),
            "expect": ["dg_out is", SLIP + "the derivative leaves out how the fitted shift moves"],
        },
        # the shift fitted nowhere: g_out on tau * h0 and the derivative -1/V
        {
            "code": (
                "import numpy as np\nfrom solvable import channels\n\n\n"
                "def softmax_g_out(T, h0, omega, V):\n"
                "    g = (channels.index_weights(T) * h0 - omega) / V\n"
                "    return g, np.full(g.shape, -1 / V)\n"
            ),
            "expect": [SLIP + "the shift is not fitted, in g_out and in its derivative"],
        },
        # omega not subtracted
        {
            "replace": (
                "g = (tau * (h0 + shift[:, None]) - omega) / V",
                "g = tau * (h0 + shift[:, None]) / V",
            ),
            "expect": [SLIP + "omega is not subtracted"],
        },
        # the normalisation sum tau^2 taken as the number of pairs T(T+1)/2
        {
            "replace": ("@ tau / T**2", "@ tau / (T * (T + 1) / 2)"),
            "expect": ["softmax_g_out(T=2", "g_out is"],
        },
        # the line written without tau on h0 (h units mixed with tau units)
        {
            "replace": (
                "g = (tau * (h0 + shift[:, None]) - omega) / V",
                "g = (h0 + shift[:, None] * tau - omega) / V",
            ),
            "expect": ["g_out is", "(3 of 9 entries differ)"],
        },
        # dg of shape (T(T+1)/2,) instead of (n, T(T+1)/2)
        {
            "replace": ("np.broadcast_to((tau**2 / T**2 - 1) / V, g.shape)", "(tau**2 / T**2 - 1) / V"),
            "expect": ["dg_out has shape (3,)"],
        },
    ],
    "m_1": [
        {
            "replace": ("K = T * (T + 1) // 2 - 1", "K = T * (T + 1) // 2"),
            "expect": [SLIP + "the shift that the softmax forgets is counted as an equation"],
        },
        {"replace": ("1 / (2 * A_0)", "1 / A_0"), "expect": [SLIP + "the denoiser's noise is taken as 1/A"]},
        {"replace": ("(2 * m_0)", "m_0"), "expect": [SLIP + "V is taken as C instead of 2C"]},
        {"code": "m_1 = 1.5 - 0.679411", "expect": [SLIP + "the overlap 1 + rho - m_1 is given"]},
        {"code": "m_1 = 0.18", "expect": ["is 0.18, the reference 0.679"]},
    ],
    "smi_state_evolution": [
        # omega drawn independently of the teacher's z (the overlap Q between them forgotten)
        {
            "replace": ("omega = q[t] * z + np.sqrt(q[t] * V) * xi", "omega = np.sqrt(q[t]) * xi"),
            "expect": ["iterations=1", "at iteration 1"],
        },
        # the posterior's tanh without the variance V
        {
            "replace": ("np.sum(z * omega, axis=1) / V)", "np.sum(z * omega, axis=1))"),
            "expect": ["iterations=1", "at iteration 1"],
        },
        # g_out without its 1/V
        {
            "replace": ("g = (z * th[:, None] - omega) / V", "g = z * th[:, None] - omega"),
            "expect": ["iterations=1", "at iteration 1", SLIP + "g_out is missing its factor 1/V"],
        },
        # a mean over the tokens instead of the sum ||g_out||^2: T times too small
        {
            "replace": ("np.mean(np.sum(g * g, axis=1))", "np.mean(g * g)"),
            "expect": ["at iteration 1", SLIP + "the tokens are averaged instead of summed"],
        },
        # the Gaussian prior's denominator forgotten: Q = Qhat
        {
            "replace": ("q[t + 1] = qhat / (1.0 + qhat)", "q[t + 1] = qhat"),
            "expect": ["at iteration 1", SLIP + "the Gaussian prior's denominator is forgotten"],
        },
        # off by one: the start Q^0 left out of the trajectory
        {"replace": ("return q", "return q[1:]"), "expect": ["has shape (1,)", "shape (2,)"]},
        # the coefficients of eq-smi-omega-draw taken as sqrt(Q), sqrt(V)
        {
            "replace": (
                "omega = q[t] * z + np.sqrt(q[t] * V) * xi",
                "omega = np.sqrt(q[t]) * z + np.sqrt(V) * xi",
            ),
            "expect": ["at iteration 1"],
        },
    ],
    "n_untied_T4": [
        {"code": "n_untied_T4 = 15", "expect": [SLIP + "one shift is removed for the whole matrix"]},
        {"code": "n_untied_T4 = 9", "expect": [SLIP + "the tied count K = T(T+1)/2 - 1 is used"]},
        {"code": "n_untied_T4 = 16", "expect": [SLIP + "no shift is removed"]},
        {"code": "n_untied_T4 = 10", "expect": ["is 10, the reference 12"]},
    ],
    "aim_gain_T3": [
        {"code": "aim_gain_T3 = 6", "expect": [SLIP + "the shift that the softmax forgets is counted"]},
        {"code": "aim_gain_T3 = 9", "expect": [SLIP + "the T^2 entries of h are counted"]},
        {"code": "aim_gain_T3 = 3", "expect": [SLIP + "one equation per token is counted"]},
        {"code": "aim_gain_T3 = 1 / 5", "expect": ["is 0.2, the reference 5"]},
    ],
    "E_z4_T3": [
        {"code": "E_z4_T3 = 9", "expect": [SLIP + "E|z|^4 is taken as (E|z|^2)^2"]},
        {"code": "E_z4_T3 = 27", "expect": [SLIP + "E z_a^2 z_b^2 is taken as 3 for every pair"]},
        {"code": "E_z4_T3 = 12", "expect": [SLIP + "E||z z^T - I||_F^2 is given instead"]},
        {"code": "E_z4_T3 = 3", "expect": ["is 3, the reference 15"]},
    ],
    "smi_contraction": [
        {"code": "smi_contraction = 3", "expect": [SLIP + "alpha T is given instead of its inverse"]},
        {"code": "smi_contraction = 1 / 12", "expect": [SLIP + "the weak-recovery factor"]},
        {"code": "smi_contraction = 2 / 3", "expect": ["is 0.666667, the reference 0.333333"]},
        {"code": "smi_contraction = 0.3", "expect": ["is 0.3, the reference 0.333333"]},
    ],
}
