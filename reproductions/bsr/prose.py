"""The numbers that ``reproductions/bsr.md`` quotes, formatted from ``results.json``.

``numbers(results)`` maps each ``{{ key }}`` of the page to its text, computed from the results alone;
``reproduce.py`` writes them into the page's front matter. ``LITERALS`` lists the numbers the page types by hand:
inputs of the runs (sizes, parameters, the authors' grids and budgets, thresholds chosen here), never a result.
Pure functions: importing this module runs nothing.
"""

from __future__ import annotations

import math

from _format import sci

from solvable.quote import lower_bound, upper_bound

LITERALS = {
    "0.05": "alpha, a value of the authors' GD grid",
    "0.1": "rho of Fig. 1, Delta of the noisy Fig. 1, the learning rate, an alpha of the GD grid",
    "0.15": "alpha, a value of the authors' GD grid",
    "0.2": "rho of the runs, an alpha of the GD grid",
    "0.3": "alpha, a value of the authors' GD grid (the step-by-step run), and a learning rate",
    "0.33": "alpha, a value of the authors' GD grid",
    "0.44": "alpha of the authors' lr_figure runs",
    "0.5": "a learning rate, and Delta of the noisy GD runs not reproduced",
    "0.011": "the distance from alpha_PR beyond which the theory table compares (a choice of this page)",
    "10": "the base of powers of ten; r = 10, the teacher's rank in the lr_figure runs",
    "16": "the authors' number of runs in lr_figure",
    "20": "d of the authors' minimum-nuclear-norm runs not reproduced",
    "50": "d = L = 50, the authors' size for the minimum nuclear norm and lr_figure",
    "64": "initialisations per data set of averaged GD (the authors' and ours)",
    "100": "d = L = 100, the authors' size for GAMP-RIE and GD; 100.0 is 100 // 1.0",
    "200": "a step of the lr_figure table (the authors' steps 0-200 are kept at every step)",
    "5000": "the checkpoint period of the fixed-budget run",
    "2025": "the year of the paper's publication",
}


def _num(x: float) -> str:
    """A number as the prose shows it: 3 significant figures from 1e-3 up, powers of ten below."""
    if x != 0 and abs(x) < 1e-3:
        return sci(x)
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.0f}"


def _z(x: float) -> str:
    return f"{x:+.1f}".replace("-", "−")


def _close(a, b):
    return abs(a - b) < 1e-9


def _pm(m: float, s: float) -> str:
    return f"{m:.3f} ± {s:.3f}"


def _list(values) -> str:
    values = list(values)
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]


def _alpha_pr(beta: float, rho: float) -> float:
    return rho * (1 + beta - rho) / beta


def theory_numbers(d: dict) -> dict:
    rows = list(
        zip(
            d["theory_alpha"],
            d["theory_beta"],
            d["theory_rho"],
            d["theory_delta"],
            d["theory_ours"],
            d["theory_published"],
        )
    )
    diff = [abs(o - p) for *_, o, p in rows]
    away = [abs(a - _alpha_pr(b, r)) > 0.011 for a, b, r, *_ in rows]
    top = sorted(range(len(rows)), key=lambda i: -diff[i])[:3]
    out = {
        "th_points": str(len(rows)),
        "th_away": sci(upper_bound(max(x for x, w in zip(diff, away) if w))),
        "th_ridge": sci(upper_bound(d["theory_ridge_max_diff"])),
    }
    for k, i in enumerate(top, 1):
        a, b, r, *_ = rows[i]
        out[f"th_top{k}"] = f"{sci(diff[i])} ($\\beta = {b:g}$, $\\rho = {r:g}$, $\\alpha = {a:g}$)"
    theirs = sorted(rows[i][5] for i in top)
    ours = max(rows[i][4] for i in top)
    out["th_their_top"] = f"{sci(theirs[0])} to {sci(theirs[-1])}"
    out["th_ours_top"] = "0 at every one of them" if ours == 0 else f"at most {sci(upper_bound(ours))}"
    return out


