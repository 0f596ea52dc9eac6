"""Shared plumbing of the reproduction scripts (``reproductions/<paper>/reproduce.py``).

Each script recomputes a paper's key figures at the paper's sizes with :mod:`solvable`, compares them with the
authors' published numbers (small tables in ``<paper>/published/``, each with its source) and writes, into its own
folder, everything its page shows: the figures (``fig_*.png``), the comparison tables (``table_*.md``, pulled into
the page with ``{include}``; :func:`markdown_table` writes them as MyST ``{table}`` directives with column widths
and maths markup, so that they fit the printed page) and ``results.json``, the numbers behind them, which ``tests/``
pin against the theory.
The science lives in :mod:`solvable`; this module only times, tabulates, writes and hands independent runs to
worker processes.

Independent runs (one data set or one seed each) go through :func:`run_jobs`, i.e.
:func:`solvable.experiments.parallel_map` with ``n_jobs`` from the environment variable ``REPRO_JOBS`` (default
``-1``: one worker per core; ``1``: one after the other in the script's own process). Every job carries its own seed,
so the numbers do not depend on the number of workers. joblib gives each worker ``cores / workers`` BLAS threads
unless ``OMP_NUM_THREADS`` (or ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``) is set, which the workers then inherit.
:func:`cpu_time` counts the CPU time of the workers as well as the script's own.

``results.json`` has one fixed shape (checked by ``tests/test_reproductions.py``)::

    {"paper": "<authors, title, venue>", "reference": "arXiv:XXXX.XXXXX", "sizes": "<what was run>",
     "machine": "<where it ran>", "workers": int, "total_wall_time_s": float,
     "figures": [{"id": "fig1", "file": "fig_1.png", "title": "...", "wall_time_s": float,
                  "authors_time": {"kind": "measured" | "estimated, not run" | "not known",
                                   "how": "<what was run or how it was estimated, with sizes>"},
                  "comparisons": [{"what": "...", "kind": "theory_vs_published" | "runs_vs_published" |
                                   "runs_vs_theory", "n_points": int,
                                   "max_abs_diff": float | None, "max_abs_z": float | None}]}],
     "data": {... whatever the paper's tests read ...}}

The numbers quoted in a page's prose are rendered from ``results.json``, never typed: ``<paper>/prose.py`` maps the
results to formatted strings (``numbers(results) -> {key: text}``), the script writes them into the page's front
matter as MyST substitutions (:func:`write_page_numbers`) and the prose says ``{{ key }}``. A test recomputes the
strings from the committed ``results.json`` and fails if the page differs, or if the prose types a number that
``prose.LITERALS`` does not declare as an input of the run.
"""

from __future__ import annotations

import json
import os
import platform
import re
import time
from contextlib import contextmanager
from pathlib import Path

import joblib
import numpy as np

from solvable.config import jobs_from_environment
from solvable.experiments import (
    mean_se,  # noqa: F401 (the scripts take it from here)
    parallel_map,
)

ROOT = Path(__file__).resolve().parents[1]
JOBS_VAR = "REPRO_JOBS"
COMPARISON_KINDS = ("theory_vs_published", "runs_vs_published", "runs_vs_theory")
AUTHORS_TIME_KINDS = ("measured", "estimated, not run", "not known")
_FRONT = "---\n"


def n_jobs() -> int:
    """Worker processes for a script's independent runs: ``REPRO_JOBS``, default -1 (one per core).

    ``1`` runs the jobs one after the other in the script's own process; ``k > 1``, ``k`` workers; ``-1`` every
    core (``-2`` all but one, as joblib counts).
    """
    return jobs_from_environment(JOBS_VAR, -1)


def workers() -> int:
    """The number of worker processes :func:`n_jobs` stands for on this machine (recorded in ``results.json``)."""
    jobs = n_jobs()
    return jobs if jobs > 0 else max(1, joblib.cpu_count() + 1 + jobs)


