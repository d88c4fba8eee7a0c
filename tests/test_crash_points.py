"""Deterministic crash-point sweep: stop the process at every file-system operation kvlog performs.

Every write, truncate, fsync, rename, unlink, mkdir and directory fsync goes through ``kvlog._io.fs``.
A shim counts them and raises ``SimulatedCrash`` at operation k, for every k of a workload that
appends, rolls, flushes, truncates, deletes records, applies retention and checkpoints. It also
crashes the recovery that follows. After each crash, the log is reopened and must:

- keep every record acknowledged by ``flush()`` (unless a completed truncate/delete removed it),
  with the bytes it was written with;
- contain no record that was never written;
- pass ``kvlog verify``.
"""

import os
import weakref

import pytest

import kvlog
from kvlog import LogConfig, Record, _io
from kvlog.cli import main as cli_main
from kvlog.log import Log
from tests.reliability_report import record

T0 = 1_700_000_000_000


class SimulatedCrash(BaseException):
    """Not an Exception: nothing in kvlog may catch it and carry on."""


class CountingFS(_io.FileSystem):
    def __init__(self, crash_at=None):
        self.crash_at = crash_at
        self.n = 0

    def _op(self):
        self.n += 1
        if self.crash_at is not None and self.n == self.crash_at:
            raise SimulatedCrash(f"crash at operation {self.n}")

    def pwrite(self, fd, data, offset):
        self._op()
        return super().pwrite(fd, data, offset)

    def truncate(self, fd, size):
        self._op()
        super().truncate(fd, size)

    def fsync(self, fd):
        self._op()
        super().fsync(fd)

    def rename(self, src, dst):
        self._op()
        super().rename(src, dst)

    def unlink(self, path):
        self._op()
        super().unlink(path)

    def mkdir(self, path):
        self._op()
        super().mkdir(path)

    def fsync_dir(self, path):
        self._op()
        super().fsync_dir(path)

    def open(self, path, flags, mode=0o644):
        if flags & os.O_CREAT:
            self._op()
        return super().open(path, flags, mode)


CFG = dict(segment_bytes=700, index_interval_bytes=64, segment_index_bytes=4096, retention_ms=50_000)


class Model:
    """What was written, what flush() acknowledged, and what a completed removal took away.

    ``written`` is the latest value per offset (an append in flight counts); ``history`` every value
    ever written at an offset (a truncation is not durable until the next flush, so after a power loss
    a truncated batch may come back where unflushed records stood); ``acked`` the value each offset
    had when a flush() covering it returned.
    """

    def __init__(self):
        self.written = {}
        self.history = {}
        self.acked = {}
        self.maybe_gone = set()

    def write(self, offset, value):
        self.written[offset] = value
        self.history.setdefault(offset, set()).add(value)

    def ack(self, start, end):
        for o in range(start, end):
            if o in self.written:
                self.acked[o] = self.written[o]

    def required(self, log_start):
        return {o: v for o, v in self.acked.items() if o not in self.maybe_gone and o >= log_start}


def workload(path, model, clock):
    log = Log.open(path, LogConfig(**CFG), time=lambda: clock[0])
    n = 0

    def append(k):
        nonlocal n
        recs = [Record(b"k%d" % ((n + i) % 7), b"value-%d" % (n + i), clock[0]) for i in range(k)]
        first = log.log_end_offset
        for i, r in enumerate(recs):  # an append in flight at the crash may well have reached the file
            model.write(first + i, r.value)
        info = log.append(recs)
        assert info.first_offset == first
        n += k

    def flush():
        log.flush()
        model.ack(log.log_start_offset, log.log_end_offset)

    def removing(offsets, fn):
        model.maybe_gone |= offsets  # while the call runs, these may or may not survive a crash
        fn()
        for o in offsets:
            model.acked.pop(o, None)

    for _ in range(4):
        append(3)
    flush()
    append(5)
    log.roll()
    append(4)
    flush()
    leo = log.log_end_offset
    cut = next(log.read(leo - 3).batches()).base_offset  # truncation removes whole batches
    removing(set(range(cut, leo + 100)), lambda: log.truncate_to(leo - 3))
    for o in range(cut, leo + 100):
        model.written.pop(o, None)  # history keeps them: an unflushed truncation may be undone
    model.maybe_gone -= set(range(cut, leo + 100))
    append(6)
    flush()
    # delete_records and retention only move the log start offset, which `required` honours
    log.delete_records(5)
    clock[0] += 60_000
    append(3)
    log.delete_old_segments()
    flush()
    append(2)
    log.close()
    model.ack(log.log_start_offset, log.log_end_offset)


