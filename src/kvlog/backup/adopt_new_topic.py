"""``kvlog adopt --new-topic LOG_DIR PARTITION_DIR...``: partition directories kvlog wrote, placed into a
*running* broker's log directory for a topic the cluster does not have yet; the broker serves them from the
moment the topic is created, without a restart.

What the brokers showed (2.8.2 and 3.7.2 with ZooKeeper, 4.1.2 and 4.4.0 with KRaft, in the broker tests): a
running broker reads its log directories only when it starts. When a topic is created later, it makes each
partition's log in ``LOG_DIR/<topic>-<p>``, and if that directory exists already, it loads the segments in it
(as written, with their indexes and the producer snapshot at the end), writes its own ``partition.metadata``,
and serves them as the partition's log; the leader's high watermark moves to the log end at once (the only
replica is in sync). A ``partition.metadata`` naming another id makes the broker refuse the partition
(``InconsistentTopicIdException``), so none is left in place; the new partition's leader epoch is 0, so every
batch's epoch is lowered to 0 and ``leader-epoch-checkpoint`` written from the batches. Nothing at the log
directory's root is touched: the running broker owns its checkpoints and writes the new partitions' entries.

Each directory is made whole in a work directory inside ``LOG_DIR`` (a name a broker that starts meanwhile
takes for a deleted partition) and then renamed into place without replacing anything (``renameat2`` with
``RENAME_NOREPLACE``): if the topic was created in between, the broker's own directory stays and this call
fails. Refused, with the reason for each, and then nothing is written: a stopped broker (a KRaft broker that
starts before the topic exists renames the directories ``-stray``), a KRaft broker whose metadata log is not found
(``metadata_dir``), a topic the KRaft metadata already has (a partition placed beside a topic with fewer
partitions is renamed ``-stray`` at the next start: the broker tests saw it), an
existing target directory, a log whose start lies inside its first segment (a new log starts at its first
segment's base, so the records below the start would be served), an open transaction (no coordinator of the new
cluster would ever end it), damaged data.

Not run here (the broker tests have one broker with one log directory), from Kafka's source: the broker picks
the log directory of a new partition itself, so with more than one ``log.dirs`` entry it may pick another and
serve an empty log; with several brokers, the partition's data must lie on the broker that becomes its leader
(a follower truncates to its leader). So: one log directory, and the topic created with this broker as the
only (or the first, preferred) replica of these partitions.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import shutil
from collections.abc import Sequence
from typing import Any

from kvlog import _files, _io, broker_files
from kvlog.backup.adopt import (
    META_PROPERTIES,
    AdoptedPartition,
    AdoptError,
    AdoptResult,
    broker_running,
    cap_leader_epochs,
    read_extent,
    read_properties,
    segment_bases,
    stage,
    target_metadata,
    write_end_snapshot,
)
from kvlog.errors import ConfigError

__all__ = ["adopt_new_topic", "rename_no_replace"]

_RENAME_NOREPLACE = 1
_AT_FDCWD = -100


@functools.cache
def _renameat2() -> Any:
    """glibc's ``renameat2`` (2.28+) from the process's own symbols, or None (found once: no subprocess, as
    ``ctypes.util.find_library`` would run)."""
    return getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)


def rename_no_replace(src: str, dst: str) -> None:
    """Rename ``src`` to ``dst`` unless ``dst`` exists (``FileExistsError`` then), in one step where the kernel and
    file system offer ``RENAME_NOREPLACE``; elsewhere a check and a rename (``os.rename`` replaces an empty
    directory silently)."""
    fn = _renameat2()
    if fn is not None:
        rc = fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE)
        if rc == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(err, os.strerror(err), dst)
    if os.path.lexists(dst):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dst)
    os.rename(src, dst)


def adopt_new_topic(log_dir: str | os.PathLike[str], sources: Sequence[str | os.PathLike[str]], *,
                    metadata_dir: str | os.PathLike[str] | None = None, move: bool = False,
                    dry_run: bool = False) -> AdoptResult:
    """Place the partition directories ``sources`` (kvlog-written) into the running broker's log directory
    ``log_dir`` for a topic not created yet (see the module's docstring); create the topic afterwards, with at
    least as many partitions. ``move`` renames the sources into place rather than copying them. Raises
    :class:`AdoptError` naming every partition refused (nothing is written then)."""

    root = os.path.abspath(os.fspath(log_dir))
    if not os.path.isdir(root):
        raise ConfigError(f"{root} is not a directory (the broker's log.dirs entry)")
    if not broker_running(root):
        raise AdoptError(f"no broker is running on {root}: --new-topic places partitions into a running broker, "
                         "which loads them when the topic is created (a KRaft broker starting with them renames "
                         "them -stray); start it first, or adopt into the stopped broker after creating the topic")
    result = AdoptResult(root, dry_run=dry_run)
    meta = target_metadata(root, None if metadata_dir is None else os.fspath(metadata_dir))
    props = read_properties(os.path.join(root, META_PROPERTIES)) or {}
    if meta.source is None and (props.get("version") == "1" or "node.id" in props):
        raise AdoptError(f"{root} belongs to a KRaft broker, but its metadata log is not in it: give --metadata-dir "
                         "(the broker's metadata.log.dir). Without it kvlog cannot tell whether the topic exists "
                         "already (with fewer partitions, the broker would later rename a placed one -stray)")
    plans: list[tuple[str, str, int, str, str, int, int]] = []  # label, topic, p, source, target, start, end
    seen: set[str] = set()
    for src in sources:
        source = os.path.abspath(os.fspath(src))
        name = os.path.basename(os.path.normpath(source))
        tp = _files.parse_partition_dir(name)
        if tp is None or tp[0] == _files.CLUSTER_METADATA:
            result.refused[source] = f"{name!r} is not a partition directory name (<topic>-<partition>)"
            continue
        topic, p = tp
        target = os.path.join(root, name)
        if name in seen:
            result.refused[source] = f"{name} is given twice"
            continue
        seen.add(name)
        if topic in meta.topic_ids:
            result.refused[source] = (f"topic {topic!r} exists already (KRaft metadata of {meta.source}): the broker "
                                      "has its logs open; adopt into the stopped broker without --new-topic")
            continue
        if os.path.lexists(target):
            result.refused[source] = (f"{target} exists: the topic exists already, or a directory of it was left "
                                      "there; --new-topic places only partitions the broker has no directory for")
            continue
        if not os.path.isdir(source):
            result.refused[source] = "no such directory"
            continue
        extent = read_extent(source, result.refused)
        if extent is None:
            continue
        start, end, stable = extent
        if stable < end:
            result.refused[source] = (f"a transaction is open at offset {stable}: the new cluster's transaction "
                                      "coordinator does not know it, so nothing would ever end it and read_committed "
                                      "consumers would stop there; end it (a COMMIT or ABORT marker) first")
            continue
        bases = segment_bases(source)
        base = bases[0] if bases else None
        if base is not None and start > base:
            result.refused[source] = (f"its log starts at {start}, inside its first segment (base {base}): a new "
                                      f"topic's log starts at its first segment's base, so the broker would serve "
                                      f"offsets {base}..{start - 1} too")
            continue
        plans.append((name, topic, p, source, target, start, end))
    if result.refused:
        raise AdoptError("not adopted (nothing was written): " + "; ".join(f"{k}: {v}" for k, v in result.refused.items()))
    for name, topic, p, source, target, start, end in plans:
        done = AdoptedPartition(topic, p, source, target, "", "the topic's creation", start, end, 0)
        result.partitions[name] = done
        if dry_run:
            done.epochs_lowered, done.leader_epochs = cap_leader_epochs(source, 0, start, write=False)
            continue
        work, moved = stage(root, name, source, move)
        for leftover in (broker_files.PARTITION_METADATA, _files.LOCK):
            try:
                os.unlink(os.path.join(work, leftover))
            except FileNotFoundError:
                pass
        done.epochs_lowered, done.leader_epochs = cap_leader_epochs(work, 0, start)
        done.snapshot = write_end_snapshot(work)
        _io.fs.fsync_dir(work)
        try:
            rename_no_replace(work, target)
        except FileExistsError:
            if moved:
                os.rename(work, source)  # (back where it came from: nothing lost)
            else:
                shutil.rmtree(work)
            raise AdoptError(f"{target} appeared while adopting (the topic was created meanwhile): {name} was not "
                             "placed; the broker's own directory is untouched") from None
        if move and not moved:
            shutil.rmtree(source)
        if done.snapshot is not None:
            done.snapshot = os.path.join(target, os.path.basename(done.snapshot))
    if not dry_run:
        _io.fs.fsync_dir(root)
        topics = sorted({t for _, t, *_ in plans})
        result.warnings.append("now create " + ", ".join(repr(t) for t in topics) + " with this broker as the "
                               "(first) replica of every partition placed, and the same or more partitions; the "
                               "broker loads the directories as it creates the logs")
    return result