def run_jobs(function, jobs, *, device: str = "cpu") -> list:
    """``[function(job) for job in jobs]`` on :func:`n_jobs` workers (:func:`solvable.experiments.parallel_map`).

    Each job must carry its own seed (or generator): the results are then those of the loop, whatever the number
    of workers. Jobs that compute on a GPU (``device`` ``"cuda"``, or ``"auto"`` where PyTorch or CuPy sees one) run
    one after the other in this process: one process drives the GPU, which runs the students of a job side by side.
    """
    on_gpu = device == "cuda"
    if device == "auto":
        from solvable.backend import gpu_available  # the GPU libraries load only when asked for

        on_gpu = gpu_available()
    return parallel_map(function, jobs, n_jobs=1 if on_gpu else n_jobs())


def cpu_time() -> float:
    """CPU seconds used so far by this process and by the worker processes of :func:`run_jobs`.

    joblib keeps its workers alive between calls, and the operating system reports the CPU time of a child only
    once it has exited: the workers are shut down first (the next :func:`run_jobs` starts fresh ones). Where the
    ``resource`` module is missing (Windows), only this process is counted.
    """
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)
    try:
        import resource
    except ImportError:
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def machine() -> str:
    """A one-line description of the machine (CPU count and BLAS threads), for the timing tables."""
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    return f"{platform.machine()}, {os.cpu_count()} CPU cores, OMP_NUM_THREADS={threads}, Python {platform.python_version()}"


@contextmanager
def timed(record: dict, key: str = "wall_time_s"):
    """``with timed(fig): ...`` stores the wall time of the block in ``fig[key]`` (seconds)."""
    t0 = time.perf_counter()
    try:
        yield record
    finally:
        record[key] = round(time.perf_counter() - t0, 2)


def z_scores(mean_a, se_a, mean_b, se_b):
    """Differences of two estimates in units of their combined standard error ``sqrt(se_a^2 + se_b^2)``."""
    mean_a, se_a, mean_b, se_b = (np.asarray(x, dtype=float) for x in (mean_a, se_a, mean_b, se_b))
    combined = np.sqrt(se_a**2 + se_b**2)
    if np.any(combined <= 0):
        raise ValueError("z_scores needs a positive combined standard error at every point")
    return (mean_a - mean_b) / combined


def comparison(what: str, kind: str, *, diffs=None, z=None) -> dict:
    """One row of a figure's ``comparisons``: the largest absolute difference and/or |z| over the points."""
    if kind not in COMPARISON_KINDS:
        raise ValueError(f"kind must be one of {COMPARISON_KINDS}, got {kind!r}")
    arr = np.asarray(diffs if diffs is not None else z, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"comparison {what!r}: no points or non-finite values")
    return {
        "what": what,
        "kind": kind,
        "n_points": int(arr.size),
        "max_abs_diff": None if diffs is None else float(np.max(np.abs(diffs))),
        "max_abs_z": None if z is None else float(np.max(np.abs(z))),
    }


_SYMBOLS = {"alpha": r"\alpha", "beta": r"\beta", "kappa": r"\kappa", "rho": r"\rho", "Delta": r"\Delta"}
_SUBSCRIPTS = {"PR": r"_{\rm PR}", "IT": r"_{\rm IT}", "alg": r"_{\rm alg}", "RS": r"_{\rm RS}"}
_NUM = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_SYM = r"(?:alpha|beta|kappa|rho|Delta)(?:_(?:PR|IT|alg))?|f_RS|[dLnrTmqN]"
_PROTECTED = re.compile(r"(\$[^$]+\$|`[^`]*`|\]\([^)]*\)|\{\{[^}]*\}\})")


def _tex_number(num: str) -> str:
    """``-0.31`` -> ``-0.31``; ``4.6e-06`` -> ``4.6 \\times 10^{-6}``; ``0.0e+00`` -> ``0`` (inside maths)."""
    mant, _, exp = num.partition("e")
    if not exp:
        return num
    if float(mant) == 0:
        return "0"
    power = f"10^{{{int(exp)}}}"
    return power if mant.lstrip("+") in ("1", "1.0") else f"{mant} \\times {power}"


