"""``kvlog backup SRC DST``: one incremental, resumable backup run of a live data directory.

The backup is itself a data directory: ``DST/<topic>-<partition>/`` holds Kafka's files, and each run ends
by publishing ``kvlog-committed-offsets.<run>`` (the protocol of ``kvlog.committed_offsets``), which caps every
partition at the range this run backed up. Every reader honours that file, so the newest run reads as a
point-in-time directory while the next run is uploading; a run killed before its publish changes nothing a
reader sees (new segment files lie past the committed end; a re-uploaded cut segment only grew).

A run's steps: plan every partition (:mod:`kvlog.backup.source`); copy what the previous manifest does not
already hold (same source file identity, or same bytes); move aside what the source replaced or removed
(``.kvlog-backup/objects/<path>.<crc32c>``: older manifests still name those bytes); write the manifest; publish.
A journal (``.kvlog-backup/journal``) records the files copied so far, so a killed run's successor copies
only the rest. Runs exclude each other (a local ``flock``; on object stores the sinks' write lease).
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kvlog import _files, broker_files, checkpoint, committed_offsets, storage
from kvlog._core import records as _k
from kvlog.backup import source as src_mod
from kvlog.backup.manifest import (
    MANIFESTS, OBJECTS, BackupManifestError, FileEntry, Manifest, PartitionEntry, manifest_path, run_of)
from kvlog.backup.target import CHUNK, META_DIR, LocalTarget, RemoteTarget, Target, open_target
from kvlog.checksum import crc32c
from kvlog.errors import BackupError, DirectoryNotFoundError, KvlogError
from kvlog.topic_configs import TopicConfigs

__all__ = ["BackupResult", "backup", "latest_manifest", "read_manifest", "list_runs", "JOURNAL"]

JOURNAL = f"{META_DIR}/journal"
JOB_PREFIX = "kvlog-backup"
JOURNAL_EVERY_FILES = 64
JOURNAL_EVERY_S = 10.0

Progress = Callable[["BackupResult"], None]


@dataclass
class BackupResult:
    """What one run did. ``run`` is None when the source had nothing new (no run was written)."""

    source: str
    destination: str
    run: int | None = None
    previous_run: int | None = None
    partitions: int = 0
    files_copied: int = 0
    bytes_copied: int = 0
    files_unchanged: int = 0
    files_preserved: int = 0
    files_resumed: int = 0
    requests: int = 0
    elapsed_s: float = 0.0
    warnings: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


# ----------------------------------------------------------------------------------------- manifests
def list_runs(target: Target) -> list[int]:
    return sorted(r for r in map(run_of, target.listdir(MANIFESTS)) if r > 0)


def read_manifest(target: Target, run: int) -> Manifest:
    data = target.read(manifest_path(run))
    if data is None:
        raise BackupManifestError(f"no manifest for run {run} in {storage.redact(target.uri)}")
    return Manifest.parse(data, storage.redact(target.path(manifest_path(run))))


def latest_manifest(target: Target) -> Manifest | None:
    runs = list_runs(target)
    return read_manifest(target, runs[-1]) if runs else None


# ------------------------------------------------------------------------------------------- copying
def _source_chunks(path: str, size: int, check_batches: bool, sums: list[int]) -> Callable[[], Iterator[bytes]]:
    """The first ``size`` bytes of ``path`` in large chunks, their CRC-32C left in ``sums[0]``; with
    ``check_batches`` every batch's CRC is checked on the way (damage raises ``BackupError``)."""
    def chunks() -> Iterator[bytes]:
        crc, pos, carry = 0, 0, b""
        heads = np.empty(4096, dtype=_k.BATCH_DTYPE)
        with open(path, "rb") as f:
            while pos < size:
                chunk = f.read(min(CHUNK, size - pos))
                if not chunk:
                    raise BackupError(f"{path} shrank to {pos} bytes while it was copied (expected {size})")
                if check_batches:
                    buf = carry + chunk if carry else chunk
                    at = 0
                    while True:
                        count, nxt, status, error = _k.scan(buf, at, len(buf), heads, True, True)
                        if count and not heads["crc_valid"][:count].all():
                            bad = int(heads["position"][int(np.argmin(heads["crc_valid"][:count]))])
                            raise BackupError(f"{path}: CRC mismatch in the batch at position "
                                              f"{pos - len(carry) + bad}")
                        if error is not None:
                            raise BackupError(f"{path}: {error} (near position {pos - len(carry) + nxt})")
                        at = nxt
                        if status != _k.FULL:
                            break
                    carry = bytes(buf[at:])
                crc = crc32c(chunk, crc)
                pos += len(chunk)
                yield chunk
        if check_batches and carry:
            raise BackupError(f"{path}: incomplete batch at position {size - len(carry)}")
        sums[0] = crc

    return chunks


