"""Reproduce the key figures of Boncoraglio, Troiani, Erba, Zdeborova, "Bayes optimal learning of attention-indexed
models" (arXiv:2506.01582) at the paper's sizes, beside the authors' published numbers (``published/``).

    python reproductions/attention/reproduce.py          # paper sizes (about 10 min on 2 cores)
    REPRO_DEV=1 python reproductions/attention/reproduce.py   # every d about a quarter (even), 2 data sets: a smoke test
    REPRO_JOBS=4 python reproductions/attention/reproduce.py  # 4 worker processes (default -1: one per core)
    python reproductions/attention/reproduce.py --from-results   # the authors' times and the page's numbers from
                                                                 # the committed results.json (nothing rerun)

Writes fig_*.png, table_*.md and results.json next to this file (see ``reproductions/_common.py``). The science is
in :mod:`solvable.attention`; this is wiring. Independent runs (one data set, or one state evolution, each) go to
``REPRO_JOBS`` worker processes (``_common.run_jobs``, joblib underneath), each with its own explicit seed, so the
numbers do not depend on the number of workers.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
from matplotlib.lines import Line2D
from scipy.stats import multivariate_normal, norm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import prose  # this folder's: the numbers the page quotes
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

from solvable import attention as at
from solvable import plotting as plot
from solvable.config import PRESETS
from solvable.quote import lower_bound

DEV = os.environ.get("REPRO_DEV") == "1"
SCALE = 4 if DEV else 1
RHO = 0.5
# GAMP-RIE iteration caps, those of the authors' scripts: AMP_softmax.py runs 100 iterations, AMP_hardmax.py 500.
# At the softmax points of LONG (T, alpha) the runs go on to SOFT_LONG iterations; their error after 100 iterations
# (history[99], what a run capped at 100 returns, the iteration being deterministic) is kept beside the last one.
SOFT_CAP, SOFT_LONG, HARD_CAP = 100, 500, 500
LONG = ((4, 0.04),)
# GAMP-RIE, softmax: d = 150 as the authors (config "paper" preset); a subset of their alphas, 10 data sets each.
AMP_D, AMP_SETS = 2 * (PRESETS["paper"].attention_gamp_d // (2 * SCALE)), 2 if DEV else 10
AMP_ROWS_T2 = (1, 4, 6, 8, 10)  # rows of their T = 2 file (alpha = 0.056 ... 0.165)
AMP_ALPHAS_T34 = {3: (0.03, 0.05, 0.07), 4: (0.02, 0.03, 0.04)}
# Hardmax (T = 2): their AMP size d = 100; four of their alphas, 8 data sets; Monte-Carlo SE with 1e5 draws.
HARD_D, HARD_SETS, HARD_ROWS, HARD_MC = 2 * (50 // SCALE), 2 if DEV else 8, (5, 10, 14, 18), 100_000
# Their hardmax score (phi2/Phi2 in place of d log Phi2/dk) against the exact one: E||g||^2 at these overlaps q,
# 5e5 Monte-Carlo draws each; and their published SE at these rows against ours at alpha x (the ratio).
SCORE_Q, SCORE_MC, SCORE_ROWS = (0.3, 0.8, 1.2, 1.4), 500_000, (8, 12, 16, 20, 24, 28)
# Adam (lr 0.1, 1000 full-batch steps, W ~ N(0, 1)) at the authors' d = 200, T = 2: averaged GD (32 students per
# data set) at their alpha grid row 10, single GD at row 25 (plus the 96 students of row 10).
GD_D, GD_STEPS, GD_K = 200 // SCALE, 1000, 32
GD_AVG_ROW, GD_SINGLE_ROW, GD_SETS = 10, 25, 2 if DEV else 3
OURS = {"color": "C0"}
THEIRS = {"mfc": "white", "color": "C3", "capsize": 2}


def amp_job(job):
    """One data set, one GAMP-RIE run (every run is kept, converged or not): the last error, the iterations, whether
    it converged, and the error after SOFT_CAP iterations (the last one if it stopped before)."""
    T, alpha, d, output, seed, cap = job
    rng = np.random.default_rng(seed)
    data = at.sample(d, alpha, rho=RHO, T=T, output=output, rng=rng)
    res = at.gamp_rie(data, max_iter=cap, rng=rng, warn=False)
    return res.error, res.iterations, res.converged, float(res.history[min(SOFT_CAP, res.history.size) - 1])


def gd_job(job):
    alpha, d, K, seed = job
    rng = np.random.default_rng(seed)
    cpu0 = time.process_time()
    res = at.gd(
        at.sample(d, alpha, rho=RHO, T=2, rng=rng),
        optimiser="adam",
        n_inits=K,
        max_steps=GD_STEPS,
        lr=0.1,
        record_every=GD_STEPS,
        warn=False,
        rng=rng,
    )
    return res.errors.tolist(), res.average_error, res.losses.tolist(), time.process_time() - cpu0


def hard_se_job(alpha):
    return at.hardmax_state_evolution(alpha, RHO, n_samples=HARD_MC, rng=2506, warn=False).error


def score_ratio(q, n=SCORE_MC, seed=2507, chunk=250_000):
    """E||g||^2 of the hardmax channel with the authors' score over the exact one, at overlap q (rho = RHO).

    The draws are those of the state evolution (:func:`solvable.attention.hardmax_state_evolution`, tau units):
    ``omega ~ N(0, 2q)`` per component, ``V = 2(Q0 - q)``, ``y`` the signs of ``z = omega + sqrt(V) u``. The exact
    ``g`` is the library channel's (``D_i = phi(k_i) Phi(c_i)/Phi2``); the authors' scripts use the bivariate density
    ``B = phi2(k1, k2; r)/Phi2`` for both ``D_i``, which is ``D_1 phi(c_1)/(Phi(c_1) sqrt(1 - r^2))``. Returns the
    ratio of the two means and its standard error (delta method), over ``n`` draws.
    """
    from scipy.special import log_ndtr

    from solvable.channels import HardmaxChannel

    ch, rng, Q0 = HardmaxChannel(), np.random.default_rng(seed), 1.0 + RHO
    V = 2.0 * (Q0 - q)
    sigma, sr = math.sqrt(1.5 * V), math.sqrt(8.0) / 3.0
    exact, theirs = [], []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        omega = math.sqrt(2.0 * q) * rng.standard_normal((m, 3))
        y = ch.signs_of(omega + math.sqrt(V) * rng.standard_normal((m, 3)))
        g, _ = ch.g_out(y, omega, V)
        s1, s2 = y[:, 0], y[:, 2]
        k1 = s1 * (omega[:, 0] - math.sqrt(0.5) * omega[:, 1]) / sigma
        k2 = s2 * (omega[:, 2] - math.sqrt(0.5) * omega[:, 1]) / sigma
        c1 = (k2 - s1 * s2 / 3.0 * k1) / sr
        B = g[:, 0] * s1 * sigma * np.exp(norm.logpdf(c1) - log_ndtr(c1)) / sr
        exact.append(np.sum(g * g, axis=1))
        theirs.append(B * B * (3.0 + s1 * s2) / sigma**2)  # ||B (s1 a1 + s2 a2)||^2 / sigma^2
    exact, theirs = np.concatenate(exact), np.concatenate(theirs)
    ratio = theirs.mean() / exact.mean()
    se = np.std(theirs - ratio * exact, ddof=1) / exact.mean() / math.sqrt(n)
    return float(ratio), float(se)


def hardmax_score(pub_se, data):
    """The authors' E||g||^2 over the exact one at SCORE_Q, and their published SE against ours at alpha x ratio.

    Their recursion is ours with qhat = 4 alpha E||g_theirs||^2 = 4 (alpha x ratio(q)) E||g||^2: at its fixed point
    q (their error m = Q0 - q), their error at alpha is our state evolution's at alpha x ratio(q).
    """
    ratios = [score_ratio(q) for q in SCORE_Q]
    rows = list(SCORE_ROWS)
    alphas, theirs = pub_se["alpha"][rows], pub_se["mmse"][rows]
    at_fp = [score_ratio(1.0 + RHO - m, seed=2508 + i) for i, m in enumerate(theirs)]
    scaled = alphas * np.array([r for r, _ in at_fp])
    ours_scaled = np.array(run_jobs(hard_se_job, scaled))
    data["hardmax_score"] = {
        "q": list(SCORE_Q),
        "ratio": [r for r, _ in ratios],
        "ratio_se": [e for _, e in ratios],
        "mc": SCORE_MC,
        "check_alpha": alphas.tolist(),
        "check_theirs": theirs.tolist(),
        "check_ratio": [r for r, _ in at_fp],
        "check_ratio_se": [e for _, e in at_fp],
        "check_scaled_alpha": scaled.tolist(),
        "check_ours_at_scaled": ours_scaled.tolist(),
    }
    return comparison(
        "their SE at alpha vs our SE at alpha x ratio (6 of their alphas)",
        "theory_vs_published",
        diffs=ours_scaled - theirs,
    )


# Their runs per point and the ddof of their spread. AMP_softmax.py prints numpy's errors.std() (ddof = 0). The
# aggregation of AMP_hardmax.py's per-run files and of GD_softmax_averaged.py's MSE_list ("Save MSE_list how you
# prefer!") is not in their repository: we take ddof = 0 there too, the larger of the two standard errors (by
# sqrt(16/15) - 1 = 3 %).
THEIR_RUNS = {"amp_softmax": 20, "amp_hardmax": 16, "gd": 16}
THEIR_DDOF = {"amp_softmax": 0, "amp_hardmax": 0, "gd": 0}


def their_se(std, n_runs, ddof):
    """Standard error of their mean from their spread std (computed with ``ddof``) over n_runs runs."""
    return np.asarray(std) * math.sqrt((n_runs - ddof) / (n_runs - 1) / n_runs)


def fmt(x, digits=4):
    return "n/a" if x is None else f"{x:.{digits}g}"


def table(folder, name, comps):
    rows = [
        [
            c["what"],
            c["kind"].replace("_", " "),
            c["n_points"],
            fmt(c["max_abs_diff"]),
            fmt(c["max_abs_z"], 3),
        ]
        for c in comps
    ]
    (folder / name).write_text(
        markdown_table(["comparison", "kind", "points", "largest abs. difference", "largest abs. z"], rows)
    )


def fig_se(data):
    """Fig. 1: the softmax Bayes-optimal MMSE (T = 2) against the authors' state evolution, rho = 0.5 and 2."""
    comps = []
    for rho in (0.5, 2.0):
        pub = load_published(HERE, f"se_softmax_T2_rho{rho}.csv")
        ours = np.array([at.bayes_optimal_mmse(a, rho, 2) for a in pub["alpha"]])
        inner = (pub["alpha"] > 1e-4) & (pub["alpha"] < 0.9 * at.perfect_recovery_threshold(rho, 2))
        comps += [
            comparison(
                f"rho = {rho}: SE, 1e-4 < alpha < 0.9 alpha_PR",
                "theory_vs_published",
                diffs=(ours - pub["mmse"])[inner],
            ),
            comparison(
                f"rho = {rho}: SE, all points (alpha = 1e-5 ... alpha_PR)",
                "theory_vs_published",
                diffs=ours - pub["mmse"],
            ),
        ]
        data[f"se_rho{rho}"] = {
            "alpha": pub["alpha"].tolist(),
            "ours": ours.tolist(),
            "theirs": pub["mmse"].tolist(),
        }
    draw_se(data)
    return comps


