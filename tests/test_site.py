"""The website as a reader sees it, with no network: every page of _toc.yml opened in headless Chromium.

The book built by the `book` fixture (tests/conftest.py, once per session) is served on localhost by a thread running
`http.server` on a free port, and opened in the system's Chromium driven by Playwright (`executable_path`: Playwright's
own browser builds are never downloaded). Every request to another host is blocked twice over: the browser resolves
no host name but localhost (`--host-resolver-rules`), and a request route aborts anything not on 127.0.0.1 (or a local
file). So a page that passes works offline. One more test opens a chapter straight from disk (file://). For every page:

- no JavaScript error and no failed request, except the short allowlist below;
- every equation typeset by MathJax served from the site (each `.math` element holds an `mjx-container`, no MathJax
  error, no raw `\\(`, `\\[`, `$$` or `\\begin{` left in the text);
- every static explorer (matplotlib `to_jshtml` animation) is there, at least one per chapter and one per live widget,
  and moving its slider with the keyboard shows another frame;
- where a chapter shows a live ipywidget, a note in its place explains that it needs a kernel (its manager is CDN-only);
- launch buttons (in a hidden dropdown: their `href` is read, visibility is not tested) open this chapter's notebook on
  Binder and Colab;
- every local `href`/`src` of the page resolves (no 404), and so do its `#fragment`s;
- on a phone (390 px wide) the page does not scroll sideways.

Screenshots of every page at a laptop width (1366 px) and a phone width (390 px), of each chapter's static explorer
(after its slider moved), of the note that stands in for a live widget, and of the chapter in the theme's dark mode
are saved for review in `<build>/screenshots/` (next to `_build/html` in the session's temporary folder, e.g.
/tmp/pytest-of-$USER/pytest-N/book/_build/screenshots/), or in the folder named by $SOLVABLE_SCREENSHOTS.

Without Chromium (or Playwright) these tests are skipped with the reason, unless SOLVABLE_REQUIRE_BROWSER=1 (set by
.ci/run, which installs Chromium when missing): then they fail.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urldefrag, urlparse

import pytest
from _book import ROOT, book_config, notebook_pages, repository, toc_files, widget_manager_urls

PAGES = toc_files()
CHAPTERS = set(notebook_pages())
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PAGE_TIMEOUT_MS = 30_000
CHROMIUM_NAMES = ("chromium", "google-chrome", "google-chrome-stable", "chromium-browser")
CHROMIUM_FLAGS = [
    # (Playwright adds --headless itself, and launch_persistent_context gives the fresh --user-data-dir.)
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
WIDGET_MANAGER = widget_manager_urls()
WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'
LAUNCH_BUTTONS = ".dropdown-launch-buttons a[href]"  # sphinx-book-theme's rocket menu (hidden until opened)
WIDGET_NOTE = ".solvable-widget-offline"  # inserted by _ext/solvable_site.py when the widget manager cannot load


def allowed_console_error(text: str, url: str, base: str) -> str | None:
    """Why a console error is expected on an offline page, or None if it is a failure. Short on purpose."""
    if text.startswith("Failed to load resource"):
        if url in WIDGET_MANAGER:
            # myst-nb loads the ipywidgets manager from a CDN; no PyPI package ships it (see _ext/solvable_site.py).
            # Offline it fails, and the page shows a note in place of each widget (checked below) and keeps its
            # static explorer.
            return "ipywidgets manager (CDN only) blocked offline"
        if url == f"{base}/favicon.ico":
            # The browser asks the server root for a favicon by itself; the book declares none.
            return "browser's own favicon request"
    return None


def find_chromium() -> str | None:
    """$SOLVABLE_CHROMIUM if set (None if it is not an executable), else the first Chromium or Chrome on PATH."""
    explicit = os.environ.get("SOLVABLE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    return next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


@pytest.fixture(scope="module")
def chromium_context(tmp_path_factory):
    """One headless Chromium with a fresh profile (user-data-dir) and every request outside localhost aborted."""
    executable, explicit = find_chromium(), os.environ.get("SOLVABLE_CHROMIUM")
    problem = None
    if executable is None:
        where = f"at $SOLVABLE_CHROMIUM ({explicit})" if explicit else f"on PATH (as {', '.join(CHROMIUM_NAMES)})"
        problem = f"no Chromium found {where}"
    else:
        try:
            import playwright.sync_api
        except ImportError:
            problem = "the playwright Python package is missing (pip install -r requirements.txt)"
    if problem:
        if os.environ.get("SOLVABLE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here (SOLVABLE_REQUIRE_BROWSER=1) but {problem}")
        pytest.skip(f"browser tests of the website skipped: {problem}. On Debian/Ubuntu: apt-get install chromium")

    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=LAPTOP,
            device_scale_factor=1,
            service_workers="block",
        )
        context.blocked = []  # every request to another host that a page tried

        def route(route):
            url = urlparse(route.request.url)
            if url.scheme == "file" or url.hostname in ("127.0.0.1", "localhost"):
                route.continue_()
            else:
                context.blocked.append(route.request.url)
                route.abort("internetdisconnected")

        context.route("**/*", route)
        context.set_default_timeout(PAGE_TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def site(book):
    """The built site served on 127.0.0.1 (a free port) by a thread running http.server; yields its base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(book.html)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def screenshots(book) -> Path:
    folder = Path(os.environ.get("SOLVABLE_SCREENSHOTS") or book.html.parent / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- what the browser measures on one page -------------------------------------------------------------------------

WAIT_FOR_MATHJAX = """async () => {
    if (!document.querySelector('.math')) return 'no math';
    for (let i = 0; i < 200 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); i++) {
        await new Promise(r => setTimeout(r, 50));
    }
    if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return 'MathJax did not start';
    const timeout = new Promise(resolve => setTimeout(() => resolve('MathJax did not finish in 30 s'), 30000));
    return await Promise.race([MathJax.startup.promise.then(() => 'typeset'), timeout]);
}"""

MATH_REPORT = r"""() => {
    const maths = [...document.querySelectorAll('.math')];
    const untypeset = maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.trim().slice(0, 80));
    const article = (document.querySelector('main') || document.body).cloneNode(true);
    article.querySelectorAll('pre, code, script, style, textarea, mjx-container, .highlight').forEach(e => e.remove());
    const text = article.textContent;
    const raw = [];
    for (const pattern of [/\\\(/g, /\\\)/g, /\\\[/g, /\\\]/g, /\$\$/g, /\\begin\{/g]) {
        for (const match of text.matchAll(pattern)) raw.push(text.slice(Math.max(0, match.index - 40), match.index + 40));
    }
    return {n_math: maths.length, n_typeset: document.querySelectorAll('mjx-container').length, untypeset,
            errors: [...document.querySelectorAll('mjx-merror')].map(e => e.textContent.slice(0, 80)),
            raw: raw.slice(0, 10)};
}"""

LOCAL_URLS = """() => {
    const urls = [];
    document.querySelectorAll('a[href]').forEach(a => urls.push(a.href));
    document.querySelectorAll('img[src], script[src], iframe[src], source[src], video[src]').forEach(e => urls.push(e.src));
    document.querySelectorAll('link[href]').forEach(l => urls.push(l.href));
    return urls.filter(u => u.startsWith(location.origin));
}"""


def slug(page: str) -> str:
    return page.replace("/", "__")


def wait_for_math(page) -> str:
    return page.evaluate(WAIT_FOR_MATHJAX)


def center(page, element) -> None:
    element.evaluate("e => e.scrollIntoView({block: 'center'})")
    page.wait_for_timeout(100)


def drive_explorers(page) -> list[dict]:
    """Move every static explorer's slider to its last frame with the keyboard; report what the reader would see."""
    results = []
    animations = page.locator("div.animation")
    for i in range(animations.count()):
        animation = animations.nth(i)
        slider, image = animation.locator('input[type="range"]'), animation.locator("img").first
        if not slider.count() or not image.count():
            results.append({"complete": False})
            continue
        center(page, animation)
        before_src, before_value = image.get_attribute("src"), slider.input_value()
        slider.focus()
        page.keyboard.press("End")
        results.append({
            "complete": True,
            "frames": int(slider.get_attribute("max")) + 1,
            "value": (before_value, slider.input_value()),
            "frame_changed": image.get_attribute("src") != before_src,
            "decoded": image.evaluate("i => i.complete && i.naturalWidth > 0"),
        })
    return results


class Visit:
    """Everything one page shows a reader, measured once and shared by the tests below."""

    def __init__(self, context, base: str, page_name: str, folder: Path):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        self.console_errors, self.page_errors, self.local_failures = [], [], []
        blocked_before = len(context.blocked)
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and self.console_errors.append((m.text, m.location.get("url", ""))))
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        favicon = f"{base}/favicon.ico"  # asked for by the browser itself (see allowed_console_error)
        page.on("response", lambda r: r.status >= 400 and r.url.startswith(base) and r.url != favicon
                and self.local_failures.append((r.url, r.status)))
        page.on("requestfailed", lambda r: r.url.startswith(base) and self.local_failures.append((r.url, r.failure)))
        try:
            page.goto(f"{base}/{page_name}.html", wait_until="load")
            self.mathjax = wait_for_math(page)
            self.math = page.evaluate(MATH_REPORT)
            page.screenshot(path=folder / f"{slug(page_name)}.laptop.png")
            self.widget_views = page.locator(WIDGET_VIEW).count()
            self.widget_notes = page.locator(f"{WIDGET_NOTE}:visible").count()
            if self.widget_notes:
                center(page, page.locator(WIDGET_NOTE).first)
                page.screenshot(path=folder / f"{slug(page_name)}.laptop-widget-note.png")
            self.explorers = drive_explorers(page)
            if self.explorers:
                center(page, page.locator("div.animation").first)
                page.screenshot(path=folder / f"{slug(page_name)}.laptop-explorer.png")
                page.emulate_media(color_scheme="dark")  # the theme follows the system in "auto" mode
                with contextlib.suppress(PlaywrightTimeout):
                    page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'", timeout=5000)
                self.dark_theme = page.evaluate("() => document.documentElement.dataset.theme")
                page.screenshot(path=folder / f"{slug(page_name)}.dark-explorer.png")
                page.evaluate("() => window.scrollTo(0, 0)")
                page.screenshot(path=folder / f"{slug(page_name)}.dark.png")
            self.launch = page.eval_on_selector_all(LAUNCH_BUTTONS, "els => els.map(e => e.href)")
            self.links = sorted(set(page.evaluate(LOCAL_URLS)))

            phone = context.new_page()
            phone.on("pageerror", lambda e: self.page_errors.append(f"(phone) {e}"))
            phone.set_viewport_size(PHONE)
            phone.emulate_media(color_scheme="light")
            phone.goto(f"{base}/{page_name}.html", wait_until="load")
            wait_for_math(phone)
            self.phone_overflow = phone.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
            phone.screenshot(path=folder / f"{slug(page_name)}.phone.png")
            if phone.locator("div.animation").count():
                center(phone, phone.locator("div.animation").first)
                phone.screenshot(path=folder / f"{slug(page_name)}.phone-explorer.png")
            phone.close()
        finally:
            page.close()
        self.blocked = context.blocked[blocked_before:]


