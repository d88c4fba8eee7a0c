"""Recovery after an unclean stop, with Kafka's own as the reference, on the same damaged input.

Each case is one partition of one topic: a log kvlog wrote (two or three segments; every codec, magic v2,
idempotent and transactional batches, legacy v0/v1), its tail damaged while the broker was stopped: the
last batch cut at a byte position, a bit flipped there, the bytes from there zeroed, zeros or garbage
appended, a stale copy of the last batch appended, a batch of a middle segment damaged, the indexes removed. The broker starts on
it after an unclean stop (no clean-shutdown marker, no recovery points: every segment is recovered) and is
stopped cleanly; kvlog's recovery (a writer's ``Log.open``) runs on a copy of the same input. Then:

- the segments both kept are byte for byte the same, and so are the indexes both rebuilt;
- whatever the broker truncated or deleted, kvlog set aside (``<segment>.log.<position>.quarantined``,
  ``<segment>.log.quarantined``) byte for byte, and nothing else (docs/durability.md: kvlog never deletes
  log bytes; an all-zero tail, which holds no batch, is cut without a copy);
- where they differ on purpose (the fields no CRC covers: an offset that contradicts its neighbours, an
  unknown magic), the difference has exactly the documented shape: the broker keeps the damaged batch
  verbatim, kvlog keeps everything before it and sets the batch aside, and ``kvlog repair`` puts it back
  where the CRC proves the field (magic).

The default run samples the byte positions of the last batch (every 7th plus each header field's edges);
the ``slow`` marker runs every position. One broker start per version holds every case.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from kvlog import Log, LogConfig, MemoryRecords, Record, encode_batch
from kvlog.repair import repair_partition
from tests.kafka_oracle import reference as R
from tests.kafka_oracle.broker import BrokerError

pytestmark = pytest.mark.broker

T0 = 1_700_000_000_000
TOPIC = "rec"
VERSIONS = ("2.8.2", "3.7.2", "4.1.2", "4.4.0")

#: the input formats: (magic, codec, producer); producer "idem" writes idempotent batches, "txn" transactional
#: ones ending with a COMMIT marker (so the last batch is a control batch)
FORMATS: dict[str, tuple[int, str, str]] = {
    "v2-none": (2, "none", ""), "v2-gzip": (2, "gzip", ""), "v2-snappy": (2, "snappy", ""),
    "v2-lz4": (2, "lz4", ""), "v2-zstd": (2, "zstd", ""), "v2-idem": (2, "none", "idem"),
    "v2-txn": (2, "lz4", "txn"), "v1-none": (1, "none", ""), "v1-snappy": (1, "snappy", ""),
    "v1-lz4": (1, "lz4", ""), "v0-none": (0, "none", ""), "v0-gzip": (0, "gzip", ""),
}
#: formats whose last batch every kind damages; the others get bit flips only (their CRC-covered bytes differ)
FULL = ("v2-none", "v1-none", "v0-gzip", "v2-txn")


def write_template(d: Path, fmt: str, segments: int = 2) -> None:
    """A log of ``segments`` segments of three batches of three records each, written by kvlog."""
    magic, codec, producer = FORMATS[fmt]
    with Log.open(d, LogConfig(retention_ms=-1)) as log:
        off, seq = 0, 0
        for s in range(segments):
            if s:
                log.roll()
            for i in range(3):
                recs = [Record(b"k%d" % j, b"value %d.%d %s" % (s * 3 + i, j, b"abc" * (4 + j)), T0 + off + j,
                               headers=((("h", b"%d" % j),) if magic == 2 else ()))
                        for j in range(3)]
                if magic < 2:
                    log.append(encode_batch(recs, magic=magic, base_offset=off, compression=codec),
                               assign_offsets=False)
                elif producer:
                    log.append(recs, compression=codec, producer_id=7, producer_epoch=0, base_sequence=seq,
                               is_transactional=producer == "txn")
                    seq += 3
                    if producer == "txn" and i == 2:
                        log.end_transaction(7, 0, commit=True, timestamp=T0 + off + 3)
                        off += 1
                else:
                    log.append(recs, compression=codec)
                off += 3
        log.flush()


@dataclass(frozen=True)
class Case:
    fmt: str
    kind: str       # cut | flip | zero | no-index | tail-zeros | tail-garbage | tail-stale | middle
    at: int = 0     # byte position in the batch damaged (or bytes appended)

    @property
    def name(self) -> str:
        return f"{self.fmt}/{self.kind}@{self.at}"


def last_batch(data: bytes) -> tuple[int, int]:
    h = MemoryRecords(data).batch_headers(check_crc=False)
    return int(h["position"][-1]), int(h["position"][-1] + h["size"][-1])


def overflows(case: Case) -> bool:
    """A flip in the high half of the offset field puts the batch outside the segment's 32-bit relative range.
    Kafka's recovery then splits the segment, moving the batch into a segment of its own named after the
    damaged offset; for a compressed v0 wrapper (whose inner offsets are absolute) the split fails and the
    broker does not start: a case of its own (test_offset_out_of_range_stops_the_broker)."""
    return case.kind == "flip" and case.at < 4


def stops_the_broker(case: Case) -> bool:
    magic, codec, _ = FORMATS[case.fmt]
    return overflows(case) and magic == 0 and codec != "none"


def unknown_magic(case: Case) -> bool:
    """A v2 batch's magic (outside its CRC) flipped to 3: Kafka's recovery keeps it (its consumers refuse it:
    "Invalid magic found in record: 3"); kvlog sets it aside, and ``kvlog repair`` rewrites the magic the CRC
    proves and puts the batch back."""
    return case.kind == "flip" and case.at == 16 and FORMATS[case.fmt][0] == 2


def contradicts_offsets(case: Case) -> bool:
    """A damage that leaves a CRC-valid batch whose offsets contradict its neighbours: Kafka keeps it as it is,
    kvlog sets it aside (docs/durability.md, "Fields outside the CRC")."""
    return (case.kind == "flip" and case.at < 8) or case.kind == "tail-stale"


def header_size(magic: int) -> int:
    """Bytes of an entry's header (a v2 batch's; a legacy message's, its key length included)."""
    return 61 if magic == 2 else (26 if magic == 0 else 34)


