"""The website as a reader sees it, with no network: every page of _toc.yml opened in headless Chromium.

The book built by the `book` fixture (tests/conftest.py, once per session) is served on localhost by a thread running
`http.server` on a free port, and opened in the system's Chromium driven by Playwright (`executable_path`: Playwright's
own browser builds are never downloaded). Every request to another host is blocked twice over: the browser resolves
no host name but localhost (`--host-resolver-rules`), and a request route aborts anything not on 127.0.0.1 (or a local
file). So a page that passes works offline. The fixtures and the measurement of a page are in tests/_site.py; what a lecturer
and a student do on a page (presentation mode, opening solutions and figures, a copy opened from disk) is tested in
tests/test_site_teaching.py. For every page:

- no JavaScript error and no failed request, except the short allowlist below;
- every equation typeset by MathJax served from the site (each `.math` element holds an `mjx-container`, no MathJax
  error, no raw `\\(`, `\\[`, `$$` or `\\begin{` left in the text);
- every static explorer (matplotlib `to_jshtml` animation) is there, at least one per chapter and one per live widget,
  and moving its slider with the keyboard shows another frame;
- where a chapter shows a live ipywidget, a note in its place explains that it needs a kernel (its manager is CDN-only);
- launch buttons (in a hidden dropdown: their `href` is read, visibility is not tested) open this chapter's reader
  notebook (`notebooks/`, plain Markdown) on Binder and Colab;
- every local `href`/`src` of the page resolves (no 404), and so do its `#fragment`s;
- on a phone (390 px wide) the page does not scroll sideways;
- code: no line of a code cell a reader sees scrolls sideways in its box at 1366 px, and no exercise's verdict;
- display equations: none wider than the page at 1366 px, at most a fifth of the book's scrolling (each in its own box
  with a cue) at 390 px, and no equation number over or before its formula;
- per-chapter numbering ("Exercise 3.2", "Figure 3.1"); every content figure numbered, captioned and saved at twice
  its shown size;
- readers see no test machinery (nbval markers, asserts, preset banners);
- the landing page: a start button, the lecture notes, a logo and favicon, a single search box; every page within a
  weight budget, without Font Awesome's 1.5 MB script or source maps;
- no numpydoc citation label, no equation label on the API pages, no raw LaTeX command and no "Exercise Exercise"
  in any page's text.

Screenshots of every page at a laptop width (1366 px) and a phone width (390 px), of each chapter's static explorer
(after its slider moved), of the note that stands in for a live widget, and of the chapter in the theme's dark mode
are saved for review in `<build>/screenshots/` (next to `_build/html` in the session's temporary folder, e.g.
/tmp/pytest-of-$USER/pytest-N/book/_build/screenshots/), or in the folder named by $SOLVABLE_SCREENSHOTS.

Without Chromium (or Playwright) these tests are skipped with the reason, unless SOLVABLE_REQUIRE_BROWSER=1 (set by
.ci/run, which installs Chromium when missing): then they fail.
"""

from __future__ import annotations

import functools
import re
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urldefrag, urlparse

import pytest
from _book import ROOT, book_config, notebook_pages, repository
from _site import CHAPTERS, LAPTOP, PAGES, PHONE, WIDGET_MANAGER, allowed_console_error


@pytest.mark.parametrize("page_name", PAGES)
def test_no_javascript_errors_offline(visit, page_name):
    seen = visit(page_name)
    assert not seen.page_errors, f"{page_name}: uncaught JavaScript errors: {seen.page_errors}"
    unexpected = [
        (text, url) for text, url in seen.console_errors if not allowed_console_error(text, url, visit.base)
    ]
    assert not unexpected, f"{page_name}: console errors: {unexpected}"
    others = sorted(set(seen.blocked) - WIDGET_MANAGER)
    assert not others, (
        f"{page_name}: requests to other hosts (the page is not self-contained offline): {others}"
    )


