"""Fuzz targets: one function per decoder entry point that parses bytes kvlog did not write.

Each target takes the fuzzer's bytes and returns ``"ok"`` (decoded) or ``"error"`` (a typed
``kvlog.KvlogError``). Anything else — another exception, a crash, a sanitizer report, an invariant
failure (``AssertionError``) — is a finding. The same functions run three ways:

- under atheris + libFuzzer against the ASan/UBSan build (``fuzz/run.py``, ``make fuzz``);
- over the committed reproducers in ``tests/fuzz_regressions/`` in the normal suite;
- over the seed corpus (``fuzz/seeds.py``) in the normal suite, where every seed must decode.

Inputs are copied into a buffer that ends at a ``PROT_NONE`` guard page, so a read one byte past the
input faults even when the allocator would hide it.
"""

from __future__ import annotations

import atexit
import ctypes
import mmap
import os
import shutil
import struct
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

import kvlog
from kvlog import MemoryRecords, _files, checkpoint, compression
from kvlog._core import index as _kidx
from kvlog._core import point as _kpoint
from kvlog._core import records as _krec
from kvlog.errors import KvlogError
from kvlog.index import OffsetIndex, TimeIndex
from kvlog.records import key_columns

LIMIT = 1 << 20  # decompression budget per batch inside the fuzzer: keeps an input's cost small
MAX_INPUT = 1 << 20


