"""The docstrings of the library: numpydoc's own validation of every public name, no reference to files outside the
repository, no public function that pytest would collect, and every module in the book's API reference.

Every test is parametrised by module, so a failure names the module to fix. The public names of a module are its
``__all__``. Functions and classes are validated with numpydoc (``numpydoc.validate.validate``) for the checks in
``CHECKS``: ``RT01`` (no Returns section) for functions only, since a class documents its constructor's parameters,
not a return value; no constructor checks for a ``typing.Protocol``, an interface that is never instantiated. The
public methods of public classes are not validated. A constant in ``__all__`` carries no docstring of its own: it is
documented by a ``#:`` comment above its assignment, which is what Sphinx's autodoc shows in the API reference
(api/*.md), so that comment is required instead.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "solvable"
API = ROOT / "api"

MODULES = sorted(p.stem for p in LIB.glob("*.py") if p.stem != "__init__")

#: numpydoc checks run on every public function and class (numpydoc.validate.ERROR_MSGS has their texts):
#: GL08 no docstring, SS01 no summary, PR01 a parameter not documented, PR02 a documented parameter that does not
#: exist, PR07 a parameter without description, RT01 no Returns section.
CHECKS = {"GL08", "SS01", "PR01", "PR02", "PR07", "RT01"}
#: Checks that do not apply to a class (its docstring describes the constructor's parameters, not a return value).
FUNCTION_ONLY = {"RT01"}

#: What a docstring must not point to: files that exist only next to the repository, not in a clone of it.
OUTSIDE = re.compile(r"science/|\.\./shared")


def _public(module: str) -> list[tuple[str, object]]:
    mod = importlib.import_module(f"solvable.{module}")
    names = getattr(mod, "__all__", None)
    assert names is not None, (
        f"solvable.{module} has no __all__ (its public names, as the API reference lists them)"
    )
    missing = [name for name in names if not hasattr(mod, name)]
    assert not missing, f"solvable.{module}.__all__ lists names the module does not define: {missing}"
    return [(name, getattr(mod, name)) for name in names]


#: Checks of a constructor's parameters, which a typing.Protocol does not have (it is an interface, never
#: instantiated: its signature is Protocol's own ``(*args, **kwargs)``).
CONSTRUCTOR = {"PR01", "PR02", "PR07"}


def _numpydoc_errors(path: str, obj) -> list[str]:
    from numpydoc.validate import validate

    checks = CHECKS
    if inspect.isclass(obj):
        checks = checks - FUNCTION_ONLY - (CONSTRUCTOR if getattr(obj, "_is_protocol", False) else set())
    errors = [(code, message) for code, message in validate(path)["errors"] if code in checks]
    if inspect.isfunction(obj):
        # numpydoc drops a first parameter named self or cls from every signature, taking it for a method's: the
        # documented first parameter of a module-level function such as results.record(cls=None, /, **kwargs) would
        # be reported as unknown (PR02). Only that false report is removed.
        first = next(iter(inspect.signature(obj).parameters), None)
        if first in ("self", "cls"):
            errors = [
                (code, message)
                for code, message in errors
                if not (code == "PR02" and message == f"Unknown parameters {{{first!r}}}")
            ]
    return [f"{path}: {code} {message}" for code, message in errors]


@pytest.mark.parametrize("module", MODULES)
def test_public_names_pass_numpydoc_validation(module):
    failures = []
    for name, obj in _public(module):
        if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
            failures += _numpydoc_errors(f"solvable.{module}.{name}", obj)
    assert not failures, f"{len(failures)} numpydoc failures in solvable.{module}:\n" + "\n".join(failures)


def _documented_constants(module: str) -> set[str]:
    """Names that carry a ``#:`` comment (or a string right after their assignment) in ``solvable.<module>``."""
    from sphinx.pycode import ModuleAnalyzer

    return {name for (_, name) in ModuleAnalyzer.for_module(f"solvable.{module}").find_attr_docs()}


def _imported_from(module: str) -> dict[str, str]:
    """Names ``solvable.<module>`` imports from another module of the package (``from .x import NAME``) -> ``x``."""
    tree = ast.parse((LIB / f"{module}.py").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
        for alias in node.names
    }


@pytest.mark.parametrize("module", MODULES)
def test_public_constants_are_documented(module):
    """A constant of ``__all__`` has a ``#:`` comment (or a string right after it), the text autodoc shows, in its
    module or, when the module re-exports it, in the module it comes from (the API reference documents it there)."""
    documented, imported = _documented_constants(module), _imported_from(module)
    undocumented = [
        name
        for name, obj in _public(module)
        if not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj))
        and name not in documented
        and not (name in imported and name in _documented_constants(imported[name]))
    ]
    assert not undocumented, (
        f"solvable.{module}: constants of __all__ without a '#:' comment (autodoc leaves them out of the API "
        f"reference): {undocumented}"
    )