@pytest.mark.parametrize("page_name", PAGES)
def test_equations_are_typeset(visit, page_name):
    seen = visit(page_name)
    math = seen.math
    if math["n_math"] == 0:
        assert not math["raw"], f"{page_name}: TeX left raw in a page without MathJax: {math['raw']}"
        return
    assert seen.mathjax == "typeset", f"{page_name}: {seen.mathjax} (is _mathjax/ in the build?)"
    assert not math["untypeset"], (
        f"{page_name}: {len(math['untypeset'])} equations not typeset: {math['untypeset'][:5]}"
    )
    assert math["n_typeset"] >= math["n_math"]
    assert not math["errors"], f"{page_name}: MathJax errors: {math['errors']}"
    assert not math["raw"], f"{page_name}: raw TeX left in the text: {math['raw']}"


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_static_explorers_work_offline(visit, page_name):
    seen = visit(page_name)
    assert seen.explorers, f"{page_name}: no static explorer (matplotlib to_jshtml animation) on the page"
    assert len(seen.explorers) >= seen.widget_views, (
        f"{page_name}: {seen.widget_views} live widgets but only {len(seen.explorers)} static explorers"
    )
    for i, explorer in enumerate(seen.explorers):
        assert explorer["complete"], f"{page_name}: static explorer {i} has no slider or no frame image"
        assert explorer["frames"] >= 2, f"{page_name}: static explorer {i} has a single frame"
        assert explorer["value"][0] != explorer["value"][1], (
            f"{page_name}: explorer {i}: the slider did not move"
        )
        assert explorer["frame_changed"], (
            f"{page_name}: explorer {i}: moving the slider did not change the frame"
        )
        assert explorer["decoded"], f"{page_name}: explorer {i}: the frame image does not display"
    assert seen.dark_theme == "dark", (
        f"{page_name}: the theme did not switch to dark mode ({seen.dark_theme!r})"
    )


@pytest.mark.parametrize("page_name", PAGES)
def test_live_widgets_degrade_to_a_note_offline(visit, page_name):
    seen = visit(page_name)
    assert seen.widget_notes == seen.widget_views, (
        f"{page_name}: {seen.widget_views} saved widgets but {seen.widget_notes} offline notes in their place"
    )


@pytest.mark.parametrize("page_name", PAGES)
def test_launch_buttons(visit, page_name):
    seen = visit(page_name)
    if page_name not in CHAPTERS:
        assert not seen.launch, f"{page_name}: launch buttons on a page that is not a notebook: {seen.launch}"
        return
    repo = repository()
    org_repo, branch = urlparse(repo["url"]).path.strip("/"), repo["branch"]
    assert len(org_repo.split("/")) == 2, (
        f"repository.url in _config.yml is not a GitHub repository: {repo['url']}"
    )
    interface = book_config().get("launch_buttons", {}).get("notebook_interface", "classic")
    binder = [u for u in seen.launch if urlparse(u).hostname == "mybinder.org"]
    colab = [u for u in seen.launch if urlparse(u).hostname == "colab.research.google.com"]
    assert len(binder) == 1 and len(colab) == 1, f"{page_name}: launch buttons {seen.launch}"
    url = urlparse(binder[0])
    assert url.scheme == "https" and url.path == f"/v2/gh/{org_repo}/{branch}", (
        f"{page_name}: Binder URL {binder[0]}"
    )
    urlpath = parse_qs(url.query).get("urlpath", [""])[0]
    # the chapter's reader notebook (plain Markdown, written by tools/reader_notebooks.py), not its MyST source
    reader = f"notebooks/{page_name.rsplit('/', 1)[-1]}.ipynb"
    expected = f"{'lab/tree' if interface == 'jupyterlab' else 'tree'}/{reader}"
    assert urlpath == expected, f"{page_name}: Binder opens {urlpath!r}, expected {expected!r} ({binder[0]})"
    assert colab[0] == f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/{reader}", colab[0]
    assert (ROOT / f"{page_name}.ipynb").is_file() and (ROOT / reader).is_file()


@functools.cache
def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read().decode("utf-8", "replace") if url.endswith(".html") else ""
            return response.status, body
    except urllib.error.HTTPError as err:
        return err.code, ""


@pytest.mark.parametrize("page_name", PAGES)
def test_local_links_resolve(visit, page_name):
    seen = visit(page_name)
    assert not seen.local_failures, (
        f"{page_name}: local requests that failed while loading: {seen.local_failures}"
    )
    broken, missing_anchor = [], []
    for link in seen.links:
        target, fragment = urldefrag(link)
        status, body = fetch(target.split("?")[0])
        if status >= 400:
            broken.append((link, status))
        elif (
            fragment
            and target.split("?")[0].endswith(".html")
            and not re.search(rf"""\b(id|name)=["']{re.escape(fragment)}["']""", body)
        ):
            missing_anchor.append(link)
    assert not broken, f"{page_name}: local links that do not resolve: {broken}"
    assert not missing_anchor, f"{page_name}: links to anchors that do not exist: {missing_anchor}"


