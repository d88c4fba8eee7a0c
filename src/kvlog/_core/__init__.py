"""kvlog's compiled kernels. Nothing here is public API; ``kvlog`` wraps it.

The extension is required: there is no pure-Python fallback at run time (a slow silent fallback is
worse than a clear import error). Pure-Python reference code lives under ``tests/reference``.
"""

from __future__ import annotations

import os

#: feature names ``KVLOG_CPU_DISABLE`` accepts (kvlog_cpu.h), and the tiers the benchmarks name
CPU_FEATURES = ("sse2", "sse42", "pclmul", "avx2", "avx512", "vpclmul", "arm-crc32", "arm-pmull", "neon")
CPU_TIERS = {
    "native": "",
    "avx2+vpclmul": "avx512",
    "avx2": "avx512,vpclmul",
    "sse4.2+pclmul": "avx2,avx512,vpclmul",
    "portable": "all",
}
#: what the CPU must offer for each tier to be reachable on x86-64 (native and portable always are)
CPU_TIER_NEEDS = {
    "native": frozenset(),
    "avx2+vpclmul": frozenset({"avx2", "pclmul", "sse42", "vpclmul"}),
    "avx2": frozenset({"avx2", "pclmul", "sse42"}),
    "sse4.2+pclmul": frozenset({"pclmul", "sse42"}),
    "portable": frozenset(),
}


def _check_cpu_disable() -> None:
    """Refuse a ``KVLOG_CPU_DISABLE`` naming a feature the dispatcher does not know: a typo would
    silently measure the wrong tier."""
    names = [n for n in os.environ.get("KVLOG_CPU_DISABLE", "").replace(" ", ",").split(",") if n]
    unknown = [n for n in names if n not in CPU_FEATURES and n != "all"]
    if unknown:
        raise ImportError(f"KVLOG_CPU_DISABLE names unknown CPU features {', '.join(unknown)}; "
                          f"known: {', '.join(CPU_FEATURES)}, or all")


_check_cpu_disable()

try:
    from kvlog._core import crc, index, offset_map, point, records
except ImportError as exc:  # pragma: no cover - exercised only by broken installs
    raise ImportError(
        "kvlog's compiled extension is missing or failed to load. Install a kvlog wheel, or build "
        "from a source checkout with `make build` (needs a C compiler, Cython and numpy). "
        f"Original error: {exc}"
    ) from exc

__all__ = ["CPU_FEATURES", "CPU_TIER_NEEDS", "CPU_TIERS", "build_info", "crc", "index", "offset_map", "point", "records"]


def build_info() -> dict[str, object]:
    """Which kernels run on this machine, and how the extension was built."""
    info: dict[str, object] = dict(crc.kernels())
    info["mode"] = crc.BUILD_MODE
    info["cython"] = crc.CYTHON_VERSION
    info["md5"] = offset_map.MD5_KERNEL
    info["inline_codecs"] = records.INLINE_CODECS
    info["crc_variants"] = crc.variants()
    feats = crc.cpu_features()
    info["cpu_features"] = sorted(name for name, (found, _) in feats.items() if found)
    info["cpu_disabled"] = sorted(name for name, (found, used) in feats.items() if found and not used)
    return info
