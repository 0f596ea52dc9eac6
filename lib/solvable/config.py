"""Experiment sizes, read from one place: the ``lecture`` and ``paper`` presets.

Every chapter and benchmark takes its sizes from :func:`sizes`; nothing hard-codes a size twice.
The preset is chosen by the environment variable ``SOLVABLE_SIZE`` (``lecture`` by default, or
``paper``)::

    SOLVABLE_SIZE=paper jupyter execute --inplace chapters/01_perceptron.ipynb

``lecture`` keeps every chapter under 3 minutes on 2 cores (the nbval regression tests run it);
``paper`` uses the sizes of the original figures and takes longer (the chapter prints how long).
Numbers asserted inside a chapter carry tolerances computed from the size, so both presets pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["Sizes", "PRESETS", "preset_name", "sizes"]

ENV_VAR = "SOLVABLE_SIZE"


@dataclass(frozen=True)
class Sizes:
    """Sizes of every experiment of the course (field names say which chapter uses them)."""

    #: Chapter 1, GAMP vs state evolution: dimension, number of independent runs, iterations.
    perceptron_gamp_d: int
    perceptron_gamp_seeds: int
    perceptron_gamp_iterations: int
    #: Chapter 1, GAMP final error against alpha: dimension, seeds per alpha.
    perceptron_sweep_d: int
    perceptron_sweep_seeds: int
    #: Chapter 1, ridge / logistic ERM simulations: dimension and seeds per alpha.
    perceptron_erm_d: int
    perceptron_erm_seeds: int
    #: Chapter 1, storage of random labels (linear programs): dimension and trials per alpha.
    storage_d: int
    storage_trials: int
    #: Chapter 2, symmetric matrices (spectra, spikes, RIE against its MMSE and the baselines): dimension d.
    rmt_d: int
    #: Chapter 2, rectangular matrices (singular values, rectangular RIE): smaller side d (the other is 2d).
    rmt_rect_d: int
    #: Chapter 2, RIE and baselines against the signal-to-noise ratio: independent draws per value.
    rmt_sweep_seeds: int


PRESETS = {
    "lecture": Sizes(
        perceptron_gamp_d=2000,
        perceptron_gamp_seeds=3,
        perceptron_gamp_iterations=30,
        perceptron_sweep_d=1000,
        perceptron_sweep_seeds=2,
        perceptron_erm_d=400,
        perceptron_erm_seeds=2,
        storage_d=50,
        storage_trials=100,
        rmt_d=1000,
        rmt_rect_d=500,
        rmt_sweep_seeds=1,
    ),
    "paper": Sizes(
        perceptron_gamp_d=10000,
        perceptron_gamp_seeds=10,
        perceptron_gamp_iterations=60,
        perceptron_sweep_d=5000,
        perceptron_sweep_seeds=5,
        perceptron_erm_d=1000,
        perceptron_erm_seeds=5,
        storage_d=200,
        storage_trials=400,
        rmt_d=2000,
        rmt_rect_d=1000,
        rmt_sweep_seeds=3,
    ),
}


def preset_name() -> str:
    """The active preset: the value of ``SOLVABLE_SIZE`` (default ``lecture``)."""
    name = os.environ.get(ENV_VAR, "lecture").strip().lower() or "lecture"
    if name not in PRESETS:
        raise ValueError(f"{ENV_VAR} must be one of {', '.join(map(repr, PRESETS))}; got {name!r}")
    return name


def sizes() -> Sizes:
    """The sizes of the active preset (see :func:`preset_name`)."""
    return PRESETS[preset_name()]
