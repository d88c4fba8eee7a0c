"""The JVM Spark source (``kvlog_jvm``) over a tiered topic whose remote segments Aiven's tiered-storage plugin
wrote (``kvlog.remoteStorage.layout=aiven``): chunked ``.log`` objects plain, zstd, AES-GCM and both, read row by
row as the untiered copy of the same partition and as the Python source (``kvlog_python``) reads them; errors that
name the object.
"""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("cryptography")
pytest.importorskip("zstandard")

from tiered_aiven_writer import make_key_pair  # noqa: E402
from tiered_support import T0, thrown, tier_log, to_aiven, two_tiered_partitions, write_log  # noqa: E402

TOPIC = "orders"
COLS = ["partition", "offset", "timestamp", "key", "value"]
PREFIX = "rsm/"


@pytest.fixture(scope="module")
def tiered(tmp_path_factory):
    """Two partitions: 0 with three of five segments remote, 1 with two of four (one of them also still local)."""
    base = tmp_path_factory.mktemp("aiven")
    t0, t1 = two_tiered_partitions(base, TOPIC)
    pub, _, _, priv = make_key_pair(base, "k1")
    return base, t0, t1, pub, priv


def aiven_copy(tiered, name, *, compression=False, encrypted=False):
    base, t0, t1, pub, _ = tiered
    dest = base / name
    if not dest.exists():
        enc = ("k1", pub) if encrypted else None
        for t in (t0, t1):
            to_aiven(t, dest, key_prefix=PREFIX, compression=compression, encryption=enc)
    return dest


def options(dest, priv=None, **extra):
    opts = {"subscribe": TOPIC, "kvlog.remoteStorage.layout": "aiven", "kvlog.remoteStorage.path": str(dest),
            "kvlog.remoteStorage.keyPrefix": PREFIX}
    if priv is not None:
        opts["kvlog.remoteStorage.keyPairs"] = f"k1={priv}"
    return opts | extra


def rows(spark, fmt, root, **opts):
    df = spark.read.format(fmt).options(**opts).load(str(root))
    return sorted((tuple(r) for r in df.select(*COLS).collect()), key=lambda r: r[:2]), df.rdd.getNumPartitions()


@pytest.mark.parametrize("compression,encrypted", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["plain", "zstd", "aes", "zstd+aes"])
def test_the_aiven_layout_reads_as_the_untiered_log_and_as_the_python_source(jvm, tiered, compression, encrypted):
    _, t0, _, _, priv = tiered
    dest = aiven_copy(tiered, f"aiven-{int(compression)}{int(encrypted)}", compression=compression,
                      encrypted=encrypted)
    opts = options(dest, priv if encrypted else None)
    got, splits = rows(jvm, "kvlog_jvm", t0.root, **opts)
    whole, _ = rows(jvm, "kvlog_jvm", t0.whole, subscribe=TOPIC)
    assert len(got) == 900 and got == whole
    # one split per remote piece, then the local rest, per partition (1's second remote segment is still local:
    # the local copy serves it)
    assert splits == 3 + 1 + 1 + 1
    assert got == rows(jvm, "kvlog_python", t0.root, **opts)[0]


def test_offsets_inside_remote_segments_and_a_starting_timestamp(jvm, tiered):
    _, t0, _, _, priv = tiered
    dest = aiven_copy(tiered, "aiven-11", compression=True, encrypted=True)
    whole, _ = rows(jvm, "kvlog_jvm", t0.whole, subscribe=TOPIC)
    offsets = '{"orders": {"0": 150, "1": 20}}', '{"orders": {"0": 320, "1": 290}}'
    got, _ = rows(jvm, "kvlog_jvm", t0.root, **options(dest, priv, startingOffsets=offsets[0],
                                                      endingOffsets=offsets[1]))
    assert got == [r for r in whole if (r[0] == 0 and 150 <= r[1] < 320) or (r[0] == 1 and 20 <= r[1] < 290)]
    for ts in (T0 + 130, T0 + 251):
        got, _ = rows(jvm, "kvlog_jvm", t0.root, **options(dest, priv, startingTimestamp=str(ts)))
        assert got == [r for r in whole if r[1] >= ts - T0] and got[0][1] == ts - T0
        assert got == rows(jvm, "kvlog_python", t0.root, **options(dest, priv, startingTimestamp=str(ts)))[0]


