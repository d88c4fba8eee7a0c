"""The seam between a tiered view of a partition and a remote storage manager's layout (KIP-405).

A broker's ``RemoteStorageManager`` plugin decides where a copied segment's bytes live and how they are
framed; ``__remote_log_metadata`` only says which segments exist (:class:`RemoteSegment`). A layout here
is a :class:`RemoteStorage`: given a segment, it returns :class:`RemoteSegmentFiles`, the segment's
``.log`` as a ranged file (the bytes Kafka wrote, whatever chunking, compression or encryption the
plugin applied) and its indexes as bytes. Everything above this seam (segment reads, index searches,
transaction indexes) is kvlog's ordinary read path over a virtual directory (:mod:`kvlog.tiered.virtual`).

Fields of :class:`RemoteSegment` come from the broker's metadata, outside any checksum of the segment's
bytes: the view cross-checks them against the segment it reads (first and last offset) and says which
object disagrees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kvlog.object_store import ReadStats
    from kvlog.storage import RangedFile

__all__ = ["RemoteSegment", "RemoteSegmentFiles", "RemoteStorage", "INDEX_KINDS", "BytesFile"]

#: the index files a remote segment carries, by Kafka's ``RemoteStorageManager.IndexType`` (lower case)
INDEX_KINDS = ("offset", "timestamp", "transaction", "producer_snapshot", "leader_epoch")


@dataclass(frozen=True)
class RemoteSegment:
    """One remote segment as ``__remote_log_metadata`` describes it (a row of
    :func:`kvlog.remote_log_metadata`). ``topic_id`` and ``segment_id`` are Kafka's text form of a
    ``Uuid`` (base64url without padding)."""

    topic: str
    topic_id: str
    partition: int
    segment_id: str
    start_offset: int
    end_offset: int
    max_timestamp: int = -1
    segment_size: int = -1
    leader_epochs: tuple[tuple[int, int], ...] = ()
    txn_index_empty: bool = False
    custom_metadata: bytes | None = None
    broker_id: int = -1
    event_timestamp: int = -1

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "RemoteSegment":
        """From a row of :func:`kvlog.remote_log_metadata` (``Table.to_pylist()``)."""
        return cls(topic=row["topic"], topic_id=row["topic_id"], partition=int(row["partition"]),
                   segment_id=row["segment_id"], start_offset=int(row["start_offset"]),
                   end_offset=int(row["end_offset"]), max_timestamp=int(row["max_timestamp"]),
                   segment_size=int(row["segment_size"]),
                   leader_epochs=tuple((int(e), int(o)) for e, o in (row["leader_epochs"] or [])),
                   txn_index_empty=bool(row["txn_index_empty"]), custom_metadata=row.get("custom_metadata"),
                   broker_id=int(row.get("broker_id", -1)), event_timestamp=int(row.get("event_timestamp", -1)))

    def __str__(self) -> str:
        return (f"remote segment {self.segment_id} of {self.topic}-{self.partition} "
                f"[{self.start_offset}, {self.end_offset}]")


class RemoteSegmentFiles(Protocol):
    """One remote segment's objects, opened: what the view reads of it. Objects fetched once (a
    manifest, an indexes object) are kept here for the segment's lifetime."""

    segment: RemoteSegment

    def log_object(self) -> str:
        """The name of the object holding the ``.log`` bytes (credentials and query removed), for errors."""
        ...

    def log_size(self) -> int:
        """The ``.log``'s length as Kafka wrote it (before any chunking, compression or encryption)."""
        ...

    def open_log(self) -> "RangedFile":
        """The ``.log``'s bytes as Kafka wrote them, read in ranges."""
        ...

    def index(self, kind: str) -> bytes | None:
        """One of :data:`INDEX_KINDS`, whole, or None when the segment has none (no transaction index)."""
        ...


class RemoteStorage(Protocol):
    """A remote storage manager's layout, read side."""

    #: a short name for messages ("LocalTieredStorage", "aiven")
    name: str

    def segment_files(self, segment: RemoteSegment) -> RemoteSegmentFiles:
        """The segment's objects. Cheap: nothing is fetched until a method of the result needs it."""
        ...

    def stats(self) -> "ReadStats":
        """Requests made so far (all threads), as :class:`kvlog.object_store.ReadStats`."""
        ...


@dataclass
class BytesFile:
    """A :class:`kvlog.storage.RangedFile` over bytes already in memory (an index taken from an object)."""

    path: str
    data: bytes
    mtime_ms: int = 0
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = len(self.data)

    def pread(self, size: int, offset: int) -> bytes:
        return bytes(self.data[offset:offset + size])

    def read_block(self, size: int, offset: int) -> memoryview:
        return memoryview(self.data)[offset:offset + size]

    def readinto(self, view: memoryview, offset: int) -> int:
        got = self.data[offset:offset + len(view)]
        view[:len(got)] = got
        return len(got)

    def will_need(self, offset: int, size: int) -> None:
        return None

    def close(self) -> None:
        return None
