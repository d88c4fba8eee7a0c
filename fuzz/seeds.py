"""Seed corpus for every target, in each target's input format, from real data.

Real data: batches kvlog encodes for every magic × codec (plus control, transactional, empty and
LogAppendTime batches), Kafka's own KRaft metadata segment from ``shared/fixtures`` when present,
segments, indexes and checkpoints written by a real ``Log``/``LogManager``, and the committed
reproducers in ``tests/fuzz_regressions/``. ``python -m fuzz.seeds DIR`` writes them as files.
"""

from __future__ import annotations

import os
import struct
import sys
import tempfile
from pathlib import Path

import cramjam
import zstandard

import kvlog
from kvlog import Record, compression
from kvlog.log import Log

ROOT = Path(__file__).resolve().parents[1]
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"
T0 = 1_700_000_000_000
COMBOS = [(m, c) for m in (0, 1, 2) for c in range(5) if not (m < 2 and c == 4)]


def fixtures() -> list[Path]:
    """Log files written by other software (``shared/fixtures``), wherever the checkout has them."""
    for base in (ROOT.parent / "shared" / "fixtures", Path("/work/shared/fixtures")):
        if base.is_dir():
            return sorted(base.rglob("*.log"))
    return []


def _records(magic: int, n: int = 5) -> list[Record]:
    return [Record(None if i == 3 else b"key-%d" % i, None if i == 4 else b"value %d " % i * (i + 1), T0 + i,
                   (("h", b"%d" % i), ("", b"")) if magic == 2 and i % 2 else ()) for i in range(n)]


def batches() -> list[bytes]:
    out = [kvlog.encode_batch(_records(m), magic=m, compression=c, base_offset=7) for m, c in COMBOS]
    out.append(kvlog.encode_batch([], base_offset=3, producer_id=9, producer_epoch=1))
    out.append(kvlog.encode_batch(_records(2), producer_id=5, producer_epoch=2, base_sequence=10,
                                  is_transactional=True, compression="lz4"))
    out.append(kvlog.encode_batch(_records(1), magic=1, timestamp_type="LogAppendTime", log_append_time=T0))
    out.append(kvlog.encode_batch(_records(2), timestamp_type="LogAppendTime", log_append_time=T0))
    for p in fixtures():  # each batch alone, and the whole file
        data = p.read_bytes()
        out += [bytes(b.buffer()) for b in kvlog.MemoryRecords(data).batches()] + [data]
    return out


def _rebased_join(items: list[bytes]) -> bytes:
    """All the entries of ``items`` as one log: each entry's offset field (outside the CRC) moved so the
    offsets increase, as a read expects of a log."""
    out, nxt = bytearray(), 0
    for item in items:
        for b in kvlog.MemoryRecords(item).batches():
            raw = bytearray(b.buffer())
            span = b.last_offset - b.base_offset
            # v2 names its first offset there; a legacy entry its (last) offset
            raw[0:8] = (nxt if raw[16] == 2 else nxt + span).to_bytes(8, "big")
            out += raw
            nxt += span + 1
    return bytes(out)


def _v2_seed(batch: bytes) -> bytes:
    codec = int.from_bytes(batch[21:23], "big") & 7
    return batch[:61] + compression.decompress(codec, batch[61:], 2)


def _index_seed(body: bytes, base: int) -> bytes:
    probes = struct.pack(">qqqq", base, base + 3, T0 + 2, 2**31)
    return struct.pack(">I", base) + probes + body


def _log_files() -> dict[str, list[bytes]]:
    """Segments, indexes and checkpoints as a real Log and LogManager write them."""
    out: dict[str, list[bytes]] = {"segment": [], "index": [], "timeindex": [], "checkpoint": []}
    with tempfile.TemporaryDirectory() as d:
        cfg = kvlog.LogConfig(segment_bytes=2048, index_interval_bytes=64)
        with Log.open(os.path.join(d, "seed-0"), cfg) as log:
            for i, (m, c) in enumerate(COMBOS * 2):
                log.append(kvlog.encode_batch(_records(2, 3), compression=c if m == 2 else 0))
                if i % 5 == 4:
                    log.flush()
            log.roll()
        with kvlog.LogManager(os.path.join(d, "data")) as mgr:
            mgr.create_topic("clicks", partitions=2)
            mgr.log("clicks", 1).append([Record(b"k", b"v", T0)])
            mgr.log("clicks", 1).flush()
        for path in sorted(Path(d).rglob("*")):
            if not path.is_file():
                continue
            data = path.read_bytes()
            base = int(path.name.split(".", 1)[0]) if path.name[:1].isdigit() else 0
            if path.suffix == ".log":
                out["segment"].append(data)
            elif path.suffix == ".index":
                out["index"].append(_index_seed(data, base))
            elif path.suffix == ".timeindex":
                out["timeindex"].append(_index_seed(data, base))
            elif path.name.endswith("-checkpoint"):
                out["checkpoint"].append(data)
    return out


