"""The numbers quoted in the prose of ``reproductions/quadratic.md``, formatted from ``results.json`` only.

``numbers(results)`` returns ``{key: text}``; ``reproduce.py`` writes them into the page's front matter and the prose
says ``{{ key }}``. ``LITERALS`` lists the numbers the prose may type: inputs of the run, never results.
"""

from __future__ import annotations

from _format import sci

from solvable.quote import upper_bound

LITERALS = {
    "0.1": "kappa and alpha values of the runs (inputs)",
    "0.5": "kappa = 0.5, the damping 1/2 (inputs)",
    "0.25": "Delta = 0.25 (input)",
    "0.2": "alpha = 0.2 (input)",
    "0.3": "alpha = 0.3 (input)",
    "0.001": "the authors' first theory alpha (their grid, an input)",
    "0.01": "Adam learning rate of the authors' committed script (input)",
    "0.7": "constant of our GD step min(0.7/(alpha d), 0.15) (input)",
    "0.15": "cap of our GD step (input)",
    "0.03": "alpha of a GD point (input)",
    "0.06": "alpha of a GD point (input)",
    "0.08": "alpha of a GD point (input)",
    "0.095": "alpha_PR at kappa = 0.1, kappa - kappa^2/2 (a formula of the input)",
    "0.0479": "alpha of the authors' GD grid (file name), where we ran",
    "0.1996": "alpha of the authors' GD grid (file name), where we ran",
    "10": "base of the powers of ten of the inputs (tolerances 10^-5, 10^-6, 10^-10, Delta = 10^-9, line at 10^-4)",
    "16": "initialisations at kappa = 0.1 (input)",
    "18": "alphas of the authors' AMP files (their grid)",
    "20,000": "our GD step cap (input)",
    "30": "size of the stored small case, d = 30, and its 30 GAMP iterations (inputs)",
    "32": "runs per alpha in the authors' single-run files (their array's shape)",
    "50": "d = 50 (input)",
    "64": "initialisations per data set (the authors' and ours at kappa = 0.5; input)",
    "100": "d = 100 (input), iteration cap 100 (input)",
    "128": "points of the authors' theory grid (their input)",
    "200": "d = 200 (input)",
    "400": "d = 400 (input)",
    "999": "index of a stored step in the authors' files",
    "1000": "steps of the authors' committed GD scripts (their input)",
    "3000": "steps stored in the authors' files and of our Adam run (inputs)",
    "2024": "year of the paper",
}


def _f(x: float, p: int = 3) -> str:
    return f"{x:.{p}f}"


def _se(se: float) -> str:
    """A standard error: three decimals, or one significant digit below 0.001."""
    return f"{se:.3f}" if se >= 0.001 else f"{se:.1g}"


def _pm(x: float, se: float, p: int = 3) -> str:
    return f"{x:.{p}f} $\\pm$ {_se(se)}"


def _range(values, p: int = 2, sep: str = "-") -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.{p}f}" if f"{lo:.{p}f}" == f"{hi:.{p}f}" else f"{lo:.{p}f}{sep}{hi:.{p}f}"


