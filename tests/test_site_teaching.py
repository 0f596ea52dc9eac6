"""What a lecturer and a student do on a chapter of the website, in headless Chromium with no network (the scheme
of tests/test_site.py, fixtures in tests/_site.py):

- a copy of the site opened from disk (file://, no server) typesets its equations and moves its explorers;
- a click anywhere on a solution's title opens it where it is (and closes it again);
- a tap on a figure opens it at full size on a phone;
- presentation mode (P): at 1366 x 768 and 1920 x 1080 no figure taller than the screen and captions at a regular
  weight or more; the arrow keys, the bar's buttons and its list of sections move between sections and pages
  (screenshots `present-*.png`).
"""

from __future__ import annotations

import contextlib
import re

import pytest
from _book import notebook_pages
from _site import CHAPTERS, MATH_REPORT, PHONE, center, drive_explorers, wait_for_math, without_math


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
        assert math["n_math"] and not math["untypeset"], (
            f"{first}: equations not typeset from disk: {math['untypeset']}"
        )
        failed_fonts = page.evaluate(
            "() => [...document.fonts].filter(f => f.status === 'error').map(f => f.family)"
        )
        assert not failed_fonts, f"{first}: web fonts that do not load from disk: {failed_fonts}"
        explorers = drive_explorers(page)
        assert explorers and all(e.get("frame_changed") for e in explorers), (
            f"{first}: explorers from disk: {explorers}"
        )
        assert not errors, f"{first}: JavaScript errors from disk: {errors}"
    finally:
        page.close()


