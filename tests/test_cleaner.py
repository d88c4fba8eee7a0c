import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kvlog
from kvlog import LogConfig, Record, _io
from kvlog.cleaner import LONG_MIN, LogCleaner, header_version
from kvlog.cli import main as cli_main
from kvlog.log import Log

T0 = 1_700_000_000_000


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


def compacted(tmp_path, clock, name="t-0", **cfg):
    base = dict(cleanup_policy="compact", segment_bytes=1500, delete_retention_ms=1000, index_interval_bytes=64)
    base.update(cfg)
    return Log.open(tmp_path / name, LogConfig(**base), time=clock)


def survivors(events, strategy, header="v"):
    """The model: the record per key that the strategy keeps (offset, value, timestamp)."""
    best = {}
    for off, key, value, ts, ver in events:
        cur = best.get(key)
        if strategy == "offset":
            rank = (off,)
        elif strategy == "timestamp":
            rank = (ts, off)
        else:
            rank = (ver if ver is not None else LONG_MIN, off)
        if cur is None or rank >= cur[0]:
            best[key] = (rank, off, value)
    return {k: (off, v) for k, (_, off, v) in best.items()}


def contents(log):
    out = {}
    offsets = []
    for r in log.records():
        offsets.append(r.offset)
        out.setdefault(r.key, []).append((r.offset, r.value))
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)
    return out


workload = st.lists(
    st.tuples(st.integers(0, 12), st.booleans(), st.integers(0, 50), st.one_of(st.none(), st.integers(-5, 5))),
    min_size=1, max_size=120)


@settings(max_examples=25, deadline=None)
@given(workload, st.sampled_from(["offset", "timestamp", "header"]), st.sampled_from([1 << 20, 24 * 40, 32 * 30]),
       st.integers(1, 3), st.booleans())
def test_cleaning_matches_model(tmp_path_factory, events_spec, strategy, memory, rounds, reopen):
    tmp = tmp_path_factory.mktemp("clean")
    clock = Clock()
    cfg = dict(compaction_strategy=strategy, compaction_strategy_header="v")
    log = compacted(tmp, clock, **cfg)
    events = []
    for i, (k, tomb, dt, ver) in enumerate(events_spec):
        key = b"key-%d" % k
        value = None if tomb else b"value-%d" % i
        ts = T0 + dt
        headers = (("v", ver.to_bytes(8, "big", signed=True)),) if ver is not None else ()
        info = log.append([Record(key, value, ts, headers)])
        events.append((info.first_offset, key, value, ts, ver))
    log.roll()
    leo = log.log_end_offset
    cleaner = LogCleaner(memory, time=clock)
    for _ in range(rounds + 3):  # enough passes for a tiny map to cover everything
        cleaner.clean(log)
        if reopen:
            log.close()
            log = compacted(tmp, clock, **cfg)
    want = survivors(events, strategy)
    got = contents(log)
    assert log.log_end_offset == leo
    for key, (off, value) in want.items():
        assert got.get(key) == [(off, value)], (key, got.get(key), (off, value))
    assert set(got) <= set(want)
    # tombstones go once their horizon (set at their first cleaning) has passed
    clock.t += 10_000
    cleaner.clean(log)
    cleaner.clean(log)
    after = contents(log)
    assert after == {k: [v] for k, v in want.items() if v[1] is not None}
    assert log.log_end_offset == leo
    log.close()


def test_partial_progress_with_a_tiny_map(tmp_path):
    clock = Clock()
    log = compacted(tmp_path, clock)
    for i in range(200):
        log.append([Record(b"k%d" % (i % 50), b"v%d" % i, T0)])
    log.roll()
    cleaner = LogCleaner(24 * 20, load_factor=0.9, time=clock)  # 18 keys per pass
    first = cleaner.clean(log)
    assert first.map_full and first.end_offset < 200
    passes = 1
    while cleaner.clean(log).end_offset < 200:  # each pass moves the cleaner checkpoint forward
        passes += 1
        assert passes < 40
    got = contents(log)
    assert {k: v[-1][1] for k, v in got.items()} == {b"k%d" % j: b"v%d" % (150 + j) for j in range(50)}
    assert all(len(v) == 1 for v in got.values())


