"""Concurrency soak: one writer (appends, rolls, cleaning, retention, truncation) and many readers.

Readers are threads and a separate process, each with its own read-only opens. Every value carries
its own offset, so a reader checks on its own that it sees exactly what was written at each offset,
CRC-checked. Readers must never crash, never see a wrong value, and never get an error other than a
kvlog one.

Resources are sampled all along from ``/proc/self/fd`` and ``/proc/self/maps``: descriptors and
mappings of the log's files stay bounded while it runs and drop to zero once everything is closed
(none left on deleted files), and the process's totals do not grow over the run.
"""

import os
import subprocess
import sys
import threading
import time

import pytest

import kvlog
from kvlog import LogConfig, Record
from kvlog.cleaner import LogCleaner
from kvlog.log import Log
from tests.reliability_report import record

T0 = 1_700_000_000_000
CFG = dict(segment_bytes=2048, index_interval_bytes=128, cleanup_policy="compact,delete", retention_ms=10_000_000,
           segment_index_bytes=4096)

READER = r"""
import sys, time, kvlog
from kvlog.log import Log
path, seconds = sys.argv[1], float(sys.argv[2])
end = time.time() + seconds
reads = 0
while time.time() < end:
    try:
        log = Log.open(path, read_only=True)
    except kvlog.KvlogError:
        continue
    try:
        t = log.to_arrow()
        for off, val in zip(t.column("offset").to_pylist(), t.column("value").to_pylist()):
            if val is not None and int(val.split(b":")[0]) != off:
                print("WRONG", off, val); sys.exit(2)
        reads += 1
    except kvlog.KvlogError:
        pass
    finally:
        log.close()
print("reads", reads)
"""


def writer(path, stop, errors, stats):
    log = Log.open(path, LogConfig(**CFG))
    cleaner = LogCleaner(1 << 20)
    i = 0
    try:
        while not stop.is_set():
            n = log.log_end_offset
            recs = [Record(b"k%d" % ((n + j) % 50), b"%d:%d" % (n + j, i), T0 + n + j) for j in range(20)]
            log.append(recs)
            i += 1
            if i % 10 == 0:
                log.flush()
            if i % 25 == 0:
                log.roll()
                cleaner.clean(log)
            if i % 40 == 0:
                log.delete_records(max(log.log_start_offset, log.log_end_offset - 500))
                log.delete_old_segments()
            if i % 55 == 0:
                log.truncate_to(max(log.log_start_offset, log.log_end_offset - 7))
        stats["appends"] = i
    except BaseException as exc:  # pragma: no cover - reported by the test
        errors.append(exc)
    finally:
        log.close()


def reader(path, stop, errors, stats):
    reads = 0
    while not stop.is_set():
        try:
            log = Log.open(path, read_only=True)
        except kvlog.KvlogError:
            continue
        except BaseException as exc:
            errors.append(exc)
            return
        try:
            for r in log.records():
                if r.value is not None and int(r.value.split(b":")[0]) != r.offset:
                    errors.append(AssertionError(f"offset {r.offset} holds {r.value!r}"))
                    return
            log.offset_for_timestamp(T0 + 100)
            reads += 1
        except kvlog.KvlogError:
            pass
        except BaseException as exc:
            errors.append(exc)
            return
        finally:
            log.close()
    stats.setdefault("reads", 0)
    stats["reads"] += reads


def resources(path):
    """``(fds, maps, fds on the log's files, maps of them, maps of deleted ones)`` for this process."""
    fds = os.listdir("/proc/self/fd")
    mine = 0
    for fd in fds:
        try:
            mine += os.readlink(f"/proc/self/fd/{fd}").startswith(path)
        except OSError:  # closed since listed
            pass
    with open("/proc/self/maps") as f:
        maps = f.read().splitlines()
    log_maps = [m for m in maps if path in m]
    return len(fds), len(maps), mine, len(log_maps), sum(m.endswith("(deleted)") for m in log_maps)


def sampler(path, stop, samples):
    while not stop.wait(0.05):
        samples.append(resources(path))


def check_resources(path, samples, seconds):
    """Bounded while running, zero of the log's own once closed, no growth from one half to the next."""
    assert samples, "no resource samples"
    fds, maps, log_fds, log_maps, deleted = zip(*samples)
    # the writer and each reader hold a descriptor per segment (about 10 live ones here): a leak per read
    # or per roll passes these bounds within seconds
    assert max(log_fds) <= 256 and max(log_maps) <= 256, (max(log_fds), max(log_maps))
    assert max(deleted) <= 8, f"{max(deleted)} mappings of deleted log files"
    end = resources(path)
    assert end[2:] == (0, 0, 0), f"left open after close: {end[2]} descriptors, {end[3]} mappings"
    if seconds >= 30:  # long enough for a leak per roll or per read to show
        half = len(samples) // 2
        assert max(maps[half:]) <= max(maps[:half]) + 32, (max(maps[:half]), max(maps[half:]))
        assert max(fds[half:]) <= max(fds[:half]) + 16, (max(fds[:half]), max(fds[half:]))
        assert max(log_fds[half:]) <= 2 * max(log_fds[:half]) + 16, (max(log_fds[:half]), max(log_fds[half:]))
        assert max(log_maps[half:]) <= 2 * max(log_maps[:half]) + 16, (max(log_maps[:half]), max(log_maps[half:]))
    return {"max_fds": max(fds), "max_maps": max(maps), "max_log_fds": max(log_fds), "max_log_maps": max(log_maps),
            "end_fds": end[0], "end_maps": end[1], "samples": len(samples)}


def soak(tmp_path, seconds):
    path = str(tmp_path / "soak-0")
    Log.open(path, LogConfig(**CFG)).close()
    stop = threading.Event()
    errors: list[BaseException] = []
    stats: dict[str, int] = {}
    fds_before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0
    proc = subprocess.Popen([sys.executable, "-c", READER, path, str(seconds)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    samples: list[tuple[int, ...]] = []
    sampling = threading.Event()
    probe = threading.Thread(target=sampler, args=(path, sampling, samples))
    threads = [threading.Thread(target=writer, args=(path, stop, errors, stats))]
    threads += [threading.Thread(target=reader, args=(path, stop, errors, stats)) for _ in range(2)]
    for t in threads:
        t.start()
    probe.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive(), "deadlock: a thread did not stop"
    sampling.set()
    probe.join()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert not errors, errors[:3]
    assert stats.get("appends", 0) > 10 and stats.get("reads", 0) > 2
    stats["process_reads"] = int(out.split()[-1])
    assert stats["process_reads"] > 0
    if fds_before:
        assert len(os.listdir("/proc/self/fd")) <= fds_before + 2, "file descriptors leaked"
    stats.update(check_resources(path, samples, seconds))
    record("soak", seconds=seconds, **stats)
    print(f"soak {seconds:.0f} s: {stats}")
    return stats


def test_soak_short(tmp_path):
    soak(tmp_path, 3.0)


@pytest.mark.slow
def test_soak_long(tmp_path):
    soak(tmp_path, float(os.environ.get("KVLOG_SOAK_SECONDS", "120")))
