"""Reference encoder/decoder for Kafka log entries: legacy messages (magic 0/1,
sheet section 2) and v2 record batches (section 3).  Straightforward ``struct``
code, written for clarity.

Canonical decoded batch (``decode``)::

    {"magic", "base_offset", "last_offset", "batch_length",
     "partition_leader_epoch", "crc", "crc_valid", "attributes", "compression",
     "timestamp_type", "is_transactional", "is_control", "has_delete_horizon",
     "base_timestamp", "max_timestamp", "producer_id", "producer_epoch",
     "base_sequence", "record_count", "records": [...]}

    record: {"offset", "timestamp", "key", "value", "headers": [(str, bytes|None)]}
            (+ "control": {"type", "version", "coordinator_epoch"} in control batches)

Conventions for legacy (v0/v1) entries: ``attributes`` is the signed int8
attribute byte of the (wrapper) message, ``crc``/``crc_valid`` refer to the
outer message only, ``base_offset`` is the first (inner) offset, ``last_offset``
the entry's offset field, ``base_timestamp`` = ``max_timestamp`` = the (wrapper)
message timestamp (-1 for v0), ``timestamp_type`` is -1 for v0, producer
fields and leader epoch are -1, ``record_count`` the number of (inner) messages.
For v2, ``attributes`` is the signed int16 field and ``crc`` the unsigned
stored CRC-32C.

Kafka-faithful leniencies (``strict=False``, the default):
* a v2 batch with recordsCount 0 is not inspected past its header (Kafka's
  iterator returns immediately, so leftover bytes / a bad codec id go unnoticed);
* bytes after the value inside a legacy message are ignored (Java's LegacyRecord
  never looks at them);
* negative key/value lengths other than -1 mean null, like Java's
  ``Utils.readBytes`` / ``LegacyRecord.key()``.
``strict=True`` turns these into ValueError as well.
"""

import struct

from . import codec
from .crc import crc32, crc32c
from .varint import decode_varint, decode_varlong, encode_varint, encode_varlong

LOG_OVERHEAD = 12
HEADER_SIZE_UP_TO_MAGIC = 17
RECORD_OVERHEAD_V0 = 14
RECORD_OVERHEAD_V1 = 22
RECORD_BATCH_OVERHEAD = 61

NO_TIMESTAMP = -1
CREATE_TIME, LOG_APPEND_TIME = 0, 1

# v2 attribute bits
ATTR_CODEC_MASK = 0x07
ATTR_TIMESTAMP_TYPE = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
ATTR_DELETE_HORIZON = 0x40

# control record types
ABORT, COMMIT = 0, 1
LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER, KRAFT_VERSION, KRAFT_VOTERS = 2, 3, 4, 5, 6

V2_HEADER = struct.Struct(
    ">q"   # 0  baseOffset
    "i"    # 8  batchLength
    "i"    # 12 partitionLeaderEpoch
    "b"    # 16 magic
    "I"    # 17 crc
    "h"    # 21 attributes
    "i"    # 23 lastOffsetDelta
    "q"    # 27 baseTimestamp
    "q"    # 35 maxTimestamp
    "q"    # 43 producerId
    "h"    # 51 producerEpoch
    "i"    # 53 baseSequence
    "i"    # 57 recordsCount
)
assert V2_HEADER.size == RECORD_BATCH_OVERHEAD
V2_CRC_OFFSET = 17
V2_ATTRIBUTES_OFFSET = 21


# ==========================================================================
# encoding helpers
# ==========================================================================
def _varint_bytes(b):
    """Length-prefixed nullable bytes with a varint length."""
    if b is None:
        return encode_varint(-1)
    return encode_varint(len(b)) + bytes(b)


def encode_v2_record(offset_delta, timestamp_delta, key, value, headers=()):
    """One v2 record including its leading varint length."""
    body = bytearray()
    body += b"\x00"                              # attributes, unused
    body += encode_varlong(timestamp_delta)
    body += encode_varint(offset_delta)
    body += _varint_bytes(key)
    body += _varint_bytes(value)
    body += encode_varint(len(headers))
    for hkey, hvalue in headers:
        if hkey is None:
            raise ValueError("header key must not be null")
        body += _varint_bytes(hkey.encode("utf-8"))
        body += _varint_bytes(hvalue)
    return encode_varint(len(body)) + bytes(body)


