"""``kvlog groups``, ``kvlog offsets --group ... --target ...`` and ``kvlog dump``'s decoder options.

``kvlog groups ROOT`` prints where every consumer group is, replayed from ``__consumer_offsets`` (the
columns of ``kafka-consumer-groups --describe`` that a data directory can answer: the log end offset
and lag come from the root's own copy of each partition, ``-`` when it has none). ``--as-of`` replays
the state at a time; the log end offset is then the first offset after that time.

``kvlog groups ROOT --share`` prints where every share group (KIP-932) is, replayed from
``__share_group_state`` (``kafka-share-groups --describe --offsets``: the start offset, and Kafka 4.2+'s lag,
log end offset - start offset - delivery-complete count, when the records carry that count).

``kvlog offsets SOURCE --group G --target MIRROR`` prints the offset each partition of the group should
resume from on a mirror (:func:`kvlog.internal_topics.failover.failover_offsets`).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from typing import Any

from kvlog.cli._common import UsageError, _out, _plain_timestamp_arg
from kvlog.errors import KvlogError
from kvlog.internal_topics.consumer_offsets import replay
from kvlog.internal_topics.dump_format import DECODER_OPTIONS, Parser, parser_for
from kvlog.internal_topics.failover import ANCHORS, failover_offsets
from kvlog.internal_topics.layout import partition_dirs
from kvlog.internal_topics.share_group_state import DELIVERY_STATES
from kvlog.internal_topics.share_group_state import TOPIC as SHARE_STATE_TOPIC
from kvlog.internal_topics.share_group_state import replay as share_replay
from kvlog.internal_topics.share_group_state import topic_names
from kvlog.log import Log

__all__ = ["add_decoder_options", "add_failover_options", "add_groups_parser", "cmd_failover", "cmd_groups",
           "dump_parser", "refuse_failover_options"]

MAX_WARNINGS = 20


def _time_arg(text: str) -> int:
    return _plain_timestamp_arg(text)


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected SRC=DST, got {text!r}")
    return key.strip(), value.strip()


def iso_ms(ms: int) -> str:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds (2024-05-01T12:00:00.123Z)."""
    when = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc) + _dt.timedelta(milliseconds=ms)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def _warn(problems: list[str]) -> None:
    for p in problems[:MAX_WARNINGS]:
        sys.stderr.write(f"kvlog: warning: {p}\n")
    if len(problems) > MAX_WARNINGS:
        sys.stderr.write(f"kvlog: warning: {len(problems) - MAX_WARNINGS} more records skipped\n")


# ================================================================================================ dump
def add_decoder_options(d: argparse.ArgumentParser) -> None:
    """kafka-dump-log.sh's decoder options (each implies --print-data-log)."""
    g = d.add_mutually_exclusive_group()
    g.add_argument("--offsets-decoder", action="store_true",
                   help="decode __consumer_offsets records (offset commits, group metadata)")
    g.add_argument("--transaction-log-decoder", action="store_true",
                   help="decode __transaction_state records")
    g.add_argument("--cluster-metadata-decoder", action="store_true",
                   help="decode KRaft __cluster_metadata records")
    g.add_argument("--share-group-state-decoder", action="store_true",
                   help="decode __share_group_state records")
    g.add_argument("--remote-log-metadata-decoder", action="store_true",
                   help="decode tiered storage's __remote_log_metadata records")


def dump_parser(args: argparse.Namespace) -> Parser | None:
    """The record decoder ``kvlog dump`` was asked for, or None for plain key/payload text."""
    for dest, topic in DECODER_OPTIONS.items():
        if getattr(args, dest, False):
            return parser_for(topic)
    return None


# ============================================================================================== groups
def add_groups_parser(sub: Any) -> None:
    g = sub.add_parser("groups", help="consumer groups' committed offsets, from __consumer_offsets (read-only)",
                       description="Replay __consumer_offsets the way the group coordinator loads it and "
                                   "print each group's committed offset per partition, with the log end "
                                   "offset and lag where the data directory holds the partition. With "
                                   "--share, replay __share_group_state the way the share coordinator loads "
                                   "it and print each share group's start offset per partition instead.")
    g.add_argument("root", nargs="+", help="a broker's data directory (or one __consumer_offsets-N or, with "
                                           "--share, __share_group_state-N directory); the data directories of "
                                           "a cluster's brokers, read as one cluster")
    g.add_argument("--group", metavar="G", help="only this group")
    g.add_argument("--as-of", metavar="TIME", type=_time_arg,
                   help="the state at this time (epoch ms or ISO-8601) instead of the latest")
    g.add_argument("--json", action="store_true", help="one JSON object per line")
    g.add_argument("--share", action="store_true",
                   help="share groups (KIP-932) instead: their share-partition state, from __share_group_state")
    g.set_defaults(func=cmd_groups)


