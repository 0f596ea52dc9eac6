"""Sphinx extension of the book (loaded through `sphinx.local_extensions` in `_config.yml`): the print edition.

The PDF (`jupyter-book build . --builder pdflatex`) is built from the same sources as the website, and reads as a
handout: what only makes sense on a screen stays on the website. Everything here acts on the LaTeX build only (a
post-transform of the assembled book, then an edit of the generated `.tex` before latexmk runs), so the website and
the cached doctrees are untouched.

1. **Cells tagged for print.** A code cell tagged `print-remove-input` prints its output (the figure) without its
   code: plotting, styling and bookkeeping cells, so that a figure follows the paragraph that cites it and a printed
   page holds text, not code. A cell tagged `print-remove-cell` is left out of print (a live ipywidgets explorer, whose
   text form means nothing on paper; the machine check of a build-it exercise). Sentences that only make sense on
   the website are in the sources' ```{only} html``` blocks (Sphinx's own directive).

2. **Solutions apart from their exercises.** On the website a solution is a collapsed block under its exercise. In
   print the solutions of a chapter are moved, in order, to a last section "Solutions" of the chapter, so that the
   exercises read as a problem sheet; each keeps its title "Solution to Exercise N.k (...)" with its link, in bold
   above its text rather than in a framed box (which cannot break a long listing across pages). The graded hints
   under an exercise print with it; its "Short answer" (a collapsed block on the website, to compare with before
   opening the worked solution) is left out of print, where the solution at the chapter's end states it.

3. **The API reference keeps its notes in place.** numpydoc turns a docstring's "References" into numbered
   citations ([1], [2], one set per function), which LaTeX would gather into the book's bibliography, hundreds of
   entries "[1] Chapter 3, Sec. ..." among the papers. In print they stay under their function, as "[1] ...", and
   the bibliography holds the works the chapters cite.

4. **One index of concepts and symbols.** The index entries of the API reference (one per documented function,
   hundreds) stay on the website's index; the PDF's index holds the chapters' own entries (`{index}` in the
   sources). The Python module index is not printed (`latex_domain_indices: false`).

5. **Exercise references.** sphinx-exercise writes an exercise's LaTeX label as `exercise:<label>`, while a
   `{ref}`/`{numref}` to it from another chapter points at Sphinx's `<docname>:<label>`: it printed as "Exercise ??".
   The second label is added next to the first; and where a `{ref}` prints "Exercise \\ref{...}" (the number of the
   section the label sits in), the exercise's own number is printed instead.

6. **Chapter numbers are the website's.** The website numbers only the "Chapters" part of `_toc.yml`; in LaTeX every
   page after the landing page is a chapter. The notation page becomes an unnumbered chapter (with unnumbered
   sections), so that chapter k of the site is chapter k of the PDF.

7. **One bibliography chapter.** LaTeX's bibliography environment opens its own chapter "Bibliography" (with its
   entry in the contents); the website's bibliography page, a heading and one sentence about where the entries live,
   is not printed in front of it. Its labels stay, so that a reference to the page lands on the bibliography.

8. **Running heads of the front matter.** The landing page prints after the table of contents under the head
   "About this book", not "Contents".

9. **The printed set, from one LaTeX build.** The book compiles once (`jupyter-book build . --builder pdflatex`) into
   one document laid out as

   - the **lecture notes**: front matter, notation, the five chapters (each opening with the addresses of its web page
     and of its Binder and Colab notebooks, its worked solutions on pages of their own at its end), bibliography and
     index;
   - the **problem sheets**: every exercise of a chapter with its hints, without solutions, one chapter a sheet;
   - the opening of the **tutor's booklet**: the lecture plan (`lecture_plan.md`);
   - the **reference**: the symbols of each chapter, the reproductions of the papers and the API reference (not in
     the printed contents).

   Each part, chapter and "Solutions" section writes the page it starts on to `<name>.cuts` (`\\solvablecut`). After
   latexmk, `python _ext/solvable_print.py _build/latex` (run by the LaTeX Makefile, see `PRINTED_SET`) cuts the
   compiled PDF into `_build/latex/printed/`: the lecture notes, one handout per chapter (the chapter with its
   exercises and hints: its problem sheet), the problem sheets, the tutor's booklet (the plan, then every worked
   solution, with the page numbers of the lecture notes) and the reference, with `printed-set.json` (file, title
   and page count of each). The website build publishes them (`_ext/solvable_site.py`) and the landing page lists
   them with their page counts.

10. **Index entries spell their symbols.** An index entry that names a symbol in words ("sample ratio alpha",
   "alpha_PR") prints the symbol ("sample ratio α", "α_PR" in math); its sort key stays the words.

11. **Printed code and output fit the text block.** Code and text output print one size smaller than the text
   (`\\footnotesize`, `fvset` in `_config.yml`), where a line of 93 characters fits; a block with a longer line prints
   in `\\scriptsize` (105 characters) or, beyond, in 6.5 pt (113 characters). A longer line would wrap with LaTeX's
   continuation mark, which `tests/test_pdf.py` refuses: such an output is printed on two lines by its chapter.

`tests/test_pdf.py` checks the PDF, its LaTeX log and the printed set.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform

PRINT_REMOVE_INPUT = "print-remove-input"
PRINT_REMOVE_CELL = "print-remove-cell"
CHAPTERS = "chapters/"  # docnames of the chapters, whose solutions move to their end
API = "api/"  # docnames of the API reference, whose index entries stay on the website
SOLUTIONS_TITLE = "Solutions"
SHORT_ANSWER_TITLE = (
    "Short answer"  # a derivation's answer to compare with (item 2): in print, the solution holds it
)
FIRST_NUMBERED_PAGE = "notation"  # the one page before the numbered chapters (item 6)
BIBLIOGRAPHY_PAGE = "bibliography"
FRONT_MATTER_HEAD = "About this book"
LECTURE_PLAN_PAGE = "lecture_plan"  # opens the tutor's booklet (item 9), out of the lecture notes
REFERENCE_PAGES = (
    "symbols",
    "reproductions/index",
    "api/index",
)  # the reference part (item 9), in this order
HINT_TITLE = re.compile(r"^Hint \d+$")
PROBLEM_SHEETS_TITLE = "Problem sheets"
TUTORS_BOOKLET_TITLE = "Tutor's booklet"
SHEETS_BEGIN, SHEETS_END = "%% solvable: problem sheets begin\n", "%% solvable: problem sheets end\n"

#: The printed set (item 9): file name -> title. Handouts are named after their chapter.
NOTES_PDF = "solvable-models-of-learning.pdf"
SHEETS_PDF = "solvable-models-of-learning-problem-sheets.pdf"
BOOKLET_PDF = "solvable-models-of-learning-tutors-booklet.pdf"
REFERENCE_PDF = "solvable-models-of-learning-reference.pdf"
PRINTED_DIR = "printed"
PRINTED_MANIFEST = "printed-set.json"


def handout_pdf(number: int) -> str:
    return f"solvable-models-of-learning-chapter-{number}.pdf"


def _latex_escape(text: str) -> str:
    for char, escaped in (
        ("\\", "\\textbackslash{}"),
        ("&", "\\&"),
        ("%", "\\%"),
        ("$", "\\$"),
        ("#", "\\#"),
        ("_", "\\_"),
        ("{", "\\{"),
        ("}", "\\}"),
        ("~", "\\textasciitilde{}"),
        ("^", "\\textasciicircum{}"),
    ):
        text = text.replace(char, escaped)
    return text


def website(config) -> str:
    """The website's address (html.baseurl in _config.yml), ending with a slash."""
    base = (config.html_baseurl or "").rstrip("/")
    if not base:
        raise ExtensionError(
            "html.baseurl in _config.yml is empty: the printed set prints the website's address"
        )
    return base + "/"


