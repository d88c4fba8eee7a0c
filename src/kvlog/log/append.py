"""Appending to a log (Kafka's ``UnifiedLog.append`` with ``LogValidator``): encoding Records, the
one-kernel-call point append, the general leader and replica paths with their validation, and the one
place an append rolls, writes and moves the log end offset (``write_active``).

``append`` and ``append_point`` are bound as ``Log`` methods (``Log._append``, ``Log._append_point``): the
point path stays the calls it was, with no wrapper frame in between.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from kvlog._core import point as _p
from kvlog._core import records as _k
from kvlog.errors import CorruptRecordError, InvalidOffsetError, InvalidRecordError, InvalidTimestampError, \
    RecordTooLargeError
from kvlog.log._common import INT32_MAX, LONG_MAX, AppendInfo, _AppendRules, _codec_id
from kvlog.log.producers import analyze_producers, commit_producers
from kvlog.producer_state import CLIENT, REPLICATION
from kvlog.records import Compression, MemoryRecords, TimestampType, convert, encode_arrays, encode_batch

if TYPE_CHECKING:
    from kvlog.log.log import Log


def append(log: Log, records: Any, compression: Any, assign_offsets: bool, producer_id: int, producer_epoch: int,
           base_sequence: int, is_transactional: bool) -> AppendInfo:
    """``Log.append`` without its failure fence: encode Records, try the point path, else check the
    batches' framing and sizes and take the leader or replica path."""
    if log._closed or log.read_only or log._failed is not None:
        log._check_open(writing=True)
    cfg = log.config
    producer_fields = producer_id != -1 or producer_epoch != -1 or base_sequence != -1 or is_transactional
    if isinstance(records, MemoryRecords):
        data: Any = records.buffer
    elif isinstance(records, (bytes, bytearray, memoryview)):
        data = records
    else:
        codec = compression
        if codec is None:
            codec = "none" if cfg.compression_type == "producer" else cfg.compression_type
        recs = records if type(records) is list else list(records)
        if not recs:
            raise ValueError("nothing to append")
        now = log._time()
        data = None
        if _codec_id(codec) == 0:  # the record-at-a-time path: one kernel call, no columns
            data = _p.encode_records(recs, now, producer_id, producer_epoch, base_sequence, is_transactional)
        if data is None:
            recs = [r if r.timestamp is not None else r._replace(timestamp=now) for r in recs]
            data = encode_batch(recs, compression=codec, producer_id=producer_id, producer_epoch=producer_epoch,
                                base_sequence=base_sequence, is_transactional=is_transactional)
        producer_fields = False
    if producer_fields:
        raise ValueError("producer_id/producer_epoch/base_sequence/is_transactional apply to Records; "
                         "encoded batches carry their own")
    if assign_offsets:
        info = log._append_point(data, compression)
        if info is not None:
            return info
    headers = MemoryRecords(data).batch_headers(check_crc=True)
    total = int(headers["size"].sum()) if len(headers) else 0
    if not len(headers):
        raise CorruptRecordError("append contains no complete batch", position=0)
    if total != len(data):
        raise CorruptRecordError(
            f"append has {len(data) - total} bytes after its last complete batch", position=total)
    too_big = headers["size"] > cfg.max_message_bytes
    if too_big.any():
        i = int(np.argmax(too_big))
        raise RecordTooLargeError(
            f"batch at position {int(headers['position'][i])} is {int(headers['size'][i])} bytes, "
            f"over max.message.bytes={cfg.max_message_bytes}")
    if total > cfg.segment_bytes:
        raise RecordTooLargeError(f"append of {total} bytes exceeds segment.bytes={cfg.segment_bytes}")
    if assign_offsets:
        return append_as_leader(log, data, headers, compression)
    return append_as_replica(log, data, headers)


