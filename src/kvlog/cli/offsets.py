"""``kvlog offsets``: the offset for a timestamp (read-only), or failover offsets for a group."""

from __future__ import annotations

import argparse

from kvlog import _files
from kvlog.cli._common import UsageError, _out
from kvlog.cli.groups import cmd_failover, refuse_failover_options
from kvlog.log import LATEST, Log


def cmd_offsets(args: argparse.Namespace) -> int:
    if args.group is not None:
        args.path = args.path[0] if len(args.path) == 1 else args.path
        return cmd_failover(args)
    refuse_failover_options(args)
    if args.timestamp is None:
        raise UsageError("offsets needs --timestamp T (or --group G --target MIRROR_ROOT)")
    target = args.timestamp
    if target >= 0:
        target = max(0, target - args.margin)
    if len(args.path) > 1:
        return _cluster_offsets(args, target)
    args.path = args.path[0]
    single, parts = _files.discover_partitions(args.path)
    for path, topic, partition in parts:
        with Log.open(path, read_only=True, backup_run=args.backup_run) as log:
            found = log.offset_for_timestamp(target)
        offset, ts = (found.offset, found.timestamp) if found is not None else (-1, -1)
        _out(f"{offset} {ts}" if single else f"{topic} {partition} {offset} {ts}")
    return 0


def _cluster_offsets(args: argparse.Namespace, target: int) -> int:
    """Several brokers' data directories: each partition once, searched in the replica read (kvlog.cluster),
    within what the cluster committed."""
    from kvlog.cluster import Cluster

    if args.backup_run is not None:
        raise UsageError("--backup-run reads one backup: give one directory")
    with Cluster(args.path) as cluster:
        for topic in cluster.topics():
            for partition in cluster.partitions(topic):
                log, end = cluster.log(topic, partition), cluster.end_offset(topic, partition)
                if target == LATEST:  # (the committed end, as ListOffsets answers it)
                    offset, ts = end, -1
                else:
                    found = log.offset_for_timestamp(target)
                    if found is not None and found.offset >= end:
                        found = None
                    offset, ts = (found.offset, found.timestamp) if found is not None else (-1, -1)
                _out(f"{topic} {partition} {offset} {ts}")
    return 0
