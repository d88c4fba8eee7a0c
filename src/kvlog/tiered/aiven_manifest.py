"""Aiven's tiered-storage plugin: object keys and the segment manifest (``.rsm-manifest``), decoded.

Sources (GitHub Aiven-Open/tiered-storage-for-apache-kafka, read at commit 8fb1581, 2026-05-04), under
``core/src/main/java/io/aiven/kafka/tieredstorage/``:

- ``ObjectKeyFactory.java``: a segment's three objects are ``<prefix><topic>-<topicId>/<partition>/
  <start offset, 20 digits>-<segment id>.<suffix>`` with suffixes ``log``, ``indexes`` and
  ``rsm-manifest``. ``key.prefix`` is prepended as is (no ``/`` added); ``key.prefix.mask`` only hides
  the prefix in the plugin's log lines, the key is the same.
- ``KafkaRemoteStorageManager.java``: the ``.log`` and ``.indexes`` keys honour the segment's custom
  metadata (``object_prefix``, ``object_key``) when the broker stored it; the manifest key is always
  built from the configured prefix.
- ``metadata/SegmentCustomMetadataField.java``, ``metadata/SegmentCustomMetadataSerde.java``: the custom
  metadata is one Kafka tagged-fields section: tag 0 ``remote_size`` (varlong), tag 1
  ``object_prefix`` and tag 2 ``object_key`` (compact strings).
- ``manifest/SegmentManifest.java``, ``manifest/SegmentManifestV1.java``: JSON with ``"version": "1"``,
  ``chunkIndex``, ``segmentIndexes``, ``compression`` and, for an encrypted segment, ``encryption``;
  ``remoteLogSegmentMetadata`` is written for people, not read back by the plugin.
- ``manifest/index/FixedSizeChunkIndex.java``, ``VariableSizeChunkIndex.java``,
  ``AbstractChunkIndex.java``: ``"type": "fixed"`` (``originalChunkSize``, ``originalFileSize``,
  ``transformedChunkSize``, ``finalTransformedChunkSize``) or ``"variable"`` (``transformedChunks``);
  every original chunk is ``originalChunkSize`` bytes but the last.
- ``manifest/index/serde/TransformedChunksSerializer.java``, ``ChunkSizesBinaryCodec.java``:
  ``transformedChunks`` is base64 (standard alphabet, padded) of a zstd frame (content size set) of:
  int32 count; if count > 1, int32 base, int8 width, then ``count - 1`` values minus base in ``width``
  big-endian bytes each; finally the last value as int32 (count 1: just that int32).
- ``manifest/SegmentIndexesV1.java``, ``SegmentIndexV1.java``: ``offset``, ``timestamp``,
  ``producerSnapshot``, ``leaderEpoch``, ``transaction`` (null when the segment has none), each
  ``{"position", "size"}`` inside the ``.indexes`` object.
- ``manifest/SegmentEncryptionMetadataV1.java``, ``security/EncryptedDataKey.java``: ``dataKey`` is
  ``<key pair id>:<base64 of the RSA-wrapped AES key>``, ``aad`` base64 (Jackson's ``byte[]``).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import struct
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from kvlog.errors import CorruptRemoteObjectError
from kvlog.tiered.base import INDEX_KINDS, RemoteSegment

__all__ = ["SUFFIXES", "main_path", "object_keys", "custom_metadata_fields", "ChunkIndex", "Encryption",
           "Manifest", "parse_manifest", "decode_chunk_sizes"]

#: the object suffixes of ``ObjectKeyFactory.Suffix``
SUFFIXES = {"log": "log", "indexes": "indexes", "manifest": "rsm-manifest"}

#: kvlog's index kinds → the manifest's ``segmentIndexes`` field names
_INDEX_FIELDS = {"offset": "offset", "timestamp": "timestamp", "producer_snapshot": "producerSnapshot",
                 "leader_epoch": "leaderEpoch", "transaction": "transaction"}

#: tags of the plugin's custom metadata (``SegmentCustomMetadataField``)
REMOTE_SIZE, OBJECT_PREFIX, OBJECT_KEY = 0, 1, 2

_MAX_CHUNK_SIZES = 10 << 20  # the plugin's own bound on the decoded chunk-size list


def main_path(segment: RemoteSegment) -> str:
    """``<topic>-<topicId>/<partition>/<start offset, 20 digits>-<segment id>``."""
    return (f"{segment.topic}-{segment.topic_id}/{segment.partition}/"
            f"{segment.start_offset:020d}-{segment.segment_id}")


def object_keys(segment: RemoteSegment, key_prefix: str) -> dict[str, str]:
    """The keys of the segment's ``log``, ``indexes`` and ``manifest`` objects, as the plugin fetches them."""
    main = main_path(segment)
    data_prefix, data_main = key_prefix, main
    if segment.custom_metadata:
        fields = custom_metadata_fields(segment.custom_metadata, str(segment))
        data_prefix = str(fields.get(OBJECT_PREFIX, key_prefix))
        data_main = str(fields.get(OBJECT_KEY, main))
    return {"log": f"{data_prefix}{data_main}.{SUFFIXES['log']}",
            "indexes": f"{data_prefix}{data_main}.{SUFFIXES['indexes']}",
            "manifest": f"{key_prefix}{main}.{SUFFIXES['manifest']}"}