def chapter_links(config, docname: str) -> dict[str, str]:
    """Where a chapter is read and run: its web page, and its reader notebook on Binder and on Colab (the launch
    buttons of the website, see _ext/solvable_site.py)."""
    options = config.html_theme_options
    repo = options["repository_url"].rstrip("/").removeprefix("https://github.com/")
    branch = options.get("repository_branch", "main")
    launch = options.get("launch_buttons", {})
    notebook = f"notebooks/{docname.rsplit('/', 1)[-1]}.ipynb"
    lab = "lab/tree" if launch.get("notebook_interface") == "jupyterlab" else "tree"
    binder = launch.get("binderhub_url", "https://mybinder.org").rstrip("/")
    colab = launch.get("colab_url", "https://colab.research.google.com").rstrip("/")
    return {
        "On the website": f"{website(config)}{docname}.html",
        "On Binder": f"{binder}/v2/gh/{repo}/{branch}?urlpath={lab}/{notebook}",
        "On Colab": f"{colab}/github/{repo}/blob/{branch}/{notebook}",
    }


def _tagged(node: nodes.Element, tag: str) -> bool:
    return f"tag_{tag}" in node.get("classes", [])


class ApiNotesInPlace(SphinxPostTransform):
    """Item 3 of the module docstring: before Sphinx gathers every citation into the bibliography (priority 750)."""

    builders = ("latex",)
    default_priority = 700

    def run(self, **kwargs) -> None:
        for page in list(self.document.findall(addnodes.start_of_file)):
            if not page.get("docname", "").startswith(API):
                continue
            for reference in list(page.findall(nodes.citation_reference)):
                text = reference.astext()  # "[1]" (_ext/solvable_api.py numbers them), or a bare label
                reference.parent.replace(reference, nodes.Text(text if text.startswith("[") else f"[{text}]"))
            for citation in list(page.findall(nodes.citation)):
                label, *body = citation.children
                note = nodes.container("", ids=citation["ids"], classes=["solvable-api-note"])
                if body and isinstance(body[0], nodes.paragraph):
                    first = body.pop(0)
                    note += nodes.paragraph("", "", nodes.Text(f"[{label.astext()}] "), *first.children)
                else:
                    note += nodes.paragraph("", f"[{label.astext()}]")
                for part in body:
                    note += part.deepcopy()
                citation.parent.replace(citation, note)


