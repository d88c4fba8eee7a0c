"""LogCleaner: key-based compaction (Kafka's Cleaner) with the KIP-280 strategies.

One pass over a log:

1. The dirty section runs from the cleaner checkpoint (``cleaner-offset-checkpoint``) to the first
   uncleanable offset: the active segment, or the first segment younger than ``min.compaction.lag.ms``.
2. An ``OffsetMap`` is built over the dirty section: the MD5 of each key maps to the offset (and, for
   the ``timestamp``/``header`` strategies, the version) of the record that should survive. The pass
   stops early when the map reaches its load factor, and this pass then cleans up to that point.
   For the ``timestamp``/``header`` strategies the map covers the whole log below the first
   uncleanable offset, because an older record may outrank a newer one.
3. Every segment below that end is recopied, a group at a time, into ``.cleaned`` segments:
   - A batch with nothing to remove is copied verbatim.
   - Any other v2 batch is rebuilt through the record kernels with the same codec, producer fields
     and offsets (gaps are fine), and keeps only the records the map says survive.
   - A v0/v1 entry that keeps records is rewritten as a v2 batch, as Kafka 4.0's cleaner does
     (KAFKA-13093), or in its own magic for ``kafka_version`` before 4.0.
   - Tombstones (null values) survive until ``delete.retention.ms`` after their batch was first
     cleaned. The time is stored as the batch's delete horizon (KIP-534). A v0/v1 tombstone has no
     horizon: it goes once its segment is no newer than the last clean one less ``delete.retention.ms``.
4. The cleaned segments replace the old ones with Kafka's crash-safe ``.cleaned`` → ``.swap`` →
   ``.deleted`` protocol, and the checkpoint moves to the cleaned end.

Where Kafka's cleaner keeps things:

- The batch that holds the log end offset is kept, emptied if need be, so the log end offset never
  moves back: from Kafka 4.4 (KAFKA-20452) the one ending at the high watermark (in a single-node log
  the active segment's, which is never cleaned), in 4.0-4.3 the one ending at the first uncleanable
  offset (KAFKA-17076), before 4.0 none.
- The last batch of every active producer is kept (emptied if need be) so that its sequence and
  epoch survive; when its last entry is a marker, that marker is kept.

Transactions (Kafka's CleanedTransactionMetadata rules):

- Cleaning stops before the segment holding the last stable offset (open transactions).
- Batches of aborted transactions (from the transaction indexes) are never mapped and are removed.
- An ABORT marker is kept while data of its transaction was seen in this pass (and its entry goes
  into the cleaned segment's ``.txnindex``); a COMMIT marker while data of that producer's
  transaction was seen. Otherwise the marker is discardable: it gets a delete horizon
  (``delete.retention.ms``) the first time, and goes once the horizon has passed.
"""

from __future__ import annotations

import numbers
import os
import time as _time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pyarrow as pa

from kvlog import _files, checkpoint
from kvlog._arrow import int64_array, numpy_of, valid_mask
from kvlog._core import records as _k
from kvlog._walk import BatchWalk
from kvlog.cleaner.generations import Generations
from kvlog.cleaner.rebuild import RebuildColumns, one_array
from kvlog.cleaner.stats import INT32_MAX, KAFKA_VERSION, CleanerStats, header_version, parse_kafka_version
from kvlog.cleaner.transactions import CleanedTransactionMetadata, control_batches
from kvlog.errors import ConfigError, KvlogError, LogIOError
from kvlog.log import Log
from kvlog.offset_map import OffsetMap, md5_arrow
from kvlog.records import MemoryRecords, Record, encode_arrays, key_columns
from kvlog.segment import LogSegment
from kvlog.txn_index import aborted_batch_mask, entries_array

__all__ = ["LogCleaner"]


