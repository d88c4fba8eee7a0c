"""Damaged or missing index files (``.index``, ``.timeindex``, ``.txnindex``) are hints, the ``.log`` is the
data: every read must still give the right records, or a typed error — never a wrong answer in silence. And the
Python API, the Python Spark source (``kvlog_python``) and the JVM one (``kvlog_jvm``) must agree.

A differential sweep: a broker-shaped partition (several segments, timestamps that go back a little, and in one
variant an aborted transaction in an inner segment) is written by kvlog and kept intact; each case damages ONE
kind of index file of one segment (the first, an inner one, the last) in a copy, and every read of the copy is
held against answers computed from what was written. An answer is right, a typed error (Python: ``KvlogError``;
Spark: an exception naming the partition's file), or a failure. The engines answering one with rows, the other
with an error, is a disagreement. All of them are gathered and listed when the test fails.

The default run sweeps every case through the Python API and a representative subset through both Spark
engines; ``-m slow`` takes every case through Spark too.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import struct
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from kvlog import LogConfig, Record
from kvlog.errors import KvlogError
from kvlog.log import Log
from kvlog.timestamps import EARLIEST, LATEST, MAX_TIMESTAMP

T0 = 1_700_000_000_000
CFG = LogConfig(segment_bytes=2048, index_interval_bytes=256)
N = 300  # records (about; the transaction variant ends a record or so later)
TXN_AT, TXN_N, PID = 130, 8, 77  # the aborted transaction: offsets 130..137, its ABORT marker at 138
ENTRY = {".index": 8, ".timeindex": 12, ".txnindex": 34}
ENGINES = ("kvlog_python", "kvlog_jvm")
WHERE = ("first", "inner", "last")


def ts_of(i: int) -> int:
    """Timestamps that wander: some jump ahead, the next ones then go back a little."""
    return T0 + i * 10 + (37 if i % 7 == 3 else 0) - (25 if i % 11 == 5 else 0)


# ------------------------------------------------------------------------------------------------ building
@dataclass
class Written:
    """What was written, independent of any read: (offset, key, value, timestamp, kind) per record, kind one of
    "data", "aborted", "marker"."""

    rows: list[tuple[int, bytes, bytes, int, str]]

    def plain(self, committed: bool = False) -> list[tuple[int, bytes, bytes, int]]:
        keep = ("data",) if committed else ("data", "aborted")
        return [r[:4] for r in self.rows if r[4] in keep]

    @property
    def end(self) -> int:
        return self.rows[-1][0] + 1

    def first_at(self, target: int) -> tuple[int, int] | None:
        """Kafka's time search: the first offset (any batch, control ones too) whose timestamp is ≥ target."""
        return next(((r[0], r[3]) for r in self.rows if r[3] >= target), None)

    def max_timestamp(self) -> tuple[int, int]:
        best = max(r[3] for r in self.rows)
        return next((r[0], r[3]) for r in self.rows if r[3] == best)


def build(d: Path, txn: bool) -> Written:
    log = Log.open(d, CFG, time=lambda: T0 + 10**9)
    rows: list[tuple[int, bytes, bytes, int, str]] = []
    i = 0
    while i < N:
        if txn and i == TXN_AT:
            recs = [Record(b"k%d" % j, b"aborted-%d" % j, ts_of(j)) for j in range(i, i + TXN_N)]
            log.append(recs, producer_id=PID, producer_epoch=0, base_sequence=0, is_transactional=True)
            rows += [(j, r.key, r.value, r.timestamp, "aborted") for j, r in zip(range(i, i + TXN_N), recs)]
            # the marker's timestamp is the transaction's first: it is never a time search's answer
            log.end_transaction(PID, 0, commit=False, timestamp=ts_of(TXN_AT))
            rows.append((i + TXN_N, None, None, ts_of(TXN_AT), "marker"))
            i += TXN_N + 1
            continue
        n = 1 + i % 3
        if txn and i < TXN_AT:
            n = min(n, TXN_AT - i)
        recs = [Record(b"k%d" % j, b"value-%d-" % j + b"x" * (j % 13), ts_of(j)) for j in range(i, i + n)]
        log.append(recs)
        rows += [(j, r.key, r.value, r.timestamp, "data") for j, r in zip(range(i, i + n), recs)]
        i += n
    log.close()
    assert log.log_end_offset == rows[-1][0] + 1
    return Written(rows)


