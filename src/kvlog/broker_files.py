"""The two small files a Kafka broker keeps in every partition directory, beside the segments.

``partition.metadata`` names the topic the directory belongs to by its topic id (Kafka's
``PartitionMetadataFile``)::

    version: 0
    topic_id: <16 bytes in unpadded base64url, 22 characters>

Kafka writes exactly those two lines, the second without a line end; its reader
(``PartitionMetadataReadBuffer``) needs ``<key>:`` followed by white space on each, a version of at least
0, and a topic id that decodes to 16 bytes and is not the all-zero id. Anything after the second line is
ignored.

``leader-epoch-checkpoint`` is Kafka's text checkpoint of ``LeaderEpochFileCache``: ``0``, the entry
count, then ``<epoch> <start offset>`` per line, epochs and start offsets increasing. Each entry says
from which offset on the batches carry that partition leader epoch. :class:`LeaderEpochCache` applies
Kafka's rules for keeping it (assign, truncate from the end and from the start, clear).

Both files are replaced atomically (temporary file, fsync, rename, directory fsync), as Kafka does.
Topic ids are strings in Kafka's form (``Uuid.toString``) everywhere in kvlog.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import uuid
from collections.abc import Iterable

import numpy as np

from kvlog import _io
from kvlog.checkpoint import CorruptCheckpointError
from kvlog.errors import CorruptPartitionMetadataError, StorageError

__all__ = [
    "PARTITION_METADATA", "LEADER_EPOCH_CHECKPOINT", "METADATA_TOPIC_ID", "ZERO_TOPIC_ID", "NO_TOPIC_ID",
    "new_topic_id", "parse_topic_id", "read_partition_metadata", "write_partition_metadata",
    "format_partition_metadata", "parse_partition_metadata", "read_leader_epochs", "parse_leader_epochs",
    "write_leader_epochs", "format_leader_epochs", "LeaderEpochCache",
]

PARTITION_METADATA = "partition.metadata"
LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
#: Kafka's reserved ids (``Uuid.ZERO_UUID``; ``Uuid.METADATA_TOPIC_ID``, the KRaft ``__cluster_metadata``'s)
ZERO_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"
METADATA_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"
#: ``Log.open(topic_id=NO_TOPIC_ID)``: write no ``partition.metadata`` where there is none. For a log meant for a
#: cluster whose id for the topic is not known yet: a broker sets aside a log without an id, and one with an id
#: its metadata does not know, alike; only the first can still be given the right id later.
NO_TOPIC_ID = ""
_ID_TEXT = re.compile(r"[A-Za-z0-9_-]{22}(==)?")
_VERSION = 0


def _id_text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def new_topic_id() -> str:
    """A random topic id as Kafka's ``Uuid.randomUuid`` makes one: a version-4 UUID, never a reserved id and
    never one whose text starts with ``-`` (which command-line tools would read as an option)."""
    while True:
        text = _id_text(uuid.uuid4().bytes)
        if text not in (ZERO_TOPIC_ID, METADATA_TOPIC_ID) and not text.startswith("-"):
            return text


def parse_topic_id(text: str, where: str = "topic id") -> str:
    """``text`` checked as Kafka's ``Uuid.fromString`` checks it (base64url of 16 bytes, padding optional),
    and not the all-zero id; returns the canonical 22-character form. ``where`` names the source in the
    ``CorruptPartitionMetadataError`` raised otherwise."""
    if not isinstance(text, str) or not _ID_TEXT.fullmatch(text):
        raise CorruptPartitionMetadataError(
            f"{where}: {text!r:.60} is not a topic id (22 base64url characters, Kafka's Uuid text)")
    try:
        raw = base64.urlsafe_b64decode(text[:22] + "==")
    except (binascii.Error, ValueError):  # pragma: no cover - the pattern admits only decodable text
        raise CorruptPartitionMetadataError(f"{where}: {text!r} does not decode as base64url") from None
    canonical = _id_text(raw)
    if canonical == ZERO_TOPIC_ID:
        raise CorruptPartitionMetadataError(f"{where}: the all-zero topic id is Kafka's 'no id', not a topic's")
    return canonical


# ------------------------------------------------------------------------------ partition.metadata
def parse_properties(text: str) -> dict[str, str]:
    """A Java properties file's ``key=value`` lines (``meta.properties``), comments left out."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith(("#", "!")):
            out[key.strip()] = value.strip()
    return out


