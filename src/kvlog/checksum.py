"""CRC-32 and CRC-32C with zlib-style incremental semantics: ``crc32(b, crc32(a)) == crc32(a + b)``.

These are the compiled functions themselves (no Python wrapper), so small buffers pay no extra call
overhead. ``kvlog._core.build_info()`` names the kernel chosen for this CPU.
"""

from kvlog._core.crc import crc32, crc32c

__all__ = ["crc32", "crc32c"]
