"""Reader notebooks: each chapter as a notebook that any Jupyter front end renders (`python tools/reader_notebooks.py`).

The chapters (`chapters/*.ipynb`) are written in MyST Markdown for Jupyter Book: `{exercise}` and `{solution}` blocks,
labelled equations `$$ ... $$ (eq-label)`, the roles `{eq}`, `{numref}`, `{ref}`, `{cite:p}`, `{cite:t}`, `{glue:text}`,
figure captions in the code cells' `mystnb.figure` metadata. JupyterLab, the classic Notebook and Google Colab know no
MyST: there every directive shows as a grey code block and every role as raw text. This script writes, for each chapter
of `_toc.yml`, a *reader notebook* `notebooks/NN_name.ipynb` in plain Markdown and standard math, numbered like the
website:

- headings, equations, figures and exercises carry the website's numbers ("1.3.2.", `\\tag{1.4}`, "**Figure 1.3.**",
  "Exercise 1.2 (title)"); every `{eq}`, `{numref}`, `{ref}`, `{cite:p}`/`{cite:t}` (author-year, as on the website,
  with a References section), `{glue:text}` (the value saved in the chapter) and `{py:mod}`/`{doc}` role is replaced by
  its text, and links to other pages of the book point to the website;
- admonitions become a blockquote with a bold title, dropdown admonitions (the exercises' "Hint 1", "Hint 2", "Short
  answer") HTML `<details>` blocks; `{index}` entries, labels and `{only} latex` blocks are dropped, `{only} html`
  blocks kept;
- every `{solution}` moves to a "Solutions" section at the end, so that no solution sits between an exercise and its
  check;
- code cells are kept with their tags and exercise metadata but without outputs (the reader runs the notebook); cells
  the website hides (`remove-cell`, `remove-input`) are collapsed (`"jupyter": {"source_hidden": true}`), the hidden
  Colab install cell included, which makes the notebook run on Colab.

It runs in the book's environment (`requirements.txt`: nbformat, PyYAML, and pybtex through sphinxcontrib-bibtex).
One source: the chapters. `python tools/reader_notebooks.py --check` exits with status 1 when a committed reader
notebook differs from what the chapters give (tests/test_reader_notebooks.py runs it). The launch buttons of the
website open these notebooks (`_ext/solvable_site.py`).

Why a hand-written MyST-to-Markdown pass: the chapters use a small, closed set of directives and roles (listed in
`DIRECTIVES` and `ROLES` below; anything else stops the script with its name, so that a new one is handled on purpose,
not printed raw), and the converters that exist do not fit: sphinx-tojupyter (the QuantEcon builder) is unmaintained
and does not support Jupyter Book 1.x's Sphinx, jupytext converts the notebook format, not MyST's directives, and a
Sphinx builder would need the whole book build (a minute) where this script takes about a second. Fences are matched as
MyST and CommonMark do: a block opened by N backticks (or colons) is closed by a bare fence of at least N of the same
character, so a ```` ````{solution} ```` block holds its ```` ```python ```` code.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = "notebooks"

# Admonitions of MyST / Sphinx and the title they print with.
NAMED_ADMONITIONS = {
    "note": "Note",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "warning": "Warning",
    "caution": "Caution",
    "attention": "Attention",
    "danger": "Danger",
    "error": "Error",
    "seealso": "See also",
}
DIRECTIVES = {
    "admonition",
    *NAMED_ADMONITIONS,
    "exercise",
    "solution",
    "index",
    "only",
    "figure",
    "math",
    "div",
    "container",
    "code-block",
    "code",
}
ROLES = {
    "eq",
    "numref",
    "ref",
    "cite",
    "cite:p",
    "cite:t",
    "cite:ps",
    "cite:ts",
    "glue",
    "glue:text",
    "doc",
    "index",
    "math",
    "py:mod",
    "py:func",
    "py:class",
    "py:meth",
    "py:attr",
    "py:obj",
    "py:data",
    "py:exc",
}
HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-cell", "hide-input"}
KEPT_CELL_METADATA = ("tags", "exercise", "jupyter")

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*)$")
DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[\w:.-]+)\}\s*(?P<arg>.*)$")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<title>.*?)\s*#*\s*$")
TARGET = re.compile(r"^\((?P<label>[\w:.-]+)\)=\s*$")
MATH_CLOSE = re.compile(r"^(?P<indent>\s*)(?P<before>.*?)\$\$\s*(?:\((?P<label>[\w:.-]+)\))?\s*$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<content>[^`]*)`")
LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
CODE_LABEL = re.compile(
    r"(?P<open>\()?(?<![\w-])(?P<label>(?:eq|fig|ex|sec)-[\w-]*\w)(?![\w-])(?P<close>\))?"
)


class ReaderError(Exception):
    """The chapters use something this converter does not know: handle it here, on purpose."""


# --------------------------------------------------------------------------------------------------------------------
# Parsing MyST Markdown into blocks
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class Text:
    lines: list[str]


@dataclass
class Fence:  # a code block: kept, labels in its comments read as numbers
    lines: list[str]
    indent: str = ""


@dataclass
class Math:
    lines: list[str]  # the whole block, delimiters included, label stripped
    label: str | None
    indent: str = ""


@dataclass
class Heading:
    level: int
    title: str


@dataclass
class Target:
    label: str


@dataclass
class Directive:
    name: str
    arg: str
    options: dict
    body: list  # parsed blocks
    raw: list[str]  # the body's lines, options removed
    indent: str = ""


def _closing(lines: list[str], start: int, fence: str) -> int:
    """Index of the line closing a fence opened with `fence` (same character, at least as long, nothing after)."""
    char, size = fence[0], len(fence)
    for j in range(start, len(lines)):
        bare = lines[j].strip()
        if len(bare) >= size and set(bare) == {char}:
            return j
    raise ReaderError(f"unclosed fence {fence!r}: {lines[start - 1]!r}")


def _options(body: list[str]) -> tuple[dict, list[str]]:
    """A directive's options (`:key: value` lines or a `---` YAML block at the top of its body) and the rest."""
    if body and body[0].strip() == "---":
        end = body.index("---", 1) if "---" in body[1:] else None
        if end is None:
            raise ReaderError(f"unclosed YAML options: {body[:3]}")
        return yaml.safe_load("\n".join(body[1:end])) or {}, body[end + 1 :]
    options, i = {}, 0
    while i < len(body) and (m := OPTION.match(body[i].strip())):
        options[m["key"]] = m["value"].strip()
        i += 1
    return options, body[i:]


