"""Sphinx extension of the book (loaded through `sphinx.local_extensions` in `_config.yml`): numbered references
resolved without unpickling the target page each time.

Sphinx 7.4 resolves each `{numref}` by unpickling the whole doctree of the page that holds the target
(`StandardDomain._resolve_numref_xref` calls `env.get_doctree`, which keeps the pickled bytes but returns a fresh
copy on every call), only to read the target node's type and ids. A chapter's doctree, with its figures and
outputs, takes about 0.12 s to unpickle, and the book has about 260 numbered references: a third of the HTML build
(`jupyter-book build .`, about 30 s of 100) and as much again in the PDF build, on every build and in the test
suite. Here each page's doctree is unpickled once per build for these lookups and reused while the references are
resolved; the lookups only read it. The build's output is the same (tests/test_book.py builds the book and checks
its numbered references; tests/test_numref_cache.py checks that each target page is read once).
"""

from __future__ import annotations

import functools

from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain

#: The doctrees unpickled for numbered references in this build, by page (emptied when a build starts and ends).
_TARGETS: dict = {}


def _reading_each_target_once(resolve):
    """``StandardDomain._resolve_numref_xref`` with ``env.get_doctree`` answered from :data:`_TARGETS`."""

    @functools.wraps(resolve)
    def resolve_numref(self, env, *args, **kwargs):
        def get_doctree(docname):
            if docname not in _TARGETS:
                _TARGETS[docname] = type(env).get_doctree(env, docname)
            return _TARGETS[docname]

        env.get_doctree = get_doctree  # an instance attribute over the method, for this lookup only
        try:
            return resolve(self, env, *args, **kwargs)
        finally:
            del env.get_doctree

    resolve_numref.solvable_reads_each_target_once = True
    return resolve_numref


def _forget(*_args) -> None:
    _TARGETS.clear()


def setup(app: Sphinx) -> dict:
    if not getattr(StandardDomain._resolve_numref_xref, "solvable_reads_each_target_once", False):
        StandardDomain._resolve_numref_xref = _reading_each_target_once(StandardDomain._resolve_numref_xref)
    app.connect("builder-inited", _forget)
    app.connect("build-finished", _forget)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
