"""The JVM engine's packages stand in layers (docs/layout.md, "The JVM engine"): a package of
``io.kvlog.spark`` uses the packages of the layers below it, never one of its own layer or above, and no two
packages use each other round a circle. Read from the sources as text (no JVM, no build): every
``import io.kvlog.spark...`` line and every fully qualified ``io.kvlog.spark.<package>.<Class>`` in code (not in
comments or strings). No Java file passes 900 lines.
"""

from __future__ import annotations

import pathlib
import re

from test_lint import circles  # the strongly connected parts of more than one node

REPO = pathlib.Path(__file__).resolve().parents[1]
JAVA = REPO / "java" / "src" / "main" / "java"
ROOT = "io.kvlog.spark"
MAX_LINES = 900

#: The packages from the top down (docs/layout.md, "The JVM engine"): a package may use the packages of the
#: layers below its own, never one of its own layer or of a layer above.
LAYERS = [
    ("entry points", {"io.kvlog.spark"}),
    ("the engines", {"io.kvlog.spark.read", "io.kvlog.spark.write"}),
    ("typed values", {"io.kvlog.spark.typed"}),
    ("remote storage", {"io.kvlog.spark.tiered"}),
    ("internal topics", {"io.kvlog.spark.metadata"}),
    ("a partition", {"io.kvlog.spark.log"}),
    ("bytes and files", {"io.kvlog.spark.format", "io.kvlog.spark.fs"}),
]

