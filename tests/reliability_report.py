"""Counts from the reliability sweeps, so the README's figures come from real runs.

Tests call ``record(family, **counts)``; when ``KVLOG_RELIABILITY_REPORT`` names a file (``make soak``
sets it), each call appends one JSON line there, from any xdist worker. ``python -m
tests.reliability_report REPORT [JUNIT_XML]`` adds them up per family, and with pytest's JUnit XML also
counts the kill -9 trials and the tests that passed or failed.
"""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Any

ENV = "KVLOG_RELIABILITY_REPORT"


def record(family: str, **counts: Any) -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    line = json.dumps({"family": family, "test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0], **counts})
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def summarize(report: str, junit: str | None = None) -> dict[str, dict[str, Any]]:
    totals: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    lines = Path(report).read_text().splitlines() if os.path.exists(report) else []
    for line in lines:
        entry = json.loads(line)
        fam = totals[entry.pop("family")]
        entry.pop("test", None)
        fam["runs"] += 1
        for key, value in entry.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            fam[key] = max(fam[key], value) if key.startswith("max_") else fam[key] + value
    if junit:
        root = ET.parse(junit).getroot()
        cases = list(root.iter("testcase"))
        outcome = totals["pytest"]
        for case in cases:
            failed = any(child.tag in ("failure", "error") for child in case)
            skipped = any(child.tag == "skipped" for child in case)
            outcome["failed" if failed else "skipped" if skipped else "passed"] += 1
            name = case.get("name", "")
            if name.startswith("test_kill_writer") and not failed and not skipped:
                totals["kill9"]["trials"] += 1  # test_crash_kill.py: 2 kills per trial, 4 in the long ones
                totals["kill9"]["kills"] += 4 if name.startswith("test_kill_writer_long") else 2
        outcome["seconds"] = round(sum(float(c.get("time", 0)) for c in cases))
    return {k: dict(v) for k, v in totals.items()}


if __name__ == "__main__":
    for family, counts in sorted(summarize(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None).items()):
        print(f"{family:<16} " + ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v}"
                                         for k, v in sorted(counts.items())))