def control_key(control_type, version=0):
    return struct.pack(">hh", version, control_type)


def end_txn_marker_value(coordinator_epoch, version=0):
    return struct.pack(">hi", version, coordinator_epoch)


def control_record(control_type, *, timestamp, coordinator_epoch=0, offset_delta=None):
    """A record dict for a COMMIT/ABORT marker (value = end-txn marker)."""
    rec = {"timestamp": timestamp, "key": control_key(control_type),
           "value": end_txn_marker_value(coordinator_epoch), "headers": []}
    if offset_delta is not None:
        rec["offset_delta"] = offset_delta
    return rec


def encode_v2_batch(records, *, base_offset=0, compression=0, timestamp_type=0,
                    producer_id=-1, producer_epoch=-1, base_sequence=-1,
                    partition_leader_epoch=-1, is_transactional=False,
                    is_control=False, delete_horizon_ms=None, max_timestamp=None,
                    base_timestamp=None, last_offset_delta=None, record_count=None):
    """Encode one v2 record batch.

    records: dicts {"offset_delta" (default: index), "timestamp" (default -1),
    "key", "value", "headers"}.  baseTimestamp = first record's timestamp, or
    the delete horizon when given (bit 6 set; deltas relative to it), or -1 for
    an empty batch; ``base_timestamp`` overrides.  maxTimestamp = max record
    timestamp (-1 if none) unless ``max_timestamp`` is given (pass the
    log-append time for LogAppendTime).  lastOffsetDelta = last record's offset
    delta (0 if none) unless ``last_offset_delta`` is given.  Compressed payloads
    are always written compressed (Kafka never falls back to uncompressed).
    """
    recs = list(records)
    deltas = [r.get("offset_delta", i) for i, r in enumerate(recs)]
    stamps = [r.get("timestamp", NO_TIMESTAMP) for r in recs]

    attributes = compression & ATTR_CODEC_MASK
    if compression != attributes:
        raise ValueError("invalid codec id %d" % compression)
    if timestamp_type == LOG_APPEND_TIME:
        attributes |= ATTR_TIMESTAMP_TYPE
    elif timestamp_type != CREATE_TIME:
        raise ValueError("v2 timestamp type must be 0 or 1")
    if is_transactional:
        attributes |= ATTR_TRANSACTIONAL
    if is_control:
        attributes |= ATTR_CONTROL

    if delete_horizon_ms is not None:
        attributes |= ATTR_DELETE_HORIZON
    if base_timestamp is not None:          # explicit override wins
        first_ts = base_timestamp
    elif delete_horizon_ms is not None:
        first_ts = delete_horizon_ms
    elif recs:
        first_ts = stamps[0]
    else:
        first_ts = NO_TIMESTAMP
    if max_timestamp is None:
        max_timestamp = max(stamps) if recs else NO_TIMESTAMP
    if last_offset_delta is None:
        last_offset_delta = deltas[-1] if recs else 0
    if record_count is None:
        record_count = len(recs)

    payload = b"".join(
        encode_v2_record(d, ts - first_ts, r.get("key"), r.get("value"), r.get("headers", ()))
        for d, ts, r in zip(deltas, stamps, recs))
    if compression:
        payload = codec.compress(compression, payload, 2)

    total = RECORD_BATCH_OVERHEAD + len(payload)
    header = bytearray(V2_HEADER.pack(
        base_offset, total - LOG_OVERHEAD, partition_leader_epoch, 2, 0, attributes,
        last_offset_delta, first_ts, max_timestamp, producer_id, producer_epoch,
        base_sequence, record_count))
    batch = header + payload
    struct.pack_into(">I", batch, V2_CRC_OFFSET, crc32c(batch[V2_ATTRIBUTES_OFFSET:]))
    return bytes(batch)