def bases_of(d: Path) -> list[int]:
    return sorted(int(p.name[:20]) for p in d.glob("*.log"))


# ------------------------------------------------------------------------------------------------- damage
KINDS = {
    ".index": ["missing", "empty", "zeros", "zeros_k", "first_entry", "garbage", "garbage_ragged",
               "pos_past_end", "offset_past_end", "reversed", "swapped"],
    ".timeindex": ["missing", "empty", "zeros", "zeros_k", "first_entry", "garbage", "garbage_ragged",
                   "ts_huge", "offset_past_end", "reversed"],
    ".txnindex": ["missing", "empty", "zeros", "zeros_k", "garbage", "garbage_ragged", "offset_past_end",
                  "pid_mismatch"],
}


def _entries(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data) - len(data) % size, size)]


def damage(d: Path, base: int, suffix: str, kind: str) -> bool:
    """Damages ``base``'s ``suffix`` file in partition directory ``d``; False when the kind changes nothing."""
    p = d / f"{base:020d}{suffix}"
    if not p.exists():
        return False
    data = p.read_bytes()
    size = ENTRY[suffix]
    bases = bases_of(d)
    nxt = bases[bases.index(base) + 1] if base != bases[-1] else None
    seg_len = (d / f"{base:020d}.log").stat().st_size
    rng = random.Random(base * 1000 + list(ENTRY).index(suffix) * 100 + KINDS[suffix].index(kind))
    es = _entries(data, size)
    if kind == "missing":
        p.unlink()
        return True
    if kind == "empty":
        new = b""
    elif kind == "zeros":  # a preallocated file nobody wrote
        new = bytes(len(data))
    elif kind == "zeros_k":
        new = bytes(size * 8)
    elif kind == "first_entry":  # valid, but short
        new = data[:size]
    elif kind == "garbage":
        new = rng.randbytes(size * 6)
    elif kind == "garbage_ragged":
        new = rng.randbytes(size * 6 + 5)
    elif kind == "reversed":  # non-monotonic entries
        new = b"".join(reversed(es))
    elif kind == "pos_past_end":  # .index: the last entry's position beyond the end of the .log
        rel, _ = struct.unpack(">ii", es[-1])
        new = b"".join(es[:-1]) + struct.pack(">ii", rel, seg_len + 4096)
    elif kind == "offset_past_end" and suffix == ".index":  # an offset far beyond the segment
        _, pos = struct.unpack(">ii", es[-1])
        new = data + struct.pack(">ii", 100_000, pos)
    elif kind == "ts_huge":  # .timeindex: a timestamp no record has, at an offset of the segment
        _, rel = struct.unpack(">qi", es[-1])
        new = data + struct.pack(">qi", 1 << 62, rel)
    elif kind == "offset_past_end" and suffix == ".timeindex":
        ts, _ = struct.unpack(">qi", es[-1])
        new = data + struct.pack(">qi", ts + 1, 100_000)
    elif kind == "offset_past_end":  # .txnindex: one more aborted transaction of the producer, past the log end
        new = data + struct.pack(">hqqqq", 0, PID, 100_000, 100_010, 100_011)
    elif kind == "pid_mismatch":  # .txnindex: the entry names another producer
        v, _, first, last, lso = struct.unpack(">hqqqq", es[0])
        new = struct.pack(">hqqqq", v, PID + 1, first, last, lso) + b"".join(es[1:])
    elif kind == "swapped":  # this segment's .index and its neighbour's trade places
        other = d / f"{(nxt if nxt is not None else bases[-2]):020d}{suffix}"
        new = other.read_bytes()
        other.write_bytes(data)
    else:
        raise AssertionError(kind)
    if new == data:
        return False
    p.write_bytes(new)
    return True


# ------------------------------------------------------------------------------------------------ answers
@dataclass
class Case:
    variant: str  # "plain" or "txn"
    where: str  # "first", "inner", "last", or "intact"
    suffix: str
    kind: str
    base: int = -1

    @property
    def name(self) -> str:
        if self.where == "intact":
            return f"{self.variant}: intact"
        return f"{self.variant}: {self.kind} {self.base:020d}{self.suffix} ({self.where} segment)"