def draw_se(data):
    """Fig. 1 from the stored results (``data``: ``results["data"]``); the theory lines are recomputed. 5 in wide: the
    page prints it at 80 % of the 6.27 in text block, so at its own size, its text at the style's 11 pt."""
    fig, ax = plot.new_axes(width=5.0, height=3.6)
    for rho, color in ((0.5, "C0"), (2.0, "C2")):
        pub = data[f"se_rho{rho}"]
        grid = np.linspace(1e-4, at.perfect_recovery_threshold(rho, 2) * 1.1, 256)
        plot.theory_curve(
            grid,
            [at.bayes_optimal_mmse(a, rho, 2) for a in grid],
            rf"ours, $\rho$ = {rho}",
            ax=ax,
            color=color,
        )
        plot.experiment_points(
            pub["alpha"],
            pub["theirs"],
            ax=ax,
            fmt="o",
            markersize=4,
            mfc="white",
            color=color,
            label=rf"published SE, $\rho$ = {rho}",
        )
    plot.finish(ax, r"$\alpha = n/d^2$", r"MMSE $\|\hat S - S^*\|_F^2/d$", title="softmax, T = 2")
    fig.savefig(HERE / "fig_se.png", dpi=150)


def fig_hardmax(data):
    """The hardmax (T = 2, rho = 0.5) state evolution: ours, theirs, their AMP and our GAMP-RIE at their d = 100."""
    pub_se, pub_amp = (
        load_published(HERE, "se_hardmax_rho0.5.csv"),
        load_published(HERE, "amp_hardmax_rho0.5.csv"),
    )
    amp_alphas = pub_amp["alpha"][list(HARD_ROWS)]
    se_alphas = np.concatenate([pub_se["alpha"], amp_alphas])
    se = np.array(run_jobs(hard_se_job, se_alphas))
    ours_se, ours_at_amp = se[: pub_se.size], se[pub_se.size :]
    jobs = [
        (2, a, HARD_D, "hardmax", (2, i, s), HARD_CAP)
        for i, a in enumerate(amp_alphas)
        for s in range(HARD_SETS)
    ]
    runs = run_jobs(amp_job, jobs)
    errs = np.array([r[0] for r in runs]).reshape(len(amp_alphas), HARD_SETS)
    iters = np.array([r[1] for r in runs]).reshape(len(amp_alphas), HARD_SETS)
    conv = np.array([r[2] for r in runs]).reshape(len(amp_alphas), HARD_SETS)
    mean, sem = mean_se(errs, axis=1)
    their_mean = pub_amp["mmse"][list(HARD_ROWS)]
    their_sem = their_se(
        pub_amp["mmse_std"][list(HARD_ROWS)], THEIR_RUNS["amp_hardmax"], THEIR_DDOF["amp_hardmax"]
    )
    their_se_at_amp = np.interp(np.log(amp_alphas), np.log(pub_se["alpha"]), pub_se["mmse"])

    k, r = np.linspace(-3, 3, 61), 1.0 / 3.0
    mvn = multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, r], [r, 1.0]])
    Phi2 = np.array([mvn.cdf([x, x]) for x in k])
    exact = norm.pdf(k) * norm.cdf((k - r * k) / math.sqrt(1 - r * r)) / Phi2
    dens = mvn.pdf(np.stack([k, k], axis=1)) / Phi2
    data["hardmax"] = {
        "se_alpha": pub_se["alpha"].tolist(),
        "ours_se": ours_se.tolist(),
        "theirs_se": pub_se["mmse"].tolist(),
        "amp_alpha": amp_alphas.tolist(),
        "ours_se_at_amp": ours_at_amp.tolist(),
        "theirs_se_at_amp": their_se_at_amp.tolist(),
        "amp_errors": errs.tolist(),
        "amp_mean": mean.tolist(),
        "amp_se": sem.tolist(),
        "amp_iterations": iters.tolist(),
        "amp_converged": conv.tolist(),
        "amp_cap": HARD_CAP,
        "their_amp_mean": their_mean.tolist(),
        "their_amp_se": their_sem.tolist(),
        "d": HARD_D,
        "mc_samples": HARD_MC,
        "score_k": k.tolist(),
        "score_exact": exact.tolist(),
        "score_density": dens.tolist(),
        "their_amp_runs": 16,
        "their_amp_ddof": 0,
    }
    draw_hardmax(data)
    score = hardmax_score(pub_se, data)
    tiny = np.full_like(sem, 1e-12)  # the SE's Monte-Carlo error (~1e-3) is neglected next to the runs' s.e.
    return [
        score,
        comparison(
            "hardmax SE: ours vs published (33 alphas, 0.02-10)",
            "theory_vs_published",
            diffs=ours_se - pub_se["mmse"],
        ),
        comparison(
            f"hardmax GAMP-RIE (d = {HARD_D}) vs their AMP (d = 100)",
            "runs_vs_published",
            z=z_scores(mean, sem, their_mean, their_sem),
        ),
        comparison(
            f"hardmax GAMP-RIE (d = {HARD_D}) vs our SE",
            "runs_vs_theory",
            diffs=mean - ours_at_amp,
            z=z_scores(mean, sem, ours_at_amp, tiny),
        ),
        comparison(
            f"hardmax GAMP-RIE (d = {HARD_D}) vs their SE (interpolated in log alpha)",
            "runs_vs_theory",
            diffs=mean - their_se_at_amp,
            z=z_scores(mean, sem, their_se_at_amp, tiny),
        ),
    ]


