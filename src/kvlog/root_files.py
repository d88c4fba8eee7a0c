"""The files a data directory's root holds for all its logs: the recovery-point and log-start-offset
checkpoints (Kafka's layout) and the lock that serialises their read-modify-write.

Beside ``kvlog.checkpoint`` (the file format) rather than in the log package: a ``LogManager`` and the
cleaner use them too, and none of them may import the log package's internals.
"""

from __future__ import annotations

import fcntl
import os

from kvlog import _io, checkpoint


class _RootCheckpoints:
    """The data directory's recovery-point and log-start-offset checkpoint files (Kafka's layout)."""

    def __init__(self, root: str):
        self.root = root

    def read(self, topic: str, partition: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, key in ((checkpoint.RECOVERY_POINT, "recovery_point"),
                          (checkpoint.LOG_START_OFFSET, "log_start_offset"),
                          (checkpoint.REPLICATION_OFFSET, "high_watermark")):
            try:
                table = checkpoint.read_offsets(os.path.join(self.root, name))
            except checkpoint.CorruptCheckpointError:
                table = {}  # Kafka's fallback: full recovery
            if (topic, partition) in table:
                out[key] = table[(topic, partition)]
        return out

    def write(self, topic: str, partition: int, *, recovery_point: int, log_start_offset: int) -> None:
        lock = _RootLock(self.root)
        with lock:
            checkpoint.update_offsets(os.path.join(self.root, checkpoint.RECOVERY_POINT),
                                      {(topic, partition): recovery_point})
            checkpoint.update_offsets(os.path.join(self.root, checkpoint.LOG_START_OFFSET),
                                      {(topic, partition): log_start_offset})

    def remove(self, topic: str, partition: int) -> None:
        with _RootLock(self.root):
            for name in (checkpoint.RECOVERY_POINT, checkpoint.LOG_START_OFFSET, checkpoint.CLEANER_OFFSET):
                path = os.path.join(self.root, name)
                if _io.fs.exists(path):
                    checkpoint.update_offsets(path, {(topic, partition): None})


class _RootLock:
    """Serialises read-modify-write of the root checkpoint files between logs and processes."""

    def __init__(self, root: str):
        self.path = os.path.join(root, ".kvlog-checkpoints.lock")
        self.fd = -1

    def __enter__(self) -> "_RootLock":
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                          0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
