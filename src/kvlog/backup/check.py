"""``kvlog verify`` of a backup: every run's manifest against the objects it names.

Each file a manifest lists must exist with its size and CRC-32C, at its own path or (replaced by a later run)
under ``.kvlog-backup/objects``; a ``.log`` copied as a prefix may have grown since (a later run re-copied
the active segment), and then its first bytes must still match. Derived files (rebuilt indexes, cut
checkpoints) are checked in the newest run only: older runs' are built again by a restore.

``kvlog verify`` counts a problem of a partition's file against that partition (:func:`attach_to_partitions`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kvlog import _files
from kvlog.backup.manifest import OBJECTS, BackupManifestError, FileEntry
from kvlog.backup.run import list_runs, read_manifest
from kvlog.backup.target import Target, open_target
from kvlog.checksum import crc32c
from kvlog.errors import KvlogError
from kvlog.verify import PartitionReport

__all__ = ["BackupProblem", "attach_to_partitions", "verify_backup", "is_backup"]


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
    """What is wrong with ``rel`` (a problem's text names it already) and with its copy under ``objects``."""
    copy = f"{OBJECTS}/{rel}.{entry.crc32c:08x}"
    grown_ok = entry.derived.startswith("prefix:")
    notes = []
    for w in (rel, copy):
        size = target.size(w)
        if size is None:
            notes.append("missing" if w == rel else f"no copy in {OBJECTS}")
            continue
        it = "" if w == rel else f"its copy in {OBJECTS}: "
        if size != entry.size and not (grown_ok and size > entry.size):
            notes.append(f"{it}{size} bytes, the manifest says {entry.size}")
            continue
        if not deep:
            return None
        data = target.read(w) if size == entry.size else target.read_range(w, 0, entry.size)
        if data is not None and crc32c(data) == entry.crc32c:
            return None
        notes.append(f"{it}CRC-32C {crc32c(data or b''):08x}, the manifest says {entry.crc32c:08x}")
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


def attach_to_partitions(problems: list[BackupProblem], reports: list[PartitionReport]) -> list[BackupProblem]:
    """Each problem of a partition's file as an error of that partition's report (from :func:`kvlog.verify_path`
    of the backup: a partition is not OK when a file of it is not the one its manifest names), the same finding
    in several runs once; returns the other problems (manifests, root files, partitions no report covers)."""
    by_tp: dict[tuple[str, int], PartitionReport] = {}
    for r in reports:  # a partition's own directory: its first report (a tiered one may follow)
        if r.topic is not None and r.partition is not None:
            by_tp.setdefault((r.topic, r.partition), r)
    found: dict[tuple[tuple[str, int], str, str], list[int]] = {}
    rest = []
    for p in problems:
        label, _, name = p.file.partition("/")
        tp = _files.parse_partition_dir(label) if name and "/" not in name else None
        if tp is None or tp not in by_tp:
            rest.append(p)
            continue
        found.setdefault((tp, name, p.message), []).append(p.run)
    for (tp, name, message), runs in found.items():
        which = f"run {runs[0]}" if len(runs) == 1 else f"runs {', '.join(map(str, runs))}"
        by_tp[tp].error(name, f"backup {which}: {message}")
    return rest