@pytest.mark.parametrize("page_name", PAGES)
def test_phone_layout_does_not_scroll_sideways(visit, page_name):
    seen = visit(page_name)
    assert seen.phone_overflow <= 1, (
        f"{page_name}: at {PHONE['width']} px the page is {seen.phone_overflow} px too wide"
    )


# --- lecture-notes grade: equations, numbering, figures, landing page, weight ---------------------------------------

#: At most this fraction of the book's display equations may scroll sideways on a phone (390 px), each in its own box
#: with a cue; none at laptop width. Measured: 0 of N at 1366 px, see the issue note for the phone count.
PHONE_SCROLL_FRACTION = 0.20


@pytest.mark.parametrize("page_name", PAGES)
def test_display_equations_fit_a_laptop_and_never_sit_under_their_number(visit, page_name):
    seen = visit(page_name)
    wide = [e["id"] for e in seen.equations if e["scrolls"]]
    assert not wide, f"{page_name}: display equations wider than the page at {LAPTOP['width']} px: {wide}"
    for equations, where in ((seen.equations, "laptop"), (seen.phone_equations, "phone")):
        covered = [e["id"] for e in equations if e["overlap"]]
        assert not covered, f"{page_name} ({where}): equation numbers drawn over their formula: {covered}"
        misplaced = [e["id"] for e in equations if not e["after"]]
        assert not misplaced, (
            f"{page_name} ({where}): equation numbers left of or above their formula: {misplaced}"
        )
        no_cue = [e["id"] for e in equations if e["scrolls"] and not (e["cue"] and e["overflow"] == "auto")]
        assert not no_cue, (
            f"{page_name} ({where}): equations that scroll without their own box and cue: {no_cue}"
        )


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_code_fits_its_box_on_a_laptop(visit, page_name):
    """A lecturer projects the page at 1366 px: no code line may hide behind a horizontal scroll bar."""
    seen = visit(page_name)
    assert seen.code_boxes, f"{page_name}: no code box found (has the theme's markup changed?)"
    wide = [box["line"][:90] for box in seen.code_boxes if box["scrolls"]]
    assert not wide, (
        f"{page_name}: {len(wide)} code boxes scroll sideways at {LAPTOP['width']} px, e.g. {wide[:3]}"
    )


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_exercise_verdicts_wrap_on_a_laptop(visit, page_name):
    """A verdict ("NOT STARTED: ... run this cell") is read to its end at 1366 px, without a scroll bar."""
    seen = visit(page_name)
    assert seen.verdicts, f"{page_name}: no exercise verdict found (has the theme's markup changed?)"
    wide = [v["text"] for v in seen.verdicts if v["scrolls"]]
    assert not wide, (
        f"{page_name}: {len(wide)} verdicts scroll sideways at {LAPTOP['width']} px, e.g. {wide[:2]}"
    )


def test_few_display_equations_scroll_on_a_phone(visit):
    counts = {
        page: (sum(e["scrolls"] for e in visit(page).phone_equations), len(visit(page).phone_equations))
        for page in PAGES
    }
    scrolling, total = sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values())
    assert total > 0
    assert scrolling <= PHONE_SCROLL_FRACTION * total, (
        f"{scrolling} of {total} display equations scroll at {PHONE['width']} px (at most "
        f"{PHONE_SCROLL_FRACTION:.0%}): {counts}"
    )


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_exercises_are_numbered_per_chapter(visit, page_name):
    seen = visit(page_name)
    number = notebook_pages().index(page_name) + 1
    expected = [f"Exercise {number}.{k}" for k in range(1, len(seen.exercises) + 1)]
    assert seen.exercises, f"{page_name}: no exercise"
    assert seen.exercises == expected, (
        f"{page_name}: exercises numbered {seen.exercises}, expected {expected}"
    )


@pytest.mark.parametrize("page_name", PAGES)
def test_every_figure_is_numbered_captioned_and_sharp(visit, page_name):
    seen = visit(page_name)
    if page_name in CHAPTERS:
        assert seen.figures, f"{page_name}: no figure"
    number = notebook_pages().index(page_name) + 1 if page_name in CHAPTERS else None
    for figure in seen.figures:
        where = f"{page_name}: figure {figure['src']}"
        assert figure["number"], f"{where} has no numbered caption"
        if number is not None:
            assert figure["number"].startswith(f"Figure {number}."), (
                f"{where} is numbered {figure['number']!r}"
            )
        assert len(figure["caption"]) >= 40, (
            f"{where}: caption too short to say what is plotted: {figure['caption']!r}"
        )
        shown, natural = figure["aspect"]
        assert abs(shown / natural - 1) < 0.02, (
            f"{where}: drawn with aspect ratio {shown:.2f} instead of {natural:.2f}"
        )
        if page_name in CHAPTERS:
            # Saved at twice the pixels they are shown with ("retina"; solvable.plotting): sharp on dense screens.
            assert figure["natural"] >= 1.9 * figure["nominal"], (
                f"{where}: {figure['natural']} px wide image shown at {figure['nominal']} px (not sharp on a dense screen)"
            )


