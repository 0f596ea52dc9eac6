"""Reproduce the perceptron figures of Barbier, Krzakala, Macris, Miolane, Zdeborova, PNAS 116:5451 (2019),
arXiv:1708.03395, at the authors' size (GAMP at d = 5000; their demo runs N = 5001), with :mod:`solvable`.

    python reproductions/perceptron/reproduce.py            # paper size (about 4 min on 2 cores)
    REPRO_SCALE=4 python reproductions/perceptron/reproduce.py   # d / 4, for development
    REPRO_JOBS=1 python reproductions/perceptron/reproduce.py    # one data set after the other (default -1: every core)

Figure 1: Gaussian teacher, sign channel: Bayes-optimal error (state evolution) and GAMP runs.
Figure 2: binary (Rademacher) teacher, sign channel: free entropy of the uninformed branch and the errors of the
Bayes-optimal estimator and of GAMP, with the thresholds alpha_IT and alpha_alg, against the authors' published
state-evolution output (``published/``: sphinxteam/GeneralizedLinearModel2017, Perceptrondemo.ipynb).
Writes fig_1.png, fig_2.png, table_1.md, table_2.md and results.json next to this file. The GAMP runs (one data set
each, its own child generator) go to ``REPRO_JOBS`` worker processes (``_common.run_jobs``), so the numbers do not
depend on the number of workers.
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
from scipy.special import erf

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]
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
from prose import numbers

from solvable import config, glm
from solvable import plotting as plot
from solvable.channels import get_channel
from solvable.integration import gaussian_expectation
from solvable.metrics import bayes_classification_error

SCALE = int(os.environ.get("REPRO_SCALE", "1"))
D = config.PRESETS["paper"].perceptron_sweep_d // SCALE  # 5000: the authors' GAMP demo uses N = 5001
SEEDS = 10                                                # independent data sets per alpha
GAMP = {"damping": 0.3, "tol": 1e-4, "max_iter": 500, "variance": "uniform"}  # tol: relative; variance: profile()
ALPHAS_GAUSS = [0.5, 1.0, 2.0, 3.0, 4.0]
ALPHAS_BINARY = [0.5, 1.0, 1.2, 1.3, 1.4, 1.45, 1.55, 1.7, 2.0]
SIGN = get_channel("sign")


def gamp_job(job):
    """One data set and one GAMP run on it: (angle error, iterations, seconds drawing the data, seconds of GAMP)."""
    prior, alpha, rng = job
    t0 = time.perf_counter()
    data = glm.sample(D, alpha, prior=prior, channel="sign", rng=rng)
    t1 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # iteration cap: counted in the iterations, reported on the page
        res = glm.gamp(data, rng=rng, **GAMP)
    return res.error, res.iterations, t1 - t0, time.perf_counter() - t1


def gamp_runs(prior, alphas, seed, timing):
    """Angle error of GAMP on SEEDS independent data sets per alpha (one initialisation each), on the workers;
    ``timing`` gains the seconds spent drawing the data and running GAMP, summed over the runs."""
    children = np.random.default_rng(seed).spawn(len(alphas) * SEEDS)
    out = run_jobs(gamp_job, [(prior, a, children[i * SEEDS + s]) for i, a in enumerate(alphas) for s in range(SEEDS)])
    errors = np.array([o[0] for o in out], dtype=float).reshape(len(alphas), SEEDS)
    iters = np.array([o[1] for o in out], dtype=int).reshape(len(alphas), SEEDS)
    timing["sample_s"] += sum(o[2] for o in out)
    timing["gamp_s"] += sum(o[3] for o in out)
    return errors, iters


def low_branch(alpha):
    """Overlap, free entropy and label MSE of the fixed point reached from q ~ 0 (what GAMP attains)."""
    q = float(glm.state_evolution(alpha, "rademacher", "sign").overlap_history[-1])
    if q > 1 - 1e-6:
        return q, -np.log(2.0), 0.0
    mhat = alpha * float(SIGN.se_mhat_factor(q, 1.0))
    k = np.sqrt(q / (1 - q))  # label MSE of the Bayes label y_hat = 2 Phi(k xi) - 1: the authors' "generalization"
    label_mse = 1 - gaussian_expectation(lambda x: erf(k * x / np.sqrt(2)) ** 2)
    return q, glm.free_entropy(q, mhat, alpha, "rademacher", "sign"), label_mse


def fmt(x, digits=4):
    return f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"


def figure_1(fig_rec, data):
    with timed(fig_rec):
        grid = np.round(np.linspace(0.05, 5.0, 100), 4)
        theory = np.array([glm.bayes_gen_error(a, "gaussian", "sign") for a in grid])
        timing = {"sample_s": 0.0, "gamp_s": 0.0}
        errs, iters = gamp_runs("gaussian", ALPHAS_GAUSS, 11, timing)
        mean, se = mean_se(errs, axis=1)
        at = np.array([glm.bayes_gen_error(a, "gaussian", "sign") for a in ALPHAS_GAUSS])
        z = z_scores(mean, se, at, 0 * at)
    fig_rec["comparisons"] = [comparison("GAMP runs vs Bayes-optimal state evolution", "runs_vs_theory", z=z)]
    rows = [[f"{a:g}", fmt(t), f"{m:.4f} ± {s:.4f}", f"{m - t:+.4f}", f"{zz:+.2f}", f"{int(it.mean())}"]
            for a, t, m, s, zz, it in zip(ALPHAS_GAUSS, at, mean, se, z, iters)]
    rows.append(["published", "no numbers in the authors' repository for this prior", "", "", "", ""])
    (HERE / "table_1.md").write_text(markdown_table(
        ["alpha", "theory (ours)", f"GAMP d = {D} (ours)", "difference", "z", "mean iterations"], rows))
    data["fig1"] = {"alpha_grid": grid.tolist(), "theory_grid": theory.tolist(), "alphas": ALPHAS_GAUSS,
                    "gamp_mean": mean.tolist(), "gamp_se": se.tolist(), "theory": at.tolist(),
                    "gamp_runs": errs.tolist(), "iterations": iters.tolist(), "timing": timing}
    draw_figure_1(data)


def draw_figure_1(data):
    """Figure 1 from the stored results (``data``: ``results["data"]``)."""
    f = data["fig1"]
    fig, ax = plot.new_axes(width=6.0, height=4.2)
    plot.theory_curve(f["alpha_grid"], f["theory_grid"], "Bayes-optimal = GAMP (state evolution)", ax=ax, color="k")
    plot.experiment_points(f["alphas"], f["gamp_mean"], f["gamp_se"], ax=ax, color="C3",
                           label=f"GAMP, d = {data['d']}: mean ± s.e. over {data['seeds']} data sets")
    plot.finish(ax, r"$\alpha = n/d$", r"generalisation error $\arccos(\sqrt{q})/\pi$",
                title="Gaussian teacher, sign channel")
    fig.savefig(HERE / "fig_1.png", dpi=150)


def figure_2(fig_rec, data):
    pub = load_published(HERE, "rademacher_se.csv")
    thr = {r["quantity"]: (float(r["lower"]), float(r["upper"])) for r in load_published(HERE, "rademacher_thresholds.csv")}
    with timed(fig_rec):
        it, alg = glm.perfect_learning_thresholds("rademacher", "sign")
        ours_pub = np.array([low_branch(float(a)) for a in pub["alpha"]])
        timing = {"sample_s": 0.0, "gamp_s": 0.0}
        errs, iters = gamp_runs("rademacher", ALPHAS_BINARY, 12, timing)
        mean, se = mean_se(errs, axis=1)
        at = np.array([glm.state_evolution(a, "rademacher", "sign").algorithmic_error for a in ALPHAS_BINARY])


    low_pub = pub["alpha"] < thr["alpha_alg"][1]
    dq, df, dl = (ours_pub[:, 0] - pub["q"]), (ours_pub[:, 1] - pub["f_rs"]), (ours_pub[:, 2] - pub["label_mse"])
    below_it = pub["alpha"] < 1.3
    hard = np.array(ALPHAS_BINARY) < alg
    z = z_scores(mean[hard], se[hard], at[hard], 0 * at[hard])
    d_it = it - 0.5 * sum(thr["alpha_IT"])
    d_alg = alg - 0.5 * sum(thr["alpha_alg"])
    fig_rec["comparisons"] = [
        comparison("overlap q of the uninformed branch, alpha <= 1.3", "theory_vs_published", diffs=dq[below_it]),
        comparison("overlap q of the uninformed branch, 1.3 < alpha <= 1.492", "theory_vs_published", diffs=dq[~below_it]),
        comparison("free entropy f_RS of the uninformed branch", "theory_vs_published", diffs=df[low_pub]),
        comparison("label MSE 1 - E[y_hat^2] (the authors' 'generalization')", "theory_vs_published", diffs=dl),
        comparison("alpha_IT vs the midpoint of the authors' bracket [1.244, 1.245]", "theory_vs_published", diffs=[d_it]),
        comparison("alpha_alg vs the midpoint of the authors' bracket [1.492, 1.493]", "theory_vs_published", diffs=[d_alg]),
        comparison("GAMP runs vs state evolution from q = 0, alpha < alpha_alg", "runs_vs_theory", z=z),
        comparison("GAMP runs above alpha_alg (perfect learning, error 0)", "runs_vs_theory", diffs=mean[~hard]),
    ]
    rows = [["overlap q (uninformed branch)", f"{int(below_it.sum())} alphas in [0.05, 1.3]", fmt(np.abs(dq[below_it]).max()), "their SE stops at abs(q_t+1 - q_t) < 1e-6 with damping 0.5"],
            ["overlap q (uninformed branch)", f"{int((~below_it).sum())} alphas in (1.3, 1.492]", fmt(np.abs(dq[~below_it]).max()), "critical slowing down near alpha_alg: their q is under-converged"],
            ["free entropy f_RS", f"{int(low_pub.sum())} alphas", fmt(np.abs(df).max()), "their output has 6 decimals"],
            ["label MSE (their 'generalization')", f"{len(dl)} alphas", fmt(np.abs(dl).max()), "follows from q"],
            ["alpha_IT", f"ours {it:.5f}; theirs in [1.244, 1.245]", fmt(abs(d_it)), "inside their bracket" if thr["alpha_IT"][0] < it <= thr["alpha_IT"][1] else "OUTSIDE their bracket"],
            ["alpha_alg", f"ours {alg:.5f}; theirs in [1.492, 1.493]", fmt(abs(d_alg)), "inside their bracket" if thr["alpha_alg"][0] < alg <= thr["alpha_alg"][1] else "OUTSIDE their bracket"]]
    table = markdown_table(["theory vs the authors' state evolution", "points", "largest abs. difference", "note"], rows)
    rows2 = [[f"{a:g}", fmt(t), f"{m:.4f} ± {s:.4f}" if m > 1e-3 else f"{m:.1e} ± {s:.1e}", f"{m - t:+.4f}",
              f"{zz:+.2f}" if a < alg else "(perfect learning)", f"{int(n.mean())}"]
             for a, t, m, s, zz, n in zip(ALPHAS_BINARY, at, mean, se, np.concatenate([z, np.full((~hard).sum(), np.nan)]), iters)]
    rows2.append(["published", "the authors' repository holds no GAMP runs", "", "", "", ""])
    table += "\n" + markdown_table(["alpha", "state evolution from q = 0 (ours)", f"GAMP d = {D} (ours)", "difference",
                                    "z", "mean iterations"], rows2)
    (HERE / "table_2.md").write_text(table)
    last = glm.state_evolution(float(pub["alpha"][-1]), "rademacher", "sign")
    data["fig2"] = {"alpha_it": it, "alpha_alg": alg, "se_iterations_last": int(last.iterations), "published_alpha": pub["alpha"].tolist(),
                    "published_q": pub["q"].tolist(), "ours_q": ours_pub[:, 0].tolist(),
                    "published_f_rs": pub["f_rs"].tolist(), "ours_f_rs": ours_pub[:, 1].tolist(),
                    "published_label_mse": pub["label_mse"].tolist(), "ours_label_mse": ours_pub[:, 2].tolist(),
                    "alphas": ALPHAS_BINARY, "gamp_mean": mean.tolist(), "gamp_se": se.tolist(),
                    "theory": at.tolist(), "gamp_runs": errs.tolist(), "iterations": iters.tolist(), "timing": timing}
    draw_figure_2(data)


def draw_figure_2(data):
    """Figure 2 from the stored results (``data``: ``results["data"]``) and the published state evolution; the
    theory curves are recomputed (deterministic)."""
    f = data["fig2"]
    pub = load_published(HERE, "rademacher_se.csv")
    it, alg = f["alpha_it"], f["alpha_alg"]
    grid = np.round(np.arange(0.01, 2.0001, 0.01), 4)
    grid = np.sort(np.concatenate([grid, [it - 1e-4, it + 1e-4, alg - 1e-4, alg + 1e-4]]))
    low = np.array([low_branch(a) for a in grid])
    bayes = np.array([glm.bayes_gen_error(a, "rademacher", "sign") for a in grid])
    gamp_se = np.array([bayes_classification_error(min(q, 1.0)) for q in low[:, 0]])
    fig, (ax1, ax2) = plot.new_axes(ncols=2, width=5.2, height=5.2)
    below = grid < alg
    plot.theory_curve(grid[below], low[below, 1], "(a) uninformed branch (ours)", ax=ax1, color="C0")
    ax1.axhline(-np.log(2), color="C2", label=r"(a) informed branch $q = 1$")
    ax1.plot(pub["alpha"], pub["f_rs"], "x", color="k", markersize=5, label="authors' state evolution")
    ax1.set_xlim(0.9, 1.55), ax1.set_ylim(-0.8, -0.55)
    plot.theory_curve(grid, bayes, "Bayes-optimal (ours)", ax=ax2, color="k")
    plot.theory_curve(grid, gamp_se, "GAMP's state evolution (ours)", ax=ax2, color="C0", linestyle="--")
    ax2.plot(pub["alpha"], [bayes_classification_error(q) for q in pub["q"]], "x", color="k", markersize=5,
             label="authors' state evolution")
    plot.experiment_points(f["alphas"], f["gamp_mean"], f["gamp_se"], ax=ax2, color="C3",
                           label=f"GAMP, d = {data['d']} ({data['seeds']} data sets)")
    for ax in (ax1, ax2):
        plot.threshold_line(it, ax=ax)
        plot.threshold_line(alg, ax=ax, color="C3")
    ax1.text(it, -0.555, r"$\alpha_{\rm IT}$ ", va="top", ha="right")
    ax1.text(alg, -0.555, r"$\alpha_{\rm alg}$ ", va="top", ha="right")
    plot.finish(ax1, r"$\alpha$", r"free entropy $f_{\rm RS}$", title="(a) competing fixed points", legend=False)
    plot.finish(ax2, r"$\alpha$", "generalisation error", title="(b) binary teacher, sign channel", legend=False)
    handles = dict(zip(*reversed(ax1.get_legend_handles_labels())))  # one legend under both panels, off the data
    handles.update(zip(*reversed(ax2.get_legend_handles_labels())))
    fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncol=2)
    fig.savefig(HERE / "fig_2.png", dpi=150)


def profile(data):
    """One data set (binary teacher, alpha = 1.3) run with exact and with uniform variances: same error, time."""
    rng = np.random.default_rng(5)
    t0 = time.perf_counter()
    ds = glm.sample(D, 1.3, prior="rademacher", channel="sign", rng=rng)
    t_sample = time.perf_counter() - t0
    out = {"alpha": 1.3, "d": D, "sample_s": t_sample}
    for variance in ("exact", "uniform"):
        t0 = time.perf_counter()
        res = glm.gamp(ds, rng=np.random.default_rng(6), **{**GAMP, "variance": variance})
        out[variance] = {"error": res.error, "iterations": res.iterations, "wall_s": time.perf_counter() - t0}
    data["profile"] = out


def main():
    t0 = time.perf_counter()
    data = {"d": D, "seeds": SEEDS, "gamp": GAMP}
    figs = [{"id": "fig1", "file": "fig_1.png", "title": "Gaussian teacher: Bayes-optimal error and GAMP",
             "authors_time": authors_time(
                 "estimated, not run", "10-25 min: their Matlab GAMP demo runs 100 iterations of 4 dense products "
                 "with the n x N design at N = 5001, taken as 10-20 s per run at alpha = 1.5, for 50 runs (Matlab is "
                 "not installed here)")},
            {"id": "fig2", "file": "fig_2.png", "title": "binary teacher: free entropy, errors, alpha_IT and alpha_alg",
             "authors_time": authors_time(
                 "estimated, not run", "15-30 min for the 90 GAMP runs, per run as for the Gaussian teacher; their "
                 "Julia state evolution on 1591 alphas (adaptive quadrature) is not timed in their notebook and was "
                 "not run here")}]
    for fig, make in zip(figs, (figure_1, figure_2)):
        c0 = cpu_time()
        make(fig, data)
        fig["cpu_time_s"] = round(cpu_time() - c0, 2)  # this process and the workers
    profile(data)
    results = {
        "paper": "Barbier, Krzakala, Macris, Miolane, Zdeborova, Optimal errors and phase transitions in "
                 "high-dimensional generalized linear models, PNAS 116:5451 (2019)",
        "reference": "arXiv:1708.03395",
        "sizes": f"GAMP at d = {D}, n = alpha d, {SEEDS} independent data sets per alpha; state evolution on a "
                 "0.01 grid in alpha (Gaussian: 100 points in [0.05, 5])",
        "machine": machine(), "workers": workers(), "total_wall_time_s": round(time.perf_counter() - t0, 2),
        "cpu_time_s": round(cpu_time(), 2), "figures": figs, "data": data}
    write_results(HERE, results)
    write_page_numbers(ROOT / "reproductions" / "perceptron.md", numbers(results))


if __name__ == "__main__":
    main()
