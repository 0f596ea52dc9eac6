"""One notation in fact: every symbol of a chapter's display equations is in that chapter's table of `symbols.md`.

`symbols.md` has one section per chapter ("Chapter N: ..."), whose table lists, in its first column, every symbol the
chapter uses. The symbols of a formula are its letters: Latin letters, Greek letters (``\\alpha``), and blackboard,
calligraphic or script capitals (``\\mathbb{E}``, ``\\mathcal{N}``), with their decorations dropped (``\\hat S`` and
``S^\\star`` are both ``S``: the table says what each decoration means); words set upright (``\\mathrm{mmse}``,
``\\operatorname{Tr}``, ``_{\\rm PR}``) are names, not symbols. ``e``, ``i`` and ``\\pi`` are constants.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
NOTATION = ROOT / "notation.md"
SYMBOLS = ROOT / "symbols.md"  # the per-chapter tables
GREEK = set(
    """alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi
rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi
Omega""".split()
)
CONSTANTS = {"e", "i", "\\pi"}
UPRIGHT = re.compile(
    r"\\(?:text|textrm|textit|mathrm|operatorname|rm|label|begin|end|tag|mathit)\s*\{[^{}]*\}"
    r"|\{\\rm\s[^{}]*\}|\\rm\s+[A-Za-z]+|\\mathrm\s+[A-Za-z]"
)
SYMBOL = re.compile(r"\\(mathbb|mathcal|mathscr|mathfrak)\s*\{?\s*([A-Za-z])|\\([A-Za-z]+)|([A-Za-z])")
DISPLAY = re.compile(r"\$\$(.*?)\$\$", re.S)
SECTION = re.compile(r"^## Chapter (\d+)\b.*?$(.*?)(?=^## |\Z)", re.S | re.M)


def symbols(tex: str) -> set[str]:
    """The symbols of a piece of LaTeX math (see the module docstring)."""
    found = set()
    for match in SYMBOL.finditer(UPRIGHT.sub(" ", tex)):
        style, letter, command, plain = match.groups()
        if style:
            found.add(f"\\{style}{{{letter}}}")
        elif command:
            if command in GREEK:
                found.add("\\" + command)
        else:
            found.add(plain)
    return found


def test_symbols_are_letters_without_decorations_or_names():
    assert symbols(r"\hat S^\star_{\rm PR} = \mathrm{mmse}(\alpha)") == {"S", "\\alpha"}
    assert symbols(r"\mathbb E\, \mathcal{N}(0, 1) + \operatorname{Tr}(Z_\mu) \,\mathrm dz") == {
        "\\mathbb{E}",
        "\\mathcal{N}",
        "Z",
        "\\mu",
        "z",
    }
    assert symbols(r"\begin{aligned} \varphi(x) &= e^{-x^2/2} \end{aligned}") == {"\\varphi", "x", "e"}


def tables() -> dict[int, str]:
    return {int(number): body for number, body in SECTION.findall(SYMBOLS.read_text(encoding="utf-8"))}


def listed(body: str) -> set[str]:
    """The symbols of the first column of a chapter's table."""
    rows = [re.split(r"(?<!\\)\|", line) for line in body.splitlines() if line.startswith("|")]  # not at \|
    cells = [row[1] for row in rows if len(row) >= 4]
    return set().union(*(symbols(" ".join(re.findall(r"\$([^$]+)\$", cell))) for cell in cells))


def test_notation_has_a_table_for_every_chapter():
    assert sorted(tables()) == list(range(1, len(CHAPTERS) + 1))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_symbol_of_a_chapters_equations_is_in_its_table(path):
    number = int(path.name[:2])
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    used: dict[str, str] = {}
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for display in DISPLAY.findall("".join(cell["source"])):
                for symbol in symbols(display):
                    used.setdefault(symbol, " ".join(display.split())[:80])
    missing = {s: where for s, where in used.items() if s not in listed(tables().get(number, "")) | CONSTANTS}
    assert not missing, (
        f"{path.name}: symbols of display equations missing from symbols.md's table: {missing}"
    )


def test_the_normal_density_has_one_letter():
    pages = [NOTATION.read_text(encoding="utf-8"), SYMBOLS.read_text(encoding="utf-8")] + [
        "".join("".join(c["source"]) for c in json.loads(p.read_text(encoding="utf-8"))["cells"])
        for p in CHAPTERS
    ]
    assert not [p for p in pages if re.search(r"\\phi\b", p)], "write the standard normal density as \\varphi"


@pytest.mark.parametrize("number", range(1, len(CHAPTERS) + 1))
def test_a_letter_has_one_meaning_in_a_chapter(number):
    """A chapter's table gives each letter one meaning: no row admits a second one ("clash", "not renamed",
    "elsewhere", "second meaning"), and no undecorated letter heads two rows."""
    body = tables().get(number, "")
    rows = [line for line in body.splitlines() if line.startswith("|") and not line.startswith("|---")][1:]
    admitted = [
        row[:90] for row in rows if re.search(r"clash|not renamed|elsewhere|second meaning", row, re.I)
    ]
    assert not admitted, f"chapter {number}: rows that give a letter a second meaning: {admitted}"
    heads: dict[str, str] = {}
    twice = []
    for row in rows:
        first = re.split(r"(?<!\\)\|", row)[1].strip()
        bare = re.fullmatch(r"\$\\?([A-Za-z]+)\$", first)
        if bare:
            if bare.group(1) in heads:
                twice.append(first)
            heads[bare.group(1)] = row
    assert not twice, f"chapter {number}: letters heading two rows: {twice}"
