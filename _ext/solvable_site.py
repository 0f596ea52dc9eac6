"""Sphinx extension of the book (loaded through `sphinx.local_extensions` in `_config.yml`): a website that works offline.

A copy of `_build/html` opened with no network must show every equation typeset and every static explorer working.
Out of the box, a Jupyter Book 1.x page loads MathJax and the ipywidgets manager from public CDNs. This extension:

1. **Serves MathJax 3 from the site.** The files come from the `django-static-mathjax` package on PyPI (plain static
   files, installed by `requirements.txt`); nothing is vendored in the repository. After a successful HTML build they
   are copied into `<html>/_mathjax/` (the entry point `tex-mml-chtml.js` and the folders it loads lazily: TeX
   extensions, CHTML fonts, menu, accessibility), and `mathjax_path` points there. They are kept out of `_static/`:
   Jupyter Book adds every `.js`/`.css` found in a `_static/` folder of the book to every page. An explicit
   `mathjax_path` in `_config.yml` is respected.

2. **Drops the Font Awesome 4 stylesheet that matplotlib's `to_jshtml` animations link from a CDN.** The theme already
   bundles Font Awesome (its stylesheet and web fonts, see item 7), which draws the player's `fa fa-*` icons; the CDN
   link only costs a failed request offline.

3. **Degrades the saved ipywidgets gracefully.** The widget manager (`@jupyter-widgets/html-manager`, loaded by
   myst-nb from a CDN) is published on npm only: no PyPI package ships a standalone embed script that renders
   ipywidgets 8 state (`nb-offline-convert` bundles html-manager 0.20, the ipywidgets 7 protocol; `jupyterlab_widgets`
   and `voila` ship JupyterLab extension chunks, not an embed script). Online, the saved widgets render as usual. When the manager cannot be loaded (offline, or a CDN blocked), a note replaces each widget: the live
   explorer needs a kernel (Jupyter, Binder or Colab), and the page's static explorer (a matplotlib animation with a
   slider, no network needed) shows the same sweep.

4. **Fits a phone screen** (`_ext/static/solvable_site.css`, `solvable_site.js`): matplotlib's player is as wide as its
   frame and would be cut at the edge of a 390 px screen, so it shrinks with the column; an equation's number sits
   after its formula (under it on a phone), and a display still wider than the column scrolls in its own box with a
   cue; figures keep their aspect ratio and open at full size on a tap.

5. **Opens solutions on any click of their title** (`_ext/static/solvable_site.js`): a click on the link inside a
   solution's title would otherwise follow the link and throw in sphinx-togglebutton's handler.

6. **Drops duplicated inline scripts.** Jupyter Book 1.x registers sphinx-thebe's configuration snippet twice, and
   its second `const THEBE_JS_URL = ...` is a SyntaxError on every page.

7. **Lighter pages: no Font Awesome JavaScript.** pydata-sphinx-theme loads `_static/scripts/fontawesome.js` (1.5 MB,
   every icon of Font Awesome 6 as inline SVG) on every page, yet its own stylesheet already defines the `fa-*` icon
   classes on Font Awesome's web fonts (`_static/vendor/fontawesome/webfonts/`, 25-160 KB each, fetched only when an
   icon of that style is on the page). After the build, the script tag is removed from every page and the script and
   the source maps (`*.map`, never fetched by a reader) are deleted; the icons of the theme and of the explorers'
   players are then drawn by the web fonts. The figures, saved at twice their shown size so that they stay sharp on
   dense screens, are re-encoded for the website as 256-colour PNGs (a third of the bytes; for a matplotlib plot the
   mean pixel difference is below 0.1/255); the notebooks and the PDF keep the originals.

8. **Publishes the printed set with the site.** When the printed set was built first (`jupyter-book build .
   --builder pdflatex`, which writes the lecture notes, the chapter handouts, the problem sheets, the tutor's booklet
   and the reference to `_build/latex/printed/` with `printed-set.json`, see `_ext/solvable_print.py`), the HTML
   build copies them to `pdf/` in the site, and the directive `printed-set` (on the landing page) lists them with
   their page counts. Without them, it says how to build them.

9. **Launches the reader's notebook.** The launch buttons of a chapter (Binder, Colab) open its reader notebook,
   `notebooks/NN_name.ipynb`, written from the chapter by `tools/reader_notebooks.py` in plain Markdown (JupyterLab,
   Notebook and Colab know no MyST: the chapter's source would show its directives and roles as raw text). The
   download button keeps the chapter's source.

10. **Presentation mode to teach from** (`_ext/static/solvable_site.js`, `solvable_site.css`): the key P or the
   header's button; the arrow keys and a bar of buttons move between the page's sections and pages, a list jumps
   to a section; every figure fits the screen's height.

`tests/test_site.py` checks all of this in headless Chromium with every request outside localhost blocked, and
`tests/test_pdf.py` the PDF (item 8). The print edition of the PDF is `_ext/solvable_print.py`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from docutils import nodes

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.ext.mathjax import MATHJAX_URL
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

MATHJAX_DIR = "_mathjax"  # in the HTML output, next to _static/
MATHJAX_ENTRY = "tex-mml-chtml.js"  # Sphinx's default component, here served locally
# What tex-mml-chtml.js loads on demand: TeX extensions (autoload, \require), CHTML fonts, the context menu and its
# accessibility options (speech rule engine). The other combined components and the SVG output are not needed.
MATHJAX_PARTS = (MATHJAX_ENTRY, "input", "output/chtml", "ui", "a11y", "sre", "adaptors")

# matplotlib/_animation_data.py: <link rel="stylesheet" href="https://maxcdn.bootstrapcdn.com/font-awesome/4.4.0/...">
CDN_FONT_AWESOME = re.compile(
    r"""<link\b[^>]*\bhref=["']https?://[^"']*font-awesome[^"']*\.css["'][^>]*>\s*""", re.IGNORECASE
)