def test_tombstones_kept_for_delete_retention(tmp_path):
    clock = Clock()
    log = compacted(tmp_path, clock, delete_retention_ms=60_000)
    log.append([Record(b"a", b"1", T0), Record(b"b", b"2", T0), Record(b"a", None, T0)])
    log.roll()
    cleaner = LogCleaner(1 << 20, time=clock)
    cleaner.clean(log)
    assert contents(log) == {b"a": [(2, None)], b"b": [(1, b"2")]}
    batch = next(b for s in log.segments for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches()
                 if b.record_count)
    assert batch.has_delete_horizon and batch.delete_horizon_ms == T0 + 60_000
    clock.t += 59_000
    cleaner.clean(log)
    assert (2, None) in contents(log)[b"a"]
    clock.t += 2_000
    cleaner.clean(log)  # nothing new is dirty, but the expired tombstone goes
    assert contents(log) == {b"b": [(1, b"2")]}
    assert log.log_end_offset == 3


def test_log_end_offset_record_kept_by_empty_batch(tmp_path):
    """KIP-280: an older offset can win; the end of the cleaned range must not move back."""
    clock = Clock()
    log = compacted(tmp_path, clock, compaction_strategy="timestamp")
    log.append([Record(b"k", b"new-ts", T0 + 100)])
    log.append([Record(b"k", b"old-ts", T0)])  # the last offset, but the lower timestamp
    log.roll()
    LogCleaner(1 << 20, time=clock).clean(log)
    assert contents(log) == {b"k": [(0, b"new-ts")]}
    assert log.log_end_offset == 2
    batches = [b for s in log.segments for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches()]
    assert batches[-1].record_count == 0 and batches[-1].last_offset == 1
    log.close()
    assert compacted(tmp_path, clock, compaction_strategy="timestamp").log_end_offset == 2


def test_header_version_rules():
    enc = lambda n: n.to_bytes(8, "big", signed=True)  # noqa: E731
    assert header_version((("v", enc(5)), ("v", enc(9))), "v") == (9, False)  # last occurrence
    assert header_version((("x", enc(5)),), "v") == (LONG_MIN, False)  # absent: lowest
    assert header_version((("v", b"\x01\x02"),), "v") == (LONG_MIN, True)  # malformed: absent, counted
    assert header_version((("v", None),), "v") == (LONG_MIN, False)


def test_batches_rebuilt_keep_codec_producer_fields_and_verbatim_copies(tmp_path):
    clock = Clock()
    log = compacted(tmp_path, clock, segment_bytes=10_000)
    log.append(kvlog.encode_batch([Record(b"a", b"1", T0), Record(b"b", b"2", T0)], compression="zstd",
                                  producer_id=7, producer_epoch=2, base_sequence=0))
    log.append(kvlog.encode_batch([Record(b"c", b"3", T0)], compression="lz4"))
    log.append(kvlog.encode_batch([Record(b"a", b"4", T0)], compression="gzip"))
    log.roll()
    stats = LogCleaner(1 << 20, time=clock).clean(log)
    assert stats.batches_rebuilt == 1 and stats.batches_copied_verbatim == 2
    batches = [b for s in log.segments for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches()]
    first = batches[0]
    assert first.compression == kvlog.Compression.ZSTD and first.producer_id == 7 and first.producer_epoch == 2
    # Kafka keeps a rebuilt v2 batch's original base and last offset, so its sequence range is intact
    assert (first.base_offset, first.last_offset, first.record_count) == (0, 1, 1)
    assert (first.base_sequence, first.last_sequence) == (0, 1)
    assert contents(log) == {b"b": [(1, b"2")], b"c": [(2, b"3")], b"a": [(3, b"4")]}