class PrintEdition(SphinxPostTransform):
    """Items 1, 2 and 4 of the module docstring, on the assembled book of the LaTeX builder."""

    builders = ("latex",)
    default_priority = 900  # after sphinx-exercise's titles and references (5-22)

    def run(self, **kwargs) -> None:
        for cell in list(self.document.findall(nodes.container)):
            if cell.get("nb_element") != "cell_code":
                continue
            if _tagged(cell, PRINT_REMOVE_CELL):
                cell.parent.remove(cell)
            elif _tagged(cell, PRINT_REMOVE_INPUT):
                for part in list(cell.children):
                    if isinstance(part, nodes.Element) and part.get("nb_element") == "cell_code_source":
                        cell.remove(part)
        for box in list(self.document.findall(nodes.admonition)):
            title = next(iter(box.findall(nodes.title)), None)
            if title is not None and title.astext().strip() == SHORT_ANSWER_TITLE:
                box.parent.remove(box)
        sheets = []
        for page in list(self.document.findall(addnodes.start_of_file)):
            docname = page.get("docname", "")
            if docname.startswith(CHAPTERS):
                sheets.append(self._problem_sheet(page, docname))
                self._launch_box(page, docname)
                self._solutions_last(page, docname)
            elif docname.startswith(API):
                for entry in list(page.findall(addnodes.index)):
                    entry.parent.remove(entry)
        sheets = [sheet for sheet in sheets if sheet is not None]
        if sheets:
            self.document += nodes.raw("", SHEETS_BEGIN, format="latex")
            for sheet in sheets:
                self.document += sheet
            self.document += nodes.raw("", SHEETS_END, format="latex")

    def _chapter_number(self, docname: str) -> str:
        numbers = self.env.toc_secnumbers.get(docname, {}).get("", ())
        return ".".join(map(str, numbers))

    def _launch_box(self, page: nodes.Element, docname: str) -> None:
        """The chapter's first page prints where to read and run it (item 9): its web page, Binder and Colab."""
        chapter = next(iter(page.findall(nodes.section)), None)
        if chapter is None:
            return
        links = chapter_links(self.config, docname)
        lines = nodes.line_block("", classes=["solvable-launch"])
        for name, url in links.items():
            lines += nodes.line("", "", nodes.strong("", f"{name}: "), nodes.reference(url, url, refuri=url))
        at = chapter.index(chapter.next_node(nodes.title)) + 1
        chapter.insert(
            at, nodes.raw("", f"\\solvablecut{{chapter:{docname}}}\\begingroup\\small\n", format="latex")
        )
        chapter.insert(at + 1, lines)
        chapter.insert(at + 2, nodes.raw("", "\\endgroup\n", format="latex"))

    def _problem_sheet(self, page: nodes.Element, docname: str) -> nodes.Element | None:
        """The chapter's exercises with their hints, without solutions, as a section of the problem sheets (item 9).

        Copies: their labels, targets and index entries stay with the chapter's own exercises (one LaTeX label each).
        """
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

        chapter = next(iter(page.findall(nodes.section)), None)
        if chapter is None:
            return None
        boxes = []
        for exercise in page.findall(lambda n: isinstance(n, (exercise_enumerable_node, exercise_node))):
            title = next(iter(exercise.findall(nodes.title)), None)
            box = nodes.admonition("", classes=["solvable-sheet-exercise"])
            box += nodes.title("", "", *[child.deepcopy() for child in (title.children if title else [])])
            for child in exercise.children:
                if not isinstance(child, nodes.title):
                    box += child.deepcopy()
            boxes.append(box)
            sibling = exercise.next_node(descend=False, siblings=True)
            while isinstance(sibling, nodes.admonition) and HINT_TITLE.match(
                next(iter(sibling.findall(nodes.title)), nodes.title()).astext().strip()
            ):
                boxes.append(sibling.deepcopy())
                sibling = sibling.next_node(descend=False, siblings=True)
        if not boxes:
            return None
        heading = chapter.next_node(nodes.title).astext()
        number = self._chapter_number(docname)
        # in the chapter's own file context: its references resolve to the chapter's labels in LaTeX
        section = addnodes.start_of_file(docname=docname)
        title = f"Problem sheet {number}: {heading}" if number else f"Problem sheet: {heading}"
        tex_title = _latex_escape(title)
        section += nodes.raw(
            "",
            f"\\chapter*{{{tex_title}}}\\solvablecut{{sheet:{docname}}}"
            f"\\pdfbookmark[0]{{{tex_title}}}{{sheet:{docname}}}"
            f"\\markboth{{{tex_title}}}{{{tex_title}}}\n",
            format="latex",
        )
        url = chapter_links(self.config, docname)["On the website"]
        section += nodes.paragraph(
            "",
            "",
            nodes.Text(f"Chapter {number} of the lecture notes, online at "),
            nodes.reference(url, url, refuri=url),
            nodes.Text("."),
        )
        for box in boxes:
            for node in list(box.findall(lambda n: isinstance(n, (addnodes.index, nodes.target)))):
                node.parent.remove(node)
            for node in box.findall(nodes.Element):
                node["ids"] = []
                if isinstance(node, nodes.math_block):
                    node["label"] = None
                    node["number"] = None
            section += box
        return section

    def _solutions_last(self, page: nodes.Element, docname: str) -> None:
        from sphinx_exercise.nodes import solution_node

        solutions = list(page.findall(solution_node))
        chapter = next(iter(page.findall(nodes.section)), None)
        if not solutions or chapter is None:
            return
        slug = docname.replace("/", "-")
        section = nodes.section("", ids=[f"{slug}-print-solutions"], names=[f"{slug} print solutions"])
        section += nodes.title("", SOLUTIONS_TITLE)
        for solution in solutions:
            solution.parent.remove(solution)
            section += self._plain(solution)
        # On pages of their own: the handout ends before them, the tutor's booklet gathers them (item 9).
        chapter += nodes.raw("", f"\\clearpage\\solvablecut{{solutions:{docname}}}\n", format="latex")
        chapter += section

    @staticmethod
    def _plain(solution: nodes.Element) -> nodes.Element:
        """A solution as its title in bold and its body: no framed box, which cannot break a long listing across
        pages."""
        block = nodes.container("", ids=list(solution["ids"]), classes=["solvable-solution"])
        for child in solution.children:
            if isinstance(child, nodes.title):
                block += nodes.paragraph(
                    "", "", nodes.strong("", "", *[c.deepcopy() for c in child.children])
                )
            elif not isinstance(child, nodes.subtitle):
                block += child.deepcopy()
        return block


