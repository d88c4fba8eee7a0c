"""The ``kvlog`` command line: ``dump | verify | repair | offsets | retention | compact | mirror | backup | restore |
adopt | groups | iceberg | demo``.

``kvlog dump`` prints what Kafka's ``kafka-dump-log.sh`` (``DumpLogSegments``, 4.0) prints, line for line,
so its output can be diffed against the broker tool's; every other command is kvlog's own. Exit status:
0 on success, 1 when a check fails (``verify`` problems, ``dump`` index mismatches or damaged files) or an
operation fails, 2 on usage errors. Expected errors are reported as ``kvlog: <message>`` on stderr.

``verify``, ``offsets`` and ``retention --dry-run`` open logs read-only and never write anything.
``retention`` and ``compact`` take each topic's config from the broker's KRaft metadata, then kvlog's topic
table, then Kafka's defaults (:mod:`kvlog.topic_configs`), print the deciding values and their sources, and
leave Kafka's internal topics alone unless ``--force-internal`` (``__cluster_metadata`` always).
"""

from __future__ import annotations

import argparse
import os
import sys

from kvlog.cli import groups
from kvlog.cli.adopt import add_adopt_parser
from kvlog.cli.backup import add_backup_parser
from kvlog.cli.iceberg import add_iceberg_parser
from kvlog.cli.restore import add_restore_parser
from kvlog.cli._common import (
    DEFAULT_MAX_MESSAGE_SIZE,
    INT32_MAX,
    UsageError,
    _add_topic_config_options,
    _err,
    _non_negative,
    _pair,
    _Parser,
    _plain_timestamp_arg,
    _positive,
    _timestamp_arg,
)
from kvlog.cli.demo import cmd_demo
from kvlog.cli._remote import add_remote_storage_options
from kvlog.cli.dump import cmd_dump
from kvlog.cli.dump_typed import add_typed_options
from kvlog.cli.maintenance import cmd_compact, cmd_retention
from kvlog.cli.mirror import cmd_mirror
from kvlog.cli.offsets import cmd_offsets
from kvlog.cli.repair import cmd_repair
from kvlog.cli.verify import PartitionReport, Problem, cmd_verify, verify_partition, verify_path
from kvlog.errors import KvlogError, redact
from kvlog.index import read_offset_index, read_time_index
from kvlog.timestamps import parse_timestamp

__all__ = ["PartitionReport", "Problem", "build_parser", "cmd_compact", "cmd_demo", "cmd_dump", "cmd_mirror",
           "cmd_offsets", "cmd_repair", "cmd_retention", "cmd_verify", "main", "parse_timestamp",
           "read_offset_index", "read_time_index", "verify_partition", "verify_path"]


