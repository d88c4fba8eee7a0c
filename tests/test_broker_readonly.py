"""Read-only and dry-run commands leave a real broker's directory byte-identical (every file's name, size,
mode, mtime and bytes), for each version's directories while running and after a clean stop:
a broker's directory has no ``.kvlog.lock`` to reuse and holds Kafka's own files of every kind."""

from __future__ import annotations

import shutil

import pytest

import kvlog
from kvlog.cli import main
from kvlog.log import Log
from tests.kafka_oracle import fixtures as F
from tests.test_cli_readonly import assert_unchanged, tree_state


def stat_state(root) -> dict[str, tuple]:
    """Every entry's kind, size, mode and mtime (ns): a write shows here at once; the bytes are hashed
    (``tree_state``) before the first command and after the last, as the preallocated indexes make the hash
    the slow part."""
    out: dict[str, tuple] = {}
    for p in [root, *root.rglob("*")]:
        st = p.lstat()
        out[str(p.relative_to(root))] = (p.is_dir(), st.st_size, st.st_mode, st.st_mtime_ns)
    return out

pytestmark = pytest.mark.broker


def commands(root, data, meta) -> list[list[str]]:
    part = str(data / "txn-0")
    logs = ",".join(str(p) for p in sorted((data / "txn-0").iterdir()) if p.suffix in (".log", ".index",
                                                                                      ".timeindex", ".txnindex"))
    out = [["verify", str(data)], ["verify", "--json", str(data)], ["verify", part],
           ["offsets", str(data), "--timestamp", "max"], ["offsets", part, "--timestamp", "earliest"],
           ["groups", str(data)], ["groups", str(data), "--json"],
           ["dump", "--files", logs, "--deep-iteration", "--print-data-log"],
           ["dump", "--files", logs, "--index-sanity-check"], ["dump", "--files", logs, "--verify-index-only"],
           ["repair", "--dry-run", str(data)], ["retention", "--dry-run", str(data)]]
    if (root / "remote").exists():
        out.append(["verify", str(data / "tiered-0"), "--remote-storage", str(root / "remote" / "kafka-tiered-storage")])
    if meta.exists():
        out.append(["dump", "--files", ",".join(str(p) for p in sorted(meta.glob("__cluster_metadata-0/*.log"))),
                    "--cluster-metadata-decoder"])
        out.append(["verify", str(meta / "__cluster_metadata-0")])
    return out


@pytest.mark.parametrize("state", [pytest.param("running", id="running"), pytest.param("clean", id="clean")])
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_commands_and_readers_leave_the_broker_directory_unchanged(version, state, tmp_path, capfd):
    """(In one process, through ``kvlog.cli.main``: the commands' code, without an interpreter start each.)"""
    # on a copy: the scenario's own directories are shared by the other broker tests
    root = tmp_path / state
    shutil.copytree(F.scenario_dir(version) / state, root, symlinks=True)
    data, meta = root / "data", root / "meta"
    before = tree_state(root)
    stats = stat_state(root)
    for argv in commands(root, data, meta):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
        err = capfd.readouterr().err
        # (an active segment's preallocated time index fails Kafka's sanity check, in both tools)
        sanity_fails = "--index-sanity-check" in argv and state != "clean"
        assert rc == (1 if sanity_fails else 0), (argv, err[-2000:])
        assert_unchanged(stats, stat_state(root))
    with kvlog.LogManager(data, read_only=True) as mgr:
        for topic, p in F.partitions(version):
            log = mgr.log(topic, p)
            log.to_arrow()
            log.offset_for_timestamp(kvlog.MAX_TIMESTAMP)
    for topic, p in F.partitions(version)[:5]:
        with Log.open(data / f"{topic}-{p}", read_only=True) as log:
            list(log.records(isolation_level=kvlog.READ_COMMITTED))
    kvlog.consumer_offsets(data)
    if meta.exists():
        kvlog.cluster_metadata(meta)
    assert_unchanged(before, tree_state(root))
