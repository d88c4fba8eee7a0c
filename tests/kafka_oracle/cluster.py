"""A real Kafka cluster of one pinned version: N brokers, each with several log directories (JBOD).

Kafka 4.x runs in KRaft mode, either every node ``broker,controller`` (``controllers="combined"``: the
brokers are the voters) or beside one controller-only process (``controllers="separate"``); 3.7 runs in
ZooKeeper mode with one ZooKeeper server. Replication factor 3 and ``min.insync.replicas=2`` are the
defaults of the cluster's topics and internal topics, as in a production cluster.

Every node is a :class:`tests.kafka_oracle.broker.Broker` (a :class:`Node`) whose ports are chosen once,
when the cluster is made, and kept for its life: the voters' addresses are written into every node's
``controller.quorum.voters``, so a node restarted on other ports would no longer be found by the others.
A combined quorum cannot start one node at a time (a node's start waits for a quorum), so nodes start in
threads; for the same reason stopping the last two voters one after the other would leave the last one
waiting for a controller to grant its controlled shutdown, so :meth:`Cluster.stop_all` stops them together.
"""

from __future__ import annotations

import errno
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.kafka_oracle.broker import Broker, BrokerError, KafkaDist, free_ports, random_uuid

#: The node id of the controller-only process (``controllers="separate"``): apart from the brokers' 1..N.
CONTROLLER_ID = 100

#: Settings of every broker of a cluster, over the single broker's (``Broker._properties``).
CLUSTER_SETTINGS = {
    "default.replication.factor": "3",
    "min.insync.replicas": "2",
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "3",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "transaction.state.log.num.partitions": "2",
    "num.replica.fetchers": "1",
    "num.replica.alter.log.dirs.threads": "1",
    "replica.high.watermark.checkpoint.interval.ms": "1000",
    # a partition's replicas are spread over the brokers by the controller; keep its leaders where they are
    # during a scenario (the preferred-leader rebalance would move them after 5 minutes)
    "auto.leader.rebalance.enable": "false",
}
KRAFT_SETTINGS = {
    "share.coordinator.state.topic.replication.factor": "3",
    "share.coordinator.state.topic.min.isr": "2",
    # a killed broker is fenced after the session timeout (default 9 s): shorter, for the scenarios
    "broker.heartbeat.interval.ms": "1000",
    "broker.session.timeout.ms": "6000",
}
ZOOKEEPER_SETTINGS = {
    # a killed broker's ephemeral znode lives for the session timeout (default 18 s)
    "zookeeper.session.timeout.ms": "6000",
    # the last broker's controlled shutdown is refused (nowhere to move its leaders) and retried 3 times,
    # 5 s apart by default, before it shuts down anyway
    "controlled.shutdown.retry.backoff.ms": "500",
}


