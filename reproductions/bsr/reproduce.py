"""Reproduce the key figures of Erba, Troiani, Biggio, Maillard, Zdeborova, "Bilinear sequence regression: a model
for learning from long sequences of high-dimensional tokens", arXiv:2410.18858, with :mod:`solvable`.

    python reproductions/bsr/reproduce.py                  # the authors' sizes (about 6 min on 2 cores)
    REPRO_SCALE=4 python reproductions/bsr/reproduce.py    # smaller and fewer runs, for development
    REPRO_JOBS=1 python reproductions/bsr/reproduce.py     # one run after the other (default -1: every core)
    REPRO_PROTOCOL=authors SOLVABLE_DEVICE=cuda python reproductions/bsr/reproduce.py   # their GD protocol, on a GPU

Figure "theory": the Bayes-optimal MMSE against alpha (their Fig. 1, beta = 1 and 2, rho = 0.1 ... 2, Delta = 0, and
their noisy Fig. 1, Delta = 0.1) against the authors' published curves (``published/fig1_theory.csv``).
Figure "gamp": GAMP-RIE at d = L = 100 (beta = 1, rho = 0.2, Delta = 0) against the theory and their AMP runs.
Figure "mnne": the minimum-nuclear-norm estimator at d = L = 50 against their 16 runs per alpha.
Figure "gd": gradient descent at d = L = 100 (lr 0.1, prior initialisation, K = 64 initialisations per data set):
single runs and averaged GD against the theory and their GD / AGD points; and one single run at alpha = 0.3 followed
at every step (the published single-GD runs at alpha = 0.3 and 0.33 ended with a training error of 0.06-0.12).
Figure "steps": 16 single GD runs at d = L = 50, alpha = 0.44, step 0.1, followed at every step for 10^4 steps,
beside the authors' 16 runs of the same protocol (their ``lr_figure``).
Figure "gd50": their single-GD protocol at d = L = 50, alpha = 0.2 (a fixed 5e4 steps in float32), and the
variants that could explain their lower single-GD errors (larger steps, the best error along the run, a full-width
student).
Writes fig_*.png, table_*.md and results.json next to this file, and the page's numbers into ``../bsr.md``.
The independent runs of a figure (one data set, or one GD variant on one data set, each with its own seed) go to
``REPRO_JOBS`` worker processes (``_common.run_jobs``), so the numbers do not depend on the number of workers.

``REPRO_PROTOCOL=authors`` runs figure "gd" with the authors' own protocol instead: every alpha of their grid below
alpha_PR (0.05 ... 0.3), 4 data sets per alpha (their averaged_rect.py), 64 initialisations each and a fixed 5e4
steps with no stopping rule (their ``T``), gradient descent on ``SOLVABLE_DEVICE`` (``cpu``, ``cuda`` or ``auto``,
the default of this protocol: the GPU where PyTorch or CuPy sees one; ``bsr.gd(device=...)``), the runs one after the
other when they go to a GPU. An estimate, not measured with this library: about 10 s per data set on one GPU (5e4
steps at the 0.2 ms that one such batched step takes in a plain PyTorch loop on an H200), about 1.6 h on one CPU
thread. Its figures, tables and ``results.json`` go to ``authors_protocol/`` (the page and its tests keep the default
protocol's); the other figures are as by default.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import prose  # this folder's prose.py: the numbers the page quotes
from _common import (
    ROOT,
    authors_time,
    comparison,
    cpu_time,
    load_published,
    machine,
    markdown_table,
    mean_se,
    run_jobs,
    timed,
    workers,
    write_page_numbers,
    write_results,
    z_scores,
)

from solvable import bsr
from solvable import plotting as plot

SCALE = int(os.environ.get("REPRO_SCALE", "1"))
PROTOCOL = os.environ.get("REPRO_PROTOCOL", "").strip().lower() or "default"
if PROTOCOL not in ("default", "authors"):
    raise SystemExit(f"REPRO_PROTOCOL must be 'default' or 'authors', got {PROTOCOL!r}")
AUTHORS = PROTOCOL == "authors"
DEVICE = os.environ.get("SOLVABLE_DEVICE", "").strip().lower() or ("auto" if AUTHORS else "cpu")
OUT = HERE / "authors_protocol" if AUTHORS else HERE  # where the figures, tables and results.json go
D = 100 // SCALE  # d = L = 100: the authors' "D_100" runs (beta = 1)
RHO = 0.2
R = round(RHO * D)
THEORY_RHOS = (0.1, 0.2, 0.5, 1.0, 2.0)
THEORY_PANELS = ((1.0, 0.0), (2.0, 0.0), (1.0, 0.1))  # (beta, delta) of their Fig. 1 / noisy Fig. 1
GAMP_ALPHAS = (0.1, 0.15, 0.2, 0.3, 0.4, 0.45)
GAMP_SEEDS = 3
GAMP = {
    "damping": 0.3,
    "damp": "estimate",
    "max_iter": 500,
    "tol": 1e-3,
}  # the chapter's setting (relative change)
GD_ALPHAS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3) if AUTHORS else (0.05, 0.1, 0.15, 0.2)
GD_DATASETS = (
    (4,) * 6 if AUTHORS else (3, 3, 2, 2)
)  # per alpha (cost grows with alpha: about 0.2 s per step at
# alpha = 0.2 on a CPU); the authors' averaged GD: 4
GD = {
    "n_inits": 64,
    "lr": 0.1,
    "tol": 0.0 if AUTHORS else 1e-6,
    "max_steps": 50_000,  # their lr, init, K, T
    "dtype": np.float32,
}
if DEVICE != "cpu":
    GD["device"] = DEVICE
PROBE_ALPHA, PROBE_STEPS = 0.3, 6000  # one single run followed at every step (their budget: 5e4 steps)
THEIR_GD_SETS = {"single": 3, "averaged": 4}  # `samples` in standard_rect.py / averaged_rect.py
THEIR_GD_STEPS = 50_000  # `T` in both scripts
THEIR_AGD_INITS = 64  # `averages` in averaged_rect.py
# their CSVs give a standard deviation over those data sets; the script that made them is not published, so the
# ddof is not known: we take NumPy's default ddof = 0 (their notebook's own error bars use it), i.e. the standard
# error is std / sqrt(n - 1) (with ddof = 1 it would be std / sqrt(n), 18 % / 13 % smaller for n = 3 / 4)
THEIR_DDOF = 0
D50 = 50 // SCALE  # the authors' d = L = 50 runs (minimum nuclear norm, lr_figure)
MN_SETS = 8 if SCALE == 1 else 2  # data sets per alpha (theirs: 16)
MN_TOL = 1e-6
STEP_RUNS = 16 if SCALE == 1 else 4  # their lr_figure: 16 runs (one data set each) x 10^4 steps
STEP_ALPHA, STEP_LR, STEP_COUNT = 0.44, 0.1, 10_000 if SCALE == 1 else 1000
STEP_MARKS = (1, 10, 100, 200, 9999 if SCALE == 1 else 999)
CK_ALPHA, CK_INITS, CK_SETS = 0.2, 8, 4 if SCALE == 1 else 2
CK_STEPS = 50_000 if SCALE == 1 else 5000  # their fixed budget
CK_EVERY = CK_STEPS // 10  # checkpoints 5000, 10000, ..., 50000
CK_LRS = (0.1, 0.3, 0.5)
ALPHA_PR = bsr.perfect_recovery_threshold(1.0, RHO)
warnings.simplefilter("ignore", category=RuntimeWarning)


def _nan_to_none(values):
    return [None if np.isnan(v) else float(v) for v in values]


def _span(values):
    """``a to b`` for the smallest and largest of ``values`` at 4 decimals, or one number if they print alike."""
    lo, hi = f"{np.min(values):.4f}", f"{np.max(values):.4f}"
    return lo if lo == hi else f"{lo} to {hi}"


def _f(x):
    return f"{x:.4f}" if abs(x) >= 1e-3 else f"{x:.1e}"


def fig_theory(fig_rec):
    pub = load_published(HERE, "fig1_theory.csv")
    ours = np.array([bsr.bayes_optimal_mmse(r["alpha"], r["beta"], r["rho"], r["delta"]) for r in pub])
    ridge = np.array([bsr.ridge_mse(r["alpha"], r["delta"]) for r in pub])
    rows, comps = [], []
    for beta, delta in THEORY_PANELS:
        m = (pub["beta"] == beta) & (pub["delta"] == delta)
        diff = np.abs(ours[m] - pub["mmse"][m])
        away = m & (
            np.abs(pub["alpha"] - np.array([bsr.perfect_recovery_threshold(beta, r) for r in pub["rho"]]))
            > 0.011
        )
        diff_away = np.abs(ours[away] - pub["mmse"][away])
        comps.append(
            comparison(f"MMSE, beta = {beta:g}, Delta = {delta:g}", "theory_vs_published", diffs=diff)
        )
        rows.append(
            [
                f"MMSE, $\\beta = {beta:g}$, $\\Delta = {delta:g}$",
                int(m.sum()),
                f"{diff.max():.1e}",
                f"{diff_away.max():.1e}",
            ]
        )
    rdiff = np.abs(ridge - pub["mse_ridge_opt"])
    comps.append(comparison("ridge MSE, all panels", "theory_vs_published", diffs=rdiff))
    rows.append(["ridge MSE (all panels)", len(pub), f"{rdiff.max():.1e}", f"{rdiff.max():.1e}"])
    (OUT / "table_theory.md").write_text(
        markdown_table(
            [
                "curve",
                "published points",
                "largest difference",
                "largest difference, 0.011 or more from $\\alpha_{PR}$",
            ],
            rows,
        )
    )
    fig_rec["comparisons"] = comps
    out = {
        "theory_alpha": pub["alpha"].tolist(),
        "theory_beta": pub["beta"].tolist(),
        "theory_rho": pub["rho"].tolist(),
        "theory_delta": pub["delta"].tolist(),
        "theory_ours": ours.tolist(),
        "theory_published": pub["mmse"].tolist(),
        "theory_ridge_max_diff": float(rdiff.max()),
    }
    draw_theory(out)
    return out


def draw_theory(data):
    """The theory figure from the authors' published curves (``published/fig1_theory.csv``); our curves are
    recomputed (``data``, ``results["data"]``, is not needed). Three panels in a 2 x 2 grid, the legend they share
    in the fourth cell."""
    pub = load_published(HERE, "fig1_theory.csv")
    grid = np.round(np.arange(0.0, 0.601, 0.01), 3)
    fig, axes = plot.new_axes(ncols=2, nrows=2, width=4.4, height=3.4)
    axes = axes.ravel()
    for ax, (beta, delta) in zip(axes, THEORY_PANELS):
        for i, rho in enumerate(THEORY_RHOS):
            curve = [bsr.bayes_optimal_mmse(a, beta, rho, delta) for a in grid]
            plot.theory_curve(grid, curve, label=f"$\\rho = {rho}$", ax=ax, color=f"C{i}")
            m = (pub["beta"] == beta) & (pub["delta"] == delta) & (pub["rho"] == rho)
            ax.plot(
                pub["alpha"][m],
                pub["mmse"][m],
                "x",
                color="k",
                markersize=6,
                label="authors' published curve" if i == 0 else None,
            )
        plot.theory_curve(
            grid, [bsr.ridge_mse(a, delta) for a in grid], label="ridge", ax=ax, color="0.5", linestyle="--"
        )
        plot.finish(
            ax,
            xlabel=r"$\alpha = n/(dL)$",
            ylabel="MMSE",
            legend=False,
            title=f"$\\beta = {beta:g}$, $\\Delta = {delta:g}$",
        )
    axes[-1].axis("off")
    axes[-1].legend(*axes[0].get_legend_handles_labels(), loc="center")
    fig.savefig(OUT / "fig_theory.png", dpi=150)


def gamp_job(job):
    """One data set at d = L = D and GAMP-RIE on it: (error, iterations, converged)."""
    alpha, rng = job
    data = bsr.sample(D, alpha, beta=1.0, rho=R / D, rng=rng)
    res = bsr.gamp_rie(data, warn=False, rng=rng, **GAMP)
    return bsr.mse(res.estimate, data), res.iterations, res.converged


def fig_gamp(fig_rec):
    children = np.random.default_rng(2024).spawn(len(GAMP_ALPHAS) * GAMP_SEEDS)
    out = run_jobs(
        gamp_job,
        [(a, children[i * GAMP_SEEDS + s]) for i, a in enumerate(GAMP_ALPHAS) for s in range(GAMP_SEEDS)],
    )
    shape = (len(GAMP_ALPHAS), GAMP_SEEDS)
    err = np.array([o[0] for o in out], dtype=float).reshape(shape)
    iters = np.array([o[1] for o in out], dtype=int).reshape(shape)
    conv = np.array([o[2] for o in out], dtype=bool).reshape(shape)
    mean, se = mean_se(err, axis=1)
    sd = err.std(axis=1, ddof=1)
    theory = np.array([bsr.bayes_optimal_mmse(a, 1.0, RHO) for a in GAMP_ALPHAS])
    pub = load_published(HERE, "amp_beta1_rho0.2_delta0.csv")
    theirs = np.array([pub["mse"][np.isclose(pub["alpha"], a)][0] for a in GAMP_ALPHAS])
    # their one run per alpha against our mean: combined s.e. = our s.e. and our per-run s.d. (their run is one draw)
    # z only below alpha_PR: above it our runs reach the exact recovery (error ~1e-6, spread ~0), theirs stop at
    # ~5e-4, and only the difference is meaningful
    below = np.array(GAMP_ALPHAS) < ALPHA_PR
    z_pub = np.where(below, (mean - theirs) / np.sqrt(se**2 + sd**2 + 1e-300), np.nan)
    z_th = np.where(below, (mean - theory) / np.maximum(se, 1e-300), np.nan)
    rows = [
        [
            f"{a:g}",
            _f(th),
            f"{_f(m)} ± {_f(e)}",
            f"{int(c.sum())}/{GAMP_SEEDS}",
            f"{int(it.max())}",
            "—" if np.isnan(zt) else f"{zt:+.1f}",
            _f(tp),
            "—" if np.isnan(zp) else f"{zp:+.1f}",
        ]
        for a, th, m, e, c, it, zt, tp, zp in zip(
            GAMP_ALPHAS, theory, mean, se, conv, iters, z_th, theirs, z_pub
        )
    ]
    (OUT / "table_gamp.md").write_text(
        markdown_table(
            [
                "$\\alpha$",
                "theory",
                "ours (mean ± s.e.)",
                "converged",
                "most iterations",
                "z vs theory",
                "authors' run",
                "z vs authors",
            ],
            rows,
        )
    )
    fig_rec["comparisons"] = [
        comparison(
            "GAMP-RIE (ours) vs Bayes-optimal theory, alpha < alpha_PR", "runs_vs_theory", z=z_th[below]
        ),
        comparison(
            "GAMP-RIE (ours) vs theory, alpha > alpha_PR (difference)",
            "runs_vs_theory",
            diffs=(mean - theory)[~below],
        ),
        comparison(
            "GAMP-RIE (ours) vs authors' runs, alpha < alpha_PR",
            "runs_vs_published",
            diffs=(mean - theirs)[below],
            z=z_pub[below],
        ),
        comparison(
            "GAMP-RIE (ours) vs authors' runs, alpha > alpha_PR (difference)",
            "runs_vs_published",
            diffs=(mean - theirs)[~below],
        ),
    ]
    out = {
        "gamp_alphas": list(GAMP_ALPHAS),
        "gamp_mean": mean.tolist(),
        "gamp_se": se.tolist(),
        "gamp_sd": sd.tolist(),
        "gamp_theory": theory.tolist(),
        "gamp_published": theirs.tolist(),
        "gamp_z_theory": _nan_to_none(z_th),
        "gamp_z_published": _nan_to_none(z_pub),
        "gamp_iterations": iters.tolist(),
        "gamp_converged": conv.tolist(),
        "gamp_seeds": GAMP_SEEDS,
        "gamp_max_iter": GAMP["max_iter"],
        "gamp_tol": GAMP["tol"],
        "gamp_damping": GAMP["damping"],
        "gamp_published_alphas": pub["alpha"].tolist(),
        "gamp_published_all": pub["mse"].tolist(),
    }
    draw_gamp(out)
    return out


def draw_gamp(data):
    """The GAMP-RIE figure from the stored results (``data``: ``results["data"]``) and the authors' runs; the
    theory line is recomputed."""
    pub = load_published(HERE, "amp_beta1_rho0.2_delta0.csv")
    grid = np.round(np.arange(0.0, 0.701, 0.005), 4)
    fig, ax = plot.new_axes(width=6.4, height=5.4)
    plot.theory_curve(
        grid,
        [bsr.bayes_optimal_mmse(a, 1.0, RHO) for a in grid],
        label="Bayes-optimal MMSE (theory)",
        ax=ax,
        color="C0",
    )
    ok = pub["mse"] < 2.0
    ax.plot(
        pub["alpha"][ok],
        pub["mse"][ok],
        "s",
        mfc="none",
        color="C3",
        markersize=6,
        label="authors' GAMP-RIE ($D = 100$, one run each)",
    )
    plot.experiment_points(
        data["gamp_alphas"],
        data["gamp_mean"],
        data["gamp_se"],
        label=f"ours, $d = L = {D}$ ({data['gamp_seeds']} data sets)",
        ax=ax,
        color="k",
    )
    plot.threshold_line(ALPHA_PR, label=r"$\alpha_{PR}$", ax=ax)
    plot.finish(
        ax,
        xlabel=r"$\alpha$",
        ylabel="MSE",
        title=r"GAMP-RIE, $\beta = 1$, $\rho = 0.2$, $\Delta = 0$",
        loc="upper left",
        bbox_to_anchor=(0.0, -0.16),
    )
    fig.savefig(OUT / "fig_gamp.png", dpi=150)


def gd_job(job):
    """One data set at d = L = D and GD from K = 64 initialisations on it: (mean single error, averaged error, most
    steps, largest final relative loss, seconds)."""
    alpha, rng = job
    t0 = time.perf_counter()
    data = bsr.sample(D, alpha, beta=1.0, rho=R / D, rng=rng)
    res = bsr.gd(data, rng=rng, warn=False, **GD)
    return (
        float(res.errors.mean()),
        float(res.average_error),
        int(res.iterations.max()),
        float(res.losses.max()),
        time.perf_counter() - t0,
    )


def gd_runs():
    """The GD runs of every alpha, GD_DATASETS[i] data sets at GD_ALPHAS[i] (children of seed 100 + i), on the
    workers; the seconds per alpha are summed over its data sets."""
    jobs = [
        (a, child)
        for i, (a, nd) in enumerate(zip(GD_ALPHAS, GD_DATASETS))
        for child in np.random.default_rng(100 + i).spawn(nd)
    ]
    out = iter(run_jobs(gd_job, jobs, device=DEVICE))
    per_alpha = [[next(out) for _ in range(nd)] for nd in GD_DATASETS]
    single, avg, steps, losses = ([[r[k] for r in runs] for runs in per_alpha] for k in range(4))
    seconds = [round(sum(r[4] for r in runs), 1) for runs in per_alpha]
    return single, avg, steps, losses, seconds


def gd_probe():
    """One single prior-init run at alpha = 0.3, its training and test error at every step, and its time per step."""
    rng = np.random.default_rng(7)
    data = bsr.sample(D, PROBE_ALPHA, beta=1.0, rho=R / D, rng=rng)
    t0 = time.perf_counter()
    res = bsr.gd(
        data,
        n_inits=1,
        lr=GD["lr"],
        tol=1e-9,
        max_steps=PROBE_STEPS,
        record_every=1,
        warn=False,
        dtype=np.float32,
        rng=rng,
    )
    seconds = time.perf_counter() - t0
    # their "train error" is the mean squared residual sum(res^2)/n = 4 loss/n = 4 (relative loss) mean(y^2)
    train = 4.0 * res.loss_history[:, 0] * float(np.mean(data.y**2))
    return (
        np.arange(len(train)),
        train,
        res.error_history[:, 0],
        int(res.iterations[0]),
        seconds / int(res.iterations[0]),
    )


def _their_se(std, n):
    """Their standard deviation over n data sets (ddof THEIR_DDOF) as a standard error of the mean (ddof = 1)."""
    return np.asarray(std) / np.sqrt(n - 1 + THEIR_DDOF)


def fig_gd(fig_rec):
    t0 = time.perf_counter()
    single, avg, steps, losses, seconds = gd_runs()
    t_runs = time.perf_counter() - t0
    probe_steps, probe_train, probe_err, probe_n, probe_step_s = gd_probe()
    t_probe = time.perf_counter() - t0 - t_runs
    s_mean, s_se = map(np.array, zip(*(mean_se(v) for v in single)))
    a_mean, a_se = map(np.array, zip(*(mean_se(v) for v in avg)))
    theory = np.array([bsr.bayes_optimal_mmse(a, 1.0, RHO) for a in GD_ALPHAS])
    ps = load_published(HERE, "gd_single_beta1_rho0.2_delta0.csv")
    pa = load_published(HERE, "gd_averaged_beta1_rho0.2_delta0.csv")
    pt = load_published(HERE, "gd_single_train_beta1_rho0.2_delta0.csv")

    def pick(tab, col, n):  # their std over n data sets -> standard error
        idx = [int(np.flatnonzero(np.isclose(tab["alpha"], a))[0]) for a in GD_ALPHAS]
        return tab[col][idx], _their_se(tab[col.replace("mean", "std")][idx], n)

    ts_mean, ts_se = pick(ps, "gen_error_mean", THEIR_GD_SETS["single"])
    ta_mean, ta_se = pick(pa, "gen_error_mean", THEIR_GD_SETS["averaged"])
    z_s_pub, z_a_pub = z_scores(s_mean, s_se, ts_mean, ts_se), z_scores(a_mean, a_se, ta_mean, ta_se)
    z_a_th = (a_mean - theory) / np.maximum(a_se, 1e-12)
    z_s_th = (s_mean - 2 * theory) / np.maximum(s_se, 1e-12)
    i3 = int(np.flatnonzero(np.isclose(pt["alpha"], PROBE_ALPHA))[0])
    j3 = int(np.flatnonzero(np.isclose(ps["alpha"], PROBE_ALPHA))[0])
    keep = (
        (probe_steps <= 500) | (probe_steps % 50 == 0) | (probe_steps == probe_steps[-1])
    )  # stored in results
    tr = [pt["train_error_mean"][int(np.flatnonzero(np.isclose(pt["alpha"], a))[0])] for a in GD_ALPHAS]
    rows = []
    for k, a in enumerate(GD_ALPHAS):
        rows.append(
            [
                f"{a:g}",
                GD_DATASETS[k],
                f"{theory[k]:.3f}",
                f"{a_mean[k]:.3f} ± {a_se[k]:.3f}",
                f"{ta_mean[k]:.3f} ± {ta_se[k]:.3f}",
                f"{z_a_pub[k]:+.1f}",
                f"{s_mean[k]:.3f} ± {s_se[k]:.3f}",
                f"{ts_mean[k]:.3f} ± {ts_se[k]:.3f}",
                f"{z_s_pub[k]:+.1f}",
                f"{max(steps[k])}",
                f"{4 * max(losses[k]):.0e} / {tr[k]:.0e}",
            ]
        )
    (OUT / "table_gd.md").write_text(
        markdown_table(
            [
                "$\\alpha$",
                "data sets",
                "MMSE",
                "averaged GD, ours",
                "averaged GD, authors",
                "z",
                "single GD, ours",
                "single GD, authors",
                "z",
                "most steps (ours)",
                "final training error, ours (largest) / authors",
            ],
            rows,
        )
    )
    fig_rec["comparisons"] = [
        comparison("averaged GD (ours) vs Bayes-optimal MMSE", "runs_vs_theory", z=z_a_th),
        comparison("single GD (ours) vs 2 x MMSE", "runs_vs_theory", z=z_s_th),
        comparison(
            "averaged GD (ours) vs authors' AGD", "runs_vs_published", diffs=a_mean - ta_mean, z=z_a_pub
        ),
        comparison("single GD (ours) vs authors' GD", "runs_vs_published", diffs=s_mean - ts_mean, z=z_s_pub),
    ]
    fig_rec["runs_wall_time_s"] = round(t_runs, 1)
    fig_rec["probe_wall_time_s"] = round(t_probe, 1)
    out = {
        "gd_alphas": list(GD_ALPHAS),
        "gd_datasets": list(GD_DATASETS),
        "gd_inits": GD["n_inits"],
        "gd_single_mean": s_mean.tolist(),
        "gd_single_se": s_se.tolist(),
        "gd_avg_mean": a_mean.tolist(),
        "gd_avg_se": a_se.tolist(),
        "gd_theory": theory.tolist(),
        "gd_single_published": ts_mean.tolist(),
        "gd_single_published_se": ts_se.tolist(),
        "gd_avg_published": ta_mean.tolist(),
        "gd_avg_published_se": ta_se.tolist(),
        "gd_steps": steps,
        "gd_final_rel_loss": losses,
        "gd_seconds_per_alpha": seconds,
        "gd_their_ddof": THEIR_DDOF,
        "gd_their_sets": THEIR_GD_SETS,
        "gd_single_train_published": [float(x) for x in tr],
        "probe_alpha": PROBE_ALPHA,
        "probe_steps": probe_steps[keep].tolist(),
        "probe_train": probe_train[keep].tolist(),
        "probe_test": probe_err[keep].tolist(),
        "probe_train_at_min": float(probe_train[np.argmin(probe_err)]),
        "probe_first_step_train_below": {
            f"{x:.0e}": int(np.flatnonzero(probe_train < x)[0])
            for x in (1e-2, 1e-4, 1e-6)
            if np.any(probe_train < x)
        },
        "probe_steps_taken": probe_n,
        "probe_seconds_per_step": probe_step_s,
        "probe_min_test": float(np.min(probe_err)),
        "probe_argmin_test": int(np.argmin(probe_err)),
        "probe_final_test": float(probe_err[-1]),
        "probe_theory": float(bsr.bayes_optimal_mmse(PROBE_ALPHA, 1.0, RHO)),
        "probe_published_test": float(ps["gen_error_mean"][j3]),
        "probe_published_train": float(pt["train_error_mean"][i3]),
        "gd_published_alphas": ps["alpha"].tolist(),
        "gd_published_train_alphas": pt["alpha"].tolist(),
        "gd_published_train_all": pt["train_error_mean"].tolist(),
        "gd_single_published_all": ps["gen_error_mean"].tolist(),
        "gd_avg_published_alphas": pa["alpha"].tolist(),
        "gd_avg_published_all": pa["gen_error_mean"].tolist(),
    }
    draw_gd(out, probe_steps, probe_train, probe_err)
    return out


def draw_gd(data, probe_steps, probe_train, probe_err):
    """The GD figure from the stored results (``data``: ``results["data"]``), the authors' runs and the probe run at
    every step (``gd_probe()``; results.json keeps it every 50 steps only); the theory lines are recomputed."""
    ps = load_published(HERE, "gd_single_beta1_rho0.2_delta0.csv")
    pa = load_published(HERE, "gd_averaged_beta1_rho0.2_delta0.csv")
    pt = load_published(HERE, "gd_single_train_beta1_rho0.2_delta0.csv")
    alphas, probe_alpha = data["gd_alphas"], data["probe_alpha"]
    grid = np.round(np.arange(0.0, 0.5001, 0.005), 4)
    bo = np.array([bsr.bayes_optimal_mmse(a, 1.0, RHO) for a in grid])
    fig, axes = plot.new_axes(ncols=2, width=5.2, height=6.2)
    below = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2)}  # under each panel, off the data
    ax = axes[0]
    plot.theory_curve(grid, bo, label="Bayes-optimal MMSE", ax=ax, color="C0")
    plot.theory_curve(grid, 2 * bo, label="2 × MMSE", ax=ax, color="C0", linestyle="--")
    plot.experiment_points(
        alphas, data["gd_single_mean"], data["gd_single_se"], label="ours, single GD", ax=ax, color="C1"
    )
    plot.experiment_points(
        alphas,
        data["gd_avg_mean"],
        data["gd_avg_se"],
        label=f"ours, averaged GD (K = {data['gd_inits']})",
        ax=ax,
        color="C2",
    )
    ax.errorbar(
        ps["alpha"],
        ps["gen_error_mean"],
        _their_se(ps["gen_error_std"], THEIR_GD_SETS["single"]),
        fmt="s",
        mfc="none",
        color="C1",
        capsize=3,
        label="authors' single GD",
    )
    ax.errorbar(
        pa["alpha"],
        pa["gen_error_mean"],
        _their_se(pa["gen_error_std"], THEIR_GD_SETS["averaged"]),
        fmt="D",
        mfc="none",
        color="C2",
        capsize=3,
        label="authors' averaged GD",
    )
    plot.threshold_line(ALPHA_PR, ax=ax)
    plot.finish(
        ax, xlabel=r"$\alpha$", ylabel="test error (MSE)", title=rf"GD, $d = L = {D}$, lr 0.1", **below
    )
    ax = axes[1]
    ax.loglog(probe_steps[1:], probe_train[1:], color="C3", label="ours: training")
    ax.loglog(probe_steps[1:], probe_err[1:], color="C1", label="ours: test")
    i3 = int(np.flatnonzero(np.isclose(pt["alpha"], probe_alpha))[0])
    j3 = int(np.flatnonzero(np.isclose(ps["alpha"], probe_alpha))[0])
    ax.errorbar(
        [THEIR_GD_STEPS],
        [pt["train_error_mean"][i3]],
        [_their_se(pt["train_error_std"][i3], THEIR_GD_SETS["single"])],
        fmt="s",
        color="C3",
        mfc="none",
        markersize=8,
        capsize=3,
        label="authors: training, 5e4 steps",
    )
    ax.errorbar(
        [THEIR_GD_STEPS],
        [ps["gen_error_mean"][j3]],
        [_their_se(ps["gen_error_std"][j3], THEIR_GD_SETS["single"])],
        fmt="s",
        color="C1",
        mfc="none",
        markersize=8,
        capsize=3,
        label="authors: test, 5e4 steps",
    )
    ax.axhline(2 * bsr.bayes_optimal_mmse(probe_alpha, 1.0, RHO), color="C0", linestyle="--", linewidth=1)
    plot.finish(
        ax, xlabel="GD step", ylabel="error", title=rf"one single GD run, $\alpha = {probe_alpha}$", **below
    )
    fig.savefig(OUT / "fig_gd.png", dpi=150)


def _runs(tab, prefix="run_"):
    """The run columns ``run_00, run_01, ...`` of a published table, as an array (rows, runs)."""
    names = [c for c in tab.dtype.names if c.startswith(prefix)]
    return np.column_stack([tab[c] for c in names])


def mnne_job(job):
    """One data set of n samples at d = L = D50 and the minimum-nuclear-norm estimator: (error, iterations,
    converged)."""
    n, rng = job
    data = bsr.sample(D50, n / D50**2, beta=1.0, rho=round(RHO * D50) / D50, rng=rng)
    res = bsr.min_nuclear_norm(data, tol=MN_TOL, warn=False)
    return bsr.mse(res.estimate, data), res.iterations, res.converged


def fig_mnne(fig_rec):
    """The minimum-nuclear-norm estimator at d = L = 50 against their 16 runs per alpha (data_min_norm/)."""
    pub = load_published(HERE, "mnne_D50_rho0.2_beta1.csv")
    theirs_runs = _runs(pub)
    alphas = pub["alpha"]
    # their size: n = int(alpha d L) samples (min_norm.py); ours draws round(alpha d L), so pass alpha = n/(dL)
    ns = np.floor(alphas * D50 * D50 + 1e-9).astype(int)
    children = np.random.default_rng(2026).spawn(len(alphas) * MN_SETS)
    out = run_jobs(
        mnne_job, [(n, children[i * MN_SETS + s]) for i, n in enumerate(ns) for s in range(MN_SETS)]
    )
    shape = (len(alphas), MN_SETS)
    err = np.array([o[0] for o in out], dtype=float).reshape(shape)
    iters = np.array([o[1] for o in out], dtype=int).reshape(shape)
    conv = np.array([o[2] for o in out], dtype=bool).reshape(shape)
    mean, se = mean_se(err, axis=1)
    t_mean, t_se = mean_se(theirs_runs, axis=1)
    theory = np.array([bsr.bayes_optimal_mmse(a, 1.0, RHO) for a in alphas])
    threshold = bsr.nuclear_norm_threshold(1.0, RHO)
    # z where the error is not yet zero on both sides (above the threshold both are zero up to the solvers'
    # precision: theirs SCS, ours ADMM at a relative residual of MN_TOL)
    live = (mean > 1e-3) & (t_mean > 1e-3)
    z = z_scores(mean[live], se[live], t_mean[live], t_se[live])
    zfull = np.full(len(alphas), np.nan)
    zfull[live] = z
    rows = [
        [
            f"{a:.4f}",
            int(n),
            _f(th),
            f"{_f(m)} ± {_f(e)}",
            f"{_f(tm)} ± {_f(te)}",
            "—" if np.isnan(zz) else f"{zz:+.1f}",
            f"{int(c.sum())}/{MN_SETS}",
        ]
        for a, n, th, m, e, tm, te, zz, c in zip(alphas, ns, theory, mean, se, t_mean, t_se, zfull, conv)
    ]
    (OUT / "table_mnne.md").write_text(
        markdown_table(
            [
                "$\\alpha$",
                "$n$",
                "Bayes MMSE",
                "ours (mean ± s.e.)",
                "authors' (mean ± s.e.)",
                "z",
                "converged",
            ],
            rows,
        )
    )
    fig_rec["comparisons"] = [
        comparison(
            "minimum nuclear norm (ours) vs authors' runs, error above 1e-3",
            "runs_vs_published",
            diffs=(mean - t_mean)[live],
            z=z,
        ),
        comparison(
            "minimum nuclear norm (ours) vs authors' runs, error below 1e-3 (difference)",
            "runs_vs_published",
            diffs=(mean - t_mean)[~live],
        ),
    ]
    out = {
        "mn_alphas": alphas.tolist(),
        "mn_n": ns.tolist(),
        "mn_sets": MN_SETS,
        "mn_mean": mean.tolist(),
        "mn_se": se.tolist(),
        "mn_published_mean": t_mean.tolist(),
        "mn_published_se": t_se.tolist(),
        "mn_published_sets": int(theirs_runs.shape[1]),
        "mn_theory": theory.tolist(),
        "mn_z": _nan_to_none(zfull),
        "mn_threshold": threshold,
        "mn_iterations": iters.tolist(),
        "mn_converged": conv.tolist(),
        "mn_tol": MN_TOL,
        "mn_d": D50,
    }
    draw_mnne(out)
    return out


def draw_mnne(data):
    """The minimum-nuclear-norm figure from the stored results (``data``: ``results["data"]``); the theory line is
    recomputed."""
    grid = np.round(np.arange(0.0, 0.6501, 0.005), 4)
    fig, ax = plot.new_axes(width=6.4, height=5.4)
    plot.theory_curve(
        grid,
        [bsr.bayes_optimal_mmse(a, 1.0, RHO) for a in grid],
        label="Bayes-optimal MMSE",
        ax=ax,
        color="C0",
    )
    ax.errorbar(
        data["mn_alphas"],
        data["mn_published_mean"],
        data["mn_published_se"],
        fmt="s",
        mfc="none",
        color="C3",
        capsize=3,
        markersize=6,
        label=f"authors' ($d = L = 50$, {data['mn_published_sets']} data sets)",
    )
    plot.experiment_points(
        data["mn_alphas"],
        data["mn_mean"],
        data["mn_se"],
        label=f"ours, $d = L = {data['mn_d']}$ ({data['mn_sets']} data sets)",
        ax=ax,
        color="k",
    )
    plot.threshold_line(data["mn_threshold"], label=r"$\alpha_{\rm NN}$ (large-size threshold)", ax=ax)
    plot.finish(
        ax,
        xlabel=r"$\alpha$",
        ylabel="MSE",
        loc="upper left",
        bbox_to_anchor=(0.0, -0.16),
        title=r"minimum nuclear norm, $\beta = 1$, $\rho = 0.2$, $\Delta = 0$",
    )
    fig.savefig(OUT / "fig_mnne.png", dpi=150)


def step_job(rng):
    """One data set at d = L = D50, alpha = STEP_ALPHA, and one single GD run on it: its test error at every step."""
    data = bsr.sample(D50, STEP_ALPHA, beta=1.0, rho=round(RHO * D50) / D50, rng=rng)
    res = bsr.gd(
        data,
        n_inits=1,
        lr=STEP_LR,
        tol=0.0,
        max_steps=STEP_COUNT,
        record_every=1,
        warn=False,
        dtype=np.float32,
        rng=rng,
    )
    return res.error_history[:, 0]


def step_runs():
    """The test error of STEP_RUNS single GD runs (one data set each) at every step: (STEP_COUNT + 1, STEP_RUNS)."""
    return np.column_stack(run_jobs(step_job, np.random.default_rng(440).spawn(STEP_RUNS))).astype(float)


def fig_steps(fig_rec):
    """16 single GD runs at d = L = 50, alpha = 0.44, step 0.1, followed at every step, beside their lr_figure."""
    pub = load_published(HERE, "gd_steps_D50_alpha0.44_lr0.1.csv")
    their_steps = pub["step"].astype(int)
    theirs = _runs(pub)  # (their stored steps, 16 runs)
    t0 = time.perf_counter()
    ours = step_runs()
    step_s = (time.perf_counter() - t0) / (STEP_RUNS * STEP_COUNT)
    shown = their_steps[their_steps <= STEP_COUNT]
    marks = [m for m in STEP_MARKS if m in set(shown)]
    rows, rec = (
        [],
        {
            "steps": marks,
            "median_ours": [],
            "median_theirs": [],
            "mean_ours": [],
            "se_ours": [],
            "mean_theirs": [],
            "se_theirs": [],
            "z": [],
        },
    )
    for m in marks:
        o = ours[m]
        t = theirs[int(np.flatnonzero(their_steps == m)[0])]
        (mo, so), (mt, st) = mean_se(o), mean_se(t)
        z = float(z_scores(mo, so, mt, st))
        for key, v in zip(
            ("median_ours", "median_theirs", "mean_ours", "se_ours", "mean_theirs", "se_theirs", "z"),
            (np.median(o), np.median(t), mo, so, mt, st, z),
        ):
            rec[key].append(float(v))
        rows.append(
            [
                m,
                f"{np.median(o):.3f}",
                f"{np.median(t):.3f}",
                f"{mo:.3f} ± {so:.3f}",
                f"{mt:.3f} ± {st:.3f}",
                f"{z:+.1f}",
            ]
        )
    last = marks[-1]
    t_last = theirs[int(np.flatnonzero(their_steps == last)[0])]
    rec["recovered_ours"] = int(np.sum(ours[last] < 1e-3))
    rec["recovered_theirs"] = int(np.sum(t_last < 1e-3))
    (OUT / "table_steps.md").write_text(
        markdown_table(
            [
                "GD step",
                "median, ours",
                "median, authors",
                "ours (mean ± s.e.)",
                "authors (mean ± s.e.)",
                "z",
            ],
            rows,
        )
    )
    fig_rec["comparisons"] = [
        comparison(
            "single GD trajectories (ours) vs authors' lr_figure runs, mean at steps "
            + ", ".join(map(str, marks)),
            "runs_vs_published",
            diffs=np.array(rec["mean_ours"]) - np.array(rec["mean_theirs"]),
            z=np.array(rec["z"]),
        )
    ]
    keep = np.isin(np.arange(STEP_COUNT + 1), shown)
    out = {
        "steps_runs": STEP_RUNS,
        "steps_count": STEP_COUNT,
        "steps_alpha": STEP_ALPHA,
        "steps_lr": STEP_LR,
        "steps_d": D50,
        "steps_published_runs": int(theirs.shape[1]),
        "steps_seconds_per_step": step_s,
        "steps_theory": float(bsr.bayes_optimal_mmse(STEP_ALPHA, 1.0, RHO)),
        "steps_stored": np.arange(STEP_COUNT + 1)[keep].tolist(),
        "steps_ours": ours[keep].T.tolist(),
        **{f"steps_{k}": v for k, v in rec.items()},
    }
    draw_steps(out, ours)
    return out


def draw_steps(data, ours):
    """The step-by-step figure from the stored results (``data``: ``results["data"]``), the authors' runs and our
    runs at every step (``ours``: (steps + 1, runs), from ``step_runs()``; results.json keeps their steps only)."""
    pub = load_published(HERE, "gd_steps_D50_alpha0.44_lr0.1.csv")
    their_steps = pub["step"].astype(int)
    theirs = _runs(pub)
    count = data["steps_count"]
    shown = their_steps[their_steps <= count]
    fig, ax = plot.new_axes(width=6.4, height=5.4)
    x = np.arange(1, count + 1)
    ax.semilogx(x, ours[1:], color="C1", alpha=0.25, linewidth=0.7)
    ax.semilogx(shown[1:], theirs[1 : len(shown)], color="C3", alpha=0.25, linewidth=0.7, linestyle="--")
    ax.semilogx(
        x,
        np.median(ours[1:], axis=1),
        color="C1",
        linewidth=2.2,
        label=f"ours: median and each of {ours.shape[1]} runs",
    )
    ax.semilogx(
        shown[1:],
        np.median(theirs[1 : len(shown)], axis=1),
        color="C3",
        linewidth=2.2,
        linestyle="--",
        label=f"authors' lr_figure: median and each of {theirs.shape[1]} runs",
    )
    ax.axhline(data["steps_theory"], color="C0", linewidth=1, label="Bayes-optimal MMSE")
    plot.finish(
        ax,
        xlabel="GD step",
        ylabel="test error (MSE)",
        loc="upper left",
        bbox_to_anchor=(0.0, -0.16),
        title=rf"single GD, $d = L = {data['steps_d']}$, $\alpha = {data['steps_alpha']}$, "
        rf"step {data['steps_lr']}",
    )
    fig.savefig(OUT / "fig_steps.png", dpi=150)


def gd50_sets():
    """The CK_SETS data sets of fig_gd50 (d = L = D50, alpha = CK_ALPHA)."""
    rho = round(RHO * D50) / D50
    return [
        bsr.sample(D50, CK_ALPHA, beta=1.0, rho=rho, rng=c)
        for c in np.random.default_rng(2020).spawn(CK_SETS)
    ]


def fixed_protocol(data):
    """Their protocol: a fixed CK_STEPS steps, no stopping rule, float32, CK_INITS inits, on one data set."""
    return bsr.gd(
        data,
        n_inits=CK_INITS,
        lr=0.1,
        tol=0.0,
        max_steps=CK_STEPS,
        record_every=1,
        warn=False,
        dtype=np.float32,
        rng=np.random.default_rng(1),
    )


def variant_job(job):
    """One GD variant (keywords ``kw`` of ``bsr.gd``) on ``data``, data set ``k`` of :func:`gd50_sets`, to the
    training tolerance: (final test error, best test error along the way), each the mean over the CK_INITS runs."""
    data, k, kw = job
    res = bsr.gd(
        data,
        n_inits=CK_INITS,
        tol=1e-6,
        max_steps=CK_STEPS,
        record_every=1,
        warn=False,
        dtype=np.float32,
        rng=np.random.default_rng(10 + k),
        **kw,
    )
    return float(res.errors.mean()), float(res.error_history.min(axis=0).mean())


def fig_gd50(fig_rec):
    """Their single-GD protocol at d = L = 50, alpha = 0.2: a fixed 5e4 steps in float32 on one data set, and, to
    the training tolerance on CK_SETS data sets, steps 0.1 / 0.3 / 0.5 and a full-width student."""
    sets = gd50_sets()
    mmse = bsr.bayes_optimal_mmse(CK_ALPHA, 1.0, RHO)
    t0 = time.perf_counter()
    fixed = fixed_protocol(sets[0])
    fixed_s = time.perf_counter() - t0
    hist = fixed.error_history  # (CK_STEPS + 1, CK_INITS)
    checkpoints = np.arange(CK_EVERY, CK_STEPS + 1, CK_EVERY)
    at_checks = hist[checkpoints].mean(axis=1)  # mean over the inits at each checkpoint
    train_final = 4.0 * fixed.losses * float(np.mean(sets[0].y ** 2))
    # 2. to the training tolerance, on every data set: the variants
    variants = [(f"step {lr:g}, student width r", {"lr": lr}) for lr in CK_LRS]
    variants.append((f"step 0.1, full-width student (width d = {D50})", {"lr": 0.1, "width": D50}))
    var_rows, var_rec = [], []
    out = iter(run_jobs(variant_job, [(data, k, kw) for _, kw in variants for k, data in enumerate(sets)]))
    for name, _ in variants:
        final, best = zip(*[next(out) for _ in sets])
        (fm, fs), (bm, bs) = mean_se(final), mean_se(best)
        var_rec.append(
            {
                "what": name,
                "final_mean": fm,
                "final_se": fs,
                "best_mean": bm,
                "best_se": bs,
                "final_ratio": fm / mmse,
                "best_ratio": bm / mmse,
            }
        )
        var_rows.append(
            [name, f"{fm:.3f} ± {fs:.3f}", f"{fm / mmse:.2f}", f"{bm:.3f} ± {bs:.3f}", f"{bm / mmse:.2f}"]
        )
    ps = load_published(HERE, "gd_single_beta1_rho0.2_delta0.csv")
    j = int(np.flatnonzero(np.isclose(ps["alpha"], CK_ALPHA))[0])
    their = float(ps["gen_error_mean"][j])
    their_ratio = their / mmse
    var_rows.insert(
        0,
        [
            (
                f"step 0.1, a fixed {CK_STEPS} steps (their protocol; one data set, checkpoints every "
                f"{CK_EVERY})"
            ),
            _span(at_checks),
            f"{at_checks.min() / mmse:.2f}",
            f"{hist.min(axis=0).mean():.3f}",
            f"{hist.min(axis=0).mean() / mmse:.2f}",
        ],
    )
    (OUT / "table_gd50.md").write_text(
        markdown_table(
            [
                "single GD run",
                "test error at the end (mean ± s.e.)",
                "÷ MMSE",
                "best test error along the run",
                "÷ MMSE",
            ],
            var_rows,
        )
    )
    lowest = min(min(v["final_ratio"], v["best_ratio"]) for v in var_rec)
    fig_rec["comparisons"] = [
        comparison(
            "single GD at d = 50 (ours, every variant) vs 2 x MMSE, ratio",
            "runs_vs_theory",
            diffs=[v["final_ratio"] - 2 for v in var_rec],
        )
    ]
    out = {
        "ck_d": D50,
        "ck_alpha": CK_ALPHA,
        "ck_inits": CK_INITS,
        "ck_sets": CK_SETS,
        "ck_steps": CK_STEPS,
        "ck_checkpoints": checkpoints.tolist(),
        "ck_at_checkpoints": at_checks.tolist(),
        "ck_fixed_best": float(hist.min(axis=0).mean()),
        "ck_fixed_train_final": train_final.tolist(),
        "ck_fixed_seconds": fixed_s,
        "ck_mmse": mmse,
        "ck_variants": var_rec,
        "ck_published_d100": their,
        "ck_published_ratio": their_ratio,
        "ck_lowest_ratio": lowest,
    }
    draw_gd50(out, hist)
    return out


def draw_gd50(data, hist):
    """The fixed-budget figure from the stored results (``data``: ``results["data"]``) and the test error of each
    run at every step (``hist``: (steps + 1, inits), from ``fixed_protocol()``; results.json keeps checkpoints)."""
    mmse, ratio = data["ck_mmse"], data["ck_published_ratio"]
    fig, ax = plot.new_axes(width=6.4, height=5.4)
    steps = np.arange(1, hist.shape[0])
    ax.semilogx(steps, hist[1:], color="C1", alpha=0.3, linewidth=0.7)
    ax.semilogx(
        steps,
        hist[1:].mean(axis=1),
        color="C1",
        linewidth=2.2,
        label=f"ours: mean and each of {hist.shape[1]} runs (one data set)",
    )
    ax.plot(
        data["ck_checkpoints"], data["ck_at_checkpoints"], "o", color="k", markersize=4, label="checkpoints"
    )
    ax.axhline(mmse, color="C0", linewidth=1, label="Bayes-optimal MMSE")
    ax.axhline(2 * mmse, color="C0", linewidth=1, linestyle="--", label="2 × MMSE")
    ax.axhline(
        ratio * mmse,
        color="C3",
        linewidth=1.2,
        linestyle=":",
        label=f"authors' single GD at $d = 100$: {ratio:.2f} × MMSE",
    )
    plot.finish(
        ax,
        xlabel="GD step",
        ylabel="test error (MSE)",
        loc="upper left",
        bbox_to_anchor=(0.0, -0.16),
        title=rf"single GD, their protocol, $d = L = {data['ck_d']}$, $\alpha = {data['ck_alpha']}$",
    )
    fig.savefig(OUT / "fig_gd50.png", dpi=150)


def _authors_times(data):
    """The ``authors_time`` of each figure, some computed from the step times measured in this run."""
    single = THEIR_GD_SETS["single"] * THEIR_GD_STEPS
    averaged = THEIR_AGD_INITS * THEIR_GD_SETS["averaged"] * THEIR_GD_STEPS
    hours = (single + averaged) * data["probe_seconds_per_step"] / 3600
    cuda = (
        "their PyTorch script uses CUDA when it is present (torch.device('cuda' if torch.cuda.is_available() "
        "else 'cpu')); which device ran the published numbers is not stated"
    )
    return {
        "theory": authors_time(
            "not known",
            "their Julia fixed-point solver (main.jl, finalplots.jl) was not run: "
            "Julia is not installed here",
        ),
        "gamp": authors_time(
            "not known",
            "their AMP.jl (Julia) was not run: Julia is not installed here; it loops "
            "over the entries of the n x dL design in Julia with no BLAS call, so its "
            "time per iteration cannot be read off ours",
        ),
        "mnne": authors_time(
            "not known",
            "their min_norm.py (CVXPY with the SCS solver) was not run: CVXPY is not installed here",
        ),
        "gd": authors_time(
            "estimated, not run",
            (
                f"their step count times our step time: their scripts run one initialisation at a time for a fixed "
                f"{THEIR_GD_STEPS} steps, {THEIR_GD_SETS['single']} x {THEIR_GD_STEPS} = {single:.2e} steps (single GD) "
                f"and {THEIR_AGD_INITS} x {THEIR_GD_SETS['averaged']} x {THEIR_GD_STEPS} = {averaged:.2e} steps "
                f"(averaged GD) per alpha; at the {1e3 * data['probe_seconds_per_step']:.1f} ms that one step of one "
                f"run at d = L = {D}, alpha = {PROBE_ALPHA} took here (NumPy, float32, this CPU), about {hours:.0f} h "
                f"per alpha; {cuda}"
            ),
        ),
        "steps": authors_time(
            "estimated, not run",
            (
                f"{data['steps_published_runs']} runs x {STEP_COUNT} steps at the "
                f"{1e3 * data['steps_seconds_per_step']:.2f} ms per step of ours (d = L = {D50}, NumPy, float32, this "
                f"CPU): about {data['steps_published_runs'] * STEP_COUNT * data['steps_seconds_per_step']:.0f} s; "
                f"the script that made lr_figure is not published; {cuda}"
            ),
        ),
        "gd50": authors_time(
            "estimated, not run",
            (
                f"one initialisation at a time: {CK_INITS} x {CK_STEPS} steps at the "
                f"{1e3 * data['ck_fixed_seconds'] / CK_STEPS / CK_INITS:.2f} ms per step and run of ours (in our "
                f"batch of {CK_INITS} runs, d = L = {D50}, alpha = {CK_ALPHA}), about "
                f"{data['ck_fixed_seconds']:.0f} s; {cuda}"
            ),
        ),
    }


def main():
    t_start, cpu_start = time.perf_counter(), cpu_time()
    specs = [
        (
            "theory",
            "fig_theory.png",
            "Bayes-optimal MMSE, their Fig. 1 (beta = 1, 2) and noisy Fig. 1",
            fig_theory,
        ),
        ("gamp", "fig_gamp.png", f"GAMP-RIE at d = L = {D}", fig_gamp),
        ("mnne", "fig_mnne.png", f"minimum nuclear norm at d = L = {D50}", fig_mnne),
        ("gd", "fig_gd.png", f"single and averaged GD at d = L = {D}", fig_gd),
        (
            "steps",
            "fig_steps.png",
            f"single GD step by step at d = L = {D50}, alpha = {STEP_ALPHA}",
            fig_steps,
        ),
        (
            "gd50",
            "fig_gd50.png",
            f"single GD, their protocol and variants, d = L = {D50}, alpha = {CK_ALPHA}",
            fig_gd50,
        ),
    ]
    figures, data = [], {}
    OUT.mkdir(exist_ok=True)
    for fid, fname, title, fn in specs:
        rec = {"id": fid, "file": fname, "title": title}
        c0 = cpu_time()
        with timed(rec):
            data.update(fn(rec))
        rec["cpu_time_s"] = round(cpu_time() - c0, 1)  # this process and the workers
        figures.append(rec)
        print(f"{fid}: {rec['wall_time_s']} s", flush=True)
    theirs = _authors_times(data)
    for rec in figures:
        rec["authors_time"] = theirs[rec["id"]]
    results = {
        "paper": "Erba, Troiani, Biggio, Maillard, Zdeborova, Bilinear sequence regression: a model for learning "
        "from long sequences of high-dimensional tokens, arXiv:2410.18858",
        "reference": "arXiv:2410.18858",
        "sizes": (
            f"theory at the published alphas; GAMP-RIE d = L = {D}, {GAMP_SEEDS} data sets x "
            f"{len(GAMP_ALPHAS)} alphas; minimum nuclear norm d = L = {D50}, {MN_SETS} data sets x 16 alphas; "
            f"GD d = L = {D}, K = {GD['n_inits']} inits, data sets {GD_DATASETS} at alphas {GD_ALPHAS}"
            + (f" (the authors' protocol: a fixed {GD['max_steps']} steps, on {DEVICE})" if AUTHORS else "")
            + "; one "
            f"single-GD run at alpha = {PROBE_ALPHA}; {STEP_RUNS} single GD runs at d = L = {D50}, "
            f"alpha = {STEP_ALPHA}, {STEP_COUNT} steps; single GD at d = L = {D50}, alpha = {CK_ALPHA}: "
            f"{CK_INITS} inits x {CK_STEPS} steps, and {CK_SETS} data sets x {CK_INITS} inits per variant"
        ),
        "machine": machine(),
        "workers": workers(),
        "protocol": PROTOCOL,
        "total_wall_time_s": round(time.perf_counter() - t_start, 1),
        "total_cpu_time_s": round(cpu_time() - cpu_start, 1),
        "figures": figures,
        "data": data,
    }
    rows = [
        [
            rec["title"],
            f"{rec['wall_time_s']:.0f} s ({rec['cpu_time_s']:.0f} s)",
            f"**{rec['authors_time']['kind']}**: {rec['authors_time']['how']}",
        ]
        for rec in figures
    ]
    rows.append(
        [
            "**whole page**",
            (f"**{results['total_wall_time_s'] / 60:.1f} min ({results['total_cpu_time_s'] / 60:.1f} min)**"),
            "",
        ]
    )
    (OUT / "table_time.md").write_text(
        markdown_table(["figure", "wall time here (CPU time)", "the authors' code"], rows)
    )
    write_results(OUT, results)
    if not AUTHORS:
        write_page_numbers(ROOT / "reproductions" / "bsr.md", prose.numbers(results))
    print(f"total {results['total_wall_time_s']} s wall, {results['total_cpu_time_s']} s CPU")


if __name__ == "__main__":
    main()