def test_cleaned_segments_read_by_aiokafka_and_pass_verify(tmp_path):
    from aiokafka.record.memory_records import MemoryRecords as AioMemoryRecords

    clock = Clock()
    log = compacted(tmp_path, clock)
    for i in range(100):
        log.append([Record(b"k%d" % (i % 7), b"v%d" % i, T0 + i)])
    log.roll()
    LogCleaner(1 << 20, time=clock).clean(log)
    expect = {r.offset: r.value for r in log.records()}
    log.close()
    seen = {}
    for name in sorted(os.listdir(tmp_path / "t-0")):
        if name.endswith(".log"):
            mr = AioMemoryRecords((tmp_path / "t-0" / name).read_bytes())
            while (batch := mr.next_batch()) is not None:
                assert batch.validate_crc()
                for r in batch:
                    seen[r.offset] = r.value
    assert seen == expect
    assert cli_main(["verify", str(tmp_path / "t-0")]) == 0


class _CrashAt(_io.FileSystem):
    """Raises at the k-th rename/unlink/fsync (a crash between two steps of the swap)."""

    def __init__(self, k):
        self.k = k
        self.n = 0

    def _tick(self):
        self.n += 1
        if self.n == self.k:
            raise KeyboardInterrupt("simulated crash")

    def rename(self, src, dst):
        self._tick()
        super().rename(src, dst)

    def unlink(self, path):
        self._tick()
        super().unlink(path)

    def fsync_dir(self, path):
        self._tick()
        super().fsync_dir(path)


def _build(tmp_path, clock):
    log = compacted(tmp_path, clock, segment_bytes=800)
    for i in range(60):
        log.append([Record(b"k%d" % (i % 5), b"v%d" % i, T0)])
    log.roll()
    log.flush()
    return log


def test_crash_at_every_swap_step_loses_nothing(tmp_path):
    clock = Clock()
    ref = _build(tmp_path / "ref", clock)
    old_state = {r.offset: r.value for r in ref.records()}
    LogCleaner(1 << 20, time=clock).clean(ref)
    new_state = {r.offset: r.value for r in ref.records()}
    ref.close()
    k = 1
    outcomes = set()
    while True:
        d = tmp_path / f"run{k}"
        log = _build(d, clock)
        shim = _CrashAt(k)
        old = _io.set_filesystem(shim)
        crashed = False
        try:
            LogCleaner(1 << 20, time=clock).clean(log)
        except KeyboardInterrupt:
            crashed = True
        finally:
            _io.set_filesystem(old)
        for seg in log._segments:
            seg.close_handlers()
        log._release_lock()
        again = compacted(d, clock, segment_bytes=800)
        state = {r.offset: r.value for r in again.records()}
        # each group of segments is swapped atomically (as in Kafka): a crash between groups leaves
        # earlier groups cleaned and later ones not. Never anything invented, never a survivor lost.
        assert state.items() <= old_state.items(), f"crash at step {k}: records that never existed"
        assert new_state.items() <= state.items(), f"crash at step {k}: a surviving record was lost"
        outcomes.add("old" if state == old_state else "new" if state == new_state else "partial")
        again.close()
        if not crashed:
            break
        k += 1
    assert k > 10 and {"old", "new"} <= outcomes


def test_clean_filthiest_and_uncleanable(tmp_path):
    clock = Clock()
    clean = compacted(tmp_path, clock, name="a-0")
    dirty = compacted(tmp_path, clock, name="b-0")
    for i in range(40):
        clean.append([Record(b"k%d" % i, b"v", T0)])
        dirty.append([Record(b"same", b"v%d" % i, T0)])
    clean.roll()
    dirty.roll()
    cleaner = LogCleaner(1 << 20, time=clock)
    cleaner.clean(clean)  # now 0% dirty
    stats = cleaner.clean_filthiest([clean, dirty])
    assert stats is not None and stats.log == dirty.dir
    assert cleaner.clean_filthiest([clean, dirty]) is None  # nothing left at the default 0.5 ratio
    assert not LogConfig().compact
    with pytest.raises(kvlog.ConfigError):
        cleaner.clean(Log.open(tmp_path / "c-0", LogConfig(), time=clock))


def test_min_compaction_lag_protects_young_segments(tmp_path):
    clock = Clock(T0 + 10_000)
    log = compacted(tmp_path, clock, min_compaction_lag_ms=5_000)
    for i in range(40):
        log.append([Record(b"k", b"old%d" % i, T0)])
    log.roll()
    for i in range(40):
        log.append([Record(b"k", b"young%d" % i, T0 + 8_000)])
    log.roll()
    stats = LogCleaner(1 << 20, time=clock).clean(log)
    young = [v for k, vs in contents(log).items() for _, v in vs if v.startswith(b"young")]
    assert len(young) == 40 and stats.end_offset <= 40


