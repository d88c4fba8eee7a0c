"""Slow, obviously-correct model of Kafka's offset index and time index (KAFKA_FORMAT.md §6-§7).

Entries live in Python lists; searches are ``bisect``; files are ``struct``. Used only as a test oracle;
never imports kvlog.
"""

import bisect
import struct

OFFSET_ENTRY = struct.Struct(">ii")
TIME_ENTRY = struct.Struct(">qi")
INT32_MAX = (1 << 31) - 1


def encode_offset_index(entries, base_offset=0):
    """Bytes of an offset index holding absolute ``(offset, position)`` pairs."""
    return b"".join(OFFSET_ENTRY.pack(o - base_offset, p) for o, p in entries)


def encode_time_index(entries, base_offset=0):
    """Bytes of a time index holding ``(timestamp, absolute offset)`` pairs."""
    return b"".join(TIME_ENTRY.pack(t, o - base_offset) for t, o in entries)


def decode_offset_index(data, base_offset=0):
    n = len(data) // 8
    return [(base_offset + r, p) for r, p in (OFFSET_ENTRY.unpack_from(data, 8 * i) for i in range(n))]


def decode_time_index(data, base_offset=0):
    n = len(data) // 12
    return [(t, base_offset + r) for t, r in (TIME_ENTRY.unpack_from(data, 12 * i) for i in range(n))]


def offset_valid_prefix(rel_pos):
    """Leading entries that are trustworthy: ``(relative offset, position)`` pairs, both strictly
    increasing; the first non-negative and not ``(0, 0)``."""
    count = 0
    prev = None
    for r, p in rel_pos:
        if prev is None:
            if r < 0 or p < 0 or (r == 0 and p == 0):
                break
        elif r <= prev[0] or p <= prev[1]:
            break
        prev = (r, p)
        count += 1
    return count


def time_valid_prefix(ts_rel):
    """Leading trustworthy ``(timestamp, relative offset)`` pairs: timestamps strictly increasing, offsets
    non-decreasing, the first with timestamp >= 0 and offset >= 0, and no ``(0, 0)`` anywhere."""
    count = 0
    prev = None
    for t, r in ts_rel:
        if t == 0 and r == 0:
            break
        if prev is None:
            if t < 0 or r < 0:
                break
        elif t <= prev[0] or r < prev[1]:
            break
        prev = (t, r)
        count += 1
    return count


def floor_slot(keys, target):
    """Largest i with keys[i] <= target over sorted keys, -1 if none."""
    return bisect.bisect_right(keys, target) - 1


def ceil_slot(keys, target):
    """Smallest i with keys[i] >= target over sorted keys, -1 if none."""
    i = bisect.bisect_left(keys, target)
    return i if i < len(keys) else -1


class RefOffsetIndex:
    """Kafka's OffsetIndex over a list (no file, no capacity)."""

    def __init__(self, base_offset, entries=()):
        self.base_offset = base_offset
        self.offsets = [o for o, _ in entries]
        self.positions = [p for _, p in entries]

    def lookup(self, target):
        i = floor_slot(self.offsets, target)
        return (self.base_offset, 0) if i < 0 else (self.offsets[i], self.positions[i])

    def append(self, offset, position):
        if self.offsets and offset <= self.offsets[-1]:
            raise ValueError("offset not increasing")
        if not 0 <= offset - self.base_offset <= INT32_MAX:
            raise ValueError("relative offset overflow")
        self.offsets.append(offset)
        self.positions.append(position)

    def truncate_to(self, offset):
        keep = bisect.bisect_left(self.offsets, offset)
        del self.offsets[keep:], self.positions[keep:]

    def fetch_upper_bound(self, position):
        i = ceil_slot(self.positions, position)
        return None if i < 0 else (self.offsets[i], self.positions[i])

    def entries(self):
        return list(zip(self.offsets, self.positions))


class RefTimeIndex:
    """Kafka's TimeIndex over a list (no file, no capacity)."""

    def __init__(self, base_offset, entries=()):
        self.base_offset = base_offset
        self.timestamps = [t for t, _ in entries]
        self.offsets = [o for _, o in entries]

    def last_entry(self):
        if not self.timestamps:
            return (-1, self.base_offset)
        return (self.timestamps[-1], self.offsets[-1])

    def lookup(self, ts):
        i = floor_slot(self.timestamps, ts)
        return (-1, self.base_offset) if i < 0 else (self.timestamps[i], self.offsets[i])

    def maybe_append(self, ts, offset):
        last_ts, last_off = self.last_entry()
        if self.timestamps and offset < last_off:
            raise ValueError("offset decreasing")
        if self.timestamps and ts < last_ts:
            raise ValueError("timestamp decreasing")
        if ts > last_ts:
            self.timestamps.append(ts)
            self.offsets.append(offset)
            return True
        return False

    def truncate_to(self, offset):
        keep = bisect.bisect_left(self.offsets, offset)  # entries with offset < target (offsets non-decreasing)
        del self.timestamps[keep:], self.offsets[keep:]

    def entries(self):
        return list(zip(self.timestamps, self.offsets))
