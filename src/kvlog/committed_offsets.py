"""A data directory's committed offsets: what kvlog's sinks made visible, published without renames.

Each commit creates the root-level file ``kvlog-committed-offsets.<20-digit version>`` exclusively (the next
version; a second writer of the same version fails), holding every governed partition's log start and
committed end offset and each streaming sink's last applied epoch, then a CRC-32C of the text. Readers take
the newest version whose CRC holds (a torn newest file is a commit that did not happen) and read nothing of a
listed partition at or past its committed end: those bytes are a write in progress or a failed job's
leftovers, the way a Kafka consumer stops at the high watermark. A directory without such a file is not
governed and reads as before. The JVM sink writes the same format (``CommittedOffsets.java``).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Mapping

from kvlog import _io
from kvlog.checksum import crc32c
from kvlog.errors import KvlogError, LogLockedError

PREFIX = "kvlog-committed-offsets."
MAGIC = "kvlog-committed-offsets 0"
LEASE_PREFIX = "kvlog-write-lease."
LEASE_TIMEOUT_MS = 24 * 3600 * 1000
KEEP = 3

__all__ = ["CommittedOffsets", "latest", "at_backup_run", "publish", "commit_partition", "check_no_write_in_progress",
           "uncommitted_split", "set_aside_uncommitted", "hold_local_lease", "release_local_lease"]


@dataclass(frozen=True)
class CommittedOffsets:
    """One version: ``partitions[(topic, partition)] = (log start, committed end)``; ``sinks[id] = epoch``."""

    version: int = 0
    job: str = ""
    partitions: Mapping[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    sinks: Mapping[str, int] = field(default_factory=dict)
    max_listed: int = 0
    #: partitions a broker served past their committed end (see :func:`released_by_broker`): not governed
    released: frozenset[tuple[str, int]] = frozenset()

    @property
    def governed(self) -> bool:
        return self.version > 0

    def range_of(self, topic: str, partition: int) -> tuple[int, int] | None:
        """The partition's committed (start, end); (0, 0) for one a governed directory does not list; None when
        the directory is not governed, or a broker has served the partition since (``released``)."""
        if not self.governed or (topic, partition) in self.released:
            return None
        return self.partitions.get((topic, partition), (0, 0))


def released_by_broker(root: str, found: CommittedOffsets) -> CommittedOffsets:
    """``found`` without the partitions a Kafka broker has served since: in a broker's log directory
    (``meta.properties``), those whose high watermark in ``replication-offset-checkpoint`` is past their
    committed end. Only a broker writes that file (and ``kvlog adopt``/``restore``, which hand a directory to
    one), and a broker's high watermark counts records it acknowledged: they are not a failed job's
    leftovers, and a reader must see them, a writer keep them and a sink append after them. A sink's commit
    into the directory later governs the partition again, at its real end."""
    if not found.governed:
        return found
    from kvlog import checkpoint

    try:
        if not _io.fs.exists(os.path.join(root, "meta.properties")):
            return found
        hws = checkpoint.read_offsets(os.path.join(root, checkpoint.REPLICATION_OFFSET))
    except (OSError, KvlogError):
        return found
    released = frozenset(tp for tp, hw in hws.items() if hw > found.partitions.get(tp, (0, 0))[1])
    if not released:
        return found
    return CommittedOffsets(found.version, found.job, found.partitions, found.sinks, found.max_listed, released)


def version_of(name: str) -> int:
    if not name.startswith(PREFIX) or len(name) != len(PREFIX) + 20:
        return -1
    digits = name[len(PREFIX):]
    return int(digits) if digits.isdigit() else -1


def file_name(version: int) -> str:
    return f"{PREFIX}{version:020d}"


def format_text(version: int, job: str, partitions: Mapping[tuple[str, int], tuple[int, int]],
                sinks: Mapping[str, int]) -> bytes:
    lines = [MAGIC, f"version {version}", f"job {job}", f"partitions {len(partitions)}"]
    lines += [f"{t} {p} {s} {e}" for (t, p), (s, e) in sorted(partitions.items())]
    lines += [f"sinks {len(sinks)}"] + [f"{k} {v}" for k, v in sorted(sinks.items())]
    body = ("\n".join(lines) + "\n").encode()
    return body + f"crc32c {crc32c(body):08x}\n".encode()


def parse(data: bytes, version: int, max_listed: int = 0) -> CommittedOffsets | None:
    """The file's content, or None when it is torn, damaged, or not the version its name says."""
    cut = data.rfind(b"crc32c ")
    if cut < 0 or (cut > 0 and data[cut - 1:cut] != b"\n"):
        return None
    body = data[:cut]
    if data[cut + 7:].strip() != f"{crc32c(body):08x}".encode():
        return None
    try:
        lines = body.decode().split("\n")[:-1]
        if lines[0] != MAGIC or lines[1] != f"version {version}" or not lines[2].startswith("job "):
            return None
        n = int(lines[3].removeprefix("partitions "))
        parts = {}
        for line in lines[4:4 + n]:
            t, p, s, e = line.split(" ")
            parts[(t, int(p))] = (int(s), int(e))
        i = 4 + n
        m = int(lines[i].removeprefix("sinks "))
        sinks = {k: int(v) for k, v in (line.split(" ") for line in lines[i + 1:i + 1 + m])}
        if i + 1 + m != len(lines):
            return None
        return CommittedOffsets(version, lines[2][4:], parts, sinks, max_listed)
    except (ValueError, IndexError, UnicodeDecodeError):
        return None  # a CRC that matches text of another shape: not ours to trust