def parse(lines: list[str]) -> list:
    """MyST Markdown lines as a list of blocks (Text, Fence, Math, Heading, Target, Directive), in order."""
    blocks: list = []
    text: list[str] = []

    def flush():
        if text:
            blocks.append(Text(text.copy()))
            text.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if m := FENCE.match(line):
            if m["fence"][0] == ":" and not DIRECTIVE_INFO.match(m["info"].strip()):
                text.append(line)  # a colon line that opens nothing
                i += 1
                continue
            end = _closing(lines, i + 1, m["fence"])
            flush()
            d = DIRECTIVE_INFO.match(m["info"].strip())
            if d:
                options, body = _options(lines[i + 1 : end])
                nested = [] if d["name"] in ("code-block", "code", "math") else parse(body)
                blocks.append(Directive(d["name"], d["arg"].strip(), options, nested, body, m["indent"]))
            else:
                blocks.append(Fence(lines[i : end + 1], m["indent"]))
            i = end + 1
        elif line.strip().startswith("$$"):
            flush()
            indent = line[: len(line) - len(line.lstrip())]
            rest = line.strip()[2:]
            if "$$" in rest:
                if single := MATH_CLOSE.match(rest):  # $$ ... $$ (label) on one line
                    blocks.append(Math([f"$${single['before']}$$"], single["label"], indent))
                else:  # inline display math inside a paragraph: text
                    text.append(line)
                i += 1
                continue
            for j in range(i + 1, len(lines)):
                if "$$" in lines[j]:
                    close = MATH_CLOSE.match(lines[j])
                    if not close:
                        raise ReaderError(f"unexpected text after $$: {lines[j]!r}")
                    body = [line.rstrip(), *lines[i + 1 : j]]
                    if close["before"].strip():
                        body.append(indent + close["before"].strip())
                    blocks.append(Math([*body, indent + "$$"], close["label"], indent))
                    i = j + 1
                    break
            else:
                raise ReaderError(f"unclosed $$: {line!r}")
        elif m := HEADING.match(line):
            flush()
            blocks.append(Heading(len(m["hashes"]), m["title"]))
            i += 1
        elif m := TARGET.match(line.strip()):
            flush()
            blocks.append(Target(m["label"]))
            i += 1
        else:
            text.append(line)
            i += 1
    flush()
    for block in _walk(blocks):
        if isinstance(block, Directive) and block.name not in DIRECTIVES:
            raise ReaderError(f"directive {{{block.name}}} is not handled by tools/reader_notebooks.py")
    return blocks


