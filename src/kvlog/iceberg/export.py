"""``kvlog.iceberg.export``: a topic's records into an Iceberg table, each exactly once, incrementally.

One export reads every partition of the topic from where the table's newest kvlog snapshot says it stands
(:mod:`kvlog.iceberg.state`) to what the source has committed (:mod:`kvlog.iceberg.source`), and commits
the rows in chunks of about ``commit_bytes``: each commit is one Iceberg snapshot holding the chunk's data
files and, in its summary, the next offset of every partition. The catalog commits a snapshot atomically and
only on top of the snapshot the export started from (pyiceberg asserts the branch's snapshot id; the SQL
catalog compares and swaps the metadata location), so:

* a rerun finds every partition at its end and commits nothing;
* an exporter killed at any moment leaves the table at its last commit, and the next run starts there (data
  files it wrote but did not commit are orphans no snapshot references; Iceberg's orphan-file removal
  reclaims them);
* of two exporters racing on one table, the loser's commit fails: it reads the table's new state and starts
  again from there (``retries`` times), so the history holds each record once.

Records that cannot be exported any more are never skipped silently: a log start past the table's offset
(retention), compaction past it (the cleaner's checkpoint), or a recreated topic (another topic id) raises
:class:`kvlog.ExportGapError` unless ``gaps="accept"``, which goes on and records each gap in the summary.
A table ahead of its source (an older backup, a truncated log) is refused.
"""

from __future__ import annotations

import os
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from kvlog.errors import ConfigError, ExportGapError, IcebergExportError
from kvlog.iceberg import catalogs, upsert
from kvlog.iceberg.files import DataFileWriter
from kvlog.iceberg.layout import DEFAULT_PARTITION_BY, TableLayout, layout_for, parse_partition_by
from kvlog.iceberg.source import PartitionSpan, TopicSource
from kvlog.iceberg.state import ExportState, read_state, summary_of
from kvlog.scan_predicates import Bounds
from kvlog.scanning import Scan, default_threads

__all__ = ["ExportResult", "export", "DEFAULT_COMMIT_BYTES"]

DEFAULT_COMMIT_BYTES = 1 << 30
GAPS = ("raise", "accept")
ON_ERROR = ("stop", "dlq")
MODES = ("append", "upsert")
_TOMBSTONE = "__kvlog_tombstone"
_KAFKA_COLUMNS = ["key", "value", "partition", "offset", "timestamp", "timestampType", "headers"]
_DLQ_SCHEMA = pa.schema([pa.field("partition", pa.int32()), pa.field("offset", pa.int64()),
                         pa.field("timestamp", pa.timestamp("us", tz="UTC")), pa.field("key", pa.binary()),
                         pa.field("value", pa.binary()), pa.field("reason", pa.string())])


@dataclass
class ExportResult:
    """What an export did: ``rows`` added to ``table`` (``dead_letters`` to ``<table>_dlq``; upsert mode: the
    latest row of each key written, ``deleted`` keys a tombstone removed) in ``commits``
    snapshots, the last ``snapshot_id``; ``offsets`` every partition's next offset now, ``previous`` before;
    ``gaps`` accepted (partition, from, to, why); ``retries`` commits lost to another exporter."""

    table: str
    rows: int = 0
    dead_letters: int = 0
    deleted: int = 0
    commits: int = 0
    snapshot_id: int | None = None
    offsets: dict[int, int] = field(default_factory=dict)
    previous: dict[int, int] = field(default_factory=dict)
    gaps: list[tuple[int, int, int, str]] = field(default_factory=list)
    retries: int = 0
    seconds: float = 0.0
    bytes: int = 0


def _single_attempt(table: Any) -> Any:
    """``table`` as a handle whose commits are tried once. pyiceberg retries a commit that lost a race by
    re-applying its append on top of the winner's snapshot (``commit.retry.num-retries``, 4 by default): right
    for appends that commute, but it would add records the winner already added. An export instead re-reads
    the table's state and starts again from there. (The table's stored properties are left as they are: a
    commit sends its changes, not this copy's properties.)"""
    from pyiceberg.table import Table

    props = dict(table.metadata.properties)
    props["commit.retry.num-retries"] = "0"
    meta = table.metadata.model_copy(update={"properties": props})
    return Table(table.name(), meta, table.metadata_location, table.io, table.catalog)


