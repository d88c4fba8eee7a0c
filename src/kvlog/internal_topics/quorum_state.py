"""KRaft's ``quorum-state`` file (``__cluster_metadata-0/quorum-state``): the election state a controller
keeps beside its metadata log, read as Kafka's ``FileQuorumStateStore`` reads it.

The file is one line of JSON: the fields of Kafka's ``QuorumStateData`` message as its generated JSON
converter writes them, plus ``data_version``. Version 0 (``kraft.version`` 0, a static
``controller.quorum.voters`` quorum) holds ``clusterId``, ``leaderId``, ``leaderEpoch``, ``votedId``,
``appliedOffset`` and ``currentVoters``; version 1 (``kraft.version`` 1, a KIP-853 dynamic quorum) holds
``leaderId``, ``leaderEpoch``, ``votedId`` and ``votedDirectoryId``. Kafka reads the first line only, needs an
object with ``data_version`` 0 or 1, and every field of that version (its converter has no defaults for
absent fields). As written by Kafka 4.4.0 brokers::

    {"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}
    {"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}

``DumpLogSegments`` does not read the file (it ignores it as a file of unknown kind); :func:`read_quorum_state`
is kvlog's reader, and :func:`kvlog.cluster_metadata` reports it as ``quorum_state``.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import uuid
from dataclasses import dataclass
from typing import Any

from kvlog import _io, storage
from kvlog.errors import CorruptInternalRecordError

__all__ = ["CorruptQuorumStateError", "QUORUM_STATE", "QuorumState", "parse_quorum_state", "read_quorum_state"]

QUORUM_STATE = "quorum-state"
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)


class CorruptQuorumStateError(CorruptInternalRecordError):
    """A ``quorum-state`` file Kafka's reader would refuse; ``field`` names the JSON field at fault."""


@dataclass(frozen=True)
class QuorumState:
    """One ``quorum-state`` file. ``voted_directory_id`` is None in version 0 (the zero id in version 1
    means "no vote" or a voter without a directory id); ``cluster_id``, ``applied_offset`` and
    ``current_voters`` are None in version 1 (``current_voters`` also when version 0 wrote null)."""

    data_version: int
    leader_id: int
    leader_epoch: int
    voted_id: int
    voted_directory_id: uuid.UUID | None = None
    cluster_id: str | None = None
    applied_offset: int | None = None
    current_voters: tuple[int, ...] | None = None

    @property
    def has_leader(self) -> bool:
        return self.leader_id >= 0

    @property
    def has_voted(self) -> bool:
        return self.voted_id >= 0


def _int(obj: dict[str, Any], name: str, bounds: tuple[int, int], what: str) -> int:
    if name not in obj:
        raise CorruptQuorumStateError(f"{what}: no {name!r}, which data_version {obj.get('data_version')} needs",
                                      field=name)
    value = obj[name]
    if not isinstance(value, int) or isinstance(value, bool) or not bounds[0] <= value <= bounds[1]:
        raise CorruptQuorumStateError(f"{what}: {name!r} is {value!r:.40}, not an integer of its type", field=name)
    return value


def _uuid(obj: dict[str, Any], name: str, what: str) -> uuid.UUID:
    value = obj.get(name)
    if name not in obj:
        raise CorruptQuorumStateError(f"{what}: no {name!r}, which data_version 1 needs", field=name)
    raw = b""
    if isinstance(value, str) and len(value) == 22:
        try:
            raw = base64.urlsafe_b64decode(value + "==")
        except (binascii.Error, ValueError):
            raw = b""
    if len(raw) != 16:
        raise CorruptQuorumStateError(f"{what}: {name!r} is {value!r:.40}, not a Kafka Uuid (22 base64url "
                                      "characters)", field=name)
    return uuid.UUID(bytes=raw)


def parse_quorum_state(data: bytes | str, *, name: str = QUORUM_STATE) -> QuorumState:
    """A ``quorum-state`` file's contents (see the module docstring); :class:`CorruptQuorumStateError` for
    anything Kafka's reader would refuse."""
    text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
    if not text:
        raise CorruptQuorumStateError(f"{name}: the file is empty (Kafka: \"File ended prematurely.\")")
    line = text.splitlines()[0] if text.splitlines() else ""
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise CorruptQuorumStateError(f"{name}: the first line is not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise CorruptQuorumStateError(f"{name}: the first line is a JSON {type(obj).__name__}, not an object")
    if "data_version" not in obj:
        raise CorruptQuorumStateError(f"{name}: no data_version", field="data_version")
    version = _int(obj, "data_version", (-(1 << 15), (1 << 15) - 1), name)
    if version not in (0, 1):
        raise CorruptQuorumStateError(f"{name}: data_version {version} is not within the supported 0 and 1",
                                      field="data_version")
    common = (_int(obj, "leaderId", _INT32, name), _int(obj, "leaderEpoch", _INT32, name),
              _int(obj, "votedId", _INT32, name))
    if version == 1:
        return QuorumState(1, *common, voted_directory_id=_uuid(obj, "votedDirectoryId", name))
    cluster_id = obj.get("clusterId")
    if not isinstance(cluster_id, str):
        raise CorruptQuorumStateError(f"{name}: 'clusterId' is {cluster_id!r:.40}, not a string", field="clusterId")
    applied = _int(obj, "appliedOffset", _INT64, name)
    if "currentVoters" not in obj:
        raise CorruptQuorumStateError(f"{name}: no 'currentVoters', which data_version 0 needs",
                                      field="currentVoters")
    raw_voters = obj["currentVoters"]
    voters: tuple[int, ...] | None = None
    if raw_voters is not None:
        if not isinstance(raw_voters, list) or not all(isinstance(v, dict) for v in raw_voters):
            raise CorruptQuorumStateError(f"{name}: 'currentVoters' is {raw_voters!r:.60}, not a list of "
                                          "objects", field="currentVoters")
        voters = tuple(_int(v, "voterId", _INT32, f"{name} currentVoters") for v in raw_voters)
    return QuorumState(0, *common, cluster_id=cluster_id, applied_offset=applied, current_voters=voters)


def read_quorum_state(path: str | os.PathLike[str]) -> QuorumState:
    """The ``quorum-state`` file at ``path`` (the file, or the ``__cluster_metadata-0`` directory holding
    it; a local path or a URI), read-only."""
    p = storage.normalize(os.fspath(path))
    if _io.fs.isdir(p):
        p = storage.join(p, QUORUM_STATE)
    return parse_quorum_state(_io.fs.read_file(p), name=p)
