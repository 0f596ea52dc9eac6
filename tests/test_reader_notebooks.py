"""The reader notebooks (`notebooks/`, written by `tools/reader_notebooks.py`) and the environment Binder opens them in.

JupyterLab, the classic Notebook and Colab render Markdown without MyST: the launch buttons of the website therefore
open a reader notebook, each chapter in plain Markdown and standard math. These tests check that

- the committed reader notebooks are what the generator makes of the current chapters (a chapter edited without
  `python tools/reader_notebooks.py` fails here);
- converted by nbconvert (`MarkdownExporter`, `HTMLExporter`: like Colab, they know no MyST), a reader notebook holds
  no MyST directive, role, `:label:`/`:class:` line or label of the book, and it numbers exercises, equations and
  figures like the website, with every solution after the last exercise;
- its code cells are the chapter's, without outputs, the cells the website hides collapsed;
- Binder's recipe installs: a fresh virtual environment, `pip install -r binder/requirements.txt`, then
  `bash binder/postBuild`, with no line of the output matching /error/i, and `import solvable` works. That test
  creates a virtual environment and downloads the locked packages (about 30 s with a warm pip cache); it is marked for
  its own pytest-xdist group, so that `--dist loadgroup` runs it beside the rest.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]


@cache
def generator():
    spec = importlib.util.spec_from_file_location("reader_notebooks", ROOT / "tools" / "reader_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@cache
def book():
    return generator().load_book()


def chapters():
    return generator()._toc_chapters()


def reader_path(page: str) -> Path:
    return ROOT / "notebooks" / f"{Path(page).name}.ipynb"


@cache
def exported(page: str) -> tuple[str, str]:
    """The reader notebook of `page` as nbconvert's Markdown and HTML."""
    from nbconvert import HTMLExporter, MarkdownExporter

    notebook = nbformat.read(reader_path(page), as_version=4)
    markdown, _ = MarkdownExporter().from_notebook_node(notebook)
    # HTML of the Markdown cells (the code cells, checked in the Markdown export, would only cost highlighting time)
    text_only = nbformat.v4.new_notebook(
        cells=[c for c in notebook.cells if c.cell_type == "markdown"], metadata=notebook.metadata
    )
    html, _ = HTMLExporter().from_notebook_node(text_only)
    return markdown, html


def chapter_markdown(page: str) -> str:
    notebook = json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")


