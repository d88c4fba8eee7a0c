"""``kvlog repair``: the command over :mod:`kvlog.repair`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from kvlog import _files
from kvlog.cli._common import (
    _count,
    _err,
    _out,
)
from kvlog.repair import repair_partition


def cmd_repair(args: argparse.Namespace) -> int:
    """Rewrite only proven fields (``kvlog.repair``); exit 1 while anything unproven remains."""
    _, parts = _files.discover_partitions(args.path)
    reports = []
    tty = sys.stderr.isatty()  # progress only for a person watching (docs/cli.md)
    for i, (p, t, n) in enumerate(parts):
        if tty and len(parts) > 1:
            _err(f"repair: partition {i + 1}/{len(parts)} {os.path.basename(p)}")
        reports.append(repair_partition(p, t, n, dry_run=args.dry_run))
    if args.json:
        _out(json.dumps({"ok": all(r.ok for r in reports), "dry_run": args.dry_run,
                         "partitions": [r.as_dict() for r in reports]}, indent=1))
        return 0 if all(r.ok for r in reports) else 1
    verb = "would " if args.dry_run else ""
    for r in reports:
        if not (r.patched or r.restored or r.remaining):
            continue
        _out(f"{r.path}:")
        for line in r.patched:
            _out(f"  {verb}rewrite {line}")
        for line in r.restored:
            _out(f"  {verb}restore {line}")
        for line in r.kept:
            _out(f"  kept the original bytes in {line}")
        for line in r.remaining:
            _out(f"  not repaired: {line}")
    changed = sum(1 for r in reports if r.patched or r.restored)
    _out(f"repair{' (dry run)' if args.dry_run else ''}: {_count(len(reports), 'partition')}, "
         f"{changed} {'would change' if args.dry_run else 'changed'}, "
         f"{sum(1 for r in reports if not r.ok)} with unproven damage left")
    return 0 if all(r.ok for r in reports) else 1
