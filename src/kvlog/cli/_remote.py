"""The tiered-storage options of ``kvlog dump`` and ``kvlog verify``: where a broker's remote storage manager put
a topic's older segments, and how they are laid out (KIP-405; :mod:`kvlog.tiered`)."""

from __future__ import annotations

import argparse
import os
import re

from kvlog import storage
from kvlog.errors import ConfigError
from kvlog.tiered.base import RemoteSegment, RemoteStorage

__all__ = ["add_remote_storage_options", "remote_storage_from", "aiven_segment_of"]

_AIVEN_KEY = re.compile(r"(?P<topic>.+)-(?P<id>[A-Za-z0-9_-]{22})/(?P<partition>\d+)/"
                        r"(?P<offset>\d{20})-(?P<sid>[A-Za-z0-9_-]{22})\.(?P<suffix>log|indexes|rsm-manifest)$")


def add_remote_storage_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("tiered storage (KIP-405)")
    g.add_argument("--remote-storage", metavar="PATH|URI",
                   help="the remote storage's root: LocalTieredStorage's directory, or the bucket (and path) of "
                        "Aiven's plugin")
    g.add_argument("--remote-layout", choices=("LocalTieredStorage", "aiven"), default="LocalTieredStorage",
                   help="which remote storage manager wrote the segments (default %(default)s)")
    g.add_argument("--remote-log-metadata", metavar="DIR",
                   help="the directory holding the __remote_log_metadata-N partitions (default: the data "
                        "directory)")
    g.add_argument("--key-prefix", default="", metavar="PREFIX", help="aiven: the plugin's key.prefix")
    g.add_argument("--key-pairs", default="", metavar="ID=PEM,...",
                   help="aiven: private keys of encrypted segments, by key id (PKCS#8 PEM files)")


def remote_storage_from(args: argparse.Namespace) -> RemoteStorage | None:
    if not getattr(args, "remote_storage", None):
        if getattr(args, "key_pairs", "") or getattr(args, "key_prefix", "") or getattr(args, "remote_log_metadata", None):
            raise ConfigError("--key-prefix, --key-pairs and --remote-log-metadata need --remote-storage")
        return None
    if args.remote_layout == "LocalTieredStorage":
        if args.key_pairs or args.key_prefix:
            raise ConfigError("--key-prefix and --key-pairs are for --remote-layout aiven")
        from kvlog.tiered.local_tiered import LocalTieredStorage

        return LocalTieredStorage(args.remote_storage)
    from kvlog.tiered.aiven import AivenTieredStorage

    pairs = {}
    for item in filter(None, (s.strip() for s in args.key_pairs.split(","))):
        key_id, sep, path = item.partition("=")
        if not sep or not key_id or not path:
            raise ConfigError(f"--key-pairs takes ID=FILE items, comma-separated; got {item!r}")
        pairs[key_id] = path
    return AivenTieredStorage(args.remote_storage, key_prefix=args.key_prefix, key_pairs=pairs or None)


def aiven_segment_of(path: str) -> tuple[RemoteSegment, str] | None:
    """The segment an Aiven object's key names (``…<topic>-<topic id>/<partition>/<offset>-<segment id>.log``)
    and the key's suffix; None for another name. The end offset is not in the key: the manifest has it."""
    m = _AIVEN_KEY.search(storage.canonical(path) if storage.is_remote(path) else os.path.abspath(path))
    if m is None:
        return None
    topic = m["topic"].rsplit("/", 1)[-1]
    return RemoteSegment(topic=topic, topic_id=m["id"], partition=int(m["partition"]), segment_id=m["sid"],
                         start_offset=int(m["offset"]), end_offset=(1 << 63) - 1), m["suffix"]
