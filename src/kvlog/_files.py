"""Kafka's file naming: 20-digit base-offset prefixes, suffixes, ``<topic>-<partition>`` directories."""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterable

from kvlog import _io, storage
from kvlog.errors import DirectoryNotFoundError, LogLockedError, WrongDirectoryKindError

LOG = ".log"
INDEX = ".index"
TIME_INDEX = ".timeindex"
TXN_INDEX = ".txnindex"
SNAPSHOT = ".snapshot"
CLEANED = ".cleaned"
SWAP = ".swap"
DELETED = ".deleted"
QUARANTINED = ".quarantined"
SEGMENT_SUFFIXES = (LOG, INDEX, TIME_INDEX, TXN_INDEX)
CLEAN_SHUTDOWN = ".kafka_cleanshutdown"
LOCK = ".kvlog.lock"

# Kafka's topic characters, then "-" and the partition number as Kafka writes it (no sign, no leading zero)
_PARTITION_DIR = re.compile(r"^([a-zA-Z0-9._-]{1,249})-(0|[1-9][0-9]{0,9})$")
_MAX_PARTITION = 2**31 - 1
#: files of a partition directory that are not named by an offset (KRaft's ``quorum-state`` included)
PARTITION_FILES = frozenset({"partition.metadata", "leader-epoch-checkpoint", "quorum-state"})
#: the KRaft metadata log: Raft's own log, never an ordinary topic
CLUSTER_METADATA = "__cluster_metadata"
#: files at the top of a data directory (a ``log.dirs`` entry) that no partition directory holds: Kafka's
#: ``meta.properties``, root checkpoints, clean-shutdown marker, lock and KRaft bootstrap; kvlog's topic table
DATA_DIR_FILES = frozenset({"meta.properties", "recovery-point-offset-checkpoint", "log-start-offset-checkpoint",
                            "replication-offset-checkpoint", "cleaner-offset-checkpoint", CLEAN_SHUTDOWN, ".lock",
                            "bootstrap.checkpoint", "kvlog-topics.json"})
# a partition directory Kafka renamed: <topic>-<partition>.<32 hex digits>-delete|-future|-stray
_RENAMED_PARTITION_DIR = re.compile(r"^([a-zA-Z0-9._-]{1,249})-(0|[1-9][0-9]{0,9})\.[0-9a-fA-F]{32}-(delete|future|stray)$")


def prefix(offset: int) -> str:
    return f"{offset:020d}"


def segment_path(directory: str, base_offset: int, suffix: str) -> str:
    return os.path.join(directory, prefix(base_offset) + suffix)


def offset_from_name(name: str) -> int:
    """Everything before the first '.' as an offset (Kafka's offsetFromFileName)."""
    return int(os.path.basename(name).split(".", 1)[0])


def is_offset_name(name: str) -> bool:
    head = os.path.basename(name).split(".", 1)[0]
    return len(head) == 20 and head.isdigit()


def parse_partition_dir(path: str) -> tuple[str, int] | None:
    """``(topic, partition)`` from a ``<topic>-<partition>`` directory name, or None.

    Only names a broker writes: a legal topic name (``[a-zA-Z0-9._-]``, at most 249 characters, not
    ``.``/``..``), then the partition number in decimal without sign or leading zeros, at most 2^31-1.
    ``-delete``/``-future``/``-stray`` directories (``t-0.<uuid>-delete``) are not partitions.
    """
    m = _PARTITION_DIR.match(os.path.basename(os.path.normpath(path)))
    if not m or m.group(1) in (".", "..") or int(m.group(2)) > _MAX_PARTITION:
        return None
    return m.group(1), int(m.group(2))


def looks_like_partition(names: Iterable[str]) -> bool:
    """Whether a directory holding ``names`` holds a Kafka partition: at least one file named by a
    20-digit offset (segment, index, producer snapshot) or one of :data:`PARTITION_FILES`."""
    return any(is_offset_name(n) or n in PARTITION_FILES for n in names)


def is_kafka_partition_name(path: str) -> bool:
    """Whether a directory's name is one Kafka gives a partition's directory: ``<topic>-<partition>``
    (:func:`parse_partition_dir`), or that renamed for deletion, a replica move or a stray replica
    (``<topic>-<partition>.<uuid>-delete|-future|-stray``, Kafka's ``UnifiedLog`` names)."""
    name = os.path.basename(os.path.normpath(path))
    return parse_partition_dir(name) is not None or _RENAMED_PARTITION_DIR.match(name) is not None


def _kvlog_partition_file(name: str) -> bool:
    """kvlog's own files in a partition directory that hold no data: the writer's lock, the mirror's checkpoint
    (and a temporary file of it or of a partition file)."""
    return (name == LOCK or name.split(".", 1)[0] == "mirror-checkpoint"
            or name.endswith(".tmp") and name[:-4] in PARTITION_FILES)


