"""Lazy scans through Polars and DuckDB tracked over history (issue 43's ratios; ``lazy_scan_bench.py`` has the
standalone run with its table). ``track_*`` record ratios measured side by side in one run (> 1: kvlog faster)."""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class LazyScanRatios:
    timeout = 900
    number = 1
    repeat = 1
    rounds = 1

    def setup_cache(self):
        from lazy_scan_bench import build, rows

        work = tempfile.mkdtemp(prefix="kvlog-asv-lazy-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        try:
            root, pq = build(work, 1_000_000)
            got = rows(root, pq, 1_000_000, 5)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return {f"{what} / {peer}": peer_s / ours for what, peer, ours, peer_s, _unit, _target in got}

    def track_polars_filter_vs_to_arrow(self, ratios):
        return ratios["polars filter last 10% / same query, full to_arrow()"]

    track_polars_filter_vs_to_arrow.unit = "ratio"

    def track_polars_filter_vs_parquet(self, ratios):
        return ratios["polars filter last 10% / pl.scan_parquet"]

    track_polars_filter_vs_parquet.unit = "ratio"

    def track_duckdb_count_sum_vs_parquet(self, ratios):
        return ratios["duckdb count(*), sum(len(value)) / DuckDB over Parquet"]

    track_duckdb_count_sum_vs_parquet.unit = "ratio"
