"""``kvlog dump`` prints what Kafka's DumpLogSegments prints for the same files, line for line: every file kind
a broker wrote (``.log``, ``.index``, ``.timeindex``, ``.txnindex``, ``.snapshot``, KRaft ``.checkpoint``),
every decoder flag, on the files of every broker version, after a clean stop and while running.

The reference is the newest Kafka's tool (the one users run on any directory; older tools' output differs
in ways docs/cli.md lists); the deliberate differences are in :func:`normalise`, each with its reason.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kafka_oracle import fixtures as F
from tests.kafka_oracle.broker import VERSIONS, KafkaDist, version_tuple

pytestmark = pytest.mark.broker

TOOL_VERSION = VERSIONS[-1]

#: (name, DumpLogSegments flags, which partition directories' files, which file suffixes)
RUNS = [
    ("plain", [], "data", (".log", ".index", ".timeindex", ".txnindex", ".snapshot")),
    ("deep", ["--deep-iteration", "--print-data-log"], "data", (".log",)),
    ("skip-metadata", ["--deep-iteration", "--print-data-log", "--skip-record-metadata"], "data", (".log",)),
    ("index-sanity", ["--index-sanity-check"], "data", (".index", ".timeindex")),
    ("verify-index", ["--verify-index-only"], "data", (".index", ".timeindex")),
    ("offsets", ["--offsets-decoder"], "__consumer_offsets", (".log",)),
    ("transactions", ["--transaction-log-decoder"], "__transaction_state", (".log",)),
    ("remote-log-metadata", ["--remote-log-metadata-decoder"], "__remote_log_metadata", (".log",)),
    ("share-group-state", ["--share-group-state-decoder"], "__share_group_state", (".log",)),
    ("cluster-metadata", ["--cluster-metadata-decoder"], "__cluster_metadata", (".log", ".checkpoint")),
]


def files_for(version: str, state: str, which: str, suffixes: tuple[str, ...]) -> list[Path]:
    root = F.scenario_dir(version) / state
    if which == "__cluster_metadata":
        dirs = [root / "meta" / "__cluster_metadata-0"]
    elif which == "data":  # partition directories (not remote-log-index-cache/ of a tiering broker)
        dirs = [p for p in sorted((root / "data").iterdir())
                if p.is_dir() and not p.name.startswith("__") and PARTITION_DIR.match(p.name)]
    else:
        dirs = sorted((root / "data").glob(f"{which}-*"))
    return [f for d in dirs if d.is_dir() for f in sorted(d.iterdir()) if f.suffix in suffixes]


_LOG_LINE = re.compile(rb"^\d+ \[[^]]*\] (TRACE|DEBUG|INFO|WARN|ERROR) ")


def stderr_lines(err: bytes) -> list[bytes]:
    """What a dump reports on stderr (index mismatches), without the JVM's log lines."""
    return [line for line in err.split(b"\n") if line and not _LOG_LINE.match(line)]


def split(output: bytes, err: bytes = b"") -> dict[str, list[bytes]]:
    """A dump's lines per file ("Dumping <path>" starts each); stderr's report under "<stderr>"."""
    out: dict[str, list[bytes]] = {}
    current: list[bytes] | None = None
    for line in output.split(b"\n"):
        if line.startswith(b"Dumping "):
            current = out.setdefault(line[8:].decode(), [])
        elif current is not None:
            current.append(line)
    for lines in out.values():
        while lines and not lines[-1]:
            lines.pop()
    if stderr_lines(err):
        out["<stderr>"] = stderr_lines(err)
    return out


@functools.lru_cache(maxsize=None)
def kafka_dump(version: str, state: str, run: str) -> dict[str, list[bytes]]:
    name, flags, which, suffixes = next(r for r in RUNS if r[0] == run)
    files = files_for(version, state, which, suffixes)
    if not files:
        return {}
    dist = KafkaDist.find(TOOL_VERSION)
    assert dist is not None
    r = subprocess.run(dist.java_cmd(dist.dump_class, "--files", ",".join(map(str, files)), *flags),
                       capture_output=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
    return split(r.stdout, r.stderr)


def kvlog_dump(version: str, state: str, run: str) -> dict[str, list[bytes]]:
    name, flags, which, suffixes = next(r for r in RUNS if r[0] == run)
    files = files_for(version, state, which, suffixes)
    if not files:
        return {}
    r = subprocess.run([sys.executable, "-m", "kvlog", "dump", "--files", ",".join(map(str, files)), *flags],
                       capture_output=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
    return split(r.stdout, r.stderr)


PARTITION_DIR = re.compile(r"^.+-\d+$")


def normalise(line: bytes) -> bytes:
    """Deliberate differences, each written down in docs/cli.md#dump."""
    return line


def differences(version: str, state: str, run: str) -> list[str]:
    want = kafka_dump(version, state, run)
    got = kvlog_dump(version, state, run)
    out = []
    for path in sorted(set(want) | set(got)):
        w = [normalise(x) for x in want.get(path, [])]
        g = [normalise(x) for x in got.get(path, [])]
        if w == g:
            continue
        if path not in got or path not in want:
            out.append(f"{path}: only in {'Kafka' if path in want else 'kvlog'}'s dump")
            continue
        for i, (a, b) in enumerate(zip(w, g)):
            if a != b:
                out.append(f"{path} line {i + 1}:\n  Kafka: {a[:300]!r}\n  kvlog: {b[:300]!r}")
                break
        else:
            out.append(f"{path}: Kafka printed {len(w)} lines, kvlog {len(g)}; first extra: "
                       f"{(w[len(g)] if len(w) > len(g) else g[len(w)])[:300]!r}")
    return out


def applicable(version: str, which: str) -> bool:
    """Whether a version's broker writes the files a run reads."""
    v = version_tuple(version)
    return {"__cluster_metadata": v >= (4, 0), "__share_group_state": v >= (4, 1),
            "__remote_log_metadata": v >= (3, 6)}.get(which, True)


@pytest.mark.parametrize("version,run", [pytest.param(v, r, id=f"kafka-{v}-{r[0]}") for v in VERSIONS for r in RUNS
                                         if applicable(v, r[2])])
def test_dump_equals_dump_log_segments(version, run):
    """After a clean stop: every file kind and decoder flag."""
    assert files_for(version, "clean", run[2], run[3])
    found = differences(version, "clean", run[0])
    assert not found, f"{len(found)} files differ:\n" + "\n".join(found[:15])


@pytest.mark.parametrize("run", [pytest.param(r, id=r[0]) for r in RUNS if r[0] in ("deep", "skip-metadata")])
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_dump_of_a_running_broker_equals_dump_log_segments(version, run):
    """While the broker runs: its segments, open ones too. (Its preallocated indexes are not compared: Kafka's
    tool fails on them, NoSuchElementException, or with --index-sanity-check CorruptIndexException "the last
    timestamp is 0", where kvlog reads them as empty: docs/cli.md.)"""
    found = differences(version, "running", run[0])
    assert not found, f"{len(found)} files differ:\n" + "\n".join(found[:15])
