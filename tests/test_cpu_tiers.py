"""Every CPU tier a wheel meets, on this machine (issue 14).

``KVLOG_CPU_DISABLE`` hides features from the dispatcher at import, so one machine runs the kernels of
the lower tiers. Each reachable tier runs in its own interpreter: the dispatched CRC-32/CRC-32C kernels
against zlib and the ``crc32c`` package, the offset map's MD5 slots against hashlib, and a decode with
CRC checks against aiokafka, with ``build_info()`` naming the kernels that tier must choose.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from kvlog._core import CPU_FEATURES, CPU_TIER_NEEDS, CPU_TIERS, build_info

FOUND = set(build_info()["cpu_features"])
X86 = platform.machine() in ("x86_64", "AMD64")

# the kernels each tier must choose on x86-64 when the CPU offers the tier's features
X86_KERNELS = {
    "native": None,  # whatever the CPU offers best
    "avx2+vpclmul": ("vpclmul-avx2", "vpclmul-avx2+sse4.2", "avx2-x16"),
    "avx2": ("pclmul", "pclmul+sse4.2", "avx2-x16"),
    "sse4.2+pclmul": ("pclmul", "pclmul+sse4.2", "sse2-x8"),
    "portable": ("slice8", "slice8", "scalar"),
}

CHECK = r"""
import hashlib, json, os, zlib
import crc32c as google
import numpy as np
import kvlog
from kvlog._core import build_info
from kvlog._core import offset_map as K

rng = np.random.default_rng(3)
bad = []
blob = rng.bytes(3 << 20)
sizes = list(range(0, 300)) + [511, 512, 513, 1023, 1024, 4095, 4096, 4097, 65535, 65536, 1 << 20, 3 << 20]
for n in sizes:
    for start in (0, 1, 7):
        d = blob[start : start + n]
        if kvlog.crc32(d) != zlib.crc32(d):
            bad.append(("crc32", n, start))
        if kvlog.crc32c(d) != google.crc32c(d):
            bad.append(("crc32c", n, start))
keys = [rng.bytes(int(k)) for k in rng.integers(0, 80, 5000)]
data = np.frombuffer(b"".join(keys), np.uint8)
offs = np.concatenate([[0], np.cumsum([len(k) for k in keys])]).astype(np.int64)
got = K.md5_many(data, offs)
want = b"".join(hashlib.md5(k).digest() for k in keys)
if bytes(got) != want:
    bad.append(("md5", len(keys), 0))
from aiokafka.record.default_records import DefaultRecordBatchBuilder
b = DefaultRecordBatchBuilder(2, 0, 0, -1, -1, -1, 1 << 30)
for i, k in enumerate(keys[:500]):
    b.append(i, 1_700_000_000_000 + i, k, k[::-1], [])
t = kvlog.MemoryRecords(bytes(b.build())).to_arrow()
if t.column("key").to_pylist() != keys[:500] or t.column("value").to_pylist() != [k[::-1] for k in keys[:500]]:
    bad.append(("decode", 500, 0))
info = build_info()
print(json.dumps({"bad": bad, "kernels": [info["crc32"], info["crc32c"], info["md5"]],
                  "disabled": info["cpu_disabled"]}))
"""


def run_tier(disable: str) -> dict:
    env = dict(os.environ, KVLOG_CPU_DISABLE=disable)
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("tier", list(CPU_TIERS))
def test_every_reachable_tier_dispatches_and_matches_the_peers(tier):
    if X86 and not CPU_TIER_NEEDS[tier] <= FOUND:
        pytest.skip(f"this CPU lacks {sorted(CPU_TIER_NEEDS[tier] - FOUND)}: the {tier} tier is not reachable here")
    got = run_tier(CPU_TIERS[tier])
    assert got["bad"] == []
    if tier == "native":
        assert got["disabled"] == []
        info = build_info()
        assert got["kernels"] == [info["crc32"], info["crc32c"], info["md5"]]
    elif X86:
        assert tuple(got["kernels"]) == X86_KERNELS[tier]
    elif tier == "portable":
        assert got["kernels"] == ["slice8", "slice8", "scalar"]


def test_an_unknown_feature_name_is_refused_at_import():
    env = dict(os.environ, KVLOG_CPU_DISABLE="avx2,avx5122")
    out = subprocess.run([sys.executable, "-c", "import kvlog"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode != 0
    assert "avx5122" in out.stderr and "known:" in out.stderr


def test_hiding_a_feature_hides_what_is_built_on_it():
    if not X86 or "avx2" not in FOUND:
        pytest.skip("needs an x86-64 CPU with AVX2")
    code = "import json; from kvlog._core import crc; print(json.dumps(crc.cpu_features()))"
    env = dict(os.environ, KVLOG_CPU_DISABLE="avx2")
    feats = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True, timeout=120).stdout)
    assert set(feats) == set(CPU_FEATURES)
    for name in ("avx2", "avx512", "vpclmul"):
        assert feats[name][1] is False
    assert feats["pclmul"][1] == feats["pclmul"][0]
