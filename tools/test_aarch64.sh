#!/usr/bin/env bash
# aarch64 proof without ARM hardware: cross-compile the C kernels (csrc/ and the header-only ones) with
# Debian's aarch64 cross compiler and run their test vectors under qemu-user.
#
#   CRC-32/CRC-32C  with the ARMv8 CRC instructions (qemu's default CPU has them), then with them hidden
#                   (tests/c/hwcap_none.c), where the dispatcher must fall back to the portable kernel;
#                   both runs also check every other variant the CPU can run against the bitwise reference
#   MD5             NEON multi-lane kernel, and a -DKVLOG_MD5_NO_SIMD build (scalar only)
#   varints, index  header-only kernels (kvlog_varint.h, kvlog_index.h)
#   mem.c           must compile cleanly for aarch64 (no standalone vectors: exercised by the suite)
#
# Installs gcc-aarch64-linux-gnu and qemu-user with apt-get only when they are missing. Without apt-get
# (or rights to use it) it says so and exits 0, so a workstation without Debian packages is not blocked;
# CI on this project's machines has apt-get. Usage: tools/test_aarch64.sh [build-dir]  (or make test-aarch64)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build-aarch64}
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc}
SYSROOT=${AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}

have_tools() {
    command -v "$CC" >/dev/null && { command -v qemu-aarch64 >/dev/null || command -v qemu-aarch64-static >/dev/null; } \
        && [ -d "$SYSROOT/lib" ]
}

if ! have_tools; then
    if [ -n "${APT_GET:-}" ]; then
        apt=($APT_GET)
    elif [ "$(id -u)" = 0 ]; then
        apt=(apt-get)
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        apt=(sudo apt-get)
    else
        apt=()
    fi
    if [ ${#apt[@]} = 0 ] || ! command -v apt-get >/dev/null; then
        echo "SKIP test-aarch64: $CC / qemu-aarch64 are missing and apt-get is not available to install them"
        echo "      (Debian/Ubuntu: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)"
        exit 0
    fi
    echo "installing the aarch64 cross compiler and qemu-user (once)"
    "${apt[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends \
        gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user >/dev/null
    have_tools || { echo "FAIL: tools still missing after apt-get install"; exit 1; }
fi
QEMU=$(command -v qemu-aarch64 || command -v qemu-aarch64-static)

INC=src/kvlog/_core/include
SRC=src/kvlog/_core/csrc
CFLAGS=(-O2 -std=c99 -Wall -Wextra -Werror -I"$INC")   # the compiler's baseline: plain armv8-a, no -march
CRC=("$SRC/cpu.c" "$SRC/crc32.c" "$SRC/crc32c.c")
mkdir -p "$OUT"

build() { local exe=$1; shift; "$CC" "${CFLAGS[@]}" "$@" -o "$OUT/$exe"; }
build test_crc "${CRC[@]}" tests/c/test_crc.c
build test_crc_nohwcap "${CRC[@]}" tests/c/test_crc.c tests/c/hwcap_none.c
build test_md5 "$SRC/cpu.c" "$SRC/md5.c" tests/c/test_md5.c
build test_md5_scalar -DKVLOG_MD5_NO_SIMD "$SRC/cpu.c" "$SRC/md5.c" tests/c/test_md5.c
build test_index tests/c/test_index.c
build test_varint tests/c/test_varint.c
"$CC" "${CFLAGS[@]}" -c "$SRC/mem.c" -o "$OUT/mem.o"
echo "cross-compiled with $("$CC" -dumpfullversion) for $("$CC" -dumpmachine); running under $("$QEMU" --version | head -1)"

passed=0
failed=0
run() {  # run NAME EXPECTED_KERNEL EXE [ARGS]
    local name=$1 want=$2 exe=$3 rc=0
    shift 3
    echo "--- $name"
    local log="$OUT/$exe.log"
    KVLOG_TEST_EXPECT_KERNEL=$want "$QEMU" -L "$SYSROOT" "$OUT/$exe" "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" = 0 ]; then
        passed=$((passed + 1)); tail -n 3 "$log"
    else
        failed=$((failed + 1)); cat "$log"; echo "FAILED: $name (exit $rc)"
    fi
}
set +e
run "CRC-32/32C, ARMv8 CRC instructions" armv8-crc test_crc
run "CRC-32/32C, instructions hidden (portable fallback)" slice8 test_crc_nohwcap
run "MD5, NEON" neon-x8 test_md5
run "MD5, scalar build" scalar test_md5_scalar
run "index search" "" test_index
run "varints" "" test_varint
set -e
echo "aarch64 kernels: $passed passed, $failed failed"
[ "$failed" = 0 ]