def gamp_numbers(d: dict) -> dict:
    a = d["gamp_alphas"]
    pr = _alpha_pr(1.0, 0.2)
    below = [x < pr for x in a]
    zth = [abs(z) for z, b in zip(d["gamp_z_theory"], below) if b]
    zpub = [abs(z) for z, b in zip(d["gamp_z_published"], below) if b]
    above_ours = max(m for m, b in zip(d["gamp_mean"], below) if not b)
    above_theirs = [t for t, b in zip(d["gamp_published"], below) if not b]
    i03 = next(i for i, x in enumerate(a) if _close(x, 0.3))
    cap = sum(it >= d["gamp_max_iter"] for it in d["gamp_iterations"][i03])
    small = [it for x, its in zip(a, d["gamp_iterations"]) if x <= 0.2 + 1e-9 for it in its]
    div = [(x, v) for x, v in zip(d["gamp_published_alphas"], d["gamp_published_all"]) if v > 2.0]
    return {
        "gamp_seeds": str(d["gamp_seeds"]),
        "gamp_n_alphas": str(len(a)),
        "gamp_damping": f"{d['gamp_damping']:g}",
        "gamp_max_iter": str(d["gamp_max_iter"]),
        "gamp_tol": sci(d["gamp_tol"]),
        "alpha_pr": f"{pr:.2f}",
        "gamp_zth_max": f"{max(zth):.1f}",
        "gamp_zpub_max": f"{max(zpub):.1f}",
        "gamp_ours_above": sci(upper_bound(above_ours)),
        "gamp_their_above": f"{sci(min(above_theirs))}-{sci(max(above_theirs))}",
        "gamp_cap_count": str(cap),
        "gamp_iter_range": f"{min(small)}-{max(small)}",
        "gamp_div_alphas": _list([f"{x:g}" for x, _ in div]),
        "gamp_div_errors": _list([sci(v, 1) if v > 100 else f"{v:.2g}" for _, v in div]),
    }


def mnne_numbers(d: dict) -> dict:
    z = [x for x in d["mn_z"] if x is not None]
    live = [i for i, x in enumerate(d["mn_z"]) if x is not None]
    within2 = sum(abs(x) <= 2 for x in z)
    worst = max(live, key=lambda i: abs(d["mn_z"][i]))
    dead = [i for i, x in enumerate(d["mn_z"]) if x is None]
    first_pr = next(i for i, x in enumerate(d["mn_alphas"]) if x >= _alpha_pr(1.0, 0.2))
    return {
        "mn_sets": str(d["mn_sets"]),
        "mn_their_sets": str(d["mn_published_sets"]),
        "mn_n_alphas": str(len(d["mn_alphas"])),
        "mn_tol": sci(d["mn_tol"], 1),
        "mn_threshold": f"{d['mn_threshold']:.3f}",
        "mn_n_live": str(len(live)),
        "mn_within2": str(within2),
        "mn_zmax": _z(d["mn_z"][worst]),
        "mn_zmax_alpha": f"{d['mn_alphas'][worst]:.3f}",
        "mn_dmax": f"{max(abs(d['mn_mean'][i] - d['mn_published_mean'][i]) for i in live):.3f}",
        "mn_dead_from": f"{min(d['mn_alphas'][i] for i in dead):.3f}" if dead else "none",
        "mn_dead_max": sci(max(max(d["mn_mean"][i], d["mn_published_mean"][i]) for i in dead))
        if dead
        else "none",
        "mn_pr_alpha": f"{d['mn_alphas'][first_pr]:.3f}",
        "mn_at_pr": _pm(d["mn_mean"][first_pr], d["mn_se"][first_pr]),
        "mn_at_pr_theirs": _pm(d["mn_published_mean"][first_pr], d["mn_published_se"][first_pr]),
    }


def gd_numbers(d: dict) -> dict:
    a = d["gd_alphas"]
    sm, ss, am, ase = d["gd_single_mean"], d["gd_single_se"], d["gd_avg_mean"], d["gd_avg_se"]
    tm, tse, tam, tase = (
        d["gd_single_published"],
        d["gd_single_published_se"],
        d["gd_avg_published"],
        d["gd_avg_published_se"],
    )
    th = d["gd_theory"]
    zs = [(o - t) / math.hypot(s, u) for o, s, t, u in zip(sm, ss, tm, tse)]
    za = [(o - t) / math.hypot(s, u) for o, s, t, u in zip(am, ase, tam, tase)]
    k = max(range(len(a)), key=lambda i: abs(am[i] - tam[i]))
    excess = [o - t for o, t in zip(am, th)]
    i02 = a.index(0.2)
    up = [i for i, x in enumerate(a) if x >= 0.1 - 1e-9]
    palpha, ptrain, ptest = (
        d["gd_published_alphas"],
        d["gd_published_train_all"],
        d["gd_single_published_all"],
    )
    pta = d["gd_published_train_alphas"]

    def at(xs, ys, x):
        return ys[min(range(len(xs)), key=lambda i: abs(xs[i] - x))]

    their_avg_02 = at(d["gd_avg_published_alphas"], d["gd_avg_published_all"], 0.2)
    return {
        "gd_avg_zmax": f"{max(map(abs, za)):.1f}",
        "gd_avg_dmax": f"{abs(am[k] - tam[k]):.3f}",
        "gd_avg_dmax_alpha": f"{a[k]:g}",
        "gd_avg_dmax_sets": str(d["gd_datasets"][k]),
        "gd_avg_excess_range": f"{min(excess):.2f}-{max(excess):.2f}",
        "gd_finite_k": f"{sum((s - m) / d['gd_inits'] for s, m in zip(sm, am)) / len(a):.3f}",
        "gd_avg_their_excess": f"{max(abs(t - h) for t, h in zip(tam, th)):.2f}",
        "gd_s005_ours": _pm(sm[0], ss[0]),
        "gd_s005_theirs": _pm(tm[0], tse[0]),
        "gd_s005_z": _z(zs[0]),
        "gd_s005_ratio_ours": f"{sm[0] / th[0]:.2f}",
        "gd_s005_ratio_theirs": f"{tm[0] / th[0]:.2f}",
        "gd_ratio_ours": _list([f"{sm[i] / th[i]:.1f}" for i in up]),
        "gd_ratio_theirs": _list([f"{tm[i] / th[i]:.1f}" for i in up]),
        "gd_single_ours": ", ".join(f"{sm[i]:.2f}" for i in up),
        "gd_single_theirs": ", ".join(f"{tm[i]:.2f}" for i in up),
        "gd_gap_02": f"{sm[i02] - tm[i02]:.2f}",
        "gd_z_02": f"{zs[i02]:.0f}",
        "gd_ratio_02": f"{sm[i02] / th[i02]:.2f}",
        "gd_spread_ours": f"{sm[i02] - am[i02]:.2f}",
        "gd_spread_theirs": f"{tm[i02]:.2f} − {their_avg_02:.2f} = {tm[i02] - their_avg_02:.2f}",
        "gd_their_train_max": sci(upper_bound(max(t for x, t in zip(pta, ptrain) if x <= 0.2 + 1e-9))),
        "gd_their_train_03": f"{at(pta, ptrain, 0.3):.3f}",
        "gd_their_train_033": f"{at(pta, ptrain, 0.33):.3f}",
        "gd_their_test_03": f"{at(palpha, ptest, 0.3):.2f}",
        "gd_their_test_033": f"{at(palpha, ptest, 0.33):.2f}",
        "gd_steps_02": str(max(d["gd_steps"][i02])),
        "gd_seconds_02": f"{d['gd_seconds_per_alpha'][i02] / d['gd_datasets'][i02]:.0f}",
    }


