"""One shape for one thing (issue 54, item 5): every error and warning the docs name is ``kvlog.X``; a batch's
codec is a ``kvlog.Compression`` member that prints its name; every Arrow producer gives the headers column one
type (Spark's Kafka source's, ``list<element: struct<key, value>>``)."""

from __future__ import annotations

import builtins
import pathlib
import re

import pyarrow as pa
import pytest

import kvlog
from kvlog.log import Log
from kvlog.scanning import kafka_schema, spark_headers_type

REPO = pathlib.Path(__file__).resolve().parents[1]
NAMED = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:Error|Warning)\b")


def _names_in_docs() -> dict[str, str]:
    """Every ``…Error``/``…Warning`` class name README.md and docs/*.md mention (Python's own left out), with the
    first page that does."""
    found: dict[str, str] = {}
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for name in NAMED.findall(page.read_text(encoding="utf-8")):
            if not hasattr(builtins, name):
                found.setdefault(name, page.name)
    return found


def test_every_error_and_warning_the_docs_name_is_importable_from_kvlog():
    names = _names_in_docs()
    # the ones a newcomer could not catch as kvlog.X (issue 54): the parse above sees them
    assert {"BackupError", "StorageError", "StorageAccessError", "StorageUnavailableError", "ReadOnlyStorageError",
            "ObjectNotFoundError", "RemoteSegmentError", "RemoteDecryptionError", "CorruptRemoteObjectError",
            "DataLossWarning", "CorruptQuorumStateError"} <= set(names)
    missing = sorted(f"{n} ({page})" for n, page in names.items() if n not in kvlog.__all__ or not hasattr(kvlog, n))
    assert not missing, f"named by the docs, not kvlog.X: {missing}"
    for name in names:
        cls = getattr(kvlog, name)
        if name.endswith("Error"):
            assert issubclass(cls, kvlog.KvlogError), name
        else:
            assert issubclass(cls, Warning), name


def test_the_exported_errors_are_the_ones_raised():
    from kvlog.damage import DataLossWarning
    from kvlog.errors import BackupError, StorageError
    from kvlog.internal_topics.quorum_state import CorruptQuorumStateError

    assert kvlog.BackupError is BackupError and kvlog.StorageError is StorageError
    assert kvlog.DataLossWarning is DataLossWarning and kvlog.CorruptQuorumStateError is CorruptQuorumStateError


@pytest.mark.parametrize("codec", list(kvlog.Compression))
def test_a_batchs_compression_is_a_compression_member_that_prints_its_name(codec, capfd):
    data = kvlog.encode_batch([kvlog.Record(b"k", b"v" * 100, 1_000)], compression=codec)
    (b,) = kvlog.MemoryRecords(data).batches()
    assert type(b.compression) is kvlog.Compression and b.compression is codec
    assert b.compression == int(codec)  # an IntEnum: comparisons with the id keep working
    print(b.compression, f"{b.compression}")
    assert capfd.readouterr().out == f"{codec.kafka_name} {codec.kafka_name}\n"
    assert format(b.compression, "d") == str(int(codec)) and repr(b.compression) == f"<Compression.{codec.name}: " \
        f"{int(codec)}>"
    assert kvlog.Compression.parse(str(b.compression)) is codec


def test_every_arrow_producer_gives_the_headers_column_one_type(tmp_path):
    want = spark_headers_type()
    assert want.value_field.name == "element"
    records = [kvlog.Record(b"k", b"v", 1_000, headers=(("h", b"x"),)), kvlog.Record(b"k2", None, 1_001)]
    data = kvlog.encode_batch(records)
    with kvlog.LogManager(str(tmp_path / "d")) as m:
        m.create_topic("t", 1)
        m.log("t", 0).append(records)
        m.create_topic("empty", 1)
    with Log.open(str(tmp_path / "d" / "t-0"), read_only=True) as log:
        from_log = log.to_arrow()
        from_log_records = log.to_arrow(0, 1)
    with Log.open(str(tmp_path / "d" / "empty-0"), read_only=True) as log:
        from_empty_log = log.to_arrow()
    got = {
        "MemoryRecords.to_arrow": kvlog.MemoryRecords(data).to_arrow().schema,
        "Log.to_arrow": from_log.schema,
        "Log.to_arrow(0, 1)": from_log_records.schema,
        "Log.to_arrow of an empty log": from_empty_log.schema,
        "record_schema": kvlog.record_schema(),
        "kafka_schema": kafka_schema(),
        "kvlog.scan": kvlog.scan(str(tmp_path / "d"), "t").read_all().schema,
        "Scan.schema": kvlog.Scan(str(tmp_path / "d"), "t").schema,
    }
    try:
        import kvlog.duckdb as kduck

        got["kvlog.duckdb.source"] = pa.schema(kduck.source(str(tmp_path / "d"), "t"))
    except ImportError:  # pragma: no cover - duckdb is an extra
        pass
    types = {k: str(s.field("headers").type) for k, s in got.items()}
    assert set(types.values()) == {str(want)}, types
    # decoded values and encoding from them are unchanged
    table = kvlog.MemoryRecords(data).to_arrow()
    assert table.column("headers").to_pylist() == [[{"key": "h", "value": b"x"}], None]
    again = kvlog.encode_arrays(table.column("key"), table.column("value"), [1_000, 1_001],
                                headers=table.column("headers"))
    assert kvlog.MemoryRecords(again).to_arrow().column("headers").equals(table.column("headers"))


def test_the_extras_the_docs_name_are_the_packages_and_the_readme_names_every_one():
    """``pip install "kvlog[…]"`` as the pages write it installs: every extra they name is one pyproject.toml
    declares, and the README's install block names every extra a user installs (issue 54, item 2)."""
    import tomllib

    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    named: dict[str, str] = {}
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for group in re.findall(r"kvlog\[([a-z0-9_,\- ]+)\]", page.read_text(encoding="utf-8")):
            for extra in group.split(","):
                named.setdefault(extra.strip(), page.name)
    unknown = sorted(f"{e} ({page})" for e, page in named.items() if e not in declared)
    assert not unknown, f"extras the docs name that pyproject.toml does not declare: {unknown}"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("## Install"):readme.index("## Tour")]
    listed = {e.strip() for g in re.findall(r"kvlog\[([a-z0-9_,\- ]+)\]", install) for e in g.split(",")}
    maintainers = {"test", "bench", "release"}  # (the suite's, the benchmarks', the release workflow's)
    assert declared - maintainers <= listed, sorted(declared - maintainers - listed)
