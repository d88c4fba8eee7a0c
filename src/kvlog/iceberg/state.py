"""Where an export stands, kept in the table itself: the summary of each snapshot an export commits.

Every commit of ``kvlog.iceberg.export`` writes, in the same atomic snapshot as its rows, the next offset of
every partition the table holds so far (not only those the commit touched) and the source's identity. So
the table's newest kvlog snapshot is the whole state: the next export starts there, and a commit that did not
happen (a killed exporter, a lost race) left no state to undo. Snapshots other writers add (compaction,
maintenance, a user's own append) carry no such properties; the state is then found among their ancestors.

Properties (strings, as Iceberg's summaries hold): ``kvlog.topic``, ``kvlog.topic-id``, ``kvlog.cluster-id``,
``kvlog.mode``, ``kvlog.offsets`` (JSON ``{"partition": next offset}``), and ``kvlog.gaps`` (JSON
``[[partition, from, to, why], ...]``) on a commit that went past records it could not export.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kvlog.errors import IcebergExportError

__all__ = ["ExportState", "read_state", "state_from_summary", "summary_of"]

TOPIC = "kvlog.topic"
TOPIC_ID = "kvlog.topic-id"
CLUSTER_ID = "kvlog.cluster-id"
MODE = "kvlog.mode"
OFFSETS = "kvlog.offsets"
GAPS = "kvlog.gaps"
EXPORT_ID = "kvlog.export-id"


@dataclass(frozen=True)
class ExportState:
    """What the table holds of a topic: ``offsets[partition]`` is the next offset to export; ``snapshot_id``
    the snapshot that says so (None: nothing exported yet)."""

    topic: str | None = None
    topic_id: str | None = None
    cluster_id: str | None = None
    mode: str | None = None
    offsets: dict[int, int] = field(default_factory=dict)
    snapshot_id: int | None = None
    timestamp_ms: int | None = None


def summary_of(state: ExportState, gaps: list[tuple[int, int, int, str]], export_id: str) -> dict[str, str]:
    """The snapshot properties recording ``state`` (and the gaps this commit went past)."""
    out = {TOPIC: state.topic or "", TOPIC_ID: state.topic_id or "", CLUSTER_ID: state.cluster_id or "",
           MODE: state.mode or "append", EXPORT_ID: export_id,
           OFFSETS: json.dumps({str(p): o for p, o in sorted(state.offsets.items())}, separators=(",", ":"))}
    if gaps:
        out[GAPS] = json.dumps([list(g) for g in gaps], separators=(",", ":"))
    return out


def _parse(table_name: str, snapshot: Any) -> ExportState | None:
    summary = snapshot.summary
    return state_from_summary(table_name, (lambda k: summary[k]) if summary is not None else (lambda k: None),
                              snapshot.snapshot_id, snapshot.timestamp_ms)


def state_from_summary(table_name: str, get: Any, snapshot_id: int, timestamp_ms: int | None) -> ExportState | None:
    """The export state a snapshot's summary records (``get(key)``: a property or None); None when it
    records none (not a kvlog snapshot)."""
    raw = get(OFFSETS)
    if raw is None:
        return None
    try:
        offsets = {int(p): int(o) for p, o in json.loads(raw).items()}
    except (ValueError, TypeError, AttributeError) as exc:
        raise IcebergExportError(f"snapshot {snapshot_id}'s {OFFSETS} is not kvlog's offset map "
                                 f"({exc}): {raw[:200]!r}", table=table_name) from None
    if any(o < 0 for o in offsets.values()) or any(p < 0 for p in offsets):
        raise IcebergExportError(f"snapshot {snapshot_id}'s {OFFSETS} holds a negative partition or "
                                 f"offset: {raw[:200]!r}", table=table_name)
    return ExportState(get(TOPIC) or None, get(TOPIC_ID) or None, get(CLUSTER_ID) or None,
                       get(MODE) or "append", offsets, snapshot_id, timestamp_ms)


def read_state(table: Any) -> ExportState:
    """The export state of ``table`` (a pyiceberg ``Table``): its main branch's newest snapshot with kvlog's
    properties, found by walking back from the current snapshot; an empty state when there is none."""
    name = ".".join(table.name())
    snap = table.current_snapshot()
    seen = 0
    while snap is not None:
        found = _parse(name, snap)
        if found is not None:
            return found
        seen += 1
        parent = snap.parent_snapshot_id
        snap = table.snapshot_by_id(parent) if parent is not None else None
        if snap is None and parent is not None and seen:
            # expired ancestors: what is left cannot say where an export stands
            raise IcebergExportError(f"the table's history has no kvlog snapshot among the {seen} kept (snapshot "
                                     f"{parent} was expired): the exported offsets are unknown", table=name)
    return ExportState()
