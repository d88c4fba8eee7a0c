"""``kvlog retention`` and ``kvlog compact``: retention and the log cleaner, each topic's config resolved
from the broker's metadata, kvlog's topic table and Kafka's defaults.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass

from kvlog import _files, storage
from kvlog.cli._common import (
    _count,
    _err,
    _out,
)
from kvlog.log import Log
from kvlog.log.retention import deletable_segments
from kvlog.manager import LogManager
from kvlog.segment import LogSegment
from kvlog.topic_configs import ResolvedConfig, TopicConfigs, maintenance_refusal


def _plan_retention(log: Log, now: int) -> list[LogSegment]:
    """The segments ``delete_old_segments(now)`` would delete, worked out without changing anything."""
    return deletable_segments(log.segments, log.config, now, log_start_offset=log.log_start_offset,
                              high_watermark=log.high_watermark, log_end_offset=log.log_end_offset)


def _describe_deletion(label: str, verb: str, gone: list[tuple[int, int]], start_before: int,
                       start_after: int) -> str:
    if not gone:
        return f"{label}: nothing to delete (log start offset {start_before})"
    size = sum(s for _, s in gone)
    bases = ", ".join(str(b) for b, _ in gone)
    return (f"{label}: {verb} {_count(len(gone), 'segment')} ({_count(size, 'byte')}; base offsets {bases}); "
            f"log start offset {start_before} -> {start_after}")


def _apply_retention(log: Log, label: str, now: int, explained: str) -> None:
    before = {s.base_offset: s.size_in_bytes for s in log.segments}
    start = log.log_start_offset
    log.delete_old_segments(now)
    left = {s.base_offset for s in log.segments}
    gone = [(b, s) for b, s in sorted(before.items()) if b not in left]
    _out(f"{_describe_deletion(label, 'deleted', gone, start, log.log_start_offset)} [{explained}]")


_RETENTION_CONFIGS = ("cleanup.policy", "retention.ms", "retention.bytes")
_COMPACT_CONFIGS = ("cleanup.policy", "min.cleanable.dirty.ratio", "delete.retention.ms", "min.compaction.lag.ms")


@dataclass
class _Maintenance:
    """One retention or compaction run's partitions with their resolved configs (KRaft metadata, then
    kvlog's topic table, then Kafka's defaults; see kvlog.topic_configs) and the internal-topic rules."""

    action: str
    single: bool
    parts: list[tuple[str, str | None, int | None]]
    configs: TopicConfigs
    overrides: dict[str, str]
    force_internal: bool

    @classmethod
    def of(cls, action: str, args: argparse.Namespace) -> "_Maintenance":
        single, parts = _files.discover_partitions(args.path)
        root = os.path.dirname(parts[0][0]) if single else storage.normalize(args.path)
        configs = TopicConfigs.load(root, metadata_dir=args.metadata_dir)
        return cls(action, single, parts, configs, dict(args.config or []), args.force_internal)

    def label(self, path: str) -> str:
        return path if self.single else os.path.basename(path)

    def resolve(self, topic: str | None) -> ResolvedConfig:
        return self.configs.resolve(topic or "", self.overrides, force_internal=self.force_internal)

    def refused(self, path: str, topic: str | None, rc: ResolvedConfig) -> bool:
        """Print why a partition is skipped and return True, when the internal-topic rules forbid it."""
        why = maintenance_refusal(topic or "", self.action, force_internal=self.force_internal)
        if why is None:
            return False
        names = _RETENTION_CONFIGS if self.action == "retention" else _COMPACT_CONFIGS
        _out(f"{self.label(path)}: skipped ({why}) [{rc.explain(names)}]")
        return True


def cmd_retention(args: argparse.Namespace) -> int:
    run = _Maintenance.of("retention", args)
    now = args.now if args.now is not None else int(time.time() * 1000)
    if args.dry_run:
        for path, topic, _ in run.parts:
            rc = run.resolve(topic)
            if run.refused(path, topic, rc):
                continue
            with Log.open(path, rc.config, read_only=True) as log:
                doomed = _plan_retention(log, now)
                gone = [(s.base_offset, s.size_in_bytes) for s in doomed]
                remaining = [s for s in log.segments if s not in doomed]
                first_left = remaining[0].base_offset if remaining else log.log_end_offset
                after = max(log.log_start_offset, first_left)
                line = _describe_deletion(run.label(path), "would delete", gone, log.log_start_offset, after)
                _out(f"{line} [{rc.explain(_RETENTION_CONFIGS)}]")
        return 0
    if run.single:
        path, topic, _ = run.parts[0]
        rc = run.resolve(topic)
        if not run.refused(path, topic, rc):
            with Log.open(path, rc.config) as log:
                _apply_retention(log, path, now, rc.explain(_RETENTION_CONFIGS))
        return 0
    # a data directory: through a LogManager, which takes the directory's lock and its shutdown marker
    with LogManager(args.path) as manager:
        for path, topic, partition in run.parts:
            assert topic is not None and partition is not None
            rc = run.resolve(topic)
            if run.refused(path, topic, rc):
                continue
            log = manager.log(topic, partition)
            log.config = rc.config
            _apply_retention(log, os.path.basename(path), now, rc.explain(_RETENTION_CONFIGS))
    return 0


def cmd_compact(args: argparse.Namespace) -> int:
    """One cleaning pass over every compacted partition (or, with --filthiest, the dirtiest one)."""
    from kvlog.cleaner import LogCleaner

    tty = sys.stderr.isatty()

    def progress(line: str) -> None:
        if tty:
            _err(line)

    cleaner = LogCleaner(args.dedupe_buffer_size, generational=args.generational, progress=progress,
                         **({"kafka_version": args.kafka_version} if args.kafka_version else {}))
    run = _Maintenance.of("compact", args)
    now = args.now if args.now is not None else int(time.time() * 1000)

    def clean(log: Log, label: str, rc: ResolvedConfig) -> None:
        explained = rc.explain(_COMPACT_CONFIGS)
        if not log.config.compact:
            policy = rc.values["cleanup.policy"]
            _out(f"{label}: skipped (cleanup.policy={policy.value or 'none'} is not compact) [{explained}]")
            return
        stats = cleaner.clean(log, now_ms=now)
        _out(f"{label}: {stats.summary()} [{explained}]")

    if run.single:
        path, topic, _ = run.parts[0]
        rc = run.resolve(topic)
        if not run.refused(path, topic, rc):
            with Log.open(path, rc.config) as log:
                clean(log, path, rc)
        return 0
    with LogManager(args.path) as manager:
        logs = []
        for path, topic, partition in run.parts:
            assert topic is not None and partition is not None
            rc = run.resolve(topic)
            if run.refused(path, topic, rc):
                continue
            log = manager.log(topic, partition)
            log.config = rc.config
            logs.append((log, os.path.basename(path), rc))
        if args.filthiest:
            stats = cleaner.clean_filthiest([lg for lg, _, _ in logs], now_ms=now)
            _out(stats.summary() if stats else "nothing is dirty enough to clean (min.cleanable.dirty.ratio)")
            return 0
        for log, label, rc in logs:
            clean(log, label, rc)
    return 0
