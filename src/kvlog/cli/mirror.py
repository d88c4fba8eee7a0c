"""``kvlog mirror``: copy a log or a data directory into another."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, TextIO

from kvlog import _files, _io, storage
from kvlog.cli._common import (
    _err,
    _out,
    _topic_config,
)
from kvlog.errors import ConfigError, DirectoryNotFoundError
from kvlog.log import Log


class _Progress:
    """Records/s and bytes on stderr, redrawn in place at most a few times a second."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.t0 = time.monotonic()
        self.last = 0.0
        self.totals: dict[str, tuple[int, int]] = {}
        self.shown = False

    def __call__(self, stats: Any) -> None:
        self.totals[stats.source] = (stats.records, stats.bytes)
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        records = sum(r for r, _ in self.totals.values())
        nbytes = sum(b for _, b in self.totals.values())
        rate = records / max(now - self.t0, 1e-9)
        self.stream.write(f"\rkvlog mirror: {records:,} records, {nbytes / 1e6:,.1f} MB, "
                          f"{rate:,.0f} records/s   ")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def cmd_mirror(args: argparse.Namespace) -> int:
    from kvlog.mirror import mirror_directory, mirror_log

    overrides = dict(args.config or [])
    topic_map = dict(args.topic_map or [])
    from_ts = args.from_timestamp
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    source = storage.normalize(args.source)
    if not _io.fs.isdir(source):
        raise DirectoryNotFoundError(f"no such directory: {source}")
    try:
        if _files.is_partition_dir(source):
            if topic_map or args.topics:
                raise ConfigError("--topic-map and --topics apply when mirroring data directories")
            with Log.open(args.target, _topic_config(args.target, overrides)) as target:
                results = {("", 0): mirror_log(source, target, from_timestamp=from_ts, progress=progress,
                                               batch_bytes=args.batch_bytes, compression=args.compression)}
        else:
            results = mirror_directory(source, args.target, topic_map=topic_map, topics=args.topics,
                                       config=overrides or None,
                                       from_timestamp=from_ts, progress=progress,
                                       batch_bytes=args.batch_bytes, compression=args.compression)
    finally:
        if progress is not None:
            progress.finish()
    for stats in results.values():
        if stats.skipped:
            _err(f"kvlog: {os.path.basename(stats.source)}: skipped: {stats.skipped}")
            continue
        label = f"{os.path.basename(stats.source)} -> {os.path.basename(stats.target)}"
        if stats.records:
            _out(f"{label}: {stats.records} records, {stats.bytes} bytes; source offsets "
                 f"{stats.source_start_offset}..{stats.source_end_offset - 1} -> target offsets "
                 f"{stats.target_start_offset}..{stats.target_end_offset - 1}")
        else:
            _out(f"{label}: nothing new (source offset {stats.source_end_offset})")
        for w in stats.warnings:
            _err(f"kvlog: {label}: {w}")
    return 0
