"""Helpers every ``kvlog`` command shares: output, argument types, reading files batch by batch.

What non-CLI code also needs lives in the library (:mod:`kvlog.timestamps`, :mod:`kvlog.index`,
:mod:`kvlog._files`); this module only imports it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from kvlog import _files, _io, storage
from kvlog._walk import BatchWalk
from kvlog.config import LogConfig
from kvlog.errors import ConfigError, CorruptRecordError, KvlogError
from kvlog.records import MemoryRecords, RecordBatch
from kvlog.timestamps import parse_timestamp

INT32_MAX = 2**31 - 1
DUMP_CHUNK = 8 << 20
DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024


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
    if "-" in head and head.split("-", 1)[0].isdigit():  # Kafka's LocalTieredStorage: <offset>-<segment id>
        head = head.split("-", 1)[0]
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
    walk = BatchWalk(fd, start, limit, chunk)
    for pos, data in walk:
        used = 0
        try:
            for b in MemoryRecords(data).batches():
                yield pos + b.position, b
                used = b.position + b.size_in_bytes
        except CorruptRecordError as exc:
            raise exc.with_context(file=path, base_position=pos) from None
        walk.advance(used)


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


class UsageError(ConfigError):
    """A command's options that do not go together, found after parsing: ``main`` prints the command's usage
    and exits 2, as argparse does for the errors it finds itself."""


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
