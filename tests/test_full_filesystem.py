"""A real full file system: a 2 MiB tmpfs filled with appends until the kernel says ENOSPC.

The injected-fault sweep (``test_crash_points.py``) shows every operation's failure is typed; this
shows the same on a file system that really runs out, including index pages (a store into a mapped
page that cannot be allocated would be SIGBUS, so each trial runs in a child process). Each trial:

- appends (with a flush every few appends) until ``LogIOError`` whose cause is ENOSPC;
- the fenced log refuses further appends, even once space is free, until reopened;
- after freeing space and reopening, every flushed record is there with its exact bytes, nothing that
  was not written appears, ``kvlog verify`` passes, and appends work again.

Mounting needs root or an unprivileged user+mount namespace (``unshare -rm``); without either the
test skips and says so.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kvlog
from kvlog import Record
from kvlog.log import Log
from tests.reliability_report import record

ROOT = Path(__file__).resolve().parents[1]
KVLOG_HOME = str(Path(kvlog.__file__).resolve().parents[1])  # the child imports the same kvlog (wheel or tree)
SIZE = "2m"
T0 = 1_700_000_000_000
# (value bytes, records per append, segment.bytes, flush every n appends): failures land on different
# operations (segment writes, index pages, rolls, checkpoint files)
VARIANTS = [(100, 20, 64 << 10, 3), (1000, 10, 256 << 10, 5), (7000, 3, 48 << 10, 2), (60, 1, 16 << 10, 7)]


def _value(offset: int, size: int) -> bytes:
    return (b"%012d:" % offset) * (size // 13 + 1)


def trial(mount: str, variant: int) -> dict[str, object]:
    """Fill ``mount`` through a Log; returns what was observed (run in a child process)."""
    vsize, per_append, seg_bytes, flush_every = VARIANTS[variant]
    ballast = os.path.join(mount, "ballast")
    with open(ballast, "wb") as f:  # freed after the failure, to prove the fence is not about space
        f.write(b"\0" * (256 << 10))
    path = os.path.join(mount, f"fill-{variant}")
    cfg = kvlog.LogConfig(segment_bytes=seg_bytes, segment_index_bytes=8 << 10, index_interval_bytes=256)
    acked = 0  # records below this offset were flushed
    attempted = 0  # records below this offset were passed to append
    failure = None
    log = Log.open(path, cfg)
    appends = 0
    while failure is None:
        recs = [Record(b"k%d" % (attempted + i), _value(attempted + i, vsize), T0 + attempted + i)
                for i in range(per_append)]
        attempted += per_append  # a failed append may still have reached the disk, in part or whole
        try:
            assert log.append(recs).first_offset == attempted - per_append
            appends += 1
            if appends % flush_every == 0:
                log.flush()
                acked = attempted
        except kvlog.LogIOError as exc:
            failure = exc
        if appends > 100_000:
            raise AssertionError("the file system never filled")
    cause = failure.__cause__ if isinstance(failure.__cause__, OSError) else failure
    refused_full = refused_freed = False
    try:
        log.append([Record(b"x", b"y", T0)])
    except kvlog.LogIOError as exc:
        refused_full = "reopen" in str(exc)
    os.unlink(ballast)
    try:
        log.append([Record(b"x", b"y", T0)])
    except kvlog.LogIOError as exc:
        refused_freed = "reopen" in str(exc)
    try:
        log.close()
    except kvlog.LogIOError:
        pass
    with Log.open(path, cfg) as log:
        end = log.log_end_offset
        got = [(r.offset, r.key, r.value) for r in log.records(0, end)]
        wrong = [o for o, k, v in got if k != b"k%d" % o or v != _value(o, vsize)]
        after = log.append([Record(b"again", b"v", T0)]).first_offset
        log.flush()
    from kvlog.verify import verify_partition

    report = verify_partition(path)
    return {
        "errno": getattr(cause, "errno", None), "kvlog_error": isinstance(failure, kvlog.KvlogError),
        "failed_in": str(failure).split(" on log ")[0], "acked": acked, "attempted": attempted,
        "recovered_end": end, "records": len(got), "offsets_contiguous": [o for o, _, _ in got] == list(range(len(got))),
        "wrong": wrong, "refused_while_full": refused_full, "refused_after_free": refused_freed,
        "append_after_reopen": after, "verify_errors": [str(p) for p in report.errors],
    }


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)


def _can_mount_directly() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("mount") is not None


@pytest.fixture
def small_tmpfs(tmp_path):
    """``(directory, wrap)``: a mounted 2 MiB tmpfs, or an empty directory plus a command prefix that
    mounts one in a private namespace for the child process."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if _can_mount_directly():
        r = _run(["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(mnt)])
        if r.returncode == 0:
            try:
                yield str(mnt), []
            finally:
                if _run(["umount", str(mnt)]).returncode != 0:
                    _run(["umount", "-l", str(mnt)])
            return
    if shutil.which("unshare") and _run(["unshare", "-rm", "true"]).returncode == 0:
        yield str(mnt), ["unshare", "-rm", "sh", "-c",
                         f'mount -t tmpfs -o size={SIZE} tmpfs "$0" && exec "$@"', str(mnt)]
        return
    pytest.skip("cannot mount a tmpfs here: not root and no unprivileged user namespaces (unshare -rm)")


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_fill_a_real_filesystem_until_enospc(small_tmpfs, variant):
    mnt, wrap = small_tmpfs
    code = f"import json, sys; from tests.test_full_filesystem import trial; print(json.dumps(trial({mnt!r}, {variant})))"
    r = subprocess.run([*wrap, sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), KVLOG_HOME])})
    assert r.returncode == 0, f"child died (rc={r.returncode}, SIGBUS is -7):\n{r.stderr[-3000:]}"
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["errno"] == errno.ENOSPC and got["kvlog_error"], got
    assert got["refused_while_full"] and got["refused_after_free"], got
    assert got["acked"] > 0
    # nothing flushed is lost; nothing appears that was not written; offsets stay dense
    assert got["acked"] <= got["recovered_end"] <= got["attempted"], got
    assert got["records"] == got["recovered_end"] and got["offsets_contiguous"] and got["wrong"] == [], got
    assert got["append_after_reopen"] == got["recovered_end"]
    assert got["verify_errors"] == []
    record("full_filesystem", trials=1, acked=got["acked"], recovered=got["recovered_end"], lost=0)
    print(f"full-fs variant {variant}: ENOSPC in {got['failed_in']}, acked {got['acked']}, "
          f"attempted {got['attempted']}, recovered {got['recovered_end']}")
