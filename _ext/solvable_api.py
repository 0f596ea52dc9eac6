"""Sphinx extension of the book's API reference (api/*.md; loaded through `sphinx.local_extensions` in `_config.yml`).

numpydoc renders the sections of a function's or a class's docstring ("Parameters", "Notes", "References", ...) as
rubrics, but leaves a module's docstring to plain reStructuredText, where the same underlined heading is a section
title: every module with a "References" section would add a "References" heading to the page's table of contents
and a duplicate implicit label "references" (a warning, so an error under -W). This extension turns the numpydoc
section headings of a module docstring into rubrics too, so that module docstrings can use the same sections as the
functions.

The citations of a module docstring's "References" (``.. [1] ...``), which numpydoc renames per docstring but,
in a module, does not cite, are cited the way numpydoc cites those of a function (in the LaTeX output only);
otherwise each is "not referenced" (a warning).

Two repairs of what the docstrings print (tests/test_site.py and tests/test_pdf.py check both):

- **Citation labels as numbers.** numpydoc renames a docstring's citations ``[1]``, ``[2]`` to labels unique on the
  page (``R9e44b4dfe036-1``), and the page printed those: "[R9e44b4dfe036-1]" on the website, "[[R9e44b4dfe036-1]]"
  in the PDF. The label stays the link target; what a reader sees is "[1]", under the function as in its docstring.
- **Equation labels as numbers.** A docstring names the book's equation it implements by its label (``eq-gamp``);
  the label, written in code font or in plain text, becomes a reference to the equation, printed as its number
  "(1.7)" and linked to it (Sphinx's ``:eq:`` role). A label that no chapter defines is left as it is (the tests
  list what is left).
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

#: The section names of the numpydoc standard (numpydoc.docscrape.NumpyDocString.sections).
SECTIONS = (
    "Parameters",
    "Returns",
    "Yields",
    "Receives",
    "Raises",
    "Warns",
    "Other Parameters",
    "Attributes",
    "Methods",
    "See Also",
    "Notes",
    "Warnings",
    "References",
    "Examples",
    "Summary",
    "Extended Summary",
)
UNDERLINE = re.compile(r"^-{3,}\s*$")


def module_sections_as_rubrics(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    """In a module docstring, replace ``Name`` + ``----`` (a numpydoc section heading) by ``.. rubric:: Name``."""
    if what != "module":
        return
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() in SECTIONS and i + 1 < len(lines) and UNDERLINE.match(lines[i + 1]):
            out += [f".. rubric:: {line.strip()}", ""]
            i += 2
            continue
        out.append(line)
        i += 1
    lines[:] = out


CITATION = re.compile(r"^\s*\.\. \[([^\]]+)\]")


def cite_module_references(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    """Cite the citations of a module docstring in LaTeX, as numpydoc does in a function's References section."""
    if what != "module":
        return
    labels = [m.group(1) for m in map(CITATION.match, lines) if m]
    if not labels:
        return
    block = ["", ".. only:: latex", "", "   " + ", ".join(f"[{label}]_" for label in labels), ""]
    # Before numpydoc's closing comment (its deduplication tag), which must stay the last node.
    at = len(lines) - 2 if len(lines) >= 2 and lines[-2] == ".." else len(lines)
    lines[at:at] = block


NUMPYDOC_LABEL = re.compile(r"^R[0-9a-f]+-(\d+)$")


def citation_numbers(app: Sphinx, doctree: nodes.document) -> None:
    """A numpydoc citation of the API pages shows its number ("[1]"), not its page-unique label (module docstring).

    After numpydoc's own relabelling (doctree-read, priority 500), which renames the citations but misses the
    references: Sphinx has wrapped each in a pending_xref holding the text "[label]".
    """
    if not app.env.docname.startswith(API):
        return
    for ref in doctree.findall(addnodes.pending_xref):
        match = NUMPYDOC_LABEL.match(ref.get("reftarget", ""))
        if ref.get("refdomain") == "citation" and match:
            ref.children = []
            ref += nodes.inline("", f"[{match.group(1)}]")
    for citation in doctree.findall(nodes.citation):
        label = next(iter(citation.findall(nodes.label)), None)
        match = NUMPYDOC_LABEL.match(label.astext()) if label is not None else None
        if match:
            label.children = []
            label += nodes.Text(match.group(1))


API = "api/"
#: An equation label of the book in a docstring: ``eq-gamp``, (eq-gamp), (``eq-gamp``) or eq-gamp in the text.
EQ_LABEL = re.compile(
    r"\(\s*(``)?(eq-[a-z0-9]+(?:-[a-z0-9]+)*)(``)?\s*\)|``(eq-[a-z0-9]+(?:-[a-z0-9]+)*)``|"
    r"(?<![\w`-])(eq-[a-z0-9]+(?:-[a-z0-9]+)*)(?![\w`-])"
)


def equation_labels_as_references(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    """Turn the book's equation labels named in a docstring into ``:eq:`` references (module docstring).

    Only in the text: lines of a literal block (indented under a paragraph ending with ``::``) and of doctest
    examples are left alone. The label must be defined by a page of the book (Sphinx's math domain), which is only
    known once every page is read: a label no chapter defines is left as text.
    """
    known = _book_equation_labels(app)
    block_indent = None  # indentation of the paragraph that opened a literal block, while inside it
    for i, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not stripped or indent > block_indent:
                continue
            block_indent = None
        if stripped.startswith(">>>"):
            continue

        def replace(match: re.Match) -> str:
            label = match.group(2) or match.group(4) or match.group(5)
            return f":eq:`{label}`" if label in known else match.group(0)

        lines[i] = EQ_LABEL.sub(replace, line)
        if stripped.endswith("::"):
            block_indent = indent


LABEL_IN_SOURCE = re.compile(r"\$\$\s*\((eq-[a-z0-9-]+)\)|:label:\s*(eq-[a-z0-9-]+)")


def _book_equation_labels(app: Sphinx) -> set[str]:
    """Every labelled equation of the book's pages: read from their sources once (autodoc runs before the chapters
    are read, so Sphinx's math domain does not know them yet)."""
    cached = getattr(app, "_solvable_equation_labels", None)
    if cached is None:
        from pathlib import Path

        cached = set()
        srcdir = Path(app.srcdir)
        for path in [
            *srcdir.glob("chapters/*.ipynb"),
            *srcdir.glob("*.md"),
            *srcdir.glob("reproductions/**/*.md"),
        ]:
            for dollars, directive in LABEL_IN_SOURCE.findall(path.read_text(encoding="utf-8")):
                cached.add(dollars or directive)
        app._solvable_equation_labels = cached
    return cached


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", module_sections_as_rubrics)
    # After numpydoc's handler (priority 500), so that the alias replaces what numpydoc made of the docstring.
    app.connect("autodoc-process-docstring", cite_module_references, priority=900)
    app.connect("autodoc-process-docstring", equation_labels_as_references, priority=950)
    app.connect("doctree-read", citation_numbers, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
