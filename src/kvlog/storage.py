"""Where a log directory lives: a local path, or an object-store URI read through ``pyarrow.fs``.

kvlog writes only local logs. Everything that reads (``Log.open(..., read_only=True)``, ``LogManager``
read-only, ``kvlog dump/verify/offsets``, the Spark source) also takes a URI: ``s3://bucket/backup``,
``gs://…``, ``abfs://…``, ``hdfs://…`` or ``file://…``. ``file://`` and plain paths stay on today's
descriptor code (``kvlog._io``); the others go to an :class:`~kvlog.object_store.ObjectStore`.

The read side of the seam is small — list a directory, stat, ranged read — and both implementations
offer it: ``kvlog._io.FileSystem`` locally, ``ObjectStore`` remotely. ``_io.fs`` routes by path: a
URI's files get descriptors from a table here (numbers from :data:`REMOTE_FD` up), so the code that
reads segments and indexes is the same for both and local reads pay one integer comparison.

Credentials and endpoints come from the filesystem's own configuration, never from kvlog: the
environment (``AWS_ACCESS_KEY_ID``, ``AWS_ENDPOINT_URL``, ``GOOGLE_APPLICATION_CREDENTIALS``, …), the
URI's query string as ``pyarrow.fs.FileSystem.from_uri`` reads it (``s3://b/p?region=eu-west-1&
endpoint_override=…``), or a filesystem object given to :func:`register_filesystem` (any fsspec
filesystem fits through ``pyarrow.fs.PyFileSystem(FSSpecHandler(fs))``).
"""

from __future__ import annotations

import itertools
import os
import threading
import urllib.parse
from typing import TYPE_CHECKING, Any, Protocol

from kvlog.errors import ConfigError, ReadOnlyStorageError, StorageError, redact

if TYPE_CHECKING:
    from kvlog.object_store import ObjectStore

__all__ = ["RangedFile", "Storage", "is_remote", "normalize", "join", "store_for", "register_filesystem",
           "register_storage",
           "refuse_remote_writer", "redact", "REMOTE_FD"]

#: descriptors of remote objects start here, far above any real file descriptor
REMOTE_FD = 1 << 40


class RangedFile(Protocol):
    """One open object: its size and ranged reads (short only at the end of the object).

    Optionally ``scan_block(offset) -> (start, end)``: the fetched block holding ``offset``, so that a
    scan's reads can stay inside blocks (``kvlog.log.reads.chunks``)."""

    path: str
    size: int
    mtime_ms: int

    def pread(self, size: int, offset: int) -> bytes: ...

    def read_block(self, size: int, offset: int) -> memoryview: ...

    def readinto(self, view: memoryview, offset: int) -> int: ...

    def will_need(self, offset: int, size: int) -> None: ...

    def close(self) -> None: ...


class Storage(Protocol):
    """The read side of a file system, as the log readers use it."""

    def listdir(self, path: str) -> list[str]: ...

    def isdir(self, path: str) -> bool: ...

    def exists(self, path: str) -> bool: ...

    def getsize(self, path: str) -> int: ...

    def open_ranged(self, path: str) -> RangedFile: ...


def is_remote(path: Any) -> bool:
    """True for an object-store URI (``s3://…``); False for a plain path or a ``file://`` URI."""
    return isinstance(path, str) and "://" in path and not path.startswith("file://")


def _local(path: str) -> str:
    if path.startswith("file://"):
        parsed = urllib.parse.urlsplit(path)
        if parsed.netloc not in ("", "localhost"):
            raise ConfigError(f"{redact(path)!r}: a file:// URI names a path on this machine, not on "
                              f"{parsed.netloc.rpartition('@')[2]!r}")
        return urllib.parse.unquote(parsed.path)
    return path


def normalize(path: str | os.PathLike[str]) -> str:
    """The canonical form of a log path: absolute for local paths (``file://`` unwrapped), and for a URI
    its scheme, bucket and key without a trailing ``/`` or query. The query's options (``region=…``)
    configure the store this URI's prefix is read through from now on."""
    text = os.fspath(path)
    if not is_remote(text):
        return os.path.abspath(_local(text))
    uri, _ = _store_of(text)
    return uri


def split_query(uri: str) -> tuple[str, str]:
    """``(uri without query, query)``."""
    base, _, query = uri.partition("?")
    return base, query


def join(uri: str, name: str) -> str:
    """``uri/name``, keeping a URI's query (its store options) at the end, for paths sent to executors."""
    base, query = split_query(uri)
    joined = os.path.join(base, name) if not is_remote(base) else base.rstrip("/") + "/" + name
    return f"{joined}?{query}" if query else joined


# ----------------------------------------------------------------------------- stores by URI prefix
_stores: dict[str, "ObjectStore"] = {}  # "s3://bucket" (or a registered longer prefix) → store
_configured: dict[tuple[str, str, str], "ObjectStore"] = {}  # one store per bucket, options and credentials
_stores_lock = threading.Lock()


