"""Static checks that must not regress: mypy --strict, ruff, cython-lint, and pinned workflow actions.

Each runs the real tool with the configuration in pyproject.toml, on the source tree (not the installed
wheel), so a type error or a lint finding fails the suite like any other bug.
"""

import hashlib
import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
BIN = pathlib.Path(sys.executable).parent


def run(*argv, **kw):
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=600, env=env, **kw)


def test_mypy_strict_clean():
    # One cache per interpreter (the dev venv and the wheel venv see different site-packages).
    cache = REPO / "build" / f"mypy-cache-{hashlib.sha1(sys.prefix.encode()).hexdigest()[:8]}"
    proc = run(sys.executable, "-m", "mypy", "--cache-dir", str(cache))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success: no issues found" in proc.stdout


def test_ruff_clean():
    proc = run(sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_cython_lint_clean():
    proc = run(str(BIN / "cython-lint"), "src/kvlog/_core")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflow_actions_are_pinned_by_commit():
    """A tag can be moved to other code; a full commit SHA cannot (the comment beside it names the release)."""
    uses = []
    for wf in sorted((REPO / ".github" / "workflows").glob("*.yml")):
        for n, line in enumerate(wf.read_text().splitlines(), 1):
            m = re.match(r"\s*(?:-\s+)?uses:\s*(\S+)", line)
            if m:
                uses.append((wf.name, n, m.group(1)))
    assert uses, "no workflow steps found"
    bad = [u for u in uses if not re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u[2])]
    assert not bad, bad
