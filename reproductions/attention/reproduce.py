"""Reproduce the key figures of Boncoraglio, Troiani, Erba, Zdeborova, "Bayes optimal learning of attention-indexed
models" (arXiv:2506.01582) at the paper's sizes, beside the authors' published numbers (``published/``).

    python reproductions/attention/reproduce.py          # paper sizes (about 10 minutes on 2 cores)
    REPRO_DEV=1 python reproductions/attention/reproduce.py   # every d divided by 4, 2 data sets: a smoke test

Writes fig_*.png, table_*.md and results.json next to this file (see ``reproductions/_common.py``). The science is
in :mod:`solvable.attention`; this is wiring. Independent runs (one data set each) go to a pool of
``REPRO_WORKERS`` processes (default 2), each with its own explicit seed, so the numbers do not depend on it.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np
from scipy.stats import multivariate_normal, norm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _common import (
    comparison,
    load_published,
    machine,
    markdown_table,
    mean_se,
    timed,
    write_results,
    z_scores,
)

from solvable import attention as at
from solvable import plotting as plot
from solvable.config import PRESETS

DEV = os.environ.get("REPRO_DEV") == "1"
SCALE = 4 if DEV else 1
WORKERS = int(os.environ.get("REPRO_WORKERS", "2"))
RHO = 0.5
MAX_ITER = 1000  # GAMP-RIE iteration cap: the library default, which lets the hardmax runs at alpha = 2.27 reach their fixed point
# GAMP-RIE, softmax: d = 150 as the authors (config "paper" preset); a subset of their alphas, 10 data sets each.
AMP_D, AMP_SETS = PRESETS["paper"].attention_gamp_d // SCALE, 2 if DEV else 10
AMP_ROWS_T2 = (1, 4, 6, 8, 10)  # rows of their T = 2 file (alpha = 0.056 ... 0.165)
AMP_ALPHAS_T34 = {3: (0.03, 0.05, 0.07), 4: (0.02, 0.03, 0.04)}
# Hardmax (T = 2): their AMP size d = 100; four of their alphas, 8 data sets; Monte-Carlo SE with 1e5 draws.
HARD_D, HARD_SETS, HARD_ROWS, HARD_MC = 100 // SCALE, 2 if DEV else 8, (5, 10, 14, 18), 100_000
# Adam (lr 0.1, 1000 full-batch steps, W ~ N(0, 1)) at the authors' d = 200, T = 2: averaged GD (32 students per
# data set) at their alpha grid row 10, single GD at row 25 (plus the 96 students of row 10).
GD_D, GD_STEPS, GD_K = 200 // SCALE, 1000, 32
GD_AVG_ROW, GD_SINGLE_ROW, GD_SETS = 10, 25, 2 if DEV else 3
OURS = {"color": "C0"}
THEIRS = {"mfc": "white", "color": "C3", "capsize": 2}


def amp_job(job):
    T, alpha, d, output, seed = job
    rng = np.random.default_rng(seed)
    data = at.sample(d, alpha, rho=RHO, T=T, output=output, rng=rng)
    res = at.gamp_rie(data, max_iter=MAX_ITER, rng=rng, warn=False)  # every run is kept, converged or not
    return res.error, res.iterations, res.converged


def gd_job(job):
    alpha, d, K, seed = job
    rng = np.random.default_rng(seed)
    res = at.gd(at.sample(d, alpha, rho=RHO, T=2, rng=rng), optimiser="adam", n_inits=K, max_steps=GD_STEPS, lr=0.1,
                record_every=GD_STEPS, warn=False, rng=rng)
    return res.errors.tolist(), res.average_error, res.losses.tolist()


def hard_se_job(alpha):
    return at.hardmax_state_evolution(alpha, RHO, n_samples=HARD_MC, rng=2506, warn=False).error


def their_se(std, n_runs):
    """Their files give the population std over n_runs runs; its standard error is std/sqrt(n_runs - 1)."""
    return np.asarray(std) / math.sqrt(n_runs - 1)


def fmt(x, digits=4):
    return "n/a" if x is None else f"{x:.{digits}g}"


def table(folder, name, comps):
    rows = [[c["what"], c["kind"].replace("_", " "), c["n_points"], fmt(c["max_abs_diff"]), fmt(c["max_abs_z"], 3)]
            for c in comps]
    (folder / name).write_text(markdown_table(["comparison", "kind", "points", "largest abs. difference",
                                               "largest abs. z"], rows))


def fig_se(pool, data):
    """Fig. 1: the softmax Bayes-optimal MMSE (T = 2) against the authors' state evolution, rho = 0.5 and 2."""
    fig, ax = plot.new_axes(width=6.4, height=4.0)
    comps = []
    for rho, color in ((0.5, "C0"), (2.0, "C2")):
        pub = load_published(HERE, f"se_softmax_T2_rho{rho}.csv")
        ours = np.array([at.bayes_optimal_mmse(a, rho, 2) for a in pub["alpha"]])
        grid = np.linspace(1e-4, at.perfect_recovery_threshold(rho, 2) * 1.1, 256)
        plot.theory_curve(grid, [at.bayes_optimal_mmse(a, rho, 2) for a in grid], rf"ours, $\rho$ = {rho}", ax=ax,
                          color=color)
        plot.experiment_points(pub["alpha"], pub["mmse"], ax=ax, fmt="o", markersize=4, mfc="white", color=color,
                               label=rf"Boncoraglio et al. (published SE), $\rho$ = {rho}")
        inner = (pub["alpha"] > 1e-4) & (pub["alpha"] < 0.9 * at.perfect_recovery_threshold(rho, 2))
        comps += [comparison(f"rho = {rho}: SE, 1e-4 < alpha < 0.9 alpha_PR", "theory_vs_published",
                             diffs=(ours - pub["mmse"])[inner]),
                  comparison(f"rho = {rho}: SE, all points (alpha = 1e-5 ... alpha_PR)", "theory_vs_published",
                             diffs=ours - pub["mmse"])]
        data[f"se_rho{rho}"] = {"alpha": pub["alpha"].tolist(), "ours": ours.tolist(), "theirs": pub["mmse"].tolist()}
    plot.finish(ax, r"$\alpha = n/d^2$", r"MMSE $\|\hat S - S^*\|_F^2/d$", title="softmax, T = 2", fontsize=8)
    fig.savefig(HERE / "fig_se.png", dpi=150)
    return comps


