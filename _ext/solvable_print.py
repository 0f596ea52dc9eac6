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
   The second label is added next to the first.

6. **Chapter numbers are the website's.** The website numbers only the "Chapters" part of `_toc.yml`; in LaTeX every
   page after the landing page is a chapter. The notation page becomes an unnumbered chapter (with unnumbered
   sections), so that chapter k of the site is chapter k of the PDF.

7. **One bibliography chapter.** LaTeX's bibliography environment opens its own chapter "Bibliography" (with its
   entry in the contents); the website's bibliography page, a heading and one sentence about where the entries live,
   is not printed in front of it. Its labels stay, so that a reference to the page lands on the bibliography.

8. **Running heads of the front matter.** The landing page prints after the table of contents under the head
   "About this book", not "Contents".

`tests/test_pdf.py` checks the PDF and its LaTeX log.
"""

from __future__ import annotations

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
SHORT_ANSWER_TITLE = "Short answer"  # a derivation's answer to compare with (item 2): in print, the solution holds it
FIRST_NUMBERED_PAGE = "notation"  # the one page before the numbered chapters (item 6)
BIBLIOGRAPHY_PAGE = "bibliography"
FRONT_MATTER_HEAD = "About this book"


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
                reference.parent.replace(reference, nodes.Text(f"[{reference.astext()}]"))
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
        for page in list(self.document.findall(addnodes.start_of_file)):
            docname = page.get("docname", "")
            if docname.startswith(CHAPTERS):
                self._solutions_last(page, docname)
            elif docname.startswith(API):
                for entry in list(page.findall(addnodes.index)):
                    entry.parent.remove(entry)

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
        chapter += section

    @staticmethod
    def _plain(solution: nodes.Element) -> nodes.Element:
        """A solution as its title in bold and its body: no framed box, which cannot break a long listing across
        pages."""
        block = nodes.container("", ids=list(solution["ids"]), classes=["solvable-solution"])
        for child in solution.children:
            if isinstance(child, nodes.title):
                block += nodes.paragraph("", "", nodes.strong("", "", *[c.deepcopy() for c in child.children]))
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
        text = _unnumbered_notation(text, tex.name)
        text = _one_bibliography_chapter(text, tex.name)
        intro = "\\label{\\detokenize{intro::doc}}"
        text = text.replace(intro, f"{intro}\\markboth{{{FRONT_MATTER_HEAD}}}{{{FRONT_MATTER_HEAD}}}", 1)
        tex.write_text(text, encoding="utf-8")


def _unnumbered_notation(text: str, tex_name: str) -> str:
    start, labels_end = _cut_page(text, FIRST_NUMBERED_PAGE, tex_name)
    end = text.find("\\chapter{", labels_end)
    heading_end = text.find("}", start) + 1  # titles of this page hold no braces
    title = text[start + len("\\chapter{"):heading_end - 1]
    body = text[heading_end:end].replace("\\section{", "\\section*{").replace("\\subsection{", "\\subsection*{")
    heading = (f"\\chapter*{{{title}}}\\addcontentsline{{toc}}{{chapter}}{{{title}}}"
               f"\\markboth{{{title}}}{{{title}}}")
    return text[:start] + heading + body + text[end:]


def _one_bibliography_chapter(text: str, tex_name: str) -> str:
    start, labels_end = _cut_page(text, BIBLIOGRAPHY_PAGE, tex_name)
    begin = text.find("\\begin{sphinxthebibliography}", labels_end)
    if begin < 0:
        raise ExtensionError(f"{tex_name}: the bibliography page holds no bibliography (see _ext/solvable_print.py)")
    opening_end = text.find("\n", begin) + 1
    labels = text[text.find("\\label{", start):labels_end]
    return text[:start] + text[begin:opening_end] + labels + "\n" + text[opening_end:]


def setup(app: Sphinx) -> dict:
    app.add_post_transform(ApiNotesInPlace)
    app.add_post_transform(PrintEdition)
    app.connect("build-finished", edit_tex)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
