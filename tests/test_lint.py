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


# ------------------------------------------------------------------------------------- import layers
#: kvlog's parts from the top down (docs/layout.md, "Layers"): a module may import from its own layer and
#: the layers below it, never from one above. A part is a subpackage of kvlog or a module at its top level.
LAYERS = [
    ("entry points", {"kvlog.__main__", "kvlog.cli"}),
    ("tools and jobs", {"kvlog.backup", "kvlog.demo", "kvlog.iceberg"}),
    ("engines", {"kvlog.spark", "kvlog.polars", "kvlog.duckdb"}),
    ("the public package", {"kvlog"}),
    ("scans", {"kvlog.scanning", "kvlog.scan_predicates"}),
    ("typed values", {"kvlog.schemas"}),
    ("data directories", {"kvlog.mirror", "kvlog.manager", "kvlog.topic_configs"}),
    ("tiered view", {"kvlog.tiered"}),
    ("over the partition log", {"kvlog.internal_topics", "kvlog.cleaner", "kvlog.timestamps", "kvlog.verify",
                                "kvlog.repair", "kvlog.cluster"}),
    ("the partition log", {"kvlog.log"}),
    ("segments", {"kvlog.segment", "kvlog.damage"}),
    ("audits", {"kvlog.batch_audit", "kvlog.epoch_audit"}),
    ("records, indexes, producer state", {"kvlog.records", "kvlog.index", "kvlog.producer_state", "kvlog.txn_index",
                                          "kvlog.config", "kvlog.compression", "kvlog.offset_map",
                                          "kvlog._arrow", "kvlog._java_text", "kvlog._java_order"}),
    ("files", {"kvlog.root_files", "kvlog.mirror_checkpoint", "kvlog.broker_files", "kvlog.committed_offsets",
               "kvlog.checkpoint", "kvlog._files", "kvlog._walk"}),
    ("storage seam", {"kvlog.storage", "kvlog.object_store", "kvlog._io"}),
    ("kernels", {"kvlog._core", "kvlog.checksum"}),
    ("errors", {"kvlog.errors", "kvlog._version"}),
]

_PYX_IMPORT = re.compile(r"^\s*(?:from\s+(kvlog[\w.]*)\s+cimport|from\s+(kvlog[\w.]*)\s+import\s+([\w, ]+)|"
                         r"import\s+(kvlog[\w.]*))", re.M)


def _visit(node, kind, mod, package, mods, resolve, out):
    """``kvlog_imports`` of one Python module's tree: its kvlog imports into ``out``, with where they stand."""
    import ast

    for child in ast.iter_child_nodes(node):
        k = kind
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            k = "typing"
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and kind == "top":
            k = "function"
        if isinstance(child, ast.Import):
            for a in child.names:
                if a.name == "kvlog" or a.name.startswith("kvlog."):
                    out.append((mod, resolve(a.name), k))
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                up = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                base = ".".join(up + ([base] if base else []))
            if base == "kvlog" or base.startswith("kvlog."):
                for a in child.names:
                    full = f"{base}.{a.name}"
                    out.append((mod, full if full in mods else resolve(base), k))
        _visit(child, k, mod, package, mods, resolve, out)


def kvlog_imports():
    """Every import of a kvlog module by a kvlog module, as ``(importer, imported, kind)``; kind is ``"top"``
    (module level), ``"function"`` (inside a function or method) or ``"typing"`` (under ``if TYPE_CHECKING``).
    A name imported from a package (``from kvlog import _files``) counts as its module when it is one."""
    import ast

    src = REPO / "src"
    files = {}
    for path in sorted((src / "kvlog").rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxi", ".pxd", ".pyi") or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files.setdefault(".".join(parts), []).append(path)
    mods = set(files)

    def resolve(name):
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    out = []
    for mod, paths in files.items():
        for path in paths:
            text = path.read_text(encoding="utf-8")
            package = mod if path.stem == "__init__" else mod.rpartition(".")[0]
            if path.suffix != ".py":  # Cython and stubs: module-level imports by their lines
                if path.suffix == ".pyi":
                    continue
                for m in _PYX_IMPORT.finditer(text):
                    base = m.group(1) or m.group(2) or m.group(4)
                    names = [n.strip() for n in (m.group(3) or "").split(",") if n.strip()]
                    targets = [f"{base}.{n}" if f"{base}.{n}" in mods else resolve(base) for n in names] or [
                        resolve(base)]
                    out += [(mod, t, "top") for t in targets if t and t != mod]
                continue

            _visit(ast.parse(text, str(path)), "top", mod, package, mods, resolve, out)
    return [(a, b, k) for a, b, k in out if b and a != b]


def part_of(module):
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def circles(graph):
    """The strongly connected components of more than one node (Tarjan's algorithm, iteratively)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_imports_point_down_the_layers():
    """No arrow from a lower layer to a higher one, counting imports inside functions and under
    TYPE_CHECKING too (docs/layout.md): e.g. the partition log imports nothing of the tiered view, the internal
    topics, the topic configs or the manager; a tiered view composes a local log from above."""
    level = {part: i for i, (_, parts) in enumerate(LAYERS) for part in parts}
    edges = kvlog_imports()
    assert len(edges) > 300, "the import scan found too little"
    unplaced = sorted({part_of(m) for a, b, _ in edges for m in (a, b)} - set(level))
    assert not unplaced, f"parts of kvlog in no layer of tests/test_lint.py LAYERS (and docs/layout.md): {unplaced}"
    upward = sorted({(a, b, k) for a, b, k in edges if level[part_of(a)] > level[part_of(b)]})
    assert not upward, "imports against the layers (importer -> imported, where):\n" + "\n".join(
        f"  {a} ({LAYERS[level[part_of(a)]][0]}) -> {b} ({LAYERS[level[part_of(b)]][0]}) [{k}]" for a, b, k in upward)


def test_no_import_circles():
    """No circle between kvlog's parts (every import counted), nor between its modules (imports that run:
    at module level or inside functions; a TYPE_CHECKING import names a type for the checker only)."""
    edges = kvlog_imports()
    parts: dict[str, set[str]] = {}
    modules: dict[str, set[str]] = {}
    for a, b, kind in edges:
        if part_of(a) != part_of(b):
            parts.setdefault(part_of(a), set()).add(part_of(b))
        if kind != "typing":
            modules.setdefault(a, set()).add(b)
    assert not circles(parts), f"circles between kvlog's parts: {circles(parts)}"
    assert not circles(modules), f"circles between kvlog's modules: {circles(modules)}"


def test_layer_check_sees_an_upward_import_and_a_circle():
    """The checks above are not vacuous: a function-level import from a lower layer is caught, and so is a loop."""
    level = {part: i for i, (_, parts) in enumerate(LAYERS) for part in parts}
    assert level[part_of("kvlog.log.loader")] > level[part_of("kvlog.tiered.view")]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
