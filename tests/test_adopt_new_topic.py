"""``kvlog adopt --new-topic`` without a broker: what it refuses and how it places a directory (the brokers'
side is tests/test_broker_adopt_new_topic.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import kvlog
from kvlog import broker_files
from kvlog.backup.adopt import AdoptError
from kvlog.backup.adopt_new_topic import adopt_new_topic, rename_no_replace
from kvlog.log import Log

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(600)
"""


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Path]:
    """A log directory whose ``.lock`` another process holds, as a running broker does."""
    log_dir = tmp_path / "data"
    log_dir.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(log_dir / ".lock")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    try:
        yield log_dir
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def _write(path: Path, n: int = 30, epoch: int | None = None) -> None:
    with Log.open(str(path), create=True) as log:
        for i in range(0, n, 10):
            log.append([kvlog.Record(key=b"k%d" % j, value=b"v%d" % j) for j in range(i, i + 10)])
    if epoch is not None:  # stamp every batch with a leader epoch (outside the CRC), as a broker would
        seg = path / "00000000000000000000.log"
        data = bytearray(seg.read_bytes())
        pos = 0
        while pos < len(data):
            size = int.from_bytes(data[pos + 8:pos + 12], "big")
            data[pos + 12:pos + 16] = epoch.to_bytes(4, "big")
            pos += 12 + size
        seg.write_bytes(bytes(data))


def test_places_a_directory_as_a_new_topic_loads_it(running: Path, tmp_path: Path) -> None:
    src = tmp_path / "staging" / "clicks-0"
    _write(src, epoch=7)
    assert (src / "partition.metadata").exists()
    result = adopt_new_topic(running, [src], move=True)
    target = running / "clicks-0"
    assert not src.exists() and target.is_dir()
    names = set(os.listdir(target))
    assert "partition.metadata" not in names and ".kvlog.lock" not in names  # (the broker writes its own id)
    assert broker_files.read_leader_epochs(str(target / "leader-epoch-checkpoint")) == [(0, 0)]
    p = result.partitions["clicks-0"]
    assert (p.log_start_offset, p.end_offset, p.epochs_lowered) == (0, 30, 3)
    assert not [n for n in os.listdir(running) if n.endswith("-delete")]
    with Log.open(str(target), read_only=True) as log:
        assert [r.value for r in log.records()] == [b"v%d" % j for j in range(30)]
    assert "checkpoint" not in " ".join(os.listdir(running))  # the broker's root files are not touched
    assert any("now create 'clicks'" in w for w in result.warnings)


def test_copy_leaves_the_source_as_it_was(running: Path, tmp_path: Path) -> None:
    src = tmp_path / "staging" / "clicks-1"
    _write(src, epoch=3)
    before = {n: (src / n).read_bytes() for n in os.listdir(src) if (src / n).is_file()}
    adopt_new_topic(running, [src])
    assert {n: (src / n).read_bytes() for n in os.listdir(src) if (src / n).is_file()} == before
    assert (running / "clicks-1" / "00000000000000000000.log").exists()


def test_refusals_name_each_reason_and_write_nothing(running: Path, tmp_path: Path) -> None:
    ok = tmp_path / "s" / "fresh-0"
    _write(ok)
    taken = tmp_path / "s" / "taken-0"
    _write(taken)
    (running / "taken-0").mkdir()  # the broker has a directory for it: the topic exists
    inside = tmp_path / "s" / "inside-0"
    _write(inside)
    with Log.open(str(inside)) as log:
        log.delete_records(5)
    bad_name = tmp_path / "s" / "notapartition"
    bad_name.mkdir()
    before = sorted(os.listdir(running))
    with pytest.raises(AdoptError) as err:
        adopt_new_topic(running, [ok, taken, inside, bad_name, ok])
    text = str(err.value)
    assert "taken-0 exists" in text
    assert "starts at 5, inside its first segment" in text
    assert "not a partition directory name" in text
    assert "given twice" in text
    assert text.count(str(ok) + ":") == 1 and "fresh-0 is given twice" in text  # (given once, it was fine)
    assert sorted(os.listdir(running)) == before and ok.exists()


def test_refuses_a_stopped_broker(tmp_path: Path) -> None:
    src = tmp_path / "s" / "t-0"
    _write(src)
    (tmp_path / "data").mkdir()
    with pytest.raises(AdoptError, match="no broker is running"):
        adopt_new_topic(tmp_path / "data", [src])


def test_dry_run_writes_nothing(running: Path, tmp_path: Path) -> None:
    src = tmp_path / "s" / "t-0"
    _write(src, epoch=2)
    seg = (src / "00000000000000000000.log").read_bytes()
    result = adopt_new_topic(running, [src], move=True, dry_run=True)
    assert result.partitions["t-0"].epochs_lowered == 3
    assert (src / "00000000000000000000.log").read_bytes() == seg and not (running / "t-0").exists()


def test_rename_never_replaces(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    (a / "f").write_text("x")
    b.mkdir()  # empty: os.rename would replace it silently
    with pytest.raises(FileExistsError):
        rename_no_replace(str(a), str(b))
    assert (a / "f").exists() and not os.listdir(b)
    os.rmdir(b)
    rename_no_replace(str(a), str(b))
    assert (b / "f").read_text() == "x" and not a.exists()


def test_cli(running: Path, tmp_path: Path) -> None:
    src = tmp_path / "s" / "orders-0"
    _write(src)
    run = subprocess.run([sys.executable, "-m", "kvlog", "adopt", "--new-topic", "--move", str(running), str(src)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "orders-0: adopted offsets 0..29, topic id from its creation" in run.stdout
    assert "now create 'orders'" in run.stderr
    bad = subprocess.run([sys.executable, "-m", "kvlog", "adopt", "--new-topic", "--force", str(running), str(src)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--force cannot go with --new-topic" in bad.stderr
    again = subprocess.run([sys.executable, "-m", "kvlog", "adopt", "--new-topic", str(running),
                            str(running / "orders-0")], capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and "exists" in again.stderr


def test_refuses_a_kraft_broker_without_its_metadata(running: Path, tmp_path: Path) -> None:
    src = tmp_path / "s" / "t-0"
    _write(src)
    (running / "meta.properties").write_text("node.id=1\nversion=1\ncluster.id=x\n")
    with pytest.raises(AdoptError, match="give --metadata-dir"):
        adopt_new_topic(running, [src])
    assert src.exists() and not (running / "t-0").exists()


def test_refuses_an_open_transaction(running: Path, tmp_path: Path) -> None:
    src = tmp_path / "s" / "txn-0"
    _write(src, n=10)
    with Log.open(str(src)) as log:
        log.append(kvlog.encode_batch([kvlog.Record(b"t", b"open")], producer_id=7_000_001, producer_epoch=0,
                                      base_sequence=0, is_transactional=True))
    with pytest.raises(AdoptError, match="a transaction is open at offset 10"):
        adopt_new_topic(running, [src])
    assert not (running / "txn-0").exists()
