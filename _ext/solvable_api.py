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

It also documents a name once, in the module that defines it: a module that re-exports a function or class of another
module of the package in its ``__all__`` (``glm.erm_gen_error`` is ``erm.erm_gen_error``) shows it with its signature
and a link to the defining module's entry, instead of a second copy of its docstring, whose short cross-references
(``:func:`erm_state_evolution```) would be resolved in the wrong module (a broken reference under -n). Both names
stay link targets.
"""

from __future__ import annotations

import re
import sys

from sphinx.application import Sphinx

#: The section names of the numpydoc standard (numpydoc.docscrape.NumpyDocString.sections).
SECTIONS = (
    "Parameters", "Returns", "Yields", "Receives", "Raises", "Warns", "Other Parameters", "Attributes", "Methods",
    "See Also", "Notes", "Warnings", "References", "Examples", "Summary", "Extended Summary",
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


def alias_reexports(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    """Replace the docstring of a re-exported function or class by a link to where it is defined."""
    if what not in ("function", "class", "exception"):
        return
    parent = name.rpartition(".")[0]
    defined_in = getattr(obj, "__module__", None)
    if parent not in sys.modules or not isinstance(defined_in, str) or not defined_in.startswith("solvable."):
        return  # a method or attribute of a class, or an object from outside the package
    if defined_in != parent:
        role = "func" if what == "function" else "class"
        lines[:] = [f"Re-exported from :mod:`{defined_in}`: see :{role}:`{defined_in}.{obj.__qualname__}`.", ""]


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", module_sections_as_rubrics)
    # After numpydoc's handler (priority 500), so that the alias replaces what numpydoc made of the docstring.
    app.connect("autodoc-process-docstring", alias_reexports, priority=900)
    app.connect("autodoc-process-docstring", cite_module_references, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