def _uvarint(buf: bytes, pos: int, what: str) -> tuple[int, int]:
    value = 0
    for i in range(10):
        if pos >= len(buf):
            raise ValueError(f"{what}: varint runs past the end")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            return value, pos
    raise ValueError(f"{what}: varint longer than 10 bytes")


def custom_metadata_fields(raw: bytes, where: str = "") -> dict[int, int | str]:
    """The plugin's custom metadata of a segment: ``{tag: value}`` for the tags it knows (others skipped)."""
    try:
        count, pos = _uvarint(raw, 0, "field count")
        out: dict[int, int | str] = {}
        for _ in range(count):
            tag, pos = _uvarint(raw, pos, "tag")
            size, pos = _uvarint(raw, pos, f"size of tag {tag}")
            body = raw[pos:pos + size]
            if len(body) != size:
                raise ValueError(f"tag {tag} needs {size} bytes, {len(body)} remain")
            pos += size
            if tag == REMOTE_SIZE:
                zigzag, _ = _uvarint(body, 0, "remote_size")
                out[tag] = (zigzag >> 1) ^ -(zigzag & 1)
            elif tag in (OBJECT_PREFIX, OBJECT_KEY):
                n, at = _uvarint(body, 0, f"length of tag {tag}")
                if n == 0:
                    continue  # a null string: the plugin's default applies
                text = body[at:at + n - 1]
                if len(text) != n - 1:
                    raise ValueError(f"tag {tag}: string of {n - 1} bytes, {len(text)} remain")
                out[tag] = text.decode("utf-8")
        return out
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorruptRemoteObjectError(
            f"the custom metadata of {where or 'a remote segment'} is not the Aiven plugin's "
            f"(tagged fields object_prefix/object_key): {exc}") from None


@dataclass(frozen=True)
class ChunkIndex:
    """Where each chunk of the original ``.log`` lies in the transformed object."""

    kind: str  # "fixed" or "variable"
    original_chunk_size: int
    original_file_size: int
    #: transformed offset of chunk i, and the object's expected length at the end (count + 1 values)
    offsets: tuple[int, ...] = field(repr=False)

    @property
    def count(self) -> int:
        return len(self.offsets) - 1

    @property
    def transformed_size(self) -> int:
        return self.offsets[-1]

    def original_size(self, chunk: int) -> int:
        return min(self.original_chunk_size, self.original_file_size - chunk * self.original_chunk_size)


@dataclass(frozen=True)
class Encryption:
    """A segment's envelope: the data key wrapped by key pair ``key_id``, and the AAD of every chunk."""

    key_id: str
    wrapped_key: bytes = field(repr=False)
    aad: bytes = field(repr=False)