def positions(size: int, magic: int, every: int, kind: str, *, payload_only: bool = False) -> list[int]:
    """Byte positions of a batch to damage: every ``every``-th, plus each header field's edges for flips (every
    header byte matters there) or a few for cuts (a cut anywhere in a batch cuts the whole batch)."""
    head = header_size(magic)
    if payload_only:  # another codec than the full formats': only the compressed bytes differ
        return sorted({p for p in range(head, size, every)} | {size - 1})
    if kind == "flip":
        edges = set(range(0, 13)) | {15, 16, 17, 20, 21, 22, size - 2, size - 1}
        if magic == 2:
            edges |= {23, 26, 27, 30, 31, 38, 39, 46, 47, 48, 53, 56, 57, 60, 61}
    else:
        edges = {0, 1, 11, 12, 16, 17, 21, head - 1, head, size - 1}
    return sorted(p for p in edges | set(range(0, size, every)) if 0 <= p < size)


def middle_batch(files: dict[str, bytes]) -> tuple[str, int, int]:
    """The middle segment's name and the position and size of its middle batch."""
    name = sorted(files)[1]
    h = MemoryRecords(files[name]).batch_headers(check_crc=False)
    k = len(h) // 2
    return name, int(h["position"][k]), int(h["size"][k])


def plan(templates: dict[str, dict[str, bytes]], every: int) -> list[Case]:
    cases: list[Case] = []
    for fmt, files in templates.items():
        magic = FORMATS[fmt][0]
        p, end = last_batch(files[sorted(files)[-1]])
        size = end - p
        for kind in ("cut", "flip", "zero") if fmt in FULL else ("flip",):
            step = every * 2 if kind == "zero" else every  # zeroed from k: a cut at k, preallocated
            for k in positions(size, magic, step, kind, payload_only=fmt not in FULL and every > 1):
                case = Case(fmt, kind, k)
                if not stops_the_broker(case):
                    cases.append(case)
        if fmt in FULL:
            cases += [Case(fmt, "tail-zeros", n) for n in (1, 16, 17, 61, 4096)]
            cases += [Case(fmt, "tail-garbage", n) for n in (1, 17, 61, 300)]
            cases.append(Case(fmt, "tail-stale", 0))
            cases.append(Case(fmt, "no-index", 0))  # nothing damaged, the indexes gone: both rebuild them
            mid = middle_batch(files)[2]
            cases += [Case(fmt, "middle", k) for k in positions(mid, magic, every * 3, "cut") if k >= 8 and k != 16]
    return cases


def damaged(case: Case, files: dict[str, bytes]) -> tuple[dict[str, bytes], int]:
    """The template's ``.log`` files with ``case``'s damage applied, and the position of the damaged batch
    in its segment."""
    out = dict(files)
    names = sorted(out)
    if case.kind == "middle":  # the middle batch of the middle segment
        name, p, _ = middle_batch(out)
        data = bytearray(out[name])
        data[p + case.at] ^= 0x01
        out[name] = bytes(data)
        return out, p
    name = names[-1]
    data = bytearray(out[name])
    p, end = last_batch(bytes(data))
    if case.kind == "cut":
        del data[p + case.at:]
    elif case.kind == "flip":
        data[p + case.at] ^= 0x01
    elif case.kind == "zero":
        data[p + case.at:] = bytes(len(data) - p - case.at)
    elif case.kind == "tail-zeros":
        data += bytes(case.at)
    elif case.kind == "tail-garbage":
        data += random.Random(case.at).randbytes(case.at)
    elif case.kind == "tail-stale":  # a stale copy of the last batch (a write repeated after a torn one)
        data += data[p:end]
        p = end
    out[name] = bytes(data)
    return out, p


