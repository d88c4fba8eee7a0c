"""Adapters over independent peer implementations of Kafka's record formats,
for differential tests against kvlog and ``tests/reference``.

Peers (hard test dependencies, pinned in the probe environment):

* ``aiokafka-c``   aiokafka 0.14.0 Cython classes (``aiokafka.record._crecords``)
* ``aiokafka-py``  aiokafka 0.14.0 pure-Python classes (``_DefaultRecordBatchPy``,
                   ``_DefaultRecordBatchBuilderPy``, ``_LegacyRecordBatchPy``,
                   ``_LegacyRecordBatchBuilderPy``, ``_MemoryRecordsPy``)
* ``kafka-python`` kafka-python 3.0.12 (``kafka.record.*``)

API: ``PEERS``, ``peer_supports`` (can the peer *write* it), ``peer_can_decode``,
``peer_encode``, ``peer_decode`` (canonical dicts as produced by
``tests.reference.records.decode``) and ``assert_same_batches``.

Peer bugs / quirks found (verified against the installed versions)
------------------------------------------------------------------
1. aiokafka 0.14.0 C ``MemoryRecords`` reads the magic byte at ``buf[16]`` of
   the *whole buffer* instead of the current batch (``magic = buf[MAGIC_OFFSET]``
   in memory_records.pyx).  A buffer whose first entry is v2 followed by legacy
   entries fails (legacy entries parsed as v2: "Unknown compression codec
   0x07"); legacy first then v2 raises, depending on the bytes, ``SystemError:
   Negative size passed to PyBytes_FromStringAndSize`` or a
   CorruptRecordException ("Can't read N bytes").  The pure-Python ``_MemoryRecordsPy`` is fine.
   ``peer_decode(..., split=True)`` works around it by feeding the peer one
   entry at a time.  aiokafka's C ``MemoryRecords`` also only accepts ``bytes``.
2. ``_MemoryRecordsPy.next_batch`` instantiates the module-level
   ``DefaultRecordBatch``/``LegacyRecordBatch`` names, which are the Cython
   classes whenever the extension is importable; the ``aiokafka-py`` adapter
   temporarily rebinds them to the pure-Python classes.
3. All three legacy builders write a compressed wrapper with offset 0 (the
   producer convention; the broker assigns offsets) and, for v1, wrapper
   timestamp 0 instead of the max inner timestamp (the broker's validator
   rebuilds it).  ``peer_encode`` patches the wrapper offset (outside the CRC)
   but leaves the timestamp, so a peer-built v1 compressed set decodes with
   ``max_timestamp == 0``; inner (CreateTime) timestamps are correct.
4. The v2 builders of both libraries silently write the batch *uncompressed*
   (codec bits 0) when compression does not make the payload smaller; Kafka's
   MemoryRecordsBuilder never does that.  Use compressible payloads.
5. kafka-python's v2 builder writes partitionLeaderEpoch 0, aiokafka's -1
   (Kafka's producer writes -1; it is outside the CRC, so both are valid).
6. No client builder can write LogAppendTime (bit 3 is "set by broker"), control
   batches, a delete horizon, or a non-zero base offset; ``peer_encode`` patches
   the base offset only (outside the CRC) and refuses the rest.
7. kafka-python writes and reads snappy only with python-snappy installed (the
   test extra installs it, for the broker tests' producers) and cannot write or read LZ4 for magic 0
   (needs the ``xxhash`` module, not installed).  aiokafka refuses LZ4 for magic
   0 in both directions (KAFKA-3160 guard).
8. Both readers resolve v1 relative inner offsets as ``wrapper - lastInner``
   only when that is >= 0 and otherwise use the inner offsets unchanged; Kafka
   uses them unchanged only for wrapper offset 0 and raises
   InvalidRecordException when ``0 < wrapper < lastInner``.
9. aiokafka's ``ControlRecord.parse`` unpacks the key as *unsigned* ``>HH``
   (Kafka reads signed int16 and rejects negative versions); kafka-python's
   ``ControlRecord`` needs a key of exactly 4 bytes (``struct.unpack``), so a
   longer key (a future key version) raises.  Neither exposes the end-txn
   marker's coordinator epoch.
10. Legacy LZ4 frames: aiokafka writes via cramjam (FLG 0x70: block checksums
   on), kafka-python via lz4.frame (FLG 0x68: 8-byte content size present);
   both are accepted by Kafka's reader.  Both write gzip at level 9.
11. Corrupt-input handling differs from Kafka (all three peers unless noted):
   * v2 batch with recordsCount 0 followed by stray bytes, or with codec bits
     5..7: peers raise; Kafka's iterator returns nothing (reference default).
   * compressed legacy set with no inner messages: aiokafka-c yields nothing,
     aiokafka-py / kafka-python raise IndexError; Kafka raises
     InvalidRecordException (reference: ValueError).
   * nested compression is caught by an ``assert`` (gone under ``python -O``).
   * inner message size < 14 is not checked (misparsed / odd errors).
   * a partial trailing inner entry in a decompressed legacy set makes the
     peers raise; Kafka's DataLogInputStream silently ignores it (reference too).
   * a v1 wrapper whose offset is below the last inner offset: see 8.
   * negative key/value lengths other than -1 are read as null, like Kafka.
12. Both libraries' snappy readers treat a xerial stream only as such when it is
   *longer* than 16 bytes, so a header-only stream (what they and the reference
   write for empty input) is misread as raw snappy and fails.

Canonical-form gaps (fields a peer cannot expose are ``None`` and skipped by
``assert_same_batches``):

* aiokafka-c, v2: ``batch_length``, ``partition_leader_epoch``, ``record_count``.
* aiokafka-c, legacy: everything but ``base_offset`` (first record),
  ``last_offset`` (``next_offset - 1``), ``crc_valid``, ``timestamp_type`` (from
  the records), ``is_transactional``/``is_control`` (False) and the records.
* aiokafka-py / kafka-python fill most legacy fields from the batch objects'
  private attributes (``_crc``, ``_attributes``, ``_timestamp``, ...).
* Legacy ``producer_id``/``producer_epoch``/``base_sequence`` are reported as -1
  where the peer exposes nothing or None (Kafka semantics).
* ``control`` dicts contain only the keys a peer exposes; ``assert_same_batches``
  compares the keys present on both sides.
"""