@dataclass
class Node(Broker):
    """One process of a cluster: a broker, a combined broker and controller, or a controller only.

    The cluster sets its ports (``port``, ``controller_port``, ``zk_port``) and ``voters`` before the first
    start; :meth:`configure` keeps them. ``root/data<i>`` are its log dirs, ``root/meta`` (KRaft) its
    ``metadata.log.dir``.
    """

    roles: str = "broker"  # KRaft process.roles: "broker", "broker,controller" or "controller"
    log_dirs: int = 2
    voters: str = ""  # controller.quorum.voters
    cluster_settings: dict[str, str] = field(default_factory=dict)

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles

    @property
    def is_controller(self) -> bool:
        return "controller" in self.roles

    @property
    def data_dirs(self) -> list[Path]:
        """The log dirs (``log.dirs``); none for a controller-only process."""
        return [self.root / f"data{i}" for i in range(self.log_dirs)] if self.is_broker else []

    @property
    def meta_dir(self) -> Path | None:
        """``metadata.log.dir`` (``__cluster_metadata-0`` and its meta.properties); None with ZooKeeper."""
        return None if self.dist.zookeeper else self.root / "meta"

    @property
    def data(self) -> Path:
        """The first log dir (a single broker's ``data``); a partition may be in any of :attr:`data_dirs`."""
        return self.data_dirs[0] if self.is_broker else self.root / "meta"

    def _properties(self) -> dict[str, str]:
        p = super()._properties()
        p.update(self.cluster_settings)
        p["log.dirs"] = ",".join(str(d) for d in self.data_dirs) or str(self.meta_dir)
        if not self.dist.zookeeper:
            listeners = []
            if self.is_broker:
                listeners.append(f"PLAINTEXT://127.0.0.1:{self.port}")
            if self.is_controller:
                listeners.append(f"CONTROLLER://127.0.0.1:{self.controller_port}")
            p.update({"process.roles": self.roles, "controller.quorum.voters": self.voters,
                      "listeners": ",".join(listeners)})
            if not self.is_broker:
                for key in ("advertised.listeners", "inter.broker.listener.name"):
                    p.pop(key, None)
        p.update(self.extra)
        return p

    def configure(self) -> None:
        """Write ``server.properties`` with the ports the cluster chose (the same on every start)."""
        self.root.mkdir(parents=True, exist_ok=True)
        text = "".join(f"{k}={v}\n" for k, v in sorted(self._properties().items()))
        (self.root / "server.properties").write_text(text)

    def _start_zookeeper(self, deadline: float) -> None:
        """The cluster runs the one ZooKeeper server; a node never starts its own."""

    def _wait_serving(self, deadline: float) -> None:
        if self.is_broker:
            super()._wait_serving(deadline)


