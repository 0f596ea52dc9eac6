"""Fixtures shared by the tests of the website (tests/test_book.py, tests/test_site.py), and the settings of the
property-based tests.

Hypothesis runs derandomized (the same examples, from a fixed seed, on every run and every machine) and without its
example database: a test suite that CI runs once must not find a new counter-example on one run and not on the next.
A property test that should search harder is run by hand with ``--hypothesis-profile=explore``.
"""

from __future__ import annotations

import pytest
from _book import Book, build_book
from hypothesis import HealthCheck, settings

settings.register_profile("repeatable", derandomize=True, database=None, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=500, deadline=None, database=None)
settings.load_profile("repeatable")


@pytest.fixture(scope="session")
def book(tmp_path_factory) -> Book:
    """The book built with the README's command into a temporary folder, once per session; fails if the build did."""
    built = build_book(tmp_path_factory)
    assert built.returncode == 0, (
        f"jupyter-book build failed (exit {built.returncode}) after {built.elapsed_s:.0f} s:\n{built.log[-6000:]}"
    )
    assert built.html.is_dir(), f"no HTML output in {built.html}:\n{built.log[-3000:]}"
    return built
