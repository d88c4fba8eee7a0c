"""The one chunked walk over a file's record batches by position.

Every reader that scans segment bytes a window at a time (recovery's header scans, ``kvlog dump``, the
Python Spark source) meets the same three cases at the end of a window: a batch larger than the
window, a torn tail, a length field no read could satisfy. Handling them here, once, keeps their
verdicts the same everywhere. The walk does not frame batches itself: the consumer's kernel does, one
call per window, and reports how far it got with :meth:`BatchWalk.advance` (no second framing pass).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kvlog import _io
from kvlog.errors import CorruptRecordError

LOG_OVERHEAD = 12  # offset (8) + length (4): the bytes before a batch's length counts


class BatchWalk:
    """Windows of ``[start, end)`` of a file, each starting on a batch boundary: iterate for
    ``(position, data)``, frame whole batches from ``data[0:]``, then call ``advance(bytes used)``.

    No advance (nothing whole in the window) means the batch at ``position`` is either larger than
    the window (it is read whole, and the window stays that large) or the file's end: a torn tail,
    fewer than 12 bytes, a length running past ``end`` or one a longer read could not help. There the
    walk stops silently (Kafka's file iterator does), or with ``strict`` raises ``CorruptRecordError``
    ("incomplete batch in ``path``"). Damage the consumer's kernel finds is the consumer's to raise.

    ``fileno`` is a descriptor or a callable taken right before each read (a segment's descriptor may
    be closed and reopened by the open-file budget between windows). With ``buffer`` each window is
    read into that one bytearray, grown as needed and left in ``.buffer`` for the next walk (for a
    consumer that copies what it keeps: no fresh memory, no page faults per window); without, each
    window is fresh ``bytes`` that yielded objects may reference; with ``pooled`` an owned read-only buffer
    from the read pool (a pass over whole segments that keeps some windows).
    """

    __slots__ = ("_fileno", "_start", "_end", "_chunk", "buffer", "_strict", "_path", "_used", "_pooled")

    def __init__(self, fileno: int | Callable[[], int], start: int, end: int, chunk: int, *,
                 buffer: bytearray | None = None, strict: bool = False, path: str | None = None,
                 pooled: bool = False) -> None:
        self._fileno = fileno
        self._start = start
        self._end = end
        self._chunk = max(chunk, 0)
        self.buffer = buffer
        self._strict = strict
        self._path = path
        self._used = 0
        self._pooled = pooled

    def advance(self, used: int) -> None:
        """The consumer framed ``used`` bytes of whole batches in the window just yielded."""
        self._used = used

    def _fd(self) -> int:
        return self._fileno if isinstance(self._fileno, int) else self._fileno()

    def __iter__(self) -> Iterator[tuple[int, bytes | memoryview]]:
        pos, end, chunk = self._start, self._end, self._chunk
        while pos < end:
            want = min(chunk, end - pos)
            data: bytes | memoryview
            if self.buffer is not None:
                if len(self.buffer) < want:
                    self.buffer = bytearray(want)
                view = memoryview(self.buffer)[:want]
                data = view[:max(_io.fs.preadinto(self._fd(), view, pos), 0)]
            elif self._pooled:  # a pass over whole segments: an owned read-only buffer from the pool
                data = memoryview(_io.fs.pread_block(self._fd(), want, pos))
            else:
                data = _io.fs.pread(self._fd(), want, pos)
            if not len(data):
                return
            self._used = 0
            yield pos, data
            if self._used:
                pos += self._used
                continue
            need = self._whole_size(pos, data)
            if need is None:
                if self._strict:
                    raise CorruptRecordError(f"incomplete batch in {self._path} at position {pos}", position=pos)
                return
            chunk = max(chunk, need)

    def _whole_size(self, pos: int, data: bytes | memoryview) -> int | None:
        """The size of the batch at ``pos`` when a longer read would hold it whole; None at the end."""
        n, left = len(data), self._end - pos
        if n >= left:
            return None  # the window held all that is left
        head = data[:LOG_OVERHEAD] if n >= LOG_OVERHEAD else _io.fs.pread(self._fd(), LOG_OVERHEAD, pos)
        if len(head) < LOG_OVERHEAD:
            return None
        need = LOG_OVERHEAD + int.from_bytes(head[8:12], "big", signed=True)
        if need <= n or need > left:
            return None  # a length no longer read could satisfy, or one running past the end
        return need
