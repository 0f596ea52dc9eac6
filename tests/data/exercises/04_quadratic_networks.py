"""Plausible wrong answers to chapter 4's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

WRONG = {
    "sensing_forward": [
        # the identity in Z_mu forgotten: Tr S not subtracted
        {"replace": ("(quadratic_forms - np.trace(S))", "quadratic_forms"),
         "expect": ["the result is", "at sample"]},
        # normalised by d instead of sqrt(d)
        {"replace": ("/ np.sqrt(d)", "/ d"), "expect": ["the result is", "at sample"]},
    ],
    "free_parameters": [
        # the dimension of the symmetric r x r matrices instead of the rank-r PSD ones
        {"replace": ("r * d - r * (r - 1) // 2", "r * (r + 1) // 2"),
         "expect": ["free_parameters(m=1, d=6)", "the result is 1"]},
        # the large-d form r d - r^2/2 used at finite size
        {"replace": ("r * d - r * (r - 1) // 2", "r * d - r**2 / 2"),
         "expect": ["free_parameters(m=1, d=6)", "the result is 5.5"]},
        # the rank taken as m even when m > d
        {"replace": ("r = min(m, d)  #", "r = m  #"), "expect": ["free_parameters(m=9, d=6)"]},
        # the limit without the cap at kappa = 1
        {"replace": ("r = min(kappa, 1.0)", "r = kappa"), "expect": ["alpha_pr(kappa=1.5)"]},
    ],
    "qn_state_evolution": [
        # the output variance taken as the error itself, V_t = mmse_t
        {"replace": ("(delta + 2 * mmse[-1])", "(delta + mmse[-1])"),
         "expect": ["alpha=0.2", "at iteration"]},
        # the GOE noise of the back-projection with 2 alpha instead of 4 alpha
        {"replace": ("/ (4 * alpha)", "/ (2 * alpha)"), "expect": ["alpha=0.2", "at iteration"]},
        # one iteration too few
        {"replace": ("range(n_iter)", "range(n_iter - 1)"), "expect": ["has shape (6,)", "shape (7,)"]},
    ],
    "project_onto_constraints": [
        # the Gram matrix of the points instead of that of the x_i x_i^T
        {"replace": ("gram = (X @ X.T) ** 2", "gram = X @ X.T"),
         "expect": ["project_onto_constraints(S=<array of shape (10, 10)>", "at row"]},
        # the correction subtracted
        {"replace": ("return S + (X.T * y) @ X", "return S - (X.T * y) @ X"), "expect": ["at row"]},
        # the current constraint values forgotten: y solves gram y = 1
        {"replace": ('1.0 - np.einsum("ij,ij->i", X @ S, X)', "np.ones(len(X))"), "expect": ["at row"]},
    ],
}
