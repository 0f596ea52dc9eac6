"""solvable: executable companion of the lectures on solvable models of learning.

One approximate-message-passing / state-evolution engine carries every model of the course:
a signal (a vector ``w`` or a matrix ``S``) seen through a linear map, then an output channel.

Modules
-------
config       lecture / paper size presets (``SOLVABLE_SIZE=paper``)
validation   argument checks that raise ``ValueError`` naming the parameter and its range
integration  Gaussian expectations (Gauss-Hermite), stable log Phi, sign-channel substitutions
priors       separable priors (Gaussian, Rademacher) as denoisers, with their state-evolution integrals
channels     output channels (sign, probit, noisy linear): g_out, its derivative, SE integrals
amp          the generic GAMP loop (linear map + output channel + denoiser)
glm          the teacher-student perceptron / generalised linear model
erm          empirical risk minimisation asymptotics (ridge, logistic) and finite-size solvers
gardner      Gardner capacity of the perceptron (spherical with margin, binary)
bsr          bilinear sequence regression: Bayes-optimal error, GAMP-RIE, thresholds, ridge, nuclear norm, GD
quadratic    extensive-width quadratic networks: matrix sensing, Bayes-optimal error, GAMP-RIE, GD, nuclear norm
attention    attention-indexed models (softmax, hardmax) and the sequence multi-index model
gd           gradient descent on factorised weights (K initialisations batched), shared by the matrix models
spectra      spectral laws: semicircle, Marchenko-Pastur, free convolution (Wishart + GOE, rectangular)
rie          rotationally invariant estimators (symmetric, rectangular) and their MMSE
metrics      errors of an estimator (classification error from overlaps, angle error)
experiments  finite-size sweeps over parameters and seeds
errors       ConvergenceWarning and DivergenceError
plotting     figure helpers used by the chapters
widgets      interactive explorers and their static (no-kernel) twins
"""

__version__ = "0.1.0"