def draw_hardmax(data):
    """The hardmax figure from the stored results (``data``: ``results["data"]``) and the authors' AMP points."""
    h = data["hardmax"]
    pub_amp = load_published(HERE, "amp_hardmax_rho0.5.csv")
    fig, (ax, ax2) = plot.new_axes(ncols=2, width=5.2, height=5.6)
    below = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2)}  # under each panel, off the data
    plot.theory_curve(h["se_alpha"], h["ours_se"], "state evolution (ours)", ax=ax, color="C0")
    plot.theory_curve(
        h["se_alpha"], h["theirs_se"], "state evolution (published)", ax=ax, color="C3", linestyle="--"
    )
    plot.experiment_points(
        h["amp_alpha"],
        h["amp_mean"],
        h["amp_se"],
        ax=ax,
        fmt="s",
        **OURS,
        label=f"GAMP-RIE (ours), d = {h['d']}, {len(h['amp_errors'][0])} data sets",
    )
    plot.experiment_points(
        pub_amp["alpha"],
        pub_amp["mmse"],
        their_se(pub_amp["mmse_std"], THEIR_RUNS["amp_hardmax"], THEIR_DDOF["amp_hardmax"]),
        ax=ax,
        fmt="^",
        label="their AMP, d = 100, 16 runs",
        **THEIRS,
    )
    ax.set_xscale("log")
    plot.finish(
        ax, r"$\alpha = n/d^2$", r"$\|\hat S - S^*\|_F^2/d$", title=r"hardmax, T = 2, $\rho$ = 0.5", **below
    )
    # The score of the hardmax channel: d/dk1 log Phi2(k1, k2; r) on the diagonal k1 = k2 = k (r = 1/3), against
    # the bivariate density over the orthant probability, phi2(k, k; r)/Phi2.
    plot.theory_curve(
        h["score_k"],
        h["score_exact"],
        r"$\partial_{k_1}\log\Phi_2 = \varphi(k_1)\Phi(\frac{k_2-rk_1}{\sqrt{1-r^2}})/\Phi_2$",
        ax=ax2,
        color="C0",
    )
    plot.theory_curve(
        h["score_k"], h["score_density"], r"$\varphi_2(k_1,k_2;r)/\Phi_2$", ax=ax2, color="C3", linestyle="--"
    )
    plot.finish(
        ax2,
        r"$k_1 = k_2 = k$ ($r = 1/3$)",
        "score of the orthant probability",
        title="the channel's derivative",
        **below,
    )
    fig.savefig(HERE / "fig_hardmax.png", dpi=150)


