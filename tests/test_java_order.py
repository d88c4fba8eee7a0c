"""kvlog._java_order.JavaHashMap against a live JVM: the iteration order of a ``java.util.HashMap<String, ?>``
after the same ``put``/``computeIfAbsent`` calls, exactly.

One JVM per session (a tiny class compiled here) reads cases on stdin: each a list of operations (``put`` or
``computeIfAbsent`` of a string) on a new ``HashMap``. It answers, for each case, the keys in ``forEach``
order with their ``String.hashCode()``. Every test sends a batch and compares the whole answer with
JavaHashMap's. The cases cover every table size from 1 to 200 keys (the resizes), chains that become
red-black trees (9+ keys in one bucket of a table of 64 or more: the root moved to the front, later keys
linked after their tree parent) and trees split by a resize, for both operations, whose orders differ.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import struct
import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvlog._java_order import JavaHashMap, java_string_hash
from kvlog.cli import main

pytestmark = pytest.mark.xdist_group("java_order")  # one JVM for the whole file

ORACLE = r"""
import java.io.*;
import java.util.*;

public final class JavaHashMapOracle {
    // Batches until stdin ends. Asked: int32 cases, then per case int32 n operations, each a byte (0: put,
    // 1: computeIfAbsent) and a string (int32 length, UTF-16 code units). Answers: int32 size, then size bytes
    // holding per case int32 count and, for each key in forEach order, the key (int32 length, code units) and
    // its int32 hashCode().
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 1 << 16));
        while (true) {
            int cases;
            try {
                cases = in.readInt();
            } catch (EOFException e) {
                break;
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            DataOutputStream a = new DataOutputStream(answer);
            for (int c = 0; c < cases; c++) {
                Map<String, Integer> map = new HashMap<>();
                int n = in.readInt();
                for (int i = 0; i < n; i++) {
                    int op = in.readByte();
                    char[] units = new char[in.readInt()];
                    for (int j = 0; j < units.length; j++) {
                        units[j] = in.readChar();
                    }
                    String key = new String(units);
                    final int at = i;
                    if (op == 0) {
                        map.put(key, at);
                    } else {
                        map.computeIfAbsent(key, k -> at);
                    }
                }
                a.writeInt(map.size());
                map.forEach((k, v) -> {
                    try {
                        a.writeInt(k.length());
                        a.writeChars(k);
                        a.writeInt(k.hashCode());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            a.flush();
            out.writeInt(answer.size());
            answer.writeTo(out);
            out.flush();
        }
    }
}
"""

PUT, CIA = 0, 1
Case = list[tuple[int, str]]


def _tool(name: str) -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", name), os.X_OK):
        return os.path.join(home, "bin", name)
    return shutil.which(name)


def _units(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


class Jvm:
    def __init__(self, java: str, classpath: str) -> None:
        self.proc = subprocess.Popen([java, "-cp", classpath, "JavaHashMapOracle"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def orders(self, cases: list[Case]) -> list[list[tuple[str, int]]]:
        """For each case, the JVM's keys in ``forEach`` order, each with its ``hashCode()``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        out = [struct.pack(">i", len(cases))]
        for case in cases:
            out.append(struct.pack(">i", len(case)))
            for op, key in case:
                u = _units(key)
                out.append(struct.pack(">bi", op, len(u) // 2) + u)
        self.proc.stdin.write(b"".join(out))
        self.proc.stdin.flush()  # the JVM reads the whole batch before it answers: no pipe deadlock
        head = self.proc.stdout.read(4)
        assert len(head) == 4, f"the JVM stopped (exit status {self.proc.poll()})"
        blob = self.proc.stdout.read(struct.unpack(">i", head)[0])
        answers, at = [], 0
        for _ in cases:
            (n,), at = struct.unpack_from(">i", blob, at), at + 4
            keys = []
            for _ in range(n):
                (length,) = struct.unpack_from(">i", blob, at)
                key = blob[at + 4:at + 4 + 2 * length].decode("utf-16-be", "surrogatepass")
                at += 4 + 2 * length
                (h,), at = struct.unpack_from(">i", blob, at), at + 4
                keys.append((key, h))
            answers.append(keys)
        assert at == len(blob)
        return answers

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()  # the JVM ends at the end of its input
        self.proc.wait(timeout=30)
        self.proc.stdout.close()


@pytest.fixture(scope="session")
def jvm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jvm]:
    javac, java = _tool("javac"), _tool("java")
    if javac is None or java is None:
        pytest.fail("tests/test_java_order.py needs a JDK 17 (javac and java on PATH or in $JAVA_HOME/bin): "
                    "it checks kvlog's HashMap order against Java's own")
    work = tmp_path_factory.mktemp("java_order")
    (work / "JavaHashMapOracle.java").write_text(ORACLE)
    subprocess.run([javac, "-d", str(work), str(work / "JavaHashMapOracle.java")], check=True, timeout=120)
    vm = Jvm(java, str(work))
    yield vm
    vm.close()


def emulate(case: Case) -> list[tuple[str, int]]:
    m: JavaHashMap[int] = JavaHashMap()
    for i, (op, key) in enumerate(case):
        if op == PUT:
            m.put(key, i)
        else:
            m.compute_if_absent(key, lambda _k, i=i: i)
    assert len(m) == len(set(k for _, k in case))
    return [(k, java_string_hash(k)) for k in m.keys()]


def check(jvm: Jvm, cases: list[Case]) -> None:
    java = jvm.orders(cases)
    for case, answer in zip(cases, java):
        # as code units: a lone high and a lone low surrogate next to each other are one astral character
        # once decoded, the same string to Java
        want = [(_units(k), h) for k, h in answer]
        got = [(_units(k), h) for k, h in emulate(case)]
        if got != want:
            bad = next(i for i, (a, b) in enumerate(zip(want, got + [("", 0)] * len(want))) if a != b)
            pytest.fail(f"{len(case)} operations ({sorted(set(op for op, _ in case))}): the orders differ from "
                        f"entry {bad} (Java, JavaHashMap): {want[bad:bad + 5]!r} {got[bad:bad + 5]!r}")


def both(keys: list[str]) -> list[Case]:
    """The same keys, once with ``put`` and once with ``computeIfAbsent``."""
    return [[(PUT, k) for k in keys], [(CIA, k) for k in keys]]


def path_like(rng: random.Random) -> str:
    topic = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_-.") for _ in range(rng.randrange(1, 12)))
    kind = rng.choice((".log", ".index", ".timeindex", ".txnindex", ".snapshot"))
    return (f"/{rng.choice(('dev/shm/scen', 'tmp/pytest-of-user/pytest-3', 'kafka/data', 'var/lib/kafka'))}/"
            f"{rng.choice(('2.8.2', '4.4.0', 'clean', 'running'))}/data/{topic}-{rng.randrange(50)}/"
            f"{rng.randrange(10 ** rng.randrange(1, 12)):020d}{kind}")


def distinct(rng: random.Random, n: int, make=path_like) -> list[str]:
    out: dict[str, None] = {}
    while len(out) < n:
        out[make(rng)] = None
    return list(out)


def test_string_hash_code():
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -2**31  # Integer.MIN_VALUE
    assert java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00  # two UTF-16 code units


def test_every_size_from_1_to_200(jvm):
    rng = random.Random(1)
    cases = [c for n in range(1, 201) for c in both(distinct(rng, n))]
    check(jvm, cases)


def test_short_keys_crowd_buckets(jvm):
    # keys of one or two letters: small hashes, long chains in the low buckets, none treeified
    rng = random.Random(2)
    letters = [chr(c) for c in range(0x20, 0x7F)]
    pool = letters + [a + b for a in letters for b in letters]
    cases = [c for n in (5, 13, 25, 49, 97, 193, 400, 1000) for c in both(rng.sample(pool, n))]
    check(jvm, cases)


def test_compute_if_absent_resizes_on_the_next_call(jvm):
    # DumpLogSegments calls computeIfAbsent once per reported pair: for a key already there too, and that call
    # is the one that resizes a table whose size passed the threshold.
    rng = random.Random(3)
    cases = []
    for n in range(1, 120):
        keys = distinct(rng, n)
        ops = [(CIA, k) for k in keys for _ in range(rng.choice((1, 1, 2, 5)))]
        cases.append(ops)
        cases.append(ops[:-1] + [(CIA, keys[0])])  # the last call hits an old key
        shuffled = ops[:]
        rng.shuffle(shuffled)
        cases.append(shuffled)
    check(jvm, cases)


def _aa_bb(k: int) -> list[str]:
    """The 2**k strings of k pairs "Aa"/"BB": one hashCode, so one bucket whatever the table size."""
    return ["".join(p) for p in itertools.product(("Aa", "BB"), repeat=k)]


def test_colliding_strings_become_a_tree(jvm):
    rng = random.Random(4)
    cases = []
    for k in (3, 4, 5, 6):
        family = _aa_bb(k)
        for n in (7, 8, 9, 10, 12, 17, len(family)):
            if n > len(family):
                continue
            same = rng.sample(family, n)
            cases += both(same)  # alone: the table grows to 64 before the chain may become a tree
            others = distinct(rng, rng.choice((10, 40, 60, 100)))
            mixed = same + others
            rng.shuffle(mixed)
            cases += both(mixed)
            cases += both(others + same)  # the table already at 64: treeified where it grows
    # families with different hashes sharing buckets, and equal hashes with different prefixes
    # ("x" + "Aa" and "x" + "BB" collide too): the tree compares hashes first, then compareTo
    prefixed = [p + s for p in ("x", "yy", "/kafka/") for s in _aa_bb(4)]
    for _ in range(20):
        keys = rng.sample(prefixed, rng.randrange(9, len(prefixed))) + distinct(rng, rng.randrange(0, 120))
        rng.shuffle(keys)
        cases += both(keys)
    check(jvm, cases)


def _in_bucket(rng: random.Random, bits: int, target: int, n: int) -> list[str]:
    """``n`` distinct path-like keys whose spread hash has ``target`` in its low ``bits`` bits."""
    out: dict[str, None] = {}
    while len(out) < n:
        k = path_like(rng)
        h = java_string_hash(k) & 0xFFFFFFFF
        if ((h ^ (h >> 16)) & ((1 << bits) - 1)) == target:
            out[k] = None
    return list(out)


def test_tree_buckets_split_by_resizes(jvm):
    # keys that share a bucket of a 64-bucket table but not of a larger one: the tree splits into two lists,
    # each untreeified (6 or fewer) or treeified again (its root to the front), or moves whole
    rng = random.Random(5)
    cases = []
    for size in (9, 10, 12, 14, 16, 20, 30):
        for _ in range(3):
            crowd = _in_bucket(rng, 6, rng.randrange(64), size)
            for tail in (0, 30, 60, 120, 250):
                others = distinct(rng, tail)
                cases += both(crowd + others)
                cases += both(others[:tail // 2] + crowd + others[tail // 2:])
                mixed = crowd + others
                rng.shuffle(mixed)
                cases += both(mixed)
    # a bucket whose keys also share the next bits: trees that survive several resizes
    crowd = _in_bucket(rng, 9, 77, 24)
    cases += both(crowd + distinct(rng, 600))
    cases += both(distinct(rng, 100) + crowd + distinct(rng, 500))
    check(jvm, cases)


def test_unicode_keys(jvm):
    # hashCode over UTF-16 code units: non-ASCII, astral characters (two units), lone surrogates
    rng = random.Random(6)

    def make(r: random.Random) -> str:
        return "".join(chr(r.choice((r.randrange(0x20, 0x7F), r.randrange(0xA0, 0xD800), r.randrange(0xD800, 0xE000),
                                     r.randrange(0xE000, 0x10000), r.randrange(0x10000, 0x110000))))
                       for _ in range(r.randrange(0, 30)))

    cases = [c for n in (1, 5, 13, 40, 100, 300) for c in both(distinct(rng, n, make))]
    family = [s.replace("A", "\u00c1") for s in _aa_bb(4)]  # no longer colliding with "Aa"/"BB"
    cases += both(family + ["\U0001F600" + s for s in _aa_bb(4)] + distinct(rng, 80, make))
    check(jvm, cases)


POOL = _aa_bb(4) + [chr(c) for c in range(0x41, 0x5B)] + ["x" + s for s in _aa_bb(3)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from((PUT, CIA)), st.sampled_from(POOL)), max_size=120))
def test_hypothesis_operation_sequences(jvm, ops):
    # put and computeIfAbsent mixed on one map, over a pool of colliding and small keys
    check(jvm, [ops])


def test_dump_reports_files_in_hash_map_order(jvm, tmp_path, capfd, monkeypatch):
    """``kvlog dump``'s "Non-consecutive offsets" reports come out in the order Java's HashMap of absolute
    paths gives them (DumpLogSegments' computeIfAbsent, once per reported pair)."""
    import kvlog

    rng = random.Random(7)
    files = []
    for i in range(40):
        d = tmp_path / f"t{rng.randrange(10 ** 6)}-{i}"
        d.mkdir()
        base = rng.randrange(1, 10 ** 6)
        path = d / f"{base:020d}.log"
        gaps = rng.randrange(1, 4)
        data = b"".join(kvlog.encode_batch([kvlog.Record(b"k", b"v", 1_700_000_000_000)], base_offset=base + 2 * j)
                        for j in range(gaps))
        path.write_bytes(data)
        files.append((path, gaps))
    monkeypatch.chdir(tmp_path)
    # half the names relative: Java's absolute path is then the working directory + "/" + the name, its "//"
    # made one "/" (java.io.File's normal form) and its "./" kept
    names = [f"./{p.parent.name}//{p.name}" if i % 2 else str(p) for i, (p, _) in enumerate(files)]
    absolute = [os.getcwd() + "/" + n.replace("//", "/") if i % 2 else n for i, n in enumerate(names)]
    assert main(["dump", "--files", ",".join(names), "--deep-iteration"]) == 0
    err = capfd.readouterr().err.splitlines()
    reported = [line.removeprefix("Non-consecutive offsets in ") for line in err if line.startswith("Non-")]
    ops = [(CIA, a) for a, (_, gaps) in zip(absolute, files) for _ in range(gaps)]
    assert reported == [k for k, _ in jvm.orders([ops])[0]]
    assert sorted(reported) == sorted(absolute) and reported != absolute  # not the order they were dumped