def check(path, model, clock):
    log = Log.open(path, LogConfig(**CFG), time=lambda: clock[0])
    try:
        got = {}
        prev = -1
        for r in log.records():
            assert r.offset > prev, "offsets must increase"
            prev = r.offset
            got[r.offset] = r.value
        for o, v in got.items():
            assert v in model.history.get(o, ()), f"offset {o}: {v!r} was never written there"
        required = model.required(log.log_start_offset)
        missing = sorted(set(required) - set(got))
        assert not missing, f"acknowledged offsets lost: {missing[:10]}"
        changed = [o for o, v in required.items() if got[o] != v]
        assert not changed, f"acknowledged offsets changed: {changed[:10]}"
    finally:
        log.close()
    assert cli_main(["verify", path]) == 0


def run_with_crash(tmp_path, k, crash_recovery_at=None):
    path = str(tmp_path / f"k{k}-{crash_recovery_at}" / "t-0")
    model = Model()
    clock = [T0]
    shim = CountingFS(crash_at=k)
    old = _io.set_filesystem(shim)
    crashed = False
    try:
        workload(path, model, clock)
    except SimulatedCrash:
        crashed = True
    finally:
        _io.set_filesystem(old)
    _release_everything()
    if crash_recovery_at is not None and crashed:
        shim2 = CountingFS(crash_at=crash_recovery_at)
        old = _io.set_filesystem(shim2)
        try:
            Log.open(path, LogConfig(**CFG), time=lambda: clock[0])
        except SimulatedCrash:
            pass
        finally:
            _io.set_filesystem(old)
        _release_everything()
    if os.path.isdir(path):
        check(path, model, clock)
    return crashed, shim.n


_OPENED: "weakref.WeakSet[Log]" = weakref.WeakSet()


@pytest.fixture(autouse=True)
def _track_logs(monkeypatch):
    """Remember every Log opened in a test, so a simulated crash can abandon them as the OS would."""
    real = Log.open.__func__

    def tracked(cls, *args, **kwargs):
        log = real(cls, *args, **kwargs)
        _OPENED.add(log)
        return log

    monkeypatch.setattr(Log, "open", classmethod(tracked))
    yield
    _OPENED.clear()


def _release_everything():
    """Drop file descriptors and locks of logs abandoned by a crash (the OS would)."""
    for obj in list(_OPENED):
        if not obj._closed:
            for seg in obj._segments:
                seg.close_handlers()
            obj._release_lock()
            obj._closed = True


def total_operations(tmp_path):
    shim = CountingFS()
    old = _io.set_filesystem(shim)
    try:
        workload(str(tmp_path / "count" / "t-0"), Model(), [T0])
    finally:
        _io.set_filesystem(old)
    return shim.n


def test_workload_runs_clean(tmp_path):
    crashed, _ = run_with_crash(tmp_path, k=None)
    assert not crashed


def test_crash_at_every_operation(tmp_path):
    n = total_operations(tmp_path)
    assert n > 100
    for k in range(1, n + 1):
        crashed, _ = run_with_crash(tmp_path, k)
        assert crashed
    record("crash_points", operations=n, cases=n)


@pytest.mark.parametrize("stride", [7])
def test_crash_during_recovery(tmp_path, stride):
    """A crash while recovering from a crash: the second recovery still ends consistent."""
    n = total_operations(tmp_path)
    cases = 0
    for k in range(3, n + 1, stride):
        for j in (1, 2, 3, 5, 8):
            run_with_crash(tmp_path, k, crash_recovery_at=j)
            cases += 1
    record("crash_in_recovery", cases=cases)


