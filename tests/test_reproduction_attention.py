"""The committed paper-size numbers of reproductions/attention (Boncoraglio et al., arXiv:2506.01582) against our theory
and the authors' published numbers. Reads reproductions/attention/results.json; reruns nothing but a few theory points."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from solvable import attention as at

HERE = Path(__file__).resolve().parents[1] / "reproductions" / "attention"
RES = json.loads((HERE / "results.json").read_text())
DATA = RES["data"]
RHO = 0.5


def _pub(name):
    return np.genfromtxt(HERE / "published" / name, delimiter=",", names=True)


@pytest.mark.parametrize("rho", [0.5, 2.0])
def test_committed_softmax_theory_is_what_the_library_computes_now(rho):
    se = DATA[f"se_rho{rho}"]
    for i in (1, 17, 30):  # a few points across the grid: the fixed point is solved by Brent's method (1e-12)
        assert at.bayes_optimal_mmse(se["alpha"][i], rho, 2) == pytest.approx(se["ours"][i], abs=1e-9)
    assert np.allclose(se["theirs"], _pub(f"se_softmax_T2_rho{rho}.csv")["mmse"])


@pytest.mark.parametrize("rho", [0.5, 2.0])
def test_softmax_theory_agrees_with_the_published_state_evolution(rho):
    # Their curve integrates mu^3 with scipy quad at 1e-4 tolerance and iterates the damped fixed point a finite
    # number of times: inside (1e-4, 0.9 alpha_PR) we agree to 2.3e-4 (measured; bound 3e-4). Their curve sits
    # above ours by 2e-3 at alpha = 1e-5 (their 1.0019 exceeds the trivial error 1) and by 3.5e-3 - 4.2e-3 at
    # alpha_PR, where ours is exactly 0: slow convergence of their iteration at the threshold (bound 5e-3).
    se = DATA[f"se_rho{rho}"]
    alpha, diff = np.array(se["alpha"]), np.array(se["ours"]) - np.array(se["theirs"])
    inner = (alpha > 1e-4) & (alpha < 0.9 * at.perfect_recovery_threshold(rho, 2))
    assert np.max(np.abs(diff[inner])) < 3e-4
    assert np.max(np.abs(diff)) < 5e-3 and np.all(diff <= 0)  # theirs is never below ours
    assert se["ours"][-1] < 1e-6 and se["theirs"][-1] > 3e-3


def test_hardmax_state_evolution_disagreement_is_pinned():
    # Known disagreement (see the page): the published hardmax SE uses the bivariate density phi2/Phi2 in place of
    # d log Phi2/dk. Ours sits far below theirs for alpha >= 0.1 (by 0.27 at its largest, near alpha = 0.4).
    h = DATA["hardmax"]
    alpha, ours, theirs = (np.array(h[k]) for k in ("se_alpha", "ours_se", "theirs_se"))
    assert np.allclose(theirs, _pub("se_hardmax_rho0.5.csv")["mmse"])
    mid = (alpha > 0.1) & (alpha < 3.0)
    assert np.all(ours[mid] < theirs[mid] - 0.1)
    assert 0.2 < np.max(theirs - ours) < 0.35
    assert np.all(np.diff(ours) < 0)  # monotone: the Monte-Carlo draws are common to all alphas


def test_hardmax_gamp_runs_sit_on_our_state_evolution_and_below_the_published_one():
    # d = 100 (the authors' AMP size), 8 data sets per alpha. Finite-size allowance 3/d = 0.03 on top of 3 s.e.
    # (the chapter measured biases up to ~2/d at d = 80-150); the Monte-Carlo error of our SE (~1e-3) is smaller.
    # The first three alphas (0.22, 0.54, 1.10). At the fourth (2.27) the runs (at most 500 iterations) stop on the
    # library's absolute tolerance while still improving, at 0.146 +- 0.010 against our SE 0.019 (let go on with
    # tol 1e-12, the first data set settles at 0.0215: the page says so): pinned as such, above our curve and below
    # the published AMP.
    h = DATA["hardmax"]
    mean, se, ours, theirs = (np.array(h[k]) for k in ("amp_mean", "amp_se", "ours_se_at_amp", "theirs_se_at_amp"))
    assert np.all(np.abs(mean[:3] - ours[:3]) < 3 * se[:3] + 3.0 / h["d"])
    # An achieved error below a curve proves that the curve is not the minimal (Bayes-optimal) error:
    assert np.all((theirs[:3] - mean[:3]) / se[:3] > 20)
    assert 0.08 < mean[3] < 0.2 and mean[3] - ours[3] > 5 * se[3] and mean[3] < h["their_amp_mean"][3]


def test_softmax_gamp_runs_against_theory_and_published_runs():
    # d = 150, 10 data sets per alpha: mean within 3 s.e. + 3/d (= 0.02, finite-size allowance: single runs at
    # d ~ 100 plateau a few 1/d above the theory, science/attention.md Sec. 3) of the Bayes-optimal MMSE.
    for T in (2, 3, 4):
        a = DATA[f"amp_T{T}"]
        mean, se, th = np.array(a["mean"]), np.array(a["se"]), np.array(a["theory"])
        assert np.all(np.abs(mean - th) < 3 * se + 3.0 / a["d"]), T
        for i, al in enumerate(a["alpha"][:2]):
            assert at.bayes_optimal_mmse(al, RHO, T) == pytest.approx(th[i], abs=1e-9)
        # Ours against theirs (same d = 150): never above theirs beyond the noise; where ours is clearly below
        # (T = 4, alpha = 0.04: 0.0275 +- 0.0010 against 0.0341 +- 0.0009, z = -4.7, with our 500-iteration cap),
        # ours is the one closer to the theory: both sit above it by a finite-size offset, theirs by more.
        theirs = np.array(a["their_mean"])
        z = (mean - theirs) / np.hypot(se, np.array(a["their_se"]))
        assert np.max(z) < 2.5, (T, z)
        below = z < -2.5
        assert np.all(np.abs(mean - th)[below] < np.abs(theirs - th)[below]), (T, z)


def test_gd_runs_against_published_runs():
    # Adam at d = 200 (theirs), 3 data sets per alpha. Single runs: the error of one student (spread set by the
    # initialisation and the data); averaged: S averaged over 32 students, above the Bayes MMSE (0.97 at 0.0071).
    g = DATA["gd"]
    z_single = (np.array(g["single_mean"]) - np.array(g["their_single"])) / np.hypot(g["single_se"],
                                                                                     g["their_single_se"])
    assert np.max(np.abs(z_single)) < 4, z_single
    z_avg = (g["averaged_mean"] - g["their_averaged"]) / math.hypot(g["averaged_se"], g["their_averaged_se"])
    assert abs(z_avg) < 4, z_avg
    assert g["averaged_mean"] > g["theory"][0] and g["single_mean"][0] > g["averaged_mean"]
    assert g["theory"][0] == pytest.approx(at.bayes_optimal_mmse(g["alpha"][0], RHO, 2), abs=1e-9)


def test_tables_and_figures_are_written():
    for fig in RES["figures"]:
        assert (HERE / fig["file"]).exists() and (HERE / f"table_{fig['id']}.md").exists()
