"""``kvlog verify``: prints the reports of :mod:`kvlog.verify` (read-only checks of partitions and data
directories), as text or JSON.
"""

from __future__ import annotations

import argparse
import json

from kvlog import storage
from kvlog.cli._common import _count, _out
from kvlog.cli._remote import remote_storage_from
from kvlog.verify import PartitionReport, Problem, verify_partition, verify_path

__all__ = ["PartitionReport", "Problem", "cmd_verify", "verify_partition", "verify_path"]


def cmd_verify(args: argparse.Namespace) -> int:
    if len(args.path) > 1:
        return _verify_cluster(args)
    args.path = args.path[0]
    return _verify_one(args)


def _verify_cluster(args: argparse.Namespace) -> int:
    """Each directory as ``kvlog verify`` checks one, then every partition's replicas against each other
    (kvlog.cluster): diverged replicas are errors, contradicting epoch histories warnings."""
    import io
    import sys
    from contextlib import redirect_stdout

    from kvlog.cluster import Cluster

    paths = list(args.path)
    outs, statuses = [], []
    for path in paths:
        args.path = path
        buf = io.StringIO()
        with redirect_stdout(buf):
            statuses.append(_verify_one(args))
        outs.append(buf.getvalue())
    args.path = paths
    diverged: list[str] = []
    with Cluster(paths, divergent="newest") as cluster:
        for topic in cluster.topics():
            for n in cluster.partitions(topic):
                part = cluster.partition(topic, n)
                diverged += [f"{topic}-{n}: {r.directory.name} holds offsets {at}..{r.log_end} (leader epoch "
                             f"{r.latest_epoch}) that {part.chosen.directory.name} (leader epoch "
                             f"{part.chosen.latest_epoch}) does not" for r, at in part.diverged]
        problems = list(cluster.problems)
    ok = not any(statuses) and not diverged
    if args.json:
        _out(json.dumps({"ok": ok, "paths": [storage.normalize(p) for p in paths],
                         "directories": [json.loads(o) for o in outs],
                         "cluster": {"diverged": diverged, "warnings": problems}}, indent=1))
        return 0 if ok else 1
    for path, text in zip(paths, outs):
        _out(f"== {path}")
        sys.stdout.write(text)
    _out("== the replicas against each other")
    for d in diverged:
        _out(f"  error: replicas diverged: {d}")
    for p in problems:
        _out(f"  warning: {p}")
    _out(f"cross-checked the replicas: {len(diverged)} diverged, {len(problems)} warnings")
    return 0 if ok else 1


def _verify_one(args: argparse.Namespace) -> int:
    from kvlog.backup.check import attach_to_partitions, is_backup, verify_backup

    reports, root_problems = verify_path(args.path)
    remote = remote_storage_from(args)
    if remote is not None:  # each tiered partition's remote segments, as a report of their own
        from kvlog.tiered.verify import verify_remote_history

        tiered = []
        for r in reports:
            if r.topic is None or r.partition is None or r.topic.startswith("__"):
                continue
            found = verify_remote_history(r.path, r.topic, r.partition, remote, args.remote_log_metadata)
            if found is not None:
                tiered.append(found)
        reports = reports + tiered
    backup = verify_backup(args.path) if is_backup(storage.normalize(args.path)) else []
    elsewhere = attach_to_partitions(backup, reports)  # a partition's damaged file is an error of that partition
    bad = [r for r in reports if r.errors]
    ok = not bad and not any(p.severity == "error" for p in root_problems) and not elsewhere
    if args.json:
        _out(json.dumps({"ok": ok, "path": storage.normalize(args.path),
                         "partitions": [r.as_dict() for r in reports],
                         "problems": [p.as_dict() for p in root_problems],
                         "backup_problems": [vars(bp) for bp in backup]}, indent=1))
        return 0 if ok else 1
    for bp in elsewhere:
        _out(f"backup: {bp.text()}")
    for p in root_problems:
        _out(p.text())
    for r in reports:
        offsets = (f", offsets {r.first_offset}..{r.next_offset - 1}"
                   if r.first_offset is not None and r.next_offset is not None else "")
        summary = (f"{_count(r.segments, 'segment')}, {_count(r.batches, 'batch')}, "
                   f"{_count(r.bytes, 'byte')}{offsets}")
        if r.errors:
            status = f"{_count(r.error_count, 'error')}, {_count(r.warning_count, 'warning')}"
        else:
            status = f"OK with {_count(r.warning_count, 'warning')}" if r.warnings else "OK"
        _out(f"{r.path}: {status} ({summary})")
        for p in r.problems:
            _out(f"  {p.text()}")
    outside = f"; {_count(len(elsewhere), 'backup problem')} outside them" if elsewhere else ""
    _out(f"verified {_count(len(reports), 'partition')}: {len(bad)} with errors{outside}")
    return 0 if ok else 1