def _tex_symbol(sym: str) -> str:
    base, _, sub = sym.partition("_")
    return _SYMBOLS.get(base, base) + (_SUBSCRIPTS.get(sub, "") if sub else "")


def _sub(pattern: str, repl, text: str) -> str:
    """``re.sub`` outside the maths groups of ``text``."""
    parts = re.split(r"(\$[^$]+\$)", text)
    return "".join(p if i % 2 else re.sub(pattern, repl, p) for i, p in enumerate(parts))


def _tex_plain(text: str) -> str:
    """Maths markup for the plain-text notation of one piece of a cell (no maths, code or link in it)."""
    num = rf"(?<![\w.$]){_NUM}(?![\w.]*\w)"
    operand = rf"(?:{_NUM}|{_SYM}|dL)"
    # a +- b and a ± b: one maths group, so that the sign stays with its number
    text = _sub(
        rf"(?<![\w.])({_NUM})\s*(?:\+-|±)\s*({_NUM})(?![\w.]*\w)",
        lambda m: f"${_tex_number(m[1])} \\pm {_tex_number(m[2])}$",
        text,
    )
    # products: 9 x 3, n x d x d
    text = _sub(
        rf"(?<![\w.$])({operand}(?: x {operand})+)(?![\w.]*\w)",
        lambda m: (
            "$"
            + r" \times ".join(
                _tex_number(t) if re.fullmatch(_NUM, t) else _tex_symbol(t) for t in m[1].split(" x ")
            )
            + "$"
        ),
        text,
    )
    # relations: d = L = 100, kappa = 0.5, alpha < 0.9
    text = _sub(
        rf"(?<![\w.$])((?:{_SYM})(?: [=<>] (?:{_SYM}))* [=<>] {_NUM})(?![\w.]*\w)",
        lambda m: (
            "$"
            + " ".join(
                _tex_number(t) if re.fullmatch(_NUM, t) else (t if t in "=<>" else _tex_symbol(t))
                for t in m[1].split(" ")
            )
            + "$"
        ),
        text,
    )
    # the remaining Greek letters and subscripted thresholds
    text = _sub(
        r"(?<![\w.$\\])((?:alpha|beta|kappa|rho|Delta)(?:_(?:PR|IT|alg))?|f_RS)(?![\w$])",
        lambda m: f"${_tex_symbol(m[1])}$",
        text,
    )
    # a minus sign between words (ours - authors'), which must not end a line as a hyphen
    text = _sub(r"(?<= )-(?= )", "$-$", text)
    # a lone +- (mean +- s.e.)
    text = _sub(r"(?<=\s)\+-(?=\s)", "±", text)
    # ranges: 10-25 min -> 10–25 min (an en dash, not a hyphen that the line may break at)
    text = _sub(r"(?<![\w.-])(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)(?![\w.-])", r"\1–\2", text)
    # signed numbers and numbers in e-notation
    text = _sub(num, lambda m: f"${_tex_number(m[0])}$" if m[0][0] in "+-" or "e" in m[0] else m[0], text)
    return text


