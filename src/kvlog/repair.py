"""``kvlog repair``: rewrite only the fields the evidence proves, only when asked, keeping the original bytes.

``audit_segment`` names each field outside a CRC that contradicts its neighbours, and says when the
neighbours (or the batch's own CRC) prove the true value. Repair acts on exactly those:

1. **In place.** A segment whose audit holds proven findings is patched field by field (base or
   wrapper offset, batch length, magic, partition leader epoch) and audited again after each patch,
   until nothing proven is left. Nothing else is touched: a finding that is not proven stays.
2. **Set-aside bytes.** Bytes recovery cut from the end of a segment (``<segment>.log.<P>.quarantined``)
   go back when the segment still ends exactly at ``P``, and the segment with them, after patching,
   audits clean. Whole segments recovery set aside after that one (``<segment>.log.quarantined``) go
   back too, when they then continue the log without a contradiction.

Before a segment file changes, its original bytes are kept beside it as ``<segment>.log.repaired``
(numbered when taken); a restored quarantine file is renamed to ``….repaired`` as well. The segment's
offset and time indexes are removed, so the next open rebuilds them from the repaired bytes; so is the
partition's ``leader-epoch-checkpoint`` when anything changed (the next writer's open rebuilds it). Repair
holds the partition's writer lock throughout: a log open for writing is refused. A dry run writes nothing
(not the lock file either: it takes the lock only where a writer's lock file already is).
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
from dataclasses import dataclass, field
from typing import Any

from kvlog import _files, _io
from kvlog.broker_files import LEADER_EPOCH_CHECKPOINT
from kvlog.batch_audit import REPAIRABLE, Finding, ProducerLast, SegmentAudit, audit_segment, dense_history, snapshot_producers
from kvlog.segment import LogSegment

__all__ = ["RepairReport", "repair_partition"]

_MAX_PATCHES = 256
REPAIRED = ".repaired"


@dataclass
class RepairReport:
    """What ``repair_partition`` did (or, with ``dry_run``, would do) to one partition directory."""

    path: str
    patched: list[str] = field(default_factory=list)  # "<file> position P: <field> F -> E"
    restored: list[str] = field(default_factory=list)  # quarantine files put back into the log
    kept: list[str] = field(default_factory=list)  # where the original bytes now are
    remaining: list[str] = field(default_factory=list)  # findings nothing proves, left as they are

    @property
    def ok(self) -> bool:
        return not self.remaining

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "ok": self.ok, "patched": self.patched, "restored": self.restored,
                "kept": self.kept, "remaining": self.remaining}


def _patch(buf: bytearray, f: Finding) -> None:
    """Write the proven value of ``f`` into the batch header at ``f.position``."""
    p, value = f.position, f.expected
    assert value is not None
    if f.field in ("base offset", "offset", "wrapper offset"):
        buf[p:p + 8] = struct.pack(">q", value)
    elif f.field == "batch length":
        buf[p + 8:p + 12] = struct.pack(">i", value)
    elif f.field == "partition leader epoch":
        buf[p + 12:p + 16] = struct.pack(">i", value)
    elif f.field == "magic":
        buf[p + 16] = value
    else:  # pragma: no cover - REPAIRABLE lists exactly the fields above
        raise ValueError(f"cannot patch {f.field}")


def _audit_bytes(scratch: str, base: int, data: bytes | bytearray, prev_last: int, next_base: int | None,
                 dense: bool, producers: list[ProducerLast] | None = None) -> SegmentAudit:
    path = _files.segment_path(scratch, base, _files.LOG)
    with open(path, "wb") as f:
        f.write(data)
    seg = LogSegment(scratch, base, read_only=True, open_indexes=False)
    try:
        return audit_segment(seg, prev_last=prev_last, next_base=next_base, dense=dense,
                             producers=(lambda: producers) if producers else None)
    finally:
        seg.close_handlers()


def _fix(scratch: str, base: int, data: bytes, prev_last: int, next_base: int | None, dense: bool,
         name: str, report: RepairReport, producers: list[ProducerLast]) -> tuple[bytearray, SegmentAudit]:
    """Patch proven findings one at a time (each patch can reveal the next) until none is left."""
    buf = bytearray(data)
    audit = _audit_bytes(scratch, base, buf, prev_last, next_base, dense, producers)
    for _ in range(_MAX_PATCHES):
        proven = [f for f in audit.findings if f.proven and f.field in REPAIRABLE and f.expected is not None]
        if not proven:
            break
        f = proven[0]
        _patch(buf, f)
        report.patched.append(f"{name} position {f.position}: {f.field} {f.found} -> {f.expected}")
        audit = _audit_bytes(scratch, base, buf, prev_last, next_base, dense, producers)
    return buf, audit


def _keep_name(path: str) -> str:
    candidate, k = path + REPAIRED, 0
    while os.path.exists(candidate):
        k += 1
        candidate = f"{path}-{k}{REPAIRED}"
    return candidate


def _replace_segment(directory: str, base: int, data: bytes | bytearray, report: RepairReport) -> None:
    """Keep the segment's original bytes, write the repaired ones, drop the indexes (rebuilt on open)."""
    log_path = _files.segment_path(directory, base, _files.LOG)
    keep = _keep_name(log_path)
    shutil.copyfile(log_path, keep)
    report.kept.append(os.path.basename(keep))
    tmp = log_path + ".repair.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    _io.fs.rename(tmp, log_path)
    for suffix in (_files.INDEX, _files.TIME_INDEX):
        idx = _files.segment_path(directory, base, suffix)
        if os.path.exists(idx):
            os.unlink(idx)
    _io.fs.fsync_dir(directory)


