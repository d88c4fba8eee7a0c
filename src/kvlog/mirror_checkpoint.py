"""A mirror target's ``mirror-checkpoint`` (see :mod:`kvlog.mirror`, "Resuming"): how far each source was copied.

Apart from the mirror itself, below it: ``kvlog verify`` reads the file too, and the verifier sits below the
``LogManager`` the mirror drives (``docs/layout.md``).
"""

from __future__ import annotations

import json
import os

from kvlog import _io
from kvlog.errors import KvlogError

__all__ = ["CHECKPOINT_FILE", "read_checkpoint", "write_checkpoint"]

CHECKPOINT_FILE = "mirror-checkpoint"
CHECKPOINT_VERSION = 1


def read_checkpoint(target_dir: str | os.PathLike[str]) -> dict[str, dict[str, int]]:
    """``{source path: {"next_offset": N, "target_end_offset": M}}`` from a target partition directory."""
    path = os.path.join(os.fspath(target_dir), CHECKPOINT_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise KvlogError(f"cannot read mirror checkpoint {path}: {exc}") from None
    sources = data.get("sources") if isinstance(data, dict) else None
    if (not isinstance(data, dict) or data.get("version") != CHECKPOINT_VERSION
            or not isinstance(sources, dict)):
        raise KvlogError(f"mirror checkpoint {path} is not a version {CHECKPOINT_VERSION} checkpoint")
    out: dict[str, dict[str, int]] = {}
    for src, entry in sources.items():
        try:
            out[str(src)] = {"next_offset": int(entry["next_offset"]),
                             "target_end_offset": int(entry["target_end_offset"])}
        except (KeyError, TypeError, ValueError):
            raise KvlogError(f"mirror checkpoint {path}: bad entry for {src!r}") from None
    return out


def write_checkpoint(target_dir: str, table: dict[str, dict[str, int]]) -> None:
    data = {"version": CHECKPOINT_VERSION, "sources": {k: table[k] for k in sorted(table)}}
    _io.fs.write_atomic(os.path.join(target_dir, CHECKPOINT_FILE),
                        (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
