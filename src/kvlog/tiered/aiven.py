"""Remote segments as Aiven's tiered-storage plugin for Apache Kafka writes them, read without a broker.

The plugin (GitHub Aiven-Open/tiered-storage-for-apache-kafka, ``io.aiven.kafka.tieredstorage.
RemoteStorageManager``) stores each copied segment as three objects next to each other::

    <key.prefix><topic>-<topicId>/<partition>/<start offset, 20 digits>-<segment id>.log
                                                                          ….indexes
                                                                          ….rsm-manifest

The ``.log`` object is the segment cut into chunks, each chunk optionally zstd-compressed and then
optionally AES-256-GCM-encrypted; the ``.indexes`` object is the offset, time, producer-snapshot,
leader-epoch and (if any) transaction indexes one after another, each encrypted on its own when the
segment is, never compressed; the manifest (JSON) says where everything is and holds the segment's AES
key wrapped with an RSA key pair of the broker's key ring. Decoding: :mod:`kvlog.tiered.aiven_manifest`
(keys, manifest), :mod:`kvlog.tiered.aiven_crypto` (key ring, AES-GCM), :mod:`kvlog.tiered.aiven_log`
(the ``.log`` read in chunk-aligned ranges). Sources are listed in each module; the facts in brief, with
their files under ``core/src/main/java/io/aiven/kafka/tieredstorage/``: object keys
``ObjectKeyFactory.java``; what is uploaded and fetched how ``KafkaRemoteStorageManager.java``; the
manifest ``manifest/SegmentManifestV1.java`` and ``manifest/index/*``; chunk transforms
``transform/*ChunkEnumeration.java``; keys ``security/*.java``.

Usage::

    storage = AivenTieredStorage("s3://bucket/tiered?region=eu-west-1", key_prefix="kafka/",
                                 key_pairs={"k1": "/etc/kafka/k1-private.pem"})
    files = storage.segment_files(RemoteSegment.from_row(row))   # a row of kvlog.remote_log_metadata
    log = files.open_log()                                       # the .log's bytes, as Kafka wrote them
    offset_index = files.index("offset")

A manifest costs one GET per segment, the ``.indexes`` object one GET on the first ``index()``, a point
read of the ``.log`` one GET, a scan one GET per ``block_size`` (8 MiB) of the segment (on S3 each
object opened also costs a HEAD).
"""

from __future__ import annotations

import abc
import dataclasses
import os
import threading
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Mapping

from kvlog import storage as _storage
from kvlog.errors import ConfigError, CorruptRemoteObjectError, ObjectNotFoundError, StorageError
from kvlog.object_store import ReadStats
from kvlog.tiered.aiven_crypto import ChunkCipher, KeyRing
from kvlog.tiered.aiven_log import ChunkedLogFile
from kvlog.tiered.aiven_manifest import Manifest, check_manifest_segment, object_keys, parse_manifest
from kvlog.tiered.base import INDEX_KINDS, RemoteSegment

if TYPE_CHECKING:
    from kvlog.object_store import ObjectStore

__all__ = ["AivenTieredStorage", "AivenSegmentFiles"]

_pool_lock = threading.Lock()
_local_pool: ThreadPoolExecutor | None = None


def _shared_pool() -> ThreadPoolExecutor:
    """Prefetch workers for local directories (an object store brings its own pool)."""
    global _local_pool
    with _pool_lock:
        if _local_pool is None:
            _local_pool = ThreadPoolExecutor(2, thread_name_prefix="kvlog-aiven")
        return _local_pool


class _Opened(abc.ABC):
    """One object opened for ranged reads; ``size`` is its length. Every ``read`` is one request."""

    size: int

    @abc.abstractmethod
    def read(self, start: int, size: int) -> bytes | memoryview:
        """``size`` bytes from ``start`` (fewer only where the object ends)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Give the object's handle back."""