def fig_amp(data):
    """GAMP-RIE at the authors' d = 150 (rho = 0.5, T = 2, 3, 4) against their AMP points and the theory: the error
    after their cap of 100 iterations (like for like) and after 500."""
    pub = load_published(HERE, "amp_softmax_rho0.5.csv")
    alphas = {2: pub["alpha"][pub["T"] == 2][list(AMP_ROWS_T2)], **AMP_ALPHAS_T34}
    caps = {
        T: [SOFT_LONG if (T, round(float(a), 6)) in LONG else SOFT_CAP for a in als]
        for T, als in alphas.items()
    }
    jobs = [
        (T, a, AMP_D, "softmax", (3, T, i, s), caps[T][i])
        for T, als in alphas.items()
        for i, a in enumerate(als)
        for s in range(AMP_SETS)
    ]
    out = iter(run_jobs(amp_job, jobs))
    comps = []
    for T in (2, 3, 4):
        als = np.asarray(alphas[T], dtype=float)
        runs = [next(out) for _ in range(als.size * AMP_SETS)]
        errs = np.array([r[0] for r in runs]).reshape(als.size, AMP_SETS)
        errs100 = np.array([r[3] for r in runs]).reshape(als.size, AMP_SETS)
        iters = np.array([r[1] for r in runs]).reshape(als.size, AMP_SETS)
        conv = np.array([r[2] for r in runs]).reshape(als.size, AMP_SETS)
        mean, sem = mean_se(errs, axis=1)
        mean100, sem100 = mean_se(errs100, axis=1)
        theory = np.array([at.bayes_optimal_mmse(a, RHO, T) for a in als])
        mine = pub[pub["T"] == T]
        rows = [int(np.argmin(np.abs(mine["alpha"] - a))) for a in als]
        their_mean = mine["mmse"][rows]
        their_sem = their_se(mine["mmse_std"][rows], THEIR_RUNS["amp_softmax"], THEIR_DDOF["amp_softmax"])
        long = np.array(caps[T]) == SOFT_LONG
        tiny = np.full_like(sem, 1e-12)
        comps += [
            comparison(
                f"T = {T}: GAMP-RIE ({SOFT_CAP} iterations) vs their AMP ({SOFT_CAP} iterations, "
                f"d = {AMP_D})",
                "runs_vs_published",
                z=z_scores(mean100, sem100, their_mean, their_sem),
            ),
            comparison(
                f"T = {T}: GAMP-RIE ({SOFT_CAP} iterations) vs Bayes-optimal theory",
                "runs_vs_theory",
                diffs=mean100 - theory,
                z=z_scores(mean100, sem100, theory, tiny),
            ),
        ]
        if long.any():
            where = ", ".join(f"{a:g}" for a in als[long])
            comps += [
                comparison(
                    f"T = {T}, alpha = {where}: GAMP-RIE ({SOFT_LONG} iterations) vs their AMP",
                    "runs_vs_published",
                    z=z_scores(mean[long], sem[long], their_mean[long], their_sem[long]),
                ),
                comparison(
                    f"T = {T}, alpha = {where}: GAMP-RIE ({SOFT_LONG} iterations) vs Bayes-optimal theory",
                    "runs_vs_theory",
                    diffs=mean[long] - theory[long],
                    z=z_scores(mean[long], sem[long], theory[long], tiny[long]),
                ),
            ]
        data[f"amp_T{T}"] = {
            "alpha": als.tolist(),
            "errors": errs.tolist(),
            "mean": mean.tolist(),
            "se": sem.tolist(),
            "errors_100": errs100.tolist(),
            "mean_100": mean100.tolist(),
            "se_100": sem100.tolist(),
            "iterations": iters.tolist(),
            "converged": conv.tolist(),
            "theory": theory.tolist(),
            "their_mean": their_mean.tolist(),
            "their_se": their_sem.tolist(),
            "d": AMP_D,
            "cap_short": SOFT_CAP,
            "cap_long": SOFT_LONG,
            "cap": caps[T],
        }
    draw_amp(data)
    return comps