def tex_cell(cell) -> str:
    """A table cell with maths markup for its numbers and symbols: ``alpha`` -> ``$\\alpha$``, ``0.86 ± 0.01``
    -> ``$0.86 \\pm 0.01$``, ``-0.31`` -> ``$-0.31$`` (a minus sign that cannot be parted from its number),
    ``4.6e-06`` -> ``$4.6 \\times 10^{-6}$``, ``d = L = 100`` -> ``$d = L = 100$``, ``9 x 3`` -> ``$9 \\times 3$``,
    ``10-25`` -> ``10–25``; a lone ``-`` (no value) becomes an em dash, `` - `` between words a minus sign. Maths,
    code, link targets and substitutions are left as they are, so that converting a converted cell changes
    nothing."""
    text = str(cell).strip()
    if text == "-":
        return "—"
    if re.fullmatch(r"[A-Za-z]", text):
        return f"${text}$"
    parts = _PROTECTED.split(text)
    text = "".join(p if i % 2 else _tex_plain(p) for i, p in enumerate(parts))
    # join maths groups that only a relation or a number separates: $10^{-4}$ < $\alpha$ < 0.9 $\alpha_PR$
    pieces = re.split(r"(\$[^$]+\$)", text)
    out = [pieces[0]]
    for i in range(1, len(pieces), 2):
        sep = out[-1] if len(out) > 1 else None
        if sep is not None and re.fullmatch(r" ?[<>=] ?| (?:\d+(?:\.\d+)? )?", sep):
            out.pop()
            out[-1] = out[-1][:-1] + sep + pieces[i][1:]
        else:
            out.append(pieces[i])
        out.append(pieces[i + 1])
    return "".join(out)


def _visible(cell: str) -> str:
    """Roughly what a cell prints: maths commands as one character, no markup, link texts without targets; a maths
    group (a number with its sign, ``d = 100``) as one word (``~`` for its spaces), except after ``\\pm``."""
    text = re.sub(r"\]\([^)]*\)", "]", cell)
    # TeX may break a maths group after \pm, if it must: 0.979 \pm | 0.023
    text = re.sub(r"\$([^$]+)\$", lambda m: m[1].replace(" ", "~").replace("\\pm~", "\\pm "), text)
    text = re.sub(r"\\(?:rm|mathrm|text)\b", "", text)
    text = re.sub(r"\\[A-Za-z]+", "x", text)
    return re.sub(r"[$*`{}\[\]^_]", "", text)


# The printed table: a text width of about 450 pt, cells in a 9 pt font (about 4.6 pt per character, 5 in the
# sans-serif headers) and 13 pt of padding and rules per column (Sphinx's \X{a}{b} columns).
_LINE_PT, _CHAR_PT, _HEAD_PT, _PAD_PT = 450.0, 4.6, 5.0, 13.0


def _words(cell: str, relaxed: bool) -> list[float]:
    """The lengths (in characters) of the pieces a cell may be broken into: words, split after hyphens;
    ``relaxed``: maths groups may break after ``=`` too."""
    text = _visible(cell)
    if relaxed:
        text = text.replace("~=~", "~= ")
    return [
        len(w) + 0.4 * sum(ch.isupper() for ch in w)  # capitals are wider
        for w in re.split(r"\s+|(?<=-)", text)
        if w
    ]


def column_widths(headers, rows, line: float = _LINE_PT) -> list[int]:
    """Relative column widths (in points of a ``line``-point text width) for a table that should fit the printed
    line: every column gets at least its longest word (a header may wrap between words, a short maths group counts
    as one word); if the longest cells all fit on one line they get their full length, otherwise the long columns
    share what the short ones leave. A table too wide for that lets its cells break after ``=`` in maths and its
    headers after 7 letters (TeX hyphenates them)."""
    cols = list(zip(*([list(headers)] + [list(r) for r in rows])))

    def least(relaxed):
        return [
            _PAD_PT
            + 1
            + max(
                [min(max(_words(col[0], relaxed), default=0), 7 if relaxed else 99) * _HEAD_PT]
                + [max(_words(c, relaxed), default=0) * _CHAR_PT for c in col[1:]]
            )
            for col in cols
        ]

    lower = least(False)
    if sum(lower) > line:
        lower = least(True)
    whole = [
        max(lo, _PAD_PT + 1 + _CHAR_PT * max([len(_visible(c)) for c in col[1:]] + [0]))
        for lo, col in zip(lower, cols)
    ]
    want = whole
    if sum(whole) > line and sum(lower) < line:
        lo, hi = 0.0, max(whole)
        for _ in range(60):  # the largest cap with sum(min(whole, max(cap, lower))) <= line
            cap = (lo + hi) / 2
            fits = sum(min(w, max(cap, m)) for w, m in zip(whole, lower)) <= line
            lo, hi = (cap, hi) if fits else (lo, cap)
        want = [min(w, max(lo, m)) for w, m in zip(whole, lower)]
    elif sum(whole) > line:
        want = lower
    return [max(1, round(w)) for w in want]


