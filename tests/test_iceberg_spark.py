"""kvlog.iceberg against Iceberg's own Spark runtime (iceberg-spark-runtime-4.1, in a PySpark 4.1 environment:
``make test-iceberg-spark``): Spark reads the tables kvlog exports, equal to the data files as Parquet's reader
reads them; the export as a Spark job (kvlog's JVM scan, Iceberg's writer, main moved to the job's branch only
if nothing else moved it) is exactly once, shares its state with the Python export, and walks past snapshots
other writers add."""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import kvlog
import kvlog.iceberg as ki
import kvlog.iceberg.spark as kis
from kvlog.errors import IcebergExportError
from tests.iceberg_support import NOW_MS, assert_exactly, write_topic

pytestmark = [pytest.mark.iceberg_spark, pytest.mark.xdist_group("iceberg-spark"),
              # PySpark 4.1's collect() leaves its result socket to the garbage collector (4.3's closes it)
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]
JARS = Path(os.environ.get("KVLOG_SPARK_JARS", Path(__file__).resolve().parents[1] / "build" / "spark-jars"))


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lake")


@pytest.fixture(scope="module")
def spark(lake: Path):
    import pyspark
    from pyspark.sql import SparkSession

    from kvlog.spark.jvm import with_jar

    if not pyspark.__version__.startswith("4.1."):
        pytest.fail(f"Iceberg's Spark runtime here is for Spark 4.1, this is PySpark {pyspark.__version__}: run "
                    f"make test-iceberg-spark")
    jars = sorted(glob.glob(str(JARS / "iceberg" / "*.jar")))
    assert jars, f"no Iceberg Spark runtime in {JARS}/iceberg: make spark-jars"
    ki.catalog(lake)  # (the embedded catalog's SQLite file, which Spark opens as a JDBC catalog)
    builder = (SparkSession.builder.master("local[2]").appName("kvlog-iceberg-spark")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.jars", ",".join(jars))
               .config("spark.sql.catalog.kvlog", "org.apache.iceberg.spark.SparkCatalog")
               .config("spark.sql.catalog.kvlog.type", "jdbc")
               .config("spark.sql.catalog.kvlog.uri", f"jdbc:sqlite:{lake}/kvlog-catalog.db")
               .config("spark.sql.catalog.kvlog.warehouse", f"file://{lake}"))
    os.environ["TZ"] = "UTC"
    session = with_jar(builder.config("spark.sql.session.timeZone", "UTC")).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _files(lake: Path, ident: str) -> list[dict]:
    scan = ki.catalog(lake).load_table(ident).scan()
    t = pa.concat_tables([pq.read_table(f.file.file_path.removeprefix("file://")) for f in scan.plan_files()])
    return sorted(t.to_pylist(), key=lambda r: (r["partition"], r["offset"]))


def _spark_rows(spark, ident: str) -> list[dict]:
    return sorted((r.asDict(recursive=True) for r in spark.table(f"kvlog.{ident}").collect()),
                  key=lambda r: (r["partition"], r["offset"]))


def _same(spark_rows: list[dict], file_rows: list[dict]) -> None:
    assert len(spark_rows) == len(file_rows)
    for s, f in zip(spark_rows, file_rows):
        s = dict(s)
        s["timestamp"] = s["timestamp"].timestamp()
        f = dict(f)
        f["timestamp"] = f["timestamp"].timestamp()
        s["key"] = bytes(s["key"]) if s["key"] is not None else None
        s["value"] = bytes(s["value"]) if s["value"] is not None else None
        if s["headers"] is not None:
            s["headers"] = [{"key": h["key"], "value": None if h["value"] is None else bytes(h["value"])}
                            for h in s["headers"]]
        assert s == f


def test_spark_reads_what_kvlog_exported(spark, lake: Path, tmp_path: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=3, n=200)
    ki.export(root, "clicks", "a.clicks", warehouse=lake)
    _same(_spark_rows(spark, "a.clicks"), _files(lake, "a.clicks"))
    summary = spark.sql("SELECT summary FROM kvlog.a.clicks.snapshots").collect()[-1]["summary"]
    assert json.loads(summary["kvlog.offsets"]) == {"0": 200, "1": 200, "2": 200}
    # a null headers list is null to Spark (pyiceberg 0.12 alone reads it as [])
    assert any(r["headers"] is None for r in _spark_rows(spark, "a.clicks"))


