"""Experiment sizes, read from one place: the ``lecture``, ``paper`` and ``full`` presets, and the hardware they need.

Every chapter and benchmark takes its sizes from :func:`sizes`; nothing hard-codes a size twice.
The preset is chosen by the environment variable ``SOLVABLE_SIZE`` (``lecture`` by default, ``paper`` or
``full``)::

    SOLVABLE_SIZE=paper jupyter execute --inplace chapters/01_perceptron.ipynb

What each preset needs (:data:`HARDWARE`):

- ``lecture`` keeps every chapter under 3 minutes on 2 cores (the nbval regression tests run it);
- ``paper`` uses the sizes of the original figures where 2 CPU cores can afford them, and says in the chapter where
  it cannot;
- ``full`` runs the papers' own protocols (gradient descent at the papers' sizes, numbers of initialisations and
  step caps): it is meant for a GPU, or a machine with many cores.

Two more variables say where the runs go. ``SOLVABLE_JOBS`` is the number of worker processes of the chapters'
sweeps (:func:`n_jobs`; ``-1`` every core); ``SOLVABLE_DEVICE`` is where gradient descent runs (:func:`device`:
``cpu``, ``cuda`` or ``auto``, the GPU when PyTorch or CuPy sees one). Numbers asserted inside a chapter carry
tolerances computed from the size, so every preset passes, and the results do not depend on the number of workers.
"""

from __future__ import annotations

import dataclasses
import numbers
import os

import numpy as np

from .domains import Domain, choice, declare, optional, unchecked
from .errors import InvalidParameterError
from .results import record

__all__ = [
    "Sizes",
    "PRESETS",
    "HARDWARE",
    "preset_name",
    "sizes",
    "n_jobs",
    "device",
    "jobs_from_environment",
    "check_jobs",
    "max_jobs",
]

ENV_VAR = "SOLVABLE_SIZE"
JOBS_VAR = "SOLVABLE_JOBS"
DEVICE_VAR = "SOLVABLE_DEVICE"
DEVICES = ("cpu", "cuda", "auto")