def _kafka_version(text: str) -> str:
    """``--kafka-version``: a release kvlog's cleaner can follow (checked here, so a bad one is a usage error)."""
    from kvlog.cleaner import parse_kafka_version as _parse_kafka_version
    from kvlog.errors import ConfigError

    try:
        _parse_kafka_version(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kvlog",
                description="Kafka log directories: dump, verify, search by time, retention, mirroring.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("dump", help="print segment files as Kafka's kafka-dump-log.sh does",
                       description="Print .log/.index/.timeindex/.txnindex files like Kafka's "
                                   "DumpLogSegments.")
    d.add_argument("--files", required=True, metavar="FILE1,FILE2,...", help="comma-separated files to dump")
    d.add_argument("--deep-iteration", action="store_true", help="print every record of every batch")
    d.add_argument("--print-data-log", action="store_true",
                   help="print keys and values (implies --deep-iteration)")
    d.add_argument("--skip-record-metadata", action="store_true", help="omit per-record metadata")
    d.add_argument("--verify-index-only", action="store_true",
                   help="check index entries against the log, print only mismatches")
    d.add_argument("--index-sanity-check", action="store_true",
                   help="run the broker's index sanity check only")
    d.add_argument("--max-message-size", type=_positive, default=DEFAULT_MAX_MESSAGE_SIZE, metavar="N",
                   help="largest batch looked at when checking index entries (default %(default)s)")
    d.add_argument("--max-bytes", type=_non_negative, default=INT32_MAX, metavar="N",
                   help="read only the first N bytes of each .log")
    groups.add_decoder_options(d)
    add_typed_options(d)
    add_remote_storage_options(d)
    d.set_defaults(func=cmd_dump)

    v = sub.add_parser("verify", help="check every batch, index and checkpoint (read-only)",
                       description="Check a partition directory or every partition of a data "
                                   "directory: batch framing and CRCs, offset order, offset/time index "
                                   "entries, leftover files, checkpoint files. Nothing is written. Exit "
                                   "status 1 when anything is wrong.")
    v.add_argument("path", nargs="+", help="a partition directory or a data directory; the data directories of "
                                           "a cluster's brokers: each checked, and their replicas checked "
                                           "against each other")
    v.add_argument("--json", action="store_true", help="print a JSON report")
    add_remote_storage_options(v)
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser("repair", help="rewrite fields the evidence proves, keeping the original bytes",
                       description="Rewrite only the header fields outside every CRC (base offset, "
                                   "length, magic, leader epoch) whose true value the neighbouring batches "
                                   "or the batch's own CRC prove, and put back bytes recovery set aside "
                                   "when they then continue the log cleanly. Original bytes are kept as "
                                   "*.repaired; indexes of changed segments are rebuilt on the next open. "
                                   "Refused while a writer holds the log. Exit status 1 when unproven "
                                   "damage remains.")
    r.add_argument("path", help="a partition directory or a data directory")
    r.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    r.add_argument("--json", action="store_true", help="print a JSON report")
    r.set_defaults(func=cmd_repair)

    o = sub.add_parser("offsets", help="find the offset for a timestamp (read-only)",
                       description="Print the earliest offset whose timestamp is >= T - MARGIN, and "
                                   "its timestamp (-1 -1 when no record is that recent). For a data "
                                   "directory one line per partition: topic partition offset timestamp.")
    o.add_argument("path", nargs="+", help="a partition directory or a data directory; the data directories of "
                                           "a cluster's brokers, read as one cluster")
    o.add_argument("--timestamp", metavar="T", type=_timestamp_arg,
                   help="epoch milliseconds, ISO-8601 (2024-05-01T12:00:00Z), earliest, latest or max")
    o.add_argument("--margin", type=_non_negative, default=0, metavar="MS",
                   help="search from T minus this many milliseconds (failover safety margin)")
    o.add_argument("--backup-run", type=_positive, metavar="N",
                   help="on a kvlog backup: search run N as it was backed up (default: the newest run)")
    groups.add_failover_options(o)
    o.set_defaults(func=cmd_offsets)

    r = sub.add_parser("retention", help="delete segments past retention",
                       description="Apply retention (log start offset, retention.bytes, retention.ms) to a "
                                   "partition or every partition of a data directory. Topic configs come from "
                                   "the broker's KRaft metadata, then kvlog-topics.json, then Kafka's defaults; "
                                   "each line ends with the deciding values and their sources. Kafka's internal "
                                   "topics are skipped unless --force-internal; __cluster_metadata always.")
    r.add_argument("path", help="a partition directory or a data directory")
    r.add_argument("--now", type=_non_negative, metavar="MS",
                   help="the current time in epoch ms (default: now)")
    r.add_argument("--dry-run", action="store_true", help="report what would be deleted; change nothing")
    r.add_argument("--config", type=_pair, nargs="+", action="extend", metavar="KEY=VALUE",
                   help="topic configs to apply over the resolved ones (Kafka names, e.g. retention.ms=86400000); "
                        "not to internal topics unless --force-internal")
    _add_topic_config_options(r, "delete segments of Kafka's internal topics too (__consumer_offsets, "
                                 "__transaction_state, __share_group_state, __remote_log_metadata), and apply "
                                 "--config to them; __cluster_metadata is never touched")
    r.set_defaults(func=cmd_retention)

    c = sub.add_parser("compact", help="run the log cleaner (key-based compaction)",
                       description="One cleaning pass over a compacted partition or every compacted partition "
                                   "of a data directory (compaction.strategy offset|timestamp|header). Topic "
                                   "configs are resolved as for retention; __cluster_metadata is never compacted.")
    c.add_argument("path", help="a partition directory or a data directory")
    c.add_argument("--filthiest", action="store_true",
                   help="clean only the dirtiest log at or above min.cleanable.dirty.ratio")
    c.add_argument("--generational", action="store_true",
                   help="rewrite only the segments whose expected yield justifies it (see README)")
    c.add_argument("--dedupe-buffer-size", type=_non_negative, default=128 << 20, metavar="BYTES",
                   help="offset map memory (default 128 MiB: 24 bytes per key, 32 with a version)")
    c.add_argument("--now", type=_non_negative, metavar="MS", help="the current time in epoch ms")
    c.add_argument("--kafka-version", type=_kafka_version, default=None, metavar="X.Y",
                   help="clean as that Kafka release's cleaner does (default 4.4: v0/v1 batches become v2; "
                        "3.1-3.9 keep them), for logs meant for an older broker")
    c.add_argument("--config", type=_pair, nargs="+", action="extend", metavar="KEY=VALUE",
                   help="topic configs to apply over the resolved ones (Kafka names, e.g. cleanup.policy=compact); "
                        "not to internal topics unless --force-internal")
    _add_topic_config_options(c, "apply --config to Kafka's internal topics too (they are otherwise compacted "
                                 "only as their own configs say); __cluster_metadata is never touched")
    c.set_defaults(func=cmd_compact)

    m = sub.add_parser("mirror", help="copy a log or a data directory into another",
                       description="Copy records (keys, values, headers, timestamps) into a target log or "
                                   "data directory, which assigns its own offsets. Resumable: a second run "
                                   "copies only what is new.")
    m.add_argument("source", help="a partition directory or a data directory (opened read-only)")
    m.add_argument("target", help="the target partition directory or data directory")
    m.add_argument("--topics", nargs="+", action="extend", metavar="TOPIC",
                   help="mirror only these source topics (default: every topic but Kafka's internal ones)")
    m.add_argument("--topic-map", type=_pair, nargs="+", action="extend", metavar="SRC=DST",
                   help="rename topics in the target (a topic not mapped keeps its name)")
    m.add_argument("--from-timestamp", metavar="T", type=_plain_timestamp_arg,
                   help="on the first run, start at this time (epoch ms or ISO-8601)")
    m.add_argument("--config", type=_pair, nargs="+", action="extend", metavar="KEY=VALUE",
                   help="configs of created target topics (Kafka names)")
    m.add_argument("--compression", metavar="CODEC",
                   help="codec of the target batches (default: the source's)")
    m.add_argument("--batch-bytes", type=_positive, default=8 << 20, metavar="N",
                   help="bytes read from the source at a time (default %(default)s)")
    m.set_defaults(func=cmd_mirror)

    add_backup_parser(sub)
    add_restore_parser(sub)
    add_adopt_parser(sub)
    groups.add_groups_parser(sub)
    add_iceberg_parser(sub)

    demo = sub.add_parser("demo", help="a tour of kvlog on generated data")
    demo.set_defaults(func=cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except UsageError as exc:  # options that do not go together: the command's usage, exit 2 (as argparse)
        sys.stdout.flush()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.command].print_usage(sys.stderr)
        _err(f"kvlog: {exc}")
        return 2
    except BrokenPipeError:
        # the reader went away (kvlog dump ... | head): stop quietly
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except (KvlogError, OSError) as exc:
        sys.stdout.flush()
        _err(f"kvlog: {redact(str(exc))}")  # an OSError from a library may quote a URI with credentials
        return 1
    except KeyboardInterrupt:
        _err("kvlog: interrupted")
        return 130