def test_the_spark_export_is_exactly_once_and_shares_state_with_python(spark, lake: Path, tmp_path: Path):
    root = tmp_path / "d"
    expected = write_topic(root, partitions=3, n=150)
    r = kis.export(spark, str(root), "clicks", "b.clicks")
    assert (r.rows, r.commits, r.offsets) == (450, 1, {0: 150, 1: 150, 2: 150})
    assert_exactly(ki.catalog(lake), "b.clicks", expected)
    assert [str(f.transform) for f in ki.catalog(lake).load_table("b.clicks").spec().fields] == ["hour"]
    again = kis.export(spark, str(root), "clicks", "b.clicks")
    assert (again.rows, again.commits) == (0, 0)
    expected.update(write_topic(root, partitions=3, n=40, start=150))
    py = ki.export(root, "clicks", "b.clicks", warehouse=lake)  # the Python export goes on from Spark's state
    assert py.rows == 120 and py.previous == {0: 150, 1: 150, 2: 150}
    expected.update(write_topic(root, partitions=3, n=30, start=190))
    assert kis.export(spark, str(root), "clicks", "b.clicks").rows == 90  # and Spark's from Python's
    assert_exactly(ki.catalog(lake), "b.clicks", expected)
    _same(_spark_rows(spark, "b.clicks"), _files(lake, "b.clicks"))
    branches = [r["name"] for r in spark.sql("SELECT name FROM kvlog.b.clicks.refs").collect()]
    assert branches == ["main"]


def test_a_race_lost_to_another_exporter_starts_again(spark, lake: Path, tmp_path: Path):
    root = tmp_path / "d"
    expected = write_topic(root, partitions=2, n=100)
    kis.export(spark, str(root), "clicks", "c.clicks")
    expected.update(write_topic(root, partitions=2, n=50, start=100))
    raced: list[int] = []

    def meanwhile() -> None:
        if not raced:  # the Python exporter commits the same records while the Spark job's are on its branch
            raced.append(ki.export(root, "clicks", "c.clicks", warehouse=lake).rows)

    r = kis.export(spark, str(root), "clicks", "c.clicks", before_commit=meanwhile)
    assert raced == [100] and r.retries == 1 and r.rows == 0
    assert_exactly(ki.catalog(lake), "c.clicks", expected)


def test_snapshots_of_other_writers_are_walked_past(spark, lake: Path, tmp_path: Path):
    root = tmp_path / "d"
    write_topic(root, partitions=1, n=20)
    ki.export(root, "clicks", "d.clicks", warehouse=lake, partition_by=None)
    spark.sql("INSERT INTO kvlog.d.clicks (key, value, partition, offset, timestamp, timestampType, headers) "
              "VALUES (X'01', X'02', 99, 0, current_timestamp(), 0, NULL)")
    write_topic(root, partitions=1, n=5, start=20)
    r = ki.export(root, "clicks", "d.clicks", warehouse=lake)
    assert r.rows == 5 and r.previous == {0: 20}
    assert kis.export(spark, str(root), "clicks", "d.clicks").rows == 0
    assert len(_spark_rows(spark, "d.clicks")) == 26


def test_typed_values_through_the_jvm_engine(spark, lake: Path, tmp_path: Path):
    from kvlog.schemas.registering import register_and_serializer

    root = tmp_path / "d"
    schema = {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"},
                                                         {"name": "who", "type": "string"}]}
    with kvlog.LogManager(root) as m:
        m.create_topic("orders", 1)
    ser = register_and_serializer(root, "orders-value", json.dumps(schema))
    with kvlog.LogManager(root) as m:
        m.log("orders", 0).append([kvlog.Record(b"k%d" % i, ser({"id": i, "who": f"w{i % 3}"}), NOW_MS + i)
                                   for i in range(30)])
    kis.export(spark, str(root), "orders", "e.orders", value_format="registry")
    ki.export(root, "orders", "e.orders_py", warehouse=lake, value_format="registry")
    by_spark = [(r["offset"], r["id"], r["who"], r["valueSchemaId"]) for r in _files(lake, "e.orders")]
    by_python = [(r["offset"], r["id"], r["who"], r["valueSchemaId"]) for r in _files(lake, "e.orders_py")]
    assert by_spark == by_python == [(i, i, f"w{i % 3}", 1) for i in range(30)]


