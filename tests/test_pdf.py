"""The whole-book PDF: built with XeLaTeX from the same sources as the website, every chapter in it, with its figures,
solutions, working cross-references and bibliography, and linked from the landing page.

The PDF is built by the `book` fixture (tests/_book.py: `jupyter-book build . --builder pdflatex` into the session's
temporary folder, before the HTML build, which then publishes it at the root of the site). It needs XeLaTeX and
latexmk: without them these tests are skipped with the reason, unless SOLVABLE_REQUIRE_TEX=1 (set by .ci/run, which
installs Debian's TeX packages when missing): then they fail.
"""

from __future__ import annotations

import os
import re
from functools import cache

import nbformat
import pytest
from _book import PDF_NAME, ROOT, have_tex, notebook_pages, toc_files

#: Measured on the current book: 395 pages, about 190 of chapters, reproductions and bibliography and 200 of API
#: reference (api/*.md; it grows with the docstrings). A PDF without the API reference or without two chapters (20-50
#: pages each) falls below; one missing chapter is caught by its outline entry (test_pdf_holds_every_page_of_the_book).
MIN_PAGES = 330


@pytest.fixture(scope="module")
def pdf(book):
    if book.pdf_returncode is None:
        message = "the PDF of the book needs XeLaTeX and latexmk (Debian: see .ci/run)"
        if os.environ.get("SOLVABLE_REQUIRE_TEX") == "1" or have_tex():
            pytest.fail(f"the PDF was required (SOLVABLE_REQUIRE_TEX=1) but not built: {message}")
        pytest.skip(message)
    assert book.pdf_returncode == 0 and book.pdf is not None, f"the PDF build failed:\n{book.pdf_log[-6000:]}"
    from pypdf import PdfReader

    reader = PdfReader(book.pdf)
    return {"path": book.pdf, "reader": reader, "pages": [page.extract_text() or "" for page in reader.pages],
            "latex_log": book.pdf.with_suffix(".log").read_text(encoding="utf-8", errors="replace"),
            "build_log": book.pdf_log}


def squash(text: str) -> str:
    """Text without whitespace: pypdf drops or adds spaces between words depending on the font."""
    return re.sub(r"\s+", "", text)


@cache
def chapter_cells() -> dict[str, list]:
    return {page: nbformat.read(ROOT / f"{page}.ipynb", as_version=4).cells for page in notebook_pages()}


def test_pdf_builds_without_warnings(pdf):
    warnings = [line for line in pdf["build_log"].splitlines() if "WARNING" in line or "ERROR" in line]
    assert not warnings, "the PDF build (Sphinx) warns:\n" + "\n".join(warnings[:20])
    log = pdf["latex_log"]
    assert "There were undefined references" not in log, "LaTeX: undefined references (they print as ??)"
    assert "Citation" not in log or not re.search(r"Citation `[^']+' .*undefined", log), "LaTeX: undefined citations"


def test_pdf_holds_every_page_of_the_book(pdf):
    pages = pdf["pages"]
    assert len(pages) >= MIN_PAGES, f"only {len(pages)} pages (expected at least {MIN_PAGES})"
    outline = [squash(item.title) for item in _flatten(pdf["reader"].outline)]
    text = squash("".join(pages))
    missing = []
    root, *pages = toc_files()
    assert squash(_title(ROOT / f"{root}.md")) in text, "the landing page's title is not in the PDF"
    for page in pages:  # the landing page opens the PDF (its title page); every other page has an outline entry
        source = ROOT / (f"{page}.ipynb" if (ROOT / f"{page}.ipynb").is_file() else f"{page}.md")
        title = _title(source)
        if not any(squash(title) in entry for entry in outline) or squash(title) not in text:
            missing.append(title)
    assert not missing, f"pages of _toc.yml missing from the PDF (or its outline): {missing}"


def test_pdf_has_no_unresolved_references(pdf):
    bad = [i + 1 for i, page in enumerate(pdf["pages"]) if "??" in page]
    assert not bad, f"unresolved references (??) on PDF pages {bad}"


def test_pdf_numbers_exercises_figures_and_equations_per_chapter(pdf):
    text = squash("".join(pdf["pages"]))
    for number, page in enumerate(notebook_pages(), start=1):
        for kind in ("Exercise", "Figure"):
            assert f"{kind}{number}.1" in text, f"{page}: no '{kind} {number}.1' in the PDF"
        assert f"({number}.1)" in text, f"{page}: no equation ({number}.1) in the PDF"


def test_pdf_prints_every_figure_and_explorer_frame(pdf):
    figures = sum(
        any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
        for cells in chapter_cells().values() for cell in cells if cell.cell_type == "code"
    )
    images = sum(len(page.images) for page in pdf["reader"].pages)
    assert figures and images >= figures, f"{images} images in the PDF for {figures} figures and explorer frames"
    text = "".join(pdf["pages"])
    for leftover in ("IPython.core.display", "HTML object", "VBox(", "widget-view"):
        assert leftover not in text, f"an output the PDF cannot show printed as text: {leftover!r}"


def test_pdf_prints_the_solutions(pdf):
    solutions = sum(
        len(re.findall(r"^[:`]{3,}\s*\{solution(-start)?\}", cell.source, re.MULTILINE))
        for cells in chapter_cells().values() for cell in cells if cell.cell_type == "markdown"
    )
    printed = len(re.findall(r"SolutiontoExercise", squash("".join(pdf["pages"]))))
    assert solutions and printed >= solutions, f"{printed} solutions printed for {solutions} in the chapters"


def test_pdf_has_the_bibliography(pdf):
    text = squash("".join(pdf["pages"]))
    for entry in ("Gardner", "Zdeborová", "Marchenko", "Bun"):
        assert squash(entry) in text, f"bibliography entry {entry!r} not in the PDF"


def test_landing_page_links_the_pdf(book, pdf):
    landing = (book.html / "intro.html").read_text(encoding="utf-8")
    assert f'href="{PDF_NAME}"' in landing, "the landing page does not link the PDF"
    published = book.html / PDF_NAME
    assert published.is_file() and published.stat().st_size == pdf["path"].stat().st_size, (
        "the PDF is not published at the root of the site"
    )


def _flatten(outline):
    for item in outline:
        if isinstance(item, list):
            yield from _flatten(item)
        else:
            yield item


def _title(source) -> str:
    if source.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.read(source, as_version=4).cells if c.cell_type == "markdown")
    else:
        text = source.read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.MULTILINE)
    assert heading, f"{source}: no title"
    return re.sub(r"[*_`$\\]", "", heading.group(1)).strip()
