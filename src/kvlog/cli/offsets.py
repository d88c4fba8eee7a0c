"""``kvlog offsets``: the offset for a timestamp (read-only), or failover offsets for a group."""

from __future__ import annotations

import argparse

from kvlog import _files
from kvlog.cli._common import UsageError, _out
from kvlog.cli.groups import cmd_failover, refuse_failover_options
from kvlog.log import Log


def cmd_offsets(args: argparse.Namespace) -> int:
    if args.group is not None:
        return cmd_failover(args)
    refuse_failover_options(args)
    if args.timestamp is None:
        raise UsageError("offsets needs --timestamp T (or --group G --target MIRROR_ROOT)")
    target = args.timestamp
    if target >= 0:
        target = max(0, target - args.margin)
    single, parts = _files.discover_partitions(args.path)
    for path, topic, partition in parts:
        with Log.open(path, read_only=True, backup_run=args.backup_run) as log:
            found = log.offset_for_timestamp(target)
        offset, ts = (found.offset, found.timestamp) if found is not None else (-1, -1)
        _out(f"{offset} {ts}" if single else f"{topic} {partition} {offset} {ts}")
    return 0
