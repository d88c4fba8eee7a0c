"""Both Spark engines on clusters whose executors are separate processes (issue 50, item 4).

Every other Spark test runs ``local[2]``: the executors live in the driver's JVM, so nothing a task needs is ever
serialized to another process or loaded by another class loader. Here the same reads and writes run on

- ``local-cluster[2,1,1024]``: a standalone master and two workers inside the driver's JVM, each worker starting
  its executor as a JVM of its own (``CoarseGrainedExecutorBackend``, a child of the driver's JVM), and
- a standalone cluster started from PySpark's own launcher (``bin/spark-class`` ``...deploy.master.Master`` and two
  ``...deploy.worker.Worker``), each executor a child of its worker,

and their rows are compared, row by row (topic, partition, offset, key, value, headers, timestamp, timestampType),
with ``kvlog.scan`` over the same directories (the reader every local-mode test holds both engines to), and the
sinks' output with their input. One Python process holds one SparkContext (the pytest worker's is the shared
``local[2]`` one, which these tests never start), so each cluster's session runs in a child process,
``tests/spark_cluster_driver.py``, which writes its results as JSON. Every process a test starts is in a process
group of its own and killed in a ``finally``; none outlives its test.

Also: an executor killed (SIGKILL) in the middle of a JVM sink write, once while the write's input tasks run and
once while a writer task writes its segment; Spark reruns the lost tasks (and, the second time, the input stage and
the write stage), and every row is in the output exactly once, the directory clean for ``kvlog verify``.

Every case runs on local-cluster; the standalone cluster, whose start and session cost about as much again, runs one
test (both engines' scans and both sinks). docs/spark.md, "On a multi-process cluster", has what a user must set and
the measured times.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pyarrow as pa
import pytest

import kvlog
from kvlog import LogManager, Record, committed_offsets
from kvlog.verify import verify_path

from conftest import REPO, TEST_JVM_OPTS, jvm_source_jar
from tests.test_cluster_read import broker, records

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.spark, pytest.mark.xdist_group("spark-multiprocess")]

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.partitioner.default import murmur2

from tests import spark_cluster_driver as driver  # noqa: E402

T0 = driver.T0
LOCAL_CLUSTER = "local-cluster[2,1,1024]"
#: the cases each cluster runs: every one on local-cluster (the kills last); on the standalone cluster, whose session
#: costs as much again, one test: both engines' scans and both sinks
RUNS = {"local-cluster": list(driver.CASES), "standalone": ["jvm_scan", "python_scan", "jvm_sink", "python_sink"]}
DRIVER_TIMEOUT = 420  # seconds: a bound for a hung child, never a timing assertion


# ------------------------------------------------------------------------------------------------ inputs
def _record(topic: str, p: int, i: int) -> Record:
    """Null keys and values, headers (one with a null value), timestamps 10 ms apart."""
    key = None if i % 7 == 3 else b"%s-k%d" % (topic.encode(), (i * 2654435761) % 97)
    value = None if i % 11 == 5 else b"%s-%d-v%d" % (topic.encode(), p, i) * (1 + i % 3)
    headers: tuple = ()
    if i % 3 == 0:
        headers = (("h", b"%d" % i), ("null", None)) if i % 2 else (("only", b"\x00\xff"),)
    return Record(key, value, T0 + i * 10, headers=headers)


def write_inputs(work: Path) -> None:
    """``data/``: topic a (3 partitions, lz4, several segments), b (2 partitions, zstd), tx (a committed and an
    aborted transaction between plain records); ``brokers/``: three brokers' directories of one cluster (a lagging
    replica, the leader's unreplicated tail), as tests/test_spark_cluster.py lays them out."""
    with LogManager(str(work / "data"), kvlog.LogConfig(segment_bytes=4096)) as m:
        for topic, parts, n, codec in (("a", 3, 300, "lz4"), ("b", 2, 200, "zstd")):
            for p, log in enumerate(m.create_topic(topic, parts)):
                for lo in range(0, n, 25):
                    log.append([_record(topic, p, i) for i in range(lo, min(n, lo + 25))], compression=codec)
        (tx,) = m.create_topic("tx", 1)
        seq = collections.Counter()

        def txn(pid: int, lo: int, commit: bool) -> None:
            recs = [Record(b"tx-k", b"tx-%d-v%d" % (pid, i), T0 + i) for i in range(lo, lo + 5)]
            tx.append(recs, producer_id=pid, producer_epoch=0, base_sequence=seq[pid], is_transactional=True,
                      compression="lz4")
            seq[pid] += 5
            tx.end_transaction(pid, 0, commit=commit, timestamp=T0 + lo + 5)

        tx.append([Record(b"tx-k", b"tx-plain-%d" % i, T0 + i) for i in range(5)])
        txn(7, 10, True)
        txn(8, 20, False)
        tx.append([Record(None, b"tx-plain-%d" % i, T0 + i) for i in range(30, 35)])
        txn(7, 40, True)
    full = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 70), 2)] for p in range(3)}
    lagging = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 50), 2)] for p in range(3)}
    leader = {("t", p): [(records(p, 0, 40), 1), (records(p, 40, 75), 2)] for p in range(3)}
    hw = {("t", p): 68 for p in range(3)}
    for node, parts in ((1, leader), (2, full), (3, lagging)):
        broker(work / "brokers", node, parts, hw=hw)