_CACHE: dict[str, tuple[int, CommittedOffsets]] = {}
_UNGOVERNED = CommittedOffsets()


def latest(root: str) -> CommittedOffsets:
    """The newest valid version under ``root`` (ungoverned when there is none). A local directory's answer is
    cached by its modification time, which every publish changes."""
    remote = "://" in root
    stamp = -1
    if not remote:
        try:
            stamp = os.stat(root).st_mtime_ns
        except (FileNotFoundError, NotADirectoryError):
            return _UNGOVERNED
        hit = _CACHE.get(root)
        if hit is not None and hit[0] == stamp:  # one stat: every hot path (refresh, flush) asks
            return hit[1]
    for _attempt in range(4):
        try:
            names = _io.fs.listdir(root)
        except (FileNotFoundError, KvlogError):
            return CommittedOffsets()
        versions = sorted(v for v in map(version_of, names) if v > 0)
        if not versions:
            found = CommittedOffsets()
            break
        found = CommittedOffsets(max_listed=versions[-1])
        vanished = False
        for v in reversed(versions):
            try:
                data = _io.fs.read_file(os.path.join(root, file_name(v)))
            except FileNotFoundError:
                vanished = True  # pruned by a commit meanwhile: list again
                break
            got = parse(data, v, versions[-1])
            if got is not None:
                found = got
                break
        if not vanished:
            break
    found = released_by_broker(root, found)
    if not remote and len(_CACHE) < 4096:
        _CACHE[root] = (stamp, found)
    return found


# A backup (kvlog.backup) keeps every run's version as ``.kvlog-backup/runs/<run>/committed-offsets``, so a
# reader can be pinned to an older run. A later run that moved aside bytes inside an older run's range (a
# segment the source compacted or deleted) leaves ``.kvlog-backup/rewritten/<topic>-<partition>.<run>``:
# that partition of every earlier run no longer reads in place (a restore still gets it back).
BACKUP_RUNS = ".kvlog-backup/runs"
REWRITTEN = ".kvlog-backup/rewritten"
_RUNS: dict[tuple[str, int], CommittedOffsets] = {}


def backup_run_file(run: int) -> str:
    return f"{BACKUP_RUNS}/{run:020d}/committed-offsets"


def rewritten_marker(topic: str, partition: int, run: int) -> str:
    return f"{REWRITTEN}/{topic}-{partition}.{run:020d}"


def at_backup_run(root: str, run: int) -> tuple[CommittedOffsets, dict[tuple[str, int], int]]:
    """Backup run ``run`` of the backup at ``root``: its committed offsets, and the partitions a later run
    rewrote (``{(topic, partition): first later run}``).

    A run's file never changes once written, so it is cached; the rewritten markers are listed on every call,
    because the next backup run may add one at any time (a process that cached them would go on reading, as
    run ``run``, files that run has since replaced)."""
    from kvlog import _files
    from kvlog.errors import BackupError

    key = (root, run)
    got = _RUNS.get(key)
    if got is None:
        path = os.path.join(root, backup_run_file(run))
        try:
            data = _io.fs.read_file(path)
        except FileNotFoundError:
            raise BackupError(f"{root} holds no backup run {run} that reads in place (no {backup_run_file(run)}): "
                              f"read the newest run, or restore that run with kvlog restore --run {run}") from None
        got = parse(data, run, run)
        if got is None:
            raise BackupError(f"{path} is damaged (its CRC-32C does not hold)")
        if len(_RUNS) < 1024:
            _RUNS[key] = got
    rewritten: dict[tuple[str, int], int] = {}
    try:
        names = _io.fs.listdir(os.path.join(root, REWRITTEN))
    except (FileNotFoundError, KvlogError):
        names = []
    for name in names:
        label, dot, digits = name.rpartition(".")
        tp = _files.parse_partition_dir(label) if dot and len(digits) == 20 and digits.isdigit() else None
        if tp is not None and int(digits) > run:
            rewritten[tp] = min(rewritten.get(tp, int(digits)), int(digits))
    return got, rewritten


def publish(root: str, version: int, text: bytes) -> bool:
    """Creates ``version`` exclusively (False: it exists, another commit won); this write is the commit point."""
    path = os.path.join(root, file_name(version))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
    except FileExistsError:
        return False
    try:
        os.write(fd, text)
        os.fsync(fd)
    finally:
        os.close(fd)
    _io.fs.fsync_dir(root)
    for name in os.listdir(root):
        v = version_of(name)
        if 0 < v < version - KEEP:
            try:
                os.unlink(os.path.join(root, name))
            except FileNotFoundError:
                pass
    return True


