"""Consumer groups restored exactly (``kvlog.backup.groups``): offsets at a backup's cut against an
independent replay written here, clamping, the reset files Kafka's tool reads, and ``__consumer_offsets``
partitions read back by kvlog and by two peer record readers (aiokafka, kafka-python)."""

import base64
import os
import pathlib
import random
import shutil
import struct
import subprocess
import tempfile
import uuid

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvlog
from kvlog import Log, Record
from kvlog.backup.groups import (
    clamp,
    coordinator_partition,
    group_offsets_at_cut,
    group_offsets_schema,
    java_string_hash,
    reset_file_names,
    write_offsets_partitions,
    write_reset_csv,
)
from kvlog.errors import ConfigError, KvlogError
from kvlog.internal_topics.cluster_metadata import topic_id_text
from kvlog.internal_topics.decoders import UnknownSchemaError, encode_coordinator_record
from tests.oracles import peer_decode

T0 = 1_700_000_000_000
CO = "__consumer_offsets"
ODD = 'Grüppe, "x"\n😀'   # a group id no file name or CSV field could hold as it is


# ================================================================== a source __consumer_offsets
class Source:
    """``__consumer_offsets`` partitions written event by event, the events kept for the oracle.

    Events of a partition, in append order: ``("plain", entries)``, ``("txn", pid, entries)``,
    ``("marker", pid, commit, ts)``. An entry is ``((group, topic, partition), value or None, ts)`` with
    ``value = (offset, leader epoch, metadata, commit ts, value version)``, or ``(group, alive, ts)``
    for a group metadata record (which changes no offset).
    """

    def __init__(self, root):
        self.root = root
        self.events = {}
        self._logs = {}
        self._seq = {}

    def _log(self, n):
        if n not in self._logs:
            self._logs[n] = Log.open(os.path.join(self.root, f"{CO}-{n}"))
        return self._logs[n]

    @staticmethod
    def _record(entry):
        if isinstance(entry[0], str):
            group, alive, ts = entry
            value = {"protocolType": "consumer", "generation": 1, "protocol": "range", "leader": "m",
                     "currentStateTimestamp": ts, "members": []}
            k, v = encode_coordinator_record(CO, 2, {"group": group}, 3, value if alive else None)
            return Record(k, v, ts)
        (g, t, p), value, ts = entry
        key = {"group": g, "topic": t, "partition": p}
        if value is None:
            k, v = encode_coordinator_record(CO, 1, key)
            return Record(k, None, ts)
        offset, epoch, metadata, commit_ts, version = value
        fields = {"offset": offset, "leaderEpoch": epoch, "metadata": metadata, "commitTimestamp": commit_ts}
        if version == 1:
            fields["expireTimestamp"] = commit_ts + 86_400_000
        k, v = encode_coordinator_record(CO, 1, key, version, fields)
        return Record(k, v, ts)

    def plain(self, n, *entries):
        self._log(n).append([self._record(e) for e in entries])
        self.events.setdefault(n, []).append(("plain", entries))

    def txn(self, n, pid, *entries):
        seq = self._seq.get(pid, 0)
        self._log(n).append([self._record(e) for e in entries], producer_id=pid, producer_epoch=0,
                            base_sequence=seq, is_transactional=True)
        self._seq[pid] = seq + len(entries)
        self.events.setdefault(n, []).append(("txn", pid, entries))

    def marker(self, n, pid, commit, ts):
        self._log(n).end_transaction(pid, 0, commit, timestamp=ts)
        self.events.setdefault(n, []).append(("marker", pid, commit, ts))

    def close(self):
        for log in self._logs.values():
            log.close()