import contextlib
import struct
import warnings

import aiokafka.codec as _aio_codec
import aiokafka.record.memory_records as _aio_mr
from aiokafka.record import _crecords as _aio_c
from aiokafka.record.control_record import ControlRecord as _AioControlRecord
from aiokafka.record.default_records import (
    _DefaultRecordBatchBuilderPy,
    _DefaultRecordBatchPy,
)
from aiokafka.record.legacy_records import (
    _LegacyRecordBatchBuilderPy,
    _LegacyRecordBatchPy,
)
from aiokafka.record.memory_records import _MemoryRecordsPy

with warnings.catch_warnings():
    # kafka/__init__ imports its protocol package, which uses the deprecated
    # importlib.resources.read_text (the project runs pytest with -W error).
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka.codec as _kp_codec
    from kafka.record.default_records import DefaultRecordBatchBuilder as _KpDefaultBuilder
    from kafka.record.legacy_records import LegacyRecordBatchBuilder as _KpLegacyBuilder
    from kafka.record.memory_records import MemoryRecords as _KpMemoryRecords

try:
    from reference import records as _ref          # tests/ on sys.path (pytest rootdir-less)
except ImportError:                                 # imported as tests.oracles
    from .reference import records as _ref

PEERS = ["aiokafka-c", "aiokafka-py", "kafka-python"]

_BATCH_SIZE = 1 << 30
_V2_DEFAULT_BUILDERS = {
    "aiokafka-c": _aio_c.DefaultRecordBatchBuilder,
    "aiokafka-py": _DefaultRecordBatchBuilderPy,
    "kafka-python": _KpDefaultBuilder,
}
_LEGACY_BUILDERS = {
    "aiokafka-c": _aio_c.LegacyRecordBatchBuilder,
    "aiokafka-py": _LegacyRecordBatchBuilderPy,
    "kafka-python": _KpLegacyBuilder,
}

BATCH_FIELDS = (
    "magic", "base_offset", "last_offset", "batch_length", "partition_leader_epoch", "crc",
    "crc_valid", "attributes", "compression", "timestamp_type", "is_transactional",
    "is_control", "has_delete_horizon", "base_timestamp", "max_timestamp", "producer_id",
    "producer_epoch", "base_sequence", "record_count",
)


def _check_peer(peer):
    if peer not in PEERS:
        raise ValueError("unknown peer %r (known: %s)" % (peer, ", ".join(PEERS)))