def test_reader_notebooks_are_current():
    wanted = generator().build()
    assert [p.name for p in wanted] == [f"{Path(page).name}.ipynb" for page in chapters()]
    stale = [p.name for p, text in wanted.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    extra = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb") if p not in wanted)
    assert not stale and not extra, (
        f"reader notebooks stale {stale} or without a chapter {extra}: run python tools/reader_notebooks.py"
    )


DIRECTIVE = re.compile(
    r"(`{3,}|:{3,}|~{3,})\s*\{[\w:.-]+\}|\{(exercise|solution|admonition|note|tip|important|warning|"
    r"only|index|figure|math|glue:\w+|code-cell)\}"
)
ROLE = re.compile(
    r"\{(eq|numref|ref|cite|cite:\w+|doc|glue|glue:\w+|index|py:\w+|math|term|download|abbr)\}"
    r"\s*(`|<code)"
)
OPTION_LINE = re.compile(r"^\s*:(label|class|name|nonumber|alt|width|ref-type|color):", re.M)
LABEL_LIKE = re.compile(r"(?<![\w/.#-])(eq|fig|ex)-[a-z0-9]+-[a-z0-9-]+")


@pytest.mark.parametrize("page", chapters())
def test_no_myst_left_after_nbconvert(page):
    labels = set(book().labels)
    for form, text in zip(("Markdown", "HTML"), exported(page)):
        assert not DIRECTIVE.search(text), (
            f"{page} ({form}): a MyST directive is left: {DIRECTIVE.search(text)[0]!r}"
        )
        assert not ROLE.search(text), f"{page} ({form}): a MyST role is left: {ROLE.search(text)[0]!r}"
        option = OPTION_LINE.search(text)
        assert not option, f"{page} ({form}): a directive option is left: {option and option[0]}"
        tokens = set(re.findall(r"(?<![\w/#-])(?:eq|fig|ex|sec)-[\w-]*\w", text))
        left = sorted({m[0] for m in LABEL_LIKE.finditer(text)} | (tokens & labels))
        assert not left, f"{page} ({form}): unresolved labels {left}"


@pytest.mark.parametrize("page", chapters())
def test_exercises_equations_and_figures_are_numbered_like_the_website(page):
    n = chapters().index(page) + 1
    source = chapter_markdown(page)
    markdown, html = exported(page)
    exercises = len(re.findall(r"^\s*(?:`{3,}|:{3,})\{exercise\}", source, flags=re.M))
    solutions = len(re.findall(r"^\s*(?:`{3,}|:{3,})\{solution\}", source, flags=re.M))
    titles = [(int(a), int(b)) for a, b in re.findall(r"\*\*Exercise (\d+)\.(\d+)\b", markdown)]
    assert titles == [(n, k) for k in range(1, exercises + 1)], f"{page}: exercise titles {titles}"
    assert len(re.findall(r"<strong>Exercise \d+\.\d+", html)) == exercises
    # every solution after the last exercise, in the exercises' order, titled like the website's
    last = max(m.end() for m in re.finditer(r"\*\*Exercise \d+\.\d+", markdown)) if exercises else 0
    found = [
        (m.start(), int(m[1]), int(m[2])) for m in re.finditer(r"Solution to Exercise (\d+)\.(\d+)", markdown)
    ]
    assert len(found) == solutions, f"{page}: {len(found)} solutions, {solutions} in the chapter"
    assert all(start > last and a == n and 1 <= b <= exercises for start, a, b in found), f"{page}: {found}"
    assert [b for _, _, b in found] == sorted(b for _, _, b in found)
    # equations: one \tag per labelled equation of the chapter, numbered (n.1), (n.2), ...
    tags = sorted(int(k) for k in re.findall(rf"\\tag\{{{n}\.(\d+)\}}", markdown))
    labelled = len(re.findall(r"^\s*\$\$\s*\([\w:.-]+\)\s*$", source, flags=re.M))
    assert tags == list(range(1, labelled + 1)), (
        f"{page}: equation numbers {tags}, {labelled} labelled equations"
    )
    # figures: one numbered caption per captioned figure
    notebook = json.loads((ROOT / f"{page}.ipynb").read_text(encoding="utf-8"))
    captions = sum(
        bool(c["metadata"].get("mystnb", {}).get("figure", {}).get("caption")) for c in notebook["cells"]
    )
    numbers = [int(k) for k in re.findall(rf"\*\*Figure {n}\.(\d+)\.\*\*", markdown)]
    assert numbers == list(range(1, captions + 1)), f"{page}: figure numbers {numbers}"
    # dropdowns (hints, short answers) are <details> blocks whose content is Markdown: a blank line after <summary>
    for m in re.finditer(r"<summary>[^\n]*</summary>\n([\s\S]?)", markdown):
        assert m[1] == "\n", f"{page}: no blank line after {m[0]!r}"


@pytest.mark.parametrize("page", chapters())
def test_code_cells_are_the_chapters_without_outputs(page):
    chapter = nbformat.read(ROOT / f"{page}.ipynb", as_version=4)
    reader = nbformat.read(reader_path(page), as_version=4)
    nbformat.validate(reader)
    theirs = [c for c in chapter.cells if c.cell_type == "code"]
    ours = [c for c in reader.cells if c.cell_type == "code"]
    assert [c.id for c in ours] == [c.id for c in theirs]
    for mine, source in zip(ours, theirs):
        assert not mine.outputs and mine.execution_count is None
        assert mine.metadata.get("exercise") == source.metadata.get("exercise")
        assert mine.metadata.get("tags", []) == source.metadata.get("tags", [])
        # collapsed where the website hides the code (an exercise's check shows only its verdict there)
        hidden = bool(
            {"remove-cell", "remove-input", "hide-cell", "hide-input"} & set(source.metadata.get("tags", []))
        )
        assert mine.metadata.get("jupyter", {}).get("source_hidden", False) == hidden, mine.source[:80]
        # the same code; labels in its comments and docstrings ("eq. (eq-gamp)") read as numbers ("eq. (1.34)")
        if not any(label in source.source for label in book().labels):
            assert mine.source == source.source
        assert len(mine.source.splitlines()) == len(source.source.splitlines())
    assert "google.colab" in ours[0].source, "the first code cell is the Colab install cell"
    header = reader.cells[0].source
    assert "generated" in header and f"{page}.html" in header, (
        "the header names the source and the website's page"
    )


@pytest.mark.xdist_group("binder")
def test_binder_environment_installs(tmp_path):
    """Binder's recipe in a fresh virtual environment: no error in pip's output, and the package imports."""
    if sys.version_info[:2] != (3, 11):
        pytest.skip("binder/requirements.txt is locked for Python 3.11 (binder/runtime.txt)")
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in ("lib", "binder"):
        shutil.copytree(ROOT / name, repo / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, repo / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PIP_CONSTRAINT", "PYTHONPATH", "PYTHONHOME")}
    env.update(
        VIRTUAL_ENV=str(venv),
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    log = []
    for command in (
        ["python", "-m", "pip", "install", "-r", "binder/requirements.txt"],
        ["bash", "binder/postBuild"],
    ):
        done = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=900)
        log.append(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}")
        assert done.returncode == 0, log[-1][-3000:]
    errors = [line for line in "\n".join(log).splitlines() if re.search("error", line, flags=re.I)]
    assert not errors, "\n".join(errors[:20])
    check = "import solvable, solvable.glm, solvable.widgets; print(solvable.__file__)"
    done = subprocess.run(
        ["python", "-c", check], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(repo / "lib"), done.stdout