_SEGMENT_FILES = (".log", ".index", ".timeindex", ".txnindex", ".snapshot")


def _uncommitted(name: str, end: int) -> bool:
    base, _dot, suffix = name.partition(".")
    if not (len(base) == 20 and base.isdigit() and "." + suffix in _SEGMENT_FILES):
        return False
    # a producer snapshot names the offset it is the state before: one at the end itself is committed state
    return int(base) > end if suffix == "snapshot" else int(base) >= end


def uncommitted_split(names: list[str], end: int) -> list[str]:
    """The names that remain part of the log: segment files at or past the committed ``end`` are not."""
    return [n for n in names if not _uncommitted(n, end)]


UNCOMMITTED = ".uncommitted-"


def set_aside_uncommitted(directory: str, names: list[str], end: int) -> list[str]:
    """A local writer's open: segment files at or past the committed ``end`` are renamed
    ``<name>.uncommitted-<ms>`` (not part of the log, kept for inspection, as recovery keeps what it cuts);
    returns the names left."""
    kept = uncommitted_split(names, end)
    stamp = int(time.time() * 1000)
    for n in names:
        if _uncommitted(n, end):
            os.replace(os.path.join(directory, n), os.path.join(directory, f"{n}{UNCOMMITTED}{stamp}"))
    if len(kept) != len(names):
        _io.fs.fsync_dir(directory)
    return kept


def commit_partition(root: str, topic: str, partition: int, start: int, end: int, job: str = "kvlog") -> None:
    """A local writer's flush in a governed directory: the next version with this partition at (start, end)."""
    for _attempt in range(50):
        cur = latest(root)
        if not cur.governed or cur.partitions.get((topic, partition)) == (start, end):
            return
        parts = dict(cur.partitions)
        parts[(topic, partition)] = (start, end)
        version = cur.max_listed + 1
        if publish(root, version, format_text(version, job, parts, cur.sinks)):
            return
    raise KvlogError(f"could not publish the committed offsets of {topic}-{partition} in {root}: other "
                     "commits kept winning")


def check_no_write_in_progress(root: str, topic: str) -> None:
    """A local writer may not open a partition of a topic a Spark sink job is writing (its lease is live)."""
    try:
        names = os.listdir(root)
    except FileNotFoundError:
        return
    now = int(time.time() * 1000)
    for name in names:
        if not name.startswith(LEASE_PREFIX):
            continue
        try:
            with open(os.path.join(root, name), encoding="utf-8") as f:
                fields = f.read(4096).split()
        except FileNotFoundError:
            continue
        if len(fields) < 3 or not fields[0].isdigit() or fields[2] == "local":
            continue  # torn, or a local writer's (local writers exclude each other per partition)
        if fields[1] in ("*", topic) and now - int(fields[0]) < LEASE_TIMEOUT_MS:
            raise LogLockedError(f"a kvlog Spark write is in progress on {root} (lease {name}, topic {fields[1]}): "
                                 f"a local writer of {topic} would interleave with it. If that job is dead, delete "
                                 f"{os.path.join(root, name)}")


# A local writer's lease: while a process has a partition of a data directory open for writing, the root
# holds ``kvlog-write-lease.local-<host>-<pid>`` ("<time ms> * local <host> <pid>"). A JVM sink job cannot
# test the partition's flock, so it reads this instead: a live process on its host refuses the job, a dead
# one's lease is removed. One lease per (root, process), however many logs the process has open there.
_LOCAL: dict[tuple[str, int], int] = {}
_LOCAL_LOCK = threading.Lock()


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", socket.gethostname()) or "localhost"


def _local_lease_path(root: str) -> str:
    return os.path.join(root, f"{LEASE_PREFIX}local-{_host()}-{os.getpid()}")


def hold_local_lease(root: str) -> None:
    """This process opens a partition of ``root`` for writing (see above)."""
    key = (root, os.getpid())
    with _LOCAL_LOCK:
        held = _LOCAL.get(key, 0)
        if held == 0:
            text = f"{int(time.time() * 1000)} * local {_host()} {os.getpid()}\n".encode()
            fd = os.open(_local_lease_path(root), os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                         | getattr(os, "O_CLOEXEC", 0), 0o644)
            try:
                os.write(fd, text)
            finally:
                os.close(fd)
        _LOCAL[key] = held + 1


def release_local_lease(root: str) -> None:
    """This process closed one of its writable logs in ``root``; the last one removes the lease."""
    key = (root, os.getpid())
    with _LOCAL_LOCK:
        held = _LOCAL.get(key, 0) - 1
        if held > 0:
            _LOCAL[key] = held
            return
        _LOCAL.pop(key, None)
        try:
            os.unlink(_local_lease_path(root))
        except FileNotFoundError:
            pass
