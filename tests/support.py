"""kvlog's view of a buffer in the canonical dict form used by tests/reference and tests/oracles."""

import kvlog


def kvlog_decode(buf, **kw):
    out = []
    for b in kvlog.MemoryRecords(buf, **kw).batches():
        recs = list(b.records())
        out.append({
            "magic": b.magic, "base_offset": b.base_offset, "last_offset": b.last_offset,
            "batch_length": b.size_in_bytes - 12, "partition_leader_epoch": b.partition_leader_epoch,
            "crc": b.crc, "crc_valid": b.is_valid(), "attributes": b.attributes,
            "compression": int(b.compression), "timestamp_type": int(b.timestamp_type),
            "is_transactional": b.is_transactional, "is_control": b.is_control,
            "has_delete_horizon": b.has_delete_horizon, "base_timestamp": b.base_timestamp,
            "max_timestamp": b.max_timestamp, "producer_id": b.producer_id,
            "producer_epoch": b.producer_epoch, "base_sequence": b.base_sequence,
            "record_count": b.record_count,
            "records": [{"offset": r.offset, "timestamp": r.timestamp, "key": r.key, "value": r.value,
                         "headers": [tuple(h) for h in r.headers]} for r in recs],
        })
    return out


def as_kvlog_records(recs):
    """Reference-style record dicts → kvlog.Record objects."""
    return [kvlog.Record(r.get("key"), r.get("value"), r.get("timestamp", -1), tuple(r.get("headers", ())))
            for r in recs]