@record
class Sizes:
    """Sizes of every experiment of the course; the field names say which chapter uses them.

    The instances are ``PRESETS["lecture"]``, ``PRESETS["paper"]`` and ``PRESETS["full"]``; :func:`sizes` returns
    the active one.

    Parameters
    ----------
    perceptron_gamp_d, perceptron_gamp_seeds, perceptron_gamp_iterations : int
        Chapter 1, GAMP vs state evolution: dimension, number of independent runs, iterations.
    perceptron_sweep_d, perceptron_sweep_seeds : int
        Chapter 1, GAMP final error against alpha: dimension, data sets per alpha (one initialisation each).
    perceptron_erm_d, perceptron_erm_seeds : int
        Chapter 1, ridge / logistic / max-margin ERM simulations: dimension and data sets per alpha.
    storage_d, storage_trials : int
        Chapter 1, storage of random labels (exact separability tests): the largest dimension simulated and the
        trials per alpha.
    storage_dims : tuple of int
        Chapter 1, the dimensions simulated (``storage_d`` is the largest).
    rmt_d : int
        Chapter 2, symmetric matrices (spectra, spikes, RIE against its MMSE and the baselines): dimension d.
    rmt_rect_d : int
        Chapter 2, rectangular matrices (singular values, rectangular RIE): smaller side d (the other is 2d).
    rmt_sweep_seeds : int
        Chapter 2, independent draws per point (RIE and baselines against the signal-to-noise ratio, eigenvector
        overlaps of the spiked matrices, RIE error at one noise level).
    rmt_overlap_d : int
        Chapter 2, eigenvector overlaps against the Ledoit-Peche formula (rank-one spike and Wishart signal):
        dimension d (the draws per point are ``rmt_sweep_seeds``).
    bsr_betas : tuple
        Chapter 3, bilinear sequence regression: aspect ratios beta = L/d of the experiments (L the long side).
    bsr_gamp_L, bsr_gamp_seeds, bsr_gamp_max_iter, bsr_gamp_trajectories : int
        Chapter 3, GAMP-RIE against the Bayes-optimal error: sequence length L (d = L/beta), data sets per alpha
        (the error bars), iteration cap; data sets of the trajectory figure (12 steps).
    bsr_gamp_alphas : tuple of float
        Chapter 3, the sample ratios alpha of the GAMP-RIE runs.
    bsr_gd_L, bsr_gd_inits, bsr_gd_datasets, bsr_gd_max_steps : int
        Chapter 3, gradient descent: L, initialisations averaged, data sets per alpha, step cap.
    bsr_gd_alphas, bsr_gd_noisy_alphas : tuple of float
        Chapter 3, gradient descent: sample ratios, noiseless and noisy (the noisy ones stay below the
        interpolation threshold, where the runs reach zero training loss).
    bsr_gd_dtype : str
        Chapter 3, gradient descent: precision, ``"float64"`` or ``"float32"``.
    bsr_gd_stopping_L : int
        Chapter 3, L of the early-stopping run (alpha = 0.3, one data set).
    bsr_mnne_L, bsr_mnne_seeds, bsr_mnne_large_L, bsr_mnne_large_seeds : int
        Chapter 3, minimum nuclear norm (ADMM): L = d and data sets per alpha; a larger L = d and its data sets
        at alpha = 0.3 and 0.4 (around the finite-size transition, to show how the points move with size).
    bsr_implicit_L, bsr_implicit_seeds, bsr_implicit_inits, bsr_implicit_max_steps : int
        Chapter 3, small-initialisation GD against the minimum nuclear norm on the same data sets (the talk's
        "does GD do implicit nuclear-norm regularisation?", beta = 1, rho = 0.2, alpha = 0.45): L = d, data
        sets, GD initialisations per data set (the run with the lowest training loss is kept), GD step cap.
    bsr_overparam_L, bsr_overparam_datasets, bsr_overparam_prior_inits, bsr_overparam_small_inits : int
        Chapter 3, the over-parametrised student (width p = r, 2r, d; beta = 1, rho = 0.2, noiseless): L = d,
        data sets per alpha, prior-init runs K, small-init runs (the lowest training loss is kept).
    bsr_overparam_alphas, bsr_overparam_scales : tuple of float
        Chapter 3, the over-parametrised student: the alphas, and the initial scales of the full-width student
        at the largest alpha.
    bsr_overparam_max_steps : int
        Chapter 3, the over-parametrised student: GD step cap.
    quadratic_gamp_d, quadratic_gamp_seeds : int
        Chapter 4, GAMP-RIE against the Bayes-optimal error: dimension d and independent data sets per alpha.
    quadratic_gd_d, quadratic_gd_inits, quadratic_gd_datasets : int
        Chapter 4, gradient descent on the weights: dimension, initialisations averaged, data sets per alpha.
    quadratic_erm_d, quadratic_erm_seeds : int
        Chapter 4, ERM through its convex (nuclear-norm) twin: dimension and data sets per alpha.
    quadratic_trace_d, quadratic_trace_seeds : int
        Chapter 4, the min-trace PSD program solved at finite size (ADMM): dimension, data sets per alpha.
    ellipsoid_dims : tuple of int
        Chapter 4, ellipsoid fitting (SAT/UNSAT transition at n/d^2 = 1/4): the dimensions d.
    ellipsoid_instances, ellipsoid_max_iter : int
        Chapter 4, ellipsoid fitting: independent point sets per ratio n/d^2, iteration cap of the alternating
        projections (a run at the cap counts as undecided).
    attention_gamp_d, attention_gamp_seeds : int
        Chapter 5, attention-indexed model: GAMP-RIE against the Bayes-optimal error (dimension d, runs per
        alpha).
    attention_gamp_scan_d : tuple of int
        Chapter 5, GAMP-RIE finite-size scan at T = 3, alpha = 0.05: the dimensions.
    attention_gamp_scan_seeds : int
        Chapter 5, the same scan: data sets per dimension.
    attention_gd_d, attention_gd_students, attention_gd_datasets, attention_gd_steps : int
        Chapter 5, Adam on tied softmax students: dimension d, students per data set (averaged), data sets per
        alpha, Adam steps.
    attention_curve_points, attention_mc_samples : int
        Chapter 5, points per theory curve (Bayes-optimal error against alpha) and Monte-Carlo samples of the
        sequence multi-index and hardmax state evolutions.
    smi2_samples, smi2_nodes : int
        Chapter 5, two tied softmax layers: Monte-Carlo draws of the state evolution, and Gauss-Hermite nodes per
        token of its quadrature over the first layer.
    smi2_gamp_d, smi2_gamp_seeds, smi2_gamp_nodes, smi2_gamp_iterations : int
        Chapter 5, two-layer GAMP: dimension, data sets per alpha, quadrature nodes per token, iterations.
    """

    perceptron_gamp_d: int
    perceptron_gamp_seeds: int
    perceptron_gamp_iterations: int
    perceptron_sweep_d: int
    perceptron_sweep_seeds: int
    perceptron_erm_d: int
    perceptron_erm_seeds: int
    storage_d: int
    storage_trials: int
    storage_dims: tuple
    rmt_d: int
    rmt_rect_d: int
    rmt_sweep_seeds: int
    rmt_overlap_d: int
    bsr_betas: tuple
    bsr_gamp_L: int
    bsr_gamp_alphas: tuple
    bsr_gamp_seeds: int
    bsr_gamp_max_iter: int
    bsr_gamp_trajectories: int
    bsr_gd_L: int
    bsr_gd_inits: int
    bsr_gd_datasets: int
    bsr_gd_alphas: tuple
    bsr_gd_noisy_alphas: tuple
    bsr_gd_max_steps: int
    bsr_gd_dtype: str
    bsr_gd_stopping_L: int
    bsr_mnne_L: int
    bsr_mnne_seeds: int
    bsr_mnne_large_L: int
    bsr_mnne_large_seeds: int
    bsr_implicit_L: int
    bsr_implicit_seeds: int
    bsr_implicit_inits: int
    bsr_implicit_max_steps: int
    bsr_overparam_L: int
    bsr_overparam_datasets: int
    bsr_overparam_prior_inits: int
    bsr_overparam_small_inits: int
    bsr_overparam_alphas: tuple
    bsr_overparam_scales: tuple
    bsr_overparam_max_steps: int
    quadratic_gamp_d: int
    quadratic_gamp_seeds: int
    quadratic_gd_d: int
    quadratic_gd_inits: int
    quadratic_gd_datasets: int
    quadratic_erm_d: int
    quadratic_erm_seeds: int
    quadratic_trace_d: int
    quadratic_trace_seeds: int
    ellipsoid_dims: tuple
    ellipsoid_instances: int
    ellipsoid_max_iter: int
    attention_gamp_d: int
    attention_gamp_seeds: int
    attention_gamp_scan_d: tuple
    attention_gamp_scan_seeds: int
    attention_gd_d: int
    attention_gd_students: int
    attention_gd_datasets: int
    attention_gd_steps: int
    attention_curve_points: int
    attention_mc_samples: int
    smi2_samples: int
    smi2_nodes: int
    smi2_gamp_d: int
    smi2_gamp_seeds: int
    smi2_gamp_nodes: int
    smi2_gamp_iterations: int