def probe_numbers(d: dict) -> dict:
    first = d["probe_first_step_train_below"]
    return {
        "probe_steps_taken": str(d["probe_steps_taken"]),
        "probe_train_1e2": str(first["1e-02"]),
        "probe_train_1e6": str(first["1e-06"]),
        "probe_test_start": f"{d['probe_test'][0]:.2f}",
        "probe_min": f"{d['probe_min_test']:.2f}",
        "probe_argmin": str(d["probe_argmin_test"]),
        "probe_train_at_min": f"{d['probe_train_at_min']:.2f}",
        "probe_final": f"{d['probe_final_test']:.2f}",
        "probe_final_ratio": f"{d['probe_final_test'] / d['probe_theory']:.1f}",
    }


def steps_numbers(d: dict) -> dict:
    marks = d["steps_steps"]
    early = [i for i, m in enumerate(marks) if m <= 200]
    return {
        "steps_runs": str(d["steps_runs"]),
        "steps_their_runs": str(d["steps_published_runs"]),
        "steps_median_ours": " / ".join(f"{d['steps_median_ours'][i]:.2f}" for i in early),
        "steps_median_theirs": " / ".join(f"{d['steps_median_theirs'][i]:.2f}" for i in early),
        "steps_zmax": f"{max(abs(z) for z in d['steps_z']):.1f}",
        "steps_last": f"step {marks[-1]}",
        "steps_recovered_ours": str(d["steps_recovered_ours"]),
        "steps_recovered_theirs": str(d["steps_recovered_theirs"]),
    }


def check_numbers(d: dict) -> dict:
    c = d["ck_at_checkpoints"]
    best = min(d["ck_variants"], key=lambda v: v["best_ratio"])
    i02 = d["gd_alphas"].index(0.2)
    best_z = (best["best_mean"] - d["gd_single_published"][i02]) / math.hypot(
        best["best_se"], d["gd_single_published_se"][i02]
    )
    checks = f"{min(c):.4f}" if f"{min(c):.4f}" == f"{max(c):.4f}" else f"{min(c):.4f} to {max(c):.4f}"
    return {
        "ck_inits": str(d["ck_inits"]),
        "ck_sets": str(d["ck_sets"]),
        "ck_checks": checks,
        "ck_ratio": f"{min(c) / d['ck_mmse']:.2f}",
        "ck_final_lowest": f"{lower_bound(min(v['final_ratio'] for v in d['ck_variants']), 3):g}",
        "ck_best_lowest": f"{best['best_ratio']:.2f}",
        "ck_best_what": best["what"],
        "ck_best_z": f"{abs(best_z):.1f}",
        "ck_their_ratio": f"{d['ck_published_ratio']:.2f}",
    }


def numbers(results: dict) -> dict:
    """Every number the page quotes, as text, from ``results`` (the content of ``results.json``)."""
    d = results["data"]
    out = {"machine": results["machine"]}
    for part in (
        theory_numbers,
        gamp_numbers,
        mnne_numbers,
        gd_numbers,
        probe_numbers,
        steps_numbers,
        check_numbers,
    ):
        out.update(part(d))
    return out
