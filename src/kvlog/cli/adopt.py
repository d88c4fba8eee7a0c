"""``kvlog adopt LOG_DIR PARTITION_DIR...``: partition directories kvlog wrote, made into ones a stopped broker
serves as its own (see :mod:`kvlog.backup.adopt`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kvlog.cli._common import _err, _out, _pair

__all__ = ["add_adopt_parser", "cmd_adopt"]


def add_adopt_parser(sub: Any) -> None:
    a = sub.add_parser("adopt", help="make kvlog-written partition directories ones a stopped broker serves",
                       description="Place partition directories kvlog wrote (inside LOG_DIR already, or elsewhere: "
                                   "copied, or moved with --move) into a stopped Kafka broker's log directory as it "
                                   "serves them: partition.metadata with the topic id of the target's metadata "
                                   "(--metadata-dir or LOG_DIR's own __cluster_metadata-0, --topic-id, or the "
                                   "partition.metadata of the directory the broker created for the topic), leader "
                                   "epochs lowered to the partition's current epoch, a producer snapshot at the "
                                   "end, the log start offset and high watermark set and the recovery point dropped "
                                   "at the root. A topic the target does not know, a partition this broker is no "
                                   "replica of, damaged data or a running broker are refused, with the reason (a "
                                   "broker would rename the directory -stray); then nothing is written. "
                                   "See docs/broker-files.md, 'Serving what kvlog wrote'.")
    a.add_argument("log_dir", help="the stopped broker's log directory (a log.dirs entry)")
    a.add_argument("partitions", nargs="+", metavar="PARTITION_DIR",
                   help="partition directories (<topic>-<p>) kvlog wrote, or a data directory holding them")
    a.add_argument("--metadata-dir", metavar="DIR",
                   help="the broker's KRaft metadata.log.dir (default: LOG_DIR's own __cluster_metadata-0, if any)")
    a.add_argument("--topic-id", type=_pair, nargs="+", action="extend", metavar="TOPIC=ID",
                   help="the target cluster's topic id of TOPIC")
    a.add_argument("--move", action="store_true", help="move the directories into place rather than copy them")
    a.add_argument("--force", action="store_true", help="replace a target partition directory that holds records")
    a.add_argument("--recover", action="store_true",
                   help="remove LOG_DIR/.kafka_cleanshutdown so that the broker recovers every log of it (a 4.x "
                        "controller then handles the broker as uncleanly shut down)")
    a.add_argument("--new-topic", action="store_true",
                   help="place the partitions into a RUNNING broker's log directory for a topic not created yet: "
                        "the broker loads them when the topic is created afterwards (no restart); partition.metadata "
                        "is left to the broker and leader epochs lowered to 0. One log directory, and this broker "
                        "the topic's (first) replica: see docs/broker-files.md")
    a.add_argument("--dry-run", action="store_true", help="say what would be done; write nothing")
    a.add_argument("--json", action="store_true", help="print the result as JSON")
    a.set_defaults(func=cmd_adopt)


def cmd_adopt(args: argparse.Namespace) -> int:
    from kvlog.backup.adopt import adopt, adopt_sources

    if args.new_topic:
        from kvlog.backup.adopt_new_topic import adopt_new_topic

        unused = [flag for flag, given in (("--topic-id", args.topic_id), ("--force", args.force),
                                           ("--recover", args.recover)) if given]
        if unused:
            _err(f"kvlog adopt: error: {', '.join(unused)} cannot go with --new-topic (the broker gives the new "
                 "topic its id, and nothing of it exists to replace or recover)")
            return 2
        result = adopt_new_topic(args.log_dir, adopt_sources(args.partitions), metadata_dir=args.metadata_dir,
                                 move=args.move, dry_run=args.dry_run)
    else:
        result = adopt(args.log_dir, adopt_sources(args.partitions), metadata_dir=args.metadata_dir,
                       topic_ids=dict(args.topic_id or []), force=args.force, move=args.move, recover=args.recover,
                       dry_run=args.dry_run)
    if args.json:
        _out(json.dumps(result.as_dict(), indent=1, sort_keys=True))
    else:
        verb = "would adopt" if result.dry_run else "adopted"
        for label, p in sorted(result.partitions.items()):
            epochs = f", {p.epochs_lowered} batches' leader epochs lowered to {p.leader_epoch_cap}" \
                if p.epochs_lowered else ""
            tid = f"topic id {p.topic_id} (from {p.topic_id_from})" if p.topic_id else "topic id from its creation"
            _out(f"{label}: {verb} offsets {p.log_start_offset}..{p.end_offset - 1}, {tid}{epochs}")
    for w in result.warnings:
        _err(f"kvlog: warning: {w}")
    return 0
