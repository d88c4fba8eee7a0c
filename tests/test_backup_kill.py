"""``kvlog backup`` and ``kvlog restore`` processes killed with SIGKILL at random moments: the next run finishes
the work, readers meanwhile see a published run, and the result equals an uninterrupted one (issue 28)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time

from kvlog.manager import LogManager
from test_backup import SMALL, TID, _fill, _txns, assert_restored_equal, ranges

HERE = os.path.dirname(os.path.abspath(__file__))


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "kvlog", *args]


def _killed(cmd: list[str], delay: float) -> int:
    """Run ``cmd``, SIGKILL it after ``delay`` seconds unless it finished; its return code."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    return proc.returncode


def _source(root) -> None:
    with LogManager(str(root)) as m:
        m.create_topic("t", 12, SMALL)
        for p in range(12):
            _fill(m.log("t", p), 300, codec="lz4" if p % 2 else None)
        m.create_topic("x", 1, SMALL)
        _txns(m.log("x", 0), 20)


def test_backup_and_restore_processes_killed_at_random_moments(tmp_path):
    rng = random.Random(28)
    src = tmp_path / "src"
    _source(src)
    first = tmp_path / "first"
    subprocess.run(_cli("backup", str(src), str(first), "--workers", "1"), check=True, capture_output=True)
    with LogManager(str(src)) as m:  # what the killed runs have to add
        for p in range(12):
            _fill(m.log("t", p), 100, start_ts=9_000)
    t = time.monotonic()
    subprocess.run(_cli("backup", str(src), str(tmp_path / "timing"), "--workers", "1"), check=True,
                   capture_output=True)
    whole = time.monotonic() - t
    before, after = ranges(str(first)), ranges(str(src))
    ids = ["--topic-id", f"t={TID}", f"x={TID}"]
    for trial in range(3):
        bak = tmp_path / f"b{trial}"
        shutil.copytree(first, bak)
        code = _killed(_cli("backup", str(src), str(bak), "--workers", "1"), rng.uniform(0.05, whole))
        assert code in (0, -signal.SIGKILL)
        assert ranges(str(bak)) in (before, after)  # a published run, never a half-copied one
        subprocess.run(_cli("backup", str(src), str(bak)), check=True, capture_output=True)
        assert ranges(str(bak)) == after
        out = tmp_path / f"o{trial}"
        t = time.monotonic()
        code = _killed(_cli("restore", str(bak), str(out), *ids), rng.uniform(0.05, 1.0))
        assert code in (0, -signal.SIGKILL)
        if code:
            done = subprocess.run(_cli("restore", str(bak), str(out), *ids), capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        assert_restored_equal(str(src), str(out), after)
        assert not [n for n in os.listdir(out) if n.endswith("-delete")]
        again = subprocess.run(_cli("restore", str(bak), str(out), *ids), capture_output=True, text=True)
        assert again.returncode == 0 and "finished already" in again.stderr, again.stderr
        shutil.rmtree(bak)
        shutil.rmtree(out)
