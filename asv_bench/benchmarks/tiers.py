"""The headline figures on the AVX2 tier (issue 14), and the CRC-bound ones on AVX2 with VPCLMULQDQ, tracked
beside the native ones in headline.py.

Each figure runs the same workload as ``headline.TrackHeadline`` in a child interpreter with
``KVLOG_CPU_DISABLE=avx512,vpclmul`` (the dispatcher reads it once, at import), so an AVX-512 machine
also records what an AVX2-only server (AMD Zen 2/3, Intel before Ice Lake) gets. On a CPU without AVX2
the tier is not reachable and the benchmarks are skipped.
"""

import os
import subprocess
import sys

from kvlog._core import CPU_TIERS, build_info

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _needs(tier):
    """What ``tier`` needs from the CPU (``CPU_TIER_NEEDS``; builds older than it knew only the AVX2 tier)."""
    import kvlog._core as core

    table = getattr(core, "CPU_TIER_NEEDS", None)
    if table is None:
        if tier != "avx2":
            raise NotImplementedError(f"this build has no {tier} tier")
        return {"avx2", "pclmul", "sse42"}
    return table[tier]


def _on_tier(tier, method):
    if not _needs(tier) <= set(build_info()["cpu_features"]):
        raise NotImplementedError(f"the {tier} tier is not reachable on this CPU")
    code = f"from benchmarks.headline import TrackHeadline\nprint(TrackHeadline().{method}())\n"
    env = dict(os.environ, KVLOG_CPU_DISABLE=CPU_TIERS[tier],
               PYTHONPATH=os.pathsep.join(p for p in (_HERE, os.environ.get("PYTHONPATH")) if p))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         timeout=900)
    return float(out.stdout.strip().splitlines()[-1])


class TrackAvx2Tier:
    timeout = 1800

    def track_decode_records_per_s(self):
        return _on_tier("avx2", "track_decode_records_per_s")

    track_decode_records_per_s.unit = "records/s"

    def track_crc32c_gb_per_s(self):
        return _on_tier("avx2", "track_crc32c_gb_per_s")

    track_crc32c_gb_per_s.unit = "GB/s"

    def track_append_mb_per_s(self):
        return _on_tier("avx2", "track_append_mb_per_s")

    track_append_mb_per_s.unit = "MB/s"

    def track_compaction_mb_per_s(self):
        return _on_tier("avx2", "track_compaction_mb_per_s")

    track_compaction_mb_per_s.unit = "MB/s"


class TrackAvx2VpclmulTier:
    """VPCLMULQDQ without AVX-512 (Zen 3, Intel client cores): only the CRC kernels differ from the AVX2
    tier, so only the figures that checksum are tracked."""

    timeout = 1800

    def track_decode_records_per_s(self):
        return _on_tier("avx2+vpclmul", "track_decode_records_per_s")

    track_decode_records_per_s.unit = "records/s"

    def track_crc32c_gb_per_s(self):
        return _on_tier("avx2+vpclmul", "track_crc32c_gb_per_s")

    track_crc32c_gb_per_s.unit = "GB/s"
