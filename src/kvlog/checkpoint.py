"""Kafka's text checkpoint files: ``version``, ``count``, then one entry per line.

Used for ``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint`` and
``cleaner-offset-checkpoint`` (entries ``<topic> <partition> <offset>``) and ``leader-epoch-checkpoint``
(entries ``<epoch> <start offset>``). Written atomically; a damaged file raises ``CorruptCheckpointError``
so callers can fall back the way Kafka does (full recovery from offset 0).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from kvlog import _io
from kvlog.storage import is_remote
from kvlog.errors import KvlogError, StorageError

__all__ = ["CorruptCheckpointError", "read_offsets", "read_offsets_cached", "parse_offsets", "write_offsets", "update_offsets",
           "RECOVERY_POINT", "LOG_START_OFFSET", "CLEANER_OFFSET", "REPLICATION_OFFSET"]

RECOVERY_POINT = "recovery-point-offset-checkpoint"
LOG_START_OFFSET = "log-start-offset-checkpoint"
CLEANER_OFFSET = "cleaner-offset-checkpoint"
REPLICATION_OFFSET = "replication-offset-checkpoint"
VERSION = 0


class CorruptCheckpointError(KvlogError, ValueError):
    """A checkpoint file that does not follow the format (wrong version, count or entry)."""


def read_offsets(path: str) -> dict[tuple[str, int], int]:
    """``{(topic, partition): offset}``; an absent file, or an empty one, is empty.

    Kafka's checkpoint reader (``CheckpointFile.CheckpointReadBuffer.read``) returns no entries when the
    file has no first line, and brokers do leave 0-byte checkpoints behind (a ``cleaner-offset-checkpoint``
    of a broker that never cleaned); a version line without a count is still malformed.
    """
    try:
        text = _io.fs.read_file(path).decode("utf-8")
    except FileNotFoundError:
        return {}
    except StorageError:
        raise  # an object store's failure is not a damaged checkpoint
    except (OSError, UnicodeDecodeError) as exc:
        raise CorruptCheckpointError(f"cannot read checkpoint {path}: {exc}") from None
    return _parse(text, path)


def parse_offsets(data: bytes, path: str) -> dict[tuple[str, int], int]:
    """:func:`read_offsets` of a checkpoint's bytes (``path`` names them in errors)."""
    try:
        return _parse(data.decode("utf-8"), path)
    except UnicodeDecodeError as exc:
        raise CorruptCheckpointError(f"cannot read checkpoint {path}: {exc}") from None


def _parse(text: str, path: str) -> dict[tuple[str, int], int]:
    if not text:
        return {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        version = int(lines[0])
        count = int(lines[1])
    except (IndexError, ValueError):
        raise CorruptCheckpointError(f"checkpoint {path}: malformed header") from None
    if version != VERSION:
        raise CorruptCheckpointError(f"checkpoint {path}: unknown version {version}")
    entries = lines[2:]
    if len(entries) != count:
        raise CorruptCheckpointError(f"checkpoint {path}: header says {count} entries, found {len(entries)}")
    out: dict[tuple[str, int], int] = {}
    for i, line in enumerate(entries):
        parts = line.split()
        if len(parts) != 3:
            raise CorruptCheckpointError(f"checkpoint {path}: line {i + 3} is not '<topic> <partition> <offset>'")
        try:
            out[(parts[0], int(parts[1]))] = int(parts[2])
        except ValueError:
            raise CorruptCheckpointError(f"checkpoint {path}: line {i + 3} has a non-integer field") from None
    return out


_CACHE: OrderedDict[str, tuple[tuple[int, int, int, int], dict[tuple[str, int], int]]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 64


def read_offsets_cached(path: str) -> dict[tuple[str, int], int]:
    """:func:`read_offsets` of a local file, parsed once while its inode, size and times stay the same (a
    broker's root checkpoints list every partition, and each of its logs opened reads them: without this a
    directory of N partitions parses N² lines). The caller must not change the returned table. Object-store
    paths are read each time."""
    if is_remote(path):
        return read_offsets(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError:
        return read_offsets(path)  # (raises the reader's error)
    sig = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _CACHE_LOCK:
        hit = _CACHE.get(path)
        if hit is not None and hit[0] == sig:
            _CACHE.move_to_end(path)
            return hit[1]
    table = read_offsets(path)
    with _CACHE_LOCK:
        _CACHE[path] = (sig, table)
        _CACHE.move_to_end(path)
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return table


def write_offsets(path: str, offsets: dict[tuple[str, int], int]) -> None:
    lines = [str(VERSION), str(len(offsets))]
    lines += [f"{topic} {partition} {offset}" for (topic, partition), offset in sorted(offsets.items())]
    _io.fs.write_atomic(path, ("\n".join(lines) + "\n").encode())


def update_offsets(path: str, changes: dict[tuple[str, int], int | None]) -> None:
    """Read-modify-write: set (or, with None, remove) entries, keeping the others."""
    try:
        current = read_offsets(path)
    except CorruptCheckpointError:
        current = {}
    for key, value in changes.items():
        if value is None:
            current.pop(key, None)
        else:
            current[key] = value
    write_offsets(path, current)


def exists(path: str) -> bool:
    return _io.fs.exists(path)