def draw_amp(data):
    """The GAMP-RIE softmax figure from the stored results (``data``: ``results["data"]``) and the authors' AMP
    points; the theory lines are recomputed. One legend entry per curve colour and one per kind of marker."""
    pub = load_published(HERE, "amp_softmax_rho0.5.csv")
    fig, ax = plot.new_axes(width=6.4, height=5.4)
    grid = np.linspace(0.002, 0.3, 300)
    for T, color in ((2, "C0"), (3, "C1"), (4, "C2")):
        d = data[f"amp_T{T}"]
        als = np.asarray(d["alpha"], dtype=float)
        plot.theory_curve(
            grid,
            [at.bayes_optimal_mmse(a, RHO, T) for a in grid],
            f"Bayes-optimal, T = {T}",
            ax=ax,
            color=color,
        )
        plot.experiment_points(als, d["mean_100"], d["se_100"], ax=ax, fmt="o", color=color)
        long = np.array(d["cap"]) == d["cap_long"]
        if long.any():
            plot.experiment_points(
                als[long] * 1.03,
                np.array(d["mean"])[long],
                np.array(d["se"])[long],
                ax=ax,
                fmt="x",
                color=color,
                markersize=5,
            )
        mine = pub[pub["T"] == T]
        plot.experiment_points(
            mine["alpha"],
            mine["mmse"],
            their_se(mine["mmse_std"], THEIR_RUNS["amp_softmax"], THEIR_DDOF["amp_softmax"]),
            ax=ax,
            fmt="^",
            mfc="white",
            color=color,
            capsize=2,
        )
    for T in (2, 3, 4):
        plot.threshold_line(at.perfect_recovery_threshold(RHO, T), ax=ax, linewidth=1)
    d2 = data["amp_T2"]
    marks = [
        Line2D(
            [],
            [],
            marker="o",
            linestyle="none",
            color="0.3",
            label=f"GAMP-RIE (ours), {d2['cap_short']} iterations, d = {d2['d']}, "
            f"{len(d2['errors'][0])} data sets",
        ),
        Line2D(
            [],
            [],
            marker="x",
            linestyle="none",
            color="0.3",
            label=f"the same runs after {d2['cap_long']} iterations",
        ),
        Line2D(
            [],
            [],
            marker="^",
            linestyle="none",
            color="0.3",
            mfc="white",
            label=f"AMP (Boncoraglio et al.), {d2['cap_short']} iterations",
        ),
    ]
    lines = ax.get_legend_handles_labels()[0]
    plot.finish(
        ax,
        r"$\alpha = n/d^2$",
        r"$\|\hat S - S^*\|_F^2/d$",
        title=r"softmax, $\rho$ = 0.5 "
        "(dotted: $\\alpha_{PR}$)",
        handles=lines + marks,
        loc="upper left",
        bbox_to_anchor=(0.0, -0.14),
    )
    fig.savefig(HERE / "fig_amp.png", dpi=150)