# ---------------------------------------------------------------------------------------------- guard
class _Guarded:
    """A reusable buffer whose last byte sits just before an inaccessible page."""

    def __init__(self, capacity: int = MAX_INPUT) -> None:
        page = mmap.PAGESIZE
        self._cap = (capacity + page - 1) // page * page
        self._mm = mmap.mmap(-1, self._cap + page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        addr = ctypes.addressof(ctypes.c_char.from_buffer(self._mm))
        if libc.mprotect(addr + self._cap, page, 0) != 0:
            raise OSError(ctypes.get_errno(), "mprotect of the guard page failed")
        self._view = memoryview(self._mm)[: self._cap]

    def place(self, data: bytes) -> memoryview:
        n = len(data)
        if n > self._cap:
            raise ValueError(f"input of {n} bytes exceeds the guarded capacity {self._cap}")
        start = self._cap - n
        self._view[start:] = data
        return self._view[start:]


_guard: _Guarded | None = None


def guarded(data: bytes) -> memoryview:
    global _guard
    if _guard is None:
        _guard = _Guarded()
    return _guard.place(data)


def _scratch() -> str:
    """A private directory for targets that need files (tmpfs when there is one)."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    global _scratch_dir
    if _scratch_dir is None:
        _scratch_dir = tempfile.mkdtemp(prefix="kvlog-fuzz-", dir=base)
        # removed when the process ends (it is on tmpfs, i.e. memory, and every test run made one)
        atexit.register(shutil.rmtree, _scratch_dir, True)
    return _scratch_dir


_scratch_dir: str | None = None


def _typed(fn: Callable[[], Any]) -> str:
    try:
        fn()
    except KvlogError as exc:
        assert isinstance(exc, ValueError | OSError), f"{type(exc).__name__} is neither ValueError nor OSError"
        if isinstance(exc, kvlog.CorruptRecordError) and exc.position is not None:
            assert exc.position >= 0, exc
        return "error"
    return "ok"


# ---------------------------------------------------------------------------------------------- batch framing
def framing(data: bytes) -> str:
    """Raw bytes as a buffer of batches: header scan, CRC checks, valid_bytes, batch properties."""
    view = guarded(data)
    mr = MemoryRecords(view, max_decompressed_bytes=LIMIT)
    valid = mr.valid_bytes
    assert 0 <= valid <= len(view)

    def walk() -> None:
        end = 0
        for b in mr.batches():
            assert b.position == end, (b.position, end)
            end = b.position + b.size_in_bytes
            assert end <= len(view)
            b.is_valid()
            _ = (b.magic, b.attributes, b.base_offset, b.last_offset, b.next_offset, b.record_count,
                 b.compression, b.timestamp_type, b.is_transactional, b.is_control, b.delete_horizon_ms,
                 b.base_timestamp, b.max_timestamp, b.producer_id, b.producer_epoch, b.base_sequence,
                 b.last_sequence, b.partition_leader_epoch, b.crc)
        mr.batch_headers(check_crc=False)
        mr.batch_headers(check_crc=True)
        mr.validate(deep=False)

    out = _typed(walk)
    # the scan kernel directly, from arbitrary start positions and with a tiny output array
    arr = np.empty(2, dtype=_krec.BATCH_DTYPE)
    n = len(view)
    for start in {0, n // 3, n // 2}:
        count, pos, _status, error = _krec.scan(view, start, n, arr, True, False)
        assert 0 <= count <= 2 and start <= pos <= n
        assert error is None or isinstance(error, KvlogError)
    for pos in range(min(n, 12)):
        for read in (_krec.read_varint, _krec.read_varlong):
            _typed(lambda read=read, pos=pos: read(view, pos))
    return out


# ---------------------------------------------------------------------------------------------- record decode
def _decode_all(view: memoryview | bytes) -> str:
    """Every record-level read path over a buffer; paths that succeed must agree with each other."""
    mr = MemoryRecords(view, max_decompressed_bytes=LIMIT)
    got: dict[str, Any] = {}

    def arrow() -> None:
        t = mr.to_arrow(check_crc=False, include_control=True)
        got["arrow"] = t
        mr.to_arrow(check_crc=True, include_headers=False)

    def records() -> None:
        got["records"] = [(r.offset, r.key, r.value, r.timestamp, r.headers) for r in
                          mr.records(check_crc=False, include_control=True)]

    def keys() -> None:
        got["keys"] = key_columns(view, max_decompressed_bytes=LIMIT)

    outcomes = [_typed(arrow), _typed(records), _typed(keys), _typed(lambda: mr.validate(deep=True))]
    if "arrow" in got and "records" in got:
        t = got["arrow"]
        assert t.column("offset").to_pylist() == [r[0] for r in got["records"]]
        assert t.column("key").to_pylist() == [r[1] for r in got["records"]]
        assert t.column("value").to_pylist() == [r[2] for r in got["records"]]
    if "arrow" in got and "keys" in got:
        # key_columns skips control records and value bytes; what it returns must match the full decode
        full = MemoryRecords(view, max_decompressed_bytes=LIMIT).to_arrow(check_crc=False)
        k, offs, _ = got["keys"]
        assert k.to_pylist() == full.column("key").to_pylist()
        assert offs.tolist() == full.column("offset").to_pylist()
    if "arrow" in got and outcomes[1] == "error":
        raise AssertionError("to_arrow decoded what records() refused")
    return "ok" if all(o == "ok" for o in outcomes) else "error"


def _v2_batch(header: bytes, payload: bytes) -> bytes:
    """A v2 batch from 61 header bytes (length, magic and CRC replaced) and a records section."""
    head = bytearray(header[:61].ljust(61, b"\0"))
    body = bytes(head) + payload
    buf = bytearray(body)
    buf[8:12] = struct.pack(">i", len(buf) - 12)
    buf[16] = 2
    buf[17:21] = struct.pack(">I", kvlog.crc32c(bytes(buf[21:])))
    return bytes(buf)


def v2_records(data: bytes) -> str:
    """61 header bytes then an uncompressed records section, compressed here with the header's codec.

    Length, magic and CRC are fixed up, so the fuzzer spends its time inside the record decoder,
    compressed or not (codec ids 5-7 must be refused).
    """
    header, raw = data[:61], data[61:]
    head = bytearray(header.ljust(61, b"\0"))
    codec = int.from_bytes(head[21:23], "big") & 7
    payload = compression.compress(codec, raw, 2) if 1 <= codec <= 4 else raw
    return _decode_all(guarded(_v2_batch(bytes(head), payload)))


def _legacy_message(magic: int, attributes: int, timestamp: int, key: bytes | None, value: bytes | None,
                    offset: int) -> bytes:
    body = bytes([magic, attributes]) + (struct.pack(">q", timestamp) if magic == 1 else b"")
    for part in (key, value):
        body += struct.pack(">i", -1) if part is None else struct.pack(">i", len(part)) + part
    msg = struct.pack(">I", kvlog.crc32(body)) + body
    return struct.pack(">qi", offset, len(msg)) + msg


def legacy(data: bytes) -> str:
    """v0/v1 wrappers: byte 0 picks magic, codec and timestamp type; bytes 1-16 the wrapper offset and
    timestamp; the rest is the inner message set (compressed here) or, for codec 0, a message set read
    as it is and again with every entry's CRC fixed."""
    if not data:
        return "error"
    sel = data[0]
    magic, codec, log_append = sel & 1, (sel >> 1) & 3, (sel >> 3) & 1
    offset, timestamp = struct.unpack(">qq", data[1:17].ljust(16, b"\0"))
    inner = data[17:]
    if codec == 0:
        return _decode_all(guarded(inner))
    payload = compression.compress(codec, inner, magic)
    attrs = codec | (log_append << 3 if magic == 1 else 0)
    return _decode_all(guarded(_legacy_message(magic, attrs, timestamp, None, payload, offset)))


# ---------------------------------------------------------------------------------------------- codecs
def _codec(codec: int) -> Callable[[bytes], str]:
    def target(data: bytes) -> str:
        magic = data[0] % 3 if data else 2
        view = guarded(data[1:])

        def run() -> None:
            out = compression.decompress(codec, view, magic, LIMIT)
            assert isinstance(out, bytes) and len(out) <= LIMIT
            try:  # a smaller budget gives the same bytes or the typed limit error, never a partial output
                assert compression.decompress(codec, view, magic, 64) == out
            except kvlog.DecompressionLimitError:
                assert len(out) > 64

        def as_batch() -> None:
            # the same stream as the payload of a one-record v2 batch, through the record decoder
            head = bytearray(61)
            head[21:23] = codec.to_bytes(2, "big")
            head[57:61] = (1).to_bytes(4, "big")
            MemoryRecords(guarded(_v2_batch(bytes(head), bytes(view))), max_decompressed_bytes=LIMIT).to_arrow()

        out = _typed(run)
        _typed(as_batch)
        return out

    target.__name__ = f"codec_{compression.Compression(codec).kafka_name}"
    target.__doc__ = f"compression.decompress for {compression.Compression(codec).kafka_name}; byte 0 picks the magic."
    return target


codec_gzip = _codec(1)
codec_snappy = _codec(2)
codec_lz4 = _codec(3)
codec_zstd = _codec(4)


# ---------------------------------------------------------------------------------------------- indexes
def _index_targets(data: bytes) -> tuple[int, list[int]]:
    base = int.from_bytes(data[:4], "big")  # a base offset well inside int64
    probes = [int.from_bytes(data[i:i + 8], "big", signed=True) for i in range(4, min(len(data), 36), 8)]
    return base, probes + [base, base - 1, base + 2**31, -1, 0, 2**63 - 1, -(2**63)]


def _exercise_index(cls: type, path: str, base: int, probes: list[int], writable: bool) -> None:
    with cls(path, base, 1 << 16, writable=writable) as idx:
        assert 0 <= idx.valid_entries <= idx.max_entries
        checked = _typed(idx.sanity_check)
        for p in probes:
            idx.lookup(p)
            idx.lookup_slot(p)
        idx.lookup_many(np.array(probes, dtype=np.int64))
        idx.to_numpy()
        if idx.valid_entries:
            idx.entry(idx.valid_entries - 1)
        if cls is OffsetIndex:
            idx.fetch_upper_bound_offset(idx.lookup(probes[0]), 4096)
        if writable:
            idx.truncate_to(probes[0])
            if idx.is_full():
                pass
            elif cls is OffsetIndex:
                idx.append(idx.last_offset + 1, idx.last_entry.position + 1)
            else:
                idx.maybe_append(max(idx.last_entry.timestamp, 0) + 1, idx.last_offset + 1)
            idx.sanity_check(strict=True)
        else:
            idx.refresh()
        if checked == "error":
            idx.sanity_check()  # still failing: reported as the outcome


def _index(cls: type, suffix: str) -> Callable[[bytes], str]:
    entry = cls.ENTRY_SIZE

    def target(data: bytes) -> str:
        base, probes = _index_targets(data)
        body = data[36:] if len(data) > 36 else b""
        view = guarded(body)
        n = len(view) // entry
        k = _kidx
        pre = "offset_" if cls is OffsetIndex else "time_"
        valid = getattr(k, pre + "valid_entries")(view, n)
        assert 0 <= valid <= n
        for p in probes:
            rel = max(min(p - base, 2**31 - 1), -(2**31)) if cls is OffsetIndex else p
            getattr(k, pre + "lookup")(view, valid, rel)
            getattr(k, pre + "ceil")(view, valid, rel)
            getattr(k, pre + "lookup_entry")(view, valid, rel)
        arr = np.array(probes, dtype=np.int64)
        if cls is OffsetIndex:
            rel = np.clip(arr - base, -(2**31), 2**31 - 1)
            slots = k.offset_lookup_many(view, valid, rel)
            k.offset_resolve(view, valid, slots, base)
            k.offset_entries(view, valid, base)
            k.offset_position_floor(view, valid, probes[0] & 0x7FFFFFFF)
            k.offset_position_ceil(view, valid, probes[0] & 0x7FFFFFFF)
            k.offset_count_below(view, valid, int(rel[0]))
        else:
            slots = k.time_lookup_many(view, valid, arr)
            k.time_resolve(view, valid, slots, base)
            k.time_entries(view, valid, base)
            k.time_slot_for_offset(view, valid, int(np.clip(arr[0] - base, -(2**31), 2**31 - 1)))
            k.time_count_below_offset(view, valid, int(np.clip(arr[0] - base, -(2**31), 2**31 - 1)))
        if valid:
            getattr(k, pre + "entry")(view, valid, valid - 1)
        # the index classes over a file holding these bytes, read-only (private copy) and writable (mmap)
        path = os.path.join(_scratch(), f"{base:020d}{suffix}")
        with open(path, "wb") as f:
            f.write(body)
        outs = [_typed(lambda: _exercise_index(cls, path, base, probes, False)),
                _typed(lambda: _exercise_index(cls, path, base, probes, True))]
        os.unlink(path)
        return "ok" if outs == ["ok", "ok"] else "error"

    target.__name__ = "offset_index" if cls is OffsetIndex else "time_index"
    target.__doc__ = (f"Bytes 0-3: base offset, 4-35: probe values, rest: a {suffix} file; kernel lookups and "
                      f"the {cls.__name__} class over it.")
    return target


offset_index = _index(OffsetIndex, _files.INDEX)
time_index = _index(TimeIndex, _files.TIME_INDEX)


# ---------------------------------------------------------------------------------------------- text files
def checkpoint_file(data: bytes) -> str:
    """A checkpoint file's bytes through ``checkpoint.read_offsets``; what parses must round-trip."""
    path = os.path.join(_scratch(), checkpoint.RECOVERY_POINT)
    with open(path, "wb") as f:
        f.write(data)
    got: dict[str, Any] = {}

    def read() -> None:
        got["offsets"] = checkpoint.read_offsets(path)

    out = _typed(read)
    if out == "ok":
        offsets = got["offsets"]
        for (topic, partition), offset in offsets.items():
            assert isinstance(topic, str) and isinstance(partition, int) and isinstance(offset, int)
        if all(" " not in t and "\n" not in t for t, _ in offsets):
            os.unlink(path)
            checkpoint.write_offsets(path, offsets)
            assert checkpoint.read_offsets(path) == offsets
    os.unlink(path)
    return out


def file_names(data: bytes) -> str:
    """Segment and partition-directory names: is_offset_name / offset_from_name / parse_partition_dir."""
    name = data.decode("utf-8", "surrogateescape").replace("\0", "").replace("/", "")
    for candidate in (name, name + _files.LOG, name.split(".", 1)[0] + _files.TIME_INDEX):
        if _files.is_offset_name(candidate):
            off = _files.offset_from_name(candidate)
            assert 0 <= off < 10**20
            assert _files.prefix(off) == candidate.split(".", 1)[0], candidate
    parsed = _files.parse_partition_dir(name)
    if parsed is not None:
        topic, partition = parsed
        assert isinstance(partition, int) and partition >= 0
        assert name.startswith(topic + "-")
    return "ok"


def producer_snapshot(data: bytes) -> str:
    """A producer-state ``.snapshot`` file: the parser, then what parses must re-encode to the same state."""
    from kvlog.producer_state import encode_snapshot, read_snapshot

    got: dict[str, Any] = {}

    def read() -> None:
        got["entries"] = read_snapshot(bytes(guarded(data)), "fuzz.snapshot")

    out = _typed(read)
    if out == "ok":
        entries = got["entries"]
        again = read_snapshot(encode_snapshot(entries))
        assert [(e.producer_id, e.producer_epoch, e.coordinator_epoch) for e in again] == [
            (e.producer_id, e.producer_epoch, e.coordinator_epoch) for e in entries]
    return out


def txn_index(data: bytes) -> str:
    """A ``.txnindex`` file's bytes: load, list, collect ranges, and ``kvlog dump`` it."""
    from kvlog.cli import main as cli_main
    from kvlog.txn_index import TransactionIndex

    path = os.path.join(_scratch(), _files.prefix(0) + ".txnindex")
    with open(path, "wb") as f:
        f.write(data)

    def run() -> None:
        idx = TransactionIndex(path, 0, writable=False)
        txns = idx.all_aborted_txns()
        hit, _ = idx.collect(0, 2**62)
        assert len(hit) <= len(txns)
        idx.last_offset  # noqa: B018 - the property parses the file
        with open(os.devnull, "w") as sink:
            import contextlib

            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                cli_main(["dump", path])

    out = _typed(run)
    os.unlink(path)
    return out


def topics_file(data: bytes) -> str:
    """A data directory's ``kvlog-topics.json``: the manager must read it or refuse it with a typed error."""
    from kvlog.manager import TOPICS_FILE, LogManager

    root = os.path.join(_scratch(), "topics-root")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, TOPICS_FILE), "wb") as f:
        f.write(data)

    def run() -> None:
        with LogManager(root, read_only=True) as mgr:
            for topic, count in mgr.topics().items():
                assert isinstance(topic, str) and isinstance(count, int) and count >= 0
                mgr.topic_config(topic)

    return _typed(run)


