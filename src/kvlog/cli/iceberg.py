"""``kvlog iceberg export|status``: a topic into an Iceberg table, incrementally and exactly once, and how far
the table has got (see :mod:`kvlog.iceberg`)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from typing import Any

from kvlog.cli._common import UsageError, _err, _out, _pair, _positive
from kvlog.cli._remote import add_remote_storage_options, remote_storage_from
from kvlog.errors import ConfigError
from kvlog.schemas.formats import FORMATS

__all__ = ["add_iceberg_parser", "cmd_iceberg_export", "cmd_iceberg_status"]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", nargs="+", help="a data directory (a broker's log.dirs entry, stopped or running), a "
                                             "kvlog backup, an object-store URI; several: a cluster's brokers' "
                                             "log directories")
    p.add_argument("--topic", required=True, help="the topic")
    p.add_argument("--table", required=True, metavar="NS.NAME", help="the Iceberg table (namespace.name)")
    p.add_argument("--warehouse", metavar="DIR",
                   help="the warehouse folder: its embedded catalog (kvlog-catalog.db, SQLite) and the table's files")
    p.add_argument("--catalog-uri", metavar="URI",
                   help="another catalog: a REST catalog's http(s) URL, or a SQLAlchemy URL (postgresql://...)")
    p.add_argument("--read-uncommitted", action="store_true",
                   help="include open and aborted transactions' records (default: read_committed, as consumers)")
    p.add_argument("--backup-run", type=int, metavar="N", help="a kvlog backup: that run instead of the latest")
    add_remote_storage_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def add_iceberg_parser(sub: Any) -> None:
    ice = sub.add_parser("iceberg", help="topics as Apache Iceberg tables: export, status",
                         description="Export a topic into an Apache Iceberg table, from a broker's files, a backup "
                                     "or tiered storage, with no broker: incrementally (each run adds what the "
                                     "last did not) and exactly once (the table's snapshots record the offsets).")
    cmds = ice.add_subparsers(dest="iceberg_command", metavar="COMMAND")
    e = cmds.add_parser("export", help="add a topic's records the table does not hold yet",
                        description="Add every committed record of TOPIC the table does not hold yet. The table is "
                                    "created on the first run (partitioned by hour(timestamp) unless "
                                    "--partition-by). Exit status 1 when records were lost before they were "
                                    "exported (retention, compaction, a recreated topic) unless --accept-gaps.")
    _common(e)
    e.add_argument("--mode", choices=("append", "upsert"), default="append",
                   help="append every record (default), or upsert: the latest record of each key, a tombstone deleting it")
    e.add_argument("--value-format", choices=FORMATS, metavar="FORMAT",
                   help=f"decode values as FORMAT ({', '.join(FORMATS)}): a record's fields become columns")
    e.add_argument("--key-format", choices=FORMATS, metavar="FORMAT", help="decode keys as FORMAT")
    e.add_argument("--value-schema", metavar="SCHEMA", help="the values' reader schema (a file or its text)")
    e.add_argument("--value-subject", metavar="SUBJECT", help="the values' subject (default TOPIC-value)")
    e.add_argument("--value-message", metavar="NAME", help="Protobuf: the values' message")
    e.add_argument("--schemas", metavar="SOURCE",
                   help="where registered schemas come from (default: the source's own _schemas topic)")
    e.add_argument("--partition-by", nargs="+", action="extend", metavar="TRANSFORM",
                   help="the new table's partitioning: hour(timestamp) (default), day(timestamp), partition, "
                        "bucket(16, key)...")
    e.add_argument("--unpartitioned", action="store_true", help="create the table unpartitioned")
    e.add_argument("--rename", type=_pair, nargs="+", action="extend", metavar="FIELD=COLUMN",
                   help="the column of a value field named like a metadata column (offset, timestamp, ...)")
    e.add_argument("--unwrap", choices=("debezium",),
                   help="with --mode upsert: values are Debezium change events; columns from their after state, "
                        "op d deletes the key")
    e.add_argument("--threads", type=_positive, metavar="N", help="partitions read at once (default: one a CPU, "
                                                                  "at most 8)")
    e.add_argument("--dlq", action="store_true",
                   help="records whose value does not decode go to TABLE_dlq (raw bytes and the reason) instead "
                        "of stopping the export")
    e.add_argument("--accept-gaps", action="store_true",
                   help="go on past records lost before they were exported, recording the gaps in the snapshot")
    e.add_argument("--commit-mb", type=_positive, default=1024, metavar="MB",
                   help="rows per commit, in MB of Arrow data (default %(default)s)")
    e.add_argument("--target-file-mb", type=_positive, metavar="MB",
                   help="a new table's write.target-file-size-bytes")
    e.set_defaults(func=cmd_iceberg_export)
    s = cmds.add_parser("status", help="each partition's exported offset against the log",
                        description="Each partition of TOPIC: the table's next offset against the source's log "
                                    "start, committed end and log end.")
    _common(s)
    s.set_defaults(func=cmd_iceberg_status)
    ice.set_defaults(func=lambda args: (ice.print_help(sys.stderr), 2)[1])


def _source(args: argparse.Namespace) -> Any:
    return args.source[0] if len(args.source) == 1 else list(args.source)


def _where(args: argparse.Namespace) -> dict[str, Any]:
    if args.warehouse is None and args.catalog_uri is None:
        raise ConfigError("give --warehouse DIR (the embedded catalog) or --catalog-uri")
    return {"warehouse": args.warehouse, "catalog": args.catalog_uri, "read_committed": not args.read_uncommitted,
            "backup_run": args.backup_run, "remote_storage": remote_storage_from(args),
            "remote_log_metadata": getattr(args, "remote_log_metadata", None)}


class _Progress:
    def __init__(self) -> None:
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.2 and done < total:
            return
        self.last = now
        pct = 100.0 * done / total if total else 100.0
        sys.stderr.write(f"\rkvlog iceberg export: {done:,} of {total:,} offsets ({pct:.0f}%)   ")
        sys.stderr.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def cmd_iceberg_export(args: argparse.Namespace) -> int:
    from kvlog.iceberg import export
    from kvlog.iceberg.layout import DEFAULT_PARTITION_BY

    if args.unpartitioned and args.partition_by:
        raise UsageError("--unpartitioned and --partition-by do not go together")
    partition_by = None if args.unpartitioned else (args.partition_by or DEFAULT_PARTITION_BY)
    props = {"write.target-file-size-bytes": str(args.target_file_mb << 20)} if args.target_file_mb else None
    progress = _Progress() if sys.stderr.isatty() and not args.json else None
    try:
        r = export(_source(args), args.topic, args.table, mode=args.mode, value_format=args.value_format,
                   key_format=args.key_format, value_schema=args.value_schema, value_subject=args.value_subject,
                   value_message=args.value_message, schemas=args.schemas, partition_by=partition_by,
                   rename=dict(args.rename) if args.rename else None, on_error="dlq" if args.dlq else "stop",
                   gaps="accept" if args.accept_gaps else "raise", commit_bytes=args.commit_mb << 20,
                   properties=props, progress=progress, unwrap=args.unwrap, threads=args.threads, **_where(args))
    finally:
        if progress is not None:
            progress.finish()
    if args.json:
        _out(json.dumps({"table": r.table, "rows": r.rows, "dead_letters": r.dead_letters, "commits": r.commits,
                         "snapshot_id": r.snapshot_id, "offsets": {str(p): o for p, o in r.offsets.items()},
                         "previous": {str(p): o for p, o in r.previous.items()},
                         "gaps": [list(g) for g in r.gaps], "retries": r.retries, "seconds": round(r.seconds, 3)}))
        return 0
    if r.commits == 0:
        _out(f"{r.table}: up to date with {args.topic} ({len(r.offsets)} partitions; nothing to add)")
    else:
        rate = r.rows / r.seconds if r.seconds > 0 else 0.0
        _out(f"{r.table}: {r.rows:,} rows added from {args.topic} in {r.commits} commit"
             f"{'s' if r.commits != 1 else ''} ({r.seconds:.1f} s, {rate:,.0f} rows/s), snapshot {r.snapshot_id}")
        if r.deleted:
            _out(f"{r.table}: {r.deleted:,} keys deleted by tombstones")
        if r.dead_letters:
            _out(f"{r.table}_dlq: {r.dead_letters:,} records that did not decode")
    for p, a, b, why in r.gaps:
        _err(f"kvlog: gap accepted: partition {p} [{a}, {b}): {why}")
    if r.retries:
        _err(f"kvlog: {r.retries} commit(s) lost to another exporter; started again from the table's new state")
    return 0


def cmd_iceberg_status(args: argparse.Namespace) -> int:
    from kvlog.iceberg import status

    st = status(_source(args), args.topic, args.table, **_where(args))
    if args.json:
        _out(json.dumps({"table": st.table, "topic": args.topic, "snapshot_id": st.state.snapshot_id, "lag": st.lag,
                         "partitions": [{"partition": p.partition, "exported": p.exported, "log_start": p.log_start,
                                         "end": p.end, "log_end": p.log_end, "lag": p.lag, "gap": p.gap}
                                        for p in st.partitions]}))
        return 0
    when = (dt.datetime.fromtimestamp(st.state.timestamp_ms / 1000, dt.timezone.utc).isoformat(timespec="seconds")
            if st.state.timestamp_ms else "never")
    _out(f"table {st.table}: topic {args.topic}, last export snapshot {st.state.snapshot_id or '-'} ({when})")
    _out(f"{'partition':>9}  {'exported':>12}  {'log start':>12}  {'committed end':>13}  {'log end':>12}  {'lag':>10}")
    for p in st.partitions:
        exported = "-" if p.exported is None else str(p.exported)
        note = "  GAP: records lost before export" if p.gap else ""
        _out(f"{p.partition:>9}  {exported:>12}  {p.log_start:>12}  {p.end:>13}  {p.log_end:>12}  {p.lag:>10}{note}")
    _out(f"lag: {st.lag:,} records to export")
    return 0