def _cut_files(directory: str, base: int) -> list[tuple[int, str]]:
    """``(position, path)`` of the bytes recovery cut from segment ``base``, in position order."""
    head = _files.prefix(base) + _files.LOG + "."
    out = []
    for n in os.listdir(directory):
        if n.startswith(head) and n.endswith(_files.QUARANTINED):
            middle = n[len(head):-len(_files.QUARANTINED)].split("-")[0]
            if middle.isdigit():
                out.append((int(middle), os.path.join(directory, n)))
    return sorted(out)


def _whole_quarantined(directory: str) -> list[int]:
    return sorted(_files.offset_from_name(n) for n in os.listdir(directory)
                  if _files.is_offset_name(n) and n.endswith(_files.LOG + _files.QUARANTINED))


def repair_partition(path: str, topic: str | None = None, partition: int | None = None, *,
                     dry_run: bool = False) -> RepairReport:
    """Repair one partition directory (see the module docstring); ``dry_run`` changes nothing."""
    path = os.path.abspath(path)
    report = RepairReport(path)
    # a dry run writes nothing, not even the lock file: it locks one a writer left, and is refused the same
    lock_path = os.path.join(path, _files.LOCK)
    what = f"log {path}"
    lock = _files.lock_existing_file(lock_path, what) if dry_run else _files.lock_file(lock_path, what)
    try:
        with tempfile.TemporaryDirectory(prefix="kvlog-repair-") as scratch:
            _repair_locked(path, topic, partition, dry_run, scratch, report)
    finally:
        if lock is not None:
            _files.unlock_file(lock)
    return report


def _repair_locked(path: str, topic: str | None, partition: int | None, dry_run: bool, scratch: str,
                   report: RepairReport) -> None:
    dense = dense_history(path, topic, partition)
    producers = snapshot_producers(path)
    bases = sorted(_files.offset_from_name(n) for n in os.listdir(path)
                   if _files.is_offset_name(n) and n.endswith(_files.LOG))
    prev_last = -1
    for i, base in enumerate(bases):
        log_path = _files.segment_path(path, base, _files.LOG)
        name = os.path.basename(log_path)
        with open(log_path, "rb") as src:
            data = src.read()
        last_segment = i + 1 == len(bases)
        cuts = _cut_files(path, base)
        cut = cuts[0] if cuts and cuts[0][0] == len(data) and last_segment else None
        for pos, q in cuts:
            if cut is None or q != cut[1]:
                report.remaining.append(f"{os.path.basename(q)}: {name} no longer ends at position {pos} (the "
                                        "log moved on after recovery, or another cut came first); left set aside")
        whole = data
        if cut is not None:
            with open(cut[1], "rb") as src:
                whole = data + src.read()
        next_base = bases[i + 1] if not last_segment else None
        buf, audit = _fix(scratch, base, whole, prev_last, next_base, dense, name, report, producers)
        if cut is not None and audit.valid_end < len(buf) and buf[:len(data)] == data:
            # the set-aside bytes do not rejoin cleanly: leave them, repair only the segment itself
            report.patched = [p for p in report.patched if not p.startswith(name)]
            buf, audit = _fix(scratch, base, data, prev_last, next_base, dense, name, report, producers)
            report.remaining.append(f"{os.path.basename(cut[1])}: the set-aside bytes still contradict the "
                                    "log after every proven repair; left set aside")
            cut = None
        for finding in audit.findings:
            if finding.cut or not (finding.proven and finding.field in REPAIRABLE):
                report.remaining.append(f"{name} position {finding.position}: {finding.text()}")
        changed = bytes(buf) != data
        if changed and not dry_run:
            _replace_segment(path, base, buf, report)
        if cut is not None and audit.valid_end == len(buf):
            report.restored.append(os.path.basename(cut[1]))
            if not dry_run:
                keep = _keep_name(cut[1][: -len(_files.QUARANTINED)])
                _io.fs.rename(cut[1], keep)
                report.kept.append(os.path.basename(keep))
            prev_last = audit.last_offset
            if last_segment:
                _restore_whole(path, audit.last_offset, dense, dry_run, scratch, report)
        elif len(audit.headers):
            prev_last = audit.last_offset
    if not dry_run:
        epochs = os.path.join(path, LEADER_EPOCH_CHECKPOINT)
        if (report.patched or report.restored) and os.path.exists(epochs):
            _io.fs.unlink(epochs)  # taken from batches that changed: the next writer's open rebuilds it
        _io.fs.fsync_dir(path)


def _restore_whole(path: str, prev_last: int, dense: bool, dry_run: bool, scratch: str,
                   report: RepairReport) -> None:
    """Put back whole segments recovery set aside after a segment that has now been made whole."""
    for base in _whole_quarantined(path):
        if base <= prev_last or os.path.exists(_files.segment_path(path, base, _files.LOG)):
            continue
        q = _files.segment_path(path, base, _files.LOG + _files.QUARANTINED)
        with open(q, "rb") as f:
            data = f.read()
        audit = _audit_bytes(scratch, base, data, prev_last, None, dense)
        if not audit.clean or (len(audit.headers) and int(audit.headers["base_offset"][0]) <= prev_last):
            report.remaining.append(f"{os.path.basename(q)}: does not continue the log cleanly; left set aside")
            return
        report.restored.append(os.path.basename(q))
        if not dry_run:
            for suffix in _files.SEGMENT_SUFFIXES:
                src = _files.segment_path(path, base, suffix + _files.QUARANTINED)
                if os.path.exists(src):
                    _io.fs.rename(src, _files.segment_path(path, base, suffix))
            for suffix in (_files.INDEX, _files.TIME_INDEX):  # rebuilt on open, against the restored log
                idx = _files.segment_path(path, base, suffix)
                if os.path.exists(idx):
                    os.unlink(idx)
        prev_last = audit.last_offset