def _codec_streams(codec: int) -> list[bytes]:
    payloads = [b"", b"a", kvlog.encode_batch(_records(1), magic=1), bytes(range(256)) * 40, b"\0" * 70_000]
    out = []
    for p in payloads:
        for magic in ((0, 1) if codec == 3 else (2,) if codec == 4 else (1,)):
            out.append(bytes([magic]) + compression.compress(codec, p, magic))
    if codec == 2:  # raw snappy, as some clients wrote it
        out += [b"\x01" + bytes(cramjam.snappy.compress_raw(p)) for p in payloads[:4]]
    if codec == 4:  # frames without a content size, and two frames back to back
        z = zstandard.ZstdCompressor(write_content_size=False)
        out += [b"\x02" + z.compress(p) for p in payloads[:4]]
        out.append(b"\x02" + zstandard.ZstdCompressor().compress(b"one") + zstandard.ZstdCompressor().compress(b"two"))
    if codec == 1:  # two gzip members
        out.append(b"\x01" + compression.compress(1, b"one") + compression.compress(1, b"two"))
    return out


def regressions() -> list[bytes]:
    if not REGRESSIONS.is_dir():
        return []
    return [p.read_bytes() for p in sorted(REGRESSIONS.iterdir()) if p.is_file() and not p.name.startswith(".")]


def seeds() -> dict[str, list[bytes]]:
    """``{target: [input, ...]}`` — every seed is valid data that its target must decode."""
    bs = batches()
    files = _log_files()
    legacy = []
    for magic in (0, 1):
        inner = kvlog.encode_batch(_records(magic), magic=magic, base_offset=0)
        for codec in (0, 1, 2, 3):
            sel = magic | codec << 1
            legacy.append(bytes([sel]) + struct.pack(">qq", 4 if magic else 0, T0) + inner)
    names = ["00000000000000000000.log", "00000000000000001234.timeindex", "00000000000000000042.log.swap",
             "00000000000000000007.index.cleaned", "clicks-0", "__consumer_offsets-49", "a.b_c-d-12",
             "00000000000000000000.snapshot", "leader-epoch-checkpoint"]
    return {
        "framing": bs + [b"".join(bs)],
        "point_ops": bs + [_rebased_join(bs)],
        "v2_records": [_v2_seed(b) for b in bs if b[16] == 2 and len(kvlog.MemoryRecords(b).batch_headers()) == 1],
        "legacy": legacy,
        "codec_gzip": _codec_streams(1),
        "codec_snappy": _codec_streams(2),
        "codec_lz4": _codec_streams(3),
        "codec_zstd": _codec_streams(4),
        "offset_index": files["index"],
        "time_index": files["timeindex"],
        "checkpoint": files["checkpoint"] + [b"0\n0\n", b"0\n2\ntopic 0 5\ntopic 1 10\n"],
        "file_names": [n.encode() for n in names],
        "segment_recovery": files["segment"] + [p.read_bytes() for p in fixtures()],
        "producer_snapshot": _snapshots(),
        "txn_index": [b"", b"".join(struct.pack(">hqqqq", 0, pid, first, last, lso)
                                    for pid, first, last, lso in ((7, 0, 9, 10), (8, 12, 30, 31), (7, 40, 41, 42)))],
        "coordinator_record": _coordinator_seeds(),
        "metadata_record": _metadata_seeds(),
        "topics_file": [b"{}", b'{"clicks": {"partitions": 3, "config": {}}}',
                        b'{"t": {"partitions": 1, "config": {"cleanup.policy": "compact", "segment.bytes": "1048576"}}}'],
    }


def _coordinator_seeds() -> list[bytes]:
    """Records of the three coordinator topics in the layout ``split_coordinator_input`` reads."""
    from kvlog.internal_topics.decoders import encode_coordinator_record

    def seed(topic: int, key: bytes, value: bytes | None) -> bytes:
        return bytes([topic | (0x40 if value is None else 0)]) + len(key).to_bytes(2, "big") + key + (value or b"")

    out = []
    for version in range(5):
        k, v = encode_coordinator_record("__consumer_offsets", 1, {"group": "g", "topic": "t", "partition": 3},
                                         version, {"offset": 42, "leaderEpoch": 1, "metadata": "m",
                                                   "commitTimestamp": T0, "expireTimestamp": -1})
        out.append(seed(0, k, v))
    k, v = encode_coordinator_record("__consumer_offsets", 1, {"group": "g", "topic": "t", "partition": 3})
    out.append(seed(0, k, v))
    return out


def _metadata_seeds() -> list[bytes]:
    """The record values of the KRaft fixture (real metadata records)."""
    return [r.value for p in fixtures() if "cluster_metadata" in p.parent.name or "kraft" in p.parent.name
            for r in kvlog.MemoryRecords(p.read_bytes()).records() if r.value is not None]


def _snapshots() -> list[bytes]:
    """Producer-state snapshots: empty, and with idle, active and transactional producers."""
    from kvlog.producer_state import BatchMetadata, ProducerStateEntry, encode_snapshot

    idle = ProducerStateEntry(7, 0, -1, T0, -1)
    idle.batches.append(BatchMetadata(4, 100, 4, T0))
    txn = ProducerStateEntry(9, 3, 2, T0 + 5, 120)
    txn.batches.append(BatchMetadata(19, 124, 4, T0 + 5))
    return [encode_snapshot([]), encode_snapshot([idle]), encode_snapshot([idle, txn])]


def write(directory: str) -> dict[str, int]:
    """Write each target's seeds (and every regression file) under ``directory/<target>/``."""
    counts = {}
    extra = regressions()
    for target, items in seeds().items():
        d = os.path.join(directory, target)
        os.makedirs(d, exist_ok=True)
        for i, data in enumerate(items + extra):
            with open(os.path.join(d, f"seed-{i:04d}"), "wb") as f:
                f.write(data)
        counts[target] = len(items) + len(extra)
    return counts


if __name__ == "__main__":
    print(write(sys.argv[1]))
