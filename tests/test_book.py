"""The book builds with zero warnings, every page of the table of contents is there, and chapters carry launch links.

The build is the README's (`jupyter-book build . -W -n --keep-going`) with `--path-output` pointing at a temporary
folder, so the repository is only read. It runs once per session and is shared with tests/test_site.py (the `book`
fixture of tests/conftest.py, built by tests/_book.py).
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlparse

from _book import ROOT, repository, toc_files, widget_manager_urls


def test_build_has_no_warnings(book):
    log = book.log
    assert "build succeeded" in log
    warnings = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]
    assert not warnings, "\n".join(warnings)


def test_every_toc_page_is_built(book):
    html = book.html
    missing = [f"{page}.html" for page in toc_files() if not (html / f"{page}.html").is_file()]
    assert not missing, f"pages of _toc.yml missing from the site: {missing}"
    assert (html / "index.html").is_file(), "no index.html (the landing page)"


def test_toc_lists_only_existing_sources():
    missing = [
        page
        for page in toc_files()
        if not any((ROOT / f"{page}{suffix}").is_file() for suffix in (".md", ".ipynb", ".rst"))
    ]
    assert not missing, f"_toc.yml lists files that do not exist: {missing}"


def test_bibliography_page_lists_references(book):
    html = book.html
    page = (html / "bibliography.html").read_text(encoding="utf-8")
    assert "Zdeborová" in page and "Gardner" in page, (
        "references.bib entries are not on the bibliography page"
    )


def test_chapters_have_binder_and_colab_links(book):
    html = book.html
    repo = repository()
    org_repo = urlparse(repo["url"]).path.strip("/")
    branch = repo["branch"]
    chapters = [page for page in toc_files() if (ROOT / f"{page}.ipynb").is_file()]
    assert chapters, "no notebook in _toc.yml"
    for page in chapters:
        text = (html / f"{page}.html").read_text(encoding="utf-8")
        binder = f"https://mybinder.org/v2/gh/{org_repo}/{branch}?urlpath="
        assert binder in text, f"{page}.html: no Binder launch link ({binder}...)"
        # they open the chapter's reader notebook (plain Markdown, tools/reader_notebooks.py), not its MyST source
        reader = f"notebooks/{page.rsplit('/', 1)[-1]}.ipynb"
        assert (ROOT / reader).is_file(), (
            f"{page}: no reader notebook {reader} (python tools/reader_notebooks.py)"
        )
        binder_hrefs = [
            chunk.split('"', 1)[0] for chunk in text.split('href="')[1:] if chunk.startswith(binder)
        ]
        assert any(href.endswith(f"/{reader}") for href in binder_hrefs), (
            f"{page}.html: the Binder link does not open {reader}: {binder_hrefs}"
        )
        colab = f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/{reader}"
        assert colab in text, f"{page}.html: no Colab launch link ({colab})"


def test_build_leaves_repository_clean(book):
    """--path-output keeps the build out of the repository: no _build/ or execution cache appears in it."""
    created = book.created
    assert not created, f"the test build wrote into the repository: {created}"


class _Resources(HTMLParser):
    """The URLs a page loads by itself: script src, stylesheet/icon/preload links, img/iframe/source/video src."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "video", "audio") and attrs.get("src"):
            self.urls.append(attrs["src"])
        elif (
            tag == "link"
            and attrs.get("href")
            and set((attrs.get("rel") or "").split())
            & {"stylesheet", "icon", "preload", "modulepreload", "prefetch"}
        ):
            self.urls.append(attrs["href"])


def test_pages_load_nothing_from_the_network_but_the_widget_manager(book):
    """The offline promise, read from the HTML (tests/test_site.py proves it in a browser): MathJax is served by the
    site and no page loads a resource from another host, except the ipywidgets manager (CDN only; pages degrade to a
    note and the static explorer without it)."""
    html = book.html
    allowed = widget_manager_urls()
    mathjax = html / "_mathjax" / "tex-mml-chtml.js"
    assert mathjax.is_file(), (
        f"MathJax is not served by the site ({mathjax} missing): see _ext/solvable_site.py"
    )
    external, without_local_mathjax = {}, []
    for page in toc_files():
        text = (html / f"{page}.html").read_text(encoding="utf-8")
        parser = _Resources()
        parser.feed(text)
        remote = [
            u for u in parser.urls if urlparse(u).scheme in ("http", "https", "") and urlparse(u).netloc
        ]
        if bad := sorted(set(remote) - allowed):
            external[page] = bad
        if 'class="math' in text and not any(
            u.split("?")[0].endswith("_mathjax/tex-mml-chtml.js") for u in parser.urls
        ):
            without_local_mathjax.append(page)
    assert not external, f"pages load resources from other hosts (they break offline): {external}"
    assert not without_local_mathjax, (
        f"pages with equations that do not load the site's own MathJax: {without_local_mathjax}"
    )