def _walk(blocks, skip_latex=True):
    """Every block in document order, directive bodies included (`{only} latex` and `{index}` bodies skipped)."""
    for block in blocks:
        yield block
        if isinstance(block, Directive):
            if block.name == "index" or (block.name == "only" and skip_latex and not _is_html(block.arg)):
                continue
            yield from _walk(block.body, skip_latex)


def _is_html(expression: str) -> bool:
    return expression.strip() == "html"


# --------------------------------------------------------------------------------------------------------------------
# Pass 1: the numbers of the website
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class Item:
    kind: str  # "eq", "fig", "ex", "sec"
    number: str  # "1.4"
    title: str  # exercise title, section title, figure caption ("" for equations)
    page: str  # "chapters/01_perceptron"


@dataclass
class Chapter:
    number: int
    page: str  # "chapters/01_perceptron", as in _toc.yml
    path: Path
    notebook: dict
    blocks: dict = field(default_factory=dict)  # cell index -> parsed blocks (markdown cells)
    glue: dict = field(default_factory=dict)  # key -> text/plain
    title: str = ""


@dataclass
class Book:
    chapters: list[Chapter]
    labels: dict[str, Item]
    site: str  # https://org.github.io/repo/
    repository: str  # https://github.com/org/repo
    titles: dict[str, str]  # page -> title, for {doc}
    api_pages: dict[str, str]  # module -> api page
    bibliography: dict  # key -> pybtex entry (loaded on demand)


def _toc_chapters() -> list[str]:
    """The pages of the numbered part(s) of _toc.yml, in order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = []
    for part in toc.get("parts", []):
        if part.get("numbered"):
            pages += [str(Path(entry["file"]).with_suffix("")) for entry in part.get("chapters", [])]
    return pages


def _site_urls() -> tuple[str, str]:
    """The website and the repository, from `repository.url` in _config.yml (GitHub Pages of the repository)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repository = config["repository"]["url"].rstrip("/")
    m = re.fullmatch(r"https://github\.com/(?P<org>[^/]+)/(?P<repo>[^/]+)", repository)
    if not m:
        raise ReaderError(f"repository.url in _config.yml is not a GitHub repository: {repository}")
    return f"https://{m['org']}.github.io/{m['repo']}/", repository


def _doc_title(path: Path) -> str:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    m = re.search(r"^# (.+)$", text, flags=re.M)
    return m[1].strip() if m else path.stem


def _api_pages() -> dict[str, str]:
    pages = {}
    for page in sorted((ROOT / "api").glob("*.md")):
        for module in re.findall(
            r"^\.\. automodule:: ([\w.]+)", page.read_text(encoding="utf-8"), flags=re.M
        ):
            pages[module] = f"api/{page.stem}"
    return pages


def _glue(notebook: dict) -> dict[str, str]:
    values = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is None:
                continue
            data = {
                k.split("application/papermill.record/")[-1]: v for k, v in output.get("data", {}).items()
            }
            if "text/plain" in data:
                text = data["text/plain"]
                values[name] = "".join(text) if isinstance(text, list) else text
    return values