def oracle(events, as_of, log_ranges, groups=None, topics=None):
    """The offsets at the cut, by a dict replay in record order (Kafka 4.x's rules, written out
    independently of kvlog's replay): rows as ``group_offsets_at_cut`` gives them."""
    state = {}
    for n in sorted(events):
        committed, pending, order = {}, {}, 0
        for ev in events[n]:
            if ev[0] == "marker":
                _, pid, commit, ts = ev
                order += 1
                if as_of is not None and ts > as_of:
                    continue
                done = pending.pop(pid, {})
                if commit:
                    for gtp, (value, o) in done.items():
                        if gtp not in committed or committed[gtp][1] < o:
                            committed[gtp] = (value, o)
                continue
            pid = ev[1] if ev[0] == "txn" else None
            for entry in ev[-1]:
                order += 1
                if isinstance(entry[0], str):
                    continue
                gtp, value, ts = entry
                if as_of is not None and ts > as_of:
                    continue
                if value is None:                       # a tombstone also clears pending commits
                    committed.pop(gtp, None)
                    for p in pending.values():
                        p.pop(gtp, None)
                elif pid is None:
                    committed[gtp] = (value, order)
                else:
                    pending.setdefault(pid, {})[gtp] = (value, order)
        state.update({gtp: v for gtp, (v, _) in committed.items()})
    rows = []
    for (g, t, p), (offset, epoch, metadata, commit_ts, version) in sorted(state.items()):
        if (t, p) not in log_ranges or (groups is not None and g not in groups) or \
                (topics is not None and t not in topics):
            continue
        start, end = log_ranges[(t, p)]
        got = start if offset < start else end if offset > end else offset
        rows.append({"group": g, "topic": t, "partition": p, "offset": got, "original_offset": offset,
                     "clamped": got != offset, "leader_epoch": epoch if version >= 3 and epoch >= 0 else None,
                     "metadata": metadata, "commit_timestamp": commit_ts, "topic_id": None})
    return rows


def as_rows(table):
    ms = table.column("commit_timestamp").cast(pa.int64()).to_pylist()
    rows = table.drop_columns(["commit_timestamp"]).to_pylist()
    for r, m in zip(rows, ms):
        r["commit_timestamp"] = m
    return rows


def v(offset, ts, *, epoch=5, metadata="", version=3):
    return (offset, epoch, metadata, ts, version)


CUT = T0 + 10
RANGES = {("t", 0): (0, 100), ("t", 1): (0, 100), ("u", 0): (3, 50)}


def build(root):
    """The scenario every test below reads: 3 ``__consumer_offsets`` partitions, each group in the one
    its coordinator uses."""
    s = Source(str(root))
    p = {g: coordinator_partition(g, 3) for g in ("g1", "g2", "g3", "g4", "dead", "late", ODD)}
    s.plain(p["g1"], (("g1", "t", 0), v(10, T0), T0), (("g1", "t", 1), v(20, T0, version=1), T0),
            (("g1", "other", 0), v(4, T0), T0), (("g1", "t", 7), v(4, T0), T0))  # not restored
    s.txn(p["g1"], 7, (("g1", "t", 0), v(50, T0 + 1, metadata="txn"), T0 + 1))
    s.txn(p["g1"], 8, (("g1", "t", 1), v(60, T0 + 2), T0 + 2))
    s.marker(p["g1"], 7, True, T0 + 3)      # committed before the cut: counts
    s.marker(p["g1"], 8, False, T0 + 4)     # aborted: g1 t-1 stays 20
    s.plain(p["g2"], (("g2", "t", 0), v(30, T0, version=0), T0), (("g2", "t", 1), v(999, T0 + 1), T0 + 1),
            (("g2", "u", 0), v(1, T0 + 2), T0 + 2))  # 999 > end 100, 1 < start 3: clamped
    s.txn(p["g2"], 9, (("g2", "t", 0), v(70, T0 + 5), T0 + 5))
    s.marker(p["g2"], 9, True, T0 + 20)     # committed after the cut: only in the full backup
    s.txn(p["g3"], 10, (("g3", "u", 0), v(5, T0 + 6), T0 + 6))
    s.plain(p["g3"], (("g3", "u", 0), None, T0 + 7))   # OffsetDelete while the transaction is open
    s.marker(p["g3"], 10, True, T0 + 8)
    s.txn(p["g4"], 11, (("g4", "t", 0), v(40, T0 + 1), T0 + 1))
    s.plain(p["g4"], (("g4", "t", 0), v(41, T0 + 2, epoch=-1), T0 + 2))  # a newer plain commit wins
    s.marker(p["g4"], 11, True, T0 + 3)
    s.plain(p["dead"], ("dead", True, T0), (("dead", "t", 0), v(9, T0), T0), (("dead", "u", 0), v(9, T0), T0))
    s.plain(p["dead"], (("dead", "t", 0), None, T0 + 9), (("dead", "u", 0), None, T0 + 9), ("dead", False, T0 + 9))
    s.plain(p["late"], (("late", "t", 0), v(77, T0 + 15), T0 + 15))
    s.plain(p[ODD], ((ODD, "t", 0), v(12, T0 + 1, metadata="ünï"), T0 + 1), ((ODD, "u", 0), v(60, T0 + 1), T0 + 1))
    s.close()
    return s


