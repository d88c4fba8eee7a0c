"""``kvlog iceberg export|status``: the command line over kvlog.iceberg, its output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


import kvlog
import kvlog.iceberg as ki
from kvlog.cli import main
from tests.iceberg_support import assert_exactly, write_topic


def test_export_then_status(tmp_path: Path, capfd: pytest.CaptureFixture[str]):
    root, wh = tmp_path / "d", tmp_path / "wh"
    expected = write_topic(root, partitions=2, n=50)
    args = [str(root), "--topic", "clicks", "--table", "kafka.clicks", "--warehouse", str(wh)]
    assert main(["iceberg", "export", *args]) == 0
    out = capfd.readouterr().out
    assert out.startswith("kafka.clicks: 100 rows added from clicks in 1 commit (")
    assert main(["iceberg", "export", *args]) == 0
    assert capfd.readouterr().out == "kafka.clicks: up to date with clicks (2 partitions; nothing to add)\n"
    assert_exactly(ki.catalog(wh), "kafka.clicks", expected)
    write_topic(root, partitions=2, n=10, start=50)
    assert main(["iceberg", "status", *args]) == 0
    lines = capfd.readouterr().out.splitlines()
    assert lines[1].split() == ["partition", "exported", "log", "start", "committed", "end", "log", "end", "lag"]
    assert [line.split() for line in lines[2:4]] == [["0", "50", "0", "60", "60", "10"], ["1", "50", "0", "60", "60", "10"]]
    assert lines[-1] == "lag: 20 records to export"
    assert main(["iceberg", "status", *args, "--json"]) == 0
    st = json.loads(capfd.readouterr().out)
    assert st["lag"] == 20 and st["partitions"][0] == {"partition": 0, "exported": 50, "log_start": 0, "end": 60,
                                                      "log_end": 60, "lag": 10, "gap": False}
    assert main(["iceberg", "export", *args, "--json"]) == 0
    r = json.loads(capfd.readouterr().out)
    assert (r["rows"], r["offsets"], r["previous"]) == (20, {"0": 60, "1": 60}, {"0": 50, "1": 50})


def test_gaps_exit_1_unless_accepted(tmp_path: Path, capfd: pytest.CaptureFixture[str]):
    root, wh = tmp_path / "d", tmp_path / "wh"
    write_topic(root, partitions=1, n=50)
    args = [str(root), "--topic", "clicks", "--table", "kafka.clicks", "--warehouse", str(wh)]
    assert main(["iceberg", "export", *args, "--unpartitioned"]) == 0
    write_topic(root, partitions=1, n=50, start=50)
    with kvlog.LogManager(root) as m:
        m.log("clicks", 0).delete_records(80)
    capfd.readouterr()
    assert main(["iceberg", "export", *args]) == 1
    err = capfd.readouterr().err
    assert "partition 0 [50, 80): retention moved the log start to 80" in err and "--accept-gaps" in err
    assert main(["iceberg", "status", *args]) == 0
    assert "GAP: records lost before export" in capfd.readouterr().out
    assert main(["iceberg", "export", *args, "--accept-gaps"]) == 0
    out, err = capfd.readouterr()
    assert "20 rows added" in out and "gap accepted: partition 0 [50, 80)" in err


def test_usage_and_errors(tmp_path: Path, capfd: pytest.CaptureFixture[str]):
    root, wh = tmp_path / "d", tmp_path / "wh"
    write_topic(root, partitions=1, n=5)
    args = [str(root), "--topic", "clicks", "--table", "kafka.clicks"]
    assert main(["iceberg"]) == 2
    assert main(["iceberg", "export", *args]) == 1
    assert "give --warehouse DIR" in capfd.readouterr().err
    assert main(["iceberg", "status", *args, "--warehouse", str(wh)]) == 1
    assert "kafka.clicks: no such table in the catalog" in capfd.readouterr().err
    assert main(["iceberg", "export", *args, "--warehouse", str(wh), "--dlq"]) == 1
    assert "give value_format" in capfd.readouterr().err
    assert main(["iceberg", "export", *args, "--warehouse", str(wh), "--unpartitioned", "--partition-by", "x"]) == 2
    assert main(["iceberg", "export", str(root), "--topic", "nope", "--table", "kafka.x", "--warehouse", str(wh)]) == 1
    assert "no topic 'nope'" in capfd.readouterr().err
    assert main(["iceberg", "export", *args, "--warehouse", str(wh), "--partition-by", "day(timestamp)",
                 "--target-file-mb", "64"]) == 0
    t = ki.catalog(wh).load_table("kafka.clicks")
    assert t.properties["write.target-file-size-bytes"] == str(64 << 20)
    assert [str(f.transform) for f in t.spec().fields] == ["day"]
