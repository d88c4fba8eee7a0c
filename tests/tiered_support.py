"""Tiered partitions for the tests, built the way a broker with ``remote.log.storage.system.enable`` leaves them.

A broker's ``RemoteLogManager`` copies each closed segment of a tiered topic with the remote storage
manager, recording the copy in ``__remote_log_metadata`` (``RemoteLogSegmentMetadataRecord`` in state
COPY_SEGMENT_STARTED, then a ``RemoteLogSegmentMetadataUpdateRecord`` to COPY_SEGMENT_FINISHED), and
deletes local segments that are copied and past ``local.retention``. :func:`tier_log` does that to a log
kvlog wrote: the first ``remote`` segments are copied in Kafka's ``LocalTieredStorage`` layout, recorded in
``__remote_log_metadata-0`` with the spec-driven encoder (``tests/rlmm_spec.py``, independent of kvlog's
decoder), and removed from the local directory (all but the last ``overlap`` of them, which stay local
too, as when local retention lags). An untiered copy of the data directory is kept for comparisons.
"""

from __future__ import annotations

import base64
import os
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from rlmm_spec import spec_encode

from kvlog import Log, Record, broker_files, encode_batch
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.segment import LogSegment
from kvlog.tiered import RemoteSegment

T0 = 1_700_000_000_000
COPY_STARTED, COPY_FINISHED, DELETE_STARTED, DELETE_FINISHED = 0, 1, 2, 3
SUFFIXES = (".log", ".index", ".timeindex", ".txnindex", ".snapshot")


