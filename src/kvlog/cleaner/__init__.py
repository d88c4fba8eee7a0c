"""Key-based compaction (Kafka's log cleaner) with the KIP-280 strategies: :class:`LogCleaner` (``cleaner.py``, the
pass), its report and the Kafka release rules (``stats.py``), the transaction state through a pass
(``transactions.py``), the rebuilt batches' rows (``rebuild.py``) and the generational scheduling
(``generations.py``)."""

from __future__ import annotations

from kvlog.cleaner.cleaner import LogCleaner
from kvlog.cleaner.stats import KAFKA_VERSION, LONG_MIN, CleanerStats, header_version, parse_kafka_version

__all__ = ["KAFKA_VERSION", "LONG_MIN", "CleanerStats", "LogCleaner", "header_version", "parse_kafka_version"]
