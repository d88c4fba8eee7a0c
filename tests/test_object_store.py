"""The object-store reader on its own: ranged reads through the block cache equal the bytes, whatever
the read pattern; URIs are parsed and configured as documented; any pyarrow or fsspec filesystem fits."""

from __future__ import annotations

import os
import time

import pyarrow.fs as pafs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvlog
from kvlog import _io, storage
from kvlog.errors import ConfigError, ObjectNotFoundError
from kvlog.object_store import ObjectStore
from kvlog.records import Record


@pytest.fixture
def subtree(tmp_path):
    """``kvtest://box/...`` read through pyarrow's LocalFileSystem under ``tmp_path``: an object store
    with no server, so read patterns can be checked by the thousand."""
    prefix = f"kvtest://box{os.getpid()}"
    fs = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    store = storage.register_filesystem(prefix, fs, block_size=64 << 10, point_block=4 << 10, prefetch=2,
                                        cache_blocks=4)
    # the store maps "kvtest://boxN/a/b" to "boxN/a/b" under tmp_path
    (tmp_path / f"box{os.getpid()}").mkdir()
    yield prefix, tmp_path / f"box{os.getpid()}", store
    storage.unregister_filesystem(prefix)


@settings(max_examples=40)
@given(data=st.binary(min_size=0, max_size=300_000),
       reads=st.lists(st.tuples(st.integers(0, 320_000), st.integers(0, 200_000)), min_size=1, max_size=30),
       sequential=st.booleans())
def test_ranged_reads_equal_the_bytes(tmp_path_factory, data, reads, sequential):
    root = tmp_path_factory.mktemp("ranged")
    (root / "bkt").mkdir()
    (root / "bkt" / "obj").write_bytes(data)
    store = ObjectStore(pafs.SubTreeFileSystem(str(root), pafs.LocalFileSystem()), strip=len("x://"),
                        block_size=64 << 10, point_block=4 << 10, prefetch=2, cache_blocks=4)
    store.listdir("x://bkt")
    f = store.open_ranged("x://bkt/obj")
    try:
        pos = 0
        for offset, size in reads:
            if sequential:
                offset = pos
            got = f.pread(size, offset)
            assert got == data[offset : offset + size]
            view = bytearray(size)
            n = f.readinto(memoryview(view), offset)
            assert bytes(view[:n]) == data[offset : offset + size]
            pos = offset + len(got)
    finally:
        f.close()
    assert store.stats.get_bytes <= max(1, len(reads)) * 3 * (200_000 + (64 << 10) * 3)


def test_a_scan_costs_one_get_per_block(tmp_path):
    data = os.urandom(1 << 20)
    (tmp_path / "bkt").mkdir()
    (tmp_path / "bkt" / "obj").write_bytes(data)
    store = ObjectStore(pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()), strip=len("x://"),
                        block_size=128 << 10, point_block=4 << 10, prefetch=2, cache_blocks=4)
    store.listdir("x://bkt")
    f = store.open_ranged("x://bkt/obj")
    out = b"".join(f.pread(10_000, pos) for pos in range(0, len(data), 10_000))
    f.close()
    assert out == data
    assert store.stats.gets == 8  # 1 MiB in 128 KiB blocks, each fetched once (prefetch included)
    assert store.stats.get_bytes == len(data)


def test_uri_forms():
    assert not storage.is_remote("/data/kafka") and not storage.is_remote("file:///data/kafka")
    assert storage.is_remote("s3://b/k") and storage.is_remote("gs://b/k") and storage.is_remote("hdfs://nn:8020/x")
    assert storage.normalize("file:///tmp/x/../y") == "/tmp/y"
    assert storage.canonical("s3://key:secret@bucket/a/b/?region=x") == "s3://bucket/a/b"
    assert storage.join("s3://k:s@bucket/a?region=x", "t-0") == "s3://k:s@bucket/a/t-0?region=x"
    assert storage.join("/data", "t-0") == "/data/t-0"
    with pytest.raises(ConfigError):
        storage.normalize("file://otherhost/data")
    with pytest.raises(ConfigError):
        storage.canonical("s3:///no-bucket")


def test_a_registered_filesystem_serves_a_log(subtree, tmp_path):
    prefix, box, store = subtree
    with kvlog.Log.open(str(box / "t-0"), kvlog.LogConfig(segment_bytes=4096)) as log:
        for i in range(50):
            log.append([Record(b"k", b"v%d" % i, 1000 + i)])
    with kvlog.Log.open(f"{prefix}/t-0", read_only=True) as remote, \
            kvlog.Log.open(str(box / "t-0"), read_only=True) as local:
        assert remote.to_arrow().equals(local.to_arrow())
        assert remote.offset_for_timestamp(1025) == local.offset_for_timestamp(1025)
    assert store.stats.gets > 0
    with pytest.raises(ObjectNotFoundError):
        _io.fs.read_file(f"{prefix}/t-0/nothing-here")


def test_an_fsspec_filesystem_through_pyarrow(tmp_path):
    import fsspec
    from pyarrow.fs import FSSpecHandler, PyFileSystem

    mem = fsspec.filesystem("memory")
    local = tmp_path / "m-0"
    with kvlog.Log.open(str(local)) as log:
        log.append([Record(b"k", b"v%d" % i, 1000 + i) for i in range(100)], compression="lz4")
    for name in os.listdir(local):
        mem.pipe_file(f"/mem-bucket/m-0/{name}", (local / name).read_bytes())
    prefix = "memory://mem-bucket"
    storage.register_filesystem(prefix, PyFileSystem(FSSpecHandler(mem)))
    try:
        with kvlog.Log.open(f"{prefix}/m-0", read_only=True) as remote, \
                kvlog.Log.open(str(local), read_only=True) as want:
            assert remote.to_arrow().equals(want.to_arrow())
    finally:
        storage.unregister_filesystem(prefix)