@pytest.fixture(scope="module")
def visit(chromium_context, site, screenshots):
    cache: dict[str, Visit] = {}

    def get(page_name: str) -> Visit:
        if page_name not in cache:
            cache[page_name] = Visit(chromium_context, site, page_name, screenshots)
        return cache[page_name]

    get.base = site
    return get


# --- the tests ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("page_name", PAGES)
def test_no_javascript_errors_offline(visit, page_name):
    seen = visit(page_name)
    assert not seen.page_errors, f"{page_name}: uncaught JavaScript errors: {seen.page_errors}"
    unexpected = [(text, url) for text, url in seen.console_errors if not allowed_console_error(text, url, visit.base)]
    assert not unexpected, f"{page_name}: console errors: {unexpected}"
    others = sorted(set(seen.blocked) - WIDGET_MANAGER)
    assert not others, f"{page_name}: requests to other hosts (the page is not self-contained offline): {others}"


@pytest.mark.parametrize("page_name", PAGES)
def test_equations_are_typeset(visit, page_name):
    seen = visit(page_name)
    math = seen.math
    if math["n_math"] == 0:
        assert not math["raw"], f"{page_name}: TeX left raw in a page without MathJax: {math['raw']}"
        return
    assert seen.mathjax == "typeset", f"{page_name}: {seen.mathjax} (is _mathjax/ in the build?)"
    assert not math["untypeset"], f"{page_name}: {len(math['untypeset'])} equations not typeset: {math['untypeset'][:5]}"
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
        assert explorer["value"][0] != explorer["value"][1], f"{page_name}: explorer {i}: the slider did not move"
        assert explorer["frame_changed"], f"{page_name}: explorer {i}: moving the slider did not change the frame"
        assert explorer["decoded"], f"{page_name}: explorer {i}: the frame image does not display"
    assert seen.dark_theme == "dark", f"{page_name}: the theme did not switch to dark mode ({seen.dark_theme!r})"


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
    assert len(org_repo.split("/")) == 2, f"repository.url in _config.yml is not a GitHub repository: {repo['url']}"
    interface = book_config().get("launch_buttons", {}).get("notebook_interface", "classic")
    binder = [u for u in seen.launch if urlparse(u).hostname == "mybinder.org"]
    colab = [u for u in seen.launch if urlparse(u).hostname == "colab.research.google.com"]
    assert len(binder) == 1 and len(colab) == 1, f"{page_name}: launch buttons {seen.launch}"
    url = urlparse(binder[0])
    assert url.scheme == "https" and url.path == f"/v2/gh/{org_repo}/{branch}", f"{page_name}: Binder URL {binder[0]}"
    urlpath = parse_qs(url.query).get("urlpath", [""])[0]
    expected = f"{'lab/tree' if interface == 'jupyterlab' else 'tree'}/{page_name}.ipynb"
    assert urlpath == expected, f"{page_name}: Binder opens {urlpath!r}, expected {expected!r} ({binder[0]})"
    assert colab[0] == f"https://colab.research.google.com/github/{org_repo}/blob/{branch}/{page_name}.ipynb", colab[0]
    assert (ROOT / f"{page_name}.ipynb").is_file()


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
    assert not seen.local_failures, f"{page_name}: local requests that failed while loading: {seen.local_failures}"
    broken, missing_anchor = [], []
    for link in seen.links:
        target, fragment = urldefrag(link)
        status, body = fetch(target.split("?")[0])
        if status >= 400:
            broken.append((link, status))
        elif fragment and target.split("?")[0].endswith(".html") and not re.search(
            rf"""\b(id|name)=["']{re.escape(fragment)}["']""", body
        ):
            missing_anchor.append(link)
    assert not broken, f"{page_name}: local links that do not resolve: {broken}"
    assert not missing_anchor, f"{page_name}: links to anchors that do not exist: {missing_anchor}"


