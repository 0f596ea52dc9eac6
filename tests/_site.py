"""The website served on localhost and opened in the system's Chromium: the fixtures and the measurement of a page
shared by tests/test_site.py (every page, as a reader sees it) and tests/test_site_teaching.py (what a lecturer and a
student do on a chapter). The scheme (a local server, no host name resolved but localhost, screenshots) is described
in tests/test_site.py.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from _book import notebook_pages, toc_files, widget_manager_urls

PAGES = toc_files()
CHAPTERS = set(notebook_pages())
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PAGE_TIMEOUT_MS = 30_000
CHROMIUM_NAMES = ("chromium", "google-chrome", "google-chrome-stable", "chromium-browser")
CHROMIUM_FLAGS = [
    # (Playwright adds --headless itself, and launch_persistent_context gives the fresh --user-data-dir.)
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
WIDGET_MANAGER = widget_manager_urls()
WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'
LAUNCH_BUTTONS = ".dropdown-launch-buttons a[href]"  # sphinx-book-theme's rocket menu (hidden until opened)
WIDGET_NOTE = (
    ".solvable-widget-offline"  # inserted by _ext/solvable_site.py when the widget manager cannot load
)


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
        where = (
            f"at $SOLVABLE_CHROMIUM ({explicit})" if explicit else f"on PATH (as {', '.join(CHROMIUM_NAMES)})"
        )
        problem = f"no Chromium found {where}"
    else:
        try:
            import playwright.sync_api
        except ImportError:
            problem = "the playwright Python package is missing (pip install -r requirements.txt)"
    if problem:
        if os.environ.get("SOLVABLE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here (SOLVABLE_REQUIRE_BROWSER=1) but {problem}")
        pytest.skip(
            f"browser tests of the website skipped: {problem}. On Debian/Ubuntu: apt-get install chromium"
        )

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

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            # A page closed while an image was still loading resets its connection: not a failure of the site.
            if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
                super().handle_error(request, client_address)

    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=str(book.html)))
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
    for (const pattern of [/\\\(/g, /\\\)/g, /\\\[/g, /\\\]/g, /\$\$/g, /\\begin\{/g, /\\[A-Za-z]{2,}/g]) {
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


OPEN_COLLAPSED = """() => {
    document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
    document.querySelectorAll('details').forEach(d => { d.open = true; });
}"""

# Every code box a reader sees (a cell's input or a code block of the text, collapsed ones opened first; not the
# printed outputs): does its text scroll sideways?
CODE_BOXES = r"""() => [...document.querySelectorAll('div.cell_input pre, div.highlight pre')]
    .filter(p => p.clientWidth > 0 && !p.closest('.cell_output'))
    .map(p => ({scrolls: p.scrollWidth > p.clientWidth + 1,
                line: p.innerText.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '')}))"""

# The verdicts of the exercises' checks (the printed output of a cell tagged hide-input): does one scroll sideways?
VERDICTS = r"""() => [...document.querySelectorAll('div.cell.tag_hide-input div.cell_output pre')]
    .filter(p => p.clientWidth > 0)
    .map(p => ({scrolls: p.scrollWidth > p.clientWidth + 1, text: p.innerText.slice(0, 60)}))"""

# Every display equation (collapsed solutions opened first): does it scroll inside its box, does its box show the cue
# (class set by _ext/static/solvable_site.js, shaded edge in solvable_site.css), does its number overlap the formula.
EQUATIONS = r"""() => [...document.querySelectorAll('mjx-container[display="true"]')].map(c => {
    const box = c.closest('div.math'), eqno = box ? box.querySelector(':scope > .eqno') : null;
    const f = c.querySelector('mjx-math').getBoundingClientRect();
    let overlap = false, after = true;
    if (eqno) {
        const e = eqno.getBoundingClientRect();
        overlap = e.width > 0 && e.left < f.right - 1 && e.right > f.left + 1 && e.top < f.bottom - 1 && e.bottom > f.top + 1;
        after = e.left >= f.right - 1 || e.top >= f.bottom - 1;  // right of the formula, or under it on a phone
    }
    return {id: box && box.id ? box.id : c.textContent.slice(0, 40), scrolls: c.scrollWidth > c.clientWidth + 1,
            cue: c.classList.contains('solvable-scrolls'), overflow: getComputedStyle(c).overflowX, overlap, after};
})"""

# Content figures: the images of cell outputs (not the frames of the static explorers) and of figure directives.
FIGURES = r"""() => {
    const contentBox = e => {  // the drawn image, without the theme's padding and border
        const r = e.getBoundingClientRect(), s = getComputedStyle(e), px = v => parseFloat(v) || 0;
        return {width: r.width - px(s.paddingLeft) - px(s.paddingRight) - px(s.borderLeftWidth) - px(s.borderRightWidth),
                height: r.height - px(s.paddingTop) - px(s.paddingBottom) - px(s.borderTopWidth) - px(s.borderBottomWidth)};
    };
    return [...document.querySelectorAll('.bd-article .cell_output img, .bd-article figure img')]
    .filter(i => !i.closest('.animation'))
    .map(i => {
        const figure = i.closest('figure');
        const number = figure ? figure.querySelector('figcaption .caption-number') : null;
        const caption = figure ? figure.querySelector('figcaption .caption-text') : null;
        return {src: i.getAttribute('src').slice(-24), number: number ? number.textContent.trim() : null,
                caption: caption ? caption.textContent.trim() : '', natural: i.naturalWidth,
                nominal: parseFloat(i.style.width) || parseFloat(i.getAttribute('width')) || i.naturalWidth,
                shown: i.getBoundingClientRect().width,
                aspect: [contentBox(i).width / contentBox(i).height, i.naturalWidth / i.naturalHeight]};
    })
}"""

EXERCISE_TITLES = r"""() => [...document.querySelectorAll('div.exercise > .admonition-title')]
    .map(t => (t.textContent.match(/Exercise\s+[\d.]+/) || [t.textContent.trim()])[0])"""

VISIBLE_TEXT = "() => document.querySelector('main').innerText"

# What a cold load of the page fetched (bytes of every resource, by URL), from the Resource Timing API.
PAGE_WEIGHT = """() => [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
    .map(e => [e.name, e.encodedBodySize || e.transferSize || 0])"""

SEARCH_CONTROLS = """() => [...document.querySelectorAll('input[type=search], .search-button-field, .search-button__button')]
    .filter(e => { const r = e.getBoundingClientRect(); return e.offsetParent !== null && r.width > 0 && r.height > 0; })
    .length"""


def slug(page: str) -> str:
    return page.replace("/", "__")


def wait_for_math(page) -> str:
    return page.evaluate(WAIT_FOR_MATHJAX)


def without_math(page):
    """The page with MathJax left out, for a test that measures no equation (clicks, figure sizes, colours): the
    typesetting is most of the time a chapter takes to load (measured on chapter 4: 7.6 s with it, 2.9 s without,
    for the load and the clicks of the solutions test). The equations are tested on every page by tests/test_site.py,
    and the site's script runs without MathJax (it waits for it only if it is there)."""
    page.route("**/_mathjax/**", lambda route: route.abort())
    return page


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
        results.append(
            {
                "complete": True,
                "frames": int(slider.get_attribute("max")) + 1,
                "value": (before_value, slider.input_value()),
                "frame_changed": image.get_attribute("src") != before_src,
                "decoded": image.evaluate("i => i.complete && i.naturalWidth > 0"),
            }
        )
    return results


class Visit:
    """Everything one page shows a reader, measured once and shared by the tests below."""

    def __init__(self, context, base: str, page_name: str, folder: Path):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        self.console_errors, self.page_errors, self.local_failures = [], [], []
        blocked_before = len(context.blocked)
        page = context.new_page()
        page.on(
            "console",
            lambda m: m.type == "error" and self.console_errors.append((m.text, m.location.get("url", ""))),
        )
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))
        favicon = f"{base}/favicon.ico"  # asked for by the browser itself (see allowed_console_error)
        page.on(
            "response",
            lambda r: (
                r.status >= 400
                and r.url.startswith(base)
                and r.url != favicon
                and self.local_failures.append((r.url, r.status))
            ),
        )
        page.on(
            "requestfailed",
            lambda r: r.url.startswith(base) and self.local_failures.append((r.url, r.failure)),
        )
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
                    page.wait_for_function(
                        "() => document.documentElement.dataset.theme === 'dark'", timeout=5000
                    )
                self.dark_theme = page.evaluate("() => document.documentElement.dataset.theme")
                page.screenshot(path=folder / f"{slug(page_name)}.dark-explorer.png")
                page.evaluate("() => window.scrollTo(0, 0)")
                page.screenshot(path=folder / f"{slug(page_name)}.dark.png")
            self.launch = page.eval_on_selector_all(LAUNCH_BUTTONS, "els => els.map(e => e.href)")
            self.links = sorted(set(page.evaluate(LOCAL_URLS)))
            self.weight = page.evaluate(PAGE_WEIGHT)
            self.search_controls = page.evaluate(SEARCH_CONTROLS)
            self.figures = page.evaluate(FIGURES)
            self.exercises = page.evaluate(EXERCISE_TITLES)
            self.text = page.evaluate(VISIBLE_TEXT)
            page.evaluate(OPEN_COLLAPSED)
            page.wait_for_timeout(100)
            self.equations = page.evaluate(EQUATIONS)
            self.code_boxes = page.evaluate(CODE_BOXES)
            self.verdicts = page.evaluate(VERDICTS)

            # the same page at a phone's width (the layout follows the width: no second load and typesetting)
            phone = page
            phone.emulate_media(color_scheme="light")
            phone.set_viewport_size(PHONE)
            phone.evaluate("() => window.scrollTo(0, 0)")
            phone.wait_for_timeout(300)
            self.phone_overflow = phone.evaluate(
                "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            self.phone_search_controls = phone.evaluate(SEARCH_CONTROLS)
            phone.screenshot(path=folder / f"{slug(page_name)}.phone.png")
            if phone.locator("div.animation").count():
                center(phone, phone.locator("div.animation").first)
                phone.screenshot(path=folder / f"{slug(page_name)}.phone-explorer.png")
            self.phone_equations = phone.evaluate(EQUATIONS)
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