#: The presets by name, each a :class:`Sizes`: ``"lecture"`` (every chapter under 3 minutes on 2 cores),
#: ``"paper"`` (the sizes of the original figures, or as close as 2 cores allow) and ``"full"`` (the papers' own
#: protocols; see :data:`HARDWARE`).
#:
#: :meta hide-value:
PRESETS = {
    "lecture": Sizes(
        perceptron_gamp_d=2000,
        perceptron_gamp_seeds=10,
        perceptron_gamp_iterations=30,
        perceptron_sweep_d=1000,
        perceptron_sweep_seeds=10,
        perceptron_erm_d=400,
        perceptron_erm_seeds=40,
        storage_d=100,
        storage_trials=100,
        storage_dims=(25, 50, 100),
        rmt_d=1000,
        rmt_rect_d=500,
        rmt_sweep_seeds=8,
        rmt_overlap_d=400,
        # Chapter 3
        bsr_betas=(1.0,),
        bsr_gamp_L=80,
        bsr_gamp_alphas=(0.1, 0.2, 0.3, 0.45, 0.6),
        bsr_gamp_seeds=3,
        bsr_gamp_max_iter=200,
        bsr_gamp_trajectories=6,
        bsr_gd_L=40,
        bsr_gd_inits=32,
        bsr_gd_datasets=3,
        bsr_gd_alphas=(0.1, 0.2, 0.3),
        bsr_gd_noisy_alphas=(0.1, 0.2, 0.25),
        bsr_gd_max_steps=50_000,
        bsr_gd_dtype="float64",
        bsr_gd_stopping_L=40,
        bsr_mnne_L=20,
        bsr_mnne_seeds=10,
        bsr_mnne_large_L=40,
        bsr_mnne_large_seeds=6,
        bsr_implicit_L=30,
        bsr_implicit_seeds=8,
        bsr_implicit_inits=4,
        bsr_implicit_max_steps=10_000,
        bsr_overparam_L=30,
        bsr_overparam_datasets=6,
        bsr_overparam_prior_inits=8,
        bsr_overparam_small_inits=2,
        bsr_overparam_alphas=(0.15, 0.3, 0.45),
        bsr_overparam_scales=(1e-3, 1e-5, 1e-7),
        bsr_overparam_max_steps=20_000,
        # Chapter 4
        quadratic_gamp_d=80,
        quadratic_gamp_seeds=6,
        quadratic_gd_d=50,
        quadratic_gd_inits=32,
        quadratic_gd_datasets=6,
        quadratic_erm_d=24,
        quadratic_erm_seeds=6,
        quadratic_trace_d=20,
        quadratic_trace_seeds=6,
        ellipsoid_dims=(20, 30),  # about 15 s on one core
        ellipsoid_instances=12,
        ellipsoid_max_iter=10_000,
        # Chapter 5
        attention_gamp_d=80,
        attention_gamp_seeds=4,
        attention_gamp_scan_d=(60, 80, 120),
        attention_gamp_scan_seeds=10,
        attention_gd_d=40,
        attention_gd_students=16,
        attention_gd_datasets=4,
        attention_gd_steps=1000,
        attention_curve_points=64,
        attention_mc_samples=20_000,
        smi2_samples=400,
        smi2_nodes=16,
        smi2_gamp_d=200,
        smi2_gamp_seeds=3,
        smi2_gamp_nodes=6,
        smi2_gamp_iterations=60,
    ),
    "paper": Sizes(
        perceptron_gamp_d=10000,
        perceptron_gamp_seeds=10,
        perceptron_gamp_iterations=60,
        perceptron_sweep_d=5000,
        perceptron_sweep_seeds=5,
        perceptron_erm_d=1000,
        perceptron_erm_seeds=10,
        storage_d=200,
        storage_trials=400,
        storage_dims=(50, 100, 200),
        rmt_d=2000,
        rmt_rect_d=1000,
        rmt_sweep_seeds=8,
        rmt_overlap_d=1000,
        # Chapter 3 (arXiv:2410.18858: GAMP-RIE and GD at d = 100 on the long side, one data set per alpha for
        # GAMP-RIE, 3-4 for GD with 64 initialisations; MNNE at d = 20 and 50 with 16 data sets). Kept: the
        # sizes d = L = 100 (beta = 1, 2), K = 64, the MNNE sizes and data sets. Changed so that the chapter
        # runs in minutes (measured: 7.9 min of CPU, single-threaded BLAS): GAMP-RIE on the paper's alpha grid
        # at step 0.1 (not 0.05), 2 data sets per alpha for the error bars; GD on the paper's alphas up to 0.2,
        # 3 data sets, in float32
        # (0.2 s per step at alpha = 0.2, d = L = 100, K = 64). Closer to alpha_PR, at 0.25-0.3, plain GD at
        # d = 100 needs thousands of steps (hours on 2 cores; the paper's own runs there were stopped early,
        # at training errors 0.06-0.12): those alphas are shown at the lecture size L = 40, all converged.
        bsr_betas=(1.0, 2.0),
        bsr_gamp_L=100,
        bsr_gamp_alphas=(0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6),
        bsr_gamp_seeds=6,  # 2 data sets gave standard errors off by 10x (one run's spread 0.02 at L = 100)
        bsr_gamp_max_iter=500,
        bsr_gamp_trajectories=8,
        bsr_gd_L=100,
        bsr_gd_inits=64,
        bsr_gd_datasets=3,
        bsr_gd_alphas=(0.05, 0.1, 0.15, 0.2),
        bsr_gd_noisy_alphas=(0.05, 0.1, 0.15, 0.2),
        bsr_gd_max_steps=5_000,
        bsr_gd_dtype="float32",
        bsr_gd_stopping_L=40,
        bsr_mnne_L=20,
        bsr_mnne_seeds=16,
        bsr_mnne_large_L=50,
        bsr_mnne_large_seeds=16,
        bsr_implicit_L=30,  # the size of the talk (Les Houches 2025); more data sets for the error bars
        bsr_implicit_seeds=20,
        bsr_implicit_inits=4,
        bsr_implicit_max_steps=10_000,
        bsr_overparam_L=40,
        bsr_overparam_datasets=8,
        bsr_overparam_prior_inits=16,
        bsr_overparam_small_inits=2,
        bsr_overparam_alphas=(0.15, 0.3, 0.45),
        bsr_overparam_scales=(1e-3, 1e-5, 1e-7),
        bsr_overparam_max_steps=20_000,
        # Chapter 4
        quadratic_gamp_d=200,
        quadratic_gamp_seeds=4,
        quadratic_gd_d=100,
        quadratic_gd_inits=16,  # the authors used 16 or 64 inits and 2 data sets; 4 data sets give the error bars
        quadratic_gd_datasets=4,
        quadratic_erm_d=60,
        quadratic_erm_seeds=4,
        quadratic_trace_d=40,
        quadratic_trace_seeds=20,
        ellipsoid_dims=(30, 40),  # larger d and more point sets: a sharper transition, smaller error bars
        ellipsoid_instances=40,
        ellipsoid_max_iter=20_000,
        # Chapter 5 (arXiv:2506.01582: GAMP-RIE at d = 150 with 20 runs, Adam at d = 200 with 32 students and 1000
        # steps, theory on 256 points; arXiv:2502.00901: Monte-Carlo state evolution with 1e5 samples)
        attention_gamp_d=150,
        attention_gamp_seeds=20,
        attention_gamp_scan_d=(100, 150, 224),
        attention_gamp_scan_seeds=12,
        # Chapter 5 GD: the paper trains at d = 200; on 2 cores that costs about a quarter of an hour per alpha
        # and data set, so this preset keeps the 32 students (4 data sets per alpha) and trains at d = 60.
        attention_gd_d=60,
        attention_gd_students=32,
        attention_gd_datasets=4,
        attention_gd_steps=1000,
        attention_curve_points=256,
        attention_mc_samples=100_000,
        smi2_samples=2000,
        smi2_nodes=16,
        smi2_gamp_d=400,
        smi2_gamp_seeds=6,
        smi2_gamp_nodes=8,
        smi2_gamp_iterations=60,
    ),
}