# --------------------------------------------------------------------------------- power loss
class PowerLossFS(CountingFS):
    """Also remembers what was made durable, so a crash can take away everything that was not.

    Files return to their content at their last fsync (``mode="drop"``) or keep their length with the
    unsynced bytes zeroed (``mode="zeros"``: the inode size reached the disk, the data did not).
    Creates, renames and unlinks not followed by an fsync of their directory are undone. Index pages
    written through a mapping are not seen by the shim, so they are treated as never synced: harsher
    than a real machine, which is the point.
    """

    def __init__(self, crash_at, mode):
        super().__init__(crash_at)
        self.mode = mode
        self.paths = {}          # fd -> path
        self.durable = {}        # path -> bytes at its last fsync (None: not durable at all)
        self.journal = []        # directory operations since their directory's last fsync

    def _snapshot(self, path):
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def _baseline(self, path):
        if path not in self.durable:
            self.durable[path] = self._snapshot(path)

    def open(self, path, flags, mode=0o644):
        existed = os.path.exists(path)
        fd = super().open(path, flags, mode)
        self.paths[fd] = path
        if existed:
            self._baseline(path)
        else:
            self.durable[path] = None
            self.journal.append(("create", path, None))
        return fd

    def pwrite(self, fd, data, offset):
        self._baseline(self.paths.get(fd, ""))
        return super().pwrite(fd, data, offset)

    def truncate(self, fd, size):
        self._baseline(self.paths.get(fd, ""))
        super().truncate(fd, size)

    def fsync(self, fd):
        super().fsync(fd)
        path = self.paths.get(fd)
        if path:
            self.durable[path] = self._snapshot(path)

    def rename(self, src, dst):
        self._baseline(src)
        self._baseline(dst)
        before = self._snapshot(dst)
        super().rename(src, dst)
        self.journal.append(("rename", src, (dst, before)))

    def unlink(self, path):
        self._baseline(path)
        content = self._snapshot(path)
        super().unlink(path)
        self.journal.append(("unlink", path, content))

    def fsync_dir(self, path):
        super().fsync_dir(path)
        d = os.path.abspath(path)
        self.journal = [j for j in self.journal if os.path.dirname(os.path.abspath(j[1])) != d]

    def power_loss(self):
        for op, path, extra in reversed(self.journal):  # entries never made durable vanish
            if op == "create" and os.path.exists(path):
                os.unlink(path)
            elif op == "rename":
                dst, before = extra
                if os.path.exists(dst):
                    os.replace(dst, path)
                if before is not None:
                    with open(dst, "wb") as f:
                        f.write(before)
            elif op == "unlink" and extra is not None:
                with open(path, "wb") as f:
                    f.write(extra)
        for path, content in self.durable.items():
            if not os.path.exists(path):
                continue
            now = self._snapshot(path)
            if content is None:
                content = b""
            if now == content:
                continue
            if self.mode == "zeros" and len(now) > len(content):
                content = content + bytes(len(now) - len(content))
            with open(path, "wb") as f:
                f.write(content)


def run_with_power_loss(tmp_path, k, mode):
    path = str(tmp_path / f"p{k}-{mode}" / "t-0")
    model = Model()
    clock = [T0]
    shim = PowerLossFS(k, mode)
    old = _io.set_filesystem(shim)
    crashed = False
    try:
        workload(path, model, clock)
    except SimulatedCrash:
        crashed = True
    finally:
        _io.set_filesystem(old)
    _release_everything()
    if crashed:
        shim.power_loss()
    if os.path.isdir(path):
        check(path, model, clock)
    return crashed


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["split", "every"])
@pytest.mark.parametrize("mode", ["drop", "zeros"])
def test_power_loss_at_every_operation(tmp_path, mode, every):
    """Nothing acknowledged by flush() is lost when everything unsynced is. By default the two modes take
    alternate operations, so that each operation is cut once; ``-m slow`` cuts each in both modes."""
    n = total_operations(tmp_path)
    first = 1 if every or mode == "drop" else 2
    ks = range(first, n + 1, 1 if every else 2)
    for k in ks:
        assert run_with_power_loss(tmp_path, k, mode)
    record("power_loss", cases=len(ks))


# ------------------------------------------------------------------------------------- I/O faults
class FaultFS(CountingFS):
    """Fails operation k with an OSError (ENOSPC or EIO) instead of crashing the process."""

    def __init__(self, fail_at, errno_):
        super().__init__(None)
        self.fail_at = fail_at
        self.errno_ = errno_

    def _op(self):
        self.n += 1
        if self.n == self.fail_at:
            raise OSError(self.errno_, os.strerror(self.errno_))


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["split", "every"])
@pytest.mark.parametrize("err", ["ENOSPC", "EIO"])
def test_io_faults_are_typed_and_fence_the_log(tmp_path, err, every):
    """By default the two errors take alternate operations (each operation fails once); ``-m slow``: both."""
    import errno

    code = getattr(errno, err)
    n = total_operations(tmp_path)
    failures = 0
    for k in range(1 if every or err == "ENOSPC" else 2, n + 1, 1 if every else 2):
        path = str(tmp_path / f"f{k}-{err}" / "t-0")
        model = Model()
        clock = [T0]
        old = _io.set_filesystem(FaultFS(k, code))
        failed = None
        try:
            workload(path, model, clock)
        except kvlog.LogIOError as exc:
            failed = exc
        except OSError as exc:  # outside a Log method (opening the directory): plain OSError is fine
            failed = exc
        finally:
            _io.set_filesystem(old)
        if failed is None:
            continue
        failures += 1
        for obj in list(_OPENED):  # the fenced log refuses changes until reopened
            if not obj._closed and obj._failed is not None:
                with pytest.raises(kvlog.LogIOError, match="reopen"):
                    obj.append([Record(b"k", b"v", T0)])
        _release_everything()
        if os.path.isdir(path):
            check(path, model, clock)
    assert failures > (100 if every else 50)  # most operations are I/O a fault can hit
    record("io_faults", cases=n if every else n // 2, failures=failures)
