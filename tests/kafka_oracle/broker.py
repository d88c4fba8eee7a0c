"""A real Kafka broker of a pinned version, started from Kafka's own jars, for the broker tests.

The jars come from Maven Central (``tools/kafka-oracle/fetch.sh`` into ``build/kafka-oracle/<version>/``).
Kafka 4.x runs in KRaft combined mode (one process, broker and controller, static voters so the ports may
change between restarts); Kafka 2.8 and 3.7 run in ZooKeeper mode beside a ZooKeeper server started from
the ZooKeeper jar the broker ships with. Everything binds to 127.0.0.1 on free ports; every process is
started in its own session and only that process is signalled.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JARS = Path(os.environ.get("KVLOG_KAFKA_JARS", REPO / "build" / "kafka-oracle"))

#: The versions the broker tests run, oldest first. Each has a pom in tools/kafka-oracle/.
VERSIONS = ("2.8.2", "3.7.2", "4.1.2", "4.4.0")

JVM_OPTS = ["-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true",
            "-Dzookeeper.admin.enableServer=false", "-Dfile.encoding=UTF-8", "-Dsun.stdout.encoding=UTF-8",
            "-Dsun.stderr.encoding=UTF-8"]


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def random_uuid() -> str:
    """A Kafka Uuid in its string form: 22 characters of URL-safe base64, not starting with "-" (Kafka's
    Uuid.randomUuid draws again then: such an id would read as an option, and `kafka-storage format -t` fails)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        if not text.startswith("-"):
            return text


@dataclass(frozen=True)
class KafkaDist:
    """One Kafka version's fetched class path."""

    version: str
    jars: Path

    @classmethod
    def find(cls, version: str) -> KafkaDist | None:
        d = JARS / version
        return cls(version, d) if (d / ".complete").is_file() else None

    @property
    def classpath(self) -> str:
        return str(self.jars / "*")

    @property
    def zookeeper(self) -> bool:
        """Whether this version runs with ZooKeeper here (before 4.0; 4.0 removed ZooKeeper mode)."""
        return version_tuple(self.version) < (4, 0)

    @property
    def dump_class(self) -> str:
        for jar in self.jars.glob("kafka_2.13-*.jar"):
            with zipfile.ZipFile(jar) as z:
                if "kafka/tools/DumpLogSegments.class" in z.namelist():
                    return "kafka.tools.DumpLogSegments"
        return "org.apache.kafka.tools.DumpLogSegments"

    def java_cmd(self, main: str, *args: str, log_level: str = "warn", log_file: str = "System.err",
                 extra_jvm: tuple[str, ...] = (), extra_classpath: tuple[str, ...] = ()) -> list[str]:
        exe = java()
        assert exe is not None
        return [exe, *JVM_OPTS, *extra_jvm,
                f"-Dorg.slf4j.simpleLogger.defaultLogLevel={log_level}",
                f"-Dorg.slf4j.simpleLogger.logFile={log_file}",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.log.kafka.request.logger=warn",
                "-Dorg.slf4j.simpleLogger.log.org.apache.zookeeper=warn",
                "-cp", ":".join((*extra_classpath, self.classpath)), main, *args]

    def run_tool(self, main: str, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.java_cmd(main, *args), capture_output=True, text=True, timeout=timeout,
                              check=False)


class BrokerError(RuntimeError):
    pass