@pytest.fixture
def source(tmp_path):
    return build(tmp_path / "src")


# ============================================================================= offsets at the cut
def test_offsets_at_the_cut_follow_commits_markers_tombstones_and_clamp(source):
    table = group_offsets_at_cut(source.root, as_of=CUT, log_ranges=RANGES)
    assert table.schema == group_offsets_schema()
    got = {(r["group"], r["topic"], r["partition"]): r for r in as_rows(table)}
    assert got[("g1", "t", 0)]["offset"] == 50 and got[("g1", "t", 0)]["metadata"] == "txn"
    assert got[("g1", "t", 1)]["offset"] == 20                    # the aborted 60 never counted
    assert got[("g2", "t", 0)]["offset"] == 30                    # its marker is after the cut
    assert got[("g2", "t", 0)]["leader_epoch"] is None            # a v0 value has no epoch
    assert (got[("g2", "t", 1)]["offset"], got[("g2", "t", 1)]["original_offset"], got[("g2", "t", 1)]["clamped"]) \
        == (100, 999, True)
    assert (got[("g2", "u", 0)]["offset"], got[("g2", "u", 0)]["clamped"]) == (3, True)
    assert ("g3", "u", 0) not in got                              # deleted while pending: stays deleted
    assert got[("g4", "t", 0)]["offset"] == 41 and got[("g4", "t", 0)]["leader_epoch"] is None
    assert not any(g in ("dead", "late") for g, _, _ in got)
    assert not any(t == "other" or (t, p) == ("t", 7) for _, t, p in got)   # not restored: dropped
    assert got[(ODD, "t", 0)]["metadata"] == "ünï"
    assert as_rows(table) == oracle(source.events, CUT, RANGES)
    full = group_offsets_at_cut(source.root, as_of=None, log_ranges=RANGES)
    assert as_rows(full) == oracle(source.events, None, RANGES)
    assert {(r["group"], r["offset"]) for r in as_rows(full) if (r["topic"], r["partition"]) == ("t", 0)} >= \
        {("g2", 70), ("late", 77)}


def test_kvlogs_plain_replay_differs_only_where_the_4x_coordinator_does(source):
    """consumer_offsets() keeps a pending commit through a tombstone (the 3.x loader's rule); the
    group restore follows 4.x OffsetMetadataManager.replay, which drops it."""
    old = kvlog.consumer_offsets(source.root, as_of=CUT)
    assert ("g3", "u", 0, 5) in [(r["group"], r["topic"], r["partition"], r["committed_offset"])
                                 for r in old.to_pylist()]
    new = group_offsets_at_cut(source.root, as_of=CUT, log_ranges=RANGES)
    assert "g3" not in new.column("group").to_pylist()


def test_groups_and_topics_filters(source):
    table = group_offsets_at_cut(source.root, as_of=CUT, log_ranges=RANGES, groups=["g2", ODD], topics=["u"])
    assert as_rows(table) == oracle(source.events, CUT, RANGES, groups={"g2", ODD}, topics={"u"})
    assert {(r["group"], r["topic"]) for r in as_rows(table)} == {("g2", "u"), (ODD, "u")}