def test_generational_skips_low_yield_segments_and_full_pass_converges(tmp_path):
    import random

    clock = Clock()
    log = compacted(tmp_path, clock, segment_bytes=4000)
    rng = random.Random(3)
    latest = {}
    cleaner = LogCleaner(1 << 20, generational=True, min_yield=0.3, full_every=10**6, time=clock)
    skipped = 0
    for rnd in range(8):
        for i in range(150):
            k = b"hot%d" % rng.randrange(10) if rng.random() < 0.8 else b"cold%d" % rng.randrange(400)
            info = log.append([Record(k, b"r%d-%d" % (rnd, i), T0)])
            latest[k] = (info.first_offset, b"r%d-%d" % (rnd, i))
        log.roll()
        stats = cleaner.clean(log)
        skipped += stats.extra.get("skipped_bytes", 0)
    assert skipped > 0  # old, mostly-latest segments were left alone at least once
    assert (tmp_path / "t-0" / "kvlog-cleaner-stats.json").exists()
    cleaner.clean(log, full=True)
    got = contents(log)
    assert {k: v[0] for k, v in got.items()} == latest and all(len(v) == 1 for v in got.values())


def test_compact_cli(tmp_path):
    clock = Clock()
    log = compacted(tmp_path, clock)
    for i in range(50):
        log.append([Record(b"k%d" % (i % 5), b"v%d" % i, T0)])
    log.roll()
    log.close()
    assert cli_main(["compact", str(tmp_path / "t-0"), "--now", str(T0)]) == 0
    again = compacted(tmp_path, clock)
    assert {k: v[-1][1] for k, v in contents(again).items()} == {b"k%d" % j: b"v%d" % (45 + j) for j in range(5)}
    again.close()
    plain = Log.open(tmp_path / "p-0", LogConfig(), time=clock)
    plain.append([Record(b"k", b"v", T0)])
    plain.close()
    assert cli_main(["compact", str(tmp_path / "p-0")]) == 0  # not compacted: skipped, not an error


def test_sparse_offsets_from_a_replica_copy(tmp_path):
    clock = Clock()
    log = compacted(tmp_path, clock)
    offs = [3, 9, 10, 40, 41, 100, 250]
    keys = [b"a", b"b", b"a", b"c", b"b", b"a", b"c"]
    log.append(kvlog.encode_arrays(keys, [b"v%d" % o for o in offs], T0, offsets=offs), assign_offsets=False)
    log.roll()
    LogCleaner(1 << 20, time=clock).clean(log)
    assert contents(log) == {b"b": [(41, b"v41")], b"a": [(100, b"v100")], b"c": [(250, b"v250")]}
    assert log.log_end_offset == 251


def test_corrupt_log_is_marked_uncleanable_and_others_continue(tmp_path):
    clock = Clock()
    bad = compacted(tmp_path, clock, name="bad-0")
    good = compacted(tmp_path, clock, name="good-0")
    for log in (bad, good):
        for i in range(60):
            log.append([Record(b"k", b"v%d" % i, T0)])
        log.roll()
    victim = bad.segments[0]
    with open(victim.log_path, "r+b") as f:  # damage a batch behind the log's back
        f.seek(40)
        f.write(b"\xff" * 8)
    cleaner = LogCleaner(1 << 20, time=clock)
    with pytest.raises(kvlog.CorruptRecordError):
        cleaner.clean(bad)
    assert bad.dir in cleaner.uncleanable
    stats = cleaner.clean_filthiest([bad, good])
    assert stats is not None and stats.log == good.dir
    assert contents(good) == {b"k": [(59, b"v59")]}


