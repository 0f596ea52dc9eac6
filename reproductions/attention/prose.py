"""The numbers that ``reproductions/attention.md`` quotes, formatted from its ``results.json`` (nothing else).

``numbers(results)`` returns ``{key: text}``; ``reproduce.py`` writes them into the page's front matter and the prose
says ``{{ key }}``. ``LITERALS`` lists the numbers the prose may type: inputs of the run (sizes, the authors' grid
values and parameters, constants of an equation), never a result. Pure functions: importable without running.
"""

from __future__ import annotations

import math

from solvable.quote import lower_bound, upper_bound

LITERALS = {
    "0.5": "rho, an input",
    "2.0": "rho of the second softmax curve",
    "100": "d of the hardmax runs; the authors' softmax iteration cap",
    "150": "d of the softmax runs (theirs)",
    "200": "d of the Adam runs (theirs)",
    "16": "the authors' runs per point (hardmax AMP, GD)",
    "20": "the authors' runs per point (softmax AMP)",
    "32": "alphas of their grids; students averaged",
    "28": "alphas of their softmax AMP files",
    "256": "alphas of their softmax SE grid",
    "35": "rows kept of their softmax SE",
    "33": "rows kept of their hardmax SE",
    "11": "softmax alphas run",
    "25,000": "their hardmax SE Monte-Carlo draws",
    "100,000": "our hardmax SE Monte-Carlo draws",
    "500,000": "draws of the score-ratio Monte Carlo",
    "500": "iteration cap of the authors' AMP_hardmax.py and of our longer softmax runs",
    "400": "iterations between the caps of 100 and 500",
    "1000": "Adam steps; the library's GAMP-RIE cap",
    "0.1": "Adam learning rate",
    "1e-4": "the tolerance of their quad integral and of the inner alpha range",
    "1e-5": "their first alpha; their SE tolerance",
    "0.9": "the inner alpha range's upper end, times alpha_PR",
    "0.1875": "alpha_PR at rho = 0.5, T = 2 (theirs)",
    "0.25": "alpha_PR at rho = 2",
    "0.056": "their T = 2 AMP alpha",
    "0.081": "their T = 2 AMP alpha",
    "0.102": "their T = 2 AMP alpha",
    "0.130": "their T = 2 AMP alpha",
    "0.165": "their T = 2 AMP alpha",
    "0.02": "their alpha",
    "0.03": "their alpha",
    "0.04": "their alpha",
    "0.05": "their alpha",
    "0.07": "their alpha",
    "0.218": "their hardmax AMP alpha",
    "0.536": "their hardmax AMP alpha",
    "1.10": "their hardmax AMP alpha",
    "2.27": "their hardmax AMP alpha",
    "0.0071": "their GD alpha (row 10)",
    "0.103": "their GD alpha (row 25)",
    "0.3": "an overlap q of the score ratio; the end of their GD grid",
    "0.8": "an overlap q",
    "1.2": "an overlap q",
    "1.4": "an overlap q",
    "0.0012": "the start of their GD grid",
    "10": "data sets per softmax alpha; the end of their hardmax grid",
    "2025": "year of the paper",
    "1.5": "Q0 = 1 + rho",
    "529536f": "their commit",
}


def _f(x, digits=3):
    """``x`` with ``digits`` significant digits, plain notation."""
    if x == 0:
        return "0"
    places = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{places}f}"


def _pm(mean, se):
    """``mean ± se``, the standard error to 2 significant digits (1 when it starts with 2 or more) and the mean to
    the same decimal place."""
    if se <= 0:
        return _f(mean, 4)
    lead = math.floor(math.log10(se))
    places = max(0, -lead + (1 if se / 10**lead < 2 else 0))
    return f"{mean:.{places}f} ± {se:.{places}f}"


def _z(mean, se, ref, ref_se=0.0):
    return (mean - ref) / math.hypot(se, ref_se)


def _join(items):
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def _fig(results, fid):
    return next(f for f in results["figures"] if f["id"] == fid)


def amp_rows(results):
    """One row per softmax alpha: T, alpha, ours after the short cap and the long one, theirs, the theory, z's."""
    out = []
    for T in (2, 3, 4):
        a = results["data"][f"amp_T{T}"]
        for i, al in enumerate(a["alpha"]):
            row = {
                "T": T,
                "alpha": al,
                "m100": a["mean_100"][i],
                "s100": a["se_100"][i],
                "m500": a["mean"][i],
                "s500": a["se"][i],
                "theirs": a["their_mean"][i],
                "their_se": a["their_se"][i],
                "theory": a["theory"][i],
                "converged": sum(a["converged"][i]),
                "runs": len(a["converged"][i]),
            }
            row["z100"] = _z(row["m100"], row["s100"], row["theirs"], row["their_se"])
            row["z500"] = _z(row["m500"], row["s500"], row["theirs"], row["their_se"])
            out.append(row)
    return out