def encode_legacy_message(magic, attributes, timestamp, key, value):
    """The message part (crc .. value) of a v0/v1 entry."""
    body = bytearray()
    body += struct.pack(">bb", magic, attributes)
    if magic == 1:
        body += struct.pack(">q", timestamp)
    elif magic != 0:
        raise ValueError("legacy magic must be 0 or 1")
    for field in (key, value):
        if field is None:
            body += struct.pack(">i", -1)
        else:
            body += struct.pack(">i", len(field)) + bytes(field)
    return struct.pack(">I", crc32(body)) + bytes(body)


def legacy_entry(offset, message):
    return struct.pack(">qi", offset, len(message)) + message


def encode_legacy(magic, records, *, base_offset=0, compression=0, timestamp_type=0,
                  log_append_time=None):
    """Encode a legacy message set.

    Uncompressed: one entry per record, offset base_offset + offset_delta
    (offset_delta defaults to the index).  Compressed: one wrapper entry whose
    offset is the last inner offset; inner offsets absolute (v0) or relative to
    the first inner offset (v1); v1 wrapper timestamp = max inner timestamp
    (CreateTime) or ``log_append_time`` with attribute bit 3, in which case the
    inner messages also carry the append time and bit 3 (broker rebuild).
    """
    recs = list(records)
    if magic not in (0, 1):
        raise ValueError("legacy magic must be 0 or 1")
    if compression == codec.ZSTD or compression not in codec.CODEC_NAMES:
        raise ValueError("codec %d invalid for magic %d" % (compression, magic))
    if magic == 0 and timestamp_type != CREATE_TIME:
        raise ValueError("magic 0 has no timestamp type")
    if timestamp_type == LOG_APPEND_TIME and log_append_time is None:
        raise ValueError("LogAppendTime needs log_append_time")
    if timestamp_type not in (CREATE_TIME, LOG_APPEND_TIME):
        raise ValueError("bad timestamp type")
    ts_attr = ATTR_TIMESTAMP_TYPE if timestamp_type == LOG_APPEND_TIME else 0
    deltas = [r.get("offset_delta", i) for i, r in enumerate(recs)]

    def ts_of(r):
        if magic == 0:
            return NO_TIMESTAMP
        if timestamp_type == LOG_APPEND_TIME:
            return log_append_time
        return r.get("timestamp", NO_TIMESTAMP)

    if compression == codec.NONE:
        return b"".join(
            legacy_entry(base_offset + d,
                         encode_legacy_message(magic, ts_attr, ts_of(r), r.get("key"), r.get("value")))
            for d, r in zip(deltas, recs))

    if not recs:
        raise ValueError("a compressed legacy message set needs at least one message")
    inner = b"".join(
        legacy_entry(base_offset + d if magic == 0 else d - deltas[0],
                     encode_legacy_message(magic, ts_attr, ts_of(r), r.get("key"), r.get("value")))
        for d, r in zip(deltas, recs))
    if magic == 1:
        wrapper_ts = log_append_time if timestamp_type == LOG_APPEND_TIME else max(ts_of(r) for r in recs)
    else:
        wrapper_ts = NO_TIMESTAMP
    wrapper = encode_legacy_message(magic, compression | ts_attr, wrapper_ts, None,
                                    codec.compress(compression, inner, magic))
    return legacy_entry(base_offset + deltas[-1], wrapper)


# ==========================================================================
# decoding
# ==========================================================================
def _nullable(buf, pos, size, what, strict):
    if size < 0:
        if strict and size != -1:
            raise ValueError("negative %s length %d" % (what, size))
        return None, pos
    if pos + size > len(buf):
        raise ValueError("%s of %d bytes runs past the end of its container" % (what, size))
    return bytes(buf[pos:pos + size]), pos + size


