"""``kvlog verify`` of a backup: every run's manifest against the objects it names.

Each file a manifest lists must exist with its size and CRC-32C, at its own path or (replaced by a later run)
under ``.kvlog-backup/objects``; a ``.log`` copied as a prefix may have grown since (a later run re-copied
the active segment), and then its first bytes must still match. Derived files (rebuilt indexes, cut
checkpoints) are checked in the newest run only: older runs' are built again by a restore.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kvlog.backup.manifest import OBJECTS, BackupManifestError, FileEntry
from kvlog.backup.run import list_runs, read_manifest
from kvlog.backup.target import Target, open_target
from kvlog.checksum import crc32c
from kvlog.errors import KvlogError

__all__ = ["BackupProblem", "verify_backup", "is_backup"]


@dataclass(frozen=True)
class BackupProblem:
    run: int
    file: str
    message: str

    def text(self) -> str:
        return f"run {self.run}: {self.file}: {self.message}"


def is_backup(path: str | os.PathLike[str]) -> bool:
    """A directory (or object-store prefix) that holds backup manifests."""
    try:
        return bool(open_target(path).listdir(".kvlog-backup/manifests")) if "://" in os.fspath(path) else \
            os.path.isdir(os.path.join(os.fspath(path), ".kvlog-backup", "manifests"))
    except KvlogError:
        return False


def _check(target: Target, run: int, rel: str, entry: FileEntry, deep: bool, newest: bool) -> str | None:
    where = [rel, f"{OBJECTS}/{rel}.{entry.crc32c:08x}"]
    grown_ok = entry.derived.startswith("prefix:")
    notes = []
    for w in where:
        size = target.size(w)
        if size is None:
            notes.append(f"{w} missing")
            continue
        if size != entry.size and not (grown_ok and size > entry.size):
            notes.append(f"{w} is {size} bytes, the manifest says {entry.size}")
            continue
        if not deep:
            return None
        data = target.read(w) if size == entry.size else target.read_range(w, 0, entry.size)
        if data is not None and crc32c(data) == entry.crc32c:
            return None
        notes.append(f"{w}: CRC-32C {crc32c(data or b''):08x}, the manifest says {entry.crc32c:08x}")
    if not newest and entry.derived and not grown_ok:
        return None  # an older run's derived file: a restore derives it again (and checks it then)
    return "; ".join(notes)


def verify_backup(path: str | os.PathLike[str], *, run: int | None = None, deep: bool = True) -> list[BackupProblem]:
    """Problems of every run (or of ``run``): manifests that do not parse, objects missing or different."""
    target = open_target(path)
    runs = list_runs(target)
    if not runs:
        return [BackupProblem(0, ".kvlog-backup/manifests", "no backup run found")]
    problems = []
    for r in ([run] if run is not None else runs):
        try:
            manifest = read_manifest(target, r)
        except (BackupManifestError, KvlogError) as exc:
            problems.append(BackupProblem(r, f".kvlog-backup/manifests/{r:020d}.json", str(exc)))
            continue
        for rel, entry in sorted(manifest.files.items()):
            msg = _check(target, r, rel, entry, deep, r == runs[-1])
            if msg:
                problems.append(BackupProblem(r, rel, msg))
    return problems
