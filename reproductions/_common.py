"""Shared plumbing of the reproduction scripts (``reproductions/<paper>/reproduce.py``).

Each script recomputes a paper's key figures at the paper's sizes with :mod:`solvable`, compares them with the
authors' published numbers (small tables in ``<paper>/published/``, each with its source) and writes, into its own
folder, everything its page shows: the figures (``fig_*.png``), the comparison tables (``table_*.md``, pulled into
the page with ``{include}``) and ``results.json``, the numbers behind them, which ``tests/`` pin against the theory.
The science lives in :mod:`solvable`; this module only times, tabulates and writes.

``results.json`` has one fixed shape (checked by ``tests/test_reproductions.py``)::

    {"paper": "<authors, title, venue>", "reference": "arXiv:XXXX.XXXXX", "sizes": "<what was run>",
     "machine": "<where it ran>", "total_wall_time_s": float,
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
import platform
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from solvable.experiments import mean_se  # noqa: F401 (the scripts take it from here)

ROOT = Path(__file__).resolve().parents[1]
COMPARISON_KINDS = ("theory_vs_published", "runs_vs_published", "runs_vs_theory")
AUTHORS_TIME_KINDS = ("measured", "estimated, not run", "not known")
_FRONT = "---\n"


def machine() -> str:
    """A one-line description of the machine (CPU count and BLAS threads), for the timing tables."""
    import os

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
    return {"what": what, "kind": kind, "n_points": int(arr.size),
            "max_abs_diff": None if diffs is None else float(np.max(np.abs(diffs))),
            "max_abs_z": None if z is None else float(np.max(np.abs(z)))}


def markdown_table(headers, rows) -> str:
    """A GitHub/MyST pipe table from a header list and rows of already formatted cells."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_results(folder: Path, results: dict) -> Path:
    """Write ``results.json`` (sorted keys, 2-space indent, floats as produced) into ``folder``."""
    path = Path(folder) / "results.json"
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    return path


def load_published(folder: Path, name: str):
    """Read ``folder/published/<name>`` (a CSV with a header row) as a structured numpy array."""
    return np.genfromtxt(Path(folder) / "published" / name, delimiter=",", names=True, dtype=None, encoding="utf-8")


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
    return yaml.safe_load(text[len(_FRONT):end + 1]) or {}, text[end + 1 + len(_FRONT):]


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

    bad = [k for k, v in numbers.items() if not (isinstance(k, str) and k.isidentifier() and isinstance(v, str))]
    if bad:
        raise ValueError(f"numbers must map identifiers to strings; offending keys: {bad}")
    page = Path(page)
    front, body = _split_front_matter(page.read_text())
    front.setdefault("myst", {})["substitutions"] = {k: numbers[k] for k in sorted(numbers)}
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100000)
    page.write_text(_FRONT + head + _FRONT + body)