class LogCleaner:
    """Compacts logs whose ``cleanup.policy`` includes ``compact``.

    ``dedupe_buffer_size`` bytes hold the offset map (24 bytes per key for the offset strategy, 32 with
    a version); ``load_factor`` is how full it may get before a pass stops early (Kafka's
    ``log.cleaner.io.buffer.load.factor``).
    """

    def __init__(self, dedupe_buffer_size: int = 128 << 20, load_factor: float = 0.9, *,
                 time: Callable[[], int] | None = None, progress: Callable[[str], None] | None = None,
                 generational: bool = False, min_yield: float = 0.2, full_every: int = 8,
                 kafka_version: str = KAFKA_VERSION):
        for name, value in (("dedupe_buffer_size", dedupe_buffer_size), ("full_every", full_every)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"LogCleaner {name} takes an int, not {type(value).__name__} {value!r}")
        for fname, fvalue in (("load_factor", load_factor), ("min_yield", min_yield)):
            if isinstance(fvalue, bool) or not isinstance(fvalue, numbers.Real):
                raise TypeError(f"LogCleaner {fname} takes a number, not {type(fvalue).__name__} {fvalue!r}")
        if dedupe_buffer_size <= 0:
            raise ConfigError(f"dedupe_buffer_size must be positive, got {dedupe_buffer_size}")
        if not 0 < load_factor <= 1:
            raise ConfigError("load_factor must be in (0, 1]")
        if not 0 <= min_yield <= 1 or full_every < 1:
            raise ConfigError("min_yield must be in [0, 1] and full_every at least 1")
        self.kafka_version = parse_kafka_version(kafka_version)
        self.generational = generational
        self.min_yield = min_yield
        self.full_every = full_every
        self.dedupe_buffer_size = int(dedupe_buffer_size)
        self.load_factor = float(load_factor)
        self._time = time  # None: each log's own clock (Kafka's cleaner and log share one Time)
        self._progress = progress
        self.uncleanable: set[str] = set()
        self._maps: dict[str, OffsetMap] = {}
        self._chunk_cache: dict[tuple[str, int], tuple[np.ndarray, dict[str, Any], memoryview, int]] = {}
        self._cached_bytes = 0
        self._caching = False

    # ------------------------------------------------------------------------------ selection
    def _sizes(self, log: Log, now: int) -> tuple[int, int]:
        """Kafka's ``LogToClean`` sizes: the clean bytes (segments below the first dirty offset) and the cleanable
        ones (segments overlapping [first dirty, first uncleanable): not what an open transaction or
        ``min.compaction.lag.ms`` holds back, nor the active segment)."""
        first_dirty = self._first_dirty(log)
        upper = max(first_dirty, self._first_uncleanable(log, now))
        segs = log.segments
        clean = sum(s.size_in_bytes for s in segs if s.base_offset < first_dirty)
        if upper <= first_dirty:
            return clean, 0
        floor = max((s.base_offset for s in segs if s.base_offset <= first_dirty), default=first_dirty)
        return clean, sum(s.size_in_bytes for s in segs if floor <= s.base_offset < upper)

    def dirty_ratio(self, log: Log, now_ms: int | None = None) -> float:
        """Kafka's cleanable ratio: cleanable bytes over clean and cleanable bytes (see ``_sizes``)."""
        clean, cleanable = self._sizes(log, self._now(log) if now_ms is None else now_ms)
        return cleanable / (clean + cleanable) if clean + cleanable else 0.0

    def clean_filthiest(self, logs: Any, now_ms: int | None = None) -> CleanerStats | None:
        """Clean the compacted log with the highest dirty ratio above ``min.cleanable.dirty.ratio`` (or with
        cleanable bytes past ``max.compaction.lag.ms``), as Kafka's ``grabFilthiestCompactedLog`` picks it.

        ``logs``: a LogManager or an iterable of Logs. Logs that failed before are skipped.
        """
        candidates = logs.logs() if hasattr(logs, "logs") else list(logs)
        best, best_ratio, best_now = None, -1.0, 0
        for log in candidates:
            if not log.config.compact or log.dir in self.uncleanable or len(log.segments) < 2:
                continue
            now = self._now(log) if now_ms is None else now_ms
            clean, cleanable = self._sizes(log, now)
            if clean + cleanable == 0:
                continue
            ratio = cleanable / (clean + cleanable)
            overdue = cleanable > 0 and self._max_lag_exceeded(log, now)
            if (ratio > log.config.min_cleanable_dirty_ratio or overdue) and ratio > best_ratio:
                best, best_ratio, best_now = log, ratio, now
        if best is None:
            return None
        return self.clean(best, now_ms=best_now)

    def _now(self, log: Log) -> int:
        """The cleaner's clock when it was given one, else the log's (delete horizons follow its time)."""
        return self._time() if self._time is not None else log.clock_ms()

    def _max_lag_exceeded(self, log: Log, now: int) -> bool:
        """Kafka's maxCompactionDelay > 0: the earliest first-batch timestamp of the dirty non-active segments is
        older than ``max.compaction.lag.ms``."""
        first_dirty = self._first_dirty(log)
        segs = log.segments
        stamps = [ts for i, seg in enumerate(segs[:-1]) if segs[i + 1].base_offset > first_dirty
                  and (ts := seg.rolling_based_timestamp) is not None and ts > 0]
        return bool(stamps) and min(stamps) < now - log.config.max_compaction_lag_ms

    # ---------------------------------------------------------------------------- checkpoints
    @staticmethod
    def _checkpoint_path(log: Log) -> str:
        return os.path.join(os.path.dirname(log.dir), checkpoint.CLEANER_OFFSET)

    def _first_dirty(self, log: Log) -> int:
        try:
            table = checkpoint.read_offsets(self._checkpoint_path(log))
        except checkpoint.CorruptCheckpointError:
            table = {}
        off = table.get((log.topic, log.partition), log.log_start_offset)
        if off < log.log_start_offset or off > log.log_end_offset:
            off = log.log_start_offset
        return off

    def _write_first_dirty(self, log: Log, offset: int) -> None:
        from kvlog.root_files import _RootLock

        with _RootLock(os.path.dirname(log.dir)):
            checkpoint.update_offsets(self._checkpoint_path(log), {(log.topic, log.partition): offset})

    # --------------------------------------------------------------------------------- clean
    def _map_for(self, strategy: str, max_keys: int) -> OffsetMap:
        """A cleared map big enough for ``max_keys`` keys, at most ``dedupe_buffer_size`` bytes.

        A pass cannot put more keys than its section has records, and clearing (or first touching) a
        128 MiB map costs more than cleaning a small log, so the map is sized to the section: a power
        of two of bytes, reused while it fits.
        """
        bpe = 24 if strategy == "offset" else 32
        want = int(max_keys * bpe / self.load_factor) + 4 * bpe
        size = 1 << 16
        while size < want:
            size <<= 1
        size = min(size, self.dedupe_buffer_size)
        m = self._maps.get(strategy)
        if m is None or m.memory != size:
            m = self._maps[strategy] = OffsetMap(size, strategy=strategy, load_factor=self.load_factor)
        else:
            m.clear()
        return m

    def clean(self, log: Log, now_ms: int | None = None, *, full: bool = False) -> CleanerStats:
        """One cleaning pass over ``log`` now, whatever its dirty ratio.

        ``full=True`` maps the whole log, not only the dirty section, so that every superseded record
        goes, including ones in segments a generational pass chose to leave alone.
        """
        if not log.config.compact:
            raise ConfigError(f"log {log.dir} does not have cleanup.policy=compact")
        if log.read_only:
            raise KvlogError(f"log {log.dir} is open read-only")
        t0 = _time.perf_counter()
        now = self._now(log) if now_ms is None else now_ms
        stats = CleanerStats(log=log.dir)
        try:
            self._clean(log, now, stats, full)
        except KvlogError:
            self.uncleanable.add(log.dir)
            raise
        except OSError as exc:
            raise LogIOError(f"cleaning {log.dir} failed: {exc}") from exc
        finally:
            # cached chunks are keyed by path, and a cleaned segment reuses its predecessor's path
            self._chunk_cache.clear()
            self._cached_bytes = 0
        stats.elapsed_s = _time.perf_counter() - t0
        stats.dirty_ratio_after = self.dirty_ratio(log, now)
        if self._progress:
            self._progress(stats.summary())
        return stats

    def _first_uncleanable(self, log: Log, now: int) -> int:
        segs = log.segments
        upper = segs[-1].base_offset  # the active segment is never cleaned
        lso = log.last_stable_offset  # nor the segment holding an open transaction's start
        holding = [s.base_offset for s in segs if s.base_offset <= lso]
        if holding:
            upper = min(upper, holding[-1])
        lag = log.config.min_compaction_lag_ms
        if lag > 0:
            for seg in segs[:-1]:
                if seg.size_in_bytes and seg.largest_timestamp > now - lag:
                    upper = min(upper, seg.base_offset)
                    break
        return upper

    def _clean(self, log: Log, now: int, stats: CleanerStats, full: bool = False) -> None:
        cfg = log.config
        strategy = cfg.effective_compaction_strategy
        header_key = cfg.compaction_strategy_header
        gen = Generations.load(log) if self.generational else None
        if gen is not None and not full and (gen.passes + 1) % self.full_every == 0:
            full = True  # the periodic full pass of the generational scheduler
        first_dirty = log.log_start_offset if full else self._first_dirty(log)
        upper = max(first_dirty, self._first_uncleanable(log, now))
        stats.first_dirty_offset = first_dirty
        stats.dirty_ratio_before = self.dirty_ratio(log, now)
        stats.segments_before = len(log.segments)
        # offset: later offsets always win, so the dirty section suffices (Kafka). timestamp/header: an
        # older record can outrank a newer one, so the map must see the clean section too, or a
        # clean-section record with a higher version would survive beside the dirty winner.
        map_start = first_dirty if strategy == "offset" else log.log_start_offset
        self._caching = True  # the count, the map and the recopy read each chunk once (see _decode)
        try:
            max_keys = self._scan_headers(log, map_start, upper)
            active_producers = log.last_records_of_active_producers()
            omap = self._map_for(strategy, max_keys)
            end = self._build_map(log, omap, map_start, upper, strategy, header_key, stats)
        except BaseException:
            self._chunk_cache.clear()
            self._cached_bytes = 0
            raise
        finally:
            self._caching = False
        if not stats.map_full:  # Kafka's map ends at the last offset before the first uncleanable one, so a
            omap.update_latest_offset(end - 1)  # keyless record there is "mapped" and goes (not past the map)
        stats.map_entries = omap.size
        stats.map_utilization = omap.utilization
        stats.end_offset = end
        # Kafka's legacyDeleteHorizonMs: a v0/v1 tombstone (no delete horizon of its own) is kept in a segment
        # modified after the last clean segment's modification time less delete.retention.ms (0: no clean segment)
        clean = [s for s in log.segments if s.base_offset < first_dirty]
        legacy_horizon = _mtime_ms(clean[-1]) - cfg.delete_retention_ms if clean else 0
        # the emptied batch kept so the log end offset survives (KAFKA-17076): in Kafka 4.0-4.3 the one ending
        # at the first uncleanable offset, from 4.4 the one ending at the high watermark (KAFKA-20452)
        keep_empty_at = (log.high_watermark if self.kafka_version >= (4, 4)
                         else upper if self.kafka_version >= (4, 0) else None)
        # segments fully below `end` are recopied (the dirty ones and the clean ones before them)
        segs = [s for i, s in enumerate(log.segments[:-1])
                if (log.segments[i + 1].base_offset <= end)]
        if gen is not None:
            if segs and len(log.aborted_transactions(log.log_start_offset, end)):
                full = True  # aborted data and its markers must be seen in one pass (see CleanedTransactionMetadata)
            segs = gen.choose(segs, first_dirty, max_keys, self.min_yield, full, stats)
        if segs:
            txns = CleanedTransactionMetadata()
            for group in self._group(segs, cfg, log):
                read0, written0 = stats.bytes_read, stats.bytes_written
                self._clean_group(log, group, omap, now, strategy, header_key, stats, active_producers,
                                  keep_empty_at=keep_empty_at, txns=txns, legacy_horizon=legacy_horizon)
                if gen is not None:
                    gen.record(group[0].base_offset, stats.bytes_read - read0, stats.bytes_written - written0,
                               max_keys)
        self._chunk_cache.clear()
        self._cached_bytes = 0
        if gen is not None:
            gen.finish_pass(log, max_keys)
        self._write_first_dirty(log, end)
        stats.segments_after = len(log.segments)

    _CACHE_BYTES = 128 << 20

    def _decode(self, seg: LogSegment, with_headers: bool
                ) -> Iterable[tuple[np.ndarray, dict[str, Any] | None, memoryview]]:
        """(headers, extras, raw bytes) per chunk of about 8 MiB of whole batches, each byte read once.

        Chunks the map pass read are kept (up to 128 MiB) for the recopy pass of the same clean; for
        those, ``extras`` is a dict kept with the chunk (the map pass leaves its decoded table there for
        the recopy), else None.
        """
        pos = 0
        cache = self._chunk_cache
        while pos < seg.size_in_bytes:
            # while caching (the count and the map pass) a chunk stays for the recopy, which takes it
            hit = cache.get((seg.log_path, pos)) if self._caching else cache.pop((seg.log_path, pos), None)
            if hit is not None:
                if not self._caching:
                    self._cached_bytes -= hit[3]
                yield hit[0], hit[1], hit[2]
                pos += len(hit[2])
                continue
            walk = BatchWalk(seg.fileno, pos, seg.size_in_bytes, 8 << 20, pooled=True)
            for at, data in walk:  # an incomplete tail ends the walk (recovery cuts these)
                hdrs = MemoryRecords(data).batch_headers(check_crc=True)
                if not len(hdrs):
                    continue  # one batch larger than the window: the walk reads it whole
                end = int(hdrs["position"][-1] + hdrs["size"][-1])
                walk.advance(end)
                hdrs = hdrs.copy()
                hdrs["position"] += at
                piece = memoryview(data)[:end]  # pooled windows are memoryviews already
                extras: dict[str, Any] | None = None
                # room for the bytes and for their decoded table (about as large again)
                if self._caching and self._cached_bytes + 2 * len(piece) <= self._CACHE_BYTES:
                    extras = {}
                    cache[(seg.log_path, at)] = (hdrs, extras, piece, 2 * len(piece))
                    self._cached_bytes += 2 * len(piece)
                yield hdrs, extras, piece
                pos = at + end
                if (seg.log_path, pos) in cache:
                    break  # the rest starts with a chunk read before
            else:
                return

    def _versions(self, recs: list[Record], strategy: str, header_key: str, stats: CleanerStats) -> list[int]:
        if strategy == "timestamp":
            return [r.timestamp if r.timestamp is not None else -1 for r in recs]
        out = []
        for r in recs:
            v, bad = header_version(r.headers, header_key)
            stats.malformed_versions += bad
            out.append(v)
        return out

    def _build_map(self, log: Log, omap: OffsetMap, start: int, upper: int, strategy: str, header_key: str,
                   stats: CleanerStats) -> int:
        """Put the dirty section's keys; returns the offset the pass can clean up to."""
        end = start
        aborted = entries_array(log.aborted_array(start, upper))
        for seg in log.segments[:-1]:
            i = log.segments.index(seg)
            nxt = log.segments[i + 1].base_offset
            if nxt <= start or seg.base_offset >= upper:
                continue
            for hdrs, extras, data in self._decode(seg, strategy == "header"):
                skip = aborted_batch_mask(hdrs["producer_id"], hdrs["base_offset"], hdrs["attributes"], aborted,
                                          hdrs["magic"]) if len(aborted) else None
                if strategy != "header":
                    digests = None
                    if extras is None:
                        keys, offsets, stamps = key_columns(data)  # no value bytes copied
                        keep = (offsets >= start) & (offsets < upper)
                    else:  # a chunk the recopy will take from the cache: decode it whole, once, for both
                        table = extras["table"] = MemoryRecords(data).to_arrow(
                            include_headers=True, check_crc=False, include_control=True)
                        keys = one_array(table.column("key"))
                        digests = extras["digests"] = md5_arrow(keys)  # hashed once for both passes
                        offsets = numpy_of(table.column("offset"))
                        stamps = numpy_of(table.column("timestamp")) // 1000
                        keep = (offsets >= start) & (offsets < upper)
                        control = control_batches(hdrs)
                        if control.any():  # control records never enter the map
                            keep &= ~control[np.searchsorted(hdrs["last_offset"], offsets, side="left")]
                    if skip is not None and skip.any():  # aborted transactions never enter the map
                        keep &= ~skip[np.searchsorted(hdrs["last_offset"], offsets, side="left")]
                    if not keep.any():
                        continue
                    if not keep.all():
                        idx = np.nonzero(keep)[0]
                        keys, offsets, stamps = keys.take(int64_array(idx)), offsets[idx], stamps[idx]
                        digests = digests[idx] if digests is not None else None
                    n = omap.put_arrow(keys, offsets, stamps if strategy == "timestamp" else None, digests)
                    if n < len(offsets):
                        stats.map_full = True
                        return int(offsets[n]) if n else max(end, start)
                    end = int(offsets[-1]) + 1
                    continue
                mr = MemoryRecords(data)
                table = mr.to_arrow(include_headers=True, check_crc=False)
                offsets = numpy_of(table.column("offset"))
                keep = (offsets >= start) & (offsets < upper)
                if skip is not None and skip.any():
                    keep &= ~skip[np.searchsorted(hdrs["last_offset"], offsets, side="left")]
                if not keep.any():
                    continue
                table = table.filter(keep)
                offsets = offsets[keep]
                versions = None
                if strategy == "header":
                    recs = [Record(None, None, None, tuple((h["key"], h["value"]) for h in (hs or ())))
                            for hs in table.column("headers").to_pylist()]
                    versions = np.asarray(self._versions(recs, strategy, header_key, stats), dtype=np.int64)
                n = omap.put_arrow(table.column("key"), offsets, versions)
                if n < len(offsets):
                    stats.map_full = True
                    return int(offsets[n]) if n else max(end, start)
                end = int(offsets[-1]) + 1
            end = max(end, min(nxt, upper))
        return max(end, start)

    def _scan_headers(self, log: Log, start: int, upper: int) -> int:
        """A bound on the keys in [start, upper): the records there, from batch headers. The chunks it
        reads (CRCs checked) are the ones the map pass reads next: through the chunk cache, not again."""
        records = 0
        segs = log.segments
        for i, seg in enumerate(segs):
            counted = i + 1 < len(segs) and segs[i + 1].base_offset > start and seg.base_offset < upper
            if not counted:
                continue
            for hdrs, _, _ in self._decode(seg, False):
                records += int(np.where(hdrs["record_count"] >= 0, hdrs["record_count"], hdrs["size"] // 14).sum())
        return records

    @staticmethod
    def _group(segs: list[LogSegment], cfg: Any, log: Log | None = None) -> list[list[LogSegment]]:
        """Kafka's groupSegmentsBySize: by log size, index size and relative-offset span; a group is
        always a run of adjacent segments (the generational scheduler may skip some)."""
        groups: list[list[LogSegment]] = []
        cur: list[LogSegment] = []
        size = idx = 0
        order = {id(s): i for i, s in enumerate(log.segments)} if log is not None else None
        for seg in segs:
            adjacent = not cur or order is None or order[id(seg)] == order[id(cur[-1])] + 1
            fits = (cur and adjacent and size + seg.size_in_bytes <= cfg.segment_bytes
                    and idx + seg.offset_index.size_in_bytes <= cfg.segment_index_bytes
                    and seg.read_next_offset() - 1 - cur[0].base_offset <= INT32_MAX)
            if cur and not fits:
                groups.append(cur)
                cur, size, idx = [], 0, 0
            cur.append(seg)
            size += seg.size_in_bytes
            idx += seg.offset_index.size_in_bytes
        if cur:
            groups.append(cur)
        return groups

    def _clean_group(self, log: Log, group: list[LogSegment], omap: OffsetMap, now: int, strategy: str,
                     header_key: str, stats: CleanerStats, active_producers: dict[int, tuple[int, int]],
                     keep_empty_at: int | None, txns: "CleanedTransactionMetadata", legacy_horizon: int = 0) -> None:
        out = log.new_cleaned_segment(group[0].base_offset)
        txns.cleaned_index = out.txn_index
        mtime = os.stat(group[-1].log_path).st_mtime
        segs = log.segments
        try:
            for seg in group:
                # every aborted transaction overlapping the segment, so the cleaned one gets a full index
                i = segs.index(seg)
                upper = segs[i + 1].base_offset if i + 1 < len(segs) else seg.read_next_offset()
                txns.add_aborted(log.aborted_array(seg.base_offset, upper))
                legacy_deletes = _mtime_ms(seg) > legacy_horizon
                for hdrs, extras, data in self._decode(seg, True):
                    stats.bytes_read += len(data)
                    blob = self._filter_chunk(data, hdrs, omap, now, strategy, header_key, log.config, stats,
                                              active_producers, keep_empty_at, txns, extras, legacy_deletes)
                    if blob:
                        out.append(blob, MemoryRecords(blob).batch_headers(check_crc=False))
                        stats.bytes_written += len(blob)
            log.replace_segments([out], group)
            for path in out.paths():  # as Kafka: the last source's mtime, for mtime-based rules
                os.utime(path, (mtime, mtime))
        except BaseException:
            if out.suffix == _files.CLEANED:
                out.delete()  # nothing was swapped yet: the old segments are untouched
            # once .swap files exist they are the data: Log.open finishes the swap (§8.5)
            raise

    def _filter_chunk(self, data: memoryview, hdrs: np.ndarray, omap: OffsetMap, now: int, strategy: str,
                      header_key: str, cfg: Any, stats: CleanerStats, active_producers: dict[int, tuple[int, int]],
                      keep_empty_at: int | None, txns: "CleanedTransactionMetadata", extras: dict[str, Any] | None = None,
                      legacy_deletes: bool = True) -> bytes:
        """Recopy one chunk of whole batches, deciding on columns (no Python loop per record; one per
        transactional or control batch for the transaction rules). ``extras``: what the map pass left
        for this chunk (its decoded table and key digests)."""
        table = None if extras is None else extras.get("table")
        digests = None if extras is None else extras.get("digests")
        base = int(hdrs["position"][0])
        nb = len(hdrs)
        magic = hdrs["magic"]
        attrs = hdrs["attributes"].astype(np.int64)
        control = control_batches(hdrs)
        if table is None:
            table = MemoryRecords(data).to_arrow(include_headers=True, check_crc=False, include_control=True)
        offsets = numpy_of(table.column("offset"))
        bidx = np.searchsorted(hdrs["last_offset"], offsets, side="left")
        keys = table.column("key")
        discard = txns.decide(hdrs, control, bidx, keys)  # aborted data, markers no longer needed
        versions = None
        if strategy == "timestamp":
            versions = numpy_of(table.column("timestamp")) // 1000
        elif strategy == "header":
            versions = np.asarray(self._versions(
                [Record(None, None, None, tuple((h["key"], h["value"]) for h in (hs or ())))
                 for hs in table.column("headers").to_pylist()], strategy, header_key, stats), dtype=np.int64)
        retain = omap.retain_arrow(keys, offsets, versions, digests).astype(bool)
        # Kafka: a record without a key is discarded once the map has passed its offset
        retain &= ~(~valid_mask(keys) & (offsets <= omap.latest_offset))
        hz = np.where((magic == 2) & ((attrs & 0x40) != 0), hdrs["base_timestamp"], -1)
        # a discardable marker: stamped with a delete horizon first, removed once that has passed
        ctrl_drop = control & discard & (hz >= 0) & (now >= hz)
        ctrl_stamp = control & discard & (hz < 0)
        retain = np.where(control[bidx], ~ctrl_drop[bidx], retain & ~discard[bidx])
        tomb = ~valid_mask(table.column("value")) & ~control[bidx]
        expired = retain & tomb & (hz[bidx] >= 0) & (now >= hz[bidx])
        if not legacy_deletes:  # v0/v1 tombstones in a segment older than the legacy horizon (see _clean)
            expired |= retain & tomb & (magic[bidx] < 2)
        retain &= ~expired
        stats.tombstones_removed += int(expired.sum())
        stats.records_read += len(offsets)
        stats.records_retained += int(retain.sum())
        total = np.bincount(bidx, minlength=nb)
        kept = np.bincount(bidx, weights=retain, minlength=nb).astype(np.int64)
        live_tomb = np.bincount(bidx, weights=retain & tomb, minlength=nb) > 0
        start_clock = ((magic == 2) & (hz < 0) & live_tomb) | ctrl_stamp  # KIP-534: first cleaning
        new_hz = np.where(start_clock, now + cfg.delete_retention_ms, hz)
        # an already emptied batch (total == 0) is not verbatim: it stays only while it is still an active
        # producer's last batch or ends the cleaned range, as when it was emptied (Kafka §10.7)
        verbatim = (control & ~ctrl_drop & ~ctrl_stamp) | (~control & (total > 0) & (kept == total) & ~start_clock)
        if self.kafka_version >= (4, 0):  # Kafka 4.0 rewrites every v0/v1 batch it keeps as v2 (KAFKA-13093)
            verbatim &= magic == 2
        rows = np.nonzero(retain)[0]
        row_batch = bidx[rows]
        # where a batch cannot join the previous one's encode call (codec, type, leader epoch, LAT time)
        ple = hdrs["partition_leader_epoch"]
        lat = (attrs & 0x08) != 0
        new_shape = np.ones(nb, dtype=bool)
        new_shape[1:] = ((attrs[1:] != attrs[:-1]) | (ple[1:] != ple[:-1])
                         | (lat[1:] & (hdrs["max_timestamp"][1:] != hdrs["max_timestamp"][:-1])))
        pieces: list[bytes | memoryview] = []
        pid_all = hdrs["producer_id"]
        rebuild = ~verbatim & (kept > 0) & (magic == 2)
        # the rows the v2 rebuilds re-encode, gathered by one take per column for the whole chunk (a
        # take per run costs more than the copy); each run is then a zero-copy slice of them
        rb_mask = rebuild[row_batch]
        rb_batch = row_batch[rb_mask]
        cols = RebuildColumns(table, rows[rb_mask], offsets) if len(rb_batch) else None
        # the chunk as spans: adjacent verbatim batches are one slice of the input; adjacent plain v2
        # rebuilds of one shape are one encode call (a producer's batch keeps its own sequence numbers,
        # so it never shares a call); every other batch is a span of its own
        joins = np.zeros(nb, dtype=bool)
        joins[1:] = ((verbatim[1:] & verbatim[:-1])
                     | (rebuild[1:] & rebuild[:-1] & (pid_all[1:] < 0) & (pid_all[:-1] < 0) & ~new_shape[1:]))
        starts = np.nonzero(~joins)[0].tolist()
        n_verbatim = int(verbatim.sum())
        stats.batches_copied_verbatim += n_verbatim
        stats.batches_rebuilt += nb - n_verbatim
        for s0, s1 in zip(starts, starts[1:] + [nb]):
            if verbatim[s0]:
                start = int(hdrs["position"][s0]) - base
                pieces.append(data[start : int(hdrs["position"][s1 - 1] + hdrs["size"][s1 - 1]) - base])
            elif rebuild[s0]:
                assert cols is not None
                pieces.append(self._rebuild_run(hdrs, s0, s1, rb_batch, cols, new_hz))
            elif magic[s0] < 2:  # v0/v1 entries: base = first retained offset, rebuilt one at a time
                mine = rows[row_batch == s0]
                if len(mine):
                    pieces.append(self._rebuild_legacy(hdrs[s0], table, mine, offsets, bool((retain & tomb)[mine].any()),
                                                       now + cfg.delete_retention_ms))
            else:  # emptied (kept == 0)
                h = hdrs[s0]
                pid = int(h["producer_id"])
                # Kafka keeps an emptied batch for an active producer's last batch, and for the batch
                # that ends the cleaned range (KAFKA-17076), so neither producer state nor the end moves
                last_of = active_producers.get(pid) if pid >= 0 else None
                producer_last = last_of is not None and (
                    int(h["last_offset"]) == last_of[0] if last_of[0] >= 0
                    else bool(control[s0]) and int(h["producer_epoch"]) == last_of[1])
                if (keep_empty_at is not None and int(h["last_offset"]) + 1 == keep_empty_at) or producer_last:
                    pieces.append(_k.encode_v2_empty(
                        base_offset=int(h["base_offset"]), last_offset_delta=int(h["last_offset"] - h["base_offset"]),
                        base_timestamp=-1, max_timestamp=int(h["max_timestamp"]), producer_id=pid,
                        producer_epoch=int(h["producer_epoch"]), base_sequence=int(h["base_sequence"]),
                        partition_leader_epoch=int(h["partition_leader_epoch"]),
                        attributes=int(attrs[s0] & 0x38)))
        return b"".join(pieces)

    @staticmethod
    def _rebuild_run(hdrs: np.ndarray, b0: int, b1: int, rb_batch: np.ndarray, cols: RebuildColumns,
                     new_hz: np.ndarray) -> bytes:
        """Re-encode the plain v2 batches ``b0:b1`` (one shape, each keeping records) in one kernel call."""
        lo = int(np.searchsorted(rb_batch, b0, side="left"))
        hi = int(np.searchsorted(rb_batch, b1 - 1, side="right"))
        ends = np.cumsum(np.bincount(rb_batch[lo:hi] - b0, minlength=b1 - b0)).astype(np.int64)
        first = hdrs[b0]
        keys, values, headers = cols.run(lo, hi)
        return encode_arrays(
            keys, values, cols.timestamps[lo:hi], headers=headers, offsets=cols.offsets[lo:hi],
            compression=int(first["attributes"]) & 7,
            timestamp_type=(int(first["attributes"]) >> 3) & 1, log_append_time=int(first["max_timestamp"]),
            partition_leader_epoch=int(first["partition_leader_epoch"]),
            is_transactional=bool(int(first["attributes"]) & 0x10),
            is_control=bool(int(first["attributes"]) & 0x20),
            producer_id=int(first["producer_id"]), producer_epoch=int(first["producer_epoch"]),
            base_sequence=int(first["base_sequence"]),
            records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1,
            _batches=(ends, np.ascontiguousarray(hdrs["last_offset"][b0:b1]),
                      np.ascontiguousarray(new_hz[b0:b1]).astype(np.int64),
                      np.ascontiguousarray(hdrs["base_offset"][b0:b1])))

    def _rebuild_legacy(self, h: np.void, table: pa.Table, rows: np.ndarray, offsets: np.ndarray, tombstones: bool,
                        horizon: int) -> bytes:
        """A v0/v1 entry's kept records (``rows`` of ``table``), re-encoded as Kafka's ``filterTo`` does: from
        Kafka 4.0 as one v2 batch (KAFKA-13093: same codec; v0 becomes CreateTime with its -1 timestamps,
        LogAppendTime keeps the entry's time; base and last offset are the first and last kept records'; a
        batch keeping a tombstone gets ``horizon`` as its delete horizon), before 4.0 in the entry's own magic
        (the wrapper's offset becomes the last kept record's)."""
        magic, attrs = int(h["magic"]), int(h["attributes"])
        lat = magic == 1 and bool(attrs & 0x08)
        idx = int64_array(rows)
        keys, values = table.column("key").take(idx), table.column("value").take(idx)
        stamps = numpy_of(table.column("timestamp"))[rows] // 1000
        offs = np.ascontiguousarray(offsets[rows], dtype=np.int64)
        ttype = 1 if lat else 0
        if self.kafka_version >= (4, 0):
            return encode_arrays(
                keys, values, stamps, offsets=offs, magic=2, compression=attrs & 7, timestamp_type=ttype,
                log_append_time=int(h["max_timestamp"]), records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1,
                _batches=(np.array([len(offs)], np.int64), offs[-1:], np.array([horizon if tombstones else -1],
                                                                                np.int64), offs[:1]))
        return encode_arrays(
            keys, values, stamps, offsets=offs, magic=magic, compression=attrs & 7, timestamp_type=ttype,
            log_append_time=int(h["max_timestamp"]), records_per_batch=2**31 - 1, max_batch_bytes=2**31 - 1)


def _mtime_ms(seg: LogSegment) -> int:
    """A segment's modification time in milliseconds (Java's ``File.lastModified``)."""
    return os.stat(seg.log_path).st_mtime_ns // 1_000_000