@dataclass
class Run:
    cases: list[Case]
    inputs: list[dict[str, bytes]]
    at: list[int]  # where the damaged batch starts in its segment
    broker: list[dict[str, bytes]]
    broker_index: list[dict[str, bytes]]
    kvlog: list[dict[str, bytes]]
    kvlog_index: list[dict[str, bytes]]
    kvlog_aside: list[dict[str, bytes]]
    kvlog_dirs: list[Path]
    log: str


def run(version: str, work: Path, every: int) -> Run:
    dist = R.dist_or_skip(version)
    templates: dict[str, dict[str, bytes]] = {}
    others: dict[str, dict[str, bytes]] = {}
    for fmt in FORMATS:
        d = work / "templates" / f"{fmt.replace('-', '')}-0"
        write_template(d, fmt, segments=3 if fmt in FULL else 2)
        templates[fmt] = R.log_files(d)
        others[fmt] = {f.name: f.read_bytes() for f in d.iterdir()
                       if f.name.endswith((".index", ".timeindex", ".snapshot", ".txnindex"))
                       or f.name == "leader-epoch-checkpoint"}
    cases = plan(templates, every)
    damages = [damaged(c, templates[c.fmt]) for c in cases]
    inputs = [files for files, _ in damages]
    kv = work / "kvlog"

    def write(data: Path) -> None:
        for i, (case, files) in enumerate(zip(cases, inputs)):
            d = data / f"{TOPIC}-{i}"
            for name, content in {**others[case.fmt], **files}.items():
                if case.kind != "no-index" or not name.endswith((".index", ".timeindex")):
                    (d / name).write_bytes(content)
        R.forget_recovery_points(data)
        R.copy_partitions(data, kv)

    with R.broker_on(dist, work / "broker", {TOPIC: (len(cases), {"retention.ms": -1})}, write,
                     unclean=True) as broker:
        pass
    data = broker.data
    out = Run(cases, inputs, [at for _, at in damages], [], [], [], [], [], [], broker.log_text())
    for i in range(len(cases)):
        out.broker.append(R.log_files(data / f"{TOPIC}-{i}"))
        out.broker_index.append(R.index_files(data / f"{TOPIC}-{i}"))
        d = kv / f"{TOPIC}-{i}"
        with Log.open(d, LogConfig(retention_ms=-1)):
            pass
        out.kvlog.append(R.log_files(d))
        out.kvlog_index.append(R.index_files(d))
        out.kvlog_aside.append(R.quarantined(d))
        out.kvlog_dirs.append(d)
    return out


def expected_aside(before: dict[str, bytes], kept: dict[str, bytes]) -> dict[str, bytes]:
    """What kvlog sets aside where the broker truncated or deleted: the bytes cut from each segment (unless all
    zero) and every segment deleted whole."""
    out = {}
    for name, data in before.items():
        if name not in kept:
            out[name + ".quarantined"] = data
        elif len(kept[name]) < len(data):
            assert data.startswith(kept[name]), f"{name}: the broker changed bytes it kept"
            rest = data[len(kept[name]):]
            if rest.count(0) != len(rest):
                out[f"{name}.{len(kept[name])}.quarantined"] = rest
    return out