def fig_hardmax(pool, data):
    """The hardmax (T = 2, rho = 0.5) state evolution: ours, theirs, their AMP and our GAMP-RIE at their d = 100."""
    pub_se, pub_amp = load_published(HERE, "se_hardmax_rho0.5.csv"), load_published(HERE, "amp_hardmax_rho0.5.csv")
    amp_alphas = pub_amp["alpha"][list(HARD_ROWS)]
    se_alphas = np.concatenate([pub_se["alpha"], amp_alphas])
    se = np.array(list(pool.map(hard_se_job, se_alphas)))
    ours_se, ours_at_amp = se[: pub_se.size], se[pub_se.size:]
    jobs = [(2, a, HARD_D, "hardmax", (2, i, s)) for i, a in enumerate(amp_alphas) for s in range(HARD_SETS)]
    errs = np.array([r[0] for r in pool.map(amp_job, jobs)]).reshape(len(amp_alphas), HARD_SETS)
    mean, sem = mean_se(errs, axis=1)
    their_mean, their_sem = pub_amp["mmse"][list(HARD_ROWS)], their_se(pub_amp["mmse_std"][list(HARD_ROWS)], 16)
    their_se_at_amp = np.interp(np.log(amp_alphas), np.log(pub_se["alpha"]), pub_se["mmse"])

    fig, (ax, ax2) = plot.new_axes(ncols=2, width=5.2, height=4.0)
    plot.theory_curve(pub_se["alpha"], ours_se, "state evolution (ours)", ax=ax, color="C0")
    plot.theory_curve(pub_se["alpha"], pub_se["mmse"], "state evolution (Boncoraglio et al., published)", ax=ax,
                      color="C3", linestyle="--")
    plot.experiment_points(amp_alphas, mean, sem, ax=ax, fmt="s", **OURS,
                           label=f"GAMP-RIE (ours), d = {HARD_D}, {HARD_SETS} data sets")
    plot.experiment_points(pub_amp["alpha"], pub_amp["mmse"], their_se(pub_amp["mmse_std"], 16), ax=ax, fmt="^",
                           label="AMP (Boncoraglio et al.), d = 100, 16 runs", **THEIRS)
    ax.set_xscale("log")
    plot.finish(ax, r"$\alpha = n/d^2$", r"$\|\hat S - S^*\|_F^2/d$", title=r"hardmax, T = 2, $\rho$ = 0.5",
                fontsize=7)
    # The score of the hardmax channel: d/dk1 log Phi2(k1, k2; r) on the diagonal k1 = k2 = k (r = 1/3), against
    # the bivariate density over the orthant probability, phi2(k, k; r)/Phi2.
    k, r = np.linspace(-3, 3, 61), 1.0 / 3.0
    mvn = multivariate_normal(mean=[0.0, 0.0], cov=[[1.0, r], [r, 1.0]])
    Phi2 = np.array([mvn.cdf([x, x]) for x in k])
    exact = norm.pdf(k) * norm.cdf((k - r * k) / math.sqrt(1 - r * r)) / Phi2
    dens = mvn.pdf(np.stack([k, k], axis=1)) / Phi2
    plot.theory_curve(k, exact, r"$\partial_{k_1}\log\Phi_2 = \varphi(k_1)\Phi(\frac{k_2-rk_1}{\sqrt{1-r^2}})/\Phi_2$",
                      ax=ax2, color="C0")
    plot.theory_curve(k, dens, r"$\varphi_2(k_1,k_2;r)/\Phi_2$", ax=ax2, color="C3", linestyle="--")
    plot.finish(ax2, r"$k_1 = k_2 = k$ ($r = 1/3$)", "score of the orthant probability", fontsize=8,
                title="the channel's derivative")
    fig.savefig(HERE / "fig_hardmax.png", dpi=150)
    data["hardmax"] = {"se_alpha": pub_se["alpha"].tolist(), "ours_se": ours_se.tolist(),
                       "theirs_se": pub_se["mmse"].tolist(), "amp_alpha": amp_alphas.tolist(),
                       "ours_se_at_amp": ours_at_amp.tolist(), "theirs_se_at_amp": their_se_at_amp.tolist(),
                       "amp_errors": errs.tolist(), "amp_mean": mean.tolist(), "amp_se": sem.tolist(),
                       "their_amp_mean": their_mean.tolist(), "their_amp_se": their_sem.tolist(), "d": HARD_D,
                       "mc_samples": HARD_MC, "score_k": k.tolist(), "score_exact": exact.tolist(),
                       "score_density": dens.tolist()}
    tiny = np.full_like(sem, 1e-12)  # the SE's Monte-Carlo error (~1e-3) is neglected next to the runs' s.e.
    return [comparison("hardmax SE: ours vs published (33 alphas, 0.02-10)", "theory_vs_published",
                       diffs=ours_se - pub_se["mmse"]),
            comparison(f"hardmax GAMP-RIE (d = {HARD_D}) vs their AMP (d = 100)", "runs_vs_published",
                       z=z_scores(mean, sem, their_mean, their_sem)),
            comparison(f"hardmax GAMP-RIE (d = {HARD_D}) vs our SE", "runs_vs_theory", diffs=mean - ours_at_amp,
                       z=z_scores(mean, sem, ours_at_amp, tiny)),
            comparison(f"hardmax GAMP-RIE (d = {HARD_D}) vs their SE (interpolated in log alpha)", "runs_vs_theory",
                       diffs=mean - their_se_at_amp, z=z_scores(mean, sem, their_se_at_amp, tiny))]


