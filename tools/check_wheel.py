"""Check a built kvlog wheel before anyone installs it (used by `make wheel` and the wheels workflow).

A wheel that misses a module, drags in a shared library or carries a non-manylinux tag is a production
incident on someone's Spark executors, so each of those is a hard failure here:

- the platform tag is manylinux (or musllinux) and every compiled module matches it;
- every extension module needs nothing beyond the C library, except ``records``, which needs liblz4 and
  libzstd (the decoder inflates lz4 and zstd without the GIL): auditwheel grafts exactly those two into
  ``kvlog.libs/`` and nothing else may be there;
- every ``.py`` module of ``src/kvlog`` is inside, with ``py.typed`` and a ``.pyi`` stub per ``_core`` module;
- no build inputs (``.pyx``, generated ``.c``) leak into it;
- the JVM Spark source's jar is inside (``kvlog/spark/jars/kvlog-spark.jar``): a valid zip holding the
  ``io/kvlog/spark`` classes (its packages too) and the ``DataSourceRegister`` service file, every provider it
  names compiled in.

Usage: ``python tools/check_wheel.py WHEEL [WHEEL ...]`` (run from the repository root).
"""

from __future__ import annotations

import io
import pathlib
import re
import sys
import zipfile
import zlib

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

REPO = pathlib.Path(__file__).resolve().parents[1]
SRC = REPO / "src"

# What manylinux policies allow an extension to link against that kvlog may plausibly need.
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "ld-linux-x86-64.so.2",
                  "ld-linux-aarch64.so.1"}
# The system codec libraries the record decoder links (setup.py), grafted under auditwheel's hashed names.
GRAFTED = re.compile(r"kvlog\.libs/(liblz4|libzstd)-[0-9a-f]{8}\.so(\.[0-9]+)*")
CODEC_MODULE = "kvlog/_core/records."
JAR = "kvlog/spark/jars/kvlog-spark.jar"
SERVICE = "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"
TAG = re.compile(r"-(?P<py>cp\d+)-(?P<abi>cp\d+t?)-(?P<plat>[a-z0-9_.]+)\.whl$")


def expected_members() -> set[str]:
    """Module files the wheel must carry, from the source tree it was built from."""
    pkg = SRC / "kvlog"
    want = {p.relative_to(SRC).as_posix() for p in pkg.rglob("*.py") if "__pycache__" not in p.parts}
    want |= {p.relative_to(SRC).as_posix() for p in (pkg / "_core").glob("*.pyi")}
    want.add("kvlog/py.typed")
    return want


def needed_libraries(data: bytes) -> list[str]:
    elf = ELFFile(io.BytesIO(data))
    out: list[str] = []
    for section in elf.iter_sections():
        if isinstance(section, DynamicSection):
            out += [tag.needed for tag in section.iter_tags() if tag.entry.d_tag == "DT_NEEDED"]
    return out


def jar_problems(data: bytes) -> list[str]:
    """What is wrong with the wheel's jar (its bytes), if anything."""
    try:
        jar = zipfile.ZipFile(io.BytesIO(data))
        bad = jar.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        return [f"{JAR}: not a valid zip ({exc})"]
    if bad is not None:
        return [f"{JAR}: member {bad} fails its CRC"]
    names = set(jar.namelist())
    problems: list[str] = []
    # io.kvlog.spark (the table provider, the catalog) and its packages by part (io.kvlog.spark.read, ...)
    classes = sorted(n for n in names if re.fullmatch(r"io/kvlog/spark/(?:[a-z][a-z0-9_]*/)*[^/]+\.class", n))
    if not classes:
        problems.append(f"{JAR}: no io/kvlog/spark/**/*.class")
    # Class file major version 61 is Java 17, the oldest JVM Spark 4 runs on (javac --release 17).
    heads = {c: jar.read(c)[:8] for c in classes}
    newer = [c for c, h in heads.items() if h[:4] != b"\xca\xfe\xba\xbe" or int.from_bytes(h[6:8], "big") > 61]
    if newer:
        problems.append(f"{JAR}: not class files for Java 17: {', '.join(newer[:5])}")
    if SERVICE not in names:
        return [*problems, f"{JAR}: no {SERVICE}"]
    providers = [line.split("#", 1)[0].strip() for line in jar.read(SERVICE).decode().splitlines()]
    providers = [p for p in providers if p]
    if not providers:
        problems.append(f"{JAR}: {SERVICE} names no provider")
    for cls in providers:
        if cls.replace(".", "/") + ".class" not in names:
            problems.append(f"{JAR}: provider {cls} (named by the service file) is not in the jar")
    return problems


