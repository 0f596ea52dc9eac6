"""Fixtures shared by the tests of the website (tests/test_book.py, tests/test_site.py)."""

from __future__ import annotations

import pytest
from _book import Book, build_book


@pytest.fixture(scope="session")
def book(tmp_path_factory) -> Book:
    """The book built with the README's command into a temporary folder, once per session; fails if the build did."""
    built = build_book(tmp_path_factory)
    assert built.returncode == 0, (
        f"jupyter-book build failed (exit {built.returncode}) after {built.elapsed_s:.0f} s:\n{built.log[-6000:]}"
    )
    assert built.html.is_dir(), f"no HTML output in {built.html}:\n{built.log[-3000:]}"
    return built
