"""The book builds with zero warnings, every page of the table of contents is there, and chapters carry launch links.

The build is the README's (`jupyter-book build . -W -n --keep-going`) with `--path-output` pointing at a temporary
folder, so the repository is only read. It runs once per session (module-scoped fixture); under
`pytest -n 2 --dist loadfile` all tests of this file go to the same worker, so the book is built once.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_S = 900

pytestmark = pytest.mark.xdist_group("book")


def toc_files() -> list[str]:
    """The root and every `file:` of _toc.yml, relative to the root, without suffix, in order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found = [str(Path(toc["root"]).with_suffix(""))]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(str(Path(node["file"]).with_suffix("")))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def repository() -> dict:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """Build the book into a temporary folder; return (html folder, build log, build folders it made in the repo)."""
    out = tmp_path_factory.mktemp("book")
    watched = [ROOT / "_build", ROOT / ".jupyter_cache"]
    existed = {p for p in watched if p.exists()}
    # The `jupyter-book` console script, run by this interpreter: the same environment as the tests.
    cmd = [
        sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
        "build", str(ROOT), "--path-output", str(out), "-W", "-n", "--keep-going",
    ]
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=out, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
    )
    elapsed = time.perf_counter() - start
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"jupyter-book build failed (exit {proc.returncode}) after {elapsed:.0f} s:\n{log[-6000:]}"
    html = out / "_build" / "html"
    assert html.is_dir(), f"no HTML output in {html}:\n{log[-3000:]}"
    created = [str(p.relative_to(ROOT)) for p in watched if p.exists() and p not in existed]
    return html, log, created


def test_build_has_no_warnings(book):
    _, log, _ = book
    assert "build succeeded" in log
    warnings = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]
    assert not warnings, "\n".join(warnings)


def test_every_toc_page_is_built(book):
    html, _, _ = book
    missing = [f"{page}.html" for page in toc_files() if not (html / f"{page}.html").is_file()]
    assert not missing, f"pages of _toc.yml missing from the site: {missing}"
    assert (html / "index.html").is_file(), "no index.html (the landing page)"


def test_toc_lists_only_existing_sources():
    missing = [
        page for page in toc_files()
        if not any((ROOT / f"{page}{suffix}").is_file() for suffix in (".md", ".ipynb", ".rst"))
    ]
    assert not missing, f"_toc.yml lists files that do not exist: {missing}"


def test_bibliography_page_lists_references(book):
    html, _, _ = book
    page = (html / "bibliography.html").read_text(encoding="utf-8")
    assert "Zdeborová" in page and "Gardner" in page, "references.bib entries are not on the bibliography page"


def test_chapters_have_binder_and_colab_links(book):
    html, _, _ = book
    repo = repository()
    org_repo = urlparse(repo["url"]).path.strip("/")
    branch = repo["branch"]
    chapters = [page for page in toc_files() if (ROOT / f"{page}.ipynb").is_file()]
    assert chapters, "no notebook in _toc.yml"
    for page in chapters:
        text = (html / f"{page}.html").read_text(encoding="utf-8")
        binder = f"https://mybinder.org/v2/gh/{org_repo}/{branch}?urlpath="
        assert binder in text, f"{page}.html: no Binder launch link ({binder}...)"
        binder_hrefs = [chunk.split('"', 1)[0] for chunk in text.split('href="')[1:] if chunk.startswith(binder)]
        assert any(href.endswith(f"{page}.ipynb") for href in binder_hrefs), (
            f"{page}.html: the Binder link does not open {page}.ipynb: {binder_hrefs}"
        )
        colab = f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/{page}.ipynb"
        assert colab in text, f"{page}.html: no Colab launch link ({colab})"


def test_build_leaves_repository_clean(book):
    """--path-output keeps the build out of the repository: no _build/ or execution cache appears in it."""
    _, _, created = book
    assert not created, f"the test build wrote into the repository: {created}"