def _in_threads(fns: list[Callable[[], None]]) -> None:
    """Run ``fns`` at once; raise the first failure after all have ended."""
    errors: list[BaseException] = []

    def run(fn: Callable[[], None]) -> None:
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - reported below, after every thread ended
            errors.append(e)

    threads = [threading.Thread(target=run, args=(fn,), daemon=True) for fn in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@dataclass
class Cluster:
    """``size`` brokers (ids 1..size) of ``dist`` over ``root``, each with ``log_dirs`` log dirs.

    ``root/broker-<id>/`` holds a broker's ``data<i>/``, ``meta/`` (KRaft), ``server.properties`` and
    ``broker.out``; ``root/controller/`` the controller-only process (``controllers="separate"``);
    ``root/zookeeper/zk/`` ZooKeeper's data (3.x). ``extra`` adds settings to every node.
    """

    dist: KafkaDist
    root: Path
    size: int = 3
    log_dirs: int = 2
    controllers: str = "combined"  # KRaft: "combined" (every broker a voter) or "separate" (one controller)
    extra: dict[str, str] = field(default_factory=dict)
    heap: str = "512m"
    cluster_id: str = field(default_factory=random_uuid)
    nodes: dict[int, Node] = field(init=False, default_factory=dict)
    controller: Node | None = field(init=False, default=None)
    zookeeper: Broker | None = field(init=False, default=None)  # a Broker never started: its ZooKeeper only

    def __post_init__(self) -> None:
        if self.controllers not in ("combined", "separate"):
            raise ValueError(f"controllers must be 'combined' or 'separate', not {self.controllers!r}")
        settings = dict(CLUSTER_SETTINGS)
        settings.update(ZOOKEEPER_SETTINGS if self.dist.zookeeper else KRAFT_SETTINGS)
        ids = list(range(1, self.size + 1))
        ports = iter(free_ports(2 * self.size + 2))
        zk_port = next(ports)
        separate = not self.dist.zookeeper and self.controllers == "separate"
        for i in ids:
            self.nodes[i] = Node(self.dist, self.root / f"broker-{i}", extra=dict(self.extra), node_id=i,
                                 cluster_id=self.cluster_id, port=next(ports), controller_port=next(ports),
                                 zk_port=zk_port, heap=self.heap, log_dirs=self.log_dirs,
                                 roles="broker" if separate else "broker,controller", cluster_settings=settings)
        if separate:
            self.controller = Node(self.dist, self.root / "controller", extra=dict(self.extra),
                                   node_id=CONTROLLER_ID, cluster_id=self.cluster_id, port=0,
                                   controller_port=next(ports), heap="256m", log_dirs=0, roles="controller",
                                   cluster_settings=settings)
        voters = [self.controller] if self.controller else list(self.nodes.values())
        quorum = ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in voters)
        for n in self.all_nodes:
            n.voters = quorum
        if self.dist.zookeeper:
            self.zookeeper = Broker(self.dist, self.root / "zookeeper", zk_port=zk_port)

    # -- what the tests read ---------------------------------------------------------------------------
    @property
    def kraft(self) -> bool:
        return not self.dist.zookeeper

    @property
    def mode(self) -> str:
        """"zookeeper", "combined" or "separate"."""
        return "zookeeper" if self.dist.zookeeper else self.controllers

    @property
    def all_nodes(self) -> list[Node]:
        """The brokers, then the controller-only process if any."""
        return [*self.nodes.values(), *([self.controller] if self.controller else [])]

    @property
    def broker_ids(self) -> list[int]:
        return list(self.nodes)

    def broker(self, broker_id: int) -> Node:
        return self.nodes[broker_id]

    def data_dirs(self, broker_id: int) -> list[Path]:
        return self.nodes[broker_id].data_dirs

    def meta_dir(self, broker_id: int) -> Path | None:
        return self.nodes[broker_id].meta_dir

    @property
    def bootstrap(self) -> str:
        """Every broker's address (a client finds the cluster through any one that runs)."""
        return ",".join(n.bootstrap for n in self.nodes.values())

    @property
    def running_ids(self) -> list[int]:
        return [i for i, n in self.nodes.items() if n.running]

    # -- lifecycle -------------------------------------------------------------------------------------
    def start(self, timeout: float = 180.0) -> None:
        """ZooKeeper or the controller, then every broker at once; return when every broker is registered."""
        self.root.mkdir(parents=True, exist_ok=True)
        if self.zookeeper is not None and (self.zookeeper.zk_proc is None or self.zookeeper.zk_proc.poll() is not None):
            self.zookeeper.root.mkdir(parents=True, exist_ok=True)
            self.zookeeper._start_zookeeper(time.monotonic() + timeout)
        if self.controller is not None and not self.controller.running:
            self.controller.start(timeout)
        self.start_brokers(*self.nodes, timeout=timeout)

    def start_brokers(self, *ids: int, timeout: float = 180.0) -> None:
        """Start these brokers at once (combined voters must: each waits for a quorum) and wait until the
        cluster's metadata lists them."""
        _in_threads([lambda n=self.nodes[i]: n.start(timeout) for i in ids if not self.nodes[i].running])
        self.wait_brokers(timeout=timeout)

    def start_broker(self, broker_id: int, timeout: float = 180.0) -> None:
        self.start_brokers(broker_id, timeout=timeout)

    def stop_broker(self, broker_id: int, kill: bool = False) -> None:
        """SIGTERM (a controlled shutdown: the controller moves its leaderships and shrinks the ISRs first),
        or SIGKILL with ``kill``. The last running voter of a combined quorum would wait for a controller
        that is gone to grant its controlled shutdown: stop the last two together (:meth:`stop_brokers`) or
        kill it."""
        self.nodes[broker_id].stop(kill=kill)

    def stop_brokers(self, *ids: int, kill: bool = False) -> None:
        """Stop these brokers at once."""
        _in_threads([lambda n=self.nodes[i]: n.stop(kill=kill) for i in ids])

    def stop_all(self, kill: bool = False) -> None:
        """Every broker (at once), the controller, ZooKeeper; every process is waited for, also on failure."""
        errors: list[BaseException] = []
        for step in (lambda: self.stop_brokers(*self.nodes, kill=kill),
                     lambda: self.controller.stop(kill=kill) if self.controller else None,
                     lambda: self.zookeeper.stop_all(kill=kill) if self.zookeeper else None):
            try:
                step()
            except BaseException as e:  # noqa: BLE001 - the next processes are stopped all the same
                errors.append(e)
        if errors:
            for n in self.all_nodes:
                n.stop(kill=True)
            raise errors[0]

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.stop_all(kill=True)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.stop_all()
        except BrokerError:
            self.stop_all(kill=True)
            raise

    # -- waiting for the cluster -----------------------------------------------------------------------
    @contextmanager
    def admin(self) -> Iterator[Any]:
        """kafka-python's admin client on the running brokers."""
        from kafka import KafkaAdminClient

        running = [self.nodes[i].bootstrap for i in self.running_ids]
        a = KafkaAdminClient(bootstrap_servers=running or self.bootstrap, request_timeout_ms=30000)
        try:
            yield a
        finally:
            a.close()

    def wait(self, what: str, cond: Callable[[], bool], timeout: float = 90.0, step: float = 0.3) -> None:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            try:
                if cond():
                    return
            except Exception as e:  # noqa: BLE001 - a cluster in transition answers with errors; retried
                last = e
            time.sleep(step)
        raise TimeoutError(f"Kafka {self.dist.version} cluster: {what} did not happen in {timeout} s"
                           + (f" (last error {last!r})" if last else ""))

    def wait_brokers(self, ids: Iterable[int] | None = None, timeout: float = 120.0) -> None:
        """Until the cluster's metadata lists exactly the running brokers (or ``ids``), none of them fenced."""
        want = set(self.running_ids if ids is None else ids)

        def listed() -> bool:
            with self.admin() as a:
                brokers = a.describe_cluster()["brokers"]
            return {b["broker_id"] for b in brokers if not b.get("is_fenced")} == want

        self.wait(f"brokers {sorted(want)} registered", listed, timeout)

    def partitions(self, topics: Iterable[str] | None = None) -> dict[tuple[str, int], dict[str, Any]]:
        """``{(topic, partition): {"leader", "leader_epoch", "replicas", "isr", "offline"}}`` as the cluster's
        metadata says (kafka-python's Metadata request)."""
        with self.admin() as a:
            described = a.describe_topics(list(topics) if topics is not None else None)
        out = {}
        for t in described:
            for p in t["partitions"]:
                out[(t["name"], p["partition_index"])] = {
                    "leader": p["leader_id"], "leader_epoch": p["leader_epoch"], "replicas": list(p["replica_nodes"]),
                    "isr": list(p["isr_nodes"]), "offline": list(p["offline_replicas"])}
        return out

    def wait_in_sync(self, topics: Iterable[str] | None = None, timeout: float = 120.0) -> None:
        """Until every partition of ``topics`` (all by default) has a leader and every replica in its ISR."""
        names = list(topics) if topics is not None else None

        def in_sync() -> bool:
            parts = self.partitions(names)
            return bool(parts) and all(p["leader"] >= 0 and set(p["isr"]) == set(p["replicas"])
                                       for p in parts.values())

        self.wait(f"ISR of {names or 'every topic'} full", in_sync, timeout)


def copy_tree(src: Path, dest: Path) -> None:
    """Copy ``src`` to ``dest`` as it is now, while a broker may be writing it: a file or directory that
    disappears in between (a checkpoint's ``.tmp``, a renamed ``-future`` or ``-delete`` directory) is left out,
    and the holes of sparse files (a running broker's preallocated indexes) stay holes."""
    for dirpath, _dirs, files in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            try:
                _copy_sparse(Path(dirpath) / name, dest / rel / name)
            except FileNotFoundError:
                continue


def _copy_sparse(src: Path, dst: Path) -> None:
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        fd = fi.fileno()
        size = os.fstat(fd).st_size
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
                end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            except OSError as e:
                if e.errno == errno.ENXIO:  # nothing but a hole after pos
                    break
                start, end = pos, size  # no SEEK_DATA here: copy the rest
            fi.seek(start)
            fo.seek(start)
            left = end - start
            while left > 0:
                chunk = fi.read(min(left, 1 << 20))
                if not chunk:
                    break
                fo.write(chunk)
                left -= len(chunk)
            pos = end
        fo.truncate(size)
    shutil.copystat(src, dst)
