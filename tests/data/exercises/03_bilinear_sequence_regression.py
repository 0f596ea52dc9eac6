"""Plausible wrong answers to chapter 3's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

SLIP = "This is what one gets when "

WRONG = {
    "mmse_den_wide": [
        # the other root of the quadratic for G_Sigma(-s)
        {
            "replace": (
                "(upsilon - np.sqrt(upsilon**2 + 4 * rho * s)) / (2 * s)",
                "(upsilon + np.sqrt(upsilon**2 + 4 * rho * s)) / (2 * s)",
            ),
            "expect": [
                SLIP + "the other root of the quadratic is kept",
                "mmse_den_wide(noise=<array of shape (16,)>, rho=0.2)",
            ],
        },
        # Sigma read as chapter 2's Wishart matrix, without the factor sqrt(rho)
        {
            "code": "import numpy as np\n\n\ndef mmse_den_wide(noise, rho):\n    s = np.asarray(noise, float)\n"
            "    k = rho  # chapter 2: z G^2 - (1 - k + sqrt(k) z) G + sqrt(k) = 0 at z = -s\n"
            "    z = -s\n    b = 1 - k + np.sqrt(k) * z\n"
            "    G = (b + np.sqrt(b**2 - 4 * z * np.sqrt(k))) / (2 * z)\n"
            "    return s * (1 + s * G)\n",
            "expect": [SLIP + "Sigma is taken as chapter 2's W^T W / sqrt(md)", "at noise ="],
        },
        # the Marchenko-Pastur density integrated without its mass at zero
        {
            "code": "import numpy as np\nfrom scipy.integrate import quad\n\n\ndef mmse_den_wide(noise, rho):\n"
            "    lo, hi = (1 - np.sqrt(1 / rho)) ** 2, (1 + np.sqrt(1 / rho)) ** 2\n"
            "    dens = lambda x: rho * np.sqrt(max((hi - x) * (x - lo), 0)) / (2 * np.pi * x)\n"
            "    out = []\n    for s in np.atleast_1d(noise):\n"
            "        g = quad(lambda x: dens(x) / (x + s), lo, hi, epsabs=1e-14, epsrel=1e-12, limit=200)[0]\n"
            "        out.append(s * (1 - s * g))\n    return np.array(out)\n",
            "expect": [SLIP + "the mass 1 - rho of the Marchenko-Pastur law at zero is left out"],
        },
        # Sigma normalised by d: the variance of the signal read as rho
        {
            "replace": (
                "upsilon = rho * s + rho - 1.0\n    G = (upsilon - np.sqrt(upsilon**2 + 4 * rho * s)) / (2 * s)",
                "t = s / rho\n    upsilon = rho * t + rho - 1.0\n"
                "    G = (upsilon - np.sqrt(upsilon**2 + 4 * rho * t)) / (2 * t) / rho",
            ),
            "expect": [SLIP + "Sigma is normalised by d instead of r"],
        },
        # a sign slip in upsilon = rho s + rho - 1: no named slip, but the noise level where it differs
        {
            "replace": ("upsilon = rho * s + rho - 1.0", "upsilon = rho * s - rho + 1.0"),
            "expect": ["the result is", "at noise ="],
        },
        # the closed form typed from memory with the 4 forgotten in the discriminant
        {
            "replace": ("4 * rho * s", "rho * s"),
            "expect": ["mmse_den_wide(noise=<array of shape (16,)>, rho=0.2)"],
        },
    ],
    "differential_rank": [
        # the formula r(d + L - r) instead of a rank: wrong when r > min(d, L) and at non-generic points
        {
            "code": "def differential_rank(U, V):\n    (d, r), L = U.shape, V.shape[0]\n    return r * (d + L - r)\n",
            "expect": [
                SLIP + "the count r(d + L - r) of a generic point",
                "the result is 10",
                "the reference 12",
            ],
        },
        # the generic count done right (dL for r >= min(d, L)): caught at the first non-generic point
        {
            "code": "def differential_rank(U, V):\n    (d, r), L = U.shape, V.shape[0]\n"
            "    return d * L if r >= min(d, L) else r * (d + L - r)\n",
            "expect": [
                SLIP + "the count r(d + L - r) of a generic point",
                "the result is 24",
                "the reference 22",
            ],
        },
        # new random factors drawn instead of the given ones (the Jacobian of a generic point)
        {
            "code": "import numpy as np\n\n\ndef differential_rank(U, V):\n    (d, r), L = U.shape, V.shape[0]\n"
            "    rng = np.random.default_rng(0)\n"
            "    U, V = rng.standard_normal((d, r)), rng.standard_normal((L, r))\n"
            "    J = np.hstack([np.kron(np.eye(d), V), np.kron(U, np.eye(L))])\n"
            "    return int(np.linalg.matrix_rank(J))\n",
            "expect": [SLIP + "the count r(d + L - r) of a generic point", "the reference 22"],
        },
        # the redundancy forgotten: the number of columns, not the rank
        {
            "replace": ("return int(np.linalg.matrix_rank(jacobian))", "return jacobian.shape[1]"),
            "expect": [SLIP + "the redundant directions are forgotten", "the result is 24"],
        },
        # only the derivative in U
        {
            "replace": ("np.hstack([np.kron(np.eye(d), V), np.kron(U, np.eye(L))])", "np.kron(np.eye(d), V)"),
            "expect": [SLIP + "only the derivative in U", "the result is 10"],
        },
        # the two blocks in different vec conventions (column-major for dU V^T): not a slip the check names
        {"replace": ("np.kron(np.eye(d), V)", "np.kron(V, np.eye(d))"), "expect": ["differential_rank(U="]},
    ],
    "bsr_state_evolution": [
        # the label noise left out of the output variance: the noisy case fails
        {
            "replace": ("A = alpha / (delta + errors[-1])", "A = alpha / errors[-1]"),
            "expect": [SLIP + "the label noise delta is left out", "delta=0.5", "at iteration"],
        },
        # the noise variance returned in place of the precision
        {
            "replace": ("precisions.append(A)", "precisions.append(1.0 / A)"),
            "expect": [SLIP + "the noise variances 1/A^t are returned", "precisions is"],
        },
        # A^t computed from the new error (precision and error out of step)
        {
            "replace": (
                "        precisions.append(A)\n        errors.append(rie.rectangular_rie_mmse(1.0 / A, beta, rho))",
                "        errors.append(rie.rectangular_rie_mmse(1.0 / A, beta, rho))\n"
                "        precisions.append(alpha / (delta + errors[-1]))",
            ),
            "expect": [SLIP + "each precision is computed from the next error", "at iteration 0"],
        },
        # the overlap q_t = 1 - e_t used in place of the error: q_0 = 0 leaves no noise to divide by
        {
            "replace": ("A = alpha / (delta + errors[-1])", "A = alpha / (delta + 1 - errors[-1])"),
            "expect": ["alpha=0.3, beta=1, rho=0.2, delta=0, n_iter=8", "raised ZeroDivisionError", "line 9"],
        },
        # the precision passed to mmse_den in place of the noise variance
        {
            "replace": (
                "rie.rectangular_rie_mmse(1.0 / A, beta, rho)",
                "rie.rectangular_rie_mmse(A, beta, rho)",
            ),
            "expect": ["errors is", "at iteration 1"],
        },
        # the start q_0 = 0 read as an error e_0 = 0
        {
            "replace": ("errors, precisions = [1.0], []", "errors, precisions = [0.0], []"),
            "expect": ["n_iter=8", "raised ZeroDivisionError"],
        },
        # off by one: e_0 left out
        {
            "replace": (
                "return np.array(errors), np.array(precisions)",
                "return np.array(errors[1:]), np.array(precisions)",
            ),
            "expect": ["has shape (8,); the reference has shape (9,)"],
        },
        # only the errors returned
        {
            "replace": ("return np.array(errors), np.array(precisions)", "return np.array(errors)"),
            "expect": ["expected the tuple (errors, precisions)"],
        },
    ],
    "bsr_gamp_rie": [
        # the Onsager term with the wrong sign: the first iteration is right, the second not
        {
            "replace": ("F.forward(S) - C * g", "F.forward(S) + C * g"),
            "expect": ["bsr_gamp_rie(data=<Dataset>, n_iter=2, damping=0.5)", "at iteration 2"],
        },
        # the Onsager term forgotten
        {"replace": ("F.forward(S) - C * g", "F.forward(S)"), "expect": ["n_iter=2", "at iteration 2"]},
        # the Onsager term with the damped V instead of V_new = C_hat
        {
            "replace": (
                "omega_new = F.forward(S) - C * g  # Onsager term: V_new = C_hat, old g\n        V = damping * V + (1 - damping) * C",
                "V = damping * V + (1 - damping) * C\n        omega_new = F.forward(S) - V * g",
            ),
            "expect": ["n_iter=2", "at iteration 2"],
        },
        # the residual floor left out: V_bar = delta + V (it matters from the third iteration on)
        {
            "replace": ("V_bar = max(delta + V, np.mean((y - omega) ** 2))", "V_bar = delta + V"),
            "expect": ["n_iter=10", "at iteration 3"],
        },
        # the empirical precision alpha mean(g^2) instead of the derivative one
        {
            "replace": (
                "g, A = (y - omega) / V_bar, data.alpha / V_bar  # derivative precision",
                "g = (y - omega) / V_bar\n        A = data.alpha * np.mean(g**2)",
            ),
            "expect": [SLIP + "the precision is the empirical alpha mean(g^2)", "n_iter=1", "at iteration 1"],
        },
        # the same with the previous g (zero at the start): no precision at all
        {
            "replace": ("data.alpha / V_bar  # derivative precision", "data.alpha * np.mean(g**2)"),
            "expect": ["n_iter=1", "the result is nan at iteration 1"],
        },
        # no damping of the output state
        {
            "replace": ("omega = damping * omega + (1 - damping) * omega_new", "omega = omega_new"),
            "expect": ["n_iter=1", "at iteration 1"],
        },
        # no damping at all
        {
            "replace": (
                "V = damping * V + (1 - damping) * C\n        omega = damping * omega + (1 - damping) * omega_new",
                "V = C\n        omega = omega_new",
            ),
            "expect": [SLIP + "the output state is not damped", "n_iter=1", "at iteration 1"],
        },
        # the field of the denoiser without the precision on S: RIE of F^T g / A + S / A
        {
            "replace": ("denoiser.denoise(A, A * S + F.adjoint(g))", "denoiser.denoise(A, S + F.adjoint(g))"),
            "expect": ["n_iter=2", "at iteration"],
        },
        # S_hat^0 = 0 not returned: off by one
        {
            "replace": ("estimates = [S]", "estimates = []"),
            "expect": ["has shape (1, 30, 30); the reference has shape (2, 30, 30)"],
        },
    ],
    "alpha_lr_perfect": [
        {"code": "alpha_lr_perfect = 1.0\n", "expect": [SLIP + "the r^2 redundancies are dropped"]},
        {
            "code": "alpha_lr_perfect = 0.3 * (1 + 2 - 0.3) / 2\n",
            "expect": [SLIP + "alpha_PR = n/(dL) is given"],
        },
        {
            "code": "alpha_lr_perfect = 0.7\n",
            "expect": [SLIP + "the r^2 redundancies are counted against r d alone"],
        },
        {"code": "alpha_lr_perfect = 0.95\n", "expect": ["alpha_LR at perfect recovery", "Hint:"]},
    ],
    "ridge_error": [
        {"code": "ridge_error = max(1 - 1.0, 0)\n", "expect": [SLIP + "the noiseless answer"]},
        {
            "code": "import math\nridge_error = (-0.25 + math.sqrt(0.25**2 + 1)) / 2 + 0.25\n",
            "expect": [SLIP + "the test error MSE + Delta"],
        },
        {
            "code": "import math\nridge_error = (-0.25 - math.sqrt(0.25**2 + 1)) / 2\n",
            "expect": [SLIP + "the negative root"],
        },
        {"code": "ridge_error = 0.39\n", "expect": ["the ridge MSE at alpha = 1", "Hint:"]},
    ],
    "mmse_wide": [
        {
            "code": "mmse_wide = [0.9 * 0.5, 0.7 * (1 - 1.5)]\n",
            "expect": [SLIP + "(1 - alpha)(1 - alpha/rho) is used beyond"],
        },
        {"code": "mmse_wide = [0.9, 0.7]\n", "expect": [SLIP + "the ridge error 1 - alpha"]},
        {"code": "mmse_wide = [0.5, -0.5]\n", "expect": [SLIP + "only the gain"]},
        {"code": "mmse_wide = 0.45\n", "expect": ["has shape"]},
    ],
    "e_inf_estimate": [
        {"code": "e_inf_estimate = 0.5\n", "expect": [SLIP + "the averaged error e_J is taken"]},
        {
            "code": "e_inf_estimate = (32 * 0.5 - 0.8) / 32\n",
            "expect": [SLIP + "(J e_J - e_1) is divided by J"],
        },
        {"code": "e_inf_estimate = 0.5 - 0.3 / 32\n", "expect": [SLIP + "the correction (e_1 - e_J)/J"]},
        {"code": "e_inf_estimate = 0.8 - 0.5\n", "expect": ["e_inf from e_1", "Hint:"]},
    ],
}