@dataclass(frozen=True)
class Manifest:
    chunk_index: ChunkIndex
    #: kvlog's index kind → (position, size) in the ``.indexes`` object, None when the segment has none
    indexes: dict[str, tuple[int, int] | None]
    compression: bool
    encryption: Encryption | None
    #: the ``remoteLogSegmentMetadata`` the plugin wrote beside (not read back by the plugin), or None
    metadata: dict[str, Any] | None = field(default=None, repr=False)


def decode_chunk_sizes(text: str) -> list[int]:
    """``transformedChunks`` of a variable chunk index: base64 → zstd → the plugin's binary codec."""
    import zstandard

    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise ValueError("transformedChunks is not base64") from None
    try:
        params = zstandard.get_frame_parameters(packed)
        if params.content_size <= 0 or params.content_size > _MAX_CHUNK_SIZES:
            raise ValueError(f"transformedChunks' zstd frame declares {params.content_size} bytes")
        raw = zstandard.ZstdDecompressor().decompress(packed)
    except zstandard.ZstdError as exc:
        raise ValueError(f"transformedChunks is not a zstd frame ({exc})") from None
    if len(raw) < 4:
        raise ValueError("transformedChunks is shorter than its count")
    (count,) = struct.unpack_from(">i", raw, 0)
    if count < 0:
        raise ValueError(f"transformedChunks counts {count} chunks")
    if count == 0:
        return []
    if count == 1:
        if len(raw) != 8:
            raise ValueError(f"transformedChunks of one chunk is {len(raw)} bytes, not 8")
        return [struct.unpack_from(">i", raw, 4)[0]]
    if len(raw) < 9:
        raise ValueError("transformedChunks ends inside its header")
    base, width = struct.unpack_from(">iB", raw, 4)
    if not 1 <= width <= 4:
        raise ValueError(f"transformedChunks packs values in {width} bytes")
    want = 9 + (count - 1) * width + 4
    if len(raw) != want:
        raise ValueError(f"transformedChunks of {count} chunks at {width} bytes each is {len(raw)} bytes, not {want}")
    body = raw[9:9 + (count - 1) * width]
    sizes = [int.from_bytes(body[i:i + width], "big") + base for i in range(0, len(body), width)]
    sizes.append(struct.unpack_from(">i", raw, len(raw) - 4)[0])
    return sizes


def _int(obj: dict[str, Any], name: str, where: str, *, lo: int = 0) -> int:
    value = obj.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < lo or value >= 1 << 31:
        raise ValueError(f"{where}.{name} is {value!r}, not an int32 ≥ {lo}")
    return value


def _chunk_index(obj: Any) -> ChunkIndex:
    if not isinstance(obj, dict):
        raise ValueError("chunkIndex is missing or not an object")
    kind = obj.get("type")
    chunk = _int(obj, "originalChunkSize", "chunkIndex", lo=1)
    total = _int(obj, "originalFileSize", "chunkIndex")
    count = math.ceil(total / chunk)
    if kind == "fixed":
        middle = _int(obj, "transformedChunkSize", "chunkIndex")
        last = _int(obj, "finalTransformedChunkSize", "chunkIndex")
        sizes = [middle] * (count - 1) + [last] if count else []
    elif kind == "variable":
        text = obj.get("transformedChunks")
        if not isinstance(text, str):
            raise ValueError("chunkIndex.transformedChunks is missing or not a string")
        sizes = decode_chunk_sizes(text)
        if len(sizes) != count:
            raise ValueError(f"chunkIndex lists {len(sizes)} chunks; {total} bytes in chunks of {chunk} "
                             f"make {count}")
        if any(s < 0 for s in sizes):
            raise ValueError("chunkIndex.transformedChunks holds a negative size")
    else:
        raise ValueError(f"chunkIndex.type is {kind!r}, not 'fixed' or 'variable'")
    return ChunkIndex(kind, chunk, total, tuple(accumulate(sizes, initial=0)))