def _prefix_crc(path: str, size: int) -> int | None:
    crc, left = 0, size
    try:
        with open(path, "rb") as f:
            while left:
                chunk = f.read(min(CHUNK, left))
                if not chunk:
                    return None
                crc = crc32c(chunk, crc)
                left -= len(chunk)
    except FileNotFoundError:
        return None
    return crc


def _regenerable(entry: FileEntry) -> bool:
    """Bytes kvlog built (indexes, cut checkpoints) can be built again; a source's bytes cannot."""
    return bool(entry.derived) and not entry.derived.startswith("prefix:")


class _Run:
    def __init__(self, source: str, target: Target, result: BackupResult, progress: Progress | None,
                 workers: int) -> None:
        self.source = source
        self.target = target
        self.result = result
        self.progress = progress
        self.workers = workers
        self.lock = threading.Lock()
        self.journal: Manifest | None = None
        self.last_journal = time.monotonic()
        self.since_journal = 0

    def _note(self, rel: str, entry: FileEntry, nbytes: int) -> None:
        with self.lock:
            assert self.journal is not None
            self.journal.files[rel] = entry
            self.result.files_copied += 1
            self.result.bytes_copied += nbytes
            self.since_journal += 1
            due = self.since_journal >= JOURNAL_EVERY_FILES or time.monotonic() - self.last_journal > JOURNAL_EVERY_S
            if due:
                self.since_journal = 0
                self.last_journal = time.monotonic()
                data = self.journal.to_bytes()
        if due:
            self.target.put(JOURNAL, data)
        if self.progress is not None:
            self.progress(self.result)

    def copy(self, rel: str, job: src_mod.FileJob) -> FileEntry:
        if job.kind == "bytes":
            self.target.put(rel, job.data)
            entry = FileEntry(len(job.data), crc32c(job.data), None, job.derived)
            self._note(rel, entry, len(job.data))
            return entry
        assert job.stat is not None
        size = job.size if job.kind == "prefix" else job.stat[0]
        sums = [0]
        check = job.kind == "verbatim" and job.name.endswith(_files.LOG)
        written = self.target.write(rel, _source_chunks(job.path, size, check, sums))
        after = src_mod.stat_of(job.path)
        if after[2] != job.stat[2] or (job.kind == "verbatim" and after[:2] != job.stat[:2]):
            raise BackupError(f"{job.path} changed while it was copied (the broker replaced or rewrote it); "
                              "run the backup again")
        entry = FileEntry(written, sums[0], job.stat, job.derived)
        self._note(rel, entry, written)
        return entry


def _lock_local(target: LocalTarget) -> int:
    return _files.lock_file(os.path.join(target.uri, META_DIR, "lock"), f"the backup {target.uri} (another kvlog "
                            "backup or restore)")


