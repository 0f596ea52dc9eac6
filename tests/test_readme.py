"""The README gets a newcomer started: the two commands first, a "start here" for a reader, a lecturer and a
contributor, under 12 KB; every section and file it points to exists; the contributor page's recipe for adding a
model names every registry that the tests (tests/test_layers.py first) check."""

from __future__ import annotations

import re

from _book import ROOT

README = ROOT / "README.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
MAX_README_BYTES = 12_000
#: Paths the README names as what a command writes, not yet written in a clone.
OUTPUTS = {"reproductions/bsr/authors_protocol/"}
QUICK_START = (
    "pip install -r requirements.txt && jupyter-book build . -W -n --keep-going",
    "pip install -r requirements.txt && pytest -n 2 --dist loadfile",
)


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path) -> set[str]:
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)}


def test_readme_is_short_and_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) < MAX_README_BYTES, (
        f"README.md is {len(text.encode())} bytes (< {MAX_README_BYTES})"
    )
    first_block = re.search(r"```bash\n(.*?)```", text, re.DOTALL).group(1).strip().splitlines()
    assert first_block == list(QUICK_START), f"the README's first commands are {first_block}"
    headings = re.findall(r"^#{2,3} (.+)$", text, re.MULTILINE)
    assert headings[:5] == [
        "Quick start",
        "Start here",
        "For a reader",
        "For a lecturer",
        "For a contributor",
    ], headings


def test_every_section_and_file_the_readme_points_to_exists():
    text = README.read_text(encoding="utf-8")
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"https?://|mailto:", target):
            continue
        path, _, anchor = target.partition("#")
        file = ROOT / path if path else README
        if not file.exists():
            missing.append(target)
        elif anchor and anchor not in _anchors(file):
            missing.append(target)
    for quoted in re.findall(
        r"`((?:tests|tools|_ext|lib|figures|chapters|reproductions|\.ci|\.github)/[\w./-]+)`", text
    ):
        if "<" not in quoted and quoted not in OUTPUTS and not (ROOT / quoted).exists():
            missing.append(quoted)
    assert not missing, f"the README points to sections or files that do not exist: {missing}"


def test_the_readme_documents_the_lecturers_kit():
    text = README.read_text(encoding="utf-8")
    for needed in (
        "jupyter-book build . --builder pdflatex",
        "_ext/solvable_print.py",
        "lecture_plan.md",
        "Presentation mode",
        "**P**",
        "Shift",
        "tutor's booklet",
        "problem sheets",
        "handout",
    ):
        assert needed in text, f"the README does not say {needed!r}"


def test_the_recipe_for_a_model_names_every_registry_the_tests_check():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    recipe = text[text.index("## Adding a model") : text.index("\n## ", text.index("## Adding a model") + 5)]
    layers = (ROOT / "tests" / "test_layers.py").read_text(encoding="utf-8")
    # every registry of tests/test_layers.py that a new module must join, and every test there that checks it
    for name in re.findall(r"^([A-Z_]+) = \{", layers, re.MULTILINE):
        if name != "SAME_LAYER":  # toolboxes of one layer, not models
            assert f"`{name}`" in recipe, f"the recipe does not name {name} of tests/test_layers.py"
    for test in re.findall(r"^def (test_\w+)", layers, re.MULTILINE):
        assert f"`{test}`" in recipe, f"the recipe does not name {test} of tests/test_layers.py"
    # every file it names exists, and every registry or test it names is in the file it names
    for path in re.findall(r"`((?:tests|lib|api|figures|tools)/[\w./]+\.(?:py|md))`", recipe):
        assert (ROOT / path).is_file(), f"the recipe names {path}, which does not exist"
    for registry, path in (
        ("MODELS", "tests/test_model_contract.py"),
        ("THEORY", "tests/test_model_contract.py"),
        ("THEORY_FUNCTION", "tests/test_model_contract.py"),
        ("TABLE", "tests/test_contract.py"),
        ("NOT_FUZZED", "tests/test_contract.py"),
        ("FUZZED_MODULES", "tests/test_contract.py"),
        ("LANDING_FIGURES", "figures/landing/update.py"),
    ):
        assert f"`{registry}`" in recipe and f"`{path}`" in recipe, (
            f"the recipe does not name {registry} of {path}"
        )
        assert re.search(rf"^{registry}\b", (ROOT / path).read_text(encoding="utf-8"), re.MULTILINE), (
            f"{registry} is not in {path} any more: update the recipe in CONTRIBUTING.md"
        )
    for test, path in (
        ("test_every_public_function_is_in_the_table", "tests/test_contract.py"),
        ("test_every_module_is_in_the_api_reference", "tests/test_docstrings.py"),
    ):
        assert f"`{test}`" in recipe and f"def {test}" in (ROOT / path).read_text(encoding="utf-8"), test
    assert "`phase_map_rows`" in recipe or "phase_map_rows" in recipe


def test_the_contributor_page_keeps_the_test_catalogue_and_the_conventions():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    for section in ("The conventions of a chapter", "Re-executing a chapter", "Adding a model", "The tests"):
        assert _slug(section) in _anchors(CONTRIBUTING), section
    for named in (
        "tests/test_site.py",
        "tests/test_pdf.py",
        "tests/test_exercises.py",
        "tests/test_book.py",
        "tests/test_overview.py",
        "tests/test_execute_notebook.py",
        "nbval",
    ):
        assert named in text, f"the test catalogue of CONTRIBUTING.md does not mention {named}"
    assert "jupyter execute --inplace chapters" not in text.replace(
        "`jupyter execute --inplace` has no", ""
    ), "the contributor page still recommends `jupyter execute --inplace` (it can hang)"
    assert "python tools/execute_notebook.py chapters/" in text