class _LocalOpened(_Opened):
    def __init__(self, path: str, count: Any) -> None:
        self.path = path
        self._count = count
        try:
            self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            raise ObjectNotFoundError(f"no object {path}", path=path) from None
        except OSError as exc:
            raise StorageError(f"opening {path} failed: {exc.strerror}", path=path) from None
        self.size = os.fstat(self._fd).st_size

    def read(self, start: int, size: int) -> memoryview:
        from kvlog._core.records import pread_owned

        self._count(gets=1)
        try:
            # pooled memory: a fresh bytes object of MiBs pays a page fault per 4 KiB on first touch
            block: Any = pread_owned(self._fd, max(0, min(size, self.size - start)), start)
        except OSError as exc:
            raise StorageError(f"reading {self.path} at position {start} failed: {exc.strerror}", path=self.path,
                               position=start) from None
        self._count(get_bytes=len(block))
        return memoryview(block)

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)


class _StoreOpened(_Opened):
    """An object of a store, opened (one HEAD with pyarrow's S3) on its first read or size: a view opens
    many segments one after another and reads their first chunks together, so the HEADs go together too."""

    def __init__(self, store: "ObjectStore", uri: str, count: Any) -> None:
        self.path = uri
        self._store = store
        self._count = count
        self._raw_file: Any = None
        self._open_lock = threading.Lock()

    @property
    def _raw(self) -> Any:
        if self._raw_file is None:
            with self._open_lock:
                if self._raw_file is None:
                    store, uri = self._store, self.path
                    self._count(heads=1)
                    self._raw_file = store.call("opening", uri, -1,
                                                lambda: store.fs.open_input_file(store.fs_path(uri)), heads=1)
        return self._raw_file

    @property
    def size(self) -> int:  # type: ignore[override]
        return int(self._raw.size())

    def read(self, start: int, size: int) -> memoryview:
        self._count(gets=1)
        raw = self._raw
        data = self._store.call("reading", self.path, start, lambda: raw.read_at(size, start), gets=1,
                                get_bytes=size)
        self._count(get_bytes=len(data))
        return memoryview(data)  # (pyarrow's buffer itself: no copy of MiBs under the interpreter lock)

    def close(self) -> None:
        raw, self._raw_file = self._raw_file, None
        if raw is not None:
            try:
                raw.close()
            except OSError:
                pass