def append_point(log: Log, data: Any, compression: Any) -> AppendInfo | None:
    """A client's leader append in one kernel call (validate, assign offsets, summarise), then the
    roll check and one write. None when the append needs the general path (legacy input, a codec
    to change, anything invalid: ``append_as_leader`` raises the precise error), having changed
    nothing."""
    cfg = log.config
    rules = log._rules
    if rules is None or rules.config is not cfg:
        rules = log._rules = _AppendRules.of(cfg)
    want = _codec_id(cfg.compression_type if compression is None else compression)
    now = log._time()
    lat = max(now, log._last_log_append_time) if rules.log_append_time else -1
    buf = bytearray(data)
    out, raw = log._rows
    first = log._next_offset
    got = _p.prepare_append(buf, raw, first, lat, cfg.max_message_bytes, want, True,
                            rules.check_timestamps)
    if got[0] == _p.GROW:
        out = np.empty(len(buf) // 61 + 1, dtype=_k.BATCH_DTYPE)
        got = _p.prepare_append(buf, out.view(np.uint8), first, lat, cfg.max_message_bytes, want, True,
                                rules.check_timestamps)
    status, n, size, nxt, max_ts, off_max, count, has_producer, lo, hi = got
    if status != _p.FOUND or size > cfg.segment_bytes:
        return None
    if rules.check_timestamps and lo <= hi and (now - lo > rules.before_max_ms or hi - now > rules.after_max_ms):
        return None
    if has_producer:
        infos, done, dup = analyze_producers(log, out[:n], buf, CLIENT)
        if dup is not None:
            return AppendInfo(dup.first_offset, dup.last_offset, dup.timestamp, dup.last_offset,
                              dup.timestamp if lat >= 0 else -1, dup.offset_delta + 1, 0, duplicate=True)
    if lat >= 0:
        log._last_log_append_time = lat
    write_active(log, buf, None if n == 1 else out[:n], first, nxt - 1, size, max_ts, now, rules.max_segment_ms)
    if has_producer:
        commit_producers(log, infos, done)
    return AppendInfo(first, nxt - 1, max_ts, off_max, lat, count, size)


def write_active(log: Log, data: Any, rows: np.ndarray | None, first: int, last: int, size: int, max_ts: int,
                 now: int, max_segment_ms: int) -> None:
    """Write validated batches holding offsets ``first..last`` to the active segment, rolling first when
    Kafka's roll rule says so (the segment would pass segment.bytes, is older than segment.ms with
    jitter, has a full index, or cannot hold ``last`` as a relative offset), then move the log end
    offset and flush as flush.messages / flush.ms / fsync-per-append ask. The batches' partition leader
    epochs go to the leader-epoch cache first (Kafka assigns before it writes; ``kvlog.log.broker``).

    ``rows`` are the batches' header rows with positions relative to ``data``; None for one batch.
    """
    cfg = log.config
    if rows is None:
        # two byte reads (the point path's only cost): a legacy batch (magic, byte 16, below 2) or a v2 batch
        # with a partition leader epoch (bytes 12-15 not negative) can change the leader epochs
        if data[16] < 2 or not data[12] & 0x80:
            log._broker.on_append(data, None)
    elif rows["partition_leader_epoch"].max() >= 0 or rows["magic"].min() < 2:
        log._broker.on_append(data, rows)
    seg = log._segments[-1]
    used = seg.size_in_bytes
    if (used > cfg.segment_bytes - size or seg.offset_index.is_full() or seg.time_index.is_full()
            or not 0 <= last - seg.base_offset <= INT32_MAX
            or (used > 0 and seg.time_waited_for_roll(now, max_ts) > max_segment_ms - seg.roll_jitter_ms)):
        new_base = max(first, log._next_offset)
        if used > 0 or seg.base_offset != new_base:  # an empty segment at the right offset serves
            seg = log.roll(new_base)
    if rows is None:
        seg.append_batch(data, last, max_ts, flush=cfg.fsync_per_append)
    else:
        seg.append(data, rows, flush=cfg.fsync_per_append)
    nxt = log._next_offset = last + 1
    log._producer_state.update_map_end_offset(nxt)
    if cfg.fsync_per_append:
        log.recovery_point = nxt
        log._write_recovery_point()
    elif (nxt - log.recovery_point >= cfg.flush_messages
          or (cfg.flush_ms < LONG_MAX and log._time() - log._last_flush_ms >= cfg.flush_ms)):
        log.flush()


def append_as_leader(log: Log, data: Any, headers: np.ndarray, compression: Any, origin: str = CLIENT) -> AppendInfo:
    """The general leader path: up-convert legacy batches, check producer fields and record counts,
    recompress to compression.type, validate or set timestamps, assign offsets, then store."""
    cfg = log.config
    if (headers["magic"] < 2).any():
        data = convert(MemoryRecords(data), 2)
        headers = MemoryRecords(data).batch_headers(check_crc=True)
    if origin == CLIENT and (headers["attributes"] & 0x20).any():
        raise InvalidOffsetError("clients may not append control batches; use end_transaction(), or "
                                 "assign_offsets=False to copy them")
    pids = headers["producer_id"]
    if origin == CLIENT and ((pids >= 0) & (headers["base_sequence"] < 0)).any():
        raise InvalidRecordError("a batch with a producer id must carry a base sequence")
    if (((headers["attributes"] & 0x10) != 0) & ((pids < 0) | (headers["producer_epoch"] < 0))).any():
        raise InvalidRecordError("a transactional batch must carry a producer id and epoch")
    counts = headers["record_count"].astype(np.int64)
    deltas = headers["last_offset"] - headers["base_offset"]
    bad = (counts <= 0) | (deltas + 1 != counts)
    if bad.any():
        i = int(np.argmax(bad))
        raise CorruptRecordError(
            f"batch declares {int(counts[i])} records but spans {int(deltas[i]) + 1} offsets",
            position=int(headers["position"][i]))
    target = cfg.compression_type if compression is None else compression
    if target != "producer":
        want = int(Compression.parse(target))
        if ((headers["attributes"] & 7) != want).any():
            data = _recompress(data, want, cfg.compression_level)
            headers = MemoryRecords(data).batch_headers(check_crc=True)
            counts = headers["record_count"].astype(np.int64)
    ttype = cfg.message_timestamp_type
    now = log._time()
    if ttype == TimestampType.CREATE_TIME:
        _validate_timestamps(log, data, headers, now)
        lat = -1
    else:
        lat = max(now, log._last_log_append_time)
    buf = bytearray(data)
    first = log._next_offset
    nxt = _k.assign_offsets(buf, np.ascontiguousarray(headers["position"]), first, lat)
    headers = headers.copy()
    headers["base_offset"] = first + np.concatenate([[0], np.cumsum(counts)[:-1]])
    headers["last_offset"] = headers["base_offset"] + counts - 1
    if lat >= 0:
        headers["max_timestamp"] = lat
        headers["attributes"] |= 0x08
    infos, done, dup = analyze_producers(log, headers, buf, origin)
    if dup is not None:
        return AppendInfo(dup.first_offset, dup.last_offset, dup.timestamp, dup.last_offset,
                          dup.timestamp if lat >= 0 else -1, dup.offset_delta + 1, 0, duplicate=True)
    if lat >= 0:
        log._last_log_append_time = lat
    info = _store(log, buf, headers, first, nxt - 1, lat)
    commit_producers(log, infos, done)
    return info


def append_as_replica(log: Log, data: Any, headers: np.ndarray) -> AppendInfo:
    """A replica's append: the batches keep their offsets (at or past the log end, increasing)."""
    firsts = np.where(headers["base_offset"] >= 0, headers["base_offset"], headers["last_offset"])
    lasts = headers["last_offset"]
    if int(firsts[0]) < log._next_offset:
        raise InvalidOffsetError(
            f"first offset {int(firsts[0])} is below the log end offset {log._next_offset}")
    if len(headers) > 1 and (firsts[1:] <= lasts[:-1]).any():
        raise InvalidOffsetError("batch offsets must increase within an append")
    if (lasts < firsts).any():
        raise InvalidOffsetError("a batch's last offset is below its base offset")
    infos, done, _ = analyze_producers(log, headers, data, REPLICATION)
    info = _store(log, data, headers, int(firsts[0]), int(lasts[-1]), -1)
    commit_producers(log, infos, done)
    return info


def _validate_timestamps(log: Log, data: Any, headers: np.ndarray, now: int) -> None:
    """CreateTime records within message.timestamp.before/after.max.ms of the log's time."""
    before = log.config.effective_timestamp_before_max_ms
    after = log.config.effective_timestamp_after_max_ms
    if before >= LONG_MAX and after >= LONG_MAX:
        return
    table = MemoryRecords(data).to_arrow(include_headers=False, check_crc=False)
    ts = table.column("timestamp").cast(pa.int64()).to_numpy() // 1000
    ts = ts[ts != -1]
    if not len(ts):
        return
    if before < LONG_MAX and (now - ts > before).any():
        bad = int(ts[now - ts > before][0])
        raise InvalidTimestampError(
            f"timestamp {bad} is {now - bad} ms before the log's time {now}, "
            f"over message.timestamp.before.max.ms={before}")
    if after < LONG_MAX and (ts - now > after).any():
        bad = int(ts[ts - now > after][0])
        raise InvalidTimestampError(
            f"timestamp {bad} is {bad - now} ms after the log's time {now}, "
            f"over message.timestamp.after.max.ms={after}")


def _store(log: Log, data: Any, headers: np.ndarray, first: int, last: int, lat: int) -> AppendInfo:
    """Write the general path's batches and summarise them."""
    size = len(data)
    max_ts = int(headers["max_timestamp"].max())
    i_max = int(np.argmax(headers["max_timestamp"]))
    rel = headers.copy()
    rel["position"] -= rel["position"][0]
    write_active(log, data, rel, first, last, size, max_ts, log._time(), log.config.max_segment_ms)
    count = int(np.where(headers["record_count"] >= 0, headers["record_count"], 0).sum())
    return AppendInfo(first, last, max_ts, int(headers["last_offset"][i_max]), lat, count, size)


def _recompress(data: Any, codec: int, level: int | None = None) -> bytes:
    """Rebuild every batch with ``codec`` (compression.type other than 'producer'), keeping its fields."""
    parts = []
    for b in MemoryRecords(data).batches():
        if b.compression == codec:
            parts.append(bytes(b.buffer()))
            continue
        recs = list(b.records())
        hdrs = [r.headers for r in recs]
        parts.append(encode_arrays(
            [r.key for r in recs], [r.value for r in recs], [r.timestamp for r in recs],
            headers=hdrs if any(hdrs) else None, offsets=[r.offset for r in recs], base_offset=b.base_offset,
            compression=codec, timestamp_type=b.timestamp_type, log_append_time=b.max_timestamp,
            producer_id=b.producer_id, producer_epoch=b.producer_epoch, base_sequence=b.base_sequence,
            partition_leader_epoch=b.partition_leader_epoch, is_transactional=b.is_transactional,
            records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1, compression_level=level))
    return b"".join(parts)