WIDGET_OFFLINE_CLASS = "solvable-widget-offline"
# Registered before myst-nb's widget-manager scripts (priority 400 < 500), so that it hears their load errors.
WIDGET_FALLBACK_JS = r"""
(function () {
  var failed = false;
  function showNotes() {
    document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').forEach(function (view) {
      var box = view.parentNode;
      if (!box || box.querySelector(".%(cls)s")) { return; }
      var note = document.createElement("div");
      note.className = "admonition note %(cls)s";
      note.innerHTML = '<p class="admonition-title">Live explorer: needs a Python kernel</p>' +
        "<p>This interactive widget runs in Jupyter: open the chapter on Binder or Colab (rocket icon at the top " +
        "of the page) or locally. Its widget manager could not be loaded here (no network?). The static explorer " +
        "on this page shows the same sweep and works offline: move its slider.</p>";
      box.insertBefore(note, view);
    });
  }
  window.addEventListener("error", function (event) {
    var el = event.target;
    if (failed || !el || el.tagName !== "SCRIPT" || !/html-manager|require(\.min)?\.js/.test(el.src || "")) { return; }
    failed = true;
    if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", showNotes); }
    else { showNotes(); }
  }, true);
})();
""".replace("%(cls)s", WIDGET_OFFLINE_CLASS)


def mathjax_source() -> Path:
    """The `es5` folder of MathJax 3 installed by the PyPI package `django-static-mathjax` (import name `mathjax`)."""
    try:
        import mathjax  # django-static-mathjax
    except ImportError as err:
        raise ExtensionError(
            "MathJax is served from the site and comes from the PyPI package django-static-mathjax: "
            "pip install -r requirements.txt"
        ) from err
    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (source / MATHJAX_ENTRY).is_file():
        raise ExtensionError(f"django-static-mathjax is installed but {source / MATHJAX_ENTRY} is missing")
    return source


