"""kvlog._java_text.java_utf8 against a live JVM: ``new String(bytes, StandardCharsets.UTF_8)``, exactly.

One JVM per session (a tiny class compiled here) reads length-prefixed byte arrays on stdin and answers, for
each, the UTF-16 code units of Java's string. Every test sends it a batch and compares the whole answer
with ``java_utf8``'s, byte for byte.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import struct
import subprocess
from collections.abc import Iterable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

import kvlog
from kvlog._java_text import JAVA_UTF8_ERRORS, java_utf8
from kvlog.cli import main

pytestmark = pytest.mark.xdist_group("java_text")  # one JVM for the whole file

ORACLE = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;

public final class JavaUtf8Oracle {
    // Batches until stdin ends. Asked: int32 count, then count times (int32 length, bytes). Answers: int32
    // size, then size bytes holding, for each array, int32 n and the n UTF-16 code units (big-endian) of
    // new String(bytes, UTF_8).
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 1 << 16));
        while (true) {
            int count;
            try {
                count = in.readInt();
            } catch (EOFException e) {
                break;
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            DataOutputStream a = new DataOutputStream(answer);
            for (int i = 0; i < count; i++) {
                byte[] b = new byte[in.readInt()];
                in.readFully(b);
                String s = new String(b, StandardCharsets.UTF_8);
                a.writeInt(s.length());
                a.writeChars(s);
            }
            a.flush();
            out.writeInt(answer.size());
            answer.writeTo(out);
            out.flush();
        }
    }
}
"""

#: bytes at the edges of UTF-8's classes: ASCII, continuation bytes (and E0/ED/F0/F4's second-byte
#: limits), the invalid leads C0/C1/F5-FF and the leads of each length
EDGES = bytes([0x00, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9F, 0xA0, 0xAF, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
               0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF])
#: fewer, for the third and fourth bytes of the big products
THIRD = (0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC2, 0xED, 0xF4, 0xFF)


def _tool(name: str) -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.access(os.path.join(home, "bin", name), os.X_OK):
        return os.path.join(home, "bin", name)
    return shutil.which(name)