class AivenTieredStorage:
    """The Aiven plugin's objects under ``location`` (a local directory or an object-store URI that
    :func:`kvlog.storage.store_for` reads: credentials and endpoint in its query or the environment).

    ``key_prefix``: the plugin's ``key.prefix`` (prepended as is: ``"kafka/"`` with its slash).
    ``key_pairs``: ``{key pair id: private key}`` for encrypted segments, the key as PEM or DER bytes,
    PEM text, a file path or a ``cryptography`` RSA private key; only the ids are ever shown.
    ``block_size``: original bytes per request of a scan; ``prefetch``: scan groups fetched ahead (2,
    as many as an object store fetches blocks ahead for a plain log).
    """

    name = "aiven"

    def __init__(self, location: str | os.PathLike[str], *, key_prefix: str = "",
                 key_pairs: Mapping[str, Any] | None = None, block_size: int = 8 << 20, prefetch: int = 2) -> None:
        text = os.fspath(location)
        if not isinstance(key_prefix, str):
            raise ConfigError("key_prefix is the plugin's key.prefix, a string")
        if block_size < 1 or prefetch < 0:
            raise ConfigError("block_size must be positive and prefetch ≥ 0")
        self.key_prefix = key_prefix
        self.block_size = block_size
        self.prefetch = prefetch
        self._store: ObjectStore | None = None
        if _storage.is_remote(text):
            self.location = _storage.normalize(text)
            self._store = _storage.store_for(text)
        else:
            self.location = _storage.normalize(text)
        self._keys = KeyRing(dict(key_pairs or {}))
        self._stats = ReadStats()
        self._stats_lock = threading.Lock()

    @classmethod
    def from_config(cls, location: str | os.PathLike[str], config: Mapping[str, Any],
                    **options: Any) -> "AivenTieredStorage":
        """From the plugin's own configuration (broker properties, with or without ``rsm.config.``):
        ``key.prefix``, ``encryption.key.pairs`` and ``encryption.key.pairs.<id>.private.key.file``."""
        conf = {k[len("rsm.config."):] if k.startswith("rsm.config.") else k: v for k, v in config.items()}
        ids = conf.get("encryption.key.pairs", "")
        if isinstance(ids, str):
            ids = [i.strip() for i in ids.split(",") if i.strip()]
        pairs = {}
        for key_id in ids:
            file = conf.get(f"encryption.key.pairs.{key_id}.private.key.file")
            if not file:
                raise ConfigError(f"encryption.key.pairs lists {key_id!r} but "
                                  f"encryption.key.pairs.{key_id}.private.key.file is not set")
            pairs[key_id] = os.fspath(file)
        return cls(location, key_prefix=str(conf.get("key.prefix", "") or ""), key_pairs=pairs, **options)

    def __repr__(self) -> str:
        return (f"AivenTieredStorage({self.location!r}, key_prefix={self.key_prefix!r}, "
                f"key_pairs={self._keys.ids})")

    # ------------------------------------------------------------------------------- objects
    def object_name(self, key: str) -> str:
        """The object ``key`` as kvlog names it in messages (a path, or a URI without credentials)."""
        if self._store is not None:
            return f"{self.location}/{key}"
        return os.path.join(self.location, key)

    def _count(self, **inc: int) -> None:
        with self._stats_lock:
            for k, v in inc.items():
                setattr(self._stats, k, getattr(self._stats, k) + v)

    def open_object(self, key: str) -> _Opened:
        name = self.object_name(key)
        if self._store is not None:
            return _StoreOpened(self._store, name, self._count)
        return _LocalOpened(name, self._count)

    def read_object(self, key: str, start: int = 0, size: int = -1) -> bytes:
        """A range of one object (all of it by default): one request."""
        opened = self.open_object(key)
        try:
            return bytes(opened.read(start, opened.size - start if size < 0 else size))
        finally:
            opened.close()

    def pool(self) -> Executor:
        return self._store.pool() if self._store is not None else _shared_pool()

    def stats(self) -> ReadStats:
        with self._stats_lock:
            return dataclasses.replace(self._stats)

    def segment_files(self, segment: RemoteSegment) -> "AivenSegmentFiles":
        return AivenSegmentFiles(self, segment)