def _rows_of_table(t: Any) -> list[tuple[int, bytes, bytes, int]]:
    import pyarrow as pa

    cols = t.select(["offset", "key", "value"]).to_pydict()
    ts = [us // 1000 for us in t.column("timestamp").cast(pa.int64()).to_pylist()]  # timestamp[us, UTC]
    return list(zip(cols["offset"], cols["key"], cols["value"], ts))


def _rows_of_records(records: Any) -> list[tuple[int, bytes, bytes, int]]:
    return [(r.offset, r.key, r.value, r.timestamp) for r in records]


def _short(v: Any) -> str:
    if isinstance(v, list) and v and isinstance(v[0], tuple):
        return f"{len(v)} rows, offsets {v[0][0]}..{v[-1][0]}"
    return repr(v)[:200]


def _diff(want: Any, got: Any) -> str:
    if isinstance(want, list) and isinstance(got, list):
        extra = sorted({r[0] for r in got} - {r[0] for r in want})[:8]
        lost = sorted({r[0] for r in want} - {r[0] for r in got})[:8]
        first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        return (f"expected {_short(want)}, got {_short(got)}; offsets lost {lost}, extra {extra}; "
                f"first difference at row {first}: expected {want[first] if first < len(want) else None}, "
                f"got {got[first] if first < len(got) else None}")
    return f"expected {_short(want)}, got {_short(got)}"


class Outcome:
    """One operation's result: ("rows", value) or ("error", message); ``verdict`` says ok / error / WRONG."""

    def __init__(self, kind: str, value: Any, verdict: str, detail: str = ""):
        self.kind, self.value, self.verdict, self.detail = kind, value, verdict, detail


def judge(want: Any, call: Callable[[], Any], typed: tuple[type[BaseException], ...],
          names: Callable[[str], bool]) -> Outcome:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a warning is no answer; the value is what counts
            got = call()
    except typed as exc:
        full = str(exc)
        lines = full.splitlines() or [type(exc).__name__]
        # a Spark error's first line names only the call: the kvlog error in it says what was wrong
        msg = next((ln.strip() for ln in lines if re.search(r"kvlog\.errors\.\w+:|io\.kvlog\.\S+:", ln)), lines[0])
        if not names(full):
            return Outcome("error", msg, "WRONG", f"an error that names no file of the partition: "
                                                  f"{type(exc).__name__}: {msg[:400]}")
        return Outcome("error", f"{type(exc).__name__}: {msg[:300]}", "error")
    except Exception as exc:  # noqa: BLE001 - an untyped error is itself a finding
        return Outcome("error", f"{type(exc).__name__}: {exc}", "WRONG",
                       f"untyped error {type(exc).__name__}: {str(exc)[:400]}")
    if got == want:
        return Outcome("rows", got, "ok")
    return Outcome("rows", got, "WRONG", _diff(want, got))


def _names_partition_file(d: Path) -> Callable[[str], bool]:
    names = [f"{b:020d}" for b in bases_of(d)] + [str(d), f"{d.name}:"]  # a file, the directory, "t-0: ..."
    return lambda text: any(n in text for n in names)


@dataclass
class Plan:
    """The targets of one case's reads, chosen around the damaged segment."""

    start: int  # a mid offset for startingOffsets / to_arrow(start)
    stamps: list[int]  # 3 startingTimestamp targets
    targets: list[int]  # offset_for_timestamp targets
    offsets: list[int]  # read(o) offsets
    ranges: list[tuple[int, int]]  # to_arrow ranges


def plan(w: Written, bases: list[int], base: int) -> Plan:
    end = w.end
    nxt = next((b for b in bases if b > base), end)
    mid = min(base + 7, nxt - 1)
    seg_ts = [r[3] for r in w.rows if base <= r[0] < nxt]
    inside = seg_ts[len(seg_ts) // 2] - 3  # a target answered inside the damaged segment
    stamps = [T0 + 1111, inside, ts_of(end - 20)]
    targets = sorted({*range(T0 - 5, ts_of(end - 1) + 60, 230), inside, min(seg_ts), max(seg_ts), max(seg_ts) + 1,
                      T0 + 2999, T0 + 3007, T0 + 3008, T0 + 10**6})
    offsets = sorted({0, 1, base, mid, nxt - 1, min(nxt, end - 1), TXN_AT, TXN_AT + TXN_N, end - 1}
                     | {b for b in bases} | {b - 1 for b in bases if b})
    ranges = [(mid, min(end, mid + 40)), (max(0, base - 5), min(end, nxt + 5)), (0, end)]
    return Plan(mid, stamps, targets, offsets, ranges)


def python_answers(d: Path, w: Written, p: Plan, txn: bool) -> dict[str, Outcome]:
    """Every Python API read of the case, held against what was written."""
    typed = (KvlogError,)
    names = _names_partition_file(d)
    out: dict[str, Outcome] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            log = Log.open(d, read_only=True)
    except Exception:  # noqa: BLE001 - the open itself failed: judged (typed or not) as every read's answer
        out["open"] = judge(None, lambda: Log.open(d, read_only=True).close(), typed, names)
        return out
    try:
        def ts_row(found: Any) -> Any:
            return None if found is None else (found.offset, found.timestamp)

        def from_ts(t: int) -> Any:
            found = log.offset_for_timestamp(t)
            return f"no offset for timestamp {t}" if found is None else _rows_of_table(log.to_arrow(found.offset))

        # the reads Spark makes too (same names): the whole log, from an offset, from a timestamp, committed
        out["rows"] = judge(w.plain(), lambda: _rows_of_records(log.records()), typed, names)
        out[f"rows from {p.start}"] = judge([r for r in w.plain() if r[0] >= p.start],
                                            lambda: _rows_of_table(log.to_arrow(p.start)), typed, names)
        for t in p.stamps:
            first = w.first_at(t)[0]
            out[f"rows from ts {t}"] = judge(
                [r for r in w.plain() if r[0] >= first],
                lambda t=t: from_ts(t), typed, names)
        if txn:
            out["rows read_committed"] = judge(
                w.plain(committed=True),
                lambda: _rows_of_table(log.to_arrow(isolation_level="read_committed")), typed, names)
            out["records read_committed"] = judge(
                w.plain(committed=True),
                lambda: _rows_of_records(log.records(isolation_level="read_committed")), typed, names)
        # the Python API's own
        for o in p.offsets:
            def covering(o: int = o) -> Any:
                b = next(iter(log.read(o).batches()), None)
                return "no batch" if b is None else b.base_offset <= o <= b.last_offset
            out[f"read({o}) covers {o}"] = judge(True, covering, typed, names)
        for t in p.targets:
            out[f"offset_for_timestamp({t})"] = judge(w.first_at(t), lambda t=t: ts_row(log.offset_for_timestamp(t)),
                                                      typed, names)
        out["offset_for_timestamp(MAX_TIMESTAMP)"] = judge(
            w.max_timestamp(), lambda: ts_row(log.offset_for_timestamp(MAX_TIMESTAMP)), typed, names)
        out["offset_for_timestamp(EARLIEST)"] = judge(0, lambda: log.offset_for_timestamp(EARLIEST).offset,
                                                      typed, names)
        out["offset_for_timestamp(LATEST)"] = judge(w.end, lambda: log.offset_for_timestamp(LATEST).offset,
                                                    typed, names)
        for a, b in p.ranges:
            out[f"to_arrow({a}, {b})"] = judge([r for r in w.plain() if a <= r[0] < b],
                                               lambda a=a, b=b: _rows_of_table(log.to_arrow(a, b)), typed, names)
    finally:
        log.close()
    return out


def spark_answers(spark: Any, fmt: str, root: Path, w: Written, p: Plan, txn: bool) -> dict[str, Outcome]:
    from pyspark.sql import functions as F

    names = _names_partition_file(root / "t-0")

    def rows(**opts: str) -> list[tuple[int, bytes, bytes, int]]:
        reader = spark.read.format(fmt).option("subscribe", "t")
        for k, v in opts.items():
            reader = reader.option(k, v)
        df = reader.load(str(root))
        got = sorted(df.select("offset", "key", "value", F.unix_millis("timestamp")).collect(), key=lambda r: r[0])
        return [(r[0], None if r[1] is None else bytes(r[1]), None if r[2] is None else bytes(r[2]), r[3])
                for r in got]

    out = {"rows": judge(w.plain(), rows, (Exception,), names)}
    out[f"rows from {p.start}"] = judge([r for r in w.plain() if r[0] >= p.start],
                                        lambda: rows(startingOffsets=json.dumps({"t": {"0": p.start}})),
                                        (Exception,), names)
    for t in p.stamps:
        first = w.first_at(t)[0]
        out[f"rows from ts {t}"] = judge([r for r in w.plain() if r[0] >= first],
                                         lambda t=t: rows(startingTimestamp=str(t)), (Exception,), names)
    if txn:
        out["rows read_committed"] = judge(w.plain(committed=True),
                                           lambda: rows(**{"kafka.isolation.level": "read_committed"}),
                                           (Exception,), names)
    return out


# ------------------------------------------------------------------------------------------------- sweep
@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, tuple[Path, Written]]:
    """The intact partitions, one per variant, each under its own data directory ``<variant>/t-0``."""
    top = tmp_path_factory.mktemp("index-damage-ref")
    out = {}
    for variant in ("plain", "txn"):
        d = top / variant / "t-0"
        w = build(d, variant == "txn")
        bases = bases_of(d)
        assert len(bases) >= 5
        if variant == "txn":
            inner = inner_base(bases)
            assert (d / f"{inner:020d}.txnindex").exists(), "the aborted transaction's index is in the inner segment"
        out[variant] = (d, w)
    return out


def inner_base(bases: list[int]) -> int:
    """The inner segment: the one holding the aborted transaction (in both variants the one holding 130)."""
    base = max(b for b in bases if b <= TXN_AT)
    assert bases[0] < base < bases[-1]
    return base


def all_cases(written: dict[str, tuple[Path, Written]]) -> list[Case]:
    cases = []
    for variant, (d, _) in written.items():
        cases.append(Case(variant, "intact", "", "none"))
        bases = bases_of(d)
        at = {"first": bases[0], "inner": inner_base(bases), "last": bases[-1]}
        for suffix, kinds in KINDS.items():
            for where in WHERE:
                if not (d / f"{at[where]:020d}{suffix}").exists():
                    continue  # a .txnindex only where a transaction was aborted
                for kind in kinds:
                    cases.append(Case(variant, where, suffix, kind, at[where]))
    return cases


# The Spark subset of the default run (about a minute): every file kind and segment position, the commonest damage
# (a missing or emptied file, zeros, garbage, a bad position) and the kinds on which the readers answered apart.
SPARK_DEFAULT = {  # cases where a reader once went wrong (every copy, the intact ones too: -m slow)
    ("plain", "first", ".index", "swapped"), ("txn", "last", ".index", "swapped"),
    ("plain", "inner", ".timeindex", "first_entry"), ("plain", "inner", ".timeindex", "garbage"),
    ("txn", "inner", ".txnindex", "pid_mismatch"),
}


def make_copy(written: dict[str, tuple[Path, Written]], case: Case, top: Path, n: int) -> Path | None:
    """A damaged copy of the case's variant as a data directory ``top/<n>/t-0``; None when the kind changes
    nothing in this file."""
    src, _ = written[case.variant]
    root = top / f"{n:03d}"
    shutil.copytree(src.parent, root)
    for lock in root.rglob("*.lock"):
        lock.unlink()
    if case.where != "intact" and not damage(root / "t-0", case.base, case.suffix, case.kind):
        shutil.rmtree(root)
        return None
    return root


def _kind(ops: dict[str, Outcome], op: str) -> Outcome | None:
    """A reader's answer to ``op``; a failed open is its answer to every read."""
    return ops.get("open", ops.get(op))


#: Kafka's rule, which the Python readers follow and docs/spark.md states: a segment the recovery point vouches
#: for keeps its ``.txnindex`` as it is, and one without the file has no aborted transaction. A ``.txnindex``
#: dropped, emptied or naming another producer there makes their read_committed keep the aborted records (as a
#: broker's fetch would); the JVM scan replays the markers from the batch headers instead. Held exactly here.
KAFKA_TXN_RULE = {"missing", "empty", "pid_mismatch"}


def kafka_txn_rule(case: Case, who: str, op: str) -> bool:
    return (case.suffix == ".txnindex" and case.kind in KAFKA_TXN_RULE and "read_committed" in op
            and who in ("python API", "kvlog_python"))


def sweep(written: dict[str, tuple[Path, Written]], top: Path, spark: Any, select: Callable[[Case], bool]) -> None:
    kafka_rule: list[str] = []
    wrong: list[str] = []
    disagree: list[str] = []
    errors: list[str] = []
    ran = 0
    for n, case in enumerate(all_cases(written)):
        if not select(case):
            continue
        _, w = written[case.variant]
        root = make_copy(written, case, top, n)
        if root is None:
            continue
        ran += 1
        bases = bases_of(root / "t-0")
        p = plan(w, bases, case.base if case.where != "intact" else inner_base(bases))
        txn = case.variant == "txn"
        spark_root = None
        if spark is not None:  # Spark reads its own copy of the damaged files (a read-only open writes nothing anyway)
            spark_root = top / f"{n:03d}-spark"
            shutil.copytree(root, spark_root)
        answers = {"python API": python_answers(root / "t-0", w, p, txn)}
        if spark is not None:
            for fmt in ENGINES:
                answers[fmt] = spark_answers(spark, fmt, spark_root, w, p, txn)
        for who, ops in answers.items():
            if spark is not None and who == "python API":
                continue  # the Python API's own answers are the other test's; here they are held against Spark's
            for op, o in ops.items():
                if kafka_txn_rule(case, who, op):
                    if o.verdict != "WRONG" or "extra [130, 131, 132, 133, 134, 135, 136, 137]" not in o.detail:
                        wrong.append(f"{case.name} | {who} | {op}: expected Kafka's answer (the aborted records "
                                     f"kept), got {o.verdict}: {o.detail or o.value}")
                    else:
                        kafka_rule.append(f"{case.name} | {who} | {op}")
                elif o.verdict == "WRONG":
                    wrong.append(f"{case.name} | {who} | {op}: {o.detail}")
                elif o.verdict == "error":
                    errors.append(f"{case.name} | {who} | {op}: {o.value}")
        if spark is not None:
            for op in answers["kvlog_jvm"]:
                got = {who: o for who, ops in answers.items() if (o := _kind(ops, op)) is not None}
                if len({o.kind for o in got.values()}) > 1:
                    disagree.append(f"{case.name} | {op}: " + "; ".join(
                        f"{who}: {'rows' if o.kind == 'rows' else o.value}" for who, o in got.items()))
                elif got["kvlog_jvm"].kind == "rows" and len({o.verdict for o in got.values()}) > 1 \
                        and not kafka_txn_rule(case, "kvlog_python", op):
                    # rows from all, right from some only
                    disagree.append(f"{case.name} | {op}: different rows: " + "; ".join(
                        f"{who}: {'right' if o.verdict == 'ok' else 'WRONG'}" for who, o in got.items()))
        shutil.rmtree(root)
        if spark_root is not None:
            shutil.rmtree(spark_root)
    report = [f"{ran} copies read; {len(errors)} typed errors (allowed), {len(wrong)} wrong answers, "
              f"{len(disagree)} disagreements"]
    if wrong:
        report += ["WRONG ANSWERS:"] + wrong
    if disagree:
        report += ["DISAGREEMENTS (the readers' answers differ: rows and an error, or different rows):"] + disagree
    if errors:
        report += ["(typed errors, allowed:)"] + errors
    if kafka_rule:
        report += ["(Kafka's .txnindex rule, held exactly:)"] + kafka_rule
    print("\n".join(report))
    assert not wrong and not disagree, "\n".join(report)


def test_python_api_reads_every_damaged_copy_right_or_raises(written, tmp_path):
    sweep(written, tmp_path, None, lambda c: True)


@pytest.mark.spark
def test_engines_and_python_api_agree_on_damaged_indexes(jvm, written, tmp_path):
    sweep(written, tmp_path, jvm, lambda c: (c.variant, c.where, c.suffix, c.kind) in SPARK_DEFAULT)


@pytest.mark.slow
@pytest.mark.spark
def test_engines_and_python_api_agree_on_every_damaged_index(jvm, written, tmp_path):
    sweep(written, tmp_path, jvm, lambda c: True)