def scan_rows(source, topics, **kw) -> list[list]:
    """``kvlog.scan``'s rows in the driver's form (every column, the timestamp in µs), sorted."""
    t = kvlog.scan(source, topics, threads=1, **kw).read_all()
    ts = t.column("timestamp").cast(pa.int64()).to_pylist()
    out = [[r["topic"], r["partition"], r["offset"], driver._hex(r["key"]), driver._hex(r["value"]),
            driver._headers(r["headers"]), ts[i], r["timestampType"]] for i, r in enumerate(t.to_pylist())]
    return sorted(out, key=driver._order)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    w = tmp_path_factory.mktemp("multiprocess")
    write_inputs(w)
    return w


# -------------------------------------------------------------------------------------------- processes
def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the process that started it dies (prctl PR_SET_PDEATHSIG), so a test
    process killed outright leaves no JVM behind (a driver's JVM exits with its Python, executors with their
    driver or worker)."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def _spawn(argv: list[str], log: Path, env: dict[str, str], **kw) -> subprocess.Popen:
    """A process leading a process group of its own (its JVM and everything that starts go with it)."""
    with open(log, "ab") as f:
        return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True, preexec_fn=_die_with_parent if sys.platform == "linux"
                                else None, **kw)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop(procs: list[subprocess.Popen], grace: float = 2) -> None:
    """SIGTERM each group, then SIGKILL whatever is left of them (a worker's executors are in its group)."""
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    deadline = time.monotonic() + 30
    while any(_group_alive(p.pid) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p.pid for p in procs if _group_alive(p.pid)]
    assert not left, f"process groups still alive after SIGKILL: {left}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, n: int = 4000) -> str:
    return path.read_text(errors="replace")[-n:] if path.exists() else "(no log)"


def spark_home() -> str:
    import pyspark

    return os.path.dirname(os.path.abspath(pyspark.__file__))


def driver_env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(":"),
               PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               TZ="UTC")
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    return env


@contextlib.contextmanager
def standalone_cluster(tmp: Path, workers: int = 2):
    """A standalone master and ``workers`` workers (1 core, 1 GiB each) on 127.0.0.1, from pyspark's
    ``bin/spark-class``; their logs, work and pid directories under ``tmp``; stopped (and their executors) on
    exit."""
    home = spark_home()
    (tmp / "conf").mkdir(parents=True)
    env = dict(driver_env(), SPARK_HOME=home, SPARK_CONF_DIR=str(tmp / "conf"), SPARK_LOG_DIR=str(tmp / "logs"),
               SPARK_PID_DIR=str(tmp / "pids"), SPARK_WORKER_DIR=str(tmp / "work"), SPARK_DAEMON_MEMORY="256m",
               SPARK_DAEMON_JAVA_OPTS=TEST_JVM_OPTS, SPARK_NO_DAEMONIZE="1")
    spark_class = os.path.join(home, "bin", "spark-class")
    procs: list[subprocess.Popen] = []
    try:
        port = _free_port()
        procs.append(_spawn([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                             "--port", str(port), "--webui-port", "0"], tmp / "master.log", env))
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if procs[0].poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the standalone master did not start:\n" + _tail(tmp / "master.log"))
                time.sleep(0.2)
        url = f"spark://127.0.0.1:{port}"
        for i in range(workers):
            procs.append(_spawn([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                 "--port", "0", "--webui-port", "0", "--cores", "1", "--memory", "1g",
                                 "--work-dir", str(tmp / f"work-{i}"), url], tmp / f"worker-{i}.log", env))
        yield url
    finally:
        _stop(procs)


