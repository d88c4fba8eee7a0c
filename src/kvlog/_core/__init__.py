"""kvlog's compiled kernels. Nothing here is public API; ``kvlog`` wraps it.

The extension is required: there is no pure-Python fallback at run time (a slow silent fallback is
worse than a clear import error). Pure-Python reference code lives under ``tests/reference``.
"""

from __future__ import annotations

try:
    from kvlog._core import crc, index, offset_map, point, records
except ImportError as exc:  # pragma: no cover - exercised only by broken installs
    raise ImportError(
        "kvlog's compiled extension is missing or failed to load. Install a kvlog wheel, or build "
        "from a source checkout with `make build` (needs a C compiler, Cython and numpy). "
        f"Original error: {exc}"
    ) from exc

__all__ = ["build_info", "crc", "index", "offset_map", "point", "records"]


def build_info() -> dict[str, object]:
    """Which kernels run on this machine, and how the extension was built."""
    info: dict[str, object] = dict(crc.kernels())
    info["mode"] = crc.BUILD_MODE
    info["cython"] = crc.CYTHON_VERSION
    info["md5"] = offset_map.MD5_KERNEL
    info["crc_variants"] = crc.variants()
    return info
