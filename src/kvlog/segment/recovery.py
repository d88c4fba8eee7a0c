"""Recovery: a segment's indexes rebuilt from its batches, cut where ``kvlog.batch_audit`` says its
trustworthy bytes end, and the bytes after the cut set aside. ``LogSegment`` takes these functions as its
methods."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING


from kvlog import _io
from kvlog.batch_audit import SegmentAudit, audit_segment, quarantine_name
from kvlog.index import TimestampOffset
from kvlog.segment._common import NO_TIMESTAMP

if TYPE_CHECKING:
    from kvlog.segment.segment import LogSegment


def recover(self: LogSegment, *, prev_last: int = -1, next_base: int | None = None, dense: bool = True,
            audit: SegmentAudit | None = None) -> int:
    """Rebuild both indexes from the ``.log``; cut it where its trustworthy bytes end. Returns bytes cut.

    The cut is where ``audit_segment`` says (framing, CRC, and the fields no CRC covers checked
    against the neighbours). The bytes after it are set aside in ``<name>.log.<position>.quarantined``
    before the file is truncated, unless they are all zero (which cannot hold a batch).
    """
    a = audit if audit is not None else audit_segment(self, prev_last=prev_last, next_base=next_base,
                                                      dense=dense)
    self.audit = a
    self.offset_index.truncate()
    self.time_index.truncate()
    self.offset_index.resize(self.max_index_size)
    self.time_index.resize(self.max_index_size)
    last_indexed = 0
    max_ts, shallow = NO_TIMESTAMP, self.base_offset
    interval = self.index_interval_bytes
    valid = 0
    for pos, size, lastoff, m in zip(a.headers["position"].tolist(), a.headers["size"].tolist(),
                                      a.headers["last_offset"].tolist(), a.headers["max_timestamp"].tolist()):
        if m > max_ts:
            max_ts, shallow = m, lastoff
        if pos - last_indexed > interval:
            self.offset_index.append(lastoff, pos)
            self.time_index.maybe_append(max_ts, shallow)
            last_indexed = pos
        valid = pos + size
    valid = a.valid_end if a.valid_end < self.size_in_bytes else valid
    truncated = self.size_in_bytes - valid
    self._fetch_next = None
    if truncated > 0:
        if not a.zero_tail:
            self.set_aside(valid)
        _io.fs.truncate(self.fileno(), valid)
        self.size_in_bytes = valid
    self.known_max = TimestampOffset(max_ts, shallow)
    self._bytes_since_last_index_entry = valid - last_indexed
    self._rolling_ts_loaded = False
    if max_ts >= 0:
        self.time_index.maybe_append(max_ts, shallow, skip_full_check=True)
    self.offset_index.trim_to_valid_size()
    self.time_index.trim_to_valid_size()
    return truncated


def set_aside(self: LogSegment, position: int) -> str:
    """Copy the bytes from ``position`` to the end into a quarantine file (synced) and return its path."""
    path = quarantine_name(self.log_path, position)
    tmp = path + ".tmp"
    fd = _io.fs.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        pos = position
        while pos < self.size_in_bytes:
            chunk = _io.fs.pread(self.fileno(), min(8 << 20, self.size_in_bytes - pos), pos)
            if not chunk:
                break
            _io.fs.pwrite(fd, chunk, pos - position)
            pos += len(chunk)
        _io.fs.fsync(fd)
    finally:
        _io.fs.close(fd)
    _io.fs.rename(tmp, path)
    _io.fs.fsync_dir(os.path.dirname(path))
    self.set_aside_paths.append(path)
    return path
