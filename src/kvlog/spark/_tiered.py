"""A Spark read of a tiered topic (KIP-405): the ``kvlog.remoteStorage.*`` options, and one input partition
per remote segment.

The driver opens each partition's whole tiered view once (``__remote_log_metadata`` replayed once per
plan, not once per partition) and cuts every offset range at the remote pieces' boundaries and at the
local log start. A task reading a remote piece gets the piece itself (:class:`~kvlog.tiered.lineage.
RemotePiece`, planned by the driver) and opens only that segment and the local ones: no task replays the
metadata or opens the other remote segments.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping

from kvlog import storage
from kvlog.errors import ConfigError, redact

if TYPE_CHECKING:
    from kvlog.internal_topics.remote_log_metadata import RemoteLogMetadata
    from kvlog.log import Log
    from kvlog.spark._plan import OffsetRange
    from kvlog.tiered.base import RemoteStorage
    from kvlog.tiered.lineage import RemotePiece

__all__ = ["RemoteSpec", "OPTIONS", "cut_at_pieces"]

#: the options (Spark lower-cases them; these are the documented spellings)
OPTIONS = ("kvlog.remoteStorage.layout", "kvlog.remoteStorage.path", "kvlog.remoteStorage.metadataPath",
           "kvlog.remoteStorage.keyPrefix", "kvlog.remoteStorage.keyPairs")
LAYOUTS = {"localtieredstorage": "LocalTieredStorage", "aiven": "aiven"}


@dataclass(frozen=True)
class RemoteSpec:
    """Where a tiered topic's remote segments are and how they are laid out (picklable: sent to tasks)."""

    layout: str
    path: str
    metadata_path: str | None = None
    key_prefix: str = ""
    key_pairs: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:  # (Spark prints plans: a URI's credentials and query stay out)
        return f"RemoteSpec({self.layout!r}, {redact(self.path)!r})"

    @classmethod
    def parse(cls, opts: Mapping[str, Any]) -> "RemoteSpec | None":
        """From lower-cased options; None when no ``kvlog.remoteStorage.layout`` is given."""
        raw = opts.get("kvlog.remotestorage.layout")
        others = [o for o in OPTIONS[1:] if opts.get(o.lower()) is not None]
        if raw is None:
            if others:
                raise ConfigError(f"option {others[0]} needs kvlog.remoteStorage.layout (LocalTieredStorage or "
                                  "aiven): which remote storage manager wrote the segments")
            return None
        layout = LAYOUTS.get(str(raw).strip().lower())
        if layout is None:
            raise ConfigError(f"option kvlog.remoteStorage.layout is {raw!r}; kvlog reads the layouts "
                              "LocalTieredStorage (Kafka's) and aiven (Aiven's tiered-storage-for-apache-kafka)")
        path = opts.get("kvlog.remotestorage.path")
        if not path:
            raise ConfigError("option kvlog.remoteStorage.path (the remote storage's root: a path or URI) is "
                              "needed with kvlog.remoteStorage.layout")
        pairs: list[tuple[str, str]] = []
        for item in str(opts.get("kvlog.remotestorage.keypairs") or "").split(","):
            if not item.strip():
                continue
            key_id, sep, file = item.partition("=")
            if not sep or not key_id.strip() or not file.strip():
                raise ConfigError("option kvlog.remoteStorage.keyPairs is a list of <key id>=<private key PEM file>, "
                                  "comma-separated")
            pairs.append((key_id.strip(), file.strip()))
        if layout != "aiven" and (pairs or opts.get("kvlog.remotestorage.keyprefix")):
            raise ConfigError("options kvlog.remoteStorage.keyPrefix and keyPairs are for the aiven layout only")
        return cls(layout=layout, path=str(path), metadata_path=opts.get("kvlog.remotestorage.metadatapath"),
                   key_prefix=str(opts.get("kvlog.remotestorage.keyprefix") or ""), key_pairs=tuple(pairs))

    def storage(self) -> "RemoteStorage":
        if self.layout == "LocalTieredStorage":
            from kvlog.tiered.local_tiered import LocalTieredStorage

            return LocalTieredStorage(self.path)
        from kvlog.tiered.aiven import AivenTieredStorage

        return AivenTieredStorage(self.path, key_prefix=self.key_prefix,
                                  key_pairs={k: f for k, f in self.key_pairs} or None)

    def metadata(self, partition_path: str, cache: dict[str, "RemoteLogMetadata"]) -> "RemoteLogMetadata":
        """The replay of ``__remote_log_metadata`` for a partition directory (once per directory per plan)."""
        from kvlog.internal_topics.remote_log_metadata import replay_remote_log_metadata

        # the data directory, its URI's query kept: the query carries the store's options (its endpoint)
        base, query = storage.split_query(partition_path)
        parent = os.path.dirname(base.rstrip("/"))
        where = self.metadata_path or (f"{parent}?{query}" if query else parent)
        got = cache.get(where)
        if got is None:
            got = cache[where] = replay_remote_log_metadata(where)
        return got


def open_tiered(path: str, spec: RemoteSpec, *, on_damage: str = "raise", pieces: tuple["RemotePiece", ...] | None = None,
                cache: dict[str, "RemoteLogMetadata"] | None = None) -> "Log":
    """A read-only tiered open: with ``pieces`` (a task) exactly those; else the whole history (the driver)."""
    from kvlog.log import Log

    metadata = None if pieces is not None else spec.metadata(path, {} if cache is None else cache)
    return Log.open(path, read_only=True, on_damage=on_damage, remote_storage=spec.storage(),
                    remote_log_metadata=metadata, _remote_pieces=pieces)


def cut_at_pieces(r: "OffsetRange", pieces: "tuple[RemotePiece, ...]") -> list["OffsetRange"]:
    """``r`` cut where a tiered view's remote ``pieces`` end: one range per remote piece it covers (carrying
    that piece), and the rest, from the local log start, reading local segments only."""
    out = []
    start = r.start
    for piece in pieces:
        if start >= r.end:
            break
        if piece.end <= start:
            continue
        end = min(piece.end, r.end)
        out.append(replace(r, start=start, end=end, remote=r.remote, pieces=(piece,)))
        start = end
    if start < r.end:
        out.append(replace(r, start=start, remote=None, pieces=None))
    return out