@pytest.mark.parametrize("page_name", PAGES)
def test_readers_see_no_test_machinery(visit, page_name):
    text = visit(page_name).text
    for marker in ("NBVAL", "size preset:", "assert "):
        assert marker not in text, f"{page_name}: the page shows {marker!r}"


@pytest.mark.parametrize("page_name", PAGES)
def test_pages_stay_light(visit, page_name):
    seen = visit(page_name)
    fetched = dict(seen.weight)
    heavy = [url for url in fetched if url.endswith(".map") or "fontawesome.js" in url]
    assert not heavy, f"{page_name}: fetched what a reader does not need: {heavy}"
    total = sum(fetched.values())
    assert total < PAGE_BUDGET_BYTES, (
        f"{page_name}: a cold load fetches {total / 1e6:.2f} MB (budget {PAGE_BUDGET_BYTES / 1e6:.1f} MB): "
        f"{sorted(fetched.items(), key=lambda kv: -kv[1])[:6]}"
    )


#: A cold load of any page. Measured 2026-11-26, with the figures at twice their shown size: landing page 2.65 MB,
#: chapters 3.33-3.98 MB (MathJax 1.17 MB, the page itself with its explorers' frames 0.6-1.0 MB, theme CSS 0.4 MB);
#: before cutting Font Awesome's script and palette-encoding the figures, 4.4-5.1 MB with figures at half the pixels.
#: Chapters 3 and 4 grew by a section and a figure each (the MNNE curve, beyond quadratic activation): 4.23 and 4.34 MB;
#: the presentation mode's script and style add 7 KB.
PAGE_BUDGET_BYTES = 4_400_000


def test_landing_page_gets_a_newcomer_started(visit, book):
    seen = visit(PAGES[0])
    first = notebook_pages()[0]
    landing = (book.html / f"{PAGES[0]}.html").read_text(encoding="utf-8")
    start = re.search(
        r'<a[^>]*class="[^"]*solvable-start[^"]*"[^>]*href="([^"]+)"|'
        r'<a[^>]*href="([^"]+)"[^>]*class="[^"]*solvable-start',
        landing,
    )
    assert start and (start.group(1) or start.group(2)).split("#")[0].endswith(f"{first}.html"), (
        "no 'start with chapter 1' button"
    )
    assert "arxiv.org/abs/2306.16097" in landing, "the landing page does not link the lecture notes"
    assert re.search(r'<link[^>]*rel="(shortcut )?icon"[^>]*href="[^"]+\.svg"', landing), "no favicon"
    assert re.search(r'<img[^>]*class="[^"]*logo__image[^"]*"', landing), "no logo"
    assert seen.search_controls == 1, f"{seen.search_controls} search boxes at {LAPTOP['width']} px"
    assert seen.phone_search_controls == 1, (
        f"{seen.phone_search_controls} search boxes at {PHONE['width']} px"
    )


API_PAGES = [page for page in PAGES if page.startswith("api/")]


@pytest.mark.parametrize("page_name", PAGES)
def test_pages_show_no_labels_and_no_exercise_exercise(visit, page_name):
    """No numpydoc citation label ("[R9e44b4dfe036-1]"), no equation label ("eq-gamp") where its number belongs, and
    never "Exercise Exercise" (a reference that prints its own word after the text's)."""
    text = visit(page_name).text
    labels = re.findall(r".{0,40}R[0-9a-f]{12}-\d.{0,10}", text)
    assert not labels, f"{page_name}: {len(labels)} numpydoc citation labels, e.g. {labels[:3]}"
    if page_name.startswith("api/"):
        equations = re.findall(r".{0,40}\beq-[a-z][a-z0-9-]*.{0,10}", text)
        assert not equations, f"{page_name}: {len(equations)} equation labels, e.g. {equations[:3]}"
    doubled = re.findall(r".{0,40}Exercise\s+Exercise.{0,20}", text)
    assert not doubled, f"{page_name}: 'Exercise Exercise' {len(doubled)} times, e.g. {doubled[:3]}"
