"""Kafka's file naming: 20-digit base-offset prefixes, suffixes, ``<topic>-<partition>`` directories."""

from __future__ import annotations

import fcntl
import os
import re

from kvlog.errors import LogLockedError

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

_PARTITION_DIR = re.compile(r"^(.+)-(\d+)$")


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
    """``(topic, partition)`` from a ``<topic>-<partition>`` directory name, or None."""
    m = _PARTITION_DIR.match(os.path.basename(os.path.normpath(path)))
    if not m:
        return None
    return m.group(1), int(m.group(2))


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


def unlock_file(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)
