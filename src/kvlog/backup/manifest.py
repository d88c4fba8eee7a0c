"""A backup run's manifest: every file the run's point-in-time directory holds, and each partition's range.

``.kvlog-backup/manifests/<20-digit run>.json``: JSON, then a line ``crc32c <hex>`` over the JSON (a torn
or edited manifest is refused, not half-trusted). Files are keyed by their path relative to the backup root
(``<topic>-<partition>/<name>``, or ``.kvlog-backup/runs/<run>/root/<name>`` for the source root's files)
with the stored size and CRC-32C, the source file's identity when it was copied (size, mtime, inode: what
lets the next run skip it without reading it) and ``object``, where the bytes live now: the same path, or
``.kvlog-backup/objects/...`` once a later run replaced or removed the file (compaction, retention).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from kvlog.checksum import crc32c
from kvlog.errors import KvlogError

__all__ = ["BackupManifestError", "FileEntry", "PartitionEntry", "Manifest", "manifest_path", "run_of",
           "MANIFESTS", "OBJECTS", "FORMAT"]

FORMAT = "kvlog-backup-manifest"
VERSION = 1
MANIFESTS = ".kvlog-backup/manifests"
OBJECTS = ".kvlog-backup/objects"


class BackupManifestError(KvlogError):
    """A manifest that is torn, damaged or of an unknown format."""


@dataclass
class FileEntry:
    size: int
    crc32c: int
    source: tuple[int, int, int] | None = None  # (size, mtime ns, inode) of the source file copied
    derived: str = ""  # how the stored bytes were made from the source ("" = verbatim; "prefix:<bytes>" …)
    object: str = ""  # where the bytes are now, when not at the entry's own path

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"size": self.size, "crc32c": f"{self.crc32c:08x}"}
        if self.source is not None:
            out["source"] = list(self.source)
        if self.derived:
            out["derived"] = self.derived
        if self.object:
            out["object"] = self.object
        return out

    @classmethod
    def from_json(cls, obj: Any) -> "FileEntry":
        src = obj.get("source")
        return cls(int(obj["size"]), int(obj["crc32c"], 16), tuple(int(x) for x in src) if src else None,  # type: ignore[arg-type]
                   str(obj.get("derived", "")), str(obj.get("object", "")))


@dataclass
class PartitionEntry:
    topic: str
    partition: int
    log_start_offset: int
    end_offset: int  # the backup holds [log_start_offset, end_offset)
    cut: str  # why it ends there: "high_watermark", "cluster_committed", "log_end", "damage", "unchanged"
    high_watermark: int | None = None
    recovery_point: int | None = None
    topic_id: str | None = None
    index_interval_bytes: int = 4096  # the topic's, for indexes a restore rebuilds
    error: str = ""  # the partition could not be backed up in this run (the previous run's copy stands)
    warnings: list[str] = field(default_factory=list)
    replica: str = ""  # a cluster's backup: the partition directory of the replica read (its broker's log dir)


@dataclass
class Manifest:
    run: int
    started_ms: int
    finished_ms: int
    source: str
    files: dict[str, FileEntry] = field(default_factory=dict)
    partitions: dict[str, PartitionEntry] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_bytes(self) -> bytes:
        body = json.dumps({
            "format": FORMAT, "version": VERSION, "run": self.run, "started_ms": self.started_ms,
            "finished_ms": self.finished_ms, "source": self.source,
            "partitions": {k: asdict(v) for k, v in sorted(self.partitions.items())},
            "files": {k: v.as_json() for k, v in sorted(self.files.items())},
            "warnings": self.warnings,
        }, indent=1, sort_keys=True).encode() + b"\n"
        return body + f"crc32c {crc32c(body):08x}\n".encode()

    @classmethod
    def parse(cls, data: bytes, where: str) -> "Manifest":
        cut = data.rfind(b"crc32c ")
        if cut <= 0 or data[cut - 1:cut] != b"\n":
            raise BackupManifestError(f"backup manifest {where} is torn (no checksum line)")
        body = data[:cut]
        try:
            want = int(data[cut + 7:].strip(), 16)
        except ValueError:
            raise BackupManifestError(f"backup manifest {where}: malformed checksum line") from None
        if crc32c(body) != want:
            raise BackupManifestError(f"backup manifest {where}: checksum mismatch (damaged or edited)")
        try:
            obj = json.loads(body)
            if obj.get("format") != FORMAT or obj.get("version") != VERSION:
                raise BackupManifestError(f"backup manifest {where}: not a {FORMAT} version {VERSION}")
            parts = {k: PartitionEntry(**v) for k, v in obj["partitions"].items()}
            files = {k: FileEntry.from_json(v) for k, v in obj["files"].items()}
            return cls(int(obj["run"]), int(obj["started_ms"]), int(obj["finished_ms"]), str(obj["source"]),
                       files, parts, list(obj.get("warnings", [])))
        except (KeyError, TypeError, ValueError) as exc:
            raise BackupManifestError(f"backup manifest {where}: malformed ({exc})") from None

    def partition_files(self, topic: str, partition: int) -> dict[str, FileEntry]:
        prefix = f"{topic}-{partition}/"
        return {k[len(prefix):]: v for k, v in self.files.items() if k.startswith(prefix)}


def manifest_path(run: int) -> str:
    return f"{MANIFESTS}/{run:020d}.json"


def run_of(name: str) -> int:
    """The run number a manifest file name carries, or -1."""
    stem, dot, ext = name.partition(".")
    return int(stem) if ext == "json" and len(stem) == 20 and stem.isdigit() else -1
