"""``kvlog.iceberg.status``: how far a table's export has got, partition by partition, against its source."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from kvlog.errors import IcebergExportError
from kvlog.iceberg import catalogs
from kvlog.iceberg.source import TopicSource
from kvlog.iceberg.state import ExportState, read_state

__all__ = ["ExportStatus", "PartitionStatus", "status"]


@dataclass(frozen=True)
class PartitionStatus:
    """One partition: the table's next offset (None: never exported) against the source's log start, committed
    end and log end; ``lag`` is what an export would add (committed end minus the table's offset)."""

    partition: int
    exported: int | None
    log_start: int
    end: int
    log_end: int

    @property
    def lag(self) -> int:
        return max(self.end - max(self.exported or 0, self.log_start), 0)

    @property
    def gap(self) -> bool:
        """Records never exported that retention has deleted."""
        return self.exported is not None and self.exported < self.log_start


@dataclass(frozen=True)
class ExportStatus:
    table: str
    state: ExportState
    partitions: list[PartitionStatus]

    @property
    def lag(self) -> int:
        return sum(p.lag for p in self.partitions)


def status(source: Any, topic: str, table: str, *, warehouse: str | os.PathLike[str] | None = None,
           catalog: Any = None, read_committed: bool = True, backup_run: int | None = None,
           remote_storage: Any = None, remote_log_metadata: Any = None) -> ExportStatus:
    """Each partition of ``topic`` in ``source``: the offset ``table`` has exported to, against the log."""
    from kvlog.iceberg.export import _identifier

    ident = _identifier(table)
    cat = catalogs.resolve(catalog, warehouse)
    from pyiceberg.exceptions import NoSuchTableError

    try:
        tbl = cat.load_table(ident)
    except NoSuchTableError:
        raise IcebergExportError("no such table in the catalog (nothing exported yet?)", table=table) from None
    state = read_state(tbl)
    src = TopicSource(source, topic, read_committed=read_committed, backup_run=backup_run,
                      remote_storage=remote_storage, remote_log_metadata=remote_log_metadata)
    try:
        rows = []
        for p in src.partitions():
            span = src.span(p)
            rows.append(PartitionStatus(p, state.offsets.get(p), span.log_start, span.end, span.log_end))
    finally:
        src.close()
    return ExportStatus(".".join(ident), state, rows)
