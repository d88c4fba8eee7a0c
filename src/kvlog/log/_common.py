"""What every part of the log package shares: Kafka's special offsets and isolation levels, the result
tuples of appends and time searches, argument checks, and the file-system failure fence."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, NamedTuple, ParamSpec, TypeVar

from kvlog.config import LogConfig
from kvlog.errors import ConfigError, CorruptRecordError, LogIOError
from kvlog.records import Compression, TimestampType

if TYPE_CHECKING:
    from kvlog.log.log import Log

LATEST = -1
EARLIEST = -2
MAX_TIMESTAMP = -3
INT32_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
READ_UNCOMMITTED = "read_uncommitted"
READ_COMMITTED = "read_committed"


def read_committed(isolation_level: str) -> bool:
    """True for ``"read_committed"``, False for ``"read_uncommitted"`` (Kafka's isolation.level names)."""
    if isolation_level == READ_COMMITTED:
        return True
    if isolation_level == READ_UNCOMMITTED:
        return False
    raise ConfigError(f"isolation_level must be 'read_uncommitted' or 'read_committed', not {isolation_level!r}")


_CODEC_IDS: dict[Any, int] = {}


def _codec_id(value: Any) -> int:
    """Compression id of a ``compression`` argument or ``compression.type``; -1 for "producer"."""
    got = _CODEC_IDS.get(value)
    if got is None:
        got = -1 if value == "producer" else int(Compression.parse(value))
        if len(_CODEC_IDS) < 64:
            _CODEC_IDS[value] = got
    return got


class _AppendRules(NamedTuple):
    """What a point append needs from a LogConfig, computed once per config object."""

    config: LogConfig
    log_append_time: bool
    before_max_ms: int
    after_max_ms: int
    check_timestamps: bool
    max_segment_ms: int

    @classmethod
    def of(cls, cfg: LogConfig) -> "_AppendRules":
        before, after = cfg.effective_timestamp_before_max_ms, cfg.effective_timestamp_after_max_ms
        lat = cfg.message_timestamp_type != TimestampType.CREATE_TIME
        return cls(cfg, lat, before, after, not lat and (before < LONG_MAX or after < LONG_MAX), cfg.max_segment_ms)


class AppendInfo(NamedTuple):
    """What an append stored: its offsets, timestamps and size."""

    first_offset: int
    last_offset: int
    max_timestamp: int
    offset_of_max_timestamp: int
    log_append_time: int
    record_count: int
    valid_bytes: int
    duplicate: bool = False
    """True when the batch was a producer's retry of one already in the log: nothing was written and
    the offsets are those of the original."""


class OffsetAndTimestamp(NamedTuple):
    offset: int
    timestamp: int


_new_offset_and_timestamp = tuple.__new__  # an OffsetAndTimestamp from a (offset, timestamp) pair, no checks
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _int_arg(name: str, value: Any, what: str = "an offset") -> int:
    """``value`` as an int, or a ``TypeError`` that says what the argument takes (never a comparison error
    from deep inside a read)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} takes {what} (int), not {type(value).__name__} {value!r}")
    return int(value)


def _located(exc: CorruptRecordError, where: list[Any]) -> CorruptRecordError:
    """The error with the segment file and its position in it, when the decoder only knew a buffer."""
    if exc.file is None and where:
        return exc.with_context(file=where[0], base_position=where[1])
    return exc


def _io_guard(method: Callable[Concatenate[Log, _P], _R]) -> Callable[Concatenate[Log, _P], _R]:
    """File-system failures during a change become ``LogIOError`` and fence the log until reopened."""

    def guarded(self: Log, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(self, *args, **kwargs)
        except LogIOError:
            raise
        except OSError as exc:
            self._failed = exc
            raise LogIOError(f"{method.__name__} on log {self.dir} failed: {exc}") from exc

    functools.update_wrapper(guarded, method)
    return guarded
