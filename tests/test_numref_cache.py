"""_ext/solvable_numref.py: a page that numbered references point to is unpickled once per build, and the pages come
out the same (the whole book's build is tests/test_book.py's)."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

ROOT = Path(__file__).resolve().parents[1]

PAGES = {
    "index.rst": (
        "Numbers\n=======\n\n.. toctree::\n\n   figures\n\n"
        "See :numref:`fig-a`, :numref:`fig-b`, :numref:`fig-a` again and :numref:`Figure {number} <fig-b>`.\n"
    ),
    "figures.rst": (
        "Figures\n=======\n\n.. _fig-a:\n\n.. figure:: a.png\n\n   The first.\n\n"
        ".. _fig-b:\n\n.. figure:: a.png\n\n   The second.\n"
    ),
}


def _build(tmp_path: Path, name: str, extensions: list[str], monkeypatch) -> tuple[str, Counter]:
    src, out = tmp_path / name, tmp_path / f"{name}-html"
    src.mkdir()
    (src / "conf.py").write_text(f"extensions = {extensions!r}\nnumfig = True\n", encoding="utf-8")
    for page, text in PAGES.items():
        (src / page).write_text(text, encoding="utf-8")
    (src / "a.png").write_bytes(b"")
    reads: Counter = Counter()
    original = BuildEnvironment.get_doctree

    def counted(self, docname):
        reads[docname] += 1
        return original(self, docname)

    with monkeypatch.context() as patch:
        patch.setattr(BuildEnvironment, "get_doctree", counted)
        app = Sphinx(
            src, src, out, out / ".doctrees", "html", status=None, warning=io.StringIO(), freshenv=True
        )
        app.build()
    return (out / "index.html").read_text(encoding="utf-8"), reads


def test_a_target_page_is_unpickled_once_for_all_its_numbered_references(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "_ext"))
    plain, plain_reads = _build(tmp_path, "plain", [], monkeypatch)  # first: the extension patches for good
    cached, cached_reads = _build(tmp_path, "cached", ["solvable_numref"], monkeypatch)
    # four references to the page of figures: four reads without the extension, one with it
    assert plain_reads["figures"] - cached_reads["figures"] == 3, (plain_reads, cached_reads)
    assert "Fig. 1" in plain and "Fig. 2" in plain and "Figure 2" in plain
    assert cached.replace("cached", "plain") == plain.replace("cached", "plain")