def uuid_of(text: str) -> uuid.UUID:
    return uuid.UUID(bytes=base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


@dataclass
class Tiered:
    root: str  # the data directory: the local tail and __remote_log_metadata-0
    remote_root: str  # LocalTieredStorage's directory
    whole: str  # a copy of the data directory before tiering (the same partition as one local log)
    topic: str
    partition: int
    topic_id: str
    segments: list[RemoteSegment] = field(default_factory=list)  # every segment copied (finished or not)
    records: list[tuple] = field(default_factory=list)  # the RLMM records written

    @property
    def dir(self) -> str:
        return os.path.join(self.root, f"{self.topic}-{self.partition}")

    @property
    def whole_dir(self) -> str:
        return os.path.join(self.whole, f"{self.topic}-{self.partition}")

    def remote_dir(self) -> str:
        return os.path.join(self.remote_root, f"{self.topic}-{self.partition}-{self.topic_id}")

    def remote_file(self, seg: RemoteSegment, suffix: str) -> str:
        return os.path.join(self.remote_dir(), f"{seg.start_offset:020d}-{seg.segment_id}{suffix}")  # as brokers name them

    def write_metadata(self) -> None:
        """(Re)write ``__remote_log_metadata-0`` from ``records``."""
        d = os.path.join(self.root, "__remote_log_metadata-0")
        shutil.rmtree(d, ignore_errors=True)
        log = Log.open(d)
        try:
            log.append([Record(None, spec_encode(*r), T0 + i) for i, r in enumerate(self.records)])
        finally:
            log.close()


def write_log(root, topic="orders", partition=0, *, segments=5, batches=4, per_batch=25, epochs=None,
              segment_bytes=None, compression="none", value_size=40) -> str:
    """A partition of ``segments`` segments of ``batches`` batches each; ``epochs``: leader epoch of each
    segment (default 0). Timestamps rise by 1 ms per record."""
    d = os.path.join(os.fspath(root), f"{topic}-{partition}")
    log = Log.open(d)
    off = 0
    try:
        for s in range(segments):
            epoch = epochs[s] if epochs else 0
            for _ in range(batches):
                recs = [Record(b"k%d" % ((off + i) % 17), (b"v%06d-" % (off + i)) * (value_size // 8 + 1),
                               T0 + off + i) for i in range(per_batch)]
                log.append(encode_batch(recs, partition_leader_epoch=epoch, compression=compression))
                off += per_batch
            if s + 1 < segments:
                log.roll()
    finally:
        log.close()
    return d


def segment_record(seg: RemoteSegment, state: int = COPY_STARTED) -> tuple:
    tip = {"name": seg.topic, "id": uuid_of(seg.topic_id), "partition": seg.partition}
    return (0, 0, {"remoteLogSegmentId": {"topicIdPartition": tip, "id": uuid_of(seg.segment_id)},
                   "startOffset": seg.start_offset, "endOffset": seg.end_offset, "brokerId": 1,
                   "maxTimestampMs": seg.max_timestamp, "eventTimestampMs": T0, "segmentSizeInBytes": seg.segment_size,
                   "segmentLeaderEpochs": [{"leaderEpoch": e, "offset": o} for e, o in seg.leader_epochs],
                   "customMetadata": None, "remoteLogSegmentState": state, "txnIndexEmpty": seg.txn_index_empty})


def update_record(seg: RemoteSegment, state: int) -> tuple:
    tip = {"name": seg.topic, "id": uuid_of(seg.topic_id), "partition": seg.partition}
    return (1, 0, {"remoteLogSegmentId": {"topicIdPartition": tip, "id": uuid_of(seg.segment_id)}, "brokerId": 1,
                   "eventTimestampMs": T0 + 1, "customMetadata": None, "remoteLogSegmentState": state})


def copy_segment(t: Tiered, src_dir: str, base: int, end: int, epochs: list[tuple[int, int]],
                 segment_id: str | None = None) -> RemoteSegment:
    """Copy the local segment at ``base`` (offsets up to ``end``) to LocalTieredStorage; returns its metadata."""
    sid = segment_id or topic_id_text(uuid.uuid4())
    seg_epochs = [(e, max(o, base)) for i, (e, o) in enumerate(epochs)
                  if o <= end and (i + 1 == len(epochs) or epochs[i + 1][1] > base)]
    assert seg_epochs, "a broker's batches carry a leader epoch: write them with partition_leader_epoch"
    ls = LogSegment(src_dir, base, read_only=True)
    try:
        max_ts, size = ls.max_timestamp, ls.size_in_bytes
    finally:
        ls.close()
    txn = os.path.join(src_dir, f"{base:020d}.txnindex")
    seg = RemoteSegment(topic=t.topic, topic_id=t.topic_id, partition=t.partition, segment_id=sid, start_offset=base,
                        end_offset=end, max_timestamp=max_ts, segment_size=size, leader_epochs=tuple(seg_epochs),
                        txn_index_empty=not (os.path.exists(txn) and os.path.getsize(txn) > 0))
    os.makedirs(t.remote_dir(), exist_ok=True)
    for suffix in (".log", ".index", ".timeindex", ".txnindex"):
        src = os.path.join(src_dir, f"{base:020d}{suffix}")
        if os.path.exists(src) and (suffix != ".txnindex" or os.path.getsize(src)):
            shutil.copyfile(src, t.remote_file(seg, suffix))
    snap = os.path.join(src_dir, f"{end + 1:020d}.snapshot")
    if os.path.exists(snap):
        shutil.copyfile(snap, t.remote_file(seg, ".snapshot"))
    else:
        open(t.remote_file(seg, ".snapshot"), "wb").close()
    with open(t.remote_file(seg, ".leader_epoch_checkpoint"), "wb") as f:
        f.write(broker_files.format_leader_epochs([(e, o) for e, o in epochs if o <= end]))
    return seg


def local_bases(d: str) -> list[int]:
    return sorted(int(n[:20]) for n in os.listdir(d) if n.endswith(".log") and len(n) == 24)


def tier_log(root, topic="orders", partition=0, *, remote: int, overlap: int = 0, unfinished=(),
             remote_root=None, after: Tiered | None = None) -> Tiered:
    """Tier the first ``remote`` segments of ``root/<topic>-<partition>`` (see the module docstring).
    ``unfinished``: indexes of segments whose copy never finished (they stay local). ``after``: another
    partition tiered before, whose untiered copy, remote storage and metadata records this one shares."""
    root = os.fspath(root)
    d = os.path.join(root, f"{topic}-{partition}")
    whole = root.rstrip("/") + "-whole"
    if after is None:
        shutil.copytree(root, whole)
    else:
        remote_root = after.remote_root
    topic_id = broker_files.read_partition_metadata(d)
    assert topic_id is not None
    t = Tiered(root=root, remote_root=os.fspath(remote_root or root.rstrip("/") + "-remote"), whole=whole,
               topic=topic, partition=partition, topic_id=topic_id)
    if after is not None:
        t.records = after.records
    epochs = broker_files.read_leader_epochs(os.path.join(d, broker_files.LEADER_EPOCH_CHECKPOINT))
    bases = local_bases(d)
    assert len(bases) > remote, "keep at least one local segment"
    for i in range(remote):
        seg = copy_segment(t, d, bases[i], bases[i + 1] - 1, epochs)
        t.segments.append(seg)
        t.records.append(segment_record(seg))
        if i not in unfinished:
            t.records.append(update_record(seg, COPY_FINISHED))
    t.write_metadata()
    for i in range(remote - overlap):
        if i in unfinished:
            continue
        for suffix in SUFFIXES:
            p = os.path.join(d, f"{bases[i]:020d}{suffix}")
            if os.path.exists(p):
                os.unlink(p)
    return t


def to_aiven(t: Tiered, dest, *, key_prefix: str = "", chunk_size: int = 4096, compression: bool = False,
             encryption=None) -> str:
    """Write every copied segment of ``t`` again as Aiven's plugin lays it out (tests/tiered_aiven_writer.py)
    under ``dest``; ``encryption``: ``(key_id, public key)``. Returns ``dest``."""
    from tiered_aiven_writer import write_aiven_segment

    kinds = {"offset": ".index", "timestamp": ".timeindex", "producer_snapshot": ".snapshot",
             "leader_epoch": ".leader_epoch_checkpoint", "transaction": ".txnindex"}
    for seg in t.segments:
        indexes = {k: (Path(t.remote_file(seg, s)).read_bytes() if os.path.exists(t.remote_file(seg, s)) else None)
                   for k, s in kinds.items()}
        log_bytes = Path(t.remote_file(seg, ".log")).read_bytes()
        write_aiven_segment(dest, seg, log_bytes, indexes, key_prefix=key_prefix, chunk_size=chunk_size,
                            compression=compression, encryption=encryption)
    return os.fspath(dest)


def thrown(exc, name):
    """The JVM exception of class ``name`` in the cause chain of what a query raised (the executor's exception,
    as the driver received it), for its fields."""
    java = getattr(exc, "java_exception", None) or getattr(exc, "_origin", None)
    while java is not None:
        if java.getClass().getName() == name:
            return java
        java = java.getCause()
    raise AssertionError(f"no {name} in the causes of {exc!r}")


def two_tiered_partitions(base, topic="orders"):
    """``base/data``: partition 0 with three of five segments remote, partition 1 (zstd) with two of four, one
    of them still local too. Returns their ``Tiered`` (they share one remote storage and metadata)."""
    root = os.path.join(os.fspath(base), "data")
    write_log(root, topic, 0, segments=5)
    write_log(root, topic, 1, segments=4, compression="zstd")
    t0 = tier_log(root, topic, 0, remote=3)
    return t0, tier_log(root, topic, 1, remote=2, overlap=1, after=t0)