def check(path: pathlib.Path) -> list[str]:
    problems: list[str] = []
    m = TAG.search(path.name)
    if not m:
        return [f"{path.name}: not a CPython platform wheel name"]
    plat = m["plat"]
    if not all(p.startswith(("manylinux", "musllinux")) for p in plat.split(".")):
        problems.append(f"platform tag {plat!r} is not manylinux/musllinux (was auditwheel repair run?)")
    arch = "aarch64" if "aarch64" in plat else "x86_64"
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        missing = sorted(expected_members() - names)
        if missing:
            problems.append(f"missing from the wheel: {', '.join(missing)}")
        grafted = sorted(n for n in names if ".libs/" in n and not n.endswith("/"))
        foreign_grafts = [n for n in grafted if not GRAFTED.fullmatch(n)]
        if foreign_grafts:
            problems.append(f"external libraries were grafted in: {', '.join(foreign_grafts)}")
        codec_libs = {n.split("/", 1)[1] for n in grafted if GRAFTED.fullmatch(n)}
        kinds = {lib.split("-", 1)[0] for lib in codec_libs}
        if kinds != {"liblz4", "libzstd"}:
            problems.append(f"kvlog.libs/ should hold liblz4 and libzstd, holds {sorted(codec_libs) or 'nothing'}"
                            " (built without KVLOG_REQUIRE_SYSTEM_CODECS=1?)")
        if JAR in names:
            problems += jar_problems(zf.read(JAR))
        else:
            problems.append(f"missing from the wheel: {JAR} (the JVM Spark source: built without javac or pyspark?)")
        leaked = sorted(n for n in names if n.endswith((".pyx", ".c", ".html")))
        if leaked:
            problems.append(f"build inputs in the wheel: {', '.join(leaked)}")
        stubs = {n[: -len(".pyi")] for n in names if n.startswith("kvlog/_core/") and n.endswith(".pyi")}
        exts = [n for n in names if n.startswith("kvlog/_core/") and n.endswith(".so")]
        if not exts:
            problems.append("no compiled modules in kvlog/_core")
        for ext in exts:
            module = ext.split(".", 1)[0]
            if module not in stubs:
                problems.append(f"{ext}: no .pyi stub")
            if f".cpython-{m['abi'][2:]}-{arch}-linux-" not in ext:
                problems.append(f"{ext}: does not match the wheel tag {m['abi']}/{arch}")
            allowed = ALLOWED_NEEDED | codec_libs if ext.startswith(CODEC_MODULE) else ALLOWED_NEEDED
            foreign = sorted(set(needed_libraries(zf.read(ext))) - allowed)
            if foreign:
                problems.append(f"{ext}: needs shared libraries outside libc: {', '.join(foreign)}")
    return problems


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for arg in argv:
        path = pathlib.Path(arg)
        problems = check(path)
        if problems:
            bad += 1
            print(f"FAIL {path.name}")
            for p in problems:
                print(f"  - {p}")
        else:
            with zipfile.ZipFile(path) as zf:
                n = len(zf.namelist())
            print(f"OK   {path.name}: manylinux tag, libc-only extensions (+ grafted liblz4/libzstd), {n} files incl. stubs, py.typed "
                  f"and {JAR}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