def _end_offsets(root: Any, as_of: int | None, wanted: set[tuple[str, int]]) -> dict[tuple[str, int], int]:
    if isinstance(root, list):  # a cluster: each partition's committed end, from the replica read
        from kvlog.cluster import Cluster

        cluster_out: dict[tuple[str, int], int] = {}
        with Cluster(root) as cluster:
            for topic, n in sorted(wanted):
                try:
                    log, end = cluster.log(topic, n), cluster.end_offset(topic, n)
                except KvlogError:
                    continue
                if as_of is not None:
                    hit = log.offset_for_timestamp(as_of + 1)
                    end = min(end, hit.offset) if hit is not None else end
                cluster_out[(topic, n)] = end
        return cluster_out
    out = {}
    for topic in sorted({t for t, _ in wanted}):
        for path, n in partition_dirs(root, topic):
            if (topic, n) not in wanted:
                continue
            with Log.open(path, read_only=True) as log:
                end = log.log_end_offset
                if as_of is not None:
                    hit = log.offset_for_timestamp(as_of + 1)
                    end = hit.offset if hit is not None else end
                out[(topic, n)] = end
    return out


def cmd_groups(args: argparse.Namespace) -> int:
    args.root = args.root[0] if len(args.root) == 1 else args.root
    if args.share:
        if isinstance(args.root, list):
            raise UsageError("--share reads one data directory: give one broker's (every broker's copy of "
                             "__share_group_state is the same state)")
        return cmd_share_groups(args)
    states = replay(args.root, as_of=args.as_of, group=args.group)
    problems = [p for s in states for p in s.problems]
    rows = [row for s in states for row in _rows(s.table())]
    if not states:
        raise KvlogError(f"no __consumer_offsets partitions in {args.root}")
    ends = _end_offsets(args.root, args.as_of, {(r["topic"], r["partition"]) for r in rows})
    for r in rows:
        end = ends.get((r["topic"], r["partition"]))
        r["log_end_offset"] = end
        # Kafka's tool: LOG-END-OFFSET - CURRENT-OFFSET, unclamped (a commit past the end shows a negative lag)
        r["lag"] = None if end is None else end - r["committed_offset"]
    rows.sort(key=lambda r: (r["group"], r["topic"], r["partition"]))
    if args.json:
        for r in rows:
            _out(json.dumps(r, sort_keys=False))
    elif rows:
        head = ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "LEADER-EPOCH",
                "COMMIT-TIME", "METADATA"]
        table = [head] + [[r["group"], r["topic"], str(r["partition"]), str(r["committed_offset"]),
                           _dash(r["log_end_offset"]), _dash(r["lag"]), _dash(r["leader_epoch"]),
                           iso_ms(r["commit_timestamp"]), r["metadata"] or "-"] for r in rows]
        widths = [max(len(row[i]) for row in table) for i in range(len(head))]
        for row in table:
            _out(" ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    _warn(problems)
    # a group the coordinator knows (its metadata record, not deleted) without a committed offset has no row:
    # say so rather than print nothing (Kafka's tool prints no table for it either, only a line on stderr)
    with_rows = {r["group"] for r in rows}
    known = {g for s in states for g, alive in s.groups.items() if alive}
    share = _share_groups(args.root, known - with_rows)
    for g in sorted(known - with_rows):
        if g in share:
            sys.stderr.write(f"kvlog: {g!r} is a share group: its state is in {SHARE_STATE_TOPIC} (kvlog groups "
                             "--share)\n")
        else:
            sys.stderr.write(f"kvlog: consumer group {g!r} has no committed offsets in {args.root}\n")
    if not rows and args.group is not None:
        if args.group not in known:
            sys.stderr.write(f"kvlog: consumer group {args.group!r} does not exist in {args.root} (no committed "
                             "offsets, no group metadata)\n")
        return 1
    return 0


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)


def _share_groups(root: str, groups: set[str]) -> set[str]:
    """Which of ``groups`` hold share-partition state (best effort: for a message, never fatal)."""
    if not groups:
        return set()
    try:
        return {k[0] for r in share_replay(root, errors="skip") for k in r.states if k[0] in groups}
    except (OSError, KvlogError):
        return set()


