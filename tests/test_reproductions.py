"""The Reproductions part of the book: every paper has its page in the table of contents, its committed results in the
one shape that ``reproductions/_common.py`` documents, its figures and tables on the page, and a source for every
published number it compares against. What the numbers must satisfy is tested per paper
(``tests/test_reproduction_<paper>.py``)."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPRO = ROOT / "reproductions"
sys.path.insert(0, str(REPRO))
from _common import COMPARISON_KINDS  # noqa: E402
from run import PAPERS  # noqa: E402

TOP_KEYS = {"paper", "reference", "sizes", "machine", "total_wall_time_s", "figures", "data"}
FIGURE_KEYS = {"id", "file", "title", "wall_time_s", "authors_time", "comparisons"}


def _results(name):
    return json.loads((REPRO / name / "results.json").read_text())


def test_every_paper_and_the_index_are_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text()
    assert "file: reproductions/index" in toc
    for name in PAPERS:
        assert f"file: reproductions/{name}" in toc, name
        assert (REPRO / f"{name}.md").exists(), name


def test_the_index_page_shows_the_timings_and_the_command():
    index = (REPRO / "index.md").read_text()
    assert "python reproductions/run.py" in index and "timings.md" in index
    timings = (REPRO / "timings.md").read_text()
    for name in PAPERS:
        assert f"[{name}]({name}.md)" in timings, name


@pytest.mark.parametrize("name", PAPERS)
def test_results_have_the_documented_shape(name):
    res = _results(name)
    assert TOP_KEYS <= set(res), TOP_KEYS - set(res)
    assert re.match(r"(arXiv:\d{4}\.\d{4,5}|doi:\S+)", res["reference"]), res["reference"]
    assert res["total_wall_time_s"] > 0 and res["figures"]
    for fig in res["figures"]:
        assert FIGURE_KEYS <= set(fig), (fig.get("id"), FIGURE_KEYS - set(fig))
        assert fig["wall_time_s"] > 0 and fig["authors_time"]
        assert (REPRO / name / fig["file"]).exists(), fig["file"]
        for comp in fig["comparisons"]:
            assert comp["kind"] in COMPARISON_KINDS and comp["n_points"] >= 1
            assert comp["max_abs_diff"] is not None or comp["max_abs_z"] is not None


@pytest.mark.parametrize("name", PAPERS)
def test_the_page_shows_every_figure_and_table(name):
    page = (REPRO / f"{name}.md").read_text()
    for fig in _results(name)["figures"]:
        assert f"{name}/{fig['file']}" in page, fig["file"]
    for table in sorted((REPRO / name).glob("table_*.md")):
        assert f"{name}/{table.name}" in page, table.name


@pytest.mark.parametrize("name", PAPERS)
def test_every_published_table_has_its_source(name):
    published = REPRO / name / "published"
    tables = sorted(published.glob("*.csv"))
    assert tables, f"{name}: no published numbers to compare against in {published}"
    readme = (published / "README.md").read_text()
    for table in tables:
        assert table.name in readme, f"{table.name} is not described in {published}/README.md"
        with table.open() as fh:
            rows = list(csv.reader(fh))
        assert len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), table.name
    # numbers from a repository carry its commit; numbers quoted from a paper's text carry the paper and its place
    assert re.search(r"\b[0-9a-f]{40}\b", readme) or re.search(r"arXiv:\d{4}\.\d{4,5}", readme), \
        "the README must give the commit (repository data) or the paper (quoted values) the numbers come from"