def check(r: Run) -> list[str]:
    """Every case's difference from the broker that the rules above do not account for."""
    problems = []
    for i, case in enumerate(r.cases):
        before, broker, kept, aside = r.inputs[i], r.broker[i], r.kvlog[i], r.kvlog_aside[i]
        if contradicts_offsets(case) or unknown_magic(case):
            # the broker keeps the damaged batch verbatim; kvlog keeps what precedes it and sets it aside
            last = sorted(before)[-1]
            p = r.at[i]
            want_kept = {**before, last: before[last][:p]}
            want_aside = {f"{last}.{p}.quarantined": before[last][p:]}
            if overflows(case):  # split off into a segment named after the damaged offset, beyond the range
                moved = {n: b for n, b in broker.items() if n not in before}
                ok = (len(moved) == 1 and int(next(iter(moved))[:20]) >= 2**32
                      and {**want_kept, **moved} == broker and list(moved.values()) == [before[last][p:]])
            else:
                ok = broker == before
            if not ok:
                problems.append(f"{case.name}: the broker did not keep the damaged batch as it is: {_sizes(broker)}")
            if (kept, aside) != (want_kept, want_aside):
                problems.append(f"{case.name}: kvlog kept {_sizes(kept)}, set aside {_sizes(aside)}; expected "
                                f"{_sizes(want_kept)} and {_sizes(want_aside)}")
            continue
        if kept != broker:
            problems.append(f"{case.name}: broker kept {_sizes(broker)}, kvlog {_sizes(kept)}")
            continue
        want = expected_aside(before, broker)
        if aside != want:
            problems.append(f"{case.name}: kvlog set aside {_sizes(aside)}, the broker removed {_sizes(want)}")
        if r.kvlog_index[i] != r.broker_index[i]:
            problems.append(f"{case.name}: indexes differ: broker {_sizes(r.broker_index[i])}, "
                            f"kvlog {_sizes(r.kvlog_index[i])}")
    return problems


def _sizes(files: dict[str, bytes]) -> str:
    return "{" + ", ".join(f"{n}: {len(v)} B" for n, v in sorted(files.items())) + "}"


def check_repair(r: Run) -> list[str]:
    """``kvlog repair`` on the deliberate differences puts the batch back exactly where evidence proves the
    damaged field (the CRC proves a magic; a producer snapshot proves an idempotent batch's offsets), with the
    field's true value, and changes nothing where nothing proves it."""
    problems = []
    for i, case in enumerate(r.cases):
        if not unknown_magic(case) and not contradicts_offsets(case):
            continue
        report = repair_partition(str(r.kvlog_dirs[i]))
        after = R.log_files(r.kvlog_dirs[i])
        last = sorted(after)[-1]
        if report.patched:
            true = bytearray(r.inputs[i][last])
            true[r.at[i] + case.at] ^= 0x01  # the bit flipped back
            want = {**r.inputs[i], last: bytes(true)}
            if case.kind != "flip" or after != want or not report.restored:
                problems.append(f"{case.name}: repair gave {_sizes(after)} ({report})")
        elif unknown_magic(case) or (FORMATS[case.fmt][2] == "idem" and case.kind == "flip"):
            problems.append(f"{case.name}: repair did not prove the field ({report})")
        elif after != r.kvlog[i]:
            problems.append(f"{case.name}: repair changed the log without proof ({report})")
    return problems


@pytest.mark.parametrize("version", R.versions(*VERSIONS, group="recovery"))
def test_recovery_keeps_what_the_broker_keeps(version):
    with R.scratch(f"recovery-{version}") as work:
        r = run(version, work, every=7)
        assert len(r.cases) > 300
        assert "Found invalid messages" in r.log or "Corruption found" in r.log  # the broker did recover
        problems = check(r)
        assert problems == [], "\n".join(problems)
        problems = check_repair(r)
        assert problems == [], "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("version", R.versions("4.1.2", "4.4.0", group="recovery-all"))
def test_recovery_keeps_what_the_broker_keeps_every_position(version):
    with R.scratch(f"recovery-all-{version}") as work:
        r = run(version, work, every=1)
        assert check(r) == []
        assert check_repair(r) == []


@pytest.mark.parametrize("version", R.versions("2.8.2", "4.1.2", "4.4.0", group="recovery"))
def test_offset_out_of_range_stops_the_broker(version):
    """A flip in the high half of a compressed v0 wrapper's offset puts it outside the segment's 32-bit relative
    range. Kafka's recovery then splits the segment, fails ("Failed to append records"), and the broker stops
    with a fatal error: there is no broker result to compare, and kvlog sets the batch aside."""
    dist = R.dist_or_skip(version)
    with R.scratch(f"overflow-{version}") as work:
        tpl = work / "tpl" / "t-0"
        case = Case("v0-gzip", "flip", 3)
        assert stops_the_broker(case)
        write_template(tpl, case.fmt)
        files, p = damaged(case, R.log_files(tpl))
        kv = work / "kvlog"

        def write(data: Path) -> None:
            for name, content in files.items():
                (data / f"{TOPIC}-0" / name).write_bytes(content)
            R.copy_partitions(data, kv)

        with pytest.raises(BrokerError) as err:
            with R.broker_on(dist, work / "broker", {TOPIC: (1, {})}, write, unclean=True):
                pass
        assert "overflow" in str(err.value).lower() or "Failed to append records" in str(err.value)
        with Log.open(kv / f"{TOPIC}-0") as log:
            assert log.log_end_offset == 15
        last = sorted(files)[-1]
        assert R.quarantined(kv / f"{TOPIC}-0") == {f"{last}.{p}.quarantined": files[last][p:]}
