"""``kvlog backup SRC [SRC ...] DST``: an incremental backup run of a data directory, or of a cluster's brokers' log
directories (see :mod:`kvlog.backup.run`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from kvlog.cli._common import _err, _out

__all__ = ["add_backup_parser", "cmd_backup"]


def add_backup_parser(sub: Any) -> None:
    b = sub.add_parser("backup", help="back up a data directory, incrementally, to a path or object store",
                       description="Copy a broker's (or kvlog's) data directory into DST, a local path or an "
                                   "object-store URI, with every offset as it is. The source is only read (a "
                                   "live broker may keep writing). Each partition ends at the high watermark "
                                   "the broker last checkpointed (else its log end). A run copies only what "
                                   "the last run lacks, writes a manifest, and publishes the run: DST then "
                                   "reads as a point-in-time data directory. A killed run resumes. Exit status "
                                   "1 when a partition could not be backed up (its previous copy stands).")
    b.add_argument("source", nargs="+", help="the data directory (a broker's log.dirs entry); several: the log "
                                              "directories of a cluster's brokers, each partition backed up once, "
                                              "from the replica a cluster read chooses, cut at what the cluster "
                                              "committed (see docs/clusters.md)")
    b.add_argument("destination", help="a local directory or an object-store URI (s3://, gs://, abfs://, hdfs://)")
    b.add_argument("--topics", nargs="+", metavar="TOPIC", help="back up only these topics")
    b.add_argument("--allow-damage", action="store_true",
                   help="back up the valid prefix of an active segment damaged below the high watermark")
    b.add_argument("--workers", type=int, default=4, metavar="N", help="files copied at once (default 4)")
    b.add_argument("--shared", action="store_true",
                   help="DST is shared by the brokers of one cluster, each backing itself up into it: a run adds "
                        "what this broker holds that supersedes the stored copy, and keeps every partition it does "
                        "not hold")
    b.add_argument("--divergent-replicas", choices=("raise", "newest"), default="raise",
                   help="several directories, or --shared: a partition whose replicas diverged is not backed up "
                        "(raise, the default: its previous backup stands) or is backed up as the newest leader's "
                        "history")
    b.add_argument("--json", action="store_true", help="print the run's summary as JSON")
    b.set_defaults(func=cmd_backup)


class _Progress:
    def __init__(self) -> None:
        self.last = 0.0
        self.shown = False

    def __call__(self, result: Any) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        sys.stderr.write(f"\rkvlog backup: {result.files_copied:,} files, {result.bytes_copied / 1e6:,.1f} MB copied   ")
        sys.stderr.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def cmd_backup(args: argparse.Namespace) -> int:
    from kvlog.backup.run import backup

    progress = _Progress() if sys.stderr.isatty() and not args.json else None
    try:
        result = backup(args.source[0] if len(args.source) == 1 else args.source, args.destination,
                        topics=args.topics, allow_damage=args.allow_damage, progress=progress,
                        workers=max(1, args.workers), divergent=args.divergent_replicas, shared=args.shared)
    finally:
        if progress is not None:
            progress.finish()
    if args.json:
        _out(json.dumps(result.as_dict(), indent=1, sort_keys=True))
    else:
        if result.run is None:
            _out(f"nothing new since run {result.previous_run} ({result.partitions} partitions unchanged)")
        else:
            _out(f"run {result.run}: {result.partitions} partitions, {result.files_copied} files "
                 f"({result.bytes_copied:,} bytes) copied, {result.files_unchanged} unchanged, "
                 f"{result.files_resumed} from the interrupted run, {result.files_preserved} set aside; "
                 f"{result.requests} object-store requests, {result.elapsed_s:.2f} s")
        for w in result.warnings:
            _err(f"kvlog: warning: {w}")
        for label, e in sorted(result.errors.items()):
            _err(f"kvlog: {label}: not backed up: {e}")
    return 1 if result.errors else 0