def test_a_wrong_private_key_is_an_error_naming_the_manifest(jvm, tiered, tmp_path):
    _, t0, _, _, priv = tiered
    dest = aiven_copy(tiered, "aiven-01", encrypted=True)
    _, _, _, other = make_key_pair(tmp_path, "k1")
    with pytest.raises(Exception, match="does not unwrap the segment's data key") as e:
        rows(jvm, "kvlog_jvm", t0.root, **options(dest, other))
    assert ".rsm-manifest" in str(e.value) and "PRIVATE KEY" not in str(e.value)
    assert pathlib.Path(other).read_text().splitlines()[1] not in str(e.value)
    with pytest.raises(Exception, match="wrapped for key pair 'k1', and no kvlog.remoteStorage.keyPairs"):
        rows(jvm, "kvlog_jvm", t0.root, **options(dest))


def test_a_truncated_log_object_is_an_error_naming_it(jvm, tiered, tmp_path):
    _, t0, _, _, _ = tiered
    dest = tmp_path / "cut"
    shutil.copytree(aiven_copy(tiered, "aiven-10", compression=True), dest)
    seg = t0.segments[1]
    logs = [p for p in dest.rglob("*.log") if seg.segment_id in p.name]
    assert len(logs) == 1
    size = logs[0].stat().st_size
    os.truncate(logs[0], size // 2)
    with pytest.raises(Exception, match="is cut short") as e:
        rows(jvm, "kvlog_jvm", t0.root, **options(dest))
    assert logs[0].name in str(e.value)
    cause = thrown(e.value, "io.kvlog.spark.tiered.RemoteSegmentException")  # the object and position as fields too
    assert cause.object().endswith(logs[0].name) and 0 <= cause.position() < size


def test_a_damaged_chunk_fails_its_tag_and_a_damaged_manifest_is_named(jvm, tiered, tmp_path):
    _, t0, _, _, priv = tiered
    dest = tmp_path / "damaged"
    shutil.copytree(aiven_copy(tiered, "aiven-01", encrypted=True), dest)
    seg = t0.segments[0]
    log = next(p for p in dest.rglob("*.log") if seg.segment_id in p.name)
    data = bytearray(log.read_bytes())
    data[100] ^= 0xFF
    log.write_bytes(bytes(data))
    with pytest.raises(Exception, match="chunk 0 at byte 0 fails its AES-GCM tag check") as e:
        rows(jvm, "kvlog_jvm", t0.root, **options(dest, priv))
    assert log.name in str(e.value)
    cause = thrown(e.value, "io.kvlog.spark.tiered.RemoteSegmentException")
    assert cause.object().endswith(log.name) and cause.position() == 0
    manifest = next(p for p in dest.rglob("*.rsm-manifest") if seg.segment_id in p.name)
    manifest.write_text('{"version": "1", "compression": false, "chunkIndex": {}}')
    with pytest.raises(Exception, match="is not the Aiven plugin's SegmentManifestV1: chunkIndex") as e:
        rows(jvm, "kvlog_jvm", t0.root, **options(dest, priv))
    assert manifest.name in str(e.value)


def test_another_key_prefix_finds_no_manifest(jvm, tiered):
    _, t0, _, _, _ = tiered
    dest = aiven_copy(tiered, "aiven-00")
    with pytest.raises(Exception, match="no manifest .*key.prefix here is 'kafka/'"):
        rows(jvm, "kvlog_jvm", t0.root, **options(dest, **{"kvlog.remoteStorage.keyPrefix": "kafka/"}))
    with pytest.raises(Exception, match="keyPairs is a list of <key id>=<private key PEM file>"):
        rows(jvm, "kvlog_jvm", t0.root, **options(dest, **{"kvlog.remoteStorage.keyPairs": "k1"}))


def test_the_custom_metadata_object_prefix_places_the_data_objects(jvm, tmp_path):
    from tiered_aiven_writer import custom_metadata

    root = tmp_path / "data"
    write_log(root, TOPIC, 0, segments=3)
    t = tier_log(root, TOPIC, 0, remote=2)
    for kind, _, fields in t.records:
        if kind == 1:  # the copy's COPY_SEGMENT_FINISHED update carries the plugin's custom metadata
            fields["customMetadata"] = custom_metadata(remote_size=123, object_prefix="data/")
    t.write_metadata()
    dest = pathlib.Path(to_aiven(t, tmp_path / "aiven", key_prefix="data/"))
    for manifest in list(dest.rglob("*.rsm-manifest")):  # the manifest's key is always the configured prefix's
        moved = dest / PREFIX / manifest.relative_to(dest / "data")
        moved.parent.mkdir(parents=True, exist_ok=True)
        manifest.rename(moved)
    got, splits = rows(jvm, "kvlog_jvm", t.root, **options(dest))
    assert len(got) == 300 and got == rows(jvm, "kvlog_jvm", t.whole, subscribe=TOPIC)[0] and splits == 3
    assert got == rows(jvm, "kvlog_python", t.root, **options(dest))[0]