def test_a_compatible_new_version_evolves_the_table_and_an_incompatible_one_stops(spark, lake: Path,
                                                                                 tmp_path: Path):
    """As the Python export: a new compatible version of the value's schema adds its field to the table (the
    earlier rows read it as null), read the same by Spark and by pyiceberg; a type the table cannot take stops
    with Iceberg's reason and adds nothing."""
    from kvlog.schemas.registering import register_and_serializer

    root = tmp_path / "d"
    v1 = {"type": "record", "name": "O", "fields": [{"name": "id", "type": "long"},
                                                    {"name": "who", "type": "string"}]}
    v2 = {**v1, "fields": v1["fields"] + [{"name": "coupon", "type": ["null", "string"], "default": None}]}
    with kvlog.LogManager(root) as m:
        m.create_topic("orders", 1)
    s1 = register_and_serializer(root, "orders-value", json.dumps(v1))
    with kvlog.LogManager(root) as m:
        m.log("orders", 0).append([kvlog.Record(b"k%d" % i, s1({"id": i, "who": "a"}), NOW_MS + i) for i in range(5)])
    kis.export(spark, str(root), "orders", "e.evolving", value_format="registry", partition_by=None)
    s2 = register_and_serializer(root, "orders-value", json.dumps(v2))
    with kvlog.LogManager(root) as m:
        m.log("orders", 0).append([kvlog.Record(b"k%d" % i, s2({"id": i, "who": "b", "coupon": f"X{i}"}),
                                                NOW_MS + i) for i in range(5, 8)])
    r = kis.export(spark, str(root), "orders", "e.evolving", value_format="registry", partition_by=None)
    assert r.rows == 3
    table = ki.catalog(lake).load_table("e.evolving")
    assert "coupon" in [f.name for f in table.schema().fields]
    got = sorted((row["offset"], row["id"], row["who"], row["coupon"], row["valueSchemaId"])
                 for row in table.scan().to_arrow().to_pylist())
    assert got == [(i, i, "a", None, 1) for i in range(5)] + [(i, i, "b", f"X{i}", 2) for i in range(5, 8)]
    assert sorted(r["coupon"] or "" for r in _spark_rows(spark, "e.evolving")) == [""] * 5 + ["X5", "X6", "X7"]
    changed = {**v2, "fields": [{"name": "id", "type": "string"}] + v2["fields"][1:]}
    s3 = register_and_serializer(root, "orders-value", json.dumps(changed))
    with kvlog.LogManager(root) as m:
        m.log("orders", 0).append([kvlog.Record(b"k9", s3({"id": "nine", "who": "c", "coupon": None}), NOW_MS)])
    with pytest.raises(IcebergExportError, match="schema changed in a way the table cannot follow.*id"):
        kis.export(spark, str(root), "orders", "e.evolving", value_format="registry", partition_by=None)
    assert len(ki.catalog(lake).load_table("e.evolving").scan().to_arrow()) == 8