def format_partition_metadata(topic_id: str) -> bytes:
    """The file's bytes as Kafka writes them (``PartitionMetadata.encode``: no line end after the id)."""
    return f"version: {_VERSION}\ntopic_id: {parse_topic_id(topic_id)}".encode("ascii")


def parse_partition_metadata(data: bytes, path: str) -> str:
    """The topic id in ``partition.metadata`` bytes (``path`` names the file in errors), as Kafka reads it."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptPartitionMetadataError(f"{path}: not UTF-8 text") from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    values = []
    for i, key in enumerate(("version", "topic_id")):
        line = lines[i] if i < len(lines) else None
        m = re.fullmatch(r"([^:]*):\s+(.*)", line, re.S) if line is not None else None
        if m is None or m.group(1) != key:
            raise CorruptPartitionMetadataError(
                f"{path}: line {i + 1} should be '{key}: <value>', found {line!r:.80}" if line is not None
                else f"{path}: no '{key}:' line")
        values.append(m.group(2))
    try:
        version = int(values[0])
    except ValueError:
        raise CorruptPartitionMetadataError(f"{path}: version {values[0]!r:.40} is not an integer") from None
    if version < _VERSION:
        raise CorruptPartitionMetadataError(f"{path}: unknown version {version}")
    return parse_topic_id(values[1], path)


def read_partition_metadata(directory: str) -> str | None:
    """The topic id in ``directory``'s ``partition.metadata``, or None when there is no such file, or when it
    holds no bytes or only zero bytes (what a crash leaves of a write whose data never reached the disk: it
    claims no id, and a writer writes the file again).

    Any other file Kafka's reader would refuse raises ``CorruptPartitionMetadataError`` naming it.
    """
    path = os.path.join(directory, PARTITION_METADATA)
    try:
        data = _io.fs.read_file(path)
    except FileNotFoundError:
        return None
    except StorageError:
        raise
    except OSError as exc:
        raise CorruptPartitionMetadataError(f"cannot read {path}: {exc}") from None
    return parse_partition_metadata(data, path) if data.strip(b"\0") else None


def write_partition_metadata(directory: str, topic_id: str) -> None:
    """Write ``directory``'s ``partition.metadata`` for ``topic_id``, atomically."""
    _io.fs.write_atomic(os.path.join(directory, PARTITION_METADATA), format_partition_metadata(topic_id))


# ------------------------------------------------------------------------- leader-epoch-checkpoint
def format_leader_epochs(entries: Iterable[tuple[int, int]]) -> bytes:
    """A leader-epoch-checkpoint's bytes for ``entries`` (``(epoch, start offset)``, in order)."""
    rows = [f"{int(e)} {int(s)}" for e, s in entries]
    return ("\n".join([str(_VERSION), str(len(rows)), *rows]) + "\n").encode("ascii")


def read_leader_epochs(path: str) -> list[tuple[int, int]]:
    """The ``(epoch, start offset)`` entries of the leader-epoch-checkpoint at ``path``; empty when the file
    is absent or empty (Kafka's checkpoint reader reads a 0-byte file as no entries).

    A file that breaks the format (version, count, ``<epoch> <offset>`` lines, epochs and start offsets
    increasing, none negative) raises ``CorruptCheckpointError`` naming it and the line.
    """
    try:
        data = _io.fs.read_file(path)
    except FileNotFoundError:
        return []
    except StorageError:
        raise
    except OSError as exc:
        raise CorruptCheckpointError(f"cannot read {path}: {exc}") from None
    return parse_leader_epochs(data, path)