def iter_entries(buf):
    """Yield (position, entry_bytes) for each complete log entry, following
    ``FileLogInputStream.nextBatch``: stop when <= 17 bytes remain or the
    entry runs past the end; ValueError if size < 14 or magic not in 0..2."""
    buf = bytes(buf)
    pos = 0
    n = len(buf)
    while n - pos > HEADER_SIZE_UP_TO_MAGIC:
        size = struct.unpack_from(">i", buf, pos + 8)[0]
        if size < RECORD_OVERHEAD_V0:
            raise ValueError("entry at position %d: size %d smaller than the minimum %d"
                             % (pos, size, RECORD_OVERHEAD_V0))
        end = pos + LOG_OVERHEAD + size
        if end > n:
            return
        magic = struct.unpack_from(">b", buf, pos + 16)[0]
        if magic not in (0, 1, 2):
            raise ValueError("entry at position %d: invalid magic %d" % (pos, magic))
        yield pos, buf[pos:end]
        pos = end


def decode(buf, *, strict=False):
    """Decode every complete entry of ``buf`` into canonical batch dicts."""
    out = []
    for pos, entry in iter_entries(buf):
        try:
            if entry[16] == 2:
                out.append(decode_v2_batch(entry, strict=strict))
            else:
                out.append(decode_legacy_entry(entry, strict=strict))
        except ValueError as e:
            raise ValueError("entry at position %d: %s" % (pos, e)) from None
    return out


# ---------------------------------------------------------------- legacy
def _parse_legacy_message(msg, strict):
    """Parse the message part of a legacy entry (crc .. value)."""
    if len(msg) < RECORD_OVERHEAD_V0:
        raise ValueError("legacy message of %d bytes is shorter than %d" % (len(msg), RECORD_OVERHEAD_V0))
    crc, magic, attributes = struct.unpack_from(">Ibb", msg, 0)
    if magic == 0:
        pos, timestamp = 6, NO_TIMESTAMP
    elif magic == 1:
        if len(msg) < RECORD_OVERHEAD_V1:
            raise ValueError("v1 message of %d bytes is shorter than %d" % (len(msg), RECORD_OVERHEAD_V1))
        timestamp = struct.unpack_from(">q", msg, 6)[0]
        pos = 14
    else:
        raise ValueError("legacy message with magic %d" % magic)
    if pos + 4 > len(msg):
        raise ValueError("truncated key length")
    key, pos = _nullable(msg, pos + 4, struct.unpack_from(">i", msg, pos)[0], "key", strict)
    if pos + 4 > len(msg):
        raise ValueError("truncated value length")
    value, pos = _nullable(msg, pos + 4, struct.unpack_from(">i", msg, pos)[0], "value", strict)
    if strict and pos != len(msg):
        raise ValueError("%d bytes left after the value of a legacy message" % (len(msg) - pos))
    return {"crc": crc, "crc_valid": crc == crc32(msg[4:]), "magic": magic,
            "attributes": attributes, "timestamp": timestamp, "key": key, "value": value}


def _iter_inner_entries(data):
    """Inner entries of a decompressed legacy set (DataLogInputStream rules)."""
    pos = 0
    while len(data) - pos >= LOG_OVERHEAD:
        offset, size = struct.unpack_from(">qi", data, pos)
        if size < RECORD_OVERHEAD_V0:
            raise ValueError("inner message size %d smaller than %d" % (size, RECORD_OVERHEAD_V0))
        if len(data) - pos - LOG_OVERHEAD < size:
            return  # partial trailing inner entry: silently ignored
        yield offset, data[pos + LOG_OVERHEAD:pos + LOG_OVERHEAD + size]
        pos += LOG_OVERHEAD + size


