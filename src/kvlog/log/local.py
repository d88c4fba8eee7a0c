"""Changes to a log's list of segments and the files behind it (Kafka's ``LocalLog``): deleting a prefix
of segments, truncating the tail, starting over at an offset, swapping cleaned segments in, and the
producer snapshots and leader epochs that go with each. ``Log`` checks the arguments and state first;
these act."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kvlog import _files, _io
from kvlog.log import producers
from kvlog.segment import LogSegment

if TYPE_CHECKING:
    from kvlog.log.log import Log


def delete_old_snapshots(log: Log) -> None:
    """After a recovery-point checkpoint: keep snapshots from the segment before the recovery
    point and from the last two segments on (Kafka's deleteSnapshotsAfterRecoveryPointCheckpoint)."""
    segments = log._segments
    active = segments.bases[-1]
    two = segments.lower_base(active)
    rp = segments.lower_base(log.recovery_point)
    keep_from = min(rp if rp is not None else log.recovery_point, two if two is not None else active)
    if log._producer_state.delete_snapshots(lambda o: o >= keep_from):
        _io.fs.fsync_dir(log.dir)


def delete_segments(log: Log, doomed: list[LogSegment]) -> int:
    """Delete ``doomed``, a prefix of the segments (rolling first when it is all of them, so that an
    empty active segment stays), and move the log start offset past them; returns how many went."""
    if not doomed:
        return 0
    segments = log._segments
    if len(doomed) == len(segments):
        log.roll()  # keep an (empty) active segment
    for seg in doomed:
        seg.close_handlers()
        seg.change_suffix("", _files.DELETED)
        segments.remove(seg)
    log.log_start_offset = max(log.log_start_offset, segments[0].base_offset)
    log.recovery_point = max(log.recovery_point, log.log_start_offset)
    log._write_recovery_point()
    log._broker.truncate_from_start(log.log_start_offset)
    for seg in doomed:
        seg.delete()
    gone = {seg.base_offset for seg in doomed}  # their snapshots go with them (Kafka)
    log._producer_state.delete_snapshots(lambda o: o not in gone)
    _io.fs.fsync_dir(log.dir)
    return len(doomed)


def truncate_tail(log: Log, offset: int) -> None:
    """Remove the batches at and past ``offset``, which lies at or past the first segment's base offset
    and below the log end: later segments go, the one holding it is cut, producer state follows."""
    segments = log._segments
    while len(segments) > 1 and segments[-1].base_offset > offset:
        segments.pop().delete()
    active = segments[-1]
    active.pinned = True
    active.truncate_to(offset)
    log._next_offset = active.read_next_offset()
    log._broker.truncate_from_end(log._next_offset)
    # producer state: snapshots past the new end are stale; reload from the latest one before it
    leo = log._next_offset
    psm = log._producer_state
    psm.delete_snapshots(lambda o: o <= leo)
    _io.fs.fsync_dir(log.dir)
    if psm.last_map_offset != leo:
        producers.replay_producer_state(log, psm.load_latest_snapshot(leo, log.log_start_offset), leo)
    log.log_start_offset = min(log.log_start_offset, offset)
    log.recovery_point = min(log.recovery_point, log._next_offset)
    log._write_recovery_point()


def start_at(log: Log, new_offset: int) -> None:
    """Drop every segment and the producer state; one empty segment at ``new_offset``."""
    old = list(log._segments)
    log._segments.clear()
    for seg in old:
        seg.delete()
    log._producer_state.truncate_fully_and_start_at(new_offset)
    log._broker.clear()
    log._add_segment(log._new_segment(new_offset))
    _io.fs.fsync_dir(log.dir)
    log._next_offset = new_offset
    log.log_start_offset = new_offset
    log.recovery_point = new_offset
    log._write_recovery_point()


def swap(log: Log, new: list[LogSegment], old: list[LogSegment]) -> None:
    """The renames of ``Log.replace_segments`` (flushed ``.cleaned`` segments in), each step fsynced."""
    for seg in sorted(new, key=lambda s: -s.base_offset):
        seg.change_suffix(_files.CLEANED, _files.SWAP)
    _io.fs.fsync_dir(log.dir)
    for seg in old:
        seg.close_handlers()
        seg.change_suffix(seg.suffix, _files.DELETED)
        log._segments.remove(seg)
    _io.fs.fsync_dir(log.dir)
    for seg in new:
        seg.change_suffix(_files.SWAP, "")
        log._add_segment(seg)
    _io.fs.fsync_dir(log.dir)
    for seg in old:
        for path in seg.paths():
            try:
                _io.fs.unlink(path)
            except FileNotFoundError:
                pass
    # snapshots named after segments that no longer start one (Kafka deletes them with those)
    gone = {s.base_offset for s in old} - {s.base_offset for s in new}
    log._producer_state.delete_snapshots(lambda o: o not in gone)
    _io.fs.fsync_dir(log.dir)
