"""Kafka's own Java client as the tests' reference reader, producer and admin (tools/kafka-oracle/client).

``OracleClient.java`` is compiled once against the newest fetched Kafka's jars (its clients speak to every
broker from 2.1 on) into ``build/kafka-oracle/client/``; :func:`run` sends it a list of steps as JSON and
returns its JSON answer.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.kafka_oracle.broker import JARS, KafkaDist, java

SOURCE = Path(__file__).resolve().parents[2] / "tools" / "kafka-oracle" / "client" / "OracleClient.java"
CLIENT_VERSION = "4.4.0"


class ClientError(RuntimeError):
    pass


def client_dist() -> KafkaDist | None:
    return KafkaDist.find(CLIENT_VERSION)


RSM_SOURCE = SOURCE.parents[1] / "rsm" / "DirectoryRemoteStorage.java"


def compiled(source: Path = SOURCE, version: str = CLIENT_VERSION) -> Path:
    """The class directory of ``source`` compiled against Kafka ``version``'s jars, compiled when the source
    changed (keyed by its hash)."""
    dist = KafkaDist.find(version)
    if dist is None:
        raise ClientError(f"Kafka {version}'s jars are not fetched (tools/kafka-oracle/fetch.sh)")
    digest = hashlib.sha256(source.read_bytes() + version.encode()).hexdigest()[:16]
    out = JARS / "classes" / f"{source.stem}-{digest}"
    if (out / ".complete").is_file():
        return out
    javac = shutil.which("javac")
    if javac is None:
        raise ClientError("javac is not on PATH")
    tmp = Path(tempfile.mkdtemp(prefix="client-", dir=JARS))
    r = subprocess.run([javac, "-nowarn", "-d", str(tmp), "-cp", dist.classpath, str(source)],
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise ClientError(f"javac failed:\n{r.stdout}\n{r.stderr}")
    (tmp / ".complete").touch()
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp.rename(out)
    except OSError:  # another process compiled it first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def run(bootstrap: str, steps: list[dict[str, Any]], workdir: Path, timeout: float = 300) -> dict[str, Any]:
    """Run ``steps`` (see OracleClient.java) against ``bootstrap``; the answer keyed by step name."""
    dist = client_dist()
    assert dist is not None
    classes = compiled()
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=workdir, delete=False) as f:
        json.dump({"bootstrap": bootstrap, "steps": steps}, f)
        request = Path(f.name)
    answer = request.with_suffix(".answer.json")
    exe = java()
    assert exe is not None
    cmd = [exe, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
           "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.logFile=System.err",
           "-cp", f"{classes}:{dist.classpath}", "io.kvlog.oracle.OracleClient", str(request), str(answer)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if r.returncode != 0:
        raise ClientError(f"OracleClient failed ({r.returncode}) on {[s['op'] for s in steps]}:\n"
                          f"{r.stdout[-3000:]}\n{r.stderr[-6000:]}")
    result: dict[str, Any] = json.loads(answer.read_text())
    request.unlink()
    answer.unlink()
    return result


def b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)