def markdown_table(headers, rows, *, longtable: bool | None = None) -> str:
    """A MyST ``{table}`` directive around a pipe table, from a header list and rows of already formatted cells.

    Every cell goes through :func:`tex_cell` (maths markup for numbers and symbols), and ``:widths:`` gives the
    columns relative widths from their content (:func:`column_widths`), so that the PDF wraps long cells in
    fixed-width columns instead of printing past the margin. A table of more than 8 rows, or one with ``longtable``
    set, may break across pages in print (``:class: longtable``)."""
    headers = [tex_cell(h) for h in headers]
    rows = [[tex_cell(c) for c in row] for row in rows]
    if any(len(r) != len(headers) for r in rows):
        raise ValueError("every row needs one cell per header")
    if longtable is None:
        longtable = len(rows) > 8
    lines = ["```{table}", ":widths: " + " ".join(str(w) for w in column_widths(headers, rows))]
    if longtable:
        lines.append(":class: longtable")
    lines += ["", "| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(c if c else " " for c in row) + " |" for row in rows]
    return "\n".join(lines + ["```"]) + "\n"


def write_results(folder: Path, results: dict) -> Path:
    """Write ``results.json`` (sorted keys, 2-space indent, floats as produced) into ``folder``."""
    path = Path(folder) / "results.json"
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return path


def load_published(folder: Path, name: str):
    """Read ``folder/published/<name>`` (a CSV with a header row) as a structured numpy array."""
    return np.genfromtxt(
        Path(folder) / "published" / name, delimiter=",", names=True, dtype=None, encoding="utf-8"
    )


def authors_time(kind: str, how: str) -> dict:
    """The ``authors_time`` entry of a figure: how long the authors' code takes for it, and how we know.

    ``kind`` is ``"measured"`` (their code was run here; ``how`` gives what, where and the sizes),
    ``"estimated, not run"`` (``how`` gives the estimate and what it is computed from) or ``"not known"``.
    """
    if kind not in AUTHORS_TIME_KINDS:
        raise ValueError(f"kind must be one of {AUTHORS_TIME_KINDS}, got {kind!r}")
    if not isinstance(how, str) or not how.strip():
        raise ValueError("how must say what was measured or how the time was estimated")
    return {"kind": kind, "how": how.strip()}


def _split_front_matter(text: str) -> tuple[dict, str]:
    import yaml

    if not text.startswith(_FRONT):
        return {}, text
    end = text.index("\n" + _FRONT, len(_FRONT) - 1)
    return yaml.safe_load(text[len(_FRONT) : end + 1]) or {}, text[end + 1 + len(_FRONT) :]


def read_page_numbers(page: Path) -> dict:
    """The substitutions in the front matter of a reproduction page (``myst: substitutions:``)."""
    front, _ = _split_front_matter(Path(page).read_text())
    return dict((front.get("myst") or {}).get("substitutions") or {})


def page_body(page: Path) -> str:
    """A reproduction page without its front matter."""
    return _split_front_matter(Path(page).read_text())[1]


def write_page_numbers(page: Path, numbers: dict) -> None:
    """Write ``numbers`` (key -> text) into the page's front matter, where the prose reads them as ``{{ key }}``.

    The rest of the front matter and the whole body are kept as they are.
    """
    import yaml

    bad = [
        k for k, v in numbers.items() if not (isinstance(k, str) and k.isidentifier() and isinstance(v, str))
    ]
    if bad:
        raise ValueError(f"numbers must map identifiers to strings; offending keys: {bad}")
    page = Path(page)
    front, body = _split_front_matter(page.read_text())
    front.setdefault("myst", {})["substitutions"] = {k: numbers[k] for k in sorted(numbers)}
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100000)
    page.write_text(_FRONT + head + _FRONT + body)
