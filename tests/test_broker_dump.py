"""``kvlog dump`` prints what Kafka's DumpLogSegments prints for the same files, line for line: every file kind
a broker wrote (``.log``, ``.index``, ``.timeindex``, ``.txnindex``, ``.snapshot``, KRaft ``.checkpoint``),
every decoder flag, on the files of every broker version, after a clean stop and while running.

The reference is the newest Kafka's tool (the one users run on any directory; older tools' output differs
in ways docs/cli.md lists); the deliberate differences are in :func:`normalise`, each with its reason. The
reports the tool prints on stderr after the last file are compared too, on copies of a broker's files whose
indexes were damaged (so there are many to report, in the order of Java's HashMap), and message formats v0/v1,
which no broker here writes, on segments made by kvlog.
"""

from __future__ import annotations

import functools
import random
import re
import shutil
import struct
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


def _run_both(files: list[str], flags: list[str], cwd: Path) -> tuple[dict[str, list[bytes]], dict[str, list[bytes]]]:
    """Kafka's tool and kvlog dump on the same names, from the same working directory."""
    dist = KafkaDist.find(TOOL_VERSION)
    assert dist is not None
    runs = []
    for cmd in (dist.java_cmd(dist.dump_class, "--files", ",".join(files), *flags),
                [sys.executable, "-m", "kvlog", "dump", "--files", ",".join(files), *flags]):
        r = subprocess.run(cmd, capture_output=True, timeout=300, check=False, cwd=cwd)
        assert r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
        runs.append(split(r.stdout, r.stderr))
    return runs[0], runs[1]


def _damage(d: Path, rng: random.Random) -> None:
    """A copy of codec-none-0 (one segment, 3 offset-index and 3 time-index entries) with index entries that
    disagree with its log: positions of earlier batches, timestamps off and out of order, an offset past the
    end, an offset inside a batch."""
    idx, tix = d / "00000000000000000000.index", d / "00000000000000000000.timeindex"
    entries = list(struct.iter_unpack(">ii", idx.read_bytes()))
    stamps = list(struct.iter_unpack(">qi", tix.read_bytes()))
    assert len(entries) == len(stamps) == 3
    for i in rng.sample((1, 2), rng.randrange(1, 3)):  # point at an earlier batch: printed highest offset first
        entries[i] = (entries[i][0], entries[rng.randrange(i)][1])
    kind = rng.randrange(4)
    if kind == 0:
        stamps[1] = (stamps[1][0] - 5, stamps[1][1])  # a timestamp mismatch
    elif kind == 1:
        stamps[2] = (stamps[0][0], stamps[2][1])  # a mismatch and out of order
    elif kind == 2:
        stamps[0] = (stamps[0][0], stamps[0][1] + 1_000_000)  # not in the log: found -1
    else:
        stamps[1] = (stamps[1][0], stamps[1][1] - 1)  # inside a batch: found its last offset
    idx.write_bytes(b"".join(struct.pack(">ii", *e) for e in entries))
    tix.write_bytes(b"".join(struct.pack(">qi", *e) for e in stamps))


def test_reports_of_damaged_indexes_equal_dump_log_segments(tmp_path):
    """The reports DumpLogSegments prints on stderr after the last file (index mismatches, the time-index
    errors, non-consecutive offsets), with enough files that its HashMaps resize, on names given relative to
    the working directory (with ./ and //) and absolute: the same files in the same order, the same lines."""
    src = F.scenario_dir(TOOL_VERSION) / "clean" / "data"
    rng = random.Random(44)
    index_files, log_files = [], []
    for i in range(30):
        d = tmp_path / f"{rng.choice(('orders', 'clicks', 'a', 'x' * 40, 'payments.eu'))}-{i}"
        shutil.copytree(src / "codec-none-0", d)
        _damage(d, rng)
        index_files += [d / "00000000000000000000.index", d / "00000000000000000000.timeindex"]
    for i in range(4):  # five segments each: four start past offset 0 ("-1 is followed by ...")
        d = tmp_path / f"rolled-{i}"
        shutil.copytree(src / "rolled-time-0", d)
        log_files += sorted(d.glob("*.log"))

    def names(paths: list[Path]) -> list[str]:
        return [str(p) if i % 3 == 0 else f"./{p.parent.name}//{p.name}" if i % 3 == 1
                else f"{p.parent.name}/{p.name}" for i, p in enumerate(paths)]

    for files, flags in ((names(index_files), ["--verify-index-only"]), (names(index_files), []),
                         (names(log_files + index_files[::7]), ["--deep-iteration"])):
        want, got = _run_both(files, flags, tmp_path)
        assert "<stderr>" in want
        assert got == want, "\n".join(f"{k}:\n  Kafka: {want.get(k)}\n  kvlog: {got.get(k)}"
                                       for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k))[:6000]


def test_legacy_segments_equal_dump_log_segments(tmp_path):
    """Message formats v0 and v1 (no broker here writes them: a 2.8 broker converts to v2), plain and in
    compressed wrappers, every record printed: its metadata ends "isValid: true crc: N" (the Scala tool of
    4.0-4.2 printed "crc: N}"). The segments start past offset 0 and skip offsets: "-1 is followed by ..."."""
    import kvlog

    files = []
    for magic in (0, 1):
        for codec in ("none", "gzip", "snappy", "lz4") if magic else ("none", "gzip", "snappy"):
            data, offset = b"", 5
            for n in (1, 3, 2):
                recs = [kvlog.Record(b"k%d" % i if i % 2 else None, b"value-%d" % i, 1_700_000_000_000 + i)
                        for i in range(n)]
                data += kvlog.encode_batch(recs, magic=magic, compression=codec, base_offset=offset)
                offset += n + 2
            d = tmp_path / f"v{magic}-{codec}-0"
            d.mkdir()
            (d / "00000000000000000005.log").write_bytes(data)
            files.append(str(d / "00000000000000000005.log"))
    for flags in ([], ["--deep-iteration"], ["--print-data-log"], ["--print-data-log", "--skip-record-metadata"]):
        want, got = _run_both(files, flags, tmp_path)
        assert got == want, "\n".join(f"{k}:\n  Kafka: {want.get(k)}\n  kvlog: {got.get(k)}"
                                       for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k))[:6000]