def backup(source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], destination: str | os.PathLike[str], *,
           topics: list[str] | None = None, allow_damage: bool = False, progress: Progress | None = None,
           workers: int = 4, divergent: str = "raise", shared: bool = False) -> BackupResult:
    """Back up the data directory ``source`` (a live broker's ``log.dirs`` entry; only read) into
    ``destination`` (a local path or an object-store URI), copying only what the last run lacks.

    ``source`` may be a list: the log directories of a cluster's brokers (:class:`kvlog.Cluster`). Each
    partition is then backed up once, from the replica a cluster read chooses, cut at what the cluster committed;
    a run finds the files it holds already by their bytes too, so a later run reading another broker's replica
    of the same bytes copies nothing again. ``divergent``: as for :class:`kvlog.Cluster` (a diverged partition
    is an error of the run by default: its previous backup stands).

    ``shared``: ``destination`` is shared by the brokers of one cluster, each running its own backup into it (one
    run at a time: runs exclude each other). A run adds what this broker holds that the backup lacks: a partition
    the backup holds already is taken from this broker only when this broker's replica supersedes the stored one
    (a newer leader epoch, or as new and longer), diverged histories being an error of the run unless
    ``divergent="newest"``; partitions this broker does not hold keep their last backed-up state (a topic deleted
    from the cluster therefore stays in the newest view).

    ``topics`` limits the run to those topics (the others keep their last backed-up state). Partitions that
    cannot be backed up (damage below the cut, a file replaced mid-copy twice) are named in
    ``result.errors``; their previous backup stands, and the rest of the run completes.
    """
    t0 = time.monotonic()
    given = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if not given:
        raise BackupError("kvlog backup needs a data directory to back up")
    roots = []
    for one in given:
        if storage.is_remote(os.fspath(one)):
            raise BackupError(f"kvlog backup reads a local data directory, not {storage.redact(os.fspath(one))}")
        r = os.path.abspath(os.fspath(one))
        if not os.path.isdir(r):
            raise DirectoryNotFoundError(f"no data directory at {r}")
        roots.append(r)
    cluster_errors: dict[str, str] = {}
    replicas: dict[tuple[str, int], tuple[str, int]] = {}
    if len(roots) == 1:
        root = roots[0]
        found, _skipped = _files.partition_dirs(root)
    else:
        root = "; ".join(roots)
        found, replicas, cluster_errors = _cluster_partitions(roots, divergent)
    if topics is not None:
        missing = sorted(set(topics) - {t for t, _ in found} - {_files.parse_partition_dir(k)[0]  # type: ignore[index]
                                                                for k in cluster_errors})
        if missing:
            raise BackupError(f"no topic {missing[0]!r} in {root}")
        found = {tp: p for tp, p in found.items() if tp[0] in set(topics)}
        cluster_errors = {k: v for k, v in cluster_errors.items()
                          if (_files.parse_partition_dir(k) or ("", 0))[0] in set(topics)}
    if not storage.is_remote(os.fspath(destination)):
        dst = os.path.realpath(os.fspath(destination))
        for r in roots:
            real = os.path.realpath(r)
            if dst == real or dst.startswith(real + os.sep):
                # a .kvlog-backup directory inside a broker's log directory would stop the broker at its next start
                raise BackupError(f"the backup destination {dst} is inside the data directory {real}: give a "
                                  "destination outside it")
    target = open_target(destination)
    result = BackupResult(source=root, destination=storage.redact(target.uri))
    result.errors.update(cluster_errors)
    job = f"{JOB_PREFIX}-{uuid.uuid4().hex[:12]}"
    lock_fd = -1
    if isinstance(target, LocalTarget):
        lock_fd = _lock_local(target)
    else:
        from kvlog.spark import _remote
        assert isinstance(target, RemoteTarget)
        _remote.take_lease(target.uri, target.store, job, None, None)
    try:
        _run(root, found, target, result, job, topics, allow_damage, progress, workers, t0, replicas,
             divergent if shared else None)
    finally:
        if isinstance(target, LocalTarget):
            _files.unlock_file(lock_fd)
        else:
            from kvlog.spark import _remote
            assert isinstance(target, RemoteTarget)
            _remote.release_lease(target.uri, target.store, job)
    result.requests = target.requests()
    result.elapsed_s = time.monotonic() - t0
    return result


def _cluster_partitions(roots: list[str], divergent: str) -> tuple[dict[tuple[str, int], str],
                                                                   dict[tuple[str, int], tuple[str, int]], dict[str, str]]:
    """Each partition of a cluster's log directories: the chosen replica's directory, (the replica's root, the
    cluster's committed end), and the partitions that cannot be chosen (diverged replicas) with the reason."""
    from kvlog.cluster import Cluster

    found: dict[tuple[str, int], str] = {}
    replicas: dict[tuple[str, int], tuple[str, int]] = {}
    errors: dict[str, str] = {}
    with Cluster(roots, divergent=divergent) as cluster:
        for topic in cluster.topics():
            for p in cluster.partitions(topic):
                try:
                    part = cluster.partition(topic, p)
                except KvlogError as exc:
                    errors[f"{topic}-{p}"] = str(exc)
                    continue
                found[(topic, p)] = part.chosen.path
                replicas[(topic, p)] = (os.path.dirname(part.chosen.path), part.end)
    return found, replicas, errors