class Jvm:
    def __init__(self, java: str, classpath: str) -> None:
        self.proc = subprocess.Popen([java, "-cp", classpath, "JavaUtf8Oracle"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def answers(self, inputs: list[bytes]) -> bytes:
        """The JVM's answer to ``inputs``: for each, int32 n and n UTF-16-BE code units (as :func:`_wire`)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(struct.pack(">i", len(inputs)))
        self.proc.stdin.write(b"".join(struct.pack(">i", len(x)) + x for x in inputs))
        self.proc.stdin.flush()  # the JVM reads the whole batch before it answers: no pipe deadlock
        head = self.proc.stdout.read(4)
        assert len(head) == 4, f"the JVM stopped (exit status {self.proc.poll()})"
        return self.proc.stdout.read(struct.unpack(">i", head)[0])

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()  # the JVM ends at the end of its input
        self.proc.wait(timeout=30)
        self.proc.stdout.close()


@pytest.fixture(scope="session")
def jvm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Jvm]:
    javac, java = _tool("javac"), _tool("java")
    if javac is None or java is None:
        pytest.fail("tests/test_java_text.py needs a JDK 17 (javac and java on PATH or in $JAVA_HOME/bin): "
                    "it checks kvlog's UTF-8 decoding against Java's own")
    work = tmp_path_factory.mktemp("java_text")
    (work / "JavaUtf8Oracle.java").write_text(ORACLE)
    subprocess.run([javac, "-d", str(work), str(work / "JavaUtf8Oracle.java")], check=True, timeout=120)
    vm = Jvm(java, str(work))
    yield vm
    vm.close()


def _wire(texts: Iterable[str]) -> bytes:
    out = []
    for t in texts:
        u = t.encode("utf-16-be")
        out.append(struct.pack(">i", len(u) // 2))
        out.append(u)
    return b"".join(out)


def _parse(blob: bytes) -> list[str]:
    texts, at = [], 0
    while at < len(blob):
        n = struct.unpack_from(">i", blob, at)[0]
        texts.append(blob[at + 4:at + 4 + 2 * n].decode("utf-16-be", "surrogatepass"))
        at += 4 + 2 * n
    return texts


def check(jvm: Jvm, inputs: list[bytes]) -> None:
    got = jvm.answers(inputs)
    mine = _wire(java_utf8(x) for x in inputs)
    if got != mine:
        java_texts, my_texts = _parse(got), _parse(mine)
        bad = [(x.hex(" "), j, m) for x, j, m in zip(inputs, java_texts, my_texts) if j != m]
        pytest.fail(f"{len(bad)} of {len(inputs)} inputs differ from Java (input, Java, java_utf8): "
                    + "; ".join(map(ascii, bad[:20])))


def test_every_input_of_one_and_two_bytes(jvm):
    inputs = [b""] + [bytes([a]) for a in range(256)] + [bytes([a, b]) for a in range(256) for b in range(256)]
    assert len(inputs) == 1 + 65_792
    check(jvm, inputs)


def _product(*choices: Iterable[int]) -> list[bytes]:
    return [bytes(t) for t in itertools.product(*choices)]


def test_three_bytes_from_a_non_ascii_lead(jvm):
    # Every (lead >= 0x80, second byte) with each edge third byte; every third byte after the leads whose
    # second byte has its own limits (E0: overlong, ED: surrogates, F0/F4: range) and after an ordinary
    # three-byte lead; and a random 1/64 of all 8,388,608. (All 8,388,608 pass too, in about 30 s: too long
    # for every run.)
    inputs = _product(range(0x80, 0x100), range(256), THIRD)
    inputs += _product((0xE0, 0xE1, 0xED, 0xF0, 0xF4), range(256), range(256))
    rng = random.Random(3)
    inputs += [bytes([rng.randrange(0x80, 0x100), rng.randrange(256), rng.randrange(256)])
               for _ in range(8_388_608 // 64)]
    check(jvm, list(dict.fromkeys(inputs)))


def test_four_bytes_from_f0_to_f7(jvm):
    leads, conts = range(0xF0, 0xF8), (0x80, 0x8F, 0x90, 0xBF)
    inputs = _product(leads, range(256), THIRD, THIRD)
    inputs += _product(leads, conts, range(256), conts) + _product(leads, conts, conts, range(256))
    check(jvm, list(dict.fromkeys(inputs)))


def _random_input(rng: random.Random) -> bytes:
    """Up to 64 bytes: mostly 0x80-0xFF, valid sequences of every length, encoded surrogates, and often a
    valid sequence cut short at the end."""
    n = rng.randrange(65)
    out = bytearray()
    while len(out) < n:
        kind = rng.random()
        if kind < 0.45:
            out.append(rng.randrange(0x80, 0x100))
        elif kind < 0.55:
            out.append(rng.randrange(0x80))
        elif kind < 0.9:
            out += chr(rng.choice((rng.randrange(0x80, 0x800), rng.randrange(0x800, 0xD800),
                                   rng.randrange(0xE000, 0x10000), rng.randrange(0x10000, 0x110000)))).encode()
        else:
            out += bytes([0xED, rng.randrange(0xA0, 0xC0), rng.randrange(0x80, 0xC0)])
    del out[n:]
    if rng.random() < 0.4:
        whole = chr(rng.choice((rng.randrange(0x80, 0x800), rng.randrange(0x800, 0x10000),
                                rng.randrange(0x10000, 0x110000)))).encode("utf-8", "surrogatepass")
        out += whole[:rng.randrange(1, len(whole))]
    return bytes(out)


def test_random_short_inputs(jvm):
    rng = random.Random(17)
    check(jvm, [_random_input(rng) for _ in range(20_000)])


def test_long_inputs(jvm):
    # Payloads of a few MB: one malformed stretch far into valid text, binary data, text with many errors.
    rng = random.Random(5)
    text = "".join(chr(rng.choice((rng.randrange(0x20, 0x7F), rng.randrange(0xA0, 0xD800),
                                   rng.randrange(0x10000, 0x20000)))) for _ in range(400_000)).encode()
    noisy = bytearray(text)
    for _ in range(20_000):
        at = rng.randrange(len(noisy))
        noisy[at:at] = rng.choice((b"\xed\xa0\x80", b"\xed\xbf", b"\xff", b"\x80", b"\xe0\x80", b"\xf0\x90\x80"))
    check(jvm, [text, text + b"\xed\xa0", text[:-1], text[:1000] + b"\xed\xb0\x80" + text,
                rng.randbytes(3 << 20), bytes(noisy), bytes(range(256)) * 4096])


TOKENS = st.one_of(
    st.binary(min_size=1, max_size=4),
    st.sampled_from([b"\xed\xa0", b"\xed\xbf\xbf", b"\xe0\x80", b"\xf0\x80", b"\xf4\x90", b"\xc0\xaf",
                     b"\xf5\x80\x80\x80", b"\xf0\x90\x80", b"\xe1\x80", b"\xc3", b"\xed\x9f\xbf"]),
    st.characters(codec="utf-8").map(str.encode),
)
INPUTS = st.one_of(st.binary(max_size=64), st.lists(TOKENS, max_size=24).map(b"".join))


@given(st.lists(INPUTS, min_size=1, max_size=40))
def test_hypothesis_inputs(jvm, inputs):
    check(jvm, inputs)


def test_valid_utf8_and_bytes_like_inputs():
    text = "kafka \u00e9\u20ac\U0001F600 \ud7ff\ue000\uffff"
    data = text.encode()
    assert java_utf8(data) == text
    assert java_utf8(bytearray(data)) == text
    assert java_utf8(memoryview(data)) == text
    assert java_utf8(b"") == ""
    # The one place Python's errors="replace" differs: an encoded surrogate is a single U+FFFD in Java.
    assert java_utf8(b"a\xed\xa0\x80b") == "a\ufffdb"
    assert java_utf8(b"a\xed\xa0") == "a\ufffd"
    assert java_utf8(b"\xed\xa0\x80\x80") == "\ufffd\ufffd"
    assert java_utf8(b"\xe0\x80") == "\ufffd\ufffd"
    # The error handler itself: the same text from bytes.decode, and for UTF-8 only.
    assert b"a\xed\xa0\x80b\xff".decode("utf-8", JAVA_UTF8_ERRORS) == "a\ufffdb\ufffd"
    with pytest.raises(UnicodeDecodeError):
        b"\xff".decode("ascii", JAVA_UTF8_ERRORS)


def test_dump_prints_keys_payloads_and_header_keys_as_java(jvm, tmp_path, capfd):
    key, value, header_key = b"k\xed\xa0\x80", b"\xed\xb0\x80x\xe0\x80\xf0\x90", b"\xed\xbf"
    batch = bytearray(kvlog.encode_batch([kvlog.Record(key, value, 1_700_000_000_000, (("hk", b"1"),))]))
    at = bytes(batch).index(b"hk")
    batch[at:at + 2] = header_key  # the same length: only the CRC changes
    batch[17:21] = kvlog.crc32c(bytes(batch[21:])).to_bytes(4, "big")
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(batch))
    assert main(["dump", "--files", str(path), "--print-data-log"]) == 0
    out = capfd.readouterr().out.splitlines()
    java_header_key, java_key, java_value = _parse(jvm.answers([header_key, key, value]))
    assert (java_header_key, java_key, java_value) == ("\ufffd", "k\ufffd", "\ufffdx\ufffd\ufffd\ufffd")
    assert out[-1].endswith(f"headerKeys: [{java_header_key}] key: {java_key} payload: {java_value}")