def _cut_page(text: str, docname: str, tex_name: str) -> tuple[int, int]:
    """Start (its \\chapter) and end (the next \\chapter or environment at top level) of a page in the .tex."""
    label = f"\\label{{\\detokenize{{{docname}::doc}}}}"
    at = text.find(label)
    start = text.rfind("\\chapter{", 0, at) if at >= 0 else -1
    if start < 0:
        raise ExtensionError(f"{tex_name}: no \\chapter for the page {docname} (see _ext/solvable_print.py)")
    return start, at + len(label)


def edit_tex(app: Sphinx, exception: Exception | None) -> None:
    """Items 5-8 of the module docstring, on the generated .tex, before latexmk runs."""
    if exception is not None or app.builder.name != "latex":
        return
    registry = getattr(app.env, "sphinx_exercise_registry", {})
    for tex in Path(app.outdir).glob("*.tex"):
        text = tex.read_text(encoding="utf-8")
        for label, entry in registry.items():
            text = text.replace(
                f"\\label{{exercise:{label}}}",
                f"\\label{{exercise:{label}}}\\label{{\\detokenize{{{entry['docname']}:{label}}}}}",
            )
        text = _exercise_numbers(text)
        text = _unnumbered_notation(text, tex.name)
        text = _one_bibliography_chapter(text, tex.name)
        intro = "\\label{\\detokenize{intro::doc}}"
        text = text.replace(intro, f"{intro}\\markboth{{{FRONT_MATTER_HEAD}}}{{{FRONT_MATTER_HEAD}}}", 1)
        text = _index_symbols(text)
        text = _printed_set_layout(text, tex.name)
        text = _fit_verbatim(text)
        tex.write_text(text, encoding="utf-8")
    _cut_after_latexmk(Path(app.outdir))