def fig_gd(data):
    """Single and averaged Adam at the authors' d = 200 (T = 2, rho = 0.5) against their GD_single/GD_averaged."""
    pub = load_published(HERE, "gd_T2_d200.csv")
    a_avg, a_single = float(pub["alpha"][GD_AVG_ROW]), float(pub["alpha"][GD_SINGLE_ROW])
    jobs = [(a_avg, GD_D, GD_K, (4, 0, s)) for s in range(GD_SETS)] + [
        (a_single, GD_D, 1, (4, 1, s)) for s in range(GD_SETS)
    ]
    res = run_jobs(gd_job, jobs)
    per_set_single = np.array(
        [np.mean(r[0]) for r in res[:GD_SETS]]
    )  # mean over the 32 students of a data set
    avg = np.array([r[1] for r in res[:GD_SETS]])
    single_hi = np.array([r[0][0] for r in res[GD_SETS:]])
    losses = [max(r[2]) for r in res]
    # CPU seconds of one Adam student-step at the larger alpha (the single students: 1 student, GD_STEPS steps)
    # and its FLOP count, 4 n T d r: the forward product X W and the gradient X^T Q (the rest is O(n T^2 r)).
    step_cpu = float(np.median([r[3] for r in res[GD_SETS:]])) / GD_STEPS
    n_single = round(a_single * GD_D**2)
    step_flop = 4.0 * n_single * 2 * GD_D * int(RHO * GD_D)
    alphas = np.array([a_avg, a_single])
    single_mean, single_sem = (np.array(x) for x in zip(mean_se(per_set_single), mean_se(single_hi)))
    avg_mean, avg_sem = mean_se(avg)
    theory = np.array([at.bayes_optimal_mmse(a, RHO, 2) for a in alphas])
    rows = [GD_AVG_ROW, GD_SINGLE_ROW]
    gd_se = {"n_runs": THEIR_RUNS["gd"], "ddof": THEIR_DDOF["gd"]}
    th_single, th_single_sem = pub["single_mmse"][rows], their_se(pub["single_std"][rows], **gd_se)
    th_avg, th_avg_sem = pub["averaged_mmse"][GD_AVG_ROW], their_se(pub["averaged_std"][GD_AVG_ROW], **gd_se)

    data["gd"] = {
        "alpha": alphas.tolist(),
        "single_mean": single_mean.tolist(),
        "single_se": single_sem.tolist(),
        "single_per_set": per_set_single.tolist(),
        "single_alpha_hi_runs": single_hi.tolist(),
        "averaged_mean": float(avg_mean),
        "averaged_se": float(avg_sem),
        "averaged_per_set": avg.tolist(),
        "theory": theory.tolist(),
        "their_single": th_single.tolist(),
        "their_single_se": th_single_sem.tolist(),
        "their_averaged": float(th_avg),
        "their_averaged_se": float(th_avg_sem),
        "max_relative_loss": float(max(losses)),
        "d": GD_D,
        "students": GD_K,
        "steps": GD_STEPS,
        "step_cpu_s": step_cpu,
        "step_flop": step_flop,
        "step_n": n_single,
        "their_sets": 16,
        "their_ddof": 0,
    }
    draw_gd(data)
    return [
        comparison(
            "single GD vs theirs (alpha = 0.0071, 0.103)",
            "runs_vs_published",
            z=z_scores(single_mean, single_sem, th_single, th_single_sem),
        ),
        comparison(
            "averaged GD vs theirs (alpha = 0.0071)",
            "runs_vs_published",
            z=z_scores([avg_mean], [avg_sem], [th_avg], [th_avg_sem]),
        ),
        comparison(
            "averaged GD minus Bayes MMSE (alpha = 0.0071; not expected to vanish)",
            "runs_vs_theory",
            diffs=[avg_mean - theory[0]],
        ),
    ]


