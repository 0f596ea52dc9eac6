"""The numbers that ``reproductions/perceptron.md`` quotes, rendered from ``results.json`` (see ``_common.py``)."""

from __future__ import annotations

import math

from _format import sci

from solvable.quote import lower_bound, upper_bound

# typed numbers of the page that are inputs of the run, the authors' settings or the paper's own grid and brackets
LITERALS = {
    "116": "PNAS volume",
    "5451": "PNAS page",
    "2019": "year of the paper",
    "5001": "the authors' N",
    "0.01": "alpha step of the authors' grid and of ours",
    "0.011": "the authors' grid",
    "1.6": "the authors' grid",
    "10": "tolerance exponent / data sets per alpha (inputs)",
    "12": "tolerance 10^-12 of our state evolution",
    "100": "points of the Gaussian-teacher grid",
    "0.05": "grid start, also an alpha of the published grid",
    "5000": "d, our size",
    "1.5": "alpha of the authors' demo",
    "36": "lines of their output we keep",
    "1591": "lines of their output",
    "0.3": "GAMP damping (input)",
    "1.3": "alpha (input grid)",
    "1.244": "the authors' bracket",
    "1.245": "the authors' bracket",
    "1.492": "the authors' bracket and last alpha",
    "1.493": "the authors' bracket",
    "0.5": "their damping",
    "1.25": "an alpha of their grid",
    "1.48": "an alpha of their grid",
    "270": "their iteration count at alpha = 1.492, printed in their output",
    "5e-7": "half a unit of their sixth printed decimal",
    "1e-5": "GAP_SHOWN: the differences whose split is quoted",
    "0.95": "an alpha of the published grid",
    "0.001": "the step of their alpha grid",
}
GAP_SHOWN = (
    1e-5  # the split of q_ours - q_theirs is quoted where it is at least 20 times their print's rounding 5e-7
)


def percent_range(values) -> str:
    """``min``-``max`` of fractions as percentages, rounded outward (the range quoted contains every value)."""
    return f"{lower_bound(100 * min(values)):g} % to {upper_bound(100 * max(values)):g} %"


