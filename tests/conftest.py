"""Suite-wide guards: the compiled kernels are the ones under test, and nothing fails silently."""

import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

import kvlog
import kvlog._core
import kvlog._core.index
import kvlog._core.offset_map
import kvlog._core.typed

settings.register_profile(
    "default", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", deadline=None, max_examples=2000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("KVLOG_HYPOTHESIS_PROFILE", "default"))

#: real log files written by other software (tests/data/fixtures/README.md), part of the repository
FIXTURES = pathlib.Path(__file__).resolve().parent / "data" / "fixtures"


def pytest_sessionstart(session):
    # No silent pure-Python fallback: the modules must be the compiled extension.
    for mod in (kvlog._core.crc, kvlog._core.records, kvlog._core.index, kvlog._core.offset_map, kvlog._core.typed):
        assert mod.__file__.endswith((".so", ".pyd")), f"{mod.__name__} is not compiled: {mod.__file__}"


@pytest.fixture(autouse=True)
def _no_ignored_exceptions(capfd):
    """Cython prints 'Exception ignored' for errors swallowed in noexcept code: make that a failure."""
    yield
    out, err = capfd.readouterr()
    assert "Exception ignored" not in err, err


@pytest.fixture
def kraft_segment(tmp_path):
    src = FIXTURES / "kraft-metadata" / "00000000000000000000.log"
    if not src.exists():
        pytest.fail(f"fixture missing: {src} (tests/data/fixtures is part of the repository)")
    dst = tmp_path / src.name
    dst.write_bytes(src.read_bytes())
    return dst


REPO = pathlib.Path(__file__).resolve().parents[1]


TEST_JVM_OPTS = ("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
                 "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote")


def kvlog_from_checkout() -> bool:
    """Whether kvlog is imported from this checkout's src/ (in place, editable) rather than an installed wheel."""
    return pathlib.Path(kvlog.__file__).resolve().is_relative_to(REPO / "src")


def packaged_jar() -> pathlib.Path:
    """Where an installed wheel carries the JVM Spark source's jar (``kvlog/spark/jars/kvlog-spark.jar``)."""
    return pathlib.Path(kvlog.__file__).resolve().parent / "spark" / "jars" / "kvlog-spark.jar"


def build_checkout_jar():
    """``build-jar/kvlog-spark.jar`` built (when stale) from this checkout's java/ by tools/build_jar.py, or
    None without javac or pyspark."""
    import importlib.util

    tool = REPO / "tools" / "build_jar.py"
    if not tool.is_file():
        return None
    spec = importlib.util.spec_from_file_location("kvlog_build_jar", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build(REPO / "build-jar")
    return None if built is None else str(built)


def jvm_source_jar():
    """The JVM source's jar for the test session: the one the installed wheel carries (so the suite runs what
    users get; nothing is built), else, in place or for a wheel without it, build-jar/'s; None without javac or
    pyspark."""
    if not kvlog_from_checkout() and packaged_jar().is_file():
        return str(packaged_jar())
    return build_checkout_jar()


def spark_kafka_jars() -> list[str]:
    """Spark's Kafka source and sink (spark-sql-kafka-0-10 and its closure) as ``make spark-jars`` fetched them into
    build/spark-jars/kafka/, or none."""
    d = REPO / "build" / "spark-jars" / "kafka"
    return sorted(str(p) for p in d.glob("*.jar")) if (d / ".complete").is_file() else []


def s3a_jars() -> list[str]:
    """Hadoop's S3A connector (hadoop-aws matching pyspark's Hadoop) and the AWS SDK modules it uses, as ``make
    spark-jars`` fetched them into build/spark-jars/s3a/, or none. With them ``format("kvlog")`` reads and writes
    ``s3://`` and ``s3a://`` on the JVM."""
    d = REPO / "build" / "spark-jars" / "s3a"
    return sorted(str(p) for p in d.glob("*.jar")) if (d / ".complete").is_file() else []


@pytest.fixture(scope="session")
def checkout_jar():
    """build-jar/kvlog-spark.jar built from this checkout's java/ (for in-place runs); skips without javac or
    pyspark."""
    jar = build_checkout_jar()
    if jar is None:
        pytest.skip("no javac or pyspark here: build-jar/kvlog-spark.jar cannot be built")
    return pathlib.Path(jar)


@pytest.fixture(scope="session")
def spark():
    """One local[2] SparkSession for every Spark test in this worker (UI off, workers on this Python)."""
    import shutil
    import sys

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.fail("the Spark tests need Java 17+ on PATH or JAVA_HOME")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["TZ"] = "UTC"
    from pyspark.sql import SparkSession

    builder = SparkSession.builder
    jar = jvm_source_jar()  # the JVM source, for the differential tests (tests/test_spark_jvm.py)
    # Spark's own Kafka source and sink (tests/test_broker_spark_kafka.py) and S3A (tests/test_spark_s3a.py), when fetched
    jars = spark_kafka_jars() + s3a_jars()
    if jar is not None:
        if jar != str(packaged_jar()):
            os.environ["KVLOG_SPARK_JAR"] = jar  # what kvlog.spark.jar_path() answers for an installed wheel without it
        jars.insert(0, jar)
    if jars:
        builder = builder.config("spark.jars", ",".join(jars))
    session = (
        builder.master("local[2]")
        .appName("kvlog-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.adaptive.enabled", "false")
        # the tests run thousands of short queries: C2's compiles and G1's threads cost CPU they never pay back
        # (test_spark_jvm.py + test_spark.py on 2 cores: 303 s with the defaults, 259 s so), and so does
        # verifying the bytecode of Spark's classes and of every query's generated code (javac's and
        # Janino's output; a session start and its first query: about 10% less CPU)
        .config("spark.driver.extraJavaOptions", os.environ.get("KVLOG_TEST_JVM_OPTS", TEST_JVM_OPTS))
        .config("spark.python.worker.faulthandler.enabled", "true")
        .config("spark.sql.execution.pyspark.udf.faulthandler.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    import kvlog.spark

    kvlog.spark.register(session)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def s3():
    """One moto S3 server on 127.0.0.1 per test module (tests/s3_support.py)."""
    from s3_support import S3Server

    server = S3Server()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _fresh_proxy(request):
    """Faults a test injected into the S3 proxy end with the test."""
    yield
    if "s3" in request.fixturenames:
        request.getfixturevalue("s3").proxy.clear()


@pytest.fixture(scope="module")
def jvm(spark):
    """The shared session, which must carry kvlog's jar (the JVM scan) for the differential tests."""
    import kvlog.spark

    if not kvlog.spark.jvm_source_available(spark):
        pytest.fail("the kvlog jar is not on the test session's classpath (tests/conftest.py builds it)")
    return spark