#: Item 11: the longest line (characters) of a code or output block that fits the text block at each size, and the
#: size that prints it (measured on the A4 page with 0.85 in margins: FreeMono at 8 pt holds 93 characters).
VERBATIM_SIZES = ((93, None), (105, r"\scriptsize"), (113, r"\fontsize{6.5}{7.5}\selectfont"))
_VERBATIM = re.compile(r"\\begin\{sphinxVerbatim\}(\[[^\]\n]*\])?\n(.*?)\\end\{sphinxVerbatim\}", re.S)
_PYGMENTS_OPEN = re.compile(r"\\PYG\{[^}]*\}\{")
_ONE_CHARACTER = re.compile(
    r"\\(?:PYGZ\w+|sphinxhyphen|textbackslash|textasciitilde|textasciicircum)\{\}|\\[{}%$&#_ ]"
)


def verbatim_width(line: str) -> int:
    """The printed width, in characters, of one line of a sphinxVerbatim block (Pygments and escapes decoded)."""
    line = _PYGMENTS_OPEN.sub("", line)
    line = _ONE_CHARACTER.sub("x", line)
    return len(line.replace("{", "").replace("}", ""))


def _fit_verbatim(text: str) -> str:
    """Item 11: a block whose longest line is too wide at the code size prints one or two sizes smaller."""

    def fit(match: re.Match) -> str:
        widest = max(verbatim_width(line) for line in match.group(2).split("\n"))
        for limit, size in VERBATIM_SIZES:
            if widest <= limit:
                break
        if size is None:
            return match.group(0)
        return f"\\begingroup\\fvset{{fontsize={size}}}%\n{match.group(0)}\n\\endgroup\n"

    return _VERBATIM.sub(fit, text)


