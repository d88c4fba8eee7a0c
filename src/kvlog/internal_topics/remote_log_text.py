"""``__remote_log_metadata`` records as Kafka's Java objects print and refuse them.

Kafka's ``kafka-dump-log.sh --remote-log-metadata-decoder`` deserializes each record with
``RemoteLogMetadataSerde`` into a ``RemoteLogSegmentMetadata``, ``RemoteLogSegmentMetadataUpdate``,
``RemotePartitionDeleteMetadata`` or ``RemoteLogSegmentMetadataSnapshot`` and prints its ``toString``
(4.x spelling: the segment metadata ends with ``txnIdxEmpty``). Uuids print as base64url, a
``TopicIdPartition`` as ``<topic id>:<topic>-<partition>``, the custom metadata as
``Optional[CustomMetadata{N bytes}]`` or ``Optional.empty``, the leader epochs as a sorted Java map
(``{0=0, 3=150}``). Deserializing also runs the objects' constructors, which refuse some field values
(:func:`refusal`); the dump then prints the refusal, and the broker's metadata consumer stops.
"""

from __future__ import annotations

from typing import Any

from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.decoders import RemoteLogMetadataRecord
from kvlog.internal_topics.schemas_remote import PARTITION_DELETE_STATES, SEGMENT_STATES

__all__ = ["java_text", "refusal"]


def refusal(r: RemoteLogMetadataRecord) -> tuple[str, str] | None:
    """``(Kafka's exception message, field)`` when the Java constructors refuse this record, else None.

    The checks run in the constructors' order; a missing state is Java's ``NullPointerException``
    (``state can not be null``, or no message at all for a partition delete, printed ``null``).
    """
    d = r.data
    if r.api_key == 2:
        if d["remotePartitionDeleteState"] not in PARTITION_DELETE_STATES:
            return "null", "data.remotePartitionDeleteState"
        return None
    if r.api_key == 0:
        start, end = d["startOffset"], d["endOffset"]
        if start < 0:
            return (f"Unexpected start offset = {start}. StartOffset for a remote segment cannot be negative",
                    "data.startOffset")
        if end < start:
            return (f"Unexpected end offset = {end}. EndOffset for a remote segment cannot be less than "
                    f"startOffset = {start}", "data.endOffset")
    checks = [_epochs_given, _state_given]
    if r.api_key == 3:  # the snapshot's constructor checks the state first
        checks.reverse()
    elif r.api_key == 1:
        checks = [_state_given]
    for check in checks:
        found = check(d)
        if found is not None:
            return found
    return None


def _epochs_given(d: dict[str, Any]) -> tuple[str, str] | None:
    if not d["segmentLeaderEpochs"]:
        return "segmentLeaderEpochs can not be null or empty", "data.segmentLeaderEpochs"
    return None


def _state_given(d: dict[str, Any]) -> tuple[str, str] | None:
    if d["remoteLogSegmentState"] not in SEGMENT_STATES:
        return "state can not be null", "data.remoteLogSegmentState"
    return None


def _custom(value: bytes | None) -> str:
    return "Optional.empty" if value is None else f"Optional[CustomMetadata{{{len(value)} bytes}}]"


def _epochs(entries: list[dict[str, Any]]) -> str:
    epochs: dict[int, int] = {}
    for e in entries:  # a HashMap first: a repeated epoch keeps its last offset
        epochs[e["leaderEpoch"]] = e["offset"]
    return "{" + ", ".join(f"{k}={v}" for k, v in sorted(epochs.items())) + "}"


def _tip(t: dict[str, Any]) -> str:
    return f"{topic_id_text(t['id'])}:{t['name']}-{t['partition']}"


def _segment_id(s: dict[str, Any]) -> str:
    return f"RemoteLogSegmentId{{topicIdPartition={_tip(s['topicIdPartition'])}, id={topic_id_text(s['id'])}}}"


def _bool(b: bool) -> str:
    return "true" if b else "false"


def java_text(r: RemoteLogMetadataRecord) -> str:
    """The ``toString`` of the object Kafka deserializes ``r`` into (call :func:`refusal` first)."""
    d = r.data
    if r.api_key == 0:
        return (f"RemoteLogSegmentMetadata{{remoteLogSegmentId={_segment_id(d['remoteLogSegmentId'])}, "
                f"startOffset={d['startOffset']}, endOffset={d['endOffset']}, brokerId={d['brokerId']}, "
                f"maxTimestampMs={d['maxTimestampMs']}, eventTimestampMs={d['eventTimestampMs']}, "
                f"segmentLeaderEpochs={_epochs(d['segmentLeaderEpochs'])}, "
                f"segmentSizeInBytes={d['segmentSizeInBytes']}, customMetadata={_custom(d['customMetadata'])}, "
                f"state={SEGMENT_STATES[d['remoteLogSegmentState']]}, "
                f"txnIdxEmpty={_bool(d.get('txnIndexEmpty', False))}}}")
    if r.api_key == 1:
        return (f"RemoteLogSegmentMetadataUpdate{{remoteLogSegmentId={_segment_id(d['remoteLogSegmentId'])}, "
                f"customMetadata={_custom(d['customMetadata'])}, "
                f"state={SEGMENT_STATES[d['remoteLogSegmentState']]}, "
                f"eventTimestampMs={d['eventTimestampMs']}, brokerId={d['brokerId']}}}")
    if r.api_key == 2:
        return (f"RemotePartitionDeleteMetadata{{topicPartition={_tip(d['topicIdPartition'])}, "
                f"state={PARTITION_DELETE_STATES[d['remotePartitionDeleteState']]}, "
                f"eventTimestampMs={d['eventTimestampMs']}, brokerId={d['brokerId']}}}")
    return (f"RemoteLogSegmentMetadataSnapshot{{segmentId={topic_id_text(d['segmentId'])}, "
            f"startOffset={d['startOffset']}, endOffset={d['endOffset']}, "
            f"maxTimestampMs={d['maxTimestampMs']}, segmentLeaderEpochs={_epochs(d['segmentLeaderEpochs'])}, "
            f"segmentSizeInBytes={d['segmentSizeInBytes']}, customMetadata={_custom(d['customMetadata'])}, "
            f"state={SEGMENT_STATES[d['remoteLogSegmentState']]}}}")
