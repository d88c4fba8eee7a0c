"""What a record is: ``Record``, its timestamp and control types, and the framing constants.

The bottom of :mod:`kvlog.records`: every other part (decoding, Arrow conversion, batches, encoding)
builds on these and nothing here imports them back.
"""

from __future__ import annotations

import enum
import time
from typing import NamedTuple, Union

from kvlog.errors import ConfigError

NO_TIMESTAMP = -1
V2_HEADER_SIZE = 61
LOG_OVERHEAD = 12
DEFAULT_MAX_BATCH_BYTES = 1 << 20
DEFAULT_RECORDS_PER_BATCH = 16384

BytesLike = Union[bytes, bytearray, memoryview]
Header = tuple[str, Union[bytes, None]]


class TimestampType(enum.IntEnum):
    """KIP-32 timestamp types (``NO_TIMESTAMP_TYPE`` is what magic v0 data reports)."""

    NO_TIMESTAMP_TYPE = -1
    CREATE_TIME = 0
    LOG_APPEND_TIME = 1

    @classmethod
    def parse(cls, value: Union["TimestampType", int, str]) -> "TimestampType":
        if isinstance(value, str):
            key = value.strip().replace("_", "").lower()
            names = {"createtime": cls.CREATE_TIME, "logappendtime": cls.LOG_APPEND_TIME,
                     "notimestamptype": cls.NO_TIMESTAMP_TYPE}
            if key not in names:
                raise ConfigError(f"unknown timestamp type {value!r}; use CreateTime or LogAppendTime")
            return names[key]
        try:
            return cls(int(value))
        except ValueError:
            raise ConfigError(f"unknown timestamp type {value!r}") from None

    @property
    def kafka_name(self) -> str:
        return {-1: "NoTimestampType", 0: "CreateTime", 1: "LogAppendTime"}[int(self)]


class ControlRecordType(enum.IntEnum):
    """Keys of records in control batches (ControlRecordType.java): the transaction markers (ABORT,
    COMMIT) and KRaft's own records, whose values are LeaderChangeMessage, SnapshotHeaderRecord,
    SnapshotFooterRecord, KRaftVersionRecord and VotersRecord
    (:mod:`kvlog.internal_topics.control_records` decodes them)."""

    UNKNOWN = -1
    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6


class Record(NamedTuple):
    """One record. Immutable; ``offset`` is -1 and ``timestamp`` None until it is read from a log."""

    key: bytes | None = None
    value: bytes | None = None
    timestamp: int | None = None
    headers: tuple[Header, ...] = ()
    offset: int = -1
    timestamp_type: TimestampType = TimestampType.CREATE_TIME

    @property
    def control_type(self) -> ControlRecordType:
        """For a record of a control batch: its type, from the 4-byte control key."""
        if self.key is None or len(self.key) < 4 or int.from_bytes(self.key[:2], "big", signed=True) < 0:
            return ControlRecordType.UNKNOWN
        try:
            return ControlRecordType(int.from_bytes(self.key[2:4], "big", signed=True))
        except ValueError:
            return ControlRecordType.UNKNOWN

    @property
    def coordinator_epoch(self) -> int | None:
        """For a COMMIT/ABORT marker: the transaction coordinator epoch from its value."""
        if self.control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
            return None
        if self.value is None or len(self.value) < 6:
            return None
        return int.from_bytes(self.value[2:6], "big", signed=True)


def now_ms() -> int:
    return time.time_ns() // 1_000_000