def numbers(results: dict) -> dict[str, str]:
    data = results["data"]
    n = {}
    # -- softmax state evolution
    inner = [c["max_abs_diff"] for c in _fig(results, "se")["comparisons"] if "1e-4 <" in c["what"]]
    n["se_inner_max"] = f"{max(inner):.1e}".replace("e-0", "e-")
    n["se_theirs_first"] = _f(data["se_rho0.5"]["theirs"][0], 5)
    n["se_theirs_pr_05"] = _f(data["se_rho0.5"]["theirs"][-1], 2)
    n["se_theirs_pr_2"] = _f(data["se_rho2.0"]["theirs"][-1], 2)
    # -- hardmax state evolution: the gap, the runs, the score
    h = data["hardmax"]
    gaps = [t - o for t, o in zip(h["theirs_se"], h["ours_se"])]
    i = max(range(len(gaps)), key=gaps.__getitem__)
    n["hm_gap_max"], n["hm_gap_alpha"] = _f(gaps[i]), _f(h["se_alpha"][i], 2)
    n["hm_gap_ours"], n["hm_gap_theirs"] = _f(h["ours_se"][i]), _f(h["theirs_se"][i])
    j = min(range(len(h["se_alpha"])), key=lambda k: abs(h["se_alpha"][k] - 1.0))
    n["hm_a1_ours"], n["hm_a1_theirs"] = _f(h["ours_se"][j], 2), _f(h["theirs_se"][j])
    means, ses = h["amp_mean"], h["amp_se"]
    n["hm_amp"] = _join(_pm(m, s) for m, s in zip(means, ses))
    n["hm_amp_ours_se"] = _join(_f(x) for x in h["ours_se_at_amp"])
    n["hm_amp_above"] = _join(_f(m - o, 1) for m, o in zip(means, h["ours_se_at_amp"]))
    n["hm_amp_z_ours"] = _join(f"{_z(m, s, o):.1f}" for m, s, o in zip(means, ses, h["ours_se_at_amp"]))
    n["hm_amp_theirs_se"] = _join(_f(x) for x in h["theirs_se_at_amp"])
    n["hm_amp_below"] = _join(_f(t - m, 2) for m, t in zip(means, h["theirs_se_at_amp"]))
    n["hm_amp_z_theirs"] = _join(f"{_z(t, s, m):.0f}" for m, s, t in zip(means, ses, h["theirs_se_at_amp"]))
    n["hm_their_amp"] = _join(_f(x) for x in h["their_amp_mean"])
    z_amp = [_z(t, u, m, s) for m, s, t, u in zip(means, ses, h["their_amp_mean"], h["their_amp_se"])]
    n["hm_amp_z_their_amp_min"] = f"{lower_bound(min(z_amp)):g}"
    # the authors' AMP against their own curve, in their standard errors
    z_own = [(t - c) / u for t, u, c in zip(h["their_amp_mean"], h["their_amp_se"], h["theirs_se_at_amp"])]
    n["hm_their_amp_z_own"] = _join(f"{z:+.1f}" for z in z_own)
    n["hm_their_amp_near_max"] = f"{upper_bound(max(abs(z) for z in z_own[:2])):g}"
    n["hm_their_amp_last_above"] = _f(h["their_amp_mean"][-1] - h["theirs_se_at_amp"][-1], 2)
    conv = [sum(c) for c in h["amp_converged"]]
    n["hm_conv"] = _join(str(c) for c in conv)
    last = h["amp_iterations"][-1]
    n["hm_iter_last"] = (
        f"all {len(last)} runs stopped at the cap of {h['amp_cap']} iterations"
        if min(last) == max(last) == h["amp_cap"]
        else f"the runs ended after {min(last)}-{max(last)} iterations"
    )
    n["hm_inv_d"] = _f(1.0 / h["d"], 1)
    ratio = [e / x for e, x in zip(h["score_density"], h["score_exact"])]
    n["hm_score_factor"] = _f(max(ratio), 2)
    s = data["hardmax_score"]
    n["sc_ratios"] = _join(_pm(r, e) for r, e in zip(s["ratio"], s["ratio_se"]))
    cr = s["check_ratio"]
    n["sc_check_alphas"] = f"{_f(s['check_alpha'][0], 2)} to {_f(s['check_alpha'][-1], 2)}"
    n["sc_check_ratio_range"] = f"{_f(min(cr), 2)}-{_f(max(cr), 2)}"
    n["sc_check_factor_range"] = f"{_f(1 / max(cr), 2)}-{_f(1 / min(cr), 2)}"
    diffs = [abs(o - t) for o, t in zip(s["check_ours_at_scaled"], s["check_theirs"])]
    n["sc_check_maxdiff"] = f"{upper_bound(max(diffs)):g}"
    n["sc_check_ours"] = _join(_f(x) for x in s["check_ours_at_scaled"])
    n["sc_check_theirs"] = _join(_f(x) for x in s["check_theirs"])
    n["sc_check_scaled"] = _join(_f(x) for x in s["check_scaled_alpha"])
    n["sc_mc"] = f"{s['mc']:,}"
    # -- softmax GAMP-RIE: 100 and 500 iterations
    rows = amp_rows(results)
    n["amp_n"] = str(len(rows))
    n["amp_agree100"] = str(sum(abs(r["z100"]) < 2 for r in rows))
    n["amp_zmax100"] = f"{max(abs(r['z100']) for r in rows):.1f}"
    k = next(r for r in rows if r["T"] == 4 and abs(r["alpha"] - 0.04) < 1e-9)
    n["amp_t4_100"], n["amp_t4_500"] = _pm(k["m100"], k["s100"]), _pm(k["m500"], k["s500"])
    n["amp_t4_theirs"], n["amp_t4_theory"] = _pm(k["theirs"], k["their_se"]), _f(k["theory"])
    n["amp_t4_z100"], n["amp_t4_z500"] = f"{k['z100']:.1f}", f"{k['z500']:.1f}"
    off100 = [r["m100"] - r["theory"] for r in rows]
    off_theirs = [r["theirs"] - r["theory"] for r in rows]
    n["amp_off100"] = f"{_f(min(off100), 1)}-{_f(max(off100), 2)}"
    n["amp_off_theirs"] = f"{_f(min(off_theirs), 1)}-{_f(max(off_theirs), 2)}"
    n["amp_t4_cap_share"] = f"{100 * (k['m100'] - k['m500']) / (k['theirs'] - k['m500']):.0f} %"
    met, total = sum(r["converged"] for r in rows), sum(r["runs"] for r in rows)
    n["amp_conv"] = f"None of the {total}" if met == 0 else f"Only {met} of the {total}"
    z_th = [abs(_z(r["m100"], r["s100"], r["theory"])) for r in rows]
    n["amp_zth_max100"] = f"{max(z_th):.0f}"
    t2 = rows[0]
    n["amp_t2_first"], n["amp_t2_first_theory"] = _pm(t2["m100"], t2["s100"]), _f(t2["theory"])
    # -- Adam
    g = data["gd"]
    n["gd_single"] = _join(_pm(m, s) for m, s in zip(g["single_mean"], g["single_se"]))
    n["gd_their_single"] = _join(_pm(m, s) for m, s in zip(g["their_single"], g["their_single_se"]))
    n["gd_avg"], n["gd_their_avg"] = (
        _pm(g["averaged_mean"], g["averaged_se"]),
        _pm(g["their_averaged"], g["their_averaged_se"]),
    )
    zs = [
        _z(m, s, t, u)
        for m, s, t, u in zip(g["single_mean"], g["single_se"], g["their_single"], g["their_single_se"])
    ]
    zs.append(_z(g["averaged_mean"], g["averaged_se"], g["their_averaged"], g["their_averaged_se"]))
    n["gd_zmax"] = f"{max(abs(z) for z in zs):.1f}"
    n["gd_avg_above"] = _f(g["averaged_mean"] - g["theory"][0], 2)
    n["gd_bayes"] = _f(g["theory"][0])
    n["gd_their_avg_above"] = _f(g["their_averaged"] - g["theory"][0], 2)
    n["gd_avg_pct"] = f"{100 * (g['averaged_mean'] / g['theory'][0] - 1):.0f} %"
    n["gd_loss_pct"] = f"{upper_bound(100 * g['max_relative_loss']):g} %"
    n["gd_step_ms"] = f"{1e3 * g['step_cpu_s']:.0f}"
    n["gd_step_gflop"] = f"{g['step_flop'] / 1e9:.2f}"
    n["gd_step_n"] = f"{g['step_n']:,}"
    # -- timings
    t = {f["id"]: f["wall_time_s"] for f in results["figures"]}
    n["t_se"], n["t_hardmax"], n["t_amp"], n["t_gd"] = (
        f"{t[k]:.0f} s" for k in ("se", "hardmax", "amp", "gd")
    )
    n["t_total"] = f"{results['total_wall_time_s'] / 60:.1f} min"
    n["t_cpu"] = f"{results['cpu_time_s'] / 60:.1f} min"
    n["t_machine"] = results["machine"]
    n["t_workers"] = str(results.get("workers", 2))
    for fid in ("se", "hardmax", "amp", "gd"):
        theirs = _fig(results, fid)["authors_time"]
        n[f"authors_{fid}"] = f"**{theirs['kind']}**: {theirs['how']}"
    return n