def _docstrings(path: Path):
    """(line, docstring) of the module and of every class and function in it, nested ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                yield getattr(node, "lineno", 1), text


@pytest.mark.parametrize("module", ["__init__", *MODULES])
def test_docstrings_point_only_inside_the_repository(module):
    path = LIB / f"{module}.py"
    bad = [
        f"{path.name}:{line}: {OUTSIDE.search(text).group(0)!r}"
        for line, text in _docstrings(path)
        if OUTSIDE.search(text)
    ]
    assert not bad, "docstrings referring to files outside the repository (a clone does not have them):\n" + (
        "\n".join(bad)
    )


@pytest.mark.parametrize("module", MODULES)
def test_no_public_function_is_named_like_a_test(module):
    """pytest would collect ``from solvable.m import test_x`` in a test file as a test of its own."""
    mod = importlib.import_module(f"solvable.{module}")
    names = set(getattr(mod, "__all__", [])) | {
        name
        for name, obj in vars(mod).items()
        if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == mod.__name__
    }
    bad = sorted(name for name in names if name.startswith("test"))
    assert not bad, f"solvable.{module}: public names starting with 'test': {bad}"


def _documented_modules() -> dict[str, str]:
    """Module -> API page that documents it with ``.. automodule:: solvable.<module>`` and ``:members:``."""
    found = {}
    for page in sorted(API.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(
            r"^\.\. automodule:: solvable\.(\w+)\n((?:[ \t]+:.*\n)*)", text, re.MULTILINE
        ):
            assert ":members:" in match.group(2), f"{page.name}: solvable.{match.group(1)} without :members:"
            assert match.group(1) not in found, f"solvable.{match.group(1)} on two API pages"
            found[match.group(1)] = page.name
    return found


#: The API page of each layer of tests/test_layers.py (LAYERS: 6 views ... 1 base).
PAGE_OF_LAYER = {
    6: "views.md",
    5: "models.md",
    4: "shared.md",
    3: "engine.md",
    2: "toolboxes.md",
    1: "base.md",
}


def test_every_module_is_in_the_api_reference():
    from test_layers import LAYERS

    found = _documented_modules()
    missing = sorted(set(MODULES) - set(found))
    assert not missing, (
        f"modules missing from the API reference (add them to the page of their layer, api/): {missing}"
    )
    stale = sorted(set(found) - set(MODULES))
    assert not stale, f"the API reference documents modules that no longer exist: {stale}"
    misplaced = {
        module: (page, PAGE_OF_LAYER[LAYERS[module]])
        for module, page in found.items()
        if module in LAYERS and PAGE_OF_LAYER[LAYERS[module]] != page
    }
    assert not misplaced, (
        f"modules on the API page of another layer (module: (page, page of its layer)): {misplaced}"
    )
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    unlisted = sorted(
        {f"api/{page[:-3]}" for page in found.values()} - set(re.findall(r"file: (api/\w+)", toc))
    )
    assert not unlisted, f"API pages missing from _toc.yml: {unlisted}"


def _api_extension():
    import importlib.util

    spec = importlib.util.spec_from_file_location("solvable_api", ROOT / "_ext" / "solvable_api.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    return ext


def test_module_docstring_sections_render_as_rubrics():
    """_ext/solvable_api.py: a module docstring's "References" heading becomes a rubric (a section title there would
    add a heading and a duplicate label "references" to the API page, an error under -W); other text is kept."""
    ext = _api_extension()
    lines = ["Summary.", "", "References", "----------", "Chapter 3.", "", "Not a section", "-------------"]
    ext.module_sections_as_rubrics(None, "module", "solvable.x", None, None, lines)
    assert lines == [
        "Summary.",
        "",
        ".. rubric:: References",
        "",
        "Chapter 3.",
        "",
        "Not a section",
        "-------------",
    ]
    function = ["Summary.", "", "Notes", "-----", "Text."]
    ext.module_sections_as_rubrics(None, "function", "solvable.x.f", None, None, function)
    assert function == ["Summary.", "", "Notes", "-----", "Text."]


def test_each_public_name_has_one_home():
    """No module re-exports another's public function or class: each is documented and imported from one module."""
    import pkgutil

    import solvable

    elsewhere = []
    for info in pkgutil.iter_modules(solvable.__path__):
        module = importlib.import_module(f"solvable.{info.name}")
        for name in getattr(module, "__all__", ()):
            home = getattr(getattr(module, name), "__module__", None)
            if isinstance(home, str) and home.startswith("solvable.") and home != module.__name__:
                elsewhere.append(f"{module.__name__}.{name} (defined in {home})")
    assert not elsewhere, elsewhere


def test_module_citations_are_cited():
    """_ext/solvable_api.py: the citations of a module docstring (renamed by numpydoc) are cited in the LaTeX output,
    before numpydoc's closing tag, so that none is "not referenced" (a warning under -W)."""
    ext = _api_extension()
    lines = [
        "Summary.",
        "",
        ".. rubric:: References",
        "",
        ".. [R1-1] Chapter 2.",
        ".. [R1-2] A paper.",
        "..",
        "    !! processed by numpydoc !!",
    ]
    ext.cite_module_references(None, "module", "solvable.x", None, None, lines)
    assert lines[-2:] == ["..", "    !! processed by numpydoc !!"]
    assert "   [R1-1]_, [R1-2]_" in lines and ".. only:: latex" in lines
