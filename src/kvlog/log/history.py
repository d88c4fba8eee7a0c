"""The seam through which a layer above the local log puts older segments below a read-only log's own.

The log package knows nothing of tiered storage (``docs/layout.md``): as Kafka's ``UnifiedLog`` composes the
``LocalLog`` with the ``RemoteLogManager``, the tiered view (:mod:`kvlog.tiered.view`, a layer above) composes a
local ``Log`` with remote segments. It registers an opener here when it is imported (``import kvlog`` imports
it); ``Log.open(path, read_only=True, remote_storage=..., remote_log_metadata=...)`` hands those arguments,
unread, to that opener, and the loader asks what it opened for the segments below the first local one, once
the local segments are loaded. Every argument's meaning and check belongs to the opener.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from kvlog.errors import ConfigError

if TYPE_CHECKING:
    from kvlog.log.log import Log
    from kvlog.segment import LogSegment

__all__ = ["History", "register_history", "open_history"]


class History(Protocol):
    """Older segments of a log kept elsewhere (a tiered view's remote history), added below its local ones."""

    def segments_below(self, log: "Log", local_start: int | None, log_start: int) -> list["LogSegment"]:
        """Read-only segments for offsets below ``local_start`` (the first local segment's base offset, None
        when there is none), from ``log_start`` (the checkpointed log start offset) on, by base offset."""
        ...

    def close(self) -> None:
        """Give back what the segments hold (called by ``Log.close``, after the segments are closed)."""
        ...


#: ``(remote_storage, remote_log_metadata, planned pieces) -> History``
Opener = Callable[[object, object, object], History]

_opener: list[Opener] = []


def register_history(opener: Opener) -> None:
    """Set the opener ``Log.open(remote_storage=...)`` uses (the tiered view, when it is imported)."""
    _opener[:] = [opener]


def open_history(remote_storage: object, remote_log_metadata: object, planned: object) -> History:
    if not _opener:  # pragma: no cover - `import kvlog` registers the tiered view
        raise ConfigError("remote_storage needs kvlog.tiered: import kvlog.tiered.view first")
    return _opener[0](remote_storage, remote_log_metadata, planned)
