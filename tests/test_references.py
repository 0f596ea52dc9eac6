"""References the build checks, never numbers typed by hand.

A sentence that says a chapter, section, figure, exercise or equation shows something points at it with a MyST
reference (a link to the chapter's notebook, ``{numref}``, ``{ref}``, ``{eq}``): the book is built with ``-W -n``
(tests/test_book.py), so a reference whose target is gone fails the build, where a typed "Figure 3.2" would silently
point at the wrong figure once the chapter changes. These tests find typed numbers in the chapters' prose and
captions, and equation labels in the library's docstrings that no chapter defines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))

#: A typed number: "chapter 2", "Sec. 2.6", "Figure 3.1", "Exercise 1.4", "Eq. (12)".
TYPED = re.compile(
    r"\b(?:[Cc]hapters?|[Ss]ec(?:tion)?s?\.?|[Ff]ig(?:ure)?s?\.?|[Ee]xercises?|[Ee]q(?:uation)?s?\.?)"
    r"\s+\(?\d"
)
#: What is not prose of ours: code, math, roles with their targets, link targets, and a paper's own numbering
#: ("Fig. 2 of {cite:t}`key`", "their Sec. 6").
NOT_PROSE = re.compile(
    r"```.*?```|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)"
    r"|\[[^\]\n]*\]\([^)]*\)"  # a link's text is checked by the build
    r"|\b(?:[Ff]ig(?:ure)?s?|[Ss]ec(?:tion)?s?|[Ee]q(?:uation)?s?|[Tt]able)\.?\s+[\d.,\s()a-z-]*?\s+of\b"
    r"|\btheir\s+(?:[Ff]ig(?:ure)?s?|[Ss]ec(?:tion)?s?|[Ee]q(?:uation)?s?)\.?\s+\(?\d",
    re.S,
)


def typed_numbers(markdown: str) -> list[str]:
    """The typed references of a piece of MyST markdown, each with its context."""
    prose = NOT_PROSE.sub(" ", markdown)
    return [" ".join(prose[max(0, m.start() - 40) : m.end() + 20].split()) for m in TYPED.finditer(prose)]


def test_typed_numbers_are_found_and_references_are_not():
    assert (
        typed_numbers("as chapter 2 shows, and Figure 3.1 (Sec. 2.6); see Eq. (12)")
        and len(typed_numbers("as chapter 2 shows, and Figure 3.1 (Sec. 2.6); see Eq. (12)")) == 4
    )
    assert not typed_numbers(
        "[chapter 2](02_random_matrices.ipynb), {numref}`fig-x`, {ref}`ex-y`, {eq}`eq-z`"
    )
    assert not typed_numbers(
        "Fig. 2 of {cite:t}`erba2024bilinear`, their Sec. 6, and `chapter 3` in code, $K = 3$"
    )


def _captions_and_prose(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    for cell in cells:  # captions set in code: glue'd figures and figure metadata
        caption = cell.get("metadata", {}).get("caption") or cell.get("metadata", {}).get("mystnb", {}).get(
            "figure", {}
        ).get("caption")
        if isinstance(caption, str):
            text.append(caption)
    return "\n\n".join(text)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapters_refer_to_chapters_sections_figures_and_exercises_by_reference(path):
    found = typed_numbers(_captions_and_prose(path))
    assert not found, f"{path.name}: {len(found)} typed references, e.g. {found[:6]}"


def test_every_equation_label_a_docstring_names_is_defined_by_a_chapter():
    defined = set()
    for path in CHAPTERS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                defined |= set(re.findall(r"\$\$\s*\((eq-[a-z0-9-]+)\)", "".join(cell["source"])))
                defined |= set(re.findall(r":label:\s*(eq-[a-z0-9-]+)", "".join(cell["source"])))
    assert defined
    named = {}
    for module in sorted((ROOT / "lib" / "solvable").glob("*.py")):
        for label in re.findall(r"\beq-[a-z0-9]+(?:-[a-z0-9]+)*", module.read_text(encoding="utf-8")):
            named.setdefault(label, module.name)
    missing = {label: module for label, module in named.items() if label not in defined}
    assert not missing, f"equation labels named by the library that no chapter defines: {missing}"