def _run(root: str, found: dict[tuple[str, int], str], target: Target, result: BackupResult, job: str,
         topics: list[str] | None, allow_damage: bool, progress: Progress | None, workers: int, t0: float,
         replicas: dict[tuple[str, int], tuple[str, int]] | None = None, shared: str | None = None) -> None:
    """One run. ``replicas``: for a cluster's directories (``root`` then names them all), each partition's
    chosen replica's root and the cluster's committed end. ``shared``: a backup the brokers of a cluster share
    (the ``divergent`` policy of :func:`backup`), else None."""
    prev = latest_manifest(target)
    if prev is not None and not _published(target, prev.run):
        # a run killed between its manifest and its publish: everything it names is in place, so publish it
        if target.read(committed_offsets.backup_run_file(prev.run)) is None:
            target.put(committed_offsets.backup_run_file(prev.run), _committed_text(prev.run, prev, job))
        _publish(target, prev.run, prev, job)
        result.warnings.append(f"run {prev.run} was written but not published (its process stopped): published it")
    run = (prev.run if prev else 0) + 1
    result.previous_run = prev.run if prev else None
    r = _Run(root, target, result, progress, workers)
    journal_bytes = target.read(JOURNAL)
    journal = None
    if journal_bytes is not None:
        try:
            journal = Manifest.parse(journal_bytes, JOURNAL)
        except BackupManifestError as exc:
            result.warnings.append(f"{exc}; starting this run afresh")
    if journal is None or journal.run != run:
        journal = None
    r.journal = Manifest(run, int(time.time() * 1000), 0, root)
    if isinstance(target, LocalTarget):
        target.clear_tmp()
    roots = sorted({r for r, _ in replicas.values()}) if replicas else [root]
    states = {r: src_mod.read_root_state(r, result.warnings) for r in roots}
    state = states[roots[0]]
    configs = TopicConfigs.load(roots[0])
    manifest = Manifest(run, r.journal.started_ms, 0, root)
    prev_files = prev.files if prev else {}
    changed = False
    plans: list[src_mod.PartitionPlan] = []
    for (topic, part) in sorted(found):
        label = f"{topic}-{part}"
        interval = configs.resolve(topic).config.index_interval_bytes
        plan = None
        for attempt in range(2):
            try:
                if replicas:
                    where, end = replicas[(topic, part)]
                    plan = src_mod.plan_partition(where, topic, part, states[where], interval,
                                                  allow_damage=allow_damage, cluster_end=end)
                else:
                    plan = src_mod.plan_partition(root, topic, part, state, interval, allow_damage=allow_damage)
                break
            except BackupError as exc:
                if attempt or "replaced while" not in str(exc):
                    result.errors[label] = str(exc)
            except OSError as exc:  # a segment deleted by retention while we listed: plan again
                if attempt:
                    result.errors[label] = f"{label}: {exc}"
        if plan is None:
            _keep_previous(prev, manifest, label)
            continue
        plans.append(plan)
    if shared is not None and prev is not None:  # a backup of several brokers: keep what supersedes this one's
        taken = []
        for plan in plans:
            label = f"{plan.topic}-{plan.partition}"
            verdict = _supersedes(target, prev, plan, shared) if label in prev.partitions else "take"
            if verdict == "take":
                taken.append(plan)
                continue
            if verdict != "keep":
                result.errors[label] = verdict
            _keep_previous(prev, manifest, label)
        plans = taken
    # copy: every job whose bytes the previous run (or the killed run before this one) does not hold
    todo: list[tuple[str, src_mod.FileJob, src_mod.PartitionPlan]] = []
    for plan in plans:
        label = f"{plan.topic}-{plan.partition}"
        result.warnings.extend(plan.warnings)
        for fj in plan.jobs:
            rel = f"{label}/{fj.name}"
            from_prev = _reusable(prev_files.get(rel), fj)
            have = from_prev or _reusable(journal.files.get(rel) if journal else None, fj)
            if have is not None:
                manifest.files[rel] = have
                if from_prev is not None:
                    result.files_unchanged += 1
                else:
                    result.files_resumed += 1
                    r.journal.files[rel] = have
                continue
            todo.append((rel, fj, plan))
    # move aside what the copies will replace, when its bytes are not a prefix of the new ones
    for rel, fj, _plan in todo:
        old = prev_files.get(rel)
        if old is not None and not _regenerable(old) and fj.kind != "bytes":
            if _prefix_crc(fj.path, old.size) != old.crc32c:
                _preserve(target, rel, old, run)
                result.files_preserved += 1
    failed: set[str] = set()

    def work(item: tuple[str, src_mod.FileJob, src_mod.PartitionPlan]) -> tuple[str, FileEntry | None, str]:
        rel, fj, plan = item
        label = f"{plan.topic}-{plan.partition}"
        try:
            return rel, r.copy(rel, fj), label
        except (BackupError, OSError) as exc:
            with r.lock:
                result.errors.setdefault(label, str(exc) if isinstance(exc, BackupError) else f"{fj.path}: {exc}")
            return rel, None, label

    with ThreadPoolExecutor(max(1, workers)) as pool:
        for rel, entry, label in pool.map(work, todo):
            if entry is None:
                failed.add(label)
            else:
                manifest.files[rel] = entry
                changed = True
    for plan in plans:
        label = f"{plan.topic}-{plan.partition}"
        if label in failed:
            for rel in [k for k in manifest.files if k.startswith(label + "/")]:
                del manifest.files[rel]
            _keep_previous(prev, manifest, label)
            continue
        manifest.partitions[label] = PartitionEntry(
            plan.topic, plan.partition, plan.log_start_offset, plan.end_offset, plan.cut, plan.high_watermark,
            plan.recovery_point, plan.topic_id, plan.index_interval_bytes, "", plan.warnings,
            plan.directory if replicas else "")
        was = prev.partitions.get(label) if prev else None
        if was is None or (was.log_start_offset, was.end_offset) != (plan.log_start_offset, plan.end_offset):
            changed = True
        # what the source removed (retention, compaction): moved aside, so this run's view is the source's
        for rel, old_entry in prev_files.items():
            if rel.startswith(label + "/") and rel not in manifest.files:
                if not _regenerable(old_entry):
                    _preserve(target, rel, old_entry, run)
                    result.files_preserved += 1
                target.delete(rel)
                changed = True
    # partitions the source no longer has (deleted topics) leave the newest view; older runs keep them
    if prev is not None:
        for label, part_entry in prev.partitions.items():
            if label not in manifest.partitions and (shared is not None or topics is not None
                                                    and part_entry.topic not in topics):
                manifest.partitions[label] = part_entry  # not part of this run: carried over
                manifest.files.update({k: v for k, v in prev.files.items() if k.startswith(label + "/")})
            elif label not in manifest.partitions:
                changed = True
    result.partitions = len(manifest.partitions)
    if not changed and prev is not None and set(prev.partitions) == set(manifest.partitions):
        if journal is not None or journal_bytes is not None:
            target.delete(JOURNAL)
        return  # nothing new: no run
    if replicas:
        _cluster_root_files(states, replicas, target, manifest, result)
    else:
        _root_files(root, state, target, manifest, result)
    if shared is not None and prev is not None:
        _merge_root_checkpoints(target, prev, manifest, {f"{p.topic}-{p.partition}" for p in plans})
    manifest.finished_ms = int(time.time() * 1000)
    manifest.warnings = list(result.warnings)
    if isinstance(target, LocalTarget):
        target.sync_dirs()
    target.put(committed_offsets.backup_run_file(run), _committed_text(run, manifest, job))
    target.put(manifest_path(run), manifest.to_bytes())  # the run is complete once this exists
    _publish(target, run, manifest, job)
    target.delete(JOURNAL)
    if isinstance(target, LocalTarget):
        target.sync_dirs()
    result.run = run