def use_local_mathjax(app: Sphinx, config) -> None:
    mathjax_source()  # fail early, with the fix in the message
    if config.mathjax_path == MATHJAX_URL:
        # Sphinx resolves a relative mathjax_path against _static/.
        config.mathjax_path = f"../{MATHJAX_DIR}/{MATHJAX_ENTRY}"


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    if not app.config.mathjax_path.endswith(f"{MATHJAX_DIR}/{MATHJAX_ENTRY}"):
        return  # the user chose another MathJax
    source, target = mathjax_source(), Path(app.outdir) / MATHJAX_DIR
    for part in MATHJAX_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part, dirs_exist_ok=True)
        else:
            target.joinpath(part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / part, target / part)
    shutil.copy2(source.parent / "LICENSE", target / "LICENSE")
    logger.info(f"MathJax 3 copied from django-static-mathjax into {target}")


def tidy_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html":
        return
    if "body" in context:
        context["body"] = CDN_FONT_AWESOME.sub("", context["body"])

    scripts = context.get("script_files", [])
    if any("html-manager" in str(getattr(js, "filename", "") or "") for js in scripts):
        app.builder.add_js_file(
            "", body=WIDGET_FALLBACK_JS, priority=400
        )  # appended to this page's script_files

    seen, unique = set(), []
    for js in context.get("script_files", []):
        # An inline script registered twice may carry filename None once and "" once (Sphinx's registry vs builder).
        key = (str(getattr(js, "filename", js) or ""), tuple(sorted(getattr(js, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    context["script_files"] = unique


READER_NOTEBOOKS = "notebooks"  # tools/reader_notebooks.py writes one per chapter, named like the chapter


def launch_reader_notebook(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Point the launch buttons of a chapter at its reader notebook (item 9 above)."""
    if app.builder.format != "html" or not (Path(app.srcdir) / f"{pagename}.ipynb").is_file():
        return
    reader = Path(app.srcdir) / READER_NOTEBOOKS / f"{Path(pagename).name}.ipynb"
    if not reader.is_file():
        logger.warning(f"{pagename}: no reader notebook {reader.name} (python tools/reader_notebooks.py)")
        return
    source, target = f"{pagename}.ipynb", f"{READER_NOTEBOOKS}/{reader.name}"
    for group in context.get("header_buttons", []):
        if isinstance(group, dict) and group.get("label") == "launch-buttons":
            for button in group.get("buttons", []):
                url = button.get("url", "")
                if url.endswith(f"/{source}"):
                    button["url"] = url[: -len(source)] + target


FONT_AWESOME_SCRIPT = re.compile(
    r"""[ \t]*<script\b[^>]*\bsrc=["'][^"']*_static/scripts/fontawesome\.js[^"']*["'][^>]*>\s*</script>\n?"""
)


def lighten_site(app: Sphinx, exception: Exception | None) -> None:
    """Remove the Font Awesome script from every page and delete it and the source maps (item 7 above)."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lighter = FONT_AWESOME_SCRIPT.sub("", text)
        if lighter != text:
            page.write_text(lighter, encoding="utf-8")
    for path in out.joinpath("_images").glob("*.png"):
        _palette_png(path)
    for path in [out / "_static" / "scripts" / "fontawesome.js", *out.joinpath("_static").rglob("*.map")]:
        path.unlink(missing_ok=True)
    for path in out.joinpath("_static").rglob("*.LICENSE.txt"):
        if not path.with_name(path.name.removesuffix(".LICENSE.txt")).exists():
            path.unlink()


PALETTE_MIN_BYTES = 40_000  # smaller images are not worth the time


def _palette_png(path: Path) -> None:
    """Re-encode an opaque PNG with an adaptive 256-colour palette (median cut, no dithering) if that is smaller."""
    if path.stat().st_size < PALETTE_MIN_BYTES:
        return
    import io

    from PIL import Image  # Pillow: a dependency of matplotlib

    with Image.open(path) as image:
        image.load()
        if image.mode not in ("RGB", "RGBA") or (image.mode == "RGBA" and image.getextrema()[3][0] < 255):
            return  # palette images, or transparency a palette would lose
        palette = image.convert("RGB").quantize(
            colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", optimize=True)
    if buffer.tell() < path.stat().st_size:
        path.write_bytes(buffer.getvalue())


PRINTED = ("latex", "printed")  # where _ext/solvable_print.py cuts the printed set, under _build/
PRINTED_MANIFEST = "printed-set.json"
PUBLISHED_PDF_DIR = "pdf"  # where the site publishes it
#: The order and wording of the landing page's list (kinds of printed-set.json).
PRINTED_KINDS = {
    "notes": "the five chapters with their worked solutions, the notation, the bibliography and the index",
    "handout": "the chapter with its exercises and hints (its problem sheet), without solutions",
    "sheets": "every exercise with its hints, one sheet a chapter, without solutions",
    "booklet": "the lecture plan and every worked solution, with the page numbers of the lecture notes",
    "reference": "the reproductions of the papers and the API reference",
}


def printed_set(app: Sphinx) -> tuple[Path, dict]:
    """Where the printed set lies and its manifest ({} when it has not been built)."""
    folder = Path(app.outdir).parent.joinpath(*PRINTED)
    manifest = folder / PRINTED_MANIFEST
    return folder, (json.loads(manifest.read_text(encoding="utf-8")) if manifest.is_file() else {})


class PrintedSetDirective(SphinxDirective):
    """``printed-set``: a list of the printed set's PDFs with their page counts, linked where the site publishes them
    (item 8 above)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        folder, manifest = printed_set(self.env.app)
        self.env.note_dependency(str(folder / PRINTED_MANIFEST))
        if not manifest:
            paragraph = nodes.paragraph("", "The printed set is built by ")
            paragraph += nodes.literal("", "jupyter-book build . --builder pdflatex")
            paragraph += nodes.Text(
                ' before the website (README, "For a lecturer"), which then lists it here.'
            )
            return [paragraph]
        prefix = "../" * self.env.docname.count("/")
        items = nodes.bullet_list(classes=["solvable-printed-set"])
        for kind, what in PRINTED_KINDS.items():
            for name, part in manifest.items():
                if part["kind"] != kind:
                    continue
                item = nodes.paragraph()
                url = f"{prefix}{PUBLISHED_PDF_DIR}/{name}"
                item += nodes.reference("", part["title"], refuri=url, classes=["solvable-printed-pdf"])
                item += nodes.Text(f" (PDF, {part['pages']} pages): {what}.")
                items += nodes.list_item("", item)
        return [items]


def publish_pdf(app: Sphinx, exception: Exception | None) -> None:
    """Copy the printed set, if it was built, to pdf/ in the site (item 8 above)."""
    if exception is not None or app.builder.format != "html":
        return
    folder, manifest = printed_set(app)
    if not manifest:
        return
    target = Path(app.outdir) / PUBLISHED_PDF_DIR
    target.mkdir(exist_ok=True)
    for name in manifest:
        shutil.copy2(folder / name, target / name)
    shutil.copy2(folder / PRINTED_MANIFEST, target / PRINTED_MANIFEST)
    logger.info(f"printed set ({len(manifest)} PDFs) copied from {folder} to {target}")


def add_static_files(app: Sphinx) -> None:
    """The extension's own CSS (explorers, equations and tables on narrow screens) and script (solutions that open on
    a click of their title), copied into the site's _static/."""
    app.config.html_static_path.append(str(Path(__file__).parent / "static"))


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", add_static_files)
    app.add_css_file("solvable_site.css")
    app.add_js_file("solvable_site.js")
    app.connect("config-inited", use_local_mathjax, priority=900)
    app.connect("html-page-context", tidy_page, priority=900)  # after myst-nb and sphinx.ext.mathjax (500)
    app.connect(
        "html-page-context", launch_reader_notebook, priority=900
    )  # after sphinx-book-theme's buttons (501)
    app.connect("build-finished", copy_mathjax)
    app.connect("build-finished", lighten_site)
    app.connect("build-finished", publish_pdf)
    app.add_directive("printed-set", PrintedSetDirective)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
