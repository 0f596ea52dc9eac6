"""Plausible wrong answers to chapter 3's exercises, and words their verdict must contain.

Each entry replaces a piece of the solution (``replace``: old, new) or gives the whole cell (``code``).
"""

WRONG = {
    "mmse_den_wide": [
        # a sign slip in a = rho s + rho - 1
        {"replace": ("a = rho * noise + rho - 1.0", "a = rho * noise - rho + 1.0"),
         "expect": ["the result is", "at noise ="]},
        # the factor 1/2 in front of the bracket dropped
        {"replace": ("noise - noise / 2 *", "noise - noise *"), "expect": ["at noise ="]},
        # the discriminant a^2 + 4 rho s with its 4 forgotten
        {"replace": ("4 * rho * noise", "rho * noise"), "expect": ["mmse_den_wide(noise=<array of shape (16,)>, rho=0.2)"]},
    ],
    "rank_r_dimension": [
        # the formula r(d + L - r) instead of the Jacobian: wrong when r > min(d, L)
        {"code": "def rank_r_dimension(d, L, r):\n    return r * (d + L - r)\n",
         "expect": ["rank_r_dimension(d=3, L=4, r=5)", "the result is 10", "the reference 12"]},
        # the redundancy (U A, -V A^T) forgotten: the number of columns, not the rank
        {"replace": ("return int(np.linalg.matrix_rank(jacobian))", "return jacobian.shape[1]"),
         "expect": ["rank_r_dimension(d=5, L=7, r=2)", "the result is 24"]},
        # only the derivative in U
        {"replace": ("np.hstack([np.kron(np.eye(d), V), np.kron(U, np.eye(L))])", "np.kron(np.eye(d), V)"),
         "expect": ["rank_r_dimension(d=5, L=7, r=2)", "the result is 10"]},
    ],
    "bsr_state_evolution": [
        # the label noise left out of the effective noise: the noisy case fails
        {"replace": ("noise = (delta + errors[-1]) / alpha", "noise = errors[-1] / alpha"),
         "expect": ["delta=0.5", "at iteration"]},
        # the overlap q_t = 1 - e_t used in place of the error
        {"replace": ("noise = (delta + errors[-1]) / alpha", "noise = (delta + 1 - errors[-1]) / alpha"),
         "expect": ["alpha=0.3, beta=1, rho=0.2, delta=0, n_iter=8", "at iteration"]},
        # alpha multiplies instead of divides
        {"replace": ("noise = (delta + errors[-1]) / alpha", "noise = (delta + errors[-1]) * alpha"),
         "expect": ["at iteration"]},
        # the start q_0 = 0 read as an error e_0 = 0
        {"replace": ("errors = [1.0]", "errors = [0.0]"), "expect": ["at iteration 0"]},
        # off by one: e_0 left out
        {"replace": ("return np.array(errors)", "return np.array(errors[1:])"),
         "expect": ["has shape (8,); the reference has shape (9,)"]},
    ],
    "bsr_gamp_rie": [
        # the Onsager term with the wrong sign: the first iteration is right, the second not
        {"replace": ("F.forward(S) - C * g", "F.forward(S) + C * g"),
         "expect": ["bsr_gamp_rie(data=<Dataset>, n_iter=2, damping=0.5)", "at iteration 2"]},
        # the Onsager term forgotten
        {"replace": ("F.forward(S) - C * g", "F.forward(S)"),
         "expect": ["n_iter=2", "at iteration 2"]},
        # the Onsager term with the damped V instead of V_new = C_hat
        {"replace": ("omega_new = F.forward(S) - C * g  # Onsager term: V_new = C_hat, old g\n        V = damping * V + (1 - damping) * C",
                     "V = damping * V + (1 - damping) * C\n        omega_new = F.forward(S) - V * g"),
         "expect": ["n_iter=2", "at iteration 2"]},
        # the residual floor left out: W = delta + V (it matters from the third iteration on)
        {"replace": ("W = max(delta + V, np.mean((y - omega) ** 2))", "W = delta + V"),
         "expect": ["n_iter=10", "at iteration 3"]},
        # the empirical precision alpha mean(g^2) instead of the derivative one
        {"replace": ("data.alpha / W  # derivative precision", "data.alpha * np.mean(g**2)"),
         "expect": ["n_iter=1", "at iteration 1"]},
        # no damping of the output state
        {"replace": ("omega = damping * omega + (1 - damping) * omega_new", "omega = omega_new"),
         "expect": ["n_iter=1", "at iteration 1"]},
        # the field of the denoiser without the precision on S: RIE of F^T g / A + S / A
        {"replace": ("denoiser.denoise(A, A * S + F.adjoint(g))", "denoiser.denoise(A, S + F.adjoint(g))"),
         "expect": ["n_iter=2", "at iteration"]},
        # S_hat^0 = 0 not returned: off by one
        {"replace": ("estimates = [S]", "estimates = []"),
         "expect": ["has shape (1, 30, 30); the reference has shape (2, 30, 30)"]},
    ],
}
