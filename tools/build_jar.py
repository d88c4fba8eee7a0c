"""Compile the JVM Spark source (``java/``) against Spark's jars into ``kvlog-spark.jar``.

    python tools/build_jar.py [--out DIR] [--copy-to DIR] [--require]

The classpath is the folder of jars named by ``KVLOG_SPARK_CLASSPATH`` (pyspark's ``jars/``, a Spark
distribution's ``jars/``), else the ``jars/`` folder of the pyspark this Python can import. ``javac`` (JDK 17+)
comes from PATH, else from ``$JAVA_HOME/bin``.

The jar records a digest of its inputs (the Java sources, the resources and this file). A jar whose digest
matches the sources is used as it is, with no javac or pyspark needed: that is how a wheel build without a JDK
(cibuildwheel's containers) picks up the jar built once beforehand in the same project directory. Otherwise
it is rebuilt; without javac or a classpath it prints why and exits 0, so a source build without a JDK still
succeeds (the Python source is the fallback), unless ``--require`` or ``KVLOG_REQUIRE_JAR=1`` is given: then
it exits 1. Exits 1 when compilation fails.

``setup.py`` loads this file by path (``build``, ``JarBuildError``, ``JAR_NAME``) to put the jar in the wheel.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
JAVA = ROOT / "java" / "src" / "main"
JAR_NAME = "kvlog-spark.jar"
DIGEST_ENTRY = "META-INF/kvlog-spark.inputs"
# Fixed entry times: the jar's bytes depend only on its inputs and the javac that compiled them.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class JarBuildError(Exception):
    """The jar cannot be built: javac failed, or (when required) javac or the classpath is missing."""


def spark_classpath() -> tuple[pathlib.Path | None, str]:
    """The folder of Spark jars to compile against, or None and the reason."""
    named = os.environ.get("KVLOG_SPARK_CLASSPATH")
    if named:
        path = pathlib.Path(named)
        if not any(path.glob("spark-sql*.jar")):
            return None, f"KVLOG_SPARK_CLASSPATH={named} is not a folder holding Spark's jars (spark-sql*.jar)"
        return path, ""
    spec = importlib.util.find_spec("pyspark")  # located, not imported
    if spec is None or not spec.submodule_search_locations:
        return None, "pyspark is not importable and KVLOG_SPARK_CLASSPATH is not set"
    jars = pathlib.Path(list(spec.submodule_search_locations)[0]) / "jars"
    if not jars.is_dir():
        return None, f"pyspark at {jars.parent} has no jars/ folder"
    return jars, ""


def find_javac() -> str | None:
    javac = shutil.which("javac")
    if javac is None and os.environ.get("JAVA_HOME"):
        candidate = pathlib.Path(os.environ["JAVA_HOME"]) / "bin" / "javac"
        javac = str(candidate) if os.access(candidate, os.X_OK) else None
    return javac


def sources() -> list[pathlib.Path]:
    return sorted((JAVA / "java").rglob("*.java"))


def resources() -> list[pathlib.Path]:
    return sorted(p for p in (JAVA / "resources").rglob("*") if p.is_file())


def inputs_digest() -> str:
    """SHA-256 over every input's path and bytes: the Java sources, the resources and this build tool."""
    h = hashlib.sha256()
    tool = pathlib.Path(__file__).resolve()
    for p in [*sources(), *resources(), tool]:
        name = "tools/build_jar.py" if p == tool else p.relative_to(JAVA).as_posix()
        data = p.read_bytes()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def recorded_digest(jar: pathlib.Path) -> str | None:
    """The inputs digest a jar built here carries, or None (no such jar, not a zip, built otherwise)."""
    try:
        with zipfile.ZipFile(jar) as z:
            return z.read(DIGEST_ENTRY).decode().strip()
    except (OSError, KeyError, zipfile.BadZipFile, UnicodeDecodeError):
        return None


def up_to_date(jar: pathlib.Path) -> bool:
    """Whether ``jar`` was built from exactly the current sources (by content, not by file times)."""
    return jar.is_file() and recorded_digest(jar) == inputs_digest()


def build(out: pathlib.Path, *, require: bool = False) -> pathlib.Path | None:
    """The jar's path in ``out``: reused when up to date, else compiled. Without javac or a classpath: None and
    a one-line message on stderr, or ``JarBuildError`` when ``require``. ``JarBuildError`` when javac fails."""
    jar = out / JAR_NAME
    if up_to_date(jar):
        return jar
    javac = find_javac()
    jars, why = spark_classpath()
    if javac is None:
        why = "no javac (JDK 17+) on PATH or in $JAVA_HOME/bin"
    if javac is None or jars is None:
        if require:
            raise JarBuildError(f"build_jar: cannot build {JAR_NAME}: {why} (and no up-to-date {jar})")
        print(f"build_jar: {why}; skipping {JAR_NAME}, the JVM Spark source (the Python source remains)",
              file=sys.stderr)
        return None
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build once, one after the other
        if up_to_date(jar):
            return jar
        return _build_locked(javac, jars, out, jar)


def _build_locked(javac: str, jars: pathlib.Path, out: pathlib.Path, jar: pathlib.Path) -> pathlib.Path:
    digest = inputs_digest()
    classes = out / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    cmd = [javac, "--release", "17", "-Xlint:all,-serial,-processing,-options,-path", "-Werror", "-encoding", "UTF-8",
           "-cp", str(jars / "*"), "-d", str(classes), *map(str, sources())]
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        raise JarBuildError(f"build_jar: javac failed (exit {done.returncode})")
    entries = [("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\nCreated-By: kvlog tools/build_jar.py\n\n"),
               (DIGEST_ENTRY, f"{digest}\n".encode())]
    entries += [(p.relative_to(classes).as_posix(), p.read_bytes()) for p in sorted(classes.rglob("*.class"))]
    entries += [(p.relative_to(JAVA / "resources").as_posix(), p.read_bytes()) for p in resources()]
    tmp = jar.with_suffix(".jar.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    os.replace(tmp, jar)
    return jar


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "build-jar"), help="build directory (default build-jar/)")
    ap.add_argument("--copy-to", default=None, help="also copy the jar into this directory (e.g. src/kvlog/spark/jars)")
    ap.add_argument("--require", action="store_true",
                    help="fail (exit 1) instead of skipping without javac or a classpath (also KVLOG_REQUIRE_JAR=1)")
    args = ap.parse_args(argv)
    require = args.require or os.environ.get("KVLOG_REQUIRE_JAR") == "1"
    try:
        jar = build(pathlib.Path(args.out), require=require)
    except JarBuildError as exc:
        print(exc, file=sys.stderr)
        return 1
    if jar is None:
        return 0
    if args.copy_to:
        dest = pathlib.Path(args.copy_to)
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(jar, dest / JAR_NAME)
    print(jar)
    return 0


if __name__ == "__main__":
    sys.exit(main())