def test_no_offsets_topic_gives_an_empty_table_and_bad_ranges_are_refused(tmp_path, source):
    (tmp_path / "empty").mkdir()
    assert group_offsets_at_cut(tmp_path / "empty", as_of=None, log_ranges=RANGES).num_rows == 0
    with pytest.raises(ConfigError, match="t-0"):
        group_offsets_at_cut(source.root, as_of=None, log_ranges={("t", 0): (5, 4)})
    with pytest.raises(ConfigError, match="log_ranges"):
        group_offsets_at_cut(source.root, as_of=None, log_ranges={"t": (0, 4)})
    with pytest.raises(ConfigError, match="log_ranges keys"):
        group_offsets_at_cut(source.root, as_of=None, log_ranges={("t", "0"): (0, 4)})


def test_a_group_left_in_two_offsets_partitions_needs_the_source_count(tmp_path):
    s = Source(str(tmp_path))
    home = coordinator_partition("g", 4)
    s.plain(home, (("g", "t", 0), v(8, T0), T0))
    s.plain((home + 1) % 4, (("g", "t", 0), v(3, T0), T0), (("g", "t", 1), v(3, T0), T0))  # a stale copy
    s.close()
    ranges = {("t", 0): (0, 10), ("t", 1): (0, 10)}
    with pytest.raises(KvlogError, match="source_num_partitions"):
        group_offsets_at_cut(tmp_path, as_of=None, log_ranges=ranges)
    table = group_offsets_at_cut(tmp_path, as_of=None, log_ranges=ranges, source_num_partitions=4)
    assert [(r["partition"], r["offset"]) for r in as_rows(table)] == [(0, 8)]


def test_an_offset_commit_version_the_tables_do_not_know_stops_the_restore(tmp_path):
    key, _ = encode_coordinator_record(CO, 1, {"group": "g", "topic": "t", "partition": 0})
    future = struct.pack(">hqi", 5, 42, -1) + b"\x01" + struct.pack(">q", T0) + b"\x00"  # "version 5"
    with Log.open(tmp_path / f"{CO}-0") as log:
        log.append([Record(key, future, T0)])
    with pytest.raises(UnknownSchemaError, match="OffsetCommitValue"):
        group_offsets_at_cut(tmp_path, as_of=None, log_ranges={("t", 0): (0, 100)})


# hypothesis: random histories of one offsets partition, a random cut and random restored ranges
_GTPS = [("a", "t", 0), ("a", "t", 1), ("b", "t", 0), ("b", "u", 0)]   # few, so histories collide
_entry = st.tuples(st.sampled_from(_GTPS), st.one_of(st.none(), st.tuples(
    st.integers(0, 60), st.integers(-1, 3), st.sampled_from(["", "m"]), st.just(0), st.sampled_from([0, 1, 3]))),
    st.integers(0, 12))
_event = st.one_of(
    st.tuples(st.just("plain"), st.lists(_entry, min_size=1, max_size=3)),
    st.tuples(st.just("txn"), st.sampled_from([7, 8]),
              st.lists(_entry.filter(lambda e: e[1] is not None), min_size=1, max_size=2)),
    st.tuples(st.just("marker"), st.sampled_from([7, 8]), st.booleans(), st.integers(0, 12)),
)
_range = st.tuples(st.integers(0, 40), st.integers(0, 30)).map(lambda r: (r[0], r[0] + r[1]))


@settings(max_examples=40)
@given(st.lists(_event, min_size=1, max_size=10), st.one_of(st.none(), st.integers(-1, 13)),
       st.dictionaries(st.sampled_from([("t", 0), ("t", 1), ("u", 0)]), _range))
