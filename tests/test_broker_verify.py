"""``kvlog verify`` passes on every directory a healthy broker left, of every version: a running broker's
(preallocated indexes, open segments), after a clean stop and after SIGKILL; the KRaft metadata log too."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.kafka_oracle import fixtures as F

pytestmark = pytest.mark.broker


def verify(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "kvlog", "verify", "--json", *args], capture_output=True, text=True,
                       check=False)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def problems(report: dict) -> list[str]:
    out = [f"{p['severity']}: {p['file']}: {p['message']}" for p in report["problems"]]
    for part in report["partitions"]:
        out += [f"{part['path']}: error: {p['file']}: {p['message']}" for p in part["errors"]]
        out += [f"{part['path']}: warning: {p['file']}: {p['message']}" for p in part["warnings"]]
    return out


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.VERSION_PARAMS)
def test_verify_passes_on_broker_directories(version, state):
    report = verify(str(F.data_dir(version, state)))
    found = problems(report)
    assert report["ok"], "\n".join(found)
    assert len(report["partitions"]) == len(F.partitions(version, tiered=True))


@pytest.mark.parametrize("state", F.STATE_PARAMS)
@pytest.mark.parametrize("version", F.KRAFT_VERSION_PARAMS)
def test_verify_passes_on_kraft_metadata_log(version, state):
    meta = F.scenario_dir(version) / state / "meta" / "__cluster_metadata-0"
    report = verify(str(meta))
    assert report["ok"], "\n".join(problems(report))
