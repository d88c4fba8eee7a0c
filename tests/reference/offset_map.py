"""Slow, obviously-correct model of Kafka's SkimpyOffsetMap with KIP-280 versions (KAFKA_FORMAT.md §10.4,
§11.3).

Digests come from ``hashlib.md5``. Occupied slots live in a dict ``slot -> [digest, offset, version]``; the
probe sequence is Kafka's ``positionOf`` written with Python ints and explicit 32-bit wrap-around, so the
oracle visits exactly the slots Kafka visits and counts lookups/probes the same way. ``dump()`` renders the
``memory``-byte buffer Kafka would hold. (A slot whose digest and offset are all zero would look empty to
Kafka; real MD5 digests never are, so the model ignores that case.) Used only as a test oracle; never
imports kvlog.
"""

import hashlib
import struct

HASH_SIZE = 16
STRATEGIES = ("offset", "timestamp", "header")


class MapFull(Exception):
    pass


def md5(key):
    return hashlib.md5(bytes(key)).digest()


def to_int32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def java_abs(v):
    return 0 if v == -(1 << 31) else abs(v)


def probe_slot(digest, attempt, slots):
    """Kafka's positionOf, as a slot number."""
    window = min(attempt, HASH_SIZE - 4)
    word = int.from_bytes(digest[window:window + 4], "big", signed=True)
    probe = to_int32(word + max(0, attempt - HASH_SIZE + 4))
    return java_abs(probe) % slots


class ReferenceOffsetMap:
    def __init__(self, memory, strategy="offset", load_factor=0.9):
        assert strategy in STRATEGIES
        self.memory = memory
        self.strategy = strategy
        self.versioned = strategy != "offset"
        self.bytes_per_entry = HASH_SIZE + (16 if self.versioned else 8)
        self.slots = memory // self.bytes_per_entry
        self.max_load = int(self.slots * load_factor)
        self.table = {}  # slot -> [digest, offset, version]
        self.clear()

    def clear(self):
        self.table.clear()
        self.entries = 0
        self.lookups = 0
        self.probes = 0
        self.latest_offset = -1

    def slot_of(self, key):
        """Slot holding ``key``'s digest, or None (without touching the statistics)."""
        digest = md5(key)
        for attempt in range(self.slots + HASH_SIZE - 4):
            s = probe_slot(digest, attempt, self.slots)
            if s not in self.table:
                return None
            if self.table[s][0] == digest:
                return s
        return None

    def _find(self, key):
        self.lookups += 1
        digest = md5(key)
        for attempt in range(self.slots + HASH_SIZE - 4):
            s = probe_slot(digest, attempt, self.slots)
            self.probes += 1
            if s not in self.table:
                return None
            if self.table[s][0] == digest:
                return self.table[s]
        return None

    def put(self, key, offset, version=None):
        if self.entries >= self.slots:
            raise MapFull(f"entries {self.entries}, slots {self.slots}")
        version = -1 if not self.versioned else version
        assert version is not None
        self.lookups += 1
        self.latest_offset = offset
        digest = md5(key)
        attempt = 0
        while True:
            s = probe_slot(digest, attempt, self.slots)
            self.probes += 1
            entry = self.table.get(s)
            if entry is None:
                self.table[s] = [digest, offset, version]
                self.entries += 1
                return True
            if entry[0] == digest:
                if self.versioned and entry[2] > version:
                    return False
                entry[1] = offset
                entry[2] = version
                return True
            attempt += 1

    def get(self, key):
        e = self._find(key)
        return -1 if e is None else e[1]

    def get_version(self, key):
        if not self.versioned:
            return -1
        e = self._find(key)
        return -1 if e is None else e[2]

    def contains(self, key):
        return self._find(key) is not None

    def should_retain(self, key, offset, version=None):
        e = self._find(key)
        if e is None:
            return True
        if self.versioned and e[2] != version:
            return version >= e[2]
        return offset >= e[1]

    def put_many(self, keys, offsets, versions=None):
        """``keys``: bytes or None (null key) per record. Returns the number of records consumed."""
        for i, key in enumerate(keys):
            if key is None:
                continue
            if self.entries >= self.max_load:
                return i
            self.put(key, offsets[i], versions[i] if self.versioned else None)
        return len(keys)

    def retain_many(self, keys, offsets, versions=None):
        out = []
        for i, key in enumerate(keys):
            version = versions[i] if self.versioned else None
            out.append(True if key is None else self.should_retain(key, offsets[i], version))
        return out

    def dump(self):
        buf = bytearray(self.memory)
        for s, (digest, offset, version) in self.table.items():
            pos = s * self.bytes_per_entry
            buf[pos:pos + 16] = digest
            struct.pack_into(">q", buf, pos + 16, offset)
            if self.versioned:
                struct.pack_into(">q", buf, pos + 24, version)
        return bytes(buf)
