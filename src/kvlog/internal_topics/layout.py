"""Finding an internal topic's partitions under a root, and reading a partition batch by batch.

Roots may be local paths or object-store URIs (``s3://…``): listing goes through kvlog's storage seam
and logs are opened with ``Log.open(path, read_only=True)``, which reads either. The one place of the
package that opens a log for the replays: the decoders and replays take the batches read here, and know
nothing of the log (as Kafka's coordinators' record serdes know nothing of the log).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import cast

from kvlog import _files, _io, storage
from kvlog.errors import DirectoryNotFoundError, UnknownTopicOrPartitionError
from kvlog.log import Log
from kvlog.records import RecordBatch

__all__ = ["partition_batches", "partition_dirs", "read_batches"]

READ_BYTES = 8 << 20


def partition_dirs(root: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                   topic: str) -> list[tuple[str, int]]:
    """``(directory, partition)`` of every ``<topic>-<N>`` directory in a data directory, by partition;
    ``root`` may also be one partition directory of ``topic`` itself, or the data directories of a cluster's
    brokers (a list: each partition's replica as :class:`kvlog.cluster.Cluster` chooses it). A URI root
    gives URIs that keep its query (the store's options), so they can be handed to Spark executors."""
    if isinstance(root, (list, tuple)):
        from kvlog.cluster import Cluster

        with Cluster(root) as cluster:
            try:
                numbers = cluster.partitions(topic)
            except UnknownTopicOrPartitionError:
                return []
            return [(cluster.partition(topic, n).chosen.path, n) for n in numbers]
    text = os.fspath(cast("str | os.PathLike[str]", root))
    path = storage.normalize(text)
    base = text if storage.is_remote(text) else path
    if not _io.fs.isdir(path):
        raise DirectoryNotFoundError(f"no such directory: {path}")
    tp = _files.parse_partition_dir(storage.split_query(path)[0])
    if tp is not None and tp[0] == topic:
        return [(base, tp[1])]
    out = []
    for name in _io.fs.listdir(path):
        tp = _files.parse_partition_dir(name)
        if tp is not None and tp[0] == topic and _io.fs.isdir(storage.join(path, name)):
            out.append((storage.join(base, name), tp[1]))
    return sorted(out, key=lambda t: t[1])


def read_batches(log: Log) -> Iterator[RecordBatch]:
    """Every batch of a log from its start offset, read a few MiB at a time through ``Log.read``."""
    offset = log.log_start_offset
    while offset < log.log_end_offset:
        last = None
        for b in log.read(offset, READ_BYTES).batches():
            if b.last_offset < offset:
                continue
            yield b
            last = b.last_offset
        if last is None:
            return
        offset = last + 1


@contextlib.contextmanager
def partition_batches(path: str | os.PathLike[str]) -> Iterator[Iterator[RecordBatch]]:
    """``with partition_batches(path) as batches``: every batch of the partition directory ``path`` (a
    read-only open, closed when the block ends), from its start offset (:func:`read_batches`)."""
    with Log.open(path, read_only=True) as log:
        yield read_batches(log)