def _wait_for_toggle(page, element, *, hidden: bool, timeout_ms: int = 1000) -> None:
    """Wait until a collapsible block is (or is not) hidden; past the time limit the caller's assertion says so."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            "([e, hidden]) => e.classList.contains('toggle-hidden') === hidden",
            arg=[element.element_handle(), hidden],
            timeout=timeout_ms,
        )


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_solutions_open_on_any_click_of_their_title(chromium_context, site, page_name):
    """A solution's title ("Solution to Exercise N (...)") is mostly a link to the exercise: a click on it must open
    the solution where it is, not follow the link, and raise no JavaScript error (`_ext/static/solvable_site.js`)."""
    page = without_math(chromium_context.new_page())
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
            assert "toggle-hidden" in (solution.get_attribute("class") or ""), (
                f"{page_name}: solution {i} starts open"
            )
            url = page.url
            link.click()  # Playwright scrolls it into view first
            _wait_for_toggle(page, solution, hidden=False)
            assert page.url == url, f"{page_name}: a click on solution {i}'s title followed its link"
            assert "toggle-hidden" not in (solution.get_attribute("class") or ""), (
                f"{page_name}: solution {i} did not open on a click of its title"
            )
            link.click()  # and closes again
            _wait_for_toggle(page, solution, hidden=True)
            assert "toggle-hidden" in (solution.get_attribute("class") or ""), (
                f"{page_name}: solution {i} did not close"
            )
        assert not errors, f"{page_name}: JavaScript errors while opening solutions: {errors}"
    finally:
        page.close()


@pytest.mark.parametrize("page_name", sorted(CHAPTERS)[:1])
def test_a_figure_opens_full_size_on_a_phone(chromium_context, site, page_name):
    """A multi-panel figure shrinks to the width of a phone: a tap shows it at full size in an overlay that scrolls,
    and a second tap closes it (`_ext/static/solvable_site.js`)."""
    page = without_math(chromium_context.new_page())  # a figure's size does not depend on the equations
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.set_viewport_size(PHONE)
        page.goto(f"{site}/{page_name}.html", wait_until="load")
        figure = page.locator(".bd-article figure img").first
        center(page, figure)
        shown = figure.evaluate("i => i.getBoundingClientRect().width")
        figure.click()
        zoom = page.locator(".solvable-zoom img")
        assert zoom.count() == 1 and zoom.is_visible(), f"{page_name}: no full-size view on a tap of a figure"
        assert zoom.evaluate("i => i.getBoundingClientRect().width") > shown + 50, (
            f"{page_name}: the view is not larger"
        )
        page.locator(".solvable-zoom").click()
        assert page.locator(".solvable-zoom").count() == 0, (
            f"{page_name}: a second tap did not close the view"
        )
        assert not errors, f"{page_name}: JavaScript errors: {errors}"
    finally:
        page.close()


PROJECTOR = {"width": 1920, "height": 1080}
#: Presentation mode (`_ext/static/solvable_site.js`, `solvable_site.css`): text at least this many CSS pixels.
PRESENT_MIN_TEXT_PX = 20


@pytest.mark.parametrize("page_name", sorted(CHAPTERS)[1:2])
def test_presentation_mode_for_a_projector(chromium_context, site, page_name):
    """At 1920 x 1080, one click (or the key P) hides the sidebars, enlarges the text and widens the figures; the mode
    stays on the next page, and P turns it off (without MathJax: sizes and fonts do not depend on it)."""
    page = without_math(chromium_context.new_page())
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    measure = """() => {
        const visible = (s) => [...document.querySelectorAll(s)].some((e) => e.getClientRects().length > 0
                                                                        && getComputedStyle(e).display !== "none");
        const text = document.querySelector(".bd-article p");
        const figure = document.querySelector(".bd-article figure img");
        return {sidebars: visible(".bd-sidebar-primary") || visible(".bd-sidebar-secondary"),
                text: parseFloat(getComputedStyle(text).fontSize),
                figure: figure.getBoundingClientRect().width, figure_height: figure.getBoundingClientRect().height,
                column: text.getBoundingClientRect().width};
    }"""
    try:
        page.set_viewport_size(PROJECTOR)
        page.goto(f"{site}/{page_name}.html", wait_until="load")
        before = page.evaluate(measure)
        button = page.locator(".solvable-present-button")
        assert button.count() == 1 and button.is_visible(), (
            f"{page_name}: no presentation-mode button in the header"
        )
        button.click()
        shown = page.evaluate(measure)
        assert not shown["sidebars"], f"{page_name}: the sidebars stay in presentation mode"
        assert shown["text"] >= PRESENT_MIN_TEXT_PX > before["text"], (
            f"{page_name}: body text {before['text']} px, {shown['text']} px in presentation mode"
        )
        assert shown["figure"] > before["figure"] and shown["figure_height"] <= PROJECTOR["height"], (
            f"{page_name}: a figure is {shown['figure']:.0f} x {shown['figure_height']:.0f} px in presentation mode "
            f"({before['figure']:.0f} px wide before)"
        )
        assert shown["column"] >= 0.75 * PROJECTOR["width"], f"{page_name}: column {shown['column']:.0f} px"
        following = page.locator("a.right-next").first.evaluate("a => a.href")  # the next page keeps the mode
        page.goto(following, wait_until="load")
        assert page.evaluate("document.documentElement.classList.contains('solvable-present')"), (
            "presentation mode does not stay on from page to page"
        )
        page.keyboard.press("p")
        assert not page.evaluate(measure)["text"] >= PRESENT_MIN_TEXT_PX, (
            "the key P does not turn the mode off"
        )
        page.keyboard.press("p")
        assert page.evaluate(measure)["text"] >= PRESENT_MIN_TEXT_PX, "the key P does not turn the mode on"
        page.keyboard.press("Escape")
        assert page.evaluate(measure)["text"] < PRESENT_MIN_TEXT_PX, "Escape does not leave the mode"
        assert not errors, f"{page_name}: JavaScript errors: {errors}"
    finally:
        page.close()


@pytest.mark.parametrize("page_name", sorted(CHAPTERS)[:1])
def test_captions_are_dark_enough_for_a_projector(chromium_context, site, page_name):
    """Figure captions in the text colour (contrast at least 7:1 on the white page, WCAG AAA), not a light grey."""
    page = without_math(chromium_context.new_page())
    try:
        page.goto(f"{site}/{page_name}.html", wait_until="load")
        colour = page.locator(".bd-article figcaption p").first.evaluate("e => getComputedStyle(e).color")
        red, green, blue = (int(v) for v in re.findall(r"\d+", colour)[:3])

        def linear(c):
            c /= 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        contrast = 1.05 / (luminance + 0.05)
        assert contrast >= 7, f"{page_name}: captions in {colour}, contrast {contrast:.1f}:1 on white"
    finally:
        page.close()


# --- teaching from the website: presentation mode at a projector's sizes -----------------------------------------------

PRESENT_SIZES = {"1366x768": {"width": 1366, "height": 768}, "1920x1080": {"width": 1920, "height": 1080}}

PRESENT_FIGURES = r"""() => [...document.querySelectorAll('.bd-article figure img, .bd-article .cell_output img')]
    .filter(i => i.getClientRects().length > 0)
    .map(i => {
        const r = i.getBoundingClientRect(), caption = i.closest('figure') && i.closest('figure').querySelector('figcaption p');
        return {src: i.getAttribute('src').slice(-24), width: r.width, height: r.height,
                caption_weight: caption ? parseInt(getComputedStyle(caption).fontWeight) : 400};
    })"""


#: Where a figure brought to the top of the screen starts (the scroll padding) and where the navigation bar starts.
PRESENT_ROOM = r"""() => ({top: parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0,
    bar: document.querySelector('.solvable-present-bar').getBoundingClientRect().top})"""


def _present(page, base, page_name, size, *, math=True):
    page.set_viewport_size(size)
    page.goto(f"{base}/{page_name}.html", wait_until="load")
    if math:
        wait_for_math(page)  # typesetting moves the sections down: measure after it
    if not page.evaluate("document.documentElement.classList.contains('solvable-present')"):
        page.keyboard.press("p")
    page.wait_for_function(
        "() => [...document.images].every(i => i.complete)"
    )  # the mode loads them all at once
    page.wait_for_timeout(300)


@pytest.mark.parametrize("page_name", sorted(CHAPTERS))
def test_presentation_mode_fits_every_figure_on_the_screen(chromium_context, site, screenshots, page_name):
    """In presentation mode at 1366 x 768 and 1920 x 1080, no figure (nor explorer frame) is taller than the screen
    nor, brought to the top, reaches under the navigation bar, and captions print at a regular weight or more (a
    thin one washes out on a projector). The page is opened once and the screen resized; without MathJax, except
    on the page whose screenshots the check saves (the figures' sizes do not depend on the equations)."""
    shots = page_name == sorted(CHAPTERS)[0]
    page = chromium_context.new_page() if shots else without_math(chromium_context.new_page())
    try:
        for k, size in enumerate(sorted(PRESENT_SIZES)):
            viewport = PRESENT_SIZES[size]
            if k == 0:
                _present(page, site, page_name, viewport, math=shots)
            else:
                page.set_viewport_size(viewport)
                page.wait_for_timeout(300)
            figures = page.evaluate(PRESENT_FIGURES)
            assert figures, f"{page_name}: no figure in presentation mode"
            tall = [
                f"{f['src']}: {f['height']:.0f} px" for f in figures if f["height"] > viewport["height"] + 0.5
            ]
            assert not tall, f"{page_name} at {size}: figures taller than the screen: {tall}"
            # brought to the top (below the row of buttons: scroll-padding-top), a figure ends above the bar
            room = page.evaluate(PRESENT_ROOM)
            covered = [
                f"{f['src']}: {room['top'] + f['height']:.0f} px > {room['bar']:.0f} px"
                for f in figures
                if room["top"] + f["height"] > room["bar"] + 0.5
            ]
            assert not covered, (
                f"{page_name} at {size}: figures that reach under the navigation bar: {covered}"
            )
            thin = [f["src"] for f in figures if f["caption_weight"] < 400]
            assert not thin, f"{page_name} at {size}: captions in a thin weight: {thin}"
            if shots:
                figure = page.locator(".bd-article figure").nth(1)
                figure.evaluate("e => e.scrollIntoView({block: 'start'})")
                page.wait_for_timeout(150)
                page.screenshot(path=screenshots / f"present-{size}-figure.png")
                page.evaluate("() => window.scrollTo(0, 0)")
                page.wait_for_timeout(150)
                page.screenshot(path=screenshots / f"present-{size}-top.png")
    finally:
        page.close()


def test_presentation_mode_navigates_by_keyboard_and_buttons(chromium_context, site):
    """Right / Left arrow: next / previous section, past the last one the next page; Shift + arrows: pages; the bar's
    buttons and its list of sections do the same. Without MathJax: the sections' places are measured once the page
    is laid out, whatever it typesets."""
    first, second = notebook_pages()[:2]
    page = without_math(chromium_context.new_page())
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    top_section = """() => { const s = [...document.querySelectorAll('.bd-article section > section')]
        .filter(x => x.getBoundingClientRect().top <= window.innerHeight * 0.1); return s.length; }"""
    try:
        _present(page, site, first, PRESENT_SIZES["1920x1080"], math=False)
        bar = page.locator(".solvable-present-bar")
        assert bar.is_visible(), "no navigation bar in presentation mode"
        n_sections = page.evaluate("() => document.querySelectorAll('.bd-article section > section').length")
        options = page.locator(".solvable-present-contents option").count()
        assert options == page.evaluate("""() => 1 + document.querySelector('.bd-article section')
            .querySelectorAll(':scope > section').length"""), f"the bar lists {options} sections"
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(150)
        assert page.evaluate(top_section) == 1, "Right arrow does not go to the first section"
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(150)
        assert page.evaluate(top_section) == 2, "Right arrow does not go to the next section"
        page.keyboard.press("ArrowLeft")
        page.wait_for_timeout(150)
        assert page.evaluate(top_section) == 1, "Left arrow does not go back a section"
        page.locator(".solvable-next-section").click()
        page.wait_for_timeout(150)
        assert page.evaluate(top_section) == 2, "the bar's next-section button does not move"
        page.locator(".solvable-present-contents").select_option(str(options - 1))
        page.wait_for_timeout(150)
        assert page.evaluate(top_section) >= options - 2, "the bar's list does not jump to the last section"
        assert n_sections >= options - 1
        with page.expect_navigation():
            page.keyboard.press("ArrowRight")  # past the last section: the next page
        assert page.url.split("#")[0].endswith(f"{second}.html"), f"Right arrow at the end went to {page.url}"
        assert page.evaluate("document.documentElement.classList.contains('solvable-present')")
        with page.expect_navigation():
            page.keyboard.press("Shift+ArrowLeft")
        assert page.url.split("#")[0].endswith(f"{first}.html"), f"Shift + Left went to {page.url}"
        with page.expect_navigation():
            page.locator(".solvable-next-page").click()
        assert page.url.split("#")[0].endswith(f"{second}.html"), f"the next-page button went to {page.url}"
        page.locator(".solvable-present-exit").click()
        assert not page.evaluate("document.documentElement.classList.contains('solvable-present')")
        assert not bar.is_visible() if bar.count() else True
        assert not errors, f"JavaScript errors: {errors}"
    finally:
        page.close()
