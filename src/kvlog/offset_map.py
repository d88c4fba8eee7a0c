"""The log cleaner's key -> offset map: Kafka's ``SkimpyOffsetMap``, byte for byte, plus KIP-280 versions.

Layout (``SkimpyOffsetMap``, KIP-280): one zero-filled buffer of ``memory`` bytes split into
``slots = memory // bytes_per_entry`` slots. A slot holds the 16-byte MD5 of a key followed by the
big-endian int64 offset of its latest record (24 bytes, strategy ``"offset"``) and, for the KIP-280
strategies ``"timestamp"`` and ``"header"``, the big-endian int64 version (32 bytes). A key costs exactly
``bytes_per_entry`` bytes; :meth:`OffsetMap.memory_view` shows the buffer a Kafka broker would hold for the
same puts. Two keys with the same MD5 are the same key (as in Kafka); there are no deletes.

Probing is Kafka's: attempt ``i`` reads the big-endian int32 at digest bytes ``[min(i, 12), +4)`` plus
``max(0, i - 12)`` (32-bit wrap-around) and uses slot ``abs(probe) % slots`` (``abs(INT32_MIN) = 0``);
attempts 0..12 are the overlapping digest windows, later ones degrade to linear probing. A slot is empty
when its first 24 bytes are zero. ``get`` gives up after ``slots + 12`` attempts, so it terminates on a
full map.

Rules implemented:

* ``put(key, offset)`` (strategy offset): store or overwrite; later puts always win. Raises
  :class:`OffsetMapFullError` when ``size >= slots`` (Kafka checks this before looking at the key, so
  even an update of a present key fails on a full map).
* ``put(key, offset, version)`` (timestamp/header): a present key whose stored version is greater than
  ``version`` is left alone (returns False); otherwise offset and version are overwritten, so equal
  versions go to the later put. ``latest_offset`` becomes ``offset`` on every put, stored or not.
* ``should_retain(key, offset, version)``: a key not in the map is retained (deviation from the
  KIP-280 PR, which compared against version -1 and so dropped absent keys with a version below -1;
  for the offset strategy this is exactly Kafka's ``offset >= map.get(key)`` with ``get`` = -1).
  Otherwise, for timestamp/header maps whose stored version differs from ``version``: retain iff
  ``version >= stored version`` (i.e. it is greater); in every other case retain iff
  ``offset >= stored offset``. The cleaner's other rules (``offset > latest_offset``, tombstones,
  keyless records) are not the map's business.
* ``get_version`` is -1 for an absent key and always -1 for the offset strategy.
* Batches (``put_many`` / ``retain_many``) take Arrow binary-column buffers: ``key_data`` (bytes-like),
  ``key_offsets`` (int32 or int64, n + 1 entries, may start past 0), ``key_valid`` (None = all valid, or
  one uint8/bool per row, or with ``bitmap=True`` an Arrow LSB-first validity bitmap), ``offsets`` (int64,
  n) and ``versions`` (int64, n; required for timestamp/header maps, ignored for offset maps).
  ``put_many`` equals sequential ``put`` calls, skipping null keys, and stops before the first keyed
  record met while ``size >= max_load`` (``int(slots * load_factor)``, Kafka's ``maxDesiredMapSize``
  check in ``buildOffsetMap``); it returns the number of records consumed (``n`` when it did not stop),
  so the caller resumes from there after cleaning. ``retain_many`` returns one uint8 (1 = keep) per
  record, null keys kept. Both release the GIL.

Statistics follow Kafka: every put/get/retain decision (and ``in``) is one lookup, every slot examined
one probe; ``collision_rate = (probes - lookups) / lookups``. ``clear()`` zeroes the buffer and resets
everything, as Kafka's ``clear``.

Concurrency: one map is used by one thread at a time. A batch running without the GIL marks the map
busy; a conflicting call from another thread meanwhile raises :class:`OffsetMapError` instead of racing
(several ``retain_many`` may run together).

Errors: :class:`kvlog.errors.ConfigError` for a bad size, strategy or load factor (the map must hold at
least two slots and ``slots * load_factor > 1``, Kafka's startup check; ``memory`` is at most
2**31 - 1 bytes as in Kafka); :class:`OffsetMapError` (a ``KvlogError`` and ``ValueError``) for bad
keys, offsets, versions or columns; :class:`OffsetMapFullError` for a put into a full map.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kvlog._arrow import valid_mask
from kvlog._core import offset_map as _k
from kvlog._core.offset_map import OffsetMapError, OffsetMapFullError

__all__ = ["OffsetMap", "OffsetMapError", "OffsetMapFullError", "STRATEGIES", "md5", "md5_arrow",
           "arrow_key_columns"]

STRATEGIES: tuple[str, ...] = tuple(_k.STRATEGIES)


def md5(data: bytes | bytearray | memoryview) -> bytes:
    """The MD5 digest kvlog uses for keys (same bytes as ``hashlib.md5(data).digest()``)."""
    return _k.md5(data)


def arrow_key_columns(keys: Any) -> tuple[Any, npt.NDArray[Any], Any, bool]:
    """``(key_data, key_offsets, key_valid, bitmap)`` of a pyarrow ``binary`` / ``large_binary`` array
    (also ``string``), ready for :meth:`OffsetMap.put_many` / :meth:`OffsetMap.retain_many`. Zero-copy
    except for the validity of an array sliced at a bit offset that is not a multiple of 8."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks()
    t = keys.type
    if pa.types.is_binary(t) or pa.types.is_string(t):
        width = np.int32
    elif pa.types.is_large_binary(t) or pa.types.is_large_string(t):
        width = np.int64
    else:
        raise OffsetMapError(f"keys must be a binary or string Arrow array, got {t}")
    n = len(keys)
    validity, offsets_buf, data_buf = keys.buffers()[:3]
    key_offsets = np.frombuffer(offsets_buf, dtype=width)[keys.offset:keys.offset + n + 1] if n else \
        np.zeros(1, dtype=width)
    data = data_buf if data_buf is not None else b""
    if keys.null_count == 0 or validity is None:
        return data, key_offsets, None, False
    if keys.offset % 8 == 0:
        bits = np.frombuffer(validity, dtype=np.uint8)[keys.offset // 8:]
        return data, key_offsets, bits, True
    return data, key_offsets, valid_mask(keys), False


def md5_arrow(keys: Any) -> npt.NDArray[np.uint8]:
    """The MD5 digest of every key of a pyarrow binary array, one row of 16 bytes each (null keys get
    the digest of no bytes): computed once, they serve a map build and a recopy of the same rows."""
    data, koff, _, _ = arrow_key_columns(keys)
    return np.frombuffer(_k.md5_many(data, koff), dtype=np.uint8).reshape(-1, 16)


class OffsetMap(_k.OffsetMap):
    """Kafka's SkimpyOffsetMap: ``OffsetMap(memory, *, strategy="offset", load_factor=0.9)``.

    ``memory`` is the buffer size in bytes (Kafka: ``log.cleaner.dedupe.buffer.size / threads``),
    ``strategy`` the KIP-280 compaction strategy (``offset`` | ``timestamp`` | ``header``: the last two
    store a version per key), ``load_factor`` Kafka's ``log.cleaner.io.buffer.load.factor``, the fill
    limit of :meth:`put_many`. See the module docstring for the exact rules.
    """

    __slots__ = ()

    def put_arrow(self, keys: Any, offsets: npt.ArrayLike, versions: npt.ArrayLike | None = None,
                  digests: npt.NDArray[np.uint8] | None = None) -> int:
        """:meth:`put_many` over a pyarrow binary array of keys (``digests``: from :func:`md5_arrow`)."""
        data, koff, valid, bitmap = arrow_key_columns(keys)
        return self.put_many(data, koff, valid, offsets, versions, bitmap=bitmap, digests=digests)

    def retain_arrow(
        self, keys: Any, offsets: npt.ArrayLike, versions: npt.ArrayLike | None = None,
        digests: npt.NDArray[np.uint8] | None = None,
    ) -> npt.NDArray[np.uint8]:
        """:meth:`retain_many` over a pyarrow binary array of keys (``digests``: from :func:`md5_arrow`)."""
        data, koff, valid, bitmap = arrow_key_columns(keys)
        return self.retain_many(data, koff, valid, offsets, versions, bitmap=bitmap, digests=digests)

    def __repr__(self) -> str:
        return (
            f"OffsetMap(memory={self.memory}, strategy={self.strategy!r}, load_factor={self.load_factor}, "
            f"slots={self.slots}, size={self.size}, latest_offset={self.latest_offset})"
        )
