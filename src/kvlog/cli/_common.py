"""Helpers every ``kvlog`` command shares: output, argument types, partition discovery, index files."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import re
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from kvlog import _files, _io, storage
from kvlog.config import LogConfig
from kvlog.errors import ConfigError, CorruptRecordError, DirectoryNotFoundError, KvlogError
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP
from kvlog.records import MemoryRecords, RecordBatch

INT32_MAX = 2**31 - 1
DUMP_CHUNK = 8 << 20
DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024
MAX_REPORTED = 20  # problems of one kind reported per file before summarising


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun}es" if noun.endswith("ch") else f"{n} {noun}s"


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")


def _err(line: str) -> None:
    sys.stderr.write(line + "\n")


def _open_read(path: str) -> int:
    """A descriptor to read ``path``: a local file as named (a symlink is followed, as Kafka's tool
    does), an object of a remote URI through kvlog's storage seam."""
    if storage.is_remote(path):
        return _io.fs.open(storage.normalize(path), os.O_RDONLY)
    return os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))


def _base_offset_of(path: str) -> int:
    head = os.path.basename(path).split(".")[0]
    try:
        return int(head)
    except ValueError:
        raise KvlogError(f"cannot read a base offset from the file name {os.path.basename(path)!r}") from None


def _iter_file_batches(fd: int, limit: int, start: int = 0, chunk: int = DUMP_CHUNK,
                       path: str | None = None) -> Iterator[tuple[int, RecordBatch]]:
    """``(position, batch)`` for the batches in ``[start, limit)`` of a file, read a chunk at a time.

    Stops silently at a trailing partial batch (Kafka's file iterator does); raises
    ``CorruptRecordError`` (positioned in the file) at structural damage.
    """
    pos = start
    while pos < limit:
        want = min(chunk, limit - pos)
        data = _io.fs.pread(fd, want, pos)
        if not data:
            return
        consumed = 0
        try:
            for b in MemoryRecords(data).batches():
                yield pos + b.position, b
                consumed = b.position + b.size_in_bytes
        except CorruptRecordError as exc:
            raise exc.with_context(file=path, base_position=pos) from None
        if consumed:
            pos += consumed
            continue
        if len(data) >= limit - pos:
            return  # what is left is an incomplete batch
        head = _io.fs.pread(fd, 12, pos)
        need = 12 + int.from_bytes(head[8:12], "big", signed=True) if len(head) == 12 else 0
        if need <= len(data) or pos + need > limit:
            return
        # one batch larger than the chunk: read it whole
        data = _io.fs.pread(fd, need, pos)
        try:
            for b in MemoryRecords(data).batches():
                yield pos + b.position, b
                consumed = b.position + b.size_in_bytes
        except CorruptRecordError as exc:
            raise exc.with_context(file=path, base_position=pos) from None
        if not consumed:
            return
        pos += consumed


_OFFSET_ENTRY = np.dtype([("rel", ">i4"), ("position", ">i4")])
_TIME_ENTRY = np.dtype([("timestamp", ">i8"), ("rel", ">i4")])


def _read_entries(path: str, dtype: np.dtype) -> tuple[np.ndarray, int]:
    """Every entry Kafka would believe (``file length // entry size``) and the file length.

    Read with plain reads, never mapped: a broker or kvlog writer may trim the file of an active segment
    at any moment, and a mapped page past the new end would kill this read-only tool with SIGBUS.
    """
    data = _io.fs.read_file(path)
    whole = len(data) - len(data) % dtype.itemsize
    return np.frombuffer(data[:whole], dtype=dtype), len(data)


