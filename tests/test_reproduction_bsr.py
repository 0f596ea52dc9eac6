"""The committed bilinear-sequence-regression reproduction (``reproductions/bsr/``, Erba et al., arXiv:2410.18858)
against the library's theory now and against the authors' published numbers; no experiment is rerun."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from solvable import bsr

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "reproductions" / "bsr"
sys.path.insert(0, str(ROOT / "reproductions"))
from _common import load_published

RES = json.loads((HERE / "results.json").read_text())
DATA = RES["data"]
ALPHA_PR = bsr.perfect_recovery_threshold(1.0, 0.2)  # 0.36


def test_the_committed_theory_is_what_the_library_computes_now():
    rows = list(zip(DATA["theory_alpha"], DATA["theory_beta"], DATA["theory_rho"], DATA["theory_delta"],
                    DATA["theory_ours"]))
    for a, b, r, dl, v in rows[::12]:
        assert bsr.bayes_optimal_mmse(a, b, r, dl) == pytest.approx(v, abs=1e-10)
    for a, v in zip(DATA["gamp_alphas"][::2], DATA["gamp_theory"][::2]):
        assert bsr.bayes_optimal_mmse(a, 1.0, 0.2) == pytest.approx(v, abs=1e-10)


def test_the_committed_theory_matches_the_published_curves():
    pub = load_published(HERE, "fig1_theory.csv")
    assert len(pub) == len(DATA["theory_ours"])
    assert np.allclose(pub["alpha"], DATA["theory_alpha"]) and np.allclose(pub["mmse"], DATA["theory_published"])
    ours = np.array(DATA["theory_ours"])
    diff = np.abs(ours - pub["mmse"])
    pr = np.array([bsr.perfect_recovery_threshold(b, r) for b, r in zip(pub["beta"], pub["rho"])])
    away = np.abs(pub["alpha"] - pr) > 0.011
    # away from alpha_PR both solvers agree to their fixed-point tolerance (measured: 2.1e-7)
    assert diff[away].max() < 1e-6
    # within 0.011 of alpha_PR their solver stops at an MMSE of ~1e-4 where the exact value is 0 (or 1e-12):
    # e.g. beta = 1, rho = 0.2, alpha = 0.36 = alpha_PR: theirs 1.39e-4, ours 0
    assert diff.max() < 2e-4
    assert np.abs(ours - pub["mmse"])[~away].max() > 1e-5  # the disagreement is there, and only there


def test_the_gamp_runs_have_the_stated_size_and_sit_on_the_theory():
    assert "d = L = 100" in RES["sizes"] and DATA["gamp_seeds"] >= 3
    a = np.array(DATA["gamp_alphas"])
    mean, se, th = (np.array(DATA[k]) for k in ("gamp_mean", "gamp_se", "gamp_theory"))
    below = a < ALPHA_PR
    # below alpha_PR: 3 standard errors over 3 data sets plus 0.03 for d = L = 100 (single runs differ from the
    # theory by a few percent: the teacher's norm alone fluctuates by 2/sqrt(d r) = 4.5 %)
    assert np.all(np.abs(mean - th)[below] <= 3 * se[below] + 0.03)
    # above alpha_PR: exact recovery, up to the stopping tolerance
    assert np.all(mean[~below] < 1e-4)


def test_the_gamp_runs_agree_with_the_authors_runs():
    a = np.array(DATA["gamp_alphas"])
    mean, se, sd, theirs = (np.array(DATA[k]) for k in ("gamp_mean", "gamp_se", "gamp_sd", "gamp_published"))
    below = a < ALPHA_PR
    # their one run per alpha is one draw: combined error sqrt(se^2 + sd^2) of our mean and of one run
    z = (mean - theirs)[below] / np.sqrt(se**2 + sd**2)[below]
    assert np.all(np.abs(z) < 3)
    # above alpha_PR both recover; theirs stop at ~6e-4 (their stopping rule), ours below 1e-4
    assert np.all(theirs[~below] < 1e-3) and np.all(mean[~below] < theirs[~below])


def test_averaged_gd_sits_near_the_bayes_error():
    mean, se, th = (np.array(DATA[k]) for k in ("gd_avg_mean", "gd_avg_se", "gd_theory"))
    assert DATA["gd_inits"] == 64 and min(DATA["gd_datasets"]) >= 2
    # K = 64 runs leave a finite-K excess (single - mean)/K of about 0.02-0.03, and the GD mean itself sits a few
    # percent above the Bayes error at d = 100: 3 s.e. + 0.1
    assert np.all(np.abs(mean - th) <= 3 * se + 0.1)


def test_all_gd_runs_reached_the_training_tolerance():
    assert all(max(v) < 1e-6 for v in DATA["gd_final_rel_loss"])
    assert all(max(v) < 50_000 for v in DATA["gd_steps"])


def test_the_single_gd_disagreement_is_pinned():
    a = np.array(DATA["gd_alphas"])
    ours, se = np.array(DATA["gd_single_mean"]), np.array(DATA["gd_single_se"])
    theirs, tse = np.array(DATA["gd_single_published"]), np.array(DATA["gd_single_published_se"])
    z = (ours - theirs) / np.sqrt(se**2 + tse**2)
    # at alpha = 0.05 a single run is about 2 x MMSE for us and for them (committed z = +1.8)
    assert a[0] == 0.05 and abs(z[0]) < 3
    # from alpha = 0.1 on, our converged runs (relative training loss < 1e-6) sit above theirs, although theirs are
    # converged too (training error <= 7e-7 after 5e4 steps): PINNED disagreement, 0.18-0.21 at 0.1-0.15 and
    # 0.55 (z = 49) at 0.2 (see the page, "Where we differ")
    assert np.all(ours[1:] - theirs[1:] > 0.15) and ours[-1] - theirs[-1] > 0.5
    # while averaged GD agrees with theirs at every alpha (committed |z| <= 2.9)
    z_avg = (np.array(DATA["gd_avg_mean"]) - np.array(DATA["gd_avg_published"])) / np.sqrt(
        np.array(DATA["gd_avg_se"]) ** 2 + np.array(DATA["gd_avg_published_se"]) ** 2)
    assert np.all(np.abs(z_avg) < 3), z_avg


def test_the_single_run_probe_converges_long_before_their_budget():
    train, test = np.array(DATA["probe_train"]), np.array(DATA["probe_test"])
    pt = load_published(HERE, "gd_single_train_beta1_rho0.2_delta0.csv")
    ps = load_published(HERE, "gd_single_beta1_rho0.2_delta0.csv")
    their_train = float(pt["train_error_mean"][np.isclose(pt["alpha"], DATA["probe_alpha"])][0])
    their_test = float(ps["gen_error_mean"][np.isclose(ps["alpha"], DATA["probe_alpha"])][0])
    # ours: training error (their definition, mean squared residual) below 1e-5 after 2000 steps, 1e-8 at the
    # end (5477 steps); theirs: 0.06 after 5e4 steps
    assert DATA["probe_steps_taken"] < 50_000 and train[-1] < 1e-5 < their_train
    # the test error it ends at (2.02) is 3 times theirs (0.67), and its minimum along the way (1.31, at step 50,
    # where our training error is 0.07, close to their final 0.06) is still twice theirs: stopping early does not
    # bring our run to their number
    assert test[-1] > 2.5 * their_test and DATA["probe_min_test"] > 1.8 * their_test
    i = int(np.argmin(test))
    assert 0.01 < train[i] < 0.2