def _codec_available(peer, compression):
    if peer.startswith("aiokafka"):
        mod = _aio_codec
    else:
        mod = _kp_codec
    return {0: lambda: True, 1: mod.has_gzip, 2: mod.has_snappy, 3: mod.has_lz4,
            4: mod.has_zstd}[compression]()


def _legacy_lz4_ok(peer):
    # aiokafka refuses LZ4 for magic 0 outright; kafka-python needs ``xxhash``
    return peer == "kafka-python" and getattr(_kp_codec, "xxhash", None) is not None


def peer_supports(peer, magic, compression, headers=False):
    """Can ``peer`` *write* a batch of this magic/codec (with headers)?"""
    _check_peer(peer)
    if magic not in (0, 1, 2) or compression not in (0, 1, 2, 3, 4):
        return False
    if magic < 2 and (headers or compression == 4):
        return False
    if magic == 0 and compression == 3 and not _legacy_lz4_ok(peer):
        return False
    return _codec_available(peer, compression)


def peer_can_decode(peer, magic, compression):
    """Can ``peer`` *read* a batch of this magic/codec?"""
    _check_peer(peer)
    if magic < 2 and compression == 4:
        return False
    if magic == 0 and compression == 3 and not _legacy_lz4_ok(peer):
        return False
    return _codec_available(peer, compression)


# ==========================================================================
# encoding
# ==========================================================================
def peer_encode(peer, magic, records, *, compression=0, base_offset=0, timestamp_type=0,
                producer_id=-1, producer_epoch=-1, base_sequence=-1, is_transactional=False):
    """Build one batch (v2) or message set (v0/v1) with ``peer``'s builder.

    ``records``: dicts with "timestamp" (absolute; v0 ignores it), "key",
    "value", "headers" (v2 only) and optional "offset_delta" (default: index).
    The base offset (and a legacy wrapper's offset) is patched in afterwards:
    those fields are outside the CRC and the builders always write 0.
    """
    _check_peer(peer)
    recs = list(records)
    has_headers = any(r.get("headers") for r in recs)
    if not peer_supports(peer, magic, compression, has_headers):
        raise ValueError("%s cannot write magic %d codec %d%s"
                         % (peer, magic, compression, " with headers" if has_headers else ""))
    if timestamp_type != 0:
        raise ValueError("client builders cannot write LogAppendTime (set by the broker)")
    if not recs:
        raise ValueError("client builders cannot write empty batches")
    deltas = [r.get("offset_delta", i) for i, r in enumerate(recs)]

    if magic == 2:
        builder = _V2_DEFAULT_BUILDERS[peer](
            2, compression, int(bool(is_transactional)), producer_id, producer_epoch,
            base_sequence, _BATCH_SIZE)
        for d, r in zip(deltas, recs):
            meta = builder.append(d, r.get("timestamp", -1), r.get("key"), r.get("value"),
                                  list(r.get("headers", ())))
            if meta is None:
                raise RuntimeError("builder refused a record")
        buf = bytearray(builder.build())
        struct.pack_into(">q", buf, 0, base_offset)
        return bytes(buf)

    if producer_id != -1 or producer_epoch != -1 or base_sequence != -1 or is_transactional:
        raise ValueError("magic %d has no producer state" % magic)
    builder = _LEGACY_BUILDERS[peer](magic, compression, _BATCH_SIZE)
    for d, r in zip(deltas, recs):
        if compression and magic == 1:
            off = d - deltas[0]          # v1 inner offsets are relative
        else:
            off = base_offset + d        # uncompressed or v0: absolute
        ts = r.get("timestamp", -1) if magic == 1 else None
        meta = builder.append(off, ts, r.get("key"), r.get("value"))
        if meta is None:
            raise RuntimeError("builder refused a record")
    buf = bytearray(builder.build())
    if compression:
        struct.pack_into(">q", buf, 0, base_offset + deltas[-1])
    return bytes(buf)


# ==========================================================================
# decoding
# ==========================================================================
def _ts(value):
    return -1 if value is None else value


def _tt(value):
    return -1 if value is None else int(value)


@contextlib.contextmanager
def _aiokafka_pure_python():
    saved = (_aio_mr.DefaultRecordBatch, _aio_mr.LegacyRecordBatch)
    _aio_mr.DefaultRecordBatch = _DefaultRecordBatchPy
    _aio_mr.LegacyRecordBatch = _LegacyRecordBatchPy
    try:
        yield
    finally:
        _aio_mr.DefaultRecordBatch, _aio_mr.LegacyRecordBatch = saved