def decode_legacy_entry(entry, *, strict=False):
    entry = bytes(entry)
    offset, size = struct.unpack_from(">qi", entry, 0)
    if size != len(entry) - LOG_OVERHEAD:
        raise ValueError("entry size field %d does not match %d bytes" % (size, len(entry) - LOG_OVERHEAD))
    outer = _parse_legacy_message(entry[LOG_OVERHEAD:], strict)
    magic = outer["magic"]
    attributes = outer["attributes"]
    compression = attributes & ATTR_CODEC_MASK
    if magic == 0:
        timestamp_type = -1
    else:
        timestamp_type = LOG_APPEND_TIME if attributes & ATTR_TIMESTAMP_TYPE else CREATE_TIME
    batch = {
        "magic": magic, "base_offset": offset, "last_offset": offset, "batch_length": size,
        "partition_leader_epoch": -1, "crc": outer["crc"], "crc_valid": outer["crc_valid"],
        "attributes": attributes, "compression": compression, "timestamp_type": timestamp_type,
        "is_transactional": False, "is_control": False, "has_delete_horizon": False,
        "base_timestamp": outer["timestamp"], "max_timestamp": outer["timestamp"],
        "producer_id": -1, "producer_epoch": -1, "base_sequence": -1,
    }
    if compression == codec.NONE:
        batch["record_count"] = 1
        batch["records"] = [{"offset": offset, "timestamp": outer["timestamp"],
                             "key": outer["key"], "value": outer["value"], "headers": []}]
        return batch

    if compression not in (codec.GZIP, codec.SNAPPY, codec.LZ4):
        raise ValueError("invalid codec %d for a legacy wrapper" % compression)
    if outer["value"] is None:
        raise ValueError("compressed legacy wrapper with null value")
    data = codec.decompress(compression, outer["value"], magic)
    inner = []
    for inner_offset, msg in _iter_inner_entries(data):
        m = _parse_legacy_message(msg, strict)
        if m["attributes"] & ATTR_CODEC_MASK:
            raise ValueError("inner messages must not be compressed")
        inner.append((inner_offset, m))
    if not inner:
        raise ValueError("compressed legacy message set with no inner messages")

    if magic == 1:
        last_inner = inner[-1][0]
        if offset == 0:
            absolute_base = 0   # librdkafka produce data: inner offsets used as-is
        elif offset < last_inner:
            raise ValueError("wrapper offset %d is less than the last inner offset %d" % (offset, last_inner))
        else:
            absolute_base = offset - last_inner
    else:
        absolute_base = 0       # v0: inner offsets are absolute

    records = []
    for inner_offset, m in inner:
        if m["magic"] == 0:
            ts = NO_TIMESTAMP
        elif magic == 1 and timestamp_type == LOG_APPEND_TIME:
            ts = outer["timestamp"]
        else:
            ts = m["timestamp"]
        records.append({"offset": absolute_base + inner_offset, "timestamp": ts,
                        "key": m["key"], "value": m["value"], "headers": []})
    batch["base_offset"] = records[0]["offset"]
    batch["record_count"] = len(records)
    batch["records"] = records
    return batch


# ---------------------------------------------------------------- v2
def parse_control_record(key, value):
    """ControlRecordType.parse + EndTransactionMarker.deserializeValue."""
    if key is None or len(key) < 4:
        raise ValueError("control record key must have at least 4 bytes")
    version, ctype = struct.unpack_from(">hh", key, 0)
    if version < 0:
        raise ValueError("invalid control record key version %d" % version)
    coordinator_epoch = None
    if ctype in (ABORT, COMMIT):
        if value is None or len(value) < 6:
            raise ValueError("end transaction marker value must have at least 6 bytes")
        mversion, coordinator_epoch = struct.unpack_from(">hi", value, 0)
        if mversion < 0:
            raise ValueError("invalid end transaction marker version %d" % mversion)
    return {"type": ctype, "version": version, "coordinator_epoch": coordinator_epoch}