# The papers' protocols where the paper preset shrinks them: chapter 3's gradient descent at d = L = 100 with 64
# initialisations on the paper's alphas up to 0.3 (below alpha_PR = 0.36 at beta = 1, across alpha_PR = 0.28 at
# beta = 2) and the paper's cap of 5e4 steps (arXiv:2410.18858); chapter 4's 64
# initialisations (arXiv:2408.03733); chapter 5's Adam students at the paper's d = 200 (arXiv:2506.01582).
PRESETS["full"] = dataclasses.replace(
    PRESETS["paper"],
    bsr_gd_alphas=(0.05, 0.1, 0.15, 0.2, 0.25, 0.3),
    bsr_gd_noisy_alphas=(0.05, 0.1, 0.15, 0.2, 0.25),
    bsr_gd_max_steps=50_000,
    bsr_gd_stopping_L=100,
    quadratic_gd_inits=64,
    attention_gd_d=200,
)

#: What each preset needs, in words: the hardware it was written for and how long it takes there (measured on
#: the machine named, or said to be an estimate).
#:
#: :meta hide-value:
HARDWARE = {
    "lecture": "2 CPU cores: each chapter runs in 1 to 3 minutes (the test suite executes this preset).",
    "paper": "2 CPU cores: about 25 minutes for the five chapters, each chapter spreading its independent runs "
    "over the cores (SOLVABLE_JOBS, default every core).",
    "full": "a GPU seen by PyTorch or CuPy (SOLVABLE_DEVICE=auto, the default of this preset) for the gradient "
    "descents of chapters 3-5, and every core for the other sweeps; or, without a GPU, a machine with "
    "16 or more cores. On 2 CPU cores its gradient descents alone take many hours (an estimate: about 0.1 s "
    "per step for 64 students at d = L = 100, and thousands of steps per run near alpha_PR).",
}

