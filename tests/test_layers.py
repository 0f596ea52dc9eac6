"""The layers of the library (lib/solvable/README.md): a module imports only from layers below its own, and
model modules never import one another (a piece two models share goes down a layer)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib" / "solvable"

#: Layer of every module, top (views) to bottom (base). The perceptron's glm, erm and gardner are one model.
LAYERS = {
    "widgets": 6,
    "plotting": 6,
    "exercises": 6,
    "quote": 6,
    "glm": 5,
    "erm": 5,
    "gardner": 5,
    "bsr": 5,
    "quadratic": 5,
    "attention": 5,
    "smi": 5,
    "ellipsoid": 5,
    "matrix_sensing": 4,
    "regression": 4,
    "experiments": 4,
    "dataset": 4,
    "amp": 3,
    "gd": 3,
    "priors": 2,
    "channels": 2,
    "convex": 2,
    "spectra": 2,
    "rie": 2,
    "denoising": 2,
    "metrics": 2,
    "integration": 2,
    "validation": 1,
    "errors": 1,
    "config": 1,
    "results": 1,
    "backend": 1,
    "domains": 1,
    "streams": 1,
}
#: Which model each model module belongs to.
MODEL = {
    "glm": "perceptron",
    "erm": "perceptron",
    "gardner": "perceptron",
    "bsr": "bsr",
    "quadratic": "quadratic",
    "attention": "attention",
    "smi": "smi",
    "ellipsoid": "ellipsoid",
}
#: Toolboxes of the same layer that build on one another (never in a cycle): rie is built on spectra, priors and
#: channels on integration, metrics on nothing of its layer; rie is built on denoising (samplers, baselines).
SAME_LAYER = {
    ("validation", "errors"),
    ("backend", "errors"),
    ("config", "errors"),
    ("domains", "validation"),
    ("domains", "errors"),
    ("domains", "results"),
    ("streams", "validation"),
    ("streams", "errors"),
    ("domains", "streams"),
    ("config", "results"),
    ("backend", "validation"),
    ("config", "backend"),
    ("config", "domains"),
    ("backend", "domains"),
    ("rie", "spectra"),
    ("rie", "denoising"),
    ("denoising", "spectra"),
    ("priors", "integration"),
    ("channels", "integration"),
    ("widgets", "plotting"),
    ("metrics", "integration"),
    ("spectra", "integration"),
}


def _imports(path: Path) -> set[str]:
    """Modules of the package that ``path`` imports (``from . import x``, ``from .x import y``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("solvable."):
            out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("solvable."))
    return out


MODULES = sorted(p.stem for p in LIB.glob("*.py") if p.stem != "__init__")


def test_every_module_has_a_layer():
    assert set(MODULES) == set(LAYERS), "add new modules to LAYERS (and to lib/solvable/README.md)"


@pytest.mark.parametrize("module", MODULES)
def test_imports_follow_the_layers(module):
    for dep in _imports(LIB / f"{module}.py"):
        assert dep in LAYERS, f"{module} imports unknown module {dep}"
        if module in MODEL and dep in MODEL:
            assert MODEL[module] == MODEL[dep], f"model module {module} imports model module {dep}"
        elif LAYERS[dep] == LAYERS[module] and module not in MODEL:
            assert (module, dep) in SAME_LAYER, f"{module} imports {dep} from its own layer"
        else:
            assert LAYERS[dep] <= LAYERS[module], (
                f"{module} (layer {LAYERS[module]}) imports {dep} (layer {LAYERS[dep]})"
            )


def test_the_science_never_imports_the_views():
    for module in MODULES:
        if LAYERS[module] < 6:
            assert not _imports(LIB / f"{module}.py") & {"plotting", "widgets"}, module
