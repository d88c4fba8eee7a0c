"""A log directory in S3 against the same files on local disk, on moto's server and on a static S3 front.

Tracked: the remote scan's rate and its ratio to local, GETs per MiB scanned, requests of a read-only
open and of ``offset_for_timestamp`` after it. A 256 MB topic keeps a run short; ``remote_bench.py``
takes 1 GB and Spark for the README figures.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class RemoteScan:
    timeout = 900
    number = 1
    repeat = 1
    rounds = 1

    def setup_cache(self):
        from remote_bench import measure

        return measure(0.25, 16, 3, with_spark=False)


    def track_moto_to_local_ratio(self, out):
        return out["moto"]["scan"]["ratio"]

    track_moto_to_local_ratio.unit = "ratio"

    def track_s3_scan_MBps(self, out):
        return out["static"]["scan"]["s3_MBps"]

    track_s3_scan_MBps.unit = "MB/s"

    def track_s3_to_local_ratio(self, out):
        return out["static"]["scan"]["ratio"]

    track_s3_to_local_ratio.unit = "ratio"

    def track_s3_to_server_ceiling_ratio(self, out):
        return out["static"]["scan"]["s3_vs_ceiling"]

    track_s3_to_server_ceiling_ratio.unit = "ratio"

    def track_gets_per_MiB(self, out):
        return out["static"]["scan"]["gets_per_MiB"]

    track_gets_per_MiB.unit = "GETs/MiB"

    def track_open_requests(self, out):
        return out["static"]["open"]["requests"]

    track_open_requests.unit = "requests"

    def track_offset_for_timestamp_requests(self, out):
        return out["static"]["offset_for_timestamp"]["requests_first"]

    track_offset_for_timestamp_requests.unit = "requests"
