"""Compile the JVM ``kvlog_jvm`` Spark source (``java/``) against pyspark's jars into ``kvlog-spark.jar``.

    python tools/build_jar.py [--out DIR] [--copy-to DIR]

Needs ``javac`` (JDK 17+) and an importable pyspark (its ``jars/`` folder is the classpath). Without either it
prints why and exits 0, so a source build without a JDK still succeeds (the Python source is the fallback).
Exits 1 when compilation fails. Rebuilds only when a source is newer than the jar.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
JAVA = ROOT / "java" / "src" / "main"
JAR_NAME = "kvlog-spark.jar"


def pyspark_jars() -> pathlib.Path | None:
    try:
        import pyspark
    except ImportError:
        return None
    jars = pathlib.Path(pyspark.__file__).parent / "jars"
    return jars if jars.is_dir() else None


def sources() -> list[pathlib.Path]:
    return sorted((JAVA / "java").rglob("*.java"))


def resources() -> list[pathlib.Path]:
    return sorted(p for p in (JAVA / "resources").rglob("*") if p.is_file())


def up_to_date(jar: pathlib.Path) -> bool:
    if not jar.exists():
        return False
    newest = max(p.stat().st_mtime for p in [*sources(), *resources(), pathlib.Path(__file__)])
    return jar.stat().st_mtime >= newest


def build(out: pathlib.Path) -> pathlib.Path | None:
    """The jar's path, or None (with a message on stderr) when javac or pyspark is missing."""
    javac = shutil.which("javac")
    if javac is None:
        print("build_jar: no javac on PATH; skipping the kvlog_jvm Spark source (the Python source remains)",
              file=sys.stderr)
        return None
    jars = pyspark_jars()
    if jars is None:
        print("build_jar: pyspark is not importable; skipping the kvlog_jvm Spark source", file=sys.stderr)
        return None
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build once, one after the other
        return _build_locked(javac, jars, out)


def _build_locked(javac: str, jars: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    jar = out / JAR_NAME
    if up_to_date(jar):
        return jar
    classes = out / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    cmd = [javac, "--release", "17", "-Xlint:all,-serial,-processing,-options,-path", "-Werror", "-encoding", "UTF-8",
           "-cp", str(jars / "*"), "-d", str(classes), *map(str, sources())]
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        raise SystemExit(f"build_jar: javac failed (exit {done.returncode})")
    tmp = jar.with_suffix(".jar.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: kvlog tools/build_jar.py\n\n")
        for p in sorted(classes.rglob("*.class")):
            z.write(p, p.relative_to(classes).as_posix())
        for p in resources():
            z.write(p, p.relative_to(JAVA / "resources").as_posix())
    os.replace(tmp, jar)
    return jar


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "build-jar"), help="build directory (default build-jar/)")
    ap.add_argument("--copy-to", default=None, help="also copy the jar into this directory (e.g. src/kvlog/spark/jars)")
    args = ap.parse_args(argv)
    jar = build(pathlib.Path(args.out))
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
