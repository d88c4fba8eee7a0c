"""Reading a point in time as the user writes it: epoch milliseconds, ISO-8601, or a special target.

A library module (not the command line's) because the CLI, the Spark readers' ``asOf`` option and
other callers must read a time the same way.
"""

from __future__ import annotations

import datetime as _dt
import re

from kvlog.errors import ConfigError
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP

__all__ = ["parse_timestamp"]

_SPECIAL = {"earliest": EARLIEST, "latest": LATEST, "max": MAX_TIMESTAMP, "max-timestamp": MAX_TIMESTAMP}
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def parse_timestamp(text: str, *, special: bool = True) -> int:
    """Epoch milliseconds, an ISO-8601 time (naive means UTC) or, with ``special``, earliest/latest/max
    (``Log.offset_for_timestamp``'s special targets); ``ConfigError`` for anything else."""
    s = text.strip()
    if special and s.lower() in _SPECIAL:
        return _SPECIAL[s.lower()]
    if re.fullmatch(r"-?\d+", s):
        value = int(s)
        if value < 0 and not (special and value in (EARLIEST, LATEST, MAX_TIMESTAMP)):
            raise ConfigError(f"invalid timestamp {value}")
        return value
    iso = s[:-1] + "+00:00" if s[-1:] in ("Z", "z") else s
    # Python 3.10's fromisoformat wants 3 or 6 fraction digits
    iso = re.sub(r"(T\d\d:\d\d:\d\d)\.(\d+)", lambda m: f"{m.group(1)}.{(m.group(2) + '000000')[:6]}", iso)
    try:
        when = _dt.datetime.fromisoformat(iso)
    except ValueError:
        raise ConfigError(f"cannot read {text!r} as epoch milliseconds or an ISO-8601 time"
                          + (" (or earliest/latest/max)" if special else "")) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return (when - _EPOCH) // _dt.timedelta(milliseconds=1)
