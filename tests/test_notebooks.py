"""Structural checks of the committed chapter notebooks (nbval re-executes them; these tests look at the files).

The website never executes a notebook (`execute_notebooks: "off"`): what a reader sees is what was committed. So every
chapter must be in the table of contents, carry the outputs of one clean top-to-bottom run, contain no error output,
and, where it shows ipywidgets, carry the widget state that lets them render on a static page. Re-executing a chapter
with `jupyter execute --inplace chapters/XX.ipynb` satisfies all of these.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

import _book

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MIN_OUTPUT_FRACTION = 0.8  # of the code cells that are expected to show something


def toc_files() -> set[str]:
    """Every page of _toc.yml (and its root), as a path relative to the root without suffix."""
    return set(_book.toc_files())


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def is_silent(source: str) -> bool:
    """True for a cell that legitimately shows nothing: it ends in an assignment, an import, a definition, a loop...,
    a trailing `;`, or it is IPython syntax (`%pip ...`) that the Python parser cannot judge."""
    lines = [
        line for line in source.strip().splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines or lines[-1].rstrip().endswith(";"):
        return True
    try:
        tree = ast.parse(source)
    except SyntaxError:  # magics, shell escapes
        return True
    if not tree.body:
        return True
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        call = last.value
        if isinstance(call, ast.Call):  # print(...), display(...), fig.show(), f(x): usually shows something
            return False
        return isinstance(call, ast.Constant) and isinstance(call.value, str)  # a trailing docstring
    return True


def notebook_id(path: Path) -> str:
    return path.name


@pytest.fixture(params=NOTEBOOKS, ids=notebook_id)
def notebook(request):
    path = request.param
    nb = nbformat.read(path, as_version=4)
    return path, nb


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebook in chapters/"


def test_valid_nbformat(notebook):
    path, nb = notebook
    nbformat.validate(nb)


def test_listed_in_toc(notebook):
    path, _ = notebook
    rel = str(path.relative_to(ROOT).with_suffix(""))
    assert rel in toc_files(), (
        f"{rel} is not in _toc.yml: with only_build_toc_files it would not be on the website"
    )


def test_kernelspec_is_python3(notebook):
    path, nb = notebook
    kernelspec = nb.metadata.get("kernelspec", {})
    assert kernelspec.get("name") == "python3", (
        f"{path.name}: kernelspec {kernelspec!r}; Binder, Colab and nbval expect the 'python3' kernel"
    )


def test_outputs_committed(notebook):
    path, nb = notebook
    loud = [c for c in code_cells(nb) if not is_silent(c.source)]
    with_output = [c for c in loud if c.get("outputs")]
    assert any(c.get("outputs") for c in code_cells(nb)), f"{path.name}: no outputs committed"
    if loud:
        fraction = len(with_output) / len(loud)
        missing = [c.source.strip().splitlines()[0][:60] for c in loud if not c.get("outputs")]
        assert fraction >= MIN_OUTPUT_FRACTION, (
            f"{path.name}: only {len(with_output)}/{len(loud)} cells that should show something have outputs "
            f"(first lines of those without: {missing[:5]}). "
            f"Re-execute with `jupyter execute --inplace {path.relative_to(ROOT)}`."
        )


def test_executed_top_to_bottom(notebook):
    """One clean run: every code cell executed, in order (stale or partial outputs break this)."""
    path, nb = notebook
    counts = [c.get("execution_count") for c in code_cells(nb)]
    assert None not in counts, (
        f"{path.name}: {counts.count(None)} code cell(s) never executed. "
        f"Re-execute with `jupyter execute --inplace {path.relative_to(ROOT)}`."
    )
    assert all(a < b for a, b in zip(counts, counts[1:])), (
        f"{path.name}: execution counts {counts} are not increasing: the outputs do not come from one "
        f"top-to-bottom run. Re-execute with `jupyter execute --inplace {path.relative_to(ROOT)}`."
    )


def test_readers_see_no_test_machinery_banners(notebook):
    """No preset banner and no nbval marker in what a reader sees (issue 14): the preset is the default unless the
    reader sets SOLVABLE_SIZE, and nbval reads its instructions from cell tags, not from comments or outputs."""
    path, nb = notebook
    shown = []
    for c in nb.cells:
        if c.cell_type != "code" or "remove-cell" in c.metadata.get("tags", []):
            continue
        shown.append(c.source)
        shown += [o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream"]
    text = "\n".join(shown)
    assert "size preset:" not in text, f"{path.name}: a preset banner is shown to readers"
    assert "NBVAL" not in text, f"{path.name}: an nbval marker is shown to readers (use the cell's tags)"


def test_no_error_outputs(notebook):
    path, nb = notebook
    errors = [
        f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: error outputs committed: {errors}"


def test_figures_print_apart_in_greyscale(notebook):
    """No figure's legend holds entries that differ by colour only (`solvable.plotting.finish` warns about them,
    and a warning committed with the outputs would pass nbval)."""
    path, nb = notebook
    twins = [
        f"cell {i}: {line.strip()[:120]}"
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
        for line in o.get("text", "").splitlines()
        if "differ by colour only" in line
    ]
    assert not twins, f"{path.name}: figures that a greyscale print cannot read: {twins}"


def test_widget_state_saved(notebook):
    """A widget view renders on the static website only if its model is in the saved widget state."""
    path, nb = notebook
    views = [
        o["data"][WIDGET_VIEW]["model_id"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]
    if not views:
        pytest.skip("no widget output")
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    assert state, (
        f"{path.name}: shows {len(views)} widget(s) but saves no widget state (metadata.widgets[{WIDGET_STATE!r}]); "
        f"they render blank on the website. Re-execute with `jupyter execute --inplace {path.relative_to(ROOT)}`."
    )
    missing = [m for m in views if m not in state]
    assert not missing, f"{path.name}: widget models {missing} are displayed but absent from the saved state"


def test_colab_install_cell(notebook):
    """Colab has NumPy, SciPy, Matplotlib and ipywidgets but not the course's library: the first code cell installs it
    from this repository, only on Colab (guarded), and is hidden on the website (tag remove-cell)."""
    path, nb = notebook
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]
    spec = f"git+{config['url'].rstrip('/')}@{config['branch']}"
    first = code_cells(nb)[0]
    source = first.source
    assert "remove-cell" in first.metadata.get("tags", []), (
        f"{path.name}: the first code cell must be the hidden Colab install cell (tag remove-cell)"
    )
    assert (
        re.search(r"""if\s+["']google\.colab["']\s+in\s+sys\.modules\s*:""", source)
        and "import sys" in source
    ), f'{path.name}: the install cell is not guarded by `if "google.colab" in sys.modules:`'
    assert re.search(r"^\s+%pip install\b.*\bsolvable @ " + re.escape(spec), source, re.MULTILINE), (
        f'{path.name}: the install cell does not `%pip install "solvable @ {spec}"` inside the guard'
    )


