"""Reproduce Maillard, Troiani, Martin, Krzakala, Zdeborova (NeurIPS 2024, arXiv:2408.03733) at the paper's sizes.

Run from the repository root: ``python reproductions/quadratic/reproduce.py``. Writes ``fig_*.png``,
``table_*.md`` and ``results.json`` next to this file (the page ``reproductions/quadratic.md`` shows them).

- fig_theory: the Bayes-optimal MMSE against the authors' published theory curves (``published/theory_*.csv``);
- fig_gamp: GAMP-RIE at the authors' sizes (d = 100, 200) against their AMP points (``published/amp_*.csv``);
- fig_gd: gradient descent (single runs and their average over initialisations) at d = 100 against the theory and
  the authors' GD runs (``published/gd_*.csv``, extracted from their .npy files), plus Adam at their script's rate;
- fig_sizes: beyond the paper, GAMP-RIE at d = 50 ... 400 (the authors' code stores an n x d x d tensor) and the
  time per iteration at each d; plus the before/after timing of the sped-up gradient descent.

The independent runs (one data set each, seeded from its own parameters by ``rng_for``) go to ``REPRO_JOBS`` worker
processes (``_common.run_jobs``; default -1, one per core; ``REPRO_JOBS=1`` runs them one after the other here), so
the numbers do not depend on the number of workers.

The authors' code is timed separately (``time_authors.py --repo PATH``, which writes ``authors_timing.json``, read
here); the numbers quoted in the page's prose are formatted by ``prose.py`` and written into the page's front matter.

Normalisation: the authors' files use ``S = W W^T/sqrt(m)`` (d x d, O(1) entries), labels ``Tr(X S)/d`` and the
error ``|S_hat sqrt(d) - S|_F^2/d^2``, i.e. exactly our paper normalisation ``S* = S/sqrt(d)``,
``(1/d)|S_hat - S*|_F^2`` with the same label-noise variance Delta (checked on the theory: fig_theory).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _common import (
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

from solvable import gd as sgd
from solvable import plotting, quadratic

sys.path.insert(0, str(HERE))
import prose  # this page's prose numbers

SEED = 240803733
T0 = time.perf_counter()
QUICK = (
    "--quick" in sys.argv
)  # development only: every GAMP d halved, GD at kappa = 0.5 only (outputs are full size)


def D(d):
    """The GAMP size d, or under --quick about half of it, even (kappa d is an integer at kappa = 0.5)."""
    return 2 * (d // 4) if QUICK else d


def rng_for(*tags):
    return np.random.default_rng([SEED, *[int(np.rint(1000 * t)) for t in tags]])


def fmt(x, p=4):
    return f"{x:.{p}f}" if abs(x) >= 10 ** (-p) or x == 0 else f"{x:.1e}"


GAMP_CAP = 100  # at most 100 iterations, as the authors' notebook (AMP_experiment(iterations=100))


def gamp_job(job):
    """One data set and GAMP-RIE on it: (error, wall seconds per iteration, CPU seconds per iteration)."""
    d, kappa, delta, a, s = job
    rng = rng_for(d, kappa, delta, a, s)
    data = quadratic.sample(d, a, kappa=kappa, delta=delta, rng=rng)
    t, c = time.perf_counter(), time.process_time()
    res = quadratic.gamp_rie(data, max_iter=GAMP_CAP, rng=rng, warn=False)  # DATA['gamp_settings']
    return res.error, (time.perf_counter() - t) / res.iterations, (time.process_time() - c) / res.iterations


def gamp_runs(sets):
    """GAMP-RIE on every ``(d, kappa, delta, alphas, n_data)`` of ``sets``, all runs at once on the workers: for
    each, the errors (n_alpha, n_data) and the time per iteration of every run (n_alpha, n_data, 2)."""
    jobs = [
        (d, kappa, delta, a, s)
        for d, kappa, delta, alphas, n_data in sets
        for a in alphas
        for s in range(n_data)
    ]
    out = iter(run_jobs(gamp_job, jobs))
    results = []
    for d, kappa, delta, alphas, n_data in sets:
        runs = [next(out) for _ in range(len(alphas) * n_data)]
        errs = np.array([r[0] for r in runs], dtype=float).reshape(len(alphas), n_data)
        per_iter = np.array([r[1:] for r in runs], dtype=float).reshape(len(alphas), n_data, 2)
        results.append((errs, per_iter))  # per_iter[..., 0] wall, [..., 1] CPU seconds per iteration
    return results


# the authors' code timed here by time_authors.py (their notebook's AMP and their theory script, one thread)
THEIRS = json.loads((HERE / "authors_timing.json").read_text())
THEIRS_HOW = (
    f"their code run here from a clone of {THEIRS['repository']} at {THEIRS['commit_used'][:7]} "
    f"(time_authors.py, {THEIRS['machine']}, 1-minute load average {THEIRS['load_average_1min_at_start']:.1f} "
    f"at its start)"
)
results = {
    "paper": "Maillard, Troiani, Martin, Krzakala, Zdeborova, 'Bayes-optimal learning of an extensive-width "
    "neural network from quadratically many samples', NeurIPS 2024",
    "reference": "arXiv:2408.03733",
    "machine": machine(),
    "figures": [],
    "data": {},
}
DATA = results["data"]
DATA["gamp_settings"] = {
    "tol": quadratic.GAMP_TOL,
    "max_iter": GAMP_CAP,
    "damping": 0.5,
    "strong_damping": quadratic.STRONG_DAMPING,
    "strong_below_fraction_of_alpha_pr": quadratic.STRONG_DAMPING_BELOW,
}

# ----------------------------------------------------------------------------------------------- figures
# Each figure is drawn from the results alone (``results["data"]``, as results.json stores it), the authors'
# published tables and theory curves recomputed here, so that it can be redrawn without rerunning the experiments.
PUB_SINGLE, PUB_AVG = "gd_single_d100_kappa0.5.csv", "gd_averaged_d100_kappa0.5_64inits.csv"


def draw_theory(data):
    fig, (ax, axd) = plotting.new_axes(ncols=2, width=5.2, height=4.2)
    for entry in data["theory"]:
        kappa, delta = entry["kappa"], entry["delta"]
        a_pub, v_pub, ours = (np.array(entry[k]) for k in ("alpha", "published", "ours"))
        grid = np.linspace(0.0, a_pub.max(), 121)
        label = rf"$\kappa={kappa}$, $\Delta={delta}$"
        line = plotting.theory_curve(
            grid, [quadratic.bayes_optimal_mmse(a, kappa, delta) for a in grid], label=label, ax=ax
        )
        ax.plot(a_pub[::2], v_pub[::2], "x", color=line.get_color(), markersize=6)
        axd.semilogy(
            a_pub, np.maximum(np.abs(ours - v_pub), 1e-9), "o-", color=line.get_color(), markersize=3, lw=1
        )
    ax.plot([], [], "x", color="0.3", label="authors' curves (every 2nd point kept)")
    plotting.finish(ax, r"$\alpha = n/d^2$", "MMSE", "Bayes-optimal error", legend=False)
    axd.axhline(1e-4, color="0.5", lw=0.8, ls="--")
    plotting.finish(axd, r"$\alpha$", "|ours - authors'|", "difference on the authors' alphas", legend=False)
    fig.legend(
        *ax.get_legend_handles_labels(), loc="outside lower center", ncol=2
    )  # one legend for both panels
    fig.savefig(HERE / "fig_theory.png", dpi=150)


def draw_gamp(data):
    """Three panels (kappa, Delta) in a 2 x 2 grid, the legend they share in the fourth cell."""
    fig, axes = plotting.new_axes(ncols=2, nrows=2, width=4.4, height=3.6)
    axes = axes.ravel()
    panel = {(0.5, 0.0): axes[0], (0.5, 0.25): axes[1], (1.0, 0.0): axes[2]}
    for g in data["gamp"]:
        d, kappa, delta = g["d"], g["kappa"], g["delta"]
        ax = panel[(kappa, delta)]
        theirs_d = 100 if d == D(100) else 200  # the authors' size (the file's), d itself but under --quick
        pub = load_published(HERE, f"amp_d{theirs_d}_kappa{kappa}_delta{delta:g}.csv")
        colour = "C0" if d == D(100) else "C3"
        plotting.experiment_points(
            g["alpha"],
            g["mean"],
            g["se"],
            label=f"ours, d = {d} ({g['n_data']} data sets)",
            ax=ax,
            color=colour,
        )
        plotting.experiment_points(
            pub["alpha"],
            pub["amp_mean"],
            pub["amp_std"],
            label=f"authors, d = {theirs_d}",
            ax=ax,
            color=colour,
            fmt="s",
            mfc="none",
            alpha=0.6,
        )
    for (kappa, delta), ax in panel.items():
        grid = np.linspace(0.0, 0.5, 101)
        plotting.theory_curve(
            grid,
            [quadratic.bayes_optimal_mmse(a, kappa, delta) for a in grid],
            color="k",
            lw=1.2,
            label="Bayes-optimal MMSE",
            ax=ax,
        )
        if delta == 0:
            plotting.threshold_line(quadratic.perfect_recovery_threshold(kappa), ax=ax)
        plotting.finish(
            ax,
            r"$\alpha$",
            r"$\frac{1}{d}\|\hat S-S^*\|_F^2$",
            rf"$\kappa={kappa}$, $\Delta={delta}$",
            legend=False,
        )
    axes[3].axis("off")
    axes[3].legend(*axes[0].get_legend_handles_labels(), loc="center")
    fig.savefig(HERE / "fig_gamp.png", dpi=150)


def draw_gd(data):
    fig, axes = plotting.new_axes(ncols=len(data["gd"]), width=5.2, height=5.0, squeeze=False)
    for ax, entry in zip(axes[0], data["gd"]):
        kappa, alphas = entry["kappa"], entry["alpha"]
        s_mean, s_se = mean_se(np.array(entry["single"]), axis=1)
        a_mean, a_se = mean_se(np.array(entry["averaged"]), axis=1)
        grid = np.linspace(0.0, 1.05 * max(alphas), 81)
        g_mmse = np.array([quadratic.bayes_optimal_mmse(a, kappa) for a in grid])
        plotting.theory_curve(grid, g_mmse, color="k", lw=1.2, label="Bayes-optimal MMSE", ax=ax)
        plotting.theory_curve(grid, 2 * g_mmse, color="k", lw=1.0, ls="--", label="2 MMSE", ax=ax)
        plotting.experiment_points(alphas, s_mean, s_se, label="single GD (ours)", ax=ax, color="C1")
        plotting.experiment_points(
            alphas, a_mean, a_se, label="averaged GD (ours)", ax=ax, color="C2", fmt="D"
        )
        if "published" in entry:
            ps, pa = load_published(HERE, PUB_SINGLE), load_published(HERE, PUB_AVG)
            show = ps["alpha"] <= 1.05 * max(alphas)
            # their spreads are numpy's std (ddof = 0) over their runs: s.e. = std / sqrt(runs - 1)
            ps_se, pa_se = ps["std_last"] / np.sqrt(ps["runs"] - 1), pa["std"] / np.sqrt(pa["data_sets"] - 1)
            plotting.experiment_points(
                ps["alpha"][show],
                ps["mean_last"][show],
                ps_se[show],
                ax=ax,
                color="C1",
                fmt="o",
                mfc="none",
                markersize=3,
                alpha=0.5,
                label="authors' single runs (Adam)",
            )
            show = pa["alpha"] <= 1.05 * max(alphas)
            plotting.experiment_points(
                pa["alpha"][show],
                pa["mean"][show],
                pa_se[show],
                ax=ax,
                color="C2",
                fmt="D",
                mfc="none",
                markersize=3,
                alpha=0.5,
                label="authors' averaged GD",
            )
            adam = entry["adam"]
            plotting.experiment_points(
                alphas,
                adam["mean_3000"],
                adam["se_3000"],
                ax=ax,
                color="C4",
                fmt="^",
                label=f"Adam, lr {adam['lr']} (ours)",
            )
        plotting.finish(
            ax,
            r"$\alpha$",
            r"$\frac{1}{d}\|\hat S-S^*\|_F^2$",
            rf"$\kappa={kappa}$, d = {entry['d']}, $\Delta=0$",
            legend=False,
        )
    # one legend under both panels: the first (kappa = 0.5) has every entry; K is in the caption
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncol=3)
    fig.savefig(HERE / "fig_gd.png", dpi=150, bbox_inches="tight")


def draw_sizes(data):
    sizes = data["sizes"]
    alphas, mmse = np.array(sizes["alpha"]), np.array(sizes["mmse"])
    dims = sorted(int(d) for d in sizes["runs"])
    fig, (ax, axe) = plotting.new_axes(ncols=2, width=5.2, height=4.6)
    grid = np.linspace(0.0, 0.4, 81)
    plotting.theory_curve(
        grid,
        [quadratic.bayes_optimal_mmse(a, 0.5) for a in grid],
        color="k",
        lw=1.2,
        label="Bayes-optimal MMSE",
        ax=ax,
    )
    excess = {}
    for k, d in enumerate(dims):
        run = sizes["runs"][str(d)]
        n_data = len(run["errors"][0])
        mean, se = np.array(run["mean"]), np.array([np.nan if x is None else x for x in run["se"]])
        excess[d] = (mean - mmse, se)
        plotting.experiment_points(
            alphas + 0.004 * (k - 1.5),
            mean,
            None if n_data == 1 else se,
            ax=ax,
            color=f"C{k}",
            label=f"d = {d} ({n_data} data set{'s' if n_data > 1 else ''})",
        )
    for i, a in enumerate(alphas):
        ex = np.array([excess[d][0][i] for d in dims])
        ee = np.array([excess[d][1][i] for d in dims])
        axe.errorbar(
            dims, ex, yerr=np.where(np.isnan(ee), 0, ee), fmt="o-", capsize=3, label=rf"$\alpha={a:g}$"
        )
    axe.set_xscale("log", base=2)
    axe.set_xticks(dims, [str(d) for d in dims])  # label the sizes run, not powers of two
    axe.minorticks_off()
    axe.axhline(0, color="k", lw=1)
    plotting.finish(
        ax, r"$\alpha$", r"$\frac{1}{d}\|\hat S-S^*\|_F^2$", r"GAMP-RIE, $\kappa=0.5$, $\Delta=0$"
    )
    plotting.finish(axe, "d", "GAMP-RIE error - MMSE", "finite-size excess")
    fig.savefig(HERE / "fig_sizes.png", dpi=150)


# ----------------------------------------------------------------------------------------------- 1. theory
fig1 = {
    "id": "theory",
    "file": "fig_theory.png",
    "title": "Bayes-optimal MMSE against the authors' theory curves",
    "authors_time": authors_time(
        "measured",
        f"{THEIRS['theory']['s_per_point']:.2f} s for one point of Theory_no_noise.theory "
        f"(alpha = {THEIRS['theory']['alpha']}, kappa = {THEIRS['theory']['kappa']}); {THEIRS_HOW}",
    ),
}
THEORY = [
    ("theory_noiseless_kappa0.1.csv", 0.1, 0.0),
    ("theory_noiseless_kappa0.5.csv", 0.5, 0.0),
    ("theory_noiseless_kappa1.0.csv", 1.0, 0.0),
    ("theory_delta0.25_kappa0.5.csv", 0.5, 0.25),
]
C0 = cpu_time()
with timed(fig1):
    rows, comps, DATA["theory"] = [], [], []
    for k, (name, kappa, delta) in enumerate(THEORY):
        pub = load_published(HERE, name)
        a_pub, v_pub = pub["alpha"], pub["mmse"]
        ours = np.array([quadratic.bayes_optimal_mmse(a, kappa, delta) for a in a_pub])
        # continuity check of our noiseless branch: the noisy equation at Delta = 1e-9 gives the same numbers
        tiny = np.array([quadratic.bayes_optimal_mmse(a, kappa, 1e-9) for a in a_pub]) if delta == 0 else ours
        diff = ours - v_pub
        i = int(np.argmax(np.abs(diff)))
        inner = np.abs(diff[(a_pub > 0.002) & (a_pub < a_pub.max())])
        rows.append(
            [
                f"kappa = {kappa}, Delta = {delta}",
                len(a_pub),
                f"{abs(diff[i]):.1e} (alpha = {a_pub[i]:.4f})",
                f"{np.median(np.abs(diff)):.1e}",
                f"{np.sum(inner > 1e-4)}",
                f"{np.max(np.abs(tiny - ours)[a_pub < a_pub.max()]):.1e}" if delta == 0 else "-",
            ]
        )
        comps.append(
            comparison(
                f"MMSE kappa={kappa} Delta={delta}: ours vs authors' curve (same alphas)",
                "theory_vs_published",
                diffs=diff,
            )
        )
        DATA["theory"].append(
            {
                "file": name,
                "kappa": kappa,
                "delta": delta,
                "alpha": a_pub.tolist(),
                "published": v_pub.tolist(),
                "ours": ours.tolist(),
                "ours_delta_1e-9": tiny.tolist(),
            }
        )
    draw_theory(DATA)
    fig1["comparisons"] = comps
    (HERE / "table_theory.md").write_text(
        markdown_table(
            [
                "curve",
                "points",
                "largest abs. difference (where)",
                "median abs. difference",
                "points off by > 1e-4",
                "ours, Delta = 0 vs Delta = 1e-9 (alpha < alpha_PR)",
            ],
            rows,
        )
    )
fig1["cpu_time_s"] = round(cpu_time() - C0, 2)
results["figures"].append(fig1)
print(f"theory: {fig1['wall_time_s']} s", flush=True)

# ----------------------------------------------------------------------------------------------- 2. GAMP-RIE
fig2 = {
    "id": "gamp",
    "file": "fig_gamp.png",
    "title": "GAMP-RIE at d = 100 and 200 against the authors' AMP runs",
}
A100 = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]
SETS = [  # (d, kappa, Delta, our alphas, data sets, published file)
    (D(100), 0.5, 0.0, A100, 3, "amp_d100_kappa0.5_delta0.csv"),
    (D(200), 0.5, 0.0, [0.1, 0.2, 0.3, 0.4], 2, "amp_d200_kappa0.5_delta0.csv"),
    (D(100), 0.5, 0.25, A100, 3, "amp_d100_kappa0.5_delta0.25.csv"),
    (D(200), 0.5, 0.25, [0.2, 0.4], 2, "amp_d200_kappa0.5_delta0.25.csv"),
    (D(100), 1.0, 0.0, A100, 3, "amp_d100_kappa1.0_delta0.csv"),
]
PER_ITER = {}  # d -> list of (alpha, seconds per iteration)
C0 = cpu_time()
with timed(fig2):
    rows, comps, DATA["gamp"] = [], [], []
    runs = gamp_runs([s[:5] for s in SETS])
    print(f"  gamp runs: {time.perf_counter() - T0:.0f} s", flush=True)
    for (d, kappa, delta, alphas, n_data, name), (errs, per_iter) in zip(SETS, runs):
        PER_ITER.setdefault(d, []).extend((a, t) for a, row in zip(alphas, per_iter) for t in row)
        mean, se = mean_se(errs, axis=1)
        theory = np.array([quadratic.bayes_optimal_mmse(a, kappa, delta) for a in alphas])
        pub = load_published(HERE, name)
        idx = [int(np.argmin(np.abs(pub["alpha"] - a))) for a in alphas]
        p_mean, p_std = pub["amp_mean"][idx], pub["amp_std"][idx]
        # their std is over their runs (np.std, ddof=0); with the notebook's default of 2 runs it equals the s.e.
        z_pub = z_scores(mean, se, p_mean, np.maximum(p_std, 1e-12))
        z_th = (mean - theory) / np.maximum(se, 1e-12)
        comps.append(
            comparison(
                f"GAMP-RIE d={d} kappa={kappa} Delta={delta}: ours vs authors' AMP",
                "runs_vs_published",
                diffs=mean - p_mean,
                z=z_pub,
            )
        )
        comps.append(
            comparison(
                f"GAMP-RIE d={d} kappa={kappa} Delta={delta}: ours vs Bayes-optimal MMSE",
                "runs_vs_theory",
                diffs=mean - theory,
            )
        )
        j = int(np.argmax(np.abs(z_pub)))
        rows.append(
            [
                f"d = {d}, kappa = {kappa}, Delta = {delta}",
                f"{len(alphas)} x {n_data}",
                f"{np.max(np.abs(mean - p_mean)):.4f}",
                f"{abs(z_pub[j]):.1f} (alpha = {alphas[j]})",
                f"{np.median(np.abs(z_pub)):.1f}",
                f"{np.max(np.abs(mean - theory)):.4f}",
                f"{np.max(np.abs(p_mean - theory)):.4f}",
            ]
        )
        DATA["gamp"].append(
            {
                "d": d,
                "kappa": kappa,
                "delta": delta,
                "alpha": list(alphas),
                "n_data": n_data,
                "errors": errs.tolist(),
                "mean": mean.tolist(),
                "se": se.tolist(),
                "theory": theory.tolist(),
                "published_mean": p_mean.tolist(),
                "published_std": p_std.tolist(),
                "z_published": z_pub.tolist(),
                "z_theory": z_th.tolist(),
            }
        )
    draw_gamp(DATA)
    fig2["comparisons"] = comps
    (HERE / "table_gamp.md").write_text(
        markdown_table(
            [
                "runs",
                "alphas x data sets",
                "largest abs. diff. ours - authors'",
                "largest abs. z (where)",
                "median abs. z",
                "largest abs. diff. ours - theory",
                "largest abs. diff. authors' - theory",
            ],
            rows,
        )
    )
amp_t = THEIRS["amp"]
fig2["authors_time"] = authors_time(
    "measured",
    f"{1e3 * amp_t['s_per_iteration']:.0f} ms per AMP iteration of their notebook AMP.ipynb at "
    f"d = {amp_t['d']}, alpha = {amp_t['alpha']}, kappa = {amp_t['kappa']} (mean of "
    f"{amp_t['iterations']} iterations; building its {amp_t['tensor_gb']:.2f} GB n x d x d tensor: "
    f"{amp_t['data_generation_s']:.1f} s); {THEIRS_HOW}. Their runs at d = 200 were not timed (tensor "
    f"{8 * 0.5 * 200**4 / 1e9:.0f} GB at alpha = 0.5)",
)
fig2["cpu_time_s"] = round(cpu_time() - C0, 2)
results["figures"].append(fig2)
print(f"gamp: {fig2['wall_time_s']} s", flush=True)

# ----------------------------------------------------------------------------------------------- 3. GD
fig3 = {
    "id": "gd",
    "file": "fig_gd.png",
    "title": "Gradient descent at d = 100: single runs and their average",
}
# kappa = 0.5 on the authors' own grid (their file names), so that their runs and ours are compared at the same alpha
GD_D, GD_DATA = 100, 2
GD_SETS = [(0.5, [0.0479167, 0.0966667, 0.150833, 0.199583], 64), (0.1, [0.03, 0.06, 0.08], 16)][
    : 1 if QUICK else 2
]  # (kappa, alphas, initialisations per data set)
ADAM_LR, ADAM_STEPS, ADAM_K = (
    0.01,
    3000,
    8,
)  # their committed GD_vanilla.py: torch Adam, lr 0.01 (3000 stored steps)


def gd_job(job):
    """One data set at d = GD_D and gradient descent from n_inits initialisations on it (and Adam from ADAM_K at
    kappa = 0.5): (mean single error, averaged error, most steps, Adam's mean error after 1000 and 3000 steps)."""
    kappa, a, s, n_inits = job
    data = quadratic.sample(GD_D, a, kappa=kappa, rng=rng_for(GD_D, kappa, a, s, 7))
    res = quadratic.gd(data, n_inits=n_inits, dtype=np.float32, rng=rng_for(GD_D, kappa, a, s, 8), warn=False)
    adam = (0.0, 0.0)
    if kappa == 0.5:  # Adam at a fixed budget, as the authors trained their single runs
        ad = quadratic.gd(
            data,
            optimiser="adam",
            lr=ADAM_LR,
            n_inits=ADAM_K,
            max_steps=ADAM_STEPS,
            tol=0.0,
            record_every=1000,
            dtype=np.float32,
            rng=rng_for(GD_D, kappa, a, s, 9),
            warn=False,
        )
        adam = ad.error_history[1].mean(), ad.error_history[-1].mean()
    return res.errors.mean(), res.average_error, int(res.iterations.max()), adam


C0 = cpu_time()
with timed(fig3):
    rows, comps, DATA["gd"] = [], [], []
    gd_out = iter(
        run_jobs(
            gd_job, [(kappa, a, s, k) for kappa, alphas, k in GD_SETS for a in alphas for s in range(GD_DATA)]
        )
    )
    print(f"  gd runs: {time.perf_counter() - T0:.0f} s", flush=True)
    for kappa, alphas, GD_K in GD_SETS:
        single, avg, steps = np.zeros((len(alphas), GD_DATA)), np.zeros((len(alphas), GD_DATA)), 0
        adam = np.zeros((len(alphas), GD_DATA, 2))  # mean over ADAM_K inits after 1000 and 3000 Adam steps
        for i, a in enumerate(alphas):
            for s in range(GD_DATA):
                single[i, s], avg[i, s], most, adam[i, s] = next(gd_out)
                steps = max(steps, most)
        mmse = np.array([quadratic.bayes_optimal_mmse(a, kappa) for a in alphas])
        s_mean, s_se = mean_se(single, axis=1)
        a_mean, a_se = mean_se(avg, axis=1)
        entry = {
            "kappa": kappa,
            "d": GD_D,
            "n_inits": GD_K,
            "n_data": GD_DATA,
            "alpha": alphas,
            "single": single.tolist(),
            "averaged": avg.tolist(),
            "mmse": mmse.tolist(),
            "max_steps_taken": steps,
        }
        comps.append(
            comparison(
                f"single GD kappa={kappa}: ours minus 2 MMSE", "runs_vs_theory", diffs=s_mean - 2 * mmse
            )
        )
        comps.append(
            comparison(
                f"averaged GD kappa={kappa}: ours minus MMSE (1 + 1/K)",
                "runs_vs_theory",
                diffs=a_mean - mmse * (1 + 1 / GD_K),
            )
        )
        if kappa == 0.5 and GD_D == 100:
            ps, pa = load_published(HERE, PUB_SINGLE), load_published(HERE, PUB_AVG)
            # their spreads are numpy's std (ddof = 0) over their runs: s.e. = std / sqrt(runs - 1)
            ps_se, pa_se = ps["std_last"] / np.sqrt(ps["runs"] - 1), pa["std"] / np.sqrt(pa["data_sets"] - 1)
            ad_mean, ad_se = mean_se(adam[:, :, 1], axis=1)
            i_s = [int(np.argmin(np.abs(ps["alpha"] - a))) for a in alphas]
            i_a = [int(np.argmin(np.abs(pa["alpha"] - a))) for a in alphas]
            assert np.allclose(ps["alpha"][i_s], alphas) and np.allclose(pa["alpha"][i_a], alphas)
            z_single = z_scores(s_mean, s_se, ps["mean_last"][i_s], ps_se[i_s])
            z_avg = z_scores(a_mean, a_se, pa["mean"][i_a], pa_se[i_a])
            comps.append(
                comparison(
                    "single GD kappa=0.5: ours (plain GD) vs authors' (Adam)",
                    "runs_vs_published",
                    diffs=s_mean - ps["mean_last"][i_s],
                    z=z_single,
                )
            )
            comps.append(
                comparison(
                    "averaged GD kappa=0.5: ours vs authors' (64 inits each)",
                    "runs_vs_published",
                    diffs=a_mean - pa["mean"][i_a],
                    z=z_avg,
                )
            )
            entry["published"] = {
                "single_file": PUB_SINGLE,
                "averaged_file": PUB_AVG,
                "single_mean": ps["mean_last"][i_s].tolist(),
                "single_se": ps_se[i_s].tolist(),
                "single_runs": ps["runs"][i_s].tolist(),
                "single_mean_step999": ps["mean_step999"][i_s].tolist(),
                "averaged_mean": pa["mean"][i_a].tolist(),
                "averaged_se": pa_se[i_a].tolist(),
                "z_single": z_single.tolist(),
                "z_averaged": z_avg.tolist(),
                # over their grid in this panel: does their single-run error rise between steps 999 and 2999?
                "rise_alpha": ps["alpha"][ps["alpha"] <= 1.05 * max(alphas)].tolist(),
                "rise_last_minus_step999": (ps["mean_last"] - ps["mean_step999"])[
                    ps["alpha"] <= 1.05 * max(alphas)
                ].tolist(),
            }
            entry["adam"] = {
                "lr": ADAM_LR,
                "steps": ADAM_STEPS,
                "n_inits": ADAM_K,
                "after_1000": adam[:, :, 0].tolist(),
                "after_3000": adam[:, :, 1].tolist(),
                "mean_3000": ad_mean.tolist(),
                "se_3000": ad_se.tolist(),
            }
        for i, a in enumerate(alphas):
            pub = entry.get("published")
            rows.append(
                [
                    f"kappa = {kappa}, alpha = {a:g}",
                    fmt(mmse[i]),
                    f"{fmt(s_mean[i])} +- {fmt(s_se[i])}",
                    f"{s_mean[i] / mmse[i]:.2f}",
                    f"{fmt(a_mean[i])} +- {fmt(a_se[i])}",
                    f"{a_mean[i] / mmse[i]:.2f}",
                    f"{fmt(pub['single_mean'][i])} +- {fmt(pub['single_se'][i])}" if pub else "-",
                    f"{fmt(pub['averaged_mean'][i])} +- {fmt(pub['averaged_se'][i])}" if pub else "-",
                    f"{fmt(entry['adam']['mean_3000'][i])} +- {fmt(entry['adam']['se_3000'][i])}"
                    if pub
                    else "-",
                ]
            )
        DATA["gd"].append(entry)
    draw_gd(DATA)
    fig3["comparisons"] = comps
    (HERE / "table_gd.md").write_text(
        markdown_table(
            [
                "point",
                "Bayes MMSE",
                "single GD (mean +- s.e.)",
                "single / MMSE",
                "averaged GD",
                "averaged / MMSE",
                "authors' single runs (Adam)",
                "authors' averaged GD (64 inits)",
                f"ours, Adam lr {ADAM_LR}",
            ],
            rows,
        )
    )
fig3["authors_time"] = authors_time(
    "not known",
    "their GD scripts need PyTorch, which is not installed here; not run "
    "(their runs: d = 100, 64 initialisations per data set, 2 data sets per point)",
)
fig3["cpu_time_s"] = round(cpu_time() - C0, 2)
results["figures"].append(fig3)
print(f"gd: {fig3['wall_time_s']} s", flush=True)

# ----------------------------------------------------------------------------------------------- 4. beyond
fig4 = {"id": "sizes", "file": "fig_sizes.png", "title": "Beyond the paper: GAMP-RIE at d = 50 ... 400"}
B_ALPHAS = [0.1, 0.2, 0.3]
B_DATA = {D(400): 1} if QUICK else {50: 6, 400: 1}  # --quick leaves d = 50 out (GAMP-RIE diverges at d = 24)
C0 = cpu_time()
with timed(fig4):
    by_d = {}
    for g in DATA["gamp"]:  # d = 100 and 200 reuse the runs of fig_gamp (same kappa, Delta, seeds)
        if g["kappa"] == 0.5 and g["delta"] == 0.0:
            idx = [g["alpha"].index(a) for a in B_ALPHAS]
            by_d[g["d"]] = np.array(g["errors"])[idx]
    for (d, n_data), (errs, per_iter) in zip(
        B_DATA.items(), gamp_runs([(d, 0.5, 0.0, B_ALPHAS, n) for d, n in B_DATA.items()])
    ):
        by_d[d] = errs
        PER_ITER.setdefault(d, []).extend((a, t) for a, row in zip(B_ALPHAS, per_iter) for t in row)
    print(f"  beyond: {time.perf_counter() - T0:.0f} s", flush=True)
    mmse = np.array([quadratic.bayes_optimal_mmse(a, 0.5) for a in B_ALPHAS])
    dims = sorted(by_d)
    rows, DATA["sizes"], excess = [], {"alpha": B_ALPHAS, "mmse": mmse.tolist(), "runs": {}}, {}
    for k, d in enumerate(dims):
        errs = by_d[d]
        mean, se = (
            mean_se(errs, axis=1) if errs.shape[1] > 1 else (errs[:, 0], np.full(len(B_ALPHAS), np.nan))
        )
        DATA["sizes"]["runs"][str(d)] = {
            "errors": errs.tolist(),
            "mean": mean.tolist(),
            "se": [None if math.isnan(x) else x for x in se],
        }
        excess[d] = (mean - mmse, se)
    draw_sizes(DATA)
    comps = []
    for d in dims:
        mean = np.array(DATA["sizes"]["runs"][str(d)]["mean"])
        comps.append(
            comparison(
                f"GAMP-RIE d={d} kappa=0.5 Delta=0 alpha in {B_ALPHAS}: ours vs MMSE",
                "runs_vs_theory",
                diffs=mean - mmse,
            )
        )
        t = np.array([tt for a, tt in PER_ITER[d] if abs(a - 0.3) < 1e-9])  # (runs, 2): wall, CPU
        n3 = round(0.3 * d * d)
        rows.append(
            [
                d,
                by_d[d].shape[1],
                " / ".join(fmt(m, 3) for m in excess[d][0]),
                f"{1e3 * t[:, 1].mean():.3g} ms ({1e3 * t[:, 0].mean():.3g} ms)",
                f"{1e3 * THEIRS['amp']['s_per_iteration']:.0f} ms (their notebook, measured, wall)"
                if d == D(100)
                else "-",
                f"{8 * n3 * d * d / 1e9:.2g} GB",
                f"{8 * n3 * d / 1e6:.2g} MB",
            ]
        )
        DATA["sizes"]["runs"][str(d)]["ms_per_iteration_alpha0.3"] = {
            "cpu": 1e3 * float(t[:, 1].mean()),
            "wall": 1e3 * float(t[:, 0].mean()),
        }
        DATA["sizes"]["runs"][str(d)]["tensor_gb_alpha0.3"] = 8 * n3 * d * d / 1e9  # their float64 n x d x d
        DATA["sizes"]["runs"][str(d)]["inputs_mb_alpha0.3"] = 8 * n3 * d / 1e6  # our float64 n x d inputs
    fig4["comparisons"] = comps
    (HERE / "table_sizes.md").write_text(
        markdown_table(
            [
                "d",
                "data sets",
                "excess over MMSE at alpha = 0.1 / 0.2 / 0.3",
                "CPU time per iteration here, alpha = 0.3 (wall, shared machine)",
                "authors' code",
                "their n x d x d tensor (alpha = 0.3)",
                "our inputs X (alpha = 0.3)",
            ],
            rows,
        )
    )
fig4["authors_time"] = authors_time(
    "estimated, not run",
    f"their notebook's n x d x d float64 tensor would need {8 * round(0.3 * 400**2) * 400**2 / 1e9:.0f} GB "
    f"at d = 400 (alpha = 0.3; 8 n d^2 bytes), more than this machine has; at d = 100 their AMP "
    f"took {1e3 * THEIRS['amp']['s_per_iteration']:.0f} ms per iteration (measured)",
)
fig4["cpu_time_s"] = round(cpu_time() - C0, 2)
results["figures"].append(fig4)
print(f"sizes: {fig4['wall_time_s']} s", flush=True)

# ----------------------------------------------------------------------------------------------- 5. speed-up
# Gradient descent computed through the d x d matrix (the library before this page: QuadraticSensingMap with
# SymmetricSquare, 4 n d^2 flops per run and step) against the loss on the weights (quadratic.gd now, 4 n m d).
data = quadratic.sample(100, 0.2, kappa=0.5, rng=rng_for(100, 0.5, 0.2, 99))
W = rng_for(1).standard_normal((64, data.m, 100))
old = sgd.SquareLoss(quadratic.QuadraticSensingMap(data.X), sgd.SymmetricSquare(data.m, 100), data.y)
new = quadratic._FactorisedSquareLoss(np.ascontiguousarray(data.X), data.y, data.m)
timing = {}
for label, obj in (("through S (before)", old), ("on the weights (after)", new)):
    best = math.inf
    for _ in range(3):  # CPU time of one thread: robust to the other jobs sharing the machine
        t = time.process_time()
        loss, (grad,) = obj.loss_and_gradient((W,))
        best = min(best, time.process_time() - t)
    timing[label] = (best, loss, grad)
(b, lb, gb), (a, la, ga) = timing.values()
DATA["speedup"] = {
    "what": "one gradient-descent step, d = 100, kappa = 0.5, alpha = 0.2 (n = 2000), 64 inits, float64",
    "before_s": b,
    "after_s": a,
    "speedup": b / a,
    "max_rel_diff_loss": float(np.max(np.abs(la - lb) / lb)),
    "max_abs_diff_grad": float(np.max(np.abs(ga - gb))),
}
(HERE / "table_speedup.md").write_text(
    markdown_table(
        [
            "CPU time of one GD step (d = 100, kappa = 0.5, alpha = 0.2, 64 inits)",
            "through S",
            "on the weights",
            "speed-up",
            "largest difference",
        ],
        [
            [
                "one thread",
                f"{1e3 * b:.0f} ms",
                f"{1e3 * a:.0f} ms",
                f"{b / a:.1f}x",
                (
                    f"loss {DATA['speedup']['max_rel_diff_loss']:.0e} (relative), gradient "
                    f"{DATA['speedup']['max_abs_diff_grad']:.0e}"
                ),
            ]
        ],
    )
)

DATA["authors_timing"] = THEIRS
results["total_wall_time_s"] = round(time.perf_counter() - T0, 1)
results["cpu_time_s"] = round(cpu_time(), 1)  # this process and the workers
results["workers"] = workers()
(HERE / "table_timing.md").write_text(
    markdown_table(
        ["figure", "wall time here", "CPU time here", "the authors' code"],
        [
            [
                f["title"],
                f"{f['wall_time_s']:.0f} s",
                f"{f['cpu_time_s']:.0f} s",
                f"**{f['authors_time']['kind']}**: {f['authors_time']['how']}",
            ]
            for f in results["figures"]
        ]
        + [
            [
                "**whole page** (with the speed-up timing)",
                f"**{results['total_wall_time_s'] / 60:.1f} min**",
                f"**{results['cpu_time_s'] / 60:.1f} min**",
                "",
            ]
        ],
    )
)
results["sizes"] = (
    "theory on the authors' grids; GAMP-RIE d = 100 (3 data sets, 9 alphas per curve) and d = 200 "
    "(2 data sets, 4 + 2 alphas); GD d = 100, 2 data sets, 64 inits at 4 alphas (kappa = 0.5, plus "
    "Adam with 8 inits) and 16 inits at 3 alphas (kappa = 0.1); beyond: d = 50 (6 data "
    "sets), 100, 200 (reused), 400 (1 data set) at alpha = 0.1, 0.2, 0.3"
)
write_results(HERE, results)
print(f"total {results['total_wall_time_s']} s wall, {results['cpu_time_s']} s CPU", flush=True)
if not QUICK:
    write_page_numbers(HERE.parent / "quadratic.md", prose.numbers(results))