class AivenSegmentFiles:
    """One segment's three objects. The manifest is fetched on first need (one GET) and the ``.indexes``
    object on the first ``index()`` (one GET); both are kept for this object's lifetime."""

    def __init__(self, storage: AivenTieredStorage, segment: RemoteSegment) -> None:
        self.segment = segment
        self._storage = storage
        self._keys = object_keys(segment, storage.key_prefix)
        self._manifest: Manifest | None = None
        self._indexes: dict[str, bytes | None] | None = None
        self._cipher: ChunkCipher | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"AivenSegmentFiles({self.segment})"

    def object_name(self, what: str) -> str:
        """``"log"``, ``"indexes"`` or ``"manifest"``: the object's name for messages."""
        return self._storage.object_name(self._keys[what])

    def log_object(self) -> str:
        return self.object_name("log")

    def manifest(self) -> Manifest:
        with self._lock:
            if self._manifest is None:
                name = self.object_name("manifest")
                try:
                    data = self._storage.read_object(self._keys["manifest"])
                except ObjectNotFoundError:
                    missing = ObjectNotFoundError(
                        f"{self.segment}: no manifest {name} (the plugin's key.prefix here is "
                        f"{self._storage.key_prefix!r}; is it the broker's?)", path=name)
                else:
                    manifest = parse_manifest(data, name)
                    check_manifest_segment(manifest, self.segment, name)
                    self._manifest = manifest
                    return manifest
                raise missing
            return self._manifest

    def log_size(self) -> int:
        return self.manifest().chunk_index.original_file_size

    def cipher(self) -> ChunkCipher | None:
        """The segment's AES-GCM (its data key unwrapped once), or None when it is not encrypted."""
        with self._lock:
            manifest = self.manifest()
            if manifest.encryption is None or self._cipher is not None:
                return self._cipher
            enc = manifest.encryption
            key = self._storage._keys.unwrap(enc.key_id, enc.wrapped_key, self.object_name("manifest"))
            self._cipher = ChunkCipher(key, enc.aad)
            return self._cipher

    def open_log(self) -> ChunkedLogFile:
        manifest = self.manifest()
        cipher = self.cipher()
        storage = self._storage
        key = self._keys["log"]
        opened: list[_Opened] = []
        lock = threading.Lock()

        def handle() -> _Opened:
            with lock:
                if not opened:
                    opened.append(storage.open_object(key))
                return opened[0]

        def close() -> None:
            with lock:
                while opened:
                    opened.pop().close()

        return ChunkedLogFile(self.log_object(), manifest.chunk_index, compression=manifest.compression,
                              cipher=cipher, fetch=lambda start, size: handle().read(start, size),
                              object_size=lambda: handle().size, pool=storage.pool, close=close,
                              block_size=storage.block_size, prefetch=storage.prefetch)

    def index(self, kind: str) -> bytes | None:
        if kind not in INDEX_KINDS:
            raise ValueError(f"index kind {kind!r} is not one of {INDEX_KINDS}")
        with self._lock:
            if self._indexes is None:
                self._indexes = self._load_indexes()
            return self._indexes[kind]

    def _indexes_object(self) -> bytes:
        opened = self._storage.open_object(self._keys["indexes"])
        try:
            return bytes(opened.read(0, opened.size))
        finally:
            opened.close()

    def _load_indexes(self) -> dict[str, bytes | None]:
        # the whole .indexes object (its indexes are most of it) is fetched while the manifest, which says
        # where each index lies in it, is: one round trip instead of two after each other
        early = self._storage.pool().submit(self._indexes_object) if self._manifest is None else None
        try:
            manifest = self.manifest()
            cipher = self.cipher()
        except BaseException:
            if early is not None:
                early.cancel()
            raise
        name = self.object_name("indexes")
        ranges = {k: r for k, r in manifest.indexes.items() if r is not None and r[1] > 0}
        out: dict[str, bytes | None] = {k: (None if r is None else b"") for k, r in manifest.indexes.items()}
        if not ranges:
            if early is not None:
                early.cancel()
            return out
        start = min(pos for pos, _ in ranges.values())
        end = max(pos + size for pos, size in ranges.values())
        whole = early.result() if early is not None else self._indexes_object()
        have = len(whole)
        cut = sorted((pos, kind) for kind, (pos, size) in ranges.items() if pos + size > have)
        if cut:
            pos, kind = cut[0]
            raise CorruptRemoteObjectError(
                f"{name}: the {kind} index (bytes {pos}..{pos + ranges[kind][1]}) is cut short: the object is "
                f"{have} bytes, the manifest places indexes up to byte {end}", path=name, position=min(pos, have))
        blob = whole[start:end]
        if len(blob) != end - start:
            raise CorruptRemoteObjectError(f"{name}: the object ended at byte {start + len(blob)} of {end}",
                                           path=name, position=start + len(blob))
        for kind, (pos, size) in ranges.items():
            piece = blob[pos - start:pos - start + size]
            out[kind] = piece if cipher is None else cipher.decrypt(piece, f"the {kind} index", name, pos)
        return out


if TYPE_CHECKING:  # mypy holds the classes to the seam's protocols
    from kvlog.storage import RangedFile
    from kvlog.tiered.base import RemoteSegmentFiles, RemoteStorage

    def _conforms(s: AivenTieredStorage, f: AivenSegmentFiles, log: ChunkedLogFile) -> tuple[
            RemoteStorage, RemoteSegmentFiles, RangedFile]:
        return s, f, log