# Comments, strings, text blocks and character literals: what the reference scan leaves out.
_NOT_CODE = re.compile(r'"""(?:\\.|[^\\])*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?(io\.kvlog\.spark(?:\.\w+)*)(?:\.\*)?\s*;", re.M)
# A qualified name in io.kvlog.spark: lower-case package parts, then the class (upper case first).
_QUALIFIED = re.compile(r"\bio\s*\.\s*kvlog\s*\.\s*spark((?:\s*\.\s*[a-z_]\w*)*)\s*\.\s*[A-Z]")


def code_only(src: str) -> str:
    """``src`` without comments and literals (each comment a space, each literal an empty string)."""
    return _NOT_CODE.sub(lambda m: " " if m.group(0).startswith("/") else '""', src)


def package_of_name(name: str) -> str:
    """The package of ``io.kvlog.spark...`` as an import names it: the parts before the first upper-case one
    (a class, a nested class or a static member follows); a wildcard's name is the package itself."""
    parts = name.split(".")
    lower = []
    for p in parts:
        if p[:1].isupper():
            break
        lower.append(p)
    return ".".join(lower)


def uses(src: str) -> tuple[str, set[str]]:
    """The package a Java source declares, and the io.kvlog.spark packages it uses (its imports of them and its
    fully qualified names in code), its own left out."""
    code = code_only(src)
    declared = _PACKAGE.search(code)
    assert declared, "no package declaration"
    own = declared.group(1)
    used = {package_of_name(m.group(1)) for m in _IMPORT.finditer(code)}
    used |= {ROOT + re.sub(r"\s+", "", m.group(1)) for m in _QUALIFIED.finditer(code)}
    return own, used - {own}


def package_graph(sources: dict[str, str]) -> dict[str, dict[str, set[str]]]:
    """``{package: {used package: {files that use it}}}`` over ``{file: source}``; every package declared is a
    key, even one that uses no other."""
    graph: dict[str, dict[str, set[str]]] = {}
    for name, src in sources.items():
        own, used = uses(src)
        arrows = graph.setdefault(own, {})
        for p in used:
            arrows.setdefault(p, set()).add(name)
    return graph


def layer_problems(graph: dict[str, dict[str, set[str]]], layers) -> list[str]:
    """What breaks the layering: a package in no layer, an arrow to the package's own layer or one above (with
    the files that draw it), a circle."""
    level = {p: i for i, (_, ps) in enumerate(layers) for p in ps}
    problems = []
    for p in sorted(set(graph) | {q for arrows in graph.values() for q in arrows}):
        if p not in level:
            problems.append(f"{p} is in no layer of LAYERS (tests/test_java_layout.py and docs/layout.md)")
    for p, arrows in sorted(graph.items()):
        for q, files in sorted(arrows.items()):
            if p in level and q in level and level[q] <= level[p]:
                where = "its own layer" if level[q] == level[p] else "a layer above"
                problems.append(f"{p} ({layers[level[p]][0]}) uses {q}, {where} ({layers[level[q]][0]}): "
                                f"{', '.join(sorted(files))}")
    for c in circles({p: set(arrows) for p, arrows in graph.items()}):
        problems.append("circle between " + ", ".join(c))
    return problems


def java_sources() -> dict[str, str]:
    return {p.relative_to(JAVA).as_posix(): p.read_text(encoding="utf-8") for p in sorted(JAVA.rglob("*.java"))}


def test_packages_use_only_the_layers_below():
    sources = java_sources()
    assert len(sources) > 50, "the Java scan found too little"
    graph = package_graph(sources)
    assert set(graph) == {p for _, ps in LAYERS for p in ps}, "every package of LAYERS holds classes, and only those"
    assert sum(len(a) for a in graph.values()) >= 15, "the Java scan found too few arrows"
    problems = layer_problems(graph, LAYERS)
    assert not problems, "the JVM engine's packages against docs/layout.md:\n  " + "\n  ".join(problems)


def test_no_java_file_passes_900_lines():
    long = {name: src.count("\n") for name, src in java_sources().items() if src.count("\n") > MAX_LINES}
    assert not long, f"Java files over {MAX_LINES} lines (split them by part): {long}"


def test_layers_match_the_picture_in_docs():
    """docs/layout.md's picture of the JVM engine has a line per layer of LAYERS, in order, naming its packages."""
    doc = (REPO / "docs" / "layout.md").read_text()
    section = doc[doc.index("## The JVM engine"):]
    picture = section[section.index("```\n") + 4:]
    picture = picture[: picture.index("```")]
    rows = [line.strip() for line in picture.splitlines() if line.strip() and line.strip() != "│"]
    labelled = [r for r in rows if any(r.startswith(label) for label, _ in LAYERS)]
    assert [next(label for label, _ in LAYERS if r.startswith(label)) for r in labelled] == [label for label, _ in LAYERS]
    for row, (label, packages) in zip(labelled, LAYERS):
        named = set(row[len(label):].split())
        for p in packages:
            assert (p if p == ROOT else p.rsplit(".", 1)[-1]) in named, (label, p)


def test_the_scan_reads_imports_and_qualified_names_only_in_code():
    src = """package io.kvlog.spark.log;

import java.util.List;
import io.kvlog.spark.format.Bytes;
import static io.kvlog.spark.fs.LogFileSystems.shown;
import io.kvlog.spark.tiered.TieredLineage.Piece;
import io.kvlog.spark.read.*;

/** Not a use: {@link io.kvlog.spark.write.SinkPlan} */
final class X {
    // io.kvlog.spark.metadata.KraftTopicConfigs is not a use either
    String s = "io.kvlog.spark.KvlogSource";
    char c = '"';
    Object o = io.kvlog.spark.log.SegmentList.class;
    Object p = io.kvlog.spark . KvlogSource.SHORT_NAME;
}
"""
    own, used = uses(src)
    assert own == "io.kvlog.spark.log"
    assert used == {"io.kvlog.spark.format", "io.kvlog.spark.fs", "io.kvlog.spark.tiered", "io.kvlog.spark.read",
                    "io.kvlog.spark"}


def test_the_layer_check_sees_an_arrow_up_one_across_a_layer_and_a_circle():
    """The check is not vacuous: over a small made-up graph it finds a lower package using a higher one, two
    packages of one layer using each other, a package in no layer, and a circle."""
    layers = [("top", {"t"}), ("middle", {"m1", "m2"}), ("bottom", {"b"})]
    fine = {"t": {"m1": {"T.java"}, "b": {"T.java"}}, "m1": {"b": {"M.java"}}, "m2": {}, "b": {}}
    assert layer_problems(fine, layers) == []
    up = {"t": {}, "m1": {}, "m2": {}, "b": {"t": {"B.java"}}}
    assert layer_problems(up, layers) == ["b (bottom) uses t, a layer above (top): B.java"]
    across = {"t": {}, "m1": {"m2": {"M1.java"}}, "m2": {"m1": {"M2.java"}}, "b": {}}
    assert layer_problems(across, layers) == [
        "m1 (middle) uses m2, its own layer (middle): M1.java",
        "m2 (middle) uses m1, its own layer (middle): M2.java",
        "circle between m1, m2",
    ]
    stray = {"t": {"x": {"T.java"}}, "x": {"t": {"X.java"}}}
    problems = layer_problems(stray, layers)
    assert "x is in no layer of LAYERS (tests/test_java_layout.py and docs/layout.md)" in problems
    assert "circle between t, x" in problems
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    graph = package_graph({"A.java": "package io.kvlog.spark.format;\nimport io.kvlog.spark.read.X;\n"})
    assert layer_problems(graph, LAYERS)[0].startswith("io.kvlog.spark.format (bytes and files) uses "
                                                       "io.kvlog.spark.read, a layer above (the engines)")
