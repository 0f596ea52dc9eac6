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
from _common import (
    AUTHORS_TIME_KINDS,
    COMPARISON_KINDS,
    markdown_table,
    page_body,
    read_page_numbers,
    tex_cell,
)
from run import PAPERS

TOP_KEYS = {"paper", "reference", "sizes", "machine", "total_wall_time_s", "figures", "data"}
FIGURE_KEYS = {"id", "file", "title", "wall_time_s", "authors_time", "comparisons"}


def _results(name):
    return json.loads((REPRO / name / "results.json").read_text())


def test_tables_are_written_with_maths_markup_and_column_widths():
    """``markdown_table`` writes a ``{table}`` directive whose ``:widths:`` has one entry per column, and puts signs,
    error bars, powers of ten and symbols in maths, so that print neither splits a minus sign from its number nor
    prints a column over the next one."""
    assert tex_cell("-0.31") == "$-0.31$" and tex_cell("+1.2") == "$+1.2$" and tex_cell("-") == "—"
    assert tex_cell("0.8599 ± 0.0127") == tex_cell("0.8599 +- 0.0127") == "$0.8599 \\pm 0.0127$"
    assert tex_cell("4.6e-06") == "$4.6 \\times 10^{-6}$" and tex_cell("0.0e+00") == "$0$"
    assert (
        tex_cell("alpha") == "$\\alpha$"
        and tex_cell("d = L = 100, kappa = 0.5") == "$d = L = 100$, $\\kappa = 0.5$"
    )
    assert (
        tex_cell("rho = 0.5: 1e-4 < alpha < 0.9 alpha_PR")
        == "$\\rho = 0.5$: $10^{-4} < \\alpha < 0.9 \\alpha_{\\rm PR}$"
    )
    assert (
        tex_cell("Python 3.11.7, float32, [bsr](bsr.md), `a-1`")
        == "Python 3.11.7, float32, [bsr](bsr.md), `a-1`"
    )
    for cell in ("-0.31", "0.86 ± 0.01", "alpha_IT", "n x d x d", "10-25 min"):
        assert tex_cell(tex_cell(cell)) == tex_cell(cell), cell
    table = markdown_table(["alpha", "z"], [["0.1", "-1.3"]])
    assert (
        table.startswith("```{table}\n:widths: ")
        and "| $\\alpha$ | $z$ |" in table
        and "| 0.1 | $-1.3$ |" in table
    )
    files = sorted(REPRO.glob("*/table_*.md")) + [REPRO / "timings.md"]
    for path in files:
        text = path.read_text()
        blocks = re.findall(
            r"^```\{table\}\n:widths: ([\d ]+)\n(?::class: longtable\n)?\n(\|.*?)\n```$",
            text,
            flags=re.MULTILINE | re.DOTALL,
        )
        assert blocks and len(blocks) == text.count("```{table}"), path.name
        for widths, body in blocks:
            n_cols = len(re.split(r"(?<!\\)\|", body.splitlines()[0].strip()[1:-1]))
            assert len(widths.split()) == n_cols, path.name
        assert not re.search(r"(?<![\w.$-])-\d|\+-", re.sub(r"\$[^$]*\$|`[^`]*`|\]\([^)]*\)", "", text)), (
            path.name
        )


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
        assert fig["wall_time_s"] > 0
        theirs = fig["authors_time"]
        assert set(theirs) == {"kind", "how"} and theirs["kind"] in AUTHORS_TIME_KINDS and theirs["how"], (
            theirs
        )
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
    assert re.search(r"\b[0-9a-f]{40}\b", readme) or re.search(r"arXiv:\d{4}\.\d{4,5}", readme), (
        "the README must give the commit (repository data) or the paper (quoted values) the numbers come from"
    )


def _prose_module(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"prose_{name}", REPRO / name / "prose.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", PAPERS)
def test_the_page_numbers_are_rendered_from_results(name):
    """The numbers in the front matter are what ``prose.numbers`` makes of the committed results, and the prose
    uses every one of them and no other."""
    page = REPRO / f"{name}.md"
    expected = _prose_module(name).numbers(_results(name))
    assert read_page_numbers(page) == expected, "rerun the page's reproduce.py (or fix prose.py)"
    used = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", page_body(page)))
    assert used == set(expected), (sorted(used - set(expected)), sorted(set(expected) - used))


# what may carry numbers without being prose: code, roles, links' targets, directive lines, ids and dates
_NOT_PROSE = [
    r"```.*?```",
    r"`[^`\n]*`",
    r"\{\{\s*\w+\s*\}\}",
    r"\]\([^)]*\)",
    r"^:\w+:.*$",
    r"^```\{.*$",
    r"arXiv:\d{4}\.\d{4,5}",
    r"\b[0-9a-f]{7,40}\b",
    r"\b\d{4}-\d{2}-\d{2}\b",
]
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?")


def typed_numbers(text: str) -> list[str]:
    """Every number typed in ``text`` outside code, roles, link targets and ids (single digits excepted)."""
    for pattern in _NOT_PROSE:
        text = re.sub(pattern, " ", text, flags=re.DOTALL | re.MULTILINE)
    return [n for n in _NUMBER.findall(text) if not re.fullmatch(r"\d", n)]


def test_typed_numbers_finds_what_a_hand_would_type():
    text = "ours is 0.0785 ± 0.0011, about 200 standard errors, $10^{-12}$, 25,000 draws, 1e-4 `d = 100` [x](a/1.5)"
    assert typed_numbers(text) == ["0.0785", "0.0011", "200", "10", "12", "25,000", "1e-4"]


@pytest.mark.parametrize("name", PAPERS)
def test_no_result_is_typed_by_hand_in_the_prose(name):
    """A number in the prose is either rendered from ``results.json`` or an input of the run declared in
    ``prose.LITERALS`` (sizes, parameters, the paper's own grid, equation constants)."""
    allowed = set(_prose_module(name).LITERALS)
    stray = sorted(set(typed_numbers(page_body(REPRO / f"{name}.md"))) - allowed)
    assert not stray, f"{name}.md types numbers that are neither substitutions nor declared inputs: {stray}"


def test_the_readme_states_the_measured_page_times():
    """The README's table of wall times per page is what the committed ``results.json`` measured."""
    readme = (ROOT / "README.md").read_text()
    labels = {
        "perceptron": "perceptron",
        "bsr": "bilinear sequence regression",
        "quadratic": "quadratic networks",
        "attention": "attention-indexed models",
    }
    total = 0.0
    for name in PAPERS:
        minutes = _results(name)["total_wall_time_s"] / 60
        total += minutes
        row = re.search(rf"^\| {labels[name]}[^|]*\| ([0-9.]+) min \|", readme, flags=re.MULTILINE)
        assert row, f"no README row for {name}"
        assert float(row.group(1)) == pytest.approx(minutes, abs=0.051), name
    row = re.search(r"^\| all four \| ([0-9.]+) min \|", readme, flags=re.MULTILINE)
    assert row and float(row.group(1)) == pytest.approx(total, abs=0.21)