def _decode_v2_record(buf, pos, strict):
    length, pos = decode_varint(buf, pos)
    if length < 0 or len(buf) - pos < length:
        raise ValueError("record size %d but only %d bytes remain" % (length, len(buf) - pos))
    start = pos
    # Like Java, fields are read from the enclosing buffer and the number of
    # bytes consumed is compared with ``length`` afterwards.
    if length < 1:
        raise ValueError("invalid record size: expected to read %d bytes, read 1" % length)
    pos += 1                                    # attributes (ignored)
    ts_delta, pos = decode_varlong(buf, pos)
    offset_delta, pos = decode_varint(buf, pos)
    ksize, pos = decode_varint(buf, pos)
    key, pos = _nullable(buf, pos, ksize, "key", strict)
    vsize, pos = decode_varint(buf, pos)
    value, pos = _nullable(buf, pos, vsize, "value", strict)
    nheaders, pos = decode_varint(buf, pos)
    if nheaders < 0:
        raise ValueError("invalid number of record headers %d" % nheaders)
    if nheaders > len(buf) - pos:
        raise ValueError("number of record headers %d larger than the remaining bytes" % nheaders)
    headers = []
    for _ in range(nheaders):
        hksize, pos = decode_varint(buf, pos)
        if hksize < 0:
            raise ValueError("invalid negative header key size %d" % hksize)
        hkey, pos = _nullable(buf, pos, hksize, "header key", strict)
        hvsize, pos = decode_varint(buf, pos)
        hvalue, pos = _nullable(buf, pos, hvsize, "header value", strict)
        try:
            headers.append((hkey.decode("utf-8"), hvalue))
        except UnicodeDecodeError as e:
            raise ValueError("header key is not UTF-8: %s" % e) from None
    if pos - start != length:
        raise ValueError("invalid record size: expected to read %d bytes, read %d" % (length, pos - start))
    return (offset_delta, ts_delta, key, value, headers), pos


def decode_v2_batch(entry, *, strict=False):
    entry = bytes(entry)
    if len(entry) < RECORD_BATCH_OVERHEAD:
        raise ValueError("v2 batch of %d bytes is smaller than the %d-byte header"
                         % (len(entry), RECORD_BATCH_OVERHEAD))
    (base_offset, batch_length, leader_epoch, magic, crc, attributes, last_offset_delta,
     base_ts, max_ts, producer_id, producer_epoch, base_sequence, count) = V2_HEADER.unpack_from(entry, 0)
    if batch_length != len(entry) - LOG_OVERHEAD:
        raise ValueError("batchLength %d does not match %d bytes" % (batch_length, len(entry) - LOG_OVERHEAD))
    if magic != 2:
        raise ValueError("not a v2 batch (magic %d)" % magic)
    compression = attributes & ATTR_CODEC_MASK
    timestamp_type = LOG_APPEND_TIME if attributes & ATTR_TIMESTAMP_TYPE else CREATE_TIME
    is_control = bool(attributes & ATTR_CONTROL)
    batch = {
        "magic": 2, "base_offset": base_offset, "last_offset": base_offset + last_offset_delta,
        "batch_length": batch_length, "partition_leader_epoch": leader_epoch, "crc": crc,
        "crc_valid": crc == crc32c(entry[V2_ATTRIBUTES_OFFSET:]),
        "attributes": attributes, "compression": compression, "timestamp_type": timestamp_type,
        "is_transactional": bool(attributes & ATTR_TRANSACTIONAL), "is_control": is_control,
        "has_delete_horizon": bool(attributes & ATTR_DELETE_HORIZON),
        "base_timestamp": base_ts, "max_timestamp": max_ts, "producer_id": producer_id,
        "producer_epoch": producer_epoch, "base_sequence": base_sequence, "record_count": count,
        "records": [],
    }
    if count < 0:
        raise ValueError("invalid record count %d" % count)
    if count == 0 and not strict:
        return batch       # Kafka's iterator returns immediately for count 0
    if compression not in codec.CODEC_NAMES:
        raise ValueError("invalid compression codec id %d" % compression)
    payload = entry[RECORD_BATCH_OVERHEAD:]
    if compression != codec.NONE:
        payload = codec.decompress(compression, payload, 2)
    pos = 0
    for _ in range(count):
        if pos >= len(payload):
            raise ValueError("incorrect declared batch size, premature EOF reached")
        (offset_delta, ts_delta, key, value, headers), pos = _decode_v2_record(payload, pos, strict)
        rec = {"offset": base_offset + offset_delta,
               "timestamp": max_ts if timestamp_type == LOG_APPEND_TIME else base_ts + ts_delta,
               "key": key, "value": value, "headers": headers}
        if is_control:
            rec["control"] = parse_control_record(key, value)
        batch["records"].append(rec)
    if pos != len(payload):
        raise ValueError("incorrect declared batch size, %d bytes remaining after %d records"
                         % (len(payload) - pos, count))
    return batch