#: Item 10: symbols that index entries name in words, and how they print.
INDEX_SYMBOLS = {
    r"alpha\\_PR": r"\(\alpha_{\rm PR}\)",
    r"alpha\\_cvx": r"\(\alpha_{\rm cvx}\)",
    r"alpha\\_IT": r"\(\alpha_{\rm IT}\)",
    r"alpha\\_alg": r"\(\alpha_{\rm alg}\)",
    "alpha": r"\(\alpha\)",
    "beta": r"\(\beta\)",
    "kappa": r"\(\kappa\)",
    "rho": r"\(\rho\)",
    "Delta": r"\(\Delta\)",
    "lambda": r"\(\lambda\)",
    "sigma": r"\(\sigma\)",
    "gamma": r"\(\gamma\)",
}
_INDEX_WORD = re.compile(
    r"(?<![A-Za-z\\])(" + "|".join(sorted(INDEX_SYMBOLS, key=len, reverse=True)) + r")(?![A-Za-z])"
)


def _index_symbols(text: str) -> str:
    """Item 10: in the printed form (\\spxentry, \\spxextra) of every \\index entry, symbols instead of their names."""

    def entry(match: re.Match) -> str:
        return (
            match.group(1)
            + _INDEX_WORD.sub(lambda m: INDEX_SYMBOLS[m.group(1).replace("\\", "\\\\")], match.group(2))
            + "}"
        )

    def index(match: re.Match) -> str:
        return re.sub(r"(\\spx(?:entry|extra)\{)((?:[^{}]|\{\})*)\}", entry, match.group(0))

    return re.sub(r"\\index\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}", index, text)


CUTS_PREAMBLE = r"""
% The printed set (_ext/solvable_print.py, item 9): the page each part starts on, for the cutter.
\newwrite\solvablecuts\immediate\openout\solvablecuts=\jobname.cuts
\newcommand{\solvablecut}[1]{\write\solvablecuts{#1 \the\ReadonlyShipoutCounter}}
"""


def _chunk(text: str, docname: str, tex_name: str, end_docname: str | None = None) -> tuple[int, int]:
    """Start and end in the .tex of a page (with the pages nested in it), up to the next page of its level or above,
    or up to the page `end_docname` (exclusive) when given."""
    start, labels_end = _cut_page(text, docname, tex_name)
    if end_docname is not None:
        end = _cut_page(text, end_docname, tex_name)[0]
    else:
        found = re.search(
            r"^\\chapter\*?\{|^\\begin\{sphinxthebibliography\}", text[labels_end:], re.MULTILINE
        )
        end = labels_end + found.start() if found else len(text)
    return start, end


def _printed_set_layout(text: str, tex_name: str) -> str:
    """Item 9: lecture notes (to the index), problem sheets, the lecture plan, the reference; the cut marks."""
    if "\\begin{document}" not in text or "\\printindex" not in text:
        raise ExtensionError(
            f"{tex_name}: no \\begin{{document}} or \\printindex (see _ext/solvable_print.py)"
        )
    text = text.replace("\\begin{document}", "\\begin{document}" + CUTS_PREAMBLE, 1)
    sheets = ""
    if SHEETS_BEGIN in text:
        begin, end = text.index(SHEETS_BEGIN), text.index(SHEETS_END) + len(SHEETS_END)
        sheets, text = text[begin:end], text[:begin] + text[end:]
    moved = []
    for first, last in ((LECTURE_PLAN_PAGE, None), *((page, None) for page in REFERENCE_PAGES)):
        if f"\\detokenize{{{first}::doc}}" not in text:
            moved.append("")
            continue
        start, end = _chunk(text, first, tex_name, last)
        chunk, text = text[start:end], text[:start] + text[end:]
        label = f"\\label{{\\detokenize{{{first}::doc}}}}"
        chunk = chunk.replace(label, f"{label}\\solvablecut{{page:{first}}}", 1)
        moved.append(chunk)
    plan, *reference = moved
    if plan:  # unnumbered: it opens the tutor's booklet
        heading_end = plan.index("}", plan.index("\\chapter{")) + 1
        title = plan[len("\\chapter{") : heading_end - 1]
        plan = (
            f"\\chapter*{{{title}}}\\pdfbookmark[0]{{{title}}}{{lecture-plan}}\\markboth{{{title}}}{{{title}}}"
            + plan[heading_end:]
            .replace("\\section{", "\\section*{")
            .replace("\\subsection{", "\\subsection*{")
        )
    bibliography = text.index("\\begin{sphinxthebibliography}")
    opening_end = text.index("\n", bibliography) + 1
    text = text[:opening_end] + "\\solvablecut{bibliography}\n" + text[opening_end:]
    index = text.rindex("\\printindex")
    after_index = index + len("\\printindex")
    rest = (  # after the lecture notes: not in their printed contents
        "\n\\clearpage\\addtocontents{toc}{\\protect\\setcounter{tocdepth}{-1}}\n"
        + sheets.replace(SHEETS_BEGIN, "").replace(SHEETS_END, "")
        + "\n\\clearpage\n"
        + plan
        + "\n\\clearpage\n"
        + "".join(reference)
    )
    return text[:after_index] + rest + text[after_index:]


