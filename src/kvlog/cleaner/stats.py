"""What a cleaning pass reports, the Kafka release whose cleaner rules apply, and the KIP-280 header version."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kvlog.errors import ConfigError

__all__ = ["CleanerStats", "INT32_MAX", "KAFKA_VERSION", "LONG_MIN", "header_version", "parse_kafka_version"]

LONG_MIN = -(2**63)
INT32_MAX = 2**31 - 1

#: The Kafka release whose cleaner ``LogCleaner`` follows by default (``kafka_version``): the newest the broker
#: tests run. The rules that differ by version are the magic legacy (v0/v1) batches are rewritten in and
#: which emptied batch a pass keeps to hold the log end offset (docs/compaction.md, "Kafka versions").
KAFKA_VERSION = "4.4"


def parse_kafka_version(text: str) -> tuple[int, int]:
    """``"major.minor"`` (a patch part is ignored) of a Kafka release from 3.1 on."""
    if not isinstance(text, str):
        raise TypeError(f"kafka_version takes a version string such as '4.4', not {type(text).__name__}")
    parts = text.strip().split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ConfigError(f"kafka_version must look like '4.4' or '3.7.2', not {text!r}") from None
    if (major, minor) < (3, 1):
        raise ConfigError(
            f"kafka_version {text}: kvlog's cleaner stamps tombstone and marker batches with a delete horizon "
            "(KIP-534, Kafka 3.1); brokers and clients before 3.1 read that field as the batch's first timestamp, "
            "so it cannot clean logs for them")
    return major, minor


@dataclass
class CleanerStats:
    """What one cleaning pass did (the figures of Kafka's cleaner summary)."""

    log: str = ""
    first_dirty_offset: int = 0
    end_offset: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    records_read: int = 0
    records_retained: int = 0
    tombstones_removed: int = 0
    batches_copied_verbatim: int = 0
    batches_rebuilt: int = 0
    segments_before: int = 0
    segments_after: int = 0
    map_entries: int = 0
    map_utilization: float = 0.0
    malformed_versions: int = 0
    dirty_ratio_before: float = 0.0
    dirty_ratio_after: float = 0.0
    elapsed_s: float = 0.0
    map_full: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def mb_per_s(self) -> float:
        return (self.bytes_read + self.bytes_written) / 1e6 / self.elapsed_s if self.elapsed_s else 0.0

    def summary(self) -> str:
        return (f"cleaned {self.log} offsets {self.first_dirty_offset}..{self.end_offset}: "
                f"read {self.bytes_read:,} B ({self.records_read:,} records), wrote {self.bytes_written:,} B "
                f"({self.records_retained:,} records), {self.segments_before} -> {self.segments_after} segments, "
                f"{self.elapsed_s:.3f} s ({self.mb_per_s:.1f} MB/s), map {self.map_entries:,} keys "
                f"({self.map_utilization:.1%} full), dirty ratio {self.dirty_ratio_before:.2f} -> "
                f"{self.dirty_ratio_after:.2f}")


def header_version(headers: Any, name: str) -> tuple[int, bool]:
    """KIP-280 ``header`` strategy: the last occurrence of header ``name`` as an 8-byte big-endian long.

    Returns ``(version, malformed)``. An absent header gives the lowest version (so any present value
    wins); a value that is not exactly 8 bytes counts as absent and is reported as malformed.
    """
    found = None
    for k, v in headers or ():
        if k == name:
            found = v
    if found is None:
        return LONG_MIN, False
    if len(found) != 8:
        return LONG_MIN, True
    return int.from_bytes(found, "big", signed=True), False
