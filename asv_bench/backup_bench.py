#!/usr/bin/env python
"""Backup and restore (issue 28) against plain copies of the same files, in one run.

    python asv_bench/backup_bench.py                       # 1 GB, 50 partitions, best of 2
    python asv_bench/backup_bench.py --gb 0.2 --repeat 1 --json out.json

A data directory of 50 partitions (12 B keys, 100 B random values, v2, 1 000 records per batch, 16 MiB
segments) is written on local disk. moto's S3 server runs in its own process (the tests' S3).

* backup to S3: ``kvlog.backup.backup(root, s3://…)`` (a fresh prefix each time) against
  ``pyarrow.fs.copy_files`` of the same directory (its default threads) into another prefix: seconds, MB/s,
  requests;
* incremental: the same backup run again with nothing new (time, requests), then after 1 000 records were
  appended to 5 partitions;
* restore to local disk: ``kvlog.backup.restore`` of a local backup of the directory against ``cp -r`` of that
  backup's files.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import numpy as np
import pyarrow.fs as pafs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from remote_bench import build, start_moto  # noqa: E402

import kvlog  # noqa: E402
from kvlog import LogManager  # noqa: E402
from kvlog._core import build_info  # noqa: E402
from kvlog.backup.restore import restore  # noqa: E402
from kvlog.backup.run import backup  # noqa: E402

BUCKET = "kvlog-bench"
VALUE_BYTES = 100  # as remote_bench.build writes
T0 = 1_700_000_000_000
TID = "AAAAAAAAAAAAAAAAAAAAAQ"


def tree_bytes(root: str) -> tuple[int, int]:
    sizes = [os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs]
    return sum(sizes), len(sizes)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--partitions", type=int, default=50)
    ap.add_argument("--segment-mib", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="kvlog-backup-bench-", dir=os.environ.get("KVLOG_BENCH_DIR"))
    proc, port = start_moto()
    out: dict[str, object] = {"build_info": build_info(), "gb": args.gb, "partitions": args.partitions}
    try:
        root = os.path.join(work, "src")
        rows = build(root, args.gb, args.segment_mib, args.partitions)
        size, files = tree_bytes(root)
        out.update(rows=rows, bytes=size, files=files)
        fs = pafs.S3FileSystem(access_key="k", secret_key="s", region="us-east-1", scheme="http",
                               endpoint_override=f"127.0.0.1:{port}", allow_bucket_creation=True)
        fs.create_dir(BUCKET)

        def uri(key: str) -> str:
            return (f"s3://k:s@{BUCKET}/{key}?endpoint_override=127.0.0.1:{port}&scheme=http&region=us-east-1")

        copy_s, ours_s, reqs = [], [], 0
        for _ in range(args.repeat):
            key = uuid.uuid4().hex[:8]
            t = time.perf_counter()
            pafs.copy_files(root, f"{BUCKET}/copy-{key}", source_filesystem=pafs.LocalFileSystem(),
                            destination_filesystem=fs)
            copy_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            r = backup(root, uri(f"bak-{key}"))
            ours_s.append(time.perf_counter() - t)
            reqs = r.requests
            last = f"bak-{key}"
        best_copy, best_ours = min(copy_s), min(ours_s)
        out["s3_copy_files_s"] = round(best_copy, 3)
        out["s3_backup_s"] = round(best_ours, 3)
        out["s3_copy_files_MBps"] = round(size / best_copy / 1e6, 1)
        out["s3_backup_MBps"] = round(size / best_ours / 1e6, 1)
        out["s3_backup_vs_copy_files"] = round(best_copy / best_ours, 2)
        out["s3_backup_requests"] = reqs
        # nothing new
        t = time.perf_counter()
        r = backup(root, uri(last))
        out["s3_rerun_nothing_new_s"] = round(time.perf_counter() - t, 3)
        out["s3_rerun_nothing_new_requests"] = r.requests
        assert r.run is None
        # a little new in 5 partitions
        with LogManager(root) as mgr:
            for p in range(5):
                mgr.log("bench", p).append(kvlog.encode_arrays([b"k"] * 1000, [b"v" * VALUE_BYTES] * 1000,
                                                                 T0 + np.arange(1000, dtype=np.int64)))
        t = time.perf_counter()
        r = backup(root, uri(last))
        out["s3_rerun_5_partitions_grew_s"] = round(time.perf_counter() - t, 3)
        out["s3_rerun_5_partitions_grew_requests"] = r.requests
        out["s3_rerun_5_partitions_grew_files"] = r.files_copied
        # restore to local disk from a local backup, against cp -r of the backup's files
        bak = os.path.join(work, "bak")
        backup(root, bak)
        cp_s, rs_s = [], []
        for i in range(args.repeat):
            dst = os.path.join(work, f"cp{i}")
            t = time.perf_counter()
            subprocess.run(["cp", "-r", bak, dst], check=True)
            cp_s.append(time.perf_counter() - t)
            shutil.rmtree(dst)
            dst = os.path.join(work, f"rs{i}")
            t = time.perf_counter()
            restore(bak, dst, topic_ids={"bench": TID})
            rs_s.append(time.perf_counter() - t)
            shutil.rmtree(dst)
        out["restore_local_s"] = round(min(rs_s), 3)
        out["cp_r_s"] = round(min(cp_s), 3)
        out["restore_vs_cp_r"] = round(min(cp_s) / min(rs_s), 2)
        # restore straight from the object store
        dst = os.path.join(work, "rs3")
        t = time.perf_counter()
        restore(uri(last), dst, topic_ids={"bench": TID})
        out["restore_from_s3_s"] = round(time.perf_counter() - t, 3)
        shutil.rmtree(dst)
    finally:
        proc.kill()
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(out, indent=1, sort_keys=True)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