def _reusable(entry: FileEntry | None, fj: src_mod.FileJob) -> FileEntry | None:
    if entry is None:
        return None
    if fj.kind == "bytes":
        return entry if entry.size == len(fj.data) and entry.crc32c == crc32c(fj.data) and \
            entry.derived == fj.derived else None
    if entry.derived != fj.derived:
        return None
    if entry.source == fj.stat:
        return entry
    if fj.kind == "prefix" and entry.source is not None and fj.stat is not None and entry.source[2] == fj.stat[2]:
        # the active segment grew past a cut that did not move (the broker appends above its high watermark):
        # the same prefix of the same file, if its bytes still say so (read here, not uploaded again)
        return entry if _prefix_crc(fj.path, entry.size) == entry.crc32c else None
    if fj.stat is not None and entry.size == (fj.size if fj.kind == "prefix" else fj.stat[0]):
        # another file of the same size: another broker's replica of the same bytes (a cluster's backup reads the
        # replica it chooses, which may change between runs), or the file rewritten alike. Read, not uploaded.
        if _prefix_crc(fj.path, entry.size) == entry.crc32c:
            return FileEntry(entry.size, entry.crc32c, fj.stat, entry.derived, entry.object)
    return None


def _keep_previous(prev: Manifest | None, manifest: Manifest, label: str) -> None:
    if prev is None or label not in prev.partitions:
        return
    manifest.partitions[label] = prev.partitions[label]
    manifest.files.update({k: v for k, v in prev.files.items() if k.startswith(label + "/")})