def draw_gd(data):
    """The Adam figure from the stored results (``data``: ``results["data"]``) and the authors' GD points; the
    theory line is recomputed."""
    g = data["gd"]
    pub = load_published(HERE, "gd_T2_d200.csv")
    gd_se = {"n_runs": THEIR_RUNS["gd"], "ddof": THEIR_DDOF["gd"]}
    sets = len(g["averaged_per_set"])
    fig, ax = plot.new_axes(width=6.4, height=4.8)
    grid = np.geomspace(1e-3, 0.3, 200)
    plot.theory_curve(
        grid, [at.bayes_optimal_mmse(a, RHO, 2) for a in grid], "Bayes-optimal", ax=ax, color="k"
    )
    plot.experiment_points(
        pub["alpha"],
        pub["single_mmse"],
        their_se(pub["single_std"], **gd_se),
        ax=ax,
        fmt="^",
        mfc="white",
        color="C3",
        capsize=2,
        label="their single GD, 16 runs",
    )
    plot.experiment_points(
        pub["alpha"],
        pub["averaged_mmse"],
        their_se(pub["averaged_std"], **gd_se),
        ax=ax,
        fmt="v",
        mfc="white",
        color="C1",
        capsize=2,
        label=f"their averaged GD, {g['students']} students",
    )
    plot.experiment_points(
        g["alpha"],
        g["single_mean"],
        g["single_se"],
        ax=ax,
        fmt="o",
        color="C3",
        markersize=7,
        label=f"single Adam (ours), {sets} data sets",
    )
    plot.experiment_points(
        [g["alpha"][0]],
        [g["averaged_mean"]],
        [g["averaged_se"]],
        ax=ax,
        fmt="s",
        color="C1",
        markersize=7,
        label=f"averaged, {g['students']} students (ours), {sets} data sets",
    )
    plot.threshold_line(at.perfect_recovery_threshold(RHO, 2), r"$\alpha_{PR}$", ax=ax)
    ax.set_xscale("log")
    plot.finish(
        ax,
        r"$\alpha = n/d^2$",
        r"$\|\hat S - S^*\|_F^2/d$",
        title=rf"Adam, lr 0.1, {g['steps']} steps, d = {g['d']}, T = 2, $\rho$ = 0.5",
        loc="lower left",
    )
    fig.savefig(HERE / "fig_gd.png", dpi=150)


AMP_DESIGN_ALPHA = 0.1  # the alpha at which the size of their softmax AMP design is quoted
ASSUMED_BANDWIDTH_GB_S = 10.0  # memory bandwidth assumed for their AMP estimate (not measured)


def authors_times(data) -> dict:
    """The ``authors_time`` of each figure: their SE scripts as timed here by ``time_authors.py`` (measured), the
    rest estimated from those measurements and from our own step times."""
    path = HERE / "authors_timing.json"
    timing = json.loads(path.read_text()) if path.exists() else None
    if timing is None:
        data["authors_timing"] = None
        return {
            fid: authors_time("not known", "time_authors.py has not been run")
            for fid in ("se", "hardmax", "amp", "gd")
        }
    soft, hard = timing["runs"]
    hard_iter = hard["cpu_s"] / hard["iterations_finished"]  # CPU seconds per iteration (the start included)
    per_draw = hard_iter / hard["mc_draws_per_iteration"]
    n_hard = round(data["hardmax"]["amp_alpha"][-1] * 100**2)
    their_amp_iter = 3 * n_hard * per_draw  # gOut: one scipy CDF per sample, called 3 times per iteration
    g = data["gd"]
    gd_point = g["their_sets"] * GD_K * GD_STEPS * g["step_cpu_s"]
    data["authors_timing"] = {
        **timing,
        "se_hardmax_s_per_iteration": hard_iter,
        "per_draw_s": per_draw,
        "their_hardmax_amp_iteration_s": their_amp_iter,
        "their_hardmax_amp_n": n_hard,
        "their_gd_point_s": gd_point,
    }
    where = f"{timing['machine']}, Python {timing['versions']['python']}, {timing['date']}"
    soft_how = (
        f"their SE_softmax.py run unmodified here ({where}): "
        + (
            f"the whole curve, {soft['grid_size']} alphas, in {soft['wall_s']:.0f} s"
            if soft["finished"]
            else f"{soft['alphas_finished']} of its {soft['grid_size']} alphas in the {soft['cap_s']:.0f} s cap"
        )
        + f" ({soft['cpu_s']:.0f} s of CPU)"
    )
    hard_min = (
        hard["min_iterations"] * hard_iter / 60
    )  # minutes per alpha, extrapolated from the measured iterations
    hard_how = (
        f"their SE_hardmax.py run unmodified here at one alpha ({hard['alpha']:.3g}; {where}) and stopped "
        f"after {hard['wall_s']:.0f} s, having finished {hard['iterations_finished']} iteration(s) of "
        f"{hard['mc_draws_per_iteration']} draws in {hard['cpu_s']:.0f} s of CPU, {hard_iter:.1f} s each "
        f"(measured). It runs at least {hard['min_iterations']} iterations per alpha, so at least "
        f"{lower_bound(hard_min):g} min per alpha: extrapolated from these "
        f"{hard['iterations_finished']} iterations, not measured. "
        f"Their AMP (not run) calls one scipy CDF per sample 3 times per iteration: at the measured "
        f"{per_draw * 1e3:.2f} ms per draw, about {their_amp_iter:.0f} s per iteration at alpha = 2.27 "
        f"(n = {n_hard}), estimated"
    )
    # their AMP_softmax.py: the n x d x d x T x T design in float64, read at least 3 times per iteration; the time
    # assumes a memory bandwidth (not measured here)
    n_amp = round(AMP_DESIGN_ALPHA * AMP_D**2)
    design_gb = n_amp * AMP_D**2 * 2**2 * 8 / 1e9
    per_iteration = 3 * design_gb / ASSUMED_BANDWIDTH_GB_S
    amp_how = (
        f"their AMP_softmax.py builds the n x d x d x T x T design in float64 ({design_gb:.2f} GB at "
        f"d = {AMP_D}, T = 2, alpha = {AMP_DESIGN_ALPHA:g}, and as much again for the test set) and reads it at "
        f"least 3 times per iteration. Assuming a memory bandwidth of {ASSUMED_BANDWIDTH_GB_S:g} GB/s (an "
        f"assumption, not measured here), that is at least {lower_bound(per_iteration):g} s per iteration, "
        f"{lower_bound(100 * per_iteration):g} s per run of 100 iterations and "
        f"{lower_bound(20 * 100 * per_iteration / 60):g} min per alpha of 20 runs"
    )
    gd_how = (
        f"one Adam student-step at alpha = 0.103 (n = {g['step_n']}) is "
        f"4 n T d r = {g['step_flop'] / 1e9:.2f} GFLOP and took {g['step_cpu_s'] * 1e3:.0f} ms of CPU here "
        f"(ours, float64, one thread); their averaged point, 16 data sets x {GD_K} students x {GD_STEPS} "
        f"steps, at that rate: {gd_point / 3600:.1f} h of CPU per alpha (their PyTorch float32 code on a CPU, "
        "which is what their script uses, may be up to twice as fast)"
    )
    return {
        "se": authors_time("measured", soft_how),
        "hardmax": authors_time("measured", hard_how),
        "amp": authors_time("estimated, not run", amp_how),
        "gd": authors_time("estimated, not run", gd_how),
    }