def _source(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def collect(chapter: Chapter, labels: dict[str, Item]) -> None:
    """Number the sections, equations, figures and exercises of one chapter as the website does."""
    n, page = chapter.number, chapter.page
    sections: list[int] = []
    counts = {"eq": 0, "fig": 0, "ex": 0}

    def add(label, kind, title=""):
        if not label:
            return
        if label in labels:
            raise ReaderError(f"label {label} defined twice ({labels[label].page}, {page})")
        labels[label] = Item(kind, f"{n}.{counts[kind]}" if kind != "sec" else number, title, page)

    for index, cell in enumerate(chapter.notebook["cells"]):
        if cell["cell_type"] == "code":
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if figure.get("caption"):
                counts["fig"] += 1
                add(figure.get("name"), "fig", figure["caption"])
            continue
        if cell["cell_type"] != "markdown":
            continue
        blocks = chapter.blocks[index] = parse(_source(cell).split("\n"))
        pending = None
        for block in _walk(blocks):
            if isinstance(block, Target):
                pending = block.label
                continue
            if isinstance(block, Heading):
                if block.level == 1:
                    chapter.title, number = block.title, f"{n}"
                else:
                    depth = block.level - 1
                    sections = (sections + [0] * depth)[:depth]
                    sections[-1] += 1
                    number = ".".join(str(k) for k in [n, *sections])
                if pending:
                    add(pending, "sec", block.title)
            elif isinstance(block, Math) and block.label:
                counts["eq"] += 1
                add(block.label, "eq")
            elif isinstance(block, Directive) and block.name == "math" and block.options.get("label"):
                counts["eq"] += 1
                add(block.options["label"], "eq")
            elif isinstance(block, Directive) and block.name == "figure" and _figure_caption(block):
                counts["fig"] += 1
                add(block.options.get("name"), "fig", _figure_caption(block))
            elif (
                isinstance(block, Directive) and block.name == "exercise" and "nonumber" not in block.options
            ):
                counts["ex"] += 1
                add(block.options.get("label"), "ex", block.arg)
            elif isinstance(block, Text) and not "".join(block.lines).strip():
                continue  # blank lines between a target and its heading
            if pending and not isinstance(block, Heading):
                raise ReaderError(f"{page}: the label ({pending})= does not precede a heading")
            pending = None


def _figure_caption(block: Directive) -> str:
    return "\n".join(line for b in block.body if isinstance(b, Text) for line in b.lines).strip()


def load_book() -> Book:
    site, repository = _site_urls()
    chapters = []
    for number, page in enumerate(_toc_chapters(), start=1):
        path = ROOT / f"{page}.ipynb"
        if not path.is_file():
            raise ReaderError(f"{page}: a numbered chapter of _toc.yml that is not a notebook")
        notebook = json.loads(path.read_text(encoding="utf-8"))
        chapters.append(Chapter(number, page, path, notebook, glue=_glue(notebook)))
    labels: dict[str, Item] = {}
    for chapter in chapters:
        collect(chapter, labels)
    titles = {chapter.page: chapter.title for chapter in chapters}
    return Book(chapters, labels, site, repository, titles, _api_pages(), {})


# --------------------------------------------------------------------------------------------------------------------
# Pass 2: plain Markdown
# --------------------------------------------------------------------------------------------------------------------


def _bibliography(book: Book) -> dict:
    if not book.bibliography:
        from pybtex.database import parse_file

        book.bibliography.update(parse_file(str(ROOT / "references.bib"), bib_format="bibtex").entries)
    return book.bibliography


def _author(entry) -> str:
    """The surnames of a citation, as the website prints them (sphinxcontrib-bibtex's author_year style)."""
    from pybtex.backends.plaintext import (
        Backend,
    )  # render_as() would look the backend up among entry points, slowly
    from pybtex.richtext import Text as Rich

    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [Rich.from_latex(" ".join(p.prelast_names + p.last_names)).render(Backend()) for p in persons]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al." if names else entry.fields.get("title", "Anonymous")


def _plain_glue(text: str, spec: str) -> str:
    """myst-nb's formatting of a glued text/plain value (myst_nb.core.variables.format_plain_text)."""
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if spec == "":
        return str(value)
    kind = spec[-1]
    if kind == "s":
        value = str(value)
    elif kind in "bcdoxX":
        value = int(value)
    elif kind in "eEfFgGn%":
        value = float(value)
    return format(value, spec)


@dataclass
class Solution:
    number: str  # of its exercise
    title: str
    markdown: str
    metadata: dict
    cell_id: str


class Renderer:
    """Turns one chapter into the cells of its reader notebook."""

    def __init__(self, book: Book, chapter: Chapter):
        self.book, self.chapter = book, chapter
        self.cited: list[str] = []
        self.solutions: list[Solution] = []
        self.sections: list[int] = []

    # ---- inline --------------------------------------------------------------------------------------------------

    def _page_url(self, page: str, anchor: str = "") -> str:
        return f"{self.book.site}{page}.html" + (f"#{anchor}" if anchor else "")

    def _item(self, label: str, role: str) -> Item:
        item = self.book.labels.get(label)
        if item is None:
            raise ReaderError(f"{self.chapter.page}: {{{role}}}`{label}`: no such label in the chapters")
        return item

    def role(self, name: str, content: str) -> str:
        if name not in ROLES:
            raise ReaderError(
                f"{self.chapter.page}: role {{{name}}} is not handled by tools/reader_notebooks.py"
            )
        explicit = re.fullmatch(r"(?s)(?P<text>.*?)\s*<(?P<target>[^<>]+)>", content)
        text, target = (explicit["text"], explicit["target"]) if explicit else (None, content.strip())
        if name == "eq":
            return f"({self._item(target, name).number})"
        if name == "numref":
            item = self._item(target, name)
            default = {"fig": "Figure %s", "sec": "Section %s", "ex": "Exercise %s", "eq": "Equation (%s)"}[
                item.kind
            ]
            return (text or default).replace("%s", item.number).replace("{number}", item.number)
        if name == "ref":
            item = self._item(target, name)
            if text:
                shown = text
            elif item.kind == "ex":
                shown = f"Exercise {item.number}"
            elif item.kind in ("sec", "fig"):
                shown = self.inline(item.title)
            else:
                raise ReaderError(f"{self.chapter.page}: {{ref}}`{target}` to an equation: use {{eq}}")
            if item.page != self.chapter.page and item.kind == "sec":
                return f"[{shown}]({self._page_url(item.page, target)})"
            return shown
        if name.startswith("cite"):
            return self.cite(name, target)
        if name.startswith("glue"):
            key, _, spec = target.rpartition(":") if ":" in target else (target, "", "")
            if key not in self.chapter.glue:
                raise ReaderError(
                    f"{self.chapter.page}: {{glue:text}}`{target}`: nothing glued under {key!r}"
                )
            return _plain_glue(self.chapter.glue[key], spec)
        if name == "doc":
            page = posixpath.normpath(posixpath.join(posixpath.dirname(self.chapter.page), target)).lstrip(
                "/"
            )
            if not text:
                source = next(
                    (ROOT / f"{page}{s}" for s in (".md", ".ipynb") if (ROOT / f"{page}{s}").is_file()), None
                )
                text = _doc_title(source) if source else page
            return f"[{text}]({self._page_url(page)})"
        if name == "index":
            return text if text is not None else target
        if name == "math":
            return f"${content}$"
        # py:mod, py:func, ...: code, linked to the API reference where the module is documented
        shown = text or (target[1:].rsplit(".", 1)[-1] if target.startswith("~") else target)
        target = target.lstrip("~")
        module = (
            target
            if name == "py:mod"
            else next(
                (m for m in sorted(self.book.api_pages, key=len, reverse=True) if target.startswith(m + ".")),
                None,
            )
        )
        if module in self.book.api_pages:
            anchor = f"module-{target}" if name == "py:mod" else target
            return f"[`{shown}`]({self._page_url(self.book.api_pages[module], anchor)})"
        return f"`{shown}`"

    def cite(self, name: str, keys: str) -> str:
        bib = _bibliography(self.book)
        parts = []
        for key in (k.strip() for k in keys.split(",")):
            if key not in bib:
                raise ReaderError(f"{self.chapter.page}: {{{name}}}`{key}`: not in references.bib")
            if key not in self.cited:
                self.cited.append(key)
            entry = bib[key]
            year = entry.fields.get("year", "n.d.")
            parts.append((_author(entry), year))
        if name.startswith("cite:t"):
            return ", ".join(f"{who} [{year}]" for who, year in parts)
        return "[" + ", ".join(f"{who}, {year}" for who, year in parts) + "]"

    def link(self, m: re.Match) -> str:
        target = m["target"]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m[0]
        path, _, anchor = target.partition("#")
        if not m["bang"] and (path or anchor) in self.book.labels:  # MyST's [text](label) and [text](#label)
            return (
                self.role("ref", f"{m['text']} <{path or anchor}>")
                if m["text"]
                else self.role("ref", path or anchor)
            )
        if m["bang"]:  # an image: the reader notebook sits one folder below the root, like the chapter
            return m[0]
        resolved = (ROOT / Path(self.chapter.page).parent / path).resolve()
        try:
            page = resolved.relative_to(ROOT).with_suffix("").as_posix()
        except ValueError:
            return m[0]
        if not resolved.exists():  # not a file of the repository (e.g. "[a](b)" inside math): left alone
            return m[0]
        if resolved.suffix in (".md", ".ipynb"):
            return f"[{m['text']}]({self._page_url(page, anchor)})"
        return f"[{m['text']}]({self.book.repository}/blob/main/{resolved.relative_to(ROOT).as_posix()})"

    def inline(self, text: str) -> str:
        text = ROLE.sub(lambda m: self.role(m["name"], m["content"]), text)
        return LINK.sub(self.link, text)

    # ---- code --------------------------------------------------------------------------------------------------

    def code(self, source: str) -> str:
        """Labels in code comments and docstrings ("eq. (eq-gamp)") replaced by their numbers."""

        def number(m: re.Match) -> str:
            item = self.book.labels.get(m["label"])
            if item is None:
                return m[0]
            opened, closed = m["open"] or "", m["close"] or ""
            if item.kind == "eq":
                if opened and closed:
                    return f"({item.number})"
                before = source[max(0, m.start() - 9) : m.start()].lower()
                shown = (
                    f"({item.number})"
                    if re.search(r"(eq\.|equation)\s*$", before)
                    else f"eq. ({item.number})"
                )
                return opened + shown + closed
            word = {"fig": "Figure", "ex": "Exercise", "sec": "Section"}[item.kind]
            return f"{opened}{word} {item.number}{closed}"

        return CODE_LABEL.sub(number, source)

    # ---- blocks ------------------------------------------------------------------------------------------------

    def blocks(self, blocks: list, top: bool = False) -> list[str]:
        out: list[str] = []
        for block in blocks:
            if isinstance(block, Text):
                out += self.inline("\n".join(block.lines)).split("\n")
            elif isinstance(block, Fence):
                out += [
                    block.lines[0],
                    *(self.code("\n".join(block.lines[1:-1])).split("\n") if len(block.lines) > 2 else []),
                    block.lines[-1],
                ]
            elif isinstance(block, Math):
                out += self.math(block.lines, block.label, block.indent)
            elif isinstance(block, Heading):
                out.append(self.heading(block) if top else f"{'#' * block.level} {self.inline(block.title)}")
            elif isinstance(block, Target):
                continue
            else:
                out += self.directive(block)
        return out

    def math(self, lines: list[str], label: str | None, indent: str = "") -> list[str]:
        if not label:
            return lines
        number = self.book.labels[label].number
        if len(lines) == 1:
            return [lines[0][:-2] + f" \\tag{{{number}}}$$"]
        return [*lines[:-1], f"{indent}\\tag{{{number}}}", lines[-1]]

    def heading(self, block: Heading) -> str:
        title = self.inline(block.title)
        if block.level == 1:
            return f"# {self.chapter.number}. {title}"
        depth = block.level - 1
        self.sections = (self.sections + [0] * depth)[:depth]
        self.sections[-1] += 1
        number = ".".join(str(k) for k in [self.chapter.number, *self.sections])
        return f"{'#' * block.level} {number}. {title}"

    def body(self, block: Directive) -> list[str]:
        lines = self.blocks(block.body)
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        return lines

    def directive(self, block: Directive) -> list[str]:
        name, classes = block.name, block.options.get("class", "").split()
        if name == "index" or (name == "only" and not _is_html(block.arg)):
            return []
        if name in ("only", "div", "container"):
            return ["", *self.body(block), ""]
        if name in ("code-block", "code"):
            language = block.arg or "python"
            return ["", "```" + language, *self.code("\n".join(block.raw)).split("\n"), "```", ""]
        if name == "math":
            lines = ["$$", *[line for line in block.raw if line.strip()], "$$"]
            return ["", *self.math(lines, block.options.get("label")), ""]
        if name == "figure":
            item = self.book.labels.get(block.options.get("name", ""))
            caption = self.inline(_figure_caption(block))
            number = f"**Figure {item.number}.** " if item else ""
            return ["", f"![{block.options.get('alt', '')}]({block.arg})", "", f"{number}{caption}", ""]
        if name == "solution":
            self.solution(block)
            return []
        if name == "exercise":
            item = self.book.labels.get(block.options.get("label", ""))
            number = item.number if item else ""
            title = f"Exercise {number}" + (f" ({self.inline(block.arg)})" if block.arg else "")
        else:
            title = self.inline(block.arg) if name == "admonition" else NAMED_ADMONITIONS[name]
        # HTML blocks end at a blank line: blank lines around and inside them let the Markdown between them render
        if "dropdown" in classes:
            return [
                "",
                "<details>",
                f"<summary>{title}</summary>",
                "",
                *self.body(block),
                "",
                "</details>",
                "",
            ]
        return ["", "<blockquote>", "", f"**{title}**", "", *self.body(block), "", "</blockquote>", ""]

    def solution(self, block: Directive, metadata: dict | None = None, cell_id: str = "") -> None:
        label = block.arg.strip()
        item = self._item(label, "solution")
        title = f"Solution to Exercise {item.number}" + (
            f" ({self.inline(item.title)})" if item.title else ""
        )
        lines = self.body(block)
        self.solutions.append(
            Solution(item.number, title, _tidy([f"### {title}", "", *lines]), metadata or {}, cell_id)
        )

    # ---- cells -------------------------------------------------------------------------------------------------

    def markdown(self, index: int, cell: dict) -> str:
        blocks = self.chapter.blocks[index]
        solutions = [b for b in blocks if isinstance(b, Directive) and b.name == "solution"]
        whole = len(solutions) == 1 and all(
            b is solutions[0] or (isinstance(b, Text) and not "".join(b.lines).strip()) for b in blocks
        )
        if whole:  # a cell that is one solution: it keeps its exercise metadata in the Solutions section
            metadata = {k: v for k, v in cell.get("metadata", {}).items() if k == "exercise"}
            self.solution(solutions[0], metadata, cell.get("id", f"cell{index}"))
            return ""
        return _tidy(self.blocks(blocks, top=True))


def _tidy(lines: list[str]) -> str:
    """The lines as one text, without runs of blank lines or blank lines at its ends, code blocks left as they are."""
    out: list[str] = []
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m and m["fence"][0] in "`~":
            fence = m["fence"]
        elif fence and len(bare := line.strip()) >= len(fence) and set(bare) == {fence[0]}:
            fence = None
        elif fence is None and not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    return "\n".join(out).strip("\n")


def _cell_metadata(cell: dict) -> dict:
    metadata = {k: copy.deepcopy(v) for k, v in cell.get("metadata", {}).items() if k in KEPT_CELL_METADATA}
    if HIDDEN_TAGS & set(metadata.get("tags", [])):
        metadata.setdefault("jupyter", {})["source_hidden"] = True
    return metadata


def _references(renderer: Renderer) -> str:
    """The cited entries, formatted as on the website's bibliography page (pybtex's plain style, author-year)."""
    from pybtex.backends.markdown import Backend
    from pybtex.style.formatting.plain import Style

    bib = _bibliography(renderer.book)
    style = Style()
    rows = []
    for key in renderer.cited:
        entry = bib[key]
        label = f"{_author(entry)} {entry.fields.get('year', 'n.d.')}"
        text = style.format_entry(label, entry).text.render(Backend()).replace("\n", " ")
        rows.append((label, f"- **{label}.** {text}"))
    return "\n".join(row for _, row in sorted(rows, key=lambda r: r[0].lower()))


def render(book: Book, chapter: Chapter) -> str:
    """The reader notebook of one chapter, as the JSON text to write."""
    renderer = Renderer(book, chapter)
    web = renderer._page_url(chapter.page)
    header = (
        f"*Solvable Models of Learning*, chapter {chapter.number}: the reader's notebook. It is generated from the "
        f"chapter's source, `{chapter.page}.ipynb`, by `tools/reader_notebooks.py`, in plain Markdown that Jupyter, "
        f"Binder and Colab render, and without outputs: run the cells to draw the figures. The rendered page, with "
        f"every output and figure, is on the book's website: <{web}>."
    )
    cells = [nbformat.v4.new_markdown_cell(f"> {header}", id="reader-header")]
    for index, cell in enumerate(chapter.notebook["cells"]):
        cell_id = cell.get("id") or f"cell{index}"
        if cell["cell_type"] == "markdown":
            text = renderer.markdown(index, cell)
            if text:
                cells.append(nbformat.v4.new_markdown_cell(text, id=cell_id, metadata=_cell_metadata(cell)))
        elif cell["cell_type"] == "code":
            metadata = _cell_metadata(cell)
            cells.append(
                nbformat.v4.new_code_cell(renderer.code(_source(cell)), id=cell_id, metadata=metadata)
            )
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if figure.get("caption"):
                item = book.labels.get(figure.get("name", ""))
                number = f"**Figure {item.number}.** " if item else ""
                caption = renderer.inline(figure["caption"])
                cells.append(nbformat.v4.new_markdown_cell(f"{number}{caption}", id=f"{cell_id}-caption"))
        else:
            cells.append(nbformat.v4.new_raw_cell(_source(cell), id=cell_id))
    # the solutions render their citations too: format them before the references
    solutions = sorted(renderer.solutions, key=lambda s: [int(k) for k in s.number.split(".")])
    if renderer.cited:
        cells.append(
            nbformat.v4.new_markdown_cell("## References\n\n" + _references(renderer), id="reader-references")
        )
    if solutions:
        cells.append(
            nbformat.v4.new_markdown_cell(
                "## Solutions\n\nThe worked solutions of this chapter's exercises, in order.",
                id="reader-solutions",
            )
        )
        for k, solution in enumerate(solutions, start=1):
            cells.append(
                nbformat.v4.new_markdown_cell(
                    solution.markdown,
                    id=f"{solution.cell_id or 'reader'}-solution-{k}",
                    metadata=solution.metadata,
                )
            )
    metadata = {
        "kernelspec": chapter.notebook["metadata"].get(
            "kernelspec", {"display_name": "Python 3", "language": "python", "name": "python3"}
        ),
        "language_info": {"name": "python"},
    }
    notebook = nbformat.v4.new_notebook(cells=cells, metadata=metadata)
    notebook.nbformat_minor = 5
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


def build() -> dict[Path, str]:
    """Every reader notebook: path -> JSON text."""
    book = load_book()
    return {
        ROOT / OUT_DIR / f"{Path(chapter.page).name}.ipynb": render(book, chapter)
        for chapter in book.chapters
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="exit with status 1 if a committed reader notebook is stale or missing (writes nothing)",
    )
    args = parser.parse_args(argv)
    wanted = build()
    present = set((ROOT / OUT_DIR).glob("*.ipynb"))
    stale = [p for p, text in wanted.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    extra = sorted(present - set(wanted))
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run python tools/reader_notebooks.py)")
        for path in extra:
            print(f"not a chapter of _toc.yml: {path.relative_to(ROOT)}")
        return 1 if stale or extra else 0
    (ROOT / OUT_DIR).mkdir(exist_ok=True)
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    for path in extra:
        path.unlink()
        print(f"removed {path.relative_to(ROOT)} (not a chapter of _toc.yml)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