def _listed(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (", …" if len(names) > limit else "")


def check_log_directory(path: str, names: list[str], *, read_only: bool) -> None:
    """Refuse (``WrongDirectoryKindError``) a directory ``Log.open`` must not take as one partition's log.

    A directory holding segments is a log, whatever its name. One without: a data directory (Kafka's root
    files, or ``<topic>-<partition>`` directories holding partition files) is refused to writers and readers
    alike (a writer would put segments beside the partitions); a reader is also refused a directory that holds
    files but no Kafka partition file (segment, index, snapshot, ``partition.metadata``,
    ``leader-epoch-checkpoint``), and an empty one whose name is no partition's (``<topic>-<partition>``,
    also renamed ``-delete``/``-future``/``-stray``): either read as an empty log would hide the mistake.
    A new or empty directory opened for writing is how a log is created."""
    if any(n.endswith(LOG) and is_offset_name(n) for n in names):
        return
    signs = sorted(n for n in names if n in DATA_DIR_FILES)
    if not looks_like_partition(names) or signs:
        signs += sorted(os.path.basename(p) for p in partition_dirs(path)[0].values())
    if signs:
        raise WrongDirectoryKindError(
            f"{path} is a Kafka data directory (a broker's log.dirs entry: it holds {_listed(signs)}), not one "
            f"partition's log: open one of its partitions (Log.open({os.path.join(path, '<topic>-<partition>')!r})),"
            f" or the whole directory with LogManager({path!r}, read_only=True)")
    if not read_only or looks_like_partition(names):
        return
    foreign = sorted(n for n in names if not _kvlog_partition_file(n))
    if foreign:
        raise WrongDirectoryKindError(
            f"{path} is not a Kafka partition directory: it holds no segment, index, producer snapshot, "
            f"partition.metadata or leader-epoch-checkpoint file, only {_listed(foreign)}; pass a partition "
            "directory (<data directory>/<topic>-<partition>)")
    if not names and not is_kafka_partition_name(path):
        raise WrongDirectoryKindError(
            f"{path} is an empty directory whose name is not a partition's (<topic>-<partition>): there is no log "
            "to read here; pass a partition directory (<data directory>/<topic>-<partition>), or open it for "
            "writing to create a log")


def check_data_directory(path: str, names: list[str]) -> None:
    """Refuse (``WrongDirectoryKindError``) a partition directory given where a data directory is wanted
    (``LogManager``): one holding segments or partition files directly."""
    own = sorted(n for n in names if (is_offset_name(n) and n.endswith(LOG)) or n in PARTITION_FILES)
    if not own and not looks_like_partition(names):
        return
    if not own:
        own = sorted(n for n in names if is_offset_name(n))
    parent = os.path.dirname(os.path.normpath(path))
    raise WrongDirectoryKindError(
        f"{path} is a partition directory (it holds {_listed(own)}), not a data directory: pass the data "
        f"directory holding it (LogManager({parent!r})), or open this partition with Log.open({path!r})")


def partition_dirs(root: str) -> tuple[dict[tuple[str, int], str], list[str]]:
    """The partition directories directly under a data directory ``root`` (a local path or a normalized
    URI): ``({(topic, partition): path}, skipped)``. A child counts when its name parses
    (:func:`parse_partition_dir`) and its files look like a partition (:func:`looks_like_partition`);
    ``skipped`` names the children whose names parse but whose contents do not (``/etc/dbus-1``)."""
    found: dict[tuple[str, int], str] = {}
    skipped: list[str] = []
    for name in sorted(_io.fs.listdir(root)):
        tp = parse_partition_dir(name)
        full = os.path.join(root, name)
        if tp is None or not _io.fs.isdir(full):
            continue
        if looks_like_partition(_io.fs.listdir(full)):
            found[tp] = full
        else:
            skipped.append(name)
    return found, skipped


def is_partition_dir(path: str) -> bool:
    """True for a partition directory, False for a data directory holding partition directories;
    ``DirectoryNotFoundError`` ("no Kafka partitions found") for anything else (``kvlog verify /etc``)."""
    names = _io.fs.listdir(path)
    if any(n.endswith(LOG) and is_offset_name(n) for n in names):
        return True
    found, skipped = partition_dirs(path)
    if found:
        return False
    if parse_partition_dir(path) is not None and looks_like_partition(names):
        return True
    also = (f"; {', '.join(skipped[:5])}{', …' if len(skipped) > 5 else ''} "
            f"{'is' if len(skipped) == 1 else 'are'} named like partitions but hold no Kafka partition files"
            if skipped else "")
    raise DirectoryNotFoundError(f"no Kafka partitions found in {path}: it holds neither log segments nor "
                                 f"<topic>-<partition> directories with Kafka partition files{also}")


def discover_partitions(path: str) -> tuple[bool, list[tuple[str, str | None, int | None]]]:
    """``(is one partition, [(path, topic, partition)])`` for a partition directory or a data directory
    (a local path or a URI): what every tool that takes either kind of directory walks."""
    path = storage.normalize(path)
    if not _io.fs.isdir(path):
        raise DirectoryNotFoundError(f"no such directory: {path}")
    if is_partition_dir(path):
        tp = parse_partition_dir(path)
        return True, [(path, tp[0] if tp else None, tp[1] if tp else None)]
    found = partition_dirs(path)[0]
    return False, [(full, t, p) for (t, p), full in sorted(found.items())]


def lock_file(path: str, what: str) -> int:
    """Take an exclusive advisory lock on ``path`` (created if missing); ``LogLockedError`` if held.

    Returns the file descriptor that holds the lock; ``unlock_file`` releases it.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LogLockedError(f"{what} is already open for writing by another process or object") from None
    return fd


def lock_existing_file(path: str, what: str) -> int | None:
    """``lock_file`` for a reader that must not write: the lock is taken only if ``path`` exists (nothing is
    created; a writer creates it before it writes), so a writer holding it is refused all the same. None when
    there is no such file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LogLockedError(f"{what} is already open for writing by another process or object") from None
    return fd


def unlock_file(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