def numbers(results: dict) -> dict[str, str]:
    d = results["data"]
    f1, f2, prof = d["fig1"], d["fig2"], d["profile"]
    out = {}
    z1 = [(m - t) / s for m, s, t in zip(f1["gamp_mean"], f1["gamp_se"], f1["theory"])]
    diff1 = [abs(m - t) for m, t in zip(f1["gamp_mean"], f1["theory"])]
    i1 = max(range(len(diff1)), key=diff1.__getitem__)
    iters1 = [n for row in f1["iterations"] for n in row]
    out.update(
        f1_n=str(len(z1)),
        f1_max_z=f"{math.ceil(max(map(abs, z1)) * 10) / 10:.1f}",
        f1_max_diff=sci(diff1[i1], 1),
        f1_max_diff_alpha=f"{f1['alphas'][i1]:g}",
        f1_iter_min=str(min(iters1)),
        f1_iter_max=str(max(iters1)),
    )

    pa = f2["published_alpha"]
    dq = [o - p for o, p in zip(f2["ours_q"], f2["published_q"])]
    dl = [abs(o - p) for o, p in zip(f2["ours_label_mse"], f2["published_label_mse"])]
    low = [a < 1.493 for a in pa]
    df = [abs(o - p) for o, p, keep in zip(f2["ours_f_rs"], f2["published_f_rs"], low) if keep]
    upto = [a <= 1.3 for a in pa]
    at = {a: x for a, x in zip(pa, dq)}
    out.update(
        f2_df=sci(max(df), 1),
        alpha_it5=f"{f2['alpha_it']:.5f}",
        alpha_alg5=f"{f2['alpha_alg']:.5f}",
        alpha_it4=f"{f2['alpha_it']:.4f}",
        alpha_alg4=f"{f2['alpha_alg']:.4f}",
        f2_dq_low=sci(upper_bound(max(abs(x) for x, u in zip(dq, upto) if u)), 2),
        f2_dq_last=sci(abs(dq[-1]), 2),
        f2_dq_below=str(sum(x > 0 for x in dq)),
        f2_n_pub=str(len(pa)),
        f2_dq_005=sci(at[0.05], 1),
        f2_dq_125=sci(at[1.25], 1),
        f2_dq_148=sci(at[1.48], 2),
        f2_dl_low=sci(upper_bound(max(x for x, u in zip(dl, upto) if u)), 2),
        f2_dl_last=sci(dl[-1], 2),
        f2_se_iterations=str(f2["se_iterations_last"]),
    )
    hard = [a < f2["alpha_alg"] for a in f2["alphas"]]
    z2 = [(m - t) / s for m, s, t, h in zip(f2["gamp_mean"], f2["gamp_se"], f2["theory"], hard) if h]
    j = max(range(len(z2)), key=lambda k: abs(z2[k]))
    in_hard = [m for a, m in zip(f2["alphas"], f2["gamp_mean"]) if f2["alpha_it"] < a < f2["alpha_alg"]]
    above = [m for m, h in zip(f2["gamp_mean"], hard) if not h]
    out.update(
        f2_max_z=f"{abs(z2[j]):.1f}",
        f2_max_z_alpha=f"{f2['alphas'][j]:g}",
        f2_hard_min=f"{min(in_hard):.2f}",
        f2_hard_max=f"{max(in_hard):.2f}",
        f2_above=sci(upper_bound(max(above)), 2),
    )
    g = d["gamp"]
    out.update(gamp_damping=f"{g['damping']:g}", gamp_tol=sci(g["tol"], 1), gamp_max_iter=str(g["max_iter"]))

    # the authors' regulariser and stopping rule, recomputed (reproduce.authors_procedure)
    ap = f2["authors_procedure"]
    ours_q, pub_q = f2["ours_q"], f2["published_q"]
    gap = [o - p for o, p in zip(ours_q, pub_q)]
    shown = [k for k, g_ in enumerate(gap) if g_ >= GAP_SHOWN]
    share = [(ours_q[k] - ap["regularised_q"][k]) / gap[k] for k in shown]
    out.update(
        ap_share=percent_range(share),
        ap_share_n=str(len(shown)),
        ap_share_from=f"{pa[shown[0]]:g}",
        ap_reg_last=sci(ours_q[-1] - ap["regularised_q"][-1], 2),
        ap_stop_last=sci(ours_q[-1] - ap["procedure_q_without_delta"][-1], 2),
        ap_proc_max=sci(upper_bound(max(abs(q - p) for q, p in zip(ap["procedure_q"], pub_q)), 1), 1),
        ap_proc_iter_last=str(ap["procedure_iterations"][-1]),
        ap_plain_max=sci(upper_bound(max(abs(q - o) for q, o in zip(ap["unregularised_q"], ours_q)), 1), 1),
    )

    figs = {f["id"]: f for f in results["figures"]}
    for key, fid in (("t1", "fig1"), ("t2", "fig2")):
        fig, timing = figs[fid], d[fid]["timing"]
        out.update(
            {
                f"{key}_wall": f"{fig['wall_time_s']:.0f}",
                f"{key}_cpu": f"{fig['cpu_time_s']:.0f}",
                f"{key}_gamp": f"{timing['gamp_s']:.0f}",
                f"{key}_sample": f"{timing['sample_s']:.0f}",
            }
        )
    out.update(
        t_total=f"{results['total_wall_time_s'] / 60:.1f}",
        t_cpu=f"{results['cpu_time_s'] / 60:.1f}",
        t_machine=results["machine"],
    )
    ex, un = prof["exact"], prof["uniform"]
    se13 = f2["gamp_se"][f2["alphas"].index(prof["alpha"])]
    out.update(
        p_exact_s=f"{ex['wall_s']:.1f}",
        p_uniform_s=f"{un['wall_s']:.1f}",
        p_speedup=f"{ex['wall_s'] / un['wall_s']:.1f}",
        p_err_exact=f"{ex['error']:.5f}",
        p_err_uniform=f"{un['error']:.5f}",
        p_err_diff=sci(abs(ex["error"] - un["error"]), 2),
        p_se_ratio=f"{se13 / abs(ex['error'] - un['error']):.0f}",
        p_iterations=str(ex["iterations"]),
    )
    return out
