"""The book as the tests see it: the pages of `_toc.yml`, the repository settings, and one build per test session.

`build_book` runs the README's build command (`jupyter-book build . -W -n --keep-going`) with `--path-output` pointing
at a temporary folder, so the repository is only read. Where XeLaTeX and latexmk are installed (.ci/run installs them,
like Chromium), it first builds the printed set into the same folder (`jupyter-book build . --builder pdflatex`, as
the Pages workflow does), so that the HTML build publishes it next to the landing page. Under pytest-xdist every worker asks for the book, but it is
built once: the first worker builds it under a lock in the session's shared temporary folder, the others wait and reuse
it (POSIX file lock; where `fcntl` is missing, each worker builds its own copy).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_S = 900


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


def notebook_pages() -> list[str]:
    """The pages of _toc.yml that are notebooks (the chapters), in order."""
    return [page for page in toc_files() if (ROOT / f"{page}.ipynb").is_file()]


def book_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))


def repository() -> dict:
    return book_config()["repository"]


@dataclass(frozen=True)
class Book:
    html: Path  # the built site (<out>/_build/html)
    log: str  # stdout + stderr of the build
    returncode: int
    elapsed_s: float
    created: list[str]  # build folders that the build made inside the repository (should be none)
    pdf: Path | None = None  # the whole-book PDF, when TeX was there to build it (<out>/_build/latex/...)
    pdf_log: str = ""  # stdout + stderr of the PDF build ("" when it was not attempted)
    pdf_returncode: int | None = None  # None when TeX is missing and the PDF was not attempted


PDF_NAME = (
    "solvable-models-of-learning.pdf"  # latex_documents.targetname in _config.yml, with .pdf: the compiled
)
# document, which _ext/solvable_print.py cuts into the printed set (_build/latex/printed/, published under pdf/)
PRINTED_DIR = ("latex", "printed")
PRINTED_MANIFEST = "printed-set.json"
PUBLISHED_PDF_DIR = "pdf"
TEX_PROGRAMS = ("xelatex", "latexmk")


def have_tex() -> bool:
    """Whether the PDF of the book can be built here (XeLaTeX and latexmk on PATH)."""
    import shutil

    return all(shutil.which(program) for program in TEX_PROGRAMS)


@contextlib.contextmanager
def _exclusive(lock_path: Path):
    try:
        import fcntl
    except ImportError:  # Windows: no lock, the caller builds per worker
        yield
        return
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_folder(tmp_path_factory) -> Path:
    """The session's folder shared by every pytest-xdist worker (the controller's basetemp), where the book goes."""
    base = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return base
    return base.parent if worker else base  # the workers' basetemps are siblings in one session folder


def build_into(shared: Path) -> Path:
    """Build the book into ``shared / "book"`` unless it is there already (under the lock); return that folder.

    Called by the first worker that asks for the book, or ahead of them by the controller of an xdist session
    (tests/conftest.py starts ``python tests/_book.py <shared>`` as soon as a worker has collected a test that
    needs the book, so that the build runs beside the first tests instead of before the book's).
    """
    out = shared / "book"
    result_file = out / "book-build.json"
    with _exclusive(shared / "book-build.lock"):
        out.mkdir(parents=True, exist_ok=True)
        if not result_file.exists():
            watched = [ROOT / "_build", ROOT / ".jupyter_cache"]
            existed = {p for p in watched if p.exists()}
            # The `jupyter-book` console script, run by this interpreter: the same environment as the tests.
            jupyter_book = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()"]
            pdf = {}
            if have_tex():
                proc = subprocess.run(
                    [
                        *jupyter_book,
                        "build",
                        str(ROOT),
                        "--path-output",
                        str(out),
                        "--builder",
                        "pdflatex",
                        "-W",
                        "-n",
                        "--keep-going",
                    ],
                    cwd=out,
                    capture_output=True,
                    text=True,
                    timeout=BUILD_TIMEOUT_S,
                    check=False,
                )
                pdf = {"pdf_log": proc.stdout + proc.stderr, "pdf_returncode": proc.returncode}
            cmd = [*jupyter_book, "build", str(ROOT), "--path-output", str(out), "-W", "-n", "--keep-going"]
            start = time.perf_counter()
            proc = subprocess.run(
                cmd, cwd=out, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
            )
            result_file.write_text(
                json.dumps(
                    {
                        "log": proc.stdout + proc.stderr,
                        "returncode": proc.returncode,
                        "elapsed_s": time.perf_counter() - start,
                        "created": [
                            str(p.relative_to(ROOT)) for p in watched if p.exists() and p not in existed
                        ],
                        **pdf,
                    }
                ),
                encoding="utf-8",
            )
    return out


def build_book(tmp_path_factory) -> Book:
    """Build the book once per test session (shared by the pytest-xdist workers) and describe the result.

    With SOLVABLE_REUSE_BOOK=<folder>, the build of an earlier session (its `book` folder, holding book-build.json) is
    reused as it is: a rerun of the browser or PDF tests after editing only a test. CI never sets it.
    """
    reuse = os.environ.get("SOLVABLE_REUSE_BOOK")
    out = Path(reuse) if reuse else build_into(shared_folder(tmp_path_factory))
    result = json.loads((out / "book-build.json").read_text(encoding="utf-8"))
    pdf_path = out / "_build" / "latex" / PDF_NAME
    return Book(html=out / "_build" / "html", pdf=pdf_path if pdf_path.is_file() else None, **result)


def widget_manager_urls() -> set[str]:
    """The scripts that render saved ipywidgets on a static page (require.js and @jupyter-widgets/html-manager).

    myst-nb loads them from public CDNs (config `nb_ipywidgets_js`); they are the only resources of the website that
    are not served by the site itself (see _ext/solvable_site.py: no PyPI package ships them).
    """
    configured = (book_config().get("sphinx", {}).get("config", {}) or {}).get("nb_ipywidgets_js")
    if configured is None:
        from myst_nb.core.config import ipywidgets_js_factory

        configured = ipywidgets_js_factory()
    return set(configured)


if (
    __name__ == "__main__"
):  # python tests/_book.py <shared folder>: the build conftest.py starts ahead of the tests
    build_into(Path(sys.argv[1]))
