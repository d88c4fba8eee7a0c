"""``kvlog verify --remote-storage``: a tiered partition's remote segments checked like local ones.

The partition is opened as a tiered view (``__remote_log_metadata`` replayed, the lineage planned, every
piece's first batch checked against its metadata); then each remote segment the log reads goes through
the same batch and index checks as a local segment (``kvlog.verify``), over its virtual directory, so a
finding names the segment id. What cannot be opened at all (a missing object, a wrong key, a hole in
the remote history) is one error of the report, naming the object.
"""

from __future__ import annotations

import os

from kvlog.batch_audit import dense_history
from kvlog.epoch_audit import EpochTrace
from kvlog.errors import KvlogError
from kvlog.log import Log
from kvlog.tiered.base import RemoteStorage
from kvlog.tiered.view import RemoteLogMetadataSource, TieredState
from kvlog.verify import PartitionReport, verify_segment

__all__ = ["verify_remote_history"]


def verify_remote_history(path: str, topic: str, partition: int, remote: RemoteStorage,
                          metadata: RemoteLogMetadataSource | None = None) -> PartitionReport | None:
    """A report on the remote segments of the partition at ``path`` that its log reads (None: it has none)."""
    report = PartitionReport(f"{path} (remote segments in {remote!r})", topic, partition)
    try:
        log = Log.open(path, read_only=True, remote_storage=remote, remote_log_metadata=metadata)
    except (KvlogError, OSError) as exc:
        report.error("__remote_log_metadata" if "__remote_log_metadata" in str(exc) else "remote storage", str(exc))
        return report
    with log:
        state = log.history
        assert isinstance(state, TieredState)
        pieces = state.pieces
        dense = dense_history(path, topic, partition)
        trace = EpochTrace()
        for piece in pieces:
            seg = piece.segment
            directory = state.tier.directory_of(seg)
            try:
                # (each on its own: which segment serves which offsets is the lineage's business)
                last = verify_segment(report, directory, seg.start_offset, False, seg.start_offset - 1, None, dense,
                                      lambda: [], trace)
            except (KvlogError, OSError) as exc:
                report.error(os.path.basename(directory), str(exc))
                continue
            if last != seg.end_offset:
                report.error(os.path.basename(directory),
                             f"{seg}: its last batch ends at offset {last}, not at the end offset "
                             f"{seg.end_offset} __remote_log_metadata gives it")
    return report if pieces or report.problems else None