def fig_amp(pool, data):
    """GAMP-RIE at the authors' d = 150 (rho = 0.5, T = 2, 3, 4) against their AMP points and the theory."""
    pub = load_published(HERE, "amp_softmax_rho0.5.csv")
    alphas = {2: pub["alpha"][pub["T"] == 2][list(AMP_ROWS_T2)], **AMP_ALPHAS_T34}
    jobs = [(T, a, AMP_D, "softmax", (3, T, i, s)) for T, als in alphas.items() for i, a in enumerate(als)
            for s in range(AMP_SETS)]
    out = iter(pool.map(amp_job, jobs))
    fig, ax = plot.new_axes(width=6.4, height=4.2)
    comps = []
    for T, color in ((2, "C0"), (3, "C1"), (4, "C2")):
        als = np.asarray(alphas[T], dtype=float)
        errs = np.array([next(out)[0] for _ in range(als.size * AMP_SETS)]).reshape(als.size, AMP_SETS)
        mean, sem = mean_se(errs, axis=1)
        theory = np.array([at.bayes_optimal_mmse(a, RHO, T) for a in als])
        mine = pub[pub["T"] == T]
        rows = [int(np.argmin(np.abs(mine["alpha"] - a))) for a in als]
        their_mean, their_sem = mine["mmse"][rows], their_se(mine["mmse_std"][rows], 20)
        grid = np.linspace(0.002, 0.3, 300)
        plot.theory_curve(grid, [at.bayes_optimal_mmse(a, RHO, T) for a in grid], f"Bayes-optimal, T = {T}", ax=ax,
                          color=color)
        plot.experiment_points(als, mean, sem, ax=ax, fmt="o", color=color,
                               label=f"GAMP-RIE (ours), T = {T}, d = {AMP_D}, {AMP_SETS} data sets")
        plot.experiment_points(mine["alpha"], mine["mmse"], their_se(mine["mmse_std"], 20), ax=ax, fmt="^",
                               mfc="white", color=color, capsize=2, label=f"AMP (Boncoraglio et al.), T = {T}")
        comps += [comparison(f"T = {T}: GAMP-RIE vs Bayes-optimal theory", "runs_vs_theory", diffs=mean - theory,
                             z=z_scores(mean, sem, theory, np.full_like(sem, 1e-12))),
                  comparison(f"T = {T}: GAMP-RIE vs their AMP (same alphas, d = 150)", "runs_vs_published",
                             z=z_scores(mean, sem, their_mean, their_sem))]
        data[f"amp_T{T}"] = {"alpha": als.tolist(), "errors": errs.tolist(), "mean": mean.tolist(),
                             "se": sem.tolist(), "theory": theory.tolist(), "their_mean": their_mean.tolist(),
                             "their_se": their_sem.tolist(), "d": AMP_D}
    for T in (2, 3, 4):
        plot.threshold_line(at.perfect_recovery_threshold(RHO, T), ax=ax, linewidth=1)
    plot.finish(ax, r"$\alpha = n/d^2$", r"$\|\hat S - S^*\|_F^2/d$", title=r"softmax, $\rho$ = 0.5 "
                "(dotted: $\\alpha_{PR}$)", fontsize=7)
    fig.savefig(HERE / "fig_amp.png", dpi=150)
    return comps