PRINTED_SET = """
# The printed set (_ext/solvable_print.py, item 9): cut the compiled PDF into the lecture notes, the handouts, the
# problem sheets, the tutor's booklet and the reference, once latexmk has made it.
all-pdf: solvable-printed-set
solvable-printed-set: $(ALLPDF)
\t"{python}" "{script}" .
.PHONY: solvable-printed-set
"""


def _cut_after_latexmk(outdir: Path) -> None:
    makefile = outdir / "Makefile"
    if makefile.is_file() and "solvable-printed-set" not in makefile.read_text(encoding="utf-8"):
        with makefile.open("a", encoding="utf-8") as handle:
            handle.write(PRINTED_SET.format(python=sys.executable, script=Path(__file__).resolve()))


_EXERCISE_LABEL = re.compile(
    r"\\label\{exercise:([^}]+)\}[^\n]*\n\s*\\begin\{sphinxadmonition\}\{note\}\{Exercise (\d+\.\d+)"
)


def _exercise_numbers(text: str) -> str:
    """Item 5: a `{ref}` to an exercise prints "Exercise \\ref{<docname>:<label>}", and \\ref gives the number of
    the section the label sits in ("Exercise 1.9" for Exercise 1.4 in Sec. 1.9): print the exercise's own number."""
    numbers = dict(_EXERCISE_LABEL.findall(text))

    def number(match: re.Match) -> str:
        return f"Exercise {numbers[match.group(2)]}" if match.group(2) in numbers else match.group(0)

    return re.sub(r"Exercise \\ref\{\\detokenize\{([^:}]+):([^}]+)\}\}", number, text)


def _unnumbered_notation(text: str, tex_name: str) -> str:
    start, labels_end = _cut_page(text, FIRST_NUMBERED_PAGE, tex_name)
    end = text.find("\\chapter{", labels_end)
    heading_end = text.find("}", start) + 1  # titles of this page hold no braces
    title = text[start + len("\\chapter{") : heading_end - 1]
    body = (
        text[heading_end:end].replace("\\section{", "\\section*{").replace("\\subsection{", "\\subsection*{")
    )
    heading = (
        f"\\chapter*{{{title}}}\\addcontentsline{{toc}}{{chapter}}{{{title}}}\\markboth{{{title}}}{{{title}}}"
    )
    return text[:start] + heading + body + text[end:]


def _one_bibliography_chapter(text: str, tex_name: str) -> str:
    start, labels_end = _cut_page(text, BIBLIOGRAPHY_PAGE, tex_name)
    begin = text.find("\\begin{sphinxthebibliography}", labels_end)
    if begin < 0:
        raise ExtensionError(
            f"{tex_name}: the bibliography page holds no bibliography (see _ext/solvable_print.py)"
        )
    opening_end = text.find("\n", begin) + 1
    labels = text[text.find("\\label{", start) : labels_end]
    return text[:start] + text[begin:opening_end] + labels + "\n" + text[opening_end:]


def read_cuts(path: Path) -> dict[str, int]:
    """The page (1-based) each part of the compiled document starts on, from its `.cuts` file (item 9)."""
    cuts = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, page = line.strip().rpartition(" ")
        if name:
            cuts[name] = int(page)
    return cuts