FIGURES = [
    ("se", "fig_se.png", "Softmax Bayes-optimal MMSE vs published SE (T = 2, rho = 0.5 and 2)", fig_se),
    (
        "hardmax",
        "fig_hardmax.png",
        "Hardmax state evolution and GAMP-RIE (T = 2, rho = 0.5, d = 100)",
        fig_hardmax,
    ),
    ("amp", "fig_amp.png", "GAMP-RIE at d = 150 vs their AMP (T = 2, 3, 4)", fig_amp),
    ("gd", "fig_gd.png", "Single and averaged Adam at d = 200 (T = 2): subset of alphas", fig_gd),
]


def main():
    t0 = time.perf_counter()
    results = {
        "paper": "Boncoraglio, Troiani, Erba, Zdeborova, Bayes optimal learning of attention-indexed models, "
        "NeurIPS 2025",
        "reference": "arXiv:2506.01582",
        "machine": machine(),
        "figures": [],
        "sizes": f"SE on the authors' grids; GAMP-RIE softmax d = {AMP_D} ({AMP_SETS} data sets per alpha), "
        f"hardmax d = {HARD_D} ({HARD_SETS} data sets), Monte-Carlo SE {HARD_MC} draws; Adam "
        f"d = {GD_D}, {GD_K} students, {GD_STEPS} steps, {GD_SETS} data sets per alpha"
        + (" [DEV: d / 4]" if DEV else ""),
    }
    data = {}
    warnings.simplefilter("ignore")  # in this process; the workers' warnings are not shown (parallel_map)
    for fid, file, title, make in FIGURES:
        fig = {"id": fid, "file": file, "title": title}
        with timed(fig):
            comps = make(data)
        fig["comparisons"] = comps
        table(HERE, f"table_{fid}.md", comps)
        results["figures"].append(fig)
        print(f"{fid}: {fig['wall_time_s']:.0f} s", flush=True)
    theirs = authors_times(data)
    for fig in results["figures"]:
        fig["authors_time"] = theirs[fig["id"]]
    results["data"] = data
    results["total_wall_time_s"] = round(time.perf_counter() - t0, 2)
    results["cpu_time_s"] = round(
        cpu_time(), 2
    )  # this process and its workers (shut down first, to count them)
    results["workers"] = workers()
    write_results(HERE, results)
    write_page_numbers(ROOT / "reproductions" / "attention.md", prose.numbers(results))
    print(f"total {results['total_wall_time_s']:.0f} s wall, {results['cpu_time_s']:.0f} s CPU")


def from_results():
    """Rewrite the authors' times and the page's numbers from the committed ``results.json`` (nothing is rerun)."""
    results = json.loads((HERE / "results.json").read_text())
    theirs = authors_times(results["data"])
    for fig in results["figures"]:
        fig["authors_time"] = theirs[fig["id"]]
    write_results(HERE, results)
    write_page_numbers(ROOT / "reproductions" / "attention.md", prose.numbers(results))


if __name__ == "__main__":
    from_results() if "--from-results" in sys.argv else main()