def fig_gd(pool, data):
    """Single and averaged Adam at the authors' d = 200 (T = 2, rho = 0.5) against their GD_single/GD_averaged."""
    pub = load_published(HERE, "gd_T2_d200.csv")
    a_avg, a_single = float(pub["alpha"][GD_AVG_ROW]), float(pub["alpha"][GD_SINGLE_ROW])
    jobs = [(a_avg, GD_D, GD_K, (4, 0, s)) for s in range(GD_SETS)] + \
           [(a_single, GD_D, 1, (4, 1, s)) for s in range(GD_SETS)]
    res = list(pool.map(gd_job, jobs))
    per_set_single = np.array([np.mean(r[0]) for r in res[:GD_SETS]])  # mean over the 32 students of a data set
    avg = np.array([r[1] for r in res[:GD_SETS]])
    single_hi = np.array([r[0][0] for r in res[GD_SETS:]])
    losses = [max(r[2]) for r in res]
    alphas = np.array([a_avg, a_single])
    single_mean, single_sem = (np.array(x) for x in zip(mean_se(per_set_single), mean_se(single_hi)))
    avg_mean, avg_sem = mean_se(avg)
    theory = np.array([at.bayes_optimal_mmse(a, RHO, 2) for a in alphas])
    rows = [GD_AVG_ROW, GD_SINGLE_ROW]
    th_single, th_single_sem = pub["single_mmse"][rows], their_se(pub["single_std"][rows], 16)
    th_avg, th_avg_sem = pub["averaged_mmse"][GD_AVG_ROW], their_se(pub["averaged_std"][GD_AVG_ROW], 16)

    fig, ax = plot.new_axes(width=6.4, height=4.2)
    grid = np.geomspace(1e-3, 0.3, 200)
    plot.theory_curve(grid, [at.bayes_optimal_mmse(a, RHO, 2) for a in grid], "Bayes-optimal", ax=ax, color="k")
    plot.experiment_points(pub["alpha"], pub["single_mmse"], their_se(pub["single_std"], 16), ax=ax, fmt="^",
                           mfc="white", color="C3", capsize=2, label="single GD (Boncoraglio et al.), 16 runs")
    plot.experiment_points(pub["alpha"], pub["averaged_mmse"], their_se(pub["averaged_std"], 16), ax=ax, fmt="v",
                           mfc="white", color="C1", capsize=2, label="averaged GD, 32 students (Boncoraglio et al.)")
    plot.experiment_points(alphas, single_mean, single_sem, ax=ax, fmt="o", color="C3", markersize=7,
                           label=f"single Adam (ours), {GD_SETS} data sets")
    plot.experiment_points([a_avg], [avg_mean], [avg_sem], ax=ax, fmt="s", color="C1", markersize=7,
                           label=f"averaged over {GD_K} students (ours), {GD_SETS} data sets")
    plot.threshold_line(at.perfect_recovery_threshold(RHO, 2), r"$\alpha_{PR}$", ax=ax)
    ax.set_xscale("log")
    plot.finish(ax, r"$\alpha = n/d^2$", r"$\|\hat S - S^*\|_F^2/d$",
                title=rf"Adam, lr 0.1, {GD_STEPS} steps, d = {GD_D}, T = 2, $\rho$ = 0.5", fontsize=7)
    fig.savefig(HERE / "fig_gd.png", dpi=150)
    data["gd"] = {"alpha": alphas.tolist(), "single_mean": single_mean.tolist(), "single_se": single_sem.tolist(),
                  "single_per_set": per_set_single.tolist(), "single_alpha_hi_runs": single_hi.tolist(),
                  "averaged_mean": float(avg_mean), "averaged_se": float(avg_sem), "averaged_per_set": avg.tolist(),
                  "theory": theory.tolist(), "their_single": th_single.tolist(),
                  "their_single_se": th_single_sem.tolist(), "their_averaged": float(th_avg),
                  "their_averaged_se": float(th_avg_sem), "max_relative_loss": float(max(losses)), "d": GD_D,
                  "students": GD_K, "steps": GD_STEPS}
    return [comparison("single GD vs theirs (alpha = 0.0071, 0.103)", "runs_vs_published",
                       z=z_scores(single_mean, single_sem, th_single, th_single_sem)),
            comparison("averaged GD vs theirs (alpha = 0.0071)", "runs_vs_published",
                       z=z_scores([avg_mean], [avg_sem], [th_avg], [th_avg_sem])),
            comparison("averaged GD minus Bayes MMSE (alpha = 0.0071; not expected to vanish)", "runs_vs_theory",
                       diffs=[avg_mean - theory[0]])]