def test_cut_and_clamp_agree_with_the_oracle(events, cut, ranges):
    with tempfile.TemporaryDirectory() as root:
        s = Source(root)
        for ev in events:
            if ev[0] == "plain":
                s.plain(0, *[(gtp, None if val is None else (*val[:3], T0 + ts, val[4]), T0 + ts)
                             for gtp, val, ts in ev[1]])
            elif ev[0] == "txn":
                s.txn(0, ev[1], *[(gtp, (*val[:3], T0 + ts, val[4]), T0 + ts) for gtp, val, ts in ev[2]])
            else:
                s.marker(0, ev[1], ev[2], T0 + ev[3])
        s.close()
        as_of = None if cut is None else T0 + cut
        table = group_offsets_at_cut(root, as_of=as_of, log_ranges=ranges)
        assert as_rows(table) == oracle(s.events, as_of, ranges)
        for r in as_rows(table):
            start, end = ranges[(r["topic"], r["partition"])]
            assert start <= r["offset"] <= end
            assert r["clamped"] == (r["offset"] != r["original_offset"])


@given(st.integers(-5, 200), st.integers(0, 100), st.integers(0, 100))
def test_clamp_keeps_offsets_in_range_and_moves_only_those_outside(offset, a, b):
    start, end = min(a, b), max(a, b)
    got = clamp(offset, start, end)
    assert start <= got <= end
    assert (got == offset) == (start <= offset <= end)
    assert got == (start if offset < start else end if offset > end else offset)


# ========================================================================== group → partition
# Computed once with OpenJDK 17.0.15 (String.hashCode, then Utils.abs(h) % 50 and % 7).
JAVA_HASHES = [
    ("", 0, 0, 0), ("a", 97, 47, 6), ("my-group", -1906497762, 12, 1),
    ("polygenelubricants", -2147483648, 0, 0),   # Integer.MIN_VALUE: Utils.abs gives 0
    ("consumer-group-1", 147483020, 20, 6), ("Ünïcödé-grøup", 1187607504, 4, 6),
    ("😀-emoji", -1200436388, 38, 4),              # a surrogate pair: two UTF-16 units
    ("GROUP with spaces, commas", -327544520, 20, 2), ("x" * 300, -1757771264, 14, 4),
    ("orders-service", 23943117, 17, 2),
]


@pytest.mark.parametrize("text,h,p50,p7", JAVA_HASHES)
def test_java_hash_code_and_partition_match_values_computed_with_java(text, h, p50, p7):
    assert java_string_hash(text) == h
    assert (coordinator_partition(text, 50), coordinator_partition(text, 7)) == (p50, p7)


JAVA_PROGRAM = """
public class GroupPartitions {
    public static void main(String[] args) throws Exception {
        java.io.BufferedReader in = new java.io.BufferedReader(
            new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String s = new String(java.util.Base64.getDecoder().decode(line), java.nio.charset.StandardCharsets.UTF_8);
            int h = s.hashCode();
            System.out.println(h + " " + ((h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % 50));
        }
    }
}
"""


def test_java_hash_code_against_a_live_jvm(tmp_path):
    java = shutil.which("java")
    if java is None or shutil.which("javac") is None:  # the source launcher needs a JDK
        pytest.skip("no JDK on PATH (the table test above holds values computed with Java 17)")
    rng = random.Random(28)
    alphabet = "abcXYZ09-_.,:/ é€ü\u4e2d\U0001F600\U00010348"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(300)]
    src = tmp_path / "GroupPartitions.java"
    src.write_text(JAVA_PROGRAM)
    lines = "".join(base64.b64encode(t.encode()).decode() + "\n" for t in texts)
    out = subprocess.run([java, str(src)], input=lines, capture_output=True, text=True, timeout=120, check=True)
    want = [tuple(map(int, line.split())) for line in out.stdout.splitlines()]
    assert [(java_string_hash(t), coordinator_partition(t, 50)) for t in texts] == want


def test_partition_count_must_be_positive():
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ConfigError):
            coordinator_partition("g", bad)


# =============================================================================== reset files
def tool_reads(text, group):
    """ConsumerGroupCommand.parseResetPlan with one --group: lines split on \\n (Java's split drops
    trailing empty strings); a first line that reads as ``topic,partition,offset`` selects the
    no-group format for the whole file."""
    lines = text.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    plan = {}
    for line in lines:
        topic, partition, offset = line.split(",")
        assert topic and all(c.isalnum() or c in "._-" for c in topic)  # never needs CSV quoting
        plan[(topic, int(partition))] = int(offset)
    return {group: plan}


