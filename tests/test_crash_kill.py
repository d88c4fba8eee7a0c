"""A writer process is killed with SIGKILL at random moments; nothing it flushed may be lost."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

import kvlog
from kvlog.log import Log
from tests.crash_writer import value

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_trial(tmp_path, seed, restarts=2):
    path = str(tmp_path / f"crash-{seed}")
    rng = random.Random(seed)
    acked = -1
    for attempt in range(restarts):
        proc = subprocess.Popen([sys.executable, "-m", "tests.crash_writer", path, str(seed + attempt)],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        assert line.startswith("ready"), line + proc.stderr.read()
        time.sleep(rng.uniform(0.01, 0.3))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL, err
        for ln in out.split("\n")[:-1]:  # a line cut by the kill is no acknowledgement
            parts = ln.split()
            if len(parts) == 2 and parts[0] == "ack":
                acked = max(acked, int(parts[1]) - 1)
    log = Log.open(path, kvlog.LogConfig(segment_bytes=4096, index_interval_bytes=256, segment_index_bytes=4096))
    try:
        assert log.log_end_offset > acked
        got = {r.offset: r.value for r in log.records()}
        for off in range(log.log_start_offset, acked + 1):
            assert got.get(off) == value(off), f"acknowledged offset {off} lost or changed (seed {seed})"
        assert sorted(got) == list(range(log.log_start_offset, log.log_end_offset))
        for seg in log.segments:
            for headers in seg.iter_headers(with_crc=True, stop_on_crc=True):
                assert headers["crc_valid"].all()
    finally:
        log.close()
    return acked


@pytest.mark.parametrize("seed", range(25))
def test_kill_writer(tmp_path, seed):
    run_trial(tmp_path, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 400))
def test_kill_writer_long(tmp_path, seed):
    run_trial(tmp_path, seed, restarts=4)
