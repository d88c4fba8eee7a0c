"""The decode loop: framing walked by ``kvlog._core.records.Decoder``, compressed batches inflated here.

Kept apart from the objects users see so that batch views, Arrow conversion and the cleaner's key pass
share one loop (and its decompression budget) without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from kvlog._core import records as _k
from kvlog.compression import decompress
from kvlog.errors import CorruptRecordError
from kvlog.records.record import LOG_OVERHEAD, V2_HEADER_SIZE


def _as_view(buffer: Any) -> memoryview:
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"expected a bytes-like object, got {type(buffer).__name__}") from None
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    return view


def _inner_payload(view: memoryview, hdr: dict[str, int]) -> memoryview:
    """The compressed bytes of the batch at ``hdr['position']``: v2 records section, or a wrapper's value."""
    pos = hdr["position"]
    end = pos + hdr["size"]
    if hdr["magic"] == 2:
        return view[pos + V2_HEADER_SIZE : end]
    at = pos + LOG_OVERHEAD + (6 if hdr["magic"] == 0 else 14)
    klen = int.from_bytes(view[at : at + 4], "big", signed=True)
    at += 4 + max(klen, 0)
    if at + 4 > end:
        raise CorruptRecordError("compressed wrapper message is truncated before its value", position=pos)
    vlen = int.from_bytes(view[at : at + 4], "big", signed=True)
    at += 4
    if vlen < 0 or at + vlen > end:
        raise CorruptRecordError(f"compressed wrapper value length {vlen} does not fit the message", position=pos)
    return view[at : at + vlen]


class _Decoded(NamedTuple):
    chunks: list[dict[str, Any]]
    stop: int        # position after the last complete batch that was read
    status: int      # END or PARTIAL


def _decode(
    view: memoryview,
    start: int,
    end: int,
    *,
    include_headers: bool,
    check_crc: bool,
    include_control: bool,
    limit: int,
    include_values: bool = True,
    ranges: Sequence[tuple[int, int]] | None = None,
) -> _Decoded:
    """Decode ``[start, end)``, or with ``ranges`` each of those byte ranges into the same chunks
    (how read_committed skips aborted batches without a copy or a chunk per range)."""
    # (with the budget, the decoder inflates snappy, lz4 and zstd v2 batches itself, without the GIL)
    dec = _k.Decoder(include_headers, check_crc, include_control, include_values, limit)
    chunks = []
    pos, status = start, _k.END
    for lo, hi in ranges if ranges is not None else ((start, end),):
        pos = lo
        while True:
            status, pos = dec.run(view, pos, hi)
            if status == _k.INNER:
                hdr = dec.current
                codec = hdr["attributes"] & 7
                try:
                    data = decompress(codec, _inner_payload(view, hdr), hdr["magic"], limit)
                except CorruptRecordError as exc:
                    if exc.position is None:
                        raise type(exc)(exc.reason, position=pos,
                                        offsets=(hdr["base_offset"], hdr["last_offset"])) from None
                    raise
                if not dec.fits(len(data)):
                    chunks.append(dec.finish())
                dec.inner(data)
                pos += hdr["size"]
            elif status == _k.FULL:
                chunks.append(dec.finish())
            else:
                break
    chunks.append(dec.finish())
    return _Decoded(chunks, pos, status)