def _preserve(target: Target, rel: str, entry: FileEntry, run: int) -> None:
    """Keep an earlier run's bytes of ``rel`` under ``objects/`` before they are replaced or removed, and mark
    the partition rewritten by ``run``: its earlier runs no longer read in place (a restore still works)."""
    label = rel.split("/", 1)[0]
    tp = _files.parse_partition_dir(label)
    if tp is not None:
        target.put(committed_offsets.rewritten_marker(tp[0], tp[1], run), b"")
    dst = f"{OBJECTS}/{rel}.{entry.crc32c:08x}"
    if target.size(dst) == entry.size:
        return
    try:
        target.copy(rel, dst)
    except (FileNotFoundError, KvlogError) as exc:
        raise BackupError(f"cannot set aside {rel} (named by an earlier run's manifest) before replacing it: "
                          f"{exc}") from None


def _root_files(root: str, state: src_mod.RootState, target: Target, manifest: Manifest,
                result: BackupResult) -> None:
    """The source root's checkpoints and ``meta.properties`` under the run; ``kvlog-topics.json`` (topic
    configs) and ``cleaner-offset-checkpoint`` (which partitions were compacted, so gaps in their offsets
    are expected) at the backup's root too, where readers look for them."""
    for name in state.files:
        if committed_offsets.version_of(name) > 0:
            continue
        try:
            with open(os.path.join(root, name), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue
        rel = f"{META_DIR}/runs/{manifest.run:020d}/root/{name}"
        target.put(rel, data)
        manifest.files[rel] = FileEntry(len(data), crc32c(data), None, "root")
        if name in ("kvlog-topics.json", checkpoint.CLEANER_OFFSET):
            target.put(name, data)


def _cluster_root_files(states: dict[str, src_mod.RootState], replicas: dict[tuple[str, int], tuple[str, int]],
                        target: Target, manifest: Manifest, result: BackupResult) -> None:
    """A cluster's root files under the run: each checkpoint holds every partition's entry from the root of the
    replica backed up; the other files (``meta.properties``, ``kvlog-topics.json``) from the first root holding
    them. ``cleaner-offset-checkpoint`` and ``kvlog-topics.json`` at the backup's root too."""
    run_root = f"{META_DIR}/runs/{manifest.run:020d}/root"
    tables = (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.REPLICATION_OFFSET,
              checkpoint.CLEANER_OFFSET)
    names = sorted({n for st in states.values() for n in st.files if committed_offsets.version_of(n) <= 0})
    for name in names:
        if name in tables:
            merged: dict[tuple[str, int], int] = {}
            for tp, (where, _end) in replicas.items():
                try:
                    table = checkpoint.read_offsets_cached(os.path.join(where, name))
                except checkpoint.CorruptCheckpointError as exc:
                    result.warnings.append(f"{exc}; not carried into the backup")
                    table = {}
                if tp in table:
                    merged[tp] = table[tp]
            lines = [str(checkpoint.VERSION), str(len(merged))]
            lines += [f"{t} {p} {o}" for (t, p), o in sorted(merged.items())]
            data = ("\n".join(lines) + "\n").encode()
        else:
            data = b""
            for where in states:
                if name in states[where].files:
                    try:
                        with open(os.path.join(where, name), "rb") as f:
                            data = f.read()
                        break
                    except FileNotFoundError:
                        continue
        target.put(f"{run_root}/{name}", data)
        manifest.files[f"{run_root}/{name}"] = FileEntry(len(data), crc32c(data), None, "root")
        if name in ("kvlog-topics.json", checkpoint.CLEANER_OFFSET):
            target.put(name, data)


def _epochs_of(data: bytes | None, where: str) -> tuple[tuple[int, int], ...] | None:
    if data is None:
        return None
    try:
        return tuple(broker_files.parse_leader_epochs(data, where))
    except KvlogError:
        return None


def _supersedes(target: Target, prev: Manifest, plan: src_mod.PartitionPlan, divergent: str) -> str:
    """A shared backup's choice between the partition's stored copy and this broker's replica, as a cluster read
    chooses between replicas (:mod:`kvlog.cluster`): ``"take"`` this replica, ``"keep"`` the stored one, or why
    neither can be trusted (diverged histories, ``divergent="raise"``)."""
    from kvlog.cluster import LogDirectory, Replica, _cross_check

    label = f"{plan.topic}-{plan.partition}"
    was = prev.partitions[label]
    rel = f"{label}/{broker_files.LEADER_EPOCH_CHECKPOINT}"
    stored_entry = prev.files.get(rel)
    stored_epochs = _epochs_of(target.read(stored_entry.object or rel) if stored_entry else None, rel)
    mine = next((j.data for j in plan.jobs if j.name == broker_files.LEADER_EPOCH_CHECKPOINT), None)
    here = Replica(LogDirectory(plan.directory, None, None), plan.directory, plan.log_start_offset, plan.end_offset,
                   _epochs_of(mine, os.path.join(plan.directory, broker_files.LEADER_EPOCH_CHECKPOINT)))
    stored = Replica(LogDirectory(f"the backup's run {prev.run}", None, None), label, was.log_start_offset,
                     was.end_offset, stored_epochs)
    newer = (here.latest_epoch, here.log_end) > (stored.latest_epoch, stored.log_end)
    chosen, other = (here, stored) if newer else (stored, here)
    at, _problems = _cross_check(chosen, other)
    if at is not None and divergent != "newest":
        return (f"{label}: this broker's replica ({plan.directory}, offsets {here.log_start}..{here.log_end}, leader "
                f"epoch {here.latest_epoch}) and the backup's (run {prev.run}, offsets {stored.log_start}.."
                f"{stored.log_end}, leader epoch {stored.latest_epoch}) have diverged at offset {at}; the stored copy "
                "stands (back up with divergent='newest' to keep the newest leader's history)")
    return "take" if newer else "keep"


def _merge_root_checkpoints(target: Target, prev: Manifest, manifest: Manifest, taken: set[str]) -> None:
    """A shared backup's run root: each checkpoint's entries of the partitions taken from this broker, and the
    previous run's entries of the others."""
    run_root = f"{META_DIR}/runs/{manifest.run:020d}/root"
    prev_root = f"{META_DIR}/runs/{prev.run:020d}/root"
    for name in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.REPLICATION_OFFSET,
                 checkpoint.CLEANER_OFFSET):
        mine, old = target.read(f"{run_root}/{name}"), target.read(f"{prev_root}/{name}")
        if old is None:
            continue
        try:
            tables = [checkpoint.parse_offsets(b or b"", name) for b in (mine, old)]
        except checkpoint.CorruptCheckpointError:
            continue
        merged = {tp: o for tp, o in tables[1].items() if f"{tp[0]}-{tp[1]}" not in taken}
        merged.update({tp: o for tp, o in tables[0].items() if f"{tp[0]}-{tp[1]}" in taken})
        lines = [str(checkpoint.VERSION), str(len(merged))] + [f"{t} {p} {o}" for (t, p), o in sorted(merged.items())]
        data = ("\n".join(lines) + "\n").encode()
        target.put(f"{run_root}/{name}", data)
        manifest.files[f"{run_root}/{name}"] = FileEntry(len(data), crc32c(data), None, "root")
        if name == checkpoint.CLEANER_OFFSET:
            target.put(name, data)


def _committed_text(run: int, manifest: Manifest, job: str) -> bytes:
    parts = {(e.topic, e.partition): (e.log_start_offset, e.end_offset) for e in manifest.partitions.values()}
    return committed_offsets.format_text(run, job, parts, {})


def _published(target: Target, run: int) -> bool:
    return committed_offsets.latest(target.uri).version >= run


def _publish(target: Target, run: int, manifest: Manifest, job: str) -> None:
    """The commit point: readers see the run from here on."""
    text = _committed_text(run, manifest, job)
    if isinstance(target, LocalTarget):
        ok = committed_offsets.publish(target.uri, run, text)
    else:
        from kvlog.spark import _remote
        assert isinstance(target, RemoteTarget)
        ok = _remote.publish(target.uri, target.store, run, text, job)
    if not ok:
        raise BackupError(f"{target.path(committed_offsets.file_name(run))} exists already: another writer "
                          "published into this backup; its manifest stands, this run's does not")
