"""The code's style, checked by ruff (https://docs.astral.sh/ruff/) with the rules of `[tool.ruff.lint]` in
pyproject.toml: no undefined or unused name, no statement or import error, no invalid escape, anywhere in the
repository (library, tests, tools, benchmarks, reproductions, the book's extensions); and its layout, that of
``ruff format``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    try:
        import ruff  # noqa: F401 - the package ships the executable
    except ImportError:
        if shutil.which("ruff") is None:
            pytest.fail("ruff is not installed (pip install -r requirements.txt)")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"ruff check:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"


def test_ruff_format_finds_nothing_to_change():
    """The layout of every Python file is ruff's (``ruff format``, line length from pyproject.toml): a file that
    would be reformatted fails, naming it (run ``ruff format .``)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"ruff format --check:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
