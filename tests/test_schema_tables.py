"""What the comparison of kvlog's schema tables with Kafka's own message specs (tests/test_broker_schemas.py,
run with the broker tests, on the specs inside each Kafka version's jars) found and kvlog now does as Kafka
does, tested without the jars."""

from __future__ import annotations

import struct

import pytest

from kvlog.errors import CorruptInternalRecordError
from kvlog.internal_topics.control_records import decode_control_record
from kvlog.records import ControlRecordType


@pytest.mark.parametrize("ctype", [ControlRecordType.ABORT, ControlRecordType.COMMIT])
def test_a_transaction_marker_of_a_negative_version_is_refused(ctype):
    # Kafka's EndTransactionMarker: "Invalid version found for end transaction marker: -1" (checked with
    # Kafka 4.4.0's class); kvlog read it as a marker of version -1
    key = struct.pack(">hh", 0, int(ctype))
    with pytest.raises(CorruptInternalRecordError, match="marker value version -1") as info:
        decode_control_record(key, struct.pack(">hi", -1, 5), partition="t-0", offset=7)
    assert (info.value.field, info.value.partition, info.value.offset) == ("value.version", "t-0", 7)
    with pytest.raises(CorruptInternalRecordError, match="version -32768"):
        decode_control_record(key, struct.pack(">hi", -32768, 5))


@pytest.mark.parametrize("version", [0, 1, 0x7FFF])
def test_a_transaction_marker_of_any_other_version_reads_as_version_0(version):
    r = decode_control_record(struct.pack(">hh", 0, 1), struct.pack(">hi", version, 5) + b"later fields")
    assert (r.type, r.version, r.data) == (ControlRecordType.COMMIT, version,
                                           {"version": version, "coordinatorEpoch": 5})