def test_reset_files_one_per_group_in_the_tools_no_group_format(source, tmp_path):
    table = group_offsets_at_cut(source.root, as_of=CUT, log_ranges=RANGES)
    out = tmp_path / "reset"
    paths = write_reset_csv(table, out)
    names = reset_file_names(table.column("group").to_pylist())
    groups = sorted(set(table.column("group").to_pylist()))
    assert paths == [str(out / names[g]) for g in groups]
    assert (out / names["g2"]).read_bytes() == b"t,0,30\nt,1,100\nu,0,3\n"   # clamped offsets, no header
    assert (out / names["g1"]).read_bytes() == b"t,0,50\nt,1,20\n"
    for g in groups:
        want = {(r["topic"], r["partition"]): r["offset"] for r in as_rows(table) if r["group"] == g}
        assert tool_reads((out / names[g]).read_text(), g) == {g: want}
    assert sorted(os.listdir(out)) == sorted([*names.values(), "reset-offsets.sh"])  # no temporary files left


def test_reset_file_names_are_safe_for_any_group_id():
    ids = ["orders", "Orders", "a/b", "../x", ".hidden", "-rf", "", ODD, "%41", "A", "a", "é" * 200, "x\0y"]
    names = reset_file_names(ids)
    assert names["orders"] == "orders~" + names["orders"][7:23] + ".csv" and names["a/b"] == "a%2Fb.csv"
    assert names["../x"] == "%2E.%2Fx.csv" and names[".hidden"] == "%2Ehidden.csv" and names["-rf"] == "%2Drf.csv"
    assert names["%41"] == "%2541.csv"
    assert len({n.lower() for n in names.values()}) == len(ids)   # distinct even without case
    for name in names.values():
        assert "/" not in name and "\0" not in name and not name.startswith((".", "-")) and len(name) <= 220
        assert all(c.isascii() and (c.isalnum() or c in "%._-~") for c in name)
    assert reset_file_names(["solo"]) == {"solo": "solo.csv"}


def test_the_reset_script_hands_every_group_id_to_the_tool_intact(source, tmp_path):
    if shutil.which("sh") is None:
        pytest.skip("no sh")
    table = group_offsets_at_cut(source.root, as_of=CUT, log_ranges=RANGES)
    out = tmp_path / "reset"
    write_reset_csv(table, out)
    calls = tmp_path / "calls"
    fake = tmp_path / "fake-tool"
    fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done >> "$CALLS"\nprintf "\\n" >> "$CALLS"\n')
    fake.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "BOOTSTRAP": "localhost:9092",
           "KAFKA_CONSUMER_GROUPS": str(fake), "CALLS": str(calls)}
    subprocess.run(["sh", str(out / "reset-offsets.sh"), "--execute"], env=env, check=True, timeout=60)
    got = {}
    for line in calls.read_bytes().split(b"\0\n"):
        if not line:
            continue
        args = [a.decode() for a in line.split(b"\0")]
        assert args[:2] == ["--bootstrap-server", "localhost:9092"] and args[2] == "--group"
        assert args[4:6] == ["--reset-offsets", "--from-file"] and args[7] == "--execute"
        got[args[3]] = tool_reads(pathlib.Path(args[6]).read_text(encoding="utf-8"), args[3])[args[3]]
    want = {}
    for r in as_rows(table):
        want.setdefault(r["group"], {})[(r["topic"], r["partition"])] = r["offset"]
    assert got == want and ODD in got


def test_reset_files_refuse_a_table_without_the_columns(tmp_path):
    with pytest.raises(ConfigError, match="offset"):
        write_reset_csv(pa.table({"group": ["g"], "topic": ["t"], "partition": [0]}), tmp_path)
    dup = pa.table({"group": ["g", "g"], "topic": ["t", "t"], "partition": [0, 0], "offset": [1, 2]})
    with pytest.raises(ConfigError, match="two rows"):
        write_reset_csv(dup, tmp_path)


