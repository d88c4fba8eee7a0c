"""Mutation fuzzing of the decoders over realistic buffers (all magics and codecs, mixed).

The default run does a few hundred mutations; ``make test-slow`` runs 30,000.
"""

import random

import pytest

import kvlog
from kvlog import MemoryRecords, Record
from tests.test_records_corrupt import exercise

T0 = 1_700_000_000_000


def corpus():
    parts = []
    base = 0
    for magic, codec in [(2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (1, 0), (1, 1), (1, 2), (1, 3), (0, 0), (0, 1),
                         (0, 2), (0, 3)]:
        recs = [Record(b"k%d" % i, b"value %d " % i * (i % 5 + 1), T0 + i,
                       (("h", b"%d" % i),) if magic == 2 and i % 2 else ()) for i in range(6)]
        parts.append(kvlog.encode_batch(recs, magic=magic, compression=codec, base_offset=base))
        base += 6
    parts.append(kvlog.encode_batch([], base_offset=base, producer_id=3, producer_epoch=0))
    return b"".join(parts)


def mutate(rng, data):
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(buf)) if buf else 0
        if op == 0 and buf:
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            buf[i] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        elif op == 2:
            buf[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 3 and buf:
            del buf[i : i + rng.randint(1, 16)]
        elif op == 4:
            buf = buf[: rng.randrange(len(buf) + 1)]
        elif op == 5 and buf:
            j = rng.randrange(len(buf))
            buf[i:i] = buf[j : j + rng.randint(1, 64)]
    return bytes(buf)


def run(n, seed):
    rng = random.Random(seed)
    data = corpus()
    assert MemoryRecords(data).to_arrow().num_rows == 13 * 6
    outcomes = {"ok": 0, "error": 0}
    for _ in range(n):
        got = exercise(mutate(rng, data))
        outcomes["error" if isinstance(got, Exception) else "ok"] += 1
    assert outcomes["ok"] and outcomes["error"]  # the mutations reach both outcomes


def test_mutations_quick():
    run(400, seed=1)


@pytest.mark.slow
def test_mutations_long():
    run(30_000, seed=2)
