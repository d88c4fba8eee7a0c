"""The ``key:``/``payload:`` texts Kafka's ``kafka-dump-log.sh`` prints with its decoder options.

``--offsets-decoder``, ``--transaction-log-decoder`` and ``--share-group-state-decoder`` print a
coordinator record as ``key: {"type":"<id>","data":{...}}`` and ``payload: {"version":"<v>","data":{...}}``
(``<DELETE>`` for a tombstone); a classic consumer group's member subscription and assignment bytes
are expanded into their consumer-protocol JSON. ``--cluster-metadata-decoder`` prints no key and
``payload: {"type":"TOPIC_RECORD","version":0,"data":{...}}``; ``--remote-log-metadata-decoder`` prints no
key and the ``toString`` of the Java object a ``__remote_log_metadata`` record deserializes into. Records that do not decode print Kafka's
"Unknown record type ..." / "Error at offset ..." texts in their place, so one bad record never stops a
dump. The JSON is compact, fields in spec order, tagged fields only when not at their default, bytes as
base64 and uuids in Kafka's base64url form, as Kafka's generated JSON converters write them. Where Kafka
versions differ, the text is Kafka 4.4's: a transaction's ``transactionStatus`` by name (``"Ongoing"``).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable
from typing import Any

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics import codec
from kvlog.internal_topics.decoders import (
    InternalTopic,
    decode_coordinator_record,
    decode_metadata_record,
    decode_remote_log_metadata_record,
)
from kvlog.internal_topics.remote_log_text import java_text, refusal
from kvlog.internal_topics.schemas_coordinator import CONSUMER_ASSIGNMENT, CONSUMER_SUBSCRIPTION
from kvlog.internal_topics.transaction_state import TRANSACTION_STATES
from kvlog.internal_topics.schemas_metadata import METADATA_RECORDS
from kvlog.records import Record

__all__ = ["DECODER_OPTIONS", "coordinator_texts", "metadata_text", "parser_for", "remote_log_metadata_text"]

Parser = Callable[[Record], tuple[str | None, str | None]]

# kafka-dump-log.sh option (argparse dest) → the topic whose records it decodes
DECODER_OPTIONS: dict[str, InternalTopic] = {
    "offsets_decoder": InternalTopic.CONSUMER_OFFSETS,
    "transaction_log_decoder": InternalTopic.TRANSACTION_STATE,
    "share_group_state_decoder": InternalTopic.SHARE_GROUP_STATE,
    "cluster_metadata_decoder": InternalTopic.CLUSTER_METADATA,
    "remote_log_metadata_decoder": InternalTopic.REMOTE_LOG_METADATA,
}


def _consumer_protocol(raw: Any, msg: codec.Message) -> Any:
    """A member's subscription/assignment as consumer-protocol JSON, or its bytes when they do not parse
    (DumpLogSegments keeps the original bytes then)."""
    data = bytes(raw)
    if len(data) < 2:
        return base64_text(data)
    version = struct.unpack_from(">h", data, 0)[0]
    try:
        fields, _ = codec.decode(msg, version, data, offset=2)
    except codec.SchemaError:
        return base64_text(data)
    return codec.to_json_obj(msg.fields, version, fields)


def base64_text(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _value_json(topic: InternalTopic, record_type: int, version: int, fields: dict[str, Any]) -> dict[str, Any]:
    rt = topic.record_types[record_type]
    out = codec.to_json_obj(rt.value.fields, version, fields)
    if topic is InternalTopic.TRANSACTION_STATE and "transactionStatus" in out:
        # Kafka 4.4 prints the state by name (TransactionState.stateName), an id it does not know as its
        # number in a JSON string; 4.0-4.3 print the bare number
        status = out["transactionStatus"]
        out["transactionStatus"] = TRANSACTION_STATES.get(status, str(status))
    if topic is InternalTopic.CONSUMER_OFFSETS and record_type == 2 and out.get("protocolType") == "consumer":
        for member, raw in zip(out.get("members") or [], fields.get("members") or []):
            member["subscription"] = _consumer_protocol(raw["subscription"], CONSUMER_SUBSCRIPTION)
            member["assignment"] = _consumer_protocol(raw["assignment"], CONSUMER_ASSIGNMENT)
    return out


def coordinator_texts(topic: InternalTopic, rec: Record) -> tuple[str | None, str | None]:
    """``(key text, payload text)`` of one coordinator record, as DumpLogSegments prints them."""
    if rec.key is None:
        raise CorruptInternalRecordError(
            f"Failed to decode message at offset {rec.offset} using the specified decoder "
            "(message had a missing key)", offset=rec.offset)
    try:
        r = decode_coordinator_record(topic, rec.key, rec.value, offset=rec.offset)
    except CorruptInternalRecordError as exc:
        return f"Error at offset {rec.offset}, skipping. {exc}", None
    if not r.known:
        return f"Unknown record type {r.record_type} at offset {rec.offset}, skipping.", None
    assert r.key is not None
    rt = topic.record_types[r.record_type]
    key = codec.dumps({"type": str(r.record_type), "data": codec.to_json_obj(rt.key.fields, 0, r.key)})
    if r.value is None or r.version is None:
        return key, "<DELETE>"
    value = _value_json(topic, r.record_type, r.version, r.value)
    return key, codec.dumps({"version": str(r.version), "data": value})


def metadata_text(rec: Record) -> str:
    """The payload text of one ``__cluster_metadata`` record (metadata records print no key)."""
    try:
        m = decode_metadata_record(rec.value, offset=rec.offset)
    except CorruptInternalRecordError as exc:
        return f"Error at {rec.offset}, skipping. {exc}"
    data = codec.to_json_obj(METADATA_RECORDS[m.api_key].fields, m.version, m.data)
    return codec.dumps({"type": m.type_name, "version": m.version, "data": data})


def remote_log_metadata_text(rec: Record) -> str:
    """The payload text of one ``__remote_log_metadata`` record: the Java object's ``toString``."""
    try:
        r = decode_remote_log_metadata_record(rec.value, offset=rec.offset)
    except CorruptInternalRecordError as exc:
        return f"Error at offset {rec.offset}, skipping. {exc}"
    refused = refusal(r)
    if refused is not None:
        return f"Error at offset {rec.offset}, skipping. {refused[0]}"
    return java_text(r)


def parser_for(topic: InternalTopic) -> Parser:
    """The record → ``(key text, payload text)`` function of one decoder option."""
    if topic is InternalTopic.CLUSTER_METADATA:
        return lambda rec: (None, metadata_text(rec))
    if topic is InternalTopic.REMOTE_LOG_METADATA:
        return lambda rec: (None, remote_log_metadata_text(rec))
    return lambda rec: coordinator_texts(topic, rec)