def _aio_control(key):
    c = _AioControlRecord.parse(key)
    return {"type": c.type_, "version": c.version}


def _aio_v2(batch, pure):
    crc_valid = batch.validate_crc()
    attributes = batch.attributes
    out = {
        "magic": batch.magic, "base_offset": batch.base_offset,
        "last_offset": batch.base_offset + batch.last_offset_delta,
        "batch_length": None, "partition_leader_epoch": None, "crc": batch.crc,
        "crc_valid": crc_valid, "attributes": attributes,
        "compression": batch.compression_type, "timestamp_type": batch.timestamp_type,
        "is_transactional": batch.is_transactional, "is_control": batch.is_control_batch,
        "has_delete_horizon": bool(attributes & 0x40),
        "base_timestamp": batch.first_timestamp, "max_timestamp": batch.max_timestamp,
        "producer_id": batch.producer_id, "producer_epoch": batch.producer_epoch,
        "base_sequence": batch.base_sequence, "record_count": None,
    }
    if pure:   # private, but the peer's own parse of the header
        hd = batch._header_data
        out["batch_length"], out["partition_leader_epoch"], out["record_count"] = hd[1], hd[2], hd[12]
    records = []
    for r in batch:
        rec = {"offset": r.offset, "timestamp": r.timestamp, "key": r.key, "value": r.value,
               "headers": [(k, v) for k, v in r.headers]}
        if out["is_control"]:
            rec["control"] = _aio_control(r.key)
        records.append(rec)
    out["records"] = records
    return out


def _aio_legacy(batch, pure):
    crc_valid = batch.validate_crc()
    out = {
        "magic": None, "base_offset": None, "last_offset": batch.next_offset - 1,
        "batch_length": None, "partition_leader_epoch": None, "crc": None,
        "crc_valid": crc_valid, "attributes": None, "compression": None,
        "timestamp_type": None, "is_transactional": bool(batch.is_transactional),
        "is_control": bool(batch.is_control_batch), "has_delete_horizon": None,
        "base_timestamp": None, "max_timestamp": None,
        "producer_id": -1 if batch.producer_id is None else batch.producer_id,
        "producer_epoch": -1, "base_sequence": -1, "record_count": None,
    }
    if pure:   # private attributes of _LegacyRecordBatchPy
        out["magic"] = batch._magic
        out["batch_length"] = len(batch._buffer) - 12
        out["crc"] = batch._crc
        out["attributes"] = batch._attributes
        out["compression"] = batch._attributes & 0x07
        out["base_timestamp"] = out["max_timestamp"] = _ts(batch._timestamp)
    records, types = [], []
    for r in batch:
        records.append({"offset": r.offset, "timestamp": _ts(r.timestamp), "key": r.key,
                        "value": r.value, "headers": list(r.headers)})
        types.append(r.timestamp_type)
    if pure:
        out["record_count"] = len(records)
    out["base_offset"] = records[0]["offset"] if records else None
    out["timestamp_type"] = _tt(types[0]) if records else None
    out["records"] = records
    return out


def _kp_control(r):
    return {"type": r.type, "version": r.version}


def _kp_batch(batch):
    crc_valid = batch.validate_crc()
    if batch.magic >= 2:
        out = {
            "magic": batch.magic, "base_offset": batch.base_offset,
            "last_offset": batch.last_offset, "batch_length": batch.size_in_bytes - 12,
            "partition_leader_epoch": batch.leader_epoch, "crc": batch.crc,
            "crc_valid": crc_valid, "attributes": batch.attributes,
            "compression": batch.compression_type, "timestamp_type": batch.timestamp_type,
            "is_transactional": batch.is_transactional, "is_control": batch.is_control_batch,
            "has_delete_horizon": bool(batch.attributes & 0x40),
            "base_timestamp": batch.first_timestamp, "max_timestamp": batch.max_timestamp,
            "producer_id": batch.producer_id, "producer_epoch": batch.producer_epoch,
            "base_sequence": batch.base_sequence, "record_count": batch.records_count,
        }
        records = []
        for r in batch:
            rec = {"offset": r.offset, "timestamp": r.timestamp, "key": r.key, "value": r.value,
                   "headers": [(k, v) for k, v in r.headers]}
            if out["is_control"]:
                rec["control"] = _kp_control(r)
            records.append(rec)
        out["records"] = records
        return out
    out = {
        "magic": batch.magic, "base_offset": None, "last_offset": batch.base_offset,
        "batch_length": batch.size_in_bytes - 12, "partition_leader_epoch": -1,
        "crc": batch._crc, "crc_valid": crc_valid, "attributes": batch._attributes,
        "compression": batch.compression_type, "timestamp_type": _tt(batch.timestamp_type),
        "is_transactional": False, "is_control": False, "has_delete_horizon": False,
        "base_timestamp": _ts(batch._timestamp), "max_timestamp": _ts(batch._timestamp),
        "producer_id": -1, "producer_epoch": -1, "base_sequence": -1,
    }
    records = [{"offset": r.offset, "timestamp": _ts(r.timestamp), "key": r.key,
                "value": r.value, "headers": list(r.headers)} for r in batch]
    out["base_offset"] = records[0]["offset"] if records else None
    out["record_count"] = len(records)
    out["records"] = records
    return out