#: Workers of the chapters' sweeps by preset (None: one after the other, as the committed outputs were made).
_DEFAULT_JOBS = {"lecture": None, "paper": -1, "full": -1}
#: Where gradient descent runs by preset.
_DEFAULT_DEVICE = {"lecture": "cpu", "paper": "cpu", "full": "auto"}


@declare()
def preset_name() -> str:
    """The name of the active preset: the value of the environment variable ``SOLVABLE_SIZE``.

    Returns
    -------
    str
        ``"lecture"`` (the default, also when the variable is unset or empty), ``"paper"`` or ``"full"``.

    Raises
    ------
    ValueError
        If ``SOLVABLE_SIZE`` names no preset.
    """
    name = os.environ.get(ENV_VAR, "lecture").strip().lower() or "lecture"
    if name not in PRESETS:
        raise InvalidParameterError(f"{ENV_VAR} must be one of {', '.join(map(repr, PRESETS))}; got {name!r}")
    return name


@declare()
def sizes() -> Sizes:
    """The sizes of the active preset.

    Returns
    -------
    Sizes
        ``PRESETS[preset_name()]``.

    Raises
    ------
    ValueError
        If ``SOLVABLE_SIZE`` names no preset (see :func:`preset_name`).
    """
    return PRESETS[preset_name()]


