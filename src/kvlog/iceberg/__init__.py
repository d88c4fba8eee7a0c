"""Topics as Apache Iceberg tables, with no broker: ``export`` a topic of a data directory, a backup or tiered
storage into a table, incrementally and exactly once; ``status`` shows how far it got; ``catalog`` is the
embedded default catalog (SQLite inside the warehouse folder). See ``docs/iceberg.md``.

Needs pyiceberg with its SQL catalog: ``pip install 'kvlog[iceberg]'``.
"""

from __future__ import annotations

from kvlog.iceberg.catalogs import catalog
from kvlog.iceberg.export import ExportResult, export
from kvlog.iceberg.layout import METADATA_COLUMNS
from kvlog.iceberg.state import ExportState, read_state
from kvlog.iceberg.status import ExportStatus, PartitionStatus, status

__all__ = ["METADATA_COLUMNS", "ExportResult", "ExportState", "ExportStatus", "PartitionStatus", "catalog",
           "export", "read_state", "status"]
