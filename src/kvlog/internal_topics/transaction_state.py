"""Transactional producers' state, replayed from ``__transaction_state`` as the transaction coordinator
loads it: the latest value per transactional id, a tombstone (an expired transactional id) removing it.
``as_of`` replays only records up to that time.
"""

from __future__ import annotations

import os

import pyarrow as pa

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.decoders import InternalTopic, UnknownSchemaError, decode_coordinator_record
from kvlog.internal_topics.layout import partition_batches, partition_dirs

__all__ = ["TRANSACTION_STATES", "transaction_state", "transaction_state_schema"]

TOPIC = InternalTopic.TRANSACTION_STATE.value
# the coordinator's TransactionState ids and names (what DescribeTransactions reports)
TRANSACTION_STATES = {0: "Empty", 1: "Ongoing", 2: "PrepareCommit", 3: "PrepareAbort", 4: "CompleteCommit",
                      5: "CompleteAbort", 6: "Dead", 7: "PrepareEpochFence"}


def transaction_state_schema() -> pa.Schema:
    ts = pa.timestamp("ms", tz="UTC")
    return pa.schema([
        pa.field("transactional_id", pa.string(), nullable=False),
        pa.field("producer_id", pa.int64(), nullable=False),
        pa.field("producer_epoch", pa.int16(), nullable=False),
        pa.field("previous_producer_id", pa.int64(), nullable=False),
        pa.field("next_producer_id", pa.int64(), nullable=False),
        pa.field("next_producer_epoch", pa.int16(), nullable=False),  # KIP-939 tag 3; -1 when not written
        pa.field("state", pa.string(), nullable=False),
        pa.field("timeout_ms", pa.int32(), nullable=False),
        pa.field("partitions", pa.list_(pa.struct([pa.field("topic", pa.string()),
                                                   pa.field("partition", pa.int32())]))),
        pa.field("last_update_timestamp", ts, nullable=False),
        pa.field("start_timestamp", ts),   # null: no transaction started (-1)
        pa.field("coordinator_partition", pa.int32(), nullable=False),
        pa.field("record_offset", pa.int64(), nullable=False),
    ])


def _replay(path: str, n: int, as_of: int | None, errors: str, problems: list[str]) -> list[dict[str, object]]:
    label = f"{TOPIC}-{n}"
    latest: dict[str, dict[str, object]] = {}
    with partition_batches(path) as batches:
        for batch in batches:
            if batch.is_control:
                continue
            for rec in batch.records(check_crc=True):
                if as_of is not None and (rec.timestamp or 0) > as_of:
                    continue
                try:
                    r = decode_coordinator_record(TOPIC, rec.key, rec.value, partition=label, offset=rec.offset)
                except UnknownSchemaError as exc:
                    problems.append(str(exc))
                    continue
                except CorruptInternalRecordError as exc:
                    if errors == "raise":
                        raise
                    problems.append(str(exc))
                    continue
                if not r.known or r.key is None:
                    problems.append(f"unknown record type {r.record_type} (partition {label}, offset {rec.offset})")
                    continue
                tid = r.key["transactionalId"]
                v = r.value
                if v is None:
                    latest.pop(tid, None)
                    continue
                latest[tid] = {
                    "transactional_id": tid, "producer_id": v["producerId"], "producer_epoch": v["producerEpoch"],
                    "previous_producer_id": v.get("previousProducerId", -1),
                    "next_producer_id": v.get("nextProducerId", -1),
                    "next_producer_epoch": v.get("nextProducerEpoch", -1),
                    "state": TRANSACTION_STATES.get(v["transactionStatus"], f"Unknown({v['transactionStatus']})"),
                    "timeout_ms": v["transactionTimeoutMs"],
                    "partitions": [{"topic": p["topic"], "partition": i}
                                   for p in v["transactionPartitions"] or [] for i in p["partitionIds"]],
                    "last_update_timestamp": v["transactionLastUpdateTimestampMs"],
                    "start_timestamp": v["transactionStartTimestampMs"] if v["transactionStartTimestampMs"] >= 0
                    else None,
                    "coordinator_partition": n, "record_offset": rec.offset,
                }
    return [latest[k] for k in sorted(latest)]


def transaction_state(root: str | os.PathLike[str], *, as_of: int | None = None, errors: str = "raise",
                      problems: list[str] | None = None) -> pa.Table:
    """Every transactional id's latest state under ``root`` (a data directory or one
    ``__transaction_state-N`` directory) as an Arrow table (:func:`transaction_state_schema`), read-only.

    Undecodable records raise :class:`~kvlog.errors.CorruptInternalRecordError` (``errors="skip"``:
    noted in ``problems``); unknown types and versions are always noted there and skipped.
    """
    if errors not in ("raise", "skip"):
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")
    notes = problems if problems is not None else []
    rows = [row for path, n in partition_dirs(root, TOPIC) for row in _replay(path, n, as_of, errors, notes)]
    schema = transaction_state_schema()
    return pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()