def _decode_whole(peer, buf):
    out = []
    if peer == "kafka-python":
        for batch in _KpMemoryRecords(bytes(buf)):
            out.append(_kp_batch(batch))
        return out
    pure = peer == "aiokafka-py"
    if pure:
        with _aiokafka_pure_python():
            mr = _MemoryRecordsPy(bytes(buf))
            while mr.has_next():
                batch = mr.next_batch()
                out.append(_aio_v2(batch, True) if isinstance(batch, _DefaultRecordBatchPy)
                           else _aio_legacy(batch, True))
        return out
    mr = _aio_c.MemoryRecords(bytes(buf))
    while mr.has_next():
        batch = mr.next_batch()
        out.append(_aio_v2(batch, False) if isinstance(batch, _aio_c.DefaultRecordBatch)
                   else _aio_legacy(batch, False))
    return out


def peer_decode(peer, buf, *, split=False):
    """Decode ``buf`` with ``peer``'s MemoryRecords into canonical dicts.

    ``split=True`` walks the entries with the reference framing and hands the
    peer one entry at a time (works around quirk 1).  Peer exceptions propagate
    unchanged.
    """
    _check_peer(peer)
    if not split:
        return _decode_whole(peer, buf)
    out = []
    for _pos, entry in _ref.iter_entries(buf):
        out.extend(_decode_whole(peer, entry))
    return out


# ==========================================================================
# comparison
# ==========================================================================
def _diff_records(i, ra, rb, problems):
    if len(ra) != len(rb):
        problems.append("batch %d: %d records vs %d" % (i, len(ra), len(rb)))
        return
    for j, (x, y) in enumerate(zip(ra, rb)):
        for field in ("offset", "timestamp", "key", "value", "headers"):
            if field in x and field in y and x[field] != y[field]:
                problems.append("batch %d record %d %s: %r != %r" % (i, j, field, x[field], y[field]))
        if "control" in x and "control" in y:
            for k in set(x["control"]) & set(y["control"]):
                if x["control"][k] != y["control"][k]:
                    problems.append("batch %d record %d control.%s: %r != %r"
                                    % (i, j, k, x["control"][k], y["control"][k]))


def batch_differences(a, b, *, ignore=()):
    """List of human-readable differences between two canonical batch lists.
    Batch fields that are None on either side (unknown) are skipped, as are
    fields named in ``ignore``; record fields are always compared."""
    problems = []
    if len(a) != len(b):
        problems.append("%d batches vs %d" % (len(a), len(b)))
    for i, (x, y) in enumerate(zip(a, b)):
        for field in BATCH_FIELDS:
            if field in ignore:
                continue
            vx, vy = x.get(field), y.get(field)
            if vx is None or vy is None:
                continue
            if vx != vy:
                problems.append("batch %d %s: %r != %r" % (i, field, vx, vy))
        if "records" not in ignore:
            _diff_records(i, x.get("records", []), y.get("records", []), problems)
    return problems


def assert_same_batches(a, b, *, ignore=()):
    problems = batch_differences(a, b, ignore=ignore)
    if problems:
        raise AssertionError("batches differ:\n  " + "\n  ".join(problems[:40]))


def records_of(batches):
    """Flatten canonical batches into (offset, timestamp, key, value, headers)."""
    return [(r["offset"], r["timestamp"], r["key"], r["value"], list(r["headers"]))
            for b in batches for r in b["records"]]