def test_max_compaction_lag_overrides_the_dirty_ratio(tmp_path):
    clock = Clock(T0)
    log = compacted(tmp_path, clock, min_cleanable_dirty_ratio=0.99, max_compaction_lag_ms=60_000)
    for i in range(50):
        log.append([Record(b"k%d" % i, b"v", T0)])  # all distinct keys: a low ratio would be needed
    log.roll()
    cleaner = LogCleaner(1 << 20, time=clock)
    cleaner.clean(log)
    for i in range(5):
        log.append([Record(b"k%d" % i, b"w", T0 + 1)])
    log.roll()
    assert cleaner.clean_filthiest([log]) is None  # 5 of 55 records dirty: under 0.99
    clock.t = T0 + 120_000  # the dirty records are now older than max.compaction.lag.ms
    assert cleaner.clean_filthiest([log]) is not None
    assert sum(len(v) for v in contents(log).values()) == 50


@pytest.mark.parametrize("kafka_version", ["4.4", "3.7"])
@pytest.mark.parametrize("magic,codec", [(0, "none"), (1, "none"), (1, "gzip"), (0, "snappy")])
def test_legacy_formats_are_cleaned_in_place(tmp_path, magic, codec, kafka_version):
    """Logs written by old brokers (v0/v1, compressed wrappers) are compacted: rewritten as v2 as Kafka 4.0's
    cleaner does (KAFKA-13093), or in their own format as before 4.0 (tests/test_cleaner_kafka_versions.py)."""
    clock = Clock()
    log = compacted(tmp_path, clock, segment_bytes=100_000)
    keys = [b"a", b"b", b"a", b"c", b"b", b"a"]
    data = kvlog.encode_arrays(keys, [b"v%d" % i for i in range(6)], T0, magic=magic, compression=codec,
                               records_per_batch=3)
    log.append(data, assign_offsets=False)
    log.append(kvlog.encode_batch([Record(b"c", b"v6", T0)], base_offset=6, producer_id=5, producer_epoch=0,
                                  base_sequence=0), assign_offsets=False)
    log.roll()
    LogCleaner(1 << 20, time=clock, kafka_version=kafka_version).clean(log)
    assert contents(log) == {b"b": [(4, b"v4")], b"a": [(5, b"v5")], b"c": [(6, b"v6")]}
    magics = {b.magic for s in log.segments for b in kvlog.MemoryRecords(s.pread(0, s.size_in_bytes)).batches()}
    assert magics == ({magic, 2} if kafka_version == "3.7" else {2})
    log.close()
    assert cli_main(["verify", str(tmp_path / "t-0")]) == 0


header_lists = st.one_of(st.none(), st.lists(st.tuples(st.sampled_from(["a", "b", "ü"]),
                                                        st.one_of(st.none(), st.binary(max_size=6))), max_size=3))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.one_of(st.none(), st.binary(max_size=20)), header_lists),
                min_size=1, max_size=80),
       st.integers(1, 9))
def test_rebuilt_batches_keep_every_field(tmp_path_factory, rows, per_batch):
    """Batches that lose some records are re-encoded from the survivors' own key, value, timestamp and
    headers (None, empty and several headers per record), each at its own offset."""
    tmp = tmp_path_factory.mktemp("rebuild")
    clock = Clock()
    log = compacted(tmp, clock, segment_bytes=1 << 20)
    for s in range(0, len(rows), per_batch):
        chunk = rows[s : s + per_batch]
        log.append(kvlog.encode_arrays([b"k%d" % k for k, _, _ in chunk], [v for _, v, _ in chunk],
                                       [T0 + s + i for i in range(len(chunk))],
                                       headers=[tuple(h) if h else None for _, _, h in chunk]))
    log.roll()
    want = {}
    for off, (k, v, h) in enumerate(rows):
        want[b"k%d" % k] = (off, v, T0 + off, tuple((hk, hv) for hk, hv in (h or ())))
    stats = LogCleaner(1 << 20, time=clock).clean(log)
    got = {}
    for r in log.records():  # a tombstone that is its key's latest record stays until its horizon
        got.setdefault(r.key, []).append((r.offset, r.value, r.timestamp, tuple(r.headers)))
    assert got == {k: [w] for k, w in want.items()}
    if len({k for k, _, _ in rows[:per_batch]}) < min(per_batch, len(rows)):
        assert stats.batches_rebuilt > 0  # the first batch lost a record: it was re-encoded
    log.close()