@declare()
def device() -> str:
    """Where the chapters run gradient descent: the environment variable ``SOLVABLE_DEVICE``, or the preset's.

    Returns
    -------
    str
        ``"cpu"`` (NumPy), ``"cuda"`` (a GPU through PyTorch or CuPy) or ``"auto"`` (the GPU where one is seen,
        otherwise NumPy); the default is ``"cpu"`` for the ``lecture`` and ``paper`` presets and ``"auto"`` for
        ``full``. The ``device`` argument of ``bsr.gd``, ``quadratic.gd`` and ``attention.gd`` takes it.

    Raises
    ------
    ValueError
        If ``SOLVABLE_DEVICE`` names no device, or ``SOLVABLE_SIZE`` no preset.
    """
    value = os.environ.get(DEVICE_VAR, "").strip().lower()
    if not value:
        return _DEFAULT_DEVICE[preset_name()]
    if value not in DEVICES:
        raise InvalidParameterError(
            f"{DEVICE_VAR} must be one of {', '.join(map(repr, DEVICES))}; got {value!r}"
        )
    return value


@declare(device=choice(*DEVICES))
def n_jobs(device: str = "cpu") -> int | None:
    """Worker processes for a chapter's independent runs: ``SOLVABLE_JOBS``, or the preset's.

    Parameters
    ----------
    device : {"cpu", "cuda", "auto"}, optional
        Where the runs compute. Runs on a GPU go one after the other (``1``): one process drives the GPU, which
        runs the students of a run side by side itself. ``"auto"`` counts as a GPU where one is seen.

    Returns
    -------
    int or None
        The ``n_jobs`` of :func:`solvable.experiments.sweep` and :func:`solvable.experiments.parallel_map`:
        None (one after the other, in the chapter's own process; the ``lecture`` preset, as its committed outputs
        were made), ``-1`` (every core; ``paper`` and ``full``), or the integer ``SOLVABLE_JOBS`` gives
        (``-1`` or ``1 .. config.max_jobs()``). The results are the same for every value.

    Raises
    ------
    InvalidParameterError
        If ``device`` is not one of ``"cpu"``, ``"cuda"``, ``"auto"`` (in any case).
    ValueError
        If ``SOLVABLE_JOBS`` is neither ``-1`` nor an integer in
        ``[1, config.max_jobs()]``, or ``SOLVABLE_SIZE`` names no preset.
    """
    if _on_gpu(device):
        return 1
    return jobs_from_environment(JOBS_VAR, _DEFAULT_JOBS[preset_name()])