def read_offset_index(path: str, base: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(offsets, positions, file length)`` of every entry of a ``.index`` file (int64 arrays)."""
    raw, length = _read_entries(path, _OFFSET_ENTRY)
    return base + raw["rel"].astype(np.int64), raw["position"].astype(np.int64), length


def read_time_index(path: str, base: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(timestamps, offsets, file length)`` of every entry of a ``.timeindex`` file (int64 arrays)."""
    raw, length = _read_entries(path, _TIME_ENTRY)
    return raw["timestamp"].astype(np.int64), base + raw["rel"].astype(np.int64), length


def _index_cut(offsets: np.ndarray, base: int) -> int:
    """DumpLogSegments' end of an index: the first entry after the first one that holds the base offset."""
    hits = np.flatnonzero(offsets[1:] == base)
    return int(hits[0]) + 1 if len(hits) else len(offsets)


def _is_partition_dir(path: str) -> bool:
    """True for a partition directory, False for a data directory holding partition directories;
    ``DirectoryNotFoundError`` ("no Kafka partitions found") for anything else (``kvlog verify /etc``)."""
    names = _io.fs.listdir(path)
    if any(n.endswith(_files.LOG) and _files.is_offset_name(n) for n in names):
        return True
    found, skipped = _files.partition_dirs(path)
    if found:
        return False
    if _files.parse_partition_dir(path) is not None and _files.looks_like_partition(names):
        return True
    also = (f"; {', '.join(skipped[:5])}{', …' if len(skipped) > 5 else ''} "
            f"{'is' if len(skipped) == 1 else 'are'} named like partitions but hold no Kafka partition files"
            if skipped else "")
    raise DirectoryNotFoundError(f"no Kafka partitions found in {path}: it holds neither log segments nor "
                                 f"<topic>-<partition> directories with Kafka partition files{also}")


def _partitions(path: str) -> tuple[bool, list[tuple[str, str | None, int | None]]]:
    """(is one partition, [(path, topic, partition)]) for a partition directory or a data directory."""
    path = storage.normalize(path)
    if not _io.fs.isdir(path):
        raise DirectoryNotFoundError(f"no such directory: {path}")
    if _is_partition_dir(path):
        tp = _files.parse_partition_dir(path)
        return True, [(path, tp[0] if tp else None, tp[1] if tp else None)]
    found = _files.partition_dirs(path)[0]
    return False, [(full, t, p) for (t, p), full in sorted(found.items())]


_SPECIAL = {"earliest": EARLIEST, "latest": LATEST, "max": MAX_TIMESTAMP, "max-timestamp": MAX_TIMESTAMP}


def parse_timestamp(text: str, *, special: bool = True) -> int:
    """Epoch milliseconds, an ISO-8601 time (naive means UTC) or, with ``special``, earliest/latest/max."""
    s = text.strip()
    if special and s.lower() in _SPECIAL:
        return _SPECIAL[s.lower()]
    if re.fullmatch(r"-?\d+", s):
        value = int(s)
        if value < 0 and not (special and value in (EARLIEST, LATEST, MAX_TIMESTAMP)):
            raise ConfigError(f"invalid timestamp {value}")
        return value
    iso = s[:-1] + "+00:00" if s[-1:] in ("Z", "z") else s
    # Python 3.10's fromisoformat wants 3 or 6 fraction digits
    iso = re.sub(r"(T\d\d:\d\d:\d\d)\.(\d+)", lambda m: f"{m.group(1)}.{(m.group(2) + '000000')[:6]}", iso)
    try:
        when = _dt.datetime.fromisoformat(iso)
    except ValueError:
        raise ConfigError(f"cannot read {text!r} as epoch milliseconds or an ISO-8601 time"
                          + (" (or earliest/latest/max)" if special else "")) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return (when - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)) // _dt.timedelta(milliseconds=1)


def _topic_config(partition_dir: str, overrides: dict[str, str]) -> LogConfig:
    """The partition's topic configuration (kvlog's topic table in the parent, if any) plus overrides."""
    props: dict[str, object] = {}
    tp = _files.parse_partition_dir(partition_dir)
    table = os.path.join(os.path.dirname(storage.normalize(partition_dir)), "kvlog-topics.json")
    if tp is not None and _io.fs.exists(table):
        try:
            entry = json.loads(_io.fs.read_file(table).decode("utf-8")).get(tp[0]) or {}
            props.update(entry.get("config") or {})
        except (OSError, ValueError, AttributeError) as exc:
            raise KvlogError(f"cannot read {table}: {exc}") from None
    props.update(overrides)
    return LogConfig.from_properties(props)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        self.exit(2, f"kvlog: {message}\n")


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected a positive integer")
    return value


def _timestamp_arg(text: str) -> int:
    try:
        return parse_timestamp(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _plain_timestamp_arg(text: str) -> int:
    try:
        return parse_timestamp(text, special=False)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    return key.strip(), value.strip()


def _add_topic_config_options(p: argparse.ArgumentParser, force_help: str) -> None:
    p.add_argument("--metadata-dir", metavar="DIR",
                   help="where the broker's __cluster_metadata-0 is, when not in the data directory "
                        "(its metadata.log.dir)")
    p.add_argument("--force-internal", action="store_true", help=force_help)
