"""Options that do not go together are usage errors: the command's usage on stderr and exit status 2, as
argparse gives for the errors it finds itself (docs/cli.md: 0 all well, 1 a check failed, 2 usage)."""

from __future__ import annotations

import pytest

from kvlog import Log, Record
from kvlog.cli import main

T0 = 1_700_000_000_000


@pytest.fixture
def partition(tmp_path):
    with Log.open(tmp_path / "data" / "orders-0") as log:
        log.append([Record(b"k", b"v", T0)])
    return tmp_path / "data" / "orders-0"


@pytest.mark.parametrize("extra,message", [
    ([], "offsets needs --timestamp T (or --group G --target MIRROR_ROOT)"),
    (["--margin", "5"], "offsets needs --timestamp T"),
    (["--timestamp", "0", "--target", "m"], "--target only apply with --group G"),
    (["--timestamp", "0", "--as-of", "0", "--topic-map", "a=b"], "--as-of, --topic-map only apply with --group G"),
    (["--group", "g"], "--group needs --target MIRROR_ROOT"),
    (["--group", "g", "--target", "m", "--timestamp", "0"], "--group and --timestamp exclude each other"),
])
def test_offsets_usage_errors_exit_2_with_the_usage(partition, capfd, extra, message):
    assert main(["offsets", str(partition), *extra]) == 2
    out, err = capfd.readouterr()
    lines = err.splitlines()
    assert out == "" and lines[0].startswith("usage: kvlog offsets ") and lines[-1].startswith(f"kvlog: {message}")


def test_a_missing_timestamp_is_a_usage_error_before_the_path_is_looked_at(tmp_path, capfd):
    assert main(["offsets", str(tmp_path / "missing")]) == 2
    assert capfd.readouterr().err.splitlines()[-1].startswith("kvlog: offsets needs --timestamp")


def test_the_same_command_runs_with_its_options(partition, capfd):
    assert main(["offsets", str(partition), "--timestamp", str(T0)]) == 0
    assert capfd.readouterr().out.splitlines() == [f"0 {T0}"]