# ---------------------------------------------------------------------------------------------- segments
def segment_recovery(data: bytes) -> str:
    """The bytes as the only ``.log`` of a partition: recovery on open, then reads and ``verify``."""
    from kvlog.verify import verify_partition
    from kvlog.log import Log

    d = os.path.join(_scratch(), "fuzz-0")
    if os.path.isdir(d):
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
    else:
        os.makedirs(d)
    with open(os.path.join(d, _files.prefix(0) + _files.LOG), "wb") as f:
        f.write(data)

    def run() -> None:
        with Log.open(d) as log:
            end = log.log_end_offset
            log.read(0, 1 << 16)
            t = log.to_arrow(0, end)
            assert t.num_rows <= end + 1
            log.offset_for_timestamp(0)
        report = verify_partition(d)
        assert not report.errors, report.errors

    return _typed(run)


# ---------------------------------------------------------------------------------------------- point operations
def point_ops(data: bytes) -> str:
    """The point-operation kernels over arbitrary bytes: the fetch search and cut, the time search and
    the append preparation. Where the bulk header scan parses the same bytes, the answers agree with it."""
    view = guarded(data)
    n = len(view)
    arr = np.empty(64, dtype=_krec.BATCH_DTYPE)
    count, _pos, _status, _error = _krec.scan(view, 0, n, arr, False, False)
    heads = arr[:count]
    ends = {int(h["position"] + h["size"]) for h in heads}
    targets = {0, 1, 2**31, 2**62} | {int(v) for h in heads[:4] for v in (h["base_offset"], h["last_offset"])}

    def run() -> None:
        for t in sorted(targets):
            r = _kpoint.find_batch(view, t, n // 2 + 1, t + 3, n)
            assert r[0] in (_kpoint.FOUND, _kpoint.NEED), r
            hits = [h for h in heads if h["last_offset"] >= t]
            if hits:
                assert r[0] == _kpoint.FOUND and r[1] == int(hits[0]["position"]), (t, r)
                assert r[7] == r[1] or r[7] in ends, (t, r)
            if r[0] == _kpoint.FOUND:
                assert 0 <= r[1] < n and r[1] <= r[7] <= n
            cut, last = _kpoint.whole_batches(view, n, t)
            assert cut == 0 or cut in ends, (cut, sorted(ends))
            s = _kpoint.find_timestamp(view, t, t // 2)
            assert s[0] in (_kpoint.FOUND, _kpoint.NEED, _kpoint.DECODE), s
            if s[0] == _kpoint.FOUND:
                assert s[2] >= t // 2 and s[3] >= t, (t, s)
            if s[0] == _kpoint.DECODE:
                assert 0 <= s[1] and s[1] + s[4] <= n, s
        buf = bytearray(view)
        got = _kpoint.prepare_append(buf, np.empty(4, dtype=_krec.BATCH_DTYPE).view(np.uint8), 1000, -1, 1 << 20, -1, True, True)
        assert got[0] in (_kpoint.FOUND, _kpoint.SLOW, _kpoint.GROW), got
        if got[0] == _kpoint.FOUND:
            h = MemoryRecords(buf).batch_headers(check_crc=True)
            assert int(h["base_offset"][0]) == 1000 and int(h["last_offset"][-1]) + 1 == got[3], (h, got)
        else:
            assert buf == view, "a refused append changed its buffer"

    return _typed(run)


# ---------------------------------------------------------------------------------------------- internal topics
_COORDINATOR_TOPICS = ("__consumer_offsets", "__transaction_state", "__share_group_state")


def split_coordinator_input(data: bytes) -> tuple[str, bytes | None, bytes | None]:
    """Byte 0 picks the topic and whether the value is a tombstone, bytes 1-2 the key's length."""
    sel = data[0] if data else 0
    n = int.from_bytes(data[1:3], "big") if len(data) >= 3 else 0
    key = data[3 : 3 + n] if sel & 0x80 == 0 else None
    value = data[3 + n :] if sel & 0x40 == 0 else None
    return _COORDINATOR_TOPICS[sel % 3], key, value


def coordinator_record(data: bytes) -> str:
    """A ``__consumer_offsets`` / ``__transaction_state`` / ``__share_group_state`` record: the schema
    decoder, then what decodes must print as ``kvlog dump`` prints it and re-encode to a record that
    decodes the same."""
    from kvlog.internal_topics.decoders import InternalTopic, decode_coordinator_record, encode_coordinator_record
    from kvlog.internal_topics.dump_format import coordinator_texts

    topic, key, value = split_coordinator_input(data)
    kind = InternalTopic(topic)

    def run() -> None:
        r = decode_coordinator_record(kind, key, value, partition=f"{topic}-0", offset=7)
        coordinator_texts(kind, kvlog.Record(key, value, 0, offset=7))
        if r.known and r.key is not None:
            k2, v2 = encode_coordinator_record(kind, r.record_type, r.key, r.version, r.value)
            again = decode_coordinator_record(kind, k2, v2)
            assert (again.key, again.version, again.value) == (r.key, r.version, r.value), "re-encode differs"

    return _typed(run)


def metadata_record(data: bytes) -> str:
    """A KRaft ``__cluster_metadata`` record value: decoded, printed, and re-encoded to the same bytes'
    meaning."""
    from kvlog.internal_topics.decoders import decode_metadata_record, encode_metadata_record
    from kvlog.internal_topics.dump_format import metadata_text

    def run() -> None:
        m = decode_metadata_record(data, partition="__cluster_metadata-0", offset=3)
        metadata_text(kvlog.Record(None, data, 0, offset=3))
        again = decode_metadata_record(encode_metadata_record(m.api_key, m.version, m.data))
        assert (again.api_key, again.version, again.data) == (m.api_key, m.version, m.data), "re-encode differs"

    return _typed(run)


TARGETS: dict[str, Callable[[bytes], str]] = {
    "framing": framing,
    "v2_records": v2_records,
    "legacy": legacy,
    "codec_gzip": codec_gzip,
    "codec_snappy": codec_snappy,
    "codec_lz4": codec_lz4,
    "codec_zstd": codec_zstd,
    "offset_index": offset_index,
    "time_index": time_index,
    "checkpoint": checkpoint_file,
    "file_names": file_names,
    "segment_recovery": segment_recovery,
    "producer_snapshot": producer_snapshot,
    "txn_index": txn_index,
    "topics_file": topics_file,
    "point_ops": point_ops,
    "coordinator_record": coordinator_record,
    "metadata_record": metadata_record,
}