def _indexes(obj: Any) -> dict[str, tuple[int, int] | None]:
    if not isinstance(obj, dict):
        raise ValueError("segmentIndexes is missing or not an object")
    out: dict[str, tuple[int, int] | None] = {}
    for kind in INDEX_KINDS:
        name = _INDEX_FIELDS[kind]
        entry = obj.get(name)
        if entry is None:
            if kind != "transaction":
                raise ValueError(f"segmentIndexes.{name} is missing")
            out[kind] = None
            continue
        if not isinstance(entry, dict):
            raise ValueError(f"segmentIndexes.{name} is not an object")
        out[kind] = (_int(entry, "position", f"segmentIndexes.{name}"), _int(entry, "size", f"segmentIndexes.{name}"))
    return out


def _encryption(obj: Any) -> Encryption | None:
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise ValueError("encryption is not an object")
    key, aad = obj.get("dataKey"), obj.get("aad")
    if not isinstance(key, str) or key.count(":") != 1:
        raise ValueError("encryption.dataKey is missing or not '<key pair id>:<base64>'")
    key_id, _, wrapped = key.partition(":")
    if not key_id.strip() or not wrapped:
        raise ValueError("encryption.dataKey has an empty key pair id or key")
    if not isinstance(aad, str):
        raise ValueError("encryption.aad is missing or not a string")
    try:
        wrapped_key = base64.b64decode(wrapped.encode("ascii"), validate=True)
        aad_bytes = base64.b64decode(aad.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise ValueError("encryption.dataKey or encryption.aad is not base64") from None
    return Encryption(key_id, wrapped_key, aad_bytes)


def parse_manifest(data: bytes, path: str) -> Manifest:
    """The manifest object's bytes, decoded; :class:`CorruptRemoteObjectError` naming ``path`` otherwise."""
    try:
        doc = json.loads(data)
    except UnicodeDecodeError as exc:
        raise CorruptRemoteObjectError(f"manifest {path} is not UTF-8 JSON (byte {exc.start})", path=path,
                                       position=exc.start) from None
    except json.JSONDecodeError as exc:
        raise CorruptRemoteObjectError(f"manifest {path} is not JSON: {exc.msg} at byte {exc.pos}", path=path,
                                       position=exc.pos) from None
    try:
        if not isinstance(doc, dict):
            raise ValueError("the document is not a JSON object")
        version = doc.get("version")
        if version != "1":  # Jackson writes the type id as a string
            raise ValueError(f"version is {version!r}; kvlog reads version '1' (SegmentManifestV1)")
        compression = doc.get("compression")
        if not isinstance(compression, bool):
            raise ValueError(f"compression is {compression!r}, not true or false")
        metadata = doc.get("remoteLogSegmentMetadata")
        return Manifest(_chunk_index(doc.get("chunkIndex")), _indexes(doc.get("segmentIndexes")), compression,
                        _encryption(doc.get("encryption")), metadata if isinstance(metadata, dict) else None)
    except ValueError as exc:
        raise CorruptRemoteObjectError(f"manifest {path} is not the Aiven plugin's SegmentManifestV1: {exc}",
                                       path=path) from None


def check_manifest_segment(manifest: Manifest, segment: RemoteSegment, path: str) -> None:
    """The manifest's own description of its segment (when written) and its size agree with ``segment``."""
    size = manifest.chunk_index.original_file_size
    if segment.segment_size >= 0 and size != segment.segment_size:
        raise CorruptRemoteObjectError(
            f"manifest {path} describes a .log of {size} bytes; __remote_log_metadata says {segment} has "
            f"{segment.segment_size}", path=path)
    meta = manifest.metadata
    if meta is None:
        return
    seg_id = meta.get("remoteLogSegmentId")
    got = seg_id.get("id") if isinstance(seg_id, dict) else None
    start = meta.get("startOffset")
    if (isinstance(got, str) and got != segment.segment_id) or (isinstance(start, int) and start != segment.start_offset):
        raise CorruptRemoteObjectError(
            f"manifest {path} describes segment {got} from offset {start}, not {segment}", path=path)
