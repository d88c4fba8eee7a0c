"""A restore into a broker with several log directories (JBOD): which directory each partition goes to.

A KRaft broker keeps each of its replicas in one of its log directories, and the controller records which one
(``PartitionRecord.directories``, by each directory's ``directory.id`` in its ``meta.properties``). A restore must
place each partition in exactly one of them: a broker that finds a partition in two of its directories refuses to
start. Restoring each directory on its own cannot know what its siblings take, so :func:`restore_broker` takes
all of a broker's log directories and decides for each partition the broker holds (the metadata's replicas; every
partition without metadata), in this order:

1. the directory the metadata assigns to this broker's replica, when it is one of those given;
2. else the directory already holding the partition's directory (the broker created it with the topic: the
   controller's assignment may still read *unassigned* right after a topic's creation, until the broker reports);
3. else the directory holding the fewest partitions so far, as Kafka places a new replica.

Each directory is then restored with :func:`kvlog.backup.restore.restore` for its share.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from kvlog import _files
from kvlog.backup.adopt import META_PROPERTIES, read_properties, target_metadata
from kvlog.backup.restore import RestoreResult, restore
from kvlog.backup.run import latest_manifest, read_manifest
from kvlog.backup.target import open_target
from kvlog.errors import BackupError, ConfigError

__all__ = ["place_partitions", "restore_broker", "UNPLACED_DIRECTORIES"]

#: KRaft's directory ids that name no log directory: UNASSIGNED, LOST, MIGRATING (Kafka's DirectoryId)
UNPLACED_DIRECTORIES = frozenset({"AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAQ", "AAAAAAAAAAAAAAAAAAAAAg"})


def _directory_id(log_dir: str) -> str | None:
    """``directory.id`` of a log directory's ``meta.properties``, or None."""
    try:
        return (read_properties(os.path.join(log_dir, META_PROPERTIES)) or {}).get("directory.id")
    except OSError:
        return None


def place_partitions(labels: Sequence[str], log_dirs: Sequence[str], metadata_dir: str | None) -> dict[str, str]:
    """Each of ``labels`` (``topic-N``) to one of ``log_dirs`` (one broker's), by the rules of the module."""
    meta = target_metadata(log_dirs[0], metadata_dir)
    by_id = {i: d for d in log_dirs for i in [_directory_id(d)] if i is not None}
    held = {d: {n for n in os.listdir(d) if _files.parse_partition_dir(n) is not None} if os.path.isdir(d) else set()
            for d in log_dirs}
    load = {d: len(held[d]) for d in log_dirs}
    out: dict[str, str] = {}
    for label in sorted(labels):
        tp = _files.parse_partition_dir(label)
        st = meta.partitions.get(tp) if tp is not None else None
        chosen = None
        if st is not None and meta.node_id is not None and meta.node_id in st["replicas"]:
            dirs = st.get("directories") or []
            if len(dirs) == len(st["replicas"]):
                assigned = dirs[st["replicas"].index(meta.node_id)]
                if assigned not in UNPLACED_DIRECTORIES:
                    chosen = by_id.get(assigned)
        if chosen is None:
            chosen = next((d for d in log_dirs if label in held[d]), None)
        if chosen is None:
            chosen = min(log_dirs, key=lambda d: (load[d], log_dirs.index(d)))
            load[chosen] += 1
        out[label] = chosen
    return out


def restore_broker(backup: str | os.PathLike[str], log_dirs: Sequence[str | os.PathLike[str]], *,
                   metadata_dir: str | os.PathLike[str] | None = None, run: int | None = None,
                   topics: list[str] | None = None, groups_csv: str | os.PathLike[str] | None = None,
                   groups_partitions: int | None = None, **options: Any) -> RestoreResult:
    """:func:`kvlog.backup.restore.restore` into every log directory of one stopped broker, each partition into one
    of them (see the module). ``options`` are :func:`~kvlog.backup.restore.restore`'s; consumer groups are written
    with the first directory, restored last, clamped to every directory's partitions. Returns the directories'
    results as one (``destination`` names them all)."""
    dirs = [os.path.abspath(os.fspath(d)) for d in log_dirs]
    if len(set(dirs)) != len(dirs):
        raise ConfigError(f"a log directory is given twice: {', '.join(dirs)}")
    target = open_target(backup)
    manifest = read_manifest(target, run) if run is not None else latest_manifest(target)
    if manifest is None:
        raise BackupError(f"{target.uri} holds no backup run")
    meta_dir = None if metadata_dir is None else os.fspath(metadata_dir)
    # every selected partition goes somewhere: each directory's restore keeps only those of its share (and leaves
    # the partitions the metadata gives other brokers, as one directory's restore does)
    from kvlog.backup.restore import INTERNAL

    selected = [k for k, e in manifest.partitions.items() if e.topic != _files.CLUSTER_METADATA
                and (e.topic in topics if topics is not None else e.topic not in INTERNAL)]
    placement = place_partitions(selected, dirs, meta_dir)
    combined: RestoreResult | None = None
    done: dict[str, Any] = {}
    # the first directory last: its restore writes the groups, clamped to every directory's partitions
    for i, d in [*enumerate(dirs)][1:] + [(0, dirs[0])]:
        share = [k for k, where in placement.items() if where == d]
        r = restore(backup, d, run=manifest.run, topics=topics, metadata_dir=meta_dir, partitions=share,
                    groups_csv=groups_csv if i == 0 else None,
                    groups_partitions=groups_partitions if i == 0 else None, restored_elsewhere=dict(done),
                    **options)
        done.update(r.partitions)
        if combined is None:
            combined = r
            continue
        if i == 0:
            combined.groups = r.groups
        combined.partitions.update(r.partitions)
        combined.resumed += r.resumed
        combined.bytes += r.bytes
        combined.elapsed_s += r.elapsed_s
        combined.warnings += [w for w in r.warnings if w not in combined.warnings]
        combined.elsewhere = sorted(set(combined.elsewhere) & set(r.elsewhere))
    assert combined is not None
    combined.destination = "; ".join(dirs)
    return combined