def parse_leader_epochs(data: bytes, path: str) -> list[tuple[int, int]]:
    """:func:`read_leader_epochs` of a checkpoint's bytes (``path`` names the file in errors)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CorruptCheckpointError(f"{path}: not UTF-8 text") from None
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    try:
        version, count = int(lines[0]), int(lines[1])
    except (IndexError, ValueError):
        raise CorruptCheckpointError(f"{path}: malformed header (expected a version line and an entry "
                                     "count)") from None
    if version != _VERSION:
        raise CorruptCheckpointError(f"{path}: unknown checkpoint version {version}")
    if len(lines) - 2 != count:
        raise CorruptCheckpointError(f"{path}: header says {count} entries, found {len(lines) - 2}")
    out: list[tuple[int, int]] = []
    for i, line in enumerate(lines[2:], start=3):
        parts = line.split()
        if len(parts) != 2:
            raise CorruptCheckpointError(f"{path}: line {i} is not '<epoch> <start offset>'")
        try:
            epoch, start = int(parts[0]), int(parts[1])
        except ValueError:
            raise CorruptCheckpointError(f"{path}: line {i} has a non-integer field") from None
        if epoch < 0 or start < 0 or epoch > 2**31 - 1:
            raise CorruptCheckpointError(f"{path}: line {i}: epoch {epoch} at offset {start} is out of range")
        if out and (epoch <= out[-1][0] or start <= out[-1][1]):
            raise CorruptCheckpointError(f"{path}: line {i}: epoch {epoch} at offset {start} does not follow "
                                         f"epoch {out[-1][0]} at offset {out[-1][1]}")
        out.append((epoch, start))
    return out


def write_leader_epochs(path: str, entries: Iterable[tuple[int, int]]) -> None:
    """Replace the leader-epoch-checkpoint at ``path`` with ``entries``, atomically."""
    _io.fs.write_atomic(path, format_leader_epochs(entries))


class LeaderEpochCache:
    """Kafka's ``LeaderEpochFileCache`` rules over a list of ``(epoch, start offset)`` entries.

    The methods change the entries only and say whether they did; writing the file is the owner's job
    (a ``Log`` writes it at once on every change, as Kafka's ``assign`` does).
    """

    __slots__ = ("entries",)

    def __init__(self, entries: Iterable[tuple[int, int]] = ()):
        self.entries: list[tuple[int, int]] = []
        for e, s in entries:
            self.assign(e, s)

    @property
    def latest_epoch(self) -> int:
        """The newest epoch, -1 when there is none."""
        return self.entries[-1][0] if self.entries else -1

    def assign(self, epoch: int, start_offset: int) -> bool:
        """Record that ``epoch`` starts at ``start_offset``: entries that would break the order (an epoch at
        or above it, or a start at or after it) go first, as Kafka's ``assign`` does."""
        if epoch < 0 or start_offset < 0:
            raise ValueError(f"invalid leader epoch entry ({epoch}, {start_offset})")
        es = self.entries
        if es and es[-1][0] == epoch and es[-1][1] <= start_offset:
            return False
        while es and (es[-1][0] >= epoch or es[-1][1] >= start_offset):
            es.pop()
        es.append((epoch, start_offset))
        return True

    def apply_batch(self, magic: int, epoch: int, base_offset: int) -> bool:
        """Take in one appended batch (its magic, partition leader epoch and base offset).

        A v2 batch whose epoch is newer than the latest starts that epoch at its base offset (the rule
        ``LogSegment.recover`` applies; an epoch of -1, "unknown", never counts). A v0/v1 batch carries no
        epoch: Kafka's append clears the cache when one arrives (a message format downgrade), and so does
        this. Returns whether anything changed.
        """
        if magic < 2:
            return self.clear()
        if epoch > self.latest_epoch:
            return self.assign(epoch, base_offset)
        return False

    def apply_batches(self, magic: np.ndarray, epochs: np.ndarray, bases: np.ndarray) -> bool:
        """:meth:`apply_batch` for each batch, in order (columns of batch header rows)."""
        changed = False
        for m, e, b in zip(magic.tolist(), epochs.tolist(), bases.tolist()):
            changed |= self.apply_batch(m, e, b)
        return changed

    def truncate_from_end(self, end_offset: int) -> bool:
        """Drop the entries starting at or after ``end_offset`` (the log was cut there)."""
        es = self.entries
        n = len(es)
        while es and es[-1][1] >= end_offset >= 0:
            es.pop()
        return len(es) != n

    def truncate_from_start(self, start_offset: int) -> bool:
        """The log now starts at ``start_offset``: entries starting at or before it go, and the last of them
        comes back starting at ``start_offset`` (so an entry at exactly that offset stays)."""
        es = self.entries
        k = 0
        while k < len(es) and es[k][1] <= start_offset:
            k += 1
        if not k:
            return False
        kept = (es[k - 1][0], start_offset)
        changed = k > 1 or es[0] != kept
        es[:k] = [kept]
        return changed

    def clear(self) -> bool:
        changed = bool(self.entries)
        self.entries.clear()
        return changed

    def epoch_for_offset(self, offset: int) -> int | None:
        """The epoch of ``offset`` by the entries (the last starting at or before it), None before the first."""
        found = None
        for e, s in self.entries:
            if s > offset:
                break
            found = e
        return found
