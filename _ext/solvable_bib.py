"""Sphinx extension of the book (loaded through `sphinx.local_extensions` in `_config.yml`): bibliography labels
that match the citations.

The text cites author-year ("Gardner (1988)", "Maillard et al. (2024)": sphinxcontrib-bibtex's `author_year`
reference style). pybtex's `plain` style would label the bibliography [1], [2], ..., so a reader of the PDF could not
find a citation in the list except by its link. This registers the pybtex formatting style `author-year`: pybtex's
`plain` (entries sorted by author, year, title) with the labels "Gardner 1988", "Engel and Van den Broeck 2001",
"Maillard et al. 2024"; when two entries would share a label, a letter follows the year ("2024a", "2024b"), in the
order of the list. `_config.yml` selects it (`bibtex_default_style: author-year`).
"""

from __future__ import annotations

from collections import Counter

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from sphinx.application import Sphinx

STYLE = "author-year"


def _last_name(person) -> str:
    """The surname as printed ("Van den Broeck", "Zdeborová"): LaTeX accents and braces decoded."""
    return Text.from_latex(" ".join(person.prelast_names + person.last_names)).render_as("text")


class AuthorYearLabels(BaseLabelStyle):
    """Labels "Surname year", "Surname and Surname year", "Surname et al. year", with a, b, ... against clashes."""

    def format_labels(self, sorted_entries):
        labels = [self.format_label(entry) for entry in sorted_entries]
        count, seen = Counter(labels), Counter()
        for label in labels:
            if count[label] > 1:
                seen[label] += 1
                yield label + "abcdefghijklmnopqrstuvwxyz"[seen[label] - 1]
            else:
                yield label

    @staticmethod
    def format_label(entry) -> str:
        persons = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [_last_name(person) for person in persons]
        if not names:
            who = entry.fields.get("organization") or entry.fields.get("title", "Anonymous").split(":")[0]
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        return f"{who} {entry.fields.get('year', 'n.d.')}"


class AuthorYearStyle(PlainStyle):
    """pybtex's plain style with :class:`AuthorYearLabels`."""

    default_label_style = STYLE


register_plugin("pybtex.style.labels", STYLE, AuthorYearLabels)
register_plugin("pybtex.style.formatting", STYLE, AuthorYearStyle)


def setup(app: Sphinx) -> dict:
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
