"""Read-only and dry-run commands leave a data directory byte-identical: names, sizes, contents, modes and
mtimes of every file and directory, before and after.

One realistic tree is built once: a data directory as a broker leaves it (three partitions of rolled
segments in several codecs, a transactional partition with COMMIT and ABORT markers, ``__consumer_offsets``
with a group's commits, a KRaft ``__cluster_metadata`` log, a tiered topic with ``__remote_log_metadata``,
the root checkpoints; no ``.kvlog.lock``: a broker's directory has none), its LocalTieredStorage and Aiven
remote copies, a ``kvlog backup`` of it and a ``kvlog mirror`` of it. Every read-only command (``dump``,
``verify``, ``offsets``, ``groups``) with every one of its options, every dry run (``repair --dry-run``,
``retention --dry-run``) with every option, the reading side of the writing commands (``mirror``'s and
``backup``'s source, ``restore``'s backup) and the Python readers (``Log.open(read_only=True)``,
``LogManager(read_only=True)``, ``consumer_offsets``, ``cluster_metadata``, the tiered view, a backup run)
run against it, and the whole tree is compared.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.cli import build_parser, main
from kvlog.internal_topics.decoders import encode_coordinator_record
from kvlog.log import EARLIEST, LATEST, MAX_TIMESTAMP, Log
from kvlog.manager import LogManager
from kvlog.schemas.registering import SchemasTopicWriter, Serializer
from kvlog.tiered import AivenTieredStorage, LocalTieredStorage

from conftest import FIXTURES

T0 = 1_700_000_000_000
CO = "__consumer_offsets"
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


class Clock:
    def __init__(self, t: int = T0) -> None:
        self.t = t

    def __call__(self) -> int:
        return self.t


# ---------------------------------------------------------------------------------------------- the tree
def tree_state(root: Path) -> dict[str, tuple]:
    """Every entry under ``root`` (itself included): kind, size, mode, mtime in ns, and a file's SHA-256."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        st = os.lstat(dirpath)
        out[os.path.relpath(dirpath, root)] = ("dir", st.st_mode, st.st_mtime_ns)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                out[os.path.relpath(p, root)] = ("link", os.readlink(p))
                continue
            with open(p, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            out[os.path.relpath(p, root)] = ("file", st.st_size, st.st_mode, st.st_mtime_ns, digest)
    return out


def assert_unchanged(before: dict[str, tuple], after: dict[str, tuple]) -> None:
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    assert (added, removed, changed) == ([], [], []), "the tree changed"


@dataclass
class World:
    base: Path
    data: Path
    whole: Path
    remote: Path
    aiven: Path
    private_key: Path
    backup: Path
    mirror: Path

    def seg(self, partition_dir: str, suffix: str, index: int = 0) -> str:
        d = self.data / partition_dir
        bases = sorted(n[:20] for n in os.listdir(d) if n.endswith(".log") and len(n) == 24)
        return str(d / f"{bases[index]}{suffix}")


def _commit(group: str, topic: str, partition: int, offset: int, ts: int) -> Record:
    value = {"offset": offset, "leaderEpoch": 0, "metadata": "m", "commitTimestamp": ts}
    k, v = encode_coordinator_record(CO, 1, {"group": group, "topic": topic, "partition": partition}, 3, value)
    return Record(k, v, ts)


def _remove_locks(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            if name in (".kvlog.lock", ".lock"):
                os.unlink(os.path.join(dirpath, name))


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    from tiered_aiven_writer import make_key_pair
    from tiered_support import tier_log, to_aiven
    from tiered_support import write_log as write_tiered

    base = tmp_path_factory.mktemp("readonly")
    data = base / "data"
    clock = Clock()
    cfg = LogConfig(segment_bytes=2_000, index_interval_bytes=200)
    with LogManager(data, time=clock) as mgr:
        mgr.create_topic("orders", 3, cfg)
        for p in range(3):
            log = mgr.log("orders", p)
            for i in range(40):
                log.append([Record(b"k%d" % (i % 9), b"order %d-%d " % (p, i) * 4, T0 + i * 100 + p,
                                   (("src", b"web"),) if i % 2 else ())], compression=CODECS[i % 5])
        mgr.create_topic("txn", 1, cfg)
        log = mgr.log("txn", 0)
        for n in range(6):
            log.append([Record(b"t", b"txn %d" % n * 8, T0 + 5_000 + n * 10)], producer_id=9, producer_epoch=0,
                       base_sequence=n, is_transactional=True)
            log.end_transaction(9, 0, commit=n % 3 != 1, timestamp=T0 + 5_000 + n * 10 + 5)
            log.append([Record(b"p", b"plain %d" % n, T0 + 5_001 + n * 10)])
    with Log.open(data / f"{CO}-0", LogConfig(segment_bytes=1_500), time=clock) as co:
        for i in range(12):
            co.append([_commit("g1", "orders", p, 10 + i + p, T0 + 6_000 + i * 10) for p in range(3)])
        co.append([_commit("g1", "txn", 0, 3, T0 + 6_500)], producer_id=4, producer_epoch=0, base_sequence=0,
                  is_transactional=True)
        co.end_transaction(4, 0, commit=True, timestamp=T0 + 6_501)
        co.append([_commit("g2", "orders", 0, 10_000, T0 + 6_600)])  # past the log end
    with LogManager(data, time=clock) as mgr, SchemasTopicWriter(mgr) as registry:  # a typed topic
        mgr.create_topic("typed", 1, cfg)
        serialize = Serializer(registry.register("typed-value", TYPED_AVSC), registry)
        key = Serializer.bare('"string"')
        mgr.log("typed", 0).append([Record(key(f"k{i}"), serialize({"n": i, "s": f"v{i}"}), T0 + i)
                                    for i in range(12)])
    kraft = FIXTURES / "kraft-metadata" / "00000000000000000000.log"
    if not kraft.exists():
        pytest.fail(f"fixture missing: {kraft}")
    (data / "__cluster_metadata-0").mkdir()
    shutil.copyfile(kraft, data / "__cluster_metadata-0" / kraft.name)
    write_tiered(data, topic="tiered", segments=4)
    t = tier_log(data, topic="tiered", remote=2)
    pub, _, _, priv = make_key_pair(base, "k1")
    aiven = Path(to_aiven(t, base / "aiven", key_prefix="p/", compression=True, encryption=("k1", pub)))
    assert main(["backup", str(data), str(base / "backup"), "--workers", "1"]) == 0
    assert main(["mirror", str(data / "orders-0"), str(base / "mirror" / "orders-0")]) == 0
    _remove_locks(base)
    return World(base=base, data=data, whole=Path(t.whole), remote=Path(t.remote_root), aiven=aiven,
                 private_key=Path(priv), backup=base / "backup", mirror=base / "mirror")


# ------------------------------------------------------------------------------------------- the cases
# (name, argv from the world and a scratch directory outside it, the expected exit status)
Case = tuple[str, Callable[[World, Path], list[str]], int]


def _aiven(w: World) -> list[str]:
    return ["--remote-storage", str(w.aiven), "--remote-layout", "aiven", "--key-prefix", "p/",
            "--key-pairs", f"k1={w.private_key}"]


def _aiven_key(w: World) -> str:
    d = w.aiven / "p"
    topic_dir = next(n for n in os.listdir(d) if n.startswith("tiered-"))
    name = sorted(n for n in os.listdir(d / topic_dir / "0") if n.endswith(".log"))[0]
    return str(d / topic_dir / "0" / name[: -len(".log")])


def _remote_files(w: World) -> str:
    d = w.remote / next(n for n in os.listdir(w.remote) if n.startswith("tiered-0-"))
    logs = sorted(n for n in os.listdir(d) if n.endswith(".log"))
    return ",".join(str(d / logs[0][: -len(".log")]) + s for s in (".log", ".index", ".timeindex"))


TYPED_AVSC = '{"type":"record","name":"T","fields":[{"name":"n","type":"int"},{"name":"s","type":"string"}]}'


def _reader_schema(s: Path) -> str:
    path = s / "reader.avsc"
    path.write_text('{"type":"record","name":"T","fields":[{"name":"n","type":"long"}]}')
    return str(path)


READ_ONLY: list[Case] = [
    # dump: every option
    ("dump log", lambda w, s: ["dump", "--files", w.seg("orders-0", ".log")], 0),
    ("dump deep", lambda w, s: ["dump", "--files", w.seg("orders-1", ".log", 1), "--deep-iteration"], 0),
    ("dump data", lambda w, s: ["dump", "--files", w.seg("orders-2", ".log", -1), "--print-data-log"], 0),
    ("dump skip metadata", lambda w, s: ["dump", "--files", w.seg("orders-0", ".log", 1), "--deep-iteration",
                                         "--skip-record-metadata"], 0),
    ("dump indexes", lambda w, s: ["dump", "--files", ",".join(w.seg("orders-0", x) for x in
                                                               (".index", ".timeindex"))], 0),
    ("dump verify index", lambda w, s: ["dump", "--files", ",".join(w.seg("orders-1", x) for x in
                                                                    (".log", ".index", ".timeindex")),
                                        "--verify-index-only", "--max-message-size", "100000"], 0),
    ("dump sanity", lambda w, s: ["dump", "--files", w.seg("orders-2", ".index") + "," + w.seg("orders-2", ".timeindex"),
                                  "--index-sanity-check"], 0),
    ("dump max bytes", lambda w, s: ["dump", "--files", w.seg("orders-0", ".log"), "--max-bytes", "300"], 0),
    ("dump txn files", lambda w, s: ["dump", "--files", ",".join(
        str(p) for p in sorted((w.data / "txn-0").iterdir()) if p.suffix in (".log", ".txnindex", ".snapshot")),
        "--deep-iteration"], 0),
    ("dump decode", lambda w, s: ["dump", "--files", w.seg("typed-0", ".log"), "--decode"], 0),
    ("dump formats", lambda w, s: ["dump", "--files", w.seg("typed-0", ".log"), "--value-format", "registry",
                                   "--value-schema", _reader_schema(s), "--key-format", "avro", "--key-schema",
                                   '"string"', "--schemas", str(w.data)], 0),
    ("dump undecodable", lambda w, s: ["dump", "--files", w.seg("orders-0", ".log"), "--value-format", "avro",
                                       "--value-schema", '"long"'], 1),
    ("dump offsets decoder", lambda w, s: ["dump", "--files", w.seg(f"{CO}-0", ".log"), "--offsets-decoder"], 0),
    ("dump transaction decoder", lambda w, s: ["dump", "--files", w.seg("txn-0", ".log"),
                                               "--transaction-log-decoder"], 0),
    ("dump share decoder", lambda w, s: ["dump", "--files", w.seg("txn-0", ".log"), "--share-group-state-decoder"], 0),
    ("dump metadata decoder", lambda w, s: ["dump", "--files", w.seg("__cluster_metadata-0", ".log"),
                                            "--cluster-metadata-decoder"], 0),
    ("dump rlmm decoder", lambda w, s: ["dump", "--files", w.seg("__remote_log_metadata-0", ".log"),
                                        "--remote-log-metadata-decoder"], 0),
    ("dump remote files", lambda w, s: ["dump", "--files", _remote_files(w), "--deep-iteration"], 0),
    ("dump aiven", lambda w, s: ["dump", "--files", _aiven_key(w) + ".log," + _aiven_key(w) + ".indexes",
                                 *_aiven(w), "--remote-log-metadata", str(w.data)], 0),
    # verify
    ("verify root", lambda w, s: ["verify", str(w.data)], 0),
    ("verify partition json", lambda w, s: ["verify", str(w.data / "orders-0"), "--json"], 0),
    ("verify tiered", lambda w, s: ["verify", str(w.data), "--remote-storage", str(w.remote), "--remote-layout",
                                    "LocalTieredStorage", "--remote-log-metadata", str(w.data)], 0),
    ("verify aiven", lambda w, s: ["verify", str(w.data), *_aiven(w)], 0),
    ("verify backup", lambda w, s: ["verify", str(w.backup), "--json"], 0),
    # offsets
    ("offsets root", lambda w, s: ["offsets", str(w.data), "--timestamp", str(T0 + 2_000)], 0),
    ("offsets margin", lambda w, s: ["offsets", str(w.data / "orders-1"), "--timestamp", "2023-11-14T22:13:22Z",
                                     "--margin", "500"], 0),
    ("offsets specials", lambda w, s: ["offsets", str(w.data / "txn-0"), "--timestamp", "max"], 0),
    ("offsets earliest", lambda w, s: ["offsets", str(w.data), "--timestamp", "earliest"], 0),
    ("offsets backup run", lambda w, s: ["offsets", str(w.backup), "--timestamp", "latest", "--backup-run", "1"], 0),
    ("offsets failover", lambda w, s: ["offsets", str(w.data), "--group", "g1", "--target", str(w.mirror),
                                       "--as-of", str(T0 + 6_050), "--anchor", "commit", "--topic-map",
                                       "txn=txn-mirror"], 1),
    ("offsets failover record", lambda w, s: ["offsets", str(w.data), "--group", "g1", "--target", str(w.mirror),
                                              "--margin", "10"], 1),
    # groups
    ("groups", lambda w, s: ["groups", str(w.data)], 0),
    ("groups one", lambda w, s: ["groups", str(w.data), "--group", "g1", "--as-of", str(T0 + 6_050), "--json"], 0),
    ("groups partition", lambda w, s: ["groups", str(w.data / f"{CO}-0")], 0),
    ("groups share", lambda w, s: ["groups", str(w.data), "--share"], 1),   # no __share_group_state here
]

DRY_RUN: list[Case] = [
    ("repair root", lambda w, s: ["repair", "--dry-run", str(w.data)], 0),
    ("repair partition json", lambda w, s: ["repair", "--dry-run", str(w.data / "txn-0"), "--json"], 0),
    ("retention root", lambda w, s: ["retention", str(w.data), "--dry-run", "--now", str(T0 + 10_000)], 0),
    ("retention overrides", lambda w, s: ["retention", str(w.data), "--dry-run", "--now", str(T0 + 10_000),
                                          "--config", "retention.ms=1000", "retention.bytes=100",
                                          "--force-internal", "--metadata-dir", str(w.data)], 0),
    ("retention partition", lambda w, s: ["retention", str(w.data / "orders-2"), "--dry-run", "--config",
                                          "retention.bytes=10"], 0),
]

def _made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


# commands that write their destination only: the source (the tree) is read-only
SOURCE_ONLY: list[Case] = [
    ("mirror", lambda w, s: ["mirror", str(w.data), str(s / "m"), "--topic-map", "orders=copy", "--config",
                             "segment.bytes=4000", "--compression", "zstd", "--batch-bytes", "4096"], 0),
    ("mirror from", lambda w, s: ["mirror", str(w.data / "orders-1"), str(s / "m" / "o-1"), "--from-timestamp",
                                  str(T0 + 1_000)], 0),
    ("backup", lambda w, s: ["backup", str(w.data), str(s / "b"), "--topics", "orders", "txn", "--workers", "2",
                             "--json"], 0),
    ("backup damage", lambda w, s: ["backup", str(w.data), str(s / "b"), "--allow-damage"], 0),
    ("restore", lambda w, s: ["restore", str(w.backup), str(s / "r"), "--as-of", str(T0 + 3_000), "--topics",
                              "orders", "--keep-topic-ids", "--groups-csv", str(s / "csv"), "--json"], 0),
    ("restore run", lambda w, s: ["restore", str(w.backup), str(s / "r"), "--run", "1", "--keep-leader-epochs",
                                  "--keep-topic-ids"], 0),
    ("adopt", lambda w, s: ["adopt", str(_made(s / "ld")), str(w.data / "orders-1"), "--topic-id",
                            "orders=AAAAAAAAAAAAAAAAAAAAAQ", "--json"], 0),
    ("iceberg export", lambda w, s: ["iceberg", "export", str(w.data), "--topic", "txn", "--table", "k.txn",
                                     "--warehouse", str(s / "lake"), "--json"], 0),
    ("iceberg status", lambda w, s: ["iceberg", "status", str(w.data), "--topic", "txn", "--table", "k.txn",
                                     "--warehouse", str(s / "lake")], 1),  # (no such table yet)
]

CASES = READ_ONLY + DRY_RUN + SOURCE_ONLY
#: every subcommand, and why it is (or is not) here
COMMANDS = {"dump": READ_ONLY, "verify": READ_ONLY, "offsets": READ_ONLY, "groups": READ_ONLY, "repair": DRY_RUN,
            "retention": DRY_RUN, "mirror": SOURCE_ONLY, "backup": SOURCE_ONLY, "restore": SOURCE_ONLY,
            "adopt": SOURCE_ONLY, "iceberg": SOURCE_ONLY,
            "compact": None,  # writes: no dry run
            "demo": None}  # its own temporary directory


@pytest.mark.parametrize("name,argv,rc", CASES, ids=[c[0] for c in CASES])
def test_the_tree_is_byte_identical_after(world, tmp_path, capfd, name, argv, rc):
    before = tree_state(world.base)
    args = argv(world, tmp_path)
    got = main(args)
    out, err = capfd.readouterr()
    assert "Traceback" not in err
    assert got == rc, (args, out[-2000:], err[-2000:])
    assert_unchanged(before, tree_state(world.base))
    if "--dry-run" in args:
        assert not any(n == ".kvlog.lock" for _, _, files in os.walk(world.base) for n in files)


def test_a_dry_run_prints_no_progress_when_stderr_is_not_a_terminal(world, capfd):
    assert main(["repair", "--dry-run", str(world.data)]) == 0
    out, err = capfd.readouterr()
    assert err == "" and out.splitlines()[-1].startswith("repair (dry run): ")


def test_a_dry_run_on_a_terminal_shows_progress(world, capfd, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["repair", "--dry-run", str(world.data)]) == 0
    err = capfd.readouterr().err.splitlines()
    assert err and all(line.startswith("repair: partition ") for line in err)


def test_a_dry_run_is_refused_while_a_writer_holds_the_log(world, tmp_path):
    d = tmp_path / "t-0"
    with Log.open(d) as log:
        log.append([Record(b"k", b"v", T0)])
        assert main(["repair", "--dry-run", str(d)]) == 1
    assert main(["repair", "--dry-run", str(d)]) == 0


def test_every_command_and_option_is_covered(world):
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert set(sub.choices) == set(COMMANDS), "a new command: say here whether it is read-only"
    for command, cases in COMMANDS.items():
        if cases is None or cases is SOURCE_ONLY:
            continue
        used_by_command = {a for _, argv, _ in cases if argv(world, world.base)[0] == command
                           for a in argv(world, world.base) if a.startswith("--")}
        options = {s for a in sub.choices[command]._actions for s in a.option_strings
                   if s.startswith("--") and s != "--help"}
        assert options <= used_by_command, (command, sorted(options - used_by_command))


# ------------------------------------------------------------------------------------- the Python readers
def _read_everything(log: Log) -> None:
    log.records()
    list(log.records())
    log.to_arrow()
    log.to_arrow(isolation_level="read_committed")
    for t in (EARLIEST, LATEST, MAX_TIMESTAMP, T0, T0 + 1_234, T0 + 10**9):
        log.offset_for_timestamp(t)
    if log.log_end_offset > log.log_start_offset:
        log.read(log.log_start_offset, 1 << 16)
    log.last_stable_offset
    log.size_in_bytes


def _partition_dirs(w: World) -> list[Path]:
    return sorted(p for p in w.data.iterdir() if p.is_dir() and p.name != "__cluster_metadata-0")


def test_read_only_logs_leave_no_lock_and_no_checkpoint(world):
    before = tree_state(world.base)
    for d in _partition_dirs(world):
        with Log.open(d, read_only=True) as log:
            _read_everything(log)
    log = Log.open(world.data / "orders-0", read_only=True)
    _read_everything(log)
    log.close()
    assert_unchanged(before, tree_state(world.base))


def test_a_read_only_manager_writes_nothing(world):
    before = tree_state(world.base)
    with LogManager(world.data, read_only=True) as mgr:
        for topic in mgr.topics():
            for p in mgr.partitions(topic):
                if topic != "__cluster_metadata":
                    _read_everything(mgr.log(topic, p))
    with LogManager(world.backup, read_only=True, backup_run=1) as mgr:
        for p in mgr.partitions("orders"):
            _read_everything(mgr.log("orders", p))
    assert_unchanged(before, tree_state(world.base))


def test_internal_topic_tiered_and_backup_readers_write_nothing(world):
    before = tree_state(world.base)
    assert kvlog.consumer_offsets(world.data).num_rows > 0
    kvlog.consumer_offsets(world.data, as_of=T0 + 6_050)
    kvlog.cluster_metadata(world.data)
    kvlog.remote_log_metadata(world.data)
    with Log.open(world.data / "tiered-0", read_only=True, remote_storage=LocalTieredStorage(world.remote)) as log:
        _read_everything(log)
    aiven = AivenTieredStorage(str(world.aiven), key_prefix="p/", key_pairs={"k1": str(world.private_key)})
    with Log.open(world.data / "tiered-0", read_only=True, remote_storage=aiven) as log:
        _read_everything(log)
    with Log.open(world.backup / "txn-0", read_only=True, backup_run=1) as log:
        _read_everything(log)
    assert_unchanged(before, tree_state(world.base))


def test_the_tree_state_sees_what_a_write_would_change(tmp_path):
    """The comparison itself: a touched mtime, a rewritten byte, a new empty file each show."""
    copy = tmp_path / "copy-0"
    with Log.open(copy) as log:
        log.append([Record(b"k", b"v", T0)])
    _remove_locks(copy)
    before = tree_state(copy)
    seg = next(p for p in sorted(copy.iterdir()) if p.suffix == ".log")
    st = seg.stat()
    os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    with pytest.raises(AssertionError):
        assert_unchanged(before, tree_state(copy))
    os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert_unchanged(before, tree_state(copy))
    data = bytearray(seg.read_bytes())
    data[-1] ^= 1
    with open(seg, "r+b") as f:
        f.seek(len(data) - 1)
        f.write(struct.pack("B", data[-1]))
    os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(AssertionError):
        assert_unchanged(before, tree_state(copy))
    data[-1] ^= 1
    seg.write_bytes(bytes(data))
    os.utime(seg, ns=(st.st_atime_ns, st.st_mtime_ns))
    dir_st = copy.stat()
    (copy / ".kvlog.lock").touch()
    with pytest.raises(AssertionError):
        assert_unchanged(before, tree_state(copy))
    os.unlink(copy / ".kvlog.lock")
    os.utime(copy, ns=(dir_st.st_atime_ns, dir_st.st_mtime_ns))
    assert_unchanged(before, tree_state(copy))