def numbers(results: dict) -> dict:
    data = results["data"]
    out = {}

    # ---------------------------------------------------------------- theory
    th = data["theory"]
    smooth = [t for t in th if t["kappa"] != 0.1]
    diffs = {id(t): [o - p for o, p in zip(t["ours"], t["published"])] for t in th}
    out["theory_points_range"] = _range([len(t["alpha"]) for t in th], p=0)
    out["theory_first_max"] = sci(max(abs(diffs[id(t)][0]) for t in smooth))
    out["theory_rest_max"] = sci(max(abs(x) for t in smooth for x in diffs[id(t)][1:]))
    noiseless = [t for t in th if t["delta"] == 0]

    def tiny(t):
        amax = max(t["alpha"])
        return max(abs(a - b) for a, b, al in zip(t["ours_delta_1e-9"], t["ours"], t["alpha"]) if al < amax)

    out["theory_tiny_max"] = sci(max(tiny(t) for t in noiseless))
    k01 = next(t for t in th if t["kappa"] == 0.1)
    d01 = diffs[id(k01)]
    order = sorted(range(len(d01)), key=lambda i: -abs(d01[i]))
    out["k01_n_points"] = str(len(d01))
    out["k01_n_off"] = str(sum(abs(x) > 1e-4 for x in d01))
    out["k01_n_off_below"] = str(sum(x > 1e-4 for x in d01))  # theirs below ours
    for r, i in enumerate(order[:3], start=1):
        out[f"k01_top{r}"] = sci(abs(d01[i]))
        out[f"k01_top{r}_alpha"] = _f(k01["alpha"][i], 4)
    srt = sorted(abs(x) for x in d01)
    n = len(srt)
    out["k01_median"] = sci(srt[n // 2] if n % 2 else 0.5 * (srt[n // 2 - 1] + srt[n // 2]))
    out["k01_tiny"] = sci(tiny(k01))
    script = data["authors_timing"]["theory_kappa0.1"]
    i = order[0]
    j = min(range(len(script["alpha"])), key=lambda k: abs(script["alpha"][k] - k01["alpha"][i]))
    out["k01_script_top1"] = _f(script["mmse"][j], 4)
    out["k01_ours_top1"] = _f(k01["ours"][i], 4)
    out["k01_pub_top1"] = _f(k01["published"][i], 4)
    below = [k for k, a in enumerate(k01["alpha"]) if a < max(k01["alpha"])]
    out["k01_script_max"] = sci(max(abs(script["mmse"][k] - k01["ours"][k]) for k in below))

    # ---------------------------------------------------------------- GAMP-RIE
    gs = data["gamp_settings"]
    out["gamp_tol"] = sci(gs["tol"], 1)
    out["gamp_max_iter"] = str(gs["max_iter"])
    out["gamp_strong_damping"] = f"{gs['strong_damping']:g}"
    out["gamp_strong_below"] = f"{gs['strong_below_fraction_of_alpha_pr']:g}"
    gamp = data["gamp"]

    def above(g, a):  # noiseless at or above alpha_PR: the residual error measures the stopping rule
        a_pr = g["kappa"] - g["kappa"] ** 2 / 2 if g["kappa"] < 1 else 0.5
        return g["delta"] == 0 and a >= a_pr - 1e-12

    zs = [abs(z) for g in gamp for a, z in zip(g["alpha"], g["z_published"]) if not above(g, a)]
    out["gamp_max_z"] = f"{max(zs):.1f}"
    out["gamp_n_points"] = str(len(zs))
    top = [(m, p) for g in gamp for a, m, p in zip(g["alpha"], g["mean"], g["published_mean"]) if above(g, a)]
    out["gamp_n_above"] = str(len(top))
    out["gamp_ours_above_max"] = sci(max(m for m, _ in top)) if max(m for m, _ in top) > 0 else "0"
    out["gamp_theirs_above_range"] = sci(min(p for _, p in top)) + " to " + sci(max(p for _, p in top))
    g100 = next(g for g in gamp if g["d"] == 100 and g["kappa"] == 0.5 and g["delta"] == 0)
    out["gamp_ours_excess"] = _f(max(m - t for m, t in zip(g100["mean"], g100["theory"])))
    out["gamp_theirs_excess"] = _f(max(m - t for m, t in zip(g100["published_mean"], g100["theory"])))

    # ---------------------------------------------------------------- gradient descent
    gd = {g["kappa"]: g for g in data["gd"]}
    g5 = gd[0.5]

    def mean(rows):
        return [sum(r) / len(r) for r in rows]

    s5, a5, m5 = mean(g5["single"]), mean(g5["averaged"]), g5["mmse"]
    ratio_s5 = [s / m for s, m in zip(s5, m5)]
    ratio_a5 = [a / m for a, m in zip(a5, m5)]
    out["gd5_single_ratio_small"] = _range(ratio_s5[:2], p=1)
    out["gd5_single_ratio_last"] = f"{ratio_s5[-1]:.1f}"
    out["gd5_avg_ratio"] = _range(ratio_a5, p=2)
    pub = g5["published"]
    out["gd5_n_alphas"] = str(len(s5))
    out["gd_theirs_single"] = " / ".join(_f(x, 2) for x in pub["single_mean"])
    out["gd_ours_single"] = " / ".join(_f(x, 2) for x in s5)
    out["gd_theirs_avg"] = " / ".join(_f(x, 2) for x in pub["averaged_mean"])
    out["gd_ours_avg"] = " / ".join(_f(x, 2) for x in a5)
    out["gd_ours_adam"] = " / ".join(_f(x, 2) for x in g5["adam"]["mean_3000"])
    za = [abs(z) for z in pub["z_averaged"]]
    k = max(range(len(za)), key=lambda i: za[i])
    out["gd_avg_n_agree"] = str(sum(z < 2 for z in za))
    out["gd_avg_max_diff"] = _f(max(abs(p - a) for p, a in zip(pub["averaged_mean"], a5)), 3)
    out["gd_avg_max_z"] = f"{za[k]:.1f}"
    out["gd_avg_max_z_alpha"] = f"{g5['alpha'][k]:.4f}"
    out["gd_avg_max_z_their_se"] = _f(pub["averaged_se"][k], 3)
    out["gd_single_z"] = " / ".join(f"{z:.1f}" for z in pub["z_single"])
    out["gd_single_gap_first"] = _f(pub["single_mean"][0] - s5[0], 2)
    out["gd_n_theirs_above"] = str(sum(p > s for p, s in zip(pub["single_mean"], s5)))
    rise = pub["rise_last_minus_step999"]
    out["gd_n_rise"] = str(sum(r > 0 for r in rise))
    out["gd_n_rise_total"] = str(len(rise))
    k_rise = max(range(len(rise)), key=rise.__getitem__)
    out["gd_max_rise"] = f"{upper_bound(rise[k_rise]):g}"
    out["gd_max_rise_alpha"] = f"{pub['rise_alpha'][k_rise]:g}"
    k_first = min(range(len(rise)), key=lambda i: abs(pub["rise_alpha"][i] - g5["alpha"][0]))
    out["gd_rise_first"] = _f(rise[k_first], 2)
    out["gd_step999_first"] = _f(pub["single_mean_step999"][0], 2)
    out["gd_last_first"] = _f(pub["single_mean"][0], 2)
    out["gd_step999_list"] = " / ".join(_f(x, 2) for x in pub["single_mean_step999"])
    adam = g5["adam"]
    a1000 = mean(adam["after_1000"])
    a3000 = mean(adam["after_3000"])
    change = max(abs(b - a) for a, b in zip(a1000, a3000))
    out["gd_adam_change"] = sci(change) if change > 0 else "0"
    g1 = gd[0.1]
    s1, a1, m1 = mean(g1["single"]), mean(g1["averaged"]), g1["mmse"]
    out["gd1_single"] = _range(s1[1:], p=1)
    out["gd1_single_ratio"] = _range([s / m for s, m in zip(s1[1:], m1[1:])], p=1)
    out["gd1_avg_ratio"] = _range([a / m for a, m in zip(a1[1:], m1[1:])], p=1)
    out["gd1_max_steps"] = f"{g1['max_steps_taken']:,}"

    # ---------------------------------------------------------------- beyond the paper
    sz = data["sizes"]
    runs, mm = sz["runs"], sz["mmse"]
    ia = {a: k for k, a in enumerate(sz["alpha"])}

    def excess(d, a, with_se=True):
        r = runs[str(d)]
        k = ia[a]
        x = r["mean"][k] - mm[k]
        return _pm(x, r["se"][k]) if with_se and r["se"][k] is not None else _f(x)

    for d in (50, 100, 200):
        out[f"ex03_d{d}"] = excess(d, 0.3)
    for d in (100, 200):
        out[f"ex01_d{d}"] = excess(d, 0.1)
        out[f"sets_d{d}"] = str(len(runs[str(d)]["errors"][ia[0.1]]))
    out["ex03_d400"] = excess(400, 0.3, False)
    out["ex01_d400"] = excess(400, 0.1, False)
    out["ex02_list"] = " / ".join(excess(d, 0.2, False) for d in (50, 100, 200, 400))
    ses = [x for x in runs["200"]["se"] if x is not None]
    out["d200_se_range"] = f"{_se(min(ses))}-{_se(max(ses))}"
    for d in (100, 200):
        g = next(g for g in gamp if g["d"] == d and g["kappa"] == 0.5 and g["delta"] == 0)
        k = g["alpha"].index(0.1)
        out[f"theirs_ex01_d{d}"] = _f(g["published_mean"][k] - g["theory"][k])
    for d in (100, 200, 400):
        out[f"tensor_gb_d{d}"] = f"{runs[str(d)]['tensor_gb_alpha0.3']:.2g} GB"
    out["inputs_mb_d400"] = f"{runs['400']['inputs_mb_alpha0.3']:.0f} MB"

    # ---------------------------------------------------------------- time
    for d in (100, 200, 400):
        t = runs[str(d)]["ms_per_iteration_alpha0.3"]
        out[f"iter_cpu_d{d}"] = f"{t['cpu']:.3g} ms"
    out["iter_wall_d100"] = f"{runs['100']['ms_per_iteration_alpha0.3']['wall']:.3g} ms"
    amp = data["authors_timing"]["amp"]
    out["theirs_iter_ms"] = f"{1e3 * amp['s_per_iteration']:.0f} ms"
    out["theirs_tensor_s"] = f"{amp['data_generation_s']:.1f} s"
    out["theirs_theory_s"] = f"{data['authors_timing']['theory']['s_per_point']:.2f} s"
    out["theirs_iterations"] = str(amp["iterations"])
    out["total_min"] = f"{results['total_wall_time_s'] / 60:.1f} min"
    sp = data["speedup"]
    out["speed_before"] = f"{1e3 * sp['before_s']:.0f} ms"
    out["speed_after"] = f"{1e3 * sp['after_s']:.0f} ms"
    out["speedup"] = f"{sp['speedup']:.1f}x"
    gd_fig = next(f for f in results["figures"] if f["id"] == "gd")
    out["gd_cpu_s"] = f"{gd_fig['cpu_time_s']:.0f} s"
    return out