def cmd_share_groups(args: argparse.Namespace) -> int:
    """``kvlog groups ROOT --share``: one row per share partition of every share group (or ``--group``)."""
    states = share_replay(args.root, as_of=args.as_of, group=args.group)
    if not states:
        raise KvlogError(f"no {SHARE_STATE_TOPIC} partitions in {args.root}")
    problems = [p for s in states for p in s.problems]
    table = [row for s in states for row in _rows(s.table(), stamps=("create_timestamp", "write_timestamp",
                                                                     "record_timestamp"))]
    names = topic_names(args.root, {r["topic_id"] for r in table}) if table else {}
    ends = _end_offsets(args.root, args.as_of, {(names[r["topic_id"]], r["partition"]) for r in table
                                                if r["topic_id"] in names})
    rows = []
    for r in table:
        r["topic"] = names.get(r["topic_id"])
        end = None if r["topic"] is None else ends.get((r["topic"], r["partition"]))
        start, done = r["start_offset"], r["delivery_complete_count"]
        # Kafka 4.2+ (KIP-1226): partition end offset - start offset - delivery-complete count, when both are known
        lag = None if end is None or start is None or done is None else end - start - done
        for b in r["state_batches"]:
            b["delivery_state_name"] = DELIVERY_STATES.get(b["delivery_state"], str(b["delivery_state"]))
        rows.append({"group": r["group"], "topic": r["topic"], "topic_id": r["topic_id"],
                     "partition": r["partition"], "start_offset": start, "log_end_offset": end, "lag": lag,
                     "leader_epoch": r["leader_epoch"], "state_epoch": r["state_epoch"],
                     "snapshot_epoch": r["snapshot_epoch"], "delivery_complete_count": done,
                     "state_batches": r["state_batches"], "create_timestamp": r["create_timestamp"],
                     "write_timestamp": r["write_timestamp"], "coordinator_partition": r["coordinator_partition"],
                     "record_offset": r["record_offset"], "record_timestamp": r["record_timestamp"]})
    rows.sort(key=lambda r: (r["group"], r["topic"] or r["topic_id"], r["partition"]))
    if args.json:
        for r in rows:
            _out(json.dumps(r, sort_keys=False))
    elif rows:
        head = ["GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LOG-END-OFFSET", "LAG", "LEADER-EPOCH",
                "STATE-EPOCH", "IN-FLIGHT-BATCHES"]
        text = [head] + [[r["group"], r["topic"] or r["topic_id"], str(r["partition"]), _dash(r["start_offset"]),
                          _dash(r["log_end_offset"]), _dash(r["lag"]), _dash(r["leader_epoch"]),
                          str(r["state_epoch"]), str(len(r["state_batches"]))] for r in rows]
        widths = [max(len(row[i]) for row in text) for i in range(len(head))]
        for row in text:
            _out(" ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    _warn(problems)
    if not rows and args.group is not None:
        sys.stderr.write(f"kvlog: share group {args.group!r} has no share-partition state in {args.root}\n")
        return 1
    return 0


def _rows(table: Any, stamps: tuple[str, ...] = ("commit_timestamp", "expire_timestamp")) -> list[dict[str, Any]]:
    """A table's rows as dicts, its timestamp columns as epoch milliseconds."""
    ms = {name: table.column(name).cast("int64").to_pylist() for name in stamps}
    rows = table.drop_columns(list(stamps)).to_pylist()
    for i, r in enumerate(rows):
        for name in stamps:
            r[name] = ms[name][i]
    return list(rows)


# ========================================================================================== failover
def add_failover_options(o: argparse.ArgumentParser) -> None:
    o.add_argument("--group", metavar="G",
                   help="failover: the resume offsets of this consumer group (PATH is the source data "
                        "directory) on the --target mirror, instead of --timestamp")
    o.add_argument("--as-of", metavar="TIME", type=_time_arg,
                   help="failover: the group's committed state at this time (default: latest)")
    o.add_argument("--target", metavar="MIRROR_ROOT", help="failover: the mirror's data directory")
    o.add_argument("--anchor", choices=ANCHORS, default="record",
                   help="failover: search the mirror from the timestamp of the record at the committed offset "
                        "(default; falls back to the commit time) or from the commit time")
    o.add_argument("--topic-map", type=_pair, nargs="+", action="extend", metavar="SRC=DST",
                   help="failover: topic names on the mirror")


def refuse_failover_options(args: argparse.Namespace) -> None:
    """The failover options mean nothing without ``--group``: say so rather than ignore them."""
    given = [opt for opt, value in (("--target", args.target), ("--as-of", args.as_of),
                                    ("--topic-map", args.topic_map)) if value is not None]
    if given:
        raise UsageError(f"{', '.join(given)} only apply with --group G (failover offsets)")


def cmd_failover(args: argparse.Namespace) -> int:
    """``kvlog offsets SOURCE --group G --target MIRROR``: one line per partition,
    ``topic partition offset timestamp`` on the mirror, then how it was found."""
    if args.target is None:
        raise UsageError("--group needs --target MIRROR_ROOT (the mirror to resume on)")
    if args.timestamp is not None:
        raise UsageError("--group and --timestamp exclude each other (the group's commits give the time)")
    found = failover_offsets(args.path, args.group, args.target, as_of=args.as_of, margin_ms=args.margin,
                             anchor=args.anchor, topic_map=dict(args.topic_map or []))
    if not found:
        sys.stderr.write(f"kvlog: consumer group {args.group!r} has no committed offsets in {args.path}\n")
        return 1
    missing = 0
    for r in found:
        if r.target_offset is None:
            missing += 1
            sys.stderr.write(f"kvlog: {r.target_topic}-{r.partition} is not in {args.target}\n")
            continue
        _out(f"{r.target_topic} {r.partition} {r.target_offset} {r.target_timestamp} "
             f"committed={r.committed_offset} anchor={r.anchor}:{r.anchor_timestamp}")
    return 1 if missing else 0