@declare()
def max_jobs() -> int:
    """The most worker processes a run may ask for: the cores of this machine (``os.cpu_count()``), and at least 2.

    Returns
    -------
    int
        ``max(2, os.cpu_count())`` (2 where Python cannot tell): on one core two workers run one after the other in
        effect (slower, never wrong), as the tests of the parallel runs ask.
    """
    return max(2, os.cpu_count() or 1)


def _jobs_domain() -> str:
    return f"-1 (every core) or an integer in [1, {max_jobs()}] (the cores of this machine)"


def _check_name(name, value):
    if not isinstance(value, str) or not value:
        raise InvalidParameterError(
            f"{name} must be a non-empty string, got {type(value).__name__} {value!r:.60}"
        )
    return value


#: The name of a parameter or of an environment variable.
_NAME = Domain("a non-empty string", _check_name, "any")


@declare(name=_NAME, value=unchecked("any object: this function is the check of a number of workers"))
def check_jobs(name: str, value):
    """Return ``value`` if it is a number of worker processes: ``-1`` (every core) or ``1 .. config.max_jobs()``.

    Parameters
    ----------
    name : str
        The parameter's (or environment variable's) name, for the message.
    value : object
        The argument: a Python or NumPy integer (a 0-d integer array counts as its integer).

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    InvalidParameterError
        For anything else (naming ``name`` and the domain): 0, ``-2`` and other negative counts, more workers than
        cores (:func:`max_jobs`), a float (even ``2.0``), a boolean, a string, None.

    Notes
    -----
    joblib also reads ``-2`` as "all cores but one" and accepts any positive count; the library keeps to the two
    forms a reader can check at a glance, and never starts more processes than there are cores. Inside
    ``joblib.parallel_config(backend="dask")``, ``-1`` sends the jobs to every worker of the Dask cluster, which
    may be more than this machine's cores; a positive count is bounded by this machine's cores all the same.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name} must be {_jobs_domain()}, got {type(value).__name__} {value!r:.60}"
        )
    jobs = int(value)
    if jobs != -1 and not 1 <= jobs <= max_jobs():
        raise InvalidParameterError(f"{name} must be {_jobs_domain()}, got {jobs}")
    return jobs


@declare(
    variable=_NAME,
    default=optional(
        Domain(_jobs_domain(), check_jobs, "int", (-1, max_jobs(), False, False)), "one after the other"
    ),
)
def jobs_from_environment(variable: str, default: int | None) -> int | None:
    """A number of worker processes read from an environment variable (joblib's ``n_jobs``).

    Parameters
    ----------
    variable : str
        The variable's name (``SOLVABLE_JOBS`` for the chapters, ``REPRO_JOBS`` for the reproductions).
    default : int or None
        What an unset or empty variable stands for.

    Returns
    -------
    int or None
        The variable's integer (``-1`` every core, or ``1 .. config.max_jobs()`` workers), or ``default``.

    Raises
    ------
    ValueError
        If the variable holds anything else (the message names the variable and the domain): 0, ``-2``, more
        workers than cores, ``1.5``, ``two`` (:func:`check_jobs`); or if ``default`` is neither None nor such a
        number, or ``variable`` is not a non-empty string (:class:`~solvable.errors.InvalidParameterError`).
    """
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    try:
        jobs = int(value)
    except ValueError:
        raise InvalidParameterError(f"{variable} must be {_jobs_domain()}, got {value!r}") from None
    return check_jobs(variable, jobs)


def _on_gpu(device: str) -> bool:
    """Whether gradient descent at ``device`` runs on a GPU (``"auto"`` asks :mod:`solvable.backend`)."""
    if device == "cuda":
        return True
    if device == "auto":
        from .backend import gpu_available  # imported here: the GPU libraries load only when asked for

        return gpu_available()
    return False