def run_driver(master: str, work: Path, out: Path, cases: list[str]) -> dict:
    """The driver module in a child process on ``master``: its results, after every process it started ended."""
    jar = jvm_source_jar()
    if jar is None:
        pytest.fail("no kvlog jar: tests/conftest.py builds it with javac and pyspark")
    out.mkdir(parents=True)
    result, log = out / "result.json", out / "driver.log"
    argv = [sys.executable, "-m", "tests.spark_cluster_driver", "--master", master, "--jar", jar,
            "--work", str(work), "--out", str(out), "--result", str(result), "--jvm-opts", TEST_JVM_OPTS]
    for c in cases:
        argv += ["--case", c]
    proc = _spawn(argv, log, driver_env(), cwd=str(REPO))
    try:
        proc.wait(timeout=DRIVER_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the driver on {master} did not finish in {DRIVER_TIMEOUT} s:\n" + _tail(log))
    finally:
        _stop([proc])
    if proc.returncode != 0 or not result.exists():
        pytest.fail(f"the driver on {master} failed ({proc.returncode}):\n" + _tail(log))
    got = json.loads(result.read_text())
    got["log"] = str(log)
    return got


class Runs:
    """Each cluster's driver run, started by the first test that needs it."""

    def __init__(self, work: Path, tmp: Path):
        self.work, self.tmp, self.done = work, tmp, {}
        self.failed: dict[str, str] = {}

    def get(self, kind: str) -> dict:
        if kind in self.failed:  # once: the tests after the first report it without starting a cluster again
            pytest.fail(f"(as before) {self.failed[kind]}")
        if kind not in self.done:
            began = time.monotonic()
            out = self.tmp / kind
            try:
                if kind == "local-cluster":
                    got = run_driver(LOCAL_CLUSTER, self.work, out, RUNS[kind])
                else:
                    with standalone_cluster(self.tmp / "standalone-cluster") as url:
                        got = run_driver(url, self.work, out, RUNS[kind])
            except pytest.fail.Exception as exc:
                self.failed[kind] = str(exc)
                raise
            got["info"]["wall_seconds"] = round(time.monotonic() - began, 1)
            print(f"\n{kind}: {json.dumps(got['info'])}; cases: "
                  + ", ".join(f"{c} {r['seconds']} s" for c, r in got["cases"].items()))
            self.done[kind] = got
        return self.done[kind]

    def case(self, kind: str, name: str) -> dict:
        got = self.get(kind)["cases"][name]
        if "error" in got:
            pytest.fail(f"{name} on {kind} failed in the driver:\n{got['error']}")
        return got


@pytest.fixture(scope="module")
def runs(work, tmp_path_factory) -> Runs:
    return Runs(work, tmp_path_factory.mktemp("runs"))


# ---------------------------------------------------------------------------------------------- helpers
def sink_records(root: str, topic: str) -> dict[int, list[tuple]]:
    """Per partition, ``(offset, key, value, headers, timestamp µs)`` in offset order, through ``kvlog.scan``."""
    out: dict[int, list[tuple]] = collections.defaultdict(list)
    for r in scan_rows(root, topic):
        out[r[1]].append((r[2], r[3], r[4], json.dumps(r[5]), r[6]))
    return {p: sorted(v) for p, v in out.items()}


def assert_clean(root: str) -> None:
    """``kvlog verify`` finds nothing; no lease, staging or file past a committed end is left."""
    reports, root_problems = verify_path(root)
    assert reports and not root_problems
    problems = [(r.path, p.text()) for r in reports for p in r.problems]
    assert not problems, problems
    assert not [n for n in os.listdir(root) if n.startswith(committed_offsets.LEASE_PREFIX)]
    assert not os.path.exists(os.path.join(root, ".kvlog-staging"))
    state = committed_offsets.latest(root)
    for r in reports:
        rng = state.range_of(r.topic, r.partition)
        assert rng is None or r.next_offset == rng[1], (r.path, rng, r.next_offset)


def routed(key_hex: str | None, value_hex: str | None, n: int) -> int:
    """Kafka's default partitioner (kafka-python's murmur2), a null key by the value, as both sinks route."""
    b = bytes.fromhex(key_hex if key_hex is not None else value_hex or "")
    return (murmur2(b) & 0x7FFFFFFF) % n


# ------------------------------------------------------------------------------------------------ checks
def check_executors(info: dict) -> None:
    """Two executors registered, each a JVM of its own (not the driver's)."""
    assert info["executors"] == 2, info
    assert len(info["executor_pids"]) == 2 and info["driver_pid"] not in info["executor_pids"], info


def check_scan(got: dict, work: Path) -> None:
    want = scan_rows(str(work / "data"), ["a", "b", "tx"])
    assert len(want) == 3 * 300 + 2 * 200 + 25
    assert any(r[3] is None for r in want) and any(r[4] is None for r in want) and any(r[5] for r in want)
    assert got["rows"] == want


def _source_records(work: Path) -> list[tuple]:
    """What the sink cases write: topics a and b whole, then tx's rows without headers."""
    first = [(r[3], r[4], json.dumps(r[5]), r[6]) for r in scan_rows(str(work / "data"), ["a", "b"])]
    second = [(r[3], r[4], "null", r[6]) for r in scan_rows(str(work / "data"), "tx")]
    return first + second


def check_sink(got: dict, work: Path, fmt: str) -> dict[int, list[tuple]]:
    """Every input row once, where Kafka's partitioner puts it, offsets dense, the second job's after the first's;
    the directory clean."""
    out = sink_records(got["root"], "copy")
    assert sorted(out) == [0, 1, 2, 3]
    written = [(k, v, h, ts) for recs in out.values() for _o, k, v, h, ts in recs]
    assert collections.Counter(written) == collections.Counter(_source_records(work))
    for p, recs in out.items():
        assert [r[0] for r in recs] == list(range(len(recs)))
        assert all(routed(k, v, 4) == p for _o, k, v, _h, _ts in recs)
        second = [i for i, r in enumerate(recs) if r[2] is not None and bytes.fromhex(r[2]).startswith(b"tx-")]
        assert second == list(range(len(recs) - len(second), len(recs)))
    assert_clean(got["root"])
    if fmt == "jvm":
        assert got["exchange"] == "batches" and got["jvm_count"] == len(written)
    return out


def check_same_partitions(jvm: dict[int, list[tuple]], py: dict[int, list[tuple]]) -> None:
    """Both sinks route alike: each partition holds the same records (in the order their tasks delivered them)."""
    assert {p: sorted(map(repr, (r[1:] for r in v))) for p, v in jvm.items()} == \
        {p: sorted(map(repr, (r[1:] for r in v))) for p, v in py.items()}


def check_exactly_once(got: dict, topic: str) -> None:
    """Values ``v-<id>...`` for every id below ``rows``, each once, under its key; offsets dense; clean."""
    out = sink_records(got["root"], topic)
    ids = []
    for recs in out.values():
        assert [r[0] for r in recs] == list(range(len(recs)))
        for _o, k, v, _h, _ts in recs:
            value, key = bytes.fromhex(v), bytes.fromhex(k)
            assert value.startswith(b"v-" + key), (key, value)
            ids.append(int(key))
    dupes = [i for i, n in collections.Counter(ids).items() if n > 1]
    assert not dupes, f"{len(dupes)} rows written more than once, e.g. {dupes[:5]}"
    missing = sorted(set(range(got["rows"])) - set(ids))
    assert not missing, f"{len(missing)} rows missing, e.g. {missing[:5]}"
    assert len(ids) == got["rows"]
    assert_clean(got["root"])


# ------------------------------------------------------------------------------------------------ tests
LC = "local-cluster"


def test_executors_are_processes_of_their_own(runs):
    check_executors(runs.get(LC)["info"])


def test_jvm_scan_row_for_row(runs, work):
    check_scan(runs.case(LC, "jvm_scan"), work)


def test_jvm_scan_with_pushed_filters_and_projection(runs, work):
    got = runs.case(LC, "jvm_scan_filtered")
    want = sorted([r[0], r[1], r[2], r[4]] for r in scan_rows(str(work / "data"), ["a", "b"])
                  if 40 <= r[2] < 250 and r[6] >= (T0 + 1500) * 1000)
    assert want and got["rows"] == want
    # the scan applies the offset bounds and reads only what the query uses; Spark re-checks the timestamp only
    scan = next(line for line in got["plan"].splitlines() if "BatchScan kvlog" in line)
    struct = re.search(r"columns struct<([^>]*)>", scan)
    assert struct and {f.split(":")[0] for f in struct.group(1).split(",")} == \
        {"topic", "partition", "offset", "value", "timestamp"}, scan
    spark_filter = next(line for line in got["plan"].splitlines() if "Filter" in line)
    assert "timestamp" in spark_filter and "offset" not in spark_filter, spark_filter


def test_python_scan_row_for_row(runs, work):
    check_scan(runs.case(LC, "python_scan"), work)


@pytest.mark.parametrize("engine", ["jvm", "python"])
def test_read_committed_drops_the_aborted_transaction(runs, work, engine):
    got = runs.case(LC, f"{engine}_read_committed")["rows"]
    want = scan_rows(str(work / "data"), "tx", read_committed=True)
    assert got == want
    values = [bytes.fromhex(r[4]) for r in got]
    assert not any(v.startswith(b"tx-8-") for v in values) and sum(v.startswith(b"tx-7-") for v in values) == 10
    assert len(scan_rows(str(work / "data"), "tx")) == len(want) + 5


@pytest.mark.parametrize("engine", ["jvm", "python"])
def test_brokers_read_as_one_cluster(runs, work, engine):
    brokers = sorted(str(d) for d in (work / "brokers").iterdir())
    want = scan_rows(brokers, "t")
    assert len(want) == 3 * 70  # each partition once, to the committed end; the leader's tail not read
    assert runs.case(LC, f"cluster_{engine}")["rows"] == want


def test_stream_in_micro_batches_row_for_row(runs, work):
    got = runs.case(LC, "jvm_stream")
    assert got["rows"] == scan_rows(str(work / "data"), "a")
    assert len(got["batches"]) >= 2 and sum(got["batches"]) == 900 and max(got["batches"]) <= 400


@pytest.mark.parametrize("fmt", ["jvm", "python"])
def test_sink_writes_every_row_once_where_kafka_routes_it(runs, work, fmt):
    check_sink(runs.case(LC, f"{fmt}_sink"), work, fmt)


def test_both_sinks_write_the_same_partitions(runs):
    check_same_partitions(*(sink_records(runs.case(LC, f"{f}_sink")["root"], "copy") for f in ("jvm", "python")))


def test_an_executor_killed_while_input_tasks_run_leaves_every_row_once(runs):
    got = runs.case(LC, "kill_sink")
    killed = got["killed"]
    assert killed and len(killed["executors_before"]) == 2, got
    assert killed["pid"] not in got["executors_after"]
    # the killed executor's slices ran again (a second attempt of one), and every slice ran
    attempts = collections.Counter(m.split("-")[1] for m in got["markers"] if m.startswith("start-"))
    assert set(attempts) == {str(i) for i in range(driver.SLICES)}
    assert max(attempts.values()) >= 2, got["markers"]
    check_exactly_once(got, "k")


def test_an_executor_killed_while_its_writer_task_writes_leaves_every_row_once(runs):
    got = runs.case(LC, "kill_writer")
    killed = got["killed"]
    assert killed and len(killed["executors_before"]) == 2 and killed["writing"], got
    assert killed["pid"] not in got["executors_after"]
    check_exactly_once(got, "w")
    # the resubmitted write stage's tasks took the killed attempt's files for leftovers of their own task (its
    # attempts are numbered from 0 again), not for another job's
    log = Path(runs.get(LC)["log"]).read_text(errors="replace")
    assert "another job is writing it" not in log


def test_standalone_cluster_runs_both_engines_and_both_sinks(runs, work):
    """The same checks on a standalone master with two workers: executors are children of the worker processes,
    the jar reaches them through spark.jars, the Python workers run PYSPARK_PYTHON."""
    got = runs.get("standalone")
    check_executors(got["info"])
    for engine in ("jvm", "python"):
        check_scan(runs.case("standalone", f"{engine}_scan"), work)
    outs = [check_sink(runs.case("standalone", f"{f}_sink"), work, f) for f in ("jvm", "python")]
    check_same_partitions(*outs)