def test_a_stream_exports_exactly_once_and_replays_add_nothing(spark, lake: Path, tmp_path: Path):
    """readStream.format("kvlog") with trigger(availableNow): each micro-batch appended on a branch and main
    fast-forwarded; a new query starts where the table is; a batch Spark replays (its commit log entry gone, as
    after a failure that followed the table's commit) adds nothing."""
    root = tmp_path / "d"
    expected = write_topic(root, partitions=2, n=120)
    ki.export(root, "clicks", "f.clicks", warehouse=lake)  # the table's state before the stream existed
    expected.update(write_topic(root, partitions=2, n=60, start=120))
    ckpt = str(tmp_path / "ckpt")
    kis.export_stream(spark, str(root), "clicks", "f.clicks", checkpoint_location=ckpt).awaitTermination()
    assert_exactly(ki.catalog(lake), "f.clicks", expected)
    expected.update(write_topic(root, partitions=2, n=30, start=180))
    kis.export_stream(spark, str(root), "clicks", "f.clicks", checkpoint_location=ckpt).awaitTermination()
    assert_exactly(ki.catalog(lake), "f.clicks", expected)
    commits = sorted(Path(ckpt, "commits").iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else -1)
    commits[-1].unlink()  # Spark replays the last micro-batch (its checksum file goes too)
    Path(ckpt, "commits", f".{commits[-1].name}.crc").unlink(missing_ok=True)
    snaps = len(ki.catalog(lake).load_table("f.clicks").snapshots())
    kis.export_stream(spark, str(root), "clicks", "f.clicks", checkpoint_location=ckpt).awaitTermination()
    assert_exactly(ki.catalog(lake), "f.clicks", expected)
    assert commits[-1].exists()  # (the replayed batch ran and was committed again)
    assert len(ki.catalog(lake).load_table("f.clicks").snapshots()) == snaps
    state = json.loads(ki.catalog(lake).load_table("f.clicks").current_snapshot().summary["kvlog.offsets"])
    assert state == {"0": 210, "1": 210}


CLUSTER_DRIVER = """
import glob, json, os, sys
from pyspark.sql import SparkSession
from kvlog.spark.jvm import with_jar
import kvlog.iceberg.spark as kis
from kvlog.errors import IcebergExportError
root, lake, jars, out = sys.argv[1:5]
builder = (SparkSession.builder.master("local-cluster[2,1,1024]").appName("kvlog-iceberg-cluster")
           .config("spark.ui.enabled", "false").config("spark.jars", jars)
           .config("spark.executor.memory", "512m").config("spark.sql.session.timeZone", "UTC")
           .config("spark.sql.catalog.kvlog", "org.apache.iceberg.spark.SparkCatalog")
           .config("spark.sql.catalog.kvlog.type", "jdbc")
           .config("spark.sql.catalog.kvlog.uri", f"jdbc:sqlite:{lake}/kvlog-catalog.db")
           .config("spark.sql.catalog.kvlog.warehouse", f"file://{lake}"))
spark = with_jar(builder).getOrCreate()
first = kis.export(spark, root, "clicks", "g.clicks")
second = kis.export(spark, root, "clicks", "g.clicks")
pids = spark.sparkContext.parallelize(range(8), 8).map(lambda _: os.getpid()).distinct().collect()
json.dump({"rows": [first.rows, second.rows], "pids": pids, "driver": os.getpid()}, open(out, "w"))
spark.stop()
"""


def test_the_spark_export_on_a_multi_process_cluster(lake: Path, tmp_path: Path):
    """local-cluster[2,1,1024]: executors in processes of their own read the partitions and write the files;
    the export is exactly once there too (a rerun adds nothing)."""
    import subprocess
    import sys

    import pyspark

    from kvlog.spark.jvm import jar_path

    root = tmp_path / "d"
    expected = write_topic(root, partitions=4, n=150)
    jars = ",".join(sorted(glob.glob(str(JARS / "iceberg" / "*.jar"))) + [jar_path() or ""])
    out = tmp_path / "result.json"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable,
               SPARK_LOCAL_IP="127.0.0.1", TZ="UTC", SPARK_HOME=os.path.dirname(os.path.abspath(pyspark.__file__)),
               PYTHONPATH=os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                        os.environ.get("PYTHONPATH")])))
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    proc = subprocess.run([sys.executable, "-c", CLUSTER_DRIVER, str(root), str(lake), jars, str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(out.read_text())
    assert got["rows"] == [600, 0]
    assert len(set(got["pids"])) == 2 and got["driver"] not in got["pids"]  # two executor processes
    assert_exactly(ki.catalog(lake), "g.clicks", expected)
