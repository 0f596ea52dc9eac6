"""The environment that reproduces: version ranges for users (requirements.txt), one exact version of each package for
CI (requirements.lock) and a lean reader's environment for Binder (binder/), all written by one command (.ci/lock)."""

import re
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
# The development toolchain: Binder's reader never needs these (the book builder, browser driver, tests, PDF tools).
TOOLCHAIN = {
    "jupyter-book",
    "sphinx",
    "myst-nb",
    "playwright",
    "pytest",
    "pytest-xdist",
    "nbval",
    "pypdf",
    "numpydoc",
    "hypothesis",
    "array-api-strict",
    "dask",
    "distributed",
    "sphinxcontrib-bibtex",
    "sphinx-exercise",
}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def ranges(path: Path) -> dict[str, Requirement]:
    """The requirements of a ranges file (``-e .`` and comments left out), by normalised name."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            req = Requirement(line)
            out[norm(req.name)] = req
    return out


def pins(path: Path) -> dict[str, Version]:
    """The exact versions of a lock file (``name==version`` lines), by normalised name."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line.strip())
        if m:
            out[norm(m.group(1))] = Version(m.group(2))
    return out


def test_the_lock_pins_every_requirement_inside_its_range():
    wanted, locked = ranges(ROOT / "requirements.txt"), pins(ROOT / "requirements.lock")
    assert len(locked) > 100, "requirements.lock should pin the whole environment, dependencies included"
    for name, req in wanted.items():
        assert name in locked, f"requirements.lock does not pin {name} (run `bash .ci/lock`)"
        assert req.specifier.contains(locked[name], prereleases=True), (
            f"requirements.lock pins {name}=={locked[name]}, outside {req} of requirements.txt (run `bash .ci/lock`)"
        )
    assert "solvable" not in locked  # the course's package is installed from lib/, never pinned
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert "bash .ci/lock" in text.splitlines()[1], "the lock says which command wrote it"
    assert not re.search(r"^-e\b", text, flags=re.M), "a constraint file may not hold an editable install"


def test_binder_builds_the_readers_environment_at_the_locked_versions():
    reader, locked = pins(ROOT / "binder" / "requirements.txt"), pins(ROOT / "requirements.lock")
    wanted = ranges(ROOT / "binder" / "requirements.in")
    assert {"numpy", "scipy", "matplotlib", "ipywidgets", "ipykernel", "joblib", "array-api-compat"} <= set(
        wanted
    )
    assert set(wanted) <= set(reader)
    assert not (set(reader) & TOOLCHAIN), (
        f"Binder would install the toolchain: {sorted(set(reader) & TOOLCHAIN)}"
    )
    differ = {n: (v, locked.get(n)) for n, v in reader.items() if locked.get(n) != v}
    assert not differ, (
        f"binder/requirements.txt and requirements.lock disagree: {differ} (run `bash .ci/lock`)"
    )
    # the package itself comes from lib/ after the locked install, without moving a locked version
    post = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert "--no-deps -e ." in post and post.startswith("#!/usr/bin/env bash")
    # the package's own dependencies are in the reader's environment
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = re.search(r"^dependencies = \[(.*)\]$", project, flags=re.M).group(1)
    for dep in re.findall(r'"([^"]+)"', deps):
        req = Requirement(dep)
        assert norm(req.name) in reader and req.specifier.contains(reader[norm(req.name)]), dep
    runtime = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == "python-3.11" and "--python-version 3.11" in (ROOT / ".ci" / "lock").read_text()
    assert not (ROOT / "runtime.txt").exists(), "Binder reads binder/ only: a root runtime.txt would mislead"


def test_ci_installs_the_lock_and_drift_the_ranges():
    tests = yaml.safe_load((ROOT / ".github" / "workflows" / "tests.yml").read_text(encoding="utf-8"))
    step = next(s for s in tests["jobs"]["tests"]["steps"] if s.get("run") == "bash .ci/run")
    assert step["env"]["PIP_CONSTRAINT"].endswith("/requirements.lock")
    drift = (ROOT / ".github" / "workflows" / "drift.yml").read_text(encoding="utf-8")
    assert "requirements.lock" not in drift and "--upgrade" in drift and "-r requirements.txt" in drift
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = run.strip().splitlines()[-1]
    assert command == "pip install -r requirements.txt && pytest -n 2 --dist loadfile" and command in readme
    assert "bash .ci/lock" in readme, "the README says how to regenerate the lock files"