@dataclass
class Broker:
    """One single-node cluster: a broker (and its controller or ZooKeeper) over ``root``.

    ``root/data`` is ``log.dirs``; KRaft keeps ``__cluster_metadata-0`` in ``root/meta``
    (``metadata.log.dir``); ZooKeeper keeps its state in ``root/zk``. ``extra`` adds broker settings.
    """

    dist: KafkaDist
    root: Path
    extra: dict[str, str] = field(default_factory=dict)
    classpath: tuple[str, ...] = ()  # before Kafka's jars (a plugin of the tests')
    node_id: int = 1
    cluster_id: str = field(default_factory=random_uuid)
    proc: subprocess.Popen[bytes] | None = None
    zk_proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    controller_port: int = 0
    zk_port: int = 0
    starts: int = 0
    heap: str = "768m"  # the broker JVM's -Xmx (a cluster's brokers share the machine and take less)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def meta(self) -> Path:
        return self.root / "meta"

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.root / "broker.out"

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    # -- configuration -------------------------------------------------------------------------------
    def _properties(self) -> dict[str, str]:
        p = {
            "log.dirs": str(self.data),
            "num.partitions": "1",
            "default.replication.factor": "1",
            "min.insync.replicas": "1",
            "auto.create.topics.enable": "false",
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "transaction.state.log.num.partitions": "1",
            "group.initial.rebalance.delay.ms": "0",
            "num.network.threads": "2",
            "num.io.threads": "2",
            "num.recovery.threads.per.data.dir": "1",
            "background.threads": "2",
            "log.cleaner.threads": "1",
            "log.cleaner.dedupe.buffer.size": "16777216",
            "log.cleaner.backoff.ms": "200",
            "log.retention.check.interval.ms": "1000",
            "log.initial.task.delay.ms": "0",
            "log.flush.offset.checkpoint.interval.ms": "1000",
            "log.flush.start.offset.checkpoint.interval.ms": "1000",
            "transaction.remove.expired.transaction.cleanup.interval.ms": "3600000",
        }
        if self.dist.zookeeper:
            p.update({
                "broker.id": str(self.node_id),
                "zookeeper.connect": f"127.0.0.1:{self.zk_port}",
                "zookeeper.connection.timeout.ms": "30000",
                "listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            })
        else:
            p.update({
                "process.roles": "broker,controller",
                "node.id": str(self.node_id),
                "controller.quorum.voters": f"{self.node_id}@127.0.0.1:{self.controller_port}",
                "listeners": f"PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{self.controller_port}",
                "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
                "inter.broker.listener.name": "PLAINTEXT",
                "controller.listener.names": "CONTROLLER",
                "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "metadata.log.dir": str(self.meta),
                "share.coordinator.state.topic.replication.factor": "1",
                "share.coordinator.state.topic.min.isr": "1",
                "share.coordinator.state.topic.num.partitions": "1",
            })
        p.update(self.extra)
        return p

    def configure(self) -> None:
        """Pick free ports and write ``server.properties`` (again before every start)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.port, self.controller_port, self.zk_port = free_ports(3)
        text = "".join(f"{k}={v}\n" for k, v in sorted(self._properties().items()))
        (self.root / "server.properties").write_text(text)

    def format(self) -> None:
        """``kafka-storage format`` (KRaft only): meta.properties in every log dir."""
        if self.dist.zookeeper:
            return
        r = self.dist.run_tool("kafka.tools.StorageTool", "format", "-t", self.cluster_id,
                               "-c", str(self.root / "server.properties"))
        if r.returncode != 0:
            raise BrokerError(f"StorageTool format failed ({r.returncode}): {r.stdout}\n{r.stderr}")

    # -- lifecycle -----------------------------------------------------------------------------------
    def _start_zookeeper(self, deadline: float) -> None:
        zk_dir = self.root / "zk"
        zk_dir.mkdir(parents=True, exist_ok=True)
        out = open(self.root / "zookeeper.out", "ab")
        cmd = self.dist.java_cmd("org.apache.zookeeper.server.ZooKeeperServerMain",
                                 str(self.zk_port), str(zk_dir), "500", "60",
                                 log_level="warn", log_file="System.out",
                                 extra_jvm=("-Xmx128m",))
        self.zk_proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        while time.monotonic() < deadline:
            if self.zk_proc.poll() is not None:
                raise BrokerError("ZooKeeper exited: " + (self.root / "zookeeper.out").read_text()[-3000:])
            try:
                with socket.create_connection(("127.0.0.1", self.zk_port), timeout=1) as s:
                    s.sendall(b"srvr")
                    if s.recv(64):
                        return
            except OSError:
                pass
            time.sleep(0.2)
        raise BrokerError("ZooKeeper did not start")

    def start(self, timeout: float = 120.0) -> None:
        """Start and wait until the broker serves (its 'started' line, then a metadata request)."""
        if self.proc is not None and self.proc.poll() is None:
            raise BrokerError("already running")
        deadline = time.monotonic() + timeout
        if self.starts == 0 or not (self.root / "server.properties").exists():
            self.configure()
            if self.starts == 0:
                self.format()
        else:
            # New broker ports on every start; ZooKeeper keeps its port while it runs.
            zk_port = self.zk_port
            self.configure()
            if self.zk_proc is not None and self.zk_proc.poll() is None:
                self.zk_port = zk_port
                text = "".join(f"{k}={v}\n" for k, v in sorted(self._properties().items()))
                (self.root / "server.properties").write_text(text)
        if self.dist.zookeeper and (self.zk_proc is None or self.zk_proc.poll() is not None):
            self._start_zookeeper(deadline)
        mark = len(self.log_text())
        out = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            self.dist.java_cmd("kafka.Kafka", str(self.root / "server.properties"), log_level="info",
                               log_file="System.out", extra_jvm=(f"-Xmx{self.heap}",),
                               extra_classpath=self.classpath),
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        self.starts += 1
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrokerError(f"Kafka {self.dist.version} exited ({self.proc.returncode}):\n"
                                  + self.log_text()[-6000:])
            text = self.log_text()[mark:]
            if "Kafka Server started" in text or f"[KafkaServer id={self.node_id}] started" in text:
                break
            time.sleep(0.2)
        else:
            self.stop(kill=True)
            raise BrokerError(f"Kafka {self.dist.version} did not start in {timeout} s:\n"
                              + self.log_text()[-6000:])
        self._wait_serving(deadline)

    def _wait_serving(self, deadline: float) -> None:
        from kafka import KafkaAdminClient

        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=5000)
                try:
                    admin.list_topics()
                    return
                finally:
                    admin.close()
            except Exception as e:  # noqa: BLE001 - retried until the deadline, then reported
                last = e
                time.sleep(0.5)
        raise BrokerError(f"broker started but does not serve: {last!r}")

    def stop(self, kill: bool = False, timeout: float = 90.0) -> None:
        """SIGTERM (a controlled shutdown that leaves ``.kafka_cleanshutdown``), or SIGKILL with ``kill``."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise BrokerError(f"Kafka {self.dist.version} did not stop in {timeout} s; killed") from None
        self.proc = None

    def stop_all(self, kill: bool = False) -> None:
        """The broker, then ZooKeeper."""
        try:
            self.stop(kill=kill)
        finally:
            if self.zk_proc is not None and self.zk_proc.poll() is None:
                self.zk_proc.send_signal(signal.SIGTERM)
                try:
                    self.zk_proc.wait(30)
                except subprocess.TimeoutExpired:
                    self.zk_proc.kill()
                    self.zk_proc.wait()
            self.zk_proc = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self) -> Broker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_all()
