"""Plausible wrong answers to chapter 4's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

SLIP = "This is what one gets when "

WRONG = {
    "sensing_forward": [
        # the identity in Z_mu forgotten: Tr S not subtracted
        {
            "replace": ("(quadratic_forms - np.trace(S))", "quadratic_forms"),
            "expect": ["at sample", SLIP + "the identity in Z_mu is left out"],
        },
        # normalised by d instead of sqrt(d)
        {
            "replace": ("/ np.sqrt(d)", "/ d"),
            "expect": ["at sample", SLIP + "the normalisation is 1/d instead of 1/sqrt(d)"],
        },
        # the n x d x d tensor of the Z_mu, the thing the exercise avoids: right numbers, too much memory
        {
            "code": (
                "import numpy as np\n\n\ndef sensing_forward(X, S):\n"
                "    n, d = X.shape\n"
                "    Z = (X[:, :, None] * X[:, None, :] - np.eye(d)) / np.sqrt(d)\n"
                "    return np.einsum('mij,ij->m', Z, S)\n"
            ),
            "expect": ["sensing_forward(X=<array of shape (600, 30)>", "allocated", "more than"],
        },
        # the quadratic forms through the n x n matrix X S X^T: right numbers, too much memory
        {
            "code": (
                "import numpy as np\n\n\ndef sensing_forward(X, S):\n"
                "    d = X.shape[1]\n"
                "    return (np.diag(X @ S @ X.T) - np.trace(S)) / np.sqrt(d)\n"
            ),
            "expect": ["sensing_forward(X=<array of shape (600, 30)>", "allocated"],
        },
    ],
    "psd_dimension": [
        # only one of the two terms of the derivative
        {
            "replace": ("(E.T @ W + W.T @ E)", "(W.T @ E)"),
            "expect": [
                "psd_dimension(m=9, d=6)",
                "the result is 36",
                SLIP + "the derivative keeps only one of its two terms",
            ],
        },
        # the number of columns (the weights) instead of the rank
        {
            "replace": ("return int(np.linalg.matrix_rank(np.array(columns).T))", "return len(columns)"),
            "expect": [
                "psd_dimension(m=9, d=6)",
                "the result is 54",
                SLIP + "the rotations W -> QW are not removed",
            ],
        },
        # the derivative at a non-generic point (W of rank one): the rank is too small
        {
            "replace": ("W = np.random.default_rng(0).standard_normal((m, d))", "W = np.ones((m, d))"),
            "expect": ["psd_dimension(m=9, d=6)", "the result is 6"],
        },
        # the count of all symmetric matrices
        {
            "code": "def psd_dimension(m, d):\n    return d * (d + 1) // 2\n",
            "expect": ["psd_dimension(m=1, d=6)", SLIP + "every symmetric d x d matrix is counted"],
        },
    ],
    "qn_gamp_rie": [
        # the RIE told the noise 1/A (chapter 3's convention) instead of 1/(2A)
        {
            "replace": ("1 / (2 * A)", "1 / A"),
            "expect": [
                "n_iter=1",
                "at iteration 1",
                SLIP + "the RIE is told the noise 1/A instead of 1/(2A)",
            ],
        },
        # the damping left out
        {
            "replace": ("    estimates = [S]\n", "    estimates, damping = [S], 0.0\n"),
            "expect": ["n_iter=1", "at iteration 1", SLIP + "the damping is left out"],
        },
        # no residual floor
        {
            "replace": ("V_bar = max(delta + V, np.mean((y - omega) ** 2))", "V_bar = delta + V"),
            "expect": ["at iteration 1", SLIP + "the output variance is not floored"],
        },
        # the empirical precision
        # the empirical precision: equal to the derivative form while the floor is active (iterations 1-3 here)
        {
            "replace": ("A = 2 * alpha / V_bar", "A = 2 * np.sum(g**2) / d**2"),
            "expect": ["n_iter=8", SLIP + "the precision is the mean of g^2"],
        },
        # the Onsager term forgotten
        {"replace": ("(pred - c * g)", "pred"), "expect": ["n_iter=1", "at iteration 1"]},
        # the start of the output state taken as g = 0 (omega = y)
        {
            "replace": ("    g, _ = output(omega, V)\n", "    g = np.zeros(n)\n"),
            "expect": ["n_iter=1", "at iteration 1"],
        },
    ],
    "project_onto_constraints": [
        # the Gram matrix of the points instead of that of the x_i x_i^T
        {
            "replace": ("gram = (X @ X.T) ** 2", "gram = X @ X.T"),
            "expect": ["project_onto_constraints(S=<array of shape (10, 10)>", "at row"],
        },
        # the correction subtracted
        {
            "replace": ("return S + (X.T * gamma) @ X", "return S - (X.T * gamma) @ X"),
            "expect": ["at row", SLIP + "the correction is subtracted from S instead of added"],
        },
        # the current constraint values forgotten: y solves gram y = 1
        {
            "replace": ('1.0 - np.einsum("ij,ij->i", X @ S, X)', "np.ones(len(X))"),
            "expect": ["at row", SLIP + "the current values x_i^T S x_i are left out"],
        },
    ],
    "n_exact_recovery": [
        {
            "code": "n_exact_recovery = 30 * 100\n",
            "expect": ["3000", SLIP + "the rotations W -> QW are not removed"],
        },
        {"code": "n_exact_recovery = 30 * 100 - 30**2 / 2\n", "expect": [SLIP + "the large-d form"]},
        {"code": "n_exact_recovery = 100 * 101 // 2\n", "expect": [SLIP + "every entry of a symmetric"]},
        {"code": "n_exact_recovery = 0.255 * 100**2\n", "expect": ["2550"]},
    ],
    "wide_mmse": [
        {"code": "wide_mmse = 1 - 2 * 0.2\n", "expect": [SLIP + "the label noise is left out"]},
        {"code": "wide_mmse = 0.4190\n", "expect": [SLIP + "q is entered instead of the MMSE"]},
        {"code": "wide_mmse = 0.7589\n", "expect": [SLIP + "the noise enters as Delta q"]},
        {"code": "wide_mmse = 0.5 + 2 * 0.70474\n", "expect": [SLIP + "the test error Delta + 2 MMSE"]},
        {"code": "wide_mmse = 0.70\n", "expect": ["0.7047"]},
    ],
    "trivial_test_error": [
        {
            "code": "trivial_test_error = 0.25 + 1.0\n",
            "expect": [SLIP + "the factor 2 of E Tr(ZB)^2 is left out"],
        },
        {"code": "trivial_test_error = 2.0\n", "expect": [SLIP + "the label noise is left out"]},
        {"code": "trivial_test_error = 0.25 + 2 * 1.5\n", "expect": ["3.25", "2.25"]},
    ],
    "sample_over_average": [
        {"code": "sample_over_average = 2.0\n", "expect": [SLIP + "the average of the J samples is taken"]},
        {"code": "sample_over_average = (1 + 1 / 32) / 2\n", "expect": [SLIP + "the ratio is inverted"]},
        {"code": "sample_over_average = 1 + 1 / 32\n", "expect": [SLIP + "the error of the average alone"]},
        {"code": "sample_over_average = 1.94\n", "expect": ["1.93939"]},
    ],
    "prox_eigenvalues": [
        {
            "code": "prox_eigenvalues = [2.0, -0.5, -3.5]\n",
            "expect": [SLIP + "the PSD constraint is forgotten"],
        },
        {"code": "prox_eigenvalues = [2.0, 0.0, -1.5]\n", "expect": [SLIP + "the soft threshold of |b_i|"]},
        {
            "code": "prox_eigenvalues = [3.0, 0.5, 0.0]\n",
            "expect": [SLIP + "the matrix is projected on the PSD cone"],
        },
        {"code": "prox_eigenvalues = [0.0, 0.0, 2.0]\n", "expect": ["the reference 2"]},
    ],
    "half_point_d20": [
        {"code": "half_point_d20 = 0.25\n", "expect": [SLIP + "the limit d -> infinity is used"]},
        {"code": "half_point_d20 = 20 * 21 / 2 / 20**2\n", "expect": [SLIP + "the dimension d(d+1)/2"]},
        {"code": "half_point_d20 = 20 * 19 / 4 / 20**2\n", "expect": [SLIP + "the diagonal is left out"]},
    ],
    "alpha_cvx_half": [
        {"code": "alpha_cvx_half = 0.375\n", "expect": [SLIP + "the price of convexity is left out"]},
        {"replace": ("best.fun", "per_d2(0.0)"), "expect": [SLIP + "tau = 0 is used"]},
        {
            "replace": ("radius = np.sqrt(2 * (1 - kappa))", "radius = np.sqrt(2)"),
            "expect": [SLIP + "the semicircle radius is sqrt(2)"],
        },
        {
            "replace": ("+ (1 - kappa) * excess(tau)", "+ excess(tau)"),
            "expect": [SLIP + "the block's weight (1 - kappa) is left out"],
        },
        {"code": "alpha_cvx_half = 0.42\n", "expect": ["0.422175"]},
    ],
}