@pytest.mark.parametrize("page_name", PAGES)
def test_phone_layout_does_not_scroll_sideways(visit, page_name):
    seen = visit(page_name)
    assert seen.phone_overflow <= 1, f"{page_name}: at {PHONE['width']} px the page is {seen.phone_overflow} px too wide"


def test_a_copy_opened_from_disk_works_offline(chromium_context, book):
    """The promise holds for a copy of _build/html opened as files (file://, no server): MathJax, its web fonts and the
    static explorer load from disk. Checked on the first chapter (the http tests above cover every page)."""
    if not CHAPTERS:
        pytest.skip("no chapter in _toc.yml")
    first = notebook_pages()[0]
    page = chromium_context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto((book.html / f"{first}.html").as_uri(), wait_until="load")
        assert wait_for_math(page) == "typeset", f"{first}: MathJax did not run from disk"
        math = page.evaluate(MATH_REPORT)
        assert math["n_math"] and not math["untypeset"], f"{first}: equations not typeset from disk: {math['untypeset']}"
        failed_fonts = page.evaluate("() => [...document.fonts].filter(f => f.status === 'error').map(f => f.family)")
        assert not failed_fonts, f"{first}: web fonts that do not load from disk: {failed_fonts}"
        explorers = drive_explorers(page)
        assert explorers and all(e.get("frame_changed") for e in explorers), f"{first}: explorers from disk: {explorers}"
        assert not errors, f"{first}: JavaScript errors from disk: {errors}"
    finally:
        page.close()


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_solutions_open_on_any_click_of_their_title(chromium_context, site, page_name):
    """A solution's title ("Solution to Exercise N (...)") is mostly a link to the exercise: a click on it must open
    the solution where it is, not follow the link, and raise no JavaScript error (`_ext/static/solvable_site.js`)."""
    page = chromium_context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{site}/{page_name}.html", wait_until="load")
        solutions = page.locator("div.solution.dropdown")
        assert solutions.count() >= 1, f"{page_name}: no solution found"
        for i in range(solutions.count()):
            solution = solutions.nth(i)
            link = solution.locator(".admonition-title a").first
            assert link.count(), f"{page_name}: solution {i} has no link in its title"
            assert "toggle-hidden" in (solution.get_attribute("class") or ""), f"{page_name}: solution {i} starts open"
            center(page, link)
            url = page.url
            link.click()
            page.wait_for_timeout(50)
            assert page.url == url, f"{page_name}: a click on solution {i}'s title followed its link"
            assert "toggle-hidden" not in (solution.get_attribute("class") or ""), \
                f"{page_name}: solution {i} did not open on a click of its title"
            link.click()  # and closes again
            page.wait_for_timeout(50)
            assert "toggle-hidden" in (solution.get_attribute("class") or ""), f"{page_name}: solution {i} did not close"
        assert not errors, f"{page_name}: JavaScript errors while opening solutions: {errors}"
    finally:
        page.close()