def _pieces(batches: Iterator[pa.RecordBatch], limit: int) -> Iterator[pa.RecordBatch]:
    """``batches`` without empty ones, sliced so that none is much more than ``limit`` bytes (a commit's)."""
    for batch in batches:
        n = batch.num_rows
        if n == 0:
            continue
        size = batch.nbytes
        if size <= limit:
            yield batch
            continue
        step = max(1, n * limit // size)
        for lo in range(0, n, step):
            yield batch.slice(lo, step)


def _read(base: Scan, ranges: dict[int, tuple[int, int]], threads: int,
          limit: int = DEFAULT_COMMIT_BYTES) -> Iterator[tuple[int, pa.RecordBatch | None]]:
    """Each partition's ``[start, end)`` read with ``base``'s columns: ``(partition, batch)`` in offset order
    within a partition, then ``(partition, None)`` at its end. With ``threads`` > 1 that many partitions are
    read at once (the decoding kernels run without the GIL) and their batches interleave, a few at most held
    ahead of the consumer."""

    def one(p: int) -> Iterator[pa.RecordBatch]:
        start, end = ranges[p]
        scan = base.where(bounds=Bounds(partitions=frozenset((p,)), offset_lo=start, offset_hi=end))
        return _pieces(scan.batches(), limit)

    if threads <= 1 or len(ranges) <= 1:
        for p in ranges:
            for batch in one(p):
                yield p, batch
            yield p, None
        return
    out: queue.Queue[tuple[int, Any]] = queue.Queue(maxsize=2 * threads)
    todo = list(ranges)
    lock = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            with lock:
                if not todo:
                    break
                p = todo.pop(0)
            try:
                for batch in one(p):
                    while not stop.is_set():
                        try:
                            out.put((p, batch), timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if stop.is_set():
                        return
                out.put((p, None))
            except BaseException as exc:  # (raised in the consumer)
                out.put((-1, exc))
                return
        out.put((-2, None))

    workers = [threading.Thread(target=work, name=f"kvlog-export-read-{i}", daemon=True)
               for i in range(min(threads, len(ranges)))]
    for w in workers:
        w.start()
    try:
        running = len(workers)
        while running:
            p, item = out.get()
            if p == -2:
                running -= 1
            elif p == -1:
                raise item
            else:
                yield p, item
    finally:
        stop.set()
        while any(w.is_alive() for w in workers):
            try:
                out.get(timeout=0.05)
            except queue.Empty:
                pass
        for w in workers:
            w.join()


def plan_ranges(src: TopicSource, state: ExportState, gaps_policy: str, name: str) -> tuple[
        dict[int, tuple[int, int]], dict[int, int], list[tuple[int, int, int, str]]]:
    """Each partition's ``[start, end)`` to export, the offsets state to start from, and the gaps found."""
    gaps: list[tuple[int, int, int, str]] = []
    offsets = dict(state.offsets)
    topic_id = src.topic_id
    if state.topic_id and topic_id and state.topic_id != topic_id:
        gaps += [(p, o, 0, f"the topic was recreated (topic id {state.topic_id} is now {topic_id})")
                 for p, o in sorted(offsets.items())]
        offsets = {}
    ranges: dict[int, tuple[int, int]] = {}
    for p in src.partitions():
        span: PartitionSpan = src.span(p)
        nxt = offsets.get(p)
        start = span.log_start if nxt is None else nxt
        if nxt is not None and nxt > span.log_end:
            raise IcebergExportError(
                f"partition {p}: the table holds offsets up to {nxt}, but the source's log ends at {span.log_end} "
                f"(an older copy, or a log truncated since): export from a source that reaches {nxt}",
                table=name)
        if nxt is not None and nxt < span.log_start:
            gaps.append((p, nxt, span.log_start, f"retention moved the log start to {span.log_start}"))
            start = span.log_start
        elif nxt is not None and span.cleaned_to is not None and span.cleaned_to > nxt and nxt < span.end:
            to = min(span.cleaned_to, span.end)
            gaps.append((p, nxt, to, f"the cleaner compacted the log to {span.cleaned_to}: records in "
                                      f"[{nxt}, {to}) may have been removed before they were exported"))
        ranges[p] = (start, max(start, span.end))
    if gaps and gaps_policy == "raise":
        lines = "; ".join(f"partition {p} [{a}, {b}): {why}" if b else f"partition {p} from {a}: {why}"
                          for p, a, b, why in gaps)
        raise ExportGapError(f"records were never exported and cannot be any more: {lines}. Export into "
                             f"another table, or pass gaps='accept' (--accept-gaps) to go on past them",
                             table=name, gaps=gaps)
    return ranges, offsets, gaps


def _identifier(table: str) -> tuple[str, ...]:
    if not isinstance(table, str) or "." not in table.strip(".") or any(not p for p in table.split(".")):
        raise ConfigError(f"table must be 'namespace.name', got {table!r}")
    return tuple(table.split("."))


def _check_choice(name: str, value: Any, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")


class _Exporter:
    """One export's working state (see the module's notes)."""

    def __init__(self, src: TopicSource, cat: Any, ident: tuple[str, ...], *, scan_options: dict[str, Any],
                 partition_by: Sequence[str] | str | None, rename: Mapping[str, str] | None, on_error: str,
                 gaps: str, commit_bytes: int, properties: Mapping[str, str] | None,
                 progress: Callable[[int, int], None] | None, mode: str = "append", threads: int = 1,
                 unwrap: str | None = None) -> None:
        self.src = src
        self.unwrap = unwrap
        self.mode = mode
        self.threads = threads
        self.cat = cat
        self.ident = ident
        self.name = ".".join(ident)
        self.on_error = on_error
        self.gaps_policy = gaps
        self.commit_bytes = commit_bytes
        self.properties = dict(properties or {})
        self.progress = progress
        self.partition_by = parse_partition_by(partition_by)
        self.export_id = str(uuid.uuid4())
        self.base_scan, self.layout = self._plan(scan_options, rename)
        if mode == "upsert":
            kt = self.layout.schema.field("key").type
            if pa.types.is_nested(kt):
                raise ConfigError(f"mode='upsert' matches rows by their key: a {kt} key cannot be matched; export "
                                  f"the key as bytes or text (key_format='binary' or 'string')")
        self.table = self._load_or_create()
        self.dlq: Any = None

    # ---------------------------------------------------------------------------------------- layout
    def _plan(self, opts: dict[str, Any], rename: Mapping[str, str] | None) -> tuple[Scan, TableLayout]:
        typed_value = opts.get("value_format") not in (None, "binary")
        scan = Scan(self.src.scan_source, self.src.topic, threads=1, **opts)
        wanted = list(_KAFKA_COLUMNS)
        typed = scan._opts.typed
        if typed is not None:
            wanted += [c for c in typed.extra_columns() if c.endswith("SchemaId") or c.endswith("Error")]
        scan = scan.select(wanted)
        error_column = "valueError" if self.on_error == "dlq" and "valueError" in wanted else None
        if not typed_value and self.on_error == "dlq":
            raise ConfigError("on_error='dlq' sends records whose value does not decode to <table>_dlq: give "
                              "value_format= (a binary export decodes nothing)")
        return scan, layout_for(scan.schema, value_typed=typed_value, rename=rename, error_column=error_column,
                                unwrap=self.unwrap)

    def _load_or_create(self) -> Any:
        from pyiceberg.exceptions import (CommitFailedException, NamespaceAlreadyExistsError, NoSuchTableError,
                                          TableAlreadyExistsError)

        try:
            return self.cat.load_table(self.ident)
        except NoSuchTableError:
            pass
        try:
            self.cat.create_namespace_if_not_exists(self.ident[:-1])
        except NamespaceAlreadyExistsError:
            pass
        try:
            tx = self.cat.create_table_transaction(self.ident, schema=self.layout.schema, properties=self.properties)
            if self.partition_by:
                with tx.update_spec() as spec:
                    for column, transform in self.partition_by:
                        if column not in self.layout.table_names:
                            raise ConfigError(f"partition_by: the table has no column {column!r} (its columns: "
                                              f"{', '.join(self.layout.table_names)})")
                        spec.add_field(column, transform, f"{column}_{transform.split('[')[0]}")
            tx.commit_transaction()
        except (TableAlreadyExistsError, CommitFailedException):
            pass  # (another exporter made it first)
        return self.cat.load_table(self.ident)

    def _schema_change(self, table: Any) -> bool:
        """Whether the table's schema must follow the layout (new fields, promoted types)."""
        have = table.schema().as_arrow()
        for f in self.layout.schema:
            i = have.get_field_index(f.name)
            if i < 0 or have.field(i).type != f.type:
                return True
        return False

    # ----------------------------------------------------------------------------------------- state
    def state(self) -> ExportState:
        found = read_state(self.table)
        if found.topic is not None and found.topic != self.src.topic:
            raise IcebergExportError(f"the table holds topic {found.topic!r}, not {self.src.topic!r} (one topic "
                                     f"a table)", table=self.name)
        if found.mode is not None and found.mode != self.mode:
            raise IcebergExportError(f"the table was exported in {found.mode} mode, not {self.mode}", table=self.name)
        if found.cluster_id and self.src.cluster_id and found.cluster_id != self.src.cluster_id:
            raise IcebergExportError(f"the table was exported from cluster {found.cluster_id}, the source is "
                                     f"cluster {self.src.cluster_id}", table=self.name)
        return found

    def plan(self, state: ExportState, result: ExportResult) -> tuple[dict[int, tuple[int, int]], dict[int, int],
                                                                    list[tuple[int, int, int, str]]]:
        return plan_ranges(self.src, state, self.gaps_policy, self.name)

    # ---------------------------------------------------------------------------------------- export
    def run(self, result: ExportResult, retries: int) -> None:
        from pyiceberg.exceptions import CommitFailedException

        while True:
            try:
                self._run_once(result)
                return
            except CommitFailedException as exc:
                if result.retries >= retries:
                    raise IcebergExportError(f"another writer committed to the table first, {result.retries + 1} "
                                             f"times ({exc}): nothing of this attempt was committed",
                                             table=self.name) from None
                result.retries += 1
                self.table = self.cat.load_table(self.ident)
                if self.dlq is not None:
                    self.dlq = self.cat.load_table(self.dlq_ident)

    def _run_once(self, result: ExportResult) -> None:
        state = self.state()
        if not result.previous:
            result.previous = dict(state.offsets)
        ranges, offsets, gaps = self.plan(state, result)
        total = sum(b - a for a, b in ranges.values())
        reached = {p: 0 for p in ranges}
        for p, (start, end) in ranges.items():
            if start >= end and offsets.get(p) != end:
                offsets[p] = end  # (a new, empty partition: recorded so a later one's gaps are seen)
        chunk = self._chunk(gaps)
        try:
            for p, batch in _read(self.base_scan, {p: r for p, r in ranges.items() if r[0] < r[1]}, self.threads,
                                  self.commit_bytes):
                start, end = ranges[p]
                if batch is None:  # the partition read to its end
                    offsets[p] = end
                    reached[p] = end - start
                else:
                    last = batch.column("offset")[-1].as_py()
                    rows, bad = self._split(batch, p)
                    chunk.add(rows, bad)
                    offsets[p] = last + 1
                    reached[p] = last + 1 - start
                if self.progress is not None:
                    self.progress(sum(reached.values()), total)
                if chunk.bytes >= self.commit_bytes:
                    self._commit(state, offsets, chunk, result)
                    state = replace(state, snapshot_id=result.snapshot_id)
                    chunk = self._chunk([])
            if chunk.rows or chunk.dead or chunk.gaps or offsets != state.offsets or state.topic is None:
                self._commit(state, offsets, chunk, result)
                chunk = self._chunk([])
        finally:
            chunk.abandon()
        result.offsets = dict(sorted(offsets.items()))

    def _chunk(self, gaps: list[tuple[int, int, int, str]]) -> _Chunk:
        """A new commit's transaction (the schema evolved first when the topic's changed) and its writer."""
        tx = _single_attempt(self.table).transaction()
        if self._schema_change(self.table):
            from pyiceberg.exceptions import ResolveError, ValidationError

            try:
                with tx.update_schema() as update:
                    update.union_by_name(self.layout.schema)
            except (ValueError, TypeError, ValidationError, ResolveError) as exc:
                raise IcebergExportError(f"the topic's schema changed in a way the table cannot follow: {exc}",
                                         table=self.name) from None
        writer = (None if self.mode == "upsert" else
                  DataFileWriter(tx.table_metadata, self.table.io, self.layout.schema, self.commit_bytes))
        return _Chunk(tx, writer, list(gaps))

    def _split(self, batch: pa.RecordBatch, partition: int) -> tuple[pa.Table, pa.Table | None]:
        """The batch's rows for the table and, with ``on_error='dlq'``, those that did not decode."""
        err = self.layout.error_column
        bad = None
        if err is not None:
            failed = pc.is_valid(batch.column(err))
            if pc.any(failed).as_py():
                bad = batch.filter(failed)
                bad = self._dead_letters(partition, bad.column("offset"), bad.column("timestamp"), bad.column(err))
                batch = batch.filter(pc.invert(failed))
        rows = self.layout.to_table(batch)
        if self.mode == "upsert":
            value = batch.column("value")
            gone = pc.is_null(value)
            if self.unwrap is not None:  # (a Debezium delete: op "d", or no after state)
                op = pc.struct_field(value, "op")
                gone = pc.or_kleene(gone, pc.or_kleene(pc.equal(op, "d"), pc.is_null(pc.struct_field(value, "after"))))
                gone = pc.fill_null(gone, True)
            rows = rows.append_column(_TOMBSTONE, gone)
        return rows, bad

    def _dead_letters(self, partition: int, offsets: pa.Array, timestamps: pa.Array, reasons: pa.Array) -> pa.Table:
        """The raw key and value of the records that did not decode, read again as bytes."""
        lo, hi = pc.min(offsets).as_py(), pc.max(offsets).as_py() + 1
        raw = Scan(self.src.scan_source, self.src.topic, columns=["offset", "key", "value"], threads=1,
                   read_committed=self.src.read_committed, partitions=partition, start_offset=lo,
                   end_offset=hi).to_table()
        raw = raw.filter(pc.is_in(raw.column("offset"), value_set=offsets))
        by_offset = {o: i for i, o in enumerate(raw.column("offset").to_pylist())}
        order = pa.array([by_offset[o] for o in offsets.to_pylist()], pa.int64())
        return pa.table({"partition": pa.array([partition] * len(offsets), pa.int32()), "offset": offsets,
                         "timestamp": timestamps, "key": raw.column("key").take(order),
                         "value": raw.column("value").take(order), "reason": reasons}, schema=_DLQ_SCHEMA)

    @property
    def dlq_ident(self) -> tuple[str, ...]:
        return self.ident[:-1] + (self.ident[-1] + "_dlq",)

    def _commit_dead(self, dead: list[pa.Table], state: ExportState) -> int:
        """Append the dead letters past what ``<table>_dlq`` holds (its own summary says how far it got)."""
        from pyiceberg.exceptions import NoSuchTableError

        if self.dlq is None:
            try:
                self.dlq = self.cat.load_table(self.dlq_ident)
            except NoSuchTableError:
                try:
                    self.dlq = self.cat.create_table(self.dlq_ident, schema=_DLQ_SCHEMA)
                except Exception:  # (another exporter's, made meanwhile)
                    self.dlq = self.cat.load_table(self.dlq_ident)
        have = read_state(self.dlq).offsets
        rows = pa.concat_tables(dead)
        if have:
            keep = [have.get(p, 0) <= o for p, o in zip(rows.column("partition").to_pylist(),
                                                          rows.column("offset").to_pylist())]
            rows = rows.filter(pa.array(keep))
        if rows.num_rows == 0:
            return 0
        reached = dict(have)
        for p, o in zip(rows.column("partition").to_pylist(), rows.column("offset").to_pylist()):
            reached[p] = max(reached.get(p, 0), o + 1)
        tx = _single_attempt(self.dlq).transaction()
        tx.append(rows, snapshot_properties=summary_of(replace(state, offsets=reached), [], self.export_id))
        self.dlq = tx.commit_transaction()
        return int(rows.num_rows)

    def _commit(self, state: ExportState, offsets: dict[int, int], chunk: _Chunk, result: ExportResult) -> None:
        new_state = ExportState(self.src.topic, self.src.topic_id, self.src.cluster_id or state.cluster_id,
                                self.mode, dict(offsets))
        if chunk.dead:
            result.dead_letters += self._commit_dead(chunk.dead, new_state)
        props = summary_of(new_state, chunk.gaps, self.export_id)
        tx = chunk.tx
        if chunk.writer is not None:
            files = chunk.writer.finish()
            with tx.update_snapshot(snapshot_properties=props).fast_append() as append:
                for f in files:
                    append.append_data_file(f)
            written, size = chunk.rows, chunk.bytes
        else:
            rows = pa.concat_tables(chunk.pending).combine_chunks() if chunk.pending else None
            written = size = 0
            if rows is not None and rows.num_rows:
                latest, dead_keys = upsert.latest_per_key(rows.drop_columns([_TOMBSTONE]), rows.column(_TOMBSTONE),
                                                          self.name)
                written, deleted = upsert.apply(tx, latest, dead_keys, props)
                result.deleted += deleted
                size = latest.nbytes
            if tx.table_metadata.current_snapshot_id == self.table.metadata.current_snapshot_id:
                # (nothing staged a snapshot, as tombstones of keys the table never held: the offsets still move)
                tx.append(self.layout.schema.empty_table(), snapshot_properties=props)
        self.table = tx.commit_transaction()
        snap = self.table.current_snapshot()
        result.snapshot_id = snap.snapshot_id if snap is not None else None
        result.rows += written
        result.bytes += size
        result.commits += 1
        result.gaps += chunk.gaps


class _Chunk:
    """What one commit gathers: its transaction, its data files being written (append mode) or its rows
    (upsert mode), its dead letters and the gaps it went past."""

    def __init__(self, tx: Any, writer: DataFileWriter | None, gaps: list[tuple[int, int, int, str]]) -> None:
        self.tx = tx
        self.writer = writer
        self.gaps = gaps
        self.pending: list[pa.Table] = []
        self.dead: list[pa.Table] = []
        self.rows = 0
        self.bytes = 0

    def add(self, rows: pa.Table, bad: pa.Table | None) -> None:
        if rows.num_rows:
            if self.writer is not None:
                self.writer.add(rows)
            else:
                self.pending.append(rows)
            self.rows += rows.num_rows
            self.bytes += rows.nbytes
        if bad is not None:
            self.dead.append(bad)

    def abandon(self) -> None:
        if self.writer is not None:
            self.writer.abandon()


def export(source: Any, topic: str, table: str, *, warehouse: str | os.PathLike[str] | None = None,
           catalog: Any = None, mode: str = "append", value_format: Any = None, key_format: Any = None,
           schemas: Any = None, value_schema: Any = None, key_schema: Any = None, value_subject: str | None = None,
           key_subject: str | None = None, value_message: str | None = None, key_message: str | None = None,
           partition_by: Sequence[str] | str | None = DEFAULT_PARTITION_BY, rename: Mapping[str, str] | None = None,
           on_error: str = "stop", gaps: str = "raise", read_committed: bool = True,
           commit_bytes: int = DEFAULT_COMMIT_BYTES, properties: Mapping[str, str] | None = None,
           backup_run: int | None = None, remote_storage: Any = None, remote_log_metadata: Any = None,
           retries: int = 3, progress: Callable[[int, int], None] | None = None,
           threads: int | None = None, unwrap: str | None = None) -> ExportResult:
    """Export ``topic`` of ``source`` into the Iceberg table ``table`` (``"namespace.name"``), from where the
    table's last export stopped to what the source has committed; see the module's notes and
    ``docs/iceberg.md``.

    ``source``: what :func:`kvlog.scan` reads (a data directory of a stopped or running broker, several
    brokers' directories, a ``kvlog backup``, a tiered cluster's with ``remote_storage``, a URI).
    ``warehouse``: a folder for the embedded catalog (SQLite in the folder); ``catalog``: any pyiceberg
    catalog instead (a ``Catalog``, a REST or SQLAlchemy URI, or its properties). ``value_format``,
    ``key_format``, ``schemas``, ``*_schema``, ``*_subject``, ``*_message``: as for :func:`kvlog.scan` (a typed
    value's fields become columns; ``rename`` renames those that collide with Kafka's metadata columns).
    ``partition_by``: Iceberg partition transforms (default ``hour(timestamp)``; None: unpartitioned).
    ``on_error``: ``"stop"`` (a record whose value does not decode raises) or ``"dlq"`` (it goes to
    ``<table>_dlq`` with its raw bytes and the reason). ``gaps``: ``"raise"`` or ``"accept"`` (see the
    notes). ``read_committed``: leave out aborted and open transactions' records (the default, as Kafka's
    read_committed consumers). ``commit_bytes``: rows (in Arrow bytes) per commit. ``properties``: the table's
    properties when it is created (``write.target-file-size-bytes``...). ``progress(done, total)``: offsets.
    ``threads``: partitions read at once (default: as :func:`kvlog.scan`); the data files are written by
    pyiceberg's own thread pool meanwhile. ``mode``: ``"append"`` (every record a row) or ``"upsert"`` (the
    latest record of each key, a tombstone deleting it; :mod:`kvlog.iceberg.upsert`). ``unwrap="debezium"``
    (upsert mode): values are Debezium change events; the table's columns are their ``after`` state's fields,
    and an event with ``op`` ``"d"`` (or no ``after``) deletes its key.
    """
    started = time.monotonic()
    ident = _identifier(table)
    _check_choice("mode", mode, MODES)
    _check_choice("on_error", on_error, ON_ERROR)
    _check_choice("gaps", gaps, GAPS)
    if unwrap is not None:
        _check_choice("unwrap", unwrap, ("debezium",))
        if mode != "upsert":
            raise ConfigError("unwrap='debezium' applies change events: give mode='upsert'")
    if not isinstance(commit_bytes, int) or isinstance(commit_bytes, bool) or commit_bytes <= 0:
        raise ConfigError(f"commit_bytes must be a positive integer, got {commit_bytes!r}")
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
        raise ConfigError(f"threads must be a positive integer, got {threads!r}")
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise ConfigError(f"retries must be a non-negative integer, got {retries!r}")
    cat = catalogs.resolve(catalog, warehouse)
    src = TopicSource(source, topic, read_committed=read_committed, backup_run=backup_run,
                      remote_storage=remote_storage, remote_log_metadata=remote_log_metadata)
    try:
        scan_options: dict[str, Any] = {"read_committed": read_committed}
        typed = {"value_format": value_format, "key_format": key_format, "value_schema": value_schema,
                 "key_schema": key_schema, "value_subject": value_subject, "key_subject": key_subject,
                 "value_message": value_message, "key_message": key_message}
        scan_options.update({k: v for k, v in typed.items() if v is not None})
        if value_format not in (None, "binary") or key_format not in (None, "binary"):
            from kvlog.schemas.formats import schema_source
            from kvlog.schemas.schemas_topic import SchemasTopic

            scan_options["schemas"] = schema_source(schemas, own=lambda: SchemasTopic.read(src.scan_source))
            scan_options["errors"] = "null" if on_error == "dlq" else "raise"
        elif schemas is not None:
            raise ConfigError("schemas= is for typed keys or values: give value_format= or key_format=")
        exporter = _Exporter(src, cat, ident, scan_options=scan_options, partition_by=partition_by, rename=rename,
                             on_error=on_error, gaps=gaps, commit_bytes=commit_bytes, properties=properties,
                             progress=progress, mode=mode,
                             threads=default_threads() if threads is None else threads, unwrap=unwrap)
        result = ExportResult(".".join(ident))
        exporter.run(result, retries)
        if not result.offsets:
            result.offsets = dict(result.previous)
        result.seconds = time.monotonic() - started
        return result
    finally:
        src.close()
