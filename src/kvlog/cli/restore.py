"""``kvlog restore BACKUP DST``: a broker log directory from a backup run (see :mod:`kvlog.backup.restore`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kvlog.cli._common import _err, _out, _pair, _plain_timestamp_arg

__all__ = ["add_restore_parser", "cmd_restore"]


def add_restore_parser(sub: Any) -> None:
    r = sub.add_parser("restore", help="write a broker's log directory from a backup, offsets exact",
                       description="Restore a backup run into DST (a broker's log.dirs entry, broker stopped): "
                                   "every record at its original offset, cut at --as-of if given and never "
                                   "inside a transaction, partition.metadata with the target cluster's topic "
                                   "ids, leader-epoch checkpoints and root checkpoints consistent (the broker's "
                                   ".kafka_cleanshutdown is kept unless --recover). Topic ids "
                                   "come from --topic-id, --metadata-dir, the partition.metadata DST already "
                                   "holds (topics created on the target cluster), or --keep-topic-ids; into a "
                                   "DST of no cluster yet (no meta.properties, no __cluster_metadata-0) the "
                                   "backup's are kept, with a warning. "
                                   "__cluster_metadata is never restored. See docs/backup.md for the procedure.")
    r.add_argument("backup", help="the backup (a local path or an object-store URI)")
    r.add_argument("destination", nargs="+", help="the broker's log directory; several: every log directory of one "
                                                   "broker (JBOD), each partition placed in one of them: the one its "
                                                   "KRaft metadata assigns, else the one holding it, else the least "
                                                   "loaded")
    r.add_argument("--run", type=int, metavar="N", help="the backup run to restore (default: the newest)")
    r.add_argument("--as-of", type=_plain_timestamp_arg, metavar="TIME",
                   help="keep each partition up to this time (epoch ms or ISO-8601)")
    r.add_argument("--topics", nargs="+", metavar="TOPIC", help="restore only these topics")
    r.add_argument("--topic-id", type=_pair, nargs="+", action="extend", metavar="TOPIC=ID",
                   help="the target cluster's topic id of TOPIC")
    r.add_argument("--metadata-dir", metavar="DIR",
                   help="a KRaft metadata directory of the target cluster to read topic ids from")
    r.add_argument("--keep-topic-ids", action="store_true", default=None,
                   help="keep the source's topic ids (restoring into the same cluster; the default for a DST "
                        "without cluster metadata)")
    r.add_argument("--force", action="store_true", help="replace destination partitions that hold records")
    r.add_argument("--groups-csv", metavar="DIR",
                   help="write each consumer group's offsets as of the cut, clamped to the restored partitions, as "
                        "kafka-consumer-groups.sh --reset-offsets --from-file files (and a script) into DIR")
    r.add_argument("--groups-partitions", type=int, metavar="N",
                   help="also write those offsets as fresh __consumer_offsets partitions for a target whose "
                        "offsets.topic.num.partitions is N (brokers stopped; give --topic-id __consumer_offsets=ID)")
    r.add_argument("--keep-leader-epochs", action="store_true",
                   help="keep the batches' leader epochs (restoring into the cluster they came from)")
    r.add_argument("--recover", action="store_true",
                   help="remove the broker's .kafka_cleanshutdown so that it recovers (checks and rebuilds) every log "
                        "of DST when it starts; a 4.x controller then handles the broker as uncleanly shut down "
                        "(by default the marker is kept and the broker loads the restored files as they are)")
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(func=cmd_restore)


def cmd_restore(args: argparse.Namespace) -> int:
    from kvlog.backup.placement import restore_broker
    from kvlog.backup.restore import as_flags, restore
    from kvlog.errors import BackupError, ConfigError

    common = dict(run=args.run, as_of=args.as_of, topics=args.topics, topic_ids=dict(args.topic_id or []),
                  metadata_dir=args.metadata_dir, keep_topic_ids=args.keep_topic_ids, force=args.force,
                  keep_leader_epochs=args.keep_leader_epochs, groups_csv=args.groups_csv,
                  groups_partitions=args.groups_partitions, recover=args.recover)
    try:
        if len(args.destination) == 1:
            result = restore(args.backup, args.destination[0], **common)
        else:
            result = restore_broker(args.backup, args.destination, **common)
    except (BackupError, ConfigError) as exc:  # the Python API's message names its keywords: say the flags
        exc.args = (as_flags(str(exc)),)
        raise
    result.warnings = [as_flags(w) for w in result.warnings]
    if args.json:
        _out(json.dumps(result.as_dict(), indent=1, sort_keys=True))
        return 0
    for label, p in sorted(result.partitions.items()):
        note = {"backup": "", "as_of": " (cut at --as-of)",
                "transaction": " (moved before an open transaction)"}.get(p.cut, "")
        _out(f"{label}: offsets {p.log_start_offset}..{p.end_offset - 1}{note}, topic id {p.topic_id}")
    _out(f"restored {len(result.partitions)} partitions of run {result.run} into {result.destination} "
         f"({result.elapsed_s:.2f} s)")
    if result.groups:
        g = result.groups
        _out(f"consumer groups: {g['groups']} groups, {g['offsets']} offsets as of {g['as_of']} "
             f"({g['clamped']} clamped to the restored logs)"
             + (f"; reset files in {args.groups_csv}" if args.groups_csv else "")
             + (f"; {len(g['partitions'])} __consumer_offsets partitions written" if "partitions" in g else ""))
    for w in result.warnings:
        _err(f"kvlog: warning: {w}")
    return 0