def printed_set_ranges(cuts: dict[str, int], n_pages: int) -> dict[str, dict]:
    """File name -> {"title", "kind", "ranges": [(first, last), ...] (1-based, inclusive)} of the printed set."""
    chapters = sorted(
        (page, name.split(":", 1)[1]) for name, page in cuts.items() if name.startswith("chapter:")
    )
    sheets = sorted(page for name, page in cuts.items() if name.startswith("sheet:"))
    plan = cuts.get(f"page:{LECTURE_PLAN_PAGE}")
    reference = next((cuts[f"page:{page}"] for page in REFERENCE_PAGES if f"page:{page}" in cuts), None)
    if not chapters or "bibliography" not in cuts:
        raise ValueError(f"the cut marks name no chapter or no bibliography: {sorted(cuts)}")
    after_notes = min([page for page in (*sheets[:1], plan, reference) if page] or [n_pages + 1])
    after_sheets = min([page for page in (plan, reference) if page] or [n_pages + 1])
    out = {NOTES_PDF: {"title": "Lecture notes", "kind": "notes", "ranges": [(1, after_notes - 1)]}}
    solutions = []
    for k, (start, docname) in enumerate(chapters):
        following = chapters[k + 1][0] if k + 1 < len(chapters) else cuts["bibliography"]
        answers = cuts.get(f"solutions:{docname}")
        out[handout_pdf(k + 1)] = {
            "title": f"Chapter {k + 1}: handout",
            "kind": "handout",
            "docname": docname,
            "ranges": [(start, (answers or following) - 1)],
        }
        if answers:
            solutions.append((answers, following - 1))
    if sheets:
        out[SHEETS_PDF] = {
            "title": PROBLEM_SHEETS_TITLE,
            "kind": "sheets",
            "ranges": [(sheets[0], after_sheets - 1)],
        }
    booklet = ([(plan, (reference or n_pages + 1) - 1)] if plan else []) + solutions
    if booklet:
        out[BOOKLET_PDF] = {"title": TUTORS_BOOKLET_TITLE, "kind": "booklet", "ranges": booklet}
    if reference:
        out[REFERENCE_PDF] = {
            "title": "Symbols, reproductions and API reference",
            "kind": "reference",
            "ranges": [(reference, n_pages)],
        }
    for name, part in out.items():
        part["pages"] = sum(last - first + 1 for first, last in part["ranges"])
        if any(last < first for first, last in part["ranges"]) or not part["pages"]:
            raise ValueError(f"{name}: empty page range {part['ranges']}")
    return out


def cut_printed_set(latex_dir: Path) -> dict[str, dict]:
    """Cut each compiled PDF of `latex_dir` that has cut marks into the printed set, in `latex_dir/printed/`."""
    from pypdf import PdfReader, PdfWriter

    manifest = {}
    for cuts_file in sorted(Path(latex_dir).glob("*.cuts")):
        pdf = cuts_file.with_suffix(".pdf")
        reader = PdfReader(pdf)
        parts = printed_set_ranges(read_cuts(cuts_file), len(reader.pages))
        target = pdf.parent / PRINTED_DIR
        target.mkdir(exist_ok=True)
        book_title = (reader.metadata or {}).get("/Title") or pdf.stem
        for name, part in parts.items():
            writer = PdfWriter()
            for first, last in part["ranges"]:
                writer.append(reader, pages=(first - 1, last))
            writer.add_metadata({"/Title": f"{book_title}: {part['title']}"})
            with open(target / name, "wb") as handle:
                writer.write(handle)
            print(
                f"{PRINTED_DIR}/{name}: {part['title']}, {part['pages']} pages (of {pdf.name}: {part['ranges']})"
            )
        manifest.update(parts)
        (target / PRINTED_MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def setup(app: Sphinx) -> dict:
    app.add_post_transform(ApiNotesInPlace)
    app.add_post_transform(PrintEdition)
    app.connect("build-finished", edit_tex)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # python _ext/solvable_print.py _build/latex (the LaTeX Makefile runs it: item 9)
    cut_printed_set(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
