"""Which Iceberg catalog an export commits through.

The default is embedded: pyiceberg's SQL catalog on a SQLite file inside the warehouse folder
(``<warehouse>/kvlog-catalog.db``), so one call makes a table with nothing else running, and the same folder
opened again finds it. SQLite serialises the catalog's compare-and-swap of a table's metadata location, which
is what makes two exporters racing on one table safe (the loser's commit fails and is retried or refused).
Any other catalog pyiceberg knows (REST, Glue, Hive, a SQL database) is given as a ``Catalog`` object, a URI
(``http(s)://`` for REST, a SQLAlchemy URL for SQL) or pyiceberg's property mapping.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from kvlog.errors import ConfigError

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog

__all__ = ["CATALOG_FILE", "catalog", "resolve"]

CATALOG_FILE = "kvlog-catalog.db"
_NAME = "kvlog"


def _pyiceberg() -> Any:
    try:
        import pyiceberg  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ModuleNotFoundError as exc:
        raise ConfigError(f"kvlog.iceberg needs pyiceberg with its SQL catalog ({exc.name} is missing): "
                          f"pip install 'kvlog[iceberg]'") from None


def catalog(warehouse: str | os.PathLike[str]) -> Catalog:
    """The embedded catalog of ``warehouse`` (a local folder, made if missing): pyiceberg's SQL catalog on
    ``<warehouse>/kvlog-catalog.db``, its tables' files under the same folder."""
    _pyiceberg()
    from pyiceberg.catalog.sql import SqlCatalog

    text = os.fspath(warehouse)
    if "://" in text and not text.startswith("file://"):
        raise ConfigError(f"the embedded catalog keeps its SQLite file in the warehouse, which must be a local "
                          f"folder, not {text!r}: give catalog= (a REST or SQL catalog URI, or a pyiceberg "
                          f"Catalog) for a warehouse on an object store")
    root = os.path.abspath(text.removeprefix("file://"))
    if os.path.exists(root) and not os.path.isdir(root):
        raise ConfigError(f"warehouse {root!r} is a file, not a folder")
    os.makedirs(root, exist_ok=True)
    # pyiceberg creates the catalog's tables on first open when a probe finds none: two processes opening a new
    # warehouse at once would both create them, and the slower fails ("table iceberg_tables already exists")
    with _open_lock(root):
        return SqlCatalog(_NAME, uri=f"sqlite:///{os.path.join(root, CATALOG_FILE)}", warehouse=f"file://{root}")


@contextlib.contextmanager
def _open_lock(root: str) -> Iterator[None]:
    """An exclusive lock on ``<root>/kvlog-catalog.db.lock`` while the embedded catalog is opened."""
    fd = os.open(os.path.join(root, CATALOG_FILE + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def resolve(catalog_: Catalog | str | Mapping[str, str] | None, warehouse: str | os.PathLike[str] | None) -> Catalog:
    """The catalog ``export``/``status`` use: ``catalog_`` as given (a pyiceberg ``Catalog``; a REST URL; a
    SQLAlchemy URL; pyiceberg's properties), with ``warehouse`` as its warehouse; None: the embedded one."""
    _pyiceberg()
    from pyiceberg.catalog import Catalog, load_catalog

    if catalog_ is None:
        if warehouse is None:
            raise ConfigError("give warehouse= (a folder for the embedded catalog) or catalog=")
        return catalog(warehouse)
    if isinstance(catalog_, Catalog):
        return catalog_
    if isinstance(catalog_, Mapping):
        props = {str(k): str(v) for k, v in catalog_.items()}
    elif isinstance(catalog_, str):
        if catalog_.startswith(("http://", "https://")):
            props = {"type": "rest", "uri": catalog_}
        elif "://" in catalog_:
            props = {"type": "sql", "uri": catalog_}
        else:
            raise ConfigError(f"catalog={catalog_!r}: give a REST catalog's http(s) URL, a SQLAlchemy URL "
                              f"(sqlite:///…, postgresql://…), pyiceberg's properties or a Catalog")
    else:
        raise ConfigError(f"catalog= takes a pyiceberg Catalog, a URI or a mapping, not {type(catalog_).__name__}")
    if warehouse is not None and "warehouse" not in props:
        text = os.fspath(warehouse)
        props["warehouse"] = text if "://" in text else f"file://{os.path.abspath(text)}"
    try:
        return load_catalog(props.pop("name", _NAME), **props)
    except Exception as exc:  # (pyiceberg's, the HTTP client's, SQLAlchemy's: said as kvlog's, URIs redacted)
        from kvlog.errors import IcebergExportError

        raise IcebergExportError(f"cannot open the catalog {props.get('uri', '')}: {type(exc).__name__}: {exc}") \
            from None