def register_filesystem(prefix: str, filesystem: Any, **options: Any) -> "ObjectStore":
    """Read URIs starting with ``prefix`` (``"s3://bucket"``, ``"s3://bucket/backups"``) through
    ``filesystem``, a ``pyarrow.fs.FileSystem`` configured by the caller (endpoint, credentials, retry
    strategy). ``options`` tune the reads (:class:`~kvlog.object_store.ObjectStore`). In-process only:
    Spark executors configure themselves from the URI's query string and the environment."""
    from kvlog.object_store import ObjectStore

    if not is_remote(prefix):
        # not repeated: a malformed prefix is no URI, so redact() could not tell its credentials apart
        raise ConfigError("register_filesystem takes a URI prefix such as 's3://bucket' (scheme://bucket[/path]); "
                          "the prefix given has no scheme")
    scheme = prefix.split("://", 1)[0]
    store = ObjectStore(filesystem, strip=len(scheme) + 3, **options)
    with _stores_lock:
        _stores[prefix.rstrip("/")] = store
    return store


def register_storage(prefix: str, store: Any) -> None:
    """Read URIs starting with ``prefix`` through ``store``, any object with the read side of
    :class:`Storage` (plus ``read_all``, ``prefetch_small``, ``forget`` and ``stats``): the virtual
    directories of a tiered view's remote segments (:mod:`kvlog.tiered.virtual`)."""
    with _stores_lock:
        _stores[prefix.rstrip("/")] = store


def unregister_filesystem(prefix: str) -> None:
    with _stores_lock:
        _stores.pop(prefix.rstrip("/"), None)


def canonical(uri: str) -> str:
    """``scheme://bucket/key`` of a URI: no credentials (``key:secret@``), query or trailing ``/``;
    the form kvlog names objects by in its errors."""
    scheme, sep, rest = uri.partition("://")
    rest = rest.split("?", 1)[0].split("#", 1)[0]
    # the userinfo runs to the last "@": an unencoded secret may hold "/" (urlsplit would end it there)
    rest = rest.rpartition("@")[2]
    host, _, path = rest.partition("/")
    if not sep or not scheme or not host:
        raise ConfigError(f"{redact(uri)!r} is not a URI with a bucket or host (e.g. s3://bucket/path)")
    return f"{scheme}://{host}/{path}".rstrip("/")


def _store_of(uri: str) -> tuple[str, "ObjectStore"]:
    """The canonical URI and the store that reads it."""
    base = canonical(uri)
    query = split_query(uri)[1]
    configured = bool(query) or "@" in uri.split("://", 1)[1].split("/", 1)[0]
    with _stores_lock:
        best = None
        for prefix in _stores:
            if (base == prefix or base.startswith(prefix + "/")) and (best is None or len(prefix) > len(best)):
                best = prefix
        if best is not None and not configured:
            return base, _stores[best]
    bucket = "/".join(base.split("/", 3)[:3])  # scheme://bucket (or the HDFS name node)
    key = (bucket, uri.split("://", 1)[1].split("/", 1)[0], query)  # the bucket with its options and credentials
    with _stores_lock:
        store = _configured.get(key)
    if store is None:
        from kvlog.object_store import ObjectStore

        store = ObjectStore.from_uri(uri, base)
        with _stores_lock:
            store = _configured.setdefault(key, store)
    with _stores_lock:
        if configured or bucket not in _stores:  # options or credentials in the URI configure the bucket's store
            _stores[bucket] = store
        return base, _stores[bucket]


def store_for(uri: str) -> "ObjectStore":
    """The store that reads ``uri`` (created from the URI and the environment on first use)."""
    return _store_of(uri)[1]


def refuse_remote_writer(path: Any, what: str, remedy: str = "") -> None:
    """Writers stay local: a clear error instead of a half-written object store. ``remedy`` says what to
    do instead (default: open read-only, or mirror to a local directory first)."""
    if is_remote(os.fspath(path) if isinstance(path, os.PathLike) else path):
        raise ReadOnlyStorageError(
            f"{what} on {redact(os.fspath(path))}: kvlog writes only local log directories; remote URIs are "
            f"read-only ({remedy or 'open with read_only=True, or mirror the log to a local directory first'})")


# ----------------------------------------------------------------------------- descriptor table
_handles: dict[int, RangedFile] = {}
_next_fd = itertools.count(REMOTE_FD)


def open_fd(path: str) -> int:
    """Open a remote object for reading; returns a descriptor for ``kvlog._io.fs``."""
    fd = next(_next_fd)
    _handles[fd] = store_for(path).open_ranged(path)
    return fd


def handle(fd: int) -> RangedFile:
    try:
        return _handles[fd]
    except KeyError:
        raise StorageError(f"remote descriptor {fd} is not open") from None


def close_fd(fd: int) -> None:
    got = _handles.pop(fd, None)
    if got is not None:
        got.close()