def test_cached_bytes_stay_within_the_stores_budget(tmp_path):
    """A scan over many objects keeps at most ``cache_bytes`` in all of them together."""
    (tmp_path / "bkt").mkdir()
    files = []
    for i in range(12):
        (tmp_path / "bkt" / f"o{i}").write_bytes(os.urandom(300 << 10))
    store = ObjectStore(pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()), strip=len("x://"),
                        block_size=64 << 10, point_block=4 << 10, prefetch=1, cache_blocks=3, cache_bytes=512 << 10)
    store.listdir("x://bkt")
    for i in range(12):
        f = store.open_ranged(f"x://bkt/o{i}")
        files.append(f)
        data = (tmp_path / "bkt" / f"o{i}").read_bytes()
        assert b"".join(f.pread(50_000, pos) for pos in range(0, len(data), 50_000)) == data
        assert store._kept_bytes <= 512 << 10
    held = sum(len(b) for f in files for b in f._blocks.values() if isinstance(b, bytes))
    assert held <= (512 << 10) + 12 * 2 * (64 << 10)  # the budget, and blocks still in flight at the end
    for f in files:
        f.close()
    assert store._kept_bytes == 0 and not store._kept


@pytest.mark.parametrize("seed,big", [(0, False), (1, False), (2, True), (3, True)])
def test_a_scan_reads_inside_the_stores_blocks(subtree, monkeypatch, seed, big):
    """A scan of an object-store log fetches pieces that each lie inside one block (a view of it) but for a
    short crossing at each block's end: the bytes copied to join blocks are a small part of the bytes read
    (a scan used to join 64 MiB pieces of 8 MiB blocks: every byte copied once more). The records equal the
    local log's, over the whole log and over ranges that start and end anywhere."""
    import numpy as np

    from kvlog.object_store import ObjectFile

    prefix, box, store = subtree
    rng = np.random.default_rng(seed)
    cfg = kvlog.LogConfig(segment_bytes=256 << 10, index_interval_bytes=int(rng.choice([256, 4096])))
    with kvlog.Log.open(str(box / "s-0"), cfg) as log:
        n = 0
        while log.log_end_offset < 3000:
            top = 90_000 if big and rng.random() < 0.1 else 400  # some batches larger than a 64 KiB block
            k = int(rng.integers(1, 12 if top < 1000 else 3))
            log.append([Record(b"k%d" % (n + i), rng.bytes(int(rng.integers(0, top))), 1000 + n + i)
                        for i in range(k)], compression=str(rng.choice(["none", "lz4"])))
            n += k
    copied, read = [0], [0]
    real = ObjectFile._read

    def counting(self, size, offset):
        got = real(self, size, offset)
        read[0] += len(got)
        bs = self.store.block_size
        if len(got) and offset // bs != (offset + len(got) - 1) // bs:
            copied[0] += len(got)
        return got

    monkeypatch.setattr(ObjectFile, "_read", counting)
    with kvlog.Log.open(f"{prefix}/s-0", read_only=True) as remote, \
            kvlog.Log.open(str(box / "s-0"), read_only=True) as local:
        assert len(remote.segments) > 2
        copied[0] = read[0] = 0  # (the open frames the last segment: not the scan's)
        assert remote.to_arrow().equals(local.to_arrow())
        if not big:  # pieces inside blocks; each crossing is an eighth of a block and a batch or two
            assert copied[0] < read[0] / 4, (copied[0], read[0])
        end = remote.log_end_offset
        for a, b in rng.integers(0, end + 1, (12, 2)).tolist():
            a, b = min(a, b), max(a, b)
            assert remote.to_arrow(a, b).equals(local.to_arrow(a, b)), (a, b)
        a = int(rng.integers(0, end))
        assert [r.offset for r in remote.records(a)] == list(range(a, end))


def test_a_scan_that_ends_at_a_segment_does_not_fetch_the_next(subtree):
    """A range ending where a segment ends (a Spark split, the remote part of a tiered log) reads that
    segment only: the read-ahead of the next segment is for scans that go on into it."""
    prefix, box, store = subtree
    with kvlog.Log.open(str(box / "n-0"), kvlog.LogConfig(segment_bytes=256 << 10)) as log:
        for i in range(500):
            log.append([Record(b"k%d" % i, os.urandom(300), 1000 + i) for _ in range(5)])
    with kvlog.Log.open(f"{prefix}/n-0", read_only=True) as remote:
        assert len(remote.segments) >= 3  # (the open reads the last one)
        first, second = remote.segments[0], remote.segments[1]
        before = store.stats.get_bytes
        assert remote.to_arrow(0, second.base_offset).num_rows == second.base_offset
        fetched = store.stats.get_bytes - before
        assert first.size_in_bytes <= fetched < first.size_in_bytes + second.size_in_bytes // 2, \
            (fetched, first.size_in_bytes, second.size_in_bytes)
        before = store.stats.get_bytes
        assert remote.to_arrow(0, second.base_offset + 1).num_rows == second.base_offset + 1
        # it goes on: the next is read ahead (in the background: a GET is counted when it completes, which on a
        # loaded machine can be after the scan returned)
        deadline = time.monotonic() + 30
        while store.stats.get_bytes - before < second.size_in_bytes // 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert store.stats.get_bytes - before >= second.size_in_bytes // 2
