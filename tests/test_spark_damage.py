"""Both Spark engines give the same answer on damaged durable data: an error by default, the same skipped
rows with failOnDataLoss=false; never a silently shorter result from one of them."""

from __future__ import annotations

import os
import shutil

import pytest

import kvlog
import kvlog.spark
from kvlog import checkpoint

from conftest import FIXTURES

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark

T0 = 1_700_000_000_000
SEG = "00000000000000000000.log"


def _broker_dir(root: str) -> str:
    """TestTopicPatient-0 as a broker leaves it: three batches, the high watermark checkpointed at 3; and the
    real KRaft segment, its high watermark at 4."""
    path = os.path.join(root, "TestTopicPatient-0")
    with kvlog.Log.open(path) as log:
        for i in range(3):
            log.append([kvlog.Record(b"k%d" % i, b"value-%d" % i * 30, T0 + i)])
    os.unlink(os.path.join(root, checkpoint.RECOVERY_POINT))
    kraft = os.path.join(root, "__cluster_metadata-0")
    os.makedirs(kraft)
    shutil.copyfile(FIXTURES / "kraft-metadata" / SEG, os.path.join(kraft, SEG))
    checkpoint.write_offsets(os.path.join(root, checkpoint.REPLICATION_OFFSET),
                             {("TestTopicPatient", 0): 3, ("__cluster_metadata", 0): 4})
    return path


def _targets(data: bytes, every: bool) -> list[int]:
    """Bytes of the base offset, length, leader epoch, magic, CRC, attributes, and a record byte: of every
    batch, or (by default) each field in one batch, the batches taken in turn."""
    batches, out = list(kvlog.MemoryRecords(data).batches()), []
    for i, b in enumerate(batches):
        p = b.position
        fields = [p + 7, p + 11, p + 15, p + 16, p + 18, p + 22, p + b.size_in_bytes - 3]
        out += fields if every else fields[i::len(batches)]
    return out


def _outcome(spark, fmt: str, root: str, topic: str, fail_on_data_loss: bool) -> object:
    opts = {"subscribe": topic, "failOnDataLoss": str(fail_on_data_loss).lower()}
    try:
        df = spark.read.format(fmt).options(**opts).load(root)
        return sorted(tuple(r) for r in df.select("offset", "key", "value").collect())  # offsets are unique
    except Exception as exc:  # noqa: BLE001 - a Py4J or Python worker error, whichever engine
        text = str(exc)
        assert "orrupt" in text or "damaged" in text, text[:2000]
        return "error"


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["sampled", "every"])
@pytest.mark.parametrize("topic", ["TestTopicPatient", "__cluster_metadata"])
def test_engines_agree_on_damage(jvm, tmp_path, topic, every):
    root = str(tmp_path / "data")
    _broker_dir(root)
    seg = os.path.join(root, f"{topic}-0", SEG)
    with open(seg, "rb") as f:
        pristine = f.read()
    original = _outcome(jvm, "kvlog_python", root, topic, True)
    assert original != "error" and len(original) in (3, 4)
    errors = 0
    for position in _targets(pristine, every):
        damaged = bytearray(pristine)
        damaged[position] ^= 0xFF
        with open(seg, "wb") as f:
            f.write(bytes(damaged))
        strict = {fmt: _outcome(jvm, fmt, root, topic, True) for fmt in ("kvlog_python", "kvlog")}
        assert strict["kvlog_python"] == strict["kvlog"], position
        assert strict["kvlog"] in ("error", original), position  # never a shorter answer in silence
        errors += strict["kvlog"] == "error"
        lenient = {fmt: _outcome(jvm, fmt, root, topic, False) for fmt in ("kvlog_python", "kvlog")}
        assert lenient["kvlog_python"] == lenient["kvlog"], position
        assert set(lenient["kvlog"]) <= set(original), position
    assert errors > 0
