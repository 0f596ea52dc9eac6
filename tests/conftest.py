"""Fixtures shared by the tests of the website (tests/test_book.py, tests/test_site.py), the settings of the
property-based tests, and the order in which the test files are handed to the pytest-xdist workers.

Hypothesis runs derandomized (the same examples, from a fixed seed, on every run and every machine) and without its
example database: a test suite that CI runs once must not find a new counter-example on one run and not on the next.
A property test that should search harder is run by hand with ``--hypothesis-profile=explore``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

# One BLAS thread per process, set before NumPy loads here and inherited by the workers, the chapters' kernels and
# their children: the suite runs two workers on two cores, and OpenBLAS threads on top of them spin against each
# other (measured: two GAMP-RIE runs of chapter 4 at d = 80 take 25 s instead of 3.4 s with a second such process
# beside it). A value set by the caller is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import pytest  # noqa: E402 - after the thread settings
from _book import ROOT, Book, build_book  # noqa: E402
from _site import chromium_context, screenshots, site, visit  # noqa: F401, E402 - browser fixtures
from hypothesis import HealthCheck, settings  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

if os.environ["OPENBLAS_NUM_THREADS"] == "1":  # in case a plugin loaded NumPy before this file
    threadpool_limits(1)

settings.register_profile(
    "repeatable", derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
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


# --------------------------------------------------------------------------- the order of the files under xdist
#: The files that need the built book (tests/_book.py): under pytest-xdist the book is built in the background as soon
#: as a worker has collected one of them, while the workers run the other files first.
BOOK_FILES = (
    "tests/test_site.py",
    "tests/test_site_teaching.py",
    "tests/test_pdf.py",
    "tests/test_book.py",
    "tests/test_reproductions.py",
)

#: The longest files (the chapters, the contract fuzz), handed out first so that none is left for the end: xdist's
#: own order (by number of tests) would otherwise start the browser tests, which wait for the book, first.
LONG_FILES = (
    "chapters/05_attention_indexed_models.ipynb",
    "chapters/03_bilinear_sequence_regression.ipynb",
    "chapters/04_quadratic_networks.ipynb",
    "chapters/02_random_matrices.ipynb",
    "chapters/01_perceptron.ipynb",
    "tests/test_contract.py",
)


def _file_rank(item) -> int:
    """0 for the long files (in LONG_FILES' order), then every other file, then the book's files."""
    path = item.nodeid.split("::", 1)[0]
    if path in LONG_FILES:
        return LONG_FILES.index(path)
    return len(LONG_FILES) + (1 + BOOK_FILES.index(path) if path in BOOK_FILES else 0)


def pytest_configure(config):
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        config.option.loadscopereorder = False  # keep the order of pytest_collection_modifyitems below


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=_file_rank)  # stable: the tests of a file keep their order


_background_build: list = []


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """In the xdist controller: start building the book as soon as a collected test needs it."""
    if _background_build or os.environ.get("SOLVABLE_REUSE_BOOK"):
        return
    if not any(i.split("::", 1)[0] in BOOK_FILES for i in ids):
        return
    shared = node.config._tmp_path_factory.getbasetemp()  # the workers' basetemps are its subfolders
    log = open(Path(shared) / "book-background.log", "w")  # noqa: SIM115 - open for the process's lifetime
    _background_build.append(
        subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "_book.py"), str(shared)],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    )


def pytest_unconfigure(config):
    for proc in _background_build:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)


# --------------------------------------------------------------------------- a timeline, for tuning the order above
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get("SOLVABLE_TIMELINE")  # a file: one line per test (worker, start, end, nodeid)
    start = time.time()
    yield
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(
                f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}\t{start:.2f}\t{time.time():.2f}\t"
                f"{item.nodeid}\n"
            )