STDLIB = set(sys.stdlib_module_names)


def _requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(re.split(r"[<>=!~;\[ @]", line, maxsplit=1)[0])
    return names


def _installed_closure(names: set[str]) -> set[str]:
    """The distributions that installing `names` brings (their dependencies, recursively), normalised."""

    def norm(n):
        return re.sub(r"[-_.]+", "-", n).lower()

    seen, todo = set(), [norm(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for req in requires:
            if "extra ==" in req:
                continue
            todo.append(norm(re.split(r"[<>=!~;\[ (]", req, maxsplit=1)[0]))
    return seen


def test_chapter_imports_come_from_requirements(notebook):
    """Binder builds the reader's environment from binder/requirements.txt (locked) and installs the course's package
    with binder/postBuild: every module a chapter imports must be the standard library, the course's package (with
    its own dependencies), or installed by binder/requirements.txt."""
    path, nb = notebook
    modules = set()
    for cell in code_cells(nb):
        source = "\n".join(
            line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))
        )
        try:
            tree = ast.parse(source)
        except SyntaxError:  # the guarded %pip cell, once its magic line is dropped
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                modules.add(node.module.split(".")[0])
    provided = importlib.metadata.packages_distributions()
    installed = _installed_closure(_requirement_names(ROOT / "binder" / "requirements.txt") | {"solvable"})

    def norm(n):
        return re.sub(r"[-_.]+", "-", n).lower()

    missing = sorted(
        m
        for m in modules - STDLIB - {"solvable"}
        if not any(norm(dist) in installed for dist in provided.get(m, []))
    )
    assert not missing, (
        f"{path.name} imports {missing}, which binder/requirements.txt does not install (Binder would fail)"
    )
    runtime = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()
    assert re.fullmatch(r"python-3\.\d+", runtime), (
        f"binder/runtime.txt should name Python as python-3.X: {runtime!r}"
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_ignored_outputs_are_tagged_with_their_reason(notebook):
    """Cells whose output legitimately changes carry the ``nbval-ignore-output`` tag (design.md), not an in-source
    ``# NBVAL_...`` comment a reader would see, and say why in their first line."""
    nb = nbformat.read(notebook, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert "NBVAL_" not in cell.source, (
            f"{notebook.name} cell {i}: use the nbval-ignore-output tag, not a comment"
        )
        if "nbval-ignore-output" in cell.metadata.get("tags", []):
            assert cell.source.startswith("# ("), (
                f"{notebook.name} cell {i}: first line should say why it is ignored"
            )


def test_landing_figures_are_the_chapters_own():
    """The landing page shows one figure per chapter: byte for byte the PNG committed in the chapter (refreshed by
    `python figures/landing/update.py` after a chapter is re-executed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("landing", _book.ROOT / "figures" / "landing" / "update.py")
    landing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(landing)
    intro = (_book.ROOT / "intro.md").read_text(encoding="utf-8")
    for chapter, name in landing.LANDING_FIGURES.items():
        path = _book.ROOT / "figures" / "landing" / f"{chapter}.png"
        assert path.read_bytes() == landing.figure_png(chapter, name), (
            f"{path.name} is not the chapter's figure {name}: run python figures/landing/update.py"
        )
        assert f"figures/landing/{chapter}.png" in intro and f"{{numref}}`{name}`" in intro, (
            f"intro.md does not show {path.name} with a reference to {name}"
        )


def test_figure_cells_show_only_their_figure(notebook):
    """A cell with a numbered figure (metadata mystnb.figure) must output one image and nothing else: myst-nb would
    turn any other output (an execute_result such as `(0.0, 0.85)`) into a second figure with the same name. A trailing
    `;` does not help, as nbval runs cells without history (IPython's `;` check reads the history)."""
    path, nb = notebook
    for cell in nb.cells:
        if cell.cell_type != "code" or "figure" not in cell.metadata.get("mystnb", {}):
            continue
        name = cell.metadata["mystnb"]["figure"].get("name")
        outputs = [
            out for out in cell.get("outputs", []) if out.output_type in ("display_data", "execute_result")
        ]
        images = [out for out in outputs if "image/png" in out.get("data", {})]
        assert len(images) == 1 and len(outputs) == 1, (
            f"{path.name}: figure {name} has {len(outputs)} displayed outputs ({len(images)} images)"
        )
        assert not cell.source.rstrip().endswith(";"), f"{path.name}: figure {name} relies on a trailing ';'"


#: The widest code line a reader sees: wider lines scroll sideways in the website's code box at 1366 px.
MAX_CODE_WIDTH = 88
#: At most this fraction of a chapter's visible code cells may be longer than ``LONG_CELL`` lines (d2l: 15 %).
LONG_CELL, LONG_FRACTION = 15, 0.15


def _visible_code(nb):
    hidden = {"remove-cell", "remove-input"}
    return [c for c in nb.cells if c.cell_type == "code" and not hidden & set(c.metadata.get("tags", []))]


def test_visible_code_fits_the_page(notebook):
    """Teaching code only: no visible line wider than the code box, few long cells."""
    path, nb = notebook
    cells = _visible_code(nb)
    wide = [line for c in cells for line in c.source.splitlines() if len(line) > MAX_CODE_WIDTH]
    assert not wide, f"{path.name}: {len(wide)} visible code lines wider than {MAX_CODE_WIDTH}: {wide[:3]}"
    long = [c.source.splitlines()[0] for c in cells if len(c.source.splitlines()) > LONG_CELL]
    assert len(long) <= LONG_FRACTION * len(cells), (
        f"{path.name}: {len(long)} of {len(cells)} visible code cells exceed {LONG_CELL} lines "
        f"(at most {LONG_FRACTION:.0%}): {long}"
    )


def test_pages_define_no_shared_helpers(notebook):
    """mean_se and sweeps live in the library (solvable.experiments), not in the pages."""
    path, nb = notebook
    src = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for name in ("mean_se", "sweep"):
        assert f"def {name}(" not in src, f"{path.name} defines {name}: use solvable.experiments.{name}"


def test_prose_quotes_numbers_not_configuration_names(notebook):
    """The text says "we train 16 students", not the name of the preset field that holds 16: a number that depends on
    the preset is computed in a cell and quoted ({glue:text}, solvable.quote)."""
    import dataclasses

    from solvable import config

    path, nb = notebook
    fields = {field.name for field in dataclasses.fields(config.Sizes)}
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    named = set(re.findall(r"\bSIZES\.\w+", text)) | {
        name for name in re.findall(r"(?<!\})`(\w+)`", text) if name in fields
    }  # not a role's target
    assert not named, f"{path.name}: configuration names in the prose: {sorted(named)}"