# ==================================================================== __consumer_offsets partitions
TOPIC_ID = uuid.UUID("7f3c1e52-9a4b-4c1d-8e2f-0a1b2c3d4e5f")
NOW = T0 + 86_400_000 * 30


def segment_bytes(path):
    return b"".join((pathlib.Path(path) / n).read_bytes() for n in sorted(os.listdir(path)) if n.endswith(".log"))


def peer_commits(path, peer):
    """(group, topic, partition) → (offset, epoch, metadata, commit ts) from a peer's read of the
    segment bytes, keys and values decoded here with struct (OffsetCommitKey v1, value v4)."""
    out = {}
    for batch in peer_decode(peer, segment_bytes(path)):
        assert batch["magic"] == 2 and not batch["is_transactional"] and not batch["is_control"]
        assert batch["producer_id"] == -1 and batch["compression"] == 0 and batch["crc_valid"]
        for r in batch["records"]:
            key, value = r["key"], r["value"]
            assert struct.unpack_from(">h", key)[0] == 1 and r["timestamp"] == NOW
            pos, fields = 2, []
            for _ in range(2):
                (n,) = struct.unpack_from(">h", key, pos)
                fields.append(key[pos + 2:pos + 2 + n].decode())
                pos += 2 + n
            (partition,) = struct.unpack_from(">i", key, pos)
            assert pos + 4 == len(key)
            # value v4, as a 4.1+ coordinator writes it: flexible, a compact string (one-byte length here)
            # and a tag section (no tag: the restore writes no topic id unless it knows the target's)
            version, offset, epoch, n = struct.unpack_from(">hqiB", value)
            assert version == 4 and n < 0x80
            metadata = value[15:15 + n - 1].decode()
            (commit_ts,) = struct.unpack_from(">q", value, 14 + n)
            assert value[22 + n:] == b"\x00"
            out[(fields[0], fields[1], partition)] = (offset, epoch, metadata, commit_ts)
    return out


@pytest.mark.parametrize("keep", [False, True])
def test_written_partitions_replay_to_the_table_in_the_targets_layout(source, tmp_path, keep):
    table = group_offsets_at_cut(source.root, as_of=CUT, log_ranges=RANGES)
    target = tmp_path / "dst"
    written = write_offsets_partitions(table, target, num_partitions=5, topic_id=topic_id_text(TOPIC_ID),
                                       keep_leader_epochs=keep, keep_commit_timestamps=keep, now=NOW)
    rows = as_rows(table)
    homes = {r["group"]: coordinator_partition(r["group"], 5) for r in rows}
    assert [w.partition for w in written] == sorted(set(homes.values()))   # 5 partitions, not the source's 3
    assert sum(w.commits for w in written) == len(rows) and sum(w.groups for w in written) == len(homes)
    want = {(r["group"], r["topic"], r["partition"]): (
        r["offset"], (r["leader_epoch"] if keep and r["leader_epoch"] is not None else -1), r["metadata"],
        r["commit_timestamp"] if keep else NOW) for r in rows}
    # kvlog's replay of the target: the same offsets, each group in its target partition
    replayed = kvlog.consumer_offsets(target)
    got = {}
    for r, ts in zip(replayed.to_pylist(), replayed.column("commit_timestamp").cast(pa.int64()).to_pylist()):
        assert r["coordinator_partition"] == homes[r["group"]]
        got[(r["group"], r["topic"], r["partition"])] = (
            r["committed_offset"], -1 if r["leader_epoch"] is None else r["leader_epoch"], r["metadata"], ts)
    assert got == want
    # two independent record readers over the segment bytes
    for peer in ("aiokafka-py", "kafka-python"):
        seen = {}
        for w in written:
            part = peer_commits(w.path, peer)
            assert {homes[g] for g, _, _ in part} == {w.partition}
            seen.update(part)
        assert seen == want
    for w in written:
        assert (target / f"{CO}-{w.partition}" / "partition.metadata").read_bytes() == \
            b"version: 0\ntopic_id: " + topic_id_text(TOPIC_ID).encode()