FIGURES = [
    ("se", "fig_se.png", "Softmax Bayes-optimal MMSE vs published SE (T = 2, rho = 0.5 and 2)", fig_se,
     ("their SE_softmax.py: a damped iteration with a scipy quad integral per step (not timed; minutes per curve, "
     "estimated)")),
    ("hardmax", "fig_hardmax.png", "Hardmax state evolution and GAMP-RIE (T = 2, rho = 0.5, d = 100)", fig_hardmax,
     ("estimated hours: their SE loops in Python over 25,000 draws with one scipy bivariate-normal CDF each, for at "
     "least 150 iterations per alpha; their AMP the same per sample and iteration")),
    ("amp", "fig_amp.png", "GAMP-RIE at d = 150 vs their AMP (T = 2, 3, 4)", fig_amp,
     ("estimated hours: their AMP materialises the n x d x d x T x T design (1.6 GB at d = 150, T = 2, alpha = 0.1) "
     "and denoises eigenvalue by eigenvalue in Python, 20 runs per alpha")),
    ("gd", "fig_gd.png", "Single and averaged Adam at d = 200 (T = 2): subset of alphas", fig_gd,
     ("estimated from the FLOPs (about 2 GFLOP per student-step at alpha = 0.1): their averaged point costs "
     "32 students x 16 runs x 1000 steps, hours per alpha on CPU")),
]


def main():
    t0 = time.perf_counter()
    results = {"paper": "Boncoraglio, Troiani, Erba, Zdeborova, Bayes optimal learning of attention-indexed models, "
                        "NeurIPS 2025", "reference": "arXiv:2506.01582", "machine": machine(), "figures": [],
               "sizes": f"SE on the authors' grids; GAMP-RIE softmax d = {AMP_D} ({AMP_SETS} data sets per alpha), "
                        f"hardmax d = {HARD_D} ({HARD_SETS} data sets), Monte-Carlo SE {HARD_MC} draws; Adam "
                        f"d = {GD_D}, {GD_K} students, {GD_STEPS} steps, {GD_SETS} data sets per alpha"
                        + (" [DEV: d / 4]" if DEV else "")}
    data = {}
    warnings.simplefilter("ignore")
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        for fid, file, title, make, authors in FIGURES:
            fig = {"id": fid, "file": file, "title": title, "authors_time": authors}
            with timed(fig):
                comps = make(pool, data)
            fig["comparisons"] = comps
            table(HERE, f"table_{fid}.md", comps)
            results["figures"].append(fig)
            print(f"{fid}: {fig['wall_time_s']:.0f} s", flush=True)
    results["data"] = data
    results["total_wall_time_s"] = round(time.perf_counter() - t0, 2)
    import resource
    results["cpu_time_s"] = round(time.process_time() + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
                                  + resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime, 2)
    write_results(HERE, results)
    print(f"total {results['total_wall_time_s']:.0f} s wall, {results['cpu_time_s']:.0f} s CPU")


if __name__ == "__main__":
    main()
