"""The JVM Spark source's jar as users get it: carried by the wheel and found by ``kvlog.spark.jar_path()``.

Against an installed wheel (``make test``, cibuildwheel) the jar must be the package's own
``kvlog/spark/jars/kvlog-spark.jar``, found with ``KVLOG_SPARK_JAR`` unset; in place (kvlog imported from this
checkout's ``src/``) it is ``build-jar/``'s, built from ``java/``. Either way the jar is then checked as Spark
loads it: the ``DataSourceRegister`` service file, the provider classes it names, and every class of the
checkout's Java sources, compiled for Java 17. No Spark session is started.
"""

from __future__ import annotations

import pathlib
import zipfile

import pytest

import kvlog

pytest.importorskip("pyspark")  # kvlog.spark imports it

import kvlog.spark  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
JAVA = REPO / "java" / "src" / "main"
SERVICE = "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"
FROM_CHECKOUT = pathlib.Path(kvlog.__file__).resolve().is_relative_to(REPO / "src")
PACKAGE_JAR = pathlib.Path(kvlog.spark.__file__).resolve().parent / "jars" / "kvlog-spark.jar"


@pytest.fixture
def expected_jar(request, monkeypatch) -> pathlib.Path:
    """The jar ``jar_path()`` must answer with ``KVLOG_SPARK_JAR`` unset (which this fixture unsets)."""
    monkeypatch.delenv("KVLOG_SPARK_JAR", raising=False)
    if not FROM_CHECKOUT:
        assert PACKAGE_JAR.is_file(), f"the installed wheel carries no {PACKAGE_JAR.name} ({PACKAGE_JAR.parent})"
        return PACKAGE_JAR
    built = request.getfixturevalue("checkout_jar")  # build-jar/, built when stale
    # jar_path() prefers a copy inside the package (tools/build_jar.py --copy-to src/kvlog/spark/jars).
    return PACKAGE_JAR if PACKAGE_JAR.is_file() else built


class _Builder:
    """The part of ``SparkSession.builder`` that ``with_jar`` uses."""

    def __init__(self, jars: str) -> None:
        self._options = {"spark.jars": jars}

    def config(self, key: str, value: str) -> _Builder:
        self._options[key] = value
        return self


def test_jar_path_is_the_jar_this_kvlog_carries(expected_jar):
    assert kvlog.spark.jar_path() == str(expected_jar)
    builder = kvlog.spark.with_jar(_Builder("/opt/other.jar"))
    assert builder._options["spark.jars"] == f"/opt/other.jar,{expected_jar}"


def test_jar_registers_its_providers_and_holds_every_class(expected_jar):
    with zipfile.ZipFile(kvlog.spark.jar_path()) as jar:
        assert jar.testzip() is None
        names = set(jar.namelist())
        service = jar.read(SERVICE)
        providers = [line.split("#", 1)[0].strip() for line in service.decode().splitlines()]
        providers = [p for p in providers if p]
        assert providers, f"{SERVICE} names no provider"
        for provider in providers:
            entry = provider.replace(".", "/") + ".class"
            assert entry in names, f"{provider} is registered but not in the jar"
            # the provider implements DataSourceRegister itself or extends a class of the jar that does
            chain = [entry] + [n for n in names if n.endswith(".class") and n != entry
                               and n[:-6].encode() in jar.read(entry)]
            assert any(b"org/apache/spark/sql/sources/DataSourceRegister" in jar.read(n) for n in chain), provider
        # Built from these sources: the same service file, a class for every source file.
        assert service == (JAVA / "resources" / SERVICE).read_bytes()
        sources = sorted((JAVA / "java").rglob("*.java"))
        assert sources
        missing = [p.name for p in sources
                   if p.relative_to(JAVA / "java").with_suffix(".class").as_posix() not in names]
        assert not missing, f"classes missing from the jar: {missing}"
        classes = [n for n in names if n.startswith("io/kvlog/spark/") and n.endswith(".class")]
        for name in classes:
            head = jar.read(name)[:8]
            assert head[:4] == b"\xca\xfe\xba\xbe", name
            assert int.from_bytes(head[6:8], "big") == 61, f"{name}: not compiled for Java 17 (--release 17)"