def test_partitions_subset_uuid_form_and_existing_directories(source, tmp_path):
    table = group_offsets_at_cut(source.root, as_of=None, log_ranges=RANGES)
    target = tmp_path / "dst"
    homes = {g: coordinator_partition(g, 3) for g in table.column("group").to_pylist()}
    one = sorted(set(homes.values()))[0]
    written = write_offsets_partitions(table, target, num_partitions=3, topic_id=str(TOPIC_ID), partitions=[one],
                                       now=NOW)
    assert [w.partition for w in written] == [one] and os.listdir(target) != []
    assert sorted(n for n in os.listdir(target) if n.startswith(CO)) == [f"{CO}-{one}"]
    assert {r["group"] for r in kvlog.consumer_offsets(target).to_pylist()} == {g for g, n in homes.items() if n == one}
    with pytest.raises(KvlogError, match="already holds records"):   # a second run refuses, writes nothing
        write_offsets_partitions(table, target, num_partitions=3, topic_id=None, now=NOW)
    assert sorted(n for n in os.listdir(target) if n.startswith(CO)) == [f"{CO}-{one}"]
    # an existing empty partition is used, if its topic id agrees
    other = sorted(set(homes.values()))[-1]
    Log.open(tmp_path / "dst2" / f"{CO}-{other}").close()
    (tmp_path / "dst2" / f"{CO}-{other}" / "partition.metadata").write_text("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ")
    with pytest.raises(KvlogError, match="names topic id"):
        write_offsets_partitions(table, tmp_path / "dst2", num_partitions=3, topic_id=TOPIC_ID, now=NOW)
    (tmp_path / "dst2" / f"{CO}-{other}" / "partition.metadata").unlink()
    write_offsets_partitions(table, tmp_path / "dst2", num_partitions=3, topic_id=TOPIC_ID, now=NOW)
    assert kvlog.consumer_offsets(tmp_path / "dst2").num_rows == table.num_rows


def test_topic_ids_are_checked(tmp_path):
    table = pa.table({"group": ["g"], "topic": ["t"], "partition": [0], "offset": [1]})
    for bad in ("nope", "AAAAAAAAAAAAAAAAAAAAAA", str(uuid.UUID(int=1)), "!" * 22, 42):
        with pytest.raises(ConfigError, match="topic id"):
            write_offsets_partitions(table, tmp_path, num_partitions=1, topic_id=bad)
    assert os.listdir(tmp_path) == []   # nothing written before the checks
    (w,) = write_offsets_partitions(table, tmp_path, num_partitions=1, topic_id="fzweUppLTB2OLwobLD1OXw")
    assert (pathlib.Path(w.path) / "partition.metadata").read_text().endswith("topic_id: fzweUppLTB2OLwobLD1OXw")


def test_large_metadata_is_split_into_batches_under_the_size_limit(tmp_path):
    n = 400
    table = pa.table({"group": ["g"] * n, "topic": ["t"] * n, "partition": list(range(n)), "offset": [7] * n,
                      "metadata": ["m" * 3000] * n})
    (w,) = write_offsets_partitions(table, tmp_path, num_partitions=1, topic_id=None, now=NOW)
    assert w.commits == n and not (tmp_path / f"{CO}-0" / "partition.metadata").exists()
    batches = peer_decode("aiokafka-py", segment_bytes(w.path))
    assert len(batches) > 1 and all(b["batch_length"] < 1 << 20 for b in batches)
    assert kvlog.consumer_offsets(tmp_path).num_rows == n


def test_an_empty_table_writes_no_partition_and_no_reset_file(tmp_path):
    empty = group_offsets_schema().empty_table()
    assert write_offsets_partitions(empty, tmp_path / "dst", num_partitions=50, topic_id=TOPIC_ID) == []
    assert not (tmp_path / "dst").exists()
    assert write_reset_csv(empty, tmp_path / "reset") == []
    assert os.listdir(tmp_path / "reset") == ["reset-offsets.sh"]
