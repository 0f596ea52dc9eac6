"""The printed set: one LaTeX document built with XeLaTeX from the same sources as the website, every chapter in it,
with its figures, solutions, working cross-references and bibliography, cut into the lecture notes, one handout per
chapter, the problem sheets, the tutor's booklet and the reference (_ext/solvable_print.py), each published by the
website and listed with its page count on the landing page.

The PDF is built by the `book` fixture (tests/_book.py: `jupyter-book build . --builder pdflatex` into the session's
temporary folder, before the HTML build, which then publishes it at the root of the site). It needs XeLaTeX and
latexmk: without them these tests are skipped with the reason, unless SOLVABLE_REQUIRE_TEX=1 (set by .ci/run, which
installs Debian's TeX packages when missing): then they fail.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache

import nbformat
import pytest
from _book import (
    PRINTED_DIR,
    PRINTED_MANIFEST,
    PUBLISHED_PDF_DIR,
    ROOT,
    book_config,
    have_tex,
    notebook_pages,
    toc_files,
)

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
    layout = [_read_page(page) for page in reader.pages]
    return {
        "path": book.pdf,
        "reader": reader,
        "pages": [page["text"] for page in layout],
        "layout": layout,
        "latex_log": book.pdf.with_suffix(".log").read_text(encoding="utf-8", errors="replace"),
        "tex": book.pdf.with_suffix(".tex").read_text(encoding="utf-8"),
        "index": _read(book.pdf.with_suffix(".ind")),
        "build_log": book.pdf_log,
    }


#: The margins of the printed page (sphinxsetup's hmargin and vmargin in _config.yml), in points.
MARGIN_PT = 0.85 * 72


def _read_page(page) -> dict:
    """What the tests read of one PDF page, in one pass of pypdf's text visitor: its text; its prose (the text
    fonts only, code in the monospaced font left out); the characters of code and of text; the area of its images
    as a fraction of the text block; the height of its lowest text, image or frame (points from the page's foot)."""
    info = {"prose": [], "mono": 0, "chars": 0, "figure": 0.0, "lows": [], "images": 0}
    width, height = float(page.mediabox.width), float(page.mediabox.height)
    xobjects = (page.get("/Resources") or {}).get("/XObject") or {}
    block = (width - 2 * MARGIN_PT) * (height - 2 * MARGIN_PT)

    def operand(op, args, cm, tm):
        if op == b"Do":  # an image: the unit square under the current matrix
            xobject = xobjects.get(args[0]) if args else None
            info["images"] += xobject is not None and xobject.get_object().get("/Subtype") == "/Image"
            info["figure"] += abs(cm[0] * cm[3]) / block
            info["lows"].append(min(cm[5], cm[5] + cm[3]))
        elif op == b"re" and len(args) == 4:  # a frame (code boxes)
            y, h = float(args[1]), float(args[3])
            info["lows"].append(cm[3] * min(y, y + h) + cm[5])

    def text(t, cm, tm, font, size):
        if t.strip():
            info["lows"].append(tm[5] * cm[3] + tm[4] * cm[1] + cm[5])
        if font is not None:
            if "Mono" in str(font.get("/BaseFont", "")):
                info["mono"] += len(t.strip())
            else:
                info["chars"] += len(t.strip())
                info["prose"].append(t)

    info["text"] = page.extract_text(visitor_operand_before=operand, visitor_text=text) or ""
    info["prose"] = "".join(info["prose"])
    top, bottom = height - MARGIN_PT, MARGIN_PT
    body = [
        y for y in info.pop("lows") if bottom + 20 < y < top - 5
    ]  # not the running head nor the page number
    info["empty_foot"] = (min(body) - bottom) / (top - bottom) if body else 1.0
    return info


def _read(path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


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
    assert "Citation" not in log or not re.search(r"Citation `[^']+' .*undefined", log), (
        "LaTeX: undefined citations"
    )


def test_pdf_holds_every_page_of_the_book(pdf):
    pages = pdf["pages"]
    assert len(pages) >= MIN_PAGES, f"only {len(pages)} pages (expected at least {MIN_PAGES})"
    outline = [squash(item.title) for item in _flatten(pdf["reader"].outline)]
    text = squash("".join(pages))
    missing = []
    root, *pages = toc_files()
    assert squash(_title(ROOT / f"{root}.md")) in text, "the landing page's title is not in the PDF"
    for (
        page
    ) in pages:  # the landing page opens the PDF (its title page); every other page has an outline entry
        source = ROOT / (f"{page}.ipynb" if (ROOT / f"{page}.ipynb").is_file() else f"{page}.md")
        title = _title(source)
        if (
            not any(squash(title) in entry for entry in outline)
            or squash(title).casefold() not in text.casefold()
        ):
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
        for cells in chapter_cells().values()
        for cell in cells
        if cell.cell_type == "code"
    )
    images = sum(page["images"] for page in pdf["layout"])
    assert figures and images >= figures, (
        f"{images} images in the PDF for {figures} figures and explorer frames"
    )
    text = "".join(pdf["pages"])
    for leftover in ("IPython.core.display", "HTML object", "VBox(", "widget-view"):
        assert leftover not in text, f"an output the PDF cannot show printed as text: {leftover!r}"


def test_pdf_prints_the_solutions(pdf):
    solutions = sum(
        len(re.findall(r"^[:`]{3,}\s*\{solution(-start)?\}", cell.source, re.MULTILINE))
        for cells in chapter_cells().values()
        for cell in cells
        if cell.cell_type == "markdown"
    )
    printed = len(re.findall(r"SolutiontoExercise", squash("".join(pdf["pages"]))))
    assert solutions and printed >= solutions, f"{printed} solutions printed for {solutions} in the chapters"


def test_pdf_has_the_bibliography(pdf):
    text = squash("".join(pdf["pages"]))
    for entry in ("Gardner", "Zdeborová", "Marchenko", "Bun"):
        assert squash(entry) in text, f"bibliography entry {entry!r} not in the PDF"


@pytest.fixture(scope="module")
def printed(book, pdf):
    """The printed set: file name -> {"title", "kind", "pages", "ranges", "reader", "text"} (printed-set.json)."""
    from pypdf import PdfReader

    folder = book.pdf.parent / PRINTED_DIR[1]
    manifest = folder / PRINTED_MANIFEST
    assert manifest.is_file(), f"no {manifest}: the printed set was not cut (_ext/solvable_print.py)"
    parts = json.loads(manifest.read_text(encoding="utf-8"))
    for name, part in parts.items():
        part["reader"] = PdfReader(folder / name)
        # a part is page ranges of the one compiled document: its text is those pages' (read once, by `pdf`);
        # test_the_printed_set_is_complete checks that each file's first and last pages are those pages
        part["text"] = [pdf["pages"][k - 1] for lo, hi in part["ranges"] for k in range(lo, hi + 1)]
        part["path"] = folder / name
    return parts


def _of_kind(printed, kind):
    return {name: part for name, part in printed.items() if part["kind"] == kind}


#: The lecture notes must stay a handout: front matter, notation, the five chapters, bibliography and index.
MAX_NOTES_PAGES = 160


def test_the_printed_set_is_complete(printed):
    kinds = sorted(part["kind"] for part in printed.values())
    assert kinds.count("handout") == len(notebook_pages()), f"handouts: {kinds}"
    for kind in ("notes", "sheets", "booklet", "reference"):
        assert kinds.count(kind) == 1, f"printed set: {kinds}"
    for name, part in printed.items():
        assert len(part["reader"].pages) == part["pages"], (
            f"{name}: {len(part['reader'].pages)} pages, {part['pages']} listed"
        )
        assert len(part["text"]) == part["pages"], (
            f"{name}: its page ranges {part['ranges']} hold {len(part['text'])} pages"
        )
        for k, source in (
            (0, part["ranges"][0][0]),
            (-1, part["ranges"][-1][-1]),
        ):  # the pages its ranges name
            assert squash(part["reader"].pages[k].extract_text() or "") == squash(part["text"][k]), (
                f"{name}: page {k % part['pages'] + 1} is not page {source} of the compiled document"
            )


def test_the_lecture_notes_are_the_chapters_without_the_api_reference(printed):
    ((name, notes),) = _of_kind(printed, "notes").items()
    assert notes["pages"] < MAX_NOTES_PAGES, f"{name}: {notes['pages']} pages (under {MAX_NOTES_PAGES})"
    outline = [squash(item.title) for item in _flatten(notes["reader"].outline)]
    for page in notebook_pages():
        assert squash(_title(ROOT / f"{page}.ipynb")) in outline, f"{name}: no {page} in its outline"
    for needed in ("Notationandconventions", "Bibliography", "Index"):
        assert needed in outline, f"{name}: no {needed} in its outline"
    text = squash("".join(notes["text"]))
    assert "APIreference" not in outline and "solvable.glm.sample" not in text, (
        f"{name} holds the API reference"
    )
    assert "SolutiontoExercise1.1" in text, f"{name}: the worked solutions are not in the lecture notes"


def test_each_handout_prints_where_to_read_and_run_its_chapter(printed):
    config = book_config()
    base = config["html"]["baseurl"].rstrip("/")
    repo = config["repository"]["url"].removeprefix("https://github.com/").rstrip("/")
    handouts = sorted(_of_kind(printed, "handout").items())
    for number, (name, handout) in enumerate(handouts, start=1):
        page = handout["docname"]
        first = squash(handout["text"][0])
        notebook = f"notebooks/{page.rsplit('/', 1)[-1]}.ipynb"
        for address in (
            f"{base}/{page}.html",
            f"mybinder.org/v2/gh/{repo}/",
            notebook,
            f"colab.research.google.com/github/{repo}/blob/",
        ):
            assert squash(address) in first, f"{name}: its first page does not print {address}"
        title = squash(_title(ROOT / f"{page}.ipynb")).casefold()
        assert title in first.casefold(), f"{name}: does not open with its chapter"
        text = squash("".join(handout["text"]))
        assert f"Exercise{number}.1" in text and "Hint1" in text, f"{name}: no exercises or hints"
        assert "SolutiontoExercise" not in text, f"{name}: prints worked solutions"


def test_the_problem_sheets_hold_every_exercise_and_no_solution(printed, pdf):
    ((name, sheets),) = _of_kind(printed, "sheets").items()
    text = squash("".join(sheets["text"]))
    chapters = pdf["tex"][: pdf["tex"].index("\\begin{sphinxthebibliography}")]
    for number in range(1, len(notebook_pages()) + 1):
        exercises = set(
            re.findall(rf"\\begin\{{sphinxadmonition\}}\{{note\}}\{{Exercise {number}\.(\d+)", chapters)
        )
        missing = sorted(k for k in exercises if f"Exercise{number}.{k}" not in text)
        assert exercises and not missing, f"{name}: exercises {number}.{missing} missing"
        assert f"Problemsheet{number}" in text, f"{name}: no problem sheet {number}"
    assert "Hint1" in text and "Hint2" in text, f"{name}: the hints are not printed with the exercises"
    assert "SolutiontoExercise" not in text and "Shortanswer" not in text, (
        f"{name}: prints solutions or answers"
    )


def test_the_tutors_booklet_holds_the_plan_and_every_solution(printed):
    ((name, booklet),) = _of_kind(printed, "booklet").items()
    text = squash("".join(booklet["text"]))
    solutions = sum(
        len(re.findall(r"^[:`]{3,}\s*\{solution(-start)?\}", cell.source, re.MULTILINE))
        for cells in chapter_cells().values()
        for cell in cells
        if cell.cell_type == "markdown"
    )
    printed_solutions = len(re.findall(r"SolutiontoExercise", text))
    assert solutions and printed_solutions == solutions, (
        f"{name}: {printed_solutions} solutions for {solutions}"
    )
    assert "lectureplan" in text[:2000].casefold(), f"{name}: does not open with the lecture plan"


def test_the_landing_page_lists_the_printed_set_with_page_counts(book, printed):
    landing = (book.html / "intro.html").read_text(encoding="utf-8")
    for name, part in printed.items():
        link = f'href="{PUBLISHED_PDF_DIR}/{name}"'
        assert link in landing, f"the landing page does not link {name}"
        after = landing[landing.index(link) :][:600]
        assert re.search(rf"\b{part['pages']} pages\b", after), (
            f"the landing page does not give {name}'s page count"
        )
        published = book.html / PUBLISHED_PDF_DIR / name
        assert published.is_file() and published.stat().st_size == part["path"].stat().st_size, (
            f"{name} is not published by the website"
        )


# Defects of the printed text (and tests/test_site.py for the website's).

#: Words of the notebook, not of a printed page, in the chapters' prose.
NOTEBOOK_WORDING = (
    "hidden cell",
    "next cell",
    "previous cell",
    "lecture preset",
    "paper preset",
    "SOLVABLE_SIZE",
    "SIZES.",
    "nbval",
)


def _prose_pages(pdf, first=0, last=None):
    """The text of each page in the text fonts only (code, in the monospaced font, left out)."""
    return [page["prose"] for page in pdf["layout"][first:last]]


def _where(pages, pattern, first=0):
    found = []
    for i, text in enumerate(pages):
        for match in re.finditer(pattern, text):
            found.append(f"p. {first + i + 1}: ...{text[max(0, match.start() - 40) : match.end() + 40]!r}...")
    return found


def test_no_raw_latex_outside_math_in_print(pdf):
    pages = _prose_pages(pdf)
    found = _where(pages, r"\\(?:[A-Za-z]{2,}|[()\[\]])")
    assert not found, f"{len(found)} raw LaTeX commands in the printed text:\n" + "\n".join(found[:15])


def test_no_exercise_exercise_in_print(pdf):
    found = _where([re.sub(r"\s+", " ", t) for t in pdf["pages"]], r"Exercise\s+Exercise")
    assert not found, f"{len(found)} times 'Exercise Exercise' in the PDF:\n" + "\n".join(found[:15])


def test_no_equation_or_citation_labels_in_print(pdf):
    pages = pdf["pages"]
    labels = _where(pages, r"\beq-[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
    citations = _where(pages, r"\[\[\d+\]\]|\[\[R|R[0-9a-f]{12}-\d")
    assert not citations, f"{len(citations)} numpydoc citation labels in the PDF:\n" + "\n".join(
        citations[:10]
    )
    assert not labels, f"{len(labels)} equation labels instead of numbers in the PDF:\n" + "\n".join(
        labels[:15]
    )


def test_no_notebook_wording_in_the_printed_chapters(pdf):
    first, last = _chapters_span(pdf)
    pages = _prose_pages(pdf, first, last)
    found = _where(pages, "|".join(re.escape(w) for w in NOTEBOOK_WORDING), first)
    assert not found, f"{len(found)} notebook words in the printed chapters:\n" + "\n".join(found[:20])


#: Index terms of the course that the printed index must hold, and the symbols it must not spell in words.
INDEX_TERMS = ("overlap", "spinodal", "TAP", "HCIZ")
ASCII_SYMBOLS = r"\b(alpha|beta|gamma|Delta|kappa|rho|lambda|sigma)(\\_\w+)?\b"


def test_the_index_holds_the_terms_and_spells_the_symbols(pdf):
    entries = re.findall(r"\\spxentry\{((?:[^{}]|\{[^{}]*\})*)\}", pdf["index"])
    missing = [term for term in INDEX_TERMS if not any(re.search(rf"\b{term}\b", entry) for entry in entries)]
    words = [entry for entry in entries if re.search(ASCII_SYMBOLS, re.sub(r"\\\(.*?\\\)", "", entry))]
    assert not words, f"index entries that spell a symbol in words: {words}"
    assert not missing, f"index terms missing from the printed index: {missing}"


def _flatten(outline):
    for item in outline:
        if isinstance(item, list):
            yield from _flatten(item)
        else:
            yield item


def _title(source) -> str:
    if source.suffix == ".ipynb":
        text = "\n".join(
            c.source for c in nbformat.read(source, as_version=4).cells if c.cell_type == "markdown"
        )
    else:
        text = source.read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.MULTILINE)
    assert heading, f"{source}: no title"
    return re.sub(r"[*_`$\\]", "", heading.group(1)).strip()


# The print edition (_ext/solvable_print.py, latex_elements in _config.yml): a handout, not a dump of the website.

#: At most this many printed pages of the chapters may be mostly code (more than half of their characters in the
#: monospaced font): the teaching code (an algorithm written out, an exercise's stub) prints, plotting does not.
MAX_CODE_PAGES = 5
#: Sentences that only make sense on a screen (in ```{only} html``` blocks of the sources, or not at all).
WEBSITE_ONLY = (
    "rocket icon",
    "click to show",
    "On this website",
    "needs a Python kernel",
    "move its slider",
    "hover",
    "Live explorer",
)


def _page_docs(tex: str) -> list[tuple[int, str]]:
    """(line, docname) where each page of the book starts in the .tex."""
    return [
        (i, m.group(1))
        for i, line in enumerate(tex.splitlines())
        for m in re.finditer(r"\\label\{\\detokenize\{([^}]*)::doc\}\}", line)
    ]


def _doc_at(docs: list[tuple[int, str]], line: int) -> str:
    before = [doc for start, doc in docs if start <= line]
    return before[-1] if before else "(front matter)"


def test_pdf_has_no_overfull_boxes(pdf):
    """No line, table or code block runs into the margin or over the footer (LaTeX reports each as an overfull box)."""
    docs = _page_docs(pdf["tex"])
    found = [
        f"{m.group(0).split(' in ')[0].split(' detected')[0]} in {_doc_at(docs, int(m.group(1)))} "
        f"(.tex line {m.group(1)})"
        for m in re.finditer(
            r"Overfull \\[hv]box \([\d.]+pt too \w+\)[^\n]*?(\d+)(?:--\d+)?\s*$",
            pdf["latex_log"],
            re.MULTILINE,
        )
    ]
    assert not found, f"{len(found)} overfull boxes in the LaTeX log:\n" + "\n".join(found[:30])


def test_pdf_has_no_empty_sections(pdf):
    """Every chapter, section and subsection holds something before the next heading of its level or above."""
    levels = {"chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3}
    heading = re.compile(r"^\\(chapter|section|subsection|subsubsection)\*?\{(.*)\}", re.MULTILINE)
    noise = re.compile(
        r"\\(label|addcontentsline|markboth|phantomsection|sphinxstepscope|index)\b"
        r"(\{\\detokenize\{[^}]*\}\}|\{[^}]*\})*"
    )
    tex = pdf["tex"][: pdf["tex"].index("\\begin{sphinxthebibliography}")]
    found = list(heading.finditer(tex))
    empty = []
    for this, after in zip(found, found[1:] + [None]):
        body = tex[this.end() : after.start() if after else len(tex)]
        if not noise.sub("", body).strip() and (
            after is None or levels[after.group(1)] <= levels[this.group(1)]
        ):
            empty.append(this.group(2))
    assert not empty, f"empty sections in the PDF: {empty}"


def test_pdf_has_one_bibliography_labelled_by_author_and_year(pdf):
    """One bibliography, every work in it once, with labels such as "Gardner 1988" that match the author-year
    citations of the text (_ext/solvable_bib.py)."""
    tex = pdf["tex"]
    assert tex.count("\\begin{sphinxthebibliography}") == 1, "more than one bibliography in the PDF"
    items = re.findall(r"\\bibitem\[([^\]]*)\]\{[^}]*\}\s*\\sphinxAtStartPar\s*(.*)", tex)
    assert len(items) >= 40, f"only {len(items)} entries in the bibliography"
    labels = [label for label, _ in items]
    texts = [entry for _, entry in items]
    assert len(set(labels)) == len(labels), "two bibliography entries share a label"
    assert len(set(texts)) == len(texts), "a work is listed twice in the bibliography"
    bad = [label for label in labels if not re.fullmatch(r"\D+ \d{4}[a-z]?", label)]
    assert not bad, f"bibliography labels that are not 'Author year': {bad[:5]}"
    outline = [squash(item.title) for item in _flatten(pdf["reader"].outline)]
    assert outline.count("Bibliography") == 1, "'Bibliography' is not exactly once in the PDF's contents"
    text = squash("".join(pdf["pages"]))
    for label in ("Gardner 1988", "Zdeborová and Krzakala 2016", "Engel and Van den Broeck 2001"):
        assert squash(label) in text, f"no bibliography entry labelled {label!r}"


def test_pdf_prints_the_solutions_apart_from_the_exercises(pdf):
    """In each chapter every exercise comes before every solution: the exercises read as a problem sheet, and the
    solutions (build-it reference code included) follow in a last section "Solutions" of the chapter."""
    tex = pdf["tex"][
        : pdf["tex"].index("\\begin{sphinxthebibliography}")
    ]  # the lecture notes (then the sheets)
    for number, page in enumerate(notebook_pages(), start=1):
        exercises = [
            m.start() for m in re.finditer(rf"\{{note\}}\{{Exercise {number}\.\d+[ }}]", tex)
        ]  # titles
        solutions = [
            m.start() for m in re.finditer(rf"Solution to\W[^\n]{{0,200}}?Exercise {number}\.\d+ ", tex)
        ]
        assert exercises and solutions, f"{page}: no exercises or no solutions in the PDF"
        assert max(exercises) < min(solutions), f"{page}: a solution prints before an exercise of the chapter"
        section = tex.rfind("\\section{Solutions}", 0, min(solutions))
        assert section > max(exercises), (
            f"{page}: the solutions are not in a section 'Solutions' after the exercises"
        )


def test_pdf_chapters_are_text_with_few_pages_of_code(pdf):
    """Plotting and bookkeeping code is left out of print (cells tagged print-remove-input): at most a handful of the
    chapters' pages are mostly code. A page's content is its characters, code (monospace) or not, and its figures,
    each counted as the characters a page of text holds in the same area (figures float, so a page of code is not
    one whose figure went to the next page)."""
    first, last = _chapters_span(pdf)
    pages = [
        (i + 1, {"mono": p["mono"], "text": p["chars"], "figure": p["figure"]})
        for i, p in enumerate(pdf["layout"][first:last], start=first)
    ]
    # characters of a page of text alone (no figure, mostly prose): the density a figure's area is counted at
    full = sorted(c["mono"] + c["text"] for _, c in pages if c["figure"] == 0 and c["text"] > c["mono"])
    per_page = full[len(full) // 2]
    code_pages = []
    for number, c in pages:
        total = c["mono"] + c["text"] + c["figure"] * per_page
        if total > 200 and c["mono"] > total / 2:
            code_pages.append(number)
    assert len(code_pages) <= MAX_CODE_PAGES, (
        f"{len(code_pages)} of {last - first} chapter pages are mostly code (at most {MAX_CODE_PAGES}): "
        f"PDF pages {code_pages}"
    )


def test_pdf_has_an_index_of_concepts(pdf):
    """An index of the chapters' concepts and symbols ({index} entries), without the API reference's entries."""
    entries = re.findall(r"^\s*\\item (.*?)(?:, \\hyperpage|\\hyperpage|$)", pdf["index"], re.MULTILINE)
    assert len(entries) >= 60, f"only {len(entries)} main entries in the index"
    assert "solvable." not in pdf["index"], "API entries in the printed index"
    for concept in ("state evolution", "Nishimori identity", "replica method"):
        assert any(concept in entry for entry in entries), f"no index entry for {concept!r}"
    outline = [squash(item.title) for item in _flatten(pdf["reader"].outline)]
    assert "Index" in outline, "the index has no entry in the PDF's contents"


def test_pdf_leaves_website_only_text_out(pdf):
    """The landing page, the chapters and the reproductions print no sentence that only makes sense on a screen (the
    API reference may document the text a live explorer shows without a kernel)."""
    reader = pdf["reader"]
    api = next(
        reader.get_destination_page_number(item)
        for item in reader.outline
        if not isinstance(item, list) and squash(item.title) == "APIreference"
    )
    text = " ".join(pdf["pages"][:api])
    found = [phrase for phrase in WEBSITE_ONLY if re.search(rf"\b{phrase}\b", text, re.IGNORECASE)]
    assert not found, f"website-only text in the PDF: {found}"
    assert "CHAPTERZERO" not in squash(text).upper(), "the notation page prints as 'Chapter Zero'"


def test_pdf_figures_print_near_their_first_citation(pdf):
    """Each chapter figure prints on the page of its first citation in the text, or the next one."""
    pages = [squash(text) for text in pdf["pages"]]
    first, last = _chapters_span(pdf)
    far = []
    for number in range(1, len(notebook_pages()) + 1):
        for figure in sorted({int(k) for k in re.findall(rf"Figure{number}\.(\d+):", "".join(pages[:last]))}):
            caption = next(i for i, text in enumerate(pages) if f"Figure{number}.{figure}:" in text)
            cited = [
                i
                for i, text in enumerate(pages[:last])
                if i >= first and re.search(rf"Figure{number}\.{figure}(?![\d:])", text)
            ]
            if cited and not 0 <= caption - min(cited) <= 1:
                far.append(
                    f"Figure {number}.{figure}: cited on p. {min(cited) + 1}, printed on p. {caption + 1}"
                )
    assert not far, "figures printed far from their first citation:\n" + "\n".join(far)


def test_printed_code_and_output_never_wrap(pdf):
    """A line of code or output too long for the text block wraps with LaTeX's continuation mark: a table broken in
    two. The print edition sets a block with a long line one or two sizes smaller (_ext/solvable_print.py, item 11);
    a line too long even then is printed on two lines by its chapter."""
    wrapped = [
        f"p. {i + 1}: {line[:60]}"
        for i, text in enumerate(pdf["pages"])
        for line in text.split("\n")
        if "\u21aa" in line
    ]
    assert not wrapped, f"{len(wrapped)} wrapped lines of code or output:\n" + "\n".join(wrapped[:20])


#: A chapter page whose next page opens with a figure may be at most this fraction empty at its foot: the figure
#: floats to the top of the next page and the text goes on filling this one.
MAX_EMPTY_BEFORE_FIGURE = 0.25


def test_no_page_is_left_part_empty_before_a_figure(pdf):
    """Figures float (`figure_align` and placeins in _config.yml): a figure too tall for the rest of a page goes to
    the top of the next one while the text fills this one, instead of leaving a quarter to a half of it blank."""
    first, last = _chapters_span(pdf)
    gaps = []
    for i in range(first, last - 1):
        following = pdf["pages"][i + 1].strip().split("\n")
        if len(following) < 2 or not re.match(r"Figure\s*\d+\.\d+:", following[1].strip()):
            continue
        empty = pdf["layout"][i]["empty_foot"]
        if empty > MAX_EMPTY_BEFORE_FIGURE:
            gaps.append(f"p. {i + 1}: {empty:.0%} empty before {following[1][:40]}")
    assert not gaps, "pages left part empty before a figure:\n" + "\n".join(gaps)


def _chapters_span(pdf) -> tuple[int, int]:
    """Indices of the first page of chapter 1 and of the first page after the last chapter (the PDF's outline)."""
    reader = pdf["reader"]
    top = [
        (squash(item.title), reader.get_destination_page_number(item))
        for item in reader.outline
        if not isinstance(item, list)
    ]
    titles = [squash(_title(ROOT / f"{page}.ipynb")) for page in notebook_pages()]
    starts = [page for title, page in top if title in titles]
    after = [page for _, page in top if page > max(starts)]
    assert len(starts) == len(titles) and after, "the chapters are not top-level entries of the PDF's outline"
    return min(starts), min(after)
